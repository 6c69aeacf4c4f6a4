// RUN: fx-opt %s --fx-normalize | FileCheck %s
//
// fx-normalize writes quantized computations in reference form: a
// quantized module is dequantize -> its float operator on the dequantized
// weight -> [relu] -> quantize_per_tensor to the result's type (scale and
// zero point as literals); torch.ops.quantized.add is a float add between
// the same pair; an operator PyTorch runs on the integers (max pooling,
// flatten, cat) gets its operands dequantized and its result quantized.

// CHECK-LABEL: fx.graph_module @ConvNet
// CHECK: %quantize_per_tensor = fx.call_function "aten::quantize_per_tensor"(%x, 0.02, 138, torch.quint8)
// CHECK: %conv_dequantize = fx.call_function "aten::dequantize.self"(%quantize_per_tensor)
// CHECK: %conv_weight_dequantize = fx.call_function "aten::dequantize.self"(%conv_weight)
// CHECK: %conv_float = fx.call_function "aten::conv2d"(%conv_dequantize, %conv_weight_dequantize, %conv_bias, (1, 1), (0, 0), (1, 1), 1)
// CHECK: %conv_relu = fx.call_function "aten::relu"(%conv_float)
// CHECK: %conv = fx.call_function "aten::quantize_per_tensor"(%conv_relu, 0.0065, 0, torch.quint8) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4x!quant.uniform<u8:f32, 0.0064999999999999997>>
// CHECK: %pool_dequantize = fx.call_function "aten::dequantize.self"(%conv)
// CHECK: %pool_float = fx.call_function "aten::max_pool2d"(%pool_dequantize
// CHECK: %pool = fx.call_function "aten::quantize_per_tensor"(%pool_float, 0.0065, 0, torch.quint8)
// CHECK: %add_dequantize = fx.call_function "aten::dequantize.self"(%pool)
// CHECK: %add_float = fx.call_function "aten::add.Tensor"(%add_dequantize, %add_dequantize, 1)
// CHECK: %add = fx.call_function "aten::quantize_per_tensor"(%add_float, 0.013, 0, torch.quint8)
// CHECK: %cat_dequantize = fx.call_function "aten::dequantize.self"(%add)
// CHECK: %cat_dequantize_1 = fx.call_function "aten::dequantize.self"(%pool)
// CHECK: %cat_float = fx.call_function "aten::cat"([%cat_dequantize, %cat_dequantize_1], 1)
// CHECK: %cat = fx.call_function "aten::quantize_per_tensor"(%cat_float, 0.013, 0, torch.quint8)
// CHECK: %flatten_float = fx.call_function "aten::flatten.using_ints"
// CHECK: %fc_weight_dequantize = fx.call_function "aten::dequantize.self"(%fc_weight)
// CHECK: %fc_float = fx.call_function "aten::linear"(%fc_dequantize, %fc_weight_dequantize, %fc_bias)
// CHECK: %fc = fx.call_function "aten::quantize_per_tensor"(%fc_float, 0.05, 10, torch.quint8)
// CHECK: %dequantize = fx.call_function "aten::dequantize.self"(%fc)
fx.graph_module @ConvNet {
  fx.state buffer @scale : tensor<f32> = dense<0.02>
  fx.state buffer @zero_point : tensor<i64> = dense<138>
  fx.state parameter @conv.weight : tensor<2x1x3x3x!quant.uniform<i8:f32:0, {0.01:0, 0.02:0}>> = dense_resource<cw>
  fx.state parameter @conv.bias : tensor<2xf32> = dense<[0.5, -1.0]>
  fx.state parameter @fc.weight : tensor<3x16x!quant.uniform<i8:f32, 0.01:0>> = dense_resource<fw>
  fx.state parameter @fc.bias : tensor<3xf32> = dense<[0.5, -1.0, 0.25]>
  fx.submodule @conv "torch.ao.nn.intrinsic.quantized.ConvReLU2d"(in_channels=1, out_channels=2, kernel_size=(3, 3), stride=(1, 1), padding=(0, 0), dilation=(1, 1), groups=1, bias=True, padding_mode="zeros", scale=0.0065, zero_point=0)
  fx.submodule @pool "torch.nn.MaxPool2d"(kernel_size=2, stride=2, padding=0, dilation=1, return_indices=False, ceil_mode=False)
  fx.submodule @fc "torch.ao.nn.quantized.Linear"(in_features=16, out_features=3, bias_=True, dtype=torch.qint8, scale=0.05, zero_point=10)
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x1x6x6xf32>
    %scale = fx.get_attr @scale : tensor<f32>
    %zero_point = fx.get_attr @zero_point : tensor<i64>
    %quantize_per_tensor = fx.call_function "torch.quantize_per_tensor"(%x, %scale, %zero_point, torch.quint8) : (tensor<1x1x6x6xf32>, tensor<f32>, tensor<i64>) -> tensor<1x1x6x6x!quant.uniform<u8:f32, 0.02:138>>
    %conv = fx.call_module @conv(%quantize_per_tensor) : (tensor<1x1x6x6x!quant.uniform<u8:f32, 0.02:138>>) -> tensor<1x2x4x4x!quant.uniform<u8:f32, 0.0065:0>>
    %pool = fx.call_module @pool(%conv) : (tensor<1x2x4x4x!quant.uniform<u8:f32, 0.0065:0>>) -> tensor<1x2x2x2x!quant.uniform<u8:f32, 0.0065:0>>
    %add = fx.call_function "torch.ops.quantized.add"(%pool, %pool, 0.013, 0) : (tensor<1x2x2x2x!quant.uniform<u8:f32, 0.0065:0>>, tensor<1x2x2x2x!quant.uniform<u8:f32, 0.0065:0>>) -> tensor<1x2x2x2x!quant.uniform<u8:f32, 0.013:0>>
    %cat = fx.call_function "torch.cat"([%add, %pool], 1) : (tensor<1x2x2x2x!quant.uniform<u8:f32, 0.013:0>>, tensor<1x2x2x2x!quant.uniform<u8:f32, 0.0065:0>>) -> tensor<1x4x2x2x!quant.uniform<u8:f32, 0.013:0>>
    %flatten = fx.call_function "torch.flatten"(%cat, 1) : (tensor<1x4x2x2x!quant.uniform<u8:f32, 0.013:0>>) -> tensor<1x16x!quant.uniform<u8:f32, 0.013:0>>
    %fc = fx.call_module @fc(%flatten) : (tensor<1x16x!quant.uniform<u8:f32, 0.013:0>>) -> tensor<1x3x!quant.uniform<u8:f32, 0.05:10>>
    %dequantize = fx.call_method "dequantize"(%fc) : (tensor<1x3x!quant.uniform<u8:f32, 0.05:10>>) -> tensor<1x3xf32>
    fx.output %dequantize : tensor<1x3xf32>
  }
}

{-#
  dialect_resources: {
    builtin: {
      cw: "0x01000000010203040506070809FFFEFDFCFBFAF9F8F7",
      fw: "0x01000000000102030405060708090A0B0C0D0E0F000102030405060708090A0B0C0D0E0F000102030405060708090A0B0C0D0E0F"
    }
  }
#-}
