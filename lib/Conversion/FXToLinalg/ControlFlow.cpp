//===- ControlFlow.cpp - Higher-order fx calls to scf ---------------------===//
//
// Before the nodes are lowered, each control-flow call of the forward
// graph (ControlFlow.h) becomes an scf op on tensors whose regions hold
// copies of its graphs' nodes: cond -> scf.if, for_loop -> scf.for (i64
// bounds), while_loop -> scf.while. The getitem nodes of its tuple read
// the op's results. The node patterns then lower the copies where they
// stand, in the regions, as they lower the graph's own nodes. A graph's
// get_attr nodes of state are copied to the top of the function, where
// state is read.
//
//===----------------------------------------------------------------------===//

#include "fx-mlir/Dialect/FX/IR/ControlFlow.h"
#include "Lowering.h"
#include "fx-mlir/Dialect/FX/IR/FXLocation.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace mlir::fx;

namespace {

class ControlFlowInliner {
public:
  explicit ControlFlowInliner(GraphModuleOp module) : module(module) {}

  /// Inlines the control-flow calls of `block`; `anchor` is the op of the
  /// forward graph before which state is read (null: each call itself).
  LogicalResult run(Block &block, Operation *anchor);

private:
  LogicalResult inlineCall(CallFunctionOp call, Operation *anchor);
  /// Copies `graph`'s nodes to the end of `dest`, its placeholders bound
  /// to `inputs`; returns what it returns (constants materialized).
  FailureOr<SmallVector<Value>> cloneGraph(GraphOp graph, Block *dest,
                                           ValueRange inputs, Operation *anchor,
                                           Location loc);
  LogicalResult fail(Operation *op, const Twine &message) {
    op->emitError() << "cannot compile " << getNodeLabel(op) << ": " << message;
    return failure();
  }

  GraphModuleOp module;
};

/// `v` as an arith constant if it is a bool, int or float attribute.
Value materialize(OpBuilder &b, Location loc, OpFoldResult v) {
  if (auto value = dyn_cast<Value>(v))
    return value;
  Attribute attr = cast<Attribute>(v);
  if (auto boolean = dyn_cast<BoolAttr>(attr))
    return arith::ConstantOp::create(b, loc, b.getBoolAttr(boolean.getValue()));
  return arith::ConstantOp::create(b, loc, cast<TypedAttr>(attr));
}

/// `v` with type `type`: a tensor.cast between compatible tensor types.
Value castTo(OpBuilder &b, Location loc, Value v, Type type) {
  if (v.getType() == type)
    return v;
  return tensor::CastOp::create(b, loc, type, v);
}

/// A predicate as an i1: a bool, an int (nonzero), or a 0-d tensor of one.
Value truth(OpBuilder &b, Location loc, Value v) {
  if (isa<RankedTensorType>(v.getType()))
    v = tensor::ExtractOp::create(b, loc, v, ValueRange{});
  Type t = v.getType();
  if (t.isInteger(1))
    return v;
  if (isa<FloatType>(t))
    return arith::CmpFOp::create(
        b, loc, arith::CmpFPredicate::UNE, v,
        arith::ConstantOp::create(b, loc, b.getFloatAttr(t, 0)));
  return arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::ne, v,
      arith::ConstantOp::create(b, loc, b.getIntegerAttr(t, 0)));
}

/// Whether compiled code can carry a value of `type` through control flow.
bool isCarriable(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return !tensor.getElementType().isUnsignedInteger();
  return type.isSignlessInteger() || isa<FloatType>(type);
}

LogicalResult ControlFlowInliner::run(Block &block, Operation *anchor) {
  // Collected first: inlining erases the getitem nodes that follow.
  SmallVector<CallFunctionOp> calls;
  for (Operation &op : block)
    if (auto call = dyn_cast<CallFunctionOp>(op);
        call && isControlFlowTarget(call.getTarget()))
      calls.push_back(call);
  for (CallFunctionOp call : calls)
    if (failed(inlineCall(call, anchor)))
      return failure();
  return success();
}

FailureOr<SmallVector<Value>>
ControlFlowInliner::cloneGraph(GraphOp graph, Block *dest, ValueRange inputs,
                               Operation *anchor, Location loc) {
  IRMapping map;
  SmallVector<PlaceholderOp> placeholders;
  graph.getPlaceholders(placeholders);
  for (auto [p, v] : llvm::zip(placeholders, inputs))
    map.map(p.getResult(), v);
  OpBuilder b = OpBuilder::atBlockEnd(dest);
  for (Operation &op : graph.getBody().front()) {
    if (isa<PlaceholderOp, OutputOp>(op))
      continue;
    if (auto getAttr = dyn_cast<GetAttrOp>(op);
        getAttr && !isa<GraphOp>(module.lookupTarget(getAttr.getTarget()))) {
      // State is read where the function starts.
      OpBuilder top(anchor);
      map.map(getAttr.getResult(), top.clone(op)->getResult(0));
      continue;
    }
    b.clone(op, map);
  }
  FailureOr<SmallVector<OpFoldResult>> results = getGraphResults(graph);
  if (failed(results))
    return failure();
  SmallVector<Value> values;
  for (OpFoldResult r : *results) {
    if (auto v = dyn_cast<Value>(r))
      values.push_back(map.lookupOrDefault(v));
    else
      values.push_back(materialize(b, loc, r));
  }
  return values;
}

LogicalResult ControlFlowInliner::inlineCall(CallFunctionOp call,
                                             Operation *anchor) {
  FailureOr<ControlFlowCall> cf = getControlFlowCall(call, /*emit=*/true);
  if (failed(cf))
    return failure();
  Location loc = call.getLoc();
  // The tuple is read by getitem nodes only.
  SmallVector<std::pair<CallFunctionOp, int64_t>> items;
  for (Operation *user : call->getUsers()) {
    auto item = dyn_cast<CallFunctionOp>(user);
    auto index =
        item && item.getTarget() == "operator.getitem" &&
                item.getArgs().size() == 2 &&
                item.getArgs()[0] == NodeAttr::get(call.getContext(), 0)
            ? dyn_cast<IntegerAttr>(item.getArgs()[1])
            : IntegerAttr();
    if (!index || index.getInt() < 0 ||
        index.getInt() >= int64_t(cf->resultTypes.size()))
      return fail(call, "its result is used other than by operator.getitem "
                        "with a constant index");
    items.emplace_back(item, index.getInt());
  }
  for (Type t : cf->resultTypes)
    if (!isCarriable(t)) {
      std::string type;
      llvm::raw_string_ostream os(type);
      os << t;
      return fail(call, "control flow carries a value of type " + type +
                            "; compiled control flow carries tensors (not "
                            "uint8), bools, ints and floats");
    }
  if (!anchor)
    anchor = call;

  OpBuilder b(call);
  auto values = [&](ArrayRef<OpFoldResult> list) {
    return llvm::map_to_vector(
        list, [&](OpFoldResult v) { return materialize(b, loc, v); });
  };
  SmallVector<Value> carried = values(cf->carried);
  SmallVector<Value> additional = values(cf->additional);
  SmallVector<Value> results;
  SmallVector<Block *> bodies;

  if (cf->kind == ControlFlowCall::Cond) {
    Value pred = truth(
        b, loc, cf->operand ? cf->operand : materialize(b, loc, cf->constant));
    auto ifOp = scf::IfOp::create(b, loc, cf->resultTypes, pred,
                                  /*withElseRegion=*/true);
    for (auto [region, graph] : llvm::zip(ifOp->getRegions(), cf->graphs)) {
      Block *block = &region.front();
      if (!block->empty() && block->back().hasTrait<OpTrait::IsTerminator>())
        block->back().erase();
      FailureOr<SmallVector<Value>> out =
          cloneGraph(graph, block, carried, anchor, loc);
      if (failed(out))
        return fail(call, "a branch does not return a tuple");
      OpBuilder inner = OpBuilder::atBlockEnd(block);
      SmallVector<Value> yielded;
      for (auto [v, t] : llvm::zip(*out, cf->resultTypes))
        yielded.push_back(castTo(inner, loc, v, t));
      scf::YieldOp::create(inner, loc, yielded);
      bodies.push_back(block);
    }
    results.assign(ifOp.getResults().begin(), ifOp.getResults().end());
  } else {
    // The carried values take the body's input types (a dim that changes
    // is dynamic there).
    GraphOp body = cf->graphs.back();
    SmallVector<PlaceholderOp> placeholders;
    body.getPlaceholders(placeholders);
    unsigned offset = cf->kind == ControlFlowCall::ForLoop ? 1 : 0;
    SmallVector<Type> carriedTypes;
    bool shapeChanges = false;
    for (auto [i, v] : llvm::enumerate(carried)) {
      Type t = placeholders[offset + i].getResult().getType();
      if (isa<AnyType>(t))
        t = v.getType();
      carriedTypes.push_back(t);
      shapeChanges |= t != v.getType();
      carried[i] = castTo(b, loc, v, t);
    }
    auto yieldCarried = [&](Block *block, ArrayRef<Value> next) {
      OpBuilder inner = OpBuilder::atBlockEnd(block);
      SmallVector<Value> yielded;
      for (auto [v, t] : llvm::zip(next, carriedTypes))
        yielded.push_back(castTo(inner, loc, v, t));
      scf::YieldOp::create(inner, loc, yielded);
    };
    Type i64 = b.getI64Type();
    if (cf->kind == ControlFlowCall::ForLoop && shapeChanges) {
      // A counted loop whose carried value changes shape (a sequence grown
      // by torch.cat) is a while loop counting its iterations: scf.for's
      // canonicalization would fold the cast of its initial value into the
      // loop, as if the shape did not change.
      Value count =
          cf->operand ? cf->operand : materialize(b, loc, cf->constant);
      if (count.getType() != i64)
        return fail(call, "the trip count must be an int");
      SmallVector<Type> types = {i64};
      llvm::append_range(types, carriedTypes);
      SmallVector<Value> inits = {
          arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(0))};
      llvm::append_range(inits, carried);
      auto whileOp = scf::WhileOp::create(b, loc, types, inits);
      SmallVector<Location> locs(types.size(), loc);
      Block *before = b.createBlock(&whileOp.getBefore(), {}, types, locs);
      Block *after = b.createBlock(&whileOp.getAfter(), {}, types, locs);
      OpBuilder head = OpBuilder::atBlockEnd(before);
      Value more = arith::CmpIOp::create(head, loc, arith::CmpIPredicate::slt,
                                         before->getArgument(0), count);
      scf::ConditionOp::create(head, loc, more, before->getArguments());
      SmallVector<Value> inputs(after->getArguments());
      llvm::append_range(inputs, additional);
      FailureOr<SmallVector<Value>> out =
          cloneGraph(body, after, inputs, anchor, loc);
      if (failed(out))
        return fail(call, "the body does not return a tuple");
      OpBuilder tail = OpBuilder::atBlockEnd(after);
      SmallVector<Value> next = {arith::AddIOp::create(
          tail, loc, after->getArgument(0),
          arith::ConstantOp::create(tail, loc, tail.getI64IntegerAttr(1)))};
      for (auto [v, t] : llvm::zip(*out, carriedTypes))
        next.push_back(castTo(tail, loc, v, t));
      scf::YieldOp::create(tail, loc, next);
      bodies.push_back(after);
      results.assign(whileOp.getResults().begin() + 1,
                     whileOp.getResults().end());
      b.setInsertionPointAfter(whileOp);
    } else if (cf->kind == ControlFlowCall::ForLoop) {
      Value count =
          cf->operand ? cf->operand : materialize(b, loc, cf->constant);
      if (count.getType() != i64)
        return fail(call, "the trip count must be an int");
      Value zero = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(0));
      Value one = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(1));
      auto forOp = scf::ForOp::create(b, loc, zero, count, one, carried);
      Block *block = forOp.getBody();
      if (!block->empty() && block->back().hasTrait<OpTrait::IsTerminator>())
        block->back().erase();
      SmallVector<Value> inputs = {forOp.getInductionVar()};
      llvm::append_range(inputs, forOp.getRegionIterArgs());
      llvm::append_range(inputs, additional);
      FailureOr<SmallVector<Value>> out =
          cloneGraph(body, block, inputs, anchor, loc);
      if (failed(out))
        return fail(call, "the body does not return a tuple");
      yieldCarried(block, *out);
      bodies.push_back(block);
      results.assign(forOp.getResults().begin(), forOp.getResults().end());
    } else {
      auto whileOp = scf::WhileOp::create(b, loc, carriedTypes, carried);
      SmallVector<Location> locs(carriedTypes.size(), loc);
      Block *before =
          b.createBlock(&whileOp.getBefore(), {}, carriedTypes, locs);
      Block *after = b.createBlock(&whileOp.getAfter(), {}, carriedTypes, locs);
      SmallVector<Value> condInputs(before->getArguments());
      llvm::append_range(condInputs, additional);
      FailureOr<SmallVector<Value>> pred =
          cloneGraph(cf->graphs[0], before, condInputs, anchor, loc);
      if (failed(pred) || pred->size() != 1)
        return fail(call, "the cond graph does not return one value");
      OpBuilder inner = OpBuilder::atBlockEnd(before);
      scf::ConditionOp::create(inner, loc, truth(inner, loc, (*pred)[0]),
                               before->getArguments());
      SmallVector<Value> bodyInputs(after->getArguments());
      llvm::append_range(bodyInputs, additional);
      FailureOr<SmallVector<Value>> out =
          cloneGraph(body, after, bodyInputs, anchor, loc);
      if (failed(out))
        return fail(call, "the body does not return a tuple");
      yieldCarried(after, *out);
      bodies.push_back(before);
      bodies.push_back(after);
      results.assign(whileOp.getResults().begin(), whileOp.getResults().end());
      b.setInsertionPointAfter(whileOp);
    }
  }

  // The getitem nodes read the results.
  b.setInsertionPoint(call);
  for (auto [item, index] : items) {
    OpBuilder after(item);
    Value v = results[index];
    item.getResult().replaceAllUsesWith(
        castTo(after, loc, v, item.getResult().getType()));
    item->erase();
  }
  call->erase();
  // Control flow inside the graphs, now copied into the regions.
  for (Block *block : bodies)
    if (failed(run(*block, anchor)))
      return failure();
  return success();
}

} // namespace

LogicalResult mlir::fx::lowering::inlineControlFlow(GraphModuleOp module,
                                                    GraphOp graph) {
  ControlFlowInliner inliner(module);
  if (failed(inliner.run(graph.getBody().front(), nullptr)))
    return failure();
  // The get_attr nodes of the graphs inlined are unused now.
  SmallVector<GetAttrOp> unused;
  graph.walk([&](GetAttrOp getAttr) {
    if (getAttr->use_empty() &&
        isa_and_nonnull<GraphOp>(module.lookupTarget(getAttr.getTarget())))
      unused.push_back(getAttr);
  });
  for (GetAttrOp getAttr : unused)
    getAttr->erase();
  return success();
}

//===----------------------------------------------------------------------===//
// Run-time checks inside control flow
//===----------------------------------------------------------------------===//

/// `yield`'s operands with `value` appended.
static void appendYield(Region &region, Value value) {
  auto yield = cast<scf::YieldOp>(region.front().getTerminator());
  yield->insertOperands(yield->getNumOperands(), value);
}

LogicalResult mlir::fx::lowering::hoistChecks(func::FuncOp func) {
  SmallVector<Operation *> checks;
  func.walk([&](Operation *op) {
    if (op->hasAttr("fx.check") && op->getParentOp() != func)
      checks.push_back(op);
  });
  for (Operation *check : checks) {
    auto info = check->getAttrOfType<DictionaryAttr>("fx.check");
    check->removeAttr("fx.check");
    Location loc = check->getLoc();
    OpBuilder b(check->getContext());
    Type i1 = b.getI1Type();
    b.setInsertionPointAfter(check);
    // The flag as a bool, carried out of each op it is nested in.
    Value flag =
        tensor::ExtractOp::create(b, loc, check->getResult(0), ValueRange{});
    Operation *inner = flag.getDefiningOp();
    while (inner->getParentOp() != func) {
      Operation *parent = inner->getParentOp();
      Region *region = inner->getParentRegion();
      if (auto ifOp = dyn_cast<scf::IfOp>(parent)) {
        // One result more: the flag where it is raised, false elsewhere.
        b.setInsertionPoint(ifOp);
        SmallVector<Type> types(ifOp.getResultTypes());
        types.push_back(i1);
        auto newIf =
            scf::IfOp::create(b, ifOp.getLoc(), types, ifOp.getCondition(),
                              /*withElseRegion=*/true);
        bool inThen = region == &ifOp.getThenRegion();
        newIf.getThenRegion().takeBody(ifOp.getThenRegion());
        newIf.getElseRegion().takeBody(ifOp.getElseRegion());
        Region &other = inThen ? newIf.getElseRegion() : newIf.getThenRegion();
        appendYield(inThen ? newIf.getThenRegion() : newIf.getElseRegion(),
                    flag);
        OpBuilder o(other.front().getTerminator());
        appendYield(other,
                    arith::ConstantOp::create(o, loc, o.getBoolAttr(false)));
        ifOp->replaceAllUsesWith(
            newIf->getResults().take_front(ifOp->getNumResults()));
        ifOp->erase();
        flag = newIf->getResults().back();
        inner = newIf;
      } else if (auto forOp = dyn_cast<scf::ForOp>(parent)) {
        // An iteration argument more: whether any iteration raised it.
        b.setInsertionPoint(forOp);
        SmallVector<Value> inits(forOp.getInitArgs());
        inits.push_back(
            arith::ConstantOp::create(b, loc, b.getBoolAttr(false)));
        auto newFor =
            scf::ForOp::create(b, forOp.getLoc(), forOp.getLowerBound(),
                               forOp.getUpperBound(), forOp.getStep(), inits);
        Block *body = forOp.getBody();
        Value raised = body->addArgument(i1, loc);
        newFor.getRegion().takeBody(forOp.getRegion());
        auto yield = cast<scf::YieldOp>(body->getTerminator());
        OpBuilder y(yield);
        appendYield(newFor.getRegion(),
                    arith::OrIOp::create(y, loc, raised, flag));
        forOp->replaceAllUsesWith(
            newFor->getResults().take_front(forOp->getNumResults()));
        forOp->erase();
        flag = newFor->getResults().back();
        inner = newFor;
      } else if (auto whileOp = dyn_cast<scf::WhileOp>(parent)) {
        // A carried value more: whether any iteration raised it, in the
        // condition's region or in the body's.
        b.setInsertionPoint(whileOp);
        SmallVector<Type> types(whileOp.getResultTypes());
        types.push_back(i1);
        SmallVector<Value> inits(whileOp.getInits());
        inits.push_back(
            arith::ConstantOp::create(b, loc, b.getBoolAttr(false)));
        auto newWhile = scf::WhileOp::create(b, whileOp.getLoc(), types, inits);
        bool inBefore = region == &whileOp.getBefore();
        Block *before = &whileOp.getBefore().front();
        Block *after = &whileOp.getAfter().front();
        Value accBefore = before->addArgument(i1, loc);
        Value accAfter = after->addArgument(i1, loc);
        newWhile.getBefore().takeBody(whileOp.getBefore());
        newWhile.getAfter().takeBody(whileOp.getAfter());
        auto condition = cast<scf::ConditionOp>(before->getTerminator());
        OpBuilder c(condition);
        condition->insertOperands(
            condition->getNumOperands(),
            inBefore ? arith::OrIOp::create(c, loc, accBefore, flag)
                     : accBefore);
        auto yield = cast<scf::YieldOp>(after->getTerminator());
        OpBuilder y(yield);
        yield->insertOperands(
            yield->getNumOperands(),
            inBefore ? accAfter : arith::OrIOp::create(y, loc, accAfter, flag));
        whileOp->replaceAllUsesWith(
            newWhile->getResults().take_front(whileOp->getNumResults()));
        whileOp->erase();
        flag = newWhile->getResults().back();
        inner = newWhile;
      } else {
        return check->emitError()
               << "cannot compile node "
               << (info.getAs<StringAttr>("node")
                       ? info.getAs<StringAttr>("node").getValue()
                       : StringRef("'?'"))
               << ": it checks its operands at run time (index bounds, a "
                  "division by zero, a raise) inside '"
               << parent->getName()
               << "', whose flag cannot be carried out of it";
      }
    }
    b.setInsertionPointAfter(inner);
    auto flagTensor = tensor::FromElementsOp::create(
        b, loc, RankedTensorType::get({}, i1), flag);
    flagTensor->setAttr("fx.check", info);
  }
  return success();
}
