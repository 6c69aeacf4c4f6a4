//===- Special.cpp - The gamma family: lgamma, digamma, polygamma, zeta ---===//
//
// Scalar code for log|Gamma(x)| (Lanczos, reflected below 1/2), digamma
// (ATen's recurrence to 10 and asymptotic series, reflected below 0) and
// the Hurwitz zeta function (Cephes' sum and Euler-Maclaurin tail, as
// ATen's zeta), computed in f64 and rounded to the result type. The loops
// of the recurrences are unrolled to their largest count, each step
// predicated, so the body stays a straight line of arith and math ops
// that vectorizes.
//
//===----------------------------------------------------------------------===//

#include "Compose.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::fx;
using namespace mlir::fx::lowering;
using namespace mlir::fx::lowering::compose;

namespace {

/// Scalar f64 arithmetic at one builder position.
struct F64 {
  OpBuilder &b;
  Location loc;
  Value c(double v) { return constantOf(b, loc, b.getF64Type(), v); }
  Value add(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return arith::DivFOp::create(b, loc, x, y); }
  Value log(Value x) { return math::LogOp::create(b, loc, x); }
  Value abs(Value x) { return math::AbsFOp::create(b, loc, x); }
  Value cmp(arith::CmpFPredicate p, Value x, Value y) {
    return arith::CmpFOp::create(b, loc, p, x, y);
  }
  Value select(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, loc, c, x, y);
  }
  Value isInteger(Value x) {
    return cmp(arith::CmpFPredicate::OEQ, x, math::FloorOp::create(b, loc, x));
  }
  Value pow(Value x, Value y) { return math::PowFOp::create(b, loc, x, y); }
};

constexpr double kInf = std::numeric_limits<double>::infinity();

/// log|Gamma(x)|: Lanczos (g = 7, 9 terms) from 1/2 up, the reflection
/// log(pi / |sin(pi x)|) - lgamma(1 - x) below (+inf at the poles);
/// +inf at +-inf.
Value lgammaOf(F64 f, Value x) {
  static const double p[] = {
      0.99999999999980993,  676.5203681218851,     -1259.1392167224028,
      771.32342877765313,   -176.61502916214059,   12.507343278686905,
      -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7};
  using FP = arith::CmpFPredicate;
  Value reflect = f.cmp(FP::OLT, x, f.c(0.5));
  // Lanczos at y = x, or 1 - x when reflected.
  Value y = f.select(reflect, f.sub(f.c(1), x), x);
  Value z = f.sub(y, f.c(1));
  Value a = f.c(p[0]);
  for (int i = 1; i < 9; ++i)
    a = f.add(a, f.div(f.c(p[i]), f.add(z, f.c(i))));
  Value t = f.add(z, f.c(7.5));
  Value lanczos = f.add(f.add(f.c(0.5 * std::log(2 * M_PI)),
                              f.sub(f.mul(f.add(z, f.c(0.5)), f.log(t)), t)),
                        f.log(a));
  Value sine = f.abs(math::SinOp::create(f.b, f.loc, f.mul(f.c(M_PI), x)));
  Value reflected = f.sub(f.log(f.div(f.c(M_PI), sine)), lanczos);
  // Poles (non-positive integers) and infinities.
  Value pole = arith::AndIOp::create(f.b, f.loc, f.isInteger(x),
                                     f.cmp(FP::OLE, x, f.c(0)));
  Value infinite = f.cmp(FP::OEQ, f.abs(x), f.c(kInf));
  Value result = f.select(reflect, reflected, lanczos);
  result = f.select(pole, f.c(kInf), result);
  return f.select(infinite, f.c(kInf), result);
}

/// digamma(x) as ATen's calc_digamma: -inf/+inf at -0/+0 (copysign),
/// NaN at the negative integers, reflected below 0, raised above 10 by
/// the recurrence psi(x) = psi(x + 1) - 1/x, then the asymptotic series.
Value digammaOf(F64 f, Value x) {
  using FP = arith::CmpFPredicate;
  static const double A[] = {
      8.33333333333333333333E-2, -2.10927960927960927961E-2,
      7.57575757575757575758E-3, -4.16666666666666666667E-3,
      3.96825396825396825397E-3, -8.33333333333333333333E-3,
      8.33333333333333333333E-2};
  Value negative = f.cmp(FP::OLT, x, f.c(0));
  // Reflection: psi(x) = psi(1 - x) - pi / tan(pi x).
  Value y = f.select(negative, f.sub(f.c(1), x), x);
  Value shift = f.select(
      negative,
      f.div(f.c(M_PI), math::TanOp::create(f.b, f.loc, f.mul(f.c(M_PI), x))),
      f.c(0));
  Value result = f.c(0);
  for (int i = 0; i < 10; ++i) {
    Value small = f.cmp(FP::OLT, y, f.c(10));
    result = f.select(small, f.sub(result, f.div(f.c(1), y)), result);
    y = f.select(small, f.add(y, f.c(1)), y);
  }
  Value z = f.div(f.c(1), f.mul(y, y));
  Value poly = f.c(A[0]);
  for (int i = 1; i < 7; ++i)
    poly = f.add(f.mul(poly, z), f.c(A[i]));
  Value series = f.select(f.cmp(FP::OLT, y, f.c(1e17)), f.mul(z, poly), f.c(0));
  result = f.sub(f.sub(f.add(result, f.log(y)), f.div(f.c(0.5), y)), series);
  result = f.sub(result, shift);
  Value zero = f.cmp(FP::OEQ, x, f.c(0));
  Value signedInf = math::CopySignOp::create(
      f.b, f.loc, f.c(kInf), arith::NegFOp::create(f.b, f.loc, x));
  Value pole = arith::AndIOp::create(f.b, f.loc, negative, f.isInteger(x));
  result = f.select(pole, f.c(std::nan("")), result);
  return f.select(zero, signedInf, result);
}

/// The Hurwitz zeta function zeta(s, q) = sum_k (k + q)^-s as Cephes' and
/// ATen's zeta: inf at s = 1, NaN below; q at a non-positive integer inf,
/// a negative q with non-integer s NaN; terms summed until a > 9 (at most
/// 30 here), then the Euler-Maclaurin tail of 12 terms.
Value zetaOf(F64 f, Value s, Value q) {
  using FP = arith::CmpFPredicate;
  static const double A[] = {12.0,
                             -720.0,
                             30240.0,
                             -1209600.0,
                             47900160.0,
                             -1.8924375803183791606e9,
                             7.47242496e10,
                             -2.950130727918164224e12,
                             1.1646782814350067249e14,
                             -4.5979787224074726105e15,
                             1.8152105401943546773e17,
                             -7.1661652561756670113e18};
  Value negS = arith::NegFOp::create(f.b, f.loc, s);
  Value sum = f.pow(q, negS);
  Value a = q, term = f.c(0);
  for (int i = 1; i <= 30; ++i) {
    Value more =
        arith::OrIOp::create(f.b, f.loc, f.cmp(FP::OLT, f.c(i - 1), f.c(9)),
                             f.cmp(FP::OLE, a, f.c(9)));
    Value next = f.add(a, f.c(1));
    Value b = f.pow(next, negS);
    sum = f.select(more, f.add(sum, b), sum);
    term = f.select(more, b, term);
    a = f.select(more, next, a);
  }
  Value w = a;
  sum = f.add(sum, f.div(f.mul(term, w), f.sub(s, f.c(1))));
  sum = f.sub(sum, f.mul(f.c(0.5), term));
  Value factor = f.c(1), b = term, k = f.c(0);
  for (int i = 0; i < 12; ++i) {
    factor = f.mul(factor, f.add(s, k));
    b = f.div(b, w);
    sum = f.add(sum, f.div(f.mul(factor, b), f.c(A[i])));
    k = f.add(k, f.c(1));
    factor = f.mul(factor, f.add(s, k));
    b = f.div(b, w);
    k = f.add(k, f.c(1));
  }
  Value nan = f.c(std::nan(""));
  Value nonPositiveQ = f.cmp(FP::OLE, q, f.c(0));
  Value result = sum;
  result = f.select(
      arith::AndIOp::create(
          f.b, f.loc, nonPositiveQ,
          arith::XOrIOp::create(f.b, f.loc, f.isInteger(s),
                                constantOf(f.b, f.loc, f.b.getI1Type(), 1))),
      nan, result);
  result =
      f.select(arith::AndIOp::create(f.b, f.loc, nonPositiveQ, f.isInteger(q)),
               f.c(kInf), result);
  result = f.select(f.cmp(FP::OLT, s, f.c(1)), nan, result);
  return f.select(f.cmp(FP::OEQ, s, f.c(1)), f.c(kInf), result);
}

/// An elementwise op over `inputs` computed in f64 by `fn`, its result of
/// the node's float type.
LogicalResult lowerInF64(Lowering &l, ArrayRef<Value> inputs,
                         function_ref<Value(F64, ValueRange)> fn) {
  Type r = l.resultElementType();
  if (!r || !isFloat(r))
    return l.fail("needs a float result");
  Type f64 = l.b.getF64Type();
  return l.replace(l.elementwise(
      inputs, f64, r, [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
        Value y = fn(F64{b, loc}, v);
        return r == f64 ? y : arith::TruncFOp::create(b, loc, r, y).getResult();
      }));
}

LogicalResult lowerLgamma(Lowering &l) {
  // Parameters as aten::lgamma names them, at the same positions in
  // aten::special_gammaln.
  using P = args::aten::lgamma;
  Value x = l.tensor(P::self);
  if (!x)
    return failure();
  return lowerInF64(l, {x},
                    [](F64 f, ValueRange v) { return lgammaOf(f, v[0]); });
}

LogicalResult lowerDigamma(Lowering &l) {
  // Parameters as aten::digamma names them, at the same positions in
  // aten::special_digamma, aten::special_psi.
  using P = args::aten::digamma;
  Value x = l.tensor(P::self);
  if (!x)
    return failure();
  return lowerInF64(l, {x},
                    [](F64 f, ValueRange v) { return digammaOf(f, v[0]); });
}

/// polygamma(n, x): digamma for n = 0, else (-1)^(n+1) n! zeta(n + 1, x).
/// polygamma(1, x): ATen's calc_trigamma step for step in the result's
/// float type (float for float32 and integer inputs), so that it agrees
/// with eager where the function has poles: at a negative integer x, eager
/// gives pi^2 / sin(pi x)^2 with the rounded sin (1.29e15 at -1 in
/// float32), not inf. The reflection below 1/2, six steps of the
/// recurrence, then the asymptotic series, whose bracket C++ evaluates in
/// double (its constants are double literals). sin is taken in double of
/// the rounded pi x and rounded back, as sinf computes it.
LogicalResult lowerTrigamma(Lowering &l, Value x) {
  Type r = l.resultElementType();
  if (!r || !isFloat(r))
    return l.fail("needs a float result");
  Type f64 = l.b.getF64Type();
  bool narrow = r != f64;
  return l.replace(l.elementwise(
      {x}, r, r, [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
        FloatOps f{b, loc, r};
        FloatOps d{b, loc, f64};
        auto wide = [&](Value p) -> Value {
          return narrow ? arith::ExtFOp::create(b, loc, f64, p).getResult() : p;
        };
        auto back = [&](Value p) -> Value {
          return narrow ? arith::TruncFOp::create(b, loc, r, p).getResult() : p;
        };
        Value x = v[0];
        Value pi = f.c(3.14159265358979323846);
        Value reflect = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT,
                                              x, f.c(0.5));
        Value sinPiX =
            back(math::SinOp::create(b, loc, wide(f.mul(pi, x))).getResult());
        Value pole = f.div(f.mul(pi, pi), f.mul(sinPiX, sinPiX));
        Value result = arith::SelectOp::create(b, loc, reflect,
                                               f.sub(f.c(0), pole), f.c(0));
        Value sign = arith::SelectOp::create(b, loc, reflect, f.c(-1), f.c(1));
        x = arith::SelectOp::create(b, loc, reflect, f.sub(f.c(1), x), x);
        for (int i = 0; i < 6; ++i) {
          result = f.add(result, f.div(f.c(1), f.mul(x, x)));
          x = f.add(x, f.c(1));
        }
        // The series bracket in double, as C++ evaluates its literals.
        Value ixx = wide(f.div(f.c(1), f.mul(x, x)));
        Value series = d.mul(
            ixx,
            d.sub(d.c(1. / 6),
                  d.mul(ixx, d.sub(d.c(1. / 30), d.mul(ixx, d.c(1. / 42))))));
        Value bracket =
            d.add(wide(f.add(f.c(1), f.div(f.c(1), f.mul(f.c(2), x)))), series);
        result = back(d.add(wide(result), d.div(bracket, wide(x))));
        return f.mul(sign, result);
      }));
}

LogicalResult lowerPolygamma(Lowering &l) {
  // Parameters as aten::polygamma names them, at the same positions in
  // aten::special_polygamma.
  using P = args::aten::polygamma;
  auto n = l.constInt(P::n);
  Value x = l.tensor(P::self);
  if (!n || *n < 0 || !x)
    return l.fail("needs a constant n >= 0 and a tensor");
  if (*n == 0)
    return lowerInF64(l, {x},
                      [](F64 f, ValueRange v) { return digammaOf(f, v[0]); });
  if (*n == 1)
    return lowerTrigamma(l, x);
  double factorial = std::tgamma(double(*n) + 1);
  double sign = (*n % 2) ? 1.0 : -1.0;
  return lowerInF64(l, {x}, [&](F64 f, ValueRange v) {
    return f.mul(f.c(sign * factorial), zetaOf(f, f.c(double(*n + 1)), v[0]));
  });
}

/// special_zeta(x, q): the Hurwitz zeta function; either may be a number.
LogicalResult lowerZeta(Lowering &l) {
  Type r = l.resultElementType();
  if (!r)
    return l.fail("needs a typed result");
  // special_zeta and its .self_scalar/.other_scalar overloads.
  using P = args::aten::special_zeta;
  SmallVector<Value> inputs;
  for (Param p : {P::self, P::other}) {
    Value v = l.value(l.arg(p));
    if (!v || !isa<RankedTensorType>(v.getType()))
      v = l.scalar(l.arg(p), l.b.getF64Type());
    if (!v)
      return l.fail("needs tensors or numbers");
    inputs.push_back(v);
  }
  return lowerInF64(l, inputs,
                    [](F64 f, ValueRange v) { return zetaOf(f, v[0], v[1]); });
}

/// mvlgamma(x, p): sum over i < p of lgamma(x - i/2), plus p (p - 1) / 4
/// log(pi); every x must be above (p - 1) / 2 (checked when called).
LogicalResult lowerMvlgamma(Lowering &l) {
  // Parameters as aten::mvlgamma names them, at the same positions in
  // aten::special_multigammaln.
  using P = args::aten::mvlgamma;
  Value x = l.tensor(P::self);
  auto p = l.constInt(P::p);
  Type r = l.resultElementType();
  if (!x || !p || *p < 1 || !r || !isFloat(r))
    return l.fail("needs a tensor, a constant p >= 1 and a float result");
  Type f64 = l.b.getF64Type();
  double bound = double(*p - 1) / 2;
  l.check(l.elementwise({x}, f64, l.b.getI1Type(),
                        [&](OpBuilder &b, Location loc, ValueRange v) {
                          return arith::CmpFOp::create(
                                     b, loc, arith::CmpFPredicate::ULE, v[0],
                                     constantOf(b, loc, f64, bound))
                              .getResult();
                        }),
          "All elements must be greater than (p-1)/2");
  return lowerInF64(l, {x}, [&](F64 f, ValueRange v) {
    Value sum = f.c(double(*p) * double(*p - 1) / 4 * std::log(M_PI));
    for (int64_t i = 0; i < *p; ++i)
      sum = f.add(sum, lgammaOf(f, f.sub(v[0], f.c(double(i) / 2))));
    return sum;
  });
}

/// The modified Bessel function I_nu (nu 0 or 1) of |x|, times e^-|x|
/// when `scaled`: the power series sum_k (x/2)^(2k + nu) / (k! (k + nu)!)
/// up to 15 (64 terms), the asymptotic series e^x / sqrt(2 pi x) sum_k
/// (-1)^k a_k(nu) / x^k above (14 terms). I_1 is odd; I_0 even.
Value besselI(F64 f, Value x, int nu, bool scaled) {
  using FP = arith::CmpFPredicate;
  Value ax = f.abs(x);
  // Power series.
  Value q = f.mul(f.mul(ax, ax), f.c(0.25));
  Value term = nu ? f.mul(ax, f.c(0.5)) : f.c(1);
  Value sum = term;
  for (int k = 1; k < 64; ++k) {
    term = f.mul(term, f.div(q, f.c(double(k) * double(k + nu))));
    sum = f.add(sum, term);
  }
  Value expNeg =
      math::ExpOp::create(f.b, f.loc, arith::NegFOp::create(f.b, f.loc, ax));
  Value small = scaled ? f.mul(sum, expNeg) : sum;
  // Asymptotic series.
  Value inv = f.div(f.c(1), ax);
  double mu = 4.0 * nu * nu;
  Value a = f.c(1), series = f.c(1);
  for (int k = 1; k < 14; ++k) {
    double odd = 2.0 * k - 1;
    a = f.mul(a, f.mul(inv, f.c(-(mu - odd * odd) / (8.0 * k))));
    series = f.add(series, a);
  }
  Value norm =
      f.div(f.c(1), math::SqrtOp::create(f.b, f.loc, f.mul(f.c(2 * M_PI), ax)));
  Value large = f.mul(series, norm);
  if (!scaled)
    large = f.mul(large, math::ExpOp::create(f.b, f.loc, ax));
  Value result = f.select(f.cmp(FP::OLE, ax, f.c(15)), small, large);
  if (nu == 1)
    result = math::CopySignOp::create(f.b, f.loc, result, x);
  return result;
}

/// erfinv(y): Giles' single-precision approximation, then two Newton steps
/// on erf in f64; +-inf at +-1, NaN outside [-1, 1].
Value erfinvOf(F64 f, Value y) {
  using FP = arith::CmpFPredicate;
  Value w = arith::NegFOp::create(
      f.b, f.loc, f.log(f.mul(f.sub(f.c(1), y), f.add(f.c(1), y))));
  auto horner = [&](Value t, ArrayRef<double> coefficients) {
    Value p = f.c(coefficients[0]);
    for (double c : coefficients.drop_front())
      p = f.add(f.c(c), f.mul(p, t));
    return p;
  };
  Value central = horner(f.sub(w, f.c(2.5)),
                         {2.81022636e-08, 3.43273939e-07, -3.5233877e-06,
                          -4.39150654e-06, 0.00021858087, -0.00125372503,
                          -0.00417768164, 0.246640727, 1.50140941});
  Value tail = horner(f.sub(math::SqrtOp::create(f.b, f.loc, w), f.c(3)),
                      {-0.000200214257, 0.000100950558, 0.00134934322,
                       -0.00367342844, 0.00573950773, -0.0076224613,
                       0.00943887047, 1.00167406, 2.83297682});
  Value x = f.mul(f.select(f.cmp(FP::OLT, w, f.c(5)), central, tail), y);
  for (int i = 0; i < 2; ++i) {
    Value error = f.sub(math::ErfOp::create(f.b, f.loc, x), y);
    Value slope =
        f.mul(f.c(2 / std::sqrt(M_PI)),
              math::ExpOp::create(
                  f.b, f.loc, arith::NegFOp::create(f.b, f.loc, f.mul(x, x))));
    x = f.sub(x, f.div(error, slope));
  }
  Value one = f.cmp(FP::OEQ, f.abs(y), f.c(1));
  x = f.select(one, math::CopySignOp::create(f.b, f.loc, f.c(kInf), y), x);
  return f.select(f.cmp(FP::OGT, f.abs(y), f.c(1)), f.c(std::nan("")), x);
}

/// erfcx(x) = e^(x^2) erfc(x), by its asymptotic series above 25 (where
/// e^(x^2) overflows).
Value erfcxOf(F64 f, Value x) {
  using FP = arith::CmpFPredicate;
  Value direct = f.mul(math::ExpOp::create(f.b, f.loc, f.mul(x, x)),
                       math::ErfcOp::create(f.b, f.loc, x));
  Value inv2 = f.div(f.c(1), f.mul(x, x));
  Value series = f.c(1), term = f.c(1);
  for (int k = 1; k < 8; ++k) {
    term = f.mul(term, f.mul(inv2, f.c(-(2.0 * k - 1) / 2)));
    series = f.add(series, term);
  }
  Value asymptotic = f.div(series, f.mul(x, f.c(std::sqrt(M_PI))));
  return f.select(f.cmp(FP::OGT, x, f.c(25)), asymptotic, direct);
}

/// log of the standard normal CDF: log(erfc(-x / sqrt 2) / 2), by the
/// asymptotic series of the tail below -20 (where erfc underflows).
Value logNdtrOf(F64 f, Value x) {
  using FP = arith::CmpFPredicate;
  Value direct = f.log(f.mul(
      f.c(0.5), math::ErfcOp::create(f.b, f.loc, f.mul(x, f.c(-M_SQRT1_2)))));
  Value inv2 = f.div(f.c(1), f.mul(x, x));
  Value series = f.c(1), term = f.c(1);
  for (int k = 1; k < 8; ++k) {
    term = f.mul(term, f.mul(inv2, f.c(-(2.0 * k - 1))));
    series = f.add(series, term);
  }
  Value tail = f.add(f.sub(f.sub(f.mul(f.c(-0.5), f.mul(x, x)),
                                 f.log(arith::NegFOp::create(f.b, f.loc, x))),
                           f.c(0.5 * std::log(2 * M_PI))),
                     f.log(series));
  return f.select(f.cmp(FP::OLT, x, f.c(-20)), tail, direct);
}

LogicalResult lowerBessel(Lowering &l) {
  // Parameters as aten::i0 names them, at the same positions in
  // aten::special_i0e and 4 more.
  using P = args::aten::i0;
  Value x = l.tensor(P::self);
  if (!x)
    return failure();
  StringRef target = l.target();
  int nu = target.ends_with("i1") || target.ends_with("i1e") ? 1 : 0;
  bool scaled = target.ends_with("i0e") || target.ends_with("i1e");
  return lowerInF64(l, {x}, [&](F64 f, ValueRange v) {
    return besselI(f, v[0], nu, scaled);
  });
}

/// ndtri(p), the standard normal's quantile, as ATen's calc_ndtri (the
/// Cephes library's rational approximations: one in p - 1/2 for p within
/// exp(-2) of 1/2, two in 1 / sqrt(-2 log p) in the tails, p reflected
/// above 1 - exp(-2)), so tiny probabilities keep their quantile (as
/// sqrt(2) erfinv(2p - 1) they were -inf below 1e-16, where 2p - 1 rounds
/// to -1): -inf at 0, +inf at 1, NaN outside [0, 1].
Value ndtriOf(F64 f, Value p) {
  using FP = arith::CmpFPredicate;
  static const double P0[] = {
      -5.99633501014107895267E1, 9.80010754185999661536E1,
      -5.66762857469070293439E1, 1.39312609387279679503E1,
      -1.23916583867381258016E0};
  static const double Q0[] = {1.0,
                              1.95448858338141759834E0,
                              4.67627912898881538453E0,
                              8.63602421390890590575E1,
                              -2.25462687854119370527E2,
                              2.00260212380060660359E2,
                              -8.20372256168333339912E1,
                              1.59056225126211695515E1,
                              -1.18331621121330003142E0};
  static const double P1[] = {
      4.05544892305962419923E0,   3.15251094599893866154E1,
      5.71628192246421288162E1,   4.40805073893200834700E1,
      1.46849561928858024014E1,   2.18663306850790267539E0,
      -1.40256079171354495875E-1, -3.50424626827848203418E-2,
      -8.57456785154685413611E-4};
  static const double Q1[] = {1.0,
                              1.57799883256466749731E1,
                              4.53907635128879210584E1,
                              4.13172038254672030440E1,
                              1.50425385692907503408E1,
                              2.50464946208309415979E0,
                              -1.42182922854787788574E-1,
                              -3.80806407691578277194E-2,
                              -9.33259480895457427372E-4};
  static const double P2[] = {
      3.23774891776946035970E0,  6.91522889068984211695E0,
      3.93881025292474443415E0,  1.33303460815807542389E0,
      2.01485389549179081538E-1, 1.23716634817820021358E-2,
      3.01581553508235416007E-4, 2.65806974686737550832E-6,
      6.23974539184983293730E-9};
  static const double Q2[] = {1.0,
                              6.02427039364742014255E0,
                              3.67983563856160859403E0,
                              1.37702099489081330271E0,
                              2.16236993594496635890E-1,
                              1.34204006088543189037E-2,
                              3.28014464682127739104E-4,
                              2.89247864745380683936E-6,
                              6.79019408009981274425E-9};
  auto polevl = [&](Value x, ArrayRef<double> a) {
    Value sum = f.c(a[0]);
    for (double coefficient : a.drop_front())
      sum = f.add(f.mul(sum, x), f.c(coefficient));
    return sum;
  };
  constexpr double kExpMinus2 = 0.13533528323661269189;
  Value upper = f.cmp(FP::OGT, p, f.c(1 - kExpMinus2));
  Value y = f.select(upper, f.sub(f.c(1), p), p);
  // Within exp(-2) of 1/2.
  Value c = f.sub(y, f.c(0.5));
  Value c2 = f.mul(c, c);
  Value central = f.mul(
      f.add(c, f.mul(c, f.div(f.mul(c2, polevl(c2, P0)), polevl(c2, Q0)))),
      f.c(2.50662827463100050242));
  // The tails: x = sqrt(-2 log y), 2 <= x < 8 and from 8 on.
  Value x = math::SqrtOp::create(f.b, f.loc, f.mul(f.c(-2), f.log(y)));
  Value x0 = f.sub(x, f.div(f.log(x), x));
  Value z = f.div(f.c(1), x);
  Value x1 = f.select(f.cmp(FP::OLT, x, f.c(8)),
                      f.div(f.mul(z, polevl(z, P1)), polevl(z, Q1)),
                      f.div(f.mul(z, polevl(z, P2)), polevl(z, Q2)));
  Value tail = f.sub(x0, x1);
  tail = f.select(upper, tail, arith::NegFOp::create(f.b, f.loc, tail));
  Value result = f.select(f.cmp(FP::OGT, y, f.c(kExpMinus2)), central, tail);
  result = f.select(f.cmp(FP::OEQ, p, f.c(0)), f.c(-kInf), result);
  result = f.select(f.cmp(FP::OEQ, p, f.c(1)), f.c(kInf), result);
  Value outside = arith::OrIOp::create(f.b, f.loc, f.cmp(FP::OLT, p, f.c(0)),
                                       f.cmp(FP::OGT, p, f.c(1)));
  return f.select(outside, f.c(std::nan("")), result);
}

LogicalResult lowerErfinvFamily(Lowering &l) {
  // Parameters as aten::erfinv names them, at the same positions in
  // aten::special_erfcx and 2 more.
  using P = args::aten::erfinv;
  Value x = l.tensor(P::self);
  if (!x)
    return failure();
  StringRef target = l.target();
  return lowerInF64(l, {x}, [&](F64 f, ValueRange v) -> Value {
    if (target == "aten::special_ndtri")
      return ndtriOf(f, v[0]);
    if (target == "aten::special_erfcx")
      return erfcxOf(f, v[0]);
    if (target == "aten::special_log_ndtr")
      return logNdtrOf(f, v[0]);
    return erfinvOf(f, v[0]);
  });
}

/// The orthogonal polynomials of torch.special by their three-term
/// recurrences, P_{k+1} = a(k, x) P_k - b(k) P_{k-1} (over c(k)), from P_0
/// = 1 and P_1: 0 for a negative degree, the degree truncated to an
/// integer as ATen does. The recurrence is unrolled to kMaxDegree steps,
/// each taken only below the degree; a larger degree is reported at run
/// time.
constexpr int kMaxDegree = 64;

Value orthogonalPolynomial(F64 f, StringRef name, Value x, Value n) {
  using FP = arith::CmpFPredicate;
  bool shifted = name.contains("shifted");
  // The shifted Chebyshev polynomials are the others at 2x - 1.
  Value t = shifted ? f.sub(f.add(x, x), f.c(1)) : x;
  Value twoT = f.add(t, t);
  char kind = name.back();
  Value p1;
  if (name.contains("chebyshev")) {
    p1 = kind == 't'   ? t
         : kind == 'u' ? twoT
         : kind == 'v' ? f.sub(twoT, f.c(1))
                       : f.add(twoT, f.c(1));
  } else if (name.contains("hermite_polynomial_he")) {
    p1 = x;
  } else if (name.contains("hermite")) {
    p1 = f.add(x, x);
  } else if (name.contains("laguerre")) {
    p1 = f.sub(f.c(1), x);
  } else {
    p1 = x; // legendre
  }
  auto step = [&](double k, Value p, Value q) -> Value {
    if (name.contains("chebyshev"))
      return f.sub(f.mul(twoT, q), p);
    if (name.contains("hermite_polynomial_he"))
      return f.sub(f.mul(x, q), f.mul(f.c(k), p));
    if (name.contains("hermite"))
      return f.sub(f.mul(f.add(x, x), q), f.mul(f.c(2 * k), p));
    if (name.contains("laguerre"))
      return f.div(f.sub(f.mul(f.sub(f.c(2 * k + 1), x), q), f.mul(f.c(k), p)),
                   f.c(k + 1));
    return f.div(f.sub(f.mul(f.mul(f.c(2 * k + 1), x), q), f.mul(f.c(k), p)),
                 f.c(k + 1));
  };
  Value degree = math::TruncOp::create(f.b, f.loc, n);
  Value p = f.c(1), q = p1;
  for (int k = 1; k < kMaxDegree; ++k) {
    Value more = f.cmp(FP::OGT, degree, f.c(k));
    Value r = step(double(k), p, q);
    p = f.select(more, q, p);
    q = f.select(more, r, q);
  }
  Value result = f.select(f.cmp(FP::OEQ, degree, f.c(0)), f.c(1), q);
  return f.select(f.cmp(FP::OLT, degree, f.c(0)), f.c(0), result);
}

LogicalResult lowerOrthogonalPolynomial(Lowering &l) {
  // Parameters as aten::special_chebyshev_polynomial_t names them, at the same
  // positions in aten::special_chebyshev_polynomial_t.n_scalar and 34 more.
  using P = args::aten::special_chebyshev_polynomial_t;
  Type r = l.resultElementType();
  if (!r)
    return l.fail("needs a typed result");
  Type f64 = l.b.getF64Type();
  SmallVector<Value> inputs;
  for (Param p : {P::x, P::n}) {
    Value v = l.value(l.arg(p));
    if (!v || !isa<RankedTensorType>(v.getType()))
      v = l.scalar(l.arg(p), f64);
    if (!v)
      return l.fail("needs tensors or numbers");
    inputs.push_back(v);
  }
  if (isa<RankedTensorType>(inputs[1].getType()))
    l.check(l.elementwise({inputs[1]}, f64, l.b.getI1Type(),
                          [&](OpBuilder &b, Location loc, ValueRange v) {
                            return arith::CmpFOp::create(
                                       b, loc, arith::CmpFPredicate::OGE,
                                       math::TruncOp::create(b, loc, v[0]),
                                       constantOf(b, loc, f64, kMaxDegree))
                                .getResult();
                          }),
            "degrees of " + Twine(kMaxDegree) + " or more are not supported");
  else if (auto n = l.constFloat(l.arg(P::n)); !n || *n >= kMaxDegree)
    return l.fail("the degree must be a constant below " + Twine(kMaxDegree));
  StringRef name = l.target();
  name = name.split('.').first;
  return lowerInF64(l, inputs, [&](F64 f, ValueRange v) {
    return orthogonalPolynomial(f, name, v[0], v[1]);
  });
}

/// spherical_bessel_j0(x) = sin(x) / x: 1 at 0, 0 at +-inf.
Value sphericalJ0(F64 f, Value x) {
  using FP = arith::CmpFPredicate;
  Value ratio = f.div(math::SinOp::create(f.b, f.loc, x), x);
  ratio = f.select(f.cmp(FP::OEQ, x, f.c(0)), f.c(1), ratio);
  return f.select(f.cmp(FP::OEQ, f.abs(x), f.c(kInf)), f.c(0), ratio);
}

/// The modified Bessel function K_nu (nu 0 or 1) of x > 0, times e^x when
/// `scaled`: Abramowitz and Stegun 9.6.13 and 9.6.11 (I_nu's series with
/// the logarithm and harmonic numbers) up to 10, the asymptotic series
/// sqrt(pi / 2x) e^-x sum_k a_k(nu) / x^k above; inf at 0, NaN below.
Value besselK(F64 f, Value x, int nu, bool scaled) {
  using FP = arith::CmpFPredicate;
  const double euler = 0.57721566490153286061;
  Value q = f.mul(f.mul(x, x), f.c(0.25));
  Value logHalf = f.log(f.mul(x, f.c(0.5)));
  Value in = besselI(f, x, nu, false);
  Value small;
  if (nu == 0) {
    // -(ln(x/2) + gamma) I0 + sum_k H_k q^k / (k!)^2.
    Value term = f.c(1), sum = f.c(0);
    double harmonic = 0;
    for (int k = 1; k < 50; ++k) {
      term = f.mul(term, f.div(q, f.c(double(k) * k)));
      harmonic += 1.0 / k;
      sum = f.add(sum, f.mul(term, f.c(harmonic)));
    }
    small = f.sub(sum, f.mul(f.add(logHalf, f.c(euler)), in));
  } else {
    // 1/x + ln(x/2) I1 - x/4 sum_k (psi(k+1) + psi(k+2)) q^k / (k! (k+1)!).
    Value term = f.c(1), sum = f.c(0);
    double harmonic = 0; // H_k
    for (int k = 0; k < 50; ++k) {
      if (k > 0) {
        term = f.mul(term, f.div(q, f.c(double(k) * (k + 1))));
        harmonic += 1.0 / k;
      }
      double psiSum = (-euler + harmonic) + (-euler + harmonic + 1.0 / (k + 1));
      sum = f.add(sum, f.mul(term, f.c(psiSum)));
    }
    small = f.sub(f.add(f.div(f.c(1), x), f.mul(logHalf, in)),
                  f.mul(f.mul(x, f.c(0.25)), sum));
  }
  Value expX = math::ExpOp::create(f.b, f.loc, x);
  if (scaled)
    small = f.mul(small, expX);
  Value inv = f.div(f.c(1), x);
  double mu = 4.0 * nu * nu;
  Value a = f.c(1), series = f.c(1);
  for (int k = 1; k < 14; ++k) {
    double odd = 2.0 * k - 1;
    a = f.mul(a, f.mul(inv, f.c((mu - odd * odd) / (8.0 * k))));
    series = f.add(series, a);
  }
  Value large =
      f.mul(series, math::SqrtOp::create(f.b, f.loc, f.div(f.c(M_PI / 2), x)));
  if (!scaled)
    large = f.div(large, expX);
  Value result = f.select(f.cmp(FP::OLE, x, f.c(10)), small, large);
  result = f.select(f.cmp(FP::OEQ, x, f.c(0)), f.c(kInf), result);
  return f.select(f.cmp(FP::OLT, x, f.c(0)), f.c(std::nan("")), result);
}

LogicalResult lowerBesselK(Lowering &l) {
  Value x = l.subject();
  if (!x)
    return failure();
  StringRef target = l.target();
  if (target == "aten::special_spherical_bessel_j0")
    return lowerInF64(l, {x},
                      [](F64 f, ValueRange v) { return sphericalJ0(f, v[0]); });
  int nu = target.ends_with("k1") ? 1 : 0;
  bool scaled = target.contains("scaled");
  return lowerInF64(l, {x}, [&](F64 f, ValueRange v) {
    return besselK(f, v[0], nu, scaled);
  });
}

} // namespace

void mlir::fx::lowering::addSpecialLowerings(llvm::StringMap<LowerFn> &t) {
  addLowering(t, {"aten::lgamma", "aten::special_gammaln"}, lowerLgamma);
  addLowering(t,
              {"aten::digamma", "aten::special_digamma", "aten::special_psi"},
              lowerDigamma);
  addLowering(t, {"aten::polygamma", "aten::special_polygamma"},
              lowerPolygamma);
  addLowering(t,
              {"aten::special_zeta", "aten::special_zeta.other_scalar",
               "aten::special_zeta.self_scalar"},
              lowerZeta);
  addLowering(t, {"aten::mvlgamma", "aten::special_multigammaln"},
              lowerMvlgamma);
  addLowering(t,
              {"aten::i0", "aten::special_i0e", "aten::special_i1",
               "aten::special_i1e", "aten::special_modified_bessel_i0",
               "aten::special_modified_bessel_i1"},
              lowerBessel);
  addLowering(t,
              {"aten::erfinv", "aten::special_ndtri", "aten::special_erfcx",
               "aten::special_log_ndtr"},
              lowerErfinvFamily);
  addLowering(t,
              {"aten::special_spherical_bessel_j0",
               "aten::special_modified_bessel_k0",
               "aten::special_modified_bessel_k1",
               "aten::special_scaled_modified_bessel_k0",
               "aten::special_scaled_modified_bessel_k1"},
              lowerBesselK);
  addLowering(t,
              {"aten::special_chebyshev_polynomial_t",
               "aten::special_chebyshev_polynomial_t.x_scalar",
               "aten::special_chebyshev_polynomial_t.n_scalar",
               "aten::special_chebyshev_polynomial_u",
               "aten::special_chebyshev_polynomial_u.x_scalar",
               "aten::special_chebyshev_polynomial_u.n_scalar",
               "aten::special_chebyshev_polynomial_v",
               "aten::special_chebyshev_polynomial_v.x_scalar",
               "aten::special_chebyshev_polynomial_v.n_scalar",
               "aten::special_chebyshev_polynomial_w",
               "aten::special_chebyshev_polynomial_w.x_scalar",
               "aten::special_chebyshev_polynomial_w.n_scalar",
               "aten::special_shifted_chebyshev_polynomial_t",
               "aten::special_shifted_chebyshev_polynomial_t.x_scalar",
               "aten::special_shifted_chebyshev_polynomial_t.n_scalar",
               "aten::special_shifted_chebyshev_polynomial_u",
               "aten::special_shifted_chebyshev_polynomial_u.x_scalar",
               "aten::special_shifted_chebyshev_polynomial_u.n_scalar",
               "aten::special_shifted_chebyshev_polynomial_v",
               "aten::special_shifted_chebyshev_polynomial_v.x_scalar",
               "aten::special_shifted_chebyshev_polynomial_v.n_scalar",
               "aten::special_shifted_chebyshev_polynomial_w",
               "aten::special_shifted_chebyshev_polynomial_w.x_scalar",
               "aten::special_shifted_chebyshev_polynomial_w.n_scalar",
               "aten::special_hermite_polynomial_h",
               "aten::special_hermite_polynomial_h.x_scalar",
               "aten::special_hermite_polynomial_h.n_scalar",
               "aten::special_hermite_polynomial_he",
               "aten::special_hermite_polynomial_he.x_scalar",
               "aten::special_hermite_polynomial_he.n_scalar",
               "aten::special_laguerre_polynomial_l",
               "aten::special_laguerre_polynomial_l.x_scalar",
               "aten::special_laguerre_polynomial_l.n_scalar",
               "aten::special_legendre_polynomial_p",
               "aten::special_legendre_polynomial_p.x_scalar",
               "aten::special_legendre_polynomial_p.n_scalar"},
              lowerOrthogonalPolynomial);
}
