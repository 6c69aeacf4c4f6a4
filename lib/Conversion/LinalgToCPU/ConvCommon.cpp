//===- ConvCommon.cpp - What the conv algorithms share
//----------------------===//
//
// Part of fx-cpu-schedule; see CPUSchedule.h.
//
//===----------------------------------------------------------------------===//

#include "CPUSchedule.h"

using namespace mlir;

namespace mlir::fx::cpu {

//===----------------------------------------------------------------------===//
// Convolutions
//===----------------------------------------------------------------------===//

Value padRowsBelow(RewriterBase &rewriter, Location loc, Value input,
                   int64_t extraRows) {
  auto inputType = cast<RankedTensorType>(input.getType());
  Type elem = inputType.getElementType();
  Value zero = arith::ConstantOp::create(rewriter, loc, elem,
                                         rewriter.getZeroAttr(elem));
  SmallVector<OpFoldResult> low = indexAttrs(rewriter, {0, 0, 0, 0});
  SmallVector<OpFoldResult> high = indexAttrs(rewriter, {0, 0, extraRows, 0});
  Value source = input;
  auto pad = input.getDefiningOp<tensor::PadOp>();
  if (pad && pad.getConstantPaddingValue() &&
      matchPattern(pad.getConstantPaddingValue(), m_AnyZeroFloat()) &&
      pad.getSourceType().hasStaticShape() &&
      !ShapedType::isDynamicShape(pad.getStaticLow()) &&
      !ShapedType::isDynamicShape(pad.getStaticHigh())) {
    source = pad.getSource();
    low = indexAttrs(rewriter, pad.getStaticLow());
    SmallVector<int64_t> highs(pad.getStaticHigh());
    highs[2] += extraRows;
    high = indexAttrs(rewriter, highs);
  }
  SmallVector<int64_t> shape(inputType.getShape());
  shape[2] += extraRows;
  return tensor::PadOp::create(rewriter, loc,
                               RankedTensorType::get(shape, elem), source, low,
                               high, zero);
}

linalg::FillOp fillOf(Value init) {
  if (auto expand = init.getDefiningOp<tensor::ExpandShapeOp>())
    init = expand.getSrc();
  return init.getDefiningOp<linalg::FillOp>();
}

Value initFillValue(RewriterBase &rewriter, Location loc, Value init) {
  if (linalg::FillOp fill = fillOf(init))
    return fill.getInputs()[0];
  Type elem = cast<RankedTensorType>(init.getType()).getElementType();
  return arith::ConstantOp::create(rewriter, loc, elem,
                                   rewriter.getZeroAttr(elem));
}

Value addInit(RewriterBase &rewriter, Location loc, Value init, Value result) {
  if (fillOf(init))
    return result;
  auto type = cast<RankedTensorType>(init.getType());
  unsigned rank = type.getRank();
  AffineMap identity =
      AffineMap::getMultiDimIdentityMap(rank, rewriter.getContext());
  Value empty = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                        type.getElementType());
  return linalg::GenericOp::create(
             rewriter, loc, TypeRange{type}, ValueRange{init, result},
             ValueRange{empty},
             ArrayRef<AffineMap>{identity, identity, identity},
             SmallVector<utils::IteratorType>(rank,
                                              utils::IteratorType::parallel),
             [](OpBuilder &b, Location loc, ValueRange args) {
               linalg::YieldOp::create(
                   b, loc,
                   arith::AddFOp::create(b, loc, args[0], args[1]).getResult());
             })
      .getResult(0);
}

int64_t gatherRows(int64_t columnsPerRow, int64_t width, int64_t rows) {
  int64_t best = 0;
  for (int64_t r = 1; r <= rows; ++r) {
    if (rows % r != 0)
      continue;
    if (r * columnsPerRow <= tuning().gatherElements ||
        best * width < kGatherColumns)
      best = r;
    else
      break;
  }
  return best;
}

Value gatherColumns(RewriterBase &rewriter, linalg::Conv2DNchwFchwOp conv,
                    bool positionsFirst) {
  Location loc = conv.getLoc();
  MLIRContext *context = rewriter.getContext();
  Value input = conv.getInputs()[0];
  auto inputType = cast<RankedTensorType>(input.getType());
  auto filterType = cast<RankedTensorType>(conv.getInputs()[1].getType());
  auto initType = cast<RankedTensorType>(conv.getOutputs()[0].getType());
  auto strides = llvm::to_vector(conv.getStrides().getValues<int64_t>());
  auto dilations = llvm::to_vector(conv.getDilations().getValues<int64_t>());
  int64_t batch = inputType.getDimSize(0), channels = inputType.getDimSize(1);
  int64_t kh = filterType.getDimSize(2), kw = filterType.getDimSize(3);
  int64_t oh = initType.getDimSize(2), ow = initType.getDimSize(3);
  AffineExpr n, c, i, j, y, x;
  SmallVector<int64_t> shape;
  if (positionsFirst) {
    bindDims(context, n, y, x, c, i, j);
    shape = {batch, oh, ow, channels, kh, kw};
  } else {
    bindDims(context, n, c, i, j, y, x);
    shape = {batch, channels, kh, kw, oh, ow};
  }
  AffineMap read = AffineMap::get(6, 0,
                                  {n, c, y * strides[0] + i * dilations[0],
                                   x * strides[1] + j * dilations[1]},
                                  context);
  Value empty =
      tensor::EmptyOp::create(rewriter, loc, shape, inputType.getElementType());
  Value col6 =
      linalg::GenericOp::create(
          rewriter, loc, TypeRange{empty.getType()}, ValueRange{input},
          ValueRange{empty},
          ArrayRef<AffineMap>{read,
                              AffineMap::getMultiDimIdentityMap(6, context)},
          SmallVector<utils::IteratorType>(6, utils::IteratorType::parallel),
          [](OpBuilder &b, Location loc, ValueRange args) {
            linalg::YieldOp::create(b, loc, args[0]);
          })
          .getResult(0);
  SmallVector<ReassociationIndices> groups = {{0}, {1, 2, 3}, {4, 5}};
  if (positionsFirst)
    groups = {{0}, {1, 2}, {3, 4, 5}};
  return tensor::CollapseShapeOp::create(rewriter, loc, col6, groups);
}

} // namespace mlir::fx::cpu
