//===- Indexing.cpp - Splits, takes, scatters into slices and indices ----===//
//
// tensor_split and h/v/dsplit as slices; take and take_along_dim through
// index_select and gather; slice/select/diagonal_scatter as an
// insert_slice into the input (which bufferization copies: the function's
// arguments are not writable); index_fill and index_copy from which
// positions along a dim each index item names (indexHits). Each is built
// from other targets' lowerings (Lowering::lowerCall). scatter,
// scatter_add, scatter_reduce, index_add and max_unpool as one loop nest
// over the positions written, in order (lowerScatter).
//
//===----------------------------------------------------------------------===//

#include "Compose.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include "llvm/ADT/Sequence.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::fx;
using namespace mlir::fx::lowering;
using namespace mlir::fx::lowering::compose;

namespace {

/// tensor_split(self, sections or indices, dim) and hsplit (dim 1, 0 for a
/// vector) / vsplit (0) / dsplit (2), whose sections must divide the dim:
/// the pieces as slices.
LogicalResult lowerTensorSplit(Lowering &l) {
  // Parameters as aten::dsplit.array names them, at the same positions in
  // aten::dsplit.int and 6 more.
  using P = args::aten::dsplit_array;
  Value x = l.tensor(P::self);
  if (!x)
    return failure();
  StringRef target = l.target();
  int64_t rank = rankOf(x);
  std::optional<int64_t> dim;
  std::string name = target.drop_front(6).split('.').first.str();
  if (target.starts_with("aten::tensor_split")) {
    static constexpr Param kDim =
        sameParam(args::aten::tensor_split_indices::dim,
                  args::aten::tensor_split_sections::dim);
    dim = l.normDim(l.arg(kDim), rank);
  } else {
    int64_t least = name == "hsplit" ? 1 : name == "vsplit" ? 2 : 3;
    if (rank < least)
      return l.fail(name + " needs a tensor of at least " + Twine(least) +
                    " dims");
    dim = name == "hsplit" ? (rank == 1 ? 0 : 1) : name == "vsplit" ? 0 : 2;
  }
  if (!dim)
    return l.fail("dim must be a constant");
  int64_t n = staticDim(x, *dim);
  if (ShapedType::isDynamic(n))
    return l.fail("cannot split a dim of dynamic size");
  SmallVector<int64_t> bounds = {0};
  // The second parameter: split indices (the .indices/.array overloads) or
  // a number of sections (.sections/.int).
  namespace A = args::aten;
  static constexpr Param kIndices =
      sameParam(A::tensor_split_indices::indices, A::hsplit_array::indices,
                A::vsplit_array::indices, A::dsplit_array::indices);
  static constexpr Param kSections =
      sameParam(A::tensor_split_sections::sections, A::hsplit_int_::sections,
                A::vsplit_int_::sections, A::dsplit_int_::sections);
  static_assert(kIndices.index == kSections.index);
  if (auto indices = l.intList(kIndices)) {
    llvm::append_range(bounds, *indices);
  } else if (auto sections = l.constInt(kSections)) {
    if (*sections <= 0)
      return l.fail("the number of sections must be positive");
    if (name != "tensor_split" && n % *sections != 0)
      return l.fail(llvm::formatv("{0}: dim {1} of size {2} is not divisible "
                                  "into {3} sections",
                                  name, *dim, n, *sections)
                        .str());
    for (int64_t i = 0, at = 0; i + 1 < *sections; ++i) {
      at += n / *sections + (i < n % *sections ? 1 : 0);
      bounds.push_back(at);
    }
  } else {
    return l.fail("needs constant sections or indices");
  }
  bounds.push_back(n);
  SmallVector<Value> pieces;
  for (size_t i = 0; i + 1 < bounds.size(); ++i) {
    auto clamp = [&](int64_t v) {
      return std::clamp<int64_t>(v < 0 ? v + n : v, 0, n);
    };
    int64_t start = clamp(bounds[i]);
    int64_t end =
        std::max(start, i + 2 == bounds.size() ? n : clamp(bounds[i + 1]));
    Value piece = sliceOf(l, x, *dim, start, end);
    if (!piece)
      return failure();
    pieces.push_back(piece);
  }
  return l.replaceTuple(pieces);
}

/// take(self, index): the flattened tensor's items at `index` (negative
/// from the end), in index's shape.
LogicalResult lowerTake(Lowering &l) {
  using P = args::aten::take;
  Value x = l.tensor(P::self), index = l.tensor(P::index);
  Type elem = l.resultElementType();
  if (!x || !index || !elem)
    return l.fail("needs typed tensors");
  Type indexElem = cast<RankedTensorType>(index.getType()).getElementType();
  Value flat = flattened(l, x);
  Value flatIndex = flattened(l, index);
  if (!flat || !flatIndex)
    return failure();
  Value n = arith::IndexCastOp::create(l.b, l.loc, indexElem,
                                       l.toIndex(l.dim(flat, 0)));
  Value wrapped = l.elementwise(
      {flatIndex}, indexElem, indexElem,
      [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
        Value negative =
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, v[0],
                                  constantOf(b, loc, indexElem, 0));
        return arith::SelectOp::create(
            b, loc, negative, arith::AddIOp::create(b, loc, v[0], n), v[0]);
      });
  Value picked =
      l.lowerCall("aten::index_select", {ref(l, 0), int64(l, 0), ref(l, 1)},
                  {flat, wrapped}, tensorOf(elem));
  if (!picked)
    return failure();
  return l.replace(l.reshape(picked, l.dims(index)));
}

/// take_along_dim(self, indices, dim): gather along dim from both
/// broadcast against each other (but along dim); without dim, gather from
/// the flattened tensor.
LogicalResult lowerTakeAlongDim(Lowering &l) {
  using P = args::aten::take_along_dim;
  Value x = l.tensor(P::self), index = l.tensor(P::indices);
  Type elem = l.resultElementType();
  if (!x || !index || !elem)
    return l.fail("needs typed tensors");
  Type indexElem = cast<RankedTensorType>(index.getType()).getElementType();
  auto gather = [&](Value from, int64_t dim, Value at) -> LogicalResult {
    Value v = l.lowerCall("aten::gather", {ref(l, 0), int64(l, dim), ref(l, 1)},
                          {from, at}, tensorOf(elem));
    return v ? l.replace(v) : failure();
  };
  if (l.isNone(P::dim)) {
    Value flat = flattened(l, x);
    Value flatIndex = flattened(l, index);
    if (!flat || !flatIndex)
      return failure();
    return gather(flat, 0, flatIndex);
  }
  if (rankOf(x) != rankOf(index))
    return l.fail("self and indices must have the same number of dims");
  auto dim = l.normDim(l.arg(P::dim), rankOf(x));
  if (!dim)
    return l.fail("dim must be a constant");
  ArrayRef<int64_t> xs = cast<RankedTensorType>(x.getType()).getShape();
  ArrayRef<int64_t> is = cast<RankedTensorType>(index.getType()).getShape();
  if (llvm::any_of(xs, ShapedType::isDynamic) ||
      llvm::any_of(is, ShapedType::isDynamic))
    return l.fail("needs static shapes");
  SmallVector<int64_t> xShape(xs), iShape(is);
  for (int64_t d = 0; d < rankOf(x); ++d) {
    if (d == *dim)
      continue;
    if (xs[d] != is[d] && xs[d] != 1 && is[d] != 1)
      return l.fail(llvm::formatv("self's dim {0} ({1}) and indices' ({2}) "
                                  "do not broadcast",
                                  d, xs[d], is[d])
                        .str());
    xShape[d] = iShape[d] = std::max(xs[d], is[d]);
  }
  Value xb = l.lowerCall("aten::expand", {ref(l, 0), ints(l, xShape)}, {x},
                         tensorOf(elem));
  Value ib = l.lowerCall("aten::expand", {ref(l, 0), ints(l, iShape)}, {index},
                         tensorOf(indexElem));
  if (!xb || !ib)
    return failure();
  return gather(xb, *dim, ib);
}

/// A static bound of a slice of a dim of size `n`: None -> `dflt`,
/// negative from the end, clamped to [0, n].
std::optional<int64_t> sliceBound(Lowering &l, Param p, int64_t n,
                                  int64_t dflt) {
  if (l.isNone(p))
    return dflt;
  auto v = l.constInt(p);
  if (!v)
    return std::nullopt;
  return std::clamp<int64_t>(*v < 0 ? *v + n : *v, 0, n);
}

/// slice_scatter(self, src, dim, start, end, step): self with src written
/// at the slice; select_scatter(self, src, dim, index): at the index.
LogicalResult lowerSliceScatter(Lowering &l) {
  // Parameters as aten::select_scatter names them, at the same positions in
  // aten::slice_scatter.
  using P = args::aten::select_scatter;
  Value x = l.tensor(P::self), src = l.tensor(P::src);
  Type elem = l.resultElementType();
  if (!x || !src || !elem)
    return l.fail("needs typed tensors");
  int64_t rank = rankOf(x);
  auto dim = l.normDim(l.arg(P::dim), rank);
  if (!dim)
    return l.fail("dim must be a constant");
  int64_t n = staticDim(x, *dim);
  if (ShapedType::isDynamic(n))
    return l.fail("needs a static size along dim");
  bool select = l.target() == "aten::select_scatter";
  int64_t start, step = 1, count;
  if (select) {
    auto index = l.constInt(P::index);
    if (!index || *index < -n || *index >= n)
      return l.fail("index must be a constant within the dim");
    start = *index < 0 ? *index + n : *index;
    count = 1;
    src = l.unsqueeze(src, *dim);
  } else {
    using Slice = args::aten::slice_scatter;
    auto first = sliceBound(l, Slice::start, n, 0),
         last = sliceBound(l, Slice::end, n, n);
    auto stepValue = l.constInt(Slice::step);
    if (!first || !last || !stepValue || *stepValue <= 0)
      return l.fail("start, end and a positive step must be constants");
    start = *first;
    step = *stepValue;
    count = *last > start ? (*last - start + step - 1) / step : 0;
  }
  if (rankOf(src) != rank || staticDim(src, *dim) != count)
    return l.fail("src does not have the slice's shape");
  SmallVector<OpFoldResult> offsets(rank, l.b.getIndexAttr(0));
  SmallVector<OpFoldResult> strides(rank, l.b.getIndexAttr(1));
  offsets[*dim] = l.b.getIndexAttr(start);
  strides[*dim] = l.b.getIndexAttr(step);
  return l.replace(tensor::InsertSliceOp::create(
      l.b, l.loc, l.castTensor(src, elem), l.castTensor(x, elem), offsets,
      l.dims(src), strides));
}

/// diagonal_scatter(self, src, offset, dim1, dim2): self with src on the
/// diagonal. dim1 and dim2 moved last and merged, the diagonal is a slice
/// of stride C + 1 there.
LogicalResult lowerDiagonalScatter(Lowering &l) {
  using P = args::aten::diagonal_scatter;
  Value x = l.tensor(P::self), src = l.tensor(P::src);
  Type elem = l.resultElementType();
  auto offset = l.constInt(P::offset);
  if (!x || !src || !elem || !offset)
    return l.fail("needs typed tensors and a constant offset");
  int64_t rank = rankOf(x);
  auto d1 = l.normDim(l.arg(P::dim1), rank),
       d2 = l.normDim(l.arg(P::dim2), rank);
  if (!d1 || !d2 || *d1 == *d2)
    return l.fail("dim1 and dim2 must be distinct constant dims");
  auto shape = cast<RankedTensorType>(x.getType()).getShape();
  if (llvm::any_of(shape, ShapedType::isDynamic))
    return l.fail("needs a static shape");
  SmallVector<int64_t> perm;
  for (int64_t d = 0; d < rank; ++d)
    if (d != *d1 && d != *d2)
      perm.push_back(d);
  perm.append({*d1, *d2});
  int64_t rows = shape[*d1], cols = shape[*d2];
  int64_t length =
      std::max<int64_t>(0, std::min(rows - std::max<int64_t>(-*offset, 0),
                                    cols - std::max<int64_t>(*offset, 0)));
  if (rankOf(src) != rank - 1 || staticDim(src, rank - 2) != length)
    return l.fail("src does not have the diagonal's shape");
  Value moved = l.transpose(l.castTensor(x, elem), perm);
  SmallVector<OpFoldResult> merged;
  for (int64_t i = 0; i + 2 < rank; ++i)
    merged.push_back(l.b.getIndexAttr(shape[perm[i]]));
  merged.push_back(l.b.getIndexAttr(rows * cols));
  Value flat = l.reshape(moved, merged);
  SmallVector<OpFoldResult> offsets(rank - 1, l.b.getIndexAttr(0));
  SmallVector<OpFoldResult> strides(rank - 1, l.b.getIndexAttr(1));
  offsets.back() = l.b.getIndexAttr(*offset >= 0 ? *offset : -*offset * cols);
  strides.back() = l.b.getIndexAttr(cols + 1);
  Value written = flat;
  if (length > 0)
    written =
        tensor::InsertSliceOp::create(l.b, l.loc, l.castTensor(src, elem), flat,
                                      offsets, l.dims(src), strides);
  SmallVector<OpFoldResult> unmerged(merged.begin(), merged.end() - 1);
  unmerged.append({l.b.getIndexAttr(rows), l.b.getIndexAttr(cols)});
  SmallVector<int64_t> inverse(rank);
  for (int64_t i = 0; i < rank; ++i)
    inverse[perm[i]] = i;
  return l.replace(l.transpose(l.reshape(written, unmerged), inverse));
}

/// `index` (a scalar or a vector of any integer type) as an i64 vector,
/// and which of its items name each position p < n along a dim: an (n, k)
/// i1 tensor, negative items counted from the end where `negative` allows
/// them (index_fill; index_copy, as ATen, does not). An item out of range
/// is reported at run time (ATen's IndexError). A dynamic `n` is `size`'s
/// value (an index).
std::pair<Value, Value> indexHits(Lowering &l, Value index, int64_t n,
                                  bool negative, Value size = {}) {
  Type i64 = l.b.getI64Type();
  bool dynamic = ShapedType::isDynamic(n);
  Value count =
      dynamic ? arith::IndexCastOp::create(l.b, l.loc, i64, size).getResult()
              : l.constant(i64, n);
  Value flat = l.castTensor(
      rankOf(index) ? index : l.reshape(index, {l.b.getIndexAttr(1)}), i64);
  l.check(l.elementwise(
              {flat}, i64, l.b.getI1Type(),
              [&](OpBuilder &b, Location loc, ValueRange v) {
                Value zero = constantOf(b, loc, i64, 0);
                Value low = arith::CmpIOp::create(
                    b, loc, arith::CmpIPredicate::slt, v[0],
                    negative
                        ? arith::SubIOp::create(b, loc, zero, count).getResult()
                        : zero);
                Value high = arith::CmpIOp::create(
                    b, loc, arith::CmpIPredicate::sge, v[0], count);
                return arith::OrIOp::create(b, loc, low, high).getResult();
              }),
          "index out of range");
  Value column;
  if (!dynamic) {
    auto positions = llvm::to_vector(llvm::seq<int64_t>(0, n));
    column = arith::ConstantOp::create(
        l.b, l.loc,
        DenseElementsAttr::get(RankedTensorType::get({n, 1}, i64),
                               ArrayRef<int64_t>(positions)));
  } else {
    // The positions of a dim of run-time size: linalg.index of the rows.
    Value init = l.empty({size, l.b.getIndexAttr(1)}, i64);
    AffineMap identity = AffineMap::getMultiDimIdentityMap(2, l.b.getContext());
    column =
        linalg::GenericOp::create(
            l.b, l.loc, TypeRange{init.getType()}, ValueRange{},
            ValueRange{init}, ArrayRef<AffineMap>{identity},
            SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel),
            [&](OpBuilder &b, Location loc, ValueRange) {
              Value row = linalg::IndexOp::create(b, loc, 0);
              linalg::YieldOp::create(
                  b, loc,
                  arith::IndexCastOp::create(b, loc, i64, row).getResult());
            })
            .getResult(0);
  }
  Value hits = l.elementwise(
      {column, flat}, i64, l.b.getI1Type(),
      [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
        Value wrapped = arith::SelectOp::create(
            b, loc,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, v[1],
                                  constantOf(b, loc, i64, 0)),
            arith::AddIOp::create(b, loc, v[1], count), v[1]);
        return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, v[0],
                                     wrapped);
      });
  return {flat, hits};
}

/// index_fill(self, dim, index, value): value at the positions index
/// names (negative from the end).
LogicalResult lowerIndexFill(Lowering &l) {
  // Parameters as aten::index_fill.int_Scalar names them, at the same positions
  // in aten::index_fill.int_Tensor.
  using P = args::aten::index_fill_int_Scalar;
  Value x = l.tensor(P::self), index = l.tensor(P::index);
  Type elem = l.resultElementType();
  if (!x || !index || !elem || rankOf(index) > 1)
    return l.fail("needs a tensor and an index vector");
  int64_t rank = std::max<int64_t>(rankOf(x), 1);
  auto dim = l.normDim(l.arg(P::dim), rank);
  if (!dim)
    return l.fail("dim must be a constant");
  int64_t n = rankOf(x) ? staticDim(x, *dim) : 1;
  // A dim of run-time size (a dynamic batch): the positions' count read
  // from x.
  Value size = ShapedType::isDynamic(n) ? l.toIndex(l.dim(x, *dim)) : Value();
  Value hits = indexHits(l, index, n, /*negative=*/true, size).second;
  Value mask =
      l.reduce(hits, {1}, false, l.constant(l.b.getI1Type(), 0),
               [](OpBuilder &b, Location loc, Value acc, Value v) {
                 return arith::OrIOp::create(b, loc, acc, v).getResult();
               });
  if (rankOf(x)) {
    SmallVector<OpFoldResult> sizes(rankOf(x), l.b.getIndexAttr(1));
    sizes[*dim] = size ? OpFoldResult(size) : l.b.getIndexAttr(n);
    mask = l.reshape(mask, sizes);
  } else {
    mask = l.reshape(mask, {});
  }
  Value value = l.value(l.arg(P::value));
  Value v =
      value && isa<RankedTensorType>(value.getType())
          ? l.lowerCall("aten::where.self", {ref(l, 0), ref(l, 1), ref(l, 2)},
                        {mask, value, x}, tensorOf(elem))
          : l.lowerCall("aten::where.ScalarSelf",
                        {ref(l, 0), l.arg(P::value), ref(l, 1)}, {mask, x},
                        tensorOf(elem));
  return v ? l.replace(l.castTensor(v, elem)) : failure();
}

/// index_copy(self, dim, index, source): source's slice i written at
/// position index[i] along dim (the last of repeated positions; a
/// negative index is out of range, as in ATen).
LogicalResult lowerIndexCopy(Lowering &l) {
  using P = args::aten::index_copy;
  Value x = l.tensor(P::self), index = l.tensor(P::index),
        source = l.tensor(P::source);
  Type elem = l.resultElementType();
  if (x && rankOf(x) == 0 && l.normDim(l.arg(P::dim), 1))
    return lowerScalarsAsVectors(l, 1);
  if (!x || !index || !source || !elem || rankOf(index) > 1 || rankOf(x) == 0 ||
      rankOf(source) != rankOf(x))
    return l.fail("needs tensors of one rank (at least 1) and an index "
                  "vector");
  auto dim = l.normDim(l.arg(P::dim), rankOf(x));
  if (!dim)
    return l.fail("dim must be a constant");
  int64_t n = staticDim(x, *dim);
  auto shape = cast<RankedTensorType>(x.getType()).getShape();
  if (llvm::any_of(shape, ShapedType::isDynamic))
    return l.fail("needs a static shape");
  Type i64 = l.b.getI64Type();
  auto [flat, hits] = indexHits(l, index, n, /*negative=*/false);
  auto items = llvm::to_vector(llvm::seq<int64_t>(0, staticDim(flat, 0)));
  Value row = arith::ConstantOp::create(
      l.b, l.loc,
      DenseElementsAttr::get(
          RankedTensorType::get({int64_t(items.size())}, i64),
          ArrayRef<int64_t>(items)));
  // For each position, the last i with index[i] naming it, else -1.
  Value candidates = l.elementwise(
      {hits, row}, i64, i64,
      [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
        Value hit = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                          v[0], constantOf(b, loc, i64, 0));
        return arith::SelectOp::create(b, loc, hit, v[1],
                                       constantOf(b, loc, i64, -1));
      });
  Value from =
      l.reduce(candidates, {1}, false, l.constant(i64, -1),
               [](OpBuilder &b, Location loc, Value acc, Value v) {
                 return arith::MaxSIOp::create(b, loc, acc, v).getResult();
               });
  SmallVector<OpFoldResult> sizes(rankOf(x), l.b.getIndexAttr(1));
  sizes[*dim] = l.b.getIndexAttr(n);
  Value at = l.reshape(from, sizes);
  Value clamped = l.elementwise(
      {at}, i64, i64, [&](OpBuilder &b, Location loc, ValueRange v) {
        return arith::MaxSIOp::create(b, loc, v[0], constantOf(b, loc, i64, 0))
            .getResult();
      });
  Value expanded = l.lowerCall(
      "aten::expand", {ref(l, 0), ints(l, SmallVector<int64_t>(shape))},
      {clamped}, tensorOf(i64));
  if (!expanded)
    return failure();
  Value gathered =
      l.lowerCall("aten::gather", {ref(l, 0), int64(l, *dim), ref(l, 1)},
                  {l.castTensor(source, elem), expanded}, tensorOf(elem));
  if (!gathered)
    return failure();
  Value copied = l.elementwise({at}, i64, l.b.getI1Type(),
                               [&](OpBuilder &b, Location loc, ValueRange v) {
                                 return arith::CmpIOp::create(
                                            b, loc, arith::CmpIPredicate::sge,
                                            v[0], constantOf(b, loc, i64, 0))
                                     .getResult();
                               });
  Value v =
      l.lowerCall("aten::where.self", {ref(l, 0), ref(l, 1), ref(l, 2)},
                  {copied, gathered, l.castTensor(x, elem)}, tensorOf(elem));
  return v ? l.replace(v) : failure();
}

/// Tensor.unfold(dimension, size, step): the windows of `size` elements
/// every `step` along the dim, that dim becoming the window count
/// (n - size) / step + 1 and a last dim of `size` added; one generic
/// reading x[..., w * step + k, ...] (an affine map). A 0-D tensor
/// unfolds to one window of its one element.
LogicalResult lowerUnfold(Lowering &l) {
  using P = args::aten::unfold;
  Value x = l.tensor(P::self);
  auto size = l.constInt(l.arg(P::size)), step = l.constInt(l.arg(P::step));
  if (!x || !size || !step)
    return l.fail("needs a tensor and constant size and step");
  int64_t rank = rankOf(x);
  auto dim = l.normDim(l.arg(P::dimension), std::max<int64_t>(rank, 1));
  if (!dim || *step <= 0 || *size < 0)
    return l.fail("needs a constant dim, a size of at least 0 and a "
                  "positive step");
  if (rank == 0) {
    if (*size > 1)
      return l.fail("size must be at most 1 for a 0-D tensor");
    return l.replace(l.unsqueeze(x, 0));
  }
  int64_t n = staticDim(x, *dim);
  if (ShapedType::isDynamic(n) || *size > n)
    return l.fail("size must fit the (static) dim");
  int64_t windows = (n - *size) / *step + 1;
  OpBuilder &b = l.b;
  SmallVector<OpFoldResult> sizes = l.dims(x);
  sizes[*dim] = b.getIndexAttr(windows);
  sizes.push_back(b.getIndexAttr(*size));
  SmallVector<AffineExpr> in;
  for (int64_t d = 0; d < rank; ++d)
    in.push_back(d == *dim
                     ? b.getAffineDimExpr(d) * *step + b.getAffineDimExpr(rank)
                     : b.getAffineDimExpr(d));
  Type elem = cast<RankedTensorType>(x.getType()).getElementType();
  Value init = l.empty(sizes, elem);
  return l.replace(
      linalg::GenericOp::create(
          b, l.loc, TypeRange{init.getType()}, ValueRange{x}, ValueRange{init},
          {AffineMap::get(rank + 1, 0, in, b.getContext()),
           AffineMap::getMultiDimIdentityMap(rank + 1, b.getContext())},
          SmallVector<utils::IteratorType>(rank + 1,
                                           utils::IteratorType::parallel),
          "", "",
          [&](OpBuilder &nb, Location loc, ValueRange v) {
            linalg::YieldOp::create(nb, loc, v[0]);
          })
          .getResult(0));
}

enum class ScatterKind {
  Scatter,
  ScatterAdd,
  IndexAdd,
  ScatterMultiply,
  // scatter_reduce's reductions.
  ReduceSum,
  ReduceProd,
  ReduceMean,
  ReduceAmax,
  ReduceAmin
};

bool isReduce(ScatterKind kind) { return kind >= ScatterKind::ReduceSum; }

/// The number `v` as a constant of the int or float type `elem`.
Value numberOf(OpBuilder &b, Location loc, Type elem, double v) {
  if (auto ft = dyn_cast<FloatType>(elem))
    return arith::ConstantOp::create(b, loc, FloatAttr::get(ft, v));
  return arith::ConstantIntOp::create(b, loc, elem, int64_t(v));
}

/// What scatter_reduce(include_self=False) puts at each scattered element
/// before combining: the reduction's identity.
Value reduceIdentity(OpBuilder &b, Location loc, ScatterKind kind, Type elem) {
  auto floatOrInt = [&](double f, int64_t i) -> Value {
    if (auto ft = dyn_cast<FloatType>(elem))
      return arith::ConstantOp::create(b, loc, FloatAttr::get(ft, f));
    return arith::ConstantIntOp::create(b, loc, elem, i);
  };
  unsigned width = elem.getIntOrFloatBitWidth();
  switch (kind) {
  case ScatterKind::ReduceProd:
    return floatOrInt(1.0, 1);
  case ScatterKind::ReduceAmax:
    return floatOrInt(-INFINITY,
                      APInt::getSignedMinValue(width).getSExtValue());
  case ScatterKind::ReduceAmin:
    return floatOrInt(INFINITY, APInt::getSignedMaxValue(width).getSExtValue());
  default:
    return floatOrInt(0.0, 0);
  }
}

/// scatter(self, dim, index, src | value), scatter_add(self, dim, index,
/// src): out = self, then for every position p of index (in order)
/// out[p with p[dim] = index[p]] = src[p] (or += for scatter_add);
/// index_add(self, dim, index, source, alpha): for every position p of
/// source, out[p with p[dim] = index[p[dim]]] += alpha * source[p]. One
/// loop nest over the positions carrying the output tensor, whose writes
/// bufferization makes in place; later writes to one element win, as on
/// PyTorch's CPU.
///
/// scatter_reduce(self, dim, index, src, reduce, include_self) combines
/// instead ('sum', 'prod', 'amax', 'amin' with NaN winning, 'mean': the
/// sum divided by the count of values, floor-divided for integers); with
/// include_self=False the scattered elements first become the identity
/// (and do not count for 'mean'), as ATen does.
LogicalResult lowerScatter(Lowering &l, ScatterKind kind,
                           bool includeSelf = true) {
  // Parameters as aten::index_add names them, at the same positions in
  // aten::scatter.reduce and 5 more.
  using P = args::aten::index_add;
  Value self = l.tensor(P::self), index = l.tensor(P::index);
  if (!self || !index)
    return failure();
  auto selfType = cast<RankedTensorType>(self.getType());
  Type elem = selfType.getElementType();
  int64_t rank = selfType.getRank();
  if (rank == 0 && l.normDim(l.arg(P::dim), 1))
    return compose::lowerScalarsAsVectors(l, 1);
  auto dim = l.normDim(l.arg(P::dim), rank);
  if (!dim || rank == 0)
    return l.fail("needs a constant dim and a tensor of rank 1 or more");
  // The source tensor, or the scalar of scatter.value(_reduce).
  namespace A = args::aten;
  static constexpr Param kSource = sameParam(
      A::scatter_src::src, A::scatter_value::value, A::scatter_reduce::src,
      A::scatter_value_reduce::value, A::scatter_add::src,
      A::scatter_reduce_two::src, A::index_add::source);
  Value src = l.value(l.arg(kSource));
  Value scalar;
  if (!src || !isa<RankedTensorType>(src.getType())) {
    if (kind == ScatterKind::IndexAdd || isReduce(kind) ||
        l.target() == "aten::scatter_add")
      return l.fail("needs a source tensor");
    scalar = l.scalar(l.arg(kSource), elem);
    if (!scalar)
      return l.fail("needs a source tensor or a number");
    src = Value();
  } else {
    src = l.castTensor(src, elem);
  }
  Value alpha;
  if (kind == ScatterKind::IndexAdd) {
    Attribute a = l.arg(A::index_add::alpha);
    if (a && !l.isNone(a))
      alpha = l.scalar(a, elem);
    if (rankOf(index) > 1)
      return l.fail("index must be 1-D");
    if (rankOf(src) != rank)
      return l.fail("source must have self's rank");
  } else if (rankOf(index) != rank || (src && rankOf(src) != rank)) {
    return l.fail("index and src must have self's rank");
  }
  // The positions: index's (scatter) or source's (index_add); PyTorch
  // requires them inside self (and src) in every dim but `dim`.
  Value positions = kind == ScatterKind::IndexAdd ? src : index;
  auto positionType = cast<RankedTensorType>(positions.getType());
  for (int64_t d = 0; d < rank; ++d) {
    int64_t ps = positionType.getDimSize(d), ss = selfType.getDimSize(d);
    if (ShapedType::isDynamic(ps) || ShapedType::isDynamic(ss))
      return l.fail("needs static sizes");
    if (d != *dim && ps > ss)
      return l.fail("index is larger than self in a dim but dim");
    if (src && kind != ScatterKind::IndexAdd &&
        ps > cast<RankedTensorType>(src.getType()).getDimSize(d))
      return l.fail("index is larger than src");
  }
  if (kind == ScatterKind::IndexAdd && rankOf(index) == 1 &&
      cast<RankedTensorType>(index.getType()).getDimSize(0) !=
          positionType.getDimSize(*dim))
    return l.fail("index and source differ in size along dim");
  if (selfType.getDimSize(*dim) == 0)
    return l.fail("cannot scatter into an empty dim");
  if (isReduce(kind) && elem.isInteger(1) && kind != ScatterKind::ReduceSum)
    return l.fail("bool tensors are not supported by this reduction");
  checkIndexRange(l, self, *dim, index, /*negative=*/false);
  if (kind == ScatterKind::IndexAdd && rankOf(index) == 0)
    index = l.unsqueeze(index, 0);

  OpBuilder &b = l.b;
  Location loc = l.loc;
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value size = l.toIndex(l.dim(self, *dim));
  SmallVector<Value> lbs(rank, zero), steps(rank, one), ubs;
  for (int64_t d = 0; d < rank; ++d)
    ubs.push_back(l.toIndex(l.dim(positions, d)));
  // The loops update a copy: `self` may be the caller's tensor (an input
  // or a weight), which bufferization would otherwise update in place.
  Value copy = bufferization::AllocTensorOp::create(
      b, loc, selfType, /*dynamicSizes=*/ValueRange{}, /*copy=*/self);
  bool mean = kind == ScatterKind::ReduceMean;
  // 'mean' counts the values combined into each element (self's own
  // included), in the element type.
  Value count;
  if (mean)
    count = l.filled(l.dims(self), l.constant(elem, includeSelf ? 1 : 0));
  // One loop nest over the positions; `body` gets the position, the
  // element of `self` it names and the carried tensors.
  auto forPositions =
      [&](ValueRange inits,
          function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange,
                                          ArrayRef<Value>, ValueRange)>
              body) {
        return scf::buildLoopNest(
                   b, loc, lbs, ubs, steps, inits,
                   [&](OpBuilder &nb, Location loc, ValueRange ivs,
                       ValueRange iter) -> scf::ValueVector {
                     Value at =
                         kind == ScatterKind::IndexAdd
                             ? tensor::ExtractOp::create(nb, loc, index,
                                                         ValueRange{ivs[*dim]})
                                   .getResult()
                             : tensor::ExtractOp::create(nb, loc, index, ivs)
                                   .getResult();
                     SmallVector<Value> coords(ivs.begin(), ivs.end());
                     coords[*dim] = clampedIndex(nb, loc, at, size);
                     return body(nb, loc, ivs, coords, iter);
                   })
            .results;
      };
  SmallVector<Value> carried = {copy};
  if (count)
    carried.push_back(count);
  if (isReduce(kind) && !includeSelf)
    carried =
        forPositions(carried, [&](OpBuilder &nb, Location loc, ValueRange,
                                  ArrayRef<Value> coords, ValueRange iter) {
          SmallVector<Value> next = {tensor::InsertOp::create(
              nb, loc, reduceIdentity(nb, loc, kind, elem), iter[0], coords)};
          if (mean)
            next.push_back(tensor::InsertOp::create(
                nb, loc, reduceIdentity(nb, loc, kind, elem), iter[1], coords));
          return next;
        });
  carried = forPositions(carried, [&](OpBuilder &nb, Location loc,
                                      ValueRange ivs, ArrayRef<Value> coords,
                                      ValueRange iter) {
    Value value =
        src ? tensor::ExtractOp::create(nb, loc, src, ivs).getResult() : scalar;
    if (alpha)
      value = isFloat(elem)
                  ? arith::MulFOp::create(nb, loc, value, alpha).getResult()
                  : arith::MulIOp::create(nb, loc, value, alpha).getResult();
    if (kind != ScatterKind::Scatter) {
      Value current = tensor::ExtractOp::create(nb, loc, iter[0], coords);
      bool f = isFloat(elem);
      switch (kind) {
      case ScatterKind::ScatterMultiply:
      case ScatterKind::ReduceProd:
        value = f ? arith::MulFOp::create(nb, loc, current, value).getResult()
                  : arith::MulIOp::create(nb, loc, current, value).getResult();
        break;
      case ScatterKind::ReduceAmax:
        value =
            f ? arith::MaximumFOp::create(nb, loc, current, value).getResult()
              : maxInt(nb, loc, current, value);
        break;
      case ScatterKind::ReduceAmin:
        value =
            f ? arith::MinimumFOp::create(nb, loc, current, value).getResult()
              : minInt(nb, loc, current, value);
        break;
      default:
        value = add(nb, loc, current, value);
      }
    }
    SmallVector<Value> next = {
        tensor::InsertOp::create(nb, loc, value, iter[0], coords)};
    if (mean) {
      Value n = tensor::ExtractOp::create(nb, loc, iter[1], coords);
      n = add(nb, loc, n, numberOf(nb, loc, elem, 1));
      next.push_back(tensor::InsertOp::create(nb, loc, n, iter[1], coords));
    }
    return next;
  });
  Value out = carried.front();
  if (mean) {
    // Elements no value reached (count 0, without self) keep their value.
    out = l.elementwise(
        {out, carried[1]}, elem, elem,
        [&](OpBuilder &nb, Location loc, ValueRange v) -> Value {
          Value zero = numberOf(nb, loc, elem, 0),
                one = numberOf(nb, loc, elem, 1);
          if (isFloat(elem)) {
            Value none = arith::CmpFOp::create(
                nb, loc, arith::CmpFPredicate::OEQ, v[1], zero);
            Value n = arith::SelectOp::create(nb, loc, none, one, v[1]);
            return arith::DivFOp::create(nb, loc, v[0], n);
          }
          Value none = arith::CmpIOp::create(nb, loc, arith::CmpIPredicate::eq,
                                             v[1], zero);
          Value n = arith::SelectOp::create(nb, loc, none, one, v[1]);
          return arith::FloorDivSIOp::create(nb, loc, v[0], n);
        });
  }
  return l.replace(out);
}

LogicalResult lowerScatterSet(Lowering &l) {
  return lowerScatter(l, ScatterKind::Scatter);
}
LogicalResult lowerScatterAdd(Lowering &l) {
  return lowerScatter(l, ScatterKind::ScatterAdd);
}
/// scatter(self, dim, index, src | value, *, reduce): 'add' or 'multiply'
/// into self's items instead of replacing them.
LogicalResult lowerScatterReduce(Lowering &l) {
  auto reduce = dyn_cast_or_null<StringAttr>(l.kwarg("reduce"));
  if (!reduce ||
      (reduce.getValue() != "add" && reduce.getValue() != "multiply"))
    return l.fail("reduce must be 'add' or 'multiply'");
  return lowerScatter(l, reduce.getValue() == "add"
                             ? ScatterKind::ScatterAdd
                             : ScatterKind::ScatterMultiply);
}
/// scatter_reduce.two(self, dim, index, src, reduce, *, include_self).
LogicalResult lowerScatterReduceTwo(Lowering &l) {
  using P = args::aten::scatter_reduce_two;
  auto reduce = dyn_cast_or_null<StringAttr>(l.arg(P::reduce));
  auto includeSelf = l.constBool(l.kwarg("include_self"));
  if (!l.kwarg("include_self"))
    includeSelf = true;
  if (!reduce || !includeSelf)
    return l.fail("needs a constant reduce and include_self");
  auto kind = llvm::StringSwitch<std::optional<ScatterKind>>(reduce.getValue())
                  .Case("sum", ScatterKind::ReduceSum)
                  .Case("prod", ScatterKind::ReduceProd)
                  .Case("mean", ScatterKind::ReduceMean)
                  .Case("amax", ScatterKind::ReduceAmax)
                  .Case("amin", ScatterKind::ReduceAmin)
                  .Default(std::nullopt);
  if (!kind)
    return l.fail("reduce must be 'sum', 'prod', 'mean', 'amax' or 'amin'");
  return lowerScatter(l, *kind, *includeSelf);
}
LogicalResult lowerIndexAdd(Lowering &l) {
  return lowerScatter(l, ScatterKind::IndexAdd);
}

/// max_unpool2d(self, indices, output_size) and max_unpool3d(self,
/// indices, output_size, stride, padding): zeros of the output size, then
/// for each input position in order (later ones win, as ATen's CPU loop),
/// out[n, c, indices[n, c, p]] = self[n, c, p] over the flattened spatial
/// dims. Indices outside the output are an error (ATen: "Found an invalid
/// max index"), checked at run time.
LogicalResult lowerMaxUnpool(Lowering &l, int spatial) {
  namespace A = args::aten;
  static constexpr Param kSelf =
      sameParam(A::max_unpool2d::self, A::max_unpool3d::self);
  static constexpr Param kIndices =
      sameParam(A::max_unpool2d::indices, A::max_unpool3d::indices);
  static constexpr Param kOutputSize =
      sameParam(A::max_unpool2d::output_size, A::max_unpool3d::output_size);
  Value self = l.tensor(kSelf), indices = l.tensor(kIndices);
  auto outputSize = l.intList(kOutputSize);
  Type elem = l.resultElementType();
  if (!self || !indices || !outputSize || !elem ||
      int(outputSize->size()) != spatial)
    return l.fail("needs a tensor, its indices and a constant output size");
  auto type = cast<RankedTensorType>(self.getType());
  int64_t rank = type.getRank();
  bool unbatched = rank == spatial + 1;
  if ((!unbatched && rank != spatial + 2) || !type.hasStaticShape() ||
      cast<RankedTensorType>(indices.getType()).getShape() != type.getShape())
    return l.fail("self and indices must have one static shape of " +
                  std::to_string(spatial + 1) + " or " +
                  std::to_string(spatial + 2) + " dims");
  if (unbatched) {
    self = l.unsqueeze(self, 0);
    indices = l.unsqueeze(indices, 0);
    type = cast<RankedTensorType>(self.getType());
  }
  int64_t n = type.getDimSize(0), c = type.getDimSize(1), positions = 1,
          outputs = 1;
  for (int64_t d = 0; d < spatial; ++d) {
    positions *= type.getDimSize(2 + d);
    if ((*outputSize)[d] < 0)
      return l.fail("negative output size");
    outputs *= (*outputSize)[d];
  }
  OpBuilder &b = l.b;
  Location loc = l.loc;
  SmallVector<OpFoldResult> flat = {b.getIndexAttr(n), b.getIndexAttr(c),
                                    b.getIndexAttr(positions)};
  self = l.reshape(l.castTensor(self, elem), flat);
  indices = l.reshape(indices, flat);
  Value out =
      l.filled({b.getIndexAttr(n), b.getIndexAttr(c), b.getIndexAttr(outputs)},
               l.constant(elem, 0));
  if (positions > 0 && outputs > 0) {
    checkIndexRange(l, out, 2, indices, /*negative=*/false);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value size = arith::ConstantIndexOp::create(b, loc, outputs);
    SmallVector<Value> lbs(3, zero), steps(3, one),
        ubs = {arith::ConstantIndexOp::create(b, loc, n),
               arith::ConstantIndexOp::create(b, loc, c),
               arith::ConstantIndexOp::create(b, loc, positions)};
    scf::LoopNest nest = scf::buildLoopNest(
        b, loc, lbs, ubs, steps, ValueRange{out},
        [&](OpBuilder &nb, Location loc, ValueRange ivs,
            ValueRange iter) -> scf::ValueVector {
          Value at = tensor::ExtractOp::create(nb, loc, indices, ivs);
          Value value = tensor::ExtractOp::create(nb, loc, self, ivs);
          SmallVector<Value> coords = {ivs[0], ivs[1],
                                       clampedIndex(nb, loc, at, size)};
          return {tensor::InsertOp::create(nb, loc, value, iter[0], coords)
                      .getResult()};
        });
    out = nest.results.front();
  } else if (positions > 0) {
    return l.fail("an empty output for a nonempty input");
  }
  SmallVector<OpFoldResult> shape;
  if (!unbatched)
    shape.push_back(b.getIndexAttr(n));
  shape.push_back(b.getIndexAttr(c));
  for (int64_t size : *outputSize)
    shape.push_back(b.getIndexAttr(size));
  return l.replace(l.reshape(out, shape));
}
LogicalResult lowerMaxUnpool2d(Lowering &l) { return lowerMaxUnpool(l, 2); }
LogicalResult lowerMaxUnpool3d(Lowering &l) { return lowerMaxUnpool(l, 3); }

/// masked_scatter(self, mask, source): the elements of `self` where the
/// mask (broadcast to self's shape) is true, in row-major order, replaced
/// by the source's first elements in order. Element i takes source
/// element cumsum(mask)[i] - 1; a mask selecting more elements than the
/// source has fails the call, as eager's RuntimeError.
LogicalResult lowerMaskedScatter(Lowering &l) {
  using P = args::aten::masked_scatter;
  Value x = l.tensor(P::self), mask = l.tensor(P::mask),
        source = l.tensor(P::source);
  if (!x || !mask || !source)
    return failure();
  auto xType = cast<RankedTensorType>(x.getType());
  auto sourceType = cast<RankedTensorType>(source.getType());
  Type elem = xType.getElementType();
  if (!xType.hasStaticShape() || !sourceType.hasStaticShape() ||
      !cast<RankedTensorType>(mask.getType()).getElementType().isInteger(1))
    return l.fail("needs static shapes and a bool mask");
  Value full =
      l.lowerCall("aten::expand", {ref(l, 0), ints(l, xType.getShape())},
                  {mask}, tensorOf(l.b.getI1Type()));
  if (!full)
    return failure();
  int64_t n = xType.getNumElements(), m = sourceType.getNumElements();
  SmallVector<OpFoldResult> flat = {l.b.getIndexAttr(n)};
  Value flatMask = l.reshape(full, flat);
  Type i64 = l.b.getI64Type();
  Value counts = l.lowerCall("aten::cumsum", {ref(l, 0), int64(l, 0)},
                             {l.castTensor(flatMask, i64)}, tensorOf(i64));
  if (!counts)
    return failure();
  l.check(l.elementwise({counts}, i64, l.b.getI1Type(),
                        [&](OpBuilder &b, Location loc, ValueRange v) {
                          return arith::CmpIOp::create(
                                     b, loc, arith::CmpIPredicate::sgt, v[0],
                                     constantOf(b, loc, i64, m))
                              .getResult();
                        }),
          "masked_scatter: the mask selects more elements than the source "
          "has");
  Value flatX = l.reshape(x, flat);
  if (m == 0)
    return l.replace(x); // nothing can be selected (else the check fails)
  Value flatSource =
      l.castTensor(l.reshape(source, {l.b.getIndexAttr(m)}), elem);
  Value size = l.indexConst(m);
  AffineMap id = l.b.getMultiDimIdentityMap(1);
  Value out =
      linalg::GenericOp::create(
          l.b, l.loc, TypeRange{flatX.getType()},
          ValueRange{flatX, flatMask, counts}, ValueRange{l.empty(flat, elem)},
          ArrayRef<AffineMap>{id, id, id, id},
          ArrayRef<utils::IteratorType>{utils::IteratorType::parallel}, "", "",
          [&](OpBuilder &b, Location loc, ValueRange v) {
            Value k =
                arith::SubIOp::create(b, loc, v[2], constantOf(b, loc, i64, 1));
            Value taken = tensor::ExtractOp::create(
                b, loc, flatSource, clampedIndex(b, loc, k, size));
            linalg::YieldOp::create(
                b, loc,
                ValueRange{arith::SelectOp::create(b, loc, v[1], taken, v[0])});
          })
          .getResult(0);
  return l.replace(l.reshape(out, l.dims(x)));
}

} // namespace

void mlir::fx::lowering::addIndexingLowerings(llvm::StringMap<LowerFn> &t) {
  addLowering(t, {"aten::masked_scatter"}, lowerMaskedScatter);
  addLowering(t,
              {"aten::tensor_split.sections", "aten::tensor_split.indices",
               "aten::hsplit.int", "aten::hsplit.array", "aten::vsplit.int",
               "aten::vsplit.array", "aten::dsplit.int", "aten::dsplit.array"},
              lowerTensorSplit);
  addLowering(t, {"aten::take"}, lowerTake);
  addLowering(t, {"aten::take_along_dim"}, lowerTakeAlongDim);
  addLowering(t, {"aten::slice_scatter", "aten::select_scatter"},
              lowerSliceScatter);
  addLowering(t, {"aten::diagonal_scatter"}, lowerDiagonalScatter);
  addLowering(t, {"aten::unfold"}, lowerUnfold);
  addLowering(t, {"aten::scatter.src", "aten::scatter.value"}, lowerScatterSet);
  addLowering(t, {"aten::scatter.reduce", "aten::scatter.value_reduce"},
              lowerScatterReduce);
  addLowering(t, {"aten::scatter_reduce.two"}, lowerScatterReduceTwo);
  addLowering(t, {"aten::scatter_add"}, lowerScatterAdd);
  addLowering(t, {"aten::index_add"}, lowerIndexAdd);
  addLowering(t, {"aten::max_unpool2d"}, lowerMaxUnpool2d);
  addLowering(t, {"aten::max_unpool3d"}, lowerMaxUnpool3d);
  addLowering(t, {"aten::index_fill.int_Scalar", "aten::index_fill.int_Tensor"},
              lowerIndexFill);
  addLowering(t, {"aten::index_copy"}, lowerIndexCopy);
}
