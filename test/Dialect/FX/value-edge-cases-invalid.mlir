// RUN: fx-opt %s -split-input-file -verify-diagnostics

fx.graph_module @M {
  // expected-error @+1 {{state value type 'tensor<3xf32>' differs from the declared type 'tensor<2xf32>'}}
  fx.state parameter @w : tensor<2xf32> = dense<1.0> : tensor<3xf32>
}

// -----

fx.graph @forward {
  // expected-error @+1 {{dict key true is not a str or an int}}
  %x = "fx.placeholder"() <{node_name = "x", target = "x", default_value = #fx.dict<true = 1>}> : () -> !fx.any
  fx.output %x : !fx.any
}
