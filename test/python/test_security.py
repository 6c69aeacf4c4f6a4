"""Hostile input: an .mlir file (or a .pt archive) is data.

Payloads that would create a marker file if any part of them ran as Python
are put in every name and string position of a graph module. For each,
verifying (fx-opt), exporting (fx-translate --export-python and
--export-fx-json), rebuilding (fx_mlir.export_graph_module, the exported
script run by Python, fx_mlir._rebuild.rebuild on a tampered description)
and fx_mlir.transform either work, keeping the payload as the string it
is, or fail with an error naming the offending item; the marker never
appears. Submodule types that run commands when called (os.system,
subprocess.*, ...) and modules that run code when imported are refused
before anything is called or imported. docs/Security.md has the rules.
"""

import json
import os
import runpy
import subprocess
import sys
import textwrap

import pytest
import torch
import torch.fx
import torch.nn as nn

import fx_mlir
from fx_mlir import _rebuild
from fx_mlir._rebuild import RebuildError, rebuild


@pytest.fixture
def marker(tmp_path):
    """A path that must not exist after the test: each payload touches it."""
    path = tmp_path / "pwned"
    yield str(path)
    assert not path.exists(), "a payload ran"


def payloads(marker):
    """Python that touches `marker` if it runs in any quoting context; each
    starts with `pwn` so an error can be checked to name it."""
    cmd = f"__import__('os').system('touch {marker}')"
    dcmd = cmd.replace("'", '"')
    return [
        f'pwn"); {dcmd}; ("',
        f"pwn'); {cmd}; ('",
        f"pwn\n{cmd}\n",
        f"pwn #\n{cmd}",
        f'pwn\\"); {dcmd} #',
        f'pwn"""; {dcmd}; """',
        f"pwn'''; {cmd}; '''",
        f"pwn\r{cmd}",
        f"pwn\u2028{cmd}",
        f"pwné\x00{cmd}",
        f"pwn={cmd}",
        f"pwn, **{{'a': {cmd}}}",
    ]


def mlir_str(text):
    """`text` as an MLIR string literal (UTF-8, hex escapes)."""
    out = []
    for byte in text.encode():
        char = chr(byte)
        if byte < 0x20 or byte >= 0x7f or char in '"\\':
            out.append(f"\\{byte:02X}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


BASE = """\
fx.graph_module @{module} {{
  fx.state constant @{state} : tensor<2xf32> = dense<[1.0, 2.0]>
  fx.submodule @{path} {type}({hkey}={hvalue})
  fx.graph @forward {{
    %x = fx.placeholder {placeholder} {{node_name = {node}}} : !fx.any
    %c = fx.get_attr @{state} : !fx.any
    %m = fx.call_module @{path}(%x) : (!fx.any) -> !fx.any
    %y = fx.call_method {method}(%m, %c, {kkey}={kvalue}) : (!fx.any, !fx.any) -> !fx.any
    %z = fx.call_function {function}(%y, {{{dkey}: {dvalue}}}) : (!fx.any) -> !fx.any
    fx.output %z : !fx.any
  }}
}}
"""

DEFAULTS = dict(module="M", state="c", path="block",
                type='"torch.nn.Identity"', hkey="note", hvalue='"hi"',
                placeholder='"x"', node='"x"', method='"add"',
                kkey="alpha", kvalue="2", function='"torch.mul"',
                dkey='"k"', dvalue='"v"')

# Positions whose payload must be refused, with the words the error uses.
NAME_POSITIONS = {
    "module": "graph module",
    "state": "state",
    "path": "submodule",
    "type": "module type",
    "hkey": "hyperparameter",
    "placeholder": "placeholder target",
    "node": "node name",
    "method": "method",
    "kkey": "kwargs",
    "function": "function",
}
# Positions that hold strings as data: the payload is kept as it is.
DATA_POSITIONS = ("hvalue", "kvalue", "dkey", "dvalue")


def hostile_ir(position, payload):
    fields = dict(DEFAULTS)
    fields[position] = mlir_str(payload)
    return BASE.format(**fields)


def run_script(source, tmp_path):
    """Runs an exported script (in this process: a payload that ran would
    touch the marker all the same); returns its namespace."""
    script = tmp_path / "exported.py"
    script.write_text(source)
    return runpy.run_path(str(script))


def test_base_ir_exports(tmp_path):
    """The template itself rebuilds: the hostile cases fail for the
    payload alone."""
    gm = fx_mlir.export_graph_module(BASE.format(**DEFAULTS))
    assert [n.op for n in gm.graph.nodes] == [
        "placeholder", "get_attr", "call_module", "call_method",
        "call_function", "output"]
    namespace = run_script(fx_mlir.export_python(BASE.format(**DEFAULTS)),
                           tmp_path)
    assert isinstance(namespace["graph_module"], torch.fx.GraphModule)


@pytest.mark.parametrize("position", sorted(NAME_POSITIONS))
def test_payload_in_a_name_is_refused(position, marker, tmp_path):
    # Six payloads per position (each export starts fx-translate); the
    # loader test below takes every payload in every field.
    for payload in payloads(marker)[::2]:
        ir = hostile_ir(position, payload)
        try:
            fx_mlir.run_fx_opt(ir, "-o", os.devnull)
        except fx_mlir.FxMlirError:
            continue  # the verifier refused it: nothing further to do
        if position == "module" and len(payload.splitlines()) == 1 and \
                "\x00" not in payload:
            # The class name is data (make_fx's is `<lambda>`): one line
            # of text is kept as it is.
            gm = fx_mlir.export_graph_module(ir)
            assert type(gm).__name__ == payload
            continue
        exports = [fx_mlir.export_graph_module]
        if payload == payloads(marker)[0]:
            exports.append(fx_mlir.export_python)
        for export in exports:
            with pytest.raises(fx_mlir.FxMlirError) as info:
                export(ir)
            message = str(info.value)
            assert "pwn" in message, (position, message)
            assert NAME_POSITIONS[position] in message, (position, message)
            assert "\n" not in message.strip(), message


@pytest.mark.parametrize("position", DATA_POSITIONS)
def test_payload_in_a_string_is_data(position, marker, tmp_path):
    for payload in payloads(marker)[1::2]:
        ir = hostile_ir(position, payload)
        gm = fx_mlir.export_graph_module(ir)
        found = []
        for node in gm.graph.nodes:
            found += list(node.kwargs.values()) + list(node.kwargs)
            for arg in node.args:
                if isinstance(arg, dict):
                    found += list(arg) + list(arg.values())
        if position != "hvalue":  # nn.Identity drops its arguments
            assert payload in found, (position, payload)
        # The graph's code, which torch.fx generates and runs, holds the
        # payload as a literal; so does the exported script.
        gm.recompile()
        if payload == payloads(marker)[1]:
            run_script(fx_mlir.export_python(ir), tmp_path)


COMMAND_TYPES = [
    ("os.system", "command"), ("os.popen", "cmd"),
    ("subprocess.getoutput", "cmd"), ("subprocess.call", "args"),
    ("subprocess.run", "args"), ("subprocess.Popen", "args"),
    ("builtins.exec", "source"), ("builtins.eval", "source"),
    ("pdb.run", "statement"), ("runpy.run_path", "path_name"),
    ("torch.load", "f"), ("torch.hub.load", "repo_or_dir"),
    ("torch.utils.cpp_extension.load_inline", "name"),
    ("torch.jit.load", "f"), ("code.interact", "banner"),
]


@pytest.mark.parametrize("type_name,key", COMMAND_TYPES,
                         ids=[t for t, _ in COMMAND_TYPES])
def test_module_types_that_are_not_modules_are_never_called(
        type_name, key, marker, tmp_path):
    script = tmp_path / "payload.py"
    script.write_text(f"import os\nos.system('touch {marker}')\n")
    value = {"command": f"touch {marker}", "cmd": f"touch {marker}",
             "args": f"touch {marker}", "source":
             f"__import__('os').system('touch {marker}')",
             "statement": f"__import__('os').system('touch {marker}')",
             "path_name": str(script), "f": str(script),
             "repo_or_dir": str(tmp_path), "name": "x",
             "banner": "x"}[key]
    extra = ', shell=True' if type_name.startswith("subprocess") and \
        key == "args" else ""
    ir = (f"fx.graph_module @M {{\n"
          f"  fx.submodule @s {mlir_str(type_name)}({key}={mlir_str(value)}"
          f"{extra})\n"
          f"  fx.graph @forward {{\n    fx.output None\n  }}\n}}\n")
    with pytest.raises(fx_mlir.FxMlirError) as info:
        fx_mlir.export_graph_module(ir)
    assert "submodule 's'" in str(info.value), str(info.value)
    assert type_name in str(info.value)
    # The script's loader is its own copy: its RebuildError is a ValueError.
    with pytest.raises(ValueError, match="submodule 's'"):
        run_script(fx_mlir.export_python(ir), tmp_path)


@pytest.fixture
def evil_package(tmp_path, marker):
    """A module that touches the marker when imported and holds an
    nn.Module subclass that touches it when constructed."""
    (tmp_path / "fx_evil_pkg.py").write_text(textwrap.dedent(f"""\
        import os
        import torch
        os.system('touch {marker}')
        class Block(torch.nn.Module):
            def __init__(self, width=1):
                super().__init__()
                os.system('touch {marker}')
        def f(x):
            return x
        """))
    sys.path.insert(0, str(tmp_path))
    yield "fx_evil_pkg"
    sys.path.remove(str(tmp_path))
    sys.modules.pop("fx_evil_pkg", None)


def test_modules_outside_torch_are_not_imported(evil_package, marker):
    for ir in [
            'fx.graph_module @M {\n  fx.submodule @b "fx_evil_pkg.Block"()\n'
            '  fx.graph @forward {\n    fx.output None\n  }\n}\n',
            'fx.graph_module @M {\n  fx.graph @forward {\n'
            '    %x = fx.placeholder "x" : !fx.any\n'
            '    %y = fx.call_function "fx_evil_pkg.f"(%x) : '
            '(!fx.any) -> !fx.any\n    fx.output %y : !fx.any\n  }\n}\n']:
        with pytest.raises(fx_mlir.FxMlirError) as info:
            fx_mlir.export_graph_module(ir)
        assert "fx_evil_pkg" in str(info.value)
        assert "fx_evil_pkg" not in sys.modules


class Scaled(nn.Module):
    """A user's own module type, with hyperparameters."""

    def __init__(self, factor=1.0):
        super().__init__()
        self.factor = factor

    def forward(self, x):
        return x * self.factor


def test_allowed_modules_let_a_user_type_be_built(marker):
    name = f"{Scaled.__module__}.{Scaled.__qualname__}"
    ir = (f'fx.graph_module @M {{\n'
          f'  fx.submodule @s {mlir_str(name)}(factor=3.0)\n'
          f'  fx.graph @forward {{\n'
          f'    %x = fx.placeholder "x" : !fx.any\n'
          f'    %y = fx.call_module @s(%x) : (!fx.any) -> !fx.any\n'
          f'    fx.output %y : !fx.any\n  }}\n}}\n')
    with pytest.raises(fx_mlir.FxMlirError) as info:
        fx_mlir.export_graph_module(ir)
    assert "allowed" in str(info.value) and name in str(info.value)
    for allowed in ([Scaled.__module__], [Scaled]):
        gm = fx_mlir.export_graph_module(ir, allowed_modules=allowed)
        assert type(gm.s) is Scaled and gm.s.factor == 3.0
        assert torch.equal(gm(torch.ones(2)), torch.full((2,), 3.0))
    with pytest.raises(fx_mlir.FxMlirError, match="not a dotted"):
        fx_mlir.export_graph_module(ir, allowed_modules=["os; import sys"])
    source = fx_mlir.export_python(ir, allowed_modules=[Scaled.__module__])
    assert f"ALLOWED_MODULES = ({Scaled.__module__!r}, )" in source


# --- The loader on tampered descriptions (no C++ checks in between). ------

_DESCRIPTION = []


def description():
    """A fresh copy of the description of BASE with tied weights and
    dtype, layout, device and memory format values."""
    if _DESCRIPTION:
        return json.loads(_DESCRIPTION[0])
    ir = BASE.format(**DEFAULTS).replace(
        "fx.graph_module @M {",
        "fx.graph_module @M {\n"
        "  fx.state parameter @w : tensor<2xf32> = dense<[1.0, 2.0]>\n"
        "  fx.state parameter @v : tensor<2xf32> = @w")
    ir = ir.replace('{"k": "v"}', '{"k": "v"}, dtype=torch.float32, '
                    'layout=torch.strided, device=device("cpu"), '
                    'memory_format=torch.contiguous_format')
    text = subprocess.run([fx_mlir.find_tool("fx-translate"),
                           "--export-fx-json", "-"], input=ir, text=True,
                          capture_output=True, check=True).stdout
    _DESCRIPTION.append(text)
    return json.loads(text)


def tamper(payload):
    """(field, change): every way of putting `payload` into one field of a
    description."""
    def node(s, op):
        return next(n for n in s["nodes"] if n["op"] == op)

    def kwarg(s, op, key):
        return next(p for p in node(s, op)["kwargs"]["dict"] if p[0] == key)

    yield "name", lambda s: s.__setitem__("name", payload)
    yield "state path", lambda s: s["state"][0].__setitem__("path", payload)
    yield "alias", lambda s: s["state"][1].__setitem__("alias", payload)
    yield "state dtype", lambda s: s["state"][0].__setitem__("dtype",
                                                             payload)
    yield "submodule path", lambda s: s["submodules"][0].__setitem__(
        "path", payload)
    yield "submodule type", lambda s: s["submodules"][0].__setitem__(
        "type", payload)
    yield "hparam key", lambda s: s["submodules"][0]["hparams"]["dict"][0] \
        .__setitem__(0, payload)
    for op in ("placeholder", "get_attr", "call_module", "call_method",
               "call_function"):
        yield f"{op} name", lambda s, op=op: node(s, op).__setitem__(
            "name", payload)
        yield f"{op} target", lambda s, op=op: node(s, op).__setitem__(
            "target", payload)
    yield "node kind", lambda s: node(s, "call_method").__setitem__(
        "op", payload)
    yield "kwargs key", lambda s: kwarg(
        s, "call_method", "alpha").__setitem__(0, payload)
    yield "node reference", lambda s: node(s, "call_method")["args"][
        "tuple"][0].__setitem__("node", payload)
    for tag in ("dtype", "layout", "device", "memory_format"):
        yield tag, lambda s, tag=tag: kwarg(s, "call_function", tag)[1] \
            .__setitem__(tag, payload)


def test_loader_refuses_tampered_descriptions(marker):
    assert isinstance(rebuild(description()), torch.fx.GraphModule)
    for payload in payloads(marker) + ["torch.nn.ReLU.__init__.__globals__",
                                       "os.system", "__main__.x.__class__"]:
        for where, change in tamper(payload):
            spec = description()
            change(spec)
            try:
                gm = rebuild(spec)
            except RebuildError as error:
                assert "\n" not in str(error), (where, str(error))
                continue
            # Only a class name (data: `<lambda>` is one) or a function
            # name (looked up, not called) may rebuild; the marker fixture
            # checks that nothing ran.
            gm.recompile()
            assert where == "name" or (where == "call_function target" and
                                       payload == "os.system"), (where,
                                                                 payload)


def test_loader_checks_tensor_data_before_allocating():
    spec = description()
    spec["state"][0]["shape"] = [10 ** 12, 10 ** 12]
    with pytest.raises(RebuildError, match="does not hold"):
        rebuild(spec)
    spec = description()
    spec["state"][0]["data"] = "!!!!!!!!!!!!"
    with pytest.raises(RebuildError, match="not base64"):
        rebuild(spec)


# --- transform keeps strings as strings. ----------------------------------

def test_transform_keeps_payload_strings(marker):
    payload = payloads(marker)[0]

    class Model(nn.Module):
        def forward(self, x):
            return torch.nn.functional.pad(x, (1, 1), mode="constant",
                                           value=0.0) + 1

    gm = torch.fx.symbolic_trace(Model())
    for node in gm.graph.nodes:
        if node.op == "call_function" and "pad" in str(node.target):
            node.meta["note"] = payload
            node.kwargs = {**node.kwargs, "mode": payload}
    gm.recompile()
    out = fx_mlir.transform(gm, "fx-dce")
    modes = [n.kwargs.get("mode") for n in out.graph.nodes
             if n.op == "call_function" and "pad" in str(n.target)]
    assert modes == [payload]


# --- TorchScript archives whose module names carry payloads. ---------------

def test_torchscript_names_with_payloads(marker, tmp_path):
    for i, payload in enumerate(payloads(marker)[:4]):
        if "\x00" in payload:
            continue
        model = nn.Sequential()
        model.add_module(payload.replace(".", "_"), nn.Linear(2, 2))
        archive = tmp_path / f"hostile{i}.pt"
        torch.jit.trace(model, torch.randn(1, 2)).save(str(archive))
        result = subprocess.run([fx_mlir.find_tool("fx-translate"),
                                 "--import-torchscript", str(archive)],
                                capture_output=True, text=True)
        if result.returncode != 0:
            assert "error" in result.stderr
            continue
        with pytest.raises(fx_mlir.FxMlirError) as info:
            fx_mlir.export_graph_module(result.stdout)
        assert "pwn" in str(info.value), str(info.value)


def test_private_torch_modules_are_neither_imported_nor_built():
    """torch.testing._internal.common_utils parses sys.argv when imported:
    a name inside it is not a reason to import it."""
    sys.modules.pop("torch.testing._internal.common_utils", None)
    for ir in [
            'fx.graph_module @M {\n  fx.submodule @b '
            '"torch.testing._internal.common_utils.TestCase"()\n'
            '  fx.graph @forward {\n    fx.output None\n  }\n}\n',
            'fx.graph_module @M {\n  fx.graph @forward {\n'
            '    %x = fx.placeholder "x" : !fx.any\n'
            '    %y = fx.call_function '
            '"torch.testing._internal.common_utils.run_tests"(%x) : '
            '(!fx.any) -> !fx.any\n    fx.output %y : !fx.any\n  }\n}\n']:
        with pytest.raises(fx_mlir.FxMlirError, match="_internal"):
            fx_mlir.export_graph_module(ir)
        assert "torch.testing._internal.common_utils" not in sys.modules
