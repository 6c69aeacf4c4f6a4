// RUN: fx-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(fx-cpu-lower-vectors))' | FileCheck %s

// A register tile's contraction becomes one FMA per row.

// CHECK-LABEL: func.func @contract
// CHECK-COUNT-2: vector.fma {{.*}} : vector<32xf32>
// CHECK-NOT: vector.contract
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func @contract(%x: vector<2x1xf32>, %y: vector<1x32xf32>, %acc: vector<2x32xf32>) -> vector<2x32xf32> {
  %r = vector.contract {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<2x1xf32>, vector<1x32xf32> into vector<2x32xf32>
  return %r : vector<2x32xf32>
}

// -----

// exp gets a polynomial approximation instead of a libm call.

// CHECK-LABEL: func.func @exp
// CHECK-NOT: math.exp
// CHECK: math.fma
func.func @exp(%x: vector<16xf32>) -> vector<16xf32> {
  %r = math.exp %x : vector<16xf32>
  return %r : vector<16xf32>
}

// -----

// A copy into a strided view becomes linalg.copy (loops), not memrefCopy.

// CHECK-LABEL: func.func @strided_copy
// CHECK: linalg.copy
// CHECK-NOT: memref.copy
func.func @strided_copy(%src: memref<4x4xf32>, %dst: memref<6x6xf32>) {
  %view = memref.subview %dst[1, 1] [4, 4] [1, 1] : memref<6x6xf32> to memref<4x4xf32, strided<[6, 1], offset: 7>>
  memref.copy %src, %view : memref<4x4xf32> to memref<4x4xf32, strided<[6, 1], offset: 7>>
  return
}

// CHECK-LABEL: func.func @contiguous_copy
// CHECK: memref.copy
func.func @contiguous_copy(%src: memref<4x4xf32>, %dst: memref<4x4xf32>) {
  memref.copy %src, %dst : memref<4x4xf32> to memref<4x4xf32>
  return
}
