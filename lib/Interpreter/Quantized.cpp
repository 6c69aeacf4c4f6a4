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
      .Case("torch.ao.nn.quantized.Hardswish",
            QuantizedKind{"", "quantized::hardswish"})
      .Case("torch.ao.nn.quantized.Sigmoid",
            QuantizedKind{"", "quantized::sigmoid"})
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
      for (StringRef key : {"stride", "padding", "dilation", "groups"}) {
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
