//===- Contraction.cpp - Packed, tiled, vectorized contractions
//-------------===//
//
// Part of fx-cpu-schedule; see CPUSchedule.h.
//
//===----------------------------------------------------------------------===//

#include "CPUSchedule.h"

using namespace mlir;

namespace mlir::fx::cpu {

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

/// Of `candidates`, the loop that indexes the innermost result dim.
static unsigned innermost(ArrayRef<unsigned> candidates, AffineMap result) {
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

/// Whether a packing copy keeps the innermost dim (B read (k, n)); one
/// that moves it (B read (n, k)) is for the transposing tiles of the
/// elementwise schedule.
static bool keepsInnermost(linalg::TransposeOp copy) {
  ArrayRef<int64_t> permutation = copy.getPermutation();
  return permutation.back() == int64_t(permutation.size()) - 1;
}

/// The copy that packs a contraction's columns operand (packColumns), and
/// the pieces of it computed inside the contraction's cache blocks.
struct PackCopies {
  linalg::TransposeOp original;
  SmallVector<linalg::TransposeOp> fused;
};

/// Moves the packing copy of the columns operand of `block` (one k block
/// of a packed contraction, inside its cache block loops) into those
/// loops: each block packs the k x columns block it reads, just before
/// it reads it, where the copy of the whole operand before the
/// contraction wrote it all to memory and the blocks read it back (AVX2
/// code for 64x4096x4096: the copy took 36% of the time). The operand is
/// reached through the loops' chain of extract_slices; each is replaced,
/// outermost first, by a copy of the slice it takes.
static void fusePackCopy(RewriterBase &rewriter, linalg::LinalgOp block,
                         PackCopies &copies) {
  // Not a B read (n, k): its copy moves the innermost dim, which the
  // schedule's transposing tiles do best on the whole operand.
  if (!keepsInnermost(copies.original))
    return;
  SmallVector<tensor::ExtractSliceOp> chain;
  for (OpOperand *input : block.getDpsInputOperands()) {
    SmallVector<tensor::ExtractSliceOp> slices;
    Value v = input->get();
    while (auto slice = v.getDefiningOp<tensor::ExtractSliceOp>()) {
      slices.push_back(slice);
      v = slice.getSource();
    }
    if (v.getDefiningOp() == copies.original.getOperation() &&
        !slices.empty()) {
      chain = std::move(slices);
      break;
    }
  }
  for (tensor::ExtractSliceOp slice : llvm::reverse(chain)) {
    Operation *producer = slice.getSource().getDefiningOp();
    std::optional<scf::SCFFuseProducerOfSliceResult> fused =
        scf::tileAndFuseProducerOfSlice(rewriter, slice, {});
    if (!fused)
      return;
    rewriter.eraseOp(slice);
    // The copy of the slice's slice replaces it: the one before is dead
    // unless another piece reads it too.
    if (producer != copies.original.getOperation() && producer->use_empty()) {
      llvm::erase(copies.fused, cast<linalg::TransposeOp>(producer));
      rewriter.eraseOp(producer);
    }
    for (Operation *op : fused->tiledOps) {
      auto copy = dyn_cast<linalg::TransposeOp>(op);
      if (!copy)
        continue;
      // Into a tensor of its own, not a slice of the whole operand's: a
      // copy writes every element of its init.
      OpOperand &init = copy.getInitMutable();
      Operation *initSlice = init.get().getDefiningOp();
      rewriter.setInsertionPoint(copy);
      auto type = cast<RankedTensorType>(init.get().getType());
      rewriter.modifyOpInPlace(copy, [&] {
        init.set(tensor::EmptyOp::create(
            rewriter, copy.getLoc(), type.getShape(), type.getElementType()));
      });
      if (isa_and_nonnull<tensor::ExtractSliceOp>(initSlice) &&
          initSlice->use_empty())
        rewriter.eraseOp(initSlice);
      copies.fused.push_back(copy);
    }
  }
}

/// A packing copy computed in a cache block: rows of a panel, in the
/// order of the operand it reads (k outer, panels inner), so that it
/// streams the operand's rows, and writes the block it packs, which the
/// cache holds, in short pieces.
static LogicalResult schedulePackCopy(RewriterBase &rewriter,
                                      linalg::TransposeOp copy) {
  ArrayRef<int64_t> permutation = copy.getPermutation();
  SmallVector<int64_t> order(permutation.size());
  for (auto [i, p] : llvm::enumerate(permutation))
    order[p] = i;
  SmallVector<int64_t> sizes(permutation.size(), 1);
  sizes.back() = tuning().panel;
  FailureOr<linalg::LinalgOp> tiled =
      tile(rewriter, cast<linalg::LinalgOp>(copy.getOperation()), sizes, false,
           order);
  if (failed(tiled))
    return failure();
  return vectorizeTile(rewriter, *tiled);
}

/// The packing copy of the whole columns operand, before the contraction:
/// in parallel blocks of panels, each scheduled as schedulePackCopy does
/// (the operand's rows streamed, a few panels written), where the
/// elementwise schedule's order (a panel's rows, one after the other)
/// read the operand N floats apart (AVX2 code, 2 threads, 1024^3 from
/// 0.81x to 0.98x of OpenBLAS, 1024x4096x1024 0.89x to 0.94x; AVX-512
/// 0.95x to 1.19x and 1.00x to 1.09x). Only for a copy that keeps the
/// innermost dim (keepsInnermost).
static LogicalResult scheduleWholePackCopy(RewriterBase &rewriter,
                                           linalg::TransposeOp copy) {
  // In parallel blocks of panels: each thread writes a few panels (in
  // blocks of the operand's rows, each writing every panel: AVX2 code, 2
  // threads, 384x768x3072 at 0.85x of OpenBLAS where blocks of panels
  // reach 1.01x).
  FailureOr<linalg::LinalgOp> blocks = tileParallelBlocks(rewriter, copy);
  if (failed(blocks))
    return failure();
  auto block = dyn_cast<linalg::TransposeOp>(blocks->getOperation());
  if (!block)
    return failure();
  return schedulePackCopy(rewriter, block);
}

/// Tiles a contraction into a scf.forall over cache blocks of the result
/// (of `cols` columns, or every column when `cols` is 0) and an scf.for
/// over k blocks, of the sizes `strategy` gives; returns the op of one k
/// block.
static FailureOr<linalg::LinalgOp>
tileCacheBlocks(RewriterBase &rewriter, linalg::LinalgOp op,
                ContractionLoops loops, const ContractionStrategy &strategy,
                int64_t rows, int64_t cols, PackCopies &copies) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  unsigned m = loops.m, n = loops.n, k = loops.k;
  SmallVector<int64_t> blocks(ranges.size(), 1), depth(ranges.size(), 0);
  // Reductions (k and a conv's window loops) stay out of the forall.
  SmallVector<unsigned> reductions;
  op.getReductionDims(reductions);
  for (unsigned d : reductions)
    blocks[d] = 0;
  // The piece a packed contraction left unpacked (the columns past its
  // last whole panel) keeps blocks of kBlockRows rows at most.
  int64_t blockRows = strategy.pack && !loops.panel
                          ? std::min(strategy.blockRows, kBlockRows)
                          : strategy.blockRows;
  blocks[m] = blockSize(ranges[m], rows, std::max(blockRows, rows));
  blocks[n] =
      cols ? blockSize(ranges[n], cols, std::max(strategy.blockCols, cols)) : 0;
  // A packed contraction's block: blockCols columns of whole panels.
  if (loops.panel)
    blocks[*loops.panel] =
        blockSize(ranges[*loops.panel], 1,
                  std::max<int64_t>(strategy.blockCols / ranges[n], 1));
  depth[k] = blockSize(ranges[k], 1, strategy.blockDepth);
  if (depth[k] == ranges[k])
    depth[k] = 0;
  FailureOr<linalg::LinalgOp> tiled = tile(rewriter, op, blocks, true);
  if (succeeded(tiled))
    tiled = tile(rewriter, *tiled, depth, false);
  // Each row block packs the columns it reads again: worth it for one or
  // two row blocks (64x4096x4096: 0.60x of eager with the copy before,
  // 0.83x packed in the blocks, AVX2 on an AMD EPYC; AVX-512 0.93x and
  // 1.14x), not for more (384x768x3072, 6 blocks: 0.94-0.99x before,
  // 0.88-0.91x in the blocks, AVX-512).
  // A row tail (fewer rows than a register tile) reads the copy of the
  // whole operand, which the other rows read too (or, when those pack in
  // their blocks, which costs one more copy of it, as packing again here
  // would).
  if (succeeded(tiled) && copies.original &&
      ranges[m] <= kPackCopyRowBlocks * blocks[m] && rows == strategy.rows)
    fusePackCopy(rewriter, *tiled, copies);
  return tiled;
}

/// Tiles an exactly-divisible piece of a contraction into register tiles
/// of `rows` x `cols` with k steps of 1, and vectorizes the tile.
static LogicalResult tileRegisters(RewriterBase &rewriter, linalg::LinalgOp op,
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

int64_t registerRows(int64_t m) {
  if (m <= tuning().tileRows)
    return m;
  // Many rows: full tiles and a short tail (AVX2 code for 1024^3: 6-row
  // tiles and a tail of 4 at 0.95x of OpenBLAS's GFLOPS, tiles of 4 at
  // 0.89x; 2 threads 0.96x and 0.79x), where fewer, smaller tiles that
  // divide the rows do better on few (64: 4 rows at 0.91x, 6 at 0.83x).
  if (m % tuning().tileRows == 0 || m >= 32 * tuning().tileRows)
    return tuning().tileRows;
  for (int64_t r = tuning().tileRows; r >= tuning().tileRows - 2; --r)
    if (m % r == 0)
      return r;
  return tuning().tileRows;
}

/// `op` split along n into whole register tiles of `cols` columns, the
/// columns left over in whole registers, and the last few columns.
static SmallVector<linalg::LinalgOp> splitColumns(RewriterBase &rewriter,
                                                  linalg::LinalgOp op,
                                                  unsigned n, int64_t cols) {
  SmallVector<linalg::LinalgOp> split = splitTail(rewriter, op, n, cols);
  SmallVector<linalg::LinalgOp> pieces = {split.front()};
  if (split.size() == 2)
    llvm::append_range(pieces,
                       splitTail(rewriter, split.back(), n, tuning().lanes));
  return pieces;
}

/// The panel width for a vector-matrix product of `columns` columns: its
/// register tile's (8 vectors, see chooseContraction), or the widest of 4
/// and 2 vectors that divides the columns; 0 when none does. Each register
/// tile then streams one panel, K rows of contiguous floats, where B's
/// rows read N floats apart touch a new page every k step and defeat the
/// prefetcher (an LSTM's h @ w_hh^T, 256 x 1024: 8 GB/s from the cache).
static int64_t vectorPanel(int64_t columns) {
  for (int64_t vectors : {8, 4, 2})
    if (columns % (vectors * tuning().lanes) == 0)
      return vectors * tuning().lanes;
  return 0;
}

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
/// only when it is larger than L1 (kPackElements) and the
/// contraction has kBlockRows rows or more, so that the copy costs little
/// against the contraction it speeds up. Returns the new contraction and
/// its loops; with `check`, only whether it applies, `op` unchanged.
static FailureOr<std::pair<linalg::LinalgOp, ContractionLoops>>
packColumns(RewriterBase &rewriter, linalg::LinalgOp op, ContractionLoops loops,
            bool check = false, linalg::TransposeOp *packCopy = nullptr) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  unsigned m = loops.m, n = loops.n, k = loops.k;
  // Fewer rows than a register tile's (a vector-matrix product: an LSTM's
  // step h @ w_hh^T at batch 1): panels as wide as its one row of
  // accumulators (vectorPanel), for a constant B only.
  bool fewRows = ranges[m] < tuning().tileRows;
  int64_t panel = fewRows ? vectorPanel(ranges[n]) : tuning().panel;
  if (loops.panel || op.getNumDpsInputs() != 2 || panel == 0 ||
      ranges[n] % panel != 0 || ranges[n] == panel)
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
  if (!constant && (fewRows || ranges[m] < kBlockRows ||
                    bType.getNumElements() < kPackElements))
    return failure();
  if (check)
    return std::pair<linalg::LinalgOp, ContractionLoops>{op, loops};

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
    packed = transposedConstant(rewriter, loc, bytes, bType, panel,
                                /*panelColumns=*/!transposed);
  } else {
    // Split B's n dim into (N/panel, panel), then move K
    // between them.
    unsigned rank = bType.getRank(), nPos = transposed ? rank - 2 : rank - 1;
    SmallVector<int64_t> shape(bType.getShape());
    shape[nPos] = panel;
    shape.insert(shape.begin() + nPos, columns / panel);
    SmallVector<ReassociationIndices> groups;
    for (unsigned i = 0; i < rank; ++i)
      groups.push_back(i < nPos    ? ReassociationIndices{i}
                       : i == nPos ? ReassociationIndices{i, i + 1}
                                   : ReassociationIndices{i + 1});
    Value split = tensor::ExpandShapeOp::create(
        rewriter, loc, RankedTensorType::get(shape, f32), b->get(), groups);
    SmallVector<int64_t> permutation =
        llvm::to_vector(llvm::seq<int64_t>(0, rank + 1));
    if (transposed) // (..., N/panel, panel, K)
      std::swap(permutation[rank - 1], permutation[rank]);
    else // (..., K, N/panel, panel)
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
  cShape.append({columns / panel, panel});
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
  if (packCopy)
    *packCopy = copy;
  return std::pair<linalg::LinalgOp, ContractionLoops>{
      product,
      ContractionLoops{m < n ? m : m + 1, n + 1, k < n ? k : k + 1, n}};
}

/// Whether a contraction with many columns, not a multiple of a panel (a
/// 1x1 conv on a 28x28 image: 784 = 24 x 32 + 16), is split into its
/// whole panels, packed, and the rest (resnet50's 1x1 convs on 28x28 went
/// from 0.76-0.86x to 0.96-0.98x of eager).
static bool splitsPanels(linalg::LinalgOp op, ContractionLoops loops) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  return !loops.panel && ranges[loops.n] > kBlockCols &&
         ranges[loops.n] % tuning().panel != 0 && ranges[loops.m] >= kBlockRows;
}

ContractionStrategy chooseContraction(linalg::LinalgOp op,
                                      ContractionLoops loops) {
  ContractionStrategy s;
  IRRewriter rewriter(op.getContext());
  bool packs = succeeded(packColumns(rewriter, op, loops, /*check=*/true));
  s.pack = packs || splitsPanels(op, loops);
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  // Enough accumulators to hide the FMA latency: 8x32 for matrices (see
  // registerRows), one row of 128 for a vector-matrix product.
  s.rows = registerRows(ranges[loops.m]);
  s.cols = s.rows >= 4 ? 2 * tuning().lanes : 8 * tuning().lanes;
  // A packed contraction: the largest of tuning().packedBlockRows, its
  // half and kBlockRows that leaves 4 row blocks, or with the column
  // blocks kParallelCacheBlocks blocks in all (fewer row blocks read the
  // packed columns fewer times: AVX2 code, 1 / 2 threads, 384x768x3072
  // from 0.87x / 0.65x of OpenBLAS to 0.96x / 0.97x, 256x1024x4096 from
  // 0.66x / 0.58x to 0.91x / 0.82x; AVX-512 384x768x3072 0.94x / 0.82x
  // to 1.07x / 1.13x).
  s.blockRows = kBlockRows;
  int64_t columns = ranges[loops.n] * (loops.panel ? ranges[*loops.panel] : 1);
  int64_t columnBlocks = llvm::divideCeil(columns, kBlockCols);
  if (s.pack || loops.panel)
    for (int64_t r : {tuning().packedBlockRows, tuning().packedBlockRows / 2})
      if (ranges[loops.m] >= 4 * r ||
          (ranges[loops.m] >= r &&
           llvm::divideCeil(ranges[loops.m], r) * columnBlocks >=
               kParallelCacheBlocks)) {
        s.blockRows = r;
        break;
      }
  s.blockCols = kBlockCols;
  s.blockDepth =
      s.pack || loops.panel ? tuning().packedBlockDepth : kBlockDepth;
  return s;
}

static LogicalResult scheduleRegisterTiles(RewriterBase &rewriter,
                                           linalg::LinalgOp op,
                                           ContractionLoops loops,
                                           const ContractionStrategy &strategy,
                                           PackCopies &copies);
static LogicalResult schedulePacked(RewriterBase &rewriter, linalg::LinalgOp op,
                                    ContractionLoops loops,
                                    const ContractionStrategy &strategy,
                                    PackCopies &copies);

LogicalResult scheduleContraction(RewriterBase &rewriter, linalg::LinalgOp op,
                                  ContractionLoops loops,
                                  const ContractionStrategy &strategy) {
  PackCopies copies;
  if (!strategy.pack) {
    // Not packed.
  } else if (auto packed = packColumns(rewriter, op, loops, /*check=*/false,
                                       &copies.original);
             succeeded(packed)) {
    std::tie(op, loops) = *packed;
  } else if (splitsPanels(op, loops)) {
    SmallVector<linalg::LinalgOp> pieces =
        splitTail(rewriter, op, loops.n, tuning().panel);
    if (pieces.size() == 2) {
      for (linalg::LinalgOp piece : pieces)
        if (failed(scheduleContraction(rewriter, piece, loops, strategy)))
          return failure();
      return success();
    }
  }
  if (failed(schedulePacked(rewriter, op, loops, strategy, copies)))
    return failure();
  // The packing copies left: those computed in the cache blocks, and the
  // whole one if a piece still reads it.
  for (linalg::TransposeOp copy : copies.fused)
    if (failed(schedulePackCopy(rewriter, copy)))
      return failure();
  if (linalg::TransposeOp copy = copies.original) {
    if (copy->use_empty())
      rewriter.eraseOp(copy);
    else if (keepsInnermost(copy)) {
      // It has changed the IR when it fails: no other schedule after it.
      if (failed(scheduleWholePackCopy(rewriter, copy)))
        return failure();
    } else if (failed(scheduleElementwise(rewriter, copy)))
      (void)tileParallelBlocks(rewriter, copy);
  }
  return success();
}

/// scheduleContraction after packing.
static LogicalResult schedulePacked(RewriterBase &rewriter, linalg::LinalgOp op,
                                    ContractionLoops loops,
                                    const ContractionStrategy &strategy,
                                    PackCopies &copies) {
  if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation()))
    transposeOperands(rewriter, generic, loops.n, loops.k);
  // A depth with no divisor near the k block's (4112 = 16 x 257: blocks of
  // 16; a prime: blocks of 1) would load and store the result tile every
  // few k steps: the whole k blocks are split from the rest, each part
  // with blocks of its own (4096 in blocks of 256, then 16).
  int64_t depth = op.getStaticLoopRanges()[loops.k];
  if (depth > strategy.blockDepth &&
      blockSize(depth, 1, strategy.blockDepth) < strategy.blockDepth / 2) {
    SmallVector<linalg::LinalgOp> pieces =
        splitTail(rewriter, op, loops.k, strategy.blockDepth);
    if (pieces.size() == 2) {
      for (linalg::LinalgOp piece : pieces)
        if (failed(scheduleRegisterTiles(rewriter, piece, loops, strategy,
                                         copies)))
          return failure();
      return success();
    }
  }
  return scheduleRegisterTiles(rewriter, op, loops, strategy, copies);
}

/// The part of scheduleContraction after packing: cache blocks, then
/// register tiles, with the row and column tails split off.
static LogicalResult scheduleRegisterTiles(RewriterBase &rewriter,
                                           linalg::LinalgOp op,
                                           ContractionLoops loops,
                                           const ContractionStrategy &strategy,
                                           PackCopies &copies) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t rows = strategy.rows, cols = strategy.cols;
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
    if (width % cols != 0 && width <= strategy.blockCols) {
      // Few columns with a tail (resnet18's 7x7 images: 49 = 32 + 16 + 1):
      // the columns are split inside each cache block, so that every piece
      // reads the same block of the rows' operand (the conv's weights)
      // from the cache, where pieces split first would each stream all of
      // it from memory.
      FailureOr<linalg::LinalgOp> block = tileCacheBlocks(
          rewriter, piece, loops, strategy, pieceRows, 0, copies);
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
      FailureOr<linalg::LinalgOp> block = tileCacheBlocks(
          rewriter, part, loops, strategy, pieceRows, partCols, copies);
      if (failed(block) || failed(registers(*block)))
        return failure();
    }
  }
  return success();
}

} // namespace mlir::fx::cpu
