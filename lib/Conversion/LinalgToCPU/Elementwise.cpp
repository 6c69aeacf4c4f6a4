//===- Elementwise.cpp - Elementwise, transposing, reducing and window ops
//---===//
//
// Part of fx-cpu-schedule; see CPUSchedule.h.
//
//===----------------------------------------------------------------------===//

#include "CPUSchedule.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/IR/IRMapping.h"

#include <cmath>

using namespace mlir;

namespace mlir::fx::cpu {

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

/// Whether `generic`'s body is made of arith and math ops only.
static bool hasArithBody(linalg::GenericOp generic) {
  return llvm::all_of(generic.getBody()->getOperations(), [](Operation &o) {
    return isa<arith::ArithDialect, math::MathDialect>(o.getDialect()) ||
           isa<linalg::YieldOp>(o);
  });
}

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

/// Whether `op` reads integer windows: several views (tensor.extract_slice)
/// of one tensor of integers, as an int8 depthwise conv written as an
/// elementwise op over its window taps (QuantizedConv.cpp), each tap
/// converted to f32.
static bool readsIntegerWindows(linalg::LinalgOp op) {
  llvm::SmallDenseMap<Value, int> views;
  for (OpOperand *input : op.getDpsInputOperands())
    if (auto slice = input->get().getDefiningOp<tensor::ExtractSliceOp>())
      if (isa<IntegerType>(slice.getSourceType().getElementType()) &&
          ++views[slice.getSource()] >= 2)
        return true;
  return false;
}

LogicalResult scheduleElementwise(RewriterBase &rewriter, linalg::LinalgOp op) {
  if (!isStaticVectorizable(op, std::nullopt) || !isElementwiseLike(op))
    return failure();
  bool windows = readsIntegerWindows(op);
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
    // Integer window taps: a few neighbouring outputs along the next loop
    // (the image's width) a tile, so that an input pixel several taps read
    // is loaded and converted once for them (f32 windows, read by FMAs
    // from memory, gain nothing: f32 mobilenet_v2 twice as slow). Up to 12
    // registers of results with 32 registers (int8 mobilenet_v2's depthwise
    // convs, 1 thread: 4.47 ms one output a tile, 4.33 up to 8 registers, 4.2
    // up to 12 or 16), 4 with 16 (AVX2).
    // With 16 registers a row of 3 (144 channels in blocks of 24) leaves
    // no room for a second output: the row is then one register, so that
    // 4 outputs (4 independent chains of FMAs) fit.
    if (windows && inner >= 1) {
      int64_t budget = tuning().tileRows >= 8 ? 12 : 4;
      auto neighbours = [&]() -> int64_t {
        int64_t registers = llvm::divideCeil(sizes[inner], tuning().lanes);
        for (int64_t u : {8, 7, 6, 4, 3, 2})
          if (pieceRanges[inner - 1] % u == 0 && u * registers <= budget)
            return u;
        return 1;
      };
      int64_t u = neighbours();
      if (u == 1 && sizes[inner] > tuning().lanes &&
          sizes[inner] % tuning().lanes == 0) {
        int64_t row = sizes[inner];
        sizes[inner] = tuning().lanes;
        u = neighbours();
        if (u == 1)
          sizes[inner] = row;
      }
      sizes[inner - 1] = u;
    }
    if (succeeded(tiled))
      tiled = tile(rewriter, *tiled, sizes, false);
    if (failed(tiled) || failed(vectorizeTile(rewriter, *tiled)))
      return failure();
  }
  return success();
}

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

/// Whether upstream's collapseOpIterationDims can take `op`: every operand
/// read through a projected permutation without constant results (it
/// crashes on a broadcast read as (n, c, 0, 0)).
static bool collapsible(linalg::LinalgOp op) {
  return isa<linalg::GenericOp>(op) &&
         llvm::all_of(op.getIndexingMapsArray(), [](AffineMap map) {
           return map.isProjectedPermutation(/*allowZeroInResults=*/false);
         });
}

/// `op` with its loops collapsed as `groups` say (upstream's
/// collapseOpIterationDims), replacing it.
static FailureOr<linalg::LinalgOp>
collapseIterationDims(RewriterBase &rewriter, linalg::LinalgOp op,
                      ArrayRef<ReassociationIndices> groups) {
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::CollapseResult> collapsed =
      linalg::collapseOpIterationDims(op, groups, rewriter);
  if (failed(collapsed))
    return failure();
  rewriter.replaceOp(op, collapsed->results);
  return collapsed->collapsedOp;
}

/// Collapses `op`'s loops `d` and `d + 1` into one, replacing `op`.
static LogicalResult collapsePair(RewriterBase &rewriter, linalg::LinalgOp &op,
                                  unsigned d) {
  SmallVector<ReassociationIndices> groups;
  for (unsigned i = 0; i < op.getNumLoops(); ++i) {
    if (i == d + 1)
      continue;
    if (i == d)
      groups.push_back({int64_t(i), int64_t(i + 1)});
    else
      groups.push_back({int64_t(i)});
  }
  FailureOr<linalg::LinalgOp> collapsed =
      collapseIterationDims(rewriter, op, groups);
  if (failed(collapsed))
    return failure();
  op = *collapsed;
  return success();
}

LogicalResult scheduleTransposing(RewriterBase &rewriter, linalg::LinalgOp op,
                                  unsigned t) {
  // The innermost loops that every operand reads contiguously are one
  // (an image's rows and columns: 14 x 14 positions make 12 tiles of 16).
  unsigned inner = op.getNumLoops() - 1;
  while (collapsible(op) && inner - 1 != t &&
         linalg::areDimSequencesPreserved(op.getIndexingMapsArray(),
                                          {{inner - 1, inner}})) {
    if (failed(collapsePair(rewriter, op, inner - 1)))
      break;
    --inner;
  }
  // So are the loop read innermost across and the one before it (an NHWC
  // result of an NCHW input: h and w, 7 x 7 positions make 3 tiles of 16).
  // Always where they can: a tile read across an expanded dim (a register
  // of 16 x 1 x 16 from a [c, h, w] view of [c, h * w]) is a read of the
  // view, which fx-cpu-fold-memref-alias-ops leaves unfolded (MLIR 22's
  // fold-memref-alias-ops folded it into a wrong read of [c, h * w]).
  while (collapsible(op) && t > 0 && t - 1 != inner &&
         linalg::areDimSequencesPreserved(op.getIndexingMapsArray(),
                                          {{t - 1, t}})) {
    if (failed(collapsePair(rewriter, op, t - 1)))
      break;
    --t;
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

/// The generic `op` with its loops [begin, end) made one, where every
/// operand reads them as one run of dims, replacing it; fails, changing
/// nothing, otherwise.
static FailureOr<linalg::LinalgOp> collapseLoops(RewriterBase &rewriter,
                                                 linalg::LinalgOp op,
                                                 unsigned begin, unsigned end) {
  SmallVector<ReassociationIndices> folded(1);
  for (unsigned i = begin; i < end; ++i)
    folded.front().push_back(i);
  if (!isa<linalg::GenericOp>(op.getOperation()) ||
      !linalg::areDimSequencesPreserved(op.getIndexingMapsArray(), folded))
    return failure();
  return collapseIterationDims(rewriter, op, folded);
}

static FailureOr<std::pair<linalg::GenericOp, linalg::GenericOp>>
splitReductionStages(RewriterBase &rewriter, linalg::GenericOp op,
                     ArrayRef<unsigned> outer);

/// Columns reduced over more than this many values are summed in blocks
/// (splitLongColumn).
static constexpr int64_t kLongColumn = 1024;

/// Splits a float column reduction of more than kLongColumn values per
/// output into blocks: a partial op (the blocks a parallel loop, its
/// results a tensor with the blocks outermost) and the blocks' sum, both
/// scheduled as column reductions. Several reduced loops are collapsed
/// into one first, where every operand reads them as one run of dims (x.sum
/// ((1, 2)) of NCHW data); reduced loops apart (x.sum((0, 2))) are reduced
/// the last first, then the others (splitReductionStages). The block count
/// is the divisor of the reduced range nearest its square root from below,
/// at least kMinColumnBlocks. Fails, changing nothing, on short columns, on
/// ops reading their indices (splitReduction's rebuilt indices are wrong
/// there, scheduleRowReduction) and where the reduced loops do not
/// collapse or have no such divisor.
static LogicalResult splitLongColumn(RewriterBase &rewriter,
                                     linalg::LinalgOp op) {
  constexpr int64_t kMinColumnBlocks = 4;
  if (!isStaticF32(op) || op.hasIndexSemantics() ||
      !isa<linalg::GenericOp>(op.getOperation()))
    return failure();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<unsigned> reduced;
  op.getReductionDims(reduced);
  int64_t count = 1;
  for (unsigned i : reduced)
    count *= ranges[i];
  if (count <= kLongColumn)
    return failure();
  if (reduced.size() > 1) {
    if (reduced.back() - reduced.front() + 1 != reduced.size()) {
      // Reduced loops apart (x.sum((0, 2)) of NCHW data, w kept): the last
      // one first, then the others, each a column reduction.
      auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
      if (!generic)
        return failure();
      auto stages = splitReductionStages(rewriter, generic,
                                         ArrayRef(reduced).drop_back());
      if (failed(stages))
        return failure();
      (void)scheduleColumnReduction(rewriter, stages->first);
      (void)scheduleColumnReduction(rewriter, stages->second);
      return success();
    }
    FailureOr<linalg::LinalgOp> collapsed =
        collapseLoops(rewriter, op, reduced.front(), reduced.back() + 1);
    if (failed(collapsed))
      return failure();
    // The op is replaced: the collapsed one, unscheduled, is still right.
    (void)scheduleColumnReduction(rewriter, *collapsed);
    return success();
  }
  int64_t root = static_cast<int64_t>(std::sqrt(double(count)));
  int64_t blocks = root;
  while (blocks >= kMinColumnBlocks && count % blocks != 0)
    --blocks;
  if (blocks < kMinColumnBlocks)
    return failure();
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::SplitReductionResult> split =
      linalg::splitReduction(rewriter, op, [&](linalg::LinalgOp) {
        return linalg::SplitReductionOptions{blocks, /*index=*/0,
                                             /*innerParallel=*/false};
      });
  if (failed(split))
    return failure();
  // The op is replaced: a piece its schedule does not take is a loop, and
  // still right.
  (void)scheduleColumnReduction(
      rewriter, cast<linalg::LinalgOp>(split->splitLinalgOp.getOperation()));
  (void)scheduleColumnReduction(
      rewriter,
      cast<linalg::LinalgOp>(split->resultCombiningLinalgOp.getOperation()));
  return success();
}

LogicalResult scheduleColumnReduction(RewriterBase &rewriter,
                                      linalg::LinalgOp op) {
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic || !isStaticVectorizable(op, std::nullopt) ||
      op.getNumDpsInits() != 1 || op.getNumReductionLoops() == 0 ||
      !hasArithBody(generic))
    return failure();
  // The loop the largest input is contiguous along: a parallel one.
  OpOperand *largest = nullptr;
  for (OpOperand *input : op.getDpsInputOperands()) {
    auto type = dyn_cast<RankedTensorType>(input->get().getType());
    if (type &&
        (!largest ||
         type.getNumElements() >
             cast<RankedTensorType>(largest->get().getType()).getNumElements()))
      largest = input;
  }
  if (!largest)
    return failure();
  AffineMap readMap = op.getMatchingIndexingMap(largest);
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  if (readMap.getNumResults() == 0)
    return failure();
  auto last = dyn_cast<AffineDimExpr>(readMap.getResults().back());
  if (!last || !linalg::isParallelIterator(iterators[last.getPosition()]))
    return failure();
  unsigned c = last.getPosition();
  // Every operand reads it innermost (only unit dims after it) or not at
  // all, through projected permutations.
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    auto type = dyn_cast<RankedTensorType>(operand.get().getType());
    if (!type || !map.isProjectedPermutation(/*allowZeroInResults=*/true))
      return failure();
    std::optional<unsigned> pos =
        map.getResultPosition(rewriter.getAffineDimExpr(c));
    if (!pos)
      continue;
    for (unsigned r = *pos + 1; r < map.getNumResults(); ++r)
      if (type.getDimSize(r) != 1)
        return failure();
  }
  // Already a row reduction's or an elementwise op's shape: not this one.
  if (c == op.getNumLoops() - 1 && linalg::isParallelIterator(iterators[c]) &&
      llvm::all_of(llvm::seq<unsigned>(0, c), [&](unsigned i) {
        return linalg::isParallelIterator(iterators[i]);
      }))
    return failure();
  // A long column is summed in blocks, then the blocks' results (as long
  // rows are, scheduleRowReduction): each lane adds about 2 sqrt(n) values
  // in a row instead of n (x.sum((1, 2)) of 2x64x256x256: 5.9e-6 relative
  // in one run of each lane, eager's cascade 1.8e-7).
  if (succeeded(splitLongColumn(rewriter, op)))
    return success();
  // Parallel loops, reduced loops, then that one.
  SmallVector<unsigned> order;
  for (unsigned i = 0; i < iterators.size(); ++i)
    if (i != c && linalg::isParallelIterator(iterators[i]))
      order.push_back(i);
  for (unsigned i = 0; i < iterators.size(); ++i)
    if (linalg::isReductionIterator(iterators[i]))
      order.push_back(i);
  order.push_back(c);
  FailureOr<linalg::GenericOp> interchanged =
      linalg::interchangeGenericOp(rewriter, generic, order);
  if (failed(interchanged))
    return failure();
  linalg::LinalgOp reordered = *interchanged;
  unsigned inner = order.size() - 1;
  int64_t range = reordered.getStaticLoopRanges()[inner];
  int64_t width = range <= 4 * tuning().lanes
                      ? range
                      : blockSize(range, tuning().lanes, 4 * tuning().lanes);
  if (width > 4 * tuning().lanes)
    width = tuning().lanes;
  // The tiles' loops: the parallel ones, c's blocks, then the reduced ones
  // (a block's accumulators stay in registers across them).
  SmallVector<int64_t> loopOrder;
  for (unsigned i = 0; i < inner; ++i)
    if (linalg::isParallelIterator(reordered.getIteratorTypesArray()[i]))
      loopOrder.push_back(i);
  loopOrder.push_back(inner);
  for (unsigned i = 0; i < inner; ++i)
    if (linalg::isReductionIterator(reordered.getIteratorTypesArray()[i]))
      loopOrder.push_back(i);
  for (linalg::LinalgOp piece : splitTail(rewriter, reordered, inner, width)) {
    SmallVector<int64_t> sizes(order.size(), 1);
    sizes[inner] = std::min(width, piece.getStaticLoopRanges()[inner]);
    FailureOr<linalg::LinalgOp> tiled =
        tile(rewriter, piece, sizes, false, loopOrder);
    if (failed(tiled) || failed(vectorizeTile(rewriter, *tiled)))
      return failure();
  }
  return success();
}

/// Rows longer than this many registers are summed in blocks, at least
/// kMinRowBlocks of them (scheduleRowReduction).
static constexpr int64_t kLongRowRegisters = 1024;
static constexpr int64_t kMinRowBlocks = 4;

/// The number of blocks a row of `registers` registers is summed in: the
/// divisor of `registers` nearest its square root from below (each block
/// then `registers / blocks` registers long), or 1 when the row is short
/// or has no divisor past kMinRowBlocks.
static int64_t rowBlocks(int64_t registers) {
  if (registers <= kLongRowRegisters)
    return 1;
  int64_t root = static_cast<int64_t>(std::sqrt(double(registers)));
  for (int64_t blocks = root; blocks >= kMinRowBlocks; --blocks)
    if (registers % blocks == 0)
      return blocks;
  return 1;
}

/// Splits the float reduction `op` in two: the reduced loops but `outer`
/// reduced into a partial tensor indexed by `outer` and the output's dims,
/// then the body's combiner (add, max, ...) over `outer`, into the op's own
/// init; returns the two ops (the first is the op's body with `outer`
/// parallel, the second loops over [outer..., output dims...]). Each value
/// then passes through two shorter chains instead of one long one. Fails,
/// changing nothing, where the body's reduction is not one combiner with a
/// neutral element.
static FailureOr<std::pair<linalg::GenericOp, linalg::GenericOp>>
splitReductionStages(RewriterBase &rewriter, linalg::GenericOp op,
                     ArrayRef<unsigned> outer) {
  if (op.getNumDpsInits() != 1 || op.hasIndexSemantics() || outer.empty())
    return failure();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  unsigned loops = iterators.size();
  SmallVector<Operation *> combiners;
  if (!matchReduction(op.getRegionOutputArgs(), 0, combiners) ||
      combiners.size() != 1 || combiners.front()->getNumOperands() != 2)
    return failure();
  Operation *combiner = combiners.front();
  std::optional<TypedAttr> neutral = arith::getNeutralElement(combiner);
  OpOperand *init = op.getDpsInitOperand(0);
  AffineMap outMap = op.getMatchingIndexingMap(init);
  auto outType = dyn_cast<RankedTensorType>(init->get().getType());
  if (!neutral || !outType || !outMap.isProjectedPermutation())
    return failure();
  MLIRContext *context = rewriter.getContext();
  Location loc = op.getLoc();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  // The partial sums: [outer reduced loops..., the output's dims...].
  SmallVector<AffineExpr> partialExprs;
  SmallVector<int64_t> partialShape;
  for (unsigned i : outer) {
    partialExprs.push_back(getAffineDimExpr(i, context));
    partialShape.push_back(ranges[i]);
  }
  llvm::append_range(partialExprs, outMap.getResults());
  llvm::append_range(partialShape, outType.getShape());
  rewriter.setInsertionPoint(op);
  Type element = outType.getElementType();
  Value partialInit =
      linalg::FillOp::create(
          rewriter, loc,
          ValueRange{arith::ConstantOp::create(rewriter, loc, *neutral)},
          ValueRange{
              tensor::EmptyOp::create(rewriter, loc, partialShape, element)})
          .getResult(0);
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  maps.back() = AffineMap::get(loops, 0, partialExprs, context);
  SmallVector<utils::IteratorType> partialIterators = iterators;
  for (unsigned i : outer)
    partialIterators[i] = utils::IteratorType::parallel;
  auto partial = linalg::GenericOp::create(
      rewriter, loc, TypeRange{partialInit.getType()}, op.getDpsInputs(),
      ValueRange{partialInit}, maps, partialIterators);
  rewriter.cloneRegionBefore(op.getRegion(), partial.getRegion(),
                             partial.getRegion().begin());
  // The partials combined: loops [outer..., output dims...].
  unsigned r = outer.size(), p = outMap.getNumResults();
  SmallVector<AffineExpr> outExprs;
  for (unsigned i = 0; i < p; ++i)
    outExprs.push_back(getAffineDimExpr(r + i, context));
  SmallVector<AffineMap> combineMaps{
      AffineMap::getMultiDimIdentityMap(r + p, context),
      AffineMap::get(r + p, 0, outExprs, context)};
  SmallVector<utils::IteratorType> combineIterators(
      r, utils::IteratorType::reduction);
  combineIterators.append(p, utils::IteratorType::parallel);
  Value carried = op.getRegionOutputArgs().front();
  auto combine = linalg::GenericOp::create(
      rewriter, loc, TypeRange{outType}, ValueRange{partial.getResult(0)},
      ValueRange{init->get()}, combineMaps, combineIterators,
      [&](OpBuilder &b, Location nested, ValueRange args) {
        IRMapping mapping;
        for (Value operand : combiner->getOperands())
          mapping.map(operand, operand == carried ? args[1] : args[0]);
        Operation *clone = b.clone(*combiner, mapping);
        linalg::YieldOp::create(b, nested, clone->getResult(0));
      });
  rewriter.replaceOp(op, combine.getResults());
  return std::make_pair(partial, combine);
}

/// A float reduction over trailing loops and others outside them
/// (x.mean((0, 2, 3)) of NCHW data: n, h and w reduced, c kept), split in
/// two (splitReductionStages): the trailing loops as a row reduction, then
/// the others as a column one. As one op it ran as scalar loops, one chain
/// per output (11x slower than eager, 40x less exact).
static LogicalResult splitOuterReductions(RewriterBase &rewriter,
                                          linalg::GenericOp op) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  unsigned loops = iterators.size(), first = loops;
  while (first > 0 && linalg::isReductionIterator(iterators[first - 1]))
    --first;
  SmallVector<unsigned> outer;
  for (unsigned i = 0; i < first; ++i)
    if (linalg::isReductionIterator(iterators[i]))
      outer.push_back(i);
  if (first == loops)
    return failure();
  auto stages = splitReductionStages(rewriter, op, outer);
  if (failed(stages))
    return failure();
  // The op is replaced: a piece its schedule does not take is a loop, and
  // still right.
  (void)scheduleRowReduction(rewriter, stages->first);
  (void)scheduleColumnReduction(rewriter, stages->second);
  return success();
}

LogicalResult scheduleRowReduction(RewriterBase &rewriter,
                                   linalg::LinalgOp op) {
  // linalg::splitReduction rebuilds a linalg.index of the split dim as
  // `outer + lane`, not `outer * lanes + lane` (MLIR 22): an op that reads
  // its indices (tril fused into a sum, cumsum's triangle) is not split.
  if (!isStaticF32(op) || op.getNumDpsInits() != 1 ||
      op.getNumReductionLoops() == 0 || op.hasIndexSemantics())
    return failure();
  if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation()))
    dropConstantUnitDims(rewriter, generic, /*toScalars=*/true);
  // Reduced loops outside the trailing ones (x.mean((0, 2, 3)) of NCHW
  // data): the trailing ones first (a row reduction), then the others.
  if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
      generic && succeeded(splitOuterReductions(rewriter, generic)))
    return success();
  // A reduction over several trailing loops that every operand reads
  // contiguously (a whole tensor's sum, var or norm; x.mean((2, 3)) of
  // NCHW data) is one loop first, where that loop is long or fills whole
  // registers (else it stays for the schedules after this one).
  if (unsigned reductions = op.getNumReductionLoops(); reductions > 1) {
    unsigned loops = op.getNumLoops(), first = loops - reductions;
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    int64_t length = 1;
    for (unsigned i = first; i < loops; ++i)
      length *= ranges[i];
    int64_t lanes = tuning().lanes;
    bool registers = length % lanes == 0 && length >= 2 * lanes;
    if ((length <= kLongRowRegisters * lanes && !registers) ||
        llvm::any_of(ArrayRef(op.getIteratorTypesArray()).drop_front(first),
                     [](utils::IteratorType t) {
                       return !linalg::isReductionIterator(t);
                     }))
      return failure();
    FailureOr<linalg::LinalgOp> collapsed =
        collapseLoops(rewriter, op, first, loops);
    if (failed(collapsed))
      return failure();
    // The op is replaced: the collapsed one, unscheduled, is still right.
    (void)scheduleRowReduction(rewriter, *collapsed);
    return success();
  }
  unsigned inner = op.getNumLoops() - 1;
  if (!linalg::isReductionIterator(op.getIteratorTypesArray()[inner]))
    return failure();
  int64_t size = op.getStaticLoopRanges()[inner];
  if (size % tuning().lanes != 0 || size < 2 * tuning().lanes)
    return failure();
  AffineExpr reduced = rewriter.getAffineDimExpr(inner);
  for (AffineMap map : op.getIndexingMapsArray())
    if (!map.isProjectedPermutation(/*allowZeroInResults=*/true) ||
        (map.isFunctionOfDim(inner) && map.getResults().back() != reduced))
      return failure();
  // A long row is summed in blocks (parallel), then the blocks' results:
  // each lane adds about 2 sqrt(size / lanes) values in a row instead of
  // size / lanes, and the rounding error grows with that count ((x *
  // x).sum() of 10^6 values: 4.6e-4 relative in one run of each lane,
  // eager's cascade 3.5e-9). A single row also runs on several threads.
  if (int64_t blocks = rowBlocks(size / tuning().lanes); blocks > 1) {
    rewriter.setInsertionPoint(op);
    FailureOr<linalg::SplitReductionResult> split =
        linalg::splitReduction(rewriter, op, [&](linalg::LinalgOp) {
          return linalg::SplitReductionOptions{blocks, inner,
                                               /*innerParallel=*/false};
        });
    if (failed(split))
      return failure();
    auto partial = cast<linalg::LinalgOp>(split->splitLinalgOp.getOperation());
    auto combine =
        cast<linalg::LinalgOp>(split->resultCombiningLinalgOp.getOperation());
    // The op is replaced: whatever the pieces' schedules do, the rewrite
    // stands (a piece left unscheduled is a loop, and still right).
    (void)scheduleRowReduction(rewriter, partial);
    // The blocks' results: a short row, vectorized where it divides into
    // registers, else a loop.
    (void)scheduleRowReduction(rewriter, combine);
    return success();
  }
  if (op.getNumLoops() < 2)
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
  // row's expanded dims (MLIR 22's fold-memref-alias-ops folded such a
  // read into one of several rows of the unexpanded source;
  // fx-cpu-fold-memref-alias-ops leaves it a read of the view).
  sizes[inner + 1] = tuning().lanes;
  tiled = tile(rewriter, *tiled, sizes, false);
  if (failed(tiled))
    return failure();
  return vectorizeTile(rewriter, *tiled);
}

/// Max or sum pooling (NCHW) of the result of an elementwise op that reads
/// NHWC data across (an int8 conv's products, through its epilogue: the
/// max pooling after resnet's first conv), pooled in NHWC instead: the
/// elementwise op writes NHWC (reading its NHWC input along the rows), the
/// windows are strided views of that, channels innermost, and only the
/// pooled result, a quarter of the data at stride 2, is transposed back.
/// Fails, changing nothing, on any other form.
static LogicalResult poolInNHWC(RewriterBase &rewriter, linalg::LinalgOp op,
                                bool max, ArrayRef<int64_t> strides,
                                ArrayRef<int64_t> dilations, int64_t kh,
                                int64_t kw) {
  Value input = op.getDpsInputs()[0], init = op.getDpsInits()[0];
  // The pooled tensor, possibly padded (with a constant: -inf, 0).
  auto pad = input.getDefiningOp<tensor::PadOp>();
  Value padValue = pad ? pad.getConstantPaddingValue() : Value();
  SmallVector<int64_t> low(4, 0), high(4, 0);
  if (pad) {
    auto lo = getConstantIntValues(pad.getMixedLowPad());
    auto hi = getConstantIntValues(pad.getMixedHighPad());
    if (!padValue || !lo || !hi || (*lo)[0] != 0 || (*lo)[1] != 0 ||
        (*hi)[0] != 0 || (*hi)[1] != 0)
      return failure();
    low = *lo;
    high = *hi;
  }
  auto producer =
      (pad ? pad.getSource() : input).getDefiningOp<linalg::GenericOp>();
  auto fill = init.getDefiningOp<linalg::FillOp>();
  MLIRContext *context = rewriter.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, context); };
  AffineMap identity = AffineMap::getMultiDimIdentityMap(4, context);
  AffineMap nhwc = AffineMap::get(4, 0, {d(0), d(2), d(3), d(1)}, context);
  if (!producer || !fill || !producer->hasOneUse() ||
      (pad && !pad->hasOneUse()) || producer.getNumLoops() != 4 ||
      producer.getNumReductionLoops() != 0 || producer.getNumDpsInits() != 1 ||
      producer.getMatchingIndexingMap(producer.getDpsInitOperand(0)) !=
          identity ||
      producer.payloadUsesValueFromOperand(producer.getDpsInitOperand(0)) ||
      llvm::none_of(producer.getDpsInputOperands(), [&](OpOperand *in) {
        return producer.getMatchingIndexingMap(in) == nhwc;
      }))
    return failure();
  auto type = cast<RankedTensorType>(producer.getResult(0).getType());
  auto initType = cast<RankedTensorType>(init.getType());
  Type element = type.getElementType();
  int64_t N = type.getDimSize(0), C = type.getDimSize(1),
          H = type.getDimSize(2), W = type.getDimSize(3);
  int64_t Hp = H + low[2] + high[2], Wp = W + low[3] + high[3];
  int64_t OH = initType.getDimSize(2), OW = initType.getDimSize(3);
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  // The producer, writing NHWC (into the interior of the padded buffer,
  // filled with the padding value, when padded).
  SmallVector<AffineMap> maps = producer.getIndexingMapsArray();
  maps.back() = nhwc;
  Value padded, empty;
  SmallVector<OpFoldResult> interiorAt =
      indexAttrs(rewriter, {0, low[2], low[3], 0});
  SmallVector<OpFoldResult> interiorSizes = indexAttrs(rewriter, {N, H, W, C});
  SmallVector<OpFoldResult> ones = indexAttrs(rewriter, {1, 1, 1, 1});
  if (pad) {
    padded = linalg::FillOp::create(
                 rewriter, loc, padValue,
                 ValueRange{tensor::EmptyOp::create(
                     rewriter, loc, ArrayRef<int64_t>{N, Hp, Wp, C}, element)})
                 .getResult(0);
    empty = tensor::ExtractSliceOp::create(
        rewriter, loc, RankedTensorType::get({N, H, W, C}, element), padded,
        interiorAt, interiorSizes, ones);
  } else {
    empty = tensor::EmptyOp::create(rewriter, loc,
                                    ArrayRef<int64_t>{N, H, W, C}, element);
  }
  auto nhwcProducer = linalg::GenericOp::create(
      rewriter, loc, TypeRange{empty.getType()}, producer.getDpsInputs(),
      ValueRange{empty}, maps, producer.getIteratorTypesArray());
  rewriter.cloneRegionBefore(producer.getRegion(), nhwcProducer.getRegion(),
                             nhwcProducer.getRegion().end());
  Value windowed = nhwcProducer.getResult(0);
  if (pad)
    windowed = tensor::InsertSliceOp::create(rewriter, loc, windowed, padded,
                                             interiorAt, interiorSizes, ones);
  // The windows and the pooling, in NHWC.
  SmallVector<Value> slices;
  for (int64_t i = 0; i < kh; ++i)
    for (int64_t j = 0; j < kw; ++j)
      slices.push_back(tensor::ExtractSliceOp::create(
          rewriter, loc, windowed,
          indexAttrs(rewriter, {0, i * dilations[0], j * dilations[1], 0}),
          indexAttrs(rewriter, {N, OH, OW, C}),
          indexAttrs(rewriter, {1, strides[0], strides[1], 1})));
  Value pooledInit =
      linalg::FillOp::create(
          rewriter, loc, fill.getInputs()[0],
          ValueRange{tensor::EmptyOp::create(
              rewriter, loc, ArrayRef<int64_t>{N, OH, OW, C}, element)})
          .getResult(0);
  SmallVector<AffineMap> poolMaps(slices.size() + 1, identity);
  Value pooled =
      linalg::GenericOp::create(
          rewriter, loc, TypeRange{pooledInit.getType()}, slices,
          ValueRange{pooledInit}, poolMaps,
          SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
          [&](OpBuilder &b, Location loc, ValueRange args) {
            Value acc = args.back();
            for (Value v : args.drop_back())
              acc = max ? arith::MaximumFOp::create(b, loc, acc, v).getResult()
                        : arith::AddFOp::create(b, loc, acc, v).getResult();
            linalg::YieldOp::create(b, loc, acc);
          })
          .getResult(0);
  // Back to NCHW.
  rewriter.replaceOpWithNewOp<linalg::GenericOp>(
      op, TypeRange{initType}, ValueRange{pooled}, ValueRange{init},
      ArrayRef<AffineMap>{nhwc, identity},
      SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
      [&](OpBuilder &b, Location loc, ValueRange args) {
        linalg::YieldOp::create(b, loc, args[0]);
      });
  if (pad)
    rewriter.eraseOp(pad);
  rewriter.eraseOp(producer);
  return success();
}

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
  if (!depthwise &&
      succeeded(poolInNHWC(rewriter, op, max, strides, dilations, kh, kw)))
    return success();
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

} // namespace mlir::fx::cpu
