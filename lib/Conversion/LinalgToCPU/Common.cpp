//===- Common.cpp - The target tuning and tiling helpers of the CPU schedule
//---===//
//
// Part of fx-cpu-schedule; see CPUSchedule.h.
//
//===----------------------------------------------------------------------===//

#include "CPUSchedule.h"
#include "fx-mlir/Support/Blobs.h"

using namespace mlir;

namespace mlir::fx::cpu {

thread_local const Tuning *currentTuning = nullptr;

const Tuning &tuning() {
  if (currentTuning)
    return *currentTuning;
  static const Tuning host = Tuning::from(CPUTarget::host());
  return host;
}

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

FailureOr<linalg::LinalgOp> tile(RewriterBase &rewriter, linalg::LinalgOp op,
                                 ArrayRef<int64_t> sizes, bool forall,
                                 ArrayRef<int64_t> interchange) {
  if (llvm::all_of(sizes, [](int64_t s) { return s == 0; }))
    return op;
  // One level of threads: nested parallel regions would run serialized
  // anyway, each at the cost of entering one.
  if (op->getParentOfType<scf::ForallOp>())
    forall = false;
  scf::SCFTilingOptions options;
  options.setTileSizes(indexAttrs(rewriter, sizes));
  if (!interchange.empty())
    options.setInterchange(interchange);
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

LogicalResult vectorizeTile(RewriterBase &rewriter, linalg::LinalgOp op) {
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::VectorizationResult> vectorized =
      linalg::vectorize(rewriter, op);
  if (failed(vectorized))
    return failure();
  rewriter.replaceOp(op, vectorized->replacements);
  return success();
}

void multiplyAccumulate(OpBuilder &b, Location loc, ValueRange args) {
  Value mul = arith::MulFOp::create(b, loc, args[0], args[1]);
  linalg::YieldOp::create(
      b, loc, arith::AddFOp::create(b, loc, args[2], mul).getResult());
}

void dropConstantUnitDims(RewriterBase &rewriter, linalg::GenericOp op,
                          bool toScalars) {
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
    if (!valid || (kept.empty() && !toScalars) ||
        kept.size() == map.getNumResults())
      continue;
    if (!groups.empty())
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

bool isStaticVectorizable(linalg::LinalgOp op,
                          std::optional<unsigned> transposed) {
  if (!op.hasPureTensorSemantics() || op.hasDynamicShape() ||
      llvm::is_contained(op.getStaticLoopRanges(), 0))
    return false;
  bool anyF32 = false;
  for (Type t : op->getOperandTypes()) {
    auto shaped = dyn_cast<ShapedType>(t);
    if (!shaped)
      continue;
    Type element = shaped.getElementType();
    // i16: the pairs form's activations (AVX2), written by the ops before
    // an int8 conv (its NHWC copy, a depthwise conv's quantize).
    if (!element.isF32() && !element.isInteger(32) && !element.isInteger(16) &&
        !element.isInteger(8))
      return false;
    if (shaped.hasRank() && llvm::is_contained(shaped.getShape(), 0))
      return false;
    anyF32 |= element.isF32();
  }
  // Integers only: where the body cannot trap (no division), as max
  // pooling, copies of quantized tensors' storage and arithmetic on their
  // values in f32 (a quantized add of two byte tensors: dequantize,
  // add, requantize); not fills (of a padded tensor's borders: they stay
  // fills, memsets).
  if (!anyF32 &&
      (isa<linalg::FillOp>(op) ||
       !llvm::all_of(op.getBlock()->without_terminator(), [](Operation &body) {
         return isa<
             arith::AddIOp, arith::SubIOp, arith::MulIOp, arith::MaxSIOp,
             arith::MaxUIOp, arith::MinSIOp, arith::MinUIOp, arith::XOrIOp,
             arith::AndIOp, arith::OrIOp, arith::ExtSIOp, arith::ExtUIOp,
             arith::TruncIOp, arith::SelectOp, arith::CmpIOp, arith::ConstantOp,
             arith::SIToFPOp, arith::UIToFPOp, arith::FPToSIOp, arith::FPToUIOp,
             arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::MaxNumFOp,
             arith::MinNumFOp, arith::MaximumFOp, arith::MinimumFOp,
             arith::CmpFOp, math::RoundEvenOp, math::FmaOp>(body);
       })))
    return false;
  if (!transposed)
    return true;
  // The inputs read across the innermost loop are transposed in registers
  // as 16 x 16 tiles of 32-bit words.
  AffineExpr inner = getAffineDimExpr(op.getNumLoops() - 1, op.getContext());
  return llvm::all_of(op.getDpsInputOperands(), [&](OpOperand *input) {
    AffineMap map = op.getMatchingIndexingMap(input);
    std::optional<unsigned> pos = map.getResultPosition(inner);
    return !pos || *pos + 1 == map.getNumResults() ||
           getElementTypeOrSelf(input->get().getType())
                   .getIntOrFloatBitWidth() == 32;
  });
}

//===----------------------------------------------------------------------===//
// Constant operands
//===----------------------------------------------------------------------===//

ArrayRef<char> constantBytes(Value v) {
  auto constant = v.getDefiningOp<arith::ConstantOp>();
  if (!constant)
    return {};
  return fx::getElementsData(constant.getValue());
}

Value transposedConstant(RewriterBase &rewriter, Location loc,
                         ArrayRef<char> bytes, RankedTensorType type,
                         int64_t panel, bool panelColumns) {
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
  auto blob = copiedBlob(ArrayRef<float>(to));
  auto value = DenseResourceElementsAttr::get(
      RankedTensorType::get(shape, type.getElementType()), "transposed",
      std::move(blob));
  return arith::ConstantOp::create(rewriter, loc, value);
}

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

TargetTuning::TargetTuning(Operation *op, StringRef name)
    : target(CPUTarget::lookup(name)) {
  if (!target) {
    op->emitError() << "unknown CPU target '" << name
                    << "': use host or one of "
                    << llvm::join(CPUTarget::knownNames(), ", ");
    return;
  }
  tuning = Tuning::from(*target);
  scoped.emplace(*tuning);
}

} // namespace mlir::fx::cpu
