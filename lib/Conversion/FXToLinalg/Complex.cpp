//===- Complex.cpp - Lowerings of operators on complex tensors -----------===//
//
// complex64 and complex128 tensors are tensors of `complex<f32>` and
// `complex<f64>`; their arithmetic is the `complex` dialect's, lowered to
// arith and math on the two parts by convert-complex-to-standard in the
// CPU pipeline. A node with a complex operand or result is lowered by the
// form registered here for its target instead of its real form
// (Lowering.cpp's dispatch), so that no real lowering sees complex
// elements; a target with no complex form here is a clear error. Targets
// that exist only for complex numbers (`imag`, `view_as_real`,
// `view_as_complex`, `complex`, `polar`) are the `Complex` family.
//
// Operands are promoted to the node's declared result type (PyTorch's type
// promotion, recorded at import): a float tensor or Python number added to
// a complex tensor becomes the real part of a complex value.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "mlir/Dialect/Complex/IR/Complex.h"
#include "llvm/ADT/StringSwitch.h"

#include <numbers>

using namespace mlir;
using namespace mlir::fx;
using namespace mlir::fx::lowering;

namespace {

using Body = function_ref<Value(OpBuilder &, Location, ValueRange)>;

int64_t rankOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getRank();
}

Type elementOf(Value v) { return getElementTypeOrSelf(v.getType()); }

/// The complex type of the node's result, or null (reason recorded).
ComplexType complexResult(Lowering &l) {
  auto r = dyn_cast_or_null<ComplexType>(l.resultElementType());
  if (!r)
    (void)l.fail("needs a complex result");
  return r;
}

/// Argument `a` as a tensor, or as a scalar of `type` when it is a number.
Value operandAs(Lowering &l, Attribute a, Type type) {
  if (Value v = l.value(a))
    if (isa<RankedTensorType>(v.getType()))
      return v;
  return l.scalar(a, type);
}

/// The widest complex element type among `values` (tensors or scalars),
/// the type a comparison of them computes in; null when none is complex.
ComplexType widestComplex(ArrayRef<Value> values) {
  ComplexType best;
  for (Value v : values)
    if (auto c = dyn_cast<ComplexType>(elementOf(v)))
      if (!best || c.getElementType().getIntOrFloatBitWidth() >
                       best.getElementType().getIntOrFloatBitWidth())
        best = c;
  return best;
}

//===----------------------------------------------------------------------===//
// Arithmetic
//===----------------------------------------------------------------------===//

enum class Arith { Add, Sub, Rsub, Mul, Div };

Value combine(OpBuilder &b, Location loc, Arith kind, Value x, Value y) {
  switch (kind) {
  case Arith::Add:
    return complex::AddOp::create(b, loc, x, y);
  case Arith::Sub:
    return complex::SubOp::create(b, loc, x, y);
  case Arith::Rsub:
    return complex::SubOp::create(b, loc, y, x);
  case Arith::Mul:
    return complex::MulOp::create(b, loc, x, y);
  case Arith::Div:
    return complex::DivOp::create(b, loc, x, y);
  }
  llvm_unreachable("unknown arithmetic");
}

/// `self op other`, `other` scaled by `alpha` first when the target has
/// one (add, sub: self - alpha * other; rsub: other - alpha * self).
LogicalResult lowerArithmetic(Lowering &l) {
  // Parameters as aten::add.Scalar names them, at the same positions in
  // every overload of add, sub, rsub, mul and div.
  using P = args::aten::add_Scalar;
  StringRef target = l.target();
  Arith kind = llvm::StringSwitch<Arith>(target.split('.').first)
                   .Case("aten::add", Arith::Add)
                   .Case("aten::sub", Arith::Sub)
                   .Case("aten::rsub", Arith::Rsub)
                   .Case("aten::mul", Arith::Mul)
                   .Default(Arith::Div);
  ComplexType r = complexResult(l);
  if (!r)
    return failure();
  Value x = operandAs(l, l.arg(P::self), r);
  Value y = operandAs(l, l.arg(P::other), r);
  if (!x || !y)
    return l.fail("unsupported operands");
  if (!isa<RankedTensorType>(x.getType()) &&
      !isa<RankedTensorType>(y.getType()))
    return l.fail("needs a tensor operand");
  // alpha: keyword-only in the .Tensor overloads, third in the .Scalar
  // ones.
  Attribute alpha;
  if (kind == Arith::Add || kind == Arith::Sub || kind == Arith::Rsub)
    alpha = target.ends_with(".Scalar") ? l.arg(P::alpha)
                                        : l.arg(args::aten::add_Tensor::alpha);
  static constexpr Param kMode =
      sameParam(args::aten::div_Tensor_mode::rounding_mode,
                args::aten::div_Scalar_mode::rounding_mode);
  if (target.ends_with("_mode") && !l.isNone(kMode))
    return l.fail("complex division has no rounding mode");
  Value scale;
  if (!l.isNone(alpha) && l.constFloat(alpha) != 1.0)
    if (!(scale = l.scalar(alpha, r)))
      return l.fail("alpha must be a number");
  return l.replace(l.elementwise(
      {x, y}, r, r, [&](OpBuilder &b, Location loc, ValueRange v) {
        Value lhs = v[0], rhs = v[1];
        if (scale && kind == Arith::Rsub)
          lhs = complex::MulOp::create(b, loc, lhs, scale);
        else if (scale)
          rhs = complex::MulOp::create(b, loc, rhs, scale);
        return combine(b, loc, kind, lhs, rhs);
      }));
}

/// `x ** exponent` (either may be a number).
LogicalResult lowerPow(Lowering &l) {
  // Parameters as aten::pow.Tensor_Tensor names them, at the same
  // positions in pow.Tensor_Scalar and pow.Scalar.
  using P = args::aten::pow_Tensor_Tensor;
  ComplexType r = complexResult(l);
  if (!r)
    return failure();
  Value x = operandAs(l, l.arg(P::self), r);
  Value y = operandAs(l, l.arg(P::exponent), r);
  if (!x || !y)
    return l.fail("unsupported operands");
  return l.replace(l.elementwise(
      {x, y}, r, r, [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
        return complex::PowOp::create(b, loc, v[0], v[1]);
      }));
}

/// A function of one complex tensor with a complex result.
LogicalResult unary(Lowering &l, Body body) {
  using P = args::aten::exp;
  ComplexType r = complexResult(l);
  Value x = l.tensor(P::self);
  if (!r || !x)
    return failure();
  return l.replace(l.elementwise({x}, r, r, body));
}

#define FX_COMPLEX_UNARY(NAME, EXPR)                                           \
  LogicalResult NAME(Lowering &l) {                                            \
    return unary(l, [&](OpBuilder &b, Location loc, ValueRange v) -> Value {   \
      Value x = v[0];                                                          \
      auto one = [&] { return constantOf(b, loc, x.getType(), 1); };           \
      (void)one;                                                               \
      return EXPR;                                                             \
    });                                                                        \
  }

FX_COMPLEX_UNARY(lowerNeg, complex::NegOp::create(b, loc, x))
FX_COMPLEX_UNARY(lowerExp, complex::ExpOp::create(b, loc, x))
FX_COMPLEX_UNARY(lowerLog, complex::LogOp::create(b, loc, x))
FX_COMPLEX_UNARY(lowerSqrt, complex::SqrtOp::create(b, loc, x))
FX_COMPLEX_UNARY(lowerRsqrt, complex::RsqrtOp::create(b, loc, x))
FX_COMPLEX_UNARY(lowerSin, complex::SinOp::create(b, loc, x))
FX_COMPLEX_UNARY(lowerCos, complex::CosOp::create(b, loc, x))
FX_COMPLEX_UNARY(lowerTan, complex::TanOp::create(b, loc, x))
FX_COMPLEX_UNARY(lowerTanh, complex::TanhOp::create(b, loc, x))
FX_COMPLEX_UNARY(lowerConj, complex::ConjOp::create(b, loc, x))
FX_COMPLEX_UNARY(lowerSgn, complex::SignOp::create(b, loc, x))
FX_COMPLEX_UNARY(lowerSquare, complex::MulOp::create(b, loc, x, x))
FX_COMPLEX_UNARY(lowerReciprocal, complex::DivOp::create(b, loc, one(), x))
// 1 / (1 + exp(-x))
FX_COMPLEX_UNARY(
    lowerSigmoid,
    complex::DivOp::create(
        b, loc, one(),
        complex::AddOp::create(
            b, loc, one(),
            complex::ExpOp::create(b, loc, complex::NegOp::create(b, loc, x)))))
#undef FX_COMPLEX_UNARY

/// log2 and log10: log(x) / log(base).
LogicalResult lowerLogBase(Lowering &l) {
  double base = l.target() == "aten::log2" ? 2.0 : 10.0;
  return unary(l, [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
    Value scale = constantOf(b, loc, v[0].getType(), 1.0 / std::log(base));
    return complex::MulOp::create(b, loc, complex::LogOp::create(b, loc, v[0]),
                                  scale);
  });
}

/// The values themselves: the conjugate and negative bits that
/// resolve_conj and resolve_neg materialize are already applied here.
LogicalResult lowerSame(Lowering &l) {
  using P = args::aten::resolve_conj;
  Value x = l.tensor(P::self);
  return x ? l.replace(x) : failure();
}

//===----------------------------------------------------------------------===//
// Parts: real results of complex tensors, complex results of real ones
//===----------------------------------------------------------------------===//

/// A real function `part` of each element of one complex tensor (abs,
/// angle, real, imag).
LogicalResult toReal(Lowering &l,
                     function_ref<Value(OpBuilder &, Location, Value)> part) {
  using P = args::aten::abs;
  Value x = l.tensor(P::self);
  Type r = l.resultElementType();
  if (!x || !r)
    return failure();
  auto c = dyn_cast<ComplexType>(elementOf(x));
  if (!c)
    return l.fail("needs a complex tensor");
  return l.replace(
      l.elementwise({x}, c, r, [&](OpBuilder &b, Location loc, ValueRange v) {
        return part(b, loc, v[0]);
      }));
}

LogicalResult lowerAbs(Lowering &l) {
  return toReal(l, [](OpBuilder &b, Location loc, Value x) -> Value {
    return complex::AbsOp::create(b, loc, x);
  });
}
LogicalResult lowerAngle(Lowering &l) {
  return toReal(l, [](OpBuilder &b, Location loc, Value x) -> Value {
    return complex::AngleOp::create(b, loc, x);
  });
}
LogicalResult lowerReal(Lowering &l) {
  return toReal(l, [](OpBuilder &b, Location loc, Value x) -> Value {
    return complex::ReOp::create(b, loc, x);
  });
}
LogicalResult lowerImag(Lowering &l) {
  return toReal(l, [](OpBuilder &b, Location loc, Value x) -> Value {
    return complex::ImOp::create(b, loc, x);
  });
}

/// view_as_real(x): the parts as a last dim of 2 (real, imaginary).
LogicalResult lowerViewAsReal(Lowering &l) {
  using P = args::aten::view_as_real;
  Value x = l.tensor(P::self);
  Type r = l.resultElementType();
  if (!x || !r)
    return failure();
  if (!isa<ComplexType>(elementOf(x)))
    return l.fail("needs a complex tensor");
  int64_t rank = rankOf(x);
  SmallVector<OpFoldResult> sizes = l.dims(x);
  sizes.push_back(l.b.getIndexAttr(2));
  Value init = l.empty(sizes, r);
  MLIRContext *ctx = l.b.getContext();
  SmallVector<AffineExpr> inExprs;
  for (int64_t d = 0; d < rank; ++d)
    inExprs.push_back(getAffineDimExpr(d, ctx));
  SmallVector<AffineMap> maps = {AffineMap::get(rank + 1, 0, inExprs, ctx),
                                 l.b.getMultiDimIdentityMap(rank + 1)};
  SmallVector<utils::IteratorType> iterators(rank + 1,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      l.b, l.loc, TypeRange{init.getType()}, ValueRange{x}, ValueRange{init},
      maps, iterators, "", "",
      [&](OpBuilder &b, Location loc, ValueRange args) {
        Value which = linalg::IndexOp::create(b, loc, rank);
        Value isReal =
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, which,
                                  arith::ConstantIndexOp::create(b, loc, 0));
        Value re = complex::ReOp::create(b, loc, args[0]);
        Value im = complex::ImOp::create(b, loc, args[0]);
        linalg::YieldOp::create(
            b, loc,
            ValueRange{arith::SelectOp::create(b, loc, isReal, re, im)});
      });
  return l.replace(generic.getResult(0));
}

/// complex(real, imag) elementwise (broadcast), from two real tensors;
/// `polar` takes them as magnitude and angle.
LogicalResult lowerFromParts(Lowering &l, bool polar) {
  // Parameters as aten::complex names them, at the same positions in
  // aten::polar (abs, angle).
  static constexpr Param kFirst =
      sameParam(args::aten::complex::real, args::aten::polar::abs);
  static constexpr Param kSecond =
      sameParam(args::aten::complex::imag, args::aten::polar::angle);
  ComplexType r = complexResult(l);
  Value a = l.tensor(kFirst), b = l.tensor(kSecond);
  if (!r || !a || !b)
    return failure();
  Type part = r.getElementType();
  return l.replace(l.elementwise(
      {a, b}, part, r, [&](OpBuilder &nb, Location loc, ValueRange v) {
        Value re = v[0], im = v[1];
        if (polar) {
          re = arith::MulFOp::create(nb, loc, v[0],
                                     math::CosOp::create(nb, loc, v[1]));
          im = arith::MulFOp::create(nb, loc, v[0],
                                     math::SinOp::create(nb, loc, v[1]));
        }
        return complex::CreateOp::create(nb, loc, r, re, im);
      }));
}
LogicalResult lowerComplex(Lowering &l) { return lowerFromParts(l, false); }
LogicalResult lowerPolar(Lowering &l) { return lowerFromParts(l, true); }

/// view_as_complex(x): x's last dim of 2 read as (real, imaginary).
LogicalResult lowerViewAsComplex(Lowering &l) {
  using P = args::aten::view_as_complex;
  ComplexType r = complexResult(l);
  Value x = l.tensor(P::self);
  if (!r || !x)
    return failure();
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  if (rank == 0 || type.getDimSize(rank - 1) != 2)
    return l.fail("needs a last dim of size 2");
  return l.replace(complexFromParts(l.b, l.loc, x, r));
}

//===----------------------------------------------------------------------===//
// Comparisons, reductions, products
//===----------------------------------------------------------------------===//

/// eq and ne: both parts compared.
LogicalResult lowerEquality(Lowering &l) {
  // Parameters as aten::eq.Tensor names them, at the same positions in
  // eq.Scalar and ne.
  using P = args::aten::eq_Tensor;
  bool equal = l.target().starts_with("aten::eq");
  Type r = l.resultElementType();
  Value self = l.value(l.arg(P::self)), other = l.value(l.arg(P::other));
  ComplexType c = widestComplex(llvm::to_vector(llvm::make_filter_range(
      ArrayRef<Value>{self, other}, [](Value v) { return !!v; })));
  if (!r || !c)
    return l.fail("needs a complex operand");
  Value x = operandAs(l, l.arg(P::self), c);
  Value y = operandAs(l, l.arg(P::other), c);
  if (!x || !y)
    return l.fail("unsupported operands");
  return l.replace(l.elementwise(
      {x, y}, c, r, [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
        if (equal)
          return complex::EqualOp::create(b, loc, v[0], v[1]);
        return complex::NotEqualOp::create(b, loc, v[0], v[1]);
      }));
}

/// sum and mean, over all dims or the given ones.
LogicalResult lowerSumOrMean(Lowering &l) {
  static constexpr Param kDim =
      sameParam(args::aten::sum_dim_IntList::dim, args::aten::mean_dim::dim);
  static constexpr Param kKeepdim = sameParam(
      args::aten::sum_dim_IntList::keepdim, args::aten::mean_dim::keepdim);
  StringRef target = l.target();
  bool mean = target.starts_with("aten::mean");
  bool full = target == "aten::sum" || target == "aten::mean";
  ComplexType r = complexResult(l);
  Value x = l.subject();
  if (!r || !x)
    return failure();
  int64_t rank = rankOf(x);
  SmallVector<int64_t> dims;
  std::optional<SmallVector<int64_t>> listed;
  if (!full && !l.isNone(kDim) && !(listed = l.intList(kDim)))
    return l.fail("dims must be constants");
  if (listed && !listed->empty()) {
    for (int64_t d : *listed) {
      int64_t n = d < 0 ? d + std::max<int64_t>(rank, 1) : d;
      if (n < 0 || n >= std::max<int64_t>(rank, 1))
        return l.fail("dim out of range");
      if (rank > 0 && !llvm::is_contained(dims, n))
        dims.push_back(n);
    }
    llvm::sort(dims);
  } else {
    for (int64_t d = 0; d < rank; ++d)
      dims.push_back(d);
  }
  bool keepdim = !full && l.constBool(kKeepdim).value_or(false);
  Value sum = l.reduce(x, dims, keepdim, l.constant(r, 0),
                       [](OpBuilder &b, Location loc, Value acc, Value e) {
                         return complex::AddOp::create(b, loc, acc, e);
                       });
  if (!mean)
    return l.replace(sum);
  Value count = l.countOver(x, dims, r);
  return l.replace(l.elementwise(
      {sum}, r, r, [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
        return complex::DivOp::create(b, loc, v[0], count);
      }));
}

/// The matrix product of `a` and `b` as torch.matmul defines it (1-D
/// operands as a row or column that the result drops, batch dims
/// broadcast), `a` conjugated first when `conjugateA` (vdot); complex
/// multiply-adds, in one linalg.generic.
Value matmul(Lowering &l, Value a, Value b, ComplexType r, bool conjugateA) {
  auto ta = cast<RankedTensorType>(a.getType());
  auto tb = cast<RankedTensorType>(b.getType());
  int64_t ra = ta.getRank(), rb = tb.getRank();
  int64_t batchA = std::max<int64_t>(ra - 2, 0);
  int64_t batchB = std::max<int64_t>(rb - 2, 0);
  int64_t batch = std::max(batchA, batchB);
  bool hasI = ra >= 2, hasJ = rb >= 2;
  // Loop dims: batch..., i (if a has rows), j (if b has columns), k.
  int64_t i = batch, j = batch + (hasI ? 1 : 0), k = j + (hasJ ? 1 : 0);
  int64_t loops = k + 1;
  MLIRContext *ctx = l.b.getContext();
  SmallVector<OpFoldResult> sizes;
  SmallVector<AffineExpr> outExprs, aExprs, bExprs;
  auto batchExprs = [&](Value v, RankedTensorType t, int64_t own,
                        SmallVector<AffineExpr> &exprs) {
    for (int64_t d = 0; d < own; ++d) {
      int64_t loop = d + (batch - own);
      bool broadcast = !t.isDynamicDim(d) && t.getDimSize(d) == 1;
      exprs.push_back(broadcast ? getAffineConstantExpr(0, ctx)
                                : getAffineDimExpr(loop, ctx));
    }
  };
  for (int64_t d = 0; d < batch; ++d) {
    OpFoldResult chosen;
    for (auto [v, t, own] :
         {std::tuple(a, ta, batchA), std::tuple(b, tb, batchB)}) {
      int64_t e = d - (batch - own);
      if (e < 0)
        continue;
      if (!t.isDynamicDim(e) && t.getDimSize(e) != 1) {
        chosen = l.b.getIndexAttr(t.getDimSize(e));
        break;
      }
      if (t.isDynamicDim(e) && !chosen)
        chosen = l.dim(v, e);
    }
    sizes.push_back(chosen ? chosen : l.b.getIndexAttr(1));
    outExprs.push_back(getAffineDimExpr(d, ctx));
  }
  batchExprs(a, ta, batchA, aExprs);
  batchExprs(b, tb, batchB, bExprs);
  if (hasI) {
    sizes.push_back(l.dim(a, ra - 2));
    outExprs.push_back(getAffineDimExpr(i, ctx));
    aExprs.push_back(getAffineDimExpr(i, ctx));
  }
  aExprs.push_back(getAffineDimExpr(k, ctx));
  bExprs.push_back(getAffineDimExpr(k, ctx));
  if (hasJ) {
    sizes.push_back(l.dim(b, rb - 1));
    outExprs.push_back(getAffineDimExpr(j, ctx));
    bExprs.push_back(getAffineDimExpr(j, ctx));
  }
  a = l.castTensor(a, r);
  b = l.castTensor(b, r);
  Value init = l.filled(sizes, l.constant(r, 0));
  SmallVector<AffineMap> maps = {AffineMap::get(loops, 0, aExprs, ctx),
                                 AffineMap::get(loops, 0, bExprs, ctx),
                                 AffineMap::get(loops, 0, outExprs, ctx)};
  SmallVector<utils::IteratorType> iterators(loops,
                                             utils::IteratorType::parallel);
  iterators.back() = utils::IteratorType::reduction;
  auto generic = linalg::GenericOp::create(
      l.b, l.loc, TypeRange{init.getType()}, ValueRange{a, b}, ValueRange{init},
      maps, iterators, "", "",
      [&](OpBuilder &nb, Location loc, ValueRange args) {
        Value x =
            conjugateA ? complex::ConjOp::create(nb, loc, args[0]) : args[0];
        Value product = complex::MulOp::create(nb, loc, x, args[1]);
        linalg::YieldOp::create(
            nb, loc,
            ValueRange{complex::AddOp::create(nb, loc, args[2], product)});
      });
  return generic.getResult(0);
}

/// mm, bmm, matmul, dot and vdot of complex tensors.
LogicalResult lowerProduct(Lowering &l) {
  // Parameters as aten::matmul names them, at the same positions in mm,
  // bmm, dot and vdot.
  static constexpr Param kA = sameParam(
      args::aten::matmul::self, args::aten::mm::self, args::aten::bmm::self,
      args::aten::dot::self, args::aten::vdot::self);
  static constexpr Param kB = sameParam(
      args::aten::matmul::other, args::aten::mm::mat2, args::aten::bmm::mat2,
      args::aten::dot::tensor, args::aten::vdot::other);
  ComplexType r = complexResult(l);
  Value a = l.tensor(kA), b = l.tensor(kB);
  if (!r || !a || !b)
    return failure();
  StringRef target = l.target();
  int64_t ra = rankOf(a), rb = rankOf(b);
  bool vector = target == "aten::dot" || target == "aten::vdot";
  if (ra == 0 || rb == 0 || (vector && (ra != 1 || rb != 1)) ||
      (target == "aten::mm" && (ra != 2 || rb != 2)) ||
      (target == "aten::bmm" && (ra != 3 || rb != 3)))
    return l.fail("operands of the wrong rank");
  return l.replace(matmul(l, a, b, r, target == "aten::vdot"));
}

/// Targets whose own lowering is right on complex tensors once scalars
/// convert and constants build as complex numbers (Lowering.cpp): they
/// select, fill, gather or convert elements and do no arithmetic on them.
LogicalResult lowerAsReal(Lowering &l) {
  LowerFn own = lookupLowering(l.target());
  return own ? own(l) : l.fail("no lowering");
}

} // namespace

static const llvm::StringMap<LowerFn> &complexTable() {
  static const llvm::StringMap<LowerFn> table = [] {
    llvm::StringMap<LowerFn> t;
    addLowering(t,
                {"aten::add.Tensor", "aten::add.Scalar", "aten::sub.Tensor",
                 "aten::sub.Scalar", "aten::rsub.Tensor", "aten::rsub.Scalar",
                 "aten::mul.Tensor", "aten::mul.Scalar", "aten::div.Tensor",
                 "aten::div.Scalar", "aten::div.Tensor_mode",
                 "aten::div.Scalar_mode"},
                lowerArithmetic);
    addLowering(t,
                {"aten::pow.Tensor_Tensor", "aten::pow.Tensor_Scalar",
                 "aten::pow.Scalar"},
                lowerPow);
    addLowering(t, {"aten::neg"}, lowerNeg);
    addLowering(t, {"aten::exp"}, lowerExp);
    addLowering(t, {"aten::log"}, lowerLog);
    addLowering(t, {"aten::log2", "aten::log10"}, lowerLogBase);
    addLowering(t, {"aten::sqrt"}, lowerSqrt);
    addLowering(t, {"aten::rsqrt"}, lowerRsqrt);
    addLowering(t, {"aten::sin"}, lowerSin);
    addLowering(t, {"aten::cos"}, lowerCos);
    addLowering(t, {"aten::tan"}, lowerTan);
    addLowering(t, {"aten::tanh"}, lowerTanh);
    addLowering(t, {"aten::sigmoid"}, lowerSigmoid);
    addLowering(t, {"aten::reciprocal"}, lowerReciprocal);
    addLowering(t, {"aten::square"}, lowerSquare);
    addLowering(t, {"aten::conj", "aten::conj_physical"}, lowerConj);
    addLowering(t, {"aten::resolve_conj", "aten::resolve_neg"}, lowerSame);
    addLowering(t, {"aten::sgn"}, lowerSgn);
    addLowering(t, {"aten::abs"}, lowerAbs);
    addLowering(t, {"aten::angle"}, lowerAngle);
    addLowering(t, {"aten::real"}, lowerReal);
    addLowering(t, {"aten::imag"}, lowerImag);
    addLowering(t, {"aten::view_as_real"}, lowerViewAsReal);
    addLowering(t, {"aten::view_as_complex"}, lowerViewAsComplex);
    addLowering(t, {"aten::complex"}, lowerComplex);
    addLowering(t, {"aten::polar"}, lowerPolar);
    addLowering(t,
                {"aten::eq.Tensor", "aten::eq.Scalar", "aten::ne.Tensor",
                 "aten::ne.Scalar"},
                lowerEquality);
    addLowering(
        t,
        {"aten::sum", "aten::sum.dim_IntList", "aten::mean", "aten::mean.dim"},
        lowerSumOrMean);
    addLowering(
        t, {"aten::matmul", "aten::mm", "aten::bmm", "aten::dot", "aten::vdot"},
        lowerProduct);
    addLowering(t,
                {"aten::where.self",
                 "aten::where.ScalarSelf",
                 "aten::where.ScalarOther",
                 "aten::where.Scalar",
                 "aten::to.dtype",
                 "aten::to.other",
                 "aten::to.device",
                 "aten::_to_copy",
                 "aten::type_as",
                 "aten::zeros_like",
                 "aten::ones_like",
                 "aten::full_like",
                 "aten::zeros",
                 "aten::ones",
                 "aten::full",
                 "aten::new_zeros",
                 "aten::new_ones",
                 "aten::new_full",
                 "aten::eye",
                 "aten::eye.m",
                 "aten::flip",
                 "aten::roll",
                 "aten::repeat",
                 "aten::tile",
                 "aten::tril",
                 "aten::triu",
                 "aten::expand_as",
                 "aten::constant_pad_nd",
                 "aten::gather",
                 "aten::index_select",
                 "aten::masked_fill.Scalar",
                 "aten::masked_fill.Tensor",
                 "aten::diag_embed",
                 "aten::diagonal",
                 "aten::diag",
                 "aten::rot90",
                 "aten::pad",
                 "aten::unfold",
                 "aten::view_as",
                 "aten::meshgrid.indexing",
                 "aten::take",
                 "aten::block_diag",
                 "aten::im2col"},
                lowerAsReal);
    return t;
  }();
  return table;
}

Value mlir::fx::lowering::complexFromParts(OpBuilder &b, Location loc,
                                           Value parts, ComplexType type) {
  auto partsType = cast<RankedTensorType>(parts.getType());
  int64_t rank = partsType.getRank() - 1;
  SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0; d < rank; ++d)
    sizes.push_back(
        partsType.isDynamicDim(d)
            ? OpFoldResult(tensor::DimOp::create(b, loc, parts, d).getResult())
            : OpFoldResult(b.getIndexAttr(partsType.getDimSize(d))));
  Value init = tensor::EmptyOp::create(b, loc, sizes, type);
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineExpr> exprs;
  for (int64_t d = 0; d < rank; ++d)
    exprs.push_back(getAffineDimExpr(d, ctx));
  auto part = [&](int64_t which) {
    SmallVector<AffineExpr> e = exprs;
    e.push_back(getAffineConstantExpr(which, ctx));
    return AffineMap::get(rank, 0, e, ctx);
  };
  SmallVector<AffineMap> maps = {part(0), part(1),
                                 b.getMultiDimIdentityMap(rank)};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, ValueRange{parts, parts},
      ValueRange{init}, maps, iterators, "", "",
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        linalg::YieldOp::create(nb, nloc,
                                ValueRange{complex::CreateOp::create(
                                    nb, nloc, type, args[0], args[1])});
      });
  return generic.getResult(0);
}

LowerFn mlir::fx::lowering::lookupComplexLowering(StringRef name) {
  return complexTable().lookup(name);
}

void mlir::fx::lowering::addComplexLowerings(llvm::StringMap<LowerFn> &t) {
  addLowering(t, {"aten::imag"}, lowerImag);
  addLowering(t, {"aten::view_as_real"}, lowerViewAsReal);
  addLowering(t, {"aten::view_as_complex"}, lowerViewAsComplex);
  addLowering(t, {"aten::complex"}, lowerComplex);
  addLowering(t, {"aten::polar"}, lowerPolar);
}
