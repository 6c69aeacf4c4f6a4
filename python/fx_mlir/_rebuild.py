"""Rebuilds a torch.fx.GraphModule from the JSON description of an
fx.graph_module that `fx-translate --export-fx-json` writes.

The description is data. Nothing in it is executed while the module is
rebuilt: every name is checked as what it is used as (a Python identifier,
a dotted attribute path, a qualified name) before it is used, and the only
objects constructed by name are submodules, whose type must resolve, inside
`torch`, `fx_mlir` or a package the caller allows, to a subclass of
torch.nn.Module before it is called. call_function targets are looked up
(in those packages, or in modules already imported) but not called:
running the rebuilt GraphModule calls them, as running any torch.fx graph
does. See docs/Security.md.

This file is also the loader that `fx-translate --export-python` embeds in
the scripts it writes, so it imports nothing but the standard library and
torch.
"""

import base64
import importlib
import inspect
import keyword
import math
import re
import sys

import torch
import torch.fx

FORMAT = "fx-mlir.graph_module"
VERSION = 1

# Packages whose names are resolved without the caller allowing them.
TYPE_PACKAGES = ("torch", "fx_mlir")
FUNCTION_PACKAGES = ("torch", "fx_mlir", "operator", "_operator", "math",
                     "builtins")

_NODE_KINDS = ("placeholder", "get_attr", "call_function", "call_method",
               "call_module", "output")
_DEVICE = re.compile(r"[A-Za-z0-9_]+(:[0-9]+)?\Z")
_PATH_PART = re.compile(r"[A-Za-z0-9_-]+\Z")


class RebuildError(ValueError):
    """The description cannot be rebuilt; the message names the item."""


def _show(value):
    """A name as it appears in a message: repr'd, so a newline or a quote
    in it cannot change the message's shape."""
    return repr(value)


def _is_dunder(name):
    return name.startswith("__") and name.endswith("__")


def is_identifier(name):
    """A Python identifier that is not a keyword."""
    return (isinstance(name, str) and name.isidentifier()
            and not keyword.iskeyword(name))


def is_qualified_name(name):
    """Dotted identifiers (`torch.nn.Conv2d`), none of them a dunder but a
    leading `__main__` (a script's own classes and functions)."""
    if not isinstance(name, str) or not name:
        return False
    parts = name.split(".")
    if parts[0] == "__main__":
        parts = parts[1:]
    return all(is_identifier(part) and not _is_dunder(part)
               for part in parts)


def is_module_path(path):
    """A dotted attribute path inside a module (`layer1.0.conv1`): parts of
    letters, digits, `_` and `-`, or Python identifiers (`ß`), none a
    dunder."""
    return (isinstance(path, str) and bool(path)
            and all((_PATH_PART.match(part) or part.isidentifier())
                    and not _is_dunder(part) for part in path.split(".")))


def check_allowed_modules(allowed_modules):
    """The caller's allowances as a tuple: package or module names (every
    class inside them) and torch.nn.Module subclasses (that class alone)."""
    if isinstance(allowed_modules, (str, type)):
        allowed_modules = (allowed_modules,)
    allowed = tuple(allowed_modules or ())
    for entry in allowed:
        if isinstance(entry, type):
            if not issubclass(entry, torch.nn.Module):
                raise RebuildError(f"allowed type {_show(entry)} is not a "
                                   f"torch.nn.Module subclass")
        elif not is_qualified_name(entry):
            raise RebuildError(f"allowed module {_show(entry)} is not a "
                               f"dotted Python module name")
    return allowed


def _packages(allowed):
    return tuple(entry for entry in allowed if isinstance(entry, str))


def _within(name, packages):
    return any(name == p or name.startswith(p + ".") for p in packages)


def _lookup(name, packages, what):
    """The object the qualified `name` refers to. Modules inside `packages`
    may be imported; outside them only modules already imported are
    looked in, so resolving a name never runs a module's code that the
    process has not run already."""
    if not is_qualified_name(name):
        raise RebuildError(f"{what} {_show(name)} is not a qualified "
                           f"Python name")
    parts = name.split(".")
    for i in range(len(parts) - 1, 0, -1):
        module_name = ".".join(parts[:i])
        obj = sys.modules.get(module_name)
        # Only public modules are imported (torch.testing._internal parses
        # sys.argv when imported); private ones already loaded (torch._C,
        # torch._ops) are looked in.
        if obj is None and _within(module_name, packages) and not any(
                part.startswith("_") for part in parts[1:i]):
            try:
                obj = importlib.import_module(module_name)
            except ImportError:
                if i == 1:
                    raise RebuildError(f"{what} {_show(name)}: cannot import "
                                       f"{_show(module_name)}") from None
                continue
        if obj is None:
            continue
        try:
            for part in parts[i:]:
                obj = getattr(obj, part)
        except AttributeError:
            raise RebuildError(f"{what} {_show(name)}: module "
                               f"{_show(module_name)} has no "
                               f"{_show('.'.join(parts[i:]))}") from None
        return obj
    raise RebuildError(f"{what} {_show(name)} is not in torch, fx_mlir, an "
                       f"allowed module or a module already imported")


def resolve_module_type(name, allowed_modules=()):
    """The torch.nn.Module subclass the qualified `name` names, inside
    torch, fx_mlir or `allowed_modules` (package names, or classes allowed
    one by one); nothing else is accepted."""
    for entry in allowed_modules:
        if isinstance(entry, type) and name == \
                f"{entry.__module__}.{entry.__qualname__}":
            return entry
    packages = TYPE_PACKAGES + _packages(allowed_modules)
    if is_qualified_name(name) and not _within(name, packages):
        raise RebuildError(
            f"module type {_show(name)} is not in torch, fx_mlir or an "
            f"allowed module (pass allowed_modules=[...] or "
            f"--export-allow-module= to allow a package)")
    if is_qualified_name(name) and _within(name, TYPE_PACKAGES) and any(
            part.startswith("_") for part in name.split(".")):
        raise RebuildError(f"module type {_show(name)} is private to "
                           f"{name.split('.')[0]}")
    try:
        obj = _lookup(name, packages, "module type")
    except RebuildError:
        # The IR's name of a module torch 1.13 keeps elsewhere.
        moved = [name.replace(new, old, 1) for new, old in _MOVED
                 if name.startswith(new)]
        if not moved:
            raise
        obj = _lookup(moved[0], packages, "module type")
    if not (isinstance(obj, type) and issubclass(obj, torch.nn.Module)):
        raise RebuildError(f"module type {_show(name)} is not a subclass of "
                           f"torch.nn.Module")
    return obj


# torch.ao.nn.intrinsic.quantized (torch's home for the fused quantized
# modules since 2.0, the name the IR uses) is torch.nn.intrinsic.quantized
# in torch 1.13.
_MOVED = (("torch.ao.nn.intrinsic.quantized.",
           "torch.nn.intrinsic.quantized."),)


# The control-flow targets of the IR -> their runnable functions
# (fx_mlir/control_flow.py; a script the exporter writes needs fx_mlir
# importable for them).
_CONTROL_FLOW = {
    "torch.ops.higher_order.cond": "fx_mlir.control_flow.cond",
    "torch.ops.higher_order.while_loop": "fx_mlir.control_flow.while_loop",
    "fx_mlir.for_loop": "fx_mlir.control_flow.for_loop",
    # A tensor of a list literal (scripted `torch.tensor([1.0, 2.0])`):
    # ATen's operator needs TorchScript's list type, torch.tensor does not.
    "aten::tensor": "torch.tensor",
}


def resolve_function(name, allowed_modules=()):
    """The object a call_function target names: an operator overload for
    `namespace::op.overload` (`aten::add.Tensor`), else a qualified name
    inside the known packages, `allowed_modules` or an imported module.
    Nothing is called. The control-flow targets are the runnable
    functions of fx_mlir.control_flow."""
    name = _CONTROL_FLOW.get(name, name) if isinstance(name, str) else name
    if isinstance(name, str) and "::" in name:
        namespace, _, op = name.partition("::")
        op, _, overload = op.partition(".")
        # An operator may be a dunder (`aten::__and__.bool`): only an
        # OpOverload found by these names is taken, and nothing is called.
        if not all(is_identifier(p) for p in (namespace, op,
                                              overload or "default")) or \
                _is_dunder(namespace) or _is_dunder(overload or "default"):
            raise RebuildError(f"operator {_show(name)} is not "
                               f"'namespace::name[.overload]'")
        try:
            packet = getattr(getattr(torch.ops, namespace), op)
            target = getattr(packet, overload or "default")
        except (AttributeError, RuntimeError):
            target = None
        if not isinstance(target, torch._ops.OpOverload):
            raise RebuildError(f"no operator {_show(name)}")
        return target
    target = _lookup(name, FUNCTION_PACKAGES + _packages(allowed_modules),
                     "function")
    if not callable(target):
        raise RebuildError(f"function {_show(name)} is not callable")
    return target


def _named(kind, name):
    """torch.<name> when it is a `kind` (torch.dtype, torch.layout, ...)."""
    value = getattr(torch, name, None) if is_identifier(name) else None
    if not isinstance(value, kind):
        raise RebuildError(f"{_show(name)} is not a {kind.__module__}."
                           f"{kind.__name__}")
    return value


def _device(text):
    if not isinstance(text, str) or not _DEVICE.match(text):
        raise RebuildError(f"{_show(text)} is not a torch.device")
    try:
        return torch.device(text)
    except RuntimeError as error:
        raise RebuildError(f"{_show(text)} is not a torch.device: "
                           f"{error}") from None


def _float(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        raise RebuildError(f"{_show(text)} is not a float") from None


def _int_list(values, what):
    if not isinstance(values, list) or not all(
            type(v) is int for v in values):
        raise RebuildError(f"{what} is not a list of ints")
    return values


_TAGS = {
    "float": lambda v, node: _float(v),
    "complex": lambda v, node: complex(_float(v[0]), _float(v[1]))
    if isinstance(v, list) and len(v) == 2 else _bad(v),
    "list": lambda v, node: [decode(x, node) for x in _items(v)],
    "tuple": lambda v, node: tuple(decode(x, node) for x in _items(v)),
    "dict": lambda v, node: _dict(v, node),
    "slice": lambda v, node: slice(*(decode(x, node) for x in v))
    if isinstance(v, list) and len(v) == 3 else _bad(v),
    "node": lambda v, node: node(v),
    "dtype": lambda v, node: _named(torch.dtype, v),
    "layout": lambda v, node: _named(torch.layout, v),
    "memory_format": lambda v, node: _named(torch.memory_format, v),
    "device": lambda v, node: _device(v),
    "size": lambda v, node: torch.Size(_int_list(v, "a torch.Size")),
    "ellipsis": lambda v, node: Ellipsis,
}


def _bad(value):
    raise RebuildError(f"malformed value {_show(value)[:80]}")


def _items(value):
    return value if isinstance(value, list) else _bad(value)


def _dict(value, node):
    if not isinstance(value, list) or not all(
            isinstance(p, list) and len(p) == 2 for p in value):
        _bad(value)
    result = {}
    for key, item in value:
        key = decode(key, node)
        try:
            result[key] = decode(item, node)
        except TypeError:  # an unhashable key
            raise RebuildError(f"dict key {_show(key)} is not hashable") \
                from None
    return result


def decode(value, node=None):
    """The Python value of an encoded FX argument: JSON null, booleans,
    ints and strings stand for themselves; everything else is a one-key
    object naming its kind ({"tuple": [...]}, {"node": "name"}, ...).
    `node(name)` gives the node a {"node": name} reference means."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, dict) and len(value) == 1:
        (tag, payload), = value.items()
        decoder = _TAGS.get(tag)
        if decoder is not None:
            if tag == "node" and node is None:
                raise RebuildError(f"a node reference {_show(payload)} "
                                   f"outside a graph")
            return decoder(payload, node)
    return _bad(value)


def _check_path(path, what):
    if not is_module_path(path):
        raise RebuildError(f"{what} {_show(path)} is not a dotted "
                           f"attribute path")
    first, *rest = path.split(".")
    # The root becomes a GraphModule; inner modules stay nn.Modules. A path
    # through one of their own attributes (forward, graph, training...)
    # would replace it.
    if hasattr(torch.fx.GraphModule, first) or any(
            hasattr(torch.nn.Module, part) for part in rest):
        raise RebuildError(f"{what} {_show(path)} names an attribute every "
                           f"torch.nn.Module or GraphModule has")
    return path


def _owner(root, path):
    """The module that holds the attribute `path`, and the attribute's
    name; missing modules on the way are created empty."""
    module = root
    *prefix, field = path.split(".")
    for part in prefix:
        child = getattr(module, part, None)
        if child is None:
            child = torch.nn.Module()
            setattr(module, part, child)
        elif not isinstance(child, torch.nn.Module):
            raise RebuildError(f"{_show(path)}: {_show(part)} is not a "
                               f"module")
        module = child
    return module, field


# A quantized dtype -> the dtype of its integers (its int_repr()).
_QUANTIZED = {torch.quint8: torch.uint8, torch.qint8: torch.int8,
              torch.qint32: torch.int32}


def _number(value, kind, what):
    if type(value) is not kind and not (kind is float and type(value) is int):
        raise RebuildError(f"{what} is not a{'n' if kind is int else ''} "
                           f"{kind.__name__}")
    return kind(value)


def _quantized(integers, dtype, qparams, what):
    """The quantized tensor of `integers` (its int_repr()) and the JSON
    `qparams`: {"scale", "zero_point"} per tensor, {"scales",
    "zero_points", "axis"} per channel."""
    if not isinstance(qparams, dict):
        raise RebuildError(f"{what}: {dtype} data without qparams")
    try:
        if "scales" in qparams:
            axis = _number(qparams.get("axis"), int, f"{what}: the axis")
            scales, zero_points = qparams.get("scales"), \
                qparams.get("zero_points")
            if not (isinstance(scales, list) and isinstance(zero_points, list)
                    and 0 <= axis < integers.dim()
                    and len(scales) == len(zero_points)
                    == integers.shape[axis]):
                raise RebuildError(f"{what}: the per-channel qparams do not "
                                   f"fit {tuple(integers.shape)}")
            scales = torch.tensor([_number(v, float, f"{what}: a scale")
                                   for v in scales], dtype=torch.float64)
            zero_points = torch.tensor(
                [_number(v, int, f"{what}: a zero point")
                 for v in zero_points], dtype=torch.int64)
            return torch._make_per_channel_quantized_tensor(
                integers, scales, zero_points, axis)
        scale = _number(qparams.get("scale"), float, f"{what}: the scale")
        zero_point = _number(qparams.get("zero_point"), int,
                             f"{what}: the zero point")
        return torch._make_per_tensor_quantized_tensor(integers, scale,
                                                       zero_point)
    except RuntimeError as error:
        raise RebuildError(f"{what}: cannot quantize: {error}") from None


def _tensor(entry, what):
    dtype = _named(torch.dtype, entry.get("dtype"))
    if dtype in _QUANTIZED:
        integers = _tensor(dict(entry, dtype=str(_QUANTIZED[dtype])[6:]),
                           what)
        return _quantized(integers, dtype, entry.get("qparams"), what)
    shape = _int_list(entry.get("shape"), f"{what}: the shape")
    if any(d < 0 for d in shape):
        raise RebuildError(f"{what}: negative size in {shape}")
    data = entry.get("data", "")
    if not isinstance(data, str):
        raise RebuildError(f"{what}: the data is not base64 text")
    count = math.prod(shape)
    width = torch.empty((), dtype=dtype).element_size()
    expected = count * width
    if not data:
        try:
            return torch.zeros(shape, dtype=dtype)
        except RuntimeError as error:
            raise RebuildError(f"{what}: cannot allocate {shape}: "
                               f"{error}") from None
    # The base64 length bounds the data: checked before decoding.
    if len(data) != 4 * ((expected + 2) // 3):
        raise RebuildError(f"{what}: the data does not hold {expected} "
                           f"bytes for {dtype} {tuple(shape)}")
    try:
        raw = bytearray(base64.b64decode(data, validate=True))
    except ValueError:
        raise RebuildError(f"{what}: the data is not base64") from None
    if len(raw) != expected:
        raise RebuildError(f"{what}: {len(raw)} bytes of data, "
                           f"{dtype} {tuple(shape)} needs {expected}")
    if expected == 0:
        return torch.zeros(shape, dtype=dtype)
    return torch.frombuffer(raw, dtype=dtype).reshape(shape)


def _quantized_arguments(module_type, hparams, what):
    """The constructor arguments and the attributes set after it of a
    quantized module: a static quantized module's output `scale` and
    `zero_point`, when its constructor does not take them, are attributes;
    a reference module's weight_qparams names its qscheme
    (`per_channel_affine`)."""
    arguments, attributes = dict(hparams), {}
    try:
        params = inspect.signature(module_type.__init__).parameters
    except (TypeError, ValueError):
        return arguments, attributes
    for key in ("scale", "zero_point"):
        # Quantized PReLU takes them as output_scale, output_zero_point.
        if key in arguments and key not in params and \
                f"output_{key}" in params:
            arguments[f"output_{key}"] = arguments.pop(key)
    if callable(getattr(module_type, "set_weight_bias", None)):
        for key in ("scale", "zero_point"):
            if key in arguments and key not in params:
                attributes[key] = arguments.pop(key)
    if "weight" in params and "scale" in params:
        # A quantized norm takes its weight and bias tensors, which the IR
        # holds as state (and the hyperparameters as bools).
        for key in ("weight", "bias"):
            if isinstance(arguments.get(key), bool):
                arguments[key] = None
    qparams = arguments.get("weight_qparams")
    if isinstance(qparams, dict) and isinstance(qparams.get("qscheme"), str):
        try:
            qscheme = _named(torch.qscheme, qparams["qscheme"])
        except RebuildError as error:
            raise RebuildError(f"{what}: {error}") from None
        arguments["weight_qparams"] = dict(qparams, qscheme=qscheme)
    return arguments, attributes


def _construct(module_type, arguments):
    """module_type(**arguments); a fused module of torch.ao.nn.intrinsic
    (`ConvReLU2d(conv, relu)`, a torch.nn.Sequential) is built empty and
    gets its children as the submodules under its path."""
    fused = getattr(sys.modules.get("torch.ao.nn.intrinsic.modules.fused"),
                    "_FusedModule", None)
    if fused is not None and issubclass(module_type, fused) and \
            not arguments:
        module = module_type.__new__(module_type)
        torch.nn.Sequential.__init__(module)
        return module
    return module_type(**arguments)


def _built_from_its_parameters(module_type, arguments):
    """module_type built from the `arguments` its constructor names, when
    the others are attributes it then has; None otherwise."""
    try:
        params = inspect.signature(module_type.__init__).parameters
    except (TypeError, ValueError):
        return None
    if any(p.kind == p.VAR_KEYWORD for p in params.values()):
        return None
    taken = {k: v for k, v in arguments.items() if k in params}
    if len(taken) == len(arguments):
        return None
    try:
        module = _construct(module_type, taken)
    except Exception:  # noqa: BLE001 - the caller reports the first error
        return None
    if not all(hasattr(module, k) for k in arguments.keys() - taken.keys()):
        return None
    return module


def _submodule(root, entry, allowed):
    path = _check_path(entry.get("path"), "submodule")
    what = f"submodule {_show(path)}"
    try:
        module_type = resolve_module_type(entry.get("type"), allowed)
    except RebuildError as error:
        raise RebuildError(f"{what}: {error}") from None
    hparams = decode(entry.get("hparams", {"dict": []}))
    if not isinstance(hparams, dict) or not all(
            is_identifier(key) for key in hparams):
        raise RebuildError(f"{what}: the hyperparameters are not keyword "
                           f"arguments")
    spelled = dict(hparams)
    arguments, attributes = _quantized_arguments(module_type, hparams, what)
    try:
        module = _construct(module_type, arguments)
    except Exception as error:
        # A scripted module records its constants too (ConvTranspose2d's
        # `transposed`, Upsample's `name`, MultiheadAttention's
        # `head_dim`): built from the arguments its constructor takes, the
        # others being attributes the constructor sets.
        module = _built_from_its_parameters(module_type, arguments)
        if module is None:
            raise RebuildError(f"{what}: cannot build {entry['type']} from "
                               f"{hparams}: {error}") from None
    for key, value in attributes.items():
        setattr(module, key, value)
    module.training = bool(entry.get("training", False))
    # The hyperparameters as the IR spells them (which and in what order):
    # importing the module again writes them the same way.
    module._fx_mlir_hparams = spelled
    owner, field = _owner(root, path)
    setattr(owner, field, module)


def _state(root, entry, packed):
    path = _check_path(entry.get("path"), "state")
    what = f"state {_show(path)}"
    kind = entry.get("kind")
    if kind not in ("parameter", "buffer", "constant"):
        raise RebuildError(f"{what}: unknown kind {_show(kind)}")
    if "alias" in entry:
        alias = _check_path(entry["alias"], f"{what}: alias")
        value = getattr(*_owner(root, alias), None)
        if not isinstance(value, torch.Tensor):
            raise RebuildError(f"{what}: its alias {_show(alias)} is not a "
                               f"tensor defined before it")
    else:
        value = _tensor(entry, what)
    owner, field = _owner(root, path)
    if kind == "parameter" and callable(
            getattr(owner, "set_weight_bias", None)) and (
            field in ("weight", "bias") or (
                hasattr(owner, "_all_weight_values")
                and field.startswith(("weight_", "bias_")))):
        # A quantized module's packed weight and bias: given to it through
        # set_weight_bias once both are known.
        packed.setdefault(path.rpartition(".")[0], (owner, {}))[1][field] = \
            value
        return
    if field == "weight" and kind == "parameter" and value.is_quantized and \
            callable(getattr(owner, "set_weight", None)):
        # A quantized module keeping a quantized weight as an attribute
        # (PReLU) takes it through set_weight.
        try:
            owner.set_weight(value)
        except Exception as error:
            raise RebuildError(f"{what}: cannot set it: {error}") from None
        return
    owner._buffers.pop(field, None)
    owner.__dict__.pop(field, None)
    if kind == "parameter":
        if not isinstance(value, torch.nn.Parameter):
            trainable = (value.is_floating_point() or value.is_complex()) \
                and entry.get("requires_grad", True) is not False
            value = torch.nn.Parameter(value, requires_grad=trainable)
        # setattr, so modules that track their parameters (nn.LSTM's
        # _flat_weights) see the new one.
        setattr(owner, field, value)
        return
    owner._parameters.pop(field, None)
    if kind == "buffer":
        owner.register_buffer(field, value)
    else:
        setattr(owner, field, value)


def _drop_unlisted_state(root, paths, state):
    """Parameters and buffers a constructor made that the description does
    not have (a bias the module was built without) become None."""
    for path in paths:
        module = root.get_submodule(path)
        for table in (module._parameters, module._buffers):
            for field in table:
                if f"{path}.{field}" not in state:
                    table[field] = None


def _check_target(op, target, name):
    what = f"node {_show(name)}"
    if op == "placeholder":
        if not is_identifier(target.lstrip("*")) or \
                len(target) - len(target.lstrip("*")) > 2:
            raise RebuildError(f"{what}: placeholder target {_show(target)} "
                               f"is not a parameter name")
    elif op == "call_method":
        if not is_identifier(target):
            raise RebuildError(f"{what}: method {_show(target)} is not a "
                               f"Python identifier")
    elif op in ("get_attr", "call_module"):
        if not is_module_path(target):
            raise RebuildError(f"{what}: {op} target {_show(target)} is not "
                               f"a dotted attribute path")
    elif op == "output" and target != "output":
        raise RebuildError(f"{what}: the output target is {_show(target)}")


def _node(graph, nodes, entry, allowed):
    op, target, name = entry.get("op"), entry.get("target"), entry.get("name")
    if not is_identifier(name):
        raise RebuildError(f"node {_show(name)}: the name is not a Python "
                           f"identifier")
    what = f"node {_show(name)}"
    if op not in _NODE_KINDS:
        raise RebuildError(f"{what}: unknown node kind {_show(op)}")
    if not isinstance(target, str):
        raise RebuildError(f"{what}: the target is not a string")
    _check_target(op, target, name)
    if op == "call_function":
        try:
            target = resolve_function(target, allowed)
        except RebuildError as error:
            raise RebuildError(f"{what}: cannot find the call_function "
                               f"target: {error}") from None

    def node(ref):
        if ref not in nodes:
            raise RebuildError(f"{what} refers to {_show(ref)}, which is not "
                               f"a node before it")
        return nodes[ref]

    try:
        args = decode(entry.get("args", {"tuple": []}), node)
        kwargs = decode(entry.get("kwargs", {"dict": []}), node)
    except RebuildError as error:
        raise RebuildError(f"{what}: {error}") from None
    if not isinstance(args, tuple):
        raise RebuildError(f"{what}: the args are not a tuple")
    if not isinstance(kwargs, dict):
        raise RebuildError(f"{what}: the kwargs are not a dict")
    for key in kwargs:
        if not is_identifier(key):
            raise RebuildError(f"{what}: keyword {_show(key)} is not a "
                               f"Python identifier")
    created = graph.create_node(op, target, args, kwargs, name=name)
    # A function registered with torch.fx.wrap stays wrapped when the
    # rebuilt module is traced again.
    for scope, wrapped in getattr(torch.fx._symbolic_trace,
                                  "_wrapped_fns_to_patch", []):
        if op == "call_function" and scope.get(wrapped) is target:
            created.meta["is_wrapped"] = True
    if created.name != name:
        raise RebuildError(f"{what}: torch.fx renamed it "
                           f"{_show(created.name)}")
    if isinstance(entry.get("type"), str):
        created.meta["fx_mlir_type"] = entry["type"]
    nodes[name] = created


def _graphs(root, entries, allowed):
    """The other graphs of the description (branches and bodies of control
    flow), each a GraphModule submodule of `root` named by its graph; a
    graph that reads another is built after it."""
    if not isinstance(entries, list) or not all(
            isinstance(e, dict) and is_identifier(e.get("name"))
            and isinstance(e.get("nodes"), list) for e in entries):
        raise RebuildError("malformed graphs")
    names = {e["name"] for e in entries}
    pending = list(entries)
    while pending:
        ready = [e for e in pending
                 if not any(n.get("op") == "get_attr"
                            and n.get("target") in names
                            and not hasattr(root, n.get("target"))
                            for n in e["nodes"])]
        if not ready:
            raise RebuildError(f"graph {_show(pending[0]['name'])} reads a "
                               f"graph that reads it back")
        for entry in ready:
            name = entry["name"]
            if hasattr(root, name):
                raise RebuildError(f"graph {_show(name)}: the name is taken")
            graph = torch.fx.Graph()
            nodes = {}
            for node in entry["nodes"]:
                _node(graph, nodes, node, allowed)
            try:
                graph.lint()
                setattr(root, name, torch.fx.GraphModule(root, graph, name))
            except Exception as error:
                raise RebuildError(f"graph {_show(name)}: {error}") from None
            pending.remove(entry)


def rebuild(description, allowed_modules=()):
    """A new torch.fx.GraphModule from `description` (the parsed JSON of
    `fx-translate --export-fx-json`). Submodule types must be in torch,
    fx_mlir or `allowed_modules` (package or module names, or
    torch.nn.Module subclasses allowed one by one). Raises
    RebuildError naming the item that cannot be rebuilt."""
    allowed = check_allowed_modules(allowed_modules)
    if not isinstance(description, dict) or \
            description.get("format") != FORMAT:
        raise RebuildError(f"not an {FORMAT} description")
    if description.get("version") != VERSION:
        raise RebuildError(f"{FORMAT} version "
                           f"{_show(description.get('version'))}; this "
                           f"loader reads version {VERSION}")
    # The class name is data (GraphModule's __name__, `<lambda>` for
    # make_fx's), but print_readable() prints it as a class header: one
    # line without control characters.
    class_name = description.get("name")
    if not isinstance(class_name, str) or not class_name or \
            len(class_name.splitlines()) != 1 or \
            any(c < " " or c == "\x7f" for c in class_name):
        raise RebuildError(f"graph module {_show(class_name)}: the name is "
                           f"not one line of text")
    root = torch.nn.Module()
    submodules = description.get("submodules", [])
    states = description.get("state", [])
    entries = description.get("nodes", [])
    if not all(isinstance(x, list) for x in (submodules, states, entries)) \
            or not all(isinstance(e, dict)
                       for e in submodules + states + entries):
        raise RebuildError("malformed description")
    for entry in submodules:
        _submodule(root, entry, allowed)
    packed = {}
    for entry in states:
        _state(root, entry, packed)
    for path, (owner, values) in packed.items():
        if hasattr(owner, "_all_weight_values"):
            # A dynamically quantized LSTM or GRU: its layers' weights and
            # biases in one dict (a layer built without biases has none).
            biases = {k.replace("weight_", "bias_", 1): None
                      for k in values if k.startswith("weight_")}
            try:
                owner.set_weight_bias({**biases, **values})
            except Exception as error:
                raise RebuildError(f"submodule {_show(path)}: cannot pack "
                                   f"its weights and biases: {error}") \
                    from None
            continue
        if "weight" not in values:
            raise RebuildError(f"submodule {_show(path)}: a packed bias "
                               f"without a weight")
        try:
            owner.set_weight_bias(values["weight"], values.get("bias"))
        except Exception as error:
            raise RebuildError(f"submodule {_show(path)}: cannot pack its "
                               f"weight and bias: {error}") from None
    _drop_unlisted_state(root, [e["path"] for e in submodules],
                         {e["path"] for e in states})
    _graphs(root, description.get("graphs", []), allowed)
    graph = torch.fx.Graph()
    nodes = {}
    for entry in entries:
        _node(graph, nodes, entry, allowed)
    try:
        graph.lint()
        graph_module = torch.fx.GraphModule(root, graph, class_name)
    except Exception as error:
        raise RebuildError(f"graph module {_show(class_name)}: "
                           f"{error}") from None
    graph_module.training = bool(description.get("training", False))
    # torch.fx copies a submodule the graph calls into fresh containers on
    # its path (`acts` of `acts.0`), each in training mode: they take the
    # mode the IR gives them.
    for entry in submodules:
        try:
            copied = graph_module.get_submodule(entry["path"])
        except AttributeError:
            continue
        copied.training = bool(entry.get("training", False))
    graph_names = [e["name"] for e in description.get("graphs", [])]
    if graph_names:
        # torch.fx copies what forward reads; the module state and the
        # submodules that only branches and bodies read are copied too,
        # and every graph is a submodule, in the IR's order.
        for name, child in root.named_children():
            if not hasattr(graph_module, name):
                graph_module.add_submodule(name, child)
        for entry in states:
            path = entry["path"]
            if "." not in path and not hasattr(graph_module, path):
                value = getattr(root, path)
                if path in root._parameters:
                    graph_module.register_parameter(path, value)
                elif path in root._buffers:
                    graph_module.register_buffer(path, value)
                else:
                    setattr(graph_module, path, value)
        graph_module._fx_mlir_graph_order = graph_names
    return graph_module
