"""In-place operations made functional before a graph is compiled.

Compiled code computes values; it does not update tensors in place. A
traced graph may (`y.add_(1)`, `x.masked_fill_(m, 0)`, `F.relu(x,
inplace=True)`, `nn.ReLU(inplace=True)` on an input): `functionalize`
rewrites each such node into its out-of-place form and makes every later
use of the updated tensor read the new value instead. When the updated
tensor is one of the graph's inputs, eager changes the caller's tensor: the
graph then also returns the input's final value, and the compiled function
copies it into the caller's tensor after each call (CompiledGraph), so the
caller sees what eager would have left there.

An in-place update of a view (`x[0].add_(1)`, `x.view(-1).zero_()`) changes
the tensor it views; that is reported as an error naming the node unless
neither tensor is used afterwards.
"""

import contextlib
import io
import operator
import re

import torch

from . import FxMlirError
from .importer import _attribute
from .scripting import grown_batch

# Methods and functions whose result may share memory with their first
# argument: an in-place update of their result updates that argument too.
_VIEW_METHODS = {
    "view", "view_as", "reshape", "reshape_as", "transpose", "permute", "t",
    "expand", "expand_as", "squeeze", "unsqueeze", "narrow", "select",
    "unflatten", "flatten", "diagonal", "unfold", "as_strided", "split",
    "chunk", "unbind", "contiguous", "detach", "swapaxes", "swapdims",
    "movedim", "moveaxis", "split_with_sizes", "tensor_split", "T", "mT",
    "H", "mH", "real", "imag", "ravel",
}
_VIEW_FUNCTIONS = {
    operator.getitem, torch.transpose, torch.reshape, torch.flatten,
    torch.squeeze, torch.unsqueeze, torch.narrow, torch.select, torch.split,
    torch.chunk, torch.unbind, torch.t, torch.permute, torch.diagonal,
    torch.detach, torch.swapaxes, torch.swapdims, torch.movedim,
    torch.moveaxis, torch.tensor_split, torch.ravel,
}

# The view methods whose in-place forms (`t_`, `transpose_`, `unsqueeze_`,
# `squeeze_`, `swapaxes_`, `swapdims_`) change the tensor's shape, not its
# data: such an update gives the tensor a new shape and leaves its base.
_SHAPE_ONLY_VIEWS = frozenset(
    {"t", "transpose", "unsqueeze", "squeeze", "swapaxes", "swapdims"})

# torch.nn.functional functions with an `inplace` parameter, and the
# torch.nn modules with an `inplace` attribute, that update their input.
_INPLACE_KWARG = "inplace"


# Python's in-place operators (`x += y` on a tensor, as fx_mlir's tracer
# records it) and the operators they update their left operand with.
_INPLACE_OPERATORS = {
    operator.iadd: operator.add, operator.isub: operator.sub,
    operator.imul: operator.mul, operator.itruediv: operator.truediv,
    operator.ifloordiv: operator.floordiv, operator.imod: operator.mod,
    operator.ipow: operator.pow, operator.iand: operator.and_,
    operator.ior: operator.or_, operator.ixor: operator.xor,
    operator.ilshift: operator.lshift, operator.irshift: operator.rshift,
}


# The meta key marking the nodes functionalize makes for an updated
# tensor's new value: a tensor of its own, whatever op makes it (a reshape
# of a scatter), never a view of the tensor it replaces.
_FRESH = "fx_mlir_fresh"


# The view ops that copy when the input's strides do not allow a view
# (`x.permute(0, 2, 1).reshape(n, -1)`, `x.t().contiguous()`): which they
# did on the example inputs is recorded by _shapes (_COPIES).
_MAYBE_COPY_METHODS = {"reshape", "reshape_as", "flatten", "contiguous",
                       "ravel"}
_MAYBE_COPY_FUNCTIONS = {torch.reshape, torch.flatten, torch.ravel}
_COPIES = "fx_mlir_copies"


def _maybe_copy(node):
    return (node.op == "call_method" and node.target in _MAYBE_COPY_METHODS
            ) or (node.op == "call_function"
                  and node.target in _MAYBE_COPY_FUNCTIONS)


def _is_view(node):
    # A reshape that copied on the example inputs is a tensor of its own:
    # an update of it leaves its input (eager's does).
    if node.meta.get(_COPIES) is True:
        return False
    if node.op == "call_method":
        return node.target in _VIEW_METHODS
    if node.op == "call_function":
        return node.target in _VIEW_FUNCTIONS
    return False


def _storage(t):
    try:
        return t.storage().data_ptr()
    except Exception:  # noqa: BLE001 - no storage: not comparable
        return None


def _record_copies(gm, example_inputs):
    """Marks each reshape-like node (_maybe_copy) of `gm` with whether it
    copied its input (`_COPIES`: True or False) when `gm` runs on
    `example_inputs`; "varies" when an earlier run (other batch) said
    otherwise."""
    from .importer import _TypeProp

    class Recorder(_TypeProp):
        def run_node(self, n):
            result = super().run_node(n)
            if _maybe_copy(n) and n.args and isinstance(
                    n.args[0], torch.fx.Node):
                source = self.env.get(n.args[0])
                if isinstance(result, torch.Tensor) and isinstance(
                        source, torch.Tensor):
                    a, b = _storage(result), _storage(source)
                    copied = None if a is None or b is None else a != b
                    before = n.meta.get(_COPIES, copied)
                    n.meta[_COPIES] = copied if before == copied \
                        else "varies"
            return result
    return Recorder(gm)


def _out_of_place(node, root):
    """(the out-of-place form of `node` as (op, target, args, kwargs), the
    updated tensor's node) if `node` updates its first argument in place,
    else None."""
    if node.op == "call_method" and isinstance(node.target, str):
        name = node.target
        if (name.endswith("_") and not name.startswith("_")
                and node.args and isinstance(node.args[0], torch.fx.Node)):
            self = node.args[0]
            special = _overwrite(name[:-1], node)
            if special is not None:
                return special, self
            if hasattr(torch.Tensor, name[:-1]):
                return ("call_method", name[:-1], node.args,
                        dict(node.kwargs)), self
        return None
    if node.op == "call_function":
        name = getattr(node.target, "__name__", "")
        first = node.args[0] if node.args else None
        if not isinstance(first, torch.fx.Node):
            return None
        aten = _aten_out_of_place(node)
        if aten is not None:
            return aten, first
        if node.target in _INPLACE_OPERATORS:
            return ("call_function", _INPLACE_OPERATORS[node.target],
                    node.args, {}), first
        if node.kwargs.get(_INPLACE_KWARG) is True:
            kwargs = dict(node.kwargs)
            kwargs[_INPLACE_KWARG] = False
            return ("call_function", node.target, node.args, kwargs), first
        if node.target is getattr(torch, "zero_", None):
            return ("call_function", torch.zeros_like, (first,), {}), first
        if (name.endswith("_") and not name.startswith("_")
                and getattr(node.target, "__module__", None) in (
                    "torch", "torch._C._VariableFunctions")
                and hasattr(torch, name[:-1])):
            return ("call_function", getattr(torch, name[:-1]), node.args,
                    dict(node.kwargs)), first
        return None
    if node.op == "call_module" and node.args and isinstance(
            node.args[0], torch.fx.Node):
        module = root.get_submodule(node.target)
        if getattr(module, _INPLACE_KWARG, False) is True:
            return None, node.args[0]  # the module's call stays (see below)
    return None


def updates_in_place(target):
    """Whether `target`, an ATen OpOverload or packet (`aten.fill_.Scalar`,
    `aten.sub_`), updates its first argument in place (its schema marks
    it `Tensor(a!)`)."""
    if isinstance(target, torch._ops.OpOverloadPacket):
        schemas = [getattr(target, o)._schema for o in target.overloads()]
    elif isinstance(target, torch._ops.OpOverload):
        schemas = [target._schema]
    else:
        return False
    def writes(schema):
        info = schema.arguments[0].alias_info if schema.arguments else None
        return (info is not None and info.is_write
                and not schema.arguments[0].kwarg_only)
    return bool(schemas) and all(writes(s) for s in schemas)


def _overwrite(base, node):
    """The out-of-place call of the in-place operators that overwrite their
    tensor (`zero_`, `fill_`, `copy_`, whose out-of-place names are other
    operators), by the name without the `_`; None for the others."""
    first = node.args[0]
    if base == "zero":
        return ("call_function", torch.zeros_like, (first,), {})
    if base == "fill":
        value = node.args[1] if len(node.args) > 1 else node.kwargs.get(
            "value")
        # fill_ with a (0-d) tensor value (fill_.Tensor: what a trace of
        # `x[:, 0] = 1.0` records): the value broadcast, as copy_.
        if isinstance(value, torch.fx.Node) and value.meta.get(
                "type") not in (int, float, bool):
            return ("call_method", "_fx_mlir_copy", (first, value), {})
        return ("call_function", torch.full_like, (first, value), {})
    if base == "copy":
        return ("call_method", "_fx_mlir_copy", (first, node.args[1]), {})
    return None


def _aten_out_of_place(node):
    """The out-of-place call (op, target, args, kwargs) of a call of an
    in-place ATen operator (`torch.ops.aten.sub_.Tensor(x, y)` is
    `torch.ops.aten.sub.Tensor(x, y)` and updates x), or None."""
    target = node.target
    if not updates_in_place(target):
        return None
    packet_name = (target._schema.name if isinstance(
        target, torch._ops.OpOverload) else target._qualified_op_name)
    base = packet_name.split("::")[-1]
    if base.endswith("_"):
        base = base[:-1]
    special = _overwrite(base, node)
    if special is not None:
        return special
    try:
        packet = getattr(torch.ops.aten, base)
    except (AttributeError, RuntimeError):
        return None
    if isinstance(target, torch._ops.OpOverload):
        overload = target._overloadname
        if overload not in packet.overloads():
            return None
        return ("call_function", getattr(packet, overload), node.args,
                dict(node.kwargs))
    return ("call_function", packet, node.args, dict(node.kwargs))


def _is_setitem(node):
    """`x[index] = value`: operator.setitem, or Tensor.__setitem__ of a
    constant tensor given a traced value."""
    return (node.op == "call_function" and node.target is operator.setitem
            or node.op == "call_method" and node.target == "__setitem__")


def _holds_node(value):
    if isinstance(value, torch.fx.Node):
        return True
    if isinstance(value, (tuple, list)):
        return any(_holds_node(v) for v in value)
    if isinstance(value, slice):
        return any(_holds_node(v) for v in (value.start, value.stop,
                                            value.step))
    return False


def _setitem(gm, node, shapes, dynamic=False):
    """The nodes computing `base` after `base[index] = value` (the
    operator.setitem `node`), inserted before it: the flat positions the
    index selects, a constant computed here from base's (static) shape,
    scattered with the value broadcast to them; with `dynamic` (a batch
    of any size), select_scatter/slice_scatter of the indexed view where
    the index is ints and slices. Returns the last node."""
    graph = gm.graph
    base, index, value = node.args
    shape = shapes.get(base)
    if shape is None:
        raise FxMlirError(f"cannot compile call_function '{node.name}' with "
                          "target 'setitem': the shape of the updated tensor "
                          "is not known")
    filled = _setitem_by_tensor(graph, node, shape, shapes)
    if filled is None:
        filled = _setitem_by_index_tensors(graph, node)
    if filled is None:
        filled = _setitem_along_dim(graph, node, shape, shapes)
    if filled is not None:
        return filled
    if _holds_node(index):
        raise FxMlirError(f"cannot compile call_function '{node.name}' with "
                          "target 'setitem': only indices of ints, slices, "
                          "None and `...`, or one bool mask or int index "
                          "tensor with a single value, are supported")
    if dynamic:
        scattered = _setitem_by_views(graph, node, len(shape))
        if scattered is not None:
            return scattered
        filled = _setitem_by_list(gm, node, shape, shapes)
        if filled is not None:
            return filled
    positions = torch.arange(int(torch.Size(shape).numel())).reshape(shape)
    positions = positions[index].reshape(-1)
    region = torch.empty(shape, device="meta")[index].shape
    name = f"_fx_mlir_setitem_{node.name}"
    gm.register_buffer(name, positions)
    with graph.inserting_before(node):
        where = graph.get_attr(name)
        flat = graph.call_method("reshape", (base, -1))
        if isinstance(value, torch.fx.Node):
            spread = graph.call_method("expand", (value, tuple(region)))
            spread = graph.call_method("reshape", (spread, -1))
            spread = graph.call_method("type_as", (spread, base))
        else:
            spread = graph.call_method("new_full",
                                       (base, (positions.numel(),), value))
        scattered = graph.call_method("scatter", (flat, 0, where, spread))
        new = graph.call_method("reshape", (scattered, tuple(shape)))
    for made in (where, flat, scattered, new):
        made.meta = dict(node.meta)
    new.meta[_FRESH] = True
    return new


def _setitem_by_list(gm, node, shape, shapes):
    """`base[:, [1, 3]] = v` (full slices, then a list of ints into dim d,
    the last item of the index) with one value `v` (a number or a
    one-element tensor), for a batch of any size: base.index_fill(d, the
    list as a constant, v). None for other indices."""
    base, index, value = node.args
    if isinstance(index, list):
        index = (index,)  # `base[[0, 2]] = v`: along dim 0
    if not isinstance(index, tuple) or not index:
        return None
    *before, item = index
    full = slice(None, None, None)
    dim = len(before)
    if not isinstance(item, list) or not item or dim >= len(shape) or \
            not all(b == full for b in before) or \
            not all(type(i) is int for i in item):
        return None
    size = shape[dim]
    if dim == 0 and any(i < 0 for i in item):
        return None  # counted from a batch of run-time size
    if dim > 0 and not all(-size <= i < size for i in item):
        return None  # eager's IndexError, from the example run
    positions = torch.tensor([i % size if dim > 0 else i for i in item])
    if isinstance(value, torch.fx.Node):
        count = shapes.get(value)
        if count is None or int(torch.Size(count).numel()) != 1:
            return None
    name = f"_fx_mlir_setitem_{node.name}"
    gm.register_buffer(name, positions)
    graph = gm.graph
    with graph.inserting_before(node):
        where = graph.get_attr(name)
        fill = value
        if isinstance(value, torch.fx.Node):
            fill = graph.call_method("reshape", (value, ()))
        new = graph.call_method("index_fill", (base, dim, where, fill))
    for made in (where, new):
        made.meta = dict(node.meta)
    return new


def _setitem_by_views(graph, node, rank):
    """`base[index] = value` for an index of ints and slices of constant
    bounds (and `...`), without baking base's shape in: the view the index
    selects is replaced by the value (broadcast, in base's dtype) through
    nested select_scatter/slice_scatter, outermost dim first. None for any
    other index."""
    base, index, value = node.args
    items = list(index) if isinstance(index, tuple) else [index]
    if sum(i is Ellipsis for i in items) > 1 or any(
            not (i is Ellipsis or isinstance(i, (int, slice))) or isinstance(
                i, bool) for i in items):
        return None
    if any(isinstance(i, slice) and not all(
            p is None or isinstance(p, int) for p in (i.start, i.stop, i.step))
            for i in items):
        return None
    if Ellipsis in items:
        at = items.index(Ellipsis)
        fill = rank - (len(items) - 1)
        items = items[:at] + [slice(None)] * fill + items[at + 1:]
    if len(items) > rank:
        return None
    # The (dim, item) pairs that select, with the dims of the view they
    # apply to (a select drops its dim).
    steps, dim = [], 0
    for item in items:
        if isinstance(item, slice) and item == slice(None):
            dim += 1
            continue
        steps.append((dim, item))
        if isinstance(item, slice):
            dim += 1
    if not steps:
        return None

    def assign(tensor, remaining):
        (d, item), rest = remaining[0], remaining[1:]
        if isinstance(item, int):
            part = graph.call_method("select", (tensor, d, item))
        else:
            part = graph.call_function(operator.getitem, (
                tensor, (slice(None),) * d + (item,)))
        if rest:
            new_part = assign(part, rest)
        elif isinstance(value, torch.fx.Node):
            new_part = graph.call_method("type_as", (
                graph.call_method("expand_as", (value, part)), part))
        else:
            new_part = graph.call_function(torch.full_like, (part, value))
        if isinstance(item, int):
            return graph.call_function(torch.select_scatter,
                                       (tensor, new_part, d, item))
        return graph.call_function(torch.slice_scatter, (
            tensor, new_part, d, item.start, item.stop,
            1 if item.step is None else item.step))

    with graph.inserting_before(node):
        return assign(base, steps)


def _setitem_by_tensor(graph, node, shape, shapes):
    """`base[mask] = v` (a bool mask over base's leading dims) and
    `base[i] = v` (int indices into dim 0) with one value `v` (a number or
    a one-element tensor): base.masked_fill(mask, v) and
    base.index_fill(0, i, v), inserted before `node`. None for other
    indices; a tensor of several values is an error (the count a mask
    selects depends on the data)."""
    base, index, value = node.args
    if not isinstance(index, torch.fx.Node):
        return None
    meta = index.meta.get("tensor_meta")
    dtype = getattr(meta, "dtype", None)
    if dtype is None or index not in shapes:
        return None
    mask = dtype == torch.bool
    if not mask and (dtype.is_floating_point or dtype.is_complex):
        return None
    if isinstance(value, torch.fx.Node):
        count = shapes.get(value)
        if not mask and count is not None and \
                int(torch.Size(count).numel()) != 1:
            return None  # several values: index_put
        if count is None or int(torch.Size(count).numel()) != 1:
            raise FxMlirError(
                f"cannot compile call_function '{node.name}' with target "
                "'setitem': a tensor index assigns one value (a number or "
                "a one-element tensor) here; a tensor of values is not "
                "supported")
        value_node = value
    else:
        value_node = None
    index_shape = shapes[index]
    if mask and tuple(index_shape) != tuple(shape[:len(index_shape)]):
        return None
    with graph.inserting_before(node):
        fill = value
        if value_node is not None:
            fill = graph.call_method("reshape", (value_node, ()))
        if mask:
            m = index
            for _ in range(len(shape) - len(index_shape)):
                m = graph.call_method("unsqueeze", (m, -1))
            new = graph.call_method("masked_fill", (base, m, fill))
        else:
            flat = graph.call_method("reshape", (index, -1))
            new = graph.call_method("index_fill", (base, 0, flat, fill))
    new.meta = dict(node.meta)
    return new


def _setitem_along_dim(graph, node, shape, shapes):
    """`base[:, i] = v`, `base[..., i] = v` (full slices, then one int
    index tensor into dim d, nothing after it but the dims it leaves) with
    one value `v` (a number or a one-element tensor): base.index_fill(d,
    i, v), inserted before `node`. None for other indices."""
    base, index, value = node.args
    if not isinstance(index, tuple):
        return None
    tensors = [k for k, item in enumerate(index)
               if isinstance(item, torch.fx.Node)]
    if len(tensors) != 1:
        return None
    position = tensors[0]
    item = index[position]
    dtype = getattr(item.meta.get("tensor_meta"), "dtype", None)
    if dtype is None or dtype == torch.bool or dtype.is_floating_point or \
            dtype.is_complex or position + 1 != len(index):
        return None
    before = index[:position]
    full = slice(None, None, None)
    if all(b == full for b in before):
        dim = position
    elif before and before[0] is Ellipsis and \
            all(b == full for b in before[1:]):
        dim = len(shape) - 1  # `base[..., i]`: the last dim
        if position != 1:
            return None
    else:
        return None
    if dim >= len(shape):
        return None
    if isinstance(value, torch.fx.Node):
        count = shapes.get(value)
        if count is None or int(torch.Size(count).numel()) != 1:
            return None
    with graph.inserting_before(node):
        fill = value
        if isinstance(value, torch.fx.Node):
            fill = graph.call_method("reshape", (value, ()))
        flat = graph.call_method("reshape", (item, -1))
        new = graph.call_method("index_fill", (base, dim, flat, fill))
    new.meta = dict(node.meta)
    return new


def _setitem_by_index_tensors(graph, node):
    """`base[i, j] = v` with int index tensors for consecutive leading
    dims (and `base[i] = values`): base.index_put((i, j), v), inserted
    before `node` (a number `v` as a 0-d tensor of base's dtype). None for
    other indices."""
    base, index, value = node.args
    items = index if isinstance(index, tuple) else (index,)

    def int_tensor(item):
        if not isinstance(item, torch.fx.Node):
            return False
        dtype = getattr(item.meta.get("tensor_meta"), "dtype", None)
        return dtype is not None and not dtype.is_floating_point and \
            not dtype.is_complex and dtype != torch.bool
    if not items or not all(int_tensor(i) for i in items):
        return None
    with graph.inserting_before(node):
        values = value
        if not isinstance(value, torch.fx.Node):
            values = graph.call_method("new_full", (base, (), value))
        new = graph.call_method("index_put", (base, tuple(items), values))
    new.meta = dict(node.meta)
    return new


def _shapes(gm, example_inputs):
    """The shape of every tensor node of `gm` on `example_inputs`. Raises
    FxMlirError when the graph does not run on them (as eager would not:
    an in-place update of overlapping memory, `add_(1.5)` of an int
    tensor)."""
    try:
        with torch.no_grad(), contextlib.redirect_stderr(io.StringIO()):
            _record_copies(gm, example_inputs).propagate(*[
                t.clone() if isinstance(t, torch.Tensor) else t
                for t in example_inputs])
    except Exception as error:  # noqa: BLE001 - the model's own failure
        cause = error  # the operator's own error, under ShapeProp's
        while (cause.__cause__ or cause.__context__) is not None:
            cause = cause.__cause__ or cause.__context__
        first = (str(cause).strip().splitlines() or [""])[0]
        node = re.search(r"ShapeProp error for: node=%(\w+)", str(error))
        where = f"node '{node.group(1)}' of " if node else ""
        raise FxMlirError(
            f"cannot compile {where}{type(gm).__name__}: it does not run on "
            f"the example inputs ({type(cause).__name__}: {first})"
        ) from error
    return {n: tuple(n.meta["tensor_meta"].shape) for n in gm.graph.nodes
            if hasattr(n.meta.get("tensor_meta"), "shape")}


def _shape_after(new, node, shape):
    """The shape of `new`, the out-of-place form of the in-place `node`
    that updated a tensor of `shape`: the same, but for the in-place view
    ops that change it (`t_`, `transpose_`, `unsqueeze_`, `squeeze_`),
    computed on a meta tensor."""
    if new.op != "call_method" or new.target not in _SHAPE_ONLY_VIEWS:
        return shape
    try:
        meta = torch.empty(shape, device="meta")
        return tuple(getattr(meta, new.target)(*new.args[1:],
                                               **new.kwargs).shape)
    except Exception:  # noqa: BLE001 - left unknown
        return None


def _refresh_aliases(graph, old, new, order, position, shapes):
    """Redirects the reads after `position` of each view of `old` made
    before it (and of views of those) to the same view of `new`, a copy
    of the view node inserted after `new`."""
    def made_before(view, base):
        return (_is_view(view) and view.args and view.args[0] is base
                and order.get(view, position) < position)

    def read_after(view):
        return any(order.get(u, -1) > position or (
            made_before(u, view) and read_after(u)) for u in view.users)

    for view in list(old.users):
        if not made_before(view, old) or not read_after(view):
            continue
        later = [u for u in view.users if order.get(u, -1) > position]
        with graph.inserting_after(new):
            fresh = graph.node_copy(
                view, lambda n: new if n is old else n)
        order[fresh] = position
        if view in shapes:
            shapes[fresh] = shapes[view]
        for user in later:
            user.replace_input_with(view, fresh)
        _refresh_aliases(graph, view, fresh, order, position, shapes)


def _view_update_blocker(chain, node, order, shapes):
    """Why the update `node` of the view chain[0] (chain: the views from it
    up to their base, chain[-1]) cannot be made out-of-place, or "": each
    view must be one `_unview` inverts, with known shapes, and no other
    view of the base may be read after the update (it would keep the old
    values, where eager's aliases see the new ones)."""
    for view in chain[:-1]:
        if _unview_kind(view, shapes) is None:
            return (f"through '{view.name}' "
                    f"({getattr(view.target, '__name__', view.target)}) "
                    "is not supported")
    base, on_chain = chain[-1], set(chain)
    # The other views of the base made before the update.
    aliases, seen, stack = [], set(), [base]
    while stack:
        current = stack.pop()
        for user in current.users:
            if (_is_view(user) and user.args and user.args[0] is current
                    and user not in seen):
                seen.add(user)
                stack.append(user)
                if user not in on_chain and order.get(user, -1) < order[node]:
                    aliases.append(user)
    for alias in aliases:
        if any(order.get(u, -1) > order[node] for u in alias.users):
            return (f"is not supported while its other view "
                    f"'{alias.name}' is read afterwards")
    return ""


def _unview_kind(view, shapes):
    """How `_unview` writes back into the base of `view`: "reshape",
    "transpose", "permute", "index" (the getitem index), or None when it
    cannot (or the shapes are unknown)."""
    parent = view.args[0]
    if parent not in shapes or view not in shapes:
        return None
    name = view.target if view.op == "call_method" else getattr(
        view.target, "__name__", "")
    if name in ("view", "view_as", "reshape", "reshape_as", "flatten",
                "unflatten", "squeeze", "unsqueeze", "contiguous", "detach",
                "ravel"):
        return "reshape"
    if name in ("transpose", "swapaxes", "swapdims", "t"):
        return "transpose"
    if name == "permute":
        return "permute"
    if name in ("narrow", "select"):
        return "index"
    if name == "getitem":
        items = view.args[1] if isinstance(view.args[1], tuple) else (
            view.args[1],)
        simple = all(i is None or i is Ellipsis or isinstance(i, (int, slice))
                     for i in items)
        if simple and not any(isinstance(i, torch.fx.Node) or (
                isinstance(i, slice) and any(isinstance(p, torch.fx.Node)
                                             for p in (i.start, i.stop,
                                                       i.step)))
                for i in items):
            return "index"
    return None


def _unview(gm, view, parent, value, shapes, after, dynamic=False):
    """Nodes (inserted after `after`) computing `parent` with its view
    `view` replaced by `value`; the last is the new parent."""
    graph = gm.graph
    kind = _unview_kind(view, shapes)
    rank = len(shapes[parent])
    args = list(view.args[1:])
    made = []
    with graph.inserting_after(after):
        if kind == "reshape":
            # The parent's shape as the graph computes it (a dynamic batch
            # stays dynamic), not the example's.
            made.append(graph.call_method("reshape_as", (value, parent)))
        elif kind == "transpose":
            dims = (0, 1) if not args else tuple(args[:2])
            made.append(graph.call_method("transpose", (value, *dims)))
        elif kind == "permute":
            dims = args[0] if len(args) == 1 and isinstance(
                args[0], (tuple, list)) else args
            dims = [d % rank for d in dims]
            inverse = [dims.index(i) for i in range(rank)]
            made.append(graph.call_method("permute", (value, *inverse)))
        else:
            name = view.target if view.op == "call_method" else getattr(
                view.target, "__name__", "")
            if name == "narrow":
                dim, start, length = args
                index = (slice(None),) * (dim % rank) + (
                    slice(start, start + length),)
            elif name == "select":
                dim, i = args
                index = (slice(None),) * (dim % rank) + (i,)
            else:
                index = view.args[1]
            assign = graph.call_function(operator.setitem,
                                         (parent, index, value))
            new = _setitem(gm, assign, shapes, dynamic)
            graph.erase_node(assign)
            made.append(new)
    for m in made:
        m.meta = dict(view.meta)
        m.meta[_FRESH] = True
        if parent in shapes:
            shapes[m] = shapes[parent]
    return made


_INT64_MAX = 9223372036854775807


def _views_as_methods(gm):
    """Retargets the calls of ATen view operators (what a graph exported
    from TorchScript's IR holds: `torch.ops.aten.slice.Tensor(x, 1, 1, 3,
    1)`, `aten.select.int`, `aten.transpose.int`, ...) to the Tensor
    methods (and, for slice, the getitem) torch.fx records, which the
    functionalization knows as views: an update through them then reaches
    their base, or is refused (`aten.diagonal`), instead of being made
    out-of-place on a copy. Returns whether it changed a node."""
    changed = False
    for node in gm.graph.nodes:
        target = node.target
        if node.op != "call_function" or not isinstance(
                target, torch._ops.OpOverload) or not node.args or \
                not isinstance(node.args[0], torch.fx.Node):
            continue
        namespace, _, name = target._schema.name.partition("::")
        if namespace != "aten":
            continue
        args, kwargs = tuple(node.args), dict(node.kwargs)
        if name == "slice" and target._overloadname == "Tensor":
            names = ("dim", "start", "end", "step")
            full = list(args[1:]) + [kwargs.pop(k) for k in names[
                len(args) - 1:] if k in kwargs]
            dim, start, end, step = (full + [0, None, None, 1][len(full):])
            if not all(v is None or isinstance(v, int)
                       for v in (dim, start, end, step)) or kwargs:
                continue
            if end is not None and end >= _INT64_MAX:
                end = None
            index = (slice(None),) * dim + (slice(start, end, step),)
            node.target, node.args, node.kwargs = operator.getitem, (
                args[0], index), {}
            changed = True
        elif name in _VIEW_METHODS or name == "alias":
            if name == "expand":
                kwargs.pop("implicit", None)
            node.op, node.target = "call_method", (
                "detach" if name == "alias" else name)
            node.args, node.kwargs = args, kwargs
            changed = True
    if changed:
        gm.recompile()
    return changed


def _refuse_parameter_updates(gm):
    """Raises FxMlirError for an in-place update of a parameter (through
    views too): eager keeps it across calls, and a compiled graph holds
    parameters as constants. Checked before anything runs the graph,
    which would update the module's parameter itself."""
    for node in gm.graph.nodes:
        found = _setitem_target(node) or _out_of_place(node, gm)
        if found is None:
            continue
        target = found[1]
        while _is_view(target) and target.args and \
                isinstance(target.args[0], torch.fx.Node):
            target = target.args[0]
        if target.op == "get_attr" and isinstance(
                _attribute(gm, target.target), torch.nn.Parameter):
            raise FxMlirError(
                f"cannot compile {node.op} '{node.name}': it updates "
                f"parameter '{target.target}' in place, which a compiled "
                "graph holds as a constant")


def _setitem_target(node):
    if _is_setitem(node) and isinstance(node.args[0], torch.fx.Node):
        return ("setitem", node.args[0])
    return None


def functionalize(gm, example_inputs=None, dynamic=False, buffers=()):
    """Rewrites the in-place nodes of the GraphModule `gm` (in place) into
    out-of-place ones; `x[index] = value` (operator.setitem, with an index
    of ints and slices) needs the example inputs for the shapes. Returns
    the positions of the inputs the graph updates (eager would change the
    caller's tensors) and the targets among `buffers` (attribute paths of
    module state eager keeps across calls) whose get_attr values the graph
    updates; their final values, inputs first, follow the original
    output, which becomes `(output, (values, ...))`. Every get_attr node
    left then reads the attribute's value at the start of the call. Raises
    FxMlirError for an in-place update of a view whose base is read
    afterwards or is an input."""
    graph = gm.graph
    _views_as_methods(gm)
    _refuse_parameter_updates(gm)
    shapes = {}
    if example_inputs is not None:
        shapes = _shapes(gm, example_inputs)
        if dynamic:
            # Whether a reshape copies can depend on the batch (a dim of
            # size 1 has any stride): a second run, one row more.
            grown = grown_batch(example_inputs)
            try:
                with torch.no_grad(), \
                        contextlib.redirect_stderr(io.StringIO()):
                    _record_copies(gm, grown).propagate(*grown)
            except Exception:  # noqa: BLE001 - the import reports it
                pass
    nodes = list(graph.nodes)
    order = {n: i for i, n in enumerate(nodes)}
    placeholders = [n for n in nodes if n.op == "placeholder"]
    # The get_attr nodes of each attribute, in graph order: an update of one
    # redirects the later ones.
    reads = {}
    for n in nodes:
        if n.op == "get_attr":
            reads.setdefault(n.target, []).append(n)
    # The current value of each input, and of each buffer, the graph
    # updates.
    updated, updated_state = {}, {}
    for node in nodes:
        if _is_setitem(node) and isinstance(node.args[0], torch.fx.Node):
            found = ("setitem", node.args[0])
        else:
            found = _out_of_place(node, gm)
        if found is None:
            continue
        replacement, target = found
        # An update of a view (x[1:3].mul_(2), x.view(-1).add_(1)) updates
        # its base: the chain of views from the base to the updated one.
        chain = [target]
        # An in-place view op (`y.t_()`) changes y's shape, not its data:
        # nothing is written back to a base y views.
        metadata_only = replacement is not None and \
            replacement[0] == "call_method" and \
            replacement[1] in _SHAPE_ONLY_VIEWS
        while (not metadata_only and _is_view(chain[-1]) and chain[-1].args
               and isinstance(chain[-1].args[0], torch.fx.Node)
               and not chain[-1].meta.get(_FRESH)):
            chain.append(chain[-1].args[0])
        if len(chain) > 1:
            why = _view_update_blocker(chain, node, order, shapes)
            varies = [n for n in chain if n.meta.get(_COPIES) == "varies"]
            if varies and not why:
                why = (f"through '{varies[0].name}', which copies its input "
                       "at some batch sizes and not at others")
            if why:
                raise FxMlirError(
                    f"cannot compile {node.op} '{node.name}' with target "
                    f"'{getattr(node.target, '__name__', node.target)}': an "
                    f"in-place update of a view of '{chain[-1].name}' "
                    f"{why}")
        if replacement == "setitem":
            new = _setitem(gm, node, shapes, dynamic)
            order[new] = order[node]
            graph.erase_node(node)
        elif replacement is not None:
            op, fn, args, kwargs = replacement
            with graph.inserting_before(node):
                if fn == "_fx_mlir_copy":
                    source = graph.call_method("expand_as", (args[1], args[0]))
                    new = graph.call_method("type_as", (source, args[0]))
                elif op == "call_method":
                    new = graph.call_method(fn, args, kwargs)
                else:
                    new = graph.call_function(fn, args, kwargs)
            new.meta = dict(node.meta)
            node.replace_all_uses_with(new)
            graph.erase_node(node)
            order[new] = order[node]
        else:
            new = node  # an nn.Module(inplace=True): its result is the value
        if new is not node and new.op == "call_method" and \
                new.target in _SHAPE_ONLY_VIEWS:
            # The tensor an in-place view op (`y.t_()`) leaves is y itself,
            # not a view to write back through: later updates stop here.
            new.meta[_FRESH] = True
        if target in shapes:
            after = _shape_after(new, node, shapes[target])
            if after is not None:
                shapes[new] = after
        # The views' bases take the update, up to the chain's base: each
        # (old, new) pair, the updated view first.
        versions = [(target, new)]
        for view in chain[:-1]:
            parent = view.args[0]
            made = _unview(gm, view, parent, versions[-1][1], shapes,
                           versions[-1][1], dynamic)
            for m in made:
                order[m] = order[new]
            versions.append((parent, made[-1]))
        # Later reads of the updated tensors read their new values; so do
        # later reads of the same tensor attribute (torch.fx reads a tensor
        # it made a constant, `m = torch.zeros(4, 4)` updated by
        # `m[:2] = ...`, through a get_attr node per use).
        for old_value, new_value in versions:
            if old_value.op == "get_attr":
                for other in reads.get(old_value.target, ()):
                    if other is not old_value and \
                            order.get(other, -1) > order[new]:
                        other.replace_all_uses_with(new_value)
            for user in list(old_value.users):
                if user is not new_value and user not in (
                        v for _, v in versions) and \
                        order.get(user, -1) > order[new]:
                    user.replace_input_with(old_value, new_value)
        # Views of the updated base made before the update and read after
        # it (`a = y.view(-1); y.add_(1); return a`) are eager's aliases:
        # they read the new values, the same view of the new base.
        if len(chain) == 1:
            _refresh_aliases(graph, target, new, order, order[new], shapes)
        target, new = versions[-1]
        root = target
        if root.op == "placeholder" or root in updated.values():
            key = root if root.op == "placeholder" else next(
                k for k, v in updated.items() if v is root)
            updated[key] = new
        elif root.op == "get_attr" and root.target in buffers or \
                root in updated_state.values():
            key = root.target if root.op == "get_attr" else next(
                k for k, v in updated_state.items() if v is root)
            updated_state[key] = new
    if not updated and not updated_state:
        return [], []
    output = next(n for n in graph.nodes if n.op == "output")
    inputs = [placeholders.index(p) for p in updated]
    output.args = ((output.args[0], tuple(updated.values())
                    + tuple(updated_state.values())),)
    gm.recompile()
    if example_inputs is not None:
        # An update that changes an input's shape (`x.unsqueeze_(0)`)
        # cannot be written back into the caller's tensor.
        # Nor into a buffer: compiled code keeps its state's shapes.
        final = _shapes(gm, example_inputs)
        written = [(f"input '{placeholder.name}'", example_inputs[index],
                    value)
                   for index, (placeholder, value) in zip(inputs,
                                                          updated.items())]
        written += [(f"buffer '{path}'", _attribute(gm, path), value)
                    for path, value in updated_state.items()]
        for what, before, value in written:
            if (isinstance(before, torch.Tensor) and value in final
                    and final[value] != tuple(before.shape)):
                raise FxMlirError(
                    f"cannot compile {value.op} '{value.name}': it updates "
                    f"{what} in place to shape {list(final[value])} from "
                    f"{list(before.shape)}; an in-place update that changes "
                    "the shape of an input or a buffer is not supported")
    return inputs, list(updated_state)
