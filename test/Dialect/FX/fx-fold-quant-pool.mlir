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
