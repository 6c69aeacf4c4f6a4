#!/usr/bin/python3
"""Peak memory of compiling a model with large weights, against the weights.

    /usr/bin/python3 bench/compile_memory.py [--layers 8] [--width 4096]

Builds an MLP of `layers` Linear(width, width) + ReLU (8 x 4096^2 floats:
512 MiB of weights), compiles it cold (no cache) in this process, and
prints the peak RSS during the compile: beyond the process before the
model existed, and beyond the model itself, each as a multiple of the
weights' size; then checks the compiled code against eager. The
high-water mark is reset (/proc/self/clear_refs) once the model is built.
"""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "python"))

import torch  # noqa: E402

import fx_mlir  # noqa: E402


def _status_mib(field):
    return next(int(line.split()[1]) for line in open("/proc/self/status")
                if line.startswith(field + ":")) / 1024


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=8)
    parser.add_argument("--width", type=int, default=4096)
    args = parser.parse_args()
    fx_mlir.compiler._load_runtime()
    base = _status_mib("VmRSS")
    layers = []
    for _ in range(args.layers):
        layers += [torch.nn.Linear(args.width, args.width), torch.nn.ReLU()]
    model = torch.nn.Sequential(*layers).eval()
    weights = sum(p.numel() * p.element_size()
                  for p in model.parameters()) / 2**20
    with_model = _status_mib("VmRSS")
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    start = time.time()
    x = torch.randn(2, args.width)
    compiled = fx_mlir.compile(model, (x,), cache_dir="")
    seconds = time.time() - start
    peak = _status_mib("VmHWM")
    with torch.no_grad():
        error = (compiled(x) - model(x)).abs().max().item()
    print(f"weights: {weights:.0f} MiB; compile: {seconds:.1f} s")
    print(f"peak RSS beyond the process before the model: {peak - base:.0f} "
          f"MiB ({(peak - base) / weights:.2f}x the weights)")
    print(f"peak RSS beyond the model: {peak - with_model:.0f} MiB "
          f"({(peak - with_model) / weights:.2f}x the weights)")
    print(f"max abs error against eager: {error:.3g}")


if __name__ == "__main__":
    main()
