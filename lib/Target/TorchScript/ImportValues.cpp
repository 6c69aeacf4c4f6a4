//===- ImportValues.cpp - TorchScript values as FX holds them -------------===//
//
// The Importer's values (Importer.h): the FX type of a TorchScript type or
// example value, the run of a node on the example inputs (evaluate), what
// FX holds for a TorchScript constant (constantOf: a literal, a dtype, a
// list or tuple of them, or a tensor stored as `_tensor_constant<n>`),
// unique node names as torch.fx gives them (uniqueName, avoiding the names
// FX reserves), the get_attr node of a piece of state, and the args of a
// call, its node references indexing the call's inputs (toArg); a
// module's hyperparameters as attributes, and the inlining of free
// function calls in a TorchScript graph.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "fx-mlir/Dialect/FX/IR/FXAttrs.h"
#include "fx-mlir/Dialect/FX/IR/FXOps.h"
#include "fx-mlir/Dialect/FX/IR/FXTypes.h"

#include "llvm/ADT/StringSet.h"

#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/ir/ir.h>

#include <cstring>
#include <set>

using namespace mlir;
using namespace mlir::fx;
using namespace mlir::fx::torchscript;

Type Importer::typeOf(const c10::TypePtr &type) {
  if (auto tensor = type->cast<c10::TensorType>()) {
    auto scalar = tensor->scalarType();
    Type element = scalar ? elementType(ctx, *scalar) : Type();
    auto rank = tensor->sizes().size();
    if (!element || !rank)
      return AnyType::get(ctx);
    SmallVector<int64_t> shape;
    for (size_t i = 0; i < *rank; ++i) {
      auto dim = tensor->sizes()[i];
      shape.push_back(dim ? *dim : ShapedType::kDynamic);
    }
    return RankedTensorType::get(shape, element);
  }
  if (type->kind() == c10::TypeKind::IntType)
    return builder.getI64Type();
  if (type->kind() == c10::TypeKind::FloatType)
    return builder.getF64Type();
  if (type->kind() == c10::TypeKind::BoolType)
    return builder.getI1Type();
  if (auto tuple = type->cast<c10::TupleType>()) {
    SmallVector<Type> elements;
    for (const auto &element : tuple->elements())
      elements.push_back(typeOf(element));
    return TupleType::get(ctx, elements);
  }
  return AnyType::get(ctx);
}

Type Importer::typeOf(const c10::IValue &value) {
  if (value.isTensor()) {
    const at::Tensor &tensor = value.toTensor();
    Type element = tensor.is_quantized()
                       ? quantizedElementType(ctx, tensor)
                       : elementType(ctx, tensor.scalar_type());
    if (!element)
      return AnyType::get(ctx);
    return RankedTensorType::get(tensor.sizes().vec(), element);
  }
  if (value.isInt())
    return builder.getI64Type();
  if (value.isDouble())
    return builder.getF64Type();
  if (value.isBool())
    return builder.getI1Type();
  if (value.isTuple()) {
    SmallVector<Type> elements;
    for (const c10::IValue &element : value.toTupleRef().elements())
      elements.push_back(typeOf(element));
    return TupleType::get(ctx, elements);
  }
  // A list of tensors (split's, broadcast_tensors') as the tuple of their
  // types, as the Python importer types it.
  if (value.isTensorList() && !value.toTensorList().empty()) {
    SmallVector<Type> elements;
    for (const at::Tensor &element : value.toTensorList().vec())
      elements.push_back(typeOf(c10::IValue(element)));
    return TupleType::get(ctx, elements);
  }
  return AnyType::get(ctx);
}

FxValue &Importer::inputValue(const torch::jit::Node *node, size_t i) {
  auto it = values.find(node->input(i));
  if (it == values.end())
    fail(node,
         "uses %" + node->input(i)->debugName() + ", which was not imported");
  return it->second;
}

Type Importer::typeOf(const torch::jit::Value *value) {
  auto joined = joinedTypes.find(value);
  if (joined != joinedTypes.end())
    return joined->second;
  auto it = concrete.find(value);
  if (it != concrete.end())
    return typeOf(it->second);
  return typeOf(value->type());
}

void Importer::evaluate(torch::jit::Node *node, bool runMethod) {
  using namespace torch::jit;
  // `warnings.warn` makes nothing (and LibTorch runs it in its
  // interpreter only).
  if (node->kind() == aten::warn)
    return;
  // Inside control flow, the simulation (ImportControlFlow.cpp) ran it.
  if (concrete.empty() || (controlDepth && !simulating))
    return;
  std::vector<c10::IValue> inputs;
  for (const torch::jit::Value *input : node->inputs()) {
    auto it = concrete.find(input);
    if (it == concrete.end())
      return forgetOutputs(node);
    inputs.push_back(it->second);
  }
  std::vector<c10::IValue> outputs;
  try {
    if (node->kind() == prim::Constant) {
      outputs.push_back(*toIValue(node->output()));
    } else if (node->kind() == prim::GetAttr) {
      // A list attribute is read as a copy: the run must not change the
      // module (swin's `shift_size[0] = 0` writes the list it is given).
      c10::IValue attribute =
          inputs[0].toObjectRef().getAttr(node->s(attr::name));
      outputs.push_back(attribute.isList()
                            ? c10::IValue(attribute.toList().copy())
                            : attribute);
    } else if (node->kind() == prim::CallMethod) {
      // Only a leaf call runs the method; a walked-into call gets its
      // results from the walk (see inlineMethod).
      if (!runMethod)
        return;
      Method method = inputs[0].toModule().get_method(node->s(attr::name));
      c10::IValue result =
          method(std::vector<c10::IValue>(inputs.begin() + 1, inputs.end()));
      outputs.push_back(result);
    } else if (node->kind() == prim::TupleConstruct) {
      outputs.push_back(c10::ivalue::Tuple::create(inputs));
    } else if (node->kind() == prim::ListConstruct) {
      auto list =
          c10::impl::GenericList(node->output()->type()->containedType(0));
      for (const c10::IValue &element : inputs)
        list.push_back(element);
      outputs.push_back(list);
    } else if (node->kind() == prim::TupleUnpack) {
      for (const c10::IValue &element : inputs[0].toTupleRef().elements())
        outputs.push_back(element);
    } else if (node->kind() == prim::ListUnpack) {
      for (const c10::IValue &element : inputs[0].toListRef())
        outputs.push_back(element);
    } else if (node->kind() == prim::TupleIndex) {
      auto elements = inputs[0].toTupleRef().elements();
      int64_t i = inputs[1].toInt();
      outputs.push_back(elements.at(i < 0 ? i + elements.size() : i));
    } else if (node->blocks().empty() && node->maybeOperator()) {
      Stack stack(inputs.begin(), inputs.end());
      // A vararg operator (`aten::format(str self, ...)`) pops how many
      // inputs it has, which TorchScript's interpreter pushes after them.
      if (const c10::FunctionSchema *schema = node->maybeSchema();
          schema && schema->is_vararg())
        stack.emplace_back(int64_t(inputs.size()));
      node->getOperation()(stack);
      outputs.assign(stack.end() - node->outputs().size(), stack.end());
    } else {
      return forgetOutputs(node);
    }
  } catch (const std::exception &error) {
    // A branch not taken runs only to find its types: what fails there is
    // not the model's error (it may check what the branch taken excludes).
    if (speculative)
      return forgetOutputs(node);
    // LibTorch's message may hold a TorchScript traceback; its last line
    // says what went wrong.
    llvm::StringRef message = error.what();
    if (auto *c10Error = dynamic_cast<const c10::Error *>(&error))
      message = c10Error->what_without_backtrace();
    SmallVector<llvm::StringRef> lines;
    message.trim().split(lines, '\n', -1, /*KeepEmpty=*/false);
    llvm::StringRef reason = lines.empty() ? "" : lines.back().trim();
    for (llvm::StringRef line : lines)
      if (line.trim().starts_with("RuntimeError: "))
        reason = line.trim().drop_front(strlen("RuntimeError: "));
    std::string callee;
    if (node->kind() == prim::CallMethod && values.count(node->input(0)))
      callee = " (module '" + values.at(node->input(0)).path + "')";
    fail(node, "running it on the example inputs failed" + callee + ": " +
                   reason.str());
  }

  for (size_t i = 0; i < outputs.size() && i < node->outputs().size(); ++i)
    concrete[node->outputs()[i]] = outputs[i];
}

void Importer::forgetOutputs(const torch::jit::Node *node) {
  for (const torch::jit::Value *output : node->outputs())
    concrete.erase(output);
}

FxValue Importer::constantOf(const c10::IValue &value,
                             const torch::jit::Node *node,
                             const c10::TypePtr &declaredType) {
  auto seq = [&](auto &&list, FxValue::Kind kind) {
    FxValue r;
    r.kind = kind;
    for (c10::IValue element : list)
      r.elements.push_back(constantOf(element, node));
    return r;
  };
  if (value.isNone())
    return FxValue::ofConstant(NoneAttr::get(ctx));
  if (value.isBool())
    return FxValue::ofConstant(builder.getBoolAttr(value.toBool()));
  if (value.isInt()) {
    int64_t v = value.toInt();
    // `ScalarType? dtype`: the int is a dtype too.
    c10::TypePtr realType = declaredType;
    if (realType && realType->kind() == c10::TypeKind::OptionalType)
      realType = realType->expectRef<c10::OptionalType>().getElementType();
    if (realType && realType->kind() == c10::TypeKind::ScalarTypeType) {
      auto scalarType = static_cast<c10::ScalarType>(v);
      llvm::StringRef name = dtypeName(scalarType);
      if (scalarType == c10::ScalarType::QUInt8)
        name = "quint8";
      else if (scalarType == c10::ScalarType::QInt8)
        name = "qint8";
      else if (scalarType == c10::ScalarType::QInt32)
        name = "qint32";
      if (!name.empty())
        return FxValue::ofConstant(DTypeAttr::get(ctx, name));
    }
    if (realType && realType->kind() == c10::TypeKind::MemoryFormatType) {
      switch (static_cast<c10::MemoryFormat>(v)) {
      case c10::MemoryFormat::Contiguous:
        return FxValue::ofConstant(
            MemoryFormatAttr::get(ctx, "contiguous_format"));
      case c10::MemoryFormat::Preserve:
        return FxValue::ofConstant(
            MemoryFormatAttr::get(ctx, "preserve_format"));
      case c10::MemoryFormat::ChannelsLast:
        return FxValue::ofConstant(MemoryFormatAttr::get(ctx, "channels_last"));
      case c10::MemoryFormat::ChannelsLast3d:
        return FxValue::ofConstant(
            MemoryFormatAttr::get(ctx, "channels_last_3d"));
      default:
        break;
      }
    }
    if (realType && realType->kind() == c10::TypeKind::LayoutType &&
        v == static_cast<int64_t>(c10::Layout::Strided))
      return FxValue::ofConstant(LayoutAttr::get(ctx, "strided"));
    return FxValue::ofConstant(builder.getI64IntegerAttr(v));
  }
  if (value.isDouble())
    return FxValue::ofConstant(builder.getF64FloatAttr(value.toDouble()));
  if (value.isComplexDouble()) {
    c10::complex<double> c = value.toComplexDouble();
    return FxValue::ofConstant(ComplexAttr::get(ctx, llvm::APFloat(c.real()),
                                                llvm::APFloat(c.imag())));
  }
  if (value.isString())
    return FxValue::ofConstant(builder.getStringAttr(value.toStringRef()));
  if (value.isDevice())
    return FxValue::ofConstant(DeviceAttr::get(ctx, value.toDevice().str()));
  if (value.isIntList())
    return seq(value.toIntVector(), FxValue::List);
  if (value.isDoubleList())
    return seq(value.toDoubleVector(), FxValue::List);
  if (value.isBoolList()) {
    FxValue r;
    r.kind = FxValue::List;
    for (bool b : value.toBoolList())
      r.elements.push_back(FxValue::ofConstant(builder.getBoolAttr(b)));
    return r;
  }
  if (value.isList())
    return seq(value.toListRef(), FxValue::List);
  if (value.isTuple())
    return seq(value.toTupleRef().elements(), FxValue::Tuple);
  if (value.isGenericDict()) {
    // A module's dict of constants (IntermediateLayerGetter's
    // `return_layers`): held, for operators at constant keys.
    FxValue r;
    r.kind = FxValue::Dict;
    for (const auto &entry : value.toGenericDict()) {
      FxValue key = constantOf(entry.key(), node);
      if (key.kind != FxValue::Constant ||
          !isa<StringAttr, IntegerAttr>(key.constant))
        fail(node, "reads a dict whose keys are not strings or ints");
      r.keys.push_back(key.constant);
      r.elements.push_back(constantOf(entry.value(), node));
    }
    return r;
  }
  if (value.isTensor()) {
    // A tensor literal becomes a constant of the module, read by get_attr
    // (as symbolic tracing stores `_tensor_constant0`).
    std::string path = "_tensor_constant" + std::to_string(tensorConstants++);
    declareState(path, value.toTensor(), StateKind::Constant);
    FxValue r;
    r.kind = FxValue::State;
    r.path = path;
    return r;
  }
  fail(node, "cannot represent the constant of type " +
                 value.type()->annotation_str() + " in an FX graph");
}

/// Names torch.fx does not give a node (torch.fx.graph._Namespace): Python's
/// keywords and builtins, and the globals of the code it generates.
static bool isReservedByFx(llvm::StringRef name) {
  static const llvm::StringSet<> reserved = {
      "ArithmeticError",
      "AssertionError",
      "AttributeError",
      "BaseException",
      "BaseExceptionGroup",
      "BlockingIOError",
      "BrokenPipeError",
      "BufferError",
      "BytesWarning",
      "ChildProcessError",
      "ConnectionAbortedError",
      "ConnectionError",
      "ConnectionRefusedError",
      "ConnectionResetError",
      "DeprecationWarning",
      "EOFError",
      "Ellipsis",
      "EncodingWarning",
      "EnvironmentError",
      "Exception",
      "ExceptionGroup",
      "False",
      "FileExistsError",
      "FileNotFoundError",
      "FloatingPointError",
      "FutureWarning",
      "GeneratorExit",
      "IOError",
      "ImportError",
      "ImportWarning",
      "IndentationError",
      "IndexError",
      "InterruptedError",
      "IsADirectoryError",
      "KeyError",
      "KeyboardInterrupt",
      "LookupError",
      "MemoryError",
      "ModuleNotFoundError",
      "NameError",
      "None",
      "NoneType",
      "NotADirectoryError",
      "NotImplemented",
      "NotImplementedError",
      "OSError",
      "OverflowError",
      "PendingDeprecationWarning",
      "PermissionError",
      "ProcessLookupError",
      "RecursionError",
      "ReferenceError",
      "ResourceWarning",
      "RuntimeError",
      "RuntimeWarning",
      "StopAsyncIteration",
      "StopIteration",
      "SyntaxError",
      "SyntaxWarning",
      "SystemError",
      "SystemExit",
      "TabError",
      "TimeoutError",
      "True",
      "TypeError",
      "UnboundLocalError",
      "UnicodeDecodeError",
      "UnicodeEncodeError",
      "UnicodeError",
      "UnicodeTranslateError",
      "UnicodeWarning",
      "UserWarning",
      "ValueError",
      "Warning",
      "ZeroDivisionError",
      "__build_class__",
      "__debug__",
      "__doc__",
      "__import__",
      "__loader__",
      "__name__",
      "__package__",
      "__pybind11_internals_v4_gcc_libstdcpp_cxxabi1017__",
      "__spec__",
      "abs",
      "aiter",
      "all",
      "and",
      "anext",
      "any",
      "as",
      "ascii",
      "assert",
      "async",
      "await",
      "bin",
      "bool",
      "break",
      "breakpoint",
      "bytearray",
      "bytes",
      "callable",
      "chr",
      "class",
      "classmethod",
      "compile",
      "complex",
      "continue",
      "copyright",
      "credits",
      "def",
      "del",
      "delattr",
      "device",
      "dict",
      "dir",
      "divmod",
      "elif",
      "else",
      "enumerate",
      "eval",
      "except",
      "exec",
      "exit",
      "filter",
      "finally",
      "float",
      "for",
      "format",
      "from",
      "frozenset",
      "fx_pytree",
      "getattr",
      "global",
      "globals",
      "hasattr",
      "hash",
      "help",
      "hex",
      "id",
      "if",
      "import",
      "in",
      "inf",
      "input",
      "int",
      "is",
      "isinstance",
      "issubclass",
      "iter",
      "lambda",
      "len",
      "license",
      "list",
      "locals",
      "map",
      "max",
      "memoryview",
      "min",
      "nan",
      "next",
      "nonlocal",
      "not",
      "object",
      "oct",
      "open",
      "or",
      "ord",
      "pass",
      "pow",
      "print",
      "property",
      "pytree",
      "quit",
      "raise",
      "range",
      "repr",
      "return",
      "reversed",
      "round",
      "set",
      "setattr",
      "slice",
      "sorted",
      "staticmethod",
      "str",
      "sum",
      "super",
      "torch",
      "try",
      "tuple",
      "type",
      "vars",
      "while",
      "with",
      "yield",
      "zip",
  };
  return reserved.contains(name);
}

std::string Importer::uniqueName(llvm::StringRef base) {
  std::string name = sanitizeName(base);
  unsigned &count = nameCounts[name];
  // As torch.fx names a node that would shadow `sum`: `sum_1`.
  if (!count && isReservedByFx(name))
    count = 1;
  std::string unique = count ? name + "_" + std::to_string(count) : name;
  ++count;
  // A generated `relu_1` may itself be taken by a node named `relu_1`.
  while (nameCounts.count(unique) && unique != name)
    unique = name + "_" + std::to_string(count++);
  if (unique != name)
    nameCounts[unique] = 1;
  return unique;
}

mlir::Value Importer::stateNode(const std::string &path,
                                const torch::jit::Node *node) {
  auto it = stateNodes.find(path);
  if (it != stateNodes.end())
    return it->second;
  std::string name = uniqueName(path);
  auto state = graphModule.lookupSymbol<StateOp>(path);
  Type type = state ? state.getType() : AnyType::get(ctx);
  auto op = GetAttrOp::create(builder, nodeLoc(name, node), type, name, path);
  stateNodes[path] = op.getResult();
  return op.getResult();
}

/// `self.b = value` (prim::SetAttr) of a buffer, in the forward graph
/// itself: the buffer's later reads are `value`, and an `aten::copy_` into
/// a get_attr of its own writes it into the buffer (which fx_mlir.compile
/// writes back into the module after each call; reads made before keep the
/// old value). `self.b += x` of a tensor is an in-place update the graph
/// holds already, then the same assignment. Other attributes, and
/// assignments inside control flow, cannot be.
void Importer::importSetAttr(torch::jit::Node *node) {
  FxValue base = inputValue(node, 0);
  const std::string &field = node->s(torch::jit::attr::name);
  if (base.kind != FxValue::Module)
    fail(node,
         "assigns attribute '" + field + "' of a value that is not a module");
  std::string path = join(base.path, field);
  auto type = base.module.type();
  auto slot = type->findAttributeSlot(field);
  if (!slot || !type->is_buffer(*slot) ||
      !base.module._ivalue()->getSlot(*slot).isTensor())
    fail(node, "assigns attribute '" + path +
                   "', which is not a buffer: only buffers may be "
                   "assigned in a compiled forward");
  if (graphOp != forwardGraph)
    fail(node, "assigns buffer '" + path +
                   "' inside control flow, which compiled code cannot");
  mlir::Value value = asNode(inputValue(node, 1), node);
  if (!value)
    fail(node, "assigns buffer '" + path + "' a value that is not a tensor");
  declareState(path, base.module._ivalue()->getSlot(*slot).toTensor(),
               StateKind::Buffer);
  // Reads of the buffer made before (`old = self.b`, imported when used)
  // read the get_attr made now, before the assignment.
  (void)stateNode(path, node);
  auto state = graphModule.lookupSymbol<StateOp>(path);
  if (state && isa<RankedTensorType>(value.getType()) &&
      value.getType() != state.getType()) {
    std::string was, now;
    llvm::raw_string_ostream(was) << state.getType();
    llvm::raw_string_ostream(now) << value.getType();
    fail(node, "assigns buffer '" + path + "' (" + was +
                   ") a tensor of another type (" + now +
                   "); a compiled graph keeps its buffers' shapes and dtypes");
  }
  std::string name = uniqueName(path);
  mlir::Value buffer =
      GetAttrOp::create(builder, nodeLoc(name, node),
                        state ? state.getType() : Type(AnyType::get(ctx)), name,
                        path)
          .getResult();
  callNode("copy_", "aten::copy_",
           {FxValue::ofNode(buffer), FxValue::ofNode(value)}, buffer.getType(),
           node);
  assignedState[path] = FxValue::ofNode(value);
}

mlir::Value Importer::asNode(const FxValue &value,
                             const torch::jit::Node *node) {
  if (value.kind == FxValue::Node)
    return value.node;
  if (value.kind == FxValue::State)
    return stateNode(value.path, node);
  return {};
}

Attribute Importer::toArg(const FxValue &value,
                          SmallVectorImpl<mlir::Value> &inputs,
                          const torch::jit::Node *node) {
  switch (value.kind) {
  case FxValue::Constant:
    return value.constant;
  case FxValue::Node:
  case FxValue::State: {
    mlir::Value v = asNode(value, node);
    auto it = llvm::find(inputs, v);
    if (it != inputs.end())
      return NodeAttr::get(ctx, it - inputs.begin());
    inputs.push_back(v);
    return NodeAttr::get(ctx, inputs.size() - 1);
  }
  case FxValue::List:
  case FxValue::Tuple: {
    SmallVector<Attribute> elements;
    for (const FxValue &element : value.elements)
      elements.push_back(toArg(element, inputs, node));
    if (value.kind == FxValue::List)
      return ListAttr::get(ctx, elements);
    return TupleAttr::get(ctx, elements);
  }
  case FxValue::Dict: {
    SmallVector<Attribute> elements;
    for (const FxValue &element : value.elements)
      elements.push_back(toArg(element, inputs, node));
    return DictAttr::get(ctx, value.keys, elements);
  }
  case FxValue::Module:
    fail(node, "module '" + value.path +
                   "' is used as a value, which FX cannot represent");
  case FxValue::Packed:
    fail(node, "attribute '" + value.path +
                   "' holds packed quantized weights, read here other "
                   "than by a quantized linear or conv operator, which FX "
                   "cannot represent");
  case FxValue::Stacked:
    fail(node, "reads a list of tensors a loop appended to other than by "
               "torch.stack(list), torch.cat(list) or len(list), which a "
               "compiled loop cannot carry");
  }
  llvm_unreachable("covered switch");
}

mlir::Value Importer::getitem(mlir::Value of, int64_t index, Type type,
                              const torch::jit::Node *node) {
  std::string name = uniqueName("getitem");
  auto args = builder.getArrayAttr(
      {NodeAttr::get(ctx, 0), builder.getI64IntegerAttr(index)});
  return CallFunctionOp::create(builder, nodeLoc(name, node), type, name,
                                "operator.getitem", args, DictAttr::get(ctx),
                                ValueRange{of})
      .getResult();
}

DictAttr Importer::hyperparameters(const std::string &path,
                                   const torch::jit::Module &module) {
  // The module's plain attributes (scripted modules keep their
  // constructor constants; traced ones keep none).
  SmallVector<Attribute> keys, hparams;
  auto type = module.type();
  auto add = [&](const std::string &name, const c10::IValue &v) {
    if (!(v.isNone() || v.isBool() || v.isInt() || v.isDouble() ||
          v.isString() || v.isIntList() || v.isDoubleList() || v.isBoolList() ||
          v.isTuple()))
      return;
    SmallVector<mlir::Value> noInputs;
    // A module's `dtype` (a dynamic quantized RNN's) is a ScalarType.
    Attribute value = toArg(
        constantOf(v, nullptr,
                   name == "dtype" ? c10::TypePtr(c10::ScalarTypeType::get())
                                   : c10::TypePtr()),
        noInputs, nullptr);
    // A scripted module's attribute comes first; what the quantized
    // module's packed params say of it (a Linear's in_features) is the
    // same.
    if (!noInputs.empty() || !isConstantValue(value) ||
        llvm::is_contained(keys, builder.getStringAttr(name)))
      return;
    keys.push_back(builder.getStringAttr(name));
    hparams.push_back(value);
  };
  // Scripted modules keep their `__constants__` (stride, padding, ...).
  // Their order is not kept by scripting; sort them to be deterministic.
  // A conv (not transposed; float or quantized) keeps `transposed` and
  // `output_padding`, which its constructor sets itself and does not
  // take: left out, so that the module rebuilds from its hyperparameters.
  std::string typeName = pythonTypeName(module);
  bool plainConv = llvm::StringRef(typeName).contains(".Conv") &&
                   !llvm::StringRef(typeName).contains("ConvTranspose");
  // A dynamic quantized LSTM or GRU passes its `mode` to RNNBase itself
  // and sets `version`: its constructor takes RNNBase's other arguments.
  bool dynamicRecurrent = isDynamicRecurrentType(typeName);
  auto setByConstructor = [&](llvm::StringRef name) {
    return (plainConv && (name == "transposed" || name == "output_padding")) ||
           (dynamicRecurrent && (name == "mode" || name == "version"));
  };
  std::vector<std::string> constantNames(type->constantNames().begin(),
                                         type->constantNames().end());
  llvm::sort(constantNames);
  for (const std::string &name : constantNames)
    if (!setByConstructor(name))
      add(name, type->getConstant(name));
  for (size_t i = 0; i < type->numAttributes(); ++i) {
    const std::string &name = type->getAttributeName(i);
    if (!isHyperparameterSlot(module, i) || setByConstructor(name))
      continue;
    add(name, module._ivalue()->getSlot(i));
  }
  if (isQuantizedModuleType(pythonTypeName(module)))
    declareQuantizedModule(path, module, add);
  return DictAttr::get(ctx, keys, hparams);
}

/// Inlines every call of a free TorchScript function in `graph`
/// (prim::CallFunction of a function constant: `helper(x)` in a scripted
/// forward, torchvision's `box_iou`), as TorchScript's inliner does, and
/// keeps method calls, which the importer walks into with their module
/// paths. A callee's own calls are inlined in the next round; function
/// constants nothing calls any more (a callee's graph keeps those of the
/// calls TorchScript inlined into it) go.
void mlir::fx::torchscript::inlineFunctionCalls(torch::jit::Graph &graph) {
  for (int round = 0; round < 64; ++round) {
    std::vector<torch::jit::Node *> calls, unused;
    std::function<void(torch::jit::Block *)> collect =
        [&](torch::jit::Block *block) {
          for (torch::jit::Node *node : block->nodes()) {
            for (torch::jit::Block *inner : node->blocks())
              collect(inner);
            if (node->kind() == c10::prim::CallFunction)
              calls.push_back(node);
            else if (node->kind() == c10::prim::Constant &&
                     node->output()->type()->cast<c10::FunctionType>() &&
                     !node->hasUses())
              unused.push_back(node);
          }
        };
    collect(graph.block());
    for (torch::jit::Node *constant : unused)
      constant->destroy();
    bool changed = false;
    for (torch::jit::Node *call : calls) {
      auto type = call->input(0)->type()->cast<c10::FunctionType>();
      torch::jit::GraphFunction *callee =
          type ? torch::jit::tryToGraphFunction(*type->function()) : nullptr;
      if (!callee)
        continue;
      torch::jit::Node *constant = call->input(0)->node();
      call->removeInput(0);
      torch::jit::inlineCallTo(call, callee);
      if (constant->kind() == c10::prim::Constant && !constant->hasUses())
        constant->destroy();
      changed = true;
    }
    if (!changed)
      return;
  }
}

void mlir::fx::torchscript::scalarizeConstantOperands(
    torch::jit::Block *block) {
  static const char *const schemas[] = {
      "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> "
      "Tensor",
      "aten::sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> "
      "Tensor",
      "aten::mul.Tensor(Tensor self, Tensor other) -> Tensor",
      "aten::div.Tensor(Tensor self, Tensor other) -> Tensor",
  };
  std::vector<torch::jit::Node *> rewritten;
  for (torch::jit::Node *node : block->nodes()) {
    for (torch::jit::Block *inner : node->blocks())
      scalarizeConstantOperands(inner);
    if (!llvm::any_of(
            schemas, [&](const char *schema) { return node->matches(schema); }))
      continue;
    std::optional<c10::IValue> other = torch::jit::toIValue(node->input(1));
    if (!other || !other->isTensor() || other->toTensor().dim() != 0 ||
        other->toTensor().is_quantized())
      continue;
    // A new node, as LibTorch makes: a node keeps the operator it resolved.
    torch::jit::Graph *graph = node->owningGraph();
    torch::jit::WithInsertPoint point(node);
    std::vector<torch::jit::Value *> inputs = node->inputs().vec();
    inputs[1] = graph->insertConstant(other->toTensor().item());
    torch::jit::Node *scalar =
        graph->insertNode(graph->create(node->kind(), inputs));
    scalar->copyMetadata(node);
    scalar->output()->copyMetadata(node->output());
    node->output()->replaceAllUsesWith(scalar->output());
    rewritten.push_back(node);
  }
  for (torch::jit::Node *node : rewritten) {
    torch::jit::Node *constant = node->input(1)->node();
    node->destroy();
    if (!constant->hasUses())
      constant->destroy();
  }
}

/// Moves each read of an attribute of `self` (the graph's first input)
/// that the graph assigns (prim::SetAttr in its own block) or updates in
/// place (an in-place ATen operator in its block on a read of it) out of the
/// control flow that holds it, to just before the control-flow node of the
/// graph's block: a branch or loop body then reads the attribute's value
/// as an input from outside, the value the import tracks (the assigned
/// one, or a buffer fx_mlir.compile passes in and writes back), not a
/// constant of the module's state when it was imported. Assignments being
/// in the graph's block only, the attribute cannot change inside the
/// control flow, and the read moved reads what it read before.
static void hoistAssignedAttributeReads(torch::jit::Graph &graph) {
  if (graph.inputs().empty())
    return;
  torch::jit::Value *self = graph.inputs()[0];
  std::set<std::string> assigned;
  for (torch::jit::Node *node : graph.block()->nodes()) {
    if (node->kind() == c10::prim::SetAttr && node->input(0) == self)
      assigned.insert(node->s(torch::jit::attr::name));
    // An attribute updated in place (`self.acc.add_(x)`, aten::add_ of the
    // attribute read): its reads inside control flow must see the update.
    if (node->kind().is_aten() && !node->inputs().empty()) {
      std::string name = node->kind().toUnqualString();
      torch::jit::Node *read = node->input(0)->node();
      if (name.size() > 1 && name.back() == '_' && name.front() != '_' &&
          read->kind() == c10::prim::GetAttr && read->input(0) == self)
        assigned.insert(read->s(torch::jit::attr::name));
    }
  }
  if (assigned.empty())
    return;
  for (torch::jit::Node *top : graph.block()->nodes()) {
    if (top->blocks().empty())
      continue;
    std::vector<torch::jit::Node *> reads;
    std::function<void(torch::jit::Block *)> collect =
        [&](torch::jit::Block *block) {
          for (torch::jit::Node *node : block->nodes()) {
            for (torch::jit::Block *inner : node->blocks())
              collect(inner);
            if (node->kind() == c10::prim::GetAttr && node->input(0) == self &&
                assigned.count(node->s(torch::jit::attr::name)))
              reads.push_back(node);
          }
        };
    for (torch::jit::Block *block : top->blocks())
      collect(block);
    for (torch::jit::Node *read : reads)
      read->moveBefore(top);
  }
}

void mlir::fx::torchscript::prepareGraph(torch::jit::Graph &graph) {
  inlineFunctionCalls(graph);
  scalarizeConstantOperands(graph.block());
  hoistAssignedAttributeReads(graph);
}
