// RUN: fx-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(fx-cpu-schedule{target=x86-64-v3}))' | FileCheck %s
//
// fx-cpu-schedule folds the compares of an elementwise body that the
// ranges of their operands decide (lib/Conversion/LinalgToCPU/Bounds.cpp):
// a quantize's guard against values from 2^63 up (Quantize.cpp) after an
// int8 conv's products, which are i32: at most 2^31 x 0.5 + 4 in
// magnitude here, far below 2^63.

// CHECK-LABEL: func.func @requantize
// CHECK-NOT: arith.cmpf
// CHECK-NOT: arith.select
// CHECK: arith.maxnumf {{.*}} : vector<8xf32>
// CHECK: arith.minnumf {{.*}} : vector<8xf32>
// CHECK: arith.fptosi {{.*}} : vector<8xf32> to vector<8xi32>
func.func @requantize(%acc: tensor<8x8xi32>) -> tensor<8x8xi8> {
  %scale = arith.constant dense<[0.5, 0.25, 0.125, 0.0625, 0.5, 0.25, 0.125, 0.0625]> : tensor<8xf32>
  %bias = arith.constant dense<[-4.0, 4.0, 1.0, 0.0, -4.0, 4.0, 1.0, 0.0]> : tensor<8xf32>
  %inverse = arith.constant 10.0 : f32
  %zp = arith.constant 3.0 : f32
  %lo = arith.constant 0.0 : f32
  %hi = arith.constant 255.0 : f32
  %big = arith.constant 9.22337203E+18 : f32
  %e = tensor.empty() : tensor<8x8xi8>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%acc, %scale, %bias : tensor<8x8xi32>, tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8x8xi8>) {
  ^bb0(%a: i32, %s: f32, %b: f32, %out: i8):
    %f = arith.sitofp %a : i32 to f32
    %m = arith.mulf %f, %s : f32
    %y = arith.addf %m, %b : f32
    %v = arith.mulf %y, %inverse : f32
    %q = math.roundeven %v : f32
    %z = arith.addf %q, %zp : f32
    %c0 = arith.maxnumf %z, %lo : f32
    %c1 = arith.minnumf %c0, %hi : f32
    %over = arith.cmpf oge, %v, %big : f32
    %g = arith.select %over, %lo, %c1 : f32
    %i = arith.fptosi %g : f32 to i32
    %t = arith.trunci %i : i32 to i8
    linalg.yield %t : i8
  } -> tensor<8x8xi8>
  return %r : tensor<8x8xi8>
}

// -----

// A quantize of a float input (unbounded) keeps its guard.

// CHECK-LABEL: func.func @unbounded
// CHECK: arith.cmpf oge
// CHECK: arith.select
func.func @unbounded(%x: tensor<64xf32>) -> tensor<64xi8> {
  %inverse = arith.constant 10.0 : f32
  %lo = arith.constant 0.0 : f32
  %hi = arith.constant 255.0 : f32
  %big = arith.constant 9.22337203E+18 : f32
  %e = tensor.empty() : tensor<64xi8>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<64xf32>) outs(%e : tensor<64xi8>) {
  ^bb0(%a: f32, %out: i8):
    %v = arith.mulf %a, %inverse : f32
    %q = math.roundeven %v : f32
    %c0 = arith.maxnumf %q, %lo : f32
    %c1 = arith.minnumf %c0, %hi : f32
    %over = arith.cmpf oge, %v, %big : f32
    %g = arith.select %over, %lo, %c1 : f32
    %i = arith.fptosi %g : f32 to i32
    %t = arith.trunci %i : i32 to i8
    linalg.yield %t : i8
  } -> tensor<64xi8>
  return %r : tensor<64xi8>
}

// -----

// A table with a value that makes the bound reach 2^63 (2^31 x 2^33):
// the guard stays.

// CHECK-LABEL: func.func @large_scale
// CHECK: arith.cmpf oge
func.func @large_scale(%acc: tensor<8xi32>) -> tensor<8xi8> {
  %scale = arith.constant dense<[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 8589934592.0]> : tensor<8xf32>
  %lo = arith.constant 0.0 : f32
  %hi = arith.constant 255.0 : f32
  %big = arith.constant 9.22337203E+18 : f32
  %e = tensor.empty() : tensor<8xi8>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%acc, %scale : tensor<8xi32>, tensor<8xf32>) outs(%e : tensor<8xi8>) {
  ^bb0(%a: i32, %s: f32, %out: i8):
    %f = arith.sitofp %a : i32 to f32
    %v = arith.mulf %f, %s : f32
    %q = math.roundeven %v : f32
    %c0 = arith.maxnumf %q, %lo : f32
    %c1 = arith.minnumf %c0, %hi : f32
    %over = arith.cmpf oge, %v, %big : f32
    %g = arith.select %over, %lo, %c1 : f32
    %i = arith.fptosi %g : f32 to i32
    %t = arith.trunci %i : i32 to i8
    linalg.yield %t : i8
  } -> tensor<8xi8>
  return %r : tensor<8xi8>
}

// -----

// A byte clamped into [0, 255] and widened to i16 (the pairs form's
// activations) converts to i16 directly, the clamp in integers (below).
// (An op of integers alone whose body computes in f32 is vectorized: no
// op of it can trap.)

// CHECK-LABEL: func.func @widened
// CHECK: %[[Q:.*]] = arith.fptosi {{.*}} : vector<32xf32> to vector<32xi32>
// CHECK: %[[LO:.*]] = arith.maxsi %[[Q]], {{.*}} : vector<32xi32>
// CHECK: %[[HI:.*]] = arith.minsi %[[LO]], {{.*}} : vector<32xi32>
// CHECK: arith.trunci %[[HI]] : vector<32xi32> to vector<32xi16>
// CHECK-NOT: arith.extui
func.func @widened(%acc: tensor<64xi32>) -> tensor<64xi16> {
  %lo = arith.constant 0.0 : f32
  %hi = arith.constant 255.0 : f32
  %s = arith.constant 0.001 : f32
  %e = tensor.empty() : tensor<64xi16>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%acc : tensor<64xi32>) outs(%e : tensor<64xi16>) {
  ^bb0(%a: i32, %out: i16):
    %f = arith.sitofp %a : i32 to f32
    %v = arith.mulf %f, %s : f32
    %q = math.roundeven %v : f32
    %c0 = arith.maxnumf %q, %lo : f32
    %c1 = arith.minnumf %c0, %hi : f32
    %i = arith.fptosi %c1 : f32 to i32
    %t = arith.trunci %i : i32 to i8
    %w = arith.extui %t : i8 to i16
    linalg.yield %w : i16
  } -> tensor<64xi16>
  return %r : tensor<64xi16>
}

// -----

// A quantize's rounding, zero point and clamp in integers where the
// value rounded is within 2^30 (here |acc| <= 2^31 times 2^-12, plus 4,
// times 10: at most 5.3e6): fptosi(roundeven(v)) + zp, clamped with
// maxsi and minsi, then truncated; LLVM makes the clamp into a byte's
// range the saturating packs. The f32 ops it replaces are gone.

// CHECK-LABEL: func.func @integer_requantization
// CHECK: %[[R:.*]] = math.roundeven {{.*}} : vector<8xf32>
// CHECK: %[[Q:.*]] = arith.fptosi %[[R]] : vector<8xf32> to vector<8xi32>
// CHECK: %[[Z:.*]] = arith.addi %[[Q]], %{{.*}} : vector<8xi32>
// CHECK: %[[LO:.*]] = arith.maxsi %[[Z]], %{{.*}} : vector<8xi32>
// CHECK: %[[HI:.*]] = arith.minsi %[[LO]], %{{.*}} : vector<8xi32>
// CHECK: arith.trunci %[[HI]] : vector<8xi32> to vector<8xi8>
// CHECK-NOT: arith.maxnumf
// CHECK-NOT: arith.minnumf
// CHECK-LABEL: func.func @zero_point_zero
// CHECK: %[[Q:.*]] = arith.fptosi {{.*}} : vector<8xf32> to vector<8xi32>
// CHECK-NEXT: arith.maxsi %[[Q]]
func.func @integer_requantization(%acc: tensor<8x8xi32>) -> tensor<8x8xi8> {
  %scale = arith.constant dense<[2.44140625E-4, 1.0E-4, 1.25E-4, 6.25E-5, 2.0E-4, 1.5E-4, 1.25E-4, 6.25E-5]> : tensor<8xf32>
  %bias = arith.constant dense<[-4.0, 4.0, 1.0, 0.0, -4.0, 4.0, 1.0, 0.0]> : tensor<8xf32>
  %inverse = arith.constant 10.0 : f32
  %zp = arith.constant 3.0 : f32
  %lo = arith.constant 0.0 : f32
  %hi = arith.constant 255.0 : f32
  %e = tensor.empty() : tensor<8x8xi8>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%acc, %scale, %bias : tensor<8x8xi32>, tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8x8xi8>) {
  ^bb0(%a: i32, %s: f32, %b: f32, %out: i8):
    %f = arith.sitofp %a : i32 to f32
    %m = arith.mulf %f, %s : f32
    %y = arith.addf %m, %b : f32
    %v = arith.mulf %y, %inverse : f32
    %q = math.roundeven %v : f32
    %z = arith.addf %q, %zp : f32
    %c0 = arith.maxnumf %z, %lo : f32
    %c1 = arith.minnumf %c0, %hi : f32
    %i = arith.fptosi %c1 : f32 to i32
    %t = arith.trunci %i : i32 to i8
    linalg.yield %t : i8
  } -> tensor<8x8xi8>
  return %r : tensor<8x8xi8>
}

// A zero point of 0 adds nothing in integers (in f32, `x + 0.0` stays: it
// turns -0.0 into 0.0).
func.func @zero_point_zero(%acc: tensor<8x8xi32>) -> tensor<8x8xi8> {
  %inverse = arith.constant 1.0E-4 : f32
  %zp = arith.constant 0.0 : f32
  %lo = arith.constant 0.0 : f32
  %hi = arith.constant 255.0 : f32
  %e = tensor.empty() : tensor<8x8xi8>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%acc : tensor<8x8xi32>) outs(%e : tensor<8x8xi8>) {
  ^bb0(%a: i32, %out: i8):
    %f = arith.sitofp %a : i32 to f32
    %v = arith.mulf %f, %inverse : f32
    %q = math.roundeven %v : f32
    %z = arith.addf %q, %zp : f32
    %c0 = arith.maxnumf %z, %lo : f32
    %c1 = arith.minnumf %c0, %hi : f32
    %i = arith.fptosi %c1 : f32 to i32
    %t = arith.trunci %i : i32 to i8
    linalg.yield %t : i8
  } -> tensor<8x8xi8>
  return %r : tensor<8x8xi8>
}

// -----

// Values the interval does not bound within 2^30 (a full i32 times 5) keep
// the clamp in f32, where the conversion is defined.

// CHECK-LABEL: func.func @too_wide
// CHECK: arith.maxnumf
// CHECK: arith.minnumf
// CHECK: arith.fptosi
// CHECK-NOT: arith.maxsi
func.func @too_wide(%acc: tensor<64xi32>) -> tensor<64xi8> {
  %inverse = arith.constant 5.0 : f32
  %lo = arith.constant 0.0 : f32
  %hi = arith.constant 255.0 : f32
  %e = tensor.empty() : tensor<64xi8>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%acc : tensor<64xi32>) outs(%e : tensor<64xi8>) {
  ^bb0(%a: i32, %out: i8):
    %f = arith.sitofp %a : i32 to f32
    %v = arith.mulf %f, %inverse : f32
    %q = math.roundeven %v : f32
    %c0 = arith.maxnumf %q, %lo : f32
    %c1 = arith.minnumf %c0, %hi : f32
    %i = arith.fptosi %c1 : f32 to i32
    %t = arith.trunci %i : i32 to i8
    linalg.yield %t : i8
  } -> tensor<64xi8>
  return %r : tensor<64xi8>
}
