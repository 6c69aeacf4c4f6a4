//===- CoreModule.cpp - fx_mlir._fx_core: compiled code without LLVM ------===//
//
// The part of the Python package's native code that needs no compiler, so
// that it links the runtime core (FXRuntimeCore) and LibTorch only: no
// LLVM, no MLIR. It loads code cache entries by their quick key
// (Cache.cpp) and ahead-of-time libraries, calls them on tensors
// (TensorCalls.h), and gives the tables the importer reads (DTypes.def,
// FusedActivations.def). `fx_mlir.compile` looks the cache up here first;
// only a miss loads fx_mlir._fx_runtime, the compiler.
//
//===----------------------------------------------------------------------===//

#include "TensorCalls.h"

namespace py = pybind11;
using namespace fx_python;
using mlir::fx::Executable;

namespace {

/// Code the runtime core loaded, callable on tensors.
class PyExecutable : public TensorCalls<PyExecutable> {
public:
  PyExecutable(std::unique_ptr<Executable> executable, bool cached)
      : executable(std::move(executable)), cached(cached) {}

  const std::vector<mlir::fx::TensorSpec> &inputSpecs() const {
    return executable->inputs;
  }
  const std::vector<mlir::fx::TensorSpec> &outputSpecs() const {
    return executable->outputs;
  }
  bool runRefs(std::vector<mlir::fx::TensorRef> &refs,
               std::vector<mlir::fx::OwnedTensor> &results,
               std::string &error) {
    return executable->run(refs.data(), refs.size(), results, error);
  }
  bool fromCache() const { return cached; }
  std::string outputStructure() const { return executable->outputStructure; }

private:
  std::unique_ptr<Executable> executable;
  bool cached;
};

} // namespace

PYBIND11_MODULE(_fx_core, m) {
  m.doc() = "fx-mlir's runtime core for Python: cached and ahead-of-time "
            "compiled graphs callable on tensors, with no compiler loaded";
  m.def("set_num_threads", &mlir::fx::setNumThreads, py::arg("threads"),
        "Sets how many threads compiled graphs run on (OpenMP)");
  m.def(
      "quick_key",
      [](const std::string &ir, const BlobList &blobs,
         const std::string &settings) {
        std::vector<mlir::fx::ExternalBlob> memory = externalBlobs(blobs);
        py::gil_scoped_release release;
        return mlir::fx::quickCacheKey(ir, memory, settings);
      },
      py::arg("ir"), py::arg("blobs"), py::arg("settings"),
      "The key fx_mlir.compile looks the code cache up by before it loads "
      "the compiler: of the IR, the weights' bytes, `settings` and this "
      "host's CPU");
  m.def(
      "load_cached",
      [](const std::string &dir, const std::string &alias) -> py::object {
        std::unique_ptr<Executable> executable;
        {
          py::gil_scoped_release release;
          std::string key = mlir::fx::readCacheAlias(dir, alias);
          if (!key.empty())
            executable = Executable::loadCached(dir, key);
        }
        if (!executable)
          return py::none();
        return py::cast(
            std::make_unique<PyExecutable>(std::move(executable), true));
      },
      py::arg("cache_dir"), py::arg("quick_key"),
      "The cache entry the quick key names, loaded and checked; None for a "
      "miss (no entry, one of object code, or one whose files do not match "
      "their digests)");
  m.def(
      "load_library",
      [](const std::string &path) {
        std::string error;
        std::unique_ptr<Executable> executable =
            Executable::loadLibrary(path, error);
        if (!executable)
          raiseFxMlirError(error);
        // As the compiler runtime reported it: loaded code, not compiled.
        return std::make_unique<PyExecutable>(std::move(executable), true);
      },
      py::arg("path"), "Loads a library compile_library (fx-compile) wrote");
  m.def(
      "dtypes",
      [] {
        std::vector<std::tuple<std::string, std::string, int>> table;
#define FX_DTYPE(NAME, ELEMENT_TYPE, BYTES, SCALAR_TYPE, NPY)                  \
  table.emplace_back(#NAME, ELEMENT_TYPE, BYTES);
#include "fx-mlir/Dialect/FX/IR/DTypes.def"
        return table;
      },
      "The dtypes the IR holds tensors of (DTypes.def): (torch name, MLIR "
      "element type, bytes per element)");
  m.def(
      "fused_activations",
      [] {
        std::vector<std::pair<std::string, std::string>> table;
#define FX_ACTIVATION(NAME, PYTHON) table.emplace_back(#NAME, PYTHON);
#include "fx-mlir/Dialect/FX/Transforms/FusedActivations.def"
        return table;
      },
      "The activations fused ops apply (FusedActivations.def): (name, the "
      "Python function computing it, by qualified name)");
  py::class_<PyExecutable> executable(m, "Executable");
  defineCalls(executable);
}
