//===- Schedule.cpp - Tile and vectorize linalg ops for the CPU -----------===//
//
// fx-cpu-schedule, on tensors, before bufferization:
//   1. conv_2d_nchw_fchw becomes a shifted-window contraction over the
//      padded input (stride 1, wide images) or im2col + a contraction, so
//      one contraction schedule serves convs and matmuls; depthwise convs
//      and pooling become elementwise ops over their window slices;
//   2. a constant right-hand side read transposed (linear's weight) is
//      transposed once, at compile time;
//   3. contractions are split so every piece tiles exactly, tiled for
//      threads (scf.forall), the cache (k blocks) and registers, and the
//      register tiles vectorized;
//   4. elementwise ops are tiled to rows of the innermost dim (after
//      parallel blocks when large) and vectorized.
//
// Upstream's loop-invariant-subset-hoisting then keeps each register
// tile's accumulator in registers across its k loop. fx-cpu-lower-vectors,
// on memrefs, after bufferization, lowers the vector ops to FMAs and
// loads/stores (strided reads: loads and shuffles); math functions get
// polynomial approximations.
//
//===----------------------------------------------------------------------===//

#include "fx-mlir/Conversion/LinalgToCPU/CPUTarget.h"
#include "fx-mlir/Conversion/Passes.h"
#include "fx-mlir/Dialect/FX/IR/FXAttrs.h"
#include "fx-mlir/Dialect/FX/IR/FXLocation.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Utils/Utils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir::fx {
#define GEN_PASS_DEF_FXCPUSCHEDULE
#define GEN_PASS_DEF_FXCPULOWERVECTORS
#include "fx-mlir/Conversion/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;
using mlir::fx::CPUTarget;

namespace {

/// What the schedule takes from the CPU target (CPUTarget.h): vector
/// width, register tile and cache-dependent sizes. Set for the thread that
/// runs a pass (passes run on functions in parallel) by ScopedTuning.
struct Tuning {
  /// f32 lanes of one vector register.
  int64_t lanes;
  /// Register tile of a contraction: rows of the result x columns (panel).
  int64_t tileRows;
  /// Filters per panel of packed conv weights, columns of packed
  /// contraction operands: the columns of one register tile, 2 registers.
  int64_t panel;
  /// See tuning().packedBlockRows, tuning().gatherElements and
  /// tuning().winogradElements below.
  int64_t packedBlockRows, gatherElements, winogradElements;

  static Tuning from(const CPUTarget &target) {
    Tuning t;
    t.lanes = std::clamp<int64_t>(int64_t(llvm::bit_floor(uint64_t(
                                      std::max<int64_t>(target.f32Lanes, 1)))),
                                  4, 16);
    t.panel = 2 * t.lanes;
    // Accumulators of tileRows x 2 registers, 2 registers of the panel's
    // row and a broadcast: 8 rows with 32 registers, 6 with 16 (AVX2).
    t.tileRows = std::clamp<int64_t>((target.vectorRegisters - 4) / 2, 4, 8);
    int64_t l2 = std::min<int64_t>(target.l2, 1 << 20);
    t.packedBlockRows = target.l2 >= (1 << 20) ? 256 : 128;
    t.gatherElements = std::max<int64_t>(l2 / 8, 1 << 14);
    t.winogradElements = std::max<int64_t>(l2 / 4, 1 << 15);
    return t;
  }

  /// One line for the IR: what the schedule chose from the target.
  std::string describe(const CPUTarget &target) const {
    return llvm::formatv("target={0} lanes={1} registers={2} tile={3}x{4} "
                         "packed-block-rows={5} l2={6}K",
                         target.name, lanes, target.vectorRegisters, tileRows,
                         panel, packedBlockRows, target.l2 >> 10)
        .str();
  }
};

thread_local const Tuning *currentTuning = nullptr;

/// The tuning of the pass running on this thread (the host's outside one).
const Tuning &tuning() {
  if (currentTuning)
    return *currentTuning;
  static const Tuning host = Tuning::from(CPUTarget::host());
  return host;
}

/// Makes `tuning()` return `t` on this thread while it lives.
struct ScopedTuning {
  explicit ScopedTuning(const Tuning &t) : previous(currentTuning) {
    currentTuning = &t;
  }
  ~ScopedTuning() { currentTuning = previous; }
  const Tuning *previous;
};

/// Cache blocks: result rows x columns per thread task, and the depth of
/// one k block.
constexpr int64_t kBlockRows = 64, kBlockCols = 256, kBlockDepth = 256;
/// Rows of a cache block of a contraction with packed columns (see
/// packColumns; tuning().packedBlockRows: 256 with 1 MiB of L2 or more,
/// else 128) of at least 4 such blocks (else half as many, with 4
/// blocks of those), so that the threads still get several: its columns
/// block is contiguous, and more rows reuse it more
/// (1-2% on 1024x4160x1056 for 128 over 64 on an AMD EPYC; on an Intel
/// Xeon with 2 MiB of L2, 256 over 128: matmul 1024^3 from 134 to 141
/// GFLOPS, 1024x4096x1024 from 118 to 123). A block of 256 rows x 256 of
/// depth and its 256 x 256 of packed columns take 512 KiB.
/// Elementwise ops of at least this many elements run in parallel, in
/// about this many blocks.
constexpr int64_t kParallelElements = 1 << 15, kParallelBlocks = 8;
/// A gathered (im2col) conv gathers the columns of at most
/// tuning().gatherElements elements (half of the L2, up to 512 KiB of f32)
/// at a time, but of at least kGatherColumns output positions (or the whole
/// image), so its contraction keeps enough columns for the register tiles.
constexpr int64_t kGatherColumns = 256;
/// A strided conv is computed with its filters along the register tiles
/// (shiftedWindowFiltersInner) up to this many results (4 MiB of f32).
constexpr int64_t kPanelsElements = 1 << 20;
/// A 3x3 conv computed by Winograd's F(2x2, 3x3) (winogradConv) holds its
/// weights transformed at compile time from this many 2x2 output tiles
/// per image: its transformed weights are 16/9 of the weights, each
/// element used once per tile.
constexpr int64_t kWinogradTiles = 64;
/// From this many tiles, and below kWinogradTiles, a Winograd conv
/// transforms its weights on every call, into a buffer of the workspace:
/// held transformed, resnet18's 14x14 convs (49 tiles, 256 channels)
/// would add 5.5 MB to the model's 47 MB and take its peak memory over
/// eager PyTorch's. Transformed per call they take 1.26 ms instead of
/// 2.05 (1.1-1.2 with the weights held transformed), and the peak memory
/// stays (66.7 MiB). Not on resnet18's 7x7 images (16 tiles, 512
/// channels): no faster there (2.0-3.0 against 2.3-3.1 ms, in one
/// process, with the weights held transformed).
constexpr int64_t kWinogradRuntimeTiles = 36;
/// Rows of 2x2 tiles a Winograd conv transforms at a time: as many as
/// keep its transformed input and its products under
/// tuning().winogradElements elements each (the L2, up to 1 MiB of f32), at
/// least one.
/// A contraction's columns operand that is not a constant is packed in
/// panels (see packColumns) from this many elements (512 KiB of f32).
constexpr int64_t kPackElements = 1 << 17;

/// The largest multiple of `step` that divides `size` and is at most
/// `limit`; `size` itself when there is none.
int64_t blockSize(int64_t size, int64_t step, int64_t limit) {
  for (int64_t b = limit / step * step; b >= step; b -= step)
    if (size % b == 0)
      return b;
  return size;
}

SmallVector<OpFoldResult> indexAttrs(OpBuilder &b, ArrayRef<int64_t> sizes) {
  return llvm::map_to_vector(
      sizes, [&](int64_t s) -> OpFoldResult { return b.getIndexAttr(s); });
}

/// Tiles `op` with `sizes` (0: not tiled) into scf.for or scf.forall
/// loops and returns the tiled op; `op` itself when nothing is tiled.
FailureOr<linalg::LinalgOp> tile(RewriterBase &rewriter, linalg::LinalgOp op,
                                 ArrayRef<int64_t> sizes, bool forall) {
  if (llvm::all_of(sizes, [](int64_t s) { return s == 0; }))
    return op;
  scf::SCFTilingOptions options;
  options.setTileSizes(indexAttrs(rewriter, sizes));
  options.setLoopType(forall ? scf::SCFTilingOptions::LoopType::ForallOp
                             : scf::SCFTilingOptions::LoopType::ForOp);
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTilingResult> result = scf::tileUsingSCF(
      rewriter, cast<TilingInterface>(op.getOperation()), options);
  if (failed(result))
    return failure();
  rewriter.replaceOp(op, result->replacements);
  return cast<linalg::LinalgOp>(result->tiledOps.back());
}

/// Cuts `op`, all-parallel and of static shape, into about
/// kParallelBlocks blocks of its outermost dim of more than one, run in
/// parallel (scf.forall), when it has kParallelElements elements or more
/// and that dim is not its innermost; returns the op within the blocks, or
/// `op` itself when it is left whole.
FailureOr<linalg::LinalgOp> tileParallelBlocks(RewriterBase &rewriter,
                                               linalg::LinalgOp op) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t elements = 1;
  for (int64_t r : ranges)
    elements *= r;
  auto outer = llvm::find_if(ranges, [](int64_t r) { return r > 1; });
  if (elements < kParallelElements || outer == ranges.end() ||
      outer + 1 == ranges.end())
    return op;
  SmallVector<int64_t> blocks(ranges.size(), 0);
  blocks[outer - ranges.begin()] =
      llvm::divideCeil(*outer, std::min(*outer, kParallelBlocks));
  return tile(rewriter, op, blocks, true);
}

/// Splits `op` along loop `dim` at the last multiple of `step`, so the
/// first piece tiles exactly by `step`; returns the pieces.
SmallVector<linalg::LinalgOp> splitTail(RewriterBase &rewriter,
                                        linalg::LinalgOp op, unsigned dim,
                                        int64_t step) {
  int64_t size = op.getStaticLoopRanges()[dim];
  int64_t main = size / step * step;
  if (main == 0 || main == size)
    return {op};
  rewriter.setInsertionPoint(op);
  auto [head, tail] =
      linalg::splitOp(rewriter, cast<TilingInterface>(op.getOperation()), dim,
                      rewriter.getIndexAttr(main));
  SmallVector<linalg::LinalgOp> pieces;
  for (TilingInterface piece : {head, tail})
    if (piece)
      pieces.push_back(cast<linalg::LinalgOp>(piece.getOperation()));
  return pieces;
}

/// Replaces `op`, a tile of static shape, by its vector form.
LogicalResult vectorizeTile(RewriterBase &rewriter, linalg::LinalgOp op) {
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::VectorizationResult> vectorized =
      linalg::vectorize(rewriter, op);
  if (failed(vectorized))
    return failure();
  rewriter.replaceOp(op, vectorized->replacements);
  return success();
}

/// The body of a contraction's linalg.generic: acc + a * b.
void multiplyAccumulate(OpBuilder &b, Location loc, ValueRange args) {
  Value mul = arith::MulFOp::create(b, loc, args[0], args[1]);
  linalg::YieldOp::create(
      b, loc, arith::AddFOp::create(b, loc, args[2], mul).getResult());
}

bool isStaticF32(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics() || op.hasDynamicShape())
    return false;
  // An op over an empty tensor (a dim of 0) stays a linalg op: its loops
  // run zero times, where tiles of it would divide by zero.
  if (llvm::is_contained(op.getStaticLoopRanges(), 0))
    return false;
  return llvm::all_of(op->getOperandTypes(), [](Type t) {
    auto shaped = dyn_cast<ShapedType>(t);
    return !shaped ||
           (shaped.getElementType().isF32() &&
            (!shaped.hasRank() || !llvm::is_contained(shaped.getShape(), 0)));
  });
}

//===----------------------------------------------------------------------===//
// Constant operands
//===----------------------------------------------------------------------===//

/// The bytes of a constant tensor held as a resource blob or dense
/// elements (not a splat); empty when neither.
ArrayRef<char> constantBytes(Value v) {
  auto constant = v.getDefiningOp<arith::ConstantOp>();
  if (!constant)
    return {};
  return fx::getElementsData(constant.getValue());
}

/// `bytes` (a row-major rows x cols f32 matrix) transposed, as a constant:
/// cols x rows, or with `panel` (dividing rows) in panels of that many
/// rows, rows/panel x cols x panel, each panel contiguous. With
/// `panelColumns`, the columns are cut into panels instead (`panel`
/// dividing cols), with no transpose: cols/panel x rows x panel.
Value transposedConstant(RewriterBase &rewriter, Location loc,
                         ArrayRef<char> bytes, RankedTensorType type,
                         int64_t panel = 0, bool panelColumns = false) {
  int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
  // Each element's index along the dim cut into panels, and the other's.
  int64_t cut = panelColumns ? cols : rows, kept = panelColumns ? rows : cols;
  SmallVector<int64_t> shape = {kept, cut};
  if (panel != 0)
    shape = {cut / panel, kept, panel};
  else
    panel = cut;
  auto *from = reinterpret_cast<const float *>(bytes.data());
  std::vector<float> to(rows * cols);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      int64_t p = panelColumns ? c : r, q = panelColumns ? r : c;
      to[(p / panel * kept + q) * panel + p % panel] = from[r * cols + c];
    }
  auto blob = HeapAsmResourceBlob::allocateAndCopyWithAlign(
      ArrayRef<char>(reinterpret_cast<const char *>(to.data()),
                     to.size() * sizeof(float)),
      alignof(float));
  auto value = DenseResourceElementsAttr::get(
      RankedTensorType::get(shape, type.getElementType()), "transposed",
      std::move(blob));
  return arith::ConstantOp::create(rewriter, loc, value);
}

/// A contraction operand indexed (..., n, k), as linear's weight or the
/// keys of attention, is read transposed, indexed (..., k, n): the
/// register tiles then load rows of n. A 2-D constant is transposed here,
/// once; any other operand by a linalg.transpose before the contraction,
/// which costs one pass over it instead of a strided read per multiply.
void transposeOperands(RewriterBase &rewriter, linalg::GenericOp op,
                       unsigned nLoop, unsigned kLoop) {
  AffineExpr n = rewriter.getAffineDimExpr(nLoop);
  AffineExpr k = rewriter.getAffineDimExpr(kLoop);
  for (OpOperand *operand : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(operand);
    unsigned rank = map.getNumResults();
    if (rank < 2 || map.getResult(rank - 2) != n ||
        map.getResult(rank - 1) != k)
      continue;
    auto type = cast<RankedTensorType>(operand->get().getType());
    rewriter.setInsertionPoint(op);
    Value transposed;
    ArrayRef<char> bytes = constantBytes(operand->get());
    if (rank == 2 && bytes.size() == size_t(type.getNumElements()) * 4) {
      transposed = transposedConstant(rewriter, op.getLoc(), bytes, type);
    } else {
      SmallVector<int64_t> permutation =
          llvm::to_vector(llvm::seq<int64_t>(0, rank));
      std::swap(permutation[rank - 2], permutation[rank - 1]);
      SmallVector<int64_t> shape =
          applyPermutation(type.getShape(), permutation);
      Value empty = tensor::EmptyOp::create(rewriter, op.getLoc(), shape,
                                            type.getElementType());
      transposed =
          linalg::TransposeOp::create(rewriter, op.getLoc(), operand->get(),
                                      empty, permutation)
              .getResult()[0];
    }
    SmallVector<AffineExpr> exprs(map.getResults());
    std::swap(exprs[rank - 2], exprs[rank - 1]);
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    maps[operand->getOperandNumber()] =
        AffineMap::get(map.getNumDims(), 0, exprs, rewriter.getContext());
    rewriter.modifyOpInPlace(op, [&] {
      operand->set(transposed);
      op.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
    });
  }
}

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

/// The loops of a contraction the schedule works on: one m (rows of the
/// result), one n (columns) and one k. Every other loop (batch dims, more
/// m or n dims such as a conv's image index) is tiled by 1. `panel`, when
/// set, is the loop over the column panels of a packed contraction (see
/// packColumns), whose n loop covers one panel.
struct ContractionLoops {
  unsigned m, n, k;
  std::optional<unsigned> panel = std::nullopt;
};

/// Of `candidates`, the loop that indexes the innermost result dim.
unsigned innermost(ArrayRef<unsigned> candidates, AffineMap result) {
  unsigned best = candidates.front();
  int64_t bestPos = -1;
  for (unsigned d : candidates)
    if (std::optional<unsigned> pos =
            result.getResultPosition(getAffineDimExpr(d, result.getContext())))
      if (int64_t(*pos) > bestPos)
        best = d, bestPos = *pos;
  return best;
}

FailureOr<ContractionLoops> getContractionLoops(linalg::LinalgOp op) {
  if (!isStaticF32(op) || !linalg::isaContractionOpInterface(op) ||
      op.getNumDpsInits() != 1)
    return failure();
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->m.empty() || dims->n.empty() || dims->k.size() != 1)
    return failure();
  AffineMap result = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  return ContractionLoops{innermost(dims->m, result),
                          innermost(dims->n, result), dims->k[0]};
}

/// Tiles a contraction into a scf.forall over cache blocks of the result
/// (of `cols` columns, or every column when `cols` is 0) and an scf.for
/// over k blocks; returns the op of one k block.
FailureOr<linalg::LinalgOp> tileCacheBlocks(RewriterBase &rewriter,
                                            linalg::LinalgOp op,
                                            ContractionLoops loops,
                                            int64_t rows, int64_t cols) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  unsigned m = loops.m, n = loops.n, k = loops.k;
  SmallVector<int64_t> blocks(ranges.size(), 1), depth(ranges.size(), 0);
  // Reductions (k and a conv's window loops) stay out of the forall.
  SmallVector<unsigned> reductions;
  op.getReductionDims(reductions);
  for (unsigned d : reductions)
    blocks[d] = 0;
  // A packed contraction: the largest of tuning().packedBlockRows, its half and
  // kBlockRows that leaves 4 row blocks.
  int64_t blockRows = kBlockRows;
  if (loops.panel)
    for (int64_t r : {tuning().packedBlockRows, tuning().packedBlockRows / 2})
      if (ranges[m] >= 4 * r) {
        blockRows = r;
        break;
      }
  blocks[m] = blockSize(ranges[m], rows, std::max(blockRows, rows));
  blocks[n] = cols ? blockSize(ranges[n], cols, std::max(kBlockCols, cols)) : 0;
  // A packed contraction's block: kBlockCols columns of whole panels.
  if (loops.panel)
    blocks[*loops.panel] =
        blockSize(ranges[*loops.panel], 1, kBlockCols / ranges[n]);
  depth[k] = blockSize(ranges[k], 1, kBlockDepth);
  if (depth[k] == ranges[k])
    depth[k] = 0;
  FailureOr<linalg::LinalgOp> tiled = tile(rewriter, op, blocks, true);
  if (succeeded(tiled))
    tiled = tile(rewriter, *tiled, depth, false);
  return tiled;
}

/// Tiles an exactly-divisible piece of a contraction into register tiles
/// of `rows` x `cols` with k steps of 1, and vectorizes the tile.
LogicalResult tileRegisters(RewriterBase &rewriter, linalg::LinalgOp op,
                            ContractionLoops loops, int64_t rows,
                            int64_t cols) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<int64_t> registers(ranges.size(), 1);
  registers[loops.m] = rows;
  registers[loops.n] = cols;
  FailureOr<linalg::LinalgOp> tiled = tile(rewriter, op, registers, false);
  if (failed(tiled))
    return failure();
  // Loops of size 1 that would leave a unit dim inside the tile's vectors
  // are dropped. A shifted-window conv's tile reads its input at
  // p + i*W + j with the window loops i, j of size 1: without them it is a
  // plain contraction tile (k stays, even of size 1, so it vectorizes to a
  // contraction). So are the unit loops still read through an expression
  // once those are gone (a strided conv's row, y*sh). A packed
  // contraction's tile covers one panel.
  // Every reduction loop but k is of size 1 in a register tile and is
  // dropped, also when the maps are projected permutations: a reduction
  // loop that indexes one operand only (a unit window dim of a 1-D
  // adaptive pool's averaging) would otherwise reach vector.contract as a
  // reduction dim of the left operand alone, which its lowering computes
  // wrongly (garbage in every result).
  SmallVector<unsigned> unitLoops;
  SmallVector<unsigned> reductions;
  tiled->getReductionDims(reductions);
  unsigned numLoops = tiled->getNumLoops();
  SmallVector<AffineExpr> kept;
  for (unsigned d = 0; d < numLoops; ++d)
    kept.push_back(getAffineDimExpr(d, op.getContext()));
  for (unsigned d : reductions)
    if (d != loops.k) {
      unitLoops.push_back(d);
      kept[d] = getAffineConstantExpr(0, op.getContext());
    }
  if (!tiled->hasOnlyProjectedPermutations()) {
    llvm::SmallBitVector compound(numLoops);
    for (AffineMap map : tiled->getIndexingMapsArray())
      for (AffineExpr result :
           map.replaceDimsAndSymbols(kept, {}, numLoops, 0).getResults())
        if (!isa<AffineDimExpr, AffineConstantExpr>(result))
          result.walk([&](AffineExpr e) {
            if (auto d = dyn_cast<AffineDimExpr>(e))
              compound.set(d.getPosition());
          });
    for (unsigned d : compound.set_bits())
      if (d != loops.m && d != loops.n && d != loops.k)
        unitLoops.push_back(d);
  }
  if (loops.panel)
    unitLoops.push_back(*loops.panel);
  if (!unitLoops.empty()) {
    auto generic = dyn_cast<linalg::GenericOp>(tiled->getOperation());
    if (!generic)
      return failure();
    linalg::ControlDropUnitDims control;
    control.rankReductionStrategy =
        linalg::ControlDropUnitDims::RankReductionStrategy::ExtractInsertSlice;
    control.controlFn = [&](Operation *) { return unitLoops; };
    rewriter.setInsertionPoint(generic);
    FailureOr<linalg::DropUnitDimsResult> dropped =
        linalg::dropUnitDims(rewriter, generic, control);
    if (failed(dropped))
      return failure();
    rewriter.replaceOp(generic, dropped->replacements);
    tiled = cast<linalg::LinalgOp>(dropped->resultOp.getOperation());
  }
  return vectorizeTile(rewriter, *tiled);
}

/// The rows of a contraction's register tiles for `m` rows: 8, or 7 or 6
/// when those divide `m` and 8 does not (49 = 7 x 7); `m` when fewer.
int64_t registerRows(int64_t m) {
  if (m <= tuning().tileRows)
    return m;
  for (int64_t r = tuning().tileRows; r >= tuning().tileRows - 2; --r)
    if (m % r == 0)
      return r;
  return tuning().tileRows;
}

/// `op` split along n into whole register tiles of `cols` columns, the
/// columns left over in whole registers, and the last few columns.
SmallVector<linalg::LinalgOp> splitColumns(RewriterBase &rewriter,
                                           linalg::LinalgOp op, unsigned n,
                                           int64_t cols) {
  SmallVector<linalg::LinalgOp> split = splitTail(rewriter, op, n, cols);
  SmallVector<linalg::LinalgOp> pieces = {split.front()};
  if (split.size() == 2)
    llvm::append_range(pieces,
                       splitTail(rewriter, split.back(), n, tuning().lanes));
  return pieces;
}

LogicalResult scheduleElementwise(RewriterBase &rewriter, linalg::LinalgOp op);

/// A contraction's columns operand B (read (..., k, n) or (..., n, k), with
/// n the innermost dim of the result) packed in panels of tuning().panel
/// columns: the contraction is rewritten to read B as (..., N/tuning().panel,
/// K, tuning().panel), each panel contiguous, and to write its result through
/// the view
/// (..., N/tuning().panel, tuning().panel), with a loop over the panels just
/// outside the one over a panel's columns. A register tile then streams one
/// panel, where B's rows, tuning().panel columns read N floats apart, would
/// each touch another page and crowd the same cache sets. A constant B is
/// packed here, once. Any other B is packed by a copy before the contraction,
/// only when it is larger than half of L2 (kPackElements) and the
/// contraction has kBlockRows rows or more, so that the copy costs little
/// against the contraction it speeds up. Returns the new contraction and
/// its loops.
FailureOr<std::pair<linalg::LinalgOp, ContractionLoops>>
packColumns(RewriterBase &rewriter, linalg::LinalgOp op,
            ContractionLoops loops) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  unsigned m = loops.m, n = loops.n, k = loops.k;
  if (loops.panel || op.getNumDpsInputs() != 2 ||
      ranges[n] % tuning().panel != 0 || ranges[n] == tuning().panel ||
      ranges[m] < tuning().tileRows)
    return failure();
  MLIRContext *context = op.getContext();
  auto dim = [&](unsigned d) { return getAffineDimExpr(d, context); };
  OpOperand *b = nullptr;
  bool transposed = false;
  for (OpOperand *operand : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(operand);
    unsigned rank = map.getNumResults();
    if (rank < 2 || !map.isProjectedPermutation() ||
        map.getResultPosition(dim(m)))
      continue;
    if (map.getResult(rank - 2) == dim(k) && map.getResult(rank - 1) == dim(n))
      b = operand, transposed = false;
    else if (map.getResult(rank - 2) == dim(n) &&
             map.getResult(rank - 1) == dim(k))
      b = operand, transposed = true;
  }
  OpOperand *c = op.getDpsInitOperand(0);
  AffineMap cMap = op.getMatchingIndexingMap(c);
  if (!b || !cMap.isProjectedPermutation() ||
      cMap.getResult(cMap.getNumResults() - 1) != dim(n))
    return failure();
  for (OpOperand *operand : op.getDpsInputOperands())
    if (operand != b &&
        (!op.getMatchingIndexingMap(operand).isProjectedPermutation() ||
         op.getMatchingIndexingMap(operand).getResultPosition(dim(n))))
      return failure();
  auto bType = cast<RankedTensorType>(b->get().getType());
  ArrayRef<char> bytes = constantBytes(b->get());
  bool constant = bType.getRank() == 2 &&
                  bytes.size() == size_t(bType.getNumElements()) * 4;
  if (!constant &&
      (ranges[m] < kBlockRows || bType.getNumElements() < kPackElements))
    return failure();

  // The new loops: the panel loop at n, the columns of a panel at n + 1.
  unsigned numLoops = op.getNumLoops() + 1;
  auto moved = [&](unsigned d) { return dim(d < n ? d : d + 1); };
  auto remap = [&](AffineMap map) {
    SmallVector<AffineExpr> exprs;
    for (AffineExpr e : map.getResults()) {
      unsigned d = cast<AffineDimExpr>(e).getPosition();
      if (d == n)
        exprs.append({dim(n), dim(n + 1)});
      else
        exprs.push_back(moved(d));
    }
    return AffineMap::get(numLoops, 0, exprs, context);
  };
  Location loc = op.getLoc();
  Type f32 = bType.getElementType();
  int64_t columns = ranges[n];
  rewriter.setInsertionPoint(op);
  Value packed;
  linalg::TransposeOp copy;
  if (constant) {
    // B is N x K when transposed, else K x N.
    packed = transposedConstant(rewriter, loc, bytes, bType, tuning().panel,
                                /*panelColumns=*/!transposed);
  } else {
    // Split B's n dim into (N/tuning().panel, tuning().panel), then move K
    // between them.
    unsigned rank = bType.getRank(), nPos = transposed ? rank - 2 : rank - 1;
    SmallVector<int64_t> shape(bType.getShape());
    shape[nPos] = tuning().panel;
    shape.insert(shape.begin() + nPos, columns / tuning().panel);
    SmallVector<ReassociationIndices> groups;
    for (unsigned i = 0; i < rank; ++i)
      groups.push_back(i < nPos    ? ReassociationIndices{i}
                       : i == nPos ? ReassociationIndices{i, i + 1}
                                   : ReassociationIndices{i + 1});
    Value split = tensor::ExpandShapeOp::create(
        rewriter, loc, RankedTensorType::get(shape, f32), b->get(), groups);
    SmallVector<int64_t> permutation =
        llvm::to_vector(llvm::seq<int64_t>(0, rank + 1));
    if (transposed) // (..., N/tuning().panel, tuning().panel, K)
      std::swap(permutation[rank - 1], permutation[rank]);
    else // (..., K, N/tuning().panel, tuning().panel)
      std::swap(permutation[rank - 2], permutation[rank - 1]);
    Value empty = tensor::EmptyOp::create(
        rewriter, loc, applyPermutation(shape, permutation), f32);
    copy =
        linalg::TransposeOp::create(rewriter, loc, split, empty, permutation);
    packed = copy.getResult()[0];
  }
  AffineMap bMap = op.getMatchingIndexingMap(b);
  SmallVector<AffineExpr> bExprs;
  for (AffineExpr e : bMap.getResults().drop_back(2))
    bExprs.push_back(moved(cast<AffineDimExpr>(e).getPosition()));
  bExprs.append({dim(n), moved(k), dim(n + 1)});

  auto cType = cast<RankedTensorType>(c->get().getType());
  unsigned cRank = cType.getRank();
  SmallVector<int64_t> cShape(cType.getShape().drop_back());
  cShape.append({columns / tuning().panel, tuning().panel});
  SmallVector<ReassociationIndices> cGroups;
  for (unsigned i = 0; i + 1 < cRank; ++i)
    cGroups.push_back({i});
  cGroups.push_back({cRank - 1, cRank});
  Value init = tensor::ExpandShapeOp::create(
      rewriter, loc, RankedTensorType::get(cShape, f32), c->get(), cGroups);

  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  for (OpOperand *operand : op.getDpsInputOperands()) {
    inputs.push_back(operand == b ? packed : operand->get());
    maps.push_back(operand == b ? AffineMap::get(numLoops, 0, bExprs, context)
                                : remap(op.getMatchingIndexingMap(operand)));
  }
  maps.push_back(remap(cMap));
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  iterators.insert(iterators.begin() + n, utils::IteratorType::parallel);
  auto product =
      linalg::GenericOp::create(rewriter, loc, init.getType(), inputs, init,
                                maps, iterators, multiplyAccumulate);
  rewriter.replaceOp(op, tensor::CollapseShapeOp::create(
                             rewriter, loc, product.getResult(0), cGroups));
  if (copy && failed(scheduleElementwise(rewriter, copy)))
    (void)tileParallelBlocks(rewriter, copy);
  return std::pair<linalg::LinalgOp, ContractionLoops>{
      product,
      ContractionLoops{m < n ? m : m + 1, n + 1, k < n ? k : k + 1, n}};
}

/// Schedules a contraction with `loops`. A failure leaves the IR partly
/// rewritten: the pass fails.
LogicalResult scheduleContraction(RewriterBase &rewriter, linalg::LinalgOp op,
                                  ContractionLoops loops) {
  if (auto packed = packColumns(rewriter, op, loops); succeeded(packed)) {
    std::tie(op, loops) = *packed;
  } else if (!loops.panel) {
    // Many columns, not a multiple of a panel (a 1x1 conv on a 28x28
    // image: 784 = 24 x 32 + 16): the whole panels are one contraction,
    // packed, the rest another (resnet50's 1x1 convs on 28x28 went from
    // 0.76-0.86x to 0.96-0.98x of eager).
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    if (ranges[loops.n] > kBlockCols && ranges[loops.n] % tuning().panel != 0 &&
        ranges[loops.m] >= kBlockRows) {
      SmallVector<linalg::LinalgOp> pieces =
          splitTail(rewriter, op, loops.n, tuning().panel);
      if (pieces.size() == 2) {
        for (linalg::LinalgOp piece : pieces)
          if (failed(scheduleContraction(rewriter, piece, loops)))
            return failure();
        return success();
      }
    }
  }
  if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation()))
    transposeOperands(rewriter, generic, loops.n, loops.k);
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  // Enough accumulators to hide the FMA latency: 8x32 for matrices (see
  // registerRows), one row of 128 for a vector-matrix product.
  int64_t rows = registerRows(ranges[loops.m]);
  int64_t cols = rows >= 4 ? 2 * tuning().lanes : 8 * tuning().lanes;
  // Fewer columns: whole registers (28 = 16 + 12, not one tile of 28).
  if (ranges[loops.n] < cols)
    cols = ranges[loops.n] >= tuning().lanes
               ? ranges[loops.n] / tuning().lanes * tuning().lanes
               : ranges[loops.n];
  auto registers = [&](linalg::LinalgOp piece) {
    SmallVector<int64_t> sizes = piece.getStaticLoopRanges();
    return tileRegisters(rewriter, piece, loops, std::min(rows, sizes[loops.m]),
                         std::min(cols, sizes[loops.n]));
  };
  for (linalg::LinalgOp piece : splitTail(rewriter, op, loops.m, rows)) {
    int64_t width = piece.getStaticLoopRanges()[loops.n];
    int64_t pieceRows = std::min(rows, piece.getStaticLoopRanges()[loops.m]);
    if (width % cols != 0 && width <= kBlockCols) {
      // Few columns with a tail (resnet18's 7x7 images: 49 = 32 + 16 + 1):
      // the columns are split inside each cache block, so that every piece
      // reads the same block of the rows' operand (the conv's weights)
      // from the cache, where pieces split first would each stream all of
      // it from memory.
      FailureOr<linalg::LinalgOp> block =
          tileCacheBlocks(rewriter, piece, loops, pieceRows, 0);
      if (failed(block))
        return failure();
      for (linalg::LinalgOp part :
           splitColumns(rewriter, *block, loops.n, cols))
        if (failed(registers(part)))
          return failure();
      continue;
    }
    for (linalg::LinalgOp part : splitColumns(rewriter, piece, loops.n, cols)) {
      int64_t partCols = std::min(cols, part.getStaticLoopRanges()[loops.n]);
      FailureOr<linalg::LinalgOp> block =
          tileCacheBlocks(rewriter, part, loops, pieceRows, partCols);
      if (failed(block) || failed(registers(*block)))
        return failure();
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Convolutions
//===----------------------------------------------------------------------===//

/// `input` (N, C, H, W, static) zero-padded by `extraRows` more rows at
/// the bottom; when it is itself a zero tensor.pad of static amounts, one
/// pad of its source with both paddings.
Value padRowsBelow(RewriterBase &rewriter, Location loc, Value input,
                   int64_t extraRows) {
  auto inputType = cast<RankedTensorType>(input.getType());
  Type elem = inputType.getElementType();
  Value zero = arith::ConstantOp::create(rewriter, loc, elem,
                                         rewriter.getZeroAttr(elem));
  SmallVector<OpFoldResult> low = indexAttrs(rewriter, {0, 0, 0, 0});
  SmallVector<OpFoldResult> high = indexAttrs(rewriter, {0, 0, extraRows, 0});
  Value source = input;
  auto pad = input.getDefiningOp<tensor::PadOp>();
  if (pad && pad.getConstantPaddingValue() &&
      matchPattern(pad.getConstantPaddingValue(), m_AnyZeroFloat()) &&
      pad.getSourceType().hasStaticShape() &&
      !ShapedType::isDynamicShape(pad.getStaticLow()) &&
      !ShapedType::isDynamicShape(pad.getStaticHigh())) {
    source = pad.getSource();
    low = indexAttrs(rewriter, pad.getStaticLow());
    SmallVector<int64_t> highs(pad.getStaticHigh());
    highs[2] += extraRows;
    high = indexAttrs(rewriter, highs);
  }
  SmallVector<int64_t> shape(inputType.getShape());
  shape[2] += extraRows;
  return tensor::PadOp::create(rewriter, loc,
                               RankedTensorType::get(shape, elem), source, low,
                               high, zero);
}

/// The linalg.fill a conv's `init` is, directly or through a reshape (a
/// grouped conv's view of it); null when it is none (a broadcast bias).
linalg::FillOp fillOf(Value init) {
  if (auto expand = init.getDefiningOp<tensor::ExpandShapeOp>())
    init = expand.getSrc();
  return init.getDefiningOp<linalg::FillOp>();
}

/// The value a conv's result starts from: its init's fill value, else zero
/// (addInit then adds the init).
Value initFillValue(RewriterBase &rewriter, Location loc, Value init) {
  if (linalg::FillOp fill = fillOf(init))
    return fill.getInputs()[0];
  Type elem = cast<RankedTensorType>(init.getType()).getElementType();
  return arith::ConstantOp::create(rewriter, loc, elem,
                                   rewriter.getZeroAttr(elem));
}

/// `result` plus the conv's `init` when that is not a fill (a broadcast
/// bias), added elementwise: the fusion that follows merges the add with
/// the conv's consumers.
Value addInit(RewriterBase &rewriter, Location loc, Value init, Value result) {
  if (fillOf(init))
    return result;
  auto type = cast<RankedTensorType>(init.getType());
  unsigned rank = type.getRank();
  AffineMap identity =
      AffineMap::getMultiDimIdentityMap(rank, rewriter.getContext());
  Value empty = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                        type.getElementType());
  return linalg::GenericOp::create(
             rewriter, loc, TypeRange{type}, ValueRange{init, result},
             ValueRange{empty},
             ArrayRef<AffineMap>{identity, identity, identity},
             SmallVector<utils::IteratorType>(rank,
                                              utils::IteratorType::parallel),
             [](OpBuilder &b, Location loc, ValueRange args) {
               linalg::YieldOp::create(
                   b, loc,
                   arith::AddFOp::create(b, loc, args[0], args[1]).getResult());
             })
      .getResult(0);
}

/// Whether a conv (conv_2d_nchw_fchw or conv_2d_ngchw_gfchw) is better
/// computed by a shifted-window contraction (shiftedWindowConv,
/// groupedConv) than by im2col: stride 1 and a window wider than one, on
/// images wide enough that the extra columns it computes cost little (at
/// most 1/6 more).
template <typename ConvOp> bool preferShiftedWindow(ConvOp conv) {
  auto filterType = cast<RankedTensorType>(conv.getInputs()[1].getType());
  auto inputType = cast<RankedTensorType>(conv.getInputs()[0].getType());
  auto initType = cast<RankedTensorType>(conv.getOutputs()[0].getType());
  auto strides =
      llvm::to_vector(conv.getStrides().template getValues<int64_t>());
  ArrayRef<int64_t> window = filterType.getShape().take_back(2);
  int64_t width = inputType.getShape().back();
  int64_t ow = initType.getShape().back();
  return strides[0] == 1 && strides[1] == 1 && window[0] * window[1] > 1 &&
         6 * (width - ow) <= ow;
}

/// The rows a shifted-window conv's last positions read past the end of
/// its input of `width` columns, with a window `kw` wide of dilation `dw`:
/// (kw - 1) * dw elements, in whole rows.
int64_t rowsReadPastEnd(int64_t kw, int64_t dw, int64_t width) {
  return ((kw - 1) * dw + width - 1) / width;
}

/// A stride-1 conv_2d_nchw_fchw without any gather. With the input's rows
/// laid end to end (p = y*W + x, W its padded width), the window position
/// (i, j) shifts every output position by the same offset i*dh*W + j*dw:
///
///   ext[n, f, p] += w[f, c, i, j] * input[n, c, p + i*dh*W + j*dw]
///
/// computes the output at every p = oh*W + ow with ow < W; the columns
/// from OW on are thrown away. The input gets one more padded row at the
/// bottom (merged into its tensor.pad when it has one) so the thrown-away
/// columns of the last rows read inside it. The result is a contraction
/// over (c, i, j) whose loops (m = f, n = p, k = c) are returned for the
/// schedule: upstream's matcher does not recognize it, its input being
/// read through p + i*W + j.
std::pair<linalg::GenericOp, ContractionLoops>
shiftedWindowConv(RewriterBase &rewriter, linalg::Conv2DNchwFchwOp conv) {
  Location loc = conv.getLoc();
  MLIRContext *context = rewriter.getContext();
  Value input = conv.getInputs()[0], filter = conv.getInputs()[1];
  Value init = conv.getOutputs()[0];
  auto inputType = cast<RankedTensorType>(input.getType());
  auto filterType = cast<RankedTensorType>(filter.getType());
  auto initType = cast<RankedTensorType>(init.getType());
  Type elem = initType.getElementType();
  auto dilations = llvm::to_vector(conv.getDilations().getValues<int64_t>());
  int64_t batch = initType.getDimSize(0), filters = initType.getDimSize(1);
  int64_t oh = initType.getDimSize(2);
  int64_t width = inputType.getDimSize(3);
  int64_t kw = filterType.getDimSize(3);
  int64_t extraRows = rowsReadPastEnd(kw, dilations[1], width);
  rewriter.setInsertionPoint(conv);
  Value rows = tensor::CollapseShapeOp::create(
      rewriter, loc, padRowsBelow(rewriter, loc, input, extraRows),
      ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}});
  // ext[n, f, p]: zeros, or the init's values when the conv has a fill.
  Value fillValue = initFillValue(rewriter, loc, init);
  auto extType = RankedTensorType::get({batch, filters, oh * width}, elem);
  Value ext =
      linalg::FillOp::create(rewriter, loc, fillValue,
                             ValueRange{tensor::EmptyOp::create(
                                 rewriter, loc, extType.getShape(), elem)})
          .getResult(0);
  AffineExpr n, f, p, c, i, j;
  bindDims(context, n, f, p, c, i, j);
  SmallVector<AffineMap> maps = {
      AffineMap::get(6, 0, {f, c, i, j}, context),
      AffineMap::get(6, 0,
                     {n, c, p + i * (dilations[0] * width) + j * dilations[1]},
                     context),
      AffineMap::get(6, 0, {n, f, p}, context)};
  SmallVector<utils::IteratorType> iterators(3, utils::IteratorType::parallel);
  iterators.append(3, utils::IteratorType::reduction);
  auto product = linalg::GenericOp::create(
      rewriter, loc, TypeRange{extType}, ValueRange{filter, rows},
      ValueRange{ext}, maps, iterators, multiplyAccumulate);
  Value grid = tensor::ExpandShapeOp::create(
      rewriter, loc, RankedTensorType::get({batch, filters, oh, width}, elem),
      product.getResult(0), ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}});
  Value result = tensor::ExtractSliceOp::create(
      rewriter, loc, initType, grid, indexAttrs(rewriter, {0, 0, 0, 0}),
      indexAttrs(rewriter, initType.getShape()),
      indexAttrs(rewriter, {1, 1, 1, 1}));
  rewriter.replaceOp(conv, addInit(rewriter, loc, init, result));
  return {product, ContractionLoops{1, 2, 3}};
}

/// The number of output rows (of `width` positions, whose gathered
/// columns are `columnsPerRow` elements) to gather at a time: a divisor of
/// `rows`, the most whose columns fit tuning().gatherElements, or the fewest of
/// at least kGatherColumns positions when those are fewer.
int64_t gatherRows(int64_t columnsPerRow, int64_t width, int64_t rows) {
  int64_t best = 0;
  for (int64_t r = 1; r <= rows; ++r) {
    if (rows % r != 0)
      continue;
    if (r * columnsPerRow <= tuning().gatherElements ||
        best * width < kGatherColumns)
      best = r;
    else
      break;
  }
  return best;
}

void rewriteConvAsContraction(RewriterBase &rewriter,
                              linalg::Conv2DNchwFchwOp conv);

/// Replaces `conv` (a conv_2d_nchw_fchw or conv_2d_ngchw_gfchw) by an
/// scf.for over slices of its output along `dim` (0: images, the
/// second-to-last: rows), `outStep` at a time, each computed by a conv of
/// the input slice at `inStride` times the output offset, `inSize` long,
/// which `rewritePart` then rewrites as a contraction.
template <typename ConvOp, typename RewritePart>
void rewriteAsSliceLoop(RewriterBase &rewriter, ConvOp conv, unsigned dim,
                        int64_t outStep, int64_t inStride, int64_t inSize,
                        RewritePart rewritePart) {
  Location loc = conv.getLoc();
  Value input = conv.getInputs()[0], filter = conv.getInputs()[1];
  Value init = conv.getOutputs()[0];
  auto inputType = cast<RankedTensorType>(input.getType());
  auto initType = cast<RankedTensorType>(init.getType());
  rewriter.setInsertionPoint(conv);
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value step = arith::ConstantIndexOp::create(rewriter, loc, outStep);
  Value count =
      arith::ConstantIndexOp::create(rewriter, loc, initType.getDimSize(dim));
  auto loop =
      scf::ForOp::create(rewriter, loc, zero, count, step, ValueRange{init});
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(loop.getBody());
  Value offset = loop.getInductionVar();
  Value acc = loop.getRegionIterArgs()[0];
  unsigned rank = inputType.getRank();
  auto slice = [&](Value source, RankedTensorType type, OpFoldResult at,
                   int64_t size) {
    SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
    offsets[dim] = at;
    SmallVector<OpFoldResult> sizes = indexAttrs(rewriter, type.getShape());
    sizes[dim] = rewriter.getIndexAttr(size);
    return tensor::ExtractSliceOp::create(
        rewriter, loc, source, offsets, sizes,
        SmallVector<OpFoldResult>(rank, rewriter.getIndexAttr(1)));
  };
  Value inOffset = offset;
  if (inStride != 1)
    inOffset = arith::MulIOp::create(
        rewriter, loc, offset,
        arith::ConstantIndexOp::create(rewriter, loc, inStride));
  auto inputSlice = slice(input, inputType, inOffset, inSize);
  auto initSlice = slice(acc, initType, offset, outStep);
  auto part =
      ConvOp::create(rewriter, loc, TypeRange{initSlice.getType()},
                     ValueRange{inputSlice, filter}, ValueRange{initSlice},
                     conv.getStrides(), conv.getDilations());
  Value result = tensor::InsertSliceOp::create(
      rewriter, loc, part.getResult(0), acc, initSlice.getMixedOffsets(),
      initSlice.getMixedSizes(), initSlice.getMixedStrides());
  scf::YieldOp::create(rewriter, loc, result);
  rewritePart(part);
  rewriter.replaceOp(conv, loop.getResults());
}

/// The im2col columns of `conv`'s input, gathered without div/mod:
/// col[n, q, p] with q = (c, i, j) and p = (y, x), or col[n, p, q] when
/// `positionsFirst`, where col(n, c, i, j, y, x) = input[n, c, y*sh +
/// i*dh, x*sw + j*dw].
Value gatherColumns(RewriterBase &rewriter, linalg::Conv2DNchwFchwOp conv,
                    bool positionsFirst) {
  Location loc = conv.getLoc();
  MLIRContext *context = rewriter.getContext();
  Value input = conv.getInputs()[0];
  auto inputType = cast<RankedTensorType>(input.getType());
  auto filterType = cast<RankedTensorType>(conv.getInputs()[1].getType());
  auto initType = cast<RankedTensorType>(conv.getOutputs()[0].getType());
  auto strides = llvm::to_vector(conv.getStrides().getValues<int64_t>());
  auto dilations = llvm::to_vector(conv.getDilations().getValues<int64_t>());
  int64_t batch = inputType.getDimSize(0), channels = inputType.getDimSize(1);
  int64_t kh = filterType.getDimSize(2), kw = filterType.getDimSize(3);
  int64_t oh = initType.getDimSize(2), ow = initType.getDimSize(3);
  AffineExpr n, c, i, j, y, x;
  SmallVector<int64_t> shape;
  if (positionsFirst) {
    bindDims(context, n, y, x, c, i, j);
    shape = {batch, oh, ow, channels, kh, kw};
  } else {
    bindDims(context, n, c, i, j, y, x);
    shape = {batch, channels, kh, kw, oh, ow};
  }
  AffineMap read = AffineMap::get(6, 0,
                                  {n, c, y * strides[0] + i * dilations[0],
                                   x * strides[1] + j * dilations[1]},
                                  context);
  Value empty =
      tensor::EmptyOp::create(rewriter, loc, shape, inputType.getElementType());
  Value col6 =
      linalg::GenericOp::create(
          rewriter, loc, TypeRange{empty.getType()}, ValueRange{input},
          ValueRange{empty},
          ArrayRef<AffineMap>{read,
                              AffineMap::getMultiDimIdentityMap(6, context)},
          SmallVector<utils::IteratorType>(6, utils::IteratorType::parallel),
          [](OpBuilder &b, Location loc, ValueRange args) {
            linalg::YieldOp::create(b, loc, args[0]);
          })
          .getResult(0);
  SmallVector<ReassociationIndices> groups = {{0}, {1, 2, 3}, {4, 5}};
  if (positionsFirst)
    groups = {{0}, {1, 2}, {3, 4, 5}};
  return tensor::CollapseShapeOp::create(rewriter, loc, col6, groups);
}

/// `conv`'s constant weights `filterBytes`, [F, C, kh, kw], packed into
/// contiguous panels of tuning().panel filters: [F/tuning().panel, C*kh*kw,
/// tuning().panel].
Value packedWeights(RewriterBase &rewriter, linalg::Conv2DNchwFchwOp conv,
                    ArrayRef<char> filterBytes) {
  auto filterType = cast<RankedTensorType>(conv.getInputs()[1].getType());
  int64_t filters = filterType.getDimSize(0);
  return transposedConstant(
      rewriter, conv.getLoc(), filterBytes,
      RankedTensorType::get({filters, filterType.getNumElements() / filters},
                            filterType.getElementType()),
      tuning().panel);
}

/// The result of `conv` as filter panels, of `shape` ([n, F/tuning().panel,
/// ..., tuning().panel]), filled with the value of the conv's fill (zero when
/// its init is not a fill: replaceFromPanels adds that init).
Value filledPanels(RewriterBase &rewriter, linalg::Conv2DNchwFchwOp conv,
                   ArrayRef<int64_t> shape) {
  Location loc = conv.getLoc();
  Value init = conv.getOutputs()[0];
  Type elem = cast<RankedTensorType>(init.getType()).getElementType();
  Value fillValue = initFillValue(rewriter, loc, init);
  return linalg::FillOp::create(
             rewriter, loc, fillValue,
             ValueRange{tensor::EmptyOp::create(rewriter, loc, shape, elem)})
      .getResult(0);
}

/// Replaces `conv` by `product`, its result as filter panels,
/// outT[n, b, y, x, i] with f = 32*b + i, transposed back (plus the conv's
/// init unless that is a fill) by an op out[n, b, i, y, x] that the
/// schedule vectorizes (transposedLoop), its result viewed as [n, f, y, x].
/// The elementwise ops that consume the conv (a batch norm, a ReLU) fuse
/// into it: the view folds into them (readsTransposingView).
void replaceFromPanels(RewriterBase &rewriter, linalg::Conv2DNchwFchwOp conv,
                       Value product) {
  Location loc = conv.getLoc();
  MLIRContext *context = rewriter.getContext();
  Value init = conv.getOutputs()[0];
  auto initType = cast<RankedTensorType>(init.getType());
  Type elem = initType.getElementType();
  auto productType = cast<RankedTensorType>(product.getType());
  int64_t batch = productType.getDimSize(0), panels = productType.getDimSize(1);
  int64_t panel = productType.getDimSize(4);
  int64_t oh = initType.getDimSize(2), ow = initType.getDimSize(3);
  linalg::FillOp fill = fillOf(init);
  AffineExpr n, b, lane, y, x;
  // out[n, b, i, y, x] = outT[n, b, y, x, i] (+ init[n, b, i, y, x])
  bindDims(context, n, b, lane, y, x);
  AffineMap identity = AffineMap::getMultiDimIdentityMap(5, context);
  auto outType = RankedTensorType::get({batch, panels, panel, oh, ow}, elem);
  SmallVector<Value> ins = {product};
  SmallVector<AffineMap> maps = {
      AffineMap::get(5, 0, {n, b, y, x, lane}, context)};
  if (!fill) {
    ins.push_back(tensor::ExpandShapeOp::create(
        rewriter, loc, outType, init,
        ArrayRef<ReassociationIndices>{{0}, {1, 2}, {3}, {4}}));
    maps.push_back(identity);
  }
  maps.push_back(identity);
  Value out =
      linalg::GenericOp::create(
          rewriter, loc, TypeRange{outType}, ins,
          ValueRange{
              tensor::EmptyOp::create(rewriter, loc, outType.getShape(), elem)},
          maps,
          SmallVector<utils::IteratorType>(5, utils::IteratorType::parallel),
          [](OpBuilder &b, Location loc, ValueRange args) {
            Value v = args[0];
            if (args.size() == 3)
              v = arith::AddFOp::create(b, loc, v, args[1]);
            linalg::YieldOp::create(b, loc, v);
          })
          .getResult(0);
  rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(
      conv, initType, out,
      ArrayRef<ReassociationIndices>{{0}, {1, 2}, {3}, {4}});
}

/// A gathered conv whose output positions are few and end in a partial
/// register tile (a 7x7 image: 49 = 32 + 16 + 1) while its filters fill
/// whole ones, as the transposed contraction
///
///   outT[n, b, p, i] += col[n, p, q] * packed[b, q, i]
///
/// over filter panels f = 32*b + i and q = c*kh*kw, with the columns
/// gathered position-major and the constant weights `filterBytes` packed
/// at compile time into contiguous q x 32 panels. Its register tiles run
/// along the filters, all whole (7 positions x 32 filters for a 7x7
/// image), where filters x positions leaves 16- and 1-column pieces, the
/// last of them scalar; a panel is read contiguously where the transposed
/// weights' rows lie a whole row of filters apart. The result is
/// transposed back, with the init added unless it is a fill, by an
/// elementwise op that fuses with the conv's consumers.
void rewriteConvFiltersInner(RewriterBase &rewriter,
                             linalg::Conv2DNchwFchwOp conv,
                             ArrayRef<char> filterBytes) {
  Location loc = conv.getLoc();
  MLIRContext *context = rewriter.getContext();
  auto initType = cast<RankedTensorType>(conv.getOutputs()[0].getType());
  int64_t batch = initType.getDimSize(0), filters = initType.getDimSize(1);
  int64_t positions = initType.getDimSize(2) * initType.getDimSize(3);
  rewriter.setInsertionPoint(conv);
  Value col = gatherColumns(rewriter, conv, /*positionsFirst=*/true);
  Value weights = packedWeights(rewriter, conv, filterBytes);
  Value outT = filledPanels(
      rewriter, conv,
      {batch, filters / tuning().panel, positions, tuning().panel});
  // outT[n, b, p, i] += col[n, p, q] * weights[b, q, i]
  AffineExpr n, b, p, lane, q;
  bindDims(context, n, b, p, lane, q);
  SmallVector<utils::IteratorType> iterators(4, utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  Value product =
      linalg::GenericOp::create(
          rewriter, loc, TypeRange{outT.getType()}, ValueRange{col, weights},
          ValueRange{outT},
          ArrayRef<AffineMap>{AffineMap::get(5, 0, {n, p, q}, context),
                              AffineMap::get(5, 0, {b, q, lane}, context),
                              AffineMap::get(5, 0, {n, b, p, lane}, context)},
          iterators, multiplyAccumulate)
          .getResult(0);
  replaceFromPanels(
      rewriter, conv,
      tensor::ExpandShapeOp::create(
          rewriter, loc,
          RankedTensorType::get({batch, filters / tuning().panel,
                                 initType.getDimSize(2), initType.getDimSize(3),
                                 tuning().panel},
                                initType.getElementType()),
          product, ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}, {4}}));
}

/// The register rows of a conv computed by shiftedWindowFiltersInner: a
/// divisor of its output width ow from 8 down to 6 (14 = 2 x 7), or ow
/// itself when that is at most 8; 0 when it has none, or its weights are
/// not a constant, or its filters do not fill whole panels, or it has
/// both a stride and a dilation along the width.
int64_t filtersInnerRows(linalg::Conv2DNchwFchwOp conv,
                         ArrayRef<char> filterBytes) {
  auto filterType = cast<RankedTensorType>(conv.getInputs()[1].getType());
  auto initType = cast<RankedTensorType>(conv.getOutputs()[0].getType());
  auto strides = llvm::to_vector(conv.getStrides().getValues<int64_t>());
  auto dilations = llvm::to_vector(conv.getDilations().getValues<int64_t>());
  int64_t ow = initType.getDimSize(3);
  if ((strides[1] != 1 && dilations[1] != 1) ||
      filterType.getDimSize(0) % tuning().panel != 0 ||
      filterBytes.size() != size_t(filterType.getNumElements()) * 4)
    return 0;
  int64_t rows = registerRows(ow);
  return ow % rows == 0 ? rows : 0;
}

/// Whether a conv is better computed by shiftedWindowFiltersInner: one it
/// can compute (filtersInnerRows) that is strided, or for which
/// shiftedWindowConv would throw away at least 1/14 of its columns (2 of
/// 30 on a 28x28 image, 2 of 16 on 14x14: 2.22 to 2.13 and 2.33 to 2.06
/// ms for resnet18's 3x3 convs, where on 56x56 it would lose, 2.17
/// against 2.21), or whose positions are few and end in a partial register
/// tile (a 7x7 image, 2.36 to 2.14 ms against the gathered
/// rewriteConvFiltersInner).
bool preferFiltersInner(linalg::Conv2DNchwFchwOp conv,
                        ArrayRef<char> filterBytes) {
  if (filtersInnerRows(conv, filterBytes) == 0)
    return false;
  auto inputType = cast<RankedTensorType>(conv.getInputs()[0].getType());
  auto initType = cast<RankedTensorType>(conv.getOutputs()[0].getType());
  int64_t width = inputType.getDimSize(3), ow = initType.getDimSize(3);
  int64_t positions = initType.getDimSize(2) * ow;
  auto strides = llvm::to_vector(conv.getStrides().getValues<int64_t>());
  // Strided: against the gather (resnet18's stride-2 3x3 convs, 1.22-1.25
  // to 1.03-1.08 ms; its first 7x7 conv 2.6-2.9 to 2.4 ms at 1 thread,
  // 1.85-1.95 to 1.25 at 2), unless its result is too large to stay in
  // the cache between the contraction and the transpose back, where the
  // gather works one image and a few rows at a time (that first conv at
  // batch 8: 26 MB).
  if (strides[0] != 1 || strides[1] != 1)
    return initType.getNumElements() <= kPanelsElements;
  return 14 * (width - ow) >= ow ||
         (positions % (2 * tuning().lanes) != 0 && positions <= kBlockRows);
}

/// A conv with constant weights as the contraction
///
///   outT[n, b, y, x, i] += input[n, c, y*sh + a*dh, x + e*dw]
///                          * packed[b, c, a, e, i]
///
/// over (c, a, e), with filter f = 32*b + i: the weights are packed at
/// compile time into contiguous panels of 32 filters, and the input (its
/// padding included) is read in place, with no gather. Its register tiles
/// are `rows` positions of one output row (a divisor of the width: 2 x 7
/// for a 14x14 image) by 32 filters, the positions broadcast from the
/// input row and the filters loaded from the panel: none of them computes
/// a column that is thrown away, where shiftedWindowConv computes the
/// padded width (16 columns for 14).
///
/// With a stride sw > 1 along the width (dw = 1), the window's columns
/// e = sw*t + r are cut by phase r: phase r reads the input's columns r,
/// r + sw, ... (a strided slice, no copy) at x + t, which keeps every read
/// of a register tile's positions a plain row of that slice, and gets its
/// own contraction over (c, a, t), accumulating into the previous phase's
/// result. The stride along the height needs nothing: a register tile
/// covers one output row.
///
/// The result is transposed back by replaceFromPanels. Returns the
/// contractions and their loops (m = x, n = i, k = c) for the schedule.
SmallVector<std::pair<linalg::GenericOp, ContractionLoops>>
shiftedWindowFiltersInner(RewriterBase &rewriter, linalg::Conv2DNchwFchwOp conv,
                          ArrayRef<char> filterBytes) {
  Location loc = conv.getLoc();
  MLIRContext *context = rewriter.getContext();
  Value input = conv.getInputs()[0];
  auto inputType = cast<RankedTensorType>(input.getType());
  auto filterType = cast<RankedTensorType>(conv.getInputs()[1].getType());
  auto initType = cast<RankedTensorType>(conv.getOutputs()[0].getType());
  Type elem = initType.getElementType();
  auto strides = llvm::to_vector(conv.getStrides().getValues<int64_t>());
  auto dilations = llvm::to_vector(conv.getDilations().getValues<int64_t>());
  int64_t batch = initType.getDimSize(0), filters = initType.getDimSize(1);
  int64_t oh = initType.getDimSize(2), ow = initType.getDimSize(3);
  int64_t channels = filterType.getDimSize(1);
  int64_t kh = filterType.getDimSize(2), kw = filterType.getDimSize(3);
  int64_t panels = filters / tuning().panel, sw = strides[1];
  rewriter.setInsertionPoint(conv);
  Value acc =
      filledPanels(rewriter, conv, {batch, panels, oh, ow, tuning().panel});
  AffineExpr n, b, y, x, lane, c, a, e;
  bindDims(context, n, b, y, x, lane, c, a, e);
  SmallVector<utils::IteratorType> iterators(5, utils::IteratorType::parallel);
  iterators.append(3, utils::IteratorType::reduction);
  auto *from = reinterpret_cast<const float *>(filterBytes.data());
  SmallVector<std::pair<linalg::GenericOp, ContractionLoops>> products;
  for (int64_t phase = 0; phase < std::min(sw, kw); ++phase) {
    // This phase's window columns e = sw*t + phase, and its input columns.
    int64_t taps = (kw - phase + sw - 1) / sw;
    Value in = input;
    ArrayRef<char> bytes = filterBytes;
    std::vector<float> selected;
    if (sw != 1) {
      int64_t width = inputType.getDimSize(3);
      SmallVector<int64_t> sizes(inputType.getShape());
      sizes[3] = (width - phase + sw - 1) / sw;
      in = tensor::ExtractSliceOp::create(
          rewriter, loc, input, indexAttrs(rewriter, {0, 0, 0, phase}),
          indexAttrs(rewriter, sizes), indexAttrs(rewriter, {1, 1, 1, sw}));
      for (int64_t row = 0; row < filters * channels * kh; ++row)
        for (int64_t t = 0; t < taps; ++t)
          selected.push_back(from[row * kw + sw * t + phase]);
      bytes = ArrayRef<char>(reinterpret_cast<const char *>(selected.data()),
                             selected.size() * sizeof(float));
    }
    Value weights = tensor::ExpandShapeOp::create(
        rewriter, loc,
        RankedTensorType::get({panels, channels, kh, taps, tuning().panel},
                              elem),
        transposedConstant(
            rewriter, loc, bytes,
            RankedTensorType::get({filters, channels * kh * taps}, elem),
            tuning().panel),
        ArrayRef<ReassociationIndices>{{0}, {1, 2, 3}, {4}});
    auto product = linalg::GenericOp::create(
        rewriter, loc, TypeRange{acc.getType()}, ValueRange{in, weights},
        ValueRange{acc},
        ArrayRef<AffineMap>{
            AffineMap::get(8, 0,
                           {n, c, y * strides[0] + a * dilations[0],
                            x + e * (sw == 1 ? dilations[1] : 1)},
                           context),
            AffineMap::get(8, 0, {b, c, a, e, lane}, context),
            AffineMap::get(8, 0, {n, b, y, x, lane}, context)},
        iterators, multiplyAccumulate);
    products.push_back({product, ContractionLoops{3, 4, 5}});
    acc = product.getResult(0);
  }
  replaceFromPanels(rewriter, conv, acc);
  return products;
}

/// The tiles of 2x2 a conv computes per image under Winograd.
int64_t winogradTiles(linalg::Conv2DNchwFchwOp conv) {
  auto initType = cast<RankedTensorType>(conv.getOutputs()[0].getType());
  return ((initType.getDimSize(2) + 1) / 2) *
         ((initType.getDimSize(3) + 1) / 2);
}

/// Whether a conv is computed by winogradConv: a 3x3 conv of stride and
/// dilation 1 with constant weights, filters in whole panels, at least 16
/// channels, and at least kWinogradRuntimeTiles tiles of 2x2 per image (an
/// odd output is padded to whole tiles), so that the batched contraction
/// keeps enough rows for its register tiles.
bool preferWinograd(linalg::Conv2DNchwFchwOp conv, ArrayRef<char> filterBytes) {
  auto filterType = cast<RankedTensorType>(conv.getInputs()[1].getType());
  auto strides = llvm::to_vector(conv.getStrides().getValues<int64_t>());
  auto dilations = llvm::to_vector(conv.getDilations().getValues<int64_t>());
  return filterType.getDimSize(2) == 3 && filterType.getDimSize(3) == 3 &&
         llvm::all_equal({strides[0], strides[1], dilations[0], dilations[1],
                          int64_t(1)}) &&
         filterType.getDimSize(0) % tuning().panel == 0 &&
         filterType.getDimSize(1) >= tuning().lanes &&
         filterBytes.size() == size_t(filterType.getNumElements()) * 4 &&
         winogradTiles(conv) >= kWinogradRuntimeTiles;
}

/// A 3x3 conv as Winograd's F(2x2, 3x3): each 2x2 tile of the output
/// comes from the 4x4 tile of the input that covers its windows, through
///
///   V = Bt d B,   M = U . V (per position p of the 4x4 tile),   Y = At M A
///
/// with the weights transformed U = G g Gt: once, at compile time, from
/// kWinogradTiles tiles per image; else on every call (kWinogradRuntimeTiles
/// and more), so that the transformed weights (16/9 of the weights) take
/// no memory beyond the call. The
/// 16 products M[p] = sum_c V[p][c] U[p][c] are one contraction over the
/// channels, batched over p, with 2.25 times fewer multiplies than the
/// conv's 9 per output. Its ops:
///
/// - the input transform, V[p, n, c, ty, tx] from the 16 strided slices
///   d[i][j] = input[n, c, 2*ty + i, 2*tx + j] (the padding included;
///   for an odd output, one more row or column of zeros), additions only,
///   in an scf.forall over (n, c) of vectors along tx;
/// - the contraction, with filter panels along its register tiles as
///   shiftedWindowFiltersInner's: M[p, n, b, t, i] += V[p, n, c, t] *
///   U[p, b, c, i] over t = ty*TW + tx and f = 32*b + i, U packed in panels
///   at compile time;
/// - the output transform, the conv's output as filter panels
///   [n, b, ty, u, tx, v, i] = [n, b, y, x, i] (plus the conv's fill
///   value), in an scf.forall over (n, b, ty) of vectors along i, which
///   replaceFromPanels transposes back (an odd output's last row or
///   column of tiles cut off by an extract_slice).
///
/// The transforms are vector code written here rather than linalg ops:
/// each computes 16 or 4 values of the same tile at once, which as a
/// linalg op would be as many results, each of its own buffer.
///
/// Returns the contraction and its loops (m = t, n = i, k = c).
std::pair<linalg::GenericOp, ContractionLoops>
winogradConv(RewriterBase &rewriter, linalg::Conv2DNchwFchwOp conv,
             ArrayRef<char> filterBytes) {
  Location loc = conv.getLoc();
  MLIRContext *context = rewriter.getContext();
  Value input = conv.getInputs()[0];
  Value init = conv.getOutputs()[0];
  auto filterType = cast<RankedTensorType>(conv.getInputs()[1].getType());
  auto initType = cast<RankedTensorType>(init.getType());
  Type elem = initType.getElementType();
  int64_t batch = initType.getDimSize(0), filters = initType.getDimSize(1);
  int64_t channels = filterType.getDimSize(1);
  int64_t oh = initType.getDimSize(2), ow = initType.getDimSize(3);
  int64_t th = (oh + 1) / 2, tw = (ow + 1) / 2;
  int64_t panels = filters / tuning().panel;
  rewriter.setInsertionPoint(conv);
  Value zero = arith::ConstantOp::create(rewriter, loc, elem,
                                         rewriter.getZeroAttr(elem));
  // An odd output gets one more row or column of tiles, read from one
  // more row or column of zeros, and thrown away.
  if (oh % 2 != 0 || ow % 2 != 0)
    input = tensor::createPadHighOp(
        RankedTensorType::get({batch, channels, 2 * th + 2, 2 * tw + 2}, elem),
        input, zero, /*nofold=*/false, loc, rewriter);
  auto index = [&](int64_t i) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, i);
  };
  // An scf.forall over `dims` whose body writes `block`, the slice of
  // `result` at the loop's indices (sizes 1) and 0 (whole dims), through
  // `body(indices, block)`; the forall's result.
  auto blocks = [&](Value result, ArrayRef<int64_t> dims, int64_t outer,
                    function_ref<Value(ValueRange, Value)> body) {
    auto type = cast<RankedTensorType>(result.getType());
    auto forall =
        scf::ForallOp::create(rewriter, loc, indexAttrs(rewriter, dims),
                              ValueRange{result}, std::nullopt);
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(forall.getBody());
    SmallVector<OpFoldResult> offsets(type.getRank(), rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> sizes = indexAttrs(rewriter, type.getShape());
    for (auto [d, iv] : llvm::enumerate(forall.getInductionVars())) {
      offsets[outer + d] = iv;
      sizes[outer + d] = rewriter.getIndexAttr(1);
    }
    SmallVector<OpFoldResult> ones(type.getRank(), rewriter.getIndexAttr(1));
    Value whole = forall.getRegionIterArgs()[0];
    Value block = tensor::ExtractSliceOp::create(rewriter, loc, whole, offsets,
                                                 sizes, ones);
    Value written = body(forall.getInductionVars(), block);
    rewriter.setInsertionPointToStart(forall.getTerminator().getBody());
    tensor::ParallelInsertSliceOp::create(rewriter, loc, written, whole,
                                          offsets, sizes, ones);
    return forall.getResult(0);
  };
  // An scf.for from 0 to `count` by `step` carrying `value`, its body
  // `body(iv, value)`; the loop's result.
  auto loop = [&](int64_t count, int64_t step, Value value,
                  function_ref<Value(Value, Value)> body) {
    auto op = scf::ForOp::create(rewriter, loc, index(0), index(count),
                                 index(step), ValueRange{value});
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(op.getBody());
    scf::YieldOp::create(rewriter, loc,
                         body(op.getInductionVar(), op.getRegionIterArgs()[0]));
    return op.getResult(0);
  };
  auto read = [&](Value from, ValueRange indices, int64_t width) -> Value {
    return vector::TransferReadOp::create(rewriter, loc,
                                          VectorType::get({width}, elem), from,
                                          indices, zero, ArrayRef<bool>{true});
  };
  auto write = [&](Value v, Value into, ValueRange indices) -> Value {
    return vector::TransferWriteOp::create(rewriter, loc, v, into, indices,
                                           ArrayRef<bool>{true})
        .getResult();
  };

  // U = G g Gt with G = [1 0 0; 1/2 1/2 1/2; 1/2 -1/2 1/2; 0 0 1], in
  // panels: U[p, b, c, i]. Transformed here, at compile time, from
  // kWinogradTiles tiles; else on every call, from the weights in panels
  // (packedWeights) g[b, c, r*3 + s, i], by vector code over (b, c).
  Value weights;
  if (winogradTiles(conv) >= kWinogradTiles) {
    const double g[4][3] = {
        {1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
    auto *w = reinterpret_cast<const float *>(filterBytes.data());
    int64_t perPosition = filters * channels;
    std::vector<float> u(16 * perPosition);
    for (int64_t f = 0; f < filters; ++f)
      for (int64_t c = 0; c < channels; ++c) {
        const float *k = w + (f * channels + c) * 9;
        int64_t packed = (f / tuning().panel * channels + c) * tuning().panel +
                         f % tuning().panel;
        for (int64_t a = 0; a < 4; ++a)
          for (int64_t e = 0; e < 4; ++e) {
            double sum = 0;
            for (int64_t r = 0; r < 3; ++r)
              for (int64_t s = 0; s < 3; ++s)
                sum += g[a][r] * k[r * 3 + s] * g[e][s];
            u[(a * 4 + e) * perPosition + packed] = float(sum);
          }
      }
    auto blob = HeapAsmResourceBlob::allocateAndCopyWithAlign(
        ArrayRef<char>(reinterpret_cast<const char *>(u.data()),
                       u.size() * sizeof(float)),
        alignof(float));
    weights = arith::ConstantOp::create(
        rewriter, loc,
        DenseResourceElementsAttr::get(
            RankedTensorType::get({16, panels, channels, tuning().panel}, elem),
            "winograd", std::move(blob)));
  } else {
    Value half = arith::ConstantOp::create(
        rewriter, loc,
        DenseElementsAttr::get(VectorType::get({tuning().panel}, elem),
                               rewriter.getFloatAttr(elem, 0.5)));
    // G applied to three vectors: s0, (s0 + s1 + s2)/2, (s0 - s1 + s2)/2,
    // s2.
    auto gt = [&](ArrayRef<Value> s) {
      Value outer = arith::AddFOp::create(rewriter, loc, s[0], s[2]);
      return SmallVector<Value>{
          s[0],
          arith::MulFOp::create(
              rewriter, loc, arith::AddFOp::create(rewriter, loc, outer, s[1]),
              half),
          arith::MulFOp::create(
              rewriter, loc, arith::SubFOp::create(rewriter, loc, outer, s[1]),
              half),
          s[2]};
    };
    Value panelsOfG = tensor::ExpandShapeOp::create(
        rewriter, loc,
        RankedTensorType::get({panels, channels, 9, tuning().panel}, elem),
        packedWeights(rewriter, conv, filterBytes),
        ArrayRef<ReassociationIndices>{{0}, {1, 2}, {3}});
    weights = blocks(
        tensor::EmptyOp::create(
            rewriter, loc,
            ArrayRef<int64_t>{16, panels, channels, tuning().panel}, elem),
        {panels, channels}, 1, [&](ValueRange bc, Value block) {
          SmallVector<SmallVector<Value>> columns;
          for (int64_t s = 0; s < 3; ++s) {
            SmallVector<Value> column;
            for (int64_t r = 0; r < 3; ++r)
              column.push_back(read(panelsOfG,
                                    {bc[0], bc[1], index(r * 3 + s), index(0)},
                                    tuning().panel));
            columns.push_back(gt(column));
          }
          for (int64_t a = 0; a < 4; ++a) {
            SmallVector<Value> row =
                gt({columns[0][a], columns[1][a], columns[2][a]});
            for (int64_t e = 0; e < 4; ++e)
              block = write(row[e], block,
                            {index(a * 4 + e), index(0), index(0), index(0)});
          }
          return block;
        });
  }

  // The output transform, At M A with At = [1 1 1 0; 0 1 -1 -1]: its
  // columns, then its rows, on vectors of a panel's 32 filters.
  auto fill = init.getDefiningOp<linalg::FillOp>();
  Value bias = fill && !matchPattern(fill.getInputs()[0], m_AnyZeroFloat())
                   ? vector::BroadcastOp::create(
                         rewriter, loc, VectorType::get({tuning().panel}, elem),
                         fill.getInputs()[0])
                         .getResult()
                   : Value();
  auto at = [&](ArrayRef<Value> s) {
    return SmallVector<Value>{
        arith::AddFOp::create(rewriter, loc,
                              arith::AddFOp::create(rewriter, loc, s[0], s[1]),
                              s[2]),
        arith::SubFOp::create(rewriter, loc,
                              arith::SubFOp::create(rewriter, loc, s[1], s[2]),
                              s[3])};
  };
  // Row blocks of tiles: the transformed input and the products of one
  // block (up to tuning().winogradElements each) stay in the cache from the
  // transform that writes them to the op that reads them. But a block
  // streams all the transformed weights (16 C F elements) from memory
  // when they exceed the cache: it takes at least one tile
  // per tuning().winogradElements of them (FCN's head, 2048 -> 512 channels on
  // 28x28, from one row of 14 tiles to 98: 154 -> 75 ms, eager 117; 512
  // channels on 14x14 from 7 tiles to 49: 7.7 -> 6.8 ms).
  int64_t perRow = 16 * batch * std::max(channels, filters) * tw;
  int64_t minTiles = 16 * channels * filters / tuning().winogradElements;
  int64_t rows = 1;
  for (int64_t r = th; r >= 1; --r)
    if (th % r == 0 && r * perRow <= tuning().winogradElements) {
      rows = r;
      break;
    }
  for (int64_t r = rows; r <= th && rows * tw * batch < minTiles; ++r)
    if (th % r == 0)
      rows = r;
  linalg::GenericOp product;
  Value allTiles = loop(
      th, rows,
      tensor::EmptyOp::create(
          rewriter, loc,
          ArrayRef<int64_t>{batch, panels, th, 2, tw, 2, tuning().panel}, elem),
      [&](Value ty0, Value tiles) -> Value {
        // The input transform, Bt d B with Bt = [1 0 -1 0; 0 1 1 0; 0 -1 1 0;
        // 0 1 0 -1]: its columns, then its rows, on vectors of (up to 64) tx.
        SmallVector<Value> d;
        Value top = arith::MulIOp::create(rewriter, loc, ty0, index(2));
        for (int64_t i = 0; i < 4; ++i) {
          Value row = i == 0
                          ? top
                          : arith::AddIOp::create(rewriter, loc, top, index(i));
          for (int64_t j = 0; j < 4; ++j) {
            SmallVector<OpFoldResult> offsets =
                indexAttrs(rewriter, {0, 0, i, j});
            offsets[2] = row;
            d.push_back(tensor::ExtractSliceOp::create(
                rewriter, loc, input, offsets,
                indexAttrs(rewriter, {batch, channels, rows, tw}),
                indexAttrs(rewriter, {1, 1, 2, 2})));
          }
        }
        auto bt = [&](ArrayRef<Value> s) {
          return SmallVector<Value>{
              arith::SubFOp::create(rewriter, loc, s[0], s[2]),
              arith::AddFOp::create(rewriter, loc, s[1], s[2]),
              arith::SubFOp::create(rewriter, loc, s[2], s[1]),
              arith::SubFOp::create(rewriter, loc, s[1], s[3])};
        };
        // The transform of `width` tiles of row ty from column x on.
        auto transform = [&](ValueRange nc, Value ty, Value x, int64_t width,
                             Value acc) {
          SmallVector<Value> at = {nc[0], nc[1], ty, x};
          SmallVector<SmallVector<Value>> columns;
          for (int64_t j = 0; j < 4; ++j)
            columns.push_back(
                bt({read(d[j], at, width), read(d[4 + j], at, width),
                    read(d[8 + j], at, width), read(d[12 + j], at, width)}));
          for (int64_t a = 0; a < 4; ++a) {
            SmallVector<Value> row = bt(
                {columns[0][a], columns[1][a], columns[2][a], columns[3][a]});
            for (int64_t e = 0; e < 4; ++e)
              acc = write(row[e], acc,
                          {index(a * 4 + e), index(0), index(0), ty, x});
          }
          return acc;
        };
        // A row of up to 64 tiles at once, a longer one 16 at a time.
        int64_t chunk = tw <= 4 * tuning().lanes ? tw : tuning().lanes;
        int64_t whole = tw / chunk * chunk;
        Value v =
            blocks(tensor::EmptyOp::create(
                       rewriter, loc,
                       ArrayRef<int64_t>{16, batch, channels, rows, tw}, elem),
                   {batch, channels}, 1, [&](ValueRange nc, Value block) {
                     return loop(rows, 1, block, [&](Value ty, Value acc) {
                       if (whole == chunk)
                         acc = transform(nc, ty, index(0), chunk, acc);
                       else
                         acc = loop(whole, chunk, acc, [&](Value x, Value acc) {
                           return transform(nc, ty, x, chunk, acc);
                         });
                       if (whole != tw)
                         acc = transform(nc, ty, index(whole), tw - whole, acc);
                       return acc;
                     });
                   });

        // M[p, n, b, t, i] += V[p, n, c, t] * U[p, b, c, i]
        AffineExpr p, n, b, t, lane, c;
        bindDims(context, p, n, b, t, lane, c);
        SmallVector<utils::IteratorType> iterators(
            5, utils::IteratorType::parallel);
        iterators.push_back(utils::IteratorType::reduction);
        Value mInit = linalg::FillOp::create(
                          rewriter, loc, zero,
                          ValueRange{tensor::EmptyOp::create(
                              rewriter, loc,
                              ArrayRef<int64_t>{16, batch, panels, rows * tw,
                                                tuning().panel},
                              elem)})
                          .getResult(0);
        product = linalg::GenericOp::create(
            rewriter, loc, TypeRange{mInit.getType()},
            ValueRange{
                tensor::CollapseShapeOp::create(
                    rewriter, loc, v,
                    ArrayRef<ReassociationIndices>{{0}, {1}, {2}, {3, 4}}),
                weights},
            ValueRange{mInit},
            ArrayRef<AffineMap>{
                AffineMap::get(6, 0, {p, n, c, t}, context),
                AffineMap::get(6, 0, {p, b, c, lane}, context),
                AffineMap::get(6, 0, {p, n, b, t, lane}, context)},
            iterators, multiplyAccumulate);
        Value m = tensor::ExpandShapeOp::create(
            rewriter, loc,
            RankedTensorType::get({16, batch, panels, rows, tw, tuning().panel},
                                  elem),
            product.getResult(0),
            ArrayRef<ReassociationIndices>{{0}, {1}, {2}, {3, 4}, {5}});

        SmallVector<OpFoldResult> blockAt =
            indexAttrs(rewriter, {0, 0, 0, 0, 0, 0, 0});
        blockAt[2] = ty0;
        SmallVector<OpFoldResult> blockSizes = indexAttrs(
            rewriter, {batch, panels, rows, 2, tw, 2, tuning().panel});
        SmallVector<OpFoldResult> ones =
            indexAttrs(rewriter, {1, 1, 1, 1, 1, 1, 1});
        Value written = blocks(
            tensor::ExtractSliceOp::create(rewriter, loc, tiles, blockAt,
                                           blockSizes, ones),
            {batch, panels, rows}, 0, [&](ValueRange nby, Value block) {
              return loop(tw, 1, block, [&](Value tx, Value acc) {
                auto mAt = [&](int64_t q) {
                  return read(m,
                              {index(q), nby[0], nby[1], nby[2], tx, index(0)},
                              tuning().panel);
                };
                SmallVector<SmallVector<Value>> columns;
                for (int64_t e = 0; e < 4; ++e)
                  columns.push_back(
                      at({mAt(e), mAt(4 + e), mAt(8 + e), mAt(12 + e)}));
                for (int64_t y = 0; y < 2; ++y) {
                  SmallVector<Value> row = at({columns[0][y], columns[1][y],
                                               columns[2][y], columns[3][y]});
                  for (int64_t x = 0; x < 2; ++x) {
                    Value r = row[x];
                    if (bias)
                      r = arith::AddFOp::create(rewriter, loc, r, bias);
                    acc = write(r, acc,
                                {index(0), index(0), index(0), index(y), tx,
                                 index(x), index(0)});
                  }
                }
                return acc;
              });
            });
        return tensor::InsertSliceOp::create(rewriter, loc, written, tiles,
                                             blockAt, blockSizes, ones)
            .getResult();
      });
  Value panelsOut = tensor::CollapseShapeOp::create(
      rewriter, loc,
      RankedTensorType::get({batch, panels, 2 * th, 2 * tw, tuning().panel},
                            elem),
      allTiles, ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}, {4, 5}, {6}});
  if (oh % 2 != 0 || ow % 2 != 0)
    panelsOut = tensor::ExtractSliceOp::create(
        rewriter, loc, panelsOut, indexAttrs(rewriter, {0, 0, 0, 0, 0}),
        indexAttrs(rewriter, {batch, panels, oh, ow, tuning().panel}),
        indexAttrs(rewriter, {1, 1, 1, 1, 1}));
  replaceFromPanels(rewriter, conv, panelsOut);
  return {product, ContractionLoops{3, 4, 5}};
}

/// conv_2d_nchw_fchw as a contraction: out[n, f, oh*ow] += w[f, c*kh*kw] *
/// col[n, c*kh*kw, oh*ow], where col is the input gathered once (im2col),
/// or the input itself for a 1x1 conv of stride 1. Unlike upstream's
/// rewriteInIm2Col, the gather indexes the input without div/mod.
void rewriteConvAsContraction(RewriterBase &rewriter,
                              linalg::Conv2DNchwFchwOp conv) {
  Location loc = conv.getLoc();
  Value input = conv.getInputs()[0], filter = conv.getInputs()[1];
  Value init = conv.getOutputs()[0];
  auto inputType = cast<RankedTensorType>(input.getType());
  auto filterType = cast<RankedTensorType>(filter.getType());
  auto initType = cast<RankedTensorType>(init.getType());
  int64_t batch = inputType.getDimSize(0), channels = inputType.getDimSize(1);
  int64_t kh = filterType.getDimSize(2), kw = filterType.getDimSize(3);
  int64_t oh = initType.getDimSize(2), ow = initType.getDimSize(3);
  auto strides = llvm::to_vector(conv.getStrides().getValues<int64_t>());
  auto dilations = llvm::to_vector(conv.getDilations().getValues<int64_t>());
  MLIRContext *context = rewriter.getContext();
  rewriter.setInsertionPoint(conv);
  bool pointwise = kh == 1 && kw == 1 && strides[0] == 1 && strides[1] == 1 &&
                   inputType.getDimSize(2) == oh &&
                   inputType.getDimSize(3) == ow;
  auto rewritePart = [&](linalg::Conv2DNchwFchwOp part) {
    rewriteConvAsContraction(rewriter, part);
  };
  if (!pointwise && batch > 1) {
    // One image at a time: the gathered columns of one image are reused
    // from the cache and the allocator, where a whole batch's (59 MB for
    // resnet18's first conv at batch 8) would be fresh pages every call.
    rewriteAsSliceLoop(rewriter, conv, /*dim=*/0, /*outStep=*/1,
                       /*inStride=*/1, /*inSize=*/1, rewritePart);
    return;
  }
  int64_t depth = channels * kh * kw;
  int64_t rows = gatherRows(depth * ow, ow, oh);
  if (!pointwise && rows < oh) {
    // A few output rows at a time: their columns stay in the cache between
    // the gather and the contraction (resnet18's first conv: 7.4 MB of
    // columns at once otherwise).
    rewriteAsSliceLoop(rewriter, conv, /*dim=*/2, rows, strides[0],
                       (rows - 1) * strides[0] + (kh - 1) * dilations[0] + 1,
                       rewritePart);
    return;
  }
  int64_t filters = filterType.getDimSize(0), positions = oh * ow;
  ArrayRef<char> filterBytes = constantBytes(filter);
  if (filters % tuning().panel == 0 && positions % (2 * tuning().lanes) != 0 &&
      positions <= kBlockRows &&
      filterBytes.size() == size_t(filterType.getNumElements()) * 4) {
    // Few positions (one cache block's rows, a 7x7 image) with a tail:
    // the filters go along the register tiles instead.
    rewriteConvFiltersInner(rewriter, conv, filterBytes);
    return;
  }
  Value col;
  if (pointwise) {
    col = tensor::CollapseShapeOp::create(
        rewriter, loc, input, ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}});
  } else {
    col = gatherColumns(rewriter, conv, /*positionsFirst=*/false);
  }
  Value weights = tensor::CollapseShapeOp::create(
      rewriter, loc, filter, ArrayRef<ReassociationIndices>{{0}, {1, 2, 3}});
  Value out = tensor::CollapseShapeOp::create(
      rewriter, loc, init, ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}});
  // out[n, f, p] += weights[f, q] * col[n, q, p]
  AffineExpr n, f, p, q;
  bindDims(context, n, f, p, q);
  SmallVector<AffineMap> maps = {AffineMap::get(4, 0, {f, q}, context),
                                 AffineMap::get(4, 0, {n, q, p}, context),
                                 AffineMap::get(4, 0, {n, f, p}, context)};
  SmallVector<utils::IteratorType> iterators(3, utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  Value product =
      linalg::GenericOp::create(rewriter, loc, TypeRange{out.getType()},
                                ValueRange{weights, col}, ValueRange{out}, maps,
                                iterators, multiplyAccumulate)
          .getResult(0);
  rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(
      conv, initType, product,
      ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}});
}

/// A grouped conv (conv_2d_ngchw_gfchw: input [N, G, C, H, W], weights
/// [G, Fg, C, kh, kw], result [N, G, Fg, OH, OW]; ResNeXt, RegNet) as one
/// contraction with the group as a batch dim, which the schedule tiles by
/// 1 in its scf.forall: every group runs the same register tiles, and the
/// groups run in parallel. Stride 1 on a wide enough image (as
/// preferShiftedWindow) reads the input in place, shifted by each window
/// position, along rows laid end to end:
///
///   ext[n, g, f, p] += w[g, f, c, i, j] * rows[n, g, c, p + i*dh*W + j*dw]
///
/// any other conv gathers its columns first (im2col):
///
///   out[n, g, f, p] += w[g, f, q] * col[n, g, q, p],  q = (c, i, j)
///
/// Returns the contraction and, for the shifted-window form, which
/// upstream's matcher does not recognize, its loops (m = f, n = p, k = c).
std::pair<linalg::GenericOp, std::optional<ContractionLoops>>
groupedConv(RewriterBase &rewriter, linalg::Conv2DNgchwGfchwOp conv) {
  Location loc = conv.getLoc();
  MLIRContext *context = rewriter.getContext();
  Value input = conv.getInputs()[0], filter = conv.getInputs()[1];
  Value init = conv.getOutputs()[0];
  auto inputType = cast<RankedTensorType>(input.getType());
  auto filterType = cast<RankedTensorType>(filter.getType());
  auto initType = cast<RankedTensorType>(init.getType());
  Type elem = initType.getElementType();
  auto strides = llvm::to_vector(conv.getStrides().getValues<int64_t>());
  auto dilations = llvm::to_vector(conv.getDilations().getValues<int64_t>());
  int64_t batch = initType.getDimSize(0), groups = initType.getDimSize(1);
  int64_t filters = initType.getDimSize(2);
  int64_t oh = initType.getDimSize(3), ow = initType.getDimSize(4);
  int64_t channels = inputType.getDimSize(2), width = inputType.getDimSize(4);
  int64_t kh = filterType.getDimSize(3), kw = filterType.getDimSize(4);
  rewriter.setInsertionPoint(conv);
  Value fillValue = initFillValue(rewriter, loc, init);
  auto filled = [&](ArrayRef<int64_t> shape) {
    return linalg::FillOp::create(
               rewriter, loc, fillValue,
               ValueRange{tensor::EmptyOp::create(rewriter, loc, shape, elem)})
        .getResult(0);
  };
  SmallVector<utils::IteratorType> iterators(4, utils::IteratorType::parallel);
  if (preferShiftedWindow(conv)) {
    // The input as [N, G*C, H, W] (the view the lowering made, or one),
    // padded by the rows the last positions read past its end.
    Value flat;
    if (auto expand = input.getDefiningOp<tensor::ExpandShapeOp>();
        expand && expand.getSrcType().getRank() == 4)
      flat = expand.getSrc();
    else
      flat = tensor::CollapseShapeOp::create(
          rewriter, loc, input,
          ArrayRef<ReassociationIndices>{{0}, {1, 2}, {3}, {4}});
    int64_t extraRows = rowsReadPastEnd(kw, dilations[1], width);
    Value padded = padRowsBelow(rewriter, loc, flat, extraRows);
    int64_t positions = (inputType.getDimSize(3) + extraRows) * width;
    Value rows = tensor::ExpandShapeOp::create(
        rewriter, loc,
        RankedTensorType::get({batch, groups, channels, positions}, elem),
        tensor::CollapseShapeOp::create(
            rewriter, loc, padded,
            ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}}),
        ArrayRef<ReassociationIndices>{{0}, {1, 2}, {3}});
    AffineExpr n, g, f, p, c, i, j;
    bindDims(context, n, g, f, p, c, i, j);
    iterators.append(3, utils::IteratorType::reduction);
    auto product = linalg::GenericOp::create(
        rewriter, loc,
        TypeRange{
            RankedTensorType::get({batch, groups, filters, oh * width}, elem)},
        ValueRange{filter, rows},
        ValueRange{filled({batch, groups, filters, oh * width})},
        ArrayRef<AffineMap>{
            AffineMap::get(7, 0, {g, f, c, i, j}, context),
            AffineMap::get(
                7, 0,
                {n, g, c, p + i * (dilations[0] * width) + j * dilations[1]},
                context),
            AffineMap::get(7, 0, {n, g, f, p}, context)},
        iterators, multiplyAccumulate);
    Value grid = tensor::ExpandShapeOp::create(
        rewriter, loc,
        RankedTensorType::get({batch, groups, filters, oh, width}, elem),
        product.getResult(0),
        ArrayRef<ReassociationIndices>{{0}, {1}, {2}, {3, 4}});
    Value result = tensor::ExtractSliceOp::create(
        rewriter, loc, initType, grid, indexAttrs(rewriter, {0, 0, 0, 0, 0}),
        indexAttrs(rewriter, initType.getShape()),
        indexAttrs(rewriter, {1, 1, 1, 1, 1}));
    rewriter.replaceOp(conv, addInit(rewriter, loc, init, result));
    return {product, ContractionLoops{2, 3, 4}};
  }
  // One image, and a few output rows, at a time, as
  // rewriteConvAsContraction: the gathered columns stay in the cache.
  std::pair<linalg::GenericOp, std::optional<ContractionLoops>> last;
  auto rewritePart = [&](linalg::Conv2DNgchwGfchwOp part) {
    last = groupedConv(rewriter, part);
  };
  if (batch > 1) {
    rewriteAsSliceLoop(rewriter, conv, /*dim=*/0, /*outStep=*/1,
                       /*inStride=*/1, /*inSize=*/1, rewritePart);
    return last;
  }
  int64_t rowsAtOnce = gatherRows(groups * channels * kh * kw * ow, ow, oh);
  if (rowsAtOnce < oh) {
    rewriteAsSliceLoop(rewriter, conv, /*dim=*/3, rowsAtOnce, strides[0],
                       (rowsAtOnce - 1) * strides[0] + (kh - 1) * dilations[0] +
                           1,
                       rewritePart);
    return last;
  }
  // col[n, g, c, i, j, y, x] = input[n, g, c, y*sh + i*dh, x*sw + j*dw]
  AffineExpr n, g, c, i, j, y, x;
  bindDims(context, n, g, c, i, j, y, x);
  SmallVector<int64_t> colShape = {batch, groups, channels, kh, kw, oh, ow};
  Value col7 =
      linalg::GenericOp::create(
          rewriter, loc, TypeRange{RankedTensorType::get(colShape, elem)},
          ValueRange{input},
          ValueRange{tensor::EmptyOp::create(rewriter, loc, colShape, elem)},
          ArrayRef<AffineMap>{
              AffineMap::get(7, 0,
                             {n, g, c, y * strides[0] + i * dilations[0],
                              x * strides[1] + j * dilations[1]},
                             context),
              AffineMap::getMultiDimIdentityMap(7, context)},
          SmallVector<utils::IteratorType>(7, utils::IteratorType::parallel),
          [](OpBuilder &b, Location loc, ValueRange args) {
            linalg::YieldOp::create(b, loc, args[0]);
          })
          .getResult(0);
  Value col = tensor::CollapseShapeOp::create(
      rewriter, loc, col7,
      ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3, 4}, {5, 6}});
  Value weights = tensor::CollapseShapeOp::create(
      rewriter, loc, filter,
      ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3, 4}});
  AffineExpr f, p, q;
  bindDims(context, n, g, f, p, q);
  iterators.push_back(utils::IteratorType::reduction);
  auto outType = RankedTensorType::get({batch, groups, filters, oh * ow}, elem);
  auto product = linalg::GenericOp::create(
      rewriter, loc, TypeRange{outType}, ValueRange{weights, col},
      ValueRange{filled(outType.getShape())},
      ArrayRef<AffineMap>{AffineMap::get(5, 0, {g, f, q}, context),
                          AffineMap::get(5, 0, {n, g, q, p}, context),
                          AffineMap::get(5, 0, {n, g, f, p}, context)},
      iterators, multiplyAccumulate);
  Value result = tensor::ExpandShapeOp::create(
      rewriter, loc, initType, product.getResult(0),
      ArrayRef<ReassociationIndices>{{0}, {1}, {2}, {3, 4}});
  rewriter.replaceOp(conv, addInit(rewriter, loc, init, result));
  return {product, std::nullopt};
}

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

/// Whether `generic`'s body is made of arith and math ops only.
bool hasArithBody(linalg::GenericOp generic) {
  return llvm::all_of(generic.getBody()->getOperations(), [](Operation &o) {
    return isa<arith::ArithDialect, math::MathDialect>(o.getDialect()) ||
           isa<linalg::YieldOp>(o);
  });
}

/// An op every loop of which is parallel, reading and writing through
/// projected permutations that keep the innermost loop innermost (or
/// broadcast along it): a generic made of elementwise ops, a fill or a
/// broadcast. A transpose that moves the innermost dim is left to the
/// scalar loops: its vectors would be gathers.
bool isElementwiseLike(linalg::LinalgOp op) {
  unsigned loops = op.getNumLoops();
  if (loops == 0 || op.getNumReductionLoops() != 0)
    return false;
  AffineExpr inner = getAffineDimExpr(loops - 1, op.getContext());
  if (!llvm::all_of(op.getIndexingMapsArray(), [&](AffineMap m) {
        if (!m.isProjectedPermutation(/*allowZeroInResults=*/true))
          return false;
        std::optional<unsigned> pos = m.getResultPosition(inner);
        return !pos || *pos + 1 == m.getNumResults();
      }))
    return false;
  if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation()))
    return hasArithBody(generic);
  return isa<linalg::FillOp, linalg::BroadcastOp, linalg::TransposeOp>(op);
}

/// Rows of the innermost dim: every other dim tiled by 1, the innermost
/// by up to 4 registers, its tail split off.
LogicalResult scheduleElementwise(RewriterBase &rewriter, linalg::LinalgOp op) {
  if (!isStaticF32(op) || !isElementwiseLike(op))
    return failure();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  unsigned inner = ranges.size() - 1;
  // The whole row when it fits in 4 registers, else the widest multiple
  // of a register dividing it, else one register and a tail.
  int64_t width =
      ranges[inner] <= 4 * tuning().lanes
          ? ranges[inner]
          : blockSize(ranges[inner], tuning().lanes, 4 * tuning().lanes);
  if (width > 4 * tuning().lanes)
    width = tuning().lanes;
  for (linalg::LinalgOp piece : splitTail(rewriter, op, inner, width)) {
    SmallVector<int64_t> pieceRanges = piece.getStaticLoopRanges();
    FailureOr<linalg::LinalgOp> tiled = tileParallelBlocks(rewriter, piece);
    SmallVector<int64_t> sizes(ranges.size(), 1);
    sizes[inner] = std::min(width, pieceRanges[inner]);
    if (succeeded(tiled))
      tiled = tile(rewriter, *tiled, sizes, false);
    if (failed(tiled) || failed(vectorizeTile(rewriter, *tiled)))
      return failure();
  }
  return success();
}

/// The loop a transposing op reads innermost: an op as isElementwiseLike
/// (a generic of arith/math ops, or a linalg.transpose) except that some
/// of its inputs read its innermost loop `inner` elsewhere than innermost,
/// all of them with the same loop `t` innermost instead (replaceFromPanels'
/// outT[n, b, y, x, i] for out[n, b, i, y, x]: t = i). The init keeps
/// `inner` innermost. None when it is not one.
std::optional<unsigned> transposedLoop(linalg::LinalgOp op) {
  unsigned loops = op.getNumLoops();
  if (loops < 2 || op.getNumReductionLoops() != 0 || op.getNumDpsInits() != 1)
    return std::nullopt;
  MLIRContext *context = op.getContext();
  AffineExpr inner = getAffineDimExpr(loops - 1, context);
  AffineMap init = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (!init.isProjectedPermutation() || init.getNumResults() == 0 ||
      init.getResults().back() != inner)
    return std::nullopt;
  std::optional<unsigned> t;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (!map.isProjectedPermutation(/*allowZeroInResults=*/true))
      return std::nullopt;
    std::optional<unsigned> pos = map.getResultPosition(inner);
    if (!pos || *pos + 1 == map.getNumResults())
      continue;
    auto last = dyn_cast<AffineDimExpr>(map.getResults().back());
    if (!last || (t && *t != last.getPosition()))
      return std::nullopt;
    t = last.getPosition();
  }
  if (!t)
    return std::nullopt;
  if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
      generic && !hasArithBody(generic))
    return std::nullopt;
  if (!isa<linalg::GenericOp, linalg::TransposeOp>(op))
    return std::nullopt;
  return t;
}

/// A transposing op (transposedLoop, of static f32 shape, both loops at
/// least 16) in tiles of 16 x 16 of `t` and the innermost loop, each read
/// as 16 registers along `t` and transposed in registers
/// (fx-cpu-lower-vectors: shuffles), in parallel blocks of whole tiles when
/// large; the tails of either loop stay scalar loops. As scalar loops, the
/// transpose back of resnet18's first conv (64 x 12544 results) took 0.77 ms
/// against eager's 0.27 for the same permute. A failure leaves the IR partly
/// rewritten: the pass fails.
LogicalResult scheduleTransposing(RewriterBase &rewriter, linalg::LinalgOp op,
                                  unsigned t) {
  // The innermost loops that every operand reads contiguously are one
  // (an image's rows and columns: 14 x 14 positions make 12 tiles of 16).
  unsigned inner = op.getNumLoops() - 1;
  while (isa<linalg::GenericOp>(op) && inner - 1 != t &&
         linalg::areDimSequencesPreserved(op.getIndexingMapsArray(),
                                          {{inner - 1, inner}})) {
    SmallVector<ReassociationIndices> groups;
    for (unsigned d = 0; d + 1 < inner; ++d)
      groups.push_back({d});
    groups.push_back({inner - 1, inner});
    rewriter.setInsertionPoint(op);
    FailureOr<linalg::CollapseResult> collapsed =
        linalg::collapseOpIterationDims(op, groups, rewriter);
    if (failed(collapsed))
      break;
    rewriter.replaceOp(op, collapsed->results);
    op = collapsed->collapsedOp;
    --inner;
  }
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (ranges[inner] < tuning().lanes || ranges[t] < tuning().lanes)
    return failure(failed(tileParallelBlocks(rewriter, op)));
  for (linalg::LinalgOp rows : splitTail(rewriter, op, t, tuning().lanes)) {
    for (linalg::LinalgOp piece :
         splitTail(rewriter, rows, inner, tuning().lanes)) {
      SmallVector<int64_t> pieceRanges = piece.getStaticLoopRanges();
      if (pieceRanges[inner] % tuning().lanes != 0 ||
          pieceRanges[t] % tuning().lanes != 0) {
        if (failed(tileParallelBlocks(rewriter, piece)))
          return failure();
        continue;
      }
      // Parallel blocks of the outermost loop, whole tiles of it when it is
      // one of the two.
      SmallVector<int64_t> blocks(pieceRanges.size(), 0);
      int64_t elements = 1;
      for (int64_t r : pieceRanges)
        elements *= r;
      auto outer = llvm::find_if(pieceRanges, [](int64_t r) { return r > 1; });
      unsigned o = outer - pieceRanges.begin();
      int64_t step = o == t || o == inner ? tuning().lanes : 1;
      if (elements >= kParallelElements && *outer > step)
        blocks[o] =
            blockSize(*outer, step, std::max(step, *outer / kParallelBlocks));
      FailureOr<linalg::LinalgOp> tiled = tile(rewriter, piece, blocks, true);
      SmallVector<int64_t> sizes(pieceRanges.size(), 1);
      sizes[inner] = sizes[t] = tuning().lanes;
      if (succeeded(tiled))
        tiled = tile(rewriter, *tiled, sizes, false);
      if (failed(tiled) || failed(vectorizeTile(rewriter, *tiled)))
        return failure();
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Row reductions
//===----------------------------------------------------------------------===//

/// A reduction along the innermost loop, read contiguously (a row's sum or
/// max: softmax, layer norm, mean), of rows of at least two registers
/// that divide into registers: split into 16 partial results per row
/// (upstream's splitReduction, lanes innermost), which reduce whole
/// registers elementwise, one at a time, before the 16 are reduced.
/// Left to LLVM the row is one chain of dependent scalar adds: it does not
/// reassociate a float reduction on its own.
LogicalResult scheduleRowReduction(RewriterBase &rewriter,
                                   linalg::LinalgOp op) {
  if (!isStaticF32(op) || op.getNumDpsInits() != 1 ||
      op.getNumReductionLoops() != 1 || op.getNumLoops() < 2)
    return failure();
  unsigned inner = op.getNumLoops() - 1;
  if (!linalg::isReductionIterator(op.getIteratorTypesArray()[inner]))
    return failure();
  int64_t size = op.getStaticLoopRanges()[inner];
  if (size % tuning().lanes != 0 || size < 2 * tuning().lanes)
    return failure();
  AffineExpr reduced = rewriter.getAffineDimExpr(inner);
  for (AffineMap map : op.getIndexingMapsArray())
    if (!map.isProjectedPermutation() ||
        (map.isFunctionOfDim(inner) && map.getResults().back() != reduced))
      return failure();
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::SplitReductionResult> split =
      linalg::splitReduction(rewriter, op, [&](linalg::LinalgOp) {
        return linalg::SplitReductionOptions{tuning().lanes, inner,
                                             /*innerParallel=*/true};
      });
  if (failed(split))
    return failure();
  // The partial op: the rows' loops, the registers of a row (reduction),
  // the lanes.
  auto partial = cast<linalg::LinalgOp>(split->splitLinalgOp.getOperation());
  FailureOr<linalg::LinalgOp> tiled = tileParallelBlocks(rewriter, partial);
  if (failed(tiled))
    return failure();
  SmallVector<int64_t> ranges = tiled->getStaticLoopRanges();
  SmallVector<int64_t> sizes(ranges.size(), 1);
  // One register of the row per step: a read of several would span the
  // row's expanded dims, which fold-memref-alias-ops folds into a read of
  // several rows of the unexpanded source.
  sizes[inner + 1] = tuning().lanes;
  tiled = tile(rewriter, *tiled, sizes, false);
  if (failed(tiled))
    return failure();
  return vectorizeTile(rewriter, *tiled);
}

/// A depthwise conv or a max/sum pooling (NCHW, static, f32) as one
/// elementwise generic over the output whose inputs are the KHxKW strided
/// slices of the input, one per window position (and, for the depthwise
/// conv, the filter's per-channel weights at that position). It then gets
/// the elementwise schedule. The window is visited in the named op's order,
/// so the results are the same bit for bit.
LogicalResult unrollWindow(RewriterBase &rewriter, linalg::LinalgOp op) {
  bool depthwise = isa<linalg::DepthwiseConv2DNchwChwOp>(op);
  bool max = isa<linalg::PoolingNchwMaxOp>(op);
  if (!(depthwise || max || isa<linalg::PoolingNchwSumOp>(op)) ||
      !isStaticF32(op))
    return failure();
  auto strides = llvm::to_vector(
      cast<DenseIntElementsAttr>(op->getAttr("strides")).getValues<int64_t>());
  auto dilations =
      llvm::to_vector(cast<DenseIntElementsAttr>(op->getAttr("dilations"))
                          .getValues<int64_t>());
  Value input = op.getDpsInputs()[0], window = op.getDpsInputs()[1];
  Value init = op.getDpsInits()[0];
  auto windowType = cast<RankedTensorType>(window.getType());
  auto initType = cast<RankedTensorType>(init.getType());
  int64_t kh = windowType.getDimSize(depthwise ? 1 : 0);
  int64_t kw = windowType.getDimSize(depthwise ? 2 : 1);
  if (kh * kw > 64)
    return failure();
  Location loc = op.getLoc();
  MLIRContext *context = rewriter.getContext();
  rewriter.setInsertionPoint(op);
  SmallVector<Value> slices, weights;
  ArrayRef<int64_t> out = initType.getShape();
  for (int64_t i = 0; i < kh; ++i)
    for (int64_t j = 0; j < kw; ++j) {
      slices.push_back(tensor::ExtractSliceOp::create(
          rewriter, loc, input,
          indexAttrs(rewriter, {0, 0, i * dilations[0], j * dilations[1]}),
          indexAttrs(rewriter, out),
          indexAttrs(rewriter, {1, 1, strides[0], strides[1]})));
      if (depthwise)
        weights.push_back(tensor::ExtractSliceOp::create(
            rewriter, loc,
            RankedTensorType::get({out[1]}, initType.getElementType()), window,
            indexAttrs(rewriter, {0, i, j}),
            indexAttrs(rewriter, {out[1], 1, 1}),
            indexAttrs(rewriter, {1, 1, 1})));
    }
  AffineMap identity = AffineMap::getMultiDimIdentityMap(4, context);
  SmallVector<AffineMap> maps(slices.size(), identity);
  maps.append(weights.size(),
              AffineMap::get(4, 0, getAffineDimExpr(1, context), context));
  maps.push_back(identity);
  SmallVector<Value> inputs = slices;
  llvm::append_range(inputs, weights);
  size_t positions = slices.size();
  rewriter.replaceOpWithNewOp<linalg::GenericOp>(
      op, TypeRange{initType}, inputs, ValueRange{init}, maps,
      SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
      [&](OpBuilder &b, Location loc, ValueRange args) {
        Value acc = args.back();
        for (size_t p = 0; p < positions; ++p) {
          if (max)
            acc = arith::MaximumFOp::create(b, loc, acc, args[p]);
          else if (depthwise)
            acc = arith::AddFOp::create(
                b, loc, acc,
                arith::MulFOp::create(b, loc, args[p], args[positions + p]));
          else
            acc = arith::AddFOp::create(b, loc, acc, args[p]);
        }
        linalg::YieldOp::create(b, loc, acc);
      });
  return success();
}

/// Any other convolution or pooling op (depthwise, grouped, pooling, or
/// not f32) as a generic whose innermost loop is the output's last dim
/// (the image width), after the window loops: the scalar loops it becomes
/// then run along contiguous rows, which LLVM vectorizes.
void moveWidthInnermost(RewriterBase &rewriter, linalg::LinalgOp op) {
  AffineMap result = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  auto width = dyn_cast<AffineDimExpr>(result.getResults().back());
  if (!width || width.getPosition() + 1 == op.getNumLoops())
    return;
  SmallVector<unsigned> order;
  for (unsigned d = 0; d < op.getNumLoops(); ++d)
    if (d != width.getPosition())
      order.push_back(d);
  order.push_back(width.getPosition());
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::GenericOp> generic =
      linalg::generalizeNamedOp(rewriter, op);
  if (succeeded(generic))
    (void)linalg::interchangeGenericOp(rewriter, *generic, order);
}

//===----------------------------------------------------------------------===//
// Passes
//===----------------------------------------------------------------------===//

/// Whether `value` is only an operand of vector.contracts, directly or
/// broadcast, or of what they lower to: outer products use its lanes one
/// at a time.
bool onlyContracted(Value value) {
  return llvm::all_of(value.getUsers(), [](Operation *user) {
    if (isa<vector::BroadcastOp, vector::ShapeCastOp>(user))
      return onlyContracted(user->getResult(0));
    return isa<vector::ContractionOp, vector::OuterProductOp,
               vector::ExtractOp>(user);
  });
}

/// A 1-D read along a dim of constant stride 2 to 4 (a pooling window or
/// depthwise conv of stride 2 reading its input slices) would be one
/// scalar load per lane. Instead, per 16 lanes, one masked load of the
/// contiguous elements they span (`(16 - 1) * stride + 1`) and a shuffle
/// picking every stride-th one. Not for a contraction's operand (a strided
/// conv's positions): its lanes are broadcast one by one, each best
/// straight from memory, where extracting them from a register would take
/// the FMAs' port.
struct StridedReadAsShuffle : public OpRewritePattern<vector::TransferReadOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(vector::TransferReadOp read,
                                PatternRewriter &rewriter) const override {
    auto memref = dyn_cast<MemRefType>(read.getBase().getType());
    VectorType vectorType = read.getVectorType();
    if (!memref || vectorType.getRank() != 1 || read.getMask() ||
        onlyContracted(read.getResult()) ||
        !read.getPermutationMap().isMinorIdentity() ||
        !read.getInBoundsValues()[0] || memref.getRank() == 0)
      return failure();
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(memref.getStridesAndOffset(strides, offset)))
      return failure();
    int64_t stride = strides.back(), size = memref.getShape().back();
    if (stride < 2 || stride > 4 || ShapedType::isDynamic(size))
      return failure();
    Location loc = read.getLoc();
    Type elem = memref.getElementType();
    // The same memref with a unit innermost stride, as long as the
    // strided elements span.
    auto metadata =
        memref::ExtractStridedMetadataOp::create(rewriter, loc, read.getBase());
    SmallVector<int64_t> unitStrides = strides;
    unitStrides.back() = 1;
    SmallVector<int64_t> shape(memref.getShape());
    shape.back() = (size - 1) * stride + 1;
    auto viewType = MemRefType::get(
        shape, elem,
        StridedLayoutAttr::get(rewriter.getContext(), offset, unitStrides));
    // Static sizes, strides and offset from the type, the others from
    // the metadata.
    auto fold = [&](int64_t v, Value dynamic) -> OpFoldResult {
      if (ShapedType::isDynamic(v))
        return dynamic;
      return rewriter.getIndexAttr(v);
    };
    SmallVector<OpFoldResult> sizes, newStrides;
    for (int64_t d = 0; d < memref.getRank(); ++d) {
      sizes.push_back(fold(shape[d], metadata.getSizes()[d]));
      newStrides.push_back(fold(unitStrides[d], metadata.getStrides()[d]));
    }
    Value view = memref::ReinterpretCastOp::create(
        rewriter, loc, viewType, metadata.getBaseBuffer(),
        fold(offset, metadata.getOffset()), sizes, newStrides);
    SmallVector<Value> indices(read.getIndices());
    Value start = arith::MulIOp::create(
        rewriter, loc, indices.back(),
        arith::ConstantIndexOp::create(rewriter, loc, stride));
    int64_t lanes = vectorType.getNumElements();
    Value result = arith::ConstantOp::create(rewriter, loc, vectorType,
                                             rewriter.getZeroAttr(vectorType));
    for (int64_t first = 0; first < lanes; first += tuning().lanes) {
      int64_t count = std::min(tuning().lanes, lanes - first);
      auto loadType = VectorType::get({count * stride}, elem);
      SmallVector<bool> mask(count * stride, false);
      std::fill_n(mask.begin(), (count - 1) * stride + 1, true);
      auto maskType = VectorType::get({count * stride}, rewriter.getI1Type());
      Value maskValue = arith::ConstantOp::create(
          rewriter, loc, maskType, DenseElementsAttr::get(maskType, mask));
      indices.back() = arith::AddIOp::create(
          rewriter, loc, start,
          arith::ConstantIndexOp::create(rewriter, loc, first * stride));
      Value loaded = vector::MaskedLoadOp::create(
          rewriter, loc, loadType, view, indices, maskValue,
          arith::ConstantOp::create(rewriter, loc, loadType,
                                    rewriter.getZeroAttr(loadType)));
      SmallVector<int64_t> picks;
      for (int64_t l = 0; l < count; ++l)
        picks.push_back(l * stride);
      Value chunk =
          vector::ShuffleOp::create(rewriter, loc, loaded, loaded, picks);
      result = vector::InsertStridedSliceOp::create(
          rewriter, loc, chunk, result, ArrayRef<int64_t>{first},
          ArrayRef<int64_t>{1});
    }
    rewriter.replaceOp(read, result);
    return success();
  }
};

/// Whether `operand` reads a transposing op's result (transposedLoop)
/// through the collapse_shape view replaceFromPanels makes of it.
bool readsTransposingView(OpOperand &operand) {
  auto view = operand.get().getDefiningOp<tensor::CollapseShapeOp>();
  auto producer =
      view ? view.getSrc().getDefiningOp<linalg::LinalgOp>() : nullptr;
  return producer && producer->hasOneUse() && transposedLoop(producer);
}

/// The operands of `op` read with constant indices along unit dims (a
/// batch norm's [1, C, 1, 1] parameters, read (n, c, 0, 0)) as the
/// tensors without those dims, read through projected permutations, as
/// upstream's reshape folding needs.
void dropConstantUnitDims(RewriterBase &rewriter, linalg::GenericOp op) {
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  bool changed = false;
  for (OpOperand *operand : op.getDpsInputOperands()) {
    AffineMap map = maps[operand->getOperandNumber()];
    auto type = dyn_cast<RankedTensorType>(operand->get().getType());
    if (!type || map.isProjectedPermutation())
      continue;
    // Each dropped dim joins the group of the kept dim before it (the
    // first kept dim's, when it leads).
    SmallVector<ReassociationIndices> groups;
    SmallVector<AffineExpr> kept;
    SmallVector<int64_t> shape, leading;
    bool valid = true;
    for (auto [i, result] : llvm::enumerate(map.getResults())) {
      auto constant = dyn_cast<AffineConstantExpr>(result);
      if (constant && constant.getValue() == 0 && type.getDimSize(i) == 1) {
        if (groups.empty())
          leading.push_back(i);
        else
          groups.back().push_back(i);
        continue;
      }
      valid &= isa<AffineDimExpr>(result);
      groups.push_back({int64_t(i)});
      kept.push_back(result);
      shape.push_back(type.getDimSize(i));
    }
    if (!valid || kept.empty() || kept.size() == map.getNumResults())
      continue;
    groups.front().insert(groups.front().begin(), leading.begin(),
                          leading.end());
    rewriter.setInsertionPoint(op);
    Value collapsed = tensor::CollapseShapeOp::create(
        rewriter, op.getLoc(),
        RankedTensorType::get(shape, type.getElementType()), operand->get(),
        groups);
    rewriter.modifyOpInPlace(op, [&] { operand->set(collapsed); });
    maps[operand->getOperandNumber()] =
        AffineMap::get(map.getNumDims(), 0, kept, op.getContext());
    changed = true;
  }
  if (changed)
    rewriter.modifyOpInPlace(op, [&] {
      op.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
    });
}

/// The FX node a lowered op came from, as its location names it:
/// "'conv1' (module 'layer1.0')"; the location itself when it names none.
std::string nodeLabel(Operation *op) {
  if (auto node = dyn_cast<NameLoc>(op->getLoc())) {
    std::string label = "'" + node.getName().getValue().str() + "'";
    StringRef path = mlir::fx::getModulePath(op->getLoc());
    if (!path.empty())
      label += " (module '" + path.str() + "')";
    return label;
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  os << op->getLoc();
  return text;
}

/// The tuning for the pass option `target`; an error on `op` when no
/// target has that name.
FailureOr<Tuning> tuningFor(Operation *op, StringRef name,
                            std::optional<CPUTarget> &target) {
  target = CPUTarget::lookup(name);
  if (!target)
    return op->emitError() << "unknown CPU target '" << name
                           << "': use host or one of "
                           << llvm::join(CPUTarget::knownNames(), ", ");
  return Tuning::from(*target);
}

struct CPUSchedulePass
    : public mlir::fx::impl::FXCPUScheduleBase<CPUSchedulePass> {
  using FXCPUScheduleBase::FXCPUScheduleBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    MLIRContext *context = &getContext();
    std::optional<CPUTarget> cpu;
    FailureOr<Tuning> tuned = tuningFor(func, target, cpu);
    if (failed(tuned))
      return signalPassFailure();
    ScopedTuning scoped(*tuned);
    // What the schedule took from the target, for a reader of the IR.
    func->setAttr("fx.cpu_schedule",
                  StringAttr::get(context, tuned->describe(*cpu)));
    IRRewriter rewriter(context);
    // Convolutions as contractions: Winograd, filters inner, shifted
    // windows or im2col. First, so that what they add (a bias) fuses with
    // the conv's consumers.
    SmallVector<linalg::Conv2DNchwFchwOp> convs;
    func.walk([&](linalg::Conv2DNchwFchwOp op) {
      if (isStaticF32(op))
        convs.push_back(op);
    });
    DenseMap<Operation *, ContractionLoops> shifted;
    SmallVector<linalg::Conv2DNgchwGfchwOp> grouped;
    func.walk([&](linalg::Conv2DNgchwGfchwOp op) {
      if (isStaticF32(op))
        grouped.push_back(op);
    });
    // Each conv's algorithm is recorded on the function (fx.cpu_strategies,
    // one "<node>: <algorithm>" per conv). A conv that already carries
    // `fx.cpu_strategy` gets that algorithm if it applies; else the pass
    // fails naming what does.
    SmallVector<Attribute> strategies;
    for (linalg::Conv2DNgchwGfchwOp conv : grouped) {
      strategies.push_back(
          StringAttr::get(context, nodeLabel(conv) + ": grouped"));
      if (auto [op, loops] = groupedConv(rewriter, conv); loops)
        shifted[op] = *loops;
    }
    for (linalg::Conv2DNchwFchwOp conv : convs) {
      ArrayRef<char> filterBytes = constantBytes(conv.getInputs()[1]);
      // In order of preference, with whether each applies here.
      std::pair<StringRef, bool> algorithms[] = {
          {"winograd", preferWinograd(conv, filterBytes)},
          {"filters-inner", preferFiltersInner(conv, filterBytes)},
          {"shifted-window", preferShiftedWindow(conv)},
          {"im2col", true}};
      StringRef algorithm =
          llvm::find_if(algorithms, [](auto a) { return a.second; })->first;
      auto forced = conv->getAttrOfType<StringAttr>("fx.cpu_strategy");
      if (forced) {
        auto it = llvm::find_if(
            algorithms, [&](auto a) { return a.first == forced.getValue(); });
        if (it == std::end(algorithms) || !it->second) {
          SmallVector<StringRef> usable;
          for (auto [name, applies] : algorithms)
            if (applies)
              usable.push_back(name);
          conv.emitError() << "fx.cpu_strategy '" << forced.getValue()
                           << "' does not apply to this convolution; these "
                              "do: "
                           << llvm::join(usable, ", ");
          return signalPassFailure();
        }
        algorithm = forced.getValue();
      }
      strategies.push_back(
          StringAttr::get(context, nodeLabel(conv) + ": " + algorithm +
                                       (forced ? " (fx.cpu_strategy)" : "")));
      if (algorithm == "winograd") {
        auto [op, loops] = winogradConv(rewriter, conv, filterBytes);
        shifted[op] = loops;
      } else if (algorithm == "filters-inner") {
        for (auto [op, loops] :
             shiftedWindowFiltersInner(rewriter, conv, filterBytes))
          shifted[op] = loops;
      } else if (algorithm == "shifted-window") {
        auto [op, loops] = shiftedWindowConv(rewriter, conv);
        shifted[op] = loops;
      } else {
        rewriteConvAsContraction(rewriter, conv);
      }
    }
    if (!strategies.empty())
      func->setAttr("fx.cpu_strategies", ArrayAttr::get(context, strategies));
    // Elementwise producers fuse into their consumers, but not into
    // contractions: a relu fused into the next matmul would run once per
    // multiply and hide the contraction from its schedule.
    func.walk([&](linalg::GenericOp op) {
      if (llvm::any_of(op->getOpOperands(), readsTransposingView))
        dropConstantUnitDims(rewriter, op);
    });
    RewritePatternSet fusion(context);
    linalg::populateElementwiseOpsFusionPatterns(
        fusion, [&shifted](OpOperand *operand) {
          Operation *producer = operand->get().getDefiningOp();
          auto consumer = cast<linalg::LinalgOp>(operand->getOwner());
          return producer && producer->hasOneUse() &&
                 !linalg::isaContractionOpInterface(consumer) &&
                 !shifted.count(consumer);
        });
    // The view of a transposing op's result as the conv's (replaceFromPanels)
    // folds into its elementwise consumers, which then fuse with it.
    linalg::populateFoldReshapeOpsByExpansionPatterns(
        fusion, [](OpOperand *operand) {
          auto consumer = dyn_cast<linalg::GenericOp>(operand->getOwner());
          return consumer && readsTransposingView(*operand) &&
                 isElementwiseLike(consumer);
        });
    linalg::GenericOp::getCanonicalizationPatterns(fusion, context);
    if (failed(applyPatternsGreedily(func, std::move(fusion))))
      return signalPassFailure();
    // Depthwise convs and pooling as elementwise ops over window slices.
    SmallVector<linalg::LinalgOp> windows;
    func.walk([&](linalg::LinalgOp op) {
      if (isa<linalg::DepthwiseConv2DNchwChwOp, linalg::PoolingNchwMaxOp,
              linalg::PoolingNchwSumOp>(op))
        windows.push_back(op);
    });
    for (linalg::LinalgOp op : windows)
      (void)unrollWindow(rewriter, op);
    // The ops to schedule, collected first: tiling creates new ones.
    SmallVector<linalg::LinalgOp> ops;
    func.walk([&](linalg::LinalgOp op) { ops.push_back(op); });
    // A contraction or transposing op whose schedule fails once it started
    // rewriting leaves the IR broken: the pass fails.
    auto broken = [&](Location loc, StringRef what) {
      emitError(loc) << "fx-cpu-schedule: cannot tile and vectorize this "
                     << what;
      signalPassFailure();
    };
    for (linalg::LinalgOp op : ops) {
      // An op that cannot be scheduled stays as it is (scalar loops). The
      // loops of a contraction whose operands are not read through
      // projected permutations (a shifted-window conv) are known: upstream's
      // contraction matcher does not recognize it.
      auto known = shifted.find(op.getOperation());
      FailureOr<ContractionLoops> loops =
          known == shifted.end() ? getContractionLoops(op)
                                 : FailureOr<ContractionLoops>(known->second);
      Location loc = op.getLoc();
      if (succeeded(loops)) {
        if (failed(scheduleContraction(rewriter, op, *loops)))
          return broken(loc, "contraction");
        continue;
      }
      std::optional<unsigned> t = transposedLoop(op);
      if (t && isStaticF32(op)) {
        if (failed(scheduleTransposing(rewriter, op, *t)))
          return broken(loc, "transpose");
        continue;
      }
      if (succeeded(scheduleElementwise(rewriter, op)) ||
          succeeded(scheduleRowReduction(rewriter, op)))
        continue;
      if (op.getNumDpsInits() == 1 && linalg::isaConvolutionOpInterface(op))
        moveWidthInnermost(rewriter, op);
      else if (isStaticF32(op) && op.getNumReductionLoops() == 0)
        // Other all-parallel ops (an im2col gather) stay scalar loops,
        // but large ones run in parallel blocks.
        (void)tileParallelBlocks(rewriter, op);
    }
    RewritePatternSet patterns(context);
    vector::populateVectorReductionToContractPatterns(patterns);
    vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
    vector::TransferReadOp::getCanonicalizationPatterns(patterns, context);
    vector::TransferWriteOp::getCanonicalizationPatterns(patterns, context);
    if (failed(applyPatternsGreedily(func, std::move(patterns))))
      return signalPassFailure();
    // Then unit dims (a batch of 1, a conv's image index) leave the
    // vectors, so a tile's accumulator is read and written as one 2-D
    // value.
    RewritePatternSet unitDims(context);
    vector::populateCastAwayVectorLeadingOneDimPatterns(unitDims);
    if (failed(applyPatternsGreedily(func, std::move(unitDims))))
      return signalPassFailure();
  }
};

/// Rows of a copy moved as one vector: up to this many elements.
constexpr int64_t kCopyRow = 256;

/// Whether `type` is a memref of static shape whose innermost dim is
/// contiguous.
bool hasContiguousRows(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref || !memref.hasStaticShape() || memref.getRank() == 0 ||
      memref.getNumElements() == 0)
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  return succeeded(memref.getStridesAndOffset(strides, offset)) &&
         strides.back() == 1;
}

/// A linalg.copy on memrefs of static shape with contiguous rows, tiled by
/// 1 along its outer dims and by pieces of rows of up to kCopyRow elements
/// (the largest that divides the row, at least tuning().lanes) along the
/// innermost, each moved by one vector load and store. As loops, LLVM left
/// them scalar, one float at a time (a matmul's operand packed in panels
/// among them): it fully unrolls a short row, and its SLP vectorizer may
/// not move the loads above the stores of a source and target it cannot
/// tell apart (an argument and the workspace).
LogicalResult vectorizeCopy(RewriterBase &rewriter, linalg::CopyOp copy) {
  Type source = copy.getInputs()[0].getType();
  Type target = copy.getOutputs()[0].getType();
  if (!hasContiguousRows(source) || !hasContiguousRows(target))
    return failure();
  ArrayRef<int64_t> shape = cast<MemRefType>(target).getShape();
  int64_t row = blockSize(shape.back(), 1, kCopyRow);
  if (row > kCopyRow || (row < tuning().lanes && row != shape.back()))
    return failure();
  // Dims the tile covers whole stay untiled (no loops of one trip).
  SmallVector<int64_t> sizes;
  for (int64_t size : shape.drop_back())
    sizes.push_back(size == 1 ? 0 : 1);
  sizes.push_back(row == shape.back() ? 0 : row);
  FailureOr<linalg::LinalgOp> tiled =
      tile(rewriter, cast<linalg::LinalgOp>(copy.getOperation()), sizes, false);
  if (failed(tiled))
    return failure();
  return vectorizeTile(rewriter, *tiled);
}

struct CPULowerVectorsPass
    : public mlir::fx::impl::FXCPULowerVectorsBase<CPULowerVectorsPass> {
  using FXCPULowerVectorsBase::FXCPULowerVectorsBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    MLIRContext *context = &getContext();
    std::optional<CPUTarget> cpu;
    FailureOr<Tuning> tuned = tuningFor(func, target, cpu);
    if (failed(tuned))
      return signalPassFailure();
    ScopedTuning scoped(*tuned);
    // A copy into or out of a strided view (the interior of a padded
    // input) would become a call to the generic, element-by-element
    // memrefCopy: as linalg.copy it becomes loops LLVM vectorizes.
    IRRewriter rewriter(context);
    SmallVector<memref::CopyOp> copies;
    func.walk([&](memref::CopyOp copy) { copies.push_back(copy); });
    for (memref::CopyOp copy : copies) {
      auto isStrided = [](Type t) {
        return !cast<MemRefType>(t).getLayout().isIdentity();
      };
      if (!isStrided(copy.getSource().getType()) &&
          !isStrided(copy.getTarget().getType()))
        continue;
      rewriter.setInsertionPoint(copy);
      auto linalgCopy = rewriter.replaceOpWithNewOp<linalg::CopyOp>(
          copy, copy.getSource(), copy.getTarget());
      // A large copy (a padded input's interior) runs in parallel blocks
      // of its outermost dim, as large elementwise ops do.
      if (cast<MemRefType>(linalgCopy.getOutputs()[0].getType())
              .hasStaticShape())
        (void)tileParallelBlocks(
            rewriter, cast<linalg::LinalgOp>(linalgCopy.getOperation()));
    }
    SmallVector<linalg::CopyOp> linalgCopies;
    func.walk([&](linalg::CopyOp copy) { linalgCopies.push_back(copy); });
    for (linalg::CopyOp copy : linalgCopies)
      (void)vectorizeCopy(rewriter, copy);
    // The 16 x 16 transposes of scheduleTransposing's tiles as shuffles
    // within and across 128-bit lanes (upstream's AVX-512 sequence), where
    // the element-by-element lowering the others get would move each float
    // on its own.
    SmallVector<Operation *> transposes;
    func.walk([&](vector::TransposeOp transpose) {
      VectorType type = transpose.getSourceVectorType();
      SmallVector<int64_t> shape;
      for (int64_t size : type.getShape())
        if (size != 1)
          shape.push_back(size);
      if (type.getElementType().isF32() &&
          shape == SmallVector<int64_t>{tuning().lanes, tuning().lanes})
        transposes.push_back(transpose);
    });
    // 16 x 16 (AVX-512): upstream's sequence; 8 x 8 or 4 x 4: one shuffle
    // of the flattened tile, which LLVM lowers to the target's shuffles.
    RewritePatternSet shuffles(context);
    vector::populateVectorTransposeLoweringPatterns(
        shuffles, tuning().lanes == 16
                      ? vector::VectorTransposeLowering::Shuffle16x16
                      : vector::VectorTransposeLowering::Shuffle1D);
    if (failed(applyOpPatternsGreedily(transposes, std::move(shuffles))))
      return signalPassFailure();
    RewritePatternSet patterns(context);
    patterns.add<StridedReadAsShuffle>(context, /*benefit=*/2);
    vector::populateVectorContractLoweringPatterns(
        patterns, vector::VectorContractLowering::OuterProduct);
    vector::populateVectorOuterProductLoweringPatterns(patterns);
    vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
    vector::populateVectorTransferLoweringPatterns(patterns,
                                                   /*maxTransferRank=*/1);
    vector::populateVectorMultiReductionLoweringPatterns(
        patterns, vector::VectorMultiReductionLowering::InnerParallel);
    vector::populateVectorBroadcastLoweringPatterns(patterns);
    vector::populateVectorTransposeLoweringPatterns(
        patterns, vector::VectorTransposeLowering::EltWise);
    vector::populateVectorShapeCastLoweringPatterns(patterns);
    vector::populateVectorMaskOpLoweringPatterns(patterns);
    populateMathPolynomialApproximationPatterns(patterns);
    if (failed(applyPatternsGreedily(func, std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
