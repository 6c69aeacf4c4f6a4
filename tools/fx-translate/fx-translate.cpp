//===- fx-translate.cpp - Import into and export from the fx dialect ------===//
//
// mlir-translate with the fx-mlir translations: --import-torchscript (a
// LibTorch .pt archive to fx IR) and --export-python (fx IR to Python that
// rebuilds the torch.fx.GraphModule).
//
//===----------------------------------------------------------------------===//

#include "fx-mlir/Target/Python/ExportPython.h"
#ifdef FX_MLIR_ENABLE_TORCH
#include "fx-mlir/Target/TorchScript/ImportTorchScript.h"
#endif

#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

int main(int argc, char **argv) {
  mlir::fx::registerExportPythonTranslation();
#ifdef FX_MLIR_ENABLE_TORCH
  mlir::fx::registerImportTorchScriptTranslation();
#endif
  return mlir::failed(
      mlir::mlirTranslateMain(argc, argv, "fx-mlir translation driver\n"));
}
