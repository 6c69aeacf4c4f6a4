// Node locations carry the node name and the module path; diagnostics name
// both, and the locations survive printing and parsing.
// RUN: not fx-opt %S/Inputs/bad-node-location.mlir 2>&1 | FileCheck %s --check-prefix=ERR
// RUN: fx-opt %s -mlir-print-debuginfo | FileCheck %s
// RUN: fx-opt %s --verify-roundtrip -o /dev/null
// RUN: fx-opt %s -mlir-print-debuginfo | fx-opt -mlir-print-debuginfo | FileCheck %s

// ERR: model.py:3:1: error: 'fx.call_module' op call_module 'conv' (module 'layer1.0') refers to 'layer1.0.conv1', which is not a submodule of graph module 'M'

// CHECK-LABEL: fx.graph_module @N
// CHECK: fx.call_function "torch.relu"(%x) : (tensor<2xf32>) -> tensor<2xf32> loc([[RELU:#loc[0-9]*]])
// CHECK-DAG: #[[SRC:loc[0-9]*]] = loc("model.py":7:3)
// CHECK-DAG: #[[MOD:loc[0-9]*]] = loc("layer2.block"(#[[SRC]]))
// CHECK-DAG: [[RELU]] = loc("relu"(#[[MOD]]))
fx.graph_module @N {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2xf32>
    %relu = fx.call_function "torch.relu"(%x) : (tensor<2xf32>) -> tensor<2xf32> loc("relu"("layer2.block"("model.py":7:3)))
    fx.output %relu : tensor<2xf32>
  }
}
