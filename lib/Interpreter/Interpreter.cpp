//===- Interpreter.cpp - Reference interpreter of fx graphs ---------------===//
//
// Nodes run in graph order. Call nodes reach LibTorch in one of three ways:
// canonical `ns::op.overload` targets bind their Python-style args to the
// operator's LibTorch schema; Python targets (`torch.relu`, methods,
// modules) are bound by the target registry, which turns them into a
// canonical operator with a complete stack; a few targets that are not
// operators (`operator.getitem`, `builtins.getattr`, nn.Identity,
// nn.MultiheadAttention) are handled by the interpreter itself (nn.Identity
// here, the others in Builtins.cpp). Every operator runs through
// torch::jit's operator registry, so dispatcher operators and JIT-only
// operators (`aten::add.int`) run alike. Module state is decoded in
// State.cpp.
//
//===----------------------------------------------------------------------===//

#include "fx-mlir/Interpreter/Interpreter.h"
#include "Values.h"
#include "fx-mlir/Dialect/FX/IR/ControlFlow.h"
#include "fx-mlir/Dialect/FX/IR/FXAttrs.h"
#include "fx-mlir/Dialect/FX/IR/FXLocation.h"
#include "fx-mlir/Dialect/FX/Registry/Registry.h"
#include "fx-mlir/Dialect/FX/Transforms/Passes.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringSwitch.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>
#include <torch/csrc/jit/runtime/operator.h>

#include <limits>
#include <sstream>

using namespace mlir;
using namespace mlir::fx;
using namespace mlir::fx::interpreter;

using OperatorPtr = std::shared_ptr<torch::jit::Operator>;

//===----------------------------------------------------------------------===//
// Slices and Ellipsis
//===----------------------------------------------------------------------===//

namespace {
/// The class of the Ellipsis sentinel.
struct EllipsisValue : torch::CustomClassHolder {};
} // namespace

c10::IValue mlir::fx::makeSliceValue(c10::IValue start, c10::IValue stop,
                                     c10::IValue step) {
  auto slice = c10::make_intrusive<SliceValue>();
  slice->start = std::move(start);
  slice->stop = std::move(stop);
  slice->step = std::move(step);
  return c10::IValue::make_capsule(std::move(slice));
}

const SliceValue *mlir::fx::getSliceValue(const c10::IValue &value) {
  if (!value.isCapsule())
    return nullptr;
  // The IValue keeps the capsule alive.
  return dynamic_cast<const SliceValue *>(value.toCapsule().get());
}

c10::IValue mlir::fx::makeEllipsisValue() {
  static const c10::intrusive_ptr<EllipsisValue> sentinel =
      c10::make_intrusive<EllipsisValue>();
  return c10::IValue::make_capsule(sentinel);
}

bool mlir::fx::isEllipsisValue(const c10::IValue &value) {
  return value.isCapsule() &&
         dynamic_cast<const EllipsisValue *>(value.toCapsule().get());
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// The c10 scalar type of the torch dtype `name` (`float32`), if this
/// LibTorch has it: those the IR holds tensors of (DTypes.def), and those
/// a dtype argument may still name (complex32, the quantized types).
std::optional<c10::ScalarType>
mlir::fx::interpreter::getScalarType(StringRef name) {
  using ST = c10::ScalarType;
#define FX_DTYPE(NAME, ELEMENT_TYPE, BYTES, SCALAR_TYPE, NPY)                  \
  if (name == #NAME)                                                           \
    return ST::SCALAR_TYPE;
#include "fx-mlir/Dialect/FX/IR/DTypes.def"
  return llvm::StringSwitch<std::optional<ST>>(name)
      .Case("complex32", ST::ComplexHalf)
      .Case("qint8", ST::QInt8)
      .Case("quint8", ST::QUInt8)
      .Case("qint32", ST::QInt32)
      .Case("quint4x2", ST::QUInt4x2)
      .Case("quint2x4", ST::QUInt2x4)
      .Default(std::nullopt);
}

/// What a value is, as a Python user would name it: `Tensor`, `int`,
/// `list`, ...
std::string mlir::fx::interpreter::describe(const c10::IValue &value) {
  if (isEllipsisValue(value))
    return "ellipsis";
  if (getSliceValue(value))
    return "slice";
  if (value.isNone())
    return "None";
  if (value.isTensor())
    return value.toTensor().defined() ? "Tensor" : "undefined Tensor";
  if (value.isBool())
    return "bool";
  if (value.isInt())
    return "int";
  if (value.isDouble())
    return "float";
  if (value.isComplexDouble())
    return "complex";
  if (value.isString())
    return "str";
  if (value.isList())
    return "list";
  if (value.isTuple())
    return "tuple";
  if (value.isGenericDict())
    return "dict";
  if (value.isDevice())
    return "device";
  return value.tagKind();
}

/// `Tensor, int, alpha=float`: the kinds of a call's arguments.
std::string mlir::fx::interpreter::describeCall(ArrayRef<c10::IValue> args,
                                                const KwargList &kwargs) {
  std::string text;
  auto append = [&](const std::string &item) {
    if (!text.empty())
      text += ", ";
    text += item;
  };
  for (const c10::IValue &arg : args)
    append(describe(arg));
  for (const auto &[key, value] : kwargs)
    append(key + "=" + describe(value));
  return text;
}

/// The elements of a list or tuple, or nullopt for other values.
std::optional<ArrayRef<c10::IValue>>
mlir::fx::interpreter::getSequence(const c10::IValue &value) {
  if (value.isList())
    return value.toListRef();
  if (value.isTuple())
    return value.toTupleRef().elements().asArrayRef();
  return std::nullopt;
}

namespace {

std::optional<c10::MemoryFormat> getMemoryFormat(StringRef name) {
  using MF = c10::MemoryFormat;
  return llvm::StringSwitch<std::optional<MF>>(name)
      .Case("contiguous_format", MF::Contiguous)
      .Case("preserve_format", MF::Preserve)
      .Case("channels_last", MF::ChannelsLast)
      .Case("channels_last_3d", MF::ChannelsLast3d)
      .Default(std::nullopt);
}

std::optional<c10::Layout> getLayout(StringRef name) {
  using L = c10::Layout;
  return llvm::StringSwitch<std::optional<L>>(name)
      .Case("strided", L::Strided)
      .Case("sparse_coo", L::Sparse)
      .Case("sparse_csr", L::SparseCsr)
      .Case("sparse_csc", L::SparseCsc)
      .Case("sparse_bsr", L::SparseBsr)
      .Case("sparse_bsc", L::SparseBsc)
      .Case("_mkldnn", L::Mkldnn)
      .Default(std::nullopt);
}

std::string schemaString(const c10::FunctionSchema &schema) {
  std::ostringstream os;
  os << schema;
  return os.str();
}

/// A list of `elements`: a typed c10 list when all are ints, floats, bools,
/// tensors or strings, a generic list otherwise.
c10::IValue makeList(std::vector<c10::IValue> elements) {
  auto all = [&](bool (c10::IValue::*pred)() const) {
    return !elements.empty() &&
           llvm::all_of(elements,
                        [&](const c10::IValue &e) { return (e.*pred)(); });
  };
  if (all(&c10::IValue::isInt)) {
    c10::List<int64_t> list;
    for (const c10::IValue &e : elements)
      list.push_back(e.toInt());
    return c10::IValue(std::move(list));
  }
  if (all(&c10::IValue::isDouble)) {
    c10::List<double> list;
    for (const c10::IValue &e : elements)
      list.push_back(e.toDouble());
    return c10::IValue(std::move(list));
  }
  if (all(&c10::IValue::isBool)) {
    c10::List<bool> list;
    for (const c10::IValue &e : elements)
      list.push_back(e.toBool());
    return c10::IValue(std::move(list));
  }
  if (all(&c10::IValue::isTensor)) {
    c10::List<at::Tensor> list;
    for (const c10::IValue &e : elements)
      list.push_back(e.toTensor());
    return c10::IValue(std::move(list));
  }
  if (all(&c10::IValue::isString)) {
    c10::List<std::string> list;
    for (const c10::IValue &e : elements)
      list.push_back(e.toStringRef());
    return c10::IValue(std::move(list));
  }
  c10::impl::GenericList list(c10::AnyType::get());
  for (c10::IValue &e : elements)
    list.push_back(std::move(e));
  return c10::IValue(std::move(list));
}

bool isIntType(const c10::TypePtr &type) {
  return type->kind() == c10::TypeKind::IntType ||
         type->kind() == c10::TypeKind::SymIntType;
}

/// A list of `elements`, already converted to `elementType`, in the c10
/// list type a TorchScript kernel takes for it.
c10::IValue makeTypedList(const c10::TypePtr &elementType,
                          std::vector<c10::IValue> elements) {
  using K = c10::TypeKind;
  switch (elementType->kind()) {
  case K::IntType:
  case K::SymIntType: {
    c10::List<int64_t> list;
    for (const c10::IValue &e : elements)
      list.push_back(e.toInt());
    return c10::IValue(std::move(list));
  }
  case K::FloatType: {
    c10::List<double> list;
    for (const c10::IValue &e : elements)
      list.push_back(e.toDouble());
    return c10::IValue(std::move(list));
  }
  case K::BoolType: {
    c10::List<bool> list;
    for (const c10::IValue &e : elements)
      list.push_back(e.toBool());
    return c10::IValue(std::move(list));
  }
  case K::TensorType: {
    c10::List<at::Tensor> list;
    for (const c10::IValue &e : elements)
      list.push_back(e.toTensor());
    return c10::IValue(std::move(list));
  }
  case K::OptionalType:
    if (elementType->castRaw<c10::OptionalType>()->getElementType()->kind() ==
        K::TensorType) {
      c10::List<c10::optional<at::Tensor>> list;
      for (const c10::IValue &e : elements)
        list.push_back(e.isNone() ? c10::optional<at::Tensor>()
                                  : c10::optional<at::Tensor>(e.toTensor()));
      return c10::IValue(std::move(list));
    }
    break;
  default:
    break;
  }
  c10::impl::GenericList list(elementType);
  for (c10::IValue &e : elements)
    list.push_back(std::move(e));
  return c10::IValue(std::move(list));
}

/// Whether `value` is a one-element tensor of integers (or, with
/// `floating`, of any real type), which Python's operator binding takes for
/// an int (a float) parameter: the scale and zero point `get_attr`s that
/// convert_fx passes to `torch.ops.quantized.add`, for one.
bool isScalarTensor(const c10::IValue &value, bool floating) {
  if (!value.isTensor())
    return false;
  const at::Tensor &t = value.toTensor();
  if (!t.defined() || t.numel() != 1 || t.is_complex() || t.is_quantized())
    return false;
  return at::isIntegralType(t.scalar_type(), /*includeBool=*/false) ||
         (floating && at::isFloatingType(t.scalar_type()));
}

/// Converts `value` to what an argument of type `type` (with `n` elements
/// for `int[2]`) takes on a TorchScript stack, or nullopt if it does not
/// fit. `lenient` admits Python's implicit conversions: int to float, bool
/// to int, int or float to complex, a list for a tuple.
std::optional<c10::IValue> coerce(const c10::IValue &value,
                                  const c10::TypePtr &type,
                                  c10::optional<int32_t> n, bool lenient) {
  using K = c10::TypeKind;
  switch (type->kind()) {
  case K::OptionalType:
    if (value.isNone())
      return value;
    return coerce(value, type->castRaw<c10::OptionalType>()->getElementType(),
                  n, lenient);
  case K::TensorType:
    if (value.isTensor())
      return value;
    return std::nullopt;
  case K::IntType:
  case K::SymIntType:
  case K::ScalarTypeType:
  case K::LayoutType:
  case K::MemoryFormatType:
    if (value.isInt())
      return value;
    if (lenient && value.isBool())
      return c10::IValue(static_cast<int64_t>(value.toBool()));
    if (lenient && type->kind() == K::IntType && isScalarTensor(value, false))
      return c10::IValue(value.toTensor().item<int64_t>());
    return std::nullopt;
  case K::FloatType:
  case K::SymFloatType:
    if (value.isDouble())
      return value;
    if (lenient && value.isInt())
      return c10::IValue(static_cast<double>(value.toInt()));
    if (lenient && isScalarTensor(value, true))
      return c10::IValue(value.toTensor().item<double>());
    return std::nullopt;
  case K::ComplexType:
    if (value.isComplexDouble())
      return value;
    if (lenient && (value.isInt() || value.isDouble()))
      return c10::IValue(c10::complex<double>(
          value.isInt() ? static_cast<double>(value.toInt()) : value.toDouble(),
          0.0));
    return std::nullopt;
  case K::BoolType:
    if (value.isBool())
      return value;
    return std::nullopt;
  case K::NumberType:
    if (value.isInt() || value.isDouble() || value.isBool() ||
        value.isComplexDouble())
      return value;
    return std::nullopt;
  case K::StringType:
    if (value.isString())
      return value;
    return std::nullopt;
  case K::DeviceObjType:
    if (value.isDevice())
      return value;
    if (value.isString()) {
      try {
        return c10::IValue(c10::Device(value.toStringRef()));
      } catch (const c10::Error &) {
        return std::nullopt;
      }
    }
    return std::nullopt;
  case K::GeneratorType:
    if (value.isGenerator())
      return value;
    return std::nullopt;
  case K::ListType: {
    c10::TypePtr elementType = type->castRaw<c10::ListType>()->getElementType();
    std::vector<c10::IValue> elements;
    if (n && value.isInt() && isIntType(elementType)) {
      elements.assign(*n, value);
    } else if (std::optional<ArrayRef<c10::IValue>> sequence =
                   getSequence(value)) {
      elements = sequence->vec();
    } else {
      return std::nullopt;
    }
    for (c10::IValue &element : elements) {
      std::optional<c10::IValue> converted =
          coerce(element, elementType, c10::nullopt, lenient);
      if (!converted)
        return std::nullopt;
      element = std::move(*converted);
    }
    return makeTypedList(elementType, std::move(elements));
  }
  case K::TupleType:
    if (value.isTuple())
      return value;
    if (lenient && value.isList())
      return c10::IValue(c10::ivalue::Tuple::create(value.toListRef()));
    return std::nullopt;
  case K::DictType:
    if (value.isGenericDict())
      return value;
    return std::nullopt;
  case K::AnyType:
  case K::VarType:
    return value;
  default:
    if (value.type()->isSubtypeOf(*type))
      return value;
    return std::nullopt;
  }
}

/// Converts `value` for the schema parameter `param`, or explains why not.
std::optional<c10::IValue> coerceArgument(const c10::IValue &value,
                                          const c10::Argument &param,
                                          bool lenient, std::string &why) {
  std::optional<c10::IValue> converted =
      coerce(value, param.type(), param.N(), lenient);
  if (!converted)
    why = "argument '" + param.name() + "' must be " +
          param.real_type()->str() + ", not " + describe(value);
  return converted;
}

/// Binds Python-style `args`/`kwargs` to `schema`: positional args fill the
/// positional parameters in order, kwargs name parameters (`input` and
/// `self` name the same one) and defaults fill the rest. Appends the
/// converted values to `stack` in schema order; returns false with `why`
/// when they do not fit.
bool bindSchema(const c10::FunctionSchema &schema, ArrayRef<c10::IValue> args,
                const KwargList &kwargs, bool lenient,
                std::vector<c10::IValue> &stack, std::string &why) {
  // Variadic operators need the TorchScript node they are called from.
  if (schema.is_vararg() || schema.is_varret()) {
    why = "it is variadic";
    return false;
  }
  const std::vector<c10::Argument> &params = schema.arguments();
  size_t positional = 0;
  while (positional < params.size() && !params[positional].kwarg_only())
    ++positional;
  if (args.size() > positional) {
    why = "it takes " + std::to_string(positional) +
          " positional argument(s), " + std::to_string(args.size()) +
          " were given";
    return false;
  }
  std::vector<std::optional<c10::IValue>> slots(params.size());
  for (size_t i = 0; i < args.size(); ++i)
    slots[i] = args[i];
  auto find = [&](StringRef name) -> int {
    for (size_t i = 0; i < params.size(); ++i)
      if (params[i].name() == name)
        return static_cast<int>(i);
    return -1;
  };
  for (const auto &[key, value] : kwargs) {
    int index = find(key);
    if (index < 0 && (key == "input" || key == "self"))
      index = find(key == "input" ? "self" : "input");
    if (index < 0) {
      why = "unexpected keyword argument '" + key + "'";
      return false;
    }
    if (slots[index]) {
      why = "multiple values for argument '" + params[index].name() + "'";
      return false;
    }
    slots[index] = value;
  }
  stack.clear();
  for (size_t i = 0; i < params.size(); ++i) {
    const c10::Argument &param = params[i];
    if (!slots[i]) {
      if (!param.default_value()) {
        why = "missing argument '" + param.name() + "'";
        return false;
      }
      slots[i] = *param.default_value();
    }
    std::optional<c10::IValue> value =
        coerceArgument(*slots[i], param, lenient, why);
    if (!value)
      return false;
    stack.push_back(std::move(*value));
  }
  return true;
}

/// `aten::add.Tensor` split into `aten::add` and `Tensor`; `.default` names
/// the unnamed overload, as torch.ops spells it.
struct OperatorName {
  std::string name;
  std::string overload;
  bool hasOverload = false;
};

std::optional<OperatorName> splitOperatorName(StringRef qualified) {
  size_t colons = qualified.find("::");
  if (colons == StringRef::npos || colons == 0 ||
      colons + 2 >= qualified.size())
    return std::nullopt;
  OperatorName result;
  size_t dot = qualified.find('.', colons + 2);
  result.name = qualified.substr(0, dot).str();
  if (dot != StringRef::npos) {
    result.hasOverload = true;
    StringRef overload = qualified.substr(dot + 1);
    result.overload = overload == "default" ? "" : overload.str();
  }
  return result;
}

/// The LibTorch operators (all overloads) named `name` (`aten::add`).
std::vector<OperatorPtr> getOperators(const std::string &name) {
  return torch::jit::getAllOperatorsFor(c10::Symbol::fromQualString(name));
}

/// Chooses the overload of the LibTorch operator `name` whose schema
/// accepts `args`/`kwargs`, as TorchScript's overload resolution does:
/// first by exact kinds, then with Python's implicit conversions. The
/// overloads in `preferred` are tried first, in order, and when
/// `onlyPreferred` they are the only ones. Fills `stack` for the chosen
/// overload; returns null with `why` when none fits.
OperatorPtr resolveOverload(const std::string &name,
                            ArrayRef<std::string> preferred, bool onlyPreferred,
                            ArrayRef<c10::IValue> args, const KwargList &kwargs,
                            std::vector<c10::IValue> &stack, std::string &why) {
  std::vector<OperatorPtr> all = getOperators(name);
  std::vector<OperatorPtr> candidates;
  for (const std::string &overload : preferred)
    for (const OperatorPtr &oper : all)
      if (oper->schema().overload_name() == overload &&
          !llvm::is_contained(candidates, oper))
        candidates.push_back(oper);
  if (!onlyPreferred)
    for (const OperatorPtr &oper : all)
      if (!llvm::is_contained(candidates, oper))
        candidates.push_back(oper);
  if (candidates.empty()) {
    if (all.empty())
      why = "LibTorch has no operator '" + name + "'";
    else
      why = "LibTorch has no overload '" + name + "." +
            (preferred.empty() ? std::string() : preferred.front()) + "'";
    return nullptr;
  }
  std::string firstReason;
  for (bool lenient : {false, true}) {
    for (const OperatorPtr &oper : candidates) {
      std::string reason;
      if (bindSchema(oper->schema(), args, kwargs, lenient, stack, reason))
        return oper;
      if (firstReason.empty())
        firstReason = reason;
    }
  }
  if (candidates.size() == 1)
    why = "'" + schemaString(candidates.front()->schema()) +
          "' does not accept (" + describeCall(args, kwargs) +
          "): " + firstReason;
  else
    why = "no overload of '" + name + "' accepts (" +
          describeCall(args, kwargs) + ")";
  return nullptr;
}

/// Appends the leaves of `value` to `result`: tuples, lists and dict values
/// are flattened, in order.
void flatten(const c10::IValue &value, std::vector<c10::IValue> &result) {
  if (std::optional<ArrayRef<c10::IValue>> sequence = getSequence(value)) {
    for (const c10::IValue &element : *sequence)
      flatten(element, result);
  } else if (value.isGenericDict()) {
    for (const auto &entry : value.toGenericDict())
      flatten(entry.value(), result);
  } else {
    result.push_back(value);
  }
}

} // namespace

//===----------------------------------------------------------------------===//
// Interpreter: running a graph
//===----------------------------------------------------------------------===//

Interpreter::Interpreter(GraphModuleOp module) : module(module) {}

Interpreter::~Interpreter() = default;

InFlightDiagnostic Interpreter::emitNodeError(Operation *op) {
  ++numErrors;
  InFlightDiagnostic diag = op->emitError("interpreter: ");
  if (auto node = dyn_cast<NodeOpInterface>(op)) {
    diag << node.getOpcode() << " " << getNodeLabel(op);
    if (!isa<PlaceholderOp, OutputOp>(op))
      diag << " with target '" << node.getTargetName() << "'";
    diag << ": ";
  }
  return diag;
}

LogicalResult Interpreter::guarded(Operation *op,
                                   llvm::function_ref<LogicalResult()> fn) {
  try {
    return fn();
  } catch (const c10::Error &error) {
    emitNodeError(op) << StringRef(error.what_without_backtrace()).trim();
  } catch (const std::exception &error) {
    emitNodeError(op) << StringRef(error.what()).trim();
  } catch (...) {
    emitNodeError(op) << "unknown C++ exception";
  }
  return failure();
}

FailureOr<std::vector<c10::IValue>>
Interpreter::run(ArrayRef<c10::IValue> inputs) {
  if (!module)
    return failure();
  GraphOp graph = module.getForward();
  if (!graph) {
    module.emitError() << "interpreter: graph module '" << module.getSymName()
                       << "' has no forward graph";
    return failure();
  }
  SmallVector<PlaceholderOp> placeholders;
  graph.getPlaceholders(placeholders);
  size_t positional = 0;
  bool variadic = false;
  for (PlaceholderOp placeholder : placeholders) {
    StringRef target = placeholder.getTarget();
    if (target.starts_with("**"))
      continue;
    if (target.starts_with("*"))
      variadic = true;
    else if (!variadic)
      ++positional;
  }
  if (!variadic && inputs.size() > positional) {
    graph.emitError() << "interpreter: forward takes " << positional
                      << " input(s), but " << inputs.size() << " were given";
    return failure();
  }

  c10::NoGradGuard noGrad;
  values.clear();
  llvm::scope_exit clearValues([&] { values.clear(); });
  return runGraph(graph, inputs);
}

FailureOr<std::vector<c10::IValue>>
Interpreter::runGraph(GraphOp graph, ArrayRef<c10::IValue> inputs) {
  Block &body = graph.getBody().front();
  // Values are dropped after their last use, as torch.fx.Interpreter's
  // garbage_collect_values does.
  DenseMap<Operation *, SmallVector<Value>> lastUses;
  {
    DenseMap<Value, Operation *> lastUser;
    for (Operation &node : body)
      for (Value operand : node.getOperands())
        lastUser[operand] = &node;
    for (auto [value, user] : lastUser)
      lastUses[user].push_back(value);
  }
  size_t nextInput = 0;
  for (Operation &node : body) {
    std::optional<std::vector<c10::IValue>> outputs;
    unsigned errorsBefore = numErrors;
    if (failed(guarded(&node, [&] {
          return runNode(node, inputs, nextInput, outputs);
        }))) {
      if (numErrors == errorsBefore)
        emitNodeError(&node) << "failed";
      return failure();
    }
    if (outputs)
      return std::move(*outputs);
    for (Value value : lastUses.lookup(&node))
      values.erase(value);
  }
  graph.emitError() << "interpreter: graph '" << graph.getSymName()
                    << "' has no fx.output node";
  return failure();
}

LogicalResult
Interpreter::runNode(Operation &node, ArrayRef<c10::IValue> inputs,
                     size_t &nextInput,
                     std::optional<std::vector<c10::IValue>> &outputs) {
  FailureOr<c10::IValue> result = failure();
  if (auto op = dyn_cast<PlaceholderOp>(&node)) {
    std::optional<c10::IValue> input;
    StringRef target = op.getTarget();
    if (target.starts_with("**")) {
      input = c10::IValue(
          c10::impl::GenericDict(c10::StringType::get(), c10::AnyType::get()));
    } else if (target.starts_with("*")) {
      std::vector<c10::IValue> rest(
          inputs.begin() + std::min(nextInput, inputs.size()), inputs.end());
      input = c10::IValue(c10::ivalue::Tuple::create(std::move(rest)));
      nextInput = inputs.size();
    } else if (nextInput < inputs.size()) {
      input = inputs[nextInput++];
    }
    result = placeholder(op, std::move(input));
  } else if (auto op = dyn_cast<GetAttrOp>(&node)) {
    // A graph (a branch or body of control flow) is named; the call that
    // reads it runs it.
    if (isa_and_nonnull<GraphOp>(module.lookupTarget(op.getTarget())))
      result = c10::IValue(op.getTarget().str());
    else
      result = getAttr(op);
  } else if (isa<CallFunctionOp, CallMethodOp, CallModuleOp>(&node)) {
    std::vector<c10::IValue> args;
    Kwargs kwargs;
    if (failed(evaluateCall(&node, args, kwargs)))
      return failure();
    if (auto op = dyn_cast<CallFunctionOp>(&node))
      result = callFunction(op, std::move(args), std::move(kwargs));
    else if (auto op = dyn_cast<CallMethodOp>(&node))
      result = callMethod(op, std::move(args), std::move(kwargs));
    else
      result = callModule(cast<CallModuleOp>(&node), std::move(args),
                          std::move(kwargs));
  } else if (auto op = dyn_cast<OutputOp>(&node)) {
    // FX keeps the returned value as the output's only arg.
    ArrayAttr args = op.getArgs();
    std::vector<c10::IValue> evaluated;
    for (Attribute arg : args) {
      FailureOr<c10::IValue> value = evaluate(op, arg, op->getOperands());
      if (failed(value))
        return failure();
      evaluated.push_back(std::move(*value));
    }
    c10::IValue value =
        evaluated.size() == 1
            ? std::move(evaluated.front())
            : c10::IValue(c10::ivalue::Tuple::create(std::move(evaluated)));
    FailureOr<std::vector<c10::IValue>> flat = output(op, std::move(value));
    if (failed(flat))
      return failure();
    outputs = std::move(*flat);
    return success();
  } else {
    emitNodeError(&node) << "'" << node.getName() << "' is not an FX node";
    return failure();
  }
  if (failed(result))
    return failure();
  if (node.getNumResults() == 1 && !node.getResult(0).use_empty())
    values[node.getResult(0)] = std::move(*result);
  return success();
}

//===----------------------------------------------------------------------===//
// Interpreter: evaluating args
//===----------------------------------------------------------------------===//

FailureOr<c10::IValue> Interpreter::evaluate(Operation *op, Attribute value,
                                             ValueRange operands) {
  auto evaluateAll = [&](ArrayRef<Attribute> attrs,
                         std::vector<c10::IValue> &result) -> LogicalResult {
    for (Attribute attr : attrs) {
      FailureOr<c10::IValue> element = evaluate(op, attr, operands);
      if (failed(element))
        return failure();
      result.push_back(std::move(*element));
    }
    return success();
  };
  if (!value) {
    emitNodeError(op) << "an argument has no value";
    return failure();
  }
  if (auto node = dyn_cast<NodeAttr>(value)) {
    unsigned index = node.getIndex();
    if (index >= operands.size()) {
      emitNodeError(op) << "#fx.node<" << index << "> refers past its "
                        << operands.size() << " operand(s)";
      return failure();
    }
    auto it = values.find(operands[index]);
    if (it == values.end()) {
      emitNodeError(op) << "uses a value that no earlier node of the graph "
                           "computed";
      return failure();
    }
    return it->second;
  }
  if (auto boolean = dyn_cast<BoolAttr>(value))
    return c10::IValue(boolean.getValue());
  if (auto integer = dyn_cast<IntegerAttr>(value)) {
    const APInt &v = integer.getValue();
    if (v.getBitWidth() > 64) {
      emitNodeError(op) << "integer " << integer << " does not fit int64";
      return failure();
    }
    return c10::IValue(static_cast<int64_t>(v.getSExtValue()));
  }
  if (auto real = dyn_cast<FloatAttr>(value))
    return c10::IValue(real.getValueAsDouble());
  if (auto string = dyn_cast<StringAttr>(value))
    return c10::IValue(string.getValue().str());
  if (isa<NoneAttr>(value))
    return c10::IValue();
  if (isa<EllipsisAttr>(value))
    return makeEllipsisValue();
  if (auto list = dyn_cast<ListAttr>(value)) {
    std::vector<c10::IValue> elements;
    if (failed(evaluateAll(list.getElements(), elements)))
      return failure();
    return makeList(std::move(elements));
  }
  if (auto tuple = dyn_cast<TupleAttr>(value)) {
    std::vector<c10::IValue> elements;
    if (failed(evaluateAll(tuple.getElements(), elements)))
      return failure();
    return c10::IValue(c10::ivalue::Tuple::create(std::move(elements)));
  }
  if (auto dict = dyn_cast<DictAttr>(value)) {
    std::vector<c10::IValue> keys, entries;
    if (failed(evaluateAll(dict.getKeys(), keys)) ||
        failed(evaluateAll(dict.getValues(), entries)))
      return failure();
    c10::TypePtr keyType = c10::AnyType::get();
    if (!keys.empty() &&
        llvm::all_of(keys, [](const c10::IValue &k) { return k.isString(); }))
      keyType = c10::StringType::get();
    else if (!keys.empty() &&
             llvm::all_of(keys, [](const c10::IValue &k) { return k.isInt(); }))
      keyType = c10::IntType::get();
    c10::impl::GenericDict result(keyType, c10::AnyType::get());
    for (auto [key, entry] : llvm::zip(keys, entries))
      result.insert_or_assign(std::move(key), std::move(entry));
    return c10::IValue(std::move(result));
  }
  if (auto slice = dyn_cast<SliceAttr>(value)) {
    std::vector<c10::IValue> bounds;
    if (failed(evaluateAll({slice.getStart(), slice.getStop(), slice.getStep()},
                           bounds)))
      return failure();
    return makeSliceValue(bounds[0], bounds[1], bounds[2]);
  }
  if (auto dtype = dyn_cast<DTypeAttr>(value)) {
    std::optional<c10::ScalarType> scalarType = getScalarType(dtype.getName());
    if (!scalarType) {
      emitNodeError(op) << "dtype torch." << dtype.getName()
                        << " is not supported by this LibTorch";
      return failure();
    }
    return c10::IValue(static_cast<int64_t>(*scalarType));
  }
  if (auto format = dyn_cast<MemoryFormatAttr>(value)) {
    std::optional<c10::MemoryFormat> memoryFormat =
        getMemoryFormat(format.getName());
    if (!memoryFormat) {
      emitNodeError(op) << "memory format torch." << format.getName()
                        << " is not supported by this LibTorch";
      return failure();
    }
    return c10::IValue(static_cast<int64_t>(*memoryFormat));
  }
  if (auto layout = dyn_cast<LayoutAttr>(value)) {
    std::optional<c10::Layout> c10Layout = getLayout(layout.getName());
    if (!c10Layout) {
      emitNodeError(op) << "layout torch." << layout.getName()
                        << " is not supported by this LibTorch";
      return failure();
    }
    return c10::IValue(static_cast<int64_t>(*c10Layout));
  }
  if (auto device = dyn_cast<DeviceAttr>(value))
    return c10::IValue(c10::Device(device.getDevice().str()));
  if (auto size = dyn_cast<SizeAttr>(value)) {
    c10::List<int64_t> dims;
    for (int64_t dim : size.getDims())
      dims.push_back(dim);
    return c10::IValue(std::move(dims));
  }
  if (auto complex = dyn_cast<ComplexAttr>(value))
    return c10::IValue(
        c10::complex<double>(complex.getReal().convertToDouble(),
                             complex.getImag().convertToDouble()));
  emitNodeError(op) << "cannot evaluate " << value;
  return failure();
}

LogicalResult Interpreter::evaluateCall(Operation *op,
                                        std::vector<c10::IValue> &args,
                                        Kwargs &kwargs) {
  auto node = cast<NodeOpInterface>(op);
  for (Attribute arg : node.getArgs()) {
    FailureOr<c10::IValue> value = evaluate(op, arg, op->getOperands());
    if (failed(value))
      return failure();
    args.push_back(std::move(*value));
  }
  DictAttr kwargAttrs = node.getKwargs();
  for (auto [key, arg] :
       llvm::zip(kwargAttrs.getKeys(), kwargAttrs.getValues())) {
    auto name = dyn_cast<StringAttr>(key);
    if (!name) {
      emitNodeError(op) << "keyword argument " << key << " is not a string";
      return failure();
    }
    FailureOr<c10::IValue> value = evaluate(op, arg, op->getOperands());
    if (failed(value))
      return failure();
    kwargs.emplace_back(name.getValue().str(), std::move(*value));
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Interpreter: default hooks
//===----------------------------------------------------------------------===//

FailureOr<c10::IValue>
Interpreter::placeholder(PlaceholderOp op, std::optional<c10::IValue> input) {
  if (input)
    return std::move(*input);
  if (Attribute value = op.getDefaultValueAttr())
    return evaluate(op, value, {});
  emitNodeError(op) << "no input was given for parameter '" << op.getTarget()
                    << "', which has no default";
  return failure();
}

FailureOr<c10::IValue> Interpreter::getAttr(GetAttrOp op) {
  FailureOr<at::Tensor> tensor = readState(op, op.getTarget());
  if (failed(tensor))
    return failure();
  return c10::IValue(std::move(*tensor));
}

FailureOr<c10::IValue> Interpreter::callFunction(CallFunctionOp op,
                                                 std::vector<c10::IValue> args,
                                                 Kwargs kwargs) {
  StringRef target = op.getTarget();
  if (target == "aten::tensor" && args.size() == 1 && args[0].isList())
    return tensorOfList(op, args, kwargs);
  if (target.contains("::"))
    return callCanonical(op, target, args, kwargs);
  if (target == "operator.getitem" || target == "_operator.getitem")
    return getItem(op, args, kwargs);
  if (target == "builtins.getattr")
    return getAttribute(op, args, kwargs);
  if (target == "torch._assert")
    return checkAssert(op, args, kwargs);
  if (isControlFlowTarget(target))
    return callControlFlow(op, args);
  if (target.starts_with("fx_mlir.fused."))
    return callFused(op, args, kwargs);
  if (isProbeTarget(target))
    return callProbe(op, args);
  return callRegistered(op, args, kwargs);
}

FailureOr<c10::IValue> Interpreter::callFused(CallFunctionOp op,
                                              ArrayRef<c10::IValue> args,
                                              const Kwargs &kwargs) {
  StringRef base = getFusedBaseOp(op.getTarget());
  if (base.empty()) {
    emitNodeError(op) << "unknown fused op";
    return failure();
  }
  Kwargs baseKwargs;
  std::string activation;
  for (const auto &[key, value] : kwargs) {
    if (key == "activation" && value.isString())
      activation = value.toStringRef();
    else
      baseKwargs.push_back({key, value});
  }
  FailureOr<c10::IValue> y = callCanonical(op, base, args, baseKwargs);
  if (failed(y))
    return failure();
  if (activation == "relu6")
    return callOperator(op, "aten::hardtanh", {*y, 0.0, 6.0});
  if (activation == "gelu" || activation == "gelu_tanh")
    return callOperator(
        op, "aten::gelu",
        {*y, std::string(activation == "gelu" ? "none" : "tanh")});
  if (activation == "relu" || activation == "silu" || activation == "sigmoid" ||
      activation == "tanh" || activation == "hardswish")
    return callOperator(op, "aten::" + activation, {*y});
  emitNodeError(op) << "unknown activation '" << activation << "'";
  return failure();
}

FailureOr<c10::IValue> Interpreter::callProbe(CallFunctionOp op,
                                              ArrayRef<c10::IValue> args) {
  if (args.size() < 3 || !args[0].isInt() || !args[1].isString() ||
      !args[2].isString()) {
    emitNodeError(op) << "a probe takes (id, node name, target[, value])";
    return failure();
  }
  int64_t id = args[0].toInt();
  probes.addSite(id, args[1].toStringRef(), args[2].toStringRef());
  StringRef kind =
      op.getTarget().drop_front(StringRef("fx_mlir.instrument.").size());
  if (kind == "start") {
    probes.start(id);
    return c10::IValue();
  }
  if (kind == "stop") {
    probes.stop(id);
    return c10::IValue();
  }
  if (args.size() < 4 || !args[3].isTensor() ||
      !args[3].toTensor().is_floating_point())
    return c10::IValue(); // only float tensors are measured
  at::Tensor t = args[3].toTensor().to(at::kDouble);
  if (kind == "nan_check") {
    int64_t nonFinite = t.isfinite().logical_not().sum().item<int64_t>();
    if (!probes.nanCheck(id, nonFinite)) {
      emitNodeError(op) << "nan-check: " << *probes.getFailure();
      return failure();
    }
    return c10::IValue();
  }
  // min and max of the non-NaN elements, the mean over all of them.
  at::Tensor numbers = t.masked_select(t.isnan().logical_not());
  double inf = std::numeric_limits<double>::infinity();
  double min = numbers.numel() ? numbers.min().item<double>() : inf;
  double max = numbers.numel() ? numbers.max().item<double>() : -inf;
  probes.stats(id, min, max, t.sum().item<double>(), t.numel(),
               t.isnan().sum().item<int64_t>());
  return c10::IValue();
}

FailureOr<c10::IValue> Interpreter::callMethod(CallMethodOp op,
                                               std::vector<c10::IValue> args,
                                               Kwargs kwargs) {
  return callRegistered(op, args, kwargs);
}

FailureOr<c10::IValue> Interpreter::callModule(CallModuleOp op,
                                               std::vector<c10::IValue> args,
                                               Kwargs kwargs) {
  auto submodule =
      dyn_cast_or_null<SubmoduleOp>(module.lookupTarget(op.getTarget()));
  if (!submodule) {
    emitNodeError(op) << "the graph module has no submodule '" << op.getTarget()
                      << "'";
    return failure();
  }
  StringRef type = submodule.getModuleType();
  if (type == "torch.nn.Identity") {
    if (args.size() == 1 && kwargs.empty())
      return std::move(args.front());
    if (args.empty() && kwargs.size() == 1 && kwargs.front().first == "input")
      return std::move(kwargs.front().second);
    emitNodeError(op) << "torch.nn.Identity takes one input, got ("
                      << describeCall(args, kwargs) << ")";
    return failure();
  }
  if (type == "torch.nn.MultiheadAttention")
    return callMultiheadAttention(op, submodule, args, kwargs);
  bool handled = false;
  FailureOr<c10::IValue> quantized =
      callQuantizedModule(op, submodule, args, kwargs, handled);
  if (handled)
    return quantized;
  return callRegistered(op, args, kwargs);
}

FailureOr<std::vector<c10::IValue>> Interpreter::output(OutputOp op,
                                                        c10::IValue value) {
  std::vector<c10::IValue> result;
  flatten(value, result);
  return result;
}

//===----------------------------------------------------------------------===//
// Interpreter: operators
//===----------------------------------------------------------------------===//

OperatorPtr Interpreter::lookupOperator(Operation *op,
                                        StringRef qualifiedName) {
  auto it = operatorCache.find(qualifiedName);
  if (it != operatorCache.end())
    return it->second;
  std::optional<OperatorName> name = splitOperatorName(qualifiedName);
  if (!name) {
    emitNodeError(op) << "'" << qualifiedName
                      << "' is not an operator name such as "
                         "'aten::add.Tensor'";
    return nullptr;
  }
  for (const OperatorPtr &oper : getOperators(name->name)) {
    if (oper->schema().overload_name() == name->overload) {
      operatorCache[qualifiedName] = oper;
      return oper;
    }
  }
  emitNodeError(op) << "LibTorch has no operator '" << qualifiedName << "'";
  return nullptr;
}

FailureOr<c10::IValue>
Interpreter::runOperator(Operation *op, const torch::jit::Operator &oper,
                         std::vector<c10::IValue> stack) {
  const c10::FunctionSchema &schema = oper.schema();
  try {
    torch::jit::Operation operation = oper.getOperation();
    if (!operation) {
      emitNodeError(op) << "LibTorch has no implementation of '"
                        << schemaString(schema) << "'";
      return failure();
    }
    operation(stack);
  } catch (const c10::Error &error) {
    emitNodeError(op) << schema.name()
                      << (schema.overload_name().empty() ? "" : ".")
                      << schema.overload_name() << ": "
                      << StringRef(error.what_without_backtrace()).trim();
    return failure();
  } catch (const std::exception &error) {
    emitNodeError(op) << schema.name()
                      << (schema.overload_name().empty() ? "" : ".")
                      << schema.overload_name() << ": "
                      << StringRef(error.what()).trim();
    return failure();
  }
  if (stack.empty())
    return c10::IValue();
  if (stack.size() == 1)
    return std::move(stack.front());
  return c10::IValue(c10::ivalue::Tuple::create(std::move(stack)));
}

FailureOr<c10::IValue>
Interpreter::callOperator(Operation *op, StringRef qualifiedName,
                          std::vector<c10::IValue> args) {
  OperatorPtr oper = lookupOperator(op, qualifiedName);
  if (!oper)
    return failure();
  const c10::FunctionSchema &schema = oper->schema();
  if (schema.is_vararg() || schema.is_varret()) {
    emitNodeError(op) << "'" << schemaString(schema)
                      << "' is variadic; the interpreter cannot call it";
    return failure();
  }
  const std::vector<c10::Argument> &params = schema.arguments();
  if (args.size() != params.size()) {
    emitNodeError(op) << "'" << schemaString(schema) << "' takes "
                      << params.size() << " argument(s), " << args.size()
                      << " were given";
    return failure();
  }
  for (size_t i = 0; i < params.size(); ++i) {
    std::string why;
    std::optional<c10::IValue> value =
        coerceArgument(args[i], params[i], /*lenient=*/true, why);
    if (!value) {
      emitNodeError(op) << "'" << schemaString(schema) << "': " << why;
      return failure();
    }
    args[i] = std::move(*value);
  }
  return runOperator(op, *oper, std::move(args));
}

FailureOr<c10::IValue> Interpreter::callCanonical(Operation *op,
                                                  StringRef target,
                                                  ArrayRef<c10::IValue> args,
                                                  const Kwargs &kwargs) {
  std::optional<OperatorName> name = splitOperatorName(target);
  if (!name) {
    emitNodeError(op) << "'" << target
                      << "' is not an operator name such as "
                         "'aten::add.Tensor'";
    return failure();
  }
  // `aten::add.Tensor` names one overload; `aten::add` prefers the unnamed
  // one and otherwise lets the args choose.
  std::vector<c10::IValue> stack;
  std::string why;
  OperatorPtr oper =
      resolveOverload(name->name, {name->overload}, name->hasOverload, args,
                      kwargs, stack, why);
  if (!oper) {
    emitNodeError(op) << why;
    return failure();
  }
  return runOperator(op, *oper, std::move(stack));
}

FailureOr<c10::IValue> Interpreter::callRegistered(Operation *op,
                                                   ArrayRef<c10::IValue> args,
                                                   const Kwargs &kwargs) {
  const TargetRegistry &registry = TargetRegistry::get();
  std::string why;
  if (std::unique_ptr<BoundCall> bound = registry.bind(op, why)) {
    std::vector<c10::IValue> stack;
    for (const BoundArg &arg : bound->args) {
      if (!arg.stateName.empty()) {
        FailureOr<at::Tensor> state = readState(op, arg.stateName);
        if (failed(state))
          return failure();
        stack.push_back(c10::IValue(std::move(*state)));
        continue;
      }
      FailureOr<c10::IValue> value = evaluate(op, arg.value, bound->operands);
      if (failed(value))
        return failure();
      stack.push_back(std::move(*value));
    }
    std::string name = bound->schema->qualifiedName();
    OperatorPtr oper = lookupOperator(op, name);
    if (!oper)
      return failure();
    const std::vector<c10::Argument> &params = oper->schema().arguments();
    bool fits = params.size() == stack.size();
    if (!fits)
      why = "the registry's schema of '" + name + "' has " +
            std::to_string(stack.size()) + " parameter(s), LibTorch's " +
            std::to_string(params.size());
    for (size_t i = 0; fits && i < params.size(); ++i) {
      std::optional<c10::IValue> value =
          coerceArgument(stack[i], params[i], /*lenient=*/true, why);
      if (!value)
        fits = false;
      else
        stack[i] = std::move(*value);
    }
    if (fits)
      return runOperator(op, *oper, std::move(stack));
    why = name + ": " + why;
  }

  // The registry chooses the overload by the static types of the args;
  // values of unknown type may need another. Aliases that take the
  // canonical schema's own parameters rebind by the values.
  auto node = cast<NodeOpInterface>(op);
  const Alias *alias = nullptr;
  if (isa<CallFunctionOp, CallMethodOp>(op)) {
    AliasKind kind =
        isa<CallFunctionOp>(op) ? AliasKind::Function : AliasKind::Method;
    for (const Alias *candidate :
         registry.lookupAliases(kind, node.getTargetName()))
      if (candidate->schemaParams) {
        alias = candidate;
        break;
      }
  }
  // `torch.ops.ns.op` / `torch.ops.ns.op.overload`: LibTorch's operator
  // itself, its overload chosen by the values (as Python's binding
  // chooses, with one-element tensors for numbers).
  std::string qualified;
  StringRef target = node.getTargetName();
  if (!alias && isa<CallFunctionOp>(op) && target.consume_front("torch.ops.")) {
    auto [ns, rest] = target.split('.');
    if (!ns.empty() && !rest.empty())
      qualified = (ns + "::" + rest).str();
  }
  // An in-place method or torch function (`x.add_(y)`, `torch.relu_(x)`),
  // which the registry does not hold: ATen's in-place operator, run on the
  // tensor itself (its other references see the update, as in eager).
  if (!alias && qualified.empty()) {
    StringRef name = target;
    if (isa<CallMethodOp>(op) ||
        (name.consume_front("torch.") && !name.contains('.'))) {
      if (isInplaceName(name))
        qualified = ("aten::" + name).str();
    }
  }
  if (alias || !qualified.empty()) {
    StringRef opName = alias ? StringRef(alias->op) : StringRef(qualified);
    if (std::optional<OperatorName> name = splitOperatorName(opName)) {
      std::vector<std::string> preferred;
      for (const OpSchema *schema : registry.getOverloads(opName))
        preferred.push_back(schema->overload);
      std::vector<c10::IValue> stack;
      std::string reason;
      if (OperatorPtr oper =
              resolveOverload(name->name, preferred, name->hasOverload, args,
                              kwargs, stack, reason))
        return runOperator(op, *oper, std::move(stack));
      if (why.empty())
        why = reason;
    }
  }
  emitNodeError(op) << why;
  return failure();
}
