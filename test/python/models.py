"""The modules test_roundtrip.py sends through import -> fx-opt -> export.

`MODELS` is a list of `Case`s. Each case builds its module (eval mode unless
the case says otherwise) and its example inputs; `Case.make_model()` and
`Case.make_inputs(seed)` seed torch first, so every call gives the same
module and, for one seed, the same inputs; `Case.trace` makes the
GraphModule (torch.fx.symbolic_trace; make_fx for the aten-level case).
Between them the cases cover every FX node kind and every arg form the fx
dialect holds, module state of every kind and dtype, leaf modules whose
constructors need derived arguments, two torchvision models and two
transformer blocks.
"""

import math
from dataclasses import dataclass, field
from typing import Callable, Optional, Tuple

import torch
import torch.fx
import torch.nn as nn
import torch.nn.functional as F
import torchvision


@dataclass(frozen=True)
class Case:
    """One module to round trip. `model` builds it (called after
    torch.manual_seed(0)); `inputs` builds its example inputs (called after
    torch.manual_seed(seed)); `trace` makes the GraphModule of the model
    (symbolic_trace unless the model is one already). `xfail` is a reason
    the export cannot be lossless, or None."""
    name: str
    model: Callable[[], nn.Module]
    inputs: Callable[[], Tuple]
    trace: Callable[[nn.Module], torch.fx.GraphModule] = field(
        default=torch.fx.symbolic_trace)
    xfail: Optional[str] = None

    def make_model(self):
        torch.manual_seed(0)
        return self.model()

    def make_inputs(self, seed=0):
        torch.manual_seed(seed)
        return self.inputs()


def _unicode_names():
    """Submodules and a buffer named by non-ASCII Python identifiers."""
    class Unicode(nn.Module):
        def __init__(self):
            super().__init__()
            setattr(self, "ß", nn.Linear(3, 3))
            self.register_buffer("é", torch.ones(3))

        def forward(self, x):
            return getattr(self, "ß")(x) * getattr(self, "é")
    return Unicode()


def _frozen(model):
    """`model` with its first layer frozen (requires_grad=False), as in
    fine-tuning: the round trip keeps which parameters train."""
    for p in model[0].parameters():
        p.requires_grad_(False)
    return model


def randn(*shape):
    return lambda: (torch.randn(*shape),)


# --- A function FX keeps as a call: torch.fx.wrap at module level. --------

def scaled_residual(x, y, alpha=0.5):
    """Called, not traced through: FX records one call_function node."""
    if x.dim() != y.dim():  # control flow on values FX cannot trace
        raise ValueError("rank mismatch")
    return x + alpha * y


torch.fx.wrap("scaled_residual")


def pick(tensors, key=0):
    """Wrapped too: takes a dict with an int and a str key."""
    return tensors[key]


torch.fx.wrap("pick")


# --- Node kinds, arg forms, outputs. --------------------------------------

class LinearRelu(nn.Module):
    """call_module and call_function: the smallest useful graph."""

    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(5, 5)

    def forward(self, x):
        return torch.relu(self.linear(x))


class PlaceholderDefaults(nn.Module):
    """Placeholders with default values: None, a tuple, -0.0, inf, and a
    string that needs escaping (returned, so the output holds it)."""

    def forward(self, x, scale=0.5, shift=-1, bias=None,
                mode="it's \"q\"\\\n\té", dims=(0, 1), zero=-0.0,
                limit=float("inf")):
        return x * scale + shift, mode, x.sum(dim=dims) + zero, limit


class MethodChain(nn.Module):
    """call_method chains, in-place methods, methods with kwargs."""

    def forward(self, x):
        y = x.transpose(0, 1).contiguous().view(-1).mul(2.5).add_(1e-05)
        z = x.permute(1, 0).flatten().unsqueeze(0).expand(2, -1)
        return y.clamp(min=-1.0).sum(dim=0, keepdim=True), z.mean(1)


class CatAndStack(nn.Module):
    """torch.cat of a list (a node twice), torch.stack of a tuple."""

    def forward(self, x, y):
        c = torch.cat([x, y, x], dim=1)
        s = torch.stack((x, x * 2), dim=0)
        return c, s, torch.cat((c, c), -1)


class SplitChunkGetitem(nn.Module):
    """getitem on the tuples torch.split, torch.chunk and unbind return."""

    def forward(self, x):
        split = torch.split(x, 2, dim=1)
        parts = x.chunk(3, dim=1)
        rows = torch.unbind(x, 0)
        return (split[0] + parts[1], split[1] * split[2],
                rows[0] - parts[-1][:, 0])


class MaxWithDim(nn.Module):
    """max/min/topk with dim return (values, indices) tuples."""

    def forward(self, x):
        mx = torch.max(x, dim=1)
        mn = x.min(dim=-1, keepdim=True)
        top = torch.topk(x, 2, dim=1)
        return mx[0], mx[1], mn[0], mn.indices, top.values + top[0]


class KwargsAndNone(nn.Module):
    """Kwargs, None args and None kwargs."""

    def forward(self, x):
        y = torch.clamp(x, min=None, max=0.5)
        z = F.layer_norm(x, (x.shape[-1],), weight=None, bias=None, eps=1e-3)
        s = torch.sum(y, dim=(0, 1), keepdim=True)
        return (F.softmax(z, dim=-1, dtype=torch.float64), s,
                torch.nan_to_num(y, nan=0.0, posinf=None))


class Slicing(nn.Module):
    """Slices with and without bounds, Ellipsis, None, negative indices."""

    def forward(self, x):
        a = x[:, 1:3]
        b = x[..., 0]
        c = x[None]
        d = x[:, None, ::2]
        e = x[1:, -1]
        f = x[:, : x.size(1) - 1]
        return a, b, c, d, e, f


class SizesInView(nn.Module):
    """x.size(0), x.shape, x.shape[1] and x.T feeding view/reshape."""

    def forward(self, x):
        n = x.size(0)
        flat = x.view(n, -1)
        shape = x.shape
        again = flat.reshape(shape[0], x.shape[1], shape[2])
        grid = x.reshape(x.size()).new_zeros(x.shape[1:])
        return (again + 1, flat.T, grid,
                x.view(x.size(0), x.size(1) * x.size(2)))


class OperatorScalars(nn.Module):
    """operator.* with scalars on either side; NaNs in the output."""

    def forward(self, x):
        y = 2 * x + 1
        y = y - 0.5
        y = y / 3
        y = 1.0 - y ** 2
        z = -y % 0.75
        w = (x * math.pi) // 2
        return torch.sqrt(y), torch.log(x), z, w, x.abs(), x > 0.25, ~(x > 0)


class ScalarOutputs(nn.Module):
    """int, float and bool outputs computed by nodes, and literal constants
    in the output."""

    def forward(self, x):
        n = x.size(0)
        half = x.shape[1] * 0.5
        is_wide = x.size(1) > x.size(0)
        return x * half, n, half, is_wide, 3, 2.5, True, None


class NestedOutputs(nn.Module):
    """Outputs nested as tuple, list and dict (str and int keys)."""

    def forward(self, x):
        a = x + 1
        b = x * 2
        return {"pair": (a, b), "list": [a, [b, (x,)]], 0: b, "none": None}


class WrappedFunction(nn.Module):
    """A torch.fx.wrap'ed module-level function with positional and keyword
    args."""

    def forward(self, x, y):
        z = scaled_residual(x, y, alpha=0.25) + scaled_residual(y, x)
        return pick({0: z, "y": y}, key="y") + pick({0: z, "y": y})


class DeadCodeAndInplace(nn.Module):
    """Nodes without users stay in the graph; in-place ops and a function
    call with inplace=True."""

    def forward(self, x):
        x * 2  # a node without users: FX keeps it
        y = x.clone()
        y.add_(1)
        y = F.relu(y, inplace=True)
        return y.mul_(0.5)


class WhereAndMasks(nn.Module):
    """Bool masks, torch.where, masked_fill, and matmul via `@`."""

    def forward(self, x, y):
        mask = (x > 0) & (y < 0.5)
        z = torch.where(mask, x, torch.zeros_like(x))
        z = z.masked_fill(~mask, -1.0)
        return z @ y.transpose(-2, -1), mask.any(dim=1)


class SpecialScalars(nn.Module):
    """Float and int args at the edges: +-inf, nan, -0.0, 1e300, 1e-300,
    the int64 extremes, an einsum equation string."""

    def forward(self, x):
        a = torch.clamp(x, min=float("-inf"), max=float("inf"))
        b = x.masked_fill(x > 0, float("-inf"))
        c = torch.nan_to_num(x * float("nan"), nan=-0.0, posinf=1e300,
                             neginf=-1e-300)
        d = torch.full((2,), -9223372036854775808, dtype=torch.int64)
        e = torch.full((2,), 9223372036854775807, dtype=torch.int64)
        return a, b, c, d, e, torch.einsum("ij,kj->ik", x, x)


class SpecialArgValues(nn.Module):
    """torch.Size, torch.device, memory_format, layout, dtype and complex
    args."""

    def forward(self, x):
        z = torch.zeros(torch.Size([2, 3]), dtype=torch.float32,
                        layout=torch.strided, device=torch.device("cpu"))
        cl = x.contiguous(memory_format=torch.channels_last)
        c = x.to(torch.complex64) * complex(1.0, -2.0)
        return z, cl, c, torch.ones(2, 3).to(device="cpu")


# --- State: parameters, buffers, constants, tied weights. -----------------

class TiedWeights(nn.Module):
    """A weight shared by two Linears (encoder/decoder tying)."""

    def __init__(self):
        super().__init__()
        self.encoder = nn.Linear(4, 4)
        self.decoder = nn.Linear(4, 4)
        self.decoder.weight = self.encoder.weight

    def forward(self, x):
        return self.decoder(torch.tanh(self.encoder(x)))


class EmbeddingTiedHead(nn.Module):
    """An embedding whose weight the output head reads by get_attr, an int
    input, and a padding index."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(10, 6, padding_idx=0)
        self.norm = nn.LayerNorm(6)

    def forward(self, tokens):
        h = self.norm(self.embed(tokens))
        return F.linear(h, self.embed.weight)


class NestedSubmodules(nn.Module):
    """Sequential in Sequential, ModuleList and ModuleDict."""

    def __init__(self):
        super().__init__()
        self.blocks = nn.Sequential(
            nn.Sequential(nn.Linear(4, 8), nn.ReLU()),
            nn.Sequential(nn.Linear(8, 4), nn.Tanh()))
        self.layers = nn.ModuleList([nn.Linear(4, 4) for _ in range(3)])
        self.heads = nn.ModuleDict({"a": nn.Linear(4, 2),
                                    "b-2": nn.Linear(4, 3)})

    def forward(self, x):
        x = self.blocks(x)
        for layer in self.layers:
            x = x + layer(x)
        return {k: head(x) for k, head in self.heads.items()}


class SharedModule(nn.Module):
    """One Linear called twice and reachable under two names."""

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)
        self.alias = self.proj

    def forward(self, x):
        return self.alias(self.proj(x))


def _with_statistics(model, *shape, steps=3):
    """Runs `model` in training mode on random batches so that BatchNorm
    running statistics are not their initial values; returns it in eval
    mode."""
    model.train()
    with torch.no_grad():
        for _ in range(steps):
            model(torch.randn(*shape))
    return model.eval()


class Buffers(nn.Module):
    """BatchNorm running statistics and a register_buffer'd tensor, both
    read by the graph (the buffer by get_attr)."""

    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm1d(4)
        self.register_buffer("offset", torch.arange(4, dtype=torch.float32))
        self.register_buffer("steps", torch.tensor(7))

    def forward(self, x):
        return self.bn(x) + self.offset * self.steps


class StateDtypes(nn.Module):
    """Buffers of every real dtype the fx dialect stores (bool, float16,
    bfloat16, float64, uint8, int8, int16, int32) and an empty one, all
    read by get_attr nodes."""

    def __init__(self):
        super().__init__()
        self.register_buffer("mask", torch.tensor([True, False, True]))
        self.register_buffer("h16", torch.randn(3).half())
        self.register_buffer("bf16", torch.randn(3).bfloat16())
        self.register_buffer("f64", torch.randn(3, dtype=torch.float64))
        self.register_buffer("u8", torch.tensor([1, 255, 7],
                                                dtype=torch.uint8))
        self.register_buffer("i8", torch.tensor([-1, 100, -128],
                                                dtype=torch.int8))
        self.register_buffer("i16", torch.tensor([-300, 2, 3],
                                                 dtype=torch.int16))
        self.register_buffer("i32", torch.tensor([70000, -2, 3],
                                                 dtype=torch.int32))
        self.register_buffer("empty", torch.zeros(0, 3))

    def forward(self, x):
        y = x * self.mask + self.h16 + self.bf16 + self.f64
        z = x + self.u8 + self.i8 + self.i16 + self.i32
        return y, z, torch.cat([self.empty, x[None]])


class ComplexState(nn.Module):
    """A complex64 parameter and a complex128 buffer."""

    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(3, dtype=torch.complex64))
        self.register_buffer("phase", torch.randn(3, dtype=torch.complex128))

    def forward(self, x):
        return (x * self.weight).to(torch.complex128) * self.phase


class ConstantsAndParameters(nn.Module):
    """get_attr of a plain tensor attribute, of a tensor made during tracing
    (`_tensor_constant0`) and of a parameter used directly."""

    def __init__(self):
        super().__init__()
        self.table = torch.linspace(-1, 1, 3)  # a plain attribute
        self.scale = nn.Parameter(torch.full((3,), 1.5))

    def forward(self, x):
        y = x * self.scale + self.table
        return y + torch.tensor([1.0, 2.0, 3.0]), self.scale.sum()


class DtypeConversions(nn.Module):
    """.to(dtype), dtype kwargs, integer and float64 arithmetic."""

    def forward(self, x):
        d = x.to(torch.float64) * 2
        i = torch.zeros(3, dtype=torch.int64) + x.argmax(dim=1)
        r = torch.arange(0, 6, 2, dtype=torch.int32)
        h = x.half().float()
        return d, i, r.long(), h, x.type(torch.int16), x.bool().int()


# --- torch.nn.functional and leaf modules with their hyperparameters. -----

class FunctionalKwargs(nn.Module):
    """F.conv2d with stride/padding, F.layer_norm, F.gelu(approximate),
    F.interpolate in two modes, F.max_pool2d."""

    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(4, 3, 3, 3) * 0.1)
        self.bias = nn.Parameter(torch.randn(4))
        self.ln_weight = nn.Parameter(torch.rand(4) + 0.5)

    def forward(self, x):
        y = F.conv2d(x, self.weight, self.bias, stride=2, padding=1)
        y = F.layer_norm(y.permute(0, 2, 3, 1), (4,), weight=self.ln_weight,
                         eps=1e-6).permute(0, 3, 1, 2)
        y = F.gelu(y, approximate="tanh")
        up = F.interpolate(y, scale_factor=2, mode="nearest")
        bl = F.interpolate(y, size=(6, 6), mode="bilinear",
                           align_corners=False)
        return up, bl, F.max_pool2d(up, kernel_size=2, stride=2)


class Dropouts(nn.Module):
    """nn.Dropout, nn.Dropout2d and F.dropout(training=self.training) in
    eval mode: the identity, deterministically."""

    def __init__(self):
        super().__init__()
        self.drop = nn.Dropout(0.5)
        self.drop2d = nn.Dropout2d(p=0.3)

    def forward(self, x):
        y = F.dropout(x, p=0.2, training=self.training)
        return self.drop2d(self.drop(y))


class BatchNormTraining(nn.Module):
    """Left in training mode: BatchNorm normalizes with the batch's
    statistics (deterministic) and updates its running statistics."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4, momentum=0.2)

    def forward(self, x):
        return torch.relu(self.bn(self.conv(x)))


class ConvBlock(nn.Module):
    """Conv2d without bias, BatchNorm2d, ReLU(inplace), pooling, Flatten."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, stride=2, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(8, eps=1e-3)
        self.relu = nn.ReLU(inplace=True)
        self.pool = nn.MaxPool2d(2, ceil_mode=True)
        self.gap = nn.AdaptiveAvgPool2d((1, 1))
        self.flatten = nn.Flatten(1)

    def forward(self, x):
        x = self.pool(self.relu(self.bn(self.conv(x))))
        return self.flatten(self.gap(x))


class LeafZoo(nn.Module):
    """Leaf modules with varied hyperparameters: string padding, groups,
    output_padding, affine flags, float scale factors."""

    def __init__(self):
        super().__init__()
        self.conv1d = nn.Conv1d(4, 4, 3, padding="same", groups=2,
                                padding_mode="reflect")
        self.deconv = nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1,
                                         output_padding=1)
        self.gn = nn.GroupNorm(2, 4, affine=False)
        self.inorm = nn.InstanceNorm2d(2, affine=True)
        self.up = nn.Upsample(scale_factor=1.5, mode="bilinear",
                              align_corners=True)
        self.avg = nn.AvgPool2d(3, stride=1, padding=1,
                                count_include_pad=False)
        self.act = nn.LeakyReLU(0.1)
        self.softmax = nn.Softmax(dim=1)
        self.shuffle = nn.PixelShuffle(1)

    def forward(self, x):
        s = self.conv1d(x.flatten(2))
        y = self.gn(s.view(x.shape))
        y = self.inorm(self.deconv(y))
        y = self.avg(self.act(self.up(y)))
        return self.softmax(y), self.shuffle(y)


class Recurrent(nn.Module):
    """nn.LSTM (a leaf whose constructor takes *args) and nn.GRU, with
    their (output, state) tuples unpacked by getitem."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(4, 6, num_layers=2, batch_first=True,
                            bidirectional=True)
        self.gru = nn.GRU(12, 3, bias=False)

    def forward(self, x):
        out = self.lstm(x)
        state = out[1]
        gru = self.gru(out[0])
        return gru[0], state[0][-1] + state[1][0], gru[1]


class MultiheadAttentionOptions(nn.Module):
    """nn.MultiheadAttention with constructor arguments it does not keep as
    attributes of their own (bias, add_bias_kv) and differing kdim/vdim."""

    def __init__(self):
        super().__init__()
        self.attn = nn.MultiheadAttention(8, 2, bias=False, add_bias_kv=True,
                                          kdim=6, vdim=5, batch_first=True)

    def forward(self, q, k, v):
        out = self.attn(q, k, v, need_weights=True)
        return out[0], out[1]


# --- Transformers and torchvision. ----------------------------------------

class EncoderBlock(nn.Module):
    """A pre-norm transformer encoder block written out: self-attention
    (nn.MultiheadAttention, batch first), a GELU MLP, dropouts."""

    def __init__(self, d_model=32, nhead=4, ff=64, p=0.1):
        super().__init__()
        self.norm1 = nn.LayerNorm(d_model)
        self.attn = nn.MultiheadAttention(d_model, nhead, dropout=p,
                                          batch_first=True)
        self.drop1 = nn.Dropout(p)
        self.norm2 = nn.LayerNorm(d_model, eps=1e-6)
        self.fc1 = nn.Linear(d_model, ff)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(ff, d_model)
        self.drop2 = nn.Dropout(p)

    def forward(self, x, key_padding_mask=None):
        h = self.norm1(x)
        a = self.attn(h, h, h, key_padding_mask=key_padding_mask,
                      need_weights=False)
        x = x + self.drop1(a[0])
        h = self.fc2(F.dropout(self.act(self.fc1(self.norm2(x))), p=0.1,
                               training=self.training))
        return x + self.drop2(h)


class TorchEncoderLayers(nn.Module):
    """torch.nn.TransformerEncoderLayer as leaf call_modules: pre-norm with
    activation="gelu", and post-norm with an nn.GELU module (a child
    submodule of the leaf)."""

    def __init__(self):
        super().__init__()
        self.layer = nn.TransformerEncoderLayer(
            32, 4, dim_feedforward=64, dropout=0.1, activation="gelu",
            layer_norm_eps=1e-6, batch_first=True, norm_first=True)
        self.post_norm = nn.TransformerEncoderLayer(
            32, 4, dim_feedforward=48, activation=nn.GELU(),
            batch_first=True)

    def forward(self, x):
        return self.post_norm(self.layer(x))


class AtenLevel(nn.Module):
    """Traced by make_fx: call_function targets are aten operator overloads
    (`aten::addmm.default`), weights are `_param_constant`s."""

    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(3, 4)
        self.register_buffer("shift", torch.ones(4))

    def forward(self, x):
        y = F.gelu(self.linear(x)) + self.shift
        return y, torch.tensor([1.0, 2.0, 3.0, 4.0]) * x.sum()


def _make_fx(model):
    from torch.fx.experimental.proxy_tensor import make_fx
    torch.manual_seed(0)
    return make_fx(model)(torch.randn(2, 3))


def _bn_model(cls, *shape):
    return lambda: _with_statistics(cls(), *shape)


MODELS = [
    Case("linear_relu", lambda: LinearRelu().eval(), randn(2, 5)),
    Case("placeholder_defaults", lambda: PlaceholderDefaults().eval(),
         randn(2, 3)),
    Case("method_chain", lambda: MethodChain().eval(), randn(2, 3)),
    Case("cat_and_stack", lambda: CatAndStack().eval(),
         lambda: (torch.randn(2, 3), torch.randn(2, 4))),
    Case("split_chunk_getitem", lambda: SplitChunkGetitem().eval(),
         randn(6, 6)),
    Case("max_with_dim", lambda: MaxWithDim().eval(), randn(3, 5)),
    Case("kwargs_and_none", lambda: KwargsAndNone().eval(), randn(2, 3, 4)),
    Case("slicing", lambda: Slicing().eval(), randn(3, 4, 5)),
    Case("sizes_in_view", lambda: SizesInView().eval(), randn(2, 3, 4)),
    Case("operator_scalars", lambda: OperatorScalars().eval(), randn(3, 4)),
    Case("scalar_outputs", lambda: ScalarOutputs().eval(), randn(2, 3)),
    Case("nested_outputs", lambda: NestedOutputs().eval(), randn(2, 2)),
    Case("wrapped_function", lambda: WrappedFunction().eval(),
         lambda: (torch.randn(2, 3), torch.randn(2, 3))),
    Case("dead_code_and_inplace", lambda: DeadCodeAndInplace().eval(),
         randn(2, 3)),
    Case("where_and_masks", lambda: WhereAndMasks().eval(),
         lambda: (torch.randn(3, 4), torch.rand(3, 4))),
    Case("special_scalars", lambda: SpecialScalars().eval(), randn(3, 4)),
    Case("special_arg_values", lambda: SpecialArgValues().eval(),
         randn(1, 3, 2, 2)),
    Case("tied_weights", lambda: TiedWeights().eval(), randn(3, 4)),
    Case("embedding_tied_head", lambda: EmbeddingTiedHead().eval(),
         lambda: (torch.randint(0, 10, (2, 5)),)),
    Case("nested_submodules", lambda: NestedSubmodules().eval(), randn(2, 4)),
    Case("sequential_root",
         lambda: nn.Sequential(nn.Linear(4, 8), nn.ReLU(),
                               nn.Sequential(nn.Linear(8, 2))).eval(),
         randn(3, 4)),
    Case("shared_module", lambda: SharedModule().eval(), randn(2, 4)),
    Case("buffers", _bn_model(Buffers, 8, 4), randn(3, 4)),
    Case("state_dtypes", lambda: StateDtypes().eval(), randn(3)),
    Case("complex_state", lambda: ComplexState().eval(), randn(3)),
    Case("constants_and_parameters", lambda: ConstantsAndParameters().eval(),
         randn(2, 3)),
    Case("unicode_names", lambda: _unicode_names().eval(), randn(2, 3)),
    Case("frozen_parameters", lambda: _frozen(nn.Sequential(
        nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2)).eval()), randn(2, 3)),
    Case("dtype_conversions", lambda: DtypeConversions().eval(), randn(3, 4)),
    Case("functional_kwargs", lambda: FunctionalKwargs().eval(),
         randn(1, 3, 6, 6)),
    Case("dropouts", lambda: Dropouts().eval(), randn(2, 3, 4, 4)),
    Case("batchnorm_training", lambda: BatchNormTraining().train(),
         randn(4, 3, 5, 5)),
    Case("conv_block", _bn_model(ConvBlock, 4, 3, 16, 16),
         randn(2, 3, 16, 16)),
    Case("leaf_zoo", lambda: LeafZoo().eval(), randn(2, 4, 3, 3)),
    Case("recurrent", lambda: Recurrent().eval(), randn(2, 5, 4)),
    Case("multihead_attention_options",
         lambda: MultiheadAttentionOptions().eval(),
         lambda: (torch.randn(2, 3, 8), torch.randn(2, 4, 6),
                  torch.randn(2, 4, 5))),
    Case("encoder_block", lambda: EncoderBlock().eval(), randn(2, 8, 32)),
    Case("torch_encoder_layer", lambda: TorchEncoderLayers().eval(),
         randn(2, 8, 32)),
    Case("make_fx_aten", lambda: AtenLevel().eval(), randn(2, 3),
         trace=_make_fx),
    Case("resnet18",
         lambda: torchvision.models.resnet18(weights=None).eval(),
         randn(1, 3, 64, 64)),
    Case("mobilenet_v2",
         lambda: torchvision.models.mobilenet_v2(weights=None).eval(),
         randn(1, 3, 64, 64)),
]

assert len({case.name for case in MODELS}) == len(MODELS)


def randomize_norms(model, seed=0, scale=0.1):
    """Random running statistics and affine parameters for every BatchNorm
    (and affine parameters for LayerNorm), so that folding them is not the
    identity and outputs are not degenerate (mobilenet_v2's default
    initialization gives outputs of ~1e-9). `scale` scales the running
    means and the biases. Returns `model`."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.modules.batchnorm._BatchNorm):
                n = m.num_features
                m.running_mean.copy_(torch.randn(n, generator=g) * scale)
                m.running_var.copy_(torch.rand(n, generator=g) + 0.5)
            if isinstance(m, (nn.modules.batchnorm._BatchNorm, nn.LayerNorm)):
                m.weight.copy_(torch.rand(m.weight.shape, generator=g) + 0.5)
                m.bias.copy_(torch.randn(m.bias.shape, generator=g) * scale)
    return model
