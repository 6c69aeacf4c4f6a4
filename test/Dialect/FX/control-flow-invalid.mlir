// RUN: fx-opt %s -split-input-file -verify-diagnostics

// Verifier errors of the control-flow calls (ControlFlow.h): the args,
// the graphs they name and the signatures of those graphs.

fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<4xf32>
    %p = fx.placeholder "p" : i1
    %t = fx.get_attr @t : !fx.any
    // expected-error @+1 {{call_function 'cond' (torch.ops.higher_order.cond): takes (pred, true_graph, false_graph, operands)}}
    %cond = fx.call_function "torch.ops.higher_order.cond"(%p, %t, (%x,)) : (i1, !fx.any, tensor<4xf32>) -> tuple<tensor<4xf32>>
    fx.output %cond : tuple<tensor<4xf32>>
  }
  fx.graph @t {
    %x = fx.placeholder "x" : tensor<4xf32>
    fx.output (%x,) : tensor<4xf32>
  }
}

// -----

fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<4xf32>
    %t = fx.get_attr @t : !fx.any
    // expected-error @+1 {{the predicate must be a bool or an int, or a 0-d tensor of one}}
    %cond = fx.call_function "torch.ops.higher_order.cond"(%x, %t, %t, (%x,)) : (tensor<4xf32>, !fx.any, !fx.any, tensor<4xf32>) -> tuple<tensor<4xf32>>
    fx.output %cond : tuple<tensor<4xf32>>
  }
  fx.graph @t {
    %x = fx.placeholder "x" : tensor<4xf32>
    fx.output (%x,) : tensor<4xf32>
  }
}

// -----

fx.graph_module @M {
  fx.state parameter @w : tensor<4xf32>
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<4xf32>
    %p = fx.placeholder "p" : i1
    %w = fx.get_attr @w : tensor<4xf32>
    // expected-error @+1 {{the true graph must be a get_attr node of a graph of the graph module}}
    %cond = fx.call_function "torch.ops.higher_order.cond"(%p, %w, %w, (%x,)) : (i1, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tuple<tensor<4xf32>>
    fx.output %cond : tuple<tensor<4xf32>>
  }
}

// -----

fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<4xf32>
    %p = fx.placeholder "p" : i1
    %t = fx.get_attr @t : !fx.any
    %f = fx.get_attr @f : !fx.any
    // expected-error @+1 {{the false graph 'f': input 0 ('x') has type tensor<5xf32>, the call passes tensor<4xf32>}}
    %cond = fx.call_function "torch.ops.higher_order.cond"(%p, %t, %f, (%x,)) : (i1, !fx.any, !fx.any, tensor<4xf32>) -> tuple<tensor<4xf32>>
    fx.output %cond : tuple<tensor<4xf32>>
  }
  fx.graph @t {
    %x = fx.placeholder "x" : tensor<4xf32>
    fx.output (%x,) : tensor<4xf32>
  }
  fx.graph @f {
    %x = fx.placeholder "x" : tensor<5xf32>
    fx.output (%x,) : tensor<5xf32>
  }
}

// -----

fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<4xf32>
    %p = fx.placeholder "p" : i1
    %t = fx.get_attr @t : !fx.any
    // expected-error @+1 {{the true graph 't' returns 1 values, expected 2}}
    %cond = fx.call_function "torch.ops.higher_order.cond"(%p, %t, %t, (%x,)) : (i1, !fx.any, !fx.any, tensor<4xf32>) -> tuple<tensor<4xf32>, tensor<4xf32>>
    fx.output %cond : tuple<tensor<4xf32>, tensor<4xf32>>
  }
  fx.graph @t {
    %x = fx.placeholder "x" : tensor<4xf32>
    fx.output (%x,) : tensor<4xf32>
  }
}

// -----

fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<4xf32>
    %p = fx.placeholder "p" : i1
    %t = fx.get_attr @t : !fx.any
    // expected-error @+1 {{the true graph 't' must return a tuple of nodes and bool, int or float constants}}
    %cond = fx.call_function "torch.ops.higher_order.cond"(%p, %t, %t, (%x,)) : (i1, !fx.any, !fx.any, tensor<4xf32>) -> tuple<tensor<4xf32>>
    fx.output %cond : tuple<tensor<4xf32>>
  }
  fx.graph @t {
    %x = fx.placeholder "x" : tensor<4xf32>
    fx.output %x : tensor<4xf32>
  }
}

// -----

// A carried value whose type changes: the body takes a 2x2 tensor and
// returns a 3x2 one.
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x2xf32>
    %b = fx.get_attr @b : !fx.any
    // expected-error @+1 {{the body graph 'b': result 0 has type tensor<3x2xf32>, expected tensor<2x2xf32>}}
    %loop = fx.call_function "fx_mlir.for_loop"(3, %b, (%x,), ()) : (!fx.any, tensor<2x2xf32>) -> tuple<tensor<2x2xf32>>
    fx.output %loop : tuple<tensor<2x2xf32>>
  }
  fx.graph @b {
    %i = fx.placeholder "i" : i64
    %x = fx.placeholder "x" : tensor<2x2xf32>
    %cat = fx.call_function "aten::cat"([%x, %x]) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
    fx.output (%cat,) : tensor<3x2xf32>
  }
}

// -----

fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2xf32>
    %b = fx.get_attr @b : !fx.any
    // expected-error @+1 {{the trip count must be an int}}
    %loop = fx.call_function "fx_mlir.for_loop"(2.5, %b, (%x,), ()) : (!fx.any, tensor<2xf32>) -> tuple<tensor<2xf32>>
    fx.output %loop : tuple<tensor<2xf32>>
  }
  fx.graph @b {
    %i = fx.placeholder "i" : i64
    %x = fx.placeholder "x" : tensor<2xf32>
    fx.output (%x,) : tensor<2xf32>
  }
}

// -----

fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2xf32>
    %c = fx.get_attr @c : !fx.any
    %b = fx.get_attr @b : !fx.any
    // expected-error @+1 {{the cond graph must return a bool or an int, or a 0-d tensor of one}}
    %loop = fx.call_function "torch.ops.higher_order.while_loop"(%c, %b, (%x,), ()) : (!fx.any, !fx.any, tensor<2xf32>) -> tuple<tensor<2xf32>>
    fx.output %loop : tuple<tensor<2xf32>>
  }
  fx.graph @c {
    %x = fx.placeholder "x" : tensor<2xf32>
    fx.output (%x,) : tensor<2xf32>
  }
  fx.graph @b {
    %x = fx.placeholder "x" : tensor<2xf32>
    fx.output (%x,) : tensor<2xf32>
  }
}

// -----

fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2xf32>
    %p = fx.placeholder "p" : i1
    %f = fx.get_attr @forward : !fx.any
    // expected-error @-1 {{refers to 'forward', which is not a parameter, buffer, constant, submodule or graph (other than 'forward') of graph module 'M'}}
    fx.output %x : tensor<2xf32>
  }
}

// -----

fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2xf32>
    // expected-error @+1 {{get_attr 'g' of graph 'g' must have type !fx.any}}
    %g = fx.get_attr @g : tensor<2xf32>
    fx.output %x : tensor<2xf32>
  }
  fx.graph @g {
    %x = fx.placeholder "x" : tensor<2xf32>
    fx.output (%x,) : tensor<2xf32>
  }
}
