// RUN: fx-opt %s --fx-normalize | FileCheck %s
//
// torch.ops.quantized functions in reference form: their float operator on
// the dequantized operands with the args it takes (positional or by name),
// their output scale and zero point (keywords or 0-d tensors read with
// get_attr) taken from the result's type. A quantized LayerNorm reads its
// float weight and bias. A quantized Dropout passes its input on.

// CHECK-LABEL: fx.graph_module @Functions
// CHECK: %hardswish_dequantize = fx.call_function "aten::dequantize.self"(%q)
// CHECK: %hardswish_float = fx.call_function "aten::hardswish"(%hardswish_dequantize)
// CHECK: %hardswish = fx.call_function "aten::quantize_per_tensor"(%hardswish_float, 0.05, 3, torch.quint8)
// CHECK: %leaky_relu_float = fx.call_function "aten::leaky_relu"(%leaky_relu_dequantize, 0.2)
// CHECK: %leaky_relu = fx.call_function "aten::quantize_per_tensor"(%leaky_relu_float, 0.04, 10, torch.quint8)
// CHECK: %ln_float = fx.call_function "aten::layer_norm"(%ln_dequantize, (4,), %ln_weight, %ln_bias, 1.0e-05, False)
// CHECK: %ln = fx.call_function "aten::quantize_per_tensor"(%ln_float, 0.02, 128, torch.quint8)
// CHECK: %dequantize = fx.call_function "aten::dequantize.self"(%ln)
fx.graph_module @Functions {
  fx.state buffer @s : tensor<f32> = dense<0.05>
  fx.state buffer @z : tensor<i64> = dense<3>
  fx.state parameter @ln.weight : tensor<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
  fx.state parameter @ln.bias : tensor<4xf32> = dense<0.5>
  fx.submodule @ln "torch.ao.nn.quantized.LayerNorm"(normalized_shape=(4,), weight=True, bias=True, scale=0.02, zero_point=128, eps=1.0e-05, elementwise_affine=True)
  fx.submodule @drop "torch.ao.nn.quantized.Dropout"(p=0.5, inplace=False) training
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x4xf32>
    %q = fx.call_function "torch.quantize_per_tensor"(%x, 0.1, 128, torch.quint8) : (tensor<2x4xf32>) -> tensor<2x4x!quant.uniform<u8:f32, 0.1:128>>
    %s = fx.get_attr @s : tensor<f32>
    %z = fx.get_attr @z : tensor<i64>
    %hardswish = fx.call_function "torch.ops.quantized.hardswish"(%q, output_scale=%s, output_zero_point=%z) : (tensor<2x4x!quant.uniform<u8:f32, 0.1:128>>, tensor<f32>, tensor<i64>) -> tensor<2x4x!quant.uniform<u8:f32, 0.05:3>>
    %leaky_relu = fx.call_function "torch.ops.quantized.leaky_relu"(%hardswish, negative_slope=0.2, inplace=False, output_scale=0.04, output_zero_point=10) : (tensor<2x4x!quant.uniform<u8:f32, 0.05:3>>) -> tensor<2x4x!quant.uniform<u8:f32, 0.04:10>>
    %drop = fx.call_module @drop(%leaky_relu) : (tensor<2x4x!quant.uniform<u8:f32, 0.04:10>>) -> tensor<2x4x!quant.uniform<u8:f32, 0.04:10>>
    %ln = fx.call_module @ln(%drop) : (tensor<2x4x!quant.uniform<u8:f32, 0.04:10>>) -> tensor<2x4x!quant.uniform<u8:f32, 0.02:128>>
    %dequantize = fx.call_method "dequantize"(%ln) : (tensor<2x4x!quant.uniform<u8:f32, 0.02:128>>) -> tensor<2x4xf32>
    fx.output %dequantize : tensor<2x4xf32>
  }
}
