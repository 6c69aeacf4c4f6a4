//===- Creation.cpp - zeros, ones, full, *_like, new_*, arange, eye -------===//
//
// Tensors made from sizes and a value: zeros/ones/full, their _like forms
// (the input's dims) and new_zeros/new_ones/new_full fill a tensor.empty;
// arange with constant bounds, eye, linspace and logspace are one
// linalg.generic over the position.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

using namespace mlir;
using namespace mlir::fx;
using namespace mlir::fx::lowering;

namespace {

/// zeros/ones(size, ...), full(size, fill_value, ...).
LogicalResult lowerFill(Lowering &l, std::optional<double> value) {
  namespace A = args::aten;
  static constexpr Param kSize =
      sameParam(A::zeros::size, A::ones::size, A::full::size);
  Type elem = l.resultElementType();
  auto sizes = l.indexList(l.arg(kSize));
  if (!elem || !sizes)
    return l.fail("needs a typed result and a list of sizes");
  Value v = value ? l.constant(elem, *value)
                  : l.scalar(l.arg(A::full::fill_value), elem);
  if (!v)
    return l.fail("unsupported fill value");
  return l.replace(l.filled(*sizes, v));
}
LogicalResult lowerZeros(Lowering &l) { return lowerFill(l, 0.0); }

/// new_zeros/new_ones(self, size, ...).
LogicalResult lowerNewFill(Lowering &l, double value) {
  static constexpr Param kSize =
      sameParam(args::aten::new_zeros::size, args::aten::new_ones::size);
  Type elem = l.resultElementType();
  auto sizes = l.indexList(l.arg(kSize));
  if (!elem || !sizes)
    return l.fail("needs a typed result and a list of sizes");
  return l.replace(l.filled(*sizes, l.constant(elem, value)));
}
LogicalResult lowerNewZeros(Lowering &l) { return lowerNewFill(l, 0.0); }
/// new_full(self, size, fill_value, ...).
LogicalResult lowerNewFull(Lowering &l) {
  using P = args::aten::new_full;
  Type elem = l.resultElementType();
  auto sizes = l.indexList(l.arg(P::size));
  if (!elem || !sizes)
    return l.fail("needs a typed result and a list of sizes");
  Value v = l.scalar(l.arg(P::fill_value), elem);
  if (!v)
    return l.fail("unsupported fill value");
  return l.replace(l.filled(*sizes, v));
}
LogicalResult lowerNewOnes(Lowering &l) { return lowerNewFill(l, 1.0); }
LogicalResult lowerOnes(Lowering &l) { return lowerFill(l, 1.0); }
LogicalResult lowerFull(Lowering &l) { return lowerFill(l, std::nullopt); }

/// zeros_like/ones_like(self, ...), full_like(self, fill_value, ...).
LogicalResult lowerFillLike(Lowering &l, std::optional<double> value) {
  using P = args::aten::full_like;
  Value x = l.tensor(P::self);
  Type elem = l.resultElementType();
  if (!x || !elem)
    return l.fail("needs typed tensors");
  Value v =
      value ? l.constant(elem, *value) : l.scalar(l.arg(P::fill_value), elem);
  if (!v)
    return l.fail("unsupported fill value");
  return l.replace(l.filled(l.dims(x), v));
}
LogicalResult lowerZerosLike(Lowering &l) { return lowerFillLike(l, 0.0); }
LogicalResult lowerOnesLike(Lowering &l) { return lowerFillLike(l, 1.0); }
LogicalResult lowerFullLike(Lowering &l) {
  return lowerFillLike(l, std::nullopt);
}

/// arange(end), arange.start(start, end), arange.start_step(start, end,
/// step): constant start and step; the end a constant or an int the graph
/// computes (`torch.arange(x.size(0))` of a dynamic batch), the count then
/// `max(0, ceil((end - start) / step))` at run time, in f64 (exact for
/// sizes).
LogicalResult lowerArange(Lowering &l) {
  Type elem = l.resultElementType();
  StringRef target = l.target();
  std::optional<double> start = 0, end, step = 1;
  namespace A = args::aten;
  Attribute endArg;
  if (target == A::arange::target) {
    endArg = l.arg(A::arange::end);
  } else {
    static constexpr Param kStart =
        sameParam(A::arange_start::start, A::arange_start_step::start);
    static constexpr Param kEnd =
        sameParam(A::arange_start::end, A::arange_start_step::end);
    start = l.constFloat(l.arg(kStart));
    endArg = l.arg(kEnd);
    if (target == A::arange_start_step::target)
      step = l.constFloat(l.arg(A::arange_start_step::step));
  }
  end = l.constFloat(endArg);
  if (!elem || !start || !step || *step == 0)
    return l.fail("arange needs a constant start and step");
  OpFoldResult n;
  if (end) {
    n = l.b.getIndexAttr(
        std::max<int64_t>(0, int64_t(std::ceil((*end - *start) / *step))));
  } else {
    Type f64 = l.b.getF64Type();
    Value last = l.scalar(endArg, f64);
    if (!last)
      return l.fail("arange needs a number as its end");
    Value count = math::CeilOp::create(
        l.b, l.loc,
        arith::DivFOp::create(
            l.b, l.loc,
            arith::SubFOp::create(l.b, l.loc, last, l.constant(f64, *start)),
            l.constant(f64, *step)));
    count = arith::MaximumFOp::create(l.b, l.loc, count, l.constant(f64, 0));
    n = arith::IndexCastOp::create(
            l.b, l.loc, l.b.getIndexType(),
            arith::FPToSIOp::create(l.b, l.loc, l.b.getI64Type(), count))
            .getResult();
  }
  return l.replace(
      l.generated(n, elem, [&](OpBuilder &nb, Location loc, Value i) {
        Value v;
        if (isFloat(elem)) {
          Value fi = arith::SIToFPOp::create(nb, loc, nb.getF64Type(), i);
          v = arith::AddFOp::create(
              nb, loc,
              arith::ConstantOp::create(nb, loc, nb.getF64FloatAttr(*start)),
              arith::MulFOp::create(nb, loc, fi,
                                    arith::ConstantOp::create(
                                        nb, loc, nb.getF64FloatAttr(*step))));
        } else {
          v = arith::AddIOp::create(
              nb, loc,
              arith::ConstantOp::create(nb, loc, nb.getI64IntegerAttr(*start)),
              arith::MulIOp::create(nb, loc, i,
                                    arith::ConstantOp::create(
                                        nb, loc, nb.getI64IntegerAttr(*step))));
        }
        return l.convert(v, elem);
      }));
}

/// eye(n), eye.m(n, m): ones on the diagonal of an n x m matrix (m = n).
LogicalResult lowerEye(Lowering &l) {
  static constexpr Param kN =
      sameParam(args::aten::eye::n, args::aten::eye_m::n);
  Type elem = l.resultElementType();
  OpFoldResult n = l.index(l.arg(kN));
  OpFoldResult m = l.target() == args::aten::eye_m::target
                       ? l.index(l.arg(args::aten::eye_m::m))
                       : n;
  if (!elem || !n || !m)
    return l.fail("needs a typed result and int sizes");
  return l.replace(l.identityMatrix(n, m, elem));
}

/// linspace(start, end, steps), logspace(start, end, steps, base): `steps`
/// points as ATen computes them: the first half from `start` up, the
/// second from `end` down, by `step = (end - start) / (steps - 1)` in the
/// result's float type (f64 for integer results, truncated); one point is
/// `start`. logspace's points are `base` to the power of those, in f64.
LogicalResult lowerLinspace(Lowering &l) {
  namespace A = args::aten;
  static constexpr Param kStart =
      sameParam(A::linspace::start, A::logspace::start);
  static constexpr Param kEnd = sameParam(A::linspace::end, A::logspace::end);
  static constexpr Param kSteps =
      sameParam(A::linspace::steps, A::logspace::steps);
  bool log = l.target() == A::logspace::target;
  Type elem = l.resultElementType();
  // The number of steps: a constant, or an int the graph computes
  // (`torch.linspace(0, 1, x.size(0))` of a dynamic batch).
  Type i64 = l.b.getI64Type();
  std::optional<int64_t> constSteps = l.constInt(kSteps);
  Value steps = l.scalar(l.arg(kSteps), i64);
  std::optional<double> base =
      log ? l.constFloat(l.arg(A::logspace::base)) : std::optional<double>(0);
  if (!elem || !steps || (constSteps && *constSteps < 0) || !base)
    return l.fail("needs a typed result, a number of steps and a "
                  "constant base");
  if (!constSteps)
    l.check(tensor::FromElementsOp::create(
                l.b, l.loc, RankedTensorType::get({}, l.b.getI1Type()),
                ValueRange{arith::CmpIOp::create(
                    l.b, l.loc, arith::CmpIPredicate::slt, steps,
                    l.b.createOrFold<arith::ConstantOp>(
                        l.loc, l.b.getI64IntegerAttr(0)))}),
            "RuntimeError: number of steps must be non-negative");
  auto i64Const = [&](int64_t v) -> Value {
    return l.b.createOrFold<arith::ConstantOp>(l.loc, l.b.getI64IntegerAttr(v));
  };
  Value one = i64Const(1);
  Value last = arith::SubIOp::create(l.b, l.loc, steps, one);
  Value half = arith::MaxSIOp::create(
      l.b, l.loc, arith::DivSIOp::create(l.b, l.loc, steps, i64Const(2)), one);
  Value intervals = arith::MaxSIOp::create(l.b, l.loc, last, one);
  if (!isFloat(elem) && !isa<IntegerType>(elem))
    return l.fail("needs a float or integer result");
  // ATen's step type: the float result type, or f64 for integer results
  // (whose start and end are first converted to the integer type).
  Type stepType = isFloat(elem) ? elem : l.b.getF64Type();
  Value start = l.scalar(l.arg(kStart), elem);
  Value end = l.scalar(l.arg(kEnd), elem);
  if (!start || !end)
    return l.fail("needs scalar bounds");
  start = l.convert(start, stepType);
  end = l.convert(end, stepType);
  Value step = arith::DivFOp::create(
      l.b, l.loc, arith::SubFOp::create(l.b, l.loc, end, start),
      arith::SIToFPOp::create(l.b, l.loc, stepType, intervals));
  OpFoldResult count =
      constSteps ? OpFoldResult(l.b.getIndexAttr(*constSteps))
                 : OpFoldResult(arith::IndexCastOp::create(
                                    l.b, l.loc, l.b.getIndexType(),
                                    arith::MaxSIOp::create(l.b, l.loc, steps,
                                                           i64Const(0)))
                                    .getResult());
  return l.replace(
      l.generated(count, elem, [&](OpBuilder &nb, Location loc, Value i) {
        Value back = arith::SubIOp::create(nb, loc, last, i);
        Value lower =
            arith::CmpIOp::create(nb, loc, arith::CmpIPredicate::slt, i, half);
        auto times = [&](Value k) -> Value {
          return arith::MulFOp::create(
              nb, loc, step, arith::SIToFPOp::create(nb, loc, stepType, k));
        };
        Value up = arith::AddFOp::create(nb, loc, start, times(i));
        Value down = arith::SubFOp::create(nb, loc, end, times(back));
        Value v = arith::SelectOp::create(nb, loc, lower, up, down);
        if (log) {
          Type f64 = nb.getF64Type();
          Value wide = v.getType() == f64
                           ? v
                           : arith::ExtFOp::create(nb, loc, f64, v).getResult();
          v = math::PowFOp::create(
              nb, loc,
              arith::ConstantOp::create(nb, loc, nb.getF64FloatAttr(*base)),
              wide);
        }
        return l.convert(v, elem);
      }));
}

/// Appends the leaves of a nested list literal to `leaves`, row-major.
void flattenListLiteral(Attribute a, SmallVectorImpl<Attribute> &leaves) {
  if (auto list = dyn_cast<ListAttr>(a)) {
    for (Attribute e : list.getElements())
      flattenListLiteral(e, leaves);
    return;
  }
  leaves.push_back(a);
}

/// aten::tensor(data, dtype=...): a tensor of a (nested) list of numbers,
/// literals or scalars the graph computes, as scripted code's
/// `torch.tensor([0, 2, 4])` records it; the result's declared type gives
/// the shape and dtype.
LogicalResult lowerTensorOfList(Lowering &l) {
  using P = args::aten::tensor;
  auto type = dyn_cast_or_null<RankedTensorType>(l.resultType());
  if (!type || !type.hasStaticShape())
    return l.fail("needs a typed result of static shape");
  SmallVector<Attribute> leaves;
  flattenListLiteral(l.arg(P::data), leaves);
  if (int64_t(leaves.size()) != type.getNumElements())
    return l.fail("the list's numbers do not fill the result's shape");
  SmallVector<Value> elements;
  for (Attribute leaf : leaves) {
    Value v = l.scalar(leaf, type.getElementType());
    if (!v)
      return l.fail("needs a list of numbers");
    elements.push_back(v);
  }
  return l.replace(tensor::FromElementsOp::create(l.b, l.loc, type, elements));
}

/// prim::NumToTensor.Scalar(a): a 0-d tensor holding the number (a
/// traced size, an int, as the 0-d int64 tensor the tracer records);
/// aten::tensor.int/float/bool(t, dtype=...), a number's tensor, the same
/// (the declared type is the dtype's); aten::scalar_tensor(s, dtype=...)
/// too.
LogicalResult lowerNumToTensor(Lowering &l) {
  // The number is argument 0 of all of them.
  static constexpr Param kNumber =
      sameParam(args::prim::NumToTensor_Scalar::a, args::aten::tensor_int_::t,
                args::aten::scalar_tensor::s);
  Type elem = l.resultElementType();
  if (!elem)
    return l.fail("needs a typed result");
  Value v = l.scalar(l.arg(kNumber), elem);
  if (!v)
    return l.fail("needs a number");
  return l.replace(l.filled({}, v));
}

} // namespace

void mlir::fx::lowering::addCreationLowerings(llvm::StringMap<LowerFn> &t) {
  addLowering(t, {"aten::new_zeros"}, lowerNewZeros);
  addLowering(t, {"aten::new_ones"}, lowerNewOnes);
  addLowering(t, {"aten::new_full"}, lowerNewFull);
  addLowering(t, {"aten::zeros"}, lowerZeros);
  addLowering(t, {"aten::ones"}, lowerOnes);
  addLowering(t, {"aten::full"}, lowerFull);
  addLowering(t,
              {"prim::NumToTensor.Scalar", "aten::tensor.int",
               "aten::tensor.float", "aten::tensor.bool",
               "aten::scalar_tensor"},
              lowerNumToTensor);
  addLowering(t, {"aten::zeros_like"}, lowerZerosLike);
  addLowering(t, {"aten::ones_like"}, lowerOnesLike);
  addLowering(t, {"aten::full_like"}, lowerFullLike);
  addLowering(t,
              {"aten::arange", "aten::arange.start", "aten::arange.start_step"},
              lowerArange);
  addLowering(t, {"aten::eye", "aten::eye.m"}, lowerEye);
  addLowering(t, {"aten::tensor"}, lowerTensorOfList);
  addLowering(t, {"aten::linspace", "aten::logspace"}, lowerLinspace);
}
