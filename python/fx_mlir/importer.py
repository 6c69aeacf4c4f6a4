"""torch.fx.GraphModule -> fx dialect (textual IR).

    text = fx_mlir.import_graph_module(gm, example_inputs=(x,))

Every node becomes one op of its kind with its name, target, args and kwargs
exactly as FX holds them; parameters and buffers become `fx.state` (weights
as `dense_resource` blobs, tied weights as aliases), submodules become
`fx.submodule` with their type and hyperparameters. With example inputs the
node types come from torch.fx's ShapeProp; without, they are `!fx.any`.
"""

import builtins
import contextlib
import functools
import importlib
import inspect
import io
import re
import struct
import warnings

import torch
import torch.fx
import torch.nn as nn
import torch.nn.functional as F
from torch.fx.passes.shape_prop import ShapeProp, TensorMetadata

from . import FxMlirError, _serialized

__all__ = ["ImportError_", "import_graph_module"]


class ImportError_(FxMlirError):
    """The GraphModule holds something the fx dialect cannot represent; the
    message names the node."""


_BARE_ID = re.compile(r"[A-Za-z_][A-Za-z0-9_$.]*\Z")


def _mlir_str(s):
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


def _name_or_str(name):
    return name if _BARE_ID.match(name) else _mlir_str(name)


def _symbol(name):
    return "@" + _name_or_str(name)


def _float(v):
    text = repr(v)  # Python's shortest repr; MLIR wants a '.' before 'e'
    mantissa, e, exponent = text.partition("e")
    if e and "." not in mantissa:
        text = mantissa + ".0e" + exponent
    return text


def _value(v, refs, where):
    """One FX value in the dialect's syntax; node uses are appended to refs."""
    seq = lambda items: ", ".join(_value(x, refs, where) for x in items)
    if isinstance(v, torch.fx.Node):
        refs.append(v)
        return "%" + v.name
    if isinstance(v, bool) or v is None:
        return str(v)
    if isinstance(v, int):
        if not -2**63 <= v < 2**63:
            raise ImportError_(f"{where}: int {v} does not fit in 64 bits")
        return str(v)
    if isinstance(v, float):
        return _float(v)
    if isinstance(v, complex):
        return f"complex({_float(v.real)}, {_float(v.imag)})"
    if isinstance(v, str):
        return _mlir_str(v)
    if v is Ellipsis:
        return "..."
    if isinstance(v, torch.Size):
        return f"torch.Size([{', '.join(map(str, v))}])"
    if isinstance(v, tuple):
        return f"({seq(v)}{',' if len(v) == 1 else ''})"
    if isinstance(v, list):
        return f"[{seq(v)}]"
    if isinstance(v, dict):
        for k in v:
            if isinstance(k, bool) or not isinstance(k, (str, int)):
                raise ImportError_(f"{where}: dict key {k!r} is not a str or "
                                   "an int")
        return "{" + ", ".join(f"{_value(k, refs, where)}: "
                               f"{_value(x, refs, where)}"
                               for k, x in v.items()) + "}"
    if isinstance(v, slice):
        return f"slice({seq((v.start, v.stop, v.step))})"
    if isinstance(v, (torch.dtype, torch.memory_format, torch.layout)):
        return str(v)  # torch.float32, torch.channels_last, torch.strided
    if isinstance(v, torch.device):
        return f"device({_mlir_str(str(v))})"
    raise ImportError_(f"{where}: cannot represent {type(v).__name__} "
                       f"{v!r} in the fx dialect")


def _call_args(args, kwargs, refs, where):
    parts = [_value(a, refs, where) for a in args]
    parts += [f"{_name_or_str(k)}={_value(v, refs, where)}"
              for k, v in kwargs.items()]
    return "(" + ", ".join(parts) + ")"


@functools.lru_cache(maxsize=None)
def _element_types():
    """torch dtype -> MLIR element type, from the one table the C++ side
    uses too (DTypes.def, read through the extension)."""
    from .compiler import _load_core
    return {getattr(torch, name): element
            for name, element, _ in _load_core().dtypes()}


# torch's quantized dtypes -> the storage type of their MLIR quant type.
_QUANT_STORAGE = {torch.quint8: "u8", torch.qint8: "i8", torch.qint32: "i32"}


def _qparams(tensor):
    """The quantization parameters of a quantized tensor, as ShapeProp's
    TensorMetadata records them."""
    qscheme = tensor.qscheme()
    if qscheme == torch.per_tensor_affine:
        return {"qscheme": qscheme, "scale": tensor.q_scale(),
                "zero_point": tensor.q_zero_point()}
    if qscheme == torch.per_channel_affine:
        return {"qscheme": qscheme,
                "scale": tensor.q_per_channel_scales().tolist(),
                "zero_point": tensor.q_per_channel_zero_points().tolist(),
                "axis": tensor.q_per_channel_axis()}
    return {"qscheme": qscheme}


def _quant_element(dtype, qparams, where):
    """`!quant.uniform<u8:f32, 0.0123:128>` (per tensor) or
    `!quant.uniform<i8:f32:0, {0.1:0,0.2:0}>` (per channel): scales are
    Python's shortest repr of the double, which MLIR reads back exactly."""
    storage = _QUANT_STORAGE.get(dtype)
    qscheme = qparams.get("qscheme")
    if storage is None or qscheme not in (torch.per_tensor_affine,
                                          torch.per_channel_affine):
        raise ImportError_(f"{where}: unsupported quantized tensor {dtype} "
                           f"with qscheme {qscheme}")
    if qscheme == torch.per_tensor_affine:
        return (f"!quant.uniform<{storage}:f32, "
                f"{_float(float(qparams['scale']))}:"
                f"{int(qparams['zero_point'])}>")
    pairs = ",".join(f"{_float(float(s))}:{int(z)}" for s, z in
                     zip(qparams["scale"], qparams["zero_point"]))
    return (f"!quant.uniform<{storage}:f32:{int(qparams['axis'])}, "
            f"{{{pairs}}}>")


def _tensor_type(shape, dtype, where, dynamic=(), qparams=None):
    if dtype in _QUANT_STORAGE or qparams:
        element = _quant_element(dtype, qparams or {}, where)
    else:
        element = _element_types().get(dtype)
    if element is None:
        raise ImportError_(f"{where}: unsupported tensor dtype {dtype}")
    return ("tensor<" + "".join("?x" if i in dynamic else f"{d}x"
                                for i, d in enumerate(shape))
            + element + ">")


def _state_type(tensor, where):
    """The type of a parameter, buffer or constant."""
    return _tensor_type(tensor.shape, tensor.dtype, where, (),
                        _qparams(tensor) if tensor.is_quantized else None)


# Node name -> dims that follow the batch size (import with dynamic_batch),
# per tensor of the node's value (one entry, or one per tuple element).
_DYNAMIC = {}


def _unshared(value):
    """A tensor attribute as a graph run may read it: a copy, unless it is
    a parameter. A tensor torch.fx made a constant (`torch.zeros(n)` with
    `n` known when tracing) or a buffer can be updated in place by the
    graph (`.scatter_add_(...)`), which eager does on a new tensor each
    call: a run for shapes must leave the module's as it was."""
    if isinstance(value, torch.Tensor) and \
            not isinstance(value, torch.nn.Parameter):
        return value.clone()
    return value


class _TypeProp(ShapeProp):
    """ShapeProp that also records the Python type of int, float and bool
    results (`x.size(0)`), which the IR types as i64, f64 and i1. Tensor
    attributes other than parameters are read as copies (_unshared)."""

    def run_node(self, n):
        result = super().run_node(n)
        if isinstance(result, (bool, int, float)):
            n.meta["type"] = type(result)
        return result

    def get_attr(self, target, args, kwargs):
        return _unshared(super().get_attr(target, args, kwargs))


def _to_meta(value):
    return value.to("meta") if isinstance(value, torch.Tensor) else value


class _MetaTypeProp(_TypeProp):
    """_TypeProp on the meta device: inputs, parameters, buffers and tensor
    attributes become meta tensors (shape and dtype, no data), so no
    kernel runs, nothing is allocated for activations and no module's
    state changes. Raises whatever the first op without a meta kernel,
    or one that reads values (`.item()`), raises."""

    def get_attr(self, target, args, kwargs):
        return _to_meta(ShapeProp.get_attr(self, target, args, kwargs))

    def call_module(self, target, args, kwargs):
        module = self.fetch_attr(target)
        state = {name: _to_meta(t) for name, t in
                 [*module.named_parameters(), *module.named_buffers()]}
        return torch.nn.utils.stateless.functional_call(
            module, state, tuple(args), kwargs)


def _propagate(gm, inputs):
    """Records each node's tensor_meta (and Python type) for `inputs`:
    on the meta device where every op has a meta kernel, else by running
    the graph (which allocates its activations: a model's eager run leaves
    caches, such as oneDNN's, in the process)."""
    try:
        # ShapeProp prints the traceback of a failing node: here the
        # failure only means running for real.
        with contextlib.redirect_stderr(io.StringIO()):
            _MetaTypeProp(gm).propagate(*[_to_meta(t) for t in inputs])
        return
    except Exception:  # noqa: BLE001 - any failure: run it for real
        for node in gm.graph.nodes:
            node.meta.pop("tensor_meta", None)
            node.meta.pop("type", None)
    _TypeProp(gm).propagate(*inputs)


def _batch_dependent_dims(gm, example_inputs, batch_inputs=None):
    """Runs the graph at the example batch, at one, two and twelve more,
    and at a batch of 1 (those it runs at; one at least);
    the dims of each node's tensors that differ follow the batch (dim 0
    of inputs; of the first `batch_inputs` inputs only, when given: the
    others are module state, a buffer the graph updates). One more row
    alone misses a dim that changes with the batch only now and then
    (`x[::3]` has 2 rows at a batch of 4 and of 5, 5 at 16); two and
    twelve more keep the batch's parity, twelve its divisibility by 3, 4
    and 6 (`x.view(-1, 2, n)`); a batch of 1 shows the slices that
    smaller batches shorten (`x[:3]`)."""
    def shapes(inputs):
        _propagate(gm, inputs)
        result = {}
        for node in gm.graph.nodes:
            meta = node.meta.get("tensor_meta")
            metas = (list(meta) if isinstance(meta, (tuple, list))
                     and not isinstance(meta, TensorMetadata) else [meta])
            result[node.name] = [tuple(m.shape) if isinstance(
                m, TensorMetadata) else None for m in metas]
        return result

    count = len(example_inputs) if batch_inputs is None else batch_inputs

    def grown(extra):
        if extra < 0:  # the first row alone
            return tuple(
                t[:1] if i < count and isinstance(t, torch.Tensor) and
                t.dim() > 0 else t for i, t in enumerate(example_inputs))
        return tuple(
            torch.cat([t, t[:1].repeat(extra, *[1] * (t.dim() - 1))])
            if i < count and isinstance(t, torch.Tensor) and t.dim() > 0
            else t for i, t in enumerate(example_inputs))
    batch = next((t.shape[0] for i, t in enumerate(example_inputs)
                  if i < count and isinstance(t, torch.Tensor)
                  and t.dim() > 0), 1)
    with torch.no_grad():
        runs, first_error = [], None
        for extra in (1, 2, 12) + ((-1,) if batch > 1 else ()):
            try:
                # torch.fx's ShapeProp prints the traceback of a node
                # that fails: a batch the graph does not run at is no
                # news for the user.
                with contextlib.redirect_stderr(io.StringIO()):
                    runs.append(shapes(grown(extra)))
            except Exception as error:  # noqa: BLE001 - the others decide
                first_error = first_error or error
        if not runs:
            # The graph runs at the example's batch only: an input whose
            # dim 0 is not the batch (an LSTM's (layers, batch, hidden)
            # state, a time-first sequence), or one that must match a
            # static size.
            try:
                with contextlib.redirect_stderr(io.StringIO()):
                    shapes(tuple(example_inputs))
            except Exception:  # noqa: BLE001 - the example's own failure
                raise first_error from None
            cause = first_error
            while (cause.__cause__ or cause.__context__) is not None:
                cause = cause.__cause__ or cause.__context__
            node = re.search(r"ShapeProp error for: node=%(\w+)",
                             str(first_error))
            where = f" at node '{node.group(1)}'" if node else ""
            shapes_ = ", ".join(
                f"input {i} {tuple(t.shape)}" for i, t in
                enumerate(example_inputs[:count])
                if isinstance(t, torch.Tensor))
            first = (str(cause).strip().splitlines() or [""])[0]
            raise FxMlirError(
                "dynamic_batch=True: dim 0 of every input is the batch, "
                f"but the graph does not run with one row more in each "
                f"({shapes_}){where}: {type(cause).__name__}: {first}; an "
                "input whose dim 0 is not the batch (an RNN's state of "
                "(layers, batch, hidden), a time-first sequence) needs "
                "static shapes") from None
        base = shapes(tuple(example_inputs))
    dynamic = {}
    for name, metas in base.items():
        dims = [set() for _ in metas]
        for run in runs:
            for k, (a, b) in enumerate(zip(metas, run.get(name, []))):
                if a is not None and b is not None and len(a) == len(b):
                    dims[k] |= {i for i, (x, y) in enumerate(zip(a, b))
                                if x != y}
        dynamic[name] = dims
    return dynamic


def _module_path(node):
    """The qualified path of the module whose forward made `node`, when the
    tracer recorded it (fx_mlir.compile's tracer, or nn_module_stack)."""
    if node.meta.get("fx_mlir_module_path"):
        return node.meta["fx_mlir_module_path"]
    stack = node.meta.get("nn_module_stack")
    if stack:
        return list(stack)[-1]
    return ""


def _node_type(node):
    # A node of a graph module exported from IR keeps the IR's type.
    if isinstance(node.meta.get("fx_mlir_type"), str) and \
            "tensor_meta" not in node.meta:
        return node.meta["fx_mlir_type"]
    meta = node.meta.get("tensor_meta")
    where = f"node '{node.name}'"
    dyn = _DYNAMIC.get(node.name, [])
    if isinstance(meta, TensorMetadata):
        return _tensor_type(meta.shape, meta.dtype, where,
                            dyn[0] if dyn else (), meta.qparams)
    if (isinstance(meta, (tuple, list)) and meta
            and all(isinstance(m, TensorMetadata) for m in meta)):
        return "tuple<" + ", ".join(
            _tensor_type(m.shape, m.dtype, where,
                         dyn[i] if i < len(dyn) else (), m.qparams)
            for i, m in enumerate(meta)) + ">"
    return {int: "i64", float: "f64", bool: "i1"}.get(node.meta.get("type"),
                                                      "!fx.any")


# Modules of C functions, mapped to where Python code reaches them.
_PUBLIC_MODULES = {
    "_operator": "operator",
    "torch._C._VariableFunctions": "torch",
    "torch._C._nn": "torch.nn.functional",
    "torch._C._fft": "torch.fft",
    "torch._C._linalg": "torch.linalg",
    "torch._C._special": "torch.special",
}


def resolve(qualified_name):
    """The Python object `qualified_name` (`torch.nn.functional.relu`,
    `operator.add`, `mypkg.mod.Class.method`) names, importing its module,
    or the operator overload an operator name (`aten::add.Tensor`, no
    overload meaning `.default`) names; None when nothing by that name
    exists."""
    if "::" in qualified_name:
        namespace, _, op = qualified_name.partition("::")
        op, _, overload = op.partition(".")
        try:
            packet = getattr(getattr(torch.ops, namespace), op)
            return getattr(packet, overload or "default")
        except (AttributeError, RuntimeError):  # RuntimeError: no such op
            return None
    parts = qualified_name.split(".")
    for i in range(len(parts) - 1, 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        try:
            for part in parts[i:]:
                obj = getattr(obj, part)
        except AttributeError:
            return None
        return obj
    return None


def function_name(fn):
    """The qualified name Python code reaches a call_function target by:
    `torch.relu`, `operator.add`, `torch.nn.functional.relu`,
    `builtins.getattr`; for an operator overload (the targets of make_fx and
    other aten-level graphs) its operator name, `aten::add.Tensor`. It
    always resolves back to `fn` itself."""
    if isinstance(fn, torch._ops.OpOverload):
        name = fn._schema.name
        if fn._overloadname != "default":  # `aten::relu`, as the IR spells it
            name += f".{fn._overloadname}"
        if resolve(name) is not fn:
            raise ImportError_(f"call_function target {fn!r}: its operator "
                               f"name '{name}' names another object")
        return name
    from .control_flow import NAMES as control_flow_names
    try:
        if fn in control_flow_names:
            return control_flow_names[fn]
    except TypeError:  # an unhashable callable
        pass
    if isinstance(fn, torch._ops.OpOverloadPacket):
        # `torch.ops.aten.mm`: every overload, the one the args fit is
        # chosen when the call is bound (as the packet does when called).
        namespace, _, op = fn._qualified_op_name.partition("::")
        name = f"torch.ops.{namespace}.{op}"
        if resolve(name) is not fn:
            raise ImportError_(f"call_function target {fn!r}: '{name}' "
                               f"names another object")
        return name
    name = getattr(fn, "__name__", None)
    if name is None:
        raise ImportError_(f"call_function target {fn!r} has no name")
    if getattr(builtins, name, None) is fn:
        return "builtins." + name
    module = getattr(fn, "__module__", None) or "torch"
    candidates = [_PUBLIC_MODULES.get(module, module) + "." + name,
                  module + "." + name]
    if module.startswith("torch._C"):
        candidates.append("torch." + name)
    qualname = getattr(fn, "__qualname__", name)
    if qualname != name:  # a static method or a nested function
        candidates.append(module + "." + qualname)
    # An overload torch's Python wrappers call themselves (torch.atleast_1d
    # and torch.meshgrid of a list reach _VF.atleast_1d, _VF.meshgrid).
    candidates.append("torch._VF." + name)
    for candidate in candidates:
        if resolve(candidate) is fn:
            return candidate
    raise ImportError_(f"call_function target {fn!r} cannot be reached by a "
                       f"qualified name (tried {', '.join(candidates)})")


# The public homes of torch's quantized and fused modules, by the names
# the IR spells them with. torch 1.13 keeps the intrinsic quantized modules
# in torch.nn.intrinsic (torch.ao.nn.intrinsic since 2.0).
_QUANTIZED_NAMESPACES = {
    "torch.ao.nn.quantized": "torch.ao.nn.quantized",
    "torch.ao.nn.quantized.dynamic": "torch.ao.nn.quantized.dynamic",
    "torch.ao.nn.intrinsic.quantized": "torch.nn.intrinsic.quantized",
    "torch.ao.nn.intrinsic.quantized.dynamic":
        "torch.nn.intrinsic.quantized.dynamic",
    "torch.ao.nn.quantized.reference": "torch.ao.nn.quantized.reference",
    "torch.ao.nn.intrinsic": "torch.ao.nn.intrinsic",
}


def _quantized_module_type(cls):
    """`torch.ao.nn.quantized.Conv2d`, `torch.ao.nn.intrinsic.quantized.
    ConvReLU2d`...: the namespace of _QUANTIZED_NAMESPACES whose attribute
    of the class's name is the class, or None."""
    if not cls.__module__.startswith(("torch.ao.nn.", "torch.nn.")):
        return None
    for name, legacy in _QUANTIZED_NAMESPACES.items():
        for home in dict.fromkeys((name, legacy)):
            try:
                namespace = importlib.import_module(home)
            except ImportError:
                continue
            if getattr(namespace, cls.__name__, None) is cls:
                return f"{name}.{cls.__name__}"
    return None


def module_type(module):
    """`torch.nn.Conv2d` for torch.nn classes, the public name of torch's
    quantized and fused modules (`torch.ao.nn.quantized.Linear`), else
    module.qualname."""
    cls = type(module)
    if cls.__module__.startswith("torch.nn.") and getattr(
            nn, cls.__name__, None) is cls:
        return "torch.nn." + cls.__name__
    return (_quantized_module_type(cls)
            or cls.__module__ + "." + cls.__qualname__)


def _packed_weight_bias(module):
    """(weight, bias) of a quantized module that keeps them packed
    (torch.ao.nn.quantized Conv*, ConvTranspose*, Linear, their fused and
    dynamic forms) and takes them back through set_weight_bias; else
    None. A quantized Embedding's weight is given too, for its import to
    fail on its qparams (float zero points, which no MLIR quant type
    holds) rather than be lost."""
    if callable(getattr(module, "_weight_bias", None)) and \
            callable(getattr(module, "set_weight_bias", None)):
        weight_bias = module._weight_bias()
        # A dynamic LSTM's is a dict of its layers' packed cells: not one
        # weight and bias (the module is refused by name).
        if isinstance(weight_bias, tuple) and len(weight_bias) == 2 and all(
                t is None or isinstance(t, torch.Tensor) for t in weight_bias):
            return weight_bias
        return None
    if callable(getattr(module, "set_weight", None)) and \
            callable(getattr(module, "weight", None)):
        return module.weight(), None
    # A quantized PReLU keeps its quantized weight as a plain attribute.
    if callable(getattr(module, "set_weight", None)) and isinstance(
            getattr(module, "weight", None), torch.Tensor) and \
            module_type(module) == "torch.ao.nn.quantized.PReLU":
        return module.weight, None
    return None


# RNNBase's constructor arguments (after a dynamically quantized one's
# mode), which nn.RNN/LSTM/GRU and their dynamic quantized forms keep as
# attributes of the same names.
_RNN_BASE_ARGUMENTS = ("input_size", "hidden_size", "num_layers", "bias",
                       "batch_first", "dropout", "bidirectional")


def _dynamic_rnn_state(module):
    """A dynamically quantized LSTM's or GRU's layer weights and biases,
    unpacked from their packed cells (its _weight_bias()), by PyTorch's
    names (`weight_ih_l0`, `bias_hh_l1_reverse`, ...): its set_weight_bias
    takes them back as one dict."""
    tables = module._weight_bias()
    return {**tables["weight"], **tables["bias"]}


def _is_dynamic_rnn(module):
    """A dynamically quantized LSTM or GRU (its layers' weights packed in
    `_all_weight_values`)."""
    return module_type(module) in ("torch.ao.nn.quantized.dynamic.LSTM",
                                   "torch.ao.nn.quantized.dynamic.GRU")


def _dynamic_rnn_arguments(module):
    """A dynamically quantized LSTM or GRU takes `*args, **kwargs` (on to
    RNNBase's constructor, after its mode)."""
    keys = _RNN_BASE_ARGUMENTS + ("dtype",)
    return {key: getattr(module, key) for key in keys}


def _quantized_arguments(module, params):
    """Constructor arguments of torch's quantized modules they do not keep
    under their own name, or not as the constructor took them: a packed
    module's `bias` (Linear's `bias_`) as a bool and Linear's weight
    `dtype`; `scale`, `zero_point` (and Quantize's `dtype`) kept as
    buffers, as numbers; a quantized norm's `weight` tensor as a bool, as
    `bias` is; a reference module's `weight_qparams` (its qscheme by name:
    `per_channel_affine`, `per_channel_affine_float_qparams`, with the
    axis of either); and the output `scale` and `zero_point` a static
    quantized module keeps as attributes without its constructor taking
    them (set back as attributes when rebuilt)."""
    name = module_type(module)
    if not name.startswith(("torch.ao.nn.quantized.",
                            "torch.ao.nn.intrinsic.quantized.")):
        return {}
    values = {}
    packed = _packed_weight_bias(module)
    if packed is not None:
        for key in ("bias", "bias_"):
            if key in params:
                values[key] = packed[1] is not None
    if "dtype" in params and params["dtype"].default is not None:
        dtype = packed[0].dtype if packed is not None else \
            getattr(module, "dtype", None)
        if isinstance(dtype, torch.dtype):
            values["dtype"] = dtype
    if "weight" in params and "scale" in params:
        values["weight"] = getattr(module, "weight", None) is not None
    if hasattr(module, "weight_qscheme") and "weight_qparams" in params:
        qparams = {"qscheme": str(module.weight_qscheme).rpartition(".")[2],
                   "dtype": module.weight_dtype}
        if isinstance(getattr(module, "weight_scale", None), torch.Tensor):
            qparams["scale"] = module.weight_scale.tolist()
            qparams["zero_point"] = module.weight_zero_point.tolist()
            if module.weight_qscheme in (
                    torch.per_channel_affine,
                    torch.per_channel_affine_float_qparams):
                qparams["axis"] = int(module.weight_axis)
        values["weight_qparams"] = qparams
    static = not any(f".{kind}." in name for kind in ("dynamic", "reference"))
    for key, kind in (("scale", float), ("zero_point", int)):
        value = getattr(module, key, None)
        if key in params and isinstance(value, torch.Tensor) and \
                value.numel() == 1:
            values[key] = kind(value)
        elif key not in params and static and type(value) is kind:
            values[key] = value
    return values


def _rnn_arguments(module):
    """nn.RNN, nn.LSTM and nn.GRU take `*args, **kwargs`; these are the
    arguments of RNNBase (and RNN's nonlinearity, LSTM's proj_size)."""
    keys = list(_RNN_BASE_ARGUMENTS)
    if type(module) is nn.RNN:
        keys.insert(3, "nonlinearity")
    if type(module) is nn.LSTM:
        keys.append("proj_size")
    return {key: getattr(module, key) for key in keys}


def _attention_arguments(module):
    """nn.MultiheadAttention keeps `bias` and `add_bias_kv` only as the
    presence of the parameters they create."""
    return {"bias": module.in_proj_bias is not None,
            "add_bias_kv": module.bias_k is not None}


def _transformer_layer_arguments(module):
    """nn.TransformerEncoderLayer and nn.TransformerDecoderLayer pass their
    arguments on to their children and keep none of them but norm_first.
    The activation is recorded as "relu" or "gelu" (the strings the
    constructor takes) when it is that function or a plain nn.ReLU/nn.GELU;
    any other callable is not a constant and is left out."""
    attn = module.self_attn
    values = {"d_model": attn.embed_dim, "nhead": attn.num_heads,
              "dim_feedforward": module.linear1.out_features,
              "dropout": module.dropout.p}
    act = module.activation
    if act is F.relu or type(act) is nn.ReLU:
        values["activation"] = "relu"
    elif act is F.gelu or (type(act) is nn.GELU and act.approximate == "none"):
        values["activation"] = "gelu"
    values.update(layer_norm_eps=module.norm1.eps,
                  batch_first=attn.batch_first, norm_first=module.norm_first)
    return values


# Constructor arguments of torch.nn modules that do not keep them as
# attributes of the same name, derived from what the modules do keep.
_DERIVED_ARGUMENTS = {
    nn.RNN: _rnn_arguments,
    nn.LSTM: _rnn_arguments,
    nn.GRU: _rnn_arguments,
    nn.MultiheadAttention: _attention_arguments,
    nn.TransformerEncoderLayer: _transformer_layer_arguments,
    nn.TransformerDecoderLayer: _transformer_layer_arguments,
    # nn.PairwiseDistance keeps its p as `norm`.
    nn.PairwiseDistance: lambda m: {"p": m.norm},
    torch.ao.nn.quantized.dynamic.LSTM: _dynamic_rnn_arguments,
    torch.ao.nn.quantized.dynamic.GRU: _dynamic_rnn_arguments,
}


def hyperparameters(module):
    """The constructor arguments the module keeps as attributes (stride,
    padding, eps, ...), in signature order, so that calling its type with
    them builds the same module. A `bias` argument that became a parameter
    is recorded as a bool, as the constructor took it. For torch.nn modules
    that do not keep some of their arguments (nn.LSTM takes `*args`,
    nn.TransformerEncoderLayer hands d_model to its children) those are
    derived from what the module holds."""
    derived = _DERIVED_ARGUMENTS.get(type(module), lambda m: {})(module)
    try:
        params = inspect.signature(type(module).__init__).parameters
    except (TypeError, ValueError):
        params = {}
    quantized = _quantized_arguments(module, params)
    derived.update(quantized)
    candidates = {}
    for key, param in list(params.items())[1:]:
        if key in derived:
            candidates[key] = derived.pop(key)
        elif (key not in ("device", "dtype") and hasattr(module, key)
              and param.kind not in (param.VAR_POSITIONAL, param.VAR_KEYWORD)):
            candidates[key] = getattr(module, key)
    if any(p.kind == p.VAR_KEYWORD for p in params.values()):
        candidates.update(derived)  # taken through **kwargs
    # What no parameter takes: a quantized module's output scale.
    candidates.update((key, quantized[key]) for key in quantized
                      if key not in params)
    values = {}
    for key, v in candidates.items():
        if key == "bias" and (v is None or isinstance(v, torch.Tensor)):
            v = v is not None
        try:
            _value(v, [], "")
        except ImportError_:
            continue  # not an FX value (a tensor, a module): not a hparam
        values[key] = v
    return values


def _blob(tensor):
    """The hex digits of a resource blob, without the `0x`: little-endian
    u32 alignment + the raw little-endian data. NumPy has no bfloat16: its
    bits go out as the int16 they fill."""
    tensor = tensor.detach().cpu().contiguous()
    if tensor.is_quantized:  # its integers; the type holds the qparams
        tensor = tensor.int_repr()
    if tensor.dtype == torch.bfloat16:
        tensor = tensor.view(torch.int16)
    array = tensor.numpy()
    data = array.astype(array.dtype.newbyteorder("<"), copy=False).tobytes()
    return (struct.pack("<I", tensor.element_size()) + data).hex()


def _state_value(name, tensor, resources, blobs):
    """The value of an `fx.state`: a `dense_resource` blob (appended to
    `resources` as hex, or, when `blobs` is a dict, put there as the
    contiguous tensor whose memory is the blob), or `dense<>` for a tensor
    without elements, whose empty blob MLIR's bytecode cannot read back."""
    if tensor.numel() == 0:
        return "dense<>"
    if blobs is not None:
        data = tensor.detach().cpu().contiguous()
        if data.is_quantized:
            data = data.int_repr()
        if data.dtype == torch.bfloat16:
            data = data.view(torch.int16)
        blobs[name] = data
    else:
        resources.append((name, _blob(tensor)))
    return f"dense_resource<{_name_or_str(name)}>"


def _check_attribute(owner, node, where):
    """Raises ImportError_ for a get_attr of a TorchScript object (the
    packed weights convert_fx gives a functional quantized op,
    `torch.ops.quantized.linear_dynamic(x, self._packed_weight_0, False)`),
    which no fx state holds: those of the calls _PACKED_FUNCTIONS names
    became their quantized modules before."""
    if isinstance(_attribute(owner, node.target), torch.ScriptObject):
        raise ImportError_(
            f"{where}: reads a TorchScript object (a functional quantized "
            f"op's packed weights, as convert_fx makes them of F.linear or "
            f"F.conv2d), which fx-mlir does not hold as state; the static "
            f"quantized linear and conv functions are supported, this use of "
            f"them is not: quantize an nn.Linear or nn.Conv2d module "
            f"instead")


# convert_fx's lowering of F.linear and F.conv{1,2,3}d on weights the
# model holds: a torch.ops.quantized call reading packed weights (a
# TorchScript object) through get_attr. The quantized module whose forward
# makes the same call: (module class path, weights unpacked by).
_PACKED_FUNCTIONS = {
    "linear": ("torch.ao.nn.quantized.Linear", "linear_unpack"),
    "linear_relu": ("torch.ao.nn.intrinsic.quantized.LinearReLU",
                    "linear_unpack"),
    "conv1d": ("torch.ao.nn.quantized.Conv1d", "conv1d_unpack"),
    "conv1d_relu": ("torch.ao.nn.intrinsic.quantized.ConvReLU1d",
                    "conv1d_unpack"),
    "conv2d": ("torch.ao.nn.quantized.Conv2d", "conv2d_unpack"),
    "conv2d_relu": ("torch.ao.nn.intrinsic.quantized.ConvReLU2d",
                    "conv2d_unpack"),
    "conv3d": ("torch.ao.nn.quantized.Conv3d", "conv3d_unpack"),
    "conv3d_relu": ("torch.ao.nn.intrinsic.quantized.ConvReLU3d",
                    "conv3d_unpack"),
}


def _attribute(owner, target):
    """The attribute a get_attr of `target` ("a.b.c") reads from `owner`,
    or None."""
    obj = owner
    for field in target.split("."):
        obj = getattr(obj, field, None)
    return obj


def _quantized_class(path):
    """The class `torch.ao.nn.quantized.Linear` names, from its namespace
    or the one torch versions without it keep it in
    (_QUANTIZED_NAMESPACES), or None."""
    namespace, name = path.rsplit(".", 1)
    for home in (namespace, _QUANTIZED_NAMESPACES.get(namespace)):
        try:
            cls = getattr(importlib.import_module(home), name, None)
        except (ImportError, TypeError):
            continue
        if cls is not None:
            return cls
    return None


def _packed_function_module(gm, node):
    """The quantized module computing the call `node`
    (`torch.ops.quantized.conv2d(x, packed, scale, zero_point)`) with the
    packed weights and output qparams it reads, or None."""
    target = node.target
    name = getattr(target, "__name__", "")
    if getattr(target, "_overloadpacket", None) is not None:
        name = target._overloadpacket.__name__
    if not (isinstance(target, (torch._ops.OpOverloadPacket,
                                torch._ops.OpOverload))
            and str(target).startswith("quantized.")
            and name in _PACKED_FUNCTIONS and len(node.args) == 4
            and not node.kwargs):
        return None
    _, packed, scale, zero_point = node.args

    def value(arg):
        if isinstance(arg, torch.fx.Node):
            if arg.op != "get_attr":
                return None
            arg = _attribute(gm, arg.target)
        if isinstance(arg, torch.Tensor) and arg.numel() == 1:
            arg = arg.item()
        return arg if isinstance(arg, (int, float)) else None
    scale, zero_point = value(scale), value(zero_point)
    if not (isinstance(packed, torch.fx.Node) and packed.op == "get_attr"
            and scale is not None and zero_point is not None):
        return None
    params = _attribute(gm, packed.target)
    if not isinstance(params, torch.ScriptObject):
        return None
    class_path, unpack = _PACKED_FUNCTIONS[name]
    weight, bias = getattr(torch.ops.quantized, unpack)(params)
    cls = _quantized_class(class_path)
    if cls is None:
        return None
    if name.startswith("linear"):
        module = cls(weight.shape[1], weight.shape[0],
                     bias is not None, dtype=weight.dtype)
    else:
        dims = weight.dim() - 2
        ops = torch.ops.quantized
        groups = ops.conv2d_groups(params) if dims < 3 else \
            ops.conv3d_groups(params)

        def hyper(fn):
            # conv1d's packed weights are 2-D ones of height 1.
            return tuple(getattr(ops, f"conv{max(dims, 2)}d_{fn}")(
                params))[-dims:]
        if getattr(ops, f"conv{max(dims, 2)}d_transpose")(params):
            return None
        module = cls(weight.shape[1] * groups, weight.shape[0],
                     tuple(weight.shape[2:]), hyper("stride"),
                     hyper("padding"), hyper("dilation"), groups,
                     bias is not None)
    module.set_weight_bias(weight, bias)
    module.scale = float(scale)
    module.zero_point = int(zero_point)
    return module.eval()


def _modules_for_packed_functions(gm):
    """`gm`, or a GraphModule over its modules with each torch.ops.quantized
    linear or conv call on packed weights (_PACKED_FUNCTIONS) replaced by a
    call_module of the quantized module computing it: the same operator on
    the same packed weights, so the same outputs bit for bit, and the
    module form the importer represents (its weights unpacked as state,
    its scale and zero point as hyperparameters). The node keeps its name;
    the module is named after the packed weights' attribute."""
    modules = {}
    for node in gm.graph.nodes:
        if node.op == "call_function":
            module = _packed_function_module(gm, node)
            if module is not None:
                modules[node.name] = module
    if not modules:
        return gm
    graph = torch.fx.Graph()
    env = {}
    for node in gm.graph.nodes:
        env[node] = graph.node_copy(node, lambda n: env[n])
    with warnings.catch_warnings():
        # The packed weights' get_attrs (removed below) read no tensor.
        warnings.simplefilter("ignore", UserWarning)
        new = torch.fx.GraphModule(gm, graph, type(gm).__name__)
    taken = {name for name, _ in gm.named_children()}
    for node in list(graph.nodes):
        module = modules.get(node.name)
        if module is None:
            continue
        base = node.args[1].target.replace(".", "_").lstrip("_") + "_module"
        target, k = base, 1
        while target in taken or hasattr(new, target):
            target, k = f"{base}_{k}", k + 1
        taken.add(target)
        new.add_submodule(target, module)
        with graph.inserting_before(node):
            call = graph.call_module(target, (node.args[0],))
        call.meta = dict(node.meta)
        node.replace_all_uses_with(call)
        name = node.name
        graph.erase_node(node)
        call.name = name
    graph.eliminate_dead_code()
    graph.lint()
    new.recompile()
    return new


def _graph_lines(graph_name, graph, lines):
    """Appends the fx.graph `graph_name` of the torch.fx `graph` to
    `lines`."""
    lines.append(f"  fx.graph {_symbol(graph_name)} {{")
    # The placeholders first, as the fx dialect has them: convert_fx puts a
    # quantized input's scale and zero point get_attrs right after its
    # placeholder, before the next one. Placeholders read nothing, so the
    # graph computes the same (and exports with them first).
    nodes = ([n for n in graph.nodes if n.op == "placeholder"]
             + [n for n in graph.nodes if n.op != "placeholder"])
    for node in nodes:
        refs = []
        where = f"node '{node.name}' ({node.op} {node.target})"
        if node.op == "placeholder":
            default = (f" = {_value(node.args[0], refs, where)}"
                       if node.args else "")
            op = f"fx.placeholder {_mlir_str(node.target)}{default}"
            if node.meta.get("fx_mlir_buffer"):
                # A buffer the graph updates, read from the module at each
                # call: its shape does not follow a dynamic batch.
                op += (" {fx.buffer = "
                       f"{_mlir_str(node.meta['fx_mlir_buffer'])}}}")
        elif node.op == "get_attr":
            _check_attribute(graph.owning_module, node, where)
            op = f"fx.get_attr {_symbol(node.target)}"
        elif node.op == "output":
            op = f"fx.output {_value(node.args[0], refs, where)}"
            if node.name != "output":
                op += f" {{node_name = {_mlir_str(node.name)}}}"
            if refs:
                op += " : " + ", ".join(_node_type(r) for r in refs)
            lines.append("    " + op)
            continue
        else:
            if node.op == "call_function":
                target = _mlir_str(function_name(node.target))
            elif node.op == "call_method":
                target = _mlir_str(node.target)
            else:
                target = _symbol(node.target)
            op = (f"fx.{node.op} {target}"
                  f"{_call_args(node.args, node.kwargs, refs, where)}")
        if node.op.startswith("call_"):
            op += (" : (" + ", ".join(_node_type(r) for r in refs) + ") -> "
                   + _node_type(node))
        else:
            op += " : " + _node_type(node)
        path = _module_path(node)
        if path:
            op += f" loc({_mlir_str(node.name)}({_mlir_str(path)}))"
        lines.append(f"    %{node.name} = {op}")
    lines.append("  }")


def _same(a, b):
    """Whether two hyperparameter values are equal (tuples and lists
    alike, as a constructor takes them)."""
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:  # noqa: BLE001 - values that do not compare
        return False


def _graph_submodules(gm):
    """The GraphModule submodules of `gm` its graphs read with get_attr
    (the branches and bodies of control flow), by name, in the order the
    graphs first read them: each is a graph of the graph module."""
    found = {}
    pending = [gm]
    while pending:
        owner = pending.pop(0)
        for node in owner.graph.nodes:
            if node.op != "get_attr" or node.target in found or \
                    "." in node.target:
                continue
            sub = getattr(gm, node.target, None)
            if not isinstance(sub, torch.fx.GraphModule):
                sub = getattr(owner, node.target, None)
            if isinstance(sub, torch.fx.GraphModule) and sub is not gm:
                found[node.target] = sub
                pending.append(sub)
    # A module exported from IR lists its graphs in the IR's order.
    order = getattr(gm, "_fx_mlir_graph_order", None)
    if isinstance(order, (list, tuple)) and set(order) == set(found):
        found = {name: found[name] for name in order}
    return found


_QUANTIZED_EMBEDDINGS = (torch.ao.nn.quantized.Embedding,
                         torch.ao.nn.quantized.EmbeddingBag)


def _embeddings_inlined(gm, example_inputs):
    """`gm` with each call of a quantized Embedding or EmbeddingBag
    replaced by the float embedding (bag) of its table's rows as the engine
    computes them, a constant of the graph (reference.py's
    quantized_embedding_forward, as compile traces it; the TorchScript
    importer does the same with a traced one): no quant type holds their
    tables' float zero points. `gm` itself when it calls none."""
    if not any(isinstance(m, _QUANTIZED_EMBEDDINGS) for m in gm.modules()):
        return gm
    from .compiler import _inline_unbound_modules
    inlined = _inline_unbound_modules(
        gm, example_inputs,
        select=lambda m: isinstance(m, _QUANTIZED_EMBEDDINGS))
    for node in inlined.graph.nodes:
        if node.op == "call_module" and isinstance(
                inlined.get_submodule(node.target), _QUANTIZED_EMBEDDINGS):
            raise ImportError_(
                f"node '{node.name}' (module '{node.target}', "
                f"{module_type(inlined.get_submodule(node.target))}): its "
                f"call could not be traced into the float embedding of its "
                f"table")
    return inlined


@_serialized
def import_graph_module(gm, example_inputs=None, name=None, dynamic_batch=False,
                        blobs=None, batch_inputs=None):
    """Returns the fx dialect text of the GraphModule `gm`.

    The weights are `dense_resource` blobs in the text's resource section
    (hex); with `blobs`, a dict, they are put there instead (key -> the
    contiguous tensor holding the blob's bytes) and the text only names
    them: fx_mlir.compile hands them to the compiler as memory, which
    spares writing and parsing the hex of every weight.

    With `example_inputs` (a tuple of tensors) the nodes get the types
    torch.fx's ShapeProp computes; without, `!fx.any`. With
    `dynamic_batch`, dim 0 of the first `batch_inputs` inputs (all, when
    None) is the batch. Raises ImportError_
    naming the node when an arg holds something FX values do not cover.
    """
    if not isinstance(gm, torch.fx.GraphModule):
        raise TypeError(f"expected a torch.fx.GraphModule, got "
                        f"{type(gm).__name__}")
    global _DYNAMIC
    _DYNAMIC = {}
    gm = _embeddings_inlined(gm, example_inputs)
    gm = _modules_for_packed_functions(gm)
    if example_inputs is not None:
        if dynamic_batch:
            _DYNAMIC = _batch_dependent_dims(gm, example_inputs,
                                             batch_inputs)
        _propagate(gm, example_inputs)
    name = name or type(gm).__name__
    graph_modules = _graph_submodules(gm)

    def in_graph_module(path):
        head = path.split(".", 1)[0]
        return head in graph_modules
    lines = [f"fx.graph_module {_symbol(name)}"
             f"{' training' if gm.training else ''} {{"]
    resources = []
    first_name = {}
    # A quantized module's packed weight and bias are its parameters
    # `weight` and `bias` (rebuilt through set_weight_bias); the module
    # that packs them (Linear's `_packed_params`) is its own business.
    packed = {}
    for prefix, mod in gm.named_modules(remove_duplicate=False):
        try:
            weight_bias = _packed_weight_bias(mod)
        except RuntimeError as error:
            # The engine that packed them may not unpack them: PyTorch
            # 1.13's qnnpack runs a quantized Conv3d but cannot give its
            # weights back.
            raise ImportError_(
                f"module '{prefix}' ({module_type(mod)}): its packed weights "
                f"cannot be unpacked under the quantized engine "
                f"'{torch.backends.quantized.engine}' "
                f"({str(error).strip().splitlines()[0]}); quantize the model "
                f"under an engine that unpacks them (onednn, x86 or fbgemm)"
            ) from error
        if weight_bias is not None and prefix:
            packed[prefix] = dict(zip(("weight", "bias"), weight_bias))
        elif prefix and _is_dynamic_rnn(mod):
            packed[prefix] = _dynamic_rnn_state(mod)

    def inside_packed(path):
        return any(path == f"{p}.{holder}" or path.startswith(f"{p}.{holder}.")
                   for p in packed
                   for holder in ("_packed_params", "_all_weight_values"))
    for prefix, mod in gm.named_modules(remove_duplicate=False):
        if in_graph_module(prefix) or inside_packed(prefix):
            continue
        tables = [("parameter", packed.get(prefix, mod._parameters)),
                  ("buffer", {} if prefix in packed else mod._buffers)]
        for kind, table in tables:
            for field, t in table.items():
                if t is None:
                    continue
                qual = f"{prefix}.{field}" if prefix else field
                head = (f"  fx.state {kind} {_symbol(qual)} : "
                        f"{_state_type(t, repr(qual))} = ")
                if id(t) in first_name:
                    if first_name[id(t)] != qual:
                        lines.append(head + _symbol(first_name[id(t)]))
                    continue
                first_name[id(t)] = qual
                # A frozen parameter (`requires_grad=False`, a float one
                # trains by default) says so: the export keeps it frozen.
                # (A quantized module's unpacked weight and bias are not
                # its parameters.)
                frozen = (" {requires_grad = false}"
                          if kind == "parameter" and prefix not in packed
                          and not t.requires_grad
                          and (t.is_floating_point() or t.is_complex())
                          else "")
                lines.append(head + _state_value(qual, t, resources, blobs)
                             + frozen)
    # Plain tensor attributes of called modules: a weight
    # torch.nn.utils.weight_norm computes (from weight_g and weight_v, by a
    # hook that has run) is the module's `weight` for its call.
    called_paths = {node.target for _, g in [("forward", gm)] +
                    list(graph_modules.items()) for node in g.graph.nodes
                    if node.op == "call_module"}
    for path in sorted(called_paths):
        try:
            mod = gm.get_submodule(path)
        except AttributeError:
            continue
        for field, t in vars(mod).items():
            if (isinstance(t, torch.Tensor) and field not in mod._parameters
                    and field not in mod._buffers
                    and id(t) not in first_name
                    and not isinstance(t, torch.nn.Parameter)):
                qual = f"{path}.{field}"
                first_name[id(t)] = qual
                lines.append(f"  fx.state constant {_symbol(qual)} : "
                             f"{_state_type(t, repr(qual))} = "
                             + _state_value(qual, t, resources, blobs))
    # Plain tensor attributes read by get_attr (`_tensor_constant0`).
    aliased = set()
    for node in [n for _, g in [("forward", gm)] + list(graph_modules.items())
                 for n in g.graph.nodes]:
        if node.op != "get_attr" or node.target in graph_modules:
            continue
        owner, _, field = node.target.rpartition(".")
        obj = gm.get_submodule(owner) if owner else gm
        t = getattr(obj, field, None)
        if (not isinstance(t, torch.Tensor) or field in obj._parameters
                or field in obj._buffers or node.target in aliased):
            continue
        head = (f"  fx.state constant {_symbol(node.target)} : "
                f"{_state_type(t, node.name)} = ")
        if id(t) not in first_name:
            first_name[id(t)] = node.target
            lines.append(head + _state_value(node.target, t, resources,
                                             blobs))
        elif first_name[id(t)] != node.target:
            # The same tensor under a second name (a quantized embedding
            # called twice, its rows inlined at each call): an alias.
            aliased.add(node.target)
            lines.append(head + _symbol(first_name[id(t)]))
    seen_modules = set()
    # Paths call_module nodes name: a GraphModule made by a transform
    # (fuse_fx) may call a shared module by a later path than
    # named_modules' first (resnet's block ReLU, also inside the fused
    # ConvReLU2d).
    called = {node.target for g in [gm.graph] + [
        m.graph for m in graph_modules.values()] for node in g.nodes
        if node.op == "call_module"}
    for path, mod in gm.named_modules(remove_duplicate=False):
        # A module shared by paths is declared once, at its first path
        # outside the graphs of control flow, and at each other path a
        # node calls it by.
        if in_graph_module(path) or inside_packed(path) or \
                (id(mod) in seen_modules and path not in called):
            continue
        seen_modules.add(id(mod))
        if path and path in called and isinstance(mod, torch.fx.GraphModule):
            raise FxMlirError(
                f"cannot import call_module of submodule '{path}': it is a "
                "torch.fx.GraphModule (a partition of torch.fx.passes."
                "split_module), which the fx dialect holds only inlined "
                "into the graph that calls it (fx_mlir.compile inlines it)")
        if path:
            hp = hyperparameters(mod)
            # A module rebuilt from IR keeps the IR's spelling of its
            # hyperparameters, while they still hold.
            spelled = getattr(mod, "_fx_mlir_hparams", None)
            if isinstance(spelled, dict) and all(
                    _same(spelled[k], hp[k]) for k in spelled.keys() & hp):
                hp = spelled
            lines.append(f"  fx.submodule {_symbol(path)} "
                         f"{_mlir_str(module_type(mod))}"
                         f"{_call_args((), hp, [], repr(path))}"
                         + (" training" if mod.training else ""))
    for graph_name, graph in [("forward", gm.graph)] + [
            (n, m.graph) for n, m in graph_modules.items()]:
        _graph_lines(graph_name, graph, lines)
    lines.append("}")
    if not resources:
        return "\n".join(lines) + "\n"
    # The blobs (most of the text for a real model) are copied once, by
    # the final join.
    lines += ["", "{-#", "  dialect_resources: {", "    builtin: {", ""]
    pieces = ["\n".join(lines)]
    for i, (key, hexdata) in enumerate(resources):
        pieces += [",\n" if i else "", f"      {_name_or_str(key)}: \"0x",
                   hexdata, "\""]
    pieces.append("\n    }\n  }\n#-}\n")
    return "".join(pieces)
