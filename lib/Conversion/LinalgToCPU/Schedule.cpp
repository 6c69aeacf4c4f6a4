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
//      parallel blocks when large) and vectorized; chains of them over an
//      int8 conv's NHWC products are computed in NHWC (Layout.cpp);
//   5. int8 convs become VNNI register tiles (ConvInt8.cpp), their
//      epilogue computed on the tiles where it reads them in NHWC.
//
// Upstream's loop-invariant-subset-hoisting then keeps each register
// tile's accumulator in registers across its k loop. fx-cpu-lower-vectors,
// on memrefs, after bufferization, lowers the vector ops to FMAs and
// loads/stores (strided reads: loads and shuffles); math functions get
// polynomial approximations.
//
//===----------------------------------------------------------------------===//

#include "CPUSchedule.h"

#include "fx-mlir/Conversion/FXToLinalg/FXToLinalg.h"
#include "fx-mlir/Conversion/Passes.h"

#include "llvm/ADT/StringMap.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::fx {
#define GEN_PASS_DEF_FXCPUSCHEDULE
#include "fx-mlir/Conversion/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;
using namespace mlir::fx::cpu;
using mlir::fx::CPUTarget;

namespace {

//===----------------------------------------------------------------------===//
// Passes
//===----------------------------------------------------------------------===//

/// Whether `operand` reads a transposing op's result (transposedLoop)
/// through the collapse_shape view replaceFromPanels makes of it.
static bool readsTransposingView(OpOperand &operand) {
  auto view = operand.get().getDefiningOp<tensor::CollapseShapeOp>();
  auto producer =
      view ? view.getSrc().getDefiningOp<linalg::LinalgOp>() : nullptr;
  return producer && producer->hasOneUse() && transposedLoop(producer);
}

/// Whether `op` is a copy: a linalg.generic of parallel loops whose body
/// yields its one input as is (through any permutation of its maps).
static bool isCopy(Operation *op) {
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic || generic.getNumDpsInputs() != 1 ||
      generic.getNumDpsInits() != 1 ||
      generic.getNumParallelLoops() != generic.getNumLoops())
    return false;
  Block &body = generic.getRegion().front();
  auto yield = dyn_cast<linalg::YieldOp>(body.getTerminator());
  return body.getOperations().size() == 1 && yield &&
         yield.getNumOperands() == 1 &&
         yield.getOperand(0) == body.getArgument(0);
}

/// Whether fusing `producer` into the consumer of `operand` would read
/// narrow elements (bytes: an int8 depthwise conv's windows) across their
/// rows: the producer reads them along its innermost loop, the consumer
/// reads the producer's result with another loop innermost (an NCHW copy
/// of an NHWC result). Fused, the bytes would be gathered one by one; apart,
/// the producer is a contiguous loop and the consumer a transpose of
/// 32-bit words, both vectorized.
static bool readsBytesAcross(Operation *producer, OpOperand &operand) {
  auto p = dyn_cast<linalg::LinalgOp>(producer);
  auto c = dyn_cast<linalg::LinalgOp>(operand.getOwner());
  if (!p || !c || p.getNumLoops() == 0 || c.getNumLoops() == 0)
    return false;
  AffineExpr inner = getAffineDimExpr(p.getNumLoops() - 1, p.getContext());
  bool narrow = llvm::any_of(p.getDpsInputOperands(), [&](OpOperand *in) {
    Type e = getElementTypeOrSelf(in->get().getType());
    AffineMap m = p.getMatchingIndexingMap(in);
    return e.isIntOrFloat() && e.getIntOrFloatBitWidth() < 32 &&
           m.getNumResults() > 0 && m.getResults().back() == inner;
  });
  if (!narrow)
    return false;
  AffineMap read = c.getMatchingIndexingMap(&operand);
  return read.getNumResults() == 0 ||
         read.getResults().back() !=
             getAffineDimExpr(c.getNumLoops() - 1, c.getContext());
}

/// The most operations one fused elementwise body holds (far more than
/// any model's chains of activations and normalizations need).
constexpr size_t kMaxFusedBodyOps = 256;

struct CPUSchedulePass
    : public mlir::fx::impl::FXCPUScheduleBase<CPUSchedulePass> {
  using FXCPUScheduleBase::FXCPUScheduleBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    MLIRContext *context = &getContext();
    TargetTuning tuned(func, target);
    if (tuned.failed())
      return signalPassFailure();
    // What the schedule took from the target, for a reader of the IR.
    func->setAttr("fx.cpu_schedule",
                  StringAttr::get(context, tuned.describe()));
    // What is not recorded yet gets the strategy fx-cpu-strategy would
    // record; a record is checked.
    if (failed(recordStrategies(func)))
      return signalPassFailure();
    IRRewriter rewriter(context);
    // What was applied, per FX node, in the order the nodes come.
    llvm::StringMap<SmallVector<std::string>> applied;
    SmallVector<std::string> nodes;
    auto note = [&](Operation *op, std::string what) {
      std::string label = nodeLabel(op);
      auto [entry, added] = applied.try_emplace(label);
      if (added)
        nodes.push_back(label);
      if (!llvm::is_contained(entry->second, what))
        entry->second.push_back(std::move(what));
    };
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
    for (linalg::Conv2DNgchwGfchwOp conv : grouped) {
      note(conv, "grouped");
      if (auto [op, loops] = groupedConv(rewriter, conv); loops)
        shifted[op] = *loops;
    }
    // The tiles a conv's record gives the contractions it becomes, by FX
    // node (they carry the conv's location).
    llvm::StringMap<DictionaryAttr> convTiles;
    for (linalg::Conv2DNchwFchwOp conv : convs) {
      FailureOr<StringRef> algorithm = readConvAlgorithm(conv);
      if (failed(algorithm))
        return signalPassFailure();
      if (auto record = conv->getAttrOfType<DictionaryAttr>(kStrategyAttr)) {
        SmallVector<NamedAttribute> tiles;
        for (StringRef key : {"register_tile", "cache_block"})
          if (Attribute value = record.get(key))
            tiles.push_back(NamedAttribute(key, value));
        if (!tiles.empty())
          convTiles[nodeLabel(conv)] = DictionaryAttr::get(context, tiles);
      }
      note(conv, algorithm->str());
      ArrayRef<char> filterBytes = constantBytes(conv.getInputs()[1]);
      if (*algorithm == "winograd") {
        auto [op, loops] = winogradConv(rewriter, conv, filterBytes);
        shifted[op] = loops;
      } else if (*algorithm == "filters-inner") {
        for (auto [op, loops] :
             shiftedWindowFiltersInner(rewriter, conv, filterBytes))
          shifted[op] = loops;
      } else if (*algorithm == "shifted-window") {
        auto [op, loops] = shiftedWindowConv(rewriter, conv);
        shifted[op] = loops;
      } else {
        rewriteConvAsContraction(rewriter, conv);
      }
    }
    // Elementwise producers fuse into their consumers, but not into
    // contractions: a relu fused into the next matmul would run once per
    // multiply and hide the contraction from its schedule.
    func.walk([&](linalg::GenericOp op) {
      if (llvm::any_of(op->getOpOperands(), readsTransposingView))
        dropConstantUnitDims(rewriter, op);
    });
    // One NHWC copy of a tensor several int8 convs read.
    mergeIdenticalCopies(rewriter, func);
    auto fuse = [&]() -> LogicalResult {
      RewritePatternSet fusion(context);
      linalg::populateElementwiseOpsFusionPatterns(
          fusion, [&shifted](OpOperand *operand) {
            Operation *producer = operand->get().getDefiningOp();
            auto consumer = cast<linalg::LinalgOp>(operand->getOwner());
            // Fusing copies the producer's body into the consumer: along a
            // chain of thousands of elementwise ops one growing body would
            // be copied at every step (quadratic in the graph's size), so
            // a body stops growing at kMaxFusedBodyOps.
            auto bodySize = [](Operation *op) {
              auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
              return linalgOp ? linalgOp.getBlock()->getOperations().size() : 0;
            };
            // A copy (a transpose: its body yields its one input) costs
            // nothing to repeat, so it fuses into several readers too when
            // every reader takes it (and then is gone): maxpool's NHWC
            // bytes transposed to NCHW and back for the next int8 conv
            // and its residual become NHWC reads of the pooling's output.
            auto fusable = [&shifted](Operation *user) {
              auto generic = dyn_cast<linalg::GenericOp>(user);
              return generic &&
                     generic.getNumParallelLoops() == generic.getNumLoops() &&
                     !shifted.count(generic);
            };
            bool readers =
                producer && (producer->hasOneUse() ||
                             (isCopy(producer) &&
                              llvm::all_of(producer->getUsers(), fusable)));
            return readers && !readsBytesAcross(producer, *operand) &&
                   !linalg::isaContractionOpInterface(consumer) &&
                   !shifted.count(consumer) &&
                   bodySize(producer) + bodySize(consumer) <= kMaxFusedBodyOps;
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
      return applyPatternsGreedily(func, std::move(fusion));
    };
    if (failed(fuse()))
      return signalPassFailure();
    // Chains of elementwise ops over an int8 conv's NHWC products in NHWC
    // (Layout.cpp), then fused again: their transposes back fuse into the
    // readers.
    if (computeChainsInNHWC(rewriter, func) && failed(fuse()))
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
    fillBordersOnly(rewriter, func);
    // int8 convs whose accumulators start from a constant (zeros) do not
    // read a filled buffer.
    // Bytes in 4-byte groups need VNNI; i16 pairs vpmaddwd (AVX2, or
    // AVX-512BW, which VNNI CPUs have).
    auto pairsForm = [](linalg::GenericOp generic) {
      return getElementTypeOrSelf(generic.getDpsInputs()[0].getType())
          .isInteger(16);
    };
    auto int8Tiles = [&](Operation *op) {
      auto generic = dyn_cast<linalg::GenericOp>(op);
      if (!generic || !op->hasAttr(mlir::fx::kInt8ConvAttr) ||
          generic.getNumDpsInputs() < 1)
        return false;
      return tuned.cpu().int8Dot ||
             (pairsForm(generic) && tuned.cpu().int8Pairs);
    };
    {
      SmallVector<linalg::GenericOp> int8Generics;
      func.walk([&](linalg::GenericOp op) {
        if (int8Tiles(op))
          int8Generics.push_back(op);
      });
      for (linalg::GenericOp op : int8Generics) {
        startInt8ConvFromConstant(rewriter, op);
        widenInt8Epilogue(rewriter, op);
      }
    }
    foldDecidedCompares(rewriter, func);
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
    // The int8 convs' products, as register tiles of byte (VNNI) or i16
    // pair (vpmaddwd) dot products where the CPU has them (last: the
    // vector patterns below would rewrite their dot products); elsewhere
    // loops.
    SmallVector<std::pair<linalg::GenericOp, linalg::GenericOp>> int8Convs;
    DenseSet<Operation *> int8Ops;
    for (linalg::LinalgOp op : ops) {
      if (int8Tiles(op)) {
        auto generic = cast<linalg::GenericOp>(op.getOperation());
        linalg::GenericOp epilogue = int8Epilogue(generic);
        // An epilogue reading two convs' products (a residual block's
        // add after a downsampling conv) goes with the first.
        if (epilogue && int8Ops.contains(epilogue))
          epilogue = {};
        int8Convs.push_back({generic, epilogue});
        int8Ops.insert(generic);
        int64_t tile = pairsForm(generic) && useInt8Winograd
                           ? int8WinogradTile(generic)
                           : 0;
        std::string kind =
            !pairsForm(generic) ? "int8 vnni"
            : tile ? llvm::formatv("int8 pairs winograd F({0}x{0}, 3x3)", tile)
                         .str()
                   : "int8 pairs";
        note(op, epilogue ? kind + ", epilogue in registers" : kind);
        if (epilogue)
          int8Ops.insert(epilogue);
      }
    }
    for (linalg::LinalgOp op : ops) {
      if (int8Ops.contains(op.getOperation()))
        continue;
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
        // A contraction the strategy step saw carries its record; one a
        // conv algorithm made gets the strategy it would have chosen, with
        // the tiles the conv's record gives.
        if (!op->hasAttr(kStrategyAttr))
          if (DictionaryAttr tiles = convTiles.lookup(nodeLabel(op)))
            op->setAttr(kStrategyAttr, tiles);
        FailureOr<ContractionStrategy> strategy = readContraction(op, *loops);
        if (failed(strategy))
          return signalPassFailure();
        if (!applied.count(nodeLabel(op)))
          note(op, "contraction");
        note(op, describe(*strategy));
        if (failed(scheduleContraction(rewriter, op, *loops, *strategy)))
          return broken(loc, "contraction");
        continue;
      }
      // An all-parallel generic writing its result permuted (an NHWC copy
      // of an NCHW input) iterates in the result's order instead, so that
      // it writes contiguously and reads across (a transposing op).
      if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
          generic && generic.getNumDpsInits() == 1 &&
          generic.getNumReductionLoops() == 0) {
        AffineMap init =
            generic.getMatchingIndexingMap(generic.getDpsInitOperand(0));
        if (init.isPermutation() && !init.isIdentity()) {
          SmallVector<unsigned> order;
          for (AffineExpr e : init.getResults())
            order.push_back(cast<AffineDimExpr>(e).getPosition());
          (void)linalg::interchangeGenericOp(rewriter, generic, order);
        }
      }
      // Parameters read with constant indices (a batch norm's [1, C, 1, 1]
      // scale, read (n, h, w, c) -> (n, c, 0, 0) once its chain is in NHWC)
      // are read as the vectors they are, so that the op is elementwise,
      // or transposing (densenet's batch norms read NCHW bytes into the
      // next conv's NHWC copy).
      if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation()))
        dropConstantUnitDims(rewriter, generic);
      std::optional<unsigned> t = transposedLoop(op);
      if (t && isStaticVectorizable(op, /*transposed=*/*t)) {
        if (failed(scheduleTransposing(rewriter, op, *t)))
          return broken(loc, "transpose");
        continue;
      }
      if (succeeded(scheduleElementwise(rewriter, op)) ||
          succeeded(scheduleRowReduction(rewriter, op)) ||
          succeeded(scheduleColumnReduction(rewriter, op)))
        continue;
      if (op.getNumDpsInits() == 1 && linalg::isaConvolutionOpInterface(op))
        moveWidthInnermost(rewriter, op);
      else if (op.getNumReductionLoops() == 0 && op.hasPureTensorSemantics() &&
               !op.hasDynamicShape() &&
               !llvm::is_contained(op.getStaticLoopRanges(), 0))
        // Other all-parallel ops (an im2col gather, a quantize to integers)
        // stay scalar loops, but large ones run in parallel blocks.
        (void)tileParallelBlocks(rewriter, op);
    }
    if (!applied.empty()) {
      SmallVector<Attribute> entries;
      for (const std::string &label : nodes)
        entries.push_back(StringAttr::get(
            context, label + ": " + llvm::join(applied[label], "; ")));
      func->setAttr("fx.cpu_strategies", ArrayAttr::get(context, entries));
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
    for (auto [op, epilogue] : int8Convs)
      if (failed(int8DotConv(rewriter, op, epilogue, useInt8Winograd)))
        op.emitWarning("fx-cpu-schedule: this int8 conv stays loops");
  }
};

} // namespace
