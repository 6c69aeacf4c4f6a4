//===- RuntimeModule.cpp - fx_mlir._fx_runtime: CompiledGraph for Python --===//
//
// The Python face of the runtime: compile fx dialect text, then call the
// compiled graph on torch.Tensors. Inputs are passed by pointer (no copy
// for contiguous tensors); outputs become tensors that own the buffers the
// compiled code allocated.
//
//===----------------------------------------------------------------------===//

#include "fx-mlir/Dialect/FX/IR/FXDialect.h"
#include "fx-mlir/Dialect/FX/Registry/Registry.h"
#include "fx-mlir/Dialect/FX/Transforms/Passes.h"
#include "fx-mlir/Runtime/Runtime.h"
#include "fx-mlir/Runtime/TorchDTypes.h"
#include "fx-mlir/Target/Python/ExportPython.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <torch/csrc/autograd/python_variable.h>
#include <torch/csrc/utils/pybind.h>

#include <ATen/ATen.h>
#include <c10/core/ScalarType.h>

namespace py = pybind11;
using mlir::fx::CompiledGraph;

namespace {

at::ScalarType scalarType(const std::string &name) {
  if (auto type = mlir::fx::getTorchScalarType(name))
    return *type;
  throw std::runtime_error("unsupported dtype " + name);
}

void freeAllocation(void *allocation) { std::free(allocation); }

/// Raises fx_mlir.FxMlirError (the Python package's error) with `message`.
[[noreturn]] void raiseFxMlirError(const std::string &message) {
  static py::object type = py::module_::import("fx_mlir").attr("FxMlirError");
  PyErr_SetString(type.ptr(), message.c_str());
  throw py::error_already_set();
}

/// A CPU tensor over `r`'s buffer that frees its allocation when the last
/// reference goes: a storage built directly, without from_blob's
/// std::function deleter (this is the per-call path).
at::Tensor ownedTensor(const mlir::fx::OwnedTensor &r) {
  caffe2::TypeMeta type = caffe2::TypeMeta::fromScalarType(scalarType(r.dtype));
  int64_t count = 1;
  for (int64_t size : r.shape)
    count *= size;
  c10::DataPtr data(r.data, r.allocation, &freeAllocation,
                    c10::Device(c10::kCPU));
  c10::Storage storage(c10::Storage::use_byte_size_t(), count * type.itemsize(),
                       std::move(data),
                       /*allocator=*/nullptr, /*resizable=*/false);
  at::Tensor tensor = at::detail::make_tensor<c10::TensorImpl>(
      std::move(storage), c10::DispatchKeySet(c10::DispatchKey::CPU), type);
  tensor.unsafeGetTensorImpl()->set_sizes_contiguous(r.shape);
  return tensor;
}

/// The buffers of one call (input descriptions, results, contiguous
/// copies of strided inputs), kept per thread from call to call so that
/// the per-call path does not allocate them anew.
struct Scratch {
  std::vector<mlir::fx::TensorRef> refs;
  std::vector<mlir::fx::OwnedTensor> results;
  std::vector<at::Tensor> copies;
};

/// This thread's Scratch, or a fresh one when it is in use (a call made
/// while another runs on this thread).
class ScratchUse {
public:
  ScratchUse() {
    if (!busy()) {
      busy() = true;
      shared = true;
    }
  }
  ~ScratchUse() {
    if (shared) {
      get().copies.clear();
      busy() = false;
    }
  }
  Scratch &get() { return shared ? perThread() : own; }

private:
  static bool &busy() {
    thread_local bool value = false;
    return value;
  }
  static Scratch &perThread() {
    thread_local Scratch scratch;
    return scratch;
  }
  bool shared = false;
  Scratch own;
};

/// Weights handed to the compiler as memory: (resource key, tensor).
using BlobList = std::vector<std::pair<std::string, at::Tensor>>;

/// The blobs of `blobs`' tensors (contiguous CPU tensors the caller keeps
/// alive while the compiler reads them).
std::vector<mlir::fx::ExternalBlob> externalBlobs(const BlobList &blobs) {
  std::vector<mlir::fx::ExternalBlob> result;
  for (const auto &[key, tensor] : blobs) {
    if (!tensor.device().is_cpu() || !tensor.is_contiguous() ||
        tensor.layout() != at::kStrided)
      throw std::invalid_argument("weight '" + key +
                                  "': expected a contiguous CPU tensor");
    result.push_back({key, tensor.data_ptr(), size_t(tensor.nbytes()),
                      size_t(tensor.element_size())});
  }
  return result;
}

/// A compiled graph callable on tensors.
class PyCompiledGraph {
public:
  PyCompiledGraph(const std::string &ir, bool weightsAsArguments,
                  bool dynamicBatch, const std::string &cacheDir,
                  const std::string &cpu, const BlobList &blobs) {
    mlir::fx::CompileOptions options;
    options.weightsAsArguments = weightsAsArguments;
    options.dynamicBatch = dynamicBatch;
    options.cacheDir = cacheDir;
    options.cpu = cpu;
    std::string error;
    {
      py::gil_scoped_release release;
      graph = CompiledGraph::compile(ir, options, error, externalBlobs(blobs));
    }
    if (!graph)
      throw std::invalid_argument(error.empty() ? "compilation failed" : error);
  }

  /// A library compileLibrary wrote, loaded with the runtime core.
  explicit PyCompiledGraph(std::unique_ptr<CompiledGraph> loaded)
      : graph(std::move(loaded)) {}

  /// The graph called as a Python function of its inputs, for a graph of
  /// one output: its tensor. Raises fx_mlir.FxMlirError for the wrong
  /// count or kind of inputs and for what the runtime refuses, as the
  /// Python wrapper does. This is the per-call path of single-output
  /// graphs: no Python frame, no list of tensors converted.
  py::object callArgs(const py::args &args, const py::kwargs &kwargs) {
    if (!kwargs.empty())
      raiseFxMlirError(
          "inputs are passed by position; got the keyword argument '" +
          py::str(kwargs.begin()->first).cast<std::string>() + "'");
    size_t expected = graph->getInputs().size();
    if (args.size() != expected)
      raiseFxMlirError("expected " + std::to_string(expected) +
                       " inputs, got " + std::to_string(args.size()));
    for (size_t i = 0; i < args.size(); ++i)
      if (!THPVariable_Check(args[i].ptr()))
        raiseFxMlirError("input " + std::to_string(i) +
                         ": expected a torch.Tensor, got " +
                         Py_TYPE(args[i].ptr())->tp_name);
    ScratchUse use;
    try {
      run(use.get(), args.size(), [&](size_t i) -> const at::Tensor & {
        return THPVariable_Unpack(args[i].ptr());
      });
    } catch (const std::invalid_argument &e) {
      raiseFxMlirError(e.what());
    }
    if (use.get().results.size() != 1)
      raiseFxMlirError("the graph has " +
                       std::to_string(use.get().results.size()) + " outputs");
    return py::reinterpret_steal<py::object>(
        THPVariable_Wrap(ownedTensor(use.get().results[0])));
  }

  std::vector<at::Tensor> call(const std::vector<at::Tensor> &args) {
    ScratchUse use;
    run(use.get(), args.size(),
        [&](size_t i) -> const at::Tensor & { return args[i]; });
    std::vector<at::Tensor> outputs;
    outputs.reserve(use.get().results.size());
    for (mlir::fx::OwnedTensor &r : use.get().results)
      outputs.push_back(ownedTensor(r));
    return outputs;
  }

  py::list specs(bool isInput) const {
    py::list result;
    auto list = isInput ? graph->getInputs() : graph->getOutputs();
    for (const auto &spec : list)
      result.append(py::make_tuple(spec.dtype, spec.shape));
    return result;
  }

  bool fromCache() const { return graph->isFromCache(); }

  std::string outputStructure() const {
    return graph->getOutputStructure().str();
  }

private:
  /// Runs the graph on the tensors `tensor(i)`, i < `count`; the results
  /// are in `scratch.results`. Throws std::invalid_argument with the
  /// runtime's message when it refuses the inputs.
  template <typename Get>
  void run(Scratch &scratch, size_t count, Get &&tensor) {
    scratch.refs.resize(count);
    scratch.copies.clear();
    scratch.copies.reserve(count);
    for (size_t i = 0; i < count; ++i) {
      const at::Tensor *t = &tensor(i);
      if (!t->device().is_cpu())
        throw std::invalid_argument("inputs must be CPU tensors");
      if (t->layout() != at::kStrided || t->is_quantized())
        throw std::invalid_argument(
            "input " + std::to_string(i) + ": expected a dense tensor, got " +
            (t->is_quantized() ? std::string("a quantized")
                               : "a " + c10::str(t->layout())) +
            " one");
      // Contiguous tensors are passed as they are; others are made so.
      if (!t->is_contiguous()) {
        scratch.copies.push_back(t->contiguous());
        t = &scratch.copies.back();
      }
      mlir::fx::TensorRef &ref = scratch.refs[i];
      ref.data = t->data_ptr();
      ref.dtype = mlir::fx::getTorchDTypeName(t->scalar_type());
      ref.shape.assign(t->sizes().begin(), t->sizes().end());
    }
    std::string error;
    bool ok;
    {
      py::gil_scoped_release release;
      ok = graph->run(scratch.refs, scratch.results, error);
    }
    if (!ok)
      throw std::invalid_argument(error);
  }

  std::unique_ptr<CompiledGraph> graph;
};

/// The JSON description (`fx-translate --export-fx-json`) of the
/// fx.graph_module `name` (the only one when empty) of `ir`, or, with
/// `script`, the script `--export-python` writes, allowing `allowed`'s
/// module types; raises FxMlirError with the first error.
std::string exportGraphModule(const std::string &ir, const std::string &name,
                              bool script,
                              const std::vector<std::string> &allowed) {
  std::string errors, text;
  {
    py::gil_scoped_release release;
    mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
    context.loadDialect<mlir::fx::FXDialect>();
    llvm::raw_string_ostream diagnostics(errors);
    mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
      if (d.getSeverity() == mlir::DiagnosticSeverity::Error && errors.empty())
        diagnostics << d.getLocation() << ": error: " << d;
      return mlir::success();
    });
    mlir::OwningOpRef<mlir::ModuleOp> module =
        mlir::parseSourceString<mlir::ModuleOp>(
            ir, mlir::ParserConfig(&context), "<stdin>");
    llvm::raw_string_ostream os(text);
    bool ok =
        module &&
        succeeded(script ? mlir::fx::exportPython(*module, os, name, allowed)
                         : mlir::fx::exportGraphModuleJson(*module, os, name));
    if (ok)
      errors.clear();
    else if (errors.empty())
      errors = "the graph module does not export";
  }
  if (!errors.empty())
    raiseFxMlirError(errors);
  return text;
}

} // namespace

PYBIND11_MODULE(_fx_runtime, m) {
  m.doc() = "fx-mlir's JIT runtime: compiled fx graphs callable on tensors";
  m.def("set_num_threads", &mlir::fx::setNumThreads, py::arg("threads"),
        "Threads the parallel loops of compiled graphs run on");
  m.def(
      "compile_library",
      [](const std::string &ir, const std::string &path, bool dynamicBatch,
         const std::string &cpu, const std::string &header,
         const std::string &name, bool weightsFile, const BlobList &blobs) {
        mlir::fx::CompileOptions options;
        options.dynamicBatch = dynamicBatch;
        options.cpu = cpu;
        mlir::fx::LibraryOptions library;
        library.path = path;
        library.header = header;
        library.name = name;
        library.weightsFile = weightsFile;
        std::string error;
        bool ok;
        {
          py::gil_scoped_release release;
          ok = mlir::fx::compileLibrary(ir, options, library, error,
                                        externalBlobs(blobs));
        }
        if (!ok)
          raiseFxMlirError(llvm::StringRef(error).trim().str());
      },
      py::arg("ir"), py::arg("path"), py::arg("dynamic_batch") = false,
      py::arg("cpu") = "host", py::arg("header") = "", py::arg("name") = "",
      py::arg("weights_file") = false, py::arg("blobs") = BlobList(),
      "Compiles an fx graph module ahead of time into a shared object (and "
      "a C header), as fx-compile does");
  auto aliasNames = [](mlir::fx::AliasKind kind) {
    std::vector<std::string> names;
    for (const auto &alias : mlir::fx::TargetRegistry::get().getAliases())
      if (alias->kind == kind)
        names.push_back(alias->name);
    return names;
  };
  m.def(
      "module_types", [=] { return aliasNames(mlir::fx::AliasKind::Module); },
      "The module types (`torch.nn.Conv2d`) the target registry binds");
  m.def(
      "expanded_module_types",
      [] {
        std::vector<std::string> names;
        for (llvm::StringRef type : mlir::fx::getExpandedModuleTypes())
          names.push_back(type.str());
        return names;
      },
      "The module types fx-normalize expands into calls itself");
  m.def(
      "expanded_functions",
      [] {
        std::vector<std::string> names;
        for (llvm::StringRef name : mlir::fx::getExpandedFunctions())
          names.push_back(name.str());
        return names;
      },
      "The torch.nn.functional functions fx-normalize rewrites itself");
  m.def(
      "function_names",
      [=] { return aliasNames(mlir::fx::AliasKind::Function); },
      "The call_function targets (`torch.nn.functional.relu`) the target "
      "registry binds");
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
  m.def(
      "run_pipeline",
      [](const std::string &ir, const std::string &pipeline) {
        std::string errors;
        std::optional<std::string> result;
        {
          py::gil_scoped_release release;
          result = mlir::fx::runPassPipeline(ir, pipeline, errors);
        }
        if (!result)
          raiseFxMlirError(llvm::StringRef(errors).trim().str());
        return *result;
      },
      py::arg("ir"), py::arg("pipeline"),
      "Runs a pass pipeline (`builtin.module(...)`, as fx-opt's "
      "--pass-pipeline) on textual IR in this process; returns the IR "
      "printed, or raises FxMlirError with the diagnostics");
  m.def(
      "export_fx_json",
      [](const std::string &ir, const std::string &name) {
        return exportGraphModule(ir, name, false, {});
      },
      py::arg("ir"), py::arg("graph_module") = "",
      "The JSON description of an fx.graph_module, as fx-translate "
      "--export-fx-json writes it");
  m.def(
      "export_python",
      [](const std::string &ir, const std::vector<std::string> &allowed,
         const std::string &name) {
        return exportGraphModule(ir, name, true, allowed);
      },
      py::arg("ir"), py::arg("allowed_modules"), py::arg("graph_module") = "",
      "The script fx-translate --export-python writes for an "
      "fx.graph_module");
  py::class_<PyCompiledGraph>(m, "CompiledGraph")
      .def(py::init<const std::string &, bool, bool, const std::string &,
                    const std::string &, const BlobList &>(),
           py::arg("ir"), py::arg("weights_as_arguments") = false,
           py::arg("dynamic_batch") = false, py::arg("cache_dir") = "",
           py::arg("cpu") = "host", py::arg("blobs") = BlobList())
      .def_static(
          "load",
          [](const std::string &path) {
            std::string error;
            std::unique_ptr<CompiledGraph> graph =
                CompiledGraph::load(path, error);
            if (!graph)
              raiseFxMlirError(error);
            return std::make_unique<PyCompiledGraph>(std::move(graph));
          },
          py::arg("path"), "Loads a library compile_library (fx-compile) wrote")
      .def("__call__", &PyCompiledGraph::call)
      .def("call_args", &PyCompiledGraph::callArgs,
           "The graph of one output called on its inputs: its tensor")
      .def(
          "call_one",
          [](PyCompiledGraph &g, const std::vector<at::Tensor> &args) {
            std::vector<at::Tensor> results = g.call(args);
            if (results.size() != 1)
              throw std::invalid_argument("the graph has " +
                                          std::to_string(results.size()) +
                                          " outputs, not one");
            return results.front();
          },
          "Calls a graph of one output and returns it")
      .def_property_readonly(
          "inputs", [](const PyCompiledGraph &g) { return g.specs(true); })
      .def_property_readonly(
          "outputs", [](const PyCompiledGraph &g) { return g.specs(false); })
      .def_property_readonly("from_cache", &PyCompiledGraph::fromCache)
      .def_property_readonly("output_structure",
                             &PyCompiledGraph::outputStructure);
}
