//===- NormalizeSpecial.h - Rewrites of fx-normalize beyond aliases -*- C++
//-*-===//
//
// The calls fx-normalize rewrites by code rather than by a registry alias,
// each family in its own file.
//
//===----------------------------------------------------------------------===//

#ifndef FX_MLIR_LIB_DIALECT_FX_TRANSFORMS_NORMALIZESPECIAL_H
#define FX_MLIR_LIB_DIALECT_FX_TRANSFORMS_NORMALIZESPECIAL_H

#include "fx-mlir/Dialect/FX/Transforms/GraphBuilder.h"

#include <string>

namespace mlir::fx {

/// Adaptive max pooling, adaptive average pooling with None sizes and max
/// unpooling (functions and modules) as their ATen operators, with sizes
/// from the input's static shape (NormalizePooling.cpp). Succeeds when it
/// rewrote `op`; fails with `why` empty when `op` is none of them, with
/// `why` set when it is but cannot be rewritten.
LogicalResult rewritePoolingCall(GraphBuilder &gb, Operation *op,
                                 std::string &why);

/// A call of a quantized module (torch.ao.nn.quantized.Conv2d, ...) in
/// reference form: dequantize, the float operator on its dequantized
/// weight, quantize_per_tensor to the result's type (NormalizeQuant.cpp).
/// Succeeds when it rewrote `op`; fails with `why` empty when `op` is not
/// one, with `why` set when it is but cannot be rewritten.
LogicalResult rewriteQuantizedModule(GraphBuilder &gb, Operation *op,
                                     std::string &why);

/// A canonical call that reads or makes quantized tensors in reference
/// form: its quantized operands dequantized, the float operator
/// (`quantized::add` is `aten::add.Tensor`), its result quantized to its
/// type. Fails with `why` empty when the call touches no quantized
/// tensor or is one of the quantization operators themselves.
LogicalResult writeQuantizedInReferenceForm(GraphBuilder &gb,
                                            CallFunctionOp call,
                                            std::string &why);

/// A recurrent layer's ATen operator as torch.jit.trace records it
/// (`aten::lstm.input`, `aten::gru.input`, `aten::rnn_tanh.input`,
/// `aten::rnn_relu.input`) unrolled over its static sequence into linear,
/// gate and state calls (NormalizeRecurrent.cpp). Succeeds when it rewrote
/// `op`; fails with `why` empty when `op` is none of them, with `why` set
/// when it is but cannot be rewritten.
LogicalResult rewriteRecurrentCall(GraphBuilder &gb, Operation *op,
                                   std::string &why);

/// A call of an nn.MultiheadAttention module (eval mode) expanded into
/// projections, scaled dot products, softmax and the output projection
/// (NormalizeAttention.cpp). Succeeds when it rewrote `op`; fails with
/// `why` empty when `op` is not one, with `why` set when it is but cannot
/// be rewritten.
LogicalResult rewriteAttentionCall(GraphBuilder &gb, Operation *op,
                                   std::string &why);

/// `aten::embedding_bag` (`.padding_idx`, `_embedding_bag`: nn.EmbeddingBag
/// as TorchScript records it) as gathers and per-bag sums, means or maxima
/// (NormalizeEmbedding.cpp). Succeeds when it rewrote `op`; fails with
/// `why` empty when `op` is not one, with `why` set when it is but cannot
/// be rewritten.
LogicalResult rewriteEmbeddingBagCall(GraphBuilder &gb, Operation *op,
                                      std::string &why);

/// The bags of nn.EmbeddingBag's forward (F.embedding_bag) on `weight`
/// (2-D, static), `indices` and `offsets` (1-D) and `perSample` (null, or
/// the per-index weights of mode 0), as the calls rewriteEmbeddingBagCall
/// expands into, emitted before `node` under names from `name`; `mode` 0
/// (sum), 1 (mean) or 2 (max). Null with `why` set when they do not fit.
Value emitEmbeddingBag(GraphBuilder &gb, Operation *node, StringRef name,
                       Value weight, Value indices, Value offsets,
                       Value perSample, int64_t mode, bool includeLastOffset,
                       std::optional<int64_t> padding, std::string &why);

} // namespace mlir::fx

#endif // FX_MLIR_LIB_DIALECT_FX_TRANSFORMS_NORMALIZESPECIAL_H
