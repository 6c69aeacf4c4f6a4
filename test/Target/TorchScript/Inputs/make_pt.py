"""Writes the TorchScript archives the importer tests read, into argv[1]:
traced and scripted modules, torchvision models, and archives the importer
must reject. Run by lit at test time (nothing binary is checked in)."""

import os
from collections import OrderedDict
import warnings
import sys
from typing import List, Optional

import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision

OUT = sys.argv[1]
WHICH = set(sys.argv[2:])
os.makedirs(OUT, exist_ok=True)
torch.manual_seed(0)


def save(name, module):
    if not WHICH or name in WHICH:
        module.save(os.path.join(OUT, name + ".pt"))


class Block(nn.Module):
    """Leaf modules, a container, tied weights, split, size/view, slicing,
    a dtype argument and nested tuple outputs."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.seq = nn.Sequential(nn.ReLU(), nn.Linear(8, 8))
        self.fc = nn.Linear(8, 8)
        self.fc.weight = self.seq[1].weight

    def forward(self, x):
        y = self.bn(self.conv(x))
        a, b = torch.split(y, 2, dim=1)
        z = self.seq(y) + self.fc(y)
        values, indices = torch.max(z, dim=-1)
        return z.view(x.size(0), -1), (a, b[:, 1:2]), values.to(torch.float64), indices


class Inner(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        if x.sum() > 0:
            return self.lin(x)
        return x


class ControlFlow(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = Inner()

    def forward(self, x):
        return self.inner(x) * 2


@torch.jit.script
class Holder:
    def __init__(self, v: int):
        self.v = v

    def get(self) -> int:
        return self.v


class CustomClass(nn.Module):
    def __init__(self):
        super().__init__()
        self.holder = Holder(3)

    def forward(self, x):
        return x + self.holder.get()


class Scripted(nn.Module):
    """torch.jit.script without control flow in forward."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        return torch.relu(self.lin(x)).sum(dim=-1, keepdim=True)


class Refined(nn.Module):
    """An Optional refined by `is not None` and an isinstance assert:
    TorchScript's prim::unchecked_cast, a cast of the same value."""

    def __init__(self):
        super().__init__()
        self.scale: Optional[torch.Tensor] = torch.tensor(2.0)

    def forward(self, x):
        scale = self.scale
        y = x * 3
        assert isinstance(y, torch.Tensor)
        if scale is not None:
            return y * scale
        return y


class Formatted(nn.Module):
    """torch._assert with an f-string message: aten::format, a vararg
    operator, which the importer runs on the example inputs."""

    def forward(self, x):
        torch._assert(bool(x.isfinite().all()),
                      f"expected finite values of shape {x.shape}")
        return x * 2


def _doubled(x: torch.Tensor) -> torch.Tensor:
    return x * 2


def _doubled_plus(x: torch.Tensor, y: float) -> torch.Tensor:
    return _doubled(x) + y


class CallsFunctions(nn.Module):
    """Calls of free functions (prim::CallFunction), one calling
    another."""

    def forward(self, x):
        return _doubled_plus(torch.relu(x), 1.5)


class EncoderBlock(nn.Module):
    def __init__(self, d=32, heads=4, ffn=64):
        super().__init__()
        self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.norm1 = nn.LayerNorm(d)
        self.ff1 = nn.Linear(d, ffn)
        self.ff2 = nn.Linear(ffn, d)
        self.norm2 = nn.LayerNorm(d)

    def forward(self, x):
        a, _ = self.attn(x, x, x, need_weights=False)
        x = self.norm1(x + a)
        return self.norm2(x + self.ff2(F.gelu(self.ff1(x))))


def trace(module, *inputs):
    return torch.jit.trace(module.eval(), inputs, check_trace=False)


class Loops(nn.Module):
    """Control flow of every kind TorchScript has: a for loop over a size
    carrying a tuple, a while loop, a for loop that breaks (TorchScript's
    while loop with its own counter), an if inside a loop, an early
    return, and a raise."""

    def __init__(self):
        super().__init__()
        self.cell = nn.Linear(4, 4)

    def forward(self, x):
        # A check of the data (a check of the shape is decided when
        # importing).
        if int(x.isnan().sum()) > 0:
            raise ValueError("expected no NaN")
        h = torch.zeros(x.size(1))
        c = torch.zeros(x.size(1))
        for i in range(x.size(0)):
            h, c = torch.tanh(self.cell(x[i]) + h), c + h
            if bool(h.sum() > 0):
                c = c * 0.5
        y = h
        while bool(y.abs().max() > 0.1):
            y = y * 0.5
        for j in range(10):
            if j == 3:
                break
            y = y + 1
        if bool(c.sum() > 100):
            return y
        return y + c


class Grows(nn.Module):
    """A sequence grown by torch.cat: its carried length is dynamic."""

    def forward(self, x):
        seq = x[:1]
        for i in range(x.size(0) - 1):
            seq = torch.cat([seq, seq[-1:] + x[i + 1:i + 2]], 0)
        return seq


class Collect(nn.Module):
    """A list of tensors appended to in a loop and stacked after it."""

    def forward(self, x):
        outs: List[torch.Tensor] = []
        for i in range(x.size(0)):
            outs.append(torch.relu(x[i]))
        return torch.stack(outs), len(outs)


class RankChange(nn.Module):
    """A carried value whose rank changes: not representable."""

    def forward(self, x):
        for i in range(3):
            x = x.unsqueeze(0)
        return x


save("block", trace(Block(), torch.randn(2, 3, 8, 8)))
save("loops", torch.jit.script(Loops()))
save("grows", torch.jit.script(Grows()))
save("rank_change", torch.jit.script(RankChange()))
save("collect", torch.jit.script(Collect()))
save("control_flow", torch.jit.script(ControlFlow()))
save("custom_class", torch.jit.script(CustomClass()))
save("scripted", torch.jit.script(Scripted().eval()))
save("refined", torch.jit.script(Refined().eval()))
save("formatted", torch.jit.script(Formatted().eval()))
save("calls_functions", torch.jit.script(CallsFunctions().eval()))
save("encoder", trace(EncoderBlock(), torch.randn(2, 8, 32)))
save("resnet18", trace(torchvision.models.resnet18(), torch.randn(1, 3, 64, 64)))
save("mobilenet_v2",
     trace(torchvision.models.mobilenet_v2(), torch.randn(1, 3, 64, 64)))

if not WHICH or "bad" in WHICH:
    # Archives the importer must reject with a one-line error.
    with open(os.path.join(OUT, "block.pt"), "rb") as f:
        data = f.read()
    with open(os.path.join(OUT, "truncated.pt"), "wb") as f:
        f.write(data[: len(data) // 2])
    with open(os.path.join(OUT, "not_an_archive.pt"), "w") as f:
        f.write("def forward(self, x):\n    return x\n")
    corrupt = bytearray(data)  # the zip's central directory overwritten
    corrupt[-200:] = b"\xff" * 200
    with open(os.path.join(OUT, "corrupt.pt"), "wb") as f:
        f.write(bytes(corrupt))

    # Storages that do not hold what the tensors' sizes need: the first
    # data record emptied, or cut to 3 bytes (the zip itself is valid).
    import zipfile

    def rewrite_storage(name, keep):
        source = os.path.join(OUT, "block.pt")
        with zipfile.ZipFile(source) as zin, zipfile.ZipFile(
                os.path.join(OUT, name), "w", zipfile.ZIP_STORED) as zout:
            for item in zin.infolist():
                payload = zin.read(item.filename)
                if item.filename.endswith("/data/0"):
                    payload = payload[:keep if keep >= 0 else
                                      len(payload) + keep]
                zout.writestr(item, payload)

    rewrite_storage("empty_storage.pt", 0)
    rewrite_storage("short_storage.pt", 3)
    # 4 bytes short: within malloc's rounding of the allocation, so only
    # the bytes the reader wrote tell.
    rewrite_storage("nearly_full_storage.pt", -4)

    # constants.pkl growing the unpickler's memo to index 2^31 - 1
    # (PROTO 2, EMPTY_TUPLE, LONG_BINPUT, STOP).
    source = os.path.join(OUT, "block.pt")
    with zipfile.ZipFile(source) as zin, zipfile.ZipFile(
            os.path.join(OUT, "memo_index.pt"), "w", zipfile.ZIP_STORED) as zout:
        for item in zin.infolist():
            payload = zin.read(item.filename)
            if item.filename.endswith("/constants.pkl"):
                payload = b"\x80\x02)r\xff\xff\xff\x7f."
            zout.writestr(item, payload)


class QuantizedNet(nn.Module):
    """Made quantized by FX graph-mode quantization, then traced: quantized
    conv (per-channel weights) and linear modules whose weights are packed
    params, quantize_per_tensor with tensor qparams, quantized::add."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)
        self.fc = nn.Linear(4 * 6 * 6, 5)

    def forward(self, x):
        y = torch.relu(self.conv(x))
        return self.fc(torch.flatten(y + y, 1))


class QuantizedFunctional(nn.Module):
    """F.conv2d (grouped, strided), F.conv1d and F.linear on the model's
    own weights: convert_fx makes them quantized operators on packed
    weights module attributes hold (it packs a conv's only with its
    stride, padding, dilation and groups positional, as lists)."""

    def __init__(self):
        super().__init__()
        self.w2 = nn.Parameter(torch.randn(6, 2, 3, 3) * 0.3)
        self.b2 = nn.Parameter(torch.randn(6) * 0.1)
        self.w1 = nn.Parameter(torch.randn(4, 6, 3) * 0.3)
        self.lw = nn.Parameter(torch.randn(5, 4) * 0.3)

    def forward(self, x):
        y = F.relu(F.conv2d(x, self.w2, self.b2, [2, 1], [1, 0], [1, 1], 2))
        z = F.conv1d(y.flatten(2), self.w1, None, [1], [1], [1], 1)
        return F.relu(F.linear(z.mean(2), self.lw))


class QuantizedHyperparameters(nn.Module):
    """Quantized modules whose hyperparameters are plain attributes, which
    torch.jit.trace does not keep (a LeakyReLU's slope, a LayerNorm's shape
    and eps), and a LayerNorm's float weight and bias."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 1)
        self.act = nn.LeakyReLU(0.3)
        self.norm = nn.LayerNorm([8], eps=0.01)

    def forward(self, x):
        return self.norm(self.act(self.conv(x)))


if not WHICH or WHICH & {"quantized", "quantized_functional",
                         "quantized_hyperparameters", "quantized_reference",
                         "quantized_scripted"}:
    from torch.ao.quantization import get_default_qconfig_mapping
    from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx
    engine = ("onednn" if "onednn" in torch.backends.quantized.supported_engines
              else "qnnpack")
    torch.backends.quantized.engine = engine
    for name, net, example in [
            ("quantized", QuantizedNet, torch.randn(1, 3, 8, 8)),
            ("quantized_functional", QuantizedFunctional,
             torch.randn(2, 4, 7, 5))]:
        prepared = prepare_fx(net().eval(),
                              get_default_qconfig_mapping(engine), (example,))
        prepared(example)
        save(name, trace(convert_fx(prepared), example))
    # Reference mode (convert_to_reference_fx): reference Conv2d and Linear
    # modules, float modules quantizing their own weight.
    from torch.ao.quantization.quantize_fx import convert_to_reference_fx
    for name, net, example, convert in [
            ("quantized_hyperparameters", QuantizedHyperparameters,
             torch.randn(1, 3, 8, 8), convert_fx),
            ("quantized_reference", QuantizedNet, torch.randn(1, 3, 8, 8),
             convert_to_reference_fx)]:
        prepared = prepare_fx(net().eval(),
                              get_default_qconfig_mapping(engine), (example,))
        prepared(example)
        save(name, trace(convert(prepared), example))
    # Scripted (torch.jit.script of the converted GraphModule): its
    # quantize_per_tensor reads the qparam buffers as numbers
    # (aten::FloatImplicit, aten::IntImplicit).
    example = torch.randn(1, 3, 8, 8)
    prepared = prepare_fx(QuantizedNet().eval(),
                          get_default_qconfig_mapping(engine), (example,))
    prepared(example)
    save("quantized_scripted", torch.jit.script(convert_fx(prepared)))


class QuantizedEmbeddings(nn.Module):
    """An Embedding and an EmbeddingBag for float_qparams_weight_only
    quantization (8-bit tables of a float scale and zero point per row)."""

    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(20, 4)
        self.bag = nn.EmbeddingBag(10, 6)

    def forward(self, i, j, offsets, weights):
        return self.embedding(i), self.bag(j, offsets,
                                           per_sample_weights=weights)


if not WHICH or "quantized_embeddings" in WHICH:
    from torch.ao.quantization import (QConfigMapping,
                                       float_qparams_weight_only_qconfig)
    from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx
    example = (torch.randint(0, 20, (2, 3)), torch.randint(0, 10, (6,)),
               torch.tensor([0, 2]), torch.rand(6))
    mapping = QConfigMapping().set_global(float_qparams_weight_only_qconfig)
    save("quantized_embeddings",
         trace(convert_fx(prepare_fx(QuantizedEmbeddings().eval(), mapping,
                                     example)), *example))
    # 4-bit tables (two values a byte, scale and bias in fp16).
    from torch.ao.quantization import float_qparams_weight_only_qconfig_4bit
    mapping = QConfigMapping().set_global(
        float_qparams_weight_only_qconfig_4bit)
    save("quantized_embeddings_4bit",
         trace(convert_fx(prepare_fx(QuantizedEmbeddings().eval(), mapping,
                                     example)), *example))


class DynamicRecurrent(nn.Module):
    """An LSTM given its initial state, a GRU whose final state nothing
    reads and a linear, for quantize_dynamic."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(3, 4, bidirectional=True)
        self.gru = nn.GRU(8, 2)
        self.fc = nn.Linear(2, 3)

    def forward(self, x, h0, c0):
        out, (h, c) = self.lstm(x, (h0, c0))
        seq, _ = self.gru(out)
        return self.fc(seq), c


if not WHICH or "quantized_dynamic" in WHICH:
    torch.manual_seed(0)
    save("quantized_dynamic",
         trace(torch.ao.quantization.quantize_dynamic(
             DynamicRecurrent().eval(), {nn.LSTM, nn.GRU, nn.Linear},
             dtype=torch.qint8),
             torch.randn(5, 1, 3), torch.randn(2, 1, 4), torch.randn(2, 1, 4)))


class EagerQuantized(nn.Module):
    """Eager-mode static quantization: stubs around a fused conv + ReLU."""

    def __init__(self):
        super().__init__()
        self.quant = torch.ao.quantization.QuantStub()
        self.conv = nn.Conv2d(3, 4, 3)
        self.relu = nn.ReLU()
        self.dequant = torch.ao.quantization.DeQuantStub()

    def forward(self, x):
        return self.dequant(self.relu(self.conv(self.quant(x))))


if not WHICH or "quantized_eager" in WHICH:
    engine = ("onednn" if "onednn" in torch.backends.quantized.supported_engines
              else "qnnpack")
    torch.backends.quantized.engine = engine
    model = EagerQuantized().eval()
    model.qconfig = torch.ao.quantization.get_default_qconfig(engine)
    torch.ao.quantization.fuse_modules(model, [["conv", "relu"]],
                                       inplace=True)
    prepared = torch.ao.quantization.prepare(model)
    prepared(torch.randn(1, 3, 8, 8))
    save("quantized_eager", trace(torch.ao.quantization.convert(prepared),
                                  torch.randn(1, 3, 8, 8)))


class TracedLeaves(nn.Module):
    """torch.nn leaves torch.jit.trace keeps no hyperparameters of (a
    strided conv, an in-place ReLU, max pooling, flatten, dropout, a
    linear) and a dict output."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, stride=2, padding=1)
        self.relu = nn.ReLU(inplace=True)
        self.pool = nn.MaxPool2d(2)
        self.flatten = nn.Flatten()
        self.drop = nn.Dropout(0.3)
        self.fc = nn.Linear(4 * 2 * 2, 5)

    def forward(self, x):
        y = self.pool(self.relu(self.conv(x)))
        return {"out": self.fc(self.drop(self.flatten(y))), "features": y}


if not WHICH or "traced_leaves" in WHICH:
    save("traced_leaves", torch.jit.trace(TracedLeaves().eval(),
                                          torch.randn(1, 3, 8, 8),
                                          strict=False))


class _SizedPool(nn.Module):
    """Returns its result's spatial sizes with it (as mvit_v2_s's pooling
    does): traced, they leave the method as 0-d tensors."""

    def forward(self, x):
        y = F.max_pool2d(x, 2)
        return y, (y.shape[2], y.shape[3])


class TracedSizes(nn.Module):
    """What torch.jit.trace records for arithmetic on sizes (a channel
    shuffle, padding to a multiple of 5, a scale from a channel count,
    divisions rounding down and truncating: prim::NumToTensor, 0-d tensor
    operators, aten::Int; sizes a submodule returns) and for writes into
    views (swin_t's attention mask: fills of slices, a row copied, a
    column of the transpose set), with an in-place dropout after a
    flatten."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 8, 3, padding=1)
        self.drop = nn.Dropout(0.1, inplace=True)
        self.pool = _SizedPool()
        self.fc = nn.Linear(8 * 2 * 2, 3)

    def forward(self, x):
        y = self.conv(x)
        n, c, h, w = y.size()
        y = y.view(n, 2, c // 2, h, w).transpose(1, 2).contiguous()
        y = y.view(n, torch.div(c * 3, 3, rounding_mode="trunc"), h, w)
        pad = (5 - h % 5) % 5
        y = F.pad(y, (0, pad, 0, pad))
        mask = y.new_zeros((h + pad,
                            torch.div(w + pad, 1, rounding_mode="floor")))
        mask[:5, :5] = 1.0
        mask[:5, 5:] = 2.0
        mask[5:, :5] = 3.0
        mask[-1] = mask[0] * 2
        mask.t()[1, 2:4] = 7.0
        y = y * mask * (c // 2) ** -0.5
        y, (ph, pw) = self.pool(F.avg_pool2d(y, 2))
        y = y.reshape(n, c, ph * pw).transpose(1, 2)
        return self.fc(self.drop(y.flatten(1)))


if not WHICH or "traced_sizes" in WHICH:
    save("traced_sizes", torch.jit.trace(TracedSizes().eval(),
                                         torch.randn(1, 4, 6, 6)))


class TracedFloatSizes(nn.Module):
    """F.interpolate by a scale factor in 'area' mode: torch.jit.trace
    records the output size as `floor(size * 1.7)` on 0-d float tensors
    (prim::NumToTensor, aten::to, aten::mul by a tensor constant,
    aten::floor, aten::Int), then an adaptive average pooling to it."""

    def forward(self, x):
        return (F.interpolate(x, scale_factor=1.7, mode="area"),
                F.interpolate(x, scale_factor=(0.5, 1.5), mode="area"))


if not WHICH or "traced_float_sizes" in WHICH:
    save("traced_float_sizes", torch.jit.trace(TracedFloatSizes().eval(),
                                               torch.randn(1, 2, 4, 6)))


class TracedNumberOperands(nn.Module):
    """Numbers as the second operand of * + - /, which a trace records as
    0-d double tensor constants."""

    def forward(self, n):
        return n * 0.5, n - 1.5, n / 4, n + torch.tensor(2)


if not WHICH or "traced_number_operands" in WHICH:
    save("traced_number_operands",
         torch.jit.trace(TracedNumberOperands(),
                         torch.arange(6, dtype=torch.int32).reshape(2, 3)))


class ScriptedRecurrent(nn.Module):
    """A scripted GRU (its forward checks the state's size against a list
    it computes in another method) and a size check of our own."""

    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(4, 3, batch_first=True)

    def check(self, x, expected: List[int]):
        if x.size() != expected:
            raise RuntimeError("unexpected size")

    def forward(self, x):
        self.check(x, [2, 5, 4])
        out, h = self.gru(x)
        return out, h


class ScriptedLayers(nn.Module):
    """torchvision's IntermediateLayerGetter as scripted segmentation
    models hold it: a module dict of constants names the layers whose
    outputs go into an OrderedDict, read back by key; `size is not None`
    of F.interpolate's size list."""

    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleDict({"stem": nn.Conv2d(3, 4, 3, padding=1),
                                     "act": nn.ReLU(),
                                     "head": nn.Conv2d(4, 2, 1)})
        self.return_layers = {"act": "low", "head": "out"}

    def forward(self, x):
        out = OrderedDict()
        y = x
        for name, module in self.layers.items():
            y = module(y)
            if name in self.return_layers:
                out[self.return_layers[name]] = y
        result = OrderedDict()
        result["out"] = F.interpolate(out["out"], size=[8, 10],
                                      mode="bilinear", align_corners=False)
        result["low"] = out["low"].mean(1)
        return result


class ScriptedBlocks(nn.Module):
    """What scripted torchvision models compute with besides tensors: a
    stochastic depth whose branch on constants (`not self.training or
    self.p == 0.0`) builds a list of sizes, a warning, an assert's f-string
    message, a list of features grown by append and concatenated, its
    len, a slice of a shape, a size raised to a float power, a branch on
    `gain is not None` of a tensor, and swin's shifts set to 0 in a branch
    on a size."""

    def __init__(self):
        super().__init__()
        self.p = 0.2
        self.mode = "row"
        self.gain = nn.Parameter(torch.full((1,), 1.5))
        self.shift = [3, 3]
        self.convs = nn.ModuleList([nn.Conv2d(4 + 2 * i, 2, 3, padding=1)
                                    for i in range(3)])

    def drop(self, x: torch.Tensor) -> torch.Tensor:
        if not self.training or self.p == 0.0:
            return x
        if self.mode == "row":
            size = [x.shape[0]] + [1] * (x.ndim - 1)
        else:
            size = [1] * x.ndim
        return x * torch.rand(size) / (1.0 - self.p)

    def scaled(self, y: torch.Tensor,
               gain: Optional[torch.Tensor]) -> torch.Tensor:
        if gain is not None:
            y = y * gain
        return y

    def forward(self, x):
        warnings.warn("a scripted warning")
        torch._assert(x.dim() == 4, f"expected 4 dims, got {x.shape}")
        features = [x]
        for conv in self.convs:
            features.append(self.drop(conv(torch.cat(features, 1))))
        y = torch.cat(features, 1)
        h, w = y.shape[-2:]
        scale = (h * w) ** -0.5
        # swin_t's shifts (torchvision 0.14 writes the attribute's list).
        shift = self.shift
        if 7 >= x.size(2):
            shift[0] = 0
        if 7 >= 100 + x.size(3):
            shift[1] = 0
        return (self.scaled(y.sum((2, 3)), self.gain) * scale +
                len(features) + sum(shift))


class ScriptedCellEncoder(nn.Module):
    """A scripted nn.LSTMCell (its forward checks `input.dim() not in (1,
    2)`) feeding an nn.TransformerEncoderLayer, whose forward branches on
    its fast path's conditions (grad mode, autocast, nested tensors,
    requires_grad)."""

    def __init__(self):
        super().__init__()
        self.cell = nn.LSTMCell(4, 8)
        self.layer = nn.TransformerEncoderLayer(8, 2, 16, batch_first=True)

    def forward(self, x):
        h, c = self.cell(x)
        return self.layer(torch.stack([h, c], 1))


class ScriptedNumberLoops(nn.Module):
    """Loops over numbers whose trip counts are static: F.interpolate's
    scale factors (`for _ in range(dim): scale_factors.append(s)`) and a
    sum of sizes of our own."""

    def forward(self, x):
        total = 0
        for i in range(x.dim()):
            total += x.size(i)
        y = F.interpolate(x, scale_factor=2.0, mode="bilinear",
                          align_corners=True)
        return y * total


class ScriptedGradModes(nn.Module):
    """A `with torch.no_grad():` block in scripted code, and
    F.gaussian_nll_loss (which clamps its variance in one)."""

    def __init__(self):
        super().__init__()
        self.loss = nn.GaussianNLLLoss(full=True)

    def forward(self, x, var):
        with torch.no_grad():
            y = x * 2
        z = y + 1
        return self.loss(y, z, var.abs() + 0.1)


if not WHICH or "scripted_layers" in WHICH:
    save("scripted_layers", torch.jit.script(ScriptedLayers().eval()))
if not WHICH or "scripted_cell_encoder" in WHICH:
    save("scripted_cell_encoder",
         torch.jit.script(ScriptedCellEncoder().eval()))
if not WHICH or "scripted_number_loops" in WHICH:
    save("scripted_number_loops",
         torch.jit.script(ScriptedNumberLoops().eval()))
if not WHICH or "scripted_grad_modes" in WHICH:
    save("scripted_grad_modes", torch.jit.script(ScriptedGradModes().eval()))
if not WHICH or "scripted_recurrent" in WHICH:
    save("scripted_recurrent", torch.jit.script(ScriptedRecurrent().eval()))
if not WHICH or "scripted_blocks" in WHICH:
    save("scripted_blocks", torch.jit.script(ScriptedBlocks().eval()))


class ScriptedState(nn.Module):
    """Buffers a scripted forward assigns (prim::SetAttr): a counter
    updated in place and branched on, an average rebound, and an attribute
    that is not a buffer, assigned only with `bad_attribute`."""

    def __init__(self, bad_attribute=False):
        super().__init__()
        self.register_buffer("count", torch.zeros(()))
        self.register_buffer("ema", torch.zeros(3))
        self.scale = 2.0
        self.bad_attribute = bad_attribute

    def forward(self, x):
        old = self.ema
        self.count += 1
        self.ema = 0.5 * self.ema + 0.5 * x.mean(0)
        if self.bad_attribute:
            self.scale = 3.0
        if bool(self.count > 1):
            y = x * self.scale + self.ema
        else:
            y = x - self.ema
        return y, old


if not WHICH or WHICH & {"scripted_state", "scripted_bad_setattr"}:
    save("scripted_state", torch.jit.script(ScriptedState()))
    save("scripted_bad_setattr", torch.jit.script(ScriptedState(True)))


class ListInput(nn.Module):
    """A forward of a list of tensors: no tensor type types it."""

    def forward(self, xs: List[torch.Tensor]):
        return torch.cat(xs, 0)


if not WHICH or "list_input" in WHICH:
    save("list_input", torch.jit.script(ListInput()))


class Relu(nn.Module):
    def forward(self, x):
        return torch.relu(x)


if not WHICH or "unknown_op" in WHICH:
    # Its code calls an operator LibTorch does not have: LibTorch 1.13's
    # loader swallows the error and loads the module with objects missing.
    import zipfile
    source = os.path.join(OUT, "relu_source.pt")
    torch.jit.script(Relu()).save(source)
    with zipfile.ZipFile(source) as src, zipfile.ZipFile(
            os.path.join(OUT, "unknown_op.pt"), "w",
            zipfile.ZIP_STORED) as dst:
        for info in src.infolist():
            data = src.read(info.filename)
            if info.filename.endswith("code/__torch__.py"):
                data = data.replace(b"torch.relu", b"torch.nonexistent_op")
            dst.writestr(info, data)
