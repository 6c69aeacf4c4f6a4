// RUN: fx-opt %s -split-input-file --fx-fold-batchnorm | FileCheck %s

// fx-fold-batchnorm: an eval-mode batch norm whose input is a conv1d,
// conv2d or linear used by nothing else folds into it:
//   scale = gamma / sqrt(running_var + eps)
//   W' = W * scale (per output channel), b' = (b - running_mean) * scale + beta
// The new weights are `fx.state` parameters `<weight>_folded` and
// `<module>.bias_folded`, read by one canonical conv/linear call; state
// and submodules nothing uses any more are erased.
//
// The folded values are f32 blobs, printed little-endian after a 4-byte
// alignment header (0x08000000): 3.0 is 00004040, 6.0 is 0000C040.

// Module form. eps = 1, gamma = 3, beta = 0.5, mean = [1, 2], var = [3, 0]:
// scale = [3 / 2, 3 / 1] = [1.5, 3]; W = 2 -> W' = [3, 6];
// b = 1 -> b' = [(1 - 1) * 1.5 + 0.5, (1 - 2) * 3 + 0.5] = [0.5, -2.5].

// CHECK-LABEL: fx.graph_module @ConvBN
// CHECK-NOT:     fx.state {{.*}}@conv.weight :
// CHECK-NOT:     fx.state {{.*}}@conv.bias :
// CHECK-NOT:     @bn
// CHECK-DAG:     fx.state parameter @conv.weight_folded : tensor<2x1x1x1xf32> = dense_resource<conv.weight_folded>
// CHECK-DAG:     fx.state parameter @conv.bias_folded : tensor<2xf32> = dense_resource<conv.bias_folded>
// CHECK:         fx.graph @forward
// CHECK-NEXT:      %x = fx.placeholder "x"
// CHECK-NEXT:      %[[W:.*]] = fx.get_attr @conv.weight_folded : tensor<2x1x1x1xf32>
// CHECK-NEXT:      %[[B:.*]] = fx.get_attr @conv.bias_folded : tensor<2xf32>
// CHECK-NEXT:      %conv = fx.call_function "aten::conv2d"(%x, %[[W]], %[[B]], [1, 1], [0, 0], [1, 1], 1) : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
// CHECK-NEXT:      fx.output %conv
// CHECK-NOT:     @bn
// CHECK:         conv.weight_folded: "0x08000000000040400000C040"
// CHECK-NEXT:    conv.bias_folded: "0x080000000000003F000020C0"
fx.graph_module @ConvBN {
  fx.state parameter @conv.weight : tensor<2x1x1x1xf32> = dense<2.0>
  fx.state parameter @conv.bias : tensor<2xf32> = dense<1.0>
  fx.state parameter @bn.weight : tensor<2xf32> = dense<3.0>
  fx.state parameter @bn.bias : tensor<2xf32> = dense<0.5>
  fx.state buffer @bn.running_mean : tensor<2xf32> = dense<[1.0, 2.0]>
  fx.state buffer @bn.running_var : tensor<2xf32> = dense<[3.0, 0.0]>
  fx.state buffer @bn.num_batches_tracked : tensor<i64> = dense<0>
  fx.submodule @conv "torch.nn.Conv2d"(in_channels=1, out_channels=2, kernel_size=(1, 1), stride=(1, 1), padding=(0, 0), dilation=(1, 1), groups=1, bias=True, padding_mode="zeros")
  fx.submodule @bn "torch.nn.BatchNorm2d"(num_features=2, eps=1.0, momentum=0.1, affine=True, track_running_stats=True)
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x1x4x4xf32>
    %conv = fx.call_module @conv(%x) : (tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32>
    %bn = fx.call_module @bn(%conv) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
    fx.output %bn : tensor<1x2x4x4xf32>
  }
}

// -----

// Canonical aten form reading get_attr nodes; the conv has no bias (0).
// b' = [(0 - 1) * 1.5 + 0.5, (0 - 2) * 3 + 0.5] = [-1, -5.5]. The weight is
// not named `<module>.weight`: the new names extend its own.

// CHECK-LABEL: fx.graph_module @AtenConvBN
// CHECK-NEXT:    fx.state parameter @w_folded : tensor<2x1x1x1xf32> = dense_resource<w_folded>
// CHECK-NEXT:    fx.state parameter @w_bias_folded : tensor<2xf32> = dense_resource<w_bias_folded>
// CHECK-NEXT:    fx.graph @forward
// CHECK-NEXT:      %x = fx.placeholder "x"
// CHECK-NEXT:      %w_folded = fx.get_attr @w_folded
// CHECK-NEXT:      %w_bias_folded = fx.get_attr @w_bias_folded
// CHECK-NEXT:      %conv = fx.call_function "aten::conv2d"(%x, %w_folded, %w_bias_folded, [1, 1], [0, 0], [1, 1], 1)
// CHECK-NEXT:      fx.output %conv
// CHECK:         w_folded: "0x08000000000040400000C040"
// CHECK-NEXT:    w_bias_folded: "0x08000000000080BF0000B0C0"
fx.graph_module @AtenConvBN {
  fx.state parameter @w : tensor<2x1x1x1xf32> = dense<2.0>
  fx.state parameter @gamma : tensor<2xf32> = dense<3.0>
  fx.state parameter @beta : tensor<2xf32> = dense<0.5>
  fx.state buffer @mean : tensor<2xf32> = dense<[1.0, 2.0]>
  fx.state buffer @var : tensor<2xf32> = dense<[3.0, 0.0]>
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x1x4x4xf32>
    %w = fx.get_attr @w : tensor<2x1x1x1xf32>
    %gamma = fx.get_attr @gamma : tensor<2xf32>
    %beta = fx.get_attr @beta : tensor<2xf32>
    %mean = fx.get_attr @mean : tensor<2xf32>
    %var = fx.get_attr @var : tensor<2xf32>
    %conv = fx.call_function "aten::conv2d"(%x, %w, None, [1, 1], [0, 0], [1, 1], 1) : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
    %bn = fx.call_function "aten::batch_norm"(%conv, %gamma, %beta, %mean, %var, False, 0.1, 1.0, True) : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
    fx.output %bn : tensor<1x2x4x4xf32>
  }
}

// -----

// nn.Conv1d without bias + nn.BatchNorm1d without affine (gamma 1, beta 0):
// scale = [1 / 2, 1 / 1]; W = 2 -> W' = [1, 2];
// b' = [(0 - 1) * 0.5, (0 - 2) * 1] = [-0.5, -2].

// CHECK-LABEL: fx.graph_module @Conv1dBN
// CHECK-NOT:     @bn
// CHECK-DAG:     fx.state parameter @conv.weight_folded : tensor<2x1x1xf32>
// CHECK-DAG:     fx.state parameter @conv.bias_folded : tensor<2xf32>
// CHECK:         %conv = fx.call_function "aten::conv1d"(%x, %conv_weight_folded, %conv_bias_folded, [1], [0], [1], 1) : (tensor<1x1x4xf32>, tensor<2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4xf32>
// CHECK-NEXT:    fx.output %conv
// CHECK:         conv.weight_folded: "0x080000000000803F00000040"
// CHECK-NEXT:    conv.bias_folded: "0x08000000000000BF000000C0"
fx.graph_module @Conv1dBN {
  fx.state parameter @conv.weight : tensor<2x1x1xf32> = dense<2.0>
  fx.state buffer @bn.running_mean : tensor<2xf32> = dense<[1.0, 2.0]>
  fx.state buffer @bn.running_var : tensor<2xf32> = dense<[3.0, 0.0]>
  fx.submodule @conv "torch.nn.Conv1d"(in_channels=1, out_channels=2, kernel_size=(1,), stride=(1,), padding=(0,), dilation=(1,), groups=1, bias=False, padding_mode="zeros")
  fx.submodule @bn "torch.nn.BatchNorm1d"(num_features=2, eps=1.0, momentum=0.1, affine=False, track_running_stats=True)
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x1x4xf32>
    %conv = fx.call_module @conv(%x) : (tensor<1x1x4xf32>) -> tensor<1x2x4xf32>
    %bn = fx.call_module @bn(%conv) : (tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
    fx.output %bn : tensor<1x2x4xf32>
  }
}

// -----

// nn.Linear + nn.BatchNorm1d on a 2-d result: eps = 1, var = 3, gamma = 2
// -> scale 1; W' = W = 1, b' = b = [1, 2].

// CHECK-LABEL: fx.graph_module @LinearBN
// CHECK-NOT:     @bn
// CHECK-DAG:     fx.state parameter @fc.weight_folded : tensor<2x3xf32> = dense_resource<fc.weight_folded>
// CHECK-DAG:     fx.state parameter @fc.bias_folded : tensor<2xf32> = dense_resource<fc.bias_folded>
// CHECK:         %fc = fx.call_function "aten::linear"(%x, %fc_weight_folded, %fc_bias_folded) : (tensor<5x3xf32>, tensor<2x3xf32>, tensor<2xf32>) -> tensor<5x2xf32>
// CHECK-NEXT:    fx.output %fc
// CHECK:         fc.weight_folded: "0x080000000000803F0000803F0000803F0000803F0000803F0000803F"
// CHECK-NEXT:    fc.bias_folded: "0x080000000000803F00000040"
fx.graph_module @LinearBN {
  fx.state parameter @fc.weight : tensor<2x3xf32> = dense<1.0>
  fx.state parameter @fc.bias : tensor<2xf32> = dense<[1.0, 2.0]>
  fx.state parameter @bn.weight : tensor<2xf32> = dense<2.0>
  fx.state parameter @bn.bias : tensor<2xf32> = dense<0.0>
  fx.state buffer @bn.running_mean : tensor<2xf32> = dense<0.0>
  fx.state buffer @bn.running_var : tensor<2xf32> = dense<3.0>
  fx.state buffer @bn.num_batches_tracked : tensor<i64> = dense<0>
  fx.submodule @fc "torch.nn.Linear"(in_features=3, out_features=2, bias=True)
  fx.submodule @bn "torch.nn.BatchNorm1d"(num_features=2, eps=1.0, momentum=0.1, affine=True, track_running_stats=True)
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<5x3xf32>
    %fc = fx.call_module @fc(%x) : (tensor<5x3xf32>) -> tensor<5x2xf32>
    %bn = fx.call_module @bn(%fc) : (tensor<5x2xf32>) -> tensor<5x2xf32>
    fx.output %bn : tensor<5x2xf32>
  }
}

// -----

//===----------------------------------------------------------------------===//
// Left as they are
//===----------------------------------------------------------------------===//

// A training-mode batch norm normalizes by the batch's statistics.

// CHECK-LABEL: fx.graph_module @TrainingBN
// CHECK:         fx.state parameter @conv.weight : tensor<2x1x1x1xf32> = dense<2.000000e+00>
// CHECK:         fx.submodule @bn "torch.nn.BatchNorm2d"
// CHECK:         %conv = fx.call_module @conv(%x)
// CHECK-NEXT:    %bn = fx.call_module @bn(%conv)
// CHECK-NOT:     _folded
fx.graph_module @TrainingBN {
  fx.state parameter @conv.weight : tensor<2x1x1x1xf32> = dense<2.0>
  fx.state buffer @bn.running_mean : tensor<2xf32> = dense<0.0>
  fx.state buffer @bn.running_var : tensor<2xf32> = dense<1.0>
  fx.submodule @conv "torch.nn.Conv2d"(in_channels=1, out_channels=2, kernel_size=(1, 1), stride=(1, 1), padding=(0, 0), dilation=(1, 1), groups=1, bias=False, padding_mode="zeros")
  fx.submodule @bn "torch.nn.BatchNorm2d"(num_features=2, eps=1.0e-05, momentum=0.1, affine=False, track_running_stats=True) training
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x1x4x4xf32>
    %conv = fx.call_module @conv(%x) : (tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32>
    %bn = fx.call_module @bn(%conv) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
    fx.output %bn : tensor<1x2x4x4xf32>
  }
}

// -----

// The canonical form with training=True.

// CHECK-LABEL: fx.graph_module @AtenTrainingBN
// CHECK:         %conv = fx.call_function "aten::conv2d"
// CHECK-NEXT:    %bn = fx.call_function "aten::batch_norm"(%conv, None, None, %mean, %var, True,
// CHECK-NOT:     _folded
fx.graph_module @AtenTrainingBN {
  fx.state parameter @w : tensor<2x1x1x1xf32> = dense<2.0>
  fx.state buffer @mean : tensor<2xf32> = dense<0.0>
  fx.state buffer @var : tensor<2xf32> = dense<1.0>
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x1x4x4xf32>
    %w = fx.get_attr @w : tensor<2x1x1x1xf32>
    %mean = fx.get_attr @mean : tensor<2xf32>
    %var = fx.get_attr @var : tensor<2xf32>
    %conv = fx.call_function "aten::conv2d"(%x, %w, None, [1, 1], [0, 0], [1, 1], 1) : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
    %bn = fx.call_function "aten::batch_norm"(%conv, None, None, %mean, %var, True, 0.1, 1.0e-05, True) : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
    fx.output %bn : tensor<1x2x4x4xf32>
  }
}

// -----

// The conv result has a second user, which needs the unnormalized values.

// CHECK-LABEL: fx.graph_module @SecondUser
// CHECK:         %conv = fx.call_module @conv(%x)
// CHECK-NEXT:    %bn = fx.call_module @bn(%conv)
// CHECK-NEXT:    fx.output (%bn, %conv)
// CHECK-NOT:     _folded
fx.graph_module @SecondUser {
  fx.state parameter @conv.weight : tensor<2x1x1x1xf32> = dense<2.0>
  fx.state buffer @bn.running_mean : tensor<2xf32> = dense<0.0>
  fx.state buffer @bn.running_var : tensor<2xf32> = dense<1.0>
  fx.submodule @conv "torch.nn.Conv2d"(in_channels=1, out_channels=2, kernel_size=(1, 1), stride=(1, 1), padding=(0, 0), dilation=(1, 1), groups=1, bias=False, padding_mode="zeros")
  fx.submodule @bn "torch.nn.BatchNorm2d"(num_features=2, eps=1.0e-05, momentum=0.1, affine=False, track_running_stats=True)
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x1x4x4xf32>
    %conv = fx.call_module @conv(%x) : (tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32>
    %bn = fx.call_module @bn(%conv) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
    fx.output (%bn, %conv) : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
  }
}

// -----

// A linear with a 3-d result: BatchNorm1d normalizes dim 1, not the
// linear's output features.

// CHECK-LABEL: fx.graph_module @Linear3d
// CHECK:         %fc = fx.call_module @fc(%x)
// CHECK-NEXT:    %bn = fx.call_module @bn(%fc)
// CHECK-NOT:     _folded
fx.graph_module @Linear3d {
  fx.state parameter @fc.weight : tensor<2x3xf32> = dense<1.0>
  fx.state buffer @bn.running_mean : tensor<2xf32> = dense<0.0>
  fx.state buffer @bn.running_var : tensor<2xf32> = dense<1.0>
  fx.submodule @fc "torch.nn.Linear"(in_features=3, out_features=2, bias=False)
  fx.submodule @bn "torch.nn.BatchNorm1d"(num_features=2, eps=1.0e-05, momentum=0.1, affine=False, track_running_stats=True)
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<4x2x3xf32>
    %fc = fx.call_module @fc(%x) : (tensor<4x2x3xf32>) -> tensor<4x2x2xf32>
    %bn = fx.call_module @bn(%fc) : (tensor<4x2x2xf32>) -> tensor<4x2x2xf32>
    fx.output %bn : tensor<4x2x2xf32>
  }
}

// -----

// Weights without values cannot be folded.

// CHECK-LABEL: fx.graph_module @UnknownWeights
// CHECK:         %conv = fx.call_module @conv(%x)
// CHECK-NEXT:    %bn = fx.call_module @bn(%conv)
// CHECK-NOT:     _folded
fx.graph_module @UnknownWeights {
  fx.state parameter @conv.weight : tensor<2x1x1x1xf32>
  fx.state buffer @bn.running_mean : tensor<2xf32> = dense<0.0>
  fx.state buffer @bn.running_var : tensor<2xf32> = dense<1.0>
  fx.submodule @conv "torch.nn.Conv2d"(in_channels=1, out_channels=2, kernel_size=(1, 1), stride=(1, 1), padding=(0, 0), dilation=(1, 1), groups=1, bias=False, padding_mode="zeros")
  fx.submodule @bn "torch.nn.BatchNorm2d"(num_features=2, eps=1.0e-05, momentum=0.1, affine=False, track_running_stats=True)
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x1x4x4xf32>
    %conv = fx.call_module @conv(%x) : (tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32>
    %bn = fx.call_module @bn(%conv) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
    fx.output %bn : tensor<1x2x4x4xf32>
  }
}
