// What --export-python cannot export is reported on the op, and nothing
// is written.
//
// RUN: fx-translate --export-python %s -split-input-file -verify-diagnostics

// expected-error @below {{expected one fx.graph_module to export, found 0}}
module {
}

// -----

// expected-error @below {{expected one fx.graph_module to export, found 2}}
module {
  fx.graph_module @A {
    fx.graph @forward {
      fx.output None
    }
  }
  fx.graph_module @B {
    fx.graph @forward {
      fx.output None
    }
  }
}

// -----

fx.graph_module @M {
  // expected-error @below {{'fx.state' op 'c' of type 'tensor<2xi3>' is not a tensor torch can hold}}
  fx.state constant @c : tensor<2xi3>
  fx.graph @forward {
    fx.output None
  }
}

// -----

fx.graph_module @M {
  // expected-error @below {{'fx.state' op 'w': the resource 'missing' holds no data}}
  fx.state parameter @w : tensor<2xf32> = dense_resource<missing>
  fx.graph @forward {
    fx.output None
  }
}

// -----

fx.graph_module @M {
  // expected-error @below {{'fx.state' op 'w': the resource holds 4 bytes, the type needs 8}}
  fx.state parameter @w : tensor<2xf32> = dense_resource<short>
  fx.graph @forward {
    fx.output None
  }
}

{-#
  dialect_resources: {
    builtin: {
      short: "0x040000000000803F"
    }
  }
#-}
