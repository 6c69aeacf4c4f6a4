// A placeholder whose random input cannot be allocated (fx-run.test).
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<100000000x100000000xf32>
    %r = fx.call_function "aten::relu"(%x) : (tensor<100000000x100000000xf32>) -> tensor<100000000x100000000xf32>
    fx.output %r : tensor<100000000x100000000xf32>
  }
}
