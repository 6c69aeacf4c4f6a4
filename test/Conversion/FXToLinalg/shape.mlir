// RUN: fx-opt %s -split-input-file --convert-fx-to-linalg | FileCheck %s

// Shape ops: view, reshape and flatten are tensor.collapse_shape and
// tensor.expand_shape; permute and transpose are linalg.transpose; cat
// inserts slices into an empty tensor; slice, select and split extract
// slices; size.int reads tensor.dim; embedding gathers with tensor.extract
// inside a generic.

// A view collapses to 1-d and expands to the new shape, -1 inferred;
// flatten collapses the dims it joins.

// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3x4xf32>)
// CHECK:         %[[FLAT:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1, 2]] : tensor<2x3x4xf32> into tensor<24xf32>
// CHECK:         %[[VIEW:.*]] = tensor.expand_shape %[[FLAT]] {{\[\[}}0, 1]] output_shape [4, 6] : tensor<24xf32> into tensor<4x6xf32>
// CHECK:         %[[FLATTEN:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0], [1, 2]] : tensor<2x3x4xf32> into tensor<2x12xf32>
// CHECK:         return %[[VIEW]], %[[FLATTEN]]
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x3x4xf32>
    %view = fx.call_function "aten::view"(%x, [4, -1]) : (tensor<2x3x4xf32>) -> tensor<4x6xf32>
    %flatten = fx.call_function "aten::flatten.using_ints"(%x, 1, -1) : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
    fx.output (%view, %flatten) : tensor<4x6xf32>, tensor<2x12xf32>
  }
}

// -----

// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3x4xf32>)
// CHECK:         %[[P:.*]] = linalg.transpose ins(%[[X]] : tensor<2x3x4xf32>) outs(%{{.*}} : tensor<4x2x3xf32>) permutation = [2, 0, 1]
// CHECK:         %[[T:.*]] = linalg.transpose ins(%[[X]] : tensor<2x3x4xf32>) outs(%{{.*}} : tensor<4x3x2xf32>) permutation = [2, 1, 0]
// CHECK:         return %[[P]], %[[T]]
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x3x4xf32>
    %permute = fx.call_function "aten::permute"(%x, [2, 0, 1]) : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
    %transpose = fx.call_function "aten::transpose.int"(%x, -1, 0) : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
    fx.output (%permute, %transpose) : tensor<4x2x3xf32>, tensor<4x3x2xf32>
  }
}

// -----

// cat along dim 1: each input is inserted at the running offset.

// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3xf32>, %[[Y:.*]]: tensor<2x5xf32>) -> tensor<2x8xf32>
// CHECK-DAG:     %[[C3:.*]] = arith.constant 3 : index
// CHECK:         %[[EMPTY:.*]] = tensor.empty() : tensor<2x8xf32>
// CHECK:         %[[FIRST:.*]] = tensor.insert_slice %[[X]] into %[[EMPTY]][0, 0] [2, 3] [1, 1]
// CHECK:         %[[BOTH:.*]] = tensor.insert_slice %[[Y]] into %[[FIRST]][0, %[[C3]]] [2, 5] [1, 1]
// CHECK:         return %[[BOTH]]
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x3xf32>
    %y = fx.placeholder "y" : tensor<2x5xf32>
    %cat = fx.call_function "aten::cat"([%x, %y], 1) : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
    fx.output %cat : tensor<2x8xf32>
  }
}

// -----

// x[:, 1::2], x[-1] and x[-3:]: negative indices wrap, an end past the
// dim (INT64_MAX, as FX records `None`) clamps.

// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[X:.*]]: tensor<4x6xf32>)
// CHECK:         %[[C3:.*]] = arith.constant 3 : index
// CHECK:         %[[S:.*]] = tensor.extract_slice %[[X]][0, 1] [4, 3] [1, 2] : tensor<4x6xf32> to tensor<4x3xf32>
// CHECK:         %[[ROW:.*]] = tensor.extract_slice %[[X]][%[[C3]], 0] [1, 6] [1, 1] : tensor<4x6xf32> to tensor<1x6xf32>
// CHECK:         %[[T:.*]] = tensor.collapse_shape %[[ROW]] {{\[\[}}0, 1]] : tensor<1x6xf32> into tensor<6xf32>
// CHECK:         %[[U:.*]] = tensor.extract_slice %[[X]][1, 0] [3, 6] [1, 1] : tensor<4x6xf32> to tensor<3x6xf32>
// CHECK:         return %[[S]], %[[T]], %[[U]]
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<4x6xf32>
    %slice = fx.call_function "aten::slice.Tensor"(%x, 1, 1, None, 2) : (tensor<4x6xf32>) -> tensor<4x3xf32>
    %select = fx.call_function "aten::select.int"(%x, 0, -1) : (tensor<4x6xf32>) -> tensor<6xf32>
    %slice_1 = fx.call_function "aten::slice.Tensor"(%x, 0, -3, 9223372036854775807, 1) : (tensor<4x6xf32>) -> tensor<3x6xf32>
    fx.output (%slice, %select, %slice_1) : tensor<4x3xf32>, tensor<6xf32>, tensor<3x6xf32>
  }
}

// -----

// split into pieces of 2 (the last one smaller); the getitem nodes on the
// split become its pieces (the unused middle one is dropped).

// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[X:.*]]: tensor<5x2xf32>)
// CHECK:         %[[A:.*]] = tensor.extract_slice %[[X]][0, 0] [2, 2] [1, 1] : tensor<5x2xf32> to tensor<2x2xf32>
// CHECK:         %[[C:.*]] = tensor.extract_slice %[[X]][4, 0] [1, 2] [1, 1] : tensor<5x2xf32> to tensor<1x2xf32>
// CHECK:         return %[[C]], %[[A]]
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<5x2xf32>
    %split = fx.call_function "aten::split.Tensor"(%x, 2, 0) : (tensor<5x2xf32>) -> !fx.any
    %getitem = fx.call_function "operator.getitem"(%split, 2) : (!fx.any) -> tensor<1x2xf32>
    %getitem_1 = fx.call_function "operator.getitem"(%split, 0) : (!fx.any) -> tensor<2x2xf32>
    fx.output (%getitem, %getitem_1) : tensor<1x2xf32>, tensor<2x2xf32>
  }
}

// -----

// size.int of a dynamic dim is tensor.dim; the int feeds the next view.

// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[X:.*]]: tensor<?x6xf32>) -> tensor<?x2x3xf32>
// CHECK:         %[[C0:.*]] = arith.constant 0 : index
// CHECK:         %[[DIM:.*]] = tensor.dim %[[X]], %[[C0]] : tensor<?x6xf32>
// CHECK:         %[[N:.*]] = arith.index_cast %[[DIM]] : index to i64
// CHECK:         %[[NI:.*]] = arith.index_cast %[[N]] : i64 to index
// CHECK:         %[[FLAT:.*]] = tensor.collapse_shape %[[X]]
// CHECK:         tensor.expand_shape %[[FLAT]] {{\[\[}}0, 1, 2]] output_shape [%[[NI]], 2, 3] : tensor<?xf32> into tensor<?x2x3xf32>
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<?x6xf32>
    %size = fx.call_function "aten::size.int"(%x, 0) : (tensor<?x6xf32>) -> i64
    %view = fx.call_function "aten::view"(%x, [%size, 2, 3]) : (tensor<?x6xf32>, i64) -> tensor<?x2x3xf32>
    fx.output %view : tensor<?x2x3xf32>
  }
}

// -----

// embedding(weight, indices): each output element extracts
// weight[indices[i, j], k] (the gather of index_select and x[idx], which
// also counts negative indices from the end).

// CHECK-DAG: #[[$IDX:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[$OUT:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// The indices come from input 1: the function records their bounds for
// the runtime, which checks them before each call; in the code an index
// out of range reads row 0 (the select), never memory outside the table.
// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[W:.*]]: tensor<10x4xf32>, %[[I:.*]]: tensor<2x3xi64>)
// CHECK-SAME:    fx.index_bounds = [{hi = 10 : i64, input = 1 : i64, lo = 0 : i64, node = "embedding"}]
// CHECK:         linalg.generic {indexing_maps = [#[[$IDX]], #[[$OUT]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME:      ins(%[[I]] : tensor<2x3xi64>) outs(%{{.*}} : tensor<2x3x4xf32>)
// CHECK-NEXT:    ^bb0(%[[IN:.*]]: i64, %{{.*}}: f32):
// CHECK-NEXT:      %[[J:.*]] = arith.index_cast %[[IN]] : i64 to index
// CHECK:           %[[ROW:.*]] = arith.select %{{.*}}, %[[J]], %{{.*}} : index
// CHECK-NEXT:      %[[COL:.*]] = linalg.index 2 : index
// CHECK-NEXT:      %[[E:.*]] = tensor.extract %[[W]][%[[ROW]], %[[COL]]] : tensor<10x4xf32>
// CHECK-NEXT:      linalg.yield %[[E]] : f32
fx.graph_module @M {
  fx.graph @forward {
    %w = fx.placeholder "w" : tensor<10x4xf32>
    %i = fx.placeholder "i" : tensor<2x3xi64>
    %embedding = fx.call_function "aten::embedding"(%w, %i, -1, False, False) : (tensor<10x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
    fx.output %embedding : tensor<2x3x4xf32>
  }
}

// -----

// constant_pad_nd pads the last dims, (before, after) pairs from the last
// dim backwards, with its value as a tensor.pad.

// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[X:.*]]: tensor<1x2x4x4xf32>)
// CHECK:         %[[V:.*]] = arith.constant 5.000000e-01 : f32
// CHECK:         %[[P:.*]] = tensor.pad %[[X]] low[0, 0, 0, 1] high[0, 0, 2, 1]
// CHECK:           tensor.yield %[[V]] : f32
// CHECK:         } : tensor<1x2x4x4xf32> to tensor<1x2x6x6xf32>
// CHECK:         return %[[P]]
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x2x4x4xf32>
    %pad = fx.call_function "aten::constant_pad_nd"(%x, [1, 1, 0, 2], 0.5) : (tensor<1x2x4x4xf32>) -> tensor<1x2x6x6xf32>
    fx.output %pad : tensor<1x2x6x6xf32>
  }
}

// -----

// Negative padding crops: the dim is sliced first (one element off the
// start of the last dim), then padded (two rows after).

// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[X:.*]]: tensor<1x2x4x4xf32>)
// CHECK:         %[[S:.*]] = tensor.extract_slice %[[X]][0, 0, 0, 1] [1, 2, 4, 3] [1, 1, 1, 1]
// CHECK:         tensor.pad %[[S]] low[0, 0, 0, 0] high[0, 0, 2, 0]
// CHECK:         } : tensor<1x2x4x3xf32> to tensor<1x2x6x3xf32>

fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x2x4x4xf32>
    %crop = fx.call_function "aten::constant_pad_nd"(%x, [-1, 0, 0, 2], 0) : (tensor<1x2x4x4xf32>) -> tensor<1x2x6x3xf32>
    fx.output %crop : tensor<1x2x6x3xf32>
  }
}

// -----

// x[:, idx] (aten::index.Tensor with one index tensor after None) gathers
// along dim 1: the index's dims take its place, a negative index counts
// from the end.

// CHECK-DAG: #[[IDX:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d2)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[X:.*]]: tensor<4x5x6xf32>, %[[I:.*]]: tensor<2x3xi64>
// CHECK:         %[[C5:.*]] = arith.constant 5 : index
// CHECK:         linalg.generic {indexing_maps = [#[[IDX]], #[[OUT]]]
// CHECK-SAME:      ins(%[[I]] : tensor<2x3xi64>) outs(%{{.*}} : tensor<4x2x3x6xf32>)
// CHECK-NEXT:    ^bb0(%[[V:.*]]: i64, %{{.*}}: f32):
// CHECK-NEXT:      %[[J:.*]] = arith.index_cast %[[V]] : i64 to index
// CHECK:           %[[NEG:.*]] = arith.cmpi slt, %[[J]], %{{.*}} : index
// CHECK-NEXT:      %[[WRAP:.*]] = arith.addi %[[J]], %[[C5]] : index
// CHECK-NEXT:      %[[K0:.*]] = arith.select %[[NEG]], %[[WRAP]], %[[J]] : index
// CHECK:           %[[K:.*]] = arith.select %{{.*}}, %[[K0]], %{{.*}} : index
// CHECK-NEXT:      %[[D0:.*]] = linalg.index 0 : index
// CHECK-NEXT:      %[[D3:.*]] = linalg.index 3 : index
// CHECK-NEXT:      %[[E:.*]] = tensor.extract %[[X]][%[[D0]], %[[K]], %[[D3]]] : tensor<4x5x6xf32>
// CHECK-NEXT:      linalg.yield %[[E]] : f32
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<4x5x6xf32>
    %i = fx.placeholder "i" : tensor<2x3xi64>
    %g = fx.call_function "aten::index.Tensor"(%x, [None, %i]) : (tensor<4x5x6xf32>, tensor<2x3xi64>) -> tensor<4x2x3x6xf32>
    fx.output %g : tensor<4x2x3x6xf32>
  }
}

// -----

// index_select is the same gather with a 1-D index.

// CHECK-LABEL: func.func @forward(
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%arg1 : tensor<3xi64>) outs(%{{.*}} : tensor<4x5x3xf32>)
// CHECK:           tensor.extract %arg0[%{{.*}}, %{{.*}}, %{{.*}}] : tensor<4x5x6xf32>
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<4x5x6xf32>
    %i = fx.placeholder "i" : tensor<3xi64>
    %g = fx.call_function "aten::index_select"(%x, -1, %i) : (tensor<4x5x6xf32>, tensor<3xi64>) -> tensor<4x5x3xf32>
    fx.output %g : tensor<4x5x3xf32>
  }
}

// -----

// index_select on a 0-d tensor selects along its implicit dim of size 1
// (found by the OpInfo suite: the lowering read dim 0 of a 0-d type and
// crashed); the result stays 0-d.

// CHECK-LABEL: func.func @forward(
// CHECK:         tensor.expand_shape %arg0 [] output_shape [1] : tensor<f32> into tensor<1xf32>
// CHECK:         linalg.generic
// CHECK:         tensor.collapse_shape %{{.*}} [] : tensor<1xf32> into tensor<f32>
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<f32>
    %i = fx.placeholder "i" : tensor<1xi64>
    %g = fx.call_function "aten::index_select"(%x, 0, %i) : (tensor<f32>, tensor<1xi64>) -> tensor<f32>
    fx.output %g : tensor<f32>
  }
}

// -----

// gather: one generic over the index's shape reading self at the index
// (clamped into range: an index out of range reads element 0; it is
// checked, here by the runtime as the index is an input).

// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    fx.index_bounds = [{hi = 5 : i64, input = 1 : i64, lo = 0 : i64, node = "g"}]
// CHECK:         linalg.generic {{.*}} ins(%arg1 : tensor<4x3xi64>) outs(%{{.*}} : tensor<4x3xf32>)
// CHECK:           %[[I:.*]] = linalg.index 0 : index
// CHECK:           arith.select
// CHECK:           tensor.extract %arg0[%[[I]], %{{.*}}] : tensor<4x5xf32>
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<4x5xf32>
    %i = fx.placeholder "i" : tensor<4x3xi64>
    %g = fx.call_function "aten::gather"(%x, 1, %i) : (tensor<4x5xf32>, tensor<4x3xi64>) -> tensor<4x3xf32>
    fx.output %g : tensor<4x3xf32>
  }
}

// -----

// scatter_add: a loop nest over the index's positions updating a copy of
// self (bufferization.alloc_tensor: never the caller's tensor) in order,
// so that duplicate indices accumulate as on PyTorch's CPU.

// CHECK-LABEL: func.func @forward(
// CHECK:         %[[COPY:.*]] = bufferization.alloc_tensor() copy(%arg0) : tensor<6x5xf32>
// CHECK:         scf.for {{.*}} iter_args(%[[A:.*]] = %[[COPY]])
// CHECK:           scf.for {{.*}} iter_args(%[[B:.*]] = %[[A]])
// CHECK:             tensor.extract %arg1
// CHECK:             tensor.extract %arg2
// CHECK:             tensor.extract %[[B]]
// CHECK:             arith.addf
// CHECK:             tensor.insert
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<6x5xf32>
    %i = fx.placeholder "i" : tensor<4x5xi64>
    %s = fx.placeholder "s" : tensor<4x5xf32>
    %r = fx.call_function "aten::scatter_add"(%x, 0, %i, %s) : (tensor<6x5xf32>, tensor<4x5xi64>, tensor<4x5xf32>) -> tensor<6x5xf32>
    fx.output %r : tensor<6x5xf32>
  }
}

// -----

// scatter_reduce 'mean' without self: a first loop nest sets the
// scattered elements and their counts to 0, a second adds the values and
// counts them, then each element is divided by its count (1 where no
// value arrived).

// CHECK-LABEL: func.func @forward(
// CHECK-DAG:     %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[COPY:.*]] = bufferization.alloc_tensor() copy(%arg0) : tensor<6x5xf32>
// CHECK:         %[[COUNT:.*]] = linalg.fill ins(%[[ZERO]] : f32)
// CHECK:         %[[SET:.*]]:2 = scf.for {{.*}} iter_args(%{{.*}} = %[[COPY]], %{{.*}} = %[[COUNT]])
// CHECK:             tensor.insert %[[ZERO]]
// CHECK:             tensor.insert %[[ZERO]]
// CHECK:         %[[SUM:.*]]:2 = scf.for {{.*}} iter_args(%{{.*}} = %[[SET]]#0, %{{.*}} = %[[SET]]#1)
// CHECK:             arith.addf
// CHECK:             arith.addf %{{.*}}, %[[ONE]]
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[SUM]]#0, %[[SUM]]#1
// CHECK:           arith.cmpf oeq
// CHECK:           arith.select
// CHECK:           arith.divf
fx.graph_module @ScatterMean {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<6x5xf32>
    %i = fx.placeholder "i" : tensor<4x5xi64>
    %s = fx.placeholder "s" : tensor<4x5xf32>
    %r = fx.call_function "aten::scatter_reduce.two"(%x, 0, %i, %s, "mean", include_self=False) : (tensor<6x5xf32>, tensor<4x5xi64>, tensor<4x5xf32>) -> tensor<6x5xf32>
    fx.output %r : tensor<6x5xf32>
  }
}

// -----

// scatter_reduce 'amax' with self: maximumf, so a NaN wins.

// CHECK-LABEL: func.func @forward(
// CHECK:         scf.for
// CHECK:             arith.maximumf
// CHECK-NOT:     scf.for
fx.graph_module @ScatterAmax {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<6x5xf32>
    %i = fx.placeholder "i" : tensor<4x5xi64>
    %s = fx.placeholder "s" : tensor<4x5xf32>
    %r = fx.call_function "aten::scatter_reduce.two"(%x, 0, %i, %s, "amax") : (tensor<6x5xf32>, tensor<4x5xi64>, tensor<4x5xf32>) -> tensor<6x5xf32>
    fx.output %r : tensor<6x5xf32>
  }
}

// -----

// pixel_shuffle: (N, C*r*r, H, W) viewed as (N, C, r, r, H, W), transposed
// to (N, C, H, r, W, r), viewed as (N, C, H*r, W*r); the batch may be
// dynamic.

// CHECK-LABEL: func.func @forward(
// CHECK:         tensor.expand_shape {{.*}} output_shape [%{{.*}}, 2, 2, 2, 3, 5] : tensor<?xf32> into tensor<?x2x2x2x3x5xf32>
// CHECK:         linalg.transpose {{.*}} permutation = [0, 1, 4, 2, 5, 3]
// CHECK:         tensor.expand_shape {{.*}} output_shape [%{{.*}}, 2, 6, 10] : tensor<?xf32> into tensor<?x2x6x10xf32>
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<?x8x3x5xf32>
    %p = fx.call_function "aten::pixel_shuffle"(%x, 2) : (tensor<?x8x3x5xf32>) -> tensor<?x2x6x10xf32>
    fx.output %p : tensor<?x2x6x10xf32>
  }
}

// -----

// flip reads `size - 1 - i`; roll joins the last `shift` items and the
// rest; repeat reads `i mod size` (its extra leading dim reads nothing);
// tril keeps j - i <= diagonal.

// Flips and rolls along a dynamic dim (the batch of a model compiled for
// any batch) read the input with tensor.extract at `size - 1 - i` and at
// `(i - shift) mod size`.

// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[X:.*]]: tensor<?x4xf32>)
// CHECK:         %[[N:.*]] = tensor.dim %[[X]], %c0
// CHECK:         %[[LAST:.*]] = arith.subi %[[N]], %c1
// CHECK:         %[[F:.*]] = linalg.generic {{.*}} outs(
// CHECK:           %[[I:.*]] = linalg.index 0 : index
// CHECK:           %[[FROM:.*]] = arith.subi %[[LAST]], %[[I]] : index
// CHECK:           tensor.extract %[[X]][%[[FROM]], %{{.*}}] : tensor<?x4xf32>
// CHECK:         linalg.generic {{.*}} outs(
// CHECK:           %[[J:.*]] = linalg.index 0 : index
// CHECK:           %[[AT:.*]] = arith.addi %[[J]], %{{.*}} : index
// CHECK:           %[[WRAP:.*]] = arith.cmpi sge, %[[AT]], %{{.*}} : index
// CHECK:           %[[BACK:.*]] = arith.subi %[[AT]], %{{.*}} : index
// CHECK:           %[[ROW:.*]] = arith.select %[[WRAP]], %[[BACK]], %[[AT]] : index
// CHECK:           tensor.extract %[[F]][%[[ROW]], %{{.*}}] : tensor<?x4xf32>
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<?x4xf32>
    %f = fx.call_function "aten::flip"(%x, [0]) : (tensor<?x4xf32>) -> tensor<?x4xf32>
    %r = fx.call_function "aten::roll"(%f, [-3], [0]) : (tensor<?x4xf32>) -> tensor<?x4xf32>
    fx.output %r : tensor<?x4xf32>
  }
}

// -----

// CHECK-DAG: #[[$FLIP:map[0-9]*]] = affine_map<(d0, d1) -> (-d0 + 2, d1)>
// CHECK-DAG: #[[$MOD:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d1 mod 3, d2 mod 4)>
// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[X:.*]]: tensor<3x4xf32>)
// CHECK:         %[[F:.*]] = linalg.generic {indexing_maps = [#[[$FLIP]], {{.*}}} ins(%[[X]] :
// CHECK:         %[[TAIL:.*]] = tensor.extract_slice %[[F]][0, 3] [3, 1] [1, 1]
// CHECK:         %[[HEAD:.*]] = tensor.extract_slice %[[F]][0, 0] [3, 3] [1, 1]
// CHECK:         %[[J0:.*]] = tensor.insert_slice %[[TAIL]] into %{{.*}}[0, 0] [3, 1]
// CHECK:         %[[R:.*]] = tensor.insert_slice %[[HEAD]] into %[[J0]][0, %{{.*}}] [3, 3]
// CHECK:         %[[T:.*]] = linalg.generic {indexing_maps = [#[[$MOD]], {{.*}}} ins(%[[R]] : tensor<3x4xf32>) outs(%{{.*}} : tensor<2x3x8xf32>)
// CHECK:         linalg.generic {{.*}} ins(%[[T]] :
// CHECK:           %[[I:.*]] = linalg.index 1 : index
// CHECK:           %[[J:.*]] = linalg.index 2 : index
// CHECK:           %[[D:.*]] = arith.subi %[[J]], %[[I]] : index
// CHECK:           %[[KEEP:.*]] = arith.cmpi sle, %[[D]], %{{.*}} : index
// CHECK:           arith.select %[[KEEP]]
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<3x4xf32>
    %f = fx.call_function "aten::flip"(%x, [0]) : (tensor<3x4xf32>) -> tensor<3x4xf32>
    %r = fx.call_function "aten::roll"(%f, [1], [1]) : (tensor<3x4xf32>) -> tensor<3x4xf32>
    %t = fx.call_function "aten::repeat"(%r, [2, 1, 2]) : (tensor<3x4xf32>) -> tensor<2x3x8xf32>
    %u = fx.call_function "aten::tril"(%t, 1) : (tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
    fx.output %u : tensor<2x3x8xf32>
  }
}

// -----

// Reflect padding: the input between its mirrored neighbours, without the
// edge (x[2], x[1] before; x[3] after).

// CHECK-DAG: #[[$MIRROR:map[0-9]*]] = affine_map<(d0, d1) -> (d0, -d1 + 1)>
// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[X:.*]]: tensor<2x5xf32>)
// CHECK:         %[[B:.*]] = tensor.extract_slice %[[X]][0, 1] [2, 2] [1, 1]
// CHECK:         %[[BF:.*]] = linalg.generic {indexing_maps = [#[[$MIRROR]], {{.*}}} ins(%[[B]] :
// CHECK:         %[[A:.*]] = tensor.extract_slice %[[X]][0, 3] [2, 1] [1, 1]
// CHECK:         %[[AF:.*]] = linalg.generic {{.*}} ins(%[[A]] :
// CHECK:         %[[P0:.*]] = tensor.insert_slice %[[BF]] into %{{.*}}[0, 0] [2, 2]
// CHECK:         %[[P1:.*]] = tensor.insert_slice %[[X]] into %[[P0]][0, %{{.*}}] [2, 5]
// CHECK:         %[[P2:.*]] = tensor.insert_slice %[[AF]] into %[[P1]][0, %{{.*}}] [2, 1]
// CHECK:         return %[[P2]]
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x5xf32>
    %p = fx.call_function "aten::pad"(%x, [2, 1], "reflect", None) : (tensor<2x5xf32>) -> tensor<2x8xf32>
    fx.output %p : tensor<2x8xf32>
  }
}

// -----

// A node whose results have no elements computes nothing, whatever its
// target: its result is an empty tensor (glu of a batch of 0 here).

// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %{{.*}}: tensor<0x4xf32>)
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<0x2xf32>
// CHECK-NEXT:    return %[[E]] : tensor<0x2xf32>

fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<0x4xf32>
    %g = fx.call_function "aten::glu"(%x, 1) : (tensor<0x4xf32>) -> tensor<0x2xf32>
    fx.output %g : tensor<0x2xf32>
  }
}

// -----

// tile pads its dims with leading 1s and repeats (indices mod the input's
// dims); rot90 by one turn flips dims[1] then swaps the dims; diff
// subtracts neighbouring slices; cumprod multiplies the items up to each
// (the rest masked to 1); trace sums the leading square's diagonal.

// CHECK-DAG: #[[TILE:.*]] = affine_map<(d0, d1) -> (d0 mod 2, d1 mod 3)>
// CHECK-DAG: #[[FLIP:.*]] = affine_map<(d0, d1) -> (d0, -d1 + 5)>
// CHECK-DAG: #[[DIAG:.*]] = affine_map<(d0) -> (d0, d0)>
// CHECK-LABEL: func.func @forward(
// CHECK:         linalg.generic {indexing_maps = [#[[TILE]], {{.*}}} ins(%arg0 : tensor<2x3xf32>) outs(%{{.*}} : tensor<2x6xf32>)
// CHECK:         linalg.generic {indexing_maps = [#[[FLIP]],
// CHECK:         linalg.transpose {{.*}} permutation = [1, 0]
// CHECK:         %[[NEXT:.*]] = tensor.extract_slice %{{.*}}[1, 0] [5, 2] [1, 1]
// CHECK:         %[[PREV:.*]] = tensor.extract_slice %{{.*}}[0, 0] [5, 2] [1, 1]
// CHECK:         ins(%[[NEXT]], %[[PREV]] : tensor<5x2xf32>, tensor<5x2xf32>)
// CHECK:           arith.subf
// CHECK:         linalg.fill ins(%[[ONE:.*]] : f32)
// CHECK:           arith.cmpi ule
// CHECK:           arith.select {{.*}}, %[[ONE]] : f32
// CHECK:           arith.mulf
// CHECK:         tensor.extract_slice %{{.*}}[0, 0] [2, 2] [1, 1] : tensor<5x2xf32> to tensor<2x2xf32>
// CHECK:         linalg.generic {indexing_maps = [#[[DIAG]],
// CHECK:         iterator_types = ["reduction"]
// CHECK:           arith.addf

fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x3xf32>
    %t = fx.call_function "aten::tile"(%x, [2]) : (tensor<2x3xf32>) -> tensor<2x6xf32>
    %r = fx.call_function "aten::rot90"(%t, 1, [0, 1]) : (tensor<2x6xf32>) -> tensor<6x2xf32>
    %d = fx.call_function "aten::diff"(%r, 1, 0, None, None) : (tensor<6x2xf32>) -> tensor<5x2xf32>
    %c = fx.call_function "aten::cumprod"(%d, 1) : (tensor<5x2xf32>) -> tensor<5x2xf32>
    %s = fx.call_function "aten::trace"(%c) : (tensor<5x2xf32>) -> tensor<f32>
    fx.output %s : tensor<f32>
  }
}

// -----

// logcumsumexp: as cumsum, the items after each masked (here to -inf),
// combined by logaddexp, max + log1p(exp(min - max)), except where both
// are the same infinity (then the accumulator itself).

// CHECK-LABEL: func.func @forward(
// CHECK:         %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK:         linalg.fill ins(%[[NEGINF]] : f32)
// CHECK:         iterator_types = ["parallel", "parallel", "reduction"]
// CHECK:           arith.cmpi ule
// CHECK:           %[[ITEM:.*]] = arith.select %{{.*}}, %{{.*}}, %[[NEGINF]] : f32
// CHECK:           %[[LO:.*]] = arith.minimumf %[[ACC:.*]], %[[ITEM]]
// CHECK:           %[[HI:.*]] = arith.maximumf %[[ACC]], %[[ITEM]]
// CHECK:           math.exp
// CHECK:           math.log1p
// CHECK:           arith.cmpf oeq, %[[LO]], %[[HI]]
// CHECK:           math.absf %[[LO]]
// CHECK:           arith.andi
// CHECK:           arith.select %{{.*}}, %[[ACC]], %{{.*}} : f32

fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<3x5xf32>
    %c = fx.call_function "aten::logcumsumexp"(%x, -1) : (tensor<3x5xf32>) -> tensor<3x5xf32>
    fx.output %c : tensor<3x5xf32>
  }
}

// -----

// cummax: one generic with two results (values from -inf, indices from
// 0), a reduction loop over the items j <= i; an item takes the place of
// the running maximum when it is >= it (the later of equal items, as in
// ATen) or NaN.

// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    -> (tensor<3x5xf32>, tensor<3x5xi64>)
// CHECK:         %[[V:.*]]:2 = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0 : tensor<3x5xf32>) outs(%{{.*}}, %{{.*}} : tensor<3x5xf32>, tensor<3x5xi64>)
// CHECK-NEXT:    ^bb0(%[[IN:.*]]: f32, %[[ACC:.*]]: f32, %[[IDX:.*]]: i64):
// CHECK:           %[[UPTO:.*]] = arith.cmpi ule
// CHECK:           %[[GE:.*]] = arith.cmpf oge, %[[IN]], %[[ACC]]
// CHECK:           %[[NAN:.*]] = arith.cmpf uno, %[[IN]], %[[IN]]
// CHECK:           %[[BETTER:.*]] = arith.ori %[[NAN]], %[[GE]]
// CHECK:           %[[TAKE:.*]] = arith.andi %[[UPTO]], %[[BETTER]]
// CHECK:           arith.select %[[TAKE]], %[[IN]], %[[ACC]] : f32
// CHECK:           arith.select %[[TAKE]], %{{.*}}, %[[IDX]] : i64
// CHECK:         return %[[V]]#0, %[[V]]#1

fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<3x5xf32>
    %c = fx.call_function "aten::cummax"(%x, 1) : (tensor<3x5xf32>) -> tuple<tensor<3x5xf32>, tensor<3x5xi64>>
    fx.output %c : tuple<tensor<3x5xf32>, tensor<3x5xi64>>
  }
}

// -----

// searchsorted counts, for each value, the sequence items that come
// before it, by ATen's binary search: [start, end) narrowed to the first
// item > the value (right=True), an item that compares false (NaN) counted
// as before it, so NaN values come after everything.

// CHECK-LABEL: func.func @forward(
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C9:.*]] = arith.constant 9 : index
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%arg1 : tensor<3x5xf32>)
// CHECK:         ^bb0(%[[V:.*]]: f32, %{{.*}}: i64):
// CHECK:           %[[FOUND:.*]]:2 = scf.while (%[[S:.*]] = %[[C0]], %[[E:.*]] = %[[C9]])
// CHECK:             arith.cmpi ult, %[[S]], %[[E]]
// CHECK:           } do {
// CHECK:             %[[MID:.*]] = arith.addi
// CHECK:             %[[ITEM:.*]] = tensor.extract %arg0[%[[MID]]] : tensor<9xf32>
// CHECK:             %[[AFTER:.*]] = arith.cmpf ogt, %[[ITEM]], %[[V]] : f32
// CHECK:             arith.select %[[AFTER]]
// CHECK:           arith.index_cast %[[FOUND]]#0 : index to i64

fx.graph_module @M {
  fx.graph @forward {
    %s = fx.placeholder "s" : tensor<9xf32>
    %v = fx.placeholder "v" : tensor<3x5xf32>
    %r = fx.call_function "aten::searchsorted.Tensor"(%s, %v, right=True) : (tensor<9xf32>, tensor<3x5xf32>) -> tensor<3x5xi64>
    fx.output %r : tensor<3x5xi64>
  }
}

// -----

// max_unpool2d: zeros of the output size, flattened over the spatial dims,
// then one loop nest over the input's positions writing each value at its
// index (checked at run time), reshaped to the output.

// CHECK-LABEL: func.func @forward(
// CHECK:         %[[ZEROS:.*]] = linalg.fill {{.*}} -> tensor<1x2x16xf32>
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:             scf.for {{.*}} iter_args(%[[OUT:.*]] =
// CHECK:               %[[AT:.*]] = tensor.extract %{{.*}} : tensor<1x2x4xi64>
// CHECK:               %[[V:.*]] = tensor.extract %{{.*}} : tensor<1x2x4xf32>
// CHECK:               tensor.insert %[[V]] into %[[OUT]]
// CHECK:         tensor.expand_shape {{.*}} into tensor<1x2x4x4xf32>

fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x2x2x2xf32>
    %i = fx.placeholder "i" : tensor<1x2x2x2xi64>
    %r = fx.call_function "aten::max_unpool2d"(%x, %i, [4, 4]) : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64>) -> tensor<1x2x4x4xf32>
    fx.output %r : tensor<1x2x4x4xf32>
  }
}

// -----

// diag_embed lays x's last dim along the offset diagonal of (dim1, dim2):
// one generic over the result, x read at the diagonal's position (clamped
// into x off the diagonal, where the result is 0).

// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3xf32>)
// CHECK:         linalg.generic {{.*}} outs(%{{.*}} : tensor<4x2x4xf32>)
// CHECK:           %[[I:.*]] = linalg.index 0 : index
// CHECK:           %[[J:.*]] = linalg.index 2 : index
// CHECK:           %[[D:.*]] = arith.subi %[[J]], %[[I]] : index
// CHECK:           %[[ON:.*]] = arith.cmpi eq, %[[D]], %c1 : index
// CHECK:           %[[V:.*]] = tensor.extract %[[X]][%{{.*}}, %{{.*}}] : tensor<2x3xf32>
// CHECK:           arith.select %[[ON]], %[[V]], %{{.*}} : f32

fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x3xf32>
    %d = fx.call_function "aten::diag_embed"(%x, 1, 0, 2) : (tensor<2x3xf32>) -> tensor<4x2x4xf32>
    fx.output %d : tensor<4x2x4xf32>
  }
}

// -----

// Tensor.unfold(1, 3, 2): windows of 3 every 2 along dim 1, a copy read
// through x[a, w * 2 + k, b] into (a, w, b, k).

// CHECK-DAG:   #[[WIN:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1 * 2 + d3, d2)>
// CHECK-LABEL: func.func @forward(
// CHECK:         linalg.generic {indexing_maps = [#[[WIN]], {{.*}}ins(%arg0 : tensor<2x7x4xf32>) outs(%{{.*}} : tensor<2x3x4x3xf32>)
fx.graph_module @Unfold {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x7x4xf32>
    %r = fx.call_function "aten::unfold"(%x, 1, 3, 2) : (tensor<2x7x4xf32>) -> tensor<2x3x4x3xf32>
    fx.output %r : tensor<2x3x4x3xf32>
  }
}

// -----

// repeat_interleave(x, 3, dim=1): a broadcast into a new dim after dim 1,
// collapsed into it.

// CHECK-DAG: #[[$DROP:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[X:.*]]: tensor<2x4xf32>) -> tensor<2x12xf32>
//       CHECK:   %[[S:.*]] = linalg.generic {indexing_maps = [#[[$DROP]], #{{.*}}]
//  CHECK-SAME:     ins(%[[X]] : tensor<2x4xf32>) outs(%{{.*}} : tensor<2x4x3xf32>)
//       CHECK:   tensor.collapse_shape %[[S]] {{\[\[}}0], [1, 2]] : tensor<2x4x3xf32> into tensor<2x12xf32>
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x4xf32>
    %r = fx.call_function "aten::repeat_interleave.self_int"(%x, 3, 1, output_size=None) : (tensor<2x4xf32>) -> tensor<2x12xf32>
    fx.output %r : tensor<2x12xf32>
  }
}

// -----

// Two index tensors on dims 0 and 1 (`x[i, j]`, shapes 2x1 and 3
// broadcast to 2x3): one gather, each index wrapped when negative and
// clamped, and bounds-checked when the call runs.

// CHECK-DAG: #[[$I:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, 0)>
// CHECK-DAG: #[[$J:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[X:.*]]: tensor<4x5x6xf32>, %[[I:.*]]: tensor<2x1xi64>, %[[J:.*]]: tensor<3xi64>)
//       CHECK:   linalg.generic {indexing_maps = [#[[$I]], #[[$J]], #{{.*}}]
//  CHECK-SAME:     ins(%[[I]], %[[J]] : tensor<2x1xi64>, tensor<3xi64>) outs(%{{.*}} : tensor<2x3x6xf32>)
//       CHECK:     tensor.extract %[[X]]
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<4x5x6xf32>
    %i = fx.placeholder "i" : tensor<2x1xi64>
    %j = fx.placeholder "j" : tensor<3xi64>
    %g = fx.call_function "aten::index.Tensor"(%x, [%i, %j]) : (tensor<4x5x6xf32>, tensor<2x1xi64>, tensor<3xi64>) -> tensor<2x3x6xf32>
    fx.output %g : tensor<2x3x6xf32>
  }
}

// -----

// select keeps the picked dim (size 1) in its slice and collapses exactly
// that dim away: a rank-reducing slice of a tensor with another unit dim
// would not say which one it drops (and MLIR 22's canonicalization,
// folding the constant offset, dropped dim 0 here).

// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[X:.*]]: tensor<1x3x4xf32>)
// CHECK:         %[[S:.*]] = tensor.extract_slice %[[X]][0, 0, %{{.*}}] [1, 3, 1] [1, 1, 1] : tensor<1x3x4xf32> to tensor<1x3x1xf32>
// CHECK:         tensor.collapse_shape %[[S]] {{\[\[}}0], [1, 2]] : tensor<1x3x1xf32> into tensor<1x3xf32>
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x3x4xf32>
    %s = fx.call_function "aten::select.int"(%x, 2, 0) : (tensor<1x3x4xf32>) -> tensor<1x3xf32>
    fx.output %s : tensor<1x3xf32>
  }
}

// -----

// repeat of a dim of run-time size (a dynamic batch): its copies joined
// along it (an index modulo a run-time size is no affine map), the static
// dims read through `mod`.
// CHECK-DAG: #[[READ:.*]] = affine_map<(d0, d1, d2) -> (d0, 0, d2 mod 3)>
// CHECK-LABEL: func.func @forward
//       CHECK: %[[N:.*]] = arith.addi
//       CHECK: %[[JOINED:.*]] = tensor.empty(%[[N]]) : tensor<?x1x3xf32>
//       CHECK: %[[FIRST:.*]] = tensor.insert_slice %arg0 into %[[JOINED]][0, 0, 0]
//       CHECK: %[[BOTH:.*]] = tensor.insert_slice %arg0 into %[[FIRST]][%{{.*}}, 0, 0]
//       CHECK: linalg.generic {indexing_maps = [#[[READ]], {{.*}}]{{.*}} ins(%[[BOTH]] : tensor<?x1x3xf32>)
//       CHECK: -> tensor<?x3x3xf32>
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<?x1x3xf32>
    %r = fx.call_function "aten::repeat"(%x, [2, 3, 1]) : (tensor<?x1x3xf32>) -> tensor<?x3x3xf32>
    fx.output %r : tensor<?x3x3xf32>
  }
}
