//===- FoldQuant.cpp - The fx-fold-quant pass -----------------------------===//
//
// Quantized computations in reference form (NormalizeQuant.cpp) read their
// weights through a dequantize: this pass dequantizes known weights once,
// at compile time, drops quantize(dequantize(a)) pairs that give back `a`,
// makes dequantize(quantize(x)) one fake quantization, and drops the fake
// quantizations that change nothing.
//
//===----------------------------------------------------------------------===//

#include "fx-mlir/Dialect/FX/IR/FXAttrs.h"
#include "fx-mlir/Dialect/FX/IR/FXOps.h"
#include "fx-mlir/Dialect/FX/Transforms/GraphBuilder.h"
#include "fx-mlir/Dialect/FX/Transforms/Int8Conv.h"
#include "fx-mlir/Dialect/FX/Transforms/Passes.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include <cstring>

namespace mlir::fx {
#define GEN_PASS_DEF_FXFOLDQUANT
#include "fx-mlir/Dialect/FX/Transforms/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;
using namespace mlir::fx;

namespace {

/// The floats the quantized state `state` stands for, computed as the
/// lowering of aten::dequantize computes them ((q - zero_point) * scale in
/// f32); nullopt when its value is not a blob of its storage integers.
std::optional<std::vector<double>> dequantizeState(StateOp state) {
  auto type = dyn_cast<RankedTensorType>(state.getType());
  if (!type || !type.hasStaticShape())
    return std::nullopt;
  auto quantized = dyn_cast<quant::QuantizedType>(type.getElementType());
  if (!quantized)
    return std::nullopt;
  ArrayRef<char> data = getElementsData(state.getValueAttr());
  unsigned width = quantized.getStorageTypeIntegralWidth();
  int64_t count = type.getNumElements();
  if ((width != 8 && width != 32) ||
      int64_t(data.size()) != count * (width / 8))
    return std::nullopt;
  auto storage = [&](int64_t i) -> int64_t {
    if (width == 32) {
      int32_t v;
      std::memcpy(&v, data.data() + 4 * i, 4);
      return v;
    }
    return quantized.isSigned() ? int64_t(int8_t(data[i]))
                                : int64_t(uint8_t(data[i]));
  };
  // The scale and zero point of element i: per tensor, or by the index
  // along the quantized dim.
  std::vector<float> scales, zeroPoints;
  int64_t inner = 1, channels = 1;
  if (auto uniform = dyn_cast<quant::UniformQuantizedType>(quantized)) {
    scales.push_back(float(uniform.getScale()));
    zeroPoints.push_back(float(uniform.getZeroPoint()));
  } else if (auto perAxis =
                 dyn_cast<quant::UniformQuantizedPerAxisType>(quantized)) {
    int64_t axis = perAxis.getQuantizedDimension();
    if (axis < 0 || axis >= type.getRank() ||
        type.getDimSize(axis) != int64_t(perAxis.getScales().size()))
      return std::nullopt;
    for (auto [s, z] :
         llvm::zip(perAxis.getScales(), perAxis.getZeroPoints())) {
      scales.push_back(float(s));
      zeroPoints.push_back(float(z));
    }
    channels = type.getDimSize(axis);
    for (int64_t d = axis + 1; d < type.getRank(); ++d)
      inner *= type.getDimSize(d);
  } else {
    return std::nullopt;
  }
  std::vector<double> values(count);
  for (int64_t i = 0; i < count; ++i) {
    int64_t c = channels == 1 ? 0 : (i / inner) % channels;
    float centered = float(storage(i)) - zeroPoints[c];
    values[i] = double(centered * scales[c]);
  }
  return values;
}

/// The integer range of the quantized dtype `dtype` (a DTypeAttr).
std::optional<std::pair<int64_t, int64_t>> quantizedRange(Attribute dtype) {
  auto d = dyn_cast<DTypeAttr>(dtype);
  if (!d)
    return std::nullopt;
  if (d.getName() == "quint8")
    return std::make_pair(int64_t(0), int64_t(255));
  if (d.getName() == "qint8")
    return std::make_pair(int64_t(-128), int64_t(127));
  if (d.getName() == "qint32")
    return std::make_pair(int64_t(INT32_MIN), int64_t(INT32_MAX));
  return std::nullopt;
}

/// `op` as a fake quantization of one tensor with literal scale, zero
/// point and range (what the fold of dequantize(quantize(x)) makes), or
/// null.
CallFunctionOp asFakeQuant(Operation *op) {
  auto call = dyn_cast_or_null<CallFunctionOp>(op);
  if (!call || call.getTarget() != "aten::fake_quantize_per_tensor_affine" ||
      call.getNumOperands() != 1 || call.getArgs().size() != 5 ||
      !call.getKwargs().empty() || !isa<NodeAttr>(call.getArgs()[0]))
    return {};
  for (Attribute a : call.getArgs().getValue().drop_front())
    if (!isa<FloatAttr, IntegerAttr>(a))
      return {};
  return call;
}

/// Whether two fake quantizations round to the same grid: the same scale,
/// zero point and range.
bool sameGrid(CallFunctionOp a, CallFunctionOp b) {
  return a.getArgs().getValue().drop_front() ==
         b.getArgs().getValue().drop_front();
}

/// Operators whose result, on values of one quantization grid, lies on that
/// grid within its range: they select, move or copy elements, or clamp at
/// zero (which every grid holds: the zero point is an integer). A fake
/// quantization of their result to the grid of their inputs gives it back
/// bit for bit: max pooling, ReLU, flatten and the views, cat, slices.
bool keepsGrid(StringRef target) {
  return llvm::is_contained(
      {"aten::relu", "aten::max_pool1d", "aten::max_pool2d", "aten::max_pool3d",
       "aten::flatten.using_ints", "aten::reshape", "aten::view",
       "aten::permute", "aten::transpose.int", "aten::cat",
       "aten::slice.Tensor", "aten::select.int", "aten::unsqueeze",
       "aten::squeeze.dim", "aten::squeeze", "aten::expand", "aten::narrow",
       "aten::pixel_shuffle", "aten::channel_shuffle"},
      target);
}

/// Whether every element of `v` lies on the grid of the fake quantization
/// `grid`: `v` is such a fake quantization, or a keepsGrid operator's
/// result whose tensor inputs all are on it (looked through `depth` < 8
/// operators).
bool onGrid(Value v, CallFunctionOp grid, unsigned depth) {
  Operation *def = v.getDefiningOp();
  if (CallFunctionOp fake = asFakeQuant(def))
    return sameGrid(fake, grid);
  auto call = dyn_cast_or_null<CallFunctionOp>(def);
  if (!call || depth >= 8 || !keepsGrid(call.getTarget()) ||
      call->getNumResults() != 1)
    return false;
  bool anyTensor = false;
  for (Value operand : call->getOperands()) {
    if (!isa<TensorType>(operand.getType()))
      continue;
    anyTensor = true;
    if (!onGrid(operand, grid, depth + 1))
      return false;
  }
  return anyTensor;
}

/// Drops the fake quantizations that change nothing: a second one of the
/// same value to the same grid (the graph of a converted model
/// dequantizes one quantized value once per user), and one of the result
/// of a keepsGrid operator whose tensor inputs are all fake quantized to
/// that grid (the quantize convert_fx puts after a max pool or a flatten,
/// which shares its input's scale). Returns whether any was dropped.
bool dropRedundantFakeQuants(GraphOp graph) {
  bool changed = false;
  DenseMap<Value, SmallVector<CallFunctionOp, 2>> seen;
  for (Operation *op : getCallNodes(graph)) {
    CallFunctionOp fake = asFakeQuant(op);
    if (!fake)
      continue;
    Value input = fake.getOperand(0);
    // The same value to the same grid, earlier in the same block.
    CallFunctionOp twin;
    for (CallFunctionOp other : seen[input])
      if (other->getBlock() == fake->getBlock() && sameGrid(other, fake))
        twin = other;
    if (twin) {
      fake.getResult().replaceAllUsesWith(twin.getResult());
      fake.erase();
      changed = true;
      continue;
    }
    // The grid's own values, moved or selected.
    if (isa<RankedTensorType>(input.getType()) && onGrid(input, fake, 0)) {
      fake.getResult().replaceAllUsesWith(input);
      fake.erase();
      changed = true;
      continue;
    }
    seen[input].push_back(fake);
  }
  return changed;
}

/// The state a get_attr that makes `v` reads, or null.
StateOp stateOf(GraphModuleOp module, Value v) {
  auto read = v.getDefiningOp<GetAttrOp>();
  return read ? lookupState(module, read.getTarget()) : StateOp();
}

/// The value the dequantize making `call`'s argument `ref` reads, or null.
Value dequantizedOperand(CallFunctionOp call, NodeAttr ref) {
  auto dq = call.getOperand(ref.getIndex()).getDefiningOp<CallFunctionOp>();
  if (!dq || dq.getTarget() != "aten::dequantize.self" ||
      dq.getNumOperands() != 1)
    return {};
  return dq.getOperand(0);
}

/// Whether `type` is what the int8 kernels take as weights: qint8 with
/// zero points 0, per tensor or per output channel (axis 0).
bool isInt8WeightType(Type type) {
  if (auto q = dyn_cast<quant::UniformQuantizedType>(type))
    return q.isSigned() && q.getStorageTypeIntegralWidth() == 8 &&
           q.getZeroPoint() == 0;
  if (auto q = dyn_cast<quant::UniformQuantizedPerAxisType>(type))
    return q.isSigned() && q.getStorageTypeIntegralWidth() == 8 &&
           q.getQuantizedDimension() == 0 &&
           llvm::all_of(q.getZeroPoints(), [](int64_t z) { return z == 0; });
  return false;
}

/// The least depth (input channels x window) of a dense int8 conv.
/// Measured on the Sapphire Rapids Xeon at 1 thread (/usr/bin/python3
/// bench/run.py --only mobilenet_v2_int8_b1): with its depthwise convs in
/// int8 (NHWC), mobilenet_v2 took 6.6 ms with its pointwise convs of depth
/// 16 or more in int8 and 8.2 ms from 64, where the f32 pointwise convs of
/// 16 to 32 channels between them need transposes both ways. Below 16 the
/// kernel's 4-channel groups are mostly padding.
constexpr int64_t kInt8MinDepth = 16;

/// Whether `conv` is a conv2d the lowering computes in int8
/// (lib/Conversion/FXToLinalg/QuantizedConv.cpp): groups 1 or grouped
/// with groups that line up with the register tile's channel blocks
/// (int8GroupedBlocks), at least kInt8MinDepth deep, or depthwise (groups
/// = input channels = output channels), its input the dequantize of a 4-D
/// per-tensor quint8 tensor, its weight the dequantize of qint8 module state
/// with zero points 0. Or a conv3d of groups 1 and such operands (5-D),
/// at least kInt8MinDepth deep: the lowering makes it a 2-D one of its
/// kernel's depth slices as channels (int8Conv3d).
bool isInt8Conv(GraphModuleOp module, Operation *op) {
  auto conv = dyn_cast<CallFunctionOp>(op);
  if (!conv || conv.getArgs().size() < 7)
    return false;
  bool is3d = conv.getTarget() == "aten::conv3d";
  if (!is3d && conv.getTarget() != "aten::conv2d")
    return false;
  int64_t rank = is3d ? 5 : 4;
  auto groups = dyn_cast<IntegerAttr>(conv.getArgs()[6]);
  auto inputRef = dyn_cast<NodeAttr>(conv.getArgs()[0]);
  auto weightRef = dyn_cast<NodeAttr>(conv.getArgs()[1]);
  if (!groups || groups.getInt() < 1 || !inputRef || !weightRef)
    return false;
  Value x = dequantizedOperand(conv, inputRef),
        w = dequantizedOperand(conv, weightRef);
  auto xType = x ? dyn_cast<RankedTensorType>(x.getType()) : nullptr;
  auto wType = w ? dyn_cast<RankedTensorType>(w.getType()) : nullptr;
  if (!xType || !wType || xType.getRank() != rank || wType.getRank() != rank ||
      !wType.hasStaticShape() || wType.getDimSize(0) < 1 || !stateOf(module, w))
    return false;
  // The depth (channels x window) of one output channel.
  int64_t depth = wType.getNumElements() / wType.getDimSize(0);
  if (is3d) {
    if (groups.getInt() != 1 || !xType.hasStaticShape() ||
        depth < kInt8MinDepth)
      return false;
  } else {
    bool depthwise = groups.getInt() > 1 && wType.getDimSize(1) == 1 &&
                     groups.getInt() == xType.getDimSize(1) &&
                     groups.getInt() == wType.getDimSize(0);
    if (groups.getInt() != 1 && !depthwise &&
        !int8GroupedBlocks(xType.getDimSize(1), wType.getDimSize(0),
                           groups.getInt()))
      return false;
    // Below this depth the int8 kernel's layout changes cost more than
    // its dot products save.
    if (!depthwise && depth < kInt8MinDepth)
      return false;
  }
  auto xq = dyn_cast<quant::UniformQuantizedType>(xType.getElementType());
  if (!xq || xq.isSigned() || xq.getStorageTypeIntegralWidth() != 8)
    return false;
  return isInt8WeightType(wType.getElementType());
}

/// Whether `op` is a linear the lowering computes in int8 (int8Linear in
/// lib/Conversion/FXToLinalg/QuantizedConv.cpp, a 1 x 1 int8 conv of its
/// rows): its input the dequantize of a static per-tensor quint8 tensor
/// whose last dim is at least kInt8MinDepth, its weight the dequantize of
/// 2-D qint8 module state with zero points 0.
bool isInt8Linear(GraphModuleOp module, Operation *op) {
  auto linear = dyn_cast<CallFunctionOp>(op);
  if (!linear || linear.getTarget() != "aten::linear" ||
      linear.getArgs().size() < 2 || !linear.getKwargs().empty())
    return false;
  auto inputRef = dyn_cast<NodeAttr>(linear.getArgs()[0]);
  auto weightRef = dyn_cast<NodeAttr>(linear.getArgs()[1]);
  if (!inputRef || !weightRef)
    return false;
  Value x = dequantizedOperand(linear, inputRef),
        w = dequantizedOperand(linear, weightRef);
  // Or quantized at run time (a dynamically quantized linear's input):
  // fake_quantize_per_tensor_affine(x, scale, zero_point, 0, 255) with
  // the scale and zero point nodes.
  bool dynamic = false;
  if (!x)
    if (auto fake = linear.getOperand(inputRef.getIndex())
                        .getDefiningOp<CallFunctionOp>();
        fake && fake.getTarget() == "aten::fake_quantize_per_tensor_affine" &&
        fake.getArgs().size() == 5 && fake.getKwargs().empty() &&
        isa<NodeAttr>(fake.getArgs()[0]) && isa<NodeAttr>(fake.getArgs()[1]) &&
        isa<NodeAttr>(fake.getArgs()[2]) &&
        fake.getArgs()[3] ==
            IntegerAttr::get(IntegerType::get(fake.getContext(), 64), 0) &&
        fake.getArgs()[4] ==
            IntegerAttr::get(IntegerType::get(fake.getContext(), 64), 255)) {
      x = fake.getResult();
      dynamic = true;
    }
  auto xType = x ? dyn_cast<RankedTensorType>(x.getType()) : nullptr;
  auto wType = w ? dyn_cast<RankedTensorType>(w.getType()) : nullptr;
  if (!xType || !wType || xType.getRank() < 1 || wType.getRank() != 2 ||
      !xType.hasStaticShape() || xType.getNumElements() == 0 ||
      !wType.hasStaticShape() || !stateOf(module, w) ||
      wType.getDimSize(1) < kInt8MinDepth)
    return false;
  auto xq = dyn_cast<quant::UniformQuantizedType>(xType.getElementType());
  if (dynamic
          ? !xType.getElementType().isF32()
          : (!xq || xq.isSigned() || xq.getStorageTypeIntegralWidth() != 8 ||
             xq.getStorageTypeMin() != 0 || xq.getStorageTypeMax() != 255))
    return false;
  // The bias the lowering takes: none, or a static f32 vector.
  if (linear.getArgs().size() > 2 && !isa<NoneAttr>(linear.getArgs()[2])) {
    auto biasRef = dyn_cast<NodeAttr>(linear.getArgs()[2]);
    auto biasType = biasRef
                        ? dyn_cast<RankedTensorType>(
                              linear.getOperand(biasRef.getIndex()).getType())
                        : RankedTensorType();
    if (!biasType || biasType.getRank() != 1 || !biasType.hasStaticShape() ||
        !biasType.getElementType().isF32())
      return false;
  }
  return isInt8WeightType(wType.getElementType());
}

/// Whether PyTorch, running the graph eagerly on contiguous inputs, holds
/// `v` (a 4-D tensor; or a 3-D one, which its 1-D poolings view as
/// [N, C, 1, L]: a quantized conv1d's output, computed by a conv2d, is
/// channels-last in that view) channels-last contiguous: its quantized kernels
/// then take their channels-last paths, which round differently (average
/// pooling: kRoundBeforeZeroPointAttr). A tensor with one channel, or one
/// pixel, is both. Otherwise from what computes it, as ATen lays results
/// out: a quantized conv (1-D or 2-D), transposed conv or batch norm writes
/// channels-last; elementwise ops, poolings, upsampling, padding and the
/// quantize and dequantize keep their (first) input's layout; a
/// concatenation is channels-last when all its inputs are; anything else
/// (placeholders, a linear, a reshape, a quantized ELU, which computes in
/// contiguous floats) is taken as contiguous.
bool eagerChannelsLast(Value v, llvm::DenseMap<Value, bool> &known,
                       unsigned depth = 0);

/// eagerChannelsLast, each value decided once (a concatenation reads
/// several branches, which may share their producers).
bool eagerChannelsLast(Value v) {
  llvm::DenseMap<Value, bool> known;
  return eagerChannelsLast(v, known);
}

bool eagerChannelsLastUncached(Value v, llvm::DenseMap<Value, bool> &known,
                               unsigned depth) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || (type.getRank() != 4 && type.getRank() != 3))
    return false;
  ArrayRef<int64_t> shape = type.getShape();
  if (shape[1] == 1 ||
      llvm::all_of(shape.drop_front(2), [](int64_t d) { return d == 1; }))
    return true;
  auto call = v.getDefiningOp<CallFunctionOp>();
  if (!call || call.getNumOperands() == 0 || depth > 256)
    return false;
  StringRef target = call.getTarget();
  if (StringRef base = getFusedBaseOp(target); !base.empty())
    target = base;
  StringRef name = target.split('.').first;
  Value input = call.getOperand(0);
  if (name == "aten::cat")
    return llvm::all_of(call.getOperands(), [&](Value operand) {
      return eagerChannelsLast(operand, known, depth + 1);
    });
  // Computed by a quantized module when it reads a quantized tensor (or
  // the dequantized or fake quantized values of one).
  if (name == "aten::conv2d" || name == "aten::conv_transpose2d" ||
      name == "aten::conv1d" || name == "aten::batch_norm") {
    auto inputType = dyn_cast<ShapedType>(input.getType());
    if (inputType && isa<quant::QuantizedType>(inputType.getElementType()))
      return true;
    if (auto producer = input.getDefiningOp<CallFunctionOp>();
        producer &&
        (producer.getTarget() == "aten::dequantize.self" ||
         producer.getTarget() == "aten::fake_quantize_per_tensor_affine"))
      return true;
    return eagerChannelsLast(input, known, depth + 1);
  }
  static const char *keepLayout[] = {"aten::quantize_per_tensor",
                                     "aten::dequantize",
                                     "aten::fake_quantize_per_tensor_affine",
                                     "aten::relu",
                                     "aten::relu_",
                                     "aten::relu6",
                                     "aten::hardtanh",
                                     "aten::hardtanh_",
                                     "aten::clamp",
                                     "aten::clamp_min",
                                     "aten::clamp_max",
                                     "aten::hardswish",
                                     "aten::hardsigmoid",
                                     "aten::sigmoid",
                                     "aten::tanh",
                                     "aten::leaky_relu",
                                     "aten::gelu",
                                     "aten::silu",
                                     "aten::mish",
                                     "aten::dropout",
                                     "aten::add",
                                     "aten::sub",
                                     "aten::mul",
                                     "aten::div",
                                     "aten::max_pool1d",
                                     "aten::max_pool2d",
                                     "aten::avg_pool1d",
                                     "aten::avg_pool2d",
                                     "aten::adaptive_avg_pool1d",
                                     "aten::adaptive_avg_pool2d",
                                     "aten::upsample_nearest2d",
                                     "aten::upsample_bilinear2d",
                                     "aten::constant_pad_nd",
                                     "aten::channel_shuffle",
                                     "aten::pixel_shuffle"};
  if (!llvm::is_contained(keepLayout, name))
    return false;
  auto inputType = dyn_cast<RankedTensorType>(input.getType());
  if (!inputType || inputType.getRank() != type.getRank())
    return false;
  return eagerChannelsLast(input, known, depth + 1);
}

bool eagerChannelsLast(Value v, llvm::DenseMap<Value, bool> &known,
                       unsigned depth) {
  if (auto it = known.find(v); it != known.end())
    return it->second;
  bool result = eagerChannelsLastUncached(v, known, depth);
  known[v] = result;
  return result;
}

struct FoldQuantPass : public mlir::fx::impl::FXFoldQuantBase<FoldQuantPass> {
  using FXFoldQuantBase::FXFoldQuantBase;

  void runOnOperation() override {
    getOperation()->walk([&](GraphModuleOp module) {
      bool changed = false;
      module.walk([&](GraphOp graph) { changed |= fold(module, graph); });
      if (changed)
        eraseUnusedStateAndSubmodules(module);
    });
  }

  bool fold(GraphModuleOp module, GraphOp graph) {
    GraphBuilder gb(graph);
    bool changed = false;
    llvm::StringMap<std::string> dequantized; // state -> its float copy
    // Average pooling on the integers, for its rounding; with int8 convs,
    // max pooling and cats of dequantized values on the integers too.
    for (Operation *op : getCallNodes(graph))
      changed |= averageIntegers(gb, op);
    if (int8Convs)
      for (Operation *op : getCallNodes(graph))
        changed |= poolIntegers(gb, op) || catIntegers(gb, op);
    // First the quantizes of dequantizes (identities), then the
    // dequantizes: of quantizes (fake quantization), of weights.
    for (bool quantizes : {true, false})
      for (Operation *op : getCallNodes(graph))
        changed |= foldNode(module, gb, op, quantizes, dequantized);
    changed |= dropRedundantFakeQuants(graph);
    return changed;
  }

  /// max_pool2d(dequantize(x)) as dequantize(max_pool2d(x)), x per-tensor
  /// quantized: the dequantization is increasing (a positive scale; f32
  /// rounding keeps the order), so the two commute exactly, and no value
  /// of x is a NaN. The pooling then reads and writes the 8-bit integers,
  /// and the quantize convert_fx puts after it (the same scale and zero
  /// point) folds away with the new dequantize.
  /// `op` as a call of the pooling `target` whose first arg (its one
  /// operand) is the dequantize of an 8-bit per-tensor quantized tensor x:
  /// (the pooling, the dequantize, x's type); nulls otherwise.
  static std::tuple<CallFunctionOp, CallFunctionOp, quant::UniformQuantizedType>
  poolOfDequantize(Operation *op, StringRef target) {
    auto pool = dyn_cast_or_null<CallFunctionOp>(op);
    if (!pool || pool.getTarget() != target || pool.getNumOperands() != 1 ||
        !pool.getKwargs().empty() || pool.getArgs().empty() ||
        pool.getArgs()[0] != NodeAttr::get(pool.getContext(), 0))
      return {};
    auto dq = pool.getOperand(0).getDefiningOp<CallFunctionOp>();
    if (!dq || dq.getTarget() != "aten::dequantize.self" ||
        dq.getNumOperands() != 1 || !dq.getKwargs().empty())
      return {};
    auto xType = dyn_cast<RankedTensorType>(dq.getOperand(0).getType());
    auto q = xType
                 ? dyn_cast<quant::UniformQuantizedType>(xType.getElementType())
                 : quant::UniformQuantizedType();
    if (!q || q.getStorageTypeIntegralWidth() != 8 || !(q.getScale() > 0))
      return {};
    return {pool, dq, q};
  }

  bool poolIntegers(GraphBuilder &gb, Operation *op) {
    auto [pool, dq, q] = poolOfDequantize(op, "aten::max_pool2d");
    if (!pool)
      return false;
    Value x = dq.getOperand(0);
    auto outType = dyn_cast<RankedTensorType>(pool.getResult().getType());
    if (!outType || !outType.getElementType().isF32() ||
        outType.getRank() != 4 || !outType.hasStaticShape())
      return false;
    CallFunctionOp integers =
        gb.call(pool, gb.uniqueName((pool.getNodeName() + "_q").str()),
                "aten::max_pool2d", pool.getArgs().getValue(), {}, {}, {x},
                outType.clone(q));
    CallFunctionOp floats = gb.call(
        pool, pool.getNodeName(), "aten::dequantize.self",
        dq.getArgs().getValue(), {}, {}, {integers.getResult()}, outType);
    pool.getResult().replaceAllUsesWith(floats.getResult());
    pool.erase();
    if (dq->use_empty())
      dq.erase();
    return true;
  }

  /// quantize(avg_pool2d(dequantize(x))) to x's own type (as fx-normalize
  /// writes PyTorch's quantized avg_pool2d, which keeps its input's scale
  /// and zero point) as avg_pool2d(x) on the quantized tensor (so
  /// adaptive_avg_pool2d): the lowering
  /// averages the integers less the zero point and rounds half to even, as
  /// PyTorch's kernel does. Through floats, (q - zp) * scale averaged and
  /// divided by the scale again lands beside an exact half (a 2 x 2 window
  /// of sum 2k + 1 * 2) about as often as not: one step off. So for
  /// upsample_bilinear2d, whose quantized kernel interpolates the integers
  /// themselves (weights of quarters at a scale of 2 give halves often).
  bool averageIntegers(GraphBuilder &gb, Operation *op) {
    auto quantize = dyn_cast<CallFunctionOp>(op);
    if (!quantize || quantize.getTarget() != "aten::quantize_per_tensor" ||
        quantize.getNumOperands() != 1)
      return false;
    Operation *producer = quantize.getOperand(0).getDefiningOp();
    auto [pool, dq, q] = poolOfDequantize(producer, "aten::avg_pool2d");
    for (StringRef target : {"aten::adaptive_avg_pool2d", "aten::avg_pool1d",
                             "aten::adaptive_avg_pool1d"})
      if (!pool)
        std::tie(pool, dq, q) = poolOfDequantize(producer, target);
    bool bilinear = false;
    for (StringRef target :
         {"aten::upsample_bilinear2d.vec", "aten::upsample_bilinear2d"})
      if (!pool) {
        std::tie(pool, dq, q) = poolOfDequantize(producer, target);
        bilinear = bool(pool);
      }
    if (!pool || !pool->hasOneUse())
      return false;
    Value x = dq.getOperand(0);
    auto outType = dyn_cast<RankedTensorType>(quantize.getResult().getType());
    if (!outType || outType.getElementType() != q)
      return false;
    CallFunctionOp integers =
        gb.call(quantize, quantize.getNodeName(), pool.getTarget(),
                pool.getArgs().getValue(), {}, {}, {x}, outType);
    if (!bilinear && eagerChannelsLast(x))
      integers->setAttr(kRoundBeforeZeroPointAttr,
                        UnitAttr::get(integers.getContext()));
    quantize.getResult().replaceAllUsesWith(integers.getResult());
    quantize.erase();
    pool.erase();
    if (dq->use_empty())
      dq.erase();
    return true;
  }

  /// cat([dequantize(x1), ..., dequantize(xn)], dim) as
  /// dequantize(cat([x1, ..., xn], dim)) when every xi has the same
  /// per-tensor 8-bit quantized type: cat only copies, so the two are
  /// equal bit for bit. The concatenation then copies bytes, and the
  /// quantize convert_fx puts after it (the cat's observer is shared with
  /// its inputs') folds away with the new dequantize: densenet's growing
  /// feature maps stay 8-bit.
  bool catIntegers(GraphBuilder &gb, Operation *op) {
    auto cat = dyn_cast<CallFunctionOp>(op);
    if (!cat || cat.getTarget() != "aten::cat" || cat.getNumOperands() == 0 ||
        !cat.getKwargs().empty() || cat.getArgs().empty() ||
        cat->getNumResults() != 1)
      return false;
    auto list = dyn_cast<ListAttr>(cat.getArgs()[0]);
    auto outType = dyn_cast<RankedTensorType>(cat.getResult().getType());
    if (!list || list.getElements().empty() || !outType ||
        !outType.getElementType().isF32())
      return false;
    // Every operand is a list element (not the dim), each a dequantize of
    // the one type.
    if (list.getElements().size() != cat.getNumOperands())
      return false;
    quant::UniformQuantizedType q;
    SmallVector<Value> integers;
    SmallVector<CallFunctionOp> dequantizes;
    for (auto [i, element] : llvm::enumerate(list.getElements())) {
      auto ref = dyn_cast<NodeAttr>(element);
      if (!ref || ref.getIndex() != i)
        return false;
      auto dq = cat.getOperand(i).getDefiningOp<CallFunctionOp>();
      if (!dq || dq.getTarget() != "aten::dequantize.self" ||
          dq.getNumOperands() != 1 || !dq.getKwargs().empty())
        return false;
      auto type = dyn_cast<RankedTensorType>(dq.getOperand(0).getType());
      auto elementQ =
          type ? dyn_cast<quant::UniformQuantizedType>(type.getElementType())
               : quant::UniformQuantizedType();
      if (!elementQ || elementQ.getStorageTypeIntegralWidth() != 8 ||
          (q && elementQ != q))
        return false;
      q = elementQ;
      integers.push_back(dq.getOperand(0));
      dequantizes.push_back(dq);
    }
    CallFunctionOp joined = gb.call(
        cat, gb.uniqueName((cat.getNodeName() + "_q").str()), "aten::cat",
        cat.getArgs().getValue(), {}, {}, integers, outType.clone(q));
    CallFunctionOp floats =
        gb.call(cat, cat.getNodeName(), "aten::dequantize.self",
                dequantizes.front().getArgs().getValue(), {}, {},
                {joined.getResult()}, outType);
    cat.getResult().replaceAllUsesWith(floats.getResult());
    cat.erase();
    for (CallFunctionOp dq : dequantizes)
      if (dq->use_empty())
        dq.erase();
    return true;
  }

  bool foldNode(GraphModuleOp module, GraphBuilder &gb, Operation *op,
                bool quantizes, llvm::StringMap<std::string> &dequantized) {
    bool changed = false;
    {
      auto call = dyn_cast<CallFunctionOp>(op);
      if (!call || call.getNumOperands() != 1 ||
          (call.getTarget() == "aten::quantize_per_tensor") != quantizes)
        return false;
      Value input = call.getOperand(0);
      if (call.getTarget() == "aten::quantize_per_tensor") {
        auto dq = input.getDefiningOp<CallFunctionOp>();
        if (dq && dq.getTarget() == "aten::dequantize.self" &&
            dq.getNumOperands() == 1 &&
            dq.getOperand(0).getType() == call.getResult().getType()) {
          call.getResult().replaceAllUsesWith(dq.getOperand(0));
          call.erase();
          if (dq->use_empty())
            dq.erase();
          changed = true;
        }
        return changed;
      }
      if (call.getTarget() != "aten::dequantize.self")
        return changed;
      // A dequantize only int8 convs and linears read stays for their
      // lowering.
      if (int8Convs && !call->use_empty() &&
          llvm::all_of(call->getUsers(), [&](Operation *user) {
            return isInt8Conv(module, user) || isInt8Linear(module, user);
          }))
        return changed;
      // dequantize(quantize_per_tensor(x)): one fake quantization of x.
      if (auto q = input.getDefiningOp<CallFunctionOp>();
          q && q.getTarget() == "aten::quantize_per_tensor" &&
          q.getNumOperands() == 1 && q.getArgs().size() == 4) {
        auto range = quantizedRange(q.getArgs()[3]);
        if (!range)
          return changed;
        MLIRContext *ctx = call.getContext();
        Type i64 = IntegerType::get(ctx, 64);
        CallFunctionOp fake = gb.call(
            call, call.getNodeName(), "aten::fake_quantize_per_tensor_affine",
            {q.getArgs()[0], q.getArgs()[1], q.getArgs()[2],
             IntegerAttr::get(i64, range->first),
             IntegerAttr::get(i64, range->second)},
            {}, {}, {q.getOperand(0)}, call.getResult().getType());
        if (range->second - range->first <= 255)
          fake->setAttr(kQuantizeOverflowAttr, UnitAttr::get(ctx));
        call.getResult().replaceAllUsesWith(fake.getResult());
        call.erase();
        if (q->use_empty())
          q.erase();
        changed = true;
        return changed;
      }
      auto read = input.getDefiningOp<GetAttrOp>();
      if (!read)
        return changed;
      StateOp state = lookupState(module, read.getTarget());
      if (!state)
        return changed;
      std::string &name = dequantized[state.getSymName()];
      if (name.empty()) {
        std::optional<std::vector<double>> values = dequantizeState(state);
        if (!values)
          return changed;
        auto type = cast<RankedTensorType>(call.getResult().getType());
        if (!type.getElementType().isF32() || !type.hasStaticShape())
          return changed;
        name = addFloatState(module, state,
                             (state.getSymName() + "_dequantized").str(), type,
                             *values);
      }
      Value floats = gb.readState(name, call);
      call.getResult().replaceAllUsesWith(floats);
      call.erase();
      if (read->use_empty())
        read.erase();
      changed = true;
    }
    return changed;
  }
};

} // namespace
