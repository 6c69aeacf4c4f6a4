//===- fuzz_parse.cpp - libFuzzer target: the fx IR parser and verifier ---===//
//
// Any bytes, as IR text: parsed (fx, func and builtin dialects), verified,
// printed, and the printed text parsed and verified again. A crash, a
// sanitizer report, or printed IR that does not parse back is a finding.
//
//===----------------------------------------------------------------------===//

#include "Common.h"
#include "fx-mlir/Dialect/FX/IR/FXDialect.h"
#include "fx-mlir/Support/ParseText.h"

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

/// Whether an attribute of an op in `module` is a symbol reference with an
/// empty name (`@""`): MLIR's parser takes it, its printer writes
/// `@<<INVALID EMPTY SYMBOL>>`, which no parser reads: an upstream limit
/// for every dialect's attributes, not a finding of ours.
bool hasEmptySymbolRef(ModuleOp module) {
  bool found = false;
  module->walk([&](Operation *op) {
    op->getAttrDictionary().walk([&](SymbolRefAttr ref) {
      if (ref.getRootReference().getValue().empty())
        found = true;
    });
  });
  return found;
}

OwningOpRef<ModuleOp> parseAndVerify(llvm::StringRef text, MLIRContext &ctx) {
  ParserConfig config(&ctx, /*verifyAfterParse=*/false);
  OwningOpRef<ModuleOp> module = fx::parseModuleText(text, config);
  if (!module || failed(verify(*module)) || hasEmptySymbolRef(*module))
    return nullptr;
  return module;
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (fuzz::nestsTooDeep(data, size) || fuzz::hasBadBlobAlignment(data, size))
    return 0;
  MLIRContext &ctx = fuzz::context<fx::FXDialect, func::FuncDialect>(2000);
  // NUL-terminated, as every buffer the tools and the Python binding
  // parse is (MLIR's lexer reads the terminator), and parsed as they
  // parse it (fx/Support/ParseText.h).
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
