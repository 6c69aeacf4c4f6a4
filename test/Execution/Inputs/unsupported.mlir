// A graph with an operator convert-fx-to-linalg does not lower (bicubic
// upsampling).
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x1x2x3xf32>
    %bicubic = fx.call_function "aten::upsample_bicubic2d.vec"(%x, [4, 6], False, None) : (tensor<1x1x2x3xf32>) -> tensor<1x1x4x6xf32> loc("bicubic"("block"("model.py":3:1)))
    fx.output %bicubic : tensor<1x1x4x6xf32>
  }
}
