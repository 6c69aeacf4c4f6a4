//===- ControlFlow.cpp - Higher-order calls of the fx dialect -------------===//

#include "fx-mlir/Dialect/FX/IR/ControlFlow.h"
#include "fx-mlir/Dialect/FX/IR/FXLocation.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace mlir::fx;

bool mlir::fx::isControlFlowTarget(StringRef target) {
  return target == kCondTarget || target == kWhileLoopTarget ||
         target == kForLoopTarget;
}

bool mlir::fx::areCompatibleTypes(Type a, Type b) {
  if (a == b || isa<AnyType>(a) || isa<AnyType>(b))
    return true;
  auto ta = dyn_cast<RankedTensorType>(a), tb = dyn_cast<RankedTensorType>(b);
  if (!ta || !tb || ta.getElementType() != tb.getElementType() ||
      ta.getRank() != tb.getRank())
    return false;
  for (auto [x, y] : llvm::zip(ta.getShape(), tb.getShape()))
    if (x != y && !ShapedType::isDynamic(x) && !ShapedType::isDynamic(y))
      return false;
  return true;
}

/// A bool, int or float constant a control-flow value may be.
static bool isScalarConstant(Attribute attr) {
  return isa_and_nonnull<BoolAttr, IntegerAttr, FloatAttr>(attr);
}

Type mlir::fx::getValueType(OpFoldResult value) {
  if (auto v = dyn_cast<Value>(value))
    return v.getType();
  return cast<TypedAttr>(cast<Attribute>(value)).getType();
}

/// The node or constant an arg of `op` holds; null if neither.
static OpFoldResult valueOfArg(Operation *op, Attribute arg) {
  if (auto ref = dyn_cast_or_null<NodeAttr>(arg))
    return ref.getIndex() < op->getNumOperands()
               ? OpFoldResult(op->getOperand(ref.getIndex()))
               : OpFoldResult();
  return isScalarConstant(arg) ? OpFoldResult(arg) : OpFoldResult();
}

FailureOr<SmallVector<OpFoldResult>> mlir::fx::getGraphResults(GraphOp graph) {
  OutputOp output = graph.getOutput();
  if (!output || output.getArgs().size() != 1)
    return failure();
  auto tuple = dyn_cast<TupleAttr>(output.getArgs()[0]);
  if (!tuple)
    return failure();
  SmallVector<OpFoldResult> results;
  for (Attribute element : tuple.getElements()) {
    OpFoldResult v = valueOfArg(output, element);
    if (!v)
      return failure();
    results.push_back(v);
  }
  return results;
}

GraphOp mlir::fx::getReferencedGraph(Value node,
                                     SymbolTableCollection *tables) {
  auto getAttr = node ? node.getDefiningOp<GetAttrOp>() : GetAttrOp();
  if (!getAttr)
    return {};
  auto module = getAttr->getParentOfType<GraphModuleOp>();
  if (!module)
    return {};
  Operation *target =
      tables ? tables->lookupSymbolIn(module, getAttr.getTargetAttr())
             : lookupModuleSymbol(module, getAttr.getTargetAttr().getAttr());
  return dyn_cast_or_null<GraphOp>(target);
}

namespace {

/// Reads the args of a higher-order call; `fail` reports what is wrong.
class CallReader {
public:
  CallReader(CallFunctionOp call, bool emit, SymbolTableCollection *tables)
      : call(call), emit(emit), tables(tables) {}

  FailureOr<ControlFlowCall> read();

private:
  LogicalResult fail(const Twine &message) {
    if (emit)
      call.emitOpError() << "call_function " << getNodeLabel(call) << " ("
                         << call.getTarget() << "): " << message;
    return failure();
  }
  Value node(Attribute arg) {
    auto ref = dyn_cast_or_null<NodeAttr>(arg);
    return ref && ref.getIndex() < call->getNumOperands()
               ? call->getOperand(ref.getIndex())
               : Value();
  }
  LogicalResult graph(Attribute arg, StringRef what, ControlFlowCall &r);
  LogicalResult nodes(Attribute arg, StringRef what,
                      SmallVectorImpl<OpFoldResult> &);
  LogicalResult checkSignature(GraphOp graph, StringRef what,
                               ArrayRef<Type> inputs,
                               ArrayRef<Type> expectedResults,
                               SmallVectorImpl<Type> *results = nullptr);

  CallFunctionOp call;
  bool emit;
  SymbolTableCollection *tables;
};

LogicalResult CallReader::graph(Attribute arg, StringRef what,
                                ControlFlowCall &r) {
  Value v = node(arg);
  GraphOp g = getReferencedGraph(v, tables);
  if (!g)
    return fail(what + " must be a get_attr node of a graph of the graph "
                       "module");
  if (g.getSymName() == "forward" || g == call->getParentOfType<GraphOp>())
    return fail(what + " '" + g.getSymName() +
                "' is the calling graph or 'forward'");
  r.graphs.push_back(g);
  return success();
}

LogicalResult CallReader::nodes(Attribute arg, StringRef what,
                                SmallVectorImpl<OpFoldResult> &result) {
  auto tuple = dyn_cast_or_null<TupleAttr>(arg);
  if (!tuple)
    return fail(what + " must be a tuple of nodes and constants");
  for (Attribute element : tuple.getElements()) {
    OpFoldResult v = valueOfArg(call, element);
    if (!v)
      return fail(what + " must be a tuple of nodes and bool, int or float "
                         "constants");
    result.push_back(v);
  }
  return success();
}

LogicalResult CallReader::checkSignature(GraphOp graph, StringRef what,
                                         ArrayRef<Type> inputs,
                                         ArrayRef<Type> expectedResults,
                                         SmallVectorImpl<Type> *results) {
  SmallVector<PlaceholderOp> placeholders;
  graph.getPlaceholders(placeholders);
  std::string name = (what + " '" + graph.getSymName() + "'").str();
  if (placeholders.size() != inputs.size())
    return fail(name + " takes " + Twine(placeholders.size()) +
                " inputs, the call passes " + Twine(inputs.size()));
  for (auto [i, p, type] : llvm::enumerate(placeholders, inputs))
    if (!areCompatibleTypes(type, p.getResult().getType())) {
      std::string message;
      llvm::raw_string_ostream os(message);
      os << name << ": input " << i << " (" << getNodeLabel(p) << ") has type "
         << p.getResult().getType() << ", the call passes " << type;
      return fail(message);
    }
  FailureOr<SmallVector<OpFoldResult>> values = getGraphResults(graph);
  if (failed(values))
    return fail(name + " must return a tuple of nodes and bool, int or "
                       "float constants");
  if (values->size() != expectedResults.size())
    return fail(name + " returns " + Twine(values->size()) +
                " values, expected " + Twine(expectedResults.size()));
  for (auto [i, v, type] : llvm::enumerate(*values, expectedResults)) {
    if (!areCompatibleTypes(getValueType(v), type)) {
      std::string message;
      llvm::raw_string_ostream os(message);
      os << name << ": result " << i << " has type " << getValueType(v)
         << ", expected " << type;
      return fail(message);
    }
    if (results)
      results->push_back(getValueType(v));
  }
  return success();
}

/// A predicate: a bool or int, alone or as a 0-d tensor.
bool isPredicateType(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return tensor.getRank() == 0 && tensor.getElementType().isSignlessInteger();
  return isa<AnyType>(type) || type.isSignlessInteger();
}

FailureOr<ControlFlowCall> CallReader::read() {
  ControlFlowCall r;
  StringRef target = call.getTarget();
  r.kind = target == kCondTarget        ? ControlFlowCall::Cond
           : target == kWhileLoopTarget ? ControlFlowCall::WhileLoop
                                        : ControlFlowCall::ForLoop;
  ArrayAttr args = call.getArgs();
  if (args.size() != 4 || !call.getKwargs().getKeys().empty())
    return fail(r.kind == ControlFlowCall::Cond
                    ? "takes (pred, true_graph, false_graph, operands)"
                : r.kind == ControlFlowCall::WhileLoop
                    ? "takes (cond_graph, body_graph, carried, additional)"
                    : "takes (count, body_graph, carried, additional)");
  auto tuple = dyn_cast<TupleType>(call.getResult().getType());
  if (!tuple)
    return fail("its result must be a tuple");
  r.resultTypes.assign(tuple.getTypes().begin(), tuple.getTypes().end());

  if (r.kind != ControlFlowCall::WhileLoop) {
    r.operand = node(args[0]);
    if (!r.operand)
      r.constant = args[0];
    bool constantOk = r.kind == ControlFlowCall::Cond
                          ? isa_and_nonnull<IntegerAttr, BoolAttr>(r.constant)
                          : isa_and_nonnull<IntegerAttr>(r.constant) &&
                                !isa<BoolAttr>(r.constant);
    if (r.operand ? !(r.kind == ControlFlowCall::Cond
                          ? isPredicateType(r.operand.getType())
                          : isa<AnyType>(r.operand.getType()) ||
                                r.operand.getType().isSignlessInteger(64))
                  : !constantOk)
      return fail(r.kind == ControlFlowCall::Cond
                      ? "the predicate must be a bool or an int, or a 0-d "
                        "tensor of one"
                      : "the trip count must be an int");
  }
  if (r.kind == ControlFlowCall::WhileLoop) {
    if (failed(graph(args[0], "the cond graph", r)) ||
        failed(graph(args[1], "the body graph", r)))
      return failure();
  } else if (r.kind == ControlFlowCall::Cond) {
    if (failed(graph(args[1], "the true graph", r)) ||
        failed(graph(args[2], "the false graph", r)))
      return failure();
  } else if (failed(graph(args[1], "the body graph", r))) {
    return failure();
  }
  if (failed(nodes(args[3 - (r.kind == ControlFlowCall::Cond ? 0 : 1)],
                   r.kind == ControlFlowCall::Cond ? "the operands"
                                                   : "the carried values",
                   r.carried)))
    return failure();
  if (r.kind != ControlFlowCall::Cond &&
      failed(nodes(args[3], "the additional values", r.additional)))
    return failure();

  // The signatures.
  SmallVector<Type> carriedTypes, additionalTypes;
  for (OpFoldResult v : r.carried)
    carriedTypes.push_back(getValueType(v));
  for (OpFoldResult v : r.additional)
    additionalTypes.push_back(getValueType(v));
  if (r.kind == ControlFlowCall::Cond) {
    for (auto [i, g] : llvm::enumerate(r.graphs))
      if (failed(checkSignature(g, i ? "the false graph" : "the true graph",
                                carriedTypes, r.resultTypes)))
        return failure();
    return r;
  }
  if (r.resultTypes.size() != r.carried.size())
    return fail("returns " + Twine(r.resultTypes.size()) + " values for " +
                Twine(r.carried.size()) + " carried values");
  GraphOp body = r.graphs.back();
  SmallVector<PlaceholderOp> placeholders;
  body.getPlaceholders(placeholders);
  unsigned offset = r.kind == ControlFlowCall::ForLoop ? 1 : 0;
  // Carried values keep one type across iterations: the body's input
  // type, which the initial values, the body's results and the call's
  // results all fit.
  SmallVector<Type> inputs;
  if (r.kind == ControlFlowCall::ForLoop)
    inputs.push_back(IntegerType::get(call.getContext(), 64));
  for (auto [i, type] : llvm::enumerate(carriedTypes)) {
    Type declared = offset + i < placeholders.size()
                        ? placeholders[offset + i].getResult().getType()
                        : type;
    if (!areCompatibleTypes(declared, r.resultTypes[i]))
      return fail("carried value " + Twine(i) +
                  " changes type: the body takes it as another type than "
                  "the call returns");
    inputs.push_back(declared);
  }
  if (offset && !placeholders.empty() &&
      !areCompatibleTypes(placeholders[0].getResult().getType(), inputs[0]))
    return fail("the body graph's first input is the iteration number, an "
                "int");
  llvm::append_range(inputs, additionalTypes);
  SmallVector<Type> expected(inputs.begin() + offset,
                             inputs.begin() + offset + carriedTypes.size());
  // The initial values fit the body's inputs.
  SmallVector<Type> callInputs;
  if (offset)
    callInputs.push_back(inputs[0]);
  llvm::append_range(callInputs, carriedTypes);
  llvm::append_range(callInputs, additionalTypes);
  if (failed(checkSignature(body, "the body graph", callInputs, expected)))
    return failure();
  if (r.kind == ControlFlowCall::WhileLoop) {
    SmallVector<Type> condInputs(inputs.begin(), inputs.end());
    SmallVector<Type> predicate;
    if (failed(checkSignature(r.graphs[0], "the cond graph", condInputs,
                              {AnyType::get(call.getContext())}, &predicate)))
      return failure();
    if (!isPredicateType(predicate[0]))
      return fail("the cond graph must return a bool or an int, or a 0-d "
                  "tensor of one");
  }
  return r;
}

} // namespace

FailureOr<ControlFlowCall>
mlir::fx::getControlFlowCall(CallFunctionOp call, bool emit,
                             SymbolTableCollection *tables) {
  if (!isControlFlowTarget(call.getTarget()))
    return failure();
  return CallReader(call, emit, tables).read();
}
