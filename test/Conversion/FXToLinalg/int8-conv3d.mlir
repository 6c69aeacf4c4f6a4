// RUN: fx-opt %s --fx-fold-quant=int8-convs=true | FileCheck %s --check-prefix=FOLD
// RUN: fx-opt %s --fx-fold-quant=int8-convs=true | fx-opt --convert-fx-to-linalg | FileCheck %s
// RUN: fx-opt %s --fx-fold-quant=int8-convs=true | fx-opt --convert-fx-to-linalg | fx-opt --pass-pipeline='builtin.module(func.func(fx-cpu-schedule{target=sapphirerapids}))' | FileCheck %s --check-prefix=VNNI
//
// A quantized conv3d (groups 1, at least 16 deep: here 4 channels x a
// 3 x 1 x 3 window) keeps its dequantizes under fx-fold-quant{int8-convs},
// and the lowering computes it with the int8 conv2d's register tiles
// (lib/Conversion/FXToLinalg/QuantizedConv.cpp, int8Conv3d): the input
// written once as NDHWC into the interior of a [N, Dp, Hp, Wp, Cp] buffer
// filled with the zero point (120; depth padded 1 + 1, width 1 + 1 and to
// the register tile's width), the epilogue in NHWC over the N * OD output
// images, then one transposing copy to NCDHW. A grouped conv3d folds to
// f32.
//
// One clip: the depth taps inside the products' loops, one generic of 10
// loops whose image n (output depth) reads depth n * 2 + kd, fx.int8_conv
// carrying the depth's stride and dilation; fx-cpu-schedule makes it
// register tiles with a loop over the depth taps around the window's. A
// batch of clips: lit int8-conv3d-batch.mlir.

// FOLD-LABEL: fx.graph_module @Clip
// FOLD: %xf = fx.call_function "aten::dequantize.self"(%x)
// FOLD: %wf = fx.call_function "aten::dequantize.self"(%w0)
// FOLD: %y = fx.call_function "aten::conv3d"(%xf, %wf, %b, [2, 1, 1], [1, 0, 1], [1, 1, 1], 1)
// FOLD: %g_dequantized = fx.get_attr @g_dequantized
// FOLD: %grouped = fx.call_function "aten::conv3d"(%{{.*}}, %g_dequantized,

// CHECK-LABEL: func.func @forward
// CHECK: %[[X:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<1x4x5x4x6xf32>) outs(%{{.*}} : tensor<1x4x5x4x6xi8>)
// CHECK: %[[BUF:.*]] = linalg.fill ins(%{{.*}} : i8) outs(%{{.*}} : tensor<1x7x4x[[WP:[0-9]+]]x4xi8>)
// CHECK: %[[INTERIOR:.*]] = tensor.extract_slice %[[BUF]][0, 1, 0, 1, 0] [1, 5, 4, 6, 4] [1, 1, 1, 1, 1]
// CHECK: %[[NDHWC:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<1x4x5x4x6xi8>) outs(%[[INTERIOR]] : tensor<1x5x4x6x4xi8>)
// CHECK: %[[PADDED:.*]] = tensor.insert_slice %[[NDHWC]] into %[[BUF]][0, 1, 0, 1, 0] [1, 5, 4, 6, 4] [1, 1, 1, 1, 1]
// CHECK: tensor.collapse_shape %[[PADDED]] {{\[\[}}0, 1], [2], [3], [4]] : tensor<1x7x4x[[WP]]x4xi8> into tensor<7x4x[[WP]]x4xi8>
// CHECK: linalg.generic {indexing_maps = [#[[IN:.*]], #{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<7x4x[[WP]]x1x4xi8>, tensor<1x3x1x3x1x16x4xi8>) outs(%{{.*}} : tensor<3x4x6x1x16xi32>) attrs =  {fx.int8_conv = array<i64: 1, 1, 1, 1, {{[0-9]+}}, 2, 1>}
// CHECK: -> tensor<3x4x6x4xf32>
// CHECK: tensor.expand_shape {{.*}} : tensor<3x4x6x4xf32> into tensor<1x3x4x6x4xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<1x3x4x6x4xf32>) outs(%{{.*}} : tensor<1x4x3x4x6xf32>)
// CHECK-NOT: linalg.conv_3d

// The clip's products as VNNI register tiles: the depth taps (3) around
// the window's width taps (3), each reading image n * 2 + kd.

// VNNI-LABEL: func.func @forward
// VNNI: scf.forall
// VNNI: %[[DEPTH:.*]]:{{[0-9]+}} = scf.for %[[KD:.*]] = %c0{{.*}} to %c3{{.*}} step %c1
// VNNI: %[[TAP:.*]] = arith.muli %[[KD]], %c1{{.*}} : index
// VNNI: %[[FIRST:.*]] = arith.muli %{{.*}}, %c2{{.*}} : index
// VNNI: %[[IMAGE:.*]] = arith.addi %[[FIRST]], %[[TAP]] : index
// VNNI: scf.for %{{.*}} = %c0{{.*}} to %c1{{.*}} step
// VNNI: scf.for %{{.*}} = %c0{{.*}} to %c3{{.*}} step
// VNNI: vector.transfer_read %{{.*}}[%[[IMAGE]],
// VNNI: vector.multi_reduction <add>
// VNNI-NOT: fx.int8_conv = array<i64: 1, 1, 1, 1, {{[0-9]+}}, 2, 1>

fx.graph_module @Clip {
  fx.state parameter @w : tensor<4x4x3x1x3x!quant.uniform<i8:f32:0, {0.02, 0.03, 0.04, 0.05}>> = dense_resource<w>
  fx.state parameter @bias : tensor<4xf32> = dense<[0.5, -0.25, 0.125, 1.0]>
  fx.state parameter @g : tensor<4x2x3x1x3x!quant.uniform<i8:f32, 0.02>> = dense_resource<g>
  fx.graph @forward {
    %in = fx.placeholder "in" : tensor<1x4x5x4x6xf32>
    %x = fx.call_function "aten::quantize_per_tensor"(%in, 0.1, 120, torch.quint8) : (tensor<1x4x5x4x6xf32>) -> tensor<1x4x5x4x6x!quant.uniform<u8:f32, 0.1:120>>
    %xf = fx.call_function "aten::dequantize.self"(%x) : (tensor<1x4x5x4x6x!quant.uniform<u8:f32, 0.1:120>>) -> tensor<1x4x5x4x6xf32>
    %w0 = fx.get_attr @w : tensor<4x4x3x1x3x!quant.uniform<i8:f32:0, {0.02, 0.03, 0.04, 0.05}>>
    %wf = fx.call_function "aten::dequantize.self"(%w0) : (tensor<4x4x3x1x3x!quant.uniform<i8:f32:0, {0.02, 0.03, 0.04, 0.05}>>) -> tensor<4x4x3x1x3xf32>
    %b = fx.get_attr @bias : tensor<4xf32>
    %y = fx.call_function "aten::conv3d"(%xf, %wf, %b, [2, 1, 1], [1, 0, 1], [1, 1, 1], 1) : (tensor<1x4x5x4x6xf32>, tensor<4x4x3x1x3xf32>, tensor<4xf32>) -> tensor<1x4x3x4x6xf32>
    %xf2 = fx.call_function "aten::dequantize.self"(%x) : (tensor<1x4x5x4x6x!quant.uniform<u8:f32, 0.1:120>>) -> tensor<1x4x5x4x6xf32>
    %g0 = fx.get_attr @g : tensor<4x2x3x1x3x!quant.uniform<i8:f32, 0.02>>
    %gf = fx.call_function "aten::dequantize.self"(%g0) : (tensor<4x2x3x1x3x!quant.uniform<i8:f32, 0.02>>) -> tensor<4x2x3x1x3xf32>
    %grouped = fx.call_function "aten::conv3d"(%xf2, %gf, None, [1, 1, 1], [1, 0, 1], [1, 1, 1], 2) : (tensor<1x4x5x4x6xf32>, tensor<4x2x3x1x3xf32>) -> tensor<1x4x5x4x6xf32>
    fx.output (%y, %grouped) : tensor<1x4x3x4x6xf32>, tensor<1x4x5x4x6xf32>
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
