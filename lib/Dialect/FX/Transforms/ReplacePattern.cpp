//===- ReplacePattern.cpp - Subgraph rewriting with fx graph patterns -----===//
//
// fx-replace-pattern: torch.fx.subgraph_rewriter.replace_pattern on the fx
// dialect. The pattern and the replacement are fx graphs read from a file;
// matches are anchored at the pattern's outputs, found in graph order,
// non-overlapping, and closed (no node inside a match is used outside it).
//
//===----------------------------------------------------------------------===//

#include "fx-mlir/Dialect/FX/IR/FXAttrs.h"
#include "fx-mlir/Dialect/FX/IR/FXLocation.h"
#include "fx-mlir/Dialect/FX/IR/FXTypes.h"
#include "fx-mlir/Dialect/FX/Transforms/GraphBuilder.h"
#include "fx-mlir/Dialect/FX/Transforms/Passes.h"
#include "fx-mlir/Support/ParseText.h"

#include "mlir/Analysis/TopologicalSortUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::fx {
#define GEN_PASS_DEF_FXREPLACEPATTERN
#include "fx-mlir/Dialect/FX/Transforms/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;
using namespace mlir::fx;

namespace {

/// A pattern or replacement graph, taken apart.
struct PatternGraph {
  GraphOp graph;
  SmallVector<PlaceholderOp> inputs;
  /// The returned values, in print order of the output's args.
  SmallVector<Value> outputs;
};

/// One match: pattern op -> graph op, pattern placeholder -> graph value.
struct Match {
  llvm::DenseMap<Operation *, Operation *> ops;
  llvm::DenseMap<Value, Value> inputs;
};

/// The node name of `v`'s producer, or "".
StringRef nameOf(Value v) {
  if (auto node = v.getDefiningOp<NodeOpInterface>())
    return node.getNodeName();
  return "";
}

/// `attr` with every node reference replaced by #fx.node<0>, so that two
/// args compare equal when they differ only in what they reference.
Attribute eraseRefs(Attribute attr) {
  return replaceNodeRefs(attr, [&](NodeAttr ref) -> Attribute {
    return NodeAttr::get(ref.getContext(), 0);
  });
}

/// The node references of `attr`, in print order.
SmallVector<unsigned> refsOf(Attribute attr) {
  SmallVector<unsigned> refs;
  walkNodeRefs(attr, [&](NodeAttr ref) { refs.push_back(ref.getIndex()); });
  return refs;
}

class Matcher {
public:
  explicit Matcher(const PatternGraph &pattern) : pattern(pattern) {}

  /// Matches pattern value `p` against graph value `g`, extending `m`.
  bool matchValue(Value p, Value g, Match &m) {
    if (auto input = p.getDefiningOp<PlaceholderOp>()) {
      auto [it, inserted] = m.inputs.try_emplace(p, g);
      return inserted || it->second == g;
    }
    Operation *pOp = p.getDefiningOp();
    Operation *gOp = g.getDefiningOp();
    if (!pOp || !gOp)
      return false;
    auto known = m.ops.find(pOp);
    if (known != m.ops.end())
      return known->second == gOp;
    if (pOp->getName() != gOp->getName() || !isa<NodeOpInterface>(gOp) ||
        isa<PlaceholderOp>(gOp))
      return false;
    auto pNode = cast<NodeOpInterface>(pOp), gNode = cast<NodeOpInterface>(gOp);
    if (pNode.getTargetName() != gNode.getTargetName())
      return false;
    // Literal args must be equal; node args must match in turn.
    SmallVector<std::pair<Attribute, Attribute>> parts = {
        {pNode.getArgs(), gNode.getArgs()},
        {pNode.getKwargs(), gNode.getKwargs()}};
    for (auto [pa, ga] : parts)
      if (eraseRefs(pa) != eraseRefs(ga))
        return false;
    m.ops[pOp] = gOp;
    for (auto [pa, ga] : parts)
      for (auto [pi, gi] : llvm::zip_equal(refsOf(pa), refsOf(ga)))
        if (!matchValue(pOp->getOperand(pi), gOp->getOperand(gi), m))
          return false;
    return true;
  }

  /// Matches outputs `i...` given `m`; the first output is anchored at
  /// `anchor`, the others anywhere in `candidates`.
  bool matchOutputs(unsigned i, Operation *anchor,
                    ArrayRef<Operation *> candidates, Match &m) {
    if (i == pattern.outputs.size())
      return true;
    Value p = pattern.outputs[i];
    if (i == 0) {
      return matchValue(p, anchor->getResult(0), m) &&
             matchOutputs(1, anchor, candidates, m);
    }
    if (m.ops.lookup(p.getDefiningOp()))
      return matchOutputs(i + 1, anchor, candidates, m);
    for (Operation *candidate : candidates) {
      Match attempt = m;
      if (matchValue(p, candidate->getResult(0), attempt) &&
          matchOutputs(i + 1, anchor, candidates, attempt)) {
        m = std::move(attempt);
        return true;
      }
    }
    return false;
  }

private:
  const PatternGraph &pattern;
};

struct ReplacePatternPass
    : public mlir::fx::impl::FXReplacePatternBase<ReplacePatternPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *ctx) override {
    if (file.empty())
      return emitError(UnknownLoc::get(ctx))
             << "fx-replace-pattern needs 'file', the MLIR file holding the "
                "'pattern' and 'replacement' graphs";
    ParserConfig config(ctx);
    patternFile =
        std::make_shared<OwningOpRef<ModuleOp>>(parseModuleFile(file, config));
    patternModule = patternFile->get();
    if (!patternModule)
      return emitError(UnknownLoc::get(ctx))
             << "fx-replace-pattern: cannot parse '" << file << "'";
    if (failed(load("pattern", pattern)) ||
        failed(load("replacement", replacement)))
      return failure();
    Location loc = replacement.graph.getLoc();
    if (pattern.inputs.size() != replacement.inputs.size())
      return emitError(loc)
             << "fx-replace-pattern: the replacement takes "
             << replacement.inputs.size() << " inputs but the pattern takes "
             << pattern.inputs.size();
    if (pattern.outputs.size() != replacement.outputs.size())
      return emitError(loc)
             << "fx-replace-pattern: the replacement returns "
             << replacement.outputs.size() << " values but the pattern returns "
             << pattern.outputs.size();
    for (Value v : pattern.outputs)
      if (!v.getDefiningOp() || isa<PlaceholderOp>(v.getDefiningOp()))
        return emitError(pattern.graph.getLoc())
               << "fx-replace-pattern: every pattern output must be a node "
                  "other than a placeholder";
    return success();
  }

  /// Finds the graph `name` of the pattern file.
  LogicalResult load(StringRef name, PatternGraph &result) {
    Operation *symbol = SymbolTable::lookupSymbolIn(patternModule, name);
    GraphOp graph = dyn_cast_or_null<GraphOp>(symbol);
    if (auto module = dyn_cast_or_null<GraphModuleOp>(symbol))
      graph = module.getForward();
    if (!graph)
      return emitError(patternModule->getLoc())
             << "fx-replace-pattern: '" << file << "' has no fx.graph or "
             << "fx.graph_module named '" << name << "'";
    result.graph = graph;
    graph.getPlaceholders(result.inputs);
    OutputOp output = graph.getOutput();
    if (!output || output->getNumOperands() == 0)
      return emitError(graph.getLoc())
             << "fx-replace-pattern: the " << name
             << " graph has no output node returning a value";
    for (Value v : output->getOperands())
      result.outputs.push_back(v);
    return success();
  }

  void runOnOperation() override {
    llvm::json::Array matches;
    getOperation()->walk([&](GraphOp graph) {
      if (failed(rewriteGraph(graph, matches)))
        signalPassFailure();
    });
    if (report.empty())
      return;
    std::error_code ec;
    llvm::raw_fd_ostream os(report, ec);
    if (ec) {
      getOperation()->emitError() << "fx-replace-pattern: cannot write '"
                                  << report << "': " << ec.message();
      return signalPassFailure();
    }
    os << llvm::formatv("{0:2}", llvm::json::Value(std::move(matches))) << "\n";
  }

  /// The replacement's get_attr and call_module targets must exist where
  /// it is inserted.
  LogicalResult checkReplacementTargets(GraphOp graph) {
    auto module = graph->getParentOfType<GraphModuleOp>();
    for (Operation &op : replacement.graph.getBody().front()) {
      FlatSymbolRefAttr target;
      if (auto g = dyn_cast<GetAttrOp>(op))
        target = g.getTargetAttr();
      else if (auto c = dyn_cast<CallModuleOp>(op))
        target = c.getTargetAttr();
      if (target && (!module || !module.lookupTarget(target.getValue())))
        return graph->emitError()
               << "fx-replace-pattern: the replacement node '"
               << cast<NodeOpInterface>(op).getNodeName() << "' uses '"
               << target.getValue()
               << "', which the graph module does not have";
    }
    return success();
  }

  LogicalResult rewriteGraph(GraphOp graph, llvm::json::Array &report) {
    Matcher matcher(pattern);
    Block &body = graph.getBody().front();
    SmallVector<Operation *> candidates;
    for (Operation &op : body)
      if (isa<NodeOpInterface>(op) && !isa<PlaceholderOp, OutputOp>(op) &&
          op.getNumResults() == 1)
        candidates.push_back(&op);
    llvm::DenseSet<Operation *> claimed;
    std::vector<Match> matches;
    for (Operation *anchor : candidates) {
      if (claimed.contains(anchor))
        continue;
      Match m;
      if (!matcher.matchOutputs(0, anchor, candidates, m) ||
          !isClosed(m, claimed))
        continue;
      for (auto &[p, g] : m.ops)
        claimed.insert(g);
      matches.push_back(std::move(m));
    }
    if (matches.empty())
      return success();
    if (failed(checkReplacementTargets(graph)))
      return failure();
    GraphBuilder gb(graph);
    // A later match may read an output of an earlier one: follow the
    // replacements. The matched nodes are erased after the last match is
    // replaced, so that no value `replaced` holds is freed (a clone made
    // at its address would be taken for it).
    llvm::DenseMap<Value, Value> replaced;
    SmallVector<Operation *> erase;
    SmallVector<std::pair<Operation *, std::string>> renames;
    for (Match &m : matches) {
      for (auto &[p, g] : m.inputs)
        while (Value next = replaced.lookup(g))
          g = next;
      report.push_back(describe(m));
      replace(gb, graph, m, replaced, erase, renames);
    }
    llvm::sort(erase, [](Operation *a, Operation *b) {
      return b->isBeforeInBlock(a);
    });
    for (Operation *g : erase)
      g->erase();
    for (auto &[def, name] : renames)
      setNodeName(def, name);
    sortTopologically(&body);
    if (OutputOp output = graph.getOutput())
      output->moveBefore(&body, body.end());
    return success();
  }

  /// True if nothing outside the match uses its interior nodes, its
  /// inputs are not its own nodes, and it overlaps no earlier match.
  bool isClosed(const Match &m, const llvm::DenseSet<Operation *> &claimed) {
    llvm::DenseSet<Operation *> inside;
    for (auto &[p, g] : m.ops) {
      if (claimed.contains(g))
        return false;
      inside.insert(g);
    }
    for (auto &[p, g] : m.inputs)
      if (inside.contains(g.getDefiningOp()))
        return false;
    llvm::DenseSet<Operation *> outputs;
    for (Value v : pattern.outputs)
      outputs.insert(m.ops.lookup(v.getDefiningOp()));
    for (auto &[p, g] : m.ops) {
      if (outputs.contains(g))
        continue;
      for (Operation *user : g->getUsers())
        if (!inside.contains(user))
          return false;
    }
    return true;
  }

  llvm::json::Object describe(const Match &m) {
    llvm::json::Object nodes;
    for (Operation &op : pattern.graph.getBody().front()) {
      auto node = dyn_cast<NodeOpInterface>(op);
      if (!node || isa<OutputOp>(op))
        continue;
      StringRef graphName;
      if (auto input = dyn_cast<PlaceholderOp>(op))
        graphName = nameOf(m.inputs.lookup(input.getResult()));
      else if (Operation *g = m.ops.lookup(&op))
        graphName = cast<NodeOpInterface>(g).getNodeName();
      else
        continue;
      nodes[node.getNodeName()] = graphName.str();
    }
    Operation *anchor = m.ops.lookup(pattern.outputs[0].getDefiningOp());
    return llvm::json::Object{
        {"anchor", cast<NodeOpInterface>(anchor).getNodeName().str()},
        {"nodes_map", std::move(nodes)}};
  }

  void replace(GraphBuilder &gb, GraphOp graph, Match &m,
               llvm::DenseMap<Value, Value> &replaced,
               SmallVectorImpl<Operation *> &erase,
               SmallVectorImpl<std::pair<Operation *, std::string>> &renames) {
    // Insert before the last matched node: every input is defined by then.
    Operation *last = nullptr;
    for (auto &[p, g] : m.ops)
      if (!last || last->isBeforeInBlock(g))
        last = g;
    StringRef modulePath = getModulePath(last->getLoc());
    IRMapping mapping;
    for (auto [p, r] : llvm::zip(pattern.inputs, replacement.inputs)) {
      Value g = m.inputs.lookup(p.getResult());
      if (!g) // an unused pattern input: nothing in the graph stands for it
        continue;
      mapping.map(r.getResult(), g);
    }
    OpBuilder b(last);
    llvm::DenseSet<Operation *> copies;
    for (Operation &op : replacement.graph.getBody().front()) {
      if (isa<PlaceholderOp, OutputOp>(op))
        continue;
      Operation *copy = b.clone(op, mapping);
      copies.insert(copy);
      std::string name = gb.uniqueName(cast<NodeOpInterface>(op).getNodeName());
      copy->setAttr("node_name", b.getStringAttr(name));
      copy->setLoc(getNodeLoc(graph.getContext(), name, modulePath,
                              UnknownLoc::get(graph.getContext())));
    }
    // The replacement's outputs take over the users of the matched ones;
    // a copied node returned for an output takes the matched node's name.
    for (auto [p, r] : llvm::zip(pattern.outputs, replacement.outputs)) {
      Operation *matched = m.ops.lookup(p.getDefiningOp());
      Value newValue = mapping.lookupOrNull(r);
      if (!newValue)
        continue;
      Value oldValue = matched->getResult(0);
      Operation *def = newValue.getDefiningOp();
      // The graph's type is the better one when the replacement was
      // written without types.
      if (copies.contains(def) && isa<AnyType>(newValue.getType()))
        newValue.setType(oldValue.getType());
      oldValue.replaceAllUsesWith(newValue);
      replaced[oldValue] = newValue;
      if (copies.contains(def))
        renames.push_back(
            {def, cast<NodeOpInterface>(matched).getNodeName().str()});
    }
    for (auto &[p, g] : m.ops)
      erase.push_back(g);
  }

  /// Shared by the clones of the pass the pass manager makes.
  std::shared_ptr<OwningOpRef<ModuleOp>> patternFile;
  ModuleOp patternModule;
  PatternGraph pattern, replacement;
};

} // namespace
