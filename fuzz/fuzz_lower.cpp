//===- fuzz_lower.cpp - libFuzzer target: normalize and lower to linalg ---===//
//
// Any bytes, as IR text; what parses and verifies goes through
// fx-normalize and convert-fx-to-linalg, whose failures must be
// diagnostics, never a crash. Seeds: the project's own .mlir files.
//
//===----------------------------------------------------------------------===//

#include "Common.h"
#include "fx-mlir/Conversion/Passes.h"
#include "fx-mlir/Dialect/FX/IR/FXDialect.h"
#include "fx-mlir/Dialect/FX/Transforms/Passes.h"
#include "fx-mlir/Support/ParseText.h"

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

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (fuzz::nestsTooDeep(data, size) || fuzz::hasBadBlobAlignment(data, size))
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
  MLIRContext &ctx =
      fuzz::context<fx::FXDialect, func::FuncDialect, arith::ArithDialect,
                    linalg::LinalgDialect, math::MathDialect, scf::SCFDialect,
                    tensor::TensorDialect>(500);
  // NUL-terminated, as every buffer the tools and the Python binding
  // parse is (MLIR's lexer reads the terminator), and parsed as they
  // parse it (fx/Support/ParseText.h).
  std::string text(reinterpret_cast<const char *>(data), size);
  ParserConfig config(&ctx);
  OwningOpRef<ModuleOp> module = fx::parseModuleText(text, config);
  if (!module)
    return 0;
  PassManager pm(&ctx);
  pm.enableVerifier(true);
  pm.addPass(fx::createFXNormalize());
  pm.addPass(fx::createConvertFXToLinalg());
  (void)pm.run(*module);
  return 0;
}
