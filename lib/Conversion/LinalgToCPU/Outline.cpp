//===- Outline.cpp - Cut a large function into called parts ---------------===//
//
// fx-cpu-outline-parts: a model's function is one block of thousands of
// loop nests. Function passes run on it on one thread, the translation to
// LLVM IR outlines each OpenMP region with a scan of the whole function,
// and LLVM compiles it on one thread. The pass moves runs of its top-level
// ops into functions of their own, called in order.
//
//===----------------------------------------------------------------------===//

#include "fx-mlir/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::fx {
#define GEN_PASS_DEF_FXCPUOUTLINEPARTS
#include "fx-mlir/Conversion/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;

namespace {

/// Ops nested in `op`, itself included.
int64_t weight(Operation *op) {
  int64_t ops = 0;
  op->walk([&](Operation *) { ++ops; });
  return ops;
}

/// Whether `v` can be recomputed in another function from nothing but
/// constants: the result of a side-effect-free op without regions whose
/// operands all can (constants, the workspace's `memref.get_global` and
/// its views). Such values are cloned into each part that uses them, so
/// LLVM keeps seeing the views' common base.
bool isRematerializable(Value v, DenseMap<Value, bool> &known) {
  if (auto it = known.find(v); it != known.end())
    return it->second;
  Operation *def = v.getDefiningOp();
  bool result = def && def->getNumRegions() == 0 && isMemoryEffectFree(def) &&
                llvm::all_of(def->getOperands(), [&](Value operand) {
                  return isRematerializable(operand, known);
                });
  known[v] = result;
  return result;
}

/// Clones the ops computing `v` (rematerializable) at `builder`'s point,
/// operands first; returns the clone of `v`.
Value rematerialize(OpBuilder &builder, Value v, IRMapping &mapping) {
  if (Value mapped = mapping.lookupOrNull(v))
    return mapped;
  Operation *def = v.getDefiningOp();
  for (Value operand : def->getOperands())
    rematerialize(builder, operand, mapping);
  builder.clone(*def, mapping);
  return mapping.lookup(v);
}

/// Moves the ops [first, last] of `func`'s block into a new private
/// function `name`, inserted after `after`, and calls it in their place;
/// returns the new function.
func::FuncOp outline(func::FuncOp func, Operation *after, Operation *first,
                     Operation *last, StringRef name,
                     DenseMap<Value, bool> &known) {
  Block *block = first->getBlock();
  llvm::SmallPtrSet<Operation *, 32> part;
  for (Operation *op = first;; op = op->getNextNode()) {
    part.insert(op);
    if (op == last)
      break;
  }
  auto inPart = [&](Operation *op) {
    return part.contains(block->findAncestorOpInBlock(*op));
  };
  // Values from outside the part: arguments, or recomputed inside.
  llvm::SetVector<Value> arguments, recomputed;
  for (Operation *top : part)
    top->walk([&](Operation *op) {
      for (Value operand : op->getOperands()) {
        Operation *def = operand.getDefiningOp();
        if (def ? inPart(def)
                : inPart(
                      cast<BlockArgument>(operand).getOwner()->getParentOp()))
          continue;
        if (isRematerializable(operand, known))
          recomputed.insert(operand);
        else
          arguments.insert(operand);
      }
    });
  // Values of the part used after it: results, or recomputed after the
  // call.
  SmallVector<Value> results, recomputedAfter;
  for (Operation *top : part)
    for (Value result : top->getResults())
      if (llvm::any_of(result.getUsers(),
                       [&](Operation *user) { return !inPart(user); }))
        (isRematerializable(result, known) ? recomputedAfter : results)
            .push_back(result);

  OpBuilder builder(func);
  builder.setInsertionPointAfter(after);
  auto typeOf = [](Value v) { return v.getType(); };
  auto type = builder.getFunctionType(
      llvm::to_vector(llvm::map_range(arguments, typeOf)),
      llvm::to_vector(llvm::map_range(results, typeOf)));
  auto callee = func::FuncOp::create(builder, first->getLoc(), name, type);
  callee.setPrivate();
  Block *body = callee.addEntryBlock();

  builder.setInsertionPoint(first);
  auto call = func::CallOp::create(builder, first->getLoc(), callee,
                                   llvm::to_vector(arguments));

  builder.setInsertionPointToStart(body);
  IRMapping mapping;
  for (Value v : recomputed)
    rematerialize(builder, v, mapping);
  body->getOperations().splice(body->end(), block->getOperations(),
                               first->getIterator(),
                               std::next(last->getIterator()));
  auto inCallee = [&](OpOperand &use) {
    return callee->isProperAncestor(use.getOwner());
  };
  for (auto [value, argument] : llvm::zip(arguments, body->getArguments()))
    Value(value).replaceUsesWithIf(argument, inCallee);
  for (Value v : recomputed)
    v.replaceUsesWithIf(mapping.lookup(v), inCallee);
  builder.setInsertionPointToEnd(body);
  func::ReturnOp::create(builder, last->getLoc(), results);
  auto outsideCallee = [&](OpOperand &use) {
    return !callee->isProperAncestor(use.getOwner());
  };
  for (auto [value, result] : llvm::zip(results, call.getResults()))
    value.replaceUsesWithIf(result, outsideCallee);
  builder.setInsertionPointAfter(call);
  IRMapping clones;
  for (Value v : recomputedAfter)
    v.replaceUsesWithIf(rematerialize(builder, v, clones), outsideCallee);
  return callee;
}

struct CPUOutlinePartsPass
    : public mlir::fx::impl::FXCPUOutlinePartsBase<CPUOutlinePartsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    for (auto func : llvm::to_vector(module.getOps<func::FuncOp>())) {
      if (func.isExternal() || !func.getBody().hasOneBlock())
        continue;
      Block &block = func.getBody().front();
      // Ops computed from constants alone stay, first: each part that
      // uses them recomputes them.
      DenseMap<Value, bool> known;
      SmallVector<std::pair<Operation *, int64_t>> tops;
      int64_t left = 0;
      Operation *hoisted = nullptr;
      for (Operation &op :
           llvm::make_early_inc_range(block.without_terminator())) {
        if (op.getNumResults() > 0 &&
            llvm::all_of(op.getResults(), [&](Value v) {
              return isRematerializable(v, known);
            })) {
          if (hoisted)
            op.moveAfter(hoisted);
          else
            op.moveBefore(&block.front());
          hoisted = &op;
          continue;
        }
        tops.push_back({&op, weight(&op)});
        left += tops.back().second;
      }
      if (left < 2 * partOps)
        continue;
      // Runs of up to partOps ops (or one top-level op), cut between
      // top-level ops, but none of fewer than partOps / 2 at the end.
      SmallVector<std::pair<Operation *, Operation *>> runs;
      Operation *start = nullptr;
      int64_t size = 0;
      for (auto [op, ops] : tops) {
        if (start && size + ops > partOps && left - size >= partOps / 2) {
          runs.push_back({start, op->getPrevNode()});
          left -= size;
          start = nullptr;
          size = 0;
        }
        if (!start)
          start = op;
        size += ops;
      }
      if (start)
        runs.push_back({start, block.getTerminator()->getPrevNode()});
      unsigned index = 0;
      Operation *previous = func;
      for (auto [first, last] : runs) {
        std::string name;
        do
          name = (func.getSymName() + "__part" + Twine(index++)).str();
        while (symbols.lookup(name));
        previous = outline(func, previous, first, last, name, known);
      }
    }
  }
};

} // namespace
