//===- ConvFiltersInner.cpp - Convolutions with filters along the register tiles
//---===//
//
// Part of fx-cpu-schedule; see CPUSchedule.h.
//
//===----------------------------------------------------------------------===//

#include "CPUSchedule.h"

using namespace mlir;

namespace mlir::fx::cpu {

Value packedWeights(RewriterBase &rewriter, linalg::Conv2DNchwFchwOp conv,
                    ArrayRef<char> filterBytes) {
  auto filterType = cast<RankedTensorType>(conv.getInputs()[1].getType());
  int64_t filters = filterType.getDimSize(0);
  return transposedConstant(
      rewriter, conv.getLoc(), filterBytes,
      RankedTensorType::get({filters, filterType.getNumElements() / filters},
                            filterType.getElementType()),
      tuning().panel);
}

/// The result of `conv` as filter panels, of `shape` ([n, F/tuning().panel,
/// ..., tuning().panel]), filled with the value of the conv's fill (zero when
/// its init is not a fill: replaceFromPanels adds that init).
static Value filledPanels(RewriterBase &rewriter, linalg::Conv2DNchwFchwOp conv,
                          ArrayRef<int64_t> shape) {
  Location loc = conv.getLoc();
  Value init = conv.getOutputs()[0];
  Type elem = cast<RankedTensorType>(init.getType()).getElementType();
  Value fillValue = initFillValue(rewriter, loc, init);
  return linalg::FillOp::create(
             rewriter, loc, fillValue,
             ValueRange{tensor::EmptyOp::create(rewriter, loc, shape, elem)})
      .getResult(0);
}

void replaceFromPanels(RewriterBase &rewriter, linalg::Conv2DNchwFchwOp conv,
                       Value product) {
  Location loc = conv.getLoc();
  MLIRContext *context = rewriter.getContext();
  Value init = conv.getOutputs()[0];
  auto initType = cast<RankedTensorType>(init.getType());
  Type elem = initType.getElementType();
  auto productType = cast<RankedTensorType>(product.getType());
  int64_t batch = productType.getDimSize(0), panels = productType.getDimSize(1);
  int64_t panel = productType.getDimSize(4);
  int64_t oh = initType.getDimSize(2), ow = initType.getDimSize(3);
  linalg::FillOp fill = fillOf(init);
  AffineExpr n, b, lane, y, x;
  // out[n, b, i, y, x] = outT[n, b, y, x, i] (+ init[n, b, i, y, x])
  bindDims(context, n, b, lane, y, x);
  AffineMap identity = AffineMap::getMultiDimIdentityMap(5, context);
  auto outType = RankedTensorType::get({batch, panels, panel, oh, ow}, elem);
  SmallVector<Value> ins = {product};
  SmallVector<AffineMap> maps = {
      AffineMap::get(5, 0, {n, b, y, x, lane}, context)};
  if (!fill) {
    ins.push_back(tensor::ExpandShapeOp::create(
        rewriter, loc, outType, init,
        ArrayRef<ReassociationIndices>{{0}, {1, 2}, {3}, {4}}));
    maps.push_back(identity);
  }
  maps.push_back(identity);
  Value out =
      linalg::GenericOp::create(
          rewriter, loc, TypeRange{outType}, ins,
          ValueRange{
              tensor::EmptyOp::create(rewriter, loc, outType.getShape(), elem)},
          maps,
          SmallVector<utils::IteratorType>(5, utils::IteratorType::parallel),
          [](OpBuilder &b, Location loc, ValueRange args) {
            Value v = args[0];
            if (args.size() == 3)
              v = arith::AddFOp::create(b, loc, v, args[1]);
            linalg::YieldOp::create(b, loc, v);
          })
          .getResult(0);
  rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(
      conv, initType, out,
      ArrayRef<ReassociationIndices>{{0}, {1, 2}, {3}, {4}});
}

void rewriteConvFiltersInner(RewriterBase &rewriter,
                             linalg::Conv2DNchwFchwOp conv,
                             ArrayRef<char> filterBytes) {
  Location loc = conv.getLoc();
  MLIRContext *context = rewriter.getContext();
  auto initType = cast<RankedTensorType>(conv.getOutputs()[0].getType());
  int64_t batch = initType.getDimSize(0), filters = initType.getDimSize(1);
  int64_t positions = initType.getDimSize(2) * initType.getDimSize(3);
  rewriter.setInsertionPoint(conv);
  Value col = gatherColumns(rewriter, conv, /*positionsFirst=*/true);
  Value weights = packedWeights(rewriter, conv, filterBytes);
  Value outT = filledPanels(
      rewriter, conv,
      {batch, filters / tuning().panel, positions, tuning().panel});
  // outT[n, b, p, i] += col[n, p, q] * weights[b, q, i]
  AffineExpr n, b, p, lane, q;
  bindDims(context, n, b, p, lane, q);
  SmallVector<utils::IteratorType> iterators(4, utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  Value product =
      linalg::GenericOp::create(
          rewriter, loc, TypeRange{outT.getType()}, ValueRange{col, weights},
          ValueRange{outT},
          ArrayRef<AffineMap>{AffineMap::get(5, 0, {n, p, q}, context),
                              AffineMap::get(5, 0, {b, q, lane}, context),
                              AffineMap::get(5, 0, {n, b, p, lane}, context)},
          iterators, multiplyAccumulate)
          .getResult(0);
  replaceFromPanels(
      rewriter, conv,
      tensor::ExpandShapeOp::create(
          rewriter, loc,
          RankedTensorType::get({batch, filters / tuning().panel,
                                 initType.getDimSize(2), initType.getDimSize(3),
                                 tuning().panel},
                                initType.getElementType()),
          product, ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}, {4}}));
}

/// The register rows of a conv computed by shiftedWindowFiltersInner: a
/// divisor of its output width ow from 8 down to 6 (14 = 2 x 7), or ow
/// itself when that is at most 8; 0 when it has none, or its weights are
/// not a constant, or its filters do not fill whole panels, or it has
/// both a stride and a dilation along the width.
static int64_t filtersInnerRows(linalg::Conv2DNchwFchwOp conv,
                                ArrayRef<char> filterBytes) {
  auto filterType = cast<RankedTensorType>(conv.getInputs()[1].getType());
  auto initType = cast<RankedTensorType>(conv.getOutputs()[0].getType());
  auto strides = llvm::to_vector(conv.getStrides().getValues<int64_t>());
  auto dilations = llvm::to_vector(conv.getDilations().getValues<int64_t>());
  int64_t ow = initType.getDimSize(3);
  if ((strides[1] != 1 && dilations[1] != 1) ||
      filterType.getDimSize(0) % tuning().panel != 0 ||
      filterBytes.size() != size_t(filterType.getNumElements()) * 4)
    return 0;
  int64_t rows = registerRows(ow);
  return ow % rows == 0 ? rows : 0;
}

bool preferFiltersInner(linalg::Conv2DNchwFchwOp conv,
                        ArrayRef<char> filterBytes) {
  if (filtersInnerRows(conv, filterBytes) == 0)
    return false;
  auto inputType = cast<RankedTensorType>(conv.getInputs()[0].getType());
  auto initType = cast<RankedTensorType>(conv.getOutputs()[0].getType());
  int64_t width = inputType.getDimSize(3), ow = initType.getDimSize(3);
  int64_t positions = initType.getDimSize(2) * ow;
  auto strides = llvm::to_vector(conv.getStrides().getValues<int64_t>());
  // Strided: against the gather (resnet18's stride-2 3x3 convs, 1.22-1.25
  // to 1.03-1.08 ms; its first 7x7 conv 2.6-2.9 to 2.4 ms at 1 thread,
  // 1.85-1.95 to 1.25 at 2), unless its result is too large to stay in
  // the cache between the contraction and the transpose back, where the
  // gather works one image and a few rows at a time (that first conv at
  // batch 8: 26 MB).
  if (strides[0] != 1 || strides[1] != 1)
    return initType.getNumElements() <= kPanelsElements;
  return 14 * (width - ow) >= ow ||
         (positions % (2 * tuning().lanes) != 0 && positions <= kBlockRows);
}

SmallVector<std::pair<linalg::GenericOp, ContractionLoops>>
shiftedWindowFiltersInner(RewriterBase &rewriter, linalg::Conv2DNchwFchwOp conv,
                          ArrayRef<char> filterBytes) {
  Location loc = conv.getLoc();
  MLIRContext *context = rewriter.getContext();
  Value input = conv.getInputs()[0];
  auto inputType = cast<RankedTensorType>(input.getType());
  auto filterType = cast<RankedTensorType>(conv.getInputs()[1].getType());
  auto initType = cast<RankedTensorType>(conv.getOutputs()[0].getType());
  Type elem = initType.getElementType();
  auto strides = llvm::to_vector(conv.getStrides().getValues<int64_t>());
  auto dilations = llvm::to_vector(conv.getDilations().getValues<int64_t>());
  int64_t batch = initType.getDimSize(0), filters = initType.getDimSize(1);
  int64_t oh = initType.getDimSize(2), ow = initType.getDimSize(3);
  int64_t channels = filterType.getDimSize(1);
  int64_t kh = filterType.getDimSize(2), kw = filterType.getDimSize(3);
  int64_t panels = filters / tuning().panel, sw = strides[1];
  rewriter.setInsertionPoint(conv);
  Value acc =
      filledPanels(rewriter, conv, {batch, panels, oh, ow, tuning().panel});
  AffineExpr n, b, y, x, lane, c, a, e;
  bindDims(context, n, b, y, x, lane, c, a, e);
  SmallVector<utils::IteratorType> iterators(5, utils::IteratorType::parallel);
  iterators.append(3, utils::IteratorType::reduction);
  auto *from = reinterpret_cast<const float *>(filterBytes.data());
  SmallVector<std::pair<linalg::GenericOp, ContractionLoops>> products;
  for (int64_t phase = 0; phase < std::min(sw, kw); ++phase) {
    // This phase's window columns e = sw*t + phase, and its input columns.
    int64_t taps = (kw - phase + sw - 1) / sw;
    Value in = input;
    ArrayRef<char> bytes = filterBytes;
    std::vector<float> selected;
    if (sw != 1) {
      int64_t width = inputType.getDimSize(3);
      SmallVector<int64_t> sizes(inputType.getShape());
      sizes[3] = (width - phase + sw - 1) / sw;
      in = tensor::ExtractSliceOp::create(
          rewriter, loc, input, indexAttrs(rewriter, {0, 0, 0, phase}),
          indexAttrs(rewriter, sizes), indexAttrs(rewriter, {1, 1, 1, sw}));
      for (int64_t row = 0; row < filters * channels * kh; ++row)
        for (int64_t t = 0; t < taps; ++t)
          selected.push_back(from[row * kw + sw * t + phase]);
      bytes = ArrayRef<char>(reinterpret_cast<const char *>(selected.data()),
                             selected.size() * sizeof(float));
    }
    Value weights = tensor::ExpandShapeOp::create(
        rewriter, loc,
        RankedTensorType::get({panels, channels, kh, taps, tuning().panel},
                              elem),
        transposedConstant(
            rewriter, loc, bytes,
            RankedTensorType::get({filters, channels * kh * taps}, elem),
            tuning().panel),
        ArrayRef<ReassociationIndices>{{0}, {1, 2, 3}, {4}});
    auto product = linalg::GenericOp::create(
        rewriter, loc, TypeRange{acc.getType()}, ValueRange{in, weights},
        ValueRange{acc},
        ArrayRef<AffineMap>{
            AffineMap::get(8, 0,
                           {n, c, y * strides[0] + a * dilations[0],
                            x + e * (sw == 1 ? dilations[1] : 1)},
                           context),
            AffineMap::get(8, 0, {b, c, a, e, lane}, context),
            AffineMap::get(8, 0, {n, b, y, x, lane}, context)},
        iterators, multiplyAccumulate);
    products.push_back({product, ContractionLoops{3, 4, 5}});
    acc = product.getResult(0);
  }
  replaceFromPanels(rewriter, conv, acc);
  return products;
}

} // namespace mlir::fx::cpu
