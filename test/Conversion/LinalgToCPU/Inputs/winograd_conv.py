"""Prints 3x3 stride-1 convs with constant weights too large to write out
by hand, for winograd.test: 16 channels to 32 filters on a padded 18x18
input (a 16x16 output, 64 tiles of 2x2), its init a zero fill or a fill of
0.5, one with an odd output (15x15), one with too few tiles (7x7), one
on a 32x260 output (16 x 130 tiles), in parallel blocks of 1 row of tiles, and one
with a 14x14 output (49 tiles), whose weights are transformed at run
time."""

from conv_weights import weights


def conv(name, size, fill, width=None):
    width = width or size
    out, ow = size - 2, width - 2
    print(f"""func.func @{name}(%x: tensor<1x16x{size}x{width}xf32>) -> tensor<1x32x{out}x{ow}xf32> {{
  %w = arith.constant {weights(32, 16, 3, 3)}
  %v = arith.constant {fill} : f32
  %e = tensor.empty() : tensor<1x32x{out}x{ow}xf32>
  %c = linalg.fill ins(%v : f32) outs(%e : tensor<1x32x{out}x{ow}xf32>) -> tensor<1x32x{out}x{ow}xf32>
  %r = linalg.conv_2d_nchw_fchw {{dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}} ins(%x, %w : tensor<1x16x{size}x{width}xf32>, tensor<32x16x3x3xf32>) outs(%c : tensor<1x32x{out}x{ow}xf32>) -> tensor<1x32x{out}x{ow}xf32>
  return %r : tensor<1x32x{out}x{ow}xf32>
}}""")


conv("winograd", 18, "0.0")
print("// -----")
conv("winograd_fill", 18, "0.5")
print("// -----")
conv("odd_output", 17, "0.0")
print("// -----")
conv("few_tiles", 9, "0.0")
print("// -----")
conv("row_blocks", 34, "0.0", width=262)
print("// -----")
conv("runtime_weights", 16, "0.0")
