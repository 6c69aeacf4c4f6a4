//===- ReadOnlyArguments.cpp - The caller's tensors are not written -------===//
//
// fx-cpu-read-only-arguments: marks every tensor argument of a function
// `bufferization.writable = false` (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "fx-mlir/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace mlir::fx {
#define GEN_PASS_DEF_FXCPUREADONLYARGUMENTS
#include "fx-mlir/Conversion/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;

namespace {

struct ReadOnlyArgumentsPass
    : public mlir::fx::impl::FXCPUReadOnlyArgumentsBase<ReadOnlyArgumentsPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    Builder b(&getContext());
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
      if (isa<TensorType>(func.getArgument(i).getType()))
        func.setArgAttr(i, "bufferization.writable", b.getBoolAttr(false));
  }
};

} // namespace
