#!/usr/bin/python3
"""DEMO GENERATOR: writes examples/small_cnn.mlir from a small torch.fx graph.

This is not the importer. It handles just what SmallCNN below needs, so that
the repository has a realistic fx-dialect graph to read and to run fx-opt on.
The real torch.fx -> fx dialect importer comes in a later issue and will live
in python/fx_mlir.

    /usr/bin/python3 examples/make_small_cnn.py            # rewrites the .mlir
    build/bin/fx-opt examples/small_cnn.mlir --fx-print-tabular -o /dev/null

Needs torch (1.13 here); run with /usr/bin/python3, which sees Debian's torch.
"""
import argparse
import builtins
import os
import re
import struct

import torch
import torch.fx
import torch.nn as nn
import torch.nn.functional as F
from torch.fx.passes.shape_prop import ShapeProp, TensorMetadata


class SmallCNN(nn.Module):
    """Conv-BN-ReLU stem, one conv block, concat pooling, a linear head."""

    def __init__(self, num_classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1, bias=False),
                                  nn.BatchNorm2d(8))
        self.pool = nn.MaxPool2d(2)
        self.conv = nn.Conv2d(8, 8, 3, padding=1)
        self.act = nn.ReLU()
        self.fc = nn.Linear(16, num_classes)
        self.temperature = nn.Parameter(torch.tensor([2.0]))

    def forward(self, x):
        x = self.pool(torch.relu(self.stem(x)))              # 1x8x8x8
        x = self.act(self.conv(x))                           # 1x8x8x8
        avg = torch.flatten(F.adaptive_avg_pool2d(x, 1), 1)  # 1x8
        mx = x.view(x.size(0), x.size(1), -1).amax(dim=-1)   # 1x8
        return self.fc(torch.cat([avg, mx], dim=1)) / self.temperature


# --- FX values in the fx dialect's syntax (see ValuePrinter in FXOps.cpp) ---

BARE_ID = re.compile(r"[A-Za-z_][A-Za-z0-9_$.]*\Z")


def mlir_str(s):
    """An MLIR string literal, escaped as MLIR's printer escapes it."""
    out = []
    for byte in s.encode():
        c = chr(byte)
        if c == "\\":
            out.append("\\\\")
        elif 0x20 <= byte < 0x7F and c != '"':
            out.append(c)
        else:
            out.append("\\%02X" % byte)
    return '"' + "".join(out) + '"'


def name_or_str(name):
    """A bare identifier when MLIR would print one, else a string."""
    return name if BARE_ID.match(name) else mlir_str(name)


def symbol(name):
    return "@" + name_or_str(name)


def float_text(v):
    text = repr(v)  # Python's shortest repr; MLIR wants a '.' before 'e'
    mantissa, e, exponent = text.partition("e")
    if e and "." not in mantissa:
        text = mantissa + ".0e" + exponent
    return text


def value(v, refs):
    """Prints one FX arg value; appends each node it refers to to `refs`."""
    seq = lambda items: ", ".join(value(x, refs) for x in items)
    if isinstance(v, torch.fx.Node):
        refs.append(v)
        return "%" + v.name
    if isinstance(v, bool) or v is None:
        return str(v)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return float_text(v)
    if isinstance(v, complex):
        return f"complex({float_text(v.real)}, {float_text(v.imag)})"
    if isinstance(v, str):
        return mlir_str(v)
    if v is Ellipsis:
        return "..."
    if isinstance(v, torch.Size):
        return f"torch.Size([{', '.join(map(str, v))}])"
    if isinstance(v, tuple):
        return f"({seq(v)}{',' if len(v) == 1 else ''})"
    if isinstance(v, list):
        return f"[{seq(v)}]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{value(k, refs)}: {value(x, refs)}"
                               for k, x in v.items()) + "}"
    if isinstance(v, slice):
        return f"slice({seq((v.start, v.stop, v.step))})"
    if isinstance(v, (torch.dtype, torch.memory_format, torch.layout)):
        return str(v)  # torch.float32, torch.channels_last, torch.strided
    if isinstance(v, torch.device):
        return f"device({mlir_str(str(v))})"
    raise TypeError(f"no fx dialect syntax for {type(v).__name__} {v!r}")


def call_args(args, kwargs, refs):
    parts = [value(a, refs) for a in args]
    parts += [f"{name_or_str(k)}={value(v, refs)}" for k, v in kwargs.items()]
    return "(" + ", ".join(parts) + ")"


# --- Types, targets, module types ---

ELEMENT_TYPES = {
    torch.float32: "f32", torch.float64: "f64", torch.float16: "f16",
    torch.bfloat16: "bf16", torch.int64: "i64", torch.int32: "i32",
    torch.int16: "i16", torch.int8: "i8", torch.uint8: "ui8", torch.bool: "i1",
}


def tensor_type(shape, dtype):
    return "tensor<" + "".join(f"{d}x" for d in shape) + ELEMENT_TYPES[dtype] + ">"


def node_type(node):
    """The result type ShapeProp found, or !fx.any."""
    meta = node.meta.get("tensor_meta")
    if isinstance(meta, TensorMetadata):
        return tensor_type(meta.shape, meta.dtype)
    if isinstance(meta, (tuple, list)) and all(
            isinstance(m, TensorMetadata) for m in meta):
        return "tuple<" + ", ".join(tensor_type(m.shape, m.dtype)
                                    for m in meta) + ">"
    return {int: "i64", float: "f64", bool: "i1"}.get(node.meta.get("type"),
                                                      "!fx.any")


# Modules of C functions, mapped to where Python code reaches them.
PUBLIC_MODULES = {
    "_operator": "operator",
    "torch._C._VariableFunctions": "torch",
    "torch._C._nn": "torch.nn.functional",
    "torch._C._fft": "torch.fft",
    "torch._C._linalg": "torch.linalg",
    "torch._C._special": "torch.special",
    "torch._ops": "torch.ops",
}


def function_name(fn):
    """`torch.relu`, `operator.add`, `torch.nn.functional.adaptive_avg_pool2d`."""
    if getattr(builtins, fn.__name__, None) is fn:
        return fn.__name__  # getattr
    module = getattr(fn, "__module__", None) or "torch"
    return PUBLIC_MODULES.get(module, module) + "." + fn.__name__


def module_type(module):
    cls = type(module)
    if cls.__module__.startswith("torch.nn.") and getattr(nn, cls.__name__,
                                                          None) is cls:
        return "torch.nn." + cls.__name__  # torch.nn.modules.conv -> torch.nn
    return cls.__module__ + "." + cls.__qualname__


# The hyperparameters that define a module, in extra_repr's order.
HPARAMS = {
    nn.Conv2d: ["in_channels", "out_channels", "kernel_size", "stride",
                "padding", "dilation", "groups", "bias", "padding_mode"],
    nn.BatchNorm2d: ["num_features", "eps", "momentum", "affine",
                     "track_running_stats"],
    nn.Linear: ["in_features", "out_features", "bias"],
    nn.MaxPool2d: ["kernel_size", "stride", "padding", "dilation",
                   "return_indices", "ceil_mode"],
    nn.ReLU: ["inplace"],
}


def hparams(module):
    values = {}
    for key in HPARAMS.get(type(module), []):
        v = getattr(module, key)
        values[key] = (v is not None) if key == "bias" else v
    return values


def blob(tensor):
    """`0x` + little-endian u32 alignment + the raw little-endian data."""
    array = tensor.detach().cpu().contiguous().numpy()
    data = array.astype(array.dtype.newbyteorder("<"), copy=False).tobytes()
    return "0x" + (struct.pack("<I", tensor.element_size()) + data).hex().upper()


# --- The graph module ---

def emit(gm, name):
    lines = [f"fx.graph_module {symbol(name)} {{"]
    resources = []
    # State: every parameter and buffer of the GraphModule, by qualified name.
    # A tensor reached under a second name (tied weights) is an alias.
    first_name = {}
    for prefix, mod in gm.named_modules(remove_duplicate=False):
        for kind, table in (("parameter", mod._parameters),
                            ("buffer", mod._buffers)):
            for field, t in table.items():
                if t is None:
                    continue
                qual = f"{prefix}.{field}" if prefix else field
                head = (f"  fx.state {kind} {symbol(qual)} : "
                        f"{tensor_type(t.shape, t.dtype)} = ")
                if id(t) in first_name:
                    lines.append(head + symbol(first_name[id(t)]))
                    continue
                first_name[id(t)] = qual
                lines.append(head + f"dense_resource<{name_or_str(qual)}>")
                resources.append((qual, blob(t)))
    # Submodules. The GraphModule holds copies of the modules the graph uses;
    # a parent FX had to recreate (`stem`) is a plain torch.nn.Module.
    for path, mod in gm.named_modules():
        if path:
            lines.append(f"  fx.submodule {symbol(path)} "
                         f"{mlir_str(module_type(mod))}"
                         f"{call_args((), hparams(mod), [])}")
    # The forward graph, one op per node in FX order.
    lines.append("  fx.graph @forward {")
    for node in gm.graph.nodes:
        refs = []
        if node.op == "placeholder":
            default = f" = {value(node.args[0], refs)}" if node.args else ""
            op = f"fx.placeholder {mlir_str(node.target)}{default}"
        elif node.op == "get_attr":
            op = f"fx.get_attr {symbol(node.target)}"
        elif node.op == "output":
            op = f"fx.output {value(node.args[0], refs)}"
            if refs:
                op += " : " + ", ".join(node_type(r) for r in refs)
            lines.append("    " + op)
            continue
        else:
            target = {"call_function": lambda t: mlir_str(function_name(t)),
                      "call_method": mlir_str,
                      "call_module": symbol}[node.op](node.target)
            op = (f"fx.{node.op} {target}"
                  f"{call_args(node.args, node.kwargs, refs)}")
        if node.op.startswith("call_"):
            op += (" : (" + ", ".join(node_type(r) for r in refs) + ") -> "
                   + node_type(node))
        else:
            op += " : " + node_type(node)
        lines.append(f"    %{node.name} = {op}")
    lines += ["  }", "}", "", "{-#", "  dialect_resources: {", "    builtin: {"]
    lines.append(",\n".join(f"      {name_or_str(k)}: \"{hexdata}\""
                            for k, hexdata in resources))
    lines += ["    }", "  }", "#-}"]
    return "\n".join(lines) + "\n"


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--output",
                        default=os.path.join(here, "small_cnn.mlir"))
    output = parser.parse_args().output

    torch.manual_seed(0)
    model = SmallCNN()
    with torch.no_grad():  # give BatchNorm non-trivial running statistics
        for _ in range(3):
            model(torch.randn(4, 3, 16, 16))
    model.eval()
    gm = torch.fx.symbolic_trace(model)
    example = torch.randn(1, 3, 16, 16)
    ShapeProp(gm).propagate(example)

    text = ("// Generated by examples/make_small_cnn.py (a demo generator, not "
            "the importer);\n// do not edit. torch.fx.symbolic_trace of "
            "SmallCNN, types from ShapeProp on a\n// 1x3x16x16 input.\n"
            + emit(gm, type(model).__name__))
    with open(output, "w") as f:
        f.write(text)
    print(f"wrote {output}")
    gm.graph.print_tabular()


if __name__ == "__main__":
    main()
