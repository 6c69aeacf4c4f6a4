//===- ImportControlFlow.cpp - prim::If and prim::Loop to fx control flow -===//
//
// A prim::If becomes `torch.ops.higher_order.cond`, a prim::Loop
// `fx_mlir.for_loop` (a `for i in range(n)`: its condition is always
// true) or `torch.ops.higher_order.while_loop` (a `while`, and a `for`
// that breaks, which TorchScript turns into a while loop counting its
// iterations itself). Their blocks become graphs of the graph module,
// whose placeholders are the block's inputs and then the nodes the block
// reads from outside (ControlFlow.h).
//
// Types: with example inputs, the node is first run on them (simulate):
// both branches of an If (the one not taken speculatively, on copies of
// what it reads, its failures ignored) and every iteration of a loop;
// each value gets the type of all the values it took, joined, so a dim
// that changes across iterations or between branches is dynamic.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "fx-mlir/Dialect/FX/IR/ControlFlow.h"
#include "fx-mlir/Dialect/FX/IR/FXLocation.h"
#include "fx-mlir/Dialect/FX/IR/FXTypes.h"

#include "llvm/ADT/StringExtras.h"

#include <torch/csrc/jit/ir/constants.h>

using namespace mlir;
using namespace mlir::fx;
using namespace mlir::fx::torchscript;

namespace {

/// How many iterations a loop may take on the example inputs.
constexpr int64_t kMaxSimulatedIterations = 1'000'000;
/// Loops over numbers unrolled when importing have at most this many
/// iterations (a bigger one stays a loop).
constexpr int64_t kMaxUnrolledIterations = 64;

/// `a` and `b` joined: equal types, or tensors of one rank and dtype with
/// the dims that differ dynamic; null if they differ otherwise.
Type joinTypes(Type a, Type b) {
  if (!a || a == b)
    return b;
  if (!b)
    return a;
  auto ta = dyn_cast<RankedTensorType>(a), tb = dyn_cast<RankedTensorType>(b);
  if (!ta || !tb || ta.getElementType() != tb.getElementType() ||
      ta.getRank() != tb.getRank())
    return {};
  SmallVector<int64_t> shape;
  for (auto [x, y] : llvm::zip(ta.getShape(), tb.getShape()))
    shape.push_back(x == y ? x : ShapedType::kDynamic);
  return RankedTensorType::get(shape, ta.getElementType());
}

/// Whether `value` is the constant `true`.
bool isConstantTrue(const torch::jit::Value *value) {
  auto constant = torch::jit::toIValue(value);
  return constant && constant->isBool() && constant->toBool();
}

/// The TorchScript name of a value, for messages.
std::string valueName(const torch::jit::Value *value) {
  return "%" + value->debugName();
}

} // namespace

//===----------------------------------------------------------------------===//
// Simulation: the types of the values inside control flow
//===----------------------------------------------------------------------===//

void Importer::joinType(const torch::jit::Value *value, Type type) {
  if (!type)
    return;
  Type &joined = joinedTypes[value];
  if (conflicting.count(value))
    return;
  Type result = joinTypes(joined, type);
  if (!result) {
    conflicting.insert(value);
    joined = AnyType::get(ctx);
    return;
  }
  joined = result;
}

void Importer::simulate(torch::jit::Node *node) {
  if (concrete.empty())
    return;
  bool wasSimulating = simulating;
  simulating = true;
  if (node->kind() == c10::prim::If)
    simulateIf(node);
  else if (node->kind() == c10::prim::Loop)
    simulateLoop(node);
  else if (node->kind() == c10::prim::CallMethod)
    simulateMethod(node);
  else
    evaluate(node);
  for (const torch::jit::Value *output : node->outputs()) {
    auto it = concrete.find(output);
    if (it != concrete.end())
      joinType(output, typeOf(it->second));
  }
  simulating = wasSimulating;
}

void Importer::simulateBlock(torch::jit::Block *block) {
  for (torch::jit::Node *node : block->nodes())
    simulate(node);
}

void Importer::simulateMethod(torch::jit::Node *node) {
  auto self = concrete.find(node->input(0));
  if (self == concrete.end() || !self->second.isObject())
    return forgetOutputs(node);
  torch::jit::Module module(self->second.toObject());
  const std::string &method = node->s(c10::attr::name);
  // A leaf module's forward is one call_module node: run it whole. A
  // method the import walks into is simulated node by node.
  auto found = module.find_method(method);
  if ((method == "forward" && isLeaf(module)) || !found) {
    evaluate(node, /*runMethod=*/true);
    return;
  }
  std::shared_ptr<torch::jit::Graph> graph = found->graph();
  // Its free function calls inlined, as the import will walk it (a
  // TransformerEncoderLayer's `self.activation(x)` of F.relu).
  prepareGraph(*graph);
  if (graph->inputs().size() != node->inputs().size()) {
    evaluate(node, /*runMethod=*/true);
    return;
  }
  for (size_t i = 0; i < node->inputs().size(); ++i) {
    auto it = concrete.find(node->input(i));
    if (it == concrete.end())
      concrete.erase(graph->inputs()[i]);
    else
      concrete[graph->inputs()[i]] = it->second;
  }
  simulateBlock(graph->block());
  for (size_t i = 0; i < node->outputs().size(); ++i) {
    auto it = concrete.find(graph->outputs()[i]);
    if (it == concrete.end())
      concrete.erase(node->outputs()[i]);
    else
      concrete[node->outputs()[i]] = it->second;
  }
}

void Importer::simulateIf(torch::jit::Node *node) {
  auto pred = concrete.find(node->input(0));
  if (pred == concrete.end() ||
      !(pred->second.isBool() || pred->second.isInt()))
    return forgetOutputs(node);
  bool taken =
      pred->second.isBool() ? pred->second.toBool() : pred->second.toInt() != 0;
  torch::jit::Block *takenBlock = node->blocks()[taken ? 0 : 1];
  torch::jit::Block *otherBlock = node->blocks()[taken ? 1 : 0];

  // A predicate known when importing (a constant, or computed from
  // constants and static sizes): the other branch is never imported, so
  // it does not run (it might not even run: LibTorch aborts on some
  // arguments a module's branch for other settings would pass).
  if (!knownInt(node->input(0)))
    simulateOtherBranch(node, otherBlock);
  simulateBlock(takenBlock);
  for (size_t i = 0; i < node->outputs().size(); ++i) {
    auto it = concrete.find(takenBlock->outputs()[i]);
    if (it == concrete.end())
      concrete.erase(node->outputs()[i]);
    else
      concrete[node->outputs()[i]] = it->second;
  }
}

void Importer::simulateOtherBranch(torch::jit::Node *node,
                                   torch::jit::Block *otherBlock) {
  // The other branch, on copies of the tensors and lists it reads (it may
  // update them in place: swin's `shift_size[0] = 0`), its failures
  // ignored.
  std::vector<std::pair<const torch::jit::Value *, c10::IValue>> saved;
  for (torch::jit::Value *v : capturedValues(node)) {
    auto it = concrete.find(v);
    if (it == concrete.end() || !(it->second.isTensor() || it->second.isList()))
      continue;
    saved.emplace_back(v, it->second);
    if (it->second.isTensor())
      it->second = it->second.toTensor().clone();
    else
      it->second = it->second.toList().copy();
  }
  ++speculative;
  simulateBlock(otherBlock);
  --speculative;
  for (size_t i = 0; i < node->outputs().size(); ++i) {
    auto it = concrete.find(otherBlock->outputs()[i]);
    if (it != concrete.end())
      joinType(node->outputs()[i], typeOf(it->second));
  }
  for (auto &[v, value] : saved)
    concrete[v] = value;
}

void Importer::simulateLoop(torch::jit::Node *node) {
  std::vector<c10::IValue> inputs;
  for (const torch::jit::Value *input : node->inputs()) {
    auto it = concrete.find(input);
    if (it == concrete.end())
      return forgetOutputs(node);
    inputs.push_back(it->second);
  }
  if (!inputs[0].isInt() || !inputs[1].isBool())
    return forgetOutputs(node);
  torch::jit::Block *body = node->blocks()[0];
  int64_t trips = inputs[0].toInt(), i = 0;
  bool go = inputs[1].toBool();
  std::vector<c10::IValue> carried(inputs.begin() + 2, inputs.end());
  for (; i < trips && go; ++i) {
    if (i == kMaxSimulatedIterations) {
      if (speculative)
        return forgetOutputs(node);
      fail(node, "the loop does not end within " +
                     std::to_string(kMaxSimulatedIterations) +
                     " iterations on the example inputs");
    }
    concrete[body->inputs()[0]] = c10::IValue(i);
    for (size_t j = 0; j < carried.size(); ++j) {
      concrete[body->inputs()[j + 1]] = carried[j];
      joinType(body->inputs()[j + 1], typeOf(carried[j]));
    }
    joinType(body->inputs()[0], typeOf(c10::IValue(i)));
    simulateBlock(body);
    auto next = concrete.find(body->outputs()[0]);
    if (next == concrete.end() || !next->second.isBool())
      return forgetOutputs(node);
    go = next->second.toBool();
    for (size_t j = 0; j < carried.size(); ++j) {
      auto it = concrete.find(body->outputs()[j + 1]);
      if (it == concrete.end())
        return forgetOutputs(node);
      carried[j] = it->second;
    }
  }
  int64_t &runs = loopRuns[node];
  runs = std::max(runs, i);
  // The body's inputs take the values the last iteration returns too: a
  // carried value's type covers all of them.
  for (size_t j = 0; j < carried.size(); ++j) {
    joinType(body->inputs()[j + 1], typeOf(carried[j]));
    concrete[node->outputs()[j]] = carried[j];
  }
}

//===----------------------------------------------------------------------===//
// Graphs from blocks
//===----------------------------------------------------------------------===//

std::vector<torch::jit::Value *>
Importer::capturedValues(torch::jit::Node *node) {
  std::vector<torch::jit::Value *> result;
  std::set<torch::jit::Value *> seen;
  auto inside = [&](torch::jit::Value *v) {
    for (torch::jit::Block *b = v->node()->owningBlock(); b;
         b = b->owningNode() ? b->owningNode()->owningBlock() : nullptr)
      if (b->owningNode() == node)
        return true;
    return false;
  };
  auto consider = [&](torch::jit::Value *v) {
    if (!inside(v) && seen.insert(v).second)
      result.push_back(v);
  };
  std::function<void(torch::jit::Block *)> walk = [&](torch::jit::Block *b) {
    for (torch::jit::Node *n : b->nodes()) {
      for (torch::jit::Value *v : n->inputs())
        consider(v);
      for (torch::jit::Block *nested : n->blocks())
        walk(nested);
    }
    for (torch::jit::Value *v : b->outputs())
      consider(v);
  };
  for (torch::jit::Block *b : node->blocks())
    walk(b);
  return result;
}

SmallVector<mlir::Value>
Importer::outerNodes(ArrayRef<torch::jit::Value *> captured,
                     torch::jit::Node *node) {
  SmallVector<mlir::Value> result;
  std::function<void(const FxValue &)> collect = [&](const FxValue &v) {
    if (v.kind == FxValue::Node && !llvm::is_contained(result, v.node))
      result.push_back(v.node);
    // A buffer read outside (a read prepareGraph moved out of the control
    // flow, of a buffer the forward updates): its get_attr here, passed
    // in, so the block reads the value the call has at this point, not a
    // constant of the module's state.
    if (v.kind == FxValue::State && !v.isParameter) {
      mlir::Value read = asNode(v, node);
      if (read && !llvm::is_contained(result, read))
        result.push_back(read);
    }
    for (const FxValue &element : v.elements)
      collect(element);
  };
  for (torch::jit::Value *v : captured) {
    auto it = values.find(v);
    if (it == values.end())
      fail(node, "uses " + valueName(v) + ", which was not imported");
    collect(it->second);
  }
  return result;
}

mlir::Value Importer::graphNode(const std::string &graph,
                                torch::jit::Node *node) {
  return GetAttrOp::create(builder, nodeLoc(graph, node), AnyType::get(ctx),
                           graph, graph)
      .getResult();
}

Attribute Importer::controlFlowArg(const FxValue &value,
                                   SmallVectorImpl<mlir::Value> &inputs,
                                   torch::jit::Node *node,
                                   const llvm::Twine &what) {
  if (value.kind == FxValue::Constant &&
      isa<BoolAttr, IntegerAttr, FloatAttr>(value.constant))
    return value.constant;
  if (value.kind == FxValue::Node || value.kind == FxValue::State)
    return toArg(value, inputs, node);
  fail(node, what + " is " +
                 (value.kind == FxValue::Constant ? "a constant of a kind"
                  : value.kind == FxValue::Module ? "a module"
                                                  : "a list or tuple") +
                 " that a control-flow call cannot pass (tensors, bools, "
                 "ints and floats can)");
}

std::string Importer::importSubgraph(
    StringRef base, ArrayRef<Leading> leading, ArrayRef<mlir::Value> outer,
    torch::jit::Block *block,
    function_ref<std::vector<FxValue>(ArrayRef<mlir::Value>)> results,
    torch::jit::Node *node) {
  // The graph's name, as PyTorch 2 names them (`true_graph_0`).
  std::string name;
  do {
    name = (base + "_" + Twine(graphCounts[base]++)).str();
  } while (nameCounts.count(name) ||
           lookupModuleSymbol(graphModule, StringRef(name)));
  name = uniqueName(name);

  OpBuilder::InsertionGuard guard(builder);
  GraphOp parent = graphOp;
  llvm::StringMap<mlir::Value> parentStateNodes = std::move(stateNodes);
  stateNodes.clear();
  builder.setInsertionPointToEnd(&graphModule.getBody().front());
  auto graph = GraphOp::create(builder, nodeLoc(name, node), name);
  graphOp = graph;
  builder.setInsertionPointToEnd(&graph.getBody().front());

  SmallVector<mlir::Value> placeholders;
  for (const Leading &l : leading) {
    std::string phName = uniqueName(l.name);
    auto ph = PlaceholderOp::create(builder, nodeLoc(phName, node), l.type,
                                    phName, phName, Attribute());
    placeholders.push_back(ph.getResult());
    if (l.value && l.accumulates)
      accumulating[l.value] = ph.getResult();
    else if (l.value)
      values[l.value] = FxValue::ofNode(ph.getResult());
  }
  // The nodes the block reads from outside, under their own names.
  llvm::DenseMap<mlir::Value, mlir::Value> inner;
  for (mlir::Value v : outer) {
    std::string phName = "input";
    if (auto named = v.getDefiningOp<NodeOpInterface>())
      phName = named.getNodeName().str();
    auto ph = PlaceholderOp::create(builder, nodeLoc(phName, node), v.getType(),
                                    phName, phName, Attribute());
    inner[v] = ph.getResult();
    placeholders.push_back(ph.getResult());
  }
  // What the TorchScript values defined outside hold, seen from inside.
  std::function<bool(FxValue &)> substitute = [&](FxValue &v) {
    bool changed = false;
    if (v.kind == FxValue::Node) {
      auto it = inner.find(v.node);
      if (it != inner.end()) {
        v.node = it->second;
        changed = true;
      }
    }
    if (v.kind == FxValue::State && !v.isParameter) {
      auto read = parentStateNodes.find(v.path);
      if (read != parentStateNodes.end()) {
        if (auto it = inner.find(read->second); it != inner.end()) {
          v = FxValue::ofNode(it->second);
          changed = true;
        }
      }
    }
    for (FxValue &element : v.elements)
      changed |= substitute(element);
    return changed;
  };
  std::vector<std::pair<const torch::jit::Value *, FxValue>> replaced;
  for (auto &[key, value] : values) {
    FxValue copy = value;
    if (substitute(copy)) {
      replaced.emplace_back(key, value);
      value = copy;
    }
  }

  ++controlDepth;
  if (block)
    importBlock(block);
  --controlDepth;

  SmallVector<mlir::Value> inputs;
  SmallVector<Attribute> elements;
  std::vector<FxValue> returned = results(placeholders);
  for (auto [i, value] : llvm::enumerate(returned))
    elements.push_back(controlFlowArg(value, inputs, node,
                                      "value " + Twine(i) + " that graph '" +
                                          name + "' returns"));
  OutputOp::create(builder, nodeLoc("output", node), "output",
                   builder.getArrayAttr({TupleAttr::get(ctx, elements)}),
                   inputs);

  for (auto &[key, value] : replaced)
    values[key] = value;
  stateNodes = std::move(parentStateNodes);
  graphOp = parent;
  return name;
}

mlir::Value
Importer::callNode(StringRef base, StringRef target, ArrayRef<FxValue> args,
                   Type type, torch::jit::Node *node,
                   ArrayRef<std::pair<std::string, FxValue>> kwargs) {
  SmallVector<mlir::Value> inputs;
  auto [argAttr, kwargAttr] = callArgs(args, kwargs, inputs, node);
  std::string name = uniqueName(base);
  return CallFunctionOp::create(builder, nodeLoc(name, node), type, name,
                                target, argAttr, kwargAttr, inputs)
      .getResult();
}

//===----------------------------------------------------------------------===//
// Lists a loop appends to
//===----------------------------------------------------------------------===//
//
// `outs.append(h)` in a loop body, `torch.stack(outs)` after it: the list
// is carried as one tensor whose rows are its elements, starting empty
// (`aten::zeros` of 0 rows) and growing by a row per append (`cat` of the
// row unsqueezed). After the loop, torch.stack(list) (dim 0) is that
// tensor, torch.cat(list) (dim 0) it flattened, len(list) its size.

bool Importer::importAccumulated(torch::jit::Node *node) {
  using namespace torch::jit;
  if (node->inputs().empty())
    return false;
  const torch::jit::Value *list = node->input(0);
  if (node->kind() == aten::append && node->inputs().size() == 2) {
    auto it = accumulating.find(list);
    if (it == accumulating.end())
      return false;
    auto rowType = dyn_cast<RankedTensorType>(typeOf(node->input(1)));
    auto accType = cast<RankedTensorType>(it->second.getType());
    if (!rowType || rowType.getShape() != accType.getShape().drop_front())
      fail(node, "appends tensors whose shape changes across iterations, "
                 "which one stacked tensor cannot hold");
    SmallVector<int64_t> rowShape = {1};
    llvm::append_range(rowShape, rowType.getShape());
    FxValue zero = FxValue::ofConstant(builder.getI64IntegerAttr(0));
    mlir::Value row = callNode(
        "unsqueeze", "aten::unsqueeze", {values.at(node->input(1)), zero},
        RankedTensorType::get(rowShape, rowType.getElementType()), node);
    FxValue pair;
    pair.kind = FxValue::List;
    pair.elements = {FxValue::ofNode(it->second), FxValue::ofNode(row)};
    it->second = callNode("cat", "aten::cat", {pair, zero}, accType, node);
    return true;
  }
  auto found = values.find(list);
  if (found == values.end() || found->second.kind != FxValue::Stacked)
    return false;
  mlir::Value stacked = found->second.node;
  auto constantDim = [&](size_t i) -> std::optional<int64_t> {
    auto it = values.find(node->input(i));
    if (it == values.end() || it->second.kind != FxValue::Constant)
      return std::nullopt;
    auto attr = dyn_cast<IntegerAttr>(it->second.constant);
    return attr ? std::optional<int64_t>(attr.getInt()) : std::nullopt;
  };
  auto type = cast<RankedTensorType>(stacked.getType());
  auto i64 = [&](int64_t v) {
    return FxValue::ofConstant(builder.getI64IntegerAttr(v));
  };
  // The stacked tensor with its first dim (the appends) moved to `dim`.
  auto moveAppends = [&](int64_t dim) -> mlir::Value {
    if (dim == 0)
      return stacked;
    SmallVector<int64_t> shape(type.getShape().drop_front());
    shape.insert(shape.begin() + dim, type.getDimSize(0));
    return callNode("movedim", "aten::movedim.int",
                    {FxValue::ofNode(stacked), i64(0), i64(dim)},
                    RankedTensorType::get(shape, type.getElementType()), node);
  };
  // A constant dim of `rank` dims, made non-negative.
  auto normalDim = [&](int64_t rank) -> std::optional<int64_t> {
    std::optional<int64_t> dim = constantDim(1);
    if (dim && *dim < 0)
      *dim += rank;
    if (!dim || *dim < 0 || *dim >= rank)
      return std::nullopt;
    return dim;
  };
  if (node->kind() == aten::stack && node->inputs().size() == 2) {
    // stack(rows, dim) of the rows the loop appended: the stacked rows
    // with their dim moved (`torch.stack(outputs, 1)` of a recurrent
    // loop over time, batch first).
    std::optional<int64_t> dim = normalDim(type.getRank());
    if (!dim)
      fail(node, "stacks a list a loop appended to along a dim that is not "
                 "a constant");
    values[node->output()] = FxValue::ofNode(moveAppends(*dim));
    return true;
  }
  if (node->kind() == aten::cat && node->inputs().size() == 2) {
    if (type.getRank() < 2)
      fail(node, "concatenates a list of 0-d tensors");
    // cat(rows, dim): the rows stacked at `dim`, that dim and the next
    // flattened into one.
    std::optional<int64_t> dim = normalDim(type.getRank() - 1);
    if (!dim)
      fail(node, "concatenates a list a loop appended to along a dim that "
                 "is not a constant");
    mlir::Value moved = moveAppends(*dim);
    auto movedType = cast<RankedTensorType>(moved.getType());
    SmallVector<int64_t> shape(movedType.getShape());
    int64_t joined = ShapedType::isDynamic(shape[*dim]) ||
                             ShapedType::isDynamic(shape[*dim + 1])
                         ? ShapedType::kDynamic
                         : shape[*dim] * shape[*dim + 1];
    shape.erase(shape.begin() + *dim);
    shape[*dim] = joined;
    values[node->output()] = FxValue::ofNode(
        callNode("flatten", "aten::flatten.using_ints",
                 {FxValue::ofNode(moved), i64(*dim), i64(*dim + 1)},
                 RankedTensorType::get(shape, type.getElementType()), node));
    return true;
  }
  if (node->kind() == aten::len) {
    values[node->output()] = FxValue::ofNode(
        callNode("len", "aten::size.int",
                 {FxValue::ofNode(stacked),
                  FxValue::ofConstant(builder.getI64IntegerAttr(0))},
                 builder.getI64Type(), node));
    return true;
  }
  return false;
}

//===----------------------------------------------------------------------===//
// prim::If
//===----------------------------------------------------------------------===//

std::optional<int64_t> Importer::knownInt(const torch::jit::Value *v) {
  if (auto it = values.find(v); it != values.end() &&
                                it->second.kind == FxValue::Constant &&
                                isa<IntegerAttr>(it->second.constant)) {
    if (auto b = dyn_cast<BoolAttr>(it->second.constant))
      return b.getValue();
    return cast<IntegerAttr>(it->second.constant).getInt();
  }
  auto it = concrete.find(v);
  if (it == concrete.end() || !(it->second.isBool() || it->second.isInt()) ||
      !isStaticValue(v))
    return std::nullopt;
  return it->second.isBool() ? int64_t(it->second.toBool())
                             : it->second.toInt();
}

void Importer::importIf(torch::jit::Node *node) {
  if (!controlDepth && !simulating)
    simulate(node);
  auto predIt = values.find(node->input(0));
  if (predIt == values.end())
    fail(node,
         "uses " + valueName(node->input(0)) + ", which was not imported");
  FxValue pred = predIt->second;
  // A predicate known when importing (TorchScript folds most of them), or
  // computed from static sizes and constants only (swin's `window_size[i]
  // >= x.size(i)`): the branch taken, in line.
  std::optional<bool> known;
  if (std::optional<int64_t> value = knownInt(node->input(0)))
    known = *value != 0;
  if (known) {
    torch::jit::Block *block = node->blocks()[*known ? 0 : 1];
    inlinedBlocks.insert(block);
    importBlock(block);
    for (size_t i = 0; i < node->outputs().size(); ++i)
      values[node->outputs()[i]] = values.at(block->outputs()[i]);
    return;
  }
  // The results, a tuple of them (`return a, b` in both branches) as its
  // elements: `widths[i]` results of the call make output i (0 for one
  // that is not a tuple).
  SmallVector<Type> resultTypes;
  SmallVector<size_t> widths;
  for (const torch::jit::Value *output : node->outputs()) {
    if (conflicting.count(output))
      fail(node, "its branches give " + valueName(output) +
                     " values of different ranks or dtypes, which one "
                     "result of a control-flow call cannot hold");
    Type type = typeOf(output);
    if (auto tuple = dyn_cast<TupleType>(type);
        tuple && output->type()->cast<c10::TupleType>()) {
      llvm::append_range(resultTypes, tuple.getTypes());
      widths.push_back(tuple.size());
      continue;
    }
    resultTypes.push_back(type);
    widths.push_back(0);
  }
  std::vector<torch::jit::Value *> captured = capturedValues(node);
  SmallVector<mlir::Value> outer = outerNodes(captured, node);
  std::string names[2];
  for (int b = 0; b < 2; ++b) {
    torch::jit::Block *block = node->blocks()[b];
    names[b] = importSubgraph(
        b == 0 ? "true_graph" : "false_graph", {}, outer, block,
        [&](ArrayRef<mlir::Value>) {
          std::vector<FxValue> results;
          for (auto [i, v] : llvm::enumerate(block->outputs())) {
            const FxValue &value = values.at(v);
            if (!widths[i]) {
              results.push_back(value);
              continue;
            }
            if (value.kind != FxValue::Tuple ||
                value.elements.size() != widths[i])
              fail(node, "its branches give " + valueName(node->outputs()[i]) +
                             " tuples the import cannot take apart");
            llvm::append_range(results, value.elements);
          }
          return results;
        },
        node);
  }

  SmallVector<mlir::Value> inputs;
  SmallVector<Attribute> operands;
  Attribute predArg = controlFlowArg(pred, inputs, node, "the predicate");
  mlir::Value trueNode = graphNode(names[0], node);
  mlir::Value falseNode = graphNode(names[1], node);
  Attribute trueArg = toArg(FxValue::ofNode(trueNode), inputs, node);
  Attribute falseArg = toArg(FxValue::ofNode(falseNode), inputs, node);
  for (mlir::Value v : outer)
    operands.push_back(toArg(FxValue::ofNode(v), inputs, node));
  std::string name = uniqueName("cond");
  auto call = CallFunctionOp::create(
      builder, nodeLoc(name, node), TupleType::get(ctx, resultTypes), name,
      kCondTarget,
      builder.getArrayAttr(
          {predArg, trueArg, falseArg, TupleAttr::get(ctx, operands)}),
      DictAttr::get(ctx), inputs);
  size_t next = 0;
  for (auto [i, output] : llvm::enumerate(node->outputs())) {
    auto result = [&] {
      FxValue r = FxValue::ofNode(
          getitem(call.getResult(), next, resultTypes[next], node));
      ++next;
      return r;
    };
    if (!widths[i]) {
      values[output] = result();
      continue;
    }
    FxValue tuple;
    tuple.kind = FxValue::Tuple;
    for (size_t k = 0; k < widths[i]; ++k)
      tuple.elements.push_back(result());
    values[output] = tuple;
  }
}

//===----------------------------------------------------------------------===//
// prim::Loop
//===----------------------------------------------------------------------===//

bool Importer::unrollNumberLoop(torch::jit::Node *node) {
  torch::jit::Block *body = node->blocks()[0];
  if (!isConstantTrue(node->input(1)) || !isConstantTrue(body->outputs()[0]))
    return false;
  // The trip count, known when importing.
  std::optional<int64_t> trips = knownInt(node->input(0));
  if (!trips || *trips < 0 || *trips > kMaxUnrolledIterations)
    return false;
  std::function<bool(torch::jit::Block *)> makesNoTensor =
      [&](torch::jit::Block *block) {
        for (torch::jit::Node *n : block->nodes()) {
          for (const torch::jit::Value *output : n->outputs())
            if (!holdsNoTensor(output->type()))
              return false;
          for (torch::jit::Block *inner : n->blocks())
            if (!makesNoTensor(inner))
              return false;
        }
        return true;
      };
  for (size_t j = 2; j < node->inputs().size(); ++j)
    if (!holdsNoTensor(node->input(j)->type()))
      return false;
  if (!makesNoTensor(body))
    return false;
  std::vector<FxValue> carried;
  for (size_t j = 2; j < node->inputs().size(); ++j)
    carried.push_back(values.at(node->input(j)));
  inlinedBlocks.insert(body);
  for (int64_t i = 0; i < *trips; ++i) {
    values[body->inputs()[0]] =
        FxValue::ofConstant(builder.getI64IntegerAttr(i));
    for (size_t j = 0; j < carried.size(); ++j)
      values[body->inputs()[j + 1]] = carried[j];
    importBlock(body);
    for (size_t j = 0; j < carried.size(); ++j)
      carried[j] = values.at(body->outputs()[j + 1]);
  }
  for (size_t j = 0; j < carried.size(); ++j)
    values[node->outputs()[j]] = carried[j];
  return true;
}

void Importer::importLoop(torch::jit::Node *node) {
  if (!controlDepth && !simulating)
    simulate(node);
  torch::jit::Block *body = node->blocks()[0];
  auto input = [&](size_t i) -> FxValue {
    auto it = values.find(node->input(i));
    if (it == values.end())
      fail(node,
           "uses " + valueName(node->input(i)) + ", which was not imported");
    return it->second;
  };
  FxValue trips = input(0), initialCond = input(1);
  if (unrollNumberLoop(node))
    return;
  auto maxTrips = trips.kind == FxValue::Constant
                      ? dyn_cast<IntegerAttr>(trips.constant)
                      : IntegerAttr();
  bool unbounded = maxTrips && !isa<BoolAttr>(trips.constant) &&
                   maxTrips.getInt() == std::numeric_limits<int64_t>::max();
  bool counted =
      isConstantTrue(node->input(1)) && isConstantTrue(body->outputs()[0]);
  if (counted && unbounded)
    fail(node, "the loop never ends (`while True` without a break)");
  if (!counted && !unbounded)
    fail(node, "a loop with both a trip count and a condition is not "
               "supported (TorchScript makes a `for` that breaks a while "
               "loop)");
  if (!counted && body->inputs()[0]->hasUses())
    fail(node, "a while loop that reads TorchScript's own iteration number "
               "is not supported");

  // The carried values' types: joined over the iterations.
  size_t numCarried = node->inputs().size() - 2;
  SmallVector<Type> carriedTypes;
  bool shapeChanges = false;
  for (size_t j = 0; j < numCarried; ++j) {
    const torch::jit::Value *v = body->inputs()[j + 1];
    if (conflicting.count(v))
      fail(node, "the loop-carried value " + valueName(v) +
                     " changes rank or dtype across iterations, which a "
                     "compiled loop cannot carry");
    carriedTypes.push_back(typeOf(v));
    shapeChanges |= carriedTypes.back() != typeOf(node->input(j + 2));
  }
  if (!concrete.empty()) {
    int64_t runs = loopRuns.count(node) ? loopRuns[node] : 0;
    if (runs == 0)
      fail(node, "the loop does not run on the example inputs, so the types "
                 "of its body are not known; give example inputs on which "
                 "it runs");
    if (shapeChanges && runs < 2)
      fail(node, "a loop-carried value changes shape, and the loop runs "
                 "once on the example inputs; give example inputs on which "
                 "it runs at least twice, so that the dims that change are "
                 "known");
  }

  std::vector<torch::jit::Value *> captured = capturedValues(node);
  SmallVector<mlir::Value> outer = outerNodes(captured, node);

  // Lists of tensors the body appends to, and reads no other way: carried
  // as stacked tensors (importAccumulated).
  auto inside = [&](torch::jit::Node *n) {
    for (torch::jit::Block *b = n->owningBlock(); b;
         b = b->owningNode() ? b->owningNode()->owningBlock() : nullptr)
      if (b->owningNode() == node)
        return true;
    return false;
  };
  std::vector<torch::jit::Value *> appended;
  SmallVector<Type> stackedTypes;
  for (torch::jit::Node *n : body->nodes()) {
    if (n->kind() != c10::aten::append || n->inputs().size() != 2)
      continue;
    torch::jit::Value *list = n->input(0);
    auto it = values.find(list);
    if (inside(list->node()) || it == values.end() ||
        it->second.kind != FxValue::List || !it->second.elements.empty() ||
        llvm::is_contained(appended, list))
      continue;
    for (const torch::jit::Use &use : list->uses())
      if (inside(use.user) &&
          !(use.user->kind() == c10::aten::append && use.offset == 0 &&
            use.user->owningBlock() == body))
        fail(use.user, "reads the list " + valueName(list) +
                           " that its loop appends to, which a compiled "
                           "loop cannot carry (it carries the appended "
                           "tensors as one)");
    auto rowType = dyn_cast<RankedTensorType>(typeOf(n->input(1)));
    if (!rowType || !rowType.hasStaticShape())
      fail(n, "appends tensors of unknown or changing shape to " +
                  valueName(list));
    SmallVector<int64_t> shape = {ShapedType::kDynamic};
    llvm::append_range(shape, rowType.getShape());
    appended.push_back(list);
    stackedTypes.push_back(
        RankedTensorType::get(shape, rowType.getElementType()));
  }

  SmallVector<Leading> leading;
  if (counted)
    leading.push_back({body->inputs()[0], "i", builder.getI64Type()});
  else
    leading.push_back({nullptr, "go", builder.getI1Type()});
  for (size_t j = 0; j < numCarried; ++j) {
    leading.push_back({body->inputs()[j + 1],
                       dropUniquingSuffix(body->inputs()[j + 1]->debugName()),
                       carriedTypes[j]});
  }
  for (auto [list, type] : llvm::zip(appended, stackedTypes)) {
    leading.push_back({list, dropUniquingSuffix(list->debugName()), type,
                       /*accumulates=*/true});
  }
  std::string condName;
  if (!counted) {
    // The cond graph takes what the body takes and returns the condition.
    SmallVector<Leading> unbound(leading);
    for (Leading &l : unbound) {
      l.value = nullptr;
      l.accumulates = false;
    }
    condName = importSubgraph(
        "cond_graph", unbound, outer, nullptr,
        [&](ArrayRef<mlir::Value> placeholders) {
          return std::vector<FxValue>{FxValue::ofNode(placeholders[0])};
        },
        node);
  }

  std::string bodyName = importSubgraph(
      "body_graph", leading, outer, body,
      [&](ArrayRef<mlir::Value>) {
        std::vector<FxValue> results;
        for (size_t k = counted ? 1 : 0; k < body->outputs().size(); ++k)
          results.push_back(values.at(body->outputs()[k]));
        for (torch::jit::Value *list : appended)
          results.push_back(FxValue::ofNode(accumulating.at(list)));
        return results;
      },
      node);
  for (torch::jit::Value *list : appended)
    accumulating.erase(list);
  SmallVector<mlir::Value> inputs;
  SmallVector<Attribute> carried, additional;
  SmallVector<Type> resultTypes;
  if (!counted) {
    carried.push_back(
        controlFlowArg(initialCond, inputs, node, "the loop's condition"));
    resultTypes.push_back(builder.getI1Type());
  }
  Attribute first =
      counted ? controlFlowArg(trips, inputs, node, "the trip count")
              : toArg(FxValue::ofNode(graphNode(condName, node)), inputs, node);
  Attribute bodyArg =
      toArg(FxValue::ofNode(graphNode(bodyName, node)), inputs, node);
  for (size_t j = 0; j < numCarried; ++j) {
    carried.push_back(controlFlowArg(input(j + 2), inputs, node,
                                     "the initial value of " +
                                         valueName(body->inputs()[j + 1])));
    resultTypes.push_back(carriedTypes[j]);
  }
  for (auto [list, type] : llvm::zip(appended, stackedTypes)) {
    // The stacked list starts with no rows.
    auto stackedType = cast<RankedTensorType>(type);
    SmallVector<int64_t> shape(stackedType.getShape());
    shape[0] = 0;
    FxValue size;
    size.kind = FxValue::List;
    for (int64_t d : shape)
      size.elements.push_back(
          FxValue::ofConstant(builder.getI64IntegerAttr(d)));
    StringRef dtype = getElementDTypeName(stackedType.getElementType());
    mlir::Value empty = callNode(
        "zeros", "aten::zeros", {size},
        RankedTensorType::get(shape, stackedType.getElementType()), node,
        {{"dtype", FxValue::ofConstant(DTypeAttr::get(ctx, dtype))}});
    carried.push_back(toArg(FxValue::ofNode(empty), inputs, node));
    resultTypes.push_back(type);
  }
  for (mlir::Value v : outer)
    additional.push_back(toArg(FxValue::ofNode(v), inputs, node));
  std::string name = uniqueName(counted ? "for_loop" : "while_loop");
  auto call = CallFunctionOp::create(
      builder, nodeLoc(name, node), TupleType::get(ctx, resultTypes), name,
      counted ? kForLoopTarget : kWhileLoopTarget,
      builder.getArrayAttr({first, bodyArg, TupleAttr::get(ctx, carried),
                            TupleAttr::get(ctx, additional)}),
      DictAttr::get(ctx), inputs);
  unsigned offset = counted ? 0 : 1;
  for (size_t j = 0; j < numCarried; ++j)
    values[node->outputs()[j]] = FxValue::ofNode(
        getitem(call.getResult(), j + offset, carriedTypes[j], node));
  for (auto [k, list] : llvm::enumerate(appended)) {
    FxValue stacked;
    stacked.kind = FxValue::Stacked;
    stacked.node = getitem(call.getResult(), offset + numCarried + k,
                           stackedTypes[k], node);
    values[list] = stacked;
  }
}
