//===- Normalize.cpp - Rewrite FX calls into canonical aten calls ---------===//
//
// fx-normalize: every call_function, call_method and call_module the target
// registry knows becomes one canonical `fx.call_function "aten::..."` with
// all schema arguments explicit; module weights become `fx.get_attr` nodes.
// Tensor indexing (`x[:, 1:3]`), `x.shape` and nn.Identity are expanded
// here, as they map to several nodes, and so are interpolations
// (F.interpolate, nn.Upsample), whose operator depends on the input's
// rank; nn.MultiheadAttention in NormalizeAttention.cpp.
//
//===----------------------------------------------------------------------===//

#include "NormalizeSpecial.h"
#include "fx-mlir/Dialect/FX/IR/ControlFlow.h"
#include "fx-mlir/Dialect/FX/IR/FXAttrs.h"
#include "fx-mlir/Dialect/FX/IR/FXLocation.h"
#include "fx-mlir/Dialect/FX/IR/FXTypes.h"
#include "fx-mlir/Dialect/FX/Registry/Registry.h"
#include "fx-mlir/Dialect/FX/Transforms/GraphBuilder.h"
#include "fx-mlir/Dialect/FX/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include <array>
#include <cmath>
#include <variant>

namespace mlir::fx {
#define GEN_PASS_DEF_FXNORMALIZE
#include "fx-mlir/Dialect/FX/Transforms/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;
using namespace mlir::fx;

namespace {

Attribute i64Attr(MLIRContext *ctx, int64_t v) {
  return IntegerAttr::get(IntegerType::get(ctx, 64), v);
}

/// `tensor<*xT>` or the ranked type `shape` of `like`'s element type.
Type tensorLike(Type like, std::optional<ArrayRef<int64_t>> shape) {
  auto tensor = dyn_cast<TensorType>(like);
  if (!tensor)
    return like;
  if (!shape)
    return UnrankedTensorType::get(tensor.getElementType());
  return RankedTensorType::get(*shape, tensor.getElementType());
}

//===----------------------------------------------------------------------===//
// Tensor indexing: operator.getitem(x, index)
//===----------------------------------------------------------------------===//

/// Expands `x[index]` on a tensor into select/slice/unsqueeze nodes.
/// Returns failure (with `why`) for index forms it does not expand
/// (tensor indices).
LogicalResult expandTensorIndex(GraphBuilder &gb, CallFunctionOp node,
                                std::string &why) {
  MLIRContext *ctx = node.getContext();
  ArrayAttr args = node.getArgs();
  if (args.size() != 2 || !isa<NodeAttr>(args[0])) {
    why = "unsupported getitem form";
    return failure();
  }
  Value self = node.getOperand(cast<NodeAttr>(args[0]).getIndex());
  auto type = dyn_cast<RankedTensorType>(self.getType());
  SmallVector<Attribute> items;
  if (auto tuple = dyn_cast<TupleAttr>(args[1]))
    items.assign(tuple.getElements().begin(), tuple.getElements().end());
  else
    items.push_back(args[1]);
  // Int tensor indices after full slices only (`x[idx]`, `x[:, idx]`)
  // gather along their dims: aten::index.Tensor with None for the dims
  // before them.
  // `:` (or `::1`): every element of its dim.
  auto isFull = [](Attribute item) {
    auto slice = dyn_cast<SliceAttr>(item);
    if (!slice)
      return false;
    Attribute step = slice.getStep();
    return isa<NoneAttr>(slice.getStart()) && isa<NoneAttr>(slice.getStop()) &&
           (isa<NoneAttr>(step) ||
            (isa<IntegerAttr>(step) && cast<IntegerAttr>(step).getInt() == 1));
  };
  // A list of ints (`x[:, [1, 3]]`) indexes as the int64 tensor of them,
  // as PyTorch reads it: an aten::tensor node.
  SmallVector<Value> listIndices(items.size());
  for (auto [i, item] : llvm::enumerate(items)) {
    auto list = dyn_cast<ListAttr>(item);
    if (!list || list.getElements().empty() ||
        !llvm::all_of(list.getElements(), [](Attribute e) {
          return isa<IntegerAttr>(e) && !isa<BoolAttr>(e);
        }))
      continue;
    auto indexType = RankedTensorType::get({int64_t(list.getElements().size())},
                                           IntegerType::get(ctx, 64));
    listIndices[i] =
        gb.call(node, gb.uniqueName(node.getNodeName().str() + "_index"),
                "aten::tensor", {list},
                {StringAttr::get(ctx, "dtype"), StringAttr::get(ctx, "device"),
                 StringAttr::get(ctx, "requires_grad")},
                {DTypeAttr::get(ctx, "int64"), NoneAttr::get(ctx),
                 BoolAttr::get(ctx, false)},
                {}, indexType)
            .getResult();
  }
  auto tensorIndex = [&](size_t i) -> Value {
    if (listIndices[i])
      return listIndices[i];
    auto ref = dyn_cast<NodeAttr>(items[i]);
    if (!ref)
      return {};
    Value v = node.getOperand(ref.getIndex());
    auto t = dyn_cast<TensorType>(v.getType());
    return t && isa<IntegerType>(t.getElementType()) &&
                   !t.getElementType().isInteger(1)
               ? v
               : Value();
  };
  // Several int tensor indices next to each other (`x[i, j]`,
  // `x[torch.arange(n), y]`, `x[:, i, j]`, `x[..., [1]]`, `x[idx, :, 2:4]`),
  // among slices and at most one `...`: the slices that are not full cut
  // their dims first (dims stay where they are), then aten::index.Tensor
  // gathers by all the tensors at once, their shapes broadcast, with None
  // for the dims before them.
  SmallVector<Attribute> expanded;
  SmallVector<Value> advanced;
  bool gatherable = true;
  for (auto [i, item] : llvm::enumerate(items)) {
    if (isa<EllipsisAttr>(item)) {
      int64_t given = llvm::count_if(
          items, [](Attribute a) { return !isa<EllipsisAttr, NoneAttr>(a); });
      if (!type || type.getRank() < given) {
        gatherable = false;
        break;
      }
      for (int64_t d = given; d < type.getRank(); ++d) {
        expanded.push_back(SliceAttr::get(
            ctx, NoneAttr::get(ctx), NoneAttr::get(ctx), NoneAttr::get(ctx)));
        advanced.push_back({});
      }
      continue;
    }
    if (!tensorIndex(i) && !isa<SliceAttr>(item)) {
      gatherable = false;
      break;
    }
    expanded.push_back(item);
    advanced.push_back(tensorIndex(i));
  }
  size_t first = 0;
  while (first < advanced.size() && !advanced[first])
    ++first;
  size_t last = first;
  while (last < advanced.size() && advanced[last])
    ++last;
  gatherable = gatherable && last > first &&
               llvm::none_of(ArrayRef(advanced).drop_front(last),
                             [](Value v) { return bool(v); });
  // The slices that are not full, on a static shape with literal bounds.
  SmallVector<std::pair<int64_t, SliceAttr>> cuts;
  for (auto [d, item] : llvm::enumerate(expanded))
    if (auto slice = dyn_cast<SliceAttr>(item); slice && !isFull(slice))
      cuts.push_back({int64_t(d), slice});
  if (gatherable && !cuts.empty() &&
      (!type || !type.hasStaticShape() ||
       type.getRank() < int64_t(expanded.size())))
    gatherable = false;
  if (gatherable) {
    Value source = self;
    for (auto [d, slice] : cuts) {
      auto bound = [](Attribute a, int64_t fallback) -> std::optional<int64_t> {
        if (isa<NoneAttr>(a))
          return fallback;
        if (auto i = dyn_cast<IntegerAttr>(a); i && !isa<BoolAttr>(a))
          return i.getInt();
        return std::nullopt;
      };
      auto shape =
          llvm::to_vector(cast<RankedTensorType>(source.getType()).getShape());
      int64_t size = shape[d];
      std::optional<int64_t> start = bound(slice.getStart(), 0),
                             stop = bound(slice.getStop(), size),
                             step = bound(slice.getStep(), 1);
      if (!start || !stop || !step || *step <= 0) {
        gatherable = false;
        break;
      }
      auto clampIndex = [&](int64_t v) {
        if (v < 0)
          v += size;
        return std::clamp<int64_t>(v, 0, size);
      };
      int64_t lo = clampIndex(*start), hi = clampIndex(*stop);
      shape[d] = hi > lo ? (hi - lo + *step - 1) / *step : 0;
      source =
          gb.call(node, gb.uniqueName(node.getNodeName().str() + "_slice"),
                  "aten::slice.Tensor",
                  {NodeAttr::get(ctx, 0), i64Attr(ctx, d), i64Attr(ctx, lo),
                   i64Attr(ctx, hi), i64Attr(ctx, *step)},
                  {}, {}, {source},
                  RankedTensorType::get(shape, type.getElementType()))
              .getResult();
    }
    if (gatherable) {
      SmallVector<Attribute> indices(first, NoneAttr::get(ctx));
      SmallVector<Value> operands = {source};
      for (size_t i = first; i < last; ++i) {
        indices.push_back(NodeAttr::get(ctx, operands.size()));
        operands.push_back(advanced[i]);
      }
      CallFunctionOp index =
          gb.call(node, node.getNodeName(), "aten::index.Tensor",
                  {NodeAttr::get(ctx, 0), ListAttr::get(ctx, indices)}, {}, {},
                  operands, node.getResult().getType());
      node.getResult().replaceAllUsesWith(index.getResult());
      node.erase();
      return success();
    }
  }
  int64_t consumed = 0;
  bool hasEllipsis = false;
  for (Attribute item : items) {
    if (isa<IntegerAttr, SliceAttr>(item) && !isa<BoolAttr>(item))
      ++consumed;
    else if (isa<EllipsisAttr>(item))
      hasEllipsis = true;
    else if (isa<NodeAttr>(item)) {
      // An int node selects; a tensor node is advanced indexing.
      Value v = node.getOperand(cast<NodeAttr>(item).getIndex());
      if (!isa<IntegerType>(v.getType())) {
        why = "tensor indices are only supported next to each other, among "
              "slices (`x[idx]`, `x[:, idx]`, `x[i, j]`, `x[..., idx, 1:]`)";
        return failure();
      }
      ++consumed;
    } else if (!isa<NoneAttr>(item)) {
      why = "unsupported index kind";
      return failure();
    }
  }
  if (hasEllipsis && !type) {
    why = "'...' needs a ranked tensor type";
    return failure();
  }
  // The steps to emit: (target, dim, extra args).
  struct Step {
    StringRef target;
    SmallVector<Attribute> args; // after self
  };
  SmallVector<Step> steps;
  int64_t dim = 0;
  for (Attribute item : items) {
    if (isa<NoneAttr>(item)) {
      steps.push_back({"aten::unsqueeze", {i64Attr(ctx, dim)}});
      ++dim;
    } else if (isa<EllipsisAttr>(item)) {
      dim += type.getRank() - consumed;
    } else if (auto slice = dyn_cast<SliceAttr>(item)) {
      Attribute start = slice.getStart(), stop = slice.getStop(),
                step = slice.getStep();
      if (!isFull(slice)) {
        if (isa<NoneAttr>(step))
          step = i64Attr(ctx, 1);
        steps.push_back(
            {"aten::slice.Tensor", {i64Attr(ctx, dim), start, stop, step}});
      }
      ++dim;
    } else {
      steps.push_back({"aten::select.int", {i64Attr(ctx, dim), item}});
    }
  }
  if (steps.empty()) {
    // `x[:]` and `x[...]` are x itself.
    node.getResult().replaceAllUsesWith(self);
    node.erase();
    return success();
  }
  Value current = self;
  for (auto [i, step] : llvm::enumerate(steps)) {
    bool last = i + 1 == steps.size();
    SmallVector<Value> values = {current};
    SmallVector<Attribute> stepArgs = {NodeAttr::get(ctx, 0)};
    for (Attribute a : step.args) {
      if (auto ref = dyn_cast<NodeAttr>(a)) {
        values.push_back(node.getOperand(ref.getIndex()));
        a = NodeAttr::get(ctx, values.size() - 1);
      }
      stepArgs.push_back(a);
    }
    Type resultType = last ? node.getResult().getType()
                           : tensorLike(self.getType(), std::nullopt);
    std::string name =
        last ? node.getNodeName().str() : gb.uniqueName(node.getNodeName());
    current =
        gb.call(node, name, step.target, stepArgs, {}, {}, values, resultType)
            .getResult();
  }
  node.getResult().replaceAllUsesWith(current);
  node.erase();
  return success();
}

//===----------------------------------------------------------------------===//
// Interpolation: F.interpolate, F.upsample*, nn.Upsample*
//===----------------------------------------------------------------------===//

/// The arguments of torch.nn.functional.interpolate, in its order: input,
/// size, scale_factor, mode, align_corners, recompute_scale_factor,
/// antialias.
using InterpolateArgs = std::array<Attribute, 7>;

/// The interpolate arguments of a call of `target` (F.interpolate,
/// F.upsample, F.upsample_nearest, F.upsample_bilinear), or nullopt when
/// `target` is none of them. Sets `why` when the call does not bind.
std::optional<InterpolateArgs> bindInterpolateCall(CallFunctionOp call,
                                                   std::string &why) {
  MLIRContext *ctx = call.getContext();
  StringRef target = call.getTarget();
  static const char *names[] = {"input",         "size",
                                "scale_factor",  "mode",
                                "align_corners", "recompute_scale_factor",
                                "antialias"};
  InterpolateArgs a = {Attribute(),
                       NoneAttr::get(ctx),
                       NoneAttr::get(ctx),
                       StringAttr::get(ctx, "nearest"),
                       NoneAttr::get(ctx),
                       NoneAttr::get(ctx),
                       BoolAttr::get(ctx, false)};
  // How many of `names` the function takes.
  size_t taken;
  if (target == "torch.nn.functional.interpolate") {
    taken = 7;
  } else if (target == "torch.nn.functional.upsample") {
    taken = 5;
  } else if (target == "torch.nn.functional.upsample_nearest") {
    taken = 3;
  } else if (target == "torch.nn.functional.upsample_bilinear") {
    taken = 3;
    a[3] = StringAttr::get(ctx, "bilinear");
    a[4] = BoolAttr::get(ctx, true);
  } else {
    return std::nullopt;
  }
  ArrayAttr args = call.getArgs();
  if (args.size() > taken) {
    why = "too many arguments";
    return InterpolateArgs{};
  }
  for (auto [i, arg] : llvm::enumerate(args))
    a[i] = arg;
  DictAttr kwargs = call.getKwargs();
  for (auto [key, value] : llvm::zip(kwargs.getKeys(), kwargs.getValues())) {
    StringRef name = cast<StringAttr>(key).getValue();
    const char **it = std::find(names, names + taken, name);
    if (it == names + taken) {
      why = ("unexpected keyword argument '" + name + "'").str();
      return InterpolateArgs{};
    }
    a[it - names] = value;
  }
  if (!a[0])
    why = "no input";
  return a;
}

/// The interpolate arguments of a call of an nn.Upsample,
/// nn.UpsamplingNearest2d or nn.UpsamplingBilinear2d module, or nullopt
/// for other modules.
std::optional<InterpolateArgs>
bindInterpolateModule(CallModuleOp call, SubmoduleOp module, std::string &why) {
  MLIRContext *ctx = call.getContext();
  StringRef type = module.getModuleType();
  DictAttr hp = module.getHparams();
  auto hparam = [&](StringRef name, Attribute otherwise) {
    Attribute a = hp ? hp.lookup(name) : Attribute();
    return a ? a : otherwise;
  };
  Attribute none = NoneAttr::get(ctx);
  InterpolateArgs a = {Attribute(),
                       hparam("size", none),
                       hparam("scale_factor", none),
                       StringAttr::get(ctx, "nearest"),
                       none,
                       none,
                       BoolAttr::get(ctx, false)};
  if (type == "torch.nn.Upsample") {
    a[3] = hparam("mode", a[3]);
    a[4] = hparam("align_corners", none);
    a[5] = hparam("recompute_scale_factor", none);
  } else if (type == "torch.nn.UpsamplingBilinear2d") {
    a[3] = StringAttr::get(ctx, "bilinear");
    a[4] = BoolAttr::get(ctx, true);
  } else if (type != "torch.nn.UpsamplingNearest2d") {
    return std::nullopt;
  }
  if (call.getArgs().size() != 1 || !call.getKwargs().empty()) {
    why = "expected one input";
    return InterpolateArgs{};
  }
  a[0] = call.getArgs()[0];
  return a;
}

/// Rewrites an interpolation into the `aten::upsample_*.vec` operator (or,
/// for mode 'area', `aten::adaptive_avg_pool*d`) that its mode and its
/// input's rank select, with the size or the scale given once per spatial
/// dim, as torch.nn.functional.interpolate itself does.
LogicalResult expandInterpolate(GraphBuilder &gb, Operation *node,
                                const InterpolateArgs &a, std::string &why) {
  MLIRContext *ctx = node->getContext();
  auto inputRef = dyn_cast_or_null<NodeAttr>(a[0]);
  if (!inputRef) {
    why = "the input must be a node";
    return failure();
  }
  Value input = node->getOperand(inputRef.getIndex());
  auto type = dyn_cast<RankedTensorType>(input.getType());
  if (!type || type.getRank() < 3 || type.getRank() > 5) {
    why = "needs a 3-D, 4-D or 5-D input of known type";
    return failure();
  }
  int64_t r = type.getRank() - 2;
  auto mode = dyn_cast<StringAttr>(a[3]);
  if (!mode) {
    why = "mode must be a string";
    return failure();
  }
  if (auto antialias = dyn_cast<BoolAttr>(a[6]);
      !antialias || antialias.getValue()) {
    why = "antialias is not supported";
    return failure();
  }
  StringRef m = mode.getValue();
  bool linear =
      m == "linear" || m == "bilinear" || m == "trilinear" || m == "bicubic";
  if (!linear && !isa<NoneAttr>(a[4])) {
    why = ("align_corners is only for the linear modes, not '" + m + "'").str();
    return failure();
  }
  Attribute alignCorners =
      isa<NoneAttr>(a[4]) ? BoolAttr::get(ctx, false) : a[4];
  if (!isa<BoolAttr>(alignCorners)) {
    why = "align_corners must be a bool";
    return failure();
  }

  // Node references in the new call index `values`.
  SmallVector<Value> values = {input};
  auto ref = [&](Attribute item) -> Attribute {
    if (auto n = dyn_cast<NodeAttr>(item)) {
      values.push_back(node->getOperand(n.getIndex()));
      return NodeAttr::get(ctx, values.size() - 1);
    }
    return item;
  };
  auto items = [](Attribute list) -> std::optional<ArrayRef<Attribute>> {
    if (auto l = dyn_cast<ListAttr>(list))
      return l.getElements();
    if (auto t = dyn_cast<TupleAttr>(list))
      return t.getElements();
    return std::nullopt;
  };
  bool hasSize = !isa<NoneAttr>(a[1]), hasScale = !isa<NoneAttr>(a[2]);
  if (hasSize == hasScale) {
    why = "exactly one of size and scale_factor must be given";
    return failure();
  }
  // One size or scale per spatial dim.
  Attribute size = NoneAttr::get(ctx), scale = NoneAttr::get(ctx);
  SmallVector<double> scales;
  if (hasSize) {
    SmallVector<Attribute> sizes;
    if (isa<IntegerAttr>(a[1])) {
      sizes.assign(r, a[1]);
    } else if (auto list = items(a[1])) {
      for (Attribute item : *list) {
        if (!isa<IntegerAttr, NodeAttr>(item)) {
          why = "size must hold ints";
          return failure();
        }
        sizes.push_back(ref(item));
      }
    }
    if (isa<NodeAttr>(a[1])) {
      size = ref(a[1]); // a list computed in the graph (`x.shape[-2:]`)
    } else if (int64_t(sizes.size()) != r) {
      why = "size must be an int or " + std::to_string(r) + " of them";
      return failure();
    } else {
      size = ListAttr::get(ctx, sizes);
    }
  } else {
    auto number = [](Attribute item) -> std::optional<double> {
      if (auto f = dyn_cast<FloatAttr>(item))
        return f.getValueAsDouble();
      if (auto i = dyn_cast<IntegerAttr>(item))
        return double(i.getInt());
      return std::nullopt;
    };
    if (auto v = number(a[2])) {
      scales.assign(r, *v);
    } else if (auto list = items(a[2])) {
      for (Attribute item : *list)
        if (auto v = number(item))
          scales.push_back(*v);
    }
    if (int64_t(scales.size()) != r) {
      why =
          "scale_factor must be a number or " + std::to_string(r) + " of them";
      return failure();
    }
    // recompute_scale_factor=True, and mode 'area' always, compute the
    // size from the scale and forget the scale.
    bool recompute = m == "area";
    if (auto b = dyn_cast<BoolAttr>(a[5]))
      recompute |= b.getValue();
    if (recompute) {
      SmallVector<Attribute> sizes;
      for (int64_t d = 0; d < r; ++d) {
        int64_t in = type.getDimSize(2 + d);
        if (ShapedType::isDynamic(in)) {
          why = "the size computed from scale_factor needs static sizes";
          return failure();
        }
        sizes.push_back(
            i64Attr(ctx, int64_t(std::floor(double(in) * scales[d]))));
      }
      size = ListAttr::get(ctx, sizes);
    } else {
      SmallVector<Attribute> floats;
      for (double v : scales)
        floats.push_back(FloatAttr::get(Float64Type::get(ctx), v));
      scale = ListAttr::get(ctx, floats);
    }
  }

  std::string dims = std::to_string(r) + "d";
  std::string target;
  SmallVector<Attribute> args = {NodeAttr::get(ctx, 0), size};
  if (m == "nearest" || m == "nearest-exact") {
    target = (m == "nearest" ? "aten::upsample_nearest"
                             : "aten::_upsample_nearest_exact") +
             dims + ".vec";
    args.push_back(scale);
  } else if (m == "area") {
    if (r == 3) {
      why = "mode 'area' of 5-D inputs is not supported";
      return failure();
    }
    target = "aten::adaptive_avg_pool" + dims;
  } else if (linear) {
    static const char *modes[] = {"linear", "bilinear", "trilinear"};
    if (m == "bicubic" ? r != 2 : m != modes[r - 1]) {
      why = ("mode '" + m + "' does not take a " +
             std::to_string(type.getRank()) + "-D input")
                .str();
      return failure();
    }
    target = "aten::upsample_" + m.str() + dims + ".vec";
    args.append({alignCorners, scale});
  } else {
    why = ("unknown mode '" + m + "'").str();
    return failure();
  }
  auto nodeOp = cast<NodeOpInterface>(node);
  CallFunctionOp call = gb.call(node, nodeOp.getNodeName(), target, args, {},
                                {}, values, node->getResult(0).getType());
  node->getResult(0).replaceAllUsesWith(call.getResult());
  node->erase();
  return success();
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct NormalizePass : public mlir::fx::impl::FXNormalizeBase<NormalizePass> {
  using Base::Base;

  void runOnOperation() override {
    // Every weight a node reads is looked up by name: hashed, not scanned.
    SymbolLookupCache symbols;
    getOperation()->walk([&](GraphOp graph) {
      if (failed(normalizeGraph(graph)))
        signalPassFailure();
    });
  }

  LogicalResult normalizeGraph(GraphOp graph) {
    GraphBuilder gb(graph);
    const TargetRegistry &registry = TargetRegistry::get();
    bool ok = true;
    // In-place methods and functions first: the loop below makes their
    // ATen calls functional where nothing else sees the write.
    for (Operation *op : getCallNodes(graph))
      inplaceCallAsAten(gb, op);
    for (Operation *op : getCallNodes(graph)) {
      if (gb.isErased(op))
        continue;
      // The package's own functions (fused ops, probes) are canonical.
      // So are control-flow calls (their graphs are normalized as graphs).
      if (auto call = dyn_cast<CallFunctionOp>(op);
          call && (call.getTarget().starts_with("fx_mlir.") ||
                   isControlFlowTarget(call.getTarget())))
        continue;
      // torch.ops.quantized.* read their scale and zero point from the
      // result's type, after this loop (NormalizeQuant.cpp).
      if (auto call = dyn_cast<CallFunctionOp>(op);
          call && call.getTarget().starts_with("torch.ops.quantized."))
        continue;
      // An in-place ATen call (a traced `aten::relu_`, `aten::add_.Tensor`)
      // on a value nothing else sees change: its out-of-place operator,
      // later readers of the value reading its result.
      InplaceWrite write = functionalizeInplaceAten(op);
      Value mutatedByAten = write.self;
      std::string why;
      LogicalResult handled = rewriteSpecial(gb, op, why);
      if (succeeded(handled))
        continue;
      if (why.empty()) {
        if (auto bound = registry.bind(op, why)) {
          Value mutated = mutatedByAten ? mutatedByAten : getInplaceInput(op);
          CallFunctionOp canonical = gb.emit(op, *bound);
          op->getResult(0).replaceAllUsesWith(canonical.getResult());
          op->erase();
          // A write into a view: the base's new value, later readers of
          // the base and its views reading it.
          if (!write.chain.empty()) {
            writeBack(gb, canonical, write);
            continue;
          }
          // An in-place call (`relu(x, inplace=True)`, `x += y`) changed
          // its input: later readers of the input read the result.
          if (mutated)
            mutated.replaceUsesWithIf(canonical.getResult(), [&](OpOperand &u) {
              return canonical->isBeforeInBlock(u.getOwner());
            });
          continue;
        }
      }
      if (isStructural(op))
        continue;
      if (auto call = dyn_cast<CallFunctionOp>(op);
          call && !mutatedByAten && isInplaceAten(call.getTarget()))
        why = "an in-place write into a tensor something else sees: a graph "
              "input, module state, or a tensor another view of which is "
              "read after the write (only writes nothing else sees are made "
              "functional)";
      auto node = cast<NodeOpInterface>(op);
      auto diag = strict ? op->emitError() : op->emitWarning();
      diag << "fx-normalize: " << node.getOpcode() << " " << getNodeLabel(op)
           << " with target '" << node.getTargetName() << "' is not supported ("
           << why << ")";
      if (strict)
        ok = false;
    }
    // Quantized tensors are read and made only by the quantization
    // operators (NormalizeQuant.cpp).
    // (A fresh list: each rewrite erases only the node it rewrites. The
    // builder's erased set is not asked: a new node may have an erased
    // one's address.)
    for (Operation *op : getCallNodes(graph)) {
      auto call = dyn_cast<CallFunctionOp>(op);
      if (!call)
        continue;
      std::string why;
      if (succeeded(writeQuantizedInReferenceForm(gb, call, why)) ||
          why.empty())
        continue;
      auto diag = strict ? op->emitError() : op->emitWarning();
      diag << "fx-normalize: call_function " << getNodeLabel(op)
           << " with target '" << call.getTarget()
           << "' on quantized tensors is not supported (" << why << ")";
      if (strict)
        ok = false;
    }
    return success(ok);
  }

  /// Whether `op`'s result may be a view of an input: an ATen call whose
  /// schema's result is annotated `Tensor(a)`, any node but ATen calls
  /// and the call_modules of torch.nn modules that compute a new tensor
  /// (convs, linears, norms; not Flatten or Identity, which return views).
  bool mayAlias(Operation *op) {
    if (auto callModule = dyn_cast<CallModuleOp>(op)) {
      auto submodule = dyn_cast_or_null<SubmoduleOp>(
          lookupModuleSymbol(op->getParentOfType<GraphModuleOp>(),
                             callModule.getTargetAttr().getAttr()));
      static const llvm::StringSet<> fresh = {
          "torch.nn.Conv1d",          "torch.nn.Conv2d",
          "torch.nn.Conv3d",          "torch.nn.ConvTranspose1d",
          "torch.nn.ConvTranspose2d", "torch.nn.ConvTranspose3d",
          "torch.nn.Linear",          "torch.nn.BatchNorm1d",
          "torch.nn.BatchNorm2d",     "torch.nn.BatchNorm3d",
          "torch.nn.LayerNorm",       "torch.nn.GroupNorm"};
      return !submodule || !fresh.contains(submodule.getModuleType());
    }
    auto call = dyn_cast<CallFunctionOp>(op);
    if (!call || !call.getTarget().starts_with("aten::"))
      return true;
    const OpSchema *schema = TargetRegistry::get().lookupOp(call.getTarget());
    if (!schema)
      return true;
    StringRef results = StringRef(schema->text).rsplit("->").second;
    return results.contains("(");
  }

  /// Whether `piece` is item k of a split (chunk, split, unbind and the
  /// unsafe forms, whose pieces do not overlap) that nothing else takes
  /// item k of, of a tensor that is no view and that nothing reads after
  /// `op`: a write into the piece then changes only what later readers of
  /// the piece see (torch.jit.trace's nn.LSTMCell: `sigmoid_` of each
  /// gate of an unsafe_chunk).
  bool isUnsharedPiece(Value piece, Operation *op) {
    auto get = piece.getDefiningOp<CallFunctionOp>();
    if (!get || get.getTarget() != "operator.getitem" ||
        get.getArgs().size() != 2 || !isa<NodeAttr>(get.getArgs()[0]))
      return false;
    auto index = dyn_cast<IntegerAttr>(get.getArgs()[1]);
    Value list = get.getOperand(cast<NodeAttr>(get.getArgs()[0]).getIndex());
    auto split = list.getDefiningOp<CallFunctionOp>();
    static const llvm::StringSet<> splits = {
        "aten::chunk",        "aten::unsafe_chunk",
        "aten::split.Tensor", "aten::unsafe_split.Tensor",
        "aten::split.sizes",  "aten::split_with_sizes",
        "aten::unbind.int",   "aten::unsafe_split_with_sizes"};
    if (!index || index.getInt() < 0 || !split ||
        !splits.contains(split.getTarget()) || split.getArgs().empty() ||
        !isa<NodeAttr>(split.getArgs()[0]))
      return false;
    for (Operation *user : list.getUsers()) {
      auto other = dyn_cast<CallFunctionOp>(user);
      auto i = other && other.getTarget() == "operator.getitem" &&
                       other.getArgs().size() == 2
                   ? dyn_cast<IntegerAttr>(other.getArgs()[1])
                   : IntegerAttr();
      if (!i || i.getInt() < 0 || (other != get && i == index))
        return false;
    }
    Value base =
        split.getOperand(cast<NodeAttr>(split.getArgs()[0]).getIndex());
    Operation *maker = base.getDefiningOp();
    if (!maker || mayAlias(maker))
      return false;
    return llvm::none_of(base.getUsers(), [&](Operation *user) {
      return user != split && runsAfter(op, user);
    });
  }

  /// An in-place method or torch function (`y.add_(1)`, `x.clamp_(min=0)`,
  /// `torch.relu_(x)`, `F.elu_(x)`: PyTorch names them with a trailing `_`)
  /// whose out-of-place form the registry binds (`add` to
  /// `aten::add.Scalar`) becomes the in-place ATen call (`aten::add_.Scalar`)
  /// with the same arguments, as a traced archive holds it. Those that
  /// change only a tensor's shape or strides (`unsqueeze_`, `t_`) are left
  /// as they are.
  void inplaceCallAsAten(GraphBuilder &gb, Operation *op) {
    static const llvm::StringSet<> metadataOnly = {
        "t_",          "transpose_",     "squeeze_",   "unsqueeze_",
        "as_strided_", "resize_",        "swapaxes_",  "swapdims_",
        "detach_",     "requires_grad_", "resize_as_", "set_"};
    auto method = dyn_cast<CallMethodOp>(op);
    auto function = dyn_cast<CallFunctionOp>(op);
    if (!method && !(function && function.getTarget().starts_with("torch.")))
      return;
    StringRef target = method ? method.getTarget() : function.getTarget();
    StringRef name = method ? target : target.rsplit('.').second;
    ArrayAttr args = method ? method.getArgs() : function.getArgs();
    DictAttr kwargs = method ? method.getKwargs() : function.getKwargs();
    const TargetRegistry &registry = TargetRegistry::get();
    if (!isInplaceName(name) || metadataOnly.contains(name) || args.empty() ||
        !isa<NodeAttr>(args[0]) ||
        !registry
             .lookupAliases(method ? AliasKind::Method : AliasKind::Function,
                            target)
             .empty() ||
        op->getResult(0).getType() !=
            op->getOperand(cast<NodeAttr>(args[0]).getIndex()).getType())
      return;
    auto replaceBy = [&](CallFunctionOp call) {
      op->getResult(0).replaceAllUsesWith(call.getResult());
      op->erase();
    };
    // `fill_` and `zero_` have no out-of-place forms to bind.
    if ((name == "fill_" || name == "zero_") && kwargs.empty() &&
        args.size() == (name == "fill_" ? 2u : 1u)) {
      StringRef aten = "aten::zero_";
      if (name == "fill_") {
        auto value = dyn_cast<NodeAttr>(args[1]);
        aten =
            value && isa<TensorType>(op->getOperand(value.getIndex()).getType())
                ? "aten::fill_.Tensor"
                : "aten::fill_.Scalar";
      }
      SmallVector<Value> values(op->getOperands());
      return replaceBy(gb.call(op, cast<NodeOpInterface>(op).getNodeName(),
                               aten, args.getValue(), {}, {}, values,
                               op->getResult(0).getType()));
    }
    std::string original = target.str();
    auto retarget = [&](StringRef t) {
      if (method)
        method.setTarget(t);
      else
        function.setTarget(t);
    };
    retarget(target.drop_back());
    std::string why;
    std::unique_ptr<BoundCall> bound = registry.bind(op, why);
    retarget(original);
    if (!bound)
      return;
    std::string inplace = bound->schema->name + "_";
    if (!bound->schema->overload.empty())
      inplace += "." + bound->schema->overload;
    replaceBy(gb.emit(op, *bound, inplace));
  }

  /// An in-place ATen call made functional (functionalizeInplaceAten):
  /// the tensor it writes, and when that tensor is a view, the views from
  /// the tensor they are of (the base) to it.
  struct InplaceWrite {
    Value self;
    SmallVector<CallFunctionOp> chain; // the base's view first
  };

  /// Whether `user` (an operation anywhere under `at`'s block) runs after
  /// `at`.
  static bool runsAfter(Operation *at, Operation *user) {
    Operation *ancestor = at->getBlock()->findAncestorOpInBlock(*user);
    return ancestor && ancestor != at && at->isBeforeInBlock(ancestor);
  }

  /// The views a write into which reaches the tensor viewed: each has an
  /// inverse (a scatter, or a view back) computed from constants.
  static bool isInvertibleView(CallFunctionOp view) {
    static const llvm::StringSet<> views = {
        "aten::slice.Tensor",  "aten::select.int",  "aten::narrow",
        "aten::transpose.int", "aten::t",           "aten::permute",
        "aten::unsqueeze",     "aten::squeeze.dim", "aten::squeeze",
        "aten::view",          "aten::alias",       "aten::detach"};
    ArrayAttr args = view.getArgs();
    if (!views.contains(view.getTarget()) || args.empty() ||
        !isa<NodeAttr>(args[0]))
      return false;
    Value self = view.getOperand(cast<NodeAttr>(args[0]).getIndex());
    auto in = dyn_cast<RankedTensorType>(self.getType());
    auto out = dyn_cast<RankedTensorType>(view.getResult().getType());
    if (!in || !out)
      return false;
    StringRef target = view.getTarget();
    if (target == "aten::narrow")
      return args.size() == 4 && isa<IntegerAttr>(args[1]) &&
             isa<IntegerAttr>(args[2]) && isa<IntegerAttr>(args[3]) &&
             in.hasStaticShape();
    if (target == "aten::permute") {
      auto dims = args.size() == 2 ? dyn_cast<ListAttr>(args[1]) : ListAttr();
      return dims && llvm::all_of(dims.getElements(), [](Attribute a) {
               return isa<IntegerAttr>(a);
             });
    }
    if (target == "aten::unsqueeze")
      return args.size() == 2 && isa<IntegerAttr>(args[1]);
    if (target == "aten::squeeze.dim" || target == "aten::squeeze" ||
        target == "aten::view")
      return in.hasStaticShape();
    return true;
  }

  /// If `op` calls an in-place ATen overload (`aten::add_.Tensor`: ATen
  /// names them with a trailing `_`, their first argument `Tensor(a!)
  /// self`, their other arguments the out-of-place overload's) whose
  /// out-of-place overload (`aten::add.Tensor`; `fill_` is `copy` or
  /// `full_like`, `zero_` `zeros_like`) the registry has, retargets `op`
  /// to the out-of-place overload and returns the tensor it writes when
  /// nothing else sees the write: the tensor (or the base of the views it
  /// is, see isInvertibleView) is made by a node of this graph that is no
  /// view, and no other alias of it made before `op` is read after it.
  /// Else returns nothing.
  /// Whether `target` is an in-place ATen overload (`aten::add_.Tensor`).
  static bool isInplaceAten(StringRef target) {
    StringRef name = target.split('.').first;
    return name.consume_front("aten::") && isInplaceName(name);
  }

  InplaceWrite functionalizeInplaceAten(Operation *op) {
    auto call = dyn_cast<CallFunctionOp>(op);
    if (!call || !isInplaceAten(call.getTarget()))
      return {};
    auto [name, overload] = call.getTarget().split('.');
    const TargetRegistry &registry = TargetRegistry::get();
    std::string functional = name.drop_back().str();
    if (!overload.empty())
      functional += "." + overload.str();
    // In-place overloads whose out-of-place form ATen names otherwise.
    static const llvm::StringMap<StringRef> renamed = {
        {"aten::fill_.Tensor", "aten::copy"},
        {"aten::fill_.Scalar", "aten::full_like"},
        {"aten::zero_", "aten::zeros_like"}};
    if (auto it = renamed.find(call.getTarget()); it != renamed.end())
      functional = it->second.str();
    if (!registry.lookupOp(functional))
      return {};
    ArrayAttr args = call.getArgs();
    if (args.empty() || !isa<NodeAttr>(args[0]))
      return {};
    Value self = call.getOperand(cast<NodeAttr>(args[0]).getIndex());
    if (!isa<TensorType>(self.getType()))
      return {};
    // An evaluated dropout (`nn.Dropout(inplace=True)` traced in eval mode:
    // `aten::dropout_(x, p, False)`) changes nothing, so views of its
    // input or the input being one do not matter.
    static const llvm::StringSet<> dropouts = {
        "aten::dropout", "aten::feature_dropout", "aten::alpha_dropout",
        "aten::feature_alpha_dropout"};
    if (dropouts.contains(functional) && args.size() == 3) {
      auto train = dyn_cast<BoolAttr>(args[2]);
      if (train && !train.getValue()) {
        call.setTarget(functional);
        return {self, {}};
      }
    }
    // The views from the base to `self`.
    InplaceWrite write{self, {}};
    Value base = self;
    while (auto view = dyn_cast_or_null<CallFunctionOp>(base.getDefiningOp())) {
      if (view->getBlock() != op->getBlock() || !isInvertibleView(view) ||
          writtenBack.contains(view))
        break;
      write.chain.insert(write.chain.begin(), view);
      base = view.getOperand(cast<NodeAttr>(view.getArgs()[0]).getIndex());
    }
    if (write.chain.empty() && isUnsharedPiece(self, op)) {
      call.setTarget(functional);
      return write;
    }
    Operation *maker = base.getDefiningOp();
    if (!maker || maker->getBlock() != op->getBlock() ||
        !isa<CallFunctionOp, CallModuleOp>(maker) ||
        (mayAlias(maker) && !writtenBack.contains(maker)))
      return {};
    // Every other alias of the base made before `op` is read before it
    // only (later readers of the base and of the chain's views read the
    // new values, writeBack).
    llvm::SmallPtrSet<Operation *, 8> inChain;
    for (CallFunctionOp view : write.chain)
      inChain.insert(view);
    std::function<bool(Value)> readAfter = [&](Value v) {
      for (OpOperand &use : v.getUses()) {
        Operation *user = use.getOwner();
        if (runsAfter(op, user))
          return true;
        if (user != op && mayAlias(user) && !isa<OutputOp>(user))
          for (Value r : user->getResults())
            if (readAfter(r))
              return true;
      }
      return false;
    };
    SmallVector<Value> aliases = {base};
    for (CallFunctionOp view : write.chain)
      aliases.push_back(view.getResult());
    for (Value alias : aliases)
      for (Operation *user : alias.getUsers()) {
        if (user == op || inChain.contains(user) || !mayAlias(user) ||
            isa<OutputOp>(user) || runsAfter(op, user))
          continue;
        for (Value r : user->getResults())
          if (readAfter(r))
            return {};
      }
    call.setTarget(functional);
    return write;
  }

  /// After the functional call `updated` of a write into the last of
  /// `write.chain`'s views: the base's new value, each view's scattered
  /// back into the tensor it views (slice_scatter, select_scatter, the
  /// inverse transpose, ...). Later readers of the base read it; later
  /// readers of a view of the chain (and of `updated`) read that view of
  /// it, so that a later write through them reaches the base too.
  void writeBack(GraphBuilder &gb, CallFunctionOp updated,
                 const InplaceWrite &write) {
    MLIRContext *ctx = updated.getContext();
    Operation *cursor = updated->getNextNode();
    llvm::SmallPtrSet<Operation *, 8> made = {updated};
    auto emit = [&](CallFunctionOp view, StringRef target,
                    ArrayRef<Attribute> args, ArrayRef<Value> values,
                    Type type) {
      CallFunctionOp c = gb.call(
          cursor,
          gb.uniqueName(target.drop_front(strlen("aten::")).split('.').first),
          target, args, {}, {}, values, type);
      made.insert(c);
      return c.getResult();
    };
    auto i64 = [&](int64_t v) {
      return IntegerAttr::get(IntegerType::get(ctx, 64), v);
    };
    Value value = updated.getResult();
    for (CallFunctionOp view : llvm::reverse(write.chain)) {
      ArrayAttr args = view.getArgs();
      unsigned selfIndex = cast<NodeAttr>(args[0]).getIndex();
      Value in = view.getOperand(selfIndex);
      auto inType = cast<RankedTensorType>(in.getType());
      StringRef target = view.getTarget();
      SmallVector<Value> values(view.getOperands());
      values.push_back(value);
      Attribute src = NodeAttr::get(ctx, values.size() - 1);
      if (target == "aten::slice.Tensor" || target == "aten::select.int") {
        SmallVector<Attribute> scatterArgs = {args[0], src};
        scatterArgs.append(args.begin() + 1, args.end());
        value = emit(view,
                     target == "aten::select.int" ? "aten::select_scatter"
                                                  : "aten::slice_scatter",
                     scatterArgs, values, inType);
      } else if (target == "aten::narrow") {
        int64_t dim = cast<IntegerAttr>(args[1]).getInt();
        if (dim < 0)
          dim += inType.getRank();
        int64_t start = cast<IntegerAttr>(args[2]).getInt();
        if (start < 0)
          start += inType.getDimSize(dim);
        int64_t length = cast<IntegerAttr>(args[3]).getInt();
        value = emit(
            view, "aten::slice_scatter",
            {args[0], src, i64(dim), i64(start), i64(start + length), i64(1)},
            values, inType);
      } else if (target == "aten::transpose.int") {
        value = emit(view, target, {src, args[1], args[2]}, values, inType);
      } else if (target == "aten::t") {
        value = emit(view, target, {src}, values, inType);
      } else if (target == "aten::permute") {
        ArrayRef<Attribute> dims = cast<ListAttr>(args[1]).getElements();
        SmallVector<Attribute> inverse(dims.size());
        for (auto [i, d] : llvm::enumerate(dims)) {
          int64_t dim = cast<IntegerAttr>(d).getInt();
          if (dim < 0)
            dim += dims.size();
          inverse[dim] = i64(i);
        }
        value = emit(view, target, {src, ListAttr::get(ctx, inverse)}, values,
                     inType);
      } else if (target == "aten::unsqueeze") {
        int64_t dim = cast<IntegerAttr>(args[1]).getInt();
        if (dim < 0)
          dim += inType.getRank() + 1;
        value =
            emit(view, "aten::squeeze.dim", {src, i64(dim)}, values, inType);
      } else if (target == "aten::alias" || target == "aten::detach") {
        // The same tensor: `value` is its new value.
      } else {
        // squeeze, view: back to the static shape viewed.
        SmallVector<Attribute> shape;
        for (int64_t d : inType.getShape())
          shape.push_back(i64(d));
        value = emit(view, "aten::view", {src, ListAttr::get(ctx, shape)},
                     values, inType);
      }
    }
    CallFunctionOp first = write.chain.front();
    Value base =
        first.getOperand(cast<NodeAttr>(first.getArgs()[0]).getIndex());
    auto later = [&](OpOperand &use) {
      return !made.contains(use.getOwner()) &&
             runsAfter(updated, use.getOwner());
    };
    // The chain's views of the new base, made where a later node reads
    // one (or `updated`, the last view's new value).
    SmallVector<Value> olds;
    for (CallFunctionOp view : write.chain)
      olds.push_back(CallFunctionOp(view).getResult());
    olds.back() = write.self;
    int needed = -1;
    for (auto [i, old] : llvm::enumerate(olds))
      if (llvm::any_of(old.getUses(), later))
        needed = i;
    if (llvm::any_of(updated.getResult().getUses(), later))
      needed = olds.size() - 1;
    Value viewed = value;
    for (int i = 0; i <= needed; ++i) {
      CallFunctionOp view = CallFunctionOp(write.chain[i]);
      unsigned selfIndex = cast<NodeAttr>(view.getArgs()[0]).getIndex();
      SmallVector<Value> values(view.getOperands());
      values[selfIndex] = viewed;
      CallFunctionOp again =
          gb.call(cursor, gb.uniqueName(view.getNodeName()), view.getTarget(),
                  SmallVector<Attribute>(view.getArgs().getValue()),
                  view.getKwargs().getKeys(), view.getKwargs().getValues(),
                  values, view.getResult().getType());
      made.insert(again);
      viewed = again.getResult();
      Value old = olds[i];
      old.replaceUsesWithIf(viewed, later);
      if (i == int(olds.size()) - 1)
        updated.getResult().replaceUsesWithIf(viewed, later);
    }
    base.replaceUsesWithIf(value, later);
    if (Operation *made = value.getDefiningOp())
      writtenBack.insert(made);
  }

  /// The new bases writeBack made (an inverse transpose, ...): written
  /// into later, each is a tensor of its own, as the base it replaces.
  llvm::DenseSet<Operation *> writtenBack;

  /// Nodes that stay as they are: getitem of tuples and lists.
  static bool isStructural(Operation *op) {
    auto call = dyn_cast<CallFunctionOp>(op);
    if (!call || call.getTarget() != "operator.getitem" ||
        call.getArgs().empty())
      return false;
    auto ref = dyn_cast<NodeAttr>(call.getArgs()[0]);
    return ref && !isa<TensorType>(call.getOperand(ref.getIndex()).getType());
  }

  /// `x.T`, `x.mT`, `x.H`, `x.mH`, `x.ndim`, `z.real`, `z.imag` of tensors
  /// and `.values`/`.indices` of the named tuples max/min/sort return:
  /// `field` of the call's first operand.
  LogicalResult rewriteGetattr(GraphBuilder &gb, CallFunctionOp call,
                               StringRef field, std::string &why) {
    MLIRContext *ctx = call.getContext();
    Value self = call.getOperand(0);
    Type type = call.getResult().getType();
    auto replaceWith = [&](StringRef target, ArrayRef<Attribute> rest) {
      SmallVector<Attribute> args = {NodeAttr::get(ctx, 0)};
      args.append(rest.begin(), rest.end());
      CallFunctionOp r =
          gb.call(call, call.getNodeName(), target, args, {}, {}, {self}, type);
      call.getResult().replaceAllUsesWith(r.getResult());
      call.erase();
      return success();
    };
    if (field == "values" || field == "indices")
      return replaceWith("operator.getitem",
                         {i64Attr(ctx, field == "values" ? 0 : 1)});
    auto tensor = dyn_cast<RankedTensorType>(self.getType());
    if (field == "ndim" && tensor)
      return replaceWith("aten::dim", {});
    if (field == "mT")
      return replaceWith("aten::transpose.int",
                         {i64Attr(ctx, -2), i64Attr(ctx, -1)});
    // `x.H` and `x.mH` of a 0-d tensor: itself, conjugated when complex.
    if ((field == "H" || field == "mH") && tensor && tensor.getRank() == 0)
      return replaceWith(isa<ComplexType>(tensor.getElementType())
                             ? "aten::conj"
                             : "aten::alias",
                         {});
    // `x.H` (a matrix) and `x.mH`: the transpose, conjugated when complex.
    if ((field == "H" || field == "mH") && tensor &&
        (field == "mH" ? tensor.getRank() >= 2 : tensor.getRank() == 2)) {
      Attribute first = i64Attr(ctx, field == "H" ? 0 : -2),
                second = i64Attr(ctx, field == "H" ? 1 : -1);
      if (!isa<ComplexType>(tensor.getElementType()))
        return replaceWith("aten::transpose.int", {first, second});
      Value t =
          gb.call(call, gb.uniqueName(call.getNodeName().str() + "_transpose"),
                  "aten::transpose.int", {NodeAttr::get(ctx, 0), first, second},
                  {}, {}, {self}, type)
              .getResult();
      CallFunctionOp conj = gb.call(call, call.getNodeName(), "aten::conj",
                                    {NodeAttr::get(ctx, 0)}, {}, {}, {t}, type);
      call.getResult().replaceAllUsesWith(conj.getResult());
      call.erase();
      return success();
    }
    // `z.real`, `z.imag` of complex tensors.
    if ((field == "real" || field == "imag") && tensor &&
        isa<ComplexType>(tensor.getElementType()))
      return replaceWith(field == "real" ? "aten::real" : "aten::imag", {});
    if (field == "T" && tensor) {
      SmallVector<Attribute> dims;
      for (int64_t d = tensor.getRank() - 1; d >= 0; --d)
        dims.push_back(i64Attr(ctx, d));
      return replaceWith("aten::permute", {ListAttr::get(ctx, dims)});
    }
    why = ("unsupported attribute '" + field + "'").str();
    return failure();
  }

  /// Rewrites the nodes the registry's one-to-one aliases cannot express.
  /// Succeeds when it rewrote `op`; fails with `why` empty when `op` is not
  /// special, with `why` set when it is but cannot be rewritten.
  LogicalResult rewriteSpecial(GraphBuilder &gb, Operation *op,
                               std::string &why) {
    MLIRContext *ctx = op->getContext();
    if (succeeded(rewritePoolingCall(gb, op, why)) || !why.empty())
      return success(why.empty());
    if (succeeded(rewriteQuantizedModule(gb, op, why)) || !why.empty())
      return success(why.empty());
    if (succeeded(rewriteRecurrentCall(gb, op, why)) || !why.empty())
      return success(why.empty());
    if (succeeded(rewriteAttentionCall(gb, op, why)) || !why.empty())
      return success(why.empty());
    if (succeeded(rewriteEmbeddingBagCall(gb, op, why)) || !why.empty())
      return success(why.empty());
    if (auto call = dyn_cast<CallFunctionOp>(op)) {
      StringRef target = call.getTarget();
      ArrayAttr args = call.getArgs();
      if (target == "operator.getitem" && args.size() == 2 &&
          isa<NodeAttr>(args[0]) &&
          isa<TensorType>(
              call.getOperand(cast<NodeAttr>(args[0]).getIndex()).getType())) {
        if (succeeded(expandTensorIndex(gb, call, why)))
          return success();
        return failure();
      }
      if (target == "builtins.getattr" && args.size() == 2 &&
          isa<NodeAttr>(args[0]) && isa<StringAttr>(args[1]) &&
          args[1] != StringAttr::get(ctx, "shape"))
        return rewriteGetattr(gb, call, cast<StringAttr>(args[1]).getValue(),
                              why);
      // The same attributes as TorchScript records them.
      StringRef field = llvm::StringSwitch<StringRef>(target)
                            .Case("aten::numpy_T", "T")
                            .Case("aten::mT", "mT")
                            .Case("aten::matrix_H", "H")
                            .Cases({"aten::mH", "aten::adjoint"}, "mH")
                            .Default("");
      if (!field.empty() && args.size() == 1 && isa<NodeAttr>(args[0]) &&
          isa<TensorType>(call.getOperand(0).getType()))
        return rewriteGetattr(gb, call, field, why);
      if (target == "operator.truediv" && args.size() == 2 &&
          isa<IntegerAttr, FloatAttr>(args[0]) && isa<NodeAttr>(args[1]) &&
          isa<TensorType>(call.getOperand(0).getType())) {
        // `2 / x` = 2 * (1 / x); LibTorch has no Scalar / Tensor overload.
        Type type = call.getResult().getType();
        Value x = call.getOperand(0);
        Value r =
            gb.call(op, gb.uniqueName(call.getNodeName().str() + "_reciprocal"),
                    "aten::reciprocal", {NodeAttr::get(ctx, 0)}, {}, {}, {x},
                    type)
                .getResult();
        CallFunctionOp mul =
            gb.call(op, call.getNodeName(), "aten::mul.Scalar",
                    {NodeAttr::get(ctx, 0), args[0]}, {}, {}, {r}, type);
        call.getResult().replaceAllUsesWith(mul.getResult());
        call.erase();
        return success();
      }
      if (std::optional<InterpolateArgs> bound =
              bindInterpolateCall(call, why)) {
        if (!why.empty())
          return failure();
        return expandInterpolate(gb, call, *bound, why);
      }
      if (target == "builtins.getattr" && args.size() == 2 &&
          isa<NodeAttr>(args[0]) && args[1] == StringAttr::get(ctx, "shape")) {
        CallFunctionOp size =
            gb.call(op, call.getNodeName(), "aten::size", {args[0]}, {}, {},
                    {call.getOperand(0)}, call.getResult().getType());
        call.getResult().replaceAllUsesWith(size.getResult());
        call.erase();
        return success();
      }
      return failure();
    }
    if (auto call = dyn_cast<CallModuleOp>(op)) {
      auto module = op->getParentOfType<GraphModuleOp>();
      auto submodule = dyn_cast_or_null<SubmoduleOp>(
          lookupModuleSymbol(module, call.getTargetAttr().getAttr()));
      if (!submodule)
        return failure();
      StringRef type = submodule.getModuleType();
      if (std::optional<InterpolateArgs> bound =
              bindInterpolateModule(call, submodule, why)) {
        if (!why.empty())
          return failure();
        return expandInterpolate(gb, call, *bound, why);
      }
      if (type == "torch.nn.Identity" && call.getNumOperands() == 1 &&
          call.getArgs().size() == 1 && isa<NodeAttr>(call.getArgs()[0])) {
        call.getResult().replaceAllUsesWith(call.getOperand(0));
        call.erase();
        return success();
      }
    }
    return failure();
  }
};

} // namespace

ArrayRef<StringRef> mlir::fx::getExpandedModuleTypes() {
  // Expanded here (nn.Identity, nn.MultiheadAttention, nn.Upsample) and in
  // NormalizePooling.cpp (the pooling ones). nn.UpsamplingNearest2d and
  // nn.UpsamplingBilinear2d are expanded too when a graph holds them, but
  // are not listed: their forward is one F.interpolate, which the Python
  // tracer traces into.
  static const StringRef types[] = {
      "torch.nn.Identity",          "torch.nn.MultiheadAttention",
      "torch.nn.Upsample",          "torch.nn.AdaptiveMaxPool1d",
      "torch.nn.AdaptiveMaxPool2d", "torch.nn.AdaptiveMaxPool3d",
      "torch.nn.MaxUnpool1d",       "torch.nn.MaxUnpool2d",
      "torch.nn.MaxUnpool3d"};
  return types;
}

ArrayRef<StringRef> mlir::fx::getExpandedFunctions() {
  static const StringRef names[] = {
      "torch.nn.functional.interpolate",
      "torch.nn.functional.upsample",
      "torch.nn.functional.upsample_nearest",
      "torch.nn.functional.upsample_bilinear",
      "torch.nn.functional.adaptive_avg_pool2d",
      "torch.nn.functional.adaptive_avg_pool3d",
      "torch.nn.functional.adaptive_max_pool1d",
      "torch.nn.functional.adaptive_max_pool2d",
      "torch.nn.functional.adaptive_max_pool3d",
      "torch.nn.functional.adaptive_max_pool1d_with_indices",
      "torch.nn.functional.adaptive_max_pool2d_with_indices",
      "torch.nn.functional.adaptive_max_pool3d_with_indices",
      "torch.nn.functional._adaptive_max_pool1d",
      "torch.nn.functional._adaptive_max_pool2d",
      "torch.nn.functional._adaptive_max_pool3d",
      "torch.nn.functional.max_unpool1d",
      "torch.nn.functional.max_unpool2d",
      "torch.nn.functional.max_unpool3d"};
  return names;
}
