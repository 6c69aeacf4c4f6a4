"""fx dialect (textual IR) -> torch.fx.GraphModule.

    gm = fx_mlir.export_graph_module(ir)

`fx-translate --export-python` writes the Python source that rebuilds the
GraphModule: each submodule is constructed from its type and recorded
hyperparameters, then the parameters, buffers and constants are loaded from
the IR (tied weights stay one tensor), and the graph is rebuilt node by node
with the same names, targets, args and kwargs.
"""

import subprocess

from . import FxMlirError, find_tool

__all__ = ["export_python", "export_graph_module"]


def export_python(ir):
    """The Python source `fx-translate --export-python` emits for `ir`;
    running it defines `build()` and `graph_module = build()`."""
    if isinstance(ir, str):
        ir = ir.encode()
    result = subprocess.run([find_tool("fx-translate"), "--export-python", "-"],
                            input=ir, capture_output=True)
    if result.returncode != 0:
        lines = result.stderr.decode(errors="replace").strip().splitlines()
        # The first diagnostic; not the source excerpt and notes after it.
        errors = [line for line in lines if "error:" in line]
        message = (errors or lines or
                   [f"fx-translate exited with {result.returncode}"])[0]
        raise FxMlirError(message.strip())
    return result.stdout.decode()


def export_graph_module(ir):
    """A new torch.fx.GraphModule rebuilt from the fx.graph_module in `ir`.
    Raises FxMlirError when the IR is invalid or names a target, module type
    or hyperparameter Python cannot resolve (the message names the node or
    submodule)."""
    source = export_python(ir)
    scope = {"__name__": "fx_mlir_exported"}
    try:
        exec(compile(source, "<fx-translate --export-python>", "exec"), scope)
    except Exception as error:  # a target or module type that does not resolve
        raise FxMlirError(f"cannot rebuild the GraphModule: {error}") from None
    return scope["graph_module"]
