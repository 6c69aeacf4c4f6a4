//===- ByteBools.cpp - Vectors of bools read and written as bytes ---------===//
//
// fx-cpu-byte-bools: a load or store of a vector of i1 becomes one of a
// vector of i8 with a truncation or zero extension (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "fx-mlir/Conversion/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::fx {
#define GEN_PASS_DEF_FXCPUBYTEBOOLS
#include "fx-mlir/Conversion/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;

namespace {

/// `type` with i8 elements if it is a vector of i1, else null.
VectorType asBytes(Type type) {
  auto vector = dyn_cast<VectorType>(type);
  if (!vector || !vector.getElementType().isInteger(1))
    return {};
  return vector.clone(IntegerType::get(type.getContext(), 8));
}

struct ByteBoolsPass
    : public mlir::fx::impl::FXCPUByteBoolsBase<ByteBoolsPass> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (isa<LLVM::LoadOp, LLVM::StoreOp, LLVM::MaskedLoadOp,
              LLVM::MaskedStoreOp, LLVM::masked_gather, LLVM::masked_scatter>(
              op))
        ops.push_back(op);
    });
    OpBuilder b(&getContext());
    // The bools a load of bytes `wide` holds replace the load `op` of bits.
    auto replaceLoad = [&](Operation *op, Value wide) {
      b.setInsertionPointAfter(op);
      Value narrow = LLVM::TruncOp::create(b, op->getLoc(),
                                           op->getResult(0).getType(), wide);
      op->getResult(0).replaceAllUsesWith(narrow);
      op->erase();
    };
    for (Operation *op : ops) {
      b.setInsertionPoint(op);
      Location loc = op->getLoc();
      if (auto load = dyn_cast<LLVM::LoadOp>(op)) {
        VectorType bytes = asBytes(load.getType());
        if (!bytes)
          continue;
        auto wide = LLVM::LoadOp::create(
            b, loc, bytes, load.getAddr(), load.getAlignment().value_or(1),
            load.getVolatile_(), load.getNontemporal());
        replaceLoad(op, wide);
      } else if (auto store = dyn_cast<LLVM::StoreOp>(op)) {
        VectorType bytes = asBytes(store.getValue().getType());
        if (!bytes)
          continue;
        auto wide = LLVM::ZExtOp::create(b, loc, bytes, store.getValue());
        LLVM::StoreOp::create(b, loc, wide, store.getAddr(),
                              store.getAlignment().value_or(1),
                              store.getVolatile_(), store.getNontemporal());
        store.erase();
      } else if (auto load = dyn_cast<LLVM::MaskedLoadOp>(op)) {
        VectorType bytes = asBytes(load.getType());
        if (!bytes)
          continue;
        Value passThru;
        if (Value v = load.getPassThru())
          passThru = LLVM::ZExtOp::create(b, loc, bytes, v);
        auto wide = LLVM::MaskedLoadOp::create(
            b, loc, bytes, load.getData(), load.getMask(), passThru,
            load.getAlignmentAttr(), load.getNontemporalAttr());
        replaceLoad(op, wide);
      } else if (auto store = dyn_cast<LLVM::MaskedStoreOp>(op)) {
        VectorType bytes = asBytes(store.getValue().getType());
        if (!bytes)
          continue;
        auto wide = LLVM::ZExtOp::create(b, loc, bytes, store.getValue());
        LLVM::MaskedStoreOp::create(b, loc, wide, store.getData(),
                                    store.getMask(), store.getAlignmentAttr());
        store.erase();
      } else {
        // A gather or scatter of bools: not emitted today; an error rather
        // than a read of bits.
        Type data = isa<LLVM::masked_gather>(op) ? op->getResult(0).getType()
                                                 : op->getOperand(0).getType();
        if (asBytes(data)) {
          op->emitError("fx-cpu-byte-bools: a gather or scatter of a vector "
                        "of bools is not supported");
          return signalPassFailure();
        }
      }
    }
  }
};

} // namespace
