// RUN: fx-opt %s --pass-pipeline='builtin.module(func.func(fx-cpu-split-deallocs))' > %t.mlir
// RUN: FileCheck %s < %t.mlir
// RUN: grep -c bufferization.dealloc %t.mlir | FileCheck %s --check-prefix=DEALLOCS
// RUN: grep -c arith.ori %t.mlir | FileCheck %s --check-prefix=ORS
// 17 + 1 (@few) deallocs, 16 ors.
// DEALLOCS: {{^}}18{{$}}
// ORS: {{^}}16{{$}}

// A dealloc of 16 buffers or more: one per memref.alloc, one of the rest
// (an argument's buffer), each retaining the same value; the retained
// value's ownership is the `or` of theirs.
// CHECK-LABEL: func.func @many
// CHECK: bufferization.dealloc (%{{.*}} : memref<4xf32>) if (%{{.*}}) retain (%arg0 : memref<4xf32>)
// CHECK: bufferization.dealloc (%arg1 : memref<4xf32>) if (%{{.*}}) retain (%arg0 : memref<4xf32>)
// CHECK: %[[OWNED:.*]] = arith.ori
// CHECK-NEXT: return %[[OWNED]]
func.func @many(%r: memref<4xf32>, %x: memref<4xf32>, %c: i1) -> i1 {
  %a0 = memref.alloc() : memref<4xf32>
  %a1 = memref.alloc() : memref<4xf32>
  %a2 = memref.alloc() : memref<4xf32>
  %a3 = memref.alloc() : memref<4xf32>
  %a4 = memref.alloc() : memref<4xf32>
  %a5 = memref.alloc() : memref<4xf32>
  %a6 = memref.alloc() : memref<4xf32>
  %a7 = memref.alloc() : memref<4xf32>
  %a8 = memref.alloc() : memref<4xf32>
  %a9 = memref.alloc() : memref<4xf32>
  %a10 = memref.alloc() : memref<4xf32>
  %a11 = memref.alloc() : memref<4xf32>
  %a12 = memref.alloc() : memref<4xf32>
  %a13 = memref.alloc() : memref<4xf32>
  %a14 = memref.alloc() : memref<4xf32>
  %a15 = memref.alloc() : memref<4xf32>
  %o = bufferization.dealloc (%a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7, %a8, %a9, %a10, %a11, %a12, %a13, %a14, %a15, %x : memref<4xf32>, memref<4xf32>, memref<4xf32>, memref<4xf32>, memref<4xf32>, memref<4xf32>, memref<4xf32>, memref<4xf32>, memref<4xf32>, memref<4xf32>, memref<4xf32>, memref<4xf32>, memref<4xf32>, memref<4xf32>, memref<4xf32>, memref<4xf32>, memref<4xf32>) if (%c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c) retain (%r : memref<4xf32>)
  return %o : i1
}

// Fewer buffers: left as they are.
// CHECK-LABEL: func.func @few
// CHECK: bufferization.dealloc (%{{.*}}, %{{.*}} : memref<4xf32>, memref<4xf32>)
// CHECK-NOT: arith.ori
func.func @few(%r: memref<4xf32>, %c: i1) -> i1 {
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  %o = bufferization.dealloc (%a, %b : memref<4xf32>, memref<4xf32>) if (%c, %c) retain (%r : memref<4xf32>)
  return %o : i1
}
