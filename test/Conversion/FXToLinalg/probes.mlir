// RUN: fx-opt %s -split-input-file --convert-fx-to-linalg | FileCheck %s

// The probes of fx-instrument become calls of the runtime's functions,
// declared private in the module on first use:
//   fx_probe_start(i64 id), fx_probe_stop(i64 id)
//   fx_probe_stats(i64 id, f64 min, f64 max, f64 sum, i64 count, i64 nan)
//   fx_probe_nan_check(i64 id, i64 nonfinite)
// The statistics are reduced in the generated code; the probe id is the
// probe's first arg.

// start and stop bracket the instrumented op, in program order.

// CHECK-LABEL: module
// CHECK-DAG:     func.func private @fx_probe_start(i64)
// CHECK-DAG:     func.func private @fx_probe_stop(i64)
// CHECK-LABEL:   func.func @forward(
// CHECK:         %[[ID:.*]] = arith.constant 3 : i64
// CHECK:         call @fx_probe_start(%[[ID]]) : (i64) -> ()
// CHECK-NEXT:    tensor.empty
// CHECK-NEXT:    %[[RELU:.*]] = linalg.generic
// CHECK:           arith.cmpf olt
// CHECK:         call @fx_probe_stop(%[[ID]]) : (i64) -> ()
// CHECK:         return %[[RELU]]
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<4xf32>
    %relu_start = fx.call_function "fx_mlir.instrument.start"(3, "relu", "aten::relu") : () -> none
    %relu = fx.call_function "aten::relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %relu_stop = fx.call_function "fx_mlir.instrument.stop"(3, "relu", "aten::relu", %relu) : (tensor<4xf32>) -> none
    fx.output %relu : tensor<4xf32>
  }
}

// -----

// stats: min, max and sum reduced to f64 (min and max ignore NaNs), the
// element count as a constant, the NaN count reduced to i64.

// CHECK-LABEL: module
// CHECK:         func.func private @fx_probe_stats(i64, f64, f64, f64, i64, i64)
// CHECK-NOT:     func.func private @fx_probe_start
// CHECK-LABEL:   func.func @forward(
// CHECK-DAG:     %[[ID:.*]] = arith.constant 0 : i64
// CHECK-DAG:     %[[COUNT:.*]] = arith.constant 6 : i64
// CHECK:         %[[RELU:.*]] = linalg.generic
// CHECK:         linalg.generic {{.*}} ins(%[[RELU]] : tensor<2x3xf32>) outs(%{{.*}} : tensor<f64>)
// CHECK:           arith.extf %{{.*}} : f32 to f64
// CHECK-NEXT:      arith.minnumf
// CHECK:         %[[MIN:.*]] = tensor.extract %{{.*}}[] : tensor<f64>
// CHECK:           arith.maxnumf
// CHECK:         %[[MAX:.*]] = tensor.extract %{{.*}}[] : tensor<f64>
// CHECK:           arith.addf %{{.*}} : f64
// CHECK:         %[[SUM:.*]] = tensor.extract %{{.*}}[] : tensor<f64>
// CHECK:           arith.cmpf uno
// CHECK:         %[[NAN:.*]] = tensor.extract %{{.*}}[] : tensor<i64>
// CHECK:         call @fx_probe_stats(%[[ID]], %[[MIN]], %[[MAX]], %[[SUM]], %[[COUNT]], %[[NAN]]) : (i64, f64, f64, f64, i64, i64) -> ()
// CHECK:         return %[[RELU]]
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x3xf32>
    %relu = fx.call_function "aten::relu"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %relu_stats = fx.call_function "fx_mlir.instrument.stats"(0, "relu", "aten::relu", %relu) : (tensor<2x3xf32>) -> none
    fx.output %relu : tensor<2x3xf32>
  }
}

// -----

// nan_check: the count of NaN or infinite elements.

// CHECK-LABEL: module
// CHECK:         func.func private @fx_probe_nan_check(i64, i64)
// CHECK-LABEL:   func.func @forward(
// CHECK-SAME:    %[[X:.*]]: tensor<4xf32>)
// CHECK-DAG:     %[[INF:.*]] = arith.constant 0x7F800000 : f32
// CHECK-DAG:     %[[ID:.*]] = arith.constant 1 : i64
// CHECK:         %[[LOG:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<4xf32>)
// CHECK:         linalg.generic {{.*}} ins(%[[LOG]] : tensor<4xf32>) outs(%{{.*}} : tensor<4xi64>)
// CHECK-NEXT:    ^bb0(%[[E:.*]]: f32, %{{.*}}: i64):
// CHECK-NEXT:      %[[ABS:.*]] = math.absf %[[E]] : f32
// CHECK-NEXT:      %[[ISINF:.*]] = arith.cmpf oeq, %[[ABS]], %[[INF]] : f32
// CHECK-NEXT:      %[[ISNAN:.*]] = arith.cmpf uno, %[[E]], %[[E]] : f32
// CHECK-NEXT:      %[[BAD:.*]] = arith.ori %[[ISNAN]], %[[ISINF]] : i1
// CHECK-NEXT:      arith.extui %[[BAD]] : i1 to i64
// CHECK:         %[[N:.*]] = tensor.extract %{{.*}}[] : tensor<i64>
// CHECK:         call @fx_probe_nan_check(%[[ID]], %[[N]]) : (i64, i64) -> ()
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<4xf32>
    %log = fx.call_function "aten::log"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %log_nan_check = fx.call_function "fx_mlir.instrument.nan_check"(1, "log", "aten::log", %log) : (tensor<4xf32>) -> none
    fx.output %log : tensor<4xf32>
  }
}

// -----

// Several probes of one kind share one declaration.

// CHECK-LABEL: module
// CHECK-COUNT-1: func.func private @fx_probe_start(i64)
// CHECK-NOT:     func.func private @fx_probe_start
// CHECK-LABEL:   func.func @forward(
// CHECK-COUNT-2: call @fx_probe_start
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<4xf32>
    %a_start = fx.call_function "fx_mlir.instrument.start"(0, "a", "aten::neg") : () -> none
    %a = fx.call_function "aten::neg"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %a_stop = fx.call_function "fx_mlir.instrument.stop"(0, "a", "aten::neg", %a) : (tensor<4xf32>) -> none
    %b_start = fx.call_function "fx_mlir.instrument.start"(1, "b", "aten::neg") : () -> none
    %b = fx.call_function "aten::neg"(%a) : (tensor<4xf32>) -> tensor<4xf32>
    %b_stop = fx.call_function "fx_mlir.instrument.stop"(1, "b", "aten::neg", %b) : (tensor<4xf32>) -> none
    fx.output %b : tensor<4xf32>
  }
}
