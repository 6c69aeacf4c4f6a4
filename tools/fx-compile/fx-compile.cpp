//===- fx-compile.cpp - Compile an fx graph module ahead of time ----------===//
//
//   fx-compile model.mlir -o model.so [--header model.h] [--name N]
//              [--cpu TARGET] [--weights-file] [--dynamic-batch]
//
// Compiles the graph module with the fx-to-llvm pipeline into a shared
// object holding the code, its signature and the weights (or the weights
// in `model.weights` next to it, with --weights-file), and writes a C
// header declaring `<name>_forward`, the model's typed entry point. A
// program runs the library with the runtime core only (fx_runtime.h,
// CMake target FxMLIR::FXRuntimeCore): no Python, LibTorch, LLVM or MLIR.
// `fx-run model.so` runs one too.
//
//===----------------------------------------------------------------------===//

#include "fx-mlir/Runtime/Runtime.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
namespace cl = llvm::cl;

static cl::opt<std::string> inputFile(cl::Positional, cl::Required,
                                      cl::desc("<graph module .mlir>"));
static cl::opt<std::string> outputFile("o", cl::Required,
                                       cl::desc("The shared object to write"),
                                       cl::value_desc("model.so"));
static cl::opt<std::string> headerFile("header",
                                       cl::desc("A C header to write, with "
                                                "the typed entry point"),
                                       cl::value_desc("model.h"));
static cl::opt<std::string>
    name("name", cl::desc("The entry point's prefix in the header "
                          "(default: the library's file name)"));
static cl::opt<std::string>
    cpu("cpu",
        cl::desc("CPU target of the generated code: host (default) or a "
                 "named one (x86-64-v3, x86-64-v4, znver4, ...)"),
        cl::init("host"));
static cl::opt<bool> weightsFile(
    "weights-file",
    cl::desc("Write the weights next to the library (model.weights) "
             "instead of into it"));
static cl::opt<bool> dynamicBatch("dynamic-batch",
                                  cl::desc("Compile with a dynamic dim 0"));

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(argc, argv, "fx-mlir ahead-of-time compiler\n");
  auto buffer = llvm::MemoryBuffer::getFileOrSTDIN(inputFile);
  if (!buffer) {
    llvm::errs() << "fx-compile: cannot read '" << inputFile
                 << "': " << buffer.getError().message() << "\n";
    return 1;
  }
  fx::CompileOptions options;
  options.cpu = cpu;
  options.dynamicBatch = dynamicBatch;
  fx::LibraryOptions library;
  library.path = outputFile;
  library.header = headerFile;
  library.name = name;
  library.weightsFile = weightsFile;
  std::string error;
  if (!fx::compileLibrary((*buffer)->getBuffer(), options, library, error)) {
    llvm::errs() << (error.empty() ? "fx-compile: compilation failed\n"
                                   : error);
    return 1;
  }
  return 0;
}
