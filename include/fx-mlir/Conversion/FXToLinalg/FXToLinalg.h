//===- FXToLinalg.h - Lower fx graphs to linalg on tensors ------*- C++ -*-===//

#ifndef FX_MLIR_CONVERSION_FXTOLINALG_FXTOLINALG_H
#define FX_MLIR_CONVERSION_FXTOLINALG_FXTOLINALG_H

#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/DenseMap.h"
#include <string>
#include <vector>

namespace mlir::fx {

/// Marks the linalg.generic of an int8 convolution's u8 x s8 products
/// (lib/Conversion/FXToLinalg/QuantizedConv.cpp) for fx-cpu-schedule, which
/// writes it as VNNI register tiles where the CPU has them. Its value:
/// [stride h, stride w, dilation h, dilation w, pixels per register tile].
constexpr llvm::StringLiteral kInt8ConvAttr = "fx.int8_conv";

/// On such a generic where many of the window's taps read only the spatial
/// padding (dilated convs on small images: DeepLab's ASPP): [padding top,
/// input height, padding left, input width] of its padded input. A tap
/// whose input row is padding, or whose pixels of a register tile all are,
/// is not computed: the padding holds the zero point zx, so its products
/// are zx times the sums of its weights, kInt8SkipSumsAttr's constant.
constexpr llvm::StringLiteral kInt8SkipAttr = "fx.int8_skip";

/// The sums of kInt8SkipAttr: zx * sum_c w[ocb, i, j, c, o] (i32, [OCB, KH,
/// KW, 16 V]) over the packed weights' channels.
constexpr llvm::StringLiteral kInt8SkipSumsAttr = "fx.int8_skip_sums";

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

/// The op families of the lowering, one file of lib/Conversion/FXToLinalg/
/// each (Fused: fx-fuse's fused ops; Probe: fx-instrument's probes). Each
/// has `populate<Family>LoweringPatterns(patterns, failures)`, which adds
/// its one pattern, declared below.
#define FX_LOWERING_FAMILIES(X)                                                \
  X(Elementwise)                                                               \
  X(Comparison)                                                                \
  X(Scalar)                                                                    \
  X(LinearAlgebra)                                                             \
  X(Product)                                                                   \
  X(Convolution)                                                               \
  X(Pooling)                                                                   \
  X(Reduction)                                                                 \
  X(Shape)                                                                     \
  X(Gather)                                                                    \
  X(Creation)                                                                  \
  X(Matrix)                                                                    \
  X(Loss)                                                                      \
  X(Composite)                                                                 \
  X(Statistics)                                                                \
  X(Factorization)                                                             \
  X(Indexing)                                                                  \
  X(Special)                                                                   \
  X(Backward)                                                                  \
  X(GeneralForm)                                                               \
  X(Complex)                                                                   \
  X(Resample)                                                                  \
  X(Quantize)                                                                  \
  X(Fused)                                                                     \
  X(Probe)
#define FX_DECLARE_LOWERING_FAMILY(NAME)                                       \
  void populate##NAME##LoweringPatterns(RewritePatternSet &patterns,           \
                                        LoweringFailures *failures = nullptr);
FX_LOWERING_FAMILIES(FX_DECLARE_LOWERING_FAMILY)
#undef FX_DECLARE_LOWERING_FAMILY

/// True if the patterns lower the canonical target `target`.
bool isLowerableTarget(llvm::StringRef target);

/// The canonical targets the patterns lower, sorted.
std::vector<std::string> getLowerableTargets();

} // namespace mlir::fx

#endif // FX_MLIR_CONVERSION_FXTOLINALG_FXTOLINALG_H
