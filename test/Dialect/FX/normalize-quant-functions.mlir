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

// The other quantized modules without a packed weight: BNReLU2d (batch
// norm then relu, its scale and zero point kept as buffers), ELU (alpha,
// scale and input_scale), InstanceNorm2d (the input's own statistics, the
// affine weight and bias), Softmax (its dim); and a quantized
// ConvTranspose2d: the float transposed conv on the dequantized weight,
// with output_padding, groups and dilation in conv_transpose2d's order.

// CHECK-LABEL: fx.graph_module @Weightless
// CHECK: %bn_float = fx.call_function "aten::batch_norm"(%bn_dequantize, %bn_weight, %bn_bias, %bn_running_mean, %bn_running_var, False, 0.1, 1.0e-05, False)
// CHECK: %bn_relu = fx.call_function "aten::relu"(%bn_float)
// CHECK: %bn = fx.call_function "aten::quantize_per_tensor"(%bn_relu, 0.02, 0, torch.quint8)
// CHECK: %elu_float = fx.call_function "aten::elu"(%elu_dequantize, 0.5, 1.0, 1.0)
// CHECK: %inorm_float = fx.call_function "aten::instance_norm"(%inorm_dequantize, %inorm_weight, %inorm_bias, None, None, True, 0.1, 1.0e-05, False)
// CHECK: %softmax_float = fx.call_function "aten::softmax.int"(%softmax_dequantize, 1, None)
// CHECK: %up_weight_dequantize = fx.call_function "aten::dequantize.self"(%up_weight)
// CHECK: %up_float = fx.call_function "aten::conv_transpose2d.input"(%up_dequantize, %up_weight_dequantize, %up_bias, (2, 2), (1, 1), (0, 0), 2, (1, 1))
// CHECK: %up = fx.call_function "aten::quantize_per_tensor"(%up_float, 0.03, 64, torch.quint8)
fx.graph_module @Weightless {
  fx.state parameter @bn.weight : tensor<4xf32> = dense<1.5>
  fx.state parameter @bn.bias : tensor<4xf32> = dense<0.5>
  fx.state buffer @bn.running_mean : tensor<4xf32> = dense<0.25>
  fx.state buffer @bn.running_var : tensor<4xf32> = dense<2.0>
  fx.state buffer @bn.scale : tensor<f32> = dense<0.02>
  fx.state buffer @bn.zero_point : tensor<i64> = dense<0>
  fx.state parameter @inorm.weight : tensor<4xf32> = dense<2.0>
  fx.state parameter @inorm.bias : tensor<4xf32> = dense<0.1>
  fx.state parameter @up.weight : tensor<4x1x3x3x!quant.uniform<i8:f32, 0.01>> = dense_resource<uw>
  fx.state parameter @up.bias : tensor<2xf32> = dense<0.0>
  fx.submodule @bn "torch.ao.nn.intrinsic.quantized.BNReLU2d"(num_features=4, eps=1.0e-05, momentum=0.1)
  fx.submodule @elu "torch.ao.nn.quantized.ELU"(scale=0.05, zero_point=20, alpha=0.5)
  fx.submodule @inorm "torch.ao.nn.quantized.InstanceNorm2d"(num_features=4, weight=True, bias=True, scale=0.04, zero_point=128, eps=1.0e-05, affine=True)
  fx.submodule @softmax "torch.ao.nn.quantized.Softmax"(dim=1, scale=0.00390625, zero_point=0)
  fx.submodule @up "torch.ao.nn.quantized.ConvTranspose2d"(in_channels=4, out_channels=2, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1), output_padding=(0, 0), groups=2, bias=True, dilation=(1, 1), padding_mode="zeros", scale=0.03, zero_point=64)
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x4x5x5xf32>
    %q = fx.call_function "torch.quantize_per_tensor"(%x, 0.1, 128, torch.quint8) : (tensor<1x4x5x5xf32>) -> tensor<1x4x5x5x!quant.uniform<u8:f32, 0.1:128>>
    %bn = fx.call_module @bn(%q) : (tensor<1x4x5x5x!quant.uniform<u8:f32, 0.1:128>>) -> tensor<1x4x5x5x!quant.uniform<u8:f32, 0.02>>
    %elu = fx.call_module @elu(%bn) : (tensor<1x4x5x5x!quant.uniform<u8:f32, 0.02>>) -> tensor<1x4x5x5x!quant.uniform<u8:f32, 0.05:20>>
    %inorm = fx.call_module @inorm(%elu) : (tensor<1x4x5x5x!quant.uniform<u8:f32, 0.05:20>>) -> tensor<1x4x5x5x!quant.uniform<u8:f32, 0.04:128>>
    %softmax = fx.call_module @softmax(%inorm) : (tensor<1x4x5x5x!quant.uniform<u8:f32, 0.04:128>>) -> tensor<1x4x5x5x!quant.uniform<u8:f32, 0.00390625>>
    %up = fx.call_module @up(%softmax) : (tensor<1x4x5x5x!quant.uniform<u8:f32, 0.00390625>>) -> tensor<1x2x9x9x!quant.uniform<u8:f32, 0.03:64>>
    %dequantize = fx.call_method "dequantize"(%up) : (tensor<1x2x9x9x!quant.uniform<u8:f32, 0.03:64>>) -> tensor<1x2x9x9xf32>
    fx.output %dequantize : tensor<1x2x9x9xf32>
  }
}

// The functions convert_fx writes for F.elu, F.instance_norm and
// F.dropout: elu's alpha (a keyword after the output scale and zero
// point; scale and input_scale left out, so 1.0), celu's alpha
// positional after them, instance_norm's weight, bias and eps around
// the input's own statistics, dropout its input.

// CHECK-LABEL: fx.graph_module @Functional
// CHECK: %elu_float = fx.call_function "aten::elu"(%elu_dequantize, 0.5, 1.0, 1.0)
// CHECK: %elu = fx.call_function "aten::quantize_per_tensor"(%elu_float, 0.05, 3, torch.quint8)
// CHECK: %celu_float = fx.call_function "aten::celu"(%celu_dequantize, 2.0)
// CHECK: %elu_scaled_float = fx.call_function "aten::elu"(%elu_scaled_dequantize, 1.0, 2.0, 1.0)
// CHECK: %inorm_float = fx.call_function "aten::instance_norm"(%inorm_dequantize, None, None, None, None, True, 0.1, 1.0e-05, False)
// CHECK-NOT: dropout
// CHECK: fx.call_function "aten::dequantize.self"(%inorm)
fx.graph_module @Functional {
  fx.state buffer @s : tensor<f32> = dense<0.05>
  fx.state buffer @z : tensor<i64> = dense<3>
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x4x5x5xf32>
    %q = fx.call_function "torch.quantize_per_tensor"(%x, 0.1, 128, torch.quint8) : (tensor<1x4x5x5xf32>) -> tensor<1x4x5x5x!quant.uniform<u8:f32, 0.1:128>>
    %s = fx.get_attr @s : tensor<f32>
    %z = fx.get_attr @z : tensor<i64>
    %elu = fx.call_function "torch.ops.quantized.elu"(%q, alpha=0.5, output_scale=%s, output_zero_point=%z) : (tensor<1x4x5x5x!quant.uniform<u8:f32, 0.1:128>>, tensor<f32>, tensor<i64>) -> tensor<1x4x5x5x!quant.uniform<u8:f32, 0.05:3>>
    %celu = fx.call_function "torch.ops.quantized.celu"(%elu, 0.04, 10, 2.0) : (tensor<1x4x5x5x!quant.uniform<u8:f32, 0.05:3>>) -> tensor<1x4x5x5x!quant.uniform<u8:f32, 0.04:10>>
    %elu_scaled = fx.call_function "torch.ops.quantized.elu"(%celu, output_scale=0.04, output_zero_point=10, scale=2.0) : (tensor<1x4x5x5x!quant.uniform<u8:f32, 0.04:10>>) -> tensor<1x4x5x5x!quant.uniform<u8:f32, 0.04:10>>
    %dropout = fx.call_function "torch.ops.quantized.dropout"(%elu_scaled, p=0.5, training=False, output_scale=0.2, output_zero_point=7) : (tensor<1x4x5x5x!quant.uniform<u8:f32, 0.04:10>>) -> tensor<1x4x5x5x!quant.uniform<u8:f32, 0.04:10>>
    %inorm = fx.call_function "torch.ops.quantized.instance_norm"(%dropout, weight=None, bias=None, eps=1.0e-05, output_scale=0.02, output_zero_point=128) : (tensor<1x4x5x5x!quant.uniform<u8:f32, 0.04:10>>) -> tensor<1x4x5x5x!quant.uniform<u8:f32, 0.02:128>>
    %dequantize = fx.call_method "dequantize"(%inorm) : (tensor<1x4x5x5x!quant.uniform<u8:f32, 0.02:128>>) -> tensor<1x4x5x5xf32>
    fx.output %dequantize : tensor<1x4x5x5xf32>
  }
}

{-#
  dialect_resources: {
    builtin: {
      uw: "0x01000000030303030303030303030303030303030303030303030303030303030303030303030303"
    }
  }
#-}

// Eager mode's FloatFunctional.add_scalar and mul_scalar (and the _relu
// forms): the float add or mul of the number, quantized to the result's
// type (the scale and zero point ATen chose for it).

// CHECK-LABEL: fx.graph_module @ScalarFunctionals
// CHECK: %add_scalar_dequantize = fx.call_function "aten::dequantize.self"(%q)
// CHECK: %add_scalar_float = fx.call_function "aten::add.Tensor"(%add_scalar_dequantize, 0.7, 1)
// CHECK: %add_scalar = fx.call_function "aten::quantize_per_tensor"(%add_scalar_float, 0.1, 121, torch.quint8)
// CHECK: %mul_scalar_float = fx.call_function "aten::mul.Tensor"(%mul_scalar_dequantize, -1.5)
// CHECK: %mul_scalar_relu = fx.call_function "aten::relu"(%mul_scalar_float)
// CHECK: %mul_scalar = fx.call_function "aten::quantize_per_tensor"(%mul_scalar_relu, 0.15, 0, torch.quint8)
fx.graph_module @ScalarFunctionals {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x4xf32>
    %q = fx.call_function "torch.quantize_per_tensor"(%x, 0.1, 128, torch.quint8) : (tensor<2x4xf32>) -> tensor<2x4x!quant.uniform<u8:f32, 0.1:128>>
    %add_scalar = fx.call_function "torch.ops.quantized.add_scalar"(%q, 0.7) : (tensor<2x4x!quant.uniform<u8:f32, 0.1:128>>) -> tensor<2x4x!quant.uniform<u8:f32, 0.1:121>>
    %mul_scalar = fx.call_function "torch.ops.quantized.mul_scalar_relu"(%add_scalar, -1.5) : (tensor<2x4x!quant.uniform<u8:f32, 0.1:121>>) -> tensor<2x4x!quant.uniform<u8:f32, 0.15:0>>
    %dequantize = fx.call_method "dequantize"(%mul_scalar) : (tensor<2x4x!quant.uniform<u8:f32, 0.15:0>>) -> tensor<2x4xf32>
    fx.output %dequantize : tensor<2x4xf32>
  }
}

// The scalar overloads TorchScript records for them (a traced converted
// model's `y * 0.5` is `quantized::mul.Scalar(qa, b)`; `.Scalar2` takes
// the number first; `add_scalar.Tensor` takes it as a 0-d tensor) are the
// same functions.

// CHECK-LABEL: fx.graph_module @ScalarOverloads
// CHECK: %mul_float = fx.call_function "aten::mul.Tensor"(%mul_dequantize, 0.5)
// CHECK: %mul = fx.call_function "aten::quantize_per_tensor"(%mul_float, 0.05, 128, torch.quint8)
// CHECK: %add_relu_float = fx.call_function "aten::add.Tensor"(%add_relu_dequantize, 0.25, 1)
// CHECK: %add_relu_relu = fx.call_function "aten::relu"(%add_relu_float)
// CHECK: %add_relu = fx.call_function "aten::quantize_per_tensor"(%add_relu_relu, 0.05, 0, torch.quint8)
// CHECK: %mul2_float = fx.call_function "aten::mul.Tensor"(%mul2_dequantize, -2.0)
// CHECK: %mul2 = fx.call_function "aten::quantize_per_tensor"(%mul2_float, 0.1, 255, torch.quint8)
// CHECK: %add_t_float = fx.call_function "aten::add.Tensor"(%add_t_dequantize, %b, 1)
// CHECK-NOT: quantized::
fx.graph_module @ScalarOverloads {
  fx.state buffer @b : tensor<f32> = dense<0.3>
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x4xf32>
    %q = fx.call_function "aten::quantize_per_tensor"(%x, 0.1, 128, torch.quint8) : (tensor<2x4xf32>) -> tensor<2x4x!quant.uniform<u8:f32, 0.1:128>>
    %mul = fx.call_function "quantized::mul.Scalar"(%q, 0.5) : (tensor<2x4x!quant.uniform<u8:f32, 0.1:128>>) -> tensor<2x4x!quant.uniform<u8:f32, 0.05:128>>
    %add_relu = fx.call_function "quantized::add_relu.Scalar"(%mul, 0.25) : (tensor<2x4x!quant.uniform<u8:f32, 0.05:128>>) -> tensor<2x4x!quant.uniform<u8:f32, 0.05:0>>
    %mul2 = fx.call_function "quantized::mul.Scalar2"(-2.0, %add_relu) : (tensor<2x4x!quant.uniform<u8:f32, 0.05:0>>) -> tensor<2x4x!quant.uniform<u8:f32, 0.1:255>>
    %b = fx.get_attr @b : tensor<f32>
    %add_t = fx.call_function "quantized::add_scalar.Tensor"(%mul2, %b) : (tensor<2x4x!quant.uniform<u8:f32, 0.1:255>>, tensor<f32>) -> tensor<2x4x!quant.uniform<u8:f32, 0.1:252>>
    %dequantize = fx.call_function "aten::dequantize.self"(%add_t) : (tensor<2x4x!quant.uniform<u8:f32, 0.1:252>>) -> tensor<2x4xf32>
    fx.output %dequantize : tensor<2x4xf32>
  }
}
