// RUN: fx-opt %s -split-input-file --convert-fx-to-linalg | FileCheck %s
// RUN: fx-opt %s -split-input-file --convert-fx-to-linalg="weights-as-arguments=true entry=main" | FileCheck %s --check-prefix=ARGS
// RUN: fx-opt %s -split-input-file --convert-fx-to-linalg=dynamic-batch=true | FileCheck %s --check-prefix=DYN

// The graph structure: the forward graph becomes a func.func (named by
// `entry`) with the placeholders as arguments, and the graph module is
// erased. Module state read by get_attr is an arith.constant of its value,
// or with `weights-as-arguments` a trailing argument marked `fx.state`.
// With `dynamic-batch` dim 0 of every input is dynamic and the shapes of
// the nodes follow from it. fx.output becomes func.return; the func's
// `fx.output` attribute keeps the output's nesting, `#fx.node<i>` standing
// for result i. Errors are in invalid.mlir.

// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3xf32>) -> tensor<2x4xf32> attributes {fx.output = [#fx.node<0>], llvm.emit_c_interface} {
// CHECK-DAG:     %[[B:.*]] = arith.constant dense<5.000000e-01> : tensor<4xf32>
// CHECK-DAG:     %[[W:.*]] = arith.constant dense<1.000000e+00> : tensor<4x3xf32>
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[B]] : tensor<4xf32>)
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[X]], %[[W]] : tensor<2x3xf32>, tensor<4x3xf32>)
// CHECK-NOT:     fx.

// ARGS-LABEL: func.func @main(
// ARGS-SAME:    %[[X:.*]]: tensor<2x3xf32>, %[[W:.*]]: tensor<4x3xf32> {fx.state = "fc.weight"}, %[[B:.*]]: tensor<4xf32> {fx.state = "fc.bias"}) -> tensor<2x4xf32>
// ARGS-NOT:     arith.constant dense
// ARGS:         linalg.generic
// ARGS-SAME:      ins(%[[B]] : tensor<4xf32>)
// ARGS:         linalg.generic
// ARGS-SAME:      ins(%[[X]], %[[W]] : tensor<2x3xf32>, tensor<4x3xf32>)

// DYN-LABEL: func.func @forward(
// DYN-SAME:    %[[X:.*]]: tensor<?x3xf32>) -> tensor<?x4xf32>
// DYN:         %[[C0:.*]] = arith.constant 0 : index
// DYN:         %[[N:.*]] = tensor.dim %[[X]], %[[C0]] : tensor<?x3xf32>
// DYN:         tensor.empty(%[[N]]) : tensor<?x4xf32>
fx.graph_module @Linear {
  fx.state parameter @fc.weight : tensor<4x3xf32> = dense<1.0>
  fx.state parameter @fc.bias : tensor<4xf32> = dense<0.5>
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x3xf32>
    %fc_weight = fx.get_attr @fc.weight : tensor<4x3xf32>
    %fc_bias = fx.get_attr @fc.bias : tensor<4xf32>
    %fc = fx.call_function "aten::linear"(%x, %fc_weight, %fc_bias) : (tensor<2x3xf32>, tensor<4x3xf32>, tensor<4xf32>) -> tensor<2x4xf32>
    fx.output %fc : tensor<2x4xf32>
  }
}

// -----

// Tied weights: state aliasing other state is one constant, one argument.

// CHECK-LABEL: func.func @forward(
// CHECK:         %[[W:.*]] = arith.constant dense<2.000000e+00> : tensor<4x4xf32>
// CHECK-NOT:     arith.constant dense
// CHECK:         %[[ENC:.*]] = linalg.matmul ins(%{{.*}}, %[[W]] :
// CHECK:         linalg.matmul ins(%[[ENC]], %[[W]] :

// ARGS-LABEL: func.func @main(
// ARGS-SAME:    %{{.*}}: tensor<2x4xf32>, %[[W:.*]]: tensor<4x4xf32> {fx.state = "enc.weight"}) -> tensor<2x4xf32>
// ARGS:         %[[ENC:.*]] = linalg.matmul ins(%{{.*}}, %[[W]] :
// ARGS:         linalg.matmul ins(%[[ENC]], %[[W]] :
fx.graph_module @Tied {
  fx.state parameter @enc.weight : tensor<4x4xf32> = dense<2.0>
  fx.state parameter @dec.weight : tensor<4x4xf32> = @enc.weight
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x4xf32>
    %enc_weight = fx.get_attr @enc.weight : tensor<4x4xf32>
    %dec_weight = fx.get_attr @dec.weight : tensor<4x4xf32>
    %enc = fx.call_function "aten::mm"(%x, %enc_weight) : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %dec = fx.call_function "aten::mm"(%enc, %dec_weight) : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    fx.output %dec : tensor<2x4xf32>
  }
}

// -----

// A placeholder marked `fx.buffer` is a module buffer passed in (one the
// graph updates, written back by fx_mlir.compile): with a dynamic batch its
// dim 0 stays static, the other inputs' is dynamic.

// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %{{.*}}: tensor<2x3xf32>, %{{.*}}: tensor<3x4xf32>)

// DYN: func.func @forward(%{{.*}}: tensor<?x3xf32>, %{{.*}}: tensor<3x4xf32>)
fx.graph_module @Stateful {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x3xf32>
    %cache = fx.placeholder "state_cache" {fx.buffer = "cache"} : tensor<3x4xf32>
    %mm = fx.call_function "aten::mm"(%x, %cache) : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
    fx.output %mm : tensor<2x4xf32>
  }
}

// -----

// Nested outputs: the tensors are returned in print order, a node once per
// use; None stays in the attribute only.

// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[X:.*]]: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
// CHECK-SAME:    attributes {fx.output = [#fx.tuple<[#fx.tuple<[#fx.node<0>, #fx.node<1>]>, #fx.dict<"k" = #fx.list<[#fx.node<2>, #fx.none]>>]>], llvm.emit_c_interface}
// CHECK:         %[[RELU:.*]] = linalg.generic
// CHECK:         return %[[RELU]], %[[X]], %[[RELU]] : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
fx.graph_module @Outputs {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2xf32>
    %relu = fx.call_function "aten::relu"(%x) : (tensor<2xf32>) -> tensor<2xf32>
    fx.output ((%relu, %x), {"k": [%relu, None]}) : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
  }
}

// -----

// With a dynamic batch the shapes flow from the arguments: the traced
// batch size 2 appears nowhere, a view reads it with size.int.

// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    tensor<2x8xf32>) -> tensor<2x2x4xf32>

// DYN-LABEL: func.func @forward(%{{.*}}: tensor<?x8xf32>) -> tensor<?x2x4xf32>
// DYN:         %[[C0:.*]] = arith.constant 0 : index
// DYN:         %[[RELU:.*]] = linalg.generic
// DYN-SAME:      outs(%{{.*}} : tensor<?x8xf32>)
// DYN:         %[[DIM:.*]] = tensor.dim %[[RELU]], %[[C0]] : tensor<?x8xf32>
// DYN:         %[[N:.*]] = arith.index_cast %[[DIM]] : index to i64
// DYN:         %[[NI:.*]] = arith.index_cast %[[N]] : i64 to index
// DYN:         tensor.expand_shape %{{.*}} {{\[\[}}0, 1, 2]] output_shape [%[[NI]], 2, 4] : tensor<?xf32> into tensor<?x2x4xf32>
fx.graph_module @DynamicBatch {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x8xf32>
    %relu = fx.call_function "aten::relu"(%x) : (tensor<2x8xf32>) -> tensor<2x8xf32>
    %size = fx.call_function "aten::size.int"(%relu, 0) : (tensor<2x8xf32>) -> i64
    %view = fx.call_function "aten::view"(%relu, [%size, 2, -1]) : (tensor<2x8xf32>, i64) -> tensor<2x2x4xf32>
    fx.output %view : tensor<2x2x4xf32>
  }
}

// -----

// Run-time checks: an integer division by a tensor checks that no divisor
// is zero (PyTorch's ZeroDivisionError; x86's idiv would trap). The flag
// (any divisor zero) is a hidden result after the outputs, which fx.checks
// names for the runtime; the division itself divides by 1 there.

// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    -> (tensor<4xi64>, tensor<i1>)
// CHECK-SAME:    fx.checks = [{message = "ZeroDivisionError: integer division by zero", node = "'d'"}]
// CHECK:         %[[ZERO:.*]] = linalg.generic {{.*}} ins(%arg1 : tensor<4xi64>) outs(%{{.*}} : tensor<4xi1>)
// CHECK:           arith.cmpi eq
// CHECK:         %[[ANY:.*]] = linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%[[ZERO]] : tensor<4xi1>)
// CHECK:           arith.ori
// CHECK:         %[[FLAG:.*]] = linalg.generic {{.*}} ins(%[[ANY]] : tensor<i1>)
// CHECK:         %[[Q:.*]] = linalg.generic
// CHECK:           arith.floordivsi
// CHECK:         return %[[Q]], %[[FLAG]] : tensor<4xi64>, tensor<i1>
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<4xi64>
    %y = fx.placeholder "y" : tensor<4xi64>
    %d = fx.call_function "aten::floor_divide"(%x, %y) : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
    fx.output %d : tensor<4xi64>
  }
}

// -----

// squeeze of a dynamic dim (the batch) keeps it: at size 1, where eager
// would drop it and the compiled rank cannot follow, the run fails with an
// error naming the node. A static dim of size 1 is dropped, unchecked.

// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    -> (tensor<?x3xf32>, tensor<i1>)
// CHECK-SAME:    fx.checks = [{message = "squeeze of dim 0 at size 1: the dim's size is dynamic (the batch) and the compiled graph's rank is fixed, where eager would drop the dim", node = "'squeeze'"}]
// CHECK:         %[[N:.*]] = tensor.dim %arg0, %c0
// CHECK:         %[[ONE:.*]] = arith.cmpi eq, %[[N]], %c1
// CHECK:         tensor.from_elements %[[ONE]] : tensor<i1>
// CHECK:         tensor.collapse_shape %arg0 {{\[\[}}0, 1], [2]] : tensor<?x1x3xf32> into tensor<?x3xf32>
fx.graph_module @Squeeze {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<?x1x3xf32>
    %squeeze = fx.call_function "aten::squeeze"(%x) : (tensor<?x1x3xf32>) -> tensor<?x3xf32>
    fx.output %squeeze : tensor<?x3xf32>
  }
}

// -----

// A static dim of a node's type that the lowering computes from a dynamic
// one (`x[:2]` of a batch: 2 at the imported batches, 1 at a batch of 1)
// is checked while the code runs, and the value is cast to the node's
// type. Under the pass's dynamic-batch option on a graph typed statically
// (no dim of a placeholder dynamic), the node types are the example's and
// nothing is checked.

// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    -> (tensor<2x3xf32>, tensor<i1>)
// CHECK-SAME:    fx.checks = [{message = "dim 0 has another size than 2, the size the graph was compiled for: it changes with the batch in a way the dynamic-batch import did not see", node = "'slice'"}]
// CHECK:         %[[S:.*]] = tensor.extract_slice %arg0[%{{.*}}, 0] [%[[N:.*]], 3] [1, 1] : tensor<?x3xf32> to tensor<?x3xf32>
// CHECK:         arith.cmpi ne, %[[N]], %c2
// CHECK:         tensor.cast %[[S]] : tensor<?x3xf32> to tensor<2x3xf32>
fx.graph_module @SliceOfBatch {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<?x3xf32>
    %slice = fx.call_function "aten::slice.Tensor"(%x, 0, 0, 2, 1) : (tensor<?x3xf32>) -> tensor<2x3xf32>
    fx.output %slice : tensor<2x3xf32>
  }
}

// -----

// A number the graph returns (the size of a dynamic dim) is returned as a
// 0-d tensor marked fx.number, which the runtime gives back as a Python
// int.
// CHECK-LABEL: func.func @forward(
// CHECK-SAME:      -> (tensor<?x4xf32>, tensor<i64> {fx.number})
// CHECK:         %[[DIM:.*]] = tensor.dim
// CHECK:         %[[N:.*]] = arith.index_cast %[[DIM]] : index to i64
// CHECK:         %[[T:.*]] = tensor.from_elements %[[N]] : tensor<i64>
// CHECK:         return %{{.*}}, %[[T]] : tensor<?x4xf32>, tensor<i64>
// ARGS-LABEL: func.func @main(
// DYN-LABEL: func.func @forward(
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<?x4xf32>
    %n = fx.call_function "aten::size.int"(%x, 0) : (tensor<?x4xf32>) -> i64
    %r = fx.call_function "aten::relu"(%x) : (tensor<?x4xf32>) -> tensor<?x4xf32>
    fx.output (%r, %n) : tensor<?x4xf32>, i64
  }
}
