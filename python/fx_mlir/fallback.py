"""`fx_mlir.compile(model, inputs, fallback=True)`: the nodes fx-mlir cannot
compile run in PyTorch, the rest is compiled.

The graph is split (torch.fx.passes.split_module) into partitions that
follow the node order: each run of compilable nodes is one partition,
compiled with fx_mlir.compile on the values that reach it when the model
runs on the example inputs; each node the compiler rejected is a partition
of its own, run by PyTorch (its ATen kernel through LibTorch, as the
reference interpreter runs it). A compilable partition that still fails
to compile (its inputs are not all tensors, say) runs in PyTorch too. The
result is a `FallbackGraph`, called as the model; `eager_nodes` names what
runs in PyTorch, and a warning says so when it is built. See
docs/UserGuide.md, "Unsupported operators".
"""

import contextlib
import re
import warnings

import torch
from torch.fx.passes.split_module import split_module

from . import FxMlirError, _TORCH_FX_LOCK

# The compiler's message for each node it cannot compile (all are listed).
_UNSUPPORTED = re.compile(
    r"cannot compile (?:call_function|call_method|call_module) '([^']+)'")


def unsupported_node_names(message):
    """The names of the nodes a compile error reports as not compilable."""
    return set(_UNSUPPORTED.findall(message))


class _Compiled(torch.nn.Module):
    """A partition's compiled code, called in place of its GraphModule."""

    def __init__(self, compiled):
        super().__init__()
        self.compiled = compiled

    def forward(self, *args):
        return self.compiled(*args)


class _Recorder(torch.fx.Interpreter):
    """Runs the split module, keeping the arguments of each partition."""

    def __init__(self, module):
        super().__init__(module)
        self.arguments = {}

    def call_module(self, target, args, kwargs):
        self.arguments.setdefault(target, args)
        return super().call_module(target, args, kwargs)


class FallbackGraph:
    """A model compiled in partitions, some of them run by PyTorch: call it
    with tensors, as the model's forward."""

    def __init__(self, split, partitions):
        self._split = split
        self._partitions = partitions

    @property
    def partitions(self):
        """(name, 'compiled' or 'pytorch', node names) per partition, in the
        order they run."""
        return list(self._partitions)

    @property
    def eager_nodes(self):
        """The names of the nodes PyTorch runs."""
        return [n for _, how, nodes in self._partitions if how == "pytorch"
                for n in nodes]

    def __call__(self, *inputs):
        with torch.no_grad():
            return self._split(*inputs)


class _StateReport:
    """What _state_kept found on exit: whether a tensor had changed, and
    the attributes that had been rebound (`rebound`, their names)."""
    changed = False

    def __init__(self):
        self.rebound = []


def _same_values(a, b):
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.is_floating_point() or a.is_complex():
        return bool(((a == b) | (a.isnan() & b.isnan())).all())
    return torch.equal(a, b)


@contextlib.contextmanager
def _state_kept(module):
    """Restores, on exit, the values of the tensors `module` and its
    submodules hold other than parameters (buffers, tensor attributes),
    and the attributes that held them where they were rebound. Yields a
    _StateReport, whose `changed` says on exit whether one of them had
    been changed in place or rebound."""
    saved, seen, bound = [], set(), []
    for sub in module.modules():
        slots = [(vars(sub), key, value) for key, value in vars(sub).items()]
        slots += [(sub._buffers, key, value)
                  for key, value in sub._buffers.items()]
        for table, key, value in slots:
            if not isinstance(value, torch.Tensor) or \
                    isinstance(value, torch.nn.Parameter):
                continue
            # The attribute itself: a forward may rebind it
            # (`self.b = self.b * 2`) rather than update it in place.
            bound.append((table, key, value))
            if not value.is_quantized and id(value) not in seen:
                seen.add(id(value))
                saved.append((value, value.clone()))
    report = _StateReport()
    try:
        yield report
    finally:
        for table, key, value in bound:
            if table.get(key) is not value:
                # A buffer rebound is state the next call reads; a plain
                # attribute a hook sets each call (weight_norm's `weight`,
                # computed from weight_g and weight_v) is put back only.
                if any(table is m._buffers for m in module.modules()):
                    report.changed = True
                    report.rebound.append(key)
                table[key] = value
        with torch.no_grad():
            for tensor, value in saved:
                if not _same_values(tensor, value):
                    report.changed = True
                if tensor.shape == value.shape:
                    tensor.copy_(value)


def _with_dynamic_quantization_users(nodes, rejected):
    """`rejected` and the nodes that read, directly or through other such
    nodes, a tensor a rejected `torch.quantize_per_tensor_dynamic` makes,
    up to and including its `dequantize`: its scale and zero point change
    with every input, where compiled code is fixed to one quantization
    (the example's)."""
    rejected = set(rejected)
    pending = [n for n in nodes if n.name in rejected and n.target is getattr(
        torch, "quantize_per_tensor_dynamic", None)]
    while pending:
        node = pending.pop()
        for user in node.users:
            if user.op == "output" or user.name in rejected:
                continue
            rejected.add(user.name)
            if user.target not in ("dequantize", torch.dequantize):
                pending.append(user)
    return rejected


def compile_with_fallback(gm, example_inputs, rejected, compile_fn):
    """Splits `gm` around the nodes named in `rejected`, compiles the other
    partitions with `compile_fn(module, inputs)` and returns a
    FallbackGraph. Raises FxMlirError when no rejected name is a node of
    `gm` (the error was not about single nodes)."""
    nodes = [n for n in gm.graph.nodes if n.op not in ("placeholder",
                                                       "output")]
    if not any(n.name in rejected for n in nodes):
        raise FxMlirError("no node to run in PyTorch: "
                          + ", ".join(sorted(rejected)))
    rejected = _with_dynamic_quantization_users(nodes, rejected)
    # Partition ids in node order: a run of compilable nodes shares one,
    # each rejected node has its own.
    ids, current, run_open = {}, -1, False
    for n in nodes:
        if n.name in rejected:
            current += 1
            run_open = False
        elif not run_open:
            current += 1
            run_open = True
        ids[n.name] = current
    eager = {ids[n.name] for n in nodes if n.name in rejected}
    members = {}
    for n in nodes:
        members.setdefault(ids[n.name], []).append(n.name)
    # Splitting and running GraphModules is torch.fx work: serialized as
    # tracing is (fx_mlir._TORCH_FX_LOCK).
    with _TORCH_FX_LOCK, torch.no_grad():
        split = split_module(gm, gm, lambda node: ids[node.name])
        recorder = _Recorder(split)
        # The run may update a buffer or a constant in place (a tensor
        # torch.fx made a constant, `.scatter_add_(...)` on it): the module
        # keeps its state as it was.
        with _state_kept(split):
            recorder.run(*example_inputs)
    partitions, failed = [], []
    # The partitions are `submod_<id>`; split_module also keeps the
    # submodules whose state a get_attr of the graph reads (a model's
    # `pos_encoding` holding a parameter), which are not partitions.
    children = sorted(((name, m) for name, m in split.named_children()
                       if re.fullmatch(r"submod_\d+", name)),
                      key=lambda item: int(item[0].rsplit("_", 1)[1]))
    for name, module in children:
        index = int(name.rsplit("_", 1)[1])
        how = "pytorch"
        args = recorder.arguments.get(name)
        if index not in eager and args is not None:
            if all(isinstance(a, torch.Tensor) for a in args):
                try:
                    compiled = compile_fn(module, tuple(args))
                    setattr(split, name, _Compiled(compiled))
                    how = "compiled"
                except FxMlirError as error:
                    failed.append(f"{name}: {str(error).splitlines()[0]}")
            else:
                failed.append(f"{name}: an input is not a tensor")
        partitions.append((name, how, members.get(index, [])))
    graph = FallbackGraph(split, partitions)
    message = ("fx_mlir.compile(fallback=True): PyTorch runs "
               + ", ".join(graph.eager_nodes))
    if failed:
        message += "; partitions left uncompiled: " + "; ".join(failed)
    warnings.warn(message, stacklevel=3)
    return graph
