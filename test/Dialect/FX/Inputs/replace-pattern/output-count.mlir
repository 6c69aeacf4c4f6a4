// fx-replace-pattern input whose replacement returns 2 values, the pattern 1.

fx.graph @pattern {
  %x = fx.placeholder "x" : !fx.any
  %r = fx.call_function "torch.relu"(%x) : (!fx.any) -> !fx.any
  fx.output %r : !fx.any
}
fx.graph @replacement {
  %x = fx.placeholder "x" : !fx.any
  %r = fx.call_function "torch.relu"(%x) : (!fx.any) -> !fx.any
  %s = fx.call_function "torch.sigmoid"(%x) : (!fx.any) -> !fx.any
  fx.output (%r, %s) : !fx.any, !fx.any
}
