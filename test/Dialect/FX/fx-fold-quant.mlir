// RUN: fx-opt %s --fx-fold-quant | FileCheck %s
//
// A dequantized weight is dequantized once, at compile time, into a new
// float parameter ((q - zero_point) * scale per channel: 1 * 0.25, 2 *
// 0.25, -1 * 0.25; (-128 - 3) * 0.125, (0 - 3) * 0.125, (127 - 3) *
// 0.125); the quantized weight nothing reads any more is erased. A
// quantize of a dequantize back to the same type is its input; a
// dequantize of a quantize is one fake quantization.

// CHECK-LABEL: fx.graph_module @Fold
// CHECK-NOT: fx.state parameter @w :
// CHECK: fx.state parameter @w_dequantized : tensor<2x3xf32> = dense_resource<w_dequantized>
// CHECK: %x = fx.call_function "aten::quantize_per_tensor"(%q, 0.1, 128, torch.quint8)
// CHECK: %xf = fx.call_function "aten::fake_quantize_per_tensor_affine"(%q, 0.1, 128, 0, 255) : (tensor<4x3xf32>) -> tensor<4x3xf32>
// CHECK: %w_dequantized = fx.get_attr @w_dequantized : tensor<2x3xf32>
// CHECK: %y = fx.call_function "aten::linear"(%xf, %w_dequantized)
// CHECK: fx.output (%x, %y)
// CHECK: w_dequantized: "0x080000000000803E0000003F000080BE000083C10000C0BE00007841"
fx.graph_module @Fold {
  fx.state parameter @w : tensor<2x3x!quant.uniform<i8:f32:0, {0.25:0, 0.125:3}>> = dense_resource<w>
  fx.graph @forward {
    %q = fx.placeholder "q" : tensor<4x3xf32>
    %x = fx.call_function "aten::quantize_per_tensor"(%q, 0.1, 128, torch.quint8) : (tensor<4x3xf32>) -> tensor<4x3x!quant.uniform<u8:f32, 0.1:128>>
    %xf = fx.call_function "aten::dequantize.self"(%x) : (tensor<4x3x!quant.uniform<u8:f32, 0.1:128>>) -> tensor<4x3xf32>
    %again = fx.call_function "aten::quantize_per_tensor"(%xf, 0.1, 128, torch.quint8) : (tensor<4x3xf32>) -> tensor<4x3x!quant.uniform<u8:f32, 0.1:128>>
    %w = fx.get_attr @w : tensor<2x3x!quant.uniform<i8:f32:0, {0.25:0, 0.125:3}>>
    %wf = fx.call_function "aten::dequantize.self"(%w) : (tensor<2x3x!quant.uniform<i8:f32:0, {0.25:0, 0.125:3}>>) -> tensor<2x3xf32>
    %y = fx.call_function "aten::linear"(%xf, %wf) : (tensor<4x3xf32>, tensor<2x3xf32>) -> tensor<4x2xf32>
    fx.output (%again, %y) : tensor<4x3x!quant.uniform<u8:f32, 0.1:128>>, tensor<4x2xf32>
  }
}

{-#
  dialect_resources: {
    builtin: {
      w: "0x010000000102FF80007F"
    }
  }
#-}
