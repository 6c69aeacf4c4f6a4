// RUN: fx-opt %s -split-input-file --fx-normalize -verify-diagnostics | FileCheck %s

// Pooling calls whose Python wrappers size their output from the input
// before calling ATen: adaptive max pooling (values, or values and
// indices), adaptive average pooling with None sizes, max unpooling with
// the output size from kernel, stride and padding. The sizes come from
// the input's static shape.

// CHECK-LABEL: fx.graph @adaptive
// CHECK: %amp_with_indices = fx.call_function "aten::adaptive_max_pool2d"(%x, [2, 3]) : (tensor<1x3x4x6xf32>) -> tuple<tensor<1x3x2x3xf32>, tensor<1x3x2x3xi64>>
// CHECK: %amp = fx.call_function "operator.getitem"(%amp_with_indices, 0) : (tuple<tensor<1x3x2x3xf32>, tensor<1x3x2x3xi64>>) -> tensor<1x3x2x3xf32>
// CHECK: %ampi = fx.call_function "aten::adaptive_max_pool2d"(%x, [4, 2]) : (tensor<1x3x4x6xf32>) -> tuple<tensor<1x3x4x2xf32>, tensor<1x3x4x2xi64>>
// CHECK: %wi = fx.call_function "aten::adaptive_max_pool1d"(%a, [3]) : (tensor<3x5xf32>) -> tuple<tensor<3x3xf32>, tensor<3x3xi64>>
// CHECK: %v3_with_indices = fx.call_function "aten::adaptive_max_pool3d"(%v, [1, 1, 1]) : (tensor<1x2x3x4x5xf32>) -> tuple<tensor<1x2x1x1x1xf32>, tensor<1x2x1x1x1xi64>>
// CHECK: %v3 = fx.call_function "operator.getitem"(%v3_with_indices, 0)
// CHECK: %aap = fx.call_function "aten::adaptive_avg_pool2d"(%x, [4, 3]) : (tensor<1x3x4x6xf32>) -> tensor<1x3x4x3xf32>
// CHECK: %aap_int = fx.call_function "aten::adaptive_avg_pool2d"(%x, [2, 2]) : (tensor<1x3x4x6xf32>) -> tensor<1x3x2x2xf32>
fx.graph @adaptive {
  %x = fx.placeholder "x" : tensor<1x3x4x6xf32>
  %a = fx.placeholder "a" : tensor<3x5xf32>
  %v = fx.placeholder "v" : tensor<1x2x3x4x5xf32>
  %amp = fx.call_function "torch.nn.functional.adaptive_max_pool2d"(%x, (2, 3)) : (tensor<1x3x4x6xf32>) -> tensor<1x3x2x3xf32>
  %ampi = fx.call_function "torch.nn.functional.adaptive_max_pool2d_with_indices"(%x, (None, 2), return_indices=True) : (tensor<1x3x4x6xf32>) -> tuple<tensor<1x3x4x2xf32>, tensor<1x3x4x2xi64>>
  %wi = fx.call_function "torch.nn.functional.adaptive_max_pool1d"(%a, 3, True) : (tensor<3x5xf32>) -> tuple<tensor<3x3xf32>, tensor<3x3xi64>>
  %v3 = fx.call_function "torch.nn.functional._adaptive_max_pool3d"(%v, 1) : (tensor<1x2x3x4x5xf32>) -> tensor<1x2x1x1x1xf32>
  %aap = fx.call_function "torch.nn.functional.adaptive_avg_pool2d"(%x, (None, 3)) : (tensor<1x3x4x6xf32>) -> tensor<1x3x4x3xf32>
  %aap_int = fx.call_function "torch.nn.functional.adaptive_avg_pool2d"(%x, 2) : (tensor<1x3x4x6xf32>) -> tensor<1x3x2x2xf32>
  fx.output (%amp, %ampi, %wi, %v3, %aap, %aap_int) : tensor<1x3x2x3xf32>, tuple<tensor<1x3x4x2xf32>, tensor<1x3x4x2xi64>>, tuple<tensor<3x3xf32>, tensor<3x3xi64>>, tensor<1x2x1x1x1xf32>, tensor<1x3x4x3xf32>, tensor<1x3x2x2xf32>
}

// -----

// Max unpooling: the default size (in - 1) * stride + kernel - 2 * padding,
// or the one given (with or without the batch and channel dims); 1-D
// through max_unpool2d on a unit last dim.

// CHECK-LABEL: fx.graph @unpool
// CHECK: %u2 = fx.call_function "aten::max_unpool2d"(%y, %i, [4, 6]) : (tensor<1x3x2x3xf32>, tensor<1x3x2x3xi64>) -> tensor<1x3x4x6xf32>
// CHECK: %u2s = fx.call_function "aten::max_unpool2d"(%y, %i, [5, 7]) : (tensor<1x3x2x3xf32>, tensor<1x3x2x3xi64>) -> tensor<1x3x5x7xf32>
// CHECK: %u1_input = fx.call_function "aten::unsqueeze"(%a, -1) : (tensor<3x5xf32>) -> tensor<3x5x1xf32>
// CHECK: %u1_indices = fx.call_function "aten::unsqueeze"(%ai, -1) : (tensor<3x5xi64>) -> tensor<3x5x1xi64>
// CHECK: %u1_2d = fx.call_function "aten::max_unpool2d"(%u1_input, %u1_indices, [9, 1]) : (tensor<3x5x1xf32>, tensor<3x5x1xi64>) -> tensor<3x9x1xf32>
// CHECK: %u1 = fx.call_function "aten::squeeze.dim"(%u1_2d, -1) : (tensor<3x9x1xf32>) -> tensor<3x9xf32>
// CHECK: %u3 = fx.call_function "aten::max_unpool3d"(%v, %vi, [3, 3, 3], [1, 1, 1], [0, 0, 0]) : (tensor<1x1x2x2x2xf32>, tensor<1x1x2x2x2xi64>) -> tensor<1x1x3x3x3xf32>
fx.graph @unpool {
  %y = fx.placeholder "y" : tensor<1x3x2x3xf32>
  %i = fx.placeholder "i" : tensor<1x3x2x3xi64>
  %a = fx.placeholder "a" : tensor<3x5xf32>
  %ai = fx.placeholder "ai" : tensor<3x5xi64>
  %v = fx.placeholder "v" : tensor<1x1x2x2x2xf32>
  %vi = fx.placeholder "vi" : tensor<1x1x2x2x2xi64>
  %u2 = fx.call_function "torch.nn.functional.max_unpool2d"(%y, %i, 2) : (tensor<1x3x2x3xf32>, tensor<1x3x2x3xi64>) -> tensor<1x3x4x6xf32>
  %u2s = fx.call_function "torch.nn.functional.max_unpool2d"(%y, %i, 2, output_size=[1, 3, 5, 7]) : (tensor<1x3x2x3xf32>, tensor<1x3x2x3xi64>) -> tensor<1x3x5x7xf32>
  %u1 = fx.call_function "torch.nn.functional.max_unpool1d"(%a, %ai, 3, stride=2, padding=1) : (tensor<3x5xf32>, tensor<3x5xi64>) -> tensor<3x9xf32>
  %u3 = fx.call_function "torch.nn.functional.max_unpool3d"(%v, %vi, 2, 1) : (tensor<1x1x2x2x2xf32>, tensor<1x1x2x2x2xi64>) -> tensor<1x1x3x3x3xf32>
  fx.output (%u2, %u2s, %u1, %u3) : tensor<1x3x4x6xf32>, tensor<1x3x5x7xf32>, tensor<3x9xf32>, tensor<1x1x3x3x3xf32>
}

// -----

// The modules: nn.AdaptiveMaxPool2d with and without return_indices,
// nn.AdaptiveAvgPool2d with a None size, nn.MaxUnpool2d.

// CHECK-LABEL: fx.graph_module @Modules
// CHECK: %mp_with_indices = fx.call_function "aten::adaptive_max_pool2d"(%x, [1, 1])
// CHECK: %mp = fx.call_function "operator.getitem"(%mp_with_indices, 0)
// CHECK: %mpi = fx.call_function "aten::adaptive_max_pool2d"(%x, [2, 6])
// CHECK: %ap = fx.call_function "aten::adaptive_avg_pool2d"(%x, [4, 1])
// CHECK: %un = fx.call_function "aten::max_unpool2d"(%y, %i, [4, 6])
fx.graph_module @Modules {
  fx.submodule @mp "torch.nn.AdaptiveMaxPool2d"(output_size=1, return_indices=False)
  fx.submodule @mpi "torch.nn.AdaptiveMaxPool2d"(output_size=(2, None), return_indices=True)
  fx.submodule @ap "torch.nn.AdaptiveAvgPool2d"(output_size=(None, 1))
  fx.submodule @un "torch.nn.MaxUnpool2d"(kernel_size=(2, 2), stride=(2, 2), padding=(0, 0))
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x3x4x6xf32>
    %y = fx.placeholder "y" : tensor<1x3x2x3xf32>
    %i = fx.placeholder "i" : tensor<1x3x2x3xi64>
    %mp = fx.call_module @mp(%x) : (tensor<1x3x4x6xf32>) -> tensor<1x3x1x1xf32>
    %mpi = fx.call_module @mpi(%x) : (tensor<1x3x4x6xf32>) -> tuple<tensor<1x3x2x6xf32>, tensor<1x3x2x6xi64>>
    %ap = fx.call_module @ap(%x) : (tensor<1x3x4x6xf32>) -> tensor<1x3x4x1xf32>
    %un = fx.call_module @un(%y, %i) : (tensor<1x3x2x3xf32>, tensor<1x3x2x3xi64>) -> tensor<1x3x4x6xf32>
    fx.output (%mp, %mpi, %ap, %un) : tensor<1x3x1x1xf32>, tuple<tensor<1x3x2x6xf32>, tensor<1x3x2x6xi64>>, tensor<1x3x4x1xf32>, tensor<1x3x4x6xf32>
  }
}

// -----

// What PyTorch rejects, or a graph without the input's shape, stays as it
// is, with the reason.

fx.graph @rejected {
  %y = fx.placeholder "y" : tensor<1x3x2x3xf32>
  %i = fx.placeholder "i" : tensor<1x3x2x3xi64>
  %u = fx.placeholder "u" : !fx.any
  // expected-warning @+1 {{(invalid output_size: dim 0 must be between 2 and 6)}}
  %big = fx.call_function "torch.nn.functional.max_unpool2d"(%y, %i, 2, output_size=(6, 6)) : (tensor<1x3x2x3xf32>, tensor<1x3x2x3xi64>) -> tensor<1x3x6x6xf32>
  // expected-warning @+1 {{(needs an input of known type with 3 or 4 dims)}}
  %untyped = fx.call_function "torch.nn.functional.adaptive_max_pool2d"(%u, 2) : (!fx.any) -> !fx.any
  // expected-warning @+1 {{(output_size must be an int or 2 ints or Nones)}}
  %three = fx.call_function "torch.nn.functional.adaptive_max_pool2d"(%y, (1, 2, 3)) : (tensor<1x3x2x3xf32>) -> !fx.any
  fx.output (%big, %untyped, %three) : tensor<1x3x6x6xf32>, !fx.any, !fx.any
}
