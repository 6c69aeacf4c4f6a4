// The graph of the nan-check case of instrument.test: log of a negative
// input element is NaN in PyTorch; abs before it is finite.

fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<4xf32>
    %abs = fx.call_function "torch.abs"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %log = fx.call_function "torch.log"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %add = fx.call_function "operator.add"(%abs, %log) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    fx.output %add : tensor<4xf32>
  }
}
