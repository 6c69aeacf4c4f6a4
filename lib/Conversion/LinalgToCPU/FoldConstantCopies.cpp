//===- FoldConstantCopies.cpp - Slices and transposes of constants --------===//
//
// fx-cpu-fold-constant-copies: a tensor.extract_slice with static offsets,
// sizes and strides, or a linalg.transpose, of a constant becomes a
// constant of its own (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "fx-mlir/Conversion/Passes.h"
#include "fx-mlir/Dialect/FX/IR/FXAttrs.h"
#include "fx-mlir/Support/Blobs.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/PatternMatch.h"

#include <cstring>

namespace mlir::fx {
#define GEN_PASS_DEF_FXCPUFOLDCONSTANTCOPIES
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

/// The elements of the row-major `data` of `shape`, `width` bytes each,
/// transposed: result dim d is source dim permutation[d].
std::vector<char> transposedBytes(ArrayRef<char> data, ArrayRef<int64_t> shape,
                                  int64_t width,
                                  ArrayRef<int64_t> permutation) {
  size_t rank = shape.size();
  SmallVector<int64_t> pitch(rank, 1);
  for (size_t d = rank - 1; d > 0; --d)
    pitch[d - 1] = pitch[d] * shape[d];
  SmallVector<int64_t> sizes(rank), steps(rank);
  for (size_t d = 0; d < rank; ++d) {
    sizes[d] = shape[permutation[d]];
    steps[d] = pitch[permutation[d]];
  }
  std::vector<char> out(data.size());
  SmallVector<int64_t> index(rank, 0);
  int64_t from = 0;
  for (char *to = out.data(), *end = to + out.size(); to != end; to += width) {
    std::memcpy(to, data.data() + from * width, size_t(width));
    for (size_t d = rank; d-- > 0;) {
      from += steps[d];
      if (++index[d] < sizes[d])
        break;
      from -= steps[d] * sizes[d];
      index[d] = 0;
    }
  }
  return out;
}

/// The byte width of `type`'s elements when it is a static tensor of
/// integers or floats of whole bytes, held by the constant `value` as
/// row-major data; else 0.
int64_t elementWidth(RankedTensorType type, arith::ConstantOp constant) {
  if (!type || !type.hasStaticShape() || type.getRank() == 0)
    return 0;
  Type element = type.getElementType();
  if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8 != 0)
    return 0;
  int64_t width = element.getIntOrFloatBitWidth() / 8;
  ArrayRef<char> data = fx::getElementsData(constant.getValue());
  // A splat (canonicalize folds those) or no data: 0.
  return data.size() == size_t(type.getNumElements() * width) ? width : 0;
}

struct FoldConstantCopiesPass
    : public mlir::fx::impl::FXCPUFoldConstantCopiesBase<
          FoldConstantCopiesPass> {
  void runOnOperation() override {
    // In program order: a transpose of a slice reads the slice's constant
    // by the time it is folded.
    SmallVector<Operation *> copies;
    getOperation().walk([&](Operation *op) {
      if (isa<tensor::ExtractSliceOp, linalg::TransposeOp>(op))
        copies.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (Operation *op : copies) {
      auto constant = op->getOperand(0).getDefiningOp<arith::ConstantOp>();
      if (!constant)
        continue;
      auto sourceType = dyn_cast<RankedTensorType>(constant.getType());
      int64_t width = elementWidth(sourceType, constant);
      if (width == 0)
        continue;
      ArrayRef<char> data = fx::getElementsData(constant.getValue());
      std::vector<char> bytes;
      RankedTensorType resultType;
      if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op)) {
        resultType = slice.getResultType();
        if (!resultType.hasStaticShape() ||
            ShapedType::isDynamicShape(slice.getStaticOffsets()) ||
            ShapedType::isDynamicShape(slice.getStaticSizes()) ||
            ShapedType::isDynamicShape(slice.getStaticStrides()))
          continue;
        bytes = sliceBytes(data, sourceType.getShape(), width,
                           slice.getStaticOffsets(), slice.getStaticSizes(),
                           slice.getStaticStrides());
      } else {
        auto transpose = cast<linalg::TransposeOp>(op);
        if (transpose->getNumResults() != 1)
          continue; // on buffers
        resultType = cast<RankedTensorType>(transpose->getResult(0).getType());
        bytes = transposedBytes(data, sourceType.getShape(), width,
                                transpose.getPermutation());
      }
      rewriter.setInsertionPoint(op);
      auto value = DenseResourceElementsAttr::get(
          resultType, isa<linalg::TransposeOp>(op) ? "transposed" : "slice",
          fx::copiedBlob(bytes, size_t(width)));
      rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, value);
      if (constant->use_empty())
        rewriter.eraseOp(constant);
    }
  }
};

} // namespace
