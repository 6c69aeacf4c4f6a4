// RUN: fx-opt %s --fx-fold-quant=int8-convs=true | fx-opt --convert-fx-to-linalg | FileCheck %s
//
// A quantized conv3d of a batch of 2 clips (lit int8-conv3d.mlir has the
// one-clip form and the operands): one int8 conv2d per depth tap of the
// kernel, each over the view of the NDHWC buffer's OD = 3 depths from
// depth kd with stride 2 ([N, OD, Hp, Wp, Cp], collapsed to N * OD
// images), its products added to the previous tap's (the first from
// zeros), then the epilogue and the transposing copy to NCDHW.

// CHECK-LABEL: func.func @forward
// CHECK: %[[BBUF:.*]] = linalg.fill ins(%{{.*}} : i8) outs(%{{.*}} : tensor<2x7x4x[[BWP:[0-9]+]]x4xi8>)
// CHECK: %[[BPADDED:.*]] = tensor.insert_slice %{{.*}} into %[[BBUF]][0, 1, 0, 1, 0] [2, 5, 4, 6, 4] [1, 1, 1, 1, 1]
// CHECK: tensor.extract_slice %[[BPADDED]][0, 0, 0, 0, 0] [2, 3, 4, [[BWP]], 4] [1, 2, 1, 1, 1]
// CHECK: %[[ZERO:.*]] = linalg.fill ins(%{{.*}} : i32) outs(%{{.*}} : tensor<6x4x6x1x16xi32>)
// CHECK: %[[P0:.*]] = linalg.generic {{.*}} outs(%[[ZERO]] : tensor<6x4x6x1x16xi32>) attrs =  {fx.int8_conv = array<i64: 1, 1, 1, 1, {{[0-9]+}}>}
// CHECK: tensor.extract_slice %[[BPADDED]][0, 1, 0, 0, 0] [2, 3, 4, [[BWP]], 4] [1, 2, 1, 1, 1]
// CHECK: %[[P1:.*]] = linalg.generic {{.*}} outs(%[[P0]] : tensor<6x4x6x1x16xi32>) attrs =  {fx.int8_conv
// CHECK: tensor.extract_slice %[[BPADDED]][0, 2, 0, 0, 0] [2, 3, 4, [[BWP]], 4] [1, 2, 1, 1, 1]
// CHECK: %[[P2:.*]] = linalg.generic {{.*}} outs(%[[P1]] : tensor<6x4x6x1x16xi32>) attrs =  {fx.int8_conv
// CHECK: tensor.collapse_shape %[[P2]]
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<2x3x4x6x4xf32>) outs(%{{.*}} : tensor<2x4x3x4x6xf32>)
fx.graph_module @Batch {
  fx.state parameter @w : tensor<4x4x3x1x3x!quant.uniform<i8:f32:0, {0.02, 0.03, 0.04, 0.05}>> = dense_resource<w>
  fx.state parameter @bias : tensor<4xf32> = dense<[0.5, -0.25, 0.125, 1.0]>
  fx.state parameter @g : tensor<4x2x3x1x3x!quant.uniform<i8:f32, 0.02>> = dense_resource<g>
  fx.graph @forward {
    %in = fx.placeholder "in" : tensor<2x4x5x4x6xf32>
    %x = fx.call_function "aten::quantize_per_tensor"(%in, 0.1, 120, torch.quint8) : (tensor<2x4x5x4x6xf32>) -> tensor<2x4x5x4x6x!quant.uniform<u8:f32, 0.1:120>>
    %xf = fx.call_function "aten::dequantize.self"(%x) : (tensor<2x4x5x4x6x!quant.uniform<u8:f32, 0.1:120>>) -> tensor<2x4x5x4x6xf32>
    %w0 = fx.get_attr @w : tensor<4x4x3x1x3x!quant.uniform<i8:f32:0, {0.02, 0.03, 0.04, 0.05}>>
    %wf = fx.call_function "aten::dequantize.self"(%w0) : (tensor<4x4x3x1x3x!quant.uniform<i8:f32:0, {0.02, 0.03, 0.04, 0.05}>>) -> tensor<4x4x3x1x3xf32>
    %b = fx.get_attr @bias : tensor<4xf32>
    %y = fx.call_function "aten::conv3d"(%xf, %wf, %b, [2, 1, 1], [1, 0, 1], [1, 1, 1], 1) : (tensor<2x4x5x4x6xf32>, tensor<4x4x3x1x3xf32>, tensor<4xf32>) -> tensor<2x4x3x4x6xf32>
    %xf2 = fx.call_function "aten::dequantize.self"(%x) : (tensor<2x4x5x4x6x!quant.uniform<u8:f32, 0.1:120>>) -> tensor<2x4x5x4x6xf32>
    %g0 = fx.get_attr @g : tensor<4x2x3x1x3x!quant.uniform<i8:f32, 0.02>>
    %gf = fx.call_function "aten::dequantize.self"(%g0) : (tensor<4x2x3x1x3x!quant.uniform<i8:f32, 0.02>>) -> tensor<4x2x3x1x3xf32>
    %grouped = fx.call_function "aten::conv3d"(%xf2, %gf, None, [1, 1, 1], [1, 0, 1], [1, 1, 1], 2) : (tensor<2x4x5x4x6xf32>, tensor<4x2x3x1x3xf32>) -> tensor<2x4x5x4x6xf32>
    fx.output (%y, %grouped) : tensor<2x4x3x4x6xf32>, tensor<2x4x5x4x6xf32>
  }
}


{-#
  dialect_resources: {
    builtin: {
      w: "0x010000007942BDF22106F0847762F0F3CB4D764DC7072051159A0F89F2C6DACAE344BB311245FD6F84DF9AD7C5B3D076AC0E8F53A7356C88913F20F6F72DB022D24D0A96DAD43C1617C1A98E78129E0327371065D095864F15ADA0B846C1C0EBC5348ADC799ADF849BAD05D4A10AC0441EAAEEB4B48EFA0B1F0ABD80E998A35ABA5EA0BD8799C1350D439E71897AA75FDE3134A4",
      g: "0x01000000AA72E05628AC6FE68A733D1161A15D8EAE2BB042D7958AEDB1D594D6D112D34F6602F4DE7110E993AE7422923D7D171165DC1906F63D57997A0AD31B3AAE4081F41FB471653E3D57"
    }
  }
#-}
