//===- GraphBuilder.h - Building and editing nodes of fx graphs -*- C++ -*-===//
//
// The node-level toolkit the fx passes share: unique node names, reads of
// module state through reused `fx.get_attr` nodes, new `call_function`
// nodes whose args reference values by operand number, and the removal of
// state and submodules nothing uses any more.
//
//===----------------------------------------------------------------------===//

#ifndef FX_MLIR_DIALECT_FX_TRANSFORMS_GRAPHBUILDER_H
#define FX_MLIR_DIALECT_FX_TRANSFORMS_GRAPHBUILDER_H

#include "fx-mlir/Dialect/FX/IR/FXOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include <memory>
#include <optional>
#include <vector>

namespace mlir::fx {

struct BoundCall;

/// Builds nodes into one graph.
class GraphBuilder {
public:
  explicit GraphBuilder(GraphOp graph);

  MLIRContext *getContext() { return ctx; }
  GraphOp getGraph() { return graph; }

  /// A node name not used in the graph yet, made of `base` with characters
  /// Python identifiers cannot hold replaced by `_` and a `_N` suffix when
  /// taken (torch.fx's `Graph._target_to_str` + namespace rules).
  std::string uniqueName(StringRef base);
  /// Marks `name` as used.
  void reserveName(StringRef name) { names.insert(name); }

  /// Erases a node and remembers it, so a pass walking a node list it took
  /// before can skip it (isErased).
  void erase(Operation *op);
  bool isErased(Operation *op) const { return erased.contains(op); }

  /// The value of module state `path`, read by a get_attr before `before`
  /// (an existing read that dominates `before` is reused).
  Value readState(StringRef path, Operation *before);

  /// Creates `call_function target(args, kwargs)` before `before`, named
  /// `name`, located in `before`'s module. Node references in `args` and
  /// `kwargs` index `values`; they are renumbered in print order, as the
  /// op's operands.
  CallFunctionOp call(Operation *before, StringRef name, StringRef target,
                      ArrayRef<Attribute> args, ArrayRef<Attribute> kwargKeys,
                      ArrayRef<Attribute> kwargValues, ArrayRef<Value> values,
                      Type type);

  /// The canonical call of a bound call, created before `node` with its
  /// name and result type (module state args become get_attr reads).
  /// `extraKeys`/`extraValues` are appended to the kwargs; `target`
  /// overrides the schema's name.
  CallFunctionOp emit(Operation *node, const BoundCall &bound,
                      StringRef target = {}, ArrayRef<Attribute> extraKeys = {},
                      ArrayRef<Attribute> extraValues = {});

private:
  GraphOp graph;
  MLIRContext *ctx;
  llvm::StringSet<> names;
  llvm::StringMap<Value> stateReads;
  llvm::DenseSet<Operation *> erased;
};

/// Replaces every use of `node`'s result with `value` and erases `node`.
void replaceNode(Operation *node, Value value);

/// The call_function, call_method and call_module nodes of `graph`, in
/// order: the list a pass that may erase nodes walks.
SmallVector<Operation *> getCallNodes(GraphOp graph);

/// The call node `op` bound by the target registry to its canonical
/// operator, or null (not a call, or a target the registry cannot bind).
std::unique_ptr<BoundCall> bindNode(Operation *op);
/// The node value bound to schema parameter `i`, or null (a literal, None,
/// module state).
Value getBoundValue(const BoundCall &call, unsigned i);
/// The int literal bound to schema parameter `i`.
std::optional<int64_t> getBoundInt(const BoundCall &call, unsigned i);
/// The float (or int) literal bound to schema parameter `i`.
std::optional<double> getBoundFloat(const BoundCall &call, unsigned i);
/// The module state bound to schema parameter `i`, either directly (a
/// module's weight) or through a `get_attr` node; null otherwise.
StateOp getBoundState(GraphModuleOp module, const BoundCall &call, unsigned i);

/// The elements of a float tensor state as doubles; nullopt when the state
/// has no value or is not f16/bf16/f32/f64.
std::optional<std::vector<double>> readFloatState(StateOp state);
/// Adds a parameter `name` (made unique) of `type` holding `values` to
/// `module`, before `before`; returns its name.
std::string addFloatState(GraphModuleOp module, Operation *before,
                          StringRef name, RankedTensorType type,
                          ArrayRef<double> values);

/// Renames the node `op`: its `node_name` and the name in its location.
void setNodeName(Operation *op, StringRef name);

/// The tensor an in-place call overwrites (its first arg), or null: an
/// `inplace=True` kwarg or module hyperparameter, or an augmented
/// assignment operator (`operator.iadd`, ...) on a tensor.
Value getInplaceInput(Operation *op);

/// True if the node computes its result from its args alone, so that it
/// may be removed when unused and merged with an identical node:
/// `fx.get_attr`, and calls the target registry binds to a `Pure` operator
/// (or to batch_norm/dropout in eval mode) that do not write their input
/// in place. Unknown targets are not pure.
bool isPureNode(Operation *op);

/// Erases the `fx.get_attr` nodes without users, then the `fx.state` ops no
/// node reads any more (directly, through an alias, or through a call of
/// the submodule that owns them) and the leaf `fx.submodule`s nothing
/// calls or reads. Returns the number of ops erased.
unsigned eraseUnusedStateAndSubmodules(GraphModuleOp module);

/// The `fx.state` op named `name` in `module`, following aliases; null if
/// there is none.
StateOp lookupState(GraphModuleOp module, StringRef name);

} // namespace mlir::fx

#endif // FX_MLIR_DIALECT_FX_TRANSFORMS_GRAPHBUILDER_H
