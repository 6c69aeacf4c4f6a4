// RUN: fx-opt %s -split-input-file --convert-fx-to-linalg | FileCheck %s

// The ATen spellings torch.jit.trace and torch.jit.script record for what
// torch.fx graphs call otherwise: creation calls (eye, linspace, a tensor of
// a list), conversions, Python's operators on tensors, norms, a conv padding
// by a string, comparisons of size lists and Python's number conversions.

// eye.m(3, 4): ones where the row is the column.
// CHECK-LABEL: func.func @forward
//       CHECK: linalg.generic
//       CHECK:   %[[J:.*]] = linalg.index 1
//       CHECK:   %[[I:.*]] = linalg.index 0
//       CHECK:   %[[SAME:.*]] = arith.cmpi eq, %[[I]], %[[J]]
//       CHECK:   arith.select %[[SAME]]
//       CHECK: -> tensor<3x4xf32>
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<3x4xf32>
    %eye = fx.call_function "aten::eye.m"(3, 4, dtype=None, layout=None, device=device("cpu"), pin_memory=False) : () -> tensor<3x4xf32>
    fx.output %eye : tensor<3x4xf32>
  }
}


// -----

// linspace(-1, 2.5, 8), as ATen computes it: step 0.5 in f32, the first
// half up from start, the second down from end.
// CHECK-LABEL: func.func @forward
//   CHECK-DAG: %[[HALF:.*]] = arith.constant 4 : i64
//   CHECK-DAG: %[[LAST:.*]] = arith.constant 7 : i64
//   CHECK-DAG: %[[START:.*]] = arith.constant -1.000000e+00 : f32
//   CHECK-DAG: %[[END:.*]] = arith.constant 2.500000e+00 : f32
//   CHECK-DAG: %[[STEP:.*]] = arith.constant 5.000000e-01 : f32
//       CHECK: linalg.generic
//       CHECK:   %[[I:.*]] = arith.index_cast
//       CHECK:   %[[BACK:.*]] = arith.subi %[[LAST]], %[[I]]
//       CHECK:   %[[LOW:.*]] = arith.cmpi slt, %[[I]], %[[HALF]]
//       CHECK:   %[[UP:.*]] = arith.addf %{{.*}}, %[[START]]
//       CHECK:   %[[DOWN:.*]] = arith.subf %[[END]], %{{.*}}
//       CHECK:   arith.select %[[LOW]], %[[UP]], %[[DOWN]]
//       CHECK: -> tensor<8xf32>
fx.graph_module @M {
  fx.graph @forward {
    %lin = fx.call_function "aten::linspace"(-1, 2.5, 8, dtype=None, layout=None, device=device("cpu"), pin_memory=False) : () -> tensor<8xf32>
    fx.output %lin : tensor<8xf32>
  }
}

// -----

// linspace(0, -3, 1): one point, `start` (ATen fills it; the point counted
// down from `end` would be -3). The one index folds away.
// CHECK-LABEL: func.func @forward
//       CHECK: %[[START:.*]] = arith.constant 0.000000e+00 : f32
//       CHECK: linalg.generic
//  CHECK-NEXT: ^bb0
//  CHECK-NEXT:   linalg.yield %[[START]] : f32
//       CHECK: -> tensor<1xf32>
fx.graph_module @M {
  fx.graph @forward {
    %lin = fx.call_function "aten::linspace"(0, -3, 1, dtype=None, layout=None, device=device("cpu"), pin_memory=False) : () -> tensor<1xf32>
    fx.output %lin : tensor<1xf32>
  }
}


// -----

// torch.tensor of a nested list whose last number is a (static) size.
// CHECK-LABEL: func.func @forward
//       CHECK: arith.constant dense<{{\[\[}}1.500000e+00, 2.000000e+00], [3.000000e+00, 5.000000e+00]]> : tensor<2x2xf32>
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<5x6xf32>
    %size = fx.call_function "aten::size.int"(%x, 0) : (tensor<5x6xf32>) -> i64
    %Float = fx.call_function "aten::Float.Scalar"(%size) : (i64) -> f64
    %t = fx.call_function "aten::tensor"([[1.5, 2.0], [3.0, %Float]], dtype=None, device=None, requires_grad=False) : (f64) -> tensor<2x2xf32>
    fx.output %t : tensor<2x2xf32>
  }
}

// -----

// to.device and to.dtype_layout to the CPU are dtype conversions; `x & 3`,
// `x << 2` are the bitwise ops; an evaluated alpha dropout is the identity;
// frobenius_norm.dim is a vector norm (aten::norm binds as
// linalg_vector_norm, fx-normalize).
// CHECK-LABEL: func.func @forward
//       CHECK: arith.sitofp %{{.*}} : i64 to f32
//       CHECK: arith.extf %{{.*}} : f32 to f64
//       CHECK: arith.andi
//       CHECK: arith.shli
//       CHECK: arith.mulf
//       CHECK: arith.addf
//       CHECK: math.sqrt
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<3x4xi64>
    %to = fx.call_function "aten::to.device"(%x, device("cpu"), torch.float32, False, False, None) : (tensor<3x4xi64>) -> tensor<3x4xf32>
    %to64 = fx.call_function "aten::to.dtype_layout"(%to, dtype=torch.float64, layout=None, device=device("cpu"), pin_memory=None, non_blocking=False, copy=False, memory_format=None) : (tensor<3x4xf32>) -> tensor<3x4xf64>
    %and = fx.call_function "aten::__and__.Scalar"(%x, 3) : (tensor<3x4xi64>) -> tensor<3x4xi64>
    %shl = fx.call_function "aten::__lshift__.Scalar"(%and, 2) : (tensor<3x4xi64>) -> tensor<3x4xi64>
    %drop = fx.call_function "aten::alpha_dropout"(%to, 0.2, False) : (tensor<3x4xf32>) -> tensor<3x4xf32>
    %norm = fx.call_function "aten::frobenius_norm.dim"(%drop, [1], False) : (tensor<3x4xf32>) -> tensor<3xf32>
    fx.output (%shl, %norm, %to64) : tensor<3x4xi64>, tensor<3xf32>, tensor<3x4xf64>
  }
}


// -----

// _convolution_mode with padding "same": conv1d.padding, padded by one on
// each side.
// CHECK-LABEL: func.func @forward
//       CHECK: tensor.pad %{{.*}} low[0, 0, 0, 1] high[0, 0, 0, 1]
//       CHECK: linalg.conv_2d_nchw_fchw
//       CHECK: tensor.collapse_shape %{{.*}} : tensor<1x4x1x9xf32> into tensor<1x4x9xf32>
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x2x9xf32>
    %w = fx.placeholder "w" : tensor<4x2x3xf32>
    %conv = fx.call_function "aten::_convolution_mode"(%x, %w, None, [1], "same", [1], 1) : (tensor<1x2x9xf32>, tensor<4x2x3xf32>) -> tensor<1x4x9xf32>
    fx.output %conv : tensor<1x4x9xf32>
  }
}


// -----

// Size lists compared (lists of different lengths differ), float() and
// int() (truncating) and bool() of numbers.
// CHECK-LABEL: func.func @forward
//       CHECK: %[[N:.*]] = arith.index_cast %{{.*}} : index to i64
//       CHECK: %[[EQ:.*]] = arith.cmpi eq, %[[N]], %{{.*}} : i64
//       CHECK: %[[F:.*]] = arith.sitofp %[[N]] : i64 to f64
//       CHECK: %[[H:.*]] = arith.mulf %[[F]]
//       CHECK: %[[I:.*]] = arith.fptosi %[[H]] : f64 to i64
//       CHECK: %[[IF:.*]] = arith.sitofp %[[I]] : i64 to f64
//       CHECK: %[[B:.*]] = arith.cmpf une, %[[IF]]
//       CHECK: tensor.from_elements %[[EQ]]
//       CHECK: tensor.from_elements %true
//       CHECK: tensor.from_elements %[[I]]
//       CHECK: tensor.from_elements %[[B]]
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<?x6xf32>
    %y = fx.placeholder "y" : tensor<4x6xf32>
    %n = fx.call_function "aten::size.int"(%x, 0) : (tensor<?x6xf32>) -> i64
    %m = fx.call_function "aten::size.int"(%y, 0) : (tensor<4x6xf32>) -> i64
    %eq = fx.call_function "aten::eq.int_list"([%n, 6], [%m, 6]) : (i64, i64) -> i1
    %ne = fx.call_function "aten::ne.int_list"([%n], [%m, 6]) : (i64, i64) -> i1
    %f = fx.call_function "aten::Float.int"(%n) : (i64) -> f64
    %half = fx.call_function "aten::mul.float"(%f, 0.5) : (f64) -> f64
    %i = fx.call_function "aten::Int.float"(%half) : (f64) -> i64
    %b = fx.call_function "aten::Bool.int"(%i) : (i64) -> i1
    fx.output (%eq, %ne, %i, %b) : i1, i1, i64, i1
  }
}

// -----

// _weight_norm(v, g, 0) (torch.nn.utils.weight_norm, traced): v * (g / the
// 2-norm of v over every dim but 0, kept).
// CHECK-LABEL: func.func @forward
//       CHECK: %[[SQ:.*]] = linalg.generic
//       CHECK:   arith.mulf
//       CHECK: %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
//       CHECK: tensor.expand_shape %[[SUM]] {{.*}} into tensor<3x1xf32>
//       CHECK: math.sqrt
//       CHECK: linalg.generic
//       CHECK:   %[[Q:.*]] = arith.divf
//       CHECK:   arith.mulf %{{.*}}, %[[Q]]
//       CHECK: -> tensor<3x4xf32>
fx.graph_module @M {
  fx.graph @forward {
    %v = fx.placeholder "v" : tensor<3x4xf32>
    %g = fx.placeholder "g" : tensor<3x1xf32>
    %w = fx.call_function "aten::_weight_norm"(%v, %g, 0) : (tensor<3x4xf32>, tensor<3x1xf32>) -> tensor<3x4xf32>
    fx.output %w : tensor<3x4xf32>
  }
}

// -----

// arange(1, n, 2) of a size the graph computes (`torch.arange(x.size(0))`
// with a dynamic batch): max(0, ceil((n - 1) / 2)) points, counted in f64.
// CHECK-LABEL: func.func @forward
//       CHECK: %[[DIM:.*]] = tensor.dim %arg0, %c0
//       CHECK: %[[N:.*]] = arith.index_cast %[[DIM]] : index to i64
//       CHECK: %[[NF:.*]] = arith.sitofp %[[N]] : i64 to f64
//       CHECK: %[[SPAN:.*]] = arith.subf %[[NF]]
//       CHECK: %[[STEPS:.*]] = arith.divf %[[SPAN]]
//       CHECK: %[[CEIL:.*]] = math.ceil %[[STEPS]]
//       CHECK: %[[COUNT:.*]] = arith.maximumf %[[CEIL]]
//       CHECK: %[[I:.*]] = arith.fptosi %[[COUNT]]
//       CHECK: %[[SIZE:.*]] = arith.index_cast %[[I]] : i64 to index
//       CHECK: tensor.empty(%[[SIZE]]) : tensor<?xi64>
//       CHECK: linalg.generic
//       CHECK:   arith.muli
//       CHECK:   arith.addi
//       CHECK: -> tensor<?xi64>
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<?x4xf32>
    %n = fx.call_function "aten::size.int"(%x, 0) : (tensor<?x4xf32>) -> i64
    %a = fx.call_function "aten::arange.start_step"(1, %n, 2, dtype=None, layout=None, device=None, pin_memory=None) : (i64) -> tensor<?xi64>
    fx.output %a : tensor<?xi64>
  }
}

// -----

// linspace(0, 1, n) of a computed number of points: a run-time check
// that n is not negative, the step 1 / max(n - 1, 1) and the halves split
// at max(n / 2, 1), all from n.
// CHECK-LABEL: func.func @forward
//  CHECK-SAME: fx.checks = [{message = "RuntimeError: number of steps must be non-negative", node = "'lin'"}]
//       CHECK: %[[N:.*]] = arith.index_cast %{{.*}} : index to i64
//       CHECK: arith.cmpi slt, %[[N]], %{{.*}} : i64
//       CHECK: %[[LAST:.*]] = arith.subi %[[N]], %{{.*}} : i64
//       CHECK: %[[HALF:.*]] = arith.maxsi
//       CHECK: %[[INTERVALS:.*]] = arith.maxsi %[[LAST]]
//       CHECK: arith.sitofp %[[INTERVALS]] : i64 to f32
//       CHECK: tensor.empty(%{{.*}}) : tensor<?xf32>
//       CHECK: linalg.generic
//       CHECK:   arith.subi %[[LAST]]
//       CHECK:   arith.cmpi slt, %{{.*}}, %[[HALF]]
//       CHECK: -> tensor<?xf32>
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<?x4xf32>
    %n = fx.call_function "aten::size.int"(%x, 0) : (tensor<?x4xf32>) -> i64
    %lin = fx.call_function "aten::linspace"(0, 1, %n, dtype=None, layout=None, device=None, pin_memory=None) : (i64) -> tensor<?xf32>
    fx.output %lin : tensor<?xf32>
  }
}
