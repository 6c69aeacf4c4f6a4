// RUN: fx-opt %s -split-input-file --fx-instrument | FileCheck %s --check-prefix=TIME
// RUN: fx-opt %s -split-input-file --fx-instrument=mode=time | FileCheck %s --check-prefix=TIME
// RUN: fx-opt %s -split-input-file --fx-instrument=mode=stats | FileCheck %s --check-prefix=STATS
// RUN: fx-opt %s -split-input-file --fx-instrument=mode=nan-check | FileCheck %s --check-prefix=NAN
// RUN: not fx-opt %s --fx-instrument=mode=bogus 2>&1 | FileCheck %s --check-prefix=BAD-MODE

// fx-instrument: probe nodes `fx_mlir.instrument.<kind>(id, node, target
// [, value])` of type none around the call nodes. mode=time (the default)
// puts start before and stop after every call (stop reads a float tensor
// result); mode=stats and mode=nan-check put one probe after each call
// with a float tensor result. Ids count the instrumented calls from 0;
// get_attr, placeholder and output nodes get none.

// BAD-MODE: error: fx-instrument: unknown mode 'bogus' (expected 'time', 'stats' or 'nan-check')

// TIME-LABEL: fx.graph_module @M
// TIME:         %x = fx.placeholder "x"
// TIME-NEXT:    %w = fx.get_attr @w
// TIME-NEXT:    %relu_start = fx.call_function "fx_mlir.instrument.start"(0, "relu", "aten::relu") : () -> none
// TIME-NEXT:    %relu = fx.call_function "aten::relu"(%x)
// TIME-NEXT:    %relu_stop = fx.call_function "fx_mlir.instrument.stop"(0, "relu", "aten::relu", %relu) : (tensor<4xf32>) -> none
// TIME-NEXT:    %add_start = fx.call_function "fx_mlir.instrument.start"(1, "add", "aten::add.Tensor") : () -> none
// TIME-NEXT:    %add = fx.call_function "aten::add.Tensor"(%relu, %w, alpha=1)
// TIME-NEXT:    %add_stop = fx.call_function "fx_mlir.instrument.stop"(1, "add", "aten::add.Tensor", %add) : (tensor<4xf32>) -> none
// TIME-NEXT:    %argmax_start = fx.call_function "fx_mlir.instrument.start"(2, "argmax", "aten::argmax") : () -> none
// TIME-NEXT:    %argmax = fx.call_function "aten::argmax"(%add, 0, False)
// TIME-NEXT:    %argmax_stop = fx.call_function "fx_mlir.instrument.stop"(2, "argmax", "aten::argmax") : () -> none
// TIME-NEXT:    %size_start = fx.call_function "fx_mlir.instrument.start"(3, "size", "size") : () -> none
// TIME-NEXT:    %size = fx.call_method "size"(%add, 0)
// TIME-NEXT:    %size_stop = fx.call_function "fx_mlir.instrument.stop"(3, "size", "size") : () -> none
// TIME-NEXT:    %act_start = fx.call_function "fx_mlir.instrument.start"(4, "act", "act") : () -> none
// TIME-NEXT:    %act = fx.call_module @act(%add)
// TIME-NEXT:    %act_stop = fx.call_function "fx_mlir.instrument.stop"(4, "act", "act", %act) : (tensor<4xf32>) -> none
// TIME-NEXT:    fx.output

// Only float tensor results are measured: not argmax's i64 tensor, not
// size's int.

// STATS-LABEL: fx.graph_module @M
// STATS:         %relu = fx.call_function "aten::relu"(%x)
// STATS-NEXT:    %relu_stats = fx.call_function "fx_mlir.instrument.stats"(0, "relu", "aten::relu", %relu) : (tensor<4xf32>) -> none
// STATS-NEXT:    %add = fx.call_function "aten::add.Tensor"(%relu, %w, alpha=1)
// STATS-NEXT:    %add_stats = fx.call_function "fx_mlir.instrument.stats"(1, "add", "aten::add.Tensor", %add) : (tensor<4xf32>) -> none
// STATS-NEXT:    %argmax = fx.call_function "aten::argmax"(%add, 0, False)
// STATS-NEXT:    %size = fx.call_method "size"(%add, 0)
// STATS-NEXT:    %act = fx.call_module @act(%add)
// STATS-NEXT:    %act_stats = fx.call_function "fx_mlir.instrument.stats"(2, "act", "act", %act) : (tensor<4xf32>) -> none
// STATS-NEXT:    fx.output

// NAN-LABEL: fx.graph_module @M
// NAN:         %relu = fx.call_function "aten::relu"(%x)
// NAN-NEXT:    %relu_nan_check = fx.call_function "fx_mlir.instrument.nan_check"(0, "relu", "aten::relu", %relu) : (tensor<4xf32>) -> none
// NAN-NEXT:    %add = fx.call_function "aten::add.Tensor"(%relu, %w, alpha=1)
// NAN-NEXT:    %add_nan_check = fx.call_function "fx_mlir.instrument.nan_check"(1, "add", "aten::add.Tensor", %add) : (tensor<4xf32>) -> none
// NAN-NEXT:    %argmax = fx.call_function "aten::argmax"(%add, 0, False)
// NAN-NEXT:    %size = fx.call_method "size"(%add, 0)
// NAN-NEXT:    %act = fx.call_module @act(%add)
// NAN-NEXT:    %act_nan_check = fx.call_function "fx_mlir.instrument.nan_check"(2, "act", "act", %act) : (tensor<4xf32>) -> none
// NAN-NEXT:    fx.output
fx.graph_module @M {
  fx.state parameter @w : tensor<4xf32>
  fx.submodule @act "torch.nn.ReLU"()
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<4xf32>
    %w = fx.get_attr @w : tensor<4xf32>
    %relu = fx.call_function "aten::relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %add = fx.call_function "aten::add.Tensor"(%relu, %w, alpha=1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %argmax = fx.call_function "aten::argmax"(%add, 0, False) : (tensor<4xf32>) -> tensor<i64>
    %size = fx.call_method "size"(%add, 0) : (tensor<4xf32>) -> i64
    %act = fx.call_module @act(%add) : (tensor<4xf32>) -> tensor<4xf32>
    fx.output (%act, %argmax, %size) : tensor<4xf32>, tensor<i64>, i64
  }
}

// -----

// A result of unknown type may be a float tensor: it is measured. Probe
// names do not clash with existing nodes.

// STATS-LABEL: fx.graph @unknown_type
// STATS:         %f = fx.call_function "mylib.f"(%x) : (!fx.any) -> !fx.any
// STATS-NEXT:    %f_stats_1 = fx.call_function "fx_mlir.instrument.stats"(0, "f", "mylib.f", %f) : (!fx.any) -> none
// STATS-NEXT:    %f_stats = fx.call_function "torch.neg"(%x)
// STATS-NEXT:    %f_stats_stats = fx.call_function "fx_mlir.instrument.stats"(1, "f_stats", "torch.neg", %f_stats) : (!fx.any) -> none
// STATS-NEXT:    fx.output (%f, %f_stats)
fx.graph @unknown_type {
  %x = fx.placeholder "x" : !fx.any
  %f = fx.call_function "mylib.f"(%x) : (!fx.any) -> !fx.any
  %f_stats = fx.call_function "torch.neg"(%x) : (!fx.any) -> !fx.any
  fx.output (%f, %f_stats) : !fx.any, !fx.any
}
