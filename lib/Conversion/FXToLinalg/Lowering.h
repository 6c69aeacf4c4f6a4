//===- Lowering.h - Shared helpers of the fx-to-linalg patterns -*- C++ -*-===//
//
// Each lowering reads one canonical `fx.call_function "aten::..."` node
// (arguments complete and in schema order, as fx-normalize leaves them)
// and replaces it with linalg/tensor/arith/math ops on tensors. Shapes are
// computed from the lowered operands, not taken from the node's declared
// type, so a dynamic batch dimension flows through; the declared type
// gives the result element type (PyTorch's type promotion, recorded at
// import).
//
//===----------------------------------------------------------------------===//

#ifndef FX_MLIR_LIB_CONVERSION_FXTOLINALG_LOWERING_H
#define FX_MLIR_LIB_CONVERSION_FXTOLINALG_LOWERING_H

#include "fx-mlir/Conversion/FXToLinalg/FXToLinalg.h"
#include "fx-mlir/Dialect/FX/IR/FXAttrs.h"
#include "fx-mlir/Dialect/FX/IR/FXOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/StringMap.h"

namespace mlir::func {
class FuncOp;
} // namespace mlir::func

namespace mlir::fx::lowering {

/// A parameter of a canonical target's schema: its position among the
/// node's args (fx-normalize makes every positional parameter explicit),
/// or -1 for a keyword-only one, read from the kwargs by `name`. The
/// generated structs of `args::` (TargetArgs.h.inc, from Targets.def) give
/// one per parameter: `args::aten::sum_dim_IntList::keepdim`.
struct Param {
  int index;
  const char *name;
};

/// `first`, checked at compile time to sit at the position of each of
/// `others`: the one parameter that a lowering shared by several targets
/// reads, named for all of them (`sameParam(addmm::mat1, addbmm::batch1)`).
/// Initialize a constexpr Param with it: a mismatch fails the build.
/// Not constexpr and never defined: reaching it in a constant expression
/// is the compile error sameParam reports.
void sameParamAtDifferentPositions();
template <typename... Params>
constexpr Param sameParam(Param first, Params... others) {
  return ((others.index == first.index) && ...)
             ? first
             : (sameParamAtDifferentPositions(), first);
}

/// The node being lowered, with typed access to its arguments.
///
/// A lowering reads the call it lowers through this class only: its
/// target, arguments, keyword arguments and result type, and its operands
/// as already lowered (the conversion's adaptor values, never the fx
/// values they replace). The call is the node `op` itself, or, for a
/// lowering composed of another one (lowerCall), a call described here
/// that exists in no IR, so that nothing is built only to be erased.
class Lowering {
public:
  /// The node `op`, its operands lowered to `operands`.
  Lowering(CallFunctionOp op, ValueRange operands, PatternRewriter &rewriter)
      : op(op), b(rewriter), loc(op.getLoc()), operands(operands),
        callTarget(op.getTarget()), callArgs(op.getArgs()),
        callKwargs(op.getKwargs()), callType(op.getResult().getType()) {}
  /// The call `target(args, kwargs)` on `operands`, of result type `type`,
  /// lowered for the node `op` (which gives its location and name).
  Lowering(CallFunctionOp op, StringRef target, ArrayAttr args, DictAttr kwargs,
           ValueRange operands, Type type, PatternRewriter &rewriter)
      : op(op), b(rewriter), loc(op.getLoc()), operands(operands),
        callTarget(target), callArgs(args), callKwargs(kwargs), callType(type) {
  }

  /// The node the lowering is for.
  CallFunctionOp op;
  PatternRewriter &b;
  Location loc;
  /// The call's operands, lowered (node reference `i` is operand `i`).
  SmallVector<Value> operands;

  StringRef target() { return callTarget; }
  ArrayAttr args() { return callArgs; }
  DictAttr kwargs() { return callKwargs; }
  /// The call's declared result type (a TupleType for several results).
  Type resultType() { return callType; }

  size_t numArgs() { return callArgs.size(); }
  /// The tensor the call operates on: the first parameter of its schema
  /// (`self`, `input`, `A`, ...), for lowerings shared by targets that
  /// name it differently. Records an error and returns null when it is
  /// not a ranked tensor.
  Value subject() { return tensor(Param{0, "self"}); }
  /// Keyword-only argument `name`, or null.
  Attribute kwarg(StringRef name);
  bool isNone(Attribute a) { return !a || isa<NoneAttr>(a); }
  /// The argument of schema parameter `p`: positional, or keyword-only.
  Attribute arg(Param p) {
    return p.index >= 0 ? arg(unsigned(p.index)) : kwarg(p.name);
  }
  bool isNone(Param p) { return isNone(arg(p)); }

  /// The lowered value a node reference stands for, or null.
  Value value(Attribute a);
  /// A tensor argument as a ranked tensor; records an error and returns
  /// null otherwise.
  Value tensor(Attribute a);
  Value tensor(Param p) { return tensor(arg(p)); }
  /// An int argument: a literal, or a lowered i64 value.
  std::optional<int64_t> constInt(Attribute a);
  std::optional<int64_t> constInt(Param p) { return constInt(arg(p)); }
  /// An int argument as an index OpFoldResult (literal or value).
  OpFoldResult index(Attribute a);
  /// An int[] argument (list of literals or values) as OpFoldResults.
  std::optional<SmallVector<OpFoldResult>> indexList(Attribute a);
  /// An int[] argument of literals only.
  std::optional<SmallVector<int64_t>> intList(Attribute a);
  std::optional<SmallVector<int64_t>> intList(Param p) {
    return intList(arg(p));
  }
  std::optional<double> constFloat(Attribute a);
  std::optional<bool> constBool(Attribute a);
  std::optional<bool> constBool(Param p) { return constBool(arg(p)); }
  /// A Python scalar (literal or lowered value) as a scalar of type `type`.
  Value scalar(Attribute a, Type type);

  /// The element type of the node's declared result (or of element `i` of
  /// a declared tuple).
  Type resultElementType(unsigned i = 0);

  /// Records why the node cannot be lowered; returns failure.
  LogicalResult fail(const Twine &message);

  /// Replaces the node with `v`.
  LogicalResult replace(Value v);

  /// The value of the canonical call `target(args, kwargs)` whose node
  /// references index `operands` (lowered values), declared of `type` (its
  /// element type is the result's): `target`'s own lowering, run on a
  /// temporary node at the node's place. Null when that lowering fails
  /// (its reason recorded here) or `target` has none.
  Value lowerCall(StringRef target, ArrayRef<Attribute> args,
                  ArrayRef<Value> operands, Type type, DictAttr kwargs = {});
  /// lowerCall of a target whose result is a tuple (`type` a TupleType):
  /// its parts; empty when the lowering fails.
  SmallVector<Value> lowerCallParts(StringRef target, ArrayRef<Attribute> args,
                                    ArrayRef<Value> operands, Type type,
                                    DictAttr kwargs = {});
  /// Replaces the node, whose users are `operator.getitem` nodes, by
  /// `values`: each `getitem(node, i)` becomes `values[i]`.
  LogicalResult replaceTuple(ArrayRef<Value> values);

  //===--------------------------------------------------------------------===//
  // Building blocks
  //===--------------------------------------------------------------------===//

  /// Size of dim `d` of `tensor` as an OpFoldResult.
  OpFoldResult dim(Value tensor, int64_t d);
  SmallVector<OpFoldResult> dims(Value tensor);
  /// `tensor.empty` of the given sizes and element type.
  Value empty(ArrayRef<OpFoldResult> sizes, Type elementType);
  /// `empty` filled with `value`.
  Value filled(ArrayRef<OpFoldResult> sizes, Value value);
  /// The rows x cols matrix of ones on the diagonal (torch.eye).
  Value identityMatrix(OpFoldResult rows, OpFoldResult cols, Type elementType);
  /// The 1-D tensor of `n` elements, element i `element(builder, loc, i)`
  /// (i an i64): arange's and linspace's points.
  Value generated(OpFoldResult n, Type elementType,
                  function_ref<Value(OpBuilder &, Location, Value)> element);
  Value generated(int64_t n, Type elementType,
                  function_ref<Value(OpBuilder &, Location, Value)> element) {
    return generated(b.getIndexAttr(n), elementType, element);
  }
  Value constant(Type type, double v);
  Value indexConst(int64_t v);
  Value toIndex(OpFoldResult v);
  /// Converts a scalar between int, float and bool types as torch does.
  Value convert(Value v, Type to);
  /// Converts the element type of a tensor.
  Value castTensor(Value t, Type elementType);
  /// Normalizes a possibly negative dim against `rank`.
  std::optional<int64_t> normDim(Attribute a, int64_t rank);

  /// An elementwise op over `inputs` (tensors, broadcast as PyTorch does,
  /// or scalars), computing in `computeType` and producing `resultType`
  /// elements: `body` gets the inputs converted to `computeType`.
  Value
  elementwise(ArrayRef<Value> inputs, Type computeType, Type resultType,
              function_ref<Value(OpBuilder &, Location, ValueRange)> body);

  /// A reduction of `input` over `dims` (sorted, normalized) with
  /// `init`, combining with `combine(acc, element)`; `keepdim` keeps
  /// size-1 dims.
  Value
  reduce(Value input, ArrayRef<int64_t> dims, bool keepdim, Value init,
         function_ref<Value(OpBuilder &, Location, Value, Value)> combine);
  /// The number of elements over `dims` of `input` as a scalar of `type`.
  Value countOver(Value input, ArrayRef<int64_t> dims, Type type);
  /// Re-inserts size-1 dims at `dims` into a reduced tensor so it
  /// broadcasts against the unreduced input.
  Value keepDims(Value reduced, ArrayRef<int64_t> dims, int64_t rank);

  /// Makes `violated` (a bool tensor, true where the node's precondition
  /// fails at run time: a zero integer divisor, an index out of range) a
  /// run-time check: whether any element is true becomes a hidden result
  /// of the function (`fx.checks`), which the runtime reads after each
  /// call and reports as an error naming the node with `message`.
  void check(Value violated, const Twine &message);

  /// Reshapes `input` to `sizes` (all dims known as OpFoldResults).
  Value reshape(Value input, ArrayRef<OpFoldResult> sizes);
  /// Transposes by `perm`.
  Value transpose(Value input, ArrayRef<int64_t> perm);
  /// Pads with `value` (low/high per dim).
  Value pad(Value input, ArrayRef<OpFoldResult> low,
            ArrayRef<OpFoldResult> high, Value value);
  /// Expands/collapses: inserts a unit dim at `d`.
  Value unsqueeze(Value input, int64_t d);
  /// Removes the unit dim `d` (static size 1).
  Value squeeze(Value input, int64_t d);

  std::string error;
  /// When set, replace() stores the value here instead of replacing the
  /// node: a lowering composed of another one (the fused ops) reads it.
  Value *captured = nullptr;
  /// The same for replaceTuple: the parts are stored here.
  SmallVector<Value> *capturedParts = nullptr;

private:
  /// Positional argument `i`. Lowerings read arguments through a Param,
  /// never by a bare position.
  Attribute arg(unsigned i);
  Value toTensorValue(Value v);
  std::string callTarget;
  ArrayAttr callArgs;
  DictAttr callKwargs;
  Type callType;
};

using LowerFn = LogicalResult (*)(Lowering &);

/// Registers `fn` for the canonical targets `names`.
void addLowering(llvm::StringMap<LowerFn> &table, ArrayRef<StringRef> names,
                 LowerFn fn);

void addElementwiseLowerings(llvm::StringMap<LowerFn> &table);
void addComparisonLowerings(llvm::StringMap<LowerFn> &table);
void addScalarLowerings(llvm::StringMap<LowerFn> &table);
void addLinearAlgebraLowerings(llvm::StringMap<LowerFn> &table);
void addConvolutionLowerings(llvm::StringMap<LowerFn> &table);
void addPoolingLowerings(llvm::StringMap<LowerFn> &table);
void addReductionLowerings(llvm::StringMap<LowerFn> &table);
void addShapeLowerings(llvm::StringMap<LowerFn> &table);
void addGatherLowerings(llvm::StringMap<LowerFn> &table);
void addCreationLowerings(llvm::StringMap<LowerFn> &table);
void addMatrixLowerings(llvm::StringMap<LowerFn> &table);
void addResampleLowerings(llvm::StringMap<LowerFn> &table);
void addLossLowerings(llvm::StringMap<LowerFn> &table);
void addCompositeLowerings(llvm::StringMap<LowerFn> &table);
void addProductLowerings(llvm::StringMap<LowerFn> &table);
void addStatisticsLowerings(llvm::StringMap<LowerFn> &table);
void addFactorizationLowerings(llvm::StringMap<LowerFn> &table);
void addIndexingLowerings(llvm::StringMap<LowerFn> &table);
void addSpecialLowerings(llvm::StringMap<LowerFn> &table);
void addBackwardLowerings(llvm::StringMap<LowerFn> &table);
void addGeneralFormLowerings(llvm::StringMap<LowerFn> &table);
void addComplexLowerings(llvm::StringMap<LowerFn> &table);
void addQuantizeLowerings(llvm::StringMap<LowerFn> &table);

/// Turns the control-flow calls of `graph` (ControlFlow.h) into scf ops
/// whose regions hold copies of their graphs' nodes (ControlFlow.cpp),
/// for the node patterns to lower there; reports a call it cannot.
LogicalResult inlineControlFlow(GraphModuleOp module, GraphOp graph);

/// Carries the flags of run-time checks made inside scf.if and scf.for
/// (Lowering::check) out to the function's body, where the flags of
/// checks are returned: an extra result of each if, an extra iteration
/// argument (or of all iterations) of each loop.
LogicalResult hoistChecks(func::FuncOp func);

bool isFloat(Type t);

/// The lowering registered for the canonical target `name`, or null.
LowerFn lookupLowering(StringRef name);
/// The complex tensor whose elements are the pairs (real, imaginary) of
/// the last dim (of size 2) of the float tensor `parts`: view_as_complex.
Value complexFromParts(OpBuilder &b, Location loc, Value parts,
                       ComplexType type);
/// The lowering of the canonical target `name` on complex tensors
/// (Complex.cpp), or null: the conversion uses it in place of the target's
/// own for a node with a complex operand or result.
LowerFn lookupComplexLowering(StringRef name);

/// The scalar activation `name` of a fused op (`relu`, `relu6`, `gelu`,
/// `gelu_tanh`, `silu`, `sigmoid`, `tanh`, `hardswish`) applied to the
/// float `x`; null for other names or types.
Value buildActivation(OpBuilder &b, Location loc, StringRef name, Value x);

/// The scalar constant `v` of `type` (float, integer, i1 or index), built
/// with `b`: inside a linalg body as well as at the lowering's insertion
/// point (Lowering::constant).
Value constantOf(OpBuilder &b, Location loc, Type type, double v);

/// Float arithmetic for a scalar body at `loc`: constants of type `t`,
/// and the binary ops (which take their operands' type, so they serve
/// other float widths too).
struct FloatOps {
  OpBuilder &b;
  Location loc;
  Type t;
  Value c(double v) const { return constantOf(b, loc, t, v); }
  Value add(Value x, Value y) const {
    return arith::AddFOp::create(b, loc, x, y);
  }
  Value sub(Value x, Value y) const {
    return arith::SubFOp::create(b, loc, x, y);
  }
  Value mul(Value x, Value y) const {
    return arith::MulFOp::create(b, loc, x, y);
  }
  Value div(Value x, Value y) const {
    return arith::DivFOp::create(b, loc, x, y);
  }
};

/// Integers compare signed, except bools: False < True, where a signed i1
/// would read True as -1. `signedPredicate` is one of eq, ne, slt, sle, sgt,
/// sge; for i1 the matching unsigned one is returned.
arith::CmpIPredicate intPredicate(arith::CmpIPredicate signedPredicate,
                                  Type type);
/// x + y for floats and integers; bools add as PyTorch's do (True + True
/// is True: an or, where an i1 add would wrap around to False).
Value add(OpBuilder &b, Location loc, Value x, Value y);
/// The larger and the smaller of two integers, bools unsigned as above.
Value maxInt(OpBuilder &b, Location loc, Value x, Value y);
Value minInt(OpBuilder &b, Location loc, Value x, Value y);

/// Checks that the indices in `index` lie in [0, N) ([-N, N) when
/// `negative`) for dim `dim` of `self` (size N): recorded as a bound the
/// runtime checks on inputs, else checked as the code runs (an index out
/// of range fails the call naming the node, as PyTorch's IndexError).
void checkIndexRange(Lowering &l, Value self, int64_t dim, Value index,
                     bool negative);
/// `i` (an index) if it lies in [0, size), else 0: an index out of range
/// (which the node's check reports) reads or writes element 0, never
/// memory outside the tensor.
Value clampIndex(OpBuilder &b, Location loc, Value i, Value size);
/// An index tensor's element as an `index` value, clamped by clampIndex.
Value clampedIndex(OpBuilder &b, Location loc, Value element, Value size);

// Elementwise.cpp's helper, which Comparisons.cpp uses too.
/// Operand `a` as a tensor value, or as a scalar of `type` when it is a
/// Python number.
Value operand(Lowering &l, Attribute a, Type type);

// Shape.cpp's helpers, which Matrices.cpp uses too.
/// A tensor of `sizes` whose item at each index is `x` read through
/// `exprs` (of the result's dims): broadcasts, flips, repeats, diagonals.
Value readThrough(Lowering &l, Value x, ArrayRef<AffineExpr> exprs,
                  ArrayRef<OpFoldResult> sizes);
/// Joins `inputs` along `dim`.
Value concat(Lowering &l, ArrayRef<Value> inputs, int64_t dim, Type elem);
/// Slices `[start, start + length)` with `step` along `dim`.
Value sliceAlong(Lowering &l, Value x, int64_t dim, OpFoldResult start,
                 OpFoldResult length, int64_t step);

/// A call's arguments and operands with every operand that stands for a
/// tuple or list by its parts (a producer lowered by replaceTuple while
/// this call read it whole) given by those parts: its references become
/// tuples of references to them.
struct ExpandedCall {
  Attribute args, kwargs;
  SmallVector<Value> operands;
};
ExpandedCall expandParts(MLIRContext *ctx, ValueRange operands, Attribute args,
                         Attribute kwargs);

/// uint8 tensors are computed as i32 holding 0..255 (convert-fx-to-linalg
/// retypes them before lowering and marks their nodes, their values and
/// the ops that make them with this attribute): integer arithmetic mod 2^32
/// is arithmetic mod 256 once reduced, and comparisons, division, shifts
/// and conversions of values in 0..255 are those of uint8.
constexpr StringLiteral kUint8Attr = "fx.uint8";
/// On the function while convert-fx-to-linalg lowers its nodes: their
/// static dims are exact (no dynamic-batch option overriding static
/// types), so Lowering::replace checks a size it computed as dynamic
/// against the node's static one.
constexpr StringLiteral kExactStaticDimsAttr = "fx.exact_static_dims";
/// On a call whose first operand was a quantized tensor (dequantize,
/// int_repr): that operand's `!quant.uniform` element type. Quantized
/// tensors are computed as their storage integers (i8, i32), which no
/// longer say their scale, zero point or signedness.
constexpr StringLiteral kQuantTypeAttr = "fx.quant_type";
/// The quant type of a quantize_per_channel's result (its scales and zero
/// points), kept when the result is retyped to its storage integers.
constexpr StringLiteral kResultQuantTypeAttr = "fx.result_quant_type";
/// On a conv2d call (convert-fx-to-linalg{int8-pairs}): int8Conv2d builds
/// its dense int8 form in i16 pairs rather than 4-byte groups.
constexpr StringLiteral kInt8PairsAttr = "fx.int8_pairs";
/// `fn` applied to each element of the ranked tensor `v`, giving a tensor
/// of `elementType` of its shape (one linalg.generic; usable where no
/// Lowering is at hand, as in the pass itself).
Value mapElements(OpBuilder &b, Location loc, Value v, Type elementType,
                  function_ref<Value(OpBuilder &, Location, Value)> fn);
/// `v` (an i32 tensor) reduced to 0..255 (`v & 255`), as a uint8 result of
/// PyTorch wraps around; the op is marked kUint8Attr. Other values as
/// they are.
Value wrapUint8(OpBuilder &b, Location loc, Value v);
/// The value a node replaced by `v` stands for: `v` wrapped when the node
/// makes uint8 (`uint8`), else not a uint8 op's value (a cast of it when it
/// is one), so that outputs are labelled by their nodes' dtypes.
Value labelUint8(OpBuilder &b, Location loc, Value v, bool uint8);

/// Reduces all elements of the ranked tensor `x` to one scalar of
/// `init`'s type (elements are converted to it), combining with `fn`.
Value reduceAll(Lowering &l, Value x, Value init,
                function_ref<Value(OpBuilder &, Location, Value, Value)> fn);

/// conv2d(dequantize(x), dequantize(w), bias) with `x` a per-tensor quint8
/// activation and `w` a constant qint8 weight of zero points 0 (`groups`
/// 1, or depthwise: groups = input = output channels), computed exactly on
/// the integers (QuantizedConv.cpp), in i16 pairs where the call is
/// marked kInt8PairsAttr; null when the call is not of that form.
Value int8Conv2d(Lowering &l, Value bias, ArrayRef<int64_t> stride,
                 ArrayRef<int64_t> padLo, ArrayRef<int64_t> padHi,
                 ArrayRef<int64_t> dilation, int64_t groups);

/// conv3d(dequantize(x), dequantize(w), bias) of such operands (5-D,
/// groups 1) as the int8 conv2d of the kernel's depth slices: each output
/// depth an image whose channels are the input's channels at the depths
/// its window reads (QuantizedConv.cpp); null when not of that form.
Value int8Conv3d(Lowering &l, Value bias, ArrayRef<int64_t> stride,
                 ArrayRef<int64_t> padLo, ArrayRef<int64_t> padHi,
                 ArrayRef<int64_t> dilation, int64_t groups);

/// ATen's quantization of the f32 scalar `v` before its conversion to
/// integers: zeroPoint + roundeven(v * inverse), clamped to [lo, hi] by
/// maxnum/minnum (a NaN becomes lo), in f32 (Quantize.cpp). With
/// `overflow`, a scaled value from 2^63 up (+inf) gives it instead, as
/// ATen's quantize_val (its int64 conversion gives INT64_MIN, then
/// clamped).
Value quantizedValue(OpBuilder &b, Location loc, Value v, Value inverse,
                     Value zeroPoint, float lo, float hi,
                     std::optional<float> overflow = std::nullopt);

/// A quantizedValue `clamped` as the 8- or 16-bit `storage` integer it is
/// exactly (converted through i32).
Value storageInteger(OpBuilder &b, Location loc, Value clamped, Type storage);

/// The storage integer `q` less the f32 `zeroPoint`, in f32 (exact), `q`
/// read signed or unsigned.
Value centeredInteger(OpBuilder &b, Location loc, Value q, bool isSigned,
                      Value zeroPoint);

/// The linear call `l` lowers as an int8 1 x 1 conv (int8Conv2d) of its
/// input's rows (the pixels of one image row) when its input is the
/// dequantize of a static per-tensor quint8 tensor and its weight the
/// dequantize of a constant qint8 [O, K] weight of zero points 0; y in f32
/// of the input's shape with K replaced by O, or null when it is not of
/// that form.
Value int8Linear(Lowering &l, Value bias);

/// max_pool2d of the 8-bit storage integers `x` ([N, C, H, W]) of a
/// quantized tensor (fx-fold-quant pools them rather than their
/// dequantized values), unsigned or signed: in NHWC, the windows strided
/// views of the padded NHWC copy (padded with the type's least value), the
/// channels contiguous, then back to NCHW (QuantizedConv.cpp).
Value int8MaxPool2d(Lowering &l, Value x, bool isUnsigned,
                    ArrayRef<int64_t> kernel, ArrayRef<int64_t> stride,
                    ArrayRef<int64_t> padLo, ArrayRef<int64_t> padHi,
                    ArrayRef<int64_t> dilation, ArrayRef<int64_t> out);

void addFusedLowerings(llvm::StringMap<LowerFn> &table);
void addProbeLowerings(llvm::StringMap<LowerFn> &table);

} // namespace mlir::fx::lowering

#include "fx-mlir/Conversion/FXToLinalg/TargetArgs.h.inc"

#endif // FX_MLIR_LIB_CONVERSION_FXTOLINALG_LOWERING_H
