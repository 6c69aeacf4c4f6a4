//===- Int8Conv.h - Which grouped convs the int8 kernels take ---*- C++ -*-===//
//
// Shared by fx-fold-quant (which convs it keeps in integers) and the
// lowering (lib/Conversion/FXToLinalg/QuantizedConv.cpp), so that both
// decide alike.
//
//===----------------------------------------------------------------------===//

#ifndef FX_MLIR_DIALECT_FX_TRANSFORMS_INT8CONV_H
#define FX_MLIR_DIALECT_FX_TRANSFORMS_INT8CONV_H

#include <algorithm>
#include <cstdint>
#include <optional>

namespace mlir::fx {

/// How the VNNI register tile covers a grouped conv (1 < groups, not
/// depthwise): blocks of `lanes` (16 or 32) output channels, block b
/// reading the `sliceChannels` input channels from sliceStart(b), the
/// first channel of the group its first output channel is in. A block
/// holds whole groups (groups of at most `lanes` output channels; the last
/// block may hold fewer, its slice then reaching into channels padded
/// with the zero point), lies in one group (larger groups, several blocks
/// reading the same slice), or straddles up to three groups whose sizes
/// do not line up with it (regnet's groups of 24 output channels: blocks
/// of 32 reading two groups' 48 channels). Weights of other groups in a
/// block are zeros. None where no such cover holds or the slices' starts
/// are not made of 4-channel groups.
struct Int8GroupedBlocks {
  int64_t lanes, sliceChannels;
  /// Output and input channels of a group.
  int64_t groupOut, groupIn;
  int64_t sliceStart(int64_t block) const {
    return block * lanes / groupOut * groupIn;
  }
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
      return Int8GroupedBlocks{lanes, (lanes / ocg) * cg, ocg, cg};
    if (whole && ocg % lanes == 0 && cg % 4 == 0)
      return Int8GroupedBlocks{lanes, cg, ocg, cg};
  }
  // Straddling blocks: the groups each block's channels fall in, at most
  // three; the block size that straddles fewest.
  if (cg % 4 != 0)
    return std::nullopt;
  std::optional<Int8GroupedBlocks> best;
  int64_t bestSpan = 4;
  for (int64_t lanes : {32, 16}) {
    int64_t span = 0;
    for (int64_t first = 0; first < outChannels; first += lanes) {
      int64_t last = std::min(first + lanes, outChannels) - 1;
      span = std::max(span, last / ocg - first / ocg + 1);
    }
    if (span < bestSpan) {
      best = Int8GroupedBlocks{lanes, span * cg, ocg, cg};
      bestSpan = span;
    }
  }
  return best;
}

} // namespace mlir::fx

#endif // FX_MLIR_DIALECT_FX_TRANSFORMS_INT8CONV_H
