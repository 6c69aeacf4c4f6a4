//===- Shape.cpp - Views, joins, slices, pads, sizes ----------------------===//
//
// Reshapes become tensor.collapse_shape/expand_shape, permutes
// linalg.transpose, broadcasts linalg.generic; cat/stack insert slices into
// one tensor.empty; split/chunk/slice/select/narrow are extract_slices (the
// users of a multi-result node, `operator.getitem`, are replaced directly);
// pads, flips, rolls, repeats and shuffles slice, read and join the input;
// `size` reads tensor.dim. Creation ops are in Creation.cpp, gathers by
// index tensors in Gather.cpp, diagonals and triangles in Matrices.cpp.
//
//===----------------------------------------------------------------------===//

#include "Compose.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::fx;
using namespace mlir::fx::lowering;

namespace {

int64_t rankOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getRank();
}

Value indexMul(Lowering &l, Value a, Value b) {
  return l.b.createOrFold<arith::MulIOp>(l.loc, a, b);
}

/// The dim of `x` that `v` reads (`tensor.dim x, d`, through index casts).
std::optional<int64_t> sourceDim(Value v, Value x) {
  while (auto cast = v.getDefiningOp<arith::IndexCastOp>())
    v = cast.getIn();
  auto dim = v.getDefiningOp<tensor::DimOp>();
  if (!dim || dim.getSource() != x)
    return std::nullopt;
  return dim.getConstantIndex();
}

/// view/reshape(self, size) with one -1 allowed.
LogicalResult lowerReshape(Lowering &l) {
  static constexpr Param kSize =
      sameParam(args::aten::view::size, args::aten::reshape::shape);
  Value x = l.subject();
  auto sizes = l.indexList(l.arg(kSize));
  if (!x || !sizes)
    return l.fail("needs a tensor and a list of sizes");
  int inferred = -1;
  for (auto [i, s] : llvm::enumerate(*sizes))
    if (getConstantIntValue(s) == std::optional<int64_t>(-1))
      inferred = i;
  if (inferred >= 0) {
    auto type = cast<RankedTensorType>(x.getType());
    // Sizes read from the input's own dynamic dims (`x.size(0)`) cancel
    // against them, so `view(x.size(0), -1)` infers -1 statically.
    SmallVector<int64_t> dynamicDims;
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (type.isDynamicDim(d))
        dynamicDims.push_back(d);
    int64_t knownProduct = 1;
    bool cancels = true;
    for (auto [i, s] : llvm::enumerate(*sizes)) {
      if (int(i) == inferred)
        continue;
      if (auto c = getConstantIntValue(s)) {
        knownProduct *= *c;
        continue;
      }
      std::optional<int64_t> d = sourceDim(cast<Value>(s), x);
      auto it = d ? llvm::find(dynamicDims, *d) : dynamicDims.end();
      if (it == dynamicDims.end()) {
        cancels = false;
        break;
      }
      dynamicDims.erase(it);
    }
    if (cancels && dynamicDims.empty()) {
      int64_t staticNumel = 1;
      for (int64_t d : type.getShape())
        if (!ShapedType::isDynamic(d))
          staticNumel *= d;
      (*sizes)[inferred] =
          l.b.getIndexAttr(knownProduct ? staticNumel / knownProduct : 0);
    } else {
      Value numel = l.indexConst(1);
      for (OpFoldResult d : l.dims(x))
        numel = indexMul(l, numel, l.toIndex(d));
      Value product = l.indexConst(1);
      for (auto [i, s] : llvm::enumerate(*sizes))
        if (int(i) != inferred)
          product = indexMul(l, product, l.toIndex(s));
      // As ATen: the other sizes must divide the element count (a batch
      // of 3 viewed as (-1, 2, 3) is an error, not a truncated view), and
      // -1 next to a 0 is ambiguous.
      Value zero = l.indexConst(0);
      Value none = arith::CmpIOp::create(l.b, l.loc, arith::CmpIPredicate::eq,
                                         product, zero);
      Value divisor =
          arith::SelectOp::create(l.b, l.loc, none, l.indexConst(1), product);
      Value rest = arith::RemUIOp::create(l.b, l.loc, numel, divisor);
      Value bad = arith::OrIOp::create(
          l.b, l.loc, none,
          arith::CmpIOp::create(l.b, l.loc, arith::CmpIPredicate::ne, rest,
                                zero));
      l.check(tensor::FromElementsOp::create(
                  l.b, l.loc, RankedTensorType::get({}, l.b.getI1Type()), bad),
              "shape is invalid for the input's size: the other sizes do not "
              "divide its element count");
      (*sizes)[inferred] =
          arith::DivUIOp::create(l.b, l.loc, numel, divisor).getResult();
    }
  }
  // Sizes that are values but equal a static input dim stay values; the
  // reshape handles both.
  return l.replace(l.reshape(x, *sizes));
}

LogicalResult lowerViewAs(Lowering &l) {
  using P = args::aten::view_as;
  Value x = l.tensor(P::self), other = l.tensor(P::other);
  if (!x || !other)
    return failure();
  return l.replace(l.reshape(x, l.dims(other)));
}

LogicalResult lowerFlatten(Lowering &l) {
  using P = args::aten::flatten_using_ints;
  Value x = l.tensor(P::self);
  if (!x)
    return failure();
  int64_t rank = rankOf(x);
  if (rank == 0)
    return l.replace(l.reshape(x, {l.b.getIndexAttr(1)}));
  auto start = l.normDim(l.arg(P::start_dim), rank),
       end = l.normDim(l.arg(P::end_dim), rank);
  if (!start || !end || *start > *end)
    return l.fail("bad flatten dims");
  if (*start == *end)
    return l.replace(x);
  SmallVector<ReassociationIndices> groups;
  for (int64_t d = 0; d < rank; ++d) {
    if (d > *start && d <= *end)
      groups.back().push_back(d);
    else
      groups.push_back({d});
  }
  return l.replace(tensor::CollapseShapeOp::create(l.b, l.loc, x, groups));
}

LogicalResult lowerPermute(Lowering &l) {
  using P = args::aten::permute;
  Value x = l.tensor(P::self);
  auto dims = l.intList(P::dims);
  if (!x || !dims)
    return l.fail("needs constant dims");
  int64_t rank = rankOf(x);
  SmallVector<int64_t> perm;
  for (int64_t d : *dims)
    perm.push_back(d < 0 ? d + rank : d);
  if (int64_t(perm.size()) != rank)
    return l.fail("permutation does not match the rank");
  return l.replace(l.transpose(x, perm));
}

LogicalResult lowerTranspose(Lowering &l) {
  using P = args::aten::transpose_int_;
  Value x = l.tensor(P::self);
  if (!x)
    return failure();
  int64_t rank = rankOf(x);
  if (rank < 2)
    return l.replace(x);
  auto a = l.normDim(l.arg(P::dim0), rank), b = l.normDim(l.arg(P::dim1), rank);
  if (!a || !b)
    return l.fail("dims must be constants");
  if (*a == *b)
    return l.replace(x);
  SmallVector<int64_t> perm;
  for (int64_t d = 0; d < rank; ++d)
    perm.push_back(d);
  std::swap(perm[*a], perm[*b]);
  return l.replace(l.transpose(x, perm));
}

LogicalResult lowerSqueeze(Lowering &l) {
  // Parameters as aten::squeeze names them, at the same positions in
  // aten::squeeze.dim.
  using P = args::aten::squeeze;
  Value x = l.tensor(P::self);
  if (!x)
    return failure();
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  SmallVector<int64_t> dims;
  if (l.target() == args::aten::squeeze_dim::target) {
    auto d = l.normDim(l.arg(args::aten::squeeze_dim::dim), rank);
    if (!d)
      return l.fail("dim must be a constant");
    if (rank > 0 && type.getDimSize(*d) == 1)
      dims.push_back(*d);
  } else {
    for (int64_t d = 0; d < rank; ++d)
      if (type.getDimSize(d) == 1)
        dims.push_back(d);
  }
  // A dynamic dim (the batch) is kept; at size 1 eager would drop it, a
  // rank the compiled types cannot follow: an error while the code runs.
  auto checkDynamic = [&](int64_t d) {
    Value size = tensor::DimOp::create(l.b, l.loc, x, d);
    Value one = arith::ConstantIndexOp::create(l.b, l.loc, 1);
    Value isOne =
        arith::CmpIOp::create(l.b, l.loc, arith::CmpIPredicate::eq, size, one);
    Value flag = tensor::FromElementsOp::create(
        l.b, l.loc, RankedTensorType::get({}, l.b.getI1Type()), isOne);
    l.check(flag, "squeeze of dim " + Twine(d) +
                      " at size 1: the dim's size is dynamic (the batch) "
                      "and the compiled graph's rank is fixed, where eager "
                      "would drop the dim");
  };
  if (l.target() == args::aten::squeeze_dim::target) {
    auto d = l.normDim(l.arg(args::aten::squeeze_dim::dim), rank);
    if (rank > 0 && type.isDynamicDim(*d))
      checkDynamic(*d);
  } else {
    for (int64_t d = 0; d < rank; ++d)
      if (type.isDynamicDim(d))
        checkDynamic(d);
  }
  for (int64_t d : llvm::reverse(dims))
    x = l.squeeze(x, d);
  return l.replace(x);
}

LogicalResult lowerUnsqueeze(Lowering &l) {
  using P = args::aten::unsqueeze;
  Value x = l.tensor(P::self);
  if (!x)
    return failure();
  auto d = l.normDim(l.arg(P::dim), rankOf(x) + 1);
  if (!d)
    return l.fail("dim must be a constant");
  return l.replace(l.unsqueeze(x, *d));
}

} // namespace

/// A tensor of `sizes` whose item at each index is `x` read through
/// `exprs` (of the result's dims): broadcasts, flips, repeats, diagonals.
Value mlir::fx::lowering::readThrough(Lowering &l, Value x,
                                      ArrayRef<AffineExpr> exprs,
                                      ArrayRef<OpFoldResult> sizes) {
  int64_t rank = sizes.size();
  Value init =
      l.empty(sizes, cast<RankedTensorType>(x.getType()).getElementType());
  return linalg::GenericOp::create(
             l.b, l.loc, TypeRange{init.getType()}, ValueRange{x},
             ValueRange{init},
             ArrayRef<AffineMap>{
                 AffineMap::get(rank, 0, exprs, l.b.getContext()),
                 l.b.getMultiDimIdentityMap(rank)},
             SmallVector<utils::IteratorType>(rank,
                                              utils::IteratorType::parallel),
             "", "",
             [](OpBuilder &nb, Location loc, ValueRange v) {
               linalg::YieldOp::create(nb, loc, v[0]);
             })
      .getResult(0);
}

namespace {

/// Broadcasts `x` to `sizes` (right aligned; -1 keeps the input's size).
Value broadcastTo(Lowering &l, Value x, SmallVector<OpFoldResult> sizes) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = sizes.size(), lead = rank - type.getRank();
  SmallVector<AffineExpr> exprs;
  for (int64_t j = 0; j < type.getRank(); ++j) {
    int64_t i = j + lead;
    if (getConstantIntValue(sizes[i]) == std::optional<int64_t>(-1))
      sizes[i] = l.dim(x, j);
    bool broadcast = type.getDimSize(j) == 1 &&
                     getConstantIntValue(sizes[i]) != std::optional<int64_t>(1);
    exprs.push_back(broadcast ? l.b.getAffineConstantExpr(0)
                              : l.b.getAffineDimExpr(i));
  }
  return readThrough(l, x, exprs, sizes);
}

LogicalResult lowerExpand(Lowering &l) {
  using P = args::aten::expand;
  Value x = l.tensor(P::self);
  auto sizes = l.indexList(l.arg(P::size));
  if (!x || !sizes || int64_t(sizes->size()) < rankOf(x))
    return l.fail("needs a tensor and a list of sizes");
  return l.replace(broadcastTo(l, x, *sizes));
}

std::optional<SmallVector<Value>> tensorList(Lowering &l, Attribute a);

/// broadcast_tensors(tensors): each broadcast to the shape of the node's
/// results (static).
LogicalResult lowerBroadcastTensors(Lowering &l) {
  using P = args::aten::broadcast_tensors;
  auto inputs = tensorList(l, l.arg(P::tensors));
  auto tuple = dyn_cast<TupleType>(l.resultType());
  if (!inputs || !tuple || tuple.size() != inputs->size())
    return l.fail("needs a list of tensors and their typed results");
  SmallVector<Value> results;
  for (auto [x, type] : llvm::zip(*inputs, tuple.getTypes())) {
    auto ranked = dyn_cast<RankedTensorType>(type);
    if (!ranked || !ranked.hasStaticShape())
      return l.fail("the results must have static shapes");
    SmallVector<OpFoldResult> sizes;
    for (int64_t size : ranked.getShape())
      sizes.push_back(l.b.getIndexAttr(size));
    results.push_back(broadcastTo(l, x, sizes));
  }
  return l.replaceTuple(results);
}

LogicalResult lowerExpandAs(Lowering &l) {
  using P = args::aten::expand_as;
  Value x = l.tensor(P::self), other = l.tensor(P::other);
  if (!x || !other)
    return failure();
  return l.replace(broadcastTo(l, x, l.dims(other)));
}

} // namespace

/// Joins `inputs` along `dim`.
Value mlir::fx::lowering::concat(Lowering &l, ArrayRef<Value> inputs,
                                 int64_t dim, Type elem) {
  SmallVector<OpFoldResult> sizes = l.dims(inputs[0]);
  int64_t staticTotal = 0;
  for (Value v : inputs) {
    int64_t n = cast<RankedTensorType>(v.getType()).getDimSize(dim);
    staticTotal = ShapedType::isDynamic(n) || ShapedType::isDynamic(staticTotal)
                      ? ShapedType::kDynamic
                      : staticTotal + n;
  }
  if (!ShapedType::isDynamic(staticTotal)) {
    sizes[dim] = l.b.getIndexAttr(staticTotal);
  } else {
    Value total = l.indexConst(0);
    for (Value v : inputs)
      total =
          arith::AddIOp::create(l.b, l.loc, total, l.toIndex(l.dim(v, dim)));
    sizes[dim] = getAsOpFoldResult(total);
  }
  Value result = l.empty(sizes, elem);
  Value offset = l.indexConst(0);
  int64_t rank = sizes.size();
  for (Value v : inputs) {
    // An input of no elements adds nothing (and a slice of none at the
    // end would be out of bounds).
    if (llvm::is_contained(cast<RankedTensorType>(v.getType()).getShape(), 0))
      continue;
    v = l.castTensor(v, elem);
    SmallVector<OpFoldResult> offsets(rank, l.b.getIndexAttr(0));
    offsets[dim] = getAsOpFoldResult(offset);
    SmallVector<OpFoldResult> strides(rank, l.b.getIndexAttr(1));
    result = tensor::InsertSliceOp::create(l.b, l.loc, v, result, offsets,
                                           l.dims(v), strides);
    offset =
        arith::AddIOp::create(l.b, l.loc, offset, l.toIndex(l.dim(v, dim)));
  }
  return result;
}

namespace {

/// A Tensor[] argument: a list, or a tuple (the pieces of split or chunk
/// read whole, as `torch.cat(torch.split(x, 2))`).
std::optional<SmallVector<Value>> tensorList(Lowering &l, Attribute a) {
  ArrayRef<Attribute> elements;
  if (auto list = dyn_cast_or_null<ListAttr>(a))
    elements = list.getElements();
  else if (auto tuple = dyn_cast_or_null<TupleAttr>(a))
    elements = tuple.getElements();
  if (elements.empty())
    return std::nullopt;
  SmallVector<Value> result;
  for (Attribute e : elements) {
    Value v = l.tensor(e);
    if (!v)
      return std::nullopt;
    result.push_back(v);
  }
  return result;
}

LogicalResult lowerCat(Lowering &l) {
  using P = args::aten::cat;
  auto inputs = tensorList(l, l.arg(P::tensors));
  Type elem = l.resultElementType();
  if (!inputs || !elem)
    return l.fail("needs a list of typed tensors");
  auto dim = l.normDim(l.arg(P::dim), rankOf((*inputs)[0]));
  if (!dim)
    return l.fail("dim must be a constant");
  return l.replace(concat(l, *inputs, *dim, elem));
}

LogicalResult lowerStack(Lowering &l) {
  using P = args::aten::stack;
  auto inputs = tensorList(l, l.arg(P::tensors));
  Type elem = l.resultElementType();
  if (!inputs || !elem)
    return l.fail("needs a list of typed tensors");
  auto dim = l.normDim(l.arg(P::dim), rankOf((*inputs)[0]) + 1);
  if (!dim)
    return l.fail("dim must be a constant");
  for (Value &v : *inputs)
    v = l.unsqueeze(v, *dim);
  return l.replace(concat(l, *inputs, *dim, elem));
}

} // namespace

/// Slices `[start, start + length)` with `step` along `dim`.
Value mlir::fx::lowering::sliceAlong(Lowering &l, Value x, int64_t dim,
                                     OpFoldResult start, OpFoldResult length,
                                     int64_t step) {
  int64_t rank = rankOf(x);
  SmallVector<OpFoldResult> offsets(rank, l.b.getIndexAttr(0));
  SmallVector<OpFoldResult> strides(rank, l.b.getIndexAttr(1));
  SmallVector<OpFoldResult> sizes = l.dims(x);
  offsets[dim] = start;
  sizes[dim] = length;
  strides[dim] = l.b.getIndexAttr(step);
  // A slice of no elements (a piece of size 0 of split_with_sizes) is an
  // empty tensor: its offset may be the dim's end, out of bounds for
  // tensor.extract_slice.
  if (llvm::any_of(
          sizes, [](OpFoldResult size) { return isConstantIntValue(size, 0); }))
    return tensor::EmptyOp::create(
        l.b, l.loc, sizes,
        cast<RankedTensorType>(x.getType()).getElementType());
  return tensor::ExtractSliceOp::create(l.b, l.loc, x, offsets, sizes, strides);
}

namespace {

/// Static split sizes of `n` into pieces of `size` (the last one smaller).
SmallVector<int64_t> piecesOf(int64_t n, int64_t size) {
  SmallVector<int64_t> pieces;
  for (int64_t at = 0; at < n || (n == 0 && pieces.empty()); at += size)
    pieces.push_back(std::min(size, n - at));
  return pieces;
}

LogicalResult splitInto(Lowering &l, Value x, int64_t dim,
                        ArrayRef<int64_t> pieces) {
  SmallVector<Value> results;
  int64_t at = 0;
  for (int64_t p : pieces) {
    results.push_back(
        sliceAlong(l, x, dim, l.b.getIndexAttr(at), l.b.getIndexAttr(p), 1));
    at += p;
  }
  return l.replaceTuple(results);
}

/// split.Tensor(self, split_size, dim), split_with_sizes / split.sizes
/// (self, sizes, dim), chunk(self, chunks, dim), unbind.int(self, dim), and
/// the unsafe_ forms of split, split_with_sizes and chunk.
LogicalResult lowerSplit(Lowering &l) {
  namespace A = args::aten;
  // What to split by: a size, sizes or a number of chunks.
  static constexpr Param kBy =
      sameParam(A::split_Tensor::split_size, A::split_sizes::split_size,
                A::split_with_sizes::split_sizes, A::chunk::chunks);
  static constexpr Param kDim =
      sameParam(A::split_Tensor::dim, A::split_sizes::dim,
                A::split_with_sizes::dim, A::chunk::dim);
  Value x = l.subject();
  if (!x)
    return failure();
  StringRef target = l.target();
  bool unbind = target.starts_with("aten::unbind");
  auto dim = l.normDim(l.arg(unbind ? A::unbind_int_::dim : kDim), rankOf(x));
  if (!dim)
    return l.fail("dim must be a constant");
  int64_t n = cast<RankedTensorType>(x.getType()).getDimSize(*dim);
  if (!unbind)
    if (auto sizes = l.intList(kBy))
      return splitInto(l, x, *dim, *sizes);
  if (ShapedType::isDynamic(n))
    return l.fail("cannot split a dynamic dim into equal pieces");
  if (unbind) {
    SmallVector<Value> results;
    for (int64_t i = 0; i < n; ++i)
      results.push_back(l.squeeze(
          sliceAlong(l, x, *dim, l.b.getIndexAttr(i), l.b.getIndexAttr(1), 1),
          *dim));
    return l.replaceTuple(results);
  }
  if (auto sizes = l.intList(kBy))
    return splitInto(l, x, *dim, *sizes);
  auto count = l.constInt(kBy);
  if (!count || *count <= 0)
    return l.fail("split size must be a positive constant");
  if (target == "aten::chunk" || target == "aten::unsafe_chunk")
    return splitInto(l, x, *dim, piecesOf(n, (n + *count - 1) / *count));
  return splitInto(l, x, *dim, piecesOf(n, *count));
}

/// A normalized start/end of a slice on a dim of size `n` (index value):
/// None -> `dflt`, negatives from the end, clamped to [0, n].
Value boundIndex(Lowering &l, Attribute a, Value n, Value dflt) {
  if (l.isNone(a))
    return dflt;
  OpFoldResult v = l.index(a);
  if (!v)
    return {};
  Value idx = l.toIndex(v);
  Value zero = l.indexConst(0);
  Value negative =
      arith::CmpIOp::create(l.b, l.loc, arith::CmpIPredicate::slt, idx, zero);
  Value fromEnd = arith::AddIOp::create(l.b, l.loc, idx, n);
  idx = arith::SelectOp::create(l.b, l.loc, negative, fromEnd, idx);
  idx = arith::MaxSIOp::create(l.b, l.loc, idx, zero);
  return arith::MinSIOp::create(l.b, l.loc, idx, n);
}

/// slice.Tensor(self, dim, start, end, step).
LogicalResult lowerSlice(Lowering &l) {
  using P = args::aten::slice_Tensor;
  Value x = l.tensor(P::self);
  if (!x)
    return failure();
  auto dim = l.normDim(l.arg(P::dim), rankOf(x));
  auto step = l.constInt(P::step);
  if (!dim || !step || *step <= 0)
    return l.fail("dim and a positive step must be constants");
  int64_t size = cast<RankedTensorType>(x.getType()).getDimSize(*dim);
  auto s = l.constInt(P::start), e = l.constInt(P::end);
  bool startNone = l.isNone(P::start), endNone = l.isNone(P::end);
  if (!ShapedType::isDynamic(size) && (s || startNone) && (e || endNone)) {
    auto norm = [&](int64_t v) {
      if (v < 0)
        v += size;
      return std::clamp<int64_t>(v, 0, size);
    };
    int64_t lo = startNone ? 0 : norm(*s), hi = endNone ? size : norm(*e);
    int64_t len = hi > lo ? (hi - lo + *step - 1) / *step : 0;
    return l.replace(sliceAlong(l, x, *dim, l.b.getIndexAttr(lo),
                                l.b.getIndexAttr(len), *step));
  }
  Value n = l.toIndex(l.dim(x, *dim));
  Value lo = boundIndex(l, l.arg(P::start), n, l.indexConst(0));
  Value hi = boundIndex(l, l.arg(P::end), n, n);
  if (!lo || !hi)
    return l.fail("unsupported slice bounds");
  Value span = arith::SubIOp::create(l.b, l.loc, hi, lo);
  span = arith::MaxSIOp::create(l.b, l.loc, span, l.indexConst(0));
  Value len = arith::CeilDivSIOp::create(l.b, l.loc, span, l.indexConst(*step));
  return l.replace(sliceAlong(l, x, *dim, lo, len, *step));
}

/// narrow(self, dim, start, length).
LogicalResult lowerNarrow(Lowering &l) {
  using P = args::aten::narrow;
  Value x = l.tensor(P::self);
  if (!x)
    return failure();
  auto dim = l.normDim(l.arg(P::dim), rankOf(x));
  auto start = l.constInt(P::start);
  OpFoldResult length = l.index(l.arg(P::length));
  if (!dim || !start || !length)
    return l.fail("dim and start must be constants");
  int64_t size = cast<RankedTensorType>(x.getType()).getDimSize(*dim);
  int64_t s = *start;
  if (s < 0) {
    if (ShapedType::isDynamic(size))
      return l.fail("negative start on a dynamic dim");
    s += size;
  }
  if (ShapedType::isDynamic(size)) {
    // Along a dim of run-time size (the batch) the narrowed range must fit,
    // as ATen checks: an error, never a read past the end.
    Value n = l.toIndex(l.dim(x, *dim));
    Value end =
        arith::AddIOp::create(l.b, l.loc, l.indexConst(s), l.toIndex(length));
    Value past =
        arith::CmpIOp::create(l.b, l.loc, arith::CmpIPredicate::sgt, end, n);
    l.check(tensor::FromElementsOp::create(
                l.b, l.loc, RankedTensorType::get({}, l.b.getI1Type()), past),
            "start + length exceeds the dimension's size");
  }
  return l.replace(sliceAlong(l, x, *dim, l.b.getIndexAttr(s), length, 1));
}

/// constant_pad_nd(self, pad, value): pad holds (before, after) pairs from
/// the last dim backwards, constant and not negative.
LogicalResult lowerConstantPad(Lowering &l) {
  using P = args::aten::constant_pad_nd;
  Value x = l.tensor(P::self);
  auto pads = l.intList(P::pad);
  Type elem = l.resultElementType();
  if (!x || !pads || !elem)
    return l.fail("needs constant pad sizes and a typed result");
  int64_t rank = rankOf(x);
  if (pads->size() % 2 != 0 || int64_t(pads->size()) > 2 * rank)
    return l.fail("pad must hold a (before, after) pair per padded dim, at "
                  "most " +
                  std::to_string(rank) + " pairs");
  SmallVector<OpFoldResult> low(rank, l.b.getIndexAttr(0)), high = low;
  for (size_t i = 0; i < pads->size(); i += 2) {
    int64_t d = rank - 1 - int64_t(i / 2);
    int64_t before = (*pads)[i], after = (*pads)[i + 1];
    // Negative padding crops: the dim is sliced first.
    if (before < 0 || after < 0) {
      int64_t crop =
          std::max<int64_t>(-before, 0) + std::max<int64_t>(-after, 0);
      int64_t size = cast<RankedTensorType>(x.getType()).getDimSize(d);
      OpFoldResult length;
      if (!ShapedType::isDynamic(size)) {
        if (size < crop)
          return l.fail("cropping more than the dim holds");
        length = l.b.getIndexAttr(size - crop);
      } else {
        length = arith::SubIOp::create(l.b, l.loc, l.toIndex(l.dim(x, d)),
                                       l.indexConst(crop))
                     .getResult();
      }
      x = sliceAlong(l, x, d, l.b.getIndexAttr(std::max<int64_t>(-before, 0)),
                     length, 1);
    }
    low[d] = l.b.getIndexAttr(std::max<int64_t>(before, 0));
    high[d] = l.b.getIndexAttr(std::max<int64_t>(after, 0));
  }
  Value v = l.isNone(P::value) ? l.constant(elem, 0.0)
                               : l.scalar(l.arg(P::value), elem);
  if (!v)
    return l.fail("unsupported padding value");
  return l.replace(l.pad(x, low, high, v));
}

/// `x` (..., C * r * r, H, W) -> (..., C, H * r, W * r) (pixel_shuffle),
/// or back (pixel_unshuffle): a reshape, a transpose, a reshape.
LogicalResult lowerPixelShuffle(Lowering &l, bool unshuffle) {
  // Parameters as aten::pixel_shuffle names them, at the same positions in
  // aten::pixel_unshuffle.
  using P = args::aten::pixel_shuffle;
  Value x = l.tensor(P::self);
  static constexpr Param kFactor =
      sameParam(args::aten::pixel_shuffle::upscale_factor,
                args::aten::pixel_unshuffle::downscale_factor);
  auto factor = l.constInt(kFactor);
  if (!x || !factor || *factor <= 0)
    return l.fail("needs a tensor and a positive constant factor");
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank(), r = *factor;
  if (rank < 3)
    return l.fail("needs at least 3 dims");
  int64_t c = type.getDimSize(rank - 3), h = type.getDimSize(rank - 2),
          w = type.getDimSize(rank - 1);
  if (ShapedType::isDynamic(c) || ShapedType::isDynamic(h) ||
      ShapedType::isDynamic(w))
    return l.fail("the last 3 dims must be static");
  if (unshuffle ? (h % r || w % r) : c % (r * r))
    return l.fail(unshuffle ? "height and width must be multiples of the "
                              "factor"
                            : "channels must be a multiple of factor^2");
  SmallVector<OpFoldResult> lead = l.dims(x);
  lead.resize(rank - 3);
  auto idx = [&](int64_t v) -> OpFoldResult { return l.b.getIndexAttr(v); };
  int64_t n = rank - 3;
  SmallVector<OpFoldResult> split = lead, joined = lead;
  SmallVector<int64_t> perm;
  for (int64_t d = 0; d < n; ++d)
    perm.push_back(d);
  if (!unshuffle) {
    // (..., C, r, r, H, W) -> (..., C, H, r, W, r)
    split.append({idx(c / (r * r)), idx(r), idx(r), idx(h), idx(w)});
    perm.append({n, n + 3, n + 1, n + 4, n + 2});
    joined.append({idx(c / (r * r)), idx(h * r), idx(w * r)});
  } else {
    // (..., C, H, r, W, r) -> (..., C, r, r, H, W)
    split.append({idx(c), idx(h / r), idx(r), idx(w / r), idx(r)});
    perm.append({n, n + 2, n + 4, n + 1, n + 3});
    joined.append({idx(c * r * r), idx(h / r), idx(w / r)});
  }
  return l.replace(l.reshape(l.transpose(l.reshape(x, split), perm), joined));
}

LogicalResult lowerPixelShuffleOp(Lowering &l) {
  return lowerPixelShuffle(l, false);
}
LogicalResult lowerPixelUnshuffle(Lowering &l) {
  return lowerPixelShuffle(l, true);
}

/// channel_shuffle(self, groups): dim 1 viewed as (groups, C / groups),
/// transposed.
LogicalResult lowerChannelShuffle(Lowering &l) {
  using P = args::aten::channel_shuffle;
  Value x = l.tensor(P::self);
  auto groups = l.constInt(P::groups);
  if (!x || !groups || *groups <= 0)
    return l.fail("needs a tensor and a positive constant groups");
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  if (rank < 2 || type.isDynamicDim(1) || type.getDimSize(1) % *groups)
    return l.fail("needs a static channel dim, a multiple of groups");
  SmallVector<OpFoldResult> dims = l.dims(x), split;
  SmallVector<int64_t> perm;
  for (int64_t d = 0; d < rank; ++d) {
    if (d == 1) {
      split.append({l.b.getIndexAttr(*groups),
                    l.b.getIndexAttr(type.getDimSize(1) / *groups)});
      perm.append({2, 1});
      continue;
    }
    split.push_back(dims[d]);
    perm.push_back(d < 1 ? d : d + 1);
  }
  return l.replace(l.reshape(l.transpose(l.reshape(x, split), perm), dims));
}

/// unflatten.int(self, dim, sizes): dim split into sizes (one may be -1).
LogicalResult lowerUnflatten(Lowering &l) {
  using P = args::aten::unflatten_int_;
  Value x = l.tensor(P::self);
  auto sizes = l.intList(P::sizes);
  if (!x || !sizes || sizes->empty())
    return l.fail("needs a tensor and constant sizes");
  int64_t rank = rankOf(x);
  auto dim = l.normDim(l.arg(P::dim), rank);
  if (!dim)
    return l.fail("dim must be a constant");
  int64_t n = cast<RankedTensorType>(x.getType()).getDimSize(*dim);
  int64_t known = 1, inferred = -1;
  for (auto [i, v] : llvm::enumerate(*sizes)) {
    if (v == -1)
      inferred = i;
    else
      known *= v;
  }
  if (inferred >= 0) {
    if (ShapedType::isDynamic(n) || known == 0)
      return l.fail("cannot infer -1 from a dynamic dim");
    (*sizes)[inferred] = n / known;
  }
  SmallVector<OpFoldResult> dims = l.dims(x), result;
  for (int64_t d = 0; d < rank; ++d) {
    if (d != *dim) {
      result.push_back(dims[d]);
      continue;
    }
    for (int64_t v : *sizes)
      result.push_back(l.b.getIndexAttr(v));
  }
  return l.replace(l.reshape(x, result));
}

/// `x` reversed along `dims`: one generic reading `size - 1 - i` there
/// (through its indexing map for static sizes; with tensor.extract at
/// the computed index when one of the sizes is dynamic, the batch of a
/// model compiled for any batch).
Value flipped(Lowering &l, Value x, ArrayRef<int64_t> dims) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  if (llvm::any_of(dims, [&](int64_t d) { return type.isDynamicDim(d); })) {
    SmallVector<OpFoldResult> sizes = l.dims(x);
    Value init = l.empty(sizes, type.getElementType());
    SmallVector<Value> last(rank);
    for (int64_t d : dims) {
      Value size = getValueOrCreateConstantIndexOp(l.b, l.loc, sizes[d]);
      last[d] = arith::SubIOp::create(
          l.b, l.loc, size, arith::ConstantIndexOp::create(l.b, l.loc, 1));
    }
    return linalg::GenericOp::create(
               l.b, l.loc, TypeRange{init.getType()}, ValueRange{},
               ValueRange{init},
               ArrayRef<AffineMap>{l.b.getMultiDimIdentityMap(rank)},
               SmallVector<utils::IteratorType>(rank,
                                                utils::IteratorType::parallel),
               "", "",
               [&](OpBuilder &nb, Location loc, ValueRange) {
                 SmallVector<Value> at;
                 for (int64_t d = 0; d < rank; ++d) {
                   Value i = linalg::IndexOp::create(nb, loc, d);
                   at.push_back(last[d]
                                    ? arith::SubIOp::create(nb, loc, last[d], i)
                                    : i);
                 }
                 linalg::YieldOp::create(
                     nb, loc,
                     tensor::ExtractOp::create(nb, loc, x, at).getResult());
               })
        .getResult(0);
  }
  SmallVector<AffineExpr> exprs;
  for (int64_t d = 0; d < rank; ++d) {
    AffineExpr e = l.b.getAffineDimExpr(d);
    if (llvm::is_contained(dims, d))
      e = type.getDimSize(d) - 1 - e;
    exprs.push_back(e);
  }
  return readThrough(l, x, exprs, l.dims(x));
}

/// flip(self, dims).
LogicalResult lowerFlip(Lowering &l) {
  using P = args::aten::flip;
  Value x = l.tensor(P::self);
  auto dims = l.intList(P::dims);
  if (!x || !dims)
    return l.fail("needs a tensor and constant dims");
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> normalized;
  for (int64_t d : *dims) {
    int64_t n = d < 0 ? d + type.getRank() : d;
    if (n < 0 || n >= type.getRank())
      return l.fail("flipped dims must be dims of the input");
    normalized.push_back(n);
  }
  return l.replace(flipped(l, x, normalized));
}

/// rot90(self, k, dims): k quarter turns from dims[0] towards dims[1], as
/// PyTorch computes them: one turn flips dims[1] then swaps the two dims,
/// two flip both, three flip dims[0] then swap.
LogicalResult lowerRot90(Lowering &l) {
  using P = args::aten::rot90;
  Value x = l.tensor(P::self);
  auto k = l.isNone(P::k) ? std::optional<int64_t>(1) : l.constInt(P::k);
  auto dims = l.isNone(P::dims) ? std::optional<SmallVector<int64_t>>({0, 1})
                                : l.intList(P::dims);
  if (!x || !k || !dims)
    return l.fail("needs a tensor and constant k and dims");
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  if (dims->size() != 2 || rank < 2)
    return l.fail("rotates a tensor of 2 dims or more in 2 dims");
  auto d0 = l.normDim(l.b.getI64IntegerAttr((*dims)[0]), rank),
       d1 = l.normDim(l.b.getI64IntegerAttr((*dims)[1]), rank);
  if (!d0 || !d1 || *d0 == *d1)
    return l.fail("dims must be two different dims");
  if (type.isDynamicDim(*d0) || type.isDynamicDim(*d1))
    return l.fail("the rotated dims must be static");
  int64_t turns = ((*k % 4) + 4) % 4;
  SmallVector<int64_t> swap = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  std::swap(swap[*d0], swap[*d1]);
  switch (turns) {
  case 1:
    return l.replace(l.transpose(flipped(l, x, {*d1}), swap));
  case 2:
    return l.replace(flipped(l, x, {*d0, *d1}));
  case 3:
    return l.replace(l.transpose(flipped(l, x, {*d0}), swap));
  default:
    return l.replace(readThrough(
        l, x, l.b.getMultiDimIdentityMap(rank).getResults(), l.dims(x)));
  }
}

/// diff(self, n, dim, prepend, append): prepend, self and append joined
/// along dim, then n times the differences of neighbours (x[1:] - x[:-1];
/// for bools, whether they differ).
LogicalResult lowerDiff(Lowering &l) {
  using P = args::aten::diff;
  Value x = l.tensor(P::self);
  Type elem = l.resultElementType();
  auto n = l.isNone(P::n) ? std::optional<int64_t>(1) : l.constInt(P::n);
  if (!x || !elem || !n || *n < 0)
    return l.fail("needs a typed tensor and a constant n");
  int64_t rank = rankOf(x);
  if (rank == 0)
    return l.fail("needs at least 1 dim");
  auto dim = l.isNone(P::dim) ? std::optional<int64_t>(rank - 1)
                              : l.normDim(l.arg(P::dim), rank);
  if (!dim)
    return l.fail("dim must be a constant");
  // n = 0 is the input itself, prepend and append left out (as ATen).
  if (*n == 0)
    return l.replace(l.castTensor(x, elem));
  SmallVector<Value> parts;
  for (Param p : {P::prepend, P::self, P::append}) {
    if (p.index != P::self.index && l.isNone(p))
      continue;
    Value part = l.tensor(p);
    if (!part || rankOf(part) != rank)
      return l.fail("prepend and append must be tensors of the input's rank");
    parts.push_back(l.castTensor(part, elem));
  }
  x = parts.size() == 1 ? parts.front() : concat(l, parts, *dim, elem);
  if (cast<RankedTensorType>(x.getType()).isDynamicDim(*dim))
    return l.fail("the differenced dim must be static");
  for (int64_t step = 0; step < *n; ++step) {
    int64_t size = cast<RankedTensorType>(x.getType()).getDimSize(*dim);
    if (size == 0)
      break;
    Value next = sliceAlong(l, x, *dim, l.b.getIndexAttr(1),
                            l.b.getIndexAttr(size - 1), 1);
    Value prev = sliceAlong(l, x, *dim, l.b.getIndexAttr(0),
                            l.b.getIndexAttr(size - 1), 1);
    x = l.elementwise({next, prev}, elem, elem,
                      [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
                        if (isFloat(elem))
                          return arith::SubFOp::create(b, loc, v[0], v[1]);
                        if (elem.isInteger(1))
                          return arith::XOrIOp::create(b, loc, v[0], v[1]);
                        return arith::SubIOp::create(b, loc, v[0], v[1]);
                      });
  }
  return l.replace(x);
}

/// `x` rotated by `shift` along the static dim `dim`: its last `shift`
/// items first.
Value rolled(Lowering &l, Value x, int64_t dim, int64_t shift, Type elem) {
  int64_t n = cast<RankedTensorType>(x.getType()).getDimSize(dim);
  shift = ((shift % n) + n) % n;
  if (shift == 0)
    return x;
  Value tail = sliceAlong(l, x, dim, l.b.getIndexAttr(n - shift),
                          l.b.getIndexAttr(shift), 1);
  Value head = sliceAlong(l, x, dim, l.b.getIndexAttr(0),
                          l.b.getIndexAttr(n - shift), 1);
  return concat(l, {tail, head}, dim, elem);
}

/// `x` rolled by `shift` along its dynamic dim `dim` (the batch of a model
/// compiled for any batch): one generic reading index
/// `(i - shift) mod size` with tensor.extract; nothing for an empty dim.
static Value rolledDynamic(Lowering &l, Value x, int64_t dim, int64_t shift) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> sizes = l.dims(x);
  Value init = l.empty(sizes, type.getElementType());
  OpBuilder &b = l.b;
  Location loc = l.loc;
  Value n = getValueOrCreateConstantIndexOp(b, loc, sizes[dim]);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  // The shift in [0, n) (n - shift mod n, as a read offset); 0 when n is
  // 0, where nothing is read.
  Value safeN = arith::MaxSIOp::create(b, loc, n, one);
  Value s = arith::RemSIOp::create(
      b, loc, arith::ConstantIndexOp::create(b, loc, shift), safeN);
  s = arith::RemSIOp::create(b, loc, arith::AddIOp::create(b, loc, s, safeN),
                             safeN);
  Value offset = arith::SubIOp::create(b, loc, safeN, s);
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()}, ValueRange{}, ValueRange{init},
             ArrayRef<AffineMap>{b.getMultiDimIdentityMap(rank)},
             SmallVector<utils::IteratorType>(rank,
                                              utils::IteratorType::parallel),
             "", "",
             [&](OpBuilder &nb, Location nl, ValueRange) {
               SmallVector<Value> at;
               for (int64_t d = 0; d < rank; ++d)
                 at.push_back(linalg::IndexOp::create(nb, nl, d));
               Value from = arith::AddIOp::create(nb, nl, at[dim], offset);
               Value wrapped = arith::CmpIOp::create(
                   nb, nl, arith::CmpIPredicate::sge, from, safeN);
               at[dim] = arith::SelectOp::create(
                   nb, nl, wrapped, arith::SubIOp::create(nb, nl, from, safeN),
                   from);
               linalg::YieldOp::create(
                   nb, nl,
                   tensor::ExtractOp::create(nb, nl, x, at).getResult());
             })
      .getResult(0);
}

/// roll(self, shifts, dims): per dim, or over the flattened tensor when
/// dims is empty.
LogicalResult lowerRoll(Lowering &l) {
  using P = args::aten::roll;
  Value x = l.tensor(P::self);
  auto shifts = l.intList(P::shifts), dims = l.intList(P::dims);
  Type elem = l.resultElementType();
  if (!x || !shifts || !dims || !elem)
    return l.fail("needs a tensor and constant shifts and dims");
  auto type = cast<RankedTensorType>(x.getType());
  if (dims->empty()) {
    if (!type.hasStaticShape())
      return l.fail("rolling the flattened tensor needs a static shape");
    if (shifts->size() != 1)
      return l.fail("one shift without dims");
    SmallVector<OpFoldResult> sizes = l.dims(x);
    Value flat = l.reshape(x, {l.b.getIndexAttr(type.getNumElements())});
    if (type.getNumElements() == 0)
      return l.replace(x);
    return l.replace(l.reshape(rolled(l, flat, 0, (*shifts)[0], elem), sizes));
  }
  if (shifts->size() != dims->size())
    return l.fail("shifts and dims differ in length");
  for (auto [shift, d] : llvm::zip(*shifts, *dims)) {
    int64_t n = d < 0 ? d + type.getRank() : d;
    if (n < 0 || n >= type.getRank())
      return l.fail("dim out of range");
    if (type.getDimSize(n) == 0)
      continue;
    x = type.isDynamicDim(n) ? rolledDynamic(l, x, n, shift)
                             : rolled(l, x, n, shift, elem);
  }
  return l.replace(l.castTensor(x, elem));
}

/// repeat(self, repeats): one generic reading index `i mod n` of each dim
/// (the extra leading dims of repeats read nothing).
static LogicalResult repeatTensor(Lowering &l, Value x,
                                  std::optional<SmallVector<int64_t>> repeats);

LogicalResult lowerRepeat(Lowering &l) {
  using P = args::aten::repeat;
  return repeatTensor(l, l.tensor(P::self), l.intList(P::repeats));
}

/// tile(self, dims): repeat, with dims padded by leading 1s to the
/// input's rank.
LogicalResult lowerTile(Lowering &l) {
  using P = args::aten::tile;
  Value x = l.tensor(P::self);
  auto dims = l.intList(P::dims);
  if (!x || !dims)
    return l.fail("needs a tensor and constant dims");
  int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
  SmallVector<int64_t> repeats(
      std::max<int64_t>(0, rank - int64_t(dims->size())), 1);
  llvm::append_range(repeats, *dims);
  return repeatTensor(l, x, repeats);
}

static LogicalResult repeatTensor(Lowering &l, Value x,
                                  std::optional<SmallVector<int64_t>> repeats) {
  if (!x || !repeats)
    return l.fail("needs a tensor and constant repeats");
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank(), outRank = repeats->size();
  if (outRank < rank)
    return l.fail("repeats has fewer dims than the input");
  if (llvm::any_of(*repeats, [](int64_t r) { return r < 0; }))
    return l.fail("negative repeats");
  // A dim of run-time size (a dynamic batch) repeated: its copies joined
  // (an index modulo a run-time size is no affine map); then read as a
  // dim repeated once.
  SmallVector<int64_t> times(*repeats);
  for (int64_t in = 0; in < rank; ++in) {
    int64_t d = in + (outRank - rank);
    if (!type.isDynamicDim(in) || times[d] == 1)
      continue;
    if (times[d] == 0) {
      x = sliceAlong(l, x, in, l.b.getIndexAttr(0), l.b.getIndexAttr(0), 1);
    } else {
      SmallVector<Value> copies(times[d], x);
      x = concat(l, copies, in, type.getElementType());
    }
    times[d] = 1;
  }
  type = cast<RankedTensorType>(x.getType());
  SmallVector<AffineExpr> exprs;
  SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0; d < outRank; ++d) {
    int64_t in = d - (outRank - rank);
    if (in >= 0 && type.isDynamicDim(in)) {
      sizes.push_back(l.dim(x, in));
      exprs.push_back(l.b.getAffineDimExpr(d));
      continue;
    }
    int64_t n = in >= 0 ? type.getDimSize(in) : 1;
    sizes.push_back(l.b.getIndexAttr(n * times[d]));
    if (in >= 0)
      exprs.push_back(n == 1 ? l.b.getAffineConstantExpr(0)
                             : l.b.getAffineDimExpr(d) % n);
  }
  return l.replace(readThrough(l, x, exprs, sizes));
}

/// pad(self, pad, mode, value): constant as constant_pad_nd; in reflect,
/// replicate or circular mode, per padded dim from the last one back, the
/// input joined with slices of itself: mirrored without the edge
/// (reflect), the edge repeated (replicate) or the other end (circular).
LogicalResult lowerPadMode(Lowering &l) {
  using P = args::aten::pad;
  Value x = l.tensor(P::self);
  auto pads = l.intList(P::pad_);
  auto mode = dyn_cast_or_null<StringAttr>(l.arg(P::mode));
  Type elem = l.resultElementType();
  if (!x || !pads || !mode || !elem)
    return l.fail("needs constant pad sizes and mode");
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  if (pads->size() % 2 || int64_t(pads->size()) > 2 * rank)
    return l.fail("pad must hold a (before, after) pair per padded dim");
  if (mode.getValue() == "constant") {
    SmallVector<OpFoldResult> low(rank, l.b.getIndexAttr(0)), high = low;
    for (size_t i = 0; i < pads->size(); i += 2) {
      int64_t d = rank - 1 - int64_t(i / 2);
      int64_t before = (*pads)[i], after = (*pads)[i + 1];
      if (before < 0 || after < 0) {
        int64_t n = cast<RankedTensorType>(x.getType()).getDimSize(d);
        int64_t crop =
            std::max<int64_t>(-before, 0) + std::max<int64_t>(-after, 0);
        if (ShapedType::isDynamic(n) || n < crop)
          return l.fail("cropping needs a static dim of at least the crop");
        x = sliceAlong(l, x, d, l.b.getIndexAttr(std::max<int64_t>(-before, 0)),
                       l.b.getIndexAttr(n - crop), 1);
      }
      low[d] = l.b.getIndexAttr(std::max<int64_t>(before, 0));
      high[d] = l.b.getIndexAttr(std::max<int64_t>(after, 0));
    }
    Value v = l.isNone(P::value) ? l.constant(elem, 0.0)
                                 : l.scalar(l.arg(P::value), elem);
    if (!v)
      return l.fail("unsupported padding value");
    return l.replace(l.pad(x, low, high, v));
  }
  for (size_t i = 0; i < pads->size(); i += 2) {
    int64_t d = rank - 1 - int64_t(i / 2);
    int64_t before = (*pads)[i], after = (*pads)[i + 1];
    int64_t n = type.getDimSize(d);
    if (ShapedType::isDynamic(n))
      return l.fail("padded dims must be static");
    // Reflect and replicate with a negative side: that side is cropped
    // first; the other side's padding reads near its own edge, which the
    // crop leaves in place (as PyTorch maps output to input indices).
    if ((before < 0 || after < 0) && mode.getValue() != "circular") {
      int64_t cropBefore = std::max<int64_t>(-before, 0),
              cropAfter = std::max<int64_t>(-after, 0);
      if (cropBefore + cropAfter > n)
        return l.fail("cropping more than the dim holds");
      x = sliceAlong(l, x, d, l.b.getIndexAttr(cropBefore),
                     l.b.getIndexAttr(n - cropBefore - cropAfter), 1);
      n -= cropBefore + cropAfter;
      before = std::max<int64_t>(before, 0);
      after = std::max<int64_t>(after, 0);
    }
    if (before < 0 || after < 0)
      return l.fail("negative circular padding (cropping) is not supported");
    if (!before && !after)
      continue;
    auto slice = [&](int64_t start, int64_t length) {
      return sliceAlong(l, x, d, l.b.getIndexAttr(start),
                        l.b.getIndexAttr(length), 1);
    };
    SmallVector<Value> parts;
    if (mode.getValue() == "reflect") {
      if (before >= n || after >= n)
        return l.fail("reflect padding must be smaller than the dim");
      if (before)
        parts.push_back(flipped(l, slice(1, before), {d}));
      parts.push_back(x);
      if (after)
        parts.push_back(flipped(l, slice(n - 1 - after, after), {d}));
    } else if (mode.getValue() == "replicate") {
      if (n == 0)
        return l.fail("cannot replicate an empty dim");
      auto repeated = [&](int64_t at, int64_t count) {
        SmallVector<Value> copies(count, slice(at, 1));
        return concat(l, copies, d, elem);
      };
      if (before)
        parts.push_back(repeated(0, before));
      parts.push_back(x);
      if (after)
        parts.push_back(repeated(n - 1, after));
    } else if (mode.getValue() == "circular") {
      if (before > n || after > n)
        return l.fail("circular padding must not exceed the dim");
      if (before)
        parts.push_back(slice(n - before, before));
      parts.push_back(x);
      if (after)
        parts.push_back(slice(0, after));
    } else {
      return l.fail("unknown padding mode '" + mode.getValue().str() + "'");
    }
    x = concat(l, parts, d, elem);
  }
  return l.replace(x);
}

/// one_hot(self, num_classes): a new last dim of num_classes, 1 where it
/// equals the item.
LogicalResult lowerOneHot(Lowering &l) {
  using P = args::aten::one_hot;
  Value x = l.tensor(P::self);
  auto classes = l.constInt(P::num_classes);
  Type r = l.resultElementType();
  if (!x || !classes || !r)
    return l.fail("needs an integer tensor and constant num_classes");
  if (*classes < 0)
    return l.fail("num_classes must be given (-1 reads the data)");
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  OpBuilder &b = l.b;
  SmallVector<OpFoldResult> sizes = l.dims(x);
  sizes.push_back(b.getIndexAttr(*classes));
  SmallVector<AffineExpr> exprs;
  for (int64_t d = 0; d < rank; ++d)
    exprs.push_back(b.getAffineDimExpr(d));
  Value init = l.empty(sizes, r);
  return l.replace(
      linalg::GenericOp::create(
          b, l.loc, TypeRange{init.getType()}, ValueRange{x}, ValueRange{init},
          ArrayRef<AffineMap>{
              AffineMap::get(rank + 1, 0, exprs, b.getContext()),
              b.getMultiDimIdentityMap(rank + 1)},
          SmallVector<utils::IteratorType>(rank + 1,
                                           utils::IteratorType::parallel),
          "", "",
          [&](OpBuilder &nb, Location loc, ValueRange v) {
            Value c = arith::IndexCastOp::create(
                nb, loc, v[0].getType(),
                linalg::IndexOp::create(nb, loc, rank));
            Value hit = arith::CmpIOp::create(nb, loc, arith::CmpIPredicate::eq,
                                              v[0], c);
            linalg::YieldOp::create(
                nb, loc, arith::ExtUIOp::create(nb, loc, r, hit).getResult());
          })
          .getResult(0));
}

/// select.int(self, dim, index).
LogicalResult lowerSelect(Lowering &l) {
  using P = args::aten::select_int_;
  Value x = l.tensor(P::self);
  if (!x)
    return failure();
  auto type = cast<RankedTensorType>(x.getType());
  auto dim = l.normDim(l.arg(P::dim), type.getRank());
  if (!dim || type.getRank() == 0)
    return l.fail("dim must be a constant");
  Value n = l.toIndex(l.dim(x, *dim));
  OpFoldResult raw = l.index(l.arg(P::index));
  Value idx = boundIndex(l, l.arg(P::index), n, {});
  if (!idx || !raw)
    return l.fail("unsupported index");
  // An index not known to be in range (a dim of run-time size, the batch;
  // an index computed at run time) is checked, as ATen's IndexError: the
  // slice never reads past the dim.
  std::optional<int64_t> constant = getConstantIntValue(raw);
  int64_t size = type.getDimSize(*dim);
  if (!constant || ShapedType::isDynamic(size) || *constant < -size ||
      *constant >= size) {
    Value i = l.toIndex(raw);
    Value low = arith::CmpIOp::create(
        l.b, l.loc, arith::CmpIPredicate::slt, i,
        arith::SubIOp::create(l.b, l.loc, l.indexConst(0), n));
    Value high =
        arith::CmpIOp::create(l.b, l.loc, arith::CmpIPredicate::sge, i, n);
    l.check(tensor::FromElementsOp::create(
                l.b, l.loc, RankedTensorType::get({}, l.b.getI1Type()),
                arith::OrIOp::create(l.b, l.loc, low, high).getResult()),
            "index out of range of the dim");
  }
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> offsets(rank, l.b.getIndexAttr(0));
  SmallVector<OpFoldResult> strides(rank, l.b.getIndexAttr(1));
  SmallVector<OpFoldResult> sizes = l.dims(x);
  offsets[*dim] = getAsOpFoldResult(idx);
  sizes[*dim] = l.b.getIndexAttr(1);
  // The slice keeps the dim (size 1) and a collapse drops exactly it: a
  // rank-reducing extract_slice does not say which of several unit dims
  // it drops, and MLIR 22's canonicalization, folding a constant offset,
  // re-infers them (x[..., 0] of a 1x3x4 tensor read x[0, 0, :3]; fixed
  // upstream by llvm-project #178118).
  Value slice =
      tensor::ExtractSliceOp::create(l.b, l.loc, x, offsets, sizes, strides);
  return l.replace(l.squeeze(slice, *dim));
}

LogicalResult lowerSizeInt(Lowering &l) {
  using P = args::aten::size_int_;
  Value x = l.tensor(P::self);
  if (!x)
    return failure();
  auto dim = l.normDim(l.arg(P::dim), rankOf(x));
  if (!dim)
    return l.fail("dim must be a constant");
  return l.replace(l.b.createOrFold<arith::IndexCastOp>(
      l.loc, l.b.getI64Type(), l.toIndex(l.dim(x, *dim))));
}

/// `len(t)`: the size of dim 0 (a 0-d tensor has no length).
LogicalResult lowerLen(Lowering &l) {
  using P = args::aten::len_Tensor;
  Value x = l.tensor(P::t);
  if (!x)
    return failure();
  if (rankOf(x) == 0)
    return l.fail("len() of a 0-d tensor");
  return l.replace(l.b.createOrFold<arith::IndexCastOp>(
      l.loc, l.b.getI64Type(), l.toIndex(l.dim(x, 0))));
}

/// repeat_interleave(self, repeats, dim): each element along `dim` (of
/// the flattened tensor without one) `repeats` times in a row: a
/// broadcast into a new dim after `dim`, collapsed into it.
LogicalResult lowerRepeatInterleave(Lowering &l) {
  using P = args::aten::repeat_interleave_self_int;
  Value x = l.tensor(P::self);
  auto repeats = l.constInt(P::repeats);
  Type elem = l.resultElementType();
  if (!x || !repeats || *repeats < 0 || !elem)
    return l.fail("needs a tensor and a constant number of repeats >= 0");
  if (!l.isNone(P::dim) || rankOf(x) != 1) {
    if (l.isNone(P::dim)) {
      auto type = cast<RankedTensorType>(x.getType());
      if (!type.hasStaticShape())
        return l.fail("flattening needs a static shape");
      x = l.reshape(x, {l.b.getIndexAttr(type.getNumElements())});
    }
  }
  int64_t rank = std::max<int64_t>(rankOf(x), 1);
  if (rankOf(x) == 0)
    x = l.unsqueeze(x, 0);
  std::optional<int64_t> dim = 0;
  if (!l.isNone(P::dim))
    dim = l.normDim(l.arg(P::dim), rank);
  if (!dim)
    return l.fail("dim must be a constant");
  int64_t r = *repeats;
  SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0; d < rank; ++d) {
    sizes.push_back(l.dim(x, d));
    if (d == *dim)
      sizes.push_back(l.b.getIndexAttr(r));
  }
  Value init =
      l.empty(sizes, cast<RankedTensorType>(x.getType()).getElementType());
  MLIRContext *ctx = l.b.getContext();
  SmallVector<AffineExpr> read;
  for (int64_t d = 0; d <= rank; ++d)
    if (d != *dim + 1)
      read.push_back(getAffineDimExpr(d, ctx));
  SmallVector<AffineMap> maps = {AffineMap::get(rank + 1, 0, read, ctx),
                                 l.b.getMultiDimIdentityMap(rank + 1)};
  Value spread =
      linalg::GenericOp::create(l.b, l.loc, TypeRange{init.getType()},
                                ValueRange{x}, ValueRange{init}, maps,
                                SmallVector<utils::IteratorType>(
                                    rank + 1, utils::IteratorType::parallel),
                                "", "",
                                [](OpBuilder &b, Location loc, ValueRange v) {
                                  linalg::YieldOp::create(b, loc, v[0]);
                                })
          .getResult(0);
  SmallVector<ReassociationIndices> groups;
  for (int64_t d = 0; d <= rank; ++d) {
    if (d == *dim + 1)
      continue;
    groups.push_back({d});
    if (d == *dim)
      groups.back().push_back(d + 1);
  }
  Value out = tensor::CollapseShapeOp::create(l.b, l.loc, spread, groups);
  return l.replace(l.castTensor(out, elem));
}

/// item(self): the one element of a tensor of one element, as the
/// Python number the node declares (float, int or bool).
/// item(), and Int/Float/Bool of a one-element tensor (TorchScript's
/// int(t), float(t), bool(t)): its element as the declared number type.
LogicalResult lowerItem(Lowering &l) {
  // Parameters as aten::item names them, at the same positions in
  // aten::Int.Tensor and 2 more.
  using P = args::aten::item;
  Value x = l.tensor(P::self);
  if (!x)
    return failure();
  auto type = cast<RankedTensorType>(x.getType());
  if (!type.hasStaticShape() || type.getNumElements() != 1)
    return l.fail("item() needs a tensor of exactly one element (of a "
                  "static shape)");
  Type result = l.resultType();
  if (!result.isIntOrFloat())
    return l.fail("item() needs a declared number type");
  SmallVector<Value> zeros(type.getRank(), l.indexConst(0));
  Value element = tensor::ExtractOp::create(l.b, l.loc, x, zeros);
  return l.replace(element.getType() == result ? element
                                               : l.convert(element, result));
}

LogicalResult lowerSize(Lowering &l) {
  using P = args::aten::size;
  Value x = l.tensor(P::self);
  if (!x)
    return failure();
  SmallVector<Value> sizes;
  for (OpFoldResult d : l.dims(x))
    sizes.push_back(l.b.createOrFold<arith::IndexCastOp>(
        l.loc, l.b.getI64Type(), l.toIndex(d)));
  return l.replaceTuple(sizes);
}

LogicalResult lowerDim(Lowering &l) {
  using P = args::aten::dim;
  Value x = l.tensor(P::self);
  if (!x)
    return failure();
  return l.replace(l.constant(l.b.getI64Type(), rankOf(x)));
}

LogicalResult lowerNumel(Lowering &l) {
  using P = args::aten::numel;
  Value x = l.tensor(P::self);
  if (!x)
    return failure();
  Value n = l.indexConst(1);
  for (OpFoldResult d : l.dims(x))
    n = indexMul(l, n, l.toIndex(d));
  return l.replace(
      l.b.createOrFold<arith::IndexCastOp>(l.loc, l.b.getI64Type(), n));
}

} // namespace

void mlir::fx::lowering::addShapeLowerings(llvm::StringMap<LowerFn> &t) {
  addLowering(t, {"aten::view", "aten::reshape", "aten::_unsafe_view"},
              lowerReshape);
  addLowering(t, {"aten::flatten.using_ints"}, lowerFlatten);
  addLowering(t, {"aten::view_as"}, lowerViewAs);
  addLowering(t, {"aten::permute"}, lowerPermute);
  addLowering(t, {"aten::transpose.int", "aten::swapaxes"}, lowerTranspose);
  addLowering(t, {"aten::squeeze", "aten::squeeze.dim"}, lowerSqueeze);
  addLowering(t, {"aten::unsqueeze"}, lowerUnsqueeze);
  addLowering(t, {"aten::expand"}, lowerExpand);
  addLowering(t, {"aten::expand_as"}, lowerExpandAs);
  addLowering(t, {"aten::broadcast_tensors"}, lowerBroadcastTensors);
  addLowering(t, {"aten::cat", "aten::concat"}, lowerCat);
  addLowering(t, {"aten::stack"}, lowerStack);
  addLowering(t,
              {"aten::split.Tensor", "aten::split_with_sizes",
               "aten::split.sizes", "aten::split", "aten::chunk",
               "aten::unbind.int", "aten::unsafe_chunk",
               "aten::unsafe_split.Tensor", "aten::unsafe_split_with_sizes"},
              lowerSplit);
  addLowering(t, {"aten::slice.Tensor"}, lowerSlice);
  addLowering(t, {"aten::narrow"}, lowerNarrow);
  addLowering(t, {"aten::constant_pad_nd"}, lowerConstantPad);
  addLowering(t, {"aten::pad"}, lowerPadMode);
  addLowering(t, {"aten::pixel_shuffle"}, lowerPixelShuffleOp);
  addLowering(t, {"aten::pixel_unshuffle"}, lowerPixelUnshuffle);
  addLowering(t, {"aten::channel_shuffle"}, lowerChannelShuffle);
  addLowering(t, {"aten::unflatten.int"}, lowerUnflatten);
  addLowering(t, {"aten::flip"}, lowerFlip);
  addLowering(t, {"aten::roll"}, lowerRoll);
  addLowering(t, {"aten::repeat"}, lowerRepeat);
  addLowering(t, {"aten::tile"}, lowerTile);
  addLowering(t, {"aten::rot90"}, lowerRot90);
  addLowering(t, {"aten::diff"}, lowerDiff);
  addLowering(t, {"aten::one_hot"}, lowerOneHot);
  addLowering(t, {"aten::select.int"}, lowerSelect);
  addLowering(t, {"aten::size.int"}, lowerSizeInt);
  addLowering(t,
              {"aten::item", "aten::Int.Tensor", "aten::Float.Tensor",
               "aten::Bool.Tensor"},
              lowerItem);
  addLowering(t, {"aten::repeat_interleave.self_int"}, lowerRepeatInterleave);
  addLowering(t, {"aten::size"}, lowerSize);
  addLowering(t, {"aten::dim"}, lowerDim);
  addLowering(t, {"aten::len.Tensor"}, lowerLen);
  addLowering(t, {"aten::numel"}, lowerNumel);
}
