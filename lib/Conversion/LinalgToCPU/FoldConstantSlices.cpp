//===- FoldConstantSlices.cpp - Static slices of constants as constants ---===//
//
// fx-cpu-fold-constant-slices: a tensor.extract_slice with static offsets,
// sizes and strides of a constant becomes a constant of its own (see
// Passes.td).
//
//===----------------------------------------------------------------------===//

#include "fx-mlir/Conversion/Passes.h"
#include "fx-mlir/Dialect/FX/IR/FXAttrs.h"
#include "fx-mlir/Support/Blobs.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/PatternMatch.h"

#include <cstring>

namespace mlir::fx {
#define GEN_PASS_DEF_FXCPUFOLDCONSTANTSLICES
#include "fx-mlir/Conversion/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;

namespace {

/// The elements of `slice` (static offsets, sizes and strides) of the
/// row-major `data` of `shape`, `width` bytes each, in row-major order.
std::vector<char> sliceBytes(ArrayRef<char> data, ArrayRef<int64_t> shape,
                             int64_t width, ArrayRef<int64_t> offsets,
                             ArrayRef<int64_t> sizes,
                             ArrayRef<int64_t> strides) {
  size_t rank = shape.size();
  SmallVector<int64_t> pitch(rank, 1);
  for (size_t d = rank - 1; d > 0; --d)
    pitch[d - 1] = pitch[d] * shape[d];
  int64_t total = 1;
  for (int64_t s : sizes)
    total *= s;
  std::vector<char> out(size_t(total * width));
  if (total == 0)
    return out;
  // Rows of the innermost dim, each one memcpy where its stride is 1.
  int64_t row = sizes[rank - 1], step = strides[rank - 1];
  SmallVector<int64_t> index(rank, 0);
  char *to = out.data();
  for (int64_t n = 0; n < total; n += row) {
    int64_t from = 0;
    for (size_t d = 0; d < rank; ++d)
      from += (offsets[d] + index[d] * strides[d]) * pitch[d];
    if (step == 1) {
      std::memcpy(to, data.data() + from * width, size_t(row * width));
      to += row * width;
    } else {
      for (int64_t i = 0; i < row; ++i, to += width)
        std::memcpy(to, data.data() + (from + i * step) * width, size_t(width));
    }
    for (size_t d = rank - 1; d-- > 0;) {
      if (++index[d] < sizes[d])
        break;
      index[d] = 0;
    }
  }
  return out;
}

struct FoldConstantSlicesPass
    : public mlir::fx::impl::FXCPUFoldConstantSlicesBase<
          FoldConstantSlicesPass> {
  void runOnOperation() override {
    SmallVector<tensor::ExtractSliceOp> slices;
    getOperation().walk([&](tensor::ExtractSliceOp slice) {
      if (slice.getSource().getDefiningOp<arith::ConstantOp>())
        slices.push_back(slice);
    });
    IRRewriter rewriter(&getContext());
    for (tensor::ExtractSliceOp slice : slices) {
      auto constant = slice.getSource().getDefiningOp<arith::ConstantOp>();
      auto sourceType = dyn_cast<RankedTensorType>(slice.getSourceType());
      RankedTensorType resultType = slice.getResultType();
      if (!sourceType || !sourceType.hasStaticShape() ||
          !resultType.hasStaticShape() || sourceType.getRank() == 0)
        continue;
      Type element = sourceType.getElementType();
      if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8 != 0)
        continue;
      int64_t width = element.getIntOrFloatBitWidth() / 8;
      ArrayRef<char> data = fx::getElementsData(constant.getValue());
      if (data.size() != size_t(sourceType.getNumElements() * width))
        continue; // a splat (canonicalize folds those) or no data
      if (ShapedType::isDynamicShape(slice.getStaticOffsets()) ||
          ShapedType::isDynamicShape(slice.getStaticSizes()) ||
          ShapedType::isDynamicShape(slice.getStaticStrides()))
        continue;
      std::vector<char> bytes = sliceBytes(
          data, sourceType.getShape(), width, slice.getStaticOffsets(),
          slice.getStaticSizes(), slice.getStaticStrides());
      rewriter.setInsertionPoint(slice);
      auto value = DenseResourceElementsAttr::get(
          resultType, "slice", fx::copiedBlob(bytes, size_t(width)));
      rewriter.replaceOpWithNewOp<arith::ConstantOp>(slice, value);
      if (constant->use_empty())
        rewriter.eraseOp(constant);
    }
  }
};

} // namespace
