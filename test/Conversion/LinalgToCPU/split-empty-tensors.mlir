// RUN: fx-opt %s --pass-pipeline='builtin.module(func.func(fx-cpu-split-empty-tensors))' | FileCheck %s

// One tensor.empty that CSE shared among 17 ops (more than 16) becomes one
// per op, each just before its user; dynamic sizes are reused.
// CHECK-LABEL: func.func @shared
// CHECK: %[[E0:.*]] = tensor.empty() : tensor<4x16xf32>
// CHECK-NEXT: linalg.fill ins(%{{.*}} : f32) outs(%[[E0]]
// CHECK-NEXT: %[[E1:.*]] = tensor.empty() : tensor<4x16xf32>
// CHECK-NEXT: linalg.fill ins(%{{.*}} : f32) outs(%[[E1]]
// CHECK-NEXT: %[[E2:.*]] = tensor.empty() : tensor<4x16xf32>
// CHECK-NEXT: linalg.fill ins(%{{.*}} : f32) outs(%[[E2]]
// CHECK-NEXT: %[[E3:.*]] = tensor.empty() : tensor<4x16xf32>
// CHECK-NEXT: linalg.fill ins(%{{.*}} : f32) outs(%[[E3]]
// CHECK-NEXT: %[[E4:.*]] = tensor.empty() : tensor<4x16xf32>
// CHECK-NEXT: linalg.fill ins(%{{.*}} : f32) outs(%[[E4]]
// CHECK-NEXT: %[[E5:.*]] = tensor.empty() : tensor<4x16xf32>
// CHECK-NEXT: linalg.fill ins(%{{.*}} : f32) outs(%[[E5]]
// CHECK-NEXT: %[[E6:.*]] = tensor.empty() : tensor<4x16xf32>
// CHECK-NEXT: linalg.fill ins(%{{.*}} : f32) outs(%[[E6]]
// CHECK-NEXT: %[[E7:.*]] = tensor.empty() : tensor<4x16xf32>
// CHECK-NEXT: linalg.fill ins(%{{.*}} : f32) outs(%[[E7]]
// CHECK-NEXT: %[[E8:.*]] = tensor.empty() : tensor<4x16xf32>
// CHECK-NEXT: linalg.fill ins(%{{.*}} : f32) outs(%[[E8]]
// CHECK-NEXT: %[[E9:.*]] = tensor.empty() : tensor<4x16xf32>
// CHECK-NEXT: linalg.fill ins(%{{.*}} : f32) outs(%[[E9]]
// CHECK-NEXT: %[[E10:.*]] = tensor.empty() : tensor<4x16xf32>
// CHECK-NEXT: linalg.fill ins(%{{.*}} : f32) outs(%[[E10]]
// CHECK-NEXT: %[[E11:.*]] = tensor.empty() : tensor<4x16xf32>
// CHECK-NEXT: linalg.fill ins(%{{.*}} : f32) outs(%[[E11]]
// CHECK-NEXT: %[[E12:.*]] = tensor.empty() : tensor<4x16xf32>
// CHECK-NEXT: linalg.fill ins(%{{.*}} : f32) outs(%[[E12]]
// CHECK-NEXT: %[[E13:.*]] = tensor.empty() : tensor<4x16xf32>
// CHECK-NEXT: linalg.fill ins(%{{.*}} : f32) outs(%[[E13]]
// CHECK-NEXT: %[[E14:.*]] = tensor.empty() : tensor<4x16xf32>
// CHECK-NEXT: linalg.fill ins(%{{.*}} : f32) outs(%[[E14]]
// CHECK-NEXT: %[[E15:.*]] = tensor.empty() : tensor<4x16xf32>
// CHECK-NEXT: linalg.fill ins(%{{.*}} : f32) outs(%[[E15]]
// CHECK-NEXT: %[[E16:.*]] = tensor.empty() : tensor<4x16xf32>
// CHECK-NEXT: linalg.fill ins(%{{.*}} : f32) outs(%[[E16]]
// CHECK-NOT: tensor.empty
func.func @shared(%a0: f32, %a1: f32, %a2: f32, %a3: f32, %a4: f32, %a5: f32, %a6: f32, %a7: f32, %a8: f32, %a9: f32, %a10: f32, %a11: f32, %a12: f32, %a13: f32, %a14: f32, %a15: f32, %a16: f32) -> (tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>) {
  %e = tensor.empty() : tensor<4x16xf32>
  %x0 = linalg.fill ins(%a0 : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %x1 = linalg.fill ins(%a1 : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %x2 = linalg.fill ins(%a2 : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %x3 = linalg.fill ins(%a3 : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %x4 = linalg.fill ins(%a4 : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %x5 = linalg.fill ins(%a5 : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %x6 = linalg.fill ins(%a6 : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %x7 = linalg.fill ins(%a7 : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %x8 = linalg.fill ins(%a8 : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %x9 = linalg.fill ins(%a9 : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %x10 = linalg.fill ins(%a10 : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %x11 = linalg.fill ins(%a11 : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %x12 = linalg.fill ins(%a12 : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %x13 = linalg.fill ins(%a13 : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %x14 = linalg.fill ins(%a14 : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %x15 = linalg.fill ins(%a15 : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %x16 = linalg.fill ins(%a16 : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %x0, %x1, %x2, %x3, %x4, %x5, %x6, %x7, %x8, %x9, %x10, %x11, %x12, %x13, %x14, %x15, %x16 : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>
}

// Three uses: the tensor stays shared.
// CHECK-LABEL: func.func @few
// CHECK-COUNT-1: tensor.empty
// CHECK-NOT: tensor.empty
func.func @few(%a: f32, %b: f32, %c: f32) -> (tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>) {
  %e = tensor.empty() : tensor<4x16xf32>
  %x = linalg.fill ins(%a : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %y = linalg.fill ins(%b : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %z = linalg.fill ins(%c : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %x, %y, %z : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>
}

// CHECK-LABEL: func.func @dynamic
// CHECK-COUNT-17: tensor.empty(%arg0) : tensor<?x16xf32>
func.func @dynamic(%n: index, %a: f32) -> (tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>) {
  %e = tensor.empty(%n) : tensor<?x16xf32>
  %x0 = linalg.fill ins(%a : f32) outs(%e : tensor<?x16xf32>) -> tensor<?x16xf32>
  %x1 = linalg.fill ins(%a : f32) outs(%e : tensor<?x16xf32>) -> tensor<?x16xf32>
  %x2 = linalg.fill ins(%a : f32) outs(%e : tensor<?x16xf32>) -> tensor<?x16xf32>
  %x3 = linalg.fill ins(%a : f32) outs(%e : tensor<?x16xf32>) -> tensor<?x16xf32>
  %x4 = linalg.fill ins(%a : f32) outs(%e : tensor<?x16xf32>) -> tensor<?x16xf32>
  %x5 = linalg.fill ins(%a : f32) outs(%e : tensor<?x16xf32>) -> tensor<?x16xf32>
  %x6 = linalg.fill ins(%a : f32) outs(%e : tensor<?x16xf32>) -> tensor<?x16xf32>
  %x7 = linalg.fill ins(%a : f32) outs(%e : tensor<?x16xf32>) -> tensor<?x16xf32>
  %x8 = linalg.fill ins(%a : f32) outs(%e : tensor<?x16xf32>) -> tensor<?x16xf32>
  %x9 = linalg.fill ins(%a : f32) outs(%e : tensor<?x16xf32>) -> tensor<?x16xf32>
  %x10 = linalg.fill ins(%a : f32) outs(%e : tensor<?x16xf32>) -> tensor<?x16xf32>
  %x11 = linalg.fill ins(%a : f32) outs(%e : tensor<?x16xf32>) -> tensor<?x16xf32>
  %x12 = linalg.fill ins(%a : f32) outs(%e : tensor<?x16xf32>) -> tensor<?x16xf32>
  %x13 = linalg.fill ins(%a : f32) outs(%e : tensor<?x16xf32>) -> tensor<?x16xf32>
  %x14 = linalg.fill ins(%a : f32) outs(%e : tensor<?x16xf32>) -> tensor<?x16xf32>
  %x15 = linalg.fill ins(%a : f32) outs(%e : tensor<?x16xf32>) -> tensor<?x16xf32>
  %x16 = linalg.fill ins(%a : f32) outs(%e : tensor<?x16xf32>) -> tensor<?x16xf32>
  return %x0, %x1, %x2, %x3, %x4, %x5, %x6, %x7, %x8, %x9, %x10, %x11, %x12, %x13, %x14, %x15, %x16 : tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>
}
