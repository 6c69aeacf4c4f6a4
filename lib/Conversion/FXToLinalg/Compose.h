//===- Compose.h - Building calls for Lowering::lowerCall ------*- C++ -*-===//
//
// Helpers of the lowerings that compute an operator as others are
// (Composite.cpp, Statistics.cpp): the arguments of a call built for
// Lowering::lowerCall, and the calls they make most.
//
//===----------------------------------------------------------------------===//

#ifndef FX_MLIR_LIB_CONVERSION_FXTOLINALG_COMPOSE_H
#define FX_MLIR_LIB_CONVERSION_FXTOLINALG_COMPOSE_H

#include "Lowering.h"

namespace mlir::fx::lowering::compose {

inline MLIRContext *contextOf(Lowering &l) { return l.b.getContext(); }
/// A reference to operand `i` of a call built by lowerCall.
inline Attribute ref(Lowering &l, unsigned i) {
  return NodeAttr::get(contextOf(l), i);
}
inline Attribute int64(Lowering &l, int64_t v) {
  return l.b.getI64IntegerAttr(v);
}
inline Attribute ints(Lowering &l, ArrayRef<int64_t> values) {
  SmallVector<Attribute> elements;
  for (int64_t v : values)
    elements.push_back(int64(l, v));
  return ListAttr::get(contextOf(l), elements);
}
inline Attribute none(Lowering &l) { return NoneAttr::get(contextOf(l)); }
/// The declared type of an intermediate result of element type `elem`.
inline Type tensorOf(Type elem) { return UnrankedTensorType::get(elem); }
inline int64_t rankOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getRank();
}
inline int64_t staticDim(Value v, int64_t d) {
  return cast<RankedTensorType>(v.getType()).getDimSize(d);
}

/// The tensors of a list or tuple argument; nullopt (reason recorded)
/// otherwise.
inline std::optional<SmallVector<Value>> tensorsOf(Lowering &l, Attribute a) {
  ArrayRef<Attribute> elements;
  if (auto list = dyn_cast_or_null<ListAttr>(a))
    elements = list.getElements();
  else if (auto tuple = dyn_cast_or_null<TupleAttr>(a))
    elements = tuple.getElements();
  else {
    (void)l.fail("needs a list of tensors");
    return std::nullopt;
  }
  SmallVector<Value> values;
  for (Attribute e : elements) {
    Value t = l.tensor(e);
    if (!t)
      return std::nullopt;
    values.push_back(t);
  }
  if (values.empty()) {
    (void)l.fail("needs at least one tensor");
    return std::nullopt;
  }
  return values;
}

/// `x[start:end]` along `dim` (static bounds).
inline Value sliceOf(Lowering &l, Value x, int64_t dim, int64_t start,
                     int64_t end) {
  Type elem = cast<RankedTensorType>(x.getType()).getElementType();
  return l.lowerCall(
      "aten::slice.Tensor",
      {ref(l, 0), int64(l, dim), int64(l, start), int64(l, end), int64(l, 1)},
      {x}, tensorOf(elem));
}

/// torch.cat(values, dim).
inline Value catOf(Lowering &l, ArrayRef<Value> values, int64_t dim,
                   Type elem) {
  SmallVector<Attribute> refs;
  for (unsigned i = 0; i < values.size(); ++i)
    refs.push_back(ref(l, i));
  return l.lowerCall("aten::cat",
                     {ListAttr::get(contextOf(l), refs), int64(l, dim)}, values,
                     tensorOf(elem));
}

/// `x` as a vector of all its items (torch.flatten, a scalar as one item).
inline Value flattened(Lowering &l, Value x) {
  Type elem = cast<RankedTensorType>(x.getType()).getElementType();
  return l.lowerCall("aten::reshape", {ref(l, 0), ints(l, {-1})}, {x},
                     tensorOf(elem));
}

/// The node lowered on its scalar (0-d) tensors seen as vectors of one
/// item, along dim 0 (its dim argument at `dimArg`), the result a scalar
/// again: for the indexing ops whose lowerings take a dim to index along.
inline LogicalResult lowerScalarsAsVectors(Lowering &l, unsigned dimArg) {
  Type elem = l.resultElementType();
  if (!elem)
    return l.fail("needs a typed result");
  SmallVector<Attribute> args(l.op.getArgs().begin(), l.op.getArgs().end());
  args[dimArg] = int64(l, 0);
  SmallVector<Value> operands;
  for (Value v : l.op->getOperands()) {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    operands.push_back(
        type && type.getRank() == 0 ? l.reshape(v, {l.b.getIndexAttr(1)}) : v);
  }
  Value v = l.lowerCall(l.op.getTarget(), args, operands, tensorOf(elem),
                        l.op.getKwargs());
  return v ? l.replace(l.reshape(v, {})) : failure();
}

/// The mean of the float tensor `x` (of element type `elem`) over `dims`
/// and 1 / sqrt(its biased variance + eps), both with the reduced dims
/// kept as size 1: the statistics layer and batch norms save.
struct Moments {
  Value mean, rstd;
};
inline std::optional<Moments> momentsOver(Lowering &l, Value x,
                                          ArrayRef<int64_t> dims, double eps,
                                          Type elem) {
  auto meanOf = [&](Value v) -> Value {
    Value sum =
        l.lowerCall("aten::sum.dim_IntList",
                    {ref(l, 0), ints(l, dims), l.b.getBoolAttr(true), none(l)},
                    {v}, tensorOf(elem));
    if (!sum)
      return {};
    Value count = l.countOver(v, dims, elem);
    return l.elementwise(
        {sum, count}, elem, elem, [](OpBuilder &b, Location loc, ValueRange w) {
          return arith::DivFOp::create(b, loc, w[0], w[1]).getResult();
        });
  };
  Value mean = meanOf(x);
  if (!mean)
    return std::nullopt;
  Value squares = l.elementwise(
      {x, mean}, elem, elem, [](OpBuilder &b, Location loc, ValueRange v) {
        Value d = arith::SubFOp::create(b, loc, v[0], v[1]);
        return arith::MulFOp::create(b, loc, d, d).getResult();
      });
  Value variance = meanOf(squares);
  if (!variance)
    return std::nullopt;
  Value rstd = l.elementwise(
      {variance}, elem, elem, [&](OpBuilder &b, Location loc, ValueRange v) {
        return math::RsqrtOp::create(
                   b, loc,
                   arith::AddFOp::create(b, loc, v[0],
                                         constantOf(b, loc, elem, eps)))
            .getResult();
      });
  return Moments{mean, rstd};
}

} // namespace mlir::fx::lowering::compose

#endif // FX_MLIR_LIB_CONVERSION_FXTOLINALG_COMPOSE_H
