//===- FXDialect.h - The fx dialect -----------------------------*- C++ -*-===//

#ifndef FX_MLIR_DIALECT_FX_IR_FXDIALECT_H
#define FX_MLIR_DIALECT_FX_IR_FXDIALECT_H

#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/IR/Dialect.h"

#include "fx-mlir/Dialect/FX/IR/FXDialect.h.inc"

#endif // FX_MLIR_DIALECT_FX_IR_FXDIALECT_H
