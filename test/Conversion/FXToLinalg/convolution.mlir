// RUN: fx-opt %s -split-input-file --convert-fx-to-linalg | FileCheck %s

// Convolutions and pooling become linalg named ops on NCHW tensors:
// padding is an explicit tensor.pad, stride and dilation are attributes,
// the bias is the broadcast init. groups picks the op: 1 is
// conv_2d_nchw_fchw, one channel per group is depthwise, other group
// counts split the channel dims for conv_2d_ngchw_gfchw. 1-d ops are their
// 2-d form with a unit height.

// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[X:.*]]: tensor<1x3x8x8xf32>, %[[W:.*]]: tensor<8x3x3x3xf32>, %[[B:.*]]: tensor<8xf32>)
// CHECK:         %[[PAD:.*]] = tensor.pad %[[X]] low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK:         } : tensor<1x3x8x8xf32> to tensor<1x3x10x10xf32>
// CHECK:         %[[INIT:.*]] = linalg.generic
// CHECK-SAME:      ins(%[[B]] : tensor<8xf32>) outs(%{{.*}} : tensor<1x8x4x4xf32>)
// CHECK:         %[[CONV:.*]] = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
// CHECK-SAME:      ins(%[[PAD]], %[[W]] : tensor<1x3x10x10xf32>, tensor<8x3x3x3xf32>) outs(%[[INIT]] : tensor<1x8x4x4xf32>)
// CHECK:         return %[[CONV]]
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x3x8x8xf32>
    %w = fx.placeholder "w" : tensor<8x3x3x3xf32>
    %b = fx.placeholder "b" : tensor<8xf32>
    %conv = fx.call_function "aten::conv2d"(%x, %w, %b, [2, 2], [1, 1], [1, 1], 1) : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
    fx.output %conv : tensor<1x8x4x4xf32>
  }
}

// -----

// padding='same' with dilation 2: (3 - 1) * 2 = 4 split evenly. (An odd
// output, not cut into phases; a window reading the image 83% of the
// time, not cut into positions.)

// CHECK-LABEL: func.func @forward(
// CHECK:         tensor.pad %{{.*}} low[0, 0, 2, 2] high[0, 0, 2, 2]
// CHECK:         linalg.conv_2d_nchw_fchw {dilations = dense<2> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
// CHECK-SAME:      outs(%{{.*}} : tensor<1x4x15x15xf32>)
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x3x15x15xf32>
    %w = fx.placeholder "w" : tensor<4x3x3x3xf32>
    %conv = fx.call_function "aten::conv2d.padding"(%x, %w, None, [1, 1], "same", [2, 2], 1) : (tensor<1x3x15x15xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x15x15xf32>
    fx.output %conv : tensor<1x4x15x15xf32>
  }
}

// -----

// Depthwise: groups == in_channels == out_channels.

// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[X:.*]]: tensor<1x4x8x8xf32>, %[[W:.*]]: tensor<4x1x3x3xf32>)
// CHECK:         %[[WC:.*]] = tensor.collapse_shape %[[W]] {{\[\[}}0, 1], [2], [3]] : tensor<4x1x3x3xf32> into tensor<4x3x3xf32>
// CHECK:         linalg.depthwise_conv_2d_nchw_chw {dilations = dense<2> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
// CHECK-SAME:      ins(%[[X]], %[[WC]] : tensor<1x4x8x8xf32>, tensor<4x3x3xf32>) outs(%{{.*}} : tensor<1x4x4x4xf32>)
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x4x8x8xf32>
    %w = fx.placeholder "w" : tensor<4x1x3x3xf32>
    %conv = fx.call_function "aten::conv2d"(%x, %w, None, [1, 1], [0, 0], [2, 2], 4) : (tensor<1x4x8x8xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x4x4xf32>
    fx.output %conv : tensor<1x4x4x4xf32>
  }
}

// -----

// groups=2: channels split into (group, channel) dims.

// CHECK-LABEL: func.func @forward(
// CHECK:         %[[XG:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2], [3], [4]] output_shape [1, 2, 2, 8, 8] : tensor<1x4x8x8xf32> into tensor<1x2x2x8x8xf32>
// CHECK:         %[[WG:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2], [3], [4]] output_shape [2, 3, 2, 3, 3] : tensor<6x2x3x3xf32> into tensor<2x3x2x3x3xf32>
// CHECK:         %[[CONV:.*]] = linalg.conv_2d_ngchw_gfchw
// CHECK-SAME:      ins(%[[XG]], %[[WG]] : tensor<1x2x2x8x8xf32>, tensor<2x3x2x3x3xf32>) outs(%{{.*}} : tensor<1x2x3x6x6xf32>)
// CHECK:         tensor.collapse_shape %[[CONV]] {{\[\[}}0], [1, 2], [3], [4]] : tensor<1x2x3x6x6xf32> into tensor<1x6x6x6xf32>
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x4x8x8xf32>
    %w = fx.placeholder "w" : tensor<6x2x3x3xf32>
    %conv = fx.call_function "aten::conv2d"(%x, %w, None, [1, 1], [0, 0], [1, 1], 2) : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x6x6xf32>
    fx.output %conv : tensor<1x6x6x6xf32>
  }
}

// -----

// conv1d is conv2d over a unit height.

// CHECK-LABEL: func.func @forward(
// CHECK:         tensor.expand_shape %{{.*}} {{\[\[}}0], [1], [2, 3]] output_shape [1, 3, 1, 8] : tensor<1x3x8xf32> into tensor<1x3x1x8xf32>
// CHECK:         tensor.pad %{{.*}} low[0, 0, 0, 1] high[0, 0, 0, 1]
// CHECK:         %[[CONV:.*]] = linalg.conv_2d_nchw_fchw
// CHECK-SAME:      -> tensor<1x4x1x8xf32>
// CHECK:         tensor.collapse_shape %[[CONV]] {{\[\[}}0], [1, 2], [3]] : tensor<1x4x1x8xf32> into tensor<1x4x8xf32>
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x3x8xf32>
    %w = fx.placeholder "w" : tensor<4x3x3xf32>
    %conv = fx.call_function "aten::conv1d"(%x, %w, None, [1], [1], [1], 1) : (tensor<1x3x8xf32>, tensor<4x3x3xf32>) -> tensor<1x4x8xf32>
    fx.output %conv : tensor<1x4x8xf32>
  }
}

// -----

// max_pool2d_with_indices: one generic over (n, c, oh, ow, kh, kw) with
// two outputs, in ATen's scan order: an element inside the input (not
// padding) replaces the kept one when it is greater, a NaN, or the first;
// the index is h * W + w in the unpadded input.

// CHECK-LABEL: func.func @forward(
// CHECK:         %[[MINUS1:.*]] = arith.constant -1 : i64
// CHECK:         %[[VALUES:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x3x3x3xf32>)
// CHECK:         %[[INDICES:.*]] = linalg.fill ins(%[[MINUS1]] : i64) outs(%{{.*}} : tensor<1x3x3x3xi64>)
// CHECK:         %[[R:.*]]:2 = linalg.generic
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK-SAME:      outs(%[[VALUES]], %[[INDICES]] : tensor<1x3x3x3xf32>, tensor<1x3x3x3xi64>)
// CHECK:           arith.cmpf uno
// CHECK:           arith.cmpf ogt
// CHECK:           arith.cmpi eq, %{{.*}}, %[[MINUS1]] : i64
// CHECK:           linalg.yield %{{.*}}, %{{.*}} : f32, i64
// CHECK:         return %[[R]]#0, %[[R]]#1
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x3x5x5xf32>
    %pool = fx.call_function "aten::max_pool2d_with_indices"(%x, [3, 3], [2, 2], [1, 1], [1, 1], False) : (tensor<1x3x5x5xf32>) -> tuple<tensor<1x3x3x3xf32>, tensor<1x3x3x3xi64>>
    %v = fx.call_function "operator.getitem"(%pool, 0) : (tuple<tensor<1x3x3x3xf32>, tensor<1x3x3x3xi64>>) -> tensor<1x3x3x3xf32>
    %i = fx.call_function "operator.getitem"(%pool, 1) : (tuple<tensor<1x3x3x3xf32>, tensor<1x3x3x3xi64>>) -> tensor<1x3x3x3xi64>
    fx.output (%v, %i) : tensor<1x3x3x3xf32>, tensor<1x3x3x3xi64>
  }
}

// -----

// max_pool2d: an -inf init; stride [] is the kernel size.

// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[X:.*]]: tensor<1x3x8x8xf32>)
// CHECK:         %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK:         %[[FILL:.*]] = linalg.fill ins(%[[NEGINF]] : f32) outs(%{{.*}} : tensor<1x3x4x4xf32>)
// CHECK:         %[[WINDOW:.*]] = tensor.empty() : tensor<2x2xf32>
// CHECK:         linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
// CHECK-SAME:      ins(%[[X]], %[[WINDOW]] : tensor<1x3x8x8xf32>, tensor<2x2xf32>) outs(%[[FILL]] : tensor<1x3x4x4xf32>)
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x3x8x8xf32>
    %pool = fx.call_function "aten::max_pool2d"(%x, [2, 2], [], [0, 0], [1, 1], False) : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
    fx.output %pool : tensor<1x3x4x4xf32>
  }
}

// -----

// ceil_mode: the last window runs past the input, which is padded with
// -inf on the high side.

// CHECK-LABEL: func.func @forward(
// CHECK:         %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK:         tensor.pad %{{.*}} low[0, 0, 0, 0] high[0, 0, 1, 1]
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      tensor.yield %[[NEGINF]] : f32
// CHECK:         linalg.pooling_nchw_max
// CHECK-SAME:      outs(%{{.*}} : tensor<1x1x3x3xf32>)
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x1x5x5xf32>
    %pool = fx.call_function "aten::max_pool2d"(%x, [2, 2], [2, 2], [0, 0], [1, 1], True) : (tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32>
    fx.output %pool : tensor<1x1x3x3xf32>
  }
}

// -----

// avg_pool2d: a sum pool divided by a constant table of window sizes; with
// count_include_pad=False the padding does not count, so the windows at
// the border are smaller.

// CHECK-LABEL: func.func @forward(
// CHECK:         %[[DIVISOR:.*]] = arith.constant dense<{{\[\[}}4.000000e+00, 6.000000e+00], [6.000000e+00, 9.000000e+00]]> : tensor<2x2xf32>
// CHECK:         tensor.pad %{{.*}} low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK:         %[[SUM:.*]] = linalg.pooling_nchw_sum {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[SUM]], %[[DIVISOR]] : tensor<1x3x2x2xf32>, tensor<2x2xf32>)
// CHECK:           arith.divf
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x3x4x4xf32>
    %pool = fx.call_function "aten::avg_pool2d"(%x, [3, 3], [2, 2], [1, 1], False, False, None) : (tensor<1x3x4x4xf32>) -> tensor<1x3x2x2xf32>
    fx.output %pool : tensor<1x3x2x2xf32>
  }
}

// -----

// ceil_mode with count_include_pad=True: the part of the last window past
// the input does not count either.

// CHECK-LABEL: func.func @forward(
// CHECK:         arith.constant dense<{{\[\[}}4.000000e+00, 4.000000e+00, 2.000000e+00], [4.000000e+00, 4.000000e+00, 2.000000e+00], [2.000000e+00, 2.000000e+00, 1.000000e+00]]> : tensor<3x3xf32>
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x1x5x5xf32>
    %pool = fx.call_function "aten::avg_pool2d"(%x, [2, 2], [2, 2], [0, 0], True, True, None) : (tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32>
    fx.output %pool : tensor<1x1x3x3xf32>
  }
}

// -----

// adaptive_avg_pool2d: a contraction with per-axis weight tables; the bins
// of 8 -> 3 are [0, 3), [2, 6), [5, 8).

// CHECK-LABEL: func.func @forward(
// CHECK:         %[[TABLE:.*]] = arith.constant dense<{{\[\[}}0.333333343, 0.333333343, 0.333333343, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00], [0.000000e+00, 0.000000e+00, 2.500000e-01, 2.500000e-01, 2.500000e-01, 2.500000e-01, 0.000000e+00, 0.000000e+00], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.333333343, 0.333333343, 0.333333343]]> : tensor<3x8xf32>
// CHECK:         linalg.generic
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK-SAME:      ins(%{{.*}}, %[[TABLE]], %[[TABLE]] : tensor<1x3x8x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>) outs(%{{.*}} : tensor<1x3x3x3xf32>)
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x3x8x8xf32>
    %pool = fx.call_function "aten::adaptive_avg_pool2d"(%x, [3, 3]) : (tensor<1x3x8x8xf32>) -> tensor<1x3x3x3xf32>
    fx.output %pool : tensor<1x3x3x3xf32>
  }
}

// -----

// A 3-D conv is a sum over the kernel's depth of 2-D convs: the padded
// input's frames are moved next to the batch once; depth tap kd convolves
// frames kd.. (folded into the batch) with the weight's slice kd; the sum
// is transposed back. 3-D max pooling is a generic of the named 2-D op's
// form: a window operand gives the reduction loops their sizes.

// CHECK-DAG: #[[$WIN:map[0-9]*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2 * 2 + d5, d3 * 2 + d6, d4 * 2 + d7)>
// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[X:.*]]: tensor<1x6x5x4x4xf32>, %[[WT:.*]]: tensor<9x2x3x1x1xf32>)
// CHECK:         %[[P:.*]] = tensor.pad %[[X]] low[0, 0, 1, 0, 0] high[0, 0, 1, 0, 0]
// CHECK:         %[[T:.*]] = linalg.transpose ins(%[[P]] : tensor<1x6x7x4x4xf32>) outs(%{{.*}} : tensor<1x7x6x4x4xf32>) permutation = [0, 2, 1, 3, 4]
// CHECK:         %[[F0:.*]] = tensor.extract_slice %[[T]][0, 0, 0, 0, 0] [1, 5, 6, 4, 4] [1, 1, 1, 1, 1]
// CHECK:         tensor.collapse_shape %[[F0]] {{\[}}[0, 1], [2], [3], [4]] : tensor<1x5x6x4x4xf32> into tensor<5x6x4x4xf32>
// CHECK:         tensor.extract_slice %[[WT]][0, 0, 0, 0, 0] [9, 2, 1, 1, 1] [1, 1, 1, 1, 1] : tensor<9x2x3x1x1xf32> to tensor<9x2x1x1xf32>
// CHECK:         %[[C0:.*]] = linalg.conv_2d_ngchw_gfchw
// CHECK:         tensor.extract_slice %[[T]][0, 1, 0, 0, 0] [1, 5, 6, 4, 4]
// CHECK:         tensor.extract_slice %[[WT]][0, 0, 1, 0, 0]
// CHECK:         linalg.conv_2d_ngchw_gfchw
// CHECK:         linalg.generic
// CHECK:           arith.addf
// CHECK:         tensor.extract_slice %[[T]][0, 2, 0, 0, 0] [1, 5, 6, 4, 4]
// CHECK:         linalg.conv_2d_ngchw_gfchw
// CHECK:         %[[SUM:.*]] = linalg.generic
// CHECK:         %[[S:.*]] = tensor.expand_shape %[[SUM]] {{\[}}[0, 1], [2], [3], [4]] output_shape [1, 5, 9, 4, 4]
// CHECK:         %[[Y:.*]] = linalg.transpose ins(%[[S]] : tensor<1x5x9x4x4xf32>) outs(%{{.*}} : tensor<1x9x5x4x4xf32>) permutation = [0, 2, 1, 3, 4]
// CHECK:         %[[WINDOW:.*]] = tensor.empty() : tensor<2x2x2xf32>
// CHECK:         linalg.generic {indexing_maps = [#[[$WIN]], {{.*}}} ins(%[[Y]], %[[WINDOW]] :
// CHECK:           arith.maximumf
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x6x5x4x4xf32>
    %w = fx.placeholder "w" : tensor<9x2x3x1x1xf32>
    %c = fx.call_function "aten::conv3d"(%x, %w, None, [1, 1, 1], [1, 0, 0], [1, 1, 1], 3) : (tensor<1x6x5x4x4xf32>, tensor<9x2x3x1x1xf32>) -> tensor<1x9x5x4x4xf32>
    %p = fx.call_function "aten::max_pool3d"(%c, [2, 2, 2], [], [0, 0, 0], [1, 1, 1], False) : (tensor<1x9x5x4x4xf32>) -> tensor<1x9x2x2x2xf32>
    fx.output %p : tensor<1x9x2x2x2xf32>
  }
}

// -----

// conv_transpose2d is a stride-1 conv of the input spread out by the
// stride (inserted into zeros with strides) and padded by dilation * (k -
// 1) - padding: 1 column on each side of the width (padding 1, plus
// output_padding 1 after), while the height's padding 3 exceeds k - 1 and
// crops the first row of the result instead. A weight that is no constant
// is transposed to (C_out, C_in, kh, kw) and flipped by one generic.

// CHECK-DAG: #[[$FLIP:map[0-9]*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, d1, -d3 + 2, -d4 + 2)>
// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[X:.*]]: tensor<1x4x5x5xf32>, %[[W:.*]]: tensor<4x3x3x3xf32>)
// CHECK:         %[[Z:.*]] = linalg.fill {{.*}} -> tensor<1x4x9x12xf32>
// CHECK:         %[[S:.*]] = tensor.insert_slice %[[X]] into %[[Z]][0, 0, 0, 1] [1, 4, 5, 5] [1, 1, 2, 2]
// CHECK:         %[[F:.*]] = linalg.generic {indexing_maps = [#[[$FLIP]],
// CHECK:         %[[WT:.*]] = tensor.collapse_shape %[[F]] {{\[}}[0, 1], [2], [3], [4]] : tensor<1x3x4x3x3xf32> into tensor<3x4x3x3xf32>
// CHECK:         %[[C:.*]] = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%[[S]], %[[WT]] : {{.*}}) outs(%{{.*}} : tensor<1x3x7x10xf32>)
// CHECK:         %[[R:.*]] = tensor.extract_slice %[[C]][0, 0, 1, 0] [1, 3, 5, 10] [1, 1, 1, 1]
// CHECK:         return %[[R]]
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x4x5x5xf32>
    %w = fx.placeholder "w" : tensor<4x3x3x3xf32>
    %c = fx.call_function "aten::conv_transpose2d.input"(%x, %w, None, [2, 2], [3, 1], [0, 1], 1, [1, 1]) : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>) -> tensor<1x3x5x10xf32>
    fx.output %c : tensor<1x3x5x10xf32>
  }
}

// -----

// conv_transpose3d the same way in three dims: the input spread out by
// the stride (2 in depth: 5 frames, padded by k - 1 - padding = 0 before
// and output_padding 1 after; 1 row and column each side in the others),
// the weight transposed and flipped in all three spatial dims, and the
// stride-1 3-D conv, a sum over the kernel's depth (2) of 2-D convs.

// CHECK-DAG: #[[$FLIP3:map[0-9]*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d2, d1, -d3 + 1, -d4 + 2, -d5 + 2)>
// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[X:.*]]: tensor<1x2x3x4x4xf32>, %[[W:.*]]: tensor<2x3x2x3x3xf32>) -> tensor<1x3x5x4x4xf32>
// CHECK:         %[[Z:.*]] = linalg.fill {{.*}} -> tensor<1x2x6x6x6xf32>
// CHECK:         tensor.insert_slice %[[X]] into %[[Z]][0, 0, 0, 1, 1] [1, 2, 3, 4, 4] [1, 1, 2, 1, 1]
// CHECK:         linalg.generic {indexing_maps = [#[[$FLIP3]],
// CHECK-COUNT-2: linalg.conv_2d_nchw_fchw
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x2x3x4x4xf32>
    %w = fx.placeholder "w" : tensor<2x3x2x3x3xf32>
    %c = fx.call_function "aten::conv_transpose3d.input"(%x, %w, None, [2, 1, 1], [1, 1, 1], [1, 0, 0], 1, [1, 1, 1]) : (tensor<1x2x3x4x4xf32>, tensor<2x3x2x3x3xf32>) -> tensor<1x3x5x4x4xf32>
    fx.output %c : tensor<1x3x5x4x4xf32>
  }
}

// -----

// A dilated conv whose output is a multiple of the dilation is dh * dw
// undilated convs, one per output phase, folded into the batch (space to
// batch): the padded input (N, C, H, W) viewed as (N, C, H/2, 2, W/2, 2)
// and transposed to (2, 2, N, C, H/2, W/2), convolved at dilation 1, and
// the phases put back in place.

// CHECK-LABEL: func.func @forward(
// CHECK:         %[[P:.*]] = tensor.pad %{{.*}} low[0, 0, 2, 2] high[0, 0, 2, 2]
// CHECK:         tensor.expand_shape {{.*}} output_shape [1, 4, 10, 2, 10, 2]
// CHECK:         linalg.transpose {{.*}} permutation = [3, 5, 0, 1, 2, 4]
// CHECK:         %[[PH:.*]] = tensor.expand_shape {{.*}} output_shape [4, 4, 10, 10]
// CHECK:         linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%[[PH]], %{{.*}} : tensor<4x4x10x10xf32>, tensor<6x4x3x3xf32>)
// CHECK:         tensor.expand_shape {{.*}} output_shape [2, 2, 1, 6, 8, 8]
// CHECK:         linalg.transpose {{.*}} permutation = [2, 3, 4, 0, 5, 1]
// CHECK:         tensor.expand_shape {{.*}} output_shape [1, 6, 16, 16]
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x4x16x16xf32>
    %w = fx.placeholder "w" : tensor<6x4x3x3xf32>
    %c = fx.call_function "aten::conv2d"(%x, %w, None, [1, 1], [2, 2], [2, 2], 1) : (tensor<1x4x16x16xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x16x16xf32>
    fx.output %c : tensor<1x6x16x16xf32>
  }
}

// -----

// A dilated conv whose window reads mostly padding (dilation 6 on a 7x7
// image: the corner positions read one pixel each) is one 1x1 conv per
// window position over the outputs where it reads the image, added into
// them; the center position covers every output and reads the input as
// it is. No padded copy of the input is made.

// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[X:.*]]: tensor<1x4x7x7xf32>, %[[W:.*]]: tensor<6x4x3x3xf32>)
// CHECK-NOT:     tensor.pad
// CHECK:         %[[S:.*]] = linalg.fill
// CHECK:         %[[C0:.*]] = tensor.extract_slice %[[X]][0, 0, 0, 0] [1, 4, 1, 1] [1, 1, 1, 1]
// CHECK:         %[[W0:.*]] = tensor.extract_slice %[[W]][0, 0, 0, 0] [6, 4, 1, 1] [1, 1, 1, 1]
// CHECK:         %[[Y0:.*]] = linalg.conv_2d_nchw_fchw {{.*}} ins(%[[C0]], %[[W0]] :
// CHECK:         %[[O0:.*]] = tensor.extract_slice %[[S]][0, 0, 6, 6] [1, 6, 1, 1]
// CHECK:         %[[A0:.*]] = linalg.generic {{.*}} ins(%[[O0]], %[[Y0]] :
// CHECK:         tensor.insert_slice %[[A0]] into %[[S]][0, 0, 6, 6] [1, 6, 1, 1]
// CHECK:         %[[WC:.*]] = tensor.extract_slice %[[W]][0, 0, 1, 1] [6, 4, 1, 1]
// CHECK:         linalg.conv_2d_nchw_fchw {{.*}} ins(%[[X]], %[[WC]] : tensor<1x4x7x7xf32>, tensor<6x4x1x1xf32>)
// CHECK:         tensor.extract_slice %[[W]][0, 0, 2, 2] [6, 4, 1, 1]
// CHECK:         tensor.insert_slice {{.*}}[0, 0, 0, 0] [1, 6, 1, 1]
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x4x7x7xf32>
    %w = fx.placeholder "w" : tensor<6x4x3x3xf32>
    %c = fx.call_function "aten::conv2d"(%x, %w, None, [1, 1], [6, 6], [6, 6], 1) : (tensor<1x4x7x7xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x7x7xf32>
    fx.output %c : tensor<1x6x7x7xf32>
  }
}

// -----

// adaptive_max_pool2d: one generic over (n, c, oh, ow, kh, kw) with the
// largest window (3 x 3 here); window o of a dim of size `in` starts at
// floor(o * in / out) (an affine floordiv) and positions at or past its
// end, ceil((o + 1) * in / out), are masked off; the input is padded so
// those reads stay inside it.

// CHECK-DAG:   #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, (d2 * 5) floordiv 2 + d4, (d3 * 7) floordiv 3 + d5)>
// CHECK-LABEL: func.func @forward(
// CHECK:         %[[PAD:.*]] = tensor.pad %{{.*}} low[0, 0, 0, 0] high[0, 0, 3, 3]
// CHECK:         %[[R:.*]]:2 = linalg.generic {indexing_maps = [#[[IN]],
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK-SAME:      ins(%[[PAD]], %{{.*}} : tensor<1x3x8x10xf32>, tensor<3x3xf32>)
// CHECK:           arith.divui
// CHECK:           arith.cmpi slt
// CHECK:           arith.cmpf uno
// CHECK:         return %[[R]]#0, %[[R]]#1 : tensor<1x3x2x3xf32>, tensor<1x3x2x3xi64>
fx.graph_module @AdaptiveMaxPool {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x3x5x7xf32>
    %pool = fx.call_function "aten::adaptive_max_pool2d"(%x, [2, 3]) : (tensor<1x3x5x7xf32>) -> tuple<tensor<1x3x2x3xf32>, tensor<1x3x2x3xi64>>
    %v = fx.call_function "operator.getitem"(%pool, 0) : (tuple<tensor<1x3x2x3xf32>, tensor<1x3x2x3xi64>>) -> tensor<1x3x2x3xf32>
    %i = fx.call_function "operator.getitem"(%pool, 1) : (tuple<tensor<1x3x2x3xf32>, tensor<1x3x2x3xi64>>) -> tensor<1x3x2x3xi64>
    fx.output (%v, %i) : tensor<1x3x2x3xf32>, tensor<1x3x2x3xi64>
  }
}

// -----

// im2col (F.unfold): the zero-padded input copied to (n, c, kh, kw, oh,
// ow) through (n, c, i, j, y, x) -> (n, c, y * sh + i * dh, x * sw + j *
// dw), then reshaped to (n, c * kh * kw, oh * ow).

// CHECK-DAG:   #[[WIN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4 * 2 + d2, d5 * 2 + d3)>
// CHECK-LABEL: func.func @forward(
// CHECK:         %[[PAD:.*]] = tensor.pad %{{.*}} low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK:         %[[W:.*]] = linalg.generic {indexing_maps = [#[[WIN]], {{.*}}ins(%[[PAD]] : tensor<2x3x8x9xf32>) outs(%{{.*}} : tensor<2x3x3x3x3x4xf32>)
// CHECK:         tensor.expand_shape {{.*}} output_shape [2, 27, 12]
fx.graph_module @Im2col {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x3x6x7xf32>
    %r = fx.call_function "aten::im2col"(%x, [3, 3], [1, 1], [1, 1], [2, 2]) : (tensor<2x3x6x7xf32>) -> tensor<2x27x12xf32>
    fx.output %r : tensor<2x27x12xf32>
  }
}

// -----

// col2im (F.fold): each kernel offset's columns added into the image at
// their strided positions, the offsets in ATen's order (0,0), (0,1), (1,0),
// (1,1), each one a slice of the columns and a window of the image.
// CHECK-LABEL: func.func @forward
//       CHECK: %[[COLS:.*]] = tensor.expand_shape {{.*}} into tensor<1x2x2x2x2x2xf32>
//       CHECK: %[[ZERO:.*]] = linalg.fill
//       CHECK: %[[P0:.*]] = tensor.extract_slice %[[COLS]][0, 0, 0, 0, 0, 0] [1, 2, 1, 1, 2, 2]
//       CHECK: %[[W0:.*]] = tensor.extract_slice %[[ZERO]][0, 0, 0, 0] [1, 2, 2, 2] [1, 1, 1, 1]
//       CHECK: %[[S0:.*]] = linalg.generic {{.*}} ins(%[[W0]], %[[P0]]
//       CHECK:   arith.addf
//       CHECK: %[[A0:.*]] = tensor.insert_slice %[[S0]] into %[[ZERO]][0, 0, 0, 0]
//       CHECK: tensor.extract_slice %[[COLS]][0, 0, 0, 1, 0, 0]
//       CHECK: tensor.extract_slice %[[A0]][0, 0, 0, 1]
//       CHECK: tensor.extract_slice %[[COLS]][0, 0, 1, 0, 0, 0]
//       CHECK: tensor.extract_slice %[[COLS]][0, 0, 1, 1, 0, 0]
//       CHECK: %[[LAST:.*]] = tensor.insert_slice {{.*}}[0, 0, 1, 1] [1, 2, 2, 2] [1, 1, 1, 1] : tensor<1x2x2x2xf32> into tensor<1x2x3x3xf32>
//       CHECK: return %[[LAST]]
fx.graph_module @Fold {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x8x4xf32>
    %f = fx.call_function "aten::col2im"(%x, [3, 3], [2, 2], [1, 1], [0, 0], [1, 1]) : (tensor<1x8x4xf32>) -> tensor<1x2x3x3xf32>
    fx.output %f : tensor<1x2x3x3xf32>
  }
}

// -----

// With padding and stride 2: the windows are strided and the padding is cut
// off at the end.
// CHECK-LABEL: func.func @forward
//       CHECK: tensor.extract_slice %{{.*}}[0, 0, 0, 0] [1, 1, 4, 4] [1, 1, 2, 2] : tensor<1x1x7x7xf32> to tensor<1x1x4x4xf32>
//       CHECK: %[[OUT:.*]] = tensor.extract_slice %{{.*}}[0, 0, 1, 1] [1, 1, 5, 5] [1, 1, 1, 1] : tensor<1x1x7x7xf32> to tensor<1x1x5x5xf32>
//       CHECK: tensor.collapse_shape %[[OUT]] {{.*}} into tensor<1x5x5xf32>
fx.graph_module @FoldPadded {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x16xf32>
    %f = fx.call_function "aten::col2im"(%x, [5, 5], [1, 1], [1, 1], [1, 1], [2, 2]) : (tensor<1x16xf32>) -> tensor<1x5x5xf32>
    fx.output %f : tensor<1x5x5xf32>
  }
}
