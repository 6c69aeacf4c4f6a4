//===- ConvInt8.cpp - int8 convolutions as VNNI register tiles ------------===//
//
// Part of fx-cpu-schedule; see CPUSchedule.h.
//
// The products of an int8 conv (QuantizedConv.cpp) read
//   x [N, Hp, Wp, C4, 4]          unsigned activation bytes, NHWC
//   w [OCB, KH, KW, C4, 16 V, 4]  signed weight bytes
// into D [N, OH, OWp, OCB, 16 V] (i32). One register tile is 16 V output
// channels (V vectors of 16 i32 lanes) by P pixels of one output row: for
// each window position and 4-channel group, V vectors of weights are
// loaded, the 4 activation bytes of each pixel broadcast to all lanes, and
// the 4 byte products of each lane added into its i32 accumulator, written
// as vector arithmetic (laneDot) that fx-cpu-lower-vectors, after
// bufferization, makes one `vpdpbusd` (llvm.x86.avx512.vpdpbusd.512, an
// op of unknown memory effects the deallocation passes refuse): 64
// multiply-adds per instruction, 2 P V accumulators held in registers
// across the whole window.
//
// The pairs form (CPUs without VNNI: AVX2) is the same tile on
//   x [N, Hp, Wp, C2, 2]          activation bytes widened to i16
//   w [OCB, KH, KW, C2, 16 V, 2]  weights as i16
// with 2 products a lane (laneDot): one `vpmaddwd` and an add for 8
// lanes on AVX2 (16 on AVX-512), 8 multiply-adds an instruction, where
// the f32 form's FMA does 8 on fewer execution ports. Exact alike.
//
// A 3-D conv of one clip (int8Conv3d) is the same tile with a depth: the
// weights [OCB, KD, KH, KW, C4, 16 V, G], the input [Dp, Hp, Wp, C4, G]
// whose image n (an output depth) reads depth n * sd + kd * dd for each
// depth tap kd, a loop around the window's.
//
//===----------------------------------------------------------------------===//

#include "CPUSchedule.h"

#include "fx-mlir/Conversion/FXToLinalg/FXToLinalg.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;

namespace mlir::fx::cpu {

/// acc + the sums of G products per i32 lane, `u` and `s` vector<16xi32>
/// of G elements a lane: 4 bytes, `u` read unsigned and `s` signed (what
/// `vpdpbusd` computes), or 2 i16, both read signed (what `vpmaddwd` and
/// an add compute), in pure vector arithmetic (i32 sums wrap, never
/// saturate). fx-cpu-lower-vectors makes it those instructions
/// (lowerByteDots).
Value laneDot(OpBuilder &b, Location loc, Value acc, Value u, Value s,
              int64_t G) {
  Type i32 = b.getI32Type();
  auto narrow = VectorType::get({16 * G}, b.getIntegerType(32 / G));
  auto wide = VectorType::get({16 * G}, i32);
  Value un = vector::BitCastOp::create(b, loc, narrow, u);
  Value uw = G == 4 ? arith::ExtUIOp::create(b, loc, wide, un).getResult()
                    : arith::ExtSIOp::create(b, loc, wide, un).getResult();
  Value sw = arith::ExtSIOp::create(
      b, loc, wide, vector::BitCastOp::create(b, loc, narrow, s));
  Value products =
      vector::ShapeCastOp::create(b, loc, VectorType::get({16, G}, i32),
                                  arith::MulIOp::create(b, loc, uw, sw));
  return vector::MultiDimReductionOp::create(b, loc, products, acc,
                                             ArrayRef<bool>{false, true},
                                             vector::CombiningKind::ADD);
}

SmallVector<Value>
countedLoop(OpBuilder &b, Location loc, int64_t count, ValueRange carried,
            function_ref<SmallVector<Value>(Value, ValueRange)> body) {
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  auto forOp =
      scf::ForOp::create(b, loc, index(0), index(count), index(1), carried);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(forOp.getBody());
  SmallVector<Value> next =
      body(forOp.getInductionVar(), forOp.getRegionIterArgs());
  scf::YieldOp::create(b, loc, next);
  return SmallVector<Value>(forOp.getResults());
}

Value broadcastGroup(OpBuilder &b, Location loc, Value group) {
  Type i32 = b.getI32Type();
  Value word = vector::ExtractOp::create(
      b, loc,
      vector::BitCastOp::create(b, loc, VectorType::get({1}, i32), group),
      ArrayRef<int64_t>{0});
  return vector::BroadcastOp::create(b, loc, VectorType::get({16}, i32), word);
}

/// The i16 pair dot products of laneDot's form `op` reduces, as
/// `vpmaddwd` (one of 512 bits on AVX-512, two of 256 on AVX2) and an
/// add; false when `op` is not of that form.
static bool lowerPairDot(RewriterBase &rewriter, vector::MultiDimReductionOp op,
                         const CPUTarget &cpu) {
  Type i16 = rewriter.getI16Type(), i32 = rewriter.getI32Type();
  auto words = VectorType::get({16}, i32);
  if (op.getKind() != vector::CombiningKind::ADD ||
      op.getSourceVectorType() != VectorType::get({16, 2}, i32) ||
      op.getReductionMask() != ArrayRef<bool>{false, true} ||
      op.getAcc().getType() != words)
    return false;
  auto cast = op.getSource().getDefiningOp<vector::ShapeCastOp>();
  auto mul =
      cast ? cast.getSource().getDefiningOp<arith::MulIOp>() : arith::MulIOp();
  if (!mul)
    return false;
  auto lhs = mul.getLhs().getDefiningOp<arith::ExtSIOp>();
  auto rhs = mul.getRhs().getDefiningOp<arith::ExtSIOp>();
  auto halves = VectorType::get({32}, i16);
  if (!lhs || !rhs || lhs.getIn().getType() != halves ||
      rhs.getIn().getType() != halves)
    return false;
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Value dot;
  if (cpu.f32Lanes >= 16) {
    dot = LLVM::CallIntrinsicOp::create(
              rewriter, loc, words,
              rewriter.getStringAttr("llvm.x86.avx512.pmaddw.d.512"),
              ValueRange{lhs.getIn(), rhs.getIn()})
              ->getResult(0);
  } else {
    // Two halves of 8 lanes, concatenated.
    SmallVector<Value> parts;
    for (int64_t half = 0; half < 2; ++half) {
      auto slice = [&](Value v) -> Value {
        return vector::ExtractStridedSliceOp::create(
            rewriter, loc, v, ArrayRef<int64_t>{16 * half},
            ArrayRef<int64_t>{16}, ArrayRef<int64_t>{1});
      };
      parts.push_back(LLVM::CallIntrinsicOp::create(
                          rewriter, loc, VectorType::get({8}, i32),
                          rewriter.getStringAttr("llvm.x86.avx2.pmadd.wd"),
                          ValueRange{slice(lhs.getIn()), slice(rhs.getIn())})
                          ->getResult(0));
    }
    dot = vector::ShuffleOp::create(rewriter, loc, parts[0], parts[1],
                                    llvm::to_vector(llvm::seq<int64_t>(0, 16)));
  }
  rewriter.replaceOp(
      op, arith::AddIOp::create(rewriter, loc, op.getAcc(), dot).getResult());
  return true;
}

void lowerByteDots(RewriterBase &rewriter, func::FuncOp func,
                   const CPUTarget &cpu) {
  SmallVector<vector::MultiDimReductionOp> dots;
  func.walk([&](vector::MultiDimReductionOp op) { dots.push_back(op); });
  Type i8 = rewriter.getI8Type(), i32 = rewriter.getI32Type();
  auto words = VectorType::get({16}, i32);
  for (vector::MultiDimReductionOp op : dots) {
    if ((cpu.int8Pairs || cpu.int8Dot) && lowerPairDot(rewriter, op, cpu))
      continue;
    if (!cpu.int8Dot)
      continue;
    // multi_reduction<add>(shape_cast(muli(extui(bitcast u),
    //                                      extsi(bitcast s))), acc) [1]
    if (op.getKind() != vector::CombiningKind::ADD ||
        op.getSourceVectorType() != VectorType::get({16, 4}, i32) ||
        op.getReductionMask() != ArrayRef<bool>{false, true} ||
        op.getAcc().getType() != words)
      continue;
    auto cast = op.getSource().getDefiningOp<vector::ShapeCastOp>();
    auto mul = cast ? cast.getSource().getDefiningOp<arith::MulIOp>()
                    : arith::MulIOp();
    if (!mul)
      continue;
    Value u, s;
    for (auto [a, b] : {std::pair(mul.getLhs(), mul.getRhs()),
                        std::pair(mul.getRhs(), mul.getLhs())}) {
      auto zext = a.getDefiningOp<arith::ExtUIOp>();
      auto sext = b.getDefiningOp<arith::ExtSIOp>();
      if (!zext || !sext)
        continue;
      if (zext.getIn().getType() != VectorType::get({64}, i8) ||
          sext.getIn().getType() != VectorType::get({64}, i8))
        continue;
      u = zext.getIn();
      s = sext.getIn();
      break;
    }
    if (!u)
      continue;
    // LLVM 22's intrinsic takes the bytes as <64 x i8>.
    rewriter.setInsertionPoint(op);
    Value dot = LLVM::CallIntrinsicOp::create(
                    rewriter, op.getLoc(), words,
                    rewriter.getStringAttr("llvm.x86.avx512.vpdpbusd.512"),
                    ValueRange{op.getAcc(), u, s})
                    ->getResult(0);
    rewriter.replaceOp(op, dot);
  }
}

/// The input of `epilogue` the products are read through, or null.
OpOperand *productsOperand(linalg::GenericOp op, linalg::GenericOp epilogue) {
  if (!op->hasOneUse())
    return nullptr;
  auto view = dyn_cast<tensor::CollapseShapeOp>(*op->getUsers().begin());
  if (!view || !view->hasOneUse() || *view->getUsers().begin() != epilogue)
    return nullptr;
  for (OpOperand *input : epilogue.getDpsInputOperands())
    if (input->get() == view.getResult())
      return input;
  return nullptr;
}

void widenInt8Epilogue(RewriterBase &rewriter, linalg::GenericOp op) {
  if (!op->hasOneUse())
    return;
  auto view = dyn_cast<tensor::CollapseShapeOp>(*op->getUsers().begin());
  if (!view || !view->hasOneUse() ||
      view.getReassociationIndices() !=
          SmallVector<ReassociationIndices>{{0}, {1}, {2}, {3, 4}})
    return;
  auto slice = dyn_cast<tensor::ExtractSliceOp>(*view->getUsers().begin());
  if (!slice || !slice->hasOneUse() || !slice.hasUnitStride() ||
      !slice.getType().hasStaticShape() ||
      slice.getType().getRank() != view.getType().getRank())
    return;
  // Only padded columns (dim 2) sliced off the end.
  ArrayRef<int64_t> wide = view.getType().getShape();
  ArrayRef<int64_t> narrow = slice.getType().getShape();
  for (int64_t d = 0; d < 4; ++d) {
    std::optional<int64_t> offset =
        getConstantIntValue(slice.getMixedOffsets()[d]);
    if (!offset || *offset != 0 || (d != 2 && narrow[d] != wide[d]))
      return;
  }
  auto epilogue = dyn_cast<linalg::GenericOp>(*slice->getUsers().begin());
  if (!epilogue || epilogue.getNumLoops() != 4 ||
      epilogue.getNumReductionLoops() != 0 || epilogue.getNumDpsInits() != 1 ||
      !epilogue.hasPureTensorSemantics() ||
      epilogue.getStaticLoopRanges() != narrow)
    return;
  OpOperand *init = epilogue.getDpsInitOperand(0);
  OpOperand *read = nullptr;
  for (OpOperand *input : epilogue.getDpsInputOperands()) {
    AffineMap map = epilogue.getMatchingIndexingMap(input);
    if (input->get() == slice.getResult()) {
      if (read || !map.isIdentity())
        return;
      read = input;
    } else if (map.isFunctionOfDim(2)) {
      // Another operand read along the columns (a residual input) has
      // none in the padding.
      return;
    }
  }
  auto resultType = dyn_cast<RankedTensorType>(init->get().getType());
  if (!read || !resultType ||
      !epilogue.getMatchingIndexingMap(init).isIdentity() ||
      epilogue.payloadUsesValueFromOperand(init))
    return;
  Location loc = epilogue.getLoc();
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(epilogue);
  Value empty =
      tensor::EmptyOp::create(rewriter, loc, wide, resultType.getElementType());
  SmallVector<Value> inputs(epilogue.getDpsInputs());
  inputs[read->getOperandNumber()] = view.getResult();
  auto widened = linalg::GenericOp::create(
      rewriter, loc, TypeRange{empty.getType()}, inputs, ValueRange{empty},
      epilogue.getIndexingMapsArray(), epilogue.getIteratorTypesArray());
  IRMapping mapping;
  epilogue.getRegion().cloneInto(&widened.getRegion(), mapping);
  widened->setDiscardableAttrs(epilogue->getDiscardableAttrDictionary());
  Value result = tensor::ExtractSliceOp::create(
      rewriter, loc, resultType, widened.getResult(0), slice.getMixedOffsets(),
      slice.getMixedSizes(), slice.getMixedStrides());
  rewriter.replaceOp(epilogue, result);
  rewriter.eraseOp(slice);
}

linalg::GenericOp int8Epilogue(linalg::GenericOp op) {
  if (!op->hasOneUse())
    return {};
  auto view = dyn_cast<tensor::CollapseShapeOp>(*op->getUsers().begin());
  if (!view || !view->hasOneUse() ||
      view.getReassociationIndices() !=
          SmallVector<ReassociationIndices>{{0}, {1}, {2}, {3, 4}})
    return {};
  auto epilogue = dyn_cast<linalg::GenericOp>(*view->getUsers().begin());
  if (!epilogue || epilogue.getNumLoops() != 4 ||
      epilogue.getNumReductionLoops() != 0 || epilogue.getNumDpsInits() != 1 ||
      !epilogue.hasPureTensorSemantics())
    return {};
  auto products = cast<RankedTensorType>(view.getType());
  if (epilogue.getStaticLoopRanges() != products.getShape())
    return {};
  OpOperand *read = productsOperand(op, epilogue);
  OpOperand *init = epilogue.getDpsInitOperand(0);
  if (!read || !epilogue.getMatchingIndexingMap(read).isIdentity() ||
      !epilogue.getMatchingIndexingMap(init).isIdentity() ||
      epilogue.payloadUsesValueFromOperand(init))
    return {};
  // The other inputs: along the channels (the innermost loop, innermost
  // in the operand too) or not depending on them, statically shaped.
  AffineExpr channels = getAffineDimExpr(3, op.getContext());
  for (OpOperand *input : epilogue.getDpsInputOperands()) {
    AffineMap map = epilogue.getMatchingIndexingMap(input);
    auto type = dyn_cast<RankedTensorType>(input->get().getType());
    if (!type || !type.hasStaticShape() ||
        !map.isProjectedPermutation(/*allowZeroInResults=*/true))
      return {};
    std::optional<unsigned> pos = map.getResultPosition(channels);
    if (pos && *pos + 1 != map.getNumResults())
      return {};
  }
  // A body of scalar arith and math ops.
  for (Operation &body : epilogue.getBody()->without_terminator()) {
    if (!isa<arith::ArithDialect, math::MathDialect>(body.getDialect()) ||
        body.getNumRegions() != 0 || body.getNumResults() != 1 ||
        (!isa<arith::ConstantOp>(body) &&
         !OpTrait::hasElementwiseMappableTraits(&body)))
      return {};
    if (llvm::any_of(body.getOperandTypes(),
                     [](Type t) { return isa<ShapedType>(t); }))
      return {};
  }
  return epilogue;
}

/// The epilogue's per-channel addend of the products: the other operand of
/// its body's `addi(products, t)` (the zero point's correction,
/// QuantizedConv.cpp) where that is the products' only use and t is read
/// along the channels only. The accumulators can start from t instead
/// (exact: i32 sums wrap alike in any order), which saves an add a vector.
OpOperand *channelAddend(linalg::GenericOp epilogue, OpOperand *read) {
  Block *body = epilogue.getBody();
  BlockArgument products = body->getArgument(read->getOperandNumber());
  if (!products.hasOneUse())
    return nullptr;
  auto add = dyn_cast<arith::AddIOp>(*products.getUsers().begin());
  if (!add || !add.getType().isInteger(32))
    return nullptr;
  auto arg = dyn_cast<BlockArgument>(add.getLhs() == products ? add.getRhs()
                                                              : add.getLhs());
  if (!arg || arg == products || arg.getOwner() != body ||
      arg.getArgNumber() >= epilogue.getNumDpsInputs())
    return nullptr;
  OpOperand *input = epilogue.getDpsInputOperand(arg.getArgNumber());
  AffineMap map = epilogue.getMatchingIndexingMap(input);
  if (!map.isFunctionOfDim(3))
    return nullptr;
  for (AffineExpr r : map.getResults())
    if (auto dim = dyn_cast<AffineDimExpr>(r); dim && dim.getPosition() != 3)
      return nullptr;
  return input;
}

/// Writes `epilogue`'s result for 16 channels from `oc0` of the pixel
/// (n, oh, ow) into `tile` at (p, lane): its body on vectors of 16 lanes,
/// `products` (the pixel's 16 accumulators) for the products' operand,
/// its other operands read along the channels or broadcast.
Value applyEpilogue(RewriterBase &rewriter, Location loc,
                    linalg::GenericOp epilogue, OpOperand *read, Value products,
                    ArrayRef<Value> pixel, Value tile, ValueRange at,
                    bool addendInProducts) {
  auto c0 = arith::ConstantIndexOp::create(rewriter, loc, 0);
  auto lanesOf = [](Type t) { return VectorType::get({16}, t); };
  IRMapping values;
  Block *body = epilogue.getBody();
  for (OpOperand *input : epilogue.getDpsInputOperands()) {
    BlockArgument arg = body->getArgument(input->getOperandNumber());
    if (input == read) {
      values.map(arg, products);
      continue;
    }
    AffineMap map = epilogue.getMatchingIndexingMap(input);
    SmallVector<Value> indices;
    for (AffineExpr r : map.getResults())
      indices.push_back(isa<AffineDimExpr>(r)
                            ? pixel[cast<AffineDimExpr>(r).getPosition()]
                            : Value(c0));
    Type element = arg.getType();
    Value vec;
    if (map.isFunctionOfDim(3)) {
      Value pad = arith::ConstantOp::create(rewriter, loc, element,
                                            rewriter.getZeroAttr(element));
      vec = vector::TransferReadOp::create(rewriter, loc, lanesOf(element),
                                           input->get(), indices, pad,
                                           ArrayRef<bool>{true});
    } else {
      Value scalar =
          tensor::ExtractOp::create(rewriter, loc, input->get(), indices);
      vec =
          vector::BroadcastOp::create(rewriter, loc, lanesOf(element), scalar);
    }
    values.map(arg, vec);
  }
  auto vectorOf = [&](Value v) -> Value {
    if (Value mapped = values.lookupOrNull(v))
      return mapped;
    // A value from outside the body (a scalar the op captures).
    return vector::BroadcastOp::create(rewriter, loc, lanesOf(v.getType()), v);
  };
  // The products' addend already in them: its add is the products.
  Operation *added =
      addendInProducts
          ? *body->getArgument(read->getOperandNumber()).getUsers().begin()
          : nullptr;
  for (Operation &op : body->without_terminator()) {
    if (&op == added) {
      values.map(op.getResult(0), products);
      continue;
    }
    if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
      Value scalar = rewriter.clone(op)->getResult(0);
      values.map(constant.getResult(),
                 vector::BroadcastOp::create(
                     rewriter, loc, lanesOf(scalar.getType()), scalar));
      continue;
    }
    for (Value operand : op.getOperands())
      values.map(operand, vectorOf(operand));
    Operation *vectorOp = rewriter.clone(op, values);
    vectorOp->getResult(0).setType(lanesOf(op.getResult(0).getType()));
    values.map(op.getResult(0), vectorOp->getResult(0));
  }
  Value result = vectorOf(body->getTerminator()->getOperand(0));
  return vector::TransferWriteOp::create(rewriter, loc, result, tile, at,
                                         ArrayRef<bool>{true})
      .getResult();
}

/// The constant the accumulators start from (startInt8ConvFromConstant).
static constexpr llvm::StringLiteral kStartAttr = "fx.int8_start";

IntegerAttr int8ConvStart(linalg::GenericOp op) {
  return op->getAttrOfType<IntegerAttr>(kStartAttr);
}

void startInt8ConvFromConstant(RewriterBase &rewriter, linalg::GenericOp op) {
  if (op.getNumDpsInits() != 1)
    return;
  OpOperand *init = op.getDpsInitOperand(0);
  auto fill = init->get().getDefiningOp<linalg::FillOp>();
  IntegerAttr start;
  if (!fill || !matchPattern(fill.getInputs()[0], m_Constant(&start)) ||
      !start.getType().isInteger(32))
    return;
  rewriter.modifyOpInPlace(op, [&] {
    init->set(fill.getOutputs()[0]);
    op->setAttr(kStartAttr, start);
  });
  if (fill->use_empty())
    rewriter.eraseOp(fill);
}

static LogicalResult vnniTiles(RewriterBase &rewriter, linalg::GenericOp op,
                               linalg::GenericOp epilogue) {
  auto params = op->getAttrOfType<DenseI64ArrayAttr>(kInt8ConvAttr);
  // With a depth (int8Conv3d of one clip): 7 params, the input's images
  // its depths, the weights' dim 1 the depth taps, one more loop.
  bool depth = params && params.size() == 7;
  if (!params || (params.size() != 5 && !depth) || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || op.getNumLoops() != (depth ? 10u : 9u))
    return failure();
  int64_t s0 = params[0], s1 = params[1], d0 = params[2], d1 = params[3],
          P = params[4];
  int64_t sd = depth ? params[5] : 1, dd = depth ? params[6] : 0;
  Value input = op.getDpsInputs()[0], weight = op.getDpsInputs()[1],
        init = op.getDpsInits()[0];
  auto inT = dyn_cast<RankedTensorType>(input.getType());
  auto wT = dyn_cast<RankedTensorType>(weight.getType());
  auto outT = dyn_cast<RankedTensorType>(init.getType());
  if (!inT || !wT || !outT || !inT.hasStaticShape() || !wT.hasStaticShape() ||
      !outT.hasStaticShape() || inT.getRank() != 5 ||
      wT.getRank() != (depth ? 7 : 6) || outT.getRank() != 5 ||
      !outT.getElementType().isInteger(32))
    return failure();
  // The weights [OCB, (KD,) KH, KW, C4, 16 V, G]: with a depth, its taps
  // are dim 1. wDim(i): dim i of [OCB, KH, KW, C4, 16 V, G].
  int64_t KD = depth ? wT.getDimSize(1) : 1;
  auto wDim = [&](unsigned i) {
    return wT.getDimSize(i == 0 || !depth ? i : i + 1);
  };
  // Groups of G channels, 32 bits: 4 bytes, or 2 i16 (pairs).
  Type element = inT.getElementType();
  bool pairs = element.isInteger(16);
  int64_t G = pairs ? 2 : 4;
  if ((!pairs && !element.isInteger(8)) || wT.getElementType() != element)
    return failure();
  int64_t N = outT.getDimSize(0), OH = outT.getDimSize(1),
          OWp = outT.getDimSize(2), OCB = outT.getDimSize(3),
          lanes = outT.getDimSize(4);
  int64_t KH = wDim(1), KW = wDim(2), C4 = wDim(3);
  int64_t V = lanes / 16;
  // The input's channel groups: the C4 each block reads (groups 1), or
  // (grouped, QuantizedConv.cpp) block ocb's slice of C4 from group
  // slice(ocb), the input map's channel group at cc = 0: slice(ocb) + cc.
  int64_t inC4 = inT.getDimSize(3);
  unsigned ccDim = depth ? 8 : 7;
  AffineExpr channelGroup = op.getIndexingMapsArray()[0].getResult(3);
  MLIRContext *ctx = op.getContext();
  SmallVector<AffineExpr> onlyBlock(op.getNumLoops(),
                                    getAffineConstantExpr(0, ctx));
  onlyBlock[3] = getAffineDimExpr(0, ctx);
  AffineMap sliceMap =
      AffineMap::get(1, 0, channelGroup.replaceDimsAndSymbols(onlyBlock, {}));
  SmallVector<AffineExpr> onlyGroup(op.getNumLoops(),
                                    getAffineConstantExpr(0, ctx));
  onlyGroup[ccDim] = getAffineDimExpr(ccDim, ctx);
  auto lastSlice = dyn_cast<AffineConstantExpr>(simplifyAffineExpr(
      sliceMap.getResult(0).replaceDims({getAffineConstantExpr(OCB - 1, ctx)}),
      1, 0));
  if (channelGroup.replaceDimsAndSymbols(onlyGroup, {}) !=
          getAffineDimExpr(ccDim, ctx) ||
      !lastSlice || lastSlice.getValue() + C4 > inC4 || (depth && inC4 != C4))
    return failure();
  if (lanes % 16 != 0 || V < 1 || V > 2 || P < 1 || OWp % P != 0 ||
      P * V > 28 || wDim(0) != OCB || wDim(4) != lanes || wDim(5) != G ||
      (depth ? (N - 1) * sd + (KD - 1) * dd >= inT.getDimSize(0)
             : inT.getDimSize(0) != N) ||
      inT.getDimSize(4) != G ||
      (OH - 1) * s0 + (KH - 1) * d0 >= inT.getDimSize(1) ||
      (OWp - 1) * s1 + (KW - 1) * d1 >= inT.getDimSize(2))
    return failure();

  Location loc = op.getLoc();
  OpBuilder::InsertionGuard guard(rewriter);
  // With the epilogue, where it is: its operands (the buffer it writes)
  // may come after the products.
  rewriter.setInsertionPoint(epilogue ? epilogue.getOperation()
                                      : op.getOperation());
  Type i32 = rewriter.getI32Type();
  auto acc = VectorType::get({16}, i32);
  // 16 lanes of weights, a group of the input's channels.
  auto weights16 = VectorType::get({16 * G}, element);
  auto group = VectorType::get({G}, element);
  auto c = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, v);
  };
  Value zero8 = arith::ConstantOp::create(rewriter, loc,
                                          rewriter.getIntegerAttr(element, 0));
  Value zero32 =
      arith::ConstantOp::create(rewriter, loc, rewriter.getI32IntegerAttr(0));
  // The channel groups and the 16 V x G weights as contiguous rows.
  input = tensor::CollapseShapeOp::create(
      rewriter, loc,
      RankedTensorType::get(
          {inT.getDimSize(0), inT.getDimSize(1), inT.getDimSize(2), G * inC4},
          element),
      input, SmallVector<ReassociationIndices>{{0}, {1}, {2}, {3, 4}});
  SmallVector<int64_t> rows{OCB, KH, KW, C4, G * lanes};
  SmallVector<ReassociationIndices> rowGroups{{0}, {1}, {2}, {3}, {4, 5}};
  if (depth) {
    rows.insert(rows.begin() + 1, KD);
    rowGroups = {{0}, {1}, {2}, {3}, {4}, {5, 6}};
  }
  weight = tensor::CollapseShapeOp::create(
      rewriter, loc, RankedTensorType::get(rows, element), weight, rowGroups);

  // Tiles of one block of output channels run one after another while
  // its weights are the larger operand (deep layers on small images: the
  // weights stay in cache across the image's pixels, each thread reading
  // its share); else the tiles of one output row do (the row's input
  // stays in cache across the channel blocks).
  int64_t weightBytes = wT.getNumElements(), inputBytes = inT.getNumElements();
  bool channelsOuter = weightBytes > inputBytes;
  SmallVector<int64_t> ranges{N, OH, OWp / P, OCB};
  if (channelsOuter)
    ranges = {OCB, N, OH, OWp / P};
  OpOperand *read = epilogue ? productsOperand(op, epilogue) : nullptr;
  if (epilogue && !read)
    return failure();
  // With the epilogue, the tile is its result's, the products the
  // accumulators' initial values only.
  Value shared = epilogue ? epilogue.getDpsInits()[0] : init;
  auto forall =
      scf::ForallOp::create(rewriter, loc, indexAttrs(rewriter, ranges),
                            ValueRange{shared}, std::nullopt);
  rewriter.setInsertionPointToStart(forall.getBody());
  ValueRange ivs = forall.getInductionVars();
  Value n = ivs[0], oh = ivs[1], owb = ivs[2], ocb = ivs[3];
  if (channelsOuter)
    ocb = ivs[0], n = ivs[1], oh = ivs[2], owb = ivs[3];
  Value whole = forall.getRegionIterArgs()[0];
  Value ow0 = arith::MulIOp::create(rewriter, loc, owb, c(P));
  SmallVector<OpFoldResult> offsets{n, oh, ow0, ocb, rewriter.getIndexAttr(0)};
  SmallVector<OpFoldResult> sizes = indexAttrs(rewriter, {1, 1, P, 1, lanes});
  SmallVector<OpFoldResult> ones = indexAttrs(rewriter, {1, 1, 1, 1, 1});
  auto tileType = RankedTensorType::get({P, lanes}, i32);
  Value tile = tensor::ExtractSliceOp::create(
      rewriter, loc, tileType, epilogue ? init : whole, offsets, sizes, ones);
  // The accumulators start from the products' initial values, or from
  // the constant they were filled with.
  SmallVector<Value> accs;
  auto start = op->getAttrOfType<IntegerAttr>(kStartAttr);
  Value splat =
      start ? arith::ConstantOp::create(
                  rewriter, loc, DenseElementsAttr::get(acc, start.getValue()))
                  .getResult()
            : Value();
  // The epilogue's tile: [n, oh, ow0 .. ow0 + P, ocb 16 V ..] of its result.
  Value oc0 = arith::MulIOp::create(rewriter, loc, ocb, c(lanes));
  // From zeros plus the epilogue's per-channel addend: from the addend.
  OpOperand *addend = epilogue && start && start.getValue().isZero()
                          ? channelAddend(epilogue, read)
                          : nullptr;
  SmallVector<Value> addends;
  if (addend) {
    AffineMap map = epilogue.getMatchingIndexingMap(addend);
    for (int64_t v = 0; v < V; ++v) {
      Value oc = arith::AddIOp::create(rewriter, loc, oc0, c(16 * v));
      SmallVector<Value> indices;
      for (AffineExpr r : map.getResults())
        indices.push_back(isa<AffineDimExpr>(r) ? oc : c(0));
      addends.push_back(vector::TransferReadOp::create(
          rewriter, loc, acc, addend->get(), indices, zero32,
          ArrayRef<bool>{true}));
    }
  }
  for (int64_t p = 0; p < P; ++p)
    for (int64_t v = 0; v < V; ++v)
      accs.push_back(
          addend  ? addends[v]
          : splat ? splat
                  : vector::TransferReadOp::create(rewriter, loc, acc, tile,
                                                   ValueRange{c(p), c(16 * v)},
                                                   zero32, ArrayRef<bool>{true})
                        .getResult());
  SmallVector<OpFoldResult> outOffsets{n, oh, ow0, oc0};
  SmallVector<OpFoldResult> outSizes = indexAttrs(rewriter, {1, 1, P, lanes});
  SmallVector<OpFoldResult> outOnes = indexAttrs(rewriter, {1, 1, 1, 1});
  if (epilogue)
    tile = tensor::ExtractSliceOp::create(
        rewriter, loc,
        RankedTensorType::get({P, lanes},
                              getElementTypeOrSelf(shared.getType())),
        whole, outOffsets, outSizes, outOnes);

  // The block's slice of the input's channel groups.
  Value slice =
      affine::AffineApplyOp::create(rewriter, loc, sliceMap, ValueRange{ocb});
  // The window and the channel groups, the accumulators carried.
  Value ihBase = arith::MulIOp::create(rewriter, loc, oh, c(s0));
  Value iwBase = arith::MulIOp::create(rewriter, loc, ow0, c(s1));
  auto loop = [&](int64_t count, ValueRange carried,
                  function_ref<SmallVector<Value>(Value, ValueRange)> body) {
    return countedLoop(rewriter, loc, count, carried, body);
  };
  // Taps that read the padding alone (kInt8SkipAttr): their products are
  // the constant sums of their weights times the zero point.
  auto skip = op->getAttrOfType<DenseI64ArrayAttr>(kInt8SkipAttr);
  auto skipSums = op->getAttrOfType<DenseElementsAttr>(kInt8SkipSumsAttr);
  Value sumsTable;
  if (skip && skipSums && !depth && skip.size() == 4 &&
      skipSums.getType().getShape() == ArrayRef<int64_t>{OCB, KH, KW, lanes} &&
      skipSums.getElementType().isInteger(32))
    sumsTable = arith::ConstantOp::create(rewriter, loc, skipSums);
  // Whether tap (i, j) of this tile reads the padding alone: its input row
  // ih, or its first and last pixels' columns, outside the input.
  auto outside = [&](Value ih, Value iw0) {
    auto cmp = [&](arith::CmpIPredicate p, Value a, int64_t b) {
      return arith::CmpIOp::create(rewriter, loc, p, a, c(b));
    };
    using P_ = arith::CmpIPredicate;
    int64_t top = skip[0], H = skip[1], left = skip[2], W = skip[3];
    Value iwLast = arith::AddIOp::create(rewriter, loc, iw0, c((P - 1) * s1));
    Value out = arith::OrIOp::create(rewriter, loc, cmp(P_::slt, ih, top),
                                     cmp(P_::sge, ih, top + H));
    out = arith::OrIOp::create(rewriter, loc, out, cmp(P_::slt, iwLast, left));
    return arith::OrIOp::create(rewriter, loc, out, cmp(P_::sge, iw0, left + W))
        .getResult();
  };
  // The window (with a depth: its taps, image n reading depth
  // n * sd + kd * dd), the channel groups.
  auto window = [&](Value image, Value kd, ValueRange a) {
    return loop(KH, a, [&](Value i, ValueRange a) {
      Value ih =
          arith::AddIOp::create(rewriter, loc, ihBase,
                                arith::MulIOp::create(rewriter, loc, i, c(d0)));
      return loop(KW, a, [&](Value j, ValueRange a) {
        Value iw0 = arith::AddIOp::create(
            rewriter, loc, iwBase,
            arith::MulIOp::create(rewriter, loc, j, c(d1)));
        auto groups = [&](ValueRange a) {
          return loop(C4, a, [&](Value cc, ValueRange a) {
            SmallVector<Value> w;
            for (int64_t v = 0; v < V; ++v) {
              SmallVector<Value> at{ocb, i, j, cc, c(16 * G * v)};
              if (depth)
                at.insert(at.begin() + 1, kd);
              Value raw = vector::TransferReadOp::create(
                  rewriter, loc, weights16, weight, at, zero8,
                  ArrayRef<bool>{true});
              w.push_back(vector::BitCastOp::create(rewriter, loc, acc, raw));
            }
            Value ch = arith::MulIOp::create(
                rewriter, loc, arith::AddIOp::create(rewriter, loc, slice, cc),
                c(G));
            SmallVector<Value> out(a.begin(), a.end());
            for (int64_t p = 0; p < P; ++p) {
              Value iw = arith::AddIOp::create(rewriter, loc, iw0, c(p * s1));
              Value four = vector::TransferReadOp::create(
                  rewriter, loc, group, input, ValueRange{image, ih, iw, ch},
                  zero8, ArrayRef<bool>{true});
              Value broadcast = broadcastGroup(rewriter, loc, four);
              for (int64_t v = 0; v < V; ++v)
                out[p * V + v] =
                    laneDot(rewriter, loc, out[p * V + v], broadcast, w[v], G);
            }
            return out;
          });
        };
        if (!sumsTable)
          return groups(a);
        // A tap in the padding: its sums added to every pixel's.
        auto branch = scf::IfOp::create(rewriter, loc, ValueRange(a).getTypes(),
                                        outside(ih, iw0),
                                        /*withElseRegion=*/true);
        {
          OpBuilder::InsertionGuard inner(rewriter);
          rewriter.setInsertionPointToStart(branch.thenBlock());
          SmallVector<Value> out(a.begin(), a.end());
          for (int64_t v = 0; v < V; ++v) {
            Value sum = vector::TransferReadOp::create(
                rewriter, loc, acc, sumsTable, ValueRange{ocb, i, j, c(16 * v)},
                zero32, ArrayRef<bool>{true});
            for (int64_t p = 0; p < P; ++p)
              out[p * V + v] =
                  arith::AddIOp::create(rewriter, loc, out[p * V + v], sum);
          }
          scf::YieldOp::create(rewriter, loc, out);
          rewriter.setInsertionPointToStart(branch.elseBlock());
          scf::YieldOp::create(rewriter, loc, groups(a));
        }
        return SmallVector<Value>(branch.getResults());
      });
    });
  };
  SmallVector<Value> sums =
      depth ? loop(KD, accs,
                   [&](Value kd, ValueRange a) {
                     Value image = arith::AddIOp::create(
                         rewriter, loc,
                         arith::MulIOp::create(rewriter, loc, n, c(sd)),
                         arith::MulIOp::create(rewriter, loc, kd, c(dd)));
                     return window(image, kd, a);
                   })
            : window(n, Value(), accs);
  for (int64_t p = 0; p < P; ++p)
    for (int64_t v = 0; v < V; ++v) {
      SmallVector<Value> at{c(p), c(16 * v)};
      if (!epilogue) {
        tile = vector::TransferWriteOp::create(rewriter, loc, sums[p * V + v],
                                               tile, at, ArrayRef<bool>{true})
                   .getResult();
        continue;
      }
      Value ow = arith::AddIOp::create(rewriter, loc, ow0, c(p));
      Value oc = arith::AddIOp::create(rewriter, loc, oc0, c(16 * v));
      tile = applyEpilogue(rewriter, loc, epilogue, read, sums[p * V + v],
                           {n, oh, ow, oc}, tile, at, addend != nullptr);
    }
  rewriter.setInsertionPointToStart(forall.getTerminator().getBody());
  if (!epilogue) {
    tensor::ParallelInsertSliceOp::create(rewriter, loc, tile, whole, offsets,
                                          sizes, ones);
    rewriter.replaceOp(op, forall.getResults());
    return success();
  }
  tensor::ParallelInsertSliceOp::create(rewriter, loc, tile, whole, outOffsets,
                                        outSizes, outOnes);
  Operation *view = *op->getUsers().begin();
  rewriter.replaceOp(epilogue, forall.getResults());
  rewriter.eraseOp(view);
  rewriter.eraseOp(op);
  return success();
}

LogicalResult int8DotConv(RewriterBase &rewriter, linalg::GenericOp op,
                          linalg::GenericOp epilogue, bool winograd) {
  // (int8WinogradConv checks its form itself, changing nothing without.)
  if (winograd && succeeded(int8WinogradConv(rewriter, op, epilogue)))
    return success();
  if (succeeded(vnniTiles(rewriter, op, epilogue)))
    return success();
  // The loops that stay read their initial values: filled again.
  if (auto start = op->getAttrOfType<IntegerAttr>(kStartAttr)) {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(op);
    OpOperand *init = op.getDpsInitOperand(0);
    Value value = arith::ConstantOp::create(rewriter, op.getLoc(), start);
    Value filled =
        linalg::FillOp::create(rewriter, op.getLoc(), value, init->get())
            .getResult(0);
    rewriter.modifyOpInPlace(op, [&] {
      init->set(filled);
      op->removeAttr(kStartAttr);
    });
  }
  return failure();
}

} // namespace mlir::fx::cpu
