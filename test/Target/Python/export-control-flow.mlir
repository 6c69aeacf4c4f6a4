// Control flow exported to a runnable torch.fx.GraphModule: each branch
// and body is a GraphModule submodule, each higher-order call a call of
// fx_mlir.control_flow's function, which runs a real `if` or loop.
// RUN: fx-translate --export-fx-json %s | FileCheck %s --check-prefix=JSON
// RUN: fx-translate --export-python %s > %t.py
// RUN: env PYTHONPATH=%fx_src_root/python FX_MLIR_BUILD_DIR=%fx_obj_root %python -c "import runpy, torch; gm = runpy.run_path('%t.py')['graph_module']; print(gm.code); print(gm.body_graph_0.code); x = torch.tensor([1.0, -2.0, 3.0]); print(gm(x, torch.tensor(True)).tolist(), gm(x, torch.tensor(False)).tolist())" | FileCheck %s --check-prefix=RUN-PY

// JSON:      "nodes": [
// JSON:      {"op": "call_function", "name": "loop", "target": "fx_mlir.for_loop", "args": {"tuple": [{"node": "size"}, {"node": "body_graph_0"}, {"tuple": [{"node": "getitem"}, 0]}, {"tuple": []}]}, "kwargs": {"dict": []}, "type": "tuple<tensor<3xf32>, i64>"}
// JSON:      "graphs": [
// JSON-NEXT: {"name": "true_graph_0",
// JSON:      {"name": "body_graph_0",

// RUN-PY:      def forward(self, x, p):
// RUN-PY:        cond = fx_mlir_control_flow_cond(p, true_graph_0, false_graph_0, (x,))
// RUN-PY:        loop = fx_mlir_control_flow_for_loop(size, body_graph_0, (getitem, 0), ())
// RUN-PY:      def forward(self, i, h, t):
// RUN-PY:        tanh = torch.ops.aten.tanh.default(h)
// The cond takes the true branch (relu), then 3 tanh steps; or sigmoid.
// RUN-PY:      [0.5662{{[0-9]*}}, 0.0, 0.6407{{[0-9]*}}] [0.5032{{[0-9]*}}, 0.1175{{[0-9]*}}, 0.5578{{[0-9]*}}]

fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<3xf32>
    %p = fx.placeholder "p" : tensor<i1>
    %true_graph_0 = fx.get_attr @true_graph_0 : !fx.any
    %false_graph_0 = fx.get_attr @false_graph_0 : !fx.any
    %cond = fx.call_function "torch.ops.higher_order.cond"(%p, %true_graph_0, %false_graph_0, (%x,)) : (tensor<i1>, !fx.any, !fx.any, tensor<3xf32>) -> tuple<tensor<3xf32>>
    %getitem = fx.call_function "operator.getitem"(%cond, 0) : (tuple<tensor<3xf32>>) -> tensor<3xf32>
    %size = fx.call_function "aten::size.int"(%x, 0) : (tensor<3xf32>) -> i64
    %body_graph_0 = fx.get_attr @body_graph_0 : !fx.any
    %loop = fx.call_function "fx_mlir.for_loop"(%size, %body_graph_0, (%getitem, 0), ()) : (i64, !fx.any, tensor<3xf32>) -> tuple<tensor<3xf32>, i64>
    %getitem_1 = fx.call_function "operator.getitem"(%loop, 0) : (tuple<tensor<3xf32>, i64>) -> tensor<3xf32>
    fx.output %getitem_1 : tensor<3xf32>
  }
  fx.graph @true_graph_0 {
    %x = fx.placeholder "x" : tensor<3xf32>
    %relu = fx.call_function "aten::relu"(%x) : (tensor<3xf32>) -> tensor<3xf32>
    fx.output (%relu,) : tensor<3xf32>
  }
  fx.graph @false_graph_0 {
    %x = fx.placeholder "x" : tensor<3xf32>
    %sigmoid = fx.call_function "aten::sigmoid"(%x) : (tensor<3xf32>) -> tensor<3xf32>
    fx.output (%sigmoid,) : tensor<3xf32>
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
