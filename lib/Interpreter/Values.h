//===- Values.h - Interpreter helpers on values -----------------*- C++ -*-===//
//
// What Interpreter.cpp shares with Builtins.cpp and State.cpp: a value
// named as a Python user would name it (for errors), the elements of a
// list or tuple, and the c10 scalar type of a torch dtype name.
//
//===----------------------------------------------------------------------===//

#ifndef FX_MLIR_LIB_INTERPRETER_VALUES_H
#define FX_MLIR_LIB_INTERPRETER_VALUES_H

#include "mlir/Support/LLVM.h"

#include <ATen/core/ivalue.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mlir::fx::interpreter {

using KwargList = std::vector<std::pair<std::string, c10::IValue>>;

/// The c10 scalar type of the torch dtype `name` (`float32`), if this
/// LibTorch has it: those the IR holds tensors of (DTypes.def), and those
/// a dtype argument may still name (complex32, the quantized types).
std::optional<c10::ScalarType> getScalarType(StringRef name);

/// What a value is, as a Python user would name it: `Tensor`, `int`,
/// `list`, ...
std::string describe(const c10::IValue &value);

/// `Tensor, int, alpha=float`: the kinds of a call's arguments.
std::string describeCall(ArrayRef<c10::IValue> args, const KwargList &kwargs);

/// The elements of a list or tuple, or nullopt for other values.
std::optional<ArrayRef<c10::IValue>> getSequence(const c10::IValue &value);

} // namespace mlir::fx::interpreter

#endif // FX_MLIR_LIB_INTERPRETER_VALUES_H
