"""Data-dependent control flow (issue 28, docs/ControlFlow.md): modules
torch.fx cannot trace are scripted, imported with their control flow as
graphs of the graph module, compiled to scf loops and branches, and
compared with eager."""

import warnings

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import fx_mlir

torch.manual_seed(0)


class DataBranch(nn.Module):
    """An `if` on tensor data selecting different ops."""

    def forward(self, x):
        if x.sum() > 0:
            y = torch.relu(x) + 1
        else:
            y = torch.sigmoid(x) * 2
        return y


class SizeLoop(nn.Module):
    """A loop over range(x.size(0)), carrying a tuple."""

    def forward(self, x):
        h = torch.zeros(x.size(1))
        c = torch.ones(x.size(1))
        for i in range(x.size(0)):
            h, c = torch.tanh(x[i] + h), c * 0.5 + h
        return h, c


class Newton(nn.Module):
    """A while loop iterating to a tolerance: Newton steps for sqrt(a)."""

    def forward(self, a):
        x = a
        while bool((x * x - a).abs().max() > 1e-5):
            x = 0.5 * (x + a / x)
        return x


class LoopInIf(nn.Module):
    def forward(self, x):
        if bool(x.mean() > 0):
            for i in range(3):
                x = x * 0.5 + 1
        else:
            x = -x
        return x


class IfInLoop(nn.Module):
    def forward(self, x):
        total = torch.zeros_like(x[0])
        for i in range(x.size(0)):
            if bool(x[i].sum() > 0):
                total = total + x[i]
            else:
                total = total - 2 * x[i]
        return total


class EarlyReturn(nn.Module):
    def forward(self, x):
        if bool(x.max() > 2.0):
            return x.clamp(max=2.0)
        y = x * 3
        return y - 1


class Breaks(nn.Module):
    """A `for` that breaks: TorchScript makes it a while loop."""

    def forward(self, x):
        for i in range(10):
            if bool(x.sum() > 20):
                break
            x = x + 1
        return x


class RNNCell(nn.Module):
    """A recurrent cell stepped over a sequence of run-time length."""

    def __init__(self, inputs=8, hidden=16):
        super().__init__()
        self.ih = nn.Linear(inputs, hidden)
        self.hh = nn.Linear(hidden, hidden)
        self.hidden = hidden

    def forward(self, xs):
        h = torch.zeros(xs.size(1), self.hidden)
        for t in range(xs.size(0)):
            h = torch.tanh(self.ih(xs[t]) + self.hh(h))
        return h


class GreedyDecode(nn.Module):
    """Greedy decoding growing its output with torch.cat."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(12, 8)
        self.out = nn.Linear(8, 12)

    def forward(self, tokens):
        seq = tokens
        for i in range(6):
            logits = self.out(self.emb(seq[:, -1]))
            nxt = logits.argmax(-1, keepdim=True)
            seq = torch.cat([seq, nxt], 1)
        return seq


class Gate(nn.Module):
    def forward(self, x):
        if bool(x.abs().mean() > 0.5):
            return x * 2
        return x


class WithGate(nn.Module):
    """Control flow inside a submodule of an otherwise traceable model."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.gate = Gate()

    def forward(self, x):
        return torch.relu(self.gate(self.fc(x)))


class BranchReturnsTuples(nn.Module):
    """Both branches return a tuple (`return a, b` under a data-dependent
    `if`): the cond's results are the tuples' elements."""

    def forward(self, x):
        if bool(x.sum() > 0):
            return x * 2, x.sum(0), x.shape[0]
        return x - 1, x.amax(0), x.shape[1]


class AffineBranch(nn.Module):
    """F.affine_grid checks `min(size) <= 0` (prim::min.self_int, the min
    of a list of ints) in scripted code."""

    def forward(self, x, theta):
        if bool(x.sum() > 0):
            grid = F.affine_grid(theta, x.shape, align_corners=False)
        else:
            grid = F.affine_grid(theta * 2, x.shape, align_corners=False)
        return F.grid_sample(x, grid, align_corners=False)


CASES = [
    ("data_branch_true", DataBranch, lambda: (torch.rand(4, 3),)),
    ("data_branch_false", DataBranch, lambda: (-torch.rand(4, 3),)),
    ("size_loop", SizeLoop, lambda: (torch.randn(5, 3),)),
    ("newton", Newton, lambda: (torch.rand(6) * 4 + 0.5,)),
    ("loop_in_if", LoopInIf, lambda: (torch.rand(3, 2),)),
    ("loop_in_if_else", LoopInIf, lambda: (-torch.rand(3, 2),)),
    ("if_in_loop", IfInLoop, lambda: (torch.randn(7, 3),)),
    ("early_return", EarlyReturn, lambda: (torch.rand(4) * 3,)),
    ("early_return_other", EarlyReturn, lambda: (torch.rand(4),)),
    ("breaks", Breaks, lambda: (torch.rand(4),)),
    ("rnn_cell", RNNCell, lambda: (torch.randn(9, 2, 8),)),
    ("greedy_decode", GreedyDecode, lambda: (torch.tensor([[1], [5]]),)),
    ("submodule", WithGate, lambda: (torch.randn(3, 4),)),
    ("tuples_true", BranchReturnsTuples, lambda: (torch.rand(4, 3),)),
    ("tuples_false", BranchReturnsTuples, lambda: (-torch.rand(4, 3),)),
    ("affine_grid", AffineBranch,
     lambda: (torch.rand(2, 3, 8, 8), torch.randn(2, 2, 3))),
]


@pytest.mark.parametrize("name,cls,make", CASES, ids=[c[0] for c in CASES])
def test_scripted_route_matches_eager(name, cls, make):
    model = cls().eval()
    inputs = make()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        compiled = fx_mlir.compile(model, inputs, cache_dir="")
    with torch.no_grad():
        expected = model(*inputs)
    torch.testing.assert_close(compiled(*inputs), expected)
    if compiled.route == "torch.jit.script":
        # The user is told why torch.fx was not used.
        assert any(issubclass(w.category, fx_mlir.ScriptedRouteWarning)
                   for w in caught)
    # The script route gives the same results when taken directly.
    scripted = fx_mlir.compile(torch.jit.script(model), inputs,
                               cache_dir="")
    assert scripted.route == "torch.jit.script"
    torch.testing.assert_close(scripted(*inputs), expected)


def test_data_branch_runs_the_branch_the_data_selects():
    """One compiled module, both branches taken at run time."""
    model = DataBranch()
    compiled = fx_mlir.compile(model, (torch.rand(4, 3),), cache_dir="")
    for x in (torch.rand(4, 3), -torch.rand(4, 3), torch.randn(4, 3)):
        torch.testing.assert_close(compiled(x), model(x))


def test_branches_returning_tuples_both_run():
    model = BranchReturnsTuples()
    compiled = fx_mlir.compile(torch.jit.script(model), (torch.rand(4, 3),),
                               cache_dir="")
    for x in (torch.rand(4, 3), -torch.rand(4, 3)):
        torch.testing.assert_close(compiled(x), model(x))


def test_while_loop_runs_as_many_iterations_as_the_data_needs():
    model = Newton()
    compiled = fx_mlir.compile(model, (torch.rand(6) + 1,), cache_dir="")
    for scale in (0.5, 2.0, 8.0):
        a = torch.rand(6) * scale + 0.5
        torch.testing.assert_close(compiled(a), model(a))


def test_rnn_over_sequences_of_run_time_length():
    """dynamic_batch: the sequence length (dim 0) is dynamic, and so is
    the loop's trip count."""
    model = RNNCell().eval()
    compiled = fx_mlir.compile(model, (torch.randn(5, 2, 8),),
                               dynamic_batch=True, cache_dir="")
    with torch.no_grad():
        for steps in (1, 5, 17):
            xs = torch.randn(steps, 2, 8)
            torch.testing.assert_close(compiled(xs), model(xs))


def test_size_loop_with_a_dynamic_batch():
    model = SizeLoop()
    compiled = fx_mlir.compile(torch.jit.script(model),
                               (torch.randn(5, 3),), dynamic_batch=True,
                               cache_dir="")
    for rows in (2, 5, 9):
        x = torch.randn(rows, 3)
        torch.testing.assert_close(compiled(x), model(x))


class BatchSizeBranch(nn.Module):
    def forward(self, x):
        if x.size(0) > 3:
            return x * 2
        return x + 1


def test_branch_on_a_dynamic_batch_size():
    """`if x.size(0) > 3` with a dynamic batch: a branch chosen at run
    time (the import saw the size differ between its example batches), not
    the example's branch in line with a static type left in the other."""
    model = BatchSizeBranch()
    compiled = fx_mlir.compile(model, (torch.randn(5, 4),),
                               dynamic_batch=True, cache_dir="")
    for rows in (1, 2, 4, 9):
        x = torch.randn(rows, 4)
        torch.testing.assert_close(compiled(x), model(x))


def test_raise_in_a_branch_is_a_run_time_error():
    class Checked(nn.Module):
        def forward(self, x):
            if bool(x.sum() > 100):
                raise ValueError("too large")
            return x + 1

    compiled = fx_mlir.compile(Checked(), (torch.rand(3),), cache_dir="")
    torch.testing.assert_close(compiled(torch.ones(3)), torch.ones(3) + 1)
    with pytest.raises(fx_mlir.FxMlirError, match="ValueError: too large"):
        compiled(torch.full((3,), 50.0))


def test_embedding_index_checked_inside_the_loop():
    model = GreedyDecode()
    compiled = fx_mlir.compile(model, (torch.tensor([[1], [5]]),),
                               cache_dir="")
    with pytest.raises(fx_mlir.FxMlirError, match="index out of range"):
        compiled(torch.tensor([[1], [50]]))


def test_import_torchscript_from_module_and_path(tmp_path):
    model = torch.jit.script(SizeLoop())
    path = tmp_path / "loop.pt"
    model.save(str(path))
    for source in (model, str(path)):
        ir = fx_mlir.import_torchscript(source, (torch.randn(5, 3),))
        assert '"fx_mlir.for_loop"' in ir
        assert "fx.graph @body_graph_0" in ir


def test_carried_rank_change_is_a_clear_error():
    class Unsqueezes(nn.Module):
        def forward(self, x):
            for i in range(x.size(0)):
                x = x.unsqueeze(0)
            return x

    with pytest.raises(fx_mlir.FxMlirError,
                       match="changes rank or dtype across iterations"):
        fx_mlir.compile(torch.jit.script(Unsqueezes()), (torch.randn(2),),
                        cache_dir="")


def test_untraceable_and_unscriptable_names_both_failures():
    class Neither(nn.Module):
        def forward(self, x):
            if x.sum() > 0:
                return torch.from_numpy(x.numpy() * 2)  # no TorchScript
            return x

    with pytest.raises(fx_mlir.FxMlirError) as info:
        fx_mlir.compile(Neither(), (torch.randn(3),), cache_dir="")
    assert "cannot trace" in str(info.value)
    assert "cannot script" in str(info.value)


def test_second_failed_compile_gives_the_same_reason():
    # TorchScript keeps the methods a failed script defined; a second
    # attempt reported "Can't redefine method" instead of the reason.
    class Unscriptable(nn.Module):
        def forward(self, x):
            if x.sum() > 0:
                return x.no_such_method()
            return x

    messages = []
    for _ in range(2):
        with pytest.raises(fx_mlir.FxMlirError) as info:
            fx_mlir.compile(Unscriptable(), (torch.randn(3),), cache_dir="")
        messages.append(str(info.value))
    assert "no_such_method" in messages[1]
    assert "redefine" not in messages[1]


def test_scripted_compile_error_says_which_route():
    class Nonzero(nn.Module):
        def forward(self, x):
            if x.sum() > 0:
                # Scripts; does not compile (a shape the data decides).
                return torch.nonzero(x).float()
            return x

    with pytest.raises(fx_mlir.FxMlirError,
                       match="through torch.jit.script.*cannot trace"):
        fx_mlir.compile(Nonzero(), (torch.randn(3),), cache_dir="")


def test_traceable_module_keeps_the_fx_route():
    model = nn.Sequential(nn.Linear(4, 4), nn.ReLU())
    with warnings.catch_warnings():
        warnings.simplefilter("error", fx_mlir.ScriptedRouteWarning)
        compiled = fx_mlir.compile(model, (torch.randn(2, 4),), cache_dir="")
    assert compiled.route == "torch.fx"


@pytest.mark.parametrize("cls,make", [
    (IfInLoop, lambda: (torch.randn(5, 3),)),
    (Newton, lambda: (torch.rand(4) + 1,)),
    (Breaks, lambda: (torch.rand(4),)),
    (LoopInIf, lambda: (torch.rand(3, 2),)),
    (RNNCell, lambda: (torch.randn(4, 2, 8),)),
    (GreedyDecode, lambda: (torch.tensor([[1], [3]]),)),
], ids=["if_in_loop", "newton", "breaks", "loop_in_if", "rnn", "greedy"])
def test_export_runs_and_round_trips(cls, make):
    """IR -> GraphModule: the branches and bodies are GraphModule
    submodules run by fx_mlir.control_flow, equal to the scripted module
    bit for bit; GraphModule -> IR gives the graphs back exactly."""
    model = cls().eval()
    inputs = make()
    ir = fx_mlir.import_torchscript(model, inputs)
    gm = fx_mlir.export_graph_module(ir)
    with torch.no_grad():
        got, expected = gm(*inputs), torch.jit.script(model)(*inputs)
    got = got if isinstance(got, tuple) else (got,)
    expected = expected if isinstance(expected, tuple) else (expected,)
    assert all(torch.equal(a, b) for a, b in zip(got, expected))
    run = fx_mlir.compiler._load_runtime().run_pipeline
    again = run(fx_mlir.import_graph_module(gm), "builtin.module()")
    original = run(ir, "builtin.module()")
    assert again == original
    # A second round trip is a fixed point.
    back = fx_mlir.export_graph_module(again)
    assert run(fx_mlir.import_graph_module(back), "builtin.module()") == again


class ScriptedLeaves(nn.Module):
    """torch.nn leaves whose scripted forms record constants their
    constructors do not take (`transposed`, `name`, `head_dim`)."""

    def __init__(self):
        super().__init__()
        self.up = nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1,
                                     output_padding=1)
        self.resize = nn.Upsample(scale_factor=2, mode="nearest")
        self.attn = nn.MultiheadAttention(8, 2, batch_first=True)

    def forward(self, x, q):
        a, _ = self.attn(q, q, q)
        return self.resize(self.up(x)), a


def test_scripted_leaves_export():
    """A scripted module's leaves rebuild from the arguments their
    constructors take; the constants they also recorded are attributes
    the constructors set."""
    model = ScriptedLeaves().eval()
    inputs = (torch.randn(1, 4, 5, 5), torch.randn(1, 3, 8))
    gm = fx_mlir.export_graph_module(fx_mlir.import_torchscript(model,
                                                                inputs))
    with torch.no_grad():
        for got, want in zip(gm(*inputs), model(*inputs)):
            torch.testing.assert_close(got, want)


class TensorLiteral(nn.Module):
    def forward(self, x):
        return x * torch.tensor([1.0, 2.0, 3.0]), torch.tensor([[1, 2]])


def test_scripted_tensor_literal_exports():
    """A scripted `torch.tensor([...])` (aten::tensor of a list, whose ATen
    operator needs TorchScript's list type) exports as torch.tensor."""
    model = TensorLiteral()
    x = torch.randn(2, 3)
    gm = fx_mlir.export_graph_module(fx_mlir.import_torchscript(model, (x,)))
    for got, want in zip(gm(x), model(x)):
        assert got.dtype == want.dtype
        torch.testing.assert_close(got, want)


def test_traced_model_with_a_scripted_part():
    """torch.jit.trace of a model whose submodule is scripted keeps the
    submodule's control flow; the archive imports and compiles."""
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)
            self.gate = torch.jit.script(Gate())

        def forward(self, x):
            return self.gate(self.fc(x))

    model = Model().eval()
    x = torch.randn(3, 4)
    traced = torch.jit.trace(model, (x,))
    compiled = fx_mlir.compile(traced, (x,), cache_dir="")
    for inputs in (x, x * 10, x * 0.01):
        with torch.no_grad():
            torch.testing.assert_close(compiled(inputs), model(inputs))


@pytest.mark.parametrize("make", [
    lambda: nn.TransformerEncoderLayer(16, 2, 32, batch_first=True),
    lambda: nn.TransformerEncoder(
        nn.TransformerEncoderLayer(16, 2, 32, batch_first=True), 2),
    lambda: nn.TransformerDecoderLayer(16, 2, 32, batch_first=True),
], ids=["encoder_layer", "encoder", "decoder_layer"])
def test_transformer_modules_as_they_are(make):
    """Their forward does not symbolic_trace in PyTorch 1.13 (it branches
    on its inputs); compile takes them whole."""
    model = make().eval()
    inputs = (torch.randn(2, 5, 16),)
    if isinstance(model, nn.TransformerDecoderLayer):
        inputs += (torch.randn(2, 7, 16),)
    compiled = fx_mlir.compile(model, inputs, cache_dir="")
    with torch.no_grad():
        torch.testing.assert_close(compiled(*inputs), model(*inputs),
                                   rtol=1e-4, atol=1e-5)
