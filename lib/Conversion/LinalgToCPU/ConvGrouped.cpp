//===- ConvGrouped.cpp - Grouped convolutions
//-------------------------------===//
//
// Part of fx-cpu-schedule; see CPUSchedule.h.
//
//===----------------------------------------------------------------------===//

#include "CPUSchedule.h"

using namespace mlir;

namespace mlir::fx::cpu {

std::pair<linalg::GenericOp, std::optional<ContractionLoops>>
groupedConv(RewriterBase &rewriter, linalg::Conv2DNgchwGfchwOp conv) {
  Location loc = conv.getLoc();
  MLIRContext *context = rewriter.getContext();
  Value input = conv.getInputs()[0], filter = conv.getInputs()[1];
  Value init = conv.getOutputs()[0];
  auto inputType = cast<RankedTensorType>(input.getType());
  auto filterType = cast<RankedTensorType>(filter.getType());
  auto initType = cast<RankedTensorType>(init.getType());
  Type elem = initType.getElementType();
  auto strides = llvm::to_vector(conv.getStrides().getValues<int64_t>());
  auto dilations = llvm::to_vector(conv.getDilations().getValues<int64_t>());
  int64_t batch = initType.getDimSize(0), groups = initType.getDimSize(1);
  int64_t filters = initType.getDimSize(2);
  int64_t oh = initType.getDimSize(3), ow = initType.getDimSize(4);
  int64_t channels = inputType.getDimSize(2), width = inputType.getDimSize(4);
  int64_t kh = filterType.getDimSize(3), kw = filterType.getDimSize(4);
  rewriter.setInsertionPoint(conv);
  Value fillValue = initFillValue(rewriter, loc, init);
  auto filled = [&](ArrayRef<int64_t> shape) {
    return linalg::FillOp::create(
               rewriter, loc, fillValue,
               ValueRange{tensor::EmptyOp::create(rewriter, loc, shape, elem)})
        .getResult(0);
  };
  SmallVector<utils::IteratorType> iterators(4, utils::IteratorType::parallel);
  if (preferShiftedWindow(conv)) {
    // The input as [N, G*C, H, W] (the view the lowering made, or one),
    // padded by the rows the last positions read past its end.
    Value flat;
    if (auto expand = input.getDefiningOp<tensor::ExpandShapeOp>();
        expand && expand.getSrcType().getRank() == 4)
      flat = expand.getSrc();
    else
      flat = tensor::CollapseShapeOp::create(
          rewriter, loc, input,
          ArrayRef<ReassociationIndices>{{0}, {1, 2}, {3}, {4}});
    int64_t extraRows = rowsReadPastEnd(kw, dilations[1], width);
    Value padded = padRowsBelow(rewriter, loc, flat, extraRows);
    int64_t positions = (inputType.getDimSize(3) + extraRows) * width;
    Value rows = tensor::ExpandShapeOp::create(
        rewriter, loc,
        RankedTensorType::get({batch, groups, channels, positions}, elem),
        tensor::CollapseShapeOp::create(
            rewriter, loc, padded,
            ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}}),
        ArrayRef<ReassociationIndices>{{0}, {1, 2}, {3}});
    AffineExpr n, g, f, p, c, i, j;
    bindDims(context, n, g, f, p, c, i, j);
    iterators.append(3, utils::IteratorType::reduction);
    auto product = linalg::GenericOp::create(
        rewriter, loc,
        TypeRange{
            RankedTensorType::get({batch, groups, filters, oh * width}, elem)},
        ValueRange{filter, rows},
        ValueRange{filled({batch, groups, filters, oh * width})},
        ArrayRef<AffineMap>{
            AffineMap::get(7, 0, {g, f, c, i, j}, context),
            AffineMap::get(
                7, 0,
                {n, g, c, p + i * (dilations[0] * width) + j * dilations[1]},
                context),
            AffineMap::get(7, 0, {n, g, f, p}, context)},
        iterators, multiplyAccumulate);
    Value grid = tensor::ExpandShapeOp::create(
        rewriter, loc,
        RankedTensorType::get({batch, groups, filters, oh, width}, elem),
        product.getResult(0),
        ArrayRef<ReassociationIndices>{{0}, {1}, {2}, {3, 4}});
    Value result = tensor::ExtractSliceOp::create(
        rewriter, loc, initType, grid, indexAttrs(rewriter, {0, 0, 0, 0, 0}),
        indexAttrs(rewriter, initType.getShape()),
        indexAttrs(rewriter, {1, 1, 1, 1, 1}));
    rewriter.replaceOp(conv, addInit(rewriter, loc, init, result));
    return {product, ContractionLoops{2, 3, 4}};
  }
  // One image, and a few output rows, at a time, as
  // rewriteConvAsContraction: the gathered columns stay in the cache.
  std::pair<linalg::GenericOp, std::optional<ContractionLoops>> last;
  auto rewritePart = [&](linalg::Conv2DNgchwGfchwOp part) {
    last = groupedConv(rewriter, part);
  };
  if (batch > 1) {
    rewriteAsSliceLoop(rewriter, conv, /*dim=*/0, /*outStep=*/1,
                       /*inStride=*/1, /*inSize=*/1, rewritePart);
    return last;
  }
  int64_t rowsAtOnce = gatherRows(groups * channels * kh * kw * ow, ow, oh);
  if (rowsAtOnce < oh) {
    rewriteAsSliceLoop(rewriter, conv, /*dim=*/3, rowsAtOnce, strides[0],
                       (rowsAtOnce - 1) * strides[0] + (kh - 1) * dilations[0] +
                           1,
                       rewritePart);
    return last;
  }
  // col[n, g, c, i, j, y, x] = input[n, g, c, y*sh + i*dh, x*sw + j*dw]
  AffineExpr n, g, c, i, j, y, x;
  bindDims(context, n, g, c, i, j, y, x);
  SmallVector<int64_t> colShape = {batch, groups, channels, kh, kw, oh, ow};
  Value col7 =
      linalg::GenericOp::create(
          rewriter, loc, TypeRange{RankedTensorType::get(colShape, elem)},
          ValueRange{input},
          ValueRange{tensor::EmptyOp::create(rewriter, loc, colShape, elem)},
          ArrayRef<AffineMap>{
              AffineMap::get(7, 0,
                             {n, g, c, y * strides[0] + i * dilations[0],
                              x * strides[1] + j * dilations[1]},
                             context),
              AffineMap::getMultiDimIdentityMap(7, context)},
          SmallVector<utils::IteratorType>(7, utils::IteratorType::parallel),
          [](OpBuilder &b, Location loc, ValueRange args) {
            linalg::YieldOp::create(b, loc, args[0]);
          })
          .getResult(0);
  Value col = tensor::CollapseShapeOp::create(
      rewriter, loc, col7,
      ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3, 4}, {5, 6}});
  Value weights = tensor::CollapseShapeOp::create(
      rewriter, loc, filter,
      ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3, 4}});
  AffineExpr f, p, q;
  bindDims(context, n, g, f, p, q);
  iterators.push_back(utils::IteratorType::reduction);
  auto outType = RankedTensorType::get({batch, groups, filters, oh * ow}, elem);
  auto product = linalg::GenericOp::create(
      rewriter, loc, TypeRange{outType}, ValueRange{weights, col},
      ValueRange{filled(outType.getShape())},
      ArrayRef<AffineMap>{AffineMap::get(5, 0, {g, f, q}, context),
                          AffineMap::get(5, 0, {n, g, q, p}, context),
                          AffineMap::get(5, 0, {n, g, f, p}, context)},
      iterators, multiplyAccumulate);
  Value result = tensor::ExpandShapeOp::create(
      rewriter, loc, initType, product.getResult(0),
      ArrayRef<ReassociationIndices>{{0}, {1}, {2}, {3, 4}});
  rewriter.replaceOp(conv, addInit(rewriter, loc, init, result));
  return {product, std::nullopt};
}

} // namespace mlir::fx::cpu
