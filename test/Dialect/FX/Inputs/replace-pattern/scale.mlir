// fx-replace-pattern input, graph modules: the replacement reads the state
// @scale, which the rewritten graph module must have.

fx.graph_module @pattern {
  fx.graph @forward {
    %x = fx.placeholder "x" : !fx.any
    %mul = fx.call_function "operator.mul"(%x, 2.0) : (!fx.any) -> !fx.any
    fx.output %mul : !fx.any
  }
}
fx.graph_module @replacement {
  fx.state buffer @scale : tensor<f32>
  fx.graph @forward {
    %x = fx.placeholder "x" : !fx.any
    %scale = fx.get_attr @scale : tensor<f32>
    %mul = fx.call_function "operator.mul"(%x, %scale) : (!fx.any, tensor<f32>) -> !fx.any
    fx.output %mul : !fx.any
  }
}
