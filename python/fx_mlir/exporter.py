"""fx dialect (textual IR) -> torch.fx.GraphModule.

    gm = fx_mlir.export_graph_module(ir)

The exporter (`fx-translate --export-fx-json`, run in this process through
the extension) writes the graph module as data (its
submodules with their types and hyperparameters, its parameters, buffers
and constants, its nodes) and `fx_mlir._rebuild` builds the GraphModule
from it through torch.fx.Graph, node by node with the same names, targets,
args and kwargs. No text of the IR is executed: an `.mlir` file from
someone else is safe to export (docs/Security.md).
"""

import json
from . import FxMlirError, _serialized
from ._rebuild import RebuildError, check_allowed_modules, rebuild

__all__ = ["export_python", "export_graph_module"]


def _text(ir):
    """`ir` as text: the IR is exported in this process (no fx-translate
    subprocess)."""
    return ir.decode() if isinstance(ir, bytes) else ir


def _allowed(allowed_modules):
    try:
        return check_allowed_modules(allowed_modules)
    except RebuildError as error:
        raise FxMlirError(str(error)) from None


def export_python(ir, allowed_modules=()):
    """The Python script `fx-translate --export-python` writes for `ir`:
    running it defines `build()` and `graph_module = build()`. Submodule
    types may come from torch, fx_mlir and the packages named in
    `allowed_modules`."""
    from .compiler import _load_runtime
    return _load_runtime().export_python(_text(ir),
                                         list(_allowed(allowed_modules)))


@_serialized
def export_graph_module(ir, allowed_modules=()):
    """A new torch.fx.GraphModule rebuilt from the fx.graph_module in `ir`.

    Submodules are constructed from their recorded type, which must be a
    torch.nn.Module subclass in torch, fx_mlir or a package named in
    `allowed_modules` (e.g. ["torchvision", "mypkg.layers"]); nothing else
    is called while rebuilding. Raises FxMlirError when the IR is invalid,
    or names a target, module type, hyperparameter or name that cannot be
    rebuilt (the message names the node or submodule)."""
    allowed = _allowed(allowed_modules)
    from .compiler import _load_runtime
    description = json.loads(_load_runtime().export_fx_json(_text(ir)))
    try:
        return rebuild(description, allowed)
    except RebuildError as error:
        raise FxMlirError(f"cannot rebuild the GraphModule: {error}") \
            from None
