//===- Int8Conv.h - Which grouped convs the int8 kernels take ---*- C++ -*-===//
//
// Shared by fx-fold-quant (which convs it keeps in integers) and the
// lowering (lib/Conversion/FXToLinalg/QuantizedConv.cpp), so that both
// decide alike.
//
//===----------------------------------------------------------------------===//

#ifndef FX_MLIR_DIALECT_FX_TRANSFORMS_INT8CONV_H
#define FX_MLIR_DIALECT_FX_TRANSFORMS_INT8CONV_H

#include <cstdint>
#include <optional>

namespace mlir::fx {

/// How the VNNI register tile covers a grouped conv (1 < groups, not
/// depthwise): blocks of `lanes` (16 or 32) output channels, each reading
/// one slice of `sliceChannels` input channels: the whole groups a block
/// holds (groups of at most `lanes` output channels; the last block may
/// hold fewer, its slice then reaching into channels padded with the zero
/// point), or the group it lies in (larger groups, `blocksPerSlice`
/// blocks reading the same slice). Weights of other groups in a block are
/// zeros. None where blocks and groups do not line up or a slice is not
/// made of 4-channel groups.
struct Int8GroupedBlocks {
  int64_t lanes, blocksPerSlice, sliceChannels;
};

inline std::optional<Int8GroupedBlocks>
int8GroupedBlocks(int64_t channels, int64_t outChannels, int64_t groups) {
  if (groups <= 1 || channels % groups != 0 || outChannels % groups != 0)
    return std::nullopt;
  int64_t cg = channels / groups, ocg = outChannels / groups;
  for (int64_t lanes : {32, 16}) {
    // Blocks of 32 only where they fill up (fewer padded channels).
    bool whole = outChannels % lanes == 0;
    if (!whole && lanes == 32)
      continue;
    if (lanes % ocg == 0 && (lanes / ocg) * cg % 4 == 0)
      return Int8GroupedBlocks{lanes, 1, (lanes / ocg) * cg};
    if (whole && ocg % lanes == 0 && cg % 4 == 0)
      return Int8GroupedBlocks{lanes, ocg / lanes, cg};
  }
  return std::nullopt;
}

} // namespace mlir::fx

#endif // FX_MLIR_DIALECT_FX_TRANSFORMS_INT8CONV_H
