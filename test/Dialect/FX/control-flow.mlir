// RUN: fx-opt %s | FileCheck %s
// RUN: fx-opt %s | fx-opt | FileCheck %s
// RUN: fx-opt %s --fx-print-tabular -o /dev/null | FileCheck %s --check-prefix=TABLE

// Control flow as higher-order calls whose branches and bodies are graphs
// of the graph module (docs/DialectRationale.md, "Control flow"): the
// three targets parse, verify and print back unchanged.

// CHECK-LABEL: fx.graph_module @Branch
// CHECK: fx.graph @forward
// CHECK: %true_graph_0 = fx.get_attr @true_graph_0 : !fx.any
// CHECK: %cond = fx.call_function "torch.ops.higher_order.cond"(%gt, %true_graph_0, %false_graph_0, (%x,)) : (i1, !fx.any, !fx.any, tensor<4xf32>) -> tuple<tensor<4xf32>>
// CHECK: fx.graph @true_graph_0
// CHECK: fx.graph @false_graph_0
fx.graph_module @Branch {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<4xf32>
    %sum = fx.call_function "aten::sum"(%x) : (tensor<4xf32>) -> tensor<f32>
    %gt = fx.call_function "aten::Bool.Tensor"(%sum) : (tensor<f32>) -> i1
    %true_graph_0 = fx.get_attr @true_graph_0 : !fx.any
    %false_graph_0 = fx.get_attr @false_graph_0 : !fx.any
    %cond = fx.call_function "torch.ops.higher_order.cond"(%gt, %true_graph_0, %false_graph_0, (%x,)) : (i1, !fx.any, !fx.any, tensor<4xf32>) -> tuple<tensor<4xf32>>
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
    %sigmoid = fx.call_function "aten::sigmoid"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    fx.output (%sigmoid,) : tensor<4xf32>
  }
}

// A counted loop growing its carried value: the body takes it with a
// dynamic dim; the initial value and the result fit that type. A constant
// carried value (the int 0) is a constant element of the tuple.
// CHECK-LABEL: fx.graph_module @Grow
// CHECK: fx.call_function "fx_mlir.for_loop"(%size, %body_graph_0, (%x, 0), (%x,)) : (i64, !fx.any, tensor<1x2xf32>, tensor<1x2xf32>) -> tuple<tensor<?x2xf32>, i64>
fx.graph_module @Grow {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x2xf32>
    %n = fx.placeholder "n" : tensor<3xf32>
    %size = fx.call_function "aten::size.int"(%n, 0) : (tensor<3xf32>) -> i64
    %body_graph_0 = fx.get_attr @body_graph_0 : !fx.any
    %loop = fx.call_function "fx_mlir.for_loop"(%size, %body_graph_0, (%x, 0), (%x,)) : (i64, !fx.any, tensor<1x2xf32>, tensor<1x2xf32>) -> tuple<tensor<?x2xf32>, i64>
    %getitem = fx.call_function "operator.getitem"(%loop, 0) : (tuple<tensor<?x2xf32>, i64>) -> tensor<?x2xf32>
    fx.output %getitem : tensor<?x2xf32>
  }
  fx.graph @body_graph_0 {
    %i = fx.placeholder "i" : i64
    %seq = fx.placeholder "seq" : tensor<?x2xf32>
    %total = fx.placeholder "total" : i64
    %row = fx.placeholder "x" : tensor<1x2xf32>
    %cat = fx.call_function "aten::cat"([%seq, %row]) : (tensor<?x2xf32>, tensor<1x2xf32>) -> tensor<?x2xf32>
    %add = fx.call_function "aten::add.int"(%total, %i) : (i64, i64) -> i64
    fx.output (%cat, %add) : tensor<?x2xf32>, i64
  }
}

// A while loop: the cond graph returns the predicate, the body the next
// carried values.
// CHECK-LABEL: fx.graph_module @Newton
// CHECK: fx.call_function "torch.ops.higher_order.while_loop"(%cond_graph_0, %body_graph_0, (%x, %true_), (%a,))
fx.graph_module @Newton {
  fx.graph @forward {
    %a = fx.placeholder "a" : tensor<3xf32>
    %x = fx.placeholder "x" : tensor<3xf32>
    %true_ = fx.placeholder "true_" : i1
    %cond_graph_0 = fx.get_attr @cond_graph_0 : !fx.any
    %body_graph_0 = fx.get_attr @body_graph_0 : !fx.any
    %loop = fx.call_function "torch.ops.higher_order.while_loop"(%cond_graph_0, %body_graph_0, (%x, %true_), (%a,)) : (!fx.any, !fx.any, tensor<3xf32>, i1, tensor<3xf32>) -> tuple<tensor<3xf32>, i1>
    %getitem = fx.call_function "operator.getitem"(%loop, 0) : (tuple<tensor<3xf32>, i1>) -> tensor<3xf32>
    fx.output %getitem : tensor<3xf32>
  }
  fx.graph @cond_graph_0 {
    %x = fx.placeholder "x" : tensor<3xf32>
    %go = fx.placeholder "go" : i1
    %a = fx.placeholder "a" : tensor<3xf32>
    fx.output (%go,) : i1
  }
  fx.graph @body_graph_0 {
    %x = fx.placeholder "x" : tensor<3xf32>
    %go = fx.placeholder "go" : i1
    %a = fx.placeholder "a" : tensor<3xf32>
    %div = fx.call_function "aten::div.Tensor"(%a, %x) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %add = fx.call_function "aten::add.Tensor"(%x, %div) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %next = fx.call_function "aten::mul.Scalar"(%add, 5.000000e-01) : (tensor<3xf32>) -> tensor<3xf32>
    %sub = fx.call_function "aten::sub.Tensor"(%next, %x) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %abs = fx.call_function "aten::abs"(%sub) : (tensor<3xf32>) -> tensor<3xf32>
    %max = fx.call_function "aten::max"(%abs) : (tensor<3xf32>) -> tensor<f32>
    %gt = fx.call_function "aten::gt.Scalar"(%max, 1.000000e-06) : (tensor<f32>) -> tensor<i1>
    %more = fx.call_function "aten::Bool.Tensor"(%gt) : (tensor<i1>) -> i1
    fx.output (%next, %more) : tensor<3xf32>, i1
  }
}

// Each graph is a table of its own.
// TABLE-LABEL: graph Branch.forward:
// TABLE: get_attr       true_graph_0   true_graph_0                 ()                                       {}
// TABLE: call_function  cond           torch.ops.higher_order.cond  (gt, true_graph_0, false_graph_0, (x,))  {}
// TABLE-LABEL: graph Branch.true_graph_0:
// TABLE: output         output  output      ((relu,),)  {}
// TABLE-LABEL: graph Branch.false_graph_0:
// TABLE-LABEL: graph Grow.forward:
// TABLE: call_function  loop          fx_mlir.for_loop  (size, body_graph_0, (x, 0), (x,))  {}
// TABLE-LABEL: graph Grow.body_graph_0:
// TABLE-LABEL: graph Newton.cond_graph_0:
