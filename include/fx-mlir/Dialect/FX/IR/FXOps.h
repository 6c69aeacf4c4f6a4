//===- FXOps.h - Operations of the fx dialect -------------------*- C++ -*-===//

#ifndef FX_MLIR_DIALECT_FX_IR_FXOPS_H
#define FX_MLIR_DIALECT_FX_IR_FXOPS_H

#include "fx-mlir/Dialect/FX/IR/FXAttrs.h"
#include "fx-mlir/Dialect/FX/IR/FXDialect.h"
#include "fx-mlir/Dialect/FX/IR/FXTypes.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/RegionKindInterface.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::fx {
class GraphOp;
class OutputOp;
class PlaceholderOp;
} // namespace mlir::fx

#include "fx-mlir/Dialect/FX/IR/FXInterfaces.h.inc"

#define GET_OP_CLASSES
#include "fx-mlir/Dialect/FX/IR/FXOps.h.inc"

namespace mlir::fx {

/// The state, submodule or graph named `name` in `module`: a scan of the
/// module's body, or, while a SymbolLookupCache lives on this thread, a
/// hash lookup (a pass that reads many weights by name would otherwise
/// scan every state once per node: quadratic in the model).
Operation *lookupModuleSymbol(GraphModuleOp module, StringAttr name);
Operation *lookupModuleSymbol(GraphModuleOp module, StringRef name);

/// Records `symbol`, just created in its graph module, in the cache of
/// this thread, if one lives.
void noteModuleSymbol(Operation *symbol);

/// Drops the cached table of `module` (after erasing symbols of it).
void forgetModuleSymbols(GraphModuleOp module);

/// While it lives, lookupModuleSymbol answers from a table per graph
/// module, built on first use. Only for code that erases and renames no
/// state, submodule or graph, and creates them through noteModuleSymbol
/// (fx-normalize, fx-canonicalize).
class SymbolLookupCache {
public:
  SymbolLookupCache();
  ~SymbolLookupCache();
  SymbolLookupCache(const SymbolLookupCache &) = delete;
  SymbolLookupCache &operator=(const SymbolLookupCache &) = delete;

  struct Impl;
  /// The tables, by graph module.
  std::unique_ptr<Impl> impl;

private:
  SymbolLookupCache *previous;
};

} // namespace mlir::fx

#endif // FX_MLIR_DIALECT_FX_IR_FXOPS_H
