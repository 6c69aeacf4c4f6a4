// fx-replace-pattern input whose replacement takes 2 inputs, the pattern 1.

fx.graph @pattern {
  %x = fx.placeholder "x" : !fx.any
  %r = fx.call_function "torch.relu"(%x) : (!fx.any) -> !fx.any
  fx.output %r : !fx.any
}
fx.graph @replacement {
  %x = fx.placeholder "x" : !fx.any
  %y = fx.placeholder "y" : !fx.any
  %r = fx.call_function "torch.add"(%x, %y) : (!fx.any, !fx.any) -> !fx.any
  fx.output %r : !fx.any
}
