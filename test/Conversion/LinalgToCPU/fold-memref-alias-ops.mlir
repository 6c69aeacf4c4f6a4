// RUN: fx-opt %s -split-input-file --pass-pipeline='builtin.module(fx-cpu-fold-memref-alias-ops)' | FileCheck %s

// A tile read across two dims of one reassociation group (16 channels x 1
// row x 16 columns of an NCHW view of [1, C, H * W]) stays a read of the
// view: MLIR 22's fold-memref-alias-ops folds it into a read of dims
// (0, 1, 2) of the source (16 batch rows of a unit batch dim).

// CHECK-LABEL: func.func @tile_across_group
// CHECK:       %[[E:.*]] = memref.expand_shape %{{.*}} {{\[\[}}0], [1], [2, 3]]
// CHECK:       vector.transfer_read %[[E]][%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}]
// CHECK-SAME:    memref<1x32x28x28xf32>, vector<16x1x16xf32>
func.func @tile_across_group(%m: memref<1x32x784xf32>, %c: index, %h: index) -> vector<16x1x16xf32> {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %e = memref.expand_shape %m [[0], [1], [2, 3]] output_shape [1, 32, 28, 28]
      : memref<1x32x784xf32> into memref<1x32x28x28xf32>
  %v = vector.transfer_read %e[%c0, %c, %h, %c0], %pad {in_bounds = [true, true, true]}
      : memref<1x32x28x28xf32>, vector<16x1x16xf32>
  return %v : vector<16x1x16xf32>
}

// -----

// Through a subview of the view too (the subview folds into the read, the
// read stays on the expand_shape).

// CHECK-LABEL: func.func @tile_of_subview
// CHECK:       %[[E:.*]] = memref.expand_shape
// CHECK-NOT:   memref.subview
// CHECK:       vector.transfer_read %[[E]]{{.*}} : memref<1x32x28x28xf32>, vector<16x1x16xf32>
func.func @tile_of_subview(%m: memref<1x32x784xf32>, %c: index, %h: index) -> vector<16x1x16xf32> {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %e = memref.expand_shape %m [[0], [1], [2, 3]] output_shape [1, 32, 28, 28]
      : memref<1x32x784xf32> into memref<1x32x28x28xf32>
  %s = memref.subview %e[0, %c, %h, 0] [1, 16, 1, 16] [1, 1, 1, 1]
      : memref<1x32x28x28xf32> to memref<1x16x1x16xf32, strided<[25088, 784, 28, 1], offset: ?>>
  %v = vector.transfer_read %s[%c0, %c0, %c0, %c0], %pad {in_bounds = [true, true, true]}
      : memref<1x16x1x16xf32, strided<[25088, 784, 28, 1], offset: ?>>, vector<16x1x16xf32>
  return %v : vector<16x1x16xf32>
}

// -----

// A row read along the innermost dim of its group folds: the read of the
// source at the linearized index reads the same 16 elements.

// CHECK-LABEL: func.func @row_in_group
// CHECK-SAME:    (%[[M:.*]]: memref<1x32x784xf32>, %[[C:.*]]: index, %[[H:.*]]: index)
// CHECK:       %[[I:.*]] = affine.linearize_index [%[[H]], %{{.*}}] by (28, 28)
// CHECK:       vector.transfer_read %[[M]][%{{.*}}, %[[C]], %[[I]]]
// CHECK-SAME:    memref<1x32x784xf32>, vector<16xf32>
func.func @row_in_group(%m: memref<1x32x784xf32>, %c: index, %h: index) -> vector<16xf32> {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %e = memref.expand_shape %m [[0], [1], [2, 3]] output_shape [1, 32, 28, 28]
      : memref<1x32x784xf32> into memref<1x32x28x28xf32>
  %v = vector.transfer_read %e[%c0, %c, %h, %c0], %pad {in_bounds = [true]}
      : memref<1x32x28x28xf32>, vector<16xf32>
  return %v : vector<16xf32>
}

// -----

// The same row read out of bounds stays: the view pads past the row's 28
// columns, the source would read on into the next row.

// CHECK-LABEL: func.func @row_out_of_bounds
// CHECK:       %[[E:.*]] = memref.expand_shape
// CHECK:       vector.transfer_read %[[E]]{{.*}} : memref<1x32x28x28xf32>, vector<16xf32>
func.func @row_out_of_bounds(%m: memref<1x32x784xf32>, %c: index, %h: index, %w: index) -> vector<16xf32> {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %e = memref.expand_shape %m [[0], [1], [2, 3]] output_shape [1, 32, 28, 28]
      : memref<1x32x784xf32> into memref<1x32x28x28xf32>
  %v = vector.transfer_read %e[%c0, %c, %h, %w], %pad
      : memref<1x32x28x28xf32>, vector<16xf32>
  return %v : vector<16xf32>
}

// -----

// A 2-D tile whose inner dim is a group of one dim (16 positions x 16
// channels of an NHWC view of [H * W, C]) folds.

// CHECK-LABEL: func.func @tile_of_singleton_groups
// CHECK-SAME:    (%[[M:.*]]: memref<784x32xf32>
// CHECK:       vector.transfer_read %[[M]]{{.*}} : memref<784x32xf32>, vector<16x16xf32>
func.func @tile_of_singleton_groups(%m: memref<784x32xf32>, %w: index, %c: index) -> vector<16x16xf32> {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %e = memref.expand_shape %m [[0, 1, 2], [3]] output_shape [1, 28, 28, 32]
      : memref<784x32xf32> into memref<1x28x28x32xf32>
  %v = vector.transfer_read %e[%c0, %c0, %w, %c], %pad {in_bounds = [true, true]}
      : memref<1x28x28x32xf32>, vector<16x16xf32>
  return %v : vector<16x16xf32>
}

// -----

// Upstream's other folds are kept: a load of a subview of a collapse_shape
// is a load of the source.

// CHECK-LABEL: func.func @load_of_views
// CHECK-SAME:    (%[[M:.*]]: memref<4x8xf32>
// CHECK-NOT:   memref.subview
// CHECK-NOT:   memref.collapse_shape
// CHECK:       memref.load %[[M]]
func.func @load_of_views(%m: memref<4x8xf32>, %i: index) -> f32 {
  %c = memref.collapse_shape %m [[0, 1]] : memref<4x8xf32> into memref<32xf32>
  %s = memref.subview %c[8] [16] [1] : memref<32xf32> to memref<16xf32, strided<[1], offset: 8>>
  %v = memref.load %s[%i] : memref<16xf32, strided<[1], offset: 8>>
  return %v : f32
}

// -----

// A masked tile across the group stays too; so does an n-D vector.load of
// the view (upstream folds it with the same wrong strides), while a 1-D
// vector.load of a subview still folds into a load of the view.

// CHECK-LABEL: func.func @masked_and_loads
// CHECK:       %[[E:.*]] = memref.expand_shape
// CHECK:       vector.transfer_read %[[E]]{{.*}}, %{{.*}} : memref<1x32x28x28xf32>, vector<16x1x16xf32>
// CHECK:       vector.load %[[E]]{{.*}} : memref<1x32x28x28xf32>, vector<2x16xf32>
func.func @masked_and_loads(%m: memref<1x32x784xf32>, %c: index, %h: index, %mask: vector<16x1x16xi1>) -> (vector<16x1x16xf32>, vector<2x16xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %e = memref.expand_shape %m [[0], [1], [2, 3]] output_shape [1, 32, 28, 28]
      : memref<1x32x784xf32> into memref<1x32x28x28xf32>
  %v = vector.transfer_read %e[%c0, %c, %h, %c0], %pad, %mask {in_bounds = [true, true, true]}
      : memref<1x32x28x28xf32>, vector<16x1x16xf32>
  %l = vector.load %e[%c0, %c, %h, %c0] : memref<1x32x28x28xf32>, vector<2x16xf32>
  return %v, %l : vector<16x1x16xf32>, vector<2x16xf32>
}
