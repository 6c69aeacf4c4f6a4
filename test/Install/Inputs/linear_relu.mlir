// The graph of the torch.fx guide's SimpleModel: relu(linear(x)).
fx.graph_module @M {
  fx.state parameter @"linear.weight" : tensor<5x5xf32>
  fx.state parameter @"linear.bias" : tensor<5xf32>
  fx.submodule @linear "torch.nn.Linear"(in_features=5, out_features=5, bias=True)
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x5xf32>
    %linear = fx.call_module @linear(%x) : (tensor<1x5xf32>) -> tensor<1x5xf32>
    %relu = fx.call_function "torch.relu"(%linear) : (tensor<1x5xf32>) -> tensor<1x5xf32>
    fx.output %relu : tensor<1x5xf32>
  }
}
