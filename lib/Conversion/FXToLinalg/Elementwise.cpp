//===- Elementwise.cpp - Elementwise aten ops to linalg.generic -----------===//
//
// Arithmetic, activations, bitwise ops, clamps, roundings, casts and the
// identities of eval mode (dropout, clone, contiguous), with PyTorch
// broadcasting. Comparisons, logical ops, where and the tests of float
// values (isnan, isclose) are in Comparisons.cpp; arithmetic on Python
// ints, torch._assert and prim::RaiseException in Scalars.cpp.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

#include <cmath>

using namespace mlir;
using namespace mlir::fx;
using namespace mlir::fx::lowering;

namespace {
using Body = function_ref<Value(OpBuilder &, Location, ValueRange)>;

} // namespace

/// Operand `a` as a tensor value, or as a scalar of `type` when it is a
/// Python number.
Value mlir::fx::lowering::operand(Lowering &l, Attribute a, Type type) {
  if (Value v = l.value(a))
    if (isa<RankedTensorType>(v.getType()))
      return v;
  return l.scalar(a, type);
}

namespace {

LogicalResult unary(Lowering &l, Body body) {
  // Parameters as aten::bitwise_not names them, at the same positions in
  // aten::celu and 7 more.
  using P = args::aten::bitwise_not;
  Value x = l.tensor(P::self);
  Type r = l.resultElementType();
  if (!x || !r)
    return l.fail("needs a typed tensor");
  return l.replace(l.elementwise({x}, r, r, body));
}

Value sub(OpBuilder &b, Location loc, Value x, Value y) {
  return isFloat(x.getType()) ? arith::SubFOp::create(b, loc, x, y).getResult()
                              : arith::SubIOp::create(b, loc, x, y).getResult();
}
Value mul(OpBuilder &b, Location loc, Value x, Value y) {
  return isFloat(x.getType()) ? arith::MulFOp::create(b, loc, x, y).getResult()
                              : arith::MulIOp::create(b, loc, x, y).getResult();
}
Value maxv(OpBuilder &b, Location loc, Value x, Value y) {
  return isFloat(x.getType())
             ? arith::MaximumFOp::create(b, loc, x, y).getResult()
             : maxInt(b, loc, x, y);
}
Value minv(OpBuilder &b, Location loc, Value x, Value y) {
  return isFloat(x.getType())
             ? arith::MinimumFOp::create(b, loc, x, y).getResult()
             : minInt(b, loc, x, y);
}
/// max(x, lo) for a scalar bound as ATen's clamp computes it: `x < lo ? lo
/// : x`, so -0.0 stays -0.0 against 0 and a NaN bound leaves x (IEEE
/// maximum, maxv, gives +0.0 and NaN); a NaN x stays NaN. One `maxps`
/// with its operands in that order.
static Value clampBelow(OpBuilder &b, Location loc, Value x, Value lo) {
  if (!isFloat(x.getType()))
    return maxInt(b, loc, x, lo);
  Value below = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, lo);
  return arith::SelectOp::create(b, loc, below, lo, x);
}
/// min(x, hi) for a scalar bound as ATen's clamp computes it: `x > hi ? hi
/// : x` (clampBelow).
static Value clampAbove(OpBuilder &b, Location loc, Value x, Value hi) {
  if (!isFloat(x.getType()))
    return minv(b, loc, x, hi);
  Value above = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x, hi);
  return arith::SelectOp::create(b, loc, above, hi, x);
}
Value sigmoid(OpBuilder &b, Location loc, Value x) {
  Type t = x.getType();
  Value neg = arith::NegFOp::create(b, loc, x);
  Value e = math::ExpOp::create(b, loc, neg);
  Value one = constantOf(b, loc, t, 1.0);
  return arith::DivFOp::create(b, loc, one,
                               arith::AddFOp::create(b, loc, one, e));
}

Value gelu(OpBuilder &b, Location loc, Value x, bool useTanh) {
  Type t = x.getType();
  Value half = constantOf(b, loc, t, 0.5), one = constantOf(b, loc, t, 1.0);
  Value inner;
  if (useTanh) {
    // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
    Value x3 =
        arith::MulFOp::create(b, loc, x, arith::MulFOp::create(b, loc, x, x));
    Value s = arith::AddFOp::create(
        b, loc, x,
        arith::MulFOp::create(b, loc, constantOf(b, loc, t, 0.044715), x3));
    inner = math::TanhOp::create(
        b, loc,
        arith::MulFOp::create(b, loc,
                              constantOf(b, loc, t, std::sqrt(2 / M_PI)), s));
  } else {
    inner = math::ErfOp::create(
        b, loc,
        arith::MulFOp::create(b, loc, x, constantOf(b, loc, t, M_SQRT1_2)));
  }
  return arith::MulFOp::create(b, loc, arith::MulFOp::create(b, loc, half, x),
                               arith::AddFOp::create(b, loc, one, inner));
}

/// x * min(max(x + 3, 0), 6) / 6
Value hardswish(OpBuilder &b, Location loc, Value x) {
  Type t = x.getType();
  return arith::DivFOp::create(
      b, loc,
      arith::MulFOp::create(
          b, loc, x,
          minv(b, loc,
               maxv(b, loc, add(b, loc, x, constantOf(b, loc, t, 3)),
                    constantOf(b, loc, t, 0)),
               constantOf(b, loc, t, 6))),
      constantOf(b, loc, t, 6));
}

//===----------------------------------------------------------------------===//
// Binary arithmetic
//===----------------------------------------------------------------------===//

/// `self op other` with an optional `alpha` scaling `other`.
LogicalResult
binary(Lowering &l, Attribute lhs, Attribute rhs, Attribute alpha,
       function_ref<Value(OpBuilder &, Location, Value, Value)> fn) {
  Type r = l.resultElementType();
  if (!r)
    return l.fail("needs a typed result");
  Value x = operand(l, lhs, r), y = operand(l, rhs, r);
  if (!x || !y)
    return l.fail("unsupported operands");
  if (!isa<RankedTensorType>(x.getType()) &&
      !isa<RankedTensorType>(y.getType()))
    return l.fail("needs a tensor operand");
  Value a;
  if (alpha && !l.isNone(alpha) && l.constFloat(alpha) != 1.0)
    a = l.scalar(alpha, r);
  return l.replace(l.elementwise(
      {x, y}, r, r, [&](OpBuilder &b, Location loc, ValueRange v) {
        Value other = a ? mul(b, loc, v[1], a) : v[1];
        return fn(b, loc, v[0], other);
      }));
}

/// The alpha of add/sub/rsub: keyword-only in the .Tensor overloads,
/// third in the .Scalar ones.
Attribute alphaOf(Lowering &l) {
  namespace A = args::aten;
  static constexpr Param kKeyword = sameParam(
      A::add_Tensor::alpha, A::sub_Tensor::alpha, A::rsub_Tensor::alpha);
  static constexpr Param kPositional = sameParam(
      A::add_Scalar::alpha, A::sub_Scalar::alpha, A::rsub_Scalar::alpha);
  if (Attribute a = l.arg(kKeyword))
    return a;
  return l.arg(kPositional);
}

LogicalResult lowerAdd(Lowering &l) {
  // Parameters as aten::add.Scalar names them, at the same positions in
  // aten::add.Tensor.
  using P = args::aten::add_Scalar;
  return binary(l, l.arg(P::self), l.arg(P::other), alphaOf(l), add);
}
LogicalResult lowerSub(Lowering &l) {
  // Parameters as aten::sub.Scalar names them, at the same positions in
  // aten::sub.Tensor.
  using P = args::aten::sub_Scalar;
  return binary(l, l.arg(P::self), l.arg(P::other), alphaOf(l), sub);
}
LogicalResult lowerRsub(Lowering &l) {
  // Parameters as aten::rsub.Scalar names them, at the same positions in
  // aten::rsub.Tensor.
  using P = args::aten::rsub_Scalar;
  // rsub(self, other, alpha) = other - alpha * self
  Type r = l.resultElementType();
  if (!r)
    return l.fail("needs a typed result");
  Value x = operand(l, l.arg(P::self), r), y = operand(l, l.arg(P::other), r);
  Attribute alpha = alphaOf(l);
  Value a = alpha && !l.isNone(alpha) ? l.scalar(alpha, r) : Value();
  if (!x || !y)
    return l.fail("unsupported operands");
  return l.replace(l.elementwise(
      {x, y}, r, r, [&](OpBuilder &b, Location loc, ValueRange v) {
        return sub(b, loc, v[1], a ? mul(b, loc, v[0], a) : v[0]);
      }));
}
LogicalResult lowerMul(Lowering &l) {
  // Parameters as aten::mul.Scalar names them, at the same positions in
  // aten::mul.Tensor.
  using P = args::aten::mul_Scalar;
  return binary(l, l.arg(P::self), l.arg(P::other), {}, mul);
}
LogicalResult lowerMaximum(Lowering &l) {
  // Parameters as aten::max.other names them, at the same positions in
  // aten::maximum.
  using P = args::aten::max_other;
  return binary(l, l.arg(P::self), l.arg(P::other), {}, maxv);
}
LogicalResult lowerMinimum(Lowering &l) {
  // Parameters as aten::min.other names them, at the same positions in
  // aten::minimum.
  using P = args::aten::min_other;
  return binary(l, l.arg(P::self), l.arg(P::other), {}, minv);
}

/// PyTorch's floor division of floats (c10's div_floor_floating), not
/// floor(x / y): from the remainder, so that -1 // inf is -1 and the result
/// is the nearest integer to an exact quotient.
Value floorDivFloat(OpBuilder &b, Location loc, Value x, Value y) {
  using FP = arith::CmpFPredicate;
  Type t = x.getType();
  Value zero = constantOf(b, loc, t, 0), one = constantOf(b, loc, t, 1),
        half = constantOf(b, loc, t, 0.5);
  auto cmp = [&](FP p, Value u, Value v) {
    return arith::CmpFOp::create(b, loc, p, u, v).getResult();
  };
  Value mod = arith::RemFOp::create(b, loc, x, y);
  Value div =
      arith::DivFOp::create(b, loc, arith::SubFOp::create(b, loc, x, mod), y);
  Value adjust =
      arith::AndIOp::create(b, loc, cmp(FP::UNE, mod, zero),
                            arith::XOrIOp::create(b, loc, cmp(FP::OLT, y, zero),
                                                  cmp(FP::OLT, mod, zero)));
  div = arith::SelectOp::create(b, loc, adjust,
                                arith::SubFOp::create(b, loc, div, one), div);
  Value floored = math::FloorOp::create(b, loc, div);
  Value roundUp =
      cmp(FP::OGT, arith::SubFOp::create(b, loc, div, floored), half);
  floored = arith::SelectOp::create(
      b, loc, roundUp, arith::AddFOp::create(b, loc, floored, one), floored);
  Value quotient = arith::DivFOp::create(b, loc, x, y);
  Value signedZero = math::CopySignOp::create(b, loc, zero, quotient);
  Value result = arith::SelectOp::create(b, loc, cmp(FP::UNE, div, zero),
                                         floored, signedZero);
  return arith::SelectOp::create(b, loc, cmp(FP::OEQ, y, zero), quotient,
                                 result);
}

/// x ** y on integers as PyTorch computes it: by squaring, in a loop over
/// the exponent's bits; a negative exponent gives 1 for x = 1, +-1 for
/// x = -1 and 0 otherwise. (math.ipowi's outlined helper is not found by
/// the JIT once the module is split for parallel code generation.)
Value intPow(OpBuilder &b, Location loc, Value x, Value y) {
  using IP = arith::CmpIPredicate;
  Type t = x.getType();
  Value zero = constantOf(b, loc, t, 0), one = constantOf(b, loc, t, 1),
        minusOne = constantOf(b, loc, t, -1);
  auto loop = scf::WhileOp::create(
      b, loc, TypeRange{t, t, t}, ValueRange{one, x, y},
      [&](OpBuilder &nb, Location l, ValueRange v) {
        Value more = arith::CmpIOp::create(nb, l, IP::sgt, v[2], zero);
        scf::ConditionOp::create(nb, l, more, v);
      },
      [&](OpBuilder &nb, Location l, ValueRange v) {
        Value odd = arith::CmpIOp::create(
            nb, l, IP::ne, arith::AndIOp::create(nb, l, v[2], one), zero);
        Value result = arith::SelectOp::create(
            nb, l, odd, arith::MulIOp::create(nb, l, v[0], v[1]), v[0]);
        Value base = arith::MulIOp::create(nb, l, v[1], v[1]);
        Value exponent = arith::ShRSIOp::create(nb, l, v[2], one);
        scf::YieldOp::create(nb, l, ValueRange{result, base, exponent});
      });
  Value positive = loop.getResult(0);
  Value odd = arith::CmpIOp::create(
      b, loc, IP::ne, arith::AndIOp::create(b, loc, y, one), zero);
  Value negative = arith::SelectOp::create(
      b, loc, arith::CmpIOp::create(b, loc, IP::eq, x, one), one,
      arith::SelectOp::create(
          b, loc, arith::CmpIOp::create(b, loc, IP::eq, x, minusOne),
          arith::SelectOp::create(b, loc, odd, minusOne, one), zero));
  return arith::SelectOp::create(
      b, loc, arith::CmpIOp::create(b, loc, IP::slt, y, zero), negative,
      positive);
}

enum class IntDivision { Trunc, Floor, Remainder };

/// x / y on integers (rounded as `kind` says, or the remainder of the
/// truncated quotient) without x86's idiv traps: a zero divisor divides by
/// 1 (the node's run-time check, checkIntDivisor, fails the call instead)
/// and -1 negates, so that INT_MIN / -1 wraps as ATen's does.
Value intDivide(OpBuilder &b, Location loc, Value x, Value y,
                IntDivision kind) {
  Type t = x.getType();
  Value zero = constantOf(b, loc, t, 0), one = constantOf(b, loc, t, 1),
        minusOne = constantOf(b, loc, t, -1);
  Value isZero =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, y, zero);
  Value isMinusOne =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, y, minusOne);
  Value safe = arith::SelectOp::create(
      b, loc, arith::OrIOp::create(b, loc, isZero, isMinusOne), one, y);
  if (kind == IntDivision::Remainder)
    return arith::RemSIOp::create(b, loc, x, safe);
  Value q = kind == IntDivision::Floor
                ? arith::FloorDivSIOp::create(b, loc, x, safe).getResult()
                : arith::DivSIOp::create(b, loc, x, safe).getResult();
  return arith::SelectOp::create(b, loc, isMinusOne,
                                 arith::SubIOp::create(b, loc, zero, x), q);
}

/// For an integer division of the node (result element type `r`) by
/// `divisor`: a constant zero is an error now, a tensor is checked while
/// the code runs (PyTorch raises ZeroDivisionError).
LogicalResult checkIntDivisor(Lowering &l, Attribute divisor, Type r) {
  if (!r || isFloat(r))
    return success();
  if (std::optional<int64_t> c = l.constInt(divisor)) {
    if (*c == 0)
      return l.fail("integer division by zero (ZeroDivisionError)");
    return success();
  }
  Value y = operand(l, divisor, r);
  if (!y || !isa<RankedTensorType>(y.getType()))
    return success();
  Value zero = l.elementwise(
      {y}, r, l.b.getI1Type(), [](OpBuilder &b, Location loc, ValueRange v) {
        return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, v[0],
                                     constantOf(b, loc, v[0].getType(), 0))
            .getResult();
      });
  l.check(zero, "ZeroDivisionError: integer division by zero");
  return success();
}

LogicalResult lowerDiv(Lowering &l) {
  // Parameters as aten::div.Scalar names them, at the same positions in
  // aten::div.Scalar_mode and 4 more.
  using P = args::aten::div_Scalar;
  static constexpr Param kMode =
      sameParam(args::aten::div_Tensor_mode::rounding_mode,
                args::aten::div_Scalar_mode::rounding_mode);
  Attribute modeAttr = l.arg(kMode);
  StringRef mode = "";
  if (auto s = dyn_cast_or_null<StringAttr>(modeAttr))
    mode = s.getValue();
  if (failed(checkIntDivisor(l, l.arg(P::other), l.resultElementType())))
    return failure();
  return binary(l, l.arg(P::self), l.arg(P::other), {},
                [&](OpBuilder &b, Location loc, Value x, Value y) -> Value {
                  if (isFloat(x.getType())) {
                    Value q = arith::DivFOp::create(b, loc, x, y);
                    if (mode == "trunc")
                      return math::TruncOp::create(b, loc, q);
                    if (mode == "floor")
                      return floorDivFloat(b, loc, x, y);
                    return q;
                  }
                  return intDivide(b, loc, x, y,
                                   mode == "floor" ? IntDivision::Floor
                                                   : IntDivision::Trunc);
                });
}

LogicalResult lowerFloorDivide(Lowering &l) {
  // Parameters as aten::floor_divide names them, at the same positions in
  // aten::floor_divide.Scalar.
  using P = args::aten::floor_divide;
  if (failed(checkIntDivisor(l, l.arg(P::other), l.resultElementType())))
    return failure();
  return binary(l, l.arg(P::self), l.arg(P::other), {},
                [](OpBuilder &b, Location loc, Value x, Value y) -> Value {
                  if (isFloat(x.getType()))
                    return floorDivFloat(b, loc, x, y);
                  return intDivide(b, loc, x, y, IntDivision::Floor);
                });
}

LogicalResult lowerPow(Lowering &l) {
  // Parameters as aten::pow.Tensor_Scalar names them, at the same positions in
  // aten::pow.Tensor_Tensor.
  using P = args::aten::pow_Tensor_Scalar;
  std::optional<double> exponent = l.constFloat(l.arg(P::exponent));
  return binary(l, l.arg(P::self), l.arg(P::exponent), {},
                [&](OpBuilder &b, Location loc, Value x, Value y) -> Value {
                  if (exponent && *exponent == 2.0)
                    return mul(b, loc, x, x);
                  if (exponent && *exponent == 1.0)
                    return x;
                  if (isFloat(x.getType())) {
                    if (exponent && *exponent == 0.5)
                      return math::SqrtOp::create(b, loc, x);
                    return math::PowFOp::create(b, loc, x, y);
                  }
                  return intPow(b, loc, x, y);
                });
}

//===----------------------------------------------------------------------===//
// Unary
//===----------------------------------------------------------------------===//

/// 1, -1 or 0 by the sign of `x`, as ATen's `(0 < x) - (x < 0)`: 0 for
/// 0, -0 and NaN.
Value sign(OpBuilder &b, Location loc, Value x) {
  Type t = x.getType();
  Value zero = constantOf(b, loc, t, 0);
  Value one = constantOf(b, loc, t, 1), minusOne = constantOf(b, loc, t, -1);
  Value positive, negative;
  if (isFloat(t)) {
    positive =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x, zero);
    negative =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, zero);
  } else {
    positive =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, x, zero);
    negative =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x, zero);
  }
  return arith::SelectOp::create(
      b, loc, positive, one,
      arith::SelectOp::create(b, loc, negative, minusOne, zero));
}

#define FX_UNARY(NAME, EXPR)                                                   \
  LogicalResult NAME(Lowering &l) {                                            \
    return unary(l, [&](OpBuilder &b, Location loc, ValueRange v) -> Value {   \
      Value x = v[0];                                                          \
      Type t = x.getType();                                                    \
      (void)t;                                                                 \
      return EXPR;                                                             \
    });                                                                        \
  }

FX_UNARY(lowerNeg, isFloat(t) ? arith::NegFOp::create(b, loc, x).getResult()
                              : sub(b, loc, constantOf(b, loc, t, 0), x))
FX_UNARY(lowerAbs, isFloat(t) ? math::AbsFOp::create(b, loc, x).getResult()
                              : math::AbsIOp::create(b, loc, x).getResult())
FX_UNARY(lowerExp, math::ExpOp::create(b, loc, x))
FX_UNARY(lowerLog, math::LogOp::create(b, loc, x))
FX_UNARY(lowerSqrt, math::SqrtOp::create(b, loc, x))
FX_UNARY(lowerRsqrt, math::RsqrtOp::create(b, loc, x))
FX_UNARY(lowerReciprocal,
         arith::DivFOp::create(b, loc, constantOf(b, loc, t, 1.0), x))
FX_UNARY(lowerErf, math::ErfOp::create(b, loc, x))
FX_UNARY(lowerSin, math::SinOp::create(b, loc, x))
FX_UNARY(lowerCos, math::CosOp::create(b, loc, x))
FX_UNARY(lowerTanh, math::TanhOp::create(b, loc, x))
FX_UNARY(lowerSigmoid, sigmoid(b, loc, x))
FX_UNARY(lowerRelu, clampBelow(b, loc, x, constantOf(b, loc, t, 0)))
FX_UNARY(lowerSilu, arith::MulFOp::create(b, loc, x, sigmoid(b, loc, x)))
FX_UNARY(lowerHardswish, hardswish(b, loc, x))
FX_UNARY(lowerHardsigmoid,
         arith::DivFOp::create(
             b, loc,
             minv(b, loc,
                  maxv(b, loc, add(b, loc, x, constantOf(b, loc, t, 3)),
                       constantOf(b, loc, t, 0)),
                  constantOf(b, loc, t, 6)),
             constantOf(b, loc, t, 6)))
FX_UNARY(lowerTan, math::TanOp::create(b, loc, x))
FX_UNARY(lowerAtan, math::AtanOp::create(b, loc, x))
FX_UNARY(lowerLog1p, math::Log1pOp::create(b, loc, x))
FX_UNARY(lowerExpm1, math::ExpM1Op::create(b, loc, x))
FX_UNARY(lowerLog2, math::Log2Op::create(b, loc, x))
FX_UNARY(lowerSign, sign(b, loc, x))
FX_UNARY(lowerSquare, mul(b, loc, x, x))
FX_UNARY(lowerExp2, math::Exp2Op::create(b, loc, x))

FX_UNARY(lowerSinh, math::SinhOp::create(b, loc, x))
FX_UNARY(lowerCosh, math::CoshOp::create(b, loc, x))
FX_UNARY(lowerAsinh, math::AsinhOp::create(b, loc, x))
FX_UNARY(lowerAcosh, math::AcoshOp::create(b, loc, x))
FX_UNARY(lowerAtanh, math::AtanhOp::create(b, loc, x))
FX_UNARY(lowerAsin, math::AsinOp::create(b, loc, x))
FX_UNARY(lowerAcos, math::AcosOp::create(b, loc, x))
FX_UNARY(lowerErfc, math::ErfcOp::create(b, loc, x))
FX_UNARY(lowerLog10, math::Log10Op::create(b, loc, x))
FX_UNARY(lowerFrac,
         arith::SubFOp::create(b, loc, x, math::TruncOp::create(b, loc, x)))
// As ATen: the constant rounded to the tensor's type, one multiplication.
FX_UNARY(lowerDeg2rad,
         arith::MulFOp::create(b, loc, x, constantOf(b, loc, t, M_PI / 180)))
FX_UNARY(lowerRad2deg,
         arith::MulFOp::create(b, loc, x, constantOf(b, loc, t, 180 / M_PI)))
FX_UNARY(lowerSinc, [&]() -> Value {
  Value px = arith::MulFOp::create(b, loc, x, constantOf(b, loc, t, M_PI));
  Value q = arith::DivFOp::create(b, loc, math::SinOp::create(b, loc, px), px);
  Value zero = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, x,
                                     constantOf(b, loc, t, 0));
  return arith::SelectOp::create(b, loc, zero, constantOf(b, loc, t, 1), q);
}())

LogicalResult lowerHeaviside(Lowering &l) {
  using P = args::aten::heaviside;
  return binary(
      l, l.arg(P::self), l.arg(P::values), {},
      [](OpBuilder &b, Location loc, Value x, Value v) -> Value {
        Type t = x.getType();
        Value zero = constantOf(b, loc, t, 0);
        Value isZero, positive;
        if (isFloat(t)) {
          isZero =
              arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, x, zero);
          positive =
              arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x, zero);
        } else {
          isZero =
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, zero);
          positive =
              arith::CmpIOp::create(b, loc,
                                    t.isInteger(1) ? arith::CmpIPredicate::ugt
                                                   : arith::CmpIPredicate::sgt,
                                    x, zero);
        }
        Value step = arith::SelectOp::create(b, loc, positive,
                                             constantOf(b, loc, t, 1), zero);
        return arith::SelectOp::create(b, loc, isZero, v, step);
      });
}

LogicalResult lowerFmod(Lowering &l) {
  // Parameters as aten::fmod.Scalar names them, at the same positions in
  // aten::fmod.Tensor.
  using P = args::aten::fmod_Scalar;
  if (failed(checkIntDivisor(l, l.arg(P::other), l.resultElementType())))
    return failure();
  return binary(l, l.arg(P::self), l.arg(P::other), {},
                [](OpBuilder &b, Location loc, Value x, Value y) -> Value {
                  if (isFloat(x.getType()))
                    return arith::RemFOp::create(b, loc, x, y);
                  return intDivide(b, loc, x, y, IntDivision::Remainder);
                });
}

/// logaddexp(x, y) = max + log1p(exp(-|x - y|)) (in base 2 for
/// logaddexp2: max + log1p(exp2(-|x - y|)) / ln 2), and x when x and y are
/// the same infinity, as ATen computes it.
LogicalResult lowerLogAddExp(Lowering &l, bool base2) {
  if (!isFloat(l.resultElementType()))
    return l.fail("needs float tensors");
  namespace A = args::aten;
  static constexpr Param kSelf =
      sameParam(A::logaddexp::self, A::logaddexp2::self);
  static constexpr Param kOther =
      sameParam(A::logaddexp::other, A::logaddexp2::other);
  return binary(
      l, l.arg(kSelf), l.arg(kOther), {},
      [&](OpBuilder &b, Location loc, Value x, Value y) -> Value {
        Type t = x.getType();
        Value m = arith::MaximumFOp::create(b, loc, x, y);
        Value d =
            math::AbsFOp::create(b, loc, arith::SubFOp::create(b, loc, x, y));
        Value negD = arith::NegFOp::create(b, loc, d);
        Value r;
        if (base2) {
          Value l1p =
              math::Log1pOp::create(b, loc, math::Exp2Op::create(b, loc, negD));
          r = arith::AddFOp::create(
              b, loc, m,
              arith::MulFOp::create(b, loc, l1p,
                                    constantOf(b, loc, t, 1.0 / M_LN2)));
        } else {
          r = arith::AddFOp::create(
              b, loc, m,
              math::Log1pOp::create(b, loc, math::ExpOp::create(b, loc, negD)));
        }
        Value sameInf = arith::AndIOp::create(
            b, loc,
            arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, x, y),
            arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                  math::AbsFOp::create(b, loc, x),
                                  constantOf(b, loc, t, INFINITY)));
        return arith::SelectOp::create(b, loc, sameInf, x, r);
      });
}
LogicalResult lowerLogAddExpE(Lowering &l) { return lowerLogAddExp(l, false); }
LogicalResult lowerLogAddExp2(Lowering &l) { return lowerLogAddExp(l, true); }

/// xlogy(x, y) = x * log(y); 0 where x is 0, NaN where y is NaN.
LogicalResult lowerXlogy(Lowering &l) {
  // Parameters as aten::xlogy.Scalar_Other names them, at the same positions in
  // aten::xlogy.Scalar_Self, aten::xlogy.Tensor.
  using P = args::aten::xlogy_Scalar_Other;
  if (!isFloat(l.resultElementType()))
    return l.fail("needs a float result");
  return binary(
      l, l.arg(P::self), l.arg(P::other), {},
      [](OpBuilder &b, Location loc, Value x, Value y) -> Value {
        Type t = x.getType();
        Value p =
            arith::MulFOp::create(b, loc, x, math::LogOp::create(b, loc, y));
        Value xZero = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                            x, constantOf(b, loc, t, 0));
        Value yNan =
            arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, y, y);
        Value r =
            arith::SelectOp::create(b, loc, xZero, constantOf(b, loc, t, 0), p);
        return arith::SelectOp::create(b, loc, yNan, y, r);
      });
}

LogicalResult lowerCopysign(Lowering &l) {
  // Parameters as aten::copysign.Scalar names them, at the same positions in
  // aten::copysign.Tensor.
  using P = args::aten::copysign_Scalar;
  if (!isFloat(l.resultElementType()))
    return l.fail("needs a float result");
  return binary(l, l.arg(P::self), l.arg(P::other), {},
                [](OpBuilder &b, Location loc, Value x, Value y) -> Value {
                  return math::CopySignOp::create(b, loc, x, y);
                });
}

LogicalResult lowerFloatPower(Lowering &l) {
  // Parameters as aten::float_power.Scalar names them, at the same positions in
  // aten::float_power.Tensor_Scalar, aten::float_power.Tensor_Tensor.
  using P = args::aten::float_power_Scalar;
  if (!isFloat(l.resultElementType()))
    return l.fail("complex float_power is not supported");
  return binary(l, l.arg(P::self), l.arg(P::exponent), {},
                [](OpBuilder &b, Location loc, Value x, Value y) -> Value {
                  return math::PowFOp::create(b, loc, x, y);
                });
}

LogicalResult lowerBitwiseNot(Lowering &l) {
  return unary(l, [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
    Type t = v[0].getType();
    Value ones = arith::ConstantOp::create(
        b, loc,
        b.getIntegerAttr(t, APInt::getAllOnes(t.getIntOrFloatBitWidth())));
    return arith::XOrIOp::create(b, loc, v[0], ones);
  });
}

LogicalResult lowerGelu(Lowering &l) {
  StringRef approximate = "none";
  if (auto s =
          dyn_cast_or_null<StringAttr>(l.arg(args::aten::gelu::approximate)))
    approximate = s.getValue();
  bool useTanh = approximate == "tanh";
  return unary(l, [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
    return gelu(b, loc, v[0], useTanh);
  });
}

LogicalResult clampWith(Lowering &l, Attribute lo, Attribute hi) {
  // Parameters as aten::clamp names them, at the same positions in
  // aten::clamp.Tensor and 7 more.
  using P = args::aten::clamp;
  Value x = l.tensor(P::self);
  Type r = l.resultElementType();
  if (!x || !r)
    return l.fail("needs a typed tensor");
  SmallVector<Value> inputs = {x};
  int loSlot = -1, hiSlot = -1;
  if (!l.isNone(lo)) {
    loSlot = inputs.size();
    inputs.push_back(operand(l, lo, r));
  }
  if (!l.isNone(hi)) {
    hiSlot = inputs.size();
    inputs.push_back(operand(l, hi, r));
  }
  if (llvm::is_contained(inputs, Value()))
    return l.fail("unsupported clamp bounds");
  SmallVector<bool> scalarBound = llvm::map_to_vector(
      inputs, [](Value v) { return !isa<ShapedType>(v.getType()); });
  return l.replace(l.elementwise(
      inputs, r, r, [&](OpBuilder &b, Location loc, ValueRange v) {
        // A tensor bound's NaN wins and it
        // orders -0.0 below 0.0, as ATen's
        // clamp.Tensor; a scalar's does not.
        Value y = v[0];
        if (loSlot >= 0)
          y = scalarBound[loSlot] ? clampBelow(b, loc, y, v[loSlot])
                                  : maxv(b, loc, y, v[loSlot]);
        if (hiSlot >= 0)
          y = scalarBound[hiSlot] ? clampAbove(b, loc, y, v[hiSlot])
                                  : minv(b, loc, y, v[hiSlot]);
        return y;
      }));
}

LogicalResult lowerClamp(Lowering &l) {
  // Parameters as aten::clamp names them, at the same positions in
  // aten::clamp.Tensor and 2 more.
  using P = args::aten::clamp;
  return clampWith(l, l.arg(P::min), l.arg(P::max));
}
LogicalResult lowerClampMin(Lowering &l) {
  // Parameters as aten::clamp_min names them, at the same positions in
  // aten::clamp_min.Tensor.
  using P = args::aten::clamp_min;
  return clampWith(l, l.arg(P::min), NoneAttr::get(l.b.getContext()));
}
LogicalResult lowerClampMax(Lowering &l) {
  // Parameters as aten::clamp_max names them, at the same positions in
  // aten::clamp_max.Tensor.
  using P = args::aten::clamp_max;
  return clampWith(l, NoneAttr::get(l.b.getContext()), l.arg(P::max));
}

/// pow.Scalar(Scalar self, Tensor exponent).
LogicalResult lowerPowScalarBase(Lowering &l) {
  using P = args::aten::pow_Scalar;
  return binary(l, l.arg(P::self), l.arg(P::exponent), {},
                [](OpBuilder &b, Location loc, Value x, Value y) -> Value {
                  if (isFloat(x.getType()))
                    return math::PowFOp::create(b, loc, x, y);
                  return intPow(b, loc, x, y);
                });
}

/// bitwise and/or/xor: logical on bools, bitwise on ints.
template <typename OpTy> LogicalResult lowerBitwise(Lowering &l) {
  // Parameters as aten::bitwise_and.Scalar names them, at the same positions in
  // aten::bitwise_and.Tensor and 10 more.
  using P = args::aten::bitwise_and_Scalar;
  return binary(l, l.arg(P::self), l.arg(P::other), {},
                [](OpBuilder &b, Location loc, Value x, Value y) -> Value {
                  return OpTy::create(b, loc, x, y);
                });
}

/// bitwise_left_shift / bitwise_right_shift (`<<`, `>>`), as ATen's CPU
/// kernel computes them on x86: operands narrower than 32 bits shift as
/// 32-bit ints (C's promotion) and are truncated back, the count is taken
/// modulo the width shifted (the hardware masks it: on int32, 1 << 32 is
/// 1, as eager gives), and right shifts are arithmetic. uint8 values,
/// computed as i32 of 0..255 (kUint8Attr), shift as ATen's unsigned ones.
template <bool Left> LogicalResult lowerShift(Lowering &l) {
  // Parameters as aten::bitwise_left_shift.Tensor names them, at the same
  // positions in the .Tensor_Scalar and right shift overloads.
  using P = args::aten::bitwise_left_shift_Tensor;
  Type r = l.resultElementType();
  if (!r || !isa<IntegerType>(r) || r.isInteger(1))
    return l.fail("shifts need integer tensors");
  return binary(
      l, l.arg(P::self), l.arg(P::other), {},
      [](OpBuilder &b, Location loc, Value x, Value y) -> Value {
        Type type = x.getType();
        unsigned width = type.getIntOrFloatBitWidth();
        Type wide = width < 32 ? b.getI32Type() : type;
        if (width < 32) {
          x = arith::ExtSIOp::create(b, loc, wide, x);
          y = arith::ExtSIOp::create(b, loc, wide, y);
        }
        Value mask = arith::ConstantOp::create(
            b, loc, b.getIntegerAttr(wide, wide.getIntOrFloatBitWidth() - 1));
        y = arith::AndIOp::create(b, loc, y, mask);
        Value v = Left ? arith::ShLIOp::create(b, loc, x, y).getResult()
                       : arith::ShRSIOp::create(b, loc, x, y).getResult();
        if (width < 32)
          v = arith::TruncIOp::create(b, loc, type, v);
        return v;
      });
}

LogicalResult lowerLeakyRelu(Lowering &l) {
  using P = args::aten::leaky_relu;
  Type r = l.resultElementType();
  Value slope = l.scalar(l.arg(P::negative_slope), r ? r : l.b.getF32Type());
  if (!slope)
    return l.fail("unsupported negative_slope");
  return unary(l, [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
    Value x = v[0];
    Value zero = constantOf(b, loc, x.getType(), 0);
    Value positive =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x, zero);
    return arith::SelectOp::create(b, loc, positive, x,
                                   arith::MulFOp::create(b, loc, x, slope));
  });
}

/// scale * (x > 0 ? x : alpha * (exp(x * inputScale) - 1)): elu, selu,
/// celu.
Value elu(OpBuilder &b, Location loc, Value x, Value alpha, Value scale,
          Value inputScale) {
  Value zero = constantOf(b, loc, x.getType(), 0);
  Value positive =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x, zero);
  Value e = math::ExpM1Op::create(b, loc,
                                  arith::MulFOp::create(b, loc, x, inputScale));
  Value negative = arith::MulFOp::create(b, loc, alpha, e);
  return arith::MulFOp::create(
      b, loc, scale, arith::SelectOp::create(b, loc, positive, x, negative));
}

LogicalResult lowerElu(Lowering &l) {
  using P = args::aten::elu;
  Type r = l.resultElementType();
  if (!r)
    return l.fail("needs a typed tensor");
  Value alpha = l.scalar(l.arg(P::alpha), r),
        scale = l.scalar(l.arg(P::scale), r),
        inputScale = l.scalar(l.arg(P::input_scale), r);
  if (!alpha || !scale || !inputScale)
    return l.fail("unsupported elu arguments");
  return unary(l, [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
    return elu(b, loc, v[0], alpha, scale, inputScale);
  });
}

/// floor, ceil, round: the input itself on integers.
template <typename OpTy> LogicalResult lowerRounding(Lowering &l) {
  // Parameters as aten::ceil names them, at the same positions in aten::floor
  // and 2 more.
  using P = args::aten::ceil;
  Value x = l.tensor(P::self);
  Type r = l.resultElementType();
  if (x && r && !isFloat(r) &&
      cast<RankedTensorType>(x.getType()).getElementType() == r)
    return l.replace(x);
  return unary(l, [](OpBuilder &b, Location loc, ValueRange v) -> Value {
    return OpTy::create(b, loc, v[0]);
  });
}

/// selu is elu with ATen's fixed alpha and scale.
LogicalResult lowerSelu(Lowering &l) {
  return unary(l, [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
    Type t = v[0].getType();
    return elu(b, loc, v[0],
               constantOf(b, loc, t, 1.6732632423543772848170429916717),
               constantOf(b, loc, t, 1.0507009873554804934193349852946),
               constantOf(b, loc, t, 1.0));
  });
}

/// celu(x, alpha) is elu(x, alpha, 1, 1 / alpha).
LogicalResult lowerCelu(Lowering &l) {
  using P = args::aten::celu;
  auto alpha = l.constFloat(l.arg(P::alpha));
  if (!alpha || *alpha == 0)
    return l.fail("alpha must be a nonzero constant");
  return unary(l, [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
    Type t = v[0].getType();
    return elu(b, loc, v[0], constantOf(b, loc, t, *alpha),
               constantOf(b, loc, t, 1.0), constantOf(b, loc, t, 1.0 / *alpha));
  });
}

/// x * beta > threshold ? x : log1p(exp(x * beta)) / beta, as ATen.
Value softplus(OpBuilder &b, Location loc, Value x, double beta,
               double threshold) {
  Type t = x.getType();
  Value scaled = arith::MulFOp::create(b, loc, x, constantOf(b, loc, t, beta));
  Value soft = arith::DivFOp::create(
      b, loc,
      math::Log1pOp::create(b, loc, math::ExpOp::create(b, loc, scaled)),
      constantOf(b, loc, t, beta));
  Value linear =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, scaled,
                            constantOf(b, loc, t, threshold));
  return arith::SelectOp::create(b, loc, linear, x, soft);
}

LogicalResult lowerSoftplus(Lowering &l) {
  using P = args::aten::softplus;
  auto beta = l.constFloat(l.arg(P::beta)),
       threshold = l.constFloat(l.arg(P::threshold));
  if (!beta || !threshold || *beta == 0)
    return l.fail("beta and threshold must be constants, beta nonzero");
  return unary(l, [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
    return softplus(b, loc, v[0], *beta, *threshold);
  });
}

FX_UNARY(lowerMish,
         arith::MulFOp::create(
             b, loc, x,
             math::TanhOp::create(b, loc, softplus(b, loc, x, 1, 20))))
// min(x, 0) - log1p(exp(-|x|)): no overflow for large |x|.
FX_UNARY(lowerLogSigmoid,
         arith::SubFOp::create(
             b, loc, minv(b, loc, x, constantOf(b, loc, t, 0)),
             math::Log1pOp::create(
                 b, loc,
                 math::ExpOp::create(
                     b, loc,
                     arith::NegFOp::create(b, loc,
                                           math::AbsFOp::create(b, loc, x))))))
#undef FX_UNARY

/// prelu(x, weight): x > 0 ? x : weight * x, the weight one slope for all
/// or one per channel (dim 1; a 0-D or 1-D input has one channel).
LogicalResult lowerPrelu(Lowering &l) {
  using P = args::aten::prelu;
  Value x = l.tensor(P::self), w = l.tensor(P::weight);
  Type r = l.resultElementType();
  if (!x || !w || !r || !isFloat(r))
    return l.fail("needs float tensors");
  auto xType = cast<RankedTensorType>(x.getType());
  auto wType = cast<RankedTensorType>(w.getType());
  // A scalar weight (0-d) is one slope for every channel.
  if (wType.getRank() > 1 || (wType.getRank() == 1 && wType.isDynamicDim(0)))
    return l.fail("the weight must be a scalar or a static vector");
  int64_t slopes = wType.getRank() ? wType.getDimSize(0) : 1,
          rank = xType.getRank();
  if (slopes != 1) {
    if (rank < 2 || xType.getDimSize(1) != slopes)
      return l.fail("one slope per channel expected");
    // (C) -> (C, 1, ..., 1) aligned with the channel dim.
    SmallVector<int64_t> shape = {slopes};
    shape.append(rank - 2, 1);
    SmallVector<ReassociationIndices> groups = {{}};
    for (int64_t d = 0; d < int64_t(shape.size()); ++d)
      groups[0].push_back(d);
    w = tensor::ExpandShapeOp::create(
        l.b, l.loc, RankedTensorType::get(shape, wType.getElementType()), w,
        groups);
  }
  return l.replace(l.elementwise(
      {x, w}, r, r, [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
        Value positive =
            arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, v[0],
                                  constantOf(b, loc, v[0].getType(), 0));
        return arith::SelectOp::create(
            b, loc, positive, v[0], arith::MulFOp::create(b, loc, v[1], v[0]));
      }));
}

/// logit(x, eps): log(x / (1 - x)), x clamped to [eps, 1 - eps] when eps
/// is given.
LogicalResult lowerLogit(Lowering &l) {
  using P = args::aten::logit;
  std::optional<double> eps;
  if (!l.isNone(P::eps)) {
    eps = l.constFloat(l.arg(P::eps));
    if (!eps)
      return l.fail("eps must be a constant");
  }
  return unary(l, [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
    Type t = v[0].getType();
    Value x = v[0];
    if (eps)
      x = minv(b, loc, maxv(b, loc, x, constantOf(b, loc, t, *eps)),
               constantOf(b, loc, t, 1 - *eps));
    Value rest = arith::SubFOp::create(b, loc, constantOf(b, loc, t, 1), x);
    return math::LogOp::create(b, loc, arith::DivFOp::create(b, loc, x, rest));
  });
}

/// hardshrink(x, lambd): |x| > lambd ? x : 0; softshrink: x shrunk toward
/// 0 by lambd, 0 inside [-lambd, lambd].
LogicalResult lowerShrink(Lowering &l, bool soft) {
  static constexpr Param kLambd =
      sameParam(args::aten::hardshrink::lambd, args::aten::softshrink::lambd);
  auto lambd = l.constFloat(l.arg(kLambd));
  if (!lambd)
    return l.fail("lambd must be a constant");
  return unary(l, [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
    Value x = v[0];
    Type t = x.getType();
    Value zero = constantOf(b, loc, t, 0), lam = constantOf(b, loc, t, *lambd),
          negLam = constantOf(b, loc, t, -*lambd);
    Value above =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x, lam);
    Value below =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, negLam);
    Value hi = soft ? arith::SubFOp::create(b, loc, x, lam).getResult() : x;
    Value lo = soft ? arith::AddFOp::create(b, loc, x, lam).getResult() : x;
    return arith::SelectOp::create(
        b, loc, above, hi, arith::SelectOp::create(b, loc, below, lo, zero));
  });
}
LogicalResult lowerHardshrink(Lowering &l) { return lowerShrink(l, false); }
LogicalResult lowerSoftshrink(Lowering &l) { return lowerShrink(l, true); }

/// threshold(x, threshold, value): x > threshold ? x : value.
LogicalResult lowerThreshold(Lowering &l) {
  using P = args::aten::threshold;
  Type r = l.resultElementType();
  if (!r)
    return l.fail("needs a typed tensor");
  Value threshold = l.scalar(l.arg(P::threshold_), r),
        value = l.scalar(l.arg(P::value), r);
  if (!threshold || !value)
    return l.fail("threshold and value must be numbers");
  return unary(l, [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
    Value above = isFloat(r)
                      ? arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT,
                                              v[0], threshold)
                            .getResult()
                      : arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt,
                                              v[0], threshold)
                            .getResult();
    return arith::SelectOp::create(b, loc, above, v[0], value);
  });
}

/// glu(x, dim): the first half of dim times the sigmoid of the second.
LogicalResult lowerGlu(Lowering &l) {
  using P = args::aten::glu;
  Value x = l.tensor(P::self);
  Type r = l.resultElementType();
  if (!x || !r || !isFloat(r))
    return l.fail("needs a float tensor");
  auto type = cast<RankedTensorType>(x.getType());
  auto dim = l.normDim(l.arg(P::dim), type.getRank());
  if (!dim)
    return l.fail("dim must be a constant");
  int64_t n = type.getDimSize(*dim);
  if (ShapedType::isDynamic(n) || n % 2)
    return l.fail("the halved dim must be static and even");
  SmallVector<Value> halves;
  for (int64_t start : {int64_t(0), n / 2}) {
    SmallVector<OpFoldResult> offsets(type.getRank(), l.b.getIndexAttr(0)),
        sizes = l.dims(x), strides(type.getRank(), l.b.getIndexAttr(1));
    offsets[*dim] = l.b.getIndexAttr(start);
    sizes[*dim] = l.b.getIndexAttr(n / 2);
    halves.push_back(
        tensor::ExtractSliceOp::create(l.b, l.loc, x, offsets, sizes, strides));
  }
  return l.replace(l.elementwise(
      halves, r, r, [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
        return arith::MulFOp::create(b, loc, v[0], sigmoid(b, loc, v[1]));
      }));
}

/// atan2(y, x), with C's values where y is zero and x is not NaN (the
/// vectorized approximation of math.atan2 gives NaN where both are zero,
/// and +pi for y = -0 and a negative x): y when x is positive or +0, pi
/// with y's sign when x is negative or -0.
LogicalResult lowerAtan2(Lowering &l) {
  using P = args::aten::atan2;
  return binary(
      l, l.arg(P::self), l.arg(P::other), {},
      [](OpBuilder &b, Location loc, Value y, Value x) -> Value {
        Type t = y.getType();
        Value zero = constantOf(b, loc, t, 0.0), one = constantOf(b, loc, t, 1);
        Value atan = math::Atan2Op::create(b, loc, y, x);
        Value bothZero = arith::AndIOp::create(
            b, loc,
            arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, y, zero),
            arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ORD, x, x));
        Value xNegative = arith::CmpFOp::create(
            b, loc, arith::CmpFPredicate::OLT,
            math::CopySignOp::create(b, loc, one, x), zero);
        Value pi = math::CopySignOp::create(
            b, loc, constantOf(b, loc, t, 3.14159265358979323846), y);
        Value atZero = arith::SelectOp::create(b, loc, xNegative, pi, y);
        Value result = arith::SelectOp::create(b, loc, bothZero, atZero, atan);
        // x infinite (the approximation loses y's sign for x = -inf and
        // gives NaN when y is infinite too): pi with y's sign for x = -inf
        // and a finite y; +-pi/4 or +-3pi/4 when both are infinite.
        Value inf = constantOf(b, loc, t, INFINITY);
        auto absOf = [&](Value v) { return math::AbsFOp::create(b, loc, v); };
        Value xInf = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                           absOf(x), inf);
        Value yInf = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                           absOf(y), inf);
        Value yFinite = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT,
                                              absOf(y), inf);
        Value minusInfX = arith::AndIOp::create(
            b, loc, arith::AndIOp::create(b, loc, xInf, xNegative), yFinite);
        result = arith::SelectOp::create(b, loc, minusInfX, pi, result);
        Value corner = math::CopySignOp::create(
            b, loc,
            arith::SelectOp::create(
                b, loc, xNegative,
                constantOf(b, loc, t, 2.35619449019234492885),
                constantOf(b, loc, t, 0.78539816339744830962)),
            y);
        return arith::SelectOp::create(
            b, loc, arith::AndIOp::create(b, loc, xInf, yInf), corner, result);
      });
}

/// addcmul/addcdiv(self, tensor1, tensor2, value): self + value * (tensor1
/// * or / tensor2).
LogicalResult lowerAddc(Lowering &l, bool divide) {
  namespace A = args::aten;
  static constexpr Param kSelf = sameParam(A::addcmul::self, A::addcdiv::self);
  static constexpr Param kTensor1 =
      sameParam(A::addcmul::tensor1, A::addcdiv::tensor1);
  static constexpr Param kTensor2 =
      sameParam(A::addcmul::tensor2, A::addcdiv::tensor2);
  static constexpr Param kValue =
      sameParam(A::addcmul::value, A::addcdiv::value);
  Value self = l.tensor(kSelf), t1 = l.tensor(kTensor1),
        t2 = l.tensor(kTensor2);
  Type r = l.resultElementType();
  if (!self || !t1 || !t2 || !r)
    return l.fail("needs typed tensors");
  Attribute valueAttr = l.arg(kValue);
  Value value = valueAttr && !l.isNone(valueAttr)
                    ? l.scalar(valueAttr, r)
                    : constantOf(l.b, l.loc, r, 1);
  if (!value)
    return l.fail("value must be a number");
  return l.replace(l.elementwise(
      {self, t1, t2}, r, r,
      [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
        Value p =
            divide
                ? (isFloat(r)
                       ? arith::DivFOp::create(b, loc, v[1], v[2]).getResult()
                       : arith::DivSIOp::create(b, loc, v[1], v[2]).getResult())
                : mul(b, loc, v[1], v[2]);
        return add(b, loc, v[0], mul(b, loc, value, p));
      }));
}
LogicalResult lowerAddcmul(Lowering &l) { return lowerAddc(l, false); }
LogicalResult lowerAddcdiv(Lowering &l) { return lowerAddc(l, true); }

/// lerp(self, end, weight), as ATen computes it: self + w * (end - self)
/// for |w| < 0.5, else end - (end - self) * (1 - w).
LogicalResult lowerLerp(Lowering &l) {
  // Parameters as aten::lerp.Scalar names them, at the same positions in
  // aten::lerp.Tensor.
  using P = args::aten::lerp_Scalar;
  Value self = l.tensor(P::self), end = l.tensor(P::end);
  Type r = l.resultElementType();
  if (!self || !end || !r || !isFloat(r))
    return l.fail("needs float tensors");
  SmallVector<Value> inputs = {self, end};
  Value weight = operand(l, l.arg(P::weight), r);
  if (!weight)
    return l.fail("weight must be a tensor or a number");
  bool weightIsTensor = isa<RankedTensorType>(weight.getType());
  if (weightIsTensor)
    inputs.push_back(weight);
  return l.replace(l.elementwise(
      inputs, r, r, [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
        Value w = weightIsTensor ? v[2] : weight;
        Value diff = arith::SubFOp::create(b, loc, v[1], v[0]);
        Value small = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT,
                                            math::AbsFOp::create(b, loc, w),
                                            constantOf(b, loc, r, 0.5));
        Value fromSelf = arith::AddFOp::create(
            b, loc, v[0], arith::MulFOp::create(b, loc, w, diff));
        Value fromEnd = arith::SubFOp::create(
            b, loc, v[1],
            arith::MulFOp::create(
                b, loc, diff,
                arith::SubFOp::create(b, loc, constantOf(b, loc, r, 1), w)));
        return arith::SelectOp::create(b, loc, small, fromSelf, fromEnd);
      }));
}

/// gcd and lcm of integers, elementwise, as ATen's calc_gcd: Euclid's
/// loop on the absolute values (`while a != 0: a, b = b % a, a`), and
/// lcm = |a / gcd * b| (0 when the gcd is).
LogicalResult lowerGcdLcm(Lowering &l, bool lcm) {
  using P = args::aten::gcd;
  static_assert(sameParam(P::self, args::aten::lcm::self).index == 0 &&
                sameParam(P::other, args::aten::lcm::other).index == 1);
  Type r = l.resultElementType();
  if (!r || isFloat(r) || r.isInteger(1))
    return l.fail("needs integer tensors");
  return binary(
      l, l.arg(P::self), l.arg(P::other), {},
      [&](OpBuilder &b, Location loc, Value x, Value y) -> Value {
        Type t = x.getType();
        Value zero = constantOf(b, loc, t, 0);
        Value a = math::AbsIOp::create(b, loc, x);
        Value c = math::AbsIOp::create(b, loc, y);
        auto loop = scf::WhileOp::create(
            b, loc, TypeRange{t, t}, ValueRange{a, c},
            [&](OpBuilder &nb, Location nloc, ValueRange v) {
              Value more = arith::CmpIOp::create(
                  nb, nloc, arith::CmpIPredicate::ne, v[0], zero);
              scf::ConditionOp::create(nb, nloc, more, v);
            },
            [&](OpBuilder &nb, Location nloc, ValueRange v) {
              Value rest = arith::RemSIOp::create(nb, nloc, v[1], v[0]);
              scf::YieldOp::create(nb, nloc, ValueRange{rest, v[0]});
            });
        Value g = loop.getResult(1);
        if (!lcm)
          return g;
        Value isZero =
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, g, zero);
        Value one = constantOf(b, loc, t, 1);
        Value safe = arith::SelectOp::create(b, loc, isZero, one, g);
        Value m = math::AbsIOp::create(
            b, loc,
            arith::MulIOp::create(b, loc,
                                  arith::DivSIOp::create(b, loc, x, safe), y));
        return arith::SelectOp::create(b, loc, isZero, zero, m);
      });
}
LogicalResult lowerGcd(Lowering &l) { return lowerGcdLcm(l, false); }
LogicalResult lowerLcm(Lowering &l) { return lowerGcdLcm(l, true); }

/// Python's `%`: the remainder takes the divisor's sign.
LogicalResult lowerRemainder(Lowering &l) {
  // Parameters as aten::remainder.Scalar names them, at the same positions in
  // aten::remainder.Scalar_Tensor, aten::remainder.Tensor.
  using P = args::aten::remainder_Scalar;
  if (failed(checkIntDivisor(l, l.arg(P::other), l.resultElementType())))
    return failure();
  return binary(
      l, l.arg(P::self), l.arg(P::other), {},
      [](OpBuilder &b, Location loc, Value x, Value y) -> Value {
        Type t = x.getType();
        Value zero = constantOf(b, loc, t, 0);
        Value rem, remNegative, divNegative, nonzero;
        if (isFloat(t)) {
          rem = arith::RemFOp::create(b, loc, x, y);
          nonzero = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE,
                                          rem, zero);
          remNegative = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT,
                                              rem, zero);
          divNegative =
              arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, y, zero);
        } else {
          rem = intDivide(b, loc, x, y, IntDivision::Remainder);
          nonzero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, rem,
                                          zero);
          remNegative = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                              rem, zero);
          divNegative =
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, y, zero);
        }
        Value differ = arith::XOrIOp::create(b, loc, remNegative, divNegative);
        Value adjust = arith::AndIOp::create(b, loc, nonzero, differ);
        return arith::SelectOp::create(b, loc, adjust, add(b, loc, rem, y),
                                       rem);
      });
}

LogicalResult lowerHardtanh(Lowering &l) {
  using P = args::aten::hardtanh;
  return clampWith(l, l.arg(P::min_val), l.arg(P::max_val));
}

//===----------------------------------------------------------------------===//
// Casts and identities
//===----------------------------------------------------------------------===//

LogicalResult lowerTo(Lowering &l) {
  // Parameters as aten::to.dtype names them, at the same positions in
  // aten::to.other, aten::to.device, aten::to.dtype_layout, aten::type_as.
  using P = args::aten::to_dtype;
  // aten::to.device(self, device, dtype, ...) and to.dtype_layout(self, *,
  // dtype, layout, device, ...): the code runs on the CPU.
  bool dtypeLayout = l.target() == args::aten::to_dtype_layout::target;
  if (l.target() == args::aten::to_device::target ||
      (dtypeLayout && !l.isNone(args::aten::to_dtype_layout::device))) {
    Attribute device = dtypeLayout ? l.arg(args::aten::to_dtype_layout::device)
                                   : l.arg(args::aten::to_device::device);
    StringRef name;
    if (auto attr = dyn_cast_or_null<DeviceAttr>(device))
      name = attr.getDevice();
    else if (auto text = dyn_cast_or_null<StringAttr>(device))
      name = text.getValue();
    if (!name.starts_with("cpu"))
      return l.fail("the compiled code runs on the CPU only");
  }
  Value x = l.tensor(P::self);
  Type r = l.resultElementType();
  if (!x || !r)
    return l.fail("needs a typed tensor");
  return l.replace(l.castTensor(x, r));
}

LogicalResult lowerDropout(Lowering &l) {
  // Parameters as aten::dropout names them, at the same positions in
  // aten::feature_dropout and the alpha dropouts.
  using P = args::aten::dropout;
  // ATen returns the input when not training and when p is 0 (a model
  // that calls F.dropout(x, 0.0) without passing its training flag, as
  // torchvision's shifted_window_attention does).
  if (l.constBool(P::train).value_or(true) &&
      l.constFloat(l.arg(P::p)) != std::optional<double>(0.0))
    return l.fail("dropout in training mode is not supported");
  Value x = l.tensor(P::input);
  return x ? l.replace(x) : failure();
}

LogicalResult lowerPassThrough(Lowering &l) {
  // Parameters as aten::alias names them, at the same positions in aten::clone
  // and 3 more.
  using P = args::aten::alias;
  Value x = l.tensor(P::self);
  return x ? l.replace(x) : failure();
}

} // namespace

void mlir::fx::lowering::addElementwiseLowerings(llvm::StringMap<LowerFn> &t) {
  addLowering(t, {"aten::add.Tensor", "aten::add.Scalar"}, lowerAdd);
  addLowering(t, {"aten::sub.Tensor", "aten::sub.Scalar"}, lowerSub);
  addLowering(t, {"aten::rsub.Tensor", "aten::rsub.Scalar"}, lowerRsub);
  addLowering(t, {"aten::mul.Tensor", "aten::mul.Scalar"}, lowerMul);
  addLowering(t,
              {"aten::div.Tensor", "aten::div.Scalar", "aten::div.Tensor_mode",
               "aten::div.Scalar_mode", "aten::true_divide.Tensor",
               "aten::true_divide.Scalar"},
              lowerDiv);
  addLowering(t, {"aten::floor_divide", "aten::floor_divide.Scalar"},
              lowerFloorDivide);
  addLowering(t, {"aten::pow.Tensor_Scalar", "aten::pow.Tensor_Tensor"},
              lowerPow);
  addLowering(t, {"aten::maximum", "aten::max.other"}, lowerMaximum);
  addLowering(t, {"aten::minimum", "aten::min.other"}, lowerMinimum);
  addLowering(t, {"aten::neg"}, lowerNeg);
  addLowering(t, {"aten::abs"}, lowerAbs);
  addLowering(t, {"aten::exp"}, lowerExp);
  addLowering(t, {"aten::log"}, lowerLog);
  addLowering(t, {"aten::sqrt"}, lowerSqrt);
  addLowering(t, {"aten::rsqrt"}, lowerRsqrt);
  addLowering(t, {"aten::reciprocal"}, lowerReciprocal);
  addLowering(t, {"aten::erf"}, lowerErf);
  addLowering(t, {"aten::sin"}, lowerSin);
  addLowering(t, {"aten::cos"}, lowerCos);
  addLowering(t, {"aten::tanh"}, lowerTanh);
  addLowering(t, {"aten::sigmoid"}, lowerSigmoid);
  addLowering(t, {"aten::relu"}, lowerRelu);
  addLowering(t, {"aten::silu"}, lowerSilu);
  addLowering(t, {"aten::hardswish"}, lowerHardswish);
  addLowering(t, {"aten::hardsigmoid"}, lowerHardsigmoid);
  addLowering(t, {"aten::gelu"}, lowerGelu);
  addLowering(t, {"aten::hardtanh"}, lowerHardtanh);
  addLowering(
      t,
      {"aten::clamp", "aten::clamp.Tensor", "aten::clip", "aten::clip.Tensor"},
      lowerClamp);
  addLowering(t, {"aten::leaky_relu"}, lowerLeakyRelu);
  addLowering(t, {"aten::clamp_min", "aten::clamp_min.Tensor"}, lowerClampMin);
  addLowering(t, {"aten::clamp_max", "aten::clamp_max.Tensor"}, lowerClampMax);
  addLowering(t, {"aten::pow.Scalar"}, lowerPowScalarBase);
  addLowering(t,
              {"aten::bitwise_and.Tensor", "aten::bitwise_and.Scalar",
               "aten::__and__.Tensor", "aten::__and__.Scalar"},
              lowerBitwise<arith::AndIOp>);
  addLowering(t,
              {"aten::bitwise_or.Tensor", "aten::bitwise_or.Scalar",
               "aten::__or__.Tensor", "aten::__or__.Scalar"},
              lowerBitwise<arith::OrIOp>);
  addLowering(t,
              {"aten::bitwise_xor.Tensor", "aten::bitwise_xor.Scalar",
               "aten::__xor__.Tensor", "aten::__xor__.Scalar"},
              lowerBitwise<arith::XOrIOp>);
  addLowering(t,
              {"aten::bitwise_left_shift.Tensor",
               "aten::bitwise_left_shift.Tensor_Scalar",
               "aten::__lshift__.Tensor", "aten::__lshift__.Scalar"},
              lowerShift<true>);
  addLowering(t,
              {"aten::bitwise_right_shift.Tensor",
               "aten::bitwise_right_shift.Tensor_Scalar",
               "aten::__rshift__.Tensor", "aten::__rshift__.Scalar"},
              lowerShift<false>);
  addLowering(t, {"aten::elu"}, lowerElu);
  addLowering(t, {"aten::selu"}, lowerSelu);
  addLowering(t, {"aten::celu"}, lowerCelu);
  addLowering(t, {"aten::softplus"}, lowerSoftplus);
  addLowering(t, {"aten::mish"}, lowerMish);
  addLowering(t, {"aten::log_sigmoid"}, lowerLogSigmoid);
  addLowering(t, {"aten::prelu"}, lowerPrelu);
  addLowering(t, {"aten::gcd"}, lowerGcd);
  addLowering(t, {"aten::lcm"}, lowerLcm);
  addLowering(t,
              {"aten::remainder.Tensor", "aten::remainder.Scalar",
               "aten::remainder.Scalar_Tensor"},
              lowerRemainder);
  addLowering(t, {"aten::tan"}, lowerTan);
  addLowering(t, {"aten::atan"}, lowerAtan);
  addLowering(t, {"aten::log1p"}, lowerLog1p);
  addLowering(t, {"aten::expm1"}, lowerExpm1);
  addLowering(t, {"aten::log2"}, lowerLog2);
  addLowering(t, {"aten::floor"}, lowerRounding<math::FloorOp>);
  addLowering(t, {"aten::ceil"}, lowerRounding<math::CeilOp>);
  // Half to even, as ATen.
  addLowering(t, {"aten::round"}, lowerRounding<math::RoundEvenOp>);
  addLowering(t, {"aten::sign"}, lowerSign);
  addLowering(t, {"aten::square"}, lowerSquare);
  addLowering(t, {"aten::exp2"}, lowerExp2);
  addLowering(t, {"aten::logit"}, lowerLogit);
  addLowering(t, {"aten::hardshrink"}, lowerHardshrink);
  addLowering(t, {"aten::softshrink"}, lowerSoftshrink);
  addLowering(t, {"aten::threshold"}, lowerThreshold);
  addLowering(t, {"aten::glu"}, lowerGlu);
  addLowering(t, {"aten::atan2"}, lowerAtan2);
  addLowering(t, {"aten::sinh"}, lowerSinh);
  addLowering(t, {"aten::cosh"}, lowerCosh);
  addLowering(t, {"aten::asinh"}, lowerAsinh);
  addLowering(t, {"aten::acosh"}, lowerAcosh);
  addLowering(t, {"aten::atanh"}, lowerAtanh);
  addLowering(t, {"aten::asin"}, lowerAsin);
  addLowering(t, {"aten::acos"}, lowerAcos);
  addLowering(t, {"aten::erfc"}, lowerErfc);
  addLowering(t, {"aten::log10"}, lowerLog10);
  addLowering(t, {"aten::frac"}, lowerFrac);
  addLowering(t, {"aten::sinc"}, lowerSinc);
  addLowering(t, {"aten::deg2rad"}, lowerDeg2rad);
  addLowering(t, {"aten::rad2deg"}, lowerRad2deg);
  addLowering(t, {"aten::trunc"}, lowerRounding<math::TruncOp>);
  addLowering(t, {"aten::positive"}, lowerPassThrough);
  addLowering(t, {"aten::heaviside"}, lowerHeaviside);
  addLowering(t, {"aten::fmod.Tensor", "aten::fmod.Scalar"}, lowerFmod);
  addLowering(t, {"aten::logaddexp"}, lowerLogAddExpE);
  addLowering(t, {"aten::logaddexp2"}, lowerLogAddExp2);
  addLowering(t,
              {"aten::xlogy.Tensor", "aten::xlogy.Scalar_Other",
               "aten::xlogy.Scalar_Self"},
              lowerXlogy);
  addLowering(t, {"aten::copysign.Tensor", "aten::copysign.Scalar"},
              lowerCopysign);
  addLowering(t,
              {"aten::float_power.Tensor_Tensor",
               "aten::float_power.Tensor_Scalar", "aten::float_power.Scalar"},
              lowerFloatPower);
  addLowering(t, {"aten::addcmul"}, lowerAddcmul);
  addLowering(t, {"aten::addcdiv"}, lowerAddcdiv);
  addLowering(t, {"aten::lerp.Scalar", "aten::lerp.Tensor"}, lowerLerp);
  addLowering(t, {"aten::bitwise_not"}, lowerBitwiseNot);
  addLowering(t,
              {"aten::to.dtype", "aten::to.other", "aten::to.device",
               "aten::to.dtype_layout", "aten::type_as"},
              lowerTo);
  addLowering(t,
              {"aten::dropout", "aten::feature_dropout", "aten::alpha_dropout",
               "aten::feature_alpha_dropout"},
              lowerDropout);
  addLowering(
      t, {"aten::clone", "aten::contiguous", "aten::detach", "aten::alias"},
      lowerPassThrough);
}

Value mlir::fx::lowering::buildActivation(OpBuilder &b, Location loc,
                                          StringRef name, Value x) {
  Type t = x.getType();
  if (!isFloat(t))
    return {};
  if (name == "relu")
    return clampBelow(b, loc, x, constantOf(b, loc, t, 0));
  if (name == "relu6")
    return clampAbove(b, loc, clampBelow(b, loc, x, constantOf(b, loc, t, 0)),
                      constantOf(b, loc, t, 6));
  if (name == "gelu" || name == "gelu_tanh")
    return gelu(b, loc, x, name == "gelu_tanh");
  if (name == "silu")
    return arith::MulFOp::create(b, loc, x, sigmoid(b, loc, x));
  if (name == "sigmoid")
    return sigmoid(b, loc, x);
  if (name == "tanh")
    return math::TanhOp::create(b, loc, x);
  if (name == "hardswish")
    return hardswish(b, loc, x);
  return {};
}
