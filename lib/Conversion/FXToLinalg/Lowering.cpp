//===- Lowering.cpp - Shared helpers and the fx-to-linalg pattern ---------===//

#include "Lowering.h"
#include "fx-mlir/Dialect/FX/IR/FXLocation.h"

#include "mlir/Dialect/Complex/IR/Complex.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace mlir::fx;
using namespace mlir::fx::lowering;

bool mlir::fx::lowering::isFloat(Type t) { return isa<FloatType>(t); }

//===----------------------------------------------------------------------===//
// Argument access
//===----------------------------------------------------------------------===//

Attribute Lowering::arg(unsigned i) {
  return i < callArgs.size() ? callArgs[i] : Attribute();
}

Attribute Lowering::kwarg(StringRef name) {
  return callKwargs ? callKwargs.lookup(name) : Attribute();
}

Value Lowering::value(Attribute a) {
  if (auto ref = dyn_cast_or_null<NodeAttr>(a))
    if (ref.getIndex() < operands.size())
      return operands[ref.getIndex()];
  return {};
}

Value Lowering::tensor(Attribute a) {
  Value v = value(a);
  if (v && isa<RankedTensorType>(v.getType()))
    return v;
  if (error.empty())
    error = "expected a tensor argument of known rank";
  return {};
}

std::optional<int64_t> Lowering::constInt(Attribute a) {
  if (auto b = dyn_cast_or_null<BoolAttr>(a))
    return b.getValue();
  if (auto i = dyn_cast_or_null<IntegerAttr>(a))
    return i.getInt();
  if (Value v = value(a)) {
    APInt c;
    if (matchPattern(v, m_ConstantInt(&c)))
      return c.getSExtValue();
  }
  return std::nullopt;
}

OpFoldResult Lowering::index(Attribute a) {
  if (auto c = constInt(a))
    return b.getIndexAttr(*c);
  Value v = value(a);
  if (!v || !isa<IntegerType>(v.getType()))
    return {};
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), v).getResult();
}

std::optional<SmallVector<OpFoldResult>> Lowering::indexList(Attribute a) {
  SmallVector<OpFoldResult> result;
  ArrayRef<Attribute> elements;
  if (auto list = dyn_cast_or_null<ListAttr>(a))
    elements = list.getElements();
  else if (auto tuple = dyn_cast_or_null<TupleAttr>(a))
    elements = tuple.getElements();
  else if (auto size = dyn_cast_or_null<SizeAttr>(a)) {
    for (int64_t d : size.getDims())
      result.push_back(b.getIndexAttr(d));
    return result;
  } else
    return std::nullopt;
  for (Attribute e : elements) {
    OpFoldResult r = index(e);
    if (!r)
      return std::nullopt;
    result.push_back(r);
  }
  return result;
}

std::optional<SmallVector<int64_t>> Lowering::intList(Attribute a) {
  auto folded = indexList(a);
  if (!folded)
    return std::nullopt;
  SmallVector<int64_t> result;
  for (OpFoldResult r : *folded) {
    std::optional<int64_t> c = getConstantIntValue(r);
    if (!c)
      return std::nullopt;
    result.push_back(*c);
  }
  return result;
}

std::optional<double> Lowering::constFloat(Attribute a) {
  if (auto f = dyn_cast_or_null<FloatAttr>(a))
    return f.getValueAsDouble();
  if (auto i = constInt(a))
    return double(*i);
  return std::nullopt;
}

std::optional<bool> Lowering::constBool(Attribute a) {
  if (auto v = constInt(a))
    return *v != 0;
  return std::nullopt;
}

Value Lowering::scalar(Attribute a, Type type) {
  if (auto c = dyn_cast_or_null<ComplexAttr>(a)) {
    auto complex = dyn_cast<ComplexType>(type);
    if (!complex)
      return {};
    Type part = complex.getElementType();
    return complex::ConstantOp::create(
        b, loc, complex,
        b.getArrayAttr({b.getFloatAttr(part, c.getReal().convertToDouble()),
                        b.getFloatAttr(part, c.getImag().convertToDouble())}));
  }
  if (auto f = dyn_cast_or_null<FloatAttr>(a))
    return isFloat(type)
               ? constant(type, f.getValueAsDouble())
               : convert(constant(b.getF64Type(), f.getValueAsDouble()), type);
  if (isa_and_nonnull<IntegerAttr>(a))
    return constant(type, double(*constInt(a)));
  if (Value v = value(a)) {
    if (isa<IntegerType, FloatType>(v.getType()))
      return convert(v, type);
    if (auto t = dyn_cast<RankedTensorType>(v.getType()); t && t.getRank() == 0)
      return convert(tensor::ExtractOp::create(b, loc, v, ValueRange{}), type);
  }
  return {};
}

Type Lowering::resultElementType(unsigned i) {
  Type type = callType;
  if (auto tuple = dyn_cast<TupleType>(type))
    type = i < tuple.size() ? tuple.getType(i) : Type();
  if (auto tensor = dyn_cast_or_null<TensorType>(type))
    return tensor.getElementType();
  return {};
}

LogicalResult Lowering::fail(const Twine &message) {
  if (error.empty())
    error = message.str();
  return failure();
}

Value mlir::fx::lowering::mapElements(
    OpBuilder &b, Location loc, Value v, Type elementType,
    function_ref<Value(OpBuilder &, Location, Value)> fn) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0; d < type.getRank(); ++d)
    sizes.push_back(type.isDynamicDim(d)
                        ? OpFoldResult(tensor::DimOp::create(b, loc, v, d))
                        : OpFoldResult(b.getIndexAttr(type.getDimSize(d))));
  Value init = tensor::EmptyOp::create(b, loc, sizes, elementType);
  AffineMap id = b.getMultiDimIdentityMap(type.getRank());
  auto map = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, ValueRange{v}, ValueRange{init},
      ArrayRef<AffineMap>{id, id},
      SmallVector<utils::IteratorType>(type.getRank(),
                                       utils::IteratorType::parallel),
      "", "", [&](OpBuilder &nb, Location loc, ValueRange args) {
        linalg::YieldOp::create(nb, loc, fn(nb, loc, args[0]));
      });
  return map.getResult(0);
}

Value mlir::fx::lowering::wrapUint8(OpBuilder &b, Location loc, Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || !type.getElementType().isSignlessInteger(32))
    return v;
  Value wrapped =
      mapElements(b, loc, v, type.getElementType(),
                  [](OpBuilder &nb, Location loc, Value x) -> Value {
                    Value mask = arith::ConstantIntOp::create(nb, loc, 255, 32);
                    return arith::AndIOp::create(nb, loc, x, mask);
                  });
  wrapped.getDefiningOp()->setAttr(kUint8Attr, b.getUnitAttr());
  return wrapped;
}

Value mlir::fx::lowering::labelUint8(OpBuilder &b, Location loc, Value v,
                                     bool uint8) {
  if (uint8)
    return wrapUint8(b, loc, v);
  // Not uint8, but the value a uint8 node made (an int32 conversion that
  // leaves the i32 values as they are): a value of its own, so that the
  // output it may become is not taken for uint8.
  Operation *def = v.getDefiningOp();
  if (def && def->hasAttr(kUint8Attr) && isa<RankedTensorType>(v.getType()))
    return tensor::CastOp::create(b, loc, v.getType(), v);
  return v;
}

LogicalResult Lowering::replace(Value v) {
  if (!v)
    return fail("lowering produced no value");
  if (captured) {
    *captured = v;
    return success();
  }
  v = labelUint8(b, loc, v, op->hasAttr(kUint8Attr));
  // A dim a node typed with dynamic dims (imported for a dynamic batch)
  // knows and the lowering computed (a view's -1, `view(b, -1, h, w)`
  // with `b` read from another tensor): the node's type, as shape
  // propagation found it. (Under the pass's dynamic-batch option the
  // nodes keep the example's static types, which the values' dynamic
  // batch must not be cast to.)
  //
  // A static dim of the node's type the lowering computed as dynamic is
  // the example's size where the import found the dim not to follow the
  // batch; a batch it did not try may give another (`x[:2]` at a batch
  // of 1, `x[::3]` compiled at a batch of 1): the size is checked while
  // the code runs and the value cast to the node's type.
  auto declared = op->getNumResults() == 1
                      ? dyn_cast<RankedTensorType>(op->getResult(0).getType())
                      : RankedTensorType();
  auto computed = dyn_cast<RankedTensorType>(v.getType());
  // A node whose declared shape is not what it computes (a malformed
  // graph: the result typed by hand): an error, not a value of another
  // shape than its users were typed for.
  if (declared && computed && isa<func::FuncOp>(op->getParentOp()) &&
      declared.hasStaticShape() && computed.hasStaticShape() &&
      declared.getShape() != computed.getShape()) {
    std::string shown;
    llvm::raw_string_ostream os(shown);
    os << "its declared type " << declared << " is not the shape it computes, "
       << computed.getShape().size() << "-d ";
    llvm::interleave(computed.getShape(), os, "x");
    return fail(os.str());
  }
  if (declared && computed && computed != declared &&
      tensor::CastOp::areCastCompatible(computed, declared)) {
    // Only nodes of the graph itself: a loop body's are typed by one
    // iteration (a tensor the loop grows).
    auto func = dyn_cast<func::FuncOp>(op->getParentOp());
    bool exact = func && func->hasAttr(kExactStaticDimsAttr);
    bool cast = !declared.hasStaticShape();
    for (int64_t d = 0; exact && d < declared.getRank(); ++d) {
      if (declared.isDynamicDim(d) || !computed.isDynamicDim(d))
        continue;
      Value size = tensor::DimOp::create(b, loc, v, d);
      Value other = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::ne, size,
          arith::ConstantIndexOp::create(b, loc, declared.getDimSize(d)));
      check(tensor::FromElementsOp::create(
                b, loc, RankedTensorType::get({}, b.getI1Type()), other),
            "dim " + Twine(d) + " has another size than " +
                Twine(declared.getDimSize(d)) +
                ", the size the graph was compiled for: it changes with the "
                "batch in a way the dynamic-batch import did not see");
      cast = true;
    }
    if (cast)
      v = tensor::CastOp::create(b, loc, declared, v);
  }
  b.replaceOp(op, v);
  return success();
}

Value Lowering::lowerCall(StringRef target, ArrayRef<Attribute> args,
                          ArrayRef<Value> operands, Type type,
                          DictAttr kwargs) {
  SmallVector<Value> parts =
      lowerCallParts(target, args, operands, type, kwargs);
  if (parts.size() != 1) {
    if (!parts.empty())
      (void)fail("'" + target + "' gives a tuple");
    return {};
  }
  return parts[0];
}

SmallVector<Value> Lowering::lowerCallParts(StringRef target,
                                            ArrayRef<Attribute> args,
                                            ArrayRef<Value> operands, Type type,
                                            DictAttr kwargs) {
  LowerFn fn = lookupLowering(target);
  if (!fn) {
    (void)fail("no lowering of '" + target + "'");
    return {};
  }
  Lowering inner(op, target, b.getArrayAttr(args),
                 kwargs ? kwargs : DictAttr::get(b.getContext(), {}, {}),
                 operands, type, b);
  Value result;
  SmallVector<Value> parts;
  inner.captured = &result;
  inner.capturedParts = &parts;
  LogicalResult lowered = fn(inner);
  if (succeeded(lowered) && result)
    parts = {result};
  if (failed(lowered)) {
    (void)fail(inner.error.empty() ? "'" + target + "' failed" : inner.error);
    return {};
  }
  return parts;
}

/// The elements `slice` selects from a sequence of `n`, as Python computes
/// them; nullopt unless its bounds are literals (or None).
static std::optional<SmallVector<int64_t>> sliceIndices(SliceAttr slice,
                                                        int64_t n) {
  auto bound = [](Attribute a) -> std::optional<std::optional<int64_t>> {
    if (isa<NoneAttr>(a))
      return std::optional<int64_t>();
    if (auto i = dyn_cast<IntegerAttr>(a))
      return std::optional<int64_t>(i.getInt());
    return std::nullopt;
  };
  auto start = bound(slice.getStart()), stop = bound(slice.getStop()),
       step = bound(slice.getStep());
  if (!start || !stop || !step)
    return std::nullopt;
  int64_t s = step->value_or(1);
  if (s == 0)
    return std::nullopt;
  auto clamp = [&](std::optional<int64_t> v, int64_t whenNone) {
    if (!v)
      return whenNone;
    int64_t i = *v < 0 ? *v + n : *v;
    return s > 0 ? std::clamp<int64_t>(i, 0, n)
                 : std::clamp<int64_t>(i, -1, n - 1);
  };
  int64_t first = clamp(*start, s > 0 ? 0 : n - 1);
  int64_t last = clamp(*stop, s > 0 ? n : -1);
  SmallVector<int64_t> indices;
  for (int64_t i = first; s > 0 ? i < last : i > last; i += s)
    indices.push_back(i);
  return indices;
}

/// Marks the cast that stands for a tuple or list by its parts (a node
/// replaced by replaceByParts while other nodes still read it whole).
static constexpr StringLiteral kPartsAttr = "fx.parts";

/// The parts `v` stands for, if it is such a cast.
static std::optional<ValueRange> partsOf(Value v) {
  auto cast = v.getDefiningOp<UnrealizedConversionCastOp>();
  if (!cast || !cast->hasAttr(kPartsAttr))
    return std::nullopt;
  return ValueRange(cast.getInputs());
}

ExpandedCall mlir::fx::lowering::expandParts(MLIRContext *ctx,
                                             ValueRange operands,
                                             Attribute args, Attribute kwargs) {
  ExpandedCall call{args, kwargs, {}};
  if (llvm::none_of(operands, [](Value v) { return partsOf(v).has_value(); })) {
    call.operands.assign(operands.begin(), operands.end());
    return call;
  }
  std::function<Attribute(Value)> refTo = [&](Value v) -> Attribute {
    if (std::optional<ValueRange> parts = partsOf(v)) {
      SmallVector<Attribute> refs;
      for (Value part : *parts)
        refs.push_back(refTo(part));
      return TupleAttr::get(ctx, refs);
    }
    call.operands.push_back(v);
    return NodeAttr::get(ctx, call.operands.size() - 1);
  };
  auto remap = [&](Attribute attr) -> Attribute {
    if (!attr)
      return attr;
    return replaceNodeRefs(attr, [&](NodeAttr ref) -> Attribute {
      return ref.getIndex() < operands.size() ? refTo(operands[ref.getIndex()])
                                              : Attribute(ref);
    });
  };
  call.args = remap(args);
  call.kwargs = remap(kwargs);
  return call;
}

/// Replaces `op`, whose result is a tuple or list, by its parts `values`:
/// `getitem(op, i)` becomes `values[i]`, `getitem(op, slice)` the parts it
/// selects (recursively), and any other user sees a tuple of the parts.
static LogicalResult replaceByParts(PatternRewriter &b, Operation *op,
                                    ArrayRef<Value> values,
                                    std::string &error) {
  MLIRContext *ctx = op->getContext();
  Value whole = op->getResult(0);
  auto getitemIndex = [&](Operation *user) -> Attribute {
    auto getitem = dyn_cast<CallFunctionOp>(user);
    if (!getitem || getitem.getTarget() != "operator.getitem" ||
        getitem.getArgs().size() != 2 || getitem.getOperand(0) != whole ||
        !isa<IntegerAttr, SliceAttr>(getitem.getArgs()[1]))
      return {};
    return getitem.getArgs()[1];
  };
  auto n = int64_t(values.size());
  bool hasOtherUsers = false;
  for (Operation *user : op->getUsers()) {
    Attribute index = getitemIndex(user);
    if (auto i = dyn_cast_or_null<IntegerAttr>(index);
        i && (i.getInt() < -n || i.getInt() >= n)) {
      error = "getitem index out of range";
      return failure();
    }
    if (auto slice = dyn_cast_or_null<SliceAttr>(index);
        slice && !sliceIndices(slice, n)) {
      error = "getitem with a slice of computed bounds";
      return failure();
    }
  }
  for (Operation *user : llvm::make_early_inc_range(op->getUsers())) {
    Attribute index = getitemIndex(user);
    if (auto i = dyn_cast_or_null<IntegerAttr>(index)) {
      b.replaceOp(user, values[i.getInt() < 0 ? i.getInt() + n : i.getInt()]);
      continue;
    }
    if (auto slice = dyn_cast_or_null<SliceAttr>(index)) {
      // The indices kept in a variable: a range-for over `*sliceIndices()`
      // would read the optional after it was destroyed (found by the
      // sanitizer build).
      std::optional<SmallVector<int64_t>> indices = sliceIndices(slice, n);
      SmallVector<Value> parts;
      for (int64_t i : *indices)
        parts.push_back(values[i]);
      if (failed(replaceByParts(b, user, parts, error)))
        return failure();
      continue;
    }
    // Any other node (fx.output, torch.cat of the pieces) sees a tuple of
    // the parts where it referred to the whole, when it is lowered
    // (expandParts): changing it here would have the conversion lower it
    // now, before its other operands are.
    if (!isa<NodeOpInterface>(user)) {
      error = "its tuple result has a user that is not an fx node";
      return failure();
    }
    hasOtherUsers = true;
  }
  if (hasOtherUsers) {
    auto parts = UnrealizedConversionCastOp::create(
        b, op->getLoc(), TypeRange{whole.getType()}, values);
    parts->setAttr(kPartsAttr, UnitAttr::get(ctx));
    b.replaceOp(op, parts.getResult(0));
    return success();
  }
  b.eraseOp(op);
  return success();
}

LogicalResult Lowering::replaceTuple(ArrayRef<Value> values) {
  if (capturedParts) {
    capturedParts->assign(values.begin(), values.end());
    return success();
  }
  SmallVector<Value> parts(values);
  for (Value &part : parts)
    part = labelUint8(b, loc, part, op->hasAttr(kUint8Attr));
  std::string why;
  if (failed(replaceByParts(b, op, parts, why)))
    return fail(why);
  return success();
}

//===----------------------------------------------------------------------===//
// Building blocks
//===----------------------------------------------------------------------===//

OpFoldResult Lowering::dim(Value t, int64_t d) {
  auto type = cast<RankedTensorType>(t.getType());
  if (!type.isDynamicDim(d))
    return b.getIndexAttr(type.getDimSize(d));
  return tensor::DimOp::create(b, loc, t, d).getResult();
}

SmallVector<OpFoldResult> Lowering::dims(Value t) {
  SmallVector<OpFoldResult> result;
  for (int64_t d = 0, e = cast<RankedTensorType>(t.getType()).getRank(); d < e;
       ++d)
    result.push_back(dim(t, d));
  return result;
}

Value Lowering::empty(ArrayRef<OpFoldResult> sizes, Type elementType) {
  return tensor::EmptyOp::create(b, loc, sizes, elementType);
}

Value Lowering::filled(ArrayRef<OpFoldResult> sizes, Value v) {
  Value init = empty(sizes, v.getType());
  return linalg::FillOp::create(b, loc, ValueRange{v}, ValueRange{init})
      .getResult(0);
}

Value Lowering::identityMatrix(OpFoldResult rows, OpFoldResult cols,
                               Type elementType) {
  Value init = empty({rows, cols}, elementType);
  Value one = constant(elementType, 1.0), zero = constant(elementType, 0.0);
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()}, ValueRange{}, ValueRange{init},
             {b.getMultiDimIdentityMap(2)},
             {utils::IteratorType::parallel, utils::IteratorType::parallel}, "",
             "",
             [&](OpBuilder &nb, Location nloc, ValueRange) {
               Value same =
                   arith::CmpIOp::create(nb, nloc, arith::CmpIPredicate::eq,
                                         linalg::IndexOp::create(nb, nloc, 0),
                                         linalg::IndexOp::create(nb, nloc, 1));
               linalg::YieldOp::create(
                   nb, nloc,
                   arith::SelectOp::create(nb, nloc, same, one, zero)
                       .getResult());
             })
      .getResult(0);
}

Value Lowering::generated(
    OpFoldResult n, Type elementType,
    function_ref<Value(OpBuilder &, Location, Value)> element) {
  Value init = empty({n}, elementType);
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()}, ValueRange{}, ValueRange{init},
             {b.getMultiDimIdentityMap(1)}, {utils::IteratorType::parallel}, "",
             "",
             [&](OpBuilder &nb, Location nloc, ValueRange) {
               Value i = arith::IndexCastOp::create(
                   nb, nloc, nb.getI64Type(),
                   linalg::IndexOp::create(nb, nloc, 0));
               linalg::YieldOp::create(nb, nloc, element(nb, nloc, i));
             })
      .getResult(0);
}

arith::CmpIPredicate
mlir::fx::lowering::intPredicate(arith::CmpIPredicate signedPredicate,
                                 Type type) {
  if (!getElementTypeOrSelf(type).isInteger(1))
    return signedPredicate;
  switch (signedPredicate) {
  case arith::CmpIPredicate::slt:
    return arith::CmpIPredicate::ult;
  case arith::CmpIPredicate::sle:
    return arith::CmpIPredicate::ule;
  case arith::CmpIPredicate::sgt:
    return arith::CmpIPredicate::ugt;
  case arith::CmpIPredicate::sge:
    return arith::CmpIPredicate::uge;
  default:
    return signedPredicate;
  }
}

Value mlir::fx::lowering::add(OpBuilder &b, Location loc, Value x, Value y) {
  if (getElementTypeOrSelf(x.getType()).isInteger(1))
    return arith::OrIOp::create(b, loc, x, y);
  if (isFloat(getElementTypeOrSelf(x.getType())))
    return arith::AddFOp::create(b, loc, x, y);
  return arith::AddIOp::create(b, loc, x, y);
}

Value mlir::fx::lowering::maxInt(OpBuilder &b, Location loc, Value x, Value y) {
  if (getElementTypeOrSelf(x.getType()).isInteger(1))
    return arith::MaxUIOp::create(b, loc, x, y);
  return arith::MaxSIOp::create(b, loc, x, y);
}

Value mlir::fx::lowering::minInt(OpBuilder &b, Location loc, Value x, Value y) {
  if (getElementTypeOrSelf(x.getType()).isInteger(1))
    return arith::MinUIOp::create(b, loc, x, y);
  return arith::MinSIOp::create(b, loc, x, y);
}

Value mlir::fx::lowering::constantOf(OpBuilder &b, Location loc, Type type,
                                     double v) {
  if (auto f = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(f, v));
  if (type.isIndex())
    return arith::ConstantIndexOp::create(b, loc, int64_t(v));
  if (type.isInteger(1))
    return arith::ConstantOp::create(b, loc, b.getBoolAttr(v != 0));
  if (auto complex = dyn_cast<ComplexType>(type)) {
    Type part = complex.getElementType();
    return complex::ConstantOp::create(
        b, loc, complex,
        b.getArrayAttr({b.getFloatAttr(part, v), b.getFloatAttr(part, 0)}));
  }
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, int64_t(v)));
}

Value Lowering::constant(Type type, double v) {
  return constantOf(b, loc, type, v);
}

Value Lowering::indexConst(int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

Value Lowering::toIndex(OpFoldResult v) {
  if (auto attr = dyn_cast<Attribute>(v))
    return indexConst(cast<IntegerAttr>(attr).getInt());
  return cast<Value>(v);
}

/// Converts a scalar as torch's `to(dtype)` does: floats truncate toward
/// zero into ints, anything nonzero is true.
/// Complex numbers: a real value becomes the real part (imaginary part 0),
/// a complex one keeps its real part when made real (as `.real`; PyTorch
/// warns that it discards the imaginary part) and is true when either part
/// is nonzero.
static Value castScalar(OpBuilder &b, Location loc, Value v, Type to) {
  Type from = v.getType();
  if (from == to)
    return v;
  auto fromComplex = dyn_cast<ComplexType>(from);
  if (auto toComplex = dyn_cast<ComplexType>(to)) {
    Type part = toComplex.getElementType();
    Value re = v, im;
    if (fromComplex) {
      re = complex::ReOp::create(b, loc, v);
      im = castScalar(b, loc, complex::ImOp::create(b, loc, v), part);
    } else {
      im = arith::ConstantOp::create(b, loc, b.getFloatAttr(part, 0));
    }
    return complex::CreateOp::create(b, loc, to, castScalar(b, loc, re, part),
                                     im);
  }
  if (fromComplex) {
    Value re = complex::ReOp::create(b, loc, v);
    if (!to.isInteger(1))
      return castScalar(b, loc, re, to);
    Value im = complex::ImOp::create(b, loc, v);
    return arith::OrIOp::create(b, loc, castScalar(b, loc, re, to),
                                castScalar(b, loc, im, to));
  }
  if (to.isIndex() || from.isIndex())
    return arith::IndexCastOp::create(b, loc, to, v);
  if (to.isInteger(1)) {
    if (isa<FloatType>(from)) {
      Value zero = arith::ConstantOp::create(b, loc, b.getFloatAttr(from, 0));
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, v, zero);
    }
    Value zero = arith::ConstantOp::create(b, loc, b.getIntegerAttr(from, 0));
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v, zero);
  }
  auto fromFloat = dyn_cast<FloatType>(from);
  auto toFloat = dyn_cast<FloatType>(to);
  // f16 <-> bf16: through f32 (exact from either), as PyTorch converts.
  if (fromFloat && toFloat && fromFloat != toFloat &&
      fromFloat.getWidth() == toFloat.getWidth())
    return arith::TruncFOp::create(
        b, loc, to, arith::ExtFOp::create(b, loc, b.getF32Type(), v));
  if (fromFloat && toFloat)
    return fromFloat.getWidth() < toFloat.getWidth()
               ? arith::ExtFOp::create(b, loc, to, v).getResult()
               : arith::TruncFOp::create(b, loc, to, v).getResult();
  if (toFloat)
    return from.isInteger(1) || from.isUnsignedInteger()
               ? arith::UIToFPOp::create(b, loc, to, v).getResult()
               : arith::SIToFPOp::create(b, loc, to, v).getResult();
  if (fromFloat)
    return arith::FPToSIOp::create(b, loc, to, v);
  unsigned fw = from.getIntOrFloatBitWidth(), tw = to.getIntOrFloatBitWidth();
  if (fw < tw)
    return from.isInteger(1) || from.isUnsignedInteger()
               ? arith::ExtUIOp::create(b, loc, to, v).getResult()
               : arith::ExtSIOp::create(b, loc, to, v).getResult();
  return arith::TruncIOp::create(b, loc, to, v);
}

Value Lowering::convert(Value v, Type to) { return castScalar(b, loc, v, to); }

Value Lowering::castTensor(Value t, Type elementType) {
  auto type = cast<RankedTensorType>(t.getType());
  if (type.getElementType() == elementType)
    return t;
  return elementwise({t}, elementType, elementType,
                     [](OpBuilder &, Location, ValueRange a) { return a[0]; });
}

std::optional<int64_t> Lowering::normDim(Attribute a, int64_t rank) {
  std::optional<int64_t> d = constInt(a);
  if (!d)
    return std::nullopt;
  int64_t n = *d < 0 ? *d + std::max<int64_t>(rank, 1) : *d;
  if (n < 0 || n >= std::max<int64_t>(rank, 1))
    return std::nullopt;
  return n;
}

Value Lowering::elementwise(
    ArrayRef<Value> inputs, Type computeType, Type resultType,
    function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  // The broadcast result shape, right aligned.
  int64_t rank = 0;
  for (Value v : inputs)
    if (auto t = dyn_cast<RankedTensorType>(v.getType()))
      rank = std::max(rank, t.getRank());
  SmallVector<OpFoldResult> sizes(rank);
  for (int64_t i = 0; i < rank; ++i) {
    OpFoldResult chosen;
    for (Value v : inputs) {
      auto t = dyn_cast<RankedTensorType>(v.getType());
      if (!t)
        continue;
      int64_t j = i - (rank - t.getRank());
      if (j < 0)
        continue;
      if (!t.isDynamicDim(j) && t.getDimSize(j) != 1) {
        chosen = b.getIndexAttr(t.getDimSize(j));
        break;
      }
      if (t.isDynamicDim(j) && !chosen)
        chosen = dim(v, j);
    }
    sizes[i] = chosen ? chosen : b.getIndexAttr(1);
  }
  SmallVector<Value> tensorInputs;
  SmallVector<AffineMap> maps;
  SmallVector<int> scalarSlot(inputs.size(), -1);
  for (auto [k, v] : llvm::enumerate(inputs)) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t)
      continue;
    SmallVector<AffineExpr> exprs;
    for (int64_t j = 0; j < t.getRank(); ++j) {
      int64_t i = j + (rank - t.getRank());
      bool broadcast =
          !t.isDynamicDim(j) && t.getDimSize(j) == 1 &&
          getConstantIntValue(sizes[i]) != std::optional<int64_t>(1);
      exprs.push_back(broadcast ? b.getAffineConstantExpr(0)
                                : b.getAffineDimExpr(i));
    }
    maps.push_back(AffineMap::get(rank, 0, exprs, b.getContext()));
    scalarSlot[k] = tensorInputs.size();
    tensorInputs.push_back(v);
  }
  maps.push_back(b.getMultiDimIdentityMap(rank));
  Value init = empty(sizes, resultType);
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  SmallVector<Value> scalars;
  for (Value v : inputs)
    scalars.push_back(isa<RankedTensorType>(v.getType())
                          ? Value()
                          : castScalar(b, loc, v, computeType));
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, tensorInputs, ValueRange{init}, maps,
      iterators, "", "",
      [&](OpBuilder &nb, Location nloc, ValueRange blockArgs) {
        SmallVector<Value> args;
        for (auto [k, v] : llvm::enumerate(inputs))
          args.push_back(
              scalarSlot[k] >= 0
                  ? castScalar(nb, nloc, blockArgs[scalarSlot[k]], computeType)
                  : scalars[k]);
        Value r = body(nb, nloc, args);
        linalg::YieldOp::create(nb, nloc, castScalar(nb, nloc, r, resultType));
      });
  return generic.getResult(0);
}

Value Lowering::reduce(
    Value input, ArrayRef<int64_t> dims, bool keepdim, Value init,
    function_ref<Value(OpBuilder &, Location, Value, Value)> combine) {
  auto type = cast<RankedTensorType>(input.getType());
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> sizes;
  SmallVector<AffineExpr> outExprs;
  SmallVector<utils::IteratorType> iterators;
  for (int64_t d = 0; d < rank; ++d) {
    bool reduced = llvm::is_contained(dims, d);
    iterators.push_back(reduced ? utils::IteratorType::reduction
                                : utils::IteratorType::parallel);
    if (!reduced) {
      sizes.push_back(dim(input, d));
      outExprs.push_back(b.getAffineDimExpr(d));
    }
  }
  Value out = filled(sizes, init);
  SmallVector<AffineMap> maps = {
      b.getMultiDimIdentityMap(rank),
      AffineMap::get(rank, 0, outExprs, b.getContext())};
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{out.getType()}, ValueRange{input}, ValueRange{out},
      maps, iterators, "", "",
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value element = castScalar(nb, nloc, args[0], init.getType());
        linalg::YieldOp::create(nb, nloc, combine(nb, nloc, args[1], element));
      });
  Value result = generic.getResult(0);
  return keepdim ? keepDims(result, dims, rank) : result;
}

Value Lowering::countOver(Value input, ArrayRef<int64_t> dims, Type type) {
  Value count = indexConst(1);
  for (int64_t d : dims)
    count = arith::MulIOp::create(b, loc, count, toIndex(dim(input, d)));
  Value asInt = arith::IndexCastOp::create(b, loc, b.getI64Type(), count);
  return castScalar(b, loc, asInt, type);
}

Value Lowering::keepDims(Value reduced, ArrayRef<int64_t> dims, int64_t rank) {
  auto type = cast<RankedTensorType>(reduced.getType());
  SmallVector<int64_t> shape;
  SmallVector<OpFoldResult> sizes;
  SmallVector<ReassociationIndices> groups;
  int64_t src = 0;
  for (int64_t d = 0; d < rank; ++d) {
    if (llvm::is_contained(dims, d)) {
      shape.push_back(1);
      sizes.push_back(b.getIndexAttr(1));
    } else {
      shape.push_back(type.getDimSize(src));
      sizes.push_back(dim(reduced, src));
      ++src;
    }
  }
  // Every output dim joins the group of the nearest source dim.
  if (type.getRank() == 0)
    return tensor::ExpandShapeOp::create(
        b, loc, RankedTensorType::get(shape, type.getElementType()), reduced,
        ArrayRef<ReassociationIndices>{}, sizes);
  groups.resize(type.getRank());
  src = 0;
  for (int64_t d = 0; d < rank; ++d) {
    bool isKept = !llvm::is_contained(dims, d);
    groups[std::min<int64_t>(src, type.getRank() - 1)].push_back(d);
    if (isKept)
      ++src;
  }
  return tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), reduced,
      groups, sizes);
}

void Lowering::check(Value violated, const Twine &message) {
  Type i1 = b.getI1Type();
  auto type = cast<RankedTensorType>(violated.getType());
  Value any = violated;
  if (type.getRank() > 0)
    any =
        reduce(violated, llvm::to_vector(llvm::seq<int64_t>(0, type.getRank())),
               /*keepdim=*/false, constant(i1, 0),
               [](OpBuilder &nb, Location loc, Value acc, Value x) -> Value {
                 return arith::OrIOp::create(nb, loc, acc, x);
               });
  // A copy of its own carries the check, so that nothing else's result is
  // taken for it.
  Value init = empty({}, i1);
  AffineMap scalar = AffineMap::get(0, 0, b.getContext());
  auto copy = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, ValueRange{any}, ValueRange{init},
      ArrayRef<AffineMap>{scalar, scalar}, ArrayRef<utils::IteratorType>{}, "",
      "", [](OpBuilder &nb, Location loc, ValueRange v) {
        linalg::YieldOp::create(nb, loc, v[0]);
      });
  copy->setAttr("fx.check",
                b.getDictionaryAttr(
                    {b.getNamedAttr("node", b.getStringAttr(getNodeLabel(op))),
                     b.getNamedAttr("message", b.getStringAttr(message))}));
  // convert-fx-to-linalg returns the flags of the ops marked fx.check
  // after the outputs, once every node is lowered.
}

Value Lowering::reshape(Value input, ArrayRef<OpFoldResult> sizes) {
  auto type = cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> shape;
  for (OpFoldResult s : sizes)
    shape.push_back(getConstantIntValue(s).value_or(ShapedType::kDynamic));
  auto resultType = RankedTensorType::get(shape, type.getElementType());
  if (resultType == type)
    return input;
  // A 0-d tensor (one element) expands to ones directly: collapsing it
  // gives a 0-d tensor again, which no cast makes 1-D.
  if (type.getRank() == 0 && resultType.hasStaticShape())
    return tensor::ExpandShapeOp::create(b, loc, resultType, input,
                                         ArrayRef<ReassociationIndices>{});
  // Collapse to 1-D, then expand to the target shape.
  Value flat = input;
  if (type.getRank() != 1) {
    SmallVector<ReassociationIndices> all(1);
    for (int64_t d = 0; d < type.getRank(); ++d)
      all[0].push_back(d);
    if (type.getRank() == 0)
      all.clear();
    flat = tensor::CollapseShapeOp::create(b, loc, input, all);
  }
  if (resultType.getRank() == 1 &&
      cast<RankedTensorType>(flat.getType()) == resultType)
    return flat;
  // To 0-d (one element): collapse every dim away.
  if (resultType.getRank() == 0)
    return tensor::CollapseShapeOp::create(b, loc, resultType, flat,
                                           ArrayRef<ReassociationIndices>{});
  if (resultType.getRank() == 1)
    return tensor::CastOp::create(b, loc, resultType, flat);
  // One expand group may hold one dynamic dim at most (strided metadata
  // cannot be derived otherwise): with more, reshape by a shape tensor.
  if (llvm::count_if(shape, ShapedType::isDynamic) > 1) {
    SmallVector<Value> dims;
    for (OpFoldResult s : sizes)
      dims.push_back(toIndex(s));
    Value shapeTensor = tensor::FromElementsOp::create(b, loc, dims);
    return tensor::ReshapeOp::create(b, loc, resultType, input, shapeTensor);
  }
  SmallVector<ReassociationIndices> groups(1);
  for (int64_t d = 0; d < resultType.getRank(); ++d)
    groups[0].push_back(d);
  if (resultType.getRank() == 0)
    groups.clear();
  return tensor::ExpandShapeOp::create(b, loc, resultType, flat, groups, sizes);
}

Value Lowering::transpose(Value input, ArrayRef<int64_t> perm) {
  SmallVector<OpFoldResult> sizes;
  for (int64_t p : perm)
    sizes.push_back(dim(input, p));
  Value init =
      empty(sizes, cast<RankedTensorType>(input.getType()).getElementType());
  return linalg::TransposeOp::create(b, loc, input, init, perm).getResult()[0];
}

Value Lowering::pad(Value input, ArrayRef<OpFoldResult> low,
                    ArrayRef<OpFoldResult> high, Value v) {
  return tensor::PadOp::create(b, loc, RankedTensorType(), input, low, high, v);
}

Value Lowering::unsqueeze(Value input, int64_t d) {
  auto type = cast<RankedTensorType>(input.getType());
  assert(d >= 0 && d <= type.getRank() && "unsqueeze: dim out of range");
  SmallVector<OpFoldResult> sizes = dims(input);
  sizes.insert(sizes.begin() + d, b.getIndexAttr(1));
  SmallVector<int64_t> shape(type.getShape());
  shape.insert(shape.begin() + d, 1);
  auto resultType = RankedTensorType::get(shape, type.getElementType());
  if (type.getRank() == 0)
    return tensor::ExpandShapeOp::create(
        b, loc, resultType, input, ArrayRef<ReassociationIndices>{}, sizes);
  SmallVector<ReassociationIndices> groups(type.getRank());
  for (int64_t i = 0, src = 0; i < int64_t(shape.size()); ++i) {
    groups[std::min<int64_t>(src, type.getRank() - 1)].push_back(i);
    if (i != d)
      ++src;
  }
  return tensor::ExpandShapeOp::create(b, loc, resultType, input, groups,
                                       sizes);
}

Value Lowering::squeeze(Value input, int64_t d) {
  auto type = cast<RankedTensorType>(input.getType());
  SmallVector<ReassociationIndices> groups;
  int64_t rank = type.getRank();
  if (rank == 1)
    return tensor::CollapseShapeOp::create(b, loc, input,
                                           ArrayRef<ReassociationIndices>{});
  for (int64_t i = 0; i < rank; ++i) {
    if (i == d && !groups.empty()) {
      groups.back().push_back(i);
      continue;
    }
    groups.push_back({i});
    if (i == d) // d == 0: joins the next dim's group
      groups.back().push_back(++i);
  }
  return tensor::CollapseShapeOp::create(b, loc, input, groups);
}

//===----------------------------------------------------------------------===//
// The pattern
//===----------------------------------------------------------------------===//

void mlir::fx::lowering::addLowering(llvm::StringMap<LowerFn> &table,
                                     ArrayRef<StringRef> names, LowerFn fn) {
  for (StringRef name : names)
    table[name] = fn;
}

static const llvm::StringMap<LowerFn> &getTable() {
  static const llvm::StringMap<LowerFn> table = [] {
    llvm::StringMap<LowerFn> t;
#define FX_ADD_LOWERINGS(NAME) add##NAME##Lowerings(t);
    FX_LOWERING_FAMILIES(FX_ADD_LOWERINGS)
#undef FX_ADD_LOWERINGS
    return t;
  }();
  return table;
}

LowerFn mlir::fx::lowering::lookupLowering(StringRef name) {
  return getTable().lookup(name);
}

namespace {
/// Targets whose lowerings only move elements, which complex tensors may
/// go through; every other lowering does arithmetic on f32/int elements
/// and would build invalid IR for complex ones.
bool movesElementsOnly(StringRef target) {
  static const llvm::StringSet<> names = {
      "aten::cat",        "aten::stack",      "aten::view",
      "aten::reshape",    "aten::permute",    "aten::transpose",
      "aten::flatten",    "aten::squeeze",    "aten::unsqueeze",
      "aten::clone",      "aten::contiguous", "aten::slice",
      "aten::select",     "aten::expand",     "aten::split",
      "aten::chunk",      "aten::flip",       "aten::t",
      "aten::unflatten",  "aten::movedim",    "aten::narrow",
      "aten::detach",     "aten::alias",      "operator.getitem",
      "_operator.getitem"};
  // An operator by name, whatever its overload (aten::transpose.int).
  return names.contains(target) || (target.starts_with("aten::") &&
                                    names.contains(target.split('.').first));
}

/// Whether any of `op`'s operand or result tensors has elements matching
/// `pred` (tuples looked into).
template <typename Pred> bool anyElement(CallFunctionOp op, Pred pred) {
  std::function<bool(Type)> matches = [&](Type type) {
    if (auto tuple = dyn_cast<TupleType>(type))
      return llvm::any_of(tuple.getTypes(), matches);
    auto shaped = dyn_cast<ShapedType>(type);
    return shaped && pred(shaped.getElementType());
  };
  return llvm::any_of(op->getOperandTypes(), matches) ||
         llvm::any_of(op->getResultTypes(), matches);
}

/// Why the compiler cannot take `op`'s element types, or "" when it can:
/// unsigned integers anywhere.
StringRef unsupportedElements(CallFunctionOp op) {
  if (anyElement(op, [](Type e) { return e.isUnsignedInteger(); }))
    return "unsigned integer tensors (uint8) are not supported by the "
           "compiler";
  return "";
}

/// The lowering of `op` when it has complex tensors: the target's own when
/// it only moves elements, else its complex form (Complex.cpp); null when
/// there is none.
LowerFn complexLowering(CallFunctionOp op, LowerFn own) {
  if (movesElementsOnly(op.getTarget()))
    return own;
  return lookupComplexLowering(op.getTarget());
}

/// A node whose results are all tensors of no elements (a pad, glu or
/// pooling of a batch of 0, unbind along a dim of 0) computes nothing:
/// its results are empty tensors, whatever the target. Lowerings need not
/// handle the case, and the slices they would build (offset 0 of a dim of
/// 0) are out of bounds for tensor.extract_slice.
static LogicalResult lowerToEmpty(Lowering &l) {
  Type type = l.resultType();
  SmallVector<Type> types;
  if (auto tuple = dyn_cast<TupleType>(type))
    llvm::append_range(types, tuple.getTypes());
  else
    types.push_back(type);
  SmallVector<Value> empties;
  for (Type t : types) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    if (!tensor || !llvm::is_contained(tensor.getShape(), 0) ||
        !(tensor.getElementType().isSignlessIntOrFloat() ||
          isa<ComplexType>(tensor.getElementType())))
      return failure();
    SmallVector<OpFoldResult> sizes;
    for (int64_t size : tensor.getShape()) {
      if (ShapedType::isDynamic(size))
        return failure();
      sizes.push_back(l.b.getIndexAttr(size));
    }
    empties.push_back(l.empty(sizes, tensor.getElementType()));
  }
  if (empties.empty())
    return failure();
  return isa<TupleType>(type) ? l.replaceTuple(empties)
                              : l.replace(empties.front());
}

/// The lowerings of one family of targets (elementwise, reductions,
/// convolutions, ...) as one conversion pattern of `fx.call_function`: it
/// applies to the nodes whose target its family lowers. The conversion
/// driver hands it the node's operands already lowered and undoes what a
/// lowering built when it fails, so that a failed node leaves the IR as it
/// was; why it failed is recorded in `failures` (node -> reason) for the
/// pass's diagnostic, as well as sent as a match failure.
class FamilyLowering : public OpConversionPattern<CallFunctionOp> {
public:
  FamilyLowering(MLIRContext *ctx, StringRef family,
                 void (*add)(llvm::StringMap<LowerFn> &),
                 LoweringFailures *failures)
      : OpConversionPattern(ctx), failures(failures) {
    setDebugName(("fx-lower-" + family).str());
    add(table);
  }

  LogicalResult
  matchAndRewrite(CallFunctionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto it = table.find(op.getTarget());
    if (it == table.end())
      return rewriter.notifyMatchFailure(op, "not a target of this family");
    auto fail = [&](const Twine &why) {
      if (failures)
        (*failures)[op] = why.str();
      return rewriter.notifyMatchFailure(op, why);
    };
    for (Value operand : adaptor.getOperands())
      if (operand.getDefiningOp<NodeOpInterface>())
        return fail("its inputs could not be lowered");
    if (StringRef why = unsupportedElements(op); !why.empty())
      return fail(why);
    LowerFn lower = it->second;
    if (anyElement(op, [](Type e) { return isa<ComplexType>(e); }) &&
        !(lower = complexLowering(op, lower)))
      return fail("complex tensors are not supported by '" + op.getTarget() +
                  "' in the compiler");
    ExpandedCall call = expandParts(op.getContext(), adaptor.getOperands(),
                                    op.getArgs(), op.getKwargs());
    Lowering lowering(op, op.getTarget(), cast<ArrayAttr>(call.args),
                      cast<DictAttr>(call.kwargs), call.operands,
                      op.getResult().getType(), rewriter);
    if (succeeded(lowerToEmpty(lowering)) || succeeded(lower(lowering)))
      return success();
    return fail(lowering.error.empty()
                    ? StringRef("cannot lower these arguments")
                    : StringRef(lowering.error));
  }

private:
  llvm::StringMap<LowerFn> table;
  LoweringFailures *failures;
};

/// The graph's output takes the lowered values of the nodes it returns.
struct LowerOutput : public OpConversionPattern<OutputOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(OutputOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    for (Value operand : adaptor.getOperands())
      if (operand.getDefiningOp<NodeOpInterface>())
        return rewriter.notifyMatchFailure(op, "an output is not lowered");
    ExpandedCall call = expandParts(op.getContext(), adaptor.getOperands(),
                                    op.getArgs(), Attribute());
    rewriter.modifyOpInPlace(op, [&] {
      op->setAttr("args", call.args);
      op->setOperands(call.operands);
    });
    return success();
  }
};
} // namespace

#define FX_DEFINE_LOWERING_FAMILY(NAME)                                        \
  void mlir::fx::populate##NAME##LoweringPatterns(                             \
      RewritePatternSet &patterns, LoweringFailures *failures) {               \
    patterns.add<FamilyLowering>(patterns.getContext(), #NAME,                 \
                                 add##NAME##Lowerings, failures);              \
  }
FX_LOWERING_FAMILIES(FX_DEFINE_LOWERING_FAMILY)
#undef FX_DEFINE_LOWERING_FAMILY

void mlir::fx::populateFXToLinalgConversionPatterns(
    RewritePatternSet &patterns, LoweringFailures *failures) {
#define FX_ADD_LOWERING_FAMILY(NAME)                                           \
  populate##NAME##LoweringPatterns(patterns, failures);
  FX_LOWERING_FAMILIES(FX_ADD_LOWERING_FAMILY)
#undef FX_ADD_LOWERING_FAMILY
  patterns.add<LowerOutput>(patterns.getContext());
}

bool mlir::fx::isLowerableTarget(StringRef target) {
  return getTable().count(target);
}

std::vector<std::string> mlir::fx::getLowerableTargets() {
  std::vector<std::string> names;
  for (const auto &entry : getTable())
    names.push_back(entry.getKey().str());
  llvm::sort(names);
  return names;
}
