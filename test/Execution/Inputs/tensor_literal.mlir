// aten::tensor of list literals, as scripted `torch.tensor([...])` records
// them (fx-run.test): nested floats, ints with a dtype, bools.
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x3xf32>
    %a = fx.call_function "aten::tensor"([[1.0, 2.0, 3.0], [4.0, 5.0, 6.5]], dtype=None, device=None, requires_grad=False) : () -> tensor<2x3xf32>
    %b = fx.call_function "aten::tensor"([1, 2, 3], dtype=torch.float64, device=None, requires_grad=False) : () -> tensor<3xf64>
    %c = fx.call_function "aten::tensor"([True, False, True], dtype=None, device=None, requires_grad=False) : () -> tensor<3xi1>
    %m = fx.call_function "aten::mul.Tensor"(%x, %a) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    fx.output (%m, %b, %c) : tensor<2x3xf32>, tensor<3xf64>, tensor<3xi1>
  }
}
