//===- FXToLinalg.cpp - The convert-fx-to-linalg pass ---------------------===//
//
// Graph structure: placeholders become function arguments, state becomes
// constants or arguments, fx.output becomes func.return; the node patterns
// (Lowering.cpp and the op-family files) lower everything in between.
//
//===----------------------------------------------------------------------===//

#include "fx-mlir/Conversion/FXToLinalg/FXToLinalg.h"
#include "Lowering.h"
#include "fx-mlir/Conversion/Passes.h"
#include "fx-mlir/Dialect/FX/IR/ControlFlow.h"
#include "fx-mlir/Dialect/FX/IR/FXAttrs.h"
#include "fx-mlir/Dialect/FX/IR/FXLocation.h"
#include "fx-mlir/Dialect/FX/IR/FXOps.h"
#include "fx-mlir/Dialect/FX/Registry/Registry.h"
#include "fx-mlir/Dialect/FX/Transforms/GraphBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Complex/IR/Complex.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::fx {
#define GEN_PASS_DEF_CONVERTFXTOLINALG
#include "fx-mlir/Conversion/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;
using namespace mlir::fx;

namespace {

/// The value of `state` as a constant. Bool blobs become dense bool
/// attributes: LLVM has no lowering for i1 resource blobs. So do blobs of
/// one element (a 0-d tensor constant, `torch.scalar_tensor(2.0)`):
/// finalize-memref-to-llvm aborts on a 0-d resource global.
TypedAttr constantValue(StateOp state) {
  auto value = cast<TypedAttr>(*state.getValue());
  auto blob = dyn_cast<DenseResourceElementsAttr>(value);
  auto type = cast<ShapedType>(value.getType());
  if (!blob)
    return value;
  AsmResourceBlob *data = blob.getRawHandle().getBlob();
  if (!data)
    return value;
  ArrayRef<char> bytes = data->getData();
  if (!type.getElementType().isInteger(1)) {
    bool isSplat = false;
    if (type.getNumElements() == 1 &&
        DenseElementsAttr::isValidRawBuffer(type, bytes, isSplat))
      return DenseElementsAttr::getFromRawBuffer(type, bytes);
    return value;
  }
  if (int64_t(bytes.size()) != type.getNumElements())
    return value;
  SmallVector<bool> bools;
  for (char c : bytes)
    bools.push_back(c != 0);
  return DenseElementsAttr::get(type, bools);
}

/// The complex constant `value` as a tensor of its parts (a last dim of 2:
/// real, imaginary), the bytes of a blob unchanged; null for an attribute
/// of another kind.
TypedAttr complexAsParts(TypedAttr value, ComplexType complex) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape.push_back(2);
  auto partsType = RankedTensorType::get(shape, complex.getElementType());
  if (auto blob = dyn_cast<DenseResourceElementsAttr>(value))
    return DenseResourceElementsAttr::get(partsType, blob.getRawHandle());
  auto dense = dyn_cast<DenseElementsAttr>(value);
  if (!dense)
    return {};
  SmallVector<APFloat> parts;
  for (std::complex<APFloat> c : dense.getValues<std::complex<APFloat>>()) {
    parts.push_back(c.real());
    parts.push_back(c.imag());
  }
  return DenseElementsAttr::get(partsType, parts);
}

/// Reports a node that cannot be compiled; `interpretable` adds the hint
/// that the reference interpreter runs it.
void reportNode(Operation *op, const Twine &reason, bool interpretable = true) {
  auto node = cast<NodeOpInterface>(op);
  InFlightDiagnostic diag = op->emitError();
  diag << "cannot compile " << node.getOpcode() << " " << getNodeLabel(op)
       << " with target '" << node.getTargetName() << "': " << reason;
  if (interpretable)
    diag << "; run it with the reference interpreter (fx-run --interpret) "
            "instead";
}

/// Reports a call that is not canonical: the registry's reason when it
/// cannot bind it (the interpreter cannot run it either), else a hint to
/// normalize first.
void reportUnnormalized(Operation *op) {
  std::string why;
  if (TargetRegistry::get().bind(op, why))
    reportNode(op, "not canonical; run fx-normalize first", false);
  else
    reportNode(op, why, false);
}

/// A tensor of quantized elements as the tensor of signless integers it is
/// computed as (i8 for quint8 and qint8, i32 for qint32); null for any
/// other type.
Type storageTensorType(Type type) {
  auto tensor = dyn_cast<TensorType>(type);
  if (!tensor)
    return {};
  auto quantized = dyn_cast<quant::QuantizedType>(tensor.getElementType());
  if (!quantized)
    return {};
  return tensor.clone(IntegerType::get(
      type.getContext(), quantized.getStorageTypeIntegralWidth()));
}

/// The signature attributes of an argument or result passed as the storage
/// integers of a tensor of quantized `type`: fx.quantized, and fx.dtype
/// uint8 for quint8 (whose bytes the lowering holds as i8).
NamedAttrList quantizedSignatureAttrs(quant::QuantizedType type) {
  MLIRContext *ctx = type.getContext();
  NamedAttrList attrs;
  if (!type.isSigned() && type.getStorageTypeIntegralWidth() == 8)
    attrs.append("fx.dtype", StringAttr::get(ctx, "uint8"));
  attrs.append("fx.quantized", TypeAttr::get(type));
  return attrs;
}

/// Whether `type` is a tensor of uint8 (`ui8`) elements.
bool isUint8Tensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getElementType().isUnsignedInteger(8);
}

/// `type` with uint8 tensors (alone or in a tuple) as i32 tensors, the
/// type they are computed in (lowering::kUint8Attr); null if none.
Type retypeUint8(Type type) {
  // Ranked or not: normalization's expansions may leave a rank unknown.
  auto isUint8 = [](Type t) {
    auto tensor = dyn_cast<TensorType>(t);
    return tensor && tensor.getElementType().isUnsignedInteger(8);
  };
  auto retype = [&](Type t) -> Type {
    if (!isUint8(t))
      return t;
    return cast<TensorType>(t).clone(IntegerType::get(t.getContext(), 32));
  };
  if (auto tuple = dyn_cast<TupleType>(type)) {
    if (llvm::none_of(tuple.getTypes(), isUint8))
      return {};
    SmallVector<Type> types;
    for (Type t : tuple.getTypes())
      types.push_back(retype(t));
    return TupleType::get(type.getContext(), types);
  }
  return isUint8(type) ? retype(type) : Type();
}

/// Whether the operator `target` computes on uint8 tensors (read or made)
/// as uint8 does when computed as i32 holding 0..255 and its result
/// wrapped once: ring arithmetic (exact mod 256 once reduced), bitwise
/// ops, comparisons and selections, conversions, math that converts its
/// input to float first, reductions that promote first, and moving
/// elements. An operator that computes on uint8 values in steps that wrap
/// in eager (a loss or distance subtracting two uint8 tensors before it
/// clamps or squares, `trapz`) is not, and is reported: an error rather
/// than a wrong result.
bool uint8Exact(CallFunctionOp call) {
  StringRef target = call.getTarget();
  static const llvm::StringSet<> names = {
      // Ring arithmetic, bitwise ops, shifts.
      "add", "sub", "rsub", "mul", "neg", "negative", "square", "pow",
      "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not",
      "bitwise_left_shift", "bitwise_right_shift",
      // The same as TorchScript spells them (`x << 2`, `m & n`).
      "__lshift__", "__rshift__", "__and__", "__or__", "__xor__",
      // Comparisons, selections, division of 0..255.
      "eq", "ne", "lt", "le", "gt", "ge", "maximum", "minimum", "fmax", "fmin",
      "where", "masked_fill", "floor_divide", "remainder", "fmod", "div", "gcd",
      "lcm", "true_divide", "abs", "absolute", "sign", "sgn", "relu",
      "logical_and", "logical_or", "logical_xor", "logical_not", "isnan",
      "isinf", "isfinite", "isposinf", "isneginf", "isreal", "nan_to_num",
      "zeros_like", "ones_like", "full_like", "empty_like", "zeros", "ones",
      "full", "empty", "scalar_tensor", "eye",
      // Math that converts the input to float first.
      "sqrt", "rsqrt", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p",
      "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh",
      "asinh", "acosh", "atanh", "sigmoid", "erf", "erfc", "erfinv",
      "reciprocal", "floor", "ceil", "round", "trunc", "frac", "atan2",
      "lgamma", "digamma", "sinc", "deg2rad", "rad2deg",
      // Conversions and copies.
      "to", "_to_copy", "type_as", "clone", "contiguous", "detach", "alias",
      "int_repr",
      // Reductions (promoting first, or exact), sorting, selection.
      "sum", "nansum", "prod", "max", "min", "amax", "amin", "aminmax",
      "argmax", "argmin", "cumsum", "cumprod", "cummax", "cummin",
      "count_nonzero", "sort", "argsort", "msort", "topk", "kthvalue", "any",
      "all",
      // Moving elements.
      "view", "reshape", "_unsafe_view", "view_as", "flatten", "unflatten",
      "squeeze", "unsqueeze", "permute", "movedim", "transpose", "swapaxes",
      "t", "expand", "expand_as", "broadcast_to", "repeat", "tile", "slice",
      "select", "narrow", "split", "split_with_sizes", "tensor_split", "chunk",
      "unbind", "cat", "concat", "stack", "hstack", "vstack", "dstack",
      "column_stack", "flip", "fliplr", "flipud", "roll", "rot90",
      "constant_pad_nd", "pad", "index_select", "gather", "take",
      "take_along_dim", "index", "diagonal", "diag", "tril", "triu",
      "atleast_1d", "atleast_2d", "atleast_3d", "unfold", "combinations",
      "diag_embed", "diagflat", "block_diag", "diagonal_scatter",
      "slice_scatter", "select_scatter", "index_fill", "index_copy", "scatter",
      "scatter_add", "new_zeros", "new_ones", "new_full", "new_empty",
      "meshgrid", "pixel_shuffle", "pixel_unshuffle", "fft_fftshift",
      "fft_ifftshift", "vsplit", "hsplit", "dsplit", "cartesian_prod",
      "broadcast_tensors", "real", "conj", "conj_physical", "resolve_neg",
      "resolve_conj", "positive",
      // Selection by comparison.
      "searchsorted", "bucketize", "median", "nanmedian", "isin", "heaviside",
      "signbit", "relu6",
      // Sums of products and differences: exact mod 256 as well.
      "sum_to_size", "index_add", "kron", "outer", "ger", "matmul", "mm", "bmm",
      "mv", "dot", "vdot", "inner", "einsum", "linear", "bilinear", "addmm",
      "addmv", "addbmm", "baddbmm", "addr", "linalg_multi_dot", "trace",
      "cross", "linalg_cross", "addcmul", "diff", "linalg_vander",
      // Float math of the converted input.
      "polygamma", "mvlgamma", "logit", "i0", "xlogy", "float_power", "ldexp",
      "copysign", "softmax", "log_softmax", "_softmax", "_log_softmax",
      "logsumexp", "angle"};
  StringRef name = target;
  name.consume_front("aten::");
  name = name.split('.').first;
  // A clamp's int bounds are cast to uint8 by eager (-5 is 251): exact
  // only for bounds in 0..255.
  if (name == "clamp" || name == "clamp_min" || name == "clamp_max")
    return llvm::all_of(call.getArgs(), [](Attribute a) {
      auto i = dyn_cast<IntegerAttr>(a);
      return !i || (i.getInt() >= 0 && i.getInt() <= 255);
    });
  // scatter_reduce's sum, prod, amax, amin are; its mean divides a sum
  // that eager wraps first.
  if (name == "scatter_reduce")
    return llvm::none_of(call.getArgs(), [](Attribute a) {
      auto s = dyn_cast<StringAttr>(a);
      return s && s.getValue() == "mean";
    });
  return names.contains(name) || name.starts_with("special_") ||
         target == "operator.getitem";
}

/// An elementwise cast of the integer tensor `v` to `width` bits: zero
/// extension (uint8 bytes to the i32 they are computed in) or truncation
/// (back to bytes); marked kUint8Attr when it makes an i32.
Value castUint8(OpBuilder &b, Location loc, Value v, unsigned width) {
  Type element = b.getIntegerType(width);
  Value cast = lowering::mapElements(
      b, loc, v, element, [&](OpBuilder &nb, Location loc, Value x) -> Value {
        if (width == 32)
          return arith::ExtUIOp::create(nb, loc, element, x);
        return arith::TruncIOp::create(nb, loc, element, x);
      });
  if (width == 32)
    cast.getDefiningOp()->setAttr(lowering::kUint8Attr, b.getUnitAttr());
  return cast;
}

struct ConvertFXToLinalgPass
    : public mlir::fx::impl::ConvertFXToLinalgBase<ConvertFXToLinalgPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<GraphModuleOp> modules(getOperation().getOps<GraphModuleOp>());
    if (modules.size() > 1) {
      modules[1].emitError("convert-fx-to-linalg: expected one graph module");
      return signalPassFailure();
    }
    // The nodes by location, to name them in the verifier's messages.
    llvm::DenseMap<Location, std::string> nodes;
    getOperation().walk([&](CallFunctionOp call) {
      nodes[call.getLoc()] = ("call_function " + getNodeLabel(call) +
                              " with target '" + call.getTarget() + "'")
                                 .str();
    });
    for (GraphModuleOp module : modules)
      if (failed(convert(module)))
        return signalPassFailure();
    if (failed(verifyLowered(nodes)))
      return signalPassFailure();
  }

  /// Verifies what the lowerings built. A lowering given operand types
  /// its operator does not take (a float index, bitwise ops of floats: a
  /// graph eager would reject, written by hand) can build invalid IR; the
  /// verifier's message is then reported as the node's error, naming it.
  LogicalResult
  verifyLowered(const llvm::DenseMap<Location, std::string> &nodes) {
    bool reporting = false;
    ScopedDiagnosticHandler handler(
        &getContext(), [&](Diagnostic &diag) -> LogicalResult {
          auto it = nodes.find(diag.getLocation());
          if (reporting || diag.getSeverity() != DiagnosticSeverity::Error ||
              it == nodes.end())
            return failure(); // to the next handler, as it is
          reporting = true;
          emitError(diag.getLocation())
              << "cannot compile " << it->second
              << ": its operands' types do not fit the operator (" << diag.str()
              << ")";
          reporting = false;
          return success();
        });
    return verify(getOperation());
  }

  LogicalResult convert(GraphModuleOp module) {
    MLIRContext *ctx = &getContext();
    auto graph = dyn_cast_or_null<GraphOp>(
        SymbolTable::lookupSymbolIn(module, StringAttr::get(ctx, "forward")));
    if (!graph)
      return module.emitError("graph module has no 'forward' graph");
    Block &body = graph.getBody().front();

    // A graph imported for one batch size, compiled for any: its nodes'
    // types are recomputed from the inputs', but the graphs of its control
    // flow (cond branches, loop bodies) keep the example's types.
    if (dynamicBatch) {
      SmallVector<PlaceholderOp> inputs;
      graph.getPlaceholders(inputs);
      bool importedStatic = llvm::none_of(inputs, [](PlaceholderOp p) {
        auto type = dyn_cast<RankedTensorType>(p.getResult().getType());
        return type && !type.hasStaticShape();
      });
      for (Operation &op : body)
        if (auto call = dyn_cast<CallFunctionOp>(op);
            importedStatic && call && isControlFlowTarget(call.getTarget()))
          return call.emitError()
                 << "cannot compile call_function " << getNodeLabel(call)
                 << " with target '" << call.getTarget()
                 << "' for a dynamic batch: the graph was imported for one "
                    "batch size (static input types), and its control "
                    "flow's graphs keep that size; import it for a dynamic "
                    "batch (fx_mlir.compile(..., dynamic_batch=True)) or "
                    "compile it for its own sizes";
    }
    // Control flow becomes scf ops holding copies of its graphs' nodes.
    if (failed(lowering::inlineControlFlow(module, graph)))
      return failure();
    // The nodes, in the graph and in those regions.
    SmallVector<Operation *> nodeOps;
    graph.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<NodeOpInterface>(op))
        nodeOps.push_back(op);
    });

    // Every call must have a lowering before anything changes.
    bool ok = true;
    for (Operation *nodeOp : nodeOps) {
      Operation &op = *nodeOp;
      if (auto call = dyn_cast<CallFunctionOp>(op)) {
        // getitem of a tuple or list is taken apart with its producer;
        // getitem of a tensor is fx-normalize's to expand.
        bool tupleGetitem =
            call.getTarget() == "operator.getitem" &&
            !(call.getNumOperands() && !call.getArgs().empty() &&
              call.getArgs()[0] == NodeAttr::get(call.getContext(), 0) &&
              isa<TensorType>(call.getOperand(0).getType()));
        if (isLowerableTarget(call.getTarget()) || tupleGetitem)
          continue;
        if (call.getTarget() == "operator.getitem") {
          // A bool mask (`x[x > 0]`) selects as many elements as are true:
          // a size the data decides.
          bool mask = llvm::any_of(
              llvm::drop_begin(call->getOperands()), [](Value index) {
                auto type = dyn_cast<TensorType>(index.getType());
                return type && type.getElementType().isInteger(1);
              });
          reportNode(&op,
                     mask ? "indexing by a bool mask is not supported: the "
                            "result's size depends on the data (masked_fill "
                            "or torch.where keep the shape)"
                          : "this tensor indexing is not supported (ints, "
                            "slices, None, `...`, or int index tensors or "
                            "lists next to each other among slices are)",
                     false);
          ok = false;
          continue;
        }
        if (call.getTarget().contains("::"))
          reportNode(&op, "the operator has no lowering");
        else
          reportUnnormalized(&op);
        ok = false;
      } else if (isa<CallMethodOp, CallModuleOp>(op)) {
        reportUnnormalized(&op);
        ok = false;
      }
    }
    if (!ok)
      return failure();

    // uint8 tensors are computed as i32 (lowering::kUint8Attr) by the
    // operators for which that is exact (uint8Exact); others are reported.
    for (Operation *nodeOp : nodeOps) {
      auto call = dyn_cast<CallFunctionOp>(nodeOp);
      if (!call || uint8Exact(call))
        continue;
      if (llvm::any_of(call->getOperandTypes(), isUint8Tensor) ||
          retypeUint8(call.getResult().getType())) {
        reportNode(call, "uint8 tensors are compiled for arithmetic, "
                         "comparisons, bitwise ops, conversions, reductions "
                         "and moving elements, not for this operator (eager "
                         "wraps its uint8 steps around)");
        ok = false;
      }
    }
    if (!ok)
      return failure();
    // The nodes that make uint8 tensors are retyped and marked, so that
    // their lowering wraps their values around to 0..255.
    for (Operation *nodeOp : nodeOps)
      if (auto call = dyn_cast<CallFunctionOp>(nodeOp))
        if (Type retyped = retypeUint8(call.getResult().getType())) {
          call.getResult().setType(retyped);
          call->setAttr(lowering::kUint8Attr, UnitAttr::get(ctx));
        }

    // The quantized element types of the outputs, read before their nodes
    // are retyped: their values are returned as the storage integers,
    // marked fx.quantized (the Python package gives them back as quantized
    // tensors).
    SmallVector<quant::QuantizedType> quantizedOutputs;
    for (Operation *nodeOp : nodeOps)
      if (auto out = dyn_cast<OutputOp>(nodeOp);
          out && out->getBlock() == &body)
        for (Value v : out->getOperands()) {
          auto shaped = dyn_cast<ShapedType>(v.getType());
          quantizedOutputs.push_back(
              shaped ? dyn_cast<quant::QuantizedType>(shaped.getElementType())
                     : quant::QuantizedType());
        }

    // Quantized tensors are computed as their storage integers; the calls
    // that read one keep its quant type (lowering::kQuantTypeAttr).
    for (Operation *nodeOp : nodeOps) {
      auto call = dyn_cast<CallFunctionOp>(nodeOp);
      if (!call)
        continue;
      if (call.getNumOperands())
        if (auto t = dyn_cast<TensorType>(call.getOperand(0).getType());
            t && isa<quant::QuantizedType>(t.getElementType()))
          call->setAttr(lowering::kQuantTypeAttr,
                        TypeAttr::get(t.getElementType()));
    }
    // The int8 convs' (and linears') form: for CPUs with i16 pair dot
    // products only.
    if (int8Pairs)
      for (Operation *nodeOp : nodeOps)
        if (auto call = dyn_cast<CallFunctionOp>(nodeOp);
            call && (call.getTarget() == "aten::conv2d" ||
                     call.getTarget() == "aten::conv3d" ||
                     call.getTarget() == "aten::linear"))
          call->setAttr(lowering::kInt8PairsAttr, UnitAttr::get(ctx));
    for (Operation *nodeOp : nodeOps)
      if (auto call = dyn_cast<CallFunctionOp>(nodeOp))
        if (Type storage = storageTensorType(call.getResult().getType())) {
          if (call.getTarget() == "aten::quantize_per_channel")
            call->setAttr(
                lowering::kResultQuantTypeAttr,
                TypeAttr::get(cast<ShapedType>(call.getResult().getType())
                                  .getElementType()));
          call.getResult().setType(storage);
        }

    // The function: placeholders, then state read as arguments.
    SmallVector<std::pair<unsigned, quant::QuantizedType>> quantizedInputs;
    SmallVector<PlaceholderOp> placeholders;
    graph.getPlaceholders(placeholders);
    SmallVector<Type> inputTypes;
    // Imported for a dynamic batch (a placeholder typed with a dynamic
    // dim), the nodes' static dims are exact: Lowering::replace checks a
    // computed dynamic size against them while the code runs.
    bool exactStaticDims =
        !dynamicBatch || llvm::any_of(placeholders, [](PlaceholderOp p) {
          auto type = dyn_cast<RankedTensorType>(p.getResult().getType());
          return type && !type.hasStaticShape();
        });
    for (PlaceholderOp p : placeholders) {
      auto type = dyn_cast<RankedTensorType>(p.getResult().getType());
      if (!type) {
        p.emitError() << "cannot compile placeholder " << getNodeLabel(p)
                      << ": its type must be a ranked tensor, got "
                      << p.getResult().getType()
                      << " (import with example inputs)";
        return failure();
      }
      // A placeholder marked `fx.buffer` is module state passed in (a
      // buffer the graph updates): its dims do not follow the batch.
      if (dynamicBatch && type.getRank() > 0 && !p->hasAttr("fx.buffer")) {
        SmallVector<int64_t> shape(type.getShape());
        shape[0] = ShapedType::kDynamic;
        type = RankedTensorType::get(shape, type.getElementType());
      }
      if (isUint8Tensor(type))
        type = type.clone(IntegerType::get(ctx, 8));
      // A quantized input is passed as its storage integers (uint8 for
      // quint8), marked fx.quantized with its type; the Python package
      // checks a quantized tensor's parameters against it and passes its
      // int_repr().
      if (Type storage = storageTensorType(type)) {
        auto quantized = cast<quant::QuantizedType>(type.getElementType());
        quantizedInputs.push_back({inputTypes.size(), quantized});
        type = cast<RankedTensorType>(storage);
      }
      inputTypes.push_back(type);
    }
    OpBuilder builder(module);
    auto func = func::FuncOp::create(builder, module.getLoc(), entry,
                                     builder.getFunctionType(inputTypes, {}));
    Block *entryBlock = func.addEntryBlock();
    for (auto [i, quantized] : quantizedInputs)
      for (NamedAttribute attr : quantizedSignatureAttrs(quantized))
        func.setArgAttr(i, attr.getName(), attr.getValue());
    for (auto [i, p, arg] :
         llvm::enumerate(placeholders, entryBlock->getArguments())) {
      Value v = arg;
      if (isUint8Tensor(p.getResult().getType())) {
        // uint8 bytes in, computed as i32; the signature keeps the dtype.
        OpBuilder b = OpBuilder::atBlockEnd(entryBlock);
        v = castUint8(b, p.getLoc(), arg, 32);
        func.setArgAttr(i, "fx.dtype", builder.getStringAttr("uint8"));
      }
      p.getResult().replaceAllUsesWith(v);
    }

    llvm::StringMap<Value> stateValues;
    SmallVector<std::string> stateArgs;
    OutputOp output;
    for (Operation &op : llvm::make_early_inc_range(body)) {
      if (isa<PlaceholderOp>(op)) {
        op.erase();
        continue;
      }
      if (auto out = dyn_cast<OutputOp>(op)) {
        output = out;
        op.moveBefore(entryBlock, entryBlock->end());
        continue;
      }
      if (auto getAttr = dyn_cast<GetAttrOp>(op)) {
        StringRef name = getAttr.getTarget();
        StateOp state = lookupState(module, name);
        if (!state) {
          reportNode(&op, "only module state can be read by get_attr");
          return failure();
        }
        Value &v = stateValues[state.getSymName()];
        if (!v && storageTensorType(state.getType())) {
          // Quantized state (a quantized module's weight): its storage
          // integers, the bytes the blob holds.
          auto type =
              cast<RankedTensorType>(storageTensorType(state.getType()));
          if (weightsAsArguments) {
            v = entryBlock->addArgument(type, op.getLoc());
            stateArgs.push_back(state.getSymName().str());
          } else {
            auto blob = dyn_cast_or_null<DenseResourceElementsAttr>(
                state.getValueAttr());
            if (!blob) {
              reportNode(&op, "quantized state must be a dense_resource blob");
              return failure();
            }
            OpBuilder b = OpBuilder::atBlockBegin(entryBlock);
            v = arith::ConstantOp::create(
                b, op.getLoc(),
                DenseResourceElementsAttr::get(type, blob.getRawHandle()));
          }
        }
        if (!v) {
          bool uint8 = isUint8Tensor(state.getType());
          if (weightsAsArguments) {
            Type type = state.getType();
            if (uint8)
              type =
                  cast<RankedTensorType>(type).clone(IntegerType::get(ctx, 8));
            v = entryBlock->addArgument(type, op.getLoc());
            stateArgs.push_back(state.getSymName().str());
          } else {
            if (!state.getValue()) {
              reportNode(&op, "the state has no value; compile with "
                              "weights-as-arguments");
              return failure();
            }
            TypedAttr value = constantValue(state);
            if (uint8) {
              // The same bytes, as the signless i8 arith.constant takes.
              auto type = cast<RankedTensorType>(value.getType())
                              .clone(IntegerType::get(ctx, 8));
              if (auto blob = dyn_cast<DenseResourceElementsAttr>(value))
                value =
                    DenseResourceElementsAttr::get(type, blob.getRawHandle());
              else
                value = cast<DenseElementsAttr>(value).bitcast(
                    type.getElementType());
            }
            OpBuilder b = OpBuilder::atBlockBegin(entryBlock);
            if (auto complex = dyn_cast<ComplexType>(
                    cast<ShapedType>(value.getType()).getElementType())) {
              // LLVM has no constants of complex elements: the same bytes
              // as float pairs, made complex where the function starts.
              TypedAttr parts = complexAsParts(value, complex);
              if (!parts) {
                reportNode(&op, "cannot read this complex state");
                return failure();
              }
              v = lowering::complexFromParts(
                  b, op.getLoc(),
                  arith::ConstantOp::create(b, op.getLoc(), parts), complex);
            } else {
              v = arith::ConstantOp::create(b, op.getLoc(), value);
            }
          }
          if (uint8) {
            OpBuilder b(ctx);
            b.setInsertionPointAfterValue(v);
            v = castUint8(b, op.getLoc(), v, 32);
          }
        }
        getAttr.getResult().replaceAllUsesWith(v);
        op.erase();
        continue;
      }
      op.moveBefore(entryBlock, entryBlock->end());
    }
    if (!output)
      return module.emitError("the forward graph has no output");

    // The nodes, by dialect conversion: each node once its operands are
    // lowered (the driver walks the graph in order); a node that cannot be
    // lowered stays as it was, with its reason in `failures`.
    LoweringFailures failures;
    RewritePatternSet patterns(ctx);
    populateFXToLinalgConversionPatterns(patterns, &failures);
    ConversionTarget target(*ctx);
    target.markUnknownOpDynamicallyLegal(
        [](Operation *op) -> std::optional<bool> {
          if (isa<NodeOpInterface>(op))
            return std::nullopt; // converted by a pattern, or left failing
          return true;
        });
    target.addDynamicallyLegalOp<OutputOp>(
        [](OutputOp op) -> std::optional<bool> {
          for (Value v : op->getOperands())
            if (v.getDefiningOp<NodeOpInterface>())
              return std::nullopt;
          return true;
        });
    if (exactStaticDims)
      func->setAttr(lowering::kExactStaticDimsAttr, builder.getUnitAttr());
    if (failed(applyPartialConversion(func, target, std::move(patterns))))
      return failure();
    func->removeAttr(lowering::kExactStaticDimsAttr);
    func.walk([&](Operation *op) {
      if (!isa<NodeOpInterface>(op) || isa<OutputOp>(op))
        return;
      auto reason = failures.find(op);
      reportNode(op, reason != failures.end()
                         ? StringRef(reason->second)
                         : StringRef("its inputs could not be lowered"));
      ok = false;
    });
    if (!ok)
      return failure();
    // The flags of run-time checks (Lowering::check) follow the outputs
    // among its operands, which keeps them alive until they are returned.
    if (failed(lowering::hoistChecks(func)))
      return failure();
    SmallVector<Value> checkFlags;
    func.walk([&](Operation *op) {
      if (op->hasAttr("fx.check"))
        checkFlags.push_back(op->getResult(0));
    });
    // Which outputs are uint8, read before folding (a node that converts
    // a uint8 tensor to int32 without changing its i32 values is a
    // tensor.cast of it until then, Lowering::replace).
    llvm::SmallDenseSet<unsigned> uint8Outputs;
    for (auto [i, v] : llvm::enumerate(output->getOperands()))
      if (Operation *def = v.getDefiningOp();
          def && def->hasAttr(lowering::kUint8Attr))
        uint8Outputs.insert(i);
    output->insertOperands(output->getNumOperands(), checkFlags);
    // Fold what the lowerings built (constant shapes, casts of constants)
    // and drop what nothing uses, as a greedy rewrite does.
    GreedyRewriteConfig config;
    config.setUseTopDownTraversal(true);
    config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    (void)applyPatternsGreedily(func, RewritePatternSet(ctx), config);

    // fx.output -> func.return. The flags of run-time checks
    // (Lowering::check) follow the outputs among its operands.
    SmallVector<Value> results, flags;
    SmallVector<Attribute> checks;
    for (Value r : output->getOperands()) {
      Operation *def = r.getDefiningOp();
      auto check = def ? def->getAttrOfType<DictionaryAttr>("fx.check")
                       : DictionaryAttr();
      if (check) {
        def->removeAttr("fx.check");
        checks.push_back(check);
        flags.push_back(r);
        continue;
      }
      results.push_back(r);
    }
    // A number the graph returns (x.size(1) of a dynamic dim, int(t)) is
    // returned as a 0-d tensor marked fx.number: the runtime gives it back
    // as a Python number.
    SmallVector<unsigned> numberResults;
    for (auto [i, r] : llvm::enumerate(results)) {
      if (isa<RankedTensorType>(r.getType()))
        continue;
      if (!r.getType().isIntOrIndexOrFloat()) {
        output.emitError() << "cannot compile the output: only tensors and "
                              "numbers can be returned, got "
                           << r.getType();
        return failure();
      }
      builder.setInsertionPoint(output);
      Value number = r;
      if (number.getType().isIndex())
        number = arith::IndexCastOp::create(builder, output.getLoc(),
                                            builder.getI64Type(), number);
      r = tensor::FromElementsOp::create(
          builder, output.getLoc(), RankedTensorType::get({}, number.getType()),
          number);
      numberResults.push_back(i);
    }
    // uint8 results go back to bytes; the signature keeps the dtype.
    SmallVector<unsigned> uint8Results;
    for (unsigned i = 0; i < results.size(); ++i) {
      if (!uint8Outputs.contains(i))
        continue;
      builder.setInsertionPoint(output);
      results[i] = castUint8(builder, output.getLoc(), results[i], 8);
      uint8Results.push_back(i);
    }
    func.walk([](Operation *op) { op->removeAttr(lowering::kUint8Attr); });
    results.append(flags);
    builder.setInsertionPoint(output);
    func::ReturnOp::create(builder, output.getLoc(), results);
    func->setAttr("fx.output", output.getArgs());
    if (!checks.empty())
      func->setAttr("fx.checks", builder.getArrayAttr(checks));
    output.erase();
    func.setFunctionType(builder.getFunctionType(
        entryBlock->getArgumentTypes(), ValueRange(results).getTypes()));
    for (unsigned i : uint8Results)
      func.setResultAttr(i, "fx.dtype", builder.getStringAttr("uint8"));
    for (auto [i, type] : llvm::enumerate(quantizedOutputs)) {
      if (!type)
        continue;
      for (NamedAttribute attr : quantizedSignatureAttrs(type))
        func.setResultAttr(i, attr.getName(), attr.getValue());
    }
    for (unsigned i : numberResults)
      func.setResultAttr(i, "fx.number", builder.getUnitAttr());
    for (auto [i, name] : llvm::enumerate(stateArgs))
      func.setArgAttr(placeholders.size() + i, "fx.state",
                      builder.getStringAttr(name));

    func->setAttr("llvm.emit_c_interface", builder.getUnitAttr());
    module.erase();
    return success();
  }
};

} // namespace
