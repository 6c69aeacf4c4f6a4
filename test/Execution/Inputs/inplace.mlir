// In-place methods and torch functions the interpreter runs as ATen's
// in-place operators, and fx-normalize makes functional for compiling
// (fx-run.test): y = x * 2; y.add_(1); torch.relu_(y); y.mul_(x); both
// outputs are y.
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x3xf32>
    %y = fx.call_function "torch.mul"(%x, 2) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %a = fx.call_method "add_"(%y, 1) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %r = fx.call_function "torch.relu_"(%y) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %s = fx.call_method "mul_"(%r, %x) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    fx.output (%y, %a) : tensor<2x3xf32>, tensor<2x3xf32>
  }
}
