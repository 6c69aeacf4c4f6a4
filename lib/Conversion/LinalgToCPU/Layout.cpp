//===- Layout.cpp - NHWC for elementwise ops between NHWC producers -------===//
//
// Part of fx-cpu-schedule; see CPUSchedule.h.
//
// An int8 conv computes its products in NHWC; the graph around it is NCHW.
// Where an elementwise op reads such products across (a residual block's
// epilogue: products + the block's input, ReLU, requantize) and its result
// feeds more of the same (the next block's residual add), the whole chain
// is computed in NHWC: each op of the chain writes NHWC, reads the chain's
// results along their rows, and its NCHW readers outside the chain get a
// transpose of their own, which fuses into them. A concatenation along the
// channels of chain results (an inception block's branches) is one too:
// its parts go to [0, 0, 0, c] of an NHWC result.
//
//===----------------------------------------------------------------------===//

#include "CPUSchedule.h"

using namespace mlir;

namespace mlir::fx::cpu {

/// Whether `op` is an elementwise generic writing a 4-D NCHW-ordered (or
/// 5-D NCDHW-ordered: int8 conv3d's) result (identity init map) that is
/// not a plain copy.
static bool isNCHWElementwise(linalg::GenericOp op) {
  if ((op.getNumLoops() != 4 && op.getNumLoops() != 5) ||
      op.getNumReductionLoops() != 0 || op.getNumDpsInits() != 1 ||
      !op.hasPureTensorSemantics() ||
      !op.getMatchingIndexingMap(op.getDpsInitOperand(0)).isIdentity() ||
      op.payloadUsesValueFromOperand(op.getDpsInitOperand(0)))
    return false;
  auto type = dyn_cast<RankedTensorType>(op.getResult(0).getType());
  if (!type || !type.hasStaticShape())
    return false;
  // A plain copy (a transpose) is what the rewrite adds.
  Block *body = op.getBody();
  if (body->getOperations().size() == 1)
    return false;
  return llvm::all_of(op.getIndexingMapsArray(), [](AffineMap map) {
    return map.isProjectedPermutation(/*allowZeroInResults=*/true);
  });
}

/// A concatenation along the channels of 4-D NCHW tensors, as
/// convert-fx-to-linalg writes torch.cat: tensor.insert_slice of each part
/// at [0, c, 0, 0] into the previous one's result, from a tensor.empty.
struct Concat {
  SmallVector<tensor::InsertSliceOp> inserts; // in order
  Value result() { return inserts.back().getResult(); }
};

/// The concatenation whose last insert is `last`, if it is one.
static std::optional<Concat> concatEndingAt(tensor::InsertSliceOp last) {
  Concat concat;
  auto type = cast<RankedTensorType>(last.getResult().getType());
  if (type.getRank() != 4 || !type.hasStaticShape())
    return std::nullopt;
  for (tensor::InsertSliceOp insert = last; insert;
       insert = insert.getDest().getDefiningOp<tensor::InsertSliceOp>()) {
    auto part = cast<RankedTensorType>(insert.getSourceType());
    if (!insert.hasUnitStride() || part.getRank() != 4 ||
        !part.hasStaticShape() || part.getDimSize(0) != type.getDimSize(0) ||
        part.getDimSize(2) != type.getDimSize(2) ||
        part.getDimSize(3) != type.getDimSize(3) ||
        llvm::any_of(insert.getStaticOffsets(),
                     [](int64_t o) { return ShapedType::isDynamic(o); }) ||
        insert.getStaticOffsets()[0] != 0 ||
        insert.getStaticOffsets()[2] != 0 || insert.getStaticOffsets()[3] != 0)
      return std::nullopt;
    if (insert != last && !insert->hasOneUse())
      return std::nullopt;
    concat.inserts.insert(concat.inserts.begin(), insert);
    if (insert.getDest().getDefiningOp<tensor::EmptyOp>())
      return concat;
  }
  return std::nullopt;
}

bool computeChainsInNHWC(RewriterBase &rewriter, func::FuncOp func) {
  MLIRContext *context = func.getContext();
  // Rank 4 (NCHW, n c h w) or 5 (NCDHW): the channels dim 1, the spatial
  // dims 2 ...
  auto rankOf = [](Operation *op) {
    return cast<linalg::GenericOp>(op).getNumLoops();
  };
  // An NHWC (NDHWC) tensor read in NCHW (NCDHW) order: (n, c, s...) ->
  // [n, s..., c].
  auto acrossNHWC = [&](unsigned rank) {
    SmallVector<unsigned> dims{0};
    for (unsigned i = 2; i < rank; ++i)
      dims.push_back(i);
    dims.push_back(1);
    return AffineMap::getPermutationMap(dims, context);
  };
  auto identityOf = [&](unsigned rank) {
    return AffineMap::getMultiDimIdentityMap(rank, context);
  };
  DenseSet<Operation *> isCandidate;
  // Concatenations, by each of their inserts.
  SmallVector<Concat> concats;
  DenseMap<Operation *, unsigned> concatOf;
  func.walk([&](Operation *op) {
    if (auto generic = dyn_cast<linalg::GenericOp>(op)) {
      if (isNCHWElementwise(generic))
        isCandidate.insert(op);
    } else if (auto insert = dyn_cast<tensor::InsertSliceOp>(op)) {
      bool last = !insert->hasOneUse() ||
                  !isa<tensor::InsertSliceOp>(*insert->getUsers().begin());
      if (!last)
        return;
      if (std::optional<Concat> concat = concatEndingAt(insert)) {
        for (tensor::InsertSliceOp part : concat->inserts)
          concatOf[part] = concats.size();
        concats.push_back(std::move(*concat));
      }
    }
  });
  // The chains: seeded by ops reading NHWC words across, grown through
  // ops reading a chain member's result in order, and through
  // concatenations all of whose parts are chain members.
  llvm::SetVector<Operation *> chain;
  DenseSet<unsigned> chainConcats;
  SmallVector<Value> worklist;
  for (Operation *op : isCandidate) {
    auto generic = cast<linalg::GenericOp>(op);
    if (llvm::any_of(generic.getDpsInputOperands(),
                     [&](OpOperand *in) {
                       Type element = getElementTypeOrSelf(in->get().getType());
                       return generic.getMatchingIndexingMap(in) ==
                                  acrossNHWC(generic.getNumLoops()) &&
                              element.isIntOrFloat() &&
                              element.getIntOrFloatBitWidth() == 32;
                     }) &&
        chain.insert(op))
      worklist.push_back(generic.getResult(0));
  }
  auto inChain = [&](Value v) {
    Operation *producer = v.getDefiningOp();
    if (!producer)
      return false;
    if (chain.contains(producer))
      return true;
    auto it = concatOf.find(producer);
    return it != concatOf.end() && chainConcats.contains(it->second) &&
           concats[it->second].result() == v;
  };
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (OpOperand &use : value.getUses()) {
      Operation *reader = use.getOwner();
      if (auto generic = dyn_cast<linalg::GenericOp>(reader)) {
        if (isCandidate.contains(reader) && generic.isDpsInput(&use) &&
            generic.getMatchingIndexingMap(&use).isIdentity() &&
            chain.insert(reader))
          worklist.push_back(generic.getResult(0));
        continue;
      }
      auto it = concatOf.find(reader);
      if (it == concatOf.end() || chainConcats.contains(it->second))
        continue;
      Concat &concat = concats[it->second];
      if (llvm::all_of(concat.inserts, [&](tensor::InsertSliceOp part) {
            return inChain(part.getSource());
          })) {
        chainConcats.insert(it->second);
        worklist.push_back(concat.result());
      }
    }
  }
  if (chain.empty())
    return false;
  // The members in program order, so that a member's inputs from the
  // chain exist when it is rewritten: generics, and concatenations by
  // their last insert.
  SmallVector<Operation *> ordered(chain.begin(), chain.end());
  for (unsigned c : chainConcats)
    ordered.push_back(concats[c].inserts.back());
  if (llvm::any_of(ordered, [&](Operation *op) {
        return op->getBlock() != ordered.front()->getBlock();
      }))
    return false;
  llvm::sort(ordered,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  // Old loops (n, c, h, w) -> new loops (n, h, w, c) (and (n, c, d, h,
  // w) -> (n, d, h, w, c)).
  auto toNew = [&](unsigned rank) {
    SmallVector<unsigned> dims{0, rank - 1};
    for (unsigned i = 1; i + 1 < rank; ++i)
      dims.push_back(i);
    return AffineMap::getPermutationMap(dims, context);
  };
  DenseMap<Value, Value> nhwc;
  auto nhwcType = [](RankedTensorType type) {
    SmallVector<int64_t> shape{type.getDimSize(0)};
    for (int64_t i = 2; i < type.getRank(); ++i)
      shape.push_back(type.getDimSize(i));
    shape.push_back(type.getDimSize(1));
    return RankedTensorType::get(shape, type.getElementType());
  };
  // A chain reader reads the NHWC value in order; any other reader gets a
  // transpose back of its own, which fuses into it. A reader nested in an
  // op's region (a tensor.extract in an interpolation's body) gets it
  // before that op, one for all its uses there: inside, it would be
  // computed again for each element.
  auto redirect = [&](Value old) {
    DenseMap<Operation *, Value> before;
    for (OpOperand &use : llvm::make_early_inc_range(old.getUses())) {
      Operation *reader = use.getOwner();
      auto type = cast<RankedTensorType>(old.getType());
      unsigned rank = type.getRank();
      if (chain.contains(reader) &&
          cast<linalg::GenericOp>(reader).getMatchingIndexingMap(&use) ==
              identityOf(rank))
        continue;
      auto it = concatOf.find(reader);
      if (it != concatOf.end() && chainConcats.contains(it->second) &&
          cast<tensor::InsertSliceOp>(reader).getSource() == old)
        continue;
      Operation *at = old.getParentBlock()->findAncestorOpInBlock(*reader);
      if (!at)
        at = reader;
      if (at != reader) {
        if (Value shared = before.lookup(at)) {
          rewriter.modifyOpInPlace(reader, [&] { use.set(shared); });
          continue;
        }
      }
      rewriter.setInsertionPoint(at);
      Value back = tensor::EmptyOp::create(
          rewriter, old.getLoc(), type.getShape(), type.getElementType());
      Value transposed =
          linalg::GenericOp::create(
              rewriter, old.getLoc(), TypeRange{type}, ValueRange{nhwc[old]},
              ValueRange{back},
              ArrayRef<AffineMap>{acrossNHWC(rank), identityOf(rank)},
              SmallVector<utils::IteratorType>(rank,
                                               utils::IteratorType::parallel),
              [&](OpBuilder &b, Location loc, ValueRange args) {
                linalg::YieldOp::create(b, loc, args[0]);
              })
              .getResult(0);
      if (at != reader)
        before[at] = transposed;
      rewriter.modifyOpInPlace(reader, [&] { use.set(transposed); });
    }
  };
  SmallVector<Operation *> old;
  for (Operation *raw : ordered) {
    rewriter.setInsertionPoint(raw);
    if (auto last = dyn_cast<tensor::InsertSliceOp>(raw)) {
      // The concatenation in NHWC: each part at [0, 0, 0, c].
      Concat &concat = concats[concatOf[last]];
      auto type = cast<RankedTensorType>(concat.result().getType());
      Value result = tensor::EmptyOp::create(rewriter, last.getLoc(),
                                             nhwcType(type).getShape(),
                                             type.getElementType());
      for (tensor::InsertSliceOp part : concat.inserts) {
        auto partType = cast<RankedTensorType>(part.getSourceType());
        int64_t c = part.getStaticOffsets()[1];
        result = tensor::InsertSliceOp::create(
            rewriter, part.getLoc(), nhwc[part.getSource()], result,
            indexAttrs(rewriter, {0, 0, 0, c}),
            indexAttrs(rewriter, nhwcType(partType).getShape()),
            indexAttrs(rewriter, {1, 1, 1, 1}));
        old.push_back(part);
      }
      nhwc[concat.result()] = result;
      redirect(concat.result());
      continue;
    }
    auto op = cast<linalg::GenericOp>(raw);
    auto type = cast<RankedTensorType>(op.getResult(0).getType());
    unsigned rank = rankOf(op);
    AffineMap identity = identityOf(rank);
    SmallVector<Value> inputs;
    SmallVector<AffineMap> maps;
    for (OpOperand *in : op.getDpsInputOperands()) {
      AffineMap map = op.getMatchingIndexingMap(in);
      if (map == identity && nhwc.count(in->get())) {
        inputs.push_back(nhwc[in->get()]);
        maps.push_back(identity);
        continue;
      }
      inputs.push_back(in->get());
      maps.push_back(map.compose(toNew(rank)));
    }
    maps.push_back(identity);
    Value empty = tensor::EmptyOp::create(rewriter, op.getLoc(),
                                          nhwcType(type).getShape(),
                                          type.getElementType());
    auto flipped = linalg::GenericOp::create(
        rewriter, op.getLoc(), TypeRange{empty.getType()}, inputs,
        ValueRange{empty}, maps, op.getIteratorTypesArray());
    rewriter.cloneRegionBefore(op.getRegion(), flipped.getRegion(),
                               flipped.getRegion().end());
    nhwc[op.getResult(0)] = flipped.getResult(0);
    redirect(op.getResult(0));
    old.push_back(op);
  }
  // The old members, readers first: their chain readers now read the new
  // ones.
  llvm::sort(old,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  for (Operation *op : llvm::reverse(old))
    if (op->use_empty())
      rewriter.eraseOp(op);
  return true;
}

bool mergeIdenticalCopies(RewriterBase &rewriter, func::FuncOp func) {
  // Copies: all-parallel generics of one input whose body yields it, not
  // reading their init (they write every element).
  auto isCopy = [](linalg::GenericOp op) {
    return op.getNumDpsInputs() == 1 && op.getNumDpsInits() == 1 &&
           op.getNumReductionLoops() == 0 && op.hasPureTensorSemantics() &&
           op.getBody()->getOperations().size() == 1 &&
           op.getBody()->getTerminator()->getOperand(0) ==
               op.getBody()->getArgument(0) &&
           op.getMatchingIndexingMap(op.getDpsInitOperand(0)).isPermutation();
  };
  bool changed = false;
  for (Block &block : func.getBody()) {
    // The first copy of each (input, maps, result type) in the block.
    DenseMap<std::tuple<Value, Attribute, Type>, linalg::GenericOp> first;
    SmallVector<linalg::GenericOp> copies;
    for (Operation &op : block)
      if (auto generic = dyn_cast<linalg::GenericOp>(op);
          generic && isCopy(generic))
        copies.push_back(generic);
    for (linalg::GenericOp op : copies) {
      auto key =
          std::make_tuple(op.getDpsInputs()[0], Attribute(op.getIndexingMaps()),
                          op.getResult(0).getType());
      auto [it, inserted] = first.try_emplace(key, op);
      if (inserted)
        continue;
      rewriter.replaceOp(op, it->second.getResult(0));
      changed = true;
    }
  }
  return changed;
}

} // namespace mlir::fx::cpu
