//===- ExportPython.h - fx dialect to runnable torch.fx Python ---*- C++
//-*-===//
//
// Emits Python source that rebuilds a torch.fx.GraphModule from an
// fx.graph_module: its submodules (constructed from their type and
// hyperparameters), its state (parameters, buffers and constants, from the
// IR's blobs, tied weights shared) and its graph, node by node with the same
// names, targets, args and kwargs.
//
//===----------------------------------------------------------------------===//

#ifndef FX_MLIR_TARGET_PYTHON_EXPORTPYTHON_H
#define FX_MLIR_TARGET_PYTHON_EXPORTPYTHON_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

namespace mlir {
class Operation;
namespace fx {

/// Writes to `os` a Python script that, when run, defines `build()` (which
/// returns a new torch.fx.GraphModule) and `graph_module = build()`.
/// `op` is an fx.graph_module, or a module holding exactly one (or holding
/// one named `graphModuleName` when that is not empty). Fails with a
/// diagnostic on the op that cannot be exported.
LogicalResult exportPython(Operation *op, raw_ostream &os,
                           StringRef graphModuleName = "");

/// Registers `--export-python` with the mlir-translate registry.
void registerExportPythonTranslation();

} // namespace fx
} // namespace mlir

#endif // FX_MLIR_TARGET_PYTHON_EXPORTPYTHON_H
