"""fx_mlir.fused and fx_mlir.instrument: the functions the nodes that
fx-fuse-activation and fx-instrument insert call.

The fused functions are checked against the unfused PyTorch calls for every
base op and activation, and must stay leaf calls when traced (also after an
import/export round trip); the probes' tables against statistics PyTorch
computes, and nan_check must name the node."""
import math
import os
import sys
import time

import pytest
import torch
import torch.fx
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                "python"))
import fx_mlir  # noqa: E402
from fx_mlir import fused, instrument  # noqa: E402

# --- fx_mlir.fused ----------------------------------------------------------

# The activations by name, written out independently of fused.ACTIVATIONS.
REFERENCE_ACTIVATIONS = {
    "relu": lambda y: torch.clamp(y, min=0),
    "relu6": lambda y: torch.clamp(y, 0, 6),
    "gelu": lambda y: 0.5 * y * (1 + torch.erf(y / math.sqrt(2))),
    "gelu_tanh": lambda y: 0.5 * y * (1 + torch.tanh(
        math.sqrt(2 / math.pi) * (y + 0.044715 * y ** 3))),
    "silu": lambda y: y / (1 + torch.exp(-y)),
    "sigmoid": lambda y: 1 / (1 + torch.exp(-y)),
    "tanh": torch.tanh,
    "hardswish": lambda y: y * torch.clamp(y + 3, 0, 6) / 6,
}


def _base_cases():
    """(name, fused function, args, kwargs, the unfused op on them)."""
    g = torch.Generator().manual_seed(0)

    def randn(*shape):
        return torch.randn(*shape, generator=g) * 3  # reach relu6's cap
    x1, w1, b1 = randn(2, 4, 9), randn(6, 2, 3), randn(6)
    x2, w2, b2 = randn(2, 4, 9, 7), randn(6, 4, 3, 3), randn(6)
    xl, wl, bl = randn(3, 5, 8), randn(4, 8), randn(4)
    w1d = randn(6, 4, 3)
    a, b, c = randn(2, 3, 4), randn(4, 5), randn(3, 4)
    return [
        ("conv1d", fused.conv1d, (x1, w1, b1, [2], [1], [2], 2), {},
         lambda: F.conv1d(x1, w1, b1, stride=2, padding=1, dilation=2,
                          groups=2)),
        ("conv1d_defaults", fused.conv1d, (x1, w1d), {},
         lambda: F.conv1d(x1, w1d)),
        ("conv2d", fused.conv2d, (x2, w2, b2, [1, 2], [1, 0], [1, 1], 1), {},
         lambda: F.conv2d(x2, w2, b2, stride=(1, 2), padding=(1, 0))),
        ("conv2d_no_bias", fused.conv2d, (x2, w2, None, 1, 1), {},
         lambda: F.conv2d(x2, w2, padding=1)),
        ("linear", fused.linear, (xl, wl, bl), {},
         lambda: F.linear(xl, wl, bl)),
        ("linear_no_bias", fused.linear, (xl, wl), {},
         lambda: F.linear(xl, wl)),
        ("matmul", fused.matmul, (a, b), {}, lambda: a @ b),
        ("add", fused.add, (a, c), {}, lambda: a + c),
        ("add_alpha", fused.add, (a, b[0, :4]), {"alpha": -2},
         lambda: a - 2 * b[0, :4]),
    ]


BASE_CASES = _base_cases()


@pytest.mark.parametrize("activation", sorted(REFERENCE_ACTIVATIONS))
@pytest.mark.parametrize("case", BASE_CASES, ids=[c[0] for c in BASE_CASES])
def test_fused_equals_base_op_then_activation(case, activation):
    _, function, args, kwargs, base = case
    got = function(*args, **kwargs, activation=activation)
    expected = REFERENCE_ACTIVATIONS[activation](base())
    torch.testing.assert_close(got, expected, rtol=1e-5, atol=1e-5)


def test_activations_table():
    assert set(fused.ACTIVATIONS) == set(REFERENCE_ACTIVATIONS)
    y = torch.linspace(-8, 8, 101)
    for name, function in fused.ACTIVATIONS.items():
        torch.testing.assert_close(function(y), REFERENCE_ACTIVATIONS[name](y),
                                   rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("activation", ["mish", "RELU", None])
def test_unknown_activation_is_named(activation):
    with pytest.raises(ValueError, match=repr(activation).replace("(", r"\(")):
        fused.linear(torch.randn(2, 3), torch.randn(4, 3),
                     activation=activation)


def test_activation_is_keyword_only_and_required():
    x, w = torch.randn(2, 3), torch.randn(4, 3)
    with pytest.raises(TypeError):
        fused.linear(x, w, None, "relu")
    with pytest.raises(TypeError):
        fused.linear(x, w)


def test_keyword_args_use_the_schema_names():
    x, w, b = torch.randn(1, 2, 5, 5), torch.randn(3, 2, 3, 3), torch.randn(3)
    got = fused.conv2d(input=x, weight=w, bias=b, stride=2, padding=1,
                       dilation=1, groups=1, activation="tanh")
    torch.testing.assert_close(got, torch.tanh(F.conv2d(x, w, b, 2, 1)))
    a, c = torch.randn(3), torch.randn(3)
    torch.testing.assert_close(
        fused.add(self=a, other=c, alpha=3, activation="relu"),
        torch.relu(a + 3 * c))
    torch.testing.assert_close(
        fused.matmul(self=a, other=c, activation="sigmoid"),
        torch.sigmoid(a @ c))


class CallsFused(nn.Module):
    """Calls each fused function once, through the package."""

    def __init__(self):
        super().__init__()
        self.w1 = nn.Parameter(torch.randn(4, 3, 3))
        self.w2 = nn.Parameter(torch.randn(4, 3, 3, 3))
        self.wl = nn.Parameter(torch.randn(5, 4))

    def forward(self, x):
        a = fx_mlir.fused.conv1d(x.flatten(2), self.w1, None, [1], [1], [1],
                                 1, activation="relu")
        b = fx_mlir.fused.conv2d(x, self.w2, None, [1, 1], [1, 1], [1, 1], 1,
                                 activation="gelu")
        c = fx_mlir.fused.linear(b.mean((2, 3)), self.wl, None,
                                 activation="silu")
        d = fx_mlir.fused.matmul(c, c.t(), activation="tanh")
        return fx_mlir.fused.add(d, a.sum(), alpha=2, activation="hardswish")


FUSED_TARGETS = {fused.conv1d, fused.conv2d, fused.linear, fused.matmul,
                 fused.add}


def _fused_calls(gm):
    return [node.target for node in gm.graph.nodes
            if node.op == "call_function" and node.target in FUSED_TARGETS]


def test_symbolic_trace_keeps_fused_calls_as_leaves():
    model = CallsFused()
    gm = torch.fx.symbolic_trace(model)
    assert _fused_calls(gm) == [fused.conv1d, fused.conv2d, fused.linear,
                                fused.matmul, fused.add]
    # Not traced through: no convolution or activation of their own.
    targets = {node.target for node in gm.graph.nodes}
    assert not targets & {torch.conv2d, torch.conv1d, torch.relu, F.gelu}
    x = torch.randn(2, 3, 4, 4)
    torch.testing.assert_close(gm(x), model(x))


def test_one_node_per_fused_call():
    def f(x, w):
        return fx_mlir.fused.conv2d(x, w, None, 1, 0, 1, 1,
                                    activation="relu6")
    gm = torch.fx.symbolic_trace(f)
    calls = [node for node in gm.graph.nodes if node.op == "call_function"]
    assert [node.target for node in calls] == [fused.conv2d]
    assert calls[0].kwargs == {"activation": "relu6"}


def test_exported_module_keeps_fused_leaves():
    model = CallsFused()
    x = torch.randn(2, 3, 4, 4)
    ir = fx_mlir.import_graph_module(torch.fx.symbolic_trace(model), (x,))
    assert '"fx_mlir.fused.conv2d"' in ir
    exported = fx_mlir.export_graph_module(ir)
    torch.testing.assert_close(exported(x), model(x))
    retraced = torch.fx.symbolic_trace(exported)
    assert len(_fused_calls(retraced)) == 5
    torch.testing.assert_close(retraced(x), model(x))


# --- fx_mlir.instrument -----------------------------------------------------

@pytest.fixture(autouse=True)
def fresh_instrument():
    instrument.reset()
    yield
    instrument.reset()


def _rows(table):
    """The rows of a report table (header and rule dropped), as lists of
    cells; node names and targets hold no spaces."""
    lines = table.strip().splitlines()
    assert set(lines[1].replace(" ", "")) == {"-"}
    return lines[0].split(), [line.split() for line in lines[2:]]


def test_probes_return_none():
    t = torch.ones(2)
    assert instrument.start(0, "a", "t") is None
    assert instrument.stop(0, "a", "t", t) is None
    assert instrument.stats(0, "a", "t", t) is None
    assert instrument.nan_check(0, "a", "t", t) is None


def test_time_report_sorted_by_time():
    for _ in range(2):
        for node_id, name, seconds in [(0, "fast", 0.0), (1, "slow", 0.03),
                                       (2, "medium", 0.01)]:
            instrument.start(node_id, name, "time.sleep")
            time.sleep(seconds)
            instrument.stop(node_id, name, "time.sleep", None)
    header, rows = _rows(instrument.report())
    assert header == ["node", "target", "calls", "total", "ms", "%"]
    assert [row[0] for row in rows] == ["slow", "medium", "fast"]
    assert all(row[1] == "time.sleep" and row[2] == "2" for row in rows)
    total_ms = [float(row[3]) for row in rows]
    assert total_ms[0] >= 60.0 and total_ms[1] >= 20.0
    assert sum(float(row[4]) for row in rows) == pytest.approx(100.0, abs=0.5)
    assert instrument.report(mode="time") == instrument.report()


def test_stop_without_start_is_an_error():
    with pytest.raises(fx_mlir.FxMlirError, match="'lonely'"):
        instrument.stop(7, "lonely", "aten::relu", None)


def _stats_rows():
    header, rows = _rows(instrument.report(mode="stats"))
    assert header == ["node", "target", "calls", "min", "max", "mean", "nan"]
    return {row[0]: row for row in rows}, [row[0] for row in rows]


def test_stats_match_torch():
    g = torch.Generator().manual_seed(0)
    a, b = torch.randn(3, 4, generator=g), torch.randn(7, generator=g) * 5
    b[2] = float("nan")
    b[5] = float("nan")
    ints = torch.tensor([[3, -4], [10, 2]])
    # Called out of graph order: the table is in id order.
    instrument.stats(2, "sizes", "aten::size", 3)
    instrument.stats(1, "ints", "aten::argmax", ints)
    instrument.stats(0, "conv", "aten::conv2d", a)
    instrument.stats(0, "conv", "aten::conv2d", b)
    instrument.stats(2, "sizes", "aten::size", 4)
    rows, order = _stats_rows()
    assert order == ["conv", "ints", "sizes"]

    seen = torch.cat([a.flatten(), b[~torch.isnan(b)]])
    conv = rows["conv"]
    assert conv[1:3] == ["aten::conv2d", "2"]
    assert float(conv[3]) == pytest.approx(seen.min().item(), rel=1e-5)
    assert float(conv[4]) == pytest.approx(seen.max().item(), rel=1e-5)
    assert float(conv[5]) == pytest.approx(seen.double().mean().item(),
                                           rel=1e-5)
    assert conv[6] == "2"

    assert rows["ints"][2:] == ["1", "-4", "10", "2.75", "0"]
    # Not a tensor: only counted.
    assert rows["sizes"][2:] == ["2", "-", "-", "-", "0"]


def _has_tables(text):
    return "total ms" in text, "mean" in text


def test_report_shows_both_modes_and_reset_clears():
    assert _has_tables(instrument.report()) == (False, False)
    instrument.start(0, "a", "t")
    instrument.stop(0, "a", "t", None)
    instrument.stats(0, "b", "t", torch.ones(1))
    assert _has_tables(instrument.report()) == (True, True)
    instrument.reset()
    assert _has_tables(instrument.report()) == (False, False)
    with pytest.raises(ValueError, match="'bogus'"):
        instrument.report(mode="bogus")


@pytest.mark.parametrize("value", [
    torch.tensor([1.0, float("nan")]),
    torch.tensor([float("-inf"), 0.0]),
    (torch.ones(2), [torch.tensor(float("inf"))]),
    float("nan"),
])
def test_nan_check_names_the_node(value):
    with pytest.raises(fx_mlir.FxMlirError) as info:
        instrument.nan_check(3, "relu", "aten::relu", value)
    assert str(info.value) == \
        "node 'relu' (target 'aten::relu') produced NaN/Inf"


@pytest.mark.parametrize("value", [
    torch.randn(3, 3), torch.arange(4), (torch.ones(1), None), 2.5, "text",
])
def test_nan_check_passes_finite_values(value):
    assert instrument.nan_check(0, "x", "t", value) is None


class Probed(nn.Module):
    """What fx-instrument{mode=stats} and {mode=nan-check} make of
    `torch.log(x)`."""

    def forward(self, x):
        log = torch.log(x)
        fx_mlir.instrument.stats(0, "log", "torch.log", log)
        fx_mlir.instrument.nan_check(0, "log", "torch.log", log)
        return log


def test_probes_in_an_exported_module():
    ir = fx_mlir.import_graph_module(torch.fx.symbolic_trace(Probed()))
    exported = fx_mlir.export_graph_module(ir)
    retraced = torch.fx.symbolic_trace(exported)
    assert [node.target for node in retraced.graph.nodes
            if node.op == "call_function"] == [
        torch.log, instrument.stats, instrument.nan_check]
    x = torch.rand(5) + 0.5
    torch.testing.assert_close(exported(x), torch.log(x))
    rows, _ = _stats_rows()
    assert rows["log"][2] == "1"
    assert float(rows["log"][3]) == pytest.approx(torch.log(x).min().item(),
                                                  rel=1e-5)
    with pytest.raises(fx_mlir.FxMlirError, match="node 'log' "):
        exported(-x)
