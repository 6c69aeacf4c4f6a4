// RUN: fx-opt %s --fx-normalize | FileCheck %s
//
// A quantized conv padding by reflection is, as torch's quantized conv
// computes it, F.pad of its (dequantized) input in that mode by the
// padding, the last dim's two sides first, then the float conv without
// padding.

// CHECK-LABEL: fx.graph_module @Reflect
// CHECK: %conv_dequantize = fx.call_function "aten::dequantize.self"(%quantize_per_tensor)
// CHECK: %conv_pad = fx.call_function "aten::pad"(%conv_dequantize, [2, 2, 1, 1], "reflect", None) : (tensor<1x1x6x5xf32>) -> tensor<1x1x8x9xf32>
// CHECK: %conv_float = fx.call_function "aten::conv2d"(%conv_pad, %conv_weight_dequantize, %conv_bias, (1, 1), (0, 0), (1, 1), 1) : (tensor<1x1x8x9xf32>, tensor<2x1x3x3xf32>, tensor<2xf32>) -> tensor<1x2x6x7xf32>
// CHECK: %conv = fx.call_function "aten::quantize_per_tensor"(%conv_float, 0.0065, 3, torch.quint8)
fx.graph_module @Reflect {
  fx.state parameter @conv.weight : tensor<2x1x3x3x!quant.uniform<i8:f32, 0.01:0>> = dense_resource<cw>
  fx.state parameter @conv.bias : tensor<2xf32> = dense<[0.5, -1.0]>
  fx.submodule @conv "torch.ao.nn.quantized.Conv2d"(in_channels=1, out_channels=2, kernel_size=(3, 3), stride=(1, 1), padding=(1, 2), dilation=(1, 1), groups=1, bias=True, padding_mode="reflect", scale=0.0065, zero_point=3)
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x1x6x5xf32>
    %quantize_per_tensor = fx.call_function "torch.quantize_per_tensor"(%x, 0.02, 138, torch.quint8) : (tensor<1x1x6x5xf32>) -> tensor<1x1x6x5x!quant.uniform<u8:f32, 0.02:138>>
    %conv = fx.call_module @conv(%quantize_per_tensor) : (tensor<1x1x6x5x!quant.uniform<u8:f32, 0.02:138>>) -> tensor<1x2x6x7x!quant.uniform<u8:f32, 0.0065:3>>
    %dequantize = fx.call_method "dequantize"(%conv) : (tensor<1x2x6x7x!quant.uniform<u8:f32, 0.0065:3>>) -> tensor<1x2x6x7xf32>
    fx.output %dequantize : tensor<1x2x6x7xf32>
  }
}

// A reference conv (convert_to_reference_fx) pads with zeros whatever its
// padding_mode: PyTorch 1.13's reference Conv2d.forward calls F.conv2d with
// its padding. The compiled model computes what the model computes.

// CHECK-LABEL: fx.graph_module @ReferenceReflect
// CHECK-NOT: aten::pad
// CHECK: %conv = fx.call_function "aten::conv2d"(%x, %conv_weight_reference, %conv_bias, (1, 1), (1, 2), (1, 1), 1) : (tensor<1x1x6x5xf32>, tensor<2x1x3x3xf32>, tensor<2xf32>) -> tensor<1x2x6x7xf32>
fx.graph_module @ReferenceReflect {
  fx.state parameter @conv.weight : tensor<2x1x3x3xf32> = dense<0.5>
  fx.state parameter @conv.bias : tensor<2xf32> = dense<[0.5, -1.0]>
  fx.submodule @conv "torch.ao.nn.quantized.reference.Conv2d"(in_channels=1, out_channels=2, kernel_size=(3, 3), stride=(1, 1), padding=(1, 2), dilation=(1, 1), groups=1, bias=True, padding_mode="reflect", weight_qparams={"qscheme": "per_tensor_affine", "dtype": torch.qint8, "scale": 0.25, "zero_point": 0})
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x1x6x5xf32>
    %conv = fx.call_module @conv(%x) : (tensor<1x1x6x5xf32>) -> tensor<1x2x6x7xf32>
    fx.output %conv : tensor<1x2x6x7xf32>
  }
}


{-#
  dialect_resources: {
    builtin: {
      cw: "0x01000000010203040506070809FFFEFDFCFBFAF9F8F7"
    }
  }
#-}
