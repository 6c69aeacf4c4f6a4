"""The target registry include/fx-mlir/Dialect/FX/Registry/Targets.def
against PyTorch: every FX_OP schema is one LibTorch prints, every FX_ALIAS
names a real callable, Tensor method or torch.nn class, its parameters follow
the Python signature where Python has one, and every `%hparam` and `@field`
a module alias uses is one the importer records for that module type."""

import ast
import inspect
import os
import re
import sys
from collections import namedtuple

import pytest
import torch
import torch.nn as nn

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
try:
    import fx_mlir  # noqa: F401  (PYTHONPATH from pytest.test)
except ImportError:
    sys.path.insert(0, os.path.join(REPO, "python"))
from fx_mlir.importer import (function_name, hyperparameters, module_type,
                              resolve)

TARGETS = os.path.join(REPO, "include", "fx-mlir", "Dialect", "FX",
                       "Registry", "Targets.def")

Op = namedtuple("Op", "schema flags line")
Alias = namedtuple("Alias", "kind name op spec line")

_STR = r'"((?:[^"\\\n]|\\.)*)"'
_OP_RE = re.compile(r"FX_OP\(\s*" + _STR + r"\s*,\s*(\w+)\s*\)\s*$")
_ALIAS_RE = re.compile(r"FX_ALIAS\(\s*(\w+)\s*,\s*" + _STR + r"\s*,\s*"
                       + _STR + r"\s*,\s*" + _STR + r"\s*\)\s*$")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0"}


def unescape(text):
    """The value of the C string literal whose contents are `text`."""
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)),
                  text)


def parse_targets(path=TARGETS):
    ops, aliases, stray = [], [], []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            text = line.strip()
            if not text or text.startswith(("//", "#")):
                continue
            m = _OP_RE.match(text)
            if m:
                ops.append(Op(unescape(m.group(1)), m.group(2), number))
                continue
            m = _ALIAS_RE.match(text)
            if m:
                kind, *strings = m.groups()
                aliases.append(Alias(kind, *map(unescape, strings), number))
                continue
            stray.append((number, text))
    return ops, aliases, stray


OPS, ALIASES, STRAY = parse_targets()


def op_name(schema):
    """`aten::add.Tensor` of a schema string."""
    return schema.split("(", 1)[0]


def base_name(name):
    """`aten::add` of `aten::add.Tensor`."""
    return name.split(".", 1)[0]


_LIBTORCH = {}


def libtorch_schemas(name):
    if name not in _LIBTORCH:
        _LIBTORCH[name] = {str(s) for s in
                           torch._C._jit_get_schemas_for_operator(name)}
    return _LIBTORCH[name]


def candidates(alias):
    """The FX_OPs an alias may normalize to."""
    if "." in alias.op:
        return [op for op in OPS if op_name(op.schema) == alias.op]
    return [op for op in OPS if base_name(op_name(op.schema)) == alias.op]


def canonical_names(alias):
    names = set()
    for op in candidates(alias):
        schema = torch._C.parse_schema(op.schema)
        names.update(a.name for a in schema.arguments)
    if names & {"self", "input"}:
        names |= {"self", "input"}
    return names


# ---------------------------------------------------------------------------
# SPEC: "<parameters> | <bindings> | <requirements>"
# ---------------------------------------------------------------------------

Param = namedtuple("Param", "name canonical default star")
Spec = namedtuple("Spec", "params bindings requirements")

_PARAM_RE = re.compile(r"(\*)?([A-Za-z_]\w*)?(?::([A-Za-z_]\w*))?(?:=(.+))?\Z")
_ASSIGN_RE = re.compile(r"(%?[A-Za-z_]\w*)\s*=\s*(.+)\Z")


def split_top(text):
    """`text` split at the commas outside brackets and quotes."""
    items, depth, quote, start = [], 0, None, 0
    for i, c in enumerate(text):
        if quote:
            quote = None if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            items.append(text[start:i])
            start = i + 1
    items.append(text[start:])
    return [item.strip() for item in items if item.strip()]


def parse_spec(spec):
    parts = [part.strip() for part in spec.split("|")]
    assert len(parts) <= 3, f"more than three parts in {spec!r}"
    parts += [""] * (3 - len(parts))
    params = []
    for item in split_top(parts[0]):
        m = _PARAM_RE.match(item.replace(" ", ""))
        assert m and (m.group(2) or item == "*"), f"bad parameter {item!r}"
        star, name, canonical, default = m.groups()
        params.append(Param(name, canonical, default, bool(star)))
    bindings, requirements = {}, {}
    for part, table in ((parts[1], bindings), (parts[2], requirements)):
        for item in split_top(part):
            m = _ASSIGN_RE.match(item)
            assert m, f"bad binding or requirement {item!r}"
            assert m.group(1) not in table, f"{m.group(1)} given twice"
            table[m.group(1)] = m.group(2).strip()
    assert all(not k.startswith("%") for k in bindings), \
        f"a binding must name a canonical parameter: {spec!r}"
    return Spec(params, bindings, requirements)


def check_literal(value):
    """A literal as the header lists them: None, True, 0, 6.0, 'tanh',
    [1, 1], torch.float32."""
    if value.startswith("torch."):
        obj = resolve(value)
        assert isinstance(obj, (torch.dtype, torch.memory_format,
                                torch.layout)), value
        return obj
    return ast.literal_eval(value)


def check_value(value, kind):
    if value.startswith(("@", "%")):
        assert kind == "Module", f"{value} outside a module alias"
        assert re.fullmatch(r"[@%][A-Za-z_]\w*", value), value
        return
    check_literal(value)


# Parameters with no place in any canonical schema, which aliases accept and
# drop (or check in their requirements: F.pad's mode must be 'constant',
# ConvTranspose2d's output_size None).
# The losses' deprecated size_average and reduce (required None) and their
# reduction string, renamed to reduction_mode (checked in the requirements,
# bound as ATen's enum). cdist's compute_mode string, renamed to
# compute_mode_name (every mode computes the same distances). torch.norm's
# p='fro', renamed to norm_mode (bound as ord=2).
DROPPED = {"inplace", "_stacklevel", "max_norm", "norm_type", "out",
           "requires_grad", "return_indices", "mode", "output_size",
           "half_to_float", "size_average", "reduce", "reduction_mode",
           "compute_mode_name", "norm_mode",
           "memory_format", "layout", "device", "pin_memory"}

# Constructor arguments of a small instance of every module type the table
# names.
MODULE_ARGS = {
    "torch.nn.MSELoss": (), "torch.nn.L1Loss": (),
    "torch.nn.SmoothL1Loss": (), "torch.nn.HuberLoss": (),
    "torch.nn.BCELoss": (), "torch.nn.BCEWithLogitsLoss": (),
    "torch.nn.NLLLoss": (), "torch.nn.CrossEntropyLoss": (),
    "torch.nn.SoftMarginLoss": (), "torch.nn.HingeEmbeddingLoss": (),
    "torch.nn.MarginRankingLoss": (), "torch.nn.KLDivLoss": (),
    "torch.nn.CosineEmbeddingLoss": (), "torch.nn.TripletMarginLoss": (),
    "torch.nn.PairwiseDistance": (), "torch.nn.Bilinear": (3, 4, 5),
    "torch.nn.PoissonNLLLoss": (),
    "torch.nn.ReLU": (), "torch.nn.ReLU6": (), "torch.nn.Hardtanh": (),
    "torch.nn.LeakyReLU": (), "torch.nn.ELU": (), "torch.nn.GELU": (),
    "torch.nn.Sigmoid": (), "torch.nn.Tanh": (), "torch.nn.SiLU": (),
    "torch.nn.Hardswish": (), "torch.nn.Hardsigmoid": (),
    "torch.nn.Softplus": (), "torch.nn.Softmax": (1,),
    "torch.nn.LogSoftmax": (1,), "torch.nn.Dropout": (),
    "torch.nn.Dropout1d": (), "torch.nn.Dropout2d": (), "torch.nn.Dropout3d": (),
    "torch.nn.AlphaDropout": (), "torch.nn.FeatureAlphaDropout": (),
    "torch.nn.Fold": ((4, 4), 2), "torch.nn.Softmax2d": (),
    "torch.nn.Flatten": (), "torch.nn.Linear": (3, 4),
    "torch.nn.Conv1d": (3, 4, 3), "torch.nn.Conv2d": (3, 4, 3),
    "torch.nn.BatchNorm1d": (4,), "torch.nn.BatchNorm2d": (4,),
    "torch.nn.LayerNorm": (4,), "torch.nn.MaxPool1d": (2,),
    "torch.nn.MaxPool2d": (2,), "torch.nn.AvgPool1d": (2,),
    "torch.nn.AvgPool2d": (2,), "torch.nn.AdaptiveAvgPool1d": (1,),
    "torch.nn.AdaptiveAvgPool2d": (1,), "torch.nn.Embedding": (10, 4),
    "torch.nn.ConstantPad1d": (1, 0.5), "torch.nn.ConstantPad2d": (1, 0.5),
    "torch.nn.ConstantPad3d": (1, 0.5), "torch.nn.ZeroPad2d": (1,),
    "torch.nn.Mish": (), "torch.nn.LogSigmoid": (), "torch.nn.SELU": (),
    "torch.nn.CELU": (), "torch.nn.PReLU": (), "torch.nn.BatchNorm3d": (4,),
    "torch.nn.GroupNorm": (2, 4), "torch.nn.InstanceNorm1d": (4,),
    "torch.nn.InstanceNorm2d": (4,), "torch.nn.InstanceNorm3d": (4,),
    "torch.nn.Conv3d": (3, 4, 3), "torch.nn.MaxPool3d": (2,),
    "torch.nn.AvgPool3d": (2,), "torch.nn.AdaptiveAvgPool3d": (1,),
    "torch.nn.ConvTranspose1d": (3, 4, 3), "torch.nn.ConvTranspose2d": (3, 4, 3),
    "torch.nn.ConvTranspose3d": (3, 4, 3),
    "torch.nn.Unflatten": (1, (2, 2)), "torch.nn.PixelShuffle": (2,),
    "torch.nn.Unfold": (2,), "torch.nn.MultiMarginLoss": (),
    "torch.nn.PixelUnshuffle": (2,), "torch.nn.ChannelShuffle": (2,),
    "torch.nn.ReflectionPad1d": (1,), "torch.nn.ReflectionPad2d": (1,),
    "torch.nn.ReflectionPad3d": (1,), "torch.nn.ReplicationPad1d": (1,),
    "torch.nn.ReplicationPad2d": (1,), "torch.nn.ReplicationPad3d": (1,),
    "torch.nn.Hardshrink": (), "torch.nn.Softshrink": (),
    "torch.nn.Threshold": (0.1, 2.0), "torch.nn.GLU": (),
    "torch.nn.CosineSimilarity": (),
}


def python_signature(obj):
    """inspect's signature of a Python callable, None for builtins and
    `(*args, **kwargs)` wrappers."""
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    kinds = [p.kind for p in sig.parameters.values()]
    if kinds == [inspect.Parameter.VAR_POSITIONAL,
                 inspect.Parameter.VAR_KEYWORD]:
        return None
    return sig


def alias_id(alias):
    return f"{alias.kind}:{alias.name}->{alias.op}"


# ---------------------------------------------------------------------------
# The file
# ---------------------------------------------------------------------------

def test_every_line_parses():
    assert not STRAY, f"lines that are no FX_OP or FX_ALIAS: {STRAY}"
    assert OPS and ALIASES
    with open(TARGETS) as f:
        tail = [line.strip() for line in f if line.strip()][-2:]
    assert tail == ["#undef FX_OP", "#undef FX_ALIAS"]


def test_unescape():
    assert unescape(r'str padding=\"valid\"') == 'str padding="valid"'
    assert unescape(r"a\\b") == "a\\b"


# ---------------------------------------------------------------------------
# FX_OP
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("op", OPS, ids=lambda op: op_name(op.schema))
def test_schema_is_libtorchs(op):
    name = base_name(op_name(op.schema))
    assert op.schema in libtorch_schemas(name), (
        f"line {op.line}: not a schema of {name}; LibTorch has:\n  "
        + "\n  ".join(sorted(libtorch_schemas(name))))
    assert op.flags in ("Pure", "Impure")
    overload = op_name(op.schema).partition(".")[2]
    assert "out" not in overload.split("_") and "!" not in op.schema, \
        f"line {op.line}: out and in-place overloads do not belong here"


def test_ops_unique_and_grouped():
    names = [op_name(op.schema) for op in OPS]
    assert len(names) == len(set(names)), "an FX_OP is listed twice"
    seen, previous = set(), None
    for name in names:
        base = base_name(name)
        if base != previous:
            assert base not in seen, f"the overloads of {base} are not " \
                                     "listed together"
            seen.add(base)
            previous = base


# ---------------------------------------------------------------------------
# FX_ALIAS
# ---------------------------------------------------------------------------

def test_no_duplicate_aliases():
    """One alias per spelling and operator, except under different
    requirements (nn.InstanceNorm2d with and without running stats)."""
    keys = [(a.kind, a.name, a.op, a.spec.split("|")[2].strip()
             if a.spec.count("|") >= 2 else "") for a in ALIASES]
    dups = {k for k in keys if keys.count(k) > 1}
    assert not dups, f"aliases listed twice: {sorted(dups)}"


@pytest.mark.parametrize("alias", ALIASES, ids=alias_id)
def test_alias_op_is_listed(alias):
    assert alias.kind in ("Function", "Method", "Module")
    assert re.fullmatch(r"aten::\w+(\.\w+)?", alias.op), alias.op
    assert candidates(alias), (f"line {alias.line}: no FX_OP for "
                               f"{alias.op}")


@pytest.mark.parametrize("alias", ALIASES, ids=alias_id)
def test_alias_name_is_real(alias):
    if alias.kind == "Function":
        obj = resolve(alias.name)
        assert callable(obj), f"{alias.name} names no callable"
    elif alias.kind == "Method":
        assert callable(getattr(torch.Tensor, alias.name, None)), \
            f"torch.Tensor has no method {alias.name}"
    else:
        cls = resolve(alias.name)
        assert isinstance(cls, type) and issubclass(cls, nn.Module)
        assert alias.name == "torch.nn." + cls.__name__
        assert alias.name in MODULE_ARGS, \
            f"add constructor arguments for {alias.name} to MODULE_ARGS"
        assert module_type(cls(*MODULE_ARGS[alias.name])) == alias.name


def test_importer_spellings_covered():
    """The importer names a call_function target by one qualified name
    (torch.nn.functional.conv2d is torch.conv2d): that name must have an
    alias for the same operator too."""
    spelled = {(a.name, base_name(a.op)) for a in ALIASES
               if a.kind == "Function"}
    missing = []
    for alias in ALIASES:
        if alias.kind != "Function":
            continue
        obj = resolve(alias.name)
        if obj is None:
            continue  # test_alias_name_is_real reports it
        name = function_name(obj)
        if (name, base_name(alias.op)) not in spelled:
            missing.append(f"{alias.name} (imported as {name}) -> "
                           f"{alias.op}")
    assert not missing, missing


@pytest.mark.parametrize("alias", ALIASES, ids=alias_id)
def test_spec(alias):
    """The SPEC parses, binds only canonical parameters and checks only
    alias parameters and module hyperparameters."""
    spec = parse_spec(alias.spec)
    canonical = canonical_names(alias)
    names = [p.name for p in spec.params if p.name]
    assert len(names) == len(set(names)), "a parameter is listed twice"
    assert sum(p.star for p in spec.params) <= 1, "two `*`s"
    targets = set()
    for p in spec.params:
        if p.default is not None:
            check_literal(p.default)
            assert not p.star, "varargs take no default"
        if p.canonical:
            assert p.canonical in canonical or p.canonical in DROPPED, \
                f"{p.canonical} is no parameter of {alias.op}"
            targets.add(p.canonical)
        elif p.name:
            assert p.name in canonical or p.name in DROPPED, \
                f"{p.name} is no parameter of {alias.op} nor a known " \
                "dropped one"
            targets.add(p.name)
    for name, value in spec.bindings.items():
        assert name in canonical, f"{name} is no parameter of {alias.op}"
        assert name not in targets, f"{name} is both a parameter and bound"
        check_value(value, alias.kind)
    for name, value in spec.requirements.items():
        if name.startswith("%"):
            assert alias.kind == "Module", f"{name} outside a module alias"
        else:
            assert name in names, f"requirement on {name}, which is no " \
                                  "parameter"
        check_literal(value)
    if alias.kind == "Method" and spec.params:
        assert spec.params[0].name == "self" and not spec.params[0].star, \
            "a method's first parameter is self"
    if alias.kind == "Module":
        assert spec.params, "a module alias lists its forward's parameters"


def _python_parameters(sig, skip_self):
    params = list(sig.parameters.values())
    if skip_self:
        params = params[1:]
    out, keyword_only = [], False
    for p in params:
        if p.kind == p.VAR_POSITIONAL:
            out.append("*" + p.name)
            keyword_only = True
            continue
        if p.kind == p.KEYWORD_ONLY and not keyword_only:
            out.append("*")
            keyword_only = True
        out.append(p.name if p.default is p.empty else (p.name, p.default))
    return out


def _spec_parameters(spec, skip_self):
    out = []
    for p in spec.params[1 if skip_self else 0:]:
        if p.star:
            out.append("*" + p.name if p.name else "*")
        elif p.default is None:
            out.append(p.name)
        else:
            out.append((p.name, check_literal(p.default)))
    return out


# Functions whose Python signature is `*args`, which they take apart
# themselves: torch.einsum(*args) reads args[0] as the equation and the
# rest as the operands, what the alias's `equation, *tensors` binds.
_SPLITS_ITS_ARGS = {"torch.functional.einsum", "torch.einsum"}

# Functions of `*tensors` that return one tensor for one and a tuple for
# several: the alias binds the call of one tensor to the schema of one
# (`atleast_1d(Tensor self)`); a call of several is refused as
# not fitting.
_ONE_OR_MANY = {f"{module}.atleast_{n}d" for module in
                ("torch", "torch.functional") for n in (1, 2, 3)}


@pytest.mark.parametrize("alias", ALIASES, ids=alias_id)
def test_parameters_follow_python(alias):
    """Where Python has a signature (torch.nn.functional's Python functions,
    Tensor.split, a module's forward), the alias lists its parameters with
    their defaults; an empty list means they are the schema's."""
    spec = parse_spec(alias.spec)
    if alias.kind == "Module":
        sig = inspect.signature(resolve(alias.name).forward)
        skip_self = True
    elif alias.kind == "Method":
        sig = python_signature(getattr(torch.Tensor, alias.name))
        skip_self = True
    else:
        sig = python_signature(resolve(alias.name))
        skip_self = False
    if sig is None or alias.name in _ONE_OR_MANY:
        return
    if not spec.params:
        canonical = canonical_names(alias)
        extra = [p.name for p in list(sig.parameters.values())[skip_self:]
                 if p.kind != p.POSITIONAL_ONLY and p.name not in canonical]
        assert not extra, (f"{alias.name} has Python parameters {extra} the "
                           "schema does not: list its parameters")
        return
    python = _python_parameters(sig, skip_self)
    if python == ["*args"] and alias.name in _SPLITS_ITS_ARGS:
        return
    if alias.kind == "Module":  # defaults of forward are not FX's business
        python = [p if isinstance(p, str) else p[0] for p in python]
        ours = [p.name for p in spec.params]
    else:
        ours = _spec_parameters(spec, skip_self)
    assert ours == python, f"{alias.name}: Python has {python}"


@pytest.mark.parametrize("alias", [a for a in ALIASES if a.kind == "Module"],
                         ids=alias_id)
def test_module_hyperparameters_and_state(alias):
    """Every `%hparam` is an attribute of the module that the importer
    records on its fx.submodule; every `@field` is a parameter or buffer
    slot of the module type."""
    module = resolve(alias.name)(*MODULE_ARGS[alias.name])
    recorded = hyperparameters(module)
    spec = parse_spec(alias.spec)
    values = list(spec.bindings.values()) + list(spec.requirements)
    for value in values:
        if value.startswith("%") and value != "%training":
            name = value[1:]
            # An attribute of that name, or derived by the importer from
            # others (nn.PairwiseDistance keeps its p as norm).
            assert hasattr(module, name) or name in recorded, \
                f"{alias.name} has no {name}"
            assert name in recorded, \
                f"the importer does not record {name} of {alias.name}"
        if value.startswith("@"):
            name = value[1:]
            assert name in module._parameters or name in module._buffers, \
                f"{alias.name} has no parameter or buffer {name}"
