//===- Gather.cpp - Gathers by index tensors, index checks ----------------===//
//
// embedding, index_select, gather and index.Tensor read `self` at the
// positions int index tensors name: one linalg.generic extracting each
// element (gatherAlong along one dim, gatherByMany for several index
// tensors). searchsorted and bucketize count, for each value, the items of
// a sorted sequence before it. Indices are checked (checkIndexRange: a
// bound the runtime checks on inputs, else a check as the code runs) and
// clamped (clampIndex), so one out of range never reads outside `self`.
//
//===----------------------------------------------------------------------===//

#include "Compose.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::fx;
using namespace mlir::fx::lowering;
using mlir::fx::lowering::compose::rankOf;

namespace {

/// `self` gathered along `dim` by the int tensor `index`: the result has
/// `index`'s dims in place of `dim`; negative indices count from the end,
/// as in PyTorch.
/// The function argument (a placeholder) `v` is, seen through reshapes,
/// or null.
BlockArgument inputOf(Value v) {
  while (true) {
    if (auto arg = dyn_cast<BlockArgument>(v))
      return isa_and_nonnull<func::FuncOp>(arg.getOwner()->getParentOp())
                 ? arg
                 : BlockArgument();
    Operation *def = v.getDefiningOp();
    if (!isa_and_nonnull<tensor::CollapseShapeOp, tensor::ExpandShapeOp,
                         tensor::CastOp>(def))
      return {};
    v = def->getOperand(0);
  }
}

/// Records on the function that its input `index` comes from holds
/// indices that must lie in [lo, hi) for this node: the runtime checks them
/// before every call (docs/Reliability.md), where compiled code could only
/// read another row.
bool recordIndexBound(Lowering &l, Value index, int64_t lo, int64_t hi) {
  BlockArgument arg = inputOf(index);
  auto func = l.op->getParentOfType<func::FuncOp>();
  if (!arg || !func)
    return false;
  MLIRContext *ctx = l.b.getContext();
  SmallVector<Attribute> bounds;
  if (auto existing = func->getAttrOfType<ArrayAttr>("fx.index_bounds"))
    llvm::append_range(bounds, existing.getValue());
  bounds.push_back(DictionaryAttr::get(
      ctx,
      {l.b.getNamedAttr("input", l.b.getI64IntegerAttr(arg.getArgNumber())),
       l.b.getNamedAttr("lo", l.b.getI64IntegerAttr(lo)),
       l.b.getNamedAttr("hi", l.b.getI64IntegerAttr(hi)),
       l.b.getNamedAttr(
           "node",
           l.b.getStringAttr(cast<NodeOpInterface>(*l.op).getNodeName()))}));
  l.b.modifyOpInPlace(func, [&] {
    func->setAttr("fx.index_bounds", ArrayAttr::get(ctx, bounds));
  });
  return true;
}

/// Checks that the indices in `index` lie in [0, N) ([-N, N) when
/// `negative`) for dim `dim` of `self` (size N). Indices from an input are
/// checked by the runtime before the call; others (computed in the graph,
/// or against a dynamic size) by the code as it runs: an index out of
/// range fails the call naming the node, as PyTorch's IndexError.
void checkIndexRangeImpl(Lowering &l, Value self, int64_t dim, Value index,
                         bool negative) {
  int64_t staticSize = cast<RankedTensorType>(self.getType()).getDimSize(dim);
  if (ShapedType::isDynamic(staticSize) ||
      !recordIndexBound(l, index, negative ? -staticSize : 0, staticSize)) {
    Type i64 = l.b.getI64Type();
    Value size = arith::IndexCastOp::create(l.b, l.loc, i64,
                                            l.toIndex(l.dim(self, dim)));
    Value outside = l.elementwise(
        {index, size}, i64, l.b.getI1Type(),
        [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
          Value lo =
              negative
                  ? arith::SubIOp::create(
                        b, loc, arith::ConstantIntOp::create(b, loc, i64, 0),
                        v[1])
                        .getResult()
                  : arith::ConstantIntOp::create(b, loc, i64, 0).getResult();
          return arith::OrIOp::create(
              b, loc,
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, v[0],
                                    lo),
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, v[0],
                                    v[1]));
        });
    l.check(outside, "IndexError: index out of range in self");
  }
}

} // namespace

void mlir::fx::lowering::checkIndexRange(Lowering &l, Value self, int64_t dim,
                                         Value index, bool negative) {
  checkIndexRangeImpl(l, self, dim, index, negative);
}

Value mlir::fx::lowering::clampIndex(OpBuilder &b, Location loc, Value i,
                                     Value size) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value inside = arith::AndIOp::create(
      b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, i, zero),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, i, size));
  return arith::SelectOp::create(b, loc, inside, i, zero);
}

Value mlir::fx::lowering::clampedIndex(OpBuilder &b, Location loc,
                                       Value element, Value size) {
  return clampIndex(
      b, loc, arith::IndexCastOp::create(b, loc, b.getIndexType(), element),
      size);
}

namespace {

/// The elements of `self` picked along `dim` by the int tensor `index`;
/// negative indices count from the end when `negative` (x[idx]), else they
/// are out of range (embedding, index_select), as in PyTorch. An index out
/// of range reads element 0 instead of memory outside `self`; one that
/// comes from an input is checked by the runtime before the call.
Value gatherAlong(Lowering &l, Value self, int64_t dim, Value index,
                  bool negative) {
  auto selfType = cast<RankedTensorType>(self.getType());
  auto indexType = cast<RankedTensorType>(index.getType());
  int64_t staticSize = selfType.getDimSize(dim);
  if (staticSize == 0)
    return {};
  checkIndexRange(l, self, dim, index, negative);
  int64_t ri = indexType.getRank(), rank = selfType.getRank() - 1 + ri;
  SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0; d < dim; ++d)
    sizes.push_back(l.dim(self, d));
  for (int64_t d = 0; d < ri; ++d)
    sizes.push_back(l.dim(index, d));
  for (int64_t d = dim + 1; d < selfType.getRank(); ++d)
    sizes.push_back(l.dim(self, d));
  Value init = l.empty(sizes, selfType.getElementType());
  SmallVector<AffineExpr> indexExprs;
  for (int64_t d = 0; d < ri; ++d)
    indexExprs.push_back(l.b.getAffineDimExpr(dim + d));
  SmallVector<AffineMap> maps = {
      AffineMap::get(rank, 0, indexExprs, l.b.getContext()),
      l.b.getMultiDimIdentityMap(rank)};
  Value size = l.toIndex(l.dim(self, dim));
  return linalg::GenericOp::create(
             l.b, l.loc, TypeRange{init.getType()}, ValueRange{index},
             ValueRange{init}, maps,
             SmallVector<utils::IteratorType>(rank,
                                              utils::IteratorType::parallel),
             "", "",
             [&](OpBuilder &nb, Location loc, ValueRange v) {
               Value i =
                   arith::IndexCastOp::create(nb, loc, nb.getIndexType(), v[0]);
               Value zero = arith::ConstantIndexOp::create(nb, loc, 0);
               if (negative) {
                 Value below = arith::CmpIOp::create(
                     nb, loc, arith::CmpIPredicate::slt, i, zero);
                 Value wrapped = arith::AddIOp::create(nb, loc, i, size);
                 i = arith::SelectOp::create(nb, loc, below, wrapped, i);
               }
               i = clampIndex(nb, loc, i, size);
               SmallVector<Value> at;
               for (int64_t d = 0; d < dim; ++d)
                 at.push_back(linalg::IndexOp::create(nb, loc, d));
               at.push_back(i);
               for (int64_t d = dim + ri; d < rank; ++d)
                 at.push_back(linalg::IndexOp::create(nb, loc, d));
               linalg::YieldOp::create(
                   nb, loc,
                   tensor::ExtractOp::create(nb, loc, self, at).getResult());
             })
      .getResult(0);
}

/// embedding(weight, indices, padding_idx, scale_grad_by_freq, sparse): the
/// rows of `weight` gathered by `indices`.
LogicalResult lowerEmbedding(Lowering &l) {
  using P = args::aten::embedding;
  Value weight = l.tensor(P::weight), indices = l.tensor(P::indices);
  if (!weight || !indices)
    return failure();
  if (rankOf(weight) != 2)
    return l.fail("embedding needs a 2-D weight");
  Value r = gatherAlong(l, weight, 0, indices, /*negative=*/false);
  if (!r)
    return l.fail("the weight has no rows");
  return l.replace(r);
}

/// index_select(self, dim, index): a 1-D index.
LogicalResult lowerIndexSelect(Lowering &l) {
  using P = args::aten::index_select;
  Value self = l.tensor(P::self), index = l.tensor(P::index);
  if (!self || !index)
    return failure();
  auto dim = l.normDim(l.arg(P::dim), rankOf(self));
  if (!dim || rankOf(index) > 1)
    return l.fail("needs a constant dim and a 1-D index");
  if (rankOf(index) == 0)
    index = l.unsqueeze(index, 0);
  // A 0-d tensor selects along its one implicit dim of size 1, as
  // PyTorch's index_select does; the result stays 0-d.
  bool scalar = rankOf(self) == 0;
  if (scalar) {
    if (cast<RankedTensorType>(index.getType()).getDimSize(0) != 1)
      return l.fail("a 0-d tensor takes an index of one element");
    self = l.unsqueeze(self, 0);
  }
  Value r = gatherAlong(l, self, *dim, index, /*negative=*/false);
  if (!r)
    return l.fail("cannot select from an empty dim");
  if (scalar)
    r = l.reshape(r, {});
  return l.replace(r);
}

/// searchsorted(sorted_sequence, self, out_int32, right, side, sorter) and
/// bucketize(self, boundaries, out_int32, right): for each value, the
/// number of items of the sequence (its row, for a sequence of more than
/// one dim, whose leading dims are the values') that come before it:
/// those not >= the value (right: not >), by ATen's binary search (so
/// NaN values come after everything, and a sequence holding NaN gives
/// ATen's counts): one generic over the values, an scf.while in each.
static LogicalResult lowerSearch(Lowering &l, bool bucketize) {
  using Bucketize = args::aten::bucketize_Tensor;
  using Search = args::aten::searchsorted_Tensor;
  Value values = bucketize ? l.tensor(Bucketize::self) : l.tensor(Search::self);
  Value sequence = bucketize ? l.tensor(Bucketize::boundaries)
                             : l.tensor(Search::sorted_sequence);
  Type elem = l.resultElementType();
  if (!values || !sequence || !elem)
    return l.fail("needs a tensor of values and a tensor sequence");
  static constexpr Param kRight = sameParam(Bucketize::right, Search::right);
  bool right = l.constBool(kRight).value_or(false);
  if (!bucketize) {
    if (Attribute sorter = l.arg(Search::sorter); sorter && !l.isNone(sorter)) {
      // The sequence in sorted order: sequence[sorter].
      Value order = l.value(sorter);
      if (!order || rankOf(order) != rankOf(sequence))
        return l.fail("needs a sorter of the sequence's rank");
      if (rankOf(sequence) == 1) {
        sequence = gatherAlong(l, sequence, 0, order, /*negative=*/false);
        if (!sequence)
          return l.fail("an empty sequence with a sorter");
      } else {
        // Each row in its own order: gather along the last dim.
        auto sType = cast<RankedTensorType>(sequence.getType());
        sequence = l.lowerCall(
            "aten::gather",
            {compose::ref(l, 0), compose::int64(l, sType.getRank() - 1),
             compose::ref(l, 1)},
            {sequence, order}, compose::tensorOf(sType.getElementType()));
        if (!sequence)
          return failure();
      }
    }
    if (auto side = dyn_cast_or_null<StringAttr>(l.arg(Search::side)))
      right = side.getValue() == "right";
  }
  auto vType = cast<RankedTensorType>(values.getType());
  auto sType = cast<RankedTensorType>(sequence.getType());
  int64_t rank = vType.getRank(), sRank = sType.getRank();
  if (sRank == 0 || (sRank > 1 && sRank != rank))
    return l.fail("the sequence must be 1-D or have the values' rank");
  for (int64_t d = 0; d + 1 < sRank; ++d)
    if (sType.isDynamicDim(d) || sType.getDimSize(d) != vType.getDimSize(d))
      return l.fail("the sequence's leading dims must be the values' (static)");
  Type compute = vType.getElementType();
  if (compute != sType.getElementType()) {
    compute = isFloat(compute) ? compute : sType.getElementType();
    if (!isFloat(compute))
      compute = l.b.getI64Type();
  }
  values = l.castTensor(values, compute);
  sequence = l.castTensor(sequence, compute);
  OpBuilder &b = l.b;
  Value length = tensor::DimOp::create(b, l.loc, sequence, sRank - 1);
  SmallVector<AffineMap> maps(
      2, AffineMap::getMultiDimIdentityMap(rank, b.getContext()));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  Value init = tensor::EmptyOp::create(b, l.loc, l.dims(values), elem);
  return l.replace(
      linalg::GenericOp::create(
          b, l.loc, TypeRange{init.getType()}, ValueRange{values},
          ValueRange{init}, maps, iterators, "", "",
          [&](OpBuilder &nb, Location loc, ValueRange v) {
            // The row of the sequence: the values' leading dims.
            SmallVector<Value> at;
            for (int64_t d = 0; d + 1 < sRank; ++d)
              at.push_back(linalg::IndexOp::create(nb, loc, d));
            at.push_back(Value());
            Type index = nb.getIndexType();
            Value zero = arith::ConstantIndexOp::create(nb, loc, 0);
            Value one = arith::ConstantIndexOp::create(nb, loc, 1);
            // ATen's lower (upper) bound: [start, end) narrowed to the
            // first item >= (>) the value; an item that compares false
            // (NaN) counts as before it.
            auto search = scf::WhileOp::create(
                nb, loc, TypeRange{index, index}, ValueRange{zero, length},
                [&](OpBuilder &wb, Location wl, ValueRange r) {
                  Value more = arith::CmpIOp::create(
                      wb, wl, arith::CmpIPredicate::ult, r[0], r[1]);
                  scf::ConditionOp::create(wb, wl, more, r);
                },
                [&](OpBuilder &wb, Location wl, ValueRange r) {
                  Value half = arith::ShRUIOp::create(
                      wb, wl, arith::SubIOp::create(wb, wl, r[1], r[0]), one);
                  Value mid = arith::AddIOp::create(wb, wl, r[0], half);
                  at.back() = mid;
                  Value item = tensor::ExtractOp::create(wb, wl, sequence, at);
                  Value after;
                  if (isFloat(compute))
                    after =
                        arith::CmpFOp::create(wb, wl,
                                              right ? arith::CmpFPredicate::OGT
                                                    : arith::CmpFPredicate::OGE,
                                              item, v[0]);
                  else
                    after = arith::CmpIOp::create(
                        wb, wl,
                        intPredicate(right ? arith::CmpIPredicate::sgt
                                           : arith::CmpIPredicate::sge,
                                     compute),
                        item, v[0]);
                  Value start = arith::SelectOp::create(
                      wb, wl, after, r[0],
                      arith::AddIOp::create(wb, wl, mid, one));
                  Value end = arith::SelectOp::create(wb, wl, after, mid, r[1]);
                  scf::YieldOp::create(wb, wl, ValueRange{start, end});
                });
            Value count =
                arith::IndexCastOp::create(nb, loc, elem, search.getResult(0));
            linalg::YieldOp::create(nb, loc, count);
          })
          .getResult(0));
}
LogicalResult lowerSearchsorted(Lowering &l) { return lowerSearch(l, false); }
LogicalResult lowerBucketize(Lowering &l) { return lowerSearch(l, true); }

/// gather(self, dim, index): out[p] = self[p with p[dim] = index[p]], out
/// of index's shape, which no dim but `dim` may exceed self's in.
LogicalResult lowerGather(Lowering &l) {
  using P = args::aten::gather;
  Value self = l.tensor(P::self), index = l.tensor(P::index);
  if (!self || !index)
    return failure();
  auto selfType = cast<RankedTensorType>(self.getType());
  auto indexType = cast<RankedTensorType>(index.getType());
  int64_t rank = selfType.getRank();
  auto dim = l.normDim(l.arg(P::dim), rank);
  if (!dim || indexType.getRank() != rank)
    return l.fail("needs a constant dim and an index of self's rank");
  if (rank == 0) {
    self = l.unsqueeze(self, 0);
    index = l.unsqueeze(index, 0);
  }
  int64_t loops = std::max<int64_t>(rank, 1);
  for (int64_t d = 0; d < loops; ++d) {
    if (d == *dim)
      continue;
    int64_t is = cast<RankedTensorType>(index.getType()).getDimSize(d),
            ss = cast<RankedTensorType>(self.getType()).getDimSize(d);
    if (ShapedType::isDynamic(is) || ShapedType::isDynamic(ss)) {
      // A dynamic size (the batch): index no larger than self there is
      // checked when the code runs, as ATen checks it.
      Value larger = arith::CmpIOp::create(
          l.b, l.loc, arith::CmpIPredicate::sgt, l.toIndex(l.dim(index, d)),
          l.toIndex(l.dim(self, d)));
      l.check(
          tensor::FromElementsOp::create(
              l.b, l.loc, RankedTensorType::get({}, l.b.getI1Type()), larger),
          "RuntimeError: Size does not match at dimension " + Twine(d) +
              ": the index is larger than self there");
      continue;
    }
    if (is > ss)
      return l.fail(
          llvm::formatv("index is larger than self in dim {0} ({1} > {2})", d,
                        is, ss)
              .str());
  }
  if (cast<RankedTensorType>(self.getType()).getDimSize(*dim) == 0)
    return l.fail("cannot gather from an empty dim");
  checkIndexRange(l, self, *dim, index, /*negative=*/false);
  Value init = l.empty(l.dims(index), selfType.getElementType());
  Value size = l.toIndex(l.dim(self, *dim));
  SmallVector<AffineMap> maps(2, l.b.getMultiDimIdentityMap(loops));
  Value r =
      linalg::GenericOp::create(
          l.b, l.loc, TypeRange{init.getType()}, ValueRange{index},
          ValueRange{init}, maps,
          SmallVector<utils::IteratorType>(loops,
                                           utils::IteratorType::parallel),
          "", "",
          [&](OpBuilder &nb, Location loc, ValueRange v) {
            SmallVector<Value> coords;
            for (int64_t d = 0; d < loops; ++d)
              coords.push_back(
                  d == *dim ? clampedIndex(nb, loc, v[0], size)
                            : linalg::IndexOp::create(nb, loc, d).getResult());
            linalg::YieldOp::create(
                nb, loc,
                tensor::ExtractOp::create(nb, loc, self, coords).getResult());
          })
          .getResult(0);
  if (rank == 0)
    r = l.reshape(r, {});
  return l.replace(r);
}

/// self[i_0, ..., i_k-1] on dims first..first+k-1 (k > 1): the indices'
/// shapes broadcast to B, the result self's dims before `first`, then B,
/// then self's dims after the indexed ones; each index checked, negatives
/// wrapped, as one gather.
Value gatherByMany(Lowering &l, Value self, int64_t first,
                   ArrayRef<Value> indices) {
  auto selfType = cast<RankedTensorType>(self.getType());
  int64_t k = indices.size();
  // The broadcast shape of the indices (numpy's rules; a dynamic dim is
  // taken as matching).
  int64_t rb = 0;
  for (Value index : indices)
    rb = std::max(rb, rankOf(index));
  SmallVector<OpFoldResult> bshape(rb, l.b.getIndexAttr(1));
  SmallVector<int64_t> bstatic(rb, 1);
  for (Value index : indices) {
    int64_t ri = rankOf(index);
    for (int64_t j = 0; j < ri; ++j) {
      int64_t at = rb - ri + j, size = compose::staticDim(index, j);
      if (size == 1)
        continue;
      if (bstatic[at] != 1 && !ShapedType::isDynamic(size) &&
          !ShapedType::isDynamic(bstatic[at]) && bstatic[at] != size)
        return {};
      bstatic[at] = size;
      bshape[at] = l.dim(index, j);
    }
  }
  for (int64_t d = 0; d < k; ++d) {
    if (selfType.getDimSize(first + d) == 0)
      return {};
    checkIndexRange(l, self, first + d, indices[d], /*negative=*/true);
  }
  int64_t rank = selfType.getRank() - k + rb;
  SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0; d < first; ++d)
    sizes.push_back(l.dim(self, d));
  llvm::append_range(sizes, bshape);
  for (int64_t d = first + k; d < selfType.getRank(); ++d)
    sizes.push_back(l.dim(self, d));
  Value init = l.empty(sizes, selfType.getElementType());
  MLIRContext *ctx = l.b.getContext();
  SmallVector<AffineMap> maps;
  for (Value index : indices) {
    int64_t ri = rankOf(index);
    SmallVector<AffineExpr> exprs;
    for (int64_t j = 0; j < ri; ++j) {
      int64_t at = rb - ri + j;
      exprs.push_back(compose::staticDim(index, j) == 1 && bstatic[at] != 1
                          ? getAffineConstantExpr(0, ctx)
                          : getAffineDimExpr(first + at, ctx));
    }
    maps.push_back(AffineMap::get(rank, 0, exprs, ctx));
  }
  maps.push_back(l.b.getMultiDimIdentityMap(rank));
  SmallVector<Value> dimSizes;
  for (int64_t d = 0; d < k; ++d)
    dimSizes.push_back(l.toIndex(l.dim(self, first + d)));
  return linalg::GenericOp::create(
             l.b, l.loc, TypeRange{init.getType()}, indices, ValueRange{init},
             maps,
             SmallVector<utils::IteratorType>(rank,
                                              utils::IteratorType::parallel),
             "", "",
             [&](OpBuilder &nb, Location loc, ValueRange v) {
               Value zero = arith::ConstantIndexOp::create(nb, loc, 0);
               SmallVector<Value> coords;
               for (int64_t d = 0; d < first; ++d)
                 coords.push_back(linalg::IndexOp::create(nb, loc, d));
               for (int64_t d = 0; d < k; ++d) {
                 Value i = arith::IndexCastOp::create(nb, loc,
                                                      nb.getIndexType(), v[d]);
                 Value below = arith::CmpIOp::create(
                     nb, loc, arith::CmpIPredicate::slt, i, zero);
                 i = arith::SelectOp::create(
                     nb, loc, below,
                     arith::AddIOp::create(nb, loc, i, dimSizes[d]), i);
                 coords.push_back(clampIndex(nb, loc, i, dimSizes[d]));
               }
               for (int64_t d = first + k; d < selfType.getRank(); ++d)
                 coords.push_back(linalg::IndexOp::create(nb, loc, d - k + rb));
               linalg::YieldOp::create(
                   nb, loc,
                   tensor::ExtractOp::create(nb, loc, self, coords)
                       .getResult());
             })
      .getResult(0);
}

/// self[indices]: int index tensors next to each other, after Nones (full
/// slices).
LogicalResult lowerIndexTensor(Lowering &l) {
  using P = args::aten::index_Tensor;
  Value self = l.tensor(P::self);
  auto list = dyn_cast_or_null<ListAttr>(l.arg(P::indices));
  if (!self || !list || list.getElements().empty())
    return l.fail("needs a tensor and a list of indices");
  ArrayRef<Attribute> indices = list.getElements();
  int64_t first = 0;
  while (first < int64_t(indices.size()) && l.isNone(indices[first]))
    ++first;
  SmallVector<Value> tensors;
  for (Attribute a : indices.drop_front(first)) {
    if (l.isNone(a))
      return l.fail("only index tensors next to each other, after Nones, "
                    "are supported");
    Value index = l.tensor(a);
    if (!index)
      return failure();
    auto elem = cast<RankedTensorType>(index.getType()).getElementType();
    if (!isa<IntegerType>(elem) || elem.isInteger(1))
      return l.fail("only int index tensors are supported");
    tensors.push_back(index);
  }
  if (tensors.empty())
    return l.fail("needs an index tensor");
  if (first + int64_t(tensors.size()) > rankOf(self))
    return l.fail("too many indices");
  Value r = tensors.size() == 1
                ? gatherAlong(l, self, first, tensors[0], /*negative=*/true)
                : gatherByMany(l, self, first, tensors);
  if (!r)
    return l.fail("cannot index an empty dim, or indices whose shapes do "
                  "not broadcast");
  return l.replace(r);
}

} // namespace

void mlir::fx::lowering::addGatherLowerings(llvm::StringMap<LowerFn> &t) {
  addLowering(t, {"aten::searchsorted.Tensor"}, lowerSearchsorted);
  addLowering(t, {"aten::bucketize.Tensor"}, lowerBucketize);
  addLowering(t, {"aten::embedding"}, lowerEmbedding);
  addLowering(t, {"aten::index_select"}, lowerIndexSelect);
  addLowering(t, {"aten::gather"}, lowerGather);
  addLowering(t, {"aten::index.Tensor"}, lowerIndexTensor);
}
