"""Modules with data-dependent control flow, through TorchScript.

torch.fx's symbolic_trace cannot follow `if x.sum() > 0:` or a loop over
a size known only at run time. torch.jit.script captures such code, with
prim::If and prim::Loop blocks; the C++ importer (fx-translate
--import-torchscript) turns those into fx control flow: higher-order calls
(`torch.ops.higher_order.cond`, `torch.ops.higher_order.while_loop`,
`fx_mlir.for_loop`) whose branches and bodies are graphs of the graph
module (docs/ControlFlow.md).

`import_torchscript` gives that IR; `fx_mlir.compile` takes this route by
itself for a module torch.fx cannot trace, and says so with a warning.
"""

import io
import os
import warnings

import torch

from . import FxMlirError


class ScriptedRouteWarning(UserWarning):
    """fx_mlir.compile compiled a module through torch.jit.script because
    torch.fx could not trace it."""


def script(model):
    """torch.jit.script(model), or FxMlirError saying why it cannot be
    scripted; a ScriptModule is returned as it is."""
    if isinstance(model, torch.jit.ScriptModule):
        return model
    try:
        return torch.jit.script(model)
    except Exception as error:
        _forget_concrete_types(model)
        raise FxMlirError(
            f"cannot script {type(model).__name__} with torch.jit.script: "
            f"{type(error).__name__}: {_reason(error)}") from error


def _forget_concrete_types(model):
    """Drops what a failed torch.jit.script left of `model`'s classes in
    TorchScript's concrete type store. The store keeps one JIT class per
    Python class, with the methods the failed attempt had defined, and a
    second attempt in the same process would report "Can't redefine
    method" instead of the real error."""
    store = getattr(getattr(torch.jit, "_recursive", None),
                    "concrete_type_store", None)
    types = getattr(store, "type_store", None)
    if not isinstance(types, dict) or not isinstance(model, torch.nn.Module):
        return
    for module in model.modules():
        types.pop(type(module), None)


def _reason(error):
    """The lines of a TorchScript error before its source excerpt (a
    function's signature alone says nothing, the line after it why; at
    most three), and the excerpt's line marked HERE."""
    lines = [line.rstrip() for line in str(error).strip().splitlines()
             if line.strip()]
    head = []
    for line in lines:
        if line.lstrip().startswith("File \"") or "~~~" in line:
            break
        head.append(line.strip())
    text = " ".join(head[:3]) or (lines[0].strip() if lines else "")
    marked = [lines[i - 1].strip() for i, line in enumerate(lines)
              if "<--- HERE" in line and i > 0]
    if marked:
        text += f" (at `{marked[0]}`)"
    return text


def _archive(module_or_path):
    """The bytes of a TorchScript archive: a path's file, or a module
    scripted (if it is not a ScriptModule) and saved."""
    if isinstance(module_or_path, (str, os.PathLike)):
        with open(module_or_path, "rb") as f:
            return f.read(), os.path.splitext(
                os.path.basename(os.fspath(module_or_path)))[0]
    module = script(module_or_path)
    buffer = io.BytesIO()
    torch.jit.save(module, buffer)
    name = getattr(module, "original_name", None) or type(module).__name__
    return buffer.getvalue(), name


def import_torchscript(module_or_path, example_inputs, name=None,
                       more_example_inputs=None, inline_traced_leaves=False):
    """The fx IR (text) of a TorchScript module: a ScriptModule, an
    nn.Module (scripted here) or the path of a `.pt` archive, its graph
    run on `example_inputs` (a tuple of tensors) to type every node,
    control flow included (both branches of an `if`, every iteration of
    a loop). With `more_example_inputs` (a tuple of tensors of other
    sizes, or a list of such tuples), the graph runs on those too and the
    dims that differ are dynamic. Raises
    FxMlirError naming the TorchScript node, its source location and its
    module for what cannot be imported. With `inline_traced_leaves`, a
    torch.nn leaf that records no hyperparameters (torch.jit.trace keeps
    none: a traced Conv2d's stride is a constant of its forward) is walked
    into, so that the graph compiles; fx_mlir.compile does this for a
    traced module."""
    from .compiler import _load_runtime
    if isinstance(example_inputs, torch.Tensor):
        example_inputs = (example_inputs,)
    for i, t in enumerate(example_inputs):
        if not isinstance(t, torch.Tensor):
            raise FxMlirError(f"example input {i}: expected a torch.Tensor, "
                              f"got {type(t).__name__}")
    data, default_name = _archive(module_or_path)
    more = more_example_inputs
    if more is not None and (isinstance(more, torch.Tensor) or any(
            isinstance(t, torch.Tensor) for t in more)):
        more = [more]  # one set
    if more is not None:
        more = [[t.detach() for t in (
            (s,) if isinstance(s, torch.Tensor) else s)] for s in more]
    return _load_runtime().import_torchscript(
        data, [t.detach() for t in example_inputs],
        name or default_name, more, inline_traced_leaves)


# The rows added to the batch for the runs that tell which sizes follow it:
# a size computed from the batch (`x.size(0) // 2`) changes in one of them.
EXTRA_ROWS = (1, 2, 12)


def grown_batch(example_inputs, extra=1):
    """The example inputs with `extra` rows more in dim 0 (the first row
    again; other values as they are): a second run of a graph on these
    shows which dims follow the batch."""
    return tuple(
        torch.cat([t, t[:1].repeat(extra, *[1] * (t.dim() - 1))])
        if isinstance(t, torch.Tensor) and t.dim() > 0 else t
        for t in example_inputs)
