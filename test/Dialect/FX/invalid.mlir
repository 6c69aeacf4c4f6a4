// RUN: fx-opt %s -split-input-file -verify-diagnostics

// Verifier errors of the fx ops and attributes. Cases that the custom syntax
// cannot express use the generic form.

//===----------------------------------------------------------------------===//
// fx.graph
//===----------------------------------------------------------------------===//

fx.graph @g {
  // expected-note @+1 {{first used by placeholder 'x'}}
  %x = fx.placeholder "x" : !fx.any
  // expected-error @+1 {{'fx.call_function' op node name 'x' is already used in graph 'g'}}
  %y = fx.call_function "torch.relu"(%x) {node_name = "x"} : (!fx.any) -> !fx.any
  fx.output %y : !fx.any
}

// -----

fx.graph @g {
  %x = fx.placeholder "x" : !fx.any
  %relu = fx.call_function "torch.relu"(%x) : (!fx.any) -> !fx.any
  // expected-error @+1 {{'fx.placeholder' op placeholder 'y' must come before all other nodes, but follows call_function 'relu'}}
  %y = fx.placeholder "y" : !fx.any
  fx.output %relu : !fx.any
}

// -----

// expected-error @+1 {{'fx.graph' op graph 'g' has no fx.output node}}
fx.graph @g {
  %x = fx.placeholder "x" : !fx.any
}

// -----

fx.graph @g {
  %x = fx.placeholder "x" : !fx.any
  // expected-error @+1 {{'fx.output' op must be the last node of graph 'g', but call_function 'relu' follows it}}
  fx.output %x : !fx.any
  %relu = fx.call_function "torch.relu"(%x) : (!fx.any) -> !fx.any
}

// -----

fx.graph @g {
  // expected-error @+1 {{'fx.output' op must be the last node of graph 'g', but output 'output2' follows it}}
  fx.output None
  fx.output None {node_name = "output2"}
}

// -----

fx.graph @g {
  // expected-error @+1 {{'arith.constant' op is not an FX node; graph 'g' holds only fx node ops}}
  %c = arith.constant 0 : i64
  fx.output None
}

// -----

fx.graph_module @M {
  fx.graph @forward {
    // expected-error @+1 {{'fx.state' op expects parent op 'fx.graph_module'}}
    fx.state parameter @w : tensor<2xf32>
    fx.output None
  }
}

// -----

// expected-error @+1 {{'fx.placeholder' op expects parent op 'fx.graph'}}
%x = fx.placeholder "x" : !fx.any

// -----

//===----------------------------------------------------------------------===//
// fx.graph_module
//===----------------------------------------------------------------------===//

fx.graph_module @M {
  // expected-error @+1 {{'func.func' op is not allowed in graph module 'M', which holds only fx.state, fx.submodule and fx.graph}}
  func.func @f() {
    return
  }
  fx.graph @forward {
    fx.output None
  }
}

// -----

// expected-error @+1 {{'fx.graph_module' op graph module 'M' has no 'forward' graph}}
fx.graph_module @M {
  fx.graph @main {
    fx.output None
  }
}

// -----

// A symbol named forward that is not a graph is no forward graph.

// expected-error @+1 {{'fx.graph_module' op graph module 'M' has no 'forward' graph}}
fx.graph_module @M {
  fx.state parameter @forward : tensor<2xf32>
  fx.graph @main {
    fx.output None
  }
}

// -----

fx.graph_module @M {
  // expected-error @+1 {{'fx.graph' op graph 'backward' comes before 'forward'; 'forward' must be the first graph of graph module 'M'}}
  fx.graph @backward {
    fx.output None
  }
  fx.graph @forward {
    fx.output None
  }
}

// -----

//===----------------------------------------------------------------------===//
// Node args and kwargs
//===----------------------------------------------------------------------===//

fx.graph @g {
  %x = fx.placeholder "x" : !fx.any
  // expected-error @+1 {{'fx.call_function' op node 'f': args refer to node operand #1, but the node has 1 operand}}
  %f = "fx.call_function"(%x) <{args = [#fx.node<0>, #fx.list<[#fx.node<1>]>], kwargs = #fx.dict<>, node_name = "f", target = "f"}> : (!fx.any) -> !fx.any
  fx.output %f : !fx.any
}

// -----

fx.graph @g {
  // expected-error @+1 {{'fx.call_function' op node 'f': args refer to node operand #0, but the node has 0 operands}}
  %f = "fx.call_function"() <{args = [], kwargs = #fx.dict<"k" = #fx.node<0>>, node_name = "f", target = "f"}> : () -> !fx.any
  fx.output %f : !fx.any
}

// -----

fx.graph @g {
  %x = fx.placeholder "x" : !fx.any
  %y = fx.placeholder "y" : !fx.any
  // expected-error @+1 {{'fx.call_function' op node 'f': operand #1 is not referenced by args or kwargs}}
  %f = "fx.call_function"(%x, %y) <{args = [#fx.node<0>], kwargs = #fx.dict<>, node_name = "f", target = "f"}> : (!fx.any, !fx.any) -> !fx.any
  fx.output %f : !fx.any
}

// -----

fx.graph @g {
  %x = fx.placeholder "x" : !fx.any
  // expected-error @+1 {{'fx.output' op node 'output': args refer to node operand #1, but the node has 1 operand}}
  "fx.output"(%x) <{args = [#fx.tuple<[#fx.node<0>, #fx.node<1>]>], node_name = "output"}> : (!fx.any) -> ()
}

// -----

fx.graph @g {
  %x = fx.placeholder "x" : !fx.any
  // expected-error @+1 {{'fx.output' op node 'output': operand #0 is not referenced by args or kwargs}}
  "fx.output"(%x) <{args = [#fx.none], node_name = "output"}> : (!fx.any) -> ()
}

// -----

fx.graph @g {
  // expected-error @+1 {{'fx.call_function' op node 'f': args[1] holds 1 : i32, which is not a value FX allows}}
  %f = "fx.call_function"() <{args = [1, 1 : i32], kwargs = #fx.dict<>, node_name = "f", target = "f"}> : () -> !fx.any
  fx.output %f : !fx.any
}

// -----

fx.graph @g {
  // expected-error @+1 {{'fx.call_function' op node 'f': args[0] holds 1.000000e+00 : f32, which is not a value FX allows}}
  %f = "fx.call_function"() <{args = [1.0 : f32], kwargs = #fx.dict<>, node_name = "f", target = "f"}> : () -> !fx.any
  fx.output %f : !fx.any
}

// -----

fx.graph @g {
  // expected-error @+1 {{'fx.call_function' op node 'f': args[0] holds dense<1.000000e+00> : tensor<2xf32>, which is not a value FX allows}}
  %f = "fx.call_function"() <{args = [dense<1.0> : tensor<2xf32>], kwargs = #fx.dict<>, node_name = "f", target = "f"}> : () -> !fx.any
  fx.output %f : !fx.any
}

// -----

// A builtin array is not an FX list or tuple, even inside one.

fx.graph @g {
  // expected-error @+1 {{'fx.call_function' op node 'f': args[0] holds #fx.list<[1 : i64, [2]]>, which is not a value FX allows}}
  %f = "fx.call_function"() <{args = [#fx.list<[1, [2]]>], kwargs = #fx.dict<>, node_name = "f", target = "f"}> : () -> !fx.any
  fx.output %f : !fx.any
}

// -----

fx.graph @g {
  // expected-error @+1 {{'fx.call_function' op node 'f': kwargs['k'] holds unit, which is not a value FX allows}}
  %f = "fx.call_function"() <{args = [], kwargs = #fx.dict<"k" = unit>, node_name = "f", target = "f"}> : () -> !fx.any
  fx.output %f : !fx.any
}

// -----

fx.graph @g {
  // expected-error @+1 {{'fx.call_function' op node 'f': args[0] holds #fx.slice<1 : i64, @sym, #fx.none>, which is not a value FX allows}}
  %f = "fx.call_function"() <{args = [#fx.slice<1, @sym, #fx.none>], kwargs = #fx.dict<>, node_name = "f", target = "f"}> : () -> !fx.any
  fx.output %f : !fx.any
}

// -----

fx.graph @g {
  // expected-error @+1 {{'fx.call_function' op node 'f': kwargs key 0 : i64 is not a str}}
  %f = "fx.call_function"() <{args = [], kwargs = #fx.dict<0 = 1>, node_name = "f", target = "f"}> : () -> !fx.any
  fx.output %f : !fx.any
}

// -----

fx.graph @g {
  // expected-error @+1 {{'fx.call_function' op has an empty node name}}
  %f = "fx.call_function"() <{args = [], kwargs = #fx.dict<>, node_name = "", target = "f"}> : () -> !fx.any
  fx.output %f : !fx.any
}

// -----

// A node's name is its result's SSA name; a node without one has none.

fx.graph @g {
  // expected-error @+1 {{'fx.call_function' op has an empty node name}}
  fx.call_function "f"() : () -> !fx.any
  fx.output None
}

// -----

fx.graph @g {
  // expected-error @+1 {{'fx.call_function' op node 'f' has an empty target}}
  %f = fx.call_function ""() : () -> !fx.any
  fx.output %f : !fx.any
}

// -----

fx.graph @g {
  // expected-error @+1 {{'fx.placeholder' op node 'x' has an empty target}}
  %x = fx.placeholder "" : !fx.any
  fx.output %x : !fx.any
}

// -----

fx.graph @g {
  // expected-error @+1 {{'fx.output' op has an empty node name}}
  fx.output None {node_name = ""}
}

// -----

//===----------------------------------------------------------------------===//
// Node kinds
//===----------------------------------------------------------------------===//

fx.graph @g {
  // expected-error @+1 {{'fx.call_method' op call_method 'm' has no args; its first arg is the object the method 'size' is called on}}
  %m = fx.call_method "size"() : () -> !fx.any
  fx.output %m : !fx.any
}

// -----

fx.graph @g {
  // expected-error @+1 {{'fx.call_method' op call_method 'm' has no args}}
  %m = fx.call_method "size"(dim=0) : () -> !fx.any
  fx.output %m : !fx.any
}

// -----

fx.graph @g {
  %x = fx.placeholder "x" : !fx.any
  // expected-error @+1 {{'fx.output' op output 'output' must have exactly one arg (the returned value), found 2}}
  "fx.output"(%x) <{args = [#fx.node<0>, #fx.none], node_name = "output"}> : (!fx.any) -> ()
}

// -----

fx.graph @g {
  // expected-error @+1 {{'fx.output' op output 'output' must have exactly one arg (the returned value), found 0}}
  "fx.output"() <{args = [], node_name = "output"}> : () -> ()
}

// -----

// A placeholder's default is its only arg, checked like any node's args:
// it can refer to no node, as a placeholder has no operands.

fx.graph @g {
  // expected-error @+1 {{'fx.placeholder' op placeholder 'x': default value #fx.node<0> is not a constant FX value}}
  %x = "fx.placeholder"() <{default_value = #fx.node<0>, node_name = "x", target = "x"}> : () -> !fx.any
  fx.output %x : !fx.any
}

// -----

fx.graph @g {
  // expected-error @+1 {{'fx.placeholder' op placeholder 'x': default value #fx.list<[1 : i64, #fx.node<0>]> is not a constant FX value}}
  %x = "fx.placeholder"() <{default_value = #fx.list<[1, #fx.node<0>]>, node_name = "x", target = "x"}> : () -> !fx.any
  fx.output %x : !fx.any
}

// -----

fx.graph @g {
  // expected-error @+1 {{'fx.placeholder' op placeholder 'x': default value 1 : i32 is not a constant FX value}}
  %x = "fx.placeholder"() <{default_value = 1 : i32, node_name = "x", target = "x"}> : () -> !fx.any
  fx.output %x : !fx.any
}

// -----

//===----------------------------------------------------------------------===//
// get_attr and call_module targets
//===----------------------------------------------------------------------===//

fx.graph_module @M {
  fx.state parameter @"fc.weight" : tensor<4x8xf32>
  fx.graph @forward {
    // expected-error @+1 {{'fx.get_attr' op get_attr 'w' refers to 'fc.bias', which is not a parameter, buffer, constant, submodule or graph (other than 'forward') of graph module 'M'}}
    %w = fx.get_attr @"fc.bias" : tensor<4xf32>
    fx.output %w : tensor<4xf32>
  }
}

// -----

// Another graph may be read (control flow's branches), `forward` not.
fx.graph_module @M {
  fx.graph @forward {
    // expected-error @+1 {{'fx.get_attr' op get_attr 'g' refers to 'forward', which is not a parameter, buffer, constant, submodule or graph (other than 'forward') of graph module 'M'}}
    %g = fx.get_attr @forward : !fx.any
    fx.output %g : !fx.any
  }
  fx.graph @helper {
    fx.output None
  }
}

// -----

fx.graph_module @M {
  fx.state parameter @"fc.weight" : tensor<4x8xf32>
  fx.graph @forward {
    // expected-error @+1 {{'fx.get_attr' op get_attr 'w' has type 'tensor<8x4xf32>' but 'fc.weight' is 'tensor<4x8xf32>'}}
    %w = fx.get_attr @"fc.weight" : tensor<8x4xf32>
    fx.output %w : tensor<8x4xf32>
  }
}

// -----

fx.graph_module @M {
  fx.submodule @fc "torch.nn.Linear"(in_features=8, out_features=4)
  fx.graph @forward {
    %x = fx.placeholder "x" : !fx.any
    // expected-error @+1 {{'fx.call_module' op call_module 'conv' refers to 'conv', which is not a submodule of graph module 'M'}}
    %conv = fx.call_module @conv(%x) : (!fx.any) -> !fx.any
    fx.output %conv : !fx.any
  }
}

// -----

fx.graph_module @M {
  fx.state parameter @"fc.weight" : tensor<4x8xf32>
  fx.graph @forward {
    %x = fx.placeholder "x" : !fx.any
    // expected-error @+1 {{'fx.call_module' op call_module 'w' refers to 'fc.weight', which is not a submodule of graph module 'M'}}
    %w = fx.call_module @"fc.weight"(%x) : (!fx.any) -> !fx.any
    fx.output %w : !fx.any
  }
}

// -----

fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : !fx.any
    // expected-error @+1 {{'fx.call_module' op call_module 'f' refers to 'forward', which is not a submodule of graph module 'M'}}
    %f = fx.call_module @forward(%x) : (!fx.any) -> !fx.any
    fx.output %f : !fx.any
  }
}

// -----

//===----------------------------------------------------------------------===//
// fx.state
//===----------------------------------------------------------------------===//

fx.graph_module @M {
  // expected-error @+1 {{'fx.state' op state 'w' is declared 'tensor<4xf32>' but its value is 'tensor<2xf32>'}}
  "fx.state"() <{kind = #fx<state_kind parameter>, sym_name = "w", type = tensor<4xf32>, value = dense<1.0> : tensor<2xf32>}> : () -> ()
  fx.graph @forward {
    fx.output None
  }
}

// -----

fx.graph_module @M {
  fx.state parameter @a : tensor<2xf32>
  // expected-error @+1 {{'fx.state' op state 'w' has both a value and an alias}}
  "fx.state"() <{alias = @a, kind = #fx<state_kind parameter>, sym_name = "w", type = tensor<2xf32>, value = dense<1.0> : tensor<2xf32>}> : () -> ()
  fx.graph @forward {
    fx.output None
  }
}

// -----

fx.graph_module @M {
  // expected-error @+1 {{'fx.state' op state 'w' must be a tensor, found 'f32'}}
  fx.state parameter @w : f32
  fx.graph @forward {
    fx.output None
  }
}

// -----

fx.graph_module @M {
  // expected-error @+1 {{'fx.state' op state 'w' must be a tensor, found '!fx.any'}}
  fx.state buffer @w : !fx.any
  fx.graph @forward {
    fx.output None
  }
}

// -----

fx.graph_module @M {
  // expected-error @+1 {{'fx.state' op state 'dec.weight' aliases @enc.weight, which is not state of the module}}
  fx.state parameter @"dec.weight" : tensor<2xf32> = @"enc.weight"
  fx.graph @forward {
    fx.output None
  }
}

// -----

fx.graph_module @M {
  fx.submodule @enc "torch.nn.Linear"(in_features=2, out_features=2)
  // expected-error @+1 {{'fx.state' op state 'dec' aliases @enc, which is not state of the module}}
  fx.state parameter @dec : tensor<2xf32> = @enc
  fx.graph @forward {
    fx.output None
  }
}

// -----

fx.graph_module @M {
  fx.state parameter @a : tensor<2xf32>
  fx.state parameter @b : tensor<2xf32> = @a
  // expected-error @+1 {{'fx.state' op state 'c' aliases @b, which is itself an alias}}
  fx.state parameter @c : tensor<2xf32> = @b
  fx.graph @forward {
    fx.output None
  }
}

// -----

fx.graph_module @M {
  // expected-error @+1 {{'fx.state' op state 'a' aliases @a, which is itself an alias}}
  fx.state parameter @a : tensor<2xf32> = @a
  fx.graph @forward {
    fx.output None
  }
}

// -----

fx.graph_module @M {
  fx.state parameter @a : tensor<2xf32>
  // expected-error @+1 {{'fx.state' op state 'b' is declared 'tensor<3xf32>' but aliases @a of type 'tensor<2xf32>'}}
  fx.state parameter @b : tensor<3xf32> = @a
  fx.graph @forward {
    fx.output None
  }
}

// -----

fx.graph_module @M {
  // expected-error @+1 {{'fx.state' op has an empty name}}
  fx.state parameter @"" : tensor<2xf32>
  fx.graph @forward {
    fx.output None
  }
}

// -----

// expected-error @+1 {{'fx.state' op expects parent op 'fx.graph_module'}}
fx.state parameter @w : tensor<2xf32>

// -----

//===----------------------------------------------------------------------===//
// fx.submodule
//===----------------------------------------------------------------------===//

fx.graph_module @M {
  // expected-error @+1 {{'fx.submodule' op submodule 'fc' has an empty module type}}
  fx.submodule @fc ""()
  fx.graph @forward {
    fx.output None
  }
}

// -----

fx.graph_module @M {
  // expected-error @+1 {{'fx.submodule' op has an empty name}}
  fx.submodule @"" "torch.nn.ReLU"()
  fx.graph @forward {
    fx.output None
  }
}

// -----

fx.graph_module @M {
  // expected-error @+1 {{'fx.submodule' op submodule 'fc': hyperparameter 'bias' is not a constant FX value}}
  "fx.submodule"() <{hparams = #fx.dict<"in_features" = 8, "bias" = #fx.node<0>>, module_type = "torch.nn.Linear", sym_name = "fc"}> : () -> ()
  fx.graph @forward {
    fx.output None
  }
}

// -----

fx.graph_module @M {
  // expected-error @+1 {{'fx.submodule' op submodule 'fc': hyperparameter 'in_features' is not a constant FX value}}
  "fx.submodule"() <{hparams = #fx.dict<"in_features" = 8 : i32>, module_type = "torch.nn.Linear", sym_name = "fc"}> : () -> ()
  fx.graph @forward {
    fx.output None
  }
}

// -----

fx.graph_module @M {
  // expected-error @+1 {{'fx.submodule' op submodule 'fc': hyperparameter name 1 : i64 is not a str}}
  "fx.submodule"() <{hparams = #fx.dict<1 = 8>, module_type = "torch.nn.Linear", sym_name = "fc"}> : () -> ()
  fx.graph @forward {
    fx.output None
  }
}

// -----

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

fx.graph @g {
  // expected-error @+1 {{unknown torch.dtype 'torch.float128'}}
  %f = "fx.call_function"() <{args = [#fx.dtype<float128>], kwargs = #fx.dict<>, node_name = "f", target = "f"}> : () -> !fx.any
  fx.output %f : !fx.any
}

// -----

// Aliases are resolved by the node syntax only; the attribute holds the
// canonical name.

fx.graph @g {
  // expected-error @+1 {{unknown torch.dtype 'torch.float'}}
  %f = "fx.call_function"() <{args = [#fx.dtype<float>], kwargs = #fx.dict<>, node_name = "f", target = "f"}> : () -> !fx.any
  fx.output %f : !fx.any
}

// -----

fx.graph @g {
  // expected-error @+1 {{unknown torch.memory_format 'torch.channels_first'}}
  %f = "fx.call_function"() <{args = [#fx.memory_format<channels_first>], kwargs = #fx.dict<>, node_name = "f", target = "f"}> : () -> !fx.any
  fx.output %f : !fx.any
}

// -----

fx.graph @g {
  // expected-error @+1 {{unknown torch.layout 'torch.dense'}}
  %f = "fx.call_function"() <{args = [#fx.layout<"dense">], kwargs = #fx.dict<>, node_name = "f", target = "f"}> : () -> !fx.any
  fx.output %f : !fx.any
}

// -----

fx.graph @g {
  // expected-error @+1 {{duplicate dict key "dim"}}
  %f = "fx.call_function"() <{args = [], kwargs = #fx.dict<"dim" = 1, "dim" = 2>, node_name = "f", target = "f"}> : () -> !fx.any
  fx.output %f : !fx.any
}

// -----

fx.graph @g {
  // expected-error @+1 {{duplicate dict key 1 : i64}}
  %f = "fx.call_function"() <{args = [#fx.dict<1 = "a", 1 = "b">], kwargs = #fx.dict<>, node_name = "f", target = "f"}> : () -> !fx.any
  fx.output %f : !fx.any
}

// -----

fx.graph @g {
  // expected-error @+1 {{dict key 1.000000e+00 : f64 is not a str or an int}}
  %f = "fx.call_function"() <{args = [#fx.dict<1.0 = "a">], kwargs = #fx.dict<>, node_name = "f", target = "f"}> : () -> !fx.any
  fx.output %f : !fx.any
}

// -----

fx.graph @g {
  // expected-error @+1 {{dict key true is not a str or an int}}
  %f = "fx.call_function"() <{args = [#fx.dict<true = "a">], kwargs = #fx.dict<>, node_name = "f", target = "f"}> : () -> !fx.any
  fx.output %f : !fx.any
}

// -----

fx.graph @g {
  // expected-error @+1 {{dict key 1 : i32 is not a str or an int}}
  %f = "fx.call_function"() <{args = [], kwargs = #fx.dict<"a" = #fx.dict<1 : i32 = "a">>, node_name = "f", target = "f"}> : () -> !fx.any
  fx.output %f : !fx.any
}

// -----

fx.graph @g {
  // expected-error @+1 {{dict key #fx.none is not a str or an int}}
  %f = "fx.call_function"() <{args = [#fx.dict<#fx.none = "a">], kwargs = #fx.dict<>, node_name = "f", target = "f"}> : () -> !fx.any
  fx.output %f : !fx.any
}

// -----

fx.graph_module @M {
  // expected-error @+1 {{Invalid attribute `kind` in property conversion: 7 : i32}}
  "fx.state"() <{kind = 7 : i32, sym_name = "w", type = tensor<2xf32>}> : () -> ()
  fx.graph @forward {
    fx.output None
  }
}
