// An .mlir file is data: every name the exporter would hand to Python as
// syntax (an identifier, an attribute path, a qualified name) is checked
// before anything is written, and the error names the op and the name.
// Strings stay strings (test/python/test_security.py runs the payloads).
// get_attr and call_module targets name existing state or submodules (the
// verifier checks), whose paths are checked here.
//
// RUN: fx-translate --export-python %s -split-input-file -verify-diagnostics
// RUN: fx-translate --export-fx-json %s -split-input-file -verify-diagnostics

// expected-error @below {{graph module name 'M\nimport os; os.system("touch pwned")' is not one line of text}}
fx.graph_module @"M\0Aimport os; os.system(\22touch pwned\22)" {
  fx.graph @forward {
    fx.output None
  }
}

// -----

fx.graph_module @M {
  // expected-error @below {{submodule path 'a"); import os; ("' is not a dotted attribute path}}
  fx.submodule @"a\22); import os; (\22" "torch.nn.ReLU"()
  fx.graph @forward {
    fx.output None
  }
}

// -----

fx.graph_module @M {
  // expected-error @below {{module type 'os.system(1)' is not a qualified Python name}}
  fx.submodule @relu "os.system(1)"()
  fx.graph @forward {
    fx.output None
  }
}

// -----

fx.graph_module @M {
  // expected-error @below {{module type 'torch.nn.ReLU.__init__.__globals__' is not a qualified Python name}}
  fx.submodule @relu "torch.nn.ReLU.__init__.__globals__"()
  fx.graph @forward {
    fx.output None
  }
}

// -----

fx.graph_module @M {
  // expected-error @below {{hyperparameter key 'inplace=True); import os #' is not a Python identifier}}
  fx.submodule @relu "torch.nn.ReLU"("inplace=True); import os #"=True)
  fx.graph @forward {
    fx.output None
  }
}

// -----

fx.graph_module @M {
  // expected-error @below {{state path 'w\nimport os' is not a dotted attribute path}}
  fx.state parameter @"w\0Aimport os" : tensor<2xf32> = dense<1.0>
  fx.graph @forward {
    fx.output None
  }
}

// -----

fx.graph_module @M {
  fx.graph @forward {
    // expected-error @below {{node name 'x = 1; import os' is not a Python identifier}}
    %x = fx.placeholder "x" {node_name = "x = 1; import os"} : !fx.any
    fx.output %x : !fx.any
  }
}

// -----

fx.graph_module @M {
  fx.graph @forward {
    // expected-error @below {{placeholder target 'x=__import__("os").system("touch pwned")' is not a parameter name}}
    %x = fx.placeholder "x=__import__(\22os\22).system(\22touch pwned\22)" {node_name = "x"} : !fx.any
    fx.output %x : !fx.any
  }
}

// -----

fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : !fx.any
    // expected-error @below {{method 'add(1); import os; x.add' is not a Python identifier}}
    %y = fx.call_method "add(1); import os; x.add"(%x) : (!fx.any) -> !fx.any
    fx.output %y : !fx.any
  }
}

// -----

fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : !fx.any
    // expected-error @below {{function 'builtins.exec("import os")' is not a qualified Python name or an operator name}}
    %y = fx.call_function "builtins.exec(\22import os\22)"(%x) : (!fx.any) -> !fx.any
    fx.output %y : !fx.any
  }
}

// -----

fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : !fx.any
    // expected-error @below {{kwargs key 'dim=0, **__import__("os").environ' is not a Python identifier}}
    %y = fx.call_method "sum"(%x, "dim=0, **__import__(\22os\22).environ"=0) : (!fx.any) -> !fx.any
    fx.output %y : !fx.any
  }
}

// -----

fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : !fx.any
    // expected-error @below {{holds the string "caf\E9", which is not valid UTF-8}}
    %y = fx.call_method "add"(%x, "caf\E9") : (!fx.any) -> !fx.any
    fx.output %y : !fx.any
  }
}

// -----

// Strings, quotes, backslashes and non-ASCII text inside values are data:
// they export (as JSON strings) and are not errors.
fx.graph_module @"<lambda>" {
  fx.submodule @"layer-1.0" "torch.nn.Identity"(note="\22); import os #\0A\\ é")
  fx.graph @forward {
    %x = fx.placeholder "x" : !fx.any
    %y = fx.call_module @"layer-1.0"(%x) : (!fx.any) -> !fx.any
    %z = fx.call_function "aten::add.Tensor"(%y, "'''\22\22\22") : (!fx.any) -> !fx.any
    fx.output %z : !fx.any
  }
}
