//===- Indexing.cpp - Splits, takes, scatters into slices and indices ----===//
//
// tensor_split and h/v/dsplit as slices; take and take_along_dim through
// index_select and gather; slice/select/diagonal_scatter as an
// insert_slice into the input (which bufferization copies: the function's
// arguments are not writable); index_fill and index_copy from which
// positions along a dim each index item names (indexHits). Each is built
// from other targets' lowerings (Lowering::lowerCall).
//
//===----------------------------------------------------------------------===//

#include "Compose.h"

#include "llvm/ADT/Sequence.h"
#include "llvm/ADT/StringRef.h"
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
  Value x = l.tensor(0u);
  if (!x)
    return failure();
  StringRef target = l.op.getTarget();
  int64_t rank = rankOf(x);
  std::optional<int64_t> dim;
  std::string name = target.drop_front(6).split('.').first.str();
  if (target.starts_with("aten::tensor_split")) {
    dim = l.normDim(l.arg(2), rank);
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
  if (auto indices = l.intList(1u)) {
    llvm::append_range(bounds, *indices);
  } else if (auto sections = l.constInt(1u)) {
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
  Value x = l.tensor(0u), index = l.tensor(1u);
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
  Value x = l.tensor(0u), index = l.tensor(1u);
  Type elem = l.resultElementType();
  if (!x || !index || !elem)
    return l.fail("needs typed tensors");
  Type indexElem = cast<RankedTensorType>(index.getType()).getElementType();
  auto gather = [&](Value from, int64_t dim, Value at) -> LogicalResult {
    Value v = l.lowerCall("aten::gather", {ref(l, 0), int64(l, dim), ref(l, 1)},
                          {from, at}, tensorOf(elem));
    return v ? l.replace(v) : failure();
  };
  if (l.isNone(2u)) {
    Value flat = flattened(l, x);
    Value flatIndex = flattened(l, index);
    if (!flat || !flatIndex)
      return failure();
    return gather(flat, 0, flatIndex);
  }
  if (rankOf(x) != rankOf(index))
    return l.fail("self and indices must have the same number of dims");
  auto dim = l.normDim(l.arg(2), rankOf(x));
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
std::optional<int64_t> sliceBound(Lowering &l, unsigned i, int64_t n,
                                  int64_t dflt) {
  if (l.isNone(i))
    return dflt;
  auto v = l.constInt(i);
  if (!v)
    return std::nullopt;
  return std::clamp<int64_t>(*v < 0 ? *v + n : *v, 0, n);
}

/// slice_scatter(self, src, dim, start, end, step): self with src written
/// at the slice; select_scatter(self, src, dim, index): at the index.
LogicalResult lowerSliceScatter(Lowering &l) {
  Value x = l.tensor(0u), src = l.tensor(1u);
  Type elem = l.resultElementType();
  if (!x || !src || !elem)
    return l.fail("needs typed tensors");
  int64_t rank = rankOf(x);
  auto dim = l.normDim(l.arg(2), rank);
  if (!dim)
    return l.fail("dim must be a constant");
  int64_t n = staticDim(x, *dim);
  if (ShapedType::isDynamic(n))
    return l.fail("needs a static size along dim");
  bool select = l.op.getTarget() == "aten::select_scatter";
  int64_t start, step = 1, count;
  if (select) {
    auto index = l.constInt(3u);
    if (!index || *index < -n || *index >= n)
      return l.fail("index must be a constant within the dim");
    start = *index < 0 ? *index + n : *index;
    count = 1;
    src = l.unsqueeze(src, *dim);
  } else {
    auto first = sliceBound(l, 3, n, 0), last = sliceBound(l, 4, n, n);
    auto stepValue = l.constInt(5u);
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
  Value x = l.tensor(0u), src = l.tensor(1u);
  Type elem = l.resultElementType();
  auto offset = l.constInt(2u);
  if (!x || !src || !elem || !offset)
    return l.fail("needs typed tensors and a constant offset");
  int64_t rank = rankOf(x);
  auto d1 = l.normDim(l.arg(3), rank), d2 = l.normDim(l.arg(4), rank);
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
/// is reported at run time (ATen's IndexError).
std::pair<Value, Value> indexHits(Lowering &l, Value index, int64_t n,
                                  bool negative) {
  Type i64 = l.b.getI64Type();
  Value flat = l.castTensor(
      rankOf(index) ? index : l.reshape(index, {l.b.getIndexAttr(1)}), i64);
  l.check(l.elementwise(
              {flat}, i64, l.b.getI1Type(),
              [&](OpBuilder &b, Location loc, ValueRange v) {
                Value low = arith::CmpIOp::create(
                    b, loc, arith::CmpIPredicate::slt, v[0],
                    constantOf(b, loc, i64, negative ? -n : 0));
                Value high =
                    arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                          v[0], constantOf(b, loc, i64, n));
                return arith::OrIOp::create(b, loc, low, high).getResult();
              }),
          "index out of range");
  auto positions = llvm::to_vector(llvm::seq<int64_t>(0, n));
  Value column = arith::ConstantOp::create(
      l.b, l.loc,
      DenseElementsAttr::get(RankedTensorType::get({n, 1}, i64),
                             ArrayRef<int64_t>(positions)));
  Value hits = l.elementwise(
      {column, flat}, i64, l.b.getI1Type(),
      [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
        Value wrapped = arith::SelectOp::create(
            b, loc,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, v[1],
                                  constantOf(b, loc, i64, 0)),
            arith::AddIOp::create(b, loc, v[1], constantOf(b, loc, i64, n)),
            v[1]);
        return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, v[0],
                                     wrapped);
      });
  return {flat, hits};
}

/// index_fill(self, dim, index, value): value at the positions index
/// names (negative from the end).
LogicalResult lowerIndexFill(Lowering &l) {
  Value x = l.tensor(0u), index = l.tensor(2u);
  Type elem = l.resultElementType();
  if (!x || !index || !elem || rankOf(index) > 1)
    return l.fail("needs a tensor and an index vector");
  int64_t rank = std::max<int64_t>(rankOf(x), 1);
  auto dim = l.normDim(l.arg(1), rank);
  if (!dim)
    return l.fail("dim must be a constant");
  int64_t n = rankOf(x) ? staticDim(x, *dim) : 1;
  if (ShapedType::isDynamic(n))
    return l.fail("needs a static size along dim");
  Value hits = indexHits(l, index, n, /*negative=*/true).second;
  Value mask =
      l.reduce(hits, {1}, false, l.constant(l.b.getI1Type(), 0),
               [](OpBuilder &b, Location loc, Value acc, Value v) {
                 return arith::OrIOp::create(b, loc, acc, v).getResult();
               });
  if (rankOf(x)) {
    SmallVector<OpFoldResult> sizes(rankOf(x), l.b.getIndexAttr(1));
    sizes[*dim] = l.b.getIndexAttr(n);
    mask = l.reshape(mask, sizes);
  } else {
    mask = l.reshape(mask, {});
  }
  Value value = l.value(l.arg(3));
  Value v =
      value && isa<RankedTensorType>(value.getType())
          ? l.lowerCall("aten::where.self", {ref(l, 0), ref(l, 1), ref(l, 2)},
                        {mask, value, x}, tensorOf(elem))
          : l.lowerCall("aten::where.ScalarSelf",
                        {ref(l, 0), l.arg(3), ref(l, 1)}, {mask, x},
                        tensorOf(elem));
  return v ? l.replace(l.castTensor(v, elem)) : failure();
}

/// index_copy(self, dim, index, source): source's slice i written at
/// position index[i] along dim (the last of repeated positions; a
/// negative index is out of range, as in ATen).
LogicalResult lowerIndexCopy(Lowering &l) {
  Value x = l.tensor(0u), index = l.tensor(2u), source = l.tensor(3u);
  Type elem = l.resultElementType();
  if (x && rankOf(x) == 0 && l.normDim(l.arg(1), 1))
    return lowerScalarsAsVectors(l, 1);
  if (!x || !index || !source || !elem || rankOf(index) > 1 || rankOf(x) == 0 ||
      rankOf(source) != rankOf(x))
    return l.fail("needs tensors of one rank (at least 1) and an index "
                  "vector");
  auto dim = l.normDim(l.arg(1), rankOf(x));
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

} // namespace

void mlir::fx::lowering::addIndexingLowerings(llvm::StringMap<LowerFn> &t) {
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
  addLowering(t, {"aten::index_fill.int_Scalar", "aten::index_fill.int_Tensor"},
              lowerIndexFill);
  addLowering(t, {"aten::index_copy"}, lowerIndexCopy);
}
