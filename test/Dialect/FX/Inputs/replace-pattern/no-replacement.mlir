// fx-replace-pattern input without a 'replacement' symbol (misspelt).

fx.graph @pattern {
  %x = fx.placeholder "x" : !fx.any
  %r = fx.call_function "torch.relu"(%x) : (!fx.any) -> !fx.any
  fx.output %r : !fx.any
}
fx.graph @replacment {
  %x = fx.placeholder "x" : !fx.any
  %r = fx.call_function "torch.sigmoid"(%x) : (!fx.any) -> !fx.any
  fx.output %r : !fx.any
}
