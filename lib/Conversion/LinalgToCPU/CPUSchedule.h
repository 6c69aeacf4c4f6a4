//===- CPUSchedule.h - The pieces of the CPU schedule ---------*- C++ -*-===//
//
// Internal to the LinalgToCPU passes: the tuning the schedule takes from
// the CPU target, and the entry point of each piece, one file each:
//
//   Common.cpp             tuning, tiling helpers, constant operands
//   Contraction.cpp        packed, tiled, vectorized contractions
//   ConvCommon.cpp         what the conv algorithms share
//   ConvShiftedWindow.cpp  stride-1 convs read in place, shifted
//   ConvFiltersInner.cpp   filters along the register tiles
//   ConvWinograd.cpp       Winograd's F(2x2, 3x3)
//   ConvIm2col.cpp         im2col + a contraction
//   ConvGrouped.cpp        grouped convs, the group a batch dim
//   ConvInt8.cpp           int8 convs as VNNI register tiles
//   ConvInt8Winograd.cpp   int8 3x3 convs by Winograd, in integers
//   Elementwise.cpp        elementwise, transposing, reducing, window ops
//   Strategy.cpp           fx-cpu-strategy: which algorithm and tiles
//   Schedule.cpp           fx-cpu-schedule: applies the recorded strategy
//   LowerVectors.cpp       fx-cpu-lower-vectors
//
//===----------------------------------------------------------------------===//

#ifndef FX_MLIR_LIB_CONVERSION_LINALGTOCPU_CPUSCHEDULE_H
#define FX_MLIR_LIB_CONVERSION_LINALGTOCPU_CPUSCHEDULE_H

#include "fx-mlir/Conversion/LinalgToCPU/CPUTarget.h"
#include "fx-mlir/Dialect/FX/IR/FXAttrs.h"
#include "fx-mlir/Dialect/FX/IR/FXLocation.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Utils/Utils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir::fx::cpu {

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
  /// Depth of a k block of a packed contraction: the depth at which one
  /// panel is 32 KiB, from 256 to 512. AVX2 code (panels of 16) at 512
  /// over 256, AMD EPYC, 1 thread: matmul 1024x4096x1024 from 0.84x to
  /// 0.89x of OpenBLAS's GFLOPS, 1024^3 from 0.95x to 0.98x, the models
  /// unchanged; AVX-512 code (panels of 32) the same at 256 and 512.
  int64_t packedBlockDepth;

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
    t.packedBlockRows = target.l2 >= (256 << 10) ? 256 : 128;
    t.gatherElements = std::max<int64_t>(l2 / 8, 1 << 14);
    t.winogradElements = std::max<int64_t>(l2 / 4, 1 << 15);
    t.packedBlockDepth =
        std::clamp<int64_t>((32 << 10) / (t.panel * 4), 256, 512);
    return t;
  }

  /// One line for the IR: what the schedule chose from the target.
  std::string describe(const CPUTarget &target) const {
    return llvm::formatv("target={0} lanes={1} registers={2} tile={3}x{4} "
                         "packed-block-rows={5} packed-block-depth={6} "
                         "l2={7}K",
                         target.name, lanes, target.vectorRegisters, tileRows,
                         panel, packedBlockRows, packedBlockDepth,
                         target.l2 >> 10)
        .str();
  }
};

/// The tuning of the pass running on this thread (set by ScopedTuning).
extern thread_local const Tuning *currentTuning;
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
/// packColumns; tuning().packedBlockRows: 256 with 256 KiB of L2 or
/// more, else 128) of at least 4 such blocks (else half as many, with 4
/// blocks of those), so that the threads still get several: its columns
/// block is contiguous, and more rows reuse it more
/// (1-2% on 1024x4160x1056 for 128 over 64 on an AMD EPYC; on an Intel
/// Xeon with 2 MiB of L2, 256 over 128: matmul 1024^3 from 134 to 141
/// GFLOPS, 1024x4096x1024 from 118 to 123; AVX2 code on an AMD EPYC, 256
/// over 128: 1024x4096x1024 from 0.84x to 0.93x of OpenBLAS at 1 thread,
/// 0.85x to 0.91x at 2, 1024^3 at 2 threads 0.72x to 0.99x, the models
/// unchanged). The rows' operand is read one register tile's rows at a
/// time, each held in L1 across the block's columns, so the block need
/// not fit the L2; the columns block (depth x 256 packed columns) is
/// what the L2 holds.
/// Cache blocks a packed contraction with fewer than 4 row blocks keeps
/// (see chooseContraction), so that up to 8 threads get 2 each.
constexpr int64_t kParallelCacheBlocks = 16;
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
/// From this many row blocks (of a quarter of tuning().winogradElements),
/// a Winograd conv runs its row blocks in parallel, each on one thread,
/// instead of each block's steps on all threads.
constexpr int64_t kWinogradParallelChunks = 4;
/// Rows of 2x2 tiles a Winograd conv transforms at a time: as many as
/// keep its transformed input and its products under
/// tuning().winogradElements elements each (the L2, up to 1 MiB of f32), at
/// least one.
/// A contraction's columns operand that is not a constant is packed in
/// panels (see packColumns) from this many elements (64 KiB of f32, more
/// than any L1): unpacked, its rows N floats apart share cache sets (AVX2
/// code for 1024x100x1024, B of 400 KiB: 0.56x of eager unpacked, 0.94x
/// packed, on an AMD EPYC; 512 KiB was the threshold before).
constexpr int64_t kPackElements = 1 << 14;
/// A contraction of at most this many row blocks packs its columns operand
/// inside the blocks, each the block it reads, instead of all of it
/// before (see fusePackCopy in Contraction.cpp).
constexpr int64_t kPackCopyRowBlocks = 2;

/// The largest multiple of `step` that divides `size` and is at most
/// `limit`; `size` itself when there is none.

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

//===----------------------------------------------------------------------===//
// Tuning, tiling and constant operands (Common.cpp)
//===----------------------------------------------------------------------===//

/// The tuning of the pass running on this thread (the host's outside one).
const Tuning &tuning();

/// The largest multiple of `step` that divides `size` and is at most
/// `limit`; `size` itself when there is none.
int64_t blockSize(int64_t size, int64_t step, int64_t limit);

SmallVector<OpFoldResult> indexAttrs(OpBuilder &b, ArrayRef<int64_t> sizes);

/// Tiles `op` with `sizes` (0: not tiled) into scf.for or scf.forall
/// loops and returns the tiled op; `op` itself when nothing is tiled. An op
/// already inside an scf.forall gets scf.for loops (its threads are the
/// outer loop's).
FailureOr<linalg::LinalgOp> tile(RewriterBase &rewriter, linalg::LinalgOp op,
                                 ArrayRef<int64_t> sizes, bool forall,
                                 ArrayRef<int64_t> interchange = {});

/// Cuts `op`, all-parallel and of static shape, into about
/// kParallelBlocks blocks of its outermost dim of more than one, run in
/// parallel (scf.forall), when it has kParallelElements elements or more
/// and that dim is not its innermost; returns the op within the blocks, or
/// `op` itself when it is left whole.
FailureOr<linalg::LinalgOp> tileParallelBlocks(RewriterBase &rewriter,
                                               linalg::LinalgOp op);

/// Splits `op` along loop `dim` at the last multiple of `step`, so the
/// first piece tiles exactly by `step`; returns the pieces.
SmallVector<linalg::LinalgOp> splitTail(RewriterBase &rewriter,
                                        linalg::LinalgOp op, unsigned dim,
                                        int64_t step);

/// Replaces `op`, a tile of static shape, by its vector form.
LogicalResult vectorizeTile(RewriterBase &rewriter, linalg::LinalgOp op);

/// The body of a contraction's linalg.generic: acc + a * b.
void multiplyAccumulate(OpBuilder &b, Location loc, ValueRange args);

/// The operands of `op` read with constant indices along unit dims (a
/// batch norm's [1, C, 1, 1] parameters, read (n, c, 0, 0)) as the
/// tensors without those dims, read through projected permutations, as
/// upstream's reshape folding needs; with `toScalars`, an operand read at
/// constant indices only (a mean kept as 1x1 and read by every element) as
/// a 0-d tensor too, as the row reductions' collapse and split need.
void dropConstantUnitDims(RewriterBase &rewriter, linalg::GenericOp op,
                          bool toScalars = false);

bool isStaticF32(linalg::LinalgOp op);

/// Whether the elementwise and transposing schedules take `op`: static
/// shapes (no dim of 0) of f32, i32 and i8 elements, at least one f32 (a
/// float op, a quantize to bytes, an int8 conv's epilogue) or a body of
/// integer ops that cannot trap (no division: max pooling of quantized
/// tensors' bytes, their copies). With
/// `transposed` (transposedLoop's loop), the inputs read across the
/// innermost loop must be 32-bit: their 16 x 16 tiles are transposed in
/// registers.
bool isStaticVectorizable(linalg::LinalgOp op,
                          std::optional<unsigned> transposed);

/// The bytes of a constant tensor held as a resource blob or dense
/// elements (not a splat); empty when neither.
ArrayRef<char> constantBytes(Value v);

/// `bytes` (a row-major rows x cols f32 matrix) transposed, as a constant:
/// cols x rows, or with `panel` (dividing rows) in panels of that many
/// rows, rows/panel x cols x panel, each panel contiguous. With
/// `panelColumns`, the columns are cut into panels instead (`panel`
/// dividing cols), with no transpose: cols/panel x rows x panel.
Value transposedConstant(RewriterBase &rewriter, Location loc,
                         ArrayRef<char> bytes, RankedTensorType type,
                         int64_t panel = 0, bool panelColumns = false);

/// A contraction operand indexed (..., n, k), as linear's weight or the
/// keys of attention, is read transposed, indexed (..., k, n): the
/// register tiles then load rows of n. A 2-D constant is transposed here,
/// once; any other operand by a linalg.transpose before the contraction,
/// which costs one pass over it instead of a strided read per multiply.
void transposeOperands(RewriterBase &rewriter, linalg::GenericOp op,
                       unsigned nLoop, unsigned kLoop);

/// The FX node a lowered op came from, as its location names it:
/// "'conv1' (module 'layer1.0')"; the location itself when it names none.
std::string nodeLabel(Operation *op);

/// The tuning of a pass's `target` option, in effect on this thread
/// (tuning() returns it) while this lives; failed() after an error on `op`
/// when no target has that name.
class TargetTuning {
public:
  TargetTuning(Operation *op, StringRef name);
  bool failed() const { return !scoped; }
  /// What the schedule takes from the target, one line for the IR.
  std::string describe() const { return tuning->describe(*target); }
  /// The target (valid unless failed()).
  const CPUTarget &cpu() const { return *target; }

private:
  std::optional<CPUTarget> target;
  std::optional<Tuning> tuning;
  std::optional<ScopedTuning> scoped;
};

//===----------------------------------------------------------------------===//
// int8 convolutions (ConvInt8.cpp)
//===----------------------------------------------------------------------===//

/// The elementwise op that reads the products of the int8 conv `op` (its
/// epilogue, fused with what follows: a requantization, the next conv's
/// NHWC input copy) where int8DotConv can compute it in the register
/// tile: the products' only reader, iterating over them in their own order
/// (NHWC, no padding sliced off), writing its result in that order, its
/// other operands read along the channels or broadcast, its body arith
/// and math ops. Null otherwise.
linalg::GenericOp int8Epilogue(linalg::GenericOp op);

/// Where an int8 conv's products have columns of padding (the width
/// rounded up to the register tile's pixels: 14 to 15) that a slice drops
/// before the epilogue, the epilogue computes the padded width too, into
/// a tensor of its own, and the slice drops the columns from its result:
/// int8Epilogue then takes it into the register tile. Not where another
/// operand is read along the columns (none in the padding).
void widenInt8Epilogue(RewriterBase &rewriter, linalg::GenericOp op);

/// In each linalg.generic's body, the f32 compares that the ranges of
/// their operands decide become constants and their selects fold (a
/// quantize's guard against values from 2^63 up, after an int8 conv or a
/// dequantize); a byte clamped into [0, 255] and widened to i16 converts
/// to i16 directly (Bounds.cpp).
void foldDecidedCompares(RewriterBase &rewriter, func::FuncOp func);

/// Each insertion of data into the interior of a filled tensor (a padded
/// int8 conv input) gets a tensor of its own whose borders alone are
/// filled, its data's producer writing into the interior (Padding.cpp):
/// no whole-buffer fill, no copy of the data or of a shared fill.
void fillBordersOnly(RewriterBase &rewriter, func::FuncOp func);

/// Where the products' initial values are a linalg.fill of a constant
/// (zeros, QuantizedConv.cpp), the conv writes the fill's destination
/// instead and its accumulators start from the constant in registers:
/// the fill (a pass over the whole i32 buffer) goes away if nothing else
/// reads it. Run before the fill is scheduled.
void startInt8ConvFromConstant(RewriterBase &rewriter, linalg::GenericOp op);

/// Rewrites the u8 x s8 products of an int8 conv (a linalg.generic marked
/// kInt8ConvAttr, lib/Conversion/FXToLinalg/QuantizedConv.cpp) as VNNI
/// register tiles: `vpdpbusd` on 16 x V output channels of P pixels of one
/// output row, in parallel over images, output rows, pixel tiles and
/// channel blocks. With `epilogue` (int8Epilogue's, not scheduled), each
/// tile's accumulators go through the epilogue's body as vectors and its
/// result is written instead of the products, which are never stored.
/// Fails, changing nothing, on any other form.
/// With `winograd`, the convs int8Winograd takes go to int8WinogradConv.
LogicalResult int8DotConv(RewriterBase &rewriter, linalg::GenericOp op,
                          linalg::GenericOp epilogue, bool winograd);

/// The output tile (4 or 2; 0 for none) of the Winograd form
/// int8WinogradConv computes the int8 conv `op` in, exactly: `op` in the
/// pairs form (i16 activations, the widened bytes of QuantizedConv.cpp),
/// 3x3 of stride and dilation 1, constant weights, accumulators starting
/// from a constant, groups 1, and for every output channel 2^s * 128 *
/// sum |w| < 2^31 (s = 6 for F(4x4, 3x3), 2 for F(2x2, 3x3);
/// ConvInt8Winograd.cpp).
int64_t int8WinogradTile(linalg::GenericOp op);

/// The products of such a conv by Winograd's F(4x4, 3x3) or F(2x2, 3x3)
/// in integers: the centred input transform Bt (d - 128) B (i16, exact),
/// i16 pair dot products of channels (laneDot's register tiles) against
/// G' g G't (i16, transformed at compile time), the output transform
/// At' M A' (i32, wrapping) times the inverse of its scale's odd factor,
/// shifted right by its power of 2, plus 128 sum w: the same int32 sums
/// as the direct form, with `epilogue` (int8Epilogue's) applied to them in
/// registers. Fails, changing nothing, on any other form.
LogicalResult int8WinogradConv(RewriterBase &rewriter, linalg::GenericOp op,
                               linalg::GenericOp epilogue);

/// What the int8 register tiles share (ConvInt8.cpp): acc + the sums of G
/// products per i32 lane of `u` and `s` (vector<16xi32>: 4 bytes, or 2
/// i16, a lane), as fx-cpu-lower-vectors makes `vpdpbusd` or `vpmaddwd`.
Value laneDot(OpBuilder &b, Location loc, Value acc, Value u, Value s,
              int64_t G);
/// An scf.for from 0 to `count` by 1 carrying `carried`, its body
/// `body(iv, carried)` (what it yields); the loop's results.
SmallVector<Value>
countedLoop(OpBuilder &b, Location loc, int64_t count, ValueRange carried,
            function_ref<SmallVector<Value>(Value, ValueRange)> body);
/// The 32 bits of `group` (a vector of one pixel's G channels) broadcast to
/// the 16 i32 lanes laneDot reads.
Value broadcastGroup(OpBuilder &b, Location loc, Value group);
/// The input of `epilogue` the products of `op` are read through, or null.
OpOperand *productsOperand(linalg::GenericOp op, linalg::GenericOp epilogue);
/// The epilogue's per-channel addend of the products (the zero point's
/// correction), which the accumulators can start from, or null.
OpOperand *channelAddend(linalg::GenericOp epilogue, OpOperand *read);
/// `epilogue`'s body on the 16 lanes `products` of the pixel `pixel` (n,
/// oh, ow, oc), written into `tile` at `at`.
Value applyEpilogue(RewriterBase &rewriter, Location loc,
                    linalg::GenericOp epilogue, OpOperand *read, Value products,
                    ArrayRef<Value> pixel, Value tile, ValueRange at,
                    bool addendInProducts);
/// The constant an int8 conv's accumulators start from
/// (startInt8ConvFromConstant), or null.
IntegerAttr int8ConvStart(linalg::GenericOp op);

/// Elementwise ops that read NHWC data across and write NCHW (a residual
/// block's epilogue over an int8 conv's products), and those reading their
/// results in order (the next block's), computed in NHWC: each writes an
/// NHWC result, reads the others' along their rows, and each reader
/// outside gets a transpose back of its own (Layout.cpp). Whether anything
/// changed; the elementwise fusion runs again after.
bool computeChainsInNHWC(RewriterBase &rewriter, func::FuncOp func);

/// Copies (a generic of one input whose body yields it, writing every
/// element) of the same input to the same layout in one block, as the
/// int8 lowering writes for each conv reading one NCHW tensor (the
/// branches of an inception block), made one: the later ones use the
/// first's result. Whether anything changed.
bool mergeIdenticalCopies(RewriterBase &rewriter, func::FuncOp func);

/// The dot products int8DotConv writes, as `vpdpbusd` (bytes, on targets
/// with int8Dot) or `vpmaddwd` and an add (i16 pairs, on targets with
/// int8Pairs), for fx-cpu-lower-vectors.
void lowerByteDots(RewriterBase &rewriter, func::FuncOp func,
                   const CPUTarget &cpu);

//===----------------------------------------------------------------------===//
// Contractions (Contraction.cpp)
//===----------------------------------------------------------------------===//

FailureOr<ContractionLoops> getContractionLoops(linalg::LinalgOp op);

/// The rows of a contraction's register tiles for `m` rows: 8, or 7 or 6
/// when those divide `m` and 8 does not (49 = 7 x 7); `m` when fewer.
int64_t registerRows(int64_t m);

/// How a contraction is computed: what fx-cpu-strategy records on it as
/// `fx.cpu_strategy` and scheduleContraction applies.
struct ContractionStrategy {
  /// Whether the columns operand is packed in panels (packColumns), or,
  /// when the columns are many but not whole panels, the whole panels
  /// split off and packed.
  bool pack = false;
  /// The register tile: rows x columns of the result. A piece of fewer
  /// rows or columns (a tail) gets a tile of what it has, in whole
  /// registers where it can.
  int64_t rows = 1, cols = 1;
  /// The cache block: rows x columns of the result per thread task, and
  /// the depth of one k block (each the largest divisor of the extent up
  /// to that size, in whole register tiles).
  int64_t blockRows = kBlockRows, blockCols = kBlockCols,
          blockDepth = kBlockDepth;
};

/// The strategy of a contraction with `loops` on the current target:
/// register tiles of tuning().tileRows x tuning().panel (fewer rows when
/// they divide m better, a row of 8 registers for a single row), columns
/// packed when packColumns applies, cache blocks of kBlockRows x
/// kBlockCols x kBlockDepth (packed: tuning().packedBlockRows rows, or half
/// of it, when m has 4 such blocks).
ContractionStrategy chooseContraction(linalg::LinalgOp op,
                                      ContractionLoops loops);

/// Schedules a contraction with `loops` as `strategy` says. A failure
/// leaves the IR partly rewritten: the pass fails.
LogicalResult scheduleContraction(RewriterBase &rewriter, linalg::LinalgOp op,
                                  ContractionLoops loops,
                                  const ContractionStrategy &strategy);

//===----------------------------------------------------------------------===//
// Convolutions: shared pieces (ConvCommon.cpp)
//===----------------------------------------------------------------------===//

/// `input` (N, C, H, W, static) zero-padded by `extraRows` more rows at
/// the bottom; when it is itself a zero tensor.pad of static amounts, one
/// pad of its source with both paddings.
Value padRowsBelow(RewriterBase &rewriter, Location loc, Value input,
                   int64_t extraRows);

/// The linalg.fill a conv's `init` is, directly or through a reshape (a
/// grouped conv's view of it); null when it is none (a broadcast bias).
linalg::FillOp fillOf(Value init);

/// The value a conv's result starts from: its init's fill value, else zero
/// (addInit then adds the init).
Value initFillValue(RewriterBase &rewriter, Location loc, Value init);

/// `result` plus the conv's `init` when that is not a fill (a broadcast
/// bias), added elementwise: the fusion that follows merges the add with
/// the conv's consumers.
Value addInit(RewriterBase &rewriter, Location loc, Value init, Value result);

/// The number of output rows (of `width` positions, whose gathered
/// columns are `columnsPerRow` elements) to gather at a time: a divisor of
/// `rows`, the most whose columns fit tuning().gatherElements, or the fewest of
/// at least kGatherColumns positions when those are fewer.
int64_t gatherRows(int64_t columnsPerRow, int64_t width, int64_t rows);

/// The im2col columns of `conv`'s input, gathered without div/mod:
/// col[n, q, p] with q = (c, i, j) and p = (y, x), or col[n, p, q] when
/// `positionsFirst`, where col(n, c, i, j, y, x) = input[n, c, y*sh +
/// i*dh, x*sw + j*dw].
Value gatherColumns(RewriterBase &rewriter, linalg::Conv2DNchwFchwOp conv,
                    bool positionsFirst);

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

//===----------------------------------------------------------------------===//
// Convolutions: shifted window (ConvShiftedWindow.cpp)
//===----------------------------------------------------------------------===//

/// The rows a shifted-window conv's last positions read past the end of
/// its input of `width` columns, with a window `kw` wide of dilation `dw`:
/// (kw - 1) * dw elements, in whole rows.
int64_t rowsReadPastEnd(int64_t kw, int64_t dw, int64_t width);

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
shiftedWindowConv(RewriterBase &rewriter, linalg::Conv2DNchwFchwOp conv);

//===----------------------------------------------------------------------===//
// Convolutions: filters inner (ConvFiltersInner.cpp)
//===----------------------------------------------------------------------===//

/// `conv`'s constant weights `filterBytes`, [F, C, kh, kw], packed into
/// contiguous panels of tuning().panel filters: [F/tuning().panel, C*kh*kw,
/// tuning().panel].
Value packedWeights(RewriterBase &rewriter, linalg::Conv2DNchwFchwOp conv,
                    ArrayRef<char> filterBytes);

/// Replaces `conv` by `product`, its result as filter panels,
/// outT[n, b, y, x, i] with f = 32*b + i, transposed back (plus the conv's
/// init unless that is a fill) by an op out[n, b, i, y, x] that the
/// schedule vectorizes (transposedLoop), its result viewed as [n, f, y, x].
/// The elementwise ops that consume the conv (a batch norm, a ReLU) fuse
/// into it: the view folds into them (readsTransposingView).
void replaceFromPanels(RewriterBase &rewriter, linalg::Conv2DNchwFchwOp conv,
                       Value product);

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
                             ArrayRef<char> filterBytes);

/// Whether a conv is better computed by shiftedWindowFiltersInner: one it
/// can compute (filtersInnerRows) that is strided, or for which
/// shiftedWindowConv would throw away at least 1/14 of its columns (2 of
/// 30 on a 28x28 image, 2 of 16 on 14x14: 2.22 to 2.13 and 2.33 to 2.06
/// ms for resnet18's 3x3 convs, where on 56x56 it would lose, 2.17
/// against 2.21), or whose positions are few and end in a partial register
/// tile (a 7x7 image, 2.36 to 2.14 ms against the gathered
/// rewriteConvFiltersInner).
bool preferFiltersInner(linalg::Conv2DNchwFchwOp conv,
                        ArrayRef<char> filterBytes);

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
                          ArrayRef<char> filterBytes);

//===----------------------------------------------------------------------===//
// Convolutions: Winograd (ConvWinograd.cpp)
//===----------------------------------------------------------------------===//

/// Whether a conv is computed by winogradConv: a 3x3 conv of stride and
/// dilation 1 with constant weights, filters in whole panels, at least 16
/// channels, and at least kWinogradRuntimeTiles tiles of 2x2 per image (an
/// odd output is padded to whole tiles), so that the batched contraction
/// keeps enough rows for its register tiles.
bool preferWinograd(linalg::Conv2DNchwFchwOp conv, ArrayRef<char> filterBytes);

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
             ArrayRef<char> filterBytes);

//===----------------------------------------------------------------------===//
// Convolutions: im2col (ConvIm2col.cpp)
//===----------------------------------------------------------------------===//

/// conv_2d_nchw_fchw as a contraction: out[n, f, oh*ow] += w[f, c*kh*kw] *
/// col[n, c*kh*kw, oh*ow], where col is the input gathered once (im2col),
/// or the input itself for a 1x1 conv of stride 1. Unlike upstream's
/// rewriteInIm2Col, the gather indexes the input without div/mod.
void rewriteConvAsContraction(RewriterBase &rewriter,
                              linalg::Conv2DNchwFchwOp conv);

//===----------------------------------------------------------------------===//
// Convolutions: grouped (ConvGrouped.cpp)
//===----------------------------------------------------------------------===//

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
groupedConv(RewriterBase &rewriter, linalg::Conv2DNgchwGfchwOp conv);

//===----------------------------------------------------------------------===//
// Elementwise ops (Elementwise.cpp)
//===----------------------------------------------------------------------===//

/// An op every loop of which is parallel, reading and writing through
/// projected permutations that keep the innermost loop innermost (or
/// broadcast along it): a generic made of elementwise ops, a fill or a
/// broadcast. A transpose that moves the innermost dim is left to the
/// scalar loops: its vectors would be gathers.
bool isElementwiseLike(linalg::LinalgOp op);

/// Rows of the innermost dim: every other dim tiled by 1, the innermost
/// by up to 4 registers, its tail split off.
LogicalResult scheduleElementwise(RewriterBase &rewriter, linalg::LinalgOp op);

/// The loop a transposing op reads innermost: an op as isElementwiseLike
/// (a generic of arith/math ops, or a linalg.transpose) except that some
/// of its inputs read its innermost loop `inner` elsewhere than innermost,
/// all of them with the same loop `t` innermost instead (replaceFromPanels'
/// outT[n, b, y, x, i] for out[n, b, i, y, x]: t = i). The init keeps
/// `inner` innermost. None when it is not one.
std::optional<unsigned> transposedLoop(linalg::LinalgOp op);

/// A transposing op (transposedLoop, of static f32 shape, both loops at
/// least 16) in tiles of 16 x 16 of `t` and the innermost loop, each read
/// as 16 registers along `t` and transposed in registers
/// (fx-cpu-lower-vectors: shuffles), in parallel blocks of whole tiles when
/// large; the tails of either loop stay scalar loops. As scalar loops, the
/// transpose back of resnet18's first conv (64 x 12544 results) took 0.77 ms
/// against eager's 0.27 for the same permute. Loops that every operand
/// reads contiguously become one first (an image's rows and columns). A
/// failure leaves the IR partly rewritten: the pass fails.
LogicalResult scheduleTransposing(RewriterBase &rewriter, linalg::LinalgOp op,
                                  unsigned t);

/// A reduction along the innermost loop, read contiguously (a row's sum or
/// max: softmax, layer norm, mean), of rows of at least two registers
/// that divide into registers: split into 16 partial results per row
/// (upstream's splitReduction, lanes innermost), which reduce whole
/// registers elementwise, one at a time, before the 16 are reduced.
/// Left to LLVM the row is one chain of dependent scalar adds: it does not
/// reassociate a float reduction on its own. A row of more than 1,024
/// registers (a whole tensor's sum too, with no other loop) is first split
/// into about sqrt(registers) blocks, reduced in parallel as rows of their
/// own, then their results reduced: each lane's chain of adds, and its
/// rounding error, is then about 2 sqrt(registers) long instead of
/// registers.
LogicalResult scheduleRowReduction(RewriterBase &rewriter, linalg::LinalgOp op);

/// A reduction over loops outside the one its data is contiguous along (a
/// global average pooling of NHWC data: the sum over h, w of x[n, h, w,
/// c], c parallel): its loops reordered (the other parallel ones, the
/// reduced ones, then c), tiles of up to 4 registers along c with scf.for
/// loops around them, whose accumulators loop-invariant-subset-hoisting
/// keeps in registers across the reduced loops. Fails, changing nothing,
/// on other forms.
LogicalResult scheduleColumnReduction(RewriterBase &rewriter,
                                      linalg::LinalgOp op);

/// A depthwise conv or a max/sum pooling (NCHW, static, f32) as one
/// elementwise generic over the output whose inputs are the KHxKW strided
/// slices of the input, one per window position (and, for the depthwise
/// conv, the filter's per-channel weights at that position). It then gets
/// the elementwise schedule. The window is visited in the named op's order,
/// so the results are the same bit for bit.
LogicalResult unrollWindow(RewriterBase &rewriter, linalg::LinalgOp op);

/// Any other convolution or pooling op (depthwise, grouped, pooling, or
/// not f32) as a generic whose innermost loop is the output's last dim
/// (the image width), after the window loops: the scalar loops it becomes
/// then run along contiguous rows, which LLVM vectorizes.
void moveWidthInnermost(RewriterBase &rewriter, linalg::LinalgOp op);

//===----------------------------------------------------------------------===//
// The strategy (Strategy.cpp)
//===----------------------------------------------------------------------===//

/// The attribute recording how an op is computed.
constexpr StringLiteral kStrategyAttr = "fx.cpu_strategy";

/// The algorithms that compute `conv`, in order of preference, each with
/// whether it applies: winograd, filters-inner, shifted-window, im2col
/// (always).
SmallVector<std::pair<StringRef, bool>>
convAlgorithms(linalg::Conv2DNchwFchwOp conv);

/// `conv`'s algorithm: the one its fx.cpu_strategy names (a string or
/// {algorithm = ...}), else the first that applies; an error on `conv` when
/// the record is malformed or names one that does not apply.
FailureOr<StringRef> readConvAlgorithm(linalg::Conv2DNchwFchwOp conv);

/// The strategy of a contraction with `loops`: chooseContraction's, with
/// what its fx.cpu_strategy record gives in place of it; an error on `op`
/// when the record is malformed, asks for packing where it does not apply,
/// or for a register tile of more than 64 vector registers.
FailureOr<ContractionStrategy> readContraction(Operation *op,
                                               ContractionLoops loops);

/// One line for a reader: "tile 6x16 packed, blocks 128x256x256".
std::string describe(const ContractionStrategy &s);

/// Records on every static f32 conv and contraction of `func` its
/// strategy (fx.cpu_strategy): the one already recorded, checked and
/// completed, else the one chosen for the current target.
LogicalResult recordStrategies(func::FuncOp func);

} // namespace mlir::fx::cpu

#endif // FX_MLIR_LIB_CONVERSION_LINALGTOCPU_CPUSCHEDULE_H
