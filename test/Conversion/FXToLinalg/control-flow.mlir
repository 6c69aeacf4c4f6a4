// RUN: fx-opt %s -split-input-file --convert-fx-to-linalg -verify-diagnostics | FileCheck %s

// Control-flow calls (ControlFlow.h) become scf ops on tensors whose
// regions hold their graphs' nodes, lowered there: cond -> scf.if,
// for_loop -> scf.for on i64, while_loop -> scf.while. State a graph
// reads is read where the function starts.

// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[X:.*]]: tensor<4xf32>, %[[P:.*]]: tensor<i1>)
// CHECK:         %[[W:.*]] = arith.constant dense<2.000000e+00> : tensor<4xf32>
// CHECK:         %[[PRED:.*]] = tensor.extract %[[P]][] : tensor<i1>
// CHECK:         %[[IF:.*]] = scf.if %[[PRED]] -> (tensor<4xf32>) {
// CHECK:           linalg.generic
// CHECK:           arith.cmpf olt
// CHECK:           arith.select
// CHECK:           scf.yield
// CHECK:         } else {
// CHECK:           linalg.generic {{.*}} ins(%[[X]], %[[W]]
// CHECK:           arith.mulf
// CHECK:           scf.yield
// CHECK:         return %[[IF]]
fx.graph_module @Branch {
  fx.state parameter @w : tensor<4xf32> = dense<2.0>
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<4xf32>
    %p = fx.placeholder "p" : tensor<i1>
    %true_graph_0 = fx.get_attr @true_graph_0 : !fx.any
    %false_graph_0 = fx.get_attr @false_graph_0 : !fx.any
    %cond = fx.call_function "torch.ops.higher_order.cond"(%p, %true_graph_0, %false_graph_0, (%x,)) : (tensor<i1>, !fx.any, !fx.any, tensor<4xf32>) -> tuple<tensor<4xf32>>
    %getitem = fx.call_function "operator.getitem"(%cond, 0) : (tuple<tensor<4xf32>>) -> tensor<4xf32>
    fx.output %getitem : tensor<4xf32>
  }
  fx.graph @true_graph_0 {
    %x = fx.placeholder "x" : tensor<4xf32>
    %relu = fx.call_function "aten::relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    fx.output (%relu,) : tensor<4xf32>
  }
  fx.graph @false_graph_0 {
    %x = fx.placeholder "x" : tensor<4xf32>
    %w = fx.get_attr @w : tensor<4xf32>
    %mul = fx.call_function "aten::mul.Tensor"(%x, %w) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    fx.output (%mul,) : tensor<4xf32>
  }
}

// -----

// A counted loop carrying a tensor and an int (a constant initially).
// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[X:.*]]: tensor<3xf32>, %[[N:.*]]: tensor<5xf32>) -> (tensor<3xf32>, tensor<i64> {fx.number})
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK-DAG:     %[[ONE:.*]] = arith.constant 1 : i64
// CHECK-DAG:     %[[COUNT:.*]] = arith.constant 5 : i64
// CHECK:         %[[LOOP:.*]]:2 = scf.for %[[I:.*]] = %[[ZERO]] to %[[COUNT]] step %[[ONE]] iter_args(%[[H:.*]] = %[[X]], %[[T:.*]] = %[[ZERO]]) -> (tensor<3xf32>, i64)  : i64 {
// CHECK:           math.tanh
// CHECK:           %[[NEXT:.*]] = arith.addi %[[T]], %[[I]] : i64
// CHECK:           scf.yield %{{.*}}, %[[NEXT]] : tensor<3xf32>, i64
// CHECK:         tensor.from_elements %[[LOOP]]#1 : tensor<i64>
fx.graph_module @Counted {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<3xf32>
    %n = fx.placeholder "n" : tensor<5xf32>
    %size = fx.call_function "aten::size.int"(%n, 0) : (tensor<5xf32>) -> i64
    %body_graph_0 = fx.get_attr @body_graph_0 : !fx.any
    %loop = fx.call_function "fx_mlir.for_loop"(%size, %body_graph_0, (%x, 0), ()) : (i64, !fx.any, tensor<3xf32>) -> tuple<tensor<3xf32>, i64>
    %h = fx.call_function "operator.getitem"(%loop, 0) : (tuple<tensor<3xf32>, i64>) -> tensor<3xf32>
    %t = fx.call_function "operator.getitem"(%loop, 1) : (tuple<tensor<3xf32>, i64>) -> i64
    fx.output (%h, %t) : tensor<3xf32>, i64
  }
  fx.graph @body_graph_0 {
    %i = fx.placeholder "i" : i64
    %h = fx.placeholder "h" : tensor<3xf32>
    %t = fx.placeholder "t" : i64
    %tanh = fx.call_function "aten::tanh"(%h) : (tensor<3xf32>) -> tensor<3xf32>
    %add = fx.call_function "aten::add.int"(%t, %i) : (i64, i64) -> i64
    fx.output (%tanh, %add) : tensor<3xf32>, i64
  }
}

// -----

// A while loop: the cond graph's predicate in the before region.
// CHECK-LABEL: func.func @forward(
// CHECK:         scf.while (%[[G:.*]] = %{{.*}}, %[[V:.*]] = %{{.*}}) : (tensor<i1>, tensor<3xf32>) -> (tensor<i1>, tensor<3xf32>) {
// CHECK:           %[[GO:.*]] = tensor.extract %[[G]][] : tensor<i1>
// CHECK:           scf.condition(%[[GO]]) %[[G]], %[[V]] : tensor<i1>, tensor<3xf32>
// CHECK:         } do {
// CHECK:           linalg.generic
// CHECK:           scf.yield
fx.graph_module @While {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<3xf32>
    %go = fx.placeholder "go" : tensor<i1>
    %cond_graph_0 = fx.get_attr @cond_graph_0 : !fx.any
    %body_graph_0 = fx.get_attr @body_graph_0 : !fx.any
    %loop = fx.call_function "torch.ops.higher_order.while_loop"(%cond_graph_0, %body_graph_0, (%go, %x), ()) : (!fx.any, !fx.any, tensor<i1>, tensor<3xf32>) -> tuple<tensor<i1>, tensor<3xf32>>
    %v = fx.call_function "operator.getitem"(%loop, 1) : (tuple<tensor<i1>, tensor<3xf32>>) -> tensor<3xf32>
    fx.output %v : tensor<3xf32>
  }
  fx.graph @cond_graph_0 {
    %go = fx.placeholder "go" : tensor<i1>
    %x = fx.placeholder "x" : tensor<3xf32>
    fx.output (%go,) : tensor<i1>
  }
  fx.graph @body_graph_0 {
    %go = fx.placeholder "go" : tensor<i1>
    %x = fx.placeholder "x" : tensor<3xf32>
    %half = fx.call_function "aten::mul.Scalar"(%x, 5.000000e-01) : (tensor<3xf32>) -> tensor<3xf32>
    %sum = fx.call_function "aten::sum"(%half) : (tensor<3xf32>) -> tensor<f32>
    %gt = fx.call_function "aten::gt.Scalar"(%sum, 1.000000e-01) : (tensor<f32>) -> tensor<i1>
    fx.output (%gt, %half) : tensor<i1>, tensor<3xf32>
  }
}

// -----

// A run-time check inside a loop (an index out of range) raises after it:
// its flag is carried out as an iteration argument.
// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    -> (tensor<2x4xf32>, tensor<i1>) attributes {fx.checks = [{message = "IndexError: index out of range in self", node = "'embedding'"}]
// CHECK:         %[[LOOP:.*]]:2 = scf.for {{.*}} -> (tensor<2x4xf32>, i1)
// CHECK:           %[[RAISED:.*]] = arith.ori %{{.*}}, %extracted : i1
// CHECK:           scf.yield %{{.*}}, %[[RAISED]] : tensor<2x4xf32>, i1
// CHECK:         %[[FLAG:.*]] = tensor.from_elements %[[LOOP]]#1 : tensor<i1>
// CHECK:         return %[[LOOP]]#0, %[[FLAG]]
fx.graph_module @Checked {
  fx.state parameter @"emb.weight" : tensor<10x4xf32> = dense<1.0>
  fx.graph @forward {
    %ids = fx.placeholder "ids" : tensor<2xi64>
    %x = fx.placeholder "x" : tensor<2x4xf32>
    %body_graph_0 = fx.get_attr @body_graph_0 : !fx.any
    %loop = fx.call_function "fx_mlir.for_loop"(3, %body_graph_0, (%x,), (%ids,)) : (!fx.any, tensor<2x4xf32>, tensor<2xi64>) -> tuple<tensor<2x4xf32>>
    %v = fx.call_function "operator.getitem"(%loop, 0) : (tuple<tensor<2x4xf32>>) -> tensor<2x4xf32>
    fx.output %v : tensor<2x4xf32>
  }
  fx.graph @body_graph_0 {
    %i = fx.placeholder "i" : i64
    %x = fx.placeholder "x" : tensor<2x4xf32>
    %ids = fx.placeholder "ids" : tensor<2xi64>
    %w = fx.get_attr @"emb.weight" : tensor<10x4xf32>
    %shifted = fx.call_function "aten::add.Scalar"(%ids, %i) : (tensor<2xi64>, i64) -> tensor<2xi64>
    %embedding = fx.call_function "aten::embedding"(%w, %shifted) : (tensor<10x4xf32>, tensor<2xi64>) -> tensor<2x4xf32>
    %add = fx.call_function "aten::add.Tensor"(%x, %embedding) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    fx.output (%add,) : tensor<2x4xf32>
  }
}

// -----

fx.graph_module @Escapes {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<3xf32>
    %p = fx.placeholder "p" : i1
    %t = fx.get_attr @t : !fx.any
    // expected-error @+1 {{cannot compile 'cond': its result is used other than by operator.getitem with a constant index}}
    %cond = fx.call_function "torch.ops.higher_order.cond"(%p, %t, %t, (%x,)) : (i1, !fx.any, !fx.any, tensor<3xf32>) -> tuple<tensor<3xf32>>
    fx.output %cond : tuple<tensor<3xf32>>
  }
  fx.graph @t {
    %x = fx.placeholder "x" : tensor<3xf32>
    fx.output (%x,) : tensor<3xf32>
  }
}
