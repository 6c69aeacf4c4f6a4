//===- TorchDTypes.h - torch dtype names <-> at::ScalarType -----*- C++ -*-===//
//
// The runtime names dtypes as torch does (float32, int64, bool, ...); the
// tools and bindings that hold at::Tensors convert with these. Header-only,
// for LibTorch users (fx-run, the Python module).
//
//===----------------------------------------------------------------------===//

#ifndef FX_MLIR_RUNTIME_TORCHDTYPES_H
#define FX_MLIR_RUNTIME_TORCHDTYPES_H

#include <c10/core/ScalarType.h>
#include <optional>
#include <string>
#include <utility>

namespace mlir::fx {

inline const std::pair<const char *, c10::ScalarType> *
getTorchDTypeTable(size_t &size) {
  static const std::pair<const char *, c10::ScalarType> table[] = {
#define FX_DTYPE(NAME, ELEMENT_TYPE, BYTES, SCALAR_TYPE, NPY)                  \
  {#NAME, c10::ScalarType::SCALAR_TYPE},
#include "fx-mlir/Dialect/FX/IR/DTypes.def"
  };
  size = std::size(table);
  return table;
}

/// The torch dtype name of `type` (`float32`), or LibTorch's own name for
/// types the runtime has no name for (so a mismatch message names it).
inline std::string getTorchDTypeName(c10::ScalarType type) {
  size_t size;
  const auto *table = getTorchDTypeTable(size);
  for (size_t i = 0; i < size; ++i)
    if (table[i].second == type)
      return table[i].first;
  return c10::toString(type);
}

/// The at::ScalarType of a torch dtype name, if it has one.
inline std::optional<c10::ScalarType>
getTorchScalarType(const std::string &name) {
  size_t size;
  const auto *table = getTorchDTypeTable(size);
  for (size_t i = 0; i < size; ++i)
    if (name == table[i].first)
      return table[i].second;
  return std::nullopt;
}

} // namespace mlir::fx

#endif // FX_MLIR_RUNTIME_TORCHDTYPES_H
