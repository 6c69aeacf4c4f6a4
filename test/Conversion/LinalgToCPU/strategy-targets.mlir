// fx-cpu-strategy records on each conv and contraction how it is
// computed, from the target and the shapes: the same ops for an AVX2, an
// AVX-512 and an AArch64 NEON target.
//
// RUN: fx-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(fx-cpu-strategy{target=x86-64-v3}))' | FileCheck %s --check-prefixes=CHECK,AVX2
// RUN: fx-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(fx-cpu-strategy{target=x86-64-v4}))' | FileCheck %s --check-prefixes=CHECK,AVX512
// RUN: fx-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(fx-cpu-strategy{target=neoverse-n1}))' | FileCheck %s --check-prefixes=CHECK,NEON
// The strategy step changes nothing but the records: run twice, it gives
// the same IR (each record is checked and kept).
// RUN: fx-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(fx-cpu-strategy{target=x86-64-v3}))' > %t.once.mlir
// RUN: fx-opt %t.once.mlir -split-input-file --pass-pipeline='builtin.module(func.func(fx-cpu-strategy{target=x86-64-v3}))' > %t.twice.mlir
// RUN: diff %t.once.mlir %t.twice.mlir

// A small matmul: register tiles of the target's tile (6x16 with 16 AVX2
// registers, 8x32 with 32 AVX-512 ones, 8x8 with 32 NEON ones of 4
// lanes), its computed columns too small to pack.
// CHECK-LABEL: func.func @small
// AVX2: linalg.matmul {fx.cpu_strategy = {algorithm = "contraction", cache_block = array<i64: 64, 256, 256>, pack = false, register_tile = array<i64: 6, 16>}}
// AVX512: linalg.matmul {fx.cpu_strategy = {algorithm = "contraction", cache_block = array<i64: 64, 256, 256>, pack = false, register_tile = array<i64: 8, 32>}}
// NEON: linalg.matmul {fx.cpu_strategy = {algorithm = "contraction", cache_block = array<i64: 64, 256, 256>, pack = false, register_tile = array<i64: 8, 8>}}
func.func @small(%a: tensor<96x64xf32>, %b: tensor<64x64xf32>, %c: tensor<96x64xf32>) -> tensor<96x64xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<96x64xf32>, tensor<64x64xf32>) outs(%c : tensor<96x64xf32>) -> tensor<96x64xf32>
  return %r : tensor<96x64xf32>
}

// -----

// A large matmul: its columns operand (larger than half an L2) packed in
// panels, cache blocks of rows that leave 4 blocks (128 of 512), and
// k blocks at which a panel is 32 KiB (512 deep for panels of 16 or 8,
// 256 for 32). The target's tile rows with a tail for many rows (6 of
// 512 for AVX2, 85 tiles and 2 rows); tiles of fewer rows where those
// divide few rows and the target's do not: 7 of 49 (not 8).
// CHECK-LABEL: func.func @large
// AVX2: {fx.cpu_strategy = {algorithm = "contraction", cache_block = array<i64: 128, 256, 512>, pack = true, register_tile = array<i64: 6, 16>}}
// AVX512: {fx.cpu_strategy = {algorithm = "contraction", cache_block = array<i64: 128, 256, 256>, pack = true, register_tile = array<i64: 8, 32>}}
// NEON: {fx.cpu_strategy = {algorithm = "contraction", cache_block = array<i64: 128, 256, 512>, pack = true, register_tile = array<i64: 8, 8>}}
// AVX2: {fx.cpu_strategy = {algorithm = "contraction", cache_block = array<i64: 64, 256, 256>, pack = false, register_tile = array<i64: 6, 16>}}
// AVX512: {fx.cpu_strategy = {algorithm = "contraction", cache_block = array<i64: 64, 256, 256>, pack = false, register_tile = array<i64: 7, 32>}}
// NEON: {fx.cpu_strategy = {algorithm = "contraction", cache_block = array<i64: 64, 256, 256>, pack = false, register_tile = array<i64: 7, 8>}}
func.func @large(%a: tensor<512x512xf32>, %b: tensor<512x512xf32>, %c: tensor<512x512xf32>, %d: tensor<49x512xf32>, %e: tensor<49x512xf32>) -> (tensor<512x512xf32>, tensor<49x512xf32>) {
  %r = linalg.matmul ins(%a, %b : tensor<512x512xf32>, tensor<512x512xf32>) outs(%c : tensor<512x512xf32>) -> tensor<512x512xf32>
  %s = linalg.matmul ins(%d, %b : tensor<49x512xf32>, tensor<512x512xf32>) outs(%e : tensor<49x512xf32>) -> tensor<49x512xf32>
  return %r, %s : tensor<512x512xf32>, tensor<49x512xf32>
}

// -----

// A vector-matrix product (one row): one row of 8 registers.
// CHECK-LABEL: func.func @row
// AVX2: register_tile = array<i64: 1, 64>
// AVX512: register_tile = array<i64: 1, 128>
// NEON: register_tile = array<i64: 1, 32>
func.func @row(%a: tensor<1x256xf32>, %b: tensor<256x512xf32>, %c: tensor<1x512xf32>) -> tensor<1x512xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<1x256xf32>, tensor<256x512xf32>) outs(%c : tensor<1x512xf32>) -> tensor<1x512xf32>
  return %r : tensor<1x512xf32>
}

// -----

// Convolutions: the algorithm and those that apply. A wide stride-1 conv
// with weights given at run time reads its input in place (shifted
// window); a strided one gathers its columns (im2col); a grouped one is
// one contraction batched over the groups.
// CHECK-LABEL: func.func @convs
// CHECK: linalg.conv_2d_nchw_fchw {{{.*}}fx.cpu_strategy = {algorithm = "shifted-window", applicable = ["shifted-window", "im2col"]}
// CHECK: linalg.conv_2d_nchw_fchw {{{.*}}fx.cpu_strategy = {algorithm = "im2col", applicable = ["im2col"]}
// CHECK: linalg.conv_2d_ngchw_gfchw {{{.*}}fx.cpu_strategy = {algorithm = "grouped"}
func.func @convs(%x: tensor<1x16x34x34xf32>, %w: tensor<32x16x3x3xf32>, %o: tensor<1x32x32x32xf32>, %o2: tensor<1x32x16x16xf32>, %gx: tensor<1x2x8x34x34xf32>, %gw: tensor<2x16x8x3x3xf32>, %go: tensor<1x2x16x32x32xf32>) -> (tensor<1x32x32x32xf32>, tensor<1x32x16x16xf32>, tensor<1x2x16x32x32xf32>) {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x16x34x34xf32>, tensor<32x16x3x3xf32>) outs(%o : tensor<1x32x32x32xf32>) -> tensor<1x32x32x32xf32>
  %s = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<1x16x34x34xf32>, tensor<32x16x3x3xf32>) outs(%o2 : tensor<1x32x16x16xf32>) -> tensor<1x32x16x16xf32>
  %g = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%gx, %gw : tensor<1x2x8x34x34xf32>, tensor<2x16x8x3x3xf32>) outs(%go : tensor<1x2x16x32x32xf32>) -> tensor<1x2x16x32x32xf32>
  return %r, %s, %g : tensor<1x32x32x32xf32>, tensor<1x32x16x16xf32>, tensor<1x2x16x32x32xf32>
}

// -----

// Ops the strategy does not cover, and ops of other types or dynamic
// shapes, get no record.
// CHECK-LABEL: func.func @unrecorded
// CHECK-NOT: fx.cpu_strategy =
// CHECK: return
func.func @unrecorded(%x: tensor<64x32xf32>, %init: tensor<32x64xf32>, %a: tensor<?x64xf32>, %b: tensor<64x64xf32>, %c: tensor<?x64xf32>, %i: tensor<8x8xi32>, %j: tensor<8x8xi32>) -> (tensor<32x64xf32>, tensor<?x64xf32>, tensor<8x8xi32>) {
  %t = linalg.transpose ins(%x : tensor<64x32xf32>) outs(%init : tensor<32x64xf32>) permutation = [1, 0]
  %r = linalg.matmul ins(%a, %b : tensor<?x64xf32>, tensor<64x64xf32>) outs(%c : tensor<?x64xf32>) -> tensor<?x64xf32>
  %s = linalg.matmul ins(%i, %i : tensor<8x8xi32>, tensor<8x8xi32>) outs(%j : tensor<8x8xi32>) -> tensor<8x8xi32>
  return %t, %r, %s : tensor<32x64xf32>, tensor<?x64xf32>, tensor<8x8xi32>
}

// -----

// Fewer than 4 row blocks of 256 (384 rows), but 12 column blocks: the
// blocks of 256 rows still make enough for the threads (2 x 12), and B is
// read twice, not six times as with blocks of 64.
// CHECK-LABEL: func.func @wide
// AVX2: {fx.cpu_strategy = {algorithm = "contraction", cache_block = array<i64: 256, 256, 512>, pack = true, register_tile = array<i64: 6, 16>}}
// AVX512: {fx.cpu_strategy = {algorithm = "contraction", cache_block = array<i64: 256, 256, 256>, pack = true, register_tile = array<i64: 8, 32>}}
// NEON: {fx.cpu_strategy = {algorithm = "contraction", cache_block = array<i64: 256, 256, 512>, pack = true, register_tile = array<i64: 8, 8>}}
func.func @wide(%a: tensor<384x768xf32>, %b: tensor<768x3072xf32>, %c: tensor<384x3072xf32>) -> tensor<384x3072xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<384x768xf32>, tensor<768x3072xf32>) outs(%c : tensor<384x3072xf32>) -> tensor<384x3072xf32>
  return %r : tensor<384x3072xf32>
}
