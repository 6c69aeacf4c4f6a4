// RUN: fx-opt %s -split-input-file --convert-fx-to-linalg | FileCheck %s

// mm is linalg.matmul on a zero-filled init; linear is one contraction
// generic whose init is the bias broadcast to the result (the weight is
// read transposed by the map, never materialized); matmul of other ranks
// reshapes to or broadcasts over batch dims.

// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3xf32>, %[[Y:.*]]: tensor<3x4xf32>)
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[FILL:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<2x4xf32>)
// CHECK:         %[[MM:.*]] = linalg.matmul ins(%[[X]], %[[Y]] : tensor<2x3xf32>, tensor<3x4xf32>) outs(%[[FILL]] : tensor<2x4xf32>)
// CHECK:         return %[[MM]]
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x3xf32>
    %y = fx.placeholder "y" : tensor<3x4xf32>
    %mm = fx.call_function "aten::mm"(%x, %y) : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
    fx.output %mm : tensor<2x4xf32>
  }
}

// -----

// CHECK-DAG: #[[$BIAS:map[0-9]*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[$OUT2:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$LHS:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[$W:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[$OUT:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3xf32>, %[[W:.*]]: tensor<4x3xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK:         %[[INIT:.*]] = linalg.generic {indexing_maps = [#[[$BIAS]], #[[$OUT2]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME:      ins(%[[B]] : tensor<4xf32>) outs(%{{.*}} : tensor<2x4xf32>)
// CHECK:         %[[FC:.*]] = linalg.generic {indexing_maps = [#[[$LHS]], #[[$W]], #[[$OUT]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME:      ins(%[[X]], %[[W]] : tensor<2x3xf32>, tensor<4x3xf32>) outs(%[[INIT]] : tensor<2x4xf32>)
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK:         return %[[FC]]
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x3xf32>
    %w = fx.placeholder "w" : tensor<4x3xf32>
    %b = fx.placeholder "b" : tensor<4xf32>
    %fc = fx.call_function "aten::linear"(%x, %w, %b) : (tensor<2x3xf32>, tensor<4x3xf32>, tensor<4xf32>) -> tensor<2x4xf32>
    fx.output %fc : tensor<2x4xf32>
  }
}

// -----

// linear of a 3-d input without bias: leading dims collapse into rows,
// the init is zero-filled, the result expands back.

// CHECK-LABEL: func.func @forward(
// CHECK:         %[[ROWS:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : tensor<2x5x3xf32> into tensor<10x3xf32>
// CHECK:         %[[FILL:.*]] = linalg.fill
// CHECK:         %[[FC:.*]] = linalg.generic
// CHECK-SAME:      ins(%[[ROWS]], %{{.*}} : tensor<10x3xf32>, tensor<4x3xf32>) outs(%[[FILL]] : tensor<10x4xf32>)
// CHECK:         tensor.expand_shape %[[FC]] {{\[\[}}0, 1], [2]] output_shape [2, 5, 4] : tensor<10x4xf32> into tensor<2x5x4xf32>
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x5x3xf32>
    %w = fx.placeholder "w" : tensor<4x3xf32>
    %fc = fx.call_function "aten::linear"(%x, %w, None) : (tensor<2x5x3xf32>, tensor<4x3xf32>) -> tensor<2x5x4xf32>
    fx.output %fc : tensor<2x5x4xf32>
  }
}

// -----

// matmul broadcasts batch dims: (2, 1, 5, 3) @ (4, 3, 6) -> (2, 4, 5, 6).

// CHECK-DAG: #[[$LHS:map[0-9]*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, 0, d2, d4)>
// CHECK-DAG: #[[$RHS:map[0-9]*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d4, d3)>
// CHECK-DAG: #[[$OUT:map[0-9]*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @forward(
// CHECK:         linalg.generic {indexing_maps = [#[[$LHS]], #[[$RHS]], #[[$OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME:      outs(%{{.*}} : tensor<2x4x5x6xf32>)
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x1x5x3xf32>
    %y = fx.placeholder "y" : tensor<4x3x6xf32>
    %matmul = fx.call_function "aten::matmul"(%x, %y) : (tensor<2x1x5x3xf32>, tensor<4x3x6xf32>) -> tensor<2x4x5x6xf32>
    fx.output %matmul : tensor<2x4x5x6xf32>
  }
}

// -----

// A vector on either side gets a unit dim, removed from the result.

// CHECK-LABEL: func.func @forward(
// CHECK:         tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [1, 3] : tensor<3xf32> into tensor<1x3xf32>
// CHECK:         tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [3, 1] : tensor<3xf32> into tensor<3x1xf32>
// CHECK:         linalg.matmul
// CHECK:         tensor.collapse_shape %{{.*}} [] : tensor<1xf32> into tensor<f32>
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<3xf32>
    %y = fx.placeholder "y" : tensor<3xf32>
    %dot = fx.call_function "aten::matmul"(%x, %y) : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
    fx.output %dot : tensor<f32>
  }
}

// -----

// addmm: beta * self + alpha * (mat1 @ mat2).

// CHECK-LABEL: func.func @forward(
// CHECK-DAG:     %[[ALPHA:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-DAG:     %[[BETA:.*]] = arith.constant 2.000000e+00 : f32
// CHECK:         %[[MM:.*]] = linalg.matmul
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%{{.*}}, %[[MM]] : tensor<4xf32>, tensor<2x4xf32>)
// CHECK-NEXT:    ^bb0(%[[SELF:.*]]: f32, %[[PROD:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[A:.*]] = arith.mulf %[[PROD]], %[[ALPHA]] : f32
// CHECK-NEXT:      %[[B:.*]] = arith.mulf %[[SELF]], %[[BETA]] : f32
// CHECK-NEXT:      arith.addf %[[B]], %[[A]] : f32
fx.graph_module @M {
  fx.graph @forward {
    %b = fx.placeholder "b" : tensor<4xf32>
    %x = fx.placeholder "x" : tensor<2x3xf32>
    %y = fx.placeholder "y" : tensor<3x4xf32>
    %addmm = fx.call_function "aten::addmm"(%b, %x, %y, beta=2, alpha=0.5) : (tensor<4xf32>, tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
    fx.output %addmm : tensor<2x4xf32>
  }
}

// -----

// CHECK-LABEL: func.func @forward(
// CHECK:         linalg.transpose ins(%{{.*}} : tensor<3x4xf32>) outs(%{{.*}} : tensor<4x3xf32>) permutation = [1, 0]
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<3x4xf32>
    %t = fx.call_function "aten::t"(%x) : (tensor<3x4xf32>) -> tensor<4x3xf32>
    fx.output %t : tensor<4x3xf32>
  }
}

// -----

// einsum is one linalg.generic: a loop per letter (the output's first, then
// the reduced ones), each operand read through its subscripts, the
// product accumulated into zeros. `...` is a broadcast dim: here the size
// 1 of the first operand reads index 0.

// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2, d3) -> (0, d1, d3)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
// CHECK-DAG: #[[O:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @forward(
// CHECK:         %[[ZERO:.*]] = linalg.fill
// CHECK:         linalg.generic {indexing_maps = [#[[A]], #[[B]], #[[O]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME:      ins(%arg0, %arg1 : tensor<1x3x4xf32>, tensor<5x4x6xf32>) outs(%[[ZERO]] : tensor<5x3x6xf32>)
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x3x4xf32>
    %y = fx.placeholder "y" : tensor<5x4x6xf32>
    %e = fx.call_function "aten::einsum"("...ij,...jk->...ik", [%x, %y]) : (tensor<1x3x4xf32>, tensor<5x4x6xf32>) -> tensor<5x3x6xf32>
    fx.output %e : tensor<5x3x6xf32>
  }
}

// -----

// A letter repeated in one operand reads its diagonal; without `->` the
// output is the letters used once, in alphabetical order (here none: the
// trace).

// CHECK-DAG: #[[DIAG:.*]] = affine_map<(d0) -> (d0, d0)>
// CHECK-DAG: #[[SCALAR:.*]] = affine_map<(d0) -> ()>
// CHECK-LABEL: func.func @forward(
// CHECK:         linalg.generic {indexing_maps = [#[[DIAG]], #[[SCALAR]]], iterator_types = ["reduction"]}
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<4x4xf32>
    %e = fx.call_function "aten::einsum"("ii", [%x]) : (tensor<4x4xf32>) -> tensor<f32>
    fx.output %e : tensor<f32>
  }
}

// -----

// baddbmm is addmm with batches: the batched product, then beta * self +
// alpha * product in one elementwise op.

// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[X:.*]]: tensor<2x5x7xf32>, %[[A:.*]]: tensor<2x5x3xf32>, %[[B:.*]]: tensor<2x3x7xf32>)
// CHECK-DAG:     %[[ALPHA:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-DAG:     %[[BETA:.*]] = arith.constant 5.000000e-01 : f32
// CHECK:         %[[P:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[A]], %[[B]] :
// CHECK:         linalg.generic {{.*}} ins(%[[X]], %[[P]] :
// CHECK:           arith.mulf %{{.*}}, %[[ALPHA]] : f32
// CHECK:           arith.mulf %{{.*}}, %[[BETA]] : f32
// CHECK:           arith.addf
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x5x7xf32>
    %a = fx.placeholder "a" : tensor<2x5x3xf32>
    %b = fx.placeholder "b" : tensor<2x3x7xf32>
    %r = fx.call_function "aten::baddbmm"(%x, %a, %b, beta = 5.000000e-01, alpha = 2.000000e+00) : (tensor<2x5x7xf32>, tensor<2x5x3xf32>, tensor<2x3x7xf32>) -> tensor<2x5x7xf32>
    fx.output %r : tensor<2x5x7xf32>
  }
}
