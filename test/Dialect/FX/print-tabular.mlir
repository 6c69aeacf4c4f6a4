// RUN: fx-opt %s --fx-print-tabular -o /dev/null | FileCheck %s --strict-whitespace
// RUN: fx-opt %s --verify-roundtrip -o /dev/null

// With output=<file> the tables go to the file and stdout has the
// unchanged IR only.
// RUN: rm -f %t
// RUN: fx-opt %s --fx-print-tabular=output=%t | FileCheck %s --check-prefix=IR
// RUN: FileCheck %s --strict-whitespace --input-file=%t

// IR-NOT:  opcode
// IR-LABEL: fx.graph_module @M {
// IR:       %relu = fx.call_function "torch.relu"(%linear) : (!fx.any) -> !fx.any
// IR-NOT:  opcode

// Each table is preceded by `graph <module>.<graph>:` and separated from
// the next by one blank line. Columns are as wide as their widest cell and
// at least two wider than their header, with two spaces between them, as
// tabulate lays them out for torch.fx.Graph.print_tabular(). The expected
// rows are those torch.fx 1.13 prints for the same graphs, except that a
// call_function target shows its qualified name where torch.fx shows the
// function object (`<built-in function getitem>`), and a torch.Size keeps
// its repr where torch.fx's Node stores a plain tuple. --strict-whitespace
// makes the column alignment part of each check.

// The example of the pass description.

// CHECK-LABEL: graph M.forward:
// CHECK-NEXT:  opcode         name    target      args       kwargs
// CHECK-NEXT:  -------------  ------  ----------  ---------  --------
// CHECK-NEXT:  placeholder    x       x           ()         {}
// CHECK-NEXT:  call_module    linear  linear      (x,)       {}
// CHECK-NEXT:  call_function  relu    torch.relu  (linear,)  {}
// CHECK-NEXT:  output         output  output      (relu,)    {}
// CHECK-EMPTY:
fx.graph_module @M {
  fx.submodule @linear "torch.nn.Linear"(in_features=5, out_features=5)
  fx.graph @forward {
    %x = fx.placeholder "x" : !fx.any
    %linear = fx.call_module @linear(%x) : (!fx.any) -> !fx.any
    %relu = fx.call_function "torch.relu"(%linear) : (!fx.any) -> !fx.any
    fx.output %relu : !fx.any
  }
}

// A list argument and kwargs; get_attr shows its qualified target.

// CHECK-LABEL: graph Cat.forward:
// CHECK-NEXT:  opcode         name    target     args              kwargs
// CHECK-NEXT:  -------------  ------  ---------  ----------------  ----------------------------------------------------
// CHECK-NEXT:  placeholder    x       x          ()                {}
// CHECK-NEXT:  get_attr       w       fc.weight  ()                {}
// CHECK-NEXT:  call_function  cat     torch.cat  ([x, w, x],)      {'dim': 1}
// CHECK-NEXT:  call_method    sum     sum        (cat,)            {'dim': -1, 'keepdim': True, 'dtype': torch.float32}
// CHECK-NEXT:  output         output  output     ((cat, sum, w),)  {}
// CHECK-EMPTY:
fx.graph_module @Cat {
  fx.state parameter @"fc.weight" : tensor<2x4xf32>
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x4xf32>
    %w = fx.get_attr @"fc.weight" : tensor<2x4xf32>
    %cat = fx.call_function "torch.cat"([%x, %w, %x], dim=1) : (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x12xf32>
    %sum = fx.call_method "sum"(%cat, dim=-1, keepdim=True, dtype=torch.float) : (tensor<2x12xf32>) -> tensor<2x1xf32>
    fx.output (%cat, %sum, %w) : tensor<2x12xf32>, tensor<2x1xf32>, tensor<2x4xf32>
  }
}

// x[:, 1:n, ..., None]: slices print as slice(...) and `...` as Ellipsis,
// node references by node name.

// CHECK-LABEL: graph GetItem.forward:
// CHECK-NEXT:  opcode         name     target            args                                                               kwargs
// CHECK-NEXT:  -------------  -------  ----------------  -----------------------------------------------------------------  --------
// CHECK-NEXT:  placeholder    x        x                 ()                                                                 {}
// CHECK-NEXT:  placeholder    n        n                 ()                                                                 {}
// CHECK-NEXT:  call_function  getitem  operator.getitem  (x, (slice(None, None, None), slice(1, n, None), Ellipsis, None))  {}
// CHECK-NEXT:  output         output   output            (getitem,)                                                         {}
// CHECK-EMPTY:
fx.graph_module @GetItem {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<4x8xf32>
    %n = fx.placeholder "n" : i64
    %getitem = fx.call_function "operator.getitem"(%x, (slice(None, None, None), slice(1, %n, None), ..., None)) : (tensor<4x8xf32>, i64) -> tensor<4x?x1xf32>
    fx.output %getitem : tensor<4x?x1xf32>
  }
}

// The output node's args is a one-element tuple holding the returned
// value: here a tuple with a dict, a one-element tuple and a constant.

// CHECK-LABEL: graph Output.forward:
// CHECK-NEXT:  opcode       name    target    args                                 kwargs
// CHECK-NEXT:  -----------  ------  --------  -----------------------------------  --------
// CHECK-NEXT:  placeholder  a       a         ()                                   {}
// CHECK-NEXT:  placeholder  b       b         ()                                   {}
// CHECK-NEXT:  output       output  output    ((a, {'aux': [b, a]}, (b,), None),)  {}
// CHECK-EMPTY:
fx.graph_module @Output {
  fx.graph @forward {
    %a = fx.placeholder "a" : !fx.any
    %b = fx.placeholder "b" : !fx.any
    fx.output (%a, {"aux": [%b, %a]}, (%b,), None) : !fx.any, !fx.any, !fx.any, !fx.any
  }
}

// Python reprs of constants: str quoting, float and complex reprs, devices,
// sizes and dtypes, as str(node.args) prints them.

// CHECK-LABEL: graph Values.forward:
// CHECK-NEXT:  opcode         name    target    args                                                                         kwargs
// CHECK-NEXT:  -------------  ------  --------  ---------------------------------------------------------------------------  --------------------------------------------------------------------------------------------
// CHECK-NEXT:  placeholder    x       x         ()                                                                           {}
// CHECK-NEXT:  call_method    to      to        (x, device(type='cuda', index=0), device(type='cpu'), ['s', 'a"b', "it's"])  {'dtype': torch.float16, 'memory_format': torch.channels_last, 'layout': torch.strided}
// CHECK-NEXT:  call_function  f       f         ([0.1, 1e-05, 1e+16, 2.0, -0.0, nan, inf, -inf], [1, -1, True, False])       {'z': [(1-2j), 1.5j, (-0+0j)], 's': torch.Size([2, 3]), 'e': torch.Size([]), 'd': {0: None}}
// CHECK-NEXT:  output         output  output    ((to, f),)                                                                   {}
// CHECK-EMPTY:
fx.graph_module @Values {
  fx.graph @forward {
    %x = fx.placeholder "x" : !fx.any
    %to = fx.call_method "to"(%x, device("cuda:0"), device("cpu"), ["s", "a\"b", "it's"], dtype=torch.half, memory_format=torch.channels_last, layout=torch.strided) : (!fx.any) -> !fx.any
    %f = fx.call_function "f"([0.1, 1.0e-5, 1.0e16, 2.0, -0.0, nan, inf, -inf], [1, -1, True, False], z=[complex(1.0, -2.0), complex(0.0, 1.5), complex(-0.0, 0.0)], s=torch.Size([2, 3]), e=torch.Size([]), d={0: None}) : () -> !fx.any
    fx.output (%to, %f) : !fx.any, !fx.any
  }
}

// One table per graph of a module, in order; node names, not SSA names.

// CHECK-LABEL: graph Two.forward:
// CHECK-NEXT:  opcode         name    target     args      kwargs
// CHECK-NEXT:  -------------  ------  ---------  --------  ------------
// CHECK-NEXT:  placeholder    a       a          ()        {}
// CHECK-NEXT:  call_function  add 1   torch.add  (a, a)    {'alpha': 2}
// CHECK-NEXT:  output         output  output     (add 1,)  {}
// CHECK-EMPTY:
// CHECK-NEXT:  graph Two.backward:
// CHECK-NEXT:  opcode       name    target    args     kwargs
// CHECK-NEXT:  -----------  ------  --------  -------  --------
// CHECK-NEXT:  placeholder  y       y         ()       {}
// CHECK-NEXT:  output       result  output    (None,)  {}
// CHECK-EMPTY:
fx.graph_module @Two {
  fx.graph @forward {
    %a = fx.placeholder "a" : !fx.any
    %b = fx.call_function "torch.add"(%a, %a, alpha=2) {node_name = "add 1"} : (!fx.any, !fx.any) -> !fx.any
    fx.output %b : !fx.any
  }
  fx.graph @backward {
    %y = fx.placeholder "y" : !fx.any
    fx.output None {node_name = "result"}
  }
}

// A placeholder's default value is its only arg, as in torch.fx; the rows
// are those torch.fx's Graph.print_tabular() prints for the same graph.

// CHECK-LABEL: graph Defaults.forward:
// CHECK-NEXT:  opcode       name    target    args              kwargs
// CHECK-NEXT:  -----------  ------  --------  ----------------  --------
// CHECK-NEXT:  placeholder  x       x         ()                {}
// CHECK-NEXT:  placeholder  eps     eps       (1e-05,)          {}
// CHECK-NEXT:  placeholder  opt     opt       (None,)           {}
// CHECK-NEXT:  placeholder  shape   shape     ((2, 3),)         {}
// CHECK-NEXT:  placeholder  mode    mode      ('nearest',)      {}
// CHECK-NEXT:  placeholder  z       z         ((inf+nanj),)     {}
// CHECK-NEXT:  placeholder  dims    dims      ([0, -1],)        {}
// CHECK-NEXT:  placeholder  d       d         ({'k': False},)   {}
// CHECK-NEXT:  placeholder  dtype   dtype     (torch.float32,)  {}
// CHECK-NEXT:  output       output  output    (x,)              {}
// CHECK-EMPTY:
fx.graph_module @Defaults {
  fx.graph @forward {
    %x = fx.placeholder "x" : !fx.any
    %eps = fx.placeholder "eps" = 1.0e-05 : f64
    %opt = fx.placeholder "opt" = None : !fx.any
    %shape = fx.placeholder "shape" = (2, 3) : !fx.any
    %mode = fx.placeholder "mode" = "nearest" : !fx.any
    %z = fx.placeholder "z" = complex(inf, nan) : !fx.any
    %dims = fx.placeholder "dims" = [0, -1] : !fx.any
    %d = fx.placeholder "d" = {"k": False} : !fx.any
    %dtype = fx.placeholder "dtype" = torch.float : !fx.any
    fx.output %x : !fx.any
  }
}

// A graph outside any graph module is named alone. It is the last table:
// nothing follows it.

// CHECK-LABEL: graph pattern:
// CHECK-NEXT:  opcode       name    target    args    kwargs
// CHECK-NEXT:  -----------  ------  --------  ------  --------
// CHECK-NEXT:  placeholder  p       p         ()      {}
// CHECK-NEXT:  output       output  output    (p,)    {}
// CHECK-NOT:   {{.}}
fx.graph @pattern {
  %p = fx.placeholder "p" : !fx.any
  fx.output %p : !fx.any
}
