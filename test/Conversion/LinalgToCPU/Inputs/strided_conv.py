"""Prints convs with constant weights too large to write out by hand, for
strided-window.test: a stride-2 3x3 conv of 32 channels and a stride-2
7x7 conv of 3."""


def weights(filters, channels, kh, kw):
    values = iter(f"{(i * 7 % 13 - 6) / 8}"
                  for i in range(filters * channels * kh * kw))

    def nest(dims):
        if not dims:
            return next(values)
        return "[" + ", ".join(nest(dims[1:]) for _ in range(dims[0])) + "]"

    return (f"dense<{nest([filters, channels, kh, kw])}> : "
            f"tensor<{filters}x{channels}x{kh}x{kw}xf32>")


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
