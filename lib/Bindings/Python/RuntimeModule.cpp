//===- RuntimeModule.cpp - fx_mlir._fx_runtime: the compiler for Python ---===//
//
// The Python face of the compiler: compile fx dialect text and call the
// compiled graph on torch.Tensors (TensorCalls.h), run pass pipelines,
// export graphs, list the registry's names. What needs no compiler (the
// code cache's hits, ahead-of-time libraries, the dtype and activation
// tables) is fx_mlir._fx_core's (CoreModule.cpp), which links no LLVM.
//
//===----------------------------------------------------------------------===//

#include "fx-mlir/Dialect/FX/IR/FXDialect.h"
#include "fx-mlir/Dialect/FX/Registry/Registry.h"
#include "fx-mlir/Dialect/FX/Transforms/Passes.h"
#include "fx-mlir/Runtime/Runtime.h"
#include "fx-mlir/Support/ParseText.h"
#include "fx-mlir/Target/Python/ExportPython.h"
#include "fx-mlir/Target/TorchScript/ImportTorchScript.h"

#include "TensorCalls.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"

namespace py = pybind11;
using fx_python::BlobList;
using fx_python::externalBlobs;
using fx_python::raiseFxMlirError;
using mlir::fx::CompiledGraph;

namespace {

/// A compiled graph callable on tensors.
class PyCompiledGraph : public fx_python::TensorCalls<PyCompiledGraph> {
public:
  PyCompiledGraph(const std::string &ir, bool weightsAsArguments,
                  bool dynamicBatch, const std::string &cacheDir,
                  const std::string &cpu, const BlobList &blobs,
                  const std::string &cacheAlias) {
    mlir::fx::CompileOptions options;
    options.weightsAsArguments = weightsAsArguments;
    options.dynamicBatch = dynamicBatch;
    options.cacheDir = cacheDir;
    options.cpu = cpu;
    options.cacheAlias = cacheAlias;
    std::string error;
    {
      py::gil_scoped_release release;
      graph = CompiledGraph::compile(ir, options, error, externalBlobs(blobs));
    }
    if (!graph)
      throw std::invalid_argument(error.empty() ? "compilation failed" : error);
  }

  llvm::ArrayRef<mlir::fx::TensorSpec> inputSpecs() const {
    return graph->getInputs();
  }
  llvm::ArrayRef<mlir::fx::TensorSpec> outputSpecs() const {
    return graph->getOutputs();
  }
  bool runRefs(std::vector<mlir::fx::TensorRef> &refs,
               std::vector<mlir::fx::OwnedTensor> &results,
               std::string &error) {
    return graph->run(refs, results, error);
  }

  bool fromCache() const { return graph->isFromCache(); }

  std::string outputStructure() const {
    return graph->getOutputStructure().str();
  }

private:
  std::unique_ptr<CompiledGraph> graph;
};

/// A diagnostic handler keeping the first error in `errors`, with its
/// location.
std::function<mlir::LogicalResult(mlir::Diagnostic &)>
firstError(std::string &errors) {
  return [&errors](mlir::Diagnostic &d) {
    if (d.getSeverity() == mlir::DiagnosticSeverity::Error && errors.empty())
      llvm::raw_string_ostream(errors) << d.getLocation() << ": error: " << d;
    return mlir::success();
  };
}

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
    mlir::ScopedDiagnosticHandler handler(&context, firstError(errors));
    mlir::OwningOpRef<mlir::ModuleOp> module =
        mlir::fx::parseModuleText(ir, mlir::ParserConfig(&context), "<stdin>");
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

/// The torch.nn module types the compiler binds as calls: the registry's
/// module aliases and the types fx-normalize expands.
std::vector<std::string> compiledModuleTypes() {
  std::vector<std::string> names;
  for (const auto &alias : mlir::fx::TargetRegistry::get().getAliases())
    if (alias->kind == mlir::fx::AliasKind::Module)
      names.push_back(alias->name);
  for (llvm::StringRef type : mlir::fx::getExpandedModuleTypes())
    names.push_back(type.str());
  return names;
}

/// Whether the compiler binds a module of `type` with `hparams`: a type
/// fx-normalize expands, or a module alias whose requirements on
/// hyperparameters hold (those on call arguments are the call's) and whose
/// hyperparameters it binds are recorded, None only where allowed. (The
/// Python tracer decides the same from `module_requirements` of
/// _names.json, which fx-targets writes, without loading the compiler.)
bool compilesModule(llvm::StringRef type, mlir::fx::DictAttr hparams) {
  if (llvm::is_contained(mlir::fx::getExpandedModuleTypes(), type))
    return true;
  const auto &registry = mlir::fx::TargetRegistry::get();
  for (const mlir::fx::Alias *alias :
       registry.lookupAliases(mlir::fx::AliasKind::Module, type)) {
    bool holds = true;
    for (const auto &[name, literal] : alias->requirements) {
      llvm::StringRef key = name;
      if (!key.consume_front("%") || key == "training")
        continue;
      mlir::Attribute actual = hparams.lookup(key);
      if (!actual ||
          actual != mlir::fx::parseLiteral(hparams.getContext(), literal)) {
        holds = false;
        break;
      }
    }
    // A hyperparameter bound to a parameter no overload lets be None (one
    // without a default, which None would take: BatchNorm's momentum=None)
    // does not bind either.
    for (const auto &[param, value] : alias->bindings) {
      llvm::StringRef key = value;
      if (!holds || !key.consume_front("%") || key == "training")
        continue;
      mlir::Attribute actual = hparams.lookup(key);
      if (!actual) {
        holds = false;
      } else if (llvm::isa<mlir::fx::NoneAttr>(actual)) {
        std::string op = llvm::StringRef(alias->op).split('.').first.str();
        holds = llvm::any_of(
            registry.getOverloads(op), [&](const mlir::fx::OpSchema *schema) {
              int i = schema->findParam(param);
              return i >= 0 && (schema->params[i].type.optional ||
                                schema->params[i].hasDefault);
            });
      }
    }
    if (holds)
      return true;
  }
  return false;
}

/// The fx IR of the TorchScript archive `data` (torch.jit.save's bytes),
/// run on `inputs` to type its nodes (fx-translate --import-torchscript);
/// raises FxMlirError with the importer's errors.
std::string importTorchScriptArchive(
    const std::string &data, const std::vector<at::Tensor> &inputs,
    const std::string &name,
    const std::optional<std::vector<std::vector<at::Tensor>>> &moreSets,
    bool inlineTracedLeaves) {
  std::string errors, text;
  {
    py::gil_scoped_release release;
    mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
    context.loadDialect<mlir::fx::FXDialect>();
    mlir::ScopedDiagnosticHandler handler(&context, firstError(errors));
    mlir::fx::TorchScriptImportOptions options;
    options.exampleInputs = &inputs;
    if (moreSets)
      options.moreExampleSets = &*moreSets;
    options.graphModuleName = name;
    options.inlineTracedLeaves = inlineTracedLeaves;
    if (inlineTracedLeaves) {
      options.compiledModuleTypes = compiledModuleTypes();
      options.compilesModule = compilesModule;
    }
    auto buffer =
        llvm::MemoryBuffer::getMemBuffer(data, "<scripted module>",
                                         /*RequiresNullTerminator=*/false);
    mlir::OwningOpRef<mlir::ModuleOp> module = mlir::fx::importTorchScript(
        buffer->getMemBufferRef(), &context, options);
    if (module) {
      llvm::raw_string_ostream os(text);
      module->print(os);
      errors.clear();
    } else if (errors.empty()) {
      errors = "the TorchScript module does not import";
    }
  }
  if (!errors.empty())
    raiseFxMlirError(errors);
  return text;
}

} // namespace

PYBIND11_MODULE(_fx_runtime, m) {
  m.doc() = "fx-mlir's JIT runtime: compiled fx graphs callable on tensors";
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
  m.def("import_torchscript", &importTorchScriptArchive, py::arg("data"),
        py::arg("inputs"), py::arg("name") = "",
        py::arg("more_inputs") = std::nullopt,
        py::arg("inline_traced_leaves") = false,
        "The fx IR of a TorchScript archive (torch.jit.save's bytes), its "
        "graph run on the example inputs to type every node, as "
        "fx-translate --import-torchscript; control flow becomes graphs "
        "of the graph module");
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
  py::class_<PyCompiledGraph> compiledGraph(m, "CompiledGraph");
  compiledGraph.def(
      py::init<const std::string &, bool, bool, const std::string &,
               const std::string &, const BlobList &, const std::string &>(),
      py::arg("ir"), py::arg("weights_as_arguments") = false,
      py::arg("dynamic_batch") = false, py::arg("cache_dir") = "",
      py::arg("cpu") = "host", py::arg("blobs") = BlobList(),
      py::arg("cache_alias") = "");
  fx_python::defineCalls(compiledGraph);
}
