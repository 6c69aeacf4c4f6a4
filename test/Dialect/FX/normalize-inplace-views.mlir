// RUN: fx-opt %s -split-input-file --fx-normalize -verify-diagnostics | FileCheck %s

// In-place ATen calls (what torch.jit.trace records for `x.relu_()`,
// `m[a:b, c:d] = 1`, `nn.Dropout(inplace=True)`) become out-of-place
// ones. A write into a view of a tensor a node made reaches that tensor
// (the base): the view's new value is scattered back through each view
// (slice_scatter, select_scatter, the inverse transpose, ...), later
// readers of the base read the new base, and later readers of the views
// read views of the new base.

// swin_t's attention mask: fills of slices of slices of a new tensor.
// CHECK-LABEL: fx.graph @fill_slices
// CHECK: %new_zeros = fx.call_function "aten::zeros_like"
// CHECK: %slice = fx.call_function "aten::slice.Tensor"(%new_zeros, 0, 0, 2, 1)
// CHECK: %slice_1 = fx.call_function "aten::slice.Tensor"(%slice, 1, 0, 3, 1)
// CHECK: %fill_ = fx.call_function "aten::copy"(%slice_1, %c1, False) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
// CHECK: %slice_scatter = fx.call_function "aten::slice_scatter"(%slice, %fill_, 1, 0, 3, 1) : (tensor<2x5xf32>, tensor<2x3xf32>) -> tensor<2x5xf32>
// CHECK: %slice_scatter_1 = fx.call_function "aten::slice_scatter"(%new_zeros, %slice_scatter, 0, 0, 2, 1) : (tensor<4x5xf32>, tensor<2x5xf32>) -> tensor<4x5xf32>
// CHECK: %slice_2 = fx.call_function "aten::slice.Tensor"(%slice_scatter_1, 0, 2, 4, 1)
// CHECK: %fill__1 = fx.call_function "aten::full_like"(%slice_2, 2.0
// CHECK: %slice_scatter_2 = fx.call_function "aten::slice_scatter"(%slice_scatter_1, %fill__1, 0, 2, 4, 1)
// CHECK: fx.output %slice_scatter_2
fx.graph @fill_slices {
  %x = fx.placeholder "x" : tensor<4x5xf32>
  %c1 = fx.placeholder "c1" : tensor<f32>
  %new_zeros = fx.call_function "aten::zeros_like"(%x) : (tensor<4x5xf32>) -> tensor<4x5xf32>
  %slice = fx.call_function "aten::slice.Tensor"(%new_zeros, 0, 0, 2, 1) : (tensor<4x5xf32>) -> tensor<2x5xf32>
  %slice_1 = fx.call_function "aten::slice.Tensor"(%slice, 1, 0, 3, 1) : (tensor<2x5xf32>) -> tensor<2x3xf32>
  %fill_ = fx.call_function "aten::fill_.Tensor"(%slice_1, %c1) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %slice_2 = fx.call_function "aten::slice.Tensor"(%new_zeros, 0, 2, 4, 1) : (tensor<4x5xf32>) -> tensor<2x5xf32>
  %fill__1 = fx.call_function "aten::fill_.Scalar"(%slice_2, 2.0) : (tensor<2x5xf32>) -> tensor<2x5xf32>
  fx.output %new_zeros : tensor<4x5xf32>
}

// -----

// A row written (`y[1] += x[0]`), then read through the same view and
// through the base: the later view read is a view of the new base.
// CHECK-LABEL: fx.graph @select_then_read
// CHECK: %mul = fx.call_function "aten::mul.Tensor"(%x, %x)
// CHECK: %select = fx.call_function "aten::select.int"(%mul, 0, 1)
// CHECK: %add_ = fx.call_function "aten::add.Tensor"(%select, %select_1, alpha=1)
// CHECK: %select_scatter = fx.call_function "aten::select_scatter"(%mul, %add_, 0, 1) : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
// CHECK: %select_2 = fx.call_function "aten::select.int"(%select_scatter, 0, 1)
// CHECK: %neg = fx.call_function "aten::neg"(%select_2)
// CHECK: fx.output (%select_scatter, %neg)
fx.graph @select_then_read {
  %x = fx.placeholder "x" : tensor<3x4xf32>
  %mul = fx.call_function "aten::mul.Tensor"(%x, %x) : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %select = fx.call_function "aten::select.int"(%mul, 0, 1) : (tensor<3x4xf32>) -> tensor<4xf32>
  %select_1 = fx.call_function "aten::select.int"(%x, 0, 0) : (tensor<3x4xf32>) -> tensor<4xf32>
  %add_ = fx.call_function "aten::add_.Tensor"(%select, %select_1, alpha=1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %neg = fx.call_function "aten::neg"(%select) : (tensor<4xf32>) -> tensor<4xf32>
  fx.output (%mul, %neg) : tensor<3x4xf32>, tensor<4xf32>
}

// -----

// Writes through a transpose, an unsqueeze and a view: each undone on the
// new value (transpose back, squeeze, view to the viewed shape).
// CHECK-LABEL: fx.graph @reshaping_views
// CHECK: %relu_ = fx.call_function "aten::relu"(%transpose)
// CHECK: %transpose_1 = fx.call_function "aten::transpose.int"(%relu_, 0, 1) : (tensor<3x2xf32>) -> tensor<2x3xf32>
// CHECK: %unsqueeze = fx.call_function "aten::unsqueeze"(%transpose_1, 0)
// CHECK: %mul_ = fx.call_function "aten::mul.Scalar"(%unsqueeze, 3)
// CHECK: %squeeze = fx.call_function "aten::squeeze.dim"(%mul_, 0) : (tensor<1x2x3xf32>) -> tensor<2x3xf32>
// CHECK: %view = fx.call_function "aten::view"(%squeeze, [6])
// CHECK: %sigmoid_ = fx.call_function "aten::sigmoid"(%view)
// CHECK: %view_1 = fx.call_function "aten::view"(%sigmoid_, [2, 3]) : (tensor<6xf32>) -> tensor<2x3xf32>
// CHECK: fx.output %view_1
fx.graph @reshaping_views {
  %x = fx.placeholder "x" : tensor<2x3xf32>
  %abs = fx.call_function "aten::abs"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %transpose = fx.call_function "aten::transpose.int"(%abs, 0, 1) : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %relu_ = fx.call_function "aten::relu_"(%transpose) : (tensor<3x2xf32>) -> tensor<3x2xf32>
  %unsqueeze = fx.call_function "aten::unsqueeze"(%abs, 0) : (tensor<2x3xf32>) -> tensor<1x2x3xf32>
  %mul_ = fx.call_function "aten::mul_.Scalar"(%unsqueeze, 3) : (tensor<1x2x3xf32>) -> tensor<1x2x3xf32>
  %view = fx.call_function "aten::view"(%abs, [6]) : (tensor<2x3xf32>) -> tensor<6xf32>
  %sigmoid_ = fx.call_function "aten::sigmoid_"(%view) : (tensor<6xf32>) -> tensor<6xf32>
  fx.output %abs : tensor<2x3xf32>
}

// -----

// An evaluated in-place dropout changes nothing: a view's is the
// identity too (efficientnet's classifier after flatten).
// CHECK-LABEL: fx.graph @dropout_of_view
// CHECK: %dropout_ = fx.call_function "aten::dropout"(%flatten, 0.2, False)
fx.graph @dropout_of_view {
  %x = fx.placeholder "x" : tensor<2x3x4xf32>
  %flatten = fx.call_function "aten::flatten.using_ints"(%x, 1, -1) : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  %dropout_ = fx.call_function "aten::dropout_"(%flatten, 0.2, False) : (tensor<2x12xf32>) -> tensor<2x12xf32>
  fx.output %dropout_ : tensor<2x12xf32>
}

// -----

// Refused: another view made before the write and read after it would
// see the write (a graph input's view is refused too: the write would
// change the caller's tensor).
fx.graph @stale_alias {
  %x = fx.placeholder "x" : tensor<4xf32>
  %abs = fx.call_function "aten::abs"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %slice = fx.call_function "aten::slice.Tensor"(%abs, 0, 0, 2, 1) : (tensor<4xf32>) -> tensor<2xf32>
  %view = fx.call_function "aten::view"(%abs, [2, 2]) : (tensor<4xf32>) -> tensor<2x2xf32>
  // expected-warning @+1 {{call_function 'zero_' with target 'aten::zero_' is not supported}}
  %zero_ = fx.call_function "aten::zero_"(%slice) : (tensor<2xf32>) -> tensor<2xf32>
  fx.output %view : tensor<2x2xf32>
}

// -----

fx.graph @input_view {
  %x = fx.placeholder "x" : tensor<4xf32>
  %slice = fx.call_function "aten::slice.Tensor"(%x, 0, 0, 2, 1) : (tensor<4xf32>) -> tensor<2xf32>
  // expected-warning @+1 {{call_function 'zero_' with target 'aten::zero_' is not supported}}
  %zero_ = fx.call_function "aten::zero_"(%slice) : (tensor<2xf32>) -> tensor<2xf32>
  fx.output %x : tensor<4xf32>
}

// -----

// A piece of a split (torch.jit.trace's nn.LSTMCell: each gate of an
// unsafe_chunk updated in place) taken once, of a tensor nothing reads
// after the writes: the pieces do not overlap, so each write is its
// functional call, read by the piece's later readers.

// CHECK-LABEL: fx.graph @split_pieces
// CHECK:     %unsafe_chunk = fx.call_function "aten::unsafe_chunk"(%add, 2, 1)
// CHECK:     %sigmoid_ = fx.call_function "aten::sigmoid"(%getitem)
// CHECK:     %tanh_ = fx.call_function "aten::tanh"(%getitem_1)
// CHECK:     %mul = fx.call_function "aten::mul.Tensor"(%sigmoid_, %tanh_)
fx.graph @split_pieces {
  %x = fx.placeholder "x" : tensor<2x6xf32>
  %add = fx.call_function "aten::add.Tensor"(%x, %x, alpha=1) : (tensor<2x6xf32>, tensor<2x6xf32>) -> tensor<2x6xf32>
  %unsafe_chunk = fx.call_function "aten::unsafe_chunk"(%add, 2, 1) : (tensor<2x6xf32>) -> tuple<tensor<2x3xf32>, tensor<2x3xf32>>
  %getitem = fx.call_function "operator.getitem"(%unsafe_chunk, 0) : (tuple<tensor<2x3xf32>, tensor<2x3xf32>>) -> tensor<2x3xf32>
  %getitem_1 = fx.call_function "operator.getitem"(%unsafe_chunk, 1) : (tuple<tensor<2x3xf32>, tensor<2x3xf32>>) -> tensor<2x3xf32>
  %sigmoid_ = fx.call_function "aten::sigmoid_"(%getitem) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %tanh_ = fx.call_function "aten::tanh_"(%getitem_1) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %mul = fx.call_function "aten::mul.Tensor"(%getitem, %getitem_1) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  fx.output %mul : tensor<2x3xf32>
}

// -----

// Refused: the split tensor is read after the write (it would see it),
// or the same piece is taken twice.
fx.graph @split_base_read_after {
  %x = fx.placeholder "x" : tensor<2x6xf32>
  %add = fx.call_function "aten::add.Tensor"(%x, %x, alpha=1) : (tensor<2x6xf32>, tensor<2x6xf32>) -> tensor<2x6xf32>
  %chunk = fx.call_function "aten::chunk"(%add, 2, 1) : (tensor<2x6xf32>) -> tuple<tensor<2x3xf32>, tensor<2x3xf32>>
  %getitem = fx.call_function "operator.getitem"(%chunk, 0) : (tuple<tensor<2x3xf32>, tensor<2x3xf32>>) -> tensor<2x3xf32>
  // expected-warning @+1 {{call_function 'relu_' with target 'aten::relu_' is not supported}}
  %relu_ = fx.call_function "aten::relu_"(%getitem) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %neg = fx.call_function "aten::neg"(%add) : (tensor<2x6xf32>) -> tensor<2x6xf32>
  fx.output %neg : tensor<2x6xf32>
}

// -----

fx.graph @split_piece_twice {
  %x = fx.placeholder "x" : tensor<2x6xf32>
  %add = fx.call_function "aten::add.Tensor"(%x, %x, alpha=1) : (tensor<2x6xf32>, tensor<2x6xf32>) -> tensor<2x6xf32>
  %chunk = fx.call_function "aten::chunk"(%add, 2, 1) : (tensor<2x6xf32>) -> tuple<tensor<2x3xf32>, tensor<2x3xf32>>
  %getitem = fx.call_function "operator.getitem"(%chunk, 0) : (tuple<tensor<2x3xf32>, tensor<2x3xf32>>) -> tensor<2x3xf32>
  %again = fx.call_function "operator.getitem"(%chunk, 0) : (tuple<tensor<2x3xf32>, tensor<2x3xf32>>) -> tensor<2x3xf32>
  // expected-warning @+1 {{call_function 'relu_' with target 'aten::relu_' is not supported}}
  %relu_ = fx.call_function "aten::relu_"(%getitem) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  fx.output %again : tensor<2x3xf32>
}
