fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x5xf32>
    %conv = fx.call_module @"layer1.0.conv1"(%x) : (tensor<1x5xf32>) -> tensor<1x5xf32> loc(#conv)
    fx.output %conv : tensor<1x5xf32>
  }
}
#conv = loc("conv"("layer1.0"(callsite("model.py":3:1 at "model.py":9:2))))
