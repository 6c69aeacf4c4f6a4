"""fx_mlir.import_graph_module on modules covering every node kind and arg
form: the IR must verify and round trip in fx-opt, and its node table must
equal PyTorch's print_tabular() cell for cell."""

import operator

import pytest
import torch
import torch.fx
import torch.nn as nn
import torch.nn.functional as F

import fx_mlir
from fx_mlir import importer
from fx_mlir.importer import ImportError_, function_name, hyperparameters
from tables import assert_same_table


class Linear(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(5, 5)

    def forward(self, x):
        return torch.relu(self.linear(x))


class ConvBnRelu(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, stride=2, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(4)
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x):
        return self.relu(self.bn(self.conv(x)))


class CatAndKwargs(nn.Module):
    def forward(self, x, y):
        z = torch.cat([x, y], dim=1)
        return F.softmax(z, dim=-1), torch.sum(z, dim=(0, 1), keepdim=True)


class SlicingAndSizes(nn.Module):
    def forward(self, x):
        n = x.size(0)
        a = x[:, 1:3]
        b = x[..., 0]
        return a.reshape(n, -1), b, x.shape[1]


class MethodChain(nn.Module):
    def forward(self, x):
        return x.transpose(0, 1).contiguous().view(-1).mul(2.5).add_(1e-05)


class GetitemOnTuples(nn.Module):
    def forward(self, x):
        parts = torch.split(x, 2, dim=1)
        return parts[0] + parts[1], {"first": parts[0], "rest": [parts[1], parts[2]]}


class SharedAndNested(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(4, 4), nn.Tanh())
        self.decoder = nn.Linear(4, 4)
        self.decoder.weight = self.encoder[0].weight  # tied weights
        self.register_buffer("scale", torch.tensor(3.0))

    def forward(self, x):
        return self.decoder(self.encoder(x)) * self.scale


class DtypesAndConstants(nn.Module):
    def forward(self, x):
        y = x.to(torch.float64)
        z = torch.zeros(2, dtype=torch.int64, device=torch.device("cpu"))
        return y + torch.tensor([1.0, 2.0]), z, None


class Defaults(nn.Module):
    def forward(self, x, scale=0.5, mode="mean"):
        return x * scale


MODELS = [
    (Linear, lambda: (torch.randn(2, 5),)),
    (ConvBnRelu, lambda: (torch.randn(1, 3, 8, 8),)),
    (CatAndKwargs, lambda: (torch.randn(2, 3), torch.randn(2, 4))),
    (SlicingAndSizes, lambda: (torch.randn(2, 4, 3),)),
    (MethodChain, lambda: (torch.randn(2, 3),)),
    (GetitemOnTuples, lambda: (torch.randn(2, 6),)),
    (SharedAndNested, lambda: (torch.randn(3, 4),)),
    (DtypesAndConstants, lambda: (torch.randn(2),)),
    (Defaults, None),
]


@pytest.mark.parametrize("model,inputs", MODELS,
                         ids=[m.__name__ for m, _ in MODELS])
@pytest.mark.parametrize("typed", [True, False], ids=["typed", "untyped"])
def test_import_verifies_and_matches_pytorch_table(model, inputs, typed):
    torch.manual_seed(0)
    gm = torch.fx.symbolic_trace(model().eval())
    example = inputs() if (typed and inputs) else None
    ir = fx_mlir.import_graph_module(gm, example)
    # fx-opt parses and verifies it, and its own output parses back the same.
    printed = fx_mlir.run_fx_opt(ir)
    assert fx_mlir.run_fx_opt(printed) == printed
    assert_same_table(gm, ir)
    if not example:
        assert "tensor<" not in ir.split("fx.graph @forward")[1]


def test_types_from_shape_prop():
    gm = torch.fx.symbolic_trace(ConvBnRelu().eval())
    ir = fx_mlir.import_graph_module(gm, (torch.randn(1, 3, 8, 8),))
    assert ('%conv = fx.call_module @conv(%x) : (tensor<1x3x8x8xf32>) -> '
            'tensor<1x4x4x4xf32>') in ir
    assert "fx.state buffer @bn.num_batches_tracked : tensor<i64>" in ir


def test_state_and_submodules():
    gm = torch.fx.symbolic_trace(SharedAndNested())
    ir = fx_mlir.import_graph_module(gm)
    assert ("fx.state parameter @decoder.weight : tensor<4x4xf32> = "
            "@encoder.0.weight") in ir
    assert "fx.state buffer @scale : tensor<f32> = dense_resource<scale>" in ir
    assert ('fx.submodule @encoder.0 "torch.nn.Linear"(in_features=4, '
            'out_features=4, bias=True)') in ir


def test_hyperparameters():
    assert hyperparameters(nn.Conv2d(3, 4, 3, stride=2, padding=1,
                                     bias=False)) == {
        "in_channels": 3, "out_channels": 4, "kernel_size": (3, 3),
        "stride": (2, 2), "padding": (1, 1), "dilation": (1, 1),
        "groups": 1, "bias": False, "padding_mode": "zeros"}
    assert hyperparameters(nn.BatchNorm2d(4, eps=1e-3)) == {
        "num_features": 4, "eps": 1e-3, "momentum": 0.1, "affine": True,
        "track_running_stats": True}


def test_function_names_resolve():
    for fn in (torch.relu, F.relu, operator.getitem, torch.flatten, getattr,
               F.adaptive_avg_pool2d):
        module, _, name = function_name(fn).rpartition(".")
        assert getattr(__import__(module, fromlist=[name]), name) is fn


def test_unknown_arg_object_is_an_error_naming_the_node():
    graph = torch.fx.Graph()
    x = graph.placeholder("x")
    y = graph.call_function(torch.add, (x, 1))
    graph.output(y)
    gm = torch.fx.GraphModule(nn.Module(), graph)
    y.args = (x, object())  # no Python code can hold it; FX's Node can
    with pytest.raises(ImportError_, match=r"node 'add' .*cannot represent "
                                           r"object"):
        fx_mlir.import_graph_module(gm)


def test_not_a_graph_module():
    with pytest.raises(TypeError, match="expected a torch.fx.GraphModule"):
        fx_mlir.import_graph_module(nn.Linear(2, 2))


def ones_on_the_cpu(x):
    return torch.ones(x.shape[-1])


torch.fx.wrap("ones_on_the_cpu")


class MakesACpuTensor(nn.Module):
    """Its forward makes a CPU tensor, which cannot meet a meta one."""

    def forward(self, x):
        return x + ones_on_the_cpu(x)


@pytest.mark.parametrize(
    "model,inputs",
    [m for m in MODELS if m[1]] + [(MakesACpuTensor,
                                    lambda: (torch.randn(2, 3),))],
    ids=[m.__name__ for m, i in MODELS if i] + ["MakesACpuTensor"])
def test_meta_shape_propagation_types_like_a_real_run(model, inputs,
                                                      monkeypatch):
    # The types come from the meta device where it can run the graph, else
    # from running it: the text is the same either way.
    torch.manual_seed(0)
    gm = torch.fx.symbolic_trace(model().eval())
    example = inputs()
    meta_inputs = [importer._to_meta(t) for t in example]
    if model is MakesACpuTensor:
        with pytest.raises(RuntimeError, match="ShapeProp error"):
            importer._MetaTypeProp(gm).propagate(*meta_inputs)
    else:
        importer._MetaTypeProp(gm).propagate(*meta_inputs)
    on_meta = fx_mlir.import_graph_module(gm, example)

    def unsupported(self, *args):
        raise NotImplementedError("no meta kernel")

    monkeypatch.setattr(importer._MetaTypeProp, "propagate", unsupported)
    assert fx_mlir.import_graph_module(gm, example) == on_meta
    assert "tensor<" in on_meta.split("fx.graph @forward")[1]


def test_meta_shape_propagation_leaves_the_module_alone():
    # A training-mode batch norm would update its running statistics if the
    # graph ran on its weights.
    torch.manual_seed(0)
    m = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4)).train()
    before = {k: v.clone() for k, v in m.state_dict().items()}
    ir = fx_mlir.import_graph_module(torch.fx.symbolic_trace(m),
                                     (torch.randn(2, 3, 8, 8),))
    assert "-> tensor<2x4x6x6xf32>" in ir
    for k, v in m.state_dict().items():
        assert torch.equal(v, before[k]), k


class _Block(nn.Module):
    """resnet's basic block: one ReLU module called twice."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(4, 4, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(4)
        self.relu = nn.ReLU()
        self.conv2 = nn.Conv2d(4, 4, 3, padding=1)

    def forward(self, x):
        return self.relu(self.conv2(self.relu(self.bn1(self.conv1(x)))) + x)


def test_a_shared_module_called_by_a_later_path():
    """fuse_fx folds the first ReLU call into a ConvReLU2d holding the same
    ReLU object (`conv1.1`, named_modules' first path for it), while the
    second call still names `relu`: that path is declared too, the node
    keeps its target, and export and compile compute the block."""
    from torch.ao.quantization.quantize_fx import fuse_fx
    fused = fuse_fx(_Block().eval())
    assert fused.get_submodule("conv1.1") is fused.get_submodule("relu")
    x = torch.randn(2, 4, 6, 6)
    ir = fx_mlir.import_graph_module(fused, (x,))
    assert 'fx.submodule @relu "torch.nn.ReLU"' in ir
    assert 'fx.call_module @relu(' in ir
    back = fx_mlir.export_graph_module(ir)
    assert [n.target for n in back.graph.nodes if n.op == "call_module"] == \
        [n.target for n in fused.graph.nodes if n.op == "call_module"]
    with torch.no_grad():
        assert torch.allclose(back(x), fused(x))
        assert torch.allclose(fx_mlir.compile(fused, (x,))(x), fused(x),
                              atol=1e-5)
