// RUN: fx-opt %s -split-input-file --convert-fx-to-linalg | FileCheck %s

// ATen's general forms (GeneralForms.cpp) lower through the specific
// operators: aten::convolution of a 4-d input that is not transposed is
// conv2d (a linalg convolution), transposed it is conv_transpose2d.

// CHECK-LABEL: func.func @forward(
// CHECK:         linalg.conv_2d_nchw_fchw {{.*}}strides = dense<[2, 1]> : vector<2xi64>
// CHECK-NOT:     fx.call_function
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x2x7x7xf32>
    %w = fx.placeholder "w" : tensor<3x2x3x3xf32>
    %c = fx.call_function "aten::convolution"(%x, %w, None, [2, 1], [1, 0], [1, 1], False, [0, 0], 1) : (tensor<1x2x7x7xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x4x5xf32>
    fx.output %c : tensor<1x3x4x5xf32>
  }
}

// -----

// nll_loss_forward: the loss and the total weight of the counted targets
// (the summed loss of an input of -1s): two reductions over the batch.
// CHECK-LABEL: func.func @forward(
// CHECK:         iterator_types = ["reduction"]
// CHECK-NOT:     fx.call_function
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<4x5xf32>
    %t = fx.placeholder "t" : tensor<4xi64>
    %n = fx.call_function "aten::nll_loss_forward"(%x, %t, None, 1, -100) : (tensor<4x5xf32>, tensor<4xi64>) -> tuple<tensor<f32>, tensor<f32>>
    %l = fx.call_function "operator.getitem"(%n, 0) : (tuple<tensor<f32>, tensor<f32>>) -> tensor<f32>
    %w = fx.call_function "operator.getitem"(%n, 1) : (tuple<tensor<f32>, tensor<f32>>) -> tensor<f32>
    fx.output (%l, %w) : tensor<f32>, tensor<f32>
  }
}

// -----

// max_pool2d_with_indices_backward: each gradient added where its window's
// maximum was, a scatter_add over the flattened planes.
// CHECK-LABEL: func.func @forward(
// CHECK:         tensor.collapse_shape
// CHECK:         scf.for
// CHECK-NOT:     fx.call_function
fx.graph_module @M {
  fx.graph @forward {
    %g = fx.placeholder "g" : tensor<1x2x2x2xf32>
    %x = fx.placeholder "x" : tensor<1x2x4x4xf32>
    %i = fx.placeholder "i" : tensor<1x2x2x2xi64>
    %b = fx.call_function "aten::max_pool2d_with_indices_backward"(%g, %x, [2, 2], [2, 2], [0, 0], [1, 1], False, %i) : (tensor<1x2x2x2xf32>, tensor<1x2x4x4xf32>, tensor<1x2x2x2xi64>) -> tensor<1x2x4x4xf32>
    fx.output %b : tensor<1x2x4x4xf32>
  }
}

// -----

// index_put with a bool mask over the leading dims and one value is
// masked_fill: one select per element, no scatter.
// CHECK-LABEL: func.func @forward(
// CHECK:         linalg.generic
// CHECK:           arith.select
// CHECK-NOT:     scf.for
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<3x5xf32>
    %m = fx.placeholder "m" : tensor<3xi1>
    %v = fx.placeholder "v" : tensor<f32>
    %p = fx.call_function "aten::index_put"(%x, [%m], %v, False) : (tensor<3x5xf32>, tensor<3xi1>, tensor<f32>) -> tensor<3x5xf32>
    fx.output %p : tensor<3x5xf32>
  }
}

// -----

// index_put with two index vectors (x[i, j] = v): each is wrapped when
// negative and bounded by its own dim (the inputs' bounds the runtime
// checks: [-3, 3) and [-4, 4)), the position is i * 4 + j, and the
// one-index form runs on the tensor collapsed to 12 elements.
// CHECK-LABEL: func.func @forward(
// CHECK-SAME:      fx.index_bounds = [{hi = 3 : i64, input = 1 : i64, lo = -3 : i64, node = "r"}, {hi = 4 : i64, input = 2 : i64, lo = -4 : i64, node = "r"}]
// CHECK:         linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<2xi64>, tensor<2xi64>)
// CHECK:           %[[I:.*]] = arith.select
// CHECK:           %[[ROW:.*]] = arith.muli %[[I]], %{{.*}} : i64
// CHECK:           %[[J:.*]] = arith.select
// CHECK:           arith.addi %[[ROW]], %[[J]] : i64
// CHECK:         tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<3x4xf32> into tensor<12xf32>
// CHECK:         tensor.expand_shape %{{.*}} output_shape [3, 4] : tensor<12xf32> into tensor<3x4xf32>
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<3x4xf32>
    %i = fx.placeholder "i" : tensor<2xi64>
    %j = fx.placeholder "j" : tensor<2xi64>
    %v = fx.placeholder "v" : tensor<2xf32>
    %r = fx.call_function "aten::index_put"(%x, [%i, %j], %v, False) : (tensor<3x4xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xf32>) -> tensor<3x4xf32>
    fx.output %r : tensor<3x4xf32>
  }
}

// -----

// masked_scatter: the mask flattened, its running count (cumsum) checked
// against the source's 12 elements (a run-time check), and element i
// taking source element count[i] - 1 where the mask is set.
// CHECK-LABEL: func.func @forward(
// CHECK-SAME:      fx.checks = [{{.*}}{message = "masked_scatter: the mask selects more elements than the source has", node = "'r'"}
// CHECK:         arith.cmpi sgt, %{{.*}}, %{{.*}} : i64
// CHECK:         linalg.generic
// CHECK:         ^bb0(%[[X:.*]]: f32, %[[ON:.*]]: i1, %[[COUNT:.*]]: i64, %{{.*}}: f32):
// CHECK:           %[[K:.*]] = arith.subi %[[COUNT]], %{{.*}} : i64
// CHECK:           %[[TAKEN:.*]] = tensor.extract
// CHECK:           arith.select %[[ON]], %[[TAKEN]], %[[X]] : f32
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<3x4xf32>
    %m = fx.placeholder "m" : tensor<3x4xi1>
    %s = fx.placeholder "s" : tensor<12xf32>
    %r = fx.call_function "aten::masked_scatter"(%x, %m, %s) : (tensor<3x4xf32>, tensor<3x4xi1>, tensor<12xf32>) -> tensor<3x4xf32>
    fx.output %r : tensor<3x4xf32>
  }
}

// -----

// The weight's gradient of a grouped convolution (groups 2): each group's
// input channel and gradient channels apart (extract_slice), one conv per
// group with the batch as the channels, the two groups' gradients
// inserted at rows 0 and 2 of the 4x1x3x3 result.
// CHECK-LABEL: func.func @forward(
// CHECK-SAME:      %[[G:.*]]: tensor<1x4x3x3xf32>, %[[X:.*]]: tensor<1x2x5x5xf32>
// CHECK:         tensor.extract_slice %[[X]][0, 0, 0, 0] [1, 1, 5, 5]
// CHECK:         tensor.extract_slice %[[G]][0, 0, 0, 0] [1, 2, 3, 3]
// CHECK:         linalg.conv_2d_nchw_fchw
// CHECK:         tensor.extract_slice %[[X]][0, 1, 0, 0] [1, 1, 5, 5]
// CHECK:         tensor.extract_slice %[[G]][0, 2, 0, 0] [1, 2, 3, 3]
// CHECK:         linalg.conv_2d_nchw_fchw
// CHECK:         %[[FIRST:.*]] = tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 0, 0] [2, 1, 3, 3]
// CHECK:         tensor.insert_slice %{{.*}} into %[[FIRST]][%{{.*}}, 0, 0, 0] [2, 1, 3, 3]
fx.graph_module @M {
  fx.graph @forward {
    %g = fx.placeholder "g" : tensor<1x4x3x3xf32>
    %x = fx.placeholder "x" : tensor<1x2x5x5xf32>
    %w = fx.placeholder "w" : tensor<4x1x3x3xf32>
    %r = fx.call_function "aten::convolution_backward"(%g, %x, %w, [4], [1, 1], [0, 0], [1, 1], False, [0, 0], 2, [True, True, True]) : (tensor<1x4x3x3xf32>, tensor<1x2x5x5xf32>, tensor<4x1x3x3xf32>) -> tuple<tensor<1x2x5x5xf32>, tensor<4x1x3x3xf32>, tensor<4xf32>>
    %gw = fx.call_function "operator.getitem"(%r, 1) : (tuple<tensor<1x2x5x5xf32>, tensor<4x1x3x3xf32>, tensor<4xf32>>) -> tensor<4x1x3x3xf32>
    fx.output %gw : tensor<4x1x3x3xf32>
  }
}

// -----

// nll_loss2d_backward: the class ids as (3, 1, 1) and the target with a
// unit class dim (2, 1, 4, 5) broadcast to the one-hot mask of the input's
// shape, ignored targets (-100) left out.
// CHECK-LABEL: func.func @forward(
// CHECK-SAME:      %[[T:[^:]*]]: tensor<2x4x5xi64>
// CHECK:         %[[IDS:.*]] = tensor.expand_shape %{{.*}} output_shape [3, 1, 1] : tensor<3xi64> into tensor<3x1x1xi64>
// CHECK:         %[[COLUMN:.*]] = tensor.expand_shape %[[T]] {{.*}} output_shape [2, 1, 4, 5]
// CHECK:         linalg.generic {{.*}} ins(%[[COLUMN]], %[[IDS]] : tensor<2x1x4x5xi64>, tensor<3x1x1xi64>) outs(%{{.*}} : tensor<2x3x4x5xi1>)
// CHECK:           arith.cmpi eq
// CHECK:           arith.cmpi ne, %{{.*}}, %{{.*}} : i64
fx.graph_module @M {
  fx.graph @forward {
    %g = fx.placeholder "g" : tensor<f32>
    %x = fx.placeholder "x" : tensor<2x3x4x5xf32>
    %t = fx.placeholder "t" : tensor<2x4x5xi64>
    %w = fx.placeholder "w" : tensor<f32>
    %r = fx.call_function "aten::nll_loss2d_backward"(%g, %x, %t, None, 1, -100, %w) : (tensor<f32>, tensor<2x3x4x5xf32>, tensor<2x4x5xi64>, tensor<f32>) -> tensor<2x3x4x5xf32>
    fx.output %r : tensor<2x3x4x5xf32>
  }
}
