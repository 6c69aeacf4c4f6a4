// A graph with an operator convert-fx-to-linalg does not lower (a move to
// a device).
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x1x2x3xf32>
    %to = fx.call_function "aten::to.device"(%x, "cpu", 6, False, False, None) : (tensor<1x1x2x3xf32>) -> tensor<1x1x2x3xf32> loc("to"("block"("model.py":3:1)))
    fx.output %to : tensor<1x1x2x3xf32>
  }
}
