//===- fuzz_parse.cpp - libFuzzer target: the fx IR parser and verifier ---===//
//
// Any bytes, as IR text: parsed (fx, func and builtin dialects), verified,
// printed, and the printed text parsed and verified again. A crash, a
// sanitizer report, or printed IR that does not parse back is a finding.
//
//===----------------------------------------------------------------------===//

#include "fx-mlir/Dialect/FX/IR/FXDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>
#include <memory>

using namespace mlir;

namespace {
/// A context with the dialects the IR may hold, made again now and then
/// (a context keeps every type and attribute it has seen).
MLIRContext &context() {
  static std::unique_ptr<MLIRContext> ctx;
  static unsigned uses = 0;
  if (!ctx || ++uses % 2000 == 0) {
    DialectRegistry registry;
    registry.insert<fx::FXDialect, func::FuncDialect>();
    ctx = std::make_unique<MLIRContext>(registry);
    ctx->loadAllAvailableDialects();
    ctx->printOpOnDiagnostic(false);
    ctx->getDiagEngine().registerHandler(
        [](Diagnostic &) { return success(); });
  }
  return *ctx;
}

OwningOpRef<ModuleOp> parseAndVerify(llvm::StringRef text, MLIRContext &ctx) {
  ParserConfig config(&ctx, /*verifyAfterParse=*/false);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, config);
  if (!module || failed(verify(*module)))
    return nullptr;
  return module;
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
  MLIRContext &ctx = context();
  // NUL-terminated, as every buffer the tools and the Python binding
  // parse is (MLIR's lexer reads the terminator).
  std::string text(reinterpret_cast<const char *>(data), size);
  OwningOpRef<ModuleOp> module = parseAndVerify(text, ctx);
  if (!module)
    return 0;
  std::string printed;
  llvm::raw_string_ostream os(printed);
  module->print(os);
  if (!parseAndVerify(printed, ctx)) {
    std::fprintf(stderr,
                 "fuzz-parse: verified IR printed as text that does not "
                 "parse back:\n%s\n",
                 printed.c_str());
    std::abort();
  }
  return 0;
}
