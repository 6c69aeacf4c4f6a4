//===- SplitDeallocs.cpp - One bufferization.dealloc per allocation -------===//
//
// fx-cpu-split-deallocs: splits the deallocations ownership-based
// deallocation makes at the end of a block, one per buffer the block
// allocated, before upstream's simplification compares them pairwise (see
// Passes.td).
//
//===----------------------------------------------------------------------===//

#include "fx-mlir/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

namespace mlir::fx {
#define GEN_PASS_DEF_FXCPUSPLITDEALLOCS
#include "fx-mlir/Conversion/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;

namespace {

/// Deallocations of fewer buffers than this stay as they are.
constexpr size_t kMinSplit = 16;

struct SplitDeallocsPass
    : public mlir::fx::impl::FXCPUSplitDeallocsBase<SplitDeallocsPass> {
  void runOnOperation() override {
    SmallVector<bufferization::DeallocOp> deallocs;
    getOperation().walk(
        [&](bufferization::DeallocOp op) { deallocs.push_back(op); });
    for (bufferization::DeallocOp dealloc : deallocs)
      split(dealloc);
  }

  /// `dealloc` as one dealloc per buffer a memref.alloc of its function
  /// made (distinct allocations: none aliases another, nor any other
  /// buffer of the list) and one of the rest, each with the same retained
  /// values; a retained value is owned when any of them says so.
  void split(bufferization::DeallocOp dealloc) {
    if (dealloc.getMemrefs().size() < kMinSplit)
      return;
    SmallVector<std::pair<Value, Value>> fresh, rest;
    llvm::SmallPtrSet<Value, 16> seen;
    for (auto [memref, condition] :
         llvm::zip(dealloc.getMemrefs(), dealloc.getConditions())) {
      bool allocated =
          memref.getDefiningOp<memref::AllocOp>() && seen.insert(memref).second;
      (allocated ? fresh : rest).push_back({memref, condition});
    }
    if (fresh.size() < 2)
      return;
    OpBuilder builder(dealloc);
    Location loc = dealloc.getLoc();
    ValueRange retained = dealloc.getRetained();
    SmallVector<Value> owned;
    auto add = [&](ArrayRef<std::pair<Value, Value>> part) {
      SmallVector<Value> memrefs, conditions;
      for (auto [memref, condition] : part) {
        memrefs.push_back(memref);
        conditions.push_back(condition);
      }
      auto op = bufferization::DeallocOp::create(builder, loc, memrefs,
                                                 conditions, retained);
      for (auto [i, result] : llvm::enumerate(op.getResults()))
        owned.size() <= i
            ? owned.push_back(result)
            : void(owned[i] =
                       arith::OrIOp::create(builder, loc, owned[i], result));
    };
    for (const auto &one : fresh)
      add(one);
    if (!rest.empty())
      add(rest);
    dealloc.replaceAllUsesWith(owned);
    dealloc.erase();
  }
};

} // namespace
