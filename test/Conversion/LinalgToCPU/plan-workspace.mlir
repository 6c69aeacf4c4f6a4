// RUN: fx-opt %s -split-input-file --pass-pipeline='builtin.module(fx-cpu-plan-workspace)' | FileCheck %s

// %a (256 bytes) and %b (64 bytes, rounded up) live at the same time: they
// get different offsets. %c starts after both are freed: offset 0 again.
// The dynamic alloc keeps its malloc.

// CHECK:      memref.global "private" @f__fx_workspace : memref<320xi8> = uninitialized {alignment = 64 : i64}
// CHECK-LABEL: func.func @f
// CHECK:      %[[W:.*]] = memref.get_global @f__fx_workspace : memref<320xi8>
// CHECK:      %[[A:.*]] = memref.view %[[W]][%c0{{.*}}][] : memref<320xi8> to memref<64xf32>
// CHECK:      %[[B:.*]] = memref.view %[[W]][%c256{{.*}}][] : memref<320xi8> to memref<4x2xf32>
// CHECK:      %[[C:.*]] = memref.view %[[W]][%c0{{.*}}][] : memref<320xi8> to memref<16xi32>
// CHECK:      %[[D:.*]] = memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK-NOT:  memref.dealloc %[[A]]
// CHECK-NOT:  memref.dealloc %[[B]]
// CHECK-NOT:  memref.dealloc %[[C]]
// CHECK:      memref.dealloc %[[D]]
func.func @f(%n: index, %out: memref<64xf32>) {
  %zero = arith.constant 0.0 : f32
  %i0 = arith.constant 0 : i32
  %a = memref.alloc() : memref<64xf32>
  %b = memref.alloc() : memref<4x2xf32>
  linalg.fill ins(%zero : f32) outs(%a : memref<64xf32>)
  linalg.fill ins(%zero : f32) outs(%b : memref<4x2xf32>)
  linalg.copy ins(%a : memref<64xf32>) outs(%out : memref<64xf32>)
  memref.dealloc %a : memref<64xf32>
  memref.dealloc %b : memref<4x2xf32>
  %c = memref.alloc() : memref<16xi32>
  linalg.fill ins(%i0 : i32) outs(%c : memref<16xi32>)
  memref.dealloc %c : memref<16xi32>
  %d = memref.alloc(%n) : memref<?xf32>
  linalg.fill ins(%zero : f32) outs(%d : memref<?xf32>)
  memref.dealloc %d : memref<?xf32>
  return
}

// -----

// A single buffer is left to malloc: nothing to share.

// CHECK-LABEL: func.func @one
// CHECK-NOT:  memref.global
// CHECK:      memref.alloc() : memref<64xf32>
func.func @one(%out: memref<64xf32>) {
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<64xf32>
  linalg.fill ins(%zero : f32) outs(%a : memref<64xf32>)
  memref.dealloc %a : memref<64xf32>
  return
}
