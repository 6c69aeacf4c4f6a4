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

from . import FxMlirError, _native_path
from .fallback import (_state_kept, compile_with_fallback,
                       unsupported_node_names)
from .functionalize import (functionalize, updates_in_place,
                            _INPLACE_OPERATORS)
from .exporter import export_graph_module
from .importer import (_attribute, _unshared, import_graph_module,
                       module_type)
from .reference import constants_shared
from .specialize import SpecializedGraph, bind_numbers, is_number
from .scripting import (EXTRA_ROWS, ScriptedRouteWarning, grown_batch,
                        import_torchscript, script)
from .tracing import (ModulePathTracer, _known_function_names,
                      _known_module_types, _module_binds, _reference_forward,
                      _trace_for_compile, _wrapped_unknown, trace)





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


_STORAGE_DTYPES = {torch.quint8: torch.uint8, torch.qint8: torch.int8,
                   torch.qint32: torch.int32}


def _integers(t):
    """The storage integers of quantized tensor `t` as a tensor sharing its
    memory (its sizes, strides and offset), or `t.int_repr()` where its
    storage cannot be viewed so."""
    dtype = _STORAGE_DTYPES.get(t.dtype)
    if dtype is None:
        return t.int_repr()
    try:
        storage = t.storage().untyped()
        view = torch.empty(0, dtype=dtype)
        view.set_(storage, t.storage_offset(), t.size(), t.stride())
        return view
    except (AttributeError, RuntimeError, TypeError):
        return t.int_repr()


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
        """`t`'s integers, if `t` is quantized as the example was: a view
        of its storage (what `int_repr()` copies, 0.6 ms for a 1.2 MB
        activation; the compiled code never writes its inputs)."""
        if isinstance(t, torch.Tensor) and t.is_quantized and \
                _QParams(t).__dict__ == self.__dict__:
            return _integers(t)
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


def _is_namedtuple_class(target):
    return (isinstance(target, type) and issubclass(target, tuple)
            and hasattr(target, "_fields"))


def _structseq_of(node):
    """The torch.return_types type of what `node` returns when it returns
    a tuple (`x.max(0)`, `torch.linalg.eigh(a)`; `torch.max(x)` is a
    tensor, which the structure tells apart), else None."""
    if node.op == "call_method":
        name = node.target
    elif node.op == "call_function":
        name = getattr(node.target, "__name__", None)
    else:
        return None
    if not isinstance(name, str) or name.startswith("_"):
        return None
    cls = getattr(torch.return_types, name, None)
    return cls if isinstance(getattr(cls, "n_fields", None), int) else None


def _is_size_node(node):
    """Whether `node` reads a tensor's torch.Size (`x.shape`, `x.size()`),
    which the output gives back as a torch.Size, not a tuple."""
    if node.op == "call_function" and node.target is getattr:
        return len(node.args) == 2 and node.args[1] == "shape"
    return node.op == "call_method" and node.target == "size" and \
        len(node.args) == 1 and not node.kwargs


def _named_outputs(gm):
    """The named tuple types of `gm`'s outputs (a tree that _names_applied
    lays over the compiled graph's output structure), after replacing each
    node that builds a collections.namedtuple (a call of its class, which
    the compiler does not lower) by the tuple of its fields where only the
    output, `[i]` and `.field` read it. None when there are none."""
    graph = gm.graph
    changed = False
    # Last first: a named tuple that is a field of another is read back
    # from the other's fields, or output with it.
    for node in reversed(list(graph.nodes)):
        if node.op != "call_function" or \
                not _is_namedtuple_class(node.target):
            continue
        cls = node.target
        try:
            bound = inspect.signature(cls).bind(*node.args, **node.kwargs)
        except TypeError:
            continue
        bound.apply_defaults()
        fields = [bound.arguments[f] for f in cls._fields]
        users = list(node.users)
        if not all(u.op == "output" or "fx_mlir_named" in u.meta or (
                u.op == "call_function" and not u.kwargs and len(u.args) == 2
                and ((u.target is operator.getitem
                      and isinstance(u.args[1], int)
                      and -len(fields) <= u.args[1] < len(fields))
                     or (u.target is getattr and u.args[1] in cls._fields)))
                for u in users):
            continue
        for user in users:
            if user.op == "output" or "fx_mlir_named" in user.meta:
                continue
            key = user.args[1]
            value = fields[key if isinstance(key, int)
                           else cls._fields.index(key)]
            if isinstance(value, torch.fx.Node):
                user.replace_all_uses_with(value)
                graph.erase_node(user)
        node.meta["fx_mlir_named"] = (cls, tuple(fields))
        changed = True
    output = next(n for n in graph.nodes if n.op == "output")

    def spec(value):
        if isinstance(value, torch.fx.Node):
            if _is_size_node(value):
                return ("named", torch.Size, None)
            if "fx_mlir_named" in value.meta:
                cls, fields = value.meta["fx_mlir_named"]
                return ("named", cls, [spec(f) for f in fields])
            cls = _structseq_of(value)
            return ("named", cls, None) if cls is not None else None
        if isinstance(value, torch.Size):
            return ("named", torch.Size, None)
        if isinstance(value, (tuple, list)):
            if _is_namedtuple_class(type(value)):
                return ("named", type(value), [spec(v) for v in value])
            return [spec(v) for v in value]
        if isinstance(value, dict):
            return {k: spec(v) for k, v in value.items()}
        return None

    def plain(value):
        if isinstance(value, torch.fx.Node) and "fx_mlir_named" in value.meta:
            return tuple(plain(f) for f in value.meta["fx_mlir_named"][1])
        if isinstance(value, (tuple, list)):
            items = [plain(v) for v in value]
            return items if isinstance(value, list) else tuple(items)
        if isinstance(value, dict):
            return {k: plain(v) for k, v in value.items()}
        return value
    tree = _with_sizes(spec(output.args[0]), output.meta.get("fx_mlir_sizes"))
    if changed:
        output.args = (plain(output.args[0]),)
        for node in reversed(list(graph.nodes)):
            if "fx_mlir_named" in node.meta and not node.users:
                graph.erase_node(node)
        gm.recompile()
    return None if _spec_empty(tree) else tree


def _spec_empty(tree):
    """Whether _named_outputs' `tree` names no type anywhere."""
    if tree is None:
        return True
    if isinstance(tree, list):
        return all(map(_spec_empty, tree))
    if isinstance(tree, dict):
        return all(map(_spec_empty, tree.values()))
    return False


def _with_sizes(tree, sizes):
    """_named_outputs' `tree` with torch.Size at the positions `sizes` (the
    tracer's fx_mlir_sizes: where the traced forward returned a torch.Size
    that torch.fx recorded as a plain tuple) that name nothing else."""
    if sizes is None:
        return tree
    if sizes is True:
        return ("named", torch.Size, None) if _spec_empty(tree) else tree
    if isinstance(sizes, list):
        if tree is None:
            tree = [None] * len(sizes)
        if isinstance(tree, list) and len(tree) == len(sizes):
            return [_with_sizes(t, s) for t, s in zip(tree, sizes)]
        return tree
    if isinstance(sizes, dict):
        if tree is None:
            tree = {k: None for k in sizes}
        if isinstance(tree, dict):
            return {k: _with_sizes(t, sizes.get(k)) for k, t in tree.items()}
    return tree


def _names_applied(structure, tree):
    """`structure` (_parse_structure's) with the tuples `tree`
    (_named_outputs') names wrapped as _Named; unchanged where the two do
    not line up."""
    if tree is None:
        return structure
    if isinstance(tree, tuple) and tree[0] == "named":
        _, cls, fields = tree
        if cls is torch.Size and isinstance(structure, _Constant) and \
                isinstance(structure.value, (tuple, list)):
            return _Constant(torch.Size(structure.value))
        if not isinstance(structure, tuple):
            return structure
        count = len(fields) if fields is not None else \
            getattr(cls, "n_fields", len(structure))
        if len(structure) != count:
            return structure
        if fields is None:
            return _Named(cls, structure)
        return _Named(cls, [_names_applied(s, t)
                            for s, t in zip(structure, fields)])
    if isinstance(tree, list) and isinstance(structure, (tuple, list)) \
            and len(tree) == len(structure):
        items = [_names_applied(s, t) for s, t in zip(structure, tree)]
        return tuple(items) if isinstance(structure, tuple) else items
    if isinstance(tree, dict) and isinstance(structure, dict):
        return {k: _names_applied(v, tree.get(k)) for k, v in
                structure.items()}
    return structure


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


class _Named:
    """A tuple of the output structure that the model returns as a named
    tuple type: a collections.namedtuple its forward builds, or a
    torch.return_types structseq (`x.max(0)`, `torch.sort(x)`)."""

    def __init__(self, cls, items):
        self.cls, self.items = cls, items

    def make(self, values):
        if hasattr(self.cls, "_make"):
            return self.cls._make(values)
        return self.cls(values)


def _rebuild(structure, results):
    if isinstance(structure, int):
        return results[structure]
    if isinstance(structure, _Named):
        return structure.make([_rebuild(s, results)
                               for s in structure.items])
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
        # The buffers the graph updates (_BufferSlot): read from their
        # module after the caller's inputs, written back after each call.
        self._state = ()
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
        if self._state:
            if len(inputs) != self._num_inputs:
                self._check(inputs)
            inputs = tuple(inputs) + tuple(s.get() for s in self._state)
        callers = inputs  # the tensors an in-place update writes back to
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
                callers[index].copy_(value)
        return output

    def _keep_state(self, slots):
        self._state = tuple(slots)
        self._num_inputs -= len(self._state)

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
            # Two guards, for two different states: `_constants_copied`
            # keeps each call's in-place updates of a constant (a tensor
            # torch.fx made an attribute) from reaching the next call
            # through a compiled partition, which writes its updates back
            # into its inputs; `_state_kept`, inside compile_with_fallback,
            # restores the module's buffers and constants after the one
            # example run that records each partition's inputs.
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
    if gm is model and any(
            n.op == "call_function" and _is_namedtuple_class(n.target)
            for n in gm.graph.nodes):
        gm = _copy_graph_module(gm)  # the caller's GraphModule stays
    named = _named_outputs(gm)
    updated, state = [], []
    user_inputs = len(example_inputs)
    if _has_inplace(gm):
        if gm is model:  # the caller's GraphModule stays as it is
            gm = _copy_graph_module(gm)
        # The buffers the graph updates become inputs after the caller's,
        # read from the module and written back into it at each call, as
        # eager keeps them across calls.
        owner, buffers = model, _buffer_paths(model)
        if getattr(gm, "_fx_mlir_wrapped", False):
            # A module traced as the one call of a wrapper (tracing._whole):
            # its state paths start with `module.`.
            owner = types.SimpleNamespace(module=model)
            buffers = frozenset("module." + path for path in buffers)
        updated, paths = functionalize(gm, example_inputs,
                                       dynamic=dynamic_batch,
                                       buffers=buffers)
        _refuse_buffer_reads_in_control_flow(gm, paths)
        state = _buffers_as_inputs(gm, owner, paths)
        updated = updated + [user_inputs + i for i in range(len(state))]
        example_inputs = tuple(example_inputs) + tuple(
            slot.get().clone() for slot in state)
    try:
        with torch.no_grad():
            # The weights go to the compiler as memory (little-endian,
            # as the IR's blobs are), not as hex in the text.
            blobs = {} if sys.byteorder == "little" else None
            ir = import_graph_module(gm, example_inputs,
                                     dynamic_batch=dynamic_batch,
                                     blobs=blobs,
                                     batch_inputs=user_inputs)
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
    compiled = _compile_ir(ir, example_inputs, blobs, updated, **options)
    if state:
        compiled._keep_state(state)
    if named is not None:
        compiled._structure = _names_applied(compiled._structure, named)
    return compiled


class _BufferSlot:
    """A buffer a graph updates in place: `field` of the module `owner`,
    read when the compiled graph is called and written back after it."""

    def __init__(self, path, owner, field):
        self.path, self.owner, self.field = path, owner, field

    def get(self):
        return getattr(self.owner, self.field)


def _slot_in(module, slot):
    """`slot` (a buffer of a GraphModule exported from `module`'s IR) as
    the same buffer of `module` when it has one of that path, shape and
    dtype, else `slot`."""
    owner_path, _, field = slot.path.rpartition(".")
    owner = _attribute(module, owner_path) if owner_path else module
    mine, theirs = getattr(owner, field, None), slot.get()
    if isinstance(mine, torch.Tensor) and mine.shape == theirs.shape and \
            mine.dtype == theirs.dtype:
        return _BufferSlot(slot.path, owner, field)
    return slot


def _buffer_paths(model):
    """The paths of `model`'s module state other than parameters: its
    registered buffers and its modules' plain tensor attributes
    (`self.t = torch.zeros(3)` in `__init__`), which eager keeps across
    calls too; not the tensors torch.fx made constants of
    (`_tensor_constant0`: a `torch.zeros(n)` the forward makes again at
    each call)."""
    try:
        paths = {name for name, _ in model.named_buffers()}
        for prefix, module in model.named_modules():
            for key, value in vars(module).items():
                if isinstance(value, torch.Tensor) and \
                        not isinstance(value, torch.nn.Parameter) and \
                        not re.fullmatch(r"_tensor_constant\d+", key):
                    paths.add(f"{prefix}.{key}" if prefix else key)
        return frozenset(paths)
    except AttributeError:
        return frozenset()


def _refuse_buffer_reads_in_control_flow(gm, paths):
    """Raises FxMlirError when a graph of `gm`'s control flow (a branch or
    loop body, a GraphModule it holds) reads one of the buffers `paths`
    the forward updates: it would read the value compiled in, not the
    one the call has (the TorchScript importer moves the forward's own
    reads out of control flow; a submodule called in a branch reads its
    buffer there)."""
    if not paths:
        return
    for name, sub in gm.named_modules():
        if not name or not isinstance(sub, torch.fx.GraphModule):
            continue
        for node in sub.graph.nodes:
            if node.op == "get_attr" and node.target in paths:
                raise FxMlirError(
                    f"cannot compile get_attr '{node.name}' in graph "
                    f"'{name}': it reads buffer '{node.target}' inside "
                    "control flow, and the forward updates that buffer, "
                    "whose value a branch or loop body cannot read yet")


def _buffers_as_inputs(gm, model, paths):
    """Replaces the get_attr nodes of `gm` that read the buffers `paths`
    (after functionalize: each reads the buffer's value at the start of
    the call) by one placeholder per buffer, marked `fx_mlir_buffer`,
    after the graph's inputs, in the order of `paths`. Returns a
    _BufferSlot per buffer: read from `model` when the path names the same
    tensor there, else from `gm`."""
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    slots = []
    for path in paths:
        owner_path, _, field = path.rpartition(".")
        holder = model
        if _attribute(model, path) is not _attribute(gm, path):
            holder = gm
        owner = _attribute(holder, owner_path) if owner_path else holder
        if placeholders:
            where = gm.graph.inserting_after(placeholders[-1])
        else:
            where = gm.graph.inserting_before(next(iter(gm.graph.nodes)))
        with where:
            placeholder = gm.graph.placeholder(
                "state_" + path.replace(".", "_"))
        placeholder.meta["fx_mlir_buffer"] = path
        for node in list(gm.graph.nodes):
            if node.op == "get_attr" and node.target == path:
                node.replace_all_uses_with(placeholder)
                gm.graph.erase_node(node)
        placeholders.append(placeholder)
        slots.append(_BufferSlot(path, owner, field))
    gm.recompile()
    return slots


# A node calling an in-place ATen operator (`aten::relu_`, `aten::add_.Tensor`;
# not `aten::__and__`).
_INPLACE_ATEN = re.compile(
    r'fx\.call_function "aten::[A-Za-z0-9_]*[A-Za-z0-9]_(\.[A-Za-z0-9_]+)?"')

# A module compile() traces into by its reference forward, which the IR
# holds as a call_module the lowering does not bind (a traced archive's
# dynamic quantized LSTM or GRU): compiled through its exported GraphModule.
_TRACED_INTO_MODULE = re.compile(
    r'fx\.submodule @\S+ "torch\.ao\.nn\.quantized\.dynamic\.'
    r'(LSTM|GRU)"')


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
        # Tracing runs the forward: the buffers it updates are restored.
        with torch.no_grad(), warnings.catch_warnings(record=True) as caught, \
                _state_kept(model) as state:
            warnings.simplefilter("always", torch.jit.TracerWarning)
            traced = torch.jit.trace(model, tuple(example_inputs),
                                     check_trace=False, strict=False)
    except Exception as error:  # noqa: BLE001 - named in the error
        raise FxMlirError(
            f"cannot compile {type(model).__name__}: it has forward hooks "
            f"(on {', '.join(hooked)}), which torch.fx does not run, and "
            f"torch.jit.trace failed: {error}") from error
    # What a trace cannot hold: a branch on a tensor's value (the trace
    # keeps the example's path) and a buffer rebound (`self.b = ...`, not
    # recorded); updates in place are recorded.
    why = None
    branches = [str(w.message) for w in caught
                if issubclass(w.category, torch.jit.TracerWarning)
                and "Python boolean" in str(w.message)]
    if branches:
        why = ("its forward branches on a tensor's value, which the trace "
               "fixes to the example's path")
    elif state.rebound:
        why = (f"its forward assigns {', '.join(sorted(set(state.rebound)))}"
               ", which torch.jit.trace does not record")
    for w in caught:
        if not issubclass(w.category, torch.jit.TracerWarning):
            warnings.warn_explicit(w.message, w.category, w.filename,
                                   w.lineno)
    if why:
        raise FxMlirError(
            f"cannot compile {type(model).__name__}: it has forward hooks "
            f"(on {', '.join(hooked)}), which torch.fx does not run, and "
            f"{why}")
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
    more = [grown_batch(example_inputs, extra) for extra in EXTRA_ROWS] \
        if options["dynamic_batch"] else None
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
            # functionalized as any other, or says why it cannot be. A
            # dynamic quantized LSTM or GRU: that GraphModule's module is
            # traced into (fx_mlir/reference.py).
            if not (_INPLACE_ATEN.search(ir)
                    or _TRACED_INTO_MODULE.search(ir)):
                raise
            try:
                gm = export_graph_module(ir)
            except FxMlirError:
                raise direct_error from None
            compiled = compile(gm, example_inputs, **options)
            # The buffers it updates are the scripted module's.
            compiled._state = tuple(_slot_in(model, slot)
                                    for slot in compiled._state)
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
        # A module call updates its own buffers (a BatchNorm in training
        # mode): they are put back.
        with torch.no_grad(), _state_kept(gm):
            Recorder(gm).run(*inputs)
    except Exception:  # noqa: BLE001 - compile reports a model that fails
        pass
    return values


def _indexed_only(node, result):
    """Whether every use of `node` can read `result` instead: `result` a
    node, or a (nested) tuple of nodes that `node`'s users index with
    constants (a dynamic LSTM's `(output, (h, c))`)."""
    if isinstance(result, torch.fx.Node):
        return True
    return isinstance(result, (tuple, list)) and all(
        user.op == "call_function" and user.target is operator.getitem
        and len(user.args) == 2 and isinstance(user.args[1], int)
        and not user.kwargs and -len(result) <= user.args[1] < len(result)
        and _indexed_only(user, result[user.args[1]])
        for user in node.users)


def _replace_indexed(graph, node, result, values):
    """Each use of `node` reads `result` (_indexed_only): the indexing
    users go; `values` (example values by node) follows."""
    if isinstance(result, torch.fx.Node):
        node.replace_all_uses_with(result)
        if node in values:  # for a later candidate that reads it
            values[result] = values[node]
        return
    for user in list(node.users):
        _replace_indexed(graph, user, result[user.args[1]], values)
        graph.erase_node(user)


def _inline_unbound_modules(gm, example_inputs=None, static_shapes=False,
                            select=None):
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
    trace (the compiler then names it). With `select` (a predicate on
    modules), only the call_modules of the modules it selects are
    replaced, and only by their reference forwards. The caller's
    GraphModule is not changed."""
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
                and select is None and example_inputs is not None
                and _wrapped_unknown(node.target, known_functions)):
            candidates.append(node)
            continue
        if node.op != "call_module":
            continue
        try:
            module = gm.get_submodule(node.target)
        except AttributeError:
            continue
        if select is not None:
            if select(module) and _reference_forward(module) is not None:
                candidates.append(node)
            continue
        # torch.nn's own classes (torch.nn.X; quantized and fused modules
        # are the importer's) the registry does not bind (by type, or with
        # these hyperparameters: _module_binds), and the modules
        # compile traces into by a reference forward (fx_mlir/reference.py:
        # dynamic LSTM and GRU, quantized embeddings, nn.EmbeddingBag, ...).
        # A GraphModule called as a submodule (torch.fx.passes.
        # split_module's partitions): its graph, traced in.
        if isinstance(module, torch.fx.GraphModule):
            candidates.append(node)
            continue
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
    with constants_shared():
        changed = _inline_candidates(copy, candidates, by_name, values,
                                     static_shapes)
    if not changed:
        return gm
    # The inlined modules go (a quantized Embedding's table, which no
    # quant type holds, is not imported then).
    copy.delete_all_unused_submodules()
    copy.recompile()
    return copy


def _inline_candidates(copy, candidates, by_name, values, static_shapes):
    """_inline_unbound_modules' replacement of `candidates` in `copy`:
    whether one was replaced."""
    changed = False
    constants = {}  # id -> (a tensor moved onto `copy`, its name there)
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
            # onto the graph module under a fresh name, once: once for all
            # calls when they make the same tensor (a quantized
            # embedding's rows, computed once a module).
            if name == "inner" or name.startswith("inner."):
                return prefix + name[len("inner"):]
            if name not in moved:
                value = getattr(wrapper, name)
                if id(value) in constants:
                    moved[name] = constants[id(value)][1]
                    return moved[name]
                fresh = f"{prefix.replace('.', '_')}_{name}"
                while hasattr(copy, fresh):
                    fresh += "_"
                setattr(copy, fresh, value)
                moved[name] = fresh
                if isinstance(value, torch.Tensor):
                    constants[id(value)] = (value, fresh)
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
        if _indexed_only(node, result):
            _replace_indexed(copy.graph, node, result, values)
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
    return changed


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
        value = _attribute(gm, node.target)
        if not isinstance(value, torch.Tensor) or \
                isinstance(value, torch.nn.Parameter) or not node.users:
            continue
        with gm.graph.inserting_after(node):
            copy = gm.graph.call_method("clone", (node,))
        node.replace_all_uses_with(copy)
        copy.args = (node,)
    gm.recompile()
    return gm


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
