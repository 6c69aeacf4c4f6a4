// RUN: fx-opt %s -split-input-file --fx-fuse-linear | FileCheck %s

// fx-fuse-linear: matmul(x, w) or mm(x, w) whose only user adds a 1-d
// bias of the result's last size with alpha 1 (either operand order), and
// addmm(b, x, w) with beta = alpha = 1, become aten::linear(x, t(w), b);
// when w is itself a transpose the two cancel. Then the fx-canonicalize
// rewrites run.

// x @ w.t() + b is linear(x, w, b): the transposes cancel.

// CHECK-LABEL: fx.graph @matmul_t
// CHECK-NEXT:    %x = fx.placeholder "x"
// CHECK-NEXT:    %w = fx.placeholder "w"
// CHECK-NEXT:    %b = fx.placeholder "b"
// CHECK-NEXT:    %y = fx.call_function "aten::linear"(%x, %w, %b) : (tensor<2x8xf32>, tensor<4x8xf32>, tensor<4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    fx.output %y
fx.graph @matmul_t {
  %x = fx.placeholder "x" : tensor<2x8xf32>
  %w = fx.placeholder "w" : tensor<4x8xf32>
  %b = fx.placeholder "b" : tensor<4xf32>
  %wt = fx.call_function "aten::t"(%w) : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %mm = fx.call_function "aten::matmul"(%x, %wt) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %y = fx.call_function "aten::add.Tensor"(%mm, %b, alpha=1) : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  fx.output %y : tensor<2x4xf32>
}

// -----

// x @ w + b with w a parameter: linear reads the transpose of w.

// CHECK-LABEL: fx.graph_module @MatmulParam
// CHECK:         %x = fx.placeholder "x"
// CHECK-NEXT:    %w = fx.get_attr @w : tensor<8x4xf32>
// CHECK-NEXT:    %b = fx.get_attr @b : tensor<4xf32>
// CHECK-NEXT:    %[[WT:.*]] = fx.call_function "aten::t"(%w) : (tensor<8x4xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:    %y = fx.call_function "aten::linear"(%x, %[[WT]], %b) : (tensor<2x8xf32>, tensor<4x8xf32>, tensor<4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    fx.output %y
fx.graph_module @MatmulParam {
  fx.state parameter @w : tensor<8x4xf32>
  fx.state parameter @b : tensor<4xf32>
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x8xf32>
    %w = fx.get_attr @w : tensor<8x4xf32>
    %b = fx.get_attr @b : tensor<4xf32>
    %mm = fx.call_function "operator.matmul"(%x, %w) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
    %y = fx.call_function "operator.add"(%mm, %b) : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
    fx.output %y : tensor<2x4xf32>
  }
}

// -----

// b + mm: the bias may come first; mm spelled as a method on x.t().

// CHECK-LABEL: fx.graph @bias_first
// CHECK-NEXT:    %x = fx.placeholder "x"
// CHECK-NEXT:    %w = fx.placeholder "w"
// CHECK-NEXT:    %b = fx.placeholder "b"
// CHECK-NEXT:    %y = fx.call_function "aten::linear"(%x, %w, %b)
// CHECK-NEXT:    fx.output %y
fx.graph @bias_first {
  %x = fx.placeholder "x" : tensor<2x8xf32>
  %w = fx.placeholder "w" : tensor<4x8xf32>
  %b = fx.placeholder "b" : tensor<4xf32>
  %wt = fx.call_method "t"(%w) : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %mm = fx.call_method "mm"(%x, %wt) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %y = fx.call_function "torch.add"(%b, %mm) : (tensor<4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  fx.output %y : tensor<2x4xf32>
}

// -----

// A batched input: linear takes any leading dims.

// CHECK-LABEL: fx.graph @batched
// CHECK:         %y = fx.call_function "aten::linear"(%x, %w, %b) : (tensor<3x2x8xf32>, tensor<4x8xf32>, tensor<4xf32>) -> tensor<3x2x4xf32>
fx.graph @batched {
  %x = fx.placeholder "x" : tensor<3x2x8xf32>
  %w = fx.placeholder "w" : tensor<4x8xf32>
  %b = fx.placeholder "b" : tensor<4xf32>
  %wt = fx.call_function "aten::t"(%w) : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %mm = fx.call_function "torch.matmul"(%x, %wt) : (tensor<3x2x8xf32>, tensor<8x4xf32>) -> tensor<3x2x4xf32>
  %y = fx.call_function "aten::add.Tensor"(%mm, %b, alpha=1) : (tensor<3x2x4xf32>, tensor<4xf32>) -> tensor<3x2x4xf32>
  fx.output %y : tensor<3x2x4xf32>
}

// -----

// addmm(b, x, w.t()) with unit beta and alpha.

// CHECK-LABEL: fx.graph @addmm
// CHECK-NEXT:    %x = fx.placeholder "x"
// CHECK-NEXT:    %w = fx.placeholder "w"
// CHECK-NEXT:    %b = fx.placeholder "b"
// CHECK-NEXT:    %y = fx.call_function "aten::linear"(%x, %w, %b) : (tensor<2x8xf32>, tensor<4x8xf32>, tensor<4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    fx.output %y
fx.graph @addmm {
  %x = fx.placeholder "x" : tensor<2x8xf32>
  %w = fx.placeholder "w" : tensor<4x8xf32>
  %b = fx.placeholder "b" : tensor<4xf32>
  %wt = fx.call_function "aten::t"(%w) : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %y = fx.call_function "torch.addmm"(%b, %x, %wt) : (tensor<4xf32>, tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  fx.output %y : tensor<2x4xf32>
}

// -----

// The canonicalize rewrites run too: contiguous() of a linear result and
// eval-mode dropout go.

// CHECK-LABEL: fx.graph @canonicalize
// CHECK-NEXT:    %x = fx.placeholder "x"
// CHECK-NEXT:    %w = fx.placeholder "w"
// CHECK-NEXT:    %b = fx.placeholder "b"
// CHECK-NEXT:    %lin = fx.call_function "aten::linear"(%x, %w, %b)
// CHECK-NEXT:    fx.output %lin
fx.graph @canonicalize {
  %x = fx.placeholder "x" : tensor<2x8xf32>
  %w = fx.placeholder "w" : tensor<4x8xf32>
  %b = fx.placeholder "b" : tensor<4xf32>
  %lin = fx.call_function "aten::linear"(%x, %w, %b) : (tensor<2x8xf32>, tensor<4x8xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %c = fx.call_method "contiguous"(%lin) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %y = fx.call_function "torch.nn.functional.dropout"(%c, p=0.1, training=False) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  fx.output %y : tensor<2x4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Left as they are
//===----------------------------------------------------------------------===//

// A bias of the result's shape is not a linear's bias.

// CHECK-LABEL: fx.graph @bias_2d
// CHECK:         %mm = fx.call_function "aten::matmul"(%x, %w)
// CHECK-NEXT:    %y = fx.call_function "aten::add.Tensor"(%mm, %b, alpha=1)
// CHECK-NOT:     aten::linear
fx.graph @bias_2d {
  %x = fx.placeholder "x" : tensor<2x8xf32>
  %w = fx.placeholder "w" : tensor<8x4xf32>
  %b = fx.placeholder "b" : tensor<2x4xf32>
  %mm = fx.call_function "aten::matmul"(%x, %w) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %y = fx.call_function "aten::add.Tensor"(%mm, %b, alpha=1) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  fx.output %y : tensor<2x4xf32>
}

// -----

// A 1-d bias of the wrong size (it broadcasts, but is not per feature).

// CHECK-LABEL: fx.graph @bias_size_1
// CHECK:         %mm = fx.call_function "aten::matmul"(%x, %w)
// CHECK-NEXT:    %y = fx.call_function "aten::add.Tensor"(%mm, %b, alpha=1)
// CHECK-NOT:     aten::linear
fx.graph @bias_size_1 {
  %x = fx.placeholder "x" : tensor<2x8xf32>
  %w = fx.placeholder "w" : tensor<8x4xf32>
  %b = fx.placeholder "b" : tensor<1xf32>
  %mm = fx.call_function "aten::matmul"(%x, %w) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %y = fx.call_function "aten::add.Tensor"(%mm, %b, alpha=1) : (tensor<2x4xf32>, tensor<1xf32>) -> tensor<2x4xf32>
  fx.output %y : tensor<2x4xf32>
}

// -----

// alpha = 2 scales the bias.

// CHECK-LABEL: fx.graph @alpha
// CHECK:         %mm = fx.call_function "aten::matmul"(%x, %w)
// CHECK-NEXT:    %y = fx.call_function "aten::add.Tensor"(%mm, %b, alpha=2)
// CHECK-NOT:     aten::linear
fx.graph @alpha {
  %x = fx.placeholder "x" : tensor<2x8xf32>
  %w = fx.placeholder "w" : tensor<8x4xf32>
  %b = fx.placeholder "b" : tensor<4xf32>
  %mm = fx.call_function "aten::matmul"(%x, %w) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %y = fx.call_function "aten::add.Tensor"(%mm, %b, alpha=2) : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  fx.output %y : tensor<2x4xf32>
}

// -----

// addmm with beta != 1.

// CHECK-LABEL: fx.graph @addmm_beta
// CHECK:         %y = fx.call_function "torch.addmm"(%b, %x, %w, beta=0.5)
// CHECK-NOT:     aten::linear
fx.graph @addmm_beta {
  %x = fx.placeholder "x" : tensor<2x8xf32>
  %w = fx.placeholder "w" : tensor<8x4xf32>
  %b = fx.placeholder "b" : tensor<4xf32>
  %y = fx.call_function "torch.addmm"(%b, %x, %w, beta=0.5) : (tensor<4xf32>, tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  fx.output %y : tensor<2x4xf32>
}

// -----

// The matmul result has a second user, which needs it without the bias.

// CHECK-LABEL: fx.graph @second_user
// CHECK:         %mm = fx.call_function "aten::matmul"(%x, %w)
// CHECK-NEXT:    %y = fx.call_function "aten::add.Tensor"(%mm, %b, alpha=1)
// CHECK-NEXT:    fx.output (%y, %mm)
fx.graph @second_user {
  %x = fx.placeholder "x" : tensor<2x8xf32>
  %w = fx.placeholder "w" : tensor<8x4xf32>
  %b = fx.placeholder "b" : tensor<4xf32>
  %mm = fx.call_function "aten::matmul"(%x, %w) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %y = fx.call_function "aten::add.Tensor"(%mm, %b, alpha=1) : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  fx.output (%y, %mm) : tensor<2x4xf32>, tensor<2x4xf32>
}
