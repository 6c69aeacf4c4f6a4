// RUN: fx-opt %s -split-input-file --fx-normalize -verify-diagnostics | FileCheck %s

// nn.MultiheadAttention calls expanded by fx-normalize
// (NormalizeAttention.cpp) into the calls of
// F.multi_head_attention_forward, working batch first. The expansions of
// these forms match eager in test/python/test_compile.py
// (test_multihead_attention_forms).

// Returned whole (sequence first, no biases): the output gets the tuple
// (output, weights averaged over the heads).

// CHECK-LABEL: fx.graph_module @Whole
// CHECK:     %attn_transpose = fx.call_function "aten::transpose.int"(%x, 0, 1)
// CHECK:     %attn_linear = fx.call_function "aten::linear"(%attn_transpose, %attn_slice, None)
// CHECK:     %attn_softmax = fx.call_function "aten::softmax.int"(%attn_matmul, -1, None)
// CHECK:     %attn_linear_3 = fx.call_function "aten::linear"(%attn_reshape, %attn_out_proj_weight, None)
// CHECK:     %attn_transpose_8 = fx.call_function "aten::transpose.int"(%attn_linear_3, 0, 1)
// CHECK:     %attn_mean = fx.call_function "aten::mean.dim"(%attn_softmax, [1], False, dtype=None)
// CHECK-NOT: fx.call_module
// CHECK:     fx.output (%x, (%attn_transpose_8, %attn_mean))
fx.graph_module @Whole {
  fx.state parameter @attn.in_proj_weight : tensor<24x8xf32>
  fx.state parameter @attn.out_proj.weight : tensor<8x8xf32>
  fx.submodule @attn "torch.nn.MultiheadAttention"(embed_dim=8, num_heads=2, bias=False, batch_first=False)
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<3x1x8xf32>
    %attn = fx.call_module @attn(%x, %x, %x) : (tensor<3x1x8xf32>, tensor<3x1x8xf32>, tensor<3x1x8xf32>) -> !fx.any
    fx.output (%x, %attn) : tensor<3x1x8xf32>, !fx.any
  }
}

// -----

// add_bias_kv appends bias_k/bias_v (expanded over the batch) to the
// projected keys and values, add_zero_attn a zero key and value per head;
// the masks get a zero column per appended key (never masked). A 3-D
// attn_mask (N * H, L, S) is viewed as (N, H, L, S); a bool mask fills
// -inf, the key padding mask unsqueezed to (N, 1, 1, S). Per-head weights
// (average_attn_weights=False) are the softmax itself.

// CHECK-LABEL: fx.graph_module @BiasZeroMasks
// CHECK:     %attn_linear_1 = fx.call_function "aten::linear"(%k, %attn_slice_2, %attn_slice_3)
// CHECK:     %attn_slice_4 = fx.call_function "aten::slice.Tensor"(%attn_linear_1, 1, 0, 1, 1)
// CHECK:     %attn_expand_as = fx.call_function "aten::expand_as"(%attn_bias_k, %attn_slice_4)
// CHECK:     %attn_cat = fx.call_function "aten::cat"([%attn_linear_1, %attn_expand_as], 1)
// CHECK:     %attn_view_1 = fx.call_function "aten::view"(%attn_cat, [%attn_size_1, -1, 2, 4])
// CHECK:     %attn_slice_5 = fx.call_function "aten::slice.Tensor"(%attn_transpose_1, 2, 0, 1, 1)
// CHECK:     %attn_zeros_like = fx.call_function "aten::zeros_like"(%attn_slice_5, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None)
// CHECK:     %attn_cat_1 = fx.call_function "aten::cat"([%attn_transpose_1, %attn_zeros_like], 2)
// CHECK:     %attn_expand_as_1 = fx.call_function "aten::expand_as"(%attn_bias_v, %attn_slice_8)
// CHECK:     %attn_cat_3 = fx.call_function "aten::cat"([%attn_transpose_2, %attn_zeros_like_1], 2)
// CHECK:     %attn_constant_pad_nd = fx.call_function "aten::constant_pad_nd"(%am, [0, 2], 0) : (tensor<4x3x5xf32>) -> tensor<*xf32>
// CHECK:     %attn_reshape = fx.call_function "aten::reshape"(%attn_constant_pad_nd, [-1, 2, %attn_size_3, %attn_size_4])
// CHECK:     %attn_constant_pad_nd_1 = fx.call_function "aten::constant_pad_nd"(%kpm, [0, 2], 0) : (tensor<2x5xi1>) -> tensor<*xi1>
// CHECK:     %attn_unsqueeze = fx.call_function "aten::unsqueeze"(%attn_constant_pad_nd_1, 1) : (tensor<*xi1>) -> tensor<*xi1>
// CHECK:     %attn_unsqueeze_1 = fx.call_function "aten::unsqueeze"(%attn_unsqueeze, 1) : (tensor<*xi1>) -> tensor<*xi1>
// CHECK:     %attn_transpose_3 = fx.call_function "aten::transpose.int"(%attn_cat_1, -2, -1)
// CHECK:     %attn_add = fx.call_function "aten::add.Tensor"(%attn_matmul, %attn_reshape, alpha=1)
// CHECK:     %attn_masked_fill = fx.call_function "aten::masked_fill.Scalar"(%attn_add, %attn_unsqueeze_1, -inf)
// CHECK:     %attn_softmax = fx.call_function "aten::softmax.int"(%attn_masked_fill, -1, None)
// CHECK:     %attn_matmul_1 = fx.call_function "aten::matmul"(%attn_softmax, %attn_cat_3)
// CHECK-NOT: aten::mean
// CHECK:     fx.output (%attn_linear_3, %attn_softmax)
fx.graph_module @BiasZeroMasks {
  fx.state parameter @attn.in_proj_weight : tensor<24x8xf32>
  fx.state parameter @attn.in_proj_bias : tensor<24xf32>
  fx.state parameter @attn.bias_k : tensor<1x1x8xf32>
  fx.state parameter @attn.bias_v : tensor<1x1x8xf32>
  fx.state parameter @attn.out_proj.weight : tensor<8x8xf32>
  fx.state parameter @attn.out_proj.bias : tensor<8xf32>
  fx.submodule @attn "torch.nn.MultiheadAttention"(embed_dim=8, num_heads=2, add_bias_kv=True, add_zero_attn=True, batch_first=True)
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x3x8xf32>
    %k = fx.placeholder "k" : tensor<2x5x8xf32>
    %am = fx.placeholder "am" : tensor<4x3x5xf32>
    %kpm = fx.placeholder "kpm" : tensor<2x5xi1>
    %attn = fx.call_module @attn(%x, %k, %k, attn_mask=%am, key_padding_mask=%kpm, average_attn_weights=False) : (tensor<2x3x8xf32>, tensor<2x5x8xf32>, tensor<2x5x8xf32>, tensor<4x3x5xf32>, tensor<2x5xi1>) -> !fx.any
    %getitem = fx.call_function "operator.getitem"(%attn, 0) : (!fx.any) -> tensor<2x3x8xf32>
    %getitem_1 = fx.call_function "operator.getitem"(%attn, 1) : (!fx.any) -> tensor<2x2x3x7xf32>
    fx.output (%getitem, %getitem_1) : tensor<2x3x8xf32>, tensor<2x2x3x7xf32>
  }
}

// -----

// Unbatched inputs (L, E) are a batch of one; with need_weights=False the
// weights are None.

// CHECK-LABEL: fx.graph_module @Unbatched
// CHECK:     %attn_unsqueeze = fx.call_function "aten::unsqueeze"(%x, 0)
// CHECK:     %attn_squeeze = fx.call_function "aten::squeeze.dim"(%attn_linear_3, 0)
// CHECK-NOT: aten::mean
// CHECK:     fx.output (%attn_squeeze, None)
fx.graph_module @Unbatched {
  fx.state parameter @attn.in_proj_weight : tensor<24x8xf32>
  fx.state parameter @attn.out_proj.weight : tensor<8x8xf32>
  fx.submodule @attn "torch.nn.MultiheadAttention"(embed_dim=8, num_heads=2, bias=False)
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<3x8xf32>
    %attn = fx.call_module @attn(%x, %x, %x, need_weights=False) : (tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>) -> !fx.any
    %getitem = fx.call_function "operator.getitem"(%attn, 0) : (!fx.any) -> tensor<3x8xf32>
    %getitem_1 = fx.call_function "operator.getitem"(%attn, 1) : (!fx.any) -> none
    fx.output (%getitem, %getitem_1) : tensor<3x8xf32>, none
  }
}

// -----

// ATen's fast path of nn.MultiheadAttention (eval, batch first, no grad:
// what torch.jit.trace records): the packed projection sliced per input,
// a key padding mask (mask_type 1) unsqueezed to (N, 1, 1, S) and filling
// -inf; the output keeps the query's type.

// CHECK-LABEL: fx.graph @NativeAttention
// CHECK:     %a_slice_1 = fx.call_function "aten::slice.Tensor"(%w, 0, 0, 8, 1)
// CHECK:     %a_linear = fx.call_function "aten::linear"(%x, %a_slice_1, %a_slice)
// CHECK:     %a_unsqueeze_1 = fx.call_function "aten::unsqueeze"(%a_unsqueeze, 1) : (tensor<*xi1>) -> tensor<*xi1>
// CHECK:     %a_masked_fill = fx.call_function "aten::masked_fill.Scalar"(%a_matmul, %a_unsqueeze_1, -inf)
// CHECK:     %a_linear_3 = fx.call_function "aten::linear"(%a_reshape, %pw, %pb) : (tensor<*xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<2x3x8xf32>
// CHECK:     %a_mean = fx.call_function "aten::mean.dim"(%a_softmax, [1], False, dtype=None)
// CHECK:     fx.output (%a_linear_3, %a_mean)
fx.graph @NativeAttention {
  %x = fx.placeholder "x" : tensor<2x3x8xf32>
  %w = fx.placeholder "w" : tensor<24x8xf32>
  %b = fx.placeholder "b" : tensor<24xf32>
  %pw = fx.placeholder "pw" : tensor<8x8xf32>
  %pb = fx.placeholder "pb" : tensor<8xf32>
  %m = fx.placeholder "m" : tensor<2x3xi1>
  %a = fx.call_function "aten::_native_multi_head_attention"(%x, %x, %x, 8, 2, %w, %b, %pw, %pb, %m, True, True, 1) : (tensor<2x3x8xf32>, tensor<2x3x8xf32>, tensor<2x3x8xf32>, tensor<24x8xf32>, tensor<24xf32>, tensor<8x8xf32>, tensor<8xf32>, tensor<2x3xi1>) -> tuple<tensor<2x3x8xf32>, tensor<2x3x3xf32>>
  %g0 = fx.call_function "operator.getitem"(%a, 0) : (tuple<tensor<2x3x8xf32>, tensor<2x3x3xf32>>) -> tensor<2x3x8xf32>
  %g1 = fx.call_function "operator.getitem"(%a, 1) : (tuple<tensor<2x3x8xf32>, tensor<2x3x3xf32>>) -> tensor<2x3x3xf32>
  fx.output (%g0, %g1) : tensor<2x3x8xf32>, tensor<2x3x3xf32>
}


// -----

// ATen's fast path of nn.TransformerEncoderLayer: attention, residual and
// norm, then the feed-forward block (gelu when use_gelu) and norm; with
// norm_first the norms come before each block. The result keeps the
// source's type, which the next layer's expansion reads.

// CHECK-LABEL: fx.graph @EncoderLayer
// CHECK:     %l_add = fx.call_function "aten::add.Tensor"(%x, %l_linear_3, alpha=1)
// CHECK:     %l_layer_norm = fx.call_function "aten::layer_norm"(%l_add, [8], %n, %pb, 1.0e-05, True)
// CHECK:     %l_linear_4 = fx.call_function "aten::linear"(%l_layer_norm, %f1, %fb1)
// CHECK:     %l_gelu = fx.call_function "aten::gelu"(%l_linear_4, approximate="none")
// CHECK:     %l_add_1 = fx.call_function "aten::add.Tensor"(%l_layer_norm, %l_linear_5, alpha=1)
// CHECK:     %l_layer_norm_1 = fx.call_function "aten::layer_norm"(%l_add_1, [8], %n, %pb, 1.0e-05, True) : (tensor<*xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x3x8xf32>
// CHECK:     %l2_layer_norm = fx.call_function "aten::layer_norm"(%l_layer_norm_1, [8], %n, %pb, 1.0e-05, True)
// CHECK:     %l2_linear = fx.call_function "aten::linear"(%l2_layer_norm, %l2_slice_1, %l2_slice)
// CHECK:     %l2_add = fx.call_function "aten::add.Tensor"(%l_layer_norm_1, %l2_linear_3, alpha=1)
// CHECK:     %l2_layer_norm_1 = fx.call_function "aten::layer_norm"(%l2_add, [8], %n, %pb, 1.0e-05, True)
// CHECK:     %l2_relu = fx.call_function "aten::relu"(%l2_linear_4)
// CHECK:     %l2_add_1 = fx.call_function "aten::add.Tensor"(%l2_add, %l2_linear_5, alpha=1) : (tensor<*xf32>, tensor<*xf32>) -> tensor<2x3x8xf32>
// CHECK:     fx.output %l2_add_1

fx.graph @EncoderLayer {
  %x = fx.placeholder "x" : tensor<2x3x8xf32>
  %w = fx.placeholder "w" : tensor<24x8xf32>
  %b = fx.placeholder "b" : tensor<24xf32>
  %pw = fx.placeholder "pw" : tensor<8x8xf32>
  %pb = fx.placeholder "pb" : tensor<8xf32>
  %n = fx.placeholder "n" : tensor<8xf32>
  %f1 = fx.placeholder "f1" : tensor<16x8xf32>
  %fb1 = fx.placeholder "fb1" : tensor<16xf32>
  %f2 = fx.placeholder "f2" : tensor<8x16xf32>
  %l = fx.call_function "aten::_transformer_encoder_layer_fwd"(%x, 8, 2, %w, %b, %pw, %pb, True, False, 1.0e-05, %n, %pb, %n, %pb, %f1, %fb1, %f2, %pb, None, None) : (tensor<2x3x8xf32>, tensor<24x8xf32>, tensor<24xf32>, tensor<8x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<16x8xf32>, tensor<16xf32>, tensor<8x16xf32>, tensor<8xf32>) -> tensor<2x3x8xf32>
  %l2 = fx.call_function "aten::_transformer_encoder_layer_fwd"(%l, 8, 2, %w, %b, %pw, %pb, False, True, 1.0e-05, %n, %pb, %n, %pb, %f1, %fb1, %f2, %pb, None, None) : (tensor<2x3x8xf32>, tensor<24x8xf32>, tensor<24xf32>, tensor<8x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<16x8xf32>, tensor<16xf32>, tensor<8x16xf32>, tensor<8xf32>) -> tensor<2x3x8xf32>
  fx.output %l2 : tensor<2x3x8xf32>
}

// -----

// What is not expanded is left with a warning saying why.

fx.graph_module @NotExpanded {
  fx.state parameter @attn.in_proj_weight : tensor<24x8xf32>
  fx.state parameter @attn.out_proj.weight : tensor<8x8xf32>
  fx.submodule @attn "torch.nn.MultiheadAttention"(embed_dim=8, num_heads=2, bias=False)
  fx.submodule @train "torch.nn.MultiheadAttention"(embed_dim=8, num_heads=2, bias=False) training
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<3x1x8xf32>
    %m = fx.placeholder "m" : tensor<3xf32>
    // expected-warning @+1 {{(training mode)}}
    %a = fx.call_module @train(%x, %x, %x) : (tensor<3x1x8xf32>, tensor<3x1x8xf32>, tensor<3x1x8xf32>) -> !fx.any
    // expected-warning @+1 {{(its result is used other than by getitem 0 or 1)}}
    %b = fx.call_module @attn(%x, %x, %x) : (tensor<3x1x8xf32>, tensor<3x1x8xf32>, tensor<3x1x8xf32>) -> !fx.any
    %b2 = fx.call_function "operator.getitem"(%b, 2) : (!fx.any) -> i1
    // expected-warning @+1 {{('need_weights' must be a constant bool)}}
    %c = fx.call_module @attn(%x, %x, %x, need_weights=%b2) : (tensor<3x1x8xf32>, tensor<3x1x8xf32>, tensor<3x1x8xf32>, i1) -> !fx.any
    // expected-warning @+1 {{(attn_mask must be a 2-D or 3-D tensor of known type)}}
    %d = fx.call_module @attn(%x, %x, %x, attn_mask=%m) : (tensor<3x1x8xf32>, tensor<3x1x8xf32>, tensor<3x1x8xf32>, tensor<3xf32>) -> !fx.any
    // expected-warning @+1 {{(the weights, None here (need_weights=False), are read)}}
    %e = fx.call_module @attn(%x, %x, %x, need_weights=False) : (tensor<3x1x8xf32>, tensor<3x1x8xf32>, tensor<3x1x8xf32>) -> !fx.any
    %e1 = fx.call_function "operator.getitem"(%e, 1) : (!fx.any) -> none
    %e2 = fx.call_function "operator.getitem"(%e1, 0) : (none) -> none
    fx.output (%a, %c, %d, %e2) : !fx.any, !fx.any, !fx.any, none
  }
}

// -----

fx.graph @FastPathNotExpanded {
  %x = fx.placeholder "x" : tensor<2x3x8xf32>
  %w = fx.placeholder "w" : tensor<24x8xf32>
  %m = fx.placeholder "m" : tensor<2x3xf32>
  // expected-warning @+1 {{(supports a bool mask of 2 dims with mask_type 0 (attention) or 1 (key padding))}}
  %a = fx.call_function "aten::_native_multi_head_attention"(%x, %x, %x, 8, 2, %w, None, %w, None, %m, True, True, 1) : (tensor<2x3x8xf32>, tensor<2x3x8xf32>, tensor<2x3x8xf32>, tensor<24x8xf32>, tensor<24x8xf32>, tensor<2x3xf32>) -> !fx.any
  // expected-warning @+1 {{(needs a 3-D source, constant sizes, flags and eps, and the weights)}}
  %l = fx.call_function "aten::_transformer_encoder_layer_fwd"(%x, 8, 3, %w, None, %w, None, True, False, 1.0e-05, None, None, None, None, %w, None, %w, None, None, None) : (tensor<2x3x8xf32>, tensor<24x8xf32>, tensor<24x8xf32>, tensor<24x8xf32>, tensor<24x8xf32>) -> tensor<2x3x8xf32>
  fx.output (%a, %l) : !fx.any, tensor<2x3x8xf32>
}

// -----

// bias_k without bias_v (F.multi_head_attention_forward takes both or
// neither): the call is left as it is, with a warning naming the module,
// and nothing is emitted for it (a fuzzed input crashed here: the missing
// bias_v was read as a null value).

// CHECK-LABEL: fx.graph_module @BiasKWithoutBiasV
// CHECK-NOT: fx.get_attr
// CHECK: fx.call_module @attn(%x, %k, %k)
fx.graph_module @BiasKWithoutBiasV {
  fx.state parameter @attn.in_proj_weight : tensor<24x8xf32>
  fx.state parameter @attn.in_proj_bias : tensor<24xf32>
  fx.state parameter @attn.bias_k : tensor<1x1x8xf32>
  fx.state parameter @attn.out_proj.weight : tensor<8x8xf32>
  fx.state parameter @attn.out_proj.bias : tensor<8xf32>
  fx.submodule @attn "torch.nn.MultiheadAttention"(embed_dim=8, num_heads=2, add_zero_attn=True, batch_first=True)
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x3x8xf32>
    %k = fx.placeholder "k" : tensor<2x5x8xf32>
    // expected-warning @+1 {{call_module 'attn' with target 'attn' is not supported (it has bias_k without bias_v)}}
    %attn = fx.call_module @attn(%x, %k, %k) : (tensor<2x3x8xf32>, tensor<2x5x8xf32>, tensor<2x5x8xf32>) -> !fx.any
    %getitem = fx.call_function "operator.getitem"(%attn, 0) : (!fx.any) -> tensor<2x3x8xf32>
    fx.output %getitem : tensor<2x3x8xf32>
  }
}
