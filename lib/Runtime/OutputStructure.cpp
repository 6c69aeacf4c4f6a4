//===- OutputStructure.cpp - A graph's outputs as JSON --------------------===//
//
// The fx.output args of a lowered graph as JSON, which the Python package
// rebuilds the outputs from (tuples, lists, dicts, constants, numbers and
// quantized tensors of the results).
//
//===----------------------------------------------------------------------===//

#include "OutputStructure.h"
#include "fx-mlir/Dialect/FX/IR/FXAttrs.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"

using namespace mlir;
using namespace mlir::fx;

/// `v` as text that reads back as the same double.
static std::string floatText(double v) {
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%.17g", v);
  return text;
}

/// The fx.output args as JSON, what the Python package rebuilds outputs
/// from with no parser of MLIR syntax: an array (the args), a result index
/// for a node, null for None, {"tuple": [...]}, {"list": [...]},
/// {"dict": [[key, value], ...]} (string or int keys), a Python number,
/// bool or string the graph returns as is as {"value": v} (a float as
/// {"float": "<%.17g>"}, which keeps 10.0 a float and inf and nan
/// readable, a complex as {"complex": [re, im]} of such strings),
/// the JSON `leaves` holds for a node whose result has one ({"number": i},
/// {"quantized": i, ...}), and {"unsupported": "<attribute>"} for anything
/// else.
static llvm::json::Value
structureJSON(Attribute value,
              const llvm::DenseMap<unsigned, llvm::json::Value> &leaves) {
  auto elements = [&](ArrayRef<Attribute> items) {
    llvm::json::Array array;
    for (Attribute item : items)
      array.push_back(structureJSON(item, leaves));
    return array;
  };
  if (auto node = dyn_cast<NodeAttr>(value)) {
    auto leaf = leaves.find(node.getIndex());
    if (leaf != leaves.end())
      return leaf->second;
    return int64_t(node.getIndex());
  }
  if (isa<NoneAttr>(value))
    return nullptr;
  if (auto flag = dyn_cast<BoolAttr>(value))
    return llvm::json::Object{{"value", flag.getValue()}};
  if (auto integer = dyn_cast<IntegerAttr>(value))
    return llvm::json::Object{{"value", integer.getInt()}};
  if (auto real = dyn_cast<FloatAttr>(value))
    return llvm::json::Object{{"float", floatText(real.getValueAsDouble())}};
  if (auto complex = dyn_cast<ComplexAttr>(value))
    return llvm::json::Object{
        {"complex",
         llvm::json::Array{floatText(complex.getReal().convertToDouble()),
                           floatText(complex.getImag().convertToDouble())}}};
  if (auto text = dyn_cast<StringAttr>(value))
    return llvm::json::Object{{"value", text.getValue().str()}};
  if (auto array = dyn_cast<ArrayAttr>(value))
    return elements(array.getValue());
  if (auto tuple = dyn_cast<TupleAttr>(value))
    return llvm::json::Object{{"tuple", elements(tuple.getElements())}};
  if (auto list = dyn_cast<ListAttr>(value))
    return llvm::json::Object{{"list", elements(list.getElements())}};
  if (auto dict = dyn_cast<DictAttr>(value)) {
    llvm::json::Array pairs;
    for (auto [key, item] : llvm::zip(dict.getKeys(), dict.getValues())) {
      llvm::json::Value jsonKey = nullptr;
      if (auto text = dyn_cast<StringAttr>(key))
        jsonKey = text.getValue().str();
      else if (auto integer = dyn_cast<IntegerAttr>(key))
        jsonKey = integer.getInt();
      else
        break;
      pairs.push_back(
          llvm::json::Array{std::move(jsonKey), structureJSON(item, leaves)});
    }
    if (pairs.size() == dict.getKeys().size())
      return llvm::json::Object{{"dict", std::move(pairs)}};
  }
  std::string text;
  llvm::raw_string_ostream(text) << value;
  return llvm::json::Object{{"unsupported", text}};
}

/// The quantization of element type `type` as JSON: {"dtype": "quint8",
/// "scale": "<%.17g>", "zero_point": z}, or, per channel, "axis",
/// "scales" and "zero_points" instead of "scale" and "zero_point".
static llvm::json::Object quantizationObject(quant::QuantizedType type) {
  llvm::json::Object leaf{{"dtype", getQuantizedDTypeName(type).str()}};
  if (auto tensor = dyn_cast<quant::UniformQuantizedType>(type)) {
    leaf["scale"] = floatText(tensor.getScale());
    leaf["zero_point"] = tensor.getZeroPoint();
  } else if (auto channels =
                 dyn_cast<quant::UniformQuantizedPerAxisType>(type)) {
    llvm::json::Array scales, zeroPoints;
    for (double s : channels.getScales())
      scales.push_back(floatText(s));
    for (int64_t z : channels.getZeroPoints())
      zeroPoints.push_back(z);
    leaf["axis"] = int64_t(channels.getQuantizedDimension());
    leaf["scales"] = std::move(scales);
    leaf["zero_points"] = std::move(zeroPoints);
  }
  return leaf;
}

/// The JSON of result `index` of quantized element type `type`: its
/// quantization with "quantized": index.
static llvm::json::Value quantizedLeaf(unsigned index,
                                       quant::QuantizedType type) {
  llvm::json::Object leaf = quantizationObject(type);
  leaf["quantized"] = int64_t(index);
  return leaf;
}

std::string mlir::fx::inputQuantizationJSON(func::FuncOp func, unsigned index) {
  auto type = func.getArgAttrOfType<TypeAttr>(index, "fx.quantized");
  auto quantized =
      type ? dyn_cast<quant::QuantizedType>(type.getValue()) : nullptr;
  if (!quantized)
    return "";
  std::string text;
  llvm::raw_string_ostream(text)
      << llvm::json::Value(quantizationObject(quantized));
  return text;
}

std::string mlir::fx::outputStructureJSON(func::FuncOp func) {
  // Results marked fx.number (0-d tensors of a number the graph returns)
  // are {"number": i}: the Python package returns their value. Results
  // marked fx.quantized (a quantized tensor's storage integers) carry their
  // quantization parameters: it returns a quantized tensor.
  llvm::DenseMap<unsigned, llvm::json::Value> leaves;
  for (unsigned i = 0; i < func.getNumResults(); ++i) {
    if (func.getResultAttr(i, "fx.number"))
      leaves.try_emplace(i, llvm::json::Object{{"number", int64_t(i)}});
    if (auto type = func.getResultAttrOfType<TypeAttr>(i, "fx.quantized"))
      if (auto quantized = dyn_cast<quant::QuantizedType>(type.getValue()))
        leaves.try_emplace(i, quantizedLeaf(i, quantized));
  }
  std::string text;
  llvm::raw_string_ostream(text)
      << structureJSON(func->getAttr("fx.output"), leaves);
  return text;
}
