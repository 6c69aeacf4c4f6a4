"""The runtime core from Python (fx_mlir._fx_core): a code-cache hit and a
loaded library run with no compiler in the process. `import fx_mlir`,
tracing, importing and a cache hit map neither LLVM nor MLIR; a miss, or
an alias file that does not check, loads the compiler as before."""
import glob
import json
import os
import subprocess
import sys
import textwrap

import pytest

REPO = os.path.join(os.path.dirname(__file__), "..", "..")

# Compiles a model twice over (two processes share the cache) and reports
# what the process mapped.
SCRIPT = textwrap.dedent("""
    import json, sys, time
    import torch, torch.nn as nn
    import fx_mlir
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(),
                          nn.Flatten(), nn.Linear(8 * 6 * 6, 5)).eval()
    x = torch.randn(2, 3, 6, 6)
    start = time.perf_counter()
    if sys.argv[2] == "library":
        compiled = fx_mlir.load(sys.argv[1])
    else:
        compiled = fx_mlir.compile(model, (x,), cache_dir=sys.argv[1])
        if sys.argv[2] == "save":
            compiled.save(sys.argv[1] + "/model.so")
    seconds = time.perf_counter() - start
    with torch.no_grad():
        error = (compiled(x) - model(x)).abs().max().item()
    maps = open("/proc/self/maps").read()
    print(json.dumps({
        "from_cache": compiled.from_cache, "error": error,
        "compiler": "fx_mlir._fx_runtime" in sys.modules,
        "llvm": "libLLVM" in maps, "mlir": "libMLIR" in maps,
        "seconds": seconds}))
""")


def run(*args):
    env = dict(os.environ, PYTHONPATH=os.path.join(REPO, "python"))
    done = subprocess.run([sys.executable, "-c", SCRIPT, *map(str, args)],
                          capture_output=True, text=True, env=env,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_cache_hit_loads_no_compiler(tmp_path):
    first = run(tmp_path, "compile")
    assert not first["from_cache"] and first["compiler"] and first["llvm"]
    assert first["error"] < 1e-5
    assert glob.glob(str(tmp_path / "*.alias"))
    hit = run(tmp_path, "compile")
    assert hit["from_cache"] and hit["error"] < 1e-5
    assert not hit["compiler"] and not hit["llvm"] and not hit["mlir"], hit


def test_a_damaged_alias_is_a_miss_that_the_compiler_serves(tmp_path):
    run(tmp_path, "compile")
    for alias in glob.glob(str(tmp_path / "*.alias")):
        with open(alias, "r+b") as f:
            f.seek(len("fx-mlir-alias 1\n") + 3)
            f.write(b"0")
    again = run(tmp_path, "compile")
    # The compiler finds the entry by its own key and rewrites the alias.
    assert again["from_cache"] and again["compiler"]
    assert again["error"] < 1e-5
    assert not run(tmp_path, "compile")["compiler"]


def test_a_damaged_entry_behind_an_alias_is_compiled_again(tmp_path):
    run(tmp_path, "compile")
    for weights in glob.glob(str(tmp_path / "*.so")):
        with open(weights, "r+b") as f:
            f.seek(100)
            f.write(b"\xff\xff\xff\xff")
    again = run(tmp_path, "compile")
    assert not again["from_cache"] and again["compiler"]
    assert again["error"] < 1e-5


def test_loaded_library_needs_no_compiler(tmp_path):
    run(tmp_path, "save")
    loaded = run(tmp_path / "model.so", "library")
    assert loaded["error"] < 1e-5
    assert not loaded["compiler"] and not loaded["llvm"] and not loaded["mlir"]
