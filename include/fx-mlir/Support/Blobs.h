//===- Blobs.h - Resource blobs copied from host bytes ----------*- C++ -*-===//
//
// HeapAsmResourceBlob::allocateAndCopyWithAlign memcpys from the data
// pointer of the bytes it is given, also when there are none; an empty
// std::vector or tensor may have a null data pointer, and memcpy must not
// be given null even for 0 bytes (UBSan reports it: fuzz-lower found one).
// Every constant fx-mlir builds from host bytes goes through copiedBlob.
//
//===----------------------------------------------------------------------===//

#ifndef FX_MLIR_SUPPORT_BLOBS_H
#define FX_MLIR_SUPPORT_BLOBS_H

#include "mlir/IR/AsmState.h"
#include "llvm/ADT/ArrayRef.h"

#include <cstddef>

namespace mlir::fx {

/// A heap blob holding a copy of `bytes`, aligned to `align`; a blob of no
/// bytes when `bytes` is empty, whatever its data pointer.
inline AsmResourceBlob copiedBlob(llvm::ArrayRef<char> bytes, size_t align) {
  static const char kNoBytes = 0;
  return HeapAsmResourceBlob::allocateAndCopyWithAlign(
      bytes.empty() ? llvm::ArrayRef<char>(&kNoBytes, size_t(0)) : bytes,
      align);
}

/// copiedBlob of the bytes of `values`.
template <typename T> AsmResourceBlob copiedBlob(llvm::ArrayRef<T> values) {
  return copiedBlob(
      llvm::ArrayRef<char>(reinterpret_cast<const char *>(values.data()),
                           values.size() * sizeof(T)),
      alignof(T));
}

} // namespace mlir::fx

#endif // FX_MLIR_SUPPORT_BLOBS_H
