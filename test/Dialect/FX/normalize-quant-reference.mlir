// RUN: fx-opt %s --fx-normalize | FileCheck %s
//
// A reference module (convert_to_reference_fx) is its float operator on
// its weight quantized and dequantized as weight_qparams say, computed at
// normalization into `<path>.weight_reference` ((clamp(round(w / s) + z) -
// z) * s per channel: 0.3 / 0.25 rounds to 1 -> 0.25, -1.0 / 0.25 = -4 ->
// -1.0, 100 clamps to 127 * 0.25 = 31.75; 0.06 / 0.125 rounds to 0 -> 0,
// -0.2 / 0.125 = -1.6 rounds to -2 -> -0.25); a fused reference module (torch.ao.nn.intrinsic.LinearReLU) adds
// its ReLU.

// CHECK-LABEL: fx.graph_module @Reference
// CHECK: fx.state parameter @fc.weight_reference : tensor<2x3xf32> = dense_resource<fc.weight_reference>
// CHECK: %fc_weight_reference = fx.get_attr @fc.weight_reference
// CHECK: %fc = fx.call_function "aten::linear"(%x, %fc_weight_reference, None)
// CHECK: %relu_0_weight_reference = fx.get_attr @relu.0.weight_reference
// CHECK: %relu_float = fx.call_function "aten::linear"(%fc, %relu_0_weight_reference, None)
// CHECK: %relu = fx.call_function "aten::relu"(%relu_float)
// CHECK: fc.weight_reference: "0x080000000000803E000080BF0000FE410000000000000000000080BE"
fx.graph_module @Reference {
  fx.state parameter @fc.weight : tensor<2x3xf32> = dense<[[0.3, -1.0, 100.0], [0.06, 0.0, -0.2]]>
  fx.state parameter @relu.0.weight : tensor<2x2xf32> = dense<[[1.0, 2.0], [3.0, 4.0]]>
  fx.submodule @fc "torch.ao.nn.quantized.reference.Linear"(in_features=3, out_features=2, weight_qparams={"qscheme": "per_channel_affine", "dtype": torch.qint8, "scale": [0.25, 0.125], "zero_point": [0, 0], "axis": 0})
  fx.submodule @relu "torch.ao.nn.intrinsic.LinearReLU"()
  fx.submodule @relu.0 "torch.ao.nn.quantized.reference.Linear"(in_features=2, out_features=2, weight_qparams={"qscheme": "per_tensor_affine", "dtype": torch.qint8, "scale": 0.5, "zero_point": 0})
  fx.submodule @relu.1 "torch.nn.ReLU"()
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<4x3xf32>
    %fc = fx.call_module @fc(%x) : (tensor<4x3xf32>) -> tensor<4x2xf32>
    %relu = fx.call_module @relu(%fc) : (tensor<4x2xf32>) -> tensor<4x2xf32>
    fx.output %relu : tensor<4x2xf32>
  }
}
