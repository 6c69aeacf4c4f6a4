// fx-replace-pattern input: relu(x + y) -> sigmoid(x * y), two nodes for
// two (the copies may take the addresses of the nodes they replace).

fx.graph @pattern {
  %x = fx.placeholder "x" : !fx.any
  %y = fx.placeholder "y" : !fx.any
  %add = fx.call_function "torch.add"(%x, %y) : (!fx.any, !fx.any) -> !fx.any
  %relu = fx.call_function "torch.relu"(%add) : (!fx.any) -> !fx.any
  fx.output %relu : !fx.any
}
fx.graph @replacement {
  %x = fx.placeholder "x" : !fx.any
  %y = fx.placeholder "y" : !fx.any
  %mul = fx.call_function "torch.mul"(%x, %y) : (!fx.any, !fx.any) -> !fx.any
  %sigmoid = fx.call_function "torch.sigmoid"(%mul) : (!fx.any) -> !fx.any
  fx.output %sigmoid : !fx.any
}
