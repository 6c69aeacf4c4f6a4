fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x5xf32>
    // Line 5 calls a submodule that is not declared.
    %conv = fx.call_module @conv(%x) : (tensor<1x5xf32>) -> tensor<1x5xf32>
    fx.output %conv : tensor<1x5xf32>
  }
}
