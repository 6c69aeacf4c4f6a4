"""fx_mlir's torch.fx tracer: `trace`, torch.fx's symbolic tracing with
the module path of each node recorded, the registry's module types and
functions kept as calls (leaves), and, given example inputs, proxies
unpacked by their example values (sizes, tuples, tensor properties).
`fx_mlir.compile` traces models with it; `fx_mlir.transform` too.
"""

import ast
import contextlib
import dis
import functools
import inspect
import json
import operator
import types

import torch
import torch.fx
from torch.fx import _symbolic_trace

from . import FxMlirError, _native_path, _serialized
from .fallback import _state_kept
from .functionalize import _INPLACE_OPERATORS
from .importer import module_type
from .reference import (REFERENCE_FUNCTIONS, constants_shared,
                        reference_forward)
from .scripting import EXTRA_ROWS, grown_batch
from .specialize import is_number


def _reference_forward(module, with_examples=True):
    """The reference forward the tracer runs for `module`, or None; one
    that needs example inputs (a BatchNorm in training mode, whose checks
    read the input's rank) only `with_examples`: without, the module
    stays a call (fx_mlir.transform keeps it)."""
    forward = reference_forward(module)
    if not with_examples and getattr(forward, "needs_examples", False):
        return None
    return forward


def _size_positions(value):
    """Where `value` (a forward's return value while tracing) holds a
    torch.Size: True there, lists and dicts of them around, None where
    there is none."""
    if isinstance(value, torch.Size):
        return True
    if isinstance(value, (tuple, list)) and not hasattr(value, "_fields"):
        items = [_size_positions(v) for v in value]
        return items if any(i is not None for i in items) else None
    if isinstance(value, dict):
        items = {k: _size_positions(v) for k, v in value.items()}
        return items if any(i is not None for i in items.values()) else None
    return None


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

    def create_arg(self, a):
        # The outermost value being recorded: the forward's return value
        # when the output node is created next (create_node).
        depth = getattr(self, "_arg_depth", 0)
        if depth == 0:
            self._outer_arg = a
        self._arg_depth = depth + 1
        try:
            return super().create_arg(a)
        finally:
            self._arg_depth = depth

    def trace(self, root, concrete_args=None):
        self._rebound = {}  # buffer path -> (module, name, tensor, Proxy)
        if self.proxy_buffer_attributes:
            with self._buffer_assignments(), self._sized_factories(), \
                    constants_shared():
                graph = super().trace(root, concrete_args)
            self._write_rebound_buffers(graph)
        else:
            with self._sized_factories(), constants_shared():
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

    # torch's factory functions of sizes, which take no tensor: torch.fx
    # sees no Proxy among their arguments (`torch.arange(x.size(0))` is a
    # TypeError), so they are patched while tracing.
    _SIZED_FACTORIES = ("arange", "zeros", "ones", "full", "empty", "eye",
                        "linspace", "logspace")

    @contextlib.contextmanager
    def _sized_factories(self):
        """Patches torch's factory functions while tracing: a call with a
        Proxy among its arguments (a size of a dynamic batch:
        `torch.arange(x.size(0))`, `torch.zeros(x.size(0), 4)`,
        `torch.full((n, 4), 2.0)`) is recorded as a call_function of the
        function; any other runs as it is."""
        tracer = self
        saved = {name: getattr(torch, name) for name in self._SIZED_FACTORIES}

        def recorded(fn):
            @functools.wraps(fn)
            def factory(*args, **kwargs):
                if _holds_proxy((args, kwargs)):
                    return tracer.create_proxy("call_function", fn, args,
                                               kwargs)
                return fn(*args, **kwargs)
            return factory
        for name, fn in saved.items():
            setattr(torch, name, recorded(fn))
        try:
            yield
        finally:
            for name, fn in saved.items():
                setattr(torch, name, fn)

    @contextlib.contextmanager
    def _buffer_assignments(self):
        """Patches nn.Module.__setattr__ while tracing for an assignment of
        a proxy to a buffer (`self.count += 1`, `self.ema = 0.9 * self.ema
        + 0.1 * x`), which nn.Module refuses (a buffer holds tensors).
        `self.b += x`, an in-place update of the buffer's get_attr, is in
        the graph already; any other value rebinds the buffer, whose later
        reads in the forward are that value and whose value after the call
        is written into it at the end (_write_rebound_buffers). The
        modules' buffers are as they were after the trace."""
        original = torch.nn.Module.__setattr__
        tracer = self

        def setattr_(module, name, value):
            buffers = module.__dict__.get("_buffers")
            if not isinstance(value, torch.fx.Proxy) or buffers is None \
                    or name not in buffers:
                return original(module, name, value)
            prefix = tracer.path_of_module(module) if module is not \
                tracer.root else ""
            path = f"{prefix}.{name}" if prefix else name
            node = value.node
            if path not in tracer._rebound and _updates_attribute(node, path):
                return None  # `self.b += x`: the update is the graph's
            if path not in tracer._rebound:
                tracer._rebound[path] = (module, name, buffers[name], value)
            else:
                tracer._rebound[path] = tracer._rebound[path][:3] + (value,)
            buffers[name] = value  # later reads in the forward see it
            return None

        torch.nn.Module.__setattr__ = setattr_
        try:
            yield
        finally:
            torch.nn.Module.__setattr__ = original
            for module, name, tensor, _ in self._rebound.values():
                module._buffers[name] = tensor

    def _write_rebound_buffers(self, graph):
        """Writes each rebound buffer's last value into it, at the end of
        the graph (`copy_` into a get_attr of its own, so that reads of the
        buffer made before the assignment keep the old value). A value of
        another shape or dtype than the buffer's cannot be: the compiled
        code keeps its buffers' types."""
        if not self._rebound:
            return
        output = next(n for n in graph.nodes if n.op == "output")
        for path, (_, _, tensor, proxy) in self._rebound.items():
            value = self._example_value(proxy.node)
            if isinstance(value, torch.Tensor) and isinstance(
                    tensor, torch.Tensor) and (
                    value.shape != tensor.shape or value.dtype != tensor.dtype):
                raise FxMlirError(
                    f"cannot compile {proxy.node.op} '{proxy.node.name}': it "
                    f"assigns buffer '{path}' ({tuple(tensor.shape)}, "
                    f"{tensor.dtype}) a tensor of another type "
                    f"({tuple(value.shape)}, {value.dtype}); a compiled "
                    f"graph keeps its buffers' shapes and dtypes")
            with graph.inserting_before(output):
                read = graph.get_attr(path)
                graph.call_method("copy_", (read, proxy.node))

    def is_leaf_module(self, m, qualified_name):
        if not super().is_leaf_module(m, qualified_name):
            return False
        if self._known is not None and _reference_forward(
                m, self._examples is not None) is not None:
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
                erased = set()
                for node in [n for n in graph.nodes if n not in before]:
                    if node.op == "get_attr" and not node.users:
                        graph.erase_node(node)
                        erased.add(node)
                # torch.fx hands out a parameter's proxy again from its
                # cache: a later read (`self.lin.bias` after `self.lin(x)`)
                # makes a new node.
                cache = getattr(self, "_parameter_proxies", None)
                for key, proxy in list((cache or {}).items()):
                    if getattr(proxy, "node", None) in erased:
                        del cache[key]
        return self._binding[id(m)]

    def getattr(self, attr, attr_val, parameter_proxy_cache):
        self._parameter_proxies = parameter_proxy_cache
        return super().getattr(attr, attr_val, parameter_proxy_cache)

    def call_module(self, m, forward, args, kwargs):
        reference = _reference_forward(m, self._examples is not None)
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

    def create_node(self, kind, *args, **kwargs):
        node = super().create_node(kind, *args, **kwargs)
        if self._paths and self._paths[-1]:
            node.meta["fx_mlir_module_path"] = self._paths[-1]
        if kind == "output":
            # torch.fx records a torch.Size (a static shape read while
            # tracing) as a plain tuple: where the return value held one,
            # the output node's meta says so (compiler._named_outputs).
            sizes = _size_positions(getattr(self, "_outer_arg", None))
            if sizes is not None:
                node.meta["fx_mlir_sizes"] = sizes
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
        for body in (
                REFERENCE_FUNCTIONS.get(target)
                if kind == "call_function" else None,
                _inlined(target)
                if kind == "call_function" and self._inlinable(target)
                else None):
            if body is None:
                continue
            last = self.graph._root.prev
            try:
                return body(*args, **kwargs)
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

    def _example_value(self, node, examples=None, values=None):
        """The value of `node` on the example inputs (or on `examples`,
        cached in `values`); None when there are none or it cannot be
        computed."""
        if examples is None:
            examples, values = self._examples, self._values
        if examples is None:
            return None
        if node in values:
            return values[node]
        value = None
        try:
            value = self._compute(node, examples, values)
        except Exception:  # the caller raises torch.fx's own error
            value = None
        if _holds_proxy(value):
            value = None
        # While the forward has a buffer rebound to a proxy (`self.seen =
        # torch.cat([self.seen, x])`), what reads it is not known now but
        # is after the trace (the buffer a tensor again): not kept.
        if value is None and any(
                isinstance(module._buffers.get(name), torch.fx.Proxy)
                for module, name, _, _ in getattr(self, "_rebound",
                                                  {}).values()):
            return None
        values[node] = value
        return value

    def _batch_independent_size(self, node, dim):
        """With a dynamic batch, size `dim` of the tensor `node` when it is
        the same at the example batch and at batches of 1, 2 and 12 more
        rows (a sequence length, a channel count: `for t in
        range(x.size(1))` then traces), else None: a size that follows
        the batch stays a node."""
        if self._static_shapes or self._examples is None or \
                not isinstance(dim, int):
            return None
        value = self._example_value(node)
        if not isinstance(value, torch.Tensor) or \
                not -value.dim() <= dim < value.dim():
            return None
        size = value.shape[dim]
        if not hasattr(self, "_grown_sets"):
            self._grown_sets = [(grown_batch(self._examples, extra), {})
                                for extra in EXTRA_ROWS]
        for grown, values in self._grown_sets:
            other = self._example_value(node, grown, values)
            if not isinstance(other, torch.Tensor) or \
                    other.dim() != value.dim() or other.shape[dim] != size:
                return None
        return int(size)

    def _compute(self, node, examples=None, values=None):
        if examples is None:
            examples, values = self._examples, self._values
        if node.op == "placeholder":
            index = [n for n in node.graph.nodes
                     if n.op == "placeholder"].index(node)
            return examples[index]
        if node.op == "get_attr":
            value = self.root
            with _eager_modules():  # the tensors, not the tracer's proxies
                for atom in node.target.split("."):
                    value = getattr(value, atom)
            # A copy of a buffer or constant: an in-place update computed
            # for an example value leaves the module's tensor as it was.
            if isinstance(value, torch.Tensor) and \
                    not isinstance(value, torch.nn.Parameter):
                value = value.clone()
            return value
        missing = []

        def value_of(n):
            v = self._example_value(n, examples, values)
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


def _updates_attribute(node, path):
    """Whether `node` updates the tensor a get_attr of `path` reads in
    place (`operator.iadd`, `add_`, ... whose first argument is one)."""
    if node.op not in ("call_function", "call_method") or not node.args:
        return False
    first = node.args[0]
    if not (isinstance(first, torch.fx.Node) and first.op == "get_attr"
            and first.target == path):
        return False
    if node.op == "call_method":
        return node.target.endswith("_") and not node.target.startswith("_")
    return node.target in _INPLACE_OPERATORS


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
        # A field of a named tuple a call returned (`torch.aminmax(x).max`,
        # `x.max(1).values`, a namedtuple of a submodule's): its item.
        if not k.startswith("_"):
            value = self.tracer._example_value(self.node)
            if isinstance(value, tuple):
                fields = getattr(type(value), "_fields", None) or getattr(
                    type(value), "__match_args__", ())
                if k in fields:
                    return self[list(fields).index(k)]
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
        # With a dynamic batch, a size that does not follow the batch (a
        # sequence length, `for t in range(x.size(1))`) is a Python int
        # too; one that does stays a node.
        if k == "size" and not self.tracer._static_shapes:
            attribute = _SizedAttribute(self, k)

            def size(*args, **kwargs):
                if len(args) == 1 and not kwargs:
                    known = self.tracer._batch_independent_size(self.node,
                                                                args[0])
                    if known is not None:
                        return known
                return attribute(*args, **kwargs)
            return size
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

    def _items(self):
        """The items of a proxy of a tuple or list (its example value's
        count), as a tuple or list of proxies; None for other proxies."""
        value = self.tracer._example_value(self.node)
        if not isinstance(value, (tuple, list)) or \
                type(value) not in (tuple, list):
            return None
        items = [self[i] for i in range(len(value))]
        return tuple(items) if isinstance(value, tuple) else items

    def __getitem__(self, key):
        # `parts[:2]` of a tuple a call returned (x.unbind(1),
        # torch.chunk): the tuple of those items, which torch.stack and
        # torch.cat take, not a proxy of one.
        if isinstance(key, slice):
            items = self._items()
            if items is not None:
                return items[key]
        return super().__getitem__(key)

    def __add__(self, other):
        # `torch.chunk(x, 3) + torch.split(x, 2)`: tuple concatenation.
        items = self._items()
        if items is not None:
            theirs = other._items() if isinstance(other, _ExampleSized) \
                else other
            if isinstance(theirs, (tuple, list)):
                return tuple(items) + tuple(theirs)
        return super().__add__(other)

    def __radd__(self, other):
        items = self._items()
        if items is not None and isinstance(other, (tuple, list)):
            return tuple(other) + tuple(items)
        return super().__radd__(other)

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
    def __getitem__(self, key):
        # `x.shape[1]` with a dynamic batch: a size that does not follow
        # the batch is a Python int (see `size` above).
        if self.attr == "shape" and isinstance(key, int):
            known = self.tracer._batch_independent_size(self.root.node, key)
            if known is not None:
                return known
        return super().__getitem__(key)


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




@_serialized
def trace(model, example_inputs=None, static_shapes=False,
          specialize_numbers=False):
    """torch.fx.symbolic_trace with module paths recorded and, given
    example inputs, unpacking of proxies by their example values (see
    ModulePathTracer); with `static_shapes`, tensors' sizes are the
    example values' numbers (what fx_mlir.compile does without a dynamic
    batch). With `specialize_numbers`, the inputs whose examples are
    Python numbers are those numbers (concrete arguments): the graph has
    no placeholder for them. Plain tensor attributes of the modules
    (`self.t = torch.zeros(3)` in `__init__`) are read through get_attr
    nodes, as buffers are (_plain_tensors_as_buffers)."""
    if isinstance(model, torch.nn.Module):
        with _numbers_kept(model), _plain_tensors_as_buffers(model):
            return _trace(model, example_inputs, static_shapes,
                          specialize_numbers)
    return _trace(model, example_inputs, static_shapes, specialize_numbers)


@contextlib.contextmanager
def _numbers_kept(model):
    """Restores the Python numbers the modules of `model` hold (`self.calls
    = 0` in `__init__`) after tracing, and raises FxMlirError when the
    forward changed one (`self.calls += 1` runs while tracing): the graph
    holds the value the trace saw, where eager's would change call after
    call."""
    saved = [(module, key, value) for module in model.modules()
             for key, value in vars(module).items()
             if isinstance(value, (int, float)) and not key.startswith("_")
             and key != "training"]
    try:
        yield
    finally:
        changed = []
        for module, key, value in saved:
            now = vars(module).get(key, value)
            if now is not value and now != value:
                changed.append(key)
                module.__dict__[key] = value
    if changed:
        raise FxMlirError(
            f"cannot trace {type(model).__name__}: its forward changes "
            f"{', '.join(sorted(set(changed)))} (Python numbers the "
            "module holds), which the traced graph would keep at the value "
            "the trace saw; keep such state in a buffer")


@contextlib.contextmanager
def _plain_tensors_as_buffers(model):
    """Registers the plain tensor attributes of `model`'s modules as
    (non-persistent) buffers while tracing, then makes them attributes
    again: torch.fx reads a plain attribute as its tensor, so
    `self.t.add_(1)` would run on the module's tensor while tracing and
    be left out of the graph, where eager keeps the update across calls."""
    moved = []
    for module in model.modules():
        if isinstance(module, torch.fx.GraphModule):
            continue
        for key, value in list(vars(module).items()):
            if isinstance(value, torch.Tensor) and \
                    not isinstance(value, torch.nn.Parameter) and \
                    not key.startswith("_") and key not in module._buffers:
                del module.__dict__[key]
                module._buffers[key] = value
                module._non_persistent_buffers_set.add(key)
                moved.append((module, key))
    try:
        yield
    finally:
        for module, key in moved:
            value = module._buffers.pop(key, None)
            module._non_persistent_buffers_set.discard(key)
            module.__dict__[key] = value


def _trace(model, example_inputs, static_shapes, specialize_numbers):
    tracer = ModulePathTracer(example_inputs, static_shapes)
    try:
        if _reference_forward(model, example_inputs is not None) \
                is not None:
            raise TypeError("traced through its reference forward")
        try:
            graph = _trace_with_defaults(tracer, model, example_inputs,
                                         specialize_numbers)
        except FxMlirError:
            raise
        except Exception:
            # Python control flow on a buffer's values: traced with
            # buffers read as tensors (torch.fx's default). Those run on
            # the module's buffers while tracing: an update of one is not
            # the graph's, and the buffers are restored.
            tracer = ModulePathTracer(example_inputs, static_shapes)
            tracer.proxy_buffer_attributes = False
            with _state_kept(model) as state:
                graph = _trace_with_defaults(tracer, model, example_inputs,
                                             specialize_numbers)
            if state.changed:
                raise FxMlirError(
                    f"cannot trace {type(model).__name__} with torch.fx: "
                    "its forward branches on the values of a buffer and "
                    "updates a buffer in place, which the traced graph "
                    "would not do")
    except FxMlirError:
        raise
    except Exception:
        # A module the compiler binds whole (nn.InstanceNorm2d, whose
        # forward branches on the input's rank), or one the tracer runs a
        # reference forward of (nn.TransformerEncoderLayer), is traced as
        # the one call_module node of a wrapper, as it would be inside a
        # model.
        varargs = _takes_varargs(model) and example_inputs is not None
        if not (tracer.is_leaf_module(model, "") or varargs
                or _reference_forward(
                    model, example_inputs is not None) is not None):
            raise
        wrapper = _whole(model, example_inputs)
        tracer = ModulePathTracer(example_inputs, static_shapes)
        if varargs:
            # A forward of *args, which torch.fx cannot trace as the root
            # on Python 3.11, is traced into as the wrapper's submodule.
            tracer._traceable[id(model)] = True
        graph = tracer.trace(wrapper)
        gm = torch.fx.GraphModule(wrapper, graph, type(model).__name__)
        # Its state is the model's, under `module.`: compile keeps the
        # buffers the forward updates in the model itself.
        gm._fx_mlir_wrapped = True
        return gm
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
