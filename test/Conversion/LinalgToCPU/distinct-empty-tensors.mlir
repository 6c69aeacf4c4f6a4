// RUN: fx-opt %s --pass-pipeline='builtin.module(func.func(fx-cpu-distinct-empty-tensors))' | FileCheck %s
// RUN: fx-opt %s --pass-pipeline='builtin.module(func.func(fx-cpu-distinct-empty-tensors),cse)' | FileCheck %s --check-prefix=CSE

// 17 identical tensor.empty ops (more than 16) each get an index, and CSE
// keeps them apart; 3 are left alone, and CSE merges them.
// CHECK-LABEL: func.func @many
// CHECK: tensor.empty() {fx.distinct = 0 : i64} : tensor<4x16xf32>
// CHECK: tensor.empty() {fx.distinct = 1 : i64} : tensor<4x16xf32>
// CHECK: tensor.empty() {fx.distinct = 2 : i64} : tensor<4x16xf32>
// CHECK: tensor.empty() {fx.distinct = 3 : i64} : tensor<4x16xf32>
// CHECK: tensor.empty() {fx.distinct = 4 : i64} : tensor<4x16xf32>
// CHECK: tensor.empty() {fx.distinct = 5 : i64} : tensor<4x16xf32>
// CHECK: tensor.empty() {fx.distinct = 6 : i64} : tensor<4x16xf32>
// CHECK: tensor.empty() {fx.distinct = 7 : i64} : tensor<4x16xf32>
// CHECK: tensor.empty() {fx.distinct = 8 : i64} : tensor<4x16xf32>
// CHECK: tensor.empty() {fx.distinct = 9 : i64} : tensor<4x16xf32>
// CHECK: tensor.empty() {fx.distinct = 10 : i64} : tensor<4x16xf32>
// CHECK: tensor.empty() {fx.distinct = 11 : i64} : tensor<4x16xf32>
// CHECK: tensor.empty() {fx.distinct = 12 : i64} : tensor<4x16xf32>
// CHECK: tensor.empty() {fx.distinct = 13 : i64} : tensor<4x16xf32>
// CHECK: tensor.empty() {fx.distinct = 14 : i64} : tensor<4x16xf32>
// CHECK: tensor.empty() {fx.distinct = 15 : i64} : tensor<4x16xf32>
// CHECK: tensor.empty() {fx.distinct = 16 : i64} : tensor<4x16xf32>
// CSE-LABEL: func.func @many
// CSE-COUNT-17: tensor.empty()
// CSE-LABEL: func.func @few
// CSE-COUNT-1: tensor.empty() : tensor<4x16xf32>
// CSE-NOT: tensor.empty
func.func @many(%a: f32) -> (tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>) {
  %e0 = tensor.empty() : tensor<4x16xf32>
  %x0 = linalg.fill ins(%a : f32) outs(%e0 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %e1 = tensor.empty() : tensor<4x16xf32>
  %x1 = linalg.fill ins(%a : f32) outs(%e1 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %e2 = tensor.empty() : tensor<4x16xf32>
  %x2 = linalg.fill ins(%a : f32) outs(%e2 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %e3 = tensor.empty() : tensor<4x16xf32>
  %x3 = linalg.fill ins(%a : f32) outs(%e3 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %e4 = tensor.empty() : tensor<4x16xf32>
  %x4 = linalg.fill ins(%a : f32) outs(%e4 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %e5 = tensor.empty() : tensor<4x16xf32>
  %x5 = linalg.fill ins(%a : f32) outs(%e5 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %e6 = tensor.empty() : tensor<4x16xf32>
  %x6 = linalg.fill ins(%a : f32) outs(%e6 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %e7 = tensor.empty() : tensor<4x16xf32>
  %x7 = linalg.fill ins(%a : f32) outs(%e7 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %e8 = tensor.empty() : tensor<4x16xf32>
  %x8 = linalg.fill ins(%a : f32) outs(%e8 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %e9 = tensor.empty() : tensor<4x16xf32>
  %x9 = linalg.fill ins(%a : f32) outs(%e9 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %e10 = tensor.empty() : tensor<4x16xf32>
  %x10 = linalg.fill ins(%a : f32) outs(%e10 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %e11 = tensor.empty() : tensor<4x16xf32>
  %x11 = linalg.fill ins(%a : f32) outs(%e11 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %e12 = tensor.empty() : tensor<4x16xf32>
  %x12 = linalg.fill ins(%a : f32) outs(%e12 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %e13 = tensor.empty() : tensor<4x16xf32>
  %x13 = linalg.fill ins(%a : f32) outs(%e13 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %e14 = tensor.empty() : tensor<4x16xf32>
  %x14 = linalg.fill ins(%a : f32) outs(%e14 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %e15 = tensor.empty() : tensor<4x16xf32>
  %x15 = linalg.fill ins(%a : f32) outs(%e15 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %e16 = tensor.empty() : tensor<4x16xf32>
  %x16 = linalg.fill ins(%a : f32) outs(%e16 : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %x0, %x1, %x2, %x3, %x4, %x5, %x6, %x7, %x8, %x9, %x10, %x11, %x12, %x13, %x14, %x15, %x16 : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>
}

// CHECK-LABEL: func.func @few
// CHECK-NOT: fx.distinct
func.func @few(%a: f32, %b: f32, %c: f32) -> (tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>) {
  %e0 = tensor.empty() : tensor<4x16xf32>
  %x0 = linalg.fill ins(%a : f32) outs(%e0 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %e1 = tensor.empty() : tensor<4x16xf32>
  %x1 = linalg.fill ins(%b : f32) outs(%e1 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %e2 = tensor.empty() : tensor<4x16xf32>
  %x2 = linalg.fill ins(%c : f32) outs(%e2 : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %x0, %x1, %x2 : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>
}
