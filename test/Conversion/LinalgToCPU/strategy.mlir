// fx-cpu-schedule records the algorithm of each conv on the function
// (fx.cpu_strategies, naming the FX node), and a conv that carries
// fx.cpu_strategy gets that algorithm when it applies; when it does not,
// the pass fails naming the ones that do.
//
// RUN: fx-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(fx-cpu-schedule{target=x86-64-v4}))' -verify-diagnostics | FileCheck %s

// A wide stride-1 conv with weights given at run time: a shifted window.
// CHECK-LABEL: func.func @chosen
// CHECK-SAME: fx.cpu_strategies = ["'conv1' (module 'layer1'): shifted-window"]
// CHECK-NOT: linalg.conv_2d_nchw_fchw
func.func @chosen(%x: tensor<1x16x34x34xf32>, %w: tensor<32x16x3x3xf32>, %o: tensor<1x32x32x32xf32>) -> tensor<1x32x32x32xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x16x34x34xf32>, tensor<32x16x3x3xf32>) outs(%o : tensor<1x32x32x32xf32>) -> tensor<1x32x32x32xf32> loc("conv1"("layer1"("model.py":3:4)))
  return %r : tensor<1x32x32x32xf32>
}

// -----

// The same conv told to gather its columns (im2col) does: the gather is a
// linalg.generic that reads the input through the window loops.
// CHECK-LABEL: func.func @forced
// CHECK-SAME: fx.cpu_strategies = ["'conv1': im2col (fx.cpu_strategy)"]
func.func @forced(%x: tensor<1x16x34x34xf32>, %w: tensor<32x16x3x3xf32>, %o: tensor<1x32x32x32xf32>) -> tensor<1x32x32x32xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, fx.cpu_strategy = "im2col"} ins(%x, %w : tensor<1x16x34x34xf32>, tensor<32x16x3x3xf32>) outs(%o : tensor<1x32x32x32xf32>) -> tensor<1x32x32x32xf32> loc("conv1"("model.py":3:4))
  return %r : tensor<1x32x32x32xf32>
}

// -----

func.func @not_applicable(%x: tensor<1x16x34x34xf32>, %w: tensor<32x16x3x3xf32>, %o: tensor<1x32x32x32xf32>) -> tensor<1x32x32x32xf32> {
  // expected-error @+1 {{fx.cpu_strategy 'winograd' does not apply to this convolution; these do: shifted-window, im2col}}
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, fx.cpu_strategy = "winograd"} ins(%x, %w : tensor<1x16x34x34xf32>, tensor<32x16x3x3xf32>) outs(%o : tensor<1x32x32x32xf32>) -> tensor<1x32x32x32xf32>
  return %r : tensor<1x32x32x32xf32>
}

// -----

func.func @unknown(%x: tensor<1x16x34x34xf32>, %w: tensor<32x16x3x3xf32>, %o: tensor<1x32x32x32xf32>) -> tensor<1x32x32x32xf32> {
  // expected-error @+1 {{fx.cpu_strategy 'fft' does not apply to this convolution; these do: shifted-window, im2col}}
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, fx.cpu_strategy = "fft"} ins(%x, %w : tensor<1x16x34x34xf32>, tensor<32x16x3x3xf32>) outs(%o : tensor<1x32x32x32xf32>) -> tensor<1x32x32x32xf32>
  return %r : tensor<1x32x32x32xf32>
}
