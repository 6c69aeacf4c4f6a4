//===- Cleanup.cpp - Dead nodes, common nodes, redundant views, names -----===//
//
// fx-dce, fx-cse, fx-canonicalize and fx-rename: the passes that tidy a
// graph after other rewrites, as Graph.eliminate_dead_code(), CSE and
// torch.fx's naming rules do for Python graphs.
//
//===----------------------------------------------------------------------===//

#include "fx-mlir/Dialect/FX/IR/FXAttrs.h"
#include "fx-mlir/Dialect/FX/IR/FXTypes.h"
#include "fx-mlir/Dialect/FX/Registry/Registry.h"
#include "fx-mlir/Dialect/FX/Transforms/GraphBuilder.h"
#include "fx-mlir/Dialect/FX/Transforms/Passes.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::fx {
#define GEN_PASS_DEF_FXDEADNODEELIMINATION
#define GEN_PASS_DEF_FXCSE
#define GEN_PASS_DEF_FXCANONICALIZE
#define GEN_PASS_DEF_FXRENAME
#include "fx-mlir/Dialect/FX/Transforms/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;
using namespace mlir::fx;

//===----------------------------------------------------------------------===//
// Dead nodes
//===----------------------------------------------------------------------===//

unsigned mlir::fx::eliminateDeadNodes(GraphOp graph) {
  unsigned erased = 0;
  Block &body = graph.getBody().front();
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
    if (op.getNumResults() == 1 && op.use_empty() && isPureNode(&op)) {
      op.erase();
      ++erased;
    }
  return erased;
}

namespace {
struct DeadNodeEliminationPass
    : public mlir::fx::impl::FXDeadNodeEliminationBase<
          DeadNodeEliminationPass> {
  using Base::Base;
  void runOnOperation() override {
    getOperation()->walk([&](GraphOp graph) { eliminateDeadNodes(graph); });
    if (removeUnusedState)
      getOperation()->walk(
          [&](GraphModuleOp module) { eraseUnusedStateAndSubmodules(module); });
  }
};
} // namespace

//===----------------------------------------------------------------------===//
// Common nodes
//===----------------------------------------------------------------------===//

namespace {
/// What makes two nodes compute the same value: everything but the name.
struct NodeKey {
  Operation *op;
};
struct NodeKeyInfo : llvm::DenseMapInfo<NodeKey> {
  static NodeKey getEmptyKey() {
    return {llvm::DenseMapInfo<Operation *>::getEmptyKey()};
  }
  static NodeKey getTombstoneKey() {
    return {llvm::DenseMapInfo<Operation *>::getTombstoneKey()};
  }
  static bool isSentinel(const NodeKey &k) {
    return k.op == getEmptyKey().op || k.op == getTombstoneKey().op;
  }
  static unsigned getHashValue(const NodeKey &k) {
    Operation *op = k.op;
    llvm::hash_code h = llvm::hash_combine(
        op->getName(), op->getResult(0).getType(),
        llvm::hash_combine_range(op->operand_begin(), op->operand_end()));
    for (NamedAttribute a : op->getAttrs())
      if (a.getName() != "node_name")
        h = llvm::hash_combine(h, a.getName(), a.getValue());
    return h;
  }
  static bool isEqual(const NodeKey &a, const NodeKey &b) {
    if (isSentinel(a) || isSentinel(b))
      return a.op == b.op;
    Operation *x = a.op, *y = b.op;
    if (x->getName() != y->getName() ||
        x->getResult(0).getType() != y->getResult(0).getType() ||
        x->getOperands() != y->getOperands())
      return false;
    auto attrs = [](Operation *op) {
      SmallVector<NamedAttribute> r;
      for (NamedAttribute a : op->getAttrs())
        if (a.getName() != "node_name")
          r.push_back(a);
      return r;
    };
    return attrs(x) == attrs(y);
  }
};
} // namespace

/// The values an in-place call overwrites, with the tensors they are views
/// of: merging such a node with another would share the update.
/// The tensor `op` writes, or null: getInplaceInput's (`inplace=True`,
/// `x += y`, an in-place module), an in-place operator by PyTorch's naming
/// (a trailing underscore: `p.add_(1)`, `torch.relu_(p)`, `p.copy_(q)`,
/// `aten::add_.Tensor`, `torch.ops.aten.mul_.Scalar`), or
/// `operator.setitem` (`p[0] = v`): its first argument.
static Value getWrittenInput(Operation *op) {
  if (Value input = getInplaceInput(op))
    return input;
  if (!isa<CallFunctionOp, CallMethodOp>(op))
    return {};
  auto node = cast<NodeOpInterface>(op);
  ArrayAttr args = node.getArgs();
  if (args.empty() || !isa<NodeAttr>(args[0]))
    return {};
  Value first = op->getOperand(cast<NodeAttr>(args[0]).getIndex());
  StringRef name;
  if (auto method = dyn_cast<CallMethodOp>(op)) {
    name = method.getTarget();
  } else {
    StringRef target = cast<CallFunctionOp>(op).getTarget();
    if (target == "operator.setitem")
      return first;
    if (target.consume_front("aten::") ||
        target.consume_front("torch.ops.aten."))
      name = target.split('.').first;
    else
      name = target.rsplit('.').second;
  }
  return isInplaceName(name) ? first : Value();
}

/// The tensor a node of `v` shares memory with, or null: the input of a
/// view (`Tensor(a) self -> Tensor(a)`: `p.narrow(...)`, `p.detach()`,
/// `p.T`), and of an item of a list of views (`p.chunk(2)[0]`,
/// `p.unbind()[1]`).
static Value getViewedValue(Value v) {
  Operation *op = v.getDefiningOp();
  if (!op)
    return {};
  if (auto call = dyn_cast<CallFunctionOp>(op);
      call && call.getTarget() == "operator.getitem") {
    ArrayAttr args = call.getArgs();
    if (args.empty() || !isa<NodeAttr>(args[0]))
      return {};
    Value list = op->getOperand(cast<NodeAttr>(args[0]).getIndex());
    if (std::unique_ptr<BoundCall> source = bindNode(list.getDefiningOp()))
      if (StringRef(source->schema->text).contains("-> Tensor(a)[]"))
        return getBoundValue(*source, 0);
    return {};
  }
  // A tensor attribute that is a view (`p.T`, `p.mT`, `p.real`, `p.data`).
  if (auto call = dyn_cast<CallFunctionOp>(op);
      call && call.getTarget() == "builtins.getattr") {
    ArrayAttr args = call.getArgs();
    if (args.size() == 2 && isa<NodeAttr>(args[0]))
      if (auto field = dyn_cast<StringAttr>(args[1]))
        if (llvm::is_contained({"T", "mT", "H", "mH", "real", "imag", "data"},
                               field.getValue()))
          return op->getOperand(cast<NodeAttr>(args[0]).getIndex());
    return {};
  }
  if (std::unique_ptr<BoundCall> call = bindNode(op))
    if (StringRef(call->schema->text).contains("-> Tensor(a)"))
      return getBoundValue(*call, 0);
  return {};
}

static llvm::DenseSet<Value> getOverwrittenValues(GraphOp graph) {
  llvm::DenseSet<Value> overwritten;
  SmallVector<Value> worklist;
  for (Operation &op : graph.getBody().front())
    if (Value input = getWrittenInput(&op))
      worklist.push_back(input);
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    if (!overwritten.insert(v).second)
      continue;
    // A view shares its input's memory: a write into it writes the input.
    if (Value source = getViewedValue(v))
      worklist.push_back(source);
  }
  return overwritten;
}

unsigned mlir::fx::eliminateCommonNodes(GraphOp graph) {
  unsigned merged = 0;
  llvm::DenseMap<NodeKey, Operation *, NodeKeyInfo> seen;
  llvm::DenseSet<Value> overwritten = getOverwrittenValues(graph);
  Block &body = graph.getBody().front();
  for (Operation &op : llvm::make_early_inc_range(body)) {
    if (isa<PlaceholderOp, OutputOp>(op) || op.getNumResults() != 1 ||
        overwritten.contains(op.getResult(0)))
      continue;
    if (!isPureNode(&op)) {
      // It may have changed what earlier nodes read.
      seen.clear();
      continue;
    }
    auto [it, inserted] = seen.try_emplace(NodeKey{&op}, &op);
    if (inserted)
      continue;
    replaceNode(&op, it->second->getResult(0));
    ++merged;
  }
  return merged;
}

namespace {
struct CSEPass : public mlir::fx::impl::FXCSEBase<CSEPass> {
  void runOnOperation() override {
    getOperation()->walk([&](GraphOp graph) { eliminateCommonNodes(graph); });
  }
};
} // namespace

//===----------------------------------------------------------------------===//
// Redundant views, transposes and identities
//===----------------------------------------------------------------------===//

namespace {

std::optional<int64_t> rankOf(Value v) {
  if (auto t = dyn_cast<RankedTensorType>(v.getType()))
    return t.getRank();
  return std::nullopt;
}

/// The permutation a permute/transpose/t node applies (result dim i is
/// input dim perm[i]), when known.
std::optional<SmallVector<int64_t>> getPermutation(const BoundCall &call,
                                                   Value input, Value result) {
  StringRef name = call.schema->name;
  std::optional<int64_t> rank = rankOf(input);
  if (!rank)
    rank = rankOf(result);
  auto norm = [&](int64_t d) { return d < 0 ? d + *rank : d; };
  if (name == "aten::permute") {
    auto list = dyn_cast_or_null<ListAttr>(call.args[1].value);
    if (!list)
      return std::nullopt;
    if (!rank)
      rank = list.getElements().size();
    SmallVector<int64_t> perm;
    for (Attribute e : list.getElements()) {
      auto i = dyn_cast<IntegerAttr>(e);
      if (!i)
        return std::nullopt;
      perm.push_back(norm(i.getInt()));
    }
    return perm;
  }
  if (!rank)
    return std::nullopt;
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, *rank));
  if (name == "aten::t") {
    if (*rank == 2)
      std::swap(perm[0], perm[1]);
    return perm;
  }
  if (name == "aten::transpose") {
    std::optional<int64_t> a = getBoundInt(call, 1), b = getBoundInt(call, 2);
    if (!a || !b || norm(*a) < 0 || norm(*a) >= *rank || norm(*b) < 0 ||
        norm(*b) >= *rank)
      return std::nullopt;
    std::swap(perm[norm(*a)], perm[norm(*b)]);
    return perm;
  }
  return std::nullopt;
}

bool isIdentity(ArrayRef<int64_t> perm) {
  for (auto [i, p] : llvm::enumerate(perm))
    if (int64_t(i) != p)
      return false;
  return true;
}

bool isReshapeLike(StringRef name) {
  return name == "aten::view" || name == "aten::reshape" ||
         name == "aten::flatten" || name == "aten::unsqueeze" ||
         name == "aten::squeeze";
}

/// True if `v` is known to be a contiguous tensor in PyTorch, so that
/// `contiguous()` of it is a no-op also in exported code.
bool isKnownContiguous(Value v, unsigned depth = 0) {
  Operation *def = v.getDefiningOp();
  if (!def || depth > 8)
    return false;
  if (isa<GetAttrOp>(def))
    return true; // state tensors are built contiguous
  if (auto call = dyn_cast<CallFunctionOp>(def))
    if (call.getTarget().starts_with("fx_mlir.fused."))
      return true;
  std::unique_ptr<BoundCall> call = bindNode(def);
  if (!call)
    return false;
  StringRef name = call->schema->name;
  // Ops whose result is a new contiguous tensor whatever their inputs'
  // layout (conv, pooling, softmax, cat and clone keep a channels-last
  // or transposed input's layout, so they are not among them).
  static const char *fresh[] = {
      "aten::linear", "aten::matmul",    "aten::mm",        "aten::bmm",
      "aten::addmm",  "aten::embedding", "aten::layer_norm"};
  if (llvm::is_contained(fresh, name))
    return true;
  if (name == "aten::contiguous") {
    auto format = dyn_cast_or_null<MemoryFormatAttr>(call->args[1].value);
    return !format || format.getName() == "contiguous_format";
  }
  // Contiguous when their first input is: the result takes its layout.
  static const char *followFirst[] = {
      "aten::relu",      "aten::gelu",        "aten::sigmoid",
      "aten::tanh",      "aten::silu",        "aten::hardtanh",
      "aten::hardswish", "aten::dropout",     "aten::batch_norm",
      "aten::view",      "aten::reshape",     "aten::flatten",
      "aten::unsqueeze", "aten::squeeze",     "aten::conv1d",
      "aten::conv2d",    "aten::max_pool2d",  "aten::avg_pool2d",
      "aten::softmax",   "aten::log_softmax", "aten::adaptive_avg_pool2d"};
  // Contiguous when all their tensor inputs are.
  static const char *followAll[] = {"aten::add", "aten::sub", "aten::mul",
                                    "aten::div"};
  if (llvm::is_contained(followFirst, name)) {
    Value input = getBoundValue(*call, 0);
    return input && isKnownContiguous(input, depth + 1);
  }
  if (!llvm::is_contained(followAll, name))
    return false;
  bool any = false;
  for (unsigned i = 0; i < call->args.size(); ++i)
    if (Value input = getBoundValue(*call, i))
      if (isa<TensorType>(input.getType())) {
        if (!isKnownContiguous(input, depth + 1))
          return false;
        any = true;
      }
  return any;
}

/// One rewrite of `op`, if one applies: its result is replaced and `op`
/// erased. Producers that lose their last user are collected in `dead`.
bool canonicalizeNode(GraphBuilder &gb, Operation *op,
                      SmallVectorImpl<Operation *> &dead) {
  std::unique_ptr<BoundCall> call = bindNode(op);
  if (!call)
    return false;
  MLIRContext *ctx = op->getContext();
  StringRef name = call->schema->name;
  Value input = getBoundValue(*call, 0);
  Value result = op->getResult(0);
  if (!input || !isa<TensorType, AnyType>(input.getType()))
    return false;
  auto replaceWith = [&](Value v) {
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp())
        dead.push_back(def);
    replaceNode(op, v);
    return true;
  };
  auto sameStaticShape = [&] {
    auto a = dyn_cast<RankedTensorType>(input.getType());
    auto b = dyn_cast<RankedTensorType>(result.getType());
    return a && b && a.hasStaticShape() && a == b;
  };

  // Identities.
  if (name == "aten::contiguous" && isKnownContiguous(input)) {
    Attribute format = call->args[1].value;
    auto named = dyn_cast_or_null<MemoryFormatAttr>(format);
    if (!format || isa<NoneAttr>(format) ||
        (named && named.getName() == "contiguous_format") ||
        getBoundInt(*call, 1) == 0)
      return replaceWith(input);
    return false;
  }
  if (name == "aten::dropout" || name == "aten::feature_dropout" ||
      name == "aten::alpha_dropout" || name == "aten::feature_alpha_dropout") {
    auto train = dyn_cast_or_null<BoolAttr>(call->args[2].value);
    if (train && !train.getValue())
      return replaceWith(input);
    return false;
  }
  if ((name == "aten::view" || name == "aten::reshape" ||
       name == "aten::expand" || name == "aten::view_as" ||
       name == "aten::expand_as") &&
      sameStaticShape())
    return replaceWith(input);
  if (name == "aten::flatten") {
    std::optional<int64_t> s = getBoundInt(*call, 1), e = getBoundInt(*call, 2);
    std::optional<int64_t> rank = rankOf(input);
    if (s && e && rank &&
        (*s < 0 ? *s + *rank : *s) == (*e < 0 ? *e + *rank : *e))
      return replaceWith(input);
  }

  // Permutation chains.
  if (name == "aten::permute" || name == "aten::transpose" ||
      name == "aten::t") {
    std::optional<SmallVector<int64_t>> outer =
        getPermutation(*call, input, result);
    if (!outer)
      return false;
    if (isIdentity(*outer))
      return replaceWith(input);
    std::unique_ptr<BoundCall> inner = bindNode(input.getDefiningOp());
    if (!inner)
      return false;
    StringRef innerName = inner->schema->name;
    if (innerName != "aten::permute" && innerName != "aten::transpose" &&
        innerName != "aten::t")
      return false;
    Value source = getBoundValue(*inner, 0);
    if (!source)
      return false;
    std::optional<SmallVector<int64_t>> first =
        getPermutation(*inner, source, input);
    if (!first || first->size() != outer->size())
      return false;
    SmallVector<int64_t> composed;
    for (int64_t p : *outer)
      composed.push_back((*first)[p]);
    if (isIdentity(composed))
      return replaceWith(source);
    SmallVector<Attribute> dims;
    for (int64_t d : composed)
      dims.push_back(IntegerAttr::get(IntegerType::get(ctx, 64), d));
    std::string nodeName = cast<NodeOpInterface>(op).getNodeName().str();
    CallFunctionOp permute =
        gb.call(op, nodeName, "aten::permute",
                {NodeAttr::get(ctx, 0), ListAttr::get(ctx, dims)}, {}, {},
                {source}, result.getType());
    return replaceWith(permute.getResult());
  }

  // A flatten of a reshape: one reshape to the (static) result shape.
  if (name == "aten::flatten") {
    auto type = dyn_cast<RankedTensorType>(result.getType());
    std::unique_ptr<BoundCall> inner = bindNode(input.getDefiningOp());
    Value source = inner ? getBoundValue(*inner, 0) : Value();
    if (!type || !type.hasStaticShape() || !inner ||
        !isReshapeLike(inner->schema->name) || !source)
      return false;
    SmallVector<Attribute> sizes;
    for (int64_t d : type.getShape())
      sizes.push_back(IntegerAttr::get(IntegerType::get(ctx, 64), d));
    std::string nodeName = cast<NodeOpInterface>(op).getNodeName().str();
    CallFunctionOp reshape =
        gb.call(op, nodeName, "aten::reshape",
                {NodeAttr::get(ctx, 0), ListAttr::get(ctx, sizes)}, {}, {},
                {source}, result.getType());
    return replaceWith(reshape.getResult());
  }

  // Reshape chains: the outer view/reshape decides the final shape.
  if (name == "aten::view" || name == "aten::reshape") {
    std::unique_ptr<BoundCall> inner = bindNode(input.getDefiningOp());
    if (!inner || !isReshapeLike(inner->schema->name))
      return false;
    Value source = getBoundValue(*inner, 0);
    if (!source || !call->args[1].value)
      return false;
    bool bothViews =
        name == "aten::view" && inner->schema->name == "aten::view";
    SmallVector<Value> values(call->operands.begin(), call->operands.end());
    values.push_back(source);
    std::string nodeName = cast<NodeOpInterface>(op).getNodeName().str();
    CallFunctionOp reshape =
        gb.call(op, nodeName, bothViews ? "aten::view" : "aten::reshape",
                {NodeAttr::get(ctx, values.size() - 1), call->args[1].value},
                {}, {}, values, result.getType());
    return replaceWith(reshape.getResult());
  }
  return false;
}

/// Erases the ops of `candidates` and then their producers while they
/// are pure and unused; each op at most once (a candidate may be another's
/// producer, or listed twice).
void eraseDeadNodes(ArrayRef<Operation *> candidates) {
  llvm::DenseSet<Operation *> erased;
  SmallVector<Operation *> worklist(candidates.begin(), candidates.end());
  while (!worklist.empty()) {
    Operation *next = worklist.pop_back_val();
    if (erased.contains(next) || next->getNumResults() != 1 ||
        !next->use_empty() || !isPureNode(next))
      continue;
    for (Value operand : next->getOperands())
      if (Operation *def = operand.getDefiningOp())
        worklist.push_back(def);
    erased.insert(next);
    next->erase();
  }
}

} // namespace

unsigned mlir::fx::canonicalizeGraph(GraphOp graph) {
  GraphBuilder gb(graph);
  unsigned rewritten = 0;
  // Sweeps over the nodes until one rewrites nothing. A rewrite replaces
  // and erases its node only; the producers it leaves unused are erased
  // after the sweep, so the sweep never meets an erased op, and each sweep
  // is linear in the graph (restarting after every rewrite made the pass
  // quadratic).
  for (bool changed = true; changed;) {
    changed = false;
    SmallVector<Operation *> dead;
    llvm::DenseSet<Operation *> deadSet;
    // A reshape may copy (of a transposed input) or view: folding one
    // into another, or away, changes what a later in-place write reaches
    // (`t.reshape(6).view(3, 2).add_(1)` writes a copy of t, not t). Nodes
    // whose input or result is written, directly or through a view, stay.
    llvm::DenseSet<Value> overwritten = getOverwrittenValues(graph);
    auto written = [&](Operation *op) {
      return llvm::any_of(op->getResults(),
                          [&](Value v) { return overwritten.contains(v); }) ||
             llvm::any_of(op->getOperands(),
                          [&](Value v) { return overwritten.contains(v); });
    };
    for (Operation *op : getCallNodes(graph)) {
      if (deadSet.contains(op) || written(op))
        continue;
      size_t before = dead.size();
      if (!canonicalizeNode(gb, op, dead))
        continue;
      changed = true;
      ++rewritten;
      deadSet.insert(dead.begin() + before, dead.end());
    }
    eraseDeadNodes(dead);
  }
  return rewritten;
}

namespace {
struct CanonicalizePass
    : public mlir::fx::impl::FXCanonicalizeBase<CanonicalizePass> {
  void runOnOperation() override {
    SymbolLookupCache symbols;
    getOperation()->walk([&](GraphOp graph) { canonicalizeGraph(graph); });
  }
};
} // namespace

//===----------------------------------------------------------------------===//
// Names
//===----------------------------------------------------------------------===//

namespace {

/// torch.fx's `_snake_case`: `BatchNorm2d` -> `batch_norm2d`.
std::string snakeCase(StringRef s) {
  std::string r;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (isupper(static_cast<unsigned char>(c))) {
      if (i > 0 && !isupper(static_cast<unsigned char>(s[i - 1])))
        r += '_';
      r += char(tolower(static_cast<unsigned char>(c)));
    } else {
      r += c;
    }
  }
  return r;
}

/// The readable base name of a node.
std::string baseName(Operation *op) {
  if (auto p = dyn_cast<PlaceholderOp>(op)) {
    StringRef target = p.getTarget();
    return target.ltrim('*').str();
  }
  if (isa<OutputOp>(op))
    return "output";
  if (auto g = dyn_cast<GetAttrOp>(op))
    return g.getTarget().str();
  if (auto m = dyn_cast<CallModuleOp>(op))
    return m.getTarget().str();
  if (auto m = dyn_cast<CallMethodOp>(op))
    return m.getTarget().str();
  auto call = cast<CallFunctionOp>(op);
  StringRef target = call.getTarget();
  std::string base;
  if (target.contains("::")) {
    // aten::add.Tensor -> add
    StringRef op = target.split("::").second;
    base = op.split('.').first.str();
  } else {
    base = snakeCase(
        target.rsplit('.').second.empty() ? target : target.rsplit('.').second);
  }
  if (target.starts_with("fx_mlir.fused."))
    if (auto act =
            dyn_cast_or_null<StringAttr>(call.getKwargs().lookup("activation")))
      base += "_" + act.getValue().str();
  return base;
}

struct RenamePass : public mlir::fx::impl::FXRenameBase<RenamePass> {
  void runOnOperation() override {
    getOperation()->walk([&](GraphOp graph) { renameNodes(graph); });
  }
};

} // namespace

void mlir::fx::renameNodes(GraphOp graph) {
  // Python keywords, and names exported code defines or imports.
  static const char *reserved[] = {
      "False",    "None",     "True",    "and",    "as",       "assert",
      "async",    "await",    "break",   "class",  "continue", "def",
      "del",      "elif",     "else",    "except", "finally",  "for",
      "from",     "global",   "if",      "import", "in",       "is",
      "lambda",   "nonlocal", "not",     "or",     "pass",     "raise",
      "return",   "try",      "while",   "with",   "yield",    "torch",
      "self",     "inf",      "nan",     "device", "fx_mlir",  "builtins",
      "operator", "math",     "getattr", "print",  "list",     "dict",
      "tuple",    "int",      "float",   "bool",   "str",      "slice"};
  llvm::StringSet<> used;
  for (const char *r : reserved)
    used.insert(r);
  auto sanitize = [](std::string name) {
    for (char &c : name)
      if (!isalnum(static_cast<unsigned char>(c)) && c != '_')
        c = '_';
    if (name.empty() || isdigit(static_cast<unsigned char>(name[0])))
      name = "_" + name;
    return name;
  };
  // Placeholders first: their names are the parameters of forward().
  SmallVector<Operation *> order;
  for (Operation &op : graph.getBody().front())
    if (isa<PlaceholderOp>(op))
      order.push_back(&op);
  for (Operation &op : graph.getBody().front())
    if (isa<NodeOpInterface>(op) && !isa<PlaceholderOp>(op))
      order.push_back(&op);
  for (Operation *op : order) {
    std::string base = sanitize(baseName(op));
    std::string name = base;
    for (unsigned i = 1; !used.insert(name).second; ++i)
      name = base + "_" + std::to_string(i);
    if (cast<NodeOpInterface>(op).getNodeName() != name)
      setNodeName(op, name);
  }
}
