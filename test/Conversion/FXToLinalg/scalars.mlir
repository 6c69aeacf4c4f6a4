// RUN: fx-opt %s -split-input-file --convert-fx-to-linalg | FileCheck %s

// Python ints and bools: sizes, their arithmetic and comparisons become
// scalar arith ops, folded as they are built, so a static size is a
// constant and an assert on it is decided (and dropped) when compiling.

// The rank is static: the assert on it disappears. The batch size is
// dynamic: it is read with tensor.dim, and Python's `%` (the sign of the
// divisor) is floordiv, mul and sub. `/` of ints is a float division in
// f64; `c / 4` of the static 6 folds to 1.5.

// CHECK-LABEL: func.func @forward
//  CHECK-SAME: (%[[X:.*]]: tensor<?x6xf32>)
//   CHECK-DAG: %[[C6:.*]] = arith.constant 6 : i64
//   CHECK-DAG: %[[C0:.*]] = arith.constant 0 : i64
//   CHECK-DAG: %[[F4:.*]] = arith.constant 4.000000e+00 : f64
//   CHECK-DAG: %[[HALF3:.*]] = arith.constant 1.500000e+00 : f32
//   CHECK-NOT: torch._assert
//       CHECK: %[[DIM:.*]] = tensor.dim %[[X]]
//       CHECK: %[[N:.*]] = arith.index_cast %[[DIM]] : index to i64
//       CHECK: %[[GE:.*]] = arith.cmpi sge, %[[N]], %[[C6]] : i64
//       CHECK: %[[Q:.*]] = arith.floordivsi %[[N]], %[[C6]] : i64
//       CHECK: %[[QC:.*]] = arith.muli %[[Q]], %[[C6]] : i64
//       CHECK: %[[REM:.*]] = arith.subi %[[N]], %[[QC]] : i64
//       CHECK: %[[NEG:.*]] = arith.subi %[[C0]], %[[REM]] : i64
//       CHECK: %[[NEGF:.*]] = arith.sitofp %[[NEG]] : i64 to f64
//       CHECK: %[[DIV:.*]] = arith.divf %[[NEGF]], %[[F4]] : f64
//       CHECK: linalg.generic
//       CHECK: linalg.generic
//       CHECK:   arith.addf %{{.*}}, %[[HALF3]] : f32
//       CHECK: arith.uitofp %[[GE]] : i1 to f32
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<?x6xf32>
    %n = fx.call_function "aten::size.int"(%x, 0) : (tensor<?x6xf32>) -> i64
    %c = fx.call_function "aten::size.int"(%x, 1) : (tensor<?x6xf32>) -> i64
    %rank = fx.call_function "aten::dim"(%x) : (tensor<?x6xf32>) -> i64
    %eq = fx.call_function "aten::eq.int"(%rank, 2) : (i64) -> i1
    %assert = fx.call_function "torch._assert"(%eq, "expected 2-D") : (i1) -> !fx.any
    %ge = fx.call_function "aten::ge.int"(%n, %c) : (i64, i64) -> i1
    %rem = fx.call_function "aten::remainder.int"(%n, %c) : (i64, i64) -> i64
    %neg = fx.call_function "aten::neg.int"(%rem) : (i64) -> i64
    %div = fx.call_function "aten::div.int"(%neg, 4) : (i64) -> f64
    %cdiv = fx.call_function "aten::div.int"(%c, 4) : (i64) -> f64
    %a = fx.call_function "aten::mul.Scalar"(%x, %div) : (tensor<?x6xf32>, f64) -> tensor<?x6xf32>
    %b = fx.call_function "aten::add.Scalar"(%a, %cdiv) : (tensor<?x6xf32>, f64) -> tensor<?x6xf32>
    %d = fx.call_function "aten::mul.Scalar"(%b, %ge) : (tensor<?x6xf32>, i1) -> tensor<?x6xf32>
    fx.output %d : tensor<?x6xf32>
  }
}

// -----

// Comparisons of static sizes fold to constants; a literal True assert is
// dropped as well.

// CHECK-LABEL: func.func @forward
//   CHECK-NOT: arith.cmpi
//   CHECK-NOT: torch._assert
//       CHECK: return %arg0
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<4x6xf32>
    %h = fx.call_function "aten::size.int"(%x, 0) : (tensor<4x6xf32>) -> i64
    %w = fx.call_function "aten::size.int"(%x, -1) : (tensor<4x6xf32>) -> i64
    %lt = fx.call_function "aten::lt.int"(%h, %w) : (i64, i64) -> i1
    %a0 = fx.call_function "torch._assert"(%lt, "h < w") : (i1) -> !fx.any
    %ne = fx.call_function "aten::ne.int"(%h, 5) : (i64) -> i1
    %a1 = fx.call_function "torch._assert"(%ne, "h != 5") : (i1) -> !fx.any
    %gt = fx.call_function "aten::gt.int"(%w, %h) : (i64, i64) -> i1
    %a2 = fx.call_function "torch._assert"(%gt, "w > h") : (i1) -> !fx.any
    %le = fx.call_function "aten::le.int"(%w, 6) : (i64) -> i1
    %a3 = fx.call_function "torch._assert"(%le, "w <= 6") : (i1) -> !fx.any
    %a4 = fx.call_function "torch._assert"(True, "literal") : () -> !fx.any
    fx.output %x : tensor<4x6xf32>
  }
}

// -----

// Python float arithmetic of scripted code (a size raised to a float
// power, a float difference): f64, ints converted.

// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[X:.*]]: tensor<2x8xf32>, %[[P:.*]]: tensor<f64>)
// CHECK:         %[[C16:.*]] = arith.constant 1.600000e+01 : f64
// CHECK:         %[[POW:.*]] = math.powf %[[C16]], %{{.*}} : f64
// CHECK:         %[[SUB:.*]] = arith.subf %{{.*}}, %{{.*}} : f64
// CHECK:         %[[MUL:.*]] = arith.mulf %[[POW]], %[[SUB]] : f64
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x8xf32>
    %p = fx.placeholder "p" : tensor<f64>
    %size = fx.call_function "aten::numel"(%x) : (tensor<2x8xf32>) -> i64
    %item = fx.call_function "aten::item"(%p) : (tensor<f64>) -> f64
    %pow = fx.call_function "aten::pow.int_float"(%size, %item) : (i64, f64) -> f64
    %sub = fx.call_function "aten::sub.float"(1.0, %item) : (f64) -> f64
    %mul = fx.call_function "aten::mul.float"(%pow, %sub) : (f64, f64) -> f64
    %scaled = fx.call_function "aten::mul.Scalar"(%x, %mul) : (tensor<2x8xf32>, f64) -> tensor<2x8xf32>
    fx.output %scaled : tensor<2x8xf32>
  }
}

// -----

// prim::NumToTensor.Scalar (a traced size read as a 0-d tensor): a 0-d
// tensor of the declared type holding the number; here a size of the
// input, as the int64 tensor the tracer records, its reciprocal square
// root a float tensor scaling the input.

// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[X:.*]]: tensor<2x8xf32>)
// CHECK:         %[[C8:.*]] = arith.constant 8 : i64
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<i64>
// CHECK:         %[[T:.*]] = linalg.fill ins(%[[C8]] : i64) outs(%[[E]] : tensor<i64>) -> tensor<i64>
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[T]] : tensor<i64>)
// CHECK:           arith.sitofp
// CHECK:           math.rsqrt
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x8xf32>
    %size = fx.call_function "aten::size.int"(%x, 1) : (tensor<2x8xf32>) -> i64
    %t = fx.call_function "prim::NumToTensor.Scalar"(%size) : (i64) -> tensor<i64>
    %rsqrt = fx.call_function "aten::rsqrt"(%t) : (tensor<i64>) -> tensor<f32>
    %mul = fx.call_function "aten::mul.Tensor"(%x, %rsqrt) : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
    fx.output %mul : tensor<2x8xf32>
  }
}

// -----

// item() reads the one element of a tensor and converts it to the Python
// number the node declares (a float as f64: the f32 -> f64 -> f32 round
// trip into the scalar multiplication folds away).

// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3xf32>, %[[S:.*]]: tensor<1x1xf32>)
// CHECK:         %[[C0:.*]] = arith.constant 0 : index
// CHECK:         %[[E:.*]] = tensor.extract %[[S]][%[[C0]], %[[C0]]] : tensor<1x1xf32>
// CHECK:         linalg.generic
// CHECK:           arith.mulf %{{.*}}, %[[E]] : f32
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x3xf32>
    %s = fx.placeholder "s" : tensor<1x1xf32>
    %item = fx.call_function "aten::item"(%s) : (tensor<1x1xf32>) -> f64
    %mul = fx.call_function "aten::mul.Scalar"(%x, %item) : (tensor<2x3xf32>, f64) -> tensor<2x3xf32>
    fx.output %mul : tensor<2x3xf32>
  }
}

// -----

// Python's math module on numbers, as TorchScript spells it: the int
// converted to a double, then one math op; math.floor of a float is an
// int; round rounds half to even; `%` on floats is fmod moved to the
// divisor's sign; min of two numbers is `b < a ? b : a`. Of a static size
// (`math.sqrt(k.size(-1))` of scripted attention) it folds to a constant.

// CHECK-LABEL: func.func @forward
//  CHECK-SAME: (%[[X:.*]]: tensor<?x16xf32>)
//   CHECK-DAG: %[[QUARTER:.*]] = arith.constant 2.500000e-01 : f32
//       CHECK: %[[DIM:.*]] = tensor.dim %[[X]]
//       CHECK: %[[N:.*]] = arith.index_cast %[[DIM]] : index to i64
//       CHECK: %[[NF:.*]] = arith.sitofp %[[N]] : i64 to f64
//       CHECK: %[[SQRT:.*]] = math.sqrt %[[NF]] : f64
//       CHECK: %[[FLOOR:.*]] = math.floor %[[SQRT]] : f64
//       CHECK: %[[FLOORI:.*]] = arith.fptosi %[[FLOOR]] : f64 to i64
//       CHECK: math.roundeven %{{.*}} : f64
//       CHECK: %[[MOD:.*]] = arith.remf
//       CHECK: arith.select %{{.*}}, %{{.*}}, %[[MOD]] : f64
//       CHECK: %[[MORE:.*]] = arith.cmpi sgt, %[[FLOORI]], %[[C3:.*]] : i64
//       CHECK: arith.select %[[MORE]], %[[C3]], %[[FLOORI]] : i64
//       CHECK: linalg.generic
//       CHECK:   arith.mulf %{{.*}}, %[[QUARTER]] : f32
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<?x16xf32>
    %n = fx.call_function "aten::size.int"(%x, 0) : (tensor<?x16xf32>) -> i64
    %d = fx.call_function "aten::size.int"(%x, 1) : (tensor<?x16xf32>) -> i64
    %sqrt = fx.call_function "aten::sqrt.int"(%n) : (i64) -> f64
    %floor = fx.call_function "aten::floor.float"(%sqrt) : (f64) -> i64
    %round = fx.call_function "aten::round.float"(%sqrt) : (f64) -> f64
    %mod = fx.call_function "aten::remainder.float"(%round, -1.5) : (f64) -> f64
    %min = fx.call_function "prim::min.int"(%floor, 3) : (i64) -> i64
    %sd = fx.call_function "aten::sqrt.int"(%d) : (i64) -> f64
    %inv = fx.call_function "aten::div.float"(1.0, %sd) : (f64) -> f64
    %a = fx.call_function "aten::mul.Scalar"(%x, %inv) : (tensor<?x16xf32>, f64) -> tensor<?x16xf32>
    %b = fx.call_function "aten::add.Scalar"(%a, %mod) : (tensor<?x16xf32>, f64) -> tensor<?x16xf32>
    %c = fx.call_function "aten::mul.Scalar"(%b, %min) : (tensor<?x16xf32>, i64) -> tensor<?x16xf32>
    fx.output %c : tensor<?x16xf32>
  }
}

// -----

// `n not in (1, 2)` of a rank (a scripted cell's check): any equal
// element, folded for a static rank; of a dynamic size, compared as it
// runs.

// CHECK-LABEL: func.func @forward
//       CHECK: %[[N:.*]] = arith.index_cast %{{.*}} : index to i64
//   CHECK-DAG: %[[ONE:.*]] = arith.cmpi eq, %[[N]], %{{.*}} : i64
//   CHECK-DAG: %[[TWO:.*]] = arith.cmpi eq, %[[N]], %{{.*}} : i64
//       CHECK: arith.ori %[[ONE]], %[[TWO]] : i1
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<?x6xf32>
    %rank = fx.call_function "aten::dim"(%x) : (tensor<?x6xf32>) -> i64
    %in = fx.call_function "aten::__contains__.int_list"([1, 2], %rank) : (i64) -> i1
    %not = fx.call_function "aten::__not__"(%in) : (i1) -> i1
    %assert = fx.call_function "torch._assert"(%in, "expected 1-D or 2-D") : (i1) -> !fx.any
    %n = fx.call_function "aten::size.int"(%x, 0) : (tensor<?x6xf32>) -> i64
    %small = fx.call_function "aten::__contains__.int_list"([1, 2], %n) : (i64) -> i1
    %y = fx.call_function "aten::mul.Scalar"(%x, %small) : (tensor<?x6xf32>, i1) -> tensor<?x6xf32>
    fx.output %y : tensor<?x6xf32>
  }
}

// -----

// A torch._assert of a value known only at run time (a 0-d bool tensor,
// `torch._assert(~torch.any(var < 0), ...)`; a comparison of a dynamic
// size) is a run-time check: its negation is a hidden result that the
// runtime reports as `AssertionError: message`, naming the node.

// CHECK-LABEL: func.func @forward
//  CHECK-SAME:    fx.checks = [{message = "AssertionError: var has negative entry/entries", node = "'_assert'"}, {message = "AssertionError: at least 2 rows", node = "'_assert_1'"}]
//       CHECK: %[[OK:.*]] = tensor.extract %{{.*}}[] : tensor<i1>
//       CHECK: %[[BAD:.*]] = arith.xori %[[OK]], %true : i1
//       CHECK: tensor.from_elements %[[BAD]] : tensor<i1>
//       CHECK: %[[GE:.*]] = arith.cmpi sge
//       CHECK: %[[SHORT:.*]] = arith.xori %[[GE]], %true : i1
//       CHECK: tensor.from_elements %[[SHORT]] : tensor<i1>
fx.graph_module @M {
  fx.graph @forward {
    %v = fx.placeholder "v" : tensor<?x3xf32>
    %lt = fx.call_function "aten::lt.Scalar"(%v, 0) : (tensor<?x3xf32>) -> tensor<?x3xi1>
    %any = fx.call_function "aten::any"(%lt) : (tensor<?x3xi1>) -> tensor<i1>
    %ok = fx.call_function "aten::bitwise_not"(%any) : (tensor<i1>) -> tensor<i1>
    %_assert = fx.call_function "torch._assert"(%ok, "var has negative entry/entries") : (tensor<i1>) -> !fx.any
    %n = fx.call_function "aten::size.int"(%v, 0) : (tensor<?x3xf32>) -> i64
    %ge = fx.call_function "aten::ge.int"(%n, 2) : (i64) -> i1
    %_assert_1 = fx.call_function "torch._assert"(%ge, "at least 2 rows") : (i1) -> !fx.any
    %r = fx.call_function "aten::log"(%v) : (tensor<?x3xf32>) -> tensor<?x3xf32>
    fx.output %r : tensor<?x3xf32>
  }
}
