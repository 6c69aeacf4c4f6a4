// RUN: fx-opt %s -split-input-file --fx-rename | FileCheck %s
// RUN: fx-opt %s -split-input-file --fx-rename -mlir-print-debuginfo | FileCheck %s --check-prefix=LOC

// fx-rename: torch.fx's naming. A placeholder keeps its parameter name,
// get_attr and call_module nodes are named after the qualified path, calls
// after the last component of the target (the operator name for aten
// targets, snake_case for class-like names), fused ops after op and
// activation. Repeats get _1, _2, ... in graph order (placeholders first);
// Python keywords and names exported code uses get a suffix too. The
// location's name follows the node's.

// CHECK-LABEL: fx.graph_module @M
// CHECK:         %x = fx.placeholder "x"
// CHECK-NEXT:    %layer1_0_conv1_weight = fx.get_attr @layer1.0.conv1.weight
// CHECK-NEXT:    %layer1_0_conv1 = fx.call_module @layer1.0.conv1(%x)
// CHECK-NEXT:    %relu = fx.call_function "torch.nn.functional.relu"(%layer1_0_conv1)
// CHECK-NEXT:    %relu_1 = fx.call_function "aten::relu"(%relu)
// CHECK-NEXT:    %relu_2 = fx.call_method "relu"(%relu_1)
// CHECK-NEXT:    %add = fx.call_function "aten::add.Tensor"(%x, %x, alpha=1)
// CHECK-NEXT:    %conv2d_relu = fx.call_function "fx_mlir.fused.conv2d"(%x, %layer1_0_conv1_weight, {{.*}}activation="relu")
// CHECK-NEXT:    %linear_gelu_tanh = fx.call_function "fx_mlir.fused.linear"
// CHECK-NEXT:    %batch_norm2d = fx.call_function "mylib.BatchNorm2d"(%conv2d_relu)
// CHECK-NEXT:    fx.output
fx.graph_module @M {
  fx.state parameter @layer1.0.conv1.weight : tensor<4x3x3x3xf32>
  fx.submodule @layer1.0.conv1 "torch.nn.Conv2d"(in_channels=3, out_channels=4, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1), dilation=(1, 1), groups=1, bias=False, padding_mode="zeros")
  fx.graph @forward {
    %a = fx.placeholder "x" : tensor<1x3x8x8xf32>
    %w = fx.get_attr @layer1.0.conv1.weight : tensor<4x3x3x3xf32>
    %c = fx.call_module @layer1.0.conv1(%a) : (tensor<1x3x8x8xf32>) -> tensor<1x4x8x8xf32>
    %d = fx.call_function "torch.nn.functional.relu"(%c) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
    %e = fx.call_function "aten::relu"(%d) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
    %f = fx.call_method "relu"(%e) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
    %g = fx.call_function "aten::add.Tensor"(%a, %a, alpha=1) : (tensor<1x3x8x8xf32>, tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
    %h = fx.call_function "fx_mlir.fused.conv2d"(%a, %w, None, [1, 1], [1, 1], [1, 1], 1, activation="relu") : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
    %i = fx.call_function "fx_mlir.fused.linear"(%h, %h, None, activation="gelu_tanh") : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
    %k = fx.call_function "mylib.BatchNorm2d"(%h) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
    fx.output (%f, %g, %i, %k) : tensor<1x4x8x8xf32>, tensor<1x3x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>
  }
}

// -----

// Placeholders keep their names; a call whose target would give a
// parameter's name gets a suffix, and old node names do not matter.

// CHECK-LABEL: fx.graph @placeholders_first
// CHECK-NEXT:    %x = fx.placeholder "x"
// CHECK-NEXT:    %y = fx.placeholder "y"
// CHECK-NEXT:    %relu = fx.call_function "torch.relu"(%x)
// CHECK-NEXT:    %neg = fx.call_function "torch.neg"(%relu)
// CHECK-NEXT:    %x_1 = fx.call_function "mylib.x"(%y)
// CHECK-NEXT:    %relu_1 = fx.call_function "torch.relu"(%x_1)
// CHECK-NEXT:    fx.output (%neg, %relu_1)
fx.graph @placeholders_first {
  %p = fx.placeholder "x" : tensor<2xf32>
  %q = fx.placeholder "y" : tensor<2xf32>
  %y = fx.call_function "torch.relu"(%p) : (tensor<2xf32>) -> tensor<2xf32>
  %x = fx.call_function "torch.neg"(%y) : (tensor<2xf32>) -> tensor<2xf32>
  %relu = fx.call_function "mylib.x"(%q) : (tensor<2xf32>) -> tensor<2xf32>
  %relu_1 = fx.call_function "torch.relu"(%relu) : (tensor<2xf32>) -> tensor<2xf32>
  fx.output (%x, %relu_1) : tensor<2xf32>, tensor<2xf32>
}

// -----

// Python keywords and names exported code relies on get a suffix: a
// parameter named `def`, calls of `mylib.torch` and `mylib.self`.

// CHECK-LABEL: fx.graph @reserved
// CHECK-NEXT:    %def_1 = fx.placeholder "def"
// CHECK-NEXT:    %torch_1 = fx.call_function "mylib.torch"(%def_1)
// CHECK-NEXT:    %self_1 = fx.call_function "mylib.self"(%torch_1)
// CHECK-NEXT:    %torch_2 = fx.call_function "mylib.torch"(%self_1)
// CHECK-NEXT:    %getitem = fx.call_function "operator.getitem"(%torch_2, 0)
// CHECK-NEXT:    fx.output %getitem
fx.graph @reserved {
  %a = fx.placeholder "def" : tensor<2xf32>
  %b = fx.call_function "mylib.torch"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  %c = fx.call_function "mylib.self"(%b) : (tensor<2xf32>) -> tensor<2xf32>
  %d = fx.call_function "mylib.torch"(%c) : (tensor<2xf32>) -> tensor<2xf32>
  %e = fx.call_function "operator.getitem"(%d, 0) : (tensor<2xf32>) -> tensor<f32>
  fx.output %e : tensor<f32>
}

// -----

// The location keeps its module path and source position; only the name
// changes.

// LOC-LABEL: fx.graph @locations
// LOC:         %relu = fx.call_function "torch.relu"(%x) : (tensor<2xf32>) -> tensor<2xf32> loc([[RELU:#loc[0-9]+]])
// LOC-DAG:     #[[SRC:loc[0-9]+]] = loc("model.py":7:3)
// LOC-DAG:     #[[MOD:loc[0-9]+]] = loc("layer2.block"(#[[SRC]]))
// LOC-DAG:     [[RELU]] = loc("relu"(#[[MOD]]))
fx.graph @locations {
  %x = fx.placeholder "x" : tensor<2xf32>
  %foo = fx.call_function "torch.relu"(%x) : (tensor<2xf32>) -> tensor<2xf32> loc("foo"("layer2.block"("model.py":7:3)))
  fx.output %foo : tensor<2xf32>
}
