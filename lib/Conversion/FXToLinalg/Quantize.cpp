//===- Quantize.cpp - Lowering of quantize, dequantize and int_repr -------===//
//
// After fx-normalize only these operators read or make quantized tensors
// (NormalizeQuant.cpp); the pass computes quantized tensors as their
// storage integers (signless i8 for quint8 and qint8, i32 for qint32),
// and gives dequantize and int_repr their operand's quant type in
// kQuantTypeAttr.
//
// The arithmetic is ATen's (aten/src/ATen/native/quantized/AffineQuantizer
// and its vectorized kernels), so that the integers equal eager's:
//   quantize:   q = clamp(zero_point + nearbyint(x * (1.0f / float(scale))),
//                         qmin, qmax), in f32;
//   dequantize: x = (float(q) - float(zero_point)) * float(scale), per
//               channel with each channel's.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"

using namespace mlir;
using namespace mlir::fx;
using namespace mlir::fx::lowering;

namespace {

/// The integer range of torch's quantized dtype `name`.
std::optional<std::pair<int64_t, int64_t>> dtypeRange(StringRef name) {
  if (name == "quint8")
    return std::make_pair(int64_t(0), int64_t(255));
  if (name == "qint8")
    return std::make_pair(int64_t(-128), int64_t(127));
  if (name == "qint32")
    return std::make_pair(int64_t(INT32_MIN), int64_t(INT32_MAX));
  return std::nullopt;
}

/// aten::quantize_per_tensor(Tensor self, float scale, int zero_point,
///                           ScalarType dtype)
LogicalResult lowerQuantizePerTensor(Lowering &l) {
  Value x = l.subject();
  if (!x)
    return failure();
  std::optional<double> scale =
      l.constFloat(l.arg(args::aten::quantize_per_tensor::scale));
  std::optional<int64_t> zeroPoint =
      l.constInt(args::aten::quantize_per_tensor::zero_point);
  auto dtype = dyn_cast_or_null<DTypeAttr>(
      l.arg(args::aten::quantize_per_tensor::dtype));
  if (!scale || !zeroPoint || !dtype)
    return l.fail("needs a constant scale, zero point and dtype "
                  "(fx-normalize writes them from the result's type)");
  std::optional<std::pair<int64_t, int64_t>> range =
      dtypeRange(dtype.getName());
  if (!range)
    return l.fail(("cannot quantize to torch." + dtype.getName()).str());
  auto input = cast<RankedTensorType>(x.getType());
  if (!input.getElementType().isF32())
    return l.fail("quantizes float32 tensors only");
  if (!(*scale > 0) || !std::isfinite(*scale))
    return l.fail("the scale must be a positive finite number");
  Type storage = l.resultElementType();
  auto storageInt = dyn_cast<IntegerType>(storage);
  if (!storageInt)
    return l.fail("its result is not a quantized tensor");
  float inverse = 1.0f / float(*scale);
  auto [qmin, qmax] = *range;
  Value q = mapElements(
      l.b, l.loc, x, storage, [&](OpBuilder &b, Location loc, Value v) {
        Type i64 = b.getI64Type();
        Value scaled = arith::MulFOp::create(
            b, loc, v,
            arith::ConstantOp::create(b, loc, b.getF32FloatAttr(inverse)));
        Value rounded = math::RoundEvenOp::create(b, loc, scaled);
        Value shifted = arith::AddFOp::create(
            b, loc, rounded,
            arith::ConstantOp::create(b, loc,
                                      b.getF32FloatAttr(float(*zeroPoint))));
        // Clamped in float first, so the conversion is defined; then in
        // int, where qint32's bounds are exact.
        Value lo =
            arith::ConstantOp::create(b, loc, b.getF32FloatAttr(float(qmin)));
        Value hi =
            arith::ConstantOp::create(b, loc, b.getF32FloatAttr(float(qmax)));
        Value clamped = arith::MinimumFOp::create(
            b, loc, arith::MaximumFOp::create(b, loc, shifted, lo), hi);
        Value asInt = arith::FPToSIOp::create(b, loc, i64, clamped);
        asInt = arith::MinSIOp::create(
            b, loc,
            arith::MaxSIOp::create(
                b, loc, asInt,
                arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(qmin))),
            arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(qmax)));
        return arith::TruncIOp::create(b, loc, storage, asInt).getResult();
      });
  return l.replace(q);
}

/// The quant type of the (retyped) quantized operand of `l`'s call.
quant::QuantizedType operandQuantType(Lowering &l) {
  auto attr = l.op->getAttrOfType<TypeAttr>(kQuantTypeAttr);
  return attr ? dyn_cast<quant::QuantizedType>(attr.getValue())
              : quant::QuantizedType();
}

/// The float the storage integer `q` stands for: (q - zeroPoint) * scale
/// in f32, `q` read signed or unsigned.
Value dequantizeElement(OpBuilder &b, Location loc, Value q, bool isSigned,
                        Value zeroPoint, Value scale) {
  Value f =
      isSigned ? arith::SIToFPOp::create(b, loc, b.getF32Type(), q).getResult()
               : arith::UIToFPOp::create(b, loc, b.getF32Type(), q).getResult();
  Value centered = arith::SubFOp::create(b, loc, f, zeroPoint);
  return arith::MulFOp::create(b, loc, centered, scale);
}

/// aten::dequantize.self(Tensor self)
LogicalResult lowerDequantize(Lowering &l) {
  Value q = l.subject();
  if (!q)
    return failure();
  quant::QuantizedType type = operandQuantType(l);
  if (!type)
    return l.fail("its operand is not a quantized tensor");
  bool isSigned = type.isSigned();
  if (auto uniform = dyn_cast<quant::UniformQuantizedType>(type)) {
    float scale = float(uniform.getScale());
    float zeroPoint = float(uniform.getZeroPoint());
    return l.replace(mapElements(
        l.b, l.loc, q, l.b.getF32Type(),
        [&](OpBuilder &b, Location loc, Value v) -> Value {
          return dequantizeElement(
              b, loc, v, isSigned,
              arith::ConstantOp::create(b, loc, b.getF32FloatAttr(zeroPoint)),
              arith::ConstantOp::create(b, loc, b.getF32FloatAttr(scale)));
        }));
  }
  auto perAxis = dyn_cast<quant::UniformQuantizedPerAxisType>(type);
  if (!perAxis)
    return l.fail("this quantized type is not supported");
  auto tensor = cast<RankedTensorType>(q.getType());
  int64_t axis = perAxis.getQuantizedDimension();
  int64_t channels = perAxis.getScales().size();
  if (axis < 0 || axis >= tensor.getRank() ||
      tensor.getDimSize(axis) != channels)
    return l.fail("its per-channel scales do not fit its shape");
  SmallVector<float> scales, zeroPoints;
  for (auto [s, z] : llvm::zip(perAxis.getScales(), perAxis.getZeroPoints())) {
    scales.push_back(float(s));
    zeroPoints.push_back(float(z));
  }
  auto vectorType = RankedTensorType::get({channels}, l.b.getF32Type());
  Value scaleTable = arith::ConstantOp::create(
      l.b, l.loc, DenseElementsAttr::get(vectorType, ArrayRef<float>(scales)));
  Value zeroPointTable = arith::ConstantOp::create(
      l.b, l.loc,
      DenseElementsAttr::get(vectorType, ArrayRef<float>(zeroPoints)));
  int64_t rank = tensor.getRank();
  MLIRContext *ctx = l.b.getContext();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
  AffineMap channel = AffineMap::get(rank, 0, getAffineDimExpr(axis, ctx), ctx);
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(l.b, l.loc, q);
  Value init = l.empty(sizes, l.b.getF32Type());
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      l.b, l.loc, init.getType(), ValueRange{q, scaleTable, zeroPointTable},
      ValueRange{init},
      ArrayRef<AffineMap>{identity, channel, channel, identity}, iterators,
      [&](OpBuilder &b, Location loc, ValueRange args) {
        Value r =
            dequantizeElement(b, loc, args[0], isSigned, args[2], args[1]);
        linalg::YieldOp::create(b, loc, r);
      });
  return l.replace(generic.getResult(0));
}

/// aten::int_repr(Tensor self): the storage integers; quint8's as the
/// uint8 tensor they are (computed as i32, as uint8 tensors are).
LogicalResult lowerIntRepr(Lowering &l) {
  Value q = l.subject();
  if (!q)
    return failure();
  quant::QuantizedType type = operandQuantType(l);
  if (!type)
    return l.fail("its operand is not a quantized tensor");
  Type result = l.resultElementType();
  auto storage =
      cast<IntegerType>(cast<RankedTensorType>(q.getType()).getElementType());
  if (result == storage)
    return l.replace(q);
  auto wide = dyn_cast<IntegerType>(result);
  if (!wide || wide.getWidth() <= storage.getWidth())
    return l.fail("unexpected result type");
  bool isSigned = type.isSigned();
  return l.replace(mapElements(
      l.b, l.loc, q, wide, [&](OpBuilder &b, Location loc, Value v) -> Value {
        if (isSigned)
          return arith::ExtSIOp::create(b, loc, wide, v);
        return arith::ExtUIOp::create(b, loc, wide, v);
      }));
}

} // namespace

void mlir::fx::lowering::addQuantizeLowerings(llvm::StringMap<LowerFn> &t) {
  addLowering(t, {"aten::quantize_per_tensor"}, lowerQuantizePerTensor);
  addLowering(t, {"aten::dequantize.self"}, lowerDequantize);
  addLowering(t, {"aten::int_repr"}, lowerIntRepr);
}
