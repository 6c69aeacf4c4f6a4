// RUN: fx-opt %s -split-input-file --fx-normalize -verify-diagnostics | FileCheck %s

// In-place methods (`y.add_(1)`, `r.clamp_(min=0)`; torch.fx records them
// as call_method nodes) become the in-place ATen calls a traced archive
// holds (`aten::add_.Scalar`, bound as the out-of-place method binds), and
// those become out-of-place calls as in normalize-inplace-views.mlir:
// later readers of the written tensor read the result, a write into a
// view is scattered back into the tensor it views.

// CHECK-LABEL: fx.graph @methods
// CHECK:       %y = fx.call_function "aten::mul.Scalar"(%x, 2.0)
// CHECK-NEXT:  %a = fx.call_function "aten::add.Scalar"(%y, 1.0, 1) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:  %r = fx.call_function "aten::select.int"(%a, 0, 0)
// CHECK-NEXT:  %c = fx.call_function "aten::clamp"(%r, 0.0, None) : (tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT:  %select_scatter = fx.call_function "aten::select_scatter"(%a, %c, 0, 0) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:  %m = fx.call_function "aten::gt.Scalar"(%x, 0.5)
// CHECK-NEXT:  %f = fx.call_function "aten::masked_fill.Scalar"(%select_scatter, %m, -1.0)
// CHECK-NEXT:  %z = fx.call_function "aten::add.Tensor"(%f, %x, alpha=1)
// CHECK-NEXT:  fx.output %z
fx.graph @methods {
  %x = fx.placeholder "x" : tensor<2x3xf32>
  %y = fx.call_function "operator.mul"(%x, 2.0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %a = fx.call_method "add_"(%y, 1.0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %r = fx.call_function "operator.getitem"(%y, 0) : (tensor<2x3xf32>) -> tensor<3xf32>
  %c = fx.call_method "clamp_"(%r, min=0.0) : (tensor<3xf32>) -> tensor<3xf32>
  %m = fx.call_method "gt"(%x, 0.5) : (tensor<2x3xf32>) -> tensor<2x3xi1>
  %f = fx.call_method "masked_fill_"(%y, %m, -1.0) : (tensor<2x3xf32>, tensor<2x3xi1>) -> tensor<2x3xf32>
  %z = fx.call_function "operator.add"(%y, %x) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  fx.output %z : tensor<2x3xf32>
}

// -----

// A write the caller would see (into a graph input) is not supported
// (a warning naming the node; an error with `strict`,
// as fx-run and fx_mlir.compile run it); nor is one into a tensor a view
// of which is read after it.

fx.graph @input_written {
  %x = fx.placeholder "x" : tensor<2x3xf32>
  // expected-warning @+1 {{fx-normalize: call_function 'a' with target 'aten::mul_.Scalar' is not supported (an in-place write into a tensor something else sees}}
  %a = fx.call_method "mul_"(%x, 2.0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %z = fx.call_function "operator.add"(%x, %x) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  fx.output %z : tensor<2x3xf32>
}

// -----

fx.graph @view_read_after {
  %x = fx.placeholder "x" : tensor<2x3xf32>
  %y = fx.call_function "operator.mul"(%x, 2.0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %r = fx.call_function "operator.getitem"(%y, 0) : (tensor<2x3xf32>) -> tensor<3xf32>
  // expected-warning @+1 {{call_function 'f' with target 'aten::fill_.Scalar' is not supported (an in-place write}}
  %f = fx.call_method "fill_"(%y, 0.0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %z = fx.call_function "operator.add"(%y, %r) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  fx.output %z : tensor<2x3xf32>
}

// -----

// `fill_` and `zero_`, which have no out-of-place methods.
// CHECK-LABEL: fx.graph @fills
// CHECK:       %f = fx.call_function "aten::full_like"(%y, 3.0
// CHECK:       %g = fx.call_function "aten::copy"(%f, %c, False)
// CHECK:       %h = fx.call_function "aten::zeros_like"(%g
// CHECK:       fx.output %h
fx.graph @fills {
  %x = fx.placeholder "x" : tensor<2x3xf32>
  %c = fx.placeholder "c" : tensor<f32>
  %y = fx.call_function "operator.mul"(%x, 2.0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %f = fx.call_method "fill_"(%y, 3.0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %g = fx.call_method "fill_"(%y, %c) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %h = fx.call_method "zero_"(%y) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  fx.output %y : tensor<2x3xf32>
}

// -----

// Methods that change only the shape (`unsqueeze_`) stay as they are.

fx.graph @shape_only {
  %x = fx.placeholder "x" : tensor<3xf32>
  %y = fx.call_function "operator.mul"(%x, 2.0) : (tensor<3xf32>) -> tensor<3xf32>
  // expected-warning @+1 {{call_method 'u' with target 'unsqueeze_' is not supported}}
  %u = fx.call_method "unsqueeze_"(%y, 0) : (tensor<3xf32>) -> tensor<1x3xf32>
  fx.output %u : tensor<1x3xf32>
}
