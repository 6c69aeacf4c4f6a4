//===- Passes.h - Passes on the fx dialect ----------------------*- C++ -*-===//

#ifndef FX_MLIR_DIALECT_FX_TRANSFORMS_PASSES_H
#define FX_MLIR_DIALECT_FX_TRANSFORMS_PASSES_H

#include "fx-mlir/Dialect/FX/IR/FXOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::fx {

#define GEN_PASS_DECL
#include "fx-mlir/Dialect/FX/Transforms/Passes.h.inc"

/// Prints `graph` as `Graph.print_tabular()` does.
void printTabular(GraphOp graph, llvm::raw_ostream &os);

#define GEN_PASS_REGISTRATION
#include "fx-mlir/Dialect/FX/Transforms/Passes.h.inc"

} // namespace mlir::fx

#endif // FX_MLIR_DIALECT_FX_TRANSFORMS_PASSES_H
