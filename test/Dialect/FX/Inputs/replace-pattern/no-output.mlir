// fx-replace-pattern input whose pattern returns nothing.

fx.graph @pattern {
  %x = fx.placeholder "x" : !fx.any
  %r = fx.call_function "torch.relu"(%x) : (!fx.any) -> !fx.any
  fx.output None
}
fx.graph @replacement {
  %x = fx.placeholder "x" : !fx.any
  %r = fx.call_function "torch.sigmoid"(%x) : (!fx.any) -> !fx.any
  fx.output %r : !fx.any
}
