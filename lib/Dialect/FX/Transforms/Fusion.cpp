//===- Fusion.cpp - Fold batch norm, fuse activations, form linear --------===//
//
// fx-fold-batchnorm, fx-fuse-activation and fx-fuse-linear. The producers
// and consumers are recognised in any spelling through the target registry
// (a `call_module` of an nn.Conv2d is a conv2d as much as a canonical
// `aten::conv2d` call is); what the passes create is canonical.
//
//===----------------------------------------------------------------------===//

#include "fx-mlir/Dialect/FX/IR/FXAttrs.h"
#include "fx-mlir/Dialect/FX/IR/FXTypes.h"
#include "fx-mlir/Dialect/FX/Registry/Registry.h"
#include "fx-mlir/Dialect/FX/Transforms/GraphBuilder.h"
#include "fx-mlir/Dialect/FX/Transforms/Passes.h"

#include "mlir/IR/BuiltinTypes.h"
#include <cmath>

namespace mlir::fx {
#define GEN_PASS_DEF_FXFOLDBATCHNORM
#define GEN_PASS_DEF_FXFUSEACTIVATION
#define GEN_PASS_DEF_FXFUSELINEAR
#include "fx-mlir/Dialect/FX/Transforms/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;
using namespace mlir::fx;

static bool isTensorLike(Value v) {
  return v && isa<TensorType, AnyType>(v.getType());
}

//===----------------------------------------------------------------------===//
// fx-fold-batchnorm
//===----------------------------------------------------------------------===//

namespace {
/// One conv/linear + batch norm pair and the numbers to fold.
struct BatchNormFold {
  Operation *conv, *bn;
  std::unique_ptr<BoundCall> convCall;
  StateOp weight, bias;
  std::vector<double> w, b, gamma, beta, mean, var;
  double eps;
};
} // namespace

/// Reads a per-channel state of `channels` elements, or `fill` when the
/// argument is None; false when it is something else.
static bool readChannels(GraphModuleOp module, const BoundCall &call,
                         unsigned i, int64_t channels, double fill,
                         std::vector<double> &out) {
  Attribute value = call.args[i].value;
  if (call.args[i].stateName.empty() && (!value || isa<NoneAttr>(value))) {
    out.assign(channels, fill);
    return true;
  }
  std::optional<std::vector<double>> data =
      readFloatState(getBoundState(module, call, i));
  if (!data || int64_t(data->size()) != channels)
    return false;
  out = std::move(*data);
  return true;
}

static std::optional<BatchNormFold> matchBatchNorm(GraphModuleOp module,
                                                   Operation *op) {
  std::unique_ptr<BoundCall> bn = bindNode(op);
  if (!bn || bn->schema->qualifiedName() != "aten::batch_norm")
    return std::nullopt;
  auto training = dyn_cast_or_null<BoolAttr>(bn->args[5].value);
  if (!training || training.getValue())
    return std::nullopt;
  Value y = getBoundValue(*bn, 0);
  if (!y || !y.hasOneUse())
    return std::nullopt;
  Operation *conv = y.getDefiningOp();
  std::unique_ptr<BoundCall> convCall = bindNode(conv);
  if (!convCall || getInplaceInput(conv))
    return std::nullopt;
  StringRef name = convCall->schema->name;
  auto resultType = dyn_cast<RankedTensorType>(y.getType());
  if (name == "aten::linear") {
    // BatchNorm1d normalizes dim 1: the features only for a 2-d result.
    if (!resultType || resultType.getRank() != 2)
      return std::nullopt;
  } else if (name == "aten::conv1d" || name == "aten::conv2d") {
    int64_t rank = name == "aten::conv1d" ? 3 : 4;
    if (resultType && resultType.getRank() != rank)
      return std::nullopt;
  } else {
    return std::nullopt;
  }
  BatchNormFold fold;
  fold.conv = conv;
  fold.bn = op;
  fold.weight = getBoundState(module, *convCall, 1);
  std::optional<std::vector<double>> w = readFloatState(fold.weight);
  auto weightType = fold.weight
                        ? dyn_cast<RankedTensorType>(fold.weight.getType())
                        : RankedTensorType();
  if (!w || !weightType || weightType.getRank() < 2)
    return std::nullopt;
  fold.w = std::move(*w);
  int64_t channels = weightType.getDimSize(0);
  std::optional<double> eps = getBoundFloat(*bn, 7);
  if (!eps || !readChannels(module, *convCall, 2, channels, 0.0, fold.b) ||
      !readChannels(module, *bn, 1, channels, 1.0, fold.gamma) ||
      !readChannels(module, *bn, 2, channels, 0.0, fold.beta))
    return std::nullopt;
  // Running statistics must exist: without them eval mode uses the batch's.
  for (unsigned i : {3u, 4u})
    if (!getBoundState(module, *bn, i))
      return std::nullopt;
  if (!readChannels(module, *bn, 3, channels, 0.0, fold.mean) ||
      !readChannels(module, *bn, 4, channels, 1.0, fold.var))
    return std::nullopt;
  fold.eps = *eps;
  fold.bias = getBoundState(module, *convCall, 2);
  fold.convCall = std::move(convCall);
  return fold;
}

unsigned mlir::fx::foldBatchNorm(GraphOp graph) {
  auto module = graph->getParentOfType<GraphModuleOp>();
  if (!module)
    return 0;
  GraphBuilder gb(graph);
  MLIRContext *ctx = graph.getContext();
  unsigned folded = 0;
  for (Operation *op : getCallNodes(graph)) {
    if (gb.isErased(op))
      continue;
    std::optional<BatchNormFold> fold = matchBatchNorm(module, op);
    if (!fold)
      continue;
    auto weightType = cast<RankedTensorType>(fold->weight.getType());
    int64_t channels = weightType.getDimSize(0);
    int64_t perChannel = weightType.getNumElements() / channels;
    std::vector<double> w(fold->w.size()), b(channels);
    for (int64_t c = 0; c < channels; ++c) {
      double scale = fold->gamma[c] / std::sqrt(fold->var[c] + fold->eps);
      for (int64_t i = 0; i < perChannel; ++i)
        w[c * perChannel + i] = fold->w[c * perChannel + i] * scale;
      b[c] = (fold->b[c] - fold->mean[c]) * scale + fold->beta[c];
    }
    // New state next to the conv's: `conv.weight_folded`, `conv.bias_folded`.
    StringRef weightName = fold->convCall->args[1].stateName;
    if (weightName.empty())
      weightName = fold->weight.getSymName();
    std::string prefix = weightName.ends_with(".weight")
                             ? weightName.drop_back(7).str() + "."
                             : (weightName + "_").str();
    std::string newWeight = addFloatState(
        module, graph, (weightName + "_folded").str(), weightType, w);
    auto biasType =
        RankedTensorType::get({channels}, weightType.getElementType());
    std::string newBias =
        addFloatState(module, graph, prefix + "bias_folded", biasType, b);
    BoundCall &call = *fold->convCall;
    call.args[1] = {Attribute(), newWeight};
    call.args[2] = {Attribute(), newBias};
    CallFunctionOp conv = gb.emit(fold->conv, call);
    fold->bn->getResult(0).replaceAllUsesWith(conv.getResult());
    gb.erase(fold->bn);
    gb.erase(fold->conv);
    (void)ctx;
    ++folded;
  }
  if (folded)
    eraseUnusedStateAndSubmodules(module);
  return folded;
}

namespace {
struct FoldBatchNormPass
    : public mlir::fx::impl::FXFoldBatchNormBase<FoldBatchNormPass> {
  void runOnOperation() override {
    getOperation()->walk([&](GraphOp graph) { foldBatchNorm(graph); });
  }
};
} // namespace

//===----------------------------------------------------------------------===//
// fx-fuse-activation
//===----------------------------------------------------------------------===//

/// The `activation` name of an activation call, or "".
static StringRef getActivationName(const BoundCall &call) {
  StringRef name = call.schema->qualifiedName() == "aten::gelu"
                       ? StringRef("aten::gelu")
                       : StringRef(call.schema->name);
  if (name == "aten::relu")
    return "relu";
  if (name == "aten::silu")
    return "silu";
  if (name == "aten::sigmoid")
    return "sigmoid";
  if (name == "aten::tanh")
    return "tanh";
  if (name == "aten::hardswish")
    return "hardswish";
  if (name == "aten::gelu") {
    auto approximate = dyn_cast_or_null<StringAttr>(call.args[1].value);
    if (!approximate || approximate.getValue() == "none")
      return "gelu";
    return approximate.getValue() == "tanh" ? "gelu_tanh" : "";
  }
  if (name == "aten::hardtanh") {
    std::optional<double> lo = getBoundFloat(call, 1),
                          hi = getBoundFloat(call, 2);
    return lo && hi && *lo == 0.0 && *hi == 6.0 ? "relu6" : "";
  }
  return "";
}

namespace {
/// The fused ops: `fx_mlir.fused.<name>` applies `op` (any overload).
struct FusedOp {
  StringRef name, op;
};
constexpr FusedOp kFusedOps[] = {{"conv1d", "aten::conv1d"},
                                 {"conv2d", "aten::conv2d"},
                                 {"linear", "aten::linear"},
                                 {"matmul", "aten::matmul"},
                                 {"add", "aten::add.Tensor"}};
} // namespace

StringRef mlir::fx::getFusedBaseOp(StringRef target) {
  if (!target.consume_front("fx_mlir.fused."))
    return "";
  for (const FusedOp &fused : kFusedOps)
    if (fused.name == target)
      return fused.op;
  return "";
}

ArrayRef<StringRef> mlir::fx::getFusedActivations() {
  static const StringRef names[] = {
#define FX_ACTIVATION(NAME, PYTHON) #NAME,
#include "fx-mlir/Dialect/FX/Transforms/FusedActivations.def"
  };
  return names;
}

/// The `fx_mlir.fused.<op>` an op fuses as, or "".
static StringRef getFusableOp(const BoundCall &call) {
  for (const FusedOp &fused : kFusedOps) {
    // `aten::add.Tensor` names one overload; `aten::conv2d` any.
    bool matches = fused.op.contains('.')
                       ? call.schema->qualifiedName() == fused.op
                       : call.schema->name == fused.op;
    if (!matches)
      continue;
    // add fuses for tensor + tensor only.
    if (fused.name == "add" && (!isTensorLike(getBoundValue(call, 0)) ||
                                !isTensorLike(getBoundValue(call, 1))))
      return "";
    return fused.name;
  }
  return "";
}

unsigned mlir::fx::fuseActivations(GraphOp graph) {
  GraphBuilder gb(graph);
  MLIRContext *ctx = graph.getContext();
  unsigned fused = 0;
  for (Operation *op : getCallNodes(graph)) {
    if (gb.isErased(op))
      continue;
    std::unique_ptr<BoundCall> act = bindNode(op);
    if (!act)
      continue;
    StringRef activation = getActivationName(*act);
    Value y = getBoundValue(*act, 0);
    if (activation.empty() || !y || !y.hasOneUse())
      continue;
    Operation *producer = y.getDefiningOp();
    std::unique_ptr<BoundCall> base = bindNode(producer);
    if (!base || getInplaceInput(producer))
      continue;
    StringRef fusable = getFusableOp(*base);
    if (fusable.empty())
      continue;
    std::string name = cast<NodeOpInterface>(op).getNodeName().str();
    CallFunctionOp node =
        gb.emit(producer, *base, ("fx_mlir.fused." + fusable).str(),
                {StringAttr::get(ctx, "activation")},
                {StringAttr::get(ctx, activation)});
    op->getResult(0).replaceAllUsesWith(node.getResult());
    gb.erase(op);
    gb.erase(producer);
    setNodeName(node, name);
    ++fused;
  }
  return fused;
}

namespace {
struct FuseActivationPass
    : public mlir::fx::impl::FXFuseActivationBase<FuseActivationPass> {
  void runOnOperation() override {
    getOperation()->walk([&](GraphOp graph) { fuseActivations(graph); });
  }
};
} // namespace

//===----------------------------------------------------------------------===//
// fx-fuse-linear
//===----------------------------------------------------------------------===//

/// True if `v` is a literal equal to 1 (or absent: the default).
static bool isOne(Attribute a) {
  if (!a)
    return true;
  if (auto i = dyn_cast<IntegerAttr>(a))
    return !isa<BoolAttr>(a) && i.getInt() == 1;
  if (auto f = dyn_cast<FloatAttr>(a))
    return f.getValueAsDouble() == 1.0;
  return false;
}

/// Replaces `op` (computing `x @ w + bias`) by `linear(x, t(w), bias)`
/// when the shapes say it is one.
static bool formLinear(GraphBuilder &gb, Operation *op, Value x, Value w,
                       Value bias) {
  auto wType = dyn_cast<RankedTensorType>(w.getType());
  auto biasType = dyn_cast<RankedTensorType>(bias.getType());
  auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  auto xType = dyn_cast<RankedTensorType>(x.getType());
  if (!wType || !biasType || !resultType || !xType || wType.getRank() != 2 ||
      biasType.getRank() != 1 || xType.getRank() < 1 ||
      resultType.getRank() < 1)
    return false;
  int64_t n = wType.getDimSize(1);
  if (ShapedType::isDynamic(n) || biasType.getDimSize(0) != n ||
      resultType.getShape().back() != n ||
      wType.getElementType() != resultType.getElementType() ||
      biasType.getElementType() != resultType.getElementType())
    return false;
  MLIRContext *ctx = op->getContext();
  auto wtType =
      RankedTensorType::get({n, wType.getDimSize(0)}, wType.getElementType());
  std::string name = cast<NodeOpInterface>(op).getNodeName().str();
  Value wt = gb.call(op, gb.uniqueName(name + "_weight"), "aten::t",
                     {NodeAttr::get(ctx, 0)}, {}, {}, {w}, wtType)
                 .getResult();
  CallFunctionOp linear = gb.call(
      op, name, "aten::linear",
      {NodeAttr::get(ctx, 0), NodeAttr::get(ctx, 1), NodeAttr::get(ctx, 2)}, {},
      {}, {x, wt, bias}, op->getResult(0).getType());
  op->getResult(0).replaceAllUsesWith(linear.getResult());
  return true;
}

unsigned mlir::fx::fuseLinear(GraphOp graph) {
  GraphBuilder gb(graph);
  unsigned formed = 0;
  for (Operation *op : getCallNodes(graph)) {
    if (gb.isErased(op))
      continue;
    std::unique_ptr<BoundCall> call = bindNode(op);
    if (!call || getInplaceInput(op))
      continue;
    std::string name = call->schema->qualifiedName();
    if (name == "aten::addmm") {
      Value bias = getBoundValue(*call, 0), x = getBoundValue(*call, 1),
            w = getBoundValue(*call, 2);
      if (!bias || !x || !w || !isOne(call->args[3].value) ||
          !isOne(call->args[4].value) || !formLinear(gb, op, x, w, bias))
        continue;
      gb.erase(op);
      ++formed;
      continue;
    }
    if (name != "aten::add.Tensor" || !isOne(call->args[2].value))
      continue;
    for (unsigned i : {0u, 1u}) {
      Value mm = getBoundValue(*call, i), bias = getBoundValue(*call, 1 - i);
      if (!mm || !bias || !mm.hasOneUse())
        continue;
      Operation *producer = mm.getDefiningOp();
      std::unique_ptr<BoundCall> matmul = bindNode(producer);
      if (!matmul || (matmul->schema->name != "aten::matmul" &&
                      matmul->schema->name != "aten::mm"))
        continue;
      Value x = getBoundValue(*matmul, 0), w = getBoundValue(*matmul, 1);
      if (!x || !w || mm.getType() != op->getResult(0).getType() ||
          !formLinear(gb, op, x, w, bias))
        continue;
      gb.erase(op);
      gb.erase(producer);
      ++formed;
      break;
    }
  }
  return formed;
}

namespace {
struct FuseLinearPass
    : public mlir::fx::impl::FXFuseLinearBase<FuseLinearPass> {
  void runOnOperation() override {
    getOperation()->walk([&](GraphOp graph) {
      fuseLinear(graph);
      canonicalizeGraph(graph);
    });
  }
};
} // namespace
