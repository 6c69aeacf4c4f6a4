// RUN: fx-opt %s --fx-cpu-share-constants | FileCheck %s

// Constants whose resource blobs hold the same bytes at the same type take
// the first one's attribute, across functions (each unrolled step of an
// LSTM packs its w_hh anew); other bytes, another type of the same bytes,
// and dense (not resource) attributes are left as they are.

// CHECK-LABEL: func.func @first
// CHECK: arith.constant dense_resource<w> : tensor<2xf32>
// CHECK-LABEL: func.func @second
// CHECK: %[[A:.*]] = arith.constant dense_resource<w> : tensor<2xf32>
// CHECK: %[[B:.*]] = arith.constant dense_resource<w> : tensor<2xf32>
// CHECK: %[[C:.*]] = arith.constant dense_resource<other> : tensor<2xf32>
// CHECK: %[[D:.*]] = arith.constant dense_resource<as_i32> : tensor<2xi32>
// CHECK: %[[E:.*]] = arith.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NOT: w_copy
func.func @first() -> tensor<2xf32> {
  %w = arith.constant dense_resource<w> : tensor<2xf32>
  return %w : tensor<2xf32>
}

func.func @second() -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xi32>, tensor<2xf32>) {
  %a = arith.constant dense_resource<w_copy> : tensor<2xf32>
  %b = arith.constant dense_resource<w_copy_2> : tensor<2xf32>
  %c = arith.constant dense_resource<other> : tensor<2xf32>
  %d = arith.constant dense_resource<as_i32> : tensor<2xi32>
  %e = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  return %a, %b, %c, %d, %e : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xi32>, tensor<2xf32>
}

{-#
  dialect_resources: {
    builtin: {
      w: "0x040000000000803F00000040",
      w_copy: "0x040000000000803F00000040",
      w_copy_2: "0x040000000000803F00000040",
      other: "0x040000000000803F00004040",
      as_i32: "0x040000000000803F00000040"
    }
  }
#-}
