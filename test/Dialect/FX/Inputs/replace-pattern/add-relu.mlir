// fx-replace-pattern input: relu(x + y) -> fx_mlir.fused.add(x, y, activation="relu").

fx.graph @pattern {
  %x = fx.placeholder "x" : !fx.any
  %y = fx.placeholder "y" : !fx.any
  %add = fx.call_function "aten::add.Tensor"(%x, %y, alpha=1) : (!fx.any, !fx.any) -> !fx.any
  %relu = fx.call_function "aten::relu"(%add) : (!fx.any) -> !fx.any
  fx.output %relu : !fx.any
}
fx.graph @replacement {
  %x = fx.placeholder "x" : !fx.any
  %y = fx.placeholder "y" : !fx.any
  %fused = fx.call_function "fx_mlir.fused.add"(%x, %y, alpha=1, activation="relu") : (!fx.any, !fx.any) -> !fx.any
  fx.output %fused : !fx.any
}
