"""fx dialect (textual IR) -> torch.fx.GraphModule.

    gm = fx_mlir.export_graph_module(ir)

`fx-translate --export-fx-json` writes the graph module as data (its
submodules with their types and hyperparameters, its parameters, buffers
and constants, its nodes) and `fx_mlir._rebuild` builds the GraphModule
from it through torch.fx.Graph, node by node with the same names, targets,
args and kwargs. No text of the IR is executed: an `.mlir` file from
someone else is safe to export (docs/Security.md).
"""

import json
import subprocess

from . import FxMlirError, _serialized, find_tool
from ._rebuild import RebuildError, check_allowed_modules, rebuild

__all__ = ["export_python", "export_graph_module"]


def _translate(ir, *args):
    if isinstance(ir, str):
        ir = ir.encode()
    result = subprocess.run([find_tool("fx-translate"), *args, "-"],
                            input=ir, capture_output=True)
    if result.returncode != 0:
        lines = result.stderr.decode(errors="replace").strip().splitlines()
        # The first diagnostic; not the source excerpt and notes after it.
        errors = [line for line in lines if "error:" in line]
        message = (errors or lines or
                   [f"fx-translate exited with {result.returncode}"])[0]
        raise FxMlirError(message.strip())
    return result.stdout.decode()


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
    args = [f"--export-allow-module={name}"
            for name in _allowed(allowed_modules)]
    return _translate(ir, "--export-python", *args)


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
    description = json.loads(_translate(ir, "--export-fx-json"))
    try:
        return rebuild(description, allowed)
    except RebuildError as error:
        raise FxMlirError(f"cannot rebuild the GraphModule: {error}") \
            from None
