// RUN: fx-opt %s --convert-fx-to-linalg=dynamic-batch=true -verify-diagnostics

// A graph imported for one batch size (static input types) compiled for a
// dynamic batch: its nodes' types follow the inputs', but a cond's branch
// graphs keep the imported size. A clear error, not a type mismatch
// inside the conversion.
fx.graph_module @Branch {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x4xf32>
    %p = fx.call_function "aten::gt.Scalar"(%x, 0) : (tensor<1x4xf32>) -> tensor<1x4xi1>
    %any = fx.call_function "aten::any"(%p) : (tensor<1x4xi1>) -> tensor<i1>
    %true_graph_0 = fx.get_attr @true_graph_0 : !fx.any
    %false_graph_0 = fx.get_attr @false_graph_0 : !fx.any
    // expected-error @+1 {{cannot compile call_function 'cond' with target 'torch.ops.higher_order.cond' for a dynamic batch: the graph was imported for one batch size (static input types), and its control flow's graphs keep that size}}
    %cond = fx.call_function "torch.ops.higher_order.cond"(%any, %true_graph_0, %false_graph_0, (%x,)) : (tensor<i1>, !fx.any, !fx.any, tensor<1x4xf32>) -> tuple<tensor<1x4xf32>>
    %r = fx.call_function "operator.getitem"(%cond, 0) : (tuple<tensor<1x4xf32>>) -> tensor<1x4xf32>
    fx.output %r : tensor<1x4xf32>
  }
  fx.graph @true_graph_0 {
    %x = fx.placeholder "x" : tensor<1x4xf32>
    %m = fx.call_function "aten::mul.Scalar"(%x, 2) : (tensor<1x4xf32>) -> tensor<1x4xf32>
    fx.output (%m,) : tensor<1x4xf32>
  }
  fx.graph @false_graph_0 {
    %x = fx.placeholder "x" : tensor<1x4xf32>
    fx.output (%x,) : tensor<1x4xf32>
  }
}
