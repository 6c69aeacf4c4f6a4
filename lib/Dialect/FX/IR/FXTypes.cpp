//===- FXTypes.cpp - Types of the fx dialect --------------------*- C++ -*-===//

#include "fx-mlir/Dialect/FX/IR/FXTypes.h"
#include "fx-mlir/Dialect/FX/IR/FXDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::fx;

#define GET_TYPEDEF_CLASSES
#include "fx-mlir/Dialect/FX/IR/FXTypes.cpp.inc"

void FXDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "fx-mlir/Dialect/FX/IR/FXTypes.cpp.inc"
      >();
}
