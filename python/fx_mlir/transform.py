"""fx-opt's graph passes on torch.fx GraphModules.

    gm = fx_mlir.transform(model, "fx-fold-batchnorm,fx-fuse-activation")
    matches = fx_mlir.replace_pattern(gm, pattern, replacement)

`transform` imports the module, runs an fx-opt pass pipeline on it and
exports the result as a new GraphModule; `replace_pattern` is
torch.fx.subgraph_rewriter.replace_pattern done by `fx-replace-pattern`.
"""

import collections
import copy
import json
import os
import re
import tempfile

import torch
import torch.fx

from . import FxMlirError, _serialized
from .tracing import trace
from .exporter import export_graph_module
from .importer import _attribute, import_graph_module

__all__ = ["Match", "transform", "replace_pattern"]

Match = collections.namedtuple("Match", ["anchor", "nodes_map"])
Match.__doc__ = """One place fx-replace-pattern rewrote.

anchor: the node of the rewritten graph named as the graph node the
    pattern's output matched, or that name when no node has it any more.
nodes_map: pattern node name -> name of the graph node it matched."""


def _run_pipeline(ir, pipeline):
    """`pipeline` (passes on builtin.module, as fx-opt takes them) run on
    `ir` in this process."""
    from .compiler import _load_runtime
    return _load_runtime().run_pipeline(ir, f"builtin.module({pipeline})")


@_serialized
def transform(gm, pipeline, example_inputs=None, dynamic_batch=False):
    """A new torch.fx.GraphModule: `gm` (an nn.Module, traced with module
    paths, or a GraphModule) after the fx-opt pass pipeline `pipeline`
    ("fx-fold-batchnorm,fx-fuse-activation"). With `example_inputs` the IR
    carries the types ShapeProp computes (and with `dynamic_batch` a
    dynamic dim 0), for passes that need them; computing them runs `gm`
    once, which in training mode updates batch norm statistics as any
    forward does. `gm`'s graph and weights are not changed; the result is
    in training or eval mode as `gm` is. Raises FxMlirError with fx-opt's
    diagnostic when the pipeline is invalid or a pass fails."""
    if isinstance(gm, torch.fx.GraphModule):
        traced = gm
    elif isinstance(gm, torch.nn.Module):
        traced = trace(gm)
        traced.training = gm.training  # GraphModule() starts in train mode
    else:
        raise TypeError(f"expected an nn.Module or a torch.fx.GraphModule, "
                        f"got {type(gm).__name__}")
    if isinstance(example_inputs, torch.Tensor):
        example_inputs = (example_inputs,)
    with torch.no_grad():
        ir = import_graph_module(traced, example_inputs,
                                 dynamic_batch=dynamic_batch)
    result = export_graph_module(_run_pipeline(ir, pipeline),
                                 allowed_modules=_module_types(traced))
    result.training = gm.training
    return result


def _module_types(*modules):
    """The classes of the submodules of `modules`: the caller's own module
    types, which exporting the rewritten graph may construct again."""
    return tuple({type(sub) for module in modules
                  if isinstance(module, torch.nn.Module)
                  for sub in module.modules()})


def _as_graph_module(fn, role):
    """`fn` (a callable or an nn.Module) traced with symbolic_trace."""
    if isinstance(fn, torch.fx.GraphModule):
        return fn
    try:
        return torch.fx.symbolic_trace(fn)
    except Exception as error:
        raise FxMlirError(f"cannot trace the {role}: {error}") from None


# A dialect_resources key as the importer writes it: a bare identifier or a
# quoted string, in `dense_resource<key>` and at the start of its entry.
_KEY = r'(?:[A-Za-z_][A-Za-z0-9_$.]*|"(?:[^"\\]|\\.)*")'
_RESOURCE_USE = re.compile(r"dense_resource<(" + _KEY + r")>")
_RESOURCE_ENTRY = re.compile(r"^\s*(" + _KEY + r"):\s*(\"0x[0-9A-Fa-f]*\")",
                             re.MULTILINE)


def _prefix_key(key, prefix):
    return ('"' + prefix + key[1:]) if key.startswith('"') else prefix + key


def _concatenate(texts):
    """One file holding the graph modules of `texts` (import_graph_module
    outputs). Their weight blobs go into one dialect_resources section,
    each key prefixed by its module's symbol, so that the state of the
    pattern and of the replacement cannot share a blob by name."""
    bodies, entries = [], []
    for symbol, text in texts:
        body, _, resources = text.partition("\n{-#")
        prefix = symbol + "."
        bodies.append(_RESOURCE_USE.sub(
            lambda m: f"dense_resource<{_prefix_key(m.group(1), prefix)}>",
            body).rstrip("\n"))
        entries += [f"      {_prefix_key(m.group(1), prefix)}: {m.group(2)}"
                    for m in _RESOURCE_ENTRY.finditer(resources)]
    lines = bodies
    if entries:
        lines += ["", "{-#", "  dialect_resources: {", "    builtin: {",
                  ",\n".join(entries), "    }", "  }", "#-}"]
    return "\n".join(lines) + "\n"


def _same_tensor(a, b):
    return (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)
            and type(a) is type(b) and a.dtype == b.dtype
            and a.shape == b.shape and a.device == b.device
            and torch.equal(a, b))


def _same_module(a, b):
    if not isinstance(a, torch.nn.Module) or type(a) is not type(b):
        return False
    sa, sb = a.state_dict(keep_vars=True), b.state_dict(keep_vars=True)
    return sa.keys() == sb.keys() and all(_same_tensor(sa[k], sb[k])
                                          for k in sa)


def _kind(module, target):
    """How `module` holds the tensor at `target`: "parameter", "buffer" or
    "constant" (a plain attribute)."""
    owner_path, _, field = target.rpartition(".")
    owner = _attribute(module, owner_path) if owner_path else module
    if field in owner._parameters:
        return "parameter"
    return "buffer" if field in owner._buffers else "constant"


def _set_attribute(module, target, value, kind):
    """Sets `value` at the dotted path `target` of `module` as a submodule
    or a tensor of `kind`, replacing what is there; missing modules on the
    way are created empty."""
    *prefix, field = target.split(".")
    for part in prefix:
        child = getattr(module, part, None)
        if not isinstance(child, torch.nn.Module):
            child = torch.nn.Module()
            setattr(module, part, child)
        module = child
    if (field in module._parameters or field in module._buffers
            or field in module._modules or field in module.__dict__):
        delattr(module, field)
    if kind == "module":
        module.add_module(field, value)
    elif kind == "parameter":
        module.register_parameter(field, value)
    elif kind == "buffer":
        module.register_buffer(field, value)
    else:
        setattr(module, field, value)


def _adopt(gm, new):
    """Makes `gm` compute what `new` (exported from gm's rewritten IR) does:
    the submodules and tensors new's graph reads are set on gm unless gm
    already holds equal ones there (so unchanged weights keep their
    identity and an optimizer holding them still works), then gm takes a
    copy of new's graph and recompiles."""
    targets = sorted({node.target for node in new.graph.nodes
                      if node.op in ("call_module", "get_attr")})
    for target in targets:  # sorted: a module before what is inside it
        value, old = _attribute(new, target), _attribute(gm, target)
        if isinstance(value, torch.nn.Module):
            if not _same_module(old, value):
                _set_attribute(gm, target, value, "module")
        elif isinstance(value, torch.Tensor):
            kind = _kind(new, target)
            if not (_same_tensor(old, value) and _kind(gm, target) == kind):
                _set_attribute(gm, target, value, kind)
        elif value is not None:
            _set_attribute(gm, target, value, "constant")
    # A copy, so that gm is the only module owning the graph; setting the
    # graph recompiles gm.
    gm.graph = copy.deepcopy(new.graph)


def _read_matches(path):
    """The (anchor name, nodes_map) pairs of fx-replace-pattern's report."""
    try:
        with open(path) as f:
            report = json.load(f)
    except (OSError, ValueError) as error:
        raise FxMlirError(f"fx-replace-pattern wrote no readable report "
                          f"'{path}': {error}") from None
    if not isinstance(report, list):
        raise FxMlirError(f"fx-replace-pattern report '{path}': expected a "
                          f"list of matches")
    matches = []
    for entry in report:
        try:
            matches.append((str(entry["anchor"]), dict(entry["nodes_map"])))
        except (KeyError, TypeError, ValueError):
            raise FxMlirError(f"fx-replace-pattern report '{path}': bad "
                              f"match {entry!r}") from None
    return matches


@_serialized
def replace_pattern(gm, pattern, replacement):
    """torch.fx.subgraph_rewriter.replace_pattern by fx-opt's
    fx-replace-pattern: every match of `pattern` in the GraphModule `gm` is
    replaced by `replacement` (both callables or nn.Modules, traced with
    torch.fx.symbolic_trace), in place: gm gets the rewritten graph, the
    submodules and tensors it reads, and is recompiled. Returns one Match
    per rewrite. Raises FxMlirError, leaving gm unchanged, when a pattern
    cannot be traced or imported or fx-opt fails."""
    if not isinstance(gm, torch.fx.GraphModule):
        raise TypeError(f"expected a torch.fx.GraphModule, got "
                        f"{type(gm).__name__}")
    replacement = _as_graph_module(replacement, "replacement")
    texts = [("pattern", import_graph_module(
        _as_graph_module(pattern, "pattern"), None, name="pattern"))]
    # The tensors and submodules the replacement reads (a tensor constant
    # of `torch.tensor([...])`) are lent to gm under fresh names, which the
    # replacement's copies read; those no copy reads are taken back.
    replacement, lent = _lend_state(gm, replacement)
    try:
        texts.append(("replacement", import_graph_module(
            replacement, None, name="replacement")))
        matches = _replace_pattern(gm, texts, pattern, replacement)
    finally:
        read = {node.target for node in gm.graph.nodes
                if node.op in ("get_attr", "call_module")}
        for name in lent:
            if name not in read:
                delattr(gm, name)
    return matches


def _lend_state(gm, replacement):
    """A copy of the GraphModule `replacement` whose get_attr and
    call_module nodes read attributes set on `gm` under fresh names, and
    those names."""
    targets = sorted({node.target for node in replacement.graph.nodes
                      if node.op in ("get_attr", "call_module")})
    if not targets:
        return replacement, []
    replacement = copy.deepcopy(replacement)
    fresh = {}
    for target in targets:
        value = _attribute(replacement, target)
        name = "replacement_" + re.sub(r"\W", "_", target)
        while hasattr(gm, name):
            name += "_"
        if isinstance(value, torch.nn.Module):
            gm.add_submodule(name, value)
        elif isinstance(value, torch.Tensor) and not isinstance(
                value, torch.nn.Parameter):
            gm.register_buffer(name, value)
        else:
            setattr(gm, name, value)
        fresh[target] = name
        # The replacement reads it by the same name.
        if isinstance(value, torch.Tensor) and not isinstance(
                value, torch.nn.Parameter):
            replacement.register_buffer(name, value)
        else:
            setattr(replacement, name, value)
    for node in replacement.graph.nodes:
        if node.op in ("get_attr", "call_module"):
            node.target = fresh[node.target]
    replacement.recompile()
    return replacement, list(fresh.values())


def _replace_pattern(gm, texts, pattern, replacement):
    with torch.no_grad():
        ir = import_graph_module(gm, None)
    with tempfile.TemporaryDirectory(prefix="fx_mlir_") as tmp:
        pattern_file = os.path.join(tmp, "pattern.mlir")
        report_file = os.path.join(tmp, "matches.json")
        if re.search(r"""[\s,{}=\"']""", tmp):
            raise FxMlirError(f"the temporary directory '{tmp}' has a space "
                              f"or one of ,{{}}=\"' in its path, which a pass "
                              f"option cannot hold; set TMPDIR")
        with open(pattern_file, "w") as f:
            f.write(_concatenate(texts))
        rewritten = _run_pipeline(
            ir, f"fx-replace-pattern{{file={pattern_file} report={report_file}}}")
        new = export_graph_module(rewritten, allowed_modules=_module_types(
            gm, pattern, replacement))
        matches = _read_matches(report_file)
    _adopt(gm, new)
    nodes = {node.name: node for node in gm.graph.nodes}
    return [Match(nodes.get(anchor, anchor), nodes_map)
            for anchor, nodes_map in matches]
