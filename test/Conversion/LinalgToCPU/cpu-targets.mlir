// The schedule for three CPU targets on the same ops: register tiles, panels
// and transposes follow the target's vector width and registers, and the
// function records what the schedule took from the target.
//
// RUN: fx-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(fx-cpu-schedule{target=x86-64-v4}))' | FileCheck %s --check-prefix=AVX512
// RUN: fx-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(fx-cpu-schedule{target=x86-64-v3}))' | FileCheck %s --check-prefix=AVX2
// RUN: fx-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(fx-cpu-schedule{target=neoverse-n1}))' | FileCheck %s --check-prefix=NEON
// The whole pipeline compiles for each, down to LLVM IR (AArch64 too,
// though it cannot run here).
// RUN: fx-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(fx-cpu-schedule{target=x86-64-v3}),canonicalize,one-shot-bufferize{bufferize-function-boundaries},func.func(fx-cpu-lower-vectors{target=x86-64-v3}))' | FileCheck %s --check-prefix=AVX2-LOWERED
// RUN: not fx-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(fx-cpu-schedule{target=pentium}))' 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// UNKNOWN: error: unknown CPU target 'pentium': use host or one of x86-64-v2, x86-64-v3,

// AVX512-LABEL: func.func @matmul
// AVX512-SAME: fx.cpu_schedule = "target=x86-64-v4 lanes=16 registers=32 tile=8x32 packed-block-rows=256 packed-block-depth=256 l2=1024K"
// AVX512: vector.contract {{.*}} vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// AVX2-LABEL: func.func @matmul
// AVX2-SAME: fx.cpu_schedule = "target=x86-64-v3 lanes=8 registers=16 tile=6x16 packed-block-rows=256 packed-block-depth=512 l2=256K"
// AVX2: vector.contract {{.*}} vector<6x1xf32>, vector<1x16xf32> into vector<6x16xf32>
// AVX2-NOT: vector<8x32xf32>
// NEON-LABEL: func.func @matmul
// NEON-SAME: fx.cpu_schedule = "target=neoverse-n1 lanes=4 registers=32 tile=8x8 packed-block-rows=256 packed-block-depth=512 l2=1024K"
// NEON: vector.contract {{.*}} vector<8x1xf32>, vector<1x8xf32> into vector<8x8xf32>
// AVX2-LOWERED-LABEL: func.func @matmul
// AVX2-LOWERED: vector.fma {{.*}} : vector<16xf32>
func.func @matmul(%a: tensor<96x64xf32>, %b: tensor<64x64xf32>, %c: tensor<96x64xf32>) -> tensor<96x64xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<96x64xf32>, tensor<64x64xf32>) outs(%c : tensor<96x64xf32>) -> tensor<96x64xf32>
  return %r : tensor<96x64xf32>
}

// -----

// A transpose: tiles of lanes x lanes.

// AVX512-LABEL: func.func @transpose
// AVX512: vector.transpose {{.*}} vector<16x16xf32> to vector<16x16xf32>
// AVX2-LABEL: func.func @transpose
// AVX2: vector.transpose {{.*}} vector<8x8xf32> to vector<8x8xf32>
// NEON-LABEL: func.func @transpose
// NEON: vector.transpose {{.*}} vector<4x4xf32> to vector<4x4xf32>
func.func @transpose(%x: tensor<64x32xf32>, %init: tensor<32x64xf32>) -> tensor<32x64xf32> {
  %t = linalg.transpose ins(%x : tensor<64x32xf32>) outs(%init : tensor<32x64xf32>) permutation = [1, 0]
  return %t : tensor<32x64xf32>
}
