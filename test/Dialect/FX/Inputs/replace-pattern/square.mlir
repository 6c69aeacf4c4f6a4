// fx-replace-pattern input: a placeholder used twice binds one value, so
// x * x matches a * a but not a * b.

fx.graph @pattern {
  %x = fx.placeholder "x" : !fx.any
  %mul = fx.call_function "operator.mul"(%x, %x) : (!fx.any, !fx.any) -> !fx.any
  fx.output %mul : !fx.any
}
fx.graph @replacement {
  %x = fx.placeholder "x" : !fx.any
  %pow = fx.call_function "operator.pow"(%x, 2) : (!fx.any) -> !fx.any
  fx.output %pow : !fx.any
}
