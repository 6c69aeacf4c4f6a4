//===- Resample.cpp - Upsampling (interpolate) to linalg.generic ----------===//
//
// aten::upsample_nearest*d, _upsample_nearest_exact*d, the linear ones
// (linear1d, bilinear2d, trilinear3d) and bicubic2d, in their `.vec` and
// per-dim overloads. Spatial sizes are static, so the source index and weight
// of every output row and column are computed here, with the formulas and the
// float precision of LibTorch's CPU kernels (aten/src/ATen/native/ UpSample.h),
// and become constant tables; the generic reads them per output position and
// gathers from the input with tensor.extract.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"

#include <cmath>

using namespace mlir;
using namespace mlir::fx;
using namespace mlir::fx::lowering;

namespace {

enum class Mode { Nearest, NearestExact, Linear, Cubic };

/// The input positions and weights one spatial dim reads, per output
/// position: one tap (nearest), two (linear) or four (cubic).
struct Taps {
  SmallVector<int64_t> index[4];
  SmallVector<double> weight[4];
};

/// LibTorch's `compute_scales_value`: 1/scale when a scale is given, else
/// the ratio of the sizes.
template <typename T>
T scaleValue(std::optional<double> scale, int64_t in, int64_t out) {
  return scale && *scale > 0 ? T(1.0 / *scale) : T(in) / T(out);
}

Taps nearestTaps(Mode mode, int64_t in, int64_t out,
                 std::optional<double> scale) {
  Taps t;
  float s = scaleValue<float>(scale, in, out);
  for (int64_t o = 0; o < out; ++o) {
    int64_t i;
    if (mode == Mode::NearestExact)
      i = int64_t(std::floor(float((double(o) + 0.5) * s)));
    else if (in == out)
      i = o;
    else if (out == 2 * in)
      i = o >> 1;
    else
      i = int64_t(std::floor(float(o) * s));
    t.index[0].push_back(std::min(i, in - 1));
  }
  return t;
}

/// LibTorch's `area_pixel_compute_scale`: the input step per output
/// position, corner to corner with align_corners.
template <typename T>
T areaScale(int64_t in, int64_t out, bool alignCorners,
            std::optional<double> scale) {
  return alignCorners ? (out > 1 ? T(in - 1) / T(out - 1) : T(0))
                      : scaleValue<T>(scale, in, out);
}

/// `T` is the element type's precision (LibTorch computes the indices and
/// weights of a float tensor in float).
template <typename T>
Taps linearTaps(int64_t in, int64_t out, bool alignCorners,
                std::optional<double> scale) {
  Taps t;
  T ratio = areaScale<T>(in, out, alignCorners, scale);
  for (int64_t o = 0; o < out; ++o) {
    int64_t i0 = o, i1 = o;
    T w1 = 0;
    if (in != out) {
      T real = alignCorners ? T(ratio * T(o))
                            : T(double(ratio) * (double(o) + 0.5) - 0.5);
      if (!alignCorners && real < 0)
        real = 0;
      i0 = std::min(int64_t(std::floor(float(real))), in - 1);
      w1 = std::min(std::max(T(real - T(i0)), T(0)), T(1));
      i1 = i0 + (i0 < in - 1 ? 1 : 0);
    }
    t.index[0].push_back(i0);
    t.index[1].push_back(i1);
    t.weight[0].push_back(double(T(1) - w1));
    t.weight[1].push_back(double(w1));
  }
  return t;
}

/// LibTorch's bicubic taps (HelperInterpCubic): the source position
/// unclamped (`area_pixel_compute_source_index` with cubic), the four
/// inputs around its floor clamped to the dim, and Keys' cubic
/// convolution weights with A = -0.75, in the element type's precision.
template <typename T>
Taps cubicTaps(int64_t in, int64_t out, bool alignCorners,
               std::optional<double> scale) {
  Taps t;
  T ratio = areaScale<T>(in, out, alignCorners, scale);
  const T a = T(-0.75);
  auto near = [&](T x) { return ((a + 2) * x - (a + 3)) * x * x + 1; };
  auto far = [&](T x) { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a; };
  for (int64_t o = 0; o < out; ++o) {
    T real = alignCorners ? T(ratio * T(o))
                          : T(double(ratio) * (double(o) + 0.5) - 0.5);
    int64_t i0 = int64_t(std::floor(real));
    T x = real - T(i0);
    T w[4] = {far(x + T(1)), near(x), near(T(1) - x), far(T(1) - x + T(1))};
    for (int k = 0; k < 4; ++k) {
      t.index[k].push_back(std::clamp<int64_t>(i0 - 1 + k, 0, in - 1));
      t.weight[k].push_back(double(w[k]));
    }
  }
  return t;
}

LogicalResult lowerUpsample(Lowering &l) {
  // Parameters as aten::_upsample_nearest_exact1d.vec names them, at the same
  // positions in aten::_upsample_nearest_exact2d.vec and 13 more.
  using P = args::aten::_upsample_nearest_exact1d_vec;
  StringRef target = l.target();
  Mode mode = target.contains("nearest_exact") ? Mode::NearestExact
              : target.contains("nearest")     ? Mode::Nearest
              : target.contains("bicubic")     ? Mode::Cubic
                                               : Mode::Linear;
  // Linear and cubic modes weigh their taps; they take align_corners.
  bool weighted = mode == Mode::Linear || mode == Mode::Cubic;
  bool vec = target.ends_with(".vec");
  Value x = l.subject();
  if (!x)
    return failure();
  auto type = cast<RankedTensorType>(x.getType());
  Type elem = type.getElementType();
  // A per-tensor quantized tensor's 8-bit integers (fx-fold-quant
  // interpolates them bilinearly instead of their dequantized values): as
  // PyTorch's quantized upsample_bilinear2d, the integers themselves
  // interpolated in f32, less the zero point, rounded half to even and
  // the zero point added back (its output keeps the input's scale and
  // zero point).
  quant::UniformQuantizedType quantized;
  if (auto attr = l.op->getAttrOfType<TypeAttr>(kQuantTypeAttr))
    quantized = dyn_cast<quant::UniformQuantizedType>(attr.getValue());
  Type storage;
  if (quantized) {
    if (mode != Mode::Linear || type.getRank() != 4 ||
        quantized.getStorageTypeIntegralWidth() != 8 || !elem.isInteger(8))
      return l.fail("interpolates 8-bit per-tensor quantized tensors "
                    "bilinearly only");
    storage = elem;
    bool isSigned = quantized.isSigned();
    elem = l.b.getF32Type();
    x = mapElements(
        l.b, l.loc, x, elem, [&](OpBuilder &b, Location loc, Value v) {
          return centeredInteger(
              b, loc, v, isSigned,
              arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0)));
        });
    type = cast<RankedTensorType>(x.getType());
  }
  if (!elem.isF32() && !elem.isF64())
    return l.fail("needs a float32 or float64 input");
  int64_t rank = type.getRank(), r = rank - 2;
  if (r < 1 || r > 3)
    return l.fail("needs a 3-D, 4-D or 5-D input");
  if (mode == Mode::Cubic && r != 2)
    return l.fail("bicubic interpolation needs a 4-D input");
  for (int64_t d = 2; d < rank; ++d)
    if (type.isDynamicDim(d))
      return l.fail("needs static spatial sizes");

  // The scales: one list `scale_factors` in the .vec overloads, else one
  // float per spatial dim (`scales`, `scales_h`, `scales_w`, ...).
  namespace A = args::aten;
  static constexpr Param kAlignCorners =
      sameParam(A::upsample_linear1d::align_corners,
                A::upsample_bilinear2d::align_corners,
                A::upsample_trilinear3d::align_corners,
                A::upsample_linear1d_vec::align_corners,
                A::upsample_bilinear2d_vec::align_corners,
                A::upsample_trilinear3d_vec::align_corners,
                A::upsample_bicubic2d_vec::align_corners);
  static constexpr Param kLinearFactors =
      sameParam(A::upsample_linear1d_vec::scale_factors,
                A::upsample_bilinear2d_vec::scale_factors,
                A::upsample_trilinear3d_vec::scale_factors,
                A::upsample_bicubic2d_vec::scale_factors);
  static constexpr Param kNearestFactors =
      sameParam(A::upsample_nearest1d_vec::scale_factors,
                A::upsample_nearest2d_vec::scale_factors,
                A::upsample_nearest3d_vec::scale_factors,
                A::_upsample_nearest_exact1d_vec::scale_factors,
                A::_upsample_nearest_exact2d_vec::scale_factors,
                A::_upsample_nearest_exact3d_vec::scale_factors);
  static constexpr Param kLinearScales[3][3] = {
      {A::upsample_linear1d::scales},
      {A::upsample_bilinear2d::scales_h, A::upsample_bilinear2d::scales_w},
      {A::upsample_trilinear3d::scales_d, A::upsample_trilinear3d::scales_h,
       A::upsample_trilinear3d::scales_w}};
  static constexpr Param kNearestScales[3][3] = {
      {A::upsample_nearest1d::scales},
      {A::upsample_nearest2d::scales_h, A::upsample_nearest2d::scales_w},
      {A::upsample_nearest3d::scales_d, A::upsample_nearest3d::scales_h,
       A::upsample_nearest3d::scales_w}};
  bool alignCorners = false;
  Param factorsParam = kNearestFactors;
  const Param *dimScales = kNearestScales[r - 1];
  if (weighted) {
    std::optional<bool> a = l.constBool(kAlignCorners);
    if (!a)
      return l.fail("align_corners must be a constant");
    alignCorners = *a;
    factorsParam = kLinearFactors;
    dimScales = kLinearScales[r - 1];
  }
  // One optional scale per spatial dim.
  SmallVector<std::optional<double>> scales(r);
  if (vec && !l.isNone(factorsParam)) {
    auto list = dyn_cast<ListAttr>(l.arg(factorsParam));
    if (!list || int64_t(list.getElements().size()) != r)
      return l.fail("scale_factors must be a list of one float per dim");
    for (auto [d, item] : llvm::enumerate(list.getElements()))
      if (!(scales[d] = l.constFloat(item)))
        return l.fail("scale_factors must be constants");
  } else if (!vec) {
    for (int64_t d = 0; d < r; ++d)
      if (!l.isNone(dimScales[d]) &&
          !(scales[d] = l.constFloat(l.arg(dimScales[d]))))
        return l.fail("the scales must be constants");
  }
  // The output sizes: given, computed from the scales as LibTorch does, or
  // (a size computed in the graph, `x.shape[-2:]`) the declared ones.
  SmallVector<int64_t> outSizes;
  if (auto sizes =
          l.isNone(P::output_size) ? std::nullopt : l.intList(P::output_size)) {
    outSizes = *sizes;
  } else if (l.isNone(P::output_size) && vec && scales[0]) {
    for (int64_t d = 0; d < r; ++d)
      outSizes.push_back(int64_t(double(type.getDimSize(2 + d)) * *scales[d]));
  } else if (auto declared = dyn_cast<RankedTensorType>(l.resultType());
             declared && declared.getRank() == rank) {
    for (int64_t d = 2; d < rank; ++d)
      outSizes.push_back(declared.getDimSize(d));
  }
  if (int64_t(outSizes.size()) != r ||
      llvm::any_of(outSizes, [](int64_t s) { return s <= 0; }))
    return l.fail("needs static output sizes, one per spatial dim");
  // Each output size becomes constant tables.
  if (llvm::any_of(outSizes, [](int64_t s) { return s > (int64_t(1) << 24); }))
    return l.fail("output sizes must be at most 2^24");

  // Per spatial dim: the index tables, and for linear the weight tables.
  int taps = mode == Mode::Cubic ? 4 : mode == Mode::Linear ? 2 : 1;
  SmallVector<Value> tables;
  for (int64_t d = 0; d < r; ++d) {
    int64_t in = type.getDimSize(2 + d), out = outSizes[d];
    Taps t = !weighted ? nearestTaps(mode, in, out, scales[d])
             : mode == Mode::Cubic
                 ? (elem.isF32()
                        ? cubicTaps<float>(in, out, alignCorners, scales[d])
                        : cubicTaps<double>(in, out, alignCorners, scales[d]))
             : elem.isF32()
                 ? linearTaps<float>(in, out, alignCorners, scales[d])
                 : linearTaps<double>(in, out, alignCorners, scales[d]);
    auto indexType = RankedTensorType::get({out}, l.b.getI64Type());
    auto weightType = RankedTensorType::get({out}, elem);
    for (int k = 0; k < taps; ++k)
      tables.push_back(arith::ConstantOp::create(
          l.b, l.loc,
          DenseIntElementsAttr::get(indexType, ArrayRef(t.index[k]))));
    if (weighted)
      for (int k = 0; k < taps; ++k) {
        SmallVector<Attribute> w;
        for (double v : t.weight[k])
          w.push_back(FloatAttr::get(elem, v));
        tables.push_back(arith::ConstantOp::create(
            l.b, l.loc, DenseElementsAttr::get(weightType, w)));
      }
  }

  SmallVector<OpFoldResult> sizes = {l.dim(x, 0), l.dim(x, 1)};
  for (int64_t s : outSizes)
    sizes.push_back(l.b.getIndexAttr(s));
  Value init = l.empty(sizes, elem);
  MLIRContext *ctx = l.b.getContext();
  // Tables per dim: `taps` index tables, then (linear) `taps` weights.
  int64_t perDim = weighted ? 2 * taps : taps;
  SmallVector<AffineMap> maps;
  for (int64_t d = 0; d < r; ++d)
    for (int64_t k = 0; k < perDim; ++k)
      maps.push_back(AffineMap::get(rank, 0, getAffineDimExpr(2 + d, ctx)));
  maps.push_back(l.b.getMultiDimIdentityMap(rank));

  auto body = [&](OpBuilder &nb, Location loc, ValueRange v) {
    SmallVector<Value> at = {linalg::IndexOp::create(nb, loc, 0),
                             linalg::IndexOp::create(nb, loc, 1)};
    auto index = [&](int64_t d, int k) {
      return arith::IndexCastOp::create(nb, loc, nb.getIndexType(),
                                        v[d * perDim + k]);
    };
    // Interpolates dims d.. with `at` holding the indices of dims ..d-1:
    // w0 * f(i0) + w1 * f(i1), the first spatial dim outermost, as
    // LibTorch's kernels nest them.
    std::function<Value(int64_t)> interpolate = [&](int64_t d) -> Value {
      if (d == r)
        return tensor::ExtractOp::create(nb, loc, x, at);
      Value result;
      for (int k = 0; k < taps; ++k) {
        at.push_back(index(d, k));
        Value t = interpolate(d + 1);
        at.pop_back();
        if (weighted) {
          t = arith::MulFOp::create(nb, loc, t, v[d * perDim + taps + k]);
          result = result ? arith::AddFOp::create(nb, loc, result, t) : t;
        } else {
          result = t;
        }
      }
      return result;
    };
    linalg::YieldOp::create(nb, loc, interpolate(0));
  };
  Value result =
      linalg::GenericOp::create(
          l.b, l.loc, TypeRange{init.getType()}, tables, ValueRange{init}, maps,
          SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
          "", "", body)
          .getResult(0);
  if (quantized) {
    float zeroPoint = float(quantized.getZeroPoint());
    float lo = float(quantized.getStorageTypeMin());
    float hi = float(quantized.getStorageTypeMax());
    result = mapElements(
        l.b, l.loc, result, storage, [&](OpBuilder &b, Location loc, Value v) {
          auto constant = [&](float c) {
            return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(c));
          };
          v = arith::SubFOp::create(b, loc, v, constant(zeroPoint));
          Value q = quantizedValue(b, loc, v, constant(1), constant(zeroPoint),
                                   lo, hi);
          return storageInteger(b, loc, q, storage);
        });
  }
  return l.replace(result);
}

/// ATen's `linspace_from_neg_one`: `n` points from -1 to 1 (linspace's
/// two halves, each stepped from its own end, in `T`), scaled by (n - 1)
/// / n without align_corners; 0 for one point.
template <typename T>
SmallVector<double> gridLine(int64_t n, bool alignCorners) {
  SmallVector<double> line;
  if (n <= 1) {
    line.assign(std::max<int64_t>(n, 0), 0.0);
    return line;
  }
  T step = T(2) / T(n - 1);
  int64_t half = n / 2;
  for (int64_t i = 0; i < n; ++i) {
    T v = i < half ? T(-1) + step * T(i) : T(1) - step * T(n - i - 1);
    if (!alignCorners)
      v = v * T(n - 1) / T(n);
    line.push_back(double(v));
  }
  return line;
}

/// affine_grid_generator(theta, size, align_corners), 2-D (theta N x 2 x
/// 3, size N, C, H, W): grid[n, h, w] = theta[n] @ (x_w, y_h, 1), the
/// base grid's points from gridLine, the product summed in its order.
LogicalResult lowerAffineGrid(Lowering &l) {
  using P = args::aten::affine_grid_generator;
  Value theta = l.tensor(P::theta);
  auto size = l.intList(P::size);
  auto alignCorners = l.constBool(P::align_corners);
  Type elem = l.resultElementType();
  if (!theta || !size || !alignCorners || !elem || !isFloat(elem))
    return l.fail("needs a float theta, a constant size and align_corners");
  auto tType = cast<RankedTensorType>(theta.getType());
  if (size->size() != 4 || tType.getRank() != 3 || tType.getDimSize(1) != 2 ||
      tType.getDimSize(2) != 3)
    return l.fail("supports 2-D grids: theta of N x 2 x 3 and a size of 4");
  int64_t h = (*size)[2], w = (*size)[3];
  // The base grid's points become constant tables: sizes PyTorch could
  // allocate, and the node's declared shape.
  constexpr int64_t kMaxSide = int64_t(1) << 24;
  if (h <= 0 || w <= 0 || h > kMaxSide || w > kMaxSide)
    return l.fail("the grid's height and width must be positive and at most "
                  "2^24");
  if (auto declared = dyn_cast<RankedTensorType>(l.resultType());
      declared && (declared.getRank() != 4 || declared.getDimSize(1) != h ||
                   declared.getDimSize(2) != w || declared.getDimSize(3) != 2))
    return l.fail("the declared type does not have the size's shape");
  theta = l.castTensor(theta, elem);
  auto table = [&](SmallVector<double> values) {
    SmallVector<Attribute> items;
    for (double v : values)
      items.push_back(FloatAttr::get(elem, v));
    auto type = RankedTensorType::get({int64_t(values.size())}, elem);
    return arith::ConstantOp::create(l.b, l.loc,
                                     DenseElementsAttr::get(type, items))
        .getResult();
  };
  bool f32 = elem.isF32();
  Value xs = table(f32 ? gridLine<float>(w, *alignCorners)
                       : gridLine<double>(w, *alignCorners));
  Value ys = table(f32 ? gridLine<float>(h, *alignCorners)
                       : gridLine<double>(h, *alignCorners));
  MLIRContext *ctx = l.b.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  // Iteration (n, h, w, k): x by w, y by h, theta by (n, k).
  SmallVector<AffineMap> maps = {AffineMap::get(4, 0, {d(2)}, ctx),
                                 AffineMap::get(4, 0, {d(1)}, ctx),
                                 l.b.getMultiDimIdentityMap(4)};
  Value init = l.empty({l.dim(theta, 0), l.b.getIndexAttr(h),
                        l.b.getIndexAttr(w), l.b.getIndexAttr(2)},
                       elem);
  auto body = [&](OpBuilder &b, Location loc, ValueRange v) {
    Value n = linalg::IndexOp::create(b, loc, 0);
    Value k = linalg::IndexOp::create(b, loc, 3);
    auto coefficient = [&](int64_t j) -> Value {
      Value jj = arith::ConstantIndexOp::create(b, loc, j);
      return tensor::ExtractOp::create(b, loc, theta, ValueRange{n, k, jj});
    };
    Value sum = arith::MulFOp::create(b, loc, v[0], coefficient(0));
    sum = arith::AddFOp::create(
        b, loc, sum, arith::MulFOp::create(b, loc, v[1], coefficient(1)));
    sum = arith::AddFOp::create(b, loc, sum, coefficient(2));
    linalg::YieldOp::create(b, loc, sum);
  };
  return l.replace(
      linalg::GenericOp::create(
          l.b, l.loc, TypeRange{init.getType()}, ValueRange{xs, ys},
          ValueRange{init}, maps,
          SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
          "", "", body)
          .getResult(0));
}

/// grid_sampler(input, grid, mode, padding_mode, align_corners), 2-D
/// (input N x C x H x W, grid N x Ho x Wo x 2 of (x, y) in [-1, 1]): as
/// ATen's grid_sampler_2d, bilinear (mode 0) or nearest (1, rounding half
/// to even) from the source position grid_sampler_compute_source_index
/// gives (unnormalized; clipped to the border with padding 1, reflected
/// then clipped with padding 2); taps outside the input read 0.
LogicalResult lowerGridSampler(Lowering &l) {
  using P = args::aten::grid_sampler;
  Value input = l.tensor(P::input), grid = l.tensor(P::grid);
  auto mode = l.constInt(P::interpolation_mode);
  auto padding = l.constInt(P::padding_mode);
  auto alignCorners = l.constBool(P::align_corners);
  Type elem = l.resultElementType();
  if (!input || !grid || !mode || !padding || !alignCorners || !elem ||
      !isFloat(elem))
    return l.fail("needs float tensors and constant modes");
  if (*mode != 0 && *mode != 1)
    return l.fail("supports the bilinear and nearest modes");
  if (*padding < 0 || *padding > 2)
    return l.fail("unknown padding mode");
  auto inType = cast<RankedTensorType>(input.getType());
  auto gridType = cast<RankedTensorType>(grid.getType());
  if (inType.getRank() != 4 || gridType.getRank() != 4 ||
      gridType.getDimSize(3) != 2 || inType.isDynamicDim(2) ||
      inType.isDynamicDim(3))
    return l.fail("supports 4-D inputs of static spatial sizes and grids of "
                  "N x H x W x 2");
  input = l.castTensor(input, elem);
  grid = l.castTensor(grid, elem);
  int64_t height = inType.getDimSize(2), width = inType.getDimSize(3);
  Value init = l.empty(
      {l.dim(input, 0), l.dim(input, 1), l.dim(grid, 1), l.dim(grid, 2)}, elem);
  bool align = *alignCorners;
  int64_t pad = *padding;
  auto body = [&](OpBuilder &b, Location loc, ValueRange) {
    using FP = arith::CmpFPredicate;
    FloatOps f{b, loc, elem};
    auto c = [&](double v) { return f.c(v); };
    auto add = [&](Value x, Value y) { return f.add(x, y); };
    auto sub = [&](Value x, Value y) { return f.sub(x, y); };
    auto mul = [&](Value x, Value y) { return f.mul(x, y); };
    auto div = [&](Value x, Value y) { return f.div(x, y); };
    auto clip = [&](Value x, int64_t size) -> Value {
      return arith::MinimumFOp::create(
          b, loc, c(double(size - 1)),
          arith::MaximumFOp::create(b, loc, x, c(0)));
    };
    auto reflect = [&](Value x, int64_t twiceLow, int64_t twiceHigh) -> Value {
      if (twiceLow == twiceHigh)
        return c(0);
      double low = double(twiceLow) / 2,
             span = double(twiceHigh - twiceLow) / 2;
      Value in = math::AbsFOp::create(b, loc, sub(x, c(low)));
      Value extra = arith::RemFOp::create(b, loc, in, c(span));
      Value flips = math::FloorOp::create(b, loc, div(in, c(span)));
      Value even = arith::CmpFOp::create(
          b, loc, FP::OEQ, arith::RemFOp::create(b, loc, flips, c(2)), c(0));
      return arith::SelectOp::create(b, loc, even, add(extra, c(low)),
                                     add(sub(c(span), extra), c(low)));
    };
    auto source = [&](Value coord, int64_t size) -> Value {
      Value x =
          align ? mul(div(add(coord, c(1)), c(2)), c(double(size - 1)))
                : div(sub(mul(add(coord, c(1)), c(double(size))), c(1)), c(2));
      if (pad == 1)
        x = clip(x, size);
      if (pad == 2)
        x = clip(align ? reflect(x, 0, 2 * (size - 1))
                       : reflect(x, -1, 2 * size - 1),
                 size);
      return x;
    };
    Value n = linalg::IndexOp::create(b, loc, 0);
    Value ch = linalg::IndexOp::create(b, loc, 1);
    Value oh = linalg::IndexOp::create(b, loc, 2);
    Value ow = linalg::IndexOp::create(b, loc, 3);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value gx =
        tensor::ExtractOp::create(b, loc, grid, ValueRange{n, oh, ow, zero});
    Value gy =
        tensor::ExtractOp::create(b, loc, grid, ValueRange{n, oh, ow, one});
    Value ix = source(gx, width), iy = source(gy, height);
    // The input at (y, x), float coordinates of integral value, or 0
    // outside it (a NaN coordinate is outside).
    Type i64 = b.getI64Type();
    auto at = [&](Value y, Value x) -> Value {
      Value inside = arith::AndIOp::create(
          b, loc,
          arith::AndIOp::create(
              b, loc, arith::CmpFOp::create(b, loc, FP::OGE, x, c(0)),
              arith::CmpFOp::create(b, loc, FP::OLE, x, c(double(width - 1)))),
          arith::AndIOp::create(b, loc,
                                arith::CmpFOp::create(b, loc, FP::OGE, y, c(0)),
                                arith::CmpFOp::create(b, loc, FP::OLE, y,
                                                      c(double(height - 1)))));
      auto index = [&](Value v, int64_t size) -> Value {
        Value clamped =
            clip(arith::SelectOp::create(b, loc, inside, v, c(0)), size);
        return arith::IndexCastOp::create(
            b, loc, b.getIndexType(),
            arith::FPToSIOp::create(b, loc, i64, clamped));
      };
      Value value = tensor::ExtractOp::create(
          b, loc, input, ValueRange{n, ch, index(y, height), index(x, width)});
      return arith::SelectOp::create(b, loc, inside, value, c(0));
    };
    Value result;
    if (*mode == 1) {
      result = at(math::RoundEvenOp::create(b, loc, iy),
                  math::RoundEvenOp::create(b, loc, ix));
    } else {
      Value x0 = math::FloorOp::create(b, loc, ix);
      Value y0 = math::FloorOp::create(b, loc, iy);
      Value x1 = add(x0, c(1)), y1 = add(y0, c(1));
      Value nw = mul(sub(x1, ix), sub(y1, iy));
      Value ne = mul(sub(ix, x0), sub(y1, iy));
      Value sw = mul(sub(x1, ix), sub(iy, y0));
      Value se = mul(sub(ix, x0), sub(iy, y0));
      result = mul(at(y0, x0), nw);
      result = add(result, mul(at(y0, x1), ne));
      result = add(result, mul(at(y1, x0), sw));
      result = add(result, mul(at(y1, x1), se));
    }
    linalg::YieldOp::create(b, loc, result);
  };
  return l.replace(
      linalg::GenericOp::create(
          l.b, l.loc, TypeRange{init.getType()}, ValueRange{}, ValueRange{init},
          SmallVector<AffineMap>{l.b.getMultiDimIdentityMap(4)},
          SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
          "", "", body)
          .getResult(0));
}

} // namespace

void mlir::fx::lowering::addResampleLowerings(llvm::StringMap<LowerFn> &t) {
  addLowering(
      t,
      {"aten::upsample_nearest1d.vec", "aten::upsample_nearest1d",
       "aten::upsample_nearest2d.vec", "aten::upsample_nearest2d",
       "aten::upsample_nearest3d.vec", "aten::upsample_nearest3d",
       "aten::_upsample_nearest_exact1d.vec", "aten::_upsample_nearest_exact1d",
       "aten::_upsample_nearest_exact2d.vec", "aten::_upsample_nearest_exact2d",
       "aten::_upsample_nearest_exact3d.vec", "aten::_upsample_nearest_exact3d",
       "aten::upsample_linear1d.vec", "aten::upsample_linear1d",
       "aten::upsample_bilinear2d.vec", "aten::upsample_bilinear2d",
       "aten::upsample_trilinear3d.vec", "aten::upsample_trilinear3d",
       "aten::upsample_bicubic2d.vec"},
      lowerUpsample);
  addLowering(t, {"aten::affine_grid_generator"}, lowerAffineGrid);
  addLowering(t, {"aten::grid_sampler"}, lowerGridSampler);
}
