// RUN: fx-opt %s --convert-fx-to-linalg | FileCheck %s
//
// Bilinear upsampling of a quantized tensor's integers (fx-fold-quant
// writes it for PyTorch's quantized upsample_bilinear2d, lit
// Dialect/FX/fx-fold-quant-pool.mlir @Bilinear): as ATen's kernel, the
// integers themselves (not less the zero point) interpolated in f32 with
// the float kernel's index and weight tables, then the zero point
// subtracted, rounded half to even, added back and clamped: the output
// keeps the input's scale and zero point. (Other modes on the integers
// are refused: lit invalid.mlir @QuantizedBicubic.)

// CHECK-LABEL: func.func @forward
// CHECK-DAG: %[[ZP:.*]] = arith.constant 1.270000e+02 : f32
// CHECK-DAG: arith.constant dense<[0.000000e+00, 2.500000e-01, 7.500000e-01, 2.500000e-01, 7.500000e-01, 2.500000e-01]> : tensor<6xf32>
// CHECK: ^bb0(%[[IN:.*]]: i8, %{{.*}}: f32):
// CHECK-NEXT: arith.uitofp %[[IN]] : i8 to f32
// CHECK: tensor.extract
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: ^bb0(%[[V:.*]]: f32, %{{.*}}: i8):
// CHECK-NEXT: %[[CENTRED:.*]] = arith.subf %[[V]], %[[ZP]] : f32
// CHECK-NEXT: %[[ROUNDED:.*]] = math.roundeven %[[CENTRED]] : f32
// CHECK-NEXT: %[[BACK:.*]] = arith.addf %[[ROUNDED]], %[[ZP]] : f32
// CHECK-NEXT: arith.maxnumf %[[BACK]]
// CHECK-NEXT: arith.minnumf
fx.graph_module @QuantizedBilinear {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x4x3x3x!quant.uniform<u8:f32, 0.1:127>>
    %up = fx.call_function "aten::upsample_bilinear2d.vec"(%x, None, False, [2.0, 2.0]) : (tensor<1x4x3x3x!quant.uniform<u8:f32, 0.1:127>>) -> tensor<1x4x6x6x!quant.uniform<u8:f32, 0.1:127>>
    fx.output %up : tensor<1x4x6x6x!quant.uniform<u8:f32, 0.1:127>>
  }
}

