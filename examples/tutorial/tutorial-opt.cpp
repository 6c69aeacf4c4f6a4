//===- tutorial-opt.cpp - fx-opt with the tutorial's passes ---------------===//
//
// An mlir-opt for fx graphs, as a project of your own would write it: the fx
// dialect, fx-mlir's passes (fx-normalize, fx-print-tabular) and the two
// passes of TutorialPasses.cpp.
//
//===----------------------------------------------------------------------===//

#include "fx-mlir/Dialect/FX/IR/FXDialect.h"
#include "fx-mlir/Dialect/FX/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

namespace tutorial {
/// Registers tutorial-fuse-conv-relu and tutorial-relu-to-sigmoid
/// (TutorialPasses.cpp).
void registerTutorialPasses();
} // namespace tutorial

int main(int argc, char **argv) {
  mlir::fx::registerFXPasses();
  tutorial::registerTutorialPasses();

  mlir::DialectRegistry registry;
  registry.insert<mlir::fx::FXDialect>();

  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "fx-mlir tutorial pass runner\n", registry));
}
