// RUN: fx-opt %s -split-input-file --fx-canonicalize | FileCheck %s

// fx-canonicalize: identities disappear (contiguous of a known-contiguous
// tensor, eval-mode dropout, identity permutes and transposes, flatten of
// one dim, views and reshapes to the input's own static shape), chains of
// views and of permutations fold into one call, in any spelling the target
// registry knows. Rewritten calls are canonical and keep the outer node's
// name; nodes left without users are erased when pure.

//===----------------------------------------------------------------------===//
// Permutation chains
//===----------------------------------------------------------------------===//

// transpose(transpose(x, 0, 1), 0, 1) is x (canonical and method spelling).

// CHECK-LABEL: fx.graph @transpose_transpose
// CHECK-NEXT:    %x = fx.placeholder "x"
// CHECK-NEXT:    %r = fx.call_function "aten::relu"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    fx.output %r
fx.graph @transpose_transpose {
  %x = fx.placeholder "x" : tensor<2x3xf32>
  %t = fx.call_function "aten::transpose.int"(%x, 0, 1) : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %u = fx.call_method "transpose"(%t, 0, 1) : (tensor<3x2xf32>) -> tensor<2x3xf32>
  %r = fx.call_function "aten::relu"(%u) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  fx.output %r : tensor<2x3xf32>
}

// -----

// Negative dims are normalized: transpose(-1, -2) then (1, 2) cancel.

// CHECK-LABEL: fx.graph @transpose_negative_dims
// CHECK-NEXT:    %x = fx.placeholder "x"
// CHECK-NEXT:    fx.output %x
fx.graph @transpose_negative_dims {
  %x = fx.placeholder "x" : tensor<2x3x4xf32>
  %a = fx.call_method "transpose"(%x, -1, -2) : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
  %b = fx.call_function "torch.transpose"(%a, 1, 2) : (tensor<2x4x3xf32>) -> tensor<2x3x4xf32>
  fx.output %b : tensor<2x3x4xf32>
}

// -----

// permute(permute(x, [1, 2, 0]), [0, 2, 1]) is permute(x, [1, 0, 2]).

// CHECK-LABEL: fx.graph @permute_permute
// CHECK-NEXT:    %x = fx.placeholder "x"
// CHECK-NEXT:    %q = fx.call_function "aten::permute"(%x, [1, 0, 2]) : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
// CHECK-NEXT:    fx.output %q
fx.graph @permute_permute {
  %x = fx.placeholder "x" : tensor<2x3x4xf32>
  %p = fx.call_method "permute"(%x, 1, 2, 0) : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
  %q = fx.call_function "torch.permute"(%p, [0, 2, 1]) : (tensor<3x4x2xf32>) -> tensor<3x2x4xf32>
  fx.output %q : tensor<3x2x4xf32>
}

// -----

// A transpose of a permute composes too.

// CHECK-LABEL: fx.graph @transpose_permute
// CHECK-NEXT:    %x = fx.placeholder "x"
// CHECK-NEXT:    %t = fx.call_function "aten::permute"(%x, [0, 2, 1]) : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
// CHECK-NEXT:    fx.output %t
fx.graph @transpose_permute {
  %x = fx.placeholder "x" : tensor<2x3x4xf32>
  %p = fx.call_method "permute"(%x, 1, 2, 0) : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
  %t = fx.call_method "transpose"(%p, 0, 2) : (tensor<3x4x2xf32>) -> tensor<2x4x3xf32>
  fx.output %t : tensor<2x4x3xf32>
}

// -----

// t(t(x)) is x.

// CHECK-LABEL: fx.graph @t_t
// CHECK-NEXT:    %x = fx.placeholder "x"
// CHECK-NEXT:    fx.output %x
fx.graph @t_t {
  %x = fx.placeholder "x" : tensor<2x3xf32>
  %a = fx.call_method "t"(%x) : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %b = fx.call_function "torch.t"(%a) : (tensor<3x2xf32>) -> tensor<2x3xf32>
  fx.output %b : tensor<2x3xf32>
}

// -----

// The inner transpose has another user: it stays, the outer one goes.

// CHECK-LABEL: fx.graph @t_t_shared
// CHECK-NEXT:    %x = fx.placeholder "x"
// CHECK-NEXT:    %a = fx.call_method "t"(%x)
// CHECK-NEXT:    fx.output (%a, %x)
fx.graph @t_t_shared {
  %x = fx.placeholder "x" : tensor<2x3xf32>
  %a = fx.call_method "t"(%x) : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %b = fx.call_method "t"(%a) : (tensor<3x2xf32>) -> tensor<2x3xf32>
  fx.output (%a, %b) : tensor<3x2xf32>, tensor<2x3xf32>
}

// -----

// Without ranks the permutations are unknown: nothing changes.

// CHECK-LABEL: fx.graph @transpose_unranked
// CHECK:         %a = fx.call_method "transpose"(%x, 0, 1)
// CHECK-NEXT:    %b = fx.call_method "transpose"(%a, 0, 1)
fx.graph @transpose_unranked {
  %x = fx.placeholder "x" : !fx.any
  %a = fx.call_method "transpose"(%x, 0, 1) : (!fx.any) -> !fx.any
  %b = fx.call_method "transpose"(%a, 0, 1) : (!fx.any) -> !fx.any
  fx.output %b : !fx.any
}

// -----

//===----------------------------------------------------------------------===//
// Identities
//===----------------------------------------------------------------------===//

// permute by the identity, transpose(x, d, d), flatten(x, d, d), t of a
// 1-d tensor, and expand/reshape/view_as to the input's own shape.

// CHECK-LABEL: fx.graph @identities
// CHECK-NEXT:    %x = fx.placeholder "x"
// CHECK-NEXT:    %v = fx.placeholder "v"
// CHECK-NEXT:    fx.output (%x, %v)
fx.graph @identities {
  %x = fx.placeholder "x" : tensor<2x3xf32>
  %v = fx.placeholder "v" : tensor<3xf32>
  %a = fx.call_method "permute"(%x, 0, 1) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %b = fx.call_method "transpose"(%a, 1, 1) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %c = fx.call_function "torch.flatten"(%b, 1, 1) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %d = fx.call_method "expand"(%c, 2, 3) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %e = fx.call_method "reshape"(%d, 2, 3) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %f = fx.call_method "view_as"(%e, %x) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %t = fx.call_method "t"(%v) : (tensor<3xf32>) -> tensor<3xf32>
  fx.output (%f, %t) : tensor<2x3xf32>, tensor<3xf32>
}

// -----

// A view to the same static shape disappears; its user reads the input.

// CHECK-LABEL: fx.graph @view_same_shape
// CHECK-NEXT:    %x = fx.placeholder "x"
// CHECK-NEXT:    %r = fx.call_function "aten::relu"(%x)
// CHECK-NEXT:    fx.output %r
fx.graph @view_same_shape {
  %x = fx.placeholder "x" : tensor<2x3xf32>
  %a = fx.call_method "view"(%x, 2, 3) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %r = fx.call_function "aten::relu"(%a) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  fx.output %r : tensor<2x3xf32>
}

// -----

// A dynamic shape is not known to be the same: the view stays.

// CHECK-LABEL: fx.graph @view_dynamic_shape
// CHECK:         %a = fx.call_method "view"(%x, -1, 3)
fx.graph @view_dynamic_shape {
  %x = fx.placeholder "x" : tensor<?x3xf32>
  %a = fx.call_method "view"(%x, -1, 3) : (tensor<?x3xf32>) -> tensor<?x3xf32>
  fx.output %a : tensor<?x3xf32>
}

// -----

// contiguous() of a linear result is a no-op also in PyTorch: it goes.
// After a permute the tensor is not contiguous: that contiguous() stays.

// CHECK-LABEL: fx.graph @contiguous
// CHECK:         %lin = fx.call_function "aten::linear"
// CHECK-NEXT:    %p = fx.call_method "permute"(%lin, 1, 0)
// CHECK-NEXT:    %d = fx.call_method "contiguous"(%p)
// CHECK-NEXT:    fx.output %d
fx.graph @contiguous {
  %x = fx.placeholder "x" : tensor<2x3xf32>
  %w = fx.placeholder "w" : tensor<4x3xf32>
  %lin = fx.call_function "aten::linear"(%x, %w, None) : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
  %c = fx.call_method "contiguous"(%lin) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %p = fx.call_method "permute"(%c, 1, 0) : (tensor<2x4xf32>) -> tensor<4x2xf32>
  %d = fx.call_method "contiguous"(%p) : (tensor<4x2xf32>) -> tensor<4x2xf32>
  fx.output %d : tensor<4x2xf32>
}

// -----

// A conv keeps its input's layout (a channels-last graph input gives a
// channels-last result), so contiguous() of it stays unless the input is
// known to be contiguous: the first stays, the later ones go.

// CHECK-LABEL: fx.graph @contiguous_conv
// CHECK:         %c = fx.call_method "contiguous"(%conv)
// CHECK-NOT:     contiguous
// CHECK:         fx.output %conv3
fx.graph @contiguous_conv {
  %x = fx.placeholder "x" : tensor<1x3x8x8xf32>
  %w = fx.placeholder "w" : tensor<3x3x3x3xf32>
  %conv = fx.call_function "aten::conv2d"(%x, %w, None, [1, 1], [1, 1], [1, 1], 1) : (tensor<1x3x8x8xf32>, tensor<3x3x3x3xf32>) -> tensor<1x3x8x8xf32>
  %c = fx.call_method "contiguous"(%conv) : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  %conv2 = fx.call_function "aten::conv2d"(%c, %w, None, [1, 1], [1, 1], [1, 1], 1) : (tensor<1x3x8x8xf32>, tensor<3x3x3x3xf32>) -> tensor<1x3x8x8xf32>
  %c2 = fx.call_method "contiguous"(%conv2) : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  %conv3 = fx.call_function "aten::conv2d"(%c2, %w, None, [1, 1], [1, 1], [1, 1], 1) : (tensor<1x3x8x8xf32>, tensor<3x3x3x3xf32>) -> tensor<1x3x8x8xf32>
  %c3 = fx.call_method "contiguous"(%conv3) : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  fx.output %c3 : tensor<1x3x8x8xf32>
}

// -----

// contiguous(memory_format=torch.channels_last) changes the layout of a
// contiguous NCHW tensor (a later view depends on it): it is no identity.

// CHECK-LABEL: fx.graph @contiguous_channels_last
// CHECK:         %c = fx.call_method "contiguous"(%conv, memory_format=torch.channels_last)
// CHECK-NEXT:    fx.output %c
fx.graph @contiguous_channels_last {
  %x = fx.placeholder "x" : tensor<1x3x8x8xf32>
  %w = fx.placeholder "w" : tensor<4x3x3x3xf32>
  %conv = fx.call_function "aten::conv2d"(%x, %w, None, [1, 1], [1, 1], [1, 1], 1) : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  %c = fx.call_method "contiguous"(%conv, memory_format=torch.channels_last) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  fx.output %c : tensor<1x4x8x8xf32>
}

// -----

// A placeholder's layout is unknown: its contiguous() stays.

// CHECK-LABEL: fx.graph @contiguous_placeholder
// CHECK:         %c = fx.call_method "contiguous"(%x)
fx.graph @contiguous_placeholder {
  %x = fx.placeholder "x" : tensor<2x3xf32>
  %c = fx.call_method "contiguous"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  fx.output %c : tensor<2x3xf32>
}

// -----

// Eval-mode dropout is the identity; training-mode dropout (the default
// of F.dropout) is not.

// CHECK-LABEL: fx.graph @dropout
// CHECK-NEXT:    %x = fx.placeholder "x"
// CHECK-NEXT:    %c = fx.call_function "torch.nn.functional.dropout"(%x, p=0.5, training=True)
// CHECK-NEXT:    %d = fx.call_function "torch.nn.functional.dropout"(%c, 0.5)
// CHECK-NEXT:    fx.output %d
fx.graph @dropout {
  %x = fx.placeholder "x" : tensor<2x3xf32>
  %a = fx.call_function "torch.nn.functional.dropout"(%x, p=0.5, training=False) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %b = fx.call_function "torch.dropout"(%a, 0.5, False) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %c = fx.call_function "torch.nn.functional.dropout"(%b, p=0.5, training=True) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %d = fx.call_function "torch.nn.functional.dropout"(%c, 0.5) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  fx.output %d : tensor<2x3xf32>
}

// -----

// Module spelling: an nn.Dropout in eval mode disappears, one in training
// mode stays.

// CHECK-LABEL: fx.graph_module @DropoutModule
// CHECK:         %x = fx.placeholder "x"
// CHECK-NEXT:    %drop_train = fx.call_module @drop_train(%x)
// CHECK-NEXT:    fx.output %drop_train
fx.graph_module @DropoutModule {
  fx.submodule @drop "torch.nn.Dropout"(p=0.1, inplace=False)
  fx.submodule @drop_train "torch.nn.Dropout"(p=0.1, inplace=False) training
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x3xf32>
    %drop = fx.call_module @drop(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %drop_train = fx.call_module @drop_train(%drop) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    fx.output %drop_train : tensor<2x3xf32>
  }
}

// -----

//===----------------------------------------------------------------------===//
// Reshape chains
//===----------------------------------------------------------------------===//

// view of a view: one view of the original input.

// CHECK-LABEL: fx.graph @view_view
// CHECK-NEXT:    %x = fx.placeholder "x"
// CHECK-NEXT:    %b = fx.call_function "aten::view"(%x, [24]) : (tensor<2x3x4xf32>) -> tensor<24xf32>
// CHECK-NEXT:    fx.output %b
fx.graph @view_view {
  %x = fx.placeholder "x" : tensor<2x3x4xf32>
  %a = fx.call_method "view"(%x, 6, 4) : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %b = fx.call_method "view"(%a, 24) : (tensor<6x4xf32>) -> tensor<24xf32>
  fx.output %b : tensor<24xf32>
}

// -----

// reshape of a view: a reshape.

// CHECK-LABEL: fx.graph @reshape_view
// CHECK-NEXT:    %x = fx.placeholder "x"
// CHECK-NEXT:    %b = fx.call_function "aten::reshape"(%x, [4, 6]) : (tensor<2x3x4xf32>) -> tensor<4x6xf32>
// CHECK-NEXT:    fx.output %b
fx.graph @reshape_view {
  %x = fx.placeholder "x" : tensor<2x3x4xf32>
  %a = fx.call_method "view"(%x, 6, 4) : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %b = fx.call_method "reshape"(%a, 4, 6) : (tensor<6x4xf32>) -> tensor<4x6xf32>
  fx.output %b : tensor<4x6xf32>
}

// -----

// view of a flatten: a reshape (flatten may copy).

// CHECK-LABEL: fx.graph @view_flatten
// CHECK-NEXT:    %x = fx.placeholder "x"
// CHECK-NEXT:    %b = fx.call_function "aten::reshape"(%x, [24]) : (tensor<2x3x4xf32>) -> tensor<24xf32>
// CHECK-NEXT:    fx.output %b
fx.graph @view_flatten {
  %x = fx.placeholder "x" : tensor<2x3x4xf32>
  %a = fx.call_function "torch.flatten"(%x, 1) : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  %b = fx.call_method "view"(%a, 24) : (tensor<2x12xf32>) -> tensor<24xf32>
  fx.output %b : tensor<24xf32>
}

// -----

// flatten of a view: the flatten is the outer call of the chain, so the
// pair is one reshape of the original input.

// CHECK-LABEL: fx.graph @flatten_view
// CHECK-NEXT:    %x = fx.placeholder "x"
// CHECK-NEXT:    %b = fx.call_function "aten::reshape"(%x, [24]) : (tensor<2x3x4xf32>) -> tensor<24xf32>
// CHECK-NEXT:    fx.output %b
fx.graph @flatten_view {
  %x = fx.placeholder "x" : tensor<2x3x4xf32>
  %a = fx.call_method "view"(%x, 6, 4) : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %b = fx.call_function "torch.flatten"(%a) : (tensor<6x4xf32>) -> tensor<24xf32>
  fx.output %b : tensor<24xf32>
}

// -----

// The inner view has another user: it stays; the outer view reads x.

// CHECK-LABEL: fx.graph @view_view_shared
// CHECK-NEXT:    %x = fx.placeholder "x"
// CHECK-NEXT:    %a = fx.call_method "view"(%x, 6, 4)
// CHECK-NEXT:    %b = fx.call_function "aten::view"(%x, [24])
// CHECK-NEXT:    fx.output (%a, %b)
fx.graph @view_view_shared {
  %x = fx.placeholder "x" : tensor<2x3x4xf32>
  %a = fx.call_method "view"(%x, 6, 4) : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %b = fx.call_method "view"(%a, 24) : (tensor<6x4xf32>) -> tensor<24xf32>
  fx.output (%a, %b) : tensor<6x4xf32>, tensor<24xf32>
}

// -----

// Sizes that are nodes are kept as node references.

// CHECK-LABEL: fx.graph @view_node_size
// CHECK:         %s = fx.call_method "size"(%x, 0)
// CHECK-NEXT:    %b = fx.call_function "aten::view"(%x, [%s, -1]) : (tensor<2x3x4xf32>, i64) -> tensor<2x12xf32>
// CHECK-NEXT:    fx.output %b
fx.graph @view_node_size {
  %x = fx.placeholder "x" : tensor<2x3x4xf32>
  %s = fx.call_method "size"(%x, 0) : (tensor<2x3x4xf32>) -> i64
  %a = fx.call_method "view"(%x, 6, 4) : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %b = fx.call_method "view"(%a, %s, -1) : (tensor<6x4xf32>, i64) -> tensor<2x12xf32>
  fx.output %b : tensor<2x12xf32>
}

// -----

// A reshape of a transposed tensor copies it: `t.reshape(6).view(3, 2)`
// folded into nothing would make the `add_` after it write through the
// transpose into %p, which eager leaves alone. Nodes a later in-place
// write reaches (directly or through views) are not rewritten; those it
// does not reach still are (%u, an identity view of an unwritten value).

// CHECK-LABEL: fx.graph @reshape_chain_written_in_place
// CHECK:         %t = fx.call_method "t"(%p)
// CHECK-NEXT:    %r = fx.call_method "reshape"(%t, 6)
// CHECK-NEXT:    %v = fx.call_method "view"(%r, 3, 2)
// CHECK-NEXT:    fx.call_method "add_"(%v, 1000)
// CHECK-NOT:     fx.call_method "view"(%x
// CHECK:         fx.output (%p, %v, %x)
fx.graph @reshape_chain_written_in_place {
  %x = fx.placeholder "x" : tensor<2x3xf32>
  %p = fx.call_function "torch.mul"(%x, 2) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %t = fx.call_method "t"(%p) : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %r = fx.call_method "reshape"(%t, 6) : (tensor<3x2xf32>) -> tensor<6xf32>
  %v = fx.call_method "view"(%r, 3, 2) : (tensor<6xf32>) -> tensor<3x2xf32>
  %w = fx.call_method "add_"(%v, 1000) : (tensor<3x2xf32>) -> tensor<3x2xf32>
  %u = fx.call_method "view"(%x, 2, 3) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  fx.output (%p, %v, %u) : tensor<2x3xf32>, tensor<3x2xf32>, tensor<2x3xf32>
}
