// RUN: fx-opt %s -split-input-file --convert-fx-to-linalg | FileCheck %s

// index_fill(self, dim, index, value): the positions along dim that an
// index item names (negative from the end) are a mask, and the value is
// written where it is set. An item out of range is a run-time check
// (ATen's IndexError). Along a static dim the positions are a constant
// column.

// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[X:.*]]: tensor<4x3xf32>, %[[I:.*]]: tensor<2xi64>) -> (tensor<4x3xf32>, tensor<i1>)
// CHECK-SAME:    fx.checks = [{message = "index out of range", node = "'index_fill'"}]
// CHECK:         arith.constant dense<{{\[\[}}0], [1], [2], [3]]> : tensor<4x1xi64>
// CHECK:         arith.cmpi eq
// CHECK:         arith.ori
// CHECK:         arith.select
fx.graph_module @IndexFill {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<4x3xf32>
    %i = fx.placeholder "i" : tensor<2xi64>
    %index_fill = fx.call_function "aten::index_fill.int_Scalar"(%x, 0, %i, 2.0) : (tensor<4x3xf32>, tensor<2xi64>) -> tensor<4x3xf32>
    fx.output %index_fill : tensor<4x3xf32>
  }
}

// -----

// Along a dim of run-time size (a dynamic batch) the positions are a
// linalg.index column as long as the dim, and the range check and the
// wrap of negative items use the dim's size.

// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[X:.*]]: tensor<?x3xf32>, %[[I:.*]]: tensor<2xi64>) -> (tensor<?x3xf32>, tensor<i1>)
// CHECK:         %[[N:.*]] = tensor.dim %[[X]], %c0 : tensor<?x3xf32>
// CHECK:         %[[COUNT:.*]] = arith.index_cast %[[N]] : index to i64
// CHECK:         arith.cmpi sge, %{{.*}}, %[[COUNT]] : i64
// CHECK:         tensor.empty(%[[N]]) : tensor<?x1xi64>
// CHECK:         linalg.index 0 : index
// CHECK:         arith.addi %{{.*}}, %[[COUNT]] : i64
fx.graph_module @IndexFillBatch {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<?x3xf32>
    %i = fx.placeholder "i" : tensor<2xi64>
    %index_fill = fx.call_function "aten::index_fill.int_Scalar"(%x, 0, %i, 2.0) : (tensor<?x3xf32>, tensor<2xi64>) -> tensor<?x3xf32>
    fx.output %index_fill : tensor<?x3xf32>
  }
}
