// RUN: fx-opt %s --fx-cpu-byte-bools | FileCheck %s

// A bool tensor holds a byte per element, but LLVM lays a vector of i1 out
// as packed bits: fx-cpu-byte-bools reads and writes such vectors as
// bytes, with a truncation or zero extension. Other vectors are left as
// they are.

// CHECK-LABEL: llvm.func @copy(
// CHECK-SAME:    %[[SRC:.*]]: !llvm.ptr, %[[DST:.*]]: !llvm.ptr)
// CHECK:         %[[BYTES:.*]] = llvm.load %[[SRC]] {alignment = 1 : i64} : !llvm.ptr -> vector<16xi8>
// CHECK:         %[[BITS:.*]] = llvm.trunc %[[BYTES]] : vector<16xi8> to vector<16xi1>
// CHECK:         %[[NOT:.*]] = llvm.xor %[[BITS]], %{{.*}} : vector<16xi1>
// CHECK:         %[[OUT:.*]] = llvm.zext %[[NOT]] : vector<16xi1> to vector<16xi8>
// CHECK:         llvm.store %[[OUT]], %[[DST]] {alignment = 1 : i64} : vector<16xi8>, !llvm.ptr
// CHECK:         llvm.load %[[SRC]] : !llvm.ptr -> vector<4xf32>
llvm.func @copy(%src: !llvm.ptr, %dst: !llvm.ptr) {
  %v = llvm.load %src {alignment = 1 : i64} : !llvm.ptr -> vector<16xi1>
  %ones = llvm.mlir.constant(dense<true> : vector<16xi1>) : vector<16xi1>
  %n = llvm.xor %v, %ones : vector<16xi1>
  llvm.store %n, %dst {alignment = 1 : i64} : vector<16xi1>, !llvm.ptr
  %f = llvm.load %src : !llvm.ptr -> vector<4xf32>
  llvm.store %f, %dst : vector<4xf32>, !llvm.ptr
  llvm.return
}

// CHECK-LABEL: llvm.func @masked(
// CHECK:         %[[PASS:.*]] = llvm.zext %{{.*}} : vector<8xi1> to vector<8xi8>
// CHECK:         %[[BYTES:.*]] = llvm.intr.masked.load %{{.*}}, %{{.*}}, %[[PASS]] {alignment = 1 : i32} : (!llvm.ptr, vector<8xi1>, vector<8xi8>) -> vector<8xi8>
// CHECK:         %[[BITS:.*]] = llvm.trunc %[[BYTES]] : vector<8xi8> to vector<8xi1>
// CHECK:         %[[OUT:.*]] = llvm.zext %[[BITS]] : vector<8xi1> to vector<8xi8>
// CHECK:         llvm.intr.masked.store %[[OUT]], %{{.*}}, %{{.*}} {alignment = 1 : i32} : vector<8xi8>, vector<8xi1> into !llvm.ptr
llvm.func @masked(%src: !llvm.ptr, %dst: !llvm.ptr, %mask: vector<8xi1>, %pass: vector<8xi1>) {
  %v = llvm.intr.masked.load %src, %mask, %pass {alignment = 1 : i32} : (!llvm.ptr, vector<8xi1>, vector<8xi1>) -> vector<8xi1>
  llvm.intr.masked.store %v, %dst, %mask {alignment = 1 : i32} : vector<8xi1>, vector<8xi1> into !llvm.ptr
  llvm.return
}
