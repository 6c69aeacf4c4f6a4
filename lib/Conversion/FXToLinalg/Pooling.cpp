//===- Pooling.cpp - pooling to linalg ------------------------------------===//
//
// Max and sum pooling use the named NCHW linalg pooling ops, in 3-D a
// generic of the same form; average pooling divides by a compile-time
// table of window sizes (PyTorch's count_include_pad and ceil_mode rules);
// adaptive average pooling contracts with one constant averaging matrix
// per spatial dim; max pooling with indices and adaptive max pooling keep
// the first maximum as ATen's CPU kernels do. Max pooling of a quantized
// tensor's bytes goes to int8MaxPool2d (QuantizedConv.cpp).
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"
#include "fx-mlir/Dialect/FX/Transforms/Passes.h"
#include "llvm/Support/FormatVariadic.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include <limits>

using namespace mlir;
using namespace mlir::fx;
using namespace mlir::fx::lowering;

namespace {

int64_t staticDim(Value v, int64_t d) {
  return cast<RankedTensorType>(v.getType()).getDimSize(d);
}

/// Pooling geometry of one spatial dim.
struct Window {
  int64_t size, k, s, p, d, out, extra;
};

std::optional<Window> window(int64_t n, int64_t k, int64_t s, int64_t p,
                             int64_t d, bool ceil) {
  // PyTorch's checks: positive kernel, stride and dilation, padding from
  // 0 to half the kernel, at least one window.
  if (ShapedType::isDynamic(n) || s <= 0 || k <= 0 || d <= 0 || p < 0 ||
      2 * p > k)
    return std::nullopt;
  int64_t span = n + 2 * p - d * (k - 1) - 1;
  if (span < 0)
    return std::nullopt;
  int64_t out = (span + (ceil ? s - 1 : 0)) / s + 1;
  // The last window must start inside the input or left padding.
  if (ceil && (out - 1) * s >= n + p)
    --out;
  int64_t extra =
      std::max<int64_t>(0, (out - 1) * s + d * (k - 1) + 1 - (n + 2 * p));
  return Window{n, k, s, p, d, out, extra};
}

/// Reads (kernel, stride, padding[, dilation], ceil_mode) of a pooling op
/// for `spatial` dims; stride [] means the kernel size.
std::optional<SmallVector<Window>> poolWindows(Lowering &l, Value input,
                                               int spatial, bool hasDilation) {
  // Parameters as aten::max_pool1d_with_indices names them, at the same
  // positions in aten::max_pool2d_with_indices, aten::max_pool3d_with_indices.
  using P = args::aten::max_pool1d_with_indices;
  auto kernel = l.intList(P::kernel_size), stride = l.intList(P::stride),
       padding = l.intList(P::padding);
  std::optional<SmallVector<int64_t>> dilation =
      SmallVector<int64_t>(spatial, 1);
  // ceil_mode follows the dilation of max pooling, the padding of average
  // pooling.
  namespace A = args::aten;
  static constexpr Param kMaxCeil = sameParam(
      P::ceil_mode, A::max_pool1d::ceil_mode, A::max_pool2d::ceil_mode,
      A::max_pool3d::ceil_mode, A::max_pool2d_with_indices::ceil_mode,
      A::max_pool3d_with_indices::ceil_mode);
  static constexpr Param kAvgCeil =
      sameParam(A::avg_pool1d::ceil_mode, A::avg_pool2d::ceil_mode,
                A::avg_pool3d::ceil_mode);
  Param ceilMode = kAvgCeil;
  if (hasDilation) {
    dilation = l.intList(P::dilation);
    ceilMode = kMaxCeil;
  }
  auto ceil = l.constBool(ceilMode);
  if (!kernel || !stride || !padding || !dilation || !ceil)
    return std::nullopt;
  auto expand = [&](SmallVector<int64_t> v) {
    if (v.size() == 1)
      v.resize(spatial, v[0]);
    return v;
  };
  SmallVector<int64_t> k = expand(*kernel);
  SmallVector<int64_t> s = stride->empty() ? k : expand(*stride);
  SmallVector<int64_t> p = expand(*padding), d = expand(*dilation);
  if (int(k.size()) != spatial || int(s.size()) != spatial ||
      int(p.size()) != spatial || int(d.size()) != spatial)
    return std::nullopt;
  int64_t rank = cast<RankedTensorType>(input.getType()).getRank();
  SmallVector<Window> result;
  for (int i = 0; i < spatial; ++i) {
    auto w = window(staticDim(input, rank - spatial + i), k[i], s[i], p[i],
                    d[i], *ceil);
    if (!w)
      return std::nullopt;
    result.push_back(*w);
  }
  return result;
}

/// Pads the spatial dims of an NCHW input for `wins` with `v`.
Value padForWindows(Lowering &l, Value input, ArrayRef<Window> wins, Value v) {
  bool any = llvm::any_of(wins, [](const Window &w) { return w.p || w.extra; });
  if (!any)
    return input;
  SmallVector<OpFoldResult> lo(2, l.b.getIndexAttr(0)),
      hi(2, l.b.getIndexAttr(0));
  for (const Window &w : wins) {
    lo.push_back(l.b.getIndexAttr(w.p));
    hi.push_back(l.b.getIndexAttr(w.p + w.extra));
  }
  return l.pad(input, lo, hi, v);
}

/// Max or sum pooling over the 2 or 3 spatial dims of an NC... input: the
/// named NCHW pooling ops in 2-D, one generic of the same form in 3-D.
Value pool(Lowering &l, Value input, ArrayRef<Window> wins, bool isMax,
           Type elem) {
  OpBuilder &b = l.b;
  Value padValue =
      isMax ? l.constant(elem, -std::numeric_limits<double>::infinity())
            : l.constant(elem, 0);
  if (isMax && !isFloat(elem))
    padValue = l.constant(elem, double(std::numeric_limits<int32_t>::min()));
  Value padded = padForWindows(l, input, wins, padValue);
  SmallVector<OpFoldResult> sizes = {l.dim(input, 0), l.dim(input, 1)};
  for (const Window &w : wins)
    sizes.push_back(b.getIndexAttr(w.out));
  Value init = l.filled(sizes, padValue);
  if (wins.size() != 2) {
    // Loops (n, c, outputs..., window...).
    int64_t k = wins.size(), loops = 2 + 2 * k;
    SmallVector<OpFoldResult> windowSizes;
    SmallVector<AffineExpr> inExprs = {b.getAffineDimExpr(0),
                                       b.getAffineDimExpr(1)},
                            windowExprs, outExprs = inExprs;
    for (int64_t i = 0; i < k; ++i) {
      AffineExpr o = b.getAffineDimExpr(2 + i),
                 w = b.getAffineDimExpr(2 + k + i);
      inExprs.push_back(o * wins[i].s + w * wins[i].d);
      windowExprs.push_back(w);
      outExprs.push_back(o);
      windowSizes.push_back(b.getIndexAttr(wins[i].k));
    }
    SmallVector<AffineMap> maps = {
        AffineMap::get(loops, 0, inExprs, b.getContext()),
        AffineMap::get(loops, 0, windowExprs, b.getContext()),
        AffineMap::get(loops, 0, outExprs, b.getContext())};
    SmallVector<utils::IteratorType> iterators(2 + k,
                                               utils::IteratorType::parallel);
    iterators.append(k, utils::IteratorType::reduction);
    return linalg::GenericOp::create(
               b, l.loc, TypeRange{init.getType()},
               ValueRange{padded, l.empty(windowSizes, elem)}, ValueRange{init},
               maps, iterators, "", "",
               [&](OpBuilder &nb, Location loc, ValueRange v) {
                 Value r;
                 if (!isMax)
                   r = isFloat(elem)
                           ? arith::AddFOp::create(nb, loc, v[2], v[0])
                                 .getResult()
                           : arith::AddIOp::create(nb, loc, v[2], v[0])
                                 .getResult();
                 else if (isFloat(elem))
                   r = arith::MaximumFOp::create(nb, loc, v[2], v[0]);
                 else
                   r = arith::MaxSIOp::create(nb, loc, v[2], v[0]);
                 linalg::YieldOp::create(nb, loc, r);
               })
        .getResult(0);
  }
  Value windowShape =
      l.empty({b.getIndexAttr(wins[0].k), b.getIndexAttr(wins[1].k)}, elem);
  auto strides = b.getI64VectorAttr({wins[0].s, wins[1].s});
  auto dilations = b.getI64VectorAttr({wins[0].d, wins[1].d});
  if (isMax)
    return linalg::PoolingNchwMaxOp::create(b, l.loc, TypeRange{init.getType()},
                                            ValueRange{padded, windowShape},
                                            ValueRange{init}, strides,
                                            dilations)
        .getResult(0);
  return linalg::PoolingNchwSumOp::create(b, l.loc, TypeRange{init.getType()},
                                          ValueRange{padded, windowShape},
                                          ValueRange{init}, strides, dilations)
      .getResult(0);
}

/// Adds unit height to 1-D pooling inputs: (N, C, L) -> (N, C, 1, L).
Window unitWindow() { return Window{1, 1, 1, 0, 1, 1, 0}; }

/// The body's last step in a max pool with indices, as ATen's CPU kernels
/// scan a window: the element `x` at flattened input position `flat`
/// replaces the kept (best, bestIndex) when `valid` (inside the input)
/// and it is greater, a NaN, or the first (bestIndex -1); yields both.
void yieldFirstMaximum(OpBuilder &nb, Location loc, Type elem, Value valid,
                       Value flat, Value x, Value best, Value bestIndex) {
  Value greater =
      isFloat(elem)
          ? arith::OrIOp::create(
                nb, loc,
                arith::CmpFOp::create(nb, loc, arith::CmpFPredicate::OGT, x,
                                      best),
                arith::CmpFOp::create(nb, loc, arith::CmpFPredicate::UNO, x, x))
                .getResult()
          : arith::CmpIOp::create(nb, loc, arith::CmpIPredicate::sgt, x, best)
                .getResult();
  Value first = arith::CmpIOp::create(
      nb, loc, arith::CmpIPredicate::eq, bestIndex,
      arith::ConstantIntOp::create(nb, loc, nb.getI64Type(), -1));
  Value take = arith::AndIOp::create(
      nb, loc, valid, arith::OrIOp::create(nb, loc, greater, first));
  Value flat64 = arith::IndexCastOp::create(nb, loc, nb.getI64Type(), flat);
  linalg::YieldOp::create(
      nb, loc,
      ValueRange{arith::SelectOp::create(nb, loc, take, x, best),
                 arith::SelectOp::create(nb, loc, take, flat64, bestIndex)});
}

/// The generic of a max pool with indices over (n, c, outputs...,
/// window...): `padded` read through `inExprs` (n, c, then one expression
/// per spatial dim), outputs of `sizes`, windows of `windowSizes`, both
/// results starting at `lowest` and -1; `position` gives, in the body, an
/// element's validity and its flattened input position. {values, indices}.
std::pair<Value, Value> windowMaximum(
    Lowering &l, Value padded, ArrayRef<AffineExpr> inExprs,
    ArrayRef<OpFoldResult> sizes, ArrayRef<OpFoldResult> windowSizes,
    Value lowest, Type elem,
    function_ref<std::pair<Value, Value>(OpBuilder &, Location)> position) {
  OpBuilder &b = l.b;
  int64_t k = windowSizes.size(), loops = 2 + 2 * k;
  SmallVector<AffineExpr> windowExprs, outExprs;
  for (int64_t d = 0; d < 2 + k; ++d)
    outExprs.push_back(b.getAffineDimExpr(d));
  for (int64_t i = 0; i < k; ++i)
    windowExprs.push_back(b.getAffineDimExpr(2 + k + i));
  Value values = l.filled(sizes, lowest);
  Value indices = l.filled(sizes, l.constant(b.getI64Type(), -1));
  SmallVector<AffineMap> maps = {
      AffineMap::get(loops, 0, inExprs, b.getContext()),
      AffineMap::get(loops, 0, windowExprs, b.getContext()),
      AffineMap::get(loops, 0, outExprs, b.getContext()),
      AffineMap::get(loops, 0, outExprs, b.getContext())};
  SmallVector<utils::IteratorType> iterators(2 + k,
                                             utils::IteratorType::parallel);
  iterators.append(k, utils::IteratorType::reduction);
  auto generic = linalg::GenericOp::create(
      b, l.loc, TypeRange{values.getType(), indices.getType()},
      ValueRange{padded, l.empty(windowSizes, elem)},
      ValueRange{values, indices}, maps, iterators, "", "",
      [&](OpBuilder &nb, Location loc, ValueRange v) {
        auto [valid, flat] = position(nb, loc);
        yieldFirstMaximum(nb, loc, elem, valid, flat, v[0], v[2], v[3]);
      });
  return {generic.getResult(0), generic.getResult(1)};
}

/// Max pooling with the index of each maximum: loops (n, c, outputs...,
/// window...) in the order ATen's CPU kernel visits a window, keeping the
/// first maximum (a NaN always wins, as in ATen); the index is the
/// position in the input's spatial dims flattened (h * W + w), starting at
/// the window's first position inside the input, as ATen's does. Returns
/// {values, indices}.
std::pair<Value, Value> poolWithIndices(Lowering &l, Value input,
                                        ArrayRef<Window> wins, Type elem) {
  OpBuilder &b = l.b;
  Value lowest =
      isFloat(elem)
          ? l.constant(elem, -std::numeric_limits<double>::infinity())
          : l.constant(elem, double(std::numeric_limits<int32_t>::min()));
  Value padded = padForWindows(l, input, wins, lowest);
  int64_t k = wins.size();
  SmallVector<OpFoldResult> sizes = {l.dim(input, 0), l.dim(input, 1)};
  SmallVector<OpFoldResult> windowSizes;
  SmallVector<AffineExpr> inExprs = {b.getAffineDimExpr(0),
                                     b.getAffineDimExpr(1)};
  for (int64_t i = 0; i < k; ++i) {
    AffineExpr o = b.getAffineDimExpr(2 + i), w = b.getAffineDimExpr(2 + k + i);
    inExprs.push_back(o * wins[i].s + w * wins[i].d);
    windowSizes.push_back(b.getIndexAttr(wins[i].k));
    sizes.push_back(b.getIndexAttr(wins[i].out));
  }
  return windowMaximum(
      l, padded, inExprs, sizes, windowSizes, lowest, elem,
      [&](OpBuilder &nb, Location loc) -> std::pair<Value, Value> {
        // The input position of this window element, its validity and
        // its flattened index.
        auto cst = [&](int64_t c) {
          return arith::ConstantIndexOp::create(nb, loc, c);
        };
        Value valid, flat;
        for (int64_t i = 0; i < k; ++i) {
          Value o = linalg::IndexOp::create(nb, loc, 2 + i);
          Value w = linalg::IndexOp::create(nb, loc, 2 + k + i);
          Value pos = arith::AddIOp::create(
              nb, loc, arith::MulIOp::create(nb, loc, o, cst(wins[i].s)),
              arith::MulIOp::create(nb, loc, w, cst(wins[i].d)));
          pos = arith::SubIOp::create(nb, loc, pos, cst(wins[i].p));
          Value inside = arith::AndIOp::create(
              nb, loc,
              arith::CmpIOp::create(nb, loc, arith::CmpIPredicate::sge, pos,
                                    cst(0)),
              arith::CmpIOp::create(nb, loc, arith::CmpIPredicate::slt, pos,
                                    cst(wins[i].size)));
          valid =
              valid ? arith::AndIOp::create(nb, loc, valid, inside).getResult()
                    : inside;
          flat =
              flat
                  ? arith::AddIOp::create(
                        nb, loc,
                        arith::MulIOp::create(nb, loc, flat, cst(wins[i].size)),
                        pos)
                        .getResult()
                  : pos;
        }
        return {valid, flat};
      });
}

/// adaptive_max_pool1d/2d/3d(self, output_size): output position o of a
/// spatial dim of size `in` covers [floor(o * in / out), ceil((o + 1) * in
/// / out)). Loops (n, c, outputs..., window...) over windows of the
/// largest such size, positions past a window's end masked off, keeping
/// the first maximum (a NaN wins) and its index in the input's spatial
/// dims flattened, as ATen's CPU kernel.
LogicalResult lowerAdaptiveMaxPool(Lowering &l, int spatial) {
  // Parameters as aten::adaptive_max_pool1d names them, at the same positions
  // in aten::adaptive_max_pool2d, aten::adaptive_max_pool3d.
  using P = args::aten::adaptive_max_pool1d;
  Value input = l.tensor(P::self);
  Type elem = l.resultElementType();
  auto outSize = l.intList(P::output_size);
  if (!input || !elem || !outSize || int(outSize->size()) != spatial)
    return l.fail("needs a typed tensor and a constant output size");
  int64_t rank = cast<RankedTensorType>(input.getType()).getRank();
  bool unbatched = rank == spatial + 1;
  if (!unbatched && rank != spatial + 2)
    return l.fail("expects a (batch,) channels and " + Twine(spatial) +
                  " spatial dims");
  if (unbatched)
    input = l.unsqueeze(input, 0);
  input = l.castTensor(input, elem);
  OpBuilder &b = l.b;
  int64_t k = spatial;
  SmallVector<int64_t> ins;
  SmallVector<OpFoldResult> sizes = {l.dim(input, 0), l.dim(input, 1)},
                            windowSizes, low(2 + k, b.getIndexAttr(0)),
                            high(2, b.getIndexAttr(0));
  SmallVector<AffineExpr> inExprs = {b.getAffineDimExpr(0),
                                     b.getAffineDimExpr(1)};
  for (int64_t i = 0; i < k; ++i) {
    int64_t in = staticDim(input, 2 + i), out = (*outSize)[i];
    if (ShapedType::isDynamic(in) || in <= 0 || out <= 0)
      return l.fail("needs static, nonempty spatial sizes and a positive "
                    "output size");
    int64_t window = 0;
    for (int64_t o = 0; o < out; ++o)
      window = std::max(window, ((o + 1) * in + out - 1) / out - o * in / out);
    ins.push_back(in);
    AffineExpr o = b.getAffineDimExpr(2 + i), w = b.getAffineDimExpr(2 + k + i);
    inExprs.push_back((o * in).floorDiv(out) + w);
    windowSizes.push_back(b.getIndexAttr(window));
    sizes.push_back(b.getIndexAttr(out));
    // The last window may reach `window` past its start: padding keeps
    // those (masked) reads inside the tensor.
    high.push_back(b.getIndexAttr(window));
  }
  Value lowest =
      isFloat(elem)
          ? l.constant(elem, -std::numeric_limits<double>::infinity())
          : l.constant(elem, double(std::numeric_limits<int32_t>::min()));
  Value padded = l.pad(input, low, high, lowest);
  auto [r, idx] = windowMaximum(
      l, padded, inExprs, sizes, windowSizes, lowest, elem,
      [&](OpBuilder &nb, Location loc) -> std::pair<Value, Value> {
        auto cst = [&](int64_t c) {
          return arith::ConstantIndexOp::create(nb, loc, c);
        };
        Value valid, flat;
        for (int64_t i = 0; i < k; ++i) {
          int64_t in = ins[i], out = (*outSize)[i];
          Value o = linalg::IndexOp::create(nb, loc, 2 + i);
          Value w = linalg::IndexOp::create(nb, loc, 2 + k + i);
          Value start = arith::DivUIOp::create(
              nb, loc, arith::MulIOp::create(nb, loc, o, cst(in)), cst(out));
          Value next = arith::AddIOp::create(nb, loc, o, cst(1));
          Value end = arith::DivUIOp::create(
              nb, loc,
              arith::AddIOp::create(
                  nb, loc, arith::MulIOp::create(nb, loc, next, cst(in)),
                  cst(out - 1)),
              cst(out));
          Value pos = arith::AddIOp::create(nb, loc, start, w);
          Value inside = arith::CmpIOp::create(
              nb, loc, arith::CmpIPredicate::slt, pos, end);
          valid =
              valid ? arith::AndIOp::create(nb, loc, valid, inside).getResult()
                    : inside;
          flat = flat ? arith::AddIOp::create(
                            nb, loc,
                            arith::MulIOp::create(nb, loc, flat, cst(in)), pos)
                            .getResult()
                      : pos;
        }
        return {valid, flat};
      });
  if (unbatched) {
    r = l.squeeze(r, 0);
    idx = l.squeeze(idx, 0);
  }
  return l.replaceTuple({r, idx});
}
LogicalResult lowerAdaptiveMaxPool1d(Lowering &l) {
  return lowerAdaptiveMaxPool(l, 1);
}
LogicalResult lowerAdaptiveMaxPool2d(Lowering &l) {
  return lowerAdaptiveMaxPool(l, 2);
}
LogicalResult lowerAdaptiveMaxPool3d(Lowering &l) {
  return lowerAdaptiveMaxPool(l, 3);
}

/// The input and windows of a pooling node: an unbatched input (C,
/// spatial...) runs on (1, C, ...) and sets `unbatched`. Records why and
/// fails otherwise.
LogicalResult poolOperands(Lowering &l, int spatial, bool hasDilation,
                           Value input, Value &batched, bool &unbatched,
                           SmallVector<Window> &wins) {
  int64_t rank = cast<RankedTensorType>(input.getType()).getRank();
  unbatched = rank == spatial + 1;
  batched = unbatched ? l.unsqueeze(input, 0) : input;
  if (cast<RankedTensorType>(batched.getType()).getRank() != spatial + 2)
    return l.fail("expects a (batch,) channels and " + Twine(spatial) +
                  " spatial dims");
  auto windows = poolWindows(l, batched, spatial, hasDilation);
  if (!windows)
    return l.fail("pooling parameters must be constants that PyTorch "
                  "accepts (positive kernel, stride and dilation, padding "
                  "at most half the kernel, at least one window) and "
                  "spatial sizes static");
  wins = std::move(*windows);
  return success();
}

LogicalResult lowerMaxPoolWithIndices(Lowering &l, int spatial) {
  // Parameters as aten::max_pool1d_with_indices names them, at the same
  // positions in aten::max_pool2d_with_indices, aten::max_pool3d_with_indices.
  using P = args::aten::max_pool1d_with_indices;
  Value input = l.tensor(P::self);
  Type elem = l.resultElementType();
  if (!input || !elem)
    return l.fail("needs a typed tensor");
  bool unbatched;
  SmallVector<Window> wins;
  if (failed(poolOperands(l, spatial, /*hasDilation=*/true, input, input,
                          unbatched, wins)))
    return failure();
  auto [values, indices] = poolWithIndices(l, input, wins, elem);
  if (unbatched) {
    values = l.squeeze(values, 0);
    indices = l.squeeze(indices, 0);
  }
  return l.replaceTuple({values, indices});
}

LogicalResult lowerMaxPool1dWithIndices(Lowering &l) {
  return lowerMaxPoolWithIndices(l, 1);
}
LogicalResult lowerMaxPool2dWithIndices(Lowering &l) {
  return lowerMaxPoolWithIndices(l, 2);
}
LogicalResult lowerMaxPool3dWithIndices(Lowering &l) {
  return lowerMaxPoolWithIndices(l, 3);
}

LogicalResult lowerMaxPool(Lowering &l, int spatial) {
  Value input = l.subject();
  Type elem = l.resultElementType();
  if (!input || !elem)
    return l.fail("needs a typed tensor");
  bool unbatched;
  SmallVector<Window> wins;
  if (failed(poolOperands(l, spatial, /*hasDilation=*/true, input, input,
                          unbatched, wins)))
    return failure();
  // A quantized tensor's 8-bit integers (fx-fold-quant pools them instead
  // of their dequantized values): pooled in NHWC.
  auto quantType = l.op->getAttrOfType<TypeAttr>(kQuantTypeAttr);
  auto quantized = quantType
                       ? dyn_cast<quant::QuantizedType>(quantType.getValue())
                       : quant::QuantizedType();
  auto inputType = dyn_cast<RankedTensorType>(input.getType());
  if (quantized && spatial == 2 && !unbatched && inputType &&
      inputType.hasStaticShape() && inputType.getRank() == 4 &&
      elem.isInteger(8) && inputType.getElementType() == elem)
    return l.replace(
        int8MaxPool2d(l, input, !quantized.isSigned(), {wins[0].k, wins[1].k},
                      {wins[0].s, wins[1].s}, {wins[0].p, wins[1].p},
                      {wins[0].p + wins[0].extra, wins[1].p + wins[1].extra},
                      {wins[0].d, wins[1].d}, {wins[0].out, wins[1].out}));
  if (spatial == 1) {
    input = l.unsqueeze(input, 2);
    wins.insert(wins.begin(), unitWindow());
  }
  Value r = pool(l, input, wins, /*isMax=*/true, elem);
  if (spatial == 1)
    r = l.squeeze(r, 2);
  if (unbatched)
    r = l.squeeze(r, 0);
  return l.replace(r);
}

LogicalResult lowerMaxPool1d(Lowering &l) { return lowerMaxPool(l, 1); }
LogicalResult lowerMaxPool2d(Lowering &l) { return lowerMaxPool(l, 2); }
LogicalResult lowerMaxPool3d(Lowering &l) { return lowerMaxPool(l, 3); }

/// The quant type of the tensor `l`'s call averages when it is a per-tensor
/// quantized tensor's 8-bit integers (`elem`, the result's storage type):
/// fx-fold-quant pools them, as PyTorch's quantized average poolings do.
quant::UniformQuantizedType averagedIntegers(Lowering &l, Type elem) {
  auto attr = l.op->getAttrOfType<TypeAttr>(kQuantTypeAttr);
  auto type = attr ? dyn_cast<quant::UniformQuantizedType>(attr.getValue())
                   : quant::UniformQuantizedType();
  if (!type || type.getStorageTypeIntegralWidth() != 8 || !elem ||
      !elem.isInteger(8))
    return {};
  return type;
}

/// The integers `q` (of quant type `type`) less the zero point, in f32.
Value centeredIntegers(Lowering &l, Value q, quant::UniformQuantizedType type) {
  float zeroPoint = float(type.getZeroPoint());
  bool isSigned = type.isSigned();
  Type f32 = l.b.getF32Type();
  return mapElements(
      l.b, l.loc, q, f32, [&](OpBuilder &b, Location loc, Value v) {
        return centeredInteger(
            b, loc, v, isSigned,
            arith::ConstantOp::create(b, loc, b.getF32FloatAttr(zeroPoint)));
      });
}

/// An average of centered integers back to integers of `type` (`storage`),
/// clamped, rounded half to even as PyTorch's quantized average poolings
/// round: with `pointFirst`, the zero point added before rounding (the
/// average of the integers themselves rounded: onednn's avg_pool1d/2d,
/// and the adaptive poolings of every engine); else after (avg_pool3d,
/// and qnnpack's avg_pool2d), which differs at a half when the zero
/// point is odd.
Value averageAsIntegers(Lowering &l, Value average,
                        quant::UniformQuantizedType type, Type storage,
                        bool pointFirst) {
  float zeroPoint = float(type.getZeroPoint());
  float lo = float(type.getStorageTypeMin());
  float hi = float(type.getStorageTypeMax());
  return mapElements(
      l.b, l.loc, average, storage, [&](OpBuilder &b, Location loc, Value v) {
        auto constant = [&](float c) {
          return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(c));
        };
        if (pointFirst)
          v = arith::AddFOp::create(b, loc, v, constant(zeroPoint));
        Value q = quantizedValue(b, loc, v, constant(1),
                                 constant(pointFirst ? 0 : zeroPoint), lo, hi);
        return storageInteger(b, loc, q, storage);
      });
}

/// avg_pool(self, kernel, stride, padding, ceil_mode, count_include_pad
/// [, divisor_override]).
LogicalResult lowerAvgPool(Lowering &l, int spatial) {
  namespace A = args::aten;
  static constexpr Param kCountIncludePad = sameParam(
      A::avg_pool1d::count_include_pad, A::avg_pool2d::count_include_pad,
      A::avg_pool3d::count_include_pad);
  static constexpr Param kDivisorOverride = sameParam(
      A::avg_pool2d::divisor_override, A::avg_pool3d::divisor_override);
  Value input = l.subject();
  Type elem = l.resultElementType();
  // A per-tensor quantized tensor's 8-bit integers (fx-fold-quant averages
  // them instead of their dequantized values): the integers less the zero
  // point averaged in f32 (exact sums; padding is the zero point), the
  // zero point added back and rounded half to even as PyTorch's quantized
  // avg_pool computes (averageAsIntegers).
  quant::UniformQuantizedType quantized = averagedIntegers(l, elem);
  Type integers = quantized ? elem : Type();
  if (quantized && input) {
    input = centeredIntegers(l, input, quantized);
    elem = l.b.getF32Type();
  }
  if (!input || !elem || !isFloat(elem))
    return l.fail("needs a float tensor");
  bool unbatched;
  SmallVector<Window> storage;
  if (failed(poolOperands(l, spatial, /*hasDilation=*/false, input, input,
                          unbatched, storage)))
    return failure();
  auto *wins = &storage;
  auto includePad = l.constBool(kCountIncludePad);
  std::optional<int64_t> divisorOverride;
  if (spatial >= 2 && !l.isNone(kDivisorOverride))
    divisorOverride = l.constInt(kDivisorOverride);
  if (!includePad)
    return l.fail("count_include_pad must be a constant");
  if (spatial == 1) {
    input = l.unsqueeze(input, 2);
    wins->insert(wins->begin(), unitWindow());
  }
  Value sum = pool(l, input, *wins, /*isMax=*/false, elem);
  // Divisors per output position, as ATen's avg_pool2d/3d compute them:
  // the product over the dims of each window's extent.
  auto extent = [&](const Window &w, int64_t o) {
    int64_t start = o * w.s - w.p;
    int64_t end = std::min(start + w.k, w.size + w.p);
    if (!*includePad) {
      start = std::max<int64_t>(start, 0);
      end = std::min(end, w.size);
    }
    return end - start;
  };
  SmallVector<int64_t> tableShape;
  int64_t positions = 1;
  for (const Window &w : *wins) {
    tableShape.push_back(w.out);
    positions *= w.out;
  }
  SmallVector<float> divisors;
  for (int64_t p = 0; p < positions; ++p) {
    int64_t count = 1, rest = p;
    for (int64_t i = wins->size() - 1; i >= 0; --i) {
      count *= extent((*wins)[i], rest % (*wins)[i].out);
      rest /= (*wins)[i].out;
    }
    divisors.push_back(divisorOverride ? float(*divisorOverride)
                                       : float(count));
  }
  auto tableType = RankedTensorType::get(tableShape, l.b.getF32Type());
  Value table = arith::ConstantOp::create(
      l.b, l.loc, DenseElementsAttr::get(tableType, ArrayRef<float>(divisors)));
  Value r = l.elementwise(
      {sum, table}, elem, elem, [](OpBuilder &b, Location loc, ValueRange v) {
        return arith::DivFOp::create(b, loc, v[0], v[1]).getResult();
      });
  if (integers)
    r = averageAsIntegers(l, r, quantized, integers,
                          /*pointFirst=*/spatial < 3 &&
                              !l.op->hasAttr(kRoundBeforeZeroPointAttr));
  if (spatial == 1)
    r = l.squeeze(r, 2);
  if (unbatched)
    r = l.squeeze(r, 0);
  return l.replace(r);
}

LogicalResult lowerAvgPool1d(Lowering &l) { return lowerAvgPool(l, 1); }
LogicalResult lowerAvgPool2d(Lowering &l) { return lowerAvgPool(l, 2); }
LogicalResult lowerAvgPool3d(Lowering &l) { return lowerAvgPool(l, 3); }

/// The (out x in) matrix averaging the adaptive windows of one dim (with
/// `sum`, summing them).
Value averagingMatrix(Lowering &l, int64_t in, int64_t out, Type elem,
                      bool sum = false) {
  SmallVector<double> m(out * in, 0.0);
  for (int64_t i = 0; i < out; ++i) {
    int64_t start = (i * in) / out;
    int64_t end = ((i + 1) * in + out - 1) / out;
    for (int64_t j = start; j < end; ++j)
      m[i * in + j] = sum ? 1.0 : 1.0 / double(end - start);
  }
  auto type = RankedTensorType::get({out, in}, elem);
  SmallVector<Attribute> values;
  for (double v : m)
    values.push_back(FloatAttr::get(elem, v));
  return arith::ConstantOp::create(l.b, l.loc,
                                   DenseElementsAttr::get(type, values));
}

LogicalResult lowerAdaptiveAvgPool(Lowering &l, int spatial) {
  // Parameters as aten::adaptive_avg_pool1d names them, at the same positions
  // in aten::adaptive_avg_pool2d, aten::adaptive_avg_pool3d.
  using P = args::aten::adaptive_avg_pool1d;
  Value input = l.tensor(P::self);
  Type elem = l.resultElementType();
  auto outSize = l.intList(P::output_size);
  // A quantized tensor's integers (as lowerAvgPool): the windows' sums of
  // the centered integers, divided by their counts, the zero point added,
  // rounded half to even.
  quant::UniformQuantizedType quantized = averagedIntegers(l, elem);
  Type integers = quantized ? elem : Type();
  if (quantized && input) {
    input = centeredIntegers(l, input, quantized);
    elem = l.b.getF32Type();
  }
  if (!input || !elem || !isFloat(elem) || !outSize)
    return l.fail("needs a float tensor and a constant output size");
  auto type = cast<RankedTensorType>(input.getType());
  int64_t rank = type.getRank();
  if (rank < spatial + 1 || int(outSize->size()) != spatial)
    return l.fail("bad input rank or output size");
  if (spatial == 1) {
    input = l.unsqueeze(input, rank - 1);
    outSize->insert(outSize->begin(), 1);
    type = cast<RankedTensorType>(input.getType());
    ++rank;
  }
  // out[..., i, j(, k)] = sum over h, w(, z) of x[..., h, w(, z)] times one
  // averaging matrix per spatial dim: ph[i, h] pw[j, w] (pz[k, z]).
  int64_t k = std::max(spatial, 2), lead = rank - k, loops = lead + 2 * k;
  OpBuilder &b = l.b;
  SmallVector<AffineExpr> xExprs, outExprs;
  SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0; d < lead; ++d) {
    xExprs.push_back(b.getAffineDimExpr(d));
    outExprs.push_back(b.getAffineDimExpr(d));
    sizes.push_back(l.dim(input, d));
  }
  SmallVector<Value> matrices;
  SmallVector<AffineMap> matrixMaps;
  SmallVector<SmallVector<int64_t>> counts; // each output's window, per dim
  for (int64_t i = 0; i < k; ++i) {
    int64_t in = type.getDimSize(lead + i);
    if (ShapedType::isDynamic(in))
      return l.fail("spatial sizes must be static");
    int64_t out = (*outSize)[i] < 0 ? in : (*outSize)[i];
    AffineExpr o = b.getAffineDimExpr(lead + i),
               x = b.getAffineDimExpr(lead + k + i);
    xExprs.push_back(x);
    outExprs.push_back(o);
    sizes.push_back(b.getIndexAttr(out));
    matrices.push_back(averagingMatrix(l, in, out, elem, bool(integers)));
    counts.push_back({});
    for (int64_t o = 0; o < out; ++o)
      counts.back().push_back(((o + 1) * in + out - 1) / out - (o * in) / out);
    matrixMaps.push_back(AffineMap::get(loops, 0, {o, x}, b.getContext()));
  }
  SmallVector<AffineMap> maps = {
      AffineMap::get(loops, 0, xExprs, b.getContext())};
  maps.append(matrixMaps);
  maps.push_back(AffineMap::get(loops, 0, outExprs, b.getContext()));
  SmallVector<utils::IteratorType> iterators(lead + k,
                                             utils::IteratorType::parallel);
  iterators.append(k, utils::IteratorType::reduction);
  Value init = l.filled(sizes, l.constant(elem, 0));
  SmallVector<Value> inputs = {l.castTensor(input, elem)};
  inputs.append(matrices);
  Value r = linalg::GenericOp::create(
                b, l.loc, TypeRange{init.getType()}, inputs, ValueRange{init},
                maps, iterators, "", "",
                [&](OpBuilder &nb, Location loc, ValueRange v) {
                  Value p = v[0];
                  for (int64_t i = 1; i <= k; ++i)
                    p = arith::MulFOp::create(nb, loc, p, v[i]);
                  linalg::YieldOp::create(
                      nb, loc,
                      arith::AddFOp::create(nb, loc, v[k + 1], p).getResult());
                })
                .getResult(0);
  if (integers) {
    // The windows' element counts, [out_1, ..., out_k].
    SmallVector<int64_t> shape;
    for (const SmallVector<int64_t> &c : counts)
      shape.push_back(c.size());
    SmallVector<float> table = {1.0f};
    for (const SmallVector<int64_t> &c : counts) {
      SmallVector<float> next;
      for (float t : table)
        for (int64_t n : c)
          next.push_back(t * float(n));
      table = std::move(next);
    }
    Value divisors = arith::ConstantOp::create(
        b, l.loc,
        DenseElementsAttr::get(RankedTensorType::get(shape, elem),
                               ArrayRef<float>(table)));
    r = l.elementwise(
        {r, divisors}, elem, elem,
        [](OpBuilder &nb, Location loc, ValueRange v) {
          return arith::DivFOp::create(nb, loc, v[0], v[1]).getResult();
        });
    r = averageAsIntegers(
        l, r, quantized, integers,
        /*pointFirst=*/!l.op->hasAttr(kRoundBeforeZeroPointAttr));
  }
  if (spatial == 1)
    r = l.squeeze(r, rank - 2);
  return l.replace(r);
}

LogicalResult lowerAdaptiveAvgPool1d(Lowering &l) {
  return lowerAdaptiveAvgPool(l, 1);
}
LogicalResult lowerAdaptiveAvgPool2d(Lowering &l) {
  return lowerAdaptiveAvgPool(l, 2);
}
LogicalResult lowerAdaptiveAvgPool3d(Lowering &l) {
  return lowerAdaptiveAvgPool(l, 3);
}

} // namespace

void mlir::fx::lowering::addPoolingLowerings(llvm::StringMap<LowerFn> &t) {
  addLowering(t, {"aten::max_pool1d"}, lowerMaxPool1d);
  addLowering(t, {"aten::max_pool2d"}, lowerMaxPool2d);
  addLowering(t, {"aten::max_pool3d"}, lowerMaxPool3d);
  addLowering(t, {"aten::max_pool1d_with_indices"}, lowerMaxPool1dWithIndices);
  addLowering(t, {"aten::max_pool2d_with_indices"}, lowerMaxPool2dWithIndices);
  addLowering(t, {"aten::max_pool3d_with_indices"}, lowerMaxPool3dWithIndices);
  addLowering(t, {"aten::avg_pool1d"}, lowerAvgPool1d);
  addLowering(t, {"aten::avg_pool2d"}, lowerAvgPool2d);
  addLowering(t, {"aten::avg_pool3d"}, lowerAvgPool3d);
  addLowering(t, {"aten::adaptive_avg_pool1d"}, lowerAdaptiveAvgPool1d);
  addLowering(t, {"aten::adaptive_avg_pool2d"}, lowerAdaptiveAvgPool2d);
  addLowering(t, {"aten::adaptive_avg_pool3d"}, lowerAdaptiveAvgPool3d);
  addLowering(t, {"aten::adaptive_max_pool1d"}, lowerAdaptiveMaxPool1d);
  addLowering(t, {"aten::adaptive_max_pool2d"}, lowerAdaptiveMaxPool2d);
  addLowering(t, {"aten::adaptive_max_pool3d"}, lowerAdaptiveMaxPool3d);
}
