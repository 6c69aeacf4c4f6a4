// RUN: fx-opt %s -split-input-file --convert-fx-to-linalg | FileCheck %s

// The backward operators of activations, softmaxes and losses
// (Backward.cpp): ATen's elementwise formula on the incoming gradient and
// the forward's input or result, in one linalg.generic each.

// threshold_backward(grad, x, 0.5): 0 where x <= 0.5, else grad.
// gelu_backward(grad, x): grad (cdf + x pdf), through erf and exp.
// CHECK-LABEL: func.func @forward(
// CHECK-SAME:      %[[G:.*]]: tensor<3x5xf32>, %[[X:.*]]: tensor<3x5xf32>)
// CHECK:         linalg.generic {{.*}} ins(%[[G]], %[[X]] : tensor<3x5xf32>, tensor<3x5xf32>)
// CHECK:           %[[LE:.*]] = arith.cmpf ole, %{{.*}}, %{{.*}} : f32
// CHECK:           arith.select %[[LE]], %{{.*}}, %{{.*}} : f32
// CHECK:         linalg.generic {{.*}} ins(%[[G]], %[[X]] : tensor<3x5xf32>, tensor<3x5xf32>)
// CHECK:           math.erf
// CHECK:           math.exp
fx.graph_module @M {
  fx.graph @forward {
    %g = fx.placeholder "g" : tensor<3x5xf32>
    %x = fx.placeholder "x" : tensor<3x5xf32>
    %t = fx.call_function "aten::threshold_backward"(%g, %x, 0.5) : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
    %e = fx.call_function "aten::gelu_backward"(%g, %x, approximate="none") : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
    fx.output (%t, %e) : tensor<3x5xf32>, tensor<3x5xf32>
  }
}

// -----

// _softmax_backward_data(grad, y, 1): y (grad - sum(grad y, 1)): a product,
// a reduction over dim 1 kept as size 1, and the broadcast difference.
// mse_loss_backward(grad, x, t, mean): 2 / 15 (x - t) grad, the 0-d grad
// broadcast.
// CHECK-LABEL: func.func @forward(
// CHECK:         %[[NORM:.*]] = arith.constant 0.13333{{.*}} : f32
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]
// CHECK:           arith.mulf
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK:           arith.addf
// CHECK:         linalg.generic
// CHECK:           arith.subf
// CHECK:           arith.mulf
// CHECK:         linalg.generic {{.*}} ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<f32>, tensor<3x5xf32>, tensor<3x5xf32>)
// CHECK:           arith.subf
// CHECK:           arith.mulf %{{.*}}, %[[NORM]]
fx.graph_module @M {
  fx.graph @forward {
    %g = fx.placeholder "g" : tensor<3x5xf32>
    %y = fx.placeholder "y" : tensor<3x5xf32>
    %l = fx.placeholder "l" : tensor<f32>
    %s = fx.call_function "aten::_softmax_backward_data"(%g, %y, 1, torch.float32) : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
    %m = fx.call_function "aten::mse_loss_backward"(%l, %g, %y, 1) : (tensor<f32>, tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
    fx.output (%s, %m) : tensor<3x5xf32>, tensor<3x5xf32>
  }
}

// -----

// avg_pool2d_backward (kernel 2, stride 2): the gradient divided by the
// window sizes (a constant table), then gathered: input row h takes output
// row (h - k) / 2 for the kernel offset k when that divides evenly and is
// in range, summed over the offsets (reduction loops 4 and 5).
// _reshape_alias is the reshape.
// CHECK-LABEL: func.func @forward(
// CHECK-SAME:      %[[G:.*]]: tensor<1x1x2x2xf32>
// CHECK:         %[[TABLE:.*]] = arith.constant dense<4.000000e+00> : tensor<2x2xf32>
// CHECK:         %[[DIV:.*]] = linalg.generic {{.*}} ins(%[[G]], %[[TABLE]] : tensor<1x1x2x2xf32>, tensor<2x2xf32>)
// CHECK:           arith.divf
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK:           %[[H:.*]] = linalg.index 2 : index
// CHECK:           %[[K:.*]] = linalg.index 4 : index
// CHECK:           %[[T:.*]] = arith.subi %[[H]], %[[K]] : index
// CHECK:           arith.divsi %[[T]]
// CHECK:           arith.remsi %[[T]]
// CHECK:           %[[READ:.*]] = tensor.extract %[[DIV]]
// CHECK:           %[[TERM:.*]] = arith.select %{{.*}}, %[[READ]], %{{.*}} : f32
// CHECK:           arith.addf %{{.*}}, %[[TERM]] : f32
// CHECK:         tensor.collapse_shape
// CHECK:         tensor.expand_shape {{.*}} output_shape [4, 4]
fx.graph_module @M {
  fx.graph @forward {
    %g = fx.placeholder "g" : tensor<1x1x2x2xf32>
    %x = fx.placeholder "x" : tensor<1x1x4x4xf32>
    %p = fx.call_function "aten::avg_pool2d_backward"(%g, %x, [2, 2], [2, 2], [0, 0], False, True, None) : (tensor<1x1x2x2xf32>, tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
    %a = fx.call_function "aten::_reshape_alias"(%p, [4, 4], [4, 1]) : (tensor<1x1x4x4xf32>) -> tensor<4x4xf32>
    fx.output %a : tensor<4x4xf32>
  }
}

// -----

// native_batch_norm_backward in training: per-channel sums of the gradient
// and of gradient * (x - mean) over dims 0, 2, 3 (reductions to 3
// elements), then one elementwise formula over the input.
// CHECK-LABEL: func.func @forward(
// CHECK-COUNT-2: linalg.generic {{.*}} iterator_types = ["reduction", "parallel", "reduction", "reduction"]
// CHECK:         linalg.generic {{.*}} outs(%{{.*}} : tensor<2x3x4x4xf32>)
// CHECK:           arith.divf
// CHECK:           arith.subf
// CHECK:           arith.mulf
// CHECK:         linalg.generic {{.*}} outs(%{{.*}} : tensor<3xf32>)
// CHECK:           arith.mulf
fx.graph_module @M {
  fx.graph @forward {
    %g = fx.placeholder "g" : tensor<2x3x4x4xf32>
    %x = fx.placeholder "x" : tensor<2x3x4x4xf32>
    %w = fx.placeholder "w" : tensor<3xf32>
    %m = fx.placeholder "m" : tensor<3xf32>
    %s = fx.placeholder "s" : tensor<3xf32>
    %r = fx.call_function "aten::native_batch_norm_backward"(%g, %x, %w, None, None, %m, %s, True, 1.0e-05, [True, True, True]) : (tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tuple<tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>>
    %gi = fx.call_function "operator.getitem"(%r, 0) : (tuple<tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>>) -> tensor<2x3x4x4xf32>
    %gw = fx.call_function "operator.getitem"(%r, 1) : (tuple<tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>>) -> tensor<3xf32>
    fx.output (%gi, %gw) : tensor<2x3x4x4xf32>, tensor<3xf32>
  }
}

// -----

// _adaptive_avg_pool2d_backward from 3x5 to 2x2: the gradient contracted
// with one averaging matrix per spatial dim (rows 0..1 of 3 and the
// overlapping windows 0..2, 2..4 of 5), reducing over the output
// positions (loops 4 and 5).
// CHECK-DAG:   #[[A:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d2)>
// CHECK-DAG:   #[[B:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d5, d3)>
// CHECK-LABEL: func.func @forward(
// CHECK-DAG:     arith.constant dense<{{\[\[}}5.000000e-01, 5.000000e-01, 0.000000e+00], [0.000000e+00, 5.000000e-01, 5.000000e-01]]> : tensor<2x3xf32>
// CHECK-DAG:     arith.constant dense<{{\[\[}}0.333333343, 0.333333343, 0.333333343, 0.000000e+00, 0.000000e+00], [0.000000e+00, 0.000000e+00, 0.333333343, 0.333333343, 0.333333343]]> : tensor<2x5xf32>
// CHECK:         linalg.generic {indexing_maps = [#{{.*}}, #[[A]], #[[B]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
// CHECK:           arith.mulf
// CHECK:           arith.mulf
// CHECK:           arith.addf
fx.graph_module @M {
  fx.graph @forward {
    %g = fx.placeholder "g" : tensor<1x2x2x2xf32>
    %x = fx.placeholder "x" : tensor<1x2x3x5xf32>
    %r = fx.call_function "aten::_adaptive_avg_pool2d_backward"(%g, %x) : (tensor<1x2x2x2xf32>, tensor<1x2x3x5xf32>) -> tensor<1x2x3x5xf32>
    fx.output %r : tensor<1x2x3x5xf32>
  }
}
