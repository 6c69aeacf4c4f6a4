//===- CPUTarget.h - What the CPU schedule and code generator target -*- C++
//-*-===//
//
// A CPU as the schedule sees it: vector width, vector registers, FMA, cache
// sizes and cores, with the LLVM triple, CPU name and features the code is
// generated for. Read from the host, or named (`x86-64-v3`, `znver4`, ...).
//
//===----------------------------------------------------------------------===//

#ifndef FX_MLIR_CONVERSION_LINALGTOCPU_CPUTARGET_H
#define FX_MLIR_CONVERSION_LINALGTOCPU_CPUTARGET_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlir::fx {

struct CPUTarget {
  /// The name it was looked up by: `host` or one of knownNames().
  std::string name;
  /// LLVM target triple, CPU name and feature string ("+avx2,-avx512f,...";
  /// empty: the CPU's own).
  std::string triple, cpu, features;
  /// f32 elements of one vector register, and vector registers.
  int64_t f32Lanes = 16;
  int64_t vectorRegisters = 32;
  /// Fused multiply-add instructions.
  bool fma = true;
  /// u8 x s8 dot products into i32 lanes (AVX-512 VNNI `vpdpbusd`): the
  /// int8 convolutions of quantized models use them.
  bool int8Dot = false;
  /// No int8Dot, but i16 x i16 dot products of pairs into i32 lanes
  /// (AVX2 `vpmaddwd`): the int8 convolutions read their bytes widened to
  /// i16 pairs (exact, as `vpdpbusd`; XNNPACK's AVX2 form).
  bool int8Pairs = false;
  /// Data cache sizes in bytes: L1 and L2 per core, L3 shared.
  int64_t l1 = 32 << 10, l2 = 1 << 20, l3 = 32 << 20;
  /// Cores the code may run on (the host's; 0 for a named target).
  int64_t cores = 0;

  /// The host, as LLVM and the OS describe it (computed once).
  static const CPUTarget &host();
  /// `name`: "host" (or empty) or a known name; std::nullopt otherwise.
  static std::optional<CPUTarget> lookup(StringRef name);
  /// The names lookup knows besides "host".
  static ArrayRef<StringRef> knownNames();

  /// Whether code for this target runs on this host (same architecture,
  /// and every feature the target needs is the host's).
  bool runsOnHost() const;

  /// What a CPU must have to run this target's code, as an ahead-of-time
  /// library records it for its loader: the architecture (`x86_64`,
  /// `aarch64`), then the vector ISA features among those a loader can
  /// test (sse4.2, avx, avx2, fma, avx512f/bw/dq/vl/cd/vnni).
  std::vector<std::string> requirements() const;

  /// One line: name, triple, CPU, lanes, registers, FMA, caches. What the
  /// compile cache keys on and what the schedule records in the IR.
  std::string describe() const;
};

} // namespace mlir::fx

#endif // FX_MLIR_CONVERSION_LINALGTOCPU_CPUTARGET_H
