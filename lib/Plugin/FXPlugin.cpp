//===- FXPlugin.cpp - fx dialect and passes as mlir-opt plugins -*- C++ -*-===//
//
// Lets a stock `mlir-opt` load the fx dialect and passes:
//   mlir-opt --load-dialect-plugin=libFXPlugin.so
//            --load-pass-plugin=libFXPlugin.so --fx-print-tabular
//
//===----------------------------------------------------------------------===//

#include "fx-mlir/Dialect/FX/IR/FXDialect.h"
#include "fx-mlir/Dialect/FX/Transforms/Passes.h"

#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"

using namespace mlir;

extern "C" LLVM_ATTRIBUTE_WEAK DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "FX", LLVM_VERSION_STRING,
          [](DialectRegistry *registry) { registry->insert<fx::FXDialect>(); }};
}

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "FXPasses", LLVM_VERSION_STRING,
          []() { fx::registerFXPasses(); }};
}
