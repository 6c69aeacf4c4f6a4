"""Prints convs with constant weights too large to write out by hand, for
strided-window.test: a stride-2 3x3 conv of 32 channels and a stride-2
7x7 conv of 3."""

from conv_weights import weights


def conv(name, channels, size, kernel, out):
    flat = weights(32, channels, kernel, kernel)
    print(f"""func.func @{name}(%x: tensor<1x{channels}x{size}x{size}xf32>, %c: tensor<1x32x{out}x{out}xf32>) -> tensor<1x32x{out}x{out}xf32> {{
  %w = arith.constant {flat}
  %r = linalg.conv_2d_nchw_fchw {{dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}} ins(%x, %w : tensor<1x{channels}x{size}x{size}xf32>, tensor<32x{channels}x{kernel}x{kernel}xf32>) outs(%c : tensor<1x32x{out}x{out}xf32>) -> tensor<1x32x{out}x{out}xf32>
  return %r : tensor<1x32x{out}x{out}xf32>
}}""")


conv("strided_window", 32, 9, 3, 4)
print("// -----")
conv("strided_shallow", 3, 21, 7, 8)
print("// -----")
# The same stride-2 conv followed by a batch norm's scale and shift, read
# (n, c, 0, 0) as a [1, 32, 1, 1] tensor, and a ReLU.
flat = weights(32, 32, 3, 3)
print(f"""#io = affine_map<(n, c, y, x) -> (n, c, y, x)>
#channel = affine_map<(n, c, y, x) -> (n, c, 0, 0)>
func.func @strided_window_scale_relu(%x: tensor<1x32x9x9xf32>, %c: tensor<1x32x4x4xf32>, %s: tensor<1x32x1x1xf32>) -> tensor<1x32x4x4xf32> {{
  %w = arith.constant {flat}
  %r = linalg.conv_2d_nchw_fchw {{dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}} ins(%x, %w : tensor<1x32x9x9xf32>, tensor<32x32x3x3xf32>) outs(%c : tensor<1x32x4x4xf32>) -> tensor<1x32x4x4xf32>
  %e = tensor.empty() : tensor<1x32x4x4xf32>
  %y = linalg.generic {{indexing_maps = [#io, #channel, #io], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}} ins(%r, %s : tensor<1x32x4x4xf32>, tensor<1x32x1x1xf32>) outs(%e : tensor<1x32x4x4xf32>) {{
  ^bb0(%a: f32, %b: f32, %o: f32):
    %zero = arith.constant 0.0 : f32
    %m = arith.mulf %a, %b : f32
    %v = arith.maximumf %m, %zero : f32
    linalg.yield %v : f32
  }} -> tensor<1x32x4x4xf32>
  return %y : tensor<1x32x4x4xf32>
}}""")
