// RUN: fx-opt %s -split-input-file --convert-fx-to-linalg | FileCheck %s

// Operators computed as other operators are (Composite.cpp and the addmm
// family in LinearAlgebra.cpp): each lowers through the other operator's
// own lowering, run on a temporary node.

// addmv(input, mat, vec, beta=0, alpha=2): mat @ vec as a matmul with the
// vector as a column; a beta of 0 leaves input out (a NaN in it too), the
// product scaled by alpha.

// CHECK-LABEL: func.func @forward(
// CHECK-SAME:      %[[MAT:.*]]: tensor<3x4xf32>, %[[VEC:.*]]: tensor<4xf32>, %[[IN:.*]]: tensor<3xf32>)
// CHECK-DAG:     %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[COLUMN:.*]] = tensor.expand_shape %[[VEC]] {{\[}}[0, 1]] output_shape [4, 1]
// CHECK:         %[[MV:.*]] = linalg.matmul ins(%[[MAT]], %[[COLUMN]] : tensor<3x4xf32>, tensor<4x1xf32>)
// CHECK:         %[[FLAT:.*]] = tensor.collapse_shape %[[MV]] {{\[}}[0, 1]] : tensor<3x1xf32> into tensor<3xf32>
// CHECK:         %[[ZEROS:.*]] = linalg.generic {{.*}} ins(%[[IN]] : tensor<3xf32>)
// CHECK:           linalg.yield %[[ZERO]] : f32
// CHECK:         linalg.generic {{.*}} ins(%[[ZEROS]], %[[FLAT]] : tensor<3xf32>, tensor<3xf32>)
// CHECK:           %[[SCALED:.*]] = arith.mulf %{{.*}}, %[[TWO]] : f32
// CHECK:           arith.addf %{{.*}}, %[[SCALED]] : f32

fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<3x4xf32>
    %v = fx.placeholder "v" : tensor<4xf32>
    %i = fx.placeholder "i" : tensor<3xf32>
    %r = fx.call_function "aten::addmv"(%i, %x, %v, beta=0, alpha=2.0) : (tensor<3xf32>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<3xf32>
    fx.output %r : tensor<3xf32>
  }
}

// -----

// tensor_split into 3 sections of a dim of 7: 3, 2 and 2 columns, as
// slices, the tuple's parts.

// CHECK-LABEL: func.func @forward(
// CHECK-SAME:      %[[X:.*]]: tensor<3x7xf32>)
// CHECK:         %[[A:.*]] = tensor.extract_slice %[[X]][0, 0] [3, 3] [1, 1]
// CHECK:         %[[B:.*]] = tensor.extract_slice %[[X]][0, 3] [3, 2] [1, 1]
// CHECK:         %[[C:.*]] = tensor.extract_slice %[[X]][0, 5] [3, 2] [1, 1]
// CHECK:         return %[[A]], %[[B]], %[[C]]

fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<3x7xf32>
    %r = fx.call_function "aten::tensor_split.sections"(%x, 3, 1) : (tensor<3x7xf32>) -> tuple<tensor<3x3xf32>, tensor<3x2xf32>, tensor<3x2xf32>>
    fx.output %r : tuple<tensor<3x3xf32>, tensor<3x2xf32>, tensor<3x2xf32>>
  }
}

// -----

// sgn of a float is sign: 1 above 0, -1 below, 0 otherwise (-0 and NaN
// too, as ATen's `(0 < x) - (x < 0)`).

// CHECK-LABEL: func.func @forward(
// CHECK-DAG:     %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG:     %[[MINUS:.*]] = arith.constant -1.000000e+00 : f32
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         linalg.generic
// CHECK-DAG:       %[[GT:.*]] = arith.cmpf ogt, %{{.*}}, %[[ZERO]] : f32
// CHECK-DAG:       %[[LT:.*]] = arith.cmpf olt, %{{.*}}, %[[ZERO]] : f32
// CHECK:           %[[NEG:.*]] = arith.select %[[LT]], %[[MINUS]], %[[ZERO]] : f32
// CHECK:           arith.select %[[GT]], %[[ONE]], %[[NEG]] : f32

fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<3x4xf32>
    %r = fx.call_function "aten::sgn"(%x) : (tensor<3x4xf32>) -> tensor<3x4xf32>
    fx.output %r : tensor<3x4xf32>
  }
}

// -----

// vdot of real vectors is dot's lowering: a 1x4 by 4x1 matmul.

// CHECK-LABEL: func.func @forward(
// CHECK:         %[[ROW:.*]] = tensor.expand_shape %arg0 {{\[}}[0, 1]] output_shape [1, 4]
// CHECK:         %[[COLUMN:.*]] = tensor.expand_shape %arg1 {{\[}}[0, 1]] output_shape [4, 1]
// CHECK:         linalg.matmul ins(%[[ROW]], %[[COLUMN]] : tensor<1x4xf32>, tensor<4x1xf32>)
// CHECK:         tensor.collapse_shape {{.*}} : tensor<1xf32> into tensor<f32>

fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<4xf32>
    %y = fx.placeholder "y" : tensor<4xf32>
    %r = fx.call_function "aten::vdot"(%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
    fx.output %r : tensor<f32>
  }
}

// -----

// hstack of matrices: cat along dim 1.

// CHECK-LABEL: func.func @forward(
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<2x5xf32>
// CHECK:         %[[L:.*]] = tensor.insert_slice %arg0 into %[[E]][0, 0] [2, 3] [1, 1]
// CHECK:         tensor.insert_slice %arg1 into %[[L]][0, %c3] [2, 2] [1, 1]

fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x3xf32>
    %y = fx.placeholder "y" : tensor<2x2xf32>
    %r = fx.call_function "aten::hstack"([%x, %y]) : (tensor<2x3xf32>, tensor<2x2xf32>) -> tensor<2x5xf32>
    fx.output %r : tensor<2x5xf32>
  }
}

// -----

// nanquantile along dim 1 with a 1-D q: the values sorted along the dim,
// the NaNs of each row counted; one generic over (q, row, 1) ranks q among
// the row's non-NaN values, reads the values below and above that rank
// from the sorted rows and lerps them ('midpoint': weight 0.5, which
// folds ATen's lerp to above - (above - below) * 0.5).

// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[X:.*]]: tensor<4x7xf32>, %[[Q:.*]]: tensor<3xf32>)
// CHECK:         %[[SORTED:.*]]:2 = linalg.generic
// CHECK:         %[[NANS:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [4, 1] : tensor<4xi64> into tensor<4x1xi64>
// CHECK:         %[[R:.*]] = linalg.generic
// CHECK-SAME:      ins(%[[NANS]], %[[Q]] : tensor<4x1xi64>, tensor<3xf32>) outs(%{{.*}} : tensor<3x4x1xf32>)
// CHECK:           arith.sitofp
// CHECK:           arith.mulf
// CHECK:           tensor.extract %[[SORTED]]#0
// CHECK:           math.ceil
// CHECK:           %[[ABOVE:.*]] = tensor.extract %[[SORTED]]#0
// CHECK:           %[[DIFF:.*]] = arith.subf %[[ABOVE]], %{{.*}} : f32
// CHECK:           %[[HALF:.*]] = arith.mulf %[[DIFF]], %{{.*}} : f32
// CHECK:           arith.subf %[[ABOVE]], %[[HALF]] : f32
// CHECK:         tensor.collapse_shape %[[R]] {{\[\[}}0], [1, 2]] : tensor<3x4x1xf32> into tensor<3x4xf32>
fx.graph_module @Quantile {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<4x7xf32>
    %q = fx.placeholder "q" : tensor<3xf32>
    %r = fx.call_function "aten::nanquantile"(%x, %q, 1, False, interpolation="midpoint") : (tensor<4x7xf32>, tensor<3xf32>) -> tensor<3x4xf32>
    fx.output %r : tensor<3x4xf32>
  }
}

// -----

// combinations(x, 2): the index pairs of itertools.combinations, computed
// when compiling, gather the items (index_select), reshaped to rows.

// CHECK-LABEL: func.func @forward(
// CHECK:         %[[IDX:.*]] = arith.constant dense<[0, 1, 0, 2, 0, 3, 1, 2, 1, 3, 2, 3]> : tensor<12xi64>
// CHECK:         tensor.extract %arg0
// CHECK:         tensor.expand_shape {{.*}} output_shape [6, 2]
fx.graph_module @Combinations {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<4xf32>
    %r = fx.call_function "aten::combinations"(%x, 2, False) : (tensor<4xf32>) -> tensor<6x2xf32>
    fx.output %r : tensor<6x2xf32>
  }
}

// -----

// tensordot(a, b, [0], [1]) as TorchScript records it: a's free dim first
// and its contracted one last, b's contracted dim first, one matrix
// product of (3 x 2) by (2 x 5), then the free dims' shape.

// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<5x2xf32>)
// CHECK:         linalg.transpose ins(%[[A]] : tensor<2x3xf32>) {{.*}} permutation = [1, 0]
// CHECK:         linalg.transpose ins(%[[B]] : tensor<5x2xf32>) {{.*}} permutation = [1, 0]
// CHECK:         linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<3x2xf32>, tensor<2x5xf32>)
// CHECK:         return %{{.*}} : tensor<3x5xf32>
fx.graph_module @M {
  fx.graph @forward {
    %a = fx.placeholder "a" : tensor<2x3xf32>
    %b = fx.placeholder "b" : tensor<5x2xf32>
    %t = fx.call_function "aten::tensordot"(%a, %b, [0], [1]) : (tensor<2x3xf32>, tensor<5x2xf32>) -> tensor<3x5xf32>
    fx.output %t : tensor<3x5xf32>
  }
}
