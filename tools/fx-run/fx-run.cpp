//===- fx-run.cpp - Compile and run an fx graph module on the CPU ---------===//
//
//   fx-run model.mlir [--input x.npy]... [--output out.npy]... [--seed N]
//          [--batch N] [--dynamic-batch] [--weights-as-arguments]
//          [--interpret | --check [--rtol R --atol A]] [--repeat N]
//
// Compiles the graph module with the fx-to-llvm pipeline and runs it on the
// inputs (.npy files, or random ones from --seed), writes the outputs as
// .npy and prints a summary. --interpret runs the reference interpreter
// (LibTorch operators, node by node) instead; --check runs both and reports
// the largest absolute and relative difference per output.
//
//===----------------------------------------------------------------------===//

#include "fx-mlir/Dialect/FX/IR/FXAttrs.h"
#include "fx-mlir/Dialect/FX/IR/FXDialect.h"
#include "fx-mlir/Dialect/FX/IR/FXOps.h"
#include "fx-mlir/Interpreter/Interpreter.h"
#include "fx-mlir/Runtime/Runtime.h"
#include "fx-mlir/Runtime/TorchDTypes.h"
#include "fx-mlir/Support/ParseText.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <ATen/ATen.h>
#include <chrono>
#include <fstream>

using namespace mlir;
namespace cl = llvm::cl;

static cl::opt<std::string> inputFile(cl::Positional, cl::Required,
                                      cl::desc("<graph module .mlir>"));
static cl::list<std::string> inputs("input", cl::desc("Input .npy (in order)"),
                                    cl::value_desc("file"));
static cl::list<std::string> outputs("output",
                                     cl::desc("Where to write outputs (.npy)"),
                                     cl::value_desc("file"));
static cl::opt<uint64_t> seed("seed", cl::desc("Seed of random inputs"),
                              cl::init(0));
static cl::opt<int64_t> batch("batch",
                              cl::desc("Size of dynamic dims of random "
                                       "inputs"),
                              cl::init(1));
static cl::opt<bool> dynamicBatch("dynamic-batch",
                                  cl::desc("Compile with a dynamic dim 0"));
static cl::opt<bool> weightsAsArguments(
    "weights-as-arguments",
    cl::desc("Pass module state as arguments instead of constants"));
static cl::opt<bool> interpret("interpret",
                               cl::desc("Run the reference interpreter "
                                        "instead of compiled code"));
static cl::opt<bool> check("check", cl::desc("Run compiled code and the "
                                             "interpreter and compare"));
static cl::opt<double> relTol("rtol", cl::desc("--check relative tolerance"),
                              cl::init(1e-4));
static cl::opt<double> absTol("atol", cl::desc("--check absolute tolerance"),
                              cl::init(1e-5));
static cl::opt<unsigned>
    repeat("repeat", cl::desc("Runs to time (median printed)"), cl::init(1));
static cl::opt<std::string>
    cpu("cpu",
        cl::desc("CPU target of the generated code: host (default) or a "
                 "named one (x86-64-v3, x86-64-v4, znver4, ...)"),
        cl::init("host"));

static int fail(const llvm::Twine &message) {
  llvm::errs() << "fx-run: " << message << "\n";
  return 1;
}

//===----------------------------------------------------------------------===//
// .npy files
//===----------------------------------------------------------------------===//

// The runtime core's reader (parseNpy) checks every size against the data
// before anything is allocated; here the file is read through
// llvm::MemoryBuffer (a directory or an unreadable file is an error, where
// an ifstream would throw) and the array becomes a tensor.
static std::optional<at::Tensor> readNpy(const std::string &path,
                                         std::string &error) {
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                          /*RequiresNullTerminator=*/false);
  if (!file) {
    error = "cannot read '" + path + "': " + file.getError().message();
    return std::nullopt;
  }
  fx::NpyArray array;
  if (!fx::parseNpy((*file)->getBufferStart(), (*file)->getBufferSize(), array,
                    error)) {
    error = "'" + path + "': " + error;
    return std::nullopt;
  }
  std::optional<at::ScalarType> type = fx::getTorchScalarType(array.dtype);
  if (!type) {
    error = "'" + path + "': unsupported dtype " + array.dtype;
    return std::nullopt;
  }
  at::Tensor t = at::empty(array.shape, at::TensorOptions().dtype(*type));
  if (!array.data.empty())
    std::memcpy(t.data_ptr(), array.data.data(), array.data.size());
  return t;
}

static bool writeNpy(const std::string &path, const at::Tensor &tensor) {
  at::Tensor t = tensor.contiguous();
  std::string error;
  return fx::writeNpy(path, fx::getTorchDTypeName(t.scalar_type()),
                      t.sizes().vec(), t.data_ptr(), error);
}

//===----------------------------------------------------------------------===//
// Running
//===----------------------------------------------------------------------===//

static std::string describe(const at::Tensor &t) {
  std::string s = std::string(c10::toString(t.scalar_type())) + "[";
  for (int64_t i = 0; i < t.dim(); ++i)
    s += (i ? "x" : "") + std::to_string(t.size(i));
  return s + "]";
}

static std::string stats(const at::Tensor &t) {
  if (t.numel() == 0)
    return "empty";
  at::Tensor f = t.to(at::kDouble);
  char buffer[128];
  snprintf(buffer, sizeof(buffer), "min %.6g  max %.6g  mean %.6g",
           f.min().item<double>(), f.max().item<double>(),
           f.mean().item<double>());
  return buffer;
}

static at::ScalarType scalarTypeOf(Type element) {
  return fx::getTorchScalarType(fx::getElementDTypeName(element).str())
      .value_or(at::kFloat);
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(argc, argv,
                              "fx-run: compile and run an fx graph module\n");
  auto file = llvm::MemoryBuffer::getFileOrSTDIN(inputFile);
  if (!file)
    return fail("cannot read '" + inputFile + "'");
  std::string ir = (*file)->getBuffer().str();

  // The graph, for the interpreter and for random inputs.
  DialectRegistry registry;
  registry.insert<fx::FXDialect>();
  registerAllDialects(registry);
  MLIRContext context(registry);
  OwningOpRef<ModuleOp> module =
      fx::parseModuleText(ir, ParserConfig(&context), inputFile);
  if (!module)
    return 1;
  fx::GraphModuleOp graphModule;
  for (auto gm : module->getOps<fx::GraphModuleOp>())
    graphModule = gm;
  if (!graphModule)
    return fail("'" + inputFile + "' holds no fx.graph_module");
  auto graph = dyn_cast_or_null<fx::GraphOp>(
      SymbolTable::lookupSymbolIn(graphModule, "forward"));
  if (!graph)
    return fail("the graph module has no forward graph");
  llvm::SmallVector<fx::PlaceholderOp> placeholders;
  graph.getPlaceholders(placeholders);

  // Inputs: files, or random tensors of the placeholders' types.
  std::vector<at::Tensor> args;
  if (!inputs.empty()) {
    for (const std::string &path : inputs) {
      std::string error;
      auto t = readNpy(path, error);
      if (!t)
        return fail(error);
      args.push_back(*t);
    }
  } else {
    at::manual_seed(seed);
    for (fx::PlaceholderOp p : placeholders) {
      auto type = dyn_cast<RankedTensorType>(p.getResult().getType());
      if (!type)
        return fail("placeholder '" + p.getNodeName() +
                    "' has no tensor type; give --input files");
      std::vector<int64_t> shape;
      for (int64_t d : type.getShape())
        shape.push_back(ShapedType::isDynamic(d) ? int64_t(batch) : d);
      at::ScalarType st = scalarTypeOf(type.getElementType());
      at::Tensor t;
      // LibTorch throws where it cannot make the tensor (too large to
      // allocate): an error naming the placeholder, not an abort.
      try {
        if (at::isFloatingType(st))
          t = at::randn(shape, at::TensorOptions().dtype(st));
        else if (st == at::kBool)
          t = at::randint(0, 2, shape).to(at::kBool);
        else
          t = at::randint(0, 4, shape, at::TensorOptions().dtype(st));
      } catch (const std::exception &e) {
        std::string what = e.what(), shown;
        llvm::raw_string_ostream os(shown);
        os << type;
        return fail("cannot make a random input for placeholder '" +
                    p.getNodeName() + "' of type " + shown + ": " +
                    what.substr(0, what.find('\n')));
      }
      args.push_back(t);
    }
  }
  llvm::outs() << "inputs:\n";
  for (auto [i, t] : llvm::enumerate(args))
    llvm::outs() << "  " << i << ": " << describe(t) << "  " << stats(t)
                 << "\n";

  using Clock = std::chrono::steady_clock;
  auto ms = [](Clock::duration d) {
    return std::chrono::duration<double, std::milli>(d).count();
  };

  std::vector<at::Tensor> compiled, reference;
  if (!interpret || check) {
    fx::CompileOptions options;
    options.dynamicBatch = dynamicBatch;
    options.weightsAsArguments = weightsAsArguments;
    options.cpu = cpu;
    std::string error;
    auto start = Clock::now();
    auto code = fx::CompiledGraph::compile(ir, options, error);
    if (!code) {
      llvm::errs() << error;
      return fail("compilation failed");
    }
    double compileMs = ms(Clock::now() - start);
    std::vector<fx::TensorRef> refs;
    for (at::Tensor &t : args) {
      t = t.contiguous();
      fx::TensorRef ref;
      ref.data = t.data_ptr();
      ref.dtype = fx::getTorchDTypeName(t.scalar_type());
      ref.shape.assign(t.sizes().begin(), t.sizes().end());
      refs.push_back(ref);
    }
    std::vector<double> times;
    std::vector<fx::OwnedTensor> results;
    for (unsigned r = 0; r < std::max(1u, unsigned(repeat)); ++r) {
      auto runStart = Clock::now();
      if (!code->run(refs, results, error))
        return fail(error);
      times.push_back(ms(Clock::now() - runStart));
      if (r + 1 < repeat)
        for (auto &o : results)
          std::free(o.allocation);
    }
    std::sort(times.begin(), times.end());
    for (fx::OwnedTensor &o : results) {
      void *allocation = o.allocation;
      at::ScalarType st = fx::getTorchScalarType(o.dtype).value_or(at::kFloat);
      compiled.push_back(at::from_blob(
          o.data, o.shape, [allocation](void *) { std::free(allocation); },
          at::TensorOptions().dtype(st)));
    }
    llvm::outs() << llvm::format("compiled in %.1f ms, ran in %.3f ms",
                                 compileMs, times[times.size() / 2])
                 << (repeat > 1 ? " (median)" : "") << "\n";
    if (!code->getProbes().empty())
      llvm::outs() << "probes of the compiled code:\n"
                   << code->getProbes().format();
  }
  if (interpret || check) {
    std::vector<c10::IValue> values(args.begin(), args.end());
    fx::Interpreter interpreter(graphModule);
    auto start = Clock::now();
    auto result = interpreter.run(values);
    if (failed(result))
      return fail("the interpreter failed");
    llvm::outs() << llvm::format("interpreted in %.3f ms",
                                 ms(Clock::now() - start))
                 << "\n";
    if (!interpreter.getProbes().empty())
      llvm::outs() << "probes of the interpreter:\n"
                   << interpreter.getProbes().format();
    for (const c10::IValue &v : *result) {
      // A None in the output structure (inception_v3's scripted aux
      // logits) is not one of the compiled code's tensors either.
      if (v.isNone())
        continue;
      if (!v.isTensor())
        return fail("the interpreter returned a non-tensor output");
      reference.push_back(v.toTensor());
    }
  }

  std::vector<at::Tensor> &shown = interpret && !check ? reference : compiled;
  llvm::outs() << "outputs:\n";
  for (auto [i, t] : llvm::enumerate(shown))
    llvm::outs() << "  " << i << ": " << describe(t) << "  " << stats(t)
                 << "\n";
  int status = 0;
  if (check) {
    if (compiled.size() != reference.size())
      return fail("compiled code and interpreter disagree on the number of "
                  "outputs");
    llvm::outs() << "check (rtol " << relTol << ", atol " << absTol << "):\n";
    for (size_t i = 0; i < compiled.size(); ++i) {
      at::Tensor a = compiled[i].to(at::kDouble),
                 b = reference[i].to(at::kDouble);
      if (a.sizes() != b.sizes()) {
        llvm::outs() << "  " << i << ": shape " << describe(compiled[i])
                     << " vs " << describe(reference[i]) << "  MISMATCH\n";
        status = 1;
        continue;
      }
      double absErr = a.numel() ? (a - b).abs().max().item<double>() : 0;
      double relErr =
          a.numel() ? ((a - b).abs() / (b.abs() + 1e-12)).max().item<double>()
                    : 0;
      // NaNs in the same places agree, as torch.allclose(equal_nan=True).
      bool close = a.numel() == 0 ||
                   ((a - b).abs() <= b.abs() * double(relTol) + double(absTol))
                       .logical_or(a.isnan().logical_and(b.isnan()))
                       .logical_or(a.eq(b))
                       .all()
                       .template item<bool>();
      llvm::outs() << llvm::format("  %zu: max abs %.3g  max rel %.3g  %s\n", i,
                                   absErr, relErr, close ? "ok" : "MISMATCH");
      if (!close)
        status = 1;
    }
  }
  for (auto [i, path] : llvm::enumerate(outputs)) {
    if (i >= shown.size())
      return fail("more --output files than outputs");
    if (!writeNpy(path, shown[i]))
      return fail("cannot write '" + path + "'");
  }
  return status;
}
