"""fx_mlir.compile: results against PyTorch eager, output structures,
dynamic batch, and clear errors for unsupported nodes and bad inputs.

The end-to-end suite (test/e2e) covers the operators; these tests cover
the API around them."""
import collections
import copy
import os
import sys
import warnings

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                "python"))
import fx_mlir  # noqa: E402


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 4)

    def forward(self, x):
        return torch.relu(self.fc(x))


class TwoOutputs(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block()

    def forward(self, x):
        y = self.block(x)
        return y, (y.sum(-1), [x * 2])


class Unsupported(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = UnsupportedInner()

    def forward(self, x):
        return self.inner(x) + 1


class UnsupportedInner(nn.Module):
    def forward(self, x):
        return torch.igamma(x, x)


@pytest.fixture(scope="module")
def compiled():
    torch.manual_seed(0)
    model = TwoOutputs().eval()
    return model, fx_mlir.compile(model, (torch.randn(3, 6),))


def test_nested_outputs_match_eager(compiled):
    model, run = compiled
    x = torch.randn(3, 6)
    got, expected = run(x), model(x)
    assert isinstance(got, tuple) and isinstance(got[1][1], list)
    torch.testing.assert_close(got[0], expected[0])
    torch.testing.assert_close(got[1][0], expected[1][0])
    torch.testing.assert_close(got[1][1][0], expected[1][1][0])


def test_inputs_and_outputs_are_described(compiled):
    _, run = compiled
    assert run.inputs == [("float32", [3, 6])]
    assert [o[0] for o in run.outputs] == ["float32"] * 3


@pytest.mark.parametrize("args, message", [
    ((torch.randn(3, 7),), "input 0: expected shape [3, 6], got [3, 7]"),
    ((torch.randn(3, 6, 1),), "input 0: expected rank 2"),
    ((torch.randn(3, 6, dtype=torch.float64),),
     "input 0: expected dtype float32, got float64"),
    ((torch.randn(3, 6), torch.randn(3, 6)), "expected 1 inputs, got 2"),
    ((3.0,), "input 0: expected a torch.Tensor, got float"),
])
def test_bad_inputs_raise_before_running(compiled, args, message):
    _, run = compiled
    with pytest.raises(fx_mlir.FxMlirError) as e:
        run(*args)
    assert message in str(e.value)


@pytest.mark.parametrize("args, message", [
    ((torch.randn(3, 7),), "input 0: expected shape [3, 6], got [3, 7]"),
    ((torch.randn(3, 6), torch.randn(3, 6)), "expected 1 inputs, got 2"),
    ((3.0,), "input 0: expected a torch.Tensor, got float"),
])
def test_single_output_call_checks_its_inputs(args, message):
    """A graph of one output is called straight into the runtime (no
    Python frame): the same checks and FxMlirError messages, and the
    tensor itself as the result."""
    torch.manual_seed(0)
    model = Block().eval()
    x = torch.randn(3, 6)
    run = fx_mlir.compile(model, (x,))
    assert isinstance(run, fx_mlir.compiler.CompiledGraph)
    with torch.no_grad():
        torch.testing.assert_close(run(x), model(x))
    with pytest.raises(fx_mlir.FxMlirError) as e:
        run(*args)
    assert message in str(e.value)


def test_dynamic_batch_runs_other_batch_sizes():
    torch.manual_seed(0)
    model = Block().eval()
    run = fx_mlir.compile(model, (torch.randn(2, 6),), dynamic_batch=True)
    assert run.inputs == [("float32", [-1, 6])]
    for batch in (1, 2, 5):
        x = torch.randn(batch, 6)
        torch.testing.assert_close(run(x), model(x))
    with pytest.raises(fx_mlir.FxMlirError, match="expected shape"):
        run(torch.randn(4, 5))


def test_weights_as_arguments_match_constants():
    torch.manual_seed(0)
    model = Block().eval()
    x = torch.randn(2, 6)
    run = fx_mlir.compile(model, (x,), weights_as_arguments=True)
    torch.testing.assert_close(run(x), model(x))


def test_non_contiguous_input_is_accepted():
    torch.manual_seed(0)
    model = Block().eval()
    run = fx_mlir.compile(model, (torch.randn(2, 6),))
    x = torch.randn(6, 2).t()
    torch.testing.assert_close(run(x), model(x))


class _Positions(nn.Module):
    """Each element's value plus a different weight per position, so that
    a transposed or shifted input gives a different result."""

    def forward(self, x):
        weights = torch.arange(x.numel()).reshape(x.shape).to(x.dtype)
        return x * 3 + weights, x.sum(1)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16,
                                   torch.int64, torch.uint8, torch.float64])
@pytest.mark.parametrize("shape", [(2, 5, 3, 7), (1, 33, 40, 35),
                                   (2, 48, 8, 6), (2, 3, 4, 5, 6)])
def test_channels_last_inputs_are_transposed_in_blocks(dtype, shape):
    """A channels-last input (4-D or 5-D) is made contiguous by the
    runtime's blocked transpose (TensorCalls.h contiguousInput): the same
    results as its contiguous copy, for each element size and for blocks
    that do not divide the image (33 channels, 40 x 35 pixels) or do
    (48 channels, 48 pixels: the bytes in 16 x 16 tiles only)."""
    torch.manual_seed(0)
    x = (torch.randn(shape) * 50).to(dtype)
    run = fx_mlir.compile(_Positions(), (x,), cache_dir="")
    last = x.contiguous(memory_format=torch.channels_last if len(shape) == 4
                        else torch.channels_last_3d)
    assert not last.is_contiguous()
    for got, want in zip(run(last), run(x)):
        assert torch.equal(got, want)
    assert torch.equal(run(last)[0], _Positions()(x)[0])


def test_returned_input_is_not_freed_twice():
    class Identity(nn.Module):
        def forward(self, x):
            return x, x.view(-1)

    x = torch.randn(2, 3)
    a, b = fx_mlir.compile(Identity(), (x,))(x)
    torch.testing.assert_close(a, x)
    torch.testing.assert_close(b, x.view(-1))


def test_unsupported_node_names_node_target_and_module():
    with pytest.raises(fx_mlir.FxMlirError) as e:
        fx_mlir.compile(Unsupported(), (torch.randn(2, 3),))
    message = str(e.value)
    assert "'igamma' (module 'inner')" in message
    assert "torch.igamma" in message
    assert "unsupported function" in message


class TwoUnsupported(nn.Module):
    """Compilable code around two nodes fx-mlir rejects, one with a
    Python-bool result."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x, y):
        a = torch.relu(self.fc(x)) + 1
        b = torch.igamma(a, y) * 2
        return b.sum(1) + torch.special.airy_ai(x).mean(), torch.allclose(
            x, x), a


def test_fallback_runs_rejected_nodes_in_pytorch():
    torch.manual_seed(0)
    model = TwoUnsupported().eval()
    x, y = torch.rand(3, 4), torch.rand(3, 4)
    with pytest.warns(UserWarning, match="PyTorch runs .*igamma"):
        run = fx_mlir.compile(model, (x, y), cache_dir="", fallback=True)
    assert sorted(run.eager_nodes) == ["allclose", "igamma",
                                       "special_airy_ai"]
    kinds = [how for _, how, _ in run.partitions]
    assert kinds.count("compiled") >= 2
    # Other inputs than the examples.
    x, y = torch.rand(3, 4), torch.rand(3, 4)
    got, want = run(x, y), model(x, y)
    torch.testing.assert_close(got[0], want[0])
    assert got[1] is True
    torch.testing.assert_close(got[2], want[2])


def test_fallback_off_or_not_needed():
    # Without fallback the error stands; a compilable model compiles whole.
    with pytest.raises(fx_mlir.FxMlirError, match="igamma"):
        fx_mlir.compile(Unsupported(), (torch.rand(2, 3),), cache_dir="")
    run = fx_mlir.compile(Block().eval(), (torch.randn(2, 6),),
                          cache_dir="", fallback=True)
    assert not hasattr(run, "eager_nodes")
    with pytest.raises(fx_mlir.FxMlirError, match="dynamic_batch"):
        fx_mlir.compile(Unsupported(), (torch.rand(2, 3),), cache_dir="",
                        fallback=True, dynamic_batch=True)


class DegreeAndIgamma(nn.Module):
    """A tensor made in forward (which torch.fx makes a constant) updated
    in place, next to a node PyTorch runs."""

    def forward(self, x, index):
        degree = torch.zeros(5).scatter_add_(0, index, torch.ones(4))
        return degree * 2, torch.igamma(x, x)


def test_fallback_leaves_constants_updated_in_place_alone():
    """Split into partitions, the constant is a partition's input; the
    compiled partition must not write its update back into it (the degrees
    doubled, then tripled, call after call)."""
    model = DegreeAndIgamma()
    x, index = torch.rand(3), torch.tensor([0, 1, 1, 4])
    with pytest.warns(UserWarning, match="PyTorch runs .*igamma"):
        run = fx_mlir.compile(model, (x, index), cache_dir="", fallback=True)
    for _ in range(3):
        got, want = run(x, index), model(x, index)
        torch.testing.assert_close(got[0], want[0])
        torch.testing.assert_close(got[1], want[1])


def test_fallback_keeps_partitions_without_tensor_inputs_in_pytorch():
    class SizeUser(nn.Module):
        def forward(self, x):
            n = x.size(0)
            return torch.igamma(x, x) + n, x.new_zeros(n) + 1

    x = torch.rand(3, 2)
    with pytest.warns(UserWarning):
        run = fx_mlir.compile(SizeUser(), (x,), cache_dir="", fallback=True)
    got, want = run(x), SizeUser()(x)
    torch.testing.assert_close(got[0], want[0])
    torch.testing.assert_close(got[1], want[1])


def test_inplace_calls_update_their_input():
    class Inplace(nn.Module):
        def forward(self, x):
            x = x * 1
            y = torch.nn.functional.relu(x, inplace=True)
            z = x + y      # x is relu(x) now
            z += 1         # operator.iadd
            return z * 2

    x = torch.randn(3, 4)
    torch.testing.assert_close(fx_mlir.compile(Inplace(), (x,))(x),
                               Inplace()(x))


class ChannelShuffle(nn.Module):
    """ShuffleNet's channel shuffle: unpacks x.size() and x.chunk(),
    which torch.fx's symbolic_trace cannot."""

    def forward(self, x):
        a, b = x.chunk(2, dim=1)
        n, c, h, w = a.size()
        y = torch.cat((b, a), 1).view(n, 2, c, h, w).transpose(1, 2)
        return y.reshape(n, -1, h, w) * len(x.shape)


class UnpacksModuleOutput(nn.Module):
    def __init__(self):
        super().__init__()
        self.attention = nn.MultiheadAttention(8, 2, batch_first=True)

    def forward(self, x):
        y, _ = self.attention(x, x, x, need_weights=False)
        return y


@pytest.mark.parametrize("model,shape,other_shape", [
    (ChannelShuffle(), (2, 8, 3, 5), (3, 6, 4, 2)),
    (UnpacksModuleOutput(), (2, 5, 8), (3, 4, 8))])
def test_unpacking_follows_the_example_values(model, shape, other_shape):
    model.eval()
    x = torch.randn(*shape)
    with pytest.raises(Exception):  # TraceError, or IndexError on 3.11
        torch.fx.symbolic_trace(model)
    gm = fx_mlir.compiler.trace(model, (x,))
    with torch.no_grad():
        torch.testing.assert_close(fx_mlir.compile(model, (x,))(x), model(x))
        # The traced graph is general: another shape of the same rank.
        other = torch.randn(*other_shape)
        torch.testing.assert_close(gm(other), model(other))


def test_unpacking_without_example_values_counts_the_targets():
    class Unpacks(nn.Module):
        def forward(self, x):
            n, c = x.shape
            return x.view(c, n)

    gm = fx_mlir.compiler.trace(Unpacks())
    x = torch.randn(2, 3)
    torch.testing.assert_close(gm(x), Unpacks()(x))


def test_stochastic_depth_in_training_mode_is_reported():
    import torchvision
    model = nn.Sequential(nn.Linear(4, 4),
                          torchvision.ops.StochasticDepth(0.2, "row")).train()
    with pytest.raises(fx_mlir.FxMlirError) as e:
        fx_mlir.compile(model, (torch.randn(2, 4),))
    message = str(e.value)
    assert "'stochastic_depth' (module '1')" in message
    assert "training must be False" in message


def test_modules_the_compiler_binds_stay_calls():
    """A torch.nn module with a registry alias is one call_module node;
    one without is traced into when its forward traces
    (nn.UpsamplingNearest2d into its F.interpolate), its nodes keeping the
    module's path."""
    model = nn.Sequential(nn.Conv2d(3, 4, 1), nn.GroupNorm(2, 4),
                          nn.UpsamplingNearest2d(scale_factor=2))
    gm = fx_mlir.compiler.trace(model)
    modules = [n.target for n in gm.graph.nodes if n.op == "call_module"]
    assert modules == ["0", "1"]
    paths = {n.meta.get("fx_mlir_module_path") for n in gm.graph.nodes
             if n.op in ("call_function", "call_method")}
    assert paths == {"2"}
    x = torch.randn(2, 3, 5, 5)
    with torch.no_grad():
        torch.testing.assert_close(fx_mlir.compile(model, (x,))(x), model(x))


def test_untraceable_module_compiled_alone_is_wrapped():
    """nn.MultiheadAttention's forward does not trace (it branches on its
    inputs): compiled alone, it becomes the one call_module of a
    wrapper."""
    model = nn.MultiheadAttention(8, 2).eval()
    q, k = torch.randn(3, 2, 8), torch.randn(5, 2, 8)
    gm = fx_mlir.compiler.trace(model, (q, k, k))
    assert [n.op for n in gm.graph.nodes] == ["placeholder"] * 3 + [
        "call_module", "output"]
    assert gm.module is model


class AttentionForm(nn.Module):
    """An nn.MultiheadAttention called with `masks` (attn_mask,
    key_padding_mask, None where not given) and `options`; returns its
    result whole, or its items when `unpack`."""

    def __init__(self, attention, options, unpack):
        super().__init__()
        self.attention, self.options, self.unpack = attention, options, unpack

    def forward(self, q, k, v, attn_mask, key_padding_mask):
        result = self.attention(q, k, v, attn_mask=attn_mask,
                                key_padding_mask=key_padding_mask,
                                **self.options)
        if not self.unpack:
            return result
        out, weights = result
        return out.relu(), weights


@pytest.mark.parametrize("kwargs,options,masks,unbatched,unpack", [
    ({}, {}, "none", False, False),
    ({"batch_first": True, "add_bias_kv": True}, {"average_attn_weights":
                                                 False}, "bool", False, True),
    ({"add_zero_attn": True, "kdim": 4, "vdim": 6}, {}, "float3d", False,
     False),
    ({"add_bias_kv": True, "add_zero_attn": True}, {"need_weights": False},
     "bool", True, True),
    ({"bias": False}, {}, "float3d", True, False),
])
def test_multihead_attention_forms(kwargs, options, masks, unbatched,
                                   unpack):
    """nn.MultiheadAttention as fx-normalize expands it
    (NormalizeAttention.cpp) against eager: returned whole or unpacked,
    sequence or batch first, unbatched, separate key/value sizes, bias_k/v,
    a zero key, bool masks (attn and key padding), a float 3-D mask of
    (N * H, L, S), per-head or None weights."""
    torch.manual_seed(0)
    attention = nn.MultiheadAttention(8, 2, **kwargs).eval()
    n, length, source = 3, 5, 4

    def shaped(rows, width):
        if unbatched:
            return torch.randn(rows, width)
        if kwargs.get("batch_first"):
            return torch.randn(n, rows, width)
        return torch.randn(rows, n, width)
    q = shaped(length, 8)
    k = shaped(source, kwargs.get("kdim", 8))
    v = shaped(source, kwargs.get("vdim", 8))
    attn_mask = key_padding_mask = None
    if masks == "bool":
        attn_mask = torch.rand(length, source) > 0.7
        key_padding_mask = torch.rand(
            *((source,) if unbatched else (n, source))) > 0.8
        key_padding_mask[..., 0] = False  # no row fully masked
        attn_mask[:, 0] = False
    elif masks == "float3d":
        attn_mask = torch.randn((1 if unbatched else n) * 2, length, source)
    model = AttentionForm(attention, options, unpack)
    example = (q, k, v, attn_mask, key_padding_mask)
    inputs = tuple(x for x in example if x is not None)

    class Call(nn.Module):  # the masks given are graph inputs
        def __init__(self):
            super().__init__()
            self.model = model

        def forward(self, *args):
            it = iter(args)
            return self.model(*(next(it) if x is not None else None
                                for x in example))
    call = Call()
    with torch.no_grad():
        expected = call(*inputs)
        got = fx_mlir.compile(call, inputs)(*inputs)
    assert len(got) == 2
    torch.testing.assert_close(got[0], expected[0])
    if expected[1] is None:
        assert got[1] is None
    else:
        torch.testing.assert_close(got[1], expected[1])


@pytest.mark.parametrize("route", ["fx", "trace", "script"])
def test_batch_norm_without_running_stats(route):
    """A BatchNorm module with track_running_stats=False normalizes by the
    batch's statistics in eval mode too (nothing to update), through each
    route into the compiler."""
    model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(
        4, track_running_stats=False), nn.ReLU()).eval()
    x = torch.randn(2, 3, 6, 6)
    source = {"fx": lambda: model,
              "trace": lambda: torch.jit.trace(model, (x,)),
              "script": lambda: torch.jit.script(model)}[route]()
    with torch.no_grad():
        torch.testing.assert_close(fx_mlir.compile(source, (x,))(x),
                                   model(x))


def test_unsupported_expansion_says_why():
    """A node fx-normalize cannot expand: the compile error names it and
    gives fx-normalize's reason."""
    model = nn.MultiheadAttention(8, 2).train()
    q = torch.randn(3, 2, 8)
    with pytest.raises(fx_mlir.FxMlirError, match=r"(?s)unsupported module "
                       r"'torch.nn.MultiheadAttention'.*note: fx-normalize:"
                       r".*\(training mode\)"):
        fx_mlir.compile(model, (q, q, q))


def test_optional_output_size_left_out_traces_into_the_call():
    """nn.ConvTranspose2d's forward traces once its output_size (left out
    of the example inputs) is its default None: F.conv_transpose2d."""
    model = nn.ConvTranspose2d(3, 4, 3, stride=2).eval()
    gm = fx_mlir.compiler.trace(model, (torch.randn(1, 3, 4, 4),))
    assert [n.op for n in gm.graph.nodes].count("call_function") == 1
    x = torch.randn(2, 3, 6, 5)
    with torch.no_grad():
        torch.testing.assert_close(fx_mlir.compile(model, (x,))(x), model(x))


def test_rank_branches_trace():
    """x.dim() and x.ndim are the example input's rank (fixed by the
    compiled types): nn.InstanceNorm2d's forward, which branches on it,
    traces into its F.instance_norm call."""
    model = nn.InstanceNorm2d(3, affine=True).eval()
    with torch.no_grad():
        model.weight.uniform_(0.5, 1.5)
    gm = fx_mlir.compiler.trace(model, (torch.randn(1, 3, 4, 4),))
    targets = [n.target for n in gm.graph.nodes if n.op == "call_function"]
    assert targets == [torch.nn.functional.instance_norm]
    x = torch.randn(2, 3, 6, 5)
    with torch.no_grad():
        torch.testing.assert_close(fx_mlir.compile(model, (x,))(x), model(x))


def test_python_functionals_are_traced_into():
    """A Python function of torch.nn.functional the registry does not bind
    (F.softsign) runs on the proxies: its operations are the nodes."""
    class Softsign(nn.Module):
        def forward(self, x):
            return torch.nn.functional.softsign(x) * 2

    gm = fx_mlir.compiler.trace(Softsign(), (torch.randn(3),))
    targets = [str(n.target) for n in gm.graph.nodes
               if n.op in ("call_function", "call_method")]
    assert "softsign" not in " ".join(targets)
    x = torch.randn(4, 5)
    torch.testing.assert_close(fx_mlir.compile(Softsign(), (x,))(x),
                               Softsign()(x))


class AdaptiveHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.AdaptiveLogSoftmaxWithLoss(4, 10, cutoffs=[5])

    def forward(self, x, target):
        return self.head(x, target).output


def test_untraceable_unknown_module_is_reported_whole():
    """A torch.nn module the compiler does not know whose forward does not
    trace (nn.AdaptiveLogSoftmaxWithLoss compares sizes in Python) stays a
    call, reported by name."""
    with pytest.raises(fx_mlir.FxMlirError,
                       match="torch.nn.AdaptiveLogSoftmaxWithLoss"):
        fx_mlir.compile(AdaptiveHead().eval(),
                        (torch.randn(3, 4), torch.tensor([1, 7, 2])))


class UpsampleTo(nn.Module):
    def __init__(self):
        super().__init__()
        self.up = nn.ConvTranspose2d(4, 3, 3, stride=2)

    def forward(self, x):
        return self.up(x, output_size=[12, 12])


def test_conv_transpose_output_size_is_reported():
    """nn.ConvTranspose2d's output_size picks output_padding when it runs;
    the compiler binds the module only without it."""
    with pytest.raises(fx_mlir.FxMlirError, match="output_size"):
        fx_mlir.compile(UpsampleTo(), (torch.randn(1, 4, 5, 5),))


def test_cpu_targets():
    """cpu= picks the CPU the code is generated for: AVX2 code (x86-64-v3)
    runs on any x86-64 host here and matches eager; a target this host
    cannot run, or an unknown name, is an FxMlirError naming it; the
    target is part of the cache key."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(40, 48), nn.ReLU(), nn.Linear(48, 8))
    x = torch.randn(6, 40)
    with torch.no_grad():
        expected = model(x)
    compiled = fx_mlir.compile(model, (x,), cache_dir="", cpu="x86-64-v3")
    torch.testing.assert_close(compiled(x), expected, rtol=1e-4, atol=1e-5)
    for cpu, message in [("aarch64", "does not run on this host"),
                         ("pentium", "unknown CPU target 'pentium'")]:
        with pytest.raises(fx_mlir.FxMlirError, match=message):
            fx_mlir.compile(model, (x,), cache_dir="", cpu=cpu)


def test_cpu_target_is_part_of_the_cache_key(tmp_path):
    model = nn.Linear(16, 16)
    x = torch.randn(2, 16)
    first = fx_mlir.compile(model, (x,), cache_dir=str(tmp_path),
                            cpu="x86-64-v3")
    again = fx_mlir.compile(model, (x,), cache_dir=str(tmp_path),
                            cpu="x86-64-v3")
    other = fx_mlir.compile(model, (x,), cache_dir=str(tmp_path))
    assert not first.from_cache and again.from_cache
    assert not other.from_cache


class AtenPackets(torch.nn.Module):
    """Calls through torch.ops.aten: packets (the overload is chosen by the
    args, add.Tensor or add.Scalar) and an overload."""

    def forward(self, a, b, x):
        y = torch.ops.aten.mm(a, b)
        z = torch.ops.aten.relu(torch.ops.aten.add(y, x))
        s = torch.ops.aten.add(z, 2)
        v = torch.ops.aten._unsafe_view(s, [3, 4])
        return (torch.ops.aten.sum(s, [1]), torch.ops.aten.mm.default(a, b),
                torch.ops.aten._log_softmax(v, 1, False))


def test_torch_ops_aten_packets_compile_and_export():
    """Issue 27.1: `torch.ops.aten.mm` (an OpOverloadPacket) is imported
    as `torch.ops.aten.mm`, binds to the overload its args fit, compiles,
    and exports back to a GraphModule that calls the same overloads."""
    from fx_mlir.importer import function_name
    assert function_name(torch.ops.aten.mm) == "torch.ops.aten.mm"
    assert function_name(torch.ops.aten.add.Tensor) == "aten::add.Tensor"
    a, b, x = torch.randn(4, 5), torch.randn(5, 3), torch.randn(4, 3)
    m = AtenPackets()
    expected = m(a, b, x)
    got = fx_mlir.compile(m, (a, b, x), cache_dir="")(a, b, x)
    for g, e in zip(got, expected):
        torch.testing.assert_close(g, e)
    gm = fx_mlir.transform(torch.fx.symbolic_trace(m), "fx-normalize",
                           example_inputs=(a, b, x))
    targets = [n.target for n in gm.graph.nodes if n.op == "call_function"]
    assert torch.ops.aten.add.Tensor in targets
    assert torch.ops.aten.add.Scalar in targets
    for g, e in zip(gm(a, b, x), expected):
        torch.testing.assert_close(g, e)


def _transformer_cases():
    """(name, module, example inputs) of the torch.nn transformer modules,
    whose own forward does not symbolic_trace in PyTorch 1.13."""
    torch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(32, 4, 64, batch_first=True)
    src, tgt = torch.randn(2, 7, 32), torch.randn(2, 5, 32)

    class Classifier(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Linear(8, 32)
            self.encoder = nn.TransformerEncoder(
                nn.TransformerEncoderLayer(32, 4, 64, batch_first=True), 2)
            self.head = nn.Linear(32, 3)

        def forward(self, x):
            return self.head(self.encoder(self.embed(x)).mean(1))

    class Masked(nn.Module):
        def __init__(self):
            super().__init__()
            self.layer = nn.TransformerEncoderLayer(32, 4, 64,
                                                    batch_first=True)

        def forward(self, x, mask):
            return self.layer(x, src_mask=mask)

    causal = torch.triu(torch.full((7, 7), float("-inf")), diagonal=1)
    return [
        ("encoder_layer", layer, (src,)),
        ("encoder_layer_norm_first_gelu_seq_first",
         nn.TransformerEncoderLayer(32, 4, 64, activation="gelu",
                                    norm_first=True),
         (src.transpose(0, 1),)),
        ("encoder_with_norm",
         nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(32)), (src,)),
        ("decoder_layer",
         nn.TransformerDecoderLayer(32, 4, 64, batch_first=True),
         (tgt, src)),
        ("decoder",
         nn.TransformerDecoder(
             nn.TransformerDecoderLayer(32, 4, 64, batch_first=True), 2),
         (tgt, src)),
        ("transformer", nn.Transformer(32, 4, 1, 1, 64, batch_first=True),
         (src, tgt)),
        ("inside_a_model", Classifier(), (torch.randn(2, 7, 8),)),
        ("with_a_mask_input", Masked(), (src, causal)),
    ]


@pytest.mark.parametrize("name,module,inputs", _transformer_cases(),
                         ids=[case[0] for case in _transformer_cases()])
def test_transformer_modules_compile_as_they_are(name, module, inputs):
    """nn.TransformerEncoderLayer/Encoder/DecoderLayer/Decoder/Transformer
    compile unchanged (the tracer runs their forward's slow path; the
    masks a caller leaves out are None) and match eager."""
    module = module.eval()
    compiled = fx_mlir.compile(module, inputs)
    with torch.no_grad():
        expected = module(*inputs)
    torch.testing.assert_close(compiled(*inputs), expected, rtol=1e-4,
                               atol=1e-5)


def test_left_out_parameters_take_their_defaults():
    """Example inputs fewer than the forward's parameters: the rest take
    their defaults and are no inputs of the compiled graph."""
    class Scaled(nn.Module):
        def forward(self, x, scale=None, shift=2.0):
            return x * 3 + shift if scale is None else x * scale

    x = torch.randn(4)
    compiled = fx_mlir.compile(Scaled(), (x,))
    assert len(compiled.inputs) == 1
    torch.testing.assert_close(compiled(x), x * 3 + 2.0)


def test_forward_of_varargs_compiles():
    """A forward taking *args (which torch.fx cannot trace as the root on
    Python 3.11) is traced into as a wrapper's submodule."""
    class Sum(nn.Module):
        def __init__(self):
            super().__init__()
            self.scale = nn.Linear(4, 4)

        def forward(self, *tensors):
            return self.scale(sum(tensors))

    torch.manual_seed(0)
    model, a, b = Sum().eval(), torch.randn(2, 4), torch.randn(2, 4)
    compiled = fx_mlir.compile(model, (a, b))
    with torch.no_grad():
        torch.testing.assert_close(compiled(a, b), model(a, b))


def _inplace_cases():
    def add_input(x):
        x.add_(1)
        return x * 2

    def update_then_read(x, y):
        x.mul_(y)
        y.zero_()
        return x + y

    def intermediate(x):
        y = x * 3
        y.sub_(1).clamp_(min=0)
        return y + 1

    def fill_and_copy(x, y):
        x.fill_(2.0)
        x.copy_(y[0])
        return x.masked_fill_(y > 0, 0.0)

    def functional_inplace(x):
        return torch.relu_(F.relu(x, inplace=True) - 1)

    class InplaceReLU(nn.Module):
        def __init__(self):
            super().__init__()
            self.act = nn.ReLU(inplace=True)

        def forward(self, x):
            return self.act(x) * 2

    def operators(x, y):
        # Python's in-place operators on tensors update them (x -= y is
        # Tensor.__isub__), aliases included; on a number they rebind.
        alias = x
        x -= y[0]
        x *= 3
        y /= 2
        n = 2
        n += 1
        return alias + n

    def aten_inplace(x, y):
        z = torch.ops.aten.empty_like.default(x)
        torch.ops.aten.fill_.Scalar(z, 1.0)
        torch.ops.aten.sub_.Tensor(z, y)
        return torch.ops.aten.mul_.Tensor(x, z)

    # Updates through views reach their base (an input: the caller's
    # tensor), through slices, select, narrow, reshapes and transposes.
    def slice_copy(x, y):
        x[1:3].copy_(y[:2])
        return x

    def flat_view(x, y):
        v = x.view(12)
        v.mul_(2)
        return x + y

    def row_of_transpose(x):
        x.t()[1].add_(1)
        x[:, 0].zero_()
        return x * 2

    def chain_on_intermediate(x, y):
        h = x * 1
        h.narrow(0, 1, 1).fill_(3.0)
        h.select(1, 2).mul_(y[0, 2])
        h.permute(1, 0)[0:2].sub_(1)
        h[0][1:3] = 7.0
        h[2] = 1.0
        h[2][0:2].add_(x[0, :2])
        return h, x

    # A reshape of a transposed input copies it in eager: an update of
    # the copy leaves the input as it is; one of a contiguous input's
    # reshape (a view) reaches it.
    def reshape_copy(x, y):
        r = x.t().reshape(12)
        r.add_(100)
        c = x.t().contiguous()
        c.mul_(0)
        f = torch.flatten(x.t())
        torch.relu_(f)
        return r, c, f, x + y

    def reshape_view(x, y):
        x.reshape(2, 6).add_(1)
        x.flatten().mul_(2)
        return x + y

    return [("add_input", add_input, 1), ("update_then_read",
                                          update_then_read, 2),
            ("reshape_copy", reshape_copy, 2),
            ("reshape_view", reshape_view, 2),
            ("slice_copy", slice_copy, 2), ("flat_view", flat_view, 2),
            ("row_of_transpose", row_of_transpose, 1),
            ("chain_on_intermediate", chain_on_intermediate, 2),
            ("operators", operators, 2), ("aten_inplace", aten_inplace, 2),
            ("intermediate", intermediate, 1),
            ("fill_and_copy", fill_and_copy, 2),
            ("functional_inplace", functional_inplace, 1),
            ("module_inplace", InplaceReLU(), 1)]


@pytest.mark.parametrize("name,fn,count", _inplace_cases(),
                         ids=[c[0] for c in _inplace_cases()])
def test_inplace_updates_match_eager(name, fn, count):
    """In-place operations compile (made out-of-place, later reads seeing
    the new value), and an input the graph updates is updated in the
    caller's tensor after the call, as eager leaves it."""
    if isinstance(fn, nn.Module):
        module = fn
    else:
        class Lambda(nn.Module):
            def forward(self, *args):
                return fn(*args)
        module = Lambda()
    torch.manual_seed(0)
    inputs = [torch.randn(3, 4) for _ in range(count)]
    compiled = fx_mlir.compile(module, tuple(t.clone() for t in inputs))
    ours, theirs = ([t.clone() for t in inputs] for _ in range(2))
    got = compiled(*ours)
    with torch.no_grad():
        expected = module(*theirs)
    torch.testing.assert_close(got, expected)
    for mine, eager_input in zip(ours, theirs):
        torch.testing.assert_close(mine, eager_input)


def test_inplace_update_of_a_view_with_a_stale_alias_is_an_error():
    """Another view of the base read after the update would keep the old
    values, where eager's sees the new ones: an error, not a wrong
    result. So is an update through a view that cannot be written back
    (diagonal)."""
    class StaleAlias(nn.Module):
        def forward(self, x):
            row = x[0]
            x.view(12).add_(1)
            return row * 2

    class ThroughDiagonal(nn.Module):
        def forward(self, x):
            x.diagonal().mul_(2)
            return x

    with pytest.raises(fx_mlir.FxMlirError,
                       match="other view 'getitem' is read afterwards"):
        fx_mlir.compile(StaleAlias(), (torch.randn(3, 4),))
    with pytest.raises(fx_mlir.FxMlirError, match="through 'diagonal'"):
        fx_mlir.compile(ThroughDiagonal(), (torch.randn(3, 4),))


def test_update_of_a_reshape_that_copies_at_some_batches_is_an_error():
    """With a dynamic batch, `x.permute(1, 0, 2).reshape(3, -1)` is a view
    at a batch of 1 (a dim of size 1 has any stride) and a copy at others:
    whether its update reaches x depends on the batch, an error."""
    class Batched(nn.Module):
        def forward(self, x):
            x.permute(1, 0, 2).reshape(3, -1).add_(1)
            return x * 2

    with pytest.raises(fx_mlir.FxMlirError,
                       match="copies its input at some batch sizes"):
        fx_mlir.compile(Batched(), (torch.randn(1, 3, 4),),
                        dynamic_batch=True, cache_dir="")


def test_inplace_update_changing_an_input_shape_is_an_error():
    class Unsqueeze(nn.Module):
        def forward(self, x):
            x.unsqueeze_(0)
            return x + 1

    with pytest.raises(fx_mlir.FxMlirError,
                       match="updates input 'x' in place to shape"):
        fx_mlir.compile(Unsqueeze(), (torch.randn(3, 4),))


def test_sizes_are_numbers_with_static_shapes():
    """Without a dynamic batch the sizes are the example's numbers: code
    computing with them traces, and a size returned is a Python int."""
    class Sizes(nn.Module):
        def forward(self, x):
            steps = torch.arange(x.shape[1])
            return x * steps / float(x.size(-1)), x.size(0)

    x = torch.randn(3, 4)
    got = fx_mlir.compile(Sizes(), (x,))(x)
    expected = Sizes()(x)
    torch.testing.assert_close(got[0], expected[0])
    assert got[1] == 3 and isinstance(got[1], int)


def test_item_of_a_one_element_tensor():
    class Scale(nn.Module):
        def forward(self, x):
            return x * x.abs().max().item() + x.argmin().item()

    x = torch.randn(3, 4)
    torch.testing.assert_close(fx_mlir.compile(Scale(), (x,))(x), Scale()(x))


def _setitem_cases():
    def fill_column(x, v):
        y = x * 2
        y[:, 0] = 1.0
        return y * v[1]

    def broadcast_value(x, v):
        y = x.clone()
        y[1:3, ::2] = v
        return y + 1

    def update_input(x, v):
        x[..., -1] = 0
        return x.sum(1) + v.sum()

    def into_constant(x, v):
        m = torch.zeros(4, 4)
        m[:2, :2] = x[:2, :2] * v[0]
        return m

    def mask_number(x, v):
        y = x.clone()
        y[y < 0] = 0.5
        return y

    def mask_rows_tensor_value(x, v):
        # A mask over the leading dim, a one-element tensor as the value.
        x[x.sum(1) > 0] = v[1]
        return x * 2

    def int_indices(x, v):
        y = x * 1
        y[torch.tensor([0, -1, 2])] = -3.0
        return y

    return [("fill_column", fill_column), ("broadcast_value", broadcast_value),
            ("update_input", update_input), ("into_constant", into_constant),
            ("mask_number", mask_number),
            ("mask_rows_tensor_value", mask_rows_tensor_value),
            ("int_indices", int_indices)]


@pytest.mark.parametrize("name,fn", _setitem_cases(),
                         ids=[c[0] for c in _setitem_cases()])
def test_setitem_matches_eager(name, fn):
    """`x[index] = value` with an index of ints and slices compiles (a
    scatter into the positions the index selects); an updated input is
    updated in the caller's tensor."""
    class Lambda(nn.Module):
        def forward(self, x, v):
            return fn(x, v)

    torch.manual_seed(0)
    inputs = [torch.randn(4, 6), torch.randn(3)]
    compiled = fx_mlir.compile(Lambda(), tuple(t.clone() for t in inputs))
    ours, theirs = ([t.clone() for t in inputs] for _ in range(2))
    got = compiled(*ours)
    expected = Lambda()(*theirs)
    torch.testing.assert_close(got, expected)
    for mine, eager_input in zip(ours, theirs):
        torch.testing.assert_close(mine, eager_input)
    # Inputs other than the example: nothing the example's run computed
    # stays in the compiled code (the constant `m` kept its update).
    other = [torch.randn(4, 6), torch.randn(3)]
    ours, theirs = ([t.clone() for t in other] for _ in range(2))
    torch.testing.assert_close(compiled(*ours), Lambda()(*theirs))
    for mine, eager_input in zip(ours, theirs):
        torch.testing.assert_close(mine, eager_input)


def test_setitem_of_several_values_by_tensor_indices():
    """x[i] = rows and x[i, j] = values: index_put. By a bool mask, the
    count of values depends on the data: an error."""
    class Rows(nn.Module):
        def forward(self, x, i):
            y = x.clone()
            y[i] = torch.ones(2, 4)
            y[i, i + 1] = torch.tensor([5.0, 6.0])
            return y

    class Masked(nn.Module):
        def forward(self, x):
            y = x.clone()
            y[x > 0] = torch.ones(3)
            return y

    x, i = torch.randn(3, 4), torch.tensor([0, 2])
    torch.testing.assert_close(fx_mlir.compile(Rows(), (x, i))(x, i),
                               Rows()(x, i))
    with pytest.raises(fx_mlir.FxMlirError, match="a tensor of values is "
                       "not supported"):
        fx_mlir.compile(Masked(), (torch.eye(3, 4),))


class NumberOutputs(nn.Module):
    """Python numbers computed from sizes next to a tensor: a float whose
    value is integral stays a float, an int an int."""

    def forward(self, x):
        return (x + 1, x.size(1) * 2.5, x.size(0), x.size(0) / 1,
                x.size(1) * 1e308 * 10)


def test_number_outputs_keep_their_python_type():
    x = torch.randn(3, 4)
    expected = NumberOutputs()(x)
    got = fx_mlir.compile(NumberOutputs(), (x,))(x)
    torch.testing.assert_close(got[0], expected[0])
    for g, e in zip(got[1:], expected[1:]):
        assert type(g) is type(e) and g == e, (g, e)


Pair = collections.namedtuple("Pair", "first second", defaults=[None])


class NoTensorOut(nn.Module):
    """Outputs that hold no tensor: the compiled function has no results
    (its call took a result pointer first, and crashed)."""

    def __init__(self, kind):
        super().__init__()
        self.kind = kind

    def forward(self, x):
        y = x * 2  # computed, not returned
        return {"empty_tuple": (), "none": None, "empty_list": [],
                "empty_dict": {}, "none_tuple": (None,),
                "int": x.shape[0] + 1, "size": x.shape}[self.kind]


@pytest.mark.parametrize("kind", ["empty_tuple", "none", "empty_list",
                                  "empty_dict", "none_tuple", "int", "size"])
def test_outputs_without_tensors(kind):
    model = NoTensorOut(kind)
    x = torch.randn(3, 4)
    compiled = fx_mlir.compile(model, (x,), cache_dir="")
    for _ in range(2):
        assert compiled(x) == model(x)


def test_dynamic_batch_size_output_is_a_torch_size():
    model = NoTensorOut("size")
    compiled = fx_mlir.compile(model, (torch.randn(3, 4),),
                               dynamic_batch=True, cache_dir="")
    got = compiled(torch.randn(5, 4))
    assert isinstance(got, torch.Size) and got == torch.Size([5, 4])



class _StaticSizes(nn.Module):
    def forward(self, x):
        return (x.shape, x + 1, x.size(), x.size(1), [x.shape[1:], 3],
                {"s": x.shape, "t": (1, 2)})


def test_static_size_outputs_are_torch_sizes():
    """torch.fx records a shape read at trace time as a plain tuple; the
    compiled function gives back a torch.Size wherever eager does, alone
    or nested, and a plain tuple where eager returns one."""
    x = torch.randn(3, 4)
    got = fx_mlir.compile(NoTensorOut("size"), (x,), cache_dir="")(x)
    assert type(got) is torch.Size and got == torch.Size([3, 4])
    got = fx_mlir.compile(_StaticSizes(), (x,), cache_dir="")(x)
    want = _StaticSizes()(x)

    def same(a, b):
        assert type(a) is type(b), (a, b)
        if isinstance(a, (tuple, list)):
            assert len(a) == len(b)
            for u, v in zip(a, b):
                same(u, v)
        elif isinstance(a, dict):
            assert a.keys() == b.keys()
            for k in a:
                same(a[k], b[k])
        elif isinstance(a, torch.Tensor):
            torch.testing.assert_close(a, b)
        else:
            assert a == b
    same(got, want)

class NamedOutputs(nn.Module):
    """Outputs of named tuple types: structseqs of torch.return_types and
    a collections.namedtuple the forward builds (nested, one field read
    back by name, one left at its default)."""

    def forward(self, x):
        inner = Pair(x.sum(1))
        pair = Pair(x * 2, inner)
        return (x.max(0), {"sorted": torch.sort(x, 1)}, pair,
                pair.first + 1, torch.max(x))


@pytest.mark.parametrize("source", ["module", "graph_module"])
def test_named_tuple_outputs_keep_their_types(source):
    model = NamedOutputs()
    if source == "graph_module":
        model = torch.fx.symbolic_trace(model)
    x = torch.randn(3, 4)
    expected = model(x)
    got = fx_mlir.compile(model, (x,), cache_dir="")(x)
    assert type(got[0]) is torch.return_types.max
    assert type(got[1]["sorted"]) is torch.return_types.sort
    assert type(got[2]) is Pair and type(got[2].second) is Pair
    assert got[2].second.second is None
    torch.testing.assert_close(got[0].indices, expected[0].indices)
    torch.testing.assert_close(got, expected)


class BiasAfterCall(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)

    def forward(self, x):
        return self.lin(x) + self.lin.bias


def test_parameter_read_after_its_module_call():
    """`self.lin(x) + self.lin.bias`: reading the module's hyperparameters
    while tracing made get_attr nodes the tracer erased, whose proxies
    torch.fx's cache then handed out again (a graph reading an erased
    node)."""
    model = BiasAfterCall().eval()
    x = torch.randn(2, 3)
    gm = fx_mlir.compiler.trace(model, (x,))
    gm.graph.lint()
    with torch.no_grad():
        torch.testing.assert_close(
            fx_mlir.compile(model, (x,), cache_dir="")(x), model(x))


class TwoLayers(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = nn.Linear(4, 4)
        self.l2 = nn.Linear(4, 4)

    def forward(self, x):
        a = torch.relu(self.l1(x))
        return (self.l2(a) + a).sigmoid()


def test_split_module_partitions_are_inlined():
    """A GraphModule of torch.fx.passes.split_module calls its partitions,
    GraphModules, as submodules: compile traces them in; the importer,
    which keeps the graph as it is, names the one it cannot hold."""
    from torch.fx.passes.split_module import split_module
    model = TwoLayers().eval()
    split = split_module(torch.fx.symbolic_trace(model), model,
                         lambda n: 0 if n.name in ("l1", "relu") else 1)
    x = torch.randn(2, 4)
    with torch.no_grad():
        torch.testing.assert_close(
            fx_mlir.compile(split, (x,), cache_dir="")(x), model(x))
    with pytest.raises(fx_mlir.FxMlirError,
                       match="submodule 'submod_0': it is a torch.fx."
                             "GraphModule"):
        fx_mlir.import_graph_module(split, (x,))


class TupleArithmetic(nn.Module):
    """Tuples calls return, sliced and joined: `x.unbind(1)[:2]`,
    `torch.chunk(...) + torch.split(...)`."""

    def forward(self, x):
        parts = torch.chunk(x, 3, dim=1) + torch.split(x, [2, 4, 1], dim=1)
        rows = x.unbind(1)
        return tuple(t * (i + 1) for i, t in enumerate(parts)) + (
            torch.stack(rows[:2], -1), torch.cat(rows[-2:] + (x[:, 0],)))


def test_tuples_of_calls_slice_and_join():
    model = TupleArithmetic()
    x = torch.randn(2, 7, 3)
    for dynamic in (False, True):
        compiled = fx_mlir.compile(model, (x,), dynamic_batch=dynamic,
                                   cache_dir="")
        for batch in (2, 3) if dynamic else (2,):
            y = torch.randn(batch, 7, 3)
            for got, want in zip(compiled(y), model(y)):
                torch.testing.assert_close(got, want)


class NamedFields(nn.Module):
    def forward(self, x):
        a = x.max(1).values + x.min(dim=1).indices
        b = torch.aminmax(x).max + torch.sort(x, 1).values[:, 0]
        return a, b, x.topk(2).indices


def test_fields_of_named_tuples_a_call_returns():
    """`torch.aminmax(x).max`, `x.max(1).values`: the tracer reads a field
    of a structseq by its position."""
    model = NamedFields()
    x = torch.randn(3, 4)
    for dynamic in (False, True):
        compiled = fx_mlir.compile(model, (x,), dynamic_batch=dynamic,
                                   cache_dir="")
        for got, want in zip(compiled(x), model(x)):
            torch.testing.assert_close(got, want)


class Dots(nn.Module):
    def forward(self, a, b):
        return torch.vdot(a, b), torch.dot(a, b), torch.matmul(a, b)


@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128])
def test_complex_dot_products(dtype):
    """dot, vdot and 1-D matmul of complex vectors against the sums of
    products eager computes: eager's own torch.dot/vdot call OpenBLAS
    0.3.21's cdotu/cdotc, which return 0 on this project's machines, so
    they are no reference (test/e2e/complex_numbers.py)."""
    a, b = torch.randn(7, dtype=dtype), torch.randn(7, dtype=dtype)
    vdot, dot, matmul = fx_mlir.compile(Dots(), (a, b))(a, b)
    torch.testing.assert_close(vdot, (a.conj() * b).sum())
    torch.testing.assert_close(dot, (a * b).sum())
    torch.testing.assert_close(matmul, (a * b).sum())


class ComplexState(nn.Module):
    """Complex buffers: a tensor and a 0-d one, read by get_attr (LLVM
    has no constants of complex elements: they are float pairs made
    complex in the function)."""

    def __init__(self):
        super().__init__()
        self.register_buffer("w", torch.randn(3, 4, dtype=torch.complex64))
        self.register_buffer("s", torch.randn((), dtype=torch.complex64))

    def forward(self, x):
        return x * self.w + self.s


def test_complex_state():
    torch.manual_seed(0)
    model, x = ComplexState(), torch.randn(3, 4, dtype=torch.complex64)
    torch.testing.assert_close(fx_mlir.compile(model, (x,))(x), model(x))


class NumberInputs(nn.Module):
    """Python numbers as inputs: arithmetic with tensors, a loop count, a
    shape, a flag."""

    def forward(self, x, n: int, scale: float, flag: bool):
        for _ in range(n):
            x = x * scale + 1
        y = x.reshape(n, -1) if flag else x
        return y, n * 2, scale / 2


def test_number_inputs_are_specialized():
    model = NumberInputs()
    x = torch.randn(2, 6)
    compiled = fx_mlir.compile(model, (x, 3, 0.5, True))
    for args in [(x, 3, 0.5, True), (x, 2, 1.5, True), (x, 4, 0.25, False),
                 (x, 3, 0.5, True)]:
        got, expected = compiled(*args), model(*args)
        torch.testing.assert_close(got[0], expected[0])
        assert got[1:] == expected[1:]
    # One compilation per distinct tuple of numbers, kept.
    assert compiled.specializations == [(3, 0.5, True), (2, 1.5, True),
                                        (4, 0.25, False)]
    # The compiled code's inputs are the tensors.
    assert len(compiled.inputs) == 1
    with pytest.raises(fx_mlir.FxMlirError, match="input 1 was compiled as "
                       "a Python number, got Tensor"):
        compiled(x, torch.tensor(3), 0.5, True)


def test_number_inputs_of_a_graph_module():
    """A GraphModule's number placeholders take the call's numbers as
    constants; 2 and 2.0 are different specializations."""
    gm = torch.fx.symbolic_trace(lambda x, k: x * k + k)
    x = torch.randn(4)
    compiled = fx_mlir.compile(gm, (x, 2))
    torch.testing.assert_close(compiled(x, 2), x * 2 + 2)
    torch.testing.assert_close(compiled(x, 2.5), x * 2.5 + 2.5)
    assert compiled(x, 2.0).dtype == torch.float32
    assert len(compiled.specializations) == 3


class ComputedSizes(nn.Module):
    """Numbers the compiled code computes from a dynamic batch."""

    def forward(self, x):
        return x.relu(), x.size(0), x.size(0) * 2, x.numel()


class TensorToNumber(nn.Module):
    """int/float/bool of a one-element tensor (TorchScript's Int.Tensor,
    Float.Tensor, Bool.Tensor), computed by the compiled code."""

    def forward(self, t):
        return (t * 2, torch.ops.aten.Int.Tensor(t),
                torch.ops.aten.Float.Tensor(t), torch.ops.aten.Bool.Tensor(t))


def _same_numbers(got, expected):
    torch.testing.assert_close(got[0], expected[0])
    for g, e in zip(got[1:], expected[1:]):
        assert type(g) is type(e) and g == e, (g, e)


def test_numbers_computed_by_the_code_are_returned_as_numbers():
    model = ComputedSizes()
    compiled = fx_mlir.compile(model, (torch.randn(3, 4),),
                               dynamic_batch=True)
    for batch in (3, 5):
        x = torch.randn(batch, 4)
        _same_numbers(compiled(x), model(x))
    model = TensorToNumber()
    t = torch.tensor([2.75])
    compiled = fx_mlir.compile(model, (t,))
    for value in (2.75, -1.5, 0.0):
        t = torch.tensor([value])
        _same_numbers(compiled(t), model(t))


def test_data_sized_results_are_a_clear_error():
    """masked_select, nonzero, bincount: the size of the result is a count
    of the data, which no static type holds: an error that says so."""
    class Select(nn.Module):
        def forward(self, x):
            return torch.masked_select(x, x > 0), torch.nonzero(x)

    with pytest.raises(fx_mlir.FxMlirError,
                       match="the size of its result depends on the values"):
        fx_mlir.compile(Select(), (torch.randn(3, 4),))


class _Leaves(nn.Module):
    """torch.nn modules torch.fx keeps whole (leaves) that the compiler does
    not bind as calls: a decoder layer of two inputs, an encoder layer, its
    output read twice."""

    def __init__(self):
        super().__init__()
        self.encoder = nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0,
                                                  batch_first=True)
        self.decoder = nn.TransformerDecoderLayer(16, 2, 32, dropout=0.0,
                                                  batch_first=True)

    def forward(self, x, y):
        memory = self.encoder(x)
        return self.decoder(y, memory) + memory.mean(1, keepdim=True)


def test_graph_module_leaves_are_traced_into():
    """A GraphModule (symbolic_trace's, convert_fx's) keeps torch.nn leaf
    modules as call_module nodes; those the compiler does not bind are
    traced into as compile traces an nn.Module (their parameters read
    under the module's path), and the caller's GraphModule is unchanged."""
    torch.manual_seed(0)
    model = _Leaves().eval()
    gm = torch.fx.symbolic_trace(model)
    targets = [n.target for n in gm.graph.nodes if n.op == "call_module"]
    assert targets == ["encoder", "decoder"]
    x, y = torch.randn(2, 5, 16), torch.randn(2, 3, 16)
    compiled = fx_mlir.compile(gm, (x, y))
    with torch.no_grad():
        torch.testing.assert_close(compiled(x, y), model(x, y), rtol=1e-4,
                                   atol=1e-5)
    assert [n.target for n in gm.graph.nodes
            if n.op == "call_module"] == targets


@torch.fx.wrap
def _window_sums(x, size):
    """Sums of `size` consecutive elements of the last dim, padded to a
    multiple of `size`: control flow on x's sizes, which symbolic tracing
    cannot follow (so it is wrapped, as torchvision's Swin wraps its
    attention)."""
    pad = (size - x.shape[-1] % size) % size
    if pad > 0:
        x = F.pad(x, (0, pad))
    return torch.sum(x.reshape(*x.shape[:-1], -1, size), -1)


@torch.fx.wrap
def _positive_part(x):
    """Control flow on a value: no example-sized trace follows it."""
    if bool(x.sum() > 0):
        return x
    return -x


@torch.fx.wrap
def _lift(x, rank, dim):
    """Returns a tuple, the tensor and a number the caller branches on
    later (as torchvision's mvit's _unsqueeze does)."""
    old_rank = x.dim()
    if old_rank == rank - 1:
        x = x.unsqueeze(dim)
    return x, old_rank


@torch.fx.wrap
def _lower(x, dim, old_rank):
    if old_rank == 3:
        x = x.squeeze(dim)
    return x


class _LiftLower(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(5, 5)

    def forward(self, x):
        y, rank = _lift(x, 4, 1)
        return _lower(self.linear(y) * 2, 1, rank)


class _WindowSums(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(6, 7)

    def forward(self, x):
        return _window_sums(self.linear(x), 3) * 2


class _Positive(nn.Module):
    def forward(self, x):
        return _positive_part(x) + 1


def test_compile_traces_into_wrapped_functions():
    """A function torch.fx.wrap keeps as one call is traced into when the
    sizes are the example's (no dynamic batch): from a module and from a
    GraphModule that holds the call. With a dynamic batch, or when its
    body does not trace (control flow on values), the call stays, and the
    error names it (fallback=True runs it in PyTorch)."""
    torch.manual_seed(0)
    model, x = _WindowSums().eval(), torch.randn(2, 4, 6)
    gm = torch.fx.symbolic_trace(model)
    assert any(n.target is _window_sums for n in gm.graph.nodes)
    for source in (model, gm):
        compiled = fx_mlir.compile(source, (x,), cache_dir="")
        torch.testing.assert_close(compiled(x), model(x))
    # The inlined body's last op (torch.sum) is not left marked as wrapped:
    # the GraphModule's code would register it with torch.fx.wrap, and
    # every later trace would fail.
    torch.fx.symbolic_trace(model)
    with pytest.raises(fx_mlir.FxMlirError, match="_window_sums"):
        fx_mlir.compile(model, (x,), cache_dir="", dynamic_batch=True)
    # A function returning a tuple: its items, a number among them.
    lift, z = _LiftLower().eval(), torch.randn(2, 3, 5)
    compiled = fx_mlir.compile(lift, (z,), cache_dir="")
    torch.testing.assert_close(compiled(z), lift(z))
    positive, y = _Positive(), -torch.rand(3, 4)
    with pytest.raises(fx_mlir.FxMlirError, match="_positive_part"):
        fx_mlir.compile(positive, (y,), cache_dir="")
    with pytest.warns(UserWarning, match="PyTorch runs"):
        compiled = fx_mlir.compile(positive, (y,), cache_dir="",
                                   fallback=True)
    torch.testing.assert_close(compiled(y), positive(y))


class _Encoding(nn.Module):
    def __init__(self):
        super().__init__()
        self.table = nn.Parameter(torch.randn(4))

    def forward(self, x):
        return x + self.table


class _EncodedPositive(nn.Module):
    """A parameter of a submodule read by get_attr (split_module keeps the
    submodule `encoding` next to its partitions), then a node PyTorch
    runs."""

    def __init__(self):
        super().__init__()
        self.encoding = _Encoding()

    def forward(self, x):
        return _positive_part(self.encoding(x)) * 2


def test_fallback_with_submodule_state():
    torch.manual_seed(0)
    model, x = _EncodedPositive().eval(), -torch.rand(3, 4) - 2
    with pytest.warns(UserWarning, match="PyTorch runs"):
        compiled = fx_mlir.compile(model, (x,), cache_dir="", fallback=True)
    torch.testing.assert_close(compiled(x), model(x))


def test_one_argument_where_is_named_as_unlowered():
    """torch.where(condition) binds (aten::where, a tuple of index
    tensors): its sizes depend on the data, so it is reported as an
    operator without a lowering, which fallback=True runs in PyTorch."""
    class Where(nn.Module):
        def forward(self, x):
            return torch.where(x > 0.5)[0] * 2

    model, x = Where(), torch.rand(16)
    with pytest.raises(fx_mlir.FxMlirError,
                       match="target 'aten::where': the operator has no "
                             "lowering"):
        fx_mlir.compile(model, (x,), cache_dir="")
    with pytest.warns(UserWarning, match="PyTorch runs"):
        compiled = fx_mlir.compile(model, (x,), cache_dir="", fallback=True)
    torch.testing.assert_close(compiled(x), model(x))


class _InplaceBlock(nn.Module):
    """resnet's basic block: an in-place ReLU and an in-place residual
    add, which TorchScript keeps as aten::relu_ and aten::add_."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(4, 4, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(4)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(4, 4, 3, stride=2, padding=1)
        self.flatten = nn.Flatten()

    def forward(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        out += x
        return self.flatten(self.conv2(out))


class _ShiftedWindowMask(nn.Module):
    """swin_t's padding to whole windows and its shifted-window mask, on a
    channels-last input: torch.jit.trace records the arithmetic on the
    sizes as 0-d tensor operators and the mask's slice assignments as
    writes into views of a new tensor."""

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(6, 6)

    def forward(self, x):
        b, h, w, c = x.shape
        pad_b, pad_r = (4 - h % 4) % 4, (4 - w % 4) % 4
        x = F.pad(self.proj(x), (0, 0, 0, pad_r, 0, pad_b))
        ph, pw = h + pad_b, w + pad_r
        mask = x.new_zeros((ph, pw))
        count = 0
        for rows in (slice(0, -4), slice(-4, -2), slice(-2, None)):
            for cols in (slice(0, -4), slice(-4, -2), slice(-2, None)):
                mask[rows, cols] = count
                count += 1
        x = x + mask[None, :, :, None]
        x = x.view(b, ph // 4, 4, pw // 4, 4, c).permute(0, 1, 3, 2, 4, 5)
        return x.reshape(-1, 16, c).softmax(-1) * (c ** -0.5)


def test_compile_traced_size_arithmetic_and_view_writes(tmp_path):
    """The traced module compiles through the C++ importer and fx-normalize
    alone (the size arithmetic on ints, the writes scattered back into the
    mask), and computes what eager does."""
    torch.manual_seed(0)
    model = _ShiftedWindowMask().eval()
    x = torch.randn(2, 7, 10, 6)
    path = str(tmp_path / "mask.pt")
    torch.jit.trace(model, (x,)).save(path)
    ir = fx_mlir.import_torchscript(path, (x,))
    assert "aten::floordiv.int" in ir and "NumToTensor" in ir
    from fx_mlir.transform import _run_pipeline
    normalized = _run_pipeline(ir, "fx-normalize{strict=true}")
    assert '"aten::slice_scatter"' in normalized
    assert '"aten::fill_' not in normalized
    compiled = fx_mlir.compile(torch.jit.load(path), (x,))
    with torch.no_grad():
        torch.testing.assert_close(compiled(x), model(x))


@pytest.mark.parametrize("route", ["trace", "script"])
def test_compile_torchscript_module(route, tmp_path):
    """A traced module (whose torch.nn leaves keep no hyperparameters:
    walked into) or a scripted one, saved and loaded, compiles and
    computes what it computes; the in-place ops become out-of-place ones
    (fx-normalize)."""
    torch.manual_seed(0)
    model = _InplaceBlock().eval()
    x = torch.randn(2, 4, 8, 8)
    module = (torch.jit.trace(model, (x,)) if route == "trace"
              else torch.jit.script(model))
    path = str(tmp_path / "block.pt")
    module.save(path)
    loaded = torch.jit.load(path)
    compiled = fx_mlir.compile(loaded, (x,))
    y = torch.randn(2, 4, 8, 8)
    with torch.no_grad():
        assert torch.allclose(compiled(y), model(y), atol=1e-5)


class _AdvancedIndexing(nn.Module):
    def forward(self, x, i):
        return (x[[0, 2]], x[:, [3, 1, 3]], x[:, [0, 1], [2, 0]],
                x[..., [1]], x[[1, 0], :, 2:4], x[i, 1:], x[..., i, ::2],
                x[-2:, i], x[1:3, [2]])


def test_compile_advanced_indexing_with_lists_and_slices():
    """Lists of ints index as int64 tensors; int index tensors next to each
    other gather among slices (cut first) and `...` (fx-normalize), and the
    results are eager's exactly."""
    model = _AdvancedIndexing()
    x = torch.randn(3, 4, 5)
    i = torch.tensor([[1, 0], [2, 2]])
    compiled = fx_mlir.compile(model, (x, i), cache_dir="")
    y = torch.randn(3, 4, 5)
    j = torch.tensor([[2, 1], [0, 0]])
    for got, expected in zip(compiled(y, j), model(y, j)):
        assert torch.equal(got, expected)


class ScatterIntoNew(nn.Module):
    """Tensors made in forward with sizes known when tracing (torch.fx
    keeps them as constants), then updated in place: a message-passing
    layer's sums and degrees."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 8)
        self.register_buffer("bias", torch.zeros(6))

    def forward(self, x, src, dst):
        agg = torch.zeros_like(x).index_add_(0, dst, self.lin(x)[src])
        deg = torch.zeros(x.size(0)).scatter_add_(
            0, dst, torch.ones_like(dst, dtype=torch.float))
        return agg / deg.clamp(min=1).unsqueeze(1), deg + self.bias


def test_compile_leaves_constants_updated_in_place_alone():
    """Shape propagation runs the graph on the example inputs; the tensors
    it reads from the module (the constant torch.zeros(6), a buffer) are
    copies, so the in-place updates do not land in what the compiled code
    starts from (the degrees came out doubled) and the module's buffer is
    unchanged."""
    torch.manual_seed(0)
    model = ScatterIntoNew().eval()
    src, dst = torch.tensor([0, 1, 2, 3, 4, 5, 0]), \
        torch.tensor([1, 2, 3, 4, 5, 0, 3])
    compiled = fx_mlir.compile(model, (torch.randn(6, 8), src, dst),
                               cache_dir="")
    assert torch.equal(model.bias, torch.zeros(6))
    x = torch.randn(6, 8)
    with torch.no_grad():
        expected = model(x, src, dst)
    for _ in range(2):  # a second call starts from the same constants
        got = compiled(x, src, dst)
        torch.testing.assert_close(got[0], expected[0])
        torch.testing.assert_close(got[1], expected[1])


class ShuffleAndDrop(nn.Module):
    """torchvision's channel shuffle (the batch read from the block's
    input, `view(b, -1, h, w)` after a transpose) and efficientnet's
    classifier (an in-place dropout on a flatten, which updates the pooled
    tensor it views), under a dynamic batch."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 8, 3, padding=1)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.drop = nn.Dropout(0.2, inplace=True)
        self.fc = nn.Linear(8, 3)

    def forward(self, x):
        b, c, h, w = x.size()
        y = self.conv(x).view(b, 2, 4, h, w).transpose(1, 2).contiguous()
        y = y.view(b, -1, h, w)
        return self.fc(self.drop(torch.flatten(self.pool(y), 1)))


def test_dynamic_batch_shuffle_and_view_updated_in_place():
    """The shuffle's -1 is the node's static 8 (shape propagation's), and
    the dropout's write-back into the pooled tensor reshapes to its shape
    as the graph computes it, not the example's batch."""
    torch.manual_seed(0)
    model = ShuffleAndDrop().eval()
    compiled = fx_mlir.compile(model, (torch.randn(2, 4, 5, 5),),
                               dynamic_batch=True, cache_dir="")
    for batch in (2, 3, 1):
        x = torch.randn(batch, 4, 5, 5)
        with torch.no_grad():
            expected = model(x)
        torch.testing.assert_close(compiled(x), expected)


class ResponseNorms(nn.Module):
    """Local response norms of 3-, 4- and 5-D inputs (AlexNet's, and
    F.local_response_norm's other branches)."""

    def __init__(self):
        super().__init__()
        self.norm = nn.LocalResponseNorm(5, alpha=1e-3, beta=0.6, k=2.0)

    def forward(self, x, y, z):
        return (self.norm(x), F.local_response_norm(y, 2),
                F.local_response_norm(z, 4, k=2.0))


@pytest.mark.parametrize("dynamic", [False, True])
def test_local_response_norm(dynamic):
    """F.local_response_norm reads `input.numel() == 0` and views by the
    input's sizes; with a dynamic batch, the tracer follows a reference of
    it (fx_mlir/reference.py) that keeps the batch symbolic."""
    torch.manual_seed(0)
    model = ResponseNorms()
    shapes = [(7, 3, 3), (6, 5), (6, 3, 4, 5)]
    examples = tuple(torch.randn(2, *s) for s in shapes)
    compiled = fx_mlir.compile(model, examples, dynamic_batch=dynamic,
                               cache_dir="")
    for batch in ((3, 1) if dynamic else (2,)):
        inputs = tuple(torch.randn(batch, *s) for s in shapes)
        for got, want in zip(compiled(*inputs), model(*inputs)):
            torch.testing.assert_close(got, want)


class GaussianLosses(nn.Module):
    """nn.GaussianNLLLoss (homoscedastic: var one dim short) and
    F.gaussian_nll_loss with full=True and no reduction."""

    def __init__(self):
        super().__init__()
        self.loss = nn.GaussianNLLLoss(eps=1e-4)

    def forward(self, mean, target, var, var_short):
        return (self.loss(mean, target, var_short),
                F.gaussian_nll_loss(mean, target, var, full=True,
                                    reduction="none"))


@pytest.mark.parametrize("dynamic", [False, True])
def test_gaussian_nll_loss_checks_var_at_run_time(dynamic):
    """Its `if torch.any(var < 0): raise ValueError(...)` becomes a
    torch._assert, which compiled code checks when it runs."""
    torch.manual_seed(0)
    model = GaussianLosses()

    def inputs(batch, sign=1.0):
        return (torch.randn(batch, 3), torch.randn(batch, 3),
                sign * torch.rand(batch, 3), torch.rand(batch))

    compiled = fx_mlir.compile(model, inputs(2), dynamic_batch=dynamic,
                               cache_dir="")
    for batch in ((2, 5) if dynamic else (2,)):
        x = inputs(batch)
        for got, want in zip(compiled(*x), model(*x)):
            torch.testing.assert_close(got, want)
    with pytest.raises(Exception, match="var has negative entry"):
        compiled(*inputs(2, sign=-1.0))
    with pytest.raises(ValueError, match="var has negative entry"):
        model(*inputs(2, sign=-1.0))


class RuntimeAssert(nn.Module):
    def forward(self, x):
        torch._assert(x.sum() > 0, "the sum must be positive")
        torch._assert(x.shape[1] == 3, "three columns")
        return x * 2


def test_torch_assert_of_a_tensor_is_checked_at_run_time():
    model = RuntimeAssert()
    compiled = fx_mlir.compile(model, (torch.rand(2, 3),), cache_dir="")
    x = torch.rand(2, 3)
    torch.testing.assert_close(compiled(x), model(x))
    with pytest.raises(Exception,
                       match="AssertionError: the sum must be positive"):
        compiled(-x)


class BatchShuffles(nn.Module):
    """Flips and rolls along the batch (mixup-style pairings), and a roll
    along a static dim of a batch of any size."""

    def forward(self, x):
        return (x.flip(0), torch.roll(x, 1, 0), torch.roll(x, (-3, 2), (0, 1)),
                torch.roll(x, 2, 1), x.flip(0, 2) + x)


def test_dynamic_batch_flips_and_rolls_along_the_batch():
    torch.manual_seed(0)
    model = BatchShuffles()
    compiled = fx_mlir.compile(model, (torch.randn(4, 5, 3),),
                               dynamic_batch=True, cache_dir="")
    for batch in (4, 7, 1, 2):
        x = torch.randn(batch, 5, 3)
        for got, want in zip(compiled(x), model(x)):
            torch.testing.assert_close(got, want)


class BatchSizedFactories(nn.Module):
    """torch's factory functions of a size of the batch: positions, masks
    and ramps made with `torch.arange(x.size(0))` and the like."""

    def forward(self, x):
        n = x.size(0)
        positions = torch.arange(n).unsqueeze(1) + x
        odd = x * torch.arange(1, x.shape[0], 2,
                               dtype=torch.float32).sum()
        ramp = x * torch.linspace(0, 1, n)[:, None]
        filled = torch.full((n, x.size(1)), 2.0) * x
        zeros = torch.zeros(n, 3) + x[:, :3]
        ones = torch.ones((n, 1)) + x
        eye = torch.eye(n) @ x
        return positions, odd, ramp, filled, zeros, ones, eye


def test_dynamic_batch_factories_of_the_batch_size():
    """With a dynamic batch, sizes are nodes: the tracer records the
    factories that take them (torch.fx alone raises a TypeError), and
    arange's end and linspace's count are computed at run time."""
    torch.manual_seed(0)
    model = BatchSizedFactories()
    compiled = fx_mlir.compile(model, (torch.randn(4, 5),),
                               dynamic_batch=True, cache_dir="")
    for batch in (4, 7, 1, 2):
        x = torch.randn(batch, 5)
        for got, want in zip(compiled(x), model(x)):
            torch.testing.assert_close(got, want)
    assert torch.arange(3).tolist() == [0, 1, 2]  # torch's own again


class BatchRepeats(nn.Module):
    """repeat and tile of a batch: channels repeated (grayscale to RGB),
    the batch itself repeated, dropped (0) and tiled."""

    def forward(self, x):
        return (x.repeat(1, 3, 1), x.repeat(2, 1, 2), x.repeat(2, 1, 1, 1),
                x.tile((3, 1, 1)), x.repeat(0, 1, 1).sum() + x.sum())


def test_dynamic_batch_repeats():
    model = BatchRepeats()
    compiled = fx_mlir.compile(model, (torch.randn(4, 1, 3),),
                               dynamic_batch=True, cache_dir="")
    for batch in (4, 1, 6):
        x = torch.randn(batch, 1, 3)
        for got, want in zip(compiled(x), model(x)):
            torch.testing.assert_close(got, want)


class StatefulLSTM(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(4, 8, num_layers=2, batch_first=True)

    def forward(self, x, h0, c0):
        return self.lstm(x, (h0, c0))[0]


def test_dynamic_batch_input_whose_dim0_is_not_the_batch():
    """An LSTM's state (layers, batch, hidden) with dynamic_batch=True:
    the graph runs at the example's batch only; the error says dim 0 of
    every input is taken for the batch, with the inputs' shapes."""
    model = StatefulLSTM().eval()
    inputs = (torch.randn(3, 5, 4), torch.zeros(2, 3, 8),
              torch.zeros(2, 3, 8))
    with pytest.raises(fx_mlir.FxMlirError,
                       match=r"dim 0 of every input is the batch, but the "
                             r"graph does not run with one row more in each "
                             r"\(input 0 \(3, 5, 4\), input 1 \(2, 3, 8\)"):
        fx_mlir.compile(model, inputs, dynamic_batch=True, cache_dir="")
    with torch.no_grad():
        torch.testing.assert_close(
            fx_mlir.compile(model, inputs, cache_dir="")(*inputs),
            model(*inputs))


def test_unrolled_lstm_keeps_one_copy_of_its_weights(tmp_path):
    """An LSTM unrolled over its sequence reads w_hh in every step; each
    step's product packed its own copy of it (fx-cpu-schedule), 40 steps
    of a 2-layer LSTM 40 copies. fx-cpu-share-constants leaves one: the
    saved weights are about the parameters' size, and the result is
    eager's."""
    import glob
    torch.manual_seed(0)
    model = nn.LSTM(16, 64, num_layers=2, batch_first=True).eval()
    x = torch.randn(1, 20, 16)
    compiled = fx_mlir.compile(model, (x,), cache_dir=str(tmp_path))
    with torch.no_grad():
        expected = model(x)
    got = compiled(x)
    torch.testing.assert_close(got[0], expected[0])
    torch.testing.assert_close(got[1][0], expected[1][0])
    torch.testing.assert_close(got[1][1], expected[1][1])
    parameters = sum(p.numel() * 4 for p in model.parameters())
    (weights,) = glob.glob(str(tmp_path / "*.weights"))
    assert os.path.getsize(weights) < 2 * parameters, (
        os.path.getsize(weights), parameters)


class SequenceLoops(nn.Module):
    """Python loops over a sequence dim (static, not the batch), and a
    size that follows the batch (of a flattened batch)."""

    def forward(self, x):
        acc = x[:, 0]
        for t in range(1, x.size(1)):
            acc = acc * 0.5 + x[:, t]
        steps = torch.stack([x[:, t] * t for t in range(x.shape[1])], 1)
        flat = x.reshape(1, -1)
        return acc, steps, flat * flat.size(1) + x.size(0)


def test_dynamic_batch_sizes_that_do_not_follow_the_batch_are_numbers():
    """With a dynamic batch, `x.size(1)` of a sequence dim is the same at
    every batch the tracer tries: a Python int, so `range(x.size(1))`
    traces; a size that follows the batch stays a node."""
    model = SequenceLoops()
    compiled = fx_mlir.compile(model, (torch.randn(2, 5, 3),),
                               dynamic_batch=True, cache_dir="")
    _assert_batches_match(compiled, model, (2, 7, 1), (5, 3))


class BufferUpdates(nn.Module):
    """Buffers updated in place and read in the same call: a KV-cache
    shift, a row added to, a copy into one."""

    def __init__(self):
        super().__init__()
        self.register_buffer("cache", torch.zeros(2, 3))
        self.register_buffer("rows", torch.zeros(2, 3))
        self.register_buffer("copied", torch.zeros(2, 3))

    def forward(self, x, y):
        self.cache[:, 1:] = self.cache[:, :-1].clone()
        self.cache[:, 0] = x
        self.rows[0].add_(y[0])
        self.copied.copy_(y)
        return self.cache.sum(1), y + self.rows, self.copied * 2


def test_buffers_updated_in_place_within_a_call():
    """torch.fx reads a buffer as its tensor while tracing, which ran the
    cache shift on the model's buffer and made `self.copied * 2` a
    constant; buffers are get_attr nodes, and their updates the graph's.
    Compiling leaves the module's buffers as they were."""
    x, y = torch.ones(2), torch.ones(2, 3)
    model = BufferUpdates()
    compiled = fx_mlir.compile(model, (torch.zeros(2), torch.zeros(2, 3)),
                               cache_dir="")
    assert not any(b.any() for b in model.buffers())
    for got, want in zip(compiled(x, y), BufferUpdates()(x, y)):
        torch.testing.assert_close(got, want)


class SqueezesTheBatch(nn.Module):
    def forward(self, x):
        return x.squeeze() * 2, torch.squeeze(x, 0) + 1


def test_dynamic_batch_squeeze_of_the_batch_at_one_is_an_error():
    """squeeze() keeps a dynamic batch; at a batch of 1 eager drops it, a
    rank the compiled graph cannot have: the call fails naming the node
    instead of returning the kept dim."""
    model = SqueezesTheBatch()
    compiled = fx_mlir.compile(model, (torch.randn(4, 1, 3),),
                               dynamic_batch=True, cache_dir="")
    x = torch.randn(3, 1, 3)
    for got, want in zip(compiled(x), model(x)):
        torch.testing.assert_close(got, want)
    with pytest.raises(fx_mlir.FxMlirError,
                       match="node 'squeeze': squeeze of dim 0 at size 1"):
        compiled(torch.randn(1, 1, 3))


def _assert_batches_match(compiled, model, batches, shape):
    """`compiled` gives what `model` does on inputs of `shape` after each
    batch size of `batches`."""
    for batch in batches:
        x = torch.randn(batch, *shape)
        got, want = compiled(x), model(x)
        if isinstance(want, torch.Tensor):
            got, want = (got,), (want,)
        for a, b in zip(got, want):
            torch.testing.assert_close(a, b)


class StridedBatch(nn.Module):
    def forward(self, x):
        return x[::3] + x, x[:2] * 2


def test_dynamic_batch_size_the_import_did_not_see_is_checked():
    """Compiled at a batch of 1, `x[::3]` has 1 row at the batches the
    import tries (1, 2, 3; 13 fails to broadcast): its rows are checked
    while the code runs, an error naming the node where they are not 1
    (eager fails there too), the right result where they are."""
    model = StridedBatch()
    compiled = fx_mlir.compile(model, (torch.randn(1, 3),),
                               dynamic_batch=True, cache_dir="")
    _assert_batches_match(compiled, model, (1, 2, 3), (3,))
    with pytest.raises(fx_mlir.FxMlirError,
                       match="node 'getitem': dim 0 has another size than 1"):
        compiled(torch.randn(4, 3))


class HalfTheBatch(nn.Module):
    """Sizes computed from the batch: `x.size(0) // 2` (the same at one
    more row than a batch of 4) and `int(x.shape[0] / 3)` (torch.fx cannot
    trace `int` of a size; the script route imports it)."""

    def forward(self, x):
        n = x.size(0) // 2
        m = int(x.shape[0] / 3)
        return x[:n] * 2, x[m:].sum(0)


@pytest.mark.parametrize("scripted", [False, True])
def test_dynamic_batch_sizes_computed_from_the_batch(scripted):
    model = HalfTheBatch()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fx_mlir.ScriptedRouteWarning)
        compiled = fx_mlir.compile(
            torch.jit.script(model) if scripted else model,
            (torch.randn(4, 3),), dynamic_batch=True, cache_dir="")
    _assert_batches_match(compiled, model, (1, 2, 3, 5, 6, 9, 16), (3,))


class RunningState(nn.Module):
    """State kept across calls: a counter (`+=` on an int64 buffer), an
    average the forward rebinds (`self.ema = ...`, read before and after),
    a shifted cache, and a buffer read but never updated."""

    def __init__(self):
        super().__init__()
        self.register_buffer("steps", torch.zeros((), dtype=torch.long))
        self.register_buffer("ema", torch.zeros(3))
        self.register_buffer("cache", torch.zeros(2, 3))
        self.register_buffer("scale", torch.full((3,), 2.0))
        self.lin = nn.Linear(3, 3)

    def forward(self, x):
        old = self.ema
        self.ema = 0.9 * self.ema + 0.1 * x.mean(0)
        self.steps += 1
        self.cache[1:] = self.cache[:-1].clone()
        self.cache[0] = x[0]
        return (self.lin(x) * self.scale - self.ema, old,
                self.steps * 2, self.cache.sum(0))


@pytest.mark.parametrize("dynamic_batch", [False, True])
def test_buffers_kept_across_calls(dynamic_batch):
    """Buffers the forward updates are read from the module at each call
    and written back after it, as eager keeps them: the third call sees
    the first two calls' updates. With a dynamic batch, the buffers' shapes
    stay theirs."""
    torch.manual_seed(0)
    model, eager = RunningState(), RunningState()
    eager.load_state_dict(model.state_dict())
    compiled = fx_mlir.compile(model, (torch.randn(2, 3),),
                               dynamic_batch=dynamic_batch, cache_dir="")
    assert model.steps.item() == 0 and not model.ema.any()
    for batch in (2, 5, 1) if dynamic_batch else (2, 2, 2):
        x = torch.randn(batch, 3)
        for got, want in zip(compiled(x), eager(x)):
            torch.testing.assert_close(got, want)
    for name, want in eager.state_dict().items():
        torch.testing.assert_close(model.state_dict()[name], want)
    assert model.steps.item() == 3


class TrainingNorms(nn.Module):
    """BatchNorm2d and BatchNorm1d (momentum None: a cumulative average)
    left in training mode."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4, momentum=0.2)
        self.fc = nn.Linear(4, 5)
        self.bn1 = nn.BatchNorm1d(5, momentum=None)

    def forward(self, x):
        h = torch.relu(self.bn(self.conv(x)))
        return self.bn1(self.fc(h.mean((2, 3))))


@pytest.mark.parametrize("dynamic_batch", [False, True])
def test_batch_norm_in_training_mode(dynamic_batch):
    """BatchNorm in training mode normalizes by the batch's statistics and
    updates its running statistics and batch count at each call, as eager
    does; compiling leaves them alone."""
    torch.manual_seed(0)
    model, eager = TrainingNorms().train(), TrainingNorms().train()
    eager.load_state_dict(model.state_dict())
    compiled = fx_mlir.compile(model, (torch.randn(3, 3, 6, 6),),
                               dynamic_batch=dynamic_batch, cache_dir="")
    assert model.bn.num_batches_tracked.item() == 0
    assert not model.bn.running_mean.any()
    for batch in (3, 6, 4) if dynamic_batch else (3, 3, 3):
        x = torch.randn(batch, 3, 6, 6)
        torch.testing.assert_close(compiled(x), eager(x))
    for name, want in eager.state_dict().items():
        torch.testing.assert_close(model.state_dict()[name], want)
    assert model.bn1.num_batches_tracked.item() == 3


@pytest.mark.parametrize("source", ["module", "graph_module"])
def test_batch_norm_in_training_mode_as_the_model(source):
    """A training-mode BatchNorm compiled as the whole model (traced as the
    one call of a wrapper) or inside a GraphModule a user traced keeps its
    own running statistics."""
    torch.manual_seed(0)
    model = nn.BatchNorm3d(2, affine=False, momentum=0.3)
    if source == "graph_module":
        model = torch.fx.symbolic_trace(nn.Sequential(model))
    eager = copy.deepcopy(model)
    x = torch.randn(2, 2, 3, 3, 3)
    compiled = fx_mlir.compile(model, (x,), cache_dir="")
    assert all(not b.any() for name, b in model.named_buffers()
               if "running_mean" in name or "num_batches" in name)
    for _ in range(2):
        x = torch.randn(2, 2, 3, 3, 3)
        torch.testing.assert_close(compiled(x), eager(x))
    for name, want in eager.state_dict().items():
        torch.testing.assert_close(model.state_dict()[name], want)


def test_batch_norm_in_training_mode_needs_two_values_per_channel():
    """F.batch_norm refuses one value per channel in training mode: so does
    compile for such an example, and the compiled code, by a run-time
    check, for such a batch when the batch is dynamic (the state left as
    it was)."""
    model = nn.Sequential(nn.Linear(5, 4), nn.BatchNorm1d(4)).train()
    with pytest.raises(fx_mlir.FxMlirError,
                       match="Expected more than 1 value per channel"):
        fx_mlir.compile(model, (torch.randn(1, 5),), cache_dir="")
    compiled = fx_mlir.compile(model, (torch.randn(3, 5),),
                               dynamic_batch=True, cache_dir="")
    with pytest.raises(fx_mlir.FxMlirError,
                       match=r"node '_assert' \(module '1'\).*Expected more "
                       "than 1 value per channel"):
        compiled(torch.randn(1, 5))
    assert model[1].num_batches_tracked.item() == 0
    compiled(torch.randn(2, 5))
    assert model[1].num_batches_tracked.item() == 1


def _assert_calls_match(compiled, eager, model, buffers, calls=3):
    """Three calls of `compiled` and of its eager twin on the same (2, 3)
    inputs give the same outputs, and leave `model`'s `buffers` as eager
    leaves its own."""
    for _ in range(calls):
        x = torch.randn(2, 3)
        for got, want in zip(compiled(x), eager(x)):
            torch.testing.assert_close(got, want)
    for name in buffers:
        torch.testing.assert_close(getattr(model, name), getattr(eager, name))


class TracedCounter(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("steps", torch.zeros(()))
        self.register_buffer("cache", torch.zeros(2, 3))

    def forward(self, x):
        self.steps += 1
        self.cache[:, 1:] = self.cache[:, :-1].clone()
        self.cache[:, 0] = x[:, 0]
        return x * self.steps, self.cache * 1


def test_traced_module_buffers_kept_across_calls():
    """torch.jit.trace records the updates as ATen calls on the traced
    module's buffers; the compiled graph writes them back into those."""
    example = torch.randn(2, 3)
    traced = torch.jit.trace(TracedCounter(), (example,), check_trace=False)
    eager = torch.jit.trace(TracedCounter(), (example,), check_trace=False)
    eager.load_state_dict(traced.state_dict())
    compiled = fx_mlir.compile(traced, (example,), cache_dir="")
    _assert_calls_match(compiled, eager, traced, ("steps", "cache"))


class GrowingBuffer(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("seen", torch.zeros(1, 3))

    def forward(self, x):
        self.seen = torch.cat([self.seen, x])
        return self.seen.sum(0)


class BranchOnUpdatedBuffer(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("count", torch.zeros(()))

    def forward(self, x):
        self.count += 1
        if self.count > 1:
            return x * 2
        return x


def test_buffer_given_another_shape_is_an_error():
    """A buffer given a tensor of another shape cannot be written back:
    an error, and compiling leaves the buffers as they were."""
    model = GrowingBuffer()
    with pytest.raises(fx_mlir.FxMlirError, match="assigns buffer 'seen'"):
        fx_mlir.compile(model, (torch.randn(2, 3),), cache_dir="")
    assert model.seen.shape == (1, 3) and not model.seen.any()


class ScriptedBufferState(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("count", torch.zeros(()))
        self.register_buffer("ema", torch.zeros(3))

    def forward(self, x):
        old = self.ema
        self.ema = 0.5 * self.ema + 0.5 * x.mean(0)
        self.count += 1
        if bool(self.count > 1):
            y = x * 2 + self.ema
        else:
            y = x + self.ema
        return y, old


@pytest.mark.parametrize("scripted", [False, True])
def test_forward_branching_on_a_buffer_it_updates(scripted):
    """torch.fx cannot trace a forward that branches on a buffer it
    updates (its fallback trace, buffers read as tensors, would hold the
    first call's branch and no update: an error, the buffers restored);
    compile takes the torch.jit.script route, whose buffer assignments
    (prim::SetAttr) are written back after each call: the branch taken
    changes from the second call on, as in eager."""
    model, eager = ScriptedBufferState(), ScriptedBufferState()
    example = torch.randn(2, 3)
    if scripted:
        model = torch.jit.script(model)
        compiled = fx_mlir.compile(model, (example,), cache_dir="")
    else:
        with pytest.warns(fx_mlir.ScriptedRouteWarning,
                          match="cannot trace ScriptedBufferState"):
            compiled = fx_mlir.compile(model, (example,), cache_dir="")
    assert compiled.route == "torch.jit.script"
    assert model.count.item() == 0 and not model.ema.any()
    _assert_calls_match(compiled, eager, model, ("count", "ema"))


class HookedCounter(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("steps", torch.zeros(()))
        self.lin = nn.Linear(3, 3)
        self.lin.register_forward_hook(lambda module, args, out: out + 1)

    def forward(self, x):
        self.steps += 1
        return self.lin(x) * self.steps


def test_hooked_model_buffers_kept_across_calls():
    """A model with forward hooks compiles through torch.jit.trace, which
    runs the forward once: the counter it updates is restored, and each
    compiled call updates it as eager does."""
    model, eager = HookedCounter(), HookedCounter()
    eager.load_state_dict(model.state_dict())
    with pytest.warns(fx_mlir.ScriptedRouteWarning, match="forward hooks"):
        compiled = fx_mlir.compile(model, (torch.randn(2, 3),),
                                   cache_dir="")
    assert model.steps.item() == 0
    for _ in range(3):
        x = torch.randn(2, 3)
        torch.testing.assert_close(compiled(x), eager(x))
    assert model.steps.item() == 3


class BufferUpdatedBeforeABranch(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("acc", torch.zeros(3))

    def forward(self, x):
        self.acc.add_(x.sum(0))
        if bool(x.sum() > 0):
            y = x * 2
        else:
            y = x + self.acc
        return y


def test_buffer_updated_before_a_branch_is_read_updated_in_it():
    """On the torch.jit.script route, a branch's read of a buffer the
    forward updated before it is moved out of the branch and passed in:
    the branch reads the updated value, call after call."""
    model, eager = BufferUpdatedBeforeABranch(), BufferUpdatedBeforeABranch()
    with pytest.warns(fx_mlir.ScriptedRouteWarning):
        compiled = fx_mlir.compile(model, (torch.randn(4, 3),), cache_dir="")
    for x in (-torch.ones(4, 3), torch.ones(4, 3), -torch.ones(4, 3)):
        torch.testing.assert_close(compiled(x), eager(x))
    torch.testing.assert_close(model.acc, eager.acc)


class RebindsThenBranches(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("b", torch.ones(3))

    def forward(self, x):
        self.b = self.b * 2
        if x.sum() > 0:
            return self.b
        return x.sum(0)


def test_failed_trace_does_not_change_the_module():
    """torch.fx's attempt (buffers read as tensors, after the proxies
    failed on the branch) rebinds the buffer; compiling restores it, and
    the script route's calls then match eager's from the first."""
    model, eager = RebindsThenBranches(), RebindsThenBranches()
    with pytest.warns(fx_mlir.ScriptedRouteWarning):
        compiled = fx_mlir.compile(model, (torch.ones(4, 3),), cache_dir="")
    assert torch.equal(model.b, torch.ones(3))
    for _ in range(3):
        x = torch.ones(4, 3)
        torch.testing.assert_close(compiled(x), eager(x))


class _HookedRebind(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)
        self.register_buffer("n", torch.zeros(()))
        self.lin.register_forward_hook(lambda module, args, out: out * 2)

    def forward(self, x):
        self.n = self.n + 1
        return self.lin(x) + self.n


class _HookedBranch(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)
        self.lin.register_forward_hook(lambda module, args, out: out * 2)

    def forward(self, x):
        if x.sum() > 0:
            return self.lin(x)
        return -x


@pytest.mark.parametrize("model, message", [
    (_HookedRebind(), "assigns n, which torch.jit.trace does not record"),
    (_HookedBranch(), "branches on a tensor's value"),
], ids=["rebinds", "branches"])
def test_hooked_model_the_trace_cannot_hold_is_refused(model, message):
    """A hooked model compiles through torch.jit.trace, which keeps the
    example's branch and does not record a buffer rebound: refused, and
    the module's state as it was."""
    before = {k: v.clone() for k, v in model.state_dict().items()}
    with pytest.warns(fx_mlir.ScriptedRouteWarning), \
            pytest.raises(fx_mlir.FxMlirError, match=message):
        fx_mlir.compile(model, (torch.ones(2, 3),), cache_dir="")
    for name, value in model.state_dict().items():
        torch.testing.assert_close(value, before[name])


class _UpdatesParameter(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.ones(3), requires_grad=False)

    def forward(self, x):
        self.w.add_(1)
        return x * self.w


def test_parameter_updated_in_place_is_refused():
    model = _UpdatesParameter()
    with pytest.raises(fx_mlir.FxMlirError,
                       match="updates parameter 'w' in place"):
        fx_mlir.compile(model, (torch.ones(2, 3),), cache_dir="")
    assert torch.equal(model.w, torch.ones(3))


class _PlainTensorState(nn.Module):
    def __init__(self):
        super().__init__()
        self.t = torch.zeros(3)

    def forward(self, x):
        self.t.add_(1)
        return x + self.t


def test_plain_tensor_attribute_updated_in_place_kept_across_calls():
    """A plain tensor attribute (`self.t = torch.zeros(3)`, not a
    registered buffer) is state eager keeps: traced through a get_attr,
    updated and written back as a buffer is."""
    model, eager = _PlainTensorState(), _PlainTensorState()
    compiled = fx_mlir.compile(model, (torch.zeros(2, 3),), cache_dir="")
    assert not model.t.any() and "t" not in model._buffers
    for _ in range(3):
        x = torch.zeros(2, 3)
        torch.testing.assert_close(compiled(x), eager(x))
    torch.testing.assert_close(model.t, eager.t)


class _IntAddsFloat(nn.Module):
    def forward(self, x):
        x.add_(1.5)
        return x


def test_model_failing_on_its_examples_is_an_fx_mlir_error():
    with pytest.raises(fx_mlir.FxMlirError,
                       match="node 'add_' of .*does not run on the example"):
        fx_mlir.compile(_IntAddsFloat(), (torch.ones(3, dtype=torch.long),),
                        cache_dir="")


class _CountsCalls(nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        return x * self.calls


def test_python_number_the_forward_changes_is_refused():
    """`self.calls += 1` on a Python int runs while tracing: the graph
    would hold the traced value. Refused, and the module's number as it
    was."""
    model = _CountsCalls()
    with pytest.warns(fx_mlir.ScriptedRouteWarning), \
            pytest.raises(fx_mlir.FxMlirError, match="changes calls"):
        fx_mlir.compile(model, (torch.ones(2, 3),), cache_dir="")
    assert model.calls == 0


class BatchWindows(nn.Module):
    def forward(self, x):
        return x[:3] + 1, x[-2:] * 2


class BatchNarrow(nn.Module):
    def forward(self, x):
        return x.narrow(0, 1, 2)


class BatchPairs(nn.Module):
    def forward(self, x):
        return x.view(-1, 2, 3).sum(1)


class BatchRow(nn.Module):
    def forward(self, x):
        return x[3] * 2


def test_dynamic_batch_windows_shorten_with_the_batch():
    model = BatchWindows()
    compiled = fx_mlir.compile(model, (torch.randn(4, 3),),
                               dynamic_batch=True, cache_dir="")
    _assert_batches_match(compiled, model, (1, 2, 4, 5), (3,))


@pytest.mark.parametrize("model, bad, good", [
    (BatchNarrow(), (1, 2), (3, 6)),
    (BatchPairs(), (3, 5), (2, 6)),
    (BatchRow(), (1, 3), (4, 7)),
], ids=["narrow", "view", "select"])
def test_dynamic_batch_out_of_range_is_an_error(model, bad, good):
    """Where eager raises at a batch (narrow past the end, a view the
    batch does not divide, a row past the end) the compiled code raises
    too, and never reads past the input."""
    compiled = fx_mlir.compile(model, (torch.randn(4, 3),),
                               dynamic_batch=True, cache_dir="")
    _assert_batches_match(compiled, model, good, (3,))
    for batch in bad:
        with pytest.raises(fx_mlir.FxMlirError):
            compiled(torch.randn(batch, 3))


class Hooked(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(4, 4)
        self.b = nn.Linear(4, 2)

    def forward(self, x):
        return self.b(torch.relu(self.a(x)))


def test_forward_hooks_are_compiled():
    """torch.fx does not run forward hooks (a call_module is the module's
    forward alone): a model with hooks is compiled through torch.jit.trace,
    which records what they compute, with a warning."""
    torch.manual_seed(0)
    model = Hooked()
    model.a.register_forward_hook(lambda module, inputs, out: out * 10)
    model.b.register_forward_pre_hook(lambda module, inputs: (inputs[0] + 1,))
    x = torch.randn(3, 4)
    with pytest.warns(UserWarning, match="forward hooks on a, b"):
        compiled = fx_mlir.compile(model, (x,), cache_dir="")
    assert compiled.route == "torch.jit.trace"
    x = torch.randn(3, 4)
    torch.testing.assert_close(compiled(x), model(x))


class RowGathers(nn.Module):
    def forward(self, x, index):
        return torch.gather(x, 1, index), x.gather(1, index[:, :2]) * 2


def test_dynamic_batch_gather_along_other_dims():
    """gather with a dynamic batch in both self and index: the index no
    larger than self along the batch is checked when the code runs."""
    torch.manual_seed(0)
    model = RowGathers()
    compiled = fx_mlir.compile(
        model, (torch.randn(4, 5), torch.randint(0, 5, (4, 3))),
        dynamic_batch=True, cache_dir="")
    for batch in (4, 7, 1):
        x, index = torch.randn(batch, 5), torch.randint(0, 5, (batch, 3))
        for got, want in zip(compiled(x, index), model(x, index)):
            torch.testing.assert_close(got, want)


class ViewOpsInPlaceThenAssigned(nn.Module):
    def forward(self, x):
        y, z, w = x * 1, x * 2, x * 3
        y.t_()
        y[0] = 0.0
        z.unsqueeze_(0)
        z[0, 1] = 5.0
        w.transpose_(0, 1)
        w[:, 1] += 2
        return y, z + 1, w


class ViewOpsInPlaceChained(nn.Module):
    def forward(self, x):
        y = x * 1
        y.unsqueeze_(0)
        y.transpose_(1, 2)
        y.squeeze_(0)
        z = x * 2
        row = z[0]
        row.unsqueeze_(0)
        return y, z, row


@pytest.mark.parametrize("model, shape", [
    # `y.t_()` changes y's shape: the slice assignment after it writes the
    # transposed tensor (its shape was the old one, and so was the result).
    (ViewOpsInPlaceThenAssigned(), (2, 3)),
    # Each in-place view op leaves the tensor itself (a new base), not a
    # view of the one before to write back through; one of a view (`row`)
    # does not change its base's data.
    (ViewOpsInPlaceChained(), (3, 6)),
], ids=["then_assigned", "chained"])
def test_inplace_view_ops(model, shape):
    compiled = fx_mlir.compile(model, (torch.randn(shape),), cache_dir="")
    x = torch.randn(shape)
    for got, want in zip(compiled(x), model(x)):
        torch.testing.assert_close(got, want)


class IndexTensorAlongADim(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("cols", torch.tensor([1, -1]))

    def forward(self, x, v):
        y = x * 1
        y[:, self.cols] = 5.0
        z = x * 2
        z[..., self.cols] = v.sum()
        w = x.reshape(x.shape[0], 2, 2) * 1
        w[:, :, self.cols[:1]] = -3.0
        return y, z, w


@pytest.mark.parametrize("dynamic_batch", [False, True])
def test_setitem_with_an_index_tensor_along_a_dim(dynamic_batch):
    """`y[:, i] = v` and `y[..., i] = v` (one int index tensor after full
    slices, one value) are index_fill along that dim, with a dynamic batch
    too."""
    model = IndexTensorAlongADim()
    compiled = fx_mlir.compile(model, (torch.randn(4, 4), torch.randn(4)),
                               dynamic_batch=dynamic_batch, cache_dir="")
    for batch in (4, 2, 7) if dynamic_batch else (4, 4):
        inputs = (torch.randn(batch, 4), torch.randn(batch))
        for got, want in zip(compiled(*inputs), model(*inputs)):
            torch.testing.assert_close(got, want)


class SliceAssignments(nn.Module):
    def forward(self, x):
        w = x.clone()
        w[:, 0] = 5.0
        u = torch.zeros_like(x)
        u[:, 1:3] = x[:, :2]
        v = x * 1
        v[:, -1] += 1.0
        y = x * 2
        y[..., 2] = x[:, 0]
        z = x.reshape(x.shape[0], 1, 5) * 1
        z[:, 0, 1:4:2] = 7
        return w, u, v, y, z


def test_dynamic_batch_slice_assignment():
    """With a batch of any size, `w[:, 0] = 5` is select_scatter/
    slice_scatter of the view it indexes (the flat positions of the static
    form would bake the example's batch in)."""
    torch.manual_seed(0)
    model = SliceAssignments()
    compiled = fx_mlir.compile(model, (torch.randn(2, 5),),
                               dynamic_batch=True, cache_dir="")
    _assert_batches_match(compiled, model, (3, 1, 2), (5,))


class ListAssignments(nn.Module):
    def forward(self, y):
        c = y.clone()
        c[:, [1, 3]] = 0.5
        c[:, :, [-1]] = y[0, 0, 0]
        c[[0]] = 2.0
        return c


def test_dynamic_batch_assignment_through_a_list():
    """`c[:, [1, 3]] = v` with a batch of any size: index_fill along the
    list's dim (the flat positions of the static form bake the example's
    batch in)."""
    model = ListAssignments()
    compiled = fx_mlir.compile(model, (torch.randn(2, 6, 3),),
                               dynamic_batch=True, cache_dir="")
    _assert_batches_match(compiled, model, (5, 1, 2), (6, 3))


class _LongSums(torch.nn.Module):
    def forward(self, x):
        return (x * x).sum(), torch.linalg.vector_norm(x), x.sum(-1)


def test_long_sums_are_summed_in_blocks():
    """Sums of 600,000 values, of the whole tensor (two loops made one)
    and along a row: each is summed in blocks of about sqrt(n) values, so
    its rounding error is near eager's cascade, not that of one long run
    per vector lane (4.6e-4 relative for 10^6 squares before)."""
    torch.manual_seed(0)
    x = torch.randn(2, 300000)
    compiled = fx_mlir.compile(_LongSums(), (x,), cache_dir="")
    exact = _LongSums()(x.double())
    for got, want in zip(compiled(x), exact):
        rel = ((got.double() - want).abs().max() / want.abs().max()).item()
        assert rel < 1e-6, rel


class _LongColumnsAndVar(torch.nn.Module):
    def forward(self, x, y):
        return x.sum((1, 2)), y.var(), y.std()


def test_long_columns_and_var_are_summed_in_blocks():
    """Column sums of 16,384 values (over NCHW's C and H, W kept) and a
    whole tensor's var (its mean read as a 1x1 tensor by every element)
    are summed in blocks too (before: 5.9e-6 and 2.4e-4 relative, one run
    per vector lane; eager 1.8e-7 and 6e-9)."""
    torch.manual_seed(0)
    x, y = torch.randn(2, 64, 256, 256), torch.randn(2, 300000) + 3
    compiled = fx_mlir.compile(_LongColumnsAndVar(), (x, y), cache_dir="")
    exact = _LongColumnsAndVar()(x.double(), y.double())
    for got, want in zip(compiled(x, y), exact):
        rel = ((got.double() - want).abs().max() / want.abs().max()).item()
        assert rel < 1.5e-6, rel


class _ScalarClamps(torch.nn.Module):
    def forward(self, x):
        return (torch.relu(x), torch.clamp(x, min=0.0),
                torch.nn.functional.relu6(x), torch.nn.functional.hardtanh(x),
                torch.clamp(x, min=float("nan")),
                torch.clamp(x, max=float("nan")), torch.clamp(x, -0.5, 0.5))


def test_relu_and_scalar_clamps_keep_signed_zeros_and_nan_bounds():
    """relu, relu6, hardtanh and clamp with scalar bounds compute `x < lo ?
    lo : x` as ATen does: -0.0 stays -0.0 (IEEE maximum gave +0.0) and a
    NaN bound leaves x (it gave NaN); a NaN x stays NaN."""
    x = torch.tensor([-0.0, 0.0, float("nan"), -1.0, 2.0, 7.0, -7.0, 0.25] * 4)
    compiled = fx_mlir.compile(_ScalarClamps(), (x,), cache_dir="")
    for got, want in zip(compiled(x), _ScalarClamps()(x)):
        assert torch.equal(got.isnan(), want.isnan())
        finite = ~want.isnan()
        assert torch.equal(got[finite], want[finite])
        assert torch.equal(torch.signbit(got[finite]),
                           torch.signbit(want[finite]))


class _Ndtri(torch.nn.Module):
    def forward(self, p):
        return torch.special.ndtri(p)


def test_ndtri_of_tiny_probabilities():
    """ndtri as ATen's Cephes approximations: the quantiles of 1e-30 to
    1e-16 (-11.46 to -8.22) match eager's, where sqrt(2) erfinv(2p - 1)
    gave -inf; 0, 1 and values outside [0, 1] as eager."""
    p = torch.tensor([0.0, 1e-30, 1e-20, 1e-16, 1e-10, 1e-5, 0.01, 0.2, 0.5,
                      0.7, 0.9, 0.99, 1 - 1e-7, 1.0, -0.1, 1.1, float("nan")])
    compiled = fx_mlir.compile(_Ndtri(), (p,), cache_dir="")
    torch.testing.assert_close(compiled(p), _Ndtri()(p), equal_nan=True,
                               rtol=1e-6, atol=1e-6)


class _ChannelStatistics(torch.nn.Module):
    def forward(self, x, y):
        return (x.mean((0, 2, 3)), x.var((0, 2, 3)), x.amax((0, 2, 3)),
                x.mean((2, 3)), x.sum((0, 2)), y.sum((0, 2)))


def test_channel_statistics_are_row_then_column_reductions():
    """Reductions over NCHW's n, h and w (c kept: BatchNorm's statistics)
    reduce h and w first, then n; x.mean((2, 3)) is a row reduction; a long
    sum over loops apart with the last dim kept (n and h of a 64x8x128x32
    tensor: 8,192 values each) reduces h, then n: each within 1e-6 of the
    f64 result (before: 5.5e-6 for the mean over n, h, w, scalar loops 11x
    slower than eager; one chain of 8,192 values a lane)."""
    torch.manual_seed(0)
    x, y = torch.randn(8, 64, 56, 56) + 1, torch.randn(64, 8, 128, 32) + 1
    compiled = fx_mlir.compile(_ChannelStatistics(), (x, y), cache_dir="")
    exact = _ChannelStatistics()(x.double(), y.double())
    for got, want in zip(compiled(x, y), exact):
        rel = ((got.double() - want).abs().max() / want.abs().max()).item()
        assert rel < 1e-6, rel
