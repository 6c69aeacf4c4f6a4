// ViT's input checks: torch._assert on the rank and on a size. The rank is
// known when compiling; the batch size, dynamic here, only at run time.
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<?x3xf32>
    %rank = fx.call_function "aten::dim"(%x) : (tensor<?x3xf32>) -> i64
    %is2d = fx.call_function "aten::eq.int"(%rank, 2) : (i64) -> i1
    %_assert = fx.call_function "torch._assert"(%is2d, "Expected (batch, 3)") : (i1) -> !fx.any loc("_assert"("encoder"("model.py":4:1)))
    %n = fx.call_function "aten::size.int"(%x, 0) : (tensor<?x3xf32>) -> i64
    %small = fx.call_function "aten::le.int"(%n, 2) : (i64) -> i1
    %_assert_1 = fx.call_function "torch._assert"(%small, "Batch too large") : (i1) -> !fx.any loc("_assert_1"("encoder"("model.py":6:1)))
    %relu = fx.call_function "aten::relu"(%x) : (tensor<?x3xf32>) -> tensor<?x3xf32>
    fx.output %relu : tensor<?x3xf32>
  }
}
