//===- FXDialect.cpp - The fx dialect ---------------------------*- C++ -*-===//

#include "fx-mlir/Dialect/FX/IR/FXDialect.h"
#include "fx-mlir/Dialect/FX/IR/FXOps.h"

using namespace mlir;
using namespace mlir::fx;

#include "fx-mlir/Dialect/FX/IR/FXDialect.cpp.inc"

void FXDialect::initialize() {
  registerAttributes();
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "fx-mlir/Dialect/FX/IR/FXOps.cpp.inc"
      >();
}
