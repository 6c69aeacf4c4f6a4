// Which int8 convs of the pairs form (i16 operands, AVX2 targets)
// fx-cpu-schedule computes by Winograd in integers (ConvInt8Winograd.cpp),
// and in which: 3x3, stride and dilation 1, constant weights,
// accumulators starting from a constant, and for every output channel
// 2^s * 128 * sum |w| < 2^31 (the centred input's sums, times L^2's power
// of 2: s = 6 for F(4x4, 3x3), 2 for F(2x2, 3x3)), F(4x4, 3x3) from 16
// tiles of 4x4. The applied strategies name the form of each conv:
//
//   @f4         16 channels of weights 3, a 16x16 output: F(4x4, 3x3)
//   @fits       1024 channels of weights 127: 128 sum |w| = 1.2e9, times
//               4 < 2^31 but not times 64: F(2x2, 3x3)
//   @too_large  4096 channels of weights 127: 128 sum |w| * 4 >= 2^31:
//               direct register tiles, exact as ever
//   @strided    stride 2: direct
//   @from_init  accumulators starting from a non-constant init: direct
//   @fits again with int8-winograd=false: direct
//
// RUN: fx-opt %s --pass-pipeline='builtin.module(func.func(fx-cpu-schedule{target=x86-64-v3}))' | FileCheck %s
// RUN: fx-opt %s --pass-pipeline='builtin.module(func.func(fx-cpu-schedule{target=x86-64-v3 int8-winograd=false}))' | FileCheck %s --check-prefix=OFF

#in = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d0, d1 + d5, d2 + d6, d7, d8)>
#in2 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d0, d1 * 2 + d5, d2 * 2 + d6, d7, d8)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d3, d5, d6, d7, d4, d8)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d0, d1, d2, d3, d4)>
#iterators = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction"]

// CHECK-LABEL: func.func @f4
// CHECK-SAME: fx.cpu_strategies = [{{.*}}int8 pairs winograd F(4x4, 3x3)"]
// The 6x6 input tile's 36 products; the transformed weights [36, OCB,
// C/2, 16 x 2]; At' M A' = 576 (D - 128 sum w): times 9's inverse modulo
// 2^32, shifted right by 6, plus 128 sum w (16 x 3 x 9 = 432, times 128).
// CHECK-DAG: arith.constant dense<"0x{{[0-9A-F]+}}"> : tensor<36x1x8x32xi16>
// CHECK-DAG: arith.constant dense<55296> : tensor<16xi32>
// CHECK: -> (tensor<36x16x16xi16>)
// CHECK: -> (tensor<36x16x1x16xi32>)
// CHECK-DAG: %[[SHIFT:.*]] = arith.constant dense<6> : vector<16xi32>
// CHECK-DAG: %[[INVERSE:.*]] = arith.constant dense<954437177> : vector<16xi32>
// CHECK: %[[SCALED:.*]] = arith.muli %{{.*}}, %[[INVERSE]] : vector<16xi32>
// CHECK: arith.shrsi %[[SCALED]], %[[SHIFT]] : vector<16xi32>
func.func @f4(%x: tensor<1x18x18x8x2xi16>) -> tensor<1x16x16x1x16xi32> {
  %w = arith.constant dense<3> : tensor<1x3x3x8x16x2xi16>
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<1x16x16x1x16xi32>
  %init = linalg.fill ins(%zero : i32) outs(%e : tensor<1x16x16x1x16xi32>) -> tensor<1x16x16x1x16xi32>
  %d = linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = #iterators}
      ins(%x, %w : tensor<1x18x18x8x2xi16>, tensor<1x3x3x8x16x2xi16>)
      outs(%init : tensor<1x16x16x1x16xi32>) attrs = {fx.int8_conv = array<i64: 1, 1, 1, 1, 4>} {
  ^bb0(%a: i16, %b: i16, %acc: i32):
    %a32 = arith.extsi %a : i16 to i32
    %b32 = arith.extsi %b : i16 to i32
    %p = arith.muli %a32, %b32 : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  } -> tensor<1x16x16x1x16xi32>
  return %d : tensor<1x16x16x1x16xi32>
}

// CHECK-LABEL: func.func @fits
// CHECK-SAME: fx.cpu_strategies = [{{.*}}int8 pairs winograd F(2x2, 3x3)"]
// The weights transformed at compile time ([OCB, 16, C/2, 16 x 2], the
// order the products read them in); 4
// rows of tiles of 2x2, too large together for the L2 of x86-64-v3, run
// as 4 row blocks in parallel, each on one thread: its input transform
// (4 tiles, 1024 channels in 64 vectors of 16), its 16 products in
// register tiles of 4 tiles, its output transform shifting the sums
// right by 2.
// CHECK: arith.constant dense<"0x{{[0-9A-F]+}}"> : tensor<1x16x512x32xi16>
// CHECK: scf.forall ({{.*}}) in (4) shared_outs({{.*}}) -> (tensor<1x8x8x1x16xi32>)
// CHECK: scf.for {{.*}} to %c64 {{.*}} -> (tensor<16x4x1024xi16>)
// CHECK: scf.for {{.*}} to %c512 {{.*}} -> (vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>)
// CHECK-COUNT-4: vector.multi_reduction <add>, {{.*}} [1] : vector<16x2xi32> to vector<16xi32>
// CHECK: arith.shrsi {{.*}} : vector<16xi32>
// CHECK: scf.forall.in_parallel
// CHECK-NOT: fx.int8_conv
// OFF-LABEL: func.func @fits
// OFF-SAME: fx.cpu_strategies = [{{.*}}int8 pairs"]
// OFF-NOT: arith.shrsi
func.func @fits(%x: tensor<1x10x10x512x2xi16>) -> tensor<1x8x8x1x16xi32> {
  %w = arith.constant dense<127> : tensor<1x3x3x512x16x2xi16>
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<1x8x8x1x16xi32>
  %init = linalg.fill ins(%zero : i32) outs(%e : tensor<1x8x8x1x16xi32>) -> tensor<1x8x8x1x16xi32>
  %d = linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = #iterators}
      ins(%x, %w : tensor<1x10x10x512x2xi16>, tensor<1x3x3x512x16x2xi16>)
      outs(%init : tensor<1x8x8x1x16xi32>) attrs = {fx.int8_conv = array<i64: 1, 1, 1, 1, 4>} {
  ^bb0(%a: i16, %b: i16, %acc: i32):
    %a32 = arith.extsi %a : i16 to i32
    %b32 = arith.extsi %b : i16 to i32
    %p = arith.muli %a32, %b32 : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  } -> tensor<1x8x8x1x16xi32>
  return %d : tensor<1x8x8x1x16xi32>
}

// CHECK-LABEL: func.func @too_large
// CHECK-SAME: fx.cpu_strategies = [{{.*}}int8 pairs"]
// CHECK-NOT: arith.shrsi
func.func @too_large(%x: tensor<1x10x10x2048x2xi16>) -> tensor<1x8x8x1x16xi32> {
  %w = arith.constant dense<127> : tensor<1x3x3x2048x16x2xi16>
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<1x8x8x1x16xi32>
  %init = linalg.fill ins(%zero : i32) outs(%e : tensor<1x8x8x1x16xi32>) -> tensor<1x8x8x1x16xi32>
  %d = linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = #iterators}
      ins(%x, %w : tensor<1x10x10x2048x2xi16>, tensor<1x3x3x2048x16x2xi16>)
      outs(%init : tensor<1x8x8x1x16xi32>) attrs = {fx.int8_conv = array<i64: 1, 1, 1, 1, 4>} {
  ^bb0(%a: i16, %b: i16, %acc: i32):
    %a32 = arith.extsi %a : i16 to i32
    %b32 = arith.extsi %b : i16 to i32
    %p = arith.muli %a32, %b32 : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  } -> tensor<1x8x8x1x16xi32>
  return %d : tensor<1x8x8x1x16xi32>
}

// CHECK-LABEL: func.func @strided
// CHECK-SAME: fx.cpu_strategies = [{{.*}}int8 pairs"]
// CHECK-NOT: arith.shrsi
func.func @strided(%x: tensor<1x9x9x8x2xi16>) -> tensor<1x4x4x1x16xi32> {
  %w = arith.constant dense<3> : tensor<1x3x3x8x16x2xi16>
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<1x4x4x1x16xi32>
  %init = linalg.fill ins(%zero : i32) outs(%e : tensor<1x4x4x1x16xi32>) -> tensor<1x4x4x1x16xi32>
  %d = linalg.generic {indexing_maps = [#in2, #w, #out], iterator_types = #iterators}
      ins(%x, %w : tensor<1x9x9x8x2xi16>, tensor<1x3x3x8x16x2xi16>)
      outs(%init : tensor<1x4x4x1x16xi32>) attrs = {fx.int8_conv = array<i64: 2, 2, 1, 1, 4>} {
  ^bb0(%a: i16, %b: i16, %acc: i32):
    %a32 = arith.extsi %a : i16 to i32
    %b32 = arith.extsi %b : i16 to i32
    %p = arith.muli %a32, %b32 : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  } -> tensor<1x4x4x1x16xi32>
  return %d : tensor<1x4x4x1x16xi32>
}

// CHECK-LABEL: func.func @from_init
// CHECK-SAME: fx.cpu_strategies = [{{.*}}int8 pairs"]
// CHECK-NOT: arith.shrsi
func.func @from_init(%x: tensor<1x6x6x8x2xi16>, %init: tensor<1x4x4x1x16xi32>) -> tensor<1x4x4x1x16xi32> {
  %w = arith.constant dense<3> : tensor<1x3x3x8x16x2xi16>
  %d = linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = #iterators}
      ins(%x, %w : tensor<1x6x6x8x2xi16>, tensor<1x3x3x8x16x2xi16>)
      outs(%init : tensor<1x4x4x1x16xi32>) attrs = {fx.int8_conv = array<i64: 1, 1, 1, 1, 4>} {
  ^bb0(%a: i16, %b: i16, %acc: i32):
    %a32 = arith.extsi %a : i16 to i32
    %b32 = arith.extsi %b : i16 to i32
    %p = arith.muli %a32, %b32 : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  } -> tensor<1x4x4x1x16xi32>
  return %d : tensor<1x4x4x1x16xi32>
}
