// RUN: fx-opt %s -split-input-file --convert-fx-to-linalg | FileCheck %s

// Factorizations as loops over tensor elements (Factorizations.cpp).

// linalg_det: LU in getf2's order per batch item: the pivot row is the
// first of the largest |a[i, k]| (i >= k), rows swapped, the column below
// divided by the pivot, the trailing matrix updated; then the product of
// U's diagonal times the permutation's sign.

// CHECK-LABEL: func.func @forward(
// CHECK:         %[[LU:.*]]:3 = scf.for %{{.*}} = %c0 to %c2 {{.*}} -> (tensor<2x3x3xf32>, tensor<2x3xi32>, tensor<2xi32>)
// CHECK:           scf.for %[[K:.*]] = %c0 to %c3
// CHECK:             scf.for %{{.*}} = %[[K]] to %c3 {{.*}} -> (f32, index)
// CHECK:               math.absf
// CHECK:               arith.cmpf ogt
// CHECK:             arith.cmpf une
// CHECK:             arith.divf
// CHECK:               arith.mulf
// CHECK:               arith.subf
// CHECK:         %[[D:.*]]:3 = scf.for {{.*}} -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
// CHECK:           scf.for {{.*}} -> (f32, f32, f32, f32)
// CHECK:             tensor.extract %[[LU]]#0
// CHECK:             tensor.extract %[[LU]]#1
// CHECK:         return %[[D]]#0 : tensor<2xf32>
fx.graph_module @Det {
  fx.graph @forward {
    %a = fx.placeholder "a" : tensor<2x3x3xf32>
    %d = fx.call_function "aten::linalg_det"(%a) : (tensor<2x3x3xf32>) -> tensor<2xf32>
    fx.output %d : tensor<2xf32>
  }
}

// -----

// linalg_solve: the LU, then per batch item the row swaps, the forward
// substitution with L's unit diagonal and the backward one dividing by
// U's diagonal; a zero pivot (info != 0) is reported as the code runs.

// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    attributes {fx.checks = [{{.*}}The solver failed because the input matrix is singular.{{.*}}]
// CHECK:         %[[LU:.*]]:3 = scf.for
// CHECK:         scf.for {{.*}} -> (tensor<1x4x2xf32>)
// CHECK:           tensor.extract %[[LU]]#1
// CHECK:           arith.divf
// CHECK:         arith.cmpi ne
fx.graph_module @Solve {
  fx.graph @forward {
    %a = fx.placeholder "a" : tensor<4x4xf32>
    %b = fx.placeholder "b" : tensor<4x2xf32>
    %x = fx.call_function "aten::linalg_solve"(%a, %b) : (tensor<4x4xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
    fx.output %x : tensor<4x2xf32>
  }
}

// -----

// linalg_cholesky_ex(upper=True): potf2 column by column (sqrt of the
// pivot, the column below divided by it), info the first pivot that is
// not positive; the factor transposed.

// CHECK-LABEL: func.func @forward(
// CHECK:         %[[L:.*]]:2 = scf.for {{.*}} -> (tensor<1x3x3xf32>, tensor<1xi32>)
// CHECK:           arith.cmpf ule
// CHECK:           math.sqrt
// CHECK:           arith.divf
// CHECK:         linalg.transpose ins(%[[L]]#0 : tensor<1x3x3xf32>) {{.*}} permutation = [0, 2, 1]
fx.graph_module @Cholesky {
  fx.graph @forward {
    %a = fx.placeholder "a" : tensor<3x3xf32>
    %r = fx.call_function "aten::linalg_cholesky_ex"(%a, upper=True) : (tensor<3x3xf32>) -> tuple<tensor<3x3xf32>, tensor<i32>>
    %l = fx.call_function "operator.getitem"(%r, 0) : (tuple<tensor<3x3xf32>, tensor<i32>>) -> tensor<3x3xf32>
    %i = fx.call_function "operator.getitem"(%r, 1) : (tuple<tensor<3x3xf32>, tensor<i32>>) -> tensor<i32>
    fx.output (%l, %i) : tensor<3x3xf32>, tensor<i32>
  }
}

// -----

// linalg_solve_triangular(upper=True, unitriangular=True): backward
// substitution, row i = 2 - r, summing over the columns j > i; no
// division by the (unit) diagonal.

// CHECK-LABEL: func.func @forward(
// CHECK:         scf.for %{{.*}} = %c0 to %c1 {{.*}} -> (tensor<1x3x2xf32>)
// CHECK:           scf.for %[[R:.*]] = %c0 to %c3
// CHECK:             %[[I:.*]] = arith.subi %c2, %[[R]] : index
// CHECK:             %[[NEXT:.*]] = arith.addi %[[I]], %c1 : index
// CHECK:               scf.for %{{.*}} = %[[NEXT]] to %c3 {{.*}} -> (f32)
// CHECK:                 arith.mulf
// CHECK:                 arith.subf
// CHECK-NOT:           arith.divf
// CHECK:               tensor.insert
fx.graph_module @SolveTriangular {
  fx.graph @forward {
    %a = fx.placeholder "a" : tensor<3x3xf32>
    %b = fx.placeholder "b" : tensor<3x2xf32>
    %x = fx.call_function "aten::linalg_solve_triangular"(%a, %b, upper=True, unitriangular=True) : (tensor<3x3xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
    fx.output %x : tensor<3x2xf32>
  }
}
