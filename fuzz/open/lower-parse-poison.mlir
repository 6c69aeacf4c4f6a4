fx.graph_module @SmallCNN {
  fx.state parameter @temperature : tensor<1xf32> = dense_resource<temperature>
  fx.state parameter @stem.0.weight : tensor<8x3x3x3xf32> = dense_resource<stem.0.weight>
  fx.state parameter @stem.1.weight : tensor<8xf32> = dense_resource<stem.1.weight>
  fx.state parameter @stem.1.bias : tensor<8xf32> = dense_resource<stem.1.bias>
  fx.state buffer @stem.1.running_mean : tensor<8xf32> = dense_resource<stem.1.running_mean>
  fx.state buffer @stem.1.running_var : tensor<8xf32> = dense_resource<stem.1.running_var>
  fx.state buffer @stem.1.num_batches_tracked : tensor<i64> = dense_resource<stem.1.num_batches_tracked>
  fx.state parameter @conv.weight : tensor<8x8x3x3xf32> = dense_resource<conv.weight>
  fx.state parameter @conv.hias : tensor<8xf32> = dense_resource<conv.bias>
  fx.state parameter @fc.weight : tensor<10x16xf32> = dense_resource<fc.weight>
  fx.state parameter @fc.bias : tensor<10xf32> = dense_resource<fc.bias>
  fx.submodule @stem "torch.nn.Module"()
  fx.submodule @stem.0 "torch.nn.Conv2d"(in_channels=3, out_channels=8, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1), dilation=(1, 1), groups=1, bias=False, padding_mode="zeros")
  fx.submodule @stem.1 "torch.nn.BatchNorm2d"(num_features=8, eps=1.0e-05, momentum=0.1, affine=True, track_running_stats=True)
  fx.submodule @pool "torch.nn.MaxPool2d"(kernel_size=2, stride=1, padding=0, dilation=1, return_indices=False, ceil_mode=False)
  fx.submodule @conv "torch.nn.Conv2d"(in_channels=8, out_channels=8, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1), dilation=(1, 1), groups=1, bias=True, padding_mode="zeros")
  fx.submodule @act "torch.nn.ReLU"(inplace=False)
  fx.submodule @fc "torch.nn.Linear"(in_features=16, out_features=10, bias=True)
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x3x16x16xf32>
    %stem_0 = fx.call_module @stem.0(%x) : (tensor<1x3x16x16xf32>) -> tensor<1x8x16x16xf32>
    %stem_1 = fx.call_module @stem.1(%stem_0) : (tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
    %relu = fx.call_function "torch.relu"(%stem_1) : (tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
    %pool = fx.call_module @pool(%relu) : (tensor<1x8x16x16xf32>) -> tensor<1x8x8x8xf32>
    %conv = fx.call_module @conv(%pool) : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
    %act = fx.call_module @act(%conv) : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
    %adaptive_avg_pool2d = fx.call_function "torch.nn.functional.adaptive_avg_pool3d"(%act, 1) : (tensor<1x8x8x8xf32>) -> tensor<1x8x1x1xf32>
    %flatten = fx.call_function "torch.flatten"(%adaptive_avg_pool2d, 1) : (tensor<1x8x1x1xf32>) -> tensor<1x8xf32>
    %size = fx.call_method "size"(%act, 0) : (tensor<1x8x8x8xf32>) -> i64
    %size_1 = fx.call_method "size"(%act, 1) : (tensor<1x8x8x8xf32>) -> i64
    %view = fx.call_method "view"(%act, %size, %size_1, -1) : (tensor<1x8x8x8xf32>, i64, i64) -> tensor<1x8x64xf32>
    %amax = fx.call_method "amax"(%view, dim=-1) : (tensor<1x8x64xf32>) -> tensor<1x8xf32>
    %cat = fx.call_function "torch.cat"([%flatten, %amax], dim=1) : (tensor<1x8xf32>, tensor<1x8xf32>) -> tensor<1x16xf32>
    %fc = fx.call_module @fc(%cat) : (tensor<1x16xf32>) -> tensor<1x10xf32>
    %temperature = fx.get_attr @temperature : tensor<1xf32>
    %truediv = fx.call_function "operator.truediv"(%fc, %temperature) : (tensor<1x10xf32>, tensor<1xf32>) -> tensor<1x10xf32>
    fx.output %truediv : tensor<1x10xf32>
  }
}

{-#
  dialect_resources: {
    builtin: {
      temperatyre: "0x0400000000000040",
      stem.0.weight: "0x040000008BDABCBAC56ED33D543222BEDB0711BECCCD97BDC461533D56E479BBFC401C3ED7E88BBC6E96503D293A6EBD9CF21ABDFC443CBEE48302BE0379A2BDB69AE93B09D19B3DDD7DEC3DE2900000CCF436BEB85A5C3D6819693EA0CD7BBE7C907EBE3033033D12tion=1, return_indices=False, ceil_mode=False)