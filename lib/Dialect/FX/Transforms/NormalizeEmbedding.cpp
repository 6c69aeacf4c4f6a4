//===- NormalizeEmbedding.cpp - embedding_bag as gathers and sums ---------===//
//
// `aten::embedding_bag` (and its `.padding_idx` and `_embedding_bag`
// forms), which TorchScript records for nn.EmbeddingBag and
// F.embedding_bag, expanded into calls the compiler lowers, as the Python
// tracer's reference (python/fx_mlir/reference.py) computes it for a
// torch.fx graph:
//
// - each index's bag: the last offset at or before its position
//   (`bucketize(arange(n), offsets[:bags], right=True) - 1`); with
//   include_last_offset, positions past the last offset, and with a
//   padding_idx, the padding rows, go to a spare bag that is dropped;
// - the rows gathered (`embedding`), scaled by per_sample_weights;
// - per bag, their sum (`index_add`), mean (the sum over the bag's count,
//   an empty bag 0) or max (`scatter_reduce` amax, an empty bag 0).
//
// Only the first result (the bags) may be read: offset2bag, bag_size and
// max_indices are refused when read.
//
//===----------------------------------------------------------------------===//

#include "Emitter.h"
#include "NormalizeSpecial.h"

#include "fx-mlir/Dialect/FX/Registry/Registry.h"

using namespace mlir;
using namespace mlir::fx;

namespace {

/// The ranked tensor positional argument `i` refers to, or null.
Value tensorAt(CallFunctionOp call, size_t i) {
  Value v = tensorArg(call, argAt(call, i));
  return v && isa<RankedTensorType>(v.getType()) ? v : Value();
}

} // namespace

LogicalResult mlir::fx::rewriteEmbeddingBagCall(GraphBuilder &gb, Operation *op,
                                                std::string &why) {
  auto call = dyn_cast<CallFunctionOp>(op);
  if (!call)
    return failure();
  StringRef target = call.getTarget();
  if (target != "aten::embedding_bag" &&
      target != "aten::embedding_bag.padding_idx" &&
      target != "aten::_embedding_bag")
    return failure();
  // (weight, indices, offsets, scale_grad_by_freq, mode, sparse,
  //  per_sample_weights, include_last_offset[, padding_idx]), all given
  // (TorchScript passes every argument).
  if (call.getArgs().size() < 8 || !call.getKwargs().empty()) {
    why = "expected the operator's arguments, positionally";
    return failure();
  }
  Value weight = tensorAt(call, 0), indices = tensorAt(call, 1),
        offsets = tensorAt(call, 2), perSample = tensorAt(call, 6);
  auto mode = dyn_cast_or_null<IntegerAttr>(argAt(call, 4));
  auto lastOffset = dyn_cast_or_null<BoolAttr>(argAt(call, 7));
  std::optional<int64_t> padding;
  if (Attribute p = argAt(call, 8)) {
    if (auto i = dyn_cast<IntegerAttr>(p))
      padding = i.getInt();
    else if (!isa<NoneAttr>(p)) {
      why = "padding_idx must be a constant";
      return failure();
    }
  }
  if (!mode || !lastOffset ||
      (argAt(call, 6) && !isa<NoneAttr>(argAt(call, 6)) && !perSample)) {
    why = "needs constant flags";
    return failure();
  }
  // Only the bags are read.
  for (Operation *user : call.getResult().getUsers()) {
    auto get = dyn_cast<CallFunctionOp>(user);
    auto index = get && get.getTarget() == "operator.getitem" &&
                         get.getArgs().size() == 2
                     ? dyn_cast<IntegerAttr>(get.getArgs()[1])
                     : IntegerAttr();
    if (!index || (index.getInt() != 0 && !get->use_empty())) {
      why = "only its first result (the bags) may be read";
      return failure();
    }
  }
  Value result = emitEmbeddingBag(gb, call, call.getNodeName(), weight, indices,
                                  offsets, perSample, mode.getInt(),
                                  lastOffset.getValue(), padding, why);
  if (!result)
    return failure();
  for (Operation *user : llvm::make_early_inc_range(call->getUsers())) {
    auto get = cast<CallFunctionOp>(user);
    if (cast<IntegerAttr>(get.getArgs()[1]).getInt() == 0)
      get.getResult().replaceAllUsesWith(result);
    gb.erase(get);
  }
  call.erase();
  return success();
}

Value mlir::fx::emitEmbeddingBag(GraphBuilder &gb, Operation *node,
                                 StringRef name, Value weight, Value indices,
                                 Value offsets, Value perSample, int64_t mode,
                                 bool includeLastOffset,
                                 std::optional<int64_t> padding,
                                 std::string &why) {
  MLIRContext *ctx = node->getContext();
  auto shapeOf = [](Value v) {
    return cast<RankedTensorType>(v.getType()).getShape();
  };
  auto ranked = [](Value v) { return v && isa<RankedTensorType>(v.getType()); };
  if (!ranked(weight) || !ranked(indices) || !ranked(offsets) ||
      (perSample && !ranked(perSample)) || shapeOf(weight).size() != 2 ||
      shapeOf(indices).size() != 1 || shapeOf(offsets).size() != 1 ||
      !cast<RankedTensorType>(weight.getType()).hasStaticShape() ||
      ShapedType::isDynamic(shapeOf(indices)[0]) ||
      ShapedType::isDynamic(shapeOf(offsets)[0])) {
    why = "needs a 2-D weight, 1-D indices and offsets of static shapes";
    return {};
  }
  if (mode < 0 || mode > 2) {
    why = "unknown mode";
    return {};
  }
  if (perSample && mode != 0) {
    why = "per_sample_weights needs mode 'sum'";
    return {};
  }
  int64_t rows = shapeOf(weight)[0], width = shapeOf(weight)[1],
          n = shapeOf(indices)[0];
  int64_t bags = shapeOf(offsets)[0] - (includeLastOffset ? 1 : 0);
  if (bags < 0) {
    why = "include_last_offset needs an offset";
    return {};
  }
  if (padding && *padding < 0)
    *padding += rows;
  Type elem = cast<RankedTensorType>(weight.getType()).getElementType();
  Emitter e(gb, node, name, elem);
  Type i64 = IntegerType::get(ctx, 64);
  auto typed = [&](Type element, ArrayRef<int64_t> shape) -> Type {
    return RankedTensorType::get(shape, element);
  };
  Attribute none = e.none();
  Attribute int64 = parseLiteral(ctx, "torch.int64");
  auto creationKeys =
      SmallVector<StringRef>{"dtype", "layout", "device", "pin_memory"};
  // Each position's bag.
  Value positions = e.callWith("aten::arange", {e.I(n)}, creationKeys,
                               {int64, none, none, none}, typed(i64, {n}));
  Value starts =
      e.call("aten::slice.Tensor", {offsets, e.I(0), e.I(0), e.I(bags), e.I(1)},
             typed(i64, {bags}));
  Value bagOf = e.callWith(
      "aten::bucketize.Tensor", {positions, starts}, {"out_int32", "right"},
      {BoolAttr::get(ctx, false), BoolAttr::get(ctx, true)}, typed(i64, {n}));
  bagOf = e.call("aten::sub.Scalar", {bagOf, e.I(1), e.I(1)}, typed(i64, {n}));
  Type boolType = typed(IntegerType::get(ctx, 1), {n});
  if (includeLastOffset) {
    Value end = e.call("aten::select.int", {offsets, e.I(0), e.I(bags)},
                       typed(i64, {}));
    Value inside = e.call("aten::lt.Tensor", {positions, end}, boolType);
    bagOf = e.call("aten::where.ScalarOther", {inside, bagOf, e.I(bags)},
                   typed(i64, {n}));
  }
  if (padding) {
    Value isPadding =
        e.call("aten::eq.Scalar", {indices, e.I(*padding)}, boolType);
    Value notPadding = e.call("aten::logical_not", {isPadding}, boolType);
    bagOf = e.call("aten::where.ScalarOther", {notPadding, bagOf, e.I(bags)},
                   typed(i64, {n}));
  }
  Type rowsType = typed(elem, {n, width});
  Value gathered = e.call("aten::embedding",
                          {weight, indices, e.I(-1), BoolAttr::get(ctx, false),
                           BoolAttr::get(ctx, false)},
                          rowsType);
  if (perSample)
    gathered = e.call(
        "aten::mul.Tensor",
        {gathered,
         e.call(
             "aten::unsqueeze", {perSample, e.I(-1)},
             typed(cast<RankedTensorType>(perSample.getType()).getElementType(),
                   {n, 1}))},
        rowsType);
  int64_t spare = bags + 1;
  Type binsType = typed(elem, {spare, width});
  Value zeros =
      e.callWith("aten::new_zeros", {weight, e.list({e.I(spare), e.I(width)})},
                 creationKeys, {none, none, none, none}, binsType);
  Value out;
  if (mode == 2) {
    Value spread = e.callWith(
        "aten::expand",
        {e.call("aten::unsqueeze", {bagOf, e.I(-1)}, typed(i64, {n, 1})),
         e.list({e.I(n), e.I(width)})},
        {"implicit"}, {BoolAttr::get(ctx, false)}, typed(i64, {n, width}));
    out = e.callWith(
        "aten::scatter_reduce.two",
        {zeros, e.I(0), spread, gathered, StringAttr::get(ctx, "amax")},
        {"include_self"}, {BoolAttr::get(ctx, false)}, binsType);
  } else {
    out = e.callWith("aten::index_add", {zeros, e.I(0), bagOf, gathered},
                     {"alpha"}, {e.I(1)}, binsType);
    if (mode == 1) {
      Type countType = typed(elem, {spare});
      Value ones =
          e.callWith("aten::new_ones", {weight, e.list({e.I(n)})}, creationKeys,
                     {none, none, none, none}, typed(elem, {n}));
      Value counts = e.callWith(
          "aten::index_add",
          {e.callWith("aten::new_zeros", {weight, e.list({e.I(spare)})},
                      creationKeys, {none, none, none, none}, countType),
           e.I(0), bagOf, ones},
          {"alpha"}, {e.I(1)}, countType);
      counts = e.call("aten::clamp", {counts, e.I(1), none}, countType);
      out = e.call("aten::div.Tensor",
                   {out, e.call("aten::unsqueeze", {counts, e.I(-1)},
                                typed(elem, {spare, 1}))},
                   binsType);
    }
  }
  return e.call("aten::slice.Tensor", {out, e.I(0), e.I(0), e.I(bags), e.I(1)},
                typed(elem, {bags, width}));
}
