// RUN: fx-opt %s --fx-normalize | FileCheck %s

// A reference transposed conv: conv_transpose on the reference weight,
// with its stride, padding, output_padding, groups and dilation.

// CHECK-LABEL: fx.graph_module @ReferenceTransposed
// CHECK: %up_weight_reference = fx.get_attr @up.weight_reference : tensor<2x1x1x1xf32>
// CHECK: %up = fx.call_function "aten::conv_transpose2d.input"(%x, %up_weight_reference, None, (2, 2), (0, 0), (1, 1), 1, (1, 1)) : (tensor<1x2x3x3xf32>, tensor<2x1x1x1xf32>) -> tensor<1x1x6x6xf32>
fx.graph_module @ReferenceTransposed {
  fx.state parameter @up.weight : tensor<2x1x1x1xf32> = dense<[[[[0.3]]], [[[-1.0]]]]>
  fx.submodule @up "torch.ao.nn.quantized.reference.ConvTranspose2d"(in_channels=2, out_channels=1, kernel_size=(1, 1), stride=(2, 2), padding=(0, 0), output_padding=(1, 1), groups=1, bias=False, dilation=(1, 1), padding_mode="zeros", weight_qparams={"qscheme": "per_tensor_affine", "dtype": torch.qint8, "scale": 0.25, "zero_point": 0})
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x2x3x3xf32>
    %up = fx.call_module @up(%x) : (tensor<1x2x3x3xf32>) -> tensor<1x1x6x6xf32>
    fx.output %up : tensor<1x1x6x6xf32>
  }
}
