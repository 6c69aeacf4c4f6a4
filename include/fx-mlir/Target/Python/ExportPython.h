//===- ExportPython.h - fx dialect to a torch.fx GraphModule ----*- C++ -*-===//
//
// Exports an fx.graph_module as data that python/fx_mlir/_rebuild.py turns
// back into a torch.fx.GraphModule: its submodules (type and
// hyperparameters), its state (parameters, buffers and constants, tied
// weights shared) and its graph, node by node with the same names, targets,
// args and kwargs. No IR text is ever emitted as Python code.
//
//===----------------------------------------------------------------------===//

#ifndef FX_MLIR_TARGET_PYTHON_EXPORTPYTHON_H
#define FX_MLIR_TARGET_PYTHON_EXPORTPYTHON_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <string>

namespace mlir {
class Operation;
namespace fx {

/// Writes to `os` the JSON description of a graph module (the format
/// python/fx_mlir/_rebuild.py reads). `op` is an fx.graph_module, or a
/// module holding exactly one (or holding one named `graphModuleName` when
/// that is not empty). Fails with a diagnostic on the op that cannot be
/// exported, among them any name that is not what Python uses it as.
LogicalResult exportGraphModuleJson(Operation *op, raw_ostream &os,
                                    StringRef graphModuleName = "");

/// Writes to `os` a Python script that, when run, defines `build()` (which
/// returns a new torch.fx.GraphModule) and `graph_module = build()`: the
/// loader python/fx_mlir/_rebuild.py followed by the JSON description as
/// one string literal. Submodule types may come from torch, fx_mlir and the
/// packages in `allowedModules`.
LogicalResult exportPython(Operation *op, raw_ostream &os,
                           StringRef graphModuleName = "",
                           ArrayRef<std::string> allowedModules = {});

/// Registers `--export-python` and `--export-fx-json` with the
/// mlir-translate registry.
void registerExportPythonTranslation();

} // namespace fx
} // namespace mlir

#endif // FX_MLIR_TARGET_PYTHON_EXPORTPYTHON_H
