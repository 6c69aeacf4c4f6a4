// A graph with an operator convert-fx-to-linalg does not lower (a Bessel
// function).
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x1x2x3xf32>
    %j0 = fx.call_function "aten::special_bessel_j0"(%x) : (tensor<1x1x2x3xf32>) -> tensor<1x1x2x3xf32> loc("j0"("block"("model.py":3:1)))
    fx.output %j0 : tensor<1x1x2x3xf32>
  }
}
