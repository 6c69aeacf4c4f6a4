//===- LowerVectors.cpp - Vector ops to FMAs, loads and shuffles ----------===//
//
// fx-cpu-lower-vectors, on memrefs, after bufferization: lowers the vector
// ops fx-cpu-schedule made to FMAs and loads/stores (strided reads: loads
// and shuffles); math functions get polynomial approximations; copies of
// static shape become vector loads and stores.
//
//===----------------------------------------------------------------------===//

#include "CPUSchedule.h"

#include "fx-mlir/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::fx {
#define GEN_PASS_DEF_FXCPULOWERVECTORS
#include "fx-mlir/Conversion/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;
using namespace mlir::fx::cpu;
using mlir::fx::CPUTarget;

namespace {

/// Whether `value` is only an operand of vector.contracts, directly or
/// broadcast, or of what they lower to: outer products use its lanes one
/// at a time.
static bool onlyContracted(Value value) {
  return llvm::all_of(value.getUsers(), [](Operation *user) {
    if (isa<vector::BroadcastOp, vector::ShapeCastOp>(user))
      return onlyContracted(user->getResult(0));
    return isa<vector::ContractionOp, vector::OuterProductOp,
               vector::ExtractOp>(user);
  });
}

/// A 0-d vector read from a memref (one element of a strided view: a
/// slice of one item, broadcast) as a memref.load and a broadcast: the
/// transfer lowering leaves it (as a read of a non-unit stride) for LLVM
/// translation to fail on.
struct ZeroDReadAsLoad : public OpRewritePattern<vector::TransferReadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::TransferReadOp read,
                                PatternRewriter &rewriter) const override {
    if (read.getVectorType().getRank() != 0 || read.getMask() ||
        !isa<MemRefType>(read.getBase().getType()))
      return failure();
    Value element = memref::LoadOp::create(rewriter, read.getLoc(),
                                           read.getBase(), read.getIndices());
    rewriter.replaceOpWithNewOp<vector::BroadcastOp>(read, read.getVectorType(),
                                                     element);
    return success();
  }
};

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

/// Rows of a copy moved as one vector: up to this many elements.
constexpr int64_t kCopyRow = 256;

/// Whether `type` is a memref of static shape whose innermost dim is
/// contiguous.
static bool hasContiguousRows(Type type) {
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
static LogicalResult vectorizeCopy(RewriterBase &rewriter,
                                   linalg::CopyOp copy) {
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

  /// MLIR's approximations of log and log2 read the exponent of f32 inputs
  /// from their bits, so a subnormal input gives the smallest normal's
  /// logarithm: such inputs are scaled by 2^23 first and the logarithm of
  /// 2^23 taken off the result.
  static void scaleSubnormalLogs(func::FuncOp func) {
    func.walk([](Operation *op) {
      if (!isa<math::LogOp, math::Log2Op>(op) ||
          !getElementTypeOrSelf(op->getResult(0).getType()).isF32())
        return;
      OpBuilder b(op);
      Location loc = op->getLoc();
      Value x = op->getOperand(0);
      Type type = x.getType();
      auto constant = [&](float v) -> Value {
        if (auto vector = dyn_cast<VectorType>(type))
          return arith::ConstantOp::create(b, loc, vector,
                                           DenseElementsAttr::get(vector, v));
        return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
      };
      Value small = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x,
                                          constant(0x1p-126f));
      Value scaled = arith::SelectOp::create(
          b, loc, small, arith::MulFOp::create(b, loc, x, constant(0x1p23f)),
          x);
      op->setOperand(0, scaled);
      b.setInsertionPointAfter(op);
      Value result = op->getResult(0);
      float shift = isa<math::LogOp>(op) ? 23 * float(M_LN2) : 23.0f;
      Value shifted = arith::SubFOp::create(b, loc, result, constant(shift));
      Value fixed = arith::SelectOp::create(b, loc, small, shifted, result);
      result.replaceUsesWithIf(fixed, [&](OpOperand &use) {
        return use.getOwner() != shifted.getDefiningOp() &&
               use.getOwner() != fixed.getDefiningOp();
      });
    });
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    MLIRContext *context = &getContext();
    TargetTuning tuned(func, target);
    if (tuned.failed())
      return signalPassFailure();
    // A copy into or out of a strided view (the interior of a padded
    // input) would become a call to the generic, element-by-element
    // memrefCopy: as linalg.copy it becomes loops LLVM vectorizes.
    IRRewriter rewriter(context);
    // The int8 convs' dot products as vpdpbusd or vpmaddwd.
    if (tuned.cpu().int8Dot || tuned.cpu().int8Pairs)
      lowerByteDots(rewriter, func, tuned.cpu());
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
      if (type.getElementType().getIntOrFloatBitWidth() == 32 &&
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
    patterns.add<ZeroDReadAsLoad>(context);
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
    // MLIR's polynomial approximations (f16 and bf16 computed in f32),
    // but not of sin and cos: they reduce the argument by one f32 multiple
    // of pi/2 (wrong from |x| ~ 1e4 on, unbounded past 1e9) and give sin
    // of tiny negative x a wrong sign; LLVM calls the C library's sinf
    // and cosf per lane instead.
    auto approximated = [](StringRef name) {
      return llvm::is_contained(
          {"math.atan", "math.atan2", "math.tanh", "math.log", "math.log2",
           "math.log1p", "math.erf", "math.erfc", "math.asin", "math.acos",
           "math.exp", "math.expm1", "math.cbrt"},
          name);
    };
    populateMathF32ExpansionPatterns(patterns, [&](StringRef name) {
      return approximated(name) || name == "math.sin" || name == "math.cos";
    });
    populateMathPolynomialApproximationPatterns(patterns, approximated);
    scaleSubnormalLogs(func);
    if (failed(applyPatternsGreedily(func, std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
