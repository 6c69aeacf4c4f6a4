// RUN: fx-opt %s -split-input-file --convert-fx-to-linalg | FileCheck %s

// Upsampling: the source indices (and, for the linear modes, the weights)
// of each output row and column are computed when compiling, with
// LibTorch's formulas, into constant tables; one linalg.generic reads
// them per output position and gathers from the input.

// Nearest, scales 2 and 1.5, dynamic batch: rows 0 0 1 1 (out = 2 * in
// halves the index); columns floor(o / 1.5) = 0 0 1 2.

// CHECK-LABEL: func.func @forward
//   CHECK-DAG: %[[ROWS:.*]] = arith.constant dense<[0, 0, 1, 1]> : tensor<4xi64>
//   CHECK-DAG: %[[COLS:.*]] = arith.constant dense<[0, 0, 1, 2]> : tensor<4xi64>
//       CHECK: %[[N:.*]] = tensor.dim %arg0, %c0 : tensor<?x3x2x3xf32>
//       CHECK: %[[INIT:.*]] = tensor.empty(%[[N]]) : tensor<?x3x4x4xf32>
//       CHECK: linalg.generic
//  CHECK-SAME:   ins(%[[ROWS]], %[[COLS]] : tensor<4xi64>, tensor<4xi64>) outs(%[[INIT]] : tensor<?x3x4x4xf32>)
//       CHECK:   ^bb0(%[[R:.*]]: i64, %[[C:.*]]: i64, %{{.*}}: f32):
//       CHECK:   %[[B:.*]] = linalg.index 0 : index
//       CHECK:   %[[CH:.*]] = linalg.index 1 : index
//       CHECK:   %[[RI:.*]] = arith.index_cast %[[R]] : i64 to index
//       CHECK:   %[[CI:.*]] = arith.index_cast %[[C]] : i64 to index
//       CHECK:   %[[V:.*]] = tensor.extract %arg0[%[[B]], %[[CH]], %[[RI]], %[[CI]]]
//       CHECK:   linalg.yield %[[V]] : f32
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<?x3x2x3xf32>
    %up = fx.call_function "aten::upsample_nearest2d.vec"(%x, None, [2.0, 1.5]) : (tensor<?x3x2x3xf32>) -> tensor<?x3x4x4xf32>
    fx.output %up : tensor<?x3x4x4xf32>
  }
}

// -----

// Bilinear, 2 rows to 3 without align_corners: source rows
// max(0, (o + 0.5) * 2/3 - 0.5) = 0, 0.5, 1.1667, so the row pairs are
// (0, 1), (0, 1), (1, 1) (the last row has no next) with weights (1, 0),
// (0.5, 0.5), (0.833, 0.167). The columns keep their size: each reads
// itself with weight 1. Rows are interpolated outermost.

// CHECK-LABEL: func.func @forward
//   CHECK-DAG: %[[R0:.*]] = arith.constant dense<[0, 0, 1]> : tensor<3xi64>
//   CHECK-DAG: %[[R1:.*]] = arith.constant dense<1> : tensor<3xi64>
//   CHECK-DAG: %[[W0:.*]] = arith.constant dense<[1.000000e+00, 5.000000e-01, 0.833333254]> : tensor<3xf32>
//   CHECK-DAG: %[[W1:.*]] = arith.constant dense<[0.000000e+00, 5.000000e-01, 0.166666746]> : tensor<3xf32>
//   CHECK-DAG: %[[C:.*]] = arith.constant dense<[0, 1, 2, 3]> : tensor<4xi64>
//   CHECK-DAG: %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<4xf32>
//   CHECK-DAG: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<4xf32>
//       CHECK: linalg.generic
//  CHECK-SAME:   ins(%[[R0]], %[[R1]], %[[W0]], %[[W1]], %[[C]], %[[C]], %[[ONE]], %[[ZERO]] :
//   CHECK-COUNT-4: tensor.extract
//       CHECK:   linalg.yield
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x1x2x4xf32>
    %up = fx.call_function "aten::upsample_bilinear2d.vec"(%x, [3, 4], False, None) : (tensor<1x1x2x4xf32>) -> tensor<1x1x3x4xf32>
    fx.output %up : tensor<1x1x3x4xf32>
  }
}

// -----

// align_corners=True maps the corners onto each other: 3 columns to 5 read
// 0, 0.5, 1, 1.5, 2. The per-dim overload (LibTorch's older F.interpolate
// and TorchScript) takes the sizes and optional scales one by one.

// CHECK-LABEL: func.func @forward
//   CHECK-DAG: arith.constant dense<[0, 0, 1, 1, 2]> : tensor<5xi64>
//   CHECK-DAG: arith.constant dense<[1, 1, 2, 2, 2]> : tensor<5xi64>
//   CHECK-DAG: arith.constant dense<[1.000000e+00, 5.000000e-01, 1.000000e+00, 5.000000e-01, 1.000000e+00]> : tensor<5xf32>
//       CHECK: linalg.generic
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x4x3xf32>
    %up = fx.call_function "aten::upsample_linear1d"(%x, [5], True, None) : (tensor<2x4x3xf32>) -> tensor<2x4x5xf32>
    fx.output %up : tensor<2x4x5xf32>
  }
}

// -----

// nearest-exact reads floor((o + 0.5) * in / out): 5 to 3 reads 0, 2, 4.

// CHECK-LABEL: func.func @forward
//       CHECK: arith.constant dense<[0, 2, 4]> : tensor<3xi64>
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x2x5xf32>
    %up = fx.call_function "aten::_upsample_nearest_exact1d.vec"(%x, [3], None) : (tensor<1x2x5xf32>) -> tensor<1x2x3xf32>
    fx.output %up : tensor<1x2x3xf32>
  }
}

// -----

// Bicubic, scale 2 on 2 rows (align_corners false): four taps per output
// row, the floor of the source position (-0.25, 0.25, 0.75, 1.25) and its
// neighbours clamped to the rows; four weight tables (Keys' cubic, A =
// -0.75). The one column reads itself with weight 1 (its other taps 0).
// The generic adds the 16 taps' products, rows outermost.

// CHECK-LABEL: func.func @forward
//   CHECK-DAG: %[[I0:.*]] = arith.constant dense<0> : tensor<4xi64>
//   CHECK-DAG: %[[I1:.*]] = arith.constant dense<[0, 0, 0, 1]> : tensor<4xi64>
//   CHECK-DAG: %[[I2:.*]] = arith.constant dense<[0, 1, 1, 1]> : tensor<4xi64>
//   CHECK-DAG: %[[I3:.*]] = arith.constant dense<1> : tensor<4xi64>
//   CHECK-DAG: %[[W0:.*]] = arith.constant dense<[-0.03515625, -0.10546875, -0.03515625, -0.10546875]> : tensor<4xf32>
//   CHECK-DAG: %[[W1:.*]] = arith.constant dense<[0.26171875, 0.87890625, 0.26171875, 0.87890625]> : tensor<4xf32>
//   CHECK-DAG: %[[W2:.*]] = arith.constant dense<[0.87890625, 0.26171875, 0.87890625, 0.26171875]> : tensor<4xf32>
//   CHECK-DAG: %[[W3:.*]] = arith.constant dense<[-0.10546875, -0.03515625, -0.10546875, -0.03515625]> : tensor<4xf32>
//   CHECK-DAG: %[[CI:.*]] = arith.constant dense<0> : tensor<1xi64>
//   CHECK-DAG: %[[C0:.*]] = arith.constant dense<0.000000e+00> : tensor<1xf32>
//   CHECK-DAG: %[[C1:.*]] = arith.constant dense<1.000000e+00> : tensor<1xf32>
//       CHECK: linalg.generic
//  CHECK-SAME:   ins(%[[I0]], %[[I1]], %[[I2]], %[[I3]], %[[W0]], %[[W1]], %[[W2]], %[[W3]], %[[CI]], %[[CI]], %[[CI]], %[[CI]], %[[C0]], %[[C1]], %[[C0]], %[[C0]] :
// CHECK-COUNT-16: tensor.extract %arg0
//       CHECK:   linalg.yield
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x1x2x1xf32>
    %up = fx.call_function "aten::upsample_bicubic2d.vec"(%x, None, False, [2.0, 1.0]) : (tensor<1x1x2x1xf32>) -> tensor<1x1x4x1xf32>
    fx.output %up : tensor<1x1x4x1xf32>
  }
}

// -----

// affine_grid_generator: the base grid's x (by w) and y (by h) are
// constant tables (linspace from -1 to 1, scaled by (n - 1) / n without
// align_corners: 3 columns give -2/3, 0, 2/3); each point is theta[n, k]
// applied to (x, y, 1).

// CHECK-LABEL: func.func @forward
//   CHECK-DAG: %[[XS:.*]] = arith.constant dense<[-0.666666686, 0.000000e+00, 0.666666686]> : tensor<3xf32>
//   CHECK-DAG: %[[YS:.*]] = arith.constant dense<[-5.000000e-01, 5.000000e-01]> : tensor<2xf32>
//       CHECK: linalg.generic
//  CHECK-SAME:   ins(%[[XS]], %[[YS]] : tensor<3xf32>, tensor<2xf32>) outs(%{{.*}} : tensor<4x2x3x2xf32>)
//       CHECK:   ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
//       CHECK:   %[[T0:.*]] = tensor.extract %arg0[%{{.*}}, %{{.*}}, %c0]
//       CHECK:   arith.mulf %[[X]], %[[T0]] : f32
//       CHECK:   %[[T1:.*]] = tensor.extract %arg0[%{{.*}}, %{{.*}}, %c1]
//       CHECK:   arith.mulf %[[Y]], %[[T1]] : f32
//       CHECK:   %[[T2:.*]] = tensor.extract %arg0[%{{.*}}, %{{.*}}, %c2]
//       CHECK:   arith.addf %{{.*}}, %[[T2]] : f32
fx.graph_module @M {
  fx.graph @forward {
    %theta = fx.placeholder "theta" : tensor<4x2x3xf32>
    %grid = fx.call_function "aten::affine_grid_generator"(%theta, [4, 1, 2, 3], False) : (tensor<4x2x3xf32>) -> tensor<4x2x3x2xf32>
    fx.output %grid : tensor<4x2x3x2xf32>
  }
}

// -----

// grid_sampler, bilinear with zero padding: each output point reads its
// (x, y) from the grid, unnormalizes it ((g + 1) * size - 1) / 2 and adds
// the four corners' products, a corner outside the input reading 0.

// CHECK-LABEL: func.func @forward
//       CHECK: linalg.generic
//  CHECK-SAME:   outs(%{{.*}} : tensor<1x2x3x4xf32>)
//       CHECK:   tensor.extract %arg1[%{{.*}}, %{{.*}}, %{{.*}}, %c0]
//       CHECK:   tensor.extract %arg1[%{{.*}}, %{{.*}}, %{{.*}}, %c1]
//       CHECK:   math.floor
// CHECK-COUNT-4: tensor.extract %arg0
//       CHECK:   linalg.yield
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x2x5x6xf32>
    %g = fx.placeholder "g" : tensor<1x3x4x2xf32>
    %y = fx.call_function "aten::grid_sampler"(%x, %g, 0, 0, False) : (tensor<1x2x5x6xf32>, tensor<1x3x4x2xf32>) -> tensor<1x2x3x4xf32>
    fx.output %y : tensor<1x2x3x4xf32>
  }
}
