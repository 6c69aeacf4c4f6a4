// RUN: fx-opt %s --fx-cse --fx-dce | FileCheck %s
// RUN: fx-opt %s --fx-instrument | FileCheck %s --check-prefix=PROBE

// Graph passes run in every graph, branches and bodies of control flow
// included: CSE merges the two identical calls of the body and DCE drops
// the unused one; instrumentation probes the body's nodes.

// CHECK-LABEL: fx.graph @body_graph_0
// CHECK:         %tanh = fx.call_function "aten::tanh"(%h)
// CHECK-NOT:     aten::tanh
// CHECK-NOT:     aten::sigmoid
// CHECK:         %add = fx.call_function "aten::add.Tensor"(%tanh, %tanh)
// CHECK:         fx.output (%add,)

// PROBE-LABEL: fx.graph @body_graph_0
// PROBE:         fx.call_function "fx_mlir.instrument.
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<3xf32>
    %body_graph_0 = fx.get_attr @body_graph_0 : !fx.any
    %loop = fx.call_function "fx_mlir.for_loop"(4, %body_graph_0, (%x,), ()) : (!fx.any, tensor<3xf32>) -> tuple<tensor<3xf32>>
    %getitem = fx.call_function "operator.getitem"(%loop, 0) : (tuple<tensor<3xf32>>) -> tensor<3xf32>
    fx.output %getitem : tensor<3xf32>
  }
  fx.graph @body_graph_0 {
    %i = fx.placeholder "i" : i64
    %h = fx.placeholder "h" : tensor<3xf32>
    %tanh = fx.call_function "aten::tanh"(%h) : (tensor<3xf32>) -> tensor<3xf32>
    %tanh_1 = fx.call_function "aten::tanh"(%h) : (tensor<3xf32>) -> tensor<3xf32>
    %sigmoid = fx.call_function "aten::sigmoid"(%h) : (tensor<3xf32>) -> tensor<3xf32>
    %add = fx.call_function "aten::add.Tensor"(%tanh, %tanh_1) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    fx.output (%add,) : tensor<3xf32>
  }
}
