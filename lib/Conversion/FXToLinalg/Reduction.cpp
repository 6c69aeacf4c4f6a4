//===- Reduction.cpp - Reductions and normalizations to linalg ------------===//
//
// sum/mean/amax/amin/max/min/argmax/argmin/var/std over dims with keepdim,
// softmax and log_softmax (max-subtracted), batch_norm in inference mode
// and layer_norm. Reductions are linalg.generic ops with reduction
// iterators; normalizations combine them with broadcasting elementwise ops.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include <limits>

using namespace mlir;
using namespace mlir::fx;
using namespace mlir::fx::lowering;

namespace {

/// The reduced dims from a `dim` argument: an int, a list, or None/[] for
/// all dims. Sorted and normalized.
std::optional<SmallVector<int64_t>> reducedDims(Lowering &l, Attribute a,
                                                int64_t rank) {
  SmallVector<int64_t> dims;
  if (l.isNone(a) ||
      (isa<ListAttr>(a) && cast<ListAttr>(a).getElements().empty())) {
    for (int64_t d = 0; d < rank; ++d)
      dims.push_back(d);
    return dims;
  }
  SmallVector<Attribute> items;
  if (auto list = dyn_cast<ListAttr>(a))
    items.assign(list.getElements().begin(), list.getElements().end());
  else
    items.push_back(a);
  for (Attribute item : items) {
    auto d = l.normDim(item, rank);
    if (!d)
      return std::nullopt;
    if (rank == 0)
      continue;
    if (!llvm::is_contained(dims, *d))
      dims.push_back(*d);
  }
  llvm::sort(dims);
  return dims;
}

int64_t rankOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getRank();
}

Value lowest(Lowering &l, Type t, bool forMax) {
  if (isFloat(t))
    return l.constant(t, forMax ? -std::numeric_limits<double>::infinity()
                                : std::numeric_limits<double>::infinity());
  unsigned w = t.getIntOrFloatBitWidth();
  APInt v = forMax ? APInt::getSignedMinValue(w) : APInt::getSignedMaxValue(w);
  if (w == 1)
    v = APInt(1, forMax ? 0 : 1);
  return arith::ConstantOp::create(l.b, l.loc, l.b.getIntegerAttr(t, v));
}

Value maxOrMin(OpBuilder &b, Location loc, Value x, Value y, bool isMax) {
  if (isFloat(x.getType()))
    return isMax ? arith::MaximumFOp::create(b, loc, x, y).getResult()
                 : arith::MinimumFOp::create(b, loc, x, y).getResult();
  return isMax ? maxInt(b, loc, x, y) : minInt(b, loc, x, y);
}

/// sum/mean over `dims`, accumulating in `elem`.
Value sumOver(Lowering &l, Value x, ArrayRef<int64_t> dims, bool keepdim,
              Type elem) {
  return l.reduce(x, dims, keepdim, l.constant(elem, 0), add);
}

Value divideBy(Lowering &l, Value t, Value divisor) {
  Type elem = cast<RankedTensorType>(t.getType()).getElementType();
  return l.elementwise(
      {t, divisor}, elem, elem, [](OpBuilder &b, Location loc, ValueRange v) {
        return arith::DivFOp::create(b, loc, v[0], v[1]).getResult();
      });
}

/// The mean of `x` over `dims` (kept as size-1 dims) and the sum of the
/// squared deviations from it over `dims` (kept when `keepdim`): the two
/// passes var, std and layer_norm share.
std::pair<Value, Value> meanAndSquares(Lowering &l, Value x,
                                       ArrayRef<int64_t> dims, bool keepdim,
                                       Value count, Type elem) {
  Value mean = divideBy(l, sumOver(l, x, dims, true, elem), count);
  Value squares = l.elementwise(
      {x, mean}, elem, elem, [](OpBuilder &b, Location loc, ValueRange v) {
        Value d = arith::SubFOp::create(b, loc, v[0], v[1]);
        return arith::MulFOp::create(b, loc, d, d).getResult();
      });
  return {mean, sumOver(l, squares, dims, keepdim, elem)};
}

/// `(x - mean) * rsqrt(var + eps)`, then `* weight` and `+ bias` when given
/// (null otherwise); all broadcast against `x`.
Value normalizeAffine(Lowering &l, Value x, Value mean, Value var, double eps,
                      Value weight, Value bias, Type elem) {
  SmallVector<Value> inputs = {x, mean, var};
  int weightSlot = -1, biasSlot = -1;
  if (weight) {
    weightSlot = inputs.size();
    inputs.push_back(weight);
  }
  if (bias) {
    biasSlot = inputs.size();
    inputs.push_back(bias);
  }
  Value epsValue = l.constant(elem, eps);
  return l.elementwise(
      inputs, elem, elem, [&](OpBuilder &b, Location loc, ValueRange v) {
        Value centered = arith::SubFOp::create(b, loc, v[0], v[1]);
        Value inv = math::RsqrtOp::create(
            b, loc, arith::AddFOp::create(b, loc, v[2], epsValue));
        Value y = arith::MulFOp::create(b, loc, centered, inv);
        if (weightSlot >= 0)
          y = arith::MulFOp::create(b, loc, y, v[weightSlot]);
        if (biasSlot >= 0)
          y = arith::AddFOp::create(b, loc, y, v[biasSlot]);
        return y;
      });
}

LogicalResult lowerSumOrMean(Lowering &l, bool mean) {
  // sum.dim_IntList, mean.dim (self, dim, keepdim); sum and mean (self).
  static constexpr Param kDim =
      sameParam(args::aten::sum_dim_IntList::dim, args::aten::mean_dim::dim);
  static constexpr Param kKeepdim = sameParam(
      args::aten::sum_dim_IntList::keepdim, args::aten::mean_dim::keepdim);
  Value x = l.subject();
  Type elem = l.resultElementType();
  if (!x || !elem)
    return l.fail("needs a typed tensor");
  StringRef target = l.target();
  bool full = target == "aten::sum" || target == "aten::mean";
  auto dims = reducedDims(l, full ? Attribute() : l.arg(kDim), rankOf(x));
  bool keepdim = full ? false : l.constBool(kKeepdim).value_or(false);
  if (!dims)
    return l.fail("dims must be constants");
  Value r = sumOver(l, x, *dims, keepdim, elem);
  if (mean)
    r = divideBy(l, r, l.countOver(x, *dims, elem));
  return l.replace(r);
}

LogicalResult lowerSum(Lowering &l) { return lowerSumOrMean(l, false); }
LogicalResult lowerMean(Lowering &l) { return lowerSumOrMean(l, true); }

/// nansum(self, dim=None, keepdim, dtype): sum with NaNs counted as 0.
LogicalResult lowerNansum(Lowering &l) {
  using P = args::aten::nansum;
  Value x = l.tensor(P::self);
  Type elem = l.resultElementType();
  if (!x || !elem)
    return l.fail("needs a typed tensor");
  auto dims = reducedDims(l, l.arg(P::dim), rankOf(x));
  auto keepdim = l.constBool(P::keepdim);
  if (!dims || !keepdim)
    return l.fail("dims and keepdim must be constants");
  if (isFloat(elem))
    x = l.elementwise(
        {x}, elem, elem, [&](OpBuilder &b, Location loc, ValueRange v) {
          Value nan = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO,
                                            v[0], v[0]);
          return arith::SelectOp::create(b, loc, nan,
                                         constantOf(b, loc, elem, 0), v[0])
              .getResult();
        });
  return l.replace(sumOver(l, x, *dims, *keepdim, elem));
}

/// count_nonzero(self, dim=None | dims): the int64 count of elements that
/// are not 0 (NaN counts), over `dims` or everything.
LogicalResult lowerCountNonzero(Lowering &l) {
  // Parameters as aten::count_nonzero names them, at the same positions in
  // aten::count_nonzero.dim_IntList.
  using P = args::aten::count_nonzero;
  Value x = l.tensor(P::self);
  if (!x)
    return l.fail("needs a tensor");
  auto dims = reducedDims(l, l.arg(P::dim), rankOf(x));
  if (!dims)
    return l.fail("dims must be constants");
  Type elem = cast<RankedTensorType>(x.getType()).getElementType();
  Type i64 = l.b.getI64Type();
  Value nonzero = l.elementwise(
      {x}, elem, i64, [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
        Value ne =
            isFloat(elem)
                ? arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, v[0],
                                        constantOf(b, loc, elem, 0))
                      .getResult()
                : arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v[0],
                                        constantOf(b, loc, elem, 0))
                      .getResult();
        return arith::ExtUIOp::create(b, loc, i64, ne);
      });
  return l.replace(sumOver(l, nonzero, *dims, /*keepdim=*/false, i64));
}

/// amax/amin(self, dim=[], keepdim) and max()/min() over everything.
LogicalResult lowerExtremum(Lowering &l, bool isMax) {
  // amax/amin (self, dim, keepdim); max/min (self).
  static constexpr Param kDim =
      sameParam(args::aten::amax::dim, args::aten::amin::dim);
  static constexpr Param kKeepdim =
      sameParam(args::aten::amax::keepdim, args::aten::amin::keepdim);
  Value x = l.subject();
  Type elem = l.resultElementType();
  if (!x || !elem)
    return l.fail("needs a typed tensor");
  bool full = l.numArgs() == 1;
  auto dims = reducedDims(l, full ? Attribute() : l.arg(kDim), rankOf(x));
  bool keepdim = full ? false : l.constBool(kKeepdim).value_or(false);
  if (!dims)
    return l.fail("dims must be constants");
  return l.replace(
      l.reduce(x, *dims, keepdim, lowest(l, elem, isMax),
               [&](OpBuilder &b, Location loc, Value acc, Value v) {
                 return maxOrMin(b, loc, acc, v, isMax);
               }));
}
LogicalResult lowerAmax(Lowering &l) { return lowerExtremum(l, true); }
LogicalResult lowerAmin(Lowering &l) { return lowerExtremum(l, false); }

/// `v`, a reduction's result with its reduced `dims` kept (size 1),
/// without them.
Value dropReducedDims(Lowering &l, Value v, ArrayRef<int64_t> dims) {
  int64_t rank = rankOf(v);
  if (int64_t(dims.size()) == rank)
    return tensor::CollapseShapeOp::create(l.b, l.loc, v,
                                           ArrayRef<ReassociationIndices>{});
  SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0; d < rank; ++d)
    if (!llvm::is_contained(dims, d))
      sizes.push_back(l.dim(v, d));
  return l.reshape(v, sizes);
}

/// The dims and keepdim of prod/all/any: the whole tensor without a dim
/// (one argument), else (self, dim, keepdim).
std::optional<std::pair<SmallVector<int64_t>, bool>> dimAndKeep(Lowering &l,
                                                                Value x) {
  static constexpr Param kDim =
      sameParam(args::aten::prod_dim_int::dim, args::aten::all_dim::dim,
                args::aten::any_dim::dim);
  static constexpr Param kKeepdim =
      sameParam(args::aten::prod_dim_int::keepdim, args::aten::all_dim::keepdim,
                args::aten::any_dim::keepdim);
  bool full = l.numArgs() == 1 || l.target() == "aten::prod";
  auto dims = reducedDims(l, full ? Attribute() : l.arg(kDim), rankOf(x));
  if (!dims)
    return std::nullopt;
  return std::make_pair(*dims,
                        full ? false : l.constBool(kKeepdim).value_or(false));
}

/// prod(self[, dim, keepdim]).
LogicalResult lowerProd(Lowering &l) {
  // Parameters as aten::prod names them, at the same positions in
  // aten::prod.dim_int.
  using P = args::aten::prod;
  Value x = l.tensor(P::self);
  Type elem = l.resultElementType();
  if (!x || !elem)
    return l.fail("needs a typed tensor");
  auto dk = dimAndKeep(l, x);
  if (!dk)
    return l.fail("dim must be a constant");
  return l.replace(
      l.reduce(x, dk->first, dk->second, l.constant(elem, 1),
               [](OpBuilder &b, Location loc, Value acc, Value v) -> Value {
                 return isFloat(v.getType())
                            ? arith::MulFOp::create(b, loc, acc, v).getResult()
                            : arith::MulIOp::create(b, loc, acc, v).getResult();
               }));
}

/// all/any(self[, dim, keepdim]): whether every (some) item is nonzero.
LogicalResult lowerAllAny(Lowering &l, bool isAll) {
  Value x = l.subject();
  if (!x)
    return l.fail("needs a tensor");
  auto dk = dimAndKeep(l, x);
  if (!dk)
    return l.fail("dim must be a constant");
  Type elem = cast<RankedTensorType>(x.getType()).getElementType();
  Type i1 = l.b.getI1Type();
  Value truth = x;
  if (elem != i1)
    truth = l.elementwise(
        {x}, elem, i1, [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
          Value zero = constantOf(b, loc, elem, 0);
          if (isFloat(elem))
            return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE,
                                         v[0], zero);
          return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v[0],
                                       zero);
        });
  Value result =
      l.reduce(truth, dk->first, dk->second, l.constant(i1, isAll ? 1 : 0),
               [&](OpBuilder &b, Location loc, Value acc, Value v) -> Value {
                 if (isAll)
                   return arith::AndIOp::create(b, loc, acc, v);
                 return arith::OrIOp::create(b, loc, acc, v);
               });
  // Eager gives bools, except for uint8 inputs: uint8 0 or 1.
  if (Type r = l.resultElementType(); r && r != i1)
    result = l.castTensor(result, r);
  return l.replace(result);
}
LogicalResult lowerAll(Lowering &l) { return lowerAllAny(l, true); }
LogicalResult lowerAny(Lowering &l) { return lowerAllAny(l, false); }

/// logsumexp(self, dim, keepdim): m + log(sum(exp(x - m))), m the max
/// along the dims (0 where it is infinite, as ATen).
LogicalResult lowerLogsumexp(Lowering &l) {
  using P = args::aten::logsumexp;
  Value x = l.tensor(P::self);
  Type elem = l.resultElementType();
  if (!x || !elem || !isFloat(elem))
    return l.fail("needs a float tensor");
  auto dims = reducedDims(l, l.arg(P::dim), rankOf(x));
  if (!dims)
    return l.fail("dims must be constants");
  bool keepdim = l.constBool(P::keepdim).value_or(false);
  x = l.castTensor(x, elem);
  Value m = l.reduce(x, *dims, true, lowest(l, elem, true),
                     [](OpBuilder &b, Location loc, Value acc, Value v) {
                       return maxOrMin(b, loc, acc, v, true);
                     });
  Value inf = l.constant(elem, std::numeric_limits<double>::infinity());
  Value zero = l.constant(elem, 0);
  m = l.elementwise(
      {m}, elem, elem, [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
        Value finite =
            arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT,
                                  math::AbsFOp::create(b, loc, v[0]), inf);
        return arith::SelectOp::create(b, loc, finite, v[0], zero);
      });
  Value e = l.elementwise(
      {x, m}, elem, elem, [](OpBuilder &b, Location loc, ValueRange v) {
        return math::ExpOp::create(b, loc,
                                   arith::SubFOp::create(b, loc, v[0], v[1]))
            .getResult();
      });
  Value sum = sumOver(l, e, *dims, true, elem);
  Value r = l.elementwise(
      {sum, m}, elem, elem, [](OpBuilder &b, Location loc, ValueRange v) {
        return arith::AddFOp::create(b, loc, math::LogOp::create(b, loc, v[0]),
                                     v[1])
            .getResult();
      });
  if (!keepdim)
    r = dropReducedDims(l, r, *dims);
  return l.replace(r);
}

/// linalg_vector_norm(self, ord, dim, keepdim, dtype): (sum |x|^ord)^(1/ord)
/// over the dims; ord 2 as sqrt(sum x^2), 1 as sum |x|, inf and -inf as
/// the max and min of |x|, 0 as the count of nonzeros.
static Value vectorNorm(Lowering &l, Value x, double p, ArrayRef<int64_t> dims,
                        bool keepdim, Type elem);

LogicalResult lowerVectorNorm(Lowering &l) {
  using P = args::aten::linalg_vector_norm;
  Value x = l.tensor(P::self);
  Type elem = l.resultElementType();
  auto ord = l.constFloat(l.arg(P::ord));
  if (!x || !elem || !isFloat(elem) || !ord)
    return l.fail("needs a float tensor and a constant ord");
  auto dims =
      reducedDims(l, l.isNone(P::dim) ? Attribute() : l.arg(P::dim), rankOf(x));
  if (!dims)
    return l.fail("dims must be constants");
  bool keepdim = l.constBool(P::keepdim).value_or(false);
  return l.replace(
      vectorNorm(l, l.castTensor(x, elem), *ord, *dims, keepdim, elem));
}

/// dist(self, other, p): the p-norm of self - other (broadcast), over
/// every element.
LogicalResult lowerDist(Lowering &l) {
  using P = args::aten::dist;
  Value x = l.tensor(P::self), y = l.tensor(P::other);
  Type elem = l.resultElementType();
  auto p =
      l.isNone(P::p) ? std::optional<double>(2) : l.constFloat(l.arg(P::p));
  if (!x || !y || !elem || !isFloat(elem) || !p)
    return l.fail("needs float tensors and a constant p");
  Value difference = l.elementwise(
      {x, y}, elem, elem, [](OpBuilder &b, Location loc, ValueRange v) {
        return arith::SubFOp::create(b, loc, v[0], v[1]).getResult();
      });
  SmallVector<int64_t> all =
      llvm::to_vector(llvm::seq<int64_t>(0, rankOf(difference)));
  return l.replace(vectorNorm(l, difference, *p, all, false, elem));
}

/// linalg_vecdot(x, y, dim): sum of x * y (broadcast) along dim (real
/// tensors: the conjugate is x itself).
LogicalResult lowerVecdot(Lowering &l) {
  using P = args::aten::linalg_vecdot;
  Value x = l.tensor(P::x), y = l.tensor(P::y);
  Type elem = l.resultElementType();
  if (!x || !y || !elem)
    return l.fail("needs typed tensors");
  Value product = l.elementwise(
      {x, y}, elem, elem, [&](OpBuilder &b, Location loc, ValueRange v) {
        return isFloat(elem)
                   ? arith::MulFOp::create(b, loc, v[0], v[1]).getResult()
                   : arith::MulIOp::create(b, loc, v[0], v[1]).getResult();
      });
  Attribute dimAttr = l.kwarg("dim");
  auto dim = dimAttr ? l.normDim(dimAttr, rankOf(product))
                     : std::optional<int64_t>(rankOf(product) - 1);
  if (!dim || rankOf(product) == 0)
    return l.fail("dim must be a constant dim");
  return l.replace(sumOver(l, product, {*dim}, false, elem));
}

/// nanmean(self, dim, keepdim, dtype): the mean of the elements that are
/// not NaN (NaN where there are none).
LogicalResult lowerNanmean(Lowering &l) {
  using P = args::aten::nanmean;
  Value x = l.tensor(P::self);
  Type elem = l.resultElementType();
  if (!x || !elem || !isFloat(elem))
    return l.fail("needs a float tensor");
  auto dims = reducedDims(l, l.arg(P::dim), rankOf(x));
  auto keepdim = l.constBool(P::keepdim);
  if (!dims || !keepdim)
    return l.fail("dims and keepdim must be constants");
  x = l.castTensor(x, elem);
  auto masked = [&](bool count) {
    return l.elementwise(
        {x}, elem, elem, [&](OpBuilder &b, Location loc, ValueRange v) {
          Value nan = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO,
                                            v[0], v[0]);
          return arith::SelectOp::create(
                     b, loc, nan, constantOf(b, loc, elem, 0),
                     count ? constantOf(b, loc, elem, 1) : v[0])
              .getResult();
        });
  };
  Value sum = sumOver(l, masked(false), *dims, *keepdim, elem);
  Value count = sumOver(l, masked(true), *dims, *keepdim, elem);
  return l.replace(l.elementwise(
      {sum, count}, elem, elem, [](OpBuilder &b, Location loc, ValueRange v) {
        return arith::DivFOp::create(b, loc, v[0], v[1]).getResult();
      }));
}

/// (sum |x|^p)^(1/p) over `dims` of the float tensor `x`.
static Value vectorNorm(Lowering &l, Value x, double p, ArrayRef<int64_t> dims,
                        bool keepdim, Type elem) {
  auto absOf = [&](Value t) {
    return l.elementwise(
        {t}, elem, elem, [](OpBuilder &b, Location loc, ValueRange v) {
          return math::AbsFOp::create(b, loc, v[0]).getResult();
        });
  };
  if (std::isinf(p))
    return l.reduce(absOf(x), dims, keepdim, lowest(l, elem, p > 0),
                    [&](OpBuilder &b, Location loc, Value acc, Value v) {
                      return maxOrMin(b, loc, acc, v, p > 0);
                    });
  Value powered = l.elementwise(
      {x}, elem, elem, [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
        Value a = math::AbsFOp::create(b, loc, v[0]);
        Type t = a.getType();
        if (p == 0)
          return arith::UIToFPOp::create(
              b, loc, t,
              arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, a,
                                    constantOf(b, loc, t, 0)));
        if (p == 1)
          return a;
        if (p == 2)
          return arith::MulFOp::create(b, loc, a, a);
        return math::PowFOp::create(b, loc, a, constantOf(b, loc, t, p));
      });
  Value sum = sumOver(l, powered, dims, keepdim, elem);
  if (p == 0 || p == 1)
    return sum;
  return l.elementwise({sum}, elem, elem,
                       [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
                         if (p == 2)
                           return math::SqrtOp::create(b, loc, v[0]);
                         return math::PowFOp::create(
                             b, loc, v[0],
                             constantOf(b, loc, v[0].getType(), 1.0 / p));
                       });
}

/// cumsum(self, dim, dtype): out[..., i, ...] = sum over k <= i of
/// x[..., k, ...], one generic with a reduction loop over k (quadratic in
/// the size of dim).
enum class Cumulative { Sum, Product, LogSumExp };
static LogicalResult lowerCumulative(Lowering &l, Cumulative kind);

LogicalResult lowerCumsum(Lowering &l) {
  return lowerCumulative(l, Cumulative::Sum);
}
LogicalResult lowerCumprod(Lowering &l) {
  return lowerCumulative(l, Cumulative::Product);
}
LogicalResult lowerLogcumsumexp(Lowering &l) {
  return lowerCumulative(l, Cumulative::LogSumExp);
}

/// log(exp(a) + exp(b)) as ATen's logcumsumexp combines: max + log1p(exp(
/// min - max)), and a itself when both are the same infinity (-inf, the
/// identity, or +inf), where min - max would be NaN.
static Value logAddExp(OpBuilder &b, Location loc, Value x, Value y) {
  Value lo = arith::MinimumFOp::create(b, loc, x, y);
  Value hi = arith::MaximumFOp::create(b, loc, x, y);
  Value e = math::ExpOp::create(b, loc, arith::SubFOp::create(b, loc, lo, hi));
  Value sum =
      arith::AddFOp::create(b, loc, hi, math::Log1pOp::create(b, loc, e));
  Value same = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, lo, hi);
  Value absLo = math::AbsFOp::create(b, loc, lo);
  Value infinite = arith::CmpFOp::create(
      b, loc, arith::CmpFPredicate::OEQ, absLo,
      constantOf(b, loc, x.getType(), std::numeric_limits<double>::infinity()));
  Value special = arith::AndIOp::create(b, loc, same, infinite);
  return arith::SelectOp::create(b, loc, special, x, sum);
}

/// cumsum/cumprod(self, dim, dtype), logcumsumexp(self, dim): item i
/// combines the items j <= i, in order of j (a reduction loop over j with
/// the others masked to the identity).
static LogicalResult lowerCumulative(Lowering &l, Cumulative kind) {
  // Parameters as aten::cumprod names them, at the same positions in
  // aten::cumsum, aten::logcumsumexp.
  using P = args::aten::cumprod;
  Value x = l.tensor(P::self);
  Type elem = l.resultElementType();
  if (!x || !elem)
    return l.fail("needs a typed tensor");
  if (kind == Cumulative::LogSumExp && !isFloat(elem))
    return l.fail("needs a float tensor");
  bool product = kind == Cumulative::Product;
  int64_t rank = rankOf(x);
  auto dim = l.normDim(l.arg(P::dim), rank);
  if (!dim)
    return l.fail("dim must be a constant");
  if (rank == 0)
    return l.replace(l.castTensor(x, elem));
  x = l.castTensor(x, elem);
  OpBuilder &b = l.b;
  int64_t k = rank; // the loop summed over
  SmallVector<AffineExpr> inExprs, outExprs;
  for (int64_t d = 0; d < rank; ++d) {
    inExprs.push_back(b.getAffineDimExpr(d == *dim ? k : d));
    outExprs.push_back(b.getAffineDimExpr(d));
  }
  // A second operand gives loop k the size of dim.
  SmallVector<AffineMap> maps = {
      AffineMap::get(rank + 1, 0, inExprs, b.getContext()),
      AffineMap::get(rank + 1, 0, outExprs, b.getContext())};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  double identity = kind == Cumulative::LogSumExp
                        ? -std::numeric_limits<double>::infinity()
                    : product ? 1
                              : 0;
  Value init = l.filled(l.dims(x), l.constant(elem, identity));
  return l.replace(
      linalg::GenericOp::create(
          b, l.loc, TypeRange{init.getType()}, ValueRange{x}, ValueRange{init},
          maps, iterators, "", "",
          [&](OpBuilder &nb, Location loc, ValueRange v) {
            Value i = linalg::IndexOp::create(nb, loc, *dim);
            Value j = linalg::IndexOp::create(nb, loc, k);
            Value in =
                arith::CmpIOp::create(nb, loc, arith::CmpIPredicate::ule, j, i);
            Value neutral = constantOf(nb, loc, elem, identity);
            Value item = arith::SelectOp::create(nb, loc, in, v[0], neutral);
            Value combined;
            if (kind == Cumulative::LogSumExp)
              combined = logAddExp(nb, loc, v[1], item);
            else if (!product)
              combined = add(nb, loc, v[1], item);
            else if (isFloat(elem))
              combined = arith::MulFOp::create(nb, loc, v[1], item);
            else if (elem.isInteger(1))
              combined = arith::AndIOp::create(nb, loc, v[1], item);
            else
              combined = arith::MulIOp::create(nb, loc, v[1], item);
            linalg::YieldOp::create(nb, loc, combined);
          })
          .getResult(0));
}

/// The rank of each item of `x` along `dim` (static) in ascending (or
/// descending) order, ties broken by index: the count of the items j that
/// come before item i. One generic with a reduction loop over j (n^2
/// comparisons: for the short dims sorting takes in models, class scores,
/// keypoints).
Value rankAlong(Lowering &l, Value x, int64_t dim, bool descending) {
  OpBuilder &b = l.b;
  int64_t rank = rankOf(x), j = rank;
  Type elem = cast<RankedTensorType>(x.getType()).getElementType();
  SmallVector<AffineExpr> self, other;
  for (int64_t d = 0; d < rank; ++d) {
    self.push_back(b.getAffineDimExpr(d));
    other.push_back(b.getAffineDimExpr(d == dim ? j : d));
  }
  SmallVector<AffineMap> maps = {
      AffineMap::get(rank + 1, 0, self, b.getContext()),
      AffineMap::get(rank + 1, 0, other, b.getContext()),
      AffineMap::get(rank + 1, 0, self, b.getContext())};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  Type i64 = b.getI64Type();
  Value init = l.filled(l.dims(x), l.constant(i64, 0));
  return linalg::GenericOp::create(
             b, l.loc, TypeRange{init.getType()}, ValueRange{x, x},
             ValueRange{init}, maps, iterators, "", "",
             [&](OpBuilder &nb, Location loc, ValueRange v) {
               Value xi = v[0], xj = v[1];
               Value before, same;
               if (isFloat(elem)) {
                 // NaN is the largest item, as in ATen's sort and topk:
                 // after every number ascending, before them descending,
                 // the NaNs in index order.
                 using FP = arith::CmpFPredicate;
                 Value nanI = arith::CmpFOp::create(nb, loc, FP::UNO, xi, xi);
                 Value nanJ = arith::CmpFOp::create(nb, loc, FP::UNO, xj, xj);
                 Value ordered = arith::CmpFOp::create(
                     nb, loc, descending ? FP::OGT : FP::OLT, xj, xi);
                 Value one = constantOf(nb, loc, nb.getI1Type(), 1);
                 Value nanFirst =
                     descending
                         ? arith::AndIOp::create(
                               nb, loc, nanJ,
                               arith::XOrIOp::create(nb, loc, nanI, one))
                         : arith::AndIOp::create(
                               nb, loc, nanI,
                               arith::XOrIOp::create(nb, loc, nanJ, one));
                 before = arith::OrIOp::create(nb, loc, ordered, nanFirst);
                 same = arith::OrIOp::create(
                     nb, loc, arith::CmpFOp::create(nb, loc, FP::OEQ, xj, xi),
                     arith::AndIOp::create(nb, loc, nanI, nanJ));
               } else {
                 before = arith::CmpIOp::create(
                     nb, loc,
                     intPredicate(descending ? arith::CmpIPredicate::sgt
                                             : arith::CmpIPredicate::slt,
                                  xj.getType()),
                     xj, xi);
                 same = arith::CmpIOp::create(nb, loc, arith::CmpIPredicate::eq,
                                              xj, xi);
               }
               Value earlier =
                   arith::CmpIOp::create(nb, loc, arith::CmpIPredicate::ult,
                                         linalg::IndexOp::create(nb, loc, j),
                                         linalg::IndexOp::create(nb, loc, dim));
               Value counts = arith::OrIOp::create(
                   nb, loc, before,
                   arith::AndIOp::create(nb, loc, same, earlier));
               linalg::YieldOp::create(
                   nb, loc,
                   arith::AddIOp::create(
                       nb, loc, v[2],
                       arith::ExtUIOp::create(nb, loc, i64, counts))
                       .getResult());
             })
      .getResult(0);
}

/// The first `count` items of `x` along `dim` in the order `ranks` gives,
/// and their indices: one generic over the result positions r with a
/// reduction over the items, picking the one of rank r.
std::pair<Value, Value> pickByRank(Lowering &l, Value x, Value ranks,
                                   int64_t dim, int64_t count) {
  OpBuilder &b = l.b;
  int64_t rank = rankOf(x), i = rank;
  Type elem = cast<RankedTensorType>(x.getType()).getElementType();
  Type i64 = b.getI64Type();
  SmallVector<AffineExpr> in, out;
  SmallVector<OpFoldResult> sizes = l.dims(x);
  sizes[dim] = b.getIndexAttr(count);
  for (int64_t d = 0; d < rank; ++d) {
    in.push_back(b.getAffineDimExpr(d == dim ? i : d));
    out.push_back(b.getAffineDimExpr(d));
  }
  SmallVector<AffineMap> maps = {
      AffineMap::get(rank + 1, 0, in, b.getContext()),
      AffineMap::get(rank + 1, 0, in, b.getContext()),
      AffineMap::get(rank + 1, 0, out, b.getContext()),
      AffineMap::get(rank + 1, 0, out, b.getContext())};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  Value values = l.filled(sizes, l.constant(elem, 0));
  Value indices = l.filled(sizes, l.constant(i64, 0));
  auto generic = linalg::GenericOp::create(
      b, l.loc, TypeRange{values.getType(), indices.getType()},
      ValueRange{x, ranks}, ValueRange{values, indices}, maps, iterators, "",
      "", [&](OpBuilder &nb, Location loc, ValueRange v) {
        Value r = arith::IndexCastOp::create(
            nb, loc, i64, linalg::IndexOp::create(nb, loc, dim));
        Value hit =
            arith::CmpIOp::create(nb, loc, arith::CmpIPredicate::eq, v[1], r);
        Value item = arith::IndexCastOp::create(
            nb, loc, i64, linalg::IndexOp::create(nb, loc, i));
        linalg::YieldOp::create(
            nb, loc,
            ValueRange{arith::SelectOp::create(nb, loc, hit, v[0], v[2]),
                       arith::SelectOp::create(nb, loc, hit, item, v[3])});
      });
  return {generic.getResult(0), generic.getResult(1)};
}

/// sort(self, dim, descending) and sort.stable (self, *, stable, dim,
/// descending): values and indices, stable; argsort: the indices;
/// topk(self, k, dim, largest, sorted): the k largest (smallest), in order.
LogicalResult lowerSortLike(Lowering &l) {
  // Parameters as aten::argsort names them, at the same positions in
  // aten::argsort.stable and 3 more.
  using P = args::aten::argsort;
  Value x = l.tensor(P::self);
  if (!x)
    return l.fail("needs a tensor");
  StringRef target = l.target();
  bool topk = target == "aten::topk";
  bool stable = target.ends_with(".stable");
  // dim and the order: positional in sort, argsort and topk, keyword-only
  // in the .stable overloads.
  namespace A = args::aten;
  static constexpr Param kDim = sameParam(A::sort::dim, A::argsort::dim);
  static constexpr Param kDescending =
      sameParam(A::sort::descending, A::argsort::descending);
  static constexpr Param kStableDim =
      sameParam(A::sort_stable::dim, A::argsort_stable::dim);
  static constexpr Param kStableDescending =
      sameParam(A::sort_stable::descending, A::argsort_stable::descending);
  int64_t rank = rankOf(x);
  Attribute dimAttr = l.arg(topk ? A::topk::dim : stable ? kStableDim : kDim);
  std::optional<int64_t> dim =
      dimAttr ? l.normDim(dimAttr, std::max<int64_t>(rank, 1))
              : std::optional<int64_t>(rank - 1);
  Attribute orderAttr = l.arg(topk     ? A::topk::largest
                              : stable ? kStableDescending
                                       : kDescending);
  std::optional<bool> order =
      orderAttr ? l.constBool(orderAttr) : std::optional<bool>(topk);
  if (!dim || !order)
    return l.fail("dim and the order must be constants");
  if (rank == 0) {
    // A scalar is its own sort (and topk of k 0 or 1), at index 0.
    if (topk) {
      auto k = l.constInt(args::aten::topk::k);
      if (!k || *k < 0 || *k > 1)
        return l.fail("k must be 0 or 1 for a scalar");
    }
    Value index = l.filled({}, l.constant(l.b.getI64Type(), 0));
    if (target.starts_with("aten::argsort"))
      return l.replace(index);
    return l.replaceTuple({x, index});
  }
  int64_t n = cast<RankedTensorType>(x.getType()).getDimSize(*dim);
  if (ShapedType::isDynamic(n))
    return l.fail("the sorted dim must be static");
  int64_t count = n;
  if (topk) {
    auto k = l.constInt(args::aten::topk::k);
    if (!k || *k < 0 || *k > n)
      return l.fail("k must be a constant within the dim");
    count = *k;
  }
  Value ranks = rankAlong(l, x, *dim, *order);
  auto [values, indices] = pickByRank(l, x, ranks, *dim, count);
  if (target.starts_with("aten::argsort"))
    return l.replace(indices);
  return l.replaceTuple({values, indices});
}

/// Value and index of the max/min along `dim` (first occurrence).
std::pair<Value, Value> argReduce(Lowering &l, Value x, int64_t dim,
                                  bool keepdim, bool isMax) {
  OpBuilder &b = l.b;
  auto type = cast<RankedTensorType>(x.getType());
  Type elem = type.getElementType();
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> sizes;
  SmallVector<AffineExpr> outExprs;
  SmallVector<utils::IteratorType> iterators;
  for (int64_t d = 0; d < rank; ++d) {
    iterators.push_back(d == dim ? utils::IteratorType::reduction
                                 : utils::IteratorType::parallel);
    if (d != dim) {
      sizes.push_back(l.dim(x, d));
      outExprs.push_back(b.getAffineDimExpr(d));
    }
  }
  Value values = l.filled(sizes, lowest(l, elem, isMax));
  Value indices = l.filled(sizes, l.constant(b.getI64Type(), 0));
  AffineMap outMap = AffineMap::get(rank, 0, outExprs, b.getContext());
  auto generic = linalg::GenericOp::create(
      b, l.loc, TypeRange{values.getType(), indices.getType()}, ValueRange{x},
      ValueRange{values, indices},
      {b.getMultiDimIdentityMap(rank), outMap, outMap}, iterators, "", "",
      [&](OpBuilder &nb, Location loc, ValueRange v) {
        Value index = arith::IndexCastOp::create(
            nb, loc, nb.getI64Type(), linalg::IndexOp::create(nb, loc, dim));
        Value better;
        if (isFloat(elem)) {
          // The first NaN wins, as in PyTorch: a NaN replaces a number,
          // nothing replaces a NaN (the ordered comparison is false).
          Value cmp = arith::CmpFOp::create(nb, loc,
                                            isMax ? arith::CmpFPredicate::OGT
                                                  : arith::CmpFPredicate::OLT,
                                            v[0], v[1]);
          Value firstNan = arith::CmpFOp::create(
              nb, loc, arith::CmpFPredicate::UNO, v[0], v[0]);
          Value accNumber = arith::CmpFOp::create(
              nb, loc, arith::CmpFPredicate::ORD, v[1], v[1]);
          firstNan = arith::AndIOp::create(nb, loc, firstNan, accNumber);
          better = arith::OrIOp::create(nb, loc, cmp, firstNan);
        } else {
          better = arith::CmpIOp::create(
              nb, loc,
              intPredicate(isMax ? arith::CmpIPredicate::sgt
                                 : arith::CmpIPredicate::slt,
                           v[0].getType()),
              v[0], v[1]);
        }
        Value newValue = arith::SelectOp::create(nb, loc, better, v[0], v[1]);
        Value newIndex = arith::SelectOp::create(nb, loc, better, index, v[2]);
        linalg::YieldOp::create(nb, loc, ValueRange{newValue, newIndex});
      });
  Value r0 = generic.getResult(0), r1 = generic.getResult(1);
  if (keepdim) {
    r0 = l.keepDims(r0, {dim}, rank);
    r1 = l.keepDims(r1, {dim}, rank);
  }
  return {r0, r1};
}

/// cummax/cummin(self, dim) -> (values, indices): item i is the extremum
/// of the items j <= i taken in order of j, where, as in ATen, a later
/// item that equals it or is NaN takes its place (its index the last such
/// j); the items j > i are skipped.
static LogicalResult lowerCumulativeExtremum(Lowering &l, bool isMax) {
  // Parameters as aten::cummax names them, at the same positions in
  // aten::cummin.
  using P = args::aten::cummax;
  Value x = l.tensor(P::self);
  if (!x)
    return failure();
  int64_t rank = rankOf(x);
  auto dim = l.normDim(l.arg(P::dim), rank);
  if (!dim)
    return l.fail("dim must be a constant");
  OpBuilder &b = l.b;
  Type i64 = b.getI64Type();
  if (rank == 0)
    return l.replaceTuple({x, l.filled({}, l.constant(i64, 0))});
  Type elem = cast<RankedTensorType>(x.getType()).getElementType();
  int64_t k = rank; // the items combined
  SmallVector<AffineExpr> inExprs, outExprs;
  for (int64_t d = 0; d < rank; ++d) {
    inExprs.push_back(b.getAffineDimExpr(d == *dim ? k : d));
    outExprs.push_back(b.getAffineDimExpr(d));
  }
  AffineMap in = AffineMap::get(rank + 1, 0, inExprs, b.getContext());
  AffineMap out = AffineMap::get(rank + 1, 0, outExprs, b.getContext());
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  Value values = l.filled(l.dims(x), lowest(l, elem, isMax));
  Value indices = l.filled(l.dims(x), l.constant(i64, 0));
  auto generic = linalg::GenericOp::create(
      b, l.loc, TypeRange{values.getType(), indices.getType()}, ValueRange{x},
      ValueRange{values, indices}, {in, out, out}, iterators, "", "",
      [&](OpBuilder &nb, Location loc, ValueRange v) {
        Value i = linalg::IndexOp::create(nb, loc, *dim);
        Value j = linalg::IndexOp::create(nb, loc, k);
        Value upTo =
            arith::CmpIOp::create(nb, loc, arith::CmpIPredicate::ule, j, i);
        Value item = v[0], acc = v[1];
        Value better;
        if (isFloat(elem)) {
          Value cmp = arith::CmpFOp::create(nb, loc,
                                            isMax ? arith::CmpFPredicate::OGE
                                                  : arith::CmpFPredicate::OLE,
                                            item, acc);
          Value itemNan = arith::CmpFOp::create(
              nb, loc, arith::CmpFPredicate::UNO, item, item);
          better = arith::OrIOp::create(nb, loc, itemNan, cmp);
        } else {
          better = arith::CmpIOp::create(
              nb, loc,
              intPredicate(isMax ? arith::CmpIPredicate::sge
                                 : arith::CmpIPredicate::sle,
                           item.getType()),
              item, acc);
        }
        Value take = arith::AndIOp::create(nb, loc, upTo, better);
        Value index = arith::IndexCastOp::create(nb, loc, nb.getI64Type(), j);
        Value newValue = arith::SelectOp::create(nb, loc, take, item, acc);
        Value newIndex = arith::SelectOp::create(nb, loc, take, index, v[2]);
        linalg::YieldOp::create(nb, loc, ValueRange{newValue, newIndex});
      });
  return l.replaceTuple({generic.getResult(0), generic.getResult(1)});
}
LogicalResult lowerCummax(Lowering &l) {
  return lowerCumulativeExtremum(l, true);
}
LogicalResult lowerCummin(Lowering &l) {
  return lowerCumulativeExtremum(l, false);
}

/// max.dim/min.dim(self, dim, keepdim) -> (values, indices).
LogicalResult lowerExtremumDim(Lowering &l, bool isMax) {
  // max.dim, min.dim (self, dim, keepdim).
  static constexpr Param kDim =
      sameParam(args::aten::max_dim::dim, args::aten::min_dim::dim);
  static constexpr Param kKeepdim =
      sameParam(args::aten::max_dim::keepdim, args::aten::min_dim::keepdim);
  Value x = l.subject();
  if (!x)
    return failure();
  int64_t rank = rankOf(x);
  auto dim = l.normDim(l.arg(kDim), rank);
  auto keepdim = l.constBool(kKeepdim);
  if (!dim || !keepdim)
    return l.fail("dim and keepdim must be constants");
  // A 0-d tensor (dim 0 or -1) is its own extremum, at index 0.
  if (rank == 0)
    return l.replaceTuple({x, l.filled({}, l.constant(l.b.getI64Type(), 0))});
  auto [values, indices] = argReduce(l, x, *dim, *keepdim, isMax);
  return l.replaceTuple({values, indices});
}
LogicalResult lowerMaxDim(Lowering &l) { return lowerExtremumDim(l, true); }
LogicalResult lowerMinDim(Lowering &l) { return lowerExtremumDim(l, false); }

/// argmax/argmin(self, dim=None, keepdim=False).
LogicalResult lowerArgExtremum(Lowering &l, bool isMax) {
  static constexpr Param kDim =
      sameParam(args::aten::argmax::dim, args::aten::argmin::dim);
  static constexpr Param kKeepdim =
      sameParam(args::aten::argmax::keepdim, args::aten::argmin::keepdim);
  Value x = l.subject();
  if (!x)
    return failure();
  int64_t rank = rankOf(x);
  bool keepdim = l.constBool(kKeepdim).value_or(false);
  if (l.isNone(kDim)) {
    SmallVector<OpFoldResult> all = {l.b.getIndexAttr(ShapedType::kDynamic)};
    // Flatten to 1-D.
    Value flat = x;
    if (rank != 1) {
      SmallVector<ReassociationIndices> groups(rank ? 1 : 0);
      for (int64_t d = 0; d < rank; ++d)
        groups[0].push_back(d);
      flat = tensor::CollapseShapeOp::create(l.b, l.loc, x, groups);
      if (rank == 0)
        flat = l.unsqueeze(x, 0);
    }
    Value idx = argReduce(l, flat, 0, false, isMax).second;
    if (keepdim && rank > 0) {
      SmallVector<int64_t> dims;
      for (int64_t d = 0; d < rank; ++d)
        dims.push_back(d);
      idx = l.keepDims(idx, dims, rank);
    }
    return l.replace(idx);
  }
  auto dim = l.normDim(l.arg(kDim), rank);
  if (!dim)
    return l.fail("dim must be a constant");
  // A 0-d tensor (dim 0 or -1): index 0.
  if (rank == 0)
    return l.replace(l.filled({}, l.constant(l.b.getI64Type(), 0)));
  return l.replace(argReduce(l, x, *dim, keepdim, isMax).second);
}
LogicalResult lowerArgmax(Lowering &l) { return lowerArgExtremum(l, true); }
LogicalResult lowerArgmin(Lowering &l) { return lowerArgExtremum(l, false); }

/// var/std with a correction (1 = unbiased).
/// var/std (and var_mean/std_mean, with the mean as a second result) in
/// their overloads: (self, unbiased), .dim (self, dim, unbiased, keepdim),
/// .correction (self, dim, *, correction, keepdim).
LogicalResult lowerVarStd(Lowering &l, bool isStd, bool withMean) {
  // The overloads of var, std, var_mean and std_mean put their parameters
  // at the same places.
  namespace A = args::aten;
  static constexpr Param kCorrectionDim =
      sameParam(A::var_correction::dim, A::std_correction::dim,
                A::var_mean_correction::dim, A::std_mean_correction::dim);
  static constexpr Param kDim =
      sameParam(A::var_dim::dim, A::std_dim::dim, A::var_mean_dim::dim,
                A::std_mean_dim::dim);
  static constexpr Param kDimUnbiased =
      sameParam(A::var_dim::unbiased, A::std_dim::unbiased,
                A::var_mean_dim::unbiased, A::std_mean_dim::unbiased);
  static constexpr Param kKeepdim =
      sameParam(A::var_dim::keepdim, A::std_dim::keepdim,
                A::var_mean_dim::keepdim, A::std_mean_dim::keepdim);
  static constexpr Param kUnbiased =
      sameParam(A::var::unbiased, A::std::unbiased, A::var_mean::unbiased,
                A::std_mean::unbiased);
  Value x = l.subject();
  Type elem = l.resultElementType();
  if (!x || !elem || !isFloat(elem))
    return l.fail("needs a float tensor");
  StringRef target = l.target();
  int64_t rank = rankOf(x);
  Attribute dimAttr;
  bool keepdim = false;
  double correction = 1;
  if (target.ends_with(".correction")) {
    dimAttr = l.arg(kCorrectionDim);
    if (Attribute c = l.arg(A::var_correction::correction); c && !l.isNone(c))
      correction = l.constFloat(c).value_or(1);
    keepdim = l.constBool(A::var_correction::keepdim).value_or(false);
  } else if (target.ends_with(".dim")) {
    dimAttr = l.arg(kDim);
    correction = l.constBool(kDimUnbiased).value_or(true) ? 1 : 0;
    keepdim = l.constBool(kKeepdim).value_or(false);
  } else {
    correction = l.constBool(kUnbiased).value_or(true) ? 1 : 0;
  }
  auto dims = reducedDims(l, dimAttr, rank);
  if (!dims)
    return l.fail("dims must be constants");
  x = l.castTensor(x, elem);
  Value count = l.countOver(x, *dims, elem);
  auto [mean, ss] = meanAndSquares(l, x, *dims, keepdim, count, elem);
  // PyTorch divides by max(0, N - correction): no elements give 0 / 0, a
  // NaN, where N - correction alone would give -0.
  Value denom = arith::MaximumFOp::create(
      l.b, l.loc,
      arith::SubFOp::create(l.b, l.loc, count, l.constant(elem, correction)),
      l.constant(elem, 0));
  Value r = l.elementwise(
      {ss}, elem, elem, [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
        Value q = arith::DivFOp::create(b, loc, v[0], denom);
        return isStd ? math::SqrtOp::create(b, loc, q).getResult() : q;
      });
  if (!withMean)
    return l.replace(r);
  // The mean keeps the reduced dims (size 1): dropped unless keepdim.
  if (!keepdim)
    mean = dropReducedDims(l, mean, *dims);
  return l.replaceTuple({r, mean});
}
LogicalResult lowerVar(Lowering &l) { return lowerVarStd(l, false, false); }
LogicalResult lowerStd(Lowering &l) { return lowerVarStd(l, true, false); }
LogicalResult lowerVarMean(Lowering &l) { return lowerVarStd(l, false, true); }
LogicalResult lowerStdMean(Lowering &l) { return lowerVarStd(l, true, true); }

/// cosine_similarity(x1, x2, dim, eps): sum(x1 x2) / sqrt(max(sum(x1^2)
/// sum(x2^2), eps^2)) along dim, the inputs broadcast against each other.
LogicalResult lowerCosineSimilarity(Lowering &l) {
  using P = args::aten::cosine_similarity;
  Value x1 = l.tensor(P::x1), x2 = l.tensor(P::x2);
  Type elem = l.resultElementType();
  auto eps = l.constFloat(l.arg(P::eps));
  if (!x1 || !x2 || !elem || !isFloat(elem) || !eps)
    return l.fail("needs float tensors and a constant eps");
  // The products first: they broadcast the inputs to one shape.
  Value p12 = l.elementwise(
      {x1, x2}, elem, elem, [](OpBuilder &b, Location loc, ValueRange v) {
        return arith::MulFOp::create(b, loc, v[0], v[1]).getResult();
      });
  // x^2 broadcast to the products' shape (read alongside them when the
  // input is smaller).
  auto square = [&](Value x, Value like) {
    SmallVector<Value> inputs = {l.castTensor(x, elem)};
    if (x.getType() != like.getType())
      inputs.push_back(like);
    return l.elementwise(
        inputs, elem, elem, [](OpBuilder &b, Location loc, ValueRange v) {
          return arith::MulFOp::create(b, loc, v[0], v[0]).getResult();
        });
  };
  int64_t rank = rankOf(p12);
  auto dim = l.normDim(l.arg(P::dim), rank);
  if (!dim)
    return l.fail("dim must be a constant");
  Value w12 = sumOver(l, p12, {*dim}, false, elem);
  Value w1 = sumOver(l, square(x1, p12), {*dim}, false, elem);
  Value w2 = sumOver(l, square(x2, p12), {*dim}, false, elem);
  Value floor = l.constant(elem, *eps * *eps);
  return l.replace(l.elementwise(
      {w12, w1, w2}, elem, elem,
      [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
        Value n = arith::MaximumFOp::create(
            b, loc, arith::MulFOp::create(b, loc, v[1], v[2]), floor);
        return arith::DivFOp::create(b, loc, v[0],
                                     math::SqrtOp::create(b, loc, n));
      }));
}

/// softmax/log_softmax(self, dim, dtype).
LogicalResult lowerSoftmax(Lowering &l, bool isLog) {
  static constexpr Param kDim = sameParam(args::aten::softmax_int_::dim,
                                          args::aten::log_softmax_int_::dim);
  Value x = l.subject();
  Type elem = l.resultElementType();
  if (!x || !elem || !isFloat(elem))
    return l.fail("needs a float tensor");
  int64_t rank = rankOf(x);
  auto dim = l.normDim(l.arg(kDim), rank);
  if (!dim)
    return l.fail("dim must be a constant");
  x = l.castTensor(x, elem);
  if (rank == 0)
    return l.replace(l.elementwise({x}, elem, elem,
                                   [&](OpBuilder &b, Location loc, ValueRange) {
                                     return l.constant(elem, isLog ? 0 : 1);
                                   }));
  Value max =
      l.reduce(x, {*dim}, true, lowest(l, elem, true),
               [](OpBuilder &b, Location loc, Value acc, Value v) {
                 return arith::MaximumFOp::create(b, loc, acc, v).getResult();
               });
  Value shifted = l.elementwise(
      {x, max}, elem, elem, [](OpBuilder &b, Location loc, ValueRange v) {
        return arith::SubFOp::create(b, loc, v[0], v[1]).getResult();
      });
  Value e = l.elementwise(
      {shifted}, elem, elem, [](OpBuilder &b, Location loc, ValueRange v) {
        return math::ExpOp::create(b, loc, v[0]).getResult();
      });
  Value sum = sumOver(l, e, {*dim}, true, elem);
  if (isLog)
    return l.replace(l.elementwise(
        {shifted, sum}, elem, elem,
        [](OpBuilder &b, Location loc, ValueRange v) {
          return arith::SubFOp::create(b, loc, v[0],
                                       math::LogOp::create(b, loc, v[1]))
              .getResult();
        }));
  return l.replace(divideBy(l, e, sum));
}
LogicalResult lowerSoftmaxFn(Lowering &l) { return lowerSoftmax(l, false); }
LogicalResult lowerLogSoftmax(Lowering &l) { return lowerSoftmax(l, true); }

/// Reshapes a per-channel vector (C) to broadcast along dim 1 of `rank`.
Value channelView(Lowering &l, Value v, int64_t rank) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<OpFoldResult> sizes = {l.b.getIndexAttr(1), l.dim(v, 0)};
  SmallVector<int64_t> shape = {1, type.getDimSize(0)};
  for (int64_t d = 2; d < rank; ++d) {
    sizes.push_back(l.b.getIndexAttr(1));
    shape.push_back(1);
  }
  SmallVector<ReassociationIndices> groups = {{}};
  for (int64_t d = 0; d < rank; ++d)
    groups[0].push_back(d);
  return tensor::ExpandShapeOp::create(
      l.b, l.loc, RankedTensorType::get(shape, type.getElementType()), v,
      groups, sizes);
}

/// batch_norm(input, weight, bias, running_mean, running_var, training,
/// momentum, eps, cudnn_enabled): inference mode; training mode without
/// running statistics (nothing to update: a BatchNorm module with
/// track_running_stats=False, which normalizes by the batch's statistics
/// in eval mode too) as native_batch_norm's.
LogicalResult lowerBatchNorm(Lowering &l) {
  using P = args::aten::batch_norm;
  Value x = l.tensor(P::input);
  Type elem = l.resultElementType();
  if (!x || !elem || !isFloat(elem))
    return l.fail("needs a float tensor");
  std::optional<bool> training = l.constBool(P::training);
  if (training && *training && l.isNone(P::running_mean) &&
      l.isNone(P::running_var)) {
    SmallVector<Attribute> args;
    SmallVector<Value> operands;
    for (Param p : {P::input, P::weight, P::bias, P::running_mean,
                    P::running_var, P::training, P::momentum, P::eps}) {
      Attribute a = l.arg(p);
      if (!a)
        return l.fail("batch_norm takes 9 arguments (input, weight, bias, "
                      "running_mean, running_var, training, momentum, eps, "
                      "cudnn_enabled)");
      if (isa<NodeAttr>(a)) {
        args.push_back(NodeAttr::get(l.b.getContext(), operands.size()));
        operands.push_back(l.value(a));
      } else {
        args.push_back(a);
      }
    }
    Type any = UnrankedTensorType::get(elem);
    SmallVector<Value> parts =
        l.lowerCallParts("aten::native_batch_norm", args, operands,
                         TupleType::get(l.b.getContext(), {any, any, any}));
    return parts.empty() ? failure() : l.replace(parts[0]);
  }
  if (training.value_or(true))
    return l.fail("batch_norm in training mode with running statistics "
                  "updates them in place, which compiled code does not; "
                  "compile the model in eval mode");
  if (l.isNone(P::running_mean) || l.isNone(P::running_var))
    return l.fail("batch_norm needs running statistics");
  int64_t rank = rankOf(x);
  if (rank < 2)
    return l.fail("batch_norm needs a channel dim");
  auto eps = l.constFloat(l.arg(P::eps));
  if (!eps)
    return l.fail("eps must be a constant");
  // PyTorch's inference form (batch_norm_cpu_collect_linear_and_constant
  // _terms): per channel alpha = weight / sqrt(var + eps) and beta = bias -
  // mean * alpha, computed once on the C-vectors; each element is then
  // x * alpha + beta (no square root or division per element). In f32 for
  // f16 and bf16 tensors too (PyTorch's opmath): x * alpha and beta cancel
  // where x is near the mean, which a half-precision alpha and beta would
  // not survive; the result is rounded once.
  Value mean = l.tensor(P::running_mean), var = l.tensor(P::running_var);
  Value weight = l.isNone(P::weight) ? Value() : l.tensor(P::weight);
  Value bias = l.isNone(P::bias) ? Value() : l.tensor(P::bias);
  if (!mean || !var || (!l.isNone(P::weight) && !weight) ||
      (!l.isNone(P::bias) && !bias))
    return failure();
  x = l.castTensor(x, elem);
  Type compute =
      elem.getIntOrFloatBitWidth() < 32 ? Type(l.b.getF32Type()) : elem;
  Value epsValue = l.constant(compute, *eps);
  SmallVector<Value> alphaInputs = {var};
  if (weight)
    alphaInputs.push_back(weight);
  Value alpha = l.elementwise(
      alphaInputs, compute, compute,
      [&](OpBuilder &b, Location loc, ValueRange v) {
        Value std = math::SqrtOp::create(
            b, loc, arith::AddFOp::create(b, loc, v[0], epsValue));
        Value invstd = arith::DivFOp::create(
            b, loc, constantOf(b, loc, v[0].getType(), 1.0), std);
        return v.size() > 1 ? arith::MulFOp::create(b, loc, invstd, v[1])
                            : invstd;
      });
  SmallVector<Value> betaInputs = {mean, alpha};
  if (bias)
    betaInputs.push_back(bias);
  Value beta = l.elementwise(
      betaInputs, compute, compute,
      [&](OpBuilder &b, Location loc, ValueRange v) {
        Value shifted = arith::MulFOp::create(b, loc, v[0], v[1]);
        if (v.size() > 2)
          return Value(arith::SubFOp::create(b, loc, v[2], shifted));
        return Value(arith::NegFOp::create(b, loc, shifted));
      });
  return l.replace(l.elementwise(
      {x, channelView(l, alpha, rank), channelView(l, beta, rank)}, compute,
      elem, [&](OpBuilder &b, Location loc, ValueRange v) {
        return arith::AddFOp::create(
            b, loc, arith::MulFOp::create(b, loc, v[0], v[1]), v[2]);
      }));
}

/// layer_norm(input, normalized_shape, weight, bias, eps, cudnn_enable).
LogicalResult lowerLayerNorm(Lowering &l) {
  using P = args::aten::layer_norm;
  Value x = l.tensor(P::input);
  Type elem = l.resultElementType();
  auto shape = l.intList(P::normalized_shape);
  auto eps = l.constFloat(l.arg(P::eps));
  if (!x || !elem || !isFloat(elem) || !shape || !eps)
    return l.fail("needs a float tensor and constant shape and eps");
  int64_t rank = rankOf(x), k = shape->size();
  if (k > rank || k == 0)
    return l.fail("normalized_shape does not fit the input");
  SmallVector<int64_t> dims;
  for (int64_t d = rank - k; d < rank; ++d)
    dims.push_back(d);
  x = l.castTensor(x, elem);
  Value count = l.countOver(x, dims, elem);
  auto [mean, squares] = meanAndSquares(l, x, dims, true, count, elem);
  Value var = divideBy(l, squares, count);
  Value weight = l.isNone(P::weight) ? Value() : l.tensor(P::weight);
  Value bias = l.isNone(P::bias) ? Value() : l.tensor(P::bias);
  if ((!l.isNone(P::weight) && !weight) || (!l.isNone(P::bias) && !bias))
    return failure();
  return l.replace(normalizeAffine(l, x, mean, var, *eps, weight, bias, elem));
}

/// `v` (C) reshaped to `shape` (its other dims 1), to broadcast along the
/// dims of `shape` whose product is C.
Value vectorView(Lowering &l, Value v, ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<ReassociationIndices> groups = {{}};
  for (int64_t d = 0; d < int64_t(shape.size()); ++d)
    groups[0].push_back(d);
  return tensor::ExpandShapeOp::create(
      l.b, l.loc, RankedTensorType::get(shape, type.getElementType()), v,
      groups);
}

/// The optional per-channel tensor of argument `p` (weight, bias), null
/// when None; sets `bad` when it is given but not a static vector of `c`.
Value channelVector(Lowering &l, Param p, int64_t c, bool &bad) {
  if (l.isNone(p))
    return {};
  Value v = l.tensor(p);
  auto type = v ? dyn_cast<RankedTensorType>(v.getType()) : nullptr;
  if (!type || type.getRank() != 1 || type.getDimSize(0) != c) {
    bad = true;
    return {};
  }
  return v;
}

/// group_norm(input, num_groups, weight, bias, eps, cudnn_enabled): the
/// input (N, C, *) viewed as (N, G, C/G, *), normalized over all but its
/// first two dims, with the per-channel affine applied in that view.
LogicalResult lowerGroupNorm(Lowering &l) {
  using P = args::aten::group_norm;
  Value x = l.tensor(P::input);
  Type elem = l.resultElementType();
  auto groups = l.constInt(P::num_groups);
  auto eps = l.constFloat(l.arg(P::eps));
  if (!x || !elem || !isFloat(elem) || !groups || !eps)
    return l.fail("needs a float tensor and constant num_groups and eps");
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  if (rank < 2 || type.isDynamicDim(1))
    return l.fail("needs a static channel dim");
  int64_t channels = type.getDimSize(1), g = *groups;
  if (g <= 0 || channels % g)
    return l.fail("num_groups must divide the channels");
  bool bad = false;
  Value weight = channelVector(l, P::weight, channels, bad);
  Value bias = channelVector(l, P::bias, channels, bad);
  if (bad)
    return l.fail("weight and bias must be vectors of the channels");
  x = l.castTensor(x, elem);
  // (N, C, *) -> (N, G, C/G, *)
  SmallVector<int64_t> shape = {type.getDimSize(0), g, channels / g};
  SmallVector<OpFoldResult> sizes = {l.dim(x, 0), l.b.getIndexAttr(g),
                                     l.b.getIndexAttr(channels / g)};
  SmallVector<ReassociationIndices> reassociation = {{0}, {1, 2}};
  for (int64_t d = 2; d < rank; ++d) {
    shape.push_back(type.getDimSize(d));
    sizes.push_back(l.dim(x, d));
    reassociation.push_back({d + 1});
  }
  Value grouped = tensor::ExpandShapeOp::create(
      l.b, l.loc, RankedTensorType::get(shape, elem), x, reassociation, sizes);
  SmallVector<int64_t> dims, affine = {1, g, channels / g};
  for (int64_t d = 2; d <= rank; ++d)
    dims.push_back(d);
  affine.append(rank - 2, 1);
  Value count = l.countOver(grouped, dims, elem);
  auto [mean, squares] = meanAndSquares(l, grouped, dims, true, count, elem);
  Value var = divideBy(l, squares, count);
  if (weight)
    weight = vectorView(l, weight, affine);
  if (bias)
    bias = vectorView(l, bias, affine);
  Value y = normalizeAffine(l, grouped, mean, var, *eps, weight, bias, elem);
  return l.replace(
      tensor::CollapseShapeOp::create(l.b, l.loc, y, reassociation));
}

/// instance_norm(input, weight, bias, running_mean, running_var,
/// use_input_stats, momentum, eps, cudnn_enabled): the statistics of each
/// (sample, channel) over the spatial dims, or the running ones.
LogicalResult lowerInstanceNorm(Lowering &l) {
  using P = args::aten::instance_norm;
  Value x = l.tensor(P::input);
  Type elem = l.resultElementType();
  auto useInputStats = l.constBool(P::use_input_stats);
  auto eps = l.constFloat(l.arg(P::eps));
  if (!x || !elem || !isFloat(elem) || !useInputStats || !eps)
    return l.fail("needs a float tensor and constant use_input_stats and eps");
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  if (rank < 3 || type.isDynamicDim(1))
    return l.fail("needs a batch, a static channel dim and spatial dims");
  if (*useInputStats && !l.isNone(P::running_mean))
    return l.fail("updating running statistics is not supported");
  int64_t channels = type.getDimSize(1);
  bool bad = false;
  Value weight = channelVector(l, P::weight, channels, bad);
  Value bias = channelVector(l, P::bias, channels, bad);
  Value runningMean, runningVar;
  if (!*useInputStats) {
    runningMean = channelVector(l, P::running_mean, channels, bad);
    runningVar = channelVector(l, P::running_var, channels, bad);
    if (!runningMean || !runningVar)
      bad = true;
  }
  if (bad)
    return l.fail("weight, bias and running statistics must be vectors of "
                  "the channels");
  x = l.castTensor(x, elem);
  if (weight)
    weight = channelView(l, weight, rank);
  if (bias)
    bias = channelView(l, bias, rank);
  if (!*useInputStats)
    return l.replace(normalizeAffine(l, x, channelView(l, runningMean, rank),
                                     channelView(l, runningVar, rank), *eps,
                                     weight, bias, elem));
  SmallVector<int64_t> dims;
  for (int64_t d = 2; d < rank; ++d)
    dims.push_back(d);
  Value count = l.countOver(x, dims, elem);
  auto [mean, squares] = meanAndSquares(l, x, dims, true, count, elem);
  Value var = divideBy(l, squares, count);
  return l.replace(normalizeAffine(l, x, mean, var, *eps, weight, bias, elem));
}

} // namespace

void mlir::fx::lowering::addReductionLowerings(llvm::StringMap<LowerFn> &t) {
  addLowering(t, {"aten::sum", "aten::sum.dim_IntList"}, lowerSum);
  addLowering(t, {"aten::nansum"}, lowerNansum);
  addLowering(t, {"aten::count_nonzero", "aten::count_nonzero.dim_IntList"},
              lowerCountNonzero);
  addLowering(t, {"aten::mean", "aten::mean.dim"}, lowerMean);
  addLowering(t, {"aten::amax", "aten::max"}, lowerAmax);
  addLowering(t, {"aten::amin", "aten::min"}, lowerAmin);
  addLowering(t, {"aten::max.dim"}, lowerMaxDim);
  addLowering(t, {"aten::min.dim"}, lowerMinDim);
  addLowering(t, {"aten::argmax"}, lowerArgmax);
  addLowering(t, {"aten::argmin"}, lowerArgmin);
  addLowering(t, {"aten::var", "aten::var.dim", "aten::var.correction"},
              lowerVar);
  addLowering(t, {"aten::std", "aten::std.dim", "aten::std.correction"},
              lowerStd);
  addLowering(
      t, {"aten::var_mean", "aten::var_mean.dim", "aten::var_mean.correction"},
      lowerVarMean);
  addLowering(
      t, {"aten::std_mean", "aten::std_mean.dim", "aten::std_mean.correction"},
      lowerStdMean);
  addLowering(t, {"aten::cosine_similarity"}, lowerCosineSimilarity);
  addLowering(t,
              {"aten::sort", "aten::sort.stable", "aten::argsort",
               "aten::argsort.stable", "aten::topk"},
              lowerSortLike);
  addLowering(t, {"aten::softmax.int", "aten::_softmax"}, lowerSoftmaxFn);
  addLowering(t, {"aten::log_softmax.int", "aten::_log_softmax"},
              lowerLogSoftmax);
  addLowering(t, {"aten::batch_norm"}, lowerBatchNorm);
  addLowering(t, {"aten::layer_norm"}, lowerLayerNorm);
  addLowering(t, {"aten::group_norm"}, lowerGroupNorm);
  addLowering(t, {"aten::prod", "aten::prod.dim_int"}, lowerProd);
  addLowering(t, {"aten::all", "aten::all.dim"}, lowerAll);
  addLowering(t, {"aten::any", "aten::any.dim"}, lowerAny);
  addLowering(t, {"aten::logsumexp"}, lowerLogsumexp);
  addLowering(t, {"aten::linalg_vector_norm"}, lowerVectorNorm);
  addLowering(t, {"aten::dist"}, lowerDist);
  addLowering(t, {"aten::linalg_vecdot"}, lowerVecdot);
  addLowering(t, {"aten::nanmean"}, lowerNanmean);
  addLowering(t, {"aten::cumsum"}, lowerCumsum);
  addLowering(t, {"aten::cumprod"}, lowerCumprod);
  addLowering(t, {"aten::logcumsumexp"}, lowerLogcumsumexp);
  addLowering(t, {"aten::cummax"}, lowerCummax);
  addLowering(t, {"aten::cummin"}, lowerCummin);
  addLowering(t, {"aten::instance_norm"}, lowerInstanceNorm);
}
