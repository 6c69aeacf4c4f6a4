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
