// RUN: fx-opt %s -split-input-file --pass-pipeline='builtin.module(fx-cpu-outline-parts{part-ops=6})' | FileCheck %s

// Runs of up to 6 ops (a loop nest counts its body): the first loop and
// the alloc after it, then one loop each. The buffer allocated in the
// first run is its callee's result and the later callees' argument; the
// function's argument is passed on. The constants and the workspace's
// view stay in the function (unused there now) and are recomputed in each
// callee that uses them, not passed.

// CHECK-LABEL: func.func @f(
// CHECK-SAME:    %[[X:.*]]: memref<64xf32>) -> memref<64xf32>
// CHECK:         %[[B:.*]] = call @f__part0(%[[X]]) : (memref<64xf32>) -> memref<64xf32>
// CHECK-NEXT:    call @f__part1(%[[B]]) : (memref<64xf32>) -> ()
// CHECK-NEXT:    call @f__part2(%[[B]]) : (memref<64xf32>) -> ()
// CHECK-NEXT:    return %[[B]] : memref<64xf32>

// CHECK-LABEL: func.func private @f__part0(
// CHECK-SAME:    %[[X0:.*]]: memref<64xf32>) -> memref<64xf32>
// CHECK:         %[[W0:.*]] = memref.get_global @f__fx_workspace
// CHECK:         %[[A0:.*]] = memref.view %[[W0]]
// CHECK:         scf.for
// CHECK:           memref.load %[[X0]]
// CHECK:           memref.store %{{.*}}, %[[A0]]
// CHECK:         %[[B0:.*]] = memref.alloc() : memref<64xf32>
// CHECK:         return %[[B0]] : memref<64xf32>

// CHECK-LABEL: func.func private @f__part1(
// CHECK-SAME:    %[[B1:.*]]: memref<64xf32>)
// CHECK-DAG:     memref.get_global @f__fx_workspace
// CHECK-DAG:     %[[TWO:.*]] = arith.constant 2.0{{.*}} : f32
// CHECK:         scf.for
// CHECK:           arith.mulf %{{.*}}, %[[TWO]]
// CHECK:           memref.store %{{.*}}, %[[B1]]
// CHECK:         return{{$}}

// CHECK-LABEL: func.func private @f__part2(
// CHECK-SAME:    %[[B2:.*]]: memref<64xf32>)
// CHECK:         memref.store %{{.*}}, %[[B2]]
// CHECK:         return{{$}}
memref.global "private" @f__fx_workspace : memref<256xi8> = uninitialized
func.func @f(%x: memref<64xf32>) -> memref<64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %two = arith.constant 2.0 : f32
  %w = memref.get_global @f__fx_workspace : memref<256xi8>
  %a = memref.view %w[%c0][] : memref<256xi8> to memref<64xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    %v = memref.load %x[%i] : memref<64xf32>
    memref.store %v, %a[%i] : memref<64xf32>
  }
  %b = memref.alloc() : memref<64xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    %v = memref.load %a[%i] : memref<64xf32>
    %d = arith.mulf %v, %two : f32
    memref.store %d, %b[%i] : memref<64xf32>
  }
  scf.for %i = %c0 to %c64 step %c1 {
    %v = memref.load %a[%i] : memref<64xf32>
    memref.store %v, %b[%i] : memref<64xf32>
  }
  return %b : memref<64xf32>
}

// -----

// A function under twice part-ops ops stays whole.

// CHECK-LABEL: func.func @small
// CHECK-NOT:     call
// CHECK:         memref.store
// CHECK-NOT:     func.func private
func.func @small(%x: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %v = memref.load %x[%c0] : memref<4xf32>
  memref.store %v, %x[%c0] : memref<4xf32>
  return
}
