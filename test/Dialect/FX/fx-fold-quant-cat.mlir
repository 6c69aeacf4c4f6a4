// RUN: fx-opt %s --fx-fold-quant=int8-convs=true | FileCheck %s
// RUN: fx-opt %s --fx-fold-quant | FileCheck %s --check-prefix=FLOAT
//
// With int8-convs, a cat of dequantized tensors of one per-tensor quantized
// type concatenates the integers: cat([dequantize(a), dequantize(b)])
// becomes dequantize(cat([a, b])) (cat only copies: bit for bit), and the
// quantize convert_fx puts after it (the cat's observer is shared with its
// inputs', the same type) folds away. Inputs of different scales keep the
// float cat, which requantizes them.

// CHECK-LABEL: fx.graph_module @Cats
// CHECK: %a = fx.call_function "aten::quantize_per_tensor"(%x, 0.1, 128, torch.quint8)
// CHECK: %b = fx.call_function "aten::quantize_per_tensor"(%y, 0.1, 128, torch.quint8)
// CHECK: %j_q = fx.call_function "aten::cat"([%a, %b, %a], 1) : (tensor<1x4x3x3x!quant.uniform<u8:f32, 1.000000e-01:128>>, tensor<1x4x3x3x!quant.uniform<u8:f32, 1.000000e-01:128>>, tensor<1x4x3x3x!quant.uniform<u8:f32, 1.000000e-01:128>>) -> tensor<1x12x3x3x!quant.uniform<u8:f32, 1.000000e-01:128>>
// CHECK: %cf = fx.call_function "aten::fake_quantize_per_tensor_affine"(%y, 0.2, 128, 0, 255)
// CHECK: %mixed = fx.call_function "aten::cat"([%{{.*}}, %{{.*}}], 1) : (tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>) -> tensor<1x8x3x3xf32>
// CHECK: %mq = fx.call_function "aten::quantize_per_tensor"(%mixed, 0.2, 128, torch.quint8)
// CHECK: fx.output (%j_q, %mq)

// FLOAT-LABEL: fx.graph_module @Cats
// FLOAT: %j = fx.call_function "aten::cat"([%{{.*}}, %{{.*}}, %{{.*}}], 1) : (tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>) -> tensor<1x12x3x3xf32>
fx.graph_module @Cats {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x4x3x3xf32>
    %y = fx.placeholder "y" : tensor<1x4x3x3xf32>
    %a = fx.call_function "aten::quantize_per_tensor"(%x, 0.1, 128, torch.quint8) : (tensor<1x4x3x3xf32>) -> tensor<1x4x3x3x!quant.uniform<u8:f32, 0.1:128>>
    %b = fx.call_function "aten::quantize_per_tensor"(%y, 0.1, 128, torch.quint8) : (tensor<1x4x3x3xf32>) -> tensor<1x4x3x3x!quant.uniform<u8:f32, 0.1:128>>
    %c = fx.call_function "aten::quantize_per_tensor"(%y, 0.2, 128, torch.quint8) : (tensor<1x4x3x3xf32>) -> tensor<1x4x3x3x!quant.uniform<u8:f32, 0.2:128>>
    %af = fx.call_function "aten::dequantize.self"(%a) : (tensor<1x4x3x3x!quant.uniform<u8:f32, 0.1:128>>) -> tensor<1x4x3x3xf32>
    %bf = fx.call_function "aten::dequantize.self"(%b) : (tensor<1x4x3x3x!quant.uniform<u8:f32, 0.1:128>>) -> tensor<1x4x3x3xf32>
    %af2 = fx.call_function "aten::dequantize.self"(%a) : (tensor<1x4x3x3x!quant.uniform<u8:f32, 0.1:128>>) -> tensor<1x4x3x3xf32>
    %j = fx.call_function "aten::cat"([%af, %bf, %af2], 1) : (tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>) -> tensor<1x12x3x3xf32>
    %jq = fx.call_function "aten::quantize_per_tensor"(%j, 0.1, 128, torch.quint8) : (tensor<1x12x3x3xf32>) -> tensor<1x12x3x3x!quant.uniform<u8:f32, 0.1:128>>
    %cf = fx.call_function "aten::dequantize.self"(%c) : (tensor<1x4x3x3x!quant.uniform<u8:f32, 0.2:128>>) -> tensor<1x4x3x3xf32>
    %af3 = fx.call_function "aten::dequantize.self"(%a) : (tensor<1x4x3x3x!quant.uniform<u8:f32, 0.1:128>>) -> tensor<1x4x3x3xf32>
    %mixed = fx.call_function "aten::cat"([%af3, %cf], 1) : (tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>) -> tensor<1x8x3x3xf32>
    %mq = fx.call_function "aten::quantize_per_tensor"(%mixed, 0.2, 128, torch.quint8) : (tensor<1x8x3x3xf32>) -> tensor<1x8x3x3x!quant.uniform<u8:f32, 0.2:128>>
    fx.output (%jq, %mq) : tensor<1x12x3x3x!quant.uniform<u8:f32, 0.1:128>>, tensor<1x8x3x3x!quant.uniform<u8:f32, 0.2:128>>
  }
}
