//===- QuantizedConv.cpp - int8 convs and linears, int32 accumulation -----===//
//
// A conv2d of a dequantized per-tensor quint8 activation and a dequantized
// constant qint8 weight (zero points 0, per channel or per tensor), groups
// 1 or groups that line up with the register tile's blocks of output
// channels (int8GroupedBlocks: each block reads the input channels of its
// groups, the weights of other groups zeros), which
// `fx-fold-quant{int8-convs}` leaves in reference form, computes
// in integers as PyTorch's quantized engine does: the exact int32 sum of
// (x - zx) * w, then y = float(sum) * (sx * sw[oc]) + b[oc] in f32.
//
// The form is chosen for the CPU's u8 x s8 dot products (VNNI `vpdpbusd`:
// 4 byte products summed into each i32 lane): the activation bytes x are
// the unsigned operand (4 channels of a pixel broadcast to all lanes), the
// weight bytes w the signed one (16 output channels x 4 input channels a
// vector, packed at compile time). Then
//
//   D[p, oc] = sum_k x[p, k] * w[oc, k]            (the int8 contraction)
//   sum_k (x - zx) * w = D - zx * sum_k w[oc, k]
//
// exact in i32 (|D| < 255 * 128 * K). Spatial padding holds x = zx (the
// float 0), whose terms cancel with the correction; padded channels have
// w = 0.
//
// Where the CPU has no byte dot products but i16 ones (AVX2 `vpmaddwd`:
// 2 i16 products summed into each i32 lane; convert-fx-to-linalg{
// int8-pairs} marks the conv kInt8PairsAttr), the same sums are formed
// from pairs: x widened to i16 as the NHWC copy writes it, w packed as i16
// pairs [.., 16 V, 2], 2-channel groups instead of 4 (exact alike).
//
// The lowering builds, on tensors:
//   x   NHWC, channels padded to a multiple of 4, spatially padded with
//       zx (and on the right up to the output width the register tile
//       covers);
//   D   one linalg.generic (u8 x s8 -> i32 multiply-accumulate over the
//       window and the channels, in 4-byte groups: x read
//       [N, Hp, Wp, C4, 4], w packed [OCB, KH, KW, C4, 16 V, 4]) marked
//       kInt8ConvAttr:
//       fx-cpu-schedule writes it as VNNI register tiles where the CPU
//       has them (CPUSchedule.h); elsewhere it runs as it reads;
//   y   the epilogue above, NCHW f32.
//
// A linear of the same operands (x [..., K], w [O, K]; int8Linear) is a
// 1 x 1 conv of its rows: x as the image [1, K, 1, rows], each row a pixel
// of one image row, whose NHWC copy is x's own layout again.
//
// A conv3d (groups 1; int8Conv3d) is the conv2d of its output depths as
// images: x NDHWC in a [N, Dp, Hp, Wp, Cp] buffer, each depth tap kd of
// the kernel reading depth od * sd + kd * dd for output depth od, inside
// the products' loops for one clip, as one conv2d per tap whose products
// are added for a batch of clips.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "fx-mlir/Conversion/FXToLinalg/FXToLinalg.h"
#include "fx-mlir/Dialect/FX/Transforms/Int8Conv.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::fx;
using namespace mlir::fx::lowering;

namespace {

/// The bytes of a constant tensor (a dense_resource blob or dense
/// elements), or empty.
ArrayRef<char> constantData(Value v) {
  auto constant = v.getDefiningOp<arith::ConstantOp>();
  return constant ? getElementsData(constant.getValue()) : ArrayRef<char>();
}

/// The dequantize node that makes the fx value `v`, with its operand's
/// quant type, or null.
std::pair<CallFunctionOp, quant::QuantizedType> dequantizeOf(Value v) {
  auto call = v.getDefiningOp<CallFunctionOp>();
  if (!call || call.getTarget() != "aten::dequantize.self" ||
      call.getNumOperands() != 1)
    return {};
  auto attr = call->getAttrOfType<TypeAttr>(kQuantTypeAttr);
  auto type = attr ? dyn_cast<quant::QuantizedType>(attr.getValue())
                   : quant::QuantizedType();
  if (!type || type.getStorageTypeIntegralWidth() != 8)
    return {};
  return {call, type};
}

/// The width of the register tile's row of output pixels for an output
/// row of `ow` pixels: from 4 to `most`, the one that pads the row least
/// (the larger on ties); the row itself when shorter than 4.
int64_t pixelTile(int64_t ow, int64_t most) {
  if (ow <= most)
    return ow;
  int64_t best = most, bestWidth = llvm::divideCeil(ow, most) * most;
  for (int64_t p = most - 1; p >= 4; --p) {
    int64_t width = llvm::divideCeil(ow, p) * p;
    if (width < bestWidth)
      best = p, bestWidth = width;
  }
  return best;
}

SmallVector<AffineExpr> dimExprs(unsigned n, MLIRContext *ctx) {
  SmallVector<AffineExpr> e;
  for (unsigned i = 0; i < n; ++i)
    e.push_back(getAffineDimExpr(i, ctx));
  return e;
}

/// The activation bytes `x` (NCHW, [N, C, H, W]; or NCDHW) as NHWC
/// (NDHWC) `element`s (i8, or i16 zero-extended), written into the
/// interior (at padLo, one per spatial dim) of a [N, Hp, Wp, Cp] buffer
/// (`padded` = {Hp, Wp, Cp}; {Dp, Hp, Wp, Cp}) filled with `zx`: the
/// copy is an elementwise op fx-cpu-schedule fuses with the ops making x
/// (a quantize; with one use, the previous conv's epilogue too, which
/// reads its products in NHWC already), and eliminate-empty-tensors keeps
/// it in place in the buffer.
Value paddedNHWC(Lowering &l, Value x, ArrayRef<int64_t> padLo,
                 ArrayRef<int64_t> padded, int32_t zx, Type element) {
  MLIRContext *ctx = l.b.getContext();
  Location loc = l.loc;
  auto xType = cast<RankedTensorType>(x.getType());
  unsigned rank = xType.getRank();
  auto e = dimExprs(rank, ctx);
  // (n, s..., c) -> x[n, c, s...]
  SmallVector<AffineExpr> read{e[0], e[rank - 1]};
  read.append(e.begin() + 1, e.end() - 1);
  SmallVector<int64_t> bufferShape{xType.getDimSize(0)}, at{0},
      interiorShape{xType.getDimSize(0)};
  bufferShape.append(padded.begin(), padded.end());
  at.append(padLo.begin(), padLo.end());
  at.push_back(0);
  interiorShape.append(xType.getShape().begin() + 2, xType.getShape().end());
  interiorShape.push_back(xType.getDimSize(1));
  bool widened = !element.isInteger(8);
  Value buffer =
      l.filled(getAsIndexOpFoldResult(ctx, bufferShape),
               arith::ConstantOp::create(
                   l.b, loc,
                   widened ? l.b.getIntegerAttr(element, zx)
                           : l.b.getIntegerAttr(element, int8_t(uint8_t(zx)))));
  SmallVector<OpFoldResult> interiorAt = getAsIndexOpFoldResult(ctx, at);
  SmallVector<OpFoldResult> interiorSizes =
      getAsIndexOpFoldResult(ctx, interiorShape);
  SmallVector<OpFoldResult> unitStrides =
      getAsIndexOpFoldResult(ctx, SmallVector<int64_t>(rank, 1));
  Value interior = tensor::ExtractSliceOp::create(
      l.b, loc, RankedTensorType::get(interiorShape, element), buffer,
      interiorAt, interiorSizes, unitStrides);
  Value nhwc =
      linalg::GenericOp::create(
          l.b, loc, interior.getType(), ValueRange{x}, ValueRange{interior},
          ArrayRef<AffineMap>{AffineMap::get(rank, 0, read, ctx),
                              AffineMap::getMultiDimIdentityMap(rank, ctx)},
          SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
          [&](OpBuilder &b, Location loc, ValueRange v) {
            // The bytes read unsigned, widened (to i16 pairs).
            linalg::YieldOp::create(
                b, loc,
                widened ? arith::ExtUIOp::create(b, loc, element, v[0]) : v[0]);
          })
          .getResult(0);
  return tensor::InsertSliceOp::create(l.b, loc, nhwc, buffer, interiorAt,
                                       interiorSizes, unitStrides);
}

/// The kernel[0] x kernel[1] windows of a padded NHWC tensor for `out`
/// outputs (rows, columns): strided views, [N, OH, OW, C] each.
SmallVector<Value> windowViews(Lowering &l, Value padded,
                               ArrayRef<int64_t> kernel,
                               ArrayRef<int64_t> stride,
                               ArrayRef<int64_t> dilation,
                               ArrayRef<int64_t> out) {
  MLIRContext *ctx = l.b.getContext();
  auto type = cast<RankedTensorType>(padded.getType());
  int64_t N = type.getDimSize(0), C = type.getDimSize(3);
  SmallVector<Value> windows;
  for (int64_t i = 0; i < kernel[0]; ++i)
    for (int64_t j = 0; j < kernel[1]; ++j)
      windows.push_back(tensor::ExtractSliceOp::create(
          l.b, l.loc,
          RankedTensorType::get({N, out[0], out[1], C}, type.getElementType()),
          padded,
          getAsIndexOpFoldResult(ctx, {0, i * dilation[0], j * dilation[1], 0}),
          getAsIndexOpFoldResult(ctx, {N, out[0], out[1], C}),
          getAsIndexOpFoldResult(ctx, {1, stride[0], stride[1], 1})));
  return windows;
}

/// `y` ([N, H, W, C] f32; or [N, D, H, W, C]) as NCHW (NCDHW): an
/// elementwise op the schedule fuses with y's consumers.
Value toNCHW(Lowering &l, Value y) {
  MLIRContext *ctx = l.b.getContext();
  auto yType = cast<RankedTensorType>(y.getType());
  unsigned rank = yType.getRank();
  auto e = dimExprs(rank, ctx);
  // (n, c, s...) -> y[n, s..., c]
  SmallVector<AffineExpr> read{e[0]};
  read.append(e.begin() + 2, e.end());
  read.push_back(e[1]);
  SmallVector<int64_t> shape{yType.getDimSize(0), yType.getDimSize(rank - 1)};
  shape.append(yType.getShape().begin() + 1, yType.getShape().end() - 1);
  Value nchw =
      l.empty(getAsIndexOpFoldResult(ctx, shape), yType.getElementType());
  return linalg::GenericOp::create(
             l.b, l.loc, nchw.getType(), ValueRange{y}, ValueRange{nchw},
             ArrayRef<AffineMap>{AffineMap::get(rank, 0, read, ctx),
                                 AffineMap::getMultiDimIdentityMap(rank, ctx)},
             SmallVector<utils::IteratorType>(rank,
                                              utils::IteratorType::parallel),
             [&](OpBuilder &b, Location loc, ValueRange v) {
               linalg::YieldOp::create(b, loc, v[0]);
             })
      .getResult(0);
}

/// A depthwise conv (groups = C = OC, weight [C, 1, KH, KW]) of the bytes
/// `x`: one elementwise op over (n, oh, ow, c) of the KH x KW strided
/// windows of the padded NHWC input, each channel a lane, computing
///   y = (sum_ij x_ij w_ij - zx sum_ij w_ij) * sx sw[c] + b[c]
/// in f32 on the integers, exact (every partial sum is an integer below
/// 2^24 in magnitude: KH x KW <= 256), so the same value as in i32.
Value depthwiseInt8(Lowering &l, Value x, ArrayRef<char> wBytes,
                    ArrayRef<float> scale, Value bias, int64_t KH, int64_t KW,
                    int64_t OH, int64_t OW, ArrayRef<int64_t> stride,
                    ArrayRef<int64_t> padLo, ArrayRef<int64_t> padHi,
                    ArrayRef<int64_t> dilation, int32_t zx) {
  MLIRContext *ctx = l.b.getContext();
  Location loc = l.loc;
  Type i8 = l.b.getI8Type(), f32 = l.b.getF32Type();
  auto xType = cast<RankedTensorType>(x.getType());
  int64_t N = xType.getDimSize(0), C = xType.getDimSize(1),
          H = xType.getDimSize(2), W = xType.getDimSize(3);
  Value padded =
      paddedNHWC(l, x, padLo,
                 {H + padLo[0] + padHi[0], W + padLo[1] + padHi[1], C}, zx, i8);
  auto table = [&](ArrayRef<float> values) -> Value {
    return arith::ConstantOp::create(
        l.b, loc,
        DenseElementsAttr::get(RankedTensorType::get({C}, f32), values));
  };
  auto e4 = dimExprs(4, ctx);
  AffineMap id4 = AffineMap::getMultiDimIdentityMap(4, ctx);
  AffineMap perChannel = AffineMap::get(4, 0, {e4[3]}, ctx);
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  // The windows: KH x KW strided views of the padded input.
  inputs = windowViews(l, padded, {KH, KW}, stride, dilation, {OH, OW});
  maps.assign(inputs.size(), id4);
  // Their weights, the correction -zx sum w, the scale and the bias, per
  // channel.
  std::vector<float> correction(C, 0.0f);
  for (int64_t i = 0; i < KH; ++i)
    for (int64_t j = 0; j < KW; ++j) {
      std::vector<float> w(C);
      for (int64_t c = 0; c < C; ++c) {
        w[c] = float(int8_t(wBytes[(c * KH + i) * KW + j]));
        correction[c] -= float(zx) * w[c];
      }
      inputs.push_back(table(w));
      maps.push_back(perChannel);
    }
  inputs.push_back(table(correction));
  inputs.push_back(table(scale));
  maps.append({perChannel, perChannel});
  if (bias) {
    inputs.push_back(bias);
    maps.push_back(perChannel);
  }
  maps.push_back(id4);
  int64_t window = KH * KW;
  Value init = l.empty(getAsIndexOpFoldResult(ctx, {N, OH, OW, C}), f32);
  Value y =
      linalg::GenericOp::create(
          l.b, loc, init.getType(), inputs, ValueRange{init}, maps,
          SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
          [&](OpBuilder &b, Location loc, ValueRange v) {
            // One FMA a tap, a chain of them a window row, the rows'
            // sums added at the end: exact in any order (the operands and
            // every partial sum are integers below 2^24), and the rows'
            // chains are independent, so a tap need not wait for the
            // previous row's FMAs (a 3x3 window: 3 FMAs and 2 adds deep
            // rather than 9 FMAs).
            Value acc;
            for (int64_t i = 0; i < KH; ++i) {
              Value row = i == 0 ? v[2 * window] : Value();
              for (int64_t j = 0; j < KW; ++j) {
                int64_t k = i * KW + j;
                Value xf = arith::UIToFPOp::create(b, loc, f32, v[k]);
                row = row ? math::FmaOp::create(b, loc, xf, v[window + k], row)
                                .getResult()
                          : arith::MulFOp::create(b, loc, xf, v[window + k])
                                .getResult();
              }
              acc = acc ? arith::AddFOp::create(b, loc, acc, row).getResult()
                        : row;
            }
            Value r = arith::MulFOp::create(b, loc, acc, v[2 * window + 1]);
            if (bias)
              r = arith::AddFOp::create(b, loc, r, v[2 * window + 2]);
            linalg::YieldOp::create(b, loc, r);
          })
          .getResult(0);
  return toNCHW(l, y);
}

} // namespace

Value mlir::fx::lowering::int8MaxPool2d(
    Lowering &l, Value x, bool isUnsigned, ArrayRef<int64_t> kernel,
    ArrayRef<int64_t> stride, ArrayRef<int64_t> padLo, ArrayRef<int64_t> padHi,
    ArrayRef<int64_t> dilation, ArrayRef<int64_t> out) {
  MLIRContext *ctx = l.b.getContext();
  Location loc = l.loc;
  auto xType = cast<RankedTensorType>(x.getType());
  Type element = xType.getElementType();
  int64_t N = xType.getDimSize(0), C = xType.getDimSize(1),
          H = xType.getDimSize(2), W = xType.getDimSize(3);
  int64_t OH = out[0], OW = out[1];
  // Padded with the least value, which no window of real values exceeds.
  Value padded = paddedNHWC(
      l, x, padLo, {H + padLo[0] + padHi[0], W + padLo[1] + padHi[1], C},
      isUnsigned ? 0 : -128, element);
  SmallVector<Value> windows =
      windowViews(l, padded, kernel, stride, dilation, out);
  AffineMap id4 = AffineMap::getMultiDimIdentityMap(4, ctx);
  SmallVector<AffineMap> maps(windows.size() + 1, id4);
  Value init = l.empty(getAsIndexOpFoldResult(ctx, {N, OH, OW, C}), element);
  Value y =
      linalg::GenericOp::create(
          l.b, loc, init.getType(), windows, ValueRange{init}, maps,
          SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
          [&](OpBuilder &b, Location loc, ValueRange v) {
            Value acc = v[0];
            for (Value tap : v.drop_front().drop_back())
              acc = isUnsigned
                        ? arith::MaxUIOp::create(b, loc, acc, tap).getResult()
                        : arith::MaxSIOp::create(b, loc, acc, tap).getResult();
            linalg::YieldOp::create(b, loc, acc);
          })
          .getResult(0);
  return toNCHW(l, y);
}

namespace {

/// The operands of an int8 conv or linear node: its input's bytes (the
/// remapped operand of the dequantize making it) with their per-tensor
/// quint8 type, and its weight's constant bytes with their qint8 type.
struct Int8Operands {
  Value x;
  quant::UniformQuantizedType xType;
  ArrayRef<char> wBytes;
  RankedTensorType wStorage;
  quant::QuantizedType wType;
};

/// An activation's scale (f32) and zero point (i32) computed at run time
/// (dynamic quantization), or none.
struct RuntimeQParams {
  Value scale, zeroPoint;
};

/// The operands of the node `l` lowers, which must be `target`: args 0 and
/// 1 its input and weight, each the dequantize of an 8-bit quantized
/// value, the input quint8 of zero point range 0..255 and the weight a
/// constant of signed storage; nullopt otherwise.
std::optional<Int8Operands> int8Operands(Lowering &l, StringRef target,
                                         bool dynamicInput = false) {
  // The node's own input and weight (not a composed call's).
  if (l.op.getTarget() != target || l.target() != target ||
      l.args() != l.op.getArgs() || l.op.getNumOperands() < 2)
    return std::nullopt;
  auto inputRef = dyn_cast_or_null<NodeAttr>(l.op.getArgs()[0]);
  auto weightRef = dyn_cast_or_null<NodeAttr>(l.op.getArgs()[1]);
  if (!inputRef || !weightRef)
    return std::nullopt;
  auto [dqx, xq] = dequantizeOf(l.op.getOperand(inputRef.getIndex()));
  auto [dqw, wq] = dequantizeOf(l.op.getOperand(weightRef.getIndex()));
  auto xType = dyn_cast_or_null<quant::UniformQuantizedType>(xq);
  if (!dqw || !wq.isSigned())
    return std::nullopt;
  auto &rewriter = static_cast<ConversionPatternRewriter &>(l.b);
  Value x;
  if (dynamicInput) {
    // The bytes come from dynamicallyQuantized; x stands for their shape.
    x = rewriter.getRemappedValue(l.op.getOperand(inputRef.getIndex()));
  } else {
    if (!dqx || !xType || xType.isSigned() || xType.getStorageTypeMin() != 0 ||
        xType.getStorageTypeMax() != 255)
      return std::nullopt;
    x = rewriter.getRemappedValue(dqx.getOperand(0));
  }
  Value w = dqw.getOperand(0);
  if (Value remapped = rewriter.getRemappedValue(w))
    w = remapped;
  ArrayRef<char> wBytes = constantData(w);
  auto x8 = x ? dyn_cast<RankedTensorType>(x.getType()) : RankedTensorType();
  auto w8 = dyn_cast<RankedTensorType>(w.getType());
  if (!x8 || !w8 || !x8.hasStaticShape() || !w8.hasStaticShape() ||
      (!dynamicInput && !x8.getElementType().isInteger(8)) ||
      !w8.getElementType().isInteger(8) ||
      int64_t(wBytes.size()) != w8.getNumElements())
    return std::nullopt;
  return Int8Operands{x, xType, wBytes, w8, wq};
}

/// The sums kInt8SkipSumsAttr holds for a conv's weights `wBytes` ([OC,
/// Cg, KH, KW] int8, each output channel reading its group's Cg input
/// channels) in blocks of `lanes` output channels: zx * sum_c w[oc, c, i,
/// j], as [OCB, KH, KW, lanes] i32 (zeros past OC), for a conv whose input
/// (H x W, padded by padLo and filled with `zx`) is read by OH output rows
/// of OWp pixels in register tiles of P; null where the taps that read the
/// padding alone (a row's, or a tile's pixels') are under a fifth of all
/// taps.
static DenseElementsAttr paddingTapSums(MLIRContext *ctx, ArrayRef<char> wBytes,
                                        int64_t OC, int64_t Cg, int64_t KH,
                                        int64_t KW, int64_t lanes, int32_t zx,
                                        int64_t OH, int64_t OWp, int64_t H,
                                        int64_t W, ArrayRef<int64_t> padLo,
                                        ArrayRef<int64_t> stride,
                                        ArrayRef<int64_t> dilation, int64_t P) {
  // Rows (oh, i) and tiles (tile, j) that read the padding alone.
  int64_t rowsOut = 0, tilesOut = 0, tiles = OWp / P;
  for (int64_t oh = 0; oh < OH; ++oh)
    for (int64_t i = 0; i < KH; ++i) {
      int64_t ih = oh * stride[0] + i * dilation[0];
      rowsOut += ih < padLo[0] || ih >= padLo[0] + H;
    }
  for (int64_t t = 0; t < tiles; ++t)
    for (int64_t j = 0; j < KW; ++j) {
      int64_t first = t * P * stride[1] + j * dilation[1];
      int64_t last = first + (P - 1) * stride[1];
      tilesOut += last < padLo[1] || first >= padLo[1] + W;
    }
  // A tap is skipped where its row or its tile is out.
  int64_t all = OH * KH * tiles * KW;
  int64_t kept = (OH * KH - rowsOut) * (tiles * KW - tilesOut);
  if (all == 0 || 5 * (all - kept) < all)
    return {};
  int64_t OCB = llvm::divideCeil(OC, lanes);
  std::vector<int32_t> sums(OCB * lanes * KH * KW, 0);
  for (int64_t oc = 0; oc < OC; ++oc)
    for (int64_t c = 0; c < Cg; ++c)
      for (int64_t i = 0; i < KH; ++i)
        for (int64_t j = 0; j < KW; ++j)
          sums[(((oc / lanes) * KH + i) * KW + j) * lanes + oc % lanes] +=
              zx * int8_t(wBytes[((oc * Cg + c) * KH + i) * KW + j]);
  return DenseElementsAttr::get(
      RankedTensorType::get({OCB, KH, KW, lanes}, IntegerType::get(ctx, 32)),
      ArrayRef<int32_t>(sums));
}

/// How int8Conv2dOf's caller lays out its input and taps (int8Conv3d).
/// With `padded`, the caller builds the padded NHWC input (of an NCHW
/// input of shape `nchw`; int8Conv2dOf's `x` is then null) of each of the
/// taps whose weights ([OC, C / groups, KH, KW] bytes each) are
/// `tapWeights`: the conv is the sum of the taps' convs (the kernel's
/// depth slices), their products accumulated one after the other, or one
/// generic over them (`depth`). With `nhwc`, the result is the epilogue's
/// NHWC f32.
struct Int8ConvLayout {
  SmallVector<int64_t, 4> nchw;
  /// Tap `tap`'s [N, Hp, Wp, Cp] of `element`s, the zero point in the
  /// padding.
  std::function<Value(int64_t tap, int64_t Hp, int64_t Wp, int64_t Cp,
                      Type element)>
      padded;
  std::vector<std::vector<char>> tapWeights;
  /// The taps are the kernel's depth taps of one clip (N = 1), of this
  /// (stride, dilation): one products generic over the taps, `padded`
  /// called once for the whole [Dp, Hp, Wp, Cp] input.
  std::optional<std::pair<int64_t, int64_t>> depth;
  bool nhwc = false;
};

/// The int8 conv of the bytes `x` (NCHW) by the weight bytes `wBytes` of
/// shape `wShape` ([OC, C / groups, KH, KW]) and type `wq`: NCHW f32, or
/// null when it is not of a form int8Conv2d takes.
/// With `runtime` (a dense conv without spatial padding: a linear's), the
/// activation's scale and zero point are values; the correction and scale
/// tables are then computed per call from the weights' constant sums.
/// With `layout` (int8Conv3d), see Int8ConvLayout.
Value int8Conv2dOf(Lowering &l, Value x, quant::UniformQuantizedType xType,
                   ArrayRef<char> wBytes, ArrayRef<int64_t> wShape,
                   quant::QuantizedType wq, Value bias,
                   ArrayRef<int64_t> stride, ArrayRef<int64_t> padLo,
                   ArrayRef<int64_t> padHi, ArrayRef<int64_t> dilation,
                   int64_t groups, RuntimeQParams runtime = {},
                   const Int8ConvLayout &layout = {}) {
  ArrayRef<int64_t> xShape =
      layout.padded ? ArrayRef<int64_t>(layout.nchw)
                    : cast<RankedTensorType>(x.getType()).getShape();
  if (xShape.size() != 4 || wShape.size() != 4)
    return {};
  int64_t N = xShape[0], C = xShape[1], H = xShape[2], W = xShape[3];
  int64_t OC = wShape[0], KH = wShape[2], KW = wShape[3];
  bool depthwise =
      groups > 1 && groups == C && OC == C && wShape[1] == 1 && KH * KW <= 256;
  std::optional<Int8GroupedBlocks> grouped;
  if (!depthwise && groups > 1)
    grouped = int8GroupedBlocks(C, OC, groups);
  if (!depthwise && (groups != 1 || wShape[1] != C) &&
      (!grouped || wShape[1] * groups != C))
    return {};
  // The weight's scale per output channel; zero points must be 0.
  SmallVector<float> wScale(OC);
  if (auto perTensor = dyn_cast<quant::UniformQuantizedType>(wq)) {
    if (perTensor.getZeroPoint() != 0)
      return {};
    std::fill(wScale.begin(), wScale.end(), float(perTensor.getScale()));
  } else if (auto perAxis = dyn_cast<quant::UniformQuantizedPerAxisType>(wq)) {
    if (perAxis.getQuantizedDimension() != 0 ||
        int64_t(perAxis.getScales().size()) != OC ||
        llvm::any_of(perAxis.getZeroPoints(), [](int64_t z) { return z != 0; }))
      return {};
    for (int64_t oc = 0; oc < OC; ++oc)
      wScale[oc] = float(perAxis.getScales()[oc]);
  } else {
    return {};
  }
  int64_t OH =
      (H + padLo[0] + padHi[0] - dilation[0] * (KH - 1) - 1) / stride[0] + 1;
  int64_t OW =
      (W + padLo[1] + padHi[1] - dilation[1] * (KW - 1) - 1) / stride[1] + 1;
  if (OH < 1 || OW < 1)
    return {};
  bool dynamic = bool(runtime.scale);
  if (dynamic &&
      (groups != 1 || llvm::any_of(padLo, [](int64_t p) { return p != 0; }) ||
       llvm::any_of(padHi, [](int64_t p) { return p != 0; })))
    return {};
  // Dynamic: the padding (channels only) is read against zero weights, so
  // any value does.
  int32_t zx = dynamic ? 0 : int32_t(xType.getZeroPoint());
  float sx = dynamic ? 1.0f : float(xType.getScale());
  SmallVector<float> scale(OC);
  for (int64_t oc = 0; oc < OC; ++oc)
    scale[oc] = sx * wScale[oc];
  if (depthwise)
    return depthwiseInt8(l, x, wBytes, scale, bias, KH, KW, OH, OW, stride,
                         padLo, padHi, dilation, zx);

  // The input channels a dot product sums into each i32 lane: 4 bytes
  // (vpdpbusd), or 2 i16 (vpmaddwd: the bytes widened, kInt8PairsAttr).
  bool pairs = l.op->hasAttr(kInt8PairsAttr);
  int64_t G = pairs ? 2 : 4;
  Type element = pairs ? l.b.getI16Type() : l.b.getI8Type();
  // Register tile: 16 * V output channels (V vectors) x P pixels of one
  // output row (2 * P <= 24 accumulators of 32 registers with V = 2;
  // pairs, for CPUs of 16 registers of 8 lanes: 2 * P <= 12 with V = 1).
  int64_t V = OC % 32 == 0 && !pairs ? 2 : 1;
  if (grouped)
    V = grouped->lanes / 16;
  int64_t P =
      pairs ? pixelTile(OW, V == 2 ? 2 : 6) : pixelTile(OW, V == 2 ? 12 : 14);
  int64_t OWp = llvm::divideCeil(OW, P) * P;
  int64_t OCp = llvm::alignTo(OC, 16 * V), OCB = OCp / (16 * V);
  // The input channels each block reads, in groups of G: all of them, or
  // (grouped) the slice of its groups, from channel sliceAt(ocb).
  int64_t C4 = llvm::divideCeil(C, G);
  int64_t Cg = C / groups, OCg = OC / groups;
  int64_t CB4 = grouped ? grouped->sliceChannels / G : C4;
  // Grouped: the last slice may reach past the channels (a last block of
  // fewer groups), into channels padded with zx (their weights zeros).
  auto sliceAt = [&](int64_t ocb) -> int64_t {
    return grouped ? grouped->sliceStart(ocb) : 0;
  };
  if (grouped)
    C4 = std::max<int64_t>(C4, sliceAt(OCB - 1) / G + CB4);
  int64_t Cp = G * C4;
  int64_t K = Cg * KH * KW;
  // The taps' weights: wBytes, or the caller's.
  SmallVector<ArrayRef<char>> tapBytes;
  if (layout.tapWeights.empty())
    tapBytes.push_back(wBytes);
  for (const std::vector<char> &bytes : layout.tapWeights)
    tapBytes.push_back(bytes);
  int64_t taps = tapBytes.size();
  // |D| <= 255 * 128 * G CB4 * KH * KW * taps must fit an i32.
  if (G * CB4 * KH * KW * taps > (int64_t(1) << 31) / (255 * 128) - 1)
    return {};

  MLIRContext *ctx = l.b.getContext();
  Location loc = l.loc;
  Type i32 = l.b.getI32Type(), f32 = l.b.getF32Type();

  // The packed weight: [OCB][KH][KW][CB4][16V][G], the 16V x G
  // weights of one group of G channels the V vectors the register tile
  // loads (zeros for the channels of other groups); i16 for pairs.
  // `list`'s weights packed one after the other: [OCB][T][KH][KW]..., the
  // T dim left out where `depth` is not set (one tap).
  auto packWeights = [&](ArrayRef<ArrayRef<char>> list, bool depth) -> Value {
    int64_t T = list.size();
    std::vector<int16_t> packed(OCB * T * KH * KW * CB4 * 16 * G * V);
    for (int64_t ocb = 0; ocb < OCB; ++ocb)
      for (int64_t t = 0; t < T; ++t)
        for (int64_t i = 0; i < KH; ++i)
          for (int64_t j = 0; j < KW; ++j)
            for (int64_t cc = 0; cc < CB4; ++cc)
              for (int64_t o = 0; o < 16 * V; ++o)
                for (int64_t b = 0; b < G; ++b) {
                  int64_t oc = ocb * 16 * V + o, c = sliceAt(ocb) + G * cc + b;
                  int64_t g = oc / OCg, cInGroup = c - g * Cg;
                  int32_t wv = 0;
                  if (oc < OC && c < C && cInGroup >= 0 && cInGroup < Cg)
                    wv = int8_t(
                        list[t][((oc * Cg + cInGroup) * KH + i) * KW + j]);
                  int64_t at =
                      (((((ocb * T + t) * KH + i) * KW + j) * CB4 + cc) * 16 *
                           V +
                       o) *
                          G +
                      b;
                  packed[at] = int16_t(wv);
                }
    SmallVector<int64_t> shape{OCB, KH, KW, CB4, 16 * V, G};
    if (depth)
      shape.insert(shape.begin() + 1, T);
    auto packedType = RankedTensorType::get(shape, element);
    std::vector<int8_t> bytes;
    if (!pairs)
      bytes.assign(packed.begin(), packed.end());
    return arith::ConstantOp::create(
        l.b, loc,
        pairs ? DenseElementsAttr::get(packedType, ArrayRef<int16_t>(packed))
              : DenseElementsAttr::get(packedType, ArrayRef<int8_t>(bytes)));
  };
  // -zx sum w over every tap's weights (dynamic: -sum w, times the zero
  // point per call).
  std::vector<int32_t> correction(OC, 0);
  for (ArrayRef<char> wBytes : tapBytes)
    for (int64_t oc = 0; oc < OC; ++oc)
      for (int64_t k = 0; k < K; ++k)
        correction[oc] -= (dynamic ? 1 : zx) * int8_t(wBytes[oc * K + k]);
  Value correctionTable = arith::ConstantOp::create(
      l.b, loc,
      DenseElementsAttr::get(RankedTensorType::get({OC}, i32),
                             ArrayRef<int32_t>(correction)));
  Value scaleTable = arith::ConstantOp::create(
      l.b, loc,
      DenseElementsAttr::get(RankedTensorType::get({OC}, f32),
                             ArrayRef<float>(scale)));
  if (dynamic) {
    // zx * (-sum w) and sx * sw, [OC] each, once a call.
    correctionTable = l.elementwise(
        {correctionTable}, i32, i32,
        [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
          return arith::MulIOp::create(b, loc, v[0], runtime.zeroPoint);
        });
    scaleTable = l.elementwise(
        {scaleTable}, f32, f32,
        [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
          return arith::MulFOp::create(b, loc, runtime.scale, v[0]);
        });
  }

  auto dims = [&](unsigned n) { return dimExprs(n, ctx); };
  auto par = utils::IteratorType::parallel,
       red = utils::IteratorType::reduction;
  AffineMap id4 = AffineMap::getMultiDimIdentityMap(4, ctx);

  int64_t Wneeded = (OWp - 1) * stride[1] + dilation[1] * (KW - 1) + 1;
  int64_t extraW = std::max<int64_t>(0, Wneeded - (W + padLo[1] + padHi[1]));
  int64_t Hp = H + padLo[0] + padHi[0], Wp = W + padLo[1] + padHi[1] + extraW;

  auto zeros = [&](ArrayRef<int64_t> shape, Type t) {
    return l.filled(getAsIndexOpFoldResult(ctx, shape), l.constant(t, 0));
  };

  // The products generic: `in` and `wMap` read the input's channel
  // groups and the packed weights, the 5 parallel loops (n, oh, ow, ocb,
  // o) are the output's, the reduced ones the window's and the groups'.
  auto productsOf = [&](Value input, Value wPacked, Value init, AffineMap in,
                        AffineMap wMap, ArrayRef<int64_t> params) {
    unsigned loops = in.getNumDims();
    SmallVector<utils::IteratorType> iterators(loops, red);
    std::fill_n(iterators.begin(), 5, par);
    auto e = dims(loops);
    AffineMap out =
        AffineMap::get(loops, 0, {e[0], e[1], e[2], e[3], e[4]}, ctx);
    auto generic = linalg::GenericOp::create(
        l.b, loc, init.getType(), ValueRange{input, wPacked}, ValueRange{init},
        ArrayRef<AffineMap>{in, wMap, out}, iterators,
        [&](OpBuilder &b, Location loc, ValueRange v) {
          // (Widened bytes read signed: the i16 products vpmaddwd takes.)
          Value a = pairs
                        ? arith::ExtSIOp::create(b, loc, i32, v[0]).getResult()
                        : arith::ExtUIOp::create(b, loc, i32, v[0]).getResult();
          Value wv = arith::ExtSIOp::create(b, loc, i32, v[1]);
          Value p = arith::MulIOp::create(b, loc, a, wv);
          linalg::YieldOp::create(
              b, loc, arith::AddIOp::create(b, loc, v[2], p).getResult());
        });
    generic->setAttr(kInt8ConvAttr, l.b.getDenseI64ArrayAttr(params));
    return generic.getResult(0);
  };
  // D[n, oh, ow, ocb, o] = sum_{i, j, cc, b} w[ocb, i, j, cc, 4o + b] *
  //                        x[n, oh*s + i*d, ow*s + j*d, 4cc + b]
  // per tap, each tap's sums added to the previous one's.
  Value products;
  if (layout.depth) {
    // The taps are the kernel's depth (int8Conv3d of one clip): one
    // generic over them too, tap kd of output depth od (the image n)
    // reading depth od * sd + kd * dd of the [Dp, Hp, Wp, Cp] input.
    auto [sd, dd] = *layout.depth;
    Value padded = layout.padded(0, Hp, Wp, Cp, element);
    int64_t Dp = cast<RankedTensorType>(padded.getType()).getDimSize(0);
    Value wPacked = packWeights(tapBytes, /*depth=*/true);
    // n, oh, ow, ocb, o | kd, i, j, cc, b
    auto e = dims(10);
    AffineMap in = AffineMap::get(
        10, 0,
        {e[0] * sd + e[5] * dd, e[1] * stride[0] + e[6] * dilation[0],
         e[2] * stride[1] + e[7] * dilation[1], e[8], e[9]},
        ctx);
    AffineMap wMap =
        AffineMap::get(10, 0, {e[3], e[5], e[6], e[7], e[8], e[4], e[9]}, ctx);
    Value groups = tensor::ExpandShapeOp::create(
        l.b, loc, RankedTensorType::get({Dp, Hp, Wp, C4, G}, element), padded,
        SmallVector<ReassociationIndices>{{0}, {1}, {2}, {3, 4}});
    products = productsOf(
        groups, wPacked, zeros({N, OH, OWp, OCB, 16 * V}, i32), in, wMap,
        {stride[0], stride[1], dilation[0], dilation[1], P, sd, dd});
  } else {
    for (int64_t tap = 0; tap < taps; ++tap) {
      Value padded = layout.padded
                         ? layout.padded(tap, Hp, Wp, Cp, element)
                         : paddedNHWC(l, x, padLo, {Hp, Wp, Cp}, zx, element);
      Value wPacked = packWeights({tapBytes[tap]}, /*depth=*/false);
      // Taps in the padding alone: marked to be skipped where they are a
      // fifth of the work or more (kInt8SkipAttr).
      DenseElementsAttr skipSums;
      if (taps == 1 && !layout.padded && !dynamic)
        skipSums =
            paddingTapSums(ctx, tapBytes[tap], OC, Cg, KH, KW, 16 * V, zx, OH,
                           OWp, H, W, padLo, stride, dilation, P);
      // n, oh, ow, ocb, o | i, j, cc, b
      auto e = dims(9);
      // Grouped: block ocb reads the groups of G channels of its slice,
      // from sliceStart(ocb) = (ocb * lanes floordiv groupOut) * groupIn.
      AffineExpr channelGroup = e[7];
      if (grouped) {
        AffineExpr group = (e[3] * grouped->lanes).floorDiv(grouped->groupOut);
        channelGroup = grouped->groupIn % G == 0
                           ? group * (grouped->groupIn / G) + e[7]
                           : (group * grouped->groupIn).floorDiv(G) + e[7];
      }
      AffineMap in = AffineMap::get(
          9, 0,
          {e[0], e[1] * stride[0] + e[5] * dilation[0],
           e[2] * stride[1] + e[6] * dilation[1], channelGroup, e[8]},
          ctx);
      AffineMap wMap =
          AffineMap::get(9, 0, {e[3], e[5], e[6], e[7], e[4], e[8]}, ctx);
      Value groups = tensor::ExpandShapeOp::create(
          l.b, loc, RankedTensorType::get({N, Hp, Wp, C4, G}, element), padded,
          SmallVector<ReassociationIndices>{{0}, {1}, {2}, {3, 4}});
      products =
          productsOf(groups, wPacked,
                     tap ? products : zeros({N, OH, OWp, OCB, 16 * V}, i32), in,
                     wMap, {stride[0], stride[1], dilation[0], dilation[1], P});
      if (skipSums) {
        Operation *generic = products.getDefiningOp();
        generic->setAttr(kInt8SkipAttr,
                         l.b.getDenseI64ArrayAttr({padLo[0], H, padLo[1], W}));
        generic->setAttr(kInt8SkipSumsAttr, skipSums);
      }
    }
  }

  // y[n, oc, oh, ow] = float(D - zx sum w) * sx sw + b.
  Value flat = tensor::CollapseShapeOp::create(
      l.b, loc, RankedTensorType::get({N, OH, OWp, OCp}, i32), products,
      SmallVector<ReassociationIndices>{{0}, {1}, {2}, {3, 4}});
  if (OWp != OW || OCp != OC)
    flat = tensor::ExtractSliceOp::create(
        l.b, loc, flat, getAsIndexOpFoldResult(ctx, {0, 0, 0, 0}),
        getAsIndexOpFoldResult(ctx, {N, OH, OW, OC}),
        getAsIndexOpFoldResult(ctx, {1, 1, 1, 1}));
  // In NHWC (loops n, oh, ow, oc: contiguous), then transposed to NCHW.
  auto e = dims(4);
  SmallVector<Value> inputs{flat, correctionTable, scaleTable};
  SmallVector<AffineMap> maps{id4, AffineMap::get(4, 0, {e[3]}, ctx),
                              AffineMap::get(4, 0, {e[3]}, ctx)};
  if (bias) {
    inputs.push_back(bias);
    maps.push_back(AffineMap::get(4, 0, {e[3]}, ctx));
  }
  maps.push_back(id4);
  Value init = l.empty(getAsIndexOpFoldResult(ctx, {N, OH, OW, OC}), f32);
  Value y = linalg::GenericOp::create(
                l.b, loc, init.getType(), inputs, ValueRange{init}, maps,
                SmallVector<utils::IteratorType>(4, par),
                [&](OpBuilder &b, Location loc, ValueRange v) {
                  Value t = arith::AddIOp::create(b, loc, v[0], v[1]);
                  Value r = arith::SIToFPOp::create(b, loc, f32, t);
                  r = arith::MulFOp::create(b, loc, r, v[2]);
                  if (bias)
                    r = arith::AddFOp::create(b, loc, r, v[3]);
                  linalg::YieldOp::create(b, loc, r);
                })
                .getResult(0);
  return layout.nhwc ? y : toNCHW(l, y);
}

} // namespace

Value mlir::fx::lowering::int8Conv2d(
    Lowering &l, Value bias, ArrayRef<int64_t> stride, ArrayRef<int64_t> padLo,
    ArrayRef<int64_t> padHi, ArrayRef<int64_t> dilation, int64_t groups) {
  std::optional<Int8Operands> ops = int8Operands(l, "aten::conv2d");
  if (!ops || ops->wStorage.getRank() != 4)
    return {};
  return int8Conv2dOf(l, ops->x, ops->xType, ops->wBytes,
                      ops->wStorage.getShape(), ops->wType, bias, stride, padLo,
                      padHi, dilation, groups);
}

Value mlir::fx::lowering::int8Conv3d(
    Lowering &l, Value bias, ArrayRef<int64_t> stride, ArrayRef<int64_t> padLo,
    ArrayRef<int64_t> padHi, ArrayRef<int64_t> dilation, int64_t groups) {
  std::optional<Int8Operands> ops = int8Operands(l, "aten::conv3d");
  if (!ops || groups != 1 || ops->wStorage.getRank() != 5 ||
      cast<RankedTensorType>(ops->x.getType()).getRank() != 5)
    return {};
  auto x8 = cast<RankedTensorType>(ops->x.getType());
  int64_t N = x8.getDimSize(0), C = x8.getDimSize(1), D = x8.getDimSize(2),
          H = x8.getDimSize(3), W = x8.getDimSize(4);
  ArrayRef<int64_t> wShape = ops->wStorage.getShape();
  int64_t OC = wShape[0], KD = wShape[2], KH = wShape[3], KW = wShape[4];
  if (wShape[1] != C)
    return {};
  int64_t OD =
      (D + padLo[0] + padHi[0] - dilation[0] * (KD - 1) - 1) / stride[0] + 1;
  if (OD < 1)
    return {};
  MLIRContext *ctx = l.b.getContext();
  Location loc = l.loc;
  int32_t zx = int32_t(ops->xType.getZeroPoint());
  Value x = ops->x;
  int64_t Dp = D + padLo[0] + padHi[0];
  // The input as NDHWC `element`s in a [N, Dp, Hp, Wp, Cp] buffer
  // (paddedNHWC, one copy the schedule fuses with the ops making x); depth
  // tap kd of the kernel reads its view [N, OD, Hp, Wp, Cp] at depth
  // kd * dd with stride sd: N * OD images of a 2-D conv by the weights
  // w[:, :, kd].
  Int8ConvLayout layout;
  // One clip: the depth taps inside the products' loops (the accumulators
  // stay in registers across them); several: one conv2d per tap, their
  // products added.
  if (N == 1 && KD > 1)
    layout.depth = {stride[0], dilation[0]};
  Value buffer;
  auto padded = [&](int64_t tap, int64_t Hp, int64_t Wp, int64_t Cp,
                    Type element) -> Value {
    if (!buffer)
      buffer = paddedNHWC(l, x, padLo, {Dp, Hp, Wp, Cp}, zx, element);
    if (layout.depth)
      return tensor::CollapseShapeOp::create(
          l.b, loc, RankedTensorType::get({Dp, Hp, Wp, Cp}, element), buffer,
          SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}, {4}});
    Value view = tensor::ExtractSliceOp::create(
        l.b, loc, RankedTensorType::get({N, OD, Hp, Wp, Cp}, element), buffer,
        getAsIndexOpFoldResult(ctx, {0, tap * dilation[0], 0, 0, 0}),
        getAsIndexOpFoldResult(ctx, {N, OD, Hp, Wp, Cp}),
        getAsIndexOpFoldResult(ctx, {1, stride[0], 1, 1, 1}));
    return tensor::CollapseShapeOp::create(
        l.b, loc, RankedTensorType::get({N * OD, Hp, Wp, Cp}, element), view,
        SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}, {4}});
  };
  layout.nchw = {N * OD, C, H, W};
  layout.padded = padded;
  layout.nhwc = true;
  // The weight [OC, C, KD, KH, KW] as KD weights [OC, C, KH, KW].
  for (int64_t i = 0; i < KD; ++i) {
    std::vector<char> &w2 = layout.tapWeights.emplace_back(OC * C * KH * KW);
    for (int64_t oc = 0; oc < OC; ++oc)
      for (int64_t c = 0; c < C; ++c)
        for (int64_t k = 0; k < KH * KW; ++k)
          w2[(oc * C + c) * KH * KW + k] =
              ops->wBytes[((oc * C + c) * KD + i) * KH * KW + k];
  }
  Value y =
      int8Conv2dOf(l, Value(), ops->xType, {}, {OC, C, KH, KW}, ops->wType,
                   bias, stride.drop_front(), padLo.drop_front(),
                   padHi.drop_front(), dilation.drop_front(), 1, {}, layout);
  if (!y)
    return {};
  // y [N * OD, OH, OW, OC] -> [N, OC, OD, OH, OW], one transposing copy
  // (toNCHW: the schedule fuses it with y's consumers).
  auto yType = cast<RankedTensorType>(y.getType());
  int64_t OH = yType.getDimSize(1), OW = yType.getDimSize(2);
  Type f32 = l.b.getF32Type();
  Value byDepth = tensor::ExpandShapeOp::create(
      l.b, loc, RankedTensorType::get({N, OD, OH, OW, OC}, f32), y,
      SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}, {4}});
  return toNCHW(l, byDepth);
}

/// The input of a dynamically quantized linear, fake_quantize_per_tensor_
/// affine(x, scale, zero_point, 0, 255) with the scale and zero point
/// computed at run time (fx-normalize's form of PyTorch's dynamic
/// linears): x quantized to its bytes as ATen's quantize computes them,
/// with the scale (f32) and zero point (i32) as values; nullopt otherwise.
std::optional<std::pair<Value, RuntimeQParams>>
dynamicallyQuantized(Lowering &l, Value input) {
  auto fake = input.getDefiningOp<CallFunctionOp>();
  if (!fake || fake.getTarget() != "aten::fake_quantize_per_tensor_affine" ||
      fake.getArgs().size() != 5 || !fake.getKwargs().empty())
    return std::nullopt;
  auto qmin = dyn_cast<IntegerAttr>(fake.getArgs()[3]);
  auto qmax = dyn_cast<IntegerAttr>(fake.getArgs()[4]);
  auto xRef = dyn_cast<NodeAttr>(fake.getArgs()[0]);
  auto sRef = dyn_cast<NodeAttr>(fake.getArgs()[1]);
  auto zRef = dyn_cast<NodeAttr>(fake.getArgs()[2]);
  if (!qmin || !qmax || qmin.getInt() != 0 || qmax.getInt() != 255 || !xRef ||
      !sRef || !zRef)
    return std::nullopt;
  auto &rewriter = static_cast<ConversionPatternRewriter &>(l.b);
  Value x = rewriter.getRemappedValue(fake.getOperand(xRef.getIndex()));
  Value s = rewriter.getRemappedValue(fake.getOperand(sRef.getIndex()));
  Value z = rewriter.getRemappedValue(fake.getOperand(zRef.getIndex()));
  auto xType = x ? dyn_cast<RankedTensorType>(x.getType()) : RankedTensorType();
  if (!xType || !xType.hasStaticShape() || !xType.getElementType().isF32() ||
      !s || !z)
    return std::nullopt;
  Type f32 = l.b.getF32Type(), i32 = l.b.getI32Type();
  auto asScalar = [&](Value v, Type type) -> Value {
    if (auto t = dyn_cast<RankedTensorType>(v.getType())) {
      if (t.getRank() != 0)
        return {};
      v = tensor::ExtractOp::create(l.b, l.loc, v, ValueRange{});
    }
    return isa<IntegerType, FloatType>(v.getType()) ? l.convert(v, type)
                                                    : Value();
  };
  Value scale = asScalar(s, f32), zeroPoint = asScalar(z, f32);
  if (!scale || !zeroPoint)
    return std::nullopt;
  // As the fake quantization's lowering (Quantize.cpp) computes it.
  Value inverse = arith::DivFOp::create(
      l.b, l.loc, arith::ConstantOp::create(l.b, l.loc, l.b.getF32FloatAttr(1)),
      scale);
  Value bytes = mapElements(
      l.b, l.loc, x, l.b.getI8Type(),
      [&](OpBuilder &b, Location loc, Value v) -> Value {
        Value q = quantizedValue(b, loc, v, inverse, zeroPoint, 0, 255);
        return arith::TruncIOp::create(b, loc, b.getI8Type(),
                                       arith::FPToSIOp::create(b, loc, i32, q));
      });
  Value zx = arith::FPToSIOp::create(l.b, l.loc, i32, zeroPoint);
  return std::make_pair(bytes, RuntimeQParams{scale, zx});
}

Value mlir::fx::lowering::int8Linear(Lowering &l, Value bias) {
  std::optional<Int8Operands> ops = int8Operands(l, "aten::linear");
  RuntimeQParams runtime;
  if (!ops) {
    // A dynamically quantized linear: its input quantized here.
    ops = int8Operands(l, "aten::linear", /*dynamicInput=*/true);
    if (!ops)
      return {};
    auto inputRef = cast<NodeAttr>(l.op.getArgs()[0]);
    auto quantized =
        dynamicallyQuantized(l, l.op.getOperand(inputRef.getIndex()));
    if (!quantized)
      return {};
    std::tie(ops->x, runtime) = *quantized;
  }
  if (ops->wStorage.getRank() != 2)
    return {};
  auto x8 = cast<RankedTensorType>(ops->x.getType());
  int64_t O = ops->wStorage.getDimSize(0), K = ops->wStorage.getDimSize(1);
  if (x8.getRank() < 1 || x8.getDimSize(x8.getRank() - 1) != K)
    return {};
  int64_t M = 1;
  for (int64_t d = 0; d + 1 < x8.getRank(); ++d)
    M *= x8.getDimSize(d);
  if (M == 0)
    return {};
  MLIRContext *ctx = l.b.getContext();
  Location loc = l.loc;
  // x [..., K] as the image [1, K, 1, M] (its rows the pixels of one
  // image row: the register tile's pixels), w [O, K] as a 1 x 1 kernel;
  // the conv lowering's NHWC copy of that image is x's own layout again
  // (the schedule fuses the two transposes into one copy).
  SmallVector<ReassociationIndices> rows(2);
  for (int64_t d = 0; d + 1 < x8.getRank(); ++d)
    rows[0].push_back(d);
  rows[1].push_back(x8.getRank() - 1);
  Value x2 = ops->x;
  if (x8.getRank() == 1)
    x2 = tensor::ExpandShapeOp::create(
        l.b, loc, RankedTensorType::get({1, K}, x8.getElementType()), x2,
        SmallVector<ReassociationIndices>{{0, 1}});
  else if (x8.getRank() > 2)
    x2 = tensor::CollapseShapeOp::create(l.b, loc, x2, rows);
  auto e4 = dimExprs(4, ctx);
  Value image =
      l.empty(getAsIndexOpFoldResult(ctx, {1, K, 1, M}), x8.getElementType());
  image =
      linalg::GenericOp::create(
          l.b, loc, image.getType(), ValueRange{x2}, ValueRange{image},
          ArrayRef<AffineMap>{AffineMap::get(4, 0, {e4[3], e4[1]}, ctx),
                              AffineMap::getMultiDimIdentityMap(4, ctx)},
          SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
          [&](OpBuilder &b, Location loc, ValueRange v) {
            linalg::YieldOp::create(b, loc, v[0]);
          })
          .getResult(0);
  Value y =
      int8Conv2dOf(l, image, ops->xType, ops->wBytes, {O, K, 1, 1}, ops->wType,
                   bias, {1, 1}, {0, 0}, {0, 0}, {1, 1}, 1, runtime);
  if (!y)
    return {};
  // y [1, O, 1, M] back to [..., O].
  Type f32 = l.b.getF32Type();
  Value out = l.empty(getAsIndexOpFoldResult(ctx, {M, O}), f32);
  auto e2 = dimExprs(2, ctx);
  out = linalg::GenericOp::create(
            l.b, loc, out.getType(),
            ValueRange{tensor::CollapseShapeOp::create(
                l.b, loc, RankedTensorType::get({O, M}, f32), y,
                SmallVector<ReassociationIndices>{{0, 1}, {2, 3}})},
            ValueRange{out},
            ArrayRef<AffineMap>{AffineMap::get(2, 0, {e2[1], e2[0]}, ctx),
                                AffineMap::getMultiDimIdentityMap(2, ctx)},
            SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel),
            [&](OpBuilder &b, Location loc, ValueRange v) {
              linalg::YieldOp::create(b, loc, v[0]);
            })
            .getResult(0);
  SmallVector<int64_t> shape(x8.getShape());
  shape.back() = O;
  if (x8.getRank() == 2)
    return out;
  if (x8.getRank() == 1)
    return tensor::CollapseShapeOp::create(
        l.b, loc, RankedTensorType::get({O}, f32), out,
        SmallVector<ReassociationIndices>{{0, 1}});
  return tensor::ExpandShapeOp::create(
      l.b, loc, RankedTensorType::get(shape, f32), out, rows);
}
