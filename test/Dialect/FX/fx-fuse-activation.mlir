// RUN: fx-opt %s -split-input-file --fx-fuse-activation | FileCheck %s

// fx-fuse-activation: a conv1d, conv2d, linear, matmul or tensor + tensor
// add, in any spelling, whose only user is an activation becomes one
// `fx_mlir.fused.<op>` call with the op's canonical args and
// `activation="<name>"`, named after the activation node.

//===----------------------------------------------------------------------===//
// Each base op
//===----------------------------------------------------------------------===//

// CHECK-LABEL: fx.graph @conv1d
// CHECK-NEXT:    %x = fx.placeholder "x"
// CHECK-NEXT:    %w = fx.placeholder "w"
// CHECK-NEXT:    %relu = fx.call_function "fx_mlir.fused.conv1d"(%x, %w, None, [1], [0], [1], 1, activation="relu") : (tensor<1x3x8xf32>, tensor<4x3x3xf32>) -> tensor<1x4x6xf32>
// CHECK-NEXT:    fx.output %relu
fx.graph @conv1d {
  %x = fx.placeholder "x" : tensor<1x3x8xf32>
  %w = fx.placeholder "w" : tensor<4x3x3xf32>
  %conv = fx.call_function "torch.conv1d"(%x, %w) : (tensor<1x3x8xf32>, tensor<4x3x3xf32>) -> tensor<1x4x6xf32>
  %relu = fx.call_function "torch.relu"(%conv) : (tensor<1x4x6xf32>) -> tensor<1x4x6xf32>
  fx.output %relu : tensor<1x4x6xf32>
}

// -----

// CHECK-LABEL: fx.graph @conv2d
// CHECK-NEXT:    %x = fx.placeholder "x"
// CHECK-NEXT:    %w = fx.placeholder "w"
// CHECK-NEXT:    %b = fx.placeholder "b"
// CHECK-NEXT:    %relu = fx.call_function "fx_mlir.fused.conv2d"(%x, %w, %b, [2, 2], [1, 1], [1, 1], 1, activation="relu") : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NEXT:    fx.output %relu
fx.graph @conv2d {
  %x = fx.placeholder "x" : tensor<1x3x8x8xf32>
  %w = fx.placeholder "w" : tensor<4x3x3x3xf32>
  %b = fx.placeholder "b" : tensor<4xf32>
  %conv = fx.call_function "aten::conv2d"(%x, %w, %b, [2, 2], [1, 1], [1, 1], 1) : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  %relu = fx.call_method "relu"(%conv) : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  fx.output %relu : tensor<1x4x4x4xf32>
}

// -----

// conv2d with padding="same" (the aten::conv2d.padding overload) is a
// conv2d too; the lowering of fx_mlir.fused.conv2d takes the string.

// CHECK-LABEL: fx.graph @conv2d_padding_same
// CHECK-NEXT:    %x = fx.placeholder "x"
// CHECK-NEXT:    %w = fx.placeholder "w"
// CHECK-NEXT:    %relu = fx.call_function "fx_mlir.fused.conv2d"(%x, %w, None, [1, 1], "same", [1, 1], 1, activation="relu")
// CHECK-NEXT:    fx.output %relu
fx.graph @conv2d_padding_same {
  %x = fx.placeholder "x" : tensor<1x3x8x8xf32>
  %w = fx.placeholder "w" : tensor<4x3x3x3xf32>
  %conv = fx.call_function "torch.conv2d"(%x, %w, padding="same") : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  %relu = fx.call_function "torch.relu"(%conv) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  fx.output %relu : tensor<1x4x8x8xf32>
}

// -----

// An nn.Conv2d module call: its weight is read by a new get_attr node.

// CHECK-LABEL: fx.graph_module @Conv2dModule
// CHECK:         %x = fx.placeholder "x"
// CHECK-NEXT:    %conv_weight = fx.get_attr @conv.weight : tensor<4x3x3x3xf32>
// CHECK-NEXT:    %relu = fx.call_function "fx_mlir.fused.conv2d"(%x, %conv_weight, None, [1, 1], [1, 1], [1, 1], 1, activation="relu")
// CHECK-NEXT:    fx.output %relu
fx.graph_module @Conv2dModule {
  fx.state parameter @conv.weight : tensor<4x3x3x3xf32>
  fx.submodule @conv "torch.nn.Conv2d"(in_channels=3, out_channels=4, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1), dilation=(1, 1), groups=1, bias=False, padding_mode="zeros")
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x3x8x8xf32>
    %conv = fx.call_module @conv(%x) : (tensor<1x3x8x8xf32>) -> tensor<1x4x8x8xf32>
    %relu = fx.call_function "torch.nn.functional.relu"(%conv) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
    fx.output %relu : tensor<1x4x8x8xf32>
  }
}

// -----

// CHECK-LABEL: fx.graph @linear
// CHECK:         %relu = fx.call_function "fx_mlir.fused.linear"(%x, %w, %b, activation="relu") : (tensor<2x8xf32>, tensor<4x8xf32>, tensor<4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    fx.output %relu
fx.graph @linear {
  %x = fx.placeholder "x" : tensor<2x8xf32>
  %w = fx.placeholder "w" : tensor<4x8xf32>
  %b = fx.placeholder "b" : tensor<4xf32>
  %lin = fx.call_function "aten::linear"(%x, %w, %b) : (tensor<2x8xf32>, tensor<4x8xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %relu = fx.call_function "aten::relu"(%lin) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  fx.output %relu : tensor<2x4xf32>
}

// -----

// CHECK-LABEL: fx.graph @matmul
// CHECK:         %relu = fx.call_function "fx_mlir.fused.matmul"(%x, %y, activation="relu") : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    fx.output %relu
fx.graph @matmul {
  %x = fx.placeholder "x" : tensor<2x3xf32>
  %y = fx.placeholder "y" : tensor<3x4xf32>
  %mm = fx.call_function "operator.matmul"(%x, %y) : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %relu = fx.call_function "torch.relu"(%mm) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  fx.output %relu : tensor<2x4xf32>
}

// -----

// add of two tensors: the canonical args include alpha.

// CHECK-LABEL: fx.graph @add
// CHECK:         %relu = fx.call_function "fx_mlir.fused.add"(%x, %y, alpha=1, activation="relu") : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    fx.output %relu
fx.graph @add {
  %x = fx.placeholder "x" : tensor<2x3xf32>
  %y = fx.placeholder "y" : tensor<3xf32>
  %a = fx.call_function "operator.add"(%x, %y) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %relu = fx.call_function "torch.relu"(%a) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  fx.output %relu : tensor<2x3xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Each activation
//===----------------------------------------------------------------------===//

// relu6 as hardtanh(0, 6), as F.relu6 and as an nn.ReLU6 module; gelu exact
// (the default) and tanh; silu, sigmoid, tanh, hardswish.

// CHECK-LABEL: fx.graph_module @Activations
// CHECK:         %hardtanh = fx.call_function "fx_mlir.fused.linear"(%x, %w, None, activation="relu6")
// CHECK-NEXT:    %relu6 = fx.call_function "fx_mlir.fused.linear"(%x, %w, None, activation="relu6")
// CHECK-NEXT:    %act = fx.call_function "fx_mlir.fused.linear"(%x, %w, None, activation="relu6")
// CHECK-NEXT:    %gelu = fx.call_function "fx_mlir.fused.linear"(%x, %w, None, activation="gelu")
// CHECK-NEXT:    %gelu_1 = fx.call_function "fx_mlir.fused.linear"(%x, %w, None, activation="gelu")
// CHECK-NEXT:    %gelu_2 = fx.call_function "fx_mlir.fused.linear"(%x, %w, None, activation="gelu_tanh")
// CHECK-NEXT:    %silu = fx.call_function "fx_mlir.fused.linear"(%x, %w, None, activation="silu")
// CHECK-NEXT:    %sigmoid = fx.call_function "fx_mlir.fused.linear"(%x, %w, None, activation="sigmoid")
// CHECK-NEXT:    %tanh = fx.call_function "fx_mlir.fused.linear"(%x, %w, None, activation="tanh")
// CHECK-NEXT:    %hardswish = fx.call_function "fx_mlir.fused.linear"(%x, %w, None, activation="hardswish")
// CHECK-NEXT:    fx.output
fx.graph_module @Activations {
  fx.submodule @act "torch.nn.ReLU6"()
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x8xf32>
    %w = fx.placeholder "w" : tensor<4x8xf32>
    %l0 = fx.call_function "torch.nn.functional.linear"(%x, %w) : (tensor<2x8xf32>, tensor<4x8xf32>) -> tensor<2x4xf32>
    %hardtanh = fx.call_function "torch.nn.functional.hardtanh"(%l0, 0.0, 6.0) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %l1 = fx.call_function "torch.nn.functional.linear"(%x, %w) : (tensor<2x8xf32>, tensor<4x8xf32>) -> tensor<2x4xf32>
    %relu6 = fx.call_function "torch.nn.functional.relu6"(%l1) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %l2 = fx.call_function "torch.nn.functional.linear"(%x, %w) : (tensor<2x8xf32>, tensor<4x8xf32>) -> tensor<2x4xf32>
    %act = fx.call_module @act(%l2) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %l3 = fx.call_function "torch.nn.functional.linear"(%x, %w) : (tensor<2x8xf32>, tensor<4x8xf32>) -> tensor<2x4xf32>
    %gelu = fx.call_function "torch.nn.functional.gelu"(%l3) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %l4 = fx.call_function "torch.nn.functional.linear"(%x, %w) : (tensor<2x8xf32>, tensor<4x8xf32>) -> tensor<2x4xf32>
    %gelu_1 = fx.call_function "torch.nn.functional.gelu"(%l4, approximate="none") : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %l5 = fx.call_function "torch.nn.functional.linear"(%x, %w) : (tensor<2x8xf32>, tensor<4x8xf32>) -> tensor<2x4xf32>
    %gelu_2 = fx.call_function "torch.nn.functional.gelu"(%l5, approximate="tanh") : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %l6 = fx.call_function "torch.nn.functional.linear"(%x, %w) : (tensor<2x8xf32>, tensor<4x8xf32>) -> tensor<2x4xf32>
    %silu = fx.call_function "torch.nn.functional.silu"(%l6) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %l7 = fx.call_function "torch.nn.functional.linear"(%x, %w) : (tensor<2x8xf32>, tensor<4x8xf32>) -> tensor<2x4xf32>
    %sigmoid = fx.call_method "sigmoid"(%l7) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %l8 = fx.call_function "torch.nn.functional.linear"(%x, %w) : (tensor<2x8xf32>, tensor<4x8xf32>) -> tensor<2x4xf32>
    %tanh = fx.call_function "torch.tanh"(%l8) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %l9 = fx.call_function "torch.nn.functional.linear"(%x, %w) : (tensor<2x8xf32>, tensor<4x8xf32>) -> tensor<2x4xf32>
    %hardswish = fx.call_function "torch.nn.functional.hardswish"(%l9) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    fx.output (%hardtanh, %relu6, %act, %gelu, %gelu_1, %gelu_2, %silu, %sigmoid, %tanh, %hardswish) : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>
  }
}

// -----

// Only the first activation of a chain fuses.

// CHECK-LABEL: fx.graph @chain
// CHECK:         %relu = fx.call_function "fx_mlir.fused.add"(%x, %y, alpha=1, activation="relu")
// CHECK-NEXT:    %tanh = fx.call_function "torch.tanh"(%relu)
fx.graph @chain {
  %x = fx.placeholder "x" : tensor<2x3xf32>
  %y = fx.placeholder "y" : tensor<2x3xf32>
  %a = fx.call_function "torch.add"(%x, %y) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %relu = fx.call_function "torch.relu"(%a) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %tanh = fx.call_function "torch.tanh"(%relu) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  fx.output %tanh : tensor<2x3xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Left as they are
//===----------------------------------------------------------------------===//

// The conv has a second user, which needs the value before the relu.

// CHECK-LABEL: fx.graph @second_user
// CHECK:         %conv = fx.call_function "torch.conv1d"(%x, %w)
// CHECK-NEXT:    %relu = fx.call_function "torch.relu"(%conv)
// CHECK-NEXT:    %neg = fx.call_function "torch.neg"(%conv)
// CHECK-NOT:     fx_mlir.fused
fx.graph @second_user {
  %x = fx.placeholder "x" : tensor<1x3x8xf32>
  %w = fx.placeholder "w" : tensor<4x3x3xf32>
  %conv = fx.call_function "torch.conv1d"(%x, %w) : (tensor<1x3x8xf32>, tensor<4x3x3xf32>) -> tensor<1x4x6xf32>
  %relu = fx.call_function "torch.relu"(%conv) : (tensor<1x4x6xf32>) -> tensor<1x4x6xf32>
  %neg = fx.call_function "torch.neg"(%conv) : (tensor<1x4x6xf32>) -> tensor<1x4x6xf32>
  fx.output (%relu, %neg) : tensor<1x4x6xf32>, tensor<1x4x6xf32>
}

// -----

// hardtanh with bounds other than (0, 6), here the defaults (-1, 1), is no
// activation the fused ops know.

// CHECK-LABEL: fx.graph @hardtanh_default
// CHECK:         %mm = fx.call_function "torch.matmul"(%x, %y)
// CHECK-NEXT:    %h = fx.call_function "torch.nn.functional.hardtanh"(%mm)
// CHECK-NOT:     fx_mlir.fused
fx.graph @hardtanh_default {
  %x = fx.placeholder "x" : tensor<2x3xf32>
  %y = fx.placeholder "y" : tensor<3x4xf32>
  %mm = fx.call_function "torch.matmul"(%x, %y) : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %h = fx.call_function "torch.nn.functional.hardtanh"(%mm) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  fx.output %h : tensor<2x4xf32>
}

// -----

// CHECK-LABEL: fx.graph @hardtanh_bounds
// CHECK:         %h = fx.call_function "torch.nn.functional.hardtanh"(%mm, -1.0, 1.0)
// CHECK-NOT:     fx_mlir.fused
fx.graph @hardtanh_bounds {
  %x = fx.placeholder "x" : tensor<2x3xf32>
  %y = fx.placeholder "y" : tensor<3x4xf32>
  %mm = fx.call_function "torch.matmul"(%x, %y) : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %h = fx.call_function "torch.nn.functional.hardtanh"(%mm, -1.0, 1.0) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  fx.output %h : tensor<2x4xf32>
}

// -----

// Adding a scalar is add.Scalar: not a fusable add.

// CHECK-LABEL: fx.graph @add_scalar
// CHECK:         %a = fx.call_function "operator.add"(%x, 1.0)
// CHECK-NEXT:    %relu = fx.call_method "relu"(%a)
// CHECK-NOT:     fx_mlir.fused
fx.graph @add_scalar {
  %x = fx.placeholder "x" : tensor<2x3xf32>
  %a = fx.call_function "operator.add"(%x, 1.0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %relu = fx.call_method "relu"(%a) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  fx.output %relu : tensor<2x3xf32>
}

// -----

// `x += y` writes x in place: it is not replaced.

// CHECK-LABEL: fx.graph @inplace_add
// CHECK:         %a = fx.call_function "operator.iadd"(%x, %y)
// CHECK-NEXT:    %relu = fx.call_function "torch.relu"(%a)
// CHECK-NOT:     fx_mlir.fused
fx.graph @inplace_add {
  %x = fx.placeholder "x" : tensor<2x3xf32>
  %y = fx.placeholder "y" : tensor<2x3xf32>
  %a = fx.call_function "operator.iadd"(%x, %y) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %relu = fx.call_function "torch.relu"(%a) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  fx.output %relu : tensor<2x3xf32>
}
