// A graph traced without example inputs: tutorial-log-modules cannot make
// random inputs for an `!fx.any` placeholder.
fx.graph_module @Untyped {
  fx.graph @forward {
    %x = fx.placeholder "x" : !fx.any
    fx.output %x : !fx.any
  }
}
