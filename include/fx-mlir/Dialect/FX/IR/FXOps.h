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

#endif // FX_MLIR_DIALECT_FX_IR_FXOPS_H
