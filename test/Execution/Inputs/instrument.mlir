// The graph of instrument.test: linear -> relu -> argmax, with weights the
// test's helper (instrument_check.py) rebuilds in PyTorch.

fx.graph_module @M {
  fx.state parameter @fc.weight : tensor<4x3xf32> = dense<[[1.0, 0.0, -1.0], [0.5, 0.5, 0.5], [-2.0, 1.0, 0.0], [0.0, 0.0, 1.0]]>
  fx.state parameter @fc.bias : tensor<4xf32> = dense<[0.0, 1.0, -1.0, 2.0]>
  fx.submodule @fc "torch.nn.Linear"(in_features=3, out_features=4, bias=True)
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x3xf32>
    %fc = fx.call_module @fc(%x) : (tensor<2x3xf32>) -> tensor<2x4xf32>
    %relu = fx.call_function "torch.relu"(%fc) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %argmax = fx.call_method "argmax"(%relu, 1) : (tensor<2x4xf32>) -> tensor<2xi64>
    fx.output (%relu, %argmax) : tensor<2x4xf32>, tensor<2xi64>
  }
}
