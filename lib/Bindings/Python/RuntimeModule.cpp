//===- RuntimeModule.cpp - fx_mlir._fx_runtime: CompiledGraph for Python --===//
//
// The Python face of the runtime: compile fx dialect text, then call the
// compiled graph on torch.Tensors. Inputs are passed by pointer (no copy
// for contiguous tensors); outputs become tensors that own the buffers the
// compiled code allocated.
//
//===----------------------------------------------------------------------===//

#include "fx-mlir/Dialect/FX/Registry/Registry.h"
#include "fx-mlir/Runtime/Runtime.h"
#include "fx-mlir/Runtime/TorchDTypes.h"

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

/// A compiled graph callable on tensors.
class PyCompiledGraph {
public:
  PyCompiledGraph(const std::string &ir, bool weightsAsArguments,
                  bool dynamicBatch, const std::string &cacheDir) {
    mlir::fx::CompileOptions options;
    options.weightsAsArguments = weightsAsArguments;
    options.dynamicBatch = dynamicBatch;
    options.cacheDir = cacheDir;
    std::string error;
    {
      py::gil_scoped_release release;
      graph = CompiledGraph::compile(ir, options, error);
    }
    if (!graph)
      throw std::invalid_argument(error.empty() ? "compilation failed" : error);
  }

  std::vector<at::Tensor> call(const std::vector<at::Tensor> &args) {
    std::vector<at::Tensor> inputs;
    std::vector<mlir::fx::TensorRef> refs;
    inputs.reserve(args.size());
    refs.reserve(args.size());
    for (const at::Tensor &arg : args) {
      if (!arg.device().is_cpu())
        throw std::invalid_argument("inputs must be CPU tensors");
      // Contiguous tensors are passed as they are; others are made so.
      inputs.push_back(arg.is_contiguous() ? arg : arg.contiguous());
      const at::Tensor &t = inputs.back();
      mlir::fx::TensorRef ref;
      ref.data = t.data_ptr();
      ref.dtype = mlir::fx::getTorchDTypeName(t.scalar_type());
      ref.shape.assign(t.sizes().begin(), t.sizes().end());
      refs.push_back(std::move(ref));
    }
    std::vector<mlir::fx::OwnedTensor> results;
    std::string error;
    bool ok;
    {
      py::gil_scoped_release release;
      ok = graph->run(refs, results, error);
    }
    if (!ok)
      throw std::invalid_argument(error);
    std::vector<at::Tensor> outputs;
    outputs.reserve(results.size());
    for (mlir::fx::OwnedTensor &r : results)
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
  std::unique_ptr<CompiledGraph> graph;
};

} // namespace

PYBIND11_MODULE(_fx_runtime, m) {
  m.doc() = "fx-mlir's JIT runtime: compiled fx graphs callable on tensors";
  m.def("set_num_threads", &mlir::fx::setNumThreads, py::arg("threads"),
        "Threads the parallel loops of compiled graphs run on");
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
      "function_names",
      [=] { return aliasNames(mlir::fx::AliasKind::Function); },
      "The call_function targets (`torch.nn.functional.relu`) the target "
      "registry binds");
  py::class_<PyCompiledGraph>(m, "CompiledGraph")
      .def(py::init<const std::string &, bool, bool, const std::string &>(),
           py::arg("ir"), py::arg("weights_as_arguments") = false,
           py::arg("dynamic_batch") = false, py::arg("cache_dir") = "")
      .def("__call__", &PyCompiledGraph::call)
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
