//===- LogModules.cpp - An interpreter that logs module calls -------------===//
//
//   tutorial-log-modules model.mlir [--seed N]
//
// torch.fx's classic Interpreter example in C++: a subclass of
// mlir::fx::Interpreter whose callModule hook prints every module call with
// the shapes going in and out, then runs the call as the base class does.
// main() runs the graph module's forward graph on random inputs made from
// the placeholder types and prints the output shapes.
//
//===----------------------------------------------------------------------===//

#include "fx-mlir/Dialect/FX/IR/FXAttrs.h"
#include "fx-mlir/Dialect/FX/IR/FXDialect.h"
#include "fx-mlir/Dialect/FX/IR/FXOps.h"
#include "fx-mlir/Interpreter/Interpreter.h"
#include "fx-mlir/Runtime/TorchDTypes.h"
#include "fx-mlir/Support/ParseText.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <ATen/ATen.h>

using namespace mlir;
namespace cl = llvm::cl;

static cl::opt<std::string> inputFile(cl::Positional, cl::Required,
                                      cl::desc("<graph module .mlir>"));
static cl::opt<uint64_t> seed("seed", cl::desc("Seed of the random inputs"),
                              cl::init(0));

/// A tensor as its shape, `[1, 3, 8, 8]`; any other value as its kind.
static void printValue(llvm::raw_ostream &os, const c10::IValue &value) {
  if (!value.isTensor()) {
    os << value.tagKind();
    return;
  }
  os << "[";
  llvm::interleaveComma(value.toTensor().sizes(), os);
  os << "]";
}

namespace {

/// An interpreter that prints one line per call_module node it runs:
///
///   call_module conv (torch.nn.Conv2d) [1, 3, 8, 8] -> [1, 8, 8, 8]
class LogModules : public fx::Interpreter {
public:
  using Interpreter::Interpreter;

protected:
  FailureOr<c10::IValue>
  callModule(fx::CallModuleOp op, std::vector<c10::IValue> args,
             std::vector<std::pair<std::string, c10::IValue>> kwargs) override {
    // The verifier has checked that the target is a declared submodule.
    auto submodule =
        cast<fx::SubmoduleOp>(getModule().lookupTarget(op.getTarget()));
    std::string line;
    llvm::raw_string_ostream os(line);
    os << "call_module " << op.getTarget() << " (" << submodule.getModuleType()
       << ")";
    for (auto [i, arg] : llvm::enumerate(args)) {
      os << (i ? ", " : " ");
      printValue(os, arg);
    }
    // Run the module as the default hook does, then log its result.
    FailureOr<c10::IValue> result =
        Interpreter::callModule(op, std::move(args), std::move(kwargs));
    if (failed(result))
      return failure();
    os << " -> ";
    printValue(os, *result);
    llvm::outs() << os.str() << "\n";
    return result;
  }
};

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(
      argc, argv,
      "tutorial-log-modules: run an fx graph module with the "
      "reference interpreter, logging every module call\n");

  MLIRContext context;
  context.loadDialect<fx::FXDialect>();
  OwningOpRef<ModuleOp> module =
      fx::parseModuleFile(inputFile.getValue(), ParserConfig(&context));
  if (!module)
    return 1;
  auto graphModules = module->getOps<fx::GraphModuleOp>();
  if (graphModules.empty()) {
    llvm::errs() << "tutorial-log-modules: '" << inputFile
                 << "' holds no fx.graph_module\n";
    return 1;
  }
  fx::GraphModuleOp graphModule = *graphModules.begin();

  // One random tensor per placeholder, of its type (dynamic dims are 1).
  SmallVector<fx::PlaceholderOp> placeholders;
  graphModule.getForward().getPlaceholders(placeholders);
  at::manual_seed(seed);
  std::vector<c10::IValue> inputs;
  for (fx::PlaceholderOp placeholder : placeholders) {
    auto type = dyn_cast<RankedTensorType>(placeholder.getType());
    std::optional<at::ScalarType> dtype;
    if (type)
      dtype = fx::getTorchScalarType(
          fx::getElementDTypeName(type.getElementType()).str());
    if (!dtype) {
      placeholder.emitError()
          << "tutorial-log-modules: placeholder '" << placeholder.getNodeName()
          << "' is not a tensor of a torch dtype";
      return 1;
    }
    std::vector<int64_t> shape;
    for (int64_t dim : type.getShape())
      shape.push_back(ShapedType::isDynamic(dim) ? 1 : dim);
    at::Tensor input = at::isFloatingType(*dtype)
                           ? at::randn(shape, at::TensorOptions(*dtype))
                           : at::randint(0, 2, shape).to(*dtype);
    llvm::outs() << "input " << placeholder.getNodeName() << ": ";
    printValue(llvm::outs(), input);
    llvm::outs() << "\n";
    inputs.push_back(input);
  }

  LogModules interpreter(graphModule);
  FailureOr<std::vector<c10::IValue>> outputs = interpreter.run(inputs);
  if (failed(outputs))
    return 1;
  for (auto [i, output] : llvm::enumerate(*outputs)) {
    llvm::outs() << "output " << i << ": ";
    printValue(llvm::outs(), output);
    llvm::outs() << "\n";
  }
  return 0;
}
