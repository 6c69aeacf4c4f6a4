//===- FXToLinalg.h - Lower fx graphs to linalg on tensors ------*- C++ -*-===//

#ifndef FX_MLIR_CONVERSION_FXTOLINALG_FXTOLINALG_H
#define FX_MLIR_CONVERSION_FXTOLINALG_FXTOLINALG_H

#include "mlir/IR/PatternMatch.h"
#include <string>
#include <vector>

namespace mlir::fx {

/// Adds the patterns that lower canonical `fx.call_function "aten::..."`
/// nodes (as fx-normalize leaves them) into linalg, tensor, arith and math
/// ops on tensors. A pattern applies once every operand of its node has
/// been lowered, so any driver that revisits users (the greedy driver)
/// lowers a whole graph; graph structure (placeholders, state, output) is
/// the pass's job.
void populateFXToLinalgConversionPatterns(RewritePatternSet &patterns);

/// True if the patterns lower the canonical target `target`.
bool isLowerableTarget(llvm::StringRef target);

/// The canonical targets the patterns lower, sorted.
std::vector<std::string> getLowerableTargets();

} // namespace mlir::fx

#endif // FX_MLIR_CONVERSION_FXTOLINALG_FXTOLINALG_H
