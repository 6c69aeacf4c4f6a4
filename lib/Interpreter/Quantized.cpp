//===- Quantized.cpp - Quantized modules in the interpreter ---------------===//
//
// The interpreter runs a quantized module as PyTorch does: its unpacked
// weight and bias (module state) prepacked for the current quantized
// engine, then its quantized operator (`quantized::conv2d_relu`,
// `quantized::linear`, `quantized::linear_dynamic`, ...) with its output
// scale and zero point. So `fx-run --check` compares the compiled code (the
// reference form, docs/Quantization.md) with PyTorch's quantized engine.
//
//===----------------------------------------------------------------------===//

#include "fx-mlir/Dialect/FX/IR/FXAttrs.h"
#include "fx-mlir/Interpreter/Interpreter.h"

#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace mlir::fx;

namespace {

/// How a quantized module runs: the prepack operator for its weights (or
/// none), its operator, and whether the operator takes the output scale
/// and zero point.
struct QuantizedKind {
  StringRef prepack, run;
  bool takesQParams = true;
};

std::optional<QuantizedKind> quantizedKind(StringRef type) {
  return llvm::StringSwitch<std::optional<QuantizedKind>>(type)
      .Case("torch.ao.nn.quantized.Conv1d",
            QuantizedKind{"quantized::conv1d_prepack", "quantized::conv1d"})
      .Case("torch.ao.nn.quantized.Conv2d",
            QuantizedKind{"quantized::conv2d_prepack", "quantized::conv2d.new"})
      .Case("torch.ao.nn.quantized.Conv3d",
            QuantizedKind{"quantized::conv3d_prepack", "quantized::conv3d.new"})
      .Case(
          "torch.ao.nn.intrinsic.quantized.ConvReLU1d",
          QuantizedKind{"quantized::conv1d_prepack", "quantized::conv1d_relu"})
      .Case("torch.ao.nn.intrinsic.quantized.ConvReLU2d",
            QuantizedKind{"quantized::conv2d_prepack",
                          "quantized::conv2d_relu.new"})
      .Case("torch.ao.nn.intrinsic.quantized.ConvReLU3d",
            QuantizedKind{"quantized::conv3d_prepack",
                          "quantized::conv3d_relu.new"})
      .Case("torch.ao.nn.quantized.ConvTranspose1d",
            QuantizedKind{"quantized::conv_transpose1d_prepack",
                          "quantized::conv_transpose1d"})
      .Case("torch.ao.nn.quantized.ConvTranspose2d",
            QuantizedKind{"quantized::conv_transpose2d_prepack",
                          "quantized::conv_transpose2d"})
      .Case("torch.ao.nn.quantized.ConvTranspose3d",
            QuantizedKind{"quantized::conv_transpose3d_prepack",
                          "quantized::conv_transpose3d"})
      .Case("torch.ao.nn.quantized.Linear",
            QuantizedKind{"quantized::linear_prepack", "quantized::linear"})
      .Case(
          "torch.ao.nn.intrinsic.quantized.LinearReLU",
          QuantizedKind{"quantized::linear_prepack", "quantized::linear_relu"})
      .Case("torch.ao.nn.quantized.dynamic.Linear",
            QuantizedKind{"quantized::linear_prepack",
                          "quantized::linear_dynamic", false})
      .Case("torch.ao.nn.intrinsic.quantized.dynamic.LinearReLU",
            QuantizedKind{"quantized::linear_prepack",
                          "quantized::linear_relu_dynamic", false})
      .Default(std::nullopt);
}

/// A quantized module without a packed weight: its operator and the
/// operator's arguments after the input, in order: `@field` the module's
/// float state (None when it has none), `%key=default` a hyperparameter,
/// `scale` and `zero_point` the output's, literal `true`/`false`, and a
/// literal number.
struct WeightlessKind {
  StringRef run;
  SmallVector<StringRef, 8> args;
};

std::optional<WeightlessKind> weightlessKind(StringRef type) {
  using K = std::optional<WeightlessKind>;
  const SmallVector<StringRef, 8> batchNorm = {
      "@weight",   "@bias", "@running_mean", "@running_var",
      "%eps=1e-5", "scale", "zero_point"};
  return llvm::StringSwitch<K>(type)
      .Case("torch.ao.nn.quantized.Hardswish",
            WeightlessKind{"quantized::hardswish", {"scale", "zero_point"}})
      .Case("torch.ao.nn.quantized.Sigmoid",
            WeightlessKind{"quantized::sigmoid", {"scale", "zero_point"}})
      .Case("torch.ao.nn.quantized.ReLU6",
            WeightlessKind{"quantized::relu6", {"false"}})
      .Case("torch.ao.nn.quantized.LeakyReLU",
            WeightlessKind{
                "quantized::leaky_relu",
                {"%negative_slope=0.01", "false", "scale", "zero_point"}})
      .Case("torch.ao.nn.quantized.ELU",
            WeightlessKind{"quantized::elu",
                           {"scale", "zero_point", "%alpha=1.0", "1.0", "1.0"}})
      .Case("torch.ao.nn.quantized.Softmax",
            WeightlessKind{"quantized::softmax",
                           {"%dim=-1", "scale", "zero_point"}})
      .Case("torch.ao.nn.quantized.BatchNorm2d",
            WeightlessKind{"quantized::batch_norm2d", batchNorm})
      .Case("torch.ao.nn.quantized.BatchNorm3d",
            WeightlessKind{"quantized::batch_norm3d", batchNorm})
      .Case("torch.ao.nn.intrinsic.quantized.BNReLU2d",
            WeightlessKind{"quantized::batch_norm2d_relu", batchNorm})
      .Case("torch.ao.nn.intrinsic.quantized.BNReLU3d",
            WeightlessKind{"quantized::batch_norm3d_relu", batchNorm})
      .Case("torch.ao.nn.quantized.LayerNorm",
            WeightlessKind{"quantized::layer_norm",
                           {"%normalized_shape", "@weight", "@bias",
                            "%eps=1e-5", "scale", "zero_point"}})
      .Cases({"torch.ao.nn.quantized.InstanceNorm1d",
              "torch.ao.nn.quantized.InstanceNorm2d",
              "torch.ao.nn.quantized.InstanceNorm3d"},
             WeightlessKind{
                 "quantized::instance_norm",
                 {"@weight", "@bias", "%eps=1e-5", "scale", "zero_point"}})
      .Default(std::nullopt);
}

} // namespace

FailureOr<c10::IValue>
Interpreter::callQuantizedModule(CallModuleOp op, SubmoduleOp submodule,
                                 ArrayRef<c10::IValue> args,
                                 const Kwargs &kwargs, bool &handled) {
  StringRef type = submodule.getModuleType();
  handled = true;
  if (args.size() != 1 || !kwargs.empty() || !args[0].isTensor()) {
    if (!type.starts_with("torch.ao.nn.quantized.") &&
        !type.starts_with("torch.ao.nn.intrinsic.quantized.")) {
      handled = false;
      return failure();
    }
    emitNodeError(op) << type << " takes one tensor";
    return failure();
  }
  // Dropout's and DeQuantize's forward; Quantize's.
  if (type == "torch.ao.nn.quantized.Dropout")
    return args[0];
  if (type == "torch.ao.nn.quantized.DeQuantize")
    return callOperator(op, "aten::dequantize.self", {args[0]});
  std::optional<QuantizedKind> kind = quantizedKind(type);
  DictAttr hp = submodule.getHparams();
  auto scale = dyn_cast_or_null<FloatAttr>(hp.lookup("scale"));
  auto zeroPoint = dyn_cast_or_null<IntegerAttr>(hp.lookup("zero_point"));
  if (type == "torch.ao.nn.quantized.Quantize") {
    auto dtype = dyn_cast_or_null<DTypeAttr>(hp.lookup("dtype"));
    if (!scale || !zeroPoint || !dtype) {
      emitNodeError(op) << type << " needs its scale, zero_point and dtype";
      return failure();
    }
    FailureOr<c10::IValue> d = evaluate(op, dtype, {});
    if (failed(d))
      return failure();
    return callOperator(
        op, "aten::quantize_per_tensor",
        {args[0], scale.getValueAsDouble(), zeroPoint.getInt(), *d});
  }
  // The output scale and zero point of a static quantized module: its
  // hyperparameters, or the `scale` and `zero_point` buffers the quantized
  // norms keep (BNReLU2d records them only there).
  auto outputQParams = [&](double &outScale,
                           int64_t &outZeroPoint) -> LogicalResult {
    auto s = dyn_cast_or_null<FloatAttr>(hp.lookup("scale"));
    auto z = dyn_cast_or_null<IntegerAttr>(hp.lookup("zero_point"));
    if (s && z) {
      outScale = s.getValueAsDouble();
      outZeroPoint = z.getInt();
      return success();
    }
    std::string path = submodule.getSymName().str();
    if (!module.lookupTarget(path + ".scale") ||
        !module.lookupTarget(path + ".zero_point"))
      return failure();
    FailureOr<at::Tensor> st = readState(op, path + ".scale");
    FailureOr<at::Tensor> zt = readState(op, path + ".zero_point");
    if (failed(st) || failed(zt) || st->numel() != 1 || zt->numel() != 1)
      return failure();
    outScale = st->item<double>();
    outZeroPoint = zt->item<int64_t>();
    return success();
  };
  if (std::optional<WeightlessKind> weightless = weightlessKind(type)) {
    std::string path = submodule.getSymName().str();
    std::vector<c10::IValue> stack = {args[0]};
    double outScale = 0;
    int64_t outZeroPoint = 0;
    bool needsQParams = llvm::is_contained(weightless->args, "scale");
    if (needsQParams && failed(outputQParams(outScale, outZeroPoint))) {
      emitNodeError(op) << type << " records no output scale and zero point";
      return failure();
    }
    for (StringRef arg : weightless->args) {
      if (arg == "scale") {
        stack.push_back(outScale);
      } else if (arg == "zero_point") {
        stack.push_back(outZeroPoint);
      } else if (arg == "true" || arg == "false") {
        stack.push_back(arg == "true");
      } else if (arg.consume_front("@")) {
        std::string field = path + "." + arg.str();
        if (!module.lookupTarget(field)) {
          stack.push_back(c10::IValue());
          continue;
        }
        FailureOr<at::Tensor> t = readState(op, field);
        if (failed(t))
          return failure();
        stack.push_back(*t);
      } else if (arg.consume_front("%")) {
        auto [key, fallback] = arg.split('=');
        Attribute a = hp.lookup(key);
        if (!a && fallback.empty()) {
          emitNodeError(op) << type << " records no '" << key << "'";
          return failure();
        }
        if (!a) {
          double number;
          fallback.getAsDouble(number);
          stack.push_back(number);
          continue;
        }
        FailureOr<c10::IValue> v = evaluate(op, a, {});
        if (failed(v))
          return failure();
        stack.push_back(*v);
      } else {
        double number = 0;
        (void)arg.getAsDouble(number);
        stack.push_back(number);
      }
    }
    return callOperator(op, weightless->run, std::move(stack));
  }
  if (!kind) {
    handled = false;
    return failure();
  }
  if (kind->takesQParams && (!scale || !zeroPoint)) {
    emitNodeError(op) << type << " records no output scale and zero point";
    return failure();
  }
  std::vector<c10::IValue> stack = {args[0]};
  if (!kind->prepack.empty()) {
    std::string path = submodule.getSymName().str();
    FailureOr<at::Tensor> weight = readState(op, path + ".weight");
    if (failed(weight))
      return failure();
    c10::IValue bias;
    if (module.lookupTarget(path + ".bias")) {
      FailureOr<at::Tensor> b = readState(op, path + ".bias");
      if (failed(b))
        return failure();
      bias = *b;
    }
    std::vector<c10::IValue> prepackArgs = {*weight, bias};
    if (kind->prepack != "quantized::linear_prepack") {
      SmallVector<StringRef, 5> keys = {"stride", "padding", "dilation",
                                        "groups"};
      if (kind->prepack.contains("transpose"))
        keys = {"stride", "padding", "output_padding", "dilation", "groups"};
      for (StringRef key : keys) {
        Attribute a = hp.lookup(key);
        FailureOr<c10::IValue> v =
            a ? evaluate(op, a, {}) : FailureOr<c10::IValue>(failure());
        if (failed(v)) {
          emitNodeError(op) << type << " records no '" << key << "'";
          return failure();
        }
        prepackArgs.push_back(*v);
      }
    }
    FailureOr<c10::IValue> packed =
        callOperator(op, kind->prepack, std::move(prepackArgs));
    if (failed(packed))
      return failure();
    stack.push_back(*packed);
  }
  if (kind->takesQParams) {
    stack.push_back(scale.getValueAsDouble());
    stack.push_back(zeroPoint.getInt());
  } else {
    stack.push_back(true); // reduce_range, as the dynamic modules pass it
  }
  return callOperator(op, kind->run, std::move(stack));
}
