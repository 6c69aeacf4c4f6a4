// RUN: fx-opt %s --fx-fold-quant | FileCheck %s
//
// @Fold: a dequantized weight is dequantized once, at compile time, into a new
// float parameter ((q - zero_point) * scale per channel: 1 * 0.25, 2 *
// 0.25, -1 * 0.25; (-128 - 3) * 0.125, (0 - 3) * 0.125, (127 - 3) *
// 0.125); the quantized weight nothing reads any more is erased. A
// quantize of a dequantize back to the same type is its input; a
// dequantize of a quantize is one fake quantization.

// @Redundant: fake quantizations that change nothing are dropped: a second one of the
// same value to the same grid (%b2: its user reads %a1), and one of values
// on its own grid: a fake quantization to it, or a max pool, ReLU, flatten
// or cat of such values (%c1, %d1, %e1, through several of them).
// One to another grid (%f1: zero point 3), of an operator that leaves the
// grid (the average pool's %g1), or of a max pool of a value on another
// grid (%h1) stays.

// CHECK-LABEL: fx.graph_module @Redundant
// CHECK: %a1 = fx.call_function "aten::fake_quantize_per_tensor_affine"(%x, 0.5, 0, 0, 255)
// CHECK-NOT: %b2 =
// CHECK: %pool = fx.call_function "aten::max_pool2d"(%a1,
// CHECK-NOT: %c1 =
// CHECK: %r = fx.call_function "aten::relu"(%pool)
// CHECK-NOT: %d1 =
// CHECK: %flat = fx.call_function "aten::flatten.using_ints"(%r, 1, -1)
// CHECK: %cat = fx.call_function "aten::cat"([%flat, %a1flat], 1)
// CHECK-NOT: %e1 =
// CHECK: %f1 = fx.call_function "aten::fake_quantize_per_tensor_affine"(%cat, 0.5, 3, 0, 255)
// CHECK: %avg = fx.call_function "aten::avg_pool2d"(%a1,
// CHECK: %g1 = fx.call_function "aten::fake_quantize_per_tensor_affine"(%avg, 0.5, 0, 0, 255)
// CHECK: %h1 = fx.call_function "aten::fake_quantize_per_tensor_affine"(%pool2, 0.5, 0, 0, 255)
// CHECK: %b2user = fx.call_function "aten::neg"(%a1)
// CHECK: fx.output (%f1, %g1, %h1, %b2user)
fx.graph_module @Redundant {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x2x4x4xf32>
    %a1 = fx.call_function "aten::fake_quantize_per_tensor_affine"(%x, 0.5, 0, 0, 255) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
    %b2 = fx.call_function "aten::fake_quantize_per_tensor_affine"(%x, 0.5, 0, 0, 255) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
    %pool = fx.call_function "aten::max_pool2d"(%a1, [2, 2], [2, 2], [0, 0], [1, 1], False) : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
    %c1 = fx.call_function "aten::fake_quantize_per_tensor_affine"(%pool, 0.5, 0, 0, 255) : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
    %r = fx.call_function "aten::relu"(%c1) : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
    %d1 = fx.call_function "aten::fake_quantize_per_tensor_affine"(%r, 0.5, 0, 0, 255) : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
    %flat = fx.call_function "aten::flatten.using_ints"(%d1, 1, -1) : (tensor<1x2x2x2xf32>) -> tensor<1x8xf32>
    %a1flat = fx.call_function "aten::flatten.using_ints"(%a1, 2, -1) : (tensor<1x2x4x4xf32>) -> tensor<1x2x16xf32>
    %cat = fx.call_function "aten::cat"([%flat, %a1flat], 1) : (tensor<1x8xf32>, tensor<1x2x16xf32>) -> tensor<1x40xf32>
    %e1 = fx.call_function "aten::fake_quantize_per_tensor_affine"(%cat, 0.5, 0, 0, 255) : (tensor<1x40xf32>) -> tensor<1x40xf32>
    %f1 = fx.call_function "aten::fake_quantize_per_tensor_affine"(%e1, 0.5, 3, 0, 255) : (tensor<1x40xf32>) -> tensor<1x40xf32>
    %avg = fx.call_function "aten::avg_pool2d"(%a1, [2, 2], [2, 2], [0, 0], False, True, None) : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
    %g1 = fx.call_function "aten::fake_quantize_per_tensor_affine"(%avg, 0.5, 0, 0, 255) : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
    %other = fx.call_function "aten::fake_quantize_per_tensor_affine"(%x, 0.25, 0, 0, 255) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
    %pool2 = fx.call_function "aten::max_pool2d"(%other, [2, 2], [2, 2], [0, 0], [1, 1], False) : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
    %h1 = fx.call_function "aten::fake_quantize_per_tensor_affine"(%pool2, 0.5, 0, 0, 255) : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
    %b2user = fx.call_function "aten::neg"(%b2) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
    fx.output (%f1, %g1, %h1, %b2user) : tensor<1x40xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x4x4xf32>
  }
}

// CHECK-LABEL: fx.graph_module @Fold
// CHECK-NOT: fx.state parameter @w :
// CHECK: fx.state parameter @w_dequantized : tensor<2x3xf32> = dense_resource<w_dequantized>
// CHECK: %x = fx.call_function "aten::quantize_per_tensor"(%q, 0.1, 128, torch.quint8)
// The fake quantization keeps the quantize's int64 quirk (a scaled value
// from 2^63 up gives quant_min), marked fx.quantize_overflow.
// CHECK: %xf = fx.call_function "aten::fake_quantize_per_tensor_affine"(%q, 0.1, 128, 0, 255) {fx.quantize_overflow} : (tensor<4x3xf32>) -> tensor<4x3xf32>
// CHECK: %w_dequantized = fx.get_attr @w_dequantized : tensor<2x3xf32>
// CHECK: %y = fx.call_function "aten::linear"(%xf, %w_dequantized)
// CHECK: fx.output (%x, %y)
// CHECK: w_dequantized: "0x080000000000803E0000003F000080BE000083C10000C0BE00007841"
fx.graph_module @Fold {
  fx.state parameter @w : tensor<2x3x!quant.uniform<i8:f32:0, {0.25:0, 0.125:3}>> = dense_resource<w>
  fx.graph @forward {
    %q = fx.placeholder "q" : tensor<4x3xf32>
    %x = fx.call_function "aten::quantize_per_tensor"(%q, 0.1, 128, torch.quint8) : (tensor<4x3xf32>) -> tensor<4x3x!quant.uniform<u8:f32, 0.1:128>>
    %xf = fx.call_function "aten::dequantize.self"(%x) : (tensor<4x3x!quant.uniform<u8:f32, 0.1:128>>) -> tensor<4x3xf32>
    %again = fx.call_function "aten::quantize_per_tensor"(%xf, 0.1, 128, torch.quint8) : (tensor<4x3xf32>) -> tensor<4x3x!quant.uniform<u8:f32, 0.1:128>>
    %w = fx.get_attr @w : tensor<2x3x!quant.uniform<i8:f32:0, {0.25:0, 0.125:3}>>
    %wf = fx.call_function "aten::dequantize.self"(%w) : (tensor<2x3x!quant.uniform<i8:f32:0, {0.25:0, 0.125:3}>>) -> tensor<2x3xf32>
    %y = fx.call_function "aten::linear"(%xf, %wf) : (tensor<4x3xf32>, tensor<2x3xf32>) -> tensor<4x2xf32>
    fx.output (%again, %y) : tensor<4x3x!quant.uniform<u8:f32, 0.1:128>>, tensor<4x2xf32>
  }
}

{-#
  dialect_resources: {
    builtin: {
      w: "0x010000000102FF80007F"
    }
  }
#-}
