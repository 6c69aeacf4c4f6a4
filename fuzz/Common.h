//===- Common.h - What the IR fuzz targets share ----------------*- C++ -*-===//

#ifndef FX_MLIR_FUZZ_COMMON_H
#define FX_MLIR_FUZZ_COMMON_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"

#include <cstddef>
#include <cstdint>
#include <memory>

namespace fuzz {

/// Whether brackets nest deeper than MLIR's own recursive parsers (types,
/// attributes, regions: upstream's) take without running out of stack;
/// the fx value parser stops at 200 levels with an error, which inputs up
/// to this depth exercise.
inline bool nestsTooDeep(const uint8_t *data, size_t size) {
  int depth = 0;
  for (size_t i = 0; i < size; ++i) {
    char c = char(data[i]);
    depth += c == '(' || c == '[' || c == '{' || c == '<';
    depth -= depth > 0 && (c == ')' || c == ']' || c == '}' || c == '>');
    if (depth > 300)
      return true;
  }
  return false;
}

/// Whether a hex blob (`"0x..."`, as resource blobs are written) declares
/// an alignment that is not a power of two: upstream's resource parser
/// passes it to the allocator, which aborts ("out of memory"; found by
/// fuzz-lower, not ours to fix: docs/Reliability.md). Such inputs are
/// skipped.
inline bool hasBadBlobAlignment(const uint8_t *data, size_t size) {
  auto hex = [](uint8_t c) -> int {
    if (c >= '0' && c <= '9')
      return c - '0';
    if (c >= 'a' && c <= 'f')
      return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
      return c - 'A' + 10;
    return -1;
  };
  for (size_t i = 0; i + 3 < size; ++i) {
    if (data[i] != '"' || data[i + 1] != '0' ||
        (data[i + 2] != 'x' && data[i + 2] != 'X'))
      continue;
    // The first 4 bytes, little-endian: the alignment.
    uint32_t alignment = 0;
    size_t at = i + 3;
    for (int byte = 0; byte < 4 && at + 1 < size; ++byte, at += 2) {
      int hi = hex(data[at]), lo = hex(data[at + 1]);
      if (hi < 0 || lo < 0)
        break;
      alignment |= uint32_t(hi * 16 + lo) << (8 * byte);
    }
    if (alignment == 0 || (alignment & (alignment - 1)) != 0)
      return true;
  }
  return false;
}

/// A context with the dialects `Dialects`, diagnostics swallowed, made
/// again every `renew` inputs (a context keeps every type and attribute it
/// has seen).
template <typename... Dialects> mlir::MLIRContext &context(unsigned renew) {
  static std::unique_ptr<mlir::MLIRContext> ctx;
  static unsigned uses = 0;
  if (!ctx || ++uses % renew == 0) {
    mlir::DialectRegistry registry;
    registry.insert<Dialects...>();
    ctx = std::make_unique<mlir::MLIRContext>(registry);
    ctx->loadAllAvailableDialects();
    ctx->printOpOnDiagnostic(false);
    ctx->getDiagEngine().registerHandler(
        [](mlir::Diagnostic &) { return mlir::success(); });
  }
  return *ctx;
}

} // namespace fuzz

#endif // FX_MLIR_FUZZ_COMMON_H
