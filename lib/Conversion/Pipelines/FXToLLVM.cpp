//===- FXToLLVM.cpp - The fx-to-llvm pass pipeline ------------------------===//
//
// fx graph module -> LLVM dialect, one registered pipeline. The stages
// (docs/Pipeline.md shows the IR after each):
//   1. fx-normalize, fx-fold-quant canonical aten calls (quantized weights
//                                  dequantized at compile time)
//   2. convert-fx-to-linalg        func.func on tensors (linalg/tensor/math)
//   3. canonicalize, fx-cpu-strategy (records how each conv and
//      contraction is computed), fx-cpu-schedule (applies it: tiles and
//      vectors)
//   4. eliminate-empty-tensors, one-shot-bufferize: memrefs (results
//      written in place into what they are inserted into), identity
//      layouts at the boundary
//   5. buffer-deallocation-pipeline (spelled out, fx-cpu-split-deallocs
//      inside), fx-cpu-shorten-buffer-lifetimes,
//      fx-cpu-plan-workspace
//   6. convert-linalg-to-loops     scf loops
//   7. lowering of scf, affine, memref, complex (to arith and math on the
//      parts), math, arith, func, cf to LLVM
//
//===----------------------------------------------------------------------===//

#include "fx-mlir/Conversion/LinalgToCPU/CPUTarget.h"
#include "fx-mlir/Conversion/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::fx;

/// The pipeline as pass pipeline text: the stages are upstream passes with
/// options, so the text is also what a user can run by hand.
std::string
mlir::fx::getFXNormalizePipeline(const FXToLLVMPipelineOptions &options) {
  if (!options.normalize)
    return "";
  // Quantized convs keep their integers where the target CPU has int8 dot
  // products (the schedule writes them as VNNI register tiles), or i16
  // pair dot products (AVX2).
  std::optional<CPUTarget> target = CPUTarget::lookup(options.cpu);
  return target && (target->int8Dot || target->int8Pairs)
             ? "fx-normalize,fx-fold-quant{int8-convs=true}"
             : "fx-normalize,fx-fold-quant";
}

std::string
mlir::fx::getFXConvertPipeline(const FXToLLVMPipelineOptions &options) {
  // Where the CPU has i16 pair dot products only, int8 convs in pairs.
  std::optional<CPUTarget> target = CPUTarget::lookup(options.cpu);
  bool pairs = options.normalize && target && target->int8Pairs;
  return llvm::formatv("convert-fx-to-linalg{{entry={0} "
                       "weights-as-arguments={1} dynamic-batch={2}{3}}",
                       options.entry.getValue(),
                       options.weightsAsArguments ? "true" : "false",
                       options.dynamicBatch ? "true" : "false",
                       pairs ? " int8-pairs=true" : "")
      .str();
}

std::string
mlir::fx::getFXToLinalgPipeline(const FXToLLVMPipelineOptions &options) {
  std::string normalize = getFXNormalizePipeline(options);
  return (normalize.empty() ? "" : normalize + ",") +
         getFXConvertPipeline(options);
}

std::string mlir::fx::getLinalgToLLVMPipeline(StringRef cpu) {
  std::string target = cpu.empty() ? std::string("host") : cpu.str();
  return "canonicalize,func.func(fx-cpu-fold-constant-copies,fx-cpu-strategy{"
         "target=" +
         target + "},fx-cpu-schedule{target=" + target +
         "},fx-cpu-distinct-empty-tensors),fx-cpu-share-constants,canonicalize,"
         "cse,"
         "loop-invariant-subset-hoisting,canonicalize,cse,"
         "func.func(fx-cpu-read-only-arguments),eliminate-empty-tensors,"
         "one-shot-bufferize{bufferize-function-boundaries "
         "allow-return-allocs-from-loops "
         "function-boundary-type-conversion=identity-layout-map},"
         "expand-realloc{emit-deallocs=false},canonicalize,"
         "ownership-based-buffer-deallocation,canonicalize,"
         "func.func(fx-cpu-split-deallocs),buffer-deallocation-simplification,"
         "bufferization-lower-deallocations,cse,canonicalize,"
         "convert-bufferization-to-memref,"
         "func.func(fx-cpu-shorten-buffer-lifetimes),fx-cpu-plan-workspace,"
         "fx-cpu-fold-memref-alias-ops,canonicalize,cse,fx-cpu-outline-parts,"
         "func.func(fx-cpu-lower-vectors{target=" +
         target +
         "}),cse,"
         "func.func(convert-vector-to-scf{full-unroll=true}),"
         "scf-forall-to-parallel,func.func(convert-linalg-to-loops),"
         "lower-affine,convert-scf-to-openmp,expand-strided-metadata,"
         "lower-affine,finalize-memref-to-llvm,convert-scf-to-cf,"
         "convert-vector-to-llvm,convert-complex-to-standard,"
         "convert-math-to-llvm,convert-math-to-libm,"
         "convert-to-llvm,reconcile-unrealized-casts,fx-cpu-byte-bools,"
         "canonicalize,cse";
}

void mlir::fx::buildFXToLLVMPipeline(OpPassManager &pm,
                                     const FXToLLVMPipelineOptions &options) {
  if (failed(parsePassPipeline(getFXToLinalgPipeline(options) + "," +
                                   getLinalgToLLVMPipeline(options.cpu),
                               pm)))
    llvm::report_fatal_error("fx-to-llvm: a pass of the pipeline is not "
                             "registered");
}

namespace mlir::fx {
#define GEN_PASS_REGISTRATION
#include "fx-mlir/Conversion/Passes.h.inc"
} // namespace mlir::fx

void mlir::fx::registerConversionPasses() {
  registerFXConversionPasses();
  PassPipelineRegistration<FXToLLVMPipelineOptions>(
      "fx-to-llvm",
      "Compile an fx graph module to the LLVM dialect: normalize, lower to "
      "linalg, fuse, bufferize, lower to loops and to LLVM",
      buildFXToLLVMPipeline);
}
