//===- ControlFlow.cpp - The interpreter's cond, while_loop, for_loop -----===//
//
// A control-flow call (ControlFlow.h) runs its graphs node by node, as the
// interpreter runs forward (every hook is called inside them), in a C++
// `if`, `for` or `while`.
//
//===----------------------------------------------------------------------===//

#include "fx-mlir/Dialect/FX/IR/ControlFlow.h"
#include "fx-mlir/Interpreter/Interpreter.h"

#include <ATen/ATen.h>

using namespace mlir;
using namespace mlir::fx;

/// Python's truth of a predicate: a bool, an int, or a one-element tensor.
static std::optional<bool> truth(const c10::IValue &value) {
  if (value.isBool())
    return value.toBool();
  if (value.isInt())
    return value.toInt() != 0;
  if (value.isDouble())
    return value.toDouble() != 0;
  if (value.isTensor() && value.toTensor().numel() == 1)
    return value.toTensor().item().toBool();
  return std::nullopt;
}

/// The elements of a tuple arg (operands, carried or additional values).
static std::vector<c10::IValue> elements(const c10::IValue &value) {
  if (value.isTuple())
    return value.toTupleRef().elements().vec();
  if (value.isList())
    return value.toListRef().vec();
  return {};
}

FailureOr<c10::IValue>
Interpreter::callControlFlow(CallFunctionOp op, ArrayRef<c10::IValue> args) {
  FailureOr<ControlFlowCall> cf = getControlFlowCall(op);
  if (failed(cf) || args.size() != 4) {
    emitNodeError(op) << "is not a well-formed control-flow call";
    return failure();
  }
  auto tuple = [](std::vector<c10::IValue> values) {
    return c10::IValue(c10::ivalue::Tuple::create(std::move(values)));
  };
  auto concat = [](std::vector<c10::IValue> a,
                   const std::vector<c10::IValue> &b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
  };
  if (cf->kind == ControlFlowCall::Cond) {
    std::optional<bool> pred = truth(args[0]);
    if (!pred) {
      emitNodeError(op) << "the predicate is not a bool, an int or a "
                           "one-element tensor";
      return failure();
    }
    FailureOr<std::vector<c10::IValue>> results =
        runGraph(cf->graphs[*pred ? 0 : 1], elements(args[3]));
    if (failed(results))
      return failure();
    return tuple(std::move(*results));
  }
  std::vector<c10::IValue> carried = elements(args[2]);
  std::vector<c10::IValue> additional = elements(args[3]);
  GraphOp body = cf->graphs.back();
  if (cf->kind == ControlFlowCall::ForLoop) {
    if (!args[0].isInt()) {
      emitNodeError(op) << "the trip count is not an int";
      return failure();
    }
    for (int64_t i = 0, n = args[0].toInt(); i < n; ++i) {
      std::vector<c10::IValue> inputs = {c10::IValue(i)};
      inputs = concat(std::move(inputs), carried);
      FailureOr<std::vector<c10::IValue>> next =
          runGraph(body, concat(std::move(inputs), additional));
      if (failed(next))
        return failure();
      carried = std::move(*next);
    }
    return tuple(std::move(carried));
  }
  while (true) {
    FailureOr<std::vector<c10::IValue>> go =
        runGraph(cf->graphs[0], concat(carried, additional));
    if (failed(go))
      return failure();
    std::optional<bool> more =
        go->size() == 1 ? truth(go->front()) : std::nullopt;
    if (!more) {
      emitNodeError(op) << "the cond graph does not return a bool, an int "
                           "or a one-element tensor";
      return failure();
    }
    if (!*more)
      return tuple(std::move(carried));
    FailureOr<std::vector<c10::IValue>> next =
        runGraph(body, concat(carried, additional));
    if (failed(next))
      return failure();
    carried = std::move(*next);
  }
}
