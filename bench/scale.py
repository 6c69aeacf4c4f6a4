"""Compile time and memory against graph size (issue 26.7): graphs of N
nodes of three kinds, imported, normalized and compiled cold (no cache),
each phase timed, with the time per 1,000 nodes, so that a phase that
grows faster than the graph shows as a rising column.

    /usr/bin/python3 bench/scale.py [--sizes 2500,5000,10000,20000]

Kinds: `chain`, an elementwise chain (sigmoid, add, relu, mul, ...) of N
nodes on a 4x16 tensor; `views`, N views alternating two shapes (what
fx-canonicalize folds); `mlp`, N/2 linear layers of 16 features with a
relu after each. Every compiled result is checked against eager."""

import argparse
import os
import resource
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))
os.environ.setdefault("FX_MLIR_BUILD_DIR", os.path.join(
    os.path.dirname(__file__), "..", "build"))
os.environ["FX_MLIR_CACHE_DIR"] = ""  # cold compiles

import torch  # noqa: E402
import torch.fx  # noqa: E402
import fx_mlir  # noqa: E402


class Chain(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.n = n

    def forward(self, x):
        for i in range(self.n // 2):
            x = torch.relu(x) * 1.0001 if i % 2 else torch.sigmoid(x) + 0.5
        return x


class Views(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.n = n

    def forward(self, x):
        for i in range(self.n):
            x = x.view(64) if i % 2 else x.view(4, 16)
        return x.relu()


class MLP(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.layers = torch.nn.ModuleList(
            torch.nn.Linear(16, 16) for _ in range(n // 2))

    def forward(self, x):
        for layer in self.layers:
            x = torch.relu(layer(x))
        return x


def measure(kind, n):
    model = {"chain": Chain, "views": Views, "mlp": MLP}[kind](n).eval()
    x = torch.randn(4, 16)
    start = time.perf_counter()
    gm = torch.fx.symbolic_trace(model)
    traced = time.perf_counter() - start
    start = time.perf_counter()
    ir = fx_mlir.import_graph_module(gm, (x,))
    imported = time.perf_counter() - start
    start = time.perf_counter()
    fx_mlir.transform(gm, "fx-canonicalize,fx-normalize", (x,))
    normalized = time.perf_counter() - start
    start = time.perf_counter()
    compiled = fx_mlir.compile(gm, (x,))
    compile_s = time.perf_counter() - start
    same = torch.allclose(compiled(x), model(x), atol=1e-4, rtol=1e-4)
    nodes = len(gm.graph.nodes)
    del ir
    return nodes, traced, imported, normalized, compile_s, same


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="2500,5000,10000,20000")
    parser.add_argument("--kinds", default="chain,views,mlp")
    args = parser.parse_args()
    print(f"{'kind':6} {'nodes':>6} {'trace s':>8} {'import s':>9} "
          f"{'transform s':>12} {'compile s':>10} {'s per 1k nodes':>14} "
          f"{'peak RSS MiB*':>13} matches")
    for kind in args.kinds.split(","):
        for n in map(int, args.sizes.split(",")):
            nodes, t, i, norm, c, same = measure(kind, n)
            rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            print(f"{kind:6} {nodes:6d} {t:8.2f} {i:9.2f} {norm:12.2f} "
                  f"{c:10.2f} {1000 * c / nodes:14.2f} "
                  f"{rss:13.0f} {same}", flush=True)
    print("* the process's peak so far (runs go from small to large)")


if __name__ == "__main__":
    main()
