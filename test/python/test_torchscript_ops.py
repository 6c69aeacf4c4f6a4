"""fx_mlir.compile of traced and scripted modules (the C++ TorchScript
importer and fx-normalize, no torch.fx tracing) on what torch.jit records
differently from a torch.fx graph: recurrent layers as one ATen operator,
creation calls, Python's operators on tensors and numbers, a conv padding
by a string, torch.nn modules the compiler does not bind (walked into).
Each is compared with eager PyTorch on inputs other than the example."""
import math
import os
import sys
from collections import OrderedDict

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                "python"))
import fx_mlir  # noqa: E402


class Recurrent(nn.Module):
    """nn.LSTM, nn.GRU or nn.RNN with its hyperparameters, and the states
    it returns."""

    def __init__(self, kind, **options):
        super().__init__()
        self.rnn = getattr(nn, kind)(6, 5, **options)

    def forward(self, x):
        out, state = self.rnn(x)
        if isinstance(state, tuple):
            return out, state[0], state[1]
        return out, state


RECURRENT = {
    "lstm": ("LSTM", dict(num_layers=2, batch_first=True), (2, 4, 6)),
    "lstm_bidirectional": ("LSTM", dict(bidirectional=True), (4, 3, 6)),
    "lstm_no_bias": ("LSTM", dict(bias=False, batch_first=True), (1, 3, 6)),
    "gru": ("GRU", dict(num_layers=2, bidirectional=True), (3, 2, 6)),
    "rnn_tanh": ("RNN", dict(batch_first=True), (2, 3, 6)),
    "rnn_relu": ("RNN", dict(nonlinearity="relu", num_layers=2), (3, 2, 6)),
}


@pytest.mark.parametrize("route", ["trace", "script"])
@pytest.mark.parametrize("name", sorted(RECURRENT))
def test_recurrent_layers_unrolled(name, route):
    """torch.jit.trace and torch.jit.script record a recurrent layer as
    aten::lstm.input (and gru, rnn_tanh, rnn_relu), scripted after checks
    of the states' sizes (decided when importing); fx-normalize unrolls it
    over the example's sequence length."""
    kind, options, shape = RECURRENT[name]
    torch.manual_seed(0)
    model = Recurrent(kind, **options).eval()
    module = (torch.jit.trace(model, (torch.randn(*shape),))
              if route == "trace" else torch.jit.script(model))
    compiled = fx_mlir.compile(module, (torch.randn(*shape),), cache_dir="")
    x = torch.randn(*shape)
    with torch.no_grad():
        expected = model(x)
        got = compiled(x)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        torch.testing.assert_close(g, e, rtol=1e-5, atol=1e-5)


class Creation(nn.Module):
    def forward(self, x):
        return (torch.eye(3, 4) + x, torch.linspace(-1, 2.5, 4) * x,
                torch.logspace(0, 2, 4, base=2.0) * x,
                torch.linspace(0, 10, 4, dtype=torch.int64),
                torch.eye(3).sum())


class Lists(nn.Module):
    def forward(self, x):
        idx = torch.tensor([0, 2, 1])
        scale = torch.tensor([[1.5, 2.0], [3.0, float(x.size(0))]])
        return x[idx] * 2, scale * x[0, 0]


class Operators(nn.Module):
    def forward(self, x, n):
        m = x > 0
        return ((n & 3) | 8, n ^ 5, n << 1, n >> 1, m & (x < 0.5),
                x.to("cpu", torch.float64))


class Numbers(nn.Module):
    def forward(self, x):
        n = x.size(0)
        half = float(n) * 0.5
        return x * half, x + int(half), torch.norm(x, 2.0, 1), torch.norm(x, dim=1), x.norm()


class Losses(nn.Module):
    def forward(self, x, y):
        return F.mse_loss(x, y), F.smooth_l1_loss(x, y), F.l1_loss(x, y)


class Padded(nn.Module):
    def __init__(self):
        super().__init__()
        self.same = nn.Conv1d(3, 4, 4, padding="same")
        self.valid = nn.Conv1d(4, 2, 3, padding="valid")
        self.reflect = nn.Conv2d(3, 2, 3, padding=1, padding_mode="reflect")
        self.circular = nn.Conv2d(2, 2, 3, padding=2,
                                  padding_mode="circular")

    def forward(self, x):
        y = self.reflect(x)
        return self.valid(self.same(x.flatten(2))), self.circular(y)


class Unbound(nn.Module):
    """Modules the compiler binds by no alias: walked into."""

    def __init__(self):
        super().__init__()
        self.rrelu = nn.RReLU(0.1, 0.3)
        self.alpha = nn.AlphaDropout(0.2)
        self.feature_alpha = nn.FeatureAlphaDropout(0.2)
        self.softmin = nn.Softmin(1)

    def forward(self, x):
        return (self.rrelu(x) + self.alpha(x),
                self.softmin(self.feature_alpha(x)))


class Folded(nn.Module):
    """nn.Unfold, then nn.Fold (col2im) with overlapping blocks."""

    def __init__(self):
        super().__init__()
        self.unfold = nn.Unfold(3, padding=1, stride=2)
        self.fold = nn.Fold((7, 9), 3, padding=1, stride=2)

    def forward(self, x):
        return self.fold(self.unfold(x) * 2), F.fold(
            self.unfold(x), (7, 9), 3, dilation=1, padding=1, stride=2)


class Defaults(nn.Module):
    """A forward with arguments after the tensors that have defaults: a
    call with the tensors alone takes them."""

    def forward(self, x, steps: int = 3, scale: float = 0.5,
                flip: bool = True):
        for _ in range(steps):
            x = x * scale + 1
        return x.flip(0) if flip else x


class Layers(nn.Module):
    """IntermediateLayerGetter's pattern (scripted segmentation models): a
    dict of constants names the outputs kept in an OrderedDict."""

    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleDict({"stem": nn.Conv2d(3, 4, 3, padding=1),
                                     "act": nn.ReLU(),
                                     "head": nn.Conv2d(4, 2, 1)})
        self.return_layers = {"act": "low", "head": "out"}

    def forward(self, x):
        out = OrderedDict()
        for name, module in self.layers.items():
            x = module(x)
            if name in self.return_layers:
                out[self.return_layers[name]] = x
        return out["out"] + out["low"].mean(1, keepdim=True), F.interpolate(
            out["out"], size=[8, 10], mode="bilinear", align_corners=False)


class Sampled(nn.Module):
    """F.affine_grid and F.grid_sample (scripted, they check
    `x.is_floating_point()`, known when importing)."""

    def forward(self, x, theta):
        grid = F.affine_grid(theta, [2, 3, 5, 6], align_corners=False)
        return F.grid_sample(x, grid, mode="bilinear", padding_mode="border",
                             align_corners=False)


class Composites(nn.Module):
    """ATen's composite spellings torch.jit records where torch.fx records
    the Python name (aten::fliplr, aten::ravel, aten::numpy_T for `x.T`,
    aten::mT, aten::mH, aten::matrix_H for `x.H`, aten::adjoint), and
    one-point linspace and logspace (their start), aten::scalar_tensor and
    the nearest-exact upsampling's overload of output sizes, and
    aten::tensordot."""

    def forward(self, x, s):
        return (x.fliplr(), torch.flipud(x), x.ravel() * 2,
                torch.narrow_copy(x, 1, 1, 2), x.reshape_as(x.t()),
                x.T, x.mT, x.mH, x.H, torch.adjoint(x), s.H, s.mH,
                torch.linspace(2.5, -3, 1) * s,
                torch.logspace(-3, 2, 1) * s,
                torch.logspace(1, 2, 1, base=2.0, dtype=torch.int64),
                torch.scalar_tensor(2.5) * s,
                F.interpolate(x[None, None], size=(5, 7),
                              mode="nearest-exact"),
                torch.tensordot(x, x.t(), dims=([1], [0])),
                torch.tensordot(x, x, dims=([0, 1], [0, 1])))


CASES = {
    "composites": (Composites, lambda: (torch.randn(3, 4),
                                        torch.randn(()))),
    "sampled": (Sampled, lambda: (torch.randn(2, 3, 5, 6),
                                  torch.randn(2, 2, 3) * 0.5)),
    "layers": (Layers, lambda: (torch.randn(1, 3, 6, 7),)),
    "defaults": (Defaults, lambda: (torch.randn(3, 4),)),
    "fold": (Folded, lambda: (torch.randn(2, 3, 7, 9),)),
    "creation": (Creation, lambda: (torch.randn(3, 4),)),
    "lists": (Lists, lambda: (torch.randn(5, 6),)),
    "operators": (Operators, lambda: (torch.randn(3, 4),
                                      torch.randint(-9, 9, (3, 4)))),
    "numbers": (Numbers, lambda: (torch.randn(4, 5),)),
    "losses": (Losses, lambda: (torch.randn(4, 5), torch.randn(4, 5))),
    "padded": (Padded, lambda: (torch.randn(1, 3, 4, 5),)),
    "unbound": (Unbound, lambda: (torch.randn(3, 4),)),
}


def _flat(value):
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in _flat(v)]
    return [value]


@pytest.mark.parametrize("route", ["trace", "script"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_torchscript_spellings_compile(name, route):
    """What torch.jit.trace or torch.jit.script records (eye, linspace,
    `torch.tensor([...])`, `x & 3` as aten::__and__, `to(device)`,
    `float(n)`, frobenius_norm, broadcast_tensors, size-list comparisons,
    aten::_convolution_mode, convs padding by reflection) compiles and
    computes what eager does."""
    cls, make = CASES[name]
    torch.manual_seed(0)
    model = cls().eval()
    example = make()
    module = (torch.jit.trace(model, example, check_trace=False)
              if route == "trace" else torch.jit.script(model))
    compiled = fx_mlir.compile(module, example, cache_dir="")
    torch.manual_seed(1)
    inputs = make()
    with torch.no_grad():
        expected = _flat(model(*inputs))
        got = _flat(compiled(*inputs))
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert g.dtype == e.dtype and g.shape == e.shape
        torch.testing.assert_close(g, e, rtol=1e-5, atol=1e-5)


class Normed(nn.Module):
    """torch.nn.utils.weight_norm (a hook computes the weight: traced, an
    aten::_weight_norm call; through torch.fx, the weight the hook set)
    and nn.Softmax2d."""

    def __init__(self):
        super().__init__()
        self.conv = nn.utils.weight_norm(nn.Conv2d(3, 4, 3))
        self.fc = nn.utils.weight_norm(nn.Linear(4, 2), dim=None)
        self.softmax = nn.Softmax2d()

    def forward(self, x):
        y = self.softmax(self.conv(x))
        return self.fc(y.mean((2, 3)))


@pytest.mark.parametrize("route", ["fx", "trace"])
def test_weight_norm_and_softmax2d(route):
    torch.manual_seed(0)
    model = Normed().eval()
    x = torch.randn(2, 3, 6, 6)
    module = model if route == "fx" else torch.jit.trace(model, (x,))
    compiled = fx_mlir.compile(module, (x,), cache_dir="")
    y = torch.randn(2, 3, 6, 6)
    with torch.no_grad():
        torch.testing.assert_close(compiled(y), model(y), rtol=1e-5,
                                   atol=1e-5)


class SelfAttention(nn.Module):
    """nn.MultiheadAttention on one input (query is key is value: what its
    fast path needs), its output and averaged weights."""

    def __init__(self):
        super().__init__()
        self.attention = nn.MultiheadAttention(8, 2, batch_first=True)

    def forward(self, x):
        return self.attention(x, x, x)


TRANSFORMERS = {
    "encoder": lambda: nn.TransformerEncoder(nn.TransformerEncoderLayer(
        8, 2, 16, batch_first=True), 2, norm=nn.LayerNorm(8)),
    "encoder_gelu_norm_first": lambda: nn.TransformerEncoder(
        nn.TransformerEncoderLayer(8, 2, 16, batch_first=True,
                                   activation="gelu", norm_first=True), 1),
    "self_attention": SelfAttention,
}


@pytest.mark.parametrize("grad", [False, True])
@pytest.mark.parametrize("route", ["trace", "script"])
@pytest.mark.parametrize("name", sorted(TRANSFORMERS))
def test_transformer_fast_paths(name, route, grad):
    """PyTorch's transformer layers take a fast path in eval mode without
    grad (one ATen operator: _transformer_encoder_layer_fwd,
    _native_multi_head_attention), which torch.jit.trace records and a
    scripted forward branches to on torch.is_grad_enabled() (decided when
    importing, as torch.fx decides it when tracing). fx-normalize expands
    the operators; the scripted branches on grad mode, autocast, nested
    tensors and requires_grad fold."""
    torch.manual_seed(0)
    model = TRANSFORMERS[name]().eval()
    x = torch.randn(2, 5, 8)
    with torch.set_grad_enabled(grad):
        module = (torch.jit.trace(model, (x,), check_trace=False)
                  if route == "trace" else torch.jit.script(model))
        compiled = fx_mlir.compile(module, (x,), cache_dir="")
    if route == "trace" and not grad:
        kinds = {n.kind() for n in module.inlined_graph.nodes()}
        assert kinds & {"aten::_transformer_encoder_layer_fwd",
                        "aten::_native_multi_head_attention"}
    other = torch.randn(2, 5, 8)
    with torch.no_grad():
        expected, got = model(other), compiled(other)
    for e, g in zip(expected if isinstance(expected, tuple) else (expected,),
                    got if isinstance(got, tuple) else (got,)):
        torch.testing.assert_close(g, e)


def test_scripted_transformer():
    """A scripted nn.Transformer: the encoder's output (after an `if` on
    nested tensors and its final norm, whose type the import's run of the
    branch finds) is the decoder's memory."""
    torch.manual_seed(0)
    model = nn.Transformer(16, 2, 1, 1, 32, dropout=0.0).eval()
    src, tgt = torch.randn(5, 2, 16), torch.randn(4, 2, 16)
    compiled = fx_mlir.compile(torch.jit.script(model), (src, tgt),
                               cache_dir="")
    with torch.no_grad():
        torch.testing.assert_close(compiled(src, tgt), model(src, tgt))


class Cell(nn.Module):
    """nn.LSTMCell, nn.GRUCell or nn.RNNCell, two steps: from zeros, then
    from the state the first gave."""

    def __init__(self, kind, **options):
        super().__init__()
        self.cell = getattr(nn, kind)(6, 5, **options)

    def forward(self, x):
        state = self.cell(x)
        state = self.cell(x, state)
        return state


CELLS = {"lstm": ("LSTMCell", {}), "gru": ("GRUCell", {}),
         "rnn_tanh": ("RNNCell", {}),
         "rnn_relu": ("RNNCell", {"nonlinearity": "relu", "bias": False})}


@pytest.mark.parametrize("route", ["trace", "script"])
@pytest.mark.parametrize("name", sorted(CELLS))
def test_recurrent_cells(name, route):
    """torch.jit.script records a cell as aten::lstm_cell (gru_cell,
    rnn_tanh_cell, rnn_relu_cell), after a check of the input's rank
    (folded; the numbers it computes dropped); torch.jit.trace records
    LSTMCell and GRUCell decomposed, their gates an unsafe_chunk updated
    in place piece by piece."""
    kind, options = CELLS[name]
    torch.manual_seed(0)
    model = Cell(kind, **options).eval()
    x = torch.randn(3, 6)
    module = (torch.jit.trace(model, (x,)) if route == "trace"
              else torch.jit.script(model))
    compiled = fx_mlir.compile(module, (x,), cache_dir="")
    other = torch.randn(3, 6)
    with torch.no_grad():
        expected, got = model(other), compiled(other)
    for e, g in zip(expected if isinstance(expected, tuple) else (expected,),
                    got if isinstance(got, tuple) else (got,)):
        torch.testing.assert_close(g, e)


class Upsampled(nn.Module):
    """Scripted interpolations by a scale factor: F.interpolate's scale
    factors a loop over the input's spatial dims, unrolled when
    importing."""

    def __init__(self):
        super().__init__()
        self.up = nn.UpsamplingBilinear2d(scale_factor=2)

    def forward(self, x):
        return (self.up(x), F.interpolate(x, scale_factor=1.5,
                                          mode="bilinear"),
                F.interpolate(x, scale_factor=(2.0, 3.0), mode="nearest"))


def test_scripted_interpolation_by_scale_factor():
    torch.manual_seed(0)
    model = Upsampled().eval()
    x = torch.randn(1, 3, 4, 6)
    compiled = fx_mlir.compile(torch.jit.script(model), (x,), cache_dir="")
    other = torch.randn(1, 3, 4, 6)
    with torch.no_grad():
        for e, g in zip(model(other), compiled(other)):
            torch.testing.assert_close(g, e)


class Losses(nn.Module):
    """Modules the compiler binds by type but not with these
    hyperparameters: nn.KLDivLoss reducing by 'batchmean', nn.BatchNorm1d
    with momentum=None (a cumulative average)."""

    def __init__(self):
        super().__init__()
        self.kl = nn.KLDivLoss(reduction="batchmean", log_target=True)
        self.bn = nn.BatchNorm1d(4, momentum=None)

    def forward(self, x, y):
        return self.kl(x.log_softmax(1), y.log_softmax(1)), self.bn(x)


@pytest.mark.parametrize("route", ["fx", "script"])
def test_modules_bound_by_type_only_are_walked_into(route):
    """A torch.nn module whose hyperparameters no registry alias takes is
    traced (torch.fx) or walked (TorchScript) into, its forward's calls
    compiled, not left as a call the compiler rejects."""
    torch.manual_seed(0)
    model = Losses().eval()
    with torch.no_grad():
        model.bn.running_mean.uniform_(-1, 1)
    x, y = torch.randn(3, 4), torch.randn(3, 4)
    source = torch.jit.script(model) if route == "script" else model
    compiled = fx_mlir.compile(source, (x, y), cache_dir="")
    a, b = torch.randn(3, 4), torch.randn(3, 4)
    with torch.no_grad():
        for e, g in zip(model(a, b), compiled(a, b)):
            torch.testing.assert_close(g, e)


class NoGradLoss(nn.Module):
    """A `with torch.no_grad():` block, and nn.GaussianNLLLoss (which
    clamps its variance in one and raises on a negative variance)."""

    def __init__(self):
        super().__init__()
        self.loss = nn.GaussianNLLLoss(full=True)

    def forward(self, x, target, var):
        with torch.no_grad():
            y = x * 2
        return self.loss(y, target, var)


def test_scripted_no_grad_blocks():
    torch.manual_seed(0)
    model = NoGradLoss().eval()
    x, t, var = torch.randn(3, 4), torch.randn(3, 4), torch.rand(3, 4) + 0.1
    compiled = fx_mlir.compile(torch.jit.script(model), (x, t, var),
                               cache_dir="")
    a, b, v = torch.randn(3, 4), torch.randn(3, 4), torch.rand(3, 4) + 0.1
    with torch.no_grad():
        torch.testing.assert_close(compiled(a, b, v), model(a, b, v))
    # Eager's check of the variance is the compiled code's too.
    with pytest.raises(Exception, match="var has negative entry"):
        compiled(a, b, -v)


class Bags(nn.Module):
    """nn.EmbeddingBag over 1-D indices with offsets (or 2-D indices), with
    its options."""

    def __init__(self, two_d, per_sample, **options):
        super().__init__()
        self.bag = nn.EmbeddingBag(10, 4, **options)
        self.two_d, self.per_sample = two_d, per_sample

    def forward(self, indices, offsets, weights):
        if self.two_d:
            return self.bag(indices.view(2, -1))
        if self.per_sample:
            return self.bag(indices, offsets, per_sample_weights=weights)
        return self.bag(indices, offsets)


BAGS = {
    "sum": (False, False, dict(mode="sum")),
    "mean_padding": (False, False, dict(mode="mean", padding_idx=3)),
    "max_last_offset": (False, False, dict(mode="max",
                                           include_last_offset=True)),
    "per_sample_weights": (False, True, dict(mode="sum")),
    "two_d_mean": (True, False, dict(mode="mean")),
}


@pytest.mark.parametrize("route", ["trace", "script"])
@pytest.mark.parametrize("name", sorted(BAGS))
def test_embedding_bags(name, route):
    """TorchScript records nn.EmbeddingBag as aten::embedding_bag
    (.padding_idx), which fx-normalize expands into gathers and per-bag
    sums, means or maxima (an empty bag 0)."""
    two_d, per_sample, options = BAGS[name]
    torch.manual_seed(0)
    model = Bags(two_d, per_sample, **options).eval()
    indices = torch.tensor([1, 3, 5, 3, 9, 0, 2, 7])
    # Bag 1 is empty; with include_last_offset the last offset is the end
    # (PyTorch 1.13 aborts on an end short of the indices in mode 'max').
    offsets = torch.tensor([0, 3, 3, 8] if options.get("include_last_offset")
                           else [0, 3, 3, 6])
    weights = torch.rand(8)
    example = (indices, offsets, weights)
    module = (torch.jit.trace(model, example) if route == "trace"
              else torch.jit.script(model))
    compiled = fx_mlir.compile(module, example, cache_dir="")
    other = (torch.tensor([3, 3, 4, 8, 1, 0, 6, 2]), offsets,
             torch.rand(8))
    with torch.no_grad():
        torch.testing.assert_close(compiled(*other), model(*other))


class NumberMath(nn.Module):
    """Python's math module and builtins on numbers in scripted code, on
    numbers computed from the input as the code runs (aten::sqrt.int,
    aten::floor.float, round, abs, `%`, min/max, comparisons of floats),
    and on a static size (`math.sqrt(k.size(-1))`, folded)."""

    def forward(self, x):
        d = x.size(-1)
        n = int(x.abs().sum() > 10.0) * 2 + 1
        f = float(x.abs().mean()) + 1.5
        vals = [math.sqrt(d), math.exp(n), math.log(f), math.log10(f),
                math.log1p(f), math.expm1(0.1 * n), math.sin(f),
                math.cos(f), math.tan(f), math.tanh(f), math.asin(0.1 * n),
                math.acos(0.1 * n), math.atan(f), math.sinh(0.3 * n),
                math.cosh(0.3 * n), math.asinh(f), math.acosh(f + 1),
                math.atanh(0.1 * n), math.erf(0.2 * n), math.erfc(0.2 * n),
                math.fabs(-f), float(round(f)), float(round(-2.5 * n)),
                float(math.floor(-f)), float(math.ceil(f)), float(abs(-n)),
                abs(-f), math.copysign(2.0, -f), math.atan2(f, 2.0),
                math.fmod(-f, 1.5), (-f) % 1.5, f % -0.7,
                float(math.isnan(f)), float(math.isinf(f)), math.sqrt(n),
                float(min(n, 2)), max(f, 2.0), float(f > 2.0),
                float(f <= n), float(-f)]
        return x / math.sqrt(d), torch.tensor(vals)


def test_scripted_number_math():
    torch.manual_seed(0)
    model = NumberMath()
    compiled = fx_mlir.compile(torch.jit.script(model), (torch.randn(2, 16),),
                               cache_dir="")
    for scale in (1.0, 0.1, 3.0):
        x = torch.randn(2, 16) * scale
        expected, got = model(x), compiled(x)
        torch.testing.assert_close(got[0], expected[0])
        torch.testing.assert_close(got[1], expected[1], rtol=1e-6, atol=1e-6)


class CellLoop(nn.Module):
    """A scripted loop over time steps calling an nn.LSTMCell (its rank
    check `input.dim() not in (1, 2)`, aten::__contains__.int_list, inside
    the loop), the steps' outputs stacked batch first and concatenated
    along the features: lists a loop appended to, read along dims other
    than 0."""

    def __init__(self):
        super().__init__()
        self.cell = nn.LSTMCell(4, 6)

    def forward(self, x):
        h = torch.zeros(x.size(0), 6)
        c = torch.zeros(x.size(0), 6)
        outs = []
        for t in range(x.size(1)):
            h, c = self.cell(x[:, t], (h, c))
            outs.append(h)
        return torch.stack(outs, 1), torch.cat(outs, -1), torch.stack(outs, -1)


def test_scripted_loop_stacks_along_other_dims():
    torch.manual_seed(0)
    model = CellLoop().eval()
    compiled = fx_mlir.compile(torch.jit.script(model),
                               (torch.randn(2, 5, 4),), cache_dir="")
    x = torch.randn(2, 5, 4)
    with torch.no_grad():
        expected = model(x)
    for g, e in zip(compiled(x), expected):
        torch.testing.assert_close(g, e, rtol=1e-5, atol=1e-5)


class NumberOperands(nn.Module):
    """Python numbers and 0-d tensors as the second operand of + - * /:
    a trace records both as 0-d tensor constants (the number as a double
    one). LibTorch's executor passes them to add/sub/mul/div as numbers,
    so `int_tensor * 0.5` is float32, as in eager."""

    def __init__(self):
        super().__init__()
        self.register_buffer("mask", torch.tensor([True, False, True]))

    def forward(self, x, n):
        half = torch.tensor(0.5, dtype=torch.float64)
        return (n * 0.5, n + 1.5, n - 2.5, n / 4, x * 0.5, n * 3,
                self.mask + 2, self.mask * 0.25, n * half, x / half,
                torch.where(n > 2, n, 7), n.float() * 2)


@pytest.mark.filterwarnings("ignore::torch.jit.TracerWarning")
def test_traced_number_operands_promote_as_numbers():
    model = NumberOperands()
    x = torch.randn(2, 3)
    n = torch.arange(6, dtype=torch.int32).reshape(2, 3)
    traced = torch.jit.trace(model, (x, n))
    compiled = fx_mlir.compile(traced, (x, n), cache_dir="")
    x2, n2 = torch.randn(2, 3), torch.randint(-9, 9, (2, 3), dtype=torch.int32)
    # The reference is the traced module as LibTorch runs it (its executor
    # makes the numbers of `n * half` numbers too, where eager keeps the
    # 0-d double tensor's float64).
    for got, want in zip(compiled(x2, n2), traced(x2, n2)):
        assert got.dtype == want.dtype
        torch.testing.assert_close(got, want)
    assert compiled(x2, n2)[0].dtype == model(x2, n2)[0].dtype == torch.float32


class SliceUpdate(nn.Module):
    def forward(self, x):
        x[:, 1:3] += 1.0
        return x * 2


class FlatUpdate(nn.Module):
    def forward(self, x):
        x.view(-1).mul_(3)
        return x + 1


class TransposedUpdate(nn.Module):
    def forward(self, x):
        x.t().add_(1)
        return x * 1


class NarrowZeroed(nn.Module):
    def forward(self, x):
        x.narrow(1, 0, 2).zero_()
        return x - 1


class ColumnFilled(nn.Module):
    def forward(self, x):
        x[:, 0] = 1.0
        return x * 3


class RowsOfACopy(nn.Module):
    def forward(self, x):
        y = x * 1
        y[0].mul_(2)
        y.select(1, 2).fill_(5)
        return y


INPUT_VIEW_UPDATES = {m.__name__: m for m in (
    SliceUpdate, FlatUpdate, TransposedUpdate, NarrowZeroed, ColumnFilled,
    RowsOfACopy)}


@pytest.mark.filterwarnings("ignore::torch.jit.TracerWarning")
@pytest.mark.parametrize("route", ["trace", "script"])
@pytest.mark.parametrize("name", sorted(INPUT_VIEW_UPDATES))
def test_updates_through_views_of_inputs(name, route):
    """TorchScript records `x[:, 1:3] += 1` as aten::add_ of aten::slice
    views of the input: the import keeps them, and the graph exported from
    the IR is functionalized with the ATen views known as views, so the
    update reaches the input (and the caller's tensor, as in eager)."""
    torch.manual_seed(0)
    model = INPUT_VIEW_UPDATES[name]()
    x = torch.randn(3, 4)
    scripted = (torch.jit.trace(model, (x.clone(),)) if route == "trace"
                else torch.jit.script(model))
    compiled = fx_mlir.compile(scripted, (x.clone(),), cache_dir="")
    a, b = x + 0.5, x + 0.5
    torch.testing.assert_close(compiled(a), model(b))
    torch.testing.assert_close(a, b)


def test_traced_fill_of_a_diagonal_is_refused():
    """A write through a view the functionalization cannot invert (a
    diagonal) is an error, not a write to a copy."""
    class DiagonalFill(nn.Module):
        def forward(self, x):
            y = x * 1
            y.diagonal().fill_(7.0)
            return y

    x = torch.randn(3, 3)
    with pytest.raises(fx_mlir.FxMlirError, match="diagonal"):
        fx_mlir.compile(torch.jit.trace(DiagonalFill(), (x,)), (x,),
                        cache_dir="")


class AliasesOfAnUpdate(nn.Module):
    """Views of a tensor taken before it is updated in place, read after:
    eager's aliases see the update."""

    def forward(self, x):
        y = x * 1
        flat, row, cols = y.view(-1), y[0], y.t()
        corner = cols[1:, :2]
        y.add_(1)
        x.mul_(2)
        return flat * 1, row + 0, cols * 1, corner * 1, x[1] + 0


@pytest.mark.filterwarnings("ignore::torch.jit.TracerWarning")
@pytest.mark.parametrize("route", ["fx", "trace", "script"])
def test_views_taken_before_an_update_see_it(route):
    model = AliasesOfAnUpdate()
    x = torch.randn(3, 4)
    scripted = {"fx": lambda: model,
                "trace": lambda: torch.jit.trace(model, (x.clone(),)),
                "script": lambda: torch.jit.script(model)}[route]()
    compiled = fx_mlir.compile(scripted, (x.clone(),), cache_dir="")
    a, b = x + 0.5, x + 0.5
    for got, want in zip(compiled(a), model(b)):
        torch.testing.assert_close(got, want)
    torch.testing.assert_close(a, b)


class ShapeLists(nn.Module):
    """Scripted list arithmetic on static sizes and a split's parts:
    `list(x.shape)`, `len`, a slice of negative step."""

    def forward(self, x, y):
        s = list(x.shape)
        parts = y.split(2, 1)[::-1]
        every_other = s[::-2]
        return (x.reshape(s[0], -1) * len(s), torch.cat(parts, 1) + len(parts),
                x.sum() * every_other[0] + every_other[-1])


def test_scripted_list_copies_and_slices():
    model = ShapeLists()
    x, y = torch.randn(2, 3, 4), torch.randn(2, 6)
    compiled = fx_mlir.compile(torch.jit.script(model), (x, y), cache_dir="")
    x, y = torch.randn(2, 3, 4), torch.randn(2, 6)
    for got, want in zip(compiled(x, y), model(x, y)):
        torch.testing.assert_close(got, want)
