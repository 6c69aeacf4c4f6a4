// fx-cpu-schedule applies the strategy recorded on each conv and
// contraction (fx.cpu_strategy, see strategy-targets.mlir), chooses it for
// ops that have none, and records on the function what it applied, per FX
// node. A record written by hand overrides the choice; one that does not
// apply, or is malformed, is an error naming what would.
//
// RUN: fx-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(fx-cpu-schedule{target=x86-64-v4}))' -verify-diagnostics | FileCheck %s
// The pipeline of fx-to-llvm records first, then applies: the same choices.
// RUN: fx-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(fx-cpu-strategy{target=x86-64-v4},fx-cpu-schedule{target=x86-64-v4}))' -verify-diagnostics | FileCheck %s

// A wide stride-1 conv with weights given at run time: a shifted window,
// whose contraction gets the target's register tile.
// CHECK-LABEL: func.func @chosen
// CHECK-SAME: fx.cpu_strategies = ["'conv1' (module 'layer1'): shifted-window; tile 8x32, blocks 64x256x256"]
// CHECK-NOT: linalg.conv_2d_nchw_fchw
func.func @chosen(%x: tensor<1x16x34x34xf32>, %w: tensor<32x16x3x3xf32>, %o: tensor<1x32x32x32xf32>) -> tensor<1x32x32x32xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x16x34x34xf32>, tensor<32x16x3x3xf32>) outs(%o : tensor<1x32x32x32xf32>) -> tensor<1x32x32x32xf32> loc("conv1"("layer1"("model.py":3:4)))
  return %r : tensor<1x32x32x32xf32>
}

// -----

// The same conv told to gather its columns (im2col), as a string or a
// record, does.
// CHECK-LABEL: func.func @forced
// CHECK-SAME: fx.cpu_strategies = ["'conv1': im2col; tile 8x32, blocks 64x256x256", "'conv2': im2col; tile 8x32, blocks 64x256x256"]
func.func @forced(%x: tensor<1x16x34x34xf32>, %w: tensor<32x16x3x3xf32>, %o: tensor<1x32x32x32xf32>) -> (tensor<1x32x32x32xf32>, tensor<1x32x32x32xf32>) {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, fx.cpu_strategy = "im2col"} ins(%x, %w : tensor<1x16x34x34xf32>, tensor<32x16x3x3xf32>) outs(%o : tensor<1x32x32x32xf32>) -> tensor<1x32x32x32xf32> loc("conv1"("model.py":3:4))
  %s = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, fx.cpu_strategy = {algorithm = "im2col"}} ins(%x, %w : tensor<1x16x34x34xf32>, tensor<32x16x3x3xf32>) outs(%o : tensor<1x32x32x32xf32>) -> tensor<1x32x32x32xf32> loc("conv2"("model.py":4:4))
  return %r, %s : tensor<1x32x32x32xf32>, tensor<1x32x32x32xf32>
}

// -----

// A conv's record may give the register tile and blocks of the
// contraction its algorithm makes.
// CHECK-LABEL: func.func @conv_tiles
// CHECK-SAME: fx.cpu_strategies = ["'conv1': shifted-window; tile 4x16, blocks 32x256x128"]
// CHECK: vector.contract {{.*}} into vector<4x16xf32>
// CHECK-NOT: vector<8x32xf32>
func.func @conv_tiles(%x: tensor<1x16x34x34xf32>, %w: tensor<32x16x3x3xf32>, %o: tensor<1x32x32x32xf32>) -> tensor<1x32x32x32xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, fx.cpu_strategy = {algorithm = "shifted-window", register_tile = array<i64: 4, 16>, cache_block = array<i64: 32, 256, 128>}} ins(%x, %w : tensor<1x16x34x34xf32>, tensor<32x16x3x3xf32>) outs(%o : tensor<1x32x32x32xf32>) -> tensor<1x32x32x32xf32> loc("conv1"("model.py":3:4))
  return %r : tensor<1x32x32x32xf32>
}

// -----

// A matmul's register tile written by hand: 4x8 tiles where the target's
// would be 8x32; the blocks it leaves out are the chosen ones.
// CHECK-LABEL: func.func @tile
// CHECK-SAME: fx.cpu_strategies = ["'mm': contraction; tile 4x8, blocks 64x256x256"]
// CHECK: vector.contract {{.*}} vector<4x1xf32>, vector<1x8xf32> into vector<4x8xf32>
// CHECK-NOT: vector<8x32xf32>
func.func @tile(%a: tensor<96x64xf32>, %b: tensor<64x64xf32>, %c: tensor<96x64xf32>) -> tensor<96x64xf32> {
  %r = linalg.matmul {fx.cpu_strategy = {register_tile = array<i64: 4, 8>}} ins(%a, %b : tensor<96x64xf32>, tensor<64x64xf32>) outs(%c : tensor<96x64xf32>) -> tensor<96x64xf32> loc("mm"("model.py":1:1))
  return %r : tensor<96x64xf32>
}

// -----

// A large matmul packs its columns operand (a copy into panels before
// it); told not to, it reads it in place, in unpacked blocks.
// CHECK-LABEL: func.func @packing
// CHECK-SAME: fx.cpu_strategies = ["'packed': contraction; tile 8x32 packed, blocks 128x256x256", "'unpacked': contraction; tile 8x32, blocks 64x256x256"]
// CHECK-COUNT-1: tensor.expand_shape %arg1 {{.*}} into tensor<512x16x32xf32>
// CHECK-NOT: tensor.expand_shape %arg1
func.func @packing(%a: tensor<512x512xf32>, %b: tensor<512x512xf32>, %c: tensor<512x512xf32>) -> (tensor<512x512xf32>, tensor<512x512xf32>) {
  %r = linalg.matmul ins(%a, %b : tensor<512x512xf32>, tensor<512x512xf32>) outs(%c : tensor<512x512xf32>) -> tensor<512x512xf32> loc("packed"("model.py":1:1))
  %s = linalg.matmul {fx.cpu_strategy = {pack = false}} ins(%a, %b : tensor<512x512xf32>, tensor<512x512xf32>) outs(%c : tensor<512x512xf32>) -> tensor<512x512xf32> loc("unpacked"("model.py":2:1))
  return %r, %s : tensor<512x512xf32>, tensor<512x512xf32>
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
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, fx.cpu_strategy = {algorithm = "fft"}} ins(%x, %w : tensor<1x16x34x34xf32>, tensor<32x16x3x3xf32>) outs(%o : tensor<1x32x32x32xf32>) -> tensor<1x32x32x32xf32>
  return %r : tensor<1x32x32x32xf32>
}

// -----

func.func @conv_key(%x: tensor<1x16x34x34xf32>, %w: tensor<32x16x3x3xf32>, %o: tensor<1x32x32x32xf32>) -> tensor<1x32x32x32xf32> {
  // expected-error @+1 {{fx.cpu_strategy: unknown key 'pack' (this op takes algorithm, applicable, register_tile, cache_block)}}
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, fx.cpu_strategy = {algorithm = "im2col", pack = true}} ins(%x, %w : tensor<1x16x34x34xf32>, tensor<32x16x3x3xf32>) outs(%o : tensor<1x32x32x32xf32>) -> tensor<1x32x32x32xf32>
  return %r : tensor<1x32x32x32xf32>
}

// -----

func.func @huge_tile(%a: tensor<96x64xf32>, %b: tensor<64x64xf32>, %c: tensor<96x64xf32>) -> tensor<96x64xf32> {
  // expected-error @+1 {{fx.cpu_strategy: a register tile of 16x128 takes 128 vector registers of 16 lanes (at most 64)}}
  %r = linalg.matmul {fx.cpu_strategy = {register_tile = array<i64: 16, 128>}} ins(%a, %b : tensor<96x64xf32>, tensor<64x64xf32>) outs(%c : tensor<96x64xf32>) -> tensor<96x64xf32>
  return %r : tensor<96x64xf32>
}

// -----

func.func @bad_sizes(%a: tensor<96x64xf32>, %b: tensor<64x64xf32>, %c: tensor<96x64xf32>) -> tensor<96x64xf32> {
  // expected-error @+1 {{fx.cpu_strategy: cache_block is array<i64: 3 sizes from 1 to 65536>}}
  %r = linalg.matmul {fx.cpu_strategy = {cache_block = array<i64: 64, 0, 256>}} ins(%a, %b : tensor<96x64xf32>, tensor<64x64xf32>) outs(%c : tensor<96x64xf32>) -> tensor<96x64xf32>
  return %r : tensor<96x64xf32>
}

// -----

func.func @pack_small(%a: tensor<96x64xf32>, %b: tensor<64x64xf32>, %c: tensor<96x64xf32>) -> tensor<96x64xf32> {
  // expected-error @+1 {{fx.cpu_strategy: pack does not apply to this contraction}}
  %r = linalg.matmul {fx.cpu_strategy = {pack = true}} ins(%a, %b : tensor<96x64xf32>, tensor<64x64xf32>) outs(%c : tensor<96x64xf32>) -> tensor<96x64xf32>
  return %r : tensor<96x64xf32>
}

// -----

func.func @contraction_algorithm(%a: tensor<96x64xf32>, %b: tensor<64x64xf32>, %c: tensor<96x64xf32>) -> tensor<96x64xf32> {
  // expected-error @+1 {{fx.cpu_strategy: the algorithm of a contraction is "contraction"}}
  %r = linalg.matmul {fx.cpu_strategy = {algorithm = "winograd"}} ins(%a, %b : tensor<96x64xf32>, tensor<64x64xf32>) outs(%c : tensor<96x64xf32>) -> tensor<96x64xf32>
  return %r : tensor<96x64xf32>
}

// -----

func.func @contraction_string(%a: tensor<96x64xf32>, %b: tensor<64x64xf32>, %c: tensor<96x64xf32>) -> tensor<96x64xf32> {
  // expected-error @+1 {{fx.cpu_strategy of a contraction is a dictionary}}
  %r = linalg.matmul {fx.cpu_strategy = "fast"} ins(%a, %b : tensor<96x64xf32>, tensor<64x64xf32>) outs(%c : tensor<96x64xf32>) -> tensor<96x64xf32>
  return %r : tensor<96x64xf32>
}

// -----

func.func @grouped_other(%gx: tensor<1x2x8x34x34xf32>, %gw: tensor<2x16x8x3x3xf32>, %go: tensor<1x2x16x32x32xf32>) -> tensor<1x2x16x32x32xf32> {
  // expected-error @+1 {{fx.cpu_strategy of a grouped convolution is {algorithm = "grouped"}}}
  %g = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, fx.cpu_strategy = "im2col"} ins(%gx, %gw : tensor<1x2x8x34x34xf32>, tensor<2x16x8x3x3xf32>) outs(%go : tensor<1x2x16x32x32xf32>) -> tensor<1x2x16x32x32xf32>
  return %g : tensor<1x2x16x32x32xf32>
}
