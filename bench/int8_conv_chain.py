#!/usr/bin/python3
"""Four quantized conv+ReLU in a row (3x3, or --kernel), compiled and compared with
PyTorch's quantized engine in the same process: the int8 conv kernels'
rate in multiply-adds a second, next to the core's ceiling
(bench/int8_peak.c).

    /usr/bin/python3 bench/int8_conv_chain.py [--channels 64] [--size 56]
                                              [--kernel 3] [--threads 1]
                                              [--calls 200] [--cpu X]

The chain (channels in = out, padding 1, one image of size x size) is
prepared with the engine's default qconfig (onednn, else qnnpack),
calibrated on four random images and converted (convert_fx). Prints the
largest difference of the outputs and each side's median time and rate.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cpu_env  # noqa: E402

cpu_env.prepare(sys.argv)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "python"))

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
from torch.ao.quantization import get_default_qconfig_mapping  # noqa: E402
from torch.ao.quantization.quantize_fx import (convert_fx,  # noqa: E402
                                               prepare_fx)

import fx_mlir  # noqa: E402
from quantized_zoo import median_ms  # noqa: E402


class Chain(nn.Module):
    def __init__(self, channels, kernel=3):
        super().__init__()
        self.layers = nn.Sequential(*[
            m for _ in range(4)
            for m in (nn.Conv2d(channels, channels, kernel,
                                padding=kernel // 2), nn.ReLU())])

    def forward(self, x):
        return self.layers(x)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--channels", type=int, default=64)
    parser.add_argument("--size", type=int, default=56)
    parser.add_argument("--kernel", type=int, default=3,
                        help="the convs' kernel size (odd: 1, 3, 5, ...)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--cpu", default=None,
                        help="fx-mlir's CPU target (bench/cpu_env.py)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    fx_mlir.set_num_threads(args.threads)
    engines = torch.backends.quantized.supported_engines
    engine = "onednn" if "onednn" in engines else "qnnpack"
    torch.backends.quantized.engine = engine
    torch.manual_seed(0)
    shape = (1, args.channels, args.size, args.size)
    x = torch.randn(shape)
    prepared = prepare_fx(Chain(args.channels, args.kernel).eval(),
                          get_default_qconfig_mapping(engine), (x,))
    with torch.no_grad():
        for _ in range(4):
            prepared(torch.randn(shape))
    converted = convert_fx(prepared)
    compiled = fx_mlir.compile(converted, (x,))
    macs = 4 * args.channels ** 2 * args.kernel ** 2 * args.size ** 2
    with torch.no_grad():
        diff = (compiled(x) - converted(x)).abs().max().item()
        print(f"{args.channels} channels, {args.kernel}x{args.kernel} "
              f"kernels, {args.size}x{args.size}, "
              f"{args.threads} thread(s), engine {engine}: largest "
              f"difference {diff:.3g}")
        for name, fn in (("PyTorch", converted), ("fx-mlir", compiled)):
            ms = median_ms(fn, x, args.calls)
            print(f"  {name:8s} {ms:7.3f} ms  {macs / ms / 1e6:5.0f} G "
                  f"multiply-adds/s")


if __name__ == "__main__":
    main()
