"""fx-print-tabular against PyTorch's own Graph.print_tabular().

The sample graph examples/small_cnn.mlir is SmallCNN from
examples/make_small_cnn.py; PyTorch traces the same model here and prints its
table, and every cell must match ours. PyTorch prints call_function targets
as the function object's str(); ours is the qualified name, so for those we
check that the name resolves to the very function PyTorch traced.
"""

import contextlib
import importlib
import io
import operator
import os
import sys

import pytest
import torch
import torch.fx

import fx_mlir

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "examples"))
import make_small_cnn  # noqa: E402


def parse_table(text):
    """Splits a tabulate 'simple' table into rows of cells, using the dash
    line under the header for the column spans."""
    lines = text.rstrip("\n").split("\n")
    dash = next(i for i, line in enumerate(lines) if line.startswith("---"))
    spans, start = [], 0
    for part in lines[dash].split("  "):
        spans.append((start, start + len(part)))
        start += len(part) + 2
    def cells(line):
        return [line[a:b if i + 1 < len(spans) else None].strip()
                for i, (a, b) in enumerate(spans)]
    return cells(lines[dash - 1]), [cells(line) for line in lines[dash + 1:]]


def resolve(qualified_name):
    module, _, attr = qualified_name.rpartition(".")
    return getattr(importlib.import_module(module), attr)


@pytest.fixture(scope="module")
def tables():
    torch.manual_seed(0)
    gm = torch.fx.symbolic_trace(make_small_cnn.SmallCNN().eval())
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        gm.graph.print_tabular()
    with open(os.path.join(REPO, "examples", "small_cnn.mlir")) as f:
        ours = fx_mlir.print_tabular(f.read())
    assert ours.startswith("graph SmallCNN.forward:\n")
    ours = ours.split("\n", 1)[1]
    return gm, parse_table(out.getvalue()), parse_table(ours)


def test_same_header(tables):
    _, (torch_header, _), (our_header, _) = tables
    assert our_header == torch_header == ["opcode", "name", "target", "args",
                                          "kwargs"]


def test_same_rows(tables):
    gm, (_, torch_rows), (_, our_rows) = tables
    nodes = list(gm.graph.nodes)
    assert len(our_rows) == len(torch_rows) == len(nodes)
    for node, theirs, ours in zip(nodes, torch_rows, our_rows):
        opcode, name, target, args, kwargs = ours
        assert (opcode, name, args, kwargs) == (theirs[0], theirs[1],
                                                theirs[3], theirs[4]), node
        if node.op == "call_function":
            assert resolve(target) is node.target, (target, node.target)
        else:
            assert target == theirs[2]


def test_layout_matches_tabulate(tables):
    """Column widths follow tabulate: the widest cell, at least header + 2."""
    _, _, (_, our_rows) = tables
    with open(os.path.join(REPO, "examples", "small_cnn.mlir")) as f:
        ours = fx_mlir.print_tabular(f.read()).split("\n")[1:]
    dash = ours[1].split("  ")
    headers = ["opcode", "name", "target", "args", "kwargs"]
    for i, width in enumerate(map(len, dash)):
        assert width == max([len(headers[i]) + 2] + [len(r[i]) for r in our_rows])


def test_bad_ir_raises():
    with pytest.raises(fx_mlir.FxMlirError, match="has no fx.output node"):
        fx_mlir.print_tabular(
            'fx.graph_module @M { fx.graph @forward {\n'
            '  %x = fx.placeholder "x" : !fx.any\n} }')
