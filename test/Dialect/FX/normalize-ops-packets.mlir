// RUN: fx-opt %s -split-input-file --fx-normalize -verify-diagnostics | FileCheck %s
//
// `torch.ops.aten.add` (an OpOverloadPacket, as a graph that calls
// torch.ops.aten.add(x, y) holds it) binds to the overload its args fit,
// as calling the packet does; `torch.ops.aten.mm.default` (an overload in
// Python's spelling) to that overload (issue 27.1).

// CHECK-LABEL: fx.graph @packets
// CHECK: %mm = fx.call_function "aten::mm"(%a, %b)
// CHECK: %add = fx.call_function "aten::add.Tensor"(%mm, %x, alpha=1)
// CHECK: %add_1 = fx.call_function "aten::add.Scalar"(%add, 2, 1)
// CHECK: %mm_1 = fx.call_function "aten::mm"(%a, %b)
fx.graph @packets {
  %a = fx.placeholder "a" : tensor<4x5xf32>
  %b = fx.placeholder "b" : tensor<5x3xf32>
  %x = fx.placeholder "x" : tensor<4x3xf32>
  %mm = fx.call_function "torch.ops.aten.mm"(%a, %b) : (tensor<4x5xf32>, tensor<5x3xf32>) -> tensor<4x3xf32>
  %add = fx.call_function "torch.ops.aten.add"(%mm, %x) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  %add_1 = fx.call_function "torch.ops.aten.add"(%add, 2) : (tensor<4x3xf32>) -> tensor<4x3xf32>
  %mm_1 = fx.call_function "torch.ops.aten.mm.default"(%a, %b) : (tensor<4x5xf32>, tensor<5x3xf32>) -> tensor<4x3xf32>
  fx.output (%add_1, %mm_1) : tensor<4x3xf32>, tensor<4x3xf32>
}

// -----

// No overload fits: a warning naming the packet, the call left alone.
fx.graph @no_overload {
  %a = fx.placeholder "a" : tensor<4x5xf32>
  // expected-warning @+1 {{function 'torch.ops.aten.mm'}}
  %mm = fx.call_function "torch.ops.aten.mm"(%a) : (tensor<4x5xf32>) -> tensor<4x3xf32>
  fx.output %mm : tensor<4x3xf32>
}

// -----

// aten's internal ops with a public twin are aliases of it.
// CHECK-LABEL: fx.graph @internal_ops
// CHECK: %v = fx.call_function "aten::view"(%x, [6, 4])
// CHECK: %l = fx.call_function "aten::log_softmax.int"(%v, 1, None)
fx.graph @internal_ops {
  %x = fx.placeholder "x" : tensor<4x6xf32>
  %v = fx.call_function "torch.ops.aten._unsafe_view"(%x, [6, 4]) : (tensor<4x6xf32>) -> tensor<6x4xf32>
  %l = fx.call_function "torch.ops.aten._log_softmax"(%v, 1, False) : (tensor<6x4xf32>) -> tensor<6x4xf32>
  fx.output %l : tensor<6x4xf32>
}

// -----

// ATen's alias operators are the operator they alias, as packets, as
// overloads in Python's spelling and as the `aten::` names the importer
// writes for an OpOverload; torch.* bindings that read `reduction=Mean` as
// 0 say so.
// CHECK-LABEL: fx.graph @alias_ops
// CHECK: %s = fx.call_function "aten::sub.Tensor"(%x, %y, alpha=1)
// CHECK: %a = fx.call_function "aten::asin"(%s)
// CHECK: %g = fx.call_function "aten::gt.Tensor"(%a, %y)
// CHECK: %d = fx.call_function "aten::div.Tensor"(%x, %y)
// CHECK: %e = fx.call_function "aten::expm1"(%x)
// CHECK: %k = fx.call_function "aten::kl_div"(%x, %y, 0, log_target=False)
// CHECK: %r = fx.call_function "aten::hardtanh"(%x, 0.0{{.*}}, 6.0{{.*}})
// CHECK: %n = fx.call_function "aten::linalg_vector_norm"(%x, 2, [1], False, dtype=None)
fx.graph @alias_ops {
  %x = fx.placeholder "x" : tensor<4x3xf32>
  %y = fx.placeholder "y" : tensor<4x3xf32>
  %s = fx.call_function "aten::subtract.Tensor"(%x, %y) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  %a = fx.call_function "torch.ops.aten.arcsin"(%s) : (tensor<4x3xf32>) -> tensor<4x3xf32>
  %g = fx.call_function "torch.ops.aten.greater.Tensor"(%a, %y) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xi1>
  %d = fx.call_function "torch.ops.aten.divide"(%x, %y) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  %e = fx.call_function "torch._C._special.special_expm1"(%x) : (tensor<4x3xf32>) -> tensor<4x3xf32>
  %k = fx.call_function "torch.kl_div"(%x, %y) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  %r = fx.call_function "aten::relu6"(%x) : (tensor<4x3xf32>) -> tensor<4x3xf32>
  %n = fx.call_function "torch.ops.aten.norm"(%x, None, [1]) : (tensor<4x3xf32>) -> tensor<4xf32>
  fx.output (%g, %d, %e, %k, %r, %n) : tensor<4x3xi1>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4xf32>
}
