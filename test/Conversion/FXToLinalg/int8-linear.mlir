// A quantized linear in the form fx-fold-quant{int8-convs} keeps (its
// input and weight dequantizes; lit Dialect/FX/fx-fold-quant-linear.mlir)
// lowers as a 1 x 1 int8 conv of its rows (int8Linear,
// lib/Conversion/FXToLinalg/QuantizedConv.cpp): x [2, 3, 24] flattened to
// its 6 rows, read as the image [1, 24, 1, 6] (the conv's NHWC copy of it
// is x's own layout again: the schedule fuses the two transposes), the
// products in one generic marked fx.int8_conv (6 pixels a register tile)
// of unsigned activation and signed weight bytes packed [3 blocks of 16
// channels, 6 groups of 4 bytes], the epilogue with the zero point's
// correction, then [1, 40, 1, 6] back to [2, 3, 40]. Exact in int32 as
// PyTorch's quantized engine computes it (e2e quantized.mlp, attention).
//
// RUN: fx-opt %s --convert-fx-to-linalg | FileCheck %s
// RUN: fx-opt %s --convert-fx-to-linalg=int8-pairs=true | FileCheck %s --check-prefix=PAIRS
// RUN: fx-opt %s --convert-fx-to-linalg | fx-opt --pass-pipeline='builtin.module(func.func(fx-cpu-schedule{target=sapphirerapids}))' | FileCheck %s --check-prefix=VNNI
// RUN: fx-opt %s --fx-to-llvm=cpu=sapphirerapids | FileCheck %s --check-prefix=INTRINSIC

// CHECK-LABEL: func.func @forward
// CHECK-DAG: %[[W:.*]] = arith.constant dense<"0x{{[0-9A-F]+}}"> : tensor<3x1x1x6x16x4xi8>
// CHECK-DAG: %[[CORR:.*]] = arith.constant dense<[{{.*}}]> : tensor<40xi32>
// CHECK: %[[ROWS:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : tensor<2x3x24xi8> into tensor<6x24xi8>
// CHECK: %[[IMAGE:.*]] = linalg.generic {{.*}} ins(%[[ROWS]] : tensor<6x24xi8>) outs(%{{.*}} : tensor<1x24x1x6xi8>)
// CHECK: linalg.generic {{.*}} ins(%[[IMAGE]] : tensor<1x24x1x6xi8>) outs(%{{.*}} : tensor<1x1x6x24xi8>)
// CHECK: linalg.generic {{.*}} ins({{.*}}, %[[W]] : tensor<1x1x6x6x4xi8>, tensor<3x1x1x6x16x4xi8>) outs({{.*}} : tensor<1x1x6x3x16xi32>) attrs =  {fx.int8_conv = array<i64: 1, 1, 1, 1, 6>}
// CHECK: arith.extui
// CHECK: arith.extsi
// CHECK: linalg.generic {{.*}} ins({{.*}}, %[[CORR]], {{.*}} : tensor<1x1x6x40xi32>, tensor<40xi32>, tensor<40xf32>, tensor<40xf32>)
// CHECK: arith.sitofp
// CHECK: -> tensor<1x40x1x6xf32>
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2, 3]] : tensor<1x40x1x6xf32> into tensor<40x6xf32>
// CHECK: -> tensor<6x40xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2]] output_shape [2, 3, 40] : tensor<6x40xf32> into tensor<2x3x40xf32>

// PAIRS: linalg.generic {{.*}} ins({{.*}} : tensor<1x1x6x12x2xi16>, tensor<3x1x1x12x16x2xi16>) outs({{.*}} : tensor<1x1x6x3x16xi32>) attrs =  {fx.int8_conv = array<i64: 1, 1, 1, 1, 6>}

// VNNI: scf.forall
// VNNI-COUNT-6: vector.multi_reduction <add>, {{.*}} [1] : vector<16x4xi32> to vector<16xi32>
// VNNI-NOT: fx.int8_conv

// INTRINSIC: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"

fx.graph_module @QuantizedLinear {
  fx.state parameter @w : tensor<40x24x!quant.uniform<i8:f32, 2.000000e-02>> = dense_resource<w>
  fx.state parameter @b : tensor<40xf32> = dense_resource<b>
  fx.graph @forward {
    %in = fx.placeholder "in" : tensor<2x3x24xf32>
    %x = fx.call_function "aten::quantize_per_tensor"(%in, 0.1, 120, torch.quint8) : (tensor<2x3x24xf32>) -> tensor<2x3x24x!quant.uniform<u8:f32, 1.000000e-01:120>>
    %xf = fx.call_function "aten::dequantize.self"(%x) : (tensor<2x3x24x!quant.uniform<u8:f32, 1.000000e-01:120>>) -> tensor<2x3x24xf32>
    %w0 = fx.get_attr @w : tensor<40x24x!quant.uniform<i8:f32, 2.000000e-02>>
    %wf = fx.call_function "aten::dequantize.self"(%w0) : (tensor<40x24x!quant.uniform<i8:f32, 2.000000e-02>>) -> tensor<40x24xf32>
    %b0 = fx.get_attr @b : tensor<40xf32>
    %y = fx.call_function "aten::linear"(%xf, %wf, %b0) : (tensor<2x3x24xf32>, tensor<40x24xf32>, tensor<40xf32>) -> tensor<2x3x40xf32>
    fx.output (%y) : tensor<2x3x40xf32>
  }
}

{-#
  dialect_resources: {
    builtin: {
      w: "0x010000007942BDF22106F0847762F0F3CB4D764DC7072051159A0F89F2C6DACAE344BB311245FD6F84DF9AD7C5B3D076AC0E8F53A7356C88913F20F6F72DB022D24D0A96DAD43C1617C1A98E78129E0327371065D095864F15ADA0B846C1C0EBC5348ADC799ADF849BAD05D4A10AC0441EAAEEB4B48EFA0B1F0ABD80E998A35ABA5EA0BD8799C1350D439E71897AA75FDE3134A4AA72E05628AC6FE68A733D1161A15D8EAE2BB042D7958AEDB1D594D6D112D34F6602F4DE7110E993AE7422923D7D171165DC1906F63D57997A0AD31B3AAE4081F41FB471653E3D577A8C4103F9CC198A7F89D81AF2A5001C40173F1923F7102CFAA150A124B3C5C79BB88761A8DB3F4101C2285B15BFEBC216DC1BBEFEA1D7D6EB097D6F8A24D972DA420EA6BF863EED3FC037A33402F24978C7162F32C05B0CAE3E0D3AF691992D127A36331FA65C277B5C7FE8C981BCCBB3D62AC078D352D4F74FCD4C5331FEF7E25F4588654BA17697D3886F9D0B89F5C36658B87AA4F749D6F569EF0EF625CC17EF7578236F827B6184465F12825617A05DD82E2B3C2F879512B6E7AC030FABA9DFC2F8276BFAC840A33D8C27DD39E08031BFBCE6978736AD3AFCB41E965D4C5BBDE83F3748A9D7995FEAF69F5A23365CC8B733888AC41B4515F58A7EB5AACEE523B4FE394D8A3339395E60D5C8414ACB63575B6780BD960FE3D0C4A19EFE99F70F61013777FB58EB65636C12E339914E45EF2D190DB87727FF09ADA5A8B044291128AF692066DF71F8A13715D1276652C8FEF222D86AFA9B0BEDEACDE05CE91383BBBDE5B9CD72016B84BD49EB63516B0B57CE560E473856E2FB5E1E0BCEE5A2D0101A7ACE14CBFC0D707B30C7F26154AA3BB13F1A948CEE99FA7F880FACB0A22F1DDE2D01350F2E095712F61B60A966F4AEF5B311C39CC92C965ED33AC7ABCE59C5B75EB9D4E075E3F6B08956C6F9154E570BEF2F31A3791C18E6EEAABD002463CC35AD9F38E6296B7B184E49053975936A70D6A360EF5A2815390C3366822B37EECC7237F8B1CEE43895E3C2693B03ED9927AEB162F824BAD8226D7FB31FAB78DCE02B806FA554696FEDD6BC61D1F7D0F01195095E310E4D961FF114636A8DFBDD13B0EF64934934E399D2E327694EF991C0BE52DC9FEDF271B893920FEDBFB7987C0507434C0A54190068EEB5B911FA5E7A068DDDAD1A30E69F867EFFD685AD160FDB13547E45D3AC448F08561708F81EEBEFD4BD57965D254734D0B4E3E88E82E7904FA14713D2F876EA8B0FA23BF9408F8934DE26BE11F9E5639FB15CC4CBA1198A6D13A2A2C8901243D580D328FD7566283A3F029023DC89F7EC8994185978F956494C5B",
      b: "0x04000000000000BF3333F3BE6666E6BE9A99D9BECDCCCCBE0000C0BE3333B3BE6666A6BE9A9999BECDCC8CBE000080BE666666BECDCC4CBE333333BE9A9919BE000000BECDCCCCBD9A9999BDCDCC4CBDCDCCCCBC00000000CDCCCC3CCDCC4C3D9A99993DCDCCCC3D0000003E9A99193E3333333ECDCC4C3E6666663E0000803ECDCC8C3E9A99993E6666A63E3333B33E0000C03ECDCCCC3E9A99D93E6666E63E3333F33E"
    }
  }
#-}
