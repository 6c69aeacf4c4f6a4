//===- ConvIm2col.cpp - Convolutions as im2col + a contraction
//--------------===//
//
// Part of fx-cpu-schedule; see CPUSchedule.h.
//
//===----------------------------------------------------------------------===//

#include "CPUSchedule.h"

using namespace mlir;

namespace mlir::fx::cpu {

void rewriteConvAsContraction(RewriterBase &rewriter,
                              linalg::Conv2DNchwFchwOp conv) {
  Location loc = conv.getLoc();
  Value input = conv.getInputs()[0], filter = conv.getInputs()[1];
  Value init = conv.getOutputs()[0];
  auto inputType = cast<RankedTensorType>(input.getType());
  auto filterType = cast<RankedTensorType>(filter.getType());
  auto initType = cast<RankedTensorType>(init.getType());
  int64_t batch = inputType.getDimSize(0), channels = inputType.getDimSize(1);
  int64_t kh = filterType.getDimSize(2), kw = filterType.getDimSize(3);
  int64_t oh = initType.getDimSize(2), ow = initType.getDimSize(3);
  auto strides = llvm::to_vector(conv.getStrides().getValues<int64_t>());
  auto dilations = llvm::to_vector(conv.getDilations().getValues<int64_t>());
  MLIRContext *context = rewriter.getContext();
  rewriter.setInsertionPoint(conv);
  bool pointwise = kh == 1 && kw == 1 && strides[0] == 1 && strides[1] == 1 &&
                   inputType.getDimSize(2) == oh &&
                   inputType.getDimSize(3) == ow;
  auto rewritePart = [&](linalg::Conv2DNchwFchwOp part) {
    rewriteConvAsContraction(rewriter, part);
  };
  if (!pointwise && batch > 1) {
    // One image at a time: the gathered columns of one image are reused
    // from the cache and the allocator, where a whole batch's (59 MB for
    // resnet18's first conv at batch 8) would be fresh pages every call.
    rewriteAsSliceLoop(rewriter, conv, /*dim=*/0, /*outStep=*/1,
                       /*inStride=*/1, /*inSize=*/1, rewritePart);
    return;
  }
  int64_t depth = channels * kh * kw;
  int64_t rows = gatherRows(depth * ow, ow, oh);
  if (!pointwise && rows < oh) {
    // A few output rows at a time: their columns stay in the cache between
    // the gather and the contraction (resnet18's first conv: 7.4 MB of
    // columns at once otherwise).
    rewriteAsSliceLoop(rewriter, conv, /*dim=*/2, rows, strides[0],
                       (rows - 1) * strides[0] + (kh - 1) * dilations[0] + 1,
                       rewritePart);
    return;
  }
  int64_t filters = filterType.getDimSize(0), positions = oh * ow;
  ArrayRef<char> filterBytes = constantBytes(filter);
  if (filters % tuning().panel == 0 && positions % (2 * tuning().lanes) != 0 &&
      positions <= kBlockRows &&
      filterBytes.size() == size_t(filterType.getNumElements()) * 4) {
    // Few positions (one cache block's rows, a 7x7 image) with a tail:
    // the filters go along the register tiles instead.
    rewriteConvFiltersInner(rewriter, conv, filterBytes);
    return;
  }
  Value col;
  if (pointwise) {
    col = tensor::CollapseShapeOp::create(
        rewriter, loc, input, ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}});
  } else {
    col = gatherColumns(rewriter, conv, /*positionsFirst=*/false);
  }
  Value weights = tensor::CollapseShapeOp::create(
      rewriter, loc, filter, ArrayRef<ReassociationIndices>{{0}, {1, 2, 3}});
  Value out = tensor::CollapseShapeOp::create(
      rewriter, loc, init, ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}});
  // out[n, f, p] += weights[f, q] * col[n, q, p]
  AffineExpr n, f, p, q;
  bindDims(context, n, f, p, q);
  SmallVector<AffineMap> maps = {AffineMap::get(4, 0, {f, q}, context),
                                 AffineMap::get(4, 0, {n, q, p}, context),
                                 AffineMap::get(4, 0, {n, f, p}, context)};
  SmallVector<utils::IteratorType> iterators(3, utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  Value product =
      linalg::GenericOp::create(rewriter, loc, TypeRange{out.getType()},
                                ValueRange{weights, col}, ValueRange{out}, maps,
                                iterators, multiplyAccumulate)
          .getResult(0);
  rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(
      conv, initType, product,
      ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}});
}

} // namespace mlir::fx::cpu
