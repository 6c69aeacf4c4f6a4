//===- Interpreter.h - Reference interpreter of fx graphs -------*- C++ -*-===//
//
// Runs the `forward` graph of an fx.graph_module node by node through
// LibTorch, as torch.fx.Interpreter runs a GraphModule: every node's args
// and kwargs are evaluated to c10::IValues (node references replaced by the
// values of earlier nodes) and handed to a per-node-kind hook. The default
// hooks run canonical `aten::`/`prim::` targets through LibTorch's operator
// registry and every other target through the target registry
// (Targets.def), so the interpreter is the reference the compiled code is
// compared with; nothing is lowered.
//
//===----------------------------------------------------------------------===//

#ifndef FX_MLIR_INTERPRETER_INTERPRETER_H
#define FX_MLIR_INTERPRETER_INTERPRETER_H

#include "fx-mlir/Dialect/FX/IR/FXOps.h"
#include "fx-mlir/Runtime/Probes.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

#include <ATen/core/ivalue.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace torch::jit {
struct Operator;
} // namespace torch::jit

namespace mlir::fx {

/// A Python `slice(start, stop, step)` among evaluated args; each bound is
/// None, an int or the value of the node it names. Only `operator.getitem`
/// consumes slices.
struct SliceValue : torch::CustomClassHolder {
  c10::IValue start, stop, step;
};

/// Wraps a slice into an IValue (a capsule holding a SliceValue).
c10::IValue makeSliceValue(c10::IValue start, c10::IValue stop,
                           c10::IValue step);
/// The slice `value` holds, or null if it is not one.
const SliceValue *getSliceValue(const c10::IValue &value);
/// Python's `...` (Ellipsis) as an IValue (a capsule sentinel).
c10::IValue makeEllipsisValue();
/// Returns true if `value` is the Ellipsis sentinel.
bool isEllipsisValue(const c10::IValue &value);

/// Interprets the `forward` graph of an fx.graph_module with LibTorch.
///
/// Evaluated args use the representation of TorchScript stacks: Python
/// ints, floats, bools and strings are IValue ints, doubles, bools and
/// strings; `None` is the None IValue; lists are c10 lists of the element
/// type when homogeneous (ints, floats, bools, tensors, strings) and generic
/// lists otherwise; tuples are c10::ivalue::Tuple; dicts are generic dicts
/// in insertion order; a dtype, memory format or layout is the int of its
/// c10 enum; a device is a c10::Device; `torch.Size` is an int list; slices
/// and `...` are the capsules above.
///
/// Errors are MLIR diagnostics on the failing node, emitted through
/// emitNodeError; C++ exceptions thrown by LibTorch are caught and become
/// such diagnostics. The interpreter is not thread safe; one instance runs
/// one graph at a time.
class Interpreter {
public:
  /// `module` is an fx.graph_module; runs its `forward` graph.
  explicit Interpreter(GraphModuleOp module);
  virtual ~Interpreter();

  Interpreter(const Interpreter &) = delete;
  Interpreter &operator=(const Interpreter &) = delete;

  /// Runs the graph on `inputs` (one per placeholder; placeholders with
  /// defaults may be omitted; a `*args` placeholder takes the remaining
  /// inputs as a tuple). Returns the outputs flattened in print order of
  /// the fx.output value: nested tuples, lists and dict values are
  /// flattened, so a single tensor output gives one element. On error
  /// returns failure and emits a diagnostic on the failing node naming the
  /// node, its target and the reason. Gradients are not recorded.
  FailureOr<std::vector<c10::IValue>> run(llvm::ArrayRef<c10::IValue> inputs);

  /// The graph module being interpreted.
  GraphModuleOp getModule() { return module; }

  /// What the fx-instrument probes of the graph recorded over the runs so
  /// far; a failed nan-check stops the run with an error on the probe.
  ProbeTable &getProbes() { return probes; }

protected:
  //===--------------------------------------------------------------------===//
  // Per-node-kind hooks (torch.fx.Interpreter's placeholder, get_attr,
  // call_function, call_method, call_module and output). A hook that fails
  // reports why through emitNodeError.
  //===--------------------------------------------------------------------===//

  /// A placeholder: `input` is the run's input for it, if given. Default:
  /// the input, else the placeholder's default value.
  virtual FailureOr<c10::IValue> placeholder(PlaceholderOp op,
                                             std::optional<c10::IValue> input);

  /// A get_attr: default, the fx.state tensor it names (aliases followed),
  /// decoded once and cached per state.
  virtual FailureOr<c10::IValue> getAttr(GetAttrOp op);

  /// A call_function. Default: a canonical target (`aten::add.Tensor`,
  /// `prim::...`; `.default` names the unnamed overload, and no overload
  /// lets the args choose one) binds `args`/`kwargs` by its LibTorch schema
  /// and runs; `operator.getitem` indexes tuples, lists, dicts and tensors;
  /// `builtins.getattr` reads `shape`, `ndim`, `dtype` and `device` of a
  /// tensor; any other target is bound by the target registry and runs as
  /// its canonical operator. Registry-bound calls are evaluated from the
  /// node's attributes; `args`/`kwargs` choose the overload at run time
  /// when the registry's static choice does not fit the values.
  virtual FailureOr<c10::IValue>
  callFunction(CallFunctionOp op, std::vector<c10::IValue> args,
               std::vector<std::pair<std::string, c10::IValue>> kwargs);

  /// A call_method (`args[0]` is self). Default: bound by the target
  /// registry as for functions.
  virtual FailureOr<c10::IValue>
  callMethod(CallMethodOp op, std::vector<c10::IValue> args,
             std::vector<std::pair<std::string, c10::IValue>> kwargs);

  /// A call_module. Default: bound by the target registry (hyperparameters
  /// and weights come from the fx.submodule and its fx.state);
  /// torch.nn.Identity returns its input and torch.nn.MultiheadAttention
  /// runs torch::nn::functional::multi_head_attention_forward.
  virtual FailureOr<c10::IValue>
  callModule(CallModuleOp op, std::vector<c10::IValue> args,
             std::vector<std::pair<std::string, c10::IValue>> kwargs);

  /// The output node with its evaluated value. Default: flattens nested
  /// tuples, lists and dict values into the result, in order.
  virtual FailureOr<std::vector<c10::IValue>> output(OutputOp op,
                                                     c10::IValue value);

  //===--------------------------------------------------------------------===//
  // Helpers for hooks
  //===--------------------------------------------------------------------===//

  /// Runs the LibTorch operator `qualifiedName` (`aten::add.Tensor`,
  /// `aten::relu`, `aten::add.int`; `.default` names the unnamed overload)
  /// with its complete positional stack `args`, in schema order (keyword-
  /// only parameters included), as fx-normalize emits canonical calls.
  /// Values are converted as TorchScript would (an int for a float, a list
  /// for `int[]`, a single int for `int[2]`). Both dispatcher operators and
  /// JIT-only operators run. Several results come back as a tuple, none as
  /// None. Errors are reported on `op`.
  FailureOr<c10::IValue> callOperator(Operation *op,
                                      llvm::StringRef qualifiedName,
                                      std::vector<c10::IValue> args);

  /// The tensor of module state `name` (an fx.state of the module; aliases
  /// are followed), decoded on first use and cached. Errors are reported
  /// on `op`.
  FailureOr<at::Tensor> readState(Operation *op, llvm::StringRef name);

  /// Emits an error on `op` that starts by naming the node: "interpreter:
  /// call_function 'relu' (module 'block') with target 'torch.relu': ";
  /// the caller streams the reason.
  InFlightDiagnostic emitNodeError(Operation *op);

private:
  using Kwargs = std::vector<std::pair<std::string, c10::IValue>>;

  /// Runs `graph` (forward, or a branch or body of control flow) on
  /// `inputs`, one per placeholder; the flattened output.
  FailureOr<std::vector<c10::IValue>>
  runGraph(GraphOp graph, llvm::ArrayRef<c10::IValue> inputs);
  /// A control-flow call (ControlFlow.h): its graphs run by runGraph, in a
  /// C++ `if`, `for` or `while`; the results as a tuple.
  FailureOr<c10::IValue> callControlFlow(CallFunctionOp op,
                                         llvm::ArrayRef<c10::IValue> args);

  /// Runs `fn`, turning a C++ exception into a diagnostic on `op`.
  LogicalResult guarded(Operation *op, llvm::function_ref<LogicalResult()> fn);
  /// Runs one node, storing its value.
  LogicalResult runNode(Operation &node, llvm::ArrayRef<c10::IValue> inputs,
                        size_t &nextInput,
                        std::optional<std::vector<c10::IValue>> &outputs);

  /// The value of an FX value attribute whose node references index
  /// `operands`.
  FailureOr<c10::IValue> evaluate(Operation *op, Attribute value,
                                  ValueRange operands);
  /// Evaluates a call node's args and kwargs.
  LogicalResult evaluateCall(Operation *op, std::vector<c10::IValue> &args,
                             Kwargs &kwargs);

  /// The LibTorch operator `qualifiedName`, or null with a diagnostic.
  std::shared_ptr<torch::jit::Operator>
  lookupOperator(Operation *op, llvm::StringRef qualifiedName);
  /// Runs `oper` on a complete, converted stack.
  FailureOr<c10::IValue> runOperator(Operation *op,
                                     const torch::jit::Operator &oper,
                                     std::vector<c10::IValue> stack);
  /// call_function of a canonical `ns::op[.overload]` target.
  FailureOr<c10::IValue> callCanonical(Operation *op, llvm::StringRef target,
                                       llvm::ArrayRef<c10::IValue> args,
                                       const Kwargs &kwargs);
  /// A call bound through the target registry.
  FailureOr<c10::IValue> callRegistered(Operation *op,
                                        llvm::ArrayRef<c10::IValue> args,
                                        const Kwargs &kwargs);
  /// `fx_mlir.fused.<op>(..., activation=...)`: the op, then the
  /// activation.
  FailureOr<c10::IValue> callFused(CallFunctionOp op,
                                   llvm::ArrayRef<c10::IValue> args,
                                   const Kwargs &kwargs);
  /// The `fx_mlir.instrument.*` probes.
  FailureOr<c10::IValue> callProbe(CallFunctionOp op,
                                   llvm::ArrayRef<c10::IValue> args);
  /// `operator.getitem`.
  FailureOr<c10::IValue> getItem(Operation *op,
                                 llvm::ArrayRef<c10::IValue> args,
                                 const Kwargs &kwargs);
  /// `builtins.getattr`.
  FailureOr<c10::IValue> getAttribute(Operation *op,
                                      llvm::ArrayRef<c10::IValue> args,
                                      const Kwargs &kwargs);
  /// `torch._assert(condition, message)`: None, or an error naming the
  /// node with `message` when `condition` is false.
  FailureOr<c10::IValue> checkAssert(Operation *op,
                                     llvm::ArrayRef<c10::IValue> args,
                                     const Kwargs &kwargs);
  /// `aten::tensor(data, dtype=...)` of a (nested) list of numbers, as a
  /// scripted `torch.tensor([1.0, 2.0])` records it (LibTorch's kernel of
  /// that overload needs the TorchScript node's list type).
  FailureOr<c10::IValue> tensorOfList(Operation *op,
                                      llvm::ArrayRef<c10::IValue> args,
                                      const Kwargs &kwargs);
  /// A call of an nn.MultiheadAttention module.
  FailureOr<c10::IValue>
  callMultiheadAttention(CallModuleOp op, SubmoduleOp submodule,
                         llvm::ArrayRef<c10::IValue> args,
                         const Kwargs &kwargs);
  /// A call of a quantized module (torch.ao.nn.quantized.Conv2d, Linear,
  /// the fused ConvReLU/LinearReLU, dynamic Linear, Quantize, DeQuantize,
  /// Dropout, ...), run by PyTorch's quantized engine: its weight and bias
  /// prepacked, its quantized operator called (Quantized.cpp). Fails with
  /// no diagnostic (`handled` false) for other module types.
  FailureOr<c10::IValue> callQuantizedModule(CallModuleOp op,
                                             SubmoduleOp submodule,
                                             llvm::ArrayRef<c10::IValue> args,
                                             const Kwargs &kwargs,
                                             bool &handled);

  GraphModuleOp module;
  ProbeTable probes;
  /// The values of the nodes run so far that later nodes still use.
  llvm::DenseMap<Value, c10::IValue> values;
  /// Decoded state by qualified name (aliases under their own name too).
  llvm::StringMap<at::Tensor> stateCache;
  /// LibTorch operators by the qualified name they were looked up by.
  llvm::StringMap<std::shared_ptr<torch::jit::Operator>> operatorCache;
  /// The number of errors emitNodeError has emitted.
  unsigned numErrors = 0;
};

} // namespace mlir::fx

#endif // FX_MLIR_INTERPRETER_INTERPRETER_H
