//===- NormalizePooling.cpp - Pooling calls that size their output --------===//
//
// The pooling calls whose Python wrappers compute arguments from the
// input's size before calling ATen, which a one-to-one registry alias
// cannot express:
//
// - adaptive max pooling (F.adaptive_max_pool1d/2d/3d and their
//   `_with_indices` forms, nn.AdaptiveMaxPool1d/2d/3d): ATen's operator
//   always returns (values, indices); without return_indices the values
//   are taken by an `operator.getitem` node;
// - adaptive average pooling with None in output_size (keep that size);
// - max unpooling (F.max_unpool1d/2d/3d, nn.MaxUnpool1d/2d/3d): the output
//   size from kernel, stride and padding (or checked against the one
//   given), as torch.nn.functional._unpool_output_size computes it; 1-D
//   through max_unpool2d on a unit last dim, as PyTorch does.
//
// The sizes come from the input's static shape (the graph imported with
// example inputs).
//
//===----------------------------------------------------------------------===//

#include "NormalizeSpecial.h"

#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace mlir::fx;

namespace {

/// The arguments of a call to a Python function with parameters `names`,
/// positional then by keyword; `defaults` for those not given (null:
/// required). Fails with `why` otherwise.
std::optional<SmallVector<Attribute>>
bindArguments(ArrayAttr args, DictAttr kwargs, ArrayRef<StringRef> names,
              ArrayRef<Attribute> defaults, std::string &why) {
  SmallVector<Attribute> values(defaults.begin(), defaults.end());
  if (args.size() > names.size()) {
    why = "too many arguments";
    return std::nullopt;
  }
  for (auto [i, a] : llvm::enumerate(args))
    values[i] = a;
  if (kwargs)
    for (auto [key, value] : llvm::zip(kwargs.getKeys(), kwargs.getValues())) {
      StringRef name = cast<StringAttr>(key).getValue();
      const StringRef *it = llvm::find(names, name);
      if (it == names.end()) {
        why = ("unexpected argument '" + name + "'").str();
        return std::nullopt;
      }
      values[it - names.begin()] = value;
    }
  for (auto [name, v] : llvm::zip(names, values))
    if (!v) {
      why = ("missing argument '" + name + "'").str();
      return std::nullopt;
    }
  return values;
}

/// An int or a list/tuple of ints and Nones (nullopt entries); an int
/// stands for `n` copies of itself.
std::optional<SmallVector<std::optional<int64_t>>> sizesOf(Attribute a,
                                                           int64_t n) {
  SmallVector<std::optional<int64_t>> sizes;
  if (auto i = dyn_cast<IntegerAttr>(a)) {
    sizes.assign(n, i.getInt());
    return sizes;
  }
  ArrayRef<Attribute> items;
  if (auto list = dyn_cast<ListAttr>(a))
    items = list.getElements();
  else if (auto tuple = dyn_cast<TupleAttr>(a))
    items = tuple.getElements();
  else
    return std::nullopt;
  for (Attribute item : items) {
    if (isa<NoneAttr>(item))
      sizes.push_back(std::nullopt);
    else if (auto i = dyn_cast<IntegerAttr>(item))
      sizes.push_back(i.getInt());
    else
      return std::nullopt;
  }
  return sizes;
}

/// Ints only (an int for `n` copies); nullopt if one is None or not an int.
std::optional<SmallVector<int64_t>> intsOf(Attribute a, int64_t n) {
  auto sizes = sizesOf(a, n);
  if (!sizes || int64_t(sizes->size()) != n)
    return std::nullopt;
  SmallVector<int64_t> ints;
  for (std::optional<int64_t> s : *sizes) {
    if (!s)
      return std::nullopt;
    ints.push_back(*s);
  }
  return ints;
}

Attribute intList(MLIRContext *ctx, ArrayRef<int64_t> values) {
  SmallVector<Attribute> items;
  for (int64_t v : values)
    items.push_back(IntegerAttr::get(IntegerType::get(ctx, 64), v));
  return ListAttr::get(ctx, items);
}

/// The node's input `a` (a node reference) and its type, which must be a
/// ranked tensor of `ranks[0]` or `ranks[1]` dims with static trailing
/// `spatial` dims.
std::optional<std::pair<Value, RankedTensorType>>
spatialInput(Operation *node, Attribute a, int64_t spatial, std::string &why) {
  auto ref = dyn_cast_or_null<NodeAttr>(a);
  if (!ref) {
    why = "the input must be a node";
    return std::nullopt;
  }
  Value x = node->getOperand(ref.getIndex());
  auto type = dyn_cast<RankedTensorType>(x.getType());
  if (!type ||
      (type.getRank() != spatial + 1 && type.getRank() != spatial + 2)) {
    why = "needs an input of known type with " + std::to_string(spatial + 1) +
          " or " + std::to_string(spatial + 2) + " dims";
    return std::nullopt;
  }
  for (int64_t d = type.getRank() - spatial; d < type.getRank(); ++d)
    if (type.isDynamicDim(d)) {
      why = "needs static spatial sizes";
      return std::nullopt;
    }
  return std::make_pair(x, type);
}

/// `shape` with the trailing `sizes.size()` dims replaced by `sizes`.
SmallVector<int64_t> withSpatial(ArrayRef<int64_t> shape,
                                 ArrayRef<int64_t> sizes) {
  SmallVector<int64_t> out(shape.begin(), shape.end());
  std::copy(sizes.begin(), sizes.end(), out.end() - sizes.size());
  return out;
}

/// Replaces `node` by `value` and erases it.
LogicalResult replaceNode(GraphBuilder &gb, Operation *node, Value value) {
  node->getResult(0).replaceAllUsesWith(value);
  gb.erase(node);
  return success();
}

/// adaptive_max_pool{n}d(input, output_size), values and indices or values
/// only.
LogicalResult rewriteAdaptiveMaxPool(GraphBuilder &gb, Operation *node,
                                     Attribute input, Attribute outputSize,
                                     bool withIndices, int64_t n,
                                     std::string &why) {
  MLIRContext *ctx = gb.getContext();
  auto in = spatialInput(node, input, n, why);
  auto sizes = sizesOf(outputSize, n);
  if (!in)
    return failure();
  if (!sizes || int64_t(sizes->size()) != n) {
    why =
        "output_size must be an int or " + std::to_string(n) + " ints or Nones";
    return failure();
  }
  auto [x, type] = *in;
  SmallVector<int64_t> out;
  for (auto [d, s] : llvm::enumerate(*sizes)) {
    int64_t size = s ? *s : type.getDimSize(type.getRank() - n + d);
    if (size < 0) {
      why = "output_size must not be negative";
      return failure();
    }
    out.push_back(size);
  }
  SmallVector<int64_t> shape = withSpatial(type.getShape(), out);
  auto values = RankedTensorType::get(shape, type.getElementType());
  auto indices = RankedTensorType::get(shape, IntegerType::get(ctx, 64));
  auto tuple = TupleType::get(ctx, {values, indices});
  auto nodeName = cast<NodeOpInterface>(node).getNodeName();
  std::string target = "aten::adaptive_max_pool" + std::to_string(n) + "d";
  CallFunctionOp pool = gb.call(
      node,
      withIndices ? nodeName.str()
                  : gb.uniqueName(nodeName.str() + "_with_indices"),
      target, {NodeAttr::get(ctx, 0), intList(ctx, out)}, {}, {}, {x}, tuple);
  if (withIndices)
    return replaceNode(gb, node, pool.getResult());
  CallFunctionOp first = gb.call(
      node, nodeName, "operator.getitem",
      {NodeAttr::get(ctx, 0), IntegerAttr::get(IntegerType::get(ctx, 64), 0)},
      {}, {}, {pool.getResult()}, values);
  return replaceNode(gb, node, first.getResult());
}

/// adaptive_avg_pool{n}d(input, output_size) with None in output_size.
LogicalResult rewriteAdaptiveAvgPool(GraphBuilder &gb, Operation *node,
                                     Attribute input, Attribute outputSize,
                                     int64_t n, std::string &why) {
  MLIRContext *ctx = gb.getContext();
  auto sizes = sizesOf(outputSize, n);
  if (!sizes || llvm::all_of(*sizes, [](auto s) { return s.has_value(); }))
    return failure(); // no None: the registry's alias
  auto in = spatialInput(node, input, n, why);
  if (!in)
    return failure();
  if (int64_t(sizes->size()) != n) {
    why = "output_size must have " + std::to_string(n) + " entries";
    return failure();
  }
  auto [x, type] = *in;
  SmallVector<int64_t> out;
  for (auto [d, s] : llvm::enumerate(*sizes))
    out.push_back(s ? *s : type.getDimSize(type.getRank() - n + d));
  std::string target = "aten::adaptive_avg_pool" + std::to_string(n) + "d";
  CallFunctionOp pool =
      gb.call(node, cast<NodeOpInterface>(node).getNodeName(), target,
              {NodeAttr::get(ctx, 0), intList(ctx, out)}, {}, {}, {x},
              node->getResult(0).getType());
  return replaceNode(gb, node, pool.getResult());
}

/// max_unpool{n}d(input, indices, kernel_size, stride, padding, output_size).
LogicalResult rewriteMaxUnpool(GraphBuilder &gb, Operation *node,
                               ArrayRef<Attribute> a, int64_t n,
                               std::string &why) {
  MLIRContext *ctx = gb.getContext();
  auto in = spatialInput(node, a[0], n, why);
  if (!in)
    return failure();
  auto [x, type] = *in;
  auto indicesRef = dyn_cast<NodeAttr>(a[1]);
  auto kernel = intsOf(a[2], n);
  auto stride = isa<NoneAttr>(a[3]) ? kernel : intsOf(a[3], n);
  auto padding = intsOf(a[4], n);
  if (!indicesRef || !kernel || !stride || !padding) {
    why = "needs indices and constant kernel_size, stride and padding";
    return failure();
  }
  Value indices = node->getOperand(indicesRef.getIndex());
  SmallVector<int64_t> out;
  for (int64_t d = 0; d < n; ++d)
    out.push_back((type.getDimSize(type.getRank() - n + d) - 1) * (*stride)[d] +
                  (*kernel)[d] - 2 * (*padding)[d]);
  if (!isa<NoneAttr>(a[5])) {
    auto given = sizesOf(a[5], n);
    if (given && int64_t(given->size()) == n + 2)
      given->erase(given->begin(), given->begin() + 2);
    if (!given || int64_t(given->size()) != n ||
        llvm::any_of(*given, [](auto s) { return !s; })) {
      why = "output_size should be a sequence of " + std::to_string(n) +
            " or " + std::to_string(n + 2) + " ints";
      return failure();
    }
    for (int64_t d = 0; d < n; ++d) {
      int64_t size = *(*given)[d];
      if (size <= out[d] - (*stride)[d] || size >= out[d] + (*stride)[d]) {
        why = "invalid output_size: dim " + std::to_string(d) +
              " must be between " + std::to_string(out[d] - (*stride)[d]) +
              " and " + std::to_string(out[d] + (*stride)[d]);
        return failure();
      }
      out[d] = size;
    }
  }
  auto nodeName = cast<NodeOpInterface>(node).getNodeName().str();
  Type resultType = node->getResult(0).getType();
  if (n == 3) {
    CallFunctionOp pool = gb.call(node, nodeName, "aten::max_unpool3d",
                                  {NodeAttr::get(ctx, 0), NodeAttr::get(ctx, 1),
                                   intList(ctx, out), intList(ctx, *stride),
                                   intList(ctx, *padding)},
                                  {}, {}, {x, indices}, resultType);
    return replaceNode(gb, node, pool.getResult());
  }
  if (n == 2) {
    CallFunctionOp pool = gb.call(
        node, nodeName, "aten::max_unpool2d",
        {NodeAttr::get(ctx, 0), NodeAttr::get(ctx, 1), intList(ctx, out)}, {},
        {}, {x, indices}, resultType);
    return replaceNode(gb, node, pool.getResult());
  }
  // 1-D: max_unpool2d on a unit last dim, then that dim dropped.
  Attribute minusOne = IntegerAttr::get(IntegerType::get(ctx, 64), -1);
  auto unsqueezed = [&](Value v, StringRef suffix) {
    auto t = cast<RankedTensorType>(v.getType());
    SmallVector<int64_t> shape(t.getShape().begin(), t.getShape().end());
    shape.push_back(1);
    return gb
        .call(node, gb.uniqueName(nodeName + suffix.str()), "aten::unsqueeze",
              {NodeAttr::get(ctx, 0), minusOne}, {}, {}, {v},
              RankedTensorType::get(shape, t.getElementType()))
        .getResult();
  };
  auto indicesType = dyn_cast<RankedTensorType>(indices.getType());
  if (!indicesType) {
    why = "needs indices of known type";
    return failure();
  }
  Value x2 = unsqueezed(x, "_input"), i2 = unsqueezed(indices, "_indices");
  SmallVector<int64_t> shape2 = withSpatial(type.getShape(), out);
  shape2.push_back(1);
  out.push_back(1);
  CallFunctionOp pool = gb.call(
      node, gb.uniqueName(nodeName + "_2d"), "aten::max_unpool2d",
      {NodeAttr::get(ctx, 0), NodeAttr::get(ctx, 1), intList(ctx, out)}, {}, {},
      {x2, i2}, RankedTensorType::get(shape2, type.getElementType()));
  CallFunctionOp squeezed = gb.call(node, nodeName, "aten::squeeze.dim",
                                    {NodeAttr::get(ctx, 0), minusOne}, {}, {},
                                    {pool.getResult()}, resultType);
  return replaceNode(gb, node, squeezed.getResult());
}

/// The spatial rank named by a target's `Nd` suffix ("...pool2d" -> 2).
int64_t spatialOf(StringRef name) {
  size_t at = name.find_last_of("123");
  return at == StringRef::npos ? 0 : name[at] - '0';
}

} // namespace

LogicalResult mlir::fx::rewritePoolingCall(GraphBuilder &gb, Operation *op,
                                           std::string &why) {
  MLIRContext *ctx = op->getContext();
  Attribute none = NoneAttr::get(ctx);
  Attribute zero = IntegerAttr::get(IntegerType::get(ctx, 64), 0);
  Attribute no = BoolAttr::get(ctx, false);
  if (auto call = dyn_cast<CallFunctionOp>(op)) {
    StringRef target = call.getTarget();
    if (!target.consume_front("torch.nn.functional."))
      return failure();
    int64_t n = spatialOf(target);
    auto bind = [&](ArrayRef<StringRef> names, ArrayRef<Attribute> defaults) {
      return bindArguments(call.getArgs(), call.getKwargs(), names, defaults,
                           why);
    };
    if (target.starts_with("adaptive_max_pool") ||
        target.starts_with("_adaptive_max_pool")) {
      auto a = bind({"input", "output_size", "return_indices"},
                    {Attribute(), Attribute(), no});
      if (!a)
        return failure();
      auto returnIndices = dyn_cast<BoolAttr>((*a)[2]);
      if (!returnIndices) {
        why = "return_indices must be a constant bool";
        return failure();
      }
      bool withIndices = target.ends_with("_with_indices") ||
                         (!target.starts_with("_") && returnIndices.getValue());
      return rewriteAdaptiveMaxPool(gb, op, (*a)[0], (*a)[1], withIndices, n,
                                    why);
    }
    if (target == "adaptive_avg_pool2d" || target == "adaptive_avg_pool3d") {
      auto a = bind({"input", "output_size"}, {Attribute(), Attribute()});
      if (!a)
        return failure();
      return rewriteAdaptiveAvgPool(gb, op, (*a)[0], (*a)[1], n, why);
    }
    if (target.starts_with("max_unpool")) {
      auto a = bind({"input", "indices", "kernel_size", "stride", "padding",
                     "output_size"},
                    {Attribute(), Attribute(), Attribute(), none, zero, none});
      if (!a)
        return failure();
      return rewriteMaxUnpool(gb, op, *a, n, why);
    }
    return failure();
  }
  auto call = dyn_cast<CallModuleOp>(op);
  if (!call)
    return failure();
  auto submodule = dyn_cast_or_null<SubmoduleOp>(lookupModuleSymbol(
      op->getParentOfType<GraphModuleOp>(), call.getTargetAttr().getAttr()));
  if (!submodule)
    return failure();
  StringRef type = submodule.getModuleType();
  if (!type.consume_front("torch.nn."))
    return failure();
  int64_t n = spatialOf(type);
  DictAttr hp = submodule.getHparams();
  auto hparam = [&](StringRef name, Attribute otherwise) {
    Attribute a = hp ? hp.lookup(name) : Attribute();
    return a ? a : otherwise;
  };
  auto bind = [&](ArrayRef<StringRef> names, ArrayRef<Attribute> defaults) {
    return bindArguments(call.getArgs(), call.getKwargs(), names, defaults,
                         why);
  };
  if (type.starts_with("AdaptiveMaxPool") ||
      type.starts_with("AdaptiveAvgPool")) {
    Attribute outputSize = hparam("output_size", Attribute());
    if (!outputSize)
      return failure();
    auto a = bind({"input"}, {Attribute()});
    if (!a)
      return failure();
    if (type.starts_with("AdaptiveAvgPool"))
      return n < 2
                 ? failure()
                 : rewriteAdaptiveAvgPool(gb, op, (*a)[0], outputSize, n, why);
    auto returnIndices = dyn_cast<BoolAttr>(hparam("return_indices", no));
    if (!returnIndices) {
      why = "return_indices must be a bool";
      return failure();
    }
    return rewriteAdaptiveMaxPool(gb, op, (*a)[0], outputSize,
                                  returnIndices.getValue(), n, why);
  }
  if (type.starts_with("MaxUnpool")) {
    auto a = bind({"input", "indices", "output_size"},
                  {Attribute(), Attribute(), none});
    if (!a)
      return failure();
    SmallVector<Attribute> args = {(*a)[0],
                                   (*a)[1],
                                   hparam("kernel_size", none),
                                   hparam("stride", none),
                                   hparam("padding", zero),
                                   (*a)[2]};
    return rewriteMaxUnpool(gb, op, args, n, why);
  }
  return failure();
}
