// RUN: fx-opt %s --fx-fold-quant=int8-convs=true | FileCheck %s
// RUN: fx-opt %s --fx-fold-quant | FileCheck %s --check-prefix=FLOAT
//
// With int8-convs, a linear of a dequantized static per-tensor quint8
// input and a dequantized 2-D qint8 weight with zero points 0 (per channel
// or per tensor), at least 16 deep, keeps both dequantizes: the lowering
// computes it in int8 as a 1 x 1 conv of its rows (lit
// Conversion/FXToLinalg/int8-linear.mlir), as does a dynamically quantized
// linear's (its input a fake quantization with run-time scale and zero
// point, int8-linear-dynamic.mlir). A linear 8 deep and a weight with a
// nonzero zero point fold as without the option (float weights).

// CHECK-LABEL: fx.graph_module @Linears
// CHECK: %xf = fx.call_function "aten::dequantize.self"(%x)
// CHECK: %wf = fx.call_function "aten::dequantize.self"(%w0)
// CHECK: %y = fx.call_function "aten::linear"(%xf, %wf, None)
// CHECK: %shallow = fx.call_function "aten::linear"(%{{.*}}, %s_dequantized, None)
// CHECK: %shifted = fx.call_function "aten::linear"(%{{.*}}, %z_dequantized, None)

// FLOAT-LABEL: fx.graph_module @Linears
// FLOAT: %y = fx.call_function "aten::linear"(%{{.*}}, %w_dequantized, None)
// FLOAT-NOT: dequantize.self
fx.graph_module @Linears {
  fx.state parameter @w : tensor<8x24x!quant.uniform<i8:f32:0, {0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08}>> = dense_resource<w>
  fx.state parameter @s : tensor<8x8x!quant.uniform<i8:f32, 2.000000e-02>> = dense_resource<s>
  fx.state parameter @z : tensor<8x24x!quant.uniform<i8:f32, 2.000000e-02:3>> = dense_resource<z>
  fx.graph @forward {
    %in = fx.placeholder "in" : tensor<5x24xf32>
    %in8 = fx.placeholder "in8" : tensor<5x8xf32>
    %x = fx.call_function "aten::quantize_per_tensor"(%in, 0.1, 128, torch.quint8) : (tensor<5x24xf32>) -> tensor<5x24x!quant.uniform<u8:f32, 1.000000e-01:128>>
    %xf = fx.call_function "aten::dequantize.self"(%x) : (tensor<5x24x!quant.uniform<u8:f32, 1.000000e-01:128>>) -> tensor<5x24xf32>
    %w0 = fx.get_attr @w : tensor<8x24x!quant.uniform<i8:f32:0, {0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08}>>
    %wf = fx.call_function "aten::dequantize.self"(%w0) : (tensor<8x24x!quant.uniform<i8:f32:0, {0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08}>>) -> tensor<8x24xf32>
    %y = fx.call_function "aten::linear"(%xf, %wf, None) : (tensor<5x24xf32>, tensor<8x24xf32>) -> tensor<5x8xf32>
    %x8 = fx.call_function "aten::quantize_per_tensor"(%in8, 0.1, 128, torch.quint8) : (tensor<5x8xf32>) -> tensor<5x8x!quant.uniform<u8:f32, 1.000000e-01:128>>
    %x8f = fx.call_function "aten::dequantize.self"(%x8) : (tensor<5x8x!quant.uniform<u8:f32, 1.000000e-01:128>>) -> tensor<5x8xf32>
    %s0 = fx.get_attr @s : tensor<8x8x!quant.uniform<i8:f32, 2.000000e-02>>
    %sf = fx.call_function "aten::dequantize.self"(%s0) : (tensor<8x8x!quant.uniform<i8:f32, 2.000000e-02>>) -> tensor<8x8xf32>
    %shallow = fx.call_function "aten::linear"(%x8f, %sf, None) : (tensor<5x8xf32>, tensor<8x8xf32>) -> tensor<5x8xf32>
    %xf2 = fx.call_function "aten::dequantize.self"(%x) : (tensor<5x24x!quant.uniform<u8:f32, 1.000000e-01:128>>) -> tensor<5x24xf32>
    %z0 = fx.get_attr @z : tensor<8x24x!quant.uniform<i8:f32, 2.000000e-02:3>>
    %zf = fx.call_function "aten::dequantize.self"(%z0) : (tensor<8x24x!quant.uniform<i8:f32, 2.000000e-02:3>>) -> tensor<8x24xf32>
    %shifted = fx.call_function "aten::linear"(%xf2, %zf, None) : (tensor<5x24xf32>, tensor<8x24xf32>) -> tensor<5x8xf32>
    fx.output (%y, %shallow, %shifted) : tensor<5x8xf32>, tensor<5x8xf32>, tensor<5x8xf32>
  }
}

{-#
  dialect_resources: {
    builtin: {
      w: "0x0100000082B70EEE7F1A5039BEF07EC2347F066ED08F5DC7512447E3404300026B6E545594A065685D64C4980BB8D4544A8721A99A01AD219EB59CF6A15EF6F15A1D830BB7CE09D6BBC004E7175C643C7DECB0B580EC37BC9712DD2E6AAEB94BAE8D2F9FA29C5A284C9EF7521829CF1079B080E9D74A1C10FCAB6A4243D33656DEBE4C1ED79648E856E8F9A2F58C95F0CE4B39C15BFFAD5C2DFB8BB820B6119CBA8FF88796AE5B05F280A68CED93B6B28CB0D1B358E6BAAB485565B9F49028D557D79A8A",
      s: "0x010000000E6451E15C705C15F173541B4438A25CF76312D4EEB3C2246879BF00B3CF8ED13ABF129A3097AD96B442D6D1BDEF4850C3F465442EB300C337A648A6C0DBDD73",
      z: "0x01000000FC95F5C2C451859AFE80D40AA39DFB9249F40C3EE37D961445C806F58C7CF2127DFA894F9296FCF33C08409990AC970DEDB3B843120181E9376107DBDAF6C5F3C86497EE219B01DD92F19F4954F4FEA94ED9182375882B200DAADB23CFF9193F3E70384495E04C5D5ED352226D1637C2248F1D3CCC4405DD2EA1FAFAB4BF1C46964D947086207882914478BEE8C75B4309AE2B122E3FE87AC7ECF5A5370FC41B4DDB723B2AFB6C47C0B57894AAB2C5C145B797DDB9126E5CCA203112105F6764"
    }
  }
#-}
