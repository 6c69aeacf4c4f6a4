// fx-replace-pattern input that does not parse (missing ')').

fx.graph @pattern {
  %x = fx.placeholder "x" : !fx.any
  %r = fx.call_function "torch.relu"(%x : (!fx.any) -> !fx.any
  fx.output %r : !fx.any
}
