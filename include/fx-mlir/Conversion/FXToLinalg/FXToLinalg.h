//===- FXToLinalg.h - Lower fx graphs to linalg on tensors ------*- C++ -*-===//

#ifndef FX_MLIR_CONVERSION_FXTOLINALG_FXTOLINALG_H
#define FX_MLIR_CONVERSION_FXTOLINALG_FXTOLINALG_H

#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/DenseMap.h"
#include <string>
#include <vector>

namespace mlir::fx {

/// Why nodes could not be lowered: node -> reason, filled by the patterns
/// below when a lowering fails (the pass's diagnostics read it).
using LoweringFailures = llvm::DenseMap<Operation *, std::string>;

/// Adds the conversion patterns that lower canonical
/// `fx.call_function "aten::..."` nodes (as fx-normalize leaves them) into
/// linalg, tensor, arith and math ops on tensors, one pattern per family of
/// targets (the functions below), and the one that hands `fx.output` the
/// lowered values. They are dialect-conversion patterns: a node's operands
/// come from the adaptor, already lowered, and a lowering that fails leaves
/// the IR as it was (the driver rolls back what it built; drivers must
/// allow pattern rollback, the default) with its reason in `failures`.
/// Graph structure (placeholders, state, the function) is the pass's job.
void populateFXToLinalgConversionPatterns(RewritePatternSet &patterns,
                                          LoweringFailures *failures = nullptr);

/// One family's lowering pattern each (the files of
/// lib/Conversion/FXToLinalg/ of the same names).
void populateElementwiseLoweringPatterns(RewritePatternSet &patterns,
                                         LoweringFailures *failures = nullptr);
void populateLinearAlgebraLoweringPatterns(
    RewritePatternSet &patterns, LoweringFailures *failures = nullptr);
void populateConvolutionLoweringPatterns(RewritePatternSet &patterns,
                                         LoweringFailures *failures = nullptr);
void populateReductionLoweringPatterns(RewritePatternSet &patterns,
                                       LoweringFailures *failures = nullptr);
void populateShapeLoweringPatterns(RewritePatternSet &patterns,
                                   LoweringFailures *failures = nullptr);
void populateLossLoweringPatterns(RewritePatternSet &patterns,
                                  LoweringFailures *failures = nullptr);
void populateCompositeLoweringPatterns(RewritePatternSet &patterns,
                                       LoweringFailures *failures = nullptr);
void populateStatisticsLoweringPatterns(RewritePatternSet &patterns,
                                        LoweringFailures *failures = nullptr);
void populateFactorizationLoweringPatterns(
    RewritePatternSet &patterns, LoweringFailures *failures = nullptr);
void populateIndexingLoweringPatterns(RewritePatternSet &patterns,
                                      LoweringFailures *failures = nullptr);
void populateSpecialLoweringPatterns(RewritePatternSet &patterns,
                                     LoweringFailures *failures = nullptr);
void populateResampleLoweringPatterns(RewritePatternSet &patterns,
                                      LoweringFailures *failures = nullptr);
/// Fused ops of fx-fuse (conv/linear with an activation, ...).
void populateFusedLoweringPatterns(RewritePatternSet &patterns,
                                   LoweringFailures *failures = nullptr);
/// fx-instrument's probes.
void populateProbeLoweringPatterns(RewritePatternSet &patterns,
                                   LoweringFailures *failures = nullptr);

/// True if the patterns lower the canonical target `target`.
bool isLowerableTarget(llvm::StringRef target);

/// The canonical targets the patterns lower, sorted.
std::vector<std::string> getLowerableTargets();

} // namespace mlir::fx

#endif // FX_MLIR_CONVERSION_FXTOLINALG_FXTOLINALG_H
