// RUN: fx-opt %s --fx-fold-quant=int8-convs=true | FileCheck %s
// RUN: fx-opt %s --fx-fold-quant | FileCheck %s --check-prefix=FLOAT
//
// With int8-convs, max pooling of a dequantized per-tensor quantized value
// pools the integers instead: max_pool2d(dequantize(x)) becomes
// dequantize(max_pool2d(x)) (exact: the dequantization is increasing),
// and the quantize convert_fx puts after the pooling (the same scale and
// zero point) folds away with it. A pooling of a pooling pools the
// integers too; a quantize to another scale stays.

// CHECK-LABEL: fx.graph_module @Pools
// CHECK: %x = fx.call_function "aten::quantize_per_tensor"(%in, 0.1, 128, torch.quint8)
// CHECK: %p_q = fx.call_function "aten::max_pool2d"(%x, [3, 3], [2, 2], [1, 1], [1, 1], False) : (tensor<1x8x6x6x!quant.uniform<u8:f32, 1.000000e-01:128>>) -> tensor<1x8x3x3x!quant.uniform<u8:f32, 1.000000e-01:128>>
// CHECK: %p2_q = fx.call_function "aten::max_pool2d"(%p_q, [3, 3], [1, 1], [1, 1], [1, 1], False) : (tensor<1x8x3x3x!quant.uniform<u8:f32, 1.000000e-01:128>>) -> tensor<1x8x3x3x!quant.uniform<u8:f32, 1.000000e-01:128>>
// CHECK: %p2 = fx.call_function "aten::dequantize.self"(%p2_q)
// CHECK: %r = fx.call_function "aten::relu"(%p2)
// CHECK: %rescaled = fx.call_function "aten::quantize_per_tensor"(%p2, 0.2, 0, torch.quint8)
// CHECK: fx.output (%p_q, %r, %rescaled)
// CHECK-NOT: dequantize

// FLOAT-LABEL: fx.graph_module @Pools
// FLOAT: %xf = fx.call_function "aten::fake_quantize_per_tensor_affine"(%in, 0.1, 128, 0, 255)
// FLOAT: %p = fx.call_function "aten::max_pool2d"(%xf, [3, 3], [2, 2], [1, 1], [1, 1], False) : (tensor<1x8x6x6xf32>) -> tensor<1x8x3x3xf32>
// FLOAT: %p2 = fx.call_function "aten::max_pool2d"(%p,
fx.graph_module @Pools {
  fx.graph @forward {
    %in = fx.placeholder "in" : tensor<1x8x6x6xf32>
    %x = fx.call_function "aten::quantize_per_tensor"(%in, 0.1, 128, torch.quint8) : (tensor<1x8x6x6xf32>) -> tensor<1x8x6x6x!quant.uniform<u8:f32, 0.1:128>>
    %xf = fx.call_function "aten::dequantize.self"(%x) : (tensor<1x8x6x6x!quant.uniform<u8:f32, 0.1:128>>) -> tensor<1x8x6x6xf32>
    %p = fx.call_function "aten::max_pool2d"(%xf, [3, 3], [2, 2], [1, 1], [1, 1], False) : (tensor<1x8x6x6xf32>) -> tensor<1x8x3x3xf32>
    %pq = fx.call_function "aten::quantize_per_tensor"(%p, 0.1, 128, torch.quint8) : (tensor<1x8x3x3xf32>) -> tensor<1x8x3x3x!quant.uniform<u8:f32, 0.1:128>>
    %p2 = fx.call_function "aten::max_pool2d"(%p, [3, 3], [1, 1], [1, 1], [1, 1], False) : (tensor<1x8x3x3xf32>) -> tensor<1x8x3x3xf32>
    %r = fx.call_function "aten::relu"(%p2) : (tensor<1x8x3x3xf32>) -> tensor<1x8x3x3xf32>
    %rescaled = fx.call_function "aten::quantize_per_tensor"(%p2, 0.2, 0, torch.quint8) : (tensor<1x8x3x3xf32>) -> tensor<1x8x3x3x!quant.uniform<u8:f32, 0.2>>
    fx.output (%pq, %r, %rescaled) : tensor<1x8x3x3x!quant.uniform<u8:f32, 0.1:128>>, tensor<1x8x3x3xf32>, tensor<1x8x3x3x!quant.uniform<u8:f32, 0.2>>
  }
}

// -----

// Average pooling of a dequantized value quantized back to its own type
// (fx-normalize's form of PyTorch's quantized avg_pool2d) averages the
// integers, with or without int8 convs (for its rounding: half to even, as
// PyTorch's kernel); quantized to another scale it stays in floats.

// CHECK-LABEL: fx.graph_module @AvgPools
// CHECK: %a = fx.call_function "aten::avg_pool2d"(%x, [2, 2], [2, 2], [0, 0], False, True, None) : (tensor<1x8x6x6x!quant.uniform<u8:f32, 1.000000e-01:128>>) -> tensor<1x8x3x3x!quant.uniform<u8:f32, 1.000000e-01:128>>
// CHECK: %b_float = fx.call_function "aten::avg_pool2d"
// CHECK: %b = fx.call_function "aten::quantize_per_tensor"(%b_float, 0.2, 0, torch.quint8)
// CHECK: %c = fx.call_function "aten::adaptive_avg_pool2d"(%x, [4, 2]) : (tensor<1x8x6x6x!quant.uniform<u8:f32, 1.000000e-01:128>>) -> tensor<1x8x4x2x!quant.uniform<u8:f32, 1.000000e-01:128>>
// FLOAT-LABEL: fx.graph_module @AvgPools
// FLOAT: %a = fx.call_function "aten::avg_pool2d"(%x, [2, 2], [2, 2], [0, 0], False, True, None) : (tensor<1x8x6x6x!quant.uniform<u8:f32, 1.000000e-01:128>>)
fx.graph_module @AvgPools {
  fx.graph @forward {
    %in = fx.placeholder "in" : tensor<1x8x6x6xf32>
    %x = fx.call_function "aten::quantize_per_tensor"(%in, 0.1, 128, torch.quint8) : (tensor<1x8x6x6xf32>) -> tensor<1x8x6x6x!quant.uniform<u8:f32, 0.1:128>>
    %xf = fx.call_function "aten::dequantize.self"(%x) : (tensor<1x8x6x6x!quant.uniform<u8:f32, 0.1:128>>) -> tensor<1x8x6x6xf32>
    %a_float = fx.call_function "aten::avg_pool2d"(%xf, [2, 2], [2, 2], [0, 0], False, True, None) : (tensor<1x8x6x6xf32>) -> tensor<1x8x3x3xf32>
    %a = fx.call_function "aten::quantize_per_tensor"(%a_float, 0.1, 128, torch.quint8) : (tensor<1x8x3x3xf32>) -> tensor<1x8x3x3x!quant.uniform<u8:f32, 0.1:128>>
    %b_float = fx.call_function "aten::avg_pool2d"(%xf, [2, 2], [2, 2], [0, 0], False, True, None) : (tensor<1x8x6x6xf32>) -> tensor<1x8x3x3xf32>
    %b = fx.call_function "aten::quantize_per_tensor"(%b_float, 0.2, 0, torch.quint8) : (tensor<1x8x3x3xf32>) -> tensor<1x8x3x3x!quant.uniform<u8:f32, 0.2:0>>
    %c_float = fx.call_function "aten::adaptive_avg_pool2d"(%xf, [4, 2]) : (tensor<1x8x6x6xf32>) -> tensor<1x8x4x2xf32>
    %c = fx.call_function "aten::quantize_per_tensor"(%c_float, 0.1, 128, torch.quint8) : (tensor<1x8x4x2xf32>) -> tensor<1x8x4x2x!quant.uniform<u8:f32, 0.1:128>>
    fx.output (%a, %b, %c) : tensor<1x8x3x3x!quant.uniform<u8:f32, 0.1:128>>, tensor<1x8x3x3x!quant.uniform<u8:f32, 0.2:0>>, tensor<1x8x4x2x!quant.uniform<u8:f32, 0.1:128>>
  }
}

// -----

// Which rounding the averages take follows the layout PyTorch holds the
// pooled tensor in (eager, on contiguous inputs): a quantized conv writes
// channels-last, and so does what keeps its input's layout after it (a
// ReLU, a pooling), and a tensor of one channel is channels-last as well
// as contiguous: their averages carry fx.round_before_zero_point (ATen's
// channels-last kernels round before adding the zero point back). A
// contiguous input, or a concatenation of a channels-last tensor with a
// contiguous one, averages without it.

// CHECK-LABEL: fx.graph_module @AvgPoolLayouts
// CHECK: %after_conv = fx.call_function "aten::avg_pool2d"(%conv, {{.*}} {fx.round_before_zero_point}
// CHECK: %after_relu = fx.call_function "aten::adaptive_avg_pool2d"(%relu, {{.*}} {fx.round_before_zero_point}
// CHECK: %one_channel = fx.call_function "aten::avg_pool2d"(%y, {{.*}} {fx.round_before_zero_point}
// CHECK: %contiguous = fx.call_function "aten::avg_pool2d"(%x, [2, 2], [2, 2], [0, 0], False, True, None) : (
// CHECK: %mixed = fx.call_function "aten::avg_pool2d"(%cat, [2, 2], [2, 2], [0, 0], False, True, None) : (
fx.graph_module @AvgPoolLayouts {
  fx.graph @forward {
    %in = fx.placeholder "in" : tensor<1x8x6x6xf32>
    %in1 = fx.placeholder "in1" : tensor<1x1x6x6xf32>
    %w = fx.placeholder "w" : tensor<8x8x1x1xf32>
    %x = fx.call_function "aten::quantize_per_tensor"(%in, 0.1, 127, torch.quint8) : (tensor<1x8x6x6xf32>) -> tensor<1x8x6x6x!quant.uniform<u8:f32, 0.1:127>>
    %xf = fx.call_function "aten::dequantize.self"(%x) : (tensor<1x8x6x6x!quant.uniform<u8:f32, 0.1:127>>) -> tensor<1x8x6x6xf32>
    %conv_float = fx.call_function "aten::conv2d"(%xf, %w, None, [1, 1], [0, 0], [1, 1], 1) : (tensor<1x8x6x6xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x6x6xf32>
    %conv = fx.call_function "aten::quantize_per_tensor"(%conv_float, 0.1, 127, torch.quint8) : (tensor<1x8x6x6xf32>) -> tensor<1x8x6x6x!quant.uniform<u8:f32, 0.1:127>>
    %convf = fx.call_function "aten::dequantize.self"(%conv) : (tensor<1x8x6x6x!quant.uniform<u8:f32, 0.1:127>>) -> tensor<1x8x6x6xf32>
    %a_float = fx.call_function "aten::avg_pool2d"(%convf, [2, 2], [2, 2], [0, 0], False, True, None) : (tensor<1x8x6x6xf32>) -> tensor<1x8x3x3xf32>
    %after_conv = fx.call_function "aten::quantize_per_tensor"(%a_float, 0.1, 127, torch.quint8) : (tensor<1x8x3x3xf32>) -> tensor<1x8x3x3x!quant.uniform<u8:f32, 0.1:127>>
    %relu_float = fx.call_function "aten::relu"(%convf) : (tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
    %relu = fx.call_function "aten::quantize_per_tensor"(%relu_float, 0.1, 127, torch.quint8) : (tensor<1x8x6x6xf32>) -> tensor<1x8x6x6x!quant.uniform<u8:f32, 0.1:127>>
    %reluf = fx.call_function "aten::dequantize.self"(%relu) : (tensor<1x8x6x6x!quant.uniform<u8:f32, 0.1:127>>) -> tensor<1x8x6x6xf32>
    %b_float = fx.call_function "aten::adaptive_avg_pool2d"(%reluf, [4, 2]) : (tensor<1x8x6x6xf32>) -> tensor<1x8x4x2xf32>
    %after_relu = fx.call_function "aten::quantize_per_tensor"(%b_float, 0.1, 127, torch.quint8) : (tensor<1x8x4x2xf32>) -> tensor<1x8x4x2x!quant.uniform<u8:f32, 0.1:127>>
    %y = fx.call_function "aten::quantize_per_tensor"(%in1, 0.1, 127, torch.quint8) : (tensor<1x1x6x6xf32>) -> tensor<1x1x6x6x!quant.uniform<u8:f32, 0.1:127>>
    %yf = fx.call_function "aten::dequantize.self"(%y) : (tensor<1x1x6x6x!quant.uniform<u8:f32, 0.1:127>>) -> tensor<1x1x6x6xf32>
    %c_float = fx.call_function "aten::avg_pool2d"(%yf, [2, 2], [2, 2], [0, 0], False, True, None) : (tensor<1x1x6x6xf32>) -> tensor<1x1x3x3xf32>
    %one_channel = fx.call_function "aten::quantize_per_tensor"(%c_float, 0.1, 127, torch.quint8) : (tensor<1x1x3x3xf32>) -> tensor<1x1x3x3x!quant.uniform<u8:f32, 0.1:127>>
    %d_float = fx.call_function "aten::avg_pool2d"(%xf, [2, 2], [2, 2], [0, 0], False, True, None) : (tensor<1x8x6x6xf32>) -> tensor<1x8x3x3xf32>
    %contiguous = fx.call_function "aten::quantize_per_tensor"(%d_float, 0.1, 127, torch.quint8) : (tensor<1x8x3x3xf32>) -> tensor<1x8x3x3x!quant.uniform<u8:f32, 0.1:127>>
    %cat = fx.call_function "aten::cat"([%conv, %x], 1) : (tensor<1x8x6x6x!quant.uniform<u8:f32, 0.1:127>>, tensor<1x8x6x6x!quant.uniform<u8:f32, 0.1:127>>) -> tensor<1x16x6x6x!quant.uniform<u8:f32, 0.1:127>>
    %catf = fx.call_function "aten::dequantize.self"(%cat) : (tensor<1x16x6x6x!quant.uniform<u8:f32, 0.1:127>>) -> tensor<1x16x6x6xf32>
    %e_float = fx.call_function "aten::avg_pool2d"(%catf, [2, 2], [2, 2], [0, 0], False, True, None) : (tensor<1x16x6x6xf32>) -> tensor<1x16x3x3xf32>
    %mixed = fx.call_function "aten::quantize_per_tensor"(%e_float, 0.1, 127, torch.quint8) : (tensor<1x16x3x3xf32>) -> tensor<1x16x3x3x!quant.uniform<u8:f32, 0.1:127>>
    fx.output (%after_conv, %after_relu, %one_channel, %contiguous, %mixed) : tensor<1x8x3x3x!quant.uniform<u8:f32, 0.1:127>>, tensor<1x8x4x2x!quant.uniform<u8:f32, 0.1:127>>, tensor<1x1x3x3x!quant.uniform<u8:f32, 0.1:127>>, tensor<1x8x3x3x!quant.uniform<u8:f32, 0.1:127>>, tensor<1x16x3x3x!quant.uniform<u8:f32, 0.1:127>>
  }
}

// -----

// Bilinear upsampling of a dequantized value quantized back to its own
// type (fx-normalize's form of PyTorch's quantized upsample_bilinear2d)
// interpolates the integers, as PyTorch's kernel does (the weights of a
// scale of 2 are quarters: through floats the halves they make round
// either way); quantized to another scale it stays in floats. Nearest
// upsampling only copies, and stays as it is.

// CHECK-LABEL: fx.graph_module @Bilinear
// CHECK: %up = fx.call_function "aten::upsample_bilinear2d.vec"(%x, None, False, [2.0, 2.0]) : (tensor<1x4x3x3x!quant.uniform<u8:f32, 1.000000e-01:127>>) -> tensor<1x4x6x6x!quant.uniform<u8:f32, 1.000000e-01:127>>
// CHECK-NOT: fx.round_before_zero_point
// CHECK: %other_float = fx.call_function "aten::upsample_bilinear2d.vec"(%xf
// CHECK: %other = fx.call_function "aten::quantize_per_tensor"(%other_float, 0.2, 0, torch.quint8)
// FLOAT-LABEL: fx.graph_module @Bilinear
// FLOAT: %up = fx.call_function "aten::upsample_bilinear2d.vec"(%x, None, False, [2.0, 2.0]) : (tensor<1x4x3x3x!quant.uniform<u8:f32, 1.000000e-01:127>>)
fx.graph_module @Bilinear {
  fx.graph @forward {
    %in = fx.placeholder "in" : tensor<1x4x3x3xf32>
    %x = fx.call_function "aten::quantize_per_tensor"(%in, 0.1, 127, torch.quint8) : (tensor<1x4x3x3xf32>) -> tensor<1x4x3x3x!quant.uniform<u8:f32, 0.1:127>>
    %xf = fx.call_function "aten::dequantize.self"(%x) : (tensor<1x4x3x3x!quant.uniform<u8:f32, 0.1:127>>) -> tensor<1x4x3x3xf32>
    %up_float = fx.call_function "aten::upsample_bilinear2d.vec"(%xf, None, False, [2.0, 2.0]) : (tensor<1x4x3x3xf32>) -> tensor<1x4x6x6xf32>
    %up = fx.call_function "aten::quantize_per_tensor"(%up_float, 0.1, 127, torch.quint8) : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6x!quant.uniform<u8:f32, 0.1:127>>
    %other_float = fx.call_function "aten::upsample_bilinear2d.vec"(%xf, None, False, [2.0, 2.0]) : (tensor<1x4x3x3xf32>) -> tensor<1x4x6x6xf32>
    %other = fx.call_function "aten::quantize_per_tensor"(%other_float, 0.2, 0, torch.quint8) : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6x!quant.uniform<u8:f32, 0.2:0>>
    fx.output (%up, %other) : tensor<1x4x6x6x!quant.uniform<u8:f32, 0.1:127>>, tensor<1x4x6x6x!quant.uniform<u8:f32, 0.2:0>>
  }
}

// -----

// 1-D average poolings of a quantized tensor to its own type average the
// integers too. PyTorch pools a 3-D tensor as [N, C, 1, L]: a quantized
// conv1d's output (a conv2d's, squeezed) is channels-last in that view,
// so its poolings round before adding the zero point back; a contiguous
// input's do not.

// CHECK-LABEL: fx.graph_module @Pools1d
// CHECK: %after_conv = fx.call_function "aten::adaptive_avg_pool1d"(%conv, [4]) {fx.round_before_zero_point} : (tensor<1x8x8x!quant.uniform<u8:f32, 1.000000e-01:127>>) -> tensor<1x8x4x!quant.uniform<u8:f32, 1.000000e-01:127>>
// CHECK: %contiguous = fx.call_function "aten::avg_pool1d"(%x, [2], [2], [0], False, True) : (tensor<1x8x8x!quant.uniform<u8:f32, 1.000000e-01:127>>) -> tensor<1x8x4x!quant.uniform<u8:f32, 1.000000e-01:127>>
fx.graph_module @Pools1d {
  fx.graph @forward {
    %in = fx.placeholder "in" : tensor<1x8x8xf32>
    %w = fx.placeholder "w" : tensor<8x8x1xf32>
    %x = fx.call_function "aten::quantize_per_tensor"(%in, 0.1, 127, torch.quint8) : (tensor<1x8x8xf32>) -> tensor<1x8x8x!quant.uniform<u8:f32, 0.1:127>>
    %xf = fx.call_function "aten::dequantize.self"(%x) : (tensor<1x8x8x!quant.uniform<u8:f32, 0.1:127>>) -> tensor<1x8x8xf32>
    %conv_float = fx.call_function "aten::conv1d"(%xf, %w, None, [1], [0], [1], 1) : (tensor<1x8x8xf32>, tensor<8x8x1xf32>) -> tensor<1x8x8xf32>
    %conv = fx.call_function "aten::quantize_per_tensor"(%conv_float, 0.1, 127, torch.quint8) : (tensor<1x8x8xf32>) -> tensor<1x8x8x!quant.uniform<u8:f32, 0.1:127>>
    %convf = fx.call_function "aten::dequantize.self"(%conv) : (tensor<1x8x8x!quant.uniform<u8:f32, 0.1:127>>) -> tensor<1x8x8xf32>
    %a_float = fx.call_function "aten::adaptive_avg_pool1d"(%convf, [4]) : (tensor<1x8x8xf32>) -> tensor<1x8x4xf32>
    %after_conv = fx.call_function "aten::quantize_per_tensor"(%a_float, 0.1, 127, torch.quint8) : (tensor<1x8x4xf32>) -> tensor<1x8x4x!quant.uniform<u8:f32, 0.1:127>>
    %b_float = fx.call_function "aten::avg_pool1d"(%xf, [2], [2], [0], False, True) : (tensor<1x8x8xf32>) -> tensor<1x8x4xf32>
    %contiguous = fx.call_function "aten::quantize_per_tensor"(%b_float, 0.1, 127, torch.quint8) : (tensor<1x8x4xf32>) -> tensor<1x8x4x!quant.uniform<u8:f32, 0.1:127>>
    fx.output (%after_conv, %contiguous) : tensor<1x8x4x!quant.uniform<u8:f32, 0.1:127>>, tensor<1x8x4x!quant.uniform<u8:f32, 0.1:127>>
  }
}
