// RUN: fx-opt %s -split-input-file --fx-dce | FileCheck %s
// RUN: fx-opt %s -split-input-file --fx-dce=remove-unused-state | FileCheck %s --check-prefix=STATE

// fx-dce: nodes without users are erased, last first, when they are pure:
// get_attr nodes and calls of `Pure` operators that do not write their
// input; eval-mode dropout and batch norm count as pure. Training-mode
// dropout and batch norm, in-place calls, unknown targets, placeholders and
// the output stay. With remove-unused-state, state nothing reads and leaf
// submodules nothing calls go too.

// A dead chain goes, last node first; a live node stays.

// CHECK-LABEL: fx.graph @dead_pure
// CHECK-NEXT:    %x = fx.placeholder "x"
// CHECK-NEXT:    %neg = fx.call_function "torch.neg"(%x)
// CHECK-NEXT:    fx.output %neg
fx.graph @dead_pure {
  %x = fx.placeholder "x" : tensor<2xf32>
  %relu = fx.call_function "torch.relu"(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %sigmoid = fx.call_method "sigmoid"(%relu) : (tensor<2xf32>) -> tensor<2xf32>
  %neg = fx.call_function "torch.neg"(%x) : (tensor<2xf32>) -> tensor<2xf32>
  fx.output %neg : tensor<2xf32>
}

// -----

// Eval-mode dropout is pure; training-mode dropout draws random numbers.

// CHECK-LABEL: fx.graph @dropout
// CHECK-NOT:     %eval
// CHECK:         %train = fx.call_function "torch.nn.functional.dropout"(%x, p=0.5, training=True)
// CHECK-NOT:     %eval
// CHECK:         fx.output %x
fx.graph @dropout {
  %x = fx.placeholder "x" : tensor<2xf32>
  %eval = fx.call_function "torch.nn.functional.dropout"(%x, p=0.5, training=False) : (tensor<2xf32>) -> tensor<2xf32>
  %train = fx.call_function "torch.nn.functional.dropout"(%x, p=0.5, training=True) : (tensor<2xf32>) -> tensor<2xf32>
  fx.output %x : tensor<2xf32>
}

// -----

// `torch.nn.functional.dropout` defaults to training=True: kept.

// CHECK-LABEL: fx.graph @dropout_default_training
// CHECK:         %drop = fx.call_function "torch.nn.functional.dropout"(%x)
fx.graph @dropout_default_training {
  %x = fx.placeholder "x" : tensor<2xf32>
  %drop = fx.call_function "torch.nn.functional.dropout"(%x) : (tensor<2xf32>) -> tensor<2xf32>
  fx.output %x : tensor<2xf32>
}

// -----

// A target the registry does not know may have side effects: kept.

// CHECK-LABEL: fx.graph @unknown_target
// CHECK:         %f = fx.call_function "mylib.frobnicate"(%x)
fx.graph @unknown_target {
  %x = fx.placeholder "x" : tensor<2xf32>
  %f = fx.call_function "mylib.frobnicate"(%x) : (tensor<2xf32>) -> tensor<2xf32>
  fx.output %x : tensor<2xf32>
}

// -----

// In-place calls write their input: kept though nothing uses their result.

// CHECK-LABEL: fx.graph @inplace
// CHECK:         %relu = fx.call_function "torch.nn.functional.relu"(%x, inplace=True)
// CHECK:         %iadd = fx.call_function "operator.iadd"(%x, 1)
// CHECK:         fx.output %x
fx.graph @inplace {
  %x = fx.placeholder "x" : tensor<2xf32>
  %relu = fx.call_function "torch.nn.functional.relu"(%x, inplace=True) : (tensor<2xf32>) -> tensor<2xf32>
  %iadd = fx.call_function "operator.iadd"(%x, 1) : (tensor<2xf32>) -> tensor<2xf32>
  fx.output %x : tensor<2xf32>
}

// -----

// Module calls: a dead nn.Linear or eval-mode nn.BatchNorm1d goes, a
// training-mode nn.BatchNorm1d (it updates its running statistics) stays.
// Unused get_attr nodes go, also when their user went first. Without
// remove-unused-state the state and submodules stay.

// CHECK-LABEL: fx.graph_module @modules
// CHECK:         fx.state parameter @fc.weight
// CHECK:         fx.submodule @fc "torch.nn.Linear"
// CHECK:         fx.submodule @bn "torch.nn.BatchNorm1d"
// CHECK:         fx.submodule @bn_train "torch.nn.BatchNorm1d"
// CHECK:         fx.graph @forward
// CHECK-NEXT:      %x = fx.placeholder "x"
// CHECK-NEXT:      %bn_train = fx.call_module @bn_train(%x)
// CHECK-NEXT:      fx.output %x

// STATE-LABEL: fx.graph_module @modules
// STATE-NEXT:    fx.state buffer @bn_train.running_mean
// STATE-NEXT:    fx.state buffer @bn_train.running_var
// STATE-NEXT:    fx.submodule @bn_train "torch.nn.BatchNorm1d"
// STATE-NEXT:    fx.graph @forward
fx.graph_module @modules {
  fx.state parameter @fc.weight : tensor<4x8xf32>
  fx.state buffer @bn.running_mean : tensor<8xf32>
  fx.state buffer @bn.running_var : tensor<8xf32>
  fx.state buffer @bn_train.running_mean : tensor<8xf32>
  fx.state buffer @bn_train.running_var : tensor<8xf32>
  fx.submodule @fc "torch.nn.Linear"(in_features=8, out_features=4, bias=False)
  fx.submodule @bn "torch.nn.BatchNorm1d"(num_features=8, eps=1.0e-05, momentum=0.1, affine=False, track_running_stats=True)
  fx.submodule @bn_train "torch.nn.BatchNorm1d"(num_features=8, eps=1.0e-05, momentum=0.1, affine=False, track_running_stats=True) training
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x8xf32>
    %fc = fx.call_module @fc(%x) : (tensor<2x8xf32>) -> tensor<2x4xf32>
    %bn = fx.call_module @bn(%x) : (tensor<2x8xf32>) -> tensor<2x8xf32>
    %bn_train = fx.call_module @bn_train(%x) : (tensor<2x8xf32>) -> tensor<2x8xf32>
    %w = fx.get_attr @fc.weight : tensor<4x8xf32>
    %t = fx.call_function "aten::t"(%w) : (tensor<4x8xf32>) -> tensor<8x4xf32>
    fx.output %x : tensor<2x8xf32>
  }
}

// -----

// remove-unused-state: state read by a live get_attr stays, and so does
// the state an alias names; a submodule stays while a live call or live
// state lies below its path. The state and leaf submodules nothing uses
// go, and a container whose children all went goes with them.

// CHECK-LABEL: fx.graph_module @state
// CHECK:         fx.state buffer @unused
// CHECK:         fx.submodule @block "torch.nn.Sequential"
// CHECK:         fx.submodule @block.act "torch.nn.ReLU"
// CHECK:         fx.graph @forward
// CHECK-NOT:       fx.get_attr @unused

// STATE-LABEL: fx.graph_module @state
// STATE-NEXT:    fx.state parameter @fc.weight : tensor<4x8xf32>
// STATE-NEXT:    fx.state parameter @fc.bias : tensor<4xf32>
// STATE-NEXT:    fx.state parameter @head.weight : tensor<4x8xf32>
// STATE-NEXT:    fx.state parameter @tied : tensor<4x8xf32> = @head.weight
// STATE-NEXT:    fx.submodule @fc "torch.nn.Linear"
// STATE-NEXT:    fx.submodule @head "torch.nn.Linear"
// STATE-NEXT:    fx.graph @forward
// STATE-NEXT:      %x = fx.placeholder "x"
// STATE-NEXT:      %fc = fx.call_module @fc(%x)
// STATE-NEXT:      %tied = fx.get_attr @tied
// STATE-NEXT:      fx.output (%fc, %tied)
fx.graph_module @state {
  fx.state parameter @fc.weight : tensor<4x8xf32>
  fx.state parameter @fc.bias : tensor<4xf32>
  fx.state parameter @head.weight : tensor<4x8xf32>
  fx.state parameter @tied : tensor<4x8xf32> = @head.weight
  fx.state buffer @unused : tensor<4xf32>
  fx.submodule @fc "torch.nn.Linear"(in_features=8, out_features=4, bias=True)
  fx.submodule @head "torch.nn.Linear"(in_features=8, out_features=4, bias=False)
  fx.submodule @block "torch.nn.Sequential"()
  fx.submodule @block.act "torch.nn.ReLU"()
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x8xf32>
    %fc = fx.call_module @fc(%x) : (tensor<2x8xf32>) -> tensor<2x4xf32>
    %tied = fx.get_attr @tied : tensor<4x8xf32>
    %unused = fx.get_attr @unused : tensor<4xf32>
    %act = fx.call_module @block.act(%x) : (tensor<2x8xf32>) -> tensor<2x8xf32>
    fx.output (%fc, %tied) : tensor<2x4xf32>, tensor<4x8xf32>
  }
}
