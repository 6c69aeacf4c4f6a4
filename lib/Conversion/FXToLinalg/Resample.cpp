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

/// `T` is the element type's precision (LibTorch computes the indices and
/// weights of a float tensor in float).
template <typename T>
Taps linearTaps(int64_t in, int64_t out, bool alignCorners,
                std::optional<double> scale) {
  Taps t;
  T ratio = alignCorners ? (out > 1 ? T(in - 1) / T(out - 1) : T(0))
                         : scaleValue<T>(scale, in, out);
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
  T ratio = alignCorners ? (out > 1 ? T(in - 1) / T(out - 1) : T(0))
                         : scaleValue<T>(scale, in, out);
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
  return l.replace(
      linalg::GenericOp::create(
          l.b, l.loc, TypeRange{init.getType()}, tables, ValueRange{init}, maps,
          SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
          "", "", body)
          .getResult(0));
}

} // namespace

void mlir::fx::lowering::addResampleLowerings(llvm::StringMap<LowerFn> &t) {
  addLowering(t,
              {"aten::upsample_nearest1d.vec", "aten::upsample_nearest1d",
               "aten::upsample_nearest2d.vec", "aten::upsample_nearest2d",
               "aten::upsample_nearest3d.vec", "aten::upsample_nearest3d",
               "aten::_upsample_nearest_exact1d.vec",
               "aten::_upsample_nearest_exact2d.vec",
               "aten::_upsample_nearest_exact3d.vec",
               "aten::upsample_linear1d.vec", "aten::upsample_linear1d",
               "aten::upsample_bilinear2d.vec", "aten::upsample_bilinear2d",
               "aten::upsample_trilinear3d.vec", "aten::upsample_trilinear3d",
               "aten::upsample_bicubic2d.vec"},
              lowerUpsample);
}
