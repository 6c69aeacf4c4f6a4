//===- fx-downstream.cpp - A client of the installed fx-mlir ----*- C++ -*-===//
//
// Parses an fx graph module with the installed dialect, counts the nodes of
// each kind through NodeOpInterface, and prints the node table through the
// C++ API of the installed passes library.
//
//===----------------------------------------------------------------------===//

#include "fx-mlir/Dialect/FX/IR/FXOps.h"
#include "fx-mlir/Dialect/FX/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  if (argc != 2) {
    llvm::errs() << "usage: fx-downstream file.mlir\n";
    return 2;
  }
  mlir::MLIRContext context;
  context.loadDialect<mlir::fx::FXDialect>();
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(argv[1], &context);
  if (!module)
    return 1;
  module->walk([](mlir::fx::GraphOp graph) {
    llvm::MapVector<llvm::StringRef, unsigned> counts;
    for (auto node : graph.getBody().getOps<mlir::fx::NodeOpInterface>())
      ++counts[node.getOpcode()];
    llvm::outs() << "graph " << graph.getSymName() << ":";
    for (auto &[opcode, count] : counts)
      llvm::outs() << " " << opcode << "=" << count;
    llvm::outs() << "\n";
    mlir::fx::printTabular(graph, llvm::outs());
  });
  return 0;
}
