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
