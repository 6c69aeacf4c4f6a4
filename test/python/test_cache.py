"""fx_mlir.compile's on-disk code cache: a second compile of the same model
loads the code instead of compiling, and runs it like eager PyTorch; other
weights, shapes or options miss; a damaged cache entry is compiled again
instead of crashing. The code is linked into a shared object (`ld` is on
the PATH wherever the project builds), or kept as object code for the JIT
when there is no linker."""
import gc
import glob
import os
import sys

import pytest
import torch
import torch.nn as nn

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                "python"))
import fx_mlir  # noqa: E402


def model(seed):
    torch.manual_seed(seed)
    return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8),
                         nn.ReLU(), nn.Flatten(), nn.Linear(8 * 6 * 6, 5),
                         nn.Softmax(dim=1)).eval()


def check(compiled, m, x):
    with torch.no_grad():
        expected = m(x)
    got = compiled(x)
    assert got.shape == expected.shape
    torch.testing.assert_close(got, expected, rtol=1e-5, atol=1e-6)


def test_second_compile_loads_the_code(tmp_path):
    m, x = model(0), torch.randn(2, 3, 6, 6)
    first = fx_mlir.compile(m, (x,), cache_dir=str(tmp_path))
    assert not first.from_cache
    assert len(glob.glob(str(tmp_path / "*.so"))) == 1
    assert not glob.glob(str(tmp_path / "*.o*"))
    assert len(glob.glob(str(tmp_path / "*.meta"))) == 1
    # The linear layer's weight (5760 bytes) is kept out of the object.
    assert len(glob.glob(str(tmp_path / "*.weights"))) == 1
    second = fx_mlir.compile(m, (x,), cache_dir=str(tmp_path))
    assert second.from_cache
    assert second.inputs == first.inputs
    assert second.outputs == first.outputs
    check(second, m, x)
    # Bad inputs are still refused with the signature from the cache.
    try:
        second(torch.randn(2, 3, 5, 5))
    except fx_mlir.FxMlirError as e:
        assert "shape" in str(e)
    else:
        raise AssertionError("a wrong shape ran")


def test_nested_outputs_from_the_cache(tmp_path):
    class Two(nn.Module):
        def forward(self, x):
            return {"a": (x + 1, x * 2)}["a"], x.sum()

    x = torch.randn(3, 4)
    fx_mlir.compile(Two(), (x,), cache_dir=str(tmp_path))
    cached = fx_mlir.compile(Two(), (x,), cache_dir=str(tmp_path))
    assert cached.from_cache
    (a, b), s = cached(x)
    torch.testing.assert_close(a, x + 1)
    torch.testing.assert_close(b, x * 2)
    torch.testing.assert_close(s, x.sum())


def test_other_weights_shapes_and_options_miss(tmp_path):
    x = torch.randn(2, 3, 6, 6)
    fx_mlir.compile(model(0), (x,), cache_dir=str(tmp_path))
    other = fx_mlir.compile(model(1), (x,), cache_dir=str(tmp_path))
    assert not other.from_cache
    check(other, model(1), x)
    batch = fx_mlir.compile(model(0), (torch.randn(4, 3, 6, 6),),
                            cache_dir=str(tmp_path))
    assert not batch.from_cache
    dynamic = fx_mlir.compile(model(0), (x,), dynamic_batch=True,
                              cache_dir=str(tmp_path))
    assert not dynamic.from_cache
    check(dynamic, model(0), torch.randn(5, 3, 6, 6))
    assert len(glob.glob(str(tmp_path / "*.so"))) == 4


def test_no_cache(tmp_path):
    m, x = model(0), torch.randn(2, 3, 6, 6)
    for _ in range(2):
        assert not fx_mlir.compile(m, (x,), cache_dir="").from_cache
    os.environ["FX_MLIR_CACHE_DIR"] = str(tmp_path)
    try:
        fx_mlir.compile(m, (x,))
        assert fx_mlir.compile(m, (x,)).from_cache
    finally:
        os.environ["FX_MLIR_CACHE_DIR"] = ""


def test_damaged_entries_are_compiled_again(tmp_path):
    m, x = model(0), torch.randn(2, 3, 6, 6)
    fx_mlir.compile(m, (x,), cache_dir=str(tmp_path))
    (obj,) = glob.glob(str(tmp_path / "*.so"))
    (meta,) = glob.glob(str(tmp_path / "*.meta"))
    with open(obj, "wb") as f:
        f.write(b"not an object file")
    again = fx_mlir.compile(m, (x,), cache_dir=str(tmp_path))
    assert not again.from_cache
    check(again, m, x)
    # The entry was written anew.
    assert fx_mlir.compile(m, (x,), cache_dir=str(tmp_path)).from_cache
    (weights,) = glob.glob(str(tmp_path / "*.weights"))
    with open(weights, "r+b") as f:
        f.truncate(100)
    again = fx_mlir.compile(m, (x,), cache_dir=str(tmp_path))
    assert not again.from_cache
    check(again, m, x)
    with open(meta, "w") as f:
        f.write("fx-mlir-cache 4\ninput float32 two 1\n")
    again = fx_mlir.compile(m, (x,), cache_dir=str(tmp_path))
    assert not again.from_cache
    check(again, m, x)


@pytest.mark.parametrize("linker", ["", "no-such-linker"])
def test_without_a_linker_the_object_code_is_loaded(tmp_path, monkeypatch,
                                                    linker):
    monkeypatch.setenv("FX_MLIR_LINKER", linker)
    m, x = model(0), torch.randn(2, 3, 6, 6)
    assert not fx_mlir.compile(m, (x,), cache_dir=str(tmp_path)).from_cache
    # One object per part the code was compiled in (one per core, at most
    # one per function), as many as the signature says.
    objects = sorted(glob.glob(str(tmp_path / "*.o")))
    (meta,) = glob.glob(str(tmp_path / "*.meta"))
    with open(meta) as f:
        counts = [int(line.split()[1]) for line in f
                  if line.startswith("objects ")]
    assert objects and counts == [len(objects)]
    assert not glob.glob(str(tmp_path / "*.so*"))
    assert not glob.glob(str(tmp_path / "*.tmp*"))
    cached = fx_mlir.compile(m, (x,), cache_dir=str(tmp_path))
    assert cached.from_cache
    check(cached, m, x)
    # Without its last part, the entry is compiled again.
    os.remove(objects[-1])
    again = fx_mlir.compile(m, (x,), cache_dir=str(tmp_path))
    assert not again.from_cache
    check(again, m, x)


def test_one_entry_loaded_twice(tmp_path):
    # Both graphs run the one shared object, whose constant slots point at
    # one weights mapping: dropping either leaves the other working.
    m, x = model(0), torch.randn(2, 3, 6, 6)
    fx_mlir.compile(m, (x,), cache_dir=str(tmp_path))
    first = fx_mlir.compile(m, (x,), cache_dir=str(tmp_path))
    second = fx_mlir.compile(m, (x,), cache_dir=str(tmp_path))
    assert first.from_cache and second.from_cache
    check(first, m, x)
    del first
    gc.collect()
    check(second, m, x)
    del second
    gc.collect()
    third = fx_mlir.compile(m, (x,), cache_dir=str(tmp_path))
    assert third.from_cache
    check(third, m, x)


CORRUPT = r'''
import glob, os, random, sys, torch, torch.nn as nn
sys.path.insert(0, sys.argv[2])
import fx_mlir
cache = sys.argv[1]
torch.manual_seed(0)
m = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Flatten(),
                  nn.Linear(8 * 6 * 6, 5)).eval()
x = torch.randn(2, 3, 6, 6)
with torch.no_grad():
    expected = m(x)

def corruptions(data, is_meta):
    n = len(data)
    yield "truncated to half", data[: n // 2]
    yield "emptied", b""
    yield "zeros", bytes(n)
    yield "garbage", bytes(random.Random(1).randrange(256) for _ in range(n))
    for at in (0, n // 3, n // 2, n - 2):
        flipped = bytearray(data)
        flipped[at] ^= 0x40
        yield f"byte {at} flipped", bytes(flipped)
    if is_meta:
        lines = data.split(b"\n")
        yield "lines swapped", b"\n".join([lines[0], lines[2], lines[1]]
                                          + lines[3:])
        yield "a constant's offset wrapped", b"\n".join(
            (b" ".join(l.split(b" ")[:2] + [b"18446744073709551615"]
                       + l.split(b" ")[3:]) if l.startswith(b"constant ")
             else l) for l in lines)

fx_mlir.compile(m, (x,), cache_dir=cache)
count = 0
for suffix in (".so", ".weights", ".meta"):
    (path,) = glob.glob(os.path.join(cache, "*" + suffix))
    with open(path, "rb") as f:
        good = f.read()
    for what, data in corruptions(good, suffix == ".meta"):
        # A new file in its place, as another process would leave it: this
        # process still maps the old one (dlopen, the weights' mmap), and
        # writing into a mapped file is not what is tested here.
        with open(path + ".corrupt", "wb") as f:
            f.write(data)
        os.replace(path + ".corrupt", path)
        compiled = fx_mlir.compile(m, (x,), cache_dir=cache)
        assert not compiled.from_cache, (suffix, what)
        torch.testing.assert_close(compiled(x), expected, rtol=1e-5,
                                   atol=1e-6)
        # The entry was replaced: the next compile loads it.
        again = fx_mlir.compile(m, (x,), cache_dir=cache)
        assert again.from_cache, (suffix, what)
        torch.testing.assert_close(again(x), expected, rtol=1e-5, atol=1e-6)
        with open(path, "rb") as f:
            good = f.read()
        count += 1
print("recompiled", count)
'''


def test_every_corruption_of_an_entry_recompiles(tmp_path):
    """Each file of an entry (shared object, weights, signature), damaged
    in each way (truncated, emptied, zeros, garbage, flipped bytes, swapped
    lines, a wrapped constant offset), is detected by the entry's digests
    before it is loaded: the model is compiled again and matches eager, and
    the entry is replaced. In a subprocess: a crash fails this test only."""
    import subprocess
    python_dir = os.path.join(os.path.dirname(__file__), "..", "..", "python")
    result = subprocess.run([sys.executable, "-c", CORRUPT, str(tmp_path),
                             python_dir], capture_output=True, text=True,
                            timeout=900)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.split() == ["recompiled", "26"], result.stdout


def test_weights_handed_over_as_memory(tmp_path):
    """fx_mlir.compile hands the weights to the compiler as tensors' memory
    (no hex in the text); the cache key covers their bytes, so a weight
    changed in place is a miss, and a blob the IR does not name is an
    error naming it."""
    from fx_mlir import compiler
    from fx_mlir.importer import import_graph_module
    m, x = model(0), torch.randn(2, 3, 6, 6)
    blobs = {}
    gm = compiler.trace(m, (x,))
    ir = import_graph_module(gm, (x,), blobs=blobs)
    assert "dialect_resources" not in ir
    assert set(blobs) == set(m.state_dict())
    runtime = compiler._load_runtime()
    graph = runtime.CompiledGraph(ir, False, False, "", "host",
                                  list(blobs.items()))
    torch.testing.assert_close(graph([x])[0], m(x).detach(), rtol=1e-5,
                               atol=1e-6)
    with pytest.raises(ValueError, match="names no dense resource 'nope'"):
        runtime.CompiledGraph(ir, False, False, "", "host",
                              list(blobs.items()) + [("nope", x)])

    first = fx_mlir.compile(m, (x,), cache_dir=str(tmp_path))
    again = fx_mlir.compile(m, (x,), cache_dir=str(tmp_path))
    assert again.from_cache
    with torch.no_grad():
        m[0].weight.mul_(-1)
    changed = fx_mlir.compile(m, (x,), cache_dir=str(tmp_path))
    assert not changed.from_cache
    check(changed, m, x)
    check(first, model(0), x)
