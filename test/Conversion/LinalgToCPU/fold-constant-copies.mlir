// RUN: fx-opt %s --pass-pipeline='builtin.module(func.func(fx-cpu-fold-constant-copies))' | FileCheck %s

// Static slices and transposes of a constant (nn.MultiheadAttention's query, key and value
// weights out of in_proj_weight) become constants holding their elements:
// rows, strided columns, a rank-reducing row; the sliced constant goes
// once nothing else reads it. A slice with a dynamic offset stays. The
// blob is the 3x4 matrix 0, 1, ..., 11.

// CHECK-LABEL: func.func @slices
// CHECK-DAG: %[[ROWS:.*]] = arith.constant dense_resource<slice{{.*}}> : tensor<2x4xf32>
// CHECK-DAG: %[[COLS:.*]] = arith.constant dense_resource<slice{{.*}}> : tensor<3x2xf32>
// CHECK-DAG: %[[ROW:.*]] = arith.constant dense_resource<slice{{.*}}> : tensor<4xf32>
// CHECK-NOT: tensor.extract_slice
// CHECK-NOT: dense_resource<w>
// CHECK: return %[[ROWS]], %[[COLS]], %[[ROW]]
func.func @slices() -> (tensor<2x4xf32>, tensor<3x2xf32>, tensor<4xf32>) {
  %w = arith.constant dense_resource<w> : tensor<3x4xf32>
  %rows = tensor.extract_slice %w[1, 0] [2, 4] [1, 1] : tensor<3x4xf32> to tensor<2x4xf32>
  %cols = tensor.extract_slice %w[0, 1] [3, 2] [1, 2] : tensor<3x4xf32> to tensor<3x2xf32>
  %row = tensor.extract_slice %w[2, 0] [1, 4] [1, 1] : tensor<3x4xf32> to tensor<4xf32>
  return %rows, %cols, %row : tensor<2x4xf32>, tensor<3x2xf32>, tensor<4xf32>
}

// A transpose of a constant, and a transpose of a slice of one.
// CHECK-LABEL: func.func @transposes
// CHECK-DAG: %[[T:.*]] = arith.constant dense_resource<transposed{{.*}}> : tensor<4x3xf32>
// CHECK-DAG: %[[TS:.*]] = arith.constant dense_resource<transposed{{.*}}> : tensor<2x3xf32>
// CHECK-NOT: linalg.transpose
// CHECK: return %[[T]], %[[TS]]
func.func @transposes() -> (tensor<4x3xf32>, tensor<2x3xf32>) {
  %w = arith.constant dense_resource<w> : tensor<3x4xf32>
  %e = tensor.empty() : tensor<4x3xf32>
  %t = linalg.transpose ins(%w : tensor<3x4xf32>) outs(%e : tensor<4x3xf32>) permutation = [1, 0]
  %cols = tensor.extract_slice %w[0, 1] [3, 2] [1, 2] : tensor<3x4xf32> to tensor<3x2xf32>
  %e2 = tensor.empty() : tensor<2x3xf32>
  %ts = linalg.transpose ins(%cols : tensor<3x2xf32>) outs(%e2 : tensor<2x3xf32>) permutation = [1, 0]
  return %t, %ts : tensor<4x3xf32>, tensor<2x3xf32>
}

// CHECK-LABEL: func.func @dynamic
// CHECK: %[[W:.*]] = arith.constant dense_resource<w> : tensor<3x4xf32>
// CHECK: tensor.extract_slice %[[W]][%{{.*}}, 0] [1, 4] [1, 1]
func.func @dynamic(%i: index) -> tensor<1x4xf32> {
  %w = arith.constant dense_resource<w> : tensor<3x4xf32>
  %row = tensor.extract_slice %w[%i, 0] [1, 4] [1, 1] : tensor<3x4xf32> to tensor<1x4xf32>
  return %row : tensor<1x4xf32>
}

// The slices' elements: rows 1-2 (4..11), columns 1 and 3 (1, 3, 5, 7, 9,
// 11), row 2 (8..11).
// CHECK: dialect_resources
// CHECK-DAG: slice{{.*}}: "0x04000000000080400000A0400000C0400000E04000000041000010410000204100003041"
// CHECK-DAG: slice{{.*}}: "0x040000000000803F000040400000A0400000E0400000104100003041"
// CHECK-DAG: slice{{.*}}: "0x0400000000000041000010410000204100003041"
// The transpose: columns 0..3 as rows (0 4 8, 1 5 9, 2 6 10, 3 7 11); the
// transposed columns 1 and 3 (1 5 9, 3 7 11).
// CHECK-DAG: transposed{{.*}}: "0x040000000000000000008040000000410000803F0000A04000001041000000400000C04000002041000040400000E04000003041"
// CHECK-DAG: transposed{{.*}}: "0x040000000000803F0000A04000001041000040400000E04000003041"

{-#
  dialect_resources: {
    builtin: {
      w: "0x04000000000000000000803F0000004000004040000080400000A0400000C0400000E04000000041000010410000204100003041"
    }
  }
#-}
