//===- ConvShiftedWindow.cpp - Convolutions as shifted-window contractions
//---===//
//
// Part of fx-cpu-schedule; see CPUSchedule.h.
//
//===----------------------------------------------------------------------===//

#include "CPUSchedule.h"

using namespace mlir;

namespace mlir::fx::cpu {

int64_t rowsReadPastEnd(int64_t kw, int64_t dw, int64_t width) {
  return ((kw - 1) * dw + width - 1) / width;
}

std::pair<linalg::GenericOp, ContractionLoops>
shiftedWindowConv(RewriterBase &rewriter, linalg::Conv2DNchwFchwOp conv) {
  Location loc = conv.getLoc();
  MLIRContext *context = rewriter.getContext();
  Value input = conv.getInputs()[0], filter = conv.getInputs()[1];
  Value init = conv.getOutputs()[0];
  auto inputType = cast<RankedTensorType>(input.getType());
  auto filterType = cast<RankedTensorType>(filter.getType());
  auto initType = cast<RankedTensorType>(init.getType());
  Type elem = initType.getElementType();
  auto dilations = llvm::to_vector(conv.getDilations().getValues<int64_t>());
  int64_t batch = initType.getDimSize(0), filters = initType.getDimSize(1);
  int64_t oh = initType.getDimSize(2);
  int64_t width = inputType.getDimSize(3);
  int64_t kw = filterType.getDimSize(3);
  int64_t extraRows = rowsReadPastEnd(kw, dilations[1], width);
  rewriter.setInsertionPoint(conv);
  Value rows = tensor::CollapseShapeOp::create(
      rewriter, loc, padRowsBelow(rewriter, loc, input, extraRows),
      ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}});
  // ext[n, f, p]: zeros, or the init's values when the conv has a fill.
  Value fillValue = initFillValue(rewriter, loc, init);
  auto extType = RankedTensorType::get({batch, filters, oh * width}, elem);
  Value ext =
      linalg::FillOp::create(rewriter, loc, fillValue,
                             ValueRange{tensor::EmptyOp::create(
                                 rewriter, loc, extType.getShape(), elem)})
          .getResult(0);
  AffineExpr n, f, p, c, i, j;
  bindDims(context, n, f, p, c, i, j);
  SmallVector<AffineMap> maps = {
      AffineMap::get(6, 0, {f, c, i, j}, context),
      AffineMap::get(6, 0,
                     {n, c, p + i * (dilations[0] * width) + j * dilations[1]},
                     context),
      AffineMap::get(6, 0, {n, f, p}, context)};
  SmallVector<utils::IteratorType> iterators(3, utils::IteratorType::parallel);
  iterators.append(3, utils::IteratorType::reduction);
  auto product = linalg::GenericOp::create(
      rewriter, loc, TypeRange{extType}, ValueRange{filter, rows},
      ValueRange{ext}, maps, iterators, multiplyAccumulate);
  Value grid = tensor::ExpandShapeOp::create(
      rewriter, loc, RankedTensorType::get({batch, filters, oh, width}, elem),
      product.getResult(0), ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}});
  Value result = tensor::ExtractSliceOp::create(
      rewriter, loc, initType, grid, indexAttrs(rewriter, {0, 0, 0, 0}),
      indexAttrs(rewriter, initType.getShape()),
      indexAttrs(rewriter, {1, 1, 1, 1}));
  rewriter.replaceOp(conv, addInit(rewriter, loc, init, result));
  return {product, ContractionLoops{1, 2, 3}};
}

} // namespace mlir::fx::cpu
