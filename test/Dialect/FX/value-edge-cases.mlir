// Edge cases of FX values that once failed to round trip.
// RUN: fx-opt %s -split-input-file | fx-opt -split-input-file | FileCheck %s
// RUN: fx-opt %s -split-input-file --verify-roundtrip > /dev/null
// RUN: fx-opt %s -split-input-file --fx-print-tabular -o /dev/null | FileCheck %s --check-prefix=TABLE

// Strings that look like identifiers or keywords stay strings.
// CHECK-LABEL: fx.graph_module @strings
// CHECK: fx.call_function "builtins.getattr"(%x, "shape", "None", "True", "inf", "torch.float32", "ij,jk->ik", mode="None")
// TABLE-LABEL: graph strings.forward:
// TABLE: call_function  getattr  builtins.getattr  (x, 'shape', 'None', 'True', 'inf', 'torch.float32', 'ij,jk->ik')  {'mode': 'None'}
fx.graph_module @strings {
  fx.graph @forward {
    %x = fx.placeholder "x" : !fx.any
    %getattr = fx.call_function "builtins.getattr"(%x, "shape", "None", "True", "inf", "torch.float32", "ij,jk->ik", mode="None") : (!fx.any) -> !fx.any
    fx.output %getattr : !fx.any
  }
}

// -----

// Complex numbers with non-finite parts; a placeholder default is its arg.
// CHECK-LABEL: fx.graph_module @complex
// CHECK: fx.placeholder "x" = complex(inf, nan) : !fx.any
// CHECK: fx.placeholder "s" = 1.0e+16 : f64
// TABLE-LABEL: graph complex.forward:
// TABLE: placeholder  x       x         ((inf+nanj),)  {}
// TABLE: placeholder  s       s         (1e+16,)       {}
fx.graph_module @complex {
  fx.graph @forward {
    %x = fx.placeholder "x" = complex(inf, -nan) : !fx.any
    %s = fx.placeholder "s" = 1.0e+16 : f64
    fx.output %x : !fx.any
  }
}

// -----

// A state value may repeat the declared type.
// CHECK-LABEL: fx.graph_module @state
// CHECK: fx.state parameter @w : tensor<2xf32> = dense<1.000000e+00>
fx.graph_module @state {
  fx.state parameter @w : tensor<2xf32> = dense<1.0> : tensor<2xf32>
  fx.graph @forward {
    %x = fx.placeholder "x" : !fx.any
    fx.output %x : !fx.any
  }
}
