// RUN: fx-opt %s --convert-fx-to-linalg | FileCheck %s
//
// Average pooling of a quantized tensor's integers (fx-fold-quant writes
// it for PyTorch's quantized avg_pool2d and adaptive_avg_pool2d, lit
// Dialect/FX/fx-fold-quant-pool.mlir): the integers less the zero point
// summed in f32 and divided by the window's count, then rounded half to
// even. Where PyTorch holds the input contiguous, its kernel adds the
// zero point back before rounding; with fx.round_before_zero_point
// (channels-last inputs: a quantized conv's output) after, as ATen's
// channels-last kernel does. With the odd zero point 127, an average of
// 0.5 gives 128 (127.5 rounded to even) one way and 127 (0 + 127) the
// other.

// CHECK-LABEL: func.func @forward
// CHECK-DAG: %[[ZP:.*]] = arith.constant 1.270000e+02 : f32
// CHECK: arith.uitofp
// CHECK-NEXT: arith.subf %{{.*}}, %[[ZP]] : f32
// CHECK: linalg.pooling_nchw_sum
// CHECK: arith.divf
// CHECK: ^bb0(%[[A:.*]]: f32, %{{.*}}: i8):
// CHECK-NEXT: %[[SHIFTED:.*]] = arith.addf %[[A]], %[[ZP]] : f32
// CHECK-NEXT: math.roundeven %[[SHIFTED]] : f32
// CHECK: linalg.pooling_nchw_sum
// CHECK: arith.divf
// CHECK: ^bb0(%[[B:.*]]: f32, %{{.*}}: i8):
// CHECK-NEXT: %[[ROUNDED:.*]] = math.roundeven %[[B]] : f32
// CHECK-NEXT: arith.addf %[[ROUNDED]], %[[ZP]] : f32
fx.graph_module @QuantizedAverages {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x8x4x4x!quant.uniform<u8:f32, 0.1:127>>
    %contiguous = fx.call_function "aten::avg_pool2d"(%x, [2, 2], [2, 2], [0, 0], False, True, None) : (tensor<1x8x4x4x!quant.uniform<u8:f32, 0.1:127>>) -> tensor<1x8x2x2x!quant.uniform<u8:f32, 0.1:127>>
    %channels_last = fx.call_function "aten::avg_pool2d"(%x, [2, 2], [2, 2], [0, 0], False, True, None) {fx.round_before_zero_point} : (tensor<1x8x4x4x!quant.uniform<u8:f32, 0.1:127>>) -> tensor<1x8x2x2x!quant.uniform<u8:f32, 0.1:127>>
    fx.output (%contiguous, %channels_last) : tensor<1x8x2x2x!quant.uniform<u8:f32, 0.1:127>>, tensor<1x8x2x2x!quant.uniform<u8:f32, 0.1:127>>
  }
}
