//===- NormalizeQuant.cpp - Quantized computations in reference form ------===//
//
// fx-normalize writes every computation on quantized tensors (tensors of
// `!quant.uniform` elements) in reference form, the form PyTorch's
// reference quantized modules define them by: the quantized operands
// dequantized, the float operator, the result quantized to its type's
// scale and zero point. So only three operators ever touch quantized
// tensors (aten::quantize_per_tensor, aten::quantize_per_channel,
// aten::dequantize) and every float operator keeps its one lowering.
//
// - The quantized modules of converted FX models (torch.ao.nn.quantized
//   Conv1d/2d/3d and Linear, the fused ConvReLU/LinearReLU of
//   torch.ao.nn.intrinsic.quantized, the quantized activations, Quantize,
//   DeQuantize) become dequantize -> float operator (their unpacked
//   weight dequantized) -> [relu] -> quantize_per_tensor.
// - The `torch.ops.quantized` functions convert_fx writes (`add`,
//   `add_relu`, `mul`, `mul_relu`, `matmul`, `cat`, the activations, `elu`,
//   the layer, group and instance norms) become the float operator between
//   the same pair; `dropout` is its input.
// - Any other operator given quantized tensors (max pooling, flatten,
//   cat, relu of a quantized tensor: PyTorch runs them on the integers)
//   gets its operands dequantized and its result quantized to the type
//   the graph gives it.
//
// Scales and zero points come from the IR's types, which the importer
// took from the example run: the types are the truth here.
//
//===----------------------------------------------------------------------===//

#include "Emitter.h"
#include "NormalizeSpecial.h"
#include "fx-mlir/Dialect/FX/IR/FXAttrs.h"
#include "fx-mlir/Dialect/FX/IR/FXOps.h"
#include "fx-mlir/Dialect/FX/Registry/Registry.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "llvm/ADT/StringSwitch.h"

#include <array>
#include <cmath>

using namespace mlir;
using namespace mlir::fx;

namespace {

bool isQuantizedTensor(Type type) {
  auto tensor = dyn_cast<TensorType>(type);
  return tensor && isa<quant::QuantizedType>(tensor.getElementType());
}

/// `type` holding the floats its quantized elements stand for.
Type expressedType(Type type) {
  auto tensor = cast<TensorType>(type);
  return tensor.clone(
      cast<quant::QuantizedType>(tensor.getElementType()).getExpressedType());
}

/// A dequantize node of `v`, before `before`.
Value dequantize(GraphBuilder &gb, Operation *before, Value v, StringRef base) {
  MLIRContext *ctx = gb.getContext();
  return gb
      .call(before, gb.uniqueName((base + "_dequantize").str()),
            "aten::dequantize.self", {NodeAttr::get(ctx, 0)}, {}, {}, {v},
            expressedType(v.getType()))
      .getResult();
}

/// A node quantizing the float tensor `v` to the per-tensor quantized
/// tensor type `type` (its scale, zero point and dtype), named `name`;
/// null with `why` set for any other type.
Value quantizeTo(GraphBuilder &gb, Operation *before, Value v, Type type,
                 StringRef name, std::string &why) {
  MLIRContext *ctx = gb.getContext();
  auto tensor = cast<TensorType>(type);
  auto uniform = dyn_cast<quant::UniformQuantizedType>(tensor.getElementType());
  StringRef dtype = getQuantizedDTypeName(tensor.getElementType());
  if (!uniform || dtype.empty()) {
    why = "a result quantized per channel or to a type torch has no dtype "
          "of is not supported";
    return {};
  }
  SmallVector<Attribute> args = {
      NodeAttr::get(ctx, 0),
      FloatAttr::get(Float64Type::get(ctx), uniform.getScale()),
      IntegerAttr::get(IntegerType::get(ctx, 64), uniform.getZeroPoint()),
      DTypeAttr::get(ctx, dtype)};
  return gb
      .call(before, name, "aten::quantize_per_tensor", args, {}, {}, {v}, type)
      .getResult();
}

/// A float call `target(args)` on `values` of result type `type`, before
/// `before`.
Value floatCall(GraphBuilder &gb, Operation *before, StringRef name,
                StringRef target, ArrayRef<Attribute> args,
                ArrayRef<Value> values, Type type) {
  return gb
      .call(before, gb.uniqueName(name), target, args, {}, {}, values, type)
      .getResult();
}

/// Replaces `node` (of quantized result type) by `floatResult` quantized
/// to that type, relu'd first when `relu`.
LogicalResult finish(GraphBuilder &gb, Operation *node, Value floatResult,
                     bool relu, std::string &why) {
  MLIRContext *ctx = gb.getContext();
  auto nodeOp = cast<NodeOpInterface>(node);
  Type type = node->getResult(0).getType();
  std::string name = nodeOp.getNodeName().str();
  if (relu)
    floatResult = floatCall(gb, node, name + "_relu", "aten::relu",
                            {NodeAttr::get(ctx, 0)}, {floatResult},
                            floatResult.getType());
  if (!isQuantizedTensor(type)) {
    node->getResult(0).replaceAllUsesWith(floatResult);
    gb.erase(node);
    return success();
  }
  // The node's own name goes to the quantize that stands for it.
  Value q = quantizeTo(gb, node, floatResult, type,
                       gb.uniqueName(name + "_quantize"), why);
  if (!q)
    return failure();
  node->getResult(0).replaceAllUsesWith(q);
  gb.erase(node);
  setNodeName(q.getDefiningOp(), name);
  return success();
}

/// The float operator a quantized module computes, whether a relu
/// follows it, and whether it reads a weight (and bias) of its own.
struct QuantizedModule {
  StringRef floatTarget;
  bool relu = false;
  bool hasWeight = true;
};

std::optional<QuantizedModule> quantizedModule(StringRef type) {
  return llvm::StringSwitch<std::optional<QuantizedModule>>(type)
      .Case("torch.ao.nn.quantized.Conv1d", QuantizedModule{"aten::conv1d"})
      .Case("torch.ao.nn.quantized.Conv2d", QuantizedModule{"aten::conv2d"})
      .Case("torch.ao.nn.quantized.Conv3d", QuantizedModule{"aten::conv3d"})
      .Case("torch.ao.nn.intrinsic.quantized.ConvReLU1d",
            QuantizedModule{"aten::conv1d", true})
      .Case("torch.ao.nn.intrinsic.quantized.ConvReLU2d",
            QuantizedModule{"aten::conv2d", true})
      .Case("torch.ao.nn.intrinsic.quantized.ConvReLU3d",
            QuantizedModule{"aten::conv3d", true})
      .Case("torch.ao.nn.quantized.ConvTranspose1d",
            QuantizedModule{"aten::conv_transpose1d"})
      .Case("torch.ao.nn.quantized.ConvTranspose2d",
            QuantizedModule{"aten::conv_transpose2d.input"})
      .Case("torch.ao.nn.quantized.ConvTranspose3d",
            QuantizedModule{"aten::conv_transpose3d.input"})
      .Case("torch.ao.nn.quantized.Linear", QuantizedModule{"aten::linear"})
      .Case("torch.ao.nn.quantized.PReLU", QuantizedModule{"aten::prelu"})
      .Case("torch.ao.nn.intrinsic.quantized.LinearReLU",
            QuantizedModule{"aten::linear", true})
      .Case("torch.ao.nn.quantized.ReLU6",
            QuantizedModule{"aten::relu6", false, false})
      .Case("torch.ao.nn.quantized.Hardswish",
            QuantizedModule{"aten::hardswish", false, false})
      .Case("torch.ao.nn.quantized.Sigmoid",
            QuantizedModule{"aten::sigmoid", false, false})
      .Case("torch.ao.nn.quantized.LeakyReLU",
            QuantizedModule{"aten::leaky_relu", false, false})
      .Case("torch.ao.nn.quantized.ELU",
            QuantizedModule{"aten::elu", false, false})
      .Case("torch.ao.nn.quantized.BatchNorm2d",
            QuantizedModule{"aten::batch_norm", false, false})
      .Case("torch.ao.nn.quantized.BatchNorm3d",
            QuantizedModule{"aten::batch_norm", false, false})
      .Case("torch.ao.nn.intrinsic.quantized.BNReLU2d",
            QuantizedModule{"aten::batch_norm", true, false})
      .Case("torch.ao.nn.intrinsic.quantized.BNReLU3d",
            QuantizedModule{"aten::batch_norm", true, false})
      .Case("torch.ao.nn.quantized.LayerNorm",
            QuantizedModule{"aten::layer_norm", false, false})
      .Cases({"torch.ao.nn.quantized.InstanceNorm1d",
              "torch.ao.nn.quantized.InstanceNorm2d",
              "torch.ao.nn.quantized.InstanceNorm3d"},
             QuantizedModule{"aten::instance_norm", false, false})
      .Case("torch.ao.nn.quantized.Softmax",
            QuantizedModule{"aten::softmax.int", false, false})
      .Case("torch.ao.nn.quantized.Quantize", QuantizedModule{"", false, false})
      .Case("torch.ao.nn.quantized.DeQuantize",
            QuantizedModule{"", false, false})
      .Default(std::nullopt);
}

/// Replaces the conv input `input` of `call` by an aten::pad of it in
/// `mode` ("reflect", "replicate", "circular") by the conv's `padding` (a
/// tuple of ints, one per spatial dim), and returns the conv's padding then
/// (zeros); null, with `why`, if it cannot.
static Attribute padInput(GraphBuilder &gb, CallModuleOp call, StringRef mode,
                          Attribute padding, Value &input, std::string &why) {
  MLIRContext *ctx = gb.getContext();
  ArrayRef<Attribute> sizes;
  if (auto tuple = dyn_cast_or_null<TupleAttr>(padding))
    sizes = tuple.getElements();
  else if (auto list = dyn_cast_or_null<ListAttr>(padding))
    sizes = list.getElements();
  auto type = dyn_cast<RankedTensorType>(input.getType());
  if (sizes.empty() || !type || type.getRank() < int64_t(sizes.size()) ||
      !llvm::all_of(sizes, [](Attribute a) { return isa<IntegerAttr>(a); })) {
    why = ("padding_mode '" + mode +
           "' needs a padding of ints and a ranked input")
              .str();
    return nullptr;
  }
  // F.pad's order: the last dim's two sides first.
  SmallVector<Attribute> pads;
  SmallVector<int64_t> shape(type.getShape());
  for (auto [i, size] : llvm::enumerate(llvm::reverse(sizes))) {
    pads.append(2, size);
    int64_t &dim = shape[shape.size() - 1 - i];
    if (!ShapedType::isDynamic(dim))
      dim += 2 * cast<IntegerAttr>(size).getInt();
  }
  input = floatCall(gb, call, (call.getNodeName() + "_pad").str(), "aten::pad",
                    {NodeAttr::get(ctx, 0), ListAttr::get(ctx, pads),
                     StringAttr::get(ctx, mode), NoneAttr::get(ctx)},
                    {input}, type.clone(shape));
  SmallVector<Attribute> zeros(sizes.size(),
                               IntegerAttr::get(IntegerType::get(ctx, 64), 0));
  return TupleAttr::get(ctx, zeros);
}

/// The args of the float conv, transposed conv, linear or prelu `floatTarget`
/// of module `module` on `input` and the float `weight`: (input, weight, bias
/// or None[, stride, padding, dilation, groups] or [, stride, padding,
/// output_padding, groups, dilation]), the bias read from the module's
/// state, into `values` and `args`. A conv's `padding_mode` other than zeros
/// pads the input first, unless `zeroPadding` (a reference module's forward
/// calls F.convNd with its padding and ignores its padding_mode).
LogicalResult weightedCallArgs(GraphBuilder &gb, CallModuleOp call,
                               SubmoduleOp module, StringRef floatTarget,
                               Value input, Value weight,
                               SmallVectorImpl<Value> &values,
                               SmallVectorImpl<Attribute> &args,
                               std::string &why, bool zeroPadding = false) {
  MLIRContext *ctx = gb.getContext();
  std::string bias = (module.getSymName() + ".bias").str();
  values.assign({input, weight});
  args.assign({NodeAttr::get(ctx, 0), NodeAttr::get(ctx, 1)});
  if (floatTarget == "aten::prelu") // prelu(x, weight): no bias
    return success();
  if (lookupState(call->getParentOfType<GraphModuleOp>(), bias)) {
    values.push_back(gb.readState(bias, call));
    args.push_back(NodeAttr::get(ctx, 2));
  } else {
    args.push_back(NoneAttr::get(ctx));
  }
  if (floatTarget == "aten::linear")
    return success();
  DictAttr hp = module.getHparams();
  Attribute padding = hp.lookup("padding");
  if (auto mode = dyn_cast_or_null<StringAttr>(hp.lookup("padding_mode"));
      mode && mode.getValue() != "zeros" && !zeroPadding) {
    // As torch's quantized conv does: the input padded in that mode
    // (reflect, replicate, circular: F.pad, here of the dequantized
    // values, which pads exactly what padding the integers would), then
    // the conv without padding.
    padding = padInput(gb, call, mode.getValue(), padding, values[0], why);
    if (!padding)
      return failure();
  }
  SmallVector<StringRef, 5> keys = {"stride", "padding", "dilation", "groups"};
  if (floatTarget.starts_with("aten::conv_transpose"))
    keys = {"stride", "padding", "output_padding", "groups", "dilation"};
  for (StringRef key : keys) {
    Attribute a = key == "padding" ? padding : hp.lookup(key);
    if (!a) {
      why = ("its hyperparameter '" + key + "' is missing").str();
      return failure();
    }
    args.push_back(a);
  }
  return success();
}

LogicalResult expandQuantizedModule(GraphBuilder &gb, CallModuleOp call,
                                    SubmoduleOp module,
                                    const QuantizedModule &kind,
                                    std::string &why) {
  MLIRContext *ctx = gb.getContext();
  if (call.getNumOperands() != 1 || call.getArgs().size() != 1 ||
      !call.getKwargs().empty() || !isa<NodeAttr>(call.getArgs()[0])) {
    why = "a quantized module takes one tensor";
    return failure();
  }
  Value x = call.getOperand(0);
  std::string name = call.getNodeName().str();
  StringRef type = module.getModuleType();
  // Quantize: the float input quantized to the result's type.
  if (type.ends_with(".Quantize")) {
    return finish(gb, call, x, false, why);
  }
  if (!isQuantizedTensor(x.getType())) {
    why = "its input is not a quantized tensor";
    return failure();
  }
  Value xf = dequantize(gb, call, x, name);
  if (type.ends_with(".DeQuantize"))
    return finish(gb, call, xf, false, why);
  if (!isQuantizedTensor(call.getResult().getType())) {
    why = "its result is not a quantized tensor";
    return failure();
  }
  DictAttr hp = module.getHparams();
  Type floatType = expressedType(call.getResult().getType());
  auto ref = [&](unsigned i) { return NodeAttr::get(ctx, i); };
  auto hparam = [&](StringRef key, Attribute fallback) {
    Attribute a = hp.lookup(key);
    return a ? a : fallback;
  };
  Value result;
  if (kind.hasWeight) {
    std::string path = module.getSymName().str();
    auto module_ = call->getParentOfType<GraphModuleOp>();
    if (!lookupState(module_, path + ".weight")) {
      why = "its weight '" + path + ".weight' is not module state";
      return failure();
    }
    Value w = gb.readState(path + ".weight", call);
    if (!isQuantizedTensor(w.getType())) {
      why = "its weight is not a quantized tensor";
      return failure();
    }
    Value wf = dequantize(gb, call, w, name + "_weight");
    SmallVector<Value> values;
    SmallVector<Attribute> args;
    if (failed(weightedCallArgs(gb, call, module, kind.floatTarget, xf, wf,
                                values, args, why)))
      return failure();
    result = floatCall(gb, call, name + "_float", kind.floatTarget, args,
                       values, floatType);
  } else {
    SmallVector<Attribute> args = {ref(0)};
    if (kind.floatTarget == "aten::leaky_relu")
      args.push_back(hparam("negative_slope",
                            FloatAttr::get(Float64Type::get(ctx), 0.01)));
    if (kind.floatTarget == "aten::elu") // alpha, scale, input_scale
      args.append({hparam("alpha", FloatAttr::get(Float64Type::get(ctx), 1.0)),
                   FloatAttr::get(Float64Type::get(ctx), 1.0),
                   FloatAttr::get(Float64Type::get(ctx), 1.0)});
    SmallVector<Value> values = {xf};
    // Normalization layers read their float state (weight, bias, running
    // statistics; None where the module has none).
    auto stateArg = [&](StringRef field) -> Attribute {
      std::string path = (module.getSymName() + "." + field).str();
      if (!lookupState(call->getParentOfType<GraphModuleOp>(), path))
        return NoneAttr::get(ctx);
      values.push_back(gb.readState(path, call));
      return ref(values.size() - 1);
    };
    Attribute eps = hparam("eps", FloatAttr::get(Float64Type::get(ctx), 1e-5));
    if (kind.floatTarget == "aten::batch_norm") {
      for (StringRef field : {"weight", "bias", "running_mean", "running_var"})
        args.push_back(stateArg(field));
      if (isa<NoneAttr>(args[3]) || isa<NoneAttr>(args[4])) {
        why = "a quantized batch norm needs its running statistics";
        return failure();
      }
      args.append(
          {BoolAttr::get(ctx, false),
           hparam("momentum", FloatAttr::get(Float64Type::get(ctx), 0.1)), eps,
           BoolAttr::get(ctx, false)});
    }
    if (kind.floatTarget == "aten::layer_norm") {
      Attribute shape = hp.lookup("normalized_shape");
      if (!shape) {
        why = "its hyperparameter 'normalized_shape' is missing";
        return failure();
      }
      args.push_back(shape);
      args.push_back(stateArg("weight"));
      args.push_back(stateArg("bias"));
      args.append({eps, BoolAttr::get(ctx, false)});
    }
    if (kind.floatTarget == "aten::instance_norm") {
      // quantized::instance_norm: the input's own statistics, the affine
      // weight and bias (float state) when the module has them.
      args.push_back(stateArg("weight"));
      args.push_back(stateArg("bias"));
      args.append({NoneAttr::get(ctx), NoneAttr::get(ctx),
                   BoolAttr::get(ctx, true),
                   FloatAttr::get(Float64Type::get(ctx), 0.1), eps,
                   BoolAttr::get(ctx, false)});
    }
    if (kind.floatTarget == "aten::softmax.int") {
      Attribute dim = hp.lookup("dim");
      if (!isa_and_nonnull<IntegerAttr>(dim)) {
        why = "its hyperparameter 'dim' is missing";
        return failure();
      }
      args.append({dim, NoneAttr::get(ctx)});
    }
    result = floatCall(gb, call, name + "_float", kind.floatTarget, args,
                       values, floatType);
  }
  return finish(gb, call, result, kind.relu, why);
}

/// The numbers of a scalar-or-list qparam of a reference module (`scale`,
/// `zero_point`): one per channel, or one for all.
std::optional<std::vector<double>> qparamNumbers(Attribute a) {
  std::vector<double> numbers;
  auto number = [&](Attribute x) {
    if (auto f = dyn_cast<FloatAttr>(x))
      numbers.push_back(f.getValueAsDouble());
    else if (auto i = dyn_cast<IntegerAttr>(x))
      numbers.push_back(double(i.getInt()));
    else
      return false;
    return true;
  };
  if (auto list = dyn_cast_or_null<ListAttr>(a)) {
    for (Attribute x : list.getElements())
      if (!number(x))
        return std::nullopt;
  } else if (!a || !number(a)) {
    return std::nullopt;
  }
  return numbers;
}

/// The f32 state `<path>.weight` of a module, with its values; null when
/// there is none or its values are not known.
StateOp floatWeight(GraphModuleOp graphModule, StringRef path,
                    std::optional<std::vector<double>> &values) {
  StateOp weight = lookupState(graphModule, (path + ".weight").str());
  auto type = weight ? dyn_cast<RankedTensorType>(weight.getType())
                     : RankedTensorType();
  if (!type || !type.getElementType().isF32())
    return {};
  values = readFloatState(weight);
  return values ? weight : StateOp();
}

/// A reference quantized module (torch.ao.nn.quantized.reference.Linear,
/// Conv1d/2d/3d, ConvTranspose1d/2d/3d): the float operator on its weight
/// quantized and dequantized as its `weight_qparams` say, which is a constant:
/// computed here, as ATen's quantize_per_tensor/per_channel and dequantize
/// compute it (in f32), into the float parameter `<path>.weight_reference`.
LogicalResult expandReferenceModule(GraphBuilder &gb, CallModuleOp call,
                                    SubmoduleOp module, StringRef floatTarget,
                                    bool relu, std::string &why) {
  MLIRContext *ctx = gb.getContext();
  auto graphModule = call->getParentOfType<GraphModuleOp>();
  std::string path = module.getSymName().str();
  std::optional<std::vector<double>> values;
  StateOp weight = floatWeight(graphModule, path, values);
  if (!weight) {
    why = "its float weight '" + path + ".weight' is not known";
    return failure();
  }
  auto type = cast<RankedTensorType>(weight.getType());
  auto qparams =
      dyn_cast_or_null<DictAttr>(module.getHparams().lookup("weight_qparams"));
  if (!qparams) {
    why = "it has no weight_qparams";
    return failure();
  }
  auto scheme = dyn_cast_or_null<StringAttr>(qparams.lookup("qscheme"));
  auto dtype = dyn_cast_or_null<DTypeAttr>(qparams.lookup("dtype"));
  std::optional<std::vector<double>> scales =
      qparamNumbers(qparams.lookup("scale"));
  std::optional<std::vector<double>> zeroPoints =
      qparamNumbers(qparams.lookup("zero_point"));
  int64_t lo, hi;
  if (dtype && dtype.getName() == "qint8")
    lo = -128, hi = 127;
  else if (dtype && dtype.getName() == "quint8")
    lo = 0, hi = 255;
  else {
    why = "its weight dtype is not qint8 or quint8";
    return failure();
  }
  bool perChannel = scheme && scheme.getValue() == "per_channel_affine";
  if (!scheme || !scales || !zeroPoints ||
      scales->size() != zeroPoints->size() ||
      (!perChannel &&
       (scheme.getValue() != "per_tensor_affine" || scales->size() != 1))) {
    why = "its weight_qparams are not affine per tensor or per channel";
    return failure();
  }
  int64_t axis = 0, inner = 1, channels = 1;
  if (perChannel) {
    auto a = dyn_cast_or_null<IntegerAttr>(qparams.lookup("axis"));
    axis = a ? a.getInt() : -1;
    if (axis < 0 || axis >= type.getRank() ||
        type.getDimSize(axis) != int64_t(scales->size())) {
      why = "its per-channel weight_qparams do not fit its weight";
      return failure();
    }
    channels = type.getDimSize(axis);
    for (int64_t d = axis + 1; d < type.getRank(); ++d)
      inner *= type.getDimSize(d);
  }
  std::vector<double> reference(values->size());
  for (size_t i = 0; i < values->size(); ++i) {
    int64_t c = channels == 1 ? 0 : (int64_t(i) / inner) % channels;
    float scale = float((*scales)[c]);
    float zeroPoint = float((*zeroPoints)[c]);
    float inverse = 1.0f / scale;
    float q = std::nearbyint(float((*values)[i]) * inverse) + zeroPoint;
    q = std::min(std::max(q, float(lo)), float(hi));
    reference[i] = double((q - zeroPoint) * scale);
  }
  std::string name = addFloatState(graphModule, weight,
                                   path + ".weight_reference", type, reference);
  SmallVector<Value> operands;
  SmallVector<Attribute> args;
  // PyTorch 1.13's reference convs pad with zeros whatever their
  // padding_mode says: what the model computes is what is compiled.
  if (failed(weightedCallArgs(gb, call, module, floatTarget, call.getOperand(0),
                              gb.readState(name, call), operands, args, why,
                              /*zeroPadding=*/true)))
    return failure();
  std::string node = call.getNodeName().str();
  Value result =
      gb.call(call, relu ? gb.uniqueName(node + "_float") : node, floatTarget,
              args, {}, {}, operands, call.getResult().getType())
          .getResult();
  if (relu)
    result = gb.call(call, gb.uniqueName(node + "_relu"), "aten::relu",
                     {NodeAttr::get(ctx, 0)}, {}, {}, {result},
                     call.getResult().getType())
                 .getResult();
  call.getResult().replaceAllUsesWith(result);
  gb.erase(call);
  // The node's own name goes to the op that stands for it.
  setNodeName(result.getDefiningOp(), node);
  return success();
}

/// A dynamically quantized linear (torch.ao.nn.quantized.dynamic.Linear,
/// and LinearReLU of torch.ao.nn.intrinsic.quantized.dynamic, `relu`) in
/// reference form: its float input's scale and zero point chosen from
/// the input's range at run time (aten::_choose_qparams_per_tensor with
/// reduce_range, as the module asks), the input quantized and dequantized
/// with them, the float linear on the dequantized weight.
LogicalResult expandDynamicLinear(GraphBuilder &gb, CallModuleOp call,
                                  SubmoduleOp module, bool relu,
                                  std::string &why) {
  MLIRContext *ctx = gb.getContext();
  auto graphModule = call->getParentOfType<GraphModuleOp>();
  std::string path = module.getSymName().str();
  if (call.getNumOperands() != 1 || call.getArgs().size() != 1 ||
      !isa<NodeAttr>(call.getArgs()[0])) {
    why = "a dynamic quantized linear takes one float tensor";
    return failure();
  }
  auto dtype = dyn_cast_or_null<DTypeAttr>(module.getHparams().lookup("dtype"));
  if (dtype && dtype.getName() != "qint8") {
    why = ("weights of torch." + dtype.getName() + " are not supported").str();
    return failure();
  }
  if (!lookupState(graphModule, path + ".weight")) {
    why = "its weight '" + path + ".weight' is not module state";
    return failure();
  }
  Value x = call.getOperand(0);
  auto floatType = dyn_cast<RankedTensorType>(x.getType());
  if (!floatType || !floatType.getElementType().isF32()) {
    why = "its input must be a float32 tensor";
    return failure();
  }
  std::string name = call.getNodeName().str();
  Type f64 = Float64Type::get(ctx), i64 = IntegerType::get(ctx, 64);
  auto ref = [&](unsigned i) { return NodeAttr::get(ctx, i); };
  Value qparams = gb.call(call, gb.uniqueName(name + "_qparams"),
                          "aten::_choose_qparams_per_tensor",
                          {ref(0), BoolAttr::get(ctx, true)}, {}, {}, {x},
                          TupleType::get(ctx, {f64, i64}))
                      .getResult();
  auto item = [&](int64_t i, Type type, StringRef suffix) {
    return gb
        .call(call, gb.uniqueName((name + suffix).str()), "operator.getitem",
              {ref(0), IntegerAttr::get(i64, i)}, {}, {}, {qparams}, type)
        .getResult();
  };
  Value scale = item(0, f64, "_scale");
  Value zeroPoint = item(1, i64, "_zero_point");
  SmallVector<Value> inputs = {x, scale, zeroPoint};
  Value xf = gb.call(call, gb.uniqueName(name + "_input"),
                     "aten::fake_quantize_per_tensor_affine",
                     {ref(0), ref(1), ref(2), IntegerAttr::get(i64, 0),
                      IntegerAttr::get(i64, 255)},
                     {}, {}, inputs, floatType)
                 .getResult();
  Value w = gb.readState(path + ".weight", call);
  if (!isQuantizedTensor(w.getType())) {
    why = "its weight is not a quantized tensor";
    return failure();
  }
  SmallVector<Value> values;
  SmallVector<Attribute> args;
  if (failed(weightedCallArgs(gb, call, module, "aten::linear", xf,
                              dequantize(gb, call, w, name + "_weight"), values,
                              args, why)))
    return failure();
  Value y = floatCall(gb, call, name + "_float", "aten::linear", args, values,
                      call.getResult().getType());
  if (relu)
    y = floatCall(gb, call, name + "_relu", "aten::relu", {ref(0)}, {y},
                  y.getType());
  call.getResult().replaceAllUsesWith(y);
  gb.erase(call);
  setNodeName(y.getDefiningOp(), name);
  return success();
}

/// A `torch.ops.quantized` function as its float operator: the first
/// `kept` args carried over (its output scale and zero point, after them,
/// are the result type's), then the float operator's remaining args.
struct QuantizedFunction {
  StringRef name, target;
  /// The names of the kept parameters (LibTorch's schema), for keywords.
  std::array<StringRef, 5> params;
  unsigned kept;
  bool relu = false, alphaOne = false, trailingNone = false,
       trailingFalse = false;
  /// The parameters after the output scale and zero point, carried after
  /// the kept ones (quantized::elu's `alpha, scale, input_scale`); one
  /// left out is 1.0, their default.
  std::array<StringRef, 3> after = {};
  /// quantized::instance_norm: aten::instance_norm's statistics arguments
  /// (none, the input's own) go between the kept weight, bias and eps.
  bool inputStatistics = false;
};

const QuantizedFunction *quantizedFunction(StringRef name) {
  static const QuantizedFunction table[] = {
      {"add", "aten::add.Tensor", {"qa", "qb"}, 2, false, true},
      {"add_relu", "aten::add.Tensor", {"qa", "qb"}, 2, true, true},
      {"mul", "aten::mul.Tensor", {"qa", "qb"}, 2},
      {"mul_relu", "aten::mul.Tensor", {"qa", "qb"}, 2, true},
      // Eager mode's FloatFunctional.add_scalar/mul_scalar: a number, and
      // the output scale and zero point ATen chose, in the result's type.
      {"add_scalar", "aten::add.Tensor", {"qa", "b"}, 2, false, true},
      {"add_scalar_relu", "aten::add.Tensor", {"qa", "b"}, 2, true, true},
      {"mul_scalar", "aten::mul.Tensor", {"qa", "b"}, 2},
      {"mul_scalar_relu", "aten::mul.Tensor", {"qa", "b"}, 2, true},
      {"matmul", "aten::matmul", {"qa", "qb"}, 2},
      {"cat", "aten::cat", {"qx", "dim"}, 2},
      {"hardswish", "aten::hardswish", {"input"}, 1},
      {"sigmoid", "aten::sigmoid", {"qx"}, 1},
      {"leaky_relu", "aten::leaky_relu", {"qx", "negative_slope"}, 2},
      {"elu",
       "aten::elu",
       {"self"},
       1,
       false,
       false,
       false,
       false,
       {"alpha", "scale", "input_scale"}},
      {"celu",
       "aten::celu",
       {"self"},
       1,
       false,
       false,
       false,
       false,
       {"alpha"}},
      {"instance_norm",
       "aten::instance_norm",
       {"input", "weight", "bias", "eps"},
       4,
       false,
       false,
       false,
       true,
       {},
       true},
      {"threshold", "aten::threshold", {"qx", "threshold", "value"}, 3},
      {"softmax", "aten::softmax.int", {"qx", "dim"}, 2, false, false, true},
      {"layer_norm",
       "aten::layer_norm",
       {"input", "normalized_shape", "weight", "bias", "eps"},
       5,
       false,
       false,
       false,
       true},
      {"group_norm",
       "aten::group_norm",
       {"input", "num_groups", "weight", "bias", "eps"},
       5,
       false,
       false,
       false,
       true},
  };

  for (const QuantizedFunction &f : table)
    if (f.name == name)
      return &f;
  return nullptr;
}

/// `x` (of `type`) quantized per channel along `axis` with float zero
/// points (per_channel_affine_float_qparams) to [lo, hi] and dequantized, as
/// ATen computes it in f32: `q = clamp(rint(x * (1 / scale) + zero_point),
/// lo, hi)`, then `(q - zero_point) * scale`.
std::vector<double> fakeQuantizedWithFloatZeroPoints(
    ArrayRef<double> x, ArrayRef<double> scales, ArrayRef<double> zeroPoints,
    RankedTensorType type, int64_t axis, int64_t lo, int64_t hi) {
  int64_t inner = 1;
  for (int64_t d = axis + 1; d < type.getRank(); ++d)
    inner *= type.getDimSize(d);
  int64_t channels = type.getDimSize(axis);
  std::vector<double> values(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    int64_t c = (int64_t(i) / inner) % channels;
    float scale = float(scales[c]);
    float zeroPoint = float(zeroPoints[c]);
    float inverse = scale == 0.0f ? 1.0f : 1.0f / scale;
    float product = float(x[i]) * inverse;
    float q = std::nearbyint(product + zeroPoint);
    q = std::min(std::max(q, float(lo)), float(hi));
    values[i] = double((q - zeroPoint) * scale);
  }
  return values;
}

/// A reference-mode Embedding or EmbeddingBag
/// (torch.ao.nn.quantized.reference, weight-only quantized with float zero
/// points, 8 or 4 bits): the float embedding (bag) of its weight quantized
/// and dequantized as its `weight_qparams` say (its get_weight), a constant
/// computed here into `<path>.weight_reference`. The bag keeps its mode,
/// as the reference forward does.
LogicalResult expandReferenceEmbedding(GraphBuilder &gb, CallModuleOp call,
                                       SubmoduleOp module, std::string &why) {
  MLIRContext *ctx = gb.getContext();
  auto graphModule = call->getParentOfType<GraphModuleOp>();
  std::string path = module.getSymName().str();
  bool bag = module.getModuleType().ends_with("EmbeddingBag");
  std::optional<std::vector<double>> values;
  StateOp weight = floatWeight(graphModule, path, values);
  auto type =
      weight ? cast<RankedTensorType>(weight.getType()) : RankedTensorType();
  if (!weight || type.getRank() != 2 || !type.hasStaticShape()) {
    why = "its 2-D float weight '" + path + ".weight' is not known";
    return failure();
  }
  DictAttr hp = module.getHparams();
  auto qparams = dyn_cast_or_null<DictAttr>(hp.lookup("weight_qparams"));
  auto scheme = qparams
                    ? dyn_cast_or_null<StringAttr>(qparams.lookup("qscheme"))
                    : StringAttr();
  auto dtype = qparams ? dyn_cast_or_null<DTypeAttr>(qparams.lookup("dtype"))
                       : DTypeAttr();
  auto axis = qparams ? dyn_cast_or_null<IntegerAttr>(qparams.lookup("axis"))
                      : IntegerAttr();
  std::optional<std::vector<double>> scales, zeroPoints;
  if (qparams) {
    scales = qparamNumbers(qparams.lookup("scale"));
    zeroPoints = qparamNumbers(qparams.lookup("zero_point"));
  }
  if (!scheme || scheme.getValue() != "per_channel_affine_float_qparams" ||
      !dtype || !axis || axis.getInt() != 0 || !scales || !zeroPoints ||
      int64_t(scales->size()) != type.getDimSize(0) ||
      zeroPoints->size() != scales->size()) {
    why = "its weight_qparams are not per-row with float zero points";
    return failure();
  }
  int64_t hi;
  if (dtype.getName() == "quint8")
    hi = 255;
  else if (dtype.getName() == "quint4x2")
    hi = 15;
  else {
    why = ("its weight dtype " + dtype.getName() + " is not quint8 or quint4x2")
              .str();
    return failure();
  }
  if (Attribute maxNorm = hp.lookup("max_norm");
      maxNorm && !isa<NoneAttr>(maxNorm)) {
    why = "max_norm (which renormalizes the rows it reads) is not supported";
    return failure();
  }
  // The call's arguments: the indices, and a bag's offsets and
  // per_sample_weights, by position or by name.
  auto argument = [&](size_t i, StringRef name) -> Attribute {
    if (i < call.getArgs().size())
      return call.getArgs()[i];
    return call.getKwargs() ? call.getKwargs().lookup(name) : Attribute();
  };
  auto tensor = [&](Attribute a) -> Value {
    auto ref = dyn_cast_or_null<NodeAttr>(a);
    return ref && ref.getIndex() < call.getNumOperands()
               ? call.getOperand(ref.getIndex())
               : Value();
  };
  size_t count =
      call.getArgs().size() + (call.getKwargs() ? call.getKwargs().size() : 0);
  Value indices = tensor(argument(0, "input"));
  Value offsets = bag ? tensor(argument(1, "offsets")) : Value();
  Attribute perSampleArg =
      bag ? argument(2, "per_sample_weights") : Attribute();
  Value perSample = tensor(perSampleArg);
  Attribute offsetsArg = bag ? argument(1, "offsets") : Attribute();
  if (!indices || count > (bag ? 3u : 1u) ||
      (offsetsArg && !isa<NoneAttr>(offsetsArg) && !offsets) ||
      (perSampleArg && !isa<NoneAttr>(perSampleArg) && !perSample)) {
    why = bag ? "a reference EmbeddingBag takes indices, offsets and "
                "per_sample_weights"
              : "a reference Embedding takes its indices";
    return failure();
  }
  std::string name =
      addFloatState(graphModule, weight, path + ".weight_reference", type,
                    fakeQuantizedWithFloatZeroPoints(
                        *values, *scales, *zeroPoints, type, 0, 0, hi));
  Value table = gb.readState(name, call);
  std::optional<int64_t> padding;
  if (auto p = dyn_cast_or_null<IntegerAttr>(hp.lookup("padding_idx")))
    padding = p.getInt();
  Value result;
  std::string node = call.getNodeName().str();
  if (bag) {
    auto mode = dyn_cast_or_null<StringAttr>(hp.lookup("mode"));
    auto last = dyn_cast_or_null<BoolAttr>(hp.lookup("include_last_offset"));
    int64_t modeCode = !mode                       ? -1
                       : mode.getValue() == "sum"  ? 0
                       : mode.getValue() == "mean" ? 1
                       : mode.getValue() == "max"  ? 2
                                                   : -1;
    if (modeCode < 0 || !last) {
      why = "its mode and include_last_offset must be known";
      return failure();
    }
    // 2-D indices without offsets, as F.embedding_bag takes them: bags of
    // one row of indices each, the indices (and per_sample_weights)
    // flattened and the offsets 0, L, 2 L, ...
    auto indicesType = dyn_cast<RankedTensorType>(indices.getType());
    if (!offsets) {
      if (!indicesType || indicesType.getRank() != 2 ||
          !indicesType.hasStaticShape() || last.getValue()) {
        why = "without offsets, a reference EmbeddingBag takes 2-D "
              "indices of a static shape (and no include_last_offset)";
        return failure();
      }
      int64_t rows = indicesType.getDimSize(0),
              width = indicesType.getDimSize(1);
      Type i64 = IntegerType::get(ctx, 64);
      Emitter e(gb, call, node, i64);
      auto flat = [&](Value v) {
        auto t = cast<RankedTensorType>(v.getType());
        return e.reshape(
            "aten::reshape", v, {rows * width},
            RankedTensorType::get({rows * width}, t.getElementType()));
      };
      indices = flat(indices);
      if (perSample)
        perSample = flat(perSample);
      Attribute none = e.none();
      offsets = e.callWith("aten::arange.start_step",
                           {e.I(0), e.I(rows * width), e.I(width)},
                           {"dtype", "layout", "device", "pin_memory"},
                           {parseLiteral(ctx, "torch.int64"), none, none, none},
                           RankedTensorType::get({rows}, i64));
    }
    result =
        emitEmbeddingBag(gb, call, node, table, indices, offsets, perSample,
                         modeCode, last.getValue(), padding, why);
    if (!result)
      return failure();
  } else {
    auto flag = [&](StringRef key) {
      auto b = dyn_cast_or_null<BoolAttr>(hp.lookup(key));
      return BoolAttr::get(ctx, b && b.getValue());
    };
    result = gb.call(call, node, "aten::embedding",
                     {NodeAttr::get(ctx, 0), NodeAttr::get(ctx, 1),
                      IntegerAttr::get(IntegerType::get(ctx, 64),
                                       padding ? *padding : -1),
                      flag("scale_grad_by_freq"), flag("sparse")},
                     {}, {}, {table, indices}, call.getResult().getType())
                 .getResult();
  }
  call.getResult().replaceAllUsesWith(result);
  gb.erase(call);
  setNodeName(result.getDefiningOp(), node);
  return success();
}

/// The float state a `get_attr` operand of `call` (its argument `i`)
/// reads, with its values; null when it is not one.
StateOp readStateArg(CallFunctionOp call, unsigned i,
                     std::optional<std::vector<double>> &values) {
  auto ref = dyn_cast_or_null<NodeAttr>(
      i < call.getArgs().size() ? call.getArgs()[i] : Attribute());
  if (!ref || ref.getIndex() >= call.getNumOperands())
    return {};
  auto read = call.getOperand(ref.getIndex()).getDefiningOp<GetAttrOp>();
  StateOp state = read ? lookupState(call->getParentOfType<GraphModuleOp>(),
                                     read.getTarget())
                       : StateOp();
  if (state)
    values = readFloatState(state);
  return values ? state : StateOp();
}

/// `aten::quantize_per_channel` of module state with float zero points
/// (per_channel_affine_float_qparams: the weight of a traced reference-mode
/// Embedding or EmbeddingBag, `get_weight`'s quantize), read only by
/// dequantizes. No quant type holds float zero points, and the value is a
/// constant: the dequantizes read the float state `<weight>_fake_quantized`
/// of the values computed here as ATen computes them, in f32:
/// `q = clamp(rint(x * (1 / scale) + zero_point), lo, hi)`, then `(q -
/// zero_point) * scale`.
LogicalResult foldFloatQParamsQuantize(GraphBuilder &gb, Operation *op,
                                       std::string &why) {
  auto call = dyn_cast<CallFunctionOp>(op);
  if (!call || call.getTarget() != "aten::quantize_per_channel" ||
      call.getArgs().size() != 5 || !call.getKwargs().empty())
    return failure();
  std::optional<std::vector<double>> x, scales, zeroPoints;
  StateOp weight = readStateArg(call, 0, x);
  StateOp zeroState = readStateArg(call, 2, zeroPoints);
  auto zeroType = zeroState ? dyn_cast<RankedTensorType>(zeroState.getType())
                            : RankedTensorType();
  // Integer zero points: a per-channel quantized tensor, lowered as such.
  if (!zeroType || !isa<FloatType>(zeroType.getElementType()))
    return failure();
  auto type =
      dyn_cast_if_present<RankedTensorType>(weight ? weight.getType() : Type());
  auto axisAttr = dyn_cast<IntegerAttr>(call.getArgs()[3]);
  // The dtype by name, or as TorchScript records it: c10's ScalarType code.
  StringRef dtype;
  if (auto d = dyn_cast<DTypeAttr>(call.getArgs()[4]))
    dtype = d.getName();
  else if (auto code = dyn_cast<IntegerAttr>(call.getArgs()[4]))
    switch (code.getInt()) {
    case 12:
      dtype = "qint8";
      break;
    case 13:
      dtype = "quint8";
      break;
    case 16:
      dtype = "quint4x2";
      break;
    case 17:
      dtype = "quint2x4";
      break;
    default:
      dtype = "an unknown dtype";
    }
  if (!readStateArg(call, 1, scales) || !type || !type.hasStaticShape() ||
      !axisAttr || dtype.empty()) {
    why = "a quantization with float zero points needs constant (module "
          "state) values, scales and zero points, and a constant axis and "
          "dtype";
    return failure();
  }
  int64_t lo, hi;
  if (dtype == "quint8")
    lo = 0, hi = 255;
  else if (dtype == "quint4x2")
    lo = 0, hi = 15;
  else if (dtype == "quint2x4")
    lo = 0, hi = 3;
  else if (dtype == "qint8")
    lo = -128, hi = 127;
  else {
    why =
        ("float zero points with dtype " + dtype + " are not supported").str();
    return failure();
  }
  int64_t axis = axisAttr.getInt();
  if (axis < 0)
    axis += type.getRank();
  if (axis < 0 || axis >= type.getRank() ||
      int64_t(scales->size()) != type.getDimSize(axis) ||
      zeroPoints->size() != scales->size()) {
    why = "its scales and zero points do not fit its axis";
    return failure();
  }
  for (Operation *user : call->getUsers()) {
    auto dq = dyn_cast<CallFunctionOp>(user);
    if (!dq || dq.getTarget() != "aten::dequantize.self" ||
        dq.getNumOperands() != 1 ||
        !isa<RankedTensorType>(dq.getResult().getType())) {
      why = "a quantized tensor with float zero points may only be "
            "dequantized";
      return failure();
    }
  }
  std::vector<double> values = fakeQuantizedWithFloatZeroPoints(
      *x, *scales, *zeroPoints, type, axis, lo, hi);
  auto graphModule = call->getParentOfType<GraphModuleOp>();
  std::string name = addFloatState(
      graphModule, weight, (weight.getSymName() + "_fake_quantized").str(),
      RankedTensorType::get(type.getShape(),
                            Float32Type::get(op->getContext())),
      values);
  for (Operation *user : llvm::make_early_inc_range(call->getUsers())) {
    Value floats = gb.readState(name, user);
    user->getResult(0).replaceAllUsesWith(floats);
    gb.erase(user);
  }
  gb.erase(call);
  return success();
}

} // namespace

LogicalResult mlir::fx::rewriteQuantizedModule(GraphBuilder &gb, Operation *op,
                                               std::string &why) {
  if (succeeded(foldFloatQParamsQuantize(gb, op, why)) || !why.empty())
    return success(why.empty());
  auto call = dyn_cast<CallModuleOp>(op);
  if (!call)
    return failure();
  auto module = dyn_cast_or_null<SubmoduleOp>(lookupModuleSymbol(
      op->getParentOfType<GraphModuleOp>(), call.getTargetAttr().getAttr()));
  if (!module)
    return failure();
  StringRef type = module.getModuleType();
  // Quantized dropout passes its input on.
  if (type == "torch.ao.nn.quantized.Dropout" && call.getNumOperands() == 1 &&
      call.getArgs().size() == 1 && isa<NodeAttr>(call.getArgs()[0])) {
    // Its forward returns its input, in training mode too.
    call.getResult().replaceAllUsesWith(call.getOperand(0));
    gb.erase(call);
    return success();
  }
  if (type == "torch.ao.nn.quantized.reference.Embedding" ||
      type == "torch.ao.nn.quantized.reference.EmbeddingBag")
    return expandReferenceEmbedding(gb, call, module, why);
  StringRef referenceTarget =
      llvm::StringSwitch<StringRef>(type)
          .Case("torch.ao.nn.quantized.reference.Linear", "aten::linear")
          .Case("torch.ao.nn.quantized.reference.Conv1d", "aten::conv1d")
          .Case("torch.ao.nn.quantized.reference.Conv2d", "aten::conv2d")
          .Case("torch.ao.nn.quantized.reference.Conv3d", "aten::conv3d")
          .Case("torch.ao.nn.quantized.reference.ConvTranspose1d",
                "aten::conv_transpose1d")
          .Case("torch.ao.nn.quantized.reference.ConvTranspose2d",
                "aten::conv_transpose2d.input")
          .Case("torch.ao.nn.quantized.reference.ConvTranspose3d",
                "aten::conv_transpose3d.input")
          .Default("");
  // Reference mode's fused modules (torch.ao.nn.intrinsic.ConvReLU2d,
  // LinearReLU, ...) hold the reference module as child 0 and the ReLU as
  // child 1.
  bool fusedRelu = false;
  if (type.starts_with("torch.ao.nn.intrinsic.") &&
      !type.starts_with("torch.ao.nn.intrinsic.quantized.") &&
      (type.ends_with("ReLU1d") || type.ends_with("ReLU2d") ||
       type.ends_with("ReLU3d") || type.ends_with(".LinearReLU"))) {
    auto graphModule = op->getParentOfType<GraphModuleOp>();
    auto relu = dyn_cast_or_null<SubmoduleOp>(
        lookupModuleSymbol(graphModule, (module.getSymName() + ".1").str()));
    module = dyn_cast_or_null<SubmoduleOp>(
        lookupModuleSymbol(graphModule, (module.getSymName() + ".0").str()));
    if (!module || !relu || relu.getModuleType() != "torch.nn.ReLU") {
      why = "a fused module must hold a module and a ReLU";
      return failure();
    }
    type = module.getModuleType();
    fusedRelu = true;
    referenceTarget =
        llvm::StringSwitch<StringRef>(type)
            .Case("torch.ao.nn.quantized.reference.Linear", "aten::linear")
            .Case("torch.ao.nn.quantized.reference.Conv1d", "aten::conv1d")
            .Case("torch.ao.nn.quantized.reference.Conv2d", "aten::conv2d")
            .Case("torch.ao.nn.quantized.reference.Conv3d", "aten::conv3d")
            .Default("");
    // A float fused module (a model quantized dynamically keeps its convs
    // float): its float module, bound by the registry, then the ReLU.
    if (referenceTarget.empty() && type.starts_with("torch.nn.") &&
        call.getNumOperands() == 1 && call.getArgs().size() == 1) {
      std::string name = call.getNodeName().str();
      OpBuilder b(call);
      auto inner = CallModuleOp::create(
          b, call.getLoc(), call.getResult().getType(),
          gb.uniqueName(name + "_float"), module.getSymName(), call.getArgs(),
          call.getKwargs(), call->getOperands());
      std::unique_ptr<BoundCall> bound = TargetRegistry::get().bind(inner, why);
      if (!bound) {
        inner.erase();
        return failure();
      }
      Value floatResult = gb.emit(inner, *bound).getResult();
      inner.erase();
      Value relu = floatCall(gb, call, name + "_relu", "aten::relu",
                             {NodeAttr::get(gb.getContext(), 0)}, {floatResult},
                             floatResult.getType());
      call.getResult().replaceAllUsesWith(relu);
      gb.erase(call);
      setNodeName(relu.getDefiningOp(), name);
      return success();
    }
    if (referenceTarget.empty()) {
      why = "this fused module is not supported";
      return failure();
    }
  }
  if (!referenceTarget.empty()) {
    if (call.getNumOperands() != 1 || call.getArgs().size() != 1 ||
        !isa<NodeAttr>(call.getArgs()[0]) ||
        isQuantizedTensor(call.getOperand(0).getType())) {
      why = "a reference module takes one float tensor";
      return failure();
    }
    return expandReferenceModule(gb, call, module, referenceTarget, fusedRelu,
                                 why);
  }
  if (type == "torch.ao.nn.quantized.dynamic.Linear" ||
      type == "torch.ao.nn.intrinsic.quantized.dynamic.LinearReLU")
    return expandDynamicLinear(gb, call, module, type.ends_with("ReLU"), why);
  std::optional<QuantizedModule> kind = quantizedModule(type);
  if (!kind) {
    if (type.starts_with("torch.ao.nn.quantized.") ||
        type.starts_with("torch.ao.nn.intrinsic.quantized."))
      why = "this quantized module is not supported yet";
    return failure();
  }
  if (failed(expandQuantizedModule(gb, call, module, *kind, why))) {
    if (why.empty())
      why = "cannot expand it";
    return failure();
  }
  return success();
}

LogicalResult mlir::fx::writeQuantizedInReferenceForm(GraphBuilder &gb,
                                                      CallFunctionOp call,
                                                      std::string &why) {
  MLIRContext *ctx = gb.getContext();
  StringRef target = call.getTarget();
  if (target == "aten::quantize_per_tensor" ||
      target == "aten::quantize_per_channel" ||
      target == "aten::dequantize.self" || target == "aten::int_repr" ||
      target == "aten::size" || target == "aten::size.int" ||
      target == "aten::dim" || target == "operator.getitem")
    return failure();
  Type resultType = call.getResult().getType();
  bool touches = isQuantizedTensor(resultType) ||
                 llvm::any_of(call->getOperandTypes(), isQuantizedTensor);
  if (!touches)
    return failure();
  // torch.ops.quantized.*: the float operator; their scale and zero point
  // (literals, or 0-d tensors read by get_attr, which the registry cannot
  // bind) are the result's type's.
  StringRef quantizedOp = target;
  if (quantizedOp.consume_front("torch.ops.quantized."))
    quantizedOp.consume_back(".default");
  else if (!quantizedOp.consume_front("quantized::"))
    quantizedOp = "";
  // The scalar overloads TorchScript records (`quantized::mul.Scalar(qa,
  // b)`, `.Scalar2(b, qa)`; `quantized::add_scalar.Tensor(qa, b)` with b a
  // 0-d tensor) are the `_scalar` functions; Scalar2's operands swap.
  std::string scalarOp;
  bool swapped = false;
  if (auto [base, overload] = quantizedOp.split('.');
      overload == "Scalar" || overload == "Scalar2") {
    swapped = overload == "Scalar2";
    StringRef relu = base.consume_back("_relu") ? "_relu" : "";
    scalarOp = (base + "_scalar" + relu).str();
    quantizedOp = scalarOp;
  } else if (overload == "Tensor" && base.contains("_scalar")) {
    quantizedOp = base;
  }
  if (quantizedOp == "dropout" && call->getNumOperands() >= 1 &&
      call.getOperand(0).getType() == resultType) {
    // quantized::dropout returns its input (its output scale and zero
    // point unused), in training mode too.
    call.getResult().replaceAllUsesWith(call.getOperand(0));
    gb.erase(call);
    return success();
  }
  const QuantizedFunction *floatOp = quantizedFunction(quantizedOp);
  if (!floatOp && !target.contains("::"))
    return failure(); // not canonical: the lowering reports it
  // The float operator's args: positional or by their names; the output
  // scale and zero point (and `inplace`) are dropped.
  SmallVector<Attribute> kept;
  if (floatOp) {
    DictAttr kwargs = call.getKwargs();
    for (auto [key, value] : llvm::zip(kwargs.getKeys(), kwargs.getValues())) {
      auto name = dyn_cast<StringAttr>(key);
      if (!name || !(llvm::is_contained(floatOp->params, name.getValue()) ||
                     llvm::is_contained(floatOp->after, name.getValue()) ||
                     llvm::is_contained({"scale", "zero_point", "output_scale",
                                         "output_zero_point", "inplace"},
                                        name.getValue()))) {
        why = "unexpected keyword argument";
        return failure();
      }
    }
    for (unsigned i = 0; i < floatOp->kept; ++i) {
      unsigned position = swapped && i < 2 ? 1 - i : i;
      Attribute a = position < call.getArgs().size()
                        ? call.getArgs()[position]
                        : kwargs.lookup(floatOp->params[i]);
      if (!a) {
        why = ("its argument '" + floatOp->params[i] + "' is missing").str();
        return failure();
      }
      kept.push_back(a);
    }
    // The parameters after the output scale and zero point; a left-out
    // one is its default, 1.0 (the float operator is not bound by the
    // registry, which would fill it in).
    for (auto [i, param] : llvm::enumerate(floatOp->after)) {
      if (param.empty())
        break;
      size_t position = floatOp->kept + 2 + i;
      Attribute a = position < call.getArgs().size() ? call.getArgs()[position]
                                                     : kwargs.lookup(param);
      kept.push_back(a ? a : FloatAttr::get(Float64Type::get(ctx), 1.0));
    }
    if (floatOp->inputStatistics) {
      // (input, weight, bias, eps) -> (input, weight, bias, running_mean,
      // running_var, use_input_stats, momentum, eps[, cudnn_enabled]).
      Attribute eps = kept.pop_back_val();
      kept.append({NoneAttr::get(ctx), NoneAttr::get(ctx),
                   BoolAttr::get(ctx, true),
                   FloatAttr::get(Float64Type::get(ctx), 0.1), eps});
    }
  }
  std::string name = call.getNodeName().str();
  // quantize_per_tensor with its qparams as 0-d tensors (FX's converted
  // models read them with get_attr): the literals of its result's type.
  if (target == "aten::quantize_per_tensor.tensor_qparams") {
    return finish(gb, call, call.getOperand(0), false, why);
  }
  if (isa<TupleType>(resultType)) {
    why = "an operator returning several quantized tensors is not supported";
    return failure();
  }
  // The quantized operands, dequantized once each.
  llvm::DenseMap<Value, Value> dequantized;
  SmallVector<Value> operands;
  for (Value v : call->getOperands()) {
    if (!isQuantizedTensor(v.getType())) {
      operands.push_back(v);
      continue;
    }
    Value &f = dequantized[v];
    if (!f)
      f = dequantize(gb, call, v, name);
    operands.push_back(f);
  }
  Type floatType =
      isQuantizedTensor(resultType) ? expressedType(resultType) : resultType;
  CallFunctionOp floatCallOp;
  ArrayAttr args = call.getArgs();
  if (floatOp) {
    SmallVector<Attribute> floatArgs = kept;
    if (floatOp->alphaOne)
      floatArgs.push_back(IntegerAttr::get(IntegerType::get(ctx, 64), 1));
    if (floatOp->trailingNone)
      floatArgs.push_back(NoneAttr::get(ctx));
    if (floatOp->trailingFalse)
      floatArgs.push_back(BoolAttr::get(ctx, false));
    floatCallOp = gb.call(call, gb.uniqueName(name + "_float"), floatOp->target,
                          floatArgs, {}, {}, operands, floatType);
  } else {
    SmallVector<Attribute> keys(call.getKwargs().getKeys());
    SmallVector<Attribute> values(call.getKwargs().getValues());
    floatCallOp = gb.call(call, gb.uniqueName(name + "_float"), target,
                          args.getValue(), keys, values, operands, floatType);
  }
  return finish(gb, call, floatCallOp.getResult(), floatOp && floatOp->relu,
                why);
}
