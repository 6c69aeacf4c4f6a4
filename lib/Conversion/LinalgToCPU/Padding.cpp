//===- Padding.cpp - Padded buffers with only their borders filled --------===//
//
// Part of fx-cpu-schedule; see CPUSchedule.h.
//
// A padded tensor is written as data inserted into the interior of a
// filled one (`insert_slice %data into (linalg.fill %pad)`: an int8 conv's
// NHWC input, QuantizedConv.cpp). Bufferized as it stands, the whole
// buffer is filled and the data, computed into a buffer of its own, copied
// into the interior; and where CSE merges the fills of several same-sized
// padded tensors (the blocks of one stage of a CNN), each insertion but
// one copies the filled buffer first. Here each insertion gets a buffer of
// its own whose borders alone are filled, and the data's producer writes
// straight into its interior.
//
//===----------------------------------------------------------------------===//

#include "CPUSchedule.h"

#include "fx-mlir/Conversion/Passes.h"

using namespace mlir;

namespace mlir::fx::cpu {

/// The boxes (offsets, sizes) of a `shape` box outside its sub-box at
/// `at` of `sizes`: per dim, the slabs below and above the sub-box, the
/// dims before it restricted to the sub-box.
static SmallVector<std::pair<SmallVector<int64_t>, SmallVector<int64_t>>>
borderBoxes(ArrayRef<int64_t> shape, ArrayRef<int64_t> at,
            ArrayRef<int64_t> sizes) {
  SmallVector<std::pair<SmallVector<int64_t>, SmallVector<int64_t>>> boxes;
  SmallVector<int64_t> lo(shape.size(), 0), extent(shape);
  for (size_t d = 0; d < shape.size(); ++d) {
    if (at[d] > 0) {
      SmallVector<int64_t> offsets(lo), boxSizes(extent);
      offsets[d] = 0;
      boxSizes[d] = at[d];
      boxes.push_back({offsets, boxSizes});
    }
    if (at[d] + sizes[d] < shape[d]) {
      SmallVector<int64_t> offsets(lo), boxSizes(extent);
      offsets[d] = at[d] + sizes[d];
      boxSizes[d] = shape[d] - offsets[d];
      boxes.push_back({offsets, boxSizes});
    }
    lo[d] = at[d];
    extent[d] = sizes[d];
  }
  return boxes;
}

void fillBordersOnly(RewriterBase &rewriter, func::FuncOp func) {
  SmallVector<linalg::FillOp> fills;
  func.walk([&](linalg::FillOp fill) {
    auto type = dyn_cast<RankedTensorType>(fill.getResult(0).getType());
    if (type && type.hasStaticShape() &&
        fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>())
      fills.push_back(fill);
  });
  OpBuilder::InsertionGuard guard(rewriter);
  int64_t distinct = 0;
  for (linalg::FillOp fill : fills) {
    Value filled = fill.getResult(0);
    auto type = cast<RankedTensorType>(filled.getType());
    SmallVector<tensor::InsertSliceOp> inserts;
    for (Operation *user : filled.getUsers()) {
      auto insert = dyn_cast<tensor::InsertSliceOp>(user);
      if (insert && insert.getDest() == filled && insert.hasUnitStride() &&
          !ShapedType::isDynamicShape(insert.getStaticOffsets()) &&
          insert.getSourceType().hasStaticShape() &&
          insert.getSourceType().getRank() == type.getRank())
        inserts.push_back(insert);
    }
    for (tensor::InsertSliceOp insert : inserts) {
      Location loc = insert.getLoc();
      ArrayRef<int64_t> at = insert.getStaticOffsets();
      ArrayRef<int64_t> sizes = insert.getSourceType().getShape();
      auto producer = insert.getSource().getDefiningOp<linalg::LinalgOp>();
      // A reader of exactly the interior (a stride-1 window's centre tap)
      // folds into a read of the data itself, a second reader after the
      // insertion: bufferization would then copy the interior out and
      // back. The producer writes a buffer of its own there.
      bool interiorRead = llvm::any_of(insert->getUsers(), [&](Operation *u) {
        auto slice = dyn_cast<tensor::ExtractSliceOp>(u);
        return slice && slice.getSource() == insert.getResult() &&
               slice.getMixedOffsets() == insert.getMixedOffsets() &&
               slice.getMixedSizes() == insert.getMixedSizes() &&
               slice.getMixedStrides() == insert.getMixedStrides();
      });
      // The producer's init where it computes every element without
      // reading it: written in place in the interior, or else (another
      // reader, the fill's value defined after it) a tensor of its own
      // where it was a slice of the filled tensor, which then goes.
      OpOperand *init = nullptr;
      bool inPlace = false;
      if (producer && producer->getBlock() == insert->getBlock() &&
          producer->getNumResults() == 1 &&
          producer.getNumReductionLoops() == 0 &&
          producer.hasPureTensorSemantics() &&
          !producer.payloadUsesValueFromOperand(
              producer.getDpsInitOperand(0))) {
        init = producer.getDpsInitOperand(0);
        Operation *valueDef = fill.getInputs()[0].getDefiningOp();
        inPlace = producer->hasOneUse() && !interiorRead &&
                  (!valueDef || valueDef->getBlock() != producer->getBlock() ||
                   valueDef->isBeforeInBlock(producer));
      }
      rewriter.setInsertionPoint(inPlace ? producer.getOperation()
                                         : insert.getOperation());
      // A buffer of its own (CSE would merge identical ones again).
      auto empty = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                           type.getElementType());
      empty->setAttr(kDistinctEmptyAttr,
                     rewriter.getI64IntegerAttr(distinct++));
      Value padded = empty;
      Value value = fill.getInputs()[0];
      for (auto &[offsets, boxSizes] :
           borderBoxes(type.getShape(), at, sizes)) {
        SmallVector<OpFoldResult> o = getAsIndexOpFoldResult(
                                      rewriter.getContext(), offsets),
                                  s = getAsIndexOpFoldResult(
                                      rewriter.getContext(), boxSizes),
                                  ones(offsets.size(),
                                       rewriter.getIndexAttr(1));
        Value box =
            tensor::ExtractSliceOp::create(rewriter, loc, padded, o, s, ones);
        Value boxFilled =
            linalg::FillOp::create(rewriter, loc, value, box).getResult(0);
        padded = tensor::InsertSliceOp::create(rewriter, loc, boxFilled, padded,
                                               o, s, ones);
      }
      auto sliceOfFill = [&](Value v) {
        auto slice = v.getDefiningOp<tensor::ExtractSliceOp>();
        return slice && slice.getSource() == filled;
      };
      if (init && (inPlace || sliceOfFill(init->get()))) {
        Value interior;
        if (inPlace) {
          interior = tensor::ExtractSliceOp::create(
              rewriter, loc, padded, insert.getMixedOffsets(),
              insert.getMixedSizes(), insert.getMixedStrides());
        } else {
          OpBuilder::InsertionGuard atProducer(rewriter);
          rewriter.setInsertionPoint(producer);
          auto initType = cast<RankedTensorType>(init->get().getType());
          interior = tensor::EmptyOp::create(rewriter, loc, initType.getShape(),
                                             initType.getElementType());
        }
        Operation *old = init->get().getDefiningOp();
        rewriter.modifyOpInPlace(producer, [&] { init->set(interior); });
        if (old && isa<tensor::EmptyOp, tensor::ExtractSliceOp>(old) &&
            old->use_empty())
          rewriter.eraseOp(old);
      }
      rewriter.modifyOpInPlace(insert,
                               [&] { insert.getDestMutable().set(padded); });
    }
    if (fill->use_empty()) {
      Operation *empty = fill.getOutputs()[0].getDefiningOp();
      rewriter.eraseOp(fill);
      if (empty->use_empty())
        rewriter.eraseOp(empty);
    }
  }
}

} // namespace mlir::fx::cpu
