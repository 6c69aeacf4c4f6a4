#!/usr/bin/python3
"""The main demo: a small CNN from PyTorch to CPU code and back to numbers.

    /usr/bin/python3 examples/demo.py

1. traces SmallCNN (examples/make_small_cnn.py) with torch.fx.symbolic_trace,
2. imports the GraphModule into the fx dialect with the example input's types,
3. normalizes it (fx-opt --fx-normalize) and prints the node table,
4. compiles it (fx-normalize, convert-fx-to-linalg, bufferization, LLVM, JIT
   at O3 for this CPU) with fx_mlir.compile, runs it, compares the output
   with PyTorch eager and prints the max error and both latencies.
"""
import os
import statistics
import sys
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
sys.path.insert(0, HERE)
import fx_mlir  # noqa: E402
from make_small_cnn import SmallCNN  # noqa: E402


def median_ms(fn, x, repeat=200):
    for _ in range(20):
        fn(x)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn(x)
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    model = SmallCNN().eval()
    x = torch.randn(1, 3, 16, 16)

    print("== 1. trace with torch.fx")
    gm = torch.fx.symbolic_trace(model)
    print(f"{len(gm.graph.nodes)} nodes")

    print("\n== 2. import into the fx dialect (types from the example input)")
    ir = fx_mlir.import_graph_module(gm, (x,))
    print(f"{len(ir.splitlines())} lines of fx dialect IR")

    print("\n== 3. fx-opt --fx-normalize --fx-print-tabular")
    normalized = fx_mlir.run_fx_opt(ir, "--fx-normalize")
    print(fx_mlir.print_tabular(normalized))

    print("== 4. compile, run, compare with PyTorch eager")
    start = time.perf_counter()
    compiled = fx_mlir.compile(model, (x,))
    print(f"compiled in {(time.perf_counter() - start) * 1e3:.0f} ms")
    with torch.no_grad():
        expected = model(x)
        got = compiled(x)
        error = (got - expected).abs().max().item()
        ours = median_ms(compiled, x)
        eager = median_ms(model, x)
    print(f"output {tuple(got.shape)}; max abs error vs PyTorch: {error:.2e}")
    print(f"latency (median, 1 thread): fx-mlir {ours:.3f} ms, "
          f"PyTorch eager {eager:.3f} ms")
    ok = torch.allclose(got, expected, rtol=1e-4, atol=1e-5)
    print("agreement with PyTorch:", "yes" if ok else "NO")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
