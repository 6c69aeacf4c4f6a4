//===- FoldMemRefAliasOps.cpp - Accesses of views as of their sources ----===//
//
// fx-cpu-fold-memref-alias-ops: upstream's fold-memref-alias-ops patterns,
// without its folds of vector reads and writes through a
// memref.expand_shape, which MLIR 22 gets wrong, plus the transfer_read
// fold where it is right (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "fx-mlir/Conversion/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::fx {
#define GEN_PASS_DEF_FXCPUFOLDMEMREFALIASOPS
#include "fx-mlir/Conversion/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;

namespace {

/// Whether `read`, a transfer_read of `expand`'s result with a minor
/// identity map, reads what the same read of `expand`'s source with its
/// minor identity map reads. It does when the vector's dims after its first
/// are whole reassociation groups of one dim each (read with the same
/// strides in both), and its first dim is the innermost of its group (read
/// with the source dim's stride in both: across the group's outer dims too
/// when the read is in bounds, so it must be, or the group one dim).
static bool readsTheSame(vector::TransferReadOp read,
                         memref::ExpandShapeOp expand) {
  int64_t vectorRank = read.getTransferRank();
  SmallVector<ReassociationIndices> groups = expand.getReassociationIndices();
  if (vectorRank == 0 || int64_t(groups.size()) < vectorRank)
    return false;
  ArrayRef<ReassociationIndices> trailing =
      ArrayRef(groups).take_back(vectorRank - 1);
  if (llvm::any_of(trailing, [](const ReassociationIndices &group) {
        return group.size() != 1;
      }))
    return false;
  const ReassociationIndices &first = groups[groups.size() - vectorRank];
  return first.size() == 1 || read.isDimInBounds(0);
}

/// Folds a transfer_read of an expand_shape into a read of its source,
/// where that reads the same (upstream's fold, for those reads only).
struct TransferReadOfExpandShape final
    : OpRewritePattern<vector::TransferReadOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(vector::TransferReadOp read,
                                PatternRewriter &rewriter) const override {
    auto expand = read.getBase().getDefiningOp<memref::ExpandShapeOp>();
    if (!expand || !read.getPermutationMap().isMinorIdentity() ||
        isa<VectorType>(expand.getResultType().getElementType()))
      return failure();
    if (!readsTheSame(read, expand))
      return rewriter.notifyMatchFailure(
          read, "the vector spans dims of one reassociation group");
    SmallVector<Value> indices;
    memref::resolveSourceIndicesExpandShape(read.getLoc(), rewriter, expand,
                                            read.getIndices(), indices,
                                            /*startsInbounds=*/false);
    AffineMap map = AffineMap::getMinorIdentityMap(
        indices.size(), read.getTransferRank(), read.getContext());
    rewriter.replaceOpWithNewOp<vector::TransferReadOp>(
        read, read.getVectorType(), expand.getViewSource(), indices, map,
        read.getPadding(), read.getMask(), read.getInBounds());
    return success();
  }
};

struct FoldMemRefAliasOpsPass
    : public mlir::fx::impl::FXCPUFoldMemRefAliasOpsBase<
          FoldMemRefAliasOpsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    memref::populateFoldMemRefAliasOpPatterns(patterns);
    // Upstream's folds of vector reads and writes through an expand_shape
    // (transfer_read; n-D vector.load/store and their masked forms, which
    // keep the same wrong strides), found by their debug names (the
    // patterns' type names).
    auto &native = patterns.getNativePatterns();
    size_t before = native.size();
    llvm::erase_if(native, [](const auto &pattern) {
      StringRef name = pattern->getDebugName();
      return (name.contains("LoadOpOfExpandShapeOpFolder") ||
              name.contains("StoreOpOfExpandShapeOpFolder")) &&
             name.contains("vector::");
    });
    if (before - native.size() != 5) {
      getOperation()->emitError(
          "fx-cpu-fold-memref-alias-ops: upstream's vector folds through "
          "expand_shape not found (pattern names changed?)");
      return signalPassFailure();
    }
    patterns.add<TransferReadOfExpandShape>(&getContext());
    (void)applyPatternsGreedily(getOperation(), std::move(patterns));
  }
};

} // namespace
