"""fx_mlir.transform and fx_mlir.replace_pattern: fx-opt's graph passes on
torch.fx GraphModules.

Every result is checked against PyTorch itself: eager outputs of the
original model, and torch.fx.subgraph_rewriter.replace_pattern for the
pattern rewrites."""
import collections
import copy
import operator
import os
import sys

import pytest
import torch
import torch.fx
import torch.nn as nn
import torch.nn.functional as F
import torchvision
from torch.fx import subgraph_rewriter

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                "python"))
import fx_mlir  # noqa: E402
from fx_mlir import fused, instrument  # noqa: E402
from fx_mlir.transform import Match  # noqa: E402
from models import randomize_norms  # noqa: E402

FUSED = {fused.conv1d, fused.conv2d, fused.linear, fused.matmul, fused.add}


def _function_name(target):
    """`relu` for torch.relu, F.relu and torch.ops.aten.relu.default."""
    return getattr(target, "__name__", str(target)).split(".")[0]


def _is_batch_norm(gm, node):
    if node.op == "call_module":
        return isinstance(gm.get_submodule(node.target),
                          nn.modules.batchnorm._BatchNorm)
    if node.op == "call_method":
        return "batch_norm" in node.target
    if node.op == "call_function":
        return "batch_norm" in _function_name(node.target)
    return False


def _assert_matches_eager(got, expected):
    scale = expected.abs().max().item()
    torch.testing.assert_close(got, expected, rtol=1e-4, atol=1e-4 * scale)


class SmallCNN(nn.Module):
    """Conv-BN-ReLU blocks (with and without conv bias), a residual add
    with ReLU, conv1d + GELU and a Linear + ReLU6 head."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 8, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(8)
        self.conv3 = nn.Conv1d(8, 8, 3, padding=1)
        self.bn3 = nn.BatchNorm1d(8)
        self.fc = nn.Linear(8, 10)

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        z = self.bn2(self.conv2(y))
        y = torch.relu(y + z)
        s = F.gelu(self.bn3(self.conv3(y.flatten(2))))
        return F.relu6(self.fc(s.mean(-1)))


def _models():
    return [
        ("small_cnn", lambda: SmallCNN()),
        ("resnet18", lambda: torchvision.models.resnet18(weights=None,
                                                         num_classes=10)),
        ("mobilenet_v2", lambda: torchvision.models.mobilenet_v2(
            weights=None, num_classes=10)),
    ]


@pytest.mark.parametrize("make", [m[1] for m in _models()],
                         ids=[m[0] for m in _models()])
def test_fold_batchnorm_and_fuse_activation(make):
    torch.manual_seed(0)
    model = randomize_norms(make()).eval()
    x = torch.randn(1, 3, 64, 64)
    with torch.no_grad():
        expected = model(x)
    gm = fx_mlir.transform(model, "fx-fold-batchnorm,fx-fuse-activation",
                           (x,))
    assert isinstance(gm, torch.fx.GraphModule) and not gm.training
    assert not [n.name for n in gm.graph.nodes if _is_batch_norm(gm, n)]
    fused_nodes = [n for n in gm.graph.nodes
                   if n.op == "call_function" and n.target in FUSED]
    assert fused_nodes
    assert all(n.kwargs.get("activation") in fused.ACTIVATIONS
               for n in fused_nodes)
    with torch.no_grad():
        _assert_matches_eager(gm(x), expected)
        # The model itself is untouched.
        torch.testing.assert_close(model(x), expected)
    # The fused calls stay leaves when the result is traced again.
    retraced = torch.fx.symbolic_trace(gm)
    assert len([n for n in retraced.graph.nodes
                if n.op == "call_function" and n.target in FUSED]) == \
        len(fused_nodes)


def test_transform_without_example_inputs():
    model = randomize_norms(SmallCNN()).eval()
    x = torch.randn(2, 3, 16, 16)
    gm = fx_mlir.transform(model, "fx-fold-batchnorm,fx-fuse-activation")
    assert not [n.name for n in gm.graph.nodes if _is_batch_norm(gm, n)]
    with torch.no_grad():
        _assert_matches_eager(gm(x), model(x))


def test_transform_of_a_graph_module_with_dynamic_batch():
    model = randomize_norms(SmallCNN()).eval()
    traced = torch.fx.symbolic_trace(model)
    code = traced.code
    example = (torch.randn(2, 3, 16, 16),)
    gm = fx_mlir.transform(traced, "fx-fold-batchnorm", example,
                           dynamic_batch=True)
    assert traced.code == code
    x = torch.randn(5, 3, 16, 16)
    with torch.no_grad():
        _assert_matches_eager(gm(x), model(x))


def test_training_mode_is_kept():
    model = randomize_norms(SmallCNN()).train()
    reference = copy.deepcopy(model)
    gm = fx_mlir.transform(model, "fx-fold-batchnorm,fx-fuse-activation")
    assert gm.training
    # In training mode batch norm uses the batch's statistics: not folded.
    x = torch.randn(4, 3, 16, 16)
    _assert_matches_eager(gm(x), reference(x))


class FourRelus(nn.Module):
    """ReLU spelled the four ways torch.fx records it."""

    def __init__(self):
        super().__init__()
        self.act = nn.ReLU()
        self.fc = nn.Linear(6, 6)

    def forward(self, x):
        a = torch.relu(x)
        b = F.relu(self.fc(a))
        c = (b - 0.5).relu()
        return self.act(c * 2 - 1) + a


def _as_sigmoid(x, fc):
    a = torch.sigmoid(x)
    b = torch.sigmoid(fc(a))
    c = torch.sigmoid(b - 0.5)
    return torch.sigmoid(c * 2 - 1) + a


def _is_relu(gm, node):
    if node.op == "call_module":
        return isinstance(gm.get_submodule(node.target), nn.ReLU)
    if node.op == "call_method":
        return node.target in ("relu", "relu_")
    if node.op == "call_function":
        return _function_name(node.target) in ("relu", "relu_")
    return False


def _is_sigmoid(gm, node):
    if node.op == "call_module":
        return isinstance(gm.get_submodule(node.target), nn.Sigmoid)
    if node.op == "call_method":
        return node.target == "sigmoid"
    if node.op == "call_function":
        return _function_name(node.target) == "sigmoid"
    return False


def test_replace_target_covers_every_spelling():
    model = FourRelus()
    gm = fx_mlir.transform(
        model, "fx-replace-target{from=torch.relu to=torch.sigmoid}")
    assert not [n.name for n in gm.graph.nodes if _is_relu(gm, n)]
    assert len([n for n in gm.graph.nodes if _is_sigmoid(gm, n)]) == 4
    x = torch.randn(3, 6)
    with torch.no_grad():
        torch.testing.assert_close(gm(x), _as_sigmoid(x, model.fc))
        # The input model still computes ReLUs.
        assert not torch.allclose(model(x), _as_sigmoid(x, model.fc))


@pytest.mark.parametrize("pipeline", [
    "fx-not-a-pass",
    "fx-replace-target{from=torch.relu",
    "fx-instrument{mode=sometimes}",
])
def test_bad_pipeline_raises_and_leaves_input_usable(pipeline):
    model = randomize_norms(SmallCNN()).eval()
    traced = torch.fx.symbolic_trace(model)
    code = traced.code
    x = torch.randn(1, 3, 16, 16)
    with torch.no_grad():
        expected = model(x)
    for subject in (model, traced):
        with pytest.raises(fx_mlir.FxMlirError) as info:
            fx_mlir.transform(subject, pipeline)
        if pipeline == "fx-not-a-pass":  # fx-opt's message names it
            assert "'fx-not-a-pass'" in str(info.value)
    assert traced.code == code and not model.training
    with torch.no_grad():
        torch.testing.assert_close(model(x), expected)
        torch.testing.assert_close(traced(x), expected)


def test_transform_rejects_non_modules():
    with pytest.raises(TypeError):
        fx_mlir.transform(lambda x: x, "fx-dce")


class Redundant(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        x * 3  # dead code, which symbolic_trace keeps as a node
        y = self.fc(x)
        return torch.relu(y) + torch.relu(y)


def _call_nodes(gm):
    return [n for n in gm.graph.nodes
            if n.op in ("call_function", "call_method", "call_module")]


@pytest.mark.parametrize("pipeline", [
    "fx-dce", "fx-cse", "fx-canonicalize", "fx-rename",
    "fx-canonicalize,fx-cse,fx-dce,fx-rename",
])
def test_cleanup_passes_keep_outputs(pipeline):
    model = Redundant()
    gm = fx_mlir.transform(model, pipeline)
    x = torch.randn(2, 4)
    with torch.no_grad():
        torch.testing.assert_close(gm(x), model(x))


def test_dce_and_cse_remove_redundant_nodes():
    model = Redundant()
    # mul, fc, relu, relu, add
    before = len(_call_nodes(torch.fx.symbolic_trace(model)))
    dce = fx_mlir.transform(model, "fx-dce")
    assert not [n for n in dce.graph.nodes if n.target is operator.mul]
    cse = fx_mlir.transform(model, "fx-cse")
    assert len([n for n in cse.graph.nodes if _is_relu(cse, n)]) == 1
    both = fx_mlir.transform(model, "fx-cse,fx-dce")
    assert len(_call_nodes(both)) == before - 2


# --- replace_pattern ---------------------------------------------------------

class DocsExample(nn.Module):
    """torch.fx.subgraph_rewriter.replace_pattern's documented example."""

    def forward(self, x, w1, w2):
        m1 = torch.cat([w1, w2]).sum()
        m2 = torch.cat([w1, w2]).sum()
        return x + torch.max(m1) + torch.max(m2)


def docs_pattern(w1, w2):
    return torch.cat([w1, w2]).sum()


def docs_replacement(w1, w2):
    return torch.stack([w1, w2])


def _targets(gm):
    return collections.Counter((n.op, n.target) for n in gm.graph.nodes
                               if n.op != "placeholder")


def _torch_matches(gm, pattern, replacement):
    """torch.fx's matches on a copy of gm, as (graph anchor name, pattern
    name -> graph name of the pattern's call nodes), and the copy."""
    reference = copy.deepcopy(gm)
    matches = subgraph_rewriter.replace_pattern(reference, pattern,
                                                replacement)
    # torch 1.13's anchor is the pattern's output node.
    found = [(m.nodes_map[m.anchor].name,
              {p.name: g.name for p, g in m.nodes_map.items()
               if p.op != "placeholder"}) for m in matches]
    return found, reference


def test_replace_pattern_docs_example():
    gm = torch.fx.symbolic_trace(DocsExample())
    expected, reference = _torch_matches(gm, docs_pattern, docs_replacement)
    assert len(expected) == 2
    same_object = gm
    matches = fx_mlir.replace_pattern(gm, docs_pattern, docs_replacement)
    assert gm is same_object
    assert len(matches) == 2
    assert all(isinstance(m, Match) for m in matches)
    names = [m.anchor if isinstance(m.anchor, str) else m.anchor.name
             for m in matches]
    assert sorted(names) == sorted(anchor for anchor, _ in expected)
    for m in matches:
        if isinstance(m.anchor, torch.fx.Node):
            assert m.anchor.graph is gm.graph
    by_anchor = dict(expected)
    for name, m in zip(names, matches):
        for pattern_name, graph_name in by_anchor[name].items():
            assert m.nodes_map[pattern_name] == graph_name
    # The same graph as torch.fx's rewrite, computing the same values.
    assert _targets(gm) == _targets(reference)
    assert "torch.stack" in gm.code and "torch.cat" not in gm.code
    args = (torch.randn(3), torch.randn(4), torch.randn(4))
    torch.testing.assert_close(gm(*args), reference(*args))


class ScaledRelu(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(5, 5)

    def forward(self, x):
        y = torch.relu(self.fc(x)) * 2
        return y + torch.relu(x) * 2


def test_replace_pattern_keeps_the_modules_of_the_graph():
    gm = torch.fx.symbolic_trace(ScaledRelu())
    fc, weight = gm.fc, gm.fc.weight

    def pattern(x):
        return torch.relu(x) * 2

    def replacement(x):
        return torch.sigmoid(x) + 1

    expected, reference = _torch_matches(gm, pattern, replacement)
    assert len(expected) == 2
    matches = fx_mlir.replace_pattern(gm, pattern, replacement)
    assert len(matches) == 2
    assert _targets(gm) == _targets(reference)
    assert gm.fc is fc and gm.fc.weight is weight
    x = torch.randn(3, 5)
    torch.testing.assert_close(gm(x), reference(x))


def test_pattern_with_other_literal_args_matches_nothing():
    gm = torch.fx.symbolic_trace(ScaledRelu())
    code = gm.code

    def pattern(x):
        return torch.relu(x) * 3

    def replacement(x):
        return torch.sigmoid(x)

    expected, _ = _torch_matches(gm, pattern, replacement)
    assert expected == []
    assert fx_mlir.replace_pattern(gm, pattern, replacement) == []
    assert _targets(gm) == _targets(torch.fx.symbolic_trace(ScaledRelu()))
    assert "sigmoid" not in gm.code and code.count("relu") == \
        gm.code.count("relu")


def test_replace_pattern_with_module_pattern():
    class Pattern(nn.Module):
        def forward(self, w1, w2):
            return docs_pattern(w1, w2)

    gm = torch.fx.symbolic_trace(DocsExample())
    expected, reference = _torch_matches(gm, docs_pattern, docs_replacement)
    matches = fx_mlir.replace_pattern(gm, Pattern(), docs_replacement)
    assert len(matches) == len(expected)
    args = (torch.randn(3), torch.randn(4), torch.randn(4))
    torch.testing.assert_close(gm(*args), reference(*args))


class AddTwice(nn.Module):
    def forward(self, x, y):
        return torch.add(x, y) * torch.add(y, x)


def _add(x, y):
    return torch.add(x, y)


def _add_shifted(x, y):
    return torch.add(x, y) + torch.tensor([1.0, 2.0, 3.0])


def test_replace_pattern_replacement_reads_a_tensor_constant():
    """A replacement reading a tensor constant (torch.tensor([...]) traced
    as a get_attr): gm gets it (torch 1.13's subgraph_rewriter finds the
    same matches but leaves gm without the constant: its result fails when
    called); a rewrite that matches nothing leaves gm without it."""
    gm = torch.fx.symbolic_trace(AddTwice())
    expected, _ = _torch_matches(gm, _add, _add_shifted)
    matches = fx_mlir.replace_pattern(gm, _add, _add_shifted)
    assert len(matches) == len(expected) == 2
    x, y = torch.randn(3), torch.randn(3)
    shift = torch.tensor([1.0, 2.0, 3.0])
    torch.testing.assert_close(gm(x, y), (x + y + shift) * (y + x + shift))
    before = dict(gm.named_buffers())
    assert not fx_mlir.replace_pattern(gm, lambda x: torch.sigmoid(x),
                                       _add_shifted_one)
    assert dict(gm.named_buffers()).keys() == before.keys()


def _add_shifted_one(x):
    return x + torch.tensor([5.0])


def test_replace_pattern_errors_leave_gm_unchanged():
    gm = torch.fx.symbolic_trace(DocsExample())
    code = gm.code
    args = (torch.randn(3), torch.randn(4), torch.randn(4))
    expected = gm(*args)

    def untraceable(w1, w2):
        if w1.sum() > 0:  # data-dependent control flow
            return w1
        return w2

    with pytest.raises(fx_mlir.FxMlirError, match="pattern"):
        fx_mlir.replace_pattern(gm, untraceable, docs_replacement)
    with pytest.raises(fx_mlir.FxMlirError, match="replacement"):
        fx_mlir.replace_pattern(gm, docs_pattern, untraceable)
    with pytest.raises(TypeError):
        fx_mlir.replace_pattern(DocsExample(), docs_pattern, docs_replacement)
    assert gm.code == code
    torch.testing.assert_close(gm(*args), expected)


# --- fx-instrument -----------------------------------------------------------

class Probed(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        y = torch.log(x)
        return torch.relu(self.fc(y)).sum(-1)


@pytest.fixture
def fresh_instrument():
    instrument.reset()
    yield
    instrument.reset()


def _call_node_names(model):
    return [n.name for n in _call_nodes(torch.fx.symbolic_trace(model))]


def test_instrument_stats(fresh_instrument):
    model = Probed()
    gm = fx_mlir.transform(model, "fx-instrument{mode=stats}")
    x = torch.rand(3, 4) + 0.5
    with torch.no_grad():
        torch.testing.assert_close(gm(x), model(x))
    table = instrument.report()
    assert "mean" in table
    lines = table.splitlines()
    for name in _call_node_names(model):
        assert any(line.split()[0] == name for line in lines[2:]), \
            f"node {name} not in\n{table}"
    log_row = next(line.split() for line in lines[2:]
                   if line.split()[0] == "log")
    assert log_row[-5] == "1"  # calls
    assert float(log_row[-2]) == pytest.approx(
        torch.log(x).double().mean().item(), rel=1e-5)


def test_instrument_time(fresh_instrument):
    model = Probed()
    gm = fx_mlir.transform(model, "fx-instrument{mode=time}")
    x = torch.rand(3, 4) + 0.5
    with torch.no_grad():
        torch.testing.assert_close(gm(x), model(x))
        gm(x)
    table = instrument.report(mode="time")
    rows = [line.split() for line in table.splitlines()[2:]]
    assert set(_call_node_names(model)) <= {row[0] for row in rows}, table
    assert all(row[-3] == "2" for row in rows)  # calls
    total_ms = [float(row[-2]) for row in rows]
    assert total_ms == sorted(total_ms, reverse=True)


def test_instrument_nan_check(fresh_instrument):
    model = Probed()
    gm = fx_mlir.transform(model, "fx-instrument{mode=nan-check}")
    x = torch.rand(3, 4) + 0.5
    with torch.no_grad():
        torch.testing.assert_close(gm(x), model(x))
        with pytest.raises(fx_mlir.FxMlirError, match="node 'log'"):
            gm(-x)


def test_in_process(monkeypatch):
    """transform, replace_pattern and export_graph_module run their passes
    and the exporter in this process: no tool is started."""
    import subprocess

    def refuse(*args, **kwargs):
        raise AssertionError(f"a subprocess was started: {args}")

    monkeypatch.setattr(subprocess, "run", refuse)
    monkeypatch.setattr(subprocess, "Popen", refuse)
    model = nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU()).eval()
    x = torch.randn(1, 3, 8, 8)
    gm = fx_mlir.transform(torch.fx.symbolic_trace(model), "fx-normalize",
                           (x,))
    torch.testing.assert_close(gm(x), model(x))

    def pattern(x):
        return torch.relu(x)

    def replacement(x):
        return torch.sigmoid(x)

    traced = torch.fx.symbolic_trace(lambda x: torch.relu(x) + 1)
    matches = fx_mlir.replace_pattern(traced, pattern, replacement)
    assert len(matches) == 1
    torch.testing.assert_close(traced(x), torch.sigmoid(x) + 1)
    script = fx_mlir.export_python(fx_mlir.import_graph_module(
        torch.fx.symbolic_trace(model), (x,)))
    assert "graph_module = build()" in script


def test_pipeline_errors():
    """A pipeline that does not parse, or names no pass, raises FxMlirError
    with the diagnostics; so does IR that does not parse."""
    ir = fx_mlir.import_graph_module(
        torch.fx.symbolic_trace(nn.ReLU()), (torch.randn(2),))
    with pytest.raises(fx_mlir.FxMlirError, match="no-such-pass"):
        fx_mlir.transform(torch.fx.symbolic_trace(nn.ReLU()), "no-such-pass")
    from fx_mlir.compiler import _load_runtime
    with pytest.raises(fx_mlir.FxMlirError, match="error: "):
        _load_runtime().run_pipeline(ir[:len(ir) // 2],
                                     "builtin.module(fx-normalize)")
    with pytest.raises(fx_mlir.FxMlirError, match="not anchored"):
        _load_runtime().run_pipeline(ir, "func.func(cse)")
