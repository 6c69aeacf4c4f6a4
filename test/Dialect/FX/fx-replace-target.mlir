// RUN: fx-opt %s -split-input-file --fx-replace-target="from=torch.relu to=torch.sigmoid" -mlir-print-debuginfo | FileCheck %s
// RUN: fx-opt %s -split-input-file --fx-replace-target="from=aten::relu to=aten::sigmoid" | FileCheck %s --check-prefix=ATEN
// RUN: fx-opt %s -split-input-file --fx-replace-target="from=torch.relu to=torch.nn.functional.gelu" | FileCheck %s --check-prefix=TO-GELU
// RUN: fx-opt %s -split-input-file --fx-replace-target="from=torch.nn.functional.linear to=torch._C._nn.linear" | FileCheck %s --check-prefix=LINEAR
// RUN: fx-opt %s -split-input-file --fx-replace-target="from=torch.neg to=torch.abs" | FileCheck %s --check-prefix=CHAIN
// RUN: fx-opt %s -split-input-file --fx-replace-target="from=torch.nn.functional.gelu to=torch.relu" -verify-diagnostics | FileCheck %s --check-prefix=GELU

// Errors leave the IR unchanged (--mlir-print-ir-after-failure shows it):
// RUN: not fx-opt %s --fx-replace-target="from=torch.nn.functional.gelu to=torch.relu" --mlir-print-ir-after-failure 2>&1 | FileCheck %s --check-prefix=UNCHANGED
// RUN: not fx-opt %s --fx-replace-target="from=torch.relu to=torch.add" --mlir-print-ir-after-failure 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not fx-opt %s --fx-replace-target="from=torch.frobnicate to=torch.relu" 2>&1 | FileCheck %s --check-prefix=UNKNOWN-FROM
// RUN: not fx-opt %s --fx-replace-target="from=torch.relu to=mylib.f" 2>&1 | FileCheck %s --check-prefix=UNKNOWN-TO
// RUN: not fx-opt %s --fx-replace-target="from=torch.relu" 2>&1 | FileCheck %s --check-prefix=NO-TO

// fx-replace-target: every call the target registry binds to the same
// canonical operator as `from` (function, method or module spelling)
// becomes `call_function to(...)` with the arguments bound by parameter
// name; it keeps the node's name and location. An unknown `from` or `to`,
// a `to` parameter without default the call cannot supply, or an argument
// `to` has no place for that does not hold its default, is an error, and
// the IR is left unchanged.

// All spellings of relu match, in-place or not; neg does not.

// CHECK-LABEL: fx.graph_module @Spellings
// CHECK:         %a = fx.call_function "torch.sigmoid"(%x) : (tensor<2xf32>) -> tensor<2xf32> loc(#[[LOC_A:loc[0-9]*]])
// CHECK-NEXT:    %b = fx.call_function "torch.sigmoid"(%x) : (tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:    %c = fx.call_function "torch.sigmoid"(%x) : (tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:    %d = fx.call_function "torch.sigmoid"(%x) : (tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:    %e = fx.call_function "torch.sigmoid"(%x) : (tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:    %n = fx.call_function "torch.neg"(%x)
// CHECK-DAG:     #[[SRC:loc[0-9]*]] = loc("model.py":3:1)
// CHECK-DAG:     #[[MOD:loc[0-9]*]] = loc("layer1"(#[[SRC]]))
// CHECK-DAG:     #[[LOC_A]] = loc("a"(#[[MOD]]))

// ATEN-LABEL: fx.graph_module @Spellings
// ATEN:         %a = fx.call_function "aten::sigmoid"(%x) : (tensor<2xf32>) -> tensor<2xf32>
// ATEN-NEXT:    %b = fx.call_function "aten::sigmoid"(%x)
// ATEN-NEXT:    %c = fx.call_function "aten::sigmoid"(%x)
// ATEN-NEXT:    %d = fx.call_function "aten::sigmoid"(%x)
// ATEN-NEXT:    %e = fx.call_function "aten::sigmoid"(%x)
// ATEN-NEXT:    %n = fx.call_function "torch.neg"(%x)

// `to`'s parameters that `from` lacks take their defaults: gelu's
// keyword-only `approximate` is not passed.

// TO-GELU-LABEL: fx.graph_module @Spellings
// TO-GELU:         %a = fx.call_function "torch.nn.functional.gelu"(%x) : (tensor<2xf32>) -> tensor<2xf32>
// TO-GELU:         %d = fx.call_function "torch.nn.functional.gelu"(%x) : (tensor<2xf32>) -> tensor<2xf32>

// UNCHANGED: error: fx-replace-target: call_function 'tanh': 'torch.relu' has no parameter for 'approximate'
// UNCHANGED: IR Dump After FXReplaceTarget Failed
// UNCHANGED: %a = fx.call_function "torch.relu"(%x)
// UNCHANGED: %d = fx.call_module @act(%x)
// UNCHANGED: %a = fx.call_function "torch.nn.functional.gelu"(%x)
// UNCHANGED: %exact = fx.call_function "torch.nn.functional.gelu"(%x)
// UNCHANGED: %tanh = fx.call_function "torch.nn.functional.gelu"(%x, approximate="tanh")

// torch.add needs `other`, which relu has not: an error on every match.
// MISSING: error: fx-replace-target: call_function 'a' (module 'layer1'): 'torch.add' needs the argument 'other', which a call of 'torch.relu' does not have
// MISSING: error: fx-replace-target: call_method 'c': 'torch.add' needs the argument 'other'
// MISSING: error: fx-replace-target: call_module 'd': 'torch.add' needs the argument 'other'
// MISSING: IR Dump After FXReplaceTarget Failed
// MISSING: %a = fx.call_function "torch.relu"(%x)
// MISSING: %c = fx.call_method "relu"(%x)
// MISSING: %d = fx.call_module @act(%x)

// UNKNOWN-FROM: error: fx-replace-target: unknown target 'torch.frobnicate' (not a call_function target or operator the target registry knows)
// UNKNOWN-TO: error: fx-replace-target: unknown target 'mylib.f' (not a call_function target or operator the target registry knows)
// NO-TO: error: fx-replace-target needs both 'from' and 'to'

fx.graph_module @Spellings {
  fx.submodule @act "torch.nn.ReLU"()
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2xf32>
    %a = fx.call_function "torch.relu"(%x) : (tensor<2xf32>) -> tensor<2xf32> loc("a"("layer1"("model.py":3:1)))
    %b = fx.call_function "torch.nn.functional.relu"(%x) : (tensor<2xf32>) -> tensor<2xf32>
    %c = fx.call_method "relu"(%x) : (tensor<2xf32>) -> tensor<2xf32>
    %d = fx.call_module @act(%x) : (tensor<2xf32>) -> tensor<2xf32>
    %e = fx.call_function "aten::relu"(%x) : (tensor<2xf32>) -> tensor<2xf32>
    %n = fx.call_function "torch.neg"(%x) : (tensor<2xf32>) -> tensor<2xf32>
    fx.output (%a, %b, %c, %d, %e, %n) : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
  }
}

// -----

// One matched node feeds another: both are replaced, the second reading
// the first's replacement.

// CHAIN-LABEL: fx.graph @chain
// CHAIN-NEXT:    %x = fx.placeholder "x"
// CHAIN-NEXT:    %a = fx.call_function "torch.abs"(%x) : (tensor<2xf32>) -> tensor<2xf32>
// CHAIN-NEXT:    %b = fx.call_function "torch.abs"(%a) : (tensor<2xf32>) -> tensor<2xf32>
// CHAIN-NEXT:    fx.output %b
fx.graph @chain {
  %x = fx.placeholder "x" : tensor<2xf32>
  %a = fx.call_function "torch.neg"(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %b = fx.call_method "neg"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  fx.output %b : tensor<2xf32>
}

// -----

// Module weights are bound state: the new call reads them through get_attr
// nodes.

// LINEAR-LABEL: fx.graph_module @Linear
// LINEAR:         %x = fx.placeholder "x"
// LINEAR-NEXT:    %fc_weight = fx.get_attr @fc.weight : tensor<4x8xf32>
// LINEAR-NEXT:    %fc_bias = fx.get_attr @fc.bias : tensor<4xf32>
// LINEAR-NEXT:    %fc = fx.call_function "torch._C._nn.linear"(%x, %fc_weight, %fc_bias) : (tensor<2x8xf32>, tensor<4x8xf32>, tensor<4xf32>) -> tensor<2x4xf32>
// LINEAR-NEXT:    fx.output %fc
fx.graph_module @Linear {
  fx.state parameter @fc.weight : tensor<4x8xf32>
  fx.state parameter @fc.bias : tensor<4xf32>
  fx.submodule @fc "torch.nn.Linear"(in_features=8, out_features=4, bias=True)
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x8xf32>
    %fc = fx.call_module @fc(%x) : (tensor<2x8xf32>) -> tensor<2x4xf32>
    fx.output %fc : tensor<2x4xf32>
  }
}

// -----

// gelu -> relu: gelu's `approximate` holds its default "none" (implicit or
// explicit), so relu can do without it.

// GELU-LABEL: fx.graph @gelu_default
// GELU-NEXT:    %x = fx.placeholder "x"
// GELU-NEXT:    %a = fx.call_function "torch.relu"(%x) : (tensor<2xf32>) -> tensor<2xf32>
// GELU-NEXT:    %b = fx.call_function "torch.relu"(%x) : (tensor<2xf32>) -> tensor<2xf32>
// GELU-NEXT:    fx.output (%a, %b)
fx.graph @gelu_default {
  %x = fx.placeholder "x" : tensor<2xf32>
  %a = fx.call_function "torch.nn.functional.gelu"(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %b = fx.call_function "torch._C._nn.gelu"(%x, approximate="none") : (tensor<2xf32>) -> tensor<2xf32>
  fx.output (%a, %b) : tensor<2xf32>, tensor<2xf32>
}

// -----

// approximate="tanh" is not the default and relu has no place for it: an
// error on that node, and the exact gelu before it is not replaced either.

// GELU-NOT: fx.graph @gelu_tanh
fx.graph @gelu_tanh {
  %x = fx.placeholder "x" : tensor<2xf32>
  %exact = fx.call_function "torch.nn.functional.gelu"(%x) : (tensor<2xf32>) -> tensor<2xf32>
  // expected-error @+1 {{fx-replace-target: call_function 'tanh': 'torch.relu' has no parameter for 'approximate'}}
  %tanh = fx.call_function "torch.nn.functional.gelu"(%x, approximate="tanh") : (tensor<2xf32>) -> tensor<2xf32>
  fx.output (%exact, %tanh) : tensor<2xf32>, tensor<2xf32>
}
