//===- Pipeline.cpp - Pass pipelines run in process -----------------------===//
//
// What `fx-opt --pass-pipeline=...` does, as a function: parse the textual
// IR, run the pipeline, print the result, with the diagnostics collected
// instead of printed. fx_mlir.transform and replace_pattern run their
// pipelines through it, with no subprocess.
//
//===----------------------------------------------------------------------===//

#include "fx-mlir/Conversion/Passes.h"
#include "fx-mlir/Dialect/FX/IR/FXDialect.h"
#include "fx-mlir/Dialect/FX/Transforms/Passes.h"
#include "fx-mlir/Runtime/Runtime.h"
#include "fx-mlir/Support/ParseText.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>

using namespace mlir;

void mlir::fx::registerCompilerPasses() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerAllPasses();
    registerFXPasses();
    registerConversionPasses();
  });
}

void mlir::fx::registerCompilerDialects(DialectRegistry &registry) {
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registry.insert<FXDialect>();
}

std::optional<std::string> mlir::fx::runPassPipeline(llvm::StringRef ir,
                                                     llvm::StringRef pipeline,
                                                     std::string &errors) {
  registerCompilerPasses();
  DialectRegistry registry;
  registerCompilerDialects(registry);
  // One context per call, without threads of its own: the callers run
  // small graph-level pipelines, and a pool per call would cost more.
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  llvm::raw_string_ostream diagnostics(errors);
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    if (diag.getSeverity() != DiagnosticSeverity::Error &&
        diag.getSeverity() != DiagnosticSeverity::Warning)
      return success();
    diagnostics << diag.getLocation() << ": "
                << (diag.getSeverity() == DiagnosticSeverity::Error
                        ? "error: "
                        : "warning: ")
                << diag << "\n";
    for (Diagnostic &note : diag.getNotes())
      diagnostics << note.getLocation() << ": note: " << note << "\n";
    return success();
  });
  OwningOpRef<ModuleOp> module =
      fx::parseModuleText(ir, ParserConfig(&context), "<stdin>");
  if (!module)
    return std::nullopt;
  FailureOr<OpPassManager> parsed = parsePassPipeline(pipeline, diagnostics);
  if (failed(parsed))
    return std::nullopt;
  if (parsed->getOpAnchorName() != ModuleOp::getOperationName()) {
    diagnostics << "error: the pipeline '" << pipeline
                << "' is not anchored on builtin.module\n";
    return std::nullopt;
  }
  PassManager pm(&context);
  static_cast<OpPassManager &>(pm) = std::move(*parsed);
  if (failed(pm.run(*module)))
    return std::nullopt;
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  return text;
}
