//===- ControlFlow.h - Higher-order calls of the fx dialect -----*- C++ -*-===//
//
// Data-dependent control flow in an fx graph, as PyTorch 2's FX holds it:
// a `call_function` of a higher-order target whose branches and bodies
// are other graphs of the same graph module, passed as `get_attr` nodes
// of those graphs (docs/DialectRationale.md, "Control flow").
//
//   cond(pred, true_graph, false_graph, (operands...))
//   while_loop(cond_graph, body_graph, (carried...), (additional...))
//   for_loop(count, body_graph, (carried...), (additional...))
//
// Each returns a tuple, taken apart by `operator.getitem` nodes.
//
//===----------------------------------------------------------------------===//

#ifndef FX_MLIR_DIALECT_FX_IR_CONTROLFLOW_H
#define FX_MLIR_DIALECT_FX_IR_CONTROLFLOW_H

#include "fx-mlir/Dialect/FX/IR/FXOps.h"

#include "mlir/IR/OpDefinition.h"

namespace mlir::fx {

/// `torch.ops.higher_order.cond`: runs the true or the false graph on the
/// operands; both return a tuple of the call's result types.
constexpr llvm::StringLiteral kCondTarget("torch.ops.higher_order.cond");
/// `torch.ops.higher_order.while_loop`: while the cond graph returns true
/// for the carried values (and the additional ones), the body graph maps
/// them to their next values.
constexpr llvm::StringLiteral
    kWhileLoopTarget("torch.ops.higher_order.while_loop");
/// `fx_mlir.for_loop`: `for i in range(count)`, the body graph taking the
/// iteration number, the carried and the additional values and returning
/// the next carried values.
constexpr llvm::StringLiteral kForLoopTarget("fx_mlir.for_loop");

/// Whether `target` is one of the higher-order targets above.
bool isControlFlowTarget(llvm::StringRef target);

/// A higher-order call taken apart.
struct ControlFlowCall {
  enum Kind { Cond, WhileLoop, ForLoop };
  Kind kind;
  /// cond: the predicate; for_loop: the trip count. A node, or null when
  /// the arg is a constant (`constant`).
  Value operand;
  Attribute constant;
  /// cond: the true and false graphs; while_loop: the cond and body
  /// graphs; for_loop: the body graph.
  SmallVector<GraphOp, 2> graphs;
  /// cond: the operands; loops: the initial carried values. Each is a
  /// node or a constant (a bool, int or float attribute).
  SmallVector<OpFoldResult> carried;
  /// loops: the values every iteration reads unchanged.
  SmallVector<OpFoldResult> additional;
  /// The call's result types (the elements of its tuple type).
  SmallVector<Type> resultTypes;
};

/// Takes `call` apart. With `emit`, a malformed call gets an error on it
/// naming what is wrong. The graphs are looked up in the enclosing graph
/// module (through `tables` when given).
FailureOr<ControlFlowCall>
getControlFlowCall(CallFunctionOp call, bool emit = false,
                   SymbolTableCollection *tables = nullptr);

/// Whether a value of type `a` may stand where `b` is expected in control
/// flow: equal types, `!fx.any` on either side, or tensors of one element
/// type and rank whose dims agree where both are static.
bool areCompatibleTypes(Type a, Type b);

/// The values a branch or body graph returns: the elements of its
/// output's tuple, in order, nodes or bool, int and float constants;
/// failure if the output is not such a tuple.
FailureOr<SmallVector<OpFoldResult>> getGraphResults(GraphOp graph);

/// The type of a value a control-flow call passes or a graph returns: a
/// node's type, i1, i64 or f64 for a bool, int or float constant.
Type getValueType(OpFoldResult value);

/// The graph a `get_attr` node names, or null.
GraphOp getReferencedGraph(Value node, SymbolTableCollection *tables = nullptr);

} // namespace mlir::fx

#endif // FX_MLIR_DIALECT_FX_IR_CONTROLFLOW_H
