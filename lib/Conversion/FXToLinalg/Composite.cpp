//===- Composite.cpp - Operators computed as other operators are ----------===//
//
// Operators whose result on real tensors is another operator's (vdot is
// dot, conj is the tensor itself), or a few elementwise steps, slices and
// reshapes around others (atleast_2d, hstack, kron, angle, fmax), built
// with Lowering::lowerCall. The indexing ones are in Indexing.cpp. Complex
// tensors, where these operators differ from the ones they are computed as, are
// refused by name.
//
//===----------------------------------------------------------------------===//

#include "Compose.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <functional>
#include <limits>

using namespace mlir;
using namespace mlir::fx;
using namespace mlir::fx::lowering;
using namespace mlir::fx::lowering::compose;

namespace {

/// Whether a tensor operand or the result of the node is complex.
bool touchesComplex(Lowering &l) {
  auto complexType = [](Type t) {
    if (auto shaped = dyn_cast<ShapedType>(t))
      t = shaped.getElementType();
    return isa<ComplexType>(t);
  };
  Type result = l.resultType();
  if (auto tuple = dyn_cast<TupleType>(result))
    return llvm::any_of(tuple.getTypes(), complexType);
  return complexType(result) ||
         llvm::any_of(ValueRange(l.operands).getTypes(), complexType);
}

LogicalResult refuseComplex(Lowering &l) {
  return l.fail("complex tensors are not supported by '" + l.target() + "'");
}

/// The real operator each of these is on real tensors, with the same
/// arguments; "" for the tensor itself.
StringRef realEquivalent(StringRef target) {
  return llvm::StringSwitch<StringRef>(target)
      .Case("aten::vdot", "aten::dot")
      .Default("");
}

LogicalResult lowerRealSame(Lowering &l) {
  // Parameters as aten::conj names them, at the same positions in
  // aten::conj_physical and 4 more.
  using P = args::aten::conj;
  if (touchesComplex(l))
    return refuseComplex(l);
  StringRef real = realEquivalent(l.target());
  if (real.empty()) {
    Value x = l.tensor(P::self);
    return x ? l.replace(x) : failure();
  }
  SmallVector<Value> operands(l.operands);
  Value v = l.lowerCall(real, llvm::to_vector(l.args()), operands,
                        l.resultType(), l.kwargs());
  return v ? l.replace(v) : failure();
}

/// sgn of a real tensor: sign.
LogicalResult lowerSgn(Lowering &l) {
  if (touchesComplex(l))
    return refuseComplex(l);
  SmallVector<Value> operands(l.operands);
  Value v = l.lowerCall("aten::sign", llvm::to_vector(l.args()), operands,
                        l.resultType());
  return v ? l.replace(v) : failure();
}

/// isreal: true everywhere for a real tensor.
LogicalResult lowerIsreal(Lowering &l) {
  using P = args::aten::isreal;
  if (touchesComplex(l))
    return refuseComplex(l);
  Value x = l.tensor(P::self);
  if (!x)
    return failure();
  return l.replace(l.filled(l.dims(x), l.constant(l.b.getI1Type(), 1)));
}

/// angle of a real number: pi for a negative one, 0 otherwise, NaN for NaN
/// (ATen's angle_impl); integers give floats.
LogicalResult lowerAngle(Lowering &l) {
  using P = args::aten::angle;
  if (touchesComplex(l))
    return refuseComplex(l);
  Value x = l.tensor(P::self);
  Type r = l.resultElementType();
  if (!x || !r || !isFloat(r))
    return l.fail("needs a tensor and a float result");
  // Computed in the float result type: an integer's sign is kept.
  return l.replace(l.elementwise(
      {x}, r, r, [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
        Value negative = arith::CmpFOp::create(
            b, loc, arith::CmpFPredicate::OLT, v[0], constantOf(b, loc, r, 0));
        Value angle = arith::SelectOp::create(b, loc, negative,
                                              constantOf(b, loc, r, M_PI),
                                              constantOf(b, loc, r, 0));
        Value nan = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO,
                                          v[0], v[0]);
        return arith::SelectOp::create(b, loc, nan, v[0], angle);
      }));
}

/// isposinf / isneginf: x == +inf / -inf; false for integers.
LogicalResult lowerIsSignedInf(Lowering &l) {
  // Parameters as aten::isneginf names them, at the same positions in
  // aten::isposinf.
  using P = args::aten::isneginf;
  Value x = l.tensor(P::self);
  if (!x)
    return failure();
  Type elem = cast<RankedTensorType>(x.getType()).getElementType();
  double inf = std::numeric_limits<double>::infinity();
  if (l.target() == "aten::isneginf")
    inf = -inf;
  Type i1 = l.b.getI1Type();
  return l.replace(l.elementwise(
      {x}, elem, i1, [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
        if (!isFloat(elem))
          return constantOf(b, loc, i1, 0);
        return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, v[0],
                                     constantOf(b, loc, elem, inf));
      }));
}

/// fmax / fmin: the larger / smaller, a NaN only where both are NaN (C's
/// fmax, arith's maxnumf); integers as maximum / minimum.
LogicalResult lowerFmaxFmin(Lowering &l) {
  // Parameters as aten::fmax names them, at the same positions in aten::fmin.
  using P = args::aten::fmax;
  Value x = l.tensor(P::self), y = l.tensor(P::other);
  Type r = l.resultElementType();
  if (!x || !y || !r)
    return l.fail("needs two typed tensors");
  bool isMax = l.target() == "aten::fmax";
  return l.replace(l.elementwise(
      {x, y}, r, r, [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
        if (isFloat(r))
          return isMax
                     ? arith::MaxNumFOp::create(b, loc, v[0], v[1]).getResult()
                     : arith::MinNumFOp::create(b, loc, v[0], v[1]).getResult();
        return isMax ? maxInt(b, loc, v[0], v[1]) : minInt(b, loc, v[0], v[1]);
      }));
}

/// `x` viewed with at least `rank` dims, as atleast_1d/2d/3d place them: a
/// scalar as (1, ...), a vector (n) as (1, n) or (1, n, 1), a matrix as
/// (m, n, 1).
Value atLeast(Lowering &l, Value x, int64_t rank) {
  SmallVector<OpFoldResult> sizes = l.dims(x);
  if (int64_t(sizes.size()) >= rank)
    return x;
  OpFoldResult one = l.b.getIndexAttr(1);
  if (sizes.empty())
    sizes.assign(rank, one);
  else if (sizes.size() == 1)
    sizes = rank == 2 ? SmallVector<OpFoldResult>{one, sizes[0]}
                      : SmallVector<OpFoldResult>{one, sizes[0], one};
  else
    sizes.push_back(one);
  return l.reshape(x, sizes);
}

/// atleast_1d/2d/3d of a tensor, or of a list of them (.Sequence: a
/// tuple).
LogicalResult lowerAtLeast(Lowering &l) {
  StringRef target = l.target();
  auto [name, overload] = target.split('.');
  int64_t rank = llvm::StringSwitch<int64_t>(name)
                     .Case("aten::atleast_1d", 1)
                     .Case("aten::atleast_2d", 2)
                     .Default(3);
  if (overload == "Sequence") {
    static constexpr Param kTensors =
        sameParam(args::aten::atleast_1d_Sequence::tensors,
                  args::aten::atleast_2d_Sequence::tensors,
                  args::aten::atleast_3d_Sequence::tensors);
    auto inputs = tensorsOf(l, l.arg(kTensors));
    if (!inputs)
      return failure();
    for (Value &t : *inputs)
      t = atLeast(l, t, rank);
    return l.replaceTuple(*inputs);
  }
  Value x = l.subject();
  if (!x)
    return failure();
  return l.replace(atLeast(l, x, rank));
}

/// column_stack(tensors): each scalar or vector as a column (n, 1), the
/// others as they are, concatenated along dim 1. hstack / vstack / dstack:
/// each at least 1-D (along dim 1, or 0 when all are vectors) / 2-D (along
/// dim 0) / 3-D (along dim 2).
LogicalResult lowerStacks(Lowering &l) {
  // Parameters as aten::column_stack names them, at the same positions in
  // aten::dstack and 2 more.
  using P = args::aten::column_stack;
  auto inputs = tensorsOf(l, l.arg(P::tensors));
  Type elem = l.resultElementType();
  if (!inputs || !elem)
    return l.fail("needs a list of typed tensors");
  StringRef target = l.target();
  int64_t rank = llvm::StringSwitch<int64_t>(target)
                     .Case("aten::hstack", 1)
                     .Case("aten::vstack", 2)
                     .Case("aten::dstack", 3)
                     .Default(0);
  int64_t dim = rank == 2 ? 0 : rank == 3 ? 2 : 1;
  for (Value &t : *inputs) {
    if (rank) {
      t = atLeast(l, t, rank);
      continue;
    }
    SmallVector<OpFoldResult> sizes = l.dims(t);
    if (sizes.size() < 2)
      t = l.reshape(t, {sizes.empty() ? l.b.getIndexAttr(1) : sizes[0],
                        l.b.getIndexAttr(1)});
  }
  if (rank == 1 && rankOf((*inputs)[0]) == 1)
    dim = 0;
  Value v = catOf(l, *inputs, dim, elem);
  return v ? l.replace(v) : failure();
}

/// movedim(self, source, destination): the dims `source` moved to
/// `destination`, the others in their order.
LogicalResult lowerMovedim(Lowering &l) {
  // Parameters as aten::movedim.int names them, at the same positions in
  // aten::movedim.intlist.
  using P = args::aten::movedim_int_;
  Value x = l.tensor(P::self);
  if (!x)
    return failure();
  int64_t rank = rankOf(x);
  auto listOf = [&](Param p) -> std::optional<SmallVector<int64_t>> {
    SmallVector<int64_t> dims;
    if (auto list = l.intList(p))
      dims = *list;
    else if (auto one = l.constInt(p))
      dims = {*one};
    else
      return std::nullopt;
    for (int64_t &d : dims) {
      if (d < -std::max<int64_t>(rank, 1) || d >= std::max<int64_t>(rank, 1))
        return std::nullopt;
      d = d < 0 ? d + rank : d;
    }
    return dims;
  };
  auto source = listOf(P::source), destination = listOf(P::destination);
  if (!source || !destination || source->size() != destination->size())
    return l.fail("source and destination must be constant dims in range, "
                  "as many of one as of the other");
  SmallVector<int64_t> perm(rank, -1);
  SmallVector<bool> moved(rank, false);
  for (auto [from, to] : llvm::zip(*source, *destination)) {
    if (perm[to] != -1 || moved[from])
      return l.fail("repeated dim in source or destination");
    perm[to] = from;
    moved[from] = true;
  }
  int64_t next = 0;
  for (int64_t &p : perm) {
    if (p != -1)
      continue;
    while (moved[next])
      ++next;
    p = next++;
  }
  return l.replace(l.transpose(x, perm));
}

/// msort(self): sort's values along dim 0.
LogicalResult lowerMsort(Lowering &l) {
  using P = args::aten::msort;
  Value x = l.tensor(P::self);
  Type elem = l.resultElementType();
  if (!x || !elem)
    return failure();
  Type types[] = {tensorOf(elem), tensorOf(l.b.getI64Type())};
  SmallVector<Value> parts = l.lowerCallParts(
      "aten::sort", {ref(l, 0), int64(l, 0), l.b.getBoolAttr(false)}, {x},
      TupleType::get(contextOf(l), types));
  return parts.empty() ? failure() : l.replace(parts[0]);
}

/// kron(a, b): result[i * B + j] = a[i] * b[j] along every dim, as the
/// product of a (.., a_d, 1, ..) and b (.., 1, b_d, ..) seen as
/// (.., a_d * b_d, ..).
LogicalResult lowerKron(Lowering &l) {
  using P = args::aten::kron;
  Value a = l.tensor(P::self), b = l.tensor(P::other);
  Type elem = l.resultElementType();
  if (!a || !b || !elem)
    return l.fail("needs two typed tensors");
  int64_t rank = std::max(rankOf(a), rankOf(b));
  auto padded = [&](Value v) {
    SmallVector<int64_t> shape(rank - rankOf(v), 1);
    llvm::append_range(shape, cast<RankedTensorType>(v.getType()).getShape());
    return shape;
  };
  SmallVector<int64_t> as = padded(a), bs = padded(b);
  if (llvm::any_of(as, ShapedType::isDynamic) ||
      llvm::any_of(bs, ShapedType::isDynamic))
    return l.fail("needs static shapes");
  SmallVector<OpFoldResult> aSizes, bSizes, out;
  for (int64_t d = 0; d < rank; ++d) {
    aSizes.append({l.b.getIndexAttr(as[d]), l.b.getIndexAttr(1)});
    bSizes.append({l.b.getIndexAttr(1), l.b.getIndexAttr(bs[d])});
    out.push_back(l.b.getIndexAttr(as[d] * bs[d]));
  }
  Value product =
      l.elementwise({l.reshape(a, aSizes), l.reshape(b, bSizes)}, elem, elem,
                    [&](OpBuilder &nb, Location loc, ValueRange v) -> Value {
                      if (isFloat(elem))
                        return arith::MulFOp::create(nb, loc, v[0], v[1]);
                      if (elem.isInteger(1))
                        return arith::AndIOp::create(nb, loc, v[0], v[1]);
                      return arith::MulIOp::create(nb, loc, v[0], v[1]);
                    });
  return l.replace(l.reshape(product, out));
}

/// hypot(x, y): sqrt(x^2 + y^2) without overflow (the larger magnitude
/// times sqrt(1 + q^2)), infinite when either is, as C's hypot.
LogicalResult lowerHypot(Lowering &l) {
  using P = args::aten::hypot;
  Value x = l.tensor(P::self), y = l.tensor(P::other);
  Type r = l.resultElementType();
  if (!x || !y || !r || !isFloat(r))
    return l.fail("needs two tensors and a float result");
  return l.replace(l.elementwise(
      {x, y}, r, r, [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
        using FP = arith::CmpFPredicate;
        Value ax = math::AbsFOp::create(b, loc, v[0]);
        Value ay = math::AbsFOp::create(b, loc, v[1]);
        Value big = arith::MaximumFOp::create(b, loc, ax, ay);
        Value small = arith::MinimumFOp::create(b, loc, ax, ay);
        Value zero = constantOf(b, loc, r, 0), one = constantOf(b, loc, r, 1);
        Value inf =
            constantOf(b, loc, r, std::numeric_limits<double>::infinity());
        Value q = arith::DivFOp::create(b, loc, small, big);
        Value scaled = arith::MulFOp::create(
            b, loc, big,
            math::SqrtOp::create(
                b, loc,
                arith::AddFOp::create(b, loc, one,
                                      arith::MulFOp::create(b, loc, q, q))));
        Value result = arith::SelectOp::create(
            b, loc, arith::CmpFOp::create(b, loc, FP::OEQ, big, zero), zero,
            scaled);
        Value infinite = arith::OrIOp::create(
            b, loc, arith::CmpFOp::create(b, loc, FP::OEQ, ax, inf),
            arith::CmpFOp::create(b, loc, FP::OEQ, ay, inf));
        return arith::SelectOp::create(b, loc, infinite, inf, result);
      }));
}

/// aminmax(self, *, dim=None, keepdim=False): (amin, amax).
LogicalResult lowerAminmax(Lowering &l) {
  using P = args::aten::aminmax;
  Value x = l.tensor(P::self);
  Type elem = l.resultElementType(0);
  if (!x || !elem)
    return l.fail("needs a typed tensor");
  Attribute dim = l.kwarg("dim");
  Attribute dims = ints(l, {});
  if (dim && !l.isNone(dim)) {
    auto d = l.constInt(dim);
    if (!d)
      return l.fail("dim must be a constant");
    dims = ints(l, {*d});
  }
  auto keepdim = l.kwarg("keepdim") ? l.constBool(l.kwarg("keepdim"))
                                    : std::optional<bool>(false);
  if (!keepdim)
    return l.fail("keepdim must be a constant");
  // Over every dim, keepdim keeps them all as 1s.
  bool allKept = *keepdim && (!dim || l.isNone(dim));
  SmallVector<Value> results;
  for (StringRef target : {"aten::amin", "aten::amax"}) {
    Value v = l.lowerCall(target, {ref(l, 0), dims, l.b.getBoolAttr(*keepdim)},
                          {x}, tensorOf(elem));
    if (!v)
      return failure();
    if (allKept && rankOf(v) != rankOf(x))
      v = l.reshape(v,
                    SmallVector<OpFoldResult>(rankOf(x), l.b.getIndexAttr(1)));
    // ATen resizes the kept dim of a scalar to (1,) (with a deprecation
    // warning); eager's shape is the oracle.
    if (*keepdim && !allKept && rankOf(x) == 0)
      v = l.reshape(v, {l.b.getIndexAttr(1)});
    results.push_back(v);
  }
  return l.replaceTuple(results);
}

/// diagflat(self, offset): the flattened tensor on a diagonal.
LogicalResult lowerDiagflat(Lowering &l) {
  using P = args::aten::diagflat;
  Value x = l.tensor(P::self);
  Type elem = l.resultElementType();
  auto offset = l.constInt(P::offset);
  if (!x || !elem || !offset)
    return l.fail("needs a typed tensor and a constant offset");
  Value flat = flattened(l, x);
  Value v = flat ? l.lowerCall("aten::diag", {ref(l, 0), int64(l, *offset)},
                               {flat}, tensorOf(elem))
                 : Value();
  return v ? l.replace(v) : failure();
}

/// trapz / trapezoid(y, x or dx, dim): the sum along dim of the
/// trapezoids' areas, (y[i+1] + y[i]) / 2 times x[i+1] - x[i] or dx;
/// cumulative_trapezoid: their running sum.
LogicalResult lowerTrapezoid(Lowering &l) {
  // Parameters as aten::cumulative_trapezoid.dx names them, at the same
  // positions in aten::cumulative_trapezoid.x and 4 more.
  using P = args::aten::cumulative_trapezoid_dx;
  Value y = l.tensor(P::y);
  Type elem = l.resultElementType();
  if (!y || !elem || !isFloat(elem))
    return l.fail("needs a tensor and a float result");
  StringRef target = l.target();
  bool withX = target.ends_with(".x");
  Attribute dimAttr = l.kwarg("dim");
  auto dim = dimAttr ? l.normDim(dimAttr, rankOf(y))
                     : std::optional<int64_t>(rankOf(y) - 1);
  if (!dim)
    return l.fail("dim must be a constant");
  int64_t n = staticDim(y, *dim);
  if (ShapedType::isDynamic(n))
    return l.fail("needs a static size along dim");
  // Integer samples (and spacings) are added (and subtracted, multiplied)
  // in their integer types, wrapping, as eager's formulas do before they
  // divide by 2: ATen's trapezoid is ((y[i] + y[i+1]) * dx[i]).sum() / 2
  // (an integer sum, in int64) with spacings, (y.sum() - (y[0] + y[-1]) *
  // 0.5) * dx with a constant one; cumulative_trapezoid's terms are
  // (y[i] + y[i+1]) * dx[i] / 2 and dx / 2 * (y[i] + y[i+1]).
  auto integerType = [](Value v) {
    auto t = dyn_cast<IntegerType>(
        cast<RankedTensorType>(v.getType()).getElementType());
    return t && t.getWidth() > 1 ? t : IntegerType();
  };
  IntegerType yInt = integerType(y);
  bool cumulative = target.starts_with("aten::cumulative_trapezoid");
  if (!yInt)
    y = l.castTensor(y, elem);
  int64_t pieces = std::max<int64_t>(n - 1, 0);
  Value upper = sliceOf(l, y, *dim, std::min<int64_t>(1, n), n);
  Value lower = sliceOf(l, y, *dim, 0, pieces);
  if (!upper || !lower)
    return failure();
  auto addIn = [&](Value a, Value b, Type t) {
    return l.elementwise(
        {a, b}, t, t, [&](OpBuilder &nb, Location loc, ValueRange v) {
          return isFloat(t)
                     ? arith::AddFOp::create(nb, loc, v[0], v[1]).getResult()
                     : arith::AddIOp::create(nb, loc, v[0], v[1]).getResult();
        });
  };
  auto sumAlong = [&](Value v, Type t) {
    return l.lowerCall(
        "aten::sum.dim_IntList",
        {ref(l, 0), ints(l, {*dim}), l.b.getBoolAttr(false), none(l)}, {v},
        tensorOf(t));
  };
  Value width;
  if (withX) {
    static constexpr Param kX =
        sameParam(args::aten::trapz_x::x, args::aten::trapezoid_x::x,
                  args::aten::cumulative_trapezoid_x::x);
    Value x = l.tensor(kX);
    if (!x)
      return failure();
    IntegerType xInt = integerType(x);
    if (!xInt)
      x = l.castTensor(x, elem);
    if (rankOf(x) == 1 && rankOf(y) > 1) {
      SmallVector<OpFoldResult> sizes(rankOf(y), l.b.getIndexAttr(1));
      sizes[*dim] = l.dim(x, 0);
      x = l.reshape(x, sizes);
    }
    int64_t xDim =
        rankOf(x) == rankOf(y) ? *dim : rankOf(x) - (rankOf(y) - *dim);
    int64_t m = staticDim(x, xDim);
    if (ShapedType::isDynamic(m))
      return l.fail("needs a static size of x along dim");
    Value x1 = sliceOf(l, x, xDim, std::min<int64_t>(1, m), m);
    Value x0 = sliceOf(l, x, xDim, 0, std::max<int64_t>(m - 1, 0));
    if (!x1 || !x0)
      return failure();
    Type xType = xInt ? Type(xInt) : elem;
    width = l.elementwise(
        {x1, x0}, xType, xType, [&](OpBuilder &b, Location loc, ValueRange v) {
          return xInt ? arith::SubIOp::create(b, loc, v[0], v[1]).getResult()
                      : arith::SubFOp::create(b, loc, v[0], v[1]).getResult();
        });
    if (yInt) {
      // (y[i] + y[i+1]) in y's type, times the spacing in the promoted
      // one (the wider integer, or the float result).
      Value pairs = addIn(upper, lower, yInt);
      Type product = elem;
      if (xInt)
        product = yInt.getWidth() >= xInt.getWidth() ? yInt : xInt;
      Value terms = l.elementwise(
          {pairs, width}, product, product,
          [&](OpBuilder &b, Location loc, ValueRange v) {
            return isFloat(product)
                       ? arith::MulFOp::create(b, loc, v[0], v[1]).getResult()
                       : arith::MulIOp::create(b, loc, v[0], v[1]).getResult();
          });
      auto halve = [&](Value v) {
        return l.elementwise(
            {v}, elem, elem, [&](OpBuilder &b, Location loc, ValueRange w) {
              return arith::DivFOp::create(b, loc, w[0],
                                           constantOf(b, loc, elem, 2))
                  .getResult();
            });
      };
      Value r;
      if (cumulative) {
        r = l.lowerCall("aten::cumsum", {ref(l, 0), int64(l, *dim)},
                        {halve(terms)}, tensorOf(elem));
      } else {
        Value total =
            sumAlong(terms, isFloat(product) ? elem : l.b.getI64Type());
        r = total ? halve(total) : Value();
      }
      return r ? l.replace(r) : failure();
    }
  }
  Attribute dxAttr = withX ? Attribute() : l.kwarg("dx");
  if (yInt && !withX) {
    Value dxValue = dxAttr ? l.scalar(dxAttr, elem) : l.constant(elem, 1);
    if (!dxValue)
      return l.fail("dx must be a number");
    Value r;
    if (cumulative) {
      Value pairs = addIn(upper, lower, yInt);
      Value terms = l.elementwise(
          {pairs}, elem, elem, [&](OpBuilder &b, Location loc, ValueRange v) {
            Value half = arith::DivFOp::create(b, loc, dxValue,
                                               constantOf(b, loc, elem, 2));
            return arith::MulFOp::create(b, loc, half, v[0]).getResult();
          });
      r = l.lowerCall("aten::cumsum", {ref(l, 0), int64(l, *dim)}, {terms},
                      tensorOf(elem));
    } else if (n == 0) {
      r = sumAlong(l.castTensor(y, elem), elem);
    } else {
      Value first = l.squeeze(sliceOf(l, y, *dim, 0, 1), *dim);
      Value last = l.squeeze(sliceOf(l, y, *dim, n - 1, n), *dim);
      Value ends = addIn(first, last, yInt);
      Value total = sumAlong(y, l.b.getI64Type());
      if (!total)
        return failure();
      r = l.elementwise({total, ends}, elem, elem,
                        [&](OpBuilder &b, Location loc, ValueRange v) {
                          Value half = arith::MulFOp::create(
                              b, loc, v[1], constantOf(b, loc, elem, 0.5));
                          return arith::MulFOp::create(
                                     b, loc,
                                     arith::SubFOp::create(b, loc, v[0], half),
                                     dxValue)
                              .getResult();
                        });
    }
    return r ? l.replace(r) : failure();
  }
  Value dx = dxAttr ? l.scalar(dxAttr, elem) : l.constant(elem, 1);
  SmallVector<Value> inputs = {upper, lower};
  if (width)
    inputs.push_back(width);
  Value areas = l.elementwise(
      inputs, elem, elem, [&](OpBuilder &b, Location loc, ValueRange v) {
        Value sum = arith::AddFOp::create(b, loc, v[0], v[1]);
        Value w = v.size() == 3 ? v[2] : dx;
        return arith::MulFOp::create(b, loc,
                                     arith::MulFOp::create(b, loc, sum, w),
                                     constantOf(b, loc, elem, 0.5))
            .getResult();
      });
  Value v = target.starts_with("aten::cumulative_trapezoid")
                ? l.lowerCall("aten::cumsum", {ref(l, 0), int64(l, *dim)},
                              {areas}, tensorOf(elem))
                : l.lowerCall("aten::sum.dim_IntList",
                              {ref(l, 0), ints(l, {*dim}),
                               l.b.getBoolAttr(false), none(l)},
                              {areas}, tensorOf(elem));
  return v ? l.replace(v) : failure();
}

/// fft_fftshift / fft_ifftshift(self, dim=None): a roll by half of each dim
/// (all of them by default), forward or back.
LogicalResult lowerFftshift(Lowering &l) {
  // Parameters as aten::fft_fftshift names them, at the same positions in
  // aten::fft_ifftshift.
  using P = args::aten::fft_fftshift;
  Value x = l.tensor(P::self);
  Type elem = l.resultElementType();
  if (!x || !elem)
    return failure();
  SmallVector<int64_t> dims;
  if (l.isNone(P::dim)) {
    for (int64_t d = 0; d < rankOf(x); ++d)
      dims.push_back(d);
  } else if (auto list = l.intList(P::dim)) {
    dims = *list;
  } else if (auto one = l.constInt(P::dim)) {
    dims = {*one};
  } else {
    return l.fail("dim must be constant");
  }
  bool inverse = l.target() == "aten::fft_ifftshift";
  SmallVector<int64_t> shifts;
  for (int64_t &d : dims) {
    auto normalized = l.normDim(int64(l, d), rankOf(x));
    if (!normalized)
      return l.fail("dim out of range");
    d = *normalized;
    int64_t n = staticDim(x, d);
    if (ShapedType::isDynamic(n))
      return l.fail("needs static sizes");
    shifts.push_back(inverse ? (n + 1) / 2 : n / 2);
  }
  if (dims.empty())
    return l.replace(x);
  Value v =
      l.lowerCall("aten::roll", {ref(l, 0), ints(l, shifts), ints(l, dims)},
                  {x}, tensorOf(elem));
  return v ? l.replace(v) : failure();
}

/// round(self, *, decimals): to a multiple of 10^-decimals, halves to even,
/// as ATen's kernel (x * 10^d rounded, / 10^d; x / 10^-d rounded, * 10^-d
/// for negative d).
LogicalResult lowerRoundDecimals(Lowering &l) {
  using P = args::aten::round_decimals;
  Attribute decimalsAttr = l.kwarg("decimals");
  auto decimals = decimalsAttr ? l.constInt(decimalsAttr) : std::nullopt;
  if (!decimals)
    return l.fail("decimals must be a constant");
  Type r = l.resultElementType();
  Value x = l.tensor(P::self);
  if (!x || !r || !isFloat(r))
    return l.fail("needs a float tensor");
  double scale = std::pow(10.0, double(std::abs(*decimals)));
  bool negative = *decimals < 0;
  return l.replace(l.elementwise(
      {x}, r, r, [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
        Value s = constantOf(b, loc, r, scale);
        Value scaled = negative
                           ? arith::DivFOp::create(b, loc, v[0], s).getResult()
                           : arith::MulFOp::create(b, loc, v[0], s).getResult();
        Value rounded = math::RoundEvenOp::create(b, loc, scaled);
        return negative ? arith::MulFOp::create(b, loc, rounded, s).getResult()
                        : arith::DivFOp::create(b, loc, rounded, s).getResult();
      }));
}

/// An argument as an elementwise input: its tensor, or a Python scalar as
/// a scalar of `type`.
Value tensorOrScalar(Lowering &l, Param p, Type type) {
  if (Value v = l.value(l.arg(p)))
    return isa<RankedTensorType>(v.getType()) ? v : l.convert(v, type);
  return l.scalar(l.arg(p), type);
}

/// ldexp(self, other): self * 2^other, in the float result type.
LogicalResult lowerLdexp(Lowering &l) {
  using P = args::aten::ldexp_Tensor;
  Type r = l.resultElementType();
  Value x = l.tensor(P::self), y = l.tensor(P::other);
  if (!x || !y || !r || !isFloat(r))
    return l.fail("needs two tensors and a float result");
  return l.replace(l.elementwise(
      {x, y}, r, r, [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
        return arith::MulFOp::create(b, loc, v[0],
                                     math::Exp2Op::create(b, loc, v[1]));
      }));
}

/// The integer type of a float's bits, its mantissa bits and exponent
/// bias: frexp and nextafter work on f32 and f64 (narrower floats in f32).
struct FloatBits {
  IntegerType bits;
  int64_t mantissa, bias;
};
FloatBits floatBits(Lowering &l, Type f) {
  bool wide = f.isF64();
  return {l.b.getIntegerType(wide ? 64 : 32), wide ? 52 : 23,
          wide ? 1023 : 127};
}
Type bitsComputeType(Lowering &l, Type f) {
  return f.isF64() ? f : Type(l.b.getF32Type());
}

/// frexp(self): (mantissa, exponent) with x = mantissa * 2^exponent and
/// 0.5 <= |mantissa| < 1, from the float's bits (a subnormal scaled into
/// the normal range first); 0, inf and NaN are their own mantissa with
/// exponent 0, as C's frexp.
LogicalResult lowerFrexp(Lowering &l) {
  using P = args::aten::frexp_Tensor;
  Value x = l.tensor(P::self);
  Type r = l.resultElementType(0), e = l.resultElementType(1);
  if (!x || !r || !e || !isFloat(r))
    return l.fail("needs a float tensor");
  Type c = bitsComputeType(l, r);
  FloatBits fb = floatBits(l, c);
  auto parts = [&](bool wantExponent) {
    return l.elementwise(
        {x}, c, wantExponent ? e : r,
        [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
          using FP = arith::CmpFPredicate;
          Type it = fb.bits;
          // Exact 64-bit constants (masks of f64 bits), not through a
          // double as constantOf takes them.
          auto ic = [&](int64_t k) -> Value {
            return arith::ConstantOp::create(b, loc, b.getIntegerAttr(it, k));
          };
          Value scale = constantOf(b, loc, c, std::ldexp(1.0, 54));
          Value zero = constantOf(b, loc, c, 0);
          auto exponentOf = [&](Value f) {
            Value bits = arith::BitcastOp::create(b, loc, it, f);
            return arith::AndIOp::create(
                b, loc, arith::ShRUIOp::create(b, loc, bits, ic(fb.mantissa)),
                ic(2 * fb.bias + 1));
          };
          Value raw = exponentOf(v[0]);
          Value subnormal = arith::AndIOp::create(
              b, loc,
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, raw,
                                    ic(0)),
              arith::CmpFOp::create(b, loc, FP::UNE, v[0], zero));
          Value f = arith::SelectOp::create(
              b, loc, subnormal, arith::MulFOp::create(b, loc, v[0], scale),
              v[0]);
          Value special = arith::OrIOp::create(
              b, loc, arith::CmpFOp::create(b, loc, FP::OEQ, v[0], zero),
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, raw,
                                    ic(2 * fb.bias + 1)));
          if (wantExponent) {
            Value exponent = arith::SubIOp::create(
                b, loc, exponentOf(f),
                arith::SelectOp::create(b, loc, subnormal, ic(fb.bias - 1 + 54),
                                        ic(fb.bias - 1)));
            exponent =
                arith::SelectOp::create(b, loc, special, ic(0), exponent);
            return arith::TruncIOp::create(b, loc, e, exponent);
          }
          Value bits = arith::BitcastOp::create(b, loc, it, f);
          int64_t keep = ~(int64_t(2 * fb.bias + 1) << fb.mantissa);
          Value mantissa = arith::OrIOp::create(
              b, loc, arith::AndIOp::create(b, loc, bits, ic(keep)),
              ic(int64_t(fb.bias - 1) << fb.mantissa));
          Value m = arith::BitcastOp::create(b, loc, c, mantissa);
          m = arith::SelectOp::create(b, loc, special, v[0], m);
          return c == r ? m : arith::TruncFOp::create(b, loc, r, m).getResult();
        });
  };
  return l.replaceTuple({parts(false), parts(true)});
}

/// nextafter(x, y): the float next to x toward y, from x's bits; y when
/// they are equal, NaN when either is, the smallest subnormal toward y
/// from 0.
LogicalResult lowerNextafter(Lowering &l) {
  using P = args::aten::nextafter;
  Value x = l.tensor(P::self), y = l.tensor(P::other);
  Type r = l.resultElementType();
  if (!x || !y || !r || !(r.isF32() || r.isF64()))
    return l.fail("needs float32 or float64 tensors");
  FloatBits fb = floatBits(l, r);
  return l.replace(l.elementwise(
      {x, y}, r, r, [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
        using FP = arith::CmpFPredicate;
        Type it = fb.bits;
        Value zero = constantOf(b, loc, r, 0);
        Value bits = arith::BitcastOp::create(b, loc, it, v[0]);
        Value up = arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::eq,
            arith::CmpFOp::create(b, loc, FP::OGT, v[1], v[0]),
            arith::CmpFOp::create(b, loc, FP::OGT, v[0], zero));
        Value one = constantOf(b, loc, it, 1);
        Value next = arith::BitcastOp::create(
            b, loc, r,
            arith::SelectOp::create(b, loc, up,
                                    arith::AddIOp::create(b, loc, bits, one),
                                    arith::SubIOp::create(b, loc, bits, one)));
        Value tiny = math::CopySignOp::create(
            b, loc, arith::BitcastOp::create(b, loc, r, one), v[1]);
        next = arith::SelectOp::create(
            b, loc, arith::CmpFOp::create(b, loc, FP::OEQ, v[0], zero), tiny,
            next);
        next = arith::SelectOp::create(
            b, loc, arith::CmpFOp::create(b, loc, FP::OEQ, v[0], v[1]), v[1],
            next);
        Value nan = arith::CmpFOp::create(b, loc, FP::UNO, v[0], v[1]);
        return arith::SelectOp::create(
            b, loc, nan, arith::AddFOp::create(b, loc, v[0], v[1]), next);
      }));
}

/// isin(elements, test_elements or a scalar, *, assume_unique, invert):
/// whether each element equals any test element.
LogicalResult lowerIsin(Lowering &l) {
  // Parameters as aten::isin.Tensor_Scalar names them, at the same positions in
  // aten::isin.Tensor_Tensor.
  using P = args::aten::isin_Tensor_Scalar;
  Value x = l.tensor(P::elements);
  if (!x)
    return failure();
  Type xe = cast<RankedTensorType>(x.getType()).getElementType();
  static constexpr Param kTest =
      sameParam(args::aten::isin_Tensor_Tensor::test_elements,
                args::aten::isin_Tensor_Scalar::test_element);
  Value test = l.value(l.arg(kTest));
  Type te = test && isa<RankedTensorType>(test.getType())
                ? cast<RankedTensorType>(test.getType()).getElementType()
                : Type();
  Type c = xe;
  if (te && isFloat(te) && !isFloat(xe))
    c = te;
  else if (te && isFloat(te) && isFloat(xe) &&
           te.getIntOrFloatBitWidth() > xe.getIntOrFloatBitWidth())
    c = te;
  else if (te && !isFloat(te) && !isFloat(xe))
    c = l.b.getI64Type();
  Attribute invertAttr = l.kwarg("invert");
  bool invert = invertAttr && l.constBool(invertAttr).value_or(false);
  Type i1 = l.b.getI1Type();
  auto equal = [&](OpBuilder &b, Location loc, Value p, Value q) -> Value {
    if (isFloat(c))
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, p, q);
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, p, q);
  };
  Value found;
  if (!te) {
    Value scalar = l.scalar(l.arg(kTest), c);
    found = l.elementwise({x}, c, i1,
                          [&](OpBuilder &b, Location loc, ValueRange v) {
                            return equal(b, loc, v[0], scalar);
                          });
  } else {
    SmallVector<OpFoldResult> sizes = l.dims(x);
    sizes.push_back(l.b.getIndexAttr(1));
    Value column = l.reshape(x, sizes);
    Value flat = flattened(l, test);
    if (!flat)
      return failure();
    Value matches = l.elementwise(
        {column, flat}, c, i1, [&](OpBuilder &b, Location loc, ValueRange v) {
          return equal(b, loc, v[0], v[1]);
        });
    found =
        l.reduce(matches, {rankOf(x)}, false, l.constant(i1, 0),
                 [](OpBuilder &b, Location loc, Value acc, Value item) {
                   return arith::OrIOp::create(b, loc, acc, item).getResult();
                 });
  }
  if (invert)
    found = l.elementwise(
        {found}, i1, i1, [&](OpBuilder &b, Location loc, ValueRange v) {
          return arith::XOrIOp::create(b, loc, v[0], constantOf(b, loc, i1, 1))
              .getResult();
        });
  return l.replace(found);
}

/// sum_to_size(self, size): the sum over the leading dims and the dims
/// `size` gives as 1, kept.
LogicalResult lowerSumToSize(Lowering &l) {
  using P = args::aten::sum_to_size;
  Value x = l.tensor(P::self);
  Type elem = l.resultElementType();
  auto size = l.intList(P::size);
  if (!x || !elem || !size)
    return l.fail("needs a typed tensor and a constant size");
  int64_t rank = rankOf(x), lead = rank - int64_t(size->size());
  if (lead < 0)
    return l.fail("size has more dims than the tensor");
  SmallVector<int64_t> dims;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t have = staticDim(x, d);
    if (d < lead) {
      dims.push_back(d);
      continue;
    }
    int64_t want = (*size)[d - lead];
    if (want == have)
      continue;
    if (want != 1)
      return l.fail(llvm::formatv("size {0} of dim {1} is not expandable to "
                                  "{2}",
                                  want, d - lead, have)
                        .str());
    dims.push_back(d);
  }
  // Nothing to sum: the tensor itself, in the result's dtype (eager
  // promotes a 0-d int tensor's to int64).
  if (dims.empty())
    return l.replace(l.castTensor(x, elem));
  Value summed =
      l.lowerCall("aten::sum.dim_IntList",
                  {ref(l, 0), ints(l, dims), l.b.getBoolAttr(true), none(l)},
                  {x}, tensorOf(elem));
  if (!summed)
    return failure();
  SmallVector<OpFoldResult> sizes;
  for (int64_t s : *size)
    sizes.push_back(l.b.getIndexAttr(s));
  return l.replace(l.reshape(summed, sizes));
}

/// block_diag(tensors): each as a matrix (a scalar 1x1, a vector a row) on
/// the diagonal of zeros.
LogicalResult lowerBlockDiag(Lowering &l) {
  using P = args::aten::block_diag;
  auto inputs = tensorsOf(l, l.arg(P::tensors));
  Type elem = l.resultElementType();
  if (!inputs || !elem)
    return l.fail("needs a list of typed tensors");
  int64_t rows = 0, cols = 0;
  SmallVector<Value> blocks;
  for (Value t : *inputs) {
    if (rankOf(t) > 2)
      return l.fail("needs tensors of at most 2 dims");
    t = l.castTensor(t, elem);
    if (rankOf(t) < 2)
      t = l.reshape(t, {l.b.getIndexAttr(1),
                        rankOf(t) ? l.dim(t, 0) : l.b.getIndexAttr(1)});
    if (ShapedType::isDynamic(staticDim(t, 0)) ||
        ShapedType::isDynamic(staticDim(t, 1)))
      return l.fail("needs static shapes");
    rows += staticDim(t, 0);
    cols += staticDim(t, 1);
    blocks.push_back(t);
  }
  Value result = l.filled({l.b.getIndexAttr(rows), l.b.getIndexAttr(cols)},
                          l.constant(elem, 0));
  int64_t r = 0, c = 0;
  for (Value t : blocks) {
    result = tensor::InsertSliceOp::create(
        l.b, l.loc, t, result,
        ArrayRef<OpFoldResult>{l.b.getIndexAttr(r), l.b.getIndexAttr(c)},
        l.dims(t),
        ArrayRef<OpFoldResult>{l.b.getIndexAttr(1), l.b.getIndexAttr(1)});
    r += staticDim(t, 0);
    c += staticDim(t, 1);
  }
  return l.replace(result);
}

/// Each of `inputs` (scalars or vectors) spread over the grid of all their
/// lengths along its own dim (dims 0 and 1 swapped for 'xy' indexing).
std::optional<SmallVector<Value>> grids(Lowering &l, ArrayRef<Value> inputs,
                                        bool xy, Type elem) {
  SmallVector<int64_t> shape;
  for (Value t : inputs) {
    if (rankOf(t) > 1) {
      (void)l.fail("needs scalars or vectors");
      return std::nullopt;
    }
    int64_t n = rankOf(t) ? staticDim(t, 0) : 1;
    if (ShapedType::isDynamic(n)) {
      (void)l.fail("needs static sizes");
      return std::nullopt;
    }
    shape.push_back(n);
  }
  auto position = [&](size_t i) -> size_t {
    if (xy && inputs.size() > 1 && i < 2)
      return 1 - i;
    return i;
  };
  SmallVector<int64_t> grid(shape.size());
  for (size_t i = 0; i < shape.size(); ++i)
    grid[position(i)] = shape[i];
  SmallVector<Value> results;
  for (size_t i = 0; i < inputs.size(); ++i) {
    SmallVector<OpFoldResult> sizes(grid.size(), l.b.getIndexAttr(1));
    sizes[position(i)] = l.b.getIndexAttr(shape[i]);
    Value t = l.reshape(l.castTensor(inputs[i], elem), sizes);
    Value expanded = l.lowerCall("aten::expand", {ref(l, 0), ints(l, grid)},
                                 {t}, tensorOf(elem));
    if (!expanded)
      return std::nullopt;
    results.push_back(expanded);
  }
  return results;
}

/// meshgrid(tensors, *, indexing='ij').
LogicalResult lowerMeshgrid(Lowering &l) {
  // Parameters as aten::meshgrid names them, at the same positions in
  // aten::meshgrid.indexing.
  using P = args::aten::meshgrid;
  auto inputs = tensorsOf(l, l.arg(P::tensors));
  Type elem = l.resultElementType(0);
  if (!inputs || !elem)
    return l.fail("needs a list of typed tensors");
  bool xy = false;
  if (Attribute indexing = l.kwarg("indexing")) {
    auto name = dyn_cast<StringAttr>(indexing);
    if (!name || (name.getValue() != "ij" && name.getValue() != "xy"))
      return l.fail("indexing must be 'ij' or 'xy'");
    xy = name.getValue() == "xy";
  }
  auto results = grids(l, *inputs, xy, elem);
  return results ? l.replaceTuple(*results) : failure();
}

/// cartesian_prod(tensors): the rows of every combination, the last
/// tensor's items changing fastest (one tensor: itself).
LogicalResult lowerCartesianProd(Lowering &l) {
  using P = args::aten::cartesian_prod;
  auto inputs = tensorsOf(l, l.arg(P::tensors));
  Type elem = l.resultElementType();
  if (!inputs || !elem)
    return l.fail("needs a list of typed tensors");
  if (inputs->size() == 1)
    return l.replace(l.castTensor(inputs->front(), elem));
  auto spread = grids(l, *inputs, false, elem);
  if (!spread)
    return failure();
  SmallVector<Attribute> refs;
  for (Value &g : *spread) {
    g = flattened(l, g);
    if (!g)
      return failure();
    refs.push_back(ref(l, refs.size()));
  }
  Value v = l.lowerCall("aten::stack",
                        {ListAttr::get(contextOf(l), refs), int64(l, 1)},
                        *spread, tensorOf(elem));
  return v ? l.replace(v) : failure();
}

/// combinations(self, r, with_replacement): the r-item combinations of a
/// vector, in itertools.combinations(_with_replacement)'s order, one per
/// row (r = 0: an empty vector). The indices are computed when compiling
/// and the items gathered by index_select.
LogicalResult lowerCombinations(Lowering &l) {
  using P = args::aten::combinations;
  Value x = l.tensor(P::self);
  Type elem = l.resultElementType();
  auto r = l.constInt(P::r);
  auto replacement = l.constBool(P::with_replacement);
  if (!x || !elem || !r || !replacement || rankOf(x) != 1 || *r < 0)
    return l.fail("needs a vector and constant r and with_replacement");
  int64_t n = staticDim(x, 0);
  if (ShapedType::isDynamic(n))
    return l.fail("needs a vector of static size");
  OpBuilder &b = l.b;
  if (*r == 0)
    return l.replace(l.empty({b.getIndexAttr(0)}, elem));
  SmallVector<int64_t> indices, current(*r, 0);
  // Each combination: nondecreasing (with replacement) or increasing
  // indices, the last varying fastest.
  std::function<bool(int64_t, int64_t)> visit = [&](int64_t pos, int64_t from) {
    if (pos == *r) {
      indices.append(current.begin(), current.end());
      return indices.size() <= (1u << 22);
    }
    for (int64_t i = from; i < n; ++i) {
      current[pos] = i;
      if (!visit(pos + 1, *replacement ? i : i + 1))
        return false;
    }
    return true;
  };
  if (!visit(0, 0))
    return l.fail("too many combinations");
  int64_t rows = indices.size() / *r;
  if (rows == 0)
    return l.replace(l.empty({b.getIndexAttr(0), b.getIndexAttr(*r)}, elem));
  auto type = RankedTensorType::get({int64_t(indices.size())}, b.getI64Type());
  Value index = arith::ConstantOp::create(
      b, l.loc, DenseElementsAttr::get(type, ArrayRef<int64_t>(indices)));
  Value picked =
      l.lowerCall("aten::index_select", {ref(l, 0), int64(l, 0), ref(l, 1)},
                  {l.castTensor(x, elem), index}, tensorOf(elem));
  if (!picked)
    return failure();
  return l.replace(
      l.reshape(picked, {b.getIndexAttr(rows), b.getIndexAttr(*r)}));
}

/// special_ndtr(x): the standard normal CDF, erfc(-x / sqrt 2) / 2.
LogicalResult lowerNdtr(Lowering &l) {
  using P = args::aten::special_ndtr;
  Value x = l.tensor(P::self);
  Type r = l.resultElementType();
  if (!x || !r || !isFloat(r))
    return l.fail("needs a tensor and a float result");
  return l.replace(l.elementwise(
      {x}, r, r, [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
        Value t = arith::MulFOp::create(b, loc, v[0],
                                        constantOf(b, loc, r, -M_SQRT1_2));
        return arith::MulFOp::create(b, loc, math::ErfcOp::create(b, loc, t),
                                     constantOf(b, loc, r, 0.5));
      }));
}

/// special_entr(x): -x log x for x > 0, 0 at 0, -inf below, NaN for NaN.
LogicalResult lowerEntr(Lowering &l) {
  using P = args::aten::special_entr;
  Value x = l.tensor(P::self);
  Type r = l.resultElementType();
  if (!x || !r || !isFloat(r))
    return l.fail("needs a tensor and a float result");
  return l.replace(l.elementwise(
      {x}, r, r, [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
        using FP = arith::CmpFPredicate;
        Value zero = constantOf(b, loc, r, 0);
        Value value = arith::NegFOp::create(
            b, loc,
            arith::MulFOp::create(b, loc, v[0],
                                  math::LogOp::create(b, loc, v[0])));
        value = arith::SelectOp::create(
            b, loc, arith::CmpFOp::create(b, loc, FP::OEQ, v[0], zero), zero,
            value);
        return arith::SelectOp::create(
            b, loc, arith::CmpFOp::create(b, loc, FP::OLT, v[0], zero),
            constantOf(b, loc, r, -std::numeric_limits<double>::infinity()),
            value);
      }));
}

/// special_xlog1py(x, y): x log1p(y), 0 where x is 0 and y is not NaN.
LogicalResult lowerXlog1py(Lowering &l) {
  Type r = l.resultElementType();
  if (!r || !isFloat(r))
    return l.fail("needs a float result");
  using P = args::aten::special_xlog1py;
  static_assert(
      sameParam(P::self, args::aten::special_xlog1py_self_scalar::self,
                args::aten::special_xlog1py_other_scalar::self)
              .index == 0 &&
      sameParam(P::other, args::aten::special_xlog1py_self_scalar::other,
                args::aten::special_xlog1py_other_scalar::other)
              .index == 1);
  Value x = tensorOrScalar(l, P::self, r), y = tensorOrScalar(l, P::other, r);
  if (!x || !y)
    return l.fail("needs tensors or numbers");
  return l.replace(l.elementwise(
      {x, y}, r, r, [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
        using FP = arith::CmpFPredicate;
        Value zero = constantOf(b, loc, r, 0);
        Value product = arith::MulFOp::create(
            b, loc, v[0], math::Log1pOp::create(b, loc, v[1]));
        Value skip = arith::AndIOp::create(
            b, loc, arith::CmpFOp::create(b, loc, FP::OEQ, v[0], zero),
            arith::CmpFOp::create(b, loc, FP::ORD, v[1], v[1]));
        return arith::SelectOp::create(b, loc, skip, zero, product);
      }));
}

/// renorm(self, p, dim, maxnorm): each slice along dim whose p-norm
/// exceeds maxnorm scaled to maxnorm / (norm + 1e-7), as ATen.
LogicalResult lowerRenorm(Lowering &l) {
  using P = args::aten::renorm;
  Value x = l.tensor(P::self);
  Type r = l.resultElementType();
  auto maxnorm = l.constFloat(l.arg(P::maxnorm));
  if (!x || !r || !isFloat(r) || !maxnorm)
    return l.fail("needs a float tensor and a constant maxnorm");
  auto dim = l.normDim(l.arg(P::dim), std::max<int64_t>(rankOf(x), 1));
  if (!dim)
    return l.fail("dim must be a constant");
  SmallVector<int64_t> others;
  for (int64_t d = 0; d < rankOf(x); ++d)
    if (d != *dim)
      others.push_back(d);
  Value norms = l.lowerCall(
      "aten::linalg_vector_norm",
      {ref(l, 0), l.arg(P::p), ints(l, others), l.b.getBoolAttr(true)}, {x},
      tensorOf(r));
  if (!norms)
    return failure();
  return l.replace(l.elementwise(
      {x, norms}, r, r, [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
        Value limit = constantOf(b, loc, r, *maxnorm);
        Value scale = arith::DivFOp::create(
            b, loc, limit,
            arith::AddFOp::create(b, loc, v[1], constantOf(b, loc, r, 1e-7)));
        Value over = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT,
                                           v[1], limit);
        return arith::MulFOp::create(
            b, loc, v[0],
            arith::SelectOp::create(b, loc, over, scale,
                                    constantOf(b, loc, r, 1)));
      }));
}

/// linalg_vander(x, *, N): (.., n) -> (.., n, N), the powers 0 .. N - 1 of
/// each item (N = n by default).
LogicalResult lowerVander(Lowering &l) {
  using P = args::aten::linalg_vander;
  Value x = l.tensor(P::x);
  Type elem = l.resultElementType();
  if (!x || !elem || rankOf(x) < 1)
    return l.fail("needs a typed tensor of at least 1 dim");
  int64_t n = staticDim(x, rankOf(x) - 1);
  int64_t count = n;
  if (Attribute a = l.kwarg("N"); a && !l.isNone(a)) {
    auto value = l.constInt(a);
    if (!value || *value < 0)
      return l.fail("N must be a non-negative constant");
    count = *value;
  }
  if (ShapedType::isDynamic(count))
    return l.fail("needs a static size");
  SmallVector<double> exponents;
  for (int64_t j = 0; j < count; ++j)
    exponents.push_back(double(j));
  auto type = RankedTensorType::get({count}, l.b.getF64Type());
  Value powers = arith::ConstantOp::create(
      l.b, l.loc, DenseElementsAttr::get(type, ArrayRef<double>(exponents)));
  powers = l.castTensor(powers, elem);
  Value column = l.unsqueeze(l.castTensor(x, elem), rankOf(x));
  Value v = l.lowerCall("aten::pow.Tensor_Tensor", {ref(l, 0), ref(l, 1)},
                        {column, powers}, tensorOf(elem));
  return v ? l.replace(v) : failure();
}

/// native_layer_norm(input, normalized_shape, weight, bias, eps): layer
/// norm's result, and the mean and 1 / sqrt(var + eps) of each
/// normalized group, its dims kept as 1s.
LogicalResult lowerNativeLayerNorm(Lowering &l) {
  using P = args::aten::native_layer_norm;
  Value x = l.tensor(P::input);
  Type elem = l.resultElementType(0);
  auto shape = l.intList(P::normalized_shape);
  auto eps = l.constFloat(l.arg(P::eps));
  if (!x || !elem || !isFloat(elem) || !shape || !eps ||
      int64_t(shape->size()) > rankOf(x))
    return l.fail("needs a float tensor, a constant shape and eps");
  SmallVector<Attribute> args = {ref(l, 0), l.arg(P::normalized_shape)};
  SmallVector<Value> operands = {x};
  for (Param p : {P::weight, P::bias}) {
    if (l.isNone(p)) {
      args.push_back(none(l));
      continue;
    }
    Value t = l.tensor(p);
    if (!t)
      return failure();
    args.push_back(ref(l, operands.size()));
    operands.push_back(t);
  }
  args.append({l.arg(P::eps), l.b.getBoolAttr(true)});
  Value out = l.lowerCall("aten::layer_norm", args, operands, tensorOf(elem));
  if (!out)
    return failure();
  SmallVector<int64_t> dims;
  for (int64_t d = rankOf(x) - shape->size(); d < rankOf(x); ++d)
    dims.push_back(d);
  auto moments = momentsOver(l, l.castTensor(x, elem), dims, *eps, elem);
  if (!moments)
    return failure();
  return l.replaceTuple({out, moments->mean, moments->rstd});
}

} // namespace

void mlir::fx::lowering::addCompositeLowerings(llvm::StringMap<LowerFn> &t) {
  addLowering(t,
              {"aten::vdot", "aten::conj", "aten::conj_physical",
               "aten::resolve_conj", "aten::resolve_neg", "aten::real"},
              lowerRealSame);
  addLowering(t, {"aten::sgn"}, lowerSgn);
  addLowering(t, {"aten::isreal"}, lowerIsreal);
  addLowering(t, {"aten::angle"}, lowerAngle);
  addLowering(t, {"aten::isposinf", "aten::isneginf"}, lowerIsSignedInf);
  addLowering(t, {"aten::fmax", "aten::fmin"}, lowerFmaxFmin);
  addLowering(t,
              {"aten::atleast_1d", "aten::atleast_2d", "aten::atleast_3d",
               "aten::atleast_1d.Sequence", "aten::atleast_2d.Sequence",
               "aten::atleast_3d.Sequence"},
              lowerAtLeast);
  addLowering(
      t, {"aten::column_stack", "aten::hstack", "aten::vstack", "aten::dstack"},
      lowerStacks);
  addLowering(t, {"aten::movedim.intlist", "aten::movedim.int"}, lowerMovedim);
  addLowering(t, {"aten::msort"}, lowerMsort);
  addLowering(t, {"aten::kron"}, lowerKron);
  addLowering(t, {"aten::hypot"}, lowerHypot);
  addLowering(t, {"aten::aminmax"}, lowerAminmax);
  addLowering(t, {"aten::diagflat"}, lowerDiagflat);
  addLowering(t,
              {"aten::trapz.x", "aten::trapz.dx", "aten::trapezoid.x",
               "aten::trapezoid.dx", "aten::cumulative_trapezoid.x",
               "aten::cumulative_trapezoid.dx"},
              lowerTrapezoid);
  addLowering(t, {"aten::fft_fftshift", "aten::fft_ifftshift"}, lowerFftshift);
  addLowering(t, {"aten::round.decimals"}, lowerRoundDecimals);
  addLowering(t, {"aten::renorm"}, lowerRenorm);
  addLowering(t, {"aten::linalg_vander"}, lowerVander);
  addLowering(t, {"aten::combinations"}, lowerCombinations);
  addLowering(t, {"aten::native_layer_norm"}, lowerNativeLayerNorm);
  addLowering(t, {"aten::ldexp.Tensor"}, lowerLdexp);
  addLowering(t, {"aten::frexp.Tensor"}, lowerFrexp);
  addLowering(t, {"aten::nextafter"}, lowerNextafter);
  addLowering(t, {"aten::isin.Tensor_Tensor", "aten::isin.Tensor_Scalar"},
              lowerIsin);
  addLowering(t, {"aten::sum_to_size"}, lowerSumToSize);
  addLowering(t, {"aten::block_diag"}, lowerBlockDiag);
  addLowering(t, {"aten::meshgrid", "aten::meshgrid.indexing"}, lowerMeshgrid);
  addLowering(t, {"aten::cartesian_prod"}, lowerCartesianProd);
  addLowering(t, {"aten::special_ndtr"}, lowerNdtr);
  addLowering(t, {"aten::special_entr"}, lowerEntr);
  addLowering(t,
              {"aten::special_xlog1py", "aten::special_xlog1py.other_scalar",
               "aten::special_xlog1py.self_scalar"},
              lowerXlog1py);
}
