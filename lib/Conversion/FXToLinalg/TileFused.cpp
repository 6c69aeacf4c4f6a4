//===- TileFused.cpp - One loop nest for a fused op and its activation ----===//

#include "fx-mlir/Conversion/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::fx {
#define GEN_PASS_DEF_FXTILEFUSEDACTIVATIONS
#include "fx-mlir/Conversion/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;

namespace {
struct TileFusedActivationsPass
    : public mlir::fx::impl::FXTileFusedActivationsBase<
          TileFusedActivationsPass> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> marked;
    getOperation().walk([&](linalg::GenericOp op) {
      if (op->hasAttr("fx.fused_activation"))
        marked.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp op : marked) {
      op->removeAttr("fx.fused_activation");
      unsigned loops = op.getNumLoops();
      Operation *base = op.getDpsInputs().empty()
                            ? nullptr
                            : op.getDpsInputs()[0].getDefiningOp();
      if (loops < 2 || !isa_and_nonnull<linalg::LinalgOp>(base) ||
          op.getNumReductionLoops() != 0)
        continue;
      // Tiles of size 1 over every dim but the innermost.
      SmallVector<OpFoldResult> sizes(loops - 1, rewriter.getIndexAttr(1));
      sizes.push_back(rewriter.getIndexAttr(0));
      scf::SCFTileAndFuseOptions options;
      options.tilingOptions.setTileSizes(sizes);
      // Fuse the op itself and what initializes its result (a fill, a bias
      // broadcast); not the layers before it.
      options.setFusionControlFn(
          [&](tensor::ExtractSliceOp, OpResult producer, bool isDestination)
              -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
            if (producer.getOwner() == base || isDestination)
              return scf::SCFTileAndFuseOptions::ControlFnResult{};
            return std::nullopt;
          });
      rewriter.setInsertionPoint(op);
      FailureOr<scf::SCFTileAndFuseResult> result =
          scf::tileConsumerAndFuseProducersUsingSCF(
              rewriter, cast<TilingInterface>(op.getOperation()), options);
      if (failed(result))
        continue;
      for (OpResult r : op->getResults())
        if (Value replacement = result->replacements.lookup(r))
          rewriter.replaceAllUsesWith(r, replacement);
      rewriter.eraseOp(op);
    }
  }
};
} // namespace
