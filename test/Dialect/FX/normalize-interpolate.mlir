// RUN: fx-opt %s -split-input-file --fx-normalize -verify-diagnostics | FileCheck %s

// Interpolations: F.interpolate, F.upsample, F.upsample_nearest,
// F.upsample_bilinear, nn.Upsample, nn.UpsamplingNearest2d and
// nn.UpsamplingBilinear2d become the aten::upsample_*.vec operator their
// mode and the input's rank select (mode 'area' an adaptive average pool),
// with one size or one scale per spatial dim, as F.interpolate computes
// them. What F.interpolate rejects is left alone with a warning.

// A scale becomes one per dim; align_corners defaults to False in the
// linear modes; an int size is repeated; a size tuple becomes a list.

// CHECK-LABEL: fx.graph @functions
// CHECK: %up = fx.call_function "aten::upsample_nearest2d.vec"(%x, None, [2.0, 2.0]) : (tensor<1x3x4x6xf32>) -> tensor<1x3x8x12xf32>
// CHECK: %bi = fx.call_function "aten::upsample_bilinear2d.vec"(%x, None, False, [1.5, 0.5]) : (tensor<1x3x4x6xf32>) -> tensor<1x3x6x3xf32>
// CHECK: %ac = fx.call_function "aten::upsample_bilinear2d.vec"(%x, [5, 5], True, None) : (tensor<1x3x4x6xf32>) -> tensor<1x3x5x5xf32>
// CHECK: %sz = fx.call_function "aten::upsample_nearest2d.vec"(%x, [7, 9], None) : (tensor<1x3x4x6xf32>) -> tensor<1x3x7x9xf32>
// CHECK: %ex = fx.call_function "aten::_upsample_nearest_exact2d.vec"(%x, None, [1.7, 1.7]) : (tensor<1x3x4x6xf32>) -> tensor<1x3x6x10xf32>
// CHECK: %old = fx.call_function "aten::upsample_bilinear2d.vec"(%x, None, True, [2.0, 2.0]) : (tensor<1x3x4x6xf32>) -> tensor<1x3x8x12xf32>
// CHECK: %old2 = fx.call_function "aten::upsample_nearest2d.vec"(%x, [8, 8], None) : (tensor<1x3x4x6xf32>) -> tensor<1x3x8x8xf32>
fx.graph @functions {
  %x = fx.placeholder "x" : tensor<1x3x4x6xf32>
  %up = fx.call_function "torch.nn.functional.interpolate"(%x, scale_factor=2) : (tensor<1x3x4x6xf32>) -> tensor<1x3x8x12xf32>
  %bi = fx.call_function "torch.nn.functional.interpolate"(%x, None, (1.5, 0.5), "bilinear") : (tensor<1x3x4x6xf32>) -> tensor<1x3x6x3xf32>
  %ac = fx.call_function "torch.nn.functional.interpolate"(%x, size=5, mode="bilinear", align_corners=True) : (tensor<1x3x4x6xf32>) -> tensor<1x3x5x5xf32>
  %sz = fx.call_function "torch.nn.functional.interpolate"(%x, size=(7, 9)) : (tensor<1x3x4x6xf32>) -> tensor<1x3x7x9xf32>
  %ex = fx.call_function "torch.nn.functional.interpolate"(%x, scale_factor=1.7, mode="nearest-exact") : (tensor<1x3x4x6xf32>) -> tensor<1x3x6x10xf32>
  %old = fx.call_function "torch.nn.functional.upsample_bilinear"(%x, scale_factor=2) : (tensor<1x3x4x6xf32>) -> tensor<1x3x8x12xf32>
  %old2 = fx.call_function "torch.nn.functional.upsample"(%x, 8) : (tensor<1x3x4x6xf32>) -> tensor<1x3x8x8xf32>
  fx.output (%up, %bi, %ac, %sz, %ex, %old, %old2) : tensor<1x3x8x12xf32>, tensor<1x3x6x3xf32>, tensor<1x3x5x5xf32>, tensor<1x3x7x9xf32>, tensor<1x3x6x10xf32>, tensor<1x3x8x12xf32>, tensor<1x3x8x8xf32>
}

// -----

// The rank picks the operator; recompute_scale_factor=True and mode 'area'
// turn the scale into a size (floor(size * scale)); a size computed in
// the graph (`y.shape[-2:]`) stays a node.

// CHECK-LABEL: fx.graph @ranks
// CHECK: %lin = fx.call_function "aten::upsample_linear1d.vec"(%a, None, False, [2.0]) : (tensor<2x3x5xf32>) -> tensor<2x3x10xf32>
// CHECK: %near1 = fx.call_function "aten::upsample_nearest1d.vec"(%a, [7], None) : (tensor<2x3x5xf32>) -> tensor<2x3x7xf32>
// CHECK: %tri = fx.call_function "aten::upsample_trilinear3d.vec"(%v, None, False, [2.0, 2.0, 2.0]) : (tensor<1x2x3x4x5xf32>) -> tensor<1x2x6x8x10xf32>
// CHECK: %re = fx.call_function "aten::upsample_nearest2d.vec"(%x, [6, 10], None) : (tensor<1x3x4x6xf32>) -> tensor<1x3x6x10xf32>
// CHECK: %area = fx.call_function "aten::adaptive_avg_pool2d"(%x, [2, 3]) : (tensor<1x3x4x6xf32>) -> tensor<1x3x2x3xf32>
// CHECK: %like = fx.call_function "aten::upsample_bilinear2d.vec"(%x, %hw, False, None) : (tensor<1x3x4x6xf32>, !fx.any) -> tensor<1x3x9x9xf32>
fx.graph @ranks {
  %a = fx.placeholder "a" : tensor<2x3x5xf32>
  %v = fx.placeholder "v" : tensor<1x2x3x4x5xf32>
  %x = fx.placeholder "x" : tensor<1x3x4x6xf32>
  %hw = fx.placeholder "hw" : !fx.any
  %lin = fx.call_function "torch.nn.functional.interpolate"(%a, scale_factor=2.0, mode="linear") : (tensor<2x3x5xf32>) -> tensor<2x3x10xf32>
  %near1 = fx.call_function "torch.nn.functional.interpolate"(%a, 7) : (tensor<2x3x5xf32>) -> tensor<2x3x7xf32>
  %tri = fx.call_function "torch.nn.functional.interpolate"(%v, scale_factor=2, mode="trilinear") : (tensor<1x2x3x4x5xf32>) -> tensor<1x2x6x8x10xf32>
  %re = fx.call_function "torch.nn.functional.interpolate"(%x, scale_factor=1.7, recompute_scale_factor=True) : (tensor<1x3x4x6xf32>) -> tensor<1x3x6x10xf32>
  %area = fx.call_function "torch.nn.functional.interpolate"(%x, scale_factor=0.5, mode="area") : (tensor<1x3x4x6xf32>) -> tensor<1x3x2x3xf32>
  %like = fx.call_function "torch.nn.functional.interpolate"(%x, size=%hw, mode="bilinear") : (tensor<1x3x4x6xf32>, !fx.any) -> tensor<1x3x9x9xf32>
  fx.output (%lin, %near1, %tri, %re, %area, %like) : tensor<2x3x10xf32>, tensor<2x3x7xf32>, tensor<1x2x6x8x10xf32>, tensor<1x3x6x10xf32>, tensor<1x3x2x3xf32>, tensor<1x3x9x9xf32>
}

// -----

// The modules: nn.Upsample's hyperparameters, nn.UpsamplingNearest2d's
// nearest mode and nn.UpsamplingBilinear2d's align_corners=True.

// CHECK-LABEL: fx.graph_module @Modules
// CHECK: %up = fx.call_function "aten::upsample_bilinear2d.vec"(%x, None, False, [2.0, 2.0]) : (tensor<1x3x4x6xf32>) -> tensor<1x3x8x12xf32>
// CHECK: %near = fx.call_function "aten::upsample_nearest2d.vec"(%x, [8, 8], None) : (tensor<1x3x4x6xf32>) -> tensor<1x3x8x8xf32>
// CHECK: %bil = fx.call_function "aten::upsample_bilinear2d.vec"(%x, None, True, [3.0, 3.0]) : (tensor<1x3x4x6xf32>) -> tensor<1x3x12x18xf32>
fx.graph_module @Modules {
  fx.submodule @up "torch.nn.Upsample"(size=None, scale_factor=2.0, mode="bilinear", align_corners=None, recompute_scale_factor=None)
  fx.submodule @near "torch.nn.UpsamplingNearest2d"(size=(8, 8), scale_factor=None)
  fx.submodule @bil "torch.nn.UpsamplingBilinear2d"(size=None, scale_factor=3.0)
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x3x4x6xf32>
    %up = fx.call_module @up(%x) : (tensor<1x3x4x6xf32>) -> tensor<1x3x8x12xf32>
    %near = fx.call_module @near(%x) : (tensor<1x3x4x6xf32>) -> tensor<1x3x8x8xf32>
    %bil = fx.call_module @bil(%x) : (tensor<1x3x4x6xf32>) -> tensor<1x3x12x18xf32>
    fx.output (%up, %near, %bil) : tensor<1x3x8x12xf32>, tensor<1x3x8x8xf32>, tensor<1x3x12x18xf32>
  }
}

// -----

// What F.interpolate rejects, or fx-mlir does not cover, stays as it is.

fx.graph @rejected {
  %x = fx.placeholder "x" : tensor<1x3x4x6xf32>
  // expected-warning @+1 {{fx-normalize: call_function 'both' with target 'torch.nn.functional.interpolate' is not supported (exactly one of size and scale_factor must be given)}}
  %both = fx.call_function "torch.nn.functional.interpolate"(%x, 8, 2.0) : (tensor<1x3x4x6xf32>) -> tensor<1x3x8x8xf32>
  // expected-warning @+1 {{(mode 'trilinear' does not take a 4-D input)}}
  %tri = fx.call_function "torch.nn.functional.interpolate"(%x, scale_factor=2, mode="trilinear") : (tensor<1x3x4x6xf32>) -> tensor<1x3x8x12xf32>
  // expected-warning @+1 {{(align_corners is only for the linear modes, not 'nearest')}}
  %ac = fx.call_function "torch.nn.functional.interpolate"(%x, scale_factor=2, align_corners=True) : (tensor<1x3x4x6xf32>) -> tensor<1x3x8x12xf32>
  // expected-warning @+1 {{(antialias is not supported)}}
  %aa = fx.call_function "torch.nn.functional.interpolate"(%x, scale_factor=0.5, mode="bilinear", antialias=True) : (tensor<1x3x4x6xf32>) -> tensor<1x3x2x3xf32>
  // expected-warning @+1 {{(size must be an int or 2 of them)}}
  %three = fx.call_function "torch.nn.functional.interpolate"(%x, size=(1, 2, 3)) : (tensor<1x3x4x6xf32>) -> tensor<1x3x8x12xf32>
  // expected-warning @+1 {{(unknown mode 'cubic')}}
  %cubic = fx.call_function "torch.nn.functional.interpolate"(%x, scale_factor=2, mode="cubic") : (tensor<1x3x4x6xf32>) -> tensor<1x3x8x12xf32>
  fx.output (%both, %tri, %ac, %aa, %three, %cubic) : tensor<1x3x8x8xf32>, tensor<1x3x8x12xf32>, tensor<1x3x8x12xf32>, tensor<1x3x2x3xf32>, tensor<1x3x8x12xf32>, tensor<1x3x8x12xf32>
}
