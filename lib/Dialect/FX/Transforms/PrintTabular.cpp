//===- PrintTabular.cpp - Print fx graphs as node tables --------*- C++ -*-===//
//
// The counterpart of torch.fx's Graph.print_tabular(): one row per node with
// opcode, name, target, args and kwargs, laid out as tabulate's "simple"
// format lays them out.
//
//===----------------------------------------------------------------------===//

#include "fx-mlir/Dialect/FX/IR/PythonRepr.h"
#include "fx-mlir/Dialect/FX/Transforms/Passes.h"

#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/ToolOutputFile.h"

namespace mlir::fx {
#define GEN_PASS_DEF_FXPRINTTABULAR
#include "fx-mlir/Dialect/FX/Transforms/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;
using namespace mlir::fx;

/// The name FX prints for the value of operand `index` of `op`.
static std::string operandName(Operation *op, unsigned index) {
  Value value = op->getOperand(index);
  if (auto node = value.getDefiningOp<NodeOpInterface>())
    return node.getNodeName().str();
  return "<<unknown>>";
}

void mlir::fx::printTabular(GraphOp graph, llvm::raw_ostream &os) {
  static const char *headers[] = {"opcode", "name", "target", "args", "kwargs"};
  std::vector<std::array<std::string, 5>> rows;
  for (Operation &op : graph.getBody().front()) {
    auto node = dyn_cast<NodeOpInterface>(op);
    if (!node)
      continue;
    auto repr = [&](Attribute value) {
      std::string text;
      llvm::raw_string_ostream s(text);
      printPythonRepr(value, s,
                      [&](unsigned index) { s << operandName(&op, index); });
      return text;
    };
    rows.push_back({node.getOpcode().str(), node.getNodeName().str(),
                    node.getTargetName().str(), repr(node.getArgs()),
                    repr(node.getKwargs())});
  }
  // Widths count characters (UTF-8 code points), as tabulate does.
  auto width = [](StringRef text) {
    return llvm::count_if(text, [](char c) { return (c & 0xC0) != 0x80; });
  };
  std::array<size_t, 5> widths;
  for (size_t c = 0; c < 5; ++c) {
    // tabulate's minimum column width is the header plus two.
    widths[c] = strlen(headers[c]) + 2;
    for (auto &row : rows)
      widths[c] = std::max<size_t>(widths[c], width(row[c]));
  }
  auto printRow = [&](auto cell) {
    std::string line;
    for (size_t c = 0; c < 5; ++c) {
      std::string text = cell(c);
      line += text;
      if (c + 1 < 5)
        line += std::string(widths[c] - width(text) + 2, ' ');
    }
    os << StringRef(line).rtrim() << '\n';
  };
  printRow([&](size_t c) { return std::string(headers[c]); });
  printRow([&](size_t c) { return std::string(widths[c], '-'); });
  for (auto &row : rows)
    printRow([&](size_t c) { return row[c]; });
}

namespace {
struct FXPrintTabularPass
    : public fx::impl::FXPrintTabularBase<FXPrintTabularPass> {
  using Base::Base;

  void runOnOperation() override {
    std::string error;
    std::unique_ptr<llvm::ToolOutputFile> file = openOutputFile(output, &error);
    if (!file) {
      getOperation()->emitError() << "fx-print-tabular: " << error;
      return signalPassFailure();
    }
    llvm::raw_ostream &os = file->os();
    bool first = true;
    getOperation()->walk([&](GraphOp graph) {
      if (!first)
        os << '\n';
      first = false;
      os << "graph ";
      if (auto module = graph->getParentOfType<GraphModuleOp>())
        os << module.getSymName() << '.';
      os << graph.getSymName() << ":\n";
      printTabular(graph, os);
    });
    os.flush();
    file->keep();
    markAllAnalysesPreserved();
  }
};
} // namespace
