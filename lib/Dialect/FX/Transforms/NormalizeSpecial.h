//===- NormalizeSpecial.h - Rewrites of fx-normalize beyond aliases -*- C++
//-*-===//
//
// The calls fx-normalize rewrites by code rather than by a registry alias,
// each family in its own file.
//
//===----------------------------------------------------------------------===//

#ifndef FX_MLIR_LIB_DIALECT_FX_TRANSFORMS_NORMALIZESPECIAL_H
#define FX_MLIR_LIB_DIALECT_FX_TRANSFORMS_NORMALIZESPECIAL_H

#include "fx-mlir/Dialect/FX/Transforms/GraphBuilder.h"

#include <string>

namespace mlir::fx {

/// Adaptive max pooling, adaptive average pooling with None sizes and max
/// unpooling (functions and modules) as their ATen operators, with sizes
/// from the input's static shape (NormalizePooling.cpp). Succeeds when it
/// rewrote `op`; fails with `why` empty when `op` is none of them, with
/// `why` set when it is but cannot be rewritten.
LogicalResult rewritePoolingCall(GraphBuilder &gb, Operation *op,
                                 std::string &why);

} // namespace mlir::fx

#endif // FX_MLIR_LIB_DIALECT_FX_TRANSFORMS_NORMALIZESPECIAL_H
