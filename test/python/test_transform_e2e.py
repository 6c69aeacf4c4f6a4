"""fx_mlir.transform end to end: every transformed model must compute what
PyTorch eager computes, both as the exported GraphModule (run in PyTorch)
and compiled (fx_mlir.compile on that GraphModule), and the pass must have
done its rewrite.

Two torchvision CNNs and nn.TransformerEncoderLayer go through three
pipelines (batch-norm folding + activation fusion, linear fusion + cleanup,
stats probes); small models exercise one pattern each; replace_pattern's
result is compiled too. The big models are transformed and compiled once
per pipeline (module-scoped caches), the exported and the compiled checks
being separate tests so that one failing does not hide the other."""
import copy
import os
import sys

import pytest
import torch
import torch.fx
import torch.nn as nn
import torch.nn.functional as F
import torchvision
from torch.fx import subgraph_rewriter
from torch.fx.passes.shape_prop import ShapeProp, TensorMetadata

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                "python"))
import fx_mlir  # noqa: E402
from fx_mlir import fused, instrument  # noqa: E402
from fx_mlir.compiler import trace  # noqa: E402
from models import randomize_norms  # noqa: E402

FUSED = {fused.conv1d, fused.conv2d, fused.linear, fused.matmul, fused.add}

FOLD_FUSE = "fx-fold-batchnorm,fx-fuse-activation"
CLEANUP = "fx-fuse-linear,fx-cse,fx-dce,fx-canonicalize,fx-rename"
STATS = "fx-instrument{mode=stats}"
PIPELINES = {"fold_fuse": FOLD_FUSE, "cleanup": CLEANUP, "stats": STATS}

# Bounds against eager; for the big models atol scales with the output's
# magnitude (resnet18's logits reach ~8, mobilenet_v2's ~0.5).
RTOL, ATOL = 1e-4, 1e-5


# --- Helpers -----------------------------------------------------------------

def _name(target):
    """`relu` for torch.relu, F.relu, torch.ops.aten.relu.default, "relu"."""
    if isinstance(target, str):
        return target
    if isinstance(target, torch._ops.OpOverload):
        return target._schema.name.split("::")[-1]
    return getattr(target, "__name__", str(target))


def _calls(gm, *names, exact=False):
    """The call nodes of gm whose target (function, method, aten operator
    or the class of the called module, lower case) contains one of `names`
    (with `exact`, is one of them)."""
    found = []
    for n in gm.graph.nodes:
        if n.op == "call_module":
            label = type(gm.get_submodule(n.target)).__name__.lower()
        elif n.op in ("call_function", "call_method"):
            label = _name(n.target).lower()
        else:
            continue
        if any(label == name if exact else name in label for name in names):
            found.append(n)
    return found


def _batch_norms(gm):
    return _calls(gm, "batch_norm", "batchnorm")


def _fused(gm, op=None, activation=None):
    """The fx_mlir.fused.* nodes of gm (of `op`, with `activation`)."""
    return [n for n in gm.graph.nodes
            if n.op == "call_function" and n.target in FUSED
            and (op is None or n.target is getattr(fused, op))
            and (activation is None
                 or n.kwargs.get("activation") == activation)]


def _probes(gm):
    return [n for n in gm.graph.nodes
            if n.op == "call_function" and n.target is instrument.stats]


def _close(got, expected, scaled=False):
    atol = ATOL
    if scaled:
        atol = ATOL * max(1.0, expected.abs().max().item())
    torch.testing.assert_close(got, expected, rtol=RTOL, atol=atol)


def _max_error(got, expected):
    return (got - expected).abs().max().item()


# --- Big models: resnet18, mobilenet_v2, a transformer encoder layer --------

class UnrolledEncoderLayer(nn.Module):
    """Runs `layer` (an nn.TransformerEncoderLayer, post-norm, no masks) by
    its own blocks, as its forward does off the fast path. torch 1.13's
    TransformerEncoderLayer.forward branches on `src.dim()` to choose the
    fast path, which symbolic tracing cannot follow, and as a leaf
    call_module it has no lowering; this way its submodules
    (MultiheadAttention, Linear, Dropout, LayerNorm) and its F.gelu are the
    nodes. Eager references use `layer` itself."""

    def __init__(self, layer):
        super().__init__()
        assert not layer.norm_first
        self.layer = layer

    def forward(self, x):
        layer = self.layer
        x = layer.norm1(x + layer._sa_block(x, None, None))
        return layer.norm2(x + layer._ff_block(x))


def _resnet18():
    model = randomize_norms(torchvision.models.resnet18(weights=None),
                            scale=0.2)
    return model.eval(), model.eval(), torch.randn(1, 3, 64, 64)


def _mobilenet_v2():
    model = randomize_norms(torchvision.models.mobilenet_v2(weights=None),
                            scale=0.2)
    return model.eval(), model.eval(), torch.randn(1, 3, 64, 64)


# fx_mlir.compile options per big model. resnet18's 45 MB of weights as
# LLVM constants cost ~5 s per compile; as arguments they do not
# (mobilenet_v2 compiles no faster that way).
COMPILE_OPTIONS = {"resnet18": {"weights_as_arguments": True}}


def _encoder_layer():
    layer = nn.TransformerEncoderLayer(d_model=64, nhead=4,
                                       dim_feedforward=128,
                                       activation="gelu",
                                       batch_first=True).eval()
    randomize_norms(layer, scale=0.2)
    return layer, UnrolledEncoderLayer(layer).eval(), torch.randn(1, 16, 64)


BIG_MODELS = {"resnet18": _resnet18, "mobilenet_v2": _mobilenet_v2,
              "encoder_layer": _encoder_layer}


class _Big:
    """One big model: the eager reference, the module transformed, the
    example input, and per pipeline the transformed GraphModule and its
    compiled form, each computed once."""

    def __init__(self, name):
        torch.manual_seed(0)
        self.name = name
        self.reference, self.model, self.x = BIG_MODELS[name]()
        with torch.no_grad():
            self.expected = self.reference(self.x)
            # The module transformed computes what the reference does.
            torch.testing.assert_close(self.model(self.x), self.expected,
                                       rtol=1e-4, atol=1e-5)
        self._transformed = {}
        self._compiled = {}

    def transformed(self, pipeline):
        if pipeline not in self._transformed:
            self._transformed[pipeline] = fx_mlir.transform(
                self.model, pipeline, (self.x,))
        return self._transformed[pipeline]

    def compiled(self, pipeline):
        # A failure is cached too, so the other tests of the pipeline do
        # not compile again.
        if pipeline not in self._compiled:
            try:
                self._compiled[pipeline] = fx_mlir.compile(
                    self.transformed(pipeline), (self.x,),
                    **COMPILE_OPTIONS.get(self.name, {}))
            except Exception as error:  # noqa: BLE001
                self._compiled[pipeline] = error
        result = self._compiled[pipeline]
        if isinstance(result, Exception):
            raise result
        return result


@pytest.fixture(scope="module")
def big_cache():
    return {}


@pytest.fixture(params=list(BIG_MODELS))
def big(request, big_cache):
    if request.param not in big_cache:
        big_cache[request.param] = _Big(request.param)
    return big_cache[request.param]


@pytest.fixture
def fresh_instrument():
    instrument.reset()
    yield
    instrument.reset()


def _check_fired(big, pipeline, gm):
    """The rewrite `pipeline` is for happened in gm."""
    if pipeline == FOLD_FUSE:
        assert not [n.name for n in _batch_norms(gm)]
        if big.name == "resnet18":
            # conv + bn + relu: folded, then fused.
            assert _fused(gm, "conv2d", "relu")
        elif big.name == "mobilenet_v2":
            assert _fused(gm, "conv2d", "relu6")
        else:
            assert [n.name for n in _fused(gm)] == ["gelu"]
            assert _fused(gm, "linear", "gelu")
    elif pipeline == CLEANUP:
        # Eval-mode dropout disappears (mobilenet's classifier, the encoder
        # layer's three dropouts); fx-rename leaves unique identifiers.
        if big.name != "resnet18":
            assert not [n.name for n in _calls(gm, "dropout")]
            assert _calls(trace(big.model), "dropout")
        names = [n.name for n in gm.graph.nodes]
        assert len(set(names)) == len(names)
        assert all(name.isidentifier() for name in names)
    else:
        assert _probes(gm)


@pytest.mark.parametrize("pipeline", list(PIPELINES.values()),
                         ids=list(PIPELINES))
def test_big_model_exported(big, pipeline, fresh_instrument):
    gm = big.transformed(pipeline)
    assert isinstance(gm, torch.fx.GraphModule) and not gm.training
    _check_fired(big, pipeline, gm)
    with torch.no_grad():
        _close(gm(big.x), big.expected, scaled=True)


# mobilenet_v2 compiles slowly (about 10 s, 35 s with probes): it is
# compiled with the fusion pipeline only; resnet18 and the encoder layer
# are compiled after every pipeline.
COMPILED = [(model, pipeline) for model in BIG_MODELS for pipeline in PIPELINES
            if model != "mobilenet_v2" or pipeline == "fold_fuse"]


@pytest.mark.parametrize("model, pipeline", COMPILED,
                         ids=[f"{m}-{p}" for m, p in COMPILED])
def test_big_model_compiled(model, pipeline, big_cache, fresh_instrument):
    if model not in big_cache:
        big_cache[model] = _Big(model)
    big = big_cache[model]
    run = big.compiled(PIPELINES[pipeline])
    _close(run(big.x), big.expected, scaled=True)


def _float_call_nodes(model, x):
    """Names of the call nodes of `model`'s trace whose value is a float
    tensor: the nodes fx-instrument{mode=stats} probes."""
    gm = trace(model)
    with torch.no_grad():
        ShapeProp(gm).propagate(x)
    return [n.name for n in gm.graph.nodes
            if n.op in ("call_function", "call_method", "call_module")
            and isinstance(n.meta.get("tensor_meta"), TensorMetadata)
            and n.meta["tensor_meta"].dtype.is_floating_point]


def test_big_model_stats_report(big, fresh_instrument):
    gm = big.transformed(STATS)
    with torch.no_grad():
        gm(big.x)
    table = instrument.report()
    rows = {line.split()[0]: line.split()
            for line in table.splitlines()[2:]}
    expected = _float_call_nodes(big.model, big.x)
    assert expected
    missing = [name for name in expected if name not in rows]
    assert not missing, f"nodes {missing} not in\n{table}"
    # One call each, nothing NaN.
    assert all(row[-5] == "1" and row[-1] == "0"
               for name, row in rows.items() if name in expected), table


# --- Small models, one pattern each -----------------------------------------

class Conv1dBnRelu(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(4, 8, 3, padding=1)
        self.bn = nn.BatchNorm1d(8)
        self.act = nn.ReLU()

    def forward(self, x):
        return self.act(self.bn(self.conv(x)))


class Conv2dBnRelu6(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, stride=2, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(8)

    def forward(self, x):
        return F.relu6(self.bn(self.conv(x)))


class LinearBn1d(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 6)
        self.bn = nn.BatchNorm1d(6)

    def forward(self, x):
        return self.bn(self.fc(x))


class LinearGeluTanh(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 6)

    def forward(self, x):
        return F.gelu(self.fc(x), approximate="tanh")


class MatmulBias(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(6, 8) * 0.3)
        self.b = nn.Parameter(torch.randn(6))

    def forward(self, x):
        return x @ self.w.t() + self.b


class AddSilu(nn.Module):
    def forward(self, x, y):
        return F.silu(x + y)


class ConvHardswish(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 6, 3, padding=1)
        self.act = nn.Hardswish()

    def forward(self, x):
        return self.act(self.conv(x))


class ViewChains(nn.Module):
    """Permutes and transposes that cancel, no-op contiguous and eval-mode
    dropouts, views of views. The chain starts at a Linear, whose result
    is known contiguous (a contiguous() of a placeholder is kept: the
    caller may pass a strided tensor)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(5, 5)
        self.drop = nn.Dropout(0.5)

    def forward(self, x):  # x: 2x3x4x5
        x = self.fc(x)
        y = x.permute(0, 2, 3, 1).transpose(1, 3).transpose(2, 3)  # = x
        y = self.drop(y.contiguous())
        y = F.dropout(y, p=0.3, training=False)
        z = y.view(2, 12, 5).view(2, 60).reshape(2, 6, 10)
        t = torch.transpose(torch.transpose(z, 1, 2), 1, 2)  # = z
        return torch.relu(t.contiguous()) * 2


class NhwcConvFlatten(nn.Module):
    """A conv of a permuted NHWC input returns a channels-last tensor in
    PyTorch, so the contiguous() before the view is needed."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)

    def forward(self, x):  # x: 1x8x8x3
        return self.conv(x.permute(0, 3, 1, 2)).contiguous().view(1, -1)


class CloneFlatten(nn.Module):
    """clone() keeps its input's strides (memory_format=preserve_format),
    so the contiguous() before the view is needed."""

    def forward(self, x):  # x: 3x4
        return x.t().clone().contiguous().view(-1) * 2


def _no_calls(*names):
    def check(gm):
        left = [n.name for n in _calls(gm, *names)]
        assert not left, f"{names} left in\n{gm.code}"
    return check


def _has_fused(op, activation):
    def check(gm):
        assert len(_fused(gm, op, activation)) == 1, gm.code
    return check


def _all(*checks):
    def check(gm):
        for c in checks:
            c(gm)
    return check


def _one_linear(gm):
    assert len(_calls(gm, "linear")) == 1, gm.code


def _one_linear_no_matmul(gm):
    assert not _calls(gm, "matmul", "mm", "add", "t", "__matmul__",
                      "__add__", exact=True), gm.code
    assert len(_calls(gm, "linear")) == 1, gm.code


def _views_folded(gm):
    assert not _calls(gm, "permute", "transpose", "contiguous",
                      "dropout"), gm.code
    # 2x3x4x5 -> 2x6x10 by one view.
    assert len(_calls(gm, "view", "reshape")) == 1, gm.code


def _keeps_contiguous(gm):
    assert len(_calls(gm, "contiguous")) == 1, \
        f"the contiguous() the view needs was removed:\n{gm.code}"


def _scaled(*shapes):
    """Inputs of `shapes`, x3 so that relu6's cap and hardswish's knees are
    reached."""
    return lambda: tuple(torch.randn(*s) * 3 for s in shapes)


# (id, model factory, inputs factory, pipeline, check that it fired)
SMALL = [
    ("conv1d_bn1d_relu", Conv1dBnRelu, _scaled((2, 4, 16)), FOLD_FUSE,
     _all(_no_calls("batch_norm", "batchnorm"),
          _has_fused("conv1d", "relu"))),
    ("conv2d_bn_relu6", Conv2dBnRelu6, _scaled((2, 3, 9, 9)), FOLD_FUSE,
     _all(_no_calls("batch_norm", "batchnorm"),
          _has_fused("conv2d", "relu6"))),
    ("linear_bn1d", LinearBn1d, _scaled((4, 8)), "fx-fold-batchnorm",
     _all(_no_calls("batch_norm", "batchnorm"), _one_linear)),
    ("linear_gelu_tanh", LinearGeluTanh, _scaled((3, 5, 8)),
     "fx-fuse-activation",
     _all(_no_calls("gelu"), _has_fused("linear", "gelu_tanh"))),
    ("matmul_t_bias", MatmulBias, _scaled((3, 8)), "fx-fuse-linear",
     _one_linear_no_matmul),
    ("matmul_t_bias_3d", MatmulBias, _scaled((2, 3, 8)), "fx-fuse-linear",
     _one_linear_no_matmul),
    ("add_silu", AddSilu, _scaled((2, 5, 7), (5, 7)), "fx-fuse-activation",
     _all(_no_calls("silu"), _has_fused("add", "silu"))),
    ("conv_hardswish", ConvHardswish, _scaled((1, 3, 8, 8)),
     "fx-fuse-activation",
     _all(_no_calls("hardswish"), _has_fused("conv2d", "hardswish"))),
    ("view_chains_canonicalize", ViewChains, _scaled((2, 3, 4, 5)),
     "fx-canonicalize", _views_folded),
    ("view_chains_fuse_linear", ViewChains, _scaled((2, 3, 4, 5)),
     "fx-fuse-linear,fx-dce", _views_folded),
    ("nhwc_conv_contiguous_view", NhwcConvFlatten, _scaled((1, 8, 8, 3)),
     "fx-canonicalize", _keeps_contiguous),
    ("clone_contiguous_view", CloneFlatten, _scaled((3, 4)),
     "fx-canonicalize", _keeps_contiguous),
]


@pytest.mark.parametrize("make_model, make_inputs, pipeline, check",
                         [case[1:] for case in SMALL],
                         ids=[case[0] for case in SMALL])
def test_small_model(make_model, make_inputs, pipeline, check):
    torch.manual_seed(0)
    model = randomize_norms(make_model(), scale=0.2).eval()
    inputs = make_inputs()
    with torch.no_grad():
        expected = model(*inputs)
    gm = fx_mlir.transform(model, pipeline, inputs)
    with torch.no_grad():
        exported = gm(*inputs)
    torch.testing.assert_close(exported, expected, rtol=RTOL, atol=ATOL)
    check(gm)
    compiled = fx_mlir.compile(gm, inputs)(*inputs)
    torch.testing.assert_close(compiled, expected, rtol=RTOL, atol=ATOL)


# --- replace_pattern, then compile -------------------------------------------

class GeluMlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 16)
        self.fc2 = nn.Linear(16, 4)

    def forward(self, x):
        h = F.gelu(self.fc1(x)) * 2
        return F.gelu(self.fc2(h)) * 2 + 1


def gelu_pattern(x):
    return F.gelu(x) * 2


def gelu_replacement(x):  # the sigmoid approximation, doubled
    return x * torch.sigmoid(1.702 * x) * 2


def test_replace_pattern_then_compile():
    torch.manual_seed(0)
    model = GeluMlp().eval()
    x = torch.randn(3, 8)
    gm = torch.fx.symbolic_trace(model)
    reference = copy.deepcopy(gm)
    assert len(subgraph_rewriter.replace_pattern(
        reference, gelu_pattern, gelu_replacement)) == 2
    matches = fx_mlir.replace_pattern(gm, gelu_pattern, gelu_replacement)
    assert len(matches) == 2
    assert not _calls(gm, "gelu") and len(_calls(gm, "sigmoid")) == 2
    with torch.no_grad():
        expected = reference(x)
        torch.testing.assert_close(gm(x), expected, rtol=RTOL, atol=ATOL)
        # The approximation differs from the model: the rewrite mattered.
        assert _max_error(expected, model(x)) > 1e-3
    compiled = fx_mlir.compile(gm, (x,))(x)
    torch.testing.assert_close(compiled, expected, rtol=RTOL, atol=ATOL)
