// RUN: fx-opt %s -split-input-file --pass-pipeline='builtin.module(fx-cpu-plan-workspace)' | FileCheck %s

// %a (512 KiB) and %b (600 KiB) live at the same time: they get different
// offsets, the larger first. %c starts after both are freed: offset 0
// again. The small buffer (under 512 KiB) and the dynamic one keep malloc.

// CHECK:      memref.global "private" @f__fx_workspace : memref<1138688xi8> = uninitialized {alignment = 64 : i64}
// CHECK-LABEL: func.func @f
// CHECK:      %[[W:.*]] = memref.get_global @f__fx_workspace : memref<1138688xi8>
// CHECK:      %[[A:.*]] = memref.view %[[W]][%c614400{{.*}}][] : memref<1138688xi8> to memref<131072xf32>
// CHECK:      %[[B:.*]] = memref.view %[[W]][%c0{{.*}}][] : memref<1138688xi8> to memref<512x300xf32>
// CHECK:      %[[S:.*]] = memref.alloc() : memref<64xf32>
// CHECK:      %[[C:.*]] = memref.view %[[W]][%c0{{.*}}][] : memref<1138688xi8> to memref<131072xi32>
// CHECK:      %[[D:.*]] = memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK-NOT:  memref.dealloc %[[A]]
// CHECK-NOT:  memref.dealloc %[[B]]
// CHECK-NOT:  memref.dealloc %[[C]]
// CHECK:      memref.dealloc %[[D]]
func.func @f(%n: index, %out: memref<131072xf32>) {
  %zero = arith.constant 0.0 : f32
  %i0 = arith.constant 0 : i32
  %a = memref.alloc() : memref<131072xf32>
  %b = memref.alloc() : memref<512x300xf32>
  linalg.fill ins(%zero : f32) outs(%a : memref<131072xf32>)
  linalg.fill ins(%zero : f32) outs(%b : memref<512x300xf32>)
  linalg.copy ins(%a : memref<131072xf32>) outs(%out : memref<131072xf32>)
  memref.dealloc %a : memref<131072xf32>
  memref.dealloc %b : memref<512x300xf32>
  %s = memref.alloc() : memref<64xf32>
  linalg.fill ins(%zero : f32) outs(%s : memref<64xf32>)
  memref.dealloc %s : memref<64xf32>
  %c = memref.alloc() : memref<131072xi32>
  linalg.fill ins(%i0 : i32) outs(%c : memref<131072xi32>)
  memref.dealloc %c : memref<131072xi32>
  %d = memref.alloc(%n) : memref<?xf32>
  linalg.fill ins(%zero : f32) outs(%d : memref<?xf32>)
  memref.dealloc %d : memref<?xf32>
  return
}

// -----

// A single large buffer goes to the workspace too: malloc would map fresh
// pages for it on many calls.

// CHECK:       memref.global "private" @one__fx_workspace : memref<524288xi8> = uninitialized {alignment = 64 : i64}
// CHECK-LABEL: func.func @one
// CHECK-NOT:   memref.alloc
// CHECK:       memref.view
// CHECK-NOT:   memref.dealloc
func.func @one(%out: memref<64xf32>) {
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<131072xf32>
  linalg.fill ins(%zero : f32) outs(%a : memref<131072xf32>)
  memref.dealloc %a : memref<131072xf32>
  return
}
