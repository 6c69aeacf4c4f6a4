//===- PythonRepr.h - Print FX values as Python source ----------*- C++ -*-===//

#ifndef FX_MLIR_DIALECT_FX_IR_PYTHONREPR_H
#define FX_MLIR_DIALECT_FX_IR_PYTHONREPR_H

#include "mlir/IR/Attributes.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/raw_ostream.h"
#include <string>

namespace mlir::fx {

/// Prints `value` the way Python's `repr` prints the FX value it models
/// (`(x, [1, 2])`, `{'dim': 1}`, `torch.float32`, `1e-05`). Node references
/// are printed through `printNode(index)`.
void printPythonRepr(Attribute value, llvm::raw_ostream &os,
                     llvm::function_ref<void(unsigned)> printNode);

/// Python's `repr` of a float (`1.0`, `1e-05`, `inf`, `nan`).
std::string pythonFloatRepr(double value);

/// Python's `repr` of a str (single-quoted unless it contains one).
std::string pythonStrRepr(llvm::StringRef value);

} // namespace mlir::fx

#endif // FX_MLIR_DIALECT_FX_IR_PYTHONREPR_H
