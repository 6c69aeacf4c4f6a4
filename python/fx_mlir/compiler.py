"""fx_mlir.compile: a torch.fx graph compiled through MLIR to CPU code.

    >>> run = fx_mlir.compile(model, (x,))
    >>> y = run(x)            # torch.Tensor in, torch.Tensor out

The model is traced with torch.fx (unless it already is a GraphModule),
imported with the example inputs' types, normalized, lowered to linalg and
LLVM and JIT-compiled in this process by the C++ runtime
(`_fx_runtime.so`, built with the project). Inputs are handed to the code
by pointer, without copies; outputs are tensors that own the buffers the
code allocated.
"""

import ast
import contextlib
import dis
import functools
import importlib.machinery
import importlib.util
import inspect
import json
import operator
import os
import re
import sys
import threading
import types
import warnings

import torch
import torch.fx
from torch.fx import _symbolic_trace

from . import (FxMlirError, _INSTALLED, _PACKAGE_DIR, _REPO_ROOT,
               _serialized)
from .fallback import compile_with_fallback, unsupported_node_names
from .functionalize import (functionalize, updates_in_place,
                            _INPLACE_OPERATORS)
from .exporter import export_graph_module
from .importer import _unshared, import_graph_module, module_type
from .specialize import SpecializedGraph, bind_numbers, is_number
from .reference import REFERENCE_FUNCTIONS, reference_forward
from .scripting import (ScriptedRouteWarning, grown_batch,
                        import_torchscript, script)



def _native_path(name):
    """The path of the package's native file `name` (`_fx_runtime.so`):
    in $FX_MLIR_BUILD_DIR/python/fx_mlir, the package's own directory when
    installed, else the repository's build tree; None if there is none."""
    dirs = []
    if os.environ.get("FX_MLIR_BUILD_DIR"):
        dirs.append(os.path.join(os.environ["FX_MLIR_BUILD_DIR"], "python",
                                 "fx_mlir"))
    dirs.append(_PACKAGE_DIR if _INSTALLED
                else os.path.join(_REPO_ROOT, "build", "python", "fx_mlir"))
    for d in dirs:
        path = os.path.join(d, name)
        if os.path.exists(path):
            return path
    return None


_extensions = {}
# Loading runs the extension's init, which must run once: threads that
# compile at once (a cache miss loads the compiler) wait for each other.
_extensions_lock = threading.Lock()


def _load_extension(name):
    """The extension module fx_mlir.`name`, loaded from _native_path."""
    if name in _extensions:
        return _extensions[name]
    with _extensions_lock:
        if name not in _extensions:
            _extensions[name] = _load_extension_file(name)
    return _extensions[name]


def _load_extension_file(name):
    """Loads and initializes the extension fx_mlir.`name` (once: see
    _load_extension)."""
    path = _native_path(name + ".so")
    if path is None:
        raise FxMlirError(f"cannot find {name}.so; build the project "
                          "(scripts/setup.sh) or set FX_MLIR_BUILD_DIR")
    loader = importlib.machinery.ExtensionFileLoader(f"fx_mlir.{name}", path)
    spec = importlib.util.spec_from_file_location(f"fx_mlir.{name}", path,
                                                  loader=loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def _load_runtime():
    """The `_fx_runtime` extension: the compiler (it maps LLVM and MLIR)."""
    return _load_extension("_fx_runtime")


def _load_core():
    """The `_fx_core` extension: the runtime core, which loads cached and
    ahead-of-time code and gives the importer's tables without LLVM."""
    return _load_extension("_fx_core")


class _Constant:
    """A Python value the graph returns as it is (`x.size(0)` with the
    sizes fixed): not one of the compiled code's results."""

    def __init__(self, value):
        self.value = value


class _Number:
    """Result `index`, a 0-d tensor of a number the graph computes (a size
    of a dynamic dim, int(t)): returned as the Python number."""

    def __init__(self, index):
        self.index = index


def _quantization_params(spec):
    """(per_channel, params) of a quantization's JSON object
    (quantizationObject in lib/Runtime/OutputStructure.cpp, the signature's
    TensorSpec::quantization): params (axis, scales, zero points) per
    channel, else (scale, zero point)."""
    if "axis" in spec:
        return True, (spec["axis"], [float(s) for s in spec["scales"]],
                      [int(z) for z in spec["zero_points"]])
    return False, (float(spec["scale"]), int(spec["zero_point"]))


class _Quantized:
    """Result `index`, the storage integers of a quantized tensor (uint8
    for quint8, int8 for qint8, int32 for qint32): returned as the
    quantized tensor of those integers and the output's quantization
    parameters (per tensor, or per channel along `axis`)."""

    def __init__(self, leaf):
        self.index = leaf["quantized"]
        self.per_channel, self.params = _quantization_params(leaf)

    def wrap(self, storage):
        if self.per_channel:
            axis, scales, zero_points = self.params
            return torch._make_per_channel_quantized_tensor(
                storage, torch.tensor(scales, dtype=torch.double),
                torch.tensor(zero_points, dtype=torch.long), axis)
        return torch._make_per_tensor_quantized_tensor(storage, *self.params)


class _QParams:
    """The quantization of an example input: what a call's tensor must have
    (dtype, scheme, scales and zero points) to be passed as its integers."""

    def __init__(self, t):
        self.dtype = t.dtype
        self.per_channel = t.qscheme() in (torch.per_channel_affine,
                                           torch.per_channel_symmetric)
        if self.per_channel:
            self.params = (t.q_per_channel_axis(),
                           t.q_per_channel_scales().tolist(),
                           t.q_per_channel_zero_points().tolist())
        else:
            self.params = (t.q_scale(), t.q_zero_point())

    @classmethod
    def from_json(cls, text):
        """The quantization a library's signature holds for an input
        (TensorSpec::quantization: dtype, then scale and zero point, or
        axis, scales and zero points)."""
        spec = json.loads(text)
        self = cls.__new__(cls)
        self.dtype = getattr(torch, spec["dtype"])
        self.per_channel, self.params = _quantization_params(spec)
        return self

    def describe(self):
        if self.per_channel:
            return f"{self.dtype} per channel along dim {self.params[0]}"
        return (f"{self.dtype} of scale {self.params[0]!r} and zero point "
                f"{self.params[1]}")

    def storage(self, t, index):
        """`t`'s integers, if `t` is quantized as the example was."""
        if isinstance(t, torch.Tensor) and t.is_quantized and \
                _QParams(t).__dict__ == self.__dict__:
            return t.int_repr()
        got = (_QParams(t).describe() if isinstance(t, torch.Tensor)
               and t.is_quantized else
               f"{t.dtype}" if isinstance(t, torch.Tensor)
               else type(t).__name__)
        raise FxMlirError(f"input {index}: the graph was compiled for a "
                          f"quantized tensor, {self.describe()}; got {got}")


def _signature_quantized_inputs(graph):
    """The quantized inputs a loaded library's signature names (index ->
    _QParams)."""
    return {i: _QParams.from_json(text)
            for i, text in enumerate(getattr(graph, "input_quantization", ()))
            if text}


def _quantized_inputs(example_inputs):
    return {i: _QParams(t) for i, t in enumerate(example_inputs)
            if isinstance(t, torch.Tensor) and t.is_quantized}


def _parse_structure(text):
    """The fx.output structure, as the runtime gives it (JSON: the output
    node's args, node references as result indices, `{"tuple": [...]}`,
    `{"list": [...]}`, `{"dict": [[key, value], ...]}`), as nested Python
    tuples/lists/dicts of result indices; None stands for None, and a
    number, bool or string the graph returns as is (`{"value": 3}`,
    `{"float": "10"}`, `{"complex": ["1", "-2"]}`) for itself (a
    _Constant), `{"number": i}` for result i, a 0-d tensor of a number
    the graph computes (a _Number), and `{"quantized": i, ...}` for result
    i, a quantized tensor's integers with its parameters (a _Quantized)."""
    def value(v):
        if v is None or isinstance(v, int):
            return v
        if isinstance(v, dict) and "number" in v:
            return _Number(v["number"])
        if isinstance(v, dict) and "quantized" in v:
            return _Quantized(v)
        if isinstance(v, dict) and "value" in v:
            return _Constant(v["value"])
        if isinstance(v, dict) and "float" in v:
            return _Constant(float(v["float"]))
        if isinstance(v, dict) and "complex" in v:
            return _Constant(complex(*map(float, v["complex"])))
        if isinstance(v, list):
            return [value(x) for x in v]
        if isinstance(v, dict) and "tuple" in v:
            return tuple(value(x) for x in v["tuple"])
        if isinstance(v, dict) and "list" in v:
            return [value(x) for x in v["list"]]
        if isinstance(v, dict) and "dict" in v:
            return {k: value(x) for k, x in v["dict"]}
        shown = v.get("unsupported", v) if isinstance(v, dict) else v
        raise FxMlirError(f"unsupported output structure {shown!r}")

    try:
        top = value(json.loads(text))
    except (ValueError, TypeError) as error:
        raise FxMlirError(f"unsupported output structure {text!r}") from error
    return top[0] if isinstance(top, list) and len(top) == 1 else top


def _rebuild(structure, results):
    if isinstance(structure, int):
        return results[structure]
    if isinstance(structure, _Constant):
        return structure.value
    if isinstance(structure, _Number):
        return results[structure.index].item()
    if isinstance(structure, _Quantized):
        return structure.wrap(results[structure.index])
    if structure is None:
        return None
    if isinstance(structure, dict):
        return {k: _rebuild(v, results) for k, v in structure.items()}
    items = [_rebuild(s, results) for s in structure]
    return tuple(items) if isinstance(structure, tuple) else items


def _reference_forward(module):
    return reference_forward(module)


class ModulePathTracer(torch.fx.Tracer):
    """torch.fx's tracer, recording in each node's meta the qualified path
    of the module whose forward created it, so diagnostics can name it.

    It also traces what symbolic_trace cannot: a proxy of a tuple or list
    that is unpacked or passed to len() (`n, c, h, w = x.size()`,
    `a, b = x.chunk(2, 1)`, `y, _ = self.attention(x, x, x)`) gets its
    length from the value the node takes on the example inputs, computed
    on demand (only the nodes it depends on run, in eager PyTorch, without
    autograd). The graph stays general in the values: only the number of
    items is fixed, which the compiled code's shapes fix anyway. Without
    example inputs, unpacking takes the count of the targets, as
    symbolic_trace means to (its own check fails on Python 3.11).

    A torch.nn module is kept as one call_module node when the compiler
    knows its type (a module alias of the target registry, or one that
    fx-normalize expands); any other is traced into when its forward
    traces on its own (nn.GroupNorm becomes its F.group_norm call, nn.Mish
    its F.mish), and kept as a call the compiler then reports otherwise.
    Without the runtime, torch.fx's default applies (every torch.nn module
    is a leaf). Likewise a Python function of torch.nn.functional the
    compiler does not bind is traced into (create_proxy), and `x.dim()`
    and `x.ndim` are the example input's rank (_ExampleSized), which the
    compiled types fix.

    Buffers are read through get_attr nodes, as parameters are
    (proxy_buffer_attributes): torch.fx's default reads a buffer as its
    tensor while tracing, so `self.cache[:, 1:] = ...` ran on the model's
    buffer then and `self.b * 2` became a constant of its value at trace
    time; an update of a buffer (`self.b[0].add_(x)`) is then the graph's,
    made functional as any other (the module's buffer is not changed)."""

    proxy_buffer_attributes = True

    def __init__(self, example_inputs=None, static_shapes=False):
        super().__init__()
        self._static_shapes = static_shapes and example_inputs is not None
        self._paths = []
        self._examples = example_inputs
        self._values = {}
        self._known = _known_module_types()
        self._known_functions = _known_function_names()
        self._traceable = {}
        self._binding = {}
        self._inlined_results = []
        self._inlined_tuples = []

    def trace(self, root, concrete_args=None):
        graph = super().trace(root, concrete_args)
        for node in self._inlined_tuples:
            _unpack_inlined_tuple(node)
        # The mark as it was before the patch set it (a body may return
        # its input, itself the result of a call kept wrapped).
        for node, wrapped in self._inlined_results:
            if wrapped:
                node.meta["is_wrapped"] = True
            else:
                node.meta.pop("is_wrapped", None)
        return graph

    def is_leaf_module(self, m, qualified_name):
        if not super().is_leaf_module(m, qualified_name):
            return False
        if self._known is not None and _reference_forward(m) is not None:
            return False
        # torch's quantized modules (eager mode's quantize_dynamic and
        # convert) stay whole, as in a convert_fx graph: fx-normalize
        # expands them; traced into, one reads its packed weights, a
        # TorchScript object.
        if module_type(m).startswith(("torch.ao.nn.quantized.",
                                      "torch.ao.nn.intrinsic.quantized.")):
            return True
        # A conv padding by reflection, replication or wrapping (the
        # registry binds zero padding) is traced into: F.pad, then the conv.
        if (isinstance(m, torch.nn.modules.conv._ConvNd)
                and getattr(m, "padding_mode", "zeros") != "zeros"):
            return False
        if self._known is None or module_type(m) in self._known:
            if self._known is None or self._binds(m):
                return True
            # Bound by type only (nn.BatchNorm1d with momentum=None): traced
            # into, its checks of the input's rank decided by the example
            # values.
            if self._examples is not None:
                return False
        if id(m) not in self._traceable:
            try:
                torch.fx.Tracer().trace(m)
                self._traceable[id(m)] = True
            except Exception:  # noqa: BLE001 - any failure: keep it whole
                self._traceable[id(m)] = False
        return not self._traceable[id(m)]

    def _binds(self, m):
        """_module_binds of `m`, once per module. Reading its
        hyperparameters while tracing makes get_attr nodes of the
        parameters it reads (torch.fx patches Module.__getattr__): those
        nothing uses go."""
        if id(m) not in self._binding:
            graph = getattr(self, "graph", None)
            before = set(graph.nodes) if graph is not None else set()
            self._binding[id(m)] = _module_binds(m)
            if graph is not None:
                for node in [n for n in graph.nodes if n not in before]:
                    if node.op == "get_attr" and not node.users:
                        graph.erase_node(node)
        return self._binding[id(m)]

    def call_module(self, m, forward, args, kwargs):
        reference = _reference_forward(m)
        if reference is not None and not self.is_leaf_module(
                m, self.path_of_module(m)):
            def forward(*args, **kwargs):  # noqa: F811 - traced instead
                if getattr(reference, "takes_tracer", False):
                    kwargs["tracer"] = self
                return reference(m, *args, **kwargs)
        self._paths.append(self.path_of_module(m))
        try:
            return super().call_module(m, forward, args, kwargs)
        finally:
            self._paths.pop()

    def create_node(self, *args, **kwargs):
        node = super().create_node(*args, **kwargs)
        if self._paths and self._paths[-1]:
            node.meta["fx_mlir_module_path"] = self._paths[-1]
        return node

    def proxy(self, node):
        return _SizedProxy(node, self)

    def create_proxy(self, kind, target, args, kwargs, *rest, **options):
        # A Python function of torch.nn.functional the compiler does not
        # bind (F.softsign, F.normalize, F.lp_pool2d) is traced into: its
        # body runs on the proxies instead of recording one call; when the
        # body does not trace, its nodes are removed and the call stays.
        # x.new_tensor(data) of constant data is a constant of x's dtype.
        if (kind == "call_method" and target == "new_tensor" and args
                and isinstance(args[0], torch.fx.Proxy)
                and not _holds_proxy((args[1:], kwargs))):
            example = self._example_value(args[0].node)
            if isinstance(example, torch.Tensor):
                options = {"dtype": example.dtype, **kwargs}
                options.pop("device", None)
                options.pop("requires_grad", None)
                return torch.tensor(*args[1:], **options)
        # torch.is_floating_point(x), torch.is_complex(x): fixed by the
        # compiled types, as x.dtype is (torch.masked branches on them).
        if (kind == "call_function" and target in (
                torch.is_floating_point, torch.is_complex)
                and len(args) == 1 and not kwargs
                and isinstance(args[0], torch.fx.Proxy)):
            example = self._example_value(args[0].node)
            if isinstance(example, torch.Tensor):
                return target(example)
        if kind == "call_function" and target in REFERENCE_FUNCTIONS:
            last = self.graph._root.prev
            try:
                return REFERENCE_FUNCTIONS[target](*args, **kwargs)
            except Exception:  # noqa: BLE001 - keep the call as it was
                while self.graph._root.prev is not last:
                    self.graph.erase_node(self.graph._root.prev)
        if kind == "call_function" and self._inlinable(target):
            last = self.graph._root.prev
            try:
                return _inlined(target)(*args, **kwargs)
            except Exception:  # noqa: BLE001 - keep the call as it was
                while self.graph._root.prev is not last:
                    self.graph.erase_node(self.graph._root.prev)
        # A function torch.fx.wrap keeps as one call (torchvision's
        # shifted_window_attention), outside torch and fx_mlir and not bound
        # by the compiler, is traced into when sizes are the example's
        # numbers: its body's control flow on shapes then runs in Python.
        # When the body does not trace, the call stays (the compiler names
        # it, or fallback runs it).
        # torch.fx.wrap's patch marks what this returns `is_wrapped`, which
        # would make the GraphModule's code wrap() the name of the body's
        # last op (`torch.cat`) for every later trace: trace() clears it.
        # A body that returns other than one tensor is not inlined (the
        # patch reads the result's node).
        if kind == "call_function" and self._wrapped_unknown(target):
            last = self.graph._root.prev
            try:
                result = target(*args, **kwargs)
                if isinstance(result, tuple) and _holds_proxy(result):
                    # A tuple (torchvision's mvit: `x, dim =
                    # _unsqueeze(x, 4, 1)`): one node of its items, which
                    # trace() replaces by the items where it is unpacked.
                    result = super().create_proxy(
                        "call_function", _inlined_tuple, result, {})
                    self._inlined_tuples.append(result.node)
                if isinstance(result, torch.fx.Proxy):
                    self._inlined_results.append(
                        (result.node, result.node.meta.get("is_wrapped",
                                                           False)))
                    return result
            except Exception:  # noqa: BLE001 - keep the call as it was
                pass
            while self.graph._root.prev is not last:
                self.graph.erase_node(self.graph._root.prev)
        return super().create_proxy(kind, target, args, kwargs, *rest,
                                    **options)

    def _wrapped_unknown(self, fn):
        return self._static_shapes and _wrapped_unknown(fn,
                                                        self._known_functions)

    def _inlinable(self, fn):
        if (self._known_functions is None or not inspect.isfunction(fn)
                or fn.__module__ != "torch.nn.functional"):
            return False
        return f"torch.nn.functional.{fn.__name__}" not in self._known_functions

    def iter(self, obj):
        value = self._example_value(obj.node)
        if isinstance(value, (tuple, list)):
            return iter([obj[i] for i in range(len(value))])
        return super().iter(obj)

    def _example_value(self, node):
        """The value of `node` on the example inputs; None when there are
        none or it cannot be computed."""
        if self._examples is None:
            return None
        if node in self._values:
            return self._values[node]
        value = None
        try:
            value = self._compute(node)
        except Exception:  # the caller raises torch.fx's own error
            value = None
        if isinstance(value, torch.fx.Proxy):
            value = None
        self._values[node] = value
        return value

    def _compute(self, node):
        if node.op == "placeholder":
            index = [n for n in node.graph.nodes
                     if n.op == "placeholder"].index(node)
            return self._examples[index]
        if node.op == "get_attr":
            value = self.root
            with _eager_modules():  # the tensors, not the tracer's proxies
                for atom in node.target.split("."):
                    value = getattr(value, atom)
            return value
        missing = []

        def value_of(n):
            v = self._example_value(n)
            if v is None:
                missing.append(n)
            return v

        args = torch.fx.node.map_arg(node.args, value_of)
        kwargs = torch.fx.node.map_arg(node.kwargs, value_of)
        if missing:
            return None
        with torch.no_grad(), _eager_modules():
            if node.op == "call_function":
                return node.target(*args, **kwargs)
            if node.op == "call_method":
                return getattr(args[0], node.target)(*args[1:], **kwargs)
            if node.op == "call_module":
                return self.root.get_submodule(node.target)(*args, **kwargs)
        return None


@functools.lru_cache(maxsize=None)
def _names():
    """The registry's names the tracer reads (`_names.json`, which the build
    generates from the registry with `fx-targets --names-json`), or None
    without a build."""
    path = _native_path("_names.json")
    if path is None:
        return None
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def _registry_names(kind, expanded):
    """The names of the registry's aliases of `kind` ("module_types",
    "function_names") and those fx-normalize expands itself (`expanded`:
    "expanded_module_types", "expanded_functions"); None without a
    build."""
    names = _names()
    if names is None or kind not in names or expanded not in names:
        return None
    return frozenset(names[kind]) | frozenset(names[expanded])


def _known_module_types():
    """The torch.nn module types the compiler binds as calls."""
    return _registry_names("module_types", "expanded_module_types")


def _module_binds(module):
    """Whether the compiler binds `module` with its hyperparameters, not
    only its type: a type fx-normalize expands, or a module alias whose
    requirements on them hold and whose hyperparameters are recorded, None
    only where the schema allows it (`module_requirements` of _names.json;
    the TorchScript importer's compilesModule decides the same).
    nn.KLDivLoss reducing by 'batchmean', nn.Embedding with max_norm and
    nn.BatchNorm1d with momentum=None are not bound: traced into. True
    when the build does not say."""
    names = _names()
    kind = module_type(module)
    if (names is None or "module_requirements" not in names
            or kind in names.get("expanded_module_types", ())):
        return True
    aliases = names["module_requirements"].get(kind)
    if not aliases:
        return True
    from .importer import hyperparameters
    hp = hyperparameters(module)

    def same(value, literal):
        try:
            expected = ast.literal_eval(literal)
        except (ValueError, SyntaxError):
            return True  # a literal Python does not spell: the call decides
        if isinstance(value, tuple):
            value = list(value)
        if isinstance(expected, tuple):
            expected = list(expected)
        return type(value) is type(expected) and value == expected

    return any(
        all(key in hp and same(hp[key], literal)
            for key, literal in alias["requires"].items())
        and all(key in hp for key in alias["binds"])
        and all(hp[key] is not None for key in alias["not_none"])
        for alias in aliases)


def _inlined_tuple(*items):
    """The tuple a function traced into returned (ModulePathTracer);
    replaced by its items where it is unpacked."""
    return items


def _unpack_inlined_tuple(node):
    """Replaces each `node[i]` (an _inlined_tuple node) by item i, a
    node or a constant; `node` goes once nothing else reads it."""
    for user in list(node.users):
        if not (user.op == "call_function" and user.target is operator.getitem
                and isinstance(user.args[1], int) and not user.kwargs
                and -len(node.args) <= user.args[1] < len(node.args)):
            continue
        item = node.args[user.args[1]]
        if isinstance(item, torch.fx.Node):
            user.replace_all_uses_with(item)
        else:
            for reader in list(user.users):
                def swap(a, user=user, item=item):
                    return item if a is user else a
                reader.args = torch.fx.node.map_aggregate(reader.args, swap)
                reader.kwargs = torch.fx.node.map_aggregate(reader.kwargs,
                                                            swap)
        if not user.users:
            node.graph.erase_node(user)
    if not node.users:
        node.graph.erase_node(node)


def _wrapped_unknown(fn, known_functions):
    """Whether `fn` is a Python function outside torch and fx_mlir (one
    torch.fx.wrap keeps as a call) that the compiler does not bind."""
    if known_functions is None or not inspect.isfunction(fn):
        return False
    # Its name as the registry spells targets (function_name would resolve
    # it, and finds the tracer's patch of it while tracing).
    module = getattr(fn, "__module__", None) or ""
    if module.split(".")[0] in ("torch", "fx_mlir"):
        return False
    return f"{module}.{fn.__qualname__}" not in known_functions


def _known_function_names():
    """The call_function targets the compiler binds."""
    return _registry_names("function_names", "expanded_functions")


_INLINED = {}


def _no_torch_function(*args, **kwargs):
    return False


def _inlined(fn):
    """`fn` with its `has_torch_function*` checks answering no: called on
    proxies, it runs its body (recording the ops it calls) instead of
    handing itself to the proxies' __torch_function__ as one call."""
    if fn not in _INLINED:
        scope = dict(fn.__globals__)
        for name in ("has_torch_function", "has_torch_function_unary",
                     "has_torch_function_variadic"):
            scope[name] = _no_torch_function
        copy = types.FunctionType(fn.__code__, scope, fn.__name__,
                                  fn.__defaults__, fn.__closure__)
        copy.__kwdefaults__ = fn.__kwdefaults__
        _INLINED[fn] = copy
    return _INLINED[fn]


@contextlib.contextmanager
def _eager_modules():
    """nn.Module's own __call__ and __getattr__, in place of those the
    tracer patches in while it traces (which turn parameters and module
    calls into proxies)."""
    patched = torch.nn.Module.__call__, torch.nn.Module.__getattr__
    torch.nn.Module.__call__ = _symbolic_trace._orig_module_call
    torch.nn.Module.__getattr__ = _symbolic_trace._orig_module_getattr
    try:
        yield
    finally:
        torch.nn.Module.__call__, torch.nn.Module.__getattr__ = patched


class _ExampleSized:
    """What ModulePathTracer's proxies add to torch.fx's: unpacking and
    len() of a tuple or list by its example value, and unpacking by the
    count of the caller's targets when there is none."""

    def __getattr__(self, k):
        # The rank is fixed by the compiled types (a dynamic batch changes
        # sizes, never the rank): `x.dim()` and `x.ndim` are the example
        # value's, so code branching on them traces.
        if k in ("dim", "ndim"):
            value = self.tracer._example_value(self.node)
            if isinstance(value, torch.Tensor):
                rank = value.dim()
                return rank if k == "ndim" else (lambda: rank)
        # With static shapes (compile without a dynamic batch) the sizes
        # are the example value's, Python ints: code that computes with
        # them (`torch.arange(x.shape[1])`, `float(x.size(-1))`,
        # `range(x.size(0))`) traces, and the graph holds the numbers.
        # The dtype, device and layout are fixed by the compiled types too
        # (torch.masked's functions branch on `input.layout`).
        if k in ("dtype", "device", "is_floating_point", "is_complex",
                 "layout", "is_sparse", "is_sparse_csr", "is_quantized",
                 "is_cuda", "is_mkldnn", "is_meta"):
            value = self.tracer._example_value(self.node)
            if isinstance(value, torch.Tensor):
                return getattr(value, k)
        # A tensor's parts (`x.real`, `x.imag`): recorded as torch.real
        # and torch.imag calls, not as getattr nodes.
        if k in ("real", "imag"):
            value = self.tracer._example_value(self.node)
            if isinstance(value, torch.Tensor):
                return self.tracer.create_proxy(
                    "call_function", getattr(torch, k), (self,), {})
        if k in ("shape", "size", "numel") and self.tracer._static_shapes:
            value = self.tracer._example_value(self.node)
            if isinstance(value, torch.Tensor):
                if k == "shape":
                    return value.shape
                return value.size if k == "size" else value.numel
        return _SizedAttribute(self, k)

    # `x += y` updates the tensor x in place (Tensor.__iadd__), which
    # torch.fx 1.13's proxies record as `x = x + y`: the caller's tensor
    # would keep its value. A tensor's in-place operator is recorded as
    # operator.iadd (...), which functionalize makes out-of-place and an
    # update of x; a number's (`n += 1` of a size) stays `n = n + 1`.
    def _inplace(self, other, inplace, plain):
        if isinstance(self.tracer._example_value(self.node), torch.Tensor):
            return self.tracer.create_proxy("call_function", inplace,
                                            (self, other), {})
        return plain(self, other)

    def __iadd__(self, other):
        return self._inplace(other, operator.iadd, operator.add)

    def __isub__(self, other):
        return self._inplace(other, operator.isub, operator.sub)

    def __imul__(self, other):
        return self._inplace(other, operator.imul, operator.mul)

    def __itruediv__(self, other):
        return self._inplace(other, operator.itruediv, operator.truediv)

    def __ifloordiv__(self, other):
        return self._inplace(other, operator.ifloordiv, operator.floordiv)

    def __imod__(self, other):
        return self._inplace(other, operator.imod, operator.mod)

    def __ipow__(self, other):
        return self._inplace(other, operator.ipow, operator.pow)

    def __iand__(self, other):
        return self._inplace(other, operator.iand, operator.and_)

    def __ior__(self, other):
        return self._inplace(other, operator.ior, operator.or_)

    def __ixor__(self, other):
        return self._inplace(other, operator.ixor, operator.xor)

    def __ilshift__(self, other):
        return self._inplace(other, operator.ilshift, operator.lshift)

    def __irshift__(self, other):
        return self._inplace(other, operator.irshift, operator.rshift)

    def __setitem__(self, key, value):
        # `x[index] = value`: recorded as operator.setitem (what later
        # torch.fx records), which functionalize makes out-of-place.
        self.tracer.create_proxy("call_function", operator.setitem,
                                 (self, key, value), {})

    def __len__(self):
        value = self.tracer._example_value(self.node)
        if isinstance(value, (tuple, list)):
            return len(value)
        # len() of a tensor is its first size: a number with static shapes.
        if (isinstance(value, torch.Tensor) and value.dim() > 0
                and self.tracer._static_shapes):
            return len(value)
        return super().__len__()

    def __iter__(self):
        # A tuple a function traced into returned: its items themselves
        # (a number stays a number, for the code after it to branch on).
        if self.node.target is _inlined_tuple:
            return iter([self.tracer.proxy(a) if isinstance(a, torch.fx.Node)
                         else a for a in self.node.args])
        value = self.tracer._example_value(self.node)
        if isinstance(value, (tuple, list)):
            return iter([self[i] for i in range(len(value))])
        # `a, b = proxy`: the count is the caller's UNPACK_SEQUENCE's.
        # torch 1.13 looks for it at index f_lasti // 2, which Python
        # 3.11's inline caches break.
        frame = inspect.currentframe().f_back
        for inst in dis.get_instructions(frame.f_code):
            if inst.offset == frame.f_lasti:
                if inst.opname == "UNPACK_SEQUENCE":
                    return iter([self[i] for i in range(inst.argval)])
                break
        return self.tracer.iter(self)


class _SizedProxy(_ExampleSized, torch.fx.Proxy):
    pass


class _SizedAttribute(_ExampleSized, torch.fx.proxy.Attribute):
    pass


def _trace_for_compile(model, example_inputs, dynamic_batch,
                       specialize_numbers=False):
    """trace() as compile() uses it: static shapes unless the batch is
    dynamic, and torch.fx's own failures (a Proxy where a value is needed:
    torch.tensor(x.size(0)), data-dependent control flow) as one
    FxMlirError for the user to see, not a crash in our stack."""
    try:
        return trace(model, example_inputs, static_shapes=not dynamic_batch,
                     specialize_numbers=specialize_numbers)
    except FxMlirError:
        raise
    except Exception as error:
        raise FxMlirError(
            f"cannot trace {type(model).__name__} with torch.fx: "
            f"{type(error).__name__}: {error}".strip()) from error


def _compile_specialized(model, example_inputs, options):
    """compile() of a model with Python numbers among its inputs: a
    SpecializedGraph (fx_mlir.specialize), whose code for given numbers is
    the model traced with them as constants (concrete arguments, so that
    `range(n)` traces too), compiled for the tensor inputs."""
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"expected an nn.Module or a torch.fx.GraphModule, "
                        f"got {type(model).__name__}")
    positions = [i for i, v in enumerate(example_inputs) if is_number(v)]
    tensors = tuple(v for v in example_inputs if not is_number(v))

    def compile_for(numbers):
        inputs = list(example_inputs)
        for i, n in zip(positions, numbers):
            inputs[i] = n
        if isinstance(model, torch.fx.GraphModule):
            gm = bind_numbers(model, inputs)
        else:
            gm = _trace_for_compile(model, tuple(inputs),
                                    options["dynamic_batch"],
                                    specialize_numbers=True)
        return compile(gm, tensors, **options)

    return SpecializedGraph(compile_for, example_inputs)


@_serialized
def trace(model, example_inputs=None, static_shapes=False,
          specialize_numbers=False):
    """torch.fx.symbolic_trace with module paths recorded and, given
    example inputs, unpacking of proxies by their example values (see
    ModulePathTracer); with `static_shapes`, tensors' sizes are the
    example values' numbers (what fx_mlir.compile does without a dynamic
    batch). With `specialize_numbers`, the inputs whose examples are
    Python numbers are those numbers (concrete arguments): the graph has
    no placeholder for them."""
    tracer = ModulePathTracer(example_inputs, static_shapes)
    try:
        if _reference_forward(model) is not None:
            raise TypeError("traced through its reference forward")
        try:
            graph = _trace_with_defaults(tracer, model, example_inputs,
                                         specialize_numbers)
        except Exception:
            # Python control flow on a buffer's values: traced with
            # buffers read as tensors (torch.fx's default).
            tracer = ModulePathTracer(example_inputs, static_shapes)
            tracer.proxy_buffer_attributes = False
            graph = _trace_with_defaults(tracer, model, example_inputs,
                                         specialize_numbers)
    except Exception:
        # A module the compiler binds whole (nn.InstanceNorm2d, whose
        # forward branches on the input's rank), or one the tracer runs a
        # reference forward of (nn.TransformerEncoderLayer), is traced as
        # the one call_module node of a wrapper, as it would be inside a
        # model.
        varargs = _takes_varargs(model) and example_inputs is not None
        if not (tracer.is_leaf_module(model, "") or varargs
                or _reference_forward(model) is not None):
            raise
        wrapper = _whole(model, example_inputs)
        tracer = ModulePathTracer(example_inputs, static_shapes)
        if varargs:
            # A forward of *args, which torch.fx cannot trace as the root
            # on Python 3.11, is traced into as the wrapper's submodule.
            tracer._traceable[id(model)] = True
        graph = tracer.trace(wrapper)
        return torch.fx.GraphModule(wrapper, graph, type(model).__name__)
    return torch.fx.GraphModule(tracer.root, graph, type(model).__name__)


def _holds_proxy(value):
    """Whether `value` (nested tuples, lists and dicts) holds a Proxy."""
    if isinstance(value, torch.fx.Proxy):
        return True
    if isinstance(value, (tuple, list)):
        return any(_holds_proxy(v) for v in value)
    if isinstance(value, dict):
        return any(_holds_proxy(v) for v in value.values())
    return False


def _takes_varargs(module):
    """Whether `module`'s forward takes *args."""
    try:
        parameters = inspect.signature(module.forward).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.kind is p.VAR_POSITIONAL for p in parameters)


def _trace_with_defaults(tracer, model, example_inputs,
                         specialize_numbers=False):
    """tracer.trace(model); given fewer example inputs than the forward has
    parameters, the others take their defaults (nn.TransformerDecoderLayer's
    masks are None) and are no inputs of the graph; with
    `specialize_numbers`, neither are the inputs given as Python numbers,
    which are those numbers."""
    concrete = {}
    fixed = set()  # placeholder positions of concrete arguments
    if example_inputs is not None and isinstance(model, torch.nn.Module):
        try:
            parameters = list(inspect.signature(
                model.forward).parameters.values())
        except (TypeError, ValueError):
            parameters = []
        positional = [p for p in parameters if p.kind in (
            p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        rest = positional[len(example_inputs):]
        if rest and all(p.default is not p.empty for p in rest):
            concrete = {p.name: p.default for p in rest}
            fixed.update(range(len(example_inputs), len(positional)))
        if specialize_numbers:
            for i, (p, value) in enumerate(zip(positional, example_inputs)):
                if is_number(value):
                    concrete[p.name] = value
                    fixed.add(i)
    if not concrete:
        return tracer.trace(model)
    graph = tracer.trace(model, concrete_args=concrete)
    # torch.fx keeps a placeholder of each concrete argument, checked by
    # an _assert_is_none node (None) or a torch._assert of an == (other
    # values): the checks go, then the placeholders, the values being fixed.
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    checks = {"_assert_is_none", "_assert", "eq"}
    for placeholder in [p for i, p in enumerate(placeholders) if i in fixed]:
        dependents, stack = [], [placeholder]
        while stack:
            for user in stack.pop().users:
                if user not in dependents:
                    dependents.append(user)
                    stack.append(user)
        if all(n.op == "call_function"
               and getattr(n.target, "__name__", "") in checks
               for n in dependents):
            for n in sorted(dependents, key=_node_order(graph),
                            reverse=True):
                graph.erase_node(n)
            graph.erase_node(placeholder)
    return graph


def _node_order(graph):
    """A sort key of a graph's nodes: their position."""
    position = {n: i for i, n in enumerate(graph.nodes)}
    return position.__getitem__


def _whole(module, example_inputs):
    """A module whose forward calls `module` (its submodule `module`) on as
    many inputs as there are examples (else as its forward requires).
    torch.fx cannot trace a `*args` forward on Python 3.11."""
    if example_inputs is not None:
        count = len(example_inputs)
    else:
        count = sum(1 for p in inspect.signature(
            module.forward).parameters.values()
            if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY,
                                                   p.POSITIONAL_OR_KEYWORD))
    names = ", ".join(f"input_{i}" for i in range(count))
    namespace = {}
    exec(f"def forward(self, {names}):\n"
         f"    return self.module({names})\n", namespace)
    wrapper = type("Whole", (torch.nn.Module,),
                   {"forward": namespace["forward"]})()
    wrapper.module = module
    return wrapper


class CompiledGraph:
    """A compiled graph: call it with tensors, as the model's forward.
    `route` says how the model became a graph: "torch.fx" (traced) or
    "torch.jit.script" (scripted, for its control flow)."""

    route = "torch.fx"

    def __init__(self, graph, num_inputs, ir=None, dynamic_batch=False,
                 cpu="host", blobs=None, updated_inputs=(),
                 quantized_inputs=None):
        self._graph = graph
        self._num_inputs = num_inputs
        # Quantized inputs (index -> _QParams of the example's): passed as
        # their integers, after a check of their parameters.
        self._quantized_inputs = dict(quantized_inputs or {})
        # The inputs the graph updates in place (functionalize): the code
        # returns their final values after the output, copied into the
        # caller's tensors after each call.
        self._updated = tuple(updated_inputs)
        # What save() compiles again, ahead of time (the weights' tensors
        # are the model's own, or contiguous copies of them).
        self._source = (ir, dynamic_batch, cpu, blobs)
        self._structure = _parse_structure(graph.output_structure)
        # One output returned as is: the runtime hands back the tensor.
        self._call = (graph.call_one if self._structure == 0
                      and len(graph.outputs) == 1 and not self._updated
                      and not self._quantized_inputs else None)
        if self._call is not None and hasattr(graph, "call_args"):
            self._call_args = graph.call_args
            self.__class__ = _SingleOutputGraph

    @property
    def inputs(self):
        """(dtype, shape) of each input; -1 marks a dynamic dim."""
        return self._graph.inputs

    @property
    def outputs(self):
        return self._graph.outputs

    @property
    def from_cache(self):
        """Whether the code was loaded from the on-disk cache."""
        return self._graph.from_cache

    def save(self, path, header=None, weights_file=False, name=None):
        """Writes the graph compiled ahead of time to `path`, a shared
        object holding the code, its signature and the weights (with
        `weights_file`, the weights go to a `.weights` file next to it),
        and, with `header`, a C header declaring its typed entry point
        `<name>_forward`. `fx_mlir.load(path)` loads it back; a C or C++
        program runs it with the runtime core alone (fx_runtime.h,
        examples/deploy), as `fx-compile` makes them. The graph is compiled
        again for the same CPU target (its object code is not kept)."""
        if self._updated:
            raise FxMlirError("a graph that updates its inputs in place "
                              "cannot be saved as a library")
        ir, dynamic_batch, cpu, blobs = self._source
        if ir is None:
            raise FxMlirError("this graph was loaded from a library: copy "
                              "the library file instead")
        _load_runtime().compile_library(
            ir, os.fspath(path), dynamic_batch, cpu,
            os.fspath(header) if header else "", name or "",
            bool(weights_file), list((blobs or {}).items()))

    def __call__(self, *inputs, **kwargs):
        # The fast path: the runtime checks count, dtypes and shapes; only
        # a failed call pays for the Python-side checks and messages.
        if kwargs:
            raise FxMlirError(f"inputs are passed by position; got the "
                              f"keyword argument '{next(iter(kwargs))}'")
        if self._quantized_inputs:
            inputs = tuple(
                self._quantized_inputs[i].storage(t, i)
                if i in self._quantized_inputs else t
                for i, t in enumerate(inputs))
        try:
            if self._call is not None:
                return self._call(inputs)
            results = self._graph(inputs)
        except (ValueError, RuntimeError) as e:
            raise FxMlirError(str(e)) from None
        except TypeError:
            self._check(inputs)
            raise
        if not self._updated:
            return _rebuild(self._structure, results)
        output, values = _rebuild(self._structure, results)
        with torch.no_grad():
            for index, value in zip(self._updated, values):
                inputs[index].copy_(value)
        return output

    def _check(self, inputs):
        if len(inputs) != self._num_inputs:
            raise FxMlirError(f"expected {self._num_inputs} inputs, got "
                              f"{len(inputs)}")
        for i, t in enumerate(inputs):
            if not isinstance(t, torch.Tensor):
                raise FxMlirError(f"input {i}: expected a torch.Tensor, got "
                                  f"{type(t).__name__}")


class _SingleOutputGraph(CompiledGraph):
    """A compiled graph of one output, called straight into the runtime
    with no Python frame: __call__ is the runtime's `call_args` of this
    graph, reached through C-level descriptors only (it checks the inputs
    and raises FxMlirError as CompiledGraph.__call__ does)."""

    __call__ = property(operator.attrgetter("_call_args"))


def set_num_threads(threads):
    """Sets how many threads compiled graphs run on (OpenMP; by default
    one per core). Like torch.set_num_threads, for this process."""
    _load_core().set_num_threads(int(threads))


def default_cache_dir():
    """$FX_MLIR_CACHE_DIR, else $XDG_CACHE_HOME/fx-mlir, else
    ~/.cache/fx-mlir. An empty $FX_MLIR_CACHE_DIR turns the cache off."""
    if "FX_MLIR_CACHE_DIR" in os.environ:
        return os.environ["FX_MLIR_CACHE_DIR"]
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(
        os.path.expanduser("~"), ".cache")
    return os.path.join(base, "fx-mlir")


def compile(model, example_inputs, dynamic_batch=False,
            weights_as_arguments=False, cache_dir=None, cpu=None,
            fallback=False):
    """Compiles `model` (an nn.Module, traced with torch.fx.symbolic_trace,
    or a torch.fx.GraphModule) for the types of `example_inputs` (a tuple
    of tensors). With `dynamic_batch`, dim 0 of every input is dynamic and
    the result runs any batch size. Raises FxMlirError naming the node,
    its target and module when something cannot be compiled.

    The code is cached on disk in `cache_dir` (default:
    `default_cache_dir()`; False or "" for no cache), under a hash of the
    imported IR, the options, the compiler build and the host CPU: the
    same model compiled again loads its code instead of compiling it
    (`CompiledGraph.from_cache` tells which happened).

    `cpu` names the CPU the code is scheduled and generated for: None or
    "host" (this machine; $FX_MLIR_CPU when set), or a named target such
    as "x86-64-v3" (AVX2), "x86-64-v4" (AVX-512), "znver3", "znver4",
    "skylake-avx512", "sapphirerapids"; its code must run on this host.

    With `fallback`, the nodes the compiler cannot compile run in PyTorch
    and the rest of the graph is compiled around them (fx_mlir.fallback):
    the result is then a FallbackGraph, and a warning names those nodes."""
    if isinstance(example_inputs, torch.Tensor):
        example_inputs = (example_inputs,)
    example_inputs = tuple(example_inputs)
    if any(is_number(v) for v in example_inputs):
        return _compile_specialized(
            model, example_inputs, dict(
                dynamic_batch=dynamic_batch,
                weights_as_arguments=weights_as_arguments,
                cache_dir=cache_dir, cpu=cpu, fallback=fallback))
    if fallback:
        if dynamic_batch:
            raise FxMlirError("fallback=True needs static shapes "
                              "(dynamic_batch=False)")
        gm = model if isinstance(model, torch.fx.GraphModule) else None
        if gm is None and isinstance(model, torch.nn.Module):
            try:
                gm = trace(model, example_inputs,
                           static_shapes=not dynamic_batch)
            except Exception:
                gm = None  # the error is compile's own, below
        options = dict(weights_as_arguments=weights_as_arguments,
                       cache_dir=cache_dir, cpu=cpu)
        try:
            return compile(gm if gm is not None else model, example_inputs,
                           **options)
        except FxMlirError as error:
            rejected = unsupported_node_names(str(error))
            if gm is None or not rejected:
                raise
            if _has_inplace(gm):
                gm = _constants_copied(gm)
            return compile_with_fallback(
                gm, example_inputs, rejected,
                lambda module, inputs: compile(module, inputs, **options))
    options = dict(dynamic_batch=dynamic_batch,
                   weights_as_arguments=weights_as_arguments,
                   cache_dir=cache_dir, cpu=cpu)
    if isinstance(model, torch.fx.GraphModule):
        gm = _inline_unbound_modules(model, example_inputs,
                                     static_shapes=not dynamic_batch)
    elif isinstance(model, torch.jit.ScriptModule):
        return _compile_scripted(model, example_inputs, None, options)
    elif isinstance(model, torch.nn.Module) and _hooked_modules(model):
        return _compile_hooked(model, example_inputs, options)
    elif isinstance(model, torch.nn.Module):
        try:
            gm = _trace_for_compile(model, example_inputs, dynamic_batch)
        except FxMlirError as trace_error:
            # Data-dependent control flow: TorchScript captures it.
            return _compile_scripted(model, example_inputs, trace_error,
                                     options)
    else:
        raise TypeError(f"expected an nn.Module or a torch.fx.GraphModule, "
                        f"got {type(model).__name__}")
    updated = []
    if _has_inplace(gm):
        if gm is model:  # the caller's GraphModule stays as it is
            gm = _copy_graph_module(gm)
        updated = functionalize(gm, example_inputs, dynamic=dynamic_batch)
    try:
        with torch.no_grad():
            # The weights go to the compiler as memory (little-endian,
            # as the IR's blobs are), not as hex in the text.
            blobs = {} if sys.byteorder == "little" else None
            ir = import_graph_module(gm, example_inputs,
                                     dynamic_batch=dynamic_batch,
                                     blobs=blobs)
    except FxMlirError:
        raise
    except Exception as error:
        # Running the graph on the example inputs (ShapeProp) failed: the
        # model does not run on them as eager PyTorch would not either.
        def first_line(e):
            lines = str(e).strip().splitlines()
            return f"{type(e).__name__}: {lines[0] if lines else ''}"
        message = first_line(error)
        if error.__cause__ is not None:
            message += f" ({first_line(error.__cause__)})"
        raise FxMlirError(f"cannot import {type(model).__name__}: "
                          f"{message}") from error
    return _compile_ir(ir, example_inputs, blobs, updated, **options)


# A node calling an in-place ATen operator (`aten::relu_`, `aten::add_.Tensor`;
# not `aten::__and__`).
_INPLACE_ATEN = re.compile(
    r'fx\.call_function "aten::[A-Za-z0-9_]*[A-Za-z0-9]_(\.[A-Za-z0-9_]+)?"')


def _hooked_modules(model):
    """The paths of the modules of `model` with forward hooks or forward
    pre-hooks ("" for the root, "<global>" for hooks on every module)."""
    from torch.nn.modules import module as nn_module
    found = [name or "<root>" for name, m in model.named_modules()
             if m._forward_hooks or m._forward_pre_hooks]
    if getattr(nn_module, "_global_forward_hooks", None) or getattr(
            nn_module, "_global_forward_pre_hooks", None):
        found.append("<global>")
    return found


def _compile_hooked(model, example_inputs, options):
    """compile() of a module with forward hooks, which torch.fx does not
    run (a call_module node is the module's forward alone): through
    torch.jit.trace, which records what the hooks compute, with a
    warning naming the hooked modules."""
    hooked = _hooked_modules(model)
    warnings.warn(
        f"fx_mlir.compile: forward hooks on {', '.join(hooked)}, which "
        f"torch.fx does not run: compiled {type(model).__name__} through "
        "torch.jit.trace (data-dependent control flow is fixed to the "
        "example's path)", ScriptedRouteWarning, stacklevel=3)
    try:
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore", torch.jit.TracerWarning)
            traced = torch.jit.trace(model, tuple(example_inputs),
                                     check_trace=False, strict=False)
    except Exception as error:  # noqa: BLE001 - named in the error
        raise FxMlirError(
            f"cannot compile {type(model).__name__}: it has forward hooks "
            f"(on {', '.join(hooked)}), which torch.fx does not run, and "
            f"torch.jit.trace failed: {error}") from error
    compiled = _compile_scripted(traced, example_inputs, None, options)
    compiled.route = "torch.jit.trace"
    return compiled


def _compile_scripted(model, example_inputs, trace_error, options):
    """compile() through torch.jit.script: `model` (a ScriptModule, or a
    module torch.fx could not trace, `trace_error`) scripted, imported by
    the TorchScript importer with its control flow, and compiled. A module
    compiled this way has `route` "torch.jit.script", and a
    ScriptedRouteWarning says why when torch.fx failed first."""
    try:
        scripted = script(model)
    except FxMlirError as script_error:
        if trace_error is None:
            raise
        raise FxMlirError(f"{trace_error}; {script_error}") from trace_error
    if trace_error is not None:
        warnings.warn(
            f"fx_mlir.compile: {trace_error}; compiled "
            f"{type(model).__name__} through torch.jit.script instead",
            ScriptedRouteWarning, stacklevel=3)
    more = grown_batch(example_inputs) if options["dynamic_batch"] else None
    try:
        with torch.no_grad():
            ir = import_torchscript(scripted, example_inputs,
                                    type(model).__name__, more,
                                    inline_traced_leaves=True)
        try:
            compiled = _compile_ir(ir, example_inputs, None, (), **options)
        except FxMlirError as direct_error:
            # In-place ATen calls fx-normalize leaves (an update of a view
            # another node reads): the GraphModule the IR exports to is
            # functionalized as any other, or says why it cannot be.
            if not _INPLACE_ATEN.search(ir):
                raise
            try:
                gm = export_graph_module(ir)
            except FxMlirError:
                raise direct_error from None
            compiled = compile(gm, example_inputs, **options)
    except FxMlirError as error:
        if trace_error is None:
            raise
        raise FxMlirError(
            f"{error} (compiling {type(model).__name__} through "
            f"torch.jit.script: {trace_error})") from error
    compiled.route = "torch.jit.script"
    return compiled


def _compile_ir(ir, example_inputs, blobs, updated, dynamic_batch,
                weights_as_arguments, cache_dir, cpu):
    """The code of fx IR `ir` for `example_inputs`' types, from the cache
    or compiled (compile()'s last step)."""
    if cache_dir is None:
        cache_dir = default_cache_dir()
    target = cpu or os.environ.get("FX_MLIR_CPU") or "host"
    blob_list = list((blobs or {}).items())
    # The code cache is looked up by the runtime core first: a hit loads
    # the code without the compiler (no LLVM, no MLIR in the process).
    quick_key = ""
    if cache_dir and not weights_as_arguments:
        try:
            core = _load_core()
            quick_key = core.quick_key(ir, blob_list, _quick_settings(
                dynamic_batch, target))
            graph = core.load_cached(cache_dir, quick_key)
        except (ValueError, RuntimeError):
            graph = None
        if graph is not None:
            return CompiledGraph(graph, len(example_inputs), ir,
                                 dynamic_batch, target, blobs, updated,
                                 _quantized_inputs(example_inputs))
    try:
        graph = _load_runtime().CompiledGraph(
            ir, weights_as_arguments, dynamic_batch, cache_dir or "", target,
            blob_list, quick_key)
    except (ValueError, RuntimeError) as e:
        raise FxMlirError(str(e).strip()) from None
    return CompiledGraph(graph, len(example_inputs), ir, dynamic_batch,
                         target, blobs, updated,
                         _quantized_inputs(example_inputs))


def _has_inplace(gm):
    """Whether the graph of `gm` may update a tensor in place."""
    for node in gm.graph.nodes:
        if node.op == "call_method" and isinstance(node.target, str) and \
                node.target.endswith("_") and not node.target.startswith("_"):
            return True
        if (node.op == "call_function" and node.target is operator.setitem
                or node.op == "call_method" and node.target == "__setitem__"):
            return True
        if node.op == "call_function" and (
                node.kwargs.get("inplace") is True
                or getattr(node.target, "__name__", "_").endswith("_")
                and not getattr(node.target, "__name__", "_").startswith("_")):
            return True
        if node.op == "call_module" and getattr(
                gm.get_submodule(node.target), "inplace", False) is True:
            return True
        if node.op == "call_function" and (
                updates_in_place(node.target)
                or node.target in _INPLACE_OPERATORS):
            return True
    return False


class _CallOf(torch.nn.Module):
    """A module whose forward calls `inner` with the arguments of a
    call_module node: its Node arguments (`count` of them, in order) are
    the forward's parameters, its other arguments constants."""

    def __init__(self, inner, args, kwargs, count):
        super().__init__()
        self.inner = inner
        self._args, self._kwargs, self._count = args, kwargs, count

    def _call(self, values):
        def fill(a):
            return values[a.index] if isinstance(a, _Slot) else a
        args = torch.fx.node.map_aggregate(self._args, fill)
        kwargs = torch.fx.node.map_aggregate(self._kwargs, fill)
        return self.inner(*args, **kwargs)


class _FunctionCall(torch.nn.Module):
    """A module whose forward is a call of `fn` (traced into: the
    function object itself is called, not the name torch.fx.wrap patches)."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *args, **kwargs):
        return self.fn(*args, **kwargs)


class _Slot:
    def __init__(self, index):
        self.index = index


def _call_of(inner, node):
    """_CallOf for `node`, its forward of exactly the node's Node
    arguments (torch.fx traces a fixed arity), with the Nodes in order."""
    nodes = []

    def slot(n):
        nodes.append(n)
        return _Slot(len(nodes) - 1)
    args = torch.fx.node.map_arg(node.args, slot)
    kwargs = torch.fx.node.map_arg(node.kwargs, slot)
    names = [f"a{i}" for i in range(len(nodes))]
    namespace = {}
    exec(f"def forward(self, {', '.join(names)}):\n"  # noqa: S102
         f"    return self._call(({''.join(n + ', ' for n in names)}))\n",
         namespace)
    cls = type("_CallOf" + type(inner).__name__, (_CallOf,),
               {"forward": namespace["forward"]})
    return cls(inner, args, kwargs, len(nodes)), nodes


def _node_values(gm, example_inputs, wanted):
    """The values of the nodes `wanted` when `gm` runs on `example_inputs`
    (those it reaches; none if it fails to run)."""
    values = {}

    class Recorder(torch.fx.Interpreter):
        def run_node(self, n):
            result = super().run_node(n)
            if n in wanted:
                values[n] = result
            return result

        def get_attr(self, target, args, kwargs):
            # Constants and buffers updated in place stay as they are.
            return _unshared(super().get_attr(target, args, kwargs))
    inputs = [t.clone() if isinstance(t, torch.Tensor) else t
              for t in example_inputs]  # in-place updates stay here
    try:
        with torch.no_grad():
            Recorder(gm).run(*inputs)
    except Exception:  # noqa: BLE001 - compile reports a model that fails
        pass
    return values


def _inline_unbound_modules(gm, example_inputs=None, static_shapes=False):
    """`gm` with each call_module of a module the compiler does not bind
    or traces into (a torch.nn leaf torch.fx kept whole:
    nn.TransformerEncoderLayer in a symbolic_trace'd or convert_fx'd graph,
    nn.GRU or a dynamically quantized LSTM in a convert_fx'd one; a module
    of a reference forward) replaced by the graph of its
    forward, traced as compile traces an nn.Module (into the modules it
    does not bind either; with the example values of its arguments, from
    `gm` run on `example_inputs`, as compile traces with example inputs),
    and, with static shapes, each call_function of a Python function
    torch.fx.wrap kept as a call and the compiler does not bind
    (torchvision's shifted_window_attention) replaced by the graph of its
    body, traced likewise; `gm` itself when there is none or one does not
    trace (the compiler then names it). The caller's GraphModule is not
    changed."""
    known = _known_module_types()
    if known is None:
        return gm
    known_functions = _known_function_names()
    candidates = []
    for node in gm.graph.nodes:
        # A function torch.fx.wrap kept as a call (ModulePathTracer traces
        # into it when it traces a module): traced with the example values
        # of its arguments, whose sizes its control flow may read.
        if (node.op == "call_function" and static_shapes
                and example_inputs is not None
                and _wrapped_unknown(node.target, known_functions)):
            candidates.append(node)
            continue
        if node.op != "call_module":
            continue
        try:
            module = gm.get_submodule(node.target)
        except AttributeError:
            continue
        # torch.nn's own classes (torch.nn.X; quantized and fused modules
        # are the importer's) the registry does not bind (by type, or with
        # these hyperparameters: _module_binds), and the modules
        # compile traces into by a reference forward (fx_mlir/reference.py:
        # dynamic LSTM and GRU, quantized embeddings, nn.EmbeddingBag, ...).
        kind = module_type(module)
        if _reference_forward(module) is None and (
                (kind in known and _module_binds(module))
                or not kind.startswith("torch.nn.")
                or kind.count(".") != 2):
            continue
        candidates.append(node)
    if not candidates:
        return gm
    copy = _copy_graph_module(gm)
    by_name = {n.name: n for n in copy.graph.nodes}
    values = {}
    if example_inputs is not None:
        wanted = {by_name[a.name] for node in candidates
                  for a in node.all_input_nodes}
        values = _node_values(copy, example_inputs, wanted)
    changed = False
    for original in candidates:
        node = by_name[original.name]
        function = node.op == "call_function"
        module = (_FunctionCall(node.target) if function
                  else copy.get_submodule(node.target))
        wrapper, inputs = _call_of(module, node)
        examples = None
        if all(n in values for n in inputs):
            examples = tuple(values[n] for n in inputs)
        try:
            sub = ModulePathTracer(examples, static_shapes).trace(wrapper)
        except Exception:  # noqa: BLE001 - left whole, named by the compiler
            continue
        # Where the inlined nodes' state and module paths go: under the
        # module's path, or, for a function, fresh names after the node's
        # and the module path of the call.
        prefix = node.name if function else node.target
        call_path = node.meta.get("fx_mlir_module_path")
        env, result, inserted = {}, None, []
        placeholders = iter(inputs)

        moved = {}

        def target_of(name):
            # The leaf's own state under its path; what the tracer made
            # on the wrapper (a constant tensor a forward builds) moved
            # onto the graph module under a fresh name, once.
            if name == "inner" or name.startswith("inner."):
                return prefix + name[len("inner"):]
            if name not in moved:
                fresh = f"{prefix.replace('.', '_')}_{name}"
                while hasattr(copy, fresh):
                    fresh += "_"
                setattr(copy, fresh, getattr(wrapper, name))
                moved[name] = fresh
            return moved[name]
        with copy.graph.inserting_before(node):
            for n in sub.nodes:
                if n.op == "placeholder":
                    env[n] = next(placeholders)
                elif n.op == "output":
                    result = torch.fx.node.map_arg(n.args[0],
                                                   lambda a: env[a])
                else:
                    new = copy.graph.node_copy(n, lambda a: env[a])
                    if new.op in ("get_attr", "call_module"):
                        new.target = target_of(new.target)
                    path = n.meta.get("fx_mlir_module_path")
                    if function:
                        new.meta.pop("fx_mlir_module_path", None)
                        if call_path is not None:
                            new.meta["fx_mlir_module_path"] = call_path
                    elif path is not None:
                        new.meta["fx_mlir_module_path"] = (
                            prefix + path[len("inner"):])
                    env[n] = new
                    inserted.append(new)
        if isinstance(result, torch.fx.Node):
            node.replace_all_uses_with(result)
            if node in values:  # for a later candidate that reads it
                values[result] = values[node]
        elif (isinstance(result, (tuple, list)) and all(
                user.op == "call_function" and user.target is operator.getitem
                and isinstance(user.args[1], int) and not user.kwargs
                and -len(result) <= user.args[1] < len(result)
                and isinstance(result[user.args[1]], torch.fx.Node)
                for user in node.users)):
            for user in list(node.users):
                user.replace_all_uses_with(result[user.args[1]])
                if user in values:
                    values[result[user.args[1]]] = values[user]
                copy.graph.erase_node(user)
        if node.users:
            # An output of another form: the node stays whole, and the
            # copied nodes go (nothing reads them), last first.
            for new in reversed(inserted):
                copy.graph.erase_node(new)
            continue
        # The copied nodes stay, read or not (an in-place update among them
        # reads as unused); the compiler drops what computes nothing used.
        copy.graph.erase_node(node)
        changed = True
    if not changed:
        return gm
    # The inlined modules go (a quantized Embedding's table, which no
    # quant type holds, is not imported then).
    copy.delete_all_unused_submodules()
    copy.recompile()
    return copy


def _constants_copied(gm):
    """A copy of `gm` whose graph reads each tensor attribute other than a
    parameter through a copy (`get_attr` then `clone`). torch.fx makes a
    constant of a tensor the forward creates (`torch.zeros(n)`), which a
    graph may update in place (`.scatter_add_(...)`); split into
    partitions, the attribute is a partition's input, which a compiled
    partition would write its update back into, call after call."""
    gm = _copy_graph_module(gm)
    for node in list(gm.graph.nodes):
        if node.op != "get_attr":
            continue
        try:
            value = _fetch_attr(gm, node.target)
        except AttributeError:
            continue
        if not isinstance(value, torch.Tensor) or \
                isinstance(value, torch.nn.Parameter) or not node.users:
            continue
        with gm.graph.inserting_after(node):
            copy = gm.graph.call_method("clone", (node,))
        node.replace_all_uses_with(copy)
        copy.args = (node,)
    gm.recompile()
    return gm


def _fetch_attr(module, target):
    for part in target.split("."):
        module = getattr(module, part)
    return module


def _copy_graph_module(gm):
    """A GraphModule over `gm`'s modules and parameters with a copy of its
    graph, which functionalize may then rewrite."""
    graph = torch.fx.Graph()
    output = graph.graph_copy(gm.graph, {})
    graph.output(output)
    return torch.fx.GraphModule(gm, graph, type(gm).__name__)


def _quick_settings(dynamic_batch, cpu):
    """What a quick cache key covers beside the IR and the weights: the
    options, and the compiler's identity (its extension's path, size and
    modification time, as the compiler's own key has them), so that a
    rebuilt compiler does not reach entries an older one wrote."""
    path = _native_path("_fx_runtime.so") or ""
    try:
        status = os.stat(path)
        identity = f"{path} {status.st_size} {status.st_mtime_ns}"
    except OSError:
        identity = path
    return f"fx_mlir.compile {int(bool(dynamic_batch))} {cpu} {identity}"


def load(path):
    """Loads a library that `CompiledGraph.save` or `fx-compile` wrote: a
    callable like the one `compile` returns, with no compiler run (the
    runtime core loads the code and maps its weights). Quantized inputs
    are passed as quantized tensors, checked against the quantization the
    library's signature holds, as the compiled graph's are. Raises
    FxMlirError for a file that is not such a library or whose weights
    file differs from the one it was compiled with."""
    try:
        graph = _load_core().load_library(os.fspath(path))
    except (ValueError, RuntimeError) as e:
        raise FxMlirError(str(e).strip()) from None
    return CompiledGraph(graph, len(graph.inputs),
                         quantized_inputs=_signature_quantized_inputs(graph))
