//===- SplitEmptyTensors.cpp - One tensor.empty per use -------------------===//
//
// fx-cpu-split-empty-tensors: undoes CSE's merging of tensor.empty ops
// before one-shot bufferization, whose alias analysis would otherwise see
// every op of a graph writing into one tensor (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "fx-mlir/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

namespace mlir::fx {
#define GEN_PASS_DEF_FXCPUSPLITEMPTYTENSORS
#include "fx-mlir/Conversion/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;

namespace {

/// A tensor.empty with at most this many uses stays shared: bufferization
/// analyzes it quickly and may reuse its buffer among ops that do not
/// conflict (the CNNs' largest sharing: 9 uses in mobilenet_v2).
constexpr size_t kMaxSharedUses = 16;

struct SplitEmptyTensorsPass
    : public mlir::fx::impl::FXCPUSplitEmptyTensorsBase<SplitEmptyTensorsPass> {
  void runOnOperation() override {
    SmallVector<tensor::EmptyOp> empties;
    getOperation().walk([&](tensor::EmptyOp op) { empties.push_back(op); });
    OpBuilder builder(&getContext());
    for (tensor::EmptyOp empty : empties) {
      SmallVector<OpOperand *> uses;
      for (OpOperand &use : empty->getUses())
        uses.push_back(&use);
      if (uses.size() <= kMaxSharedUses)
        continue;
      // Each use gets its own copy, just before its user (dynamic sizes
      // dominate the original, so the user too); the original goes.
      for (OpOperand *use : uses) {
        builder.setInsertionPoint(use->getOwner());
        use->set(builder.clone(*empty)->getResult(0));
      }
      empty->erase();
    }
  }
};

} // namespace
