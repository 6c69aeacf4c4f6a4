// RUN: fx-opt %s -split-input-file --convert-fx-to-linalg | FileCheck %s

// fx_mlir.fused.<op>(args..., activation=...) lowers as its base op
// followed by one elementwise linalg.generic computing the activation; the
// generic is marked `fx.fused_activation = "<activation>"` so that the
// pipeline can tile the pair into one loop nest.

// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[X:.*]]: tensor<2x8xf32>, %[[W:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK:         %[[FC:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME:      ins(%[[X]], %[[W]] : tensor<2x8xf32>, tensor<4x8xf32>)
// CHECK:         %[[ACT:.*]] = linalg.generic {{.*}} ins(%[[FC]] : tensor<2x4xf32>) {{.*}} attrs = {fx.fused_activation = "relu"}
// CHECK-NEXT:    ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[NEG:.*]] = arith.cmpf olt, %[[IN]], %[[ZERO:.*]] : f32
// CHECK-NEXT:      %[[MAX:.*]] = arith.select %[[NEG]], %[[ZERO]], %[[IN]] : f32
// CHECK-NEXT:      linalg.yield %[[MAX]] : f32
// CHECK:         return %[[ACT]]
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x8xf32>
    %w = fx.placeholder "w" : tensor<4x8xf32>
    %b = fx.placeholder "b" : tensor<4xf32>
    %relu = fx.call_function "fx_mlir.fused.linear"(%x, %w, %b, activation="relu") : (tensor<2x8xf32>, tensor<4x8xf32>, tensor<4xf32>) -> tensor<2x4xf32>
    fx.output %relu : tensor<2x4xf32>
  }
}

// -----

// relu6 clamps to [0, 6].

// CHECK-LABEL: func.func @forward(
// CHECK-DAG:     %[[SIX:.*]] = arith.constant 6.000000e+00 : f32
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[CONV:.*]] = linalg.conv_2d_nchw_fchw
// CHECK-SAME:      outs(%{{.*}} : tensor<1x4x8x8xf32>)
// CHECK:         %[[ACT:.*]] = linalg.generic {{.*}} ins(%[[CONV]] : tensor<1x4x8x8xf32>) {{.*}} attrs = {fx.fused_activation = "relu6"}
// CHECK:           %[[NEG:.*]] = arith.cmpf olt, %[[IN:.*]], %[[ZERO]] : f32
// CHECK-NEXT:      %[[LO:.*]] = arith.select %[[NEG]], %[[ZERO]], %[[IN]] : f32
// CHECK-NEXT:      %[[BIG:.*]] = arith.cmpf ogt, %[[LO]], %[[SIX]] : f32
// CHECK-NEXT:      arith.select %[[BIG]], %[[SIX]], %[[LO]] : f32
// CHECK:         return %[[ACT]]
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x3x8x8xf32>
    %w = fx.placeholder "w" : tensor<4x3x3x3xf32>
    %act = fx.call_function "fx_mlir.fused.conv2d"(%x, %w, None, [1, 1], [1, 1], [1, 1], 1, activation="relu6") : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
    fx.output %act : tensor<1x4x8x8xf32>
  }
}

// -----

// padding="same" (the conv2d.padding form) pads as the base op does.

// CHECK-LABEL: func.func @forward(
// CHECK:         tensor.pad %{{.*}} low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK:         %[[CONV:.*]] = linalg.conv_2d_nchw_fchw
// CHECK:         linalg.generic {{.*}} ins(%[[CONV]] : tensor<1x4x8x8xf32>) {{.*}} attrs = {fx.fused_activation = "sigmoid"}
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x3x8x8xf32>
    %w = fx.placeholder "w" : tensor<4x3x3x3xf32>
    %act = fx.call_function "fx_mlir.fused.conv2d"(%x, %w, None, [1, 1], "same", [1, 1], 1, activation="sigmoid") : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
    fx.output %act : tensor<1x4x8x8xf32>
  }
}

// -----

// conv1d is the 2-d conv with a unit height; the activation reads the
// collapsed result.

// CHECK-LABEL: func.func @forward(
// CHECK:         %[[CONV:.*]] = linalg.conv_2d_nchw_fchw
// CHECK:         %[[ROWS:.*]] = tensor.collapse_shape %[[CONV]]
// CHECK:         linalg.generic {{.*}} ins(%[[ROWS]] : tensor<1x4x6xf32>) {{.*}} attrs = {fx.fused_activation = "gelu_tanh"}
// CHECK:           math.tanh
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x3x8xf32>
    %w = fx.placeholder "w" : tensor<4x3x3xf32>
    %g = fx.call_function "fx_mlir.fused.conv1d"(%x, %w, None, [1], [0], [1], 1, activation="gelu_tanh") : (tensor<1x3x8xf32>, tensor<4x3x3xf32>) -> tensor<1x4x6xf32>
    fx.output %g : tensor<1x4x6xf32>
  }
}

// -----

// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3xf32>, %[[Y:.*]]: tensor<3x4xf32>)
// CHECK:         %[[MM:.*]] = linalg.matmul ins(%[[X]], %[[Y]] : tensor<2x3xf32>, tensor<3x4xf32>)
// CHECK:         linalg.generic {{.*}} ins(%[[MM]] : tensor<2x4xf32>) {{.*}} attrs = {fx.fused_activation = "silu"}
// CHECK:           math.exp
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x3xf32>
    %y = fx.placeholder "y" : tensor<3x4xf32>
    %h = fx.call_function "fx_mlir.fused.matmul"(%x, %y, activation="silu") : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
    fx.output %h : tensor<2x4xf32>
  }
}

// -----

// add lowers to its own generic; the activation is a second one.

// CHECK-LABEL: func.func @forward(
// CHECK:         %[[ADD:.*]] = linalg.generic
// CHECK-NOT:       fx.fused_activation
// CHECK:           arith.addf
// CHECK:         linalg.generic {{.*}} ins(%[[ADD]] : tensor<2x3xf32>) {{.*}} attrs = {fx.fused_activation = "hardswish"}
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x3xf32>
    %y = fx.placeholder "y" : tensor<2x3xf32>
    %s = fx.call_function "fx_mlir.fused.add"(%x, %y, alpha=1, activation="hardswish") : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    fx.output %s : tensor<2x3xf32>
  }
}

// -----

// The other activations: gelu (exact, with erf) and tanh.

// CHECK-LABEL: func.func @forward(
// CHECK:         linalg.generic {{.*}} attrs = {fx.fused_activation = "gelu"}
// CHECK:           math.erf
// CHECK:         linalg.generic {{.*}} attrs = {fx.fused_activation = "tanh"}
// CHECK:           math.tanh
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x3xf32>
    %y = fx.placeholder "y" : tensor<2x3xf32>
    %g = fx.call_function "fx_mlir.fused.add"(%x, %y, alpha=1, activation="gelu") : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %t = fx.call_function "fx_mlir.fused.add"(%g, %y, alpha=1, activation="tanh") : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    fx.output %t : tensor<2x3xf32>
  }
}
