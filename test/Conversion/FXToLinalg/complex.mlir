// RUN: fx-opt %s -split-input-file --convert-fx-to-linalg | FileCheck %s
// RUN: fx-opt %s -split-input-file --convert-fx-to-linalg \
// RUN:   --one-shot-bufferize="bufferize-function-boundaries" \
// RUN:   --convert-linalg-to-loops --convert-complex-to-standard \
// RUN:   | FileCheck %s --check-prefix=PARTS

// Complex tensors (Complex.cpp): tensors of complex<f32>, computed with the
// complex dialect, which convert-complex-to-standard turns into arith and
// math on the two parts.

// A float tensor times a complex one: the float element becomes the real
// part (imaginary 0). A Python complex number is a complex.constant; exp
// and abs are the complex dialect's, abs with a real result.
// CHECK-LABEL: func.func @forward(
// CHECK-SAME:      %[[X:.*]]: tensor<3x4xcomplex<f32>>, %[[Y:.*]]: tensor<4xf32>)
// CHECK-DAG:     %[[C:.*]] = complex.constant [1.000000e+00 : f32, -2.000000e+00 : f32] : complex<f32>
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         linalg.generic {{.*}} ins(%[[X]], %[[Y]] : tensor<3x4xcomplex<f32>>, tensor<4xf32>)
// CHECK:         ^bb0(%[[A:.*]]: complex<f32>, %[[B:.*]]: f32, %{{.*}}: complex<f32>):
// CHECK:           %[[BC:.*]] = complex.create %[[B]], %[[ZERO]] : complex<f32>
// CHECK:           complex.mul %[[A]], %[[BC]] : complex<f32>
// CHECK:         linalg.generic
// CHECK:           complex.add %{{.*}}, %[[C]] : complex<f32>
// CHECK:         %[[E:.*]] = linalg.generic
// CHECK:           complex.exp
// CHECK:         %[[ABS:.*]] = linalg.generic {{.*}} ins(%[[E]] : tensor<3x4xcomplex<f32>>) outs(%{{.*}} : tensor<3x4xf32>)
// CHECK:           complex.abs %{{.*}} : complex<f32>
// CHECK:         return %[[E]], %[[ABS]] : tensor<3x4xcomplex<f32>>, tensor<3x4xf32>
// After bufferization and loops, no complex arithmetic is left: the parts
// are read (complex.re/im) and the results built (complex.create).
// PARTS-LABEL: func.func @forward(
// PARTS-NOT:     complex.mul
// PARTS-NOT:     complex.exp
// PARTS-NOT:     complex.abs
// PARTS:         math.exp
// PARTS:         return
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<3x4xcomplex<f32>>
    %y = fx.placeholder "y" : tensor<4xf32>
    %m = fx.call_function "aten::mul.Tensor"(%x, %y) : (tensor<3x4xcomplex<f32>>, tensor<4xf32>) -> tensor<3x4xcomplex<f32>>
    %a = fx.call_function "aten::add.Scalar"(%m, complex(1.0, -2.0), 1) : (tensor<3x4xcomplex<f32>>) -> tensor<3x4xcomplex<f32>>
    %e = fx.call_function "aten::exp"(%a) : (tensor<3x4xcomplex<f32>>) -> tensor<3x4xcomplex<f32>>
    %b = fx.call_function "aten::abs"(%e) : (tensor<3x4xcomplex<f32>>) -> tensor<3x4xf32>
    fx.output (%e, %b) : tensor<3x4xcomplex<f32>>, tensor<3x4xf32>
  }
}

// -----

// view_as_real: a last dim of 2, element 0 the real part and 1 the
// imaginary one; view_as_complex reads them back from elements 0 and 1.
// mm: complex multiply-adds over k into a zero-filled result; sum over
// dim 0 adds complex numbers; eq compares both parts.
// CHECK-DAG:   #[[RE:.*]] = affine_map<(d0, d1) -> (d0, d1, 0)>
// CHECK-DAG:   #[[IM:.*]] = affine_map<(d0, d1) -> (d0, d1, 1)>
// CHECK-LABEL: func.func @forward(
// CHECK-DAG:     %[[I:.*]] = complex.constant [0.000000e+00 : f32, 1.000000e+00 : f32] : complex<f32>
// CHECK-DAG:     %[[Z:.*]] = complex.constant [0.000000e+00 : f32, 0.000000e+00 : f32] : complex<f32>
// CHECK:         %[[R:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<3x4x2xf32>)
// CHECK:           %[[WHICH:.*]] = linalg.index 2 : index
// CHECK:           %[[ISRE:.*]] = arith.cmpi eq, %[[WHICH]], %{{.*}} : index
// CHECK:           %[[PRE:.*]] = complex.re
// CHECK:           %[[PIM:.*]] = complex.im
// CHECK:           arith.select %[[ISRE]], %[[PRE]], %[[PIM]] : f32
// CHECK:         linalg.generic {indexing_maps = [#[[RE]], #[[IM]], {{.*}}]{{.*}} ins(%[[R]], %[[R]] : tensor<3x4x2xf32>, tensor<3x4x2xf32>)
// CHECK:           complex.create
// CHECK:         linalg.fill ins(%[[Z]] : complex<f32>) outs(%{{.*}} : tensor<3x5xcomplex<f32>>)
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]
// CHECK:         ^bb0(%[[MA:.*]]: complex<f32>, %[[MB:.*]]: complex<f32>, %[[ACC:.*]]: complex<f32>):
// CHECK:           %[[P:.*]] = complex.mul %[[MA]], %[[MB]] : complex<f32>
// CHECK:           complex.add %[[ACC]], %[[P]] : complex<f32>
// CHECK:         linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]
// CHECK:           complex.add
// CHECK:         linalg.generic {{.*}} outs(%{{.*}} : tensor<5xi1>)
// CHECK:           complex.eq %{{.*}}, %[[I]] : complex<f32>
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<3x4xcomplex<f32>>
    %w = fx.placeholder "w" : tensor<4x5xcomplex<f32>>
    %r = fx.call_function "aten::view_as_real"(%x) : (tensor<3x4xcomplex<f32>>) -> tensor<3x4x2xf32>
    %c = fx.call_function "aten::view_as_complex"(%r) : (tensor<3x4x2xf32>) -> tensor<3x4xcomplex<f32>>
    %m = fx.call_function "aten::mm"(%c, %w) : (tensor<3x4xcomplex<f32>>, tensor<4x5xcomplex<f32>>) -> tensor<3x5xcomplex<f32>>
    %s = fx.call_function "aten::sum.dim_IntList"(%m, [0], False, dtype=None) : (tensor<3x5xcomplex<f32>>) -> tensor<5xcomplex<f32>>
    %e = fx.call_function "aten::eq.Scalar"(%s, complex(0.0, 1.0)) : (tensor<5xcomplex<f32>>) -> tensor<5xi1>
    fx.output (%s, %e) : tensor<5xcomplex<f32>>, tensor<5xi1>
  }
}

// -----

// conj is complex.conj (on a real tensor it is the tensor itself,
// Composite.cpp); vdot conjugates its first operand; polar builds
// |r| (cos t + i sin t) from two real tensors.
// CHECK-LABEL: func.func @forward(
// CHECK:         linalg.generic
// CHECK:           complex.conj
// CHECK:         linalg.generic {{.*}} iterator_types = ["reduction"]
// CHECK:         ^bb0(%[[VA:.*]]: complex<f64>, %[[VB:.*]]: complex<f64>, %[[VACC:.*]]: complex<f64>):
// CHECK:           %[[CA:.*]] = complex.conj %[[VA]] : complex<f64>
// CHECK:           complex.mul %[[CA]], %[[VB]] : complex<f64>
// CHECK:         linalg.generic
// CHECK:           %[[COS:.*]] = math.cos
// CHECK:           %[[RE:.*]] = arith.mulf %{{.*}}, %[[COS]] : f64
// CHECK:           %[[SIN:.*]] = math.sin
// CHECK:           %[[IM:.*]] = arith.mulf %{{.*}}, %[[SIN]] : f64
// CHECK:           complex.create %[[RE]], %[[IM]] : complex<f64>
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<4xcomplex<f64>>
    %r = fx.placeholder "r" : tensor<4xf64>
    %c = fx.call_function "aten::conj"(%x) : (tensor<4xcomplex<f64>>) -> tensor<4xcomplex<f64>>
    %v = fx.call_function "aten::vdot"(%x, %c) : (tensor<4xcomplex<f64>>, tensor<4xcomplex<f64>>) -> tensor<complex<f64>>
    %p = fx.call_function "aten::polar"(%r, %r) : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xcomplex<f64>>
    fx.output (%v, %p) : tensor<complex<f64>>, tensor<4xcomplex<f64>>
  }
}
