"""Python numbers among a compiled model's inputs.

`fx_mlir.compile(model, (x, 3, 0.5))`: an input that is a Python number
(bool, int, float or complex) is specialized, as torch.compile does with
ints: the compiled code holds the example's value as a constant, so that
code computing with it (`x * n`, `range(n)`, `x.view(n, -1)`) compiles as
it would with the literal. Calling with other numbers compiles again, once
per distinct tuple of numbers (kept, so that alternating values do not
recompile). The tensors are the compiled code's inputs.
"""

import torch
import torch.fx

from . import FxMlirError

__all__ = ["is_number", "bind_numbers", "SpecializedGraph"]


def is_number(value):
    """Whether `value` is a Python number (bool, int, float, complex)."""
    return isinstance(value, (bool, int, float, complex)) and not isinstance(
        value, torch.Tensor)


def _key(numbers):
    # 1 and 1.0 and True compare equal; their graphs differ (int vs float
    # arithmetic), so the type is part of the key.
    return tuple((type(n), n) for n in numbers)


def bind_numbers(gm, example_inputs, bound=is_number):
    """`gm` (a GraphModule whose placeholders take `example_inputs`) with
    the placeholders of the inputs `bound` picks (Python numbers) replaced
    by their values, in a copy; the other inputs are then the
    placeholders, in order."""
    gm = torch.fx.GraphModule(gm, _copy_graph(gm.graph), gm.__class__.__name__)
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    for node, value in zip(placeholders, example_inputs):
        if not bound(value):
            continue
        for user in list(node.users):
            user.args = torch.fx.node.map_arg(
                user.args, lambda n: value if n is node else n)
            user.kwargs = torch.fx.node.map_arg(
                user.kwargs, lambda n: value if n is node else n)
        gm.graph.erase_node(node)
    gm.recompile()
    return gm


def _copy_graph(graph):
    copy = torch.fx.Graph()
    output = copy.graph_copy(graph, {})
    copy.output(output)
    return copy


class SpecializedGraph:
    """A model compiled for the values of its number inputs: called with
    the same inputs as the model, it runs the code compiled for the call's
    numbers (compiling it the first time they are seen). Attributes are
    those of the code compiled for the example inputs."""

    def __init__(self, compile_for, example_inputs):
        self._positions = [i for i, v in enumerate(example_inputs)
                           if is_number(v)]
        self._count = len(example_inputs)
        self._compile_for = compile_for
        self._graphs = {}
        self._example = self._graph([example_inputs[i]
                                     for i in self._positions])

    def _graph(self, numbers):
        key = _key(numbers)
        if key not in self._graphs:
            self._graphs[key] = self._compile_for(tuple(numbers))
        return self._graphs[key]

    @property
    def specializations(self):
        """The tuples of numbers compiled for so far."""
        return [tuple(n for _, n in key) for key in self._graphs]

    def __call__(self, *args):
        if len(args) != self._count:
            raise FxMlirError(f"expected {self._count} inputs, got "
                              f"{len(args)}")
        numbers = []
        for i in self._positions:
            if not is_number(args[i]):
                raise FxMlirError(
                    f"input {i} was compiled as a Python number, got "
                    f"{type(args[i]).__name__}")
            numbers.append(args[i])
        tensors = [a for i, a in enumerate(args) if i not in self._positions]
        return self._graph(numbers)(*tensors)

    def __getattr__(self, name):
        return getattr(self._example, name)
