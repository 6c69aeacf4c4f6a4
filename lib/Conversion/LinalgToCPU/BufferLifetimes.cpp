//===- BufferLifetimes.cpp - Allocate late, free early --------------------===//
//
// fx-cpu-shorten-buffer-lifetimes: bufferization allocates a buffer where
// its tensor was created and upstream's ownership-based deallocation frees
// it at the end of its block. A graph's function is one block, so every
// intermediate buffer would live to the return. The pass moves each alloc
// down to the first use of the buffer (or an alias) and each dealloc up to
// the last.
//
//===----------------------------------------------------------------------===//

#include "fx-mlir/Conversion/Passes.h"

#include "mlir/Dialect/Bufferization/Transforms/BufferViewFlowAnalysis.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::fx {
#define GEN_PASS_DEF_FXCPUSHORTENBUFFERLIFETIMES
#include "fx-mlir/Conversion/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;

namespace {

/// The first and last ops of `alloc`'s block that use its buffer or one of
/// the buffer's `aliases` (a use in a nested region counts as its
/// ancestor's), deallocs aside; nullopt if there is no such op, if an alias
/// is used outside the block, or if the buffer has more than one dealloc.
std::optional<std::pair<Operation *, Operation *>>
usesInBlock(memref::AllocOp alloc,
            const BufferViewFlowAnalysis::ValueSetT &aliases) {
  Block *block = alloc->getBlock();
  Operation *first = nullptr, *last = nullptr;
  int deallocs = 0;
  for (Value alias : aliases) {
    for (Operation *user : alias.getUsers()) {
      if (isa<memref::DeallocOp>(user)) {
        if (++deallocs > 1)
          return std::nullopt;
        continue;
      }
      Operation *ancestor = block->findAncestorOpInBlock(*user);
      if (!ancestor)
        return std::nullopt;
      if (!first || ancestor->isBeforeInBlock(first))
        first = ancestor;
      if (!last || last->isBeforeInBlock(ancestor))
        last = ancestor;
    }
  }
  if (!first)
    return std::nullopt;
  return std::make_pair(first, last);
}

struct CPUShortenBufferLifetimesPass
    : public mlir::fx::impl::FXCPUShortenBufferLifetimesBase<
          CPUShortenBufferLifetimesPass> {
  void runOnOperation() override {
    BufferViewFlowAnalysis aliasing(getOperation());
    SmallVector<memref::AllocOp> allocs;
    getOperation().walk(
        [&](memref::AllocOp alloc) { allocs.push_back(alloc); });
    for (memref::AllocOp alloc : allocs) {
      auto uses = usesInBlock(alloc, aliasing.resolve(alloc.getResult()));
      if (!uses)
        continue;
      auto [first, last] = *uses;
      // Sizes computed by earlier ops keep the alloc where it is.
      if (alloc->getNumOperands() == 0 && first != alloc)
        alloc->moveBefore(first);
      for (Operation *user : alloc->getUsers()) {
        auto dealloc = dyn_cast<memref::DeallocOp>(user);
        if (dealloc && dealloc->getBlock() == alloc->getBlock() &&
            last->isBeforeInBlock(dealloc))
          dealloc->moveAfter(last);
      }
    }
  }
};

} // namespace
