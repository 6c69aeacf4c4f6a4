// RUN: fx-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(fx-cpu-shorten-buffer-lifetimes))' | FileCheck %s

// Each buffer is allocated just before its first use and freed just after
// its last, so %b can take %a's memory.

// CHECK-LABEL: func.func @chain
// CHECK:      %[[A:.*]] = memref.alloc() : memref<64xf32>
// CHECK-NEXT: linalg.fill {{.*}} outs(%[[A]]
// CHECK-NEXT: linalg.copy ins(%[[A]] {{.*}} outs(%[[OUT:.*]] :
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK-NEXT: %[[B:.*]] = memref.alloc() : memref<64xf32>
// CHECK-NEXT: linalg.fill {{.*}} outs(%[[B]]
// CHECK-NEXT: linalg.copy ins(%[[B]] {{.*}} outs(%[[OUT]] :
// CHECK-NEXT: memref.dealloc %[[B]]
// CHECK-NEXT: return
func.func @chain(%out: memref<64xf32>) {
  %c0 = arith.constant 0.0 : f32
  %c1 = arith.constant 1.0 : f32
  %a = memref.alloc() : memref<64xf32>
  %b = memref.alloc() : memref<64xf32>
  linalg.fill ins(%c0 : f32) outs(%a : memref<64xf32>)
  linalg.copy ins(%a : memref<64xf32>) outs(%out : memref<64xf32>)
  linalg.fill ins(%c1 : f32) outs(%b : memref<64xf32>)
  linalg.copy ins(%b : memref<64xf32>) outs(%out : memref<64xf32>)
  memref.dealloc %a : memref<64xf32>
  memref.dealloc %b : memref<64xf32>
  return
}

// -----

// A use through a view, inside a loop, keeps the buffer alive to the end
// of the loop.

// CHECK-LABEL: func.func @alias_in_loop
// CHECK:      %[[A:.*]] = memref.alloc() : memref<4x16xf32>
// CHECK-NEXT: linalg.fill
// CHECK-NEXT: %[[V:.*]] = memref.collapse_shape %[[A]]
// CHECK-NEXT: scf.for
// CHECK:        memref.load %[[V]]
// CHECK:      }
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK-NEXT: memref.store
// CHECK-NEXT: return
func.func @alias_in_loop(%out: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<4x16xf32>
  linalg.fill ins(%zero : f32) outs(%a : memref<4x16xf32>)
  %v = memref.collapse_shape %a [[0, 1]] : memref<4x16xf32> into memref<64xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    %x = memref.load %v[%i] : memref<64xf32>
    memref.store %x, %out[%i] : memref<64xf32>
  }
  memref.store %zero, %out[%c0] : memref<64xf32>
  memref.dealloc %a : memref<4x16xf32>
  return
}

// -----

// An alloc whose size is computed stays after that computation: it is not
// moved; its dealloc still moves up.

// CHECK-LABEL: func.func @dynamic
// CHECK:      %[[A:.*]] = memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK-NEXT: memref.store
// CHECK-NEXT: linalg.fill ins(%{{.*}}) outs(%[[A]]
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK-NEXT: memref.store
func.func @dynamic(%n: index, %out: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc(%n) : memref<?xf32>
  memref.store %zero, %out[%c0] : memref<64xf32>
  linalg.fill ins(%zero : f32) outs(%a : memref<?xf32>)
  memref.store %zero, %out[%c0] : memref<64xf32>
  memref.dealloc %a : memref<?xf32>
  return
}

// -----

// A dealloc in another block (conditional) is left where it is.

// CHECK-LABEL: func.func @conditional
// CHECK:      scf.if
// CHECK-NEXT:   memref.dealloc
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @conditional(%c: i1, %out: memref<64xf32>) {
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<64xf32>
  linalg.fill ins(%zero : f32) outs(%a : memref<64xf32>)
  linalg.copy ins(%a : memref<64xf32>) outs(%out : memref<64xf32>)
  linalg.fill ins(%zero : f32) outs(%out : memref<64xf32>)
  scf.if %c {
    memref.dealloc %a : memref<64xf32>
  }
  return
}

// -----

// A buffer allocated and freed in each iteration of an scf.for is
// allocated once, around the loop nest; one in an scf.forall (a thread's
// own) stays.

// CHECK-LABEL: func.func @loops
// CHECK:      %[[A:.*]] = memref.alloc() : memref<64xf32>
// CHECK-NEXT: scf.for
// CHECK-NEXT:   scf.for
// CHECK-NEXT:     linalg.fill {{.*}} outs(%[[A]]
// CHECK-NEXT:     linalg.copy ins(%[[A]]
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK-NEXT: scf.forall
// CHECK-NEXT:   %[[B:.*]] = memref.alloc() : memref<64xf32>
// CHECK-NEXT:   linalg.fill {{.*}} outs(%[[B]]
// CHECK-NEXT:   memref.dealloc %[[B]]
func.func @loops(%out: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c4 step %c1 {
      %a = memref.alloc() : memref<64xf32>
      linalg.fill ins(%zero : f32) outs(%a : memref<64xf32>)
      linalg.copy ins(%a : memref<64xf32>) outs(%out : memref<64xf32>)
      memref.dealloc %a : memref<64xf32>
    }
  }
  scf.forall (%k) in (4) {
    %b = memref.alloc() : memref<64xf32>
    linalg.fill ins(%zero : f32) outs(%b : memref<64xf32>)
    memref.dealloc %b : memref<64xf32>
  }
  return
}
