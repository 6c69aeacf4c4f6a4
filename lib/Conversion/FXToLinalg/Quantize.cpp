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

#include "Compose.h"
#include "Lowering.h"

#include "fx-mlir/Dialect/FX/Transforms/Passes.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::fx;
using namespace mlir::fx::lowering;
using namespace mlir::fx::lowering::compose;

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

} // namespace

Value mlir::fx::lowering::quantizedValue(OpBuilder &b, Location loc, Value v,
                                         Value inverse, Value zeroPoint,
                                         float lo, float hi,
                                         std::optional<float> overflow) {
  Value scaled = arith::MulFOp::create(b, loc, v, inverse);
  Value q = math::RoundEvenOp::create(b, loc, scaled);
  q = arith::AddFOp::create(b, loc, q, zeroPoint);
  // maxnum: a NaN becomes lo, as in ATen's vectorized kernel (its
  // conversion gives INT_MIN, clamped), and against constants the bounds
  // are one instruction each (maxps, minps).
  Value clamped = arith::MinNumFOp::create(
      b, loc,
      arith::MaxNumFOp::create(
          b, loc, q, arith::ConstantOp::create(b, loc, b.getF32FloatAttr(lo))),
      arith::ConstantOp::create(b, loc, b.getF32FloatAttr(hi)));
  if (!overflow)
    return clamped;
  // ATen's quantize_val converts the rounded value to int64 before it
  // adds the zero point and clamps: from 2^63 up (+inf) the conversion
  // gives INT64_MIN too, clamped to the dtype's minimum. (Its vectorized
  // kernel converts to int32, which does so from 2^31 up.)
  Value over = arith::CmpFOp::create(
      b, loc, arith::CmpFPredicate::OGE, scaled,
      arith::ConstantOp::create(b, loc,
                                b.getF32FloatAttr(9223372036854775808.0f)));
  return arith::SelectOp::create(
      b, loc, over,
      arith::ConstantOp::create(b, loc, b.getF32FloatAttr(*overflow)), clamped);
}

Value mlir::fx::lowering::storageInteger(OpBuilder &b, Location loc,
                                         Value clamped, Type storage) {
  return arith::TruncIOp::create(
      b, loc, storage,
      arith::FPToSIOp::create(b, loc, b.getI32Type(), clamped));
}

Value mlir::fx::lowering::centeredInteger(OpBuilder &b, Location loc, Value q,
                                          bool isSigned, Value zeroPoint) {
  Type f32 = b.getF32Type();
  Value f = isSigned ? arith::SIToFPOp::create(b, loc, f32, q).getResult()
                     : arith::UIToFPOp::create(b, loc, f32, q).getResult();
  return arith::SubFOp::create(b, loc, f, zeroPoint);
}

namespace {

/// The call_function node the op's subject (its first argument) comes
/// from, if that node takes one node, as its first argument, and no
/// keyword arguments; else null.
CallFunctionOp subjectCall(Lowering &l) {
  auto self = l.args().empty() ? NodeAttr() : dyn_cast<NodeAttr>(l.args()[0]);
  if (!self || self.getIndex() >= l.op->getNumOperands())
    return {};
  auto call = l.op->getOperand(self.getIndex()).getDefiningOp<CallFunctionOp>();
  if (!call || call.getNumOperands() != 1 || call.getArgs().empty() ||
      !call.getKwargs().empty() || !isa<NodeAttr>(call.getArgs()[0]))
    return {};
  return call;
}

/// The lowered value of `call`'s node operand, if it has type `type`.
Value loweredOperand(Lowering &l, CallFunctionOp call, Type type) {
  Value y = static_cast<ConversionPatternRewriter &>(l.b).getRemappedValue(
      call.getOperand(0));
  return y && y.getType() == type ? y : Value();
}

/// y, where the op's subject `x` is relu(y) and its (fake) quantization
/// has the zero point `zeroPoint` at the dtype's minimum `qmin`; else null.
/// The quantization is increasing and maps 0 to the zero point, so
///   clamp(zp + round(max(y, 0) / s), qmin, qmax)
///     = clamp(zp + round(y / s), qmin, qmax)        (zp = qmin)
/// and a NaN gives qmin either way (ATen's kernels: relu keeps the NaN,
/// the quantization makes it qmin). With the zero point above qmin the
/// ReLU would be a clamp from the zero point, but a NaN would then give
/// the zero point: the ReLU stays. A ReLU another node reads stays for it.
Value reluOperand(Lowering &l, Value x, int64_t zeroPoint, int64_t qmin) {
  if (zeroPoint != qmin)
    return {};
  CallFunctionOp relu = subjectCall(l);
  if (!relu || relu.getTarget() != "aten::relu" || relu.getArgs().size() != 1)
    return {};
  return loweredOperand(l, relu, x.getType());
}

/// A clamp between two quantizations with the same parameters, as torch's
/// quantized ReLU6, hardtanh and clamp run (on the integers, bounds
/// quantized): `x` is `clamp(fake_quantize(y, scale, zp, qmin, qmax), a,
/// b)` (aten::hardtanh, relu6, relu, or clamp with number bounds) and the
/// op quantizes it with `scale` and `zp` into [qmin, qmax]. Then
///   quantize(x) = min(max(quantize(y), q(a)), q(b))
/// with q(t) the quantization of the bound, computed as the lowering
/// computes it (f32). The quantization is increasing and gives back k
/// from k's dequantized value, so both sides are q(a) below, q(b) above,
/// quantize(y) between (b below a: q(b) everywhere); for a NaN y both give
/// min(q(a), q(b)) (the fake quantization makes a NaN qmin; the clamp in
/// `quantizedValue` makes it its lower bound). {y, q(a), q(b)}, or nullopt.
struct ClampedOperand {
  Value y;
  float lo, hi;
  /// What a value scaled from 2^63 up gives, where the fake quantization
  /// keeps the quantize's int64 quirk (kQuantizeOverflowAttr): its qmin,
  /// clamped.
  std::optional<float> overflow;
};
std::optional<ClampedOperand> clampedOperand(Lowering &l, Value x, double scale,
                                             int64_t zeroPoint, int64_t qmin,
                                             int64_t qmax) {
  CallFunctionOp clamp = subjectCall(l);
  if (!clamp)
    return std::nullopt;
  StringRef target = clamp.getTarget();
  ArrayAttr args = clamp.getArgs();
  double inf = std::numeric_limits<double>::infinity();
  auto bound = [&](unsigned i, double none) -> std::optional<double> {
    if (i >= args.size() || isa<NoneAttr>(args[i]))
      return none;
    if (auto f = dyn_cast<FloatAttr>(args[i]))
      return f.getValueAsDouble();
    if (auto n = dyn_cast<IntegerAttr>(args[i]))
      return double(n.getValue().getSExtValue());
    return std::nullopt;
  };
  std::optional<double> a, b;
  if (target == "aten::relu" && args.size() == 1) {
    a = 0.0;
    b = inf;
  } else if (target == "aten::relu6" && args.size() == 1) {
    a = 0.0;
    b = 6.0;
  } else if ((target == "aten::hardtanh" || target == "aten::clamp") &&
             args.size() == 3) {
    a = bound(1, -inf);
    b = bound(2, inf);
  }
  if (!a || !b || std::isnan(*a) || std::isnan(*b))
    return std::nullopt;
  auto fake = clamp.getOperand(0).getDefiningOp<CallFunctionOp>();
  if (!fake || fake.getTarget() != "aten::fake_quantize_per_tensor_affine" ||
      fake.getNumOperands() != 1 || fake.getArgs().size() != 5 ||
      !fake.getKwargs().empty() || !isa<NodeAttr>(fake.getArgs()[0]))
    return std::nullopt;
  ArrayAttr f = fake.getArgs();
  auto fakeScale = dyn_cast<FloatAttr>(f[1]);
  auto fakeZeroPoint = dyn_cast<IntegerAttr>(f[2]);
  auto fakeMin = dyn_cast<IntegerAttr>(f[3]);
  auto fakeMax = dyn_cast<IntegerAttr>(f[4]);
  if (!fakeScale || !fakeZeroPoint || !fakeMin || !fakeMax ||
      float(fakeScale.getValueAsDouble()) != float(scale) ||
      fakeZeroPoint.getValue().getSExtValue() != zeroPoint ||
      fakeMin.getValue().getSExtValue() != qmin ||
      fakeMax.getValue().getSExtValue() != qmax)
    return std::nullopt;
  Value y = loweredOperand(l, fake, x.getType());
  if (!y)
    return std::nullopt;
  // An infinite bound clamps nothing (the dequantized values are finite);
  // a finite one far out of range (where ATen's conversion to int64 would
  // give its quirk) is left to the unfolded form.
  float inverse = 1.0f / float(scale);
  auto quantized = [&](double t) -> std::optional<float> {
    if (std::isinf(t))
      return t < 0 ? float(qmin) : float(qmax);
    float scaled = float(t) * inverse;
    if (!(std::fabs(scaled) <= 0x1p30f))
      return std::nullopt;
    float v = std::nearbyint(scaled) + float(zeroPoint);
    return std::min(std::max(v, float(qmin)), float(qmax));
  };
  std::optional<float> lo = quantized(*a), hi = quantized(*b);
  if (!lo || !hi)
    return std::nullopt;
  std::optional<float> overflow;
  if (fake->hasAttr(kQuantizeOverflowAttr))
    overflow = std::min(std::max(float(qmin), *lo), *hi);
  return ClampedOperand{y, *lo, *hi, overflow};
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
  float lo = float(qmin), hi = float(qmax);
  // Bytes keep ATen's int64 quirk (qmin from 2^63 up); quantize(clamp(
  // fake_quantize(y))) with the same parameters is a clamp of quantize(y)
  // (torch's quantized ReLU6, hardtanh, clamp).
  std::optional<float> overflow;
  std::optional<ClampedOperand> c;
  if (storageInt.getWidth() <= 16) {
    overflow = float(qmin);
    c = clampedOperand(l, x, *scale, *zeroPoint, qmin, qmax);
  }
  if (c) {
    x = c->y;
    lo = c->lo;
    hi = c->hi;
    // The clamp's input was a dequantized integer, which reaches 2^63 only
    // through the fake quantization's quirk, if it keeps one.
    overflow = c->overflow;
  } else if (Value y = reluOperand(l, x, *zeroPoint, qmin)) {
    // quantize(relu(y)) as quantize(y) where the zero point is the dtype's
    // minimum (every ReLU output's observer gives one): the ReLU is the
    // clamp's lower bound then.
    x = y;
  }
  Value q = mapElements(
      l.b, l.loc, x, storage, [&](OpBuilder &b, Location loc, Value v) {
        Type i64 = b.getI64Type();
        // Clamped in float first, so the conversion is defined; then in
        // int, where qint32's bounds are exact. Bytes are exact in float:
        // their clamped value converts through i32 alone (half the vector
        // work of i64).
        Value clamped = quantizedValue(
            b, loc, v,
            arith::ConstantOp::create(b, loc, b.getF32FloatAttr(inverse)),
            arith::ConstantOp::create(b, loc,
                                      b.getF32FloatAttr(float(*zeroPoint))),
            lo, hi, overflow);
        if (storageInt.getWidth() <= 16)
          return storageInteger(b, loc, clamped, storage);
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

/// A generic over `x` quantized (or to be quantized) per channel along
/// `type`'s axis: each element of `element` type computed by `body` from
/// the element and its channel's entries of `first` (a table of
/// `firstType`) and `second` (f32), one entry a channel; null, the failure
/// recorded, when the channels do not fit `x`'s shape.
Value mapChannels(
    Lowering &l, Value x, quant::UniformQuantizedPerAxisType type,
    ArrayRef<double> first, FloatType firstType, ArrayRef<float> second,
    Type element,
    function_ref<Value(OpBuilder &, Location, Value, Value, Value)> body) {
  auto tensor = cast<RankedTensorType>(x.getType());
  int64_t axis = type.getQuantizedDimension();
  int64_t channels = type.getScales().size();
  if (axis < 0 || axis >= tensor.getRank() ||
      tensor.getDimSize(axis) != channels) {
    (void)l.fail("its per-channel scales do not fit its shape");
    return nullptr;
  }
  SmallVector<Attribute> firstValues;
  for (double v : first)
    firstValues.push_back(FloatAttr::get(firstType, v));
  Value firstTable = arith::ConstantOp::create(
      l.b, l.loc,
      DenseElementsAttr::get(RankedTensorType::get({channels}, firstType),
                             firstValues));
  Value secondTable = arith::ConstantOp::create(
      l.b, l.loc,
      DenseElementsAttr::get(
          RankedTensorType::get({channels}, l.b.getF32Type()), second));
  int64_t rank = tensor.getRank();
  MLIRContext *ctx = l.b.getContext();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
  AffineMap channel = AffineMap::get(rank, 0, getAffineDimExpr(axis, ctx), ctx);
  Value init = l.empty(tensor::getMixedSizes(l.b, l.loc, x), element);
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      l.b, l.loc, init.getType(), ValueRange{x, firstTable, secondTable},
      ValueRange{init},
      ArrayRef<AffineMap>{identity, channel, channel, identity}, iterators,
      [&](OpBuilder &b, Location loc, ValueRange args) {
        linalg::YieldOp::create(b, loc,
                                body(b, loc, args[0], args[1], args[2]));
      });
  return generic.getResult(0);
}

/// aten::quantize_per_channel(Tensor self, Tensor scales, Tensor
/// zero_points, int axis, ScalarType dtype): each element quantized as
/// quantize_per_tensor does, with its channel's scale and zero point, read
/// from the result's per-axis type (the example run's parameters; the
/// operands are the constants convert_to_reference_fx reads them from).
LogicalResult lowerQuantizePerChannel(Lowering &l) {
  Value x = l.subject();
  if (!x)
    return failure();
  auto resultType = l.op->getAttrOfType<TypeAttr>(kResultQuantTypeAttr);
  auto perAxis =
      resultType
          ? dyn_cast<quant::UniformQuantizedPerAxisType>(resultType.getValue())
          : quant::UniformQuantizedPerAxisType();
  auto input = cast<RankedTensorType>(x.getType());
  if (!perAxis)
    return l.fail("its result is not a per-channel quantized tensor");
  if (!input.getElementType().isF32())
    return l.fail("quantizes float32 tensors only");
  auto storage = dyn_cast<IntegerType>(l.resultElementType());
  if (!storage || storage.getWidth() > 16)
    return l.fail("quantizes to 8-bit types only");
  float qmin = float(perAxis.getStorageTypeMin());
  float qmax = float(perAxis.getStorageTypeMax());
  SmallVector<double> inverses;
  SmallVector<float> zeroPoints;
  for (auto [s, z] : llvm::zip(perAxis.getScales(), perAxis.getZeroPoints())) {
    if (!(s > 0) || !std::isfinite(s))
      return l.fail("the scales must be positive finite numbers");
    inverses.push_back(1.0f / float(s));
    zeroPoints.push_back(float(z));
  }
  Value q = mapChannels(
      l, x, perAxis, inverses, l.b.getF32Type(), zeroPoints, storage,
      [&](OpBuilder &b, Location loc, Value v, Value inverse, Value zp) {
        return storageInteger(
            b, loc, quantizedValue(b, loc, v, inverse, zp, qmin, qmax),
            storage);
      });
  return q ? l.replace(q) : failure();
}

/// The quantized operand of `l`'s call (retyped to its storage integers)
/// and its quant type; a null value, the failure recorded, otherwise.
std::pair<Value, quant::QuantizedType> quantizedSubject(Lowering &l) {
  Value q = l.subject();
  auto attr = l.op->getAttrOfType<TypeAttr>(kQuantTypeAttr);
  auto type = attr ? dyn_cast<quant::QuantizedType>(attr.getValue())
                   : quant::QuantizedType();
  if (q && !type) {
    (void)l.fail("its operand is not a quantized tensor");
    return {};
  }
  return {q, type};
}

/// The float the storage integer `q` stands for: (q - zeroPoint) * scale
/// in f32, `q` read signed or unsigned.
Value dequantizeElement(OpBuilder &b, Location loc, Value q, bool isSigned,
                        Value zeroPoint, Value scale) {
  return arith::MulFOp::create(
      b, loc, centeredInteger(b, loc, q, isSigned, zeroPoint), scale);
}

/// aten::dequantize.self(Tensor self)
LogicalResult lowerDequantize(Lowering &l) {
  auto [q, type] = quantizedSubject(l);
  if (!q)
    return failure();
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
  // Per channel, ATen multiplies by the double scale (the integer less the
  // zero point is exact in f32), then rounds to f32.
  SmallVector<double> scales(perAxis.getScales());
  SmallVector<float> zeroPoints;
  for (int64_t z : perAxis.getZeroPoints())
    zeroPoints.push_back(float(z));
  Value x = mapChannels(
      l, q, perAxis, scales, l.b.getF64Type(), zeroPoints, l.b.getF32Type(),
      [&](OpBuilder &b, Location loc, Value v, Value scale, Value zp) {
        Value centered = arith::ExtFOp::create(
            b, loc, b.getF64Type(), centeredInteger(b, loc, v, isSigned, zp));
        return arith::TruncFOp::create(
                   b, loc, b.getF32Type(),
                   arith::MulFOp::create(b, loc, centered, scale))
            .getResult();
      });
  return x ? l.replace(x) : failure();
}

/// aten::int_repr(Tensor self): the storage integers; quint8's as the
/// uint8 tensor they are (computed as i32, as uint8 tensors are).
LogicalResult lowerIntRepr(Lowering &l) {
  auto [q, type] = quantizedSubject(l);
  if (!q)
    return failure();
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

/// aten::_choose_qparams_per_tensor(Tensor self, bool reduce_range):
/// (scale, zero_point) for quint8 from the range of `self`, as ATen's
/// quant_utils::ChooseQuantizationParams computes them (the range widened
/// to hold 0, the scale in double, 0.1 for a zero or too small one, scales
/// under 6.1e-5 raised to it with the range scaled along, the zero point
/// from the end whose error is smaller, nudged into [qmin, qmax]). With
/// reduce_range the range is [0, 127], as the onednn, x86 and fbgemm
/// engines compute it (qnnpack ignores reduce_range).
LogicalResult lowerChooseQParams(Lowering &l) {
  using P = args::aten::_choose_qparams_per_tensor;
  Value x = l.tensor(P::self);
  if (!x)
    return failure();
  if (!cast<RankedTensorType>(x.getType()).getElementType().isF32())
    return l.fail("chooses quantization parameters of float32 tensors only");
  std::optional<bool> reduceRange = l.isNone(P::reduce_range)
                                        ? std::optional<bool>(false)
                                        : l.constBool(P::reduce_range);
  if (!reduceRange)
    return l.fail("reduce_range must be a constant");
  OpBuilder &b = l.b;
  Location loc = l.loc;
  Type f32 = b.getF32Type(), f64 = b.getF64Type();
  auto extremum = [&](StringRef target) -> Value {
    Value t =
        l.lowerCall(target, {ref(l, 0), ints(l, {}), b.getBoolAttr(false)}, {x},
                    tensorOf(f32));
    return t ? tensor::ExtractOp::create(b, loc, t, ValueRange{}).getResult()
             : Value();
  };
  Value lo = extremum("aten::amin"), hi = extremum("aten::amax");
  if (!lo || !hi)
    return failure();
  double qmin = 0, qmax = *reduceRange ? 127 : 255;
  auto cf = [&](double v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(float(v)));
  };
  auto cd = [&](double v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getF64FloatAttr(v));
  };
  auto ext = [&](Value v) -> Value {
    return arith::ExtFOp::create(b, loc, f64, v);
  };
  auto cmpf = [&](arith::CmpFPredicate p, Value a, Value c) -> Value {
    return arith::CmpFOp::create(b, loc, p, a, c);
  };
  auto select = [&](Value c, Value a, Value d) -> Value {
    return arith::SelectOp::create(b, loc, c, a, d);
  };
  lo = arith::MinimumFOp::create(b, loc, lo, cf(0));
  hi = arith::MaximumFOp::create(b, loc, hi, cf(0));
  Value scale = arith::DivFOp::create(
      b, loc, arith::SubFOp::create(b, loc, ext(hi), ext(lo)), cd(qmax - qmin));
  Value scaleF = arith::TruncFOp::create(b, loc, f32, scale);
  Value inverse = arith::DivFOp::create(b, loc, cf(1), scaleF);
  Value useDefault = arith::OrIOp::create(
      b, loc, cmpf(arith::CmpFPredicate::OEQ, scaleF, cf(0)),
      cmpf(arith::CmpFPredicate::OEQ, math::AbsFOp::create(b, loc, inverse),
           cf(std::numeric_limits<float>::infinity())));
  scale = select(useDefault, cd(0.1), scale);
  // Scales under the threshold are raised to it, the range scaled along.
  const float threshold = 6.1e-5f;
  Value small = cmpf(arith::CmpFPredicate::OLT, scale, cd(double(threshold)));
  Value original = arith::TruncFOp::create(b, loc, f32, scale);
  Value amplifier = arith::DivFOp::create(b, loc, cf(threshold), original);
  Value span = cf(threshold * float(qmax - qmin));
  Value loIsZero = cmpf(arith::CmpFPredicate::OEQ, lo, cf(0));
  Value hiIsZero = cmpf(arith::CmpFPredicate::OEQ, hi, cf(0));
  Value loScaled = arith::MulFOp::create(b, loc, lo, amplifier);
  Value hiScaled = arith::MulFOp::create(b, loc, hi, amplifier);
  Value newHi = select(loIsZero, span, select(hiIsZero, hi, hiScaled));
  Value newLo =
      select(loIsZero, lo,
             select(hiIsZero, arith::NegFOp::create(b, loc, span), loScaled));
  lo = select(small, newLo, lo);
  hi = select(small, newHi, hi);
  scale = select(small, cd(double(threshold)), scale);
  // The zero point, from the end that loses less.
  Value loSteps = arith::DivFOp::create(b, loc, ext(lo), scale);
  Value hiSteps = arith::DivFOp::create(b, loc, ext(hi), scale);
  Value fromMin = arith::SubFOp::create(b, loc, cd(qmin), loSteps);
  Value fromMax = arith::SubFOp::create(b, loc, cd(qmax), hiSteps);
  Value minError = arith::SubFOp::create(b, loc, cd(std::abs(qmin)),
                                         math::AbsFOp::create(b, loc, loSteps));
  Value maxError = arith::SubFOp::create(b, loc, cd(std::abs(qmax)),
                                         math::AbsFOp::create(b, loc, hiSteps));
  Value initial = select(cmpf(arith::CmpFPredicate::OLT, minError, maxError),
                         fromMin, fromMax);
  Value nudged =
      select(cmpf(arith::CmpFPredicate::OLT, initial, cd(qmin)), cd(qmin),
             select(cmpf(arith::CmpFPredicate::OGT, initial, cd(qmax)),
                    cd(qmax), math::RoundEvenOp::create(b, loc, initial)));
  Value zeroPoint = arith::FPToSIOp::create(b, loc, b.getI64Type(), nudged);
  return l.replaceTuple({scale, zeroPoint});
}

/// aten::fake_quantize_per_tensor_affine(Tensor self, float scale,
/// int zero_point, int quant_min, int quant_max): `self` quantized and
/// dequantized, (clamp(zero_point + nearbyint(x * (1.0f / scale)),
/// quant_min, quant_max) - zero_point) * scale, in f32 as ATen's kernel;
/// scale and zero point constants or values (computed at run time).
LogicalResult lowerFakeQuantize(Lowering &l) {
  using P = args::aten::fake_quantize_per_tensor_affine;
  Value x = l.tensor(P::self);
  if (!x)
    return failure();
  if (!cast<RankedTensorType>(x.getType()).getElementType().isF32())
    return l.fail("fake-quantizes float32 tensors only");
  std::optional<int64_t> qmin = l.constInt(P::quant_min);
  std::optional<int64_t> qmax = l.constInt(P::quant_max);
  if (!qmin || !qmax || *qmin > *qmax)
    return l.fail("quant_min and quant_max must be constants, in order");
  Type f32 = l.b.getF32Type();
  Value scale = l.scalar(l.arg(P::scale), f32);
  Value zeroPoint = l.scalar(l.arg(P::zero_point), f32);
  if (!scale || !zeroPoint)
    return l.fail("needs a scale and a zero point");
  Value inverse = arith::DivFOp::create(
      l.b, l.loc, arith::ConstantOp::create(l.b, l.loc, l.b.getF32FloatAttr(1)),
      scale);
  float lo = float(*qmin), hi = float(*qmax);
  // The fake quantization fx-fold-quant makes of a quantize and its
  // dequantize keeps the quantize's int64 quirk.
  bool quirk = l.op->hasAttr(kQuantizeOverflowAttr);
  if (std::optional<int64_t> zp = l.constInt(P::zero_point))
    if (Value y = reluOperand(l, x, *zp, *qmin))
      x = y;
  return l.replace(mapElements(
      l.b, l.loc, x, f32, [&](OpBuilder &b, Location loc, Value v) -> Value {
        // A NaN becomes quant_min, as ATen's kernel gives
        // ((quant_min - zero_point) * scale).
        Value q =
            quantizedValue(b, loc, v, inverse, zeroPoint, lo, hi,
                           quirk ? std::optional<float>(lo) : std::nullopt);
        return arith::MulFOp::create(
            b, loc, arith::SubFOp::create(b, loc, q, zeroPoint), scale);
      }));
}

} // namespace

void mlir::fx::lowering::addQuantizeLowerings(llvm::StringMap<LowerFn> &t) {
  addLowering(t, {"aten::quantize_per_tensor"}, lowerQuantizePerTensor);
  addLowering(t, {"aten::quantize_per_channel"}, lowerQuantizePerChannel);
  addLowering(t, {"aten::dequantize.self"}, lowerDequantize);
  addLowering(t, {"aten::int_repr"}, lowerIntRepr);
  addLowering(t, {"aten::_choose_qparams_per_tensor"}, lowerChooseQParams);
  addLowering(t, {"aten::fake_quantize_per_tensor_affine"}, lowerFakeQuantize);
}
