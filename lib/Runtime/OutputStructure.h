//===- OutputStructure.h - A graph's outputs as JSON ------------*- C++ -*-===//
//
// What the Python package rebuilds a compiled graph's outputs from, and
// the quantization its quantized inputs must have.
//
//===----------------------------------------------------------------------===//

#ifndef FX_MLIR_LIB_RUNTIME_OUTPUTSTRUCTURE_H
#define FX_MLIR_LIB_RUNTIME_OUTPUTSTRUCTURE_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <string>

namespace mlir::fx {

/// The `fx.output` attribute of `func` (the lowered graph's entry) as
/// JSON: see OutputStructure.cpp.
std::string outputStructureJSON(func::FuncOp func);

/// The quantization of argument `index` of `func` when it is marked
/// fx.quantized (a quantized tensor's storage integers), as JSON
/// (TensorSpec::quantization); empty otherwise.
std::string inputQuantizationJSON(func::FuncOp func, unsigned index);

} // namespace mlir::fx

#endif // FX_MLIR_LIB_RUNTIME_OUTPUTSTRUCTURE_H
