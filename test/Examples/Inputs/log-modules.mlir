// A traced conv/pool/linear model with known weights, for
// tutorial-log-modules (test/Examples/tutorial.test); the batch dim is
// dynamic and becomes 1.
fx.graph_module @Net {
  fx.state parameter @conv.weight : tensor<4x3x3x3xf32> = dense<0.1>
  fx.state parameter @conv.bias : tensor<4xf32> = dense<0.0>
  fx.state parameter @fc.weight : tensor<2x16xf32> = dense<0.5>
  fx.state parameter @fc.bias : tensor<2xf32> = dense<1.0>
  fx.submodule @conv "torch.nn.Conv2d"(in_channels=3, out_channels=4, kernel_size=(3, 3), stride=(1, 1), padding=(0, 0), dilation=(1, 1), groups=1, bias=True, padding_mode="zeros")
  fx.submodule @pool "torch.nn.AdaptiveAvgPool2d"(output_size=(2, 2))
  fx.submodule @fc "torch.nn.Linear"(in_features=16, out_features=2, bias=True)
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<?x3x6x6xf32>
    %conv = fx.call_module @conv(%x) : (tensor<?x3x6x6xf32>) -> tensor<?x4x4x4xf32>
    %relu = fx.call_function "torch.relu"(%conv) : (tensor<?x4x4x4xf32>) -> tensor<?x4x4x4xf32>
    %pool = fx.call_module @pool(%relu) : (tensor<?x4x4x4xf32>) -> tensor<?x4x2x2xf32>
    %flatten = fx.call_method "flatten"(%pool, 1) : (tensor<?x4x2x2xf32>) -> tensor<?x16xf32>
    %fc = fx.call_module @fc(%flatten) : (tensor<?x16xf32>) -> tensor<?x2xf32>
    fx.output %fc : tensor<?x2xf32>
  }
}
