//===- Passes.h - Passes on the fx dialect ----------------------*- C++ -*-===//

#ifndef FX_MLIR_DIALECT_FX_TRANSFORMS_PASSES_H
#define FX_MLIR_DIALECT_FX_TRANSFORMS_PASSES_H

#include "fx-mlir/Dialect/FX/IR/FXOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::fx {

/// On the fake quantization fx-fold-quant makes of
/// dequantize(quantize_per_tensor(x)): the quantize's int64 quirk stays
/// (a scaled value from 2^63 up, +inf, gives the dtype's minimum, as ATen's
/// quantize_val does), where aten::fake_quantize_per_tensor_affine itself
/// clamps it to quant_max.
constexpr llvm::StringLiteral kQuantizeOverflowAttr = "fx.quantize_overflow";

/// On the average poolings fx-fold-quant computes on a quantized tensor's
/// integers: PyTorch's eager kernel rounds the average of the integers
/// less the zero point, then adds the zero point back (its channels-last
/// kernel, which it takes for an input held channels-last contiguous: a
/// quantized conv's output and what follows it). Without it, the zero
/// point is added before rounding (the kernel for contiguous inputs). The
/// two differ on an exact half where the zero point is odd.
constexpr llvm::StringLiteral kRoundBeforeZeroPointAttr =
    "fx.round_before_zero_point";

#define GEN_PASS_DECL
#include "fx-mlir/Dialect/FX/Transforms/Passes.h.inc"

/// Prints `graph` as `Graph.print_tabular()` does.
void printTabular(GraphOp graph, llvm::raw_ostream &os);

//===----------------------------------------------------------------------===//
// The passes' graph-level entry points, for use from C++ without a pass
// manager. Each returns the number of nodes it changed.
//===----------------------------------------------------------------------===//

/// True for the targets of the probes fx-instrument inserts
/// (`fx_mlir.instrument.start`, `.stop`, `.stats`, `.nan_check`).
bool isProbeTarget(llvm::StringRef target);

/// The canonical operator a `fx_mlir.fused.<op>` target (made by
/// fx-fuse-activation) applies before its activation: `aten::conv2d`,
/// `aten::add.Tensor`, ...; "" for other targets.
llvm::StringRef getFusedBaseOp(llvm::StringRef target);
/// The names a fused op's `activation` kwarg may take.
llvm::ArrayRef<llvm::StringRef> getFusedActivations();

/// The torch.nn module types fx-normalize expands into calls itself
/// (nn.Identity, nn.MultiheadAttention, the upsampling modules, adaptive
/// max pooling and max unpooling), beside the registry's module aliases.
/// The Python package reads this list through the extension.
llvm::ArrayRef<llvm::StringRef> getExpandedModuleTypes();
/// The torch.nn.functional functions fx-normalize rewrites itself
/// (interpolation, adaptive pooling, max unpooling).
llvm::ArrayRef<llvm::StringRef> getExpandedFunctions();

/// fx-dce on one graph: erases unused pure nodes, last first.
unsigned eliminateDeadNodes(GraphOp graph);
/// fx-cse on one graph.
unsigned eliminateCommonNodes(GraphOp graph);
/// fx-canonicalize on one graph.
unsigned canonicalizeGraph(GraphOp graph);
/// fx-rename on one graph.
void renameNodes(GraphOp graph);
/// fx-fold-batchnorm on one graph (of a graph module).
unsigned foldBatchNorm(GraphOp graph);
/// fx-fuse-activation on one graph.
unsigned fuseActivations(GraphOp graph);
/// The matmul + bias rewrite of fx-fuse-linear on one graph (without the
/// canonicalization that follows it in the pass).
unsigned fuseLinear(GraphOp graph);

#define GEN_PASS_REGISTRATION
#include "fx-mlir/Dialect/FX/Transforms/Passes.h.inc"

} // namespace mlir::fx

#endif // FX_MLIR_DIALECT_FX_TRANSFORMS_PASSES_H
