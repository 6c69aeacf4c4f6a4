//===- Layout.cpp - NHWC for elementwise ops between NHWC producers -------===//
//
// Part of fx-cpu-schedule; see CPUSchedule.h.
//
// An int8 conv computes its products in NHWC; the graph around it is NCHW.
// Where an elementwise op reads such products across (a residual block's
// epilogue: products + the block's input, ReLU, requantize) and its result
// feeds more of the same (the next block's residual add), the whole chain
// is computed in NHWC: each op of the chain writes NHWC, reads the chain's
// results along their rows, and its NCHW readers outside the chain get a
// transpose of their own, which fuses into them.
//
//===----------------------------------------------------------------------===//

#include "CPUSchedule.h"

using namespace mlir;

namespace mlir::fx::cpu {

/// Whether `op` is an elementwise generic writing a 4-D NCHW-ordered
/// result (identity init map) that is not a plain copy.
static bool isNCHWElementwise(linalg::GenericOp op) {
  if (op.getNumLoops() != 4 || op.getNumReductionLoops() != 0 ||
      op.getNumDpsInits() != 1 || !op.hasPureTensorSemantics() ||
      !op.getMatchingIndexingMap(op.getDpsInitOperand(0)).isIdentity() ||
      op.payloadUsesValueFromOperand(op.getDpsInitOperand(0)))
    return false;
  auto type = dyn_cast<RankedTensorType>(op.getResult(0).getType());
  if (!type || !type.hasStaticShape())
    return false;
  // A plain copy (a transpose) is what the rewrite adds.
  Block *body = op.getBody();
  if (body->getOperations().size() == 1)
    return false;
  return llvm::all_of(op.getIndexingMapsArray(), [](AffineMap map) {
    return map.isProjectedPermutation(/*allowZeroInResults=*/true);
  });
}

bool computeChainsInNHWC(RewriterBase &rewriter, func::FuncOp func) {
  MLIRContext *context = func.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, context); };
  // An NHWC tensor read in NCHW order.
  AffineMap acrossNHWC =
      AffineMap::get(4, 0, {d(0), d(2), d(3), d(1)}, context);
  SmallVector<linalg::GenericOp> candidates;
  func.walk([&](linalg::GenericOp op) {
    if (isNCHWElementwise(op))
      candidates.push_back(op);
  });
  // The chains: seeded by ops reading NHWC data across, grown through
  // ops reading a chain op's result in order.
  llvm::SetVector<Operation *> chain;
  for (linalg::GenericOp op : candidates)
    if (llvm::any_of(op.getDpsInputOperands(), [&](OpOperand *in) {
          return op.getMatchingIndexingMap(in) == acrossNHWC &&
                 getElementTypeOrSelf(in->get().getType())
                         .getIntOrFloatBitWidth() == 32;
        }))
      chain.insert(op);
  bool grown = !chain.empty();
  while (grown) {
    grown = false;
    for (linalg::GenericOp op : candidates) {
      if (chain.contains(op))
        continue;
      if (llvm::any_of(op.getDpsInputOperands(), [&](OpOperand *in) {
            Operation *producer = in->get().getDefiningOp();
            return producer && chain.contains(producer) &&
                   op.getMatchingIndexingMap(in).isIdentity();
          })) {
        chain.insert(op);
        grown = true;
      }
    }
  }
  if (chain.empty())
    return false;
  // Old loops (n, c, h, w) -> new loops (n, h, w, c).
  AffineMap toNew = AffineMap::get(4, 0, {d(0), d(3), d(1), d(2)}, context);
  DenseMap<Operation *, Value> nhwc;
  // In program order, so that a chain op's inputs from the chain exist.
  SmallVector<Operation *> ordered(chain.begin(), chain.end());
  llvm::sort(ordered,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  if (llvm::any_of(ordered, [&](Operation *op) {
        return op->getBlock() != ordered.front()->getBlock();
      }))
    return false;
  for (Operation *raw : ordered) {
    auto op = cast<linalg::GenericOp>(raw);
    auto type = cast<RankedTensorType>(op.getResult(0).getType());
    rewriter.setInsertionPoint(op);
    SmallVector<Value> inputs;
    SmallVector<AffineMap> maps;
    for (OpOperand *in : op.getDpsInputOperands()) {
      AffineMap map = op.getMatchingIndexingMap(in);
      Operation *producer = in->get().getDefiningOp();
      if (producer && nhwc.count(producer) && map.isIdentity()) {
        inputs.push_back(nhwc[producer]);
        maps.push_back(AffineMap::getMultiDimIdentityMap(4, context));
        continue;
      }
      inputs.push_back(in->get());
      maps.push_back(map.compose(toNew));
    }
    maps.push_back(AffineMap::getMultiDimIdentityMap(4, context));
    SmallVector<int64_t> shape{type.getDimSize(0), type.getDimSize(2),
                               type.getDimSize(3), type.getDimSize(1)};
    Value empty = tensor::EmptyOp::create(rewriter, op.getLoc(), shape,
                                          type.getElementType());
    auto flipped = linalg::GenericOp::create(
        rewriter, op.getLoc(), TypeRange{empty.getType()}, inputs,
        ValueRange{empty}, maps, op.getIteratorTypesArray());
    rewriter.cloneRegionBefore(op.getRegion(), flipped.getRegion(),
                               flipped.getRegion().end());
    nhwc[op] = flipped.getResult(0);
    // Readers outside the chain: a transpose back each, which fuses into
    // its reader.
    for (OpOperand &use : llvm::make_early_inc_range(op->getUses())) {
      if (chain.contains(use.getOwner()) &&
          cast<linalg::GenericOp>(use.getOwner())
              .getMatchingIndexingMap(&use)
              .isIdentity())
        continue;
      rewriter.setInsertionPoint(use.getOwner());
      Value back = tensor::EmptyOp::create(
          rewriter, op.getLoc(), type.getShape(), type.getElementType());
      Value transposed =
          linalg::GenericOp::create(
              rewriter, op.getLoc(), TypeRange{type}, ValueRange{nhwc[op]},
              ValueRange{back},
              ArrayRef<AffineMap>{
                  acrossNHWC, AffineMap::getMultiDimIdentityMap(4, context)},
              SmallVector<utils::IteratorType>(4,
                                               utils::IteratorType::parallel),
              [&](OpBuilder &b, Location loc, ValueRange args) {
                linalg::YieldOp::create(b, loc, args[0]);
              })
              .getResult(0);
      rewriter.modifyOpInPlace(use.getOwner(), [&] { use.set(transposed); });
    }
  }
  // The old ops: their chain readers now read the new ones.
  for (Operation *op : llvm::reverse(ordered))
    if (op->use_empty())
      rewriter.eraseOp(op);
  return true;
}

} // namespace mlir::fx::cpu
