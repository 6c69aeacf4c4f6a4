// RUN: fx-opt %s -split-input-file --convert-fx-to-linalg | FileCheck %s

// ndtri (the standard normal's quantile) as ATen's calc_ndtri, in f64:
// p reflected above 1 - exp(-2); a rational function of p - 1/2 near 1/2;
// in the tails x = sqrt(-2 log p) and rational functions of 1 / x below
// and from 8; -inf at 0, +inf at 1, NaN outside [0, 1]. Not
// sqrt(2) erfinv(2p - 1), which is -inf below p = 1e-16.

// CHECK-LABEL: func.func @forward(
// CHECK-DAG:     %[[NAN:.*]] = arith.constant 0x7FF8000000000000 : f64
// CHECK-DAG:     %[[INF:.*]] = arith.constant 0x7FF0000000000000 : f64
// CHECK-DAG:     %[[NEGINF:.*]] = arith.constant 0xFFF0000000000000 : f64
// CHECK-DAG:     %[[EXPM2:.*]] = arith.constant 0.1353352832366127 : f64
// CHECK-DAG:     %[[EIGHT:.*]] = arith.constant 8.000000e+00 : f64
// CHECK:         linalg.generic
// CHECK:           %[[P:.*]] = arith.extf %{{.*}} : f32 to f64
// CHECK:           %[[UPPER:.*]] = arith.cmpf ogt, %[[P]]
// CHECK:           %[[Y:.*]] = arith.select %[[UPPER]], %{{.*}}, %[[P]] : f64
// CHECK:           math.log %[[Y]] : f64
// CHECK:           math.sqrt
// CHECK:           arith.cmpf olt, %{{.*}}, %[[EIGHT]] : f64
// CHECK:           arith.cmpf ogt, %[[Y]], %[[EXPM2]] : f64
// CHECK:           arith.select %{{.*}}, %[[NEGINF]], %{{.*}} : f64
// CHECK:           arith.select %{{.*}}, %[[INF]], %{{.*}} : f64
// CHECK:           arith.select %{{.*}}, %[[NAN]], %{{.*}} : f64
// CHECK:           arith.truncf %{{.*}} : f64 to f32
// CHECK-NOT:     math.erf
fx.graph_module @M {
  fx.graph @forward {
    %p = fx.placeholder "p" : tensor<8xf32>
    %q = fx.call_function "aten::special_ndtri"(%p) : (tensor<8xf32>) -> tensor<8xf32>
    fx.output %q : tensor<8xf32>
  }
}
