// Graph for the `report` test of fx-replace-pattern.mlir: two matches of
// add-relu.mlir, the second with its inputs swapped.

fx.graph @g {
  %a = fx.placeholder "a" : tensor<4xf32>
  %b = fx.placeholder "b" : tensor<4xf32>
  %add = fx.call_function "aten::add.Tensor"(%a, %b, alpha=1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %relu = fx.call_function "aten::relu"(%add) : (tensor<4xf32>) -> tensor<4xf32>
  %add_1 = fx.call_function "aten::add.Tensor"(%b, %a, alpha=1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %relu_1 = fx.call_function "aten::relu"(%add_1) : (tensor<4xf32>) -> tensor<4xf32>
  %mul = fx.call_function "aten::mul.Tensor"(%relu, %relu_1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  fx.output %mul : tensor<4xf32>
}
