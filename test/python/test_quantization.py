"""FX graph-mode quantized models (prepare_fx + convert_fx, and
convert_to_reference_fx) through the fx dialect and back.

Quantized tensors are typed with MLIR's quant element types
(`!quant.uniform<u8:f32, SCALE:ZP>`, per channel `!quant.uniform<i8:f32:0,
{S0:Z0,...}>`); quantized modules keep their public type
(`torch.ao.nn.quantized.Conv2d`), their constructor arguments plus the
output scale and zero point, and their unpacked weight and bias as state.
The GraphModule rebuilt from the IR runs on PyTorch's quantized engine and
gives the converted model's outputs bit for bit; importing it again gives
the same text.
"""

import copy
import json
import os
import re
import subprocess
import sys

import pytest
import torch
import torch.ao.nn.quantized as nnq
import torch.fx
import torch.nn as nn
import torch.nn.functional as F
from torch.ao.quantization import (default_dynamic_qconfig,
                                   get_default_qconfig_mapping, QConfigMapping)
from torch.ao.quantization.quantize_fx import (convert_fx,
                                               convert_to_reference_fx,
                                               prepare_fx)

import fx_mlir
from fx_mlir._rebuild import RebuildError, rebuild

# The engine the models are checked against, the qconfig they use there
# and qnnpack's per-tensor one, as the end-to-end suite has them.
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "e2e"))
from quantized import ENGINE, QCONFIG, _per_tensor_qconfig  # noqa: E402


def _calibrate_wide(prepared, inputs):
    """Where QCONFIG's 7-bit activations are what keeps ENGINE exact, one
    more calibration run on inputs 3x as large: the inputs checked later
    then stay within the 7 bits (beyond the calibrated range a quantized
    activation takes the 8th bit, and the engine's sums saturate)."""
    if QCONFIG != ENGINE:
        with torch.no_grad():
            prepared(*[t * 3 for t in inputs])


@pytest.fixture(autouse=True)
def quantized_engine():
    previous = torch.backends.quantized.engine
    torch.backends.quantized.engine = ENGINE
    yield
    torch.backends.quantized.engine = previous


class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.pool = nn.MaxPool2d(2)
        self.conv2 = nn.Conv2d(4, 4, 1)
        self.fc = nn.Linear(8 * 4 * 4, 5)

    def forward(self, x):
        y = self.pool(F.relu(self.bn(self.conv(x))))
        z = self.conv2(y)
        y = torch.cat([y + z, z], 1)
        return self.fc(torch.flatten(y, 1))


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(6, 8)
        self.relu = nn.ReLU()
        self.fc2 = nn.Linear(8, 3, bias=False)

    def forward(self, x):
        return self.fc2(self.relu(self.fc1(x)))


# The weightless modules' and the transposed convs' models of the
# end-to-end suite, with their input shapes.
from quantized import Decoder, Norms  # noqa: E402
INPUT_SHAPES = {Norms: (2, 3, 8, 8), Decoder: (1, 3, 7, 7)}


def _inputs(model, seed):
    torch.manual_seed(seed)
    if type(model) in INPUT_SHAPES:
        return (torch.randn(INPUT_SHAPES[type(model)]),)
    return (torch.randn(2, 3, 8, 8) if isinstance(model, ConvNet)
            else torch.randn(4, 6),)


def _quantize(model_type, qconfig_mapping, reference=False):
    torch.manual_seed(0)
    model = model_type().eval()
    with torch.no_grad():
        if isinstance(model, ConvNet):  # a BatchNorm that does something
            model.bn.running_mean.uniform_(-0.5, 0.5)
            model.bn.running_var.uniform_(0.5, 2.0)
        prepared = prepare_fx(model, qconfig_mapping, _inputs(model, 0))
        for seed in range(3):
            prepared(*_inputs(model, 100 + seed))
    _calibrate_wide(prepared, _inputs(model, 100))
    convert = convert_to_reference_fx if reference else convert_fx
    return convert(prepared), _inputs(model, 0)


def _description(ir):
    """The exporter's JSON description of `ir` (quantized state as its
    dtype, int_repr() bytes and "qparams")."""
    from fx_mlir.compiler import _load_runtime
    return json.loads(_load_runtime().export_fx_json(ir))


def _assert_round_trip(converted, example, back):
    for seed in (1, 2):
        inputs = _inputs_like(example, seed)
        expected, actual = converted(*inputs), back(*inputs)
        assert expected.dtype == actual.dtype == torch.float32
        assert torch.equal(expected, actual)


def _inputs_like(example, seed):
    torch.manual_seed(seed)
    return tuple(torch.randn_like(t) for t in example)


CASES = {
    # name: (model, qconfig mapping, reference mode)
    "convnet": (ConvNet, lambda: get_default_qconfig_mapping(QCONFIG), False),
    "convnet_per_tensor": (ConvNet, lambda: QConfigMapping().set_global(
        _per_tensor_qconfig()), False),
    "mlp": (MLP, lambda: get_default_qconfig_mapping(QCONFIG), False),
    "mlp_dynamic": (MLP, lambda: QConfigMapping()
                    .set_object_type(nn.Linear, default_dynamic_qconfig)
                    .set_object_type(nn.ReLU, default_dynamic_qconfig), False),
    "convnet_reference": (ConvNet, lambda: get_default_qconfig_mapping(
        ENGINE), True),
    "weightless": (Norms, lambda: get_default_qconfig_mapping(QCONFIG),
                   False),
    "decoder": (Decoder, lambda: QConfigMapping().set_global(
        _per_tensor_qconfig()), False),
}


@pytest.fixture(scope="module", params=list(CASES))
def case(request):
    model_type, mapping, reference = CASES[request.param]
    previous = torch.backends.quantized.engine
    torch.backends.quantized.engine = ENGINE
    try:
        converted, example = _quantize(model_type, mapping(), reference)
        if request.param == "weightless":  # every container in eval mode
            converted.eval()
        ir = fx_mlir.import_graph_module(converted, example)
    finally:
        torch.backends.quantized.engine = previous
    return request.param, converted, example, ir


# --- Import. -----------------------------------------------------------------

UINT8 = r"!quant\.uniform<u8:f32, [0-9.e-]+:\d+>"
PER_CHANNEL = r"!quant\.uniform<i8:f32:0, \{[0-9.e-]+:0(,[0-9.e-]+:0)*\}>"
PER_TENSOR_I8 = r"!quant\.uniform<i8:f32, [0-9.e-]+:0>"
CONV = (r"in_channels=3, out_channels=4, kernel_size=\(3, 3\), "
        r"stride=\(1, 1\), padding=\(1, 1\), dilation=\(1, 1\), groups=1, "
        r"bias=True, padding_mode=\"zeros\"")
EXPECTED = {
    "convnet": [
        r'fx.submodule @conv "torch.ao.nn.intrinsic.quantized.ConvReLU2d"\('
        + CONV + r", scale=[0-9.e-]+, zero_point=0\)",
        r'fx.submodule @conv2 "torch.ao.nn.quantized.Conv2d"\(',
        r'fx.submodule @fc "torch.ao.nn.quantized.Linear"\(in_features=128, '
        r"out_features=5, bias_=True, dtype=torch.qint8, scale=[0-9.e-]+, "
        r"zero_point=\d+\)",
        r"fx.state parameter @conv.weight : tensor<4x3x3x3x" + PER_CHANNEL
        + ">",
        r"fx.state parameter @conv.bias : tensor<4xf32>",
        r"fx.state parameter @fc.weight : tensor<5x128x" + PER_CHANNEL + ">",
        r'fx.call_function "torch.quantize_per_tensor"\(%x, '
        r"%\w+, %\w+, torch.quint8\) .* -> tensor<2x3x8x8x" + UINT8 + ">",
        r'fx.call_function "torch.ops.quantized.add"\(',
        r'fx.call_method "dequantize"\(%fc\) : \(tensor<2x5x' + UINT8
        + r">\) -> tensor<2x5xf32>",
    ],
    "convnet_per_tensor": [
        r"fx.state parameter @conv.weight : tensor<4x3x3x3x" + PER_TENSOR_I8
        + ">",
        r"fx.state parameter @fc.weight : tensor<5x128x" + PER_TENSOR_I8
        + ">",
    ],
    "mlp": [
        r'fx.submodule @fc1 "torch.ao.nn.intrinsic.quantized.LinearReLU"\('
        r"in_features=6, out_features=8, bias=True, dtype=torch.qint8, "
        r"scale=[0-9.e-]+, zero_point=0\)",
        r'fx.submodule @fc2 "torch.ao.nn.quantized.Linear"\(in_features=8, '
        r"out_features=3, bias_=False, dtype=torch.qint8, scale=",
        r"fx.state parameter @fc1.weight : tensor<8x6x" + PER_CHANNEL + ">",
    ],
    "mlp_dynamic": [
        r'fx.submodule @fc1 "torch.ao.nn.intrinsic.quantized.dynamic.'
        r'LinearReLU"\(in_features=6, out_features=8, bias=True, '
        r"dtype=torch.qint8\)",
        r'fx.submodule @fc2 "torch.ao.nn.quantized.dynamic.Linear"\('
        r"in_features=8, out_features=3, bias_=False, dtype=torch.qint8\)",
        r"fx.state parameter @fc1.weight : tensor<8x6x" + PER_TENSOR_I8
        + ">",
        r"fx.state parameter @fc1.bias : tensor<8xf32>",
    ],
    "convnet_reference": [
        r'fx.submodule @conv "torch.ao.nn.intrinsic.ConvReLU2d"\(\)',
        r'fx.submodule @conv.0 "torch.ao.nn.quantized.reference.Conv2d"\('
        + CONV + r', weight_qparams=\{"qscheme": "per_channel_affine", '
        r'"dtype": torch.qint8, "scale": \[[0-9.e, -]+\], '
        r'"zero_point": \[0, 0, 0, 0\], "axis": 0\}\)',
        r'fx.submodule @fc "torch.ao.nn.quantized.reference.Linear"\(',
        r"fx.state parameter @conv.0.weight : tensor<4x3x3x3xf32>",
        r"fx.state buffer @conv.0.weight_scale : tensor<4xf32>",
        r'fx.call_method "dequantize"\(%quantize_per_tensor\) : \(tensor<'
        r"2x3x8x8x" + UINT8 + r">\) -> tensor<2x3x8x8xf32>",
    ],
    "weightless": [
        r'fx.submodule @bn "torch.ao.nn.intrinsic.quantized.BNReLU2d"\(',
        r'fx.submodule @inorm "torch.ao.nn.quantized.InstanceNorm2d"\(',
        r'fx.submodule @softmax "torch.ao.nn.quantized.Softmax"\(dim=1, ',
        r'fx.submodule @acts.1 "torch.ao.nn.quantized.ELU"\(.*alpha=0.5\)',
        r"fx.state buffer @bn.scale : tensor<f32>",
        r"fx.state parameter @inorm.weight : tensor<8xf32>",
    ],
    "decoder": [
        r'fx.submodule @up "torch.ao.nn.quantized.ConvTranspose2d"\(.*'
        r"output_padding=\(0, 0\), groups=2",
        r"fx.state parameter @up.weight : tensor<8x2x3x3x!quant.uniform<"
        r"i8:f32, [0-9.e-]+:0>>",
    ],
}


def test_import(case):
    name, converted, _, ir = case
    for pattern in EXPECTED[name]:
        assert re.search(pattern, ir), pattern
    assert "_packed_params" not in ir


def test_scale_spelling():
    """A scale reads back as the very double it was."""
    from fx_mlir.importer import _quant_element
    for scale in (1e-05, 0.1, 2.0, 1.5e-10, 0.0075185392051935):
        text = _quant_element(torch.quint8, {
            "qscheme": torch.per_tensor_affine, "scale": scale,
            "zero_point": 3}, "")
        spelled = re.fullmatch(r"!quant\.uniform<u8:f32, (.*):3>", text)[1]
        assert re.fullmatch(r"\d+\.\d+(e-?\d+)?", spelled), spelled
        assert float(spelled) == scale


# --- Export: the Python loader on the description the exporter writes. -----

def test_rebuild(case):
    name, converted, example, ir = case
    back = rebuild(_description(ir))
    _assert_round_trip(converted, example, back)
    assert fx_mlir.import_graph_module(back, example, name="GraphModule") \
        == ir


def test_rebuild_rejects_bad_qparams():
    converted, example = _quantize(MLP, get_default_qconfig_mapping(QCONFIG))
    ir = fx_mlir.import_graph_module(converted, example)
    description = _description(ir)
    entry = next(e for e in description["state"]
                 if e["path"] == "fc1.weight")
    entry["qparams"] = {"scales": [0.1], "zero_points": [0], "axis": 0}
    with pytest.raises(RebuildError, match="fc1.weight"):
        rebuild(description)
    entry.pop("qparams")
    with pytest.raises(RebuildError, match="without qparams"):
        rebuild(description)


# --- Export end to end (the C++ exporter writes quantized state). ----------

def test_export(case):
    name, converted, example, ir = case
    back = fx_mlir.export_graph_module(ir)
    _assert_round_trip(converted, example, back)
    assert fx_mlir.import_graph_module(back, example, name="GraphModule") \
        == ir


# --- torch.ao.nn.quantized modules FX mode does not make. -------------------

def _quantized(shape):
    torch.manual_seed(3)
    return torch.quantize_per_tensor(torch.randn(shape), 0.05, 128,
                                     torch.quint8)


MODULES = {
    "conv1d": lambda: nnq.Conv1d(3, 4, 3, stride=2),
    "conv_transpose2d": lambda: nnq.ConvTranspose2d(3, 4, 3, stride=2),
    "batch_norm2d": lambda: nnq.BatchNorm2d(3),
    "leaky_relu": lambda: nnq.LeakyReLU(0.02, 5, 0.1),
    "hardswish": lambda: nnq.Hardswish(0.02, 5),
    "layer_norm": lambda: nnq.LayerNorm([4], nn.Parameter(torch.randn(4)),
                                        nn.Parameter(torch.randn(4)), 0.03,
                                        7),
    "quantize": lambda: nnq.Quantize(0.1, 3, torch.quint8),
    "dequantize": lambda: nnq.DeQuantize(),
    "prelu": lambda: _prelu(3),
}
SHAPES = {"conv1d": (1, 3, 9), "conv_transpose2d": (1, 3, 5, 5),
          "prelu": (1, 3, 4, 4),
          "batch_norm2d": (1, 3, 4, 4), "layer_norm": (2, 3, 4)}


def _prelu(channels, scale=0.03, zero_point=100):
    """A quantized PReLU of slopes -0.5 .. 0.7 (convert_fx quantizes a
    PReLU's slopes with a fresh observer's default parameters, scale 1,
    which rounds most to 0)."""
    module = nnq.PReLU(scale, zero_point, channels)
    module.set_weight(torch.quantize_per_tensor(
        torch.linspace(-0.5, 0.7, channels), 0.01, 60, torch.quint8))
    return module


class _Holder(nn.Module):
    def __init__(self, module):
        super().__init__()
        self.m = module

    def forward(self, x):
        return self.m(x)


@pytest.mark.parametrize("name", list(MODULES))
def test_module(name):
    torch.manual_seed(0)
    gm = torch.fx.symbolic_trace(_Holder(MODULES[name]()).eval())
    x = _quantized(SHAPES.get(name, (2, 3)))
    if name == "quantize":
        x = x.dequantize()
    ir = fx_mlir.import_graph_module(gm, (x,), name="GraphModule")
    back = rebuild(_description(ir))
    expected, actual = gm(x), back(x)
    assert expected.dtype == actual.dtype
    if expected.is_quantized:
        assert (expected.q_scale(), expected.q_zero_point()) == \
            (actual.q_scale(), actual.q_zero_point())
        expected, actual = expected.int_repr(), actual.int_repr()
    assert torch.equal(expected, actual)
    assert fx_mlir.import_graph_module(back, (x,)) == ir


def test_compile_quantized_prelu():
    """A quantized PReLU (its quantized slopes an attribute, not a
    parameter) compiles: the dequantized input's prelu with the dequantized
    slopes, quantized to its output; equal to the engine's."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.PReLU(4), nn.Conv2d(4, 4, 1),
                          nn.PReLU()).eval()
    example = (torch.randn(1, 3, 8, 8),)
    prepared = prepare_fx(model, get_default_qconfig_mapping(QCONFIG), example)
    prepared(*example)
    converted = convert_fx(prepared)
    for path, channels in (("1", 4), ("3", 1)):
        old = converted.get_submodule(path)
        setattr(converted, path, _prelu(channels, old.scale, old.zero_point))
    compiled = fx_mlir.compile(converted, example)
    for seed in (1, 2):
        inputs = _inputs_like(example, seed)
        assert torch.equal(converted(*inputs), compiled(*inputs))


class _EagerNet(nn.Module):
    """Eager mode static quantization: stubs, a fused conv + ReLU, a
    FloatFunctional residual add, a linear."""

    def __init__(self):
        super().__init__()
        self.quant = torch.ao.quantization.QuantStub()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.relu = nn.ReLU()
        self.conv2 = nn.Conv2d(8, 8, 1)
        self.skip = nn.quantized.FloatFunctional()
        self.fc = nn.Linear(8 * 6 * 6, 5)
        self.dequant = torch.ao.quantization.DeQuantStub()

    def forward(self, x):
        y = self.relu(self.conv(self.quant(x)))
        y = self.skip.add_relu(y, self.conv2(y))
        return self.dequant(self.fc(torch.flatten(y, 1)))


def _eager_converted():
    """_EagerNet quantized in eager mode, and an example input."""
    torch.manual_seed(0)
    model = _EagerNet().eval()
    model.qconfig = torch.ao.quantization.get_default_qconfig(QCONFIG)
    torch.ao.quantization.fuse_modules(model, [["conv", "relu"]],
                                       inplace=True)
    prepared = torch.ao.quantization.prepare(model)
    for seed in range(3):
        prepared(_inputs_like((torch.randn(2, 3, 6, 6),), seed)[0])
    converted = torch.ao.quantization.convert(prepared)
    return converted, (torch.randn(2, 3, 6, 6),)


def test_compile_eager_mode_quantized_models():
    """Models quantized in eager mode (torch.ao.quantization.prepare and
    convert; quantize_dynamic) compile: their quantized modules stay whole
    when traced, as in a convert_fx graph."""
    converted, example = _eager_converted()
    compiled = fx_mlir.compile(converted, example)
    for seed in (1, 2):
        inputs = _inputs_like(example, seed)
        steps = (converted(*inputs) - compiled(*inputs)).abs() / \
            converted.fc.scale
        assert steps.max() <= 1

    mlp = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 10))
    dynamic = torch.ao.quantization.quantize_dynamic(mlp.eval(), {nn.Linear})
    x = torch.randn(4, 32)
    compiled = fx_mlir.compile(dynamic, (x,))
    assert torch.allclose(dynamic(x), compiled(x), atol=1e-5)


def test_compile_traced_eager_mode_quantized_model(tmp_path):
    """An eager-mode quantized model traced and saved: its Quantize and
    DeQuantize modules (classes of torch.ao.nn.quantized.modules itself,
    no file part) keep their public names (Quantize its scale, zero point
    and dtype), the IR exports to a GraphModule equal to the archive, and
    the archive compiles within one step of the engine (before,
    `...quantized.modules.Quantize` was an unknown module)."""
    converted, example = _eager_converted()
    loaded, compiled = _traced_and_compiled(converted, example,
                                            tmp_path / "eager.pt")
    ir = fx_mlir.import_torchscript(loaded, example)
    assert '"torch.ao.nn.quantized.Quantize"(' in ir
    assert '"torch.ao.nn.quantized.DeQuantize"()' in ir
    back = fx_mlir.export_graph_module(ir)
    for seed in (1, 2):
        inputs = _inputs_like(example, seed)
        assert torch.equal(back(*inputs), loaded(*inputs))
        steps = (loaded(*inputs) - compiled(*inputs)).abs() / \
            converted.fc.scale
        assert steps.max() <= 1


class _Recurrent(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(20, 24, num_layers=2, bidirectional=True)
        self.gru = nn.GRU(48, 16, batch_first=True)
        self.fc = nn.Linear(16, 3)

    def forward(self, x):
        y, (h, c) = self.lstm(x)
        z, _ = self.gru(y.transpose(0, 1))
        return self.fc(z), h, c


def test_compile_dynamic_recurrent_layers():
    """quantize_dynamic's LSTM and GRU (torch.ao.nn.quantized.dynamic)
    compile as ATen's quantized_lstm/quantized_gru compute them: each
    projection a dynamic int8 linear of the cell's unpacked weight; the
    outputs and final states within 1e-6 of the engine's."""
    torch.manual_seed(0)
    model = torch.ao.quantization.quantize_dynamic(
        _Recurrent().eval(), {nn.LSTM, nn.GRU, nn.Linear})
    assert type(model.lstm).__module__.startswith("torch.ao.nn.quantized")
    x = torch.randn(7, 2, 20)
    compiled = fx_mlir.compile(model, (x,))
    x = torch.randn(7, 2, 20)
    for expected, actual in zip(model(x), compiled(x)):
        assert torch.allclose(expected, actual, rtol=0, atol=1e-6)


class _RecurrentHead(_Recurrent):
    """_Recurrent without its tuple unpacking, which prepare_fx's tracer
    cannot follow on Python 3.11."""

    def forward(self, x):
        y = self.lstm(x)[0]
        return self.fc(self.gru(y.transpose(0, 1))[0])


def test_export_dynamic_recurrent_layers():
    """A convert_fx graph's dynamically quantized LSTM and GRU import as
    submodules with their hyperparameters (input_size ... dtype) and their
    layers' unpacked weights and biases as state (`lstm.weight_ih_l0`,
    `lstm.bias_hh_l1_reverse`, ...); the export rebuilds them through
    set_weight_bias: outputs bit-equal to the converted model's (the
    exported script's too), and the IR imported again the same."""
    torch.manual_seed(0)
    x = torch.randn(7, 2, 20)
    qconfig = QConfigMapping().set_object_type(
        nn.LSTM, default_dynamic_qconfig).set_object_type(
        nn.GRU, default_dynamic_qconfig).set_object_type(
        nn.Linear, default_dynamic_qconfig)
    converted = convert_fx(prepare_fx(_RecurrentHead().eval(), qconfig, (x,)))
    assert type(converted.lstm).__module__.startswith("torch.ao.nn.quantized")
    ir = fx_mlir.import_graph_module(converted, (x,))
    assert "fx.state parameter @lstm.weight_hh_l1_reverse" in ir
    assert "hidden_size=24, num_layers=2" in ir
    back = fx_mlir.export_graph_module(ir)
    assert type(back.lstm) is type(converted.lstm)
    assert torch.equal(back(x), converted(x))
    assert fx_mlir.import_graph_module(back, (x,)) == ir
    # The script fx-translate --export-python writes (its embedded loader).
    scope = {}
    exec(compile(fx_mlir.export_python(ir), "exported", "exec"), scope)
    assert torch.equal(scope["graph_module"](x), converted(x))


def test_quantized_tensor_of_float_zero_points_is_refused():
    """A quantized tensor of float zero points (a quantized Embedding's
    table) held as state other than a quantized Embedding's has no MLIR
    quant type: import refuses it, naming it. (A quantized Embedding's
    call is imported as the float embedding of its rows:
    test_import_quantized_embeddings.)"""
    holder = _Holder(nn.Identity())
    holder.table = torch.quantize_per_channel(
        torch.randn(10, 4), torch.rand(10) + 0.1, torch.rand(10), 0,
        torch.quint8)
    # A quantized tensor held as an attribute: torch.fx's get_attr.
    graph = torch.fx.Graph()
    graph.output(graph.get_attr("table"))
    gm = torch.fx.GraphModule(holder, graph)
    with pytest.raises(fx_mlir.FxMlirError,
                       match="'table'.*per_channel_affine_float_qparams"):
        fx_mlir.import_graph_module(gm)
    gm = torch.fx.symbolic_trace(_Holder(nnq.Embedding(10, 4)))
    assert "tensor<10x4xf32>" in fx_mlir.import_graph_module(
        gm, (torch.tensor([1, 2]),))


@pytest.mark.skipif(
    "qnnpack" not in torch.backends.quantized.supported_engines,
    reason="needs the qnnpack engine")
def test_weights_the_engine_cannot_unpack_are_refused():
    """PyTorch 1.13's qnnpack runs a quantized Conv3d but cannot unpack its
    weights: the import names the module and the engine, not a bare
    RuntimeError."""
    torch.backends.quantized.engine = "qnnpack"
    model = nn.Sequential(nn.Conv3d(2, 4, 3)).eval()
    x = torch.randn(1, 2, 4, 5, 5)
    prepared = prepare_fx(model, get_default_qconfig_mapping("qnnpack"), (x,))
    prepared(x)
    converted = convert_fx(prepared)
    converted(x)  # the engine runs it
    with pytest.raises(fx_mlir.FxMlirError,
                       match="module '0' .*Conv3d.*cannot be unpacked under "
                             "the quantized engine 'qnnpack'"):
        fx_mlir.compile(converted, (x,))


class _Embeddings(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(100, 16)
        self.bag = nn.EmbeddingBag(50, 8, mode="mean")

    def forward(self, i, j, offsets, weights):
        return (self.embedding(i), self.bag(j, offsets),
                self.bag(j, offsets, per_sample_weights=weights))


def _embedding_qconfig(bits):
    from torch.ao.quantization import (
        float_qparams_weight_only_qconfig,
        float_qparams_weight_only_qconfig_4bit)
    return (float_qparams_weight_only_qconfig if bits == 8
            else float_qparams_weight_only_qconfig_4bit)


def _check_embeddings(model, *others):
    """On fresh indices and weights like _Embeddings' inputs (the same
    offsets): each of `others` computes `model`'s rows exactly and its bags
    within float rounding."""
    inputs = (torch.randint(0, 100, (3, 5)), torch.randint(0, 50, (10,)),
              torch.tensor([0, 3, 7]), torch.rand(10))
    expected = model(*inputs)
    for other in others:
        actual = other(*inputs)
        assert torch.equal(expected[0], actual[0])
        for e, a in zip(expected[1:], actual[1:]):
            assert torch.allclose(e, a, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("bits", [8, 4])
def test_compile_quantized_embeddings(bits):
    """Quantized Embedding and EmbeddingBag (float_qparams_weight_only,
    8-bit or 4-bit tables, from convert_fx or eager convert) compile: the
    embedding (bag) of the table's rows as embedding_byte / embedding_4bit
    compute them (a 4-bit table's scale and bias in fp16; the engine's bag
    sums whatever the mode: so does the compiled one). Rows equal, bags
    within float rounding of the engine's sums."""
    qconfig = _embedding_qconfig(bits)
    torch.manual_seed(0)
    inputs = (torch.randint(0, 100, (3, 5)), torch.randint(0, 50, (10,)),
              torch.tensor([0, 3, 7]), torch.rand(10))
    mapping = QConfigMapping().set_global(qconfig)
    converted = convert_fx(prepare_fx(_Embeddings().eval(), mapping, inputs))
    eager = _Embeddings().eval()
    eager.qconfig = qconfig
    eager = torch.ao.quantization.convert(
        torch.ao.quantization.prepare(eager))
    assert isinstance(eager.bag, nnq.EmbeddingBag)
    # PyTorch 1.13's eager convert of a 4-bit Embedding packs it wrongly
    # (its rows come out a quarter as wide): convert_fx's only.
    for model in (converted, eager) if bits == 8 else (converted,):
        _check_embeddings(model, fx_mlir.compile(model, inputs))


def _fx_compiled(ir, stem):
    """IR text compiled by the fx-compile tool into `<stem>.so` (from
    `<stem>.mlir`), loaded."""
    stem.with_suffix(".mlir").write_text(ir)
    subprocess.run([os.path.join(os.environ["FX_MLIR_BUILD_DIR"], "bin",
                                 "fx-compile"),
                    str(stem.with_suffix(".mlir")), "-o",
                    str(stem.with_suffix(".so"))], check=True)
    return fx_mlir.load(stem.with_suffix(".so"))


@pytest.mark.parametrize("bits", [8, 4])
def test_import_quantized_embeddings(bits):
    """import_graph_module of a converted model with quantized Embedding
    and EmbeddingBag modules: each call is the float embedding (bag) of
    its table's rows as the engine computes them, a constant of the graph
    (no quant type holds the tables' float zero points; the TorchScript
    importer does the same). The IR verifies, and exports to a GraphModule
    equal to the engine's rows and within float rounding of its bags."""
    torch.manual_seed(0)
    inputs = (torch.randint(0, 100, (3, 5)), torch.randint(0, 50, (10,)),
              torch.tensor([0, 3, 7]), torch.rand(10))
    mapping = QConfigMapping().set_global(_embedding_qconfig(bits))
    converted = convert_fx(prepare_fx(_Embeddings().eval(), mapping, inputs))
    for examples in (inputs, None):
        ir = fx_mlir.import_graph_module(converted, examples)
        assert "torch.ao.nn.quantized.Embedding" not in ir
        assert "torch.ao.nn.quantized.EmbeddingBag" not in ir
        assert re.search(r"fx\.state constant @embedding_\w+ : "
                         r"tensor<100x16xf32>", ir)
        assert re.search(r"fx\.state constant @bag_\w+ : "
                         r"tensor<50x8xf32>", ir)
    # The caller's module is left as it was.
    assert isinstance(converted.embedding, nnq.Embedding)
    _check_embeddings(converted, fx_mlir.export_graph_module(ir))
    # The bag is called twice: one table.
    assert len(re.findall(r"fx\.state constant @bag_", ir)) == 1


@pytest.mark.parametrize("bits", [8, 4])
def test_reference_embeddings(tmp_path, bits):
    """Reference mode's Embedding and EmbeddingBag
    (torch.ao.nn.quantized.reference, float weights with float-qparams
    weight_qparams) compile as the float embedding (bag) of the weight
    quantized and dequantized as PyTorch's get_weight computes it (the bag
    keeps its mode: this is the float module's forward); imported, they
    stay reference modules whose weight_qparams (scale, zero point, axis)
    rebuild them: the export computes what the model computes. Traced,
    the weight's quantize_per_channel with float zero points and its
    dequantize fold into the float rows (fx-normalize): the archive
    compiles to what it computes. The imported IR compiles with fx-compile
    too: fx-normalize expands the reference modules into the same
    constant rows and the embedding (bag) of them."""
    torch.manual_seed(0)
    inputs = (torch.randint(0, 100, (3, 5)), torch.randint(0, 50, (10,)),
              torch.tensor([0, 3, 7]), torch.rand(10))
    mapping = QConfigMapping().set_global(_embedding_qconfig(bits))
    model = _Embeddings().eval()
    # PyTorch weighs a bag's rows only when it sums them.
    model.bag.mode = "sum"
    reference = convert_to_reference_fx(prepare_fx(model, mapping, inputs))
    assert type(reference.bag).__module__.startswith(
        "torch.ao.nn.quantized.reference")
    _check_embeddings(reference, fx_mlir.compile(reference, inputs))
    ir = fx_mlir.import_graph_module(reference, inputs)
    assert re.search(r'fx\.submodule @bag "torch\.ao\.nn\.quantized\.'
                     r'reference\.EmbeddingBag"\(.*"qscheme": '
                     r'"per_channel_affine_float_qparams".*"axis": 0', ir)
    _check_embeddings(reference, fx_mlir.export_graph_module(ir))
    loaded, compiled = _traced_and_compiled(reference, inputs,
                                            tmp_path / "reference.pt")
    _check_embeddings(loaded, compiled)
    _check_embeddings(reference, _fx_compiled(ir, tmp_path / "reference"))


class _BagOfRows(nn.Module):
    """An EmbeddingBag of 2-D indices (a bag a row), no offsets."""

    def __init__(self, mode):
        super().__init__()
        self.bag = nn.EmbeddingBag(30, 6, mode=mode)

    def forward(self, j):
        return self.bag(j)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_reference_embedding_bag_of_rows(tmp_path, mode):
    """A reference EmbeddingBag called on 2-D indices without offsets (a bag
    a row), in each mode: fx_mlir.compile and fx-compile of the imported IR
    (fx-normalize flattens the indices and makes the offsets) compute what
    the reference model computes."""
    torch.manual_seed(0)
    j = torch.randint(0, 30, (4, 5))
    mapping = QConfigMapping().set_global(_embedding_qconfig(8))
    reference = convert_to_reference_fx(
        prepare_fx(_BagOfRows(mode).eval(), mapping, (j,)))
    fresh = torch.randint(0, 30, (4, 5))
    expected = reference(fresh)
    for compiled in (fx_mlir.compile(reference, (j,)),
                     _fx_compiled(fx_mlir.import_graph_module(reference,
                                                              (j,)),
                                  tmp_path / "bag")):
        assert torch.allclose(compiled(fresh), expected, rtol=1e-6,
                              atol=1e-6)

@pytest.mark.parametrize("bits", [8, 4])
def test_traced_quantized_embeddings(tmp_path, bits):
    """Traced quantized Embedding and EmbeddingBag (`embedding_byte`,
    `embedding_bag_byte` and their 4-bit forms on packed tables) are
    imported as the float embedding (bag) of the table's rows, a constant
    `<module>.weight` unpacked with embedding_bag_unpack: the archive
    compiles (rows equal, bags within float rounding of the engine's sums)
    and its IR exports to a GraphModule computing what the archive
    computes."""
    torch.manual_seed(0)
    inputs = (torch.randint(0, 100, (3, 5)), torch.randint(0, 50, (10,)),
              torch.tensor([0, 3, 7]), torch.rand(10))
    mapping = QConfigMapping().set_global(_embedding_qconfig(bits))
    converted = convert_fx(prepare_fx(_Embeddings().eval(), mapping, inputs))
    loaded, compiled = _traced_and_compiled(converted, inputs,
                                            tmp_path / "embeddings.pt")
    ir = fx_mlir.import_torchscript(loaded, inputs)
    assert "embedding_bag_unpack" not in ir and "_packed_weight" not in ir
    assert "fx.state constant @embedding.weight : tensor<100x16xf32>" in ir
    assert "fx.state constant @bag.weight : tensor<50x8xf32>" in ir
    _check_embeddings(loaded, compiled, fx_mlir.export_graph_module(ir))


class _TracedRecurrent(nn.Module):
    """A 2-layer bidirectional LSTM given its initial state, a GRU whose
    final state nothing reads (tracing drops it from the traced module's
    results) and a linear, for quantize_dynamic."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(6, 5, num_layers=2, bidirectional=True,
                            batch_first=True)
        self.gru = nn.GRU(10, 4)
        self.fc = nn.Linear(4, 3)

    def forward(self, x, h0, c0):
        out, (h, c) = self.lstm(x, (h0, c0))
        seq, _ = self.gru(out.transpose(0, 1))
        return self.fc(seq), h, c


def _check_recurrent_archive(archive, back, compiled, inputs):
    """On inputs like `inputs`: the GraphModule exported from the archive's
    IR equal to the archive, bit for bit; the compiled one within float
    rounding."""
    others = tuple(torch.randn_like(t) for t in inputs)
    expected = archive(*others)
    for e, a in zip(expected, back(*others)):
        assert torch.equal(e, a)
    for e, a in zip(expected, compiled(*others)):
        assert torch.allclose(e, a, rtol=1e-5, atol=1e-5)


def test_traced_dynamic_recurrent_layers(tmp_path):
    """A traced archive's dynamic quantized LSTM and GRU: their packed cells
    (CellParamsBase, whose state holds the packed linears) unpacked into
    PyTorch's names (`lstm.weight_ih_l1_reverse`, ...), the module's
    constructor arguments as hyperparameters, and the traced module's flat
    results (`(output, h, c)`, or the output alone) read from the module's
    own `(output, (h, c))`: the IR exports to a GraphModule equal to the
    archive, bit for bit, and the archive compiles (through that
    GraphModule, whose recurrent modules compile traces into) within float
    rounding."""
    torch.manual_seed(0)
    model = torch.ao.quantization.quantize_dynamic(
        _TracedRecurrent().eval(), {nn.LSTM, nn.GRU, nn.Linear}, dtype=torch.qint8)
    inputs = (torch.randn(2, 7, 6), torch.randn(4, 2, 5),
              torch.randn(4, 2, 5))
    loaded, compiled = _traced_and_compiled(model, inputs,
                                            tmp_path / "recurrent.pt")
    ir = fx_mlir.import_torchscript(loaded, inputs)
    assert ('"torch.ao.nn.quantized.dynamic.LSTM"(input_size=6, '
            'hidden_size=5, num_layers=2, bias=True, batch_first=True, '
            'dropout=0.0, bidirectional=True, dtype=torch.qint8)') in ir
    assert "@lstm.weight_hh_l1_reverse : tensor<20x5x!quant.uniform<i8" in ir
    assert "@gru.bias_ih_l0 : tensor<12xf32>" in ir
    back = fx_mlir.export_graph_module(ir)
    _check_recurrent_archive(loaded, back, compiled, inputs)


def test_scripted_dynamic_recurrent_layers():
    """A scripted model's dynamic quantized LSTM and GRU are called through
    their `forward_tensor(input, hx)`: imported as the modules' own calls
    (with their unpacked cells, as traced), exported bit-equal and compiled
    within float rounding."""
    torch.manual_seed(1)
    model = torch.ao.quantization.quantize_dynamic(
        _TracedRecurrent().eval(), {nn.LSTM, nn.GRU, nn.Linear},
        dtype=torch.qint8)
    scripted = torch.jit.script(model)
    inputs = (torch.randn(2, 7, 6), torch.randn(4, 2, 5),
              torch.randn(4, 2, 5))
    ir = fx_mlir.import_torchscript(scripted, inputs)
    assert "fx.call_module @lstm(%x, (%h0, %c0))" in ir
    back = fx_mlir.export_graph_module(ir)
    compiled = fx_mlir.compile(scripted, inputs, cache_dir=False)
    _check_recurrent_archive(scripted, back, compiled, inputs)


# --- Compiled: reference form, lowered; compared with the quantized engine.

def _output_scale(converted):
    """The scale of the quantized tensor the model's last dequantize reads."""
    nodes = list(converted.graph.nodes)
    last = [n for n in nodes if n.op == "call_method"
            and n.target == "dequantize"][-1].args[0]
    if last.op == "call_module":
        return converted.get_submodule(last.target).scale
    raise AssertionError(f"unexpected producer {last}")


@pytest.mark.parametrize("model_type,qconfig", [
    (MLP, "default"), (ConvNet, "default"), (ConvNet, "per_tensor")])
def test_compile_matches_the_quantized_engine(model_type, qconfig):
    mapping = (get_default_qconfig_mapping(QCONFIG) if qconfig == "default"
               else QConfigMapping().set_global(_per_tensor_qconfig()))
    converted, example = _quantize(model_type, mapping)
    compiled = fx_mlir.compile(converted, example)
    scale = _output_scale(converted)
    equal = total = 0
    for seed in (5, 6, 7):
        inputs = _inputs(model_type(), seed)
        expected, actual = converted(*inputs), compiled(*inputs)
        assert actual.dtype == torch.float32
        assert actual.shape == expected.shape
        steps = ((expected - actual).abs() / scale).round()
        # One quantization step where the engine's int32 accumulation and
        # our f32 computation round a value on either side of a half step.
        assert steps.max() <= 1, steps.max()
        equal += int((steps == 0).sum())
        total += steps.numel()
    assert equal >= 0.9 * total, (equal, total)


@pytest.mark.parametrize("model_type", [MLP, ConvNet])
def test_compile_weights_as_arguments(model_type):
    """With weights_as_arguments the code takes its state as arguments,
    fx-fold-quant's dequantized weights (a quantized Linear's on CPUs
    whose int8 kernels do not take it) among them: the same results as
    the weights compiled in."""
    converted, example = _quantize(model_type,
                                   get_default_qconfig_mapping(QCONFIG))
    inlined = fx_mlir.compile(converted, example)
    passed = fx_mlir.compile(converted, example, weights_as_arguments=True)
    for seed in (5, 6):
        inputs = _inputs(model_type(), seed)
        assert torch.equal(inlined(*inputs), passed(*inputs))


def test_quantize_and_dequantize_are_exact():
    class QDQ(nn.Module):
        def forward(self, x):
            q = torch.quantize_per_tensor(x, 0.037, 131, torch.quint8)
            s = torch.quantize_per_tensor(x, 0.011, -3, torch.qint8)
            return q.dequantize(), s.dequantize(), q.int_repr(), s.int_repr()

    gm = torch.fx.symbolic_trace(QDQ())
    torch.manual_seed(0)
    x = torch.randn(3, 17) * 4
    x[0, :4] = torch.tensor([0.0185, -0.0185, 1e9, -1e9])
    compiled = fx_mlir.compile(gm, (x,))
    for expected, actual in zip(gm(x), compiled(x)):
        assert expected.dtype == actual.dtype
        assert torch.equal(expected, actual), (expected, actual)


def test_quantized_outputs_are_quantized_tensors(tmp_path):
    """A graph that returns quantized tensors (no dequantize) gives them
    back as quantized tensors of the same dtype, scale and zero point and
    the same integers, also when loaded from the code cache."""
    class QOut(nn.Module):
        def forward(self, x):
            q = torch.quantize_per_tensor(x, 0.037, 131, torch.quint8)
            s = torch.quantize_per_tensor(x, 0.011, -3, torch.qint8)
            return q, (s, x.sum())

    gm = torch.fx.symbolic_trace(QOut())
    torch.manual_seed(0)
    x = torch.randn(3, 17) * 4
    for attempt in range(2):  # compiled, then from the cache
        compiled = fx_mlir.compile(gm, (x,), cache_dir=str(tmp_path))
        assert compiled.from_cache == (attempt == 1)
        (q, (s, total)), (eq, (es, etotal)) = compiled(x), gm(x)
        for actual, expected in ((q, eq), (s, es)):
            assert actual.dtype == expected.dtype
            assert (actual.q_scale(), actual.q_zero_point()) == \
                (expected.q_scale(), expected.q_zero_point())
            assert torch.equal(actual.int_repr(), expected.int_repr())
        assert torch.allclose(total, etotal)


def test_per_channel_quantized_inputs_and_outputs():
    """Per-channel quantized tensors in and out: quantize_per_channel
    computed as ATen does (each element with its channel's scale and zero
    point), the output a per-channel quantized tensor of the same
    parameters, a per-channel input checked against its example's."""
    class PerChannel(nn.Module):
        def forward(self, x, q):
            scales = torch.tensor([0.05, 0.1, 0.02], dtype=torch.double)
            zero_points = torch.tensor([0, 3, -2])
            return (torch.quantize_per_channel(x, scales, zero_points, 1,
                                               torch.qint8),
                    q.dequantize() + 1)

    gm = torch.fx.symbolic_trace(PerChannel())
    torch.manual_seed(0)

    def example():
        q = torch.quantize_per_channel(
            torch.randn(2, 4), torch.tensor([0.1, 0.2], dtype=torch.double),
            torch.tensor([1, -1]), 0, torch.qint8)
        return torch.randn(4, 3, 5) * 3, q
    compiled = fx_mlir.compile(gm, example())
    inputs = example()
    (eq, ed), (aq, ad) = gm(*inputs), compiled(*inputs)
    assert aq.qscheme() == torch.per_channel_affine
    assert aq.q_per_channel_axis() == 1
    assert torch.equal(aq.q_per_channel_scales(), eq.q_per_channel_scales())
    assert torch.equal(aq.q_per_channel_zero_points(),
                       eq.q_per_channel_zero_points())
    assert torch.equal(aq.int_repr(), eq.int_repr())
    assert torch.equal(ad, ed)
    other = torch.quantize_per_channel(
        torch.randn(2, 4), torch.tensor([0.1, 0.3], dtype=torch.double),
        torch.tensor([1, -1]), 0, torch.qint8)
    with pytest.raises(fx_mlir.FxMlirError, match="input 1: .*per channel"):
        compiled(inputs[0], other)


def test_converted_model_with_a_quantized_output():
    """convert_fx with the output left quantized
    (set_output_quantized_indexes): the compiled model returns the
    engine's quint8 tensor."""
    from torch.ao.quantization.fx.custom_config import PrepareCustomConfig
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU()).eval()
    x = torch.randn(1, 3, 10, 10)
    prepared = prepare_fx(
        model, get_default_qconfig_mapping(QCONFIG), (x,),
        prepare_custom_config=PrepareCustomConfig()
        .set_output_quantized_indexes([0]))
    prepared(x)
    converted = convert_fx(prepared)
    compiled = fx_mlir.compile(converted, (x,))
    x = torch.randn(1, 3, 10, 10)
    expected, actual = converted(x), compiled(x)
    assert actual.dtype == expected.dtype == torch.quint8
    assert actual.q_scale() == expected.q_scale()
    assert actual.q_zero_point() == expected.q_zero_point()
    assert (actual.int_repr().int() - expected.int_repr().int()).abs().max() \
        <= 1


class TwoInputs(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Conv2d(3, 8, 1)
        self.b = nn.Conv2d(5, 8, 1)

    def forward(self, x, y):
        return self.a(x) + self.b(y)


def test_two_input_model():
    """convert_fx puts each input's scale and zero point get_attrs right
    after its placeholder, before the next placeholder: the importer puts
    the placeholders first (as the fx dialect has them); the model
    compiles, matches the engine, and exports back."""
    torch.manual_seed(0)
    example = (torch.randn(1, 3, 10, 10), torch.randn(1, 5, 10, 10))
    prepared = prepare_fx(TwoInputs().eval(),
                          get_default_qconfig_mapping(QCONFIG), example)
    for seed in range(3):
        prepared(*_inputs_like(example, 100 + seed))
    converted = convert_fx(prepared)
    order = [n.op for n in converted.graph.nodes]
    assert order.index("get_attr") < len(order) - 1 - order[::-1].index(
        "placeholder")  # a get_attr between the placeholders
    compiled = fx_mlir.compile(converted, example)
    add = next(n for n in converted.graph.nodes
               if n.op == "call_function" and "add" in str(n.target))
    scale = getattr(converted, add.args[2].target)  # the add's output
    for seed in (1, 2):
        inputs = _inputs_like(example, seed)
        steps = ((converted(*inputs) - compiled(*inputs)).abs() / scale)
        assert steps.round().max() <= 1
    ir = fx_mlir.import_graph_module(converted, example)
    _assert_round_trip(converted, example, fx_mlir.export_graph_module(ir))


def test_quantized_inputs():
    """A quantized input is passed as its integers, once its dtype, scale
    and zero point are checked against the example's (a tensor quantized
    otherwise, or a float one, is refused by input index)."""
    class Scale(nn.Module):
        def forward(self, q, x):
            return q.dequantize() * 2 + x, torch.ops.quantized.add(
                q, q, 0.2, 7)

    gm = torch.fx.symbolic_trace(Scale())
    torch.manual_seed(0)
    q = torch.quantize_per_tensor(torch.randn(4, 5), 0.1, 3, torch.quint8)
    x = torch.randn(4, 5)
    compiled = fx_mlir.compile(gm, (q, x))
    q2 = torch.quantize_per_tensor(torch.randn(4, 5), 0.1, 3, torch.quint8)
    (expected, expected_q), (actual, actual_q) = gm(q2, x), compiled(q2, x)
    assert torch.equal(expected, actual)
    assert actual_q.dtype == torch.quint8 and actual_q.q_scale() == 0.2
    assert torch.equal(expected_q.int_repr(), actual_q.int_repr())
    other = torch.quantize_per_tensor(torch.randn(4, 5), 0.2, 3, torch.quint8)
    with pytest.raises(fx_mlir.FxMlirError,
                       match="input 0: .*scale 0.1 and zero point 3; got "
                             ".*scale 0.2"):
        compiled(other, x)
    with pytest.raises(fx_mlir.FxMlirError, match="input 0: .*got torch.float32"):
        compiled(torch.randn(4, 5), x)


def test_saved_library_checks_quantized_inputs(tmp_path):
    """A library saved from a graph with quantized inputs (per tensor and
    per channel) holds their quantization in its signature: loaded back,
    it takes quantized tensors as the compiled graph does, and refuses one
    quantized otherwise, by index."""
    class Mix(nn.Module):
        def forward(self, q, p, x):
            return (q.dequantize() * 2 + x + p.dequantize(),
                    torch.ops.quantized.add(q, q, 0.2, 7))

    gm = torch.fx.symbolic_trace(Mix())
    torch.manual_seed(0)
    scales, zeros = torch.tensor([0.1, 0.05, 0.2, 0.3, 0.07],
                                 dtype=torch.double), torch.tensor([0, 1, 2,
                                                                    3, 4])

    def inputs():
        return (torch.quantize_per_tensor(torch.randn(4, 5), 0.1, 3,
                                          torch.quint8),
                torch.quantize_per_channel(torch.randn(4, 5), scales, zeros,
                                           1, torch.qint8),
                torch.randn(4, 5))

    compiled = fx_mlir.compile(gm, inputs(), cache_dir="")
    compiled.save(tmp_path / "mix.so")
    loaded = fx_mlir.load(tmp_path / "mix.so")
    args = inputs()
    (expected, expected_q), (actual, actual_q) = gm(*args), loaded(*args)
    assert torch.equal(expected, actual)
    assert actual_q.dtype == torch.quint8 and actual_q.q_scale() == 0.2
    assert torch.equal(expected_q.int_repr(), actual_q.int_repr())
    q, p, x = args
    other = torch.quantize_per_tensor(torch.randn(4, 5), 0.2, 3, torch.quint8)
    with pytest.raises(fx_mlir.FxMlirError,
                       match="input 0: .*scale 0.1 and zero point 3; got "
                             ".*scale 0.2"):
        loaded(other, p, x)
    per_tensor = torch.quantize_per_tensor(torch.randn(4, 5), 0.1, 0,
                                           torch.qint8)
    with pytest.raises(fx_mlir.FxMlirError,
                       match="input 1: .*torch.qint8 per channel along dim "
                             "1; got torch.qint8 of scale"):
        loaded(q, per_tensor, x)
    with pytest.raises(fx_mlir.FxMlirError, match="input 0: .*got torch.uint8"):
        loaded(q.int_repr(), p, x)


@torch.fx.wrap
def _opaque(q):
    """A function the compiler does not know, whose body does not trace
    (control flow on a value): fallback runs it."""
    if bool(q.int_repr().sum() >= 0):
        return torch.flip(q, [1])
    return q


def test_fallback_partitions_take_quantized_inputs():
    """With fallback=True, an op the compiler does not take runs in PyTorch
    and the partition after it, which reads its quantized result, is
    compiled."""
    class Model(nn.Module):
        def forward(self, x):
            q = _opaque(torch.quantize_per_tensor(x, 0.1, 10, torch.quint8))
            return torch.ops.quantized.add(q, q, 0.2, 5).dequantize()

    gm = torch.fx.symbolic_trace(Model())
    x = torch.randn(2, 6)
    with pytest.warns(UserWarning, match="PyTorch runs") as record:
        compiled = fx_mlir.compile(gm, (x,), fallback=True)
    message = str(record[0].message)
    assert "_opaque" in message and "left uncompiled" not in message
    x = torch.randn(2, 6)
    assert torch.equal(gm(x), compiled(x))


@pytest.mark.parametrize("model_type", [MLP, ConvNet])
def test_compile_reference_mode(model_type):
    """convert_to_reference_fx: quantize/dequantize pairs around float
    operators, the reference modules' weights quantized and dequantized
    (computed once at compile time). The reference model computes in
    float between its quantize nodes, as the compiled code does."""
    converted, example = _quantize(model_type, get_default_qconfig_mapping(
        ENGINE), reference=True)
    ir = fx_mlir.import_graph_module(converted, example)
    assert "torch.ao.nn.quantized.reference.Linear" in ir
    compiled = fx_mlir.compile(converted, example)
    last = [n for n in converted.graph.nodes
            if n.op == "call_function" and n.target == torch.quantize_per_tensor][-1]
    scale = float(getattr(converted, last.args[1].target))
    for seed in (5, 6):
        inputs = _inputs(model_type(), seed)
        expected, actual = converted(*inputs), compiled(*inputs)
        steps = ((expected - actual).abs() / scale).round()
        assert steps.max() <= 1, steps.max()
        assert (steps == 0).float().mean() >= 0.9


class _Functional(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(8, 4)
        self.conv = nn.Conv2d(3, 4, 3)

    def forward(self, x, y):
        return (F.linear(x, self.linear.weight, self.linear.bias),
                F.conv2d(y, self.conv.weight, self.conv.bias))


def test_compile_reference_mode_functional():
    """Reference mode of functional F.linear/F.conv2d: their weights
    quantized per channel in the graph (quantize_per_channel, dequantize)
    before the float op: equal to the reference model."""
    torch.manual_seed(0)
    example = (torch.randn(3, 8), torch.randn(1, 3, 6, 6))
    prepared = prepare_fx(_Functional().eval(),
                          get_default_qconfig_mapping(QCONFIG), example)
    prepared(*example)
    reference = convert_to_reference_fx(prepared)
    assert any(n.target == torch.quantize_per_channel
               for n in reference.graph.nodes)
    compiled = fx_mlir.compile(reference, example)
    inputs = _inputs_like(example, 1)
    for expected, actual in zip(reference(*inputs), compiled(*inputs)):
        assert torch.equal(expected, actual)


class _FunctionalReLU(nn.Module):
    """F.conv1d/2d and F.linear on the model's weights, fused with relu
    or not, strided and grouped."""

    def __init__(self):
        super().__init__()
        self.w2 = nn.Parameter(torch.randn(6, 2, 3, 3) * 0.3)
        self.b2 = nn.Parameter(torch.randn(6) * 0.1)
        self.w1 = nn.Parameter(torch.randn(4, 6, 3) * 0.3)
        self.lw = nn.Parameter(torch.randn(5, 4) * 0.3)
        self.lw2 = nn.Parameter(torch.randn(3, 5) * 0.3)
        self.lb = nn.Parameter(torch.randn(3) * 0.1)

    def forward(self, x):
        y = F.relu(F.conv2d(x, self.w2, self.b2, [2, 1], [1, 0], [1, 1], 2))
        z = F.conv1d(y.flatten(2), self.w1, None, [1], [1], [1], 1)
        h = F.relu(F.linear(z.mean(2), self.lw))
        return F.linear(h, self.lw2, self.lb), z


def test_functional_packed_weights():
    """convert_fx lowers F.linear and F.convNd on the model's weights to
    torch.ops.quantized calls on packed weights (get_attr of a TorchScript
    object). The importer makes each the quantized module computing it:
    the IR has the module form, export runs the same operators (equal to
    the converted model), and the compiled code is within one step."""
    torch.backends.quantized.engine = ENGINE
    # (convert_fx packs F.conv2d's weights only with its stride, padding,
    # dilation and groups given positionally, as lists.)
    example = (torch.randn(2, 4, 7, 5),)
    torch.manual_seed(0)
    prepared = prepare_fx(_FunctionalReLU().eval(),
                          get_default_qconfig_mapping(QCONFIG), example)
    prepared(*example)
    _calibrate_wide(prepared, example)
    converted = convert_fx(prepared)
    assert sum(n.op == "get_attr" and isinstance(
        getattr(converted, n.target), torch.ScriptObject)
        for n in converted.graph.nodes) == 4
    ir = fx_mlir.import_graph_module(converted, example)
    assert 'fx.call_function "torch.ops.quantized.conv' not in ir
    assert 'fx.call_function "torch.ops.quantized.linear' not in ir
    back = fx_mlir.export_graph_module(ir)
    compiled = fx_mlir.compile(converted, example)
    inputs = _inputs_like(example, 1)
    output = next(n for n in back.graph.nodes if n.op == "output")
    scales = [back.get_submodule(d.args[0].target).scale
              for d in output.args[0]]
    for want, got, ours, scale in zip(converted(*inputs), back(*inputs),
                                      compiled(*inputs), scales):
        assert torch.equal(want, got)
        assert ((want - ours).abs() / scale).max() <= 1 + 1e-4
    assert re.search(r'fx.submodule @packed_weight_0_module "torch.ao.nn.'
                     r'intrinsic.quantized.ConvReLU2d"\(in_channels=4, '
                     r'out_channels=6, kernel_size=\(3, 3\), stride=\(2, 1\), '
                     r'padding=\(1, 0\), dilation=\(1, 1\), groups=2', ir), ir
    assert re.search(r'%conv2d = fx.call_module @packed_weight_0_module\(', ir)


def test_compile_dynamic_quantization():
    """Dynamic quantization (default_dynamic_qconfig): the input's scale
    and zero point chosen at run time as the onednn/x86 engines choose them
    (reduce_range), the input quantized, the float linear on the
    dequantized weight. Equal to the engine's up to an input element whose
    rounding the int8 kernel breaks the other way: one step of the input
    times a weight row."""
    if ENGINE != "onednn":
        pytest.skip("qnnpack ignores reduce_range")
    converted, example = _quantize(MLP, CASES["mlp_dynamic"][1]())
    assert "torch.ao.nn.quantized.dynamic.Linear" in \
        fx_mlir.import_graph_module(converted, example)
    compiled = fx_mlir.compile(converted, example)
    for seed in (5, 6, 7):
        torch.manual_seed(seed)
        x = torch.randn(4, 6) * (seed - 4)
        expected, actual = converted(x), compiled(x)
        scale, _ = torch._choose_qparams_per_tensor(x, True)
        bound = 0.0
        for name in ("fc1", "fc2"):
            w = converted.get_submodule(name).weight().dequantize()
            bound = max(bound, float(w.abs().sum(1).max()))
        # fc1's step through the relu and fc2, at most.
        assert (expected - actual).abs().max() <= 2 * scale * bound * bound


def test_choose_qparams_and_fake_quantize_are_exact():
    class ChooseQParams(nn.Module):
        def forward(self, x):
            qparams = torch._choose_qparams_per_tensor(x, True)
            scale, zero_point = qparams[0], qparams[1]
            return scale, zero_point, torch.fake_quantize_per_tensor_affine(
                x, scale, zero_point, 0, 255)

    gm = torch.fx.symbolic_trace(ChooseQParams())
    compiled = fx_mlir.compile(gm, (torch.randn(4, 16),))
    for seed in range(40):
        torch.manual_seed(seed)
        # Ranges from 1e-4 (scales under ATen's 6.1e-5 threshold) to 1e2,
        # around 0, all positive, all negative.
        x = torch.randn(4, 16) * 10.0 ** (seed % 7 - 4)
        if seed % 3 == 1:
            x = x.abs()
        elif seed % 3 == 2:
            x = -x.abs()
        expected, actual = gm(x), compiled(x)
        assert expected[0] == actual[0] and expected[1] == actual[1]
        assert torch.equal(expected[2], actual[2])


def test_compile_traced_quantized_model(tmp_path):
    """A converted model traced and saved (.pt): its quantized modules'
    packed params unpacked by the TorchScript importer, compiled, against
    the loaded archive on the quantized engine."""
    import warnings
    # (MLP: a traced float torch.nn leaf such as ConvNet's nn.MaxPool2d
    # keeps no hyperparameters in the archive; its quantized modules do.)
    converted, example = _quantize(MLP, get_default_qconfig_mapping(QCONFIG))
    path = tmp_path / "quantized.pt"
    torch.jit.trace(converted, example).save(str(path))
    loaded = torch.jit.load(str(path))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compiled = fx_mlir.compile(loaded, example)
    scale = _output_scale(converted)
    for seed in (5, 6):
        inputs = _inputs(MLP(), seed)
        steps = ((loaded(*inputs) - compiled(*inputs)).abs() / scale).round()
        assert steps.max() <= 1, steps.max()




def _traced_and_compiled(converted, example, path):
    """`converted` traced and saved at `path`: the loaded archive, and it
    compiled."""
    import warnings
    with torch.no_grad():
        torch.jit.trace(converted, example).save(str(path))
    loaded = torch.jit.load(str(path))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return loaded, fx_mlir.compile(loaded, example, cache_dir=False)


class ScalarArithmetic(nn.Module):
    """A conv's output times, plus and minus numbers: convert_fx writes
    them as torch.ops.quantized.mul/add/mul_relu/add_relu of a number,
    which a trace records as their `.Scalar` overloads."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)
        self.out = nn.Conv2d(4, 4, 1)

    def forward(self, x):
        y = self.conv(x)
        z = (y * 0.5 + 0.25 * y + (y + 0.5) + torch.relu(y * 2.0)
             + torch.relu(y + 0.3) + y * -0.7)
        return self.out(z)


INPUT_SHAPES[ScalarArithmetic] = (2, 3, 8, 8)


def test_compile_traced_quantized_scalar_arithmetic(tmp_path):
    """quantized::mul.Scalar, add.Scalar, mul_relu.Scalar, add_relu.Scalar
    in a traced archive: compiled as the GraphModule's torch.ops.quantized
    functions are (they had no lowering), against the loaded archive."""
    converted, example = _quantize(ScalarArithmetic,
                                   get_default_qconfig_mapping(QCONFIG))
    loaded, compiled = _traced_and_compiled(converted, example,
                                            tmp_path / "scalars.pt")
    kinds = {n.kind() for n in loaded.inlined_graph.nodes()}
    assert {"quantized::mul", "quantized::add", "quantized::mul_relu",
            "quantized::add_relu"} <= kinds
    scale = converted.out.scale
    for seed in (5, 6):
        inputs = _inputs_like(example, seed)
        steps = ((loaded(*inputs) - compiled(*inputs)).abs() / scale).round()
        assert steps.max() <= 1, steps.max()


def test_compile_traced_reference_model(tmp_path):
    """A reference-mode model (convert_to_reference_fx) traced and saved:
    its reference Linear/Conv2d modules are float modules whose forward
    quantizes and dequantizes their weight with aten operators on their
    own state (weight, weight_scale, weight_zero_point); the importer walks
    into them (a traced archive keeps none of their weight_qparams)."""
    converted, example = _quantize(ConvNet,
                                   get_default_qconfig_mapping(QCONFIG),
                                   reference=True)
    loaded, compiled = _traced_and_compiled(converted, example,
                                            tmp_path / "reference.pt")
    for seed in (5, 6):
        inputs = _inputs_like(example, seed)
        expected, actual = loaded(*inputs), compiled(*inputs)
        # The output is a dequantized tensor: one step is its smallest
        # nonzero difference.
        step = expected.unique().diff().min()
        assert ((expected - actual).abs() / step).max() <= 1.01

# Quantized modules whose hyperparameters are plain attributes, which a
# traced archive does not keep: the TorchScript importer takes them from
# the constants their forward passes to its quantized operator, and their
# float state (norm weights, running statistics) from the module.
TRACED_HYPERPARAMETERS = {
    "leaky_relu": lambda: nn.LeakyReLU(0.3),
    "elu": lambda: nn.ELU(0.5),
    "softmax": lambda: nn.Softmax(dim=2),
    "layer_norm": lambda: nn.LayerNorm([6], eps=1e-2),
    "instance_norm": lambda: nn.InstanceNorm2d(4, eps=1e-2, affine=True),
    "batch_norm": lambda: nn.BatchNorm2d(4, eps=1e-1),
}


class _ConvThen(nn.Module):
    def __init__(self, name):
        super().__init__()
        self.conv = nn.Conv2d(4, 4, 1)
        self.layer = TRACED_HYPERPARAMETERS[name]()
        self.name = name
        with torch.no_grad():
            for p in self.layer.parameters():
                p.uniform_(-1, 1)
            if name == "batch_norm":
                self.layer.running_mean.uniform_(-1, 1)
                self.layer.running_var.uniform_(0.01, 0.05)

    def forward(self, x):
        y = self.conv(x)
        # A ReLU between keeps the batch norm from fusing into the conv.
        return self.layer(F.relu(y) if self.name == "batch_norm" else y)


@pytest.mark.parametrize("name", sorted(TRACED_HYPERPARAMETERS))
def test_traced_quantized_module_hyperparameters(name, tmp_path):
    torch.manual_seed(0)
    example = (torch.randn(2, 4, 6, 6),)
    prepared = prepare_fx(_ConvThen(name).eval(),
                          get_default_qconfig_mapping(QCONFIG), example)
    with torch.no_grad():
        for seed in range(3):
            prepared(*_inputs_like(example, 100 + seed))
    converted = convert_fx(prepared)
    loaded, compiled = _traced_and_compiled(converted, example,
                                            tmp_path / "quantized.pt")
    scale = _output_scale(converted)
    for seed in (5, 6):
        inputs = _inputs_like(example, seed)
        steps = ((loaded(*inputs) - compiled(*inputs)).abs() / scale).round()
        assert steps.max() <= 1, steps.max()

class _EncoderHead(nn.Module):
    """A quantized linear after a torch.nn leaf convert_fx leaves float
    (nn.TransformerEncoderLayer: a call_module between a dequantize and a
    quantize), which the compiler traces into."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Linear(16, 16)
        self.encoder = nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0,
                                                  batch_first=True)
        self.head = nn.Linear(16, 4)

    def forward(self, x):
        return self.head(self.encoder(self.embed(x)))


def test_compile_float_leaf_in_a_converted_model():
    torch.manual_seed(0)
    model = _EncoderHead().eval()
    example = (torch.randn(2, 5, 16),)
    prepared = prepare_fx(model, get_default_qconfig_mapping(QCONFIG), example)
    for seed in range(3):
        torch.manual_seed(100 + seed)
        prepared(torch.randn(2, 5, 16))
    converted = convert_fx(prepared)
    assert "encoder" in [n.target for n in converted.graph.nodes
                         if n.op == "call_module"]
    compiled = fx_mlir.compile(converted, example)
    scale = _output_scale(converted)
    for seed in (5, 6):
        torch.manual_seed(seed)
        x = torch.randn(2, 5, 16)
        steps = (converted(x) - compiled(x)).abs() / scale
        assert steps.max() <= 1.01, steps.max()


class _TracedSegmenter(nn.Module):
    """Convs of the same weight shape in a row (each quantized module's
    unpacked weights a new tensor: none may pass for another's alias), a
    quantized Dropout (traced as a call of no arguments), a max pooling
    and a dict output, as torchvision's segmentation models return."""

    def __init__(self):
        super().__init__()
        self.convs = nn.Sequential(*[nn.Conv2d(8, 8, 3, padding=1)
                                     for _ in range(4)])
        self.stem = nn.Conv2d(3, 8, 3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.drop = nn.Dropout(0.1)
        self.head = nn.Conv2d(8, 4, 1)

    def forward(self, x):
        y = self.pool(F.relu(self.stem(x)))
        y = self.convs(y)
        return {"out": self.head(self.drop(y))}


def test_compile_traced_quantized_archive(tmp_path):
    """A converted model traced (strict=False: a dict output), saved and
    loaded: fx_mlir.compile imports it with its traced torch.nn leaves
    walked into and its quantized modules kept, within one step of the
    engine."""
    torch.manual_seed(0)
    x = torch.randn(1, 3, 16, 16)
    prepared = prepare_fx(_TracedSegmenter().eval(),
                          get_default_qconfig_mapping(QCONFIG), (x,))
    for _ in range(3):
        prepared(torch.randn(1, 3, 16, 16))
    converted = convert_fx(prepared)
    path = str(tmp_path / "segmenter.pt")
    torch.jit.trace(converted, (x,), strict=False).save(path)
    loaded = torch.jit.load(path)
    compiled = fx_mlir.compile(loaded, (x,))
    step = converted.head.scale
    for seed in (1, 2):
        torch.manual_seed(seed)
        y = torch.randn(1, 3, 16, 16)
        expected, actual = loaded(y)["out"], compiled(y)["out"]
        assert actual.shape == expected.shape
        assert (expected - actual).abs().max() <= step * 1.01


class _InPlaceOnQuantizedInput(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.relu = torch.nn.ReLU(inplace=True)
        self.drop = torch.nn.Dropout(0.2, inplace=True)

    def forward(self, q):
        return self.drop(self.relu(q))


def test_inplace_update_of_a_quantized_input_is_written_back():
    """An in-place module on a quantized input (mobilenet_v3's
    Dropout(inplace=True), ReLU(inplace=True)) updates the caller's
    quantized tensor, as eager does: the code's new integers are written
    back into it, not into the integer storage passed to the code."""
    model = _InPlaceOnQuantizedInput().eval()

    def quantized():
        torch.manual_seed(0)
        return torch.quantize_per_tensor(torch.randn(2, 8), 0.05, 128,
                                         torch.quint8)
    compiled = fx_mlir.compile(model, (quantized(),), cache_dir="")
    mine, theirs = quantized(), quantized()
    got, want = compiled(mine), model(theirs)
    assert torch.equal(got.int_repr(), want.int_repr())
    assert torch.equal(mine.int_repr(), theirs.int_repr())
    assert (mine.dequantize() >= 0).all()


def test_reference_dynamic_quantization_with_fallback():
    """convert_to_reference_fx of a dynamic qconfig quantizes activations
    with torch.quantize_per_tensor_dynamic, whose scale and zero point
    change with each input: with fallback=True PyTorch runs it and its
    dequantize, and the compiled linears read floats, on any input (the
    compiled partition was fixed to the example's quantization)."""
    from torch.ao.quantization import QConfigMapping, default_dynamic_qconfig
    from torch.ao.quantization.quantize_fx import (convert_to_reference_fx,
                                                   prepare_fx)
    torch.manual_seed(0)
    example = (torch.randn(3, 16),)
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(),
                          nn.Linear(32, 4)).eval()
    prepared = prepare_fx(
        model, QConfigMapping().set_global(default_dynamic_qconfig), example)
    prepared(*example)
    reference = convert_to_reference_fx(prepared)
    with pytest.warns(UserWarning, match="PyTorch runs"):
        compiled = fx_mlir.compile(reference, example, cache_dir="",
                                   fallback=True)
    for x in (example[0], torch.randn(3, 16) * 2, torch.randn(3, 16) - 1):
        torch.testing.assert_close(compiled(x), reference(x))


def test_quantize_of_infinities_and_huge_values_matches_aten():
    """+inf and values whose scaled round is 2^63 or more quantize to the
    dtype's minimum, as ATen's quantize_val gives (its int64 conversion
    gives INT64_MIN, then clamped); -inf to the minimum, NaN too."""
    class Quantize(nn.Module):
        def forward(self, x):
            return torch.quantize_per_tensor(x, 0.05, 128, torch.quint8)
    x = torch.tensor([1.0, float("inf"), float("-inf"), 1e30, -1e30, 1e20,
                      6.5, float("nan")])
    compiled = fx_mlir.compile(Quantize(), (x,), cache_dir="")
    want = Quantize()(x).int_repr()
    assert torch.equal(compiled(x).int_repr(), want)
    assert want[1] == 0 and want[5] == 0


@pytest.mark.parametrize("zero_point", [0, 10])
def test_quantize_of_relu_matches_aten_on_nan(zero_point):
    """quantize(relu(x)) and fake_quantize(relu(x)): the ReLU folds into
    the clamp only where the zero point is the dtype's minimum, where a
    NaN gives the minimum either way; above it the ReLU stays, so a NaN
    still gives the minimum (PyTorch's relu keeps the NaN), not the zero
    point."""
    class ReluQuantize(nn.Module):
        def forward(self, x):
            r = torch.relu(x)
            return (torch.quantize_per_tensor(r, 0.5, zero_point,
                                              torch.quint8),
                    torch.fake_quantize_per_tensor_affine(
                        r, 0.25, zero_point, 0, 255))
    x = torch.tensor([float("nan"), -1.0, -0.0, 0.0, 0.2, 2.0, 1e3, 77.7]
                     * 4)
    compiled = fx_mlir.compile(ReluQuantize(), (x,), cache_dir="")
    got, want = compiled(x), ReluQuantize()(x)
    assert torch.equal(got[0].int_repr(), want[0].int_repr())
    assert torch.equal(got[1], want[1])


class _Cells(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTMCell(4, 6)
        self.gru = nn.GRUCell(6, 5)
        self.rnn = nn.RNNCell(5, 3, nonlinearity="relu")
        self.lin = nn.Linear(3, 2)

    def forward(self, x, h0, c0):
        h, c = self.lstm(x, (h0, c0))
        return self.lin(self.rnn(self.gru(h))), c


def test_compile_dynamic_quantized_cells():
    """quantize_dynamic's default set holds LSTMCell, GRUCell and RNNCell:
    each compiles as its step with dynamically quantized projections of
    its unpacked qint8 weights (reduce_range, as ATen's
    quantized_*_cell_dynamic), within float rounding of the engine."""
    torch.manual_seed(0)
    model = torch.ao.quantization.quantize_dynamic(_Cells().eval())
    example = (torch.randn(3, 4), torch.randn(3, 6), torch.randn(3, 6))
    compiled = fx_mlir.compile(model, example, cache_dir="")
    assert compiled.route == "torch.fx"
    for _ in range(3):
        inputs = tuple(torch.randn_like(t) * 2 for t in example)
        for got, want in zip(compiled(*inputs), model(*inputs)):
            torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)


class _ScalarFunctionals(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = torch.ao.quantization.QuantStub()
        self.dequant = torch.ao.quantization.DeQuantStub()
        self.conv = nn.Conv2d(3, 4, 3)
        self.add = torch.ao.nn.quantized.FloatFunctional()
        self.shift = torch.ao.nn.quantized.FloatFunctional()
        self.mul = torch.ao.nn.quantized.FloatFunctional()

    def forward(self, x):
        y = self.conv(self.quant(x))
        a = self.add.add_scalar(y, 0.7)
        b = self.mul.mul_scalar(self.shift.add_scalar(y, -40.0), -1.3)
        return self.dequant(a), self.dequant(b)


def test_compile_eager_mode_scalar_functionals():
    """Eager-mode quantization's FloatFunctional.add_scalar/mul_scalar
    (torch.ops.quantized.add_scalar/mul_scalar, whose output scale and
    zero point ATen chooses from the input's and the number) compile as
    the float operator between the dequantize and the quantize to the
    result's type: within one step of the engine."""
    torch.manual_seed(0)
    model = _ScalarFunctionals().eval()
    model.qconfig = torch.ao.quantization.get_default_qconfig(QCONFIG)
    prepared = torch.ao.quantization.prepare(model)
    prepared(torch.randn(2, 3, 8, 8))
    _calibrate_wide(prepared, (torch.randn(2, 3, 8, 8) * 2,))
    quantized = torch.ao.quantization.convert(prepared)
    compiled = fx_mlir.compile(quantized, (torch.randn(2, 3, 8, 8),),
                               cache_dir="")
    for _ in range(3):
        x = torch.randn(2, 3, 8, 8) * 2
        y = quantized.conv(quantized.quant(x))
        a = quantized.add.add_scalar(y, 0.7)
        b = quantized.mul.mul_scalar(quantized.shift.add_scalar(y, -40.0),
                                     -1.3)
        for got, want in zip(compiled(x), (a, b)):
            steps = (got - want.dequantize()).abs().max() / want.q_scale()
            assert steps <= 1 + 1e-4


class _QuantizedClamps(nn.Module):
    """torch's quantized ReLU6, hardtanh, clamp and relu on a quantized
    tensor (each clamps the integers, bounds quantized)."""

    def forward(self, x):
        q = torch.quantize_per_tensor(x, 0.05, 30, torch.quint8)
        return (F.relu6(q), F.hardtanh(q, -0.5, 0.3),
                torch.clamp(q, min=-0.2), torch.clamp(q, max=0.1),
                torch.clamp(q, -0.33, 0.77), F.relu(q))


def test_quantized_clamps_are_integer_clamps():
    """quantize(clamp(fake_quantize(y))) with the same parameters (what
    fx-fold-quant leaves of a clamp on a quantized tensor) is compiled as
    one quantize of y clamped between the bounds' quantizations
    (lowerQuantizePerTensor's clampedOperand): equal to PyTorch's
    quantized kernels, NaN and values past the bounds included, and
    infinities and values from 2^63 scale steps up, which the first
    quantize makes the dtype's minimum (fx.quantize_overflow); and in a
    converted model (unfused ReLU6 after a conv) equal to the engine."""
    x = torch.tensor([float("nan"), -2.0, -0.51, -0.5, -0.2, -0.0, 0.0,
                      0.024, 0.025, 0.026, 0.1, 0.3, 0.31, 5.99, 6.0,
                      6.1, 1e3, 1e30, -1e30, float("inf"),
                      -float("inf")] * 2)
    compiled = fx_mlir.compile(_QuantizedClamps(), (x,), cache_dir="")
    for got, want in zip(compiled(x), _QuantizedClamps()(x)):
        assert (got.q_scale(), got.q_zero_point()) == \
            (want.q_scale(), want.q_zero_point())
        assert torch.equal(got.int_repr(), want.int_repr())

    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU6(),
                          nn.Conv2d(8, 8, 1), nn.Hardtanh(-0.4, 0.5)).eval()
    inputs = (torch.randn(1, 3, 12, 12),)
    prepared = prepare_fx(model, get_default_qconfig_mapping(QCONFIG),
                          inputs)
    with torch.no_grad():
        for _ in range(3):
            prepared(torch.randn(1, 3, 12, 12))
    _calibrate_wide(prepared, inputs)
    converted = convert_fx(prepared).eval()
    step = converted.get_submodule("2").scale
    for cpu in (None, "x86-64-v3"):
        compiled = fx_mlir.compile(converted, inputs, cache_dir="", cpu=cpu)
        x = torch.randn(1, 3, 12, 12)
        diff = (compiled(x) - converted(x)).abs() / step
        # The convs' rounding order (docs/Quantization.md, "Accuracy
        # contract"): within one step, most equal.
        assert diff.max() <= 1.01 and (diff < 0.5).float().mean() > 0.95


def test_quantized_inputs_are_viewed_not_copied():
    """A quantized input is passed as a view of its storage (its integers,
    not an int_repr() copy), contiguous or channels-last (every eager
    quantized conv's output), sliced, per channel: the same results as
    the engine's."""
    torch.manual_seed(0)
    conv = nnq.Conv2d(8, 4, 3, padding=1)
    conv.set_weight_bias(torch.quantize_per_channel(
        torch.randn(4, 8, 3, 3) * 0.1, torch.rand(4) * 0.01 + 0.005,
        torch.zeros(4, dtype=torch.long), 0, torch.qint8), torch.randn(4))
    conv.scale, conv.zero_point = 0.05, 70
    model = _Holder(conv).eval()
    x = torch.quantize_per_tensor(torch.randn(2, 8, 9, 10), 0.04, 60,
                                  torch.quint8)
    compiled = fx_mlir.compile(model, (x,), cache_dir="")
    last = x.contiguous(memory_format=torch.channels_last)
    wide = torch.quantize_per_tensor(torch.randn(2, 8, 9, 14), 0.04, 60,
                                     torch.quint8)[..., 2:12]
    for t in (x, last, wide):
        before = t.int_repr()
        got, want = compiled(t).int_repr(), model(t).int_repr()
        assert (got.int() - want.int()).abs().max() <= 1
        assert torch.equal(t.int_repr(), before)  # not written
    shifted = torch.quantize_per_channel(
        torch.randn(3, 5), torch.rand(3) + 0.1,
        torch.tensor([1, -2, 0]), 0, torch.qint8)

    class Dequantize(nn.Module):
        def forward(self, t):
            return t.dequantize() * 2
    run = fx_mlir.compile(Dequantize(), (shifted,), cache_dir="")
    assert torch.equal(run(shifted), shifted.dequantize() * 2)
    wider = torch.quantize_per_channel(
        torch.randn(3, 10), shifted.q_per_channel_scales(),
        shifted.q_per_channel_zero_points(), 0, torch.qint8)[:, ::2]
    assert torch.equal(run(wider), wider.dequantize() * 2)


class _Upsample(nn.Module):
    """Bilinear upsampling of a quantized conv's output (channels-last in
    the engine) or of the quantized input itself (contiguous)."""

    def __init__(self, conv, **interpolate):
        super().__init__()
        self.conv = nn.Conv2d(4, 6, 3, padding=1) if conv else nn.Identity()
        self.interpolate = interpolate

    def forward(self, x):
        return F.interpolate(self.conv(x), mode="bilinear", **self.interpolate)


@pytest.mark.parametrize("conv", [True, False])
@pytest.mark.parametrize("interpolate", [
    dict(scale_factor=2, align_corners=False),
    dict(scale_factor=2, align_corners=True),
    dict(size=(5, 9), align_corners=False),
    dict(size=(13, 4), align_corners=True)])
def test_quantized_bilinear_upsampling(conv, interpolate):
    """PyTorch's quantized upsample_bilinear2d interpolates the integers
    themselves and rounds that less the zero point half to even
    (fx-fold-quant and the lowering do the same): with weights f32 holds
    exactly (a scale of 2's quarters) the compiled model equals the
    engine's, where the dequantized values interpolated and quantized
    again were a step off at the halves those weights make. With other
    weights a value within an ulp of a half can round the other way (the
    engine's channels-last kernel contracts its products into FMAs): a
    step on few elements. The reference model (float interpolation
    between dequantize and quantize) is within a step."""
    torch.manual_seed(1)
    shape = (2, 4, 7, 8)
    prepared = prepare_fx(_Upsample(conv, **interpolate).eval(),
                          get_default_qconfig_mapping(QCONFIG),
                          (torch.randn(shape),))
    with torch.no_grad():
        for _ in range(4):
            prepared(torch.randn(shape))
    x = torch.randn(shape)
    converted = convert_fx(copy.deepcopy(prepared))
    compiled = fx_mlir.compile(converted, (x,), cache_dir=False)
    others = torch.randn(shape)
    expected, actual = converted(others), compiled(others)
    if interpolate.get("scale_factor") == 2 and \
            not interpolate["align_corners"]:
        assert torch.equal(actual, expected)
    reference = convert_to_reference_fx(prepared)
    compiled = fx_mlir.compile(reference, (x,), cache_dir=False)
    if conv:
        step = converted.conv.scale
    else:
        quantize = next(n for n in converted.graph.nodes
                        if n.target == torch.quantize_per_tensor)
        step = getattr(converted, quantize.args[1].target)
    off = (actual - expected).abs()
    assert off.max().item() <= float(step) * 1.01
    assert (off > 0).sum().item() <= off.numel() // 100
    difference = (compiled(others) - reference(others)).abs().max().item()
    assert difference <= float(step) * 1.01


class _Pools1d(nn.Module):
    """1-D average poolings of a quantized conv1d's output (channels-last
    in the [N, C, 1, L] view PyTorch pools it in) and of the quantized
    input (contiguous)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(4, 8, 3)

    def forward(self, x):
        y = self.conv(x)
        return (F.adaptive_avg_pool1d(y, 4), F.avg_pool1d(y, 2),
                F.adaptive_avg_pool1d(x, 3), F.avg_pool1d(x, 3, 2, 1))


def _converted_and_compiled(model_type, shape, wide=False):
    """A `model_type` (seeded) prepared with QCONFIG, calibrated on four
    random batches of `shape` (and on wide inputs with `wide`), converted,
    and compiled."""
    torch.manual_seed(0)
    prepared = prepare_fx(model_type().eval(),
                          get_default_qconfig_mapping(QCONFIG),
                          (torch.randn(shape),))
    with torch.no_grad():
        for _ in range(4):
            prepared(torch.randn(shape))
    if wide:
        _calibrate_wide(prepared, (torch.randn(shape),))
    converted = convert_fx(prepared)
    return converted, fx_mlir.compile(converted, (torch.randn(shape),),
                                      cache_dir=False)


def test_quantized_average_pooling_1d():
    """1-D average poolings average the integers and round as ATen's 2-D
    kernels do on the [N, C, 1, L] view: a conv1d's output before adding
    the zero point back (channels-last), the quantized input after. Equal
    to the engine (onednn; 7 of 64 outputs were a step off when the
    poolings went through floats)."""
    shape = (2, 4, 10)
    converted, compiled = _converted_and_compiled(_Pools1d, shape, wide=True)
    for _ in range(3):
        x = torch.randn(shape)
        for e, a in zip(converted(x), compiled(x)):
            assert torch.equal(e, a)


class _Means(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x):
        y = self.conv(x)
        return y.mean((2, 3), keepdim=True), y.mean(1), y.mean(3)


def test_quantized_means():
    """The mean of a quantized tensor: over the image (ATen's adaptive
    average pooling of the integers) and across channels (the f32 mean of
    the dequantized values, summed in the order ATen sums a strided
    reduction) equal to the engine; over the innermost dim within one step
    (ATen's f32 sum of a contiguous row interleaves 4 partial sums, or
    vector lanes, and a mean on a half step may round the other way:
    docs/Quantization.md, the accuracy contract)."""
    shape = (2, 3, 8, 8)
    converted, compiled = _converted_and_compiled(_Means, shape)
    for seed in range(3):
        x = _inputs_like((torch.randn(shape),), seed)
        expected, actual = converted(*x), compiled(*x)
        assert torch.equal(expected[0], actual[0])
        assert torch.equal(expected[1], actual[1])
        step = converted.conv.scale
        steps = ((expected[2] - actual[2]).abs() / step).round()
        assert steps.max() <= 1, steps.max()
