"""fx-print-tabular against PyTorch's own Graph.print_tabular(), on the
sample graph examples/small_cnn.mlir (SmallCNN of examples/make_small_cnn.py).
"""

import os
import sys

import pytest
import torch
import torch.fx

import fx_mlir
from tables import HEADERS, assert_same_table, parse_table, our_table

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "examples"))
import make_small_cnn  # noqa: E402


@pytest.fixture(scope="module")
def sample():
    torch.manual_seed(0)
    gm = torch.fx.symbolic_trace(make_small_cnn.SmallCNN().eval())
    with open(os.path.join(REPO, "examples", "small_cnn.mlir")) as f:
        return gm, f.read()


def test_same_table_as_pytorch(sample):
    gm, ir = sample
    assert fx_mlir.print_tabular(ir).startswith("graph SmallCNN.forward:\n")
    assert_same_table(gm, ir)


def test_layout_matches_tabulate(sample):
    """Column widths follow tabulate: the widest cell, at least header + 2."""
    _, ir = sample
    _, rows = parse_table(our_table(ir))
    dash = our_table(ir).split("\n")[1].split("  ")
    for i, width in enumerate(map(len, dash)):
        assert width == max([len(HEADERS[i]) + 2] + [len(r[i]) for r in rows])


def test_bad_ir_raises():
    with pytest.raises(fx_mlir.FxMlirError, match="has no fx.output node"):
        fx_mlir.print_tabular(
            'fx.graph_module @M { fx.graph @forward {\n'
            '  %x = fx.placeholder "x" : !fx.any\n} }')
