//===- ArchiveCheck.h - What LibTorch trusts in a .pt archive ---*- C++ -*-===//
//
// The check of an archive's sizes before LibTorch's loader reads it
// (ArchiveCheck.cpp), with no LibTorch header: it reads the zip itself.
//
//===----------------------------------------------------------------------===//

#ifndef FX_MLIR_LIB_TARGET_TORCHSCRIPT_ARCHIVECHECK_H
#define FX_MLIR_LIB_TARGET_TORCHSCRIPT_ARCHIVECHECK_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlir::fx::torchscript {

/// Checks what LibTorch 1.13's loader would trust in the archive `file`
/// before it allocates (ArchiveCheck.cpp): each zip record's sizes against
/// the bytes the file holds, and every length a pickle record declares
/// against the bytes left in it. Returns an error message, or "" when the
/// archive passes or is not a zip the check can read (LibTorch's own
/// reader then reports it).
std::string checkArchive(llvm::StringRef file);

} // namespace mlir::fx::torchscript

#endif // FX_MLIR_LIB_TARGET_TORCHSCRIPT_ARCHIVECHECK_H
