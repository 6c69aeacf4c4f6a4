//===- fx-opt.cpp - The fx-mlir pass runner ---------------------*- C++ -*-===//
//
// mlir-opt with the fx dialect and passes added to the upstream ones.
//
//===----------------------------------------------------------------------===//

#include "fx-mlir/Conversion/Passes.h"
#include "fx-mlir/Dialect/FX/IR/FXDialect.h"
#include "fx-mlir/Dialect/FX/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::fx::registerFXPasses();
  mlir::fx::registerConversionPasses();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  registry.insert<mlir::fx::FXDialect>();

  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "fx-mlir pass runner\n", registry));
}
