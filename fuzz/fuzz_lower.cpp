//===- fuzz_lower.cpp - libFuzzer target: normalize and lower to linalg ---===//
//
// Any bytes, as IR text; what parses and verifies goes through
// fx-normalize and convert-fx-to-linalg, whose failures must be
// diagnostics, never a crash. Seeds: the project's own .mlir files.
//
//===----------------------------------------------------------------------===//

#include "fx-mlir/Conversion/Passes.h"
#include "fx-mlir/Dialect/FX/IR/FXDialect.h"
#include "fx-mlir/Dialect/FX/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <memory>

using namespace mlir;

namespace {
MLIRContext &context() {
  static std::unique_ptr<MLIRContext> ctx;
  static unsigned uses = 0;
  if (!ctx || ++uses % 500 == 0) {
    DialectRegistry registry;
    registry.insert<fx::FXDialect, func::FuncDialect, arith::ArithDialect,
                    linalg::LinalgDialect, math::MathDialect, scf::SCFDialect,
                    tensor::TensorDialect>();
    ctx = std::make_unique<MLIRContext>(registry);
    ctx->loadAllAvailableDialects();
    ctx->printOpOnDiagnostic(false);
    ctx->getDiagEngine().registerHandler(
        [](Diagnostic &) { return success(); });
  }
  return *ctx;
}
} // namespace

/// Whether brackets nest deeper than MLIR's own recursive parsers (types,
/// attributes, regions: upstream's) take without running out of stack;
/// the fx value parser stops at 200 levels with an error, which inputs up
/// to this depth exercise.
static bool nestsTooDeep(const uint8_t *data, size_t size) {
  int depth = 0;
  for (size_t i = 0; i < size; ++i) {
    char c = char(data[i]);
    depth += c == '(' || c == '[' || c == '{' || c == '<';
    depth -= depth > 0 && (c == ')' || c == ']' || c == '}' || c == '>');
    if (depth > 300)
      return true;
  }
  return false;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (nestsTooDeep(data, size))
    return 0;
  // The lowering's own dialects are loaded in the context after the first
  // run; their parsers are upstream's, not what this target fuzzes (one
  // crashes on malformed `linalg.transpose`: docs/Reliability.md), so IR
  // that names them is skipped.
  llvm::StringRef bytes(reinterpret_cast<const char *>(data), size);
  for (llvm::StringRef dialect :
       {"linalg.", "tensor.", "arith.", "scf.", "math.", "affine.", "memref.",
        "bufferization.", "vector.", "complex.", "index.", "ub."})
    if (bytes.contains(dialect))
      return 0;
  MLIRContext &ctx = context();
  // NUL-terminated, as every buffer the tools and the Python binding
  // parse is (MLIR's lexer reads the terminator).
  std::string text(reinterpret_cast<const char *>(data), size);
  ParserConfig config(&ctx);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, config);
  if (!module)
    return 0;
  PassManager pm(&ctx);
  pm.enableVerifier(true);
  pm.addPass(fx::createFXNormalize());
  pm.addPass(fx::createConvertFXToLinalg());
  (void)pm.run(*module);
  return 0;
}
