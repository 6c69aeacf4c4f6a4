// RUN: fx-opt %s | fx-opt | FileCheck %s
// RUN: fx-translate --export-fx-json %s | FileCheck %s --check-prefix=JSON
//
// Quantized tensors are tensors of the quant dialect's element types:
// torch.quint8 is `!quant.uniform<u8:f32, scale:zero_point>`, qint8 `i8`,
// qint32 `i32`; a per-channel weight is `!quant.uniform<i8:f32:axis,
// {scale:zero_point, ...}>`. The state's blob holds the storage integers
// (int_repr()); the exporter's JSON gives them back with their qparams.

// CHECK-LABEL: fx.graph_module @QuantizedLinear
// CHECK: fx.state parameter @fc.weight : tensor<2x3x!quant.uniform<i8:f32:0, {2.500000e-01,1.250000e-01:3}>> = dense_resource<w>
// CHECK: fx.submodule @fc "torch.ao.nn.quantized.Linear"(in_features=3, out_features=2, bias_=True, dtype=torch.qint8, scale=0.05, zero_point=10)
// CHECK: fx.call_function "torch.quantize_per_tensor"(%x, 0.1, 128, torch.quint8) : (tensor<4x3xf32>) -> tensor<4x3x!quant.uniform<u8:f32, 1.000000e-01:128>>
// CHECK: fx.call_module @fc(%q) : (tensor<4x3x!quant.uniform<u8:f32, 1.000000e-01:128>>) -> tensor<4x2x!quant.uniform<u8:f32, 5.000000e-02:10>>
// CHECK: fx.call_method "dequantize"(%fc)

// JSON: "path": "fc.weight", "kind": "parameter", "dtype": "qint8", "shape": [2, 3], "qparams": {"scales": [0.25, 0.125], "zero_points": [0, 3], "axis": 0}, "data": "AQL/gAB/"
// JSON: "path": "fc.bias", "kind": "parameter", "dtype": "float32"
fx.graph_module @QuantizedLinear {
  fx.state parameter @fc.weight : tensor<2x3x!quant.uniform<i8:f32:0, {0.25:0, 0.125:3}>> = dense_resource<w>
  fx.state parameter @fc.bias : tensor<2xf32> = dense<[0.5, -1.0]>
  fx.submodule @fc "torch.ao.nn.quantized.Linear"(in_features=3, out_features=2, bias_=True, dtype=torch.qint8, scale=0.05, zero_point=10)
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<4x3xf32>
    %q = fx.call_function "torch.quantize_per_tensor"(%x, 0.1, 128, torch.quint8) : (tensor<4x3xf32>) -> tensor<4x3x!quant.uniform<u8:f32, 0.1:128>>
    %fc = fx.call_module @fc(%q) : (tensor<4x3x!quant.uniform<u8:f32, 0.1:128>>) -> tensor<4x2x!quant.uniform<u8:f32, 0.05:10>>
    %dequantize = fx.call_method "dequantize"(%fc) : (tensor<4x2x!quant.uniform<u8:f32, 0.05:10>>) -> tensor<4x2xf32>
    fx.output %dequantize : tensor<4x2xf32>
  }
}

{-#
  dialect_resources: {
    builtin: {
      w: "0x010000000102FF80007F"
    }
  }
#-}
