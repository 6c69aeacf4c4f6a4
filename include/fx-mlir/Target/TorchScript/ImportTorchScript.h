//===- ImportTorchScript.h - LibTorch .pt archives to fx IR ----*- C++ -*-===//
//
// Imports a module saved by torch.jit.trace / torch.jit.script (a .pt
// archive, loaded with LibTorch; no Python involved) as an fx.graph_module.
// The forward graph is walked the way torch.fx's tracer walks a module:
// calls of torch.nn leaf modules become fx.call_module, other modules
// (containers, user classes) are inlined into their aten calls, parameters
// and buffers become fx.state read by fx.get_attr, and prim list/tuple/
// constant nodes fold into the args of the nodes that use them.
//
// This header does not include LibTorch, so users need no LibTorch flags.
//
//===----------------------------------------------------------------------===//

#ifndef FX_MLIR_TARGET_TORCHSCRIPT_IMPORTTORCHSCRIPT_H
#define FX_MLIR_TARGET_TORCHSCRIPT_IMPORTTORCHSCRIPT_H

#include "fx-mlir/Dialect/FX/IR/FXAttrs.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/MemoryBufferRef.h"
#include <functional>
#include <string>
#include <vector>

namespace at {
class Tensor;
} // namespace at

namespace mlir::fx {

/// What the importer keeps as fx.call_module and what it inlines, as
/// torch.fx's `Tracer.is_leaf_module` decides for symbolic tracing.
struct TorchScriptImportOptions {
  /// Inline every module call: the graph holds only aten/prim calls.
  bool inlineAll = false;
  /// Module types to inline although they are torch.nn leaves, by class
  /// name (`Conv2d`) or qualified name (`torch.nn.Conv2d`).
  std::vector<std::string> inlineTypes;
  /// Walk into a torch.nn leaf that records no hyperparameters (a module
  /// torch.jit.trace made keeps none: a traced Conv2d's stride is only a
  /// constant of its forward): its aten calls then hold them. What compiling
  /// a traced archive needs; quantized modules stay leaves.
  bool inlineTracedLeaves = false;
  /// With `inlineTracedLeaves`: the torch.nn module types the compiler binds
  /// as calls (the target registry's module aliases and those fx-normalize
  /// expands). A torch.nn leaf of another type, or a conv padding other than
  /// by zeros, is walked into too, as fx_mlir's tracer does. Empty: every
  /// torch.nn leaf with hyperparameters stays a call.
  std::vector<std::string> compiledModuleTypes;
  /// With `compiledModuleTypes`: whether the compiler binds a module of
  /// that type with these hyperparameters (an alias's requirements on them
  /// hold: nn.KLDivLoss's reduction is not 'batchmean'). A module it does
  /// not bind is walked into. Unset: every module of those types is bound.
  std::function<bool(llvm::StringRef type, DictAttr hparams)> compilesModule;
  /// Module types to keep as fx.call_module although they are not torch.nn
  /// leaves (user classes), by class or qualified name.
  std::vector<std::string> leafTypes;
  /// The graph module's symbol; by default the root module's class name.
  std::string graphModuleName;
  /// One tensor type per graph input (`1x3x224x224xf32` or
  /// `tensor<1x3x224x224xf32>`). When given, the graph is run on random
  /// inputs of these types and every node gets its result's shape and dtype
  /// (a saved archive keeps none); otherwise types are those the archive
  /// records, mostly `!fx.any`.
  std::vector<std::string> inputTypes;
  /// Example inputs (instead of `inputTypes`): the graph is run on these
  /// tensors, so that control flow that depends on the data (a loop's
  /// trip count, the branch an `if` takes) runs as the caller's inputs make
  /// it. Not owned.
  const std::vector<at::Tensor> *exampleInputs = nullptr;
  /// More sets of example inputs of other sizes (with `exampleInputs`):
  /// the graph is run on each set as well, and a dim that differs between
  /// the runs is dynamic in the types (a batch dim: `fx_mlir.compile` with
  /// `dynamic_batch` passes the examples with 1, 2 and 12 more rows, so
  /// that `x.size(0) // 2` differs in one of them). Not owned.
  const std::vector<std::vector<at::Tensor>> *moreExampleSets = nullptr;
};

/// Imports the TorchScript archive in `buffer` (its identifier names it in
/// diagnostics). Returns null after emitting an error that names the node,
/// its source location and module path, for archives LibTorch cannot load
/// and for constructs FX cannot represent (custom classes, a loop whose
/// carried value changes rank).
OwningOpRef<ModuleOp>
importTorchScript(llvm::MemoryBufferRef buffer, MLIRContext *context,
                  const TorchScriptImportOptions &options = {});

/// Registers `--import-torchscript` (with its `--torchscript-*` options)
/// with the mlir-translate registry.
void registerImportTorchScriptTranslation();

} // namespace mlir::fx

#endif // FX_MLIR_TARGET_TORCHSCRIPT_IMPORTTORCHSCRIPT_H
