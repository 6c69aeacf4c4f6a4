// RUN: fx-opt %s -split-input-file --convert-fx-to-linalg | FileCheck %s

// cross_entropy_loss with class indices, mean: log_softmax along dim 1
// (the row max, exp, sum, log), then for each target the negated log
// probability it picks and its weight (1 here), summed and divided. A
// target outside [0, C) other than ignore_index is a run-time check.

// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[X:.*]]: tensor<4x5xf32>, %[[T:.*]]: tensor<4xi64>) -> (tensor<f32>, tensor<i1>)
// CHECK-SAME:    fx.checks = [{message = "IndexError: Target out of bounds", node = "l"}]
// CHECK:         arith.maximumf
// CHECK:         math.exp
// CHECK:         math.log
// CHECK:         %[[PICKED:.*]]:2 = linalg.generic {{.*}} ins(%[[T]] : tensor<4xi64>) outs({{.*}} : tensor<4xf32>, tensor<4xf32>)
// CHECK:           tensor.extract %{{.*}}[%{{.*}}, %{{.*}}] : tensor<4x5xf32>
// CHECK:           arith.negf
// CHECK:         ins(%[[PICKED]]#0 : tensor<4xf32>)
// CHECK:         ins(%[[PICKED]]#1 : tensor<4xf32>)
// CHECK:           arith.divf

fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<4x5xf32>
    %t = fx.placeholder "t" : tensor<4xi64>
    %l = fx.call_function "aten::cross_entropy_loss"(%x, %t, None, 1, -100, 0.0) : (tensor<4x5xf32>, tensor<4xi64>) -> tensor<f32>
    fx.output %l : tensor<f32>
  }
}

// -----

// smooth_l1_loss, sum: |d| < beta ? 0.5 d^2 / beta : |d| - 0.5 beta, then
// the sum of every element.

// CHECK-LABEL: func.func @forward(
// CHECK:         arith.subf
// CHECK:         math.absf
// CHECK:         arith.cmpf olt
// CHECK:         arith.select
// CHECK:         iterator_types = ["reduction", "reduction"]
// CHECK:           arith.addf

fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<3x4xf32>
    %t = fx.placeholder "t" : tensor<3x4xf32>
    %l = fx.call_function "aten::smooth_l1_loss"(%x, %t, 2, 0.5) : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<f32>
    fx.output %l : tensor<f32>
  }
}
