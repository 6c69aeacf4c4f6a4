"""Ahead-of-time libraries: `CompiledGraph.save` writes a shared object
holding the code, its signature and the weights (embedded, or in a side
file), `fx_mlir.load` loads it with the runtime core (no compiler runs),
and the loaded graph computes what eager PyTorch does, checks its inputs
like a compiled one, and refuses files that are not its own."""
import os
import shutil
import sys

import pytest
import torch
import torch.nn as nn

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                "python"))
import fx_mlir  # noqa: E402


class TwoOutputs(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 16, 3, padding=1)
        self.fc = nn.Linear(16 * 8 * 8, 10)

    def forward(self, x, scale):
        y = torch.relu(self.conv(x))
        return self.fc(y.flatten(1)) * scale, {"features": y.mean((2, 3))}


def eager(m, *args):
    with torch.no_grad():
        return m(*args)


@pytest.fixture
def model():
    torch.manual_seed(0)
    return TwoOutputs().eval()


@pytest.mark.parametrize("weights_file", [False, True])
def test_save_and_load_match_eager(tmp_path, model, weights_file):
    x, s = torch.randn(2, 3, 8, 8), torch.randn(1)
    compiled = fx_mlir.compile(model, (x, s), cache_dir="")
    path = tmp_path / "two.so"
    compiled.save(path, header=tmp_path / "two.h",
                  weights_file=weights_file)
    assert path.exists()
    assert (tmp_path / "two.weights").exists() == weights_file
    header = (tmp_path / "two.h").read_text()
    assert "static inline int two_forward(fx_model *model" in header
    assert "const float *input0" in header and "float *output1" in header
    loaded = fx_mlir.load(path)
    assert loaded.from_cache
    assert loaded.inputs == compiled.inputs
    assert loaded.outputs == compiled.outputs
    expected = eager(model, x, s)
    got = loaded(x, s)
    # The output structure (a tuple holding a dict) survives the library.
    torch.testing.assert_close(got[0], expected[0], rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(got[1]["features"], expected[1]["features"],
                               rtol=1e-4, atol=1e-5)


def test_library_checks_inputs(tmp_path, model):
    x, s = torch.randn(2, 3, 8, 8), torch.randn(1)
    fx_mlir.compile(model, (x, s), cache_dir="").save(tmp_path / "m.so")
    loaded = fx_mlir.load(tmp_path / "m.so")
    with pytest.raises(fx_mlir.FxMlirError, match="expected shape"):
        loaded(torch.randn(3, 3, 8, 8), s)
    with pytest.raises(fx_mlir.FxMlirError, match="expected dtype float32"):
        loaded(x.double(), s)
    with pytest.raises(fx_mlir.FxMlirError, match="expected 2 inputs"):
        loaded(x)


def test_dynamic_batch_library(tmp_path):
    torch.manual_seed(1)
    m = nn.Sequential(nn.Linear(12, 7), nn.Tanh()).eval()
    compiled = fx_mlir.compile(m, (torch.randn(3, 12),), dynamic_batch=True,
                               cache_dir="")
    compiled.save(tmp_path / "mlp.so", header=tmp_path / "mlp.h")
    assert "int64_t batch" in (tmp_path / "mlp.h").read_text()
    loaded = fx_mlir.load(tmp_path / "mlp.so")
    for batch in (1, 5, 64):
        x = torch.randn(batch, 12)
        torch.testing.assert_close(loaded(x), eager(m, x), rtol=1e-5,
                                   atol=1e-6)


def test_moved_library_finds_its_weights(tmp_path, model):
    x, s = torch.randn(2, 3, 8, 8), torch.randn(1)
    compiled = fx_mlir.compile(model, (x, s), cache_dir="")
    compiled.save(tmp_path / "a.so", weights_file=True)
    moved = tmp_path / "elsewhere"
    moved.mkdir()
    shutil.move(tmp_path / "a.so", moved / "a.so")
    shutil.move(tmp_path / "a.weights", moved / "a.weights")
    got = fx_mlir.load(moved / "a.so")(x, s)
    torch.testing.assert_close(got[0], eager(model, x, s)[0], rtol=1e-4,
                               atol=1e-5)


def test_changed_or_missing_weights_file_is_refused(tmp_path, model):
    x, s = torch.randn(2, 3, 8, 8), torch.randn(1)
    compiled = fx_mlir.compile(model, (x, s), cache_dir="")
    compiled.save(tmp_path / "w.so", weights_file=True)
    weights = tmp_path / "w.weights"
    data = bytearray(weights.read_bytes())
    data[100] ^= 0x40
    weights.write_bytes(bytes(data))
    with pytest.raises(fx_mlir.FxMlirError,
                       match="not the one it was compiled with"):
        fx_mlir.load(tmp_path / "w.so")
    weights.write_bytes(bytes(data[:1000]))
    with pytest.raises(fx_mlir.FxMlirError,
                       match="not the one it was compiled with"):
        fx_mlir.load(tmp_path / "w.so")
    weights.unlink()
    with pytest.raises(fx_mlir.FxMlirError, match="cannot read its weights"):
        fx_mlir.load(tmp_path / "w.so")


def test_files_that_are_not_libraries_are_refused(tmp_path):
    with pytest.raises(fx_mlir.FxMlirError, match="no such file"):
        fx_mlir.load(tmp_path / "missing.so")
    junk = tmp_path / "junk.so"
    junk.write_bytes(b"\x7fELF" + os.urandom(300))
    with pytest.raises(fx_mlir.FxMlirError, match="cannot load"):
        fx_mlir.load(junk)
    # A real shared object, but not one fx-compile made.
    libm = "/lib/x86_64-linux-gnu/libm.so.6"
    if os.path.exists(libm):
        with pytest.raises(fx_mlir.FxMlirError, match="not a library"):
            fx_mlir.load(libm)


def test_loaded_graph_cannot_be_saved_again(tmp_path, model):
    x, s = torch.randn(2, 3, 8, 8), torch.randn(1)
    fx_mlir.compile(model, (x, s), cache_dir="").save(tmp_path / "m.so")
    with pytest.raises(fx_mlir.FxMlirError, match="copy the library"):
        fx_mlir.load(tmp_path / "m.so").save(tmp_path / "again.so")


def test_library_saved_again_at_the_same_path_is_new_code(tmp_path):
    """Each file written at one path is its own code while the earlier
    ones stay loaded: three generations at once (the third was once the
    second's code, the loader handed the same descriptor name again)."""
    x = torch.randn(2, 4)
    torch.manual_seed(2)
    models = [nn.Linear(4, 3).eval() for _ in range(3)]
    path = tmp_path / "m.so"
    loaded = []
    for model in models:
        fx_mlir.compile(model, (x,), cache_dir="").save(path)
        loaded.append(fx_mlir.load(path))
    for model, graph in zip(models, loaded):
        torch.testing.assert_close(graph(x), eager(model, x))
