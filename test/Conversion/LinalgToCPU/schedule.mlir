// RUN: fx-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(fx-cpu-schedule{target=x86-64-v4}))' | FileCheck %s

// A matmul whose shape divides into register tiles: one scf.forall over
// cache blocks, loops over 8x32 register tiles and k, one vector.contract
// per tile.

// CHECK-LABEL: func.func @matmul
// CHECK: scf.forall
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for
// CHECK: vector.contract {{.*}} vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// CHECK-NOT: linalg.matmul
// CHECK-NOT: tensor.expand_shape
func.func @matmul(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

// -----

// Tails: 10 rows are 8 + 2, 50 columns are 32 + 16 + 2; every piece is a
// static tile, no masks.

// CHECK-LABEL: func.func @tails
// CHECK-DAG: vector.contract {{.*}} into vector<8x32xf32>
// CHECK-DAG: vector.contract {{.*}} into vector<8x16xf32>
// CHECK-DAG: vector.contract {{.*}} into vector<8x2xf32>
// CHECK-DAG: vector.contract {{.*}} into vector<2x32xf32>
// CHECK-DAG: vector.contract {{.*}} into vector<2x16xf32>
// CHECK-DAG: vector.contract {{.*}} into vector<2x2xf32>
// CHECK-NOT: vector.mask
func.func @tails(%a: tensor<10x7xf32>, %b: tensor<7x50xf32>, %c: tensor<10x50xf32>) -> tensor<10x50xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<10x7xf32>, tensor<7x50xf32>) outs(%c : tensor<10x50xf32>) -> tensor<10x50xf32>
  return %r : tensor<10x50xf32>
}

// -----

// A vector-matrix product: one row, 128 columns per register tile.

// CHECK-LABEL: func.func @one_row
// CHECK: vector.contract {{.*}} vector<1x128xf32> into vector<128xf32>
func.func @one_row(%a: tensor<1x64xf32>, %b: tensor<64x256xf32>, %c: tensor<1x256xf32>) -> tensor<1x256xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<1x64xf32>, tensor<64x256xf32>) outs(%c : tensor<1x256xf32>) -> tensor<1x256xf32>
  return %r : tensor<1x256xf32>
}

// -----

// A vector-matrix product with a constant B (an LSTM step's h @ w_hh^T at
// batch 1): B packed at compile time into panels as wide as the register
// tile's row (128 columns of AVX-512), each register tile then streams one
// contiguous panel; with 192 columns, panels of 64 (the widest of 8, 4 and
// 2 vectors that divides them).

#vx = affine_map<(m, n, k) -> (m, k)>
#vw = affine_map<(m, n, k) -> (n, k)>
#vo = affine_map<(m, n, k) -> (m, n)>
// CHECK-LABEL: func.func @one_row_constant_256
// CHECK: arith.constant dense_resource<transposed{{.*}}> : tensor<2x2x128xf32>
// CHECK: vector.contract {{.*}} vector<1x128xf32> into vector<128xf32>
// CHECK-NOT: linalg.transpose
func.func @one_row_constant_256(%x: tensor<1x2xf32>, %c: tensor<1x256xf32>) -> tensor<1x256xf32> {
  %w = arith.constant dense<[[-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0]]> : tensor<256x2xf32>
  %r = linalg.generic {indexing_maps = [#vx, #vw, #vo], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : tensor<1x2xf32>, tensor<256x2xf32>) outs(%c : tensor<1x256xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x256xf32>
  return %r : tensor<1x256xf32>
}

// CHECK-LABEL: func.func @one_row_constant_192
// CHECK: arith.constant dense_resource<transposed{{.*}}> : tensor<3x2x64xf32>
// CHECK: vector.contract {{.*}} vector<1x64xf32> into vector<64xf32>
func.func @one_row_constant_192(%x: tensor<1x2xf32>, %c: tensor<1x192xf32>) -> tensor<1x192xf32> {
  %w = arith.constant dense<[[-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0]]> : tensor<192x2xf32>
  %r = linalg.generic {indexing_maps = [#vx, #vw, #vo], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : tensor<1x2xf32>, tensor<192x2xf32>) outs(%c : tensor<1x192xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x192xf32>
  return %r : tensor<1x192xf32>
}

// -----

// linear's weight, read (n, k), is transposed once at compile time into a
// new constant read (k, n).

#x = affine_map<(m, n, k) -> (m, k)>
#w = affine_map<(m, n, k) -> (n, k)>
#o = affine_map<(m, n, k) -> (m, n)>
// CHECK-LABEL: func.func @linear_weight
// CHECK: %[[T:.*]] = arith.constant dense_resource<transposed> : tensor<2x32xf32>
// CHECK: vector.contract
// CHECK-NOT: linalg.transpose
func.func @linear_weight(%x: tensor<8x2xf32>, %c: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %w = arith.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0], [1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0], [1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0], [1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0], [1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0], [1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0], [1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0], [1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]> : tensor<32x2xf32>
  %r = linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : tensor<8x2xf32>, tensor<32x2xf32>) outs(%c : tensor<8x32xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<8x32xf32>
  return %r : tensor<8x32xf32>
}

// -----

// A computed operand read (batch, n, k), as attention's keys, is transposed
// by one linalg.transpose before the contraction.

#q = affine_map<(b, m, n, k) -> (b, m, k)>
#kt = affine_map<(b, m, n, k) -> (b, n, k)>
#s = affine_map<(b, m, n, k) -> (b, m, n)>
// CHECK-LABEL: func.func @keys
// CHECK: linalg.transpose ins(%{{.*}} : tensor<4x16x8xf32>) outs(%{{.*}} : tensor<4x8x16xf32>) permutation = [0, 2, 1]
// CHECK: vector.contract
func.func @keys(%q: tensor<4x16x8xf32>, %k: tensor<4x16x8xf32>, %c: tensor<4x16x16xf32>) -> tensor<4x16x16xf32> {
  %r = linalg.generic {indexing_maps = [#q, #kt, #s], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<4x16x8xf32>, tensor<4x16x8xf32>) outs(%c : tensor<4x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x16x16xf32>
  return %r : tensor<4x16x16xf32>
}

// -----

// conv_2d_nchw_fchw on a narrow image (8 wide: the shifted window would
// compute 10/8 of the output): an im2col gather (no div/mod) and a
// contraction.

// CHECK-LABEL: func.func @conv
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<1x3x10x10xf32>) outs(%{{.*}} : tensor<1x3x3x3x8x8xf32>)
// CHECK: tensor.collapse_shape {{.*}} into tensor<1x27x64xf32>
// CHECK: vector.contract
// CHECK-NOT: linalg.conv_2d_nchw_fchw
func.func @conv(%x: tensor<1x3x10x10xf32>, %w: tensor<16x3x3x3xf32>, %c: tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : tensor<1x3x10x10xf32>, tensor<16x3x3x3xf32>) outs(%c : tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  return %r : tensor<1x16x8x8xf32>
}

// -----

// With a batch, a gathered conv runs one image at a time: an scf.for over
// the images, each gathered into columns of its own and contracted.

// CHECK-LABEL: func.func @conv_batch
// CHECK: scf.for %[[N:.*]] = %c0 to %c2 step %c1 iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<2x16x4x4xf32>)
// CHECK: tensor.extract_slice %{{.*}}[%[[N]], 0, 0, 0] [1, 3, 10, 10] [1, 1, 1, 1]
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x3x3x3x4x4xf32>)
// CHECK: vector.contract
// CHECK: tensor.insert_slice %{{.*}} into %[[ACC]][%[[N]], 0, 0, 0] [1, 16, 4, 4] [1, 1, 1, 1]
// CHECK-NOT: linalg.conv_2d_nchw_fchw
func.func @conv_batch(%x: tensor<2x3x10x10xf32>, %w: tensor<16x3x3x3xf32>, %c: tensor<2x16x4x4xf32>) -> tensor<2x16x4x4xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%x, %w : tensor<2x3x10x10xf32>, tensor<16x3x3x3xf32>) outs(%c : tensor<2x16x4x4xf32>) -> tensor<2x16x4x4xf32>
  return %r : tensor<2x16x4x4xf32>
}

// -----

// A gathered conv whose columns would exceed 2^17 elements (here 144 x
// 128 x 128) runs a few output rows at a time (4: the largest divisor of
// 128 whose columns fit), each from the 9 input rows it reads. The gather
// (a scalar copy) runs in parallel blocks of its channels.

// CHECK-LABEL: func.func @conv_rows
// CHECK: scf.for %[[Y:.*]] = %c0 to %c128 step %c4 iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<1x16x128x128xf32>)
// CHECK: %[[IY:.*]] = arith.muli %[[Y]], %c2
// CHECK: tensor.extract_slice %{{.*}}[0, 0, %[[IY]], 0] [1, 16, 9, 258] [1, 1, 1, 1]
// CHECK: tensor.empty() : tensor<1x16x3x3x4x128xf32>
// CHECK: scf.forall
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x2x3x3x4x128xf32>)
// CHECK: vector.contract
// CHECK: tensor.insert_slice %{{.*}} into %[[ACC]][0, 0, %[[Y]], 0] [1, 16, 4, 128] [1, 1, 1, 1]
// CHECK-NOT: linalg.conv_2d_nchw_fchw
func.func @conv_rows(%x: tensor<1x16x258x258xf32>, %w: tensor<16x16x3x3xf32>, %c: tensor<1x16x128x128xf32>) -> tensor<1x16x128x128xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%x, %w : tensor<1x16x258x258xf32>, tensor<16x16x3x3xf32>) outs(%c : tensor<1x16x128x128xf32>) -> tensor<1x16x128x128xf32>
  return %r : tensor<1x16x128x128xf32>
}

// -----

// Row blocks keep at least 256 output positions: this conv's columns
// (4608 x 49) exceed 2^17 elements, but one row (7 positions) would leave
// its contraction too few columns, so the whole image is gathered at once.

// CHECK-LABEL: func.func @conv_rows_few_columns
// CHECK-NOT: scf.for {{.*}} step %c1 iter_args
// CHECK: tensor.empty() : tensor<1x512x3x3x7x7xf32>
func.func @conv_rows_few_columns(%x: tensor<1x512x9x9xf32>, %w: tensor<512x512x3x3xf32>, %c: tensor<1x512x7x7xf32>) -> tensor<1x512x7x7xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : tensor<1x512x9x9xf32>, tensor<512x512x3x3xf32>) outs(%c : tensor<1x512x7x7xf32>) -> tensor<1x512x7x7xf32>
  return %r : tensor<1x512x7x7xf32>
}

// -----

// A gathered conv (strided and dilated along the width, which the window
// read in place does not take) with few output positions and a tail (a
// 7x7 image) and its filters in whole register tiles, with constant
// weights: the filters
// go along the register tiles (positions x filters, 7 x 32), the weights
// packed at compile time into 32-filter panels, and the result is
// transposed back, with the init (here not a fill) added, in 16 x 16
// tiles transposed in registers and a scalar tail (49 = 3 x 16 + 1).

// CHECK-LABEL: func.func @conv_filters_inner
// CHECK-DAG: arith.constant dense_resource<transposed> : tensor<1x1x32xf32>
// CHECK-DAG: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x7x7x1x1x1xf32>)
// CHECK: vector.contract {{.*}} vector<7x1xf32>, vector<1x32xf32> into vector<7x32xf32>
// CHECK: scf.for {{.*}} to %c48 step %c16
// CHECK: vector.transpose %{{.*}}, [0, 1, 3, 2] : vector<1x1x16x16xf32> to vector<1x1x16x16xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x1x1x32xf32>, tensor<1x1x32x1xf32>) outs(%{{.*}} : tensor<1x1x32x1xf32>)
// CHECK-NOT: linalg.conv_2d_nchw_fchw
func.func @conv_filters_inner(%x: tensor<1x1x13x13xf32>, %c: tensor<1x32x7x7xf32>) -> tensor<1x32x7x7xf32> {
  %w4 = arith.constant dense<[[[[-2.0]]], [[[-1.0]]], [[[0.0]]], [[[1.0]]], [[[2.0]]], [[[-2.0]]], [[[-1.0]]], [[[0.0]]], [[[1.0]]], [[[2.0]]], [[[-2.0]]], [[[-1.0]]], [[[0.0]]], [[[1.0]]], [[[2.0]]], [[[-2.0]]], [[[-1.0]]], [[[0.0]]], [[[1.0]]], [[[2.0]]], [[[-2.0]]], [[[-1.0]]], [[[0.0]]], [[[1.0]]], [[[2.0]]], [[[-2.0]]], [[[-1.0]]], [[[0.0]]], [[[1.0]]], [[[2.0]]], [[[-2.0]]], [[[-1.0]]]]> : tensor<32x1x1x1xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<2> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%x, %w4 : tensor<1x1x13x13xf32>, tensor<32x1x1x1xf32>) outs(%c : tensor<1x32x7x7xf32>) -> tensor<1x32x7x7xf32>
  return %r : tensor<1x32x7x7xf32>
}

// -----

// A stride-1 conv on an image the shifted window would widen by 1/7 (14
// columns computed as 16), with constant weights: the window is read in
// place, the weights packed into 32-filter panels ([1, 18, 32] viewed as
// [1, 2, 3, 3, 32]), the register tiles are 7 positions of one row x 32
// filters (2 per row of 14: nothing thrown away), and the result is
// transposed back, with the init added, in tiles of 16 filters x 16
// positions transposed in registers; the last 4 positions (196 = 12 x 16
// + 4) stay scalar loops.

// CHECK-LABEL: func.func @window_filters_inner
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2, 3], [4]] output_shape [1, 2, 3, 3, 32] : tensor<1x18x32xf32> into tensor<1x2x3x3x32xf32>
// CHECK: scf.forall {{.*}} to (1, 1, 14, 14, 32) step (1, 1, 1, 14, 32)
// CHECK: scf.for {{.*}} to %c14 step %c7
// CHECK: vector.transfer_read {{.*}} : tensor<1x1x1x7xf32>, vector<7xf32>
// CHECK: vector.contract {{.*}} vector<1x7xf32>, vector<1x32xf32> into vector<7x32xf32>
// CHECK: tensor.collapse_shape {{.*}} : tensor<1x1x14x14x32xf32> into tensor<1x1x196x32xf32>
// CHECK: scf.for {{.*}} to %c32 step %c16
// CHECK: scf.for {{.*}} to %c192 step %c16
// CHECK: vector.transfer_read {{.*}} : tensor<1x1x16x16xf32>, vector<16x16xf32>
// CHECK: vector.transpose %{{.*}}, [0, 1, 3, 2] : vector<1x1x16x16xf32> to vector<1x1x16x16xf32>
// CHECK: arith.addf {{.*}} : vector<16x16xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x1x4x32xf32>, tensor<1x1x32x4xf32>)
// CHECK-NOT: linalg.conv_2d_nchw_fchw
func.func @window_filters_inner(%x: tensor<1x2x16x16xf32>, %c: tensor<1x32x14x14xf32>) -> tensor<1x32x14x14xf32> {
  %w = arith.constant dense<[[[[-2.0, 0.5, -1.0], [1.0, 2.0, 0.0], [0.25, -0.5, 1.5]], [[1.0, 0.0, -1.0], [0.5, 0.0, 0.5], [-1.0, 0.0, 1.0]]], [[[-1.0, 0.5, -1.0], [1.0, 2.0, 0.0], [0.25, -0.5, 1.5]], [[1.0, 0.0, -1.0], [0.5, 1.0, 0.5], [-1.0, 0.0, 1.0]]], [[[0.0, 0.5, -1.0], [1.0, 2.0, 0.0], [0.25, -0.5, 1.5]], [[1.0, 0.0, -1.0], [0.5, 2.0, 0.5], [-1.0, 0.0, 1.0]]], [[[1.0, 0.5, -1.0], [1.0, 2.0, 0.0], [0.25, -0.5, 1.5]], [[1.0, 0.0, -1.0], [0.5, 0.0, 0.5], [-1.0, 0.0, 1.0]]], [[[2.0, 0.5, -1.0], [1.0, 2.0, 0.0], [0.25, -0.5, 1.5]], [[1.0, 0.0, -1.0], [0.5, 1.0, 0.5], [-1.0, 0.0, 1.0]]], [[[-2.0, 0.5, -1.0], [1.0, 2.0, 0.0], [0.25, -0.5, 1.5]], [[1.0, 0.0, -1.0], [0.5, 2.0, 0.5], [-1.0, 0.0, 1.0]]], [[[-1.0, 0.5, -1.0], [1.0, 2.0, 0.0], [0.25, -0.5, 1.5]], [[1.0, 0.0, -1.0], [0.5, 0.0, 0.5], [-1.0, 0.0, 1.0]]], [[[0.0, 0.5, -1.0], [1.0, 2.0, 0.0], [0.25, -0.5, 1.5]], [[1.0, 0.0, -1.0], [0.5, 1.0, 0.5], [-1.0, 0.0, 1.0]]], [[[1.0, 0.5, -1.0], [1.0, 2.0, 0.0], [0.25, -0.5, 1.5]], [[1.0, 0.0, -1.0], [0.5, 2.0, 0.5], [-1.0, 0.0, 1.0]]], [[[2.0, 0.5, -1.0], [1.0, 2.0, 0.0], [0.25, -0.5, 1.5]], [[1.0, 0.0, -1.0], [0.5, 0.0, 0.5], [-1.0, 0.0, 1.0]]], [[[-2.0, 0.5, -1.0], [1.0, 2.0, 0.0], [0.25, -0.5, 1.5]], [[1.0, 0.0, -1.0], [0.5, 1.0, 0.5], [-1.0, 0.0, 1.0]]], [[[-1.0, 0.5, -1.0], [1.0, 2.0, 0.0], [0.25, -0.5, 1.5]], [[1.0, 0.0, -1.0], [0.5, 2.0, 0.5], [-1.0, 0.0, 1.0]]], [[[0.0, 0.5, -1.0], [1.0, 2.0, 0.0], [0.25, -0.5, 1.5]], [[1.0, 0.0, -1.0], [0.5, 0.0, 0.5], [-1.0, 0.0, 1.0]]], [[[1.0, 0.5, -1.0], [1.0, 2.0, 0.0], [0.25, -0.5, 1.5]], [[1.0, 0.0, -1.0], [0.5, 1.0, 0.5], [-1.0, 0.0, 1.0]]], [[[2.0, 0.5, -1.0], [1.0, 2.0, 0.0], [0.25, -0.5, 1.5]], [[1.0, 0.0, -1.0], [0.5, 2.0, 0.5], [-1.0, 0.0, 1.0]]], [[[-2.0, 0.5, -1.0], [1.0, 2.0, 0.0], [0.25, -0.5, 1.5]], [[1.0, 0.0, -1.0], [0.5, 0.0, 0.5], [-1.0, 0.0, 1.0]]], [[[-1.0, 0.5, -1.0], [1.0, 2.0, 0.0], [0.25, -0.5, 1.5]], [[1.0, 0.0, -1.0], [0.5, 1.0, 0.5], [-1.0, 0.0, 1.0]]], [[[0.0, 0.5, -1.0], [1.0, 2.0, 0.0], [0.25, -0.5, 1.5]], [[1.0, 0.0, -1.0], [0.5, 2.0, 0.5], [-1.0, 0.0, 1.0]]], [[[1.0, 0.5, -1.0], [1.0, 2.0, 0.0], [0.25, -0.5, 1.5]], [[1.0, 0.0, -1.0], [0.5, 0.0, 0.5], [-1.0, 0.0, 1.0]]], [[[2.0, 0.5, -1.0], [1.0, 2.0, 0.0], [0.25, -0.5, 1.5]], [[1.0, 0.0, -1.0], [0.5, 1.0, 0.5], [-1.0, 0.0, 1.0]]], [[[-2.0, 0.5, -1.0], [1.0, 2.0, 0.0], [0.25, -0.5, 1.5]], [[1.0, 0.0, -1.0], [0.5, 2.0, 0.5], [-1.0, 0.0, 1.0]]], [[[-1.0, 0.5, -1.0], [1.0, 2.0, 0.0], [0.25, -0.5, 1.5]], [[1.0, 0.0, -1.0], [0.5, 0.0, 0.5], [-1.0, 0.0, 1.0]]], [[[0.0, 0.5, -1.0], [1.0, 2.0, 0.0], [0.25, -0.5, 1.5]], [[1.0, 0.0, -1.0], [0.5, 1.0, 0.5], [-1.0, 0.0, 1.0]]], [[[1.0, 0.5, -1.0], [1.0, 2.0, 0.0], [0.25, -0.5, 1.5]], [[1.0, 0.0, -1.0], [0.5, 2.0, 0.5], [-1.0, 0.0, 1.0]]], [[[2.0, 0.5, -1.0], [1.0, 2.0, 0.0], [0.25, -0.5, 1.5]], [[1.0, 0.0, -1.0], [0.5, 0.0, 0.5], [-1.0, 0.0, 1.0]]], [[[-2.0, 0.5, -1.0], [1.0, 2.0, 0.0], [0.25, -0.5, 1.5]], [[1.0, 0.0, -1.0], [0.5, 1.0, 0.5], [-1.0, 0.0, 1.0]]], [[[-1.0, 0.5, -1.0], [1.0, 2.0, 0.0], [0.25, -0.5, 1.5]], [[1.0, 0.0, -1.0], [0.5, 2.0, 0.5], [-1.0, 0.0, 1.0]]], [[[0.0, 0.5, -1.0], [1.0, 2.0, 0.0], [0.25, -0.5, 1.5]], [[1.0, 0.0, -1.0], [0.5, 0.0, 0.5], [-1.0, 0.0, 1.0]]], [[[1.0, 0.5, -1.0], [1.0, 2.0, 0.0], [0.25, -0.5, 1.5]], [[1.0, 0.0, -1.0], [0.5, 1.0, 0.5], [-1.0, 0.0, 1.0]]], [[[2.0, 0.5, -1.0], [1.0, 2.0, 0.0], [0.25, -0.5, 1.5]], [[1.0, 0.0, -1.0], [0.5, 2.0, 0.5], [-1.0, 0.0, 1.0]]], [[[-2.0, 0.5, -1.0], [1.0, 2.0, 0.0], [0.25, -0.5, 1.5]], [[1.0, 0.0, -1.0], [0.5, 0.0, 0.5], [-1.0, 0.0, 1.0]]], [[[-1.0, 0.5, -1.0], [1.0, 2.0, 0.0], [0.25, -0.5, 1.5]], [[1.0, 0.0, -1.0], [0.5, 1.0, 0.5], [-1.0, 0.0, 1.0]]]]> : tensor<32x2x3x3xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : tensor<1x2x16x16xf32>, tensor<32x2x3x3xf32>) outs(%c : tensor<1x32x14x14xf32>) -> tensor<1x32x14x14xf32>
  return %r : tensor<1x32x14x14xf32>
}

// -----

// Few columns with a tail (49 = 32 + 16 + 1): the columns are split inside
// each cache block and k block, so the three pieces read the same block
// of the left operand from the cache.

// CHECK-LABEL: func.func @narrow
// CHECK: scf.forall
// CHECK: scf.for {{.*}} to %c512 step %c256
// CHECK: vector.contract {{.*}} into vector<8x32xf32>
// CHECK: vector.contract {{.*}} into vector<8x16xf32>
// CHECK: vector.contract {{.*}} into vector<8x1xf32>
// CHECK: scf.yield {{.*}} : tensor<64x49xf32>
// CHECK: scf.forall.in_parallel
func.func @narrow(%a: tensor<64x512xf32>, %b: tensor<512x49xf32>, %c: tensor<64x49xf32>) -> tensor<64x49xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<64x512xf32>, tensor<512x49xf32>) outs(%c : tensor<64x49xf32>) -> tensor<64x49xf32>
  return %r : tensor<64x49xf32>
}

// -----

// Fewer columns than a register tile: whole registers, then the rest
// (28 = 16 + 12), not one tile of 28.

// CHECK-LABEL: func.func @few_columns
// CHECK-DAG: vector.contract {{.*}} into vector<8x16xf32>
// CHECK-DAG: vector.contract {{.*}} into vector<8x12xf32>
// CHECK-NOT: vector<8x28xf32>
func.func @few_columns(%a: tensor<64x64xf32>, %b: tensor<64x28xf32>, %c: tensor<64x28xf32>) -> tensor<64x28xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x28xf32>) outs(%c : tensor<64x28xf32>) -> tensor<64x28xf32>
  return %r : tensor<64x28xf32>
}

// -----

// A stride-1 conv on a wide image: a contraction reading the padded input
// at p + i*W + j, with no gather. The padding gets one more row at the
// bottom, in the same tensor.pad; the result keeps 16 of every 18 columns;
// the zero fill is made (and vectorized) for the wider result. Each register tile loops over
// c, i and j and is one 8x32 contraction.

// CHECK-LABEL: func.func @conv_shifted
// CHECK: %[[PAD:.*]] = tensor.pad %{{.*}} low[0, 0, 1, 1] high[0, 0, 2, 1]
// CHECK: } : tensor<1x4x16x16xf32> to tensor<1x4x19x18xf32>
// CHECK: %[[ROWS:.*]] = tensor.collapse_shape %[[PAD]] {{\[\[}}0], [1], [2, 3]] : tensor<1x4x19x18xf32> into tensor<1x4x342xf32>
// CHECK: tensor.empty() : tensor<1x32x288xf32>
// CHECK: vector.transfer_write %cst, {{.*}} : vector<48xf32>, tensor<1x1x48xf32>
// CHECK: scf.forall
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for %{{.*}} = %c0 to %c4
// CHECK: scf.for %{{.*}} = %c0 to %c3
// CHECK: scf.for %{{.*}} = %c0 to %c3
// CHECK: vector.contract {{.*}} vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0], [1], [2, 3]] output_shape [1, 32, 16, 18]
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 0, 0] [1, 32, 16, 16] [1, 1, 1, 1]
// CHECK-NOT: linalg.conv_2d_nchw_fchw
func.func @conv_shifted(%x: tensor<1x4x16x16xf32>, %w: tensor<32x4x3x3xf32>) -> tensor<1x32x16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x4x16x16xf32> to tensor<1x4x18x18xf32>
  %e = tensor.empty() : tensor<1x32x16x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x32x16x16xf32>) -> tensor<1x32x16x16xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%p, %w : tensor<1x4x18x18xf32>, tensor<32x4x3x3xf32>) outs(%f : tensor<1x32x16x16xf32>) -> tensor<1x32x16x16xf32>
  return %r : tensor<1x32x16x16xf32>
}

// -----

// Without a tensor.pad, the input gets its extra row from a new one; an
// init that is not a fill (a bias) is added to the kept columns
// afterwards, by a vectorized elementwise op.

// CHECK-LABEL: func.func @conv_shifted_init
// CHECK: tensor.pad %{{.*}} low[0, 0, 0, 0] high[0, 0, 1, 0]
// CHECK: } : tensor<1x2x14x14xf32> to tensor<1x2x15x14xf32>
// CHECK: vector.contract
// CHECK: %[[KEPT:.*]] = tensor.extract_slice %{{.*}}[0, 0, 0, 0] [1, 8, 12, 12] [1, 1, 1, 1]
// CHECK: vector.transfer_read %{{.*}} : tensor<1x1x1x12xf32>, vector<12xf32>
// CHECK: arith.addf %{{.*}} : vector<12xf32>
func.func @conv_shifted_init(%x: tensor<1x2x14x14xf32>, %w: tensor<8x2x3x3xf32>, %c: tensor<1x8x12x12xf32>) -> tensor<1x8x12x12xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : tensor<1x2x14x14xf32>, tensor<8x2x3x3xf32>) outs(%c : tensor<1x8x12x12xf32>) -> tensor<1x8x12x12xf32>
  return %r : tensor<1x8x12x12xf32>
}

// -----

// A 1x1 conv of stride 1 reads its input as is: no gather.

// CHECK-LABEL: func.func @pointwise
// CHECK-NOT: tensor<1x4x1x1x6x6xf32>
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1], [2, 3]] : tensor<1x4x6x6xf32> into tensor<1x4x36xf32>
// CHECK: vector.contract
func.func @pointwise(%x: tensor<1x4x6x6xf32>, %w: tensor<8x4x1x1xf32>, %c: tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : tensor<1x4x6x6xf32>, tensor<8x4x1x1xf32>) outs(%c : tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
  return %r : tensor<1x8x6x6xf32>
}

// -----

// A depthwise conv becomes one elementwise op over the 9 strided window
// slices and the per-channel weights, vectorized along the width.

// CHECK-LABEL: func.func @depthwise
// CHECK-COUNT-9: tensor.extract_slice %{{.*}}[0, 0, {{.*}}] [1, 4, 4, 4] [1, 1, 2, 2]
// CHECK: vector.transfer_read
// CHECK-NOT: linalg.depthwise_conv_2d_nchw_chw
func.func @depthwise(%x: tensor<1x4x9x9xf32>, %w: tensor<4x3x3xf32>, %c: tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> {
  %r = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%x, %w : tensor<1x4x9x9xf32>, tensor<4x3x3xf32>) outs(%c : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %r : tensor<1x4x4x4xf32>
}

// -----

// A grouped conv of stride 1 is one shifted-window contraction with the
// group as a batch dim: the input's rows laid end to end per group (the
// lowering's view of the channels as groups folds into the padded rows),
// the scf.forall over (image, group, filter and position blocks), each
// register tile one 8x32 contraction over (c, i, j).

// CHECK-LABEL: func.func @grouped_shifted
// CHECK: %[[PAD:.*]] = tensor.pad %{{.*}} low[0, 0, 1, 1] high[0, 0, 2, 1]
// CHECK: } : tensor<1x64x16x16xf32> to tensor<1x64x19x18xf32>
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[PAD]] {{\[\[}}0], [1], [2, 3]] : tensor<1x64x19x18xf32> into tensor<1x64x342xf32>
// CHECK: tensor.expand_shape %[[FLAT]] {{\[\[}}0], [1, 2], [3]] output_shape [1, 4, 16, 342]
// CHECK: scf.forall (%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) = (0, 0, 0, 0) to (1, 4, 16, 288)
// CHECK: scf.for %{{.*}} = %c0 to %c16 step %c1
// CHECK: scf.for %{{.*}} = %c0 to %c3
// CHECK: scf.for %{{.*}} = %c0 to %c3
// CHECK: vector.contract {{.*}} vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0], [1], [2], [3, 4]] output_shape [1, 4, 16, 16, 18]
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 0, 0, 0] [1, 4, 16, 16, 16] [1, 1, 1, 1, 1]
// CHECK-NOT: linalg.conv_2d_ngchw_gfchw
func.func @grouped_shifted(%x: tensor<1x64x16x16xf32>, %w: tensor<4x16x16x3x3xf32>) -> tensor<1x4x16x16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x64x16x16xf32> to tensor<1x64x18x18xf32>
  %g = tensor.expand_shape %p [[0], [1, 2], [3], [4]] output_shape [1, 4, 16, 18, 18] : tensor<1x64x18x18xf32> into tensor<1x4x16x18x18xf32>
  %e = tensor.empty() : tensor<1x4x16x16x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x16x16x16xf32>) -> tensor<1x4x16x16x16xf32>
  %r = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%g, %w : tensor<1x4x16x18x18xf32>, tensor<4x16x16x3x3xf32>) outs(%f : tensor<1x4x16x16x16xf32>) -> tensor<1x4x16x16x16xf32>
  return %r : tensor<1x4x16x16x16xf32>
}

// -----

// A strided grouped conv: one image at a time, its columns gathered per
// group (im2col) and contracted with the group as a batch dim; the init
// (not a fill) is added afterwards.

// CHECK-LABEL: func.func @grouped_strided
// CHECK: scf.for %{{.*}} = %c0 to %c2 step %c1
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<1x2x8x9x9xf32>) outs(%{{.*}} : tensor<1x2x8x3x3x4x4xf32>)
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1], [2, 3, 4], [5, 6]] : tensor<1x2x8x3x3x4x4xf32> into tensor<1x2x72x16xf32>
// CHECK: scf.forall
// CHECK: vector.contract {{.*}} into vector<8x16xf32>
// CHECK: arith.addf %{{.*}} : vector<4xf32>
// CHECK-NOT: linalg.conv_2d_ngchw_gfchw
func.func @grouped_strided(%x: tensor<2x2x8x9x9xf32>, %w: tensor<2x16x8x3x3xf32>, %c: tensor<2x2x16x4x4xf32>) -> tensor<2x2x16x4x4xf32> {
  %r = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%x, %w : tensor<2x2x8x9x9xf32>, tensor<2x16x8x3x3xf32>) outs(%c : tensor<2x2x16x4x4xf32>) -> tensor<2x2x16x4x4xf32>
  return %r : tensor<2x2x16x4x4xf32>
}

// -----

// Elementwise ops: rows of the innermost dim, vectorized. A ReLU does not
// fuse into the contraction that consumes it.

#id = affine_map<(i, j) -> (i, j)>
// CHECK-LABEL: func.func @relu_then_matmul
// CHECK: arith.maximumf %{{.*}} : vector<32xf32>
// CHECK: vector.contract
func.func @relu_then_matmul(%x: tensor<8x32xf32>, %b: tensor<32x32xf32>, %c: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x32xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x32xf32>) outs(%e : tensor<8x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<8x32xf32>
  %r = linalg.matmul ins(%relu, %b : tensor<8x32xf32>, tensor<32x32xf32>) outs(%c : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %r : tensor<8x32xf32>
}

// -----

// A sum along the innermost dim (here rows of 64) is split into 16 partial
// sums per row, each step adding one register of the row to them; a last
// op adds the 16 up. A row too short for two registers, or not a whole
// number of them, is left alone, and so is a sum that reads its indices
// (a tril fused into it: MLIR 22's split would rebuild the index of the
// split dim as `outer + lane`).

#row = affine_map<(i, j) -> (i, j)>
#col = affine_map<(i, j) -> (i)>
// CHECK-LABEL: func.func @row_sum
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [8, 4, 16]
// CHECK: scf.for
// CHECK: vector.transfer_read {{.*}} vector<16xf32>
// CHECK: vector.multi_reduction <add>, {{.*}} [1] : vector<1x1x16xf32> to vector<1x16xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%{{.*}} : tensor<8x16xf32>)
// CHECK-LABEL: func.func @row_sum_short
// CHECK-NOT: tensor.expand_shape
// CHECK: linalg.generic
// CHECK-LABEL: func.func @row_sum_of_tril
// CHECK-NOT: tensor.expand_shape
// CHECK: linalg.index 1 : index
func.func @row_sum(%x: tensor<8x64xf32>, %o: tensor<8xf32>) -> tensor<8xf32> {
  %r = linalg.generic {indexing_maps = [#row, #col], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<8x64xf32>) outs(%o : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}
func.func @row_sum_short(%x: tensor<8x24xf32>, %o: tensor<8xf32>) -> tensor<8xf32> {
  %r = linalg.generic {indexing_maps = [#row, #col], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<8x24xf32>) outs(%o : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}
func.func @row_sum_of_tril(%x: tensor<8x64xf32>, %o: tensor<8xf32>) -> tensor<8xf32> {
  %zero = arith.constant 0.0 : f32
  %r = linalg.generic {indexing_maps = [#row, #col], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<8x64xf32>) outs(%o : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %keep = arith.cmpi sle, %j, %i : index
    %v = arith.select %keep, %a, %zero : f32
    %s = arith.addf %v, %b : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// A large elementwise op (at least 2^15 elements) first runs in parallel
// blocks of its outermost dim of more than one (here 8 blocks of 8
// channels), then rows; a small one (@relu_then_matmul above) has no
// scf.forall.

#id4 = affine_map<(n, c, h, w) -> (n, c, h, w)>
// CHECK-LABEL: func.func @large_relu
// CHECK: scf.forall (%{{.*}}) = (0) to (64) step (8) shared_outs
// CHECK: scf.for
// CHECK: arith.maximumf %{{.*}} : vector<64xf32>
// CHECK: scf.forall.in_parallel
func.func @large_relu(%x: tensor<1x64x32x64xf32>) -> tensor<1x64x32x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x64x32x64xf32>
  %relu = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x64x32x64xf32>) outs(%e : tensor<1x64x32x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x64x32x64xf32>
  return %relu : tensor<1x64x32x64xf32>
}

// -----

// Dynamic shapes and other element types are left as they are.

// CHECK-LABEL: func.func @dynamic
// CHECK: linalg.matmul
// CHECK-NOT: vector.contract
func.func @dynamic(%a: tensor<?x8xf32>, %b: tensor<8x8xf32>, %c: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<?x8xf32>, tensor<8x8xf32>) outs(%c : tensor<?x8xf32>) -> tensor<?x8xf32>
  return %r : tensor<?x8xf32>
}

// CHECK-LABEL: func.func @f64
// CHECK: linalg.matmul
func.func @f64(%a: tensor<8x8xf64>, %b: tensor<8x8xf64>, %c: tensor<8x8xf64>) -> tensor<8x8xf64> {
  %r = linalg.matmul ins(%a, %b : tensor<8x8xf64>, tensor<8x8xf64>) outs(%c : tensor<8x8xf64>) -> tensor<8x8xf64>
  return %r : tensor<8x8xf64>
}

// -----

// A computed columns operand of 128K elements or more, in a contraction of
// 64 rows or more, is packed in panels of 32 columns (N/32 x K x 32) by a
// copy; the result is written through the view M x N/32 x 32; a cache
// block is 256 rows (with 1024 rows or more; 128 with 512 or more; 64
// below) x 8 panels, a register tile 8 rows x one panel.

// CHECK-LABEL: func.func @packed_columns
// CHECK: %[[SPLIT:.*]] = tensor.expand_shape %arg1 {{\[}}[0], [1, 2]] output_shape [128, 32, 32]
// CHECK: %[[PACKED:.*]] = scf.forall {{.*}} -> (tensor<32x128x32xf32>)
// CHECK: tensor.extract_slice %[[SPLIT]]
// CHECK: %[[VIEW:.*]] = tensor.expand_shape %arg2 {{\[}}[0], [1, 2]] output_shape [512, 32, 32]
// CHECK: %[[R:.*]] = scf.forall {{.*}} step (128, 8, 32) shared_outs(%{{.*}} = %[[VIEW]])
// CHECK: tensor.extract_slice %[[PACKED]]
// CHECK: vector.contract {{.*}} vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// CHECK: tensor.collapse_shape %[[R]] {{\[}}[0], [1, 2]] : tensor<512x32x32xf32> into tensor<512x1024xf32>
func.func @packed_columns(%a: tensor<512x128xf32>, %b: tensor<128x1024xf32>, %c: tensor<512x1024xf32>) -> tensor<512x1024xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<512x128xf32>, tensor<128x1024xf32>) outs(%c : tensor<512x1024xf32>) -> tensor<512x1024xf32>
  return %r : tensor<512x1024xf32>
}


// -----

// Read (batch, n, k), as attention's keys, the operand is split and
// transposed into panels in one linalg.transpose.

#q = affine_map<(b, m, n, k) -> (b, m, k)>
#kt = affine_map<(b, m, n, k) -> (b, n, k)>
#s = affine_map<(b, m, n, k) -> (b, m, n)>
// CHECK-LABEL: func.func @packed_keys
// CHECK: tensor.expand_shape %arg1 {{\[}}[0], [1, 2], [3]] output_shape [2, 32, 32, 64]
// CHECK: linalg.transpose {{.*}} permutation = [0, 1, 3, 2]
// CHECK: tensor.expand_shape %arg2 {{\[}}[0], [1], [2, 3]] output_shape [2, 64, 32, 32]
// CHECK: vector.contract {{.*}} into vector<8x32xf32>
// CHECK: tensor.collapse_shape {{.*}} into tensor<2x64x1024xf32>
func.func @packed_keys(%q: tensor<2x64x64xf32>, %k: tensor<2x1024x64xf32>, %c: tensor<2x64x1024xf32>) -> tensor<2x64x1024xf32> {
  %r = linalg.generic {indexing_maps = [#q, #kt, #s], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<2x64x64xf32>, tensor<2x1024x64xf32>) outs(%c : tensor<2x64x1024xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x64x1024xf32>
  return %r : tensor<2x64x1024xf32>
}


// -----

// A constant columns operand is packed at compile time, whatever its size:
// linear's weight W (n, k) becomes panels [n / 32][k][n % 32], the first
// panel starting W[0][0], W[1][0], W[2][0], ... (0.0, 1.0, 2.0, ...).

#x = affine_map<(m, n, k) -> (m, k)>
#w = affine_map<(m, n, k) -> (n, k)>
#o = affine_map<(m, n, k) -> (m, n)>
// CHECK-LABEL: func.func @packed_weight
// CHECK: arith.constant dense_resource<transposed> : tensor<2x2x32xf32>
// CHECK-NOT: linalg.transpose
// CHECK: vector.contract {{.*}} into vector<8x32xf32>
// CHECK: transposed: "0x04000000000000000000803F0000004000004040
func.func @packed_weight(%x: tensor<8x2xf32>, %c: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %w = arith.constant dense<[[0.0, 0.0], [1.0, -1.0], [2.0, -2.0], [3.0, -3.0], [4.0, -4.0], [5.0, -5.0], [6.0, -6.0], [7.0, -7.0], [8.0, -8.0], [9.0, -9.0], [10.0, -10.0], [11.0, -11.0], [12.0, -12.0], [13.0, -13.0], [14.0, -14.0], [15.0, -15.0], [16.0, -16.0], [17.0, -17.0], [18.0, -18.0], [19.0, -19.0], [20.0, -20.0], [21.0, -21.0], [22.0, -22.0], [23.0, -23.0], [24.0, -24.0], [25.0, -25.0], [26.0, -26.0], [27.0, -27.0], [28.0, -28.0], [29.0, -29.0], [30.0, -30.0], [31.0, -31.0], [32.0, -32.0], [33.0, -33.0], [34.0, -34.0], [35.0, -35.0], [36.0, -36.0], [37.0, -37.0], [38.0, -38.0], [39.0, -39.0], [40.0, -40.0], [41.0, -41.0], [42.0, -42.0], [43.0, -43.0], [44.0, -44.0], [45.0, -45.0], [46.0, -46.0], [47.0, -47.0], [48.0, -48.0], [49.0, -49.0], [50.0, -50.0], [51.0, -51.0], [52.0, -52.0], [53.0, -53.0], [54.0, -54.0], [55.0, -55.0], [56.0, -56.0], [57.0, -57.0], [58.0, -58.0], [59.0, -59.0], [60.0, -60.0], [61.0, -61.0], [62.0, -62.0], [63.0, -63.0]]> : tensor<64x2xf32>
  %r = linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : tensor<8x2xf32>, tensor<64x2xf32>) outs(%c : tensor<8x64xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<8x64xf32>
  return %r : tensor<8x64xf32>
}

// -----

// A strided conv whose result is larger than 2^20 elements (32 x 182 x
// 182) keeps the gather (in parallel blocks of rows) and the contraction
// over filters x positions rather than reading its window in place: the
// filters-inner result would leave the cache before its transpose back.

// CHECK-LABEL: func.func @strided_large
// CHECK-NOT: [1, 1, 1, 2]
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<1x1x?x363xf32>)
// CHECK: scf.forall {{.*}} to (1, 32, 33120)
// CHECK-NOT: vector.transpose
// CHECK-NOT: linalg.conv_2d_nchw_fchw
func.func @strided_large(%x: tensor<1x1x363x363xf32>, %c: tensor<1x32x182x182xf32>) -> tensor<1x32x182x182xf32> {
  %w4 = arith.constant dense<[[[[-2.0]]], [[[-1.0]]], [[[0.0]]], [[[1.0]]], [[[2.0]]], [[[-2.0]]], [[[-1.0]]], [[[0.0]]], [[[1.0]]], [[[2.0]]], [[[-2.0]]], [[[-1.0]]], [[[0.0]]], [[[1.0]]], [[[2.0]]], [[[-2.0]]], [[[-1.0]]], [[[0.0]]], [[[1.0]]], [[[2.0]]], [[[-2.0]]], [[[-1.0]]], [[[0.0]]], [[[1.0]]], [[[2.0]]], [[[-2.0]]], [[[-1.0]]], [[[0.0]]], [[[1.0]]], [[[2.0]]], [[[-2.0]]], [[[-1.0]]]]> : tensor<32x1x1x1xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%x, %w4 : tensor<1x1x363x363xf32>, tensor<32x1x1x1xf32>) outs(%c : tensor<1x32x182x182xf32>) -> tensor<1x32x182x182xf32>
  return %r : tensor<1x32x182x182xf32>
}

// -----

// A contraction with a second reduction loop of size 1 that only one
// operand reads (a 1-D adaptive pool's unit window dim): the register tile
// drops it, so vector.contract has k as its only reduction (with it, the
// contraction's lowering computed garbage).

#ux = affine_map<(n, c, u, i, r, h) -> (n, c, r, h)>
#up = affine_map<(n, c, u, i, r, h) -> (i, h)>
#uo = affine_map<(n, c, u, i, r, h) -> (n, c, u, i)>
// CHECK-LABEL: func.func @unit_reduction_in_one_operand
// CHECK: vector.contract {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK-NOT: "reduction", "reduction"
func.func @unit_reduction_in_one_operand(%x: tensor<2x8x1x16xf32>, %p: tensor<32x16xf32>, %init: tensor<2x8x1x32xf32>) -> tensor<2x8x1x32xf32> {
  %r = linalg.generic {indexing_maps = [#ux, #up, #uo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%x, %p : tensor<2x8x1x16xf32>, tensor<32x16xf32>) outs(%init : tensor<2x8x1x32xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x8x1x32xf32>
  return %r : tensor<2x8x1x32xf32>
}

// -----

// A depth with no divisor near the k block's (526 = 2 x 263): the whole k
// blocks (512, two of 256) are one contraction, the 14 left another, each
// reading its own part of A and accumulating into the same result; not
// 263 blocks of 2.

// CHECK-LABEL: func.func @odd_depth
// CHECK: tensor.extract_slice %arg0[0, 0] [64, 512]
// CHECK: scf.forall
// CHECK: scf.for %{{.*}} = %c0 to %c512 step %c256
// CHECK: vector.contract
// CHECK: tensor.extract_slice %arg0[0, 512] [64, 14]
// CHECK: scf.forall
// CHECK: vector.contract
func.func @odd_depth(%a: tensor<64x526xf32>, %b: tensor<526x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<64x526xf32>, tensor<526x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

// -----

// A computed columns operand of a contraction of one row block is packed
// inside the cache blocks: each k block copies the 256 x 256 block of B it
// reads into panels of its own, k outer, just before its register tiles.
// No copy of the whole of B is left before the contraction.

// CHECK-LABEL: func.func @packed_in_blocks
// CHECK-NOT: linalg.transpose
// CHECK: scf.forall
// CHECK: scf.for %{{.*}} = %c0 to %c512 step %c256
// CHECK: %[[BLOCK:.*]] = tensor.empty() : tensor<8x256x32xf32>
// CHECK: scf.for %{{.*}} = %c0 to %c256 step %c1 iter_args(%{{.*}} = %[[BLOCK]])
// CHECK: scf.for %{{.*}} = %c0 to %c8 step %c1
// CHECK: vector.contract {{.*}} vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// CHECK-NOT: linalg.transpose
func.func @packed_in_blocks(%a: tensor<64x512xf32>, %b: tensor<512x256xf32>, %c: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<64x512xf32>, tensor<512x256xf32>) outs(%c : tensor<64x256xf32>) -> tensor<64x256xf32>
  return %r : tensor<64x256xf32>
}

// -----

// A computed columns operand of a contraction of more row blocks is packed
// once, before it, in parallel blocks of panels (32 panels of 32 columns
// in blocks of 4), each streaming B's rows (k outer, the block's panels
// inner). The row tail (4 of 1028 rows) reads that copy too, where
// packing in its own blocks would copy all of B again.

// CHECK-LABEL: func.func @packed_before
// CHECK: %[[PACKED:.*]] = scf.forall (%{{.*}}) = (0) to (32) step (4)
// CHECK-NEXT: tensor.extract_slice %{{.*}}[0, %{{.*}}, 0] [128, 4, 32]
// CHECK-NEXT: tensor.extract_slice
// CHECK-NEXT: scf.for %{{.*}} = %c0 to %c128 step %c1
// CHECK-NEXT: scf.for %{{.*}} = %c0 to %c4 step %c1
// CHECK: scf.forall (%{{.*}}, %{{.*}}, %{{.*}}) = (0, 0, 0) to (1024, 32, 32) step (256, 8, 32)
// CHECK: tensor.extract_slice %[[PACKED]]
// CHECK: scf.forall (%{{.*}}, %{{.*}}, %{{.*}}) = (0, 0, 0) to (4, 32, 32) step (4, 8, 32)
// CHECK-NEXT: tensor.extract_slice
// CHECK-NEXT: tensor.extract_slice %[[PACKED]]
// CHECK-NOT: tensor.empty
// CHECK: return
func.func @packed_before(%a: tensor<1028x128xf32>, %b: tensor<128x1024xf32>, %c: tensor<1028x1024xf32>) -> tensor<1028x1024xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<1028x128xf32>, tensor<128x1024xf32>) outs(%c : tensor<1028x1024xf32>) -> tensor<1028x1024xf32>
  return %r : tensor<1028x1024xf32>
}

// -----

// A quantize to bytes written NHWC from an NCHW f32 input (an int8 conv's
// input): the generic iterates in its result's order (n, h, w, c), h and w
// become one loop of 49 positions, and 16 positions x 16 channels are read
// as f32 registers, transposed in registers, quantized and stored as 16
// rows of 16 bytes; the tail of the 49 positions stays loops.

// CHECK-LABEL: func.func @quantize_to_nhwc
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1], [2, 3]] : tensor<1x32x7x7xf32> into tensor<1x32x49xf32>
// CHECK: vector.transfer_read {{.*}} : tensor<1x16x16xf32>, vector<16x16xf32>
// CHECK: vector.transpose %{{.*}}, [0, 2, 1] : vector<1x16x16xf32> to vector<1x16x16xf32>
// CHECK: arith.fptosi %{{.*}} : vector<16x16xf32> to vector<16x16xi32>
// CHECK: arith.trunci %{{.*}} : vector<16x16xi32> to vector<16x16xi8>
// CHECK: vector.transfer_write %{{.*}} : vector<16x16xi8>, tensor<1x16x16xi8>
func.func @quantize_to_nhwc(%x: tensor<1x32x7x7xf32>) -> tensor<1x7x7x32xi8> {
  %s = arith.constant 10.0 : f32
  %lo = arith.constant 0.0 : f32
  %hi = arith.constant 255.0 : f32
  %e = tensor.empty() : tensor<1x7x7x32xi8>
  %r = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, h, w, c)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x32x7x7xf32>) outs(%e : tensor<1x7x7x32xi8>) {
  ^bb0(%in: f32, %out: i8):
    %m = arith.mulf %in, %s : f32
    %r0 = math.roundeven %m : f32
    %c0 = arith.maximumf %r0, %lo : f32
    %c1 = arith.minimumf %c0, %hi : f32
    %i = arith.fptosi %c1 : f32 to i32
    %b = arith.trunci %i : i32 to i8
    linalg.yield %b : i8
  } -> tensor<1x7x7x32xi8>
  return %r : tensor<1x7x7x32xi8>
}

// -----

// An int8 conv's epilogue fused with its NCHW consumers (the i32 products
// in NHWC, per-channel scale): transposed in 16 x 16 tiles of i32.

// CHECK-LABEL: func.func @epilogue_to_nchw
// CHECK: vector.transpose %{{.*}}, [0, 2, 1] : vector<1x16x16xi32> to vector<1x16x16xi32>
// CHECK: arith.sitofp %{{.*}} : vector<16x16xi32> to vector<16x16xf32>
// CHECK: vector.transfer_write %{{.*}} : vector<16x16xf32>, tensor<1x16x16xf32>
func.func @epilogue_to_nchw(%d: tensor<1x4x8x32xi32>, %scale: tensor<32xf32>) -> tensor<1x32x4x8xf32> {
  %e = tensor.empty() : tensor<1x32x4x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, h, w, c)>, affine_map<(n, c, h, w) -> (c)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%d, %scale : tensor<1x4x8x32xi32>, tensor<32xf32>) outs(%e : tensor<1x32x4x8xf32>) {
  ^bb0(%in: i32, %s: f32, %out: f32):
    %f = arith.sitofp %in : i32 to f32
    %y = arith.mulf %f, %s : f32
    linalg.yield %y : f32
  } -> tensor<1x32x4x8xf32>
  return %r : tensor<1x32x4x8xf32>
}

// -----

// Max pooling of an elementwise op that reads NHWC data across (an int8
// conv's products through its epilogue, as after resnet's first conv):
// pooled in NHWC. The epilogue writes NHWC into the interior of a buffer
// filled with -inf (the padding), reading its input along the rows; the
// 3 x 3 windows at stride 2 are strided views of that, the channels
// innermost (registers of 16 channels); only the pooled result is
// transposed back to NCHW.

// CHECK-LABEL: func.func @pool_in_nhwc
// CHECK: arith.sitofp %{{.*}} : vector<32xi32> to vector<32xf32>
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 1, 1, 0] [1, 16, 16, 32] [1, 1, 1, 1] : tensor<1x16x16x32xf32> into tensor<1x18x18x32xf32>
// CHECK: tensor.extract_slice %{{.*}}[0, 2, 2, 0] [1, 8, 8, 32] [1, 2, 2, 1] : tensor<1x18x18x32xf32> to tensor<1x8x8x32xf32>
// CHECK: arith.maximumf %{{.*}} : vector<32xf32>
// CHECK-NOT: linalg.pooling_nchw_max
// CHECK: return %{{.*}} : tensor<1x32x8x8xf32>
func.func @pool_in_nhwc(%d: tensor<1x16x16x32xi32>, %scale: tensor<32xf32>) -> tensor<1x32x8x8xf32> {
  %e = tensor.empty() : tensor<1x32x16x16xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, h, w, c)>, affine_map<(n, c, h, w) -> (c)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%d, %scale : tensor<1x16x16x32xi32>, tensor<32xf32>) outs(%e : tensor<1x32x16x16xf32>) {
  ^bb0(%in: i32, %s: f32, %out: f32):
    %f = arith.sitofp %in : i32 to f32
    %v = arith.mulf %f, %s : f32
    linalg.yield %v : f32
  } -> tensor<1x32x16x16xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %padded = tensor.pad %y low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %dd: index):
    tensor.yield %ninf : f32
  } : tensor<1x32x16x16xf32> to tensor<1x32x18x18xf32>
  %window = tensor.empty() : tensor<3x3xf32>
  %init0 = tensor.empty() : tensor<1x32x8x8xf32>
  %init = linalg.fill ins(%ninf : f32) outs(%init0 : tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32>
  %r = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%padded, %window : tensor<1x32x18x18xf32>, tensor<3x3xf32>) outs(%init : tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32>
  return %r : tensor<1x32x8x8xf32>
}

// -----

// A transposing op with an operand broadcast through constant indices (a
// squeeze-and-excitation scale [1, C, 1, 1], read (n, c, 0, 0)) reads it
// as the [1, C] it is, so that its rows and columns collapse into one
// loop (h * w = 64 positions, 4 tiles of 16) as any transposing op's, and
// it is transposed in 16 x 16 tiles.

// CHECK-LABEL: func.func @transposing_with_broadcast
// CHECK-DAG: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2, 3]] : tensor<1x32x1x1xf32> into tensor<1x32xf32>
// CHECK-DAG: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2], [3]] : tensor<1x4x16x32xi32> into tensor<1x64x32xi32>
// CHECK: scf.for {{.*}} -> (tensor<1x32x64xf32>)
// CHECK: vector.transpose %{{.*}}, [0, 2, 1] : vector<1x16x16xi32> to vector<1x16x16xi32>
// CHECK: arith.sitofp %{{.*}} : vector<16x16xi32> to vector<16x16xf32>
func.func @transposing_with_broadcast(%d: tensor<1x4x16x32xi32>, %se: tensor<1x32x1x1xf32>) -> tensor<1x32x4x16xf32> {
  %e = tensor.empty() : tensor<1x32x4x16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, h, w, c)>, affine_map<(n, c, h, w) -> (n, c, 0, 0)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%d, %se : tensor<1x4x16x32xi32>, tensor<1x32x1x1xf32>) outs(%e : tensor<1x32x4x16xf32>) {
  ^bb0(%in: i32, %s: f32, %out: f32):
    %f = arith.sitofp %in : i32 to f32
    %y = arith.mulf %f, %s : f32
    linalg.yield %y : f32
  } -> tensor<1x32x4x16xf32>
  return %r : tensor<1x32x4x16xf32>
}

// -----

// Two residual adds over int8 convs' NHWC products (d1, d2), each result
// read twice (the first's by the second and the return; so neither fuses
// into a reader): computed in NHWC (Layout.cpp). The first reads its
// products along the rows and the block input across; the second reads
// both the first's NHWC result and its products along the rows (no
// transpose); each NCHW result the function returns is a transpose back.

// CHECK-LABEL: func.func @residual_chain_in_nhwc
// CHECK: scf.for {{.*}} -> (tensor<1x256x32xf32>)
// CHECK: vector.transpose %{{.*}} : vector<1x16x16xf32> to vector<1x16x16xf32>
// CHECK: arith.sitofp %{{.*}} : vector<16x16xi32> to vector<16x16xf32>
// CHECK: scf.for {{.*}} -> (tensor<1x16x16x32xf32>)
// CHECK-NOT: vector.transpose
// CHECK: arith.sitofp %{{.*}} : vector<32xi32> to vector<32xf32>
// CHECK: scf.for {{.*}} -> (tensor<1x32x256xf32>)
// CHECK: vector.transpose
// CHECK: return
func.func @residual_chain_in_nhwc(%d1: tensor<1x16x16x32xi32>, %d2: tensor<1x16x16x32xi32>, %x: tensor<1x32x16x16xf32>) -> (tensor<1x32x16x16xf32>, tensor<1x32x16x16xf32>, tensor<1x32x16x16xf32>) {
  %e1 = tensor.empty() : tensor<1x32x16x16xf32>
  %r1 = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, h, w, c)>, affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%d1, %x : tensor<1x16x16x32xi32>, tensor<1x32x16x16xf32>) outs(%e1 : tensor<1x32x16x16xf32>) {
  ^bb0(%in: i32, %res: f32, %out: f32):
    %f = arith.sitofp %in : i32 to f32
    %s = arith.addf %f, %res : f32
    linalg.yield %s : f32
  } -> tensor<1x32x16x16xf32>
  %e2 = tensor.empty() : tensor<1x32x16x16xf32>
  %r2 = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, h, w, c)>, affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%d2, %r1 : tensor<1x16x16x32xi32>, tensor<1x32x16x16xf32>) outs(%e2 : tensor<1x32x16x16xf32>) {
  ^bb0(%in: i32, %res: f32, %out: f32):
    %f = arith.sitofp %in : i32 to f32
    %s = arith.addf %f, %res : f32
    linalg.yield %s : f32
  } -> tensor<1x32x16x16xf32>
  return %r1, %r2, %r2 : tensor<1x32x16x16xf32>, tensor<1x32x16x16xf32>, tensor<1x32x16x16xf32>
}

// -----

// A concatenation along the channels of two such ops (an inception block's
// branches over int8 convs' products), read by a third (returned twice,
// so not fused into its transposes back): the branches write NHWC into
// their channels of an NHWC concatenation ([0, 0, 0, 32] for the second),
// which the third reads in order; only its result is transposed back.

// CHECK-LABEL: func.func @concat_in_nhwc
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 0, 32] [1, 16, 16, 32] [1, 1, 1, 1] : tensor<1x16x16x32xf32> into tensor<1x16x16x64xf32>
// CHECK: arith.maximumf %{{.*}} : vector<64xf32>
// CHECK: return
func.func @concat_in_nhwc(%d1: tensor<1x16x16x32xi32>, %d2: tensor<1x16x16x32xi32>) -> (tensor<1x64x16x16xf32>, tensor<1x64x16x16xf32>) {
  %e1 = tensor.empty() : tensor<1x32x16x16xf32>
  %a = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, h, w, c)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%d1 : tensor<1x16x16x32xi32>) outs(%e1 : tensor<1x32x16x16xf32>) {
  ^bb0(%in: i32, %out: f32):
    %f = arith.sitofp %in : i32 to f32
    linalg.yield %f : f32
  } -> tensor<1x32x16x16xf32>
  %e2 = tensor.empty() : tensor<1x32x16x16xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, h, w, c)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%d2 : tensor<1x16x16x32xi32>) outs(%e2 : tensor<1x32x16x16xf32>) {
  ^bb0(%in: i32, %out: f32):
    %f = arith.sitofp %in : i32 to f32
    linalg.yield %f : f32
  } -> tensor<1x32x16x16xf32>
  %empty = tensor.empty() : tensor<1x64x16x16xf32>
  %c0 = tensor.insert_slice %a into %empty[0, 0, 0, 0] [1, 32, 16, 16] [1, 1, 1, 1] : tensor<1x32x16x16xf32> into tensor<1x64x16x16xf32>
  %cat = tensor.insert_slice %b into %c0[0, 32, 0, 0] [1, 32, 16, 16] [1, 1, 1, 1] : tensor<1x32x16x16xf32> into tensor<1x64x16x16xf32>
  %zero = arith.constant 0.0 : f32
  %e3 = tensor.empty() : tensor<1x64x16x16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%cat : tensor<1x64x16x16xf32>) outs(%e3 : tensor<1x64x16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x64x16x16xf32>
  return %r, %r : tensor<1x64x16x16xf32>, tensor<1x64x16x16xf32>
}

// -----

// Two padded tensors from one fill (CSE merges the fills of same-sized
// padded inputs): each insertion gets a tensor of its own (distinct, so
// CSE keeps them apart) whose borders alone are filled, and the data's
// producer writes straight into its interior. Without this, bufferization
// fills the whole buffer, copies it for the second insertion and copies
// each producer's result into the interior.

// CHECK-LABEL: func.func @border_fills
// CHECK-NOT: outs(%{{.*}} : tensor<1x6x6x16xi8>)
// CHECK: %[[E1:.*]] = tensor.empty() {fx.distinct = {{.*}}} : tensor<1x6x6x16xi8>
// CHECK: linalg.fill ins(%{{.*}} : i8) outs(%{{.*}} : tensor<1x1x6x16xi8>)
// CHECK: linalg.fill ins(%{{.*}} : i8) outs(%{{.*}} : tensor<1x1x6x16xi8>)
// CHECK: linalg.fill ins(%{{.*}} : i8) outs(%{{.*}} : tensor<1x4x1x16xi8>)
// CHECK: %[[B1:.*]] = tensor.insert_slice %{{.*}}[0, 1, 5, 0] [1, 4, 1, 16]
// CHECK: %[[I1:.*]] = tensor.extract_slice %[[B1]][0, 1, 1, 0] [1, 4, 4, 16] [1, 1, 1, 1]
// CHECK: %[[P1:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[I1]])
// CHECK: tensor.insert_slice %[[P1]] into %[[B1]][0, 1, 1, 0] [1, 4, 4, 16]
// CHECK: %[[E2:.*]] = tensor.empty() {fx.distinct = {{.*}}} : tensor<1x6x6x16xi8>
// CHECK: %[[B2:.*]] = tensor.insert_slice %{{.*}}[0, 1, 5, 0] [1, 4, 1, 16]
// CHECK: %[[I2:.*]] = tensor.extract_slice %[[B2]][0, 1, 1, 0] [1, 4, 4, 16] [1, 1, 1, 1]
// CHECK: %[[P2:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[I2]])
// CHECK: tensor.insert_slice %[[P2]] into %[[B2]][0, 1, 1, 0] [1, 4, 4, 16]
func.func @border_fills(%a: tensor<1x4x4x16xf32>, %b: tensor<1x4x4x16xf32>) -> (tensor<1x6x6x16xi8>, tensor<1x6x6x16xi8>) {
  %zp = arith.constant 3 : i8
  %e = tensor.empty() : tensor<1x6x6x16xi8>
  %filled = linalg.fill ins(%zp : i8) outs(%e : tensor<1x6x6x16xi8>) -> tensor<1x6x6x16xi8>
  %i = tensor.empty() : tensor<1x4x4x16xi8>
  %qa = linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>, affine_map<(n, h, w, c) -> (n, h, w, c)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a : tensor<1x4x4x16xf32>) outs(%i : tensor<1x4x4x16xi8>) {
  ^bb0(%x: f32, %o: i8):
    %t = arith.fptosi %x : f32 to i8
    linalg.yield %t : i8
  } -> tensor<1x4x4x16xi8>
  %pa = tensor.insert_slice %qa into %filled[0, 1, 1, 0] [1, 4, 4, 16] [1, 1, 1, 1] : tensor<1x4x4x16xi8> into tensor<1x6x6x16xi8>
  %qb = linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>, affine_map<(n, h, w, c) -> (n, h, w, c)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b : tensor<1x4x4x16xf32>) outs(%i : tensor<1x4x4x16xi8>) {
  ^bb0(%x: f32, %o: i8):
    %t = arith.fptosi %x : f32 to i8
    linalg.yield %t : i8
  } -> tensor<1x4x4x16xi8>
  %pb = tensor.insert_slice %qb into %filled[0, 1, 1, 0] [1, 4, 4, 16] [1, 1, 1, 1] : tensor<1x4x4x16xi8> into tensor<1x6x6x16xi8>
  return %pa, %pb : tensor<1x6x6x16xi8>, tensor<1x6x6x16xi8>
}

// -----

// A reduction over the loops outside the one its data is contiguous
// along: the global average pooling of NHWC products (the sum over h, w
// of x[n, h, w, c], with the epilogue fused in). The loops are reordered
// (n, h, w, then c) and the channels vectorized (992 in registers of 16,
// the 8 left a tail piece); around each tile the loops over n, the
// channel blocks, then h and w, so that a block's accumulators stay in
// registers across h and w (loop-invariant-subset-hoisting), instead of
// scalar loops reading across the channels.

// CHECK-LABEL: func.func @column_reduction
// CHECK: scf.for %{{.*}} = %c0 to %c992 step %c16
// CHECK: scf.for %{{.*}} = %c0 to %c13 step %c1
// CHECK: scf.for %{{.*}} = %c0 to %c13 step %c1
// CHECK: vector.transfer_read {{.*}} : tensor<1x1x1x16xi32>, vector<16xi32>
// CHECK: arith.sitofp {{.*}} : vector<16xi32> to vector<16xf32>
// CHECK: {{arith.addf|vector.contract}} {{.*}}vector<16xf32>
// CHECK: vector.transfer_read {{.*}} : tensor<1x1x1x8xi32>, vector<8xi32>
// CHECK-NOT: linalg.generic
func.func @column_reduction(%x: tensor<1x13x13x1000xi32>, %scale: tensor<1000xf32>) -> tensor<1x1000xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x1000xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x1000xf32>) -> tensor<1x1000xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, h, w, c)>, affine_map<(n, c, h, w) -> (c)>, affine_map<(n, c, h, w) -> (n, c)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%x, %scale : tensor<1x13x13x1000xi32>, tensor<1000xf32>) outs(%init : tensor<1x1000xf32>) {
  ^bb0(%v: i32, %s: f32, %acc: f32):
    %f = arith.sitofp %v : i32 to f32
    %m = arith.mulf %f, %s : f32
    %a = arith.addf %acc, %m : f32
    linalg.yield %a : f32
  } -> tensor<1x1000xf32>
  return %r : tensor<1x1000xf32>
}

// -----

// Three copies of one NCHW tensor to NHWC (each int8 conv of an inception
// block's branches writes its own input copy): made one before
// scheduling (mergeIdenticalCopies), whose result all three readers use.

// CHECK-LABEL: func.func @merged_copies
// CHECK: vector.transpose
// CHECK-NOT: vector.transpose
// CHECK: return %[[R:.*]], %[[R]], %[[R]] :
func.func @merged_copies(%x: tensor<1x64x8x8xf32>) -> (tensor<1x8x8x64xf32>, tensor<1x8x8x64xf32>, tensor<1x8x8x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<1x8x8x64xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x8x8x64xf32>) -> tensor<1x8x8x64xf32>
  %c1 = linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, c, h, w)>, affine_map<(n, h, w, c) -> (n, h, w, c)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x64x8x8xf32>) outs(%f1 : tensor<1x8x8x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x8x8x64xf32>
  %e2 = tensor.empty() : tensor<1x8x8x64xf32>
  %c2 = linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, c, h, w)>, affine_map<(n, h, w, c) -> (n, h, w, c)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x64x8x8xf32>) outs(%e2 : tensor<1x8x8x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x8x8x64xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x8x8x64xf32>) -> tensor<1x8x8x64xf32>
  %c3 = linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, c, h, w)>, affine_map<(n, h, w, c) -> (n, h, w, c)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x64x8x8xf32>) outs(%f3 : tensor<1x8x8x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x8x8x64xf32>
  return %c1, %c2, %c3 : tensor<1x8x8x64xf32>, tensor<1x8x8x64xf32>, tensor<1x8x8x64xf32>
}

// -----

// A padded tensor one of whose readers reads exactly its interior (a
// stride-1 window's centre tap, which canonicalization folds into a read
// of the data itself): the data's producer writes a tensor of its own
// (written into the interior, then inserted), not the interior in place,
// which bufferization would copy out and back for that second reader.

// CHECK-LABEL: func.func @border_fills_interior_read
// CHECK: %[[OWN:.*]] = tensor.empty() : tensor<1x4x4x16xi8>
// CHECK: %[[DATA:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[OWN]])
// CHECK: tensor.empty() {fx.distinct = {{.*}}} : tensor<1x6x6x16xi8>
// CHECK-NOT: outs(%{{.*}} : tensor<1x6x6x16xi8>)
// CHECK: tensor.insert_slice %[[DATA]] into %{{.*}}[0, 1, 1, 0] [1, 4, 4, 16]
// CHECK: return %[[DATA]],
func.func @border_fills_interior_read(%a: tensor<1x4x4x16xf32>) -> (tensor<1x4x4x16xi8>, tensor<1x4x4x16xi8>) {
  %zp = arith.constant 3 : i8
  %e = tensor.empty() : tensor<1x6x6x16xi8>
  %filled = linalg.fill ins(%zp : i8) outs(%e : tensor<1x6x6x16xi8>) -> tensor<1x6x6x16xi8>
  %interior = tensor.extract_slice %filled[0, 1, 1, 0] [1, 4, 4, 16] [1, 1, 1, 1] : tensor<1x6x6x16xi8> to tensor<1x4x4x16xi8>
  %q = linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>, affine_map<(n, h, w, c) -> (n, h, w, c)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a : tensor<1x4x4x16xf32>) outs(%interior : tensor<1x4x4x16xi8>) {
  ^bb0(%x: f32, %o: i8):
    %t = arith.fptosi %x : f32 to i8
    linalg.yield %t : i8
  } -> tensor<1x4x4x16xi8>
  %p = tensor.insert_slice %q into %filled[0, 1, 1, 0] [1, 4, 4, 16] [1, 1, 1, 1] : tensor<1x4x4x16xi8> into tensor<1x6x6x16xi8>
  %centre = tensor.extract_slice %p[0, 1, 1, 0] [1, 4, 4, 16] [1, 1, 1, 1] : tensor<1x6x6x16xi8> to tensor<1x4x4x16xi8>
  %corner = tensor.extract_slice %p[0, 0, 0, 0] [1, 4, 4, 16] [1, 1, 1, 1] : tensor<1x6x6x16xi8> to tensor<1x4x4x16xi8>
  return %centre, %corner : tensor<1x4x4x16xi8>, tensor<1x4x4x16xi8>
}

// -----

// An elementwise chain in NHWC reading per-channel parameters as
// [1, C, 1, 1] with constant indices (a batch norm's alpha and beta once
// the chain is in NHWC: (n, h, w, c) -> (n, c, 0, 0)): the parameters are
// read as the vectors they are, and the op is vectorized along the
// channels like any elementwise op, not left as scalar loops.

// CHECK-LABEL: func.func @nhwc_channel_params
// CHECK-DAG:     tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2, 3]] : tensor<1x32x1x1xf32> into tensor<1x32xf32>
// CHECK-DAG:     tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2, 3]] : tensor<1x32x1x1xf32> into tensor<1x32xf32>
// CHECK:         scf.for
// CHECK-DAG:       vector.transfer_read %{{.*}} : tensor<1x1x1x32xf32>, vector<32xf32>
// CHECK-DAG:       vector.transfer_read %{{.*}} : tensor<1x32xf32>, vector<32xf32>
// CHECK:           arith.mulf %{{.*}} : vector<32xf32>
// CHECK:           arith.addf %{{.*}} : vector<32xf32>
// CHECK-NOT:     linalg.generic
func.func @nhwc_channel_params(%x: tensor<1x4x16x32xf32>, %a: tensor<1x32x1x1xf32>, %b: tensor<1x32x1x1xf32>) -> tensor<1x4x16x32xf32> {
  %e = tensor.empty() : tensor<1x4x16x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>, affine_map<(n, h, w, c) -> (n, c, 0, 0)>, affine_map<(n, h, w, c) -> (n, c, 0, 0)>, affine_map<(n, h, w, c) -> (n, h, w, c)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %a, %b : tensor<1x4x16x32xf32>, tensor<1x32x1x1xf32>, tensor<1x32x1x1xf32>) outs(%e : tensor<1x4x16x32xf32>) {
  ^bb0(%in: f32, %al: f32, %be: f32, %out: f32):
    %m = arith.mulf %in, %al : f32
    %s = arith.addf %m, %be : f32
    linalg.yield %s : f32
  } -> tensor<1x4x16x32xf32>
  return %r : tensor<1x4x16x32xf32>
}

// -----

// An elementwise op over NHWC products computed in NHWC (Layout.cpp: it
// is also read by a second such op) and read by tensor.extract in another
// op's body (an interpolation's gather): the transpose back is one op
// before the reader, not one inside its body (which would compute the
// whole transpose again for each element it gathers).

// CHECK-LABEL: func.func @gather_of_nhwc_chain
// CHECK: scf.for {{.*}} -> (tensor<1x16x16x32xf32>)
// CHECK: vector.transpose
// CHECK: scf.forall
// CHECK-NOT: vector.transpose
// CHECK: tensor.extract
// CHECK-NOT: vector.transpose
// CHECK: tensor.extract
// CHECK-NOT: vector.transpose
// CHECK: scf.forall.in_parallel
func.func @gather_of_nhwc_chain(%d: tensor<1x16x16x32xi32>, %rows: tensor<64xi64>) -> (tensor<1x32x64x64xf32>, tensor<1x32x16x16xf32>, tensor<1x32x16x16xf32>) {
  %e1 = tensor.empty() : tensor<1x32x16x16xf32>
  %r1 = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, h, w, c)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%d : tensor<1x16x16x32xi32>) outs(%e1 : tensor<1x32x16x16xf32>) {
  ^bb0(%in: i32, %out: f32):
    %f = arith.sitofp %in : i32 to f32
    linalg.yield %f : f32
  } -> tensor<1x32x16x16xf32>
  %c0 = arith.constant 0 : index
  %e2 = tensor.empty() : tensor<1x32x64x64xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (h)>, affine_map<(n, c, h, w) -> (w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%rows, %rows : tensor<64xi64>, tensor<64xi64>) outs(%e2 : tensor<1x32x64x64xf32>) {
  ^bb0(%i: i64, %j: i64, %out: f32):
    %c = linalg.index 1 : index
    %ii = arith.index_cast %i : i64 to index
    %jj = arith.index_cast %j : i64 to index
    %a = tensor.extract %r1[%c0, %c, %ii, %jj] : tensor<1x32x16x16xf32>
    %b = tensor.extract %r1[%c0, %c, %jj, %ii] : tensor<1x32x16x16xf32>
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<1x32x64x64xf32>
  %e3 = tensor.empty() : tensor<1x32x16x16xf32>
  %r2 = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%r1 : tensor<1x32x16x16xf32>) outs(%e3 : tensor<1x32x16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %in : f32
    linalg.yield %m : f32
  } -> tensor<1x32x16x16xf32>
  return %g, %r2, %r2 : tensor<1x32x64x64xf32>, tensor<1x32x16x16xf32>, tensor<1x32x16x16xf32>
}

// -----

// A copy (here NHWC bytes transposed to NCHW) with several readers fuses
// into each of them, as it costs nothing to repeat, and is gone: the copy
// back to NHWC is the input itself, and the conversion to f32 reads the
// input through the transposed map.

#nhwc_to_nchw = affine_map<(n, c, h, w) -> (n, h, w, c)>
#nchw_to_nhwc = affine_map<(n, h, w, c) -> (n, c, h, w)>
#same = affine_map<(a, b, c, d) -> (a, b, c, d)>
// CHECK-LABEL: func.func @copy_with_two_readers
// CHECK-SAME: (%[[X:.*]]: tensor<1x8x8x32xi8>)
// CHECK-NOT: tensor<1x32x8x8xi8>
// CHECK: %[[F:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<1x8x8x32xi8>) outs({{.*}} : tensor<1x32x8x8xf32>)
// CHECK: arith.uitofp
// CHECK-NOT: tensor<1x32x8x8xi8>
// CHECK: return %[[X]], %[[F]]
func.func @copy_with_two_readers(%x: tensor<1x8x8x32xi8>) -> (tensor<1x8x8x32xi8>, tensor<1x32x8x8xf32>) {
  %e = tensor.empty() : tensor<1x32x8x8xi8>
  %nchw = linalg.generic {indexing_maps = [#nhwc_to_nchw, #same], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x8x8x32xi8>) outs(%e : tensor<1x32x8x8xi8>) {
  ^bb0(%in: i8, %out: i8):
    linalg.yield %in : i8
  } -> tensor<1x32x8x8xi8>
  %e2 = tensor.empty() : tensor<1x8x8x32xi8>
  %back = linalg.generic {indexing_maps = [#nchw_to_nhwc, #same], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%nchw : tensor<1x32x8x8xi8>) outs(%e2 : tensor<1x8x8x32xi8>) {
  ^bb0(%in: i8, %out: i8):
    linalg.yield %in : i8
  } -> tensor<1x8x8x32xi8>
  %e3 = tensor.empty() : tensor<1x32x8x8xf32>
  %f = linalg.generic {indexing_maps = [#same, #same], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%nchw : tensor<1x32x8x8xi8>) outs(%e3 : tensor<1x32x8x8xf32>) {
  ^bb0(%in: i8, %out: f32):
    %v = arith.uitofp %in : i8 to f32
    linalg.yield %v : f32
  } -> tensor<1x32x8x8xf32>
  return %back, %f : tensor<1x8x8x32xi8>, tensor<1x32x8x8xf32>
}

// -----

// A long row (here a whole tensor's sum, 4,096 registers) is summed in
// blocks: 64 blocks of 1,024 values in parallel, each in 16 lanes, then
// the lanes and the blocks' results. Each lane adds 64 values in a row,
// not 4,096: its rounding error grows with that count.

#all1 = affine_map<(i) -> (i)>
#none1 = affine_map<(i) -> ()>
// CHECK-LABEL: func.func @long_sum
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [64, 1024]
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2]] output_shape [64, 64, 16]
// CHECK: scf.forall
// CHECK: vector.transfer_read {{.*}} vector<16xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<64x16xf32>) outs(%{{.*}} : tensor<64xf32>)
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<64xf32>) outs(%{{.*}} : tensor<f32>)
func.func @long_sum(%x: tensor<65536xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %s = linalg.generic {indexing_maps = [#all1, #none1], iterator_types = ["reduction"]} ins(%x : tensor<65536xf32>) outs(%init : tensor<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %v = arith.addf %acc, %in : f32
    linalg.yield %v : f32
  } -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// A long reduction over several loops read contiguously is one loop
// first, then summed in blocks (128 of 2,048 values).

#all3 = affine_map<(i, j, k) -> (i, j, k)>
#none3 = affine_map<(i, j, k) -> ()>
// CHECK-LABEL: func.func @long_sum_3d
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1, 2]] : tensor<64x64x64xf32> into tensor<262144xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [128, 2048]
// CHECK: scf.forall
// CHECK: vector.transfer_read {{.*}} vector<16xf32>
func.func @long_sum_3d(%x: tensor<64x64x64xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %s = linalg.generic {indexing_maps = [#all3, #none3], iterator_types = ["reduction", "reduction", "reduction"]} ins(%x : tensor<64x64x64xf32>) outs(%init : tensor<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %v = arith.addf %acc, %in : f32
    linalg.yield %v : f32
  } -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// A long column (2,048 values per output: the sum over NCHW's C and H, W
// kept) is summed in blocks too: the reduced loops made one, 32 blocks of
// 64 values (each a column reduction into a 32x2x16 tensor), then the
// blocks' results.

#in4 = affine_map<(n, c, h, w) -> (n, c, h, w)>
#out4 = affine_map<(n, c, h, w) -> (n, w)>
// CHECK-LABEL: func.func @long_column_sum
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2], [3]] : tensor<2x64x32x16xf32> into tensor<2x2048x16xf32>
// CHECK: tensor.expand_shape %{{.*}} output_shape [2, 32, 64, 16]
// CHECK: linalg.fill {{.*}} -> tensor<32x2x16xf32>
// CHECK: vector.multi_reduction <add>, %{{.*}}, %{{.*}} [2] : vector<1x1x1x16xf32> to vector<1x1x16xf32>
// CHECK: scf.for %{{.*}} = %c0 to %c32
// CHECK: vector.multi_reduction <add>, %{{.*}}, %{{.*}} [1] : vector<1x1x16xf32> to vector<1x16xf32>
func.func @long_column_sum(%x: tensor<2x64x32x16xf32>) -> tensor<2x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x16xf32>) -> tensor<2x16xf32>
  %s = linalg.generic {indexing_maps = [#in4, #out4], iterator_types = ["parallel", "reduction", "reduction", "parallel"]} ins(%x : tensor<2x64x32x16xf32>) outs(%init : tensor<2x16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %v = arith.addf %acc, %in : f32
    linalg.yield %v : f32
  } -> tensor<2x16xf32>
  return %s : tensor<2x16xf32>
}

// -----

// A whole tensor's sum of squared deviations (var): the mean, kept as a
// 1x1 tensor and read at (0, 0) by every element, is read as a 0-d
// tensor, so the reduction's loops collapse into one and it is summed in
// blocks (64 of 1,024 values).

#all2 = affine_map<(i, j) -> (i, j)>
#zero2 = affine_map<(i, j) -> (0, 0)>
#none2 = affine_map<(i, j) -> ()>
// CHECK-LABEL: func.func @sum_of_squared_deviations
// CHECK: tensor.collapse_shape %{{.*}} [] : tensor<1x1xf32> into tensor<f32>
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<4x16384xf32> into tensor<65536xf32>
// CHECK: tensor.expand_shape %{{.*}} output_shape [64, 1024]
// CHECK: scf.forall
// CHECK: vector.transfer_read {{.*}} vector<16xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<64x16xf32>) outs(%{{.*}} : tensor<64xf32>)
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<64xf32>) outs(%{{.*}} : tensor<f32>)
func.func @sum_of_squared_deviations(%x: tensor<4x16384xf32>, %mean: tensor<1x1xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %s = linalg.generic {indexing_maps = [#all2, #zero2, #none2], iterator_types = ["reduction", "reduction"]} ins(%x, %mean : tensor<4x16384xf32>, tensor<1x1xf32>) outs(%init : tensor<f32>) {
  ^bb0(%in: f32, %m: f32, %acc: f32):
    %d = arith.subf %in, %m : f32
    %sq = arith.mulf %d, %d : f32
    %v = arith.addf %acc, %sq : f32
    linalg.yield %v : f32
  } -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// A sum over n, h and w of NCHW data, c kept (BatchNorm's statistics):
// the trailing loops h, w first (a row reduction into a 4x8 tensor of
// partial sums, each row in 16 lanes), then n (a column reduction of the
// partials into the op's init). One op, it was left scalar loops.

#nchw = affine_map<(n, c, h, w) -> (n, c, h, w)>
#c = affine_map<(n, c, h, w) -> (c)>
// CHECK-LABEL: func.func @outer_and_trailing_reductions
// CHECK: linalg.fill {{.*}} -> tensor<4x8xf32>
// CHECK: vector.multi_reduction <add>, %{{.*}}, %{{.*}} [2] : vector<1x1x1x16xf32> to vector<1x1x16xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<4x8x16xf32>) outs(%{{.*}} : tensor<4x8xf32>)
// CHECK: vector.multi_reduction <add>, %{{.*}}, %{{.*}} [0] : vector<1x8xf32> to vector<8xf32>
func.func @outer_and_trailing_reductions(%x: tensor<4x8x16x16xf32>) -> tensor<8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %s = linalg.generic {indexing_maps = [#nchw, #c], iterator_types = ["reduction", "parallel", "reduction", "reduction"]} ins(%x : tensor<4x8x16x16xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %v = arith.addf %acc, %in : f32
    linalg.yield %v : f32
  } -> tensor<8xf32>
  return %s : tensor<8xf32>
}

// -----

// A short sum over several trailing loops whose length fills registers
// (7 x 16 values: x.mean((2, 3))) is one row reduction in 16 lanes, as a
// long one is; it was left scalar loops.

#nchw = affine_map<(n, c, h, w) -> (n, c, h, w)>
#nc = affine_map<(n, c, h, w) -> (n, c)>
// CHECK-LABEL: func.func @short_trailing_reductions
// CHECK: linalg.fill {{.*}} -> tensor<2x8x16xf32>
// CHECK: vector.multi_reduction <add>, %{{.*}}, %{{.*}} [2] : vector<1x1x1x16xf32> to vector<1x1x16xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<2x8x16xf32>) outs(%{{.*}} : tensor<2x8xf32>)
func.func @short_trailing_reductions(%x: tensor<2x8x7x16xf32>) -> tensor<2x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8xf32>) -> tensor<2x8xf32>
  %s = linalg.generic {indexing_maps = [#nchw, #nc], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%x : tensor<2x8x7x16xf32>) outs(%init : tensor<2x8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %v = arith.addf %acc, %in : f32
    linalg.yield %v : f32
  } -> tensor<2x8xf32>
  return %s : tensor<2x8xf32>
}

// -----

// A long column over reduced loops apart (x.sum((0, 2)) of NCHW data, c
// and w kept: 2,048 values each), which do not collapse into one: h is
// reduced first (a column reduction into 16x4x16 partials), then n.

#nchw = affine_map<(n, c, h, w) -> (n, c, h, w)>
#cw = affine_map<(n, c, h, w) -> (c, w)>
// CHECK-LABEL: func.func @reduced_loops_apart
// CHECK: linalg.fill {{.*}} -> tensor<16x4x16xf32>
// CHECK: scf.for %{{.*}} = %c0 to %c128
// CHECK: vector.multi_reduction <add>, %{{.*}}, %{{.*}} [2] : vector<1x1x1x16xf32> to vector<1x1x16xf32>
// CHECK: scf.for %{{.*}} = %c0 to %c16 step %c1
// CHECK: vector.multi_reduction <add>, %{{.*}}, %{{.*}} [1] : vector<1x1x16xf32> to vector<1x16xf32>
func.func @reduced_loops_apart(%x: tensor<16x4x128x16xf32>) -> tensor<4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %s = linalg.generic {indexing_maps = [#nchw, #cw], iterator_types = ["reduction", "parallel", "reduction", "parallel"]} ins(%x : tensor<16x4x128x16xf32>) outs(%init : tensor<4x16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %v = arith.addf %acc, %in : f32
    linalg.yield %v : f32
  } -> tensor<4x16xf32>
  return %s : tensor<4x16xf32>
}
