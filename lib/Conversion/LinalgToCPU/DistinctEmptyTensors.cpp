//===- DistinctEmptyTensors.cpp - Keep many empty tensors apart -----------===//
//
// fx-cpu-distinct-empty-tensors: marks the tensor.empty ops of a large
// group of identical ones so that CSE keeps them apart (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "fx-mlir/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringMap.h"

namespace mlir::fx {
#define GEN_PASS_DEF_FXCPUDISTINCTEMPTYTENSORS
#include "fx-mlir/Conversion/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;

namespace {

/// Identical tensor.empty ops of one block up to this many may become one
/// (bufferization then may reuse one buffer among ops that do not
/// conflict; the benchmark's CNNs have at most 9 of a kind); more are
/// kept apart.
constexpr size_t kMaxMerged = 16;

struct DistinctEmptyTensorsPass
    : public mlir::fx::impl::FXCPUDistinctEmptyTensorsBase<
          DistinctEmptyTensorsPass> {
  void runOnOperation() override {
    // The identical ones: same block, type and sizes.
    llvm::StringMap<SmallVector<tensor::EmptyOp>> groups;
    getOperation().walk([&](tensor::EmptyOp op) {
      std::string key;
      llvm::raw_string_ostream os(key);
      os << op->getBlock() << ' ' << op.getType().getAsOpaquePointer();
      for (Value size : op.getDynamicSizes())
        os << ' ' << size.getAsOpaquePointer();
      groups[key].push_back(op);
    });
    Builder b(&getContext());
    for (auto &group : groups) {
      if (group.second.size() <= kMaxMerged)
        continue;
      for (auto [i, op] : llvm::enumerate(group.second))
        op->setAttr(mlir::fx::kDistinctEmptyAttr, b.getI64IntegerAttr(i));
    }
  }
};

} // namespace
