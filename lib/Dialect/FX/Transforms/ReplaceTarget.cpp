//===- ReplaceTarget.cpp - Call one target instead of another -------------===//
//
// fx-replace-target: the torch.fx `Transformer` that swaps a target, over
// every spelling of the operation (call_function, call_method,
// call_module) the target registry binds to the same canonical operator.
//
//===----------------------------------------------------------------------===//

#include "fx-mlir/Dialect/FX/IR/FXAttrs.h"
#include "fx-mlir/Dialect/FX/IR/FXLocation.h"
#include "fx-mlir/Dialect/FX/Registry/Registry.h"
#include "fx-mlir/Dialect/FX/Transforms/GraphBuilder.h"
#include "fx-mlir/Dialect/FX/Transforms/Passes.h"

namespace mlir::fx {
#define GEN_PASS_DEF_FXREPLACETARGET
#include "fx-mlir/Dialect/FX/Transforms/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;
using namespace mlir::fx;

namespace {

/// A parameter of the target called instead: its Python name, the
/// canonical parameter it binds, and how it is passed.
struct TargetParam {
  std::string name, canonical;
  bool kwargOnly = false, hasDefault = false;
};

/// One way to call what `from` or `to` names: the canonical operator,
/// the overload, and the parameters of the spelling to call.
struct ResolvedTarget {
  std::string op;       // `aten::relu` (any overload)
  std::string overload; // `Tensor`, `int`, or "" for the default overload
  std::vector<TargetParam> params;
};

/// The ways to call a call_function target or canonical operator name:
/// one per alias of the name and overload of its operator, in table order
/// (`operator.mul` is `aten::mul.Tensor`, `aten::mul.int`, ...). Empty for
/// an unknown name.
std::vector<ResolvedTarget> resolveTarget(StringRef name) {
  const TargetRegistry &registry = TargetRegistry::get();
  std::vector<std::pair<const Alias *, const OpSchema *>> ways;
  if (name.contains("::")) {
    for (const OpSchema *schema : registry.getOverloads(name))
      ways.push_back({nullptr, schema});
  } else {
    for (const Alias *alias : registry.lookupAliases(AliasKind::Function, name))
      for (const OpSchema *schema : registry.getOverloads(alias->op))
        ways.push_back({alias, schema});
  }
  std::vector<ResolvedTarget> results;
  for (auto [alias, schema] : ways) {
    ResolvedTarget result;
    result.op = schema->name;
    result.overload = schema->overload;
    if (alias && !alias->schemaParams) {
      for (const AliasParam &p : alias->params) {
        if (p.varargs)
          result.params.push_back({p.name, p.canonical, false, false});
        else
          result.params.push_back(
              {p.name, p.canonical, p.kwargOnly, p.hasDefault});
      }
    } else {
      for (const SchemaParam &p : schema->params)
        result.params.push_back({p.name, p.name, p.kwargOnly, p.hasDefault});
    }
    // Parameters the alias binds itself (`relu6`'s bounds) are not passed.
    if (alias)
      for (auto &[canonical, value] : alias->bindings)
        llvm::erase_if(result.params, [&](const TargetParam &p) {
          return p.canonical == canonical && p.hasDefault;
        });
    results.push_back(std::move(result));
  }
  return results;
}

/// True if two literals are equal, ints and floats compared by value
/// (`hardtanh`'s default `-1` is the `-1.0` a call passes).
bool isSameLiteral(Attribute a, Attribute b) {
  if (a == b)
    return true;
  auto number = [](Attribute x) -> std::optional<double> {
    if (isa_and_nonnull<BoolAttr>(x))
      return std::nullopt;
    if (auto i = dyn_cast_or_null<IntegerAttr>(x))
      return double(i.getInt());
    if (auto f = dyn_cast_or_null<FloatAttr>(x))
      return f.getValueAsDouble();
    return std::nullopt;
  };
  std::optional<double> x = number(a), y = number(b);
  return x && y && *x == *y;
}

/// The planned replacement of one node.
struct Replacement {
  std::unique_ptr<BoundCall> call;
  SmallVector<Attribute> args, keys, kwargValues;
  /// Args whose value is module state: (is a kwarg, index, state name).
  SmallVector<std::tuple<bool, unsigned, std::string>> stateArgs;
};

struct ReplaceTargetPass
    : public mlir::fx::impl::FXReplaceTargetBase<ReplaceTargetPass> {
  using Base::Base;

  void runOnOperation() override {
    Operation *root = getOperation();
    std::vector<ResolvedTarget> sources = resolveTarget(from);
    std::vector<ResolvedTarget> replacements = resolveTarget(to);
    if (from.empty() || to.empty()) {
      root->emitError("fx-replace-target needs both 'from' and 'to'");
      return signalPassFailure();
    }
    for (auto [name, resolved] : {std::make_pair(StringRef(from), &sources),
                                  std::make_pair(StringRef(to), &replacements)})
      if (resolved->empty()) {
        root->emitError() << "fx-replace-target: unknown target '" << name
                          << "' (not a call_function target or operator the "
                             "target registry knows)";
        return signalPassFailure();
      }
    source = sources.front().op;
    replacement = std::move(replacements);
    // Check every replacement first: an error leaves the IR unchanged.
    SmallVector<Operation *> nodes;
    bool ok = true;
    root->walk([&](Operation *op) {
      if (!isa<CallFunctionOp, CallMethodOp, CallModuleOp>(op))
        return;
      std::unique_ptr<BoundCall> call = bindNode(op);
      if (!call || call->schema->name != source)
        return;
      Replacement plan;
      if (failed(planCall(op, *call, plan)))
        ok = false;
      nodes.push_back(op);
    });
    if (!ok)
      return signalPassFailure();
    // Bind again when rewriting: an earlier replacement may have replaced
    // this node's inputs.
    for (Operation *op : nodes) {
      Replacement plan;
      plan.call = bindNode(op);
      if (!plan.call || failed(planCall(op, *plan.call, plan)))
        return signalPassFailure();
      auto graph = op->getParentOfType<GraphOp>();
      GraphBuilder gb(graph);
      SmallVector<Value> values(plan.call->operands.begin(),
                                plan.call->operands.end());
      for (auto &[isKwarg, index, state] : plan.stateArgs) {
        values.push_back(gb.readState(state, op));
        (isKwarg ? plan.kwargValues : plan.args)[index] =
            NodeAttr::get(&getContext(), values.size() - 1);
      }
      // An in-place call wrote its input: later readers read the result.
      Value mutated = getInplaceInput(op);
      auto node = cast<NodeOpInterface>(op);
      CallFunctionOp call =
          gb.call(op, node.getNodeName(), to, plan.args, plan.keys,
                  plan.kwargValues, values, op->getResult(0).getType());
      replaceNode(op, call.getResult());
      if (mutated)
        mutated.replaceUsesWithIf(call.getResult(), [&](OpOperand &use) {
          return call->isBeforeInBlock(use.getOwner());
        });
    }
  }

  /// Binds `call`'s canonical args to the parameters of one way of calling
  /// `to`: the way of the call's own overload (`aten::add.int` becomes
  /// `aten::mul.int`), else the first that takes the call's arguments. On
  /// failure, the error of the first way tried.
  LogicalResult planCall(Operation *op, const BoundCall &call,
                         Replacement &plan) {
    std::vector<const ResolvedTarget *> order;
    for (const ResolvedTarget &way : replacement)
      if (way.overload == call.schema->overload)
        order.push_back(&way);
    for (const ResolvedTarget &way : replacement)
      if (way.overload != call.schema->overload)
        order.push_back(&way);
    std::string firstError;
    for (const ResolvedTarget *way : order) {
      Replacement attempt;
      std::string error = tryPlan(call, *way, attempt);
      if (error.empty()) {
        plan.args = std::move(attempt.args);
        plan.keys = std::move(attempt.keys);
        plan.kwargValues = std::move(attempt.kwargValues);
        plan.stateArgs = std::move(attempt.stateArgs);
        return success();
      }
      if (firstError.empty())
        firstError = std::move(error);
    }
    auto node = cast<NodeOpInterface>(op);
    return op->emitError() << "fx-replace-target: " << node.getOpcode() << " "
                           << getNodeLabel(op) << ": " << firstError;
  }

  /// Binds `call`'s canonical args to the parameters of `target` by name
  /// into `plan`; returns why it cannot, or "".
  std::string tryPlan(const BoundCall &call, const ResolvedTarget &target,
                      Replacement &plan) {
    MLIRContext *ctx = &getContext();
    llvm::StringMap<unsigned> byName;
    for (auto [i, p] : llvm::enumerate(call.schema->params))
      byName[p.name] = i;
    llvm::DenseSet<unsigned> used;
    bool positional = true;
    for (const TargetParam &p : target.params) {
      auto it = byName.find(p.canonical);
      if (it == byName.end() &&
          (p.canonical == "input" || p.canonical == "self"))
        it = byName.find(p.canonical == "input" ? "self" : "input");
      if (it == byName.end()) {
        if (p.hasDefault) {
          positional = false;
          continue;
        }
        return "'" + to + "' needs the argument '" + p.name +
               "', which a call of '" + from + "' does not have";
      }
      used.insert(it->second);
      const BoundArg &arg = call.args[it->second];
      Attribute value = arg.value ? arg.value : Attribute(NoneAttr::get(ctx));
      bool isKwarg = !positional || p.kwargOnly;
      if (!arg.stateName.empty())
        plan.stateArgs.push_back(
            {isKwarg,
             unsigned(isKwarg ? plan.kwargValues.size() : plan.args.size()),
             arg.stateName});
      if (!isKwarg) {
        plan.args.push_back(value);
      } else {
        positional = false;
        plan.keys.push_back(StringAttr::get(ctx, p.name));
        plan.kwargValues.push_back(value);
      }
    }
    // An argument `to` has no place for must hold its default.
    for (auto [i, p] : llvm::enumerate(call.schema->params)) {
      if (used.contains(i))
        continue;
      const BoundArg &arg = call.args[i];
      Attribute def =
          p.hasDefault ? parseLiteral(ctx, p.defaultValue, &p.type) : nullptr;
      if (arg.stateName.empty() && def && isSameLiteral(def, arg.value))
        continue;
      return "'" + to + "' has no parameter for '" + p.name + "'";
    }
    return "";
  }

  /// The canonical operator `from` names, and the ways to call `to`.
  std::string source;
  std::vector<ResolvedTarget> replacement;
};

} // namespace
