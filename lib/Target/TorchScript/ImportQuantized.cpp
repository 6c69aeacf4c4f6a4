//===- ImportQuantized.cpp - Quantized tensors and modules in .pt archives ===//
//
// A traced model from FX graph-mode quantization holds quantized tensors
// (typed here with the quant dialect's `!quant.uniform` elements, as the
// Python importer types them) and quantized modules whose weights are
// packed-params objects (`Conv2dPackedParamsBase`, `LinearPackedParamsBase`)
// FX cannot represent. A quantized module is imported as the Python
// importer imports it: a leaf `call_module` of its public type
// (`torch.ao.nn.quantized.Conv2d`), its hyperparameters (its attributes; for
// modules that keep none once traced, the output scale and zero point its
// forward passes to the quantized operator) and its weight and bias
// unpacked (`quantized::conv2d_unpack`, `quantized::linear_unpack`) as
// `<path>.weight` and `<path>.bias`.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"
#include "fx-mlir/Dialect/FX/IR/FXAttrs.h"
#include "fx-mlir/Dialect/FX/IR/FXLocation.h"
#include "fx-mlir/Dialect/FX/IR/FXOps.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "llvm/ADT/StringExtras.h"

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/ops/stack.h>
#include <torch/csrc/jit/ir/ir.h>

namespace mlir::fx::torchscript {

Type quantizedElementType(MLIRContext *ctx, const at::Tensor &tensor) {
  if (!tensor.is_quantized())
    return Type();
  unsigned width;
  bool isSigned;
  switch (tensor.scalar_type()) {
  case c10::ScalarType::QUInt8:
    width = 8, isSigned = false;
    break;
  case c10::ScalarType::QInt8:
    width = 8, isSigned = true;
    break;
  case c10::ScalarType::QInt32:
    width = 32, isSigned = true;
    break;
  default:
    return Type();
  }
  int64_t lo = isSigned ? -(int64_t(1) << (width - 1)) : 0;
  int64_t hi =
      isSigned ? (int64_t(1) << (width - 1)) - 1 : (int64_t(1) << width) - 1;
  unsigned flags = isSigned ? quant::QuantizationFlags::Signed : 0;
  Type storage = IntegerType::get(ctx, width);
  Type f32 = Float32Type::get(ctx);
  if (tensor.qscheme() == at::kPerTensorAffine)
    return quant::UniformQuantizedType::get(
        flags, storage, f32, tensor.q_scale(), tensor.q_zero_point(), lo, hi);
  if (tensor.qscheme() != at::kPerChannelAffine)
    return Type();
  at::Tensor scales =
      tensor.q_per_channel_scales().to(at::kDouble).contiguous();
  at::Tensor zeroPoints =
      tensor.q_per_channel_zero_points().to(at::kLong).contiguous();
  SmallVector<double> scaleValues(scales.data_ptr<double>(),
                                  scales.data_ptr<double>() + scales.numel());
  SmallVector<int64_t> zeroPointValues(zeroPoints.data_ptr<int64_t>(),
                                       zeroPoints.data_ptr<int64_t>() +
                                           zeroPoints.numel());
  return quant::UniformQuantizedPerAxisType::get(
      flags, storage, f32, scaleValues, zeroPointValues,
      int32_t(tensor.q_per_channel_axis()), lo, hi);
}

std::string quantizedModuleTypeName(llvm::ArrayRef<std::string> parts) {
  // `torch.ao.nn.quantized.modules.conv.Conv2d` -> its package without
  // `.modules[.<file>]` (`torch.ao.nn.quantized.Conv2d`); PyTorch 1.13's
  // `torch.nn.intrinsic.quantized` is spelled by its newer home,
  // `torch.ao.nn.intrinsic.quantized`, as the Python importer spells it.
  // Classes of `modules/__init__.py` itself (`Quantize`, `DeQuantize`)
  // have no file part.
  auto modules = llvm::find(parts, "modules");
  if (modules == parts.end() ||
      (parts.end() - modules != 3 && parts.end() - modules != 2))
    return "";
  std::vector<std::string> package(parts.begin(), modules);
  if (package.size() >= 3 && package[0] == "torch" && package[1] == "nn" &&
      package[2] == "intrinsic")
    package.insert(package.begin() + 1, "ao");
  std::string joined = llvm::join(package, ".");
  llvm::StringRef name = joined;
  if (!name.starts_with("torch.ao.nn.quantized") &&
      !name.starts_with("torch.ao.nn.intrinsic.quantized"))
    return "";
  return joined + "." + parts.back();
}

/// `__torch__.torch.nn.modules.conv.___torch_mangle_3.Conv2d` ->
/// `torch.nn.Conv2d`; `__torch__.Block` -> `Block`.
std::string pythonTypeName(const torch::jit::Module &module) {
  auto type = module.type();
  if (!type || !type->name())
    return "torch.nn.Module";
  std::vector<std::string> parts;
  for (const std::string &atom : type->name()->atoms())
    if (atom != "__torch__" &&
        !llvm::StringRef(atom).starts_with("___torch_mangle"))
      parts.push_back(atom);
  std::string quantized = quantizedModuleTypeName(parts);
  if (!quantized.empty())
    return quantized;
  // Classes torch.nn exports by their short name (not, e.g., the
  // NonDynamicallyQuantizableLinear of nn.MultiheadAttention).
  if (parts.size() >= 4 && parts[0] == "torch" && parts[1] == "nn" &&
      parts[2] == "modules" &&
      parts.back() != "NonDynamicallyQuantizableLinear")
    return "torch.nn." + parts.back();
  return llvm::join(parts, ".");
}

bool isQuantizedModuleType(llvm::StringRef type) {
  // Reference modules (torch.ao.nn.quantized.reference.Linear, ...) are
  // float modules: their forward quantizes and dequantizes their float
  // weight with aten operators on their own state, which the importer walks
  // into (a traced one keeps none of its weight_qparams).
  if (type.starts_with("torch.ao.nn.quantized.reference."))
    return false;
  // Quantized Embedding and EmbeddingBag hold a table of a float scale and
  // zero point per row, which no MLIR quant type holds: walked into, their
  // embedding_byte call is the float embedding of the table's rows
  // (importEmbeddingCall).
  if (type == "torch.ao.nn.quantized.Embedding" ||
      type == "torch.ao.nn.quantized.EmbeddingBag")
    return false;
  return type.starts_with("torch.ao.nn.quantized.") ||
         type.starts_with("torch.ao.nn.intrinsic.quantized.");
}

bool isDynamicRecurrentType(llvm::StringRef type) {
  return type == "torch.ao.nn.quantized.dynamic.LSTM" ||
         type == "torch.ao.nn.quantized.dynamic.GRU";
}

/// The packed-params object of a quantized module (its `_packed_params`
/// attribute, or its LinearPackedParams child's), or None.
static c10::IValue packedParams(const torch::jit::Module &module) {
  if (!module.hasattr("_packed_params"))
    return c10::IValue();
  c10::IValue packed = module.attr("_packed_params");
  if (packed.isModule()) {
    torch::jit::Module child = packed.toModule();
    return child.hasattr("_packed_params") ? child.attr("_packed_params")
                                           : c10::IValue();
  }
  return packed;
}

/// The arguments of a quantized operator that are, by the same name, the
/// constructor arguments of the quantized module calling it (LeakyReLU's
/// negative_slope, ELU's alpha, Softmax's dim, the norms' eps,
/// normalized_shape and num_groups). A traced module keeps none of its
/// plain attributes: its hyperparameters are the constants its forward
/// passes (without them it would rebuild with its defaults: a LeakyReLU of
/// slope 0.01).
static const llvm::StringRef kTracedHyperparameters[] = {
    "negative_slope", "alpha", "dim", "eps", "normalized_shape", "num_groups"};

/// The constant `node` passes as its input `i`: a prim::Constant, or a
/// list of them (a traced LayerNorm's normalized_shape); nullopt for
/// anything else.
static std::optional<c10::IValue> constantArgument(torch::jit::Node *node,
                                                   size_t i) {
  torch::jit::Value *input = node->input(i);
  torch::jit::Node *producer = input->node();
  if (producer->kind() != c10::prim::ListConstruct)
    return torch::jit::toIValue(input);
  std::vector<int64_t> ints;
  std::vector<double> doubles;
  for (torch::jit::Value *element : producer->inputs()) {
    std::optional<c10::IValue> v = torch::jit::toIValue(element);
    if (v && v->isInt() && doubles.empty())
      ints.push_back(v->toInt());
    else if (v && v->isDouble() && ints.empty())
      doubles.push_back(v->toDouble());
    else
      return std::nullopt;
  }
  if (!doubles.empty())
    return c10::IValue(doubles);
  return c10::IValue(ints);
}

void Importer::declareQuantizedModule(
    const std::string &path, const torch::jit::Module &module,
    llvm::function_ref<void(const std::string &, const c10::IValue &)> add) {
  // What a traced module keeps none of, from the constants its forward
  // passes to its operator, found by the schema's argument names: its
  // output scale and zero point (a traced quantized Linear, Hardswish,
  // BatchNorm2d; `Y_scale_i` of quantized::linear, `output_scale` of
  // hardswish, ...) and its other hyperparameters (kTracedHyperparameters).
  if (auto method = module.find_method("forward")) {
    for (torch::jit::Node *node : method->graph()->nodes()) {
      if (!llvm::StringRef(node->kind().toQualString())
               .starts_with("quantized::") ||
          !node->maybeSchema())
        continue;
      std::optional<c10::IValue> scale, zeroPoint;
      const auto &arguments = node->schema().arguments();
      for (size_t i = 0; i < arguments.size() && i < node->inputs().size();
           ++i) {
        const std::string &name = arguments[i].name();
        if (name == "output_scale" || name == "Y_scale_i")
          scale = torch::jit::toIValue(node->input(i));
        else if (name == "output_zero_point" || name == "Y_zero_point_i")
          zeroPoint = torch::jit::toIValue(node->input(i));
        else if (llvm::is_contained(kTracedHyperparameters, name) &&
                 !module.hasattr(name))
          if (std::optional<c10::IValue> value = constantArgument(node, i))
            add(name, *value);
      }
      if (!module.hasattr("scale") && scale && zeroPoint && scale->isDouble() &&
          zeroPoint->isInt()) {
        add("scale", *scale);
        add("zero_point", *zeroPoint);
      }
      break;
    }
  }
  if (module.hasattr("_all_weight_values")) {
    declareRecurrentState(path, module);
    return;
  }
  // Quantize keeps its scale and zero point as buffers (state too) and
  // takes them, with its dtype, as constructor arguments: the dtype of a
  // traced one is the constant its forward passes to quantize_per_tensor.
  if (pythonTypeName(module) == "torch.ao.nn.quantized.Quantize") {
    auto number = [&](const char *name) -> std::optional<c10::Scalar> {
      if (!module.hasattr(name) || !module.attr(name).isTensor() ||
          module.attr(name).toTensor().numel() != 1)
        return std::nullopt;
      return module.attr(name).toTensor().item();
    };
    if (auto scale = number("scale"))
      add("scale", c10::IValue(scale->toDouble()));
    if (auto zeroPoint = number("zero_point"))
      add("zero_point", c10::IValue(zeroPoint->toInt()));
    if (auto method = module.find_method("forward"))
      for (torch::jit::Node *node : method->graph()->nodes())
        if (node->kind() ==
                c10::Symbol::fromQualString("aten::quantize_per_tensor") &&
            node->inputs().size() == 4)
          if (std::optional<c10::IValue> dtype =
                  torch::jit::toIValue(node->input(3));
              dtype && dtype->isInt())
            add("dtype", *dtype);
    return;
  }
  c10::IValue packed = packedParams(module);
  if (!packed.isObject())
    return;
  std::string className = packed.toObjectRef().type()->name()
                              ? packed.toObjectRef().type()->name()->name()
                              : "";
  std::string unpack;
  if (className == "LinearPackedParamsBase")
    unpack = "quantized::linear_unpack";
  else if (className == "Conv2dPackedParamsBase")
    unpack = llvm::StringRef(pythonTypeName(module)).ends_with("1d")
                 ? "quantized::conv1d_unpack"
                 : "quantized::conv2d_unpack";
  else if (className == "Conv3dPackedParamsBase")
    unpack = "quantized::conv3d_unpack";
  else
    fail(nullptr, "module '" + path + "' holds packed params of class " +
                      className + ", which cannot be unpacked");
  auto [weight, hasBias] =
      declareUnpacked(nullptr, "module '" + path + "'", unpack, packed, path);
  if (className != "LinearPackedParamsBase") {
    add("bias", c10::IValue(hasBias));
    return;
  }
  // A linear's constructor arguments, as the Python importer writes them
  // (a traced one keeps none): its sizes, its bias as a bool (`bias_` for
  // Linear, `bias` for the fused LinearReLU and kin) and its weight's
  // dtype, so that the exported module rebuilds.
  add("in_features", weight.size(1));
  add("out_features", weight.size(0));
  add(llvm::StringRef(pythonTypeName(module)).ends_with(".Linear") ? "bias_"
                                                                   : "bias",
      c10::IValue(hasBias));
  add("dtype", c10::IValue(int64_t(weight.scalar_type())));
}

void Importer::declareRecurrentState(const std::string &path,
                                     const torch::jit::Module &module) {
  // A dynamic quantized LSTM's or GRU's cells: `_all_weight_values.<k>`
  // (layer k / directions, direction k % directions), each a PackedParameter
  // module whose `param` is a CellParamsBase, its state (`__getstate__`)
  // (kind, [bias_ih, bias_hh], doubles, longs, [packed ih, packed hh]).
  std::string what = "module '" + path + "'";
  c10::IValue all = module.attr("_all_weight_values");
  if (!all.isModule())
    fail(nullptr, what + ": _all_weight_values is not a module list");
  int64_t directions =
      module.hasattr("bidirectional") && module.attr("bidirectional").toBool()
          ? 2
          : 1;
  std::vector<std::pair<std::string, at::Tensor>> weights, biases;
  int64_t k = 0;
  for (const auto &child : all.toModule().named_children()) {
    if (!child.value.hasattr("param") || !child.value.attr("param").isObject())
      fail(nullptr, what + ": cell " + child.name + " holds no packed cell");
    c10::IValue cell = child.value.attr("param");
    auto object = cell.toObject();
    torch::jit::Function *getState = object->type()->findMethod("__getstate__");
    if (!getState)
      fail(nullptr, what + ": its cells cannot be unpacked");
    std::vector<c10::IValue> stack{cell};
    getState->run(stack);
    c10::IValue state = stack.empty() ? c10::IValue() : stack.back();
    if (state.isTuple() && state.toTupleRef().elements().size() == 2 &&
        state.toTupleRef().elements()[0].isTuple())
      state = state.toTupleRef().elements()[0];
    if (!state.isTuple() || state.toTupleRef().elements().size() != 5 ||
        !state.toTupleRef().elements()[0].isString())
      fail(nullptr,
           what + ": cell " + child.name + " has a state of an unknown form");
    const auto &fields = state.toTupleRef().elements();
    std::string kind = fields[0].toStringRef();
    if (kind != "quantized_dynamic")
      fail(nullptr, what + ": cells of kind '" + kind +
                        "' are not supported (int8 dynamic ones are)");
    std::vector<c10::IValue> packed = fields[4].toListRef().vec();
    std::vector<c10::IValue> tensors = fields[1].toListRef().vec();
    if (packed.size() != 2 || (tensors.size() != 2 && !tensors.empty()))
      fail(nullptr,
           what + ": cell " + child.name + " has a state of an unknown form");
    std::string suffix = "_l" + std::to_string(k / directions) +
                         (k % directions ? "_reverse" : "");
    const char *names[] = {"ih", "hh"};
    for (int i = 0; i < 2; ++i) {
      std::vector<c10::IValue> unpacked =
          callOnPacked(nullptr, what, "quantized::linear_unpack", packed[i]);
      if (unpacked.empty() || !unpacked[0].isTensor())
        fail(nullptr, what + ": quantized::linear_unpack did not give a "
                             "weight");
      weights.emplace_back(std::string("weight_") + names[i] + suffix,
                           unpacked[0].toTensor());
      if (!tensors.empty())
        biases.emplace_back(std::string("bias_") + names[i] + suffix,
                            tensors[i].toTensor().detach());
    }
    ++k;
  }
  // Weights, then biases, as the Python importer declares them.
  for (auto &list : {weights, biases})
    for (const auto &[name, tensor] : list)
      declareState(join(path, name), tensor, StateKind::Parameter,
                   /*fromArchive=*/false);
}

std::vector<c10::IValue> Importer::callOnPacked(const torch::jit::Node *node,
                                                const std::string &what,
                                                const std::string &op,
                                                const c10::IValue &packed) {
  std::vector<c10::IValue> stack{packed};
  try {
    c10::Dispatcher::singleton()
        .findSchemaOrThrow(op.c_str(), "")
        .callBoxed(&stack);
  } catch (const std::exception &e) {
    fail(node, what + ": " + op + " failed: " + e.what());
  }
  return stack;
}

std::pair<at::Tensor, bool>
Importer::declareUnpacked(const torch::jit::Node *node, const std::string &what,
                          const std::string &unpack, const c10::IValue &packed,
                          const std::string &path) {
  // The operator's two results, (weight, bias).
  std::vector<c10::IValue> unpacked = callOnPacked(node, what, unpack, packed);
  if (unpacked.size() != 2 || !unpacked[0].isTensor() ||
      !unpacked[0].toTensor().is_quantized())
    fail(node, what + ": " + unpack + " did not give (weight, bias)");
  at::Tensor weight = unpacked[0].toTensor();
  // Made by the unpack operator: fresh allocations, not archive records.
  declareState(join(path, "weight"), weight, StateKind::Parameter,
               /*fromArchive=*/false);
  if (unpacked[1].isTensor())
    declareState(join(path, "bias"), unpacked[1].toTensor(),
                 StateKind::Parameter, /*fromArchive=*/false);
  return {weight, unpacked[1].isTensor()};
}

bool Importer::importEmbeddingCall(torch::jit::Node *node) {
  llvm::StringRef op = node->kind().toQualString();
  bool bag = op == "quantized::embedding_bag_byte" ||
             op == "quantized::embedding_bag_4bit";
  if (!bag && op != "quantized::embedding_byte" &&
      op != "quantized::embedding_4bit")
    return false;
  auto packed = values.find(node->input(0));
  if (packed == values.end() || packed->second.kind != FxValue::Packed)
    return false;
  const std::string &attribute = packed->second.path;
  const std::string what = "packed embedding table '" + attribute + "'";
  // The flags the float embedding does not compute: each must be the
  // constant the quantized module passes.
  auto expect = [&](size_t i, const c10::IValue &wanted, const char *name) {
    std::optional<c10::IValue> v = torch::jit::toIValue(node->input(i));
    if (!v ||
        !(v->isNone() ? wanted.isNone() : (!wanted.isNone() && *v == wanted)))
      fail(node,
           what + ": " + op.str() + " with " + name +
               " other than the quantized module's (" +
               (wanted.isNone() ? std::string("None") : c10::str(wanted)) +
               ") is not supported");
  };
  if (bag) {
    // (weight, indices, offsets, scale_grad_by_freq, mode, pruned_weights,
    //  per_sample_weights, compressed_indices_mapping, include_last_offset)
    if (node->inputs().size() != 9)
      return false;
    expect(4, c10::IValue(int64_t(0)), "mode");
    expect(5, c10::IValue(false), "pruned_weights");
    expect(7, c10::IValue(), "compressed_indices_mapping");
  } else {
    // (weight, indices, pruned_weights)
    if (node->inputs().size() != 3)
      return false;
    expect(2, c10::IValue(false), "pruned_weights");
  }
  std::vector<c10::IValue> unpacked = callOnPacked(
      node, what, "quantized::embedding_bag_unpack", packed->second.object);
  if (unpacked.size() != 1 || !unpacked[0].isTensor())
    fail(node, what + ": quantized::embedding_bag_unpack did not give a "
                      "tensor");
  at::Tensor q = unpacked[0].toTensor();
  bool nibbles = q.scalar_type() == c10::ScalarType::QUInt4x2;
  if ((q.scalar_type() != c10::ScalarType::QUInt8 && !nibbles) ||
      q.qscheme() != at::kPerChannelAffineFloatQParams ||
      q.q_per_channel_axis() != 0 || q.dim() != 2 || (nibbles && q.size(1) % 2))
    fail(node, what + ": a table of " +
                   std::string(c10::toString(q.scalar_type())) + " (" +
                   std::string(c10::toString(q.qscheme())) + ", " +
                   std::to_string(q.dim() == 2 ? q.size(1) : 0) +
                   " columns) is not supported (8-bit tables, and 4-bit "
                   "ones of an even width, of a float scale and zero point "
                   "per row are)");
  // The float rows as embedding_byte and embedding_4bit compute them:
  // PyTorch's packing keeps each row's scale and bias = zero_point * scale
  // * -1 (in fp16 for a 4-bit table), and a row is bias + q * scale; a
  // 4-bit table holds two values a byte, the first in the low nibble (the
  // Python importer's reference.py computes them alike).
  at::Tensor rows = q.int_repr();
  if (nibbles) {
    rows = rows.view({q.size(0), q.size(1) / 2});
    rows = at::stack({rows.bitwise_and(15), rows.bitwise_right_shift(4)}, -1)
               .view({q.size(0), q.size(1)});
  }
  rows = rows.to(at::kFloat);
  at::Tensor scale = q.q_per_channel_scales().to(at::kFloat);
  at::Tensor bias =
      q.q_per_channel_zero_points().to(at::kFloat).mul(scale).mul(-1);
  if (nibbles) {
    scale = scale.to(at::kHalf).to(at::kFloat);
    bias = bias.to(at::kHalf).to(at::kFloat);
  }
  at::Tensor table = bias.unsqueeze(1).expand_as(rows).addcmul(
      rows, scale.unsqueeze(1).expand_as(rows));
  // `<module>._packed_params._packed_weight` -> `<module>.weight`.
  llvm::StringRef stem = attribute;
  if (!stem.consume_back("._packed_params._packed_weight"))
    stem = attribute;
  std::string path = join(stem.str(), "weight");
  while (declaredState.contains(path))
    path += "_";
  declareState(path, table, StateKind::Constant, /*fromArchive=*/false);
  FxValue weight;
  weight.kind = FxValue::State;
  weight.path = path;
  if (!bag) {
    importCall(node, "aten::embedding", {weight, inputValue(node, 1)}, {},
               /*isModule=*/false);
    return true;
  }
  // aten::embedding_bag(weight, indices, offsets, scale_grad_by_freq,
  // mode, sparse, per_sample_weights, include_last_offset) and its first
  // result, the bags: the quantized bag sums (the module passes mode 0);
  // fx-normalize expands the call into gathers and sums.
  FxValue no = constantOf(c10::IValue(false), node);
  std::vector<FxValue> args{weight,
                            inputValue(node, 1),
                            inputValue(node, 2),
                            no,
                            constantOf(c10::IValue(int64_t(0)), node),
                            no,
                            inputValue(node, 6),
                            inputValue(node, 8)};
  SmallVector<mlir::Value> inputs;
  auto [argAttr, kwargAttr] = callArgs(args, {}, inputs, node);
  std::string name = uniqueName(node->kind().toUnqualString());
  Type bags = typeOf(node->output()), any = AnyType::get(ctx);
  mlir::Value call =
      CallFunctionOp::create(builder, nodeLoc(name, node),
                             TupleType::get(ctx, {bags, any, any, any}), name,
                             "aten::embedding_bag", argAttr, kwargAttr, inputs)
          .getResult();
  values[node->output()] = FxValue::ofNode(getitem(call, 0, bags, node));
  return true;
}

bool Importer::importPackedCall(torch::jit::Node *node) {
  if (importEmbeddingCall(node))
    return true;
  // The quantized functions convert_fx writes and the module computing
  // each (its forward makes that call).
  static const std::pair<llvm::StringRef, llvm::StringRef> modules[] = {
      {"quantized::linear", "torch.ao.nn.quantized.Linear"},
      {"quantized::linear_relu", "torch.ao.nn.intrinsic.quantized.LinearReLU"},
      {"quantized::conv1d", "torch.ao.nn.quantized.Conv1d"},
      {"quantized::conv1d_relu", "torch.ao.nn.intrinsic.quantized.ConvReLU1d"},
      {"quantized::conv2d", "torch.ao.nn.quantized.Conv2d"},
      {"quantized::conv2d_relu", "torch.ao.nn.intrinsic.quantized.ConvReLU2d"},
      {"quantized::conv3d", "torch.ao.nn.quantized.Conv3d"},
      {"quantized::conv3d_relu", "torch.ao.nn.intrinsic.quantized.ConvReLU3d"},
  };
  llvm::StringRef op = node->kind().toQualString();
  const auto *entry =
      llvm::find_if(modules, [&](const auto &m) { return m.first == op; });
  if (entry == std::end(modules) || node->inputs().size() != 4)
    return false;
  auto packed = values.find(node->input(1));
  if (packed == values.end() || packed->second.kind != FxValue::Packed)
    return false;
  const std::string attribute = packed->second.path;
  const std::string what = "packed weights '" + attribute + "'";
  auto call = [&](const std::string &op) {
    return callOnPacked(node, what, op, packed->second.object);
  };
  // The output scale and zero point: the values the call reads.
  auto scale = concrete.find(node->input(2));
  auto zeroPoint = concrete.find(node->input(3));
  if (scale == concrete.end() || zeroPoint == concrete.end())
    fail(node, "the output scale and zero point of the call on packed "
               "weights '" +
                   attribute + "' are not known");
  auto number = [](const c10::IValue &v) -> c10::IValue {
    return v.isTensor() ? c10::IValue(v.toTensor().item()) : v;
  };
  c10::IValue s = number(scale->second), z = number(zeroPoint->second);
  if (!(s.isDouble() || s.isInt()) || !z.isInt())
    fail(node, "the output scale and zero point of the call on packed "
               "weights '" +
                   attribute + "' are not numbers");
  bool linear = op.starts_with("quantized::linear");
  int64_t dims = linear ? 0 : op[std::string("quantized::conv").size()] - '0';
  std::string prefix = linear ? "quantized::linear"
                              : "quantized::conv" + std::to_string(dims) + "d";
  // conv1d's packed weights are 2-D ones of height 1: their stride,
  // padding and dilation the last `dims` of the 2-D ones.
  std::string params =
      "quantized::conv" + std::to_string(std::max<int64_t>(dims, 2)) + "d_";
  if (!linear && call(params + "transpose").at(0).toInt())
    return false;
  // The module: named after the attribute, as the Python importer names it.
  std::string path = llvm::StringRef(attribute).ltrim('_').str();
  std::replace(path.begin(), path.end(), '.', '_');
  path += "_module";
  while (declaredModules.contains(path))
    path += "_";
  declaredModules.insert(path);
  auto [weight, hasBias] = declareUnpacked(node, what, prefix + "_unpack",
                                           packed->second.object, path);
  SmallVector<Attribute> keys, hparams;
  auto add = [&](const std::string &name, const c10::IValue &v) {
    SmallVector<mlir::Value> noInputs;
    keys.push_back(builder.getStringAttr(name));
    hparams.push_back(toArg(constantOf(v, nullptr), noInputs, nullptr));
  };
  if (!linear) {
    auto list = [&](const char *field) {
      std::vector<int64_t> all = call(params + field).at(0).toIntVector();
      return std::vector<c10::IValue>(all.end() - dims, all.end());
    };
    int64_t groups = call(params + "groups").at(0).toInt();
    std::vector<c10::IValue> kernel;
    for (int64_t i = 2; i < weight.dim(); ++i)
      kernel.push_back(weight.size(i));
    add("in_channels", weight.size(1) * groups);
    add("out_channels", weight.size(0));
    add("kernel_size", c10::ivalue::Tuple::create(kernel));
    add("stride", c10::ivalue::Tuple::create(list("stride")));
    add("padding", c10::ivalue::Tuple::create(list("padding")));
    add("dilation", c10::ivalue::Tuple::create(list("dilation")));
    add("groups", groups);
    add("padding_mode", std::string("zeros"));
  }
  add("scale", s.isInt() ? c10::IValue(double(s.toInt())) : s);
  add("zero_point", z);
  add("bias", c10::IValue(hasBias));
  {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPoint(forwardGraph);
    SubmoduleOp::create(builder, getNodeLoc(ctx, path, "", sourceLoc(nullptr)),
                        path, entry->second, DictAttr::get(ctx, keys, hparams),
                        /*training=*/false);
  }
  importCall(node, path, {values.at(node->input(0))}, {}, /*isModule=*/true);
  return true;
}

bool Importer::importRecurrentCall(torch::jit::Node *node, const FxValue &self,
                                   std::vector<FxValue> args) {
  std::string type = pythonTypeName(self.module);
  bool lstm = type == "torch.ao.nn.quantized.dynamic.LSTM";
  if (!isDynamicRecurrentType(type) || node->outputs().size() != 1)
    return false;
  // What the traced forward returns: each value one of the recurrent
  // operator's results (output, h[, c]); tracing drops those the caller
  // did not read (a GRU's h), so the forward's results are found in its
  // graph, and the module's own call returns them all.
  auto method = self.module.find_method("forward");
  if (!method)
    return false;
  std::shared_ptr<torch::jit::Graph> graph = method->graph();
  torch::jit::Node *recurrent = nullptr;
  for (torch::jit::Node *n : graph->nodes())
    if (n->kind() == c10::Symbol::fromQualString("aten::quantized_lstm") ||
        n->kind() == c10::Symbol::fromQualString("aten::quantized_gru"))
      recurrent = n;
  if (!recurrent || graph->outputs().size() != 1)
    return false;
  torch::jit::Value *returned = graph->outputs()[0];
  std::vector<torch::jit::Value *> flat{returned};
  bool tuple = returned->node()->kind() == c10::prim::TupleConstruct;
  if (tuple)
    flat.assign(returned->node()->inputs().begin(),
                returned->node()->inputs().end());
  std::vector<size_t> which;
  for (torch::jit::Value *v : flat) {
    if (v->node() != recurrent)
      return false;
    which.push_back(v->offset());
  }
  evaluate(node, /*runMethod=*/true);
  declareModule(self.path, self.module);
  // The types of the module's results: the traced ones where known.
  size_t results = lstm ? 3 : 2;
  SmallVector<Type> types(results, AnyType::get(ctx));
  Type traced = typeOf(node->output());
  for (size_t i = 0; i < which.size(); ++i) {
    if (which[i] >= results)
      return false;
    if (!tuple)
      types[which[i]] = traced;
    else if (auto t = dyn_cast<TupleType>(traced); t && t.size() == flat.size())
      types[which[i]] = t.getType(i);
  }
  // A traced LSTM given its initial state takes (input, h0, c0) flat: the
  // module's own forward takes (input, (h0, c0)).
  if (lstm && args.size() == 3) {
    FxValue hx;
    hx.kind = FxValue::Tuple;
    hx.elements = {args[1], args[2]};
    args = {args[0], hx};
  }
  SmallVector<mlir::Value> inputs;
  auto [argAttr, kwargAttr] = callArgs(args, {}, inputs, node);
  std::string name = uniqueName(self.path);
  Type state =
      lstm ? Type(TupleType::get(ctx, {types[1], types[2]})) : types[1];
  mlir::Value call =
      CallModuleOp::create(builder, nodeLoc(name, node),
                           TupleType::get(ctx, {types[0], state}), name,
                           self.path, argAttr, kwargAttr, inputs)
          .getResult();
  // Result i of (output, (h, c)) or (output, h).
  mlir::Value hc;
  auto result = [&](size_t i) {
    if (i == 0 || !lstm)
      return getitem(call, i, types[i], node);
    if (!hc)
      hc = getitem(call, 1, state, node);
    return getitem(hc, i - 1, types[i], node);
  };
  if (!tuple) {
    values[node->output()] = FxValue::ofNode(result(which[0]));
    return true;
  }
  FxValue value;
  value.kind = FxValue::Tuple;
  for (size_t i : which)
    value.elements.push_back(FxValue::ofNode(result(i)));
  values[node->output()] = value;
  return true;
}

} // namespace mlir::fx::torchscript
