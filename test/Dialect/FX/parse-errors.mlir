// RUN: fx-opt %s -split-input-file -verify-diagnostics

// Errors of the custom syntax: the parser rejects these before any verifier
// runs.

fx.graph @g {
  %x = fx.placeholder "x" : !fx.any
  // expected-error @+1 {{positional argument follows keyword argument}}
  %a = fx.call_function "f"(dim=1, %x) : (!fx.any) -> !fx.any
  fx.output %a : !fx.any
}

// -----

fx.graph @g {
  // expected-error @+1 {{positional argument follows keyword argument}}
  %a = fx.call_function "f"(dim=1, None) : () -> !fx.any
  fx.output %a : !fx.any
}

// -----

fx.graph @g {
  // expected-error @+1 {{keyword argument 'dim' repeated}}
  %a = fx.call_function "f"(dim=1, keepdim=True, dim=2) : () -> !fx.any
  fx.output %a : !fx.any
}

// -----

fx.graph @g {
  // expected-error @+1 {{unknown torch value 'torch.float128'}}
  %a = fx.call_function "f"(torch.float128) : () -> !fx.any
  fx.output %a : !fx.any
}

// -----

fx.graph @g {
  // expected-error @+1 {{unknown torch value 'torch.Float'}}
  %a = fx.call_function "f"([1, torch.Float]) : () -> !fx.any
  fx.output %a : !fx.any
}

// -----

fx.graph @g {
  // expected-error @+1 {{integer does not fit in 64 bits}}
  %a = fx.call_function "f"(9223372036854775808) : () -> !fx.any
  fx.output %a : !fx.any
}

// -----

fx.graph @g {
  // expected-error @+1 {{integer does not fit in 64 bits}}
  %a = fx.call_function "f"(-9223372036854775809) : () -> !fx.any
  fx.output %a : !fx.any
}

// -----

fx.graph @g {
  // expected-error @+1 {{integer does not fit in 64 bits}}
  %a = fx.call_function "f"([100000000000000000000000]) : () -> !fx.any
  fx.output %a : !fx.any
}

// -----

// Python spells its keywords with a capital letter.

fx.graph @g {
  // expected-error @+1 {{expected an FX value, found 'true'}}
  %a = fx.call_function "f"(true) : () -> !fx.any
  fx.output %a : !fx.any
}

// -----

fx.graph @g {
  // expected-error @+1 {{expected an FX value, found 'none'}}
  %a = fx.call_function "f"([none]) : () -> !fx.any
  fx.output %a : !fx.any
}

// -----

fx.graph @g {
  // expected-error @+1 {{expected a str or int dict key}}
  %a = fx.call_function "f"({None: 1}) : () -> !fx.any
  fx.output %a : !fx.any
}

// -----

fx.graph @g {
  // expected-error @+1 {{duplicate dict key "a"}}
  %a = fx.call_function "f"({"a": 1, "a": 2}) : () -> !fx.any
  fx.output %a : !fx.any
}

// -----

fx.graph @g {
  // expected-error @+1 {{expected ','}}
  %a = fx.call_function "f"(slice(1, 2)) : () -> !fx.any
  fx.output %a : !fx.any
}

// -----

fx.graph @g {
  // expected-error @+1 {{expected string}}
  %a = fx.call_function "f"(device(cpu)) : () -> !fx.any
  fx.output %a : !fx.any
}

// -----

fx.graph @g {
  // expected-error @+1 {{expected integer value}}
  %a = fx.call_function "f"(torch.Size([1.5])) : () -> !fx.any
  fx.output %a : !fx.any
}

// -----

fx.graph @g {
  // expected-error @+1 {{expected ','}}
  %a = fx.call_function "f"(complex(1.0)) : () -> !fx.any
  fx.output %a : !fx.any
}

// -----

fx.graph @g {
  // expected-error @+1 {{expected floating point literal}}
  %a = fx.call_function "f"(complex("1", 2.0)) : () -> !fx.any
  fx.output %a : !fx.any
}

// -----

fx.graph_module @M {
  // expected-error @+1 {{node references are not allowed here}}
  fx.submodule @fc "torch.nn.Linear"(in_features=%x) attributes {}
  fx.graph @forward {
    fx.output None
  }
}

// -----

fx.graph_module @M {
  // expected-error @+1 {{submodule hyperparameters must be given as name=value}}
  fx.submodule @fc "torch.nn.Linear"(8, 4)
  fx.graph @forward {
    fx.output None
  }
}

// -----

fx.graph @g {
  %x = fx.placeholder "x" : !fx.any
  // expected-error @+1 {{a placeholder default cannot refer to a node}}
  %y = fx.placeholder "y" = [%x] : !fx.any
  fx.output %y : !fx.any
}

// -----

fx.graph_module @M {
  // expected-error @+1 {{expected 'parameter', 'buffer' or 'constant', found 'weight'}}
  fx.state weight @w : tensor<2xf32>
  fx.graph @forward {
    fx.output None
  }
}

// -----

fx.graph_module @M {
  // expected-error @+1 {{state value type 'tensor<3xf32>' differs from the declared type 'tensor<2xf32>'}}
  fx.state parameter @w : tensor<2xf32> = dense<1.0> : tensor<3xf32>
  fx.graph @forward {
    fx.output None
  }
}

// -----

fx.graph_module @M {
  // expected-error @+1 {{expected an elements attribute}}
  fx.state parameter @w : tensor<2xf32> = "abc"
  fx.graph @forward {
    fx.output None
  }
}

// -----

fx.graph @g {
  // expected-error @+1 {{an FX node has exactly one result}}
  %a:2 = fx.call_function "f"() : () -> (!fx.any, !fx.any)
  fx.output None
}

// -----

fx.graph @g {
  // expected-error @+1 {{an FX node has exactly one result}}
  fx.call_method "add_"() : () -> ()
  fx.output None
}

// -----

fx.graph @g {
  %x = fx.placeholder "x" : !fx.any
  // expected-error @+1 {{number of operands and types do not match: got 1 operands and 0 types}}
  %a = fx.call_function "f"(%x) : () -> !fx.any
  fx.output %a : !fx.any
}

// -----

fx.graph @g {
  %x = fx.placeholder "x" : !fx.any
  // expected-error @+1 {{fx.output refers to 1 node but lists 2 types}}
  fx.output %x : !fx.any, !fx.any
}

// -----

fx.graph @g {
  %x = fx.placeholder "x" : !fx.any
  // expected-error @+1 {{fx.output refers to 1 node but lists 0 types}}
  fx.output %x {node_name = "output"}
}

// -----

fx.graph @g {
  // expected-error @+1 {{expected string}}
  %a = fx.call_function torch.relu(1) : () -> !fx.any
  fx.output %a : !fx.any
}

// -----

fx.graph @g {
  // expected-error @+1 {{expected ':'}}
  %x = fx.placeholder "x" {node_name = "x"}
  fx.output None
}

// -----

// Values nest at most 200 levels deep (found by fuzz-parse: deeper, the
// parser recursed until the stack ran out); 150 levels parse.
fx.graph @g {
  %a = fx.call_function "f"([[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]) : () -> !fx.any
  // expected-error @+1 {{FX values nested deeper than 200 levels}}
  %b = fx.call_function "f"([[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]) : () -> !fx.any
  fx.output None
}
