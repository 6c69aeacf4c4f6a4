//===- ConvInt8Winograd.cpp - int8 3x3 convs by Winograd, in integers -----===//
//
// Part of fx-cpu-schedule; see CPUSchedule.h.
//
// On CPUs without byte dot products (AVX2: the pairs form of ConvInt8.cpp,
// 8 multiply-adds an instruction) a 3x3 conv of stride 1 computes its
// int32 sums D = sum w x by Winograd's F(m x m, 3x3), m = 4 or 2,
// exactly, in integers. With the points 0, +-1 (+-2) and infinity, and
// G's rows scaled to integers (G' = [1 p p^2]) and those scales moved
// into At's columns (At'), for an n x n input tile d (n = m + 2) and the
// centred input d - 128 (|d - 128| <= 128):
//
//   U = G' g G't       per output and input channel, at compile time,
//                      |U| <= 49 * 128: i16
//   V = Bt (d - 128) B per input tile and channel, i16 vectors of channels
//                      (Bt d B minus 128 rs[a] rs[e], rs the sums of Bt's
//                      rows), |V| <= 100 * 128
//   M = sum_c V U      n^2 products of channels, laneDot's i16 pair
//                      register tiles (pair sums under 2 * 12800 * 6272)
//   At' M A'           = L^2 (D - 128 sum w) for the m x m output tile,
//                      L^2 = 576 = 2^6 * 9 for m = 4, 4 for m = 2
//
// The i32 sums wrap alike in any order, so At' M A' is L^2 (D - 128 sum w)
// modulo 2^32, and times the inverse of L^2's odd factor modulo 2^32 it
// is 2^s (D - 128 sum w) modulo 2^32 (the odd factor is invertible; the
// product was a multiple of it before wrapping): exactly that where
// 2^s * 128 * sum |w| < 2^31, which winogradForm checks on the weights,
// and D is its arithmetic shift right by s plus 128 sum w (a table). The
// centring gives that bound twice the room of the bytes as they are.
// F(4x4, 3x3): 36 products per 16 outputs instead of 144, 4 times fewer
// multiply-adds; F(2x2, 3x3): 16 per 4, 2.25 times fewer. Reads past the
// input's last rows or columns (the bottom and right tiles of an output
// not a multiple of m) read zeros instead, which change only outputs
// that are not written.
//
//===----------------------------------------------------------------------===//

#include "CPUSchedule.h"

#include "fx-mlir/Conversion/FXToLinalg/FXToLinalg.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace mlir::fx::cpu {

namespace {

/// Fewer 2x2 output tiles (over the batch) than this stay direct.
constexpr int64_t kInt8WinogradTiles = 8;
/// F(4x4, 3x3) from this many tiles of 4x4 (over the batch): its
/// transformed weights, 4 times the weights, are read once per call, and
/// with fewer tiles that reading costs more than the products saved
/// (resnet18's 7x7 convs, 4 tiles: the model for x86-64-v3 at 1 thread in
/// 22.6 ms with them in F(4x4, 3x3), 20.4 in F(2x2, 3x3), 23.8 with all
/// its 3x3 convs in F(2x2, 3x3)).
constexpr int64_t kInt8Winograd4Tiles = 16;

/// F(m x m, 3x3) in integers, from the points 0, 1, -1 (m = 2) or 0, 1,
/// -1, 2, -2 (m = 4) and infinity: Bt (n x n, n = m + 2), the rows of G
/// scaled to integers (G' = [p^0 p^1 p^2], n x 3), At with the scales
/// moved into its columns (m x n), so that At' M A' = L^2 Y for
/// M = (G' g G't) . (Bt d B), L^2 = 2^shift * odd, oddInverse * odd = 1
/// modulo 2^32. The sums of Bt's rows, all 0 but row 1's: the centred
/// input d - 128 is Bt d B minus 128 rs[a] rs[e].
struct Scheme {
  int64_t m, n;
  ArrayRef<int64_t> bt, g, at;
  int64_t shift;
  uint32_t oddInverse;
};
static const int64_t kBt2[] = {-1, 0,  1, 0, 0, 1,  1, 0,
                               0,  -1, 1, 0, 0, -1, 0, 1};
static const int64_t kG2[] = {1, 0, 0, 1, 1, 1, 1, -1, 1, 0, 0, 1};
static const int64_t kAt2[] = {-2, 1, 1, 0, 0, 1, -1, 2};
static const int64_t kBt4[] = {4, 0, -5, 0,  1, 0, 0, -4, -4, 1,  1, 0,
                               0, 4, -4, -1, 1, 0, 0, -2, -1, 2,  1, 0,
                               0, 2, -1, -2, 1, 0, 0, 4,  0,  -5, 0, 1};
static const int64_t kG4[] = {1, 0, 0, 1, 1,  1, 1, -1, 1,
                              1, 2, 4, 1, -2, 4, 0, 0,  1};
static const int64_t kAt4[] = {6, -4, -4, 1, 1, 0, 0, -4, 4, 2, -2, 0,
                               0, -4, -4, 4, 4, 0, 0, -4, 4, 8, -8, 24};
static const Scheme kF2{2, 4, kBt2, kG2, kAt2, 2, 1};
/// 576 = 2^6 * 9; 9 * 954437177 = 1 modulo 2^32.
static const Scheme kF4{4, 6, kBt4, kG4, kAt4, 6, 954437177u};

/// What an int8 Winograd conv reads and writes.
struct Form {
  int64_t N, Hp, Wp, C2, OH, OWp, OCB, lanes;
  /// The direct form's packed weights, [OCB, 3, 3, C2, lanes, 2].
  SmallVector<int16_t> weights;
  const Scheme *scheme = nullptr;
  int64_t th() const { return llvm::divideCeil(OH, scheme->m); }
  int64_t tw() const { return llvm::divideCeil(OWp, scheme->m); }
};

} // namespace

static std::optional<Form> winogradForm(linalg::GenericOp op) {
  auto params = op->getAttrOfType<DenseI64ArrayAttr>(kInt8ConvAttr);
  if (!params || params.size() != 5 || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || op.getNumLoops() != 9 ||
      !llvm::all_equal(
          {params[0], params[1], params[2], params[3], int64_t(1)}) ||
      !int8ConvStart(op))
    return std::nullopt;
  auto inT = dyn_cast<RankedTensorType>(op.getDpsInputs()[0].getType());
  auto wT = dyn_cast<RankedTensorType>(op.getDpsInputs()[1].getType());
  auto outT = dyn_cast<RankedTensorType>(op.getDpsInits()[0].getType());
  if (!inT || !wT || !outT || !inT.hasStaticShape() || !wT.hasStaticShape() ||
      !outT.hasStaticShape() || inT.getRank() != 5 || wT.getRank() != 6 ||
      outT.getRank() != 5 || !inT.getElementType().isInteger(16) ||
      !wT.getElementType().isInteger(16) ||
      !outT.getElementType().isInteger(32))
    return std::nullopt;
  Form f;
  f.N = outT.getDimSize(0), f.OH = outT.getDimSize(1),
  f.OWp = outT.getDimSize(2), f.OCB = outT.getDimSize(3),
  f.lanes = outT.getDimSize(4);
  f.Hp = inT.getDimSize(1), f.Wp = inT.getDimSize(2), f.C2 = wT.getDimSize(3);
  if (f.lanes % 16 != 0 || f.lanes > 32 || inT.getDimSize(0) != f.N ||
      inT.getDimSize(3) != f.C2 || inT.getDimSize(4) != 2 ||
      wT.getShape() != ArrayRef<int64_t>{f.OCB, 3, 3, f.C2, f.lanes, 2} ||
      f.Hp < f.OH + 2 || f.Wp < f.OWp + 2 ||
      f.N * llvm::divideCeil(f.OH, 2) * llvm::divideCeil(f.OWp, 2) <
          kInt8WinogradTiles)
    return std::nullopt;
  DenseIntElementsAttr weights;
  if (!matchPattern(op.getDpsInputs()[1], m_Constant(&weights)))
    return std::nullopt;
  f.weights = llvm::to_vector(weights.getValues<int16_t>());
  // The sums of the centred input, |D - 128 sum w| <= 128 sum |w|, times
  // 2^shift must fit an i32 for every output channel.
  int64_t perBlock = 9 * f.C2 * f.lanes * 2, most = 0;
  for (int64_t ocb = 0; ocb < f.OCB; ++ocb)
    for (int64_t o = 0; o < f.lanes; ++o) {
      int64_t sum = 0;
      for (int64_t k = 0; k < 9 * f.C2; ++k)
        for (int64_t b = 0; b < 2; ++b)
          sum += std::abs(
              int64_t(f.weights[ocb * perBlock + (k * f.lanes + o) * 2 + b]));
      most = std::max(most, sum);
    }
  auto fits = [&](const Scheme &scheme) {
    return (most * 128) << scheme.shift < (int64_t(1) << 31);
  };
  // F(4x4, 3x3) where it fits and computes no more products than
  // F(2x2, 3x3) (36 a tile of 4x4 against 16 a tile of 2x2).
  auto products = [&](int64_t m) {
    return (m + 2) * (m + 2) * llvm::divideCeil(f.OH, m) *
           llvm::divideCeil(f.OWp, m);
  };
  if (fits(kF4) && products(4) <= products(2) &&
      f.N * llvm::divideCeil(f.OH, 4) * llvm::divideCeil(f.OWp, 4) >=
          kInt8Winograd4Tiles)
    f.scheme = &kF4;
  else if (fits(kF2))
    f.scheme = &kF2;
  else
    return std::nullopt;
  return f;
}

int64_t int8WinogradTile(linalg::GenericOp op) {
  std::optional<Form> form = winogradForm(op);
  return form ? form->scheme->m : 0;
}

LogicalResult int8WinogradConv(RewriterBase &rewriter, linalg::GenericOp op,
                               linalg::GenericOp epilogue) {
  std::optional<Form> form = winogradForm(op);
  if (!form)
    return failure();
  OpOperand *read = epilogue ? productsOperand(op, epilogue) : nullptr;
  if (epilogue && !read)
    return failure();
  const Form &f = *form;
  const Scheme &k = *f.scheme;
  int64_t m = k.m, ni = k.n, Q = ni * ni;
  int64_t th = f.th(), tw = f.tw(), lanes = f.lanes, V = lanes / 16;
  int64_t Cp = 2 * f.C2;
  Location loc = op.getLoc();
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(epilogue ? epilogue.getOperation()
                                      : op.getOperation());
  Type i16 = rewriter.getI16Type(), i32 = rewriter.getI32Type();
  auto acc = VectorType::get({16}, i32);
  auto c = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, v);
  };
  auto splat = [&](VectorType type, int64_t v) -> Value {
    return arith::ConstantOp::create(
        rewriter, loc,
        DenseElementsAttr::get(
            type, rewriter.getIntegerAttr(type.getElementType(), v)));
  };
  Value zero16 =
      arith::ConstantOp::create(rewriter, loc, rewriter.getI16IntegerAttr(0));
  Value zero32 =
      arith::ConstantOp::create(rewriter, loc, rewriter.getI32IntegerAttr(0));
  auto readVector = [&](VectorType type, Value from, ValueRange at) -> Value {
    Value pad = type.getElementType() == i16 ? zero16 : zero32;
    return vector::TransferReadOp::create(rewriter, loc, type, from, at, pad,
                                          ArrayRef<bool>{true});
  };
  auto write = [&](Value v, Value into, ValueRange at) -> Value {
    return vector::TransferWriteOp::create(rewriter, loc, v, into, at,
                                           ArrayRef<bool>{true})
        .getResult();
  };
  // An scf.for from 0 to `count` carrying `carried`, its body `body(iv,
  // carried)`; the loop's results.
  auto loop = [&](int64_t count, ValueRange carried,
                  function_ref<SmallVector<Value>(Value, ValueRange)> body) {
    return countedLoop(rewriter, loc, count, carried, body);
  };
  // Over `ranges`, the slice `sliceOf(ivs)` (offsets, sizes; rank-reduced
  // to `tileType`) of `shared` rewritten by `body(ivs, tile)`: an
  // scf.forall when `parallel`, else nested scf.for loops; the result.
  auto blocks =
      [&](ArrayRef<int64_t> ranges, bool parallel, Value shared,
          RankedTensorType tileType,
          function_ref<std::pair<SmallVector<OpFoldResult>,
                                 SmallVector<OpFoldResult>>(ValueRange)>
              sliceOf,
          function_ref<Value(ValueRange, Value)> body) -> Value {
    if (parallel) {
      auto op =
          scf::ForallOp::create(rewriter, loc, indexAttrs(rewriter, ranges),
                                ValueRange{shared}, std::nullopt);
      OpBuilder::InsertionGuard inner(rewriter);
      rewriter.setInsertionPointToStart(op.getBody());
      auto [offsets, sizes] = sliceOf(op.getInductionVars());
      SmallVector<OpFoldResult> ones(offsets.size(), rewriter.getIndexAttr(1));
      Value tile = tensor::ExtractSliceOp::create(rewriter, loc, tileType,
                                                  op.getRegionIterArgs()[0],
                                                  offsets, sizes, ones);
      Value written = body(op.getInductionVars(), tile);
      rewriter.setInsertionPointToStart(op.getTerminator().getBody());
      tensor::ParallelInsertSliceOp::create(rewriter, loc, written,
                                            op.getRegionIterArgs()[0], offsets,
                                            sizes, ones);
      return op.getResult(0);
    }
    SmallVector<Value> ivs;
    std::function<Value(size_t, Value)> nest = [&](size_t d,
                                                   Value whole) -> Value {
      if (d == ranges.size()) {
        auto [offsets, sizes] = sliceOf(ivs);
        SmallVector<OpFoldResult> ones(offsets.size(),
                                       rewriter.getIndexAttr(1));
        Value tile = tensor::ExtractSliceOp::create(
            rewriter, loc, tileType, whole, offsets, sizes, ones);
        return tensor::InsertSliceOp::create(rewriter, loc, body(ivs, tile),
                                             whole, offsets, sizes, ones)
            .getResult();
      }
      return loop(ranges[d], whole, [&](Value iv, ValueRange carried) {
        ivs.push_back(iv);
        Value nested = nest(d + 1, carried[0]);
        ivs.pop_back();
        return SmallVector<Value>{nested};
      })[0];
    };
    return nest(0, shared);
  };
  // Values of `types` from `then()` where `cond`, else zeros; `then()`
  // alone without a condition.
  auto valuesIf = [&](Value cond, TypeRange types,
                      function_ref<SmallVector<Value>()> then) {
    if (!cond)
      return then();
    auto ifOp = scf::IfOp::create(rewriter, loc, types, cond,
                                  /*withElseRegion=*/true);
    OpBuilder::InsertionGuard inner(rewriter);
    rewriter.setInsertionPointToStart(ifOp.thenBlock());
    scf::YieldOp::create(rewriter, loc, then());
    rewriter.setInsertionPointToStart(ifOp.elseBlock());
    SmallVector<Value> zeros;
    for (Type t : types)
      zeros.push_back(splat(cast<VectorType>(t), 0));
    scf::YieldOp::create(rewriter, loc, zeros);
    return SmallVector<Value>(ifOp.getResults());
  };
  auto sub = [&](Value a, Value b) -> Value {
    return arith::SubIOp::create(rewriter, loc, a, b);
  };
  auto add = [&](Value a, Value b) -> Value {
    return arith::AddIOp::create(rewriter, loc, a, b);
  };
  auto mul = [&](Value a, int64_t b) -> Value {
    return arith::MulIOp::create(rewriter, loc, a, c(b));
  };

  Value input = tensor::CollapseShapeOp::create(
      rewriter, loc, RankedTensorType::get({f.N, f.Hp, f.Wp, Cp}, i16),
      op.getDpsInputs()[0],
      SmallVector<ReassociationIndices>{{0}, {1}, {2}, {3, 4}});
  // sum_i coefficients[i] values[i], of vectors: additions and
  // subtractions, multiplications by the other constants.
  auto combine = [&](ArrayRef<int64_t> coefficients,
                     ArrayRef<Value> values) -> Value {
    Value sum, negated;
    for (auto [i, v] : llvm::enumerate(values)) {
      int64_t coefficient = coefficients[i];
      if (coefficient == 0)
        continue;
      Value term = v;
      if (std::abs(coefficient) != 1)
        term = arith::MulIOp::create(
            rewriter, loc, v,
            splat(cast<VectorType>(v.getType()), std::abs(coefficient)));
      if (coefficient > 0)
        sum = sum ? add(sum, term) : term;
      else
        negated = negated ? add(negated, term) : term;
    }
    if (!negated)
      return sum;
    if (!sum)
      return sub(splat(cast<VectorType>(negated.getType()), 0), negated);
    return sub(sum, negated);
  };
  // The bottom rows or right columns of tiles read past the input where
  // the output's height or width is not a multiple of m: from these rows
  // and columns of the tile on.
  int64_t rowPastFrom = f.Hp - m * (th - 1),
          columnPastFrom = f.Wp - m * (tw - 1);
  bool rowPast = rowPastFrom < ni, columnPast = columnPastFrom < ni;
  auto below = [&](Value v, int64_t bound) -> Value {
    return arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult, v,
                                 c(bound));
  };

  // Row blocks of tiles: a block's transformed input V and products M
  // stay in the L2 from the step that writes them to the one that reads
  // them. Many blocks run in parallel, each on one thread; fewer one after
  // the other, each step on all threads. An output height not a multiple
  // of m is one block (its last row of tiles partly outside).
  int64_t rowBytes = Q * f.N * tw * (2 * Cp + 4 * f.OCB * lanes);
  int64_t l2 = tuning().winogradElements * 4;
  auto rowsFor = [&](int64_t bytes) {
    for (int64_t r = th; r > 1; --r)
      if (th % r == 0 && r * rowBytes <= bytes)
        return r;
    return int64_t(1);
  };
  int64_t rows = th;
  bool parallelBlocks = false;
  if (f.OH % m == 0) {
    rows = rowsFor(l2 / 4);
    parallelBlocks = th / rows >= kWinogradParallelChunks;
    if (!parallelBlocks)
      rows = rowsFor(l2);
  }
  int64_t chunks = th / rows;
  bool inner = !parallelBlocks;
  // The tiles of a block (n, r, tx), in register tiles of P: the most
  // that fit the registers, or fewer (down to 2/3 of that) where fewer
  // tiles are padding (resnet18's 7x7 convs: 16 tiles in 4 register tiles
  // of 4, not 3 of 6 with 2 thrown away).
  int64_t T = f.N * rows * tw;
  int64_t most = (tuning().lanes >= 16 ? 12 : 6) / V;
  int64_t P = std::min(T, most);
  for (int64_t p = P - 1; p >= std::max<int64_t>(1, most * 2 / 3); --p)
    if (llvm::alignTo(T, p) < llvm::alignTo(T, P))
      P = p;
  int64_t Tp = llvm::alignTo(T, P);
  // Output rows a block writes: all of them for one block.
  int64_t outRows = chunks == 1 ? f.OH : m * rows;

  // The products' register tiles run with the channel blocks outer where
  // the weights are the larger operand (as the direct form); U, the input
  // tile's element q = a n + e of G' g G't, the lanes x 2 weights of a
  // channel pair as the direct form packs them, is laid out in that order:
  // [OCB, Q, C2, lanes x 2], else [Q, OCB, C2, lanes x 2], so that the
  // tiles read it from start to end.
  bool channelsOuter = Q * f.OCB * f.C2 * lanes * 2 > Q * Tp * Cp * 2;
  SmallVector<int16_t> u(Q * f.OCB * f.C2 * lanes * 2);
  // 128 sum w per output channel: what the centred input's sums lack.
  SmallVector<int32_t> offsets(f.OCB * lanes, 0);
  for (int64_t ocb = 0; ocb < f.OCB; ++ocb)
    for (int64_t cc = 0; cc < f.C2; ++cc)
      for (int64_t ob = 0; ob < lanes * 2; ++ob) {
        int64_t g[3][3];
        for (int64_t r = 0; r < 3; ++r)
          for (int64_t s = 0; s < 3; ++s)
            g[r][s] =
                f.weights[(((ocb * 3 + r) * 3 + s) * f.C2 + cc) * lanes * 2 +
                          ob];
        for (int64_t r = 0; r < 3; ++r)
          for (int64_t s = 0; s < 3; ++s)
            offsets[ocb * lanes + ob / 2] += 128 * g[r][s];
        // |U| <= 49 * 128: an i16.
        for (int64_t a = 0; a < ni; ++a)
          for (int64_t e = 0; e < ni; ++e) {
            int64_t sum = 0;
            for (int64_t r = 0; r < 3; ++r)
              for (int64_t s = 0; s < 3; ++s)
                sum += k.g[a * 3 + r] * g[r][s] * k.g[e * 3 + s];
            int64_t q = a * ni + e;
            int64_t block = channelsOuter ? ocb * Q + q : q * f.OCB + ocb;
            u[(block * f.C2 + cc) * lanes * 2 + ob] = int16_t(sum);
          }
      }
  Value weights = arith::ConstantOp::create(
      rewriter, loc,
      DenseElementsAttr::get(
          RankedTensorType::get(
              channelsOuter ? ArrayRef<int64_t>{f.OCB, Q, f.C2, lanes * 2}
                            : ArrayRef<int64_t>{Q, f.OCB, f.C2, lanes * 2},
              i16),
          ArrayRef<int16_t>(u)));
  Value offsetTable = arith::ConstantOp::create(
      rewriter, loc,
      DenseElementsAttr::get(RankedTensorType::get({f.OCB * lanes}, i32),
                             ArrayRef<int32_t>(offsets)));

  // The products' destination and what their sums start from.
  Value init = op.getDpsInits()[0];
  Value shared = epilogue ? epilogue.getDpsInits()[0] : init;
  Type outElement = getElementTypeOrSelf(shared.getType());
  IntegerAttr start = int8ConvStart(op);
  OpOperand *addend = epilogue && start.getValue().isZero()
                          ? channelAddend(epilogue, read)
                          : nullptr;

  // The rows of tiles [ty0, ty0 + rows) into `out`, the block's rows of
  // the result ([N, outRows, OWp, OCB, lanes], or the epilogue's [N,
  // outRows, OWp, OCB lanes]).
  auto rowBlock = [&](Value ty0, Value out) -> Value {
    // The input transform: V [Q, Tp, Cp], tile t = (n rows + r) tw + tx,
    // over images and rows of tiles, on vectors of up to 16 channels.
    Value vTransformed = blocks(
        {f.N, rows}, inner,
        tensor::EmptyOp::create(rewriter, loc, ArrayRef<int64_t>{Q, Tp, Cp},
                                i16),
        RankedTensorType::get({Q, tw, Cp}, i16),
        [&](ValueRange ivs) {
          Value t0 = mul(add(mul(ivs[0], rows), ivs[1]), tw);
          return std::pair(SmallVector<OpFoldResult>{rewriter.getIndexAttr(0),
                                                     t0,
                                                     rewriter.getIndexAttr(0)},
                           indexAttrs(rewriter, {Q, tw, Cp}));
        },
        [&](ValueRange ivs, Value tile) -> Value {
          Value n = ivs[0], ty = add(ty0, ivs[1]);
          Value top = mul(ty, m);
          Value rowOk = rowPast ? below(ty, th - 1) : Value();
          return loop(tw, tile, [&](Value tx, ValueRange carried) {
            Value left = mul(tx, m);
            Value columnOk = columnPast ? below(tx, tw - 1) : Value();
            // The transform of `width` channels from ch.
            auto transform = [&](Value ch, int64_t width, Value tile) {
              auto type = VectorType::get({width}, i16);
              SmallVector<SmallVector<Value>> d(ni, SmallVector<Value>(ni));
              auto readAll = [&](ArrayRef<std::pair<int64_t, int64_t>> where,
                                 Value cond) {
                SmallVector<Type> types(where.size(), type);
                SmallVector<Value> values = valuesIf(cond, types, [&] {
                  SmallVector<Value> reads;
                  for (auto [i, j] : where)
                    reads.push_back(readVector(
                        type, input, {n, add(top, c(i)), add(left, c(j)), ch}));
                  return reads;
                });
                for (auto [index, ij] : llvm::enumerate(where))
                  d[ij.first][ij.second] = values[index];
              };
              SmallVector<std::pair<int64_t, int64_t>> inside, lastRow,
                  lastColumn;
              SmallVector<std::pair<int64_t, int64_t>> corner;
              for (int64_t i = 0; i < ni; ++i)
                for (int64_t j = 0; j < ni; ++j) {
                  bool pastRow = rowPast && i >= rowPastFrom,
                       pastColumn = columnPast && j >= columnPastFrom;
                  (pastRow && pastColumn ? corner
                   : pastRow             ? lastRow
                   : pastColumn          ? lastColumn
                                         : inside)
                      .push_back({i, j});
                }
              readAll(inside, Value());
              if (!lastRow.empty())
                readAll(lastRow, rowOk);
              if (!lastColumn.empty())
                readAll(lastColumn, columnOk);
              if (!corner.empty())
                readAll(corner,
                        arith::AndIOp::create(rewriter, loc, rowOk, columnOk));
              // Bt d B: its columns, then its rows; |Bt d B| <= 100 * 255
              // for F(4x4, 3x3), an i16. Centred: minus 128 rs[a] rs[e].
              SmallVector<int64_t> rowSums(ni, 0);
              for (int64_t a = 0; a < ni; ++a)
                for (int64_t i = 0; i < ni; ++i)
                  rowSums[a] += k.bt[a * ni + i];
              SmallVector<SmallVector<Value>> columns(ni,
                                                      SmallVector<Value>(ni));
              for (int64_t j = 0; j < ni; ++j) {
                SmallVector<Value> column;
                for (int64_t i = 0; i < ni; ++i)
                  column.push_back(d[i][j]);
                for (int64_t a = 0; a < ni; ++a)
                  columns[a][j] = combine(k.bt.slice(a * ni, ni), column);
              }
              // The Q vectors as the rows of one 2-D vector, written at
              // once (one tensor write a tile, not Q: bufferization's
              // analysis is slow on long chains of them).
              auto rowsType = VectorType::get({Q, width}, i16);
              Value all = splat(rowsType, 0);
              for (int64_t a = 0; a < ni; ++a)
                for (int64_t e = 0; e < ni; ++e) {
                  Value v = combine(k.bt.slice(e * ni, ni), columns[a]);
                  if (int64_t offset = 128 * rowSums[a] * rowSums[e])
                    v = sub(v, splat(type, offset));
                  all = vector::InsertOp::create(rewriter, loc, v, all,
                                                 ArrayRef<int64_t>{a * ni + e});
                }
              MLIRContext *context = rewriter.getContext();
              return vector::TransferWriteOp::create(
                         rewriter, loc, all, tile, ValueRange{c(0), tx, ch},
                         AffineMapAttr::get(
                             AffineMap::get(3, 0,
                                            {getAffineDimExpr(0, context),
                                             getAffineDimExpr(2, context)},
                                            context)),
                         rewriter.getBoolArrayAttr({true, true}))
                  .getResult();
            };
            Value tile = carried[0];
            int64_t whole = Cp / 16;
            if (whole > 0)
              tile = loop(whole, tile, [&](Value k, ValueRange carried) {
                return SmallVector<Value>{
                    transform(mul(k, 16), 16, carried[0])};
              })[0];
            if (Cp % 16 != 0)
              tile = transform(c(whole * 16), Cp % 16, tile);
            return SmallVector<Value>{tile};
          })[0];
        });

    // The products: M [Q, Tp, OCB, lanes] = sum_c V[q, t, c] U[q, c, oc],
    // register tiles of P tiles x lanes channels (channelsOuter above).
    SmallVector<int64_t> ranges{Q, Tp / P, f.OCB};
    if (channelsOuter)
      ranges = {f.OCB, Q, Tp / P};
    auto order = [&](ValueRange ivs) {
      return channelsOuter ? std::tuple(ivs[1], ivs[2], ivs[0])
                           : std::tuple(ivs[0], ivs[1], ivs[2]);
    };
    auto weights16 = VectorType::get({32}, i16);
    auto pair = VectorType::get({2}, i16);
    Value products = blocks(
        ranges, inner,
        tensor::EmptyOp::create(rewriter, loc,
                                ArrayRef<int64_t>{Q, Tp, f.OCB, lanes}, i32),
        RankedTensorType::get({P, lanes}, i32),
        [&](ValueRange ivs) {
          auto [q, tb, ocb] = order(ivs);
          return std::pair(SmallVector<OpFoldResult>{q, mul(tb, P), ocb,
                                                     rewriter.getIndexAttr(0)},
                           indexAttrs(rewriter, {1, P, 1, lanes}));
        },
        [&](ValueRange ivs, Value tile) -> Value {
          auto [q, tb, ocb] = order(ivs);
          Value t0 = mul(tb, P);
          SmallVector<Value> accs(P * V, splat(acc, 0));
          SmallVector<Value> sums =
              loop(f.C2, accs, [&](Value cc, ValueRange a) {
                SmallVector<Value> w;
                for (int64_t v = 0; v < V; ++v)
                  w.push_back(vector::BitCastOp::create(
                      rewriter, loc, acc,
                      readVector(weights16, weights,
                                 channelsOuter
                                     ? ValueRange{ocb, q, cc, c(32 * v)}
                                     : ValueRange{q, ocb, cc, c(32 * v)})));
                SmallVector<Value> out(a.begin(), a.end());
                Value ch = mul(cc, 2);
                for (int64_t p = 0; p < P; ++p) {
                  Value two =
                      readVector(pair, vTransformed, {q, add(t0, c(p)), ch});
                  Value broadcast = broadcastGroup(rewriter, loc, two);
                  for (int64_t v = 0; v < V; ++v)
                    out[p * V + v] = laneDot(rewriter, loc, out[p * V + v],
                                             broadcast, w[v], 2);
                }
                return out;
              });
          for (int64_t p = 0; p < P; ++p)
            for (int64_t v = 0; v < V; ++v)
              tile = write(sums[p * V + v], tile, {c(p), c(16 * v)});
          return tile;
        });

    // The output transform, then the epilogue: over images and channel
    // blocks, each writing its channels of the block's rows.
    return blocks(
        {f.N, f.OCB}, inner, out,
        RankedTensorType::get({outRows, f.OWp, lanes}, outElement),
        [&](ValueRange ivs) {
          Value n = ivs[0], ocb = ivs[1];
          OpFoldResult zero = rewriter.getIndexAttr(0);
          if (epilogue)
            return std::pair(
                SmallVector<OpFoldResult>{n, zero, zero, mul(ocb, lanes)},
                indexAttrs(rewriter, {1, outRows, f.OWp, lanes}));
          return std::pair(SmallVector<OpFoldResult>{n, zero, zero, ocb, zero},
                           indexAttrs(rewriter, {1, outRows, f.OWp, 1, lanes}));
        },
        [&](ValueRange ivs, Value tile) -> Value {
          Value n = ivs[0], ocb = ivs[1];
          Value oc0 = mul(ocb, lanes);
          // What the sums start from: the epilogue's per-channel addend,
          // or the constant.
          SmallVector<Value> starts;
          for (int64_t v = 0; v < V; ++v) {
            if (!addend) {
              starts.push_back(start.getValue().isZero()
                                   ? Value()
                                   : splat(acc, start.getInt()));
              continue;
            }
            AffineMap map = epilogue.getMatchingIndexingMap(addend);
            Value oc = add(oc0, c(16 * v));
            SmallVector<Value> indices;
            for (AffineExpr r : map.getResults())
              indices.push_back(isa<AffineDimExpr>(r) ? oc : c(0));
            starts.push_back(readVector(acc, addend->get(), indices));
          }
          Value shift = splat(acc, k.shift);
          Value inverse =
              k.oddInverse == 1 ? Value() : splat(acc, int32_t(k.oddInverse));
          // What the centred input's sums lack: 128 sum w.
          SmallVector<Value> offsetsOf;
          for (int64_t v = 0; v < V; ++v)
            offsetsOf.push_back(
                readVector(acc, offsetTable, {add(oc0, c(16 * v))}));
          return loop(rows, tile, [&](Value r, ValueRange carried) {
            Value ty = add(ty0, r);
            return loop(tw, carried, [&](Value tx, ValueRange carried) {
              Value tile = carried[0];
              Value t = add(mul(add(mul(n, rows), r), tw), tx);
              for (int64_t v = 0; v < V; ++v) {
                // At' M A' = L^2 (D - 128 sum w), modulo 2^32: times the
                // inverse of L^2's odd factor, shifted right by its power
                // of 2 (exact while 2^shift |D - 128 sum w| < 2^31).
                SmallVector<Value> mq;
                for (int64_t q = 0; q < Q; ++q)
                  mq.push_back(
                      readVector(acc, products, {c(q), t, ocb, c(16 * v)}));
                SmallVector<SmallVector<Value>> columns(m,
                                                        SmallVector<Value>(ni));
                for (int64_t e = 0; e < ni; ++e) {
                  SmallVector<Value> column;
                  for (int64_t a = 0; a < ni; ++a)
                    column.push_back(mq[a * ni + e]);
                  for (int64_t y = 0; y < m; ++y)
                    columns[y][e] = combine(k.at.slice(y * ni, ni), column);
                }
                for (int64_t y = 0; y < m; ++y) {
                  for (int64_t x = 0; x < m; ++x) {
                    Value sums = combine(k.at.slice(x * ni, ni), columns[y]);
                    if (inverse)
                      sums =
                          arith::MulIOp::create(rewriter, loc, sums, inverse);
                    sums = arith::ShRSIOp::create(rewriter, loc, sums, shift);
                    sums = add(sums, offsetsOf[v]);
                    if (starts[v])
                      sums = add(sums, starts[v]);
                    Value ow = add(mul(tx, m), c(x));
                    auto store = [&](Value tile) -> Value {
                      SmallVector<Value> to{add(mul(r, m), c(y)), ow,
                                            c(16 * v)};
                      if (!epilogue)
                        return write(sums, tile, to);
                      return applyEpilogue(
                          rewriter, loc, epilogue, read, sums,
                          {n, add(mul(ty, m), c(y)), ow, add(oc0, c(16 * v))},
                          tile, to, addend != nullptr);
                    };
                    // The bottom rows and right columns of an output not a
                    // multiple of m.
                    Value cond;
                    if (m * (th - 1) + y >= f.OH)
                      cond = below(ty, th - 1);
                    if (m * (tw - 1) + x >= f.OWp) {
                      Value inside = below(tx, tw - 1);
                      cond = cond ? Value(arith::AndIOp::create(rewriter, loc,
                                                                cond, inside))
                                  : inside;
                    }
                    if (!cond) {
                      tile = store(tile);
                      continue;
                    }
                    auto ifOp = scf::IfOp::create(
                        rewriter, loc, TypeRange{tile.getType()}, cond,
                        /*withElseRegion=*/true);
                    OpBuilder::InsertionGuard guardIf(rewriter);
                    rewriter.setInsertionPointToStart(ifOp.thenBlock());
                    scf::YieldOp::create(rewriter, loc, store(tile));
                    rewriter.setInsertionPointToStart(ifOp.elseBlock());
                    scf::YieldOp::create(rewriter, loc, tile);
                    rewriter.setInsertionPointAfter(ifOp);
                    tile = ifOp.getResult(0);
                  }
                }
              }
              return SmallVector<Value>{tile};
            });
          })[0];
        });
  };

  Value result;
  if (chunks == 1) {
    result = rowBlock(c(0), shared);
  } else {
    // Block b writes output rows [m rows b, m rows (b + 1)).
    auto outType = cast<RankedTensorType>(shared.getType());
    SmallVector<int64_t> blockShape(outType.getShape());
    blockShape[1] = outRows;
    result = blocks(
        {chunks}, parallelBlocks, shared,
        RankedTensorType::get(blockShape, outElement),
        [&](ValueRange ivs) {
          SmallVector<OpFoldResult> offsets(outType.getRank(),
                                            rewriter.getIndexAttr(0));
          offsets[1] = mul(ivs[0], m * rows);
          return std::pair(offsets, indexAttrs(rewriter, blockShape));
        },
        [&](ValueRange ivs, Value block) {
          return rowBlock(mul(ivs[0], rows), block);
        });
  }
  if (!epilogue) {
    rewriter.replaceOp(op, result);
    return success();
  }
  Operation *view = *op->getUsers().begin();
  rewriter.replaceOp(epilogue, result);
  rewriter.eraseOp(view);
  rewriter.eraseOp(op);
  return success();
}

} // namespace mlir::fx::cpu
