//===- ParseText.h - Parse MLIR text safely ---------------------*- C++ -*-===//
//
// MLIR 22's lexer stops at the NUL after a buffer only when it reads it
// exactly once. A string literal left open on the last line of the text
// ends in an error token past that NUL, and the parser of a
// `dialect_resources` entry consumes that token: the lexer then reads
// the memory after the buffer (until a fault, when the buffer ends a
// mapping). Where the text ends with a newline, the open string ends at
// the newline with a diagnostic and the lexer never passes the NUL.
// Every tool and library entry point of fx-mlir parses text through
// these helpers (docs/Reliability.md, "Fuzzing").
//
//===----------------------------------------------------------------------===//

#ifndef FX_MLIR_SUPPORT_PARSETEXT_H
#define FX_MLIR_SUPPORT_PARSETEXT_H

#include "mlir/Bytecode/BytecodeReader.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <memory>
#include <string>

namespace mlir::fx {

/// Whether `text`, as MLIR text, needs a newline appended: it is not
/// empty, not bytecode, and its last line is not terminated.
inline bool needsFinalNewline(llvm::MemoryBufferRef text) {
  llvm::StringRef bytes = text.getBuffer();
  return !bytes.empty() && !bytes.ends_with("\n") && !bytes.ends_with("\r") &&
         !isBytecode(text);
}

/// `buffer`, or a copy of it with a newline after its last line (same
/// identifier, so diagnostics name the same file, line and column).
inline std::unique_ptr<llvm::MemoryBuffer>
withFinalNewline(std::unique_ptr<llvm::MemoryBuffer> buffer) {
  if (!buffer || !needsFinalNewline(buffer->getMemBufferRef()))
    return buffer;
  std::string text = buffer->getBuffer().str() + "\n";
  return llvm::MemoryBuffer::getMemBufferCopy(text,
                                              buffer->getBufferIdentifier());
}

/// parseSourceString for MLIR text that may be malformed or hostile.
inline OwningOpRef<ModuleOp> parseModuleText(llvm::StringRef text,
                                             const ParserConfig &config,
                                             llvm::StringRef name = "") {
  if (!needsFinalNewline(llvm::MemoryBufferRef(text, name)))
    return parseSourceString<ModuleOp>(text, config, name);
  std::string terminated = text.str() + "\n";
  return parseSourceString<ModuleOp>(terminated, config, name);
}

/// parseSourceFile for a file that may be malformed or hostile; a file
/// that cannot be read gets a diagnostic.
inline OwningOpRef<ModuleOp> parseModuleFile(llvm::StringRef path,
                                             const ParserConfig &config) {
  auto buffer = llvm::MemoryBuffer::getFileOrSTDIN(path);
  if (!buffer) {
    emitError(UnknownLoc::get(config.getContext()))
        << "cannot open '" << path << "': " << buffer.getError().message();
    return nullptr;
  }
  auto sourceMgr = std::make_shared<llvm::SourceMgr>();
  sourceMgr->AddNewSourceBuffer(withFinalNewline(std::move(*buffer)),
                                llvm::SMLoc());
  return parseSourceFile<ModuleOp>(sourceMgr, config);
}

} // namespace mlir::fx

#endif // FX_MLIR_SUPPORT_PARSETEXT_H
