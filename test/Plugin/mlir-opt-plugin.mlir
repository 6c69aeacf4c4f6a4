// Debian's stock mlir-opt loads the fx dialect and passes from the plugin.
//
// RUN: mlir-opt-22 %s --load-dialect-plugin=%fx_libs/libFXPlugin.so | FileCheck %s --check-prefix=DIALECT
// RUN: mlir-opt-22 %s --load-dialect-plugin=%fx_libs/libFXPlugin.so | mlir-opt-22 --load-dialect-plugin=%fx_libs/libFXPlugin.so | FileCheck %s --check-prefix=DIALECT
// RUN: mlir-opt-22 %s --load-dialect-plugin=%fx_libs/libFXPlugin.so \
// RUN:   --load-pass-plugin=%fx_libs/libFXPlugin.so \
// RUN:   --pass-pipeline="builtin.module(fx-print-tabular)" -o /dev/null | FileCheck %s --check-prefix=PASS
// RUN: not mlir-opt-22 %s 2>&1 | FileCheck %s --check-prefix=NOPLUGIN
// RUN: not mlir-opt-22 %S/Inputs/bad.mlir --load-dialect-plugin=%fx_libs/libFXPlugin.so 2>&1 | FileCheck %s --check-prefix=VERIFY

// DIALECT: fx.graph_module @M
// DIALECT: %relu = fx.call_function "torch.relu"(%linear) : (tensor<1x5xf32>) -> tensor<1x5xf32>
// DIALECT: fx.output %relu : tensor<1x5xf32>

// PASS: graph M.forward:
// PASS: call_module    linear  linear      (x,)       {}
// PASS-NEXT: call_function  relu    torch.relu  (linear,)  {}

// NOPLUGIN: error: Dialect `fx' not found for custom op 'fx.graph_module'

// VERIFY: bad.mlir:5:13: error: 'fx.call_module' op call_module 'conv' refers to 'conv', which is not a submodule of graph module 'M'

fx.graph_module @M {
  fx.submodule @linear "torch.nn.Linear"(in_features=5, out_features=5, bias=True)
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x5xf32>
    %linear = fx.call_module @linear(%x) : (tensor<1x5xf32>) -> tensor<1x5xf32>
    %relu = fx.call_function "torch.relu"(%linear) : (tensor<1x5xf32>) -> tensor<1x5xf32>
    fx.output %relu : tensor<1x5xf32>
  }
}
