//===- Matrices.cpp - Diagonals, triangles, trace, cross, outer -----------===//
//
// diagonal (and diag of a matrix) reads the diagonal of a slice through
// one generic; diag_embed (and diag of a vector) lays the last dim along a
// diagonal, zeros elsewhere; tril/triu zero one side of the diagonal;
// trace sums the diagonal; linalg_cross/cross and outer/ger are
// elementwise products of slices and broadcasts. They slice, read and join
// with Shape.cpp's helpers (sliceAlong, readThrough, concat).
//
//===----------------------------------------------------------------------===//

#include "Compose.h"

using namespace mlir;
using namespace mlir::fx;
using namespace mlir::fx::lowering;
using mlir::fx::lowering::compose::rankOf;

namespace {

/// trace(self): the sum of a matrix's diagonal (integers summed as int64,
/// the result's type).
LogicalResult lowerTrace(Lowering &l) {
  using P = args::aten::trace;
  Value x = l.tensor(P::self);
  Type elem = l.resultElementType();
  if (!x || !elem)
    return l.fail("needs a typed tensor");
  auto type = cast<RankedTensorType>(x.getType());
  if (type.getRank() != 2 || !type.hasStaticShape())
    return l.fail("needs a matrix of static shape");
  int64_t length = std::min(type.getDimSize(0), type.getDimSize(1));
  // The leading square, whose diagonal is read.
  for (int64_t d : {0, 1})
    x = sliceAlong(l, x, d, l.b.getIndexAttr(0), l.b.getIndexAttr(length), 1);
  AffineExpr i = l.b.getAffineDimExpr(0);
  Value diagonal =
      l.castTensor(readThrough(l, x, {i, i}, {l.b.getIndexAttr(length)}), elem);
  return l.replace(l.reduce(diagonal, {0}, /*keepdim=*/false,
                            l.constant(elem, 0),
                            [](OpBuilder &b, Location loc, Value acc, Value v) {
                              return add(b, loc, acc, v);
                            }));
}

/// tril/triu(self, diagonal): zeros above (tril) or below (triu) the
/// diagonal of the last two dims.
LogicalResult lowerTriangle(Lowering &l, bool lower) {
  static constexpr Param kSelf =
      sameParam(args::aten::tril::self, args::aten::triu::self);
  static constexpr Param kDiagonal =
      sameParam(args::aten::tril::diagonal, args::aten::triu::diagonal);
  Value x = l.tensor(kSelf);
  auto diagonal = l.constInt(kDiagonal);
  if (!x || !diagonal)
    return l.fail("needs a tensor and a constant diagonal");
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  if (rank < 2)
    return l.fail("needs at least 2 dims");
  Type elem = type.getElementType();
  Value init = l.empty(l.dims(x), elem);
  int64_t k = *diagonal;
  return l.replace(
      linalg::GenericOp::create(
          l.b, l.loc, TypeRange{init.getType()}, ValueRange{x},
          ValueRange{init},
          ArrayRef<AffineMap>{l.b.getMultiDimIdentityMap(rank),
                              l.b.getMultiDimIdentityMap(rank)},
          SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
          "", "",
          [&](OpBuilder &nb, Location loc, ValueRange v) {
            Value i = linalg::IndexOp::create(nb, loc, rank - 2);
            Value j = linalg::IndexOp::create(nb, loc, rank - 1);
            // j - i <= k (tril) or j - i >= k (triu).
            Value diff = arith::SubIOp::create(nb, loc, j, i);
            Value kv = arith::ConstantIndexOp::create(nb, loc, k);
            Value keep = arith::CmpIOp::create(
                nb, loc,
                lower ? arith::CmpIPredicate::sle : arith::CmpIPredicate::sge,
                diff, kv);
            Value zero = constantOf(nb, loc, elem, 0);
            linalg::YieldOp::create(
                nb, loc,
                arith::SelectOp::create(nb, loc, keep, v[0], zero).getResult());
          })
          .getResult(0));
}

LogicalResult lowerTril(Lowering &l) { return lowerTriangle(l, true); }
LogicalResult lowerTriu(Lowering &l) { return lowerTriangle(l, false); }

/// diagonal(self, offset, dim1, dim2): the other dims, then the diagonal
/// of dims dim1 and dim2 (x[..., i, i + offset], or x[..., i - offset, i]
/// below the main one): one generic.
static LogicalResult diagonalOf(Lowering &l, Value x,
                                std::optional<int64_t> offset,
                                std::optional<int64_t> d1,
                                std::optional<int64_t> d2);

LogicalResult lowerDiagonal(Lowering &l) {
  using P = args::aten::diagonal;
  Value x = l.tensor(P::self);
  if (!x)
    return l.fail("needs a tensor");
  int64_t rank = rankOf(x);
  return diagonalOf(l, x, l.constInt(P::offset),
                    l.normDim(l.arg(P::dim1), rank),
                    l.normDim(l.arg(P::dim2), rank));
}

static LogicalResult diagonalOf(Lowering &l, Value x,
                                std::optional<int64_t> offset,
                                std::optional<int64_t> d1,
                                std::optional<int64_t> d2) {
  if (!offset)
    return l.fail("needs a constant offset");
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  if (!d1 || !d2 || *d1 == *d2)
    return l.fail("dim1 and dim2 must be two different constant dims");
  int64_t n1 = type.getDimSize(*d1), n2 = type.getDimSize(*d2);
  if (ShapedType::isDynamic(n1) || ShapedType::isDynamic(n2))
    return l.fail("the diagonal's dims must be static");
  int64_t rowStart = std::max<int64_t>(0, -*offset),
          colStart = std::max<int64_t>(0, *offset);
  int64_t length = std::max<int64_t>(0, std::min(n1 - rowStart, n2 - colStart));
  OpBuilder &b = l.b;
  // The square [rowStart, + length) x [colStart, + length) of the two
  // dims, whose diagonal is read.
  x = sliceAlong(l, x, *d1, b.getIndexAttr(rowStart), b.getIndexAttr(length),
                 1);
  x = sliceAlong(l, x, *d2, b.getIndexAttr(colStart), b.getIndexAttr(length),
                 1);
  SmallVector<OpFoldResult> sizes;
  SmallVector<AffineExpr> exprs(rank);
  int64_t loop = 0;
  for (int64_t d = 0; d < rank; ++d) {
    if (d == *d1 || d == *d2)
      continue;
    sizes.push_back(l.dim(x, d));
    exprs[d] = b.getAffineDimExpr(loop++);
  }
  AffineExpr i = b.getAffineDimExpr(loop);
  exprs[*d1] = i;
  exprs[*d2] = i;
  sizes.push_back(b.getIndexAttr(length));
  return l.replace(readThrough(l, x, exprs, sizes));
}

/// `x`'s last dim laid along the `offset` diagonal of the (dim1, dim2)
/// plane of a tensor of one more dim, zeros elsewhere (diag_embed; diag of
/// a vector with dims 0, 1). One generic over the result reading x at the
/// diagonal's position, clamped off it.
static Value diagonalEmbedded(Lowering &l, Value x, int64_t offset,
                              int64_t dim1, int64_t dim2) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank() + 1, n = type.getShape().back();
  int64_t size = n + std::abs(offset);
  SmallVector<OpFoldResult> sizes;
  int64_t next = 0;
  for (int64_t d = 0; d < rank; ++d)
    sizes.push_back(d == dim1 || d == dim2 ? l.b.getIndexAttr(size)
                                           : l.dim(x, next++));
  Type elem = type.getElementType();
  Value init = l.empty(sizes, elem);
  int64_t rowStart = std::max<int64_t>(0, -offset);
  return linalg::GenericOp::create(
             l.b, l.loc, TypeRange{init.getType()}, ValueRange{},
             ValueRange{init}, l.b.getMultiDimIdentityMap(rank),
             SmallVector<utils::IteratorType>(rank,
                                              utils::IteratorType::parallel),
             "", "",
             [&](OpBuilder &b, Location loc, ValueRange) {
               Value i = linalg::IndexOp::create(b, loc, dim1);
               Value j = linalg::IndexOp::create(b, loc, dim2);
               Value onDiagonal = arith::CmpIOp::create(
                   b, loc, arith::CmpIPredicate::eq,
                   arith::SubIOp::create(b, loc, j, i),
                   arith::ConstantIndexOp::create(b, loc, offset));
               Value at = clampIndex(
                   b, loc,
                   arith::SubIOp::create(
                       b, loc, i,
                       arith::ConstantIndexOp::create(b, loc, rowStart)),
                   arith::ConstantIndexOp::create(b, loc, n));
               SmallVector<Value> coords;
               for (int64_t d = 0; d < rank; ++d)
                 if (d != dim1 && d != dim2)
                   coords.push_back(linalg::IndexOp::create(b, loc, d));
               coords.push_back(at);
               Value v = tensor::ExtractOp::create(b, loc, x, coords);
               linalg::YieldOp::create(
                   b, loc,
                   arith::SelectOp::create(b, loc, onDiagonal, v,
                                           constantOf(b, loc, elem, 0))
                       .getResult());
             })
      .getResult(0);
}

/// diag_embed(self, offset, dim1, dim2).
LogicalResult lowerDiagEmbed(Lowering &l) {
  using P = args::aten::diag_embed;
  Value x = l.tensor(P::self);
  auto offset =
      l.isNone(P::offset) ? std::optional<int64_t>(0) : l.constInt(P::offset);
  if (!x || !offset)
    return l.fail("needs a tensor and a constant offset");
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank() + 1;
  auto d1 = l.isNone(P::dim1) ? std::optional<int64_t>(rank - 2)
                              : l.normDim(l.arg(P::dim1), rank);
  auto d2 = l.isNone(P::dim2) ? std::optional<int64_t>(rank - 1)
                              : l.normDim(l.arg(P::dim2), rank);
  if (!d1 || !d2 || *d1 == *d2)
    return l.fail("dim1 and dim2 must be two different constant dims");
  if (type.getRank() == 0 || !type.hasStaticShape() ||
      type.getShape().back() == 0)
    return l.fail("needs a tensor of static shape with a last dim");
  // Two dims in the order given: the diagonal runs from dim1 to dim2.
  return l.replace(diagonalEmbedded(l, x, *offset, *d1, *d2));
}

/// diag(self, diagonal): a vector's matrix (the vector on that diagonal),
/// or a matrix's diagonal.
LogicalResult lowerDiag(Lowering &l) {
  using P = args::aten::diag;
  Value x = l.tensor(P::self);
  auto k = l.isNone(P::diagonal) ? std::optional<int64_t>(0)
                                 : l.constInt(P::diagonal);
  if (!x || !k)
    return l.fail("needs a tensor and a constant diagonal");
  auto type = cast<RankedTensorType>(x.getType());
  if (type.getRank() == 2)
    return diagonalOf(l, x, k, 0, 1);
  if (type.getRank() != 1 || !type.hasStaticShape() || type.getDimSize(0) == 0)
    return l.fail("needs a vector of static size or a matrix");
  return l.replace(diagonalEmbedded(l, x, *k, 0, 1));
}

/// linalg_cross(self, other, dim) and cross(self, other, dim=None: the
/// first dim of size 3): the cross product of 3-vectors along dim, of
/// the broadcast inputs.
LogicalResult lowerCross(Lowering &l) {
  // Parameters as aten::cross names them, at the same positions in
  // aten::linalg_cross.
  using P = args::aten::cross;
  Value a = l.tensor(P::self), b = l.tensor(P::other);
  Type elem = l.resultElementType();
  if (!a || !b || !elem)
    return l.fail("needs two typed tensors");
  auto resultType = dyn_cast<RankedTensorType>(l.resultType());
  if (!resultType || !resultType.hasStaticShape())
    return l.fail("needs a result of static shape");
  int64_t rank = resultType.getRank();
  Attribute dimAttr = l.target() == args::aten::linalg_cross::target
                          ? l.arg(args::aten::linalg_cross::dim)
                          : l.arg(P::dim);
  std::optional<int64_t> dim;
  if (dimAttr && !l.isNone(dimAttr))
    dim = l.normDim(dimAttr, rank);
  else if (l.target() == "aten::linalg_cross")
    dim = rank - 1;
  else
    for (int64_t d = 0; d < rank && !dim; ++d)
      if (resultType.getDimSize(d) == 3)
        dim = d;
  if (!dim || resultType.getDimSize(*dim) != 3)
    return l.fail("needs a constant dim of size 3");
  // The three components of each input along dim, as its rank counts it
  // (inputs of fewer dims broadcast from the right).
  auto components = [&](Value t) {
    int64_t r = rankOf(t), d = *dim - (rank - r);
    SmallVector<Value> parts;
    for (int64_t i = 0; i < 3; ++i)
      parts.push_back(sliceAlong(
          l, l.castTensor(t, elem), d,
          l.b.getIndexAttr(
              cast<RankedTensorType>(t.getType()).getDimSize(d) == 1 ? 0 : i),
          l.b.getIndexAttr(1), 1));
    return parts;
  };
  if (*dim - (rank - rankOf(a)) < 0 || *dim - (rank - rankOf(b)) < 0)
    return l.fail("both inputs must have the cross product's dim");
  SmallVector<Value> x = components(a), y = components(b);
  auto term = [&](int i, int j) {
    return l.elementwise(
        {x[i], y[j], x[j], y[i]}, elem, elem,
        [&](OpBuilder &nb, Location loc, ValueRange v) -> Value {
          if (isFloat(elem))
            return arith::SubFOp::create(
                nb, loc, arith::MulFOp::create(nb, loc, v[0], v[1]),
                arith::MulFOp::create(nb, loc, v[2], v[3]));
          return arith::SubIOp::create(
              nb, loc, arith::MulIOp::create(nb, loc, v[0], v[1]),
              arith::MulIOp::create(nb, loc, v[2], v[3]));
        });
  };
  return l.replace(concat(l, {term(1, 2), term(2, 0), term(0, 1)}, *dim, elem));
}

/// outer/ger(self, vec2): self[i] * vec2[j].
LogicalResult lowerOuter(Lowering &l) {
  // Parameters as aten::ger names them, at the same positions in aten::outer.
  using P = args::aten::ger;
  Value a = l.tensor(P::self), v = l.tensor(P::vec2);
  Type r = l.resultElementType();
  if (!a || !v || !r || rankOf(a) != 1 || rankOf(v) != 1)
    return l.fail("needs two vectors");
  return l.replace(
      l.elementwise({l.unsqueeze(a, 1), v}, r, r,
                    [&](OpBuilder &b, Location loc, ValueRange x) -> Value {
                      if (isFloat(r))
                        return arith::MulFOp::create(b, loc, x[0], x[1]);
                      return arith::MulIOp::create(b, loc, x[0], x[1]);
                    }));
}

} // namespace

void mlir::fx::lowering::addMatrixLowerings(llvm::StringMap<LowerFn> &t) {
  addLowering(t, {"aten::trace"}, lowerTrace);
  addLowering(t, {"aten::diag"}, lowerDiag);
  addLowering(t, {"aten::diag_embed"}, lowerDiagEmbed);
  addLowering(t, {"aten::linalg_cross", "aten::cross"}, lowerCross);
  addLowering(t, {"aten::tril"}, lowerTril);
  addLowering(t, {"aten::diagonal"}, lowerDiagonal);
  addLowering(t, {"aten::outer", "aten::ger"}, lowerOuter);
  addLowering(t, {"aten::triu"}, lowerTriu);
}
