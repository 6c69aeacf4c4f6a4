//===- Fused.cpp - Lowering of the fx_mlir.fused ops ----------------------===//
//
// `fx_mlir.fused.<op>(args..., activation=...)`, made by fx-fuse-activation,
// lowers as its op followed by the activation; the activation's
// linalg.generic is marked `fx.fused_activation` so that the pipeline tiles
// and fuses the pair into one loop nest.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

using namespace mlir;
using namespace mlir::fx;
using namespace mlir::fx::lowering;

namespace {

LogicalResult lowerFused(Lowering &l) {
  StringRef op =
      l.op.getTarget().drop_front(StringRef("fx_mlir.fused.").size());
  std::string base = op == "add" ? "aten::add.Tensor" : ("aten::" + op).str();
  if ((op == "conv1d" || op == "conv2d") &&
      isa_and_nonnull<StringAttr>(l.arg(4)))
    base += ".padding";
  LowerFn fn = lookupLowering(base);
  if (!fn)
    return l.fail("unknown fused op '" + op + "'");
  auto activation = dyn_cast_or_null<StringAttr>(l.kwarg("activation"));
  static const char *known[] = {"relu", "relu6",   "gelu", "gelu_tanh",
                                "silu", "sigmoid", "tanh", "hardswish"};
  if (!activation || !llvm::is_contained(known, activation.getValue()))
    return l.fail("needs an 'activation' kwarg naming one of relu, relu6, "
                  "gelu, gelu_tanh, silu, sigmoid, tanh, hardswish");
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
