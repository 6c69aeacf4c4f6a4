//===- Fused.cpp - Lowering of the fx_mlir.fused ops ----------------------===//
//
// `fx_mlir.fused.<op>(args..., activation=...)`, made by fx-fuse-activation,
// lowers as its op followed by the activation; the activation's
// linalg.generic is marked `fx.fused_activation` so that the pipeline tiles
// and fuses the pair into one loop nest.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "fx-mlir/Dialect/FX/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::fx;
using namespace mlir::fx::lowering;

namespace {

LogicalResult lowerFused(Lowering &l) {
  std::string base = getFusedBaseOp(l.target()).str();
  if (base.empty())
    return l.fail("unknown fused op");
  // A fused convolution takes its base op's arguments (and kwargs).
  static constexpr Param kPadding =
      sameParam(args::aten::conv1d::padding, args::aten::conv2d::padding);
  if ((base == "aten::conv1d" || base == "aten::conv2d") &&
      isa_and_nonnull<StringAttr>(l.arg(kPadding)))
    base += ".padding";
  LowerFn fn = lookupLowering(base);
  if (!fn)
    return l.fail("no lowering of '" + base + "'");
  auto activation = dyn_cast_or_null<StringAttr>(l.kwarg("activation"));
  if (!activation ||
      !llvm::is_contained(getFusedActivations(), activation.getValue()))
    return l.fail("needs an 'activation' kwarg naming one of " +
                  llvm::join(getFusedActivations(), ", "));
  Value y;
  l.captured = &y;
  LogicalResult lowered = fn(l);
  l.captured = nullptr;
  if (failed(lowered))
    return failure();
  Type elementType = cast<RankedTensorType>(y.getType()).getElementType();
  if (!isFloat(elementType))
    return l.fail("the activation needs a float result");
  Value out = l.elementwise({y}, elementType, elementType,
                            [&](OpBuilder &b, Location loc, ValueRange v) {
                              return buildActivation(
                                  b, loc, activation.getValue(), v[0]);
                            });
  if (Operation *def = out.getDefiningOp())
    def->setAttr("fx.fused_activation", activation);
  return l.replace(out);
}

} // namespace

void mlir::fx::lowering::addFusedLowerings(llvm::StringMap<LowerFn> &t) {
  addLowering(t,
              {"fx_mlir.fused.conv1d", "fx_mlir.fused.conv2d",
               "fx_mlir.fused.linear", "fx_mlir.fused.matmul",
               "fx_mlir.fused.add"},
              lowerFused);
}
