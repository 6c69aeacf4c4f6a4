"""GraphModule -> fx IR -> GraphModule on every case of models.py.

For each module, traced (torch.fx.symbolic_trace, or make_fx for the aten
case) and imported with and without example inputs:
  - the IR verifies and round trips in fx-opt, and its node table equals
    PyTorch's print_tabular() cell for cell;
  - fx_mlir.export_graph_module gives back a GraphModule whose graph equals
    the original node by node (names, ops, targets - call_function targets
    the very same Python objects -, args, kwargs, placeholder defaults,
    output structure), whose state equals it bit for bit (names, kinds,
    dtypes, values, tied weights still one tensor, in the same order) and
    whose submodules have the same types, configuration and training flags;
  - on fresh inputs both modules compute bit-identical outputs, and tracing
    the exported module again gives the graph tracing the original gives.
fx_mlir.export_python is checked against export_graph_module, and bad IR
must raise FxMlirError with a one-line message naming what is wrong.
"""

import math
import os

import pytest
import torch
import torch.fx
import torch.nn as nn
import torch.nn.functional as F

import fx_mlir
from fx_mlir.importer import function_name, hyperparameters, resolve
from models import MODELS
from tables import assert_same_table


# --- One import and one export per (case, typed), shared by the tests. -----

class Bundle:
    """A case's model, its GraphModule, the imported IR and (on first use)
    the exported GraphModule."""

    def __init__(self, case, typed):
        self.case, self.typed = case, typed
        self.model = case.make_model()
        self.gm = case.trace(self.model)
        # make_fx records tensor_meta itself: such graphs are typed anyway.
        self.traced_with_types = any("tensor_meta" in node.meta
                                     for node in self.gm.graph.nodes)
        example = case.make_inputs(seed=0) if typed else None
        self.ir = fx_mlir.import_graph_module(self.gm, example)
        self._back = None

    @property
    def back(self):
        """export_graph_module(ir), once; a failure fails every test."""
        if self._back is None:
            try:
                self._back = fx_mlir.export_graph_module(self.ir)
            except fx_mlir.FxMlirError as error:
                self._back = error
        if isinstance(self._back, Exception):
            raise self._back
        return self._back


def _case(name):
    return next(case for case in MODELS if case.name == name)


# Module-scoped parameters: pytest orders the tests so that each (case,
# typed) bundle is built once (resnet18's IR is ~90 MB of text).
@pytest.fixture(scope="module", params=MODELS, ids=[c.name for c in MODELS])
def case(request):
    return request.param


@pytest.fixture(scope="module", params=[True, False],
                ids=["typed", "untyped"])
def typed(request):
    return request.param


@pytest.fixture(scope="module")
def bundle(case, typed):
    return Bundle(case, typed)


@pytest.fixture
def exported(bundle, request):
    """The bundle, for a test of the export: a case that cannot round trip
    is an expected (strict) failure."""
    if bundle.case.xfail:
        request.applymarker(pytest.mark.xfail(reason=bundle.case.xfail,
                                              strict=True))
    return bundle


# --- Structural comparison. ------------------------------------------------

def canonical(value):
    """A comparable form of an FX arg: nodes by name, containers with their
    exact type (tuple, list, torch.Size, immutable_list, ...), dicts in
    order, floats by repr (so nan == nan and -0.0 != 0.0), and every leaf
    with its type (so True != 1 and 1 != 1.0)."""
    if isinstance(value, torch.fx.Node):
        return ("node", value.name)
    if isinstance(value, (tuple, list)):
        return (type(value), tuple(canonical(v) for v in value))
    if isinstance(value, dict):
        return (type(value), tuple((canonical(k), canonical(v))
                                   for k, v in value.items()))
    if isinstance(value, slice):
        return (slice, canonical(value.start), canonical(value.stop),
                canonical(value.step))
    if isinstance(value, (float, complex)):
        return (type(value), repr(value))
    return (type(value), value)


def assert_same_graph(gm, back):
    assert isinstance(back, torch.fx.GraphModule), type(back)
    ours, theirs = list(back.graph.nodes), list(gm.graph.nodes)
    assert [n.name for n in ours] == [n.name for n in theirs]
    for a, b in zip(ours, theirs):
        where = f"node '{b.name}'"
        assert a.op == b.op, where
        if b.op == "call_function":
            assert a.target is b.target, (where, a.target, b.target)
        else:
            assert type(a.target) is str and a.target == b.target, where
        assert canonical(a.args) == canonical(b.args), (where, a.args, b.args)
        assert canonical(a.kwargs) == canonical(b.kwargs), (
            where, a.kwargs, b.kwargs)
    back.graph.lint()


def state_entries(module):
    """{qualified name: (kind, tensor or None)} over every module path, so
    that a tied weight appears under each of its names."""
    entries = {}
    for prefix, mod in module.named_modules(remove_duplicate=False):
        for kind, table in (("parameter", mod._parameters),
                            ("buffer", mod._buffers)):
            for name, t in table.items():
                entries[f"{prefix}.{name}" if prefix else name] = (kind, t)
    return entries


def first_name_of_each_object(entries):
    """{name: the first name holding the same tensor}: the tying pattern."""
    first, pattern = {}, {}
    for name, (_, t) in entries.items():
        if t is not None:
            pattern[name] = first.setdefault(id(t), name)
    return pattern


def assert_same_tensor(a, b, where, strides=True):
    """Same type, dtype, shape, (strides), requires_grad and bits."""
    assert isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor), where
    assert type(a) is type(b), (where, type(a), type(b))
    assert a.dtype == b.dtype, (where, a.dtype, b.dtype)
    assert a.shape == b.shape, (where, a.shape, b.shape)
    if strides:
        assert a.stride() == b.stride(), (where, a.stride(), b.stride())
    assert a.requires_grad == b.requires_grad, where
    if torch.equal(a, b):
        return
    assert a.is_floating_point() or a.is_complex(), where
    nan_a, nan_b = torch.isnan(a), torch.isnan(b)
    assert torch.equal(nan_a, nan_b), f"{where}: NaNs in other places"
    assert torch.equal(a[~nan_a], b[~nan_b]), f"{where}: values differ"


def assert_same_state(gm, back):
    """Same names (in any order; test_export_keeps_state_order checks the
    order), kinds, tensors and tying."""
    ours, theirs = state_entries(back), state_entries(gm)
    assert sorted(ours) == sorted(theirs)
    for name, (kind, t) in theirs.items():
        assert ours[name][0] == kind, name
        if t is None:
            assert ours[name][1] is None, name
        else:
            # The IR holds state row-major: its strides are not kept.
            assert_same_tensor(ours[name][1], t, name, strides=False)
    assert first_name_of_each_object(ours) == \
        first_name_of_each_object(theirs), "tied weights differ"


def plain_attributes(module):
    """The public non-module attributes of a module (its configuration)."""
    return {k: v for k, v in vars(module).items()
            if not k.startswith("_") and k != "training"}


def assert_same_modules(gm, back):
    """Same submodule paths, types, training flags and configuration (the
    root's training flag: test_export_keeps_root_training_flag)."""
    ours = dict(back.named_modules(remove_duplicate=False))
    theirs = dict(gm.named_modules(remove_duplicate=False))
    assert sorted(ours) == sorted(theirs)
    for path, b in theirs.items():
        if not path:
            continue
        a = ours[path]
        assert type(a) is type(b), (path, type(a), type(b))
        assert a.training == b.training, (path, "training", b.training)
        attrs_a, attrs_b = plain_attributes(a), plain_attributes(b)
        assert sorted(attrs_a) == sorted(attrs_b), path
        for key, value in attrs_b.items():
            if isinstance(value, torch.Tensor):
                assert_same_tensor(attrs_a[key], value, f"{path}.{key}")
            else:
                assert attrs_a[key] is value or attrs_a[key] == value, (
                    path, key, attrs_a[key], value)
        assert repr(a) == repr(b), path
    assert first_path_of_each_module(ours) == first_path_of_each_module(theirs)


def first_path_of_each_module(modules):
    """{path: the first path reaching the same module}: shared modules."""
    first = {}
    return {path: first.setdefault(id(m), path) for path, m in modules.items()}


def assert_same_output(a, b, where="output"):
    """a and b nested alike; tensors bit-identical (NaNs in the same places),
    everything else equal and of the same type."""
    if isinstance(b, torch.Tensor):
        assert_same_tensor(a, b, where)
        return
    assert type(a) is type(b), (where, type(a), type(b))
    if isinstance(b, (tuple, list)):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same_output(x, y, f"{where}[{i}]")
    elif isinstance(b, dict):
        assert list(a) == list(b), where
        for k in b:
            assert_same_output(a[k], b[k], f"{where}[{k!r}]")
    elif isinstance(b, float) and math.isnan(b):
        assert math.isnan(a), where
    else:
        assert a == b, (where, a, b)


# --- Import: the IR verifies, round trips and has PyTorch's node table. ----

def test_import_verifies_and_matches_pytorch_table(bundle):
    b = bundle
    fx_mlir.run_fx_opt(b.ir, "--verify-roundtrip", "-o", os.devnull)
    assert_same_table(b.gm, b.ir)
    graph = b.ir.split("fx.graph @forward")[1]
    if b.typed:  # the placeholders at least have tensor types
        assert "fx.placeholder \"" in graph and "tensor<" in graph
    elif not b.traced_with_types:
        assert "tensor<" not in graph


# --- Export. ---------------------------------------------------------------

def test_export_graph(exported):
    b = exported
    assert_same_graph(b.gm, b.back)


def test_export_state_and_modules(exported):
    b = exported
    assert_same_state(b.gm, b.back)
    assert_same_modules(b.gm, b.back)


def test_export_computes_the_same(exported):
    b = exported
    back = b.back
    for seed in (1, 2):  # fresh inputs, twice (state updates included)
        with torch.no_grad():
            expected = b.gm(*b.case.make_inputs(seed))
            actual = back(*b.case.make_inputs(seed))
        assert_same_output(actual, expected)
    assert_same_state(b.gm, back)


def test_export_keeps_state_order(exported):
    """Parameters, buffers and submodules come back in their order:
    module.parameters(), state_dict() and optimizers depend on it. (Where
    an absent bias's None entry sits is not observable.)"""
    b = exported
    order = lambda m: [k for k, (_, t) in state_entries(m).items()  # noqa
                       if t is not None]
    assert order(b.back) == order(b.gm)
    assert list(b.back.state_dict()) == list(b.gm.state_dict())
    assert [p for p, _ in b.back.named_modules(remove_duplicate=False)] == \
        [p for p, _ in b.gm.named_modules(remove_duplicate=False)]


def test_export_traces_again_alike(exported):
    """symbolic_trace of the exported module gives the graph it gives for
    the original: functions that torch.fx.wrap keeps as calls stay calls."""
    again = torch.fx.symbolic_trace(exported.gm)
    assert_same_graph(again, torch.fx.symbolic_trace(exported.back))


@pytest.mark.parametrize("name", ["linear_relu", "batchnorm_training"])
def test_export_keeps_root_training_flag(name):
    """GraphModule copies `training` from its root; a module traced in eval
    mode comes back in eval mode."""
    b = Bundle(_case(name), True)
    assert b.back.training == b.gm.training


@pytest.mark.parametrize("name", ["linear_relu", "tied_weights",
                                  "nested_submodules"])
def test_export_python_source(name):
    b = Bundle(_case(name), True)
    source = fx_mlir.export_python(b.ir)
    assert isinstance(source, str)
    namespace = {}
    exec(compile(source, f"<export_python {name}>", "exec"), namespace)
    graph_module = namespace["graph_module"]
    back = fx_mlir.export_graph_module(b.ir)
    assert_same_graph(back, graph_module)
    assert_same_state(back, graph_module)
    assert_same_modules(back, graph_module)
    fresh = namespace["build"]()
    assert fresh is not graph_module
    assert_same_graph(graph_module, fresh)
    assert_same_state(graph_module, fresh)
    assert all(t is not state_entries(graph_module)[k][1]
               for k, (_, t) in state_entries(fresh).items()
               if t is not None), "build() must return fresh tensors"
    inputs = _case(name).make_inputs(seed=3)
    assert_same_output(fresh(*inputs), b.gm(*inputs))


# --- Importer pieces the round trip relies on. -----------------------------

@pytest.mark.parametrize("make", [
    lambda: nn.LSTM(3, 4, 2, batch_first=True, bidirectional=True,
                    proj_size=2),
    lambda: nn.RNN(3, 4, 2, nonlinearity="relu", bias=False, dropout=0.5),
    lambda: nn.GRU(3, 4, num_layers=2),
    lambda: nn.MultiheadAttention(8, 2, bias=False, add_bias_kv=True,
                                  kdim=6, vdim=5, batch_first=True),
    lambda: nn.TransformerEncoderLayer(8, 2, 16, 0.2, "gelu", 1e-6, True,
                                       True),
    lambda: nn.TransformerDecoderLayer(8, 2, 16, activation=F.gelu),
    lambda: nn.Conv2d(3, 4, 3, stride=2, padding="valid", bias=False),
], ids=["lstm", "rnn", "gru", "mha", "encoder", "decoder", "conv"])
def test_hyperparameters_rebuild_the_module(make):
    """Calling the module's type with its recorded hyperparameters builds
    the same module: same configuration, parameters and buffers."""
    module = make()
    rebuilt = type(module)(**hyperparameters(module))
    assert repr(rebuilt) == repr(module)
    shapes = lambda m: [(name, None if t is None else t.shape)  # noqa: E731
                        for name, (_, t) in state_entries(m).items()]
    assert shapes(rebuilt) == shapes(module)
    for path, sub in module.named_modules():
        assert plain_attributes(rebuilt.get_submodule(path)) == \
            plain_attributes(sub), path


def test_operator_overload_targets_are_named_as_operators():
    assert function_name(torch.ops.aten.add.Tensor) == "aten::add.Tensor"
    assert resolve("aten::relu") is torch.ops.aten.relu.default
    assert resolve("aten::no_such_op.default") is None


def test_empty_and_bfloat16_state():
    """An empty tensor is `dense<>` (MLIR's bytecode rejects an empty
    blob); bfloat16, which NumPy lacks, goes out as its bits."""
    module = nn.Module()
    module.register_buffer("empty", torch.zeros(0, 3))
    module.register_buffer("bf16", torch.tensor([1.5, -2.0],
                                                dtype=torch.bfloat16))
    graph = torch.fx.Graph()
    graph.output((graph.get_attr("empty"), graph.get_attr("bf16")))
    ir = fx_mlir.import_graph_module(torch.fx.GraphModule(module, graph))
    assert "fx.state buffer @empty : tensor<0x3xf32> = dense<>" in ir
    assert 'bf16: "0x02000000c03f00c0"' in ir
    fx_mlir.run_fx_opt(ir, "--verify-roundtrip", "-o", os.devnull)


# --- Export of bad IR. -----------------------------------------------------

def _one_line_error(ir):
    with pytest.raises(fx_mlir.FxMlirError) as info:
        fx_mlir.export_graph_module(ir)
    message = str(info.value)
    assert message.strip() and "\n" not in message.strip(), message
    return message


def test_export_malformed_ir():
    _one_line_error("fx.graph_module @M {\n  fx.graph @forward {\n")


def test_export_invalid_graph():
    message = _one_line_error(
        'fx.graph_module @M { fx.graph @forward {\n'
        '  %x = fx.placeholder "x" : !fx.any\n} }')
    assert "fx.output" in message


def test_export_unknown_function_names_the_node():
    ir = ('fx.graph_module @M {\n  fx.graph @forward {\n'
          '    %x = fx.placeholder "x" : !fx.any\n'
          '    %mystery = fx.call_function "torch.no_such_fn"(%x) : '
          '(!fx.any) -> !fx.any\n'
          '    fx.output %mystery : !fx.any\n  }\n}\n')
    fx_mlir.run_fx_opt(ir)  # valid IR: only the target does not resolve
    message = _one_line_error(ir)
    assert "mystery" in message and "torch.no_such_fn" in message, message


def test_export_unknown_module_type_names_the_submodule():
    ir = ('fx.graph_module @M {\n'
          '  fx.submodule @block "no_such_package.Block"(width=3)\n'
          '  fx.graph @forward {\n'
          '    %x = fx.placeholder "x" : !fx.any\n'
          '    %block = fx.call_module @block(%x) : (!fx.any) -> !fx.any\n'
          '    fx.output %block : !fx.any\n  }\n}\n')
    fx_mlir.run_fx_opt(ir)
    message = _one_line_error(ir)
    assert "block" in message and "no_such_package.Block" in message, message
