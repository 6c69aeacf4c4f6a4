//===- ShareConstants.cpp - Equal resource constants share one blob -------===//
//
// fx-cpu-share-constants: constants whose dense_resource blobs hold the same
// bytes at the same type take one attribute (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "fx-mlir/Conversion/Passes.h"
#include "fx-mlir/Dialect/FX/IR/FXAttrs.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/xxhash.h"

#include <cstring>

namespace mlir::fx {
#define GEN_PASS_DEF_FXCPUSHARECONSTANTS
#include "fx-mlir/Conversion/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;

namespace {

struct ShareConstantsPass
    : public mlir::fx::impl::FXCPUShareConstantsBase<ShareConstantsPass> {
  void runOnOperation() override {
    // The first attribute seen of each (type, hash of its bytes); a hash
    // shared by different bytes keeps each of them.
    llvm::DenseMap<std::pair<Type, uint64_t>,
                   SmallVector<DenseResourceElementsAttr, 1>>
        kept;
    getOperation().walk([&](arith::ConstantOp constant) {
      auto value = dyn_cast<DenseResourceElementsAttr>(constant.getValue());
      if (!value)
        return;
      ArrayRef<char> bytes = fx::getElementsData(value);
      if (bytes.empty())
        return;
      uint64_t hash = llvm::xxh3_64bits(llvm::ArrayRef<uint8_t>(
          reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size()));
      SmallVector<DenseResourceElementsAttr, 1> &same =
          kept[{value.getType(), hash}];
      for (DenseResourceElementsAttr earlier : same) {
        if (earlier == value)
          return;
        ArrayRef<char> data = fx::getElementsData(earlier);
        if (data.size() == bytes.size() &&
            std::memcmp(data.data(), bytes.data(), bytes.size()) == 0) {
          constant.setValueAttr(earlier);
          return;
        }
      }
      same.push_back(value);
    });
  }
};

} // namespace
