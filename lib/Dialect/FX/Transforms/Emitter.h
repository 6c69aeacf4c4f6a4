//===- Emitter.h - Building the calls of one expansion ---------*- C++ -*-===//
//
// A small builder for fx-normalize's expansions of one node into several
// canonical calls (NormalizeAttention.cpp, NormalizeEmbedding.cpp): each
// call is created before the node, named after it, typed `tensor<*xT>`
// unless told otherwise (shape inference types it later), and the
// readers of the expanded call's arguments.
//
//===----------------------------------------------------------------------===//

#ifndef FX_MLIR_LIB_DIALECT_FX_TRANSFORMS_EMITTER_H
#define FX_MLIR_LIB_DIALECT_FX_TRANSFORMS_EMITTER_H

#include "fx-mlir/Dialect/FX/IR/FXAttrs.h"
#include "fx-mlir/Dialect/FX/IR/FXOps.h"
#include "fx-mlir/Dialect/FX/Transforms/GraphBuilder.h"

#include "mlir/IR/BuiltinTypes.h"
#include <cmath>
#include <string>
#include <variant>

namespace mlir::fx {

/// A value or an attribute, as a call's argument.
using Arg = std::variant<Value, Attribute>;

/// Positional argument `i` of a call, or null.
inline Attribute argAt(CallFunctionOp call, size_t i) {
  return i < call.getArgs().size() ? call.getArgs()[i] : Attribute();
}

/// The tensor an argument of `call` refers to, or null (a literal, None, a
/// node of another type).
inline Value tensorArg(CallFunctionOp call, Attribute a) {
  auto ref = dyn_cast_or_null<NodeAttr>(a);
  if (!ref)
    return {};
  Value v = call.getOperand(ref.getIndex());
  return isa<TensorType>(v.getType()) ? v : Value();
}

/// Builds the calls of one expansion before `node`, named after it, typed
/// `tensor<*xT>` of the attention's element type unless told otherwise.
class Emitter {
public:
  Emitter(GraphBuilder &gb, Operation *node, StringRef base, Type elem)
      : gb(gb), node(node), ctx(node->getContext()), base(base.str()),
        anyTensor(UnrankedTensorType::get(elem)) {}

  Attribute I(int64_t v) {
    return IntegerAttr::get(IntegerType::get(ctx, 64), v);
  }
  Attribute F(double v) { return FloatAttr::get(Float64Type::get(ctx), v); }
  Attribute none() { return NoneAttr::get(ctx); }
  Attribute list(ArrayRef<Attribute> items) {
    return ListAttr::get(ctx, items);
  }

  /// `target(a...)`, the schema's keyword-only arguments given as
  /// `keys`/`values` (`alpha` of add.Tensor, `dtype` of mean.dim).
  Value callWith(StringRef target, ArrayRef<Arg> a, ArrayRef<StringRef> keys,
                 ArrayRef<Attribute> values, Type type = {}) {
    SmallVector<Value> operands;
    SmallVector<Attribute> attrs;
    for (const Arg &item : a) {
      if (auto *v = std::get_if<Value>(&item)) {
        attrs.push_back(NodeAttr::get(ctx, operands.size()));
        operands.push_back(*v);
      } else {
        attrs.push_back(std::get<Attribute>(item));
      }
    }
    SmallVector<Attribute> keyAttrs;
    for (StringRef k : keys)
      keyAttrs.push_back(StringAttr::get(ctx, k));
    std::string name = gb.uniqueName(
        base + "_" + target.rsplit(':').second.split('.').first.str());
    return gb
        .call(node, name, target, attrs, keyAttrs, values, operands,
              type ? type : anyTensor)
        .getResult();
  }
  Value call(StringRef target, ArrayRef<Arg> a, Type type = {}) {
    return callWith(target, a, {}, {}, type);
  }
  Value size(Value v, int64_t dim) {
    return call("aten::size.int", {v, I(dim)}, IntegerType::get(ctx, 64));
  }
  /// `view`/`reshape` of `v` to `dims` (ints, or Values of sizes).
  Value reshape(StringRef target, Value v,
                ArrayRef<std::variant<Value, int64_t>> dims, Type type = {}) {
    SmallVector<Value> operands = {v};
    SmallVector<Attribute> items;
    for (auto &d : dims) {
      if (auto *s = std::get_if<Value>(&d)) {
        items.push_back(NodeAttr::get(ctx, operands.size()));
        operands.push_back(*s);
      } else {
        items.push_back(I(std::get<int64_t>(d)));
      }
    }
    return gb
        .call(node, gb.uniqueName(base + "_" + target.drop_front(6).str()),
              target, {NodeAttr::get(ctx, 0), list(items)}, {}, {}, operands,
              type ? type : anyTensor)
        .getResult();
  }
  Value cat(ArrayRef<Value> items, int64_t dim) {
    SmallVector<Attribute> refs;
    for (size_t k = 0; k < items.size(); ++k)
      refs.push_back(NodeAttr::get(ctx, k));
    return gb
        .call(node, gb.uniqueName(base + "_cat"), "aten::cat",
              {list(refs), I(dim)}, {}, {}, items, anyTensor)
        .getResult();
  }
  Value add(Value a, Value b) {
    return callWith("aten::add.Tensor", {a, b}, {"alpha"}, {I(1)});
  }
  Value linear(Value x, Value w, Value b) {
    return call("aten::linear", {x, w, b ? Arg(b) : Arg(none())});
  }
  /// Rows [i * E, (i + 1) * E) of a packed (3 * E, ...) projection.
  Value third(Value packed, int64_t i, int64_t E) {
    return call("aten::slice.Tensor",
                {packed, I(0), I(i * E), I((i + 1) * E), I(1)});
  }
  /// (N, L, E) -> (N, H, L, D).
  Value splitHeads(Value x, int64_t H, int64_t D) {
    Value split = reshape("aten::view", x, {size(x, 0), -1, H, D});
    return call("aten::transpose.int", {split, I(1), I(2)});
  }
  /// (N, H, L, D) -> (N, L, H * D).
  Value mergeHeads(Value x, int64_t E) {
    Value merged = call("aten::transpose.int", {x, I(1), I(2)});
    return reshape("aten::reshape", merged, {size(merged, 0), -1, E});
  }
  /// softmax(q * D^-1/2 @ k^T + masks) of (N, H, L, D) heads; each mask a
  /// bool one (-inf where true) or a float one (added), broadcast to the
  /// (N, H, L, S) scores.
  Value probabilities(Value q, Value k, int64_t D,
                      ArrayRef<std::pair<Value, bool>> masks) {
    Value scaled = call("aten::mul.Scalar", {q, F(1.0 / std::sqrt(double(D)))});
    Value kT = call("aten::transpose.int", {k, I(-2), I(-1)});
    Value scores = call("aten::matmul", {scaled, kT});
    for (auto [mask, isBool] : masks)
      scores = isBool ? call("aten::masked_fill.Scalar",
                             {scores, mask, F(-INFINITY)})
                      : add(scores, mask);
    return call("aten::softmax.int", {scores, I(-1), none()});
  }
  /// The attention weights returned: averaged over the heads, or per head.
  Value weights(Value probs, bool average) {
    if (!average)
      return probs;
    return callWith("aten::mean.dim",
                    {probs, list({I(1)}), BoolAttr::get(ctx, false)}, {"dtype"},
                    {none()});
  }

  GraphBuilder &gb;
  Operation *node;
  MLIRContext *ctx;
  std::string base;
  Type anyTensor;
};

} // namespace mlir::fx

#endif // FX_MLIR_LIB_DIALECT_FX_TRANSFORMS_EMITTER_H
