//===- State.cpp - The interpreter's module state -------------------------===//
//
// The tensor of an fx.state (aliases followed), decoded once from its
// dense or dense_resource elements into a LibTorch tensor of its dtype and
// shape (a quantized tensor from its storage integers): the weights and
// buffers that get_attr nodes and modules read.
//
//===----------------------------------------------------------------------===//

#include "Values.h"

#include "fx-mlir/Dialect/FX/IR/FXAttrs.h"
#include "fx-mlir/Interpreter/Interpreter.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/APFloat.h"

#include <ATen/ATen.h>

#include <complex>
#include <cstring>

using namespace mlir;
using namespace mlir::fx;
using namespace mlir::fx::interpreter;

namespace {

/// Copies the elements of `dense` into `tensor`, which has its shape and
/// the dtype of its element type.
bool fillFromDense(at::Tensor &tensor, DenseElementsAttr dense,
                   std::string &why) {
  if (dense.getNumElements() != tensor.numel()) {
    why = "has " + std::to_string(dense.getNumElements()) +
          " elements for a tensor of " + std::to_string(tensor.numel());
    return false;
  }
  char *out = static_cast<char *>(tensor.data_ptr());
  size_t size = tensor.element_size();
  int64_t i = 0;
  auto put = [&](auto v) {
    std::memcpy(out + i++ * size, &v, sizeof(v));
    return true;
  };
  Type elementType = dense.getElementType();
  c10::ScalarType dtype = tensor.scalar_type();
  bool ok = true;
  if (isa<IntegerType>(elementType)) {
    for (const APInt &v : dense.getValues<APInt>()) {
      switch (dtype) {
      case c10::ScalarType::Bool:
        put(static_cast<bool>(!v.isZero()));
        break;
      case c10::ScalarType::Byte:
        put(static_cast<uint8_t>(v.getZExtValue()));
        break;
      case c10::ScalarType::Char:
        put(static_cast<int8_t>(v.getSExtValue()));
        break;
      case c10::ScalarType::Short:
        put(static_cast<int16_t>(v.getSExtValue()));
        break;
      case c10::ScalarType::Int:
        put(static_cast<int32_t>(v.getSExtValue()));
        break;
      case c10::ScalarType::Long:
        put(static_cast<int64_t>(v.getSExtValue()));
        break;
      default:
        ok = false;
      }
      if (!ok)
        break;
    }
  } else if (isa<FloatType>(elementType)) {
    for (const APFloat &v : dense.getValues<APFloat>()) {
      switch (dtype) {
      case c10::ScalarType::Float:
        put(v.convertToFloat());
        break;
      case c10::ScalarType::Double:
        put(v.convertToDouble());
        break;
      case c10::ScalarType::Half:
      case c10::ScalarType::BFloat16:
        put(static_cast<uint16_t>(v.bitcastToAPInt().getZExtValue()));
        break;
      default:
        ok = false;
      }
      if (!ok)
        break;
    }
  } else if (isa<ComplexType>(elementType)) {
    for (const std::complex<APFloat> &v :
         dense.getValues<std::complex<APFloat>>()) {
      switch (dtype) {
      case c10::ScalarType::ComplexFloat:
        put(c10::complex<float>(v.real().convertToFloat(),
                                v.imag().convertToFloat()));
        break;
      case c10::ScalarType::ComplexDouble:
        put(c10::complex<double>(v.real().convertToDouble(),
                                 v.imag().convertToDouble()));
        break;
      default:
        ok = false;
      }
      if (!ok)
        break;
    }
  } else {
    ok = false;
  }
  if (!ok)
    why = "has dense elements the interpreter cannot decode";
  return ok;
}

/// The quantized tensor of the storage integers `storage` when
/// `elementType` is a quant type, else `storage` itself.
at::Tensor quantizedFromStorage(const at::Tensor &storage, Type elementType) {
  if (auto uniform = dyn_cast<quant::UniformQuantizedType>(elementType))
    return at::_make_per_tensor_quantized_tensor(storage, uniform.getScale(),
                                                 uniform.getZeroPoint());
  auto perAxis = dyn_cast<quant::UniformQuantizedPerAxisType>(elementType);
  if (!perAxis)
    return storage;
  std::vector<double> scales(perAxis.getScales().begin(),
                             perAxis.getScales().end());
  std::vector<int64_t> zeroPoints(perAxis.getZeroPoints().begin(),
                                  perAxis.getZeroPoints().end());
  return at::_make_per_channel_quantized_tensor(
      storage, at::tensor(scales, at::kDouble),
      at::tensor(zeroPoints, at::kLong), perAxis.getQuantizedDimension());
}

/// The tensor `state` holds, in its dtype and shape; nullopt with `why`
/// when it cannot be decoded.
std::optional<at::Tensor> decodeState(StateOp state, std::string &why) {
  auto type = dyn_cast<RankedTensorType>(state.getType());
  if (!type || !type.hasStaticShape()) {
    why = "does not have a static tensor type";
    return std::nullopt;
  }
  // A quantized tensor's blob holds its storage integers.
  Type elementType = type.getElementType();
  StringRef dtypeName = getElementDTypeName(getStorageElementType(elementType));
  std::optional<c10::ScalarType> dtype =
      dtypeName.empty() ? std::nullopt : getScalarType(dtypeName);
  if (!dtype) {
    std::string typeText;
    llvm::raw_string_ostream os(typeText);
    os << type.getElementType();
    why = "has element type " + typeText + ", which has no LibTorch dtype";
    return std::nullopt;
  }
  ElementsAttr value = state.getValueAttr();
  if (!value) {
    why = "has no value (its weights were not recorded)";
    return std::nullopt;
  }
  ArrayRef<int64_t> shape = type.getShape();
  at::Tensor tensor = at::empty(c10::IntArrayRef(shape.data(), shape.size()),
                                at::TensorOptions().dtype(*dtype));
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob) {
      why = "has no data: its dense_resource blob '" +
            resource.getRawHandle().getKey().str() + "' is not loaded";
      return std::nullopt;
    }
    ArrayRef<char> data = blob->getData();
    if (data.size() != tensor.nbytes()) {
      why = "has a blob of " + std::to_string(data.size()) +
            " bytes, but its type needs " + std::to_string(tensor.nbytes());
      return std::nullopt;
    }
    if (!data.empty())
      std::memcpy(tensor.data_ptr(), data.data(), data.size());
    return quantizedFromStorage(tensor, elementType);
  }
  if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
    if (!fillFromDense(tensor, dense, why))
      return std::nullopt;
    return tensor;
  }
  why = "has a value that is neither dense nor dense_resource elements";
  return std::nullopt;
}

} // namespace

//===----------------------------------------------------------------------===//
// Interpreter: module state
//===----------------------------------------------------------------------===//

FailureOr<at::Tensor> Interpreter::readState(Operation *op, StringRef name) {
  auto cached = stateCache.find(name);
  if (cached != stateCache.end())
    return cached->second;
  Operation *target = module.lookupTarget(name);
  auto state = dyn_cast_or_null<StateOp>(target);
  if (!state) {
    if (isa_and_nonnull<SubmoduleOp>(target))
      emitNodeError(op) << "'" << name
                        << "' is a submodule; the interpreter holds only "
                           "tensor state";
    else
      emitNodeError(op) << "the graph module has no state '" << name << "'";
    return failure();
  }
  StateOp source = state;
  if (FlatSymbolRefAttr alias = state.getAliasAttr()) {
    source = dyn_cast_or_null<StateOp>(module.lookupTarget(alias.getValue()));
    if (!source || source.getAliasAttr()) {
      emitNodeError(op) << "state '" << name << "' aliases " << alias.getValue()
                        << ", which is not state with a value";
      return failure();
    }
    auto it = stateCache.find(source.getSymName());
    if (it != stateCache.end()) {
      at::Tensor tensor = it->second;
      stateCache[name] = tensor;
      return tensor;
    }
  }
  std::string why;
  std::optional<at::Tensor> tensor = decodeState(source, why);
  if (!tensor) {
    emitNodeError(op) << "state '" << source.getSymName() << "' " << why;
    return failure();
  }
  stateCache[source.getSymName()] = *tensor;
  stateCache[name] = *tensor;
  return *tensor;
}
