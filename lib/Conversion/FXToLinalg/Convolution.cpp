//===- Convolution.cpp - convolutions to linalg ---------------------------===//
//
// Convolutions pad explicitly (tensor.pad) and use the named NCHW linalg
// convolutions: conv_2d_nchw_fchw, depthwise_conv_2d_nchw_chw for
// depthwise, conv_2d_ngchw_gfchw for other groups; 1-D ones run as 2-D with
// a unit height; 3-D ones use conv_3d_ncdhw_fcdhw, or one generic with the
// groups as a dim. The bias initializes the accumulator. Transposed convs
// are the convs they equal; im2col is one gather. Pooling is in
// Pooling.cpp.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"
#include "fx-mlir/Support/Blobs.h"
#include "llvm/Support/FormatVariadic.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include <cstring>
#include <limits>

using namespace mlir;
using namespace mlir::fx;
using namespace mlir::fx::lowering;

namespace {

int64_t staticDim(Value v, int64_t d) {
  return cast<RankedTensorType>(v.getType()).getDimSize(d);
}

/// `init` of `sizes` with `bias` broadcast along dim 1 (or zeros).
Value biasInit(Lowering &l, ArrayRef<OpFoldResult> sizes, Value bias,
               Type elem) {
  Value zero = l.constant(elem, 0);
  if (!bias)
    return l.filled(sizes, zero);
  int64_t rank = sizes.size();
  Value out = l.empty(sizes, elem);
  SmallVector<AffineMap> maps = {
      AffineMap::get(rank, 0, {l.b.getAffineDimExpr(1)}, l.b.getContext()),
      l.b.getMultiDimIdentityMap(rank)};
  return linalg::GenericOp::create(
             l.b, l.loc, TypeRange{out.getType()}, ValueRange{bias},
             ValueRange{out}, maps,
             SmallVector<utils::IteratorType>(rank,
                                              utils::IteratorType::parallel),
             "", "",
             [&](OpBuilder &nb, Location loc, ValueRange v) {
               linalg::YieldOp::create(nb, loc, l.convert(v[0], elem));
             })
      .getResult(0);
}

/// Output size of a window of `k` (dilation `d`) at stride `s` over `n`
/// padded by `lo`+`hi`.
int64_t windows(int64_t n, int64_t k, int64_t s, int64_t lo, int64_t hi,
                int64_t d) {
  return (n + lo + hi - d * (k - 1) - 1) / s + 1;
}

/// The box [offsets, offsets + sizes) of a conv weight, as `resultType`
/// (the box's shape, or that shape without unit dims): a new constant
/// when the weight is one (so the 2-D schedule sees constant weights),
/// else an extract_slice.
Value kernelBox(Lowering &l, Value weight, ArrayRef<int64_t> offsets,
                ArrayRef<int64_t> sizes, RankedTensorType resultType) {
  auto type = cast<RankedTensorType>(weight.getType());
  if (auto constant = weight.getDefiningOp<arith::ConstantOp>()) {
    ArrayRef<char> bytes = fx::getElementsData(constant.getValue());
    unsigned width = type.getElementType().getIntOrFloatBitWidth();
    if (!bytes.empty() && width % 8 == 0) {
      int64_t size = width / 8, rank = type.getRank();
      int64_t count = 1;
      for (int64_t s : sizes)
        count *= s;
      std::vector<char> data(count * size);
      SmallVector<int64_t> index(rank, 0);
      for (int64_t to = 0; to < count; ++to) {
        int64_t from = 0;
        for (int64_t d = 0; d < rank; ++d)
          from = from * type.getDimSize(d) + offsets[d] + index[d];
        std::memcpy(&data[to * size], &bytes[from * size], size);
        for (int64_t d = rank - 1; d >= 0 && ++index[d] == sizes[d]; --d)
          index[d] = 0;
      }
      auto blob = copiedBlob(ArrayRef<char>(data), alignof(double));
      return arith::ConstantOp::create(
          l.b, l.loc,
          DenseResourceElementsAttr::get(resultType, "weight_slice",
                                         std::move(blob)));
    }
  }
  OpBuilder &b = l.b;
  SmallVector<OpFoldResult> o, z, strides(type.getRank(), b.getIndexAttr(1));
  for (auto [offset, size] : llvm::zip(offsets, sizes)) {
    o.push_back(b.getIndexAttr(offset));
    z.push_back(b.getIndexAttr(size));
  }
  return tensor::ExtractSliceOp::create(b, l.loc, resultType, weight, o, z,
                                        strides);
}

/// `input` (N, C, spatial...) zero-padded by `padLo` and `padHi` along its
/// spatial dims; `input` itself when they are all zero.
Value padSpatial(Lowering &l, Value input, ArrayRef<int64_t> padLo,
                 ArrayRef<int64_t> padHi, Type elem) {
  if (llvm::all_of(padLo, [](int64_t p) { return p == 0; }) &&
      llvm::all_of(padHi, [](int64_t p) { return p == 0; }))
    return input;
  SmallVector<OpFoldResult> lo(2, l.b.getIndexAttr(0)),
      hi(2, l.b.getIndexAttr(0));
  for (auto [below, above] : llvm::zip(padLo, padHi)) {
    lo.push_back(l.b.getIndexAttr(below));
    hi.push_back(l.b.getIndexAttr(above));
  }
  return l.pad(input, lo, hi, l.constant(elem, 0));
}

/// A dilated conv whose window reads mostly padding (a dilation near the
/// image's size, DeepLab's ASPP) as one 1x1 conv per window position (a,
/// e) over the outputs where that position reads the image, added into
/// them; null when the padding's share of the work is below a quarter.
Value convByTaps(Lowering &l, Value input, Value weight, Value bias,
                 ArrayRef<int64_t> padLo, ArrayRef<int64_t> padHi,
                 ArrayRef<int64_t> dilation, Type elem);

/// A 2-D NCHW convolution with explicit padding.
Value conv2d(Lowering &l, Value input, Value weight, Value bias,
             ArrayRef<int64_t> stride, ArrayRef<int64_t> padLo,
             ArrayRef<int64_t> padHi, ArrayRef<int64_t> dilation,
             int64_t groups, Type elem) {
  OpBuilder &b = l.b;
  input = l.castTensor(input, elem);
  weight = l.castTensor(weight, elem);
  if (groups == 1 && stride[0] == 1 && stride[1] == 1 &&
      (dilation[0] > 1 || dilation[1] > 1) && elem.isF32())
    if (Value r =
            convByTaps(l, input, weight, bias, padLo, padHi, dilation, elem))
      return r;
  input = padSpatial(l, input, padLo, padHi, elem);
  int64_t F = staticDim(weight, 0), C = staticDim(weight, 1);
  int64_t kh = staticDim(weight, 2), kw = staticDim(weight, 3);
  int64_t H = staticDim(input, 2), W = staticDim(input, 3);
  if (ShapedType::isDynamic(H) || ShapedType::isDynamic(W))
    return {};
  int64_t OH = windows(H, kh, stride[0], 0, 0, dilation[0]);
  int64_t OW = windows(W, kw, stride[1], 0, 0, dilation[1]);
  int64_t dh = dilation[0], dw = dilation[1];
  if (groups == 1 && stride[0] == 1 && stride[1] == 1 && (dh > 1 || dw > 1) &&
      OH % dh == 0 && OW % dw == 0 && elem.isF32()) {
    // A dilated conv is dh * dw undilated ones, one per phase (py, px) of
    // the output: out[.., py + dh * i, px + dw * j] convolves the input's
    // rows py, py + dh, ... and columns px, px + dw, ... with the dense
    // kernel. The phases are folded into the batch (space to batch), so
    // the 2-D schedule (Winograd, packed weights) applies to them.
    OpFoldResult n = l.dim(input, 0);
    OpFoldResult folded =
        ShapedType::isDynamic(staticDim(input, 0))
            ? OpFoldResult(arith::MulIOp::create(b, l.loc, l.toIndex(n),
                                                 l.indexConst(dh * dw))
                               .getResult())
            : OpFoldResult(b.getIndexAttr(staticDim(input, 0) * dh * dw));
    auto idx = [&](int64_t v) -> OpFoldResult { return b.getIndexAttr(v); };
    Value split = l.reshape(
        input, {n, idx(C), idx(H / dh), idx(dh), idx(W / dw), idx(dw)});
    Value phases = l.reshape(l.transpose(split, {3, 5, 0, 1, 2, 4}),
                             {folded, idx(C), idx(H / dh), idx(W / dw)});
    Value y = conv2d(l, phases, weight, bias, {1, 1}, {0, 0}, {0, 0}, {1, 1}, 1,
                     elem);
    Value y6 =
        l.reshape(y, {idx(dh), idx(dw), n, idx(F), idx(OH / dh), idx(OW / dw)});
    return l.reshape(l.transpose(y6, {2, 3, 4, 0, 5, 1}),
                     {n, idx(F), idx(OH), idx(OW)});
  }
  SmallVector<OpFoldResult> sizes = {l.dim(input, 0), b.getIndexAttr(F),
                                     b.getIndexAttr(OH), b.getIndexAttr(OW)};
  auto strides = b.getI64VectorAttr(stride);
  auto dilations = b.getI64VectorAttr(dilation);
  Value init = biasInit(l, sizes, bias, elem);
  Type initType = init.getType();
  if (groups == 1)
    return linalg::Conv2DNchwFchwOp::create(
               b, l.loc, TypeRange{initType}, ValueRange{input, weight},
               ValueRange{init}, strides, dilations)
        .getResult(0);
  if (C == 1 && F == groups) {
    // Depthwise, one filter per channel: weight (C, 1, kh, kw) -> (C, kh, kw).
    Value w = tensor::CollapseShapeOp::create(
        b, l.loc, weight, ArrayRef<ReassociationIndices>{{0, 1}, {2}, {3}});
    return linalg::DepthwiseConv2DNchwChwOp::create(
               b, l.loc, TypeRange{initType}, ValueRange{input, w},
               ValueRange{init}, strides, dilations)
        .getResult(0);
  }
  // Grouped: (N, G*C, H, W) -> (N, G, C, H, W); weight (G*Fg, C, kh, kw) ->
  // (G, Fg, C, kh, kw); result (N, G, Fg, OH, OW) -> (N, F, OH, OW).
  int64_t Fg = F / groups;
  SmallVector<OpFoldResult> inSizes = {l.dim(input, 0), b.getIndexAttr(groups),
                                       b.getIndexAttr(C), b.getIndexAttr(H),
                                       b.getIndexAttr(W)};
  auto inType =
      RankedTensorType::get({staticDim(input, 0), groups, C, H, W}, elem);
  Value in5 = tensor::ExpandShapeOp::create(
      b, l.loc, inType, input,
      ArrayRef<ReassociationIndices>{{0}, {1, 2}, {3}, {4}}, inSizes);
  auto wType = RankedTensorType::get({groups, Fg, C, kh, kw}, elem);
  Value w5 = tensor::ExpandShapeOp::create(
      b, l.loc, wType, weight,
      ArrayRef<ReassociationIndices>{{0, 1}, {2}, {3}, {4}});
  SmallVector<OpFoldResult> outSizes = {sizes[0], b.getIndexAttr(groups),
                                        b.getIndexAttr(Fg), sizes[2], sizes[3]};
  auto outType =
      RankedTensorType::get({staticDim(input, 0), groups, Fg, OH, OW}, elem);
  Value init5 = tensor::ExpandShapeOp::create(
      b, l.loc, outType, init,
      ArrayRef<ReassociationIndices>{{0}, {1, 2}, {3}, {4}}, outSizes);
  Value r = linalg::Conv2DNgchwGfchwOp::create(
                b, l.loc, TypeRange{outType}, ValueRange{in5, w5},
                ValueRange{init5}, strides, dilations)
                .getResult(0);
  return tensor::CollapseShapeOp::create(
      b, l.loc, r, ArrayRef<ReassociationIndices>{{0}, {1, 2}, {3}, {4}});
}

/// A 3-D NCDHW convolution as a sum over the kernel's depth of 2-D ones
/// (each by `conv2d`, so the 2-D schedule applies): the input's frames
/// are moved next to the batch once, and for depth tap `kd` the frames
/// `kd * dilation + od * stride` (a strided slice, folded into the batch)
/// are convolved with the weight's slice `kd`. The sum is transposed back
/// to NCDHW.
Value conv3d(Lowering &l, Value input, Value weight, Value bias,
             ArrayRef<int64_t> stride, ArrayRef<int64_t> padLo,
             ArrayRef<int64_t> padHi, ArrayRef<int64_t> dilation,
             int64_t groups, Type elem) {
  OpBuilder &b = l.b;
  input = l.castTensor(input, elem);
  weight = l.castTensor(weight, elem);
  input = padSpatial(l, input, padLo, padHi, elem);
  auto inType = cast<RankedTensorType>(input.getType());
  int64_t N = inType.getDimSize(0), C = inType.getDimSize(1);
  int64_t D = inType.getDimSize(2), H = inType.getDimSize(3),
          W = inType.getDimSize(4);
  int64_t KD = staticDim(weight, 2);
  if (ShapedType::isDynamic(D) || ShapedType::isDynamic(H) ||
      ShapedType::isDynamic(W) || ShapedType::isDynamic(C))
    return {};
  int64_t OD = windows(D, KD, stride[0], 0, 0, dilation[0]);
  if (OD <= 0)
    return {};
  int64_t folded = ShapedType::isDynamic(N) ? N : N * OD;
  // The frames next to the batch, once: (N, C, D, H, W) -> (N, D, C, H, W).
  Value moved = l.empty({l.dim(input, 0), b.getIndexAttr(D), b.getIndexAttr(C),
                         b.getIndexAttr(H), b.getIndexAttr(W)},
                        elem);
  moved = linalg::TransposeOp::create(b, l.loc, input, moved,
                                      ArrayRef<int64_t>{0, 2, 1, 3, 4})
              .getResult()[0];
  Value sum;
  for (int64_t kd = 0; kd < KD; ++kd) {
    // Frames kd * dilation + od * stride: (N, OD, C, H, W) -> (N * OD, C,
    // H, W), a view when they are contiguous (one image, stride 1).
    SmallVector<OpFoldResult> offsets(5, b.getIndexAttr(0)),
        sizes = {l.dim(input, 0), b.getIndexAttr(OD), b.getIndexAttr(C),
                 b.getIndexAttr(H), b.getIndexAttr(W)},
        strides(5, b.getIndexAttr(1));
    offsets[1] = b.getIndexAttr(kd * dilation[0]);
    strides[1] = b.getIndexAttr(stride[0]);
    Value frames = tensor::ExtractSliceOp::create(
        b, l.loc, RankedTensorType::get({N, OD, C, H, W}, elem), moved, offsets,
        sizes, strides);
    Value images = tensor::CollapseShapeOp::create(
        b, l.loc, RankedTensorType::get({folded, C, H, W}, elem), frames,
        ArrayRef<ReassociationIndices>{{0, 1}, {2}, {3}, {4}});
    auto wType = cast<RankedTensorType>(weight.getType());
    SmallVector<int64_t> box(wType.getShape());
    box[2] = 1;
    Value slice = kernelBox(
        l, weight, {0, 0, kd, 0, 0}, box,
        RankedTensorType::get({box[0], box[1], box[3], box[4]}, elem));
    Value y =
        conv2d(l, images, slice, kd == 0 ? bias : Value(), stride.drop_front(),
               {0, 0}, {0, 0}, dilation.drop_front(), groups, elem);
    if (!y)
      return {};
    sum =
        !sum ? y
             : l.elementwise({sum, y}, elem, elem,
                             [](OpBuilder &nb, Location loc, ValueRange v) {
                               return arith::AddFOp::create(nb, loc, v[0], v[1])
                                   .getResult();
                             });
  }
  // (N * OD, F, OH, OW) -> (N, OD, F, OH, OW) -> (N, F, OD, OH, OW).
  auto sumType = cast<RankedTensorType>(sum.getType());
  int64_t F = sumType.getDimSize(1), OH = sumType.getDimSize(2),
          OW = sumType.getDimSize(3);
  OpFoldResult batch = l.dim(input, 0);
  Value split = tensor::ExpandShapeOp::create(
      b, l.loc, RankedTensorType::get({N, OD, F, OH, OW}, elem), sum,
      ArrayRef<ReassociationIndices>{{0, 1}, {2}, {3}, {4}},
      ArrayRef<OpFoldResult>{batch, b.getIndexAttr(OD), b.getIndexAttr(F),
                             b.getIndexAttr(OH), b.getIndexAttr(OW)});
  Value out = l.empty({batch, b.getIndexAttr(F), b.getIndexAttr(OD),
                       b.getIndexAttr(OH), b.getIndexAttr(OW)},
                      elem);
  return linalg::TransposeOp::create(b, l.loc, split, out,
                                     ArrayRef<int64_t>{0, 2, 1, 3, 4})
      .getResult()[0];
}

Value convByTaps(Lowering &l, Value input, Value weight, Value bias,
                 ArrayRef<int64_t> padLo, ArrayRef<int64_t> padHi,
                 ArrayRef<int64_t> dilation, Type elem) {
  OpBuilder &b = l.b;
  auto wType = cast<RankedTensorType>(weight.getType());
  int64_t F = wType.getDimSize(0), C = wType.getDimSize(1);
  int64_t k[2] = {wType.getDimSize(2), wType.getDimSize(3)};
  int64_t n[2] = {staticDim(input, 2), staticDim(input, 3)};
  if (ShapedType::isDynamic(n[0]) || ShapedType::isDynamic(n[1]))
    return {};
  int64_t out[2];
  for (int i = 0; i < 2; ++i)
    out[i] = windows(n[i], k[i], 1, padLo[i], padHi[i], dilation[i]);
  if (out[0] <= 0 || out[1] <= 0)
    return {};
  // The outputs [first, last) where window position t of dim i reads the
  // image: input index o + t * dilation - padLo in [0, n).
  auto range = [&](int i, int64_t t) {
    int64_t shift = t * dilation[i] - padLo[i];
    return std::make_pair(std::max<int64_t>(0, -shift),
                          std::min<int64_t>(out[i], n[i] - shift));
  };
  // The share of the window's work that reads the image.
  double share = 1;
  for (int i = 0; i < 2; ++i) {
    int64_t covered = 0;
    for (int64_t t = 0; t < k[i]; ++t) {
      auto [first, last] = range(i, t);
      covered += std::max<int64_t>(0, last - first);
    }
    share *= double(covered) / double(k[i] * out[i]);
  }
  if (share > 0.75)
    return {};
  SmallVector<OpFoldResult> sizes = {l.dim(input, 0), b.getIndexAttr(F),
                                     b.getIndexAttr(out[0]),
                                     b.getIndexAttr(out[1])};
  Value sum = biasInit(l, sizes, bias, elem);
  auto ones = SmallVector<OpFoldResult>(4, b.getIndexAttr(1));
  for (int64_t a = 0; a < k[0]; ++a) {
    auto [y0, y1] = range(0, a);
    for (int64_t e = 0; e < k[1]; ++e) {
      auto [x0, x1] = range(1, e);
      if (y1 <= y0 || x1 <= x0)
        continue;
      Value image = tensor::ExtractSliceOp::create(
          b, l.loc, input,
          ArrayRef<OpFoldResult>{
              b.getIndexAttr(0), b.getIndexAttr(0),
              b.getIndexAttr(y0 + a * dilation[0] - padLo[0]),
              b.getIndexAttr(x0 + e * dilation[1] - padLo[1])},
          ArrayRef<OpFoldResult>{l.dim(input, 0), b.getIndexAttr(C),
                                 b.getIndexAttr(y1 - y0),
                                 b.getIndexAttr(x1 - x0)},
          ones);
      Value tap = kernelBox(l, weight, {0, 0, a, e}, {F, C, 1, 1},
                            RankedTensorType::get({F, C, 1, 1}, elem));
      Value part = conv2d(l, image, tap, Value(), {1, 1}, {0, 0}, {0, 0},
                          {1, 1}, 1, elem);
      SmallVector<OpFoldResult> offsets = {b.getIndexAttr(0), b.getIndexAttr(0),
                                           b.getIndexAttr(y0),
                                           b.getIndexAttr(x0)};
      SmallVector<OpFoldResult> partSizes = {l.dim(input, 0), b.getIndexAttr(F),
                                             b.getIndexAttr(y1 - y0),
                                             b.getIndexAttr(x1 - x0)};
      Value current = tensor::ExtractSliceOp::create(b, l.loc, sum, offsets,
                                                     partSizes, ones);
      Value added = l.elementwise(
          {current, part}, elem, elem,
          [](OpBuilder &nb, Location loc, ValueRange v) {
            return arith::AddFOp::create(nb, loc, v[0], v[1]).getResult();
          });
      sum = tensor::InsertSliceOp::create(b, l.loc, added, sum, offsets,
                                          partSizes, ones);
    }
  }
  return sum;
}

/// conv1d/conv2d/conv3d(input, weight, bias, stride, padding, dilation,
/// groups).
LogicalResult lowerConv(Lowering &l, int spatial) {
  // conv1d..3d and their .padding overloads (padding a string) name and
  // place their parameters alike.
  namespace A = args::aten;
  static constexpr Param kInput =
      sameParam(A::conv1d::input, A::conv2d::input, A::conv3d::input,
                A::conv1d_padding::input, A::conv2d_padding::input,
                A::conv3d_padding::input);
  static constexpr Param kWeight =
      sameParam(A::conv1d::weight, A::conv2d::weight, A::conv3d::weight,
                A::conv1d_padding::weight, A::conv2d_padding::weight,
                A::conv3d_padding::weight);
  static constexpr Param kBias =
      sameParam(A::conv1d::bias, A::conv2d::bias, A::conv3d::bias,
                A::conv1d_padding::bias, A::conv2d_padding::bias,
                A::conv3d_padding::bias);
  static constexpr Param kStride =
      sameParam(A::conv1d::stride, A::conv2d::stride, A::conv3d::stride,
                A::conv1d_padding::stride, A::conv2d_padding::stride,
                A::conv3d_padding::stride);
  static constexpr Param kPadding =
      sameParam(A::conv1d::padding, A::conv2d::padding, A::conv3d::padding,
                A::conv1d_padding::padding, A::conv2d_padding::padding,
                A::conv3d_padding::padding);
  static constexpr Param kDilation =
      sameParam(A::conv1d::dilation, A::conv2d::dilation, A::conv3d::dilation,
                A::conv1d_padding::dilation, A::conv2d_padding::dilation,
                A::conv3d_padding::dilation);
  static constexpr Param kGroups =
      sameParam(A::conv1d::groups, A::conv2d::groups, A::conv3d::groups,
                A::conv1d_padding::groups, A::conv2d_padding::groups,
                A::conv3d_padding::groups);
  Value input = l.tensor(kInput), weight = l.tensor(kWeight);
  Type elem = l.resultElementType();
  if (!input || !weight || !elem)
    return l.fail("needs typed tensors");
  Value bias = l.isNone(kBias) ? Value() : l.tensor(kBias);
  auto stride = l.intList(kStride), dilation = l.intList(kDilation);
  auto groups = l.constInt(kGroups);
  if (!stride || !dilation || !groups || int(stride->size()) != spatial ||
      int(dilation->size()) != spatial)
    return l.fail("stride, dilation and groups must be constants");
  auto wType = cast<RankedTensorType>(weight.getType());
  if (!wType.hasStaticShape())
    return l.fail("the weight shape must be static");
  // What PyTorch checks before it runs a conv: ranks, element types,
  // groups, strides and dilations.
  auto xType = cast<RankedTensorType>(input.getType());
  // An unbatched input (channels and the spatial dims) is a batch of one.
  bool unbatched = xType.getRank() == spatial + 1;
  if (unbatched) {
    input = l.unsqueeze(input, 0);
    xType = cast<RankedTensorType>(input.getType());
  }
  if (xType.getRank() != spatial + 2)
    return l.fail(llvm::formatv("the input must be {0}-D (batch, channels "
                                "and {1} spatial dims) or {2}-D (unbatched), "
                                "got {3}-D",
                                spatial + 2, spatial, spatial + 1,
                                xType.getRank())
                      .str());
  if (wType.getRank() != spatial + 2)
    return l.fail(llvm::formatv("the weight must be {0}-D, got {1}-D",
                                spatial + 2, wType.getRank())
                      .str());
  if (!isFloat(elem) || !isFloat(xType.getElementType()) ||
      !isFloat(wType.getElementType()))
    return l.fail("convolutions need float input, weight and result");
  if (*groups < 1)
    return l.fail(
        llvm::formatv("groups must be positive, got {0}", *groups).str());
  int64_t channels = xType.getDimSize(1);
  if (wType.getDimSize(0) % *groups != 0 ||
      (!ShapedType::isDynamic(channels) &&
       channels != wType.getDimSize(1) * *groups))
    return l.fail(llvm::formatv("a weight of {0} filters of {1} channels in "
                                "{2} groups does not fit an input of {3} "
                                "channels",
                                wType.getDimSize(0), wType.getDimSize(1),
                                *groups, channels)
                      .str());
  if (llvm::any_of(*stride, [](int64_t v) { return v < 1; }) ||
      llvm::any_of(*dilation, [](int64_t v) { return v < 1; }))
    return l.fail("stride and dilation must be positive");
  SmallVector<int64_t> lo, hi;
  if (auto mode = dyn_cast_or_null<StringAttr>(l.arg(kPadding))) {
    for (int i = 0; i < spatial; ++i) {
      int64_t total = 0;
      if (mode.getValue() == "same")
        total = (*dilation)[i] * (wType.getDimSize(2 + i) - 1);
      else if (mode.getValue() != "valid")
        return l.fail("unknown padding mode");
      lo.push_back(total / 2);
      hi.push_back(total - total / 2);
    }
  } else {
    auto padding = l.intList(kPadding);
    if (!padding || int(padding->size()) != spatial)
      return l.fail("padding must be constants");
    if (llvm::any_of(*padding, [](int64_t v) { return v < 0; }))
      return l.fail("padding must not be negative");
    lo = hi = *padding;
  }
  SmallVector<int64_t> s = *stride, d = *dilation;
  // Each output size must be at least 1, as PyTorch requires ("Output
  // size is too small"; found by fuzz-lower: a dilation wider than the
  // padded input made a tensor type of negative size).
  for (int i = 0; i < spatial; ++i) {
    int64_t n = xType.getDimSize(2 + i);
    if (ShapedType::isDynamic(n))
      continue;
    int64_t out = windows(n, wType.getDimSize(2 + i), s[i], lo[i], hi[i], d[i]);
    if (out < 1)
      return l.fail(
          llvm::formatv("the output would be too small: spatial dim {0} of "
                        "size {1} (padding {2}+{3}) gives {4} windows of "
                        "kernel size {5}, dilation {6}, stride {7}",
                        i, n, lo[i], hi[i], out, wType.getDimSize(2 + i), d[i],
                        s[i])
              .str());
  }
  if (spatial == 2 && !unbatched && elem.isF32())
    if (Value r = int8Conv2d(l, bias, s, lo, hi, d, *groups))
      return l.replace(r);
  if (spatial == 3 && !unbatched && elem.isF32())
    if (Value r = int8Conv3d(l, bias, s, lo, hi, d, *groups))
      return l.replace(r);
  if (spatial == 3) {
    if (!isFloat(elem))
      return l.fail("3-D convolutions need a float result");
    Value r = conv3d(l, input, weight, bias, s, lo, hi, d, *groups, elem);
    if (!r)
      return l.fail("spatial dims must be static");
    return l.replace(unbatched ? l.squeeze(r, 0) : r);
  }
  if (spatial == 1) {
    input = l.unsqueeze(input, 2);
    weight = l.unsqueeze(weight, 2);
    s.insert(s.begin(), 1);
    d.insert(d.begin(), 1);
    lo.insert(lo.begin(), 0);
    hi.insert(hi.begin(), 0);
  }
  Value r = conv2d(l, input, weight, bias, s, lo, hi, d, *groups, elem);
  if (!r)
    return l.fail("spatial dims must be static");
  if (spatial == 1)
    r = l.squeeze(r, 2);
  if (unbatched)
    r = l.squeeze(r, 0);
  return l.replace(r);
}

LogicalResult lowerConv1d(Lowering &l) { return lowerConv(l, 1); }
LogicalResult lowerConv2d(Lowering &l) { return lowerConv(l, 2); }
LogicalResult lowerConv3d(Lowering &l) { return lowerConv(l, 3); }

/// The weight of a transposed conv, (G * Ci, Co, K...) with 2 or 3 spatial
/// dims, as the weight of the conv it equals, (G * Co, Ci, K...) flipped
/// in space: a new constant when the weight is one (so the schedule sees
/// constant weights), else one generic.
Value transposedConvWeight(Lowering &l, Value weight, int64_t groups) {
  OpBuilder &b = l.b;
  auto type = cast<RankedTensorType>(weight.getType());
  Type elem = type.getElementType();
  int64_t spatial = type.getRank() - 2;
  int64_t Ci = type.getDimSize(0) / groups, Co = type.getDimSize(1);
  ArrayRef<int64_t> kernel = type.getShape().drop_front(2);
  int64_t taps = 1;
  for (int64_t k : kernel)
    taps *= k;
  SmallVector<int64_t> shape = {groups * Co, Ci};
  llvm::append_range(shape, kernel);
  auto resultType = RankedTensorType::get(shape, elem);
  if (auto constant = weight.getDefiningOp<arith::ConstantOp>()) {
    ArrayRef<char> bytes = fx::getElementsData(constant.getValue());
    unsigned width = elem.getIntOrFloatBitWidth();
    if (!bytes.empty() && width % 8 == 0) {
      int64_t size = width / 8;
      std::vector<char> data(bytes.size());
      // Tap t of the spatial dims (row-major) reads the flipped tap,
      // taps - 1 - t.
      for (int64_t g = 0; g < groups; ++g)
        for (int64_t o = 0; o < Co; ++o)
          for (int64_t i = 0; i < Ci; ++i)
            for (int64_t t = 0; t < taps; ++t) {
              int64_t to = ((g * Co + o) * Ci + i) * taps + t;
              int64_t from = ((g * Ci + i) * Co + o) * taps + (taps - 1 - t);
              std::memcpy(&data[to * size], &bytes[from * size], size);
            }
      auto blob = copiedBlob(ArrayRef<char>(data), alignof(double));
      return arith::ConstantOp::create(
          b, l.loc,
          DenseResourceElementsAttr::get(resultType, "transposed_conv_weight",
                                         std::move(blob)));
    }
  }
  int64_t rank = spatial + 3;
  SmallVector<int64_t> grouped = {groups, Ci, Co};
  llvm::append_range(grouped, kernel);
  SmallVector<ReassociationIndices> groupDims = {{0, 1}};
  for (int64_t d = 2; d < rank; ++d)
    groupDims.push_back({d});
  Value wg = tensor::ExpandShapeOp::create(
      b, l.loc, RankedTensorType::get(grouped, elem), weight, groupDims);
  SmallVector<OpFoldResult> initSizes = {
      b.getIndexAttr(groups), b.getIndexAttr(Co), b.getIndexAttr(Ci)};
  for (int64_t k : kernel)
    initSizes.push_back(b.getIndexAttr(k));
  Value init = l.empty(initSizes, elem);
  auto d = [&](unsigned i) { return b.getAffineDimExpr(i); };
  SmallVector<AffineExpr> read = {d(0), d(2), d(1)};
  for (int64_t s = 0; s < spatial; ++s)
    read.push_back(kernel[s] - 1 - d(3 + s));
  SmallVector<AffineMap> maps = {AffineMap::get(rank, 0, read, b.getContext()),
                                 b.getMultiDimIdentityMap(rank)};
  Value r =
      linalg::GenericOp::create(
          b, l.loc, TypeRange{init.getType()}, ValueRange{wg}, ValueRange{init},
          maps,
          SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
          "", "",
          [](OpBuilder &nb, Location loc, ValueRange v) {
            linalg::YieldOp::create(nb, loc, v[0]);
          })
          .getResult(0);
  return tensor::CollapseShapeOp::create(b, l.loc, resultType, r, groupDims);
}

/// conv_transpose1d/2d/3d(input, weight, bias, stride, padding,
/// output_padding, groups, dilation) as the conv it equals: the input
/// spread out by the stride (zeros between its pixels) and padded by
/// dilation * (k - 1) - padding (plus output_padding after), convolved at
/// stride 1 with the transposed, flipped weight; a negative padding crops
/// the result instead.
LogicalResult lowerConvTranspose(Lowering &l, int spatial) {
  // Parameters as aten::conv_transpose1d names them, at the same positions in
  // aten::conv_transpose2d.input and aten::conv_transpose3d.input.
  using P = args::aten::conv_transpose1d;
  static_assert(sameParam(P::groups, args::aten::conv_transpose2d_input::groups,
                          args::aten::conv_transpose3d_input::groups)
                        .index == 6 &&
                sameParam(P::dilation,
                          args::aten::conv_transpose2d_input::dilation,
                          args::aten::conv_transpose3d_input::dilation)
                        .index == 7);
  Value input = l.tensor(P::input), weight = l.tensor(P::weight);
  Type elem = l.resultElementType();
  if (!input || !weight || !elem || !isFloat(elem))
    return l.fail("needs float tensors");
  Value bias = l.isNone(P::bias) ? Value() : l.tensor(P::bias);
  auto stride = l.intList(P::stride), padding = l.intList(P::padding),
       outputPadding = l.intList(P::output_padding),
       dilation = l.intList(P::dilation);
  auto groups = l.constInt(P::groups);
  auto expand = [&](std::optional<SmallVector<int64_t>> &v) {
    if (v && v->size() == 1 && spatial > 1)
      v->resize(spatial, (*v)[0]);
    return v && int(v->size()) == spatial;
  };
  if (!expand(stride) || !expand(padding) || !expand(outputPadding) ||
      !expand(dilation) || !groups || *groups <= 0)
    return l.fail("stride, padding, output_padding, dilation and groups "
                  "must be constants");
  auto wType = cast<RankedTensorType>(weight.getType());
  if (!wType.hasStaticShape() || wType.getDimSize(0) % *groups)
    return l.fail("the weight shape must be static, its dim 0 a multiple "
                  "of groups");
  SmallVector<int64_t> s = *stride, p = *padding, op = *outputPadding,
                       d = *dilation;
  // What PyTorch checks: positive strides and dilations, padding and
  // output padding not negative, output padding smaller than the stride
  // or the dilation.
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] <= 0 || d[i] <= 0)
      return l.fail("stride and dilation must be positive");
    if (p[i] < 0 || op[i] < 0)
      return l.fail("padding and output_padding must not be negative");
    if (op[i] >= s[i] && op[i] >= d[i])
      return l.fail("output_padding must be smaller than either stride or "
                    "dilation");
  }
  // An unbatched input (C, L) or (C, H, W) is a batch of one.
  int64_t inRank = cast<RankedTensorType>(input.getType()).getRank();
  bool unbatched = inRank == spatial + 1;
  if ((!unbatched && inRank != spatial + 2) || wType.getRank() != spatial + 2)
    return l.fail("the input must be " + std::to_string(spatial + 1) +
                  "-D or " + std::to_string(spatial + 2) +
                  "-D and the weight " + std::to_string(spatial + 2) + "-D");
  input = l.castTensor(input, elem);
  weight = l.castTensor(weight, elem);
  if (unbatched)
    input = l.unsqueeze(input, 0);
  if (spatial == 1) {
    input = l.unsqueeze(input, 2);
    weight = l.unsqueeze(weight, 2);
    s.insert(s.begin(), 1);
    p.insert(p.begin(), 0);
    op.insert(op.begin(), 0);
    d.insert(d.begin(), 1);
  }
  OpBuilder &b = l.b;
  auto inType = cast<RankedTensorType>(input.getType());
  // The spatial dims computed on: 2 (1-D runs as 2-D) or 3.
  int dims = std::max(spatial, 2);
  SmallVector<int64_t> padLo, out, start;
  SmallVector<OpFoldResult> full = {l.dim(input, 0), l.dim(input, 1)},
                            offsets(2, b.getIndexAttr(0)),
                            sizes = {l.dim(input, 0), l.dim(input, 1)},
                            strides(2, b.getIndexAttr(1));
  for (int i = 0; i < dims; ++i) {
    int64_t n = inType.getDimSize(2 + i), k = staticDim(weight, 2 + i);
    if (ShapedType::isDynamic(n))
      return l.fail("spatial dims must be static");
    int64_t spread = (n - 1) * s[i] + 1;
    int64_t lo = d[i] * (k - 1) - p[i], hi = lo + op[i];
    padLo.push_back(std::max<int64_t>(lo, 0));
    full.push_back(
        b.getIndexAttr(spread + padLo.back() + std::max<int64_t>(hi, 0)));
    offsets.push_back(b.getIndexAttr(padLo.back()));
    sizes.push_back(b.getIndexAttr(n));
    strides.push_back(b.getIndexAttr(s[i]));
    out.push_back((n - 1) * s[i] - 2 * p[i] + d[i] * (k - 1) + op[i] + 1);
    start.push_back(std::max<int64_t>(-lo, 0));
    if (out.back() <= 0)
      return l.fail("the output would be empty");
  }
  Value spread = tensor::InsertSliceOp::create(
      b, l.loc, input, l.filled(full, l.constant(elem, 0)), offsets, sizes,
      strides);
  Value flipped = transposedConvWeight(l, weight, *groups);
  SmallVector<int64_t> ones(dims, 1), zeros(dims, 0);
  Value r = dims == 3 ? conv3d(l, spread, flipped, bias, ones, zeros, zeros, d,
                               *groups, elem)
                      : conv2d(l, spread, flipped, bias, ones, zeros, zeros, d,
                               *groups, elem);
  if (!r)
    return l.fail("spatial dims must be static");
  auto rType = cast<RankedTensorType>(r.getType());
  bool crop = false;
  for (int i = 0; i < dims; ++i)
    crop |= start[i] || rType.getDimSize(2 + i) != out[i];
  if (crop) {
    SmallVector<int64_t> shape = {rType.getDimSize(0), rType.getDimSize(1)};
    SmallVector<OpFoldResult> at = {b.getIndexAttr(0), b.getIndexAttr(0)},
                              extent = {l.dim(r, 0), l.dim(r, 1)};
    for (int i = 0; i < dims; ++i) {
      shape.push_back(out[i]);
      at.push_back(b.getIndexAttr(start[i]));
      extent.push_back(b.getIndexAttr(out[i]));
    }
    r = tensor::ExtractSliceOp::create(
        b, l.loc, RankedTensorType::get(shape, elem), r, at, extent,
        SmallVector<OpFoldResult>(dims + 2, b.getIndexAttr(1)));
  }
  if (spatial == 1)
    r = l.squeeze(r, 2);
  if (unbatched)
    r = l.squeeze(r, 0);
  return l.replace(r);
}

LogicalResult lowerConvTranspose1d(Lowering &l) {
  return lowerConvTranspose(l, 1);
}
LogicalResult lowerConvTranspose2d(Lowering &l) {
  return lowerConvTranspose(l, 2);
}
LogicalResult lowerConvTranspose3d(Lowering &l) {
  return lowerConvTranspose(l, 3);
}

/// im2col(self, kernel_size, dilation, padding, stride), what
/// F.unfold and nn.Unfold call: (N, C, H, W) becomes (N, C * kh * kw, oh *
/// ow), column y * ow + x holding the window at (y, x), channel-major as
/// ATen orders it. One generic copies the zero-padded input to (N, C, kh,
/// kw, oh, ow) through the affine map (n, c, i, j, y, x) -> (n, c, y * sh +
/// i * dh, x * sw + j * dw); a collapse gives the result. An unbatched
/// (C, H, W) input gives (C * kh * kw, oh * ow).
LogicalResult lowerIm2col(Lowering &l) {
  using P = args::aten::im2col;
  Value input = l.tensor(P::self);
  Type elem = l.resultElementType();
  auto kernel = l.intList(P::kernel_size), dilation = l.intList(P::dilation),
       padding = l.intList(P::padding), stride = l.intList(P::stride);
  if (!input || !elem || !kernel || !dilation || !padding || !stride ||
      kernel->size() != 2 || dilation->size() != 2 || padding->size() != 2 ||
      stride->size() != 2)
    return l.fail("needs a tensor and constant pairs of kernel size, "
                  "dilation, padding and stride");
  auto type = cast<RankedTensorType>(input.getType());
  bool unbatched = type.getRank() == 3;
  if (!unbatched && type.getRank() != 4)
    return l.fail("expects a (batch,) channels and 2 spatial dims");
  if (unbatched)
    input = l.unsqueeze(input, 0);
  type = cast<RankedTensorType>(input.getType());
  if (!type.hasStaticShape())
    return l.fail("needs static sizes");
  int64_t outs[2];
  for (int i = 0; i < 2; ++i) {
    int64_t k = (*kernel)[i], d = (*dilation)[i], p = (*padding)[i],
            st = (*stride)[i], in = type.getDimSize(2 + i);
    if (k <= 0 || d <= 0 || st <= 0 || p < 0)
      return l.fail("kernel size, dilation and stride must be positive and "
                    "padding non-negative");
    outs[i] = (in + 2 * p - d * (k - 1) - 1) / st + 1;
    if (in + 2 * p - d * (k - 1) - 1 < 0 || outs[i] <= 0)
      return l.fail("the kernel does not fit the padded input");
  }
  OpBuilder &b = l.b;
  input = l.castTensor(input, elem);
  SmallVector<OpFoldResult> pads = {b.getIndexAttr(0), b.getIndexAttr(0),
                                    b.getIndexAttr((*padding)[0]),
                                    b.getIndexAttr((*padding)[1])};
  Value padded = l.pad(input, pads, pads, l.constant(elem, 0));
  int64_t n = type.getDimSize(0), c = type.getDimSize(1);
  auto e = [&](unsigned i) { return b.getAffineDimExpr(i); };
  AffineMap inMap =
      AffineMap::get(6, 0,
                     {e(0), e(1), e(4) * (*stride)[0] + e(2) * (*dilation)[0],
                      e(5) * (*stride)[1] + e(3) * (*dilation)[1]},
                     b.getContext());
  Value init =
      l.empty({b.getIndexAttr(n), b.getIndexAttr(c),
               b.getIndexAttr((*kernel)[0]), b.getIndexAttr((*kernel)[1]),
               b.getIndexAttr(outs[0]), b.getIndexAttr(outs[1])},
              elem);
  Value windows =
      linalg::GenericOp::create(
          b, l.loc, TypeRange{init.getType()}, ValueRange{padded},
          ValueRange{init},
          {inMap, AffineMap::getMultiDimIdentityMap(6, b.getContext())},
          SmallVector<utils::IteratorType>(6, utils::IteratorType::parallel),
          "", "",
          [&](OpBuilder &nb, Location loc, ValueRange v) {
            linalg::YieldOp::create(nb, loc, v[0]);
          })
          .getResult(0);
  SmallVector<OpFoldResult> shape;
  if (!unbatched)
    shape.push_back(b.getIndexAttr(n));
  shape.push_back(b.getIndexAttr(c * (*kernel)[0] * (*kernel)[1]));
  shape.push_back(b.getIndexAttr(outs[0] * outs[1]));
  return l.replace(l.reshape(windows, shape));
}

/// col2im(self, output_size, kernel_size, dilation, padding, stride): F.fold
/// and nn.Fold, im2col's adjoint. Each kernel offset's columns are added
/// into the padded image at their strided positions, offsets in ATen's
/// order (so sums round as ATen's do), and the padding is cut off.
LogicalResult lowerCol2im(Lowering &l) {
  using P = args::aten::col2im;
  Value input = l.tensor(P::self);
  Type elem = l.resultElementType();
  auto size = l.intList(P::output_size), kernel = l.intList(P::kernel_size),
       dilation = l.intList(P::dilation), padding = l.intList(P::padding),
       stride = l.intList(P::stride);
  if (!input || !elem || !size || !kernel || !dilation || !padding || !stride ||
      size->size() != 2 || kernel->size() != 2 || dilation->size() != 2 ||
      padding->size() != 2 || stride->size() != 2)
    return l.fail("needs a tensor and constant pairs of output size, kernel "
                  "size, dilation, padding and stride");
  auto type = cast<RankedTensorType>(input.getType());
  bool unbatched = type.getRank() == 2;
  if (!unbatched && type.getRank() != 3)
    return l.fail("expects (batch,) channels x kernel positions and blocks");
  if (unbatched)
    input = l.unsqueeze(input, 0);
  type = cast<RankedTensorType>(input.getType());
  if (!type.hasStaticShape())
    return l.fail("needs static sizes");
  int64_t outs[2], padded[2];
  for (int i = 0; i < 2; ++i) {
    int64_t k = (*kernel)[i], d = (*dilation)[i], p = (*padding)[i],
            st = (*stride)[i], out = (*size)[i];
    if (k <= 0 || d <= 0 || st <= 0 || p < 0 || out <= 0)
      return l.fail("output size, kernel size, dilation and stride must be "
                    "positive and padding non-negative");
    padded[i] = out + 2 * p;
    outs[i] = (padded[i] - d * (k - 1) - 1) / st + 1;
    if (padded[i] - d * (k - 1) - 1 < 0)
      return l.fail("the kernel does not fit the padded output");
  }
  int64_t n = type.getDimSize(0), kk = (*kernel)[0] * (*kernel)[1];
  if (type.getDimSize(1) % kk)
    return l.fail("the input's dim 1 is not a multiple of the kernel's size");
  if (type.getDimSize(2) != outs[0] * outs[1])
    return l.fail("the input's blocks do not tile the output size");
  int64_t c = type.getDimSize(1) / kk;
  OpBuilder &b = l.b;
  auto idx = [&](int64_t v) -> OpFoldResult { return b.getIndexAttr(v); };
  Value cols = l.reshape(l.castTensor(input, elem),
                         {idx(n), idx(c), idx((*kernel)[0]), idx((*kernel)[1]),
                          idx(outs[0]), idx(outs[1])});
  Value acc = l.filled({idx(n), idx(c), idx(padded[0]), idx(padded[1])},
                       l.constant(elem, 0));
  auto partType = RankedTensorType::get({n, c, outs[0], outs[1]}, elem);
  SmallVector<OpFoldResult> ones(6, idx(1));
  SmallVector<OpFoldResult> windowSizes = {idx(n), idx(c), idx(outs[0]),
                                           idx(outs[1])};
  SmallVector<OpFoldResult> windowStrides = {idx(1), idx(1), idx((*stride)[0]),
                                             idx((*stride)[1])};
  for (int64_t ki = 0; ki < (*kernel)[0]; ++ki)
    for (int64_t kj = 0; kj < (*kernel)[1]; ++kj) {
      Value part = tensor::ExtractSliceOp::create(
          b, l.loc, partType, cols,
          {idx(0), idx(0), idx(ki), idx(kj), idx(0), idx(0)},
          {idx(n), idx(c), idx(1), idx(1), idx(outs[0]), idx(outs[1])}, ones);
      SmallVector<OpFoldResult> offsets = {
          idx(0), idx(0), idx(ki * (*dilation)[0]), idx(kj * (*dilation)[1])};
      Value window = tensor::ExtractSliceOp::create(
          b, l.loc, partType, acc, offsets, windowSizes, windowStrides);
      Value sum = l.elementwise(
          {window, part}, elem, elem,
          [](OpBuilder &nb, Location loc, ValueRange v) -> Value {
            return isa<FloatType>(v[0].getType())
                       ? arith::AddFOp::create(nb, loc, v[0], v[1]).getResult()
                       : arith::AddIOp::create(nb, loc, v[0], v[1]).getResult();
          });
      acc = tensor::InsertSliceOp::create(b, l.loc, sum, acc, offsets,
                                          windowSizes, windowStrides);
    }
  Value out = tensor::ExtractSliceOp::create(
      b, l.loc, RankedTensorType::get({n, c, (*size)[0], (*size)[1]}, elem),
      acc, {idx(0), idx(0), idx((*padding)[0]), idx((*padding)[1])},
      {idx(n), idx(c), idx((*size)[0]), idx((*size)[1])},
      SmallVector<OpFoldResult>(4, idx(1)));
  return l.replace(unbatched ? l.squeeze(out, 0) : out);
}

} // namespace

void mlir::fx::lowering::addConvolutionLowerings(llvm::StringMap<LowerFn> &t) {
  addLowering(t, {"aten::conv1d", "aten::conv1d.padding"}, lowerConv1d);
  addLowering(t, {"aten::conv2d", "aten::conv2d.padding"}, lowerConv2d);
  addLowering(t, {"aten::conv3d", "aten::conv3d.padding"}, lowerConv3d);
  addLowering(t, {"aten::conv_transpose1d"}, lowerConvTranspose1d);
  addLowering(t, {"aten::conv_transpose2d.input"}, lowerConvTranspose2d);
  addLowering(t, {"aten::conv_transpose3d.input"}, lowerConvTranspose3d);
  addLowering(t, {"aten::im2col"}, lowerIm2col);
  addLowering(t, {"aten::col2im"}, lowerCol2im);
}
