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

// -----

fx.graph @forward {
  %x = fx.placeholder "x" : !fx.any
  // expected-error @+1 {{invalid torch.device ''}}
  %to = fx.call_method "to"(%x, device("")) : (!fx.any) -> !fx.any
  fx.output %to : !fx.any
}

// -----

fx.graph @forward {
  %x = fx.placeholder "x" : !fx.any
  // expected-error @+1 {{the index must be a non-negative integer}}
  %to = fx.call_method "to"(%x, device("cuda:x")) : (!fx.any) -> !fx.any
  fx.output %to : !fx.any
}

// -----

fx.graph @forward {
  %x = fx.placeholder "x" : !fx.any
  // expected-error @+1 {{expected an FX value, found 'foo'}}
  %f = fx.call_function "f"(%x, foo) : (!fx.any) -> !fx.any
  fx.output %f : !fx.any
}
