//===- FXLocation.h - Locations of FX nodes ---------------------*- C++ -*-===//
//
// An FX node's location is NameLoc(node name, NameLoc(module path, source)):
// the node name, the qualified path of the module the node came from (empty
// for the root module) and, when known, the Python source location.
//
//===----------------------------------------------------------------------===//

#ifndef FX_MLIR_DIALECT_FX_IR_FXLOCATION_H
#define FX_MLIR_DIALECT_FX_IR_FXLOCATION_H

#include "mlir/IR/Location.h"
#include <string>

namespace mlir {
class Operation;
namespace fx {

/// Builds the location of the FX node `nodeName` in module `modulePath`
/// (qualified, e.g. `layer1.0.conv1`; empty for the root module).
Location getNodeLoc(MLIRContext *ctx, StringRef nodeName, StringRef modulePath,
                    Location source);

/// The module path recorded in an FX node location, or "" if `loc` is not
/// one or names the root module.
StringRef getModulePath(Location loc);

/// "'relu'", or "'relu' (module 'layer1.0')" when the node's location
/// records a module path: how diagnostics name a node.
std::string getNodeLabel(Operation *op);

} // namespace fx
} // namespace mlir

#endif // FX_MLIR_DIALECT_FX_IR_FXLOCATION_H
