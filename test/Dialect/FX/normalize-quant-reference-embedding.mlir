// RUN: fx-opt %s -split-input-file --fx-normalize -verify-diagnostics | FileCheck %s

// Reference mode's Embedding (torch.ao.nn.quantized.reference, weight-only
// quantized with a float scale and zero point a row): the float embedding
// of its weight quantized and dequantized as weight_qparams say, a
// constant `<path>.weight_reference` computed as ATen's get_weight does.
// Row 0 (scale 0.5, zero point 1.5): 0.3 -> 0.25, -2.0 -> -0.75 (clamped
// to 0), 200.0 -> 126.75 (clamped to 255); row 1 (0.25, 0.25): 0.1875,
// 0.9375, -0.0625.

// CHECK-LABEL: fx.graph_module @ReferenceEmbedding
// CHECK: %[[ROWS:.*]] = fx.get_attr @e.weight_reference : tensor<2x3xf32>
// CHECK: %e = fx.call_function "aten::embedding"(%[[ROWS]], %i, 1, False, False) : (tensor<2x3xf32>, tensor<4xi64>) -> tensor<4x3xf32>
// CHECK: e.weight_reference: "0x080000000000803E000040BF0080FD420000403E0000703F000080BD"
fx.graph_module @ReferenceEmbedding {
  fx.state parameter @e.weight : tensor<2x3xf32> = dense<[[0.3, -2.0, 200.0], [0.3, 1.0, -0.1]]>
  fx.submodule @e "torch.ao.nn.quantized.reference.Embedding"(num_embeddings=2, embedding_dim=3, padding_idx=1, max_norm=None, norm_type=2.0, scale_grad_by_freq=False, sparse=False, weight_qparams={"qscheme": "per_channel_affine_float_qparams", "dtype": torch.quint8, "scale": [0.5, 0.25], "zero_point": [1.5, 0.25], "axis": 0})
  fx.graph @forward {
    %i = fx.placeholder "i" : tensor<4xi64>
    %e = fx.call_module @e(%i) : (tensor<4xi64>) -> tensor<4x3xf32>
    fx.output %e : tensor<4x3xf32>
  }
}

// -----

// A reference EmbeddingBag keeps its mode (here mean) and takes its
// per_sample_weights by name: the bags of the same rows, gathered and
// averaged per bag (as fx-normalize expands aten::embedding_bag), a
// 4-bit table clamping 200.0 to 15 (6.75).

// CHECK-LABEL: fx.graph_module @ReferenceBag
// CHECK: %[[ROWS:.*]] = fx.get_attr @b.weight_reference : tensor<2x3xf32>
// CHECK: fx.call_function "aten::embedding"(%[[ROWS]], %j, -1, False, False)
// CHECK: "aten::index_add"
// CHECK: "aten::div.Tensor"
// CHECK: %b = fx.call_function "aten::slice.Tensor"({{.*}}) : (tensor<3x3xf32>) -> tensor<2x3xf32>
// CHECK: b.weight_reference: "0x080000000000803E000040BF0000D8400000403E0000703F000080BD"
fx.graph_module @ReferenceBag {
  fx.state parameter @b.weight : tensor<2x3xf32> = dense<[[0.3, -2.0, 200.0], [0.3, 1.0, -0.1]]>
  fx.submodule @b "torch.ao.nn.quantized.reference.EmbeddingBag"(num_embeddings=2, embedding_dim=3, max_norm=None, norm_type=2.0, scale_grad_by_freq=False, mode="mean", sparse=False, include_last_offset=False, padding_idx=None, weight_qparams={"qscheme": "per_channel_affine_float_qparams", "dtype": torch.quint4x2, "scale": [0.5, 0.25], "zero_point": [1.5, 0.25], "axis": 0})
  fx.graph @forward {
    %j = fx.placeholder "j" : tensor<5xi64>
    %o = fx.placeholder "o" : tensor<2xi64>
    %b = fx.call_module @b(%j, offsets=%o) : (tensor<5xi64>, tensor<2xi64>) -> tensor<2x3xf32>
    fx.output %b : tensor<2x3xf32>
  }
}

// -----

// 2-D indices without offsets (bags of one row of indices each, as
// F.embedding_bag takes them): the indices and per_sample_weights
// flattened, the offsets 0, 3 (arange(0, 6, 3)).

// CHECK-LABEL: fx.graph_module @ReferenceBagOfRows
// CHECK: %[[FLAT:.*]] = fx.call_function "aten::reshape"(%j, [6]) : (tensor<2x3xi64>) -> tensor<6xi64>
// CHECK: %[[WEIGHTS:.*]] = fx.call_function "aten::reshape"(%w, [6]) : (tensor<2x3xf32>) -> tensor<6xf32>
// CHECK: %[[OFFSETS:.*]] = fx.call_function "aten::arange.start_step"(0, 6, 3, dtype=torch.int64, {{.*}}) : () -> tensor<2xi64>
// CHECK: "aten::slice.Tensor"(%[[OFFSETS]], 0, 0, 2, 1)
// CHECK: fx.call_function "aten::embedding"({{.*}}, %[[FLAT]], -1, False, False)
// CHECK: "aten::unsqueeze"(%[[WEIGHTS]], -1)
// CHECK: %b = fx.call_function "aten::slice.Tensor"({{.*}}) : (tensor<3x3xf32>) -> tensor<2x3xf32>
fx.graph_module @ReferenceBagOfRows {
  fx.state parameter @b.weight : tensor<2x3xf32> = dense<[[0.3, -2.0, 200.0], [0.3, 1.0, -0.1]]>
  fx.submodule @b "torch.ao.nn.quantized.reference.EmbeddingBag"(num_embeddings=2, embedding_dim=3, max_norm=None, norm_type=2.0, scale_grad_by_freq=False, mode="sum", sparse=False, include_last_offset=False, padding_idx=None, weight_qparams={"qscheme": "per_channel_affine_float_qparams", "dtype": torch.quint8, "scale": [0.5, 0.25], "zero_point": [1.5, 0.25], "axis": 0})
  fx.graph @forward {
    %j = fx.placeholder "j" : tensor<2x3xi64>
    %w = fx.placeholder "w" : tensor<2x3xf32>
    %b = fx.call_module @b(%j, per_sample_weights=%w) : (tensor<2x3xi64>, tensor<2x3xf32>) -> tensor<2x3xf32>
    fx.output %b : tensor<2x3xf32>
  }
}

// -----

// max_norm renormalizes the rows a call reads: refused, named.

fx.graph_module @MaxNorm {
  fx.state parameter @e.weight : tensor<2x3xf32> = dense<[[0.3, -2.0, 200.0], [0.3, 1.0, -0.1]]>
  fx.submodule @e "torch.ao.nn.quantized.reference.Embedding"(num_embeddings=2, embedding_dim=3, padding_idx=None, max_norm=1.0, norm_type=2.0, scale_grad_by_freq=False, sparse=False, weight_qparams={"qscheme": "per_channel_affine_float_qparams", "dtype": torch.quint8, "scale": [0.5, 0.25], "zero_point": [1.5, 0.25], "axis": 0})
  fx.graph @forward {
    %i = fx.placeholder "i" : tensor<4xi64>
    // expected-warning @+1 {{call_module 'e' with target 'e' is not supported (max_norm (which renormalizes the rows it reads) is not supported)}}
    %e = fx.call_module @e(%i) : (tensor<4xi64>) -> tensor<4x3xf32>
    fx.output %e : tensor<4x3xf32>
  }
}
