"""Compare fx-print-tabular tables with torch.fx's Graph.print_tabular()."""

import contextlib
import io

import fx_mlir
import fx_mlir.importer

HEADERS = ["opcode", "name", "target", "args", "kwargs"]


def parse_table(text):
    """Rows of cells of a tabulate 'simple' table, split at the column
    spans of the dash line under the header."""
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


def torch_table(gm):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        gm.graph.print_tabular()
    return out.getvalue()


def our_table(ir):
    """The table fx-print-tabular prints for the first graph in `ir`."""
    text = fx_mlir.print_tabular(ir)
    return text.split("\n", 1)[1].split("\n\n")[0]


def resolve(qualified_name):
    """The object a call_function target name (`torch.relu`,
    `aten::add.Tensor`) names."""
    return fx_mlir.importer.resolve(qualified_name)


def assert_same_table(gm, ir):
    """Every cell of our table equals PyTorch's; call_function targets (which
    PyTorch prints as function objects) must name the traced function."""
    torch_header, torch_rows = parse_table(torch_table(gm))
    our_header, our_rows = parse_table(our_table(ir))
    assert our_header == torch_header == HEADERS
    nodes = list(gm.graph.nodes)
    assert len(our_rows) == len(torch_rows) == len(nodes)
    for node, theirs, ours in zip(nodes, torch_rows, our_rows):
        assert (ours[0], ours[1], ours[3], ours[4]) == (
            theirs[0], theirs[1], theirs[3], theirs[4]), node
        if node.op == "call_function":
            assert resolve(ours[2]) is node.target, (ours[2], node.target)
        else:
            assert ours[2] == theirs[2]
