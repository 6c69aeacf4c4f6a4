//===- OutputStructure.h - A graph's outputs as JSON ------------*- C++ -*-===//
//
// What the Python package rebuilds a compiled graph's outputs from.
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

} // namespace mlir::fx

#endif // FX_MLIR_LIB_RUNTIME_OUTPUTSTRUCTURE_H
