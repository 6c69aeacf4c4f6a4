//===- LibraryHeader.h - The C header of an ahead-of-time library -*- C++
//-*-===//
//
// Private to lib/Runtime: compileLibrary (Runtime.cpp) writes the header
// LibraryHeader.cpp makes.
//
//===----------------------------------------------------------------------===//

#ifndef FX_MLIR_LIB_RUNTIME_LIBRARYHEADER_H
#define FX_MLIR_LIB_RUNTIME_LIBRARYHEADER_H

#include "fx-mlir/Conversion/LinalgToCPU/CPUTarget.h"
#include "fx-mlir/Runtime/Runtime.h"

#include <string>

namespace mlir::fx::detail {

/// The C header of a library: its signature as comments and constants, and
/// `<name>_forward`, which runs the model on typed buffers through the C
/// interface (fx_runtime.h) and writes the outputs into buffers the
/// caller provides. A dim 0 that is dynamic (a library compiled for any
/// batch) is the `batch` argument.
std::string libraryHeader(llvm::StringRef name, llvm::StringRef libraryFile,
                          const CPUTarget &target,
                          llvm::ArrayRef<TensorSpec> inputs,
                          llvm::ArrayRef<TensorSpec> outputs);

} // namespace mlir::fx::detail

#endif // FX_MLIR_LIB_RUNTIME_LIBRARYHEADER_H
