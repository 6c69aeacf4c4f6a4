//===- Statistics.cpp - Order statistics, covariance and distances --------===//
//
// kthvalue, median and nanmedian from sort; cov and corrcoef from a matrix
// product of the centered observations; pairwise_distance, pdist and cdist
// from linalg_vector_norm of differences, as are frobenius_norm and
// weight_norm's _weight_norm; bilinear as an einsum. Each is
// built from other targets' lowerings (Lowering::lowerCall).
//
//===----------------------------------------------------------------------===//

#include "Compose.h"

#include "mlir/Dialect/Math/IR/Math.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::fx;
using namespace mlir::fx::lowering;
using namespace mlir::fx::lowering::compose;

namespace {

/// sort(x, dim) ascending (NaN last): (values, indices).
SmallVector<Value> sortAlong(Lowering &l, Value x, int64_t dim) {
  Type elem = cast<RankedTensorType>(x.getType()).getElementType();
  Type types[] = {tensorOf(elem), tensorOf(l.b.getI64Type())};
  return l.lowerCallParts("aten::sort",
                          {ref(l, 0), int64(l, dim), l.b.getBoolAttr(false)},
                          {x}, TupleType::get(contextOf(l), types));
}

/// The number of NaNs along `dim` of `x` (i64, the dim kept with size 1;
/// zeros for integers).
Value nanCounts(Lowering &l, Value x, int64_t dim) {
  Type elem = cast<RankedTensorType>(x.getType()).getElementType();
  Type i64 = l.b.getI64Type();
  Value isNaN = l.elementwise(
      {x}, elem, i64, [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
        if (!isFloat(elem))
          return constantOf(b, loc, i64, 0);
        Value nan = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO,
                                          v[0], v[0]);
        return arith::ExtUIOp::create(b, loc, i64, nan);
      });
  return l.lowerCall(
      "aten::sum.dim_IntList",
      {ref(l, 0), ints(l, {dim}), l.b.getBoolAttr(true), none(l)}, {isNaN},
      tensorOf(i64));
}

/// kthvalue(self, k, dim, keepdim): the k-th smallest along dim and its
/// index, from sort.
LogicalResult lowerKthvalue(Lowering &l) {
  using P = args::aten::kthvalue;
  Value x = l.tensor(P::self);
  auto k = l.constInt(P::k);
  auto keepdim = l.constBool(P::keepdim);
  if (!x || !k || !keepdim)
    return l.fail("needs a tensor and constant k and keepdim");
  int64_t rank = rankOf(x);
  auto dim = l.normDim(l.arg(P::dim), std::max<int64_t>(rank, 1));
  if (!dim)
    return l.fail("dim must be a constant");
  if (rank == 0) {
    if (*k != 1)
      return l.fail("k must be 1 for a scalar");
    return l.replaceTuple({x, l.filled({}, l.constant(l.b.getI64Type(), 0))});
  }
  int64_t n = staticDim(x, *dim);
  if (ShapedType::isDynamic(n) || *k < 1 || *k > n)
    return l.fail("k must be within the (static) dim");
  SmallVector<Value> sorted = sortAlong(l, x, *dim);
  if (sorted.size() != 2)
    return failure();
  SmallVector<Value> picked;
  for (Value v : sorted) {
    Value one = sliceOf(l, v, *dim, *k - 1, *k);
    if (!one)
      return failure();
    picked.push_back(*keepdim ? one : l.squeeze(one, *dim));
  }
  return l.replaceTuple(picked);
}

/// median / nanmedian, over all items or along dim (with indices): the
/// lower middle of the sorted items. median's is NaN where a NaN is (the
/// first NaN's index); nanmedian's is the middle of the others (NaN when
/// all are).
LogicalResult lowerMedian(Lowering &l) {
  // Parameters as aten::median names them, at the same positions in
  // aten::median.dim and 2 more.
  using P = args::aten::median;
  Value x = l.tensor(P::self);
  Type elem = l.resultElementType(0);
  if (!x || !elem)
    return l.fail("needs a typed tensor");
  StringRef target = l.target();
  bool ignoreNaN = target.starts_with("aten::nanmedian");
  bool alongDim = target.ends_with(".dim");
  int64_t dim = 0;
  bool keepdim = false;
  if (alongDim) {
    static constexpr Param kDim =
        sameParam(args::aten::median_dim::dim, args::aten::nanmedian_dim::dim);
    static constexpr Param kKeepdim = sameParam(
        args::aten::median_dim::keepdim, args::aten::nanmedian_dim::keepdim);
    auto d = l.normDim(l.arg(kDim), std::max<int64_t>(rankOf(x), 1));
    auto k = l.constBool(kKeepdim);
    if (!d || !k)
      return l.fail("dim and keepdim must be constants");
    dim = *d;
    keepdim = *k;
  }
  if (!alongDim || rankOf(x) == 0) {
    x = flattened(l, x);
    if (!x)
      return failure();
    dim = 0;
  }
  int64_t n = staticDim(x, dim);
  if (ShapedType::isDynamic(n) || n == 0)
    return l.fail("needs a non-empty dim of static size");
  SmallVector<Value> sorted = sortAlong(l, x, dim);
  if (sorted.size() != 2)
    return failure();
  // The NaNs along dim, counted (none in integers).
  Type i64 = l.b.getI64Type();
  Value nans = nanCounts(l, x, dim);
  if (!nans)
    return failure();
  // The sorted position picked: NaNs sort last, the first at n - nans.
  Value position = l.elementwise(
      {nans}, i64, i64, [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
        auto c = [&](int64_t k) { return constantOf(b, loc, i64, k); };
        Value kept = arith::SubIOp::create(b, loc, c(n), v[0]);
        Value any = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt,
                                          v[0], c(0));
        if (!ignoreNaN)
          return arith::SelectOp::create(b, loc, any, kept, c((n - 1) / 2));
        Value middle = arith::DivSIOp::create(
            b, loc, arith::SubIOp::create(b, loc, kept, c(1)), c(2));
        return arith::SelectOp::create(
            b, loc,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, kept,
                                  c(0)),
            middle, c(0));
      });
  SmallVector<Value> picked;
  for (Value v : sorted) {
    Type t = cast<RankedTensorType>(v.getType()).getElementType();
    Value one =
        l.lowerCall("aten::gather", {ref(l, 0), int64(l, dim), ref(l, 1)},
                    {v, position}, tensorOf(t));
    if (!one)
      return failure();
    picked.push_back(alongDim && keepdim && rankOf(l.tensor(P::self)) > 0
                         ? one
                         : l.squeeze(one, dim));
  }
  if (!alongDim)
    return l.replace(picked[0]);
  return l.replaceTuple(picked);
}

/// quantile/nanquantile(self, q, dim, keepdim, interpolation), as ATen
/// computes it: the values sorted along dim (NaN last); the rank of q in
/// a slice is q * (n - 1) (n - 1 itself when the slice has a NaN), or for
/// nanquantile q * (count of non-NaN - 1) (0 when negative: all NaN gives
/// NaN); 'lower'/'higher'/'nearest' round it down/up/to even, 'linear'
/// and 'midpoint' lerp between the values below and above it with weight
/// rank - floor(rank) or 0.5. A 1-D q makes the result's first dim;
/// without dim, self is flattened (keepdim: all dims of size 1).
LogicalResult lowerQuantile(Lowering &l) {
  // Parameters as aten::nanquantile names them, at the same positions in
  // aten::nanquantile.scalar and 2 more.
  using P = args::aten::nanquantile;
  Value self = l.tensor(P::self);
  Type elem = l.resultElementType();
  if (!self || !elem || !isFloat(elem) ||
      cast<RankedTensorType>(self.getType()).getElementType() != elem)
    return l.fail("needs a float tensor");
  StringRef target = l.target();
  bool ignoreNaN = target.starts_with("aten::nanquantile");
  auto keepdim = l.constBool(P::keepdim);
  Attribute modeAttr = l.kwarg("interpolation");
  StringRef mode =
      modeAttr ? cast_or_null<StringAttr>(modeAttr).getValue() : "linear";
  if (!keepdim ||
      !llvm::is_contained({"linear", "lower", "higher", "midpoint", "nearest"},
                          mode))
    return l.fail("needs a constant keepdim and interpolation 'linear', "
                  "'lower', 'higher', 'midpoint' or 'nearest'");
  int64_t selfRank = rankOf(self);
  bool allDims = l.isNone(P::dim) || selfRank == 0;
  Value x = self;
  int64_t dim = 0;
  if (allDims) {
    x = flattened(l, self);
    if (!x)
      return failure();
  } else {
    auto d = l.normDim(l.arg(P::dim), selfRank);
    if (!d)
      return l.fail("dim must be a constant");
    dim = *d;
  }
  int64_t rank = rankOf(x), n = staticDim(x, dim);
  if (ShapedType::isDynamic(n) || n == 0)
    return l.fail("needs a non-empty input, of static size along dim");
  for (int64_t d = 0; d < rank; ++d)
    if (ShapedType::isDynamic(staticDim(x, d)))
      return l.fail("needs static sizes");
  // q: a constant, or a tensor of self's dtype (checked in [0, 1] as it
  // runs, as ATen does).
  Value qTensor;
  std::optional<double> qConst;
  int64_t qCount = 0; // 0: no q dim
  if (target.ends_with(".scalar")) {
    qConst = l.constFloat(l.arg(P::q));
    if (!qConst || !(*qConst >= 0 && *qConst <= 1))
      return l.fail("q must be a constant in [0, 1]");
  } else {
    qTensor = l.tensor(P::q);
    if (!qTensor)
      return failure();
    if (cast<RankedTensorType>(qTensor.getType()).getElementType() != elem ||
        rankOf(qTensor) > 1)
      return l.fail("q must be a 0-D or 1-D tensor of self's dtype");
    if (rankOf(qTensor) == 1) {
      qCount = staticDim(qTensor, 0);
      if (ShapedType::isDynamic(qCount))
        return l.fail("q must have a static size");
    }
    Value outside = l.elementwise(
        {qTensor}, elem, l.b.getI1Type(),
        [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
          Value inside = arith::AndIOp::create(
              b, loc,
              arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, v[0],
                                    constantOf(b, loc, elem, 0)),
              arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLE, v[0],
                                    constantOf(b, loc, elem, 1)));
          return arith::XOrIOp::create(
              b, loc, inside,
              arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1));
        });
    l.check(outside, "RuntimeError: quantile() q values must be in the "
                     "range [0, 1]");
  }
  SmallVector<Value> sorted = sortAlong(l, x, dim);
  if (sorted.size() != 2)
    return failure();
  Value values = sorted[0];
  // The NaNs of each slice (keepdim).
  Type i64 = l.b.getI64Type();
  Value nans = nanCounts(l, x, dim);
  if (!nans)
    return failure();
  // One generic over (q?, the slice dims with dim of size 1).
  OpBuilder &b = l.b;
  int64_t lead = qCount ? 1 : 0, loops = lead + rank;
  SmallVector<OpFoldResult> sizes;
  if (qCount)
    sizes.push_back(b.getIndexAttr(qCount));
  SmallVector<AffineExpr> sliceExprs;
  for (int64_t d = 0; d < rank; ++d) {
    sizes.push_back(b.getIndexAttr(d == dim ? 1 : staticDim(x, d)));
    sliceExprs.push_back(b.getAffineDimExpr(lead + d));
  }
  SmallVector<Value> inputs = {nans};
  SmallVector<AffineMap> maps = {
      AffineMap::get(loops, 0, sliceExprs, b.getContext())};
  if (qTensor) {
    inputs.push_back(qTensor);
    maps.push_back(
        AffineMap::get(loops, 0,
                       qCount ? ArrayRef<AffineExpr>{b.getAffineDimExpr(0)}
                              : ArrayRef<AffineExpr>{},
                       b.getContext()));
  }
  Value init = l.empty(sizes, elem);
  maps.push_back(AffineMap::getMultiDimIdentityMap(loops, b.getContext()));
  SmallVector<utils::IteratorType> iterators(loops,
                                             utils::IteratorType::parallel);
  Value r =
      linalg::GenericOp::create(
          b, l.loc, TypeRange{init.getType()}, inputs, ValueRange{init}, maps,
          iterators, "", "",
          [&](OpBuilder &nb, Location loc, ValueRange v) {
            auto c = [&](double k) { return constantOf(nb, loc, elem, k); };
            Value q = qTensor ? v[1] : c(*qConst);
            Value nanCount = v[0];
            Value rankF;
            if (ignoreNaN) {
              Value valid = arith::SubIOp::create(
                  nb, loc, constantOf(nb, loc, i64, n), nanCount);
              Value m = arith::SIToFPOp::create(
                  nb, loc, elem,
                  arith::SubIOp::create(nb, loc, valid,
                                        constantOf(nb, loc, i64, 1)));
              rankF = arith::MulFOp::create(nb, loc, q, m);
              Value negative = arith::CmpFOp::create(
                  nb, loc, arith::CmpFPredicate::OLT, rankF, c(0));
              rankF = arith::SelectOp::create(nb, loc, negative, c(0), rankF);
            } else {
              Value any =
                  arith::CmpIOp::create(nb, loc, arith::CmpIPredicate::sgt,
                                        nanCount, constantOf(nb, loc, i64, 0));
              rankF = arith::SelectOp::create(
                  nb, loc, any, c(double(n - 1)),
                  arith::MulFOp::create(nb, loc, q, c(double(n - 1))));
            }
            if (mode == "lower")
              rankF = math::FloorOp::create(nb, loc, rankF);
            else if (mode == "higher")
              rankF = math::CeilOp::create(nb, loc, rankF);
            else if (mode == "nearest")
              rankF = math::RoundEvenOp::create(nb, loc, rankF);
            // The value at a sorted position of this slice.
            auto at = [&](Value position) -> Value {
              SmallVector<Value> coords;
              for (int64_t d = 0; d < rank; ++d)
                coords.push_back(
                    d == dim ? position
                             : linalg::IndexOp::create(nb, loc, lead + d)
                                   .getResult());
              return tensor::ExtractOp::create(nb, loc, values, coords);
            };
            auto toIndex = [&](Value f) -> Value {
              Value i = arith::FPToSIOp::create(nb, loc, i64, f);
              return clampedIndex(nb, loc, i,
                                  arith::ConstantIndexOp::create(nb, loc, n));
            };
            Value below = at(toIndex(rankF));
            if (mode != "linear" && mode != "midpoint") {
              linalg::YieldOp::create(nb, loc, below);
              return;
            }
            Value weight =
                mode == "midpoint"
                    ? c(0.5)
                    : arith::SubFOp::create(
                          nb, loc, rankF, math::FloorOp::create(nb, loc, rankF))
                          .getResult();
            Value above = at(toIndex(math::CeilOp::create(nb, loc, rankF)));
            // ATen's lerp: from below when the weight is under 0.5, from
            // above otherwise.
            Value diff = arith::SubFOp::create(nb, loc, above, below);
            Value low = arith::AddFOp::create(
                nb, loc, below, arith::MulFOp::create(nb, loc, weight, diff));
            Value high = arith::SubFOp::create(
                nb, loc, above,
                arith::MulFOp::create(
                    nb, loc, diff,
                    arith::SubFOp::create(nb, loc, c(1), weight)));
            Value small = arith::CmpFOp::create(
                nb, loc, arith::CmpFPredicate::OLT,
                math::AbsFOp::create(nb, loc, weight), c(0.5));
            linalg::YieldOp::create(
                nb, loc,
                arith::SelectOp::create(nb, loc, small, low, high).getResult());
          })
          .getResult(0);
  if (allDims) {
    // (q?, 1): keepdim gives one unit dim per dim of self.
    if (*keepdim) {
      SmallVector<OpFoldResult> shape;
      if (qCount)
        shape.push_back(b.getIndexAttr(qCount));
      shape.append(selfRank, b.getIndexAttr(1));
      return l.replace(l.reshape(r, shape));
    }
    return l.replace(l.squeeze(r, lead));
  }
  return l.replace(*keepdim ? r : l.squeeze(r, lead + dim));
}

/// cov(self, *, correction, fweights, aweights): ATen's covariance of the
/// rows (variables) over the columns (observations), weighted by
/// fweights * aweights; the result squeezed (a scalar for one variable).
/// corrcoef: cov divided by the product of the standard deviations,
/// clamped to [-1, 1].
LogicalResult lowerCov(Lowering &l) {
  // Parameters as aten::corrcoef names them, at the same positions in
  // aten::cov.
  using P = args::aten::corrcoef;
  Value x = l.tensor(P::self);
  Type r = l.resultElementType();
  if (!x || !r || !isFloat(r))
    return l.fail("needs a tensor and a float result");
  bool corr = l.target() == "aten::corrcoef";
  if (rankOf(x) > 2)
    return l.fail("needs a tensor of at most 2 dims");
  x = l.castTensor(x, r);
  if (rankOf(x) < 2)
    x = l.reshape(x, {l.b.getIndexAttr(1),
                      rankOf(x) ? l.dim(x, 0) : l.b.getIndexAttr(1)});
  int64_t vars = staticDim(x, 0), obs = staticDim(x, 1);
  if (ShapedType::isDynamic(vars) || ShapedType::isDynamic(obs))
    return l.fail("needs a static shape");
  int64_t correction = 1;
  Value fweights, aweights;
  if (!corr) {
    using Cov = args::aten::cov;
    if (Attribute c = l.arg(Cov::correction)) {
      auto value = l.constInt(c);
      if (!value)
        return l.fail("correction must be a constant");
      correction = *value;
    }
    for (auto [param, weights] : {std::pair(Cov::fweights, &fweights),
                                  std::pair(Cov::aweights, &aweights)})
      if (Attribute a = l.arg(param); a && !l.isNone(a)) {
        Value w = l.tensor(a);
        if (!w || rankOf(w) != 1 || staticDim(w, 0) != obs)
          return l.fail(Twine(param.name) + " must be a vector of one weight "
                                            "per observation");
        *weights = w;
      }
  }
  // The weights, their total and the normalization are computed in the
  // weights' type, as eager does (float32 aweights of float64 samples:
  // in float32); the rest in the result's.
  Type wt = r;
  if (aweights)
    if (Type a = cast<RankedTensorType>(aweights.getType()).getElementType();
        isFloat(a))
      wt = a;
  if (fweights)
    fweights = l.castTensor(fweights, wt);
  if (aweights)
    aweights = l.castTensor(aweights, wt);
  auto binaryIn = [&](Type t, Value a, Value b, auto fn) {
    return l.elementwise({a, b}, t, t,
                         [&](OpBuilder &nb, Location loc, ValueRange v) {
                           return fn(nb, loc, v[0], v[1]);
                         });
  };
  auto binary = [&](Value a, Value b, auto fn) {
    return binaryIn(r, a, b, fn);
  };
  auto mulf = [](OpBuilder &b, Location loc, Value p, Value q) -> Value {
    return arith::MulFOp::create(b, loc, p, q);
  };
  auto divf = [](OpBuilder &b, Location loc, Value p, Value q) -> Value {
    return arith::DivFOp::create(b, loc, p, q);
  };
  auto subf = [](OpBuilder &b, Location loc, Value p, Value q) -> Value {
    return arith::SubFOp::create(b, loc, p, q);
  };
  auto sumIn = [&](Type t, Value v, ArrayRef<int64_t> dims, bool keep) {
    return l.lowerCall(
        "aten::sum.dim_IntList",
        {ref(l, 0), ints(l, dims), l.b.getBoolAttr(keep), none(l)}, {v},
        tensorOf(t));
  };
  Value w = fweights && aweights ? binaryIn(wt, fweights, aweights, mulf)
            : fweights           ? fweights
                                 : aweights;
  // The weights' total and the mean of each variable.
  Value total, mean;
  if (w) {
    total = sumIn(wt, w, {0}, false);
    Value weighted = sumIn(r, binary(x, w, mulf), {1}, true);
    if (!total || !weighted)
      return failure();
    mean = binary(weighted, total, divf);
  } else {
    total = l.filled({}, l.constant(r, double(obs)));
    mean = sumIn(r, x, {1}, true);
    if (!mean)
      return failure();
    mean = binary(mean, total, divf);
  }
  // total - correction (* sum(w * aweights) / total with aweights), 0
  // when not positive.
  Type nt = w ? wt : r;
  Value norm;
  if (w && aweights && correction != 0) {
    Value both = sumIn(wt, binaryIn(wt, w, aweights, mulf), {0}, false);
    if (!both)
      return failure();
    norm = l.elementwise(
        {total, both}, wt, wt, [&](OpBuilder &b, Location loc, ValueRange v) {
          Value scaled = arith::MulFOp::create(
              b, loc, constantOf(b, loc, wt, double(correction)),
              arith::DivFOp::create(b, loc, v[1], v[0]));
          return arith::SubFOp::create(b, loc, v[0], scaled).getResult();
        });
  } else {
    norm = l.elementwise(
        {total}, nt, nt, [&](OpBuilder &b, Location loc, ValueRange v) {
          return arith::SubFOp::create(
                     b, loc, v[0], constantOf(b, loc, nt, double(correction)))
              .getResult();
        });
  }
  norm = l.elementwise(
      {norm}, nt, r, [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
        Value positive = arith::CmpFOp::create(
            b, loc, arith::CmpFPredicate::OGT, v[0], constantOf(b, loc, nt, 0));
        Value kept = arith::SelectOp::create(b, loc, positive, v[0],
                                             constantOf(b, loc, nt, 0));
        if (nt == r)
          return kept;
        if (nt.getIntOrFloatBitWidth() < r.getIntOrFloatBitWidth())
          return arith::ExtFOp::create(b, loc, r, kept);
        return arith::TruncFOp::create(b, loc, r, kept);
      });
  Value centered = binary(x, mean, subf);
  Value right = l.transpose(w ? binary(centered, w, mulf) : centered, {1, 0});
  Value c = l.lowerCall("aten::mm", {ref(l, 0), ref(l, 1)}, {centered, right},
                        tensorOf(r));
  if (!c)
    return failure();
  c = binary(c, norm, divf);
  if (corr) {
    // c / sqrt(diag(c))[:, None] / sqrt(diag(c))[None, :], in [-1, 1].
    Value diagonal = l.lowerCall(
        "aten::diagonal", {ref(l, 0), int64(l, 0), int64(l, 0), int64(l, 1)},
        {c}, tensorOf(r));
    if (!diagonal)
      return failure();
    Value deviation = l.elementwise(
        {diagonal}, r, r, [&](OpBuilder &b, Location loc, ValueRange v) {
          return math::SqrtOp::create(b, loc, v[0]).getResult();
        });
    Value rows =
        l.reshape(deviation, {l.b.getIndexAttr(vars), l.b.getIndexAttr(1)});
    Value cols =
        l.reshape(deviation, {l.b.getIndexAttr(1), l.b.getIndexAttr(vars)});
    c = l.elementwise(
        {c, rows, cols}, r, r,
        [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
          Value q = arith::DivFOp::create(
              b, loc, arith::DivFOp::create(b, loc, v[0], v[1]), v[2]);
          q = arith::MaximumFOp::create(b, loc, q, constantOf(b, loc, r, -1));
          return arith::MinimumFOp::create(b, loc, q, constantOf(b, loc, r, 1));
        });
  }
  if (vars == 1)
    return l.replace(l.reshape(c, {}));
  return l.replace(c);
}

/// linalg_vector_norm of `v` over `dim` with order `p`.
Value normAlong(Lowering &l, Value v, Attribute p, int64_t dim, bool keepdim,
                Type r) {
  return l.lowerCall("aten::linalg_vector_norm",
                     {ref(l, 0), p, ints(l, {dim}), l.b.getBoolAttr(keepdim)},
                     {v}, tensorOf(r));
}

/// pairwise_distance(x1, x2, p, eps, keepdim): the p-norm of x1 - x2 + eps
/// over the last dim, as ATen.
LogicalResult lowerPairwiseDistance(Lowering &l) {
  using P = args::aten::pairwise_distance;
  Value a = l.tensor(P::x1), b = l.tensor(P::x2);
  Type r = l.resultElementType();
  auto eps = l.constFloat(l.arg(P::eps));
  auto keepdim = l.constBool(P::keepdim);
  if (!a || !b || !r || !isFloat(r) || !eps || !keepdim)
    return l.fail("needs float tensors and constant eps and keepdim");
  int64_t rank = std::max(rankOf(a), rankOf(b));
  if (rank == 0)
    return l.fail("needs tensors of at least 1 dim");
  Value difference = l.elementwise(
      {a, b}, r, r, [&](OpBuilder &nb, Location loc, ValueRange v) {
        return arith::AddFOp::create(nb, loc,
                                     arith::SubFOp::create(nb, loc, v[0], v[1]),
                                     constantOf(nb, loc, r, *eps))
            .getResult();
      });
  Value v = normAlong(l, difference, l.arg(P::p), rank - 1, *keepdim, r);
  return v ? l.replace(v) : failure();
}

/// cdist(x1 (.., P, M), x2 (.., R, M), p): the p-norm distances (.., P, R)
/// of every pair of rows.
LogicalResult lowerCdist(Lowering &l) {
  using P = args::aten::cdist;
  Value a = l.tensor(P::x1), b = l.tensor(P::x2);
  Type r = l.resultElementType();
  if (!a || !b || !r || !isFloat(r) || rankOf(a) < 2 || rankOf(b) < 2)
    return l.fail("needs float tensors of at least 2 dims");
  Value rows = l.unsqueeze(l.castTensor(a, r), rankOf(a) - 1);
  Value others = l.unsqueeze(l.castTensor(b, r), rankOf(b) - 2);
  Value difference = l.elementwise(
      {rows, others}, r, r, [&](OpBuilder &nb, Location loc, ValueRange v) {
        return arith::SubFOp::create(nb, loc, v[0], v[1]).getResult();
      });
  Value v =
      normAlong(l, difference, l.arg(P::p), rankOf(difference) - 1, false, r);
  return v ? l.replace(v) : failure();
}

/// pdist(self (N, M), p): the distances of the rows i < j, in row-major
/// order of the pairs: cdist(self, self) read at those positions.
LogicalResult lowerPdist(Lowering &l) {
  using P = args::aten::pdist;
  Value x = l.tensor(P::self);
  Type r = l.resultElementType();
  if (!x || !r || !isFloat(r) || rankOf(x) != 2)
    return l.fail("needs a float matrix");
  int64_t n = staticDim(x, 0);
  if (ShapedType::isDynamic(n))
    return l.fail("needs a static number of rows");
  SmallVector<int64_t> positions;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i + 1; j < n; ++j)
      positions.push_back(i * n + j);
  if (positions.empty())
    return l.replace(l.empty({l.b.getIndexAttr(0)}, r));
  x = l.castTensor(x, r);
  Value rows = l.unsqueeze(x, 1), others = l.unsqueeze(x, 0);
  Value difference = l.elementwise(
      {rows, others}, r, r, [&](OpBuilder &nb, Location loc, ValueRange v) {
        return arith::SubFOp::create(nb, loc, v[0], v[1]).getResult();
      });
  Value all = normAlong(l, difference, l.arg(P::p), 2, false, r);
  if (!all)
    return failure();
  Value flat = l.reshape(all, {l.b.getIndexAttr(n * n)});
  auto indexType =
      RankedTensorType::get({int64_t(positions.size())}, l.b.getI64Type());
  Value index = arith::ConstantOp::create(
      l.b, l.loc,
      DenseElementsAttr::get(indexType, ArrayRef<int64_t>(positions)));
  Value v =
      l.lowerCall("aten::index_select", {ref(l, 0), int64(l, 0), ref(l, 1)},
                  {flat, index}, tensorOf(r));
  return v ? l.replace(v) : failure();
}

/// bilinear(x1 (.., I), x2 (.., J), weight (O, I, J), bias): x1 W_o x2 + b_o
/// for each o, an einsum over the flattened leading dims.
LogicalResult lowerBilinear(Lowering &l) {
  using P = args::aten::bilinear;
  Value a = l.tensor(P::input1), b = l.tensor(P::input2),
        w = l.tensor(P::weight);
  Type r = l.resultElementType();
  if (!a || !b || !w || !r || rankOf(w) != 3 || rankOf(a) < 1 ||
      rankOf(a) != rankOf(b))
    return l.fail("needs inputs of the same rank and a 3-D weight");
  SmallVector<OpFoldResult> lead = l.dims(a);
  lead.pop_back();
  int64_t batch = 1;
  for (OpFoldResult s : lead) {
    auto size = getConstantIntValue(s);
    if (!size)
      return l.fail("needs static leading dims");
    batch *= *size;
  }
  OpFoldResult rowsOf = l.b.getIndexAttr(batch);
  Value left = l.reshape(a, {rowsOf, l.dim(a, rankOf(a) - 1)});
  Value right = l.reshape(b, {rowsOf, l.dim(b, rankOf(b) - 1)});
  Value y = l.lowerCall(
      "aten::einsum",
      {l.b.getStringAttr("bi,oij,bj->bo"),
       ListAttr::get(contextOf(l), {ref(l, 0), ref(l, 1), ref(l, 2)})},
      {left, w, right}, tensorOf(r));
  if (!y)
    return failure();
  lead.push_back(l.dim(w, 0));
  y = l.reshape(y, lead);
  if (!l.isNone(P::bias)) {
    Value bias = l.tensor(P::bias);
    if (!bias)
      return failure();
    y = l.elementwise({y, bias}, r, r,
                      [&](OpBuilder &nb, Location loc, ValueRange v) {
                        return add(nb, loc, v[0], v[1]);
                      });
  }
  return l.replace(y);
}

/// frobenius_norm(self), frobenius_norm.dim(self, dim, keepdim), as
/// torch.jit.trace records `x.norm(dim=1)`: the 2-norm of the elements over
/// `dim` (all dims without it), as linalg_vector_norm.
LogicalResult lowerFrobeniusNorm(Lowering &l) {
  using P = args::aten::frobenius_norm_dim;
  Value x = l.tensor(P::self);
  Type r = l.resultElementType();
  if (!x || !r || !isFloat(r))
    return l.fail("needs a float tensor");
  bool all = l.target() == args::aten::frobenius_norm::target;
  Value v = l.lowerCall("aten::linalg_vector_norm",
                        {ref(l, 0), l.b.getF64FloatAttr(2.0),
                         all ? none(l) : l.arg(P::dim),
                         all ? l.b.getBoolAttr(false) : l.arg(P::keepdim)},
                        {x}, tensorOf(r));
  return v ? l.replace(v) : failure();
}

/// _weight_norm(v, g, dim): torch.nn.utils.weight_norm's weight, as ATen
/// computes it: v * (g / norm_except_dim(v, 2, dim)), the 2-norm over every
/// dim but `dim` (all of them for dim -1).
LogicalResult lowerWeightNorm(Lowering &l) {
  using P = args::aten::_weight_norm;
  Value v = l.tensor(P::v), g = l.tensor(P::g);
  Type r = l.resultElementType();
  std::optional<int64_t> dim = l.constInt(P::dim);
  if (!v || !g || !r || !isFloat(r) || !dim)
    return l.fail("needs float tensors and a constant dim");
  int64_t rank = rankOf(v);
  SmallVector<int64_t> others;
  for (int64_t d = 0; d < rank; ++d)
    if (*dim == -1 || d != (*dim < 0 ? *dim + rank : *dim))
      others.push_back(d);
  Value norm = l.lowerCall("aten::linalg_vector_norm",
                           {ref(l, 0), l.b.getF64FloatAttr(2.0),
                            ints(l, others), l.b.getBoolAttr(true)},
                           {v}, tensorOf(r));
  if (!norm)
    return failure();
  return l.replace(l.elementwise(
      {v, g, norm}, r, r, [](OpBuilder &b, Location loc, ValueRange x) {
        return arith::MulFOp::create(b, loc, x[0],
                                     arith::DivFOp::create(b, loc, x[1], x[2]));
      }));
}

} // namespace

/// histc(self, bins, min, max): counts of the elements in `bins` equal
/// bins over [min, max] (the data's own range when min == max, widened
/// by 1 each way when that is empty too), as ATen's histogram kernel
/// bins an element: the interpolated position, corrected by a search of
/// the neighbouring edges (linspace's, in the element type), the last edge
/// in the last bin; elements outside are not counted, a NaN is (in the
/// first bin, as LibTorch 1.13 counts it). The counts are added with
/// index_add, the uncounted into a spare bin.
LogicalResult lowerHistc(Lowering &l) {
  using P = args::aten::histc;
  Value x = l.tensor(P::self);
  Type elem = l.resultElementType();
  auto bins = l.constInt(P::bins);
  if (!x || !elem || !isFloat(elem) || !bins || *bins <= 0)
    return l.fail("needs a float tensor and a positive constant bins");
  auto lo =
      l.isNone(P::min) ? std::optional<double>(0) : l.constFloat(l.arg(P::min));
  auto hi =
      l.isNone(P::max) ? std::optional<double>(0) : l.constFloat(l.arg(P::max));
  if (!lo || !hi)
    return l.fail("min and max must be constants");
  if (*lo > *hi)
    return l.fail("max must be larger than min");
  x = l.castTensor(x, elem);
  int64_t rank = rankOf(x);
  SmallVector<int64_t> all(rank);
  for (int64_t d = 0; d < rank; ++d)
    all[d] = d;
  // The range: the constants, or the data's min and max.
  Value left = l.filled({}, l.constant(elem, *lo));
  Value right = l.filled({}, l.constant(elem, *hi));
  if (*lo == *hi) {
    auto extremum = [&](bool isMax) {
      return l.reduce(
          x, all, false, l.constant(elem, isMax ? -INFINITY : INFINITY),
          [&](OpBuilder &b, Location loc, Value acc, Value v) {
            return isMax
                       ? arith::MaximumFOp::create(b, loc, acc, v).getResult()
                       : arith::MinimumFOp::create(b, loc, acc, v).getResult();
          });
    };
    bool empty = false;
    for (int64_t d = 0; d < rank; ++d)
      empty |= staticDim(x, d) == 0;
    if (!empty) {
      left = extremum(false);
      right = extremum(true);
    }
    // An empty range widens by 1 each way: the end `which` (0: left, 1:
    // right) moved by `by` when both ends are the same.
    auto widen = [&](int which, double by) {
      return l.elementwise({left, right}, elem, elem,
                           [&](OpBuilder &b, Location loc, ValueRange v) {
                             FloatOps f{b, loc, elem};
                             Value same = arith::CmpFOp::create(
                                 b, loc, arith::CmpFPredicate::OEQ, v[0], v[1]);
                             return arith::SelectOp::create(
                                        b, loc, same, f.add(v[which], f.c(by)),
                                        v[which])
                                 .getResult();
                           });
    };
    Value widerLeft = widen(0, -1), widerRight = widen(1, 1);
    left = widerLeft;
    right = widerRight;
  }
  int64_t n = *bins;
  Type i64 = l.b.getI64Type();
  // Each element's bin, or n (the spare bin) when it is not counted.
  Value position = l.elementwise(
      {x, left, right}, elem, i64,
      [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
        using FP = arith::CmpFPredicate;
        auto c = [&](double k) { return constantOf(b, loc, elem, k); };
        Value e = v[0], lo = v[1], hi = v[2];
        Value inside = arith::AndIOp::create(
            b, loc, arith::CmpFOp::create(b, loc, FP::OGE, e, lo),
            arith::CmpFOp::create(b, loc, FP::OLE, e, hi));
        Value span = arith::SubFOp::create(b, loc, hi, lo);
        Value scaled = arith::DivFOp::create(
            b, loc,
            arith::MulFOp::create(b, loc, arith::SubFOp::create(b, loc, e, lo),
                                  c(double(n))),
            span);
        Value pos = arith::FPToSIOp::create(
            b, loc, i64, arith::SelectOp::create(b, loc, inside, scaled, c(0)));
        // linspace(lo, hi, n + 1)[i], as ATen computes it.
        Value step = arith::DivFOp::create(b, loc, span, c(double(n)));
        auto edge = [&](Value i) -> Value {
          Value fi = arith::SIToFPOp::create(b, loc, elem, i);
          Value fromLow = arith::AddFOp::create(
              b, loc, lo, arith::MulFOp::create(b, loc, step, fi));
          Value back = arith::SubFOp::create(b, loc, c(double(n)), fi);
          Value fromHigh = arith::SubFOp::create(
              b, loc, hi, arith::MulFOp::create(b, loc, step, back));
          Value lowHalf = arith::CmpIOp::create(
              b, loc, arith::CmpIPredicate::slt, i,
              arith::ConstantOp::create(b, loc,
                                        b.getI64IntegerAttr((n + 1) / 2)));
          return arith::SelectOp::create(b, loc, lowHalf, fromLow, fromHigh);
        };
        auto i64c = [&](int64_t k) -> Value {
          return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(k));
        };
        // The edges in [max(0, pos - 1), min(pos + 2, n + 1)) at or below
        // the element: pos is the window's start plus their count less 1.
        Value start = arith::MaxSIOp::create(
            b, loc, arith::SubIOp::create(b, loc, pos, i64c(1)), i64c(0));
        Value end = arith::MinSIOp::create(
            b, loc, arith::AddIOp::create(b, loc, pos, i64c(2)), i64c(n + 1));
        Value count = i64c(0);
        for (int k = 0; k < 3; ++k) {
          Value i = arith::AddIOp::create(b, loc, start, i64c(k));
          Value within =
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, i, end);
          Value below = arith::CmpFOp::create(b, loc, FP::OLE, edge(i), e);
          Value counted = arith::AndIOp::create(b, loc, within, below);
          count = arith::AddIOp::create(
              b, loc, count, arith::ExtUIOp::create(b, loc, i64, counted));
        }
        pos = arith::SubIOp::create(
            b, loc, arith::AddIOp::create(b, loc, start, count), i64c(1));
        // The last edge belongs to the last bin. A NaN is counted in the
        // first, as LibTorch 1.13's kernel counts it.
        pos = arith::MinSIOp::create(b, loc, pos, i64c(n - 1));
        Value nan = arith::CmpFOp::create(b, loc, FP::UNO, e, e);
        return arith::SelectOp::create(
            b, loc, nan, i64c(0),
            arith::SelectOp::create(b, loc, inside, pos, i64c(n)));
      });
  Value flat = position;
  if (rank != 1) {
    int64_t total = 1;
    for (int64_t d = 0; d < rank; ++d)
      total *= staticDim(x, d);
    if (ShapedType::isDynamic(total) || total < 0)
      return l.fail("needs a static shape");
    flat = l.reshape(position, {l.b.getIndexAttr(total)});
  }
  Value ones = l.elementwise({flat}, i64, elem,
                             [&](OpBuilder &b, Location loc, ValueRange) {
                               return constantOf(b, loc, elem, 1);
                             });
  Value zeros = l.filled({l.b.getIndexAttr(n + 1)}, l.constant(elem, 0));
  Value counts = l.lowerCall("aten::index_add",
                             {ref(l, 0), int64(l, 0), ref(l, 1), ref(l, 2)},
                             {zeros, flat, ones}, tensorOf(elem));
  if (!counts)
    return failure();
  return l.replace(tensor::ExtractSliceOp::create(
      l.b, l.loc, RankedTensorType::get({n}, elem), counts,
      ArrayRef<OpFoldResult>{l.b.getIndexAttr(0)},
      ArrayRef<OpFoldResult>{l.b.getIndexAttr(n)},
      ArrayRef<OpFoldResult>{l.b.getIndexAttr(1)}));
}

void mlir::fx::lowering::addStatisticsLowerings(llvm::StringMap<LowerFn> &t) {
  addLowering(t, {"aten::kthvalue"}, lowerKthvalue);
  addLowering(t, {"aten::histc"}, lowerHistc);
  addLowering(t,
              {"aten::median", "aten::median.dim", "aten::nanmedian",
               "aten::nanmedian.dim"},
              lowerMedian);
  addLowering(t,
              {"aten::quantile", "aten::quantile.scalar", "aten::nanquantile",
               "aten::nanquantile.scalar"},
              lowerQuantile);
  addLowering(t, {"aten::cov", "aten::corrcoef"}, lowerCov);
  addLowering(t, {"aten::pairwise_distance"}, lowerPairwiseDistance);
  addLowering(t, {"aten::cdist"}, lowerCdist);
  addLowering(t, {"aten::pdist"}, lowerPdist);
  addLowering(t, {"aten::bilinear"}, lowerBilinear);
  addLowering(t, {"aten::frobenius_norm", "aten::frobenius_norm.dim"},
              lowerFrobeniusNorm);
  addLowering(t, {"aten::_weight_norm"}, lowerWeightNorm);
}
