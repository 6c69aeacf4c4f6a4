// RUN: fx-opt %s -split-input-file --fx-replace-target="from=operator.add to=operator.mul" | FileCheck %s --check-prefix=MUL
// RUN: fx-opt %s -split-input-file --fx-replace-target="from=torch.mean to=torch.sum" | FileCheck %s --check-prefix=SUM
// RUN: not fx-opt %s -split-input-file --fx-replace-target="from=torch.mean to=torch.relu" 2>&1 | FileCheck %s --check-prefix=RELU

// fx-replace-target calls the overload of `to` that has the call's own
// overload (`aten::add.int` becomes `aten::mul.int`, `aten::mean` without
// a dim `aten::sum` without one), else the first overload that takes the
// call's arguments; only when none does is it an error, naming the node
// and what the first overload tried lacked.

// MUL-LABEL: fx.graph @sizes_and_tensors
// MUL:         %add = fx.call_function "operator.mul"(%getitem, 2) : (i64) -> i64
// MUL:         %sub = fx.call_function "operator.sub"(%add, 2) : (i64) -> i64
// MUL:         %add_1 = fx.call_function "operator.mul"(%mean, %sum_1) : (tensor<f32>, tensor<3xf32>) -> tensor<3xf32>
// MUL:         %add_2 = fx.call_function "operator.mul"(%add_1, 1.5) : (tensor<3xf32>) -> tensor<3xf32>

// SUM-LABEL: fx.graph @sizes_and_tensors
// SUM:         %mean = fx.call_function "torch.sum"(%x, dtype=None) : (tensor<2x3xf32>) -> tensor<f32>
// SUM:         %mean_1 = fx.call_function "torch.sum"(%x, [1], True, dtype=None) : (tensor<2x3xf32>) -> tensor<2x1xf32>

// relu takes a mean without a dim (its dtype holds the default), not one
// with a dim.
// RELU: error: fx-replace-target: call_method 'mean_1' (module 'layer1'): 'torch.relu' has no parameter for 'dim'
fx.graph @sizes_and_tensors {
  %x = fx.placeholder "x" : tensor<2x3xf32>
  %getattr_1 = fx.call_function "builtins.getattr"(%x, "shape") : (tensor<2x3xf32>) -> !fx.any
  %getitem = fx.call_function "operator.getitem"(%getattr_1, 1) : (!fx.any) -> i64
  %add = fx.call_function "operator.add"(%getitem, 2) : (i64) -> i64
  %mean = fx.call_method "mean"(%x) : (tensor<2x3xf32>) -> tensor<f32>
  %mean_1 = fx.call_method "mean"(%x, 1, keepdim=True) : (tensor<2x3xf32>) -> tensor<2x1xf32> loc(#mean)
  %sub = fx.call_function "operator.sub"(%add, 2) : (i64) -> i64
  %view = fx.call_method "view"(%x, -1, %sub) : (tensor<2x3xf32>, i64) -> tensor<2x3xf32>
  %sum_1 = fx.call_method "sum"(%view, 0) : (tensor<2x3xf32>) -> tensor<3xf32>
  %add_1 = fx.call_function "operator.add"(%mean, %sum_1) : (tensor<f32>, tensor<3xf32>) -> tensor<3xf32>
  %add_2 = fx.call_function "operator.add"(%add_1, 1.5) : (tensor<3xf32>) -> tensor<3xf32>
  fx.output (%add_2, %mean_1) : tensor<3xf32>, tensor<2x1xf32>
}
#src = loc("model.py":3:1)
#mod = loc("layer1"(#src))
#mean = loc("mean"(#mod))
