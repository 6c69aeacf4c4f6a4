//===- Scalars.cpp - Python int and bool arithmetic, asserts, raise -------===//
//
// Arithmetic and comparisons on Python ints (`aten::add.int`,
// `aten::eq.int`) and bools (`aten::__and__.bool`, `aten::__not__`),
// folded as they are built; `torch._assert`, dropped or refused when its
// condition is known when compiling and a run-time check otherwise; and
// prim::RaiseException of scripted code, a run-time check that fails
// wherever it is reached.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include <type_traits>

using namespace mlir;
using namespace mlir::fx;
using namespace mlir::fx::lowering;

namespace {

//===----------------------------------------------------------------------===//
// Python int arithmetic
//===----------------------------------------------------------------------===//

// Folded as they are built: sizes of static shapes are constants, so
// `torch._assert` of them is decided when compiling.

/// A binary op on Python ints (`Width` 64) or bools (`Width` 1:
/// aten::__and__.bool, aten::__or__.bool).
template <typename OpTy, unsigned Width = 64>
LogicalResult lowerIntBinary(Lowering &l) {
  // Parameters as aten::add.int names them, at the same positions in
  // aten::floordiv.int, aten::__and__.bool and more.
  using P = args::aten::add_int_;
  Type type = l.b.getIntegerType(Width);
  Value x = l.scalar(l.arg(P::a), type), y = l.scalar(l.arg(P::b), type);
  if (!x || !y)
    return l.fail(Width == 1 ? "needs bool operands" : "needs int operands");
  return l.replace(l.b.createOrFold<OpTy>(l.loc, x, y));
}

/// Python float arithmetic (aten::add.float, ...; ints converted, as
/// Python does): doubles.
template <typename OpTy> LogicalResult lowerFloatBinary(Lowering &l) {
  // Parameters as aten::add.float names them, at the same positions in
  // aten::pow.int_float and the rest.
  using P = args::aten::add_float_;
  Type f64 = l.b.getF64Type();
  Value x = l.scalar(l.arg(P::a), f64), y = l.scalar(l.arg(P::b), f64);
  if (!x || !y)
    return l.fail("needs number operands");
  return l.replace(l.b.createOrFold<OpTy>(l.loc, x, y));
}

/// Python's `a % b`: the remainder takes the sign of `b`.
LogicalResult lowerIntRemainder(Lowering &l) {
  using P = args::aten::remainder_int_;
  Type i64 = l.b.getI64Type();
  Value x = l.scalar(l.arg(P::a), i64), y = l.scalar(l.arg(P::b), i64);
  if (!x || !y)
    return l.fail("needs int operands");
  Value q = l.b.createOrFold<arith::FloorDivSIOp>(l.loc, x, y);
  Value qy = l.b.createOrFold<arith::MulIOp>(l.loc, q, y);
  return l.replace(l.b.createOrFold<arith::SubIOp>(l.loc, x, qy));
}

/// Python's `a / b` on ints: a float.
LogicalResult lowerIntTrueDivide(Lowering &l) {
  using P = args::aten::div_int_;
  Type f64 = l.b.getF64Type();
  Value x = l.scalar(l.arg(P::a), f64), y = l.scalar(l.arg(P::b), f64);
  if (!x || !y)
    return l.fail("needs int operands");
  return l.replace(l.b.createOrFold<arith::DivFOp>(l.loc, x, y));
}

LogicalResult lowerIntNeg(Lowering &l) {
  using P = args::aten::neg_int_;
  Type i64 = l.b.getI64Type();
  Value x = l.scalar(l.arg(P::a), i64);
  if (!x)
    return l.fail("needs an int operand");
  return l.replace(
      l.b.createOrFold<arith::SubIOp>(l.loc, l.constant(i64, 0), x));
}

/// A comparison of two numbers: of ints (aten::eq.int, aten::ge.int, ...)
/// as i64 with CmpIOp; where one is a float (aten::lt.float,
/// aten::eq.int_float, ...) as doubles with CmpFOp, false with a NaN but
/// for `!=`.
template <typename CmpOp, auto Predicate>
LogicalResult lowerNumberCompare(Lowering &l) {
  // Parameters as aten::eq.int names them, at the same positions in the
  // other overloads.
  using P = args::aten::eq_int_;
  constexpr bool isInt = std::is_same_v<CmpOp, arith::CmpIOp>;
  Type type = isInt ? Type(l.b.getI64Type()) : Type(l.b.getF64Type());
  Value x = l.scalar(l.arg(P::a), type), y = l.scalar(l.arg(P::b), type);
  if (!x || !y)
    return l.fail(isInt ? "needs int operands" : "needs number operands");
  return l.replace(l.b.createOrFold<CmpOp>(l.loc, Predicate, x, y));
}

//===----------------------------------------------------------------------===//
// Python's math module and builtins on numbers
//===----------------------------------------------------------------------===//

/// A math function of one number (aten::sqrt.int, aten::exp.float, ...):
/// the int converted to a double, as Python converts it.
template <typename OpTy> LogicalResult lowerMathUnary(Lowering &l) {
  // Parameters as aten::sqrt.int names them, at the same position in the
  // other overloads.
  using P = args::aten::sqrt_int_;
  Value x = l.scalar(l.arg(P::a), l.b.getF64Type());
  if (!x)
    return l.fail("needs a number operand");
  return l.replace(l.b.createOrFold<OpTy>(l.loc, x));
}

/// math.floor and math.ceil: an int (the int itself for an int).
template <typename OpTy> LogicalResult lowerFloorCeil(Lowering &l) {
  using P = args::aten::floor_float_;
  Type i64 = l.b.getI64Type();
  Attribute a = l.arg(P::a);
  if (Value n = l.target().ends_with(".int") ? l.scalar(a, i64) : Value())
    return l.replace(n);
  Value x = l.scalar(a, l.b.getF64Type());
  if (!x)
    return l.fail("needs a number operand");
  return l.replace(l.b.createOrFold<arith::FPToSIOp>(
      l.loc, i64, l.b.createOrFold<OpTy>(l.loc, x)));
}

/// abs(n) of an int (prim::abs.int).
LogicalResult lowerIntAbs(Lowering &l) {
  using P = args::prim::abs_int_;
  Type i64 = l.b.getI64Type();
  Value x = l.scalar(l.arg(P::a), i64);
  if (!x)
    return l.fail("needs an int operand");
  return l.replace(l.b.createOrFold<math::AbsIOp>(l.loc, x));
}

/// math.isnan and math.isinf of a float.
template <bool Inf> LogicalResult lowerFloatClass(Lowering &l) {
  using P = args::aten::isnan_float_;
  Type f64 = l.b.getF64Type();
  Value x = l.scalar(l.arg(P::a), f64);
  if (!x)
    return l.fail("needs a float operand");
  if (!Inf)
    return l.replace(l.b.createOrFold<arith::CmpFOp>(
        l.loc, arith::CmpFPredicate::UNO, x, x));
  return l.replace(l.b.createOrFold<arith::CmpFOp>(
      l.loc, arith::CmpFPredicate::OEQ,
      l.b.createOrFold<math::AbsFOp>(l.loc, x),
      l.constant(f64, std::numeric_limits<double>::infinity())));
}

/// `-x` of a float.
LogicalResult lowerFloatNeg(Lowering &l) {
  using P = args::aten::neg_float_;
  Value x = l.scalar(l.arg(P::a), l.b.getF64Type());
  if (!x)
    return l.fail("needs a float operand");
  return l.replace(l.b.createOrFold<arith::NegFOp>(l.loc, x));
}

/// Python's `a % b` on floats: C's fmod, moved to the sign of `b` when
/// it is not 0 and the signs differ.
LogicalResult lowerFloatRemainder(Lowering &l) {
  using P = args::aten::remainder_float_;
  Type f64 = l.b.getF64Type();
  Value x = l.scalar(l.arg(P::a), f64), y = l.scalar(l.arg(P::b), f64);
  if (!x || !y)
    return l.fail("needs number operands");
  OpBuilder &b = l.b;
  Location loc = l.loc;
  Value zero = l.constant(f64, 0);
  Value mod = b.createOrFold<arith::RemFOp>(loc, x, y);
  Value nonzero =
      b.createOrFold<arith::CmpFOp>(loc, arith::CmpFPredicate::ONE, mod, zero);
  Value differ = b.createOrFold<arith::XOrIOp>(
      loc,
      b.createOrFold<arith::CmpFOp>(loc, arith::CmpFPredicate::OLT, y, zero),
      b.createOrFold<arith::CmpFOp>(loc, arith::CmpFPredicate::OLT, mod, zero));
  Value adjust = b.createOrFold<arith::AndIOp>(loc, nonzero, differ);
  return l.replace(b.createOrFold<arith::SelectOp>(
      loc, adjust, b.createOrFold<arith::AddFOp>(loc, mod, y), mod));
}

/// max(x, y) or min(x, y) of two numbers of one type, as TorchScript's
/// std::max and std::min: `x < y ? y : x` and `y < x ? y : x`.
template <bool Max> static Value extremum(Lowering &l, Value x, Value y) {
  Value lhs = Max ? x : y, rhs = Max ? y : x;
  Value less = isa<IntegerType>(x.getType())
                   ? l.b.createOrFold<arith::CmpIOp>(
                         l.loc, arith::CmpIPredicate::slt, lhs, rhs)
                   : l.b.createOrFold<arith::CmpFOp>(
                         l.loc, arith::CmpFPredicate::OLT, lhs, rhs);
  return l.b.createOrFold<arith::SelectOp>(l.loc, less, y, x);
}

/// min(a, b) and max(a, b) of numbers (prim::min.int, prim::max.float,
/// ...), as TorchScript's std::min and std::max; ints stay ints.
template <bool Max> LogicalResult lowerNumberExtremum(Lowering &l) {
  using P = args::prim::min_float_;
  bool ints = l.target().ends_with(".int");
  Type type = ints ? Type(l.b.getI64Type()) : Type(l.b.getF64Type());
  Value x = l.scalar(l.arg(P::a), type), y = l.scalar(l.arg(P::b), type);
  if (!x || !y)
    return l.fail("needs number operands");
  return l.replace(extremum<Max>(l, x, y));
}

/// min(l) and max(l) of a list of numbers (prim::min.self_int, ...), as
/// TorchScript folds them: the first extremum, pairwise from the left. An
/// empty list is refused (TorchScript raises).
template <bool Max> LogicalResult lowerListExtremum(Lowering &l) {
  using P = args::prim::min_self_int;
  bool ints = l.target().ends_with("_int");
  Type type = ints ? Type(l.b.getI64Type()) : Type(l.b.getF64Type());
  ArrayRef<Attribute> items;
  if (auto list = dyn_cast_or_null<ListAttr>(l.arg(P::self)))
    items = list.getElements();
  else if (auto tuple = dyn_cast_or_null<TupleAttr>(l.arg(P::self)))
    items = tuple.getElements();
  else
    return l.fail("needs a list of numbers");
  if (items.empty())
    return l.fail("min() and max() of an empty list raise");
  Value result = l.scalar(items.front(), type);
  if (!result)
    return l.fail("needs a list of numbers");
  for (Attribute item : items.drop_front()) {
    Value y = l.scalar(item, type);
    if (!y)
      return l.fail("needs a list of numbers");
    result = extremum<Max>(l, result, y);
  }
  return l.replace(result);
}

/// `not a` on a bool (aten::__not__).
LogicalResult lowerBoolNot(Lowering &l) {
  using P = args::aten::__not__;
  Type i1 = l.b.getI1Type();
  Value x = l.scalar(l.arg(P::self), i1);
  if (!x)
    return l.fail("needs a bool operand");
  return l.replace(
      l.b.createOrFold<arith::XOrIOp>(l.loc, x, l.constant(i1, 1)));
}

/// `raise Error(message)` of scripted code (prim::RaiseException): a
/// run-time check that fails wherever it is reached, with the message.
LogicalResult lowerRaise(Lowering &l) {
  using P = args::prim::RaiseException;
  auto message = dyn_cast_or_null<StringAttr>(l.arg(P::msg));
  if (!message)
    return l.fail("expected a message");
  std::string text = message.getValue().str();
  // `builtins.ValueError` -> `ValueError: message`, as Python prints it.
  if (auto cls = dyn_cast_or_null<StringAttr>(l.arg(P::cls)))
    text = (cls.getValue().contains('.') ? cls.getValue().rsplit('.').second
                                         : cls.getValue())
               .str() +
           ": " + text;
  Type i1 = l.b.getI1Type();
  Value raised = tensor::FromElementsOp::create(
      l.b, l.loc, RankedTensorType::get({}, i1), l.constant(i1, 1));
  l.check(raised, text);
  for (Operation *user : llvm::make_early_inc_range(l.op->getUsers()))
    if (!user->hasTrait<OpTrait::IsTerminator>())
      return l.fail("its result is used");
  l.b.eraseOp(l.op);
  return success();
}

/// `torch._assert(condition, message)`, as ViT checks its input's rank and
/// size, or a model its data (`torch._assert(~torch.any(var < 0), ...)`).
/// A condition decided when compiling is dropped when true and fails the
/// compile when false; one known at run time (a bool, a one-element
/// tensor) is a run-time check that raises `AssertionError: message`.
LogicalResult lowerAssert(Lowering &l) {
  // torch._assert(condition, message) is not a LibTorch operator, so its
  // parameters are spelled here rather than generated from Targets.def.
  static constexpr Param kCondition{0, "condition"}, kMessage{1, "message"};
  auto message = dyn_cast_or_null<StringAttr>(l.arg(kMessage));
  if (!message)
    return l.fail("expected (condition, message)");
  if (!l.op->use_empty())
    return l.fail("its result (None) is used");
  std::optional<bool> holds = l.constBool(kCondition);
  Type i1 = l.b.getI1Type();
  Value condition;
  if (!holds) {
    Attribute arg = l.arg(kCondition);
    // A tensor of one element (Python's bool() of it), as a 0-d one.
    if (Value v = l.value(arg)) {
      auto type = dyn_cast<RankedTensorType>(v.getType());
      if (type && type.getRank() > 0) {
        if (!type.hasStaticShape() || type.getNumElements() != 1)
          return l.fail("the condition is a tensor of more than one "
                        "element (its truth value is ambiguous)");
        v = l.reshape(v, {});
      }
      if (type)
        condition = l.convert(tensor::ExtractOp::create(l.b, l.loc, v), i1);
    }
    if (!condition)
      condition = l.scalar(arg, i1);
    if (!condition)
      return l.fail("the condition is not a bool");
    if (std::optional<int64_t> c = getConstantIntValue(condition))
      holds = *c != 0;
  }
  if (!holds) {
    Value failed =
        l.b.createOrFold<arith::XOrIOp>(l.loc, condition, l.constant(i1, 1));
    l.check(tensor::FromElementsOp::create(
                l.b, l.loc, RankedTensorType::get({}, i1), failed),
            "AssertionError: " + message.getValue());
  } else if (!*holds) {
    return l.fail("assertion failed: " + message.getValue());
  }
  l.b.eraseOp(l.op);
  return success();
}

/// Python's float(), int() and bool() of a number (aten::Float.Scalar,
/// aten::Int.float, aten::Bool.int, ...): int() truncates toward zero,
/// bool() is whether the number is not zero.
LogicalResult lowerNumberCast(Lowering &l) {
  Type r = l.resultType();
  Attribute a = l.arg(Param{0, "a"});
  if (!r || !isa<IntegerType, FloatType>(r))
    return l.fail("needs a number result");
  if (r.isInteger(1)) {
    Value x = l.scalar(a, l.b.getF64Type());
    if (!x)
      return l.fail("needs a number");
    return l.replace(l.b.createOrFold<arith::CmpFOp>(
        l.loc, arith::CmpFPredicate::UNE, x, l.constant(x.getType(), 0.0)));
  }
  Value x = l.scalar(a, r);
  if (!x)
    return l.fail("needs a number");
  return l.replace(x);
}

/// eq.int_list(a, b), ne.int_list(a, b): whether two int lists (sizes,
/// scripted code's `x.size() == y.size()`) are equal.
LogicalResult lowerIntListEquality(Lowering &l) {
  using P = args::aten::eq_int_list;
  auto a = dyn_cast_or_null<ListAttr>(l.arg(P::a));
  auto b = dyn_cast_or_null<ListAttr>(l.arg(P::b));
  if (!a || !b)
    return l.fail("needs two int lists");
  bool ne = l.target() == args::aten::ne_int_list::target;
  Type i1 = l.b.getI1Type(), i64 = l.b.getI64Type();
  Value same = l.constant(
      i1, a.getElements().size() == b.getElements().size() ? 1.0 : 0.0);
  if (a.getElements().size() == b.getElements().size()) {
    for (auto [x, y] : llvm::zip(a.getElements(), b.getElements())) {
      Value vx = l.scalar(x, i64), vy = l.scalar(y, i64);
      if (!vx || !vy)
        return l.fail("needs two int lists");
      same = l.b.createOrFold<arith::AndIOp>(
          l.loc, same,
          l.b.createOrFold<arith::CmpIOp>(l.loc, arith::CmpIPredicate::eq, vx,
                                          vy));
    }
  }
  if (ne)
    same = l.b.createOrFold<arith::XOrIOp>(l.loc, same, l.constant(i1, 1.0));
  return l.replace(same);
}

/// `item in l` of ints (aten::__contains__.int_list): any equal element.
LogicalResult lowerIntListContains(Lowering &l) {
  using P = args::aten::__contains___int_list;
  auto list = dyn_cast_or_null<ListAttr>(l.arg(P::l));
  Type i1 = l.b.getI1Type(), i64 = l.b.getI64Type();
  Value item = l.scalar(l.arg(P::item), i64);
  if (!list || !item)
    return l.fail("needs a list of ints and an int");
  Value found = l.constant(i1, 0.0);
  for (Attribute e : list.getElements()) {
    Value v = l.scalar(e, i64);
    if (!v)
      return l.fail("needs a list of ints and an int");
    found = l.b.createOrFold<arith::OrIOp>(
        l.loc, found,
        l.b.createOrFold<arith::CmpIOp>(l.loc, arith::CmpIPredicate::eq, v,
                                        item));
  }
  return l.replace(found);
}

} // namespace

void mlir::fx::lowering::addScalarLowerings(llvm::StringMap<LowerFn> &t) {
  using IP = arith::CmpIPredicate;
  addLowering(t, {"aten::add.int"}, lowerIntBinary<arith::AddIOp>);
  addLowering(t, {"aten::sub.int"}, lowerIntBinary<arith::SubIOp>);
  addLowering(t, {"aten::mul.int"}, lowerIntBinary<arith::MulIOp>);
  addLowering(t, {"aten::floordiv.int"}, lowerIntBinary<arith::FloorDivSIOp>);
  addLowering(t, {"aten::remainder.int"}, lowerIntRemainder);
  addLowering(t, {"aten::div.int"}, lowerIntTrueDivide);
  addLowering(t, {"aten::neg.int"}, lowerIntNeg);
  addLowering(t,
              {"aten::add.float", "aten::add.int_float", "aten::add.float_int"},
              lowerFloatBinary<arith::AddFOp>);
  addLowering(t,
              {"aten::sub.float", "aten::sub.int_float", "aten::sub.float_int"},
              lowerFloatBinary<arith::SubFOp>);
  addLowering(t,
              {"aten::mul.float", "aten::mul.int_float", "aten::mul.float_int"},
              lowerFloatBinary<arith::MulFOp>);
  addLowering(t, {"aten::div.float"}, lowerFloatBinary<arith::DivFOp>);
  addLowering(t,
              {"aten::pow.int", "aten::pow.float", "aten::pow.int_float",
               "aten::pow.float_int"},
              lowerFloatBinary<math::PowFOp>);
  auto overloads = [](StringRef op, ArrayRef<StringRef> suffixes) {
    SmallVector<std::string> names;
    for (StringRef suffix : suffixes)
      names.push_back(("aten::" + op + "." + suffix).str());
    return names;
  };
  auto addNumbers = [&](StringRef op, ArrayRef<StringRef> suffixes,
                        LowerFn fn) {
    SmallVector<std::string> names = overloads(op, suffixes);
    addLowering(t, llvm::to_vector_of<StringRef>(names), fn);
  };
  auto addUnary = [&](StringRef op, LowerFn fn) {
    addNumbers(op, {"int", "float"}, fn);
  };
  addUnary("sqrt", lowerMathUnary<math::SqrtOp>);
  addUnary("exp", lowerMathUnary<math::ExpOp>);
  addUnary("log", lowerMathUnary<math::LogOp>);
  addUnary("log10", lowerMathUnary<math::Log10Op>);
  addUnary("log1p", lowerMathUnary<math::Log1pOp>);
  addUnary("expm1", lowerMathUnary<math::ExpM1Op>);
  addUnary("sin", lowerMathUnary<math::SinOp>);
  addUnary("cos", lowerMathUnary<math::CosOp>);
  addUnary("tan", lowerMathUnary<math::TanOp>);
  addUnary("tanh", lowerMathUnary<math::TanhOp>);
  addUnary("asin", lowerMathUnary<math::AsinOp>);
  addUnary("acos", lowerMathUnary<math::AcosOp>);
  addUnary("atan", lowerMathUnary<math::AtanOp>);
  addUnary("sinh", lowerMathUnary<math::SinhOp>);
  addUnary("cosh", lowerMathUnary<math::CoshOp>);
  addUnary("asinh", lowerMathUnary<math::AsinhOp>);
  addUnary("acosh", lowerMathUnary<math::AcoshOp>);
  addUnary("atanh", lowerMathUnary<math::AtanhOp>);
  addUnary("erf", lowerMathUnary<math::ErfOp>);
  addUnary("erfc", lowerMathUnary<math::ErfcOp>);
  addUnary("fabs", lowerMathUnary<math::AbsFOp>);
  addUnary("round", lowerMathUnary<math::RoundEvenOp>);
  addUnary("floor", lowerFloorCeil<math::FloorOp>);
  addUnary("ceil", lowerFloorCeil<math::CeilOp>);
  addLowering(t, {"prim::abs.int"}, lowerIntAbs);
  addLowering(t, {"prim::abs.float"}, lowerMathUnary<math::AbsFOp>);
  addLowering(t, {"aten::isnan.float"}, lowerFloatClass<false>);
  addLowering(t, {"aten::isinf.float"}, lowerFloatClass<true>);
  const StringRef binary[] = {"int", "float", "int_float", "float_int"};
  addNumbers("copysign", binary, lowerFloatBinary<math::CopySignOp>);
  addNumbers("atan2", binary, lowerFloatBinary<math::Atan2Op>);
  addNumbers("fmod", binary, lowerFloatBinary<arith::RemFOp>);
  using FP = arith::CmpFPredicate;
  const StringRef mixed[] = {"float", "int_float", "float_int"};
  addLowering(t, {"aten::neg.float"}, lowerFloatNeg);
  addNumbers("eq", mixed, lowerNumberCompare<arith::CmpFOp, FP::OEQ>);
  addNumbers("ne", mixed, lowerNumberCompare<arith::CmpFOp, FP::UNE>);
  addNumbers("lt", mixed, lowerNumberCompare<arith::CmpFOp, FP::OLT>);
  addNumbers("le", mixed, lowerNumberCompare<arith::CmpFOp, FP::OLE>);
  addNumbers("gt", mixed, lowerNumberCompare<arith::CmpFOp, FP::OGT>);
  addNumbers("ge", mixed, lowerNumberCompare<arith::CmpFOp, FP::OGE>);
  addNumbers("remainder", mixed, lowerFloatRemainder);
  addLowering(t,
              {"prim::min.int", "prim::min.float", "prim::min.int_float",
               "prim::min.float_int"},
              lowerNumberExtremum<false>);
  addLowering(t,
              {"prim::max.int", "prim::max.float", "prim::max.int_float",
               "prim::max.float_int"},
              lowerNumberExtremum<true>);
  addLowering(t, {"prim::min.self_int", "prim::min.self_float"},
              lowerListExtremum<false>);
  addLowering(t, {"prim::max.self_int", "prim::max.self_float"},
              lowerListExtremum<true>);
  addLowering(t, {"aten::eq.int"}, lowerNumberCompare<arith::CmpIOp, IP::eq>);
  addLowering(t, {"aten::ne.int"}, lowerNumberCompare<arith::CmpIOp, IP::ne>);
  addLowering(t, {"aten::lt.int"}, lowerNumberCompare<arith::CmpIOp, IP::slt>);
  addLowering(t, {"aten::le.int"}, lowerNumberCompare<arith::CmpIOp, IP::sle>);
  addLowering(t, {"aten::gt.int"}, lowerNumberCompare<arith::CmpIOp, IP::sgt>);
  addLowering(t, {"aten::ge.int"}, lowerNumberCompare<arith::CmpIOp, IP::sge>);
  addLowering(t, {"aten::__and__.bool"}, lowerIntBinary<arith::AndIOp, 1>);
  addLowering(t, {"aten::__or__.bool"}, lowerIntBinary<arith::OrIOp, 1>);
  addLowering(t, {"aten::__not__"}, lowerBoolNot);
  addLowering(t, {"torch._assert"}, lowerAssert);
  addLowering(t, {"prim::RaiseException"}, lowerRaise);
  addLowering(t,
              {"aten::Float.Scalar", "aten::Float.int", "aten::Float.bool",
               "aten::Int.Scalar", "aten::Int.float", "aten::Int.bool",
               "aten::Bool.int", "aten::Bool.float"},
              lowerNumberCast);
  addLowering(t, {"aten::eq.int_list", "aten::ne.int_list"},
              lowerIntListEquality);
  addLowering(t, {"aten::__contains__.int_list"}, lowerIntListContains);
}
