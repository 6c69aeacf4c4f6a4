// RUN: fx-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(fx-cpu-lower-vectors{target=x86-64-v4}))' | FileCheck %s

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

// A copy into a strided view becomes a linalg.copy, not a call to
// memrefCopy, and that one vector load and store per row (LLVM left the
// loop scalar).

// CHECK-LABEL: func.func @strided_copy
// CHECK: scf.for %[[I:.*]] = %c0 to %c4 step %c1
// CHECK: %[[ROW:.*]] = vector.transfer_read {{.*}} : memref<1x4xf32, strided<[4, 1], offset: ?>>, vector<1x4xf32>
// CHECK: vector.transfer_write %[[ROW]], {{.*}} : vector<1x4xf32>, memref<1x4xf32, strided<[6, 1], offset: ?>>
// CHECK-NOT: linalg.copy
// CHECK-NOT: memref.copy
func.func @strided_copy(%src: memref<4x4xf32>, %dst: memref<6x6xf32>) {
  %view = memref.subview %dst[1, 1] [4, 4] [1, 1] : memref<6x6xf32> to memref<4x4xf32, strided<[6, 1], offset: 7>>
  memref.copy %src, %view : memref<4x4xf32> to memref<4x4xf32, strided<[6, 1], offset: 7>>
  return
}

// A large one (2^15 elements or more) runs in parallel blocks of its
// outermost dim of more than one; unit dims get no loop.

// CHECK-LABEL: func.func @large_strided_copy
// CHECK: scf.forall (%{{.*}}) = (0) to (64) step (8)
// CHECK: scf.for %{{.*}} = %c0 to %c8 step %c1
// CHECK: scf.for %{{.*}} = %c0 to %c32 step %c1
// CHECK-NOT: scf.for
// CHECK: vector.transfer_read {{.*}} vector<1x1x1x32xf32>
// CHECK: vector.transfer_write
func.func @large_strided_copy(%src: memref<1x64x32x32xf32>, %dst: memref<1x64x34x34xf32>) {
  %view = memref.subview %dst[0, 0, 1, 1] [1, 64, 32, 32] [1, 1, 1, 1] : memref<1x64x34x34xf32> to memref<1x64x32x32xf32, strided<[73984, 1156, 34, 1], offset: 35>>
  memref.copy %src, %view : memref<1x64x32x32xf32> to memref<1x64x32x32xf32, strided<[73984, 1156, 34, 1], offset: 35>>
  return
}

// Rows longer than 256 move in the largest pieces of at most 256 that
// divide them; a row no such piece divides, or one with a stride, stays a
// loop.

// CHECK-LABEL: func.func @long_rows
// CHECK: scf.for %{{.*}} = %c0 to %c600 step %c200
// CHECK: vector.transfer_read {{.*}} vector<1x200xf32>
// CHECK-LABEL: func.func @prime_row
// CHECK: linalg.copy
// CHECK-LABEL: func.func @strided_row
// CHECK: linalg.copy
func.func @long_rows(%src: memref<2x600xf32>, %dst: memref<2x600xf32, strided<[700, 1]>>) {
  linalg.copy ins(%src : memref<2x600xf32>) outs(%dst : memref<2x600xf32, strided<[700, 1]>>)
  return
}
func.func @prime_row(%src: memref<2x257xf32>, %dst: memref<2x257xf32, strided<[300, 1]>>) {
  linalg.copy ins(%src : memref<2x257xf32>) outs(%dst : memref<2x257xf32, strided<[300, 1]>>)
  return
}
func.func @strided_row(%src: memref<2x8xf32>, %dst: memref<2x8xf32, strided<[32, 2]>>) {
  linalg.copy ins(%src : memref<2x8xf32>) outs(%dst : memref<2x8xf32, strided<[32, 2]>>)
  return
}

// CHECK-LABEL: func.func @contiguous_copy
// CHECK: memref.copy
func.func @contiguous_copy(%src: memref<4x4xf32>, %dst: memref<4x4xf32>) {
  memref.copy %src, %dst : memref<4x4xf32> to memref<4x4xf32>
  return
}

// -----

// A read along a dim of stride 2 (a pooling window of stride 2): per 16
// lanes, one masked load of the 31 elements they span, from the same
// memref with a unit stride, and a shuffle of every other one.

// CHECK-LABEL: func.func @stride2
// CHECK: %[[BASE:.*]], %{{.*}}, %{{.*}}:2, %{{.*}}:2 = memref.extract_strided_metadata
// CHECK: %[[VIEW:.*]] = memref.reinterpret_cast %[[BASE]] to offset: [3], sizes: [4, 47], strides: [68, 1]
// CHECK: %[[START:.*]] = arith.muli %{{.*}}, %c2
// CHECK: vector.maskedload %[[VIEW]][%{{.*}}, %[[START]]], %{{.*}} : memref<4x47xf32, strided<[68, 1], offset: 3>>, vector<32xi1>, vector<32xf32> into vector<32xf32>
// CHECK: vector.shuffle {{.*}} [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30] : vector<32xf32>, vector<32xf32>
// CHECK: %[[SECOND:.*]] = arith.addi %[[START]], %c32
// CHECK: vector.maskedload %[[VIEW]][%{{.*}}, %[[SECOND]]], {{.*}} into vector<16xf32>
// CHECK: vector.shuffle {{.*}} [0, 2, 4, 6, 8, 10, 12, 14] : vector<16xf32>, vector<16xf32>
// CHECK-NOT: vector.transfer_read
func.func @stride2(%m: memref<4x24xf32, strided<[68, 2], offset: 3>>, %i: index, %j: index) -> vector<24xf32> {
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %m[%i, %j], %pad {in_bounds = [true]} : memref<4x24xf32, strided<[68, 2], offset: 3>>, vector<24xf32>
  return %v : vector<24xf32>
}

// -----

// Unit and larger strides are left to the transfer lowering.

// CHECK-LABEL: func.func @stride5
// CHECK-NOT: vector.maskedload
// CHECK-NOT: vector.shuffle
func.func @stride5(%m: memref<4x24xf32, strided<[200, 5]>>, %i: index) -> vector<16xf32> {
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %m[%i, %i], %pad {in_bounds = [true]} : memref<4x24xf32, strided<[200, 5]>>, vector<16xf32>
  return %v : vector<16xf32>
}

// -----

// A read of stride 2 that is a contraction's operand (a strided conv's
// positions, broadcast one by one by the outer products) is left to the
// transfer lowering (scalar loads, which LLVM makes broadcasts straight
// from memory), not a masked load and shuffles.

// CHECK-LABEL: func.func @stride2_contracted
// CHECK-NOT: vector.maskedload
// CHECK: vector.transfer_read %{{.*}} : memref<8xf32, strided<[2]>>, vector<4xf32>
// CHECK-NOT: vector.shuffle
// CHECK-COUNT-4: vector.fma {{.*}} : vector<32xf32>
#lhs = affine_map<(m, n, k) -> (k, m)>
#rhs = affine_map<(m, n, k) -> (k, n)>
#out = affine_map<(m, n, k) -> (m, n)>
func.func @stride2_contracted(%m: memref<8xf32, strided<[2]>>, %y: vector<1x32xf32>, %acc: vector<4x32xf32>) -> vector<4x32xf32> {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %m[%c0], %pad {in_bounds = [true]} : memref<8xf32, strided<[2]>>, vector<4xf32>
  %x = vector.broadcast %v : vector<4xf32> to vector<1x4xf32>
  %r = vector.contract {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<1x4xf32>, vector<1x32xf32> into vector<4x32xf32>
  return %r : vector<4x32xf32>
}

// -----

// A 16 x 16 transpose (a transposing op's register tile) becomes shuffles
// of whole registers; other transposes move element by element.

// CHECK-LABEL: func.func @transpose16x16
// CHECK-NOT: vector.transpose
// CHECK-COUNT-64: vector.shuffle {{.*}} : vector<16xf32>, vector<16xf32>
// CHECK-NOT: vector.shuffle
// CHECK: return
func.func @transpose16x16(%v: vector<1x16x16xf32>) -> vector<1x16x16xf32> {
  %t = vector.transpose %v, [0, 2, 1] : vector<1x16x16xf32> to vector<1x16x16xf32>
  return %t : vector<1x16x16xf32>
}

// CHECK-LABEL: func.func @transpose4x8
// CHECK-NOT: vector.shuffle
// CHECK-COUNT-32: vector.insert {{.*}} : f32 into vector<8x4xf32>
func.func @transpose4x8(%v: vector<4x8xf32>) -> vector<8x4xf32> {
  %t = vector.transpose %v, [1, 0] : vector<4x8xf32> to vector<8x4xf32>
  return %t : vector<8x4xf32>
}

// -----

// A 0-d read of a strided view (a slice of one element, broadcast) is a
// load and a broadcast: the transfer lowering leaves a read of a non-unit
// stride to LLVM translation, which fails on it.

// CHECK-LABEL: func.func @zero_d_strided
// CHECK-NOT: vector.transfer_read
// CHECK: %[[E:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<1xf32, strided<[2]>>
// CHECK: vector.broadcast %[[E]] : f32 to vector<3xf32>
func.func @zero_d_strided(%m: memref<1xf32, strided<[2]>>, %i: index) -> vector<3xf32> {
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %m[%i], %pad : memref<1xf32, strided<[2]>>, vector<f32>
  %b = vector.broadcast %v : vector<f32> to vector<3xf32>
  return %b : vector<3xf32>
}

