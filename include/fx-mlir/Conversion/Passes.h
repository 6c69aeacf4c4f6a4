//===- Passes.h - Conversion passes of fx-mlir ------------------*- C++ -*-===//

#ifndef FX_MLIR_CONVERSION_PASSES_H
#define FX_MLIR_CONVERSION_PASSES_H

#include "fx-mlir/Conversion/FXToLinalg/FXToLinalg.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::fx {

#define GEN_PASS_DECL
#include "fx-mlir/Conversion/Passes.h.inc"

/// Marks a tensor.empty that CSE must keep apart from identical ones (its
/// own buffer): fx-cpu-distinct-empty-tensors and fx-cpu-schedule's padded
/// tensors (Padding.cpp) set it.
constexpr llvm::StringLiteral kDistinctEmptyAttr = "fx.distinct";

/// Options of the `fx-to-llvm` pipeline.
struct FXToLLVMPipelineOptions
    : public PassPipelineOptions<FXToLLVMPipelineOptions> {
  PassOptions::Option<bool> weightsAsArguments{
      *this, "weights-as-arguments",
      llvm::cl::desc("Pass module state as function arguments instead of "
                     "constants"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> dynamicBatch{
      *this, "dynamic-batch",
      llvm::cl::desc("Make dim 0 of every tensor input dynamic"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> normalize{
      *this, "normalize",
      llvm::cl::desc("Run fx-normalize first (on by default)"),
      llvm::cl::init(true)};
  PassOptions::Option<std::string> entry{
      *this, "entry", llvm::cl::desc("Name of the compiled function"),
      llvm::cl::init("forward")};
  PassOptions::Option<std::string> cpu{
      *this, "cpu",
      llvm::cl::desc("The CPU target of fx-cpu-schedule and "
                     "fx-cpu-lower-vectors: host (default) or a named one "
                     "(x86-64-v3, x86-64-v4, znver4, ...)"),
      llvm::cl::init("host")};
};

/// fx graph module -> LLVM dialect: normalize, lower to linalg, fuse,
/// bufferize, lower to loops and to LLVM. See docs/Pipeline.md.
void buildFXToLLVMPipeline(OpPassManager &pm,
                           const FXToLLVMPipelineOptions &options);

/// The two halves of fx-to-llvm as pass pipeline text: fx-normalize and
/// convert-fx-to-linalg, then everything from tensors to LLVM.
std::string getFXToLinalgPipeline(const FXToLLVMPipelineOptions &options);
/// The first half in its two steps: the passes on the graph module
/// (fx-normalize, fx-fold-quant; empty without `normalize`), then
/// convert-fx-to-linalg. The module's state after the first step is the
/// state the code reads (fx-fold-quant adds dequantized weights).
std::string getFXNormalizePipeline(const FXToLLVMPipelineOptions &options);
std::string getFXConvertPipeline(const FXToLLVMPipelineOptions &options);
/// `cpu` is the target of the schedule (CPUTarget::lookup's names).
std::string getLinalgToLLVMPipeline(StringRef cpu = "host");

/// Registers the conversion passes and the `fx-to-llvm` pipeline.
void registerConversionPasses();

} // namespace mlir::fx

#endif // FX_MLIR_CONVERSION_PASSES_H
