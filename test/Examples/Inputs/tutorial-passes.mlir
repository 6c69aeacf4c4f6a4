// Inputs of the tutorial's passes (test/Examples/tutorial.test): one graph
// module per case, for -split-input-file.

// aten::relu(aten::conv2d(...)) in a normalized graph: fused, under the
// relu's name and location.
fx.graph_module @fuse {
  fx.state parameter @conv.weight : tensor<8x3x3x3xf32>
  fx.state parameter @conv.bias : tensor<8xf32>
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x3x8x8xf32>
    %conv_weight = fx.get_attr @conv.weight : tensor<8x3x3x3xf32>
    %conv_bias = fx.get_attr @conv.bias : tensor<8xf32>
    %conv = fx.call_function "aten::conv2d"(%x, %conv_weight, %conv_bias, [1, 1], [1, 1], [1, 1], 1) : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32> loc("conv"("block"))
    %relu = fx.call_function "aten::relu"(%conv) : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> loc("relu"("block"))
    fx.output %relu : tensor<1x8x8x8xf32>
  }
}

// -----

// Two conv/relu pairs, the second conv without bias: both fused, the graph
// stays in order.
fx.graph_module @fuse_two {
  fx.state parameter @a.weight : tensor<4x3x3x3xf32>
  fx.state parameter @b.weight : tensor<4x4x1x1xf32>
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x3x8x8xf32>
    %a_weight = fx.get_attr @a.weight : tensor<4x3x3x3xf32>
    %a = fx.call_function "aten::conv2d"(%x, %a_weight, None, [1, 1], [0, 0], [1, 1], 1) : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
    %relu = fx.call_function "aten::relu"(%a) : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
    %b_weight = fx.get_attr @b.weight : tensor<4x4x1x1xf32>
    %b = fx.call_function "aten::conv2d"(%relu, %b_weight, None, [1, 1], [0, 0], [1, 1], 1) : (tensor<1x4x6x6xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x6x6xf32>
    %relu_1 = fx.call_function "aten::relu"(%b) : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
    fx.output %relu_1 : tensor<1x4x6x6xf32>
  }
}

// -----

// The conv2d has another user (the output): nothing is fused.
fx.graph_module @conv_used_twice {
  fx.state parameter @conv.weight : tensor<8x3x3x3xf32>
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x3x8x8xf32>
    %conv_weight = fx.get_attr @conv.weight : tensor<8x3x3x3xf32>
    %conv = fx.call_function "aten::conv2d"(%x, %conv_weight, None, [1, 1], [1, 1], [1, 1], 1) : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x8x8xf32>
    %relu = fx.call_function "aten::relu"(%conv) : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
    fx.output (%relu, %conv) : tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>
  }
}

// -----

// A relu of something else, and a graph that is not normalized
// (call_module + torch.relu): nothing is fused.
fx.graph_module @not_canonical {
  fx.state parameter @conv.weight : tensor<8x3x3x3xf32>
  fx.state parameter @conv.bias : tensor<8xf32>
  fx.submodule @conv "torch.nn.Conv2d"(in_channels=3, out_channels=8, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1), dilation=(1, 1), groups=1, bias=True, padding_mode="zeros")
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x3x8x8xf32>
    %neg = fx.call_function "aten::neg"(%x) : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
    %relu = fx.call_function "aten::relu"(%neg) : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
    %conv = fx.call_module @conv(%relu) : (tensor<1x3x8x8xf32>) -> tensor<1x8x8x8xf32>
    %relu_1 = fx.call_function "torch.relu"(%conv) : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
    fx.output %relu_1 : tensor<1x8x8x8xf32>
  }
}

// -----

// relu -> sigmoid: torch.relu(x) and x.relu() become torch.sigmoid(x) under
// their names; other spellings of relu are other targets and stay.
fx.graph_module @relu_spellings {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x4xf32>
    %relu = fx.call_function "torch.relu"(%x) : (tensor<2x4xf32>) -> tensor<2x4xf32> loc("relu"("act"))
    %relu_1 = fx.call_method "relu"(%relu) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %relu_2 = fx.call_function "torch.nn.functional.relu"(%relu_1, inplace=False) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %add = fx.call_function "operator.add"(%relu_2, %x) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    fx.output %add : tensor<2x4xf32>
  }
}
