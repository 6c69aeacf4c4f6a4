// RUN: fx-opt %s -split-input-file --convert-fx-to-linalg | FileCheck %s

// Elementwise aten ops become one linalg.generic each: operands broadcast
// as PyTorch does (a size-1 dim reads index 0, a missing leading dim is
// dropped from the map), scalars and alpha fold into constants, mixed
// element types are converted to the result's type inside the body.

// Broadcasting: tensor<4x1xf32> + tensor<3xf32> -> tensor<4x3xf32>.

// CHECK-DAG: #[[$COL:map[0-9]*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[$ROW:map[0-9]*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[$ID:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[X:.*]]: tensor<4x1xf32>, %[[Y:.*]]: tensor<3xf32>) -> tensor<4x3xf32>
// CHECK:         %[[INIT:.*]] = tensor.empty() : tensor<4x3xf32>
// CHECK:         %[[ADD:.*]] = linalg.generic {indexing_maps = [#[[$COL]], #[[$ROW]], #[[$ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME:      ins(%[[X]], %[[Y]] : tensor<4x1xf32>, tensor<3xf32>) outs(%[[INIT]] : tensor<4x3xf32>)
// CHECK:           arith.addf
// CHECK:         return %[[ADD]]
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<4x1xf32>
    %y = fx.placeholder "y" : tensor<3xf32>
    %add = fx.call_function "aten::add.Tensor"(%x, %y, alpha=1) : (tensor<4x1xf32>, tensor<3xf32>) -> tensor<4x3xf32>
    fx.output %add : tensor<4x3xf32>
  }
}

// -----

// CHECK-LABEL: func.func @forward(
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[MAX:.*]] = arith.maximumf %[[IN]], %[[ZERO]] : f32
// CHECK-NEXT:      linalg.yield %[[MAX]] : f32
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x4xf32>
    %relu = fx.call_function "aten::relu"(%x) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    fx.output %relu : tensor<2x4xf32>
  }
}

// -----

// alpha scales the second operand: add.Scalar(x, 2, 3) adds 6;
// sub.Tensor(x, y, alpha=2) is x - 2 * y.

// CHECK-LABEL: func.func @forward(
// CHECK-DAG:     %[[SIX:.*]] = arith.constant 6.000000e+00 : f32
// CHECK-DAG:     %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
// CHECK:         linalg.generic
// CHECK:           arith.addf %{{.*}}, %[[SIX]] : f32
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[SCALED:.*]] = arith.mulf %[[B]], %[[TWO]] : f32
// CHECK-NEXT:      arith.subf %[[A]], %[[SCALED]] : f32
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x4xf32>
    %add = fx.call_function "aten::add.Scalar"(%x, 2, 3) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %sub = fx.call_function "aten::sub.Tensor"(%x, %add, alpha=2) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    fx.output %sub : tensor<2x4xf32>
  }
}

// -----

// Type promotion: int64 * float32 computes in f32, the declared result
// type; a comparison yields i1.

// CHECK-LABEL: func.func @forward(
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%{{.*}}, %{{.*}} : tensor<2x4xi64>, tensor<2x4xf32>) outs(%{{.*}} : tensor<2x4xf32>)
// CHECK-NEXT:    ^bb0(%[[I:.*]]: i64, %[[F:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[CONV:.*]] = arith.sitofp %[[I]] : i64 to f32
// CHECK-NEXT:      arith.mulf %[[CONV]], %[[F]] : f32
// CHECK:         linalg.generic
// CHECK-SAME:      outs(%{{.*}} : tensor<2x4xi1>)
// CHECK:           arith.cmpf ogt, %{{.*}}, %{{.*}} : f32
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x4xi64>
    %y = fx.placeholder "y" : tensor<2x4xf32>
    %mul = fx.call_function "aten::mul.Tensor"(%x, %y) : (tensor<2x4xi64>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %gt = fx.call_function "aten::gt.Scalar"(%mul, 0.5) : (tensor<2x4xf32>) -> tensor<2x4xi1>
    fx.output %gt : tensor<2x4xi1>
  }
}

// -----

// Floor division of ints rounds toward -inf, as Python does.

// CHECK-LABEL: func.func @forward(
// CHECK:         linalg.generic
// CHECK:           arith.floordivsi %{{.*}}, %{{.*}} : i64
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x4xi64>
    %y = fx.placeholder "y" : tensor<2x4xi64>
    %div = fx.call_function "aten::div.Tensor_mode"(%x, %y, rounding_mode="floor") : (tensor<2x4xi64>, tensor<2x4xi64>) -> tensor<2x4xi64>
    fx.output %div : tensor<2x4xi64>
  }
}

// -----

// where with a 0-d tensor operand: its map has no results.

// CHECK-DAG: #[[$SCALAR:map[0-9]*]] = affine_map<(d0, d1) -> ()>
// CHECK-DAG: #[[$ID:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @forward(
// CHECK:         linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]], #[[$SCALAR]], #[[$ID]]]
// CHECK-SAME:      ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<2x4xi1>, tensor<2x4xf32>, tensor<f32>)
// CHECK:           arith.select
fx.graph_module @M {
  fx.graph @forward {
    %c = fx.placeholder "c" : tensor<2x4xi1>
    %x = fx.placeholder "x" : tensor<2x4xf32>
    %s = fx.placeholder "s" : tensor<f32>
    %where = fx.call_function "aten::where.self"(%c, %x, %s) : (tensor<2x4xi1>, tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
    fx.output %where : tensor<2x4xf32>
  }
}

// -----

// Dropout in eval mode (train=False) is the identity.

// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[X:.*]]: tensor<2x4xf32>)
// CHECK-NEXT:    return %[[X]] : tensor<2x4xf32>
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x4xf32>
    %dropout = fx.call_function "aten::dropout"(%x, 0.5, False) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    fx.output %dropout : tensor<2x4xf32>
  }
}
