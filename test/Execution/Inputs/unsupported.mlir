// A graph with an operator convert-fx-to-linalg does not lower (sort).
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x3xf32>
    %sort = fx.call_function "aten::sort"(%x, -1, False) : (tensor<2x3xf32>) -> tuple<tensor<2x3xf32>, tensor<2x3xi64>> loc("sort"("block"("model.py":3:1)))
    %values = fx.call_function "operator.getitem"(%sort, 0) : (tuple<tensor<2x3xf32>, tensor<2x3xi64>>) -> tensor<2x3xf32>
    fx.output %values : tensor<2x3xf32>
  }
}
