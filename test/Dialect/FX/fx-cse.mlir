// RUN: fx-opt %s -split-input-file --fx-cse | FileCheck %s

// fx-cse: a pure node (see fx-dce) identical to an earlier one (same kind,
// target, args, kwargs, operands and result type) is replaced by it. Nodes
// are not merged across a call that is not pure, and a merge must not make
// a value alias one that is later written in place.

// CHECK-LABEL: fx.graph @duplicate_relu
// CHECK-NEXT:    %x = fx.placeholder "x"
// CHECK-NEXT:    %a = fx.call_function "aten::relu"(%x)
// CHECK-NEXT:    %s = fx.call_function "aten::add.Tensor"(%a, %a, alpha=1)
// CHECK-NEXT:    fx.output %s
fx.graph @duplicate_relu {
  %x = fx.placeholder "x" : tensor<4xf32>
  %a = fx.call_function "aten::relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %b = fx.call_function "aten::relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %s = fx.call_function "aten::add.Tensor"(%a, %b, alpha=1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  fx.output %s : tensor<4xf32>
}

// -----

// Two get_attr nodes of the same state merge.

// CHECK-LABEL: fx.graph_module @duplicate_get_attr
// CHECK:         %w = fx.get_attr @w
// CHECK-NOT:     fx.get_attr
// CHECK:         %s = fx.call_function "aten::add.Tensor"(%w, %w, alpha=1)
fx.graph_module @duplicate_get_attr {
  fx.state parameter @w : tensor<4xf32>
  fx.graph @forward {
    %w = fx.get_attr @w : tensor<4xf32>
    %w_1 = fx.get_attr @w : tensor<4xf32>
    %s = fx.call_function "aten::add.Tensor"(%w, %w_1, alpha=1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    fx.output %s : tensor<4xf32>
  }
}

// -----

// Only the node kind, target and arguments decide: a method call and a
// function call are different nodes, and so are two result types.

// CHECK-LABEL: fx.graph @kind_and_type
// CHECK:         %a = fx.call_function "torch.relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %b = fx.call_method "relu"(%x)
// CHECK-NEXT:    %c = fx.call_function "torch.relu"(%x) : (tensor<4xf32>) -> !fx.any
// CHECK-NEXT:    fx.output (%a, %b, %c, %a)
fx.graph @kind_and_type {
  %x = fx.placeholder "x" : tensor<4xf32>
  %a = fx.call_function "torch.relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %b = fx.call_method "relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %c = fx.call_function "torch.relu"(%x) : (tensor<4xf32>) -> !fx.any
  %d = fx.call_function "torch.relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  fx.output (%a, %b, %c, %d) : tensor<4xf32>, tensor<4xf32>, !fx.any, tensor<4xf32>
}

// -----

// Different kwargs: different nodes; equal kwargs merge.

// CHECK-LABEL: fx.graph @kwargs
// CHECK:         %exact = fx.call_function "aten::gelu"(%x, approximate="none")
// CHECK-NEXT:    %tanh = fx.call_function "aten::gelu"(%x, approximate="tanh")
// CHECK-NEXT:    fx.output (%exact, %tanh, %tanh)
fx.graph @kwargs {
  %x = fx.placeholder "x" : tensor<4xf32>
  %exact = fx.call_function "aten::gelu"(%x, approximate="none") : (tensor<4xf32>) -> tensor<4xf32>
  %tanh = fx.call_function "aten::gelu"(%x, approximate="tanh") : (tensor<4xf32>) -> tensor<4xf32>
  %tanh_1 = fx.call_function "aten::gelu"(%x, approximate="tanh") : (tensor<4xf32>) -> tensor<4xf32>
  fx.output (%exact, %tanh, %tanh_1) : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// `x += 1` between the two calls changed x: the second relu reads the new
// value and is not merged with the first.

// CHECK-LABEL: fx.graph @across_inplace
// CHECK:         %a = fx.call_function "aten::relu"(%x)
// CHECK-NEXT:    %iadd = fx.call_function "operator.iadd"(%x, 1)
// CHECK-NEXT:    %b = fx.call_function "aten::relu"(%x)
// CHECK-NEXT:    fx.output (%a, %b, %iadd)
fx.graph @across_inplace {
  %x = fx.placeholder "x" : tensor<4xf32>
  %a = fx.call_function "aten::relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %iadd = fx.call_function "operator.iadd"(%x, 1) : (tensor<4xf32>) -> tensor<4xf32>
  %b = fx.call_function "aten::relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  fx.output (%a, %b, %iadd) : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// The same across a call of an unknown target; after it, nodes merge again.

// CHECK-LABEL: fx.graph @across_unknown
// CHECK:         %a = fx.call_function "torch.relu"(%x)
// CHECK-NEXT:    %f = fx.call_function "mylib.f"(%x)
// CHECK-NEXT:    %b = fx.call_function "torch.relu"(%x)
// CHECK-NEXT:    fx.output (%a, %b, %b, %f)
fx.graph @across_unknown {
  %x = fx.placeholder "x" : tensor<4xf32>
  %a = fx.call_function "torch.relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %f = fx.call_function "mylib.f"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %b = fx.call_function "torch.relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %c = fx.call_function "torch.relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  fx.output (%a, %b, %c, %f) : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Impure calls are never merged: two training-mode dropouts draw different
// masks.

// CHECK-LABEL: fx.graph @dropout_train
// CHECK:         %a = fx.call_function "torch.nn.functional.dropout"
// CHECK-NEXT:    %b = fx.call_function "torch.nn.functional.dropout"
// CHECK-NEXT:    fx.output (%a, %b)
fx.graph @dropout_train {
  %x = fx.placeholder "x" : tensor<4xf32>
  %a = fx.call_function "torch.nn.functional.dropout"(%x, p=0.5, training=True) : (tensor<4xf32>) -> tensor<4xf32>
  %b = fx.call_function "torch.nn.functional.dropout"(%x, p=0.5, training=True) : (tensor<4xf32>) -> tensor<4xf32>
  fx.output (%a, %b) : tensor<4xf32>, tensor<4xf32>
}

// -----

// `a += 1` writes %a after %b was computed: merging %b into %a would make
// the second output read the incremented tensor (after fx-normalize it
// would be %iadd), where PyTorch returns relu(x). %b must stay.

// CHECK-LABEL: fx.graph @merged_value_written_later
// CHECK:         %a = fx.call_function "torch.relu"(%x)
// CHECK-NEXT:    %b = fx.call_function "torch.relu"(%x)
// CHECK-NEXT:    %iadd = fx.call_function "operator.iadd"(%a, 1)
// CHECK-NEXT:    fx.output (%iadd, %b)
fx.graph @merged_value_written_later {
  %x = fx.placeholder "x" : tensor<4xf32>
  %a = fx.call_function "torch.relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %b = fx.call_function "torch.relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %iadd = fx.call_function "operator.iadd"(%a, 1) : (tensor<4xf32>) -> tensor<4xf32>
  fx.output (%iadd, %b) : tensor<4xf32>, tensor<4xf32>
}

// -----

// The same for every way PyTorch writes a tensor: an in-place method
// (`p.add_(1)`), function (`torch.relu_`) or ATen call
// (`aten::mul_.Scalar`), `p[0] = v` (operator.setitem), and writes into a
// view of %p: an item of `p.chunk(2)`, `p.T`, `p.narrow(...)`. None of the
// second products merges into the first.

// CHECK-LABEL: fx.graph @written_by_name_and_through_views
// CHECK-COUNT-2: fx.call_function "torch.mul"(%x, 2)
// CHECK:         fx.call_method "add_"
// CHECK-COUNT-2: fx.call_function "torch.mul"(%x, 3)
// CHECK:         fx.call_function "torch.relu_"
// CHECK-COUNT-2: fx.call_function "torch.mul"(%x, 4)
// CHECK:         fx.call_function "aten::mul_.Scalar"
// CHECK-COUNT-2: fx.call_function "torch.mul"(%x, 5)
// CHECK:         fx.call_function "operator.setitem"
// CHECK-COUNT-2: fx.call_function "torch.mul"(%x, 6)
// CHECK:         fx.call_method "chunk"
// CHECK-COUNT-2: fx.call_function "torch.mul"(%x, 7)
// CHECK:         fx.call_function "builtins.getattr"
// CHECK-COUNT-2: fx.call_function "torch.mul"(%x, 8)
// CHECK:         fx.call_method "narrow"
fx.graph @written_by_name_and_through_views {
  %x = fx.placeholder "x" : tensor<4x2xf32>
  %p1 = fx.call_function "torch.mul"(%x, 2) : (tensor<4x2xf32>) -> tensor<4x2xf32>
  %q1 = fx.call_function "torch.mul"(%x, 2) : (tensor<4x2xf32>) -> tensor<4x2xf32>
  %w1 = fx.call_method "add_"(%p1, 1) : (tensor<4x2xf32>) -> tensor<4x2xf32>
  %p2 = fx.call_function "torch.mul"(%x, 3) : (tensor<4x2xf32>) -> tensor<4x2xf32>
  %q2 = fx.call_function "torch.mul"(%x, 3) : (tensor<4x2xf32>) -> tensor<4x2xf32>
  %w2 = fx.call_function "torch.relu_"(%p2) : (tensor<4x2xf32>) -> tensor<4x2xf32>
  %p3 = fx.call_function "torch.mul"(%x, 4) : (tensor<4x2xf32>) -> tensor<4x2xf32>
  %q3 = fx.call_function "torch.mul"(%x, 4) : (tensor<4x2xf32>) -> tensor<4x2xf32>
  %w3 = fx.call_function "aten::mul_.Scalar"(%p3, 0) : (tensor<4x2xf32>) -> tensor<4x2xf32>
  %p4 = fx.call_function "torch.mul"(%x, 5) : (tensor<4x2xf32>) -> tensor<4x2xf32>
  %q4 = fx.call_function "torch.mul"(%x, 5) : (tensor<4x2xf32>) -> tensor<4x2xf32>
  %w4 = fx.call_function "operator.setitem"(%p4, 0, 9.0) : (tensor<4x2xf32>) -> none
  %p5 = fx.call_function "torch.mul"(%x, 6) : (tensor<4x2xf32>) -> tensor<4x2xf32>
  %q5 = fx.call_function "torch.mul"(%x, 6) : (tensor<4x2xf32>) -> tensor<4x2xf32>
  %c5 = fx.call_method "chunk"(%p5, 2) : (tensor<4x2xf32>) -> !fx.any
  %i5 = fx.call_function "operator.getitem"(%c5, 0) : (!fx.any) -> tensor<2x2xf32>
  %w5 = fx.call_method "add_"(%i5, 5) : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %p6 = fx.call_function "torch.mul"(%x, 7) : (tensor<4x2xf32>) -> tensor<4x2xf32>
  %q6 = fx.call_function "torch.mul"(%x, 7) : (tensor<4x2xf32>) -> tensor<4x2xf32>
  %t6 = fx.call_function "builtins.getattr"(%p6, "T") : (tensor<4x2xf32>) -> tensor<2x4xf32>
  %w6 = fx.call_method "mul_"(%t6, 0) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %p7 = fx.call_function "torch.mul"(%x, 8) : (tensor<4x2xf32>) -> tensor<4x2xf32>
  %q7 = fx.call_function "torch.mul"(%x, 8) : (tensor<4x2xf32>) -> tensor<4x2xf32>
  %n7 = fx.call_method "narrow"(%p7, 0, 0, 2) : (tensor<4x2xf32>) -> tensor<2x2xf32>
  %w7 = fx.call_method "copy_"(%n7, %x) : (tensor<2x2xf32>, tensor<4x2xf32>) -> tensor<2x2xf32>
  fx.output (%p1, %q1, %p2, %q2, %p3, %q3, %p4, %q4, %p5, %q5, %p6, %q6, %p7, %q7) : tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>
}
