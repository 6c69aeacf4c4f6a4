//===- ImportTorchScript.cpp - LibTorch .pt archives to fx IR -------------===//
//
// The importer walks the TorchScript graph of `forward`, keeping for every
// TorchScript value what FX would hold for it: a node, a constant, a
// list/tuple of such values (prim::ListConstruct and friends fold into the
// args of their users), a module, or a piece of module state. Calls of leaf
// modules become fx.call_module; other calls are walked into, as a tracer
// walks into the forward of a non-leaf module. Here: the diagnostics,
// module state, the graph walk and the entry points (the archive check
// that runs before LibTorch's loader is ArchiveCheck.cpp); the
// values themselves (types, example values, constants, node names, call
// args) are in ImportValues.cpp.
//
//===----------------------------------------------------------------------===//

#include "fx-mlir/Target/TorchScript/ImportTorchScript.h"
#include "ArchiveCheck.h"
#include "Importer.h"
#include "fx-mlir/Dialect/FX/IR/FXAttrs.h"
#include "fx-mlir/Dialect/FX/IR/FXDialect.h"
#include "fx-mlir/Dialect/FX/IR/FXLocation.h"
#include "fx-mlir/Dialect/FX/IR/FXOps.h"
#include "fx-mlir/Dialect/FX/IR/FXTypes.h"
#include "fx-mlir/Support/Blobs.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/SourceMgr.h"

#include <ATen/Functions.h>
#include <caffe2/serialize/read_adapter_interface.h>
#include <torch/csrc/jit/api/function_impl.h>
#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/serialization/import.h>

#include <c10/core/CPUAllocator.h>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <malloc.h>
#include <map>
#include <mutex>
#include <sstream>
#include <unordered_map>

using namespace mlir;
using namespace mlir::fx;

namespace mlir::fx::torchscript {

std::string join(llvm::StringRef prefix, llvm::StringRef name) {
  return prefix.empty() ? name.str() : (prefix + "." + name).str();
}

llvm::StringRef className(llvm::StringRef qualified) {
  return qualified.rsplit('.').second.empty() ? qualified
                                              : qualified.rsplit('.').second;
}

/// FX's dtype names for c10 scalar types (DTypes.def); "" for the others.
llvm::StringRef dtypeName(c10::ScalarType type) {
#define FX_DTYPE(NAME, ELEMENT_TYPE, BYTES, SCALAR_TYPE, NPY)                  \
  if (type == c10::ScalarType::SCALAR_TYPE)                                    \
    return #NAME;
#include "fx-mlir/Dialect/FX/IR/DTypes.def"
  return "";
}

Type elementType(MLIRContext *ctx, c10::ScalarType type) {
  llvm::StringRef name = dtypeName(type);
  return name.empty() ? Type() : getDTypeElementType(ctx, name);
}

/// A Python-identifier node name from a TorchScript debug name or op name:
/// `x.1` -> `x`, `layer1.0.conv1` -> `layer1_0_conv1`, `aten::relu` -> `relu`.
std::string sanitizeName(llvm::StringRef name) {
  if (name.contains("::"))
    name = name.rsplit("::").second;
  std::string out;
  for (char c : name)
    out.push_back(llvm::isAlnum(c) || c == '_' ? c : '_');
  // `__getitem__` -> `getitem`, as FX names operator.getitem nodes.
  llvm::StringRef trimmed = llvm::StringRef(out).trim('_');
  if (!trimmed.empty() && llvm::StringRef(out).starts_with("__"))
    out = trimmed.str();
  if (out.empty() || llvm::isDigit(out[0]))
    out = "_" + out;
  return out;
}

std::string dropUniquingSuffix(llvm::StringRef debugName) {
  auto [base, suffix] = debugName.rsplit('.');
  if (!suffix.empty() && llvm::all_of(suffix, llvm::isDigit) && !base.empty())
    return base.str();
  return debugName.str();
}

} // namespace mlir::fx::torchscript

using namespace mlir::fx::torchscript;

//===----------------------------------------------------------------------===//
// Diagnostics
//===----------------------------------------------------------------------===//

Location Importer::sourceLoc(const torch::jit::Node *node) {
  if (node) {
    auto fileLineCol = node->sourceRange().file_line_col();
    if (fileLineCol && !std::get<0>(*fileLineCol).empty())
      return FileLineColLoc::get(ctx, std::get<0>(*fileLineCol),
                                 std::get<1>(*fileLineCol),
                                 std::get<2>(*fileLineCol) + 1);
  }
  return FileLineColLoc::get(ctx, fileName, 0, 0);
}

Location Importer::nodeLoc(llvm::StringRef name, const torch::jit::Node *node) {
  return getNodeLoc(ctx, name, modulePathStack.back(), sourceLoc(node));
}

void Importer::fail(const torch::jit::Node *node, const llvm::Twine &msg) {
  std::string where;
  if (node) {
    where = "node '" + std::string(node->kind().toQualString()) + "'";
    if (node->outputs().size() == 1)
      where += " (%" + node->output()->debugName() + ")";
    if (!modulePathStack.back().empty())
      where += " in module '" + modulePathStack.back() + "'";
    where += ": ";
  }
  emitError(sourceLoc(node)) << where << msg;
  throw ImportFailure();
}

//===----------------------------------------------------------------------===//
// State and submodules
//===----------------------------------------------------------------------===//

void Importer::declareState(const std::string &path, const at::Tensor &tensor,
                            StateKind kind, bool fromArchive) {
  if (!declaredState.insert(path).second)
    return;
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(forwardGraph);
  Type element = tensor.is_quantized() ? quantizedElementType(ctx, tensor)
                                       : elementType(ctx, tensor.scalar_type());
  if (!element)
    fail(nullptr, "state '" + path + "' has dtype " +
                      std::string(c10::toString(tensor.scalar_type())) +
                      ", which the fx dialect does not hold");
  // The archive's metadata (sizes, strides, offset) is checked against
  // its storage before a byte is read: torch::jit::load does not, and a
  // storage cut short (or empty) would be read past its end.
  if (tensor.numel() > 0) {
    if (!tensor.has_storage() || tensor.layout() != at::kStrided)
      fail(nullptr, "state '" + path + "' is not a dense tensor");
    uint64_t last = uint64_t(tensor.storage_offset());
    bool overflow = tensor.storage_offset() < 0;
    for (int64_t d = 0; d < tensor.dim(); ++d) {
      if (tensor.stride(d) < 0)
        overflow = true;
      uint64_t step;
      overflow |= __builtin_mul_overflow(uint64_t(tensor.size(d) - 1),
                                         uint64_t(tensor.stride(d)), &step);
      overflow |= __builtin_add_overflow(last, step, &last);
    }
    uint64_t needed;
    overflow |= __builtin_mul_overflow(
        last + 1, uint64_t(tensor.element_size()), &needed);
    // The storage's size is the one the pickle declares. LibTorch read a
    // stored record into the allocation the storage owns, and the reader
    // saw how many bytes that read wrote; a compressed record (which no
    // PyTorch writer makes) is bounded by the allocation's usable size,
    // within malloc's rounding.
    uint64_t held = tensor.storage().nbytes();
    const void *data = tensor.storage().data();
    static const auto cpuDeleter =
        c10::GetCPUAllocator()->allocate(1).get_deleter();
    if (!data)
      held = 0;
    else if (tensor.storage().data_ptr().get_deleter() == cpuDeleter) {
      held = std::min<uint64_t>(held,
                                malloc_usable_size(const_cast<void *>(data)));
      if (std::optional<size_t> read =
              fromArchive ? reader.bytesAt(data) : std::nullopt)
        held = std::min<uint64_t>(held, *read);
    }
    if (overflow || needed > held || !data)
      fail(nullptr,
           "state '" + path + "': its sizes, strides and offset " + "need " +
               (overflow ? "more than 2^64" : std::to_string(needed)) +
               " bytes of storage, the archive holds " + std::to_string(held));
  }
  auto type = RankedTensorType::get(tensor.sizes().vec(), element);
  Location loc = getNodeLoc(ctx, path, "", sourceLoc(nullptr));
  const c10::TensorImpl *impl = tensor.unsafeGetTensorImpl();
  auto first = firstNameOfTensor.find(impl);
  if (first != firstNameOfTensor.end()) {
    StateOp::create(builder, loc, kind, path, type, ElementsAttr(),
                    FlatSymbolRefAttr::get(ctx, first->second));
  } else {
    firstNameOfTensor[impl] = path;
    declaredTensors.push_back(tensor);
    // A quantized tensor's blob holds its storage integers.
    at::Tensor contiguous = (tensor.is_quantized() ? tensor.int_repr() : tensor)
                                .detach()
                                .contiguous();
    // A tensor of no elements may have no storage (a null data pointer).
    const char *data = static_cast<const char *>(contiguous.data_ptr());
    auto blob = copiedBlob(ArrayRef<char>(data, data ? contiguous.nbytes() : 0),
                           contiguous.element_size());
    auto value = DenseResourceElementsAttr::get(type, path, std::move(blob));
    StateOp::create(builder, loc, kind, path, type, value, nullptr);
  }
}

void Importer::declareModule(const std::string &path,
                             const torch::jit::Module &module) {
  if (!declaredModules.insert(path).second)
    return;
  {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPoint(forwardGraph);
    SubmoduleOp::create(builder,
                        getNodeLoc(ctx, path, path, sourceLoc(nullptr)), path,
                        pythonTypeName(module), hyperparameters(path, module),
                        module.is_training());
  }
  // Its own state and submodules, as a leaf module owns them. A quantized
  // module with packed params holds its weight and bias there (unpacked
  // above; its children hold the packed params); one without (a quantized
  // LayerNorm, BatchNorm2d, InstanceNorm) keeps its float weight, bias and
  // running statistics as its own, as the FX importer declares them.
  bool quantized = isQuantizedModuleType(pythonTypeName(module));
  if (quantized && module.hasattr("_packed_params"))
    return;
  for (const auto &p : module.named_parameters(/*recurse=*/false))
    declareState(join(path, p.name), p.value, StateKind::Parameter);
  for (const auto &b : module.named_buffers(/*recurse=*/false))
    declareState(join(path, b.name), b.value, StateKind::Buffer);
  if (quantized)
    return;
  for (const auto &child : module.named_children())
    declareModule(join(path, child.name), child.value);
}

//===----------------------------------------------------------------------===//
// Graph walk
//===----------------------------------------------------------------------===//

bool Importer::isLeaf(const torch::jit::Module &module) {
  if (options.inlineAll)
    return false;
  std::string type = pythonTypeName(module);
  auto named = [&](const std::vector<std::string> &list) {
    return llvm::any_of(list, [&](const std::string &entry) {
      return entry == type || entry == className(type);
    });
  };
  if (named(options.leafTypes))
    return true;
  if (named(options.inlineTypes))
    return false;
  // Quantized modules run packed weights FX cannot hold: leaves.
  if (isQuantizedModuleType(type))
    return true;
  // torch.fx's default: torch.nn modules are leaves, except containers.
  static const char *containers[] = {"Sequential", "ModuleList", "ModuleDict",
                                     "Module"};
  if (!llvm::StringRef(type).starts_with("torch.nn.") ||
      llvm::is_contained(containers, className(type)))
    return false;
  if (!options.inlineTracedLeaves)
    return true;
  if (!options.compiledModuleTypes.empty()) {
    if (!llvm::is_contained(options.compiledModuleTypes, type))
      return false;
    // The registry binds convs padding with zeros; another padding mode is
    // its forward's F.pad, then the conv.
    if (module.hasattr("padding_mode")) {
      c10::IValue mode = module.attr("padding_mode");
      if (mode.isString() && mode.toStringRef() != "zeros")
        return false;
    }
  }
  if (!recordsHyperparameters(module))
    return false;
  // A module the registry binds by type but not with these hyperparameters
  // (nn.KLDivLoss reducing by 'batchmean', nn.Embedding with max_norm).
  return !options.compilesModule ||
         options.compilesModule(type, hyperparameters("", module));
}

bool Importer::isHyperparameterSlot(const torch::jit::Module &module,
                                    size_t slot) {
  auto type = module.type();
  const std::string name = type->getAttributeName(slot);
  return name != "training" && !llvm::StringRef(name).starts_with("_") &&
         !type->is_parameter(slot) && !type->is_buffer(slot) &&
         !type->getAttribute(slot)->is_module();
}

bool Importer::recordsHyperparameters(const torch::jit::Module &module) {
  if (!module.type()->constantNames().empty())
    return true;
  for (size_t i = 0; i < module.type()->numAttributes(); ++i)
    if (isHyperparameterSlot(module, i))
      return true;
  return false;
}

std::pair<ArrayAttr, DictAttr> Importer::callArgs(
    ArrayRef<FxValue> args, ArrayRef<std::pair<std::string, FxValue>> kwargs,
    SmallVectorImpl<mlir::Value> &inputs, const torch::jit::Node *node) {
  SmallVector<Attribute> argAttrs, keys, kwargValues;
  for (const FxValue &arg : args)
    argAttrs.push_back(toArg(arg, inputs, node));
  for (auto &[key, value] : kwargs) {
    keys.push_back(builder.getStringAttr(key));
    kwargValues.push_back(toArg(value, inputs, node));
  }
  return {builder.getArrayAttr(argAttrs),
          DictAttr::get(ctx, keys, kwargValues)};
}

void Importer::importCall(torch::jit::Node *node, const std::string &target,
                          std::vector<FxValue> args,
                          std::vector<std::pair<std::string, FxValue>> kwargs,
                          bool isModule) {
  SmallVector<mlir::Value> inputs;
  auto [argAttr, kwargAttr] = callArgs(args, kwargs, inputs, node);
  std::string base =
      isModule ? target : std::string(node->kind().toUnqualString());
  std::string name = uniqueName(base);
  Type type;
  if (node->outputs().size() == 1) {
    type = typeOf(node->output());
  } else {
    SmallVector<Type> types;
    for (const torch::jit::Value *output : node->outputs())
      types.push_back(typeOf(output));
    type = TupleType::get(ctx, types);
  }
  Location loc = nodeLoc(name, node);
  mlir::Value result;
  if (isModule)
    result = CallModuleOp::create(builder, loc, type, name, target, argAttr,
                                  kwargAttr, inputs)
                 .getResult();
  else
    result = CallFunctionOp::create(builder, loc, type, name, target, argAttr,
                                    kwargAttr, inputs)
                 .getResult();
  if (node->outputs().size() == 1) {
    values[node->output()] = FxValue::ofNode(result);
    return;
  }
  // Several results (aten::max.dim, aten::sort): FX indexes the tuple.
  for (size_t i = 0; i < node->outputs().size(); ++i)
    values[node->outputs()[i]] =
        FxValue::ofNode(getitem(result, i, typeOf(node->outputs()[i]), node));
}

std::vector<FxValue> Importer::inlineMethod(const FxValue &self,
                                            const std::string &method,
                                            std::vector<FxValue> args,
                                            torch::jit::Node *call) {
  auto found = self.module.find_method(method);
  if (!found)
    fail(call, "module '" + self.path + "' has no method '" + method + "'");
  std::shared_ptr<torch::jit::Graph> graph = found->graph();
  prepareGraph(*graph);
  auto inputs = graph->inputs();
  if (inputs.size() != args.size() + 1)
    fail(call, "method '" + method + "' of module '" + self.path + "' takes " +
                   std::to_string(inputs.size() - 1) +
                   " arguments, the call passes " +
                   std::to_string(args.size()));
  values[inputs[0]] = self;
  for (size_t i = 0; i < args.size(); ++i)
    values[inputs[i + 1]] = args[i];
  for (size_t i = 0; i < inputs.size(); ++i) {
    auto it = concrete.find(call->input(i));
    if (it != concrete.end())
      concrete[inputs[i]] = it->second;
  }
  modulePathStack.push_back(self.path);
  importBlock(graph->block());
  modulePathStack.pop_back();
  std::vector<FxValue> results;
  for (size_t i = 0; i < graph->outputs().size(); ++i) {
    results.push_back(values.at(graph->outputs()[i]));
    auto it = concrete.find(graph->outputs()[i]);
    if (it != concrete.end() && i < call->outputs().size())
      concrete[call->outputs()[i]] = it->second;
  }
  return results;
}

void Importer::importBlock(torch::jit::Block *block) {
  for (torch::jit::Node *node : block->nodes())
    importNode(node);
}

void Importer::importNode(torch::jit::Node *node) {
  using namespace torch::jit;
  auto input = [&](size_t i) -> FxValue & { return inputValue(node, i); };
  NodeKind kind = node->kind();
  // `warnings.warn(...)` in scripted code (googlenet's init_weights
  // notice) computes nothing.
  if (kind == aten::warn)
    return;
  evaluate(node);
  if (importAccumulated(node))
    return;

  if (kind == prim::Constant) {
    auto value = toIValue(node->output());
    if (!value)
      fail(node, "has no constant value");
    values[node->output()] = constantOf(*value, node);
    return;
  }
  if (kind == prim::Uninitialized) {
    // The value of a variable on a path that raises (densenet's scripted
    // `raise Exception(...)` before a checkpointed call): nothing reads it
    // where the code goes on.
    values[node->output()] = FxValue::ofConstant(NoneAttr::get(ctx));
    return;
  }
  if (kind == prim::unchecked_cast) {
    // A refinement (`assert isinstance(y, Tensor)`, `if x is not None`):
    // the same value under its refined type.
    values[node->output()] = input(0);
    return;
  }
  if ((kind == aten::Int || kind == aten::ScalarImplicit) &&
      node->inputs().size() == 1) {
    // A tracer's int -> tensor -> int round trip (aten::ScalarImplicit
    // where an int tensor is passed as a Scalar): FX keeps the int.
    if (std::optional<FxValue> size = sizeIntOf(node->input(0))) {
      values[node->output()] = *size;
      return;
    }
  }
  // The number in a tensor of traced arithmetic on sizes in floats
  // (F.interpolate's `floor(size * scale_factor)`): the example run's, as
  // torch.fx computes it on ints. The tensors that computed it are dropped
  // at the end when nothing else reads them.
  if ((kind == aten::Int || kind == aten::Float ||
       kind == aten::ScalarImplicit || kind == aten::item) &&
      node->inputs().size() == 1 && concrete.count(node->output()) &&
      isSizeDerivedTensor(node->input(0))) {
    values[node->output()] =
        constantOf(concrete.at(node->output()), node, c10::TypePtr());
    return;
  }
  // A number read from a 0-d state tensor where the schema takes a number
  // (a scripted converted model's torch.quantize_per_tensor(x,
  // self.scale_0, self.zero_point_0, dtype): aten::FloatImplicit and
  // aten::IntImplicit of its qparam buffers): the state's number, as
  // torch.fx's converted model passes it and the quantized result's type
  // records it.
  static const c10::Symbol floatImplicit =
      c10::Symbol::fromQualString("aten::FloatImplicit");
  static const c10::Symbol intImplicit =
      c10::Symbol::fromQualString("aten::IntImplicit");
  if ((kind == floatImplicit || kind == intImplicit ||
       kind == aten::ScalarImplicit) &&
      node->inputs().size() == 1 &&
      node->input(0)->node()->kind() == prim::GetAttr &&
      concrete.count(node->output())) {
    values[node->output()] =
        constantOf(concrete.at(node->output()), node, c10::TypePtr());
    return;
  }
  if (importSizeArithmetic(node))
    return;
  static const c10::Symbol isNested =
      c10::Symbol::fromQualString("prim::is_nested");
  // `x.dtype` and `x.device` of a tensor, and what they decide
  // (`x.is_floating_point()`, `x.is_cuda`, `x.is_nested`, ...): known (its
  // type's; the CPU; never nested).
  // So are the grad and autocast modes (`torch.is_grad_enabled()`, a fast
  // path's condition with `p.requires_grad`): the import's, as torch.fx's
  // tracer reads them when it traces.
  static const c10::Symbol isGradEnabled =
      c10::Symbol::fromQualString("aten::is_grad_enabled");
  static const c10::Symbol isAutocastEnabled =
      c10::Symbol::fromQualString("aten::is_autocast_enabled");
  if ((kind == isGradEnabled || kind == isAutocastEnabled ||
       kind == prim::requires_grad) &&
      concrete.count(node->output())) {
    values[node->output()] =
        constantOf(concrete.at(node->output()), node, c10::TypePtr());
    return;
  }
  if ((kind == prim::dtype || kind == prim::device ||
       kind == aten::is_floating_point || kind == aten::is_complex ||
       kind == prim::is_cuda || kind == isNested) &&
      node->inputs().size() == 1 && concrete.count(node->output())) {
    values[node->output()] = constantOf(
        concrete.at(node->output()), node,
        kind == prim::dtype ? c10::ScalarTypeType::get() : c10::TypePtr());
    return;
  }
  // `w is not None` of a tensor (swin_v2's `logit_scale`, an Optional
  // argument given a tensor) or of a list, tuple or dict the import holds
  // (F.interpolate's `size`): known.
  if ((kind == aten::__isnot__ || kind == aten::__is__) &&
      node->inputs().size() == 2) {
    const FxValue &a = input(0), &b = input(1);
    auto isNone = [](const FxValue &v) {
      return v.kind == FxValue::Constant && isa<NoneAttr>(v.constant);
    };
    // Never None: a tensor, or a list, tuple or dict the import holds.
    auto isSome = [](const FxValue &v) {
      return (v.kind == FxValue::Node && isa<TensorType>(v.node.getType())) ||
             v.kind == FxValue::State || v.kind == FxValue::List ||
             v.kind == FxValue::Tuple || v.kind == FxValue::Dict;
    };
    if ((isNone(a) && isSome(b)) || (isSome(a) && isNone(b))) {
      values[node->output()] =
          FxValue::ofConstant(builder.getBoolAttr(kind == aten::__isnot__));
      return;
    }
    // `query is key` of two tensors (nn.MultiheadAttention's fast path):
    // whether they are the same node, as torch.fx decides it of proxies.
    if (a.kind == FxValue::Node && b.kind == FxValue::Node &&
        isa<TensorType>(a.node.getType()) &&
        isa<TensorType>(b.node.getType())) {
      values[node->output()] = FxValue::ofConstant(
          builder.getBoolAttr((a.node == b.node) == (kind == aten::__is__)));
      return;
    }
  }
  // `x.size()` of a ranked tensor: the list of its sizes (each an
  // aten::size.int node), which list operators (`len`, `[-3:]`,
  // unpacking) read as the list they are.
  if (kind == aten::size && node->inputs().size() == 1 &&
      node->output()->type()->kind() == c10::TypeKind::ListType) {
    FxValue &x = input(0);
    auto type = x.kind == FxValue::Node
                    ? dyn_cast<RankedTensorType>(x.node.getType())
                    : RankedTensorType();
    if (type) {
      FxValue sizes;
      sizes.kind = FxValue::List;
      for (int64_t d = 0; d < type.getRank(); ++d) {
        SmallVector<mlir::Value> inputs;
        auto [args, kwargs] =
            callArgs({x, FxValue::ofConstant(builder.getI64IntegerAttr(d))}, {},
                     inputs, node);
        std::string name = uniqueName("size");
        sizes.elements.push_back(FxValue::ofNode(
            CallFunctionOp::create(builder, nodeLoc(name, node),
                                   builder.getI64Type(), name, "aten::size.int",
                                   args, kwargs, inputs)
                .getResult()));
      }
      values[node->output()] = sizes;
      return;
    }
  }
  if (importHeldListOp(node) || importHeldDictOp(node))
    return;
  if (kind == prim::ListConstruct || kind == prim::TupleConstruct) {
    FxValue r;
    r.kind = kind == prim::ListConstruct ? FxValue::List : FxValue::Tuple;
    for (size_t i = 0; i < node->inputs().size(); ++i)
      r.elements.push_back(input(i));
    values[node->output()] = r;
    return;
  }
  if (kind == prim::DictConstruct && node->inputs().size() % 2 == 0) {
    // Keys and values alternate; the keys are constants.
    FxValue r;
    r.kind = FxValue::Dict;
    for (size_t i = 0; i < node->inputs().size(); i += 2) {
      FxValue &key = input(i);
      if (key.kind != FxValue::Constant ||
          !isa<StringAttr, IntegerAttr>(key.constant))
        fail(node, "makes a dict whose keys are not constant strings or "
                   "ints, which FX args cannot hold");
      r.keys.push_back(key.constant);
      r.elements.push_back(input(i + 1));
    }
    values[node->output()] = r;
    return;
  }
  if (kind == prim::ListUnpack || kind == prim::TupleUnpack) {
    FxValue &of = input(0);
    if (of.kind == FxValue::List || of.kind == FxValue::Tuple) {
      if (of.elements.size() != node->outputs().size())
        fail(node, "unpacks " + std::to_string(node->outputs().size()) +
                       " values from " + std::to_string(of.elements.size()));
      std::vector<FxValue> elements = of.elements;
      for (size_t i = 0; i < elements.size(); ++i)
        values[node->outputs()[i]] = elements[i];
      return;
    }
    mlir::Value tuple = asNode(of, node);
    if (!tuple)
      fail(node, "unpacks a value that is not a list or tuple");
    for (size_t i = 0; i < node->outputs().size(); ++i)
      values[node->outputs()[i]] =
          FxValue::ofNode(getitem(tuple, i, typeOf(node->outputs()[i]), node));
    return;
  }
  if (kind == prim::TupleIndex ||
      (kind == aten::__getitem__ && node->inputs().size() == 2 &&
       node->input(0)->type()->kind() == c10::TypeKind::ListType)) {
    // Indexing a folded list/tuple picks the element; indexing a node is
    // FX's operator.getitem.
    FxValue of = input(0);
    FxValue &index = input(1);
    auto constIndex = index.kind == FxValue::Constant
                          ? dyn_cast<IntegerAttr>(index.constant)
                          : IntegerAttr();
    if (constIndex && !isa<BoolAttr>(index.constant)) {
      int64_t i = constIndex.getInt();
      if (of.kind == FxValue::Tuple || of.kind == FxValue::List) {
        int64_t n = of.elements.size();
        if (i < 0)
          i += n;
        if (i < 0 || i >= n)
          fail(node, "index " + std::to_string(constIndex.getInt()) +
                         " is out of range for " + std::to_string(n) +
                         " elements");
        values[node->output()] = FxValue(of.elements[i]);
        return;
      }
      if (mlir::Value v = asNode(of, node)) {
        values[node->output()] =
            FxValue::ofNode(getitem(v, i, typeOf(node->output()), node));
        return;
      }
    }
  }
  if (kind == prim::GetAttr) {
    FxValue &base = input(0);
    if (base.kind != FxValue::Module)
      fail(node, "reads attribute '" + node->s(attr::name) +
                     "' of a value that is not a module");
    const std::string &field = node->s(attr::name);
    std::string path = join(base.path, field);
    if (auto assigned = assignedState.find(path);
        assigned != assignedState.end()) {
      values[node->output()] = assigned->second;
      return;
    }
    auto type = base.module.type();
    auto slot = type->findAttributeSlot(field);
    if (!slot)
      fail(node, "module '" + base.path + "' has no attribute '" + field + "'");
    c10::IValue value = base.module._ivalue()->getSlot(*slot);
    FxValue r;
    if (value.isModule()) {
      r.kind = FxValue::Module;
      r.path = path;
      r.module = value.toModule();
    } else if (value.isTensor()) {
      declareState(path, value.toTensor(),
                   type->is_parameter(*slot) ? StateKind::Parameter
                   : type->is_buffer(*slot)  ? StateKind::Buffer
                                             : StateKind::Constant);
      r.kind = FxValue::State;
      r.path = path;
      r.isParameter = type->is_parameter(*slot);
    } else if (value.isObject() &&
               value.type()->annotation_str().find("PackedParamsBase") !=
                   std::string::npos) {
      // Packed quantized weights: a quantized operator's operand
      // (importPackedCall).
      r.kind = FxValue::Packed;
      r.path = path;
      r.object = value;
    } else if (value.isObject()) {
      fail(node, "attribute '" + path +
                     "' holds an object of the custom "
                     "class " +
                     value.type()->annotation_str() +
                     ", which FX cannot represent");
    } else {
      r = constantOf(value, node);
    }
    values[node->output()] = r;
    return;
  }
  // `with torch.no_grad():` (or enable_grad) in scripted code
  // (F.gaussian_nll_loss clamps its variance so): the grad mode does not
  // change what the compiled code computes, so the context object, its
  // fields, its methods (`__init__`) and its enter and exit are nothing.
  auto isGradMode = [](const torch::jit::Value *v) {
    auto cls = v->type()->cast<c10::ClassType>();
    if (!cls || !cls->name())
      return false;
    std::string name = cls->name()->qualifiedName();
    return name == "__torch__.torch.autograd.grad_mode.no_grad" ||
           name == "__torch__.torch.autograd.grad_mode.enable_grad";
  };
  static const c10::Symbol enter = c10::Symbol::fromQualString("prim::Enter"),
                           exit = c10::Symbol::fromQualString("prim::Exit");
  if ((kind == prim::CreateObject && node->outputs().size() == 1 &&
       isGradMode(node->output())) ||
      ((kind == prim::SetAttr || kind == prim::CallMethod || kind == enter ||
        kind == exit) &&
       !node->inputs().empty() && isGradMode(node->input(0)))) {
    for (torch::jit::Value *output : node->outputs())
      values[output] = FxValue::ofConstant(NoneAttr::get(ctx));
    return;
  }
  if (kind == prim::SetAttr) {
    importSetAttr(node);
    return;
  }
  if (kind == prim::CallMethod) {
    FxValue self = input(0);
    if (self.kind != FxValue::Module)
      fail(node, "calls a method on a value that is not a module");
    std::vector<FxValue> args;
    bool passesState = false;
    for (size_t i = 1; i < node->inputs().size(); ++i) {
      args.push_back(input(i));
      passesState |=
          args.back().kind == FxValue::State && args.back().isParameter;
    }
    const std::string &method = node->s(attr::name);
    // A traced module whose forward returns its input (a quantized
    // Dropout) is recorded as a call of no arguments returning None, which
    // nothing reads: it computes nothing.
    if (node->inputs().size() == 1 && node->outputs().size() == 1 &&
        !node->output()->hasUses() &&
        node->output()->type()->kind() == c10::TypeKind::NoneType)
      return;
    // A traced module whose weight is tied to another one's gets it as an
    // extra argument; its forward no longer has the Python signature, so it
    // is walked into instead of called.
    // A scripted dynamic quantized LSTM or GRU is called through
    // `forward_tensor(input, hx)`, what its forward does with a tensor: the
    // module's own call, returning what it returns.
    bool recurrentTensor = method == "forward_tensor" &&
                           isDynamicRecurrentType(pythonTypeName(self.module));
    if ((method == "forward" || recurrentTensor) && !passesState &&
        isLeaf(self.module)) {
      if (importRecurrentCall(node, self, args))
        return;
      evaluate(node, /*runMethod=*/true);
      declareModule(self.path, self.module);
      importCall(node, self.path, args, {}, /*isModule=*/true);
      return;
    }
    std::vector<FxValue> results = inlineMethod(self, method, args, node);
    for (size_t i = 0; i < results.size(); ++i)
      values[node->outputs()[i]] = results[i];
    return;
  }
  if (kind == prim::If)
    return importIf(node);
  if (kind == prim::Loop)
    return importLoop(node);
  if (kind == prim::CallFunction || kind == prim::PythonOp)
    fail(node, "calls a function (" + std::string(kind.toQualString()) +
                   ") that FX cannot represent as a target");
  if (!node->blocks().empty())
    fail(node, "has nested blocks, which an FX graph cannot hold");
  for (torch::jit::Value *output : node->outputs())
    if (output->type()->kind() == c10::TypeKind::ClassType)
      fail(node, "produces an object of the custom class " +
                     output->type()->annotation_str() +
                     ", which FX cannot represent");

  if (importPackedCall(node))
    return;

  // Every other node is a call: aten/prim operators by their schema name
  // (`aten::add.Tensor`), args bound positionally and kwarg-only ones by
  // keyword, as the schema declares them.
  std::vector<FxValue> args;
  std::vector<std::pair<std::string, FxValue>> kwargs;
  std::string target = kind.toQualString();
  if (const c10::FunctionSchema *schema = node->maybeSchema()) {
    if (!schema->overload_name().empty())
      target += "." + schema->overload_name();
    const auto &arguments = schema->arguments();
    for (size_t i = 0; i < node->inputs().size(); ++i) {
      FxValue value = input(i);
      if (i < arguments.size() && value.kind == FxValue::Constant &&
          isa<IntegerAttr>(value.constant) && !isa<BoolAttr>(value.constant)) {
        // Ints typed ScalarType/MemoryFormat/Layout become their FX value.
        auto v = toIValue(node->input(i));
        if (v)
          value = constantOf(*v, node, arguments[i].real_type());
      }
      if (i < arguments.size() && arguments[i].kwarg_only())
        kwargs.emplace_back(arguments[i].name(), value);
      else
        args.push_back(value);
    }
  } else {
    for (size_t i = 0; i < node->inputs().size(); ++i)
      args.push_back(input(i));
  }
  if (foldConstantCall(node, args, kwargs))
    return;
  importCall(node, target, std::move(args), std::move(kwargs),
             /*isModule=*/false);
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

OwningOpRef<ModuleOp> Importer::run(torch::jit::Module &root) {
  Location fileLoc = sourceLoc(nullptr);
  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  builder.setInsertionPointToEnd(module->getBody());
  std::string name = options.graphModuleName;
  if (name.empty())
    name = std::string(className(pythonTypeName(root)));
  graphModule =
      GraphModuleOp::create(builder, fileLoc, name, root.is_training());
  builder.setInsertionPointToEnd(&graphModule.getBody().front());
  // State and submodules are declared in front of the graph as the walk
  // finds them.
  auto graph = GraphOp::create(builder, fileLoc, "forward");
  graphOp = graph;
  forwardGraph = graph;

  auto forward = root.find_method("forward");
  if (!forward) {
    emitError(fileLoc) << "the TorchScript module has no forward method";
    return nullptr;
  }
  std::shared_ptr<torch::jit::Graph> tsGraph = forward->graph();
  prepareGraph(*tsGraph);
  builder.setInsertionPointToEnd(&graph.getBody().front());

  FxValue self;
  self.kind = FxValue::Module;
  self.module = root;
  values[tsGraph->inputs()[0]] = self;
  // Arguments after the example inputs that have defaults
  // (`forward(x, y, num_flow_updates=12)`) take them, as a call with the
  // examples alone would.
  const std::vector<c10::Argument> &arguments =
      forward->function().getSchema().arguments();
  size_t numInputs = tsGraph->inputs().size();
  if (options.exampleInputs)
    while (numInputs > options.exampleInputs->size() + 1 &&
           numInputs - 1 < arguments.size() &&
           arguments[numInputs - 1].default_value())
      --numInputs;
  for (size_t i = numInputs; i < tsGraph->inputs().size(); ++i) {
    const c10::IValue &value = *arguments[i].default_value();
    values[tsGraph->inputs()[i]] = constantOf(value, nullptr);
    concrete[tsGraph->inputs()[i]] = value;
  }
  for (size_t i = 1; i < numInputs; ++i) {
    torch::jit::Value *input = tsGraph->inputs()[i];
    // debugName() returns a string by value: kept alive here (a StringRef
    // to the temporary read freed stack memory; found by the sanitizer
    // build).
    std::string debugName = input->debugName();
    std::string nodeName = uniqueName(dropUniquingSuffix(debugName));
    auto placeholder =
        PlaceholderOp::create(builder, nodeLoc(nodeName, nullptr),
                              typeOf(input), nodeName, nodeName, Attribute());
    values[input] = FxValue::ofNode(placeholder.getResult());
  }
  if (options.exampleInputs) {
    const std::vector<at::Tensor> &examples = *options.exampleInputs;
    if (examples.size() + 1 != numInputs) {
      emitError(fileLoc) << "forward takes " << numInputs - 1
                         << " inputs without defaults, " << examples.size()
                         << " example inputs were given";
      return nullptr;
    }
    concrete[tsGraph->inputs()[0]] = root._ivalue();
    at::manual_seed(0);
    for (size_t i = 0; i < examples.size(); ++i) {
      Type type = typeOf(c10::IValue(examples[i]));
      if (!isa<RankedTensorType>(type)) {
        emitError(fileLoc) << "example input " << i
                           << " has a dtype the fx dialect does not hold";
        return nullptr;
      }
      // A copy: a model that updates its input in place changes the copy.
      concrete[tsGraph->inputs()[i + 1]] = examples[i].clone();
      values[tsGraph->inputs()[i + 1]].node.setType(type);
    }
    if (const auto *sets = options.moreExampleSets) {
      // Types joined over a run on each set: dims that differ are dynamic.
      for (const std::vector<at::Tensor> &more : *sets)
        if (more.size() != examples.size()) {
          emitError(fileLoc)
              << "a further set of example inputs has " << more.size()
              << " tensors, the first " << examples.size();
          return nullptr;
        }
      // The inputs take their joined types first: a size that differs
      // between the sets is not known when importing (an `if x.size(0) >
      // 3` runs both branches, and is imported as a branch, not in line).
      for (size_t i = 0; i < examples.size(); ++i) {
        joinType(tsGraph->inputs()[i + 1], typeOf(c10::IValue(examples[i])));
        for (const std::vector<at::Tensor> &more : *sets)
          joinType(tsGraph->inputs()[i + 1], typeOf(c10::IValue(more[i])));
        values[tsGraph->inputs()[i + 1]].node.setType(
            typeOf(tsGraph->inputs()[i + 1]));
      }
      auto runOn = [&](const std::vector<at::Tensor> &set) {
        for (size_t i = 0; i < set.size(); ++i)
          concrete[tsGraph->inputs()[i + 1]] = set[i].clone();
        simulateBlock(tsGraph->block());
      };
      try {
        for (const std::vector<at::Tensor> &more : *sets)
          runOn(more);
        runOn(examples);
      } catch (ImportFailure &) {
        return nullptr;
      }
      for (size_t i = 0; i < examples.size(); ++i) {
        concrete[tsGraph->inputs()[i + 1]] = examples[i].clone();
        values[tsGraph->inputs()[i + 1]].node.setType(
            typeOf(tsGraph->inputs()[i + 1]));
      }
    }
  } else if (!options.inputTypes.empty()) {
    if (options.inputTypes.size() + 1 != tsGraph->inputs().size()) {
      emitError(fileLoc) << "forward takes " << tsGraph->inputs().size() - 1
                         << " inputs, " << options.inputTypes.size()
                         << " input types were given";
      return nullptr;
    }
    concrete[tsGraph->inputs()[0]] = root._ivalue();
    at::manual_seed(0);
    for (size_t i = 0; i < options.inputTypes.size(); ++i) {
      // A tensor type types a tensor input only (a List[Tensor] or a
      // Dict[str, Tensor] given a tensor fails in LibTorch's kernels).
      const torch::jit::Value *input = tsGraph->inputs()[i + 1];
      if (!input->type()->cast<c10::TensorType>()) {
        emitError(fileLoc) << "input '"
                           << dropUniquingSuffix(input->debugName())
                           << "' of forward is a " << input->type()->str()
                           << ", not a tensor: --torchscript-input-types "
                              "types tensor inputs only";
        return nullptr;
      }
      std::string text = options.inputTypes[i];
      if (!llvm::StringRef(text).starts_with("tensor<"))
        text = "tensor<" + text + ">";
      RankedTensorType type;
      {
        // The error below says what is wrong; the parser's own is noise.
        ScopedDiagnosticHandler quiet(ctx,
                                      [](Diagnostic &) { return success(); });
        type = dyn_cast_or_null<RankedTensorType>(parseType(text, ctx));
      }
      std::optional<c10::ScalarType> dtype;
      if (type)
        for (int s = 0; s < int(c10::ScalarType::NumOptions); ++s)
          if (elementType(ctx, c10::ScalarType(s)) == type.getElementType())
            dtype = c10::ScalarType(s);
      if (!type || !type.hasStaticShape() || !dtype) {
        emitError(fileLoc) << "input type '" << options.inputTypes[i]
                           << "' is not a static tensor type such as "
                              "1x3x224x224xf32";
        return nullptr;
      }
      auto tensorOptions = at::TensorOptions().dtype(*dtype);
      std::vector<int64_t> shape(type.getShape().begin(),
                                 type.getShape().end());
      at::Tensor example =
          at::isFloatingType(*dtype) || at::isComplexType(*dtype)
              ? at::randn(shape, tensorOptions)
              : at::zeros(shape, tensorOptions);
      concrete[tsGraph->inputs()[i + 1]] = example;
      // The placeholder takes the type too.
      values[tsGraph->inputs()[i + 1]].node.setType(type);
    }
  }
  importBlock(tsGraph->block());

  // The returned value: a tuple of outputs is FX's `return (a, b)`.
  SmallVector<mlir::Value> inputs;
  Attribute result;
  if (tsGraph->outputs().size() == 1) {
    result = toArg(values.at(tsGraph->outputs()[0]), inputs, nullptr);
  } else {
    SmallVector<Attribute> elements;
    for (torch::jit::Value *output : tsGraph->outputs())
      elements.push_back(toArg(values.at(output), inputs, nullptr));
    result = TupleAttr::get(ctx, elements);
  }
  OutputOp::create(builder, nodeLoc("output", nullptr), "output",
                   builder.getArrayAttr({result}), inputs);

  // Drop the tensors of folded int -> tensor -> int round trips (and the
  // 0-d tensors of folded size arithmetic), and the numbers and bools only
  // folded branches read (a scripted RNNCell's `input.dim() not in (1, 2)`
  // check), last first: they compute nothing the graph returns and touch
  // no tensor.
  auto isNumber = [](Type type) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    return isa<IntegerType, FloatType>(type) ||
           (tensor && tensor.getRank() == 0);
  };
  for (bool erased = true; erased;) {
    SmallVector<CallFunctionOp> unused;
    graph.walk([&](CallFunctionOp call) {
      StringRef target = call.getTarget();
      StringRef name = target.drop_front(6).split('.').first;
      bool inplace = (name.ends_with("_") && !name.starts_with("__")) ||
                     target.ends_with(".out");
      if (call->use_empty() && (target.starts_with("prim::NumToTensor") ||
                                (target.starts_with("aten::") && !inplace &&
                                 isNumber(call.getResult().getType()))))
        unused.push_back(call);
    });
    for (CallFunctionOp call : unused)
      call->erase();
    erased = !unused.empty();
  }
  // Submodules after all state, as the printed module lists them.
  SmallVector<SubmoduleOp> submodules(graphModule.getOps<SubmoduleOp>());
  for (SubmoduleOp submodule : submodules)
    submodule->moveBefore(graph);
  if (failed(verify(*module)))
    return nullptr;
  return module;
}

OwningOpRef<ModuleOp>
mlir::fx::importTorchScript(llvm::MemoryBufferRef buffer, MLIRContext *context,
                            const TorchScriptImportOptions &options) {
  context->loadDialect<FXDialect>();
  std::string fileName = buffer.getBufferIdentifier().str();
  Location fileLoc = FileLineColLoc::get(context, fileName, 0, 0);
  auto firstLine = [](const char *what) {
    return llvm::StringRef(what).split('\n').first.rtrim().str();
  };
  torch::jit::Module root;
  auto reader = std::make_shared<RecordingReader>(buffer.getBuffer());
  // LibTorch 1.13's loader throws on most malformed archives but crashes
  // on some (a mutated class constant in the serialized code dereferences
  // garbage in ScriptTypeParser): the load runs in a crash-recovery
  // context, so that such an archive is an error, not the end of the
  // process. What a crashed load allocated is leaked.
  std::string loadError = torchscript::checkArchive(buffer.getBuffer());
  auto load = [&] {
    // The tests make the load crash this way (the archives that crashed
    // LibTorch are refused before it reads them now).
    if (const char *step = std::getenv("FX_MLIR_TEST_FATAL_ERROR"))
      if (llvm::StringRef(step) == "torchscript-load")
        std::raise(SIGSEGV);
    try {
      root = torch::jit::load(reader, c10::Device(c10::kCPU));
    } catch (const c10::Error &error) {
      loadError = firstLine(error.what_without_backtrace());
    } catch (const std::exception &error) {
      loadError = firstLine(error.what());
    }
  };
  llvm::CrashRecoveryContext::Enable();
  llvm::CrashRecoveryContext recovery;
  if (loadError.empty() && !recovery.RunSafely(load))
    loadError = "LibTorch crashed reading it (signal " +
                std::to_string(recovery.RetCode > 128 ? recovery.RetCode - 128
                                                      : recovery.RetCode) +
                "); the archive is malformed";
  if (!loadError.empty()) {
    emitError(fileLoc) << "cannot load '" << fileName
                       << "' as a TorchScript archive: " << loadError;
    return nullptr;
  }
  try {
    return Importer(context, fileName, options, *reader).run(root);
  } catch (const ImportFailure &) {
    return nullptr;
  } catch (const c10::Error &error) {
    std::string what = firstLine(error.what_without_backtrace());
    // LibTorch 1.13 swallows the error of code it cannot compile (an
    // unknown builtin operator in a method) and loads a module with
    // objects missing, which its accessors then assert on.
    if (llvm::StringRef(what).contains("_ivalue_ INTERNAL ASSERT"))
      what = "LibTorch loaded it with objects missing: its code does not "
             "compile in this LibTorch (an operator or class it does not "
             "have?)";
    emitError(fileLoc) << "LibTorch failed while importing '" << fileName
                       << "': " << what;
    return nullptr;
  } catch (const std::exception &error) {
    emitError(fileLoc) << "failed while importing '" << fileName
                       << "': " << firstLine(error.what());
    return nullptr;
  }
}

void mlir::fx::registerImportTorchScriptTranslation() {
  static llvm::cl::opt<bool> inlineAll(
      "torchscript-inline-all",
      llvm::cl::desc("With --import-torchscript: inline every module call "
                     "into its aten calls"),
      llvm::cl::init(false));
  static llvm::cl::opt<bool> inlineTraced(
      "torchscript-inline-traced",
      llvm::cl::desc("With --import-torchscript: inline the torch.nn leaves "
                     "that record no hyperparameters (those torch.jit.trace "
                     "made), so that the graph compiles"),
      llvm::cl::init(false));
  static llvm::cl::list<std::string> inlineTypes(
      "torchscript-inline",
      llvm::cl::desc("With --import-torchscript: module types to inline "
                     "(Conv2d or torch.nn.Conv2d), comma separated"),
      llvm::cl::CommaSeparated);
  static llvm::cl::list<std::string> leafTypes(
      "torchscript-leaf",
      llvm::cl::desc("With --import-torchscript: module types to keep as "
                     "fx.call_module (user classes), comma separated"),
      llvm::cl::CommaSeparated);
  static llvm::cl::list<std::string> inputTypes(
      "torchscript-input-types",
      llvm::cl::desc("With --import-torchscript: one tensor type per input "
                     "(1x3x224x224xf32), comma separated; the graph is run "
                     "on random inputs of these types to type every node"),
      llvm::cl::CommaSeparated);
  static llvm::cl::opt<std::string> graphModuleName(
      "torchscript-name",
      llvm::cl::desc("With --import-torchscript: the fx.graph_module's name"),
      llvm::cl::init(""));
  TranslateToMLIRRegistration registration(
      "import-torchscript",
      "Import a TorchScript archive (.pt from torch.jit.trace/script) as an "
      "fx.graph_module",
      [](llvm::SourceMgr &sourceMgr,
         MLIRContext *context) -> OwningOpRef<Operation *> {
        TorchScriptImportOptions options;
        options.inlineAll = inlineAll;
        options.inlineTracedLeaves = inlineTraced;
        options.inlineTypes.assign(inlineTypes.begin(), inlineTypes.end());
        options.leafTypes.assign(leafTypes.begin(), leafTypes.end());
        options.graphModuleName = graphModuleName;
        options.inputTypes.assign(inputTypes.begin(), inputTypes.end());
        const llvm::MemoryBuffer *buffer =
            sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
        OwningOpRef<ModuleOp> module =
            importTorchScript(buffer->getMemBufferRef(), context, options);
        return OwningOpRef<Operation *>(module.release().getOperation());
      },
      [](DialectRegistry &registry) { registry.insert<FXDialect>(); });
}
