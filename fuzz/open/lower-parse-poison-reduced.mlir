fx.graph_module @SmallCNN {
  fx.submodule @pool "torch.nn.MaxPool2d"(kernel_size=2, stride=1, padding=0, dilation=1, return_indices=False, ceil_mode=False)
  fx.submodule @conv "torch.nn.Conv2d"(in_channels=8, out_channels=8, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1), dilation=(1, 1), groups=1, bias=True, padding_mode="zeros")
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x3x16x16xf32>
    %stem_1 = fx.call_module @stem.1(%stem_0) : (tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
    %relu = fx.call_function "torch.relu"(%stem_1) : (tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
    %conv = fx.call_module @conv(%pool) : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
    %act = fx.call_module @act(%conv) : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
    %adaptive_avg_pool2d = fx.call_function "torch.nn.functional.adaptive_avg_pool3d"(%act, 1) : (tensor<1x8x8x8xf32>) -> tensor<1x8x1x1xf32>
    %flatten = fx.call_function "torch.flatten"(%adaptive_avg_pool2d, 1) : (tensor<1x8x1x1xf32>) -> tensor<1x8xf32>
    %size = fx.call_method "size"(%act, 0) : (tensor<1x8x8x8xf32>) -> i64
    %size_1 = fx.call_method "size"(%act, 1) : (tensor<1x8x8x8xf32>) -> i64
    %view = fx.call_method "view"(%act, %size, %size_1, -1) : (tensor<1x8x8x8xf32>, i64, i64) -> tensor<1x8x64xf32>
    %amax = fx.call_method "amax"(%view, dim=-1) : (tensor<1x8x64xf32>) -> tensor<1x8xf32>
    %cat = fx.call_function "torch.cat"([%flatten, %amax], dim=1) : (tensor<1x8xf32>, tensor<1x8xf32>) -> tensor<1x16xf32>