//===- Products.cpp - Operators computed as matrix products ---------------===//
//
// tensordot, inner, linalg_multi_dot and linalg_matrix_power, built with
// Lowering::lowerCall from the products of LinearAlgebra.cpp (mm, matmul,
// einsum): transposes and reshapes around one product, or a chain of them.
//
//===----------------------------------------------------------------------===//

#include "Compose.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::fx;
using namespace mlir::fx::lowering;
using namespace mlir::fx::lowering::compose;

namespace {

/// inner(a, b): the sum over the last dims of both, a's other dims then
/// b's (a product when either is a scalar), as an einsum.
LogicalResult lowerInner(Lowering &l) {
  using P = args::aten::inner;
  Value a = l.tensor(P::self), b = l.tensor(P::other);
  Type elem = l.resultElementType();
  if (!a || !b || !elem)
    return l.fail("needs two typed tensors");
  int64_t ra = rankOf(a), rb = rankOf(b);
  if (ra == 0 || rb == 0) {
    Value v = l.lowerCall("aten::mul.Tensor", {ref(l, 0), ref(l, 1)}, {a, b},
                          tensorOf(elem));
    return v ? l.replace(v) : failure();
  }
  if (ra + rb - 1 > 26)
    return l.fail("too many dims");
  std::string left, right;
  char next = 'a';
  for (int64_t d = 0; d + 1 < ra; ++d)
    left += next++;
  for (int64_t d = 0; d + 1 < rb; ++d)
    right += next++;
  std::string equation = left + next + "," + right + next + "->" + left + right;
  Value v = l.lowerCall("aten::einsum",
                        {l.b.getStringAttr(equation),
                         ListAttr::get(contextOf(l), {ref(l, 0), ref(l, 1)})},
                        {a, b}, tensorOf(elem));
  return v ? l.replace(v) : failure();
}

/// tensordot(self, other, dims_self, dims_other) as ATen computes it:
/// self's free dims first and its contracted ones last, other's
/// contracted ones first, each made a matrix, one matrix product, the
/// free dims back. Needs static shapes.
LogicalResult lowerTensordot(Lowering &l) {
  using P = args::aten::tensordot;
  Value a = l.tensor(P::self), b = l.tensor(P::other);
  auto dimsA = l.intList(P::dims_self), dimsB = l.intList(P::dims_other);
  if (!a || !b || !dimsA || !dimsB || dimsA->size() != dimsB->size())
    return l.fail("needs two tensors and constant dim lists of one length");
  auto typeA = cast<RankedTensorType>(a.getType());
  auto typeB = cast<RankedTensorType>(b.getType());
  if (!typeA.hasStaticShape() || !typeB.hasStaticShape() ||
      typeA.getElementType() != typeB.getElementType())
    return l.fail("needs static shapes of one element type");
  // The dims of `type` not in `dims` (made non-negative, checked).
  auto split = [&](RankedTensorType type, SmallVectorImpl<int64_t> &dims,
                   SmallVectorImpl<int64_t> &free) {
    int64_t rank = type.getRank();
    for (int64_t &d : dims) {
      if (d < -rank || d >= std::max<int64_t>(rank, 1))
        return false;
      d = d < 0 ? d + rank : d;
    }
    for (int64_t d = 0; d < rank; ++d)
      if (!llvm::is_contained(dims, d))
        free.push_back(d);
    return int64_t(free.size() + dims.size()) == rank;
  };
  SmallVector<int64_t> freeA, freeB;
  if (!split(typeA, *dimsA, freeA) || !split(typeB, *dimsB, freeB))
    return l.fail("dims out of range or repeated");
  int64_t m = 1, k = 1, n = 1;
  SmallVector<OpFoldResult> outSizes;
  for (int64_t d : freeA) {
    m *= typeA.getDimSize(d);
    outSizes.push_back(l.b.getIndexAttr(typeA.getDimSize(d)));
  }
  for (auto [da, db] : llvm::zip(*dimsA, *dimsB)) {
    if (typeA.getDimSize(da) != typeB.getDimSize(db))
      return l.fail("contracted dims differ in size");
    k *= typeA.getDimSize(da);
  }
  for (int64_t d : freeB) {
    n *= typeB.getDimSize(d);
    outSizes.push_back(l.b.getIndexAttr(typeB.getDimSize(d)));
  }
  SmallVector<int64_t> permA(freeA), permB(*dimsB);
  permA.append(dimsA->begin(), dimsA->end());
  permB.append(freeB.begin(), freeB.end());
  auto index = [&](int64_t v) -> OpFoldResult { return l.b.getIndexAttr(v); };
  Value left = l.reshape(l.transpose(a, permA), {index(m), index(k)});
  Value right = l.reshape(l.transpose(b, permB), {index(k), index(n)});
  Value product = l.lowerCall("aten::mm", {ref(l, 0), ref(l, 1)}, {left, right},
                              tensorOf(typeA.getElementType()));
  if (!product)
    return failure();
  return l.replace(l.reshape(product, outSizes));
}

/// linalg_multi_dot(tensors): the matrix products left to right; a first
/// (last) vector is a row (column) and its dim is dropped from the result.
LogicalResult lowerMultiDot(Lowering &l) {
  using P = args::aten::linalg_multi_dot;
  auto inputs = tensorsOf(l, l.arg(P::tensors));
  Type elem = l.resultElementType();
  if (!inputs || !elem)
    return l.fail("needs a list of typed tensors");
  if (inputs->size() < 2)
    return l.fail("needs at least 2 tensors");
  SmallVector<Value> &ts = *inputs;
  bool rowFirst = rankOf(ts.front()) == 1, columnLast = rankOf(ts.back()) == 1;
  for (size_t i = 0; i < ts.size(); ++i) {
    int64_t rank = rankOf(ts[i]);
    bool vectorOk = (i == 0 && rowFirst) || (i + 1 == ts.size() && columnLast);
    if (rank != 2 && !(rank == 1 && vectorOk))
      return l.fail(
          llvm::formatv("tensor {0} must be 2-D, got {1}-D", i, rank).str());
  }
  if (rowFirst)
    ts.front() =
        l.reshape(ts.front(), {l.b.getIndexAttr(1), l.dim(ts.front(), 0)});
  if (columnLast)
    ts.back() =
        l.reshape(ts.back(), {l.dim(ts.back(), 0), l.b.getIndexAttr(1)});
  Value product = ts[0];
  for (size_t i = 1; i < ts.size(); ++i) {
    product = l.lowerCall("aten::mm", {ref(l, 0), ref(l, 1)}, {product, ts[i]},
                          tensorOf(elem));
    if (!product)
      return failure();
  }
  if (columnLast)
    product = l.squeeze(product, 1);
  if (rowFirst)
    product = l.squeeze(product, 0);
  return l.replace(product);
}

/// linalg_matrix_power(self, n): n >= 0 by squaring (the identity for 0);
/// a negative n is the inverse (linalg_inv, which raises on a singular
/// matrix) to the power -n.
LogicalResult lowerMatrixPower(Lowering &l) {
  using P = args::aten::linalg_matrix_power;
  Value x = l.tensor(P::self);
  Type elem = l.resultElementType();
  auto n = l.constInt(P::n);
  if (!x || !elem || !n || rankOf(x) < 2)
    return l.fail("needs a batch of square matrices and a constant n");
  x = l.castTensor(x, elem);
  if (*n < 0) {
    x = l.lowerCall("aten::linalg_inv", {ref(l, 0)}, {x}, tensorOf(elem));
    if (!x)
      return failure();
    *n = -*n;
  }
  auto matmul = [&](Value a, Value b) {
    return l.lowerCall("aten::matmul", {ref(l, 0), ref(l, 1)}, {a, b},
                       tensorOf(elem));
  };
  if (*n == 0) {
    SmallVector<OpFoldResult> sizes = l.dims(x);
    sizes.pop_back();
    Value ones = l.filled(sizes, l.constant(elem, 1));
    Value eye =
        l.lowerCall("aten::diag_embed",
                    {ref(l, 0), int64(l, 0), int64(l, -2), int64(l, -1)},
                    {ones}, tensorOf(elem));
    return eye ? l.replace(eye) : failure();
  }
  Value result, square = x;
  for (int64_t k = *n; k > 0; k >>= 1) {
    if (k & 1) {
      result = result ? matmul(result, square) : square;
      if (!result)
        return failure();
    }
    if (k > 1 && !(square = matmul(square, square)))
      return failure();
  }
  return l.replace(result);
}

} // namespace

void mlir::fx::lowering::addProductLowerings(llvm::StringMap<LowerFn> &t) {
  addLowering(t, {"aten::inner"}, lowerInner);
  addLowering(t, {"aten::linalg_multi_dot"}, lowerMultiDot);
  addLowering(t, {"aten::linalg_matrix_power"}, lowerMatrixPower);
  addLowering(t, {"aten::tensordot"}, lowerTensordot);
}
