//===- Creation.cpp - zeros, ones, full, *_like, new_*, arange ------------===//
//
// Tensors made from sizes and a value: zeros/ones/full, their _like forms
// (the input's dims) and new_zeros/new_ones/new_full fill a tensor.empty;
// arange with constant bounds is one linalg.generic over the position.
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
/// step): constant bounds.
LogicalResult lowerArange(Lowering &l) {
  Type elem = l.resultElementType();
  StringRef target = l.target();
  std::optional<double> start = 0, end, step = 1;
  namespace A = args::aten;
  if (target == A::arange::target) {
    end = l.constFloat(l.arg(A::arange::end));
  } else {
    static constexpr Param kStart =
        sameParam(A::arange_start::start, A::arange_start_step::start);
    static constexpr Param kEnd =
        sameParam(A::arange_start::end, A::arange_start_step::end);
    start = l.constFloat(l.arg(kStart));
    end = l.constFloat(l.arg(kEnd));
    if (target == A::arange_start_step::target)
      step = l.constFloat(l.arg(A::arange_start_step::step));
  }
  if (!elem || !start || !end || !step || *step == 0)
    return l.fail("arange needs constant bounds");
  int64_t n = std::max<int64_t>(0, int64_t(std::ceil((*end - *start) / *step)));
  Value init = l.empty({l.b.getIndexAttr(n)}, elem);
  return l.replace(
      linalg::GenericOp::create(
          l.b, l.loc, TypeRange{init.getType()}, ValueRange{}, ValueRange{init},
          {l.b.getMultiDimIdentityMap(1)}, {utils::IteratorType::parallel}, "",
          "",
          [&](OpBuilder &nb, Location loc, ValueRange) {
            Value i = arith::IndexCastOp::create(
                nb, loc, nb.getI64Type(), linalg::IndexOp::create(nb, loc, 0));
            Value v;
            if (isFloat(elem)) {
              Value fi = arith::SIToFPOp::create(nb, loc, nb.getF64Type(), i);
              v = arith::AddFOp::create(
                  nb, loc,
                  arith::ConstantOp::create(nb, loc,
                                            nb.getF64FloatAttr(*start)),
                  arith::MulFOp::create(
                      nb, loc, fi,
                      arith::ConstantOp::create(nb, loc,
                                                nb.getF64FloatAttr(*step))));
            } else {
              v = arith::AddIOp::create(
                  nb, loc,
                  arith::ConstantOp::create(nb, loc,
                                            nb.getI64IntegerAttr(*start)),
                  arith::MulIOp::create(
                      nb, loc, i,
                      arith::ConstantOp::create(nb, loc,
                                                nb.getI64IntegerAttr(*step))));
            }
            linalg::YieldOp::create(nb, loc, l.convert(v, elem));
          })
          .getResult(0));
}

/// prim::NumToTensor.Scalar(a): a 0-d tensor holding the number (a
/// traced size, an int, as the 0-d int64 tensor the tracer records);
/// aten::tensor.int/float/bool(t, dtype=...), a number's tensor, the same
/// (the declared type is the dtype's).
LogicalResult lowerNumToTensor(Lowering &l) {
  // The number is argument 0 of all of them.
  static constexpr Param kNumber =
      sameParam(args::prim::NumToTensor_Scalar::a, args::aten::tensor_int_::t);
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
               "aten::tensor.float", "aten::tensor.bool"},
              lowerNumToTensor);
  addLowering(t, {"aten::zeros_like"}, lowerZerosLike);
  addLowering(t, {"aten::ones_like"}, lowerOnesLike);
  addLowering(t, {"aten::full_like"}, lowerFullLike);
  addLowering(t,
              {"aten::arange", "aten::arange.start", "aten::arange.start_step"},
              lowerArange);
}
