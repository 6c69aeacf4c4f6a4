"""Constant conv weights as MLIR text, for the generators of this
directory: weight i (in [filters, channels, kh, kw] order) is
(i*7 mod 13 - 6)/8, so tests can name a weight's value and its bytes."""


def weights(filters, channels, kh, kw):
    values = iter(f"{(i * 7 % 13 - 6) / 8}"
                  for i in range(filters * channels * kh * kw))

    def nest(dims):
        if not dims:
            return next(values)
        return "[" + ", ".join(nest(dims[1:]) for _ in range(dims[0])) + "]"

    return (f"dense<{nest([filters, channels, kh, kw])}> : "
            f"tensor<{filters}x{channels}x{kh}x{kw}xf32>")
