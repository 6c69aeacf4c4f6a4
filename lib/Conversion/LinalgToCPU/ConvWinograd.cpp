//===- ConvWinograd.cpp - Winograd's F(2x2, 3x3) convolutions
//---------------===//
//
// Part of fx-cpu-schedule; see CPUSchedule.h.
//
//===----------------------------------------------------------------------===//

#include "CPUSchedule.h"
#include "fx-mlir/Support/Blobs.h"

using namespace mlir;

namespace mlir::fx::cpu {

/// The tiles of 2x2 a conv computes per image under Winograd.
static int64_t winogradTiles(linalg::Conv2DNchwFchwOp conv) {
  auto initType = cast<RankedTensorType>(conv.getOutputs()[0].getType());
  return ((initType.getDimSize(2) + 1) / 2) *
         ((initType.getDimSize(3) + 1) / 2);
}

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
  // Over `dims`, the slice of `result` at the loop's indices (sizes 1) and
  // 0 (whole dims), `block`, rewritten by `body(indices, block)`: an
  // scf.forall when `parallel`, else scf.for loops; the loops' result.
  auto blocks = [&](Value result, ArrayRef<int64_t> dims, int64_t outer,
                    bool parallel,
                    function_ref<Value(ValueRange, Value)> body) {
    auto type = cast<RankedTensorType>(result.getType());
    SmallVector<OpFoldResult> offsets(type.getRank(), rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> sizes = indexAttrs(rewriter, type.getShape());
    SmallVector<OpFoldResult> ones(type.getRank(), rewriter.getIndexAttr(1));
    auto sliceAt = [&](ValueRange ivs) {
      for (auto [d, iv] : llvm::enumerate(ivs)) {
        offsets[outer + d] = iv;
        sizes[outer + d] = rewriter.getIndexAttr(1);
      }
    };
    if (!parallel) {
      SmallVector<Value> ivs;
      std::function<Value(size_t, Value)> nest = [&](size_t d,
                                                     Value whole) -> Value {
        if (d == dims.size()) {
          sliceAt(ivs);
          Value block = tensor::ExtractSliceOp::create(rewriter, loc, whole,
                                                       offsets, sizes, ones);
          Value written = body(ivs, block);
          return tensor::InsertSliceOp::create(rewriter, loc, written, whole,
                                               offsets, sizes, ones)
              .getResult();
        }
        return loop(dims[d], 1, whole, [&](Value iv, Value acc) {
          ivs.push_back(iv);
          Value nested = nest(d + 1, acc);
          ivs.pop_back();
          return nested;
        });
      };
      return nest(0, result);
    }
    auto forall =
        scf::ForallOp::create(rewriter, loc, indexAttrs(rewriter, dims),
                              ValueRange{result}, std::nullopt);
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(forall.getBody());
    sliceAt(forall.getInductionVars());
    Value whole = forall.getRegionIterArgs()[0];
    Value block = tensor::ExtractSliceOp::create(rewriter, loc, whole, offsets,
                                                 sizes, ones);
    Value written = body(forall.getInductionVars(), block);
    rewriter.setInsertionPointToStart(forall.getTerminator().getBody());
    tensor::ParallelInsertSliceOp::create(rewriter, loc, written, whole,
                                          offsets, sizes, ones);
    return forall.getResult(0);
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
    auto blob = copiedBlob(ArrayRef<float>(u));
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
        {panels, channels}, 1, /*parallel=*/true,
        [&](ValueRange bc, Value block) {
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
  auto rowsFor = [&](int64_t elements) {
    int64_t rows = 1;
    for (int64_t r = th; r >= 1; --r)
      if (th % r == 0 && r * perRow <= elements) {
        rows = r;
        break;
      }
    for (int64_t r = rows; r <= th && rows * tw * batch < minTiles; ++r)
      if (th % r == 0)
        rows = r;
    return rows;
  };
  // Row blocks of a quarter of that run in parallel, each on one thread,
  // when they are many: a thread's block then stays in its own cache, and
  // the threads meet once per conv instead of once per step of each block
  // (resnet18 b1 at 2 threads, AMD EPYC: AVX2 code 18.4 -> 16.5 ms,
  // AVX-512 15.5 -> 14.9; unchanged at 1 thread). Fewer blocks run one
  // after the other, each on all threads (the transforms' blocks and the
  // product's in parallel).
  int64_t rows = rowsFor(tuning().winogradElements / 4);
  bool parallelChunks = th / rows >= kWinogradParallelChunks;
  if (!parallelChunks)
    rows = rowsFor(tuning().winogradElements);
  int64_t chunks = th / rows;
  linalg::GenericOp product;
  // The tiles of rows [ty0, ty0 + rows), `block`, computed.
  auto rowBlock = [&](Value ty0, Value block) -> Value {
    // The input transform, Bt d B with Bt = [1 0 -1 0; 0 1 1 0; 0 -1 1 0;
    // 0 1 0 -1]: its columns, then its rows, on vectors of (up to 64) tx.
    SmallVector<Value> d;
    Value top = arith::MulIOp::create(rewriter, loc, ty0, index(2));
    for (int64_t i = 0; i < 4; ++i) {
      Value row =
          i == 0 ? top : arith::AddIOp::create(rewriter, loc, top, index(i));
      for (int64_t j = 0; j < 4; ++j) {
        SmallVector<OpFoldResult> offsets = indexAttrs(rewriter, {0, 0, i, j});
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
        SmallVector<Value> row =
            bt({columns[0][a], columns[1][a], columns[2][a], columns[3][a]});
        for (int64_t e = 0; e < 4; ++e)
          acc =
              write(row[e], acc, {index(a * 4 + e), index(0), index(0), ty, x});
      }
      return acc;
    };
    // A row of up to 64 tiles at once, a longer one 16 at a time.
    int64_t chunk = tw <= 4 * tuning().lanes ? tw : tuning().lanes;
    int64_t whole = tw / chunk * chunk;
    Value v = blocks(
        tensor::EmptyOp::create(
            rewriter, loc, ArrayRef<int64_t>{16, batch, channels, rows, tw},
            elem),
        {batch, channels}, 1, !parallelChunks, [&](ValueRange nc, Value block) {
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
    SmallVector<utils::IteratorType> iterators(5,
                                               utils::IteratorType::parallel);
    iterators.push_back(utils::IteratorType::reduction);
    Value mInit =
        linalg::FillOp::create(
            rewriter, loc, zero,
            ValueRange{tensor::EmptyOp::create(
                rewriter, loc,
                ArrayRef<int64_t>{16, batch, panels, rows * tw, tuning().panel},
                elem)})
            .getResult(0);
    product = linalg::GenericOp::create(
        rewriter, loc, TypeRange{mInit.getType()},
        ValueRange{tensor::CollapseShapeOp::create(
                       rewriter, loc, v,
                       ArrayRef<ReassociationIndices>{{0}, {1}, {2}, {3, 4}}),
                   weights},
        ValueRange{mInit},
        ArrayRef<AffineMap>{AffineMap::get(6, 0, {p, n, c, t}, context),
                            AffineMap::get(6, 0, {p, b, c, lane}, context),
                            AffineMap::get(6, 0, {p, n, b, t, lane}, context)},
        iterators, multiplyAccumulate);
    Value m = tensor::ExpandShapeOp::create(
        rewriter, loc,
        RankedTensorType::get({16, batch, panels, rows, tw, tuning().panel},
                              elem),
        product.getResult(0),
        ArrayRef<ReassociationIndices>{{0}, {1}, {2}, {3, 4}, {5}});

    return blocks(
        block, {batch, panels, rows}, 0, !parallelChunks,
        [&](ValueRange nby, Value block) {
          return loop(tw, 1, block, [&](Value tx, Value acc) {
            auto mAt = [&](int64_t q) {
              return read(m, {index(q), nby[0], nby[1], nby[2], tx, index(0)},
                          tuning().panel);
            };
            SmallVector<SmallVector<Value>> columns;
            for (int64_t e = 0; e < 4; ++e)
              columns.push_back(
                  at({mAt(e), mAt(4 + e), mAt(8 + e), mAt(12 + e)}));
            for (int64_t y = 0; y < 2; ++y) {
              SmallVector<Value> row = at(
                  {columns[0][y], columns[1][y], columns[2][y], columns[3][y]});
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
  };
  Value tilesInit = tensor::EmptyOp::create(
      rewriter, loc,
      ArrayRef<int64_t>{batch, panels, th, 2, tw, 2, tuning().panel}, elem);
  SmallVector<OpFoldResult> blockAt =
      indexAttrs(rewriter, {0, 0, 0, 0, 0, 0, 0});
  SmallVector<OpFoldResult> blockSizes =
      indexAttrs(rewriter, {batch, panels, rows, 2, tw, 2, tuning().panel});
  SmallVector<OpFoldResult> ones = indexAttrs(rewriter, {1, 1, 1, 1, 1, 1, 1});
  Value allTiles;
  if (parallelChunks) {
    auto forall =
        scf::ForallOp::create(rewriter, loc, indexAttrs(rewriter, {chunks}),
                              ValueRange{tilesInit}, std::nullopt);
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(forall.getBody());
    Value ty0 = arith::MulIOp::create(
        rewriter, loc, forall.getInductionVars()[0], index(rows));
    blockAt[2] = ty0;
    Value whole = forall.getRegionIterArgs()[0];
    Value written =
        rowBlock(ty0, tensor::ExtractSliceOp::create(
                          rewriter, loc, whole, blockAt, blockSizes, ones));
    rewriter.setInsertionPointToStart(forall.getTerminator().getBody());
    tensor::ParallelInsertSliceOp::create(rewriter, loc, written, whole,
                                          blockAt, blockSizes, ones);
    allTiles = forall.getResult(0);
  } else {
    allTiles = loop(th, rows, tilesInit, [&](Value ty0, Value tiles) -> Value {
      blockAt[2] = ty0;
      Value written =
          rowBlock(ty0, tensor::ExtractSliceOp::create(
                            rewriter, loc, tiles, blockAt, blockSizes, ones));
      return tensor::InsertSliceOp::create(rewriter, loc, written, tiles,
                                           blockAt, blockSizes, ones)
          .getResult();
    });
  }
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

} // namespace mlir::fx::cpu
