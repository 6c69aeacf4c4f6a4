// RUN: fx-opt %s -split-input-file --fx-normalize -verify-diagnostics | FileCheck %s

// A traced reference-mode Embedding's weight: quantize_per_channel of the
// float weight with float zero points (per_channel_affine_float_qparams),
// then dequantize. The dequantize reads a float constant computed as ATen
// computes it: q = clamp(rint(x * (1 / scale) + zero_point)), then
// (q - zero_point) * scale. Row 0 (scale 0.5, zero point 1.5): 0.3 -> 2 ->
// 0.25; -2.0 -> rint(-2.5) = -2 -> clamped to 0 -> -0.75; 200.0 -> 402 ->
// clamped to 255 -> 126.75. Row 1 (0.25, 0.25): 0.1875, 0.9375, -0.0625.
// (torch.quantize_per_channel(...).dequantize() gives the same.)

// CHECK-LABEL: fx.graph_module @Quint8
// CHECK: fx.state parameter @e.weight_fake_quantized : tensor<2x3xf32> = dense_resource<e.weight_fake_quantized>
// CHECK: %[[ROWS:.*]] = fx.get_attr @e.weight_fake_quantized : tensor<2x3xf32>
// CHECK-NOT: quantize_per_channel
// CHECK-NOT: dequantize
// CHECK: fx.call_function "aten::embedding"(%[[ROWS]], %i
// CHECK: e.weight_fake_quantized: "0x080000000000803E000040BF0080FD420000403E0000703F000080BD"
fx.graph_module @Quint8 {
  fx.state parameter @e.weight : tensor<2x3xf32> = dense<[[0.3, -2.0, 200.0], [0.3, 1.0, -0.1]]>
  fx.state buffer @e.weight_scale : tensor<2xf32> = dense<[0.5, 0.25]>
  fx.state buffer @e.weight_zero_point : tensor<2xf32> = dense<[1.5, 0.25]>
  fx.graph @forward {
    %i = fx.placeholder "i" : tensor<4xi64>
    %w = fx.get_attr @e.weight : tensor<2x3xf32>
    %s = fx.get_attr @e.weight_scale : tensor<2xf32>
    %z = fx.get_attr @e.weight_zero_point : tensor<2xf32>
    %q = fx.call_function "aten::quantize_per_channel"(%w, %s, %z, 0, torch.quint8) : (tensor<2x3xf32>, tensor<2xf32>, tensor<2xf32>) -> !fx.any
    %dq = fx.call_function "aten::dequantize.self"(%q) : (!fx.any) -> tensor<2x3xf32>
    %e = fx.call_function "aten::embedding"(%dq, %i, -1, False, False) : (tensor<2x3xf32>, tensor<4xi64>) -> tensor<4x3xf32>
    fx.output %e : tensor<4x3xf32>
  }
}

// -----

// A 4-bit table, its dtype as TorchScript records it (c10's ScalarType
// code 16, quint4x2): values clamped to [0, 15] (200.0 -> 15 -> 6.75).

// CHECK-LABEL: fx.graph_module @Quint4x2
// CHECK: e.weight_fake_quantized: "0x080000000000803E000040BF0000D8400000403E0000703F000080BD"
fx.graph_module @Quint4x2 {
  fx.state parameter @e.weight : tensor<2x3xf32> = dense<[[0.3, -2.0, 200.0], [0.3, 1.0, -0.1]]>
  fx.state buffer @e.weight_scale : tensor<2xf32> = dense<[0.5, 0.25]>
  fx.state buffer @e.weight_zero_point : tensor<2xf32> = dense<[1.5, 0.25]>
  fx.graph @forward {
    %i = fx.placeholder "i" : tensor<4xi64>
    %w = fx.get_attr @e.weight : tensor<2x3xf32>
    %s = fx.get_attr @e.weight_scale : tensor<2xf32>
    %z = fx.get_attr @e.weight_zero_point : tensor<2xf32>
    %q = fx.call_function "aten::quantize_per_channel"(%w, %s, %z, 0, 16) : (tensor<2x3xf32>, tensor<2xf32>, tensor<2xf32>) -> !fx.any
    %dq = fx.call_function "aten::dequantize.self"(%q) : (!fx.any) -> tensor<2x3xf32>
    %e = fx.call_function "aten::embedding"(%dq, %i, -1, False, False) : (tensor<2x3xf32>, tensor<4xi64>) -> tensor<4x3xf32>
    fx.output %e : tensor<4x3xf32>
  }
}

// -----

// Float zero points on a value that is not module state: refused, named.

fx.graph_module @NotConstant {
  fx.state buffer @s : tensor<2xf32> = dense<[0.5, 0.25]>
  fx.state buffer @z : tensor<2xf32> = dense<[1.5, 0.25]>
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x3xf32>
    %s = fx.get_attr @s : tensor<2xf32>
    %z = fx.get_attr @z : tensor<2xf32>
    // expected-warning @+1 {{call_function 'q' with target 'aten::quantize_per_channel' is not supported (a quantization with float zero points needs constant (module state) values}}
    %q = fx.call_function "aten::quantize_per_channel"(%x, %s, %z, 0, torch.quint8) : (tensor<2x3xf32>, tensor<2xf32>, tensor<2xf32>) -> !fx.any
    %dq = fx.call_function "aten::dequantize.self"(%q) : (!fx.any) -> tensor<2x3xf32>
    fx.output %dq : tensor<2x3xf32>
  }
}
