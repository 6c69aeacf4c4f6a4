//===- Runtime.h - JIT-compile and run fx graphs on the CPU -----*- C++ -*-===//
//
// CompiledGraph takes an fx graph module (IR text or a parsed module), runs
// the fx-to-llvm pipeline, compiles the result with LLVM (O1, for the
// host CPU and its features, parts of the module on every core) into an
// ORC JIT and runs it on caller-owned input buffers. Inputs are checked (count,
// dtype, rank, shape) before any code runs; outputs are returned as malloc'ed
// buffers the caller takes over.
//
//===----------------------------------------------------------------------===//

#ifndef FX_MLIR_RUNTIME_RUNTIME_H
#define FX_MLIR_RUNTIME_RUNTIME_H

#include "fx-mlir/Runtime/Executable.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mlir {
class DialectRegistry;
class ModuleOp;
namespace fx {
class ProbeTable;

struct CompileOptions {
  /// Pass module state as arguments (the runtime keeps a copy of it)
  /// instead of baking it into the code as constants.
  bool weightsAsArguments = false;
  /// Make dim 0 of every input dynamic: one compiled graph runs any batch.
  bool dynamicBatch = false;
  /// Run fx-normalize before lowering.
  bool normalize = true;
  /// LLVM IR optimization level of the JIT (its code generator runs at
  /// -O3). The kernels reach LLVM tiled and vectorized, so 1 runs as fast
  /// as 3 and compiles resnet18 about 1.3 s sooner (docs/performance.md).
  unsigned optLevel = 1;
  /// Directory of the on-disk code cache (created if missing); empty: no
  /// cache. The object code and signature of a compiled graph are stored
  /// under a hash of the IR, the options, this library's build and the
  /// host CPU; the same IR compiled again loads them instead of running
  /// the compiler. Graphs with weights as arguments or probes are not
  /// cached.
  std::string cacheDir;
  /// The CPU the code is generated for: "host" (or empty) or a named target
  /// (CPUTarget::knownNames(): x86-64-v3, x86-64-v4, znver4, ...). Its code
  /// must run on this host: AVX2 code on an AVX-512 host does, the other
  /// way round is an error.
  std::string cpu;
  /// A quick key (quickCacheKey) the caller looked the entry up by before
  /// it could compute the entry's own key: once the entry exists as a
  /// shared object, an alias maps it to the entry, so that the next lookup
  /// by it finds the code with the runtime core alone.
  std::string cacheAlias;
};

/// What `compileLibrary` writes.
struct LibraryOptions {
  /// The shared object (`model.so`).
  std::string path;
  /// A C header declaring the library's typed entry point; none if empty.
  std::string header;
  /// The entry point's prefix in the header (`<name>_forward`); from the
  /// library's file name if empty.
  std::string name;
  /// The weights in a side file next to the library (`model.weights`,
  /// mapped when loaded) instead of inside it.
  bool weightsFile = false;
};

/// Compiles the fx graph module in `ir` ahead of time into a shared object
/// holding the code, its signature and the weights (library.path), which
/// the runtime core loads with no compiler (Executable::loadLibrary,
/// fx_model_load, CompiledGraph::load); writes library.header too. The
/// object code is linked with `ld`. On failure returns false and sets
/// `error` to the diagnostics, one per line.
bool compileLibrary(llvm::StringRef ir, const CompileOptions &options,
                    const LibraryOptions &library, std::string &error,
                    llvm::ArrayRef<ExternalBlob> blobs = {});

/// Registers every pass a pipeline text may name (upstream's, fx-mlir's),
/// once per process; the compile driver and in-process pipelines call it.
void registerCompilerPasses();

/// Adds the dialects (and their extensions) the compiler's IR may hold,
/// upstream's and fx, to `registry`.
void registerCompilerDialects(mlir::DialectRegistry &registry);

/// Runs `pipeline` (as `fx-opt --pass-pipeline=` takes it, anchored on
/// builtin.module) on the textual IR `ir` in this process and returns the
/// result printed; on failure, nothing, and the diagnostics ("<loc>:
/// error: <message>", one per line, notes after their error) in `errors`.
std::optional<std::string> runPassPipeline(llvm::StringRef ir,
                                           llvm::StringRef pipeline,
                                           std::string &errors);

class CompiledGraph {
public:
  ~CompiledGraph();

  /// Compiles the fx graph module in `ir` (textual or bytecode MLIR), or
  /// loads its code from `options.cacheDir`. On
  /// failure returns null and sets `error` to the diagnostics, one per line
  /// (`loc: error: message`).
  /// `blobs` define the dense resources the IR names without defining
  /// (the Python importer hands the weights over that way).
  static std::unique_ptr<CompiledGraph>
  compile(llvm::StringRef ir, const CompileOptions &options, std::string &error,
          llvm::ArrayRef<ExternalBlob> blobs = {});

  /// Loads a library compileLibrary (fx-compile) wrote; null, with why in
  /// `error`, if it cannot. Needs no compiler.
  static std::unique_ptr<CompiledGraph> load(llvm::StringRef path,
                                             std::string &error);

  llvm::ArrayRef<TensorSpec> getInputs() const;
  llvm::ArrayRef<TensorSpec> getOutputs() const;
  /// The fx.output args as JSON (`[{"tuple": [0, 1]}]`: result indices in
  /// tuples, lists and dicts; see structureJSON) to rebuild nested outputs.
  llvm::StringRef getOutputStructure() const;

  /// Checks `args` against the inputs and runs the code. On failure
  /// (a bad input) sets `error` and runs nothing.
  bool run(llvm::ArrayRef<TensorRef> args, std::vector<OwnedTensor> &results,
           std::string &error);

  /// Checks `args` without running: count, dtypes, shapes and the index
  /// bounds of inputs that hold indices.
  bool checkInputs(llvm::ArrayRef<TensorRef> args, std::string &error) const;

  /// What the probes of an fx-instrument'ed graph recorded over the runs
  /// so far (ProbeTable::format prints the report).
  ProbeTable &getProbes();
  /// Whether compile() loaded the code from the cache.
  bool isFromCache() const;

  struct Impl;

private:
  CompiledGraph();
  /// Loads the code and signature stored under `key`; false on a miss.
  bool loadFromCache(llvm::StringRef dir, llvm::StringRef key);
  /// Stores the engine's object code and the signature under `key`.
  void storeInCache(llvm::StringRef dir, llvm::StringRef key);
  std::unique_ptr<Impl> impl;
};

} // namespace fx
} // namespace mlir

#endif // FX_MLIR_RUNTIME_RUNTIME_H
