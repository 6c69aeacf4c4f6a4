//===- FXTypes.h - Types of the fx dialect ----------------------*- C++ -*-===//

#ifndef FX_MLIR_DIALECT_FX_IR_FXTYPES_H
#define FX_MLIR_DIALECT_FX_IR_FXTYPES_H

#include "mlir/IR/Types.h"

#define GET_TYPEDEF_CLASSES
#include "fx-mlir/Dialect/FX/IR/FXTypes.h.inc"

#endif // FX_MLIR_DIALECT_FX_IR_FXTYPES_H
