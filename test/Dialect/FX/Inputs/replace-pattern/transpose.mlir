// fx-replace-pattern input: the literal args are part of the pattern:
// only transpose(x, 0, 1) matches, and becomes x.t().

fx.graph @pattern {
  %x = fx.placeholder "x" : !fx.any
  %transpose = fx.call_function "torch.transpose"(%x, 0, 1) : (!fx.any) -> !fx.any
  fx.output %transpose : !fx.any
}
fx.graph @replacement {
  %x = fx.placeholder "x" : !fx.any
  %t = fx.call_function "torch.t"(%x) : (!fx.any) -> !fx.any
  fx.output %t : !fx.any
}
