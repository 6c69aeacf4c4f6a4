//===- ExportPython.cpp - fx dialect to runnable torch.fx Python ----------===//
//
// The script has a fixed prelude (how to find a target by name, build a
// submodule, load a tensor) and a `build()` function with one line per
// submodule, state tensor and node, in IR order.
//
//===----------------------------------------------------------------------===//

#include "fx-mlir/Target/Python/ExportPython.h"
#include "fx-mlir/Dialect/FX/IR/FXAttrs.h"
#include "fx-mlir/Dialect/FX/IR/FXDialect.h"
#include "fx-mlir/Dialect/FX/IR/FXLocation.h"
#include "fx-mlir/Dialect/FX/IR/FXOps.h"
#include "fx-mlir/Dialect/FX/IR/PythonRepr.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Base64.h"

using namespace mlir;
using namespace mlir::fx;

static constexpr const char *kPrelude = R"py(import base64
import importlib

import torch
import torch.fx
from torch import device

inf, nan = float("inf"), float("nan")


def _resolve(name):
    """The object a qualified name (`torch.nn.functional.relu`) or an
    operator name (`aten::add.Tensor`) refers to."""
    if "::" in name:
        namespace, _, op = name.partition("::")
        op, _, overload = op.partition(".")
        packet = getattr(getattr(torch.ops, namespace), op)
        return getattr(packet, overload or "default")
    parts = name.split(".")
    for i in range(len(parts) - 1, 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for part in parts[i:]:
            obj = getattr(obj, part)
        return obj
    raise AttributeError(f"no module provides '{name}'")


def _owner(root, path):
    """The module that holds the attribute `path`, and the attribute's name;
    missing modules on the way are created empty."""
    module = root
    *prefix, field = path.split(".")
    for part in prefix:
        if not isinstance(getattr(module, part, None), torch.nn.Module):
            setattr(module, part, torch.nn.Module())
        module = getattr(module, part)
    return module, field


def _submodule(root, path, type_name, hparams, training):
    try:
        module = _resolve(type_name)(**hparams)
    except Exception as error:
        raise RuntimeError(f"submodule '{path}': cannot build {type_name} "
                           f"from {hparams}: {error}") from None
    module.training = training
    owner, field = _owner(root, path)
    setattr(owner, field, module)


def _tensor(dtype, shape, data):
    raw = bytearray(base64.b64decode(data))
    if not raw:
        return torch.zeros(shape, dtype=dtype)
    return torch.frombuffer(raw, dtype=dtype).reshape(shape)


def _state(root, path, kind, value):
    owner, field = _owner(root, path)
    owner._buffers.pop(field, None)
    owner.__dict__.pop(field, None)
    if kind == "parameter":
        if not isinstance(value, torch.nn.Parameter):
            trainable = value.is_floating_point() or value.is_complex()
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
    """Parameters and buffers a constructor made that the IR does not have
    (a bias the module was built without) become None."""
    for path in paths:
        module = root.get_submodule(path)
        for table in (module._parameters, module._buffers):
            for field in table:
                if f"{path}.{field}" not in state:
                    table[field] = None


def _node(graph, nodes, op, target, args, kwargs, name):
    if op == "call_function":
        try:
            target = _resolve(target)
        except Exception as error:
            raise RuntimeError(f"node '{name}': cannot find the call_function "
                               f"target '{target}': {error}") from None
    node = graph.create_node(op, target, args, kwargs, name=name)
    # A function registered with torch.fx.wrap stays wrapped when the
    # exported module is traced again.
    for scope, wrapped in getattr(torch.fx._symbolic_trace,
                                  "_wrapped_fns_to_patch", []):
        if op == "call_function" and scope.get(wrapped) is target:
            node.meta["is_wrapped"] = True
    if node.name != name:
        raise RuntimeError(f"node '{name}': torch.fx renamed it '{node.name}'")
    nodes[name] = node
)py";

/// The tensor's elements as the little-endian bytes torch stores (one byte
/// per bool).
static FailureOr<std::string> tensorBytes(StateOp state, ElementsAttr value) {
  auto type = cast<ShapedType>(value.getType());
  int64_t count = type.getNumElements();
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return state.emitOpError()
             << "'" << state.getSymName() << "': the resource '"
             << resource.getRawHandle().getKey() << "' holds no data";
    ArrayRef<char> data = blob->getData();
    Type element = type.getElementType();
    int64_t width;
    if (auto complex = dyn_cast<ComplexType>(element))
      width = 2 * complex.getElementType().getIntOrFloatBitWidth() / 8;
    else if (element.isInteger(1))
      width = 1;
    else
      width = (element.getIntOrFloatBitWidth() + 7) / 8;
    if (int64_t(data.size()) != count * width)
      return state.emitOpError()
             << "'" << state.getSymName() << "': the resource holds "
             << data.size() << " bytes, the type needs " << count * width;
    return std::string(data.begin(), data.end());
  }
  auto dense = dyn_cast<DenseElementsAttr>(value);
  if (!dense)
    return state.emitOpError()
           << "'" << state.getSymName() << "': cannot export a " << value
           << " value; use dense or dense_resource";
  if (type.getElementType().isInteger(1)) {
    std::string bytes;
    for (bool element : dense.getValues<bool>())
      bytes.push_back(element ? 1 : 0);
    return bytes;
  }
  ArrayRef<char> raw = dense.getRawData();
  if (!dense.isSplat())
    return std::string(raw.begin(), raw.end());
  std::string bytes;
  for (int64_t i = 0; i < count; ++i)
    bytes.append(raw.begin(), raw.end());
  return bytes;
}

namespace {
/// Writes the `build()` function of one graph module.
class PythonExporter {
public:
  explicit PythonExporter(raw_ostream &os) : os(os) {}

  LogicalResult exportGraphModule(GraphModuleOp module);

private:
  LogicalResult emitState(StateOp state);
  void emitNode(NodeOpInterface node);
  void emitValue(Attribute value, Operation *user);

  raw_ostream &os;
};
} // namespace

void PythonExporter::emitValue(Attribute value, Operation *user) {
  printPythonRepr(
      value, os,
      [&](unsigned index) {
        Operation *def = user->getOperand(index).getDefiningOp();
        os << "nodes["
           << pythonStrRepr(cast<NodeOpInterface>(def).getNodeName()) << "]";
      },
      /*evaluable=*/true);
}

LogicalResult PythonExporter::emitState(StateOp state) {
  StringRef kind = stringifyStateKind(state.getKind());
  os << "    _state(root, " << pythonStrRepr(state.getSymName()) << ", "
     << pythonStrRepr(kind) << ", ";
  if (auto alias = state.getAliasAttr()) {
    os << "getattr(*_owner(root, " << pythonStrRepr(alias.getValue())
       << ")))\n";
    return success();
  }
  auto type = dyn_cast<RankedTensorType>(state.getType());
  StringRef dtype = type ? getElementDTypeName(type.getElementType()) : "";
  if (dtype.empty())
    return state.emitOpError()
           << "'" << state.getSymName() << "' of type " << state.getType()
           << " is not a tensor torch can hold";
  std::string data;
  if (auto value = state.getValueAttr()) {
    FailureOr<std::string> bytes = tensorBytes(state, value);
    if (failed(bytes))
      return failure();
    data = llvm::encodeBase64(*bytes);
  }
  os << "_tensor(torch." << dtype << ", (";
  llvm::interleaveComma(type.getShape(), os);
  os << (type.getRank() == 1 ? ",), \"" : "), \"");
  os << data << "\"))\n";
  return success();
}

void PythonExporter::emitNode(NodeOpInterface node) {
  os << "    _node(graph, nodes, " << pythonStrRepr(node.getOpcode()) << ", "
     << pythonStrRepr(isa<OutputOp>(node) ? StringRef("output")
                                          : node.getTargetName())
     << ", ";
  emitValue(node.getArgs(), node);
  os << ", ";
  emitValue(node.getKwargs(), node);
  os << ", " << pythonStrRepr(node.getNodeName()) << ")\n";
}

LogicalResult PythonExporter::exportGraphModule(GraphModuleOp module) {
  GraphOp graph;
  for (auto candidate : module.getOps<GraphOp>())
    if (candidate.getSymName() == "forward")
      graph = candidate;
  if (!graph)
    return module.emitOpError() << "'" << module.getSymName()
                                << "' has no fx.graph @forward to export";

  os << "# Generated by fx-translate --export-python from fx.graph_module @"
     << module.getSymName() << ".\n"
     << "# Running it rebuilds the torch.fx.GraphModule: graph_module = "
        "build().\n"
     << kPrelude << "\n\ndef build():\n"
     << "    root = torch.nn.Module()\n";
  SmallVector<std::string> paths;
  for (auto submodule : module.getOps<SubmoduleOp>()) {
    os << "    _submodule(root, " << pythonStrRepr(submodule.getSymName())
       << ", " << pythonStrRepr(submodule.getModuleType()) << ", ";
    emitValue(submodule.getHparams(), submodule);
    os << ", " << (submodule.getTraining() ? "True" : "False") << ")\n";
    paths.push_back(pythonStrRepr(submodule.getSymName()));
  }
  SmallVector<std::string> stateNames;
  for (auto state : module.getOps<StateOp>()) {
    if (failed(emitState(state)))
      return failure();
    stateNames.push_back(pythonStrRepr(state.getSymName()));
  }
  os << "    _drop_unlisted_state(root, [" << llvm::join(paths, ", ") << "], {"
     << llvm::join(stateNames, ", ") << "})\n";
  os << "    graph = torch.fx.Graph()\n"
     << "    nodes = {}\n";
  for (auto node : graph.getOps<NodeOpInterface>())
    emitNode(node);
  os << "    graph_module = torch.fx.GraphModule(root, graph, "
     << pythonStrRepr(module.getSymName()) << ")\n"
     << "    graph_module.training = "
     << (module.getTraining() ? "True" : "False") << "\n"
     << "    return graph_module\n\n\n"
     << "graph_module = build()\n";
  return success();
}

LogicalResult mlir::fx::exportPython(Operation *op, raw_ostream &os,
                                     StringRef graphModuleName) {
  auto module = dyn_cast<GraphModuleOp>(op);
  if (!module) {
    SmallVector<GraphModuleOp> candidates;
    op->walk([&](GraphModuleOp candidate) {
      if (graphModuleName.empty() || candidate.getSymName() == graphModuleName)
        candidates.push_back(candidate);
      return WalkResult::skip();
    });
    if (candidates.size() != 1)
      return op->emitError()
             << "expected one fx.graph_module"
             << (graphModuleName.empty() ? ""
                                         : " named '" + graphModuleName + "'")
             << " to export, found " << candidates.size();
    module = candidates.front();
  }
  // Nothing is written unless the whole module exports.
  std::string script;
  llvm::raw_string_ostream buffer(script);
  if (failed(PythonExporter(buffer).exportGraphModule(module)))
    return failure();
  os << script;
  return success();
}

void mlir::fx::registerExportPythonTranslation() {
  static llvm::cl::opt<std::string> graphModuleName(
      "export-graph-module",
      llvm::cl::desc("With --export-python: the fx.graph_module to export "
                     "when the input holds several"),
      llvm::cl::init(""));
  TranslateFromMLIRRegistration registration(
      "export-python",
      "Emit Python that rebuilds the torch.fx.GraphModule of an "
      "fx.graph_module",
      [](Operation *op, raw_ostream &os) {
        return exportPython(op, os, graphModuleName);
      },
      [](DialectRegistry &registry) { registry.insert<FXDialect>(); });
}
