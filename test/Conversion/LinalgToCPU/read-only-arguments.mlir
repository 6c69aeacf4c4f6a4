// RUN: fx-opt %s --pass-pipeline='builtin.module(func.func(fx-cpu-read-only-arguments),one-shot-bufferize{bufferize-function-boundaries})' | FileCheck %s

// slice_scatter / select_scatter lower to an insert_slice into the input:
// with the input marked not writable, bufferization writes into a copy,
// and the caller's tensor keeps its values (without the pass, the
// insert_slice writes into %x's buffer: no alloc, no copy of %x).

// CHECK-LABEL: func.func @insert(
// CHECK-SAME:      %[[X:[^:]*]]: memref<5xf32, {{[^>]*}}>>, %[[S:[^:]*]]: memref<1xf32
// CHECK:         %[[COPY:.*]] = memref.alloc() {{.*}} : memref<5xf32>
// CHECK:         memref.copy %[[X]], %[[COPY]]
// CHECK:         %[[AT:.*]] = memref.subview %[[COPY]][2] [1] [1]
// CHECK:         memref.copy %[[S]], %[[AT]]
// CHECK:         return %[[COPY]]
func.func @insert(%x: tensor<5xf32>, %s: tensor<1xf32>) -> tensor<5xf32> {
  %r = tensor.insert_slice %s into %x[2] [1] [1] : tensor<1xf32> into tensor<5xf32>
  return %r : tensor<5xf32>
}

// Scalars and other arguments are left alone.

// CHECK-LABEL: func.func @scalar(
// CHECK-SAME:      %{{.*}}: f32) -> f32
func.func @scalar(%x: f32) -> f32 {
  return %x : f32
}
