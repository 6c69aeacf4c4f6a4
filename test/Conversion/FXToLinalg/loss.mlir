// RUN: fx-opt %s -split-input-file --convert-fx-to-linalg | FileCheck %s

// cross_entropy_loss with class indices, mean: log_softmax along dim 1
// (the row max, exp, sum, log), then for each target the negated log
// probability it picks and its weight (1 here), summed and divided. A
// target outside [0, C) other than ignore_index is a run-time check.

// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[X:.*]]: tensor<4x5xf32>, %[[T:.*]]: tensor<4xi64>) -> (tensor<f32>, tensor<i1>)
// CHECK-SAME:    fx.checks = [{message = "IndexError: Target out of bounds", node = "'l'"}]
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

// -----

// kl_div, sum: t log t (0 where t is 0) - t x per element, then the sum
// of all of them.

// CHECK-LABEL: func.func @forward(
// CHECK:         linalg.generic
// CHECK:           %[[LOG:.*]] = math.log %[[T:.*]] : f32
// CHECK:           %[[TLOGT:.*]] = arith.mulf %[[T]], %[[LOG]]
// CHECK:           %[[ZERO:.*]] = arith.cmpf oeq, %[[T]]
// CHECK:           %[[XLOGY:.*]] = arith.select %[[ZERO]], %{{.*}}, %[[TLOGT]]
// CHECK:           %[[TX:.*]] = arith.mulf %[[T]], %{{.*}}
// CHECK:           arith.subf %[[XLOGY]], %[[TX]]
// CHECK:         linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]
// CHECK:           arith.addf

fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<4x5xf32>
    %t = fx.placeholder "t" : tensor<4x5xf32>
    %l = fx.call_function "aten::kl_div"(%x, %t, 2) {log_target = false} : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<f32>
    fx.output %l : tensor<f32>
  }
}

// -----

// margin_ranking_loss, none: max(-t (x1 - x2) + margin, 0), the three
// operands broadcast, no reduction.

// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    -> tensor<3x6xf32>
// CHECK-DAG:     %[[MARGIN:.*]] = arith.constant 2.000000e-01 : f32
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         linalg.generic {{.*}} ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<3x6xf32>, tensor<1x6xf32>, tensor<3x1xf32>)
// CHECK-NEXT:    ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %[[T:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[NEG:.*]] = arith.negf %[[T]]
// CHECK-NEXT:      %[[D:.*]] = arith.subf %[[A]], %[[B]]
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[NEG]], %[[D]]
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[P]], %[[MARGIN]]
// CHECK-NEXT:      arith.maximumf %[[S]], %[[ZERO]]
// CHECK-NOT:     linalg.generic

fx.graph_module @M {
  fx.graph @forward {
    %a = fx.placeholder "a" : tensor<3x6xf32>
    %b = fx.placeholder "b" : tensor<1x6xf32>
    %t = fx.placeholder "t" : tensor<3x1xf32>
    %l = fx.call_function "aten::margin_ranking_loss"(%a, %b, %t, 0.2, 0) : (tensor<3x6xf32>, tensor<1x6xf32>, tensor<3x1xf32>) -> tensor<3x6xf32>
    fx.output %l : tensor<3x6xf32>
  }
}

// -----

// multi_margin_loss(p=2, margin=0.5, reduction='none'): one generic over
// (row, class) reads the target class's score by index (the target
// checked against the 6 classes), adds (0.5 - x[n, y] + x[n, i])^2 where
// that is positive and i != y, then divides by the class count.

// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    fx.index_bounds = [{hi = 6 : i64, input = 1 : i64, lo = 0 : i64, node = "r"}]
// CHECK:         %[[SUM:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK:           tensor.extract %arg0
// CHECK:           arith.mulf
// CHECK:           arith.cmpf ogt
// CHECK:           arith.cmpi ne
// CHECK:           arith.select
// CHECK:         linalg.generic {{.*}} ins(%[[SUM]] : tensor<4xf32>)
// CHECK:           arith.divf %{{.*}}, %cst
fx.graph_module @MultiMargin {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<4x6xf32>
    %t = fx.placeholder "t" : tensor<4xi64>
    %r = fx.call_function "aten::multi_margin_loss"(%x, %t, 2, 0.5, None, 0) : (tensor<4x6xf32>, tensor<4xi64>) -> tensor<4xf32>
    fx.output %r : tensor<4xf32>
  }
}

// -----

// cross_entropy_loss with probability targets and label smoothing 0.2 over
// 5 classes: t' = 0.8 t + 0.04, -logp t' summed over the classes, then
// over the batch, divided by the 4 elements per class (the mean).
// CHECK-LABEL: func.func @forward(
// CHECK-SAME:      %[[X:.*]]: tensor<4x5xf32>, %[[P:.*]]: tensor<4x5xf32>)
// CHECK-DAG:     %[[FOUR:.*]] = arith.constant 4.000000e+00 : f32
// CHECK-DAG:     %[[KEEP:.*]] = arith.constant 8.000000e-01 : f32
// CHECK-DAG:     %[[SPREAD:.*]] = arith.constant 4.000000e-02 : f32
// CHECK:         linalg.generic {{.*}} ins(%[[P]] : tensor<4x5xf32>)
// CHECK:           %[[SCALED:.*]] = arith.mulf %{{.*}}, %[[KEEP]] : f32
// CHECK:           arith.addf %[[SCALED]], %[[SPREAD]] : f32
// CHECK:         linalg.generic
// CHECK:           arith.mulf
// CHECK:           arith.negf
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK:         linalg.generic {{.*}} iterator_types = ["reduction"]
// CHECK:         linalg.generic
// CHECK:           arith.divf %{{.*}}, %[[FOUR]] : f32
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<4x5xf32>
    %p = fx.placeholder "p" : tensor<4x5xf32>
    %r = fx.call_function "aten::cross_entropy_loss"(%x, %p, None, 1, -100, 0.2) : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<f32>
    fx.output %r : tensor<f32>
  }
}
