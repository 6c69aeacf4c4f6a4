// fx-replace-pattern input, two outputs: var(x) and mean(x) of the same x
// become one var_mean(x) and its two items.

fx.graph @pattern {
  %x = fx.placeholder "x" : !fx.any
  %var = fx.call_function "torch.var"(%x) : (!fx.any) -> !fx.any
  %mean = fx.call_function "torch.mean"(%x) : (!fx.any) -> !fx.any
  fx.output (%var, %mean) : !fx.any, !fx.any
}
fx.graph @replacement {
  %x = fx.placeholder "x" : !fx.any
  %var_mean = fx.call_function "torch.var_mean"(%x) : (!fx.any) -> !fx.any
  %var = fx.call_function "operator.getitem"(%var_mean, 0) : (!fx.any) -> !fx.any
  %mean = fx.call_function "operator.getitem"(%var_mean, 1) : (!fx.any) -> !fx.any
  fx.output (%var, %mean) : !fx.any, !fx.any
}
