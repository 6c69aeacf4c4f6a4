// RUN: fx-opt %s -split-input-file --fx-normalize -verify-diagnostics | FileCheck %s

// aten::embedding_bag (nn.EmbeddingBag as TorchScript records it) expanded
// by fx-normalize (NormalizeEmbedding.cpp): each index's bag by bucketize
// of its position among the offsets, padding rows sent to a spare bag,
// the rows gathered and summed per bag (index_add), divided by the bag's
// count (mode 1, mean; an empty bag 0), the spare bag dropped. The
// expansions match eager in test/python/test_torchscript_ops.py
// (test_embedding_bags).

// CHECK-LABEL: fx.graph @mean_padding
// CHECK:     %bag_arange = fx.call_function "aten::arange"(8, dtype=torch.int64, layout=None, device=None, pin_memory=None)
// CHECK:     %bag_bucketize = fx.call_function "aten::bucketize.Tensor"(%bag_arange, %bag_slice, out_int32=False, right=True)
// CHECK:     %bag_sub = fx.call_function "aten::sub.Scalar"(%bag_bucketize, 1, 1)
// CHECK:     %bag_eq = fx.call_function "aten::eq.Scalar"(%i, 3)
// CHECK:     %bag_where = fx.call_function "aten::where.ScalarOther"(%bag_logical_not, %bag_sub, 3)
// CHECK:     %bag_embedding = fx.call_function "aten::embedding"(%w, %i, -1, False, False)
// CHECK:     %bag_index_add = fx.call_function "aten::index_add"(%bag_new_zeros, 0, %bag_where, %bag_embedding, alpha=1) : (tensor<4x4xf32>, tensor<8xi64>, tensor<8x4xf32>) -> tensor<4x4xf32>
// CHECK:     %bag_clamp = fx.call_function "aten::clamp"(%bag_index_add_1, 1, None)
// CHECK:     %bag_div = fx.call_function "aten::div.Tensor"(%bag_index_add, %bag_unsqueeze)
// CHECK:     %bag_slice_1 = fx.call_function "aten::slice.Tensor"(%bag_div, 0, 0, 3, 1) : (tensor<4x4xf32>) -> tensor<3x4xf32>
// CHECK:     fx.output %bag_slice_1
fx.graph @mean_padding {
  %w = fx.placeholder "w" : tensor<10x4xf32>
  %i = fx.placeholder "i" : tensor<8xi64>
  %o = fx.placeholder "o" : tensor<3xi64>
  %bag = fx.call_function "aten::embedding_bag.padding_idx"(%w, %i, %o, False, 1, False, None, False, 3) : (tensor<10x4xf32>, tensor<8xi64>, tensor<3xi64>) -> tuple<tensor<3x4xf32>, tensor<8xi64>, tensor<3xi64>, tensor<3xi64>>
  %g = fx.call_function "operator.getitem"(%bag, 0) : (tuple<tensor<3x4xf32>, tensor<8xi64>, tensor<3xi64>, tensor<3xi64>>) -> tensor<3x4xf32>
  fx.output %g : tensor<3x4xf32>
}

// -----

// Mode 2 (max) with include_last_offset: the last offset ends the last
// bag (later positions go to the spare bag); the maxima by scatter_reduce
// amax, not including the zeros (an empty bag stays 0).

// CHECK-LABEL: fx.graph @max_last_offset
// CHECK:     %bag_select = fx.call_function "aten::select.int"(%o, 0, 2)
// CHECK:     %bag_lt = fx.call_function "aten::lt.Tensor"(%bag_arange, %bag_select)
// CHECK:     %bag_where = fx.call_function "aten::where.ScalarOther"(%bag_lt, %bag_sub, 2)
// CHECK:     %bag_expand = fx.call_function "aten::expand"(%bag_unsqueeze, [8, 4], implicit=False)
// CHECK:     %bag_scatter_reduce = fx.call_function "aten::scatter_reduce.two"(%bag_new_zeros, 0, %bag_expand, %bag_embedding, "amax", include_self=False)
// CHECK:     fx.call_function "aten::slice.Tensor"(%bag_scatter_reduce, 0, 0, 2, 1) : (tensor<3x4xf32>) -> tensor<2x4xf32>
fx.graph @max_last_offset {
  %w = fx.placeholder "w" : tensor<10x4xf32>
  %i = fx.placeholder "i" : tensor<8xi64>
  %o = fx.placeholder "o" : tensor<3xi64>
  %bag = fx.call_function "aten::embedding_bag"(%w, %i, %o, False, 2, False, None, True) : (tensor<10x4xf32>, tensor<8xi64>, tensor<3xi64>) -> tuple<tensor<2x4xf32>, tensor<8xi64>, tensor<2xi64>, tensor<2x4xi64>>
  %g = fx.call_function "operator.getitem"(%bag, 0) : (tuple<tensor<2x4xf32>, tensor<8xi64>, tensor<2xi64>, tensor<2x4xi64>>) -> tensor<2x4xf32>
  fx.output %g : tensor<2x4xf32>
}

// -----

// Refused: a result other than the bags is read.
fx.graph @reads_offset2bag {
  %w = fx.placeholder "w" : tensor<10x4xf32>
  %i = fx.placeholder "i" : tensor<8xi64>
  %o = fx.placeholder "o" : tensor<3xi64>
  // expected-warning @+1 {{(only its first result (the bags) may be read)}}
  %bag = fx.call_function "aten::embedding_bag"(%w, %i, %o, False, 0, False, None, False) : (tensor<10x4xf32>, tensor<8xi64>, tensor<3xi64>) -> tuple<tensor<3x4xf32>, tensor<8xi64>, tensor<3xi64>, tensor<3xi64>>
  %g = fx.call_function "operator.getitem"(%bag, 1) : (tuple<tensor<3x4xf32>, tensor<8xi64>, tensor<3xi64>, tensor<3xi64>>) -> tensor<8xi64>
  fx.output %g : tensor<8xi64>
}
