// RUN: fx-opt %s -split-input-file --convert-fx-to-linalg | FileCheck %s

// Elementwise aten ops become one linalg.generic each: operands broadcast
// as PyTorch does (a size-1 dim reads index 0, a missing leading dim is
// dropped from the map), scalars and alpha fold into constants, mixed
// element types are converted to the result's type inside the body.

// Broadcasting: tensor<4x1xf32> + tensor<3xf32> -> tensor<4x3xf32>.

// CHECK-DAG: #[[$COL:map[0-9]*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[$ROW:map[0-9]*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[$ID:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[X:.*]]: tensor<4x1xf32>, %[[Y:.*]]: tensor<3xf32>) -> tensor<4x3xf32>
// CHECK:         %[[INIT:.*]] = tensor.empty() : tensor<4x3xf32>
// CHECK:         %[[ADD:.*]] = linalg.generic {indexing_maps = [#[[$COL]], #[[$ROW]], #[[$ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME:      ins(%[[X]], %[[Y]] : tensor<4x1xf32>, tensor<3xf32>) outs(%[[INIT]] : tensor<4x3xf32>)
// CHECK:           arith.addf
// CHECK:         return %[[ADD]]
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<4x1xf32>
    %y = fx.placeholder "y" : tensor<3xf32>
    %add = fx.call_function "aten::add.Tensor"(%x, %y, alpha=1) : (tensor<4x1xf32>, tensor<3xf32>) -> tensor<4x3xf32>
    fx.output %add : tensor<4x3xf32>
  }
}

// -----

// CHECK-LABEL: func.func @forward(
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[NEG:.*]] = arith.cmpf olt, %[[IN]], %[[ZERO]] : f32
// CHECK-NEXT:      %[[MAX:.*]] = arith.select %[[NEG]], %[[ZERO]], %[[IN]] : f32
// CHECK-NEXT:      linalg.yield %[[MAX]] : f32
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x4xf32>
    %relu = fx.call_function "aten::relu"(%x) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    fx.output %relu : tensor<2x4xf32>
  }
}

// -----

// alpha scales the second operand: add.Scalar(x, 2, 3) adds 6;
// sub.Tensor(x, y, alpha=2) is x - 2 * y.

// CHECK-LABEL: func.func @forward(
// CHECK-DAG:     %[[SIX:.*]] = arith.constant 6.000000e+00 : f32
// CHECK-DAG:     %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
// CHECK:         linalg.generic
// CHECK:           arith.addf %{{.*}}, %[[SIX]] : f32
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[SCALED:.*]] = arith.mulf %[[B]], %[[TWO]] : f32
// CHECK-NEXT:      arith.subf %[[A]], %[[SCALED]] : f32
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x4xf32>
    %add = fx.call_function "aten::add.Scalar"(%x, 2, 3) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %sub = fx.call_function "aten::sub.Tensor"(%x, %add, alpha=2) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    fx.output %sub : tensor<2x4xf32>
  }
}

// -----

// Type promotion: int64 * float32 computes in f32, the declared result
// type; a comparison yields i1.

// CHECK-LABEL: func.func @forward(
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%{{.*}}, %{{.*}} : tensor<2x4xi64>, tensor<2x4xf32>) outs(%{{.*}} : tensor<2x4xf32>)
// CHECK-NEXT:    ^bb0(%[[I:.*]]: i64, %[[F:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[CONV:.*]] = arith.sitofp %[[I]] : i64 to f32
// CHECK-NEXT:      arith.mulf %[[CONV]], %[[F]] : f32
// CHECK:         linalg.generic
// CHECK-SAME:      outs(%{{.*}} : tensor<2x4xi1>)
// CHECK:           arith.cmpf ogt, %{{.*}}, %{{.*}} : f32
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x4xi64>
    %y = fx.placeholder "y" : tensor<2x4xf32>
    %mul = fx.call_function "aten::mul.Tensor"(%x, %y) : (tensor<2x4xi64>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %gt = fx.call_function "aten::gt.Scalar"(%mul, 0.5) : (tensor<2x4xf32>) -> tensor<2x4xi1>
    fx.output %gt : tensor<2x4xi1>
  }
}

// -----

// Floor division of ints rounds toward -inf, as Python does.

// CHECK-LABEL: func.func @forward(
// CHECK:         linalg.generic
// CHECK:           arith.floordivsi %{{.*}}, %{{.*}} : i64
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x4xi64>
    %y = fx.placeholder "y" : tensor<2x4xi64>
    %div = fx.call_function "aten::div.Tensor_mode"(%x, %y, rounding_mode="floor") : (tensor<2x4xi64>, tensor<2x4xi64>) -> tensor<2x4xi64>
    fx.output %div : tensor<2x4xi64>
  }
}

// -----

// where with a 0-d tensor operand: its map has no results.

// CHECK-DAG: #[[$SCALAR:map[0-9]*]] = affine_map<(d0, d1) -> ()>
// CHECK-DAG: #[[$ID:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @forward(
// CHECK:         linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]], #[[$SCALAR]], #[[$ID]]]
// CHECK-SAME:      ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<2x4xi1>, tensor<2x4xf32>, tensor<f32>)
// CHECK:           arith.select
fx.graph_module @M {
  fx.graph @forward {
    %c = fx.placeholder "c" : tensor<2x4xi1>
    %x = fx.placeholder "x" : tensor<2x4xf32>
    %s = fx.placeholder "s" : tensor<f32>
    %where = fx.call_function "aten::where.self"(%c, %x, %s) : (tensor<2x4xi1>, tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
    fx.output %where : tensor<2x4xf32>
  }
}

// -----

// Dropout in eval mode (train=False) is the identity.

// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[X:.*]]: tensor<2x4xf32>)
// CHECK-NEXT:    return %[[X]] : tensor<2x4xf32>
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x4xf32>
    %dropout = fx.call_function "aten::dropout"(%x, 0.5, False) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    fx.output %dropout : tensor<2x4xf32>
  }
}

// -----

// Dropout of p=0 is the identity in training mode too, as ATen's is
// (torchvision's shifted_window_attention calls F.dropout(x, 0.0) without
// its module's training flag).

// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[X:.*]]: tensor<2x4xf32>)
// CHECK-NEXT:    return %[[X]] : tensor<2x4xf32>
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x4xf32>
    %dropout = fx.call_function "aten::dropout"(%x, 0.0, True) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    fx.output %dropout : tensor<2x4xf32>
  }
}

// -----

// prelu: one slope per channel, the weight (C) viewed as (C, 1) so it
// broadcasts along dim 1 of the input.

// CHECK-DAG: #[[$ID3:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$CH:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d1, 0)>
// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3x4xf32>, %[[W:.*]]: tensor<3xf32>)
// CHECK:         %[[WV:.*]] = tensor.expand_shape %[[W]] {{\[}}[0, 1]] output_shape [3, 1] : tensor<3xf32> into tensor<3x1xf32>
// CHECK:         linalg.generic {indexing_maps = [#[[$ID3]], #[[$CH]], #[[$ID3]]]
// CHECK-SAME:      ins(%[[X]], %[[WV]] : tensor<2x3x4xf32>, tensor<3x1xf32>)
// CHECK:           %[[POS:.*]] = arith.cmpf ogt, %[[IN:.*]], %{{.*}} : f32
// CHECK:           %[[NEG:.*]] = arith.mulf %{{.*}}, %[[IN]] : f32
// CHECK:           arith.select %[[POS]], %[[IN]], %[[NEG]] : f32
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x3x4xf32>
    %w = fx.placeholder "w" : tensor<3xf32>
    %p = fx.call_function "aten::prelu"(%x, %w) : (tensor<2x3x4xf32>, tensor<3xf32>) -> tensor<2x3x4xf32>
    fx.output %p : tensor<2x3x4xf32>
  }
}

// -----

// softplus(x, beta=2, threshold=5) is linear above the threshold, as
// ATen's; mish is x * tanh(softplus(x)); log_sigmoid is
// min(x, 0) - log1p(exp(-|x|)); celu(alpha) is elu with input_scale
// 1/alpha.

// CHECK-LABEL: func.func @forward(
// CHECK-DAG:     %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG:     %[[TWENTY:.*]] = arith.constant 2.000000e+01 : f32
// CHECK-DAG:     %[[FIVE:.*]] = arith.constant 5.000000e+00 : f32
// CHECK-DAG:     %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
// CHECK:         linalg.generic
// CHECK:           %[[S:.*]] = arith.mulf %[[IN:.*]], %[[TWO]] : f32
// CHECK:           %[[E:.*]] = math.exp %[[S]] : f32
// CHECK:           %[[L:.*]] = math.log1p %[[E]] : f32
// CHECK:           %[[D:.*]] = arith.divf %[[L]], %[[TWO]] : f32
// CHECK:           %[[BIG:.*]] = arith.cmpf ogt, %[[S]], %[[FIVE]] : f32
// CHECK:           arith.select %[[BIG]], %[[IN]], %[[D]] : f32
// CHECK:         linalg.generic
// CHECK:           math.log1p
// CHECK:           arith.cmpf ogt, %{{.*}}, %[[TWENTY]] : f32
// CHECK:           %[[T:.*]] = math.tanh
// CHECK:           arith.mulf %{{.*}}, %[[T]] : f32
// CHECK:         linalg.generic
// CHECK:           math.absf
// CHECK:           arith.negf
// CHECK:           math.exp
// CHECK:           %[[LP:.*]] = math.log1p
// CHECK:           %[[MIN:.*]] = arith.minimumf %{{.*}}, %[[ZERO]] : f32
// CHECK:           arith.subf %[[MIN]], %[[LP]] : f32
// CHECK:         linalg.generic
// CHECK:           arith.mulf %{{.*}}, %[[TWO]] : f32
// CHECK:           math.expm1
// CHECK:           arith.mulf %{{.*}}, %[[HALF]] : f32
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<4xf32>
    %s = fx.call_function "aten::softplus"(%x, 2, 5) : (tensor<4xf32>) -> tensor<4xf32>
    %m = fx.call_function "aten::mish"(%s) : (tensor<4xf32>) -> tensor<4xf32>
    %l = fx.call_function "aten::log_sigmoid"(%m) : (tensor<4xf32>) -> tensor<4xf32>
    %c = fx.call_function "aten::celu"(%l, 5.000000e-01) : (tensor<4xf32>) -> tensor<4xf32>
    fx.output %c : tensor<4xf32>
  }
}

// -----

// remainder takes the divisor's sign (Python's %): the truncated remainder
// plus the divisor when it is nonzero and the signs differ; a zero divisor
// is a run-time check (ZeroDivisionError) and divides by 1 meanwhile, as
// does -1 (no idiv trap on INT_MIN). floor of an integer tensor is the
// tensor; sign is 1, -1 or 0.

// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[X:.*]]: tensor<4xi64>, %[[Y:.*]]: tensor<4xi64>)
// CHECK-SAME:    fx.checks = [{message = "ZeroDivisionError: integer division by zero", node = "'r'"}]
// CHECK:         linalg.generic {{.*}} ins(%[[Y]] : tensor<4xi64>) outs(%{{.*}} : tensor<4xi1>)
// CHECK:         %[[R:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[Y]] : tensor<4xi64>, tensor<4xi64>)
// CHECK:           %[[SAFE:.*]] = arith.select %{{.*}}, %{{.*}}, %[[B:.*]] : i64
// CHECK:           %[[REM:.*]] = arith.remsi %{{.*}}, %[[SAFE]] : i64
// CHECK:           %[[NZ:.*]] = arith.cmpi ne, %[[REM]]
// CHECK:           %[[RN:.*]] = arith.cmpi slt, %[[REM]]
// CHECK:           %[[BN:.*]] = arith.cmpi slt, %[[B]]
// CHECK:           %[[DIFF:.*]] = arith.xori %[[RN]], %[[BN]] : i1
// CHECK:           %[[ADJ:.*]] = arith.andi %[[NZ]], %[[DIFF]] : i1
// CHECK:           %[[SUM:.*]] = arith.addi %[[REM]], %[[B]] : i64
// CHECK:           arith.select %[[ADJ]], %[[SUM]], %[[REM]] : i64
// CHECK-NOT:     math.floor
// CHECK:         %[[S:.*]] = linalg.generic
// CHECK-SAME:      ins(%[[R]] : tensor<4xi64>)
// CHECK:           arith.cmpi sgt
// CHECK:           arith.cmpi slt
// CHECK:         return %[[S]]
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<4xi64>
    %y = fx.placeholder "y" : tensor<4xi64>
    %r = fx.call_function "aten::remainder.Tensor"(%x, %y) : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
    %f = fx.call_function "aten::floor"(%r) : (tensor<4xi64>) -> tensor<4xi64>
    %s = fx.call_function "aten::sign"(%f) : (tensor<4xi64>) -> tensor<4xi64>
    fx.output %s : tensor<4xi64>
  }
}

// -----

// Unary math: floor, ceil and round (half to even) of floats; tan, atan,
// log1p, expm1, log2.

// CHECK-LABEL: func.func @forward(
// CHECK:         math.floor
// CHECK:         math.ceil
// CHECK:         math.roundeven
// CHECK:         math.tan
// CHECK:         math.atan
// CHECK:         math.log1p
// CHECK:         math.expm1
// CHECK:         math.log2
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<4xf32>
    %0 = fx.call_function "aten::floor"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %1 = fx.call_function "aten::ceil"(%0) : (tensor<4xf32>) -> tensor<4xf32>
    %2 = fx.call_function "aten::round"(%1) : (tensor<4xf32>) -> tensor<4xf32>
    %3 = fx.call_function "aten::tan"(%2) : (tensor<4xf32>) -> tensor<4xf32>
    %4 = fx.call_function "aten::atan"(%3) : (tensor<4xf32>) -> tensor<4xf32>
    %5 = fx.call_function "aten::log1p"(%4) : (tensor<4xf32>) -> tensor<4xf32>
    %6 = fx.call_function "aten::expm1"(%5) : (tensor<4xf32>) -> tensor<4xf32>
    %7 = fx.call_function "aten::log2"(%6) : (tensor<4xf32>) -> tensor<4xf32>
    fx.output %7 : tensor<4xf32>
  }
}

// -----

// isnan compares an item with itself, unordered, into a bool; glu
// multiplies the first half of dim by the sigmoid of the second.

// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[X:.*]]: tensor<3x4xf32>)
// CHECK:         linalg.generic {{.*}} ins(%[[X]] : tensor<3x4xf32>) outs(%{{.*}} : tensor<3x4xi1>)
// CHECK:           %[[IN:.*]] = arith.cmpf uno, %[[V:.*]], %[[V]] : f32
// CHECK:         %[[A:.*]] = tensor.extract_slice %[[X]][0, 0] [3, 2] [1, 1]
// CHECK:         %[[B:.*]] = tensor.extract_slice %[[X]][0, 2] [3, 2] [1, 1]
// CHECK:         linalg.generic {{.*}} ins(%[[A]], %[[B]] :
// CHECK:           math.exp
// CHECK:           arith.mulf
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<3x4xf32>
    %i = fx.call_function "aten::isnan"(%x) : (tensor<3x4xf32>) -> tensor<3x4xi1>
    %g = fx.call_function "aten::glu"(%x, 1) : (tensor<3x4xf32>) -> tensor<3x2xf32>
    fx.output (%i, %g) : tensor<3x4xi1>, tensor<3x2xf32>
  }
}

// -----

// Bitwise shifts as ATen's x86 kernel computes them: the count modulo the
// width shifted (int32: & 31), right shifts arithmetic; narrower ints
// shift as 32-bit ones and are truncated back (a constant count is
// masked when compiling).

// CHECK-LABEL: func.func @forward(
// CHECK:         linalg.generic
// CHECK:           %[[C:.*]] = arith.andi %{{.*}}, %{{.*}} : i32
// CHECK:           arith.shli %{{.*}}, %[[C]] : i32
// CHECK:         linalg.generic
// CHECK:           %[[W:.*]] = arith.extsi %{{.*}} : i8 to i32
// CHECK:           %[[R:.*]] = arith.shrsi %[[W]], %{{.*}} : i32
// CHECK:           arith.trunci %[[R]] : i32 to i8

fx.graph_module @M {
  fx.graph @forward {
    %a = fx.placeholder "a" : tensor<4xi32>
    %b = fx.placeholder "b" : tensor<4xi8>
    %l = fx.call_function "aten::bitwise_left_shift.Tensor"(%a, %a) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    %r = fx.call_function "aten::bitwise_right_shift.Tensor_Scalar"(%b, 3) : (tensor<4xi8>) -> tensor<4xi8>
    fx.output (%l, %r) : tensor<4xi32>, tensor<4xi8>
  }
}

// -----

// gcd: Euclid's loop (scf.while) on the absolute values inside the
// elementwise generic; lcm divides by it, 0 where it is 0.

// CHECK-LABEL: func.func @forward(
//       CHECK:   linalg.generic
//       CHECK:     math.absi
//       CHECK:     %[[G:.*]]:2 = scf.while
//       CHECK:       arith.cmpi ne
//       CHECK:       scf.condition
//       CHECK:     } do {
//       CHECK:       arith.remsi
//       CHECK:       scf.yield
//       CHECK:     linalg.yield %[[G]]#1 : i64
//       CHECK:   linalg.generic
//       CHECK:     scf.while
//       CHECK:     arith.divsi
//       CHECK:     arith.muli
fx.graph_module @M {
  fx.graph @forward {
    %a = fx.placeholder "a" : tensor<4xi64>
    %b = fx.placeholder "b" : tensor<4xi64>
    %g = fx.call_function "aten::gcd"(%a, %b) : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
    %l = fx.call_function "aten::lcm"(%a, %b) : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
    fx.output (%g, %l) : tensor<4xi64>, tensor<4xi64>
  }
}
