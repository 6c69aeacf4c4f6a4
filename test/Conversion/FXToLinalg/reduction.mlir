// RUN: fx-opt %s -split-input-file --convert-fx-to-linalg | FileCheck %s

// Reductions are linalg.generic ops with "reduction" iterators into a
// filled init; keepdim re-inserts the reduced dims with
// tensor.expand_shape. softmax and the norms are built from reductions and
// broadcasting elementwise generics.

// CHECK-DAG: #[[$IN:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$OUT:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @forward(
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[FILL:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<2x4xf32>)
// CHECK:         %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[$IN]], #[[$OUT]]], iterator_types = ["parallel", "reduction", "parallel"]}
// CHECK-SAME:      ins(%{{.*}} : tensor<2x3x4xf32>) outs(%[[FILL]] : tensor<2x4xf32>)
// CHECK:           arith.addf
// CHECK:         %[[KEEP:.*]] = tensor.expand_shape %[[SUM]] {{\[\[}}0], [1, 2]] output_shape [2, 1, 4] : tensor<2x4xf32> into tensor<2x1x4xf32>
// CHECK:         return %[[KEEP]]
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x3x4xf32>
    %sum = fx.call_function "aten::sum.dim_IntList"(%x, [1], True, dtype=None) : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
    fx.output %sum : tensor<2x1x4xf32>
  }
}

// -----

// mean over dims -1 and 0 without keepdim: the sum divided by 2 * 4.

// CHECK-LABEL: func.func @forward(
// CHECK:         %[[COUNT:.*]] = arith.constant 8.000000e+00 : f32
// CHECK:         %[[SUM:.*]] = linalg.generic
// CHECK-SAME:      iterator_types = ["reduction", "parallel", "reduction"]
// CHECK-SAME:      outs(%{{.*}} : tensor<3xf32>)
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[SUM]] : tensor<3xf32>)
// CHECK:           arith.divf %{{.*}}, %[[COUNT]] : f32
// CHECK-NOT:     tensor.expand_shape
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x3x4xf32>
    %mean = fx.call_function "aten::mean.dim"(%x, [-1, 0], False, dtype=None) : (tensor<2x3x4xf32>) -> tensor<3xf32>
    fx.output %mean : tensor<3xf32>
  }
}

// -----

// max.dim computes values and indices in one generic with two results;
// the getitem nodes on it become those results. The first NaN wins, as in
// PyTorch: an item replaces the running maximum when it is greater, or when
// it is NaN and the maximum is not.

// CHECK-LABEL: func.func @forward(
// CHECK:         %[[MAX:.*]]:2 = linalg.generic
// CHECK-SAME:      iterator_types = ["parallel", "reduction"]
// CHECK-SAME:      outs(%{{.*}}, %{{.*}} : tensor<2xf32>, tensor<2xi64>)
// CHECK:         ^bb0(%[[IN:.*]]: f32, %[[ACC:.*]]: f32, %{{.*}}: i64):
// CHECK:           linalg.index 1 : index
// CHECK:           %[[GT:.*]] = arith.cmpf ogt, %[[IN]], %[[ACC]]
// CHECK:           %[[INNAN:.*]] = arith.cmpf uno, %[[IN]], %[[IN]]
// CHECK:           %[[ACCNUM:.*]] = arith.cmpf ord, %[[ACC]], %[[ACC]]
// CHECK:           %[[FIRST:.*]] = arith.andi %[[INNAN]], %[[ACCNUM]]
// CHECK:           arith.ori %[[GT]], %[[FIRST]]
// CHECK:         return %[[MAX]]#0, %[[MAX]]#1 : tensor<2xf32>, tensor<2xi64>
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x3xf32>
    %max = fx.call_function "aten::max.dim"(%x, 1, False) : (tensor<2x3xf32>) -> tuple<tensor<2xf32>, tensor<2xi64>>
    %values = fx.call_function "operator.getitem"(%max, 0) : (tuple<tensor<2xf32>, tensor<2xi64>>) -> tensor<2xf32>
    %indices = fx.call_function "operator.getitem"(%max, 1) : (tuple<tensor<2xf32>, tensor<2xi64>>) -> tensor<2xi64>
    fx.output (%values, %indices) : tensor<2xf32>, tensor<2xi64>
  }
}

// -----

// softmax: max-shifted exp divided by its sum, both reduced along dim -1
// and broadcast back from keepdim shape.

// CHECK-LABEL: func.func @forward(
// CHECK:         %[[MAX:.*]] = linalg.generic
// CHECK-SAME:      iterator_types = ["parallel", "reduction"]
// CHECK:           arith.maximumf
// CHECK:         %[[MAXK:.*]] = tensor.expand_shape %[[MAX]] {{\[\[}}0, 1]] output_shape [2, 1]
// CHECK:         %[[SHIFT:.*]] = linalg.generic
// CHECK-SAME:      ins(%{{.*}}, %[[MAXK]] : tensor<2x4xf32>, tensor<2x1xf32>)
// CHECK:           arith.subf
// CHECK:         %[[EXP:.*]] = linalg.generic
// CHECK-SAME:      ins(%[[SHIFT]] : tensor<2x4xf32>)
// CHECK:           math.exp
// CHECK:         %[[SUM:.*]] = linalg.generic
// CHECK-SAME:      iterator_types = ["parallel", "reduction"]
// CHECK:           arith.addf
// CHECK:         %[[SUMK:.*]] = tensor.expand_shape %[[SUM]]
// CHECK:         %[[SOFTMAX:.*]] = linalg.generic
// CHECK-SAME:      ins(%[[EXP]], %[[SUMK]] : tensor<2x4xf32>, tensor<2x1xf32>)
// CHECK:           arith.divf
// CHECK:         return %[[SOFTMAX]]
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x4xf32>
    %softmax = fx.call_function "aten::softmax.int"(%x, -1, None) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    fx.output %softmax : tensor<2x4xf32>
  }
}

// -----

// batch_norm in eval mode, PyTorch's inference form: per channel
// alpha = weight / sqrt(var + eps) and beta = bias - mean * alpha on the
// C-vectors, then one elementwise generic x * alpha + beta reading them
// along the channel dim (no square root or division per element).

// CHECK-DAG: #[[$VEC:map[0-9]*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[$ID:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[$CHANNEL:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, 0)>
// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[X:.*]]: tensor<1x3x4x4xf32>, %[[W:.*]]: tensor<3xf32>, %[[B:.*]]: tensor<3xf32>, %[[MEAN:.*]]: tensor<3xf32>, %[[VAR:.*]]: tensor<3xf32>)
// CHECK-DAG:     %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG:     %[[EPS:.*]] = arith.constant 9.99999974E-6 : f32
// CHECK:         %[[ALPHA:.*]] = linalg.generic {indexing_maps = [#[[$VEC]], #[[$VEC]], #[[$VEC]]]
// CHECK-SAME:      ins(%[[VAR]], %[[W]] : tensor<3xf32>, tensor<3xf32>)
// CHECK-NEXT:    ^bb0(%[[V:.*]]: f32, %[[G:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[VEPS:.*]] = arith.addf %[[V]], %[[EPS]] : f32
// CHECK-NEXT:      %[[STD:.*]] = math.sqrt %[[VEPS]] : f32
// CHECK-NEXT:      %[[INV:.*]] = arith.divf %[[ONE]], %[[STD]] : f32
// CHECK-NEXT:      arith.mulf %[[INV]], %[[G]] : f32
// CHECK:         %[[BETA:.*]] = linalg.generic {indexing_maps = [#[[$VEC]], #[[$VEC]], #[[$VEC]], #[[$VEC]]]
// CHECK-SAME:      ins(%[[MEAN]], %[[ALPHA]], %[[B]] : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
// CHECK-NEXT:    ^bb0(%[[M:.*]]: f32, %[[A:.*]]: f32, %[[BIAS:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[MA:.*]] = arith.mulf %[[M]], %[[A]] : f32
// CHECK-NEXT:      arith.subf %[[BIAS]], %[[MA]] : f32
// CHECK-DAG:     %[[ALPHA4:.*]] = tensor.expand_shape %[[ALPHA]] {{\[\[}}0, 1, 2, 3]] output_shape [1, 3, 1, 1]
// CHECK-DAG:     %[[BETA4:.*]] = tensor.expand_shape %[[BETA]] {{\[\[}}0, 1, 2, 3]] output_shape [1, 3, 1, 1]
// CHECK:         linalg.generic {indexing_maps = [#[[$ID]], #[[$CHANNEL]], #[[$CHANNEL]], #[[$ID]]]
// CHECK-SAME:      ins(%[[X]], %[[ALPHA4]], %[[BETA4]] :
// CHECK-NEXT:    ^bb0(%[[IN:.*]]: f32, %[[AL:.*]]: f32, %[[BE:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[SCALED:.*]] = arith.mulf %[[IN]], %[[AL]] : f32
// CHECK-NEXT:      arith.addf %[[SCALED]], %[[BE]] : f32
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x3x4x4xf32>
    %w = fx.placeholder "w" : tensor<3xf32>
    %b = fx.placeholder "b" : tensor<3xf32>
    %mean = fx.placeholder "mean" : tensor<3xf32>
    %var = fx.placeholder "var" : tensor<3xf32>
    %bn = fx.call_function "aten::batch_norm"(%x, %w, %b, %mean, %var, False, 0.1, 1.0e-05, True) : (tensor<1x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
    fx.output %bn : tensor<1x3x4x4xf32>
  }
}

// -----

// batch_norm in training mode without running statistics (a BatchNorm
// module with track_running_stats=False): the batch's mean and biased
// variance per channel (dims 0 and 2 reduced, divided by 2 * 4), then
// (x - mean) * rsqrt(var + eps) * weight.

// CHECK-LABEL: func.func @forward(
// CHECK-DAG:     %[[N:.*]] = arith.constant 8.000000e+00 : f32
// CHECK:         linalg.generic {{.*}}iterator_types = ["reduction", "parallel", "reduction"]
// CHECK:           arith.divf %{{.*}}, %[[N]] : f32
// CHECK:         linalg.generic {{.*}}iterator_types = ["reduction", "parallel", "reduction"]
// CHECK:           math.rsqrt
// CHECK:         linalg.generic
// CHECK:           arith.subf
// CHECK-NEXT:      arith.mulf
// CHECK-NEXT:      arith.mulf
// CHECK-NEXT:      linalg.yield
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x3x4xf32>
    %w = fx.placeholder "w" : tensor<3xf32>
    %bn = fx.call_function "aten::batch_norm"(%x, %w, None, None, None, True, 0.1, 1.0e-05, True) : (tensor<2x3x4xf32>, tensor<3xf32>) -> tensor<2x3x4xf32>
    fx.output %bn : tensor<2x3x4xf32>
  }
}

// -----

// batch_norm of f16 tensors computes alpha, beta and x * alpha + beta in
// f32 (PyTorch's opmath: x * alpha and beta cancel near the mean), the
// result rounded to f16 once.

// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %{{.*}}: tensor<1x3x4x4xf16>
// CHECK:         linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<3xf16>, tensor<3xf16>) outs(%{{.*}} : tensor<3xf32>)
// CHECK:         linalg.generic {{.*}} ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<3xf16>, tensor<3xf32>, tensor<3xf16>) outs(%{{.*}} : tensor<3xf32>)
// CHECK:         linalg.generic
// CHECK:           arith.extf %{{.*}} : f16 to f32
// CHECK:           arith.mulf %{{.*}} : f32
// CHECK:           arith.addf %{{.*}} : f32
// CHECK:           arith.truncf %{{.*}} : f32 to f16
// CHECK:         } -> tensor<1x3x4x4xf16>
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x3x4x4xf16>
    %w = fx.placeholder "w" : tensor<3xf16>
    %b = fx.placeholder "b" : tensor<3xf16>
    %mean = fx.placeholder "mean" : tensor<3xf16>
    %var = fx.placeholder "var" : tensor<3xf16>
    %bn = fx.call_function "aten::batch_norm"(%x, %w, %b, %mean, %var, False, 0.1, 1.0e-05, True) : (tensor<1x3x4x4xf16>, tensor<3xf16>, tensor<3xf16>, tensor<3xf16>, tensor<3xf16>) -> tensor<1x3x4x4xf16>
    fx.output %bn : tensor<1x3x4x4xf16>
  }
}

// -----

// layer_norm over the last dim: mean and biased variance by reductions,
// then one generic normalizing and scaling by the weight (no bias here).

// CHECK-DAG: #[[$ID:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$ROW:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
// CHECK-DAG: #[[$LAST:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3x4xf32>, %[[W:.*]]: tensor<4xf32>)
// CHECK-DAG:     %[[N:.*]] = arith.constant 4.000000e+00 : f32
// CHECK:         linalg.generic
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "reduction"]
// CHECK:         %[[MEAN:.*]] = linalg.generic
// CHECK:           arith.divf %{{.*}}, %[[N]]
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[X]], %[[MEAN]] : tensor<2x3x4xf32>, tensor<2x3x1xf32>)
// CHECK:           arith.subf
// CHECK:           arith.mulf
// CHECK:         linalg.generic
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "reduction"]
// CHECK:         %[[VAR:.*]] = linalg.generic
// CHECK:           arith.divf %{{.*}}, %[[N]]
// CHECK:         linalg.generic {indexing_maps = [#[[$ID]], #[[$ROW]], #[[$ROW]], #[[$LAST]], #[[$ID]]]
// CHECK-SAME:      ins(%[[X]], %[[MEAN]], %[[VAR]], %[[W]] : tensor<2x3x4xf32>, tensor<2x3x1xf32>, tensor<2x3x1xf32>, tensor<4xf32>)
// CHECK:           math.rsqrt
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x3x4xf32>
    %w = fx.placeholder "w" : tensor<4xf32>
    %ln = fx.call_function "aten::layer_norm"(%x, [4], %w, None, 1.0e-05, True) : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
    fx.output %ln : tensor<2x3x4xf32>
  }
}

// -----

// group_norm views (N, C, *) as (N, G, C/G, *), takes the mean and the
// variance over all but the first two dims, and applies the per-channel
// weight viewed as (1, G, C/G, 1) in that view; the result is collapsed
// back. The batch may be dynamic.

// CHECK-DAG: #[[$AFFINE:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (0, d1, d2, 0)>
// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[X:.*]]: tensor<?x6x5xf32>, %[[W:.*]]: tensor<6xf32>)
// CHECK:         %[[G:.*]] = tensor.expand_shape %[[X]] {{\[}}[0], [1, 2], [3]] output_shape [%{{.*}}, 2, 3, 5] : tensor<?x6x5xf32> into tensor<?x2x3x5xf32>
// CHECK:         %[[SUM:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%[[G]] : tensor<?x2x3x5xf32>)
// CHECK:         %[[WV:.*]] = tensor.expand_shape %[[W]] {{\[}}[0, 1, 2, 3]] output_shape [1, 2, 3, 1] : tensor<6xf32> into tensor<1x2x3x1xf32>
// CHECK:         %[[Y:.*]] = linalg.generic {{.*}}#[[$AFFINE]]
// CHECK-SAME:      ins(%[[G]], %{{.*}}, %{{.*}}, %[[WV]] :
// CHECK:           math.rsqrt
// CHECK:         %[[R:.*]] = tensor.collapse_shape %[[Y]] {{\[}}[0], [1, 2], [3]] : tensor<?x2x3x5xf32> into tensor<?x6x5xf32>
// CHECK:         return %[[R]]
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<?x6x5xf32>
    %w = fx.placeholder "w" : tensor<6xf32>
    %g = fx.call_function "aten::group_norm"(%x, 2, %w, None, 1.000000e-03, True) : (tensor<?x6x5xf32>, tensor<6xf32>) -> tensor<?x6x5xf32>
    fx.output %g : tensor<?x6x5xf32>
  }
}

// -----

// instance_norm with use_input_stats: statistics of each (sample, channel)
// over the spatial dims.

// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3x4x5xf32>)
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%[[X]] : tensor<2x3x4x5xf32>) outs(%{{.*}} : tensor<2x3xf32>)
// CHECK:         math.rsqrt
// CHECK-NOT:     tensor.collapse_shape
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x3x4x5xf32>
    %i = fx.call_function "aten::instance_norm"(%x, None, None, None, None, True, 1.000000e-01, 1.000000e-05, True) : (tensor<2x3x4x5xf32>) -> tensor<2x3x4x5xf32>
    fx.output %i : tensor<2x3x4x5xf32>
  }
}

// -----

// all.dim tests each item against zero, then reduces with `and`; the
// 2-norm squares, sums and takes the root; cumsum is one generic whose
// reduction loop k (sized by the input) adds the items with k <= i.

// CHECK-DAG: #[[$K:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[$I:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[X:.*]]: tensor<3x4xf32>)
// CHECK:         %[[NZ:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<3x4xf32>) outs(%{{.*}} : tensor<3x4xi1>)
// CHECK:           arith.cmpf une
// CHECK:         %[[ALL:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]} ins(%[[NZ]] : tensor<3x4xi1>) outs(%{{.*}} : tensor<3xi1>)
// CHECK:           arith.andi
// CHECK:         linalg.generic
// CHECK:           math.absf
// CHECK:           arith.mulf
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK:           arith.addf
// CHECK:         %[[NORM:.*]] = linalg.generic
// CHECK:           math.sqrt
// CHECK:         %[[CUM:.*]] = linalg.generic {indexing_maps = [#[[$K]], #[[$I]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X]] : tensor<3x4xf32>)
// CHECK:           %[[I:.*]] = linalg.index 1 : index
// CHECK:           %[[KI:.*]] = linalg.index 2 : index
// CHECK:           %[[IN:.*]] = arith.cmpi ule, %[[KI]], %[[I]] : index
// CHECK:           arith.select %[[IN]]
// CHECK:         return %[[ALL]], %[[NORM]], %[[CUM]]
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<3x4xf32>
    %a = fx.call_function "aten::all.dim"(%x, 1, False) : (tensor<3x4xf32>) -> tensor<3xi1>
    %n = fx.call_function "aten::linalg_vector_norm"(%x, 2, [1], False) : (tensor<3x4xf32>) -> tensor<3xf32>
    %c = fx.call_function "aten::cumsum"(%x, 1) : (tensor<3x4xf32>) -> tensor<3x4xf32>
    fx.output (%a, %n, %c) : tensor<3xi1>, tensor<3xf32>, tensor<3x4xf32>
  }
}

// -----

// diagonal(x, 1, 1, 2) reads the square of dims 1 and 2 that holds the
// diagonal (an extract_slice) through the map (i, j) -> (i, j, j);
// one_hot compares each item with the new last dim's index; var_mean
// returns the variance and the mean its first pass computes, without
// the reduced dim.

// CHECK-DAG: #[[$DIAG:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1, d1)>
// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[X:.*]]: tensor<3x4x5xf32>, %[[I:.*]]: tensor<4xi64>)
// CHECK:         %[[SQ:.*]] = tensor.extract_slice %[[X]][0, 0, 1] [3, 4, 4] [1, 1, 1]
// CHECK:         %[[D:.*]] = linalg.generic {indexing_maps = [#[[$DIAG]], {{.*}}} ins(%[[SQ]] : tensor<3x4x4xf32>) outs(%{{.*}} : tensor<3x4xf32>)
// CHECK:         %[[H:.*]] = linalg.generic {{.*}} ins(%[[I]] : tensor<4xi64>) outs(%{{.*}} : tensor<4x3xi64>)
// CHECK:           %[[C:.*]] = linalg.index 1 : index
// CHECK:           %[[CI:.*]] = arith.index_cast %[[C]] : index to i64
// CHECK:           %[[EQ:.*]] = arith.cmpi eq, %{{.*}}, %[[CI]] : i64
// CHECK:           arith.extui %[[EQ]] : i1 to i64
// CHECK:         %[[MEAN:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<3x1x5xf32>)
// CHECK:           arith.divf
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "reduction", "parallel"]} ins(%{{.*}} : tensor<3x4x5xf32>)
// CHECK:         %[[VAR:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<3x5xf32>) outs(%{{.*}} : tensor<3x5xf32>)
// CHECK:           arith.divf
// CHECK:         %[[M1:.*]] = tensor.collapse_shape %[[MEAN]]
// CHECK:         %[[M:.*]] = tensor.expand_shape %[[M1]] {{.*}} into tensor<3x5xf32>
// CHECK:         return %[[D]], %[[H]], %[[VAR]], %[[M]]
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<3x4x5xf32>
    %i = fx.placeholder "i" : tensor<4xi64>
    %d = fx.call_function "aten::diagonal"(%x, 1, 1, 2) : (tensor<3x4x5xf32>) -> tensor<3x4xf32>
    %h = fx.call_function "aten::one_hot"(%i, 3) : (tensor<4xi64>) -> tensor<4x3xi64>
    %vm = fx.call_function "aten::var_mean.dim"(%x, [1], True, False) : (tensor<3x4x5xf32>) -> tuple<tensor<3x5xf32>, tensor<3x5xf32>>
    %v = fx.call_function "operator.getitem"(%vm, 0) : (tuple<tensor<3x5xf32>, tensor<3x5xf32>>) -> tensor<3x5xf32>
    %m = fx.call_function "operator.getitem"(%vm, 1) : (tuple<tensor<3x5xf32>, tensor<3x5xf32>>) -> tensor<3x5xf32>
    fx.output (%d, %h, %v, %m) : tensor<3x4xf32>, tensor<4x3xi64>, tensor<3x5xf32>, tensor<3x5xf32>
  }
}

// -----

// topk ranks every item against every other along dim (greater, or equal
// and earlier), then picks, for each of the k result positions, the item
// of that rank and its index: two generics with a reduction loop.

// CHECK-DAG: #[[$I:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[$J:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[X:.*]]: tensor<2x4xf32>)
// CHECK:         %[[R:.*]] = linalg.generic {indexing_maps = [#[[$I]], #[[$J]], #[[$I]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X]], %[[X]] : tensor<2x4xf32>, tensor<2x4xf32>) outs(%{{.*}} : tensor<2x4xi64>)
// CHECK:           arith.cmpf ogt
// CHECK:           arith.cmpf oeq
// CHECK:           arith.cmpi ult
// CHECK:         %[[P:.*]]:2 = linalg.generic {indexing_maps = [#[[$J]], #[[$J]], #[[$I]], #[[$I]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X]], %[[R]] : tensor<2x4xf32>, tensor<2x4xi64>)
// CHECK:           arith.select
// CHECK:           arith.select
// CHECK:         return %[[P]]#0, %[[P]]#1
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x4xf32>
    %t = fx.call_function "aten::topk"(%x, 2, 1, True, True) : (tensor<2x4xf32>) -> tuple<tensor<2x2xf32>, tensor<2x2xi64>>
    %v = fx.call_function "operator.getitem"(%t, 0) : (tuple<tensor<2x2xf32>, tensor<2x2xi64>>) -> tensor<2x2xf32>
    %i = fx.call_function "operator.getitem"(%t, 1) : (tuple<tensor<2x2xf32>, tensor<2x2xi64>>) -> tensor<2x2xi64>
    fx.output (%v, %i) : tensor<2x2xf32>, tensor<2x2xi64>
  }
}

// -----

// histc over a constant range: each element's bin (an int64 tensor, the
// spare bin 4 for what is not counted), added into 5 counts with
// index_add's scatter (whose bounds check comes along), of which the
// first 4 are the result.

// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[X:.*]]: tensor<6xf32>) -> (tensor<4xf32>, tensor<i1>)
//       CHECK:   %[[POS:.*]] = linalg.generic
//  CHECK-SAME:     outs(%{{.*}} : tensor<6xi64>)
//       CHECK:     arith.fptosi
//       CHECK:     arith.cmpf uno
//       CHECK:   tensor.extract_slice %{{.*}}[0] [4] [1] : tensor<5xf32> to tensor<4xf32>
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<6xf32>
    %h = fx.call_function "aten::histc"(%x, 4, 0.0, 1.0) : (tensor<6xf32>) -> tensor<4xf32>
    fx.output %h : tensor<4xf32>
  }
}
