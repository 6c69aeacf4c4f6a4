// RUN: fx-opt %s -split-input-file --convert-fx-to-linalg | FileCheck %s

// convert-fx-to-linalg is a dialect conversion: each node is lowered once
// its operands are, in graph order, from the lowered operands. A node with
// several results (a tuple or list) that other nodes read whole stands for
// its parts until those nodes are lowered: the output below reads sort's
// tuple whole, and also neg, which is lowered after sort, so the output's
// references to the tuple become its two parts only when it is lowered
// itself.

// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3xf32>)
// CHECK-SAME:    -> (tensor<2x3xf32>, tensor<2x3xi64>, tensor<2x3xf32>)
// CHECK-SAME:    fx.output = [#fx.tuple<[#fx.tuple<[#fx.node<0>, #fx.node<1>]>, #fx.node<2>]>]
// CHECK:         %[[SORT:.*]]:2 = linalg.generic
// CHECK:         %[[NEG:.*]] = linalg.generic
// CHECK:           arith.negf
// CHECK:         return %[[SORT]]#0, %[[SORT]]#1, %[[NEG]]
// CHECK-NOT:     unrealized_conversion_cast

fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x3xf32>
    %s = fx.call_function "aten::sort"(%x, -1, False) : (tensor<2x3xf32>) -> tuple<tensor<2x3xf32>, tensor<2x3xi64>>
    %n = fx.call_function "aten::neg"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    fx.output (%s, %n) : tuple<tensor<2x3xf32>, tensor<2x3xi64>>, tensor<2x3xf32>
  }
}

// -----

// The same for a node that reads a tuple whole: cat of split's pieces
// (`torch.cat(torch.split(x, 2), 1)`), with a node lowered in between.

// CHECK-LABEL: func.func @forward(
// CHECK:         %[[A:.*]] = tensor.extract_slice %{{.*}}[0, 0] [2, 2] [1, 1]
// CHECK:         %[[B:.*]] = tensor.extract_slice %{{.*}}[2, 0] [2, 2] [1, 1]
// CHECK:         tensor.insert_slice %[[A]]
// CHECK:         tensor.insert_slice %[[B]]
// CHECK-NOT:     unrealized_conversion_cast

fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<4x2xf32>
    %split = fx.call_function "aten::split.Tensor"(%x, 2, 0) : (tensor<4x2xf32>) -> !fx.any
    %r = fx.call_function "aten::relu"(%x) : (tensor<4x2xf32>) -> tensor<4x2xf32>
    %cat = fx.call_function "aten::cat"(%split, 1) : (!fx.any) -> tensor<2x4xf32>
    fx.output (%cat, %r) : tensor<2x4xf32>, tensor<4x2xf32>
  }
}

// -----

// uint8 tensors are computed as i32 holding 0..255: an input comes in as
// bytes (i8, its dtype kept as `fx.dtype`) and is zero-extended; every
// node of a uint8 result wraps its value around (`& 255`: arithmetic mod
// 2^32 reduced is arithmetic mod 256, and comparisons, division and
// shifts of 0..255 are uint8's); a uint8 output is truncated back to
// bytes.

// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[X:.*]]: tensor<3xi8> {fx.dtype = "uint8"})
// CHECK-SAME:    -> (tensor<3xi8> {fx.dtype = "uint8"})
// CHECK-DAG:     %[[MASK:.*]] = arith.constant 255 : i32
// CHECK:         %[[WIDE:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<3xi8>)
// CHECK:           arith.extui %{{.*}} : i8 to i32
// CHECK:         %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[WIDE]], %[[WIDE]] : tensor<3xi32>, tensor<3xi32>)
// CHECK:           arith.addi
// CHECK:         %[[WRAP:.*]] = linalg.generic {{.*}} ins(%[[SUM]] : tensor<3xi32>)
// CHECK:           arith.andi %{{.*}}, %[[MASK]] : i32
// CHECK:         %[[BYTES:.*]] = linalg.generic {{.*}} ins(%[[WRAP]] : tensor<3xi32>)
// CHECK:           arith.trunci %{{.*}} : i32 to i8
// CHECK:         return %[[BYTES]] : tensor<3xi8>

fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<3xui8>
    %r = fx.call_function "aten::add.Tensor"(%x, %x) : (tensor<3xui8>, tensor<3xui8>) -> tensor<3xui8>
    fx.output %r : tensor<3xui8>
  }
}

// -----

// A uint8 constant: the same bytes as an i8 constant, zero-extended.

// CHECK-LABEL: func.func @forward(
// CHECK:         %[[C:.*]] = arith.constant dense<[1, -1, 127]> : tensor<3xi8>
// CHECK:         linalg.generic {{.*}} ins(%[[C]] : tensor<3xi8>)
// CHECK:           arith.extui %{{.*}} : i8 to i32

fx.graph_module @M {
  fx.state buffer @t : tensor<3xui8> = dense<[1, 255, 127]>
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<3xi32>
    %t = fx.get_attr @t : tensor<3xui8>
    %r = fx.call_function "aten::add.Tensor"(%x, %t) : (tensor<3xi32>, tensor<3xui8>) -> tensor<3xi32>
    fx.output %r : tensor<3xi32>
  }
}
