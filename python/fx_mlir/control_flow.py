"""Runnable forms of the fx dialect's control flow (docs/ControlFlow.md).

A graph module exported from IR with control flow (`export_graph_module`,
`fx-translate --export-python`) holds each branch and body as a
GraphModule submodule, and calls these functions where the IR calls the
higher-order targets; they run real Python `if`, `for` and `while`. The
importer maps them back to the targets' names, so IR -> GraphModule -> IR
is exact.
"""

import torch
import torch.fx

__all__ = ["cond", "while_loop", "for_loop", "TARGETS"]


def _truth(value):
    return bool(value.item() if isinstance(value, torch.Tensor) else value)


def cond(pred, true_graph, false_graph, operands):
    """`torch.ops.higher_order.cond`: the tuple the true graph returns for
    `operands` if `pred` holds, else the false graph's."""
    return tuple((true_graph if _truth(pred) else false_graph)(*operands))


def while_loop(cond_graph, body_graph, carried, additional):
    """`torch.ops.higher_order.while_loop`: the carried values, stepped by
    the body graph while the cond graph returns true for them."""
    carried = tuple(carried)
    while _truth(cond_graph(*carried, *additional)[0]):
        carried = tuple(body_graph(*carried, *additional))
    return carried


def for_loop(count, body_graph, carried, additional):
    """`fx_mlir.for_loop`: `for i in range(count)`, the body graph taking
    `i`, the carried and the additional values and returning the next
    carried values."""
    carried = tuple(carried)
    for i in range(int(count)):
        carried = tuple(body_graph(i, *carried, *additional))
    return carried


# The IR's target names -> these functions.
TARGETS = {
    "torch.ops.higher_order.cond": cond,
    "torch.ops.higher_order.while_loop": while_loop,
    "fx_mlir.for_loop": for_loop,
}
NAMES = {fn: name for name, fn in TARGETS.items()}

# Traced again, a rebuilt module keeps the calls (their graphs are
# GraphModules a tracer cannot follow into a Python loop).
for _fn in (cond, while_loop, for_loop):
    torch.fx.wrap(_fn.__name__)
