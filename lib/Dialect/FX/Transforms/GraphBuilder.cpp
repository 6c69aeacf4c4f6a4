//===- GraphBuilder.cpp - Building and editing nodes of fx graphs ---------===//

#include "fx-mlir/Dialect/FX/Transforms/GraphBuilder.h"
#include "fx-mlir/Dialect/FX/IR/FXAttrs.h"
#include "fx-mlir/Dialect/FX/IR/FXLocation.h"
#include "fx-mlir/Dialect/FX/IR/FXTypes.h"
#include "fx-mlir/Dialect/FX/Registry/Registry.h"
#include "fx-mlir/Support/Blobs.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/APFloat.h"

using namespace mlir;
using namespace mlir::fx;

/// The source part of a node location: without the node name and module
/// path wrappers getNodeLoc adds.
static Location getSourceLoc(Location loc) {
  auto node = dyn_cast<NameLoc>(loc);
  if (!node)
    return loc;
  Location child = node.getChildLoc();
  if (auto module = dyn_cast<NameLoc>(child))
    return module.getChildLoc();
  return child;
}

/// The location of a new node `name` created for `before`: in its module,
/// at its source.
static Location locFor(MLIRContext *ctx, StringRef name, Operation *before) {
  Location loc = before->getLoc();
  return getNodeLoc(ctx, name, getModulePath(loc), getSourceLoc(loc));
}

GraphBuilder::GraphBuilder(GraphOp graph)
    : graph(graph), ctx(graph.getContext()) {
  for (Operation &op : graph.getBody().front())
    if (auto node = dyn_cast<NodeOpInterface>(op)) {
      names.insert(node.getNodeName());
      if (auto getAttr = dyn_cast<GetAttrOp>(op))
        stateReads.try_emplace(getAttr.getTarget(), getAttr.getResult());
    }
}

void GraphBuilder::erase(Operation *op) {
  erased.insert(op);
  op->erase();
}

std::string GraphBuilder::uniqueName(StringRef base) {
  std::string name = base.str();
  for (char &c : name)
    if (!isalnum(static_cast<unsigned char>(c)) && c != '_')
      c = '_';
  if (name.empty() || isdigit(static_cast<unsigned char>(name[0])))
    name = "_" + name;
  if (names.insert(name).second)
    return name;
  for (unsigned i = 1;; ++i) {
    std::string candidate = name + "_" + std::to_string(i);
    if (names.insert(candidate).second)
      return candidate;
  }
}

Value GraphBuilder::readState(StringRef path, Operation *before) {
  auto it = stateReads.find(path);
  if (it != stateReads.end() && it->second.getDefiningOp() &&
      it->second.getDefiningOp()->getBlock() == before->getBlock() &&
      it->second.getDefiningOp()->isBeforeInBlock(before))
    return it->second;
  auto module = graph->getParentOfType<GraphModuleOp>();
  StateOp state = module ? dyn_cast_or_null<StateOp>(lookupModuleSymbol(
                               module, StringAttr::get(ctx, path)))
                         : StateOp();
  Type type = state ? state.getType() : AnyType::get(ctx);
  OpBuilder b(before);
  std::string name = uniqueName(path);
  Location loc = locFor(ctx, name, before);
  auto op = GetAttrOp::create(b, loc, type, name, path);
  stateReads[path] = op.getResult();
  return op.getResult();
}

CallFunctionOp GraphBuilder::call(Operation *before, StringRef name,
                                  StringRef target, ArrayRef<Attribute> args,
                                  ArrayRef<Attribute> kwargKeys,
                                  ArrayRef<Attribute> kwargValues,
                                  ArrayRef<Value> values, Type type) {
  SmallVector<Value> operands;
  auto renumber = [&](Attribute attr) {
    return remapNodeRefs(attr, [&](unsigned i) {
      operands.push_back(values[i]);
      return unsigned(operands.size() - 1);
    });
  };
  SmallVector<Attribute> newArgs, newValues;
  for (Attribute a : args)
    newArgs.push_back(renumber(a));
  for (Attribute a : kwargValues)
    newValues.push_back(renumber(a));
  names.insert(name);
  OpBuilder b(before);
  Location loc = locFor(ctx, name, before);
  return CallFunctionOp::create(
      b, loc, type, name, target, ArrayAttr::get(ctx, newArgs),
      DictAttr::get(ctx, kwargKeys, newValues), operands);
}

CallFunctionOp GraphBuilder::emit(Operation *node, const BoundCall &bound,
                                  StringRef target,
                                  ArrayRef<Attribute> extraKeys,
                                  ArrayRef<Attribute> extraValues) {
  SmallVector<Value> values(bound.operands.begin(), bound.operands.end());
  SmallVector<Attribute> args, keys, kwargValues;
  for (auto [param, arg] : llvm::zip(bound.schema->params, bound.args)) {
    Attribute value = arg.value;
    if (!arg.stateName.empty()) {
      values.push_back(readState(arg.stateName, node));
      value = NodeAttr::get(ctx, values.size() - 1);
    }
    if (param.kwargOnly) {
      keys.push_back(StringAttr::get(ctx, param.name));
      kwargValues.push_back(value);
    } else {
      args.push_back(value);
    }
  }
  keys.append(extraKeys.begin(), extraKeys.end());
  kwargValues.append(extraValues.begin(), extraValues.end());
  auto iface = cast<NodeOpInterface>(node);
  std::string name = bound.schema->qualifiedName();
  return call(node, iface.getNodeName(), target.empty() ? name : target, args,
              keys, kwargValues, values, node->getResult(0).getType());
}

void mlir::fx::replaceNode(Operation *node, Value value) {
  node->getResult(0).replaceAllUsesWith(value);
  node->erase();
}

StateOp mlir::fx::lookupState(GraphModuleOp module, StringRef name) {
  auto state = dyn_cast_or_null<StateOp>(
      lookupModuleSymbol(module, StringAttr::get(module.getContext(), name)));
  for (int hops = 0; state && state.getAlias() && hops < 16; ++hops)
    state = dyn_cast_or_null<StateOp>(
        lookupModuleSymbol(module, state.getAliasAttr().getAttr()));
  return state;
}

/// True if `path` is `prefix` or lies below it (`prefix.x`).
static bool isUnder(StringRef path, StringRef prefix) {
  return path == prefix ||
         (path.starts_with(prefix) && path.size() > prefix.size() &&
          path[prefix.size()] == '.');
}

unsigned mlir::fx::eraseUnusedStateAndSubmodules(GraphModuleOp module) {
  unsigned erased = 0;
  module.walk([&](GetAttrOp op) {
    if (op->use_empty()) {
      op->erase();
      ++erased;
    }
  });
  // What the graphs still name: get_attr targets and called submodules.
  llvm::StringSet<> read, called;
  module.walk([&](Operation *op) {
    if (auto g = dyn_cast<GetAttrOp>(op))
      read.insert(g.getTarget());
    else if (auto c = dyn_cast<CallModuleOp>(op))
      called.insert(c.getTarget());
  });
  auto isCalled = [&](StringRef path) {
    for (const auto &c : called)
      if (isUnder(path, c.getKey()))
        return true;
    return false;
  };
  SmallVector<StateOp> states;
  for (Operation &op : module.getBody().front())
    if (auto s = dyn_cast<StateOp>(op))
      states.push_back(s);
  // An alias keeps its target alive while the alias itself is live.
  llvm::StringSet<> live;
  for (StateOp s : states)
    if (read.contains(s.getSymName()) || isCalled(s.getSymName()))
      for (StateOp t = s; t;) {
        if (!live.insert(t.getSymName()).second || !t.getAlias())
          break;
        t = dyn_cast_or_null<StateOp>(
            lookupModuleSymbol(module, t.getAliasAttr().getAttr()));
      }
  for (StateOp s : states)
    if (!live.contains(s.getSymName())) {
      s->erase();
      ++erased;
    }
  forgetModuleSymbols(module);
  // Leaf submodules: nothing below their path is left, nothing calls them.
  SmallVector<SubmoduleOp> submodules;
  llvm::StringSet<> paths;
  for (Operation &op : module.getBody().front()) {
    if (auto s = dyn_cast<SubmoduleOp>(op)) {
      submodules.push_back(s);
      paths.insert(s.getSymName());
    } else if (auto s = dyn_cast<StateOp>(op)) {
      paths.insert(s.getSymName());
    }
  }
  for (SubmoduleOp s : llvm::reverse(submodules)) {
    StringRef path = s.getSymName();
    bool hasChildren = false;
    for (const auto &p : paths)
      if (p.getKey() != path && isUnder(p.getKey(), path))
        hasChildren = true;
    if (hasChildren || isCalled(path) || read.contains(path))
      continue;
    paths.erase(path);
    s->erase();
    ++erased;
  }
  return erased;
}

Value mlir::fx::getInplaceInput(Operation *op) {
  auto node = cast<NodeOpInterface>(op);
  ArrayAttr args = node.getArgs();
  if (args.empty() || !isa<NodeAttr>(args[0]))
    return {};
  Value input = op->getOperand(cast<NodeAttr>(args[0]).getIndex());
  if (!isa<TensorType>(input.getType()) && !isa<AnyType>(input.getType()))
    return {};
  auto isTrue = [](Attribute a) {
    auto b = dyn_cast_or_null<BoolAttr>(a);
    return b && b.getValue();
  };
  if (isTrue(node.getKwargs().lookup("inplace")))
    return input;
  if (auto call = dyn_cast<CallFunctionOp>(op)) {
    StringRef target = call.getTarget();
    static const char *augmented[] = {
        "operator.iadd",     "operator.isub",      "operator.imul",
        "operator.itruediv", "operator.ifloordiv", "operator.imod",
        "operator.ipow",     "operator.iand",      "operator.ior",
        "operator.ixor",     "operator.imatmul"};
    if (llvm::is_contained(augmented, target) &&
        isa<TensorType>(input.getType()))
      return input;
  }
  if (auto call = dyn_cast<CallModuleOp>(op)) {
    auto module = op->getParentOfType<GraphModuleOp>();
    auto submodule = dyn_cast_or_null<SubmoduleOp>(
        lookupModuleSymbol(module, call.getTargetAttr().getAttr()));
    if (submodule && isTrue(submodule.getHparams().lookup("inplace")))
      return input;
  }
  return {};
}

void mlir::fx::setNodeName(Operation *op, StringRef name) {
  MLIRContext *ctx = op->getContext();
  op->setAttr("node_name", StringAttr::get(ctx, name));
  Location loc = op->getLoc();
  if (auto named = dyn_cast<NameLoc>(loc))
    op->setLoc(NameLoc::get(StringAttr::get(ctx, name), named.getChildLoc()));
  else
    op->setLoc(getNodeLoc(ctx, name, "", loc));
}

bool mlir::fx::isPureNode(Operation *op) {
  if (isa<GetAttrOp>(op))
    return true;
  if (!isa<CallFunctionOp, CallMethodOp, CallModuleOp>(op))
    return false;
  if (auto call = dyn_cast<CallFunctionOp>(op)) {
    StringRef target = call.getTarget();
    if (target == "operator.getitem" || target == "builtins.getattr" ||
        target.starts_with("fx_mlir.fused."))
      return true;
  }
  if (getInplaceInput(op))
    return false;
  std::string why;
  std::unique_ptr<BoundCall> bound = TargetRegistry::get().bind(op, why);
  if (!bound)
    return false;
  if (bound->schema->pure)
    return true;
  // Eval-mode batch norm and dropout read their state and return.
  StringRef name = bound->schema->name;
  int training = -1;
  if (name == "aten::batch_norm")
    training = bound->schema->findParam("training");
  else if (name == "aten::dropout" || name == "aten::feature_dropout" ||
           name == "aten::alpha_dropout" ||
           name == "aten::feature_alpha_dropout")
    training = bound->schema->findParam("train");
  if (training < 0)
    return false;
  auto flag = dyn_cast_or_null<BoolAttr>(bound->args[training].value);
  return flag && !flag.getValue();
}

SmallVector<Operation *> mlir::fx::getCallNodes(GraphOp graph) {
  SmallVector<Operation *> nodes;
  for (Operation &op : graph.getBody().front())
    if (isa<CallFunctionOp, CallMethodOp, CallModuleOp>(op))
      nodes.push_back(&op);
  return nodes;
}

std::unique_ptr<BoundCall> mlir::fx::bindNode(Operation *op) {
  if (!op || !isa<CallFunctionOp, CallMethodOp, CallModuleOp>(op))
    return nullptr;
  std::string why;
  return TargetRegistry::get().bind(op, why);
}

Value mlir::fx::getBoundValue(const BoundCall &call, unsigned i) {
  if (i >= call.args.size())
    return {};
  if (auto ref = dyn_cast_or_null<NodeAttr>(call.args[i].value))
    return call.operands[ref.getIndex()];
  return {};
}

std::optional<int64_t> mlir::fx::getBoundInt(const BoundCall &call,
                                             unsigned i) {
  if (i >= call.args.size())
    return std::nullopt;
  Attribute a = call.args[i].value;
  auto v = dyn_cast_or_null<IntegerAttr>(a);
  if (!v || isa<BoolAttr>(a))
    return std::nullopt;
  return v.getInt();
}

std::optional<double> mlir::fx::getBoundFloat(const BoundCall &call,
                                              unsigned i) {
  if (i >= call.args.size())
    return std::nullopt;
  if (auto f = dyn_cast_or_null<FloatAttr>(call.args[i].value))
    return f.getValueAsDouble();
  if (std::optional<int64_t> v = getBoundInt(call, i))
    return double(*v);
  return std::nullopt;
}

StateOp mlir::fx::getBoundState(GraphModuleOp module, const BoundCall &call,
                                unsigned i) {
  if (i >= call.args.size())
    return {};
  if (!call.args[i].stateName.empty())
    return lookupState(module, call.args[i].stateName);
  if (Value v = getBoundValue(call, i))
    if (auto read = v.getDefiningOp<GetAttrOp>())
      return lookupState(module, read.getTarget());
  return {};
}

std::optional<std::vector<double>> mlir::fx::readFloatState(StateOp state) {
  if (!state || !state.getValue())
    return std::nullopt;
  auto type = dyn_cast<ShapedType>(state.getType());
  if (!type || !isa<FloatType>(type.getElementType()))
    return std::nullopt;
  auto elementType = cast<FloatType>(type.getElementType());
  ElementsAttr value = *state.getValue();
  std::vector<double> result;
  if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
    for (APFloat f : dense.getValues<APFloat>())
      result.push_back(f.convertToDouble());
    return result;
  }
  auto resource = dyn_cast<DenseResourceElementsAttr>(value);
  AsmResourceBlob *blob =
      resource ? resource.getRawHandle().getBlob() : nullptr;
  if (!blob)
    return std::nullopt;
  ArrayRef<char> data = blob->getData();
  unsigned width = elementType.getWidth() / 8;
  if (int64_t(data.size()) != type.getNumElements() * width)
    return std::nullopt;
  const llvm::fltSemantics &semantics = elementType.getFloatSemantics();
  for (int64_t i = 0, e = type.getNumElements(); i < e; ++i) {
    uint64_t bits = 0;
    memcpy(&bits, data.data() + i * width, width); // little endian
    APFloat f(semantics, APInt(width * 8, bits));
    bool lost;
    f.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
    result.push_back(f.convertToDouble());
  }
  return result;
}

std::string mlir::fx::addFloatState(GraphModuleOp module, Operation *before,
                                    StringRef name, RankedTensorType type,
                                    ArrayRef<double> values) {
  MLIRContext *ctx = module.getContext();
  std::string unique = name.str();
  for (unsigned i = 1; lookupModuleSymbol(module, StringAttr::get(ctx, unique));
       ++i)
    unique = (name + "_" + Twine(i)).str();
  auto elementType = cast<FloatType>(type.getElementType());
  unsigned width = elementType.getWidth() / 8;
  std::vector<char> bytes(values.size() * width);
  for (auto [i, v] : llvm::enumerate(values)) {
    APFloat f(v);
    bool lost;
    f.convert(elementType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
              &lost);
    uint64_t bits = f.bitcastToAPInt().getZExtValue();
    memcpy(bytes.data() + i * width, &bits, width);
  }
  // A tensor of no elements has no bytes (and maybe a null data pointer).
  auto blob =
      copiedBlob(ArrayRef<char>(bytes.data(), bytes.size()), alignof(double));
  auto value = DenseResourceElementsAttr::get(type, unique, std::move(blob));
  OpBuilder b(before);
  StateOp state = StateOp::create(b, before->getLoc(), StateKind::Parameter,
                                  unique, type, value, nullptr);
  noteModuleSymbol(state);
  return unique;
}
