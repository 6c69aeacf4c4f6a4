//===- Comparisons.cpp - Comparisons, logical ops, where ------------------===//
//
// eq/ne/lt/le/gt/ge of tensors and numbers, in the type PyTorch promotes
// the operands to (promote); logical_and/or/xor/not; where and
// masked_fill, which select by a condition; and the tests of float values
// (isnan, isinf, isfinite, signbit, isclose), with nan_to_num, which
// replaces NaNs and infinities. One linalg.generic each, broadcast as in
// PyTorch; numbers are read with Elementwise.cpp's operand.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "mlir/Dialect/Complex/IR/Complex.h"

#include <limits>

#include <cmath>

using namespace mlir;
using namespace mlir::fx;
using namespace mlir::fx::lowering;

namespace {

/// The type PyTorch computes a comparison of `values` in: the widest float
/// if any, else the widest int; dimensioned tensors win over 0-d tensors
/// and scalars.
Type promote(Lowering &l, ArrayRef<Value> values) {
  auto category = [](Type t) {
    return isFloat(t) ? 2 : t.isInteger(1) ? 0 : 1;
  };
  Type best;
  for (int pass = 0; pass < 2 && !best; ++pass) {
    for (Value v : values) {
      auto t = dyn_cast<RankedTensorType>(v.getType());
      if (pass == 0 && (!t || t.getRank() == 0))
        continue;
      Type e = t ? t.getElementType() : v.getType();
      if (!best || category(e) > category(best) ||
          (category(e) == category(best) &&
           e.getIntOrFloatBitWidth() > best.getIntOrFloatBitWidth()))
        best = e;
    }
  }
  // A float scalar with int tensors computes in the default float; an int
  // scalar with bool tensors in int64 (x == 2 on bools is all False).
  for (Value v : values) {
    if (isa<RankedTensorType>(v.getType()) || !best)
      continue;
    if (category(v.getType()) > category(best))
      best = isFloat(v.getType()) ? Type(l.b.getF32Type())
                                  : Type(l.b.getI64Type());
  }
  return best;
}

/// signbit: the sign bit of floats (set for -0.0 and negative NaNs),
/// x < 0 for integers, false for bools.
LogicalResult lowerSignbit(Lowering &l) {
  using P = args::aten::signbit;
  Value x = l.tensor(P::self);
  if (!x)
    return l.fail("needs a tensor");
  Type elem = cast<RankedTensorType>(x.getType()).getElementType();
  return l.replace(l.elementwise(
      {x}, elem, l.b.getI1Type(),
      [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
        Value e = v[0];
        if (isFloat(elem)) {
          auto bits = b.getIntegerType(elem.getIntOrFloatBitWidth());
          e = arith::BitcastOp::create(b, loc, bits, e);
        } else if (elem.isInteger(1)) {
          return constantOf(b, loc, b.getI1Type(), 0);
        }
        return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, e,
                                     constantOf(b, loc, e.getType(), 0));
      }));
}

/// nan_to_num(x, nan, posinf, neginf): floats only (integers have none of
/// them and pass through); the defaults are 0 and the type's largest and
/// lowest finite values.
LogicalResult lowerNanToNum(Lowering &l) {
  using P = args::aten::nan_to_num;
  Value x = l.tensor(P::self);
  Type r = l.resultElementType();
  if (!x || !r)
    return l.fail("needs a typed tensor");
  if (!isFloat(r))
    return l.replace(x);
  auto floatType = cast<FloatType>(r);
  double largest = llvm::APFloat::getLargest(floatType.getFloatSemantics())
                       .convertToDouble();
  auto value = [&](Param p, double fallback) -> std::optional<double> {
    if (l.isNone(p))
      return fallback;
    return l.constFloat(l.arg(p));
  };
  auto nan = value(P::nan, 0), posinf = value(P::posinf, largest),
       neginf = value(P::neginf, -largest);
  if (!nan || !posinf || !neginf)
    return l.fail("nan, posinf and neginf must be constants");
  return l.replace(l.elementwise(
      {x}, r, r, [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
        Value e = v[0];
        Value inf = constantOf(b, loc, r, INFINITY);
        Value isNan =
            arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, e, e);
        Value isPos =
            arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, e, inf);
        Value isNeg =
            arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, e,
                                  arith::NegFOp::create(b, loc, inf));
        e = arith::SelectOp::create(b, loc, isNan, constantOf(b, loc, r, *nan),
                                    e);
        e = arith::SelectOp::create(b, loc, isPos,
                                    constantOf(b, loc, r, *posinf), e);
        return arith::SelectOp::create(b, loc, isNeg,
                                       constantOf(b, loc, r, *neginf), e);
      }));
}

/// isclose(self, other, rtol, atol, equal_nan) of float tensors, as ATen
/// computes it: equal, or both NaN when equal_nan, or a finite
/// |self - other| <= atol + |rtol * other|, in the tensors' type.
LogicalResult lowerIsclose(Lowering &l) {
  using P = args::aten::isclose;
  Value x = l.tensor(P::self), y = l.tensor(P::other);
  Type elem = l.resultElementType();
  if (!x || !y || !elem)
    return l.fail("needs two tensors");
  Type compute = cast<RankedTensorType>(x.getType()).getElementType();
  if (!isFloat(compute) ||
      compute != cast<RankedTensorType>(y.getType()).getElementType())
    return l.fail("isclose is compiled for float tensors of one dtype");
  auto rtol = l.isNone(P::rtol) ? std::optional<double>(1e-5)
                                : l.constFloat(l.arg(P::rtol));
  auto atol = l.isNone(P::atol) ? std::optional<double>(1e-8)
                                : l.constFloat(l.arg(P::atol));
  bool equalNan = l.constBool(P::equal_nan).value_or(false);
  if (!rtol || !atol)
    return l.fail("rtol and atol must be constants");
  return l.replace(l.elementwise(
      {x, y}, compute, elem,
      [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
        using P = arith::CmpFPredicate;
        Value close = arith::CmpFOp::create(b, loc, P::OEQ, v[0], v[1]);
        if (equalNan)
          close = arith::OrIOp::create(
              b, loc, close,
              arith::AndIOp::create(
                  b, loc, arith::CmpFOp::create(b, loc, P::UNO, v[0], v[0]),
                  arith::CmpFOp::create(b, loc, P::UNO, v[1], v[1])));
        if (*rtol == 0 && *atol == 0)
          return close;
        Value allowed = arith::AddFOp::create(
            b, loc, constantOf(b, loc, compute, *atol),
            math::AbsFOp::create(
                b, loc,
                arith::MulFOp::create(
                    b, loc, constantOf(b, loc, compute, *rtol), v[1])));
        Value actual = math::AbsFOp::create(
            b, loc, arith::SubFOp::create(b, loc, v[0], v[1]));
        Value finite = arith::CmpFOp::create(
            b, loc, P::ONE, actual,
            constantOf(b, loc, compute,
                       std::numeric_limits<double>::infinity()));
        Value within = arith::CmpFOp::create(b, loc, P::OLE, actual, allowed);
        return arith::OrIOp::create(
            b, loc, close, arith::AndIOp::create(b, loc, finite, within));
      }));
}

LogicalResult lowerLogicalNotImpl(Lowering &l) {
  using P = args::aten::logical_not;
  Value x = l.tensor(P::self);
  Type r = l.resultElementType();
  if (!x || !r)
    return l.fail("needs a typed tensor");
  return l.replace(l.elementwise(
      {x}, l.b.getI1Type(), r, [&](OpBuilder &b, Location loc, ValueRange v) {
        return arith::XOrIOp::create(b, loc, v[0],
                                     constantOf(b, loc, b.getI1Type(), 1))
            .getResult();
      }));
}

/// masked_fill(self, mask, value): where(mask, value, self).
LogicalResult lowerMaskedFill(Lowering &l) {
  // Parameters as aten::masked_fill.Scalar names them, at the same positions in
  // aten::masked_fill.Tensor.
  using P = args::aten::masked_fill_Scalar;
  Type r = l.resultElementType();
  Value x = l.tensor(P::self), mask = l.tensor(P::mask);
  if (!x || !mask || !r)
    return l.fail("needs typed tensors");
  Value v = operand(l, l.arg(P::value), r);
  if (!v)
    return l.fail("unsupported fill value");
  return l.replace(l.elementwise(
      {mask, v, x}, r, r, [&](OpBuilder &b, Location loc, ValueRange a) {
        Value cond = l.convert(a[0], b.getI1Type());
        return arith::SelectOp::create(b, loc, cond, a[1], a[2]).getResult();
      }));
}

/// isnan, isinf, isfinite: a bool per item (integers are always finite).
LogicalResult lowerFloatClass(Lowering &l, arith::CmpFPredicate predicate,
                              bool absolute, bool integerResult) {
  // Parameters as aten::isfinite names them, at the same positions in
  // aten::isinf, aten::isnan.
  using P = args::aten::isfinite;
  Value x = l.tensor(P::self);
  if (!x)
    return l.fail("needs a tensor");
  Type elem = cast<RankedTensorType>(x.getType()).getElementType();
  Type i1 = l.b.getI1Type();
  return l.replace(l.elementwise(
      {x}, elem, i1, [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
        if (!isFloat(elem))
          return constantOf(b, loc, i1, integerResult ? 1 : 0);
        Value y =
            absolute ? math::AbsFOp::create(b, loc, v[0]).getResult() : v[0];
        Value other = absolute
                          ? constantOf(b, loc, elem,
                                       std::numeric_limits<double>::infinity())
                          : v[0];
        return arith::CmpFOp::create(b, loc, predicate, y, other);
      }));
}
LogicalResult lowerIsnan(Lowering &l) {
  return lowerFloatClass(l, arith::CmpFPredicate::UNO, false, false);
}
LogicalResult lowerIsinf(Lowering &l) {
  return lowerFloatClass(l, arith::CmpFPredicate::OEQ, true, false);
}
LogicalResult lowerIsfinite(Lowering &l) {
  return lowerFloatClass(l, arith::CmpFPredicate::OLT, true, true);
}

//===----------------------------------------------------------------------===//
// Comparisons, logical ops, where
//===----------------------------------------------------------------------===//

template <arith::CmpFPredicate FP, arith::CmpIPredicate IP>
LogicalResult lowerCompare(Lowering &l) {
  // Parameters as aten::eq.Scalar names them, at the same positions in
  // aten::eq.Tensor and 10 more.
  using P = args::aten::eq_Scalar;
  Type r = l.resultElementType();
  Value x = l.value(l.arg(P::self));
  Value y = l.value(l.arg(P::other));
  if (!x || !r)
    return l.fail("needs a typed tensor");
  SmallVector<Value> probe = {x};
  if (y)
    probe.push_back(y);
  else if (auto f = dyn_cast_or_null<FloatAttr>(l.arg(P::other)))
    probe.push_back(l.constant(l.b.getF64Type(), f.getValueAsDouble()));
  else if (auto i = dyn_cast_or_null<IntegerAttr>(l.arg(P::other));
           i && !i.getType().isInteger(1))
    // An int against bools (x == 2) compares in int64 (promote), where the
    // int is not made a bool first.
    probe.push_back(l.constant(l.b.getI64Type(), double(i.getInt())));
  Type compute = promote(l, probe);
  if (!y)
    y = l.scalar(l.arg(P::other), compute);
  if (!y)
    return l.fail("unsupported comparison operand");
  return l.replace(l.elementwise(
      {x, y}, compute, r, [&](OpBuilder &b, Location loc, ValueRange v) {
        if (isFloat(v[0].getType()))
          return arith::CmpFOp::create(b, loc, FP, v[0], v[1]).getResult();
        return arith::CmpIOp::create(b, loc, intPredicate(IP, v[0].getType()),
                                     v[0], v[1])
            .getResult();
      }));
}

template <typename OpTy> LogicalResult lowerLogical(Lowering &l) {
  // Parameters as aten::logical_and names them, at the same positions in
  // aten::logical_or, aten::logical_xor.
  using P = args::aten::logical_and;
  Type r = l.resultElementType();
  Value x = l.tensor(P::self), y = l.tensor(P::other);
  if (!x || !y || !r)
    return l.fail("needs typed tensors");
  return l.replace(
      l.elementwise({x, y}, l.b.getI1Type(), r,
                    [&](OpBuilder &b, Location loc, ValueRange v) {
                      return OpTy::create(b, loc, v[0], v[1]).getResult();
                    }));
}

LogicalResult lowerWhere(Lowering &l) {
  // Parameters as aten::where.Scalar names them, at the same positions in
  // aten::where.ScalarOther and 2 more.
  using P = args::aten::where_Scalar;
  Type r = l.resultElementType();
  Value c = l.tensor(P::condition);
  if (!c || !r)
    return l.fail("needs a typed condition");
  Value x = operand(l, l.arg(P::self), r), y = operand(l, l.arg(P::other), r);
  if (!x || !y)
    return l.fail("unsupported where operands");
  // The condition stays i1: cast it to the compute type and back would
  // lose nothing, but select needs i1.
  return l.replace(l.elementwise(
      {c, x, y}, r, r, [&](OpBuilder &b, Location loc, ValueRange v) {
        Value cond = v[0];
        if (!cond.getType().isInteger(1)) {
          Type t = cond.getType();
          cond = isa<ComplexType>(t)
                     ? complex::NotEqualOp::create(b, loc, cond,
                                                   constantOf(b, loc, t, 0))
                           .getResult()
                 : isFloat(t)
                     ? arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE,
                                             cond, constantOf(b, loc, t, 0))
                           .getResult()
                     : arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                             cond, constantOf(b, loc, t, 0))
                           .getResult();
        }
        return arith::SelectOp::create(b, loc, cond, v[1], v[2]).getResult();
      }));
}

} // namespace

void mlir::fx::lowering::addComparisonLowerings(llvm::StringMap<LowerFn> &t) {
  addLowering(t, {"aten::masked_fill.Scalar", "aten::masked_fill.Tensor"},
              lowerMaskedFill);
  addLowering(t, {"aten::isnan"}, lowerIsnan);
  addLowering(t, {"aten::isinf"}, lowerIsinf);
  addLowering(t, {"aten::isfinite"}, lowerIsfinite);
  addLowering(t, {"aten::signbit"}, lowerSignbit);
  addLowering(t, {"aten::nan_to_num"}, lowerNanToNum);
  addLowering(t, {"aten::isclose"}, lowerIsclose);
  using FP = arith::CmpFPredicate;
  using IP = arith::CmpIPredicate;
  addLowering(t, {"aten::eq.Tensor", "aten::eq.Scalar"},
              lowerCompare<FP::OEQ, IP::eq>);
  addLowering(t, {"aten::ne.Tensor", "aten::ne.Scalar"},
              lowerCompare<FP::UNE, IP::ne>);
  addLowering(t, {"aten::lt.Tensor", "aten::lt.Scalar"},
              lowerCompare<FP::OLT, IP::slt>);
  addLowering(t, {"aten::le.Tensor", "aten::le.Scalar"},
              lowerCompare<FP::OLE, IP::sle>);
  addLowering(t, {"aten::gt.Tensor", "aten::gt.Scalar"},
              lowerCompare<FP::OGT, IP::sgt>);
  addLowering(t, {"aten::ge.Tensor", "aten::ge.Scalar"},
              lowerCompare<FP::OGE, IP::sge>);
  addLowering(t, {"aten::logical_and"}, lowerLogical<arith::AndIOp>);
  addLowering(t, {"aten::logical_or"}, lowerLogical<arith::OrIOp>);
  addLowering(t, {"aten::logical_xor"}, lowerLogical<arith::XOrIOp>);
  addLowering(t, {"aten::logical_not"}, lowerLogicalNotImpl);
  addLowering(t,
              {"aten::where.self", "aten::where.ScalarSelf",
               "aten::where.ScalarOther", "aten::where.Scalar"},
              lowerWhere);
}
