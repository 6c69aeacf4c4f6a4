//===- NormalizeAttention.cpp - nn.MultiheadAttention expanded ------------===//
//
// A call of an nn.MultiheadAttention module (eval mode) expanded into the
// calls torch.nn.functional.multi_head_attention_forward makes, working
// batch first on (N, L, E):
//
// - the input projections (one packed `in_proj_weight`, or the separate
//   q/k/v weights when kdim or vdim differ from embed_dim);
// - `bias_k`/`bias_v` appended to the projected keys and values along the
//   sequence (add_bias_kv), before the heads are split;
// - the heads split, (N, H, L, D), and a zero key and value appended
//   (add_zero_attn);
// - scores `q * D^-1/2 @ k^T`, the masks added (a bool mask is -inf where
//   true; a 3-D attn_mask of (N * H, L, S) is viewed as (N, H, L, S); the
//   appended keys are never masked, as ATen pads the masks with zeros);
// - softmax, the weighted values, heads merged, the output projection;
// - the weights (averaged over heads by default) only when read.
//
// Unbatched inputs ((L, E), as PyTorch takes them) are a batch of one.
// The module's result may be read by `getitem 0/1` or returned whole.
//
//===----------------------------------------------------------------------===//

#include "Emitter.h"
#include "NormalizeSpecial.h"
#include "fx-mlir/Dialect/FX/IR/FXAttrs.h"
#include "fx-mlir/Dialect/FX/IR/FXOps.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/SymbolTable.h"
#include <cmath>
#include <variant>

using namespace mlir;
using namespace mlir::fx;

namespace {

/// Replaces, in what `output` returns, each reference to `tuple` by a
/// tuple of `items` (a null item is None), or by None when there are none.
void replaceTupleInOutput(OutputOp output, Value tuple, ArrayRef<Value> items) {
  MLIRContext *ctx = output.getContext();
  SmallVector<Value> operands;
  SmallVector<unsigned> renumbered(output->getNumOperands());
  for (auto [i, v] : llvm::enumerate(output->getOperands()))
    if (v != tuple) {
      renumbered[i] = operands.size();
      operands.push_back(v);
    }
  SmallVector<Attribute> refs;
  for (Value item : items) {
    if (!item) {
      refs.push_back(NoneAttr::get(ctx));
      continue;
    }
    refs.push_back(NodeAttr::get(ctx, operands.size()));
    operands.push_back(item);
  }
  Attribute replacement =
      items.empty() ? Attribute(NoneAttr::get(ctx)) : TupleAttr::get(ctx, refs);
  Attribute args =
      replaceNodeRefs(output.getArgs(), [&](NodeAttr ref) -> Attribute {
        if (output->getOperand(ref.getIndex()) == tuple)
          return replacement;
        return NodeAttr::get(ctx, renumbered[ref.getIndex()]);
      });
  output.setArgsAttr(cast<ArrayAttr>(args));
  output->setOperands(operands);
}

/// Checks that only `getitem(node, 0)`, `getitem(node, 1)` and the output
/// read a (result, weights) node; with `weightsNone`, that the weights
/// are read by the output only.
LogicalResult checkPairReaders(Operation *node, bool weightsNone,
                               std::string &why) {
  for (Operation *user : node->getUsers()) {
    if (isa<OutputOp>(user))
      continue;
    auto getitem = dyn_cast<CallFunctionOp>(user);
    auto index = getitem && getitem.getTarget() == "operator.getitem" &&
                         getitem.getArgs().size() == 2
                     ? dyn_cast<IntegerAttr>(getitem.getArgs()[1])
                     : IntegerAttr();
    if (!index || (index.getInt() != 0 && index.getInt() != 1)) {
      why = "its result is used other than by getitem 0 or 1";
      return failure();
    }
    if (index.getInt() == 1 && weightsNone)
      for (Operation *reader : getitem->getUsers())
        if (!isa<OutputOp>(reader)) {
          why = "the weights, None here (need_weights=False), are read";
          return failure();
        }
  }
  return success();
}

/// Replaces the readers of a (result, weights) node (checkPairReaders) by
/// `out` and `weights` (null: None) and erases the node.
void replacePair(GraphBuilder &gb, Operation *node, Value out, Value weights) {
  Value result = node->getResult(0);
  for (Operation *user : llvm::make_early_inc_range(result.getUsers())) {
    if (auto output = dyn_cast<OutputOp>(user)) {
      replaceTupleInOutput(output, result, {out, weights});
      continue;
    }
    auto getitem = cast<CallFunctionOp>(user);
    if (cast<IntegerAttr>(getitem.getArgs()[1]).getInt() == 0) {
      getitem.getResult().replaceAllUsesWith(out);
    } else if (weights) {
      getitem.getResult().replaceAllUsesWith(weights);
    } else {
      // None, read only by the output.
      for (Operation *reader : llvm::make_early_inc_range(getitem->getUsers()))
        replaceTupleInOutput(cast<OutputOp>(reader), getitem.getResult(), {});
    }
    gb.erase(getitem);
  }
  node->erase();
}

/// Expands one nn.MultiheadAttention call (see the file comment).
LogicalResult expandMultiheadAttention(GraphBuilder &gb, CallModuleOp node,
                                       SubmoduleOp module, std::string &why) {
  MLIRContext *ctx = node.getContext();
  DictAttr hp = module.getHparams();
  auto intHParam = [&](StringRef name) -> std::optional<int64_t> {
    if (auto a = dyn_cast_or_null<IntegerAttr>(hp ? hp.lookup(name) : nullptr))
      return a.getInt();
    return std::nullopt;
  };
  auto boolHParam = [&](StringRef name) {
    auto a = dyn_cast_or_null<BoolAttr>(hp ? hp.lookup(name) : nullptr);
    return a && a.getValue();
  };
  std::optional<int64_t> embed = intHParam("embed_dim"),
                         heads = intHParam("num_heads");
  if (!embed || !heads || *heads <= 0 || *embed % *heads) {
    why = "needs embed_dim and num_heads";
    return failure();
  }
  bool sameEmbed = true;
  for (StringRef dimName : {"kdim", "vdim"})
    if (auto d = intHParam(dimName); d && *d != *embed)
      sameEmbed = false;
  // forward(query, key, value, key_padding_mask=None, need_weights=True,
  //         attn_mask=None, average_attn_weights=True)
  static const char *names[] = {"query",
                                "key",
                                "value",
                                "key_padding_mask",
                                "need_weights",
                                "attn_mask",
                                "average_attn_weights"};
  SmallVector<Attribute> bound(7);
  bound[3] = bound[5] = NoneAttr::get(ctx);
  bound[4] = bound[6] = BoolAttr::get(ctx, true);
  if (node.getArgs().size() > 7) {
    why = "too many arguments";
    return failure();
  }
  for (auto [i, a] : llvm::enumerate(node.getArgs()))
    bound[i] = a;
  for (auto [k, v] :
       llvm::zip(node.getKwargs().getKeys(), node.getKwargs().getValues())) {
    auto it = llvm::find(names, cast<StringAttr>(k).getValue());
    if (it == std::end(names)) {
      why = "unexpected keyword argument";
      return failure();
    }
    bound[it - std::begin(names)] = v;
  }
  for (int i = 0; i < 3; ++i)
    if (!isa_and_nonnull<NodeAttr>(bound[i])) {
      why = "query, key and value must be nodes";
      return failure();
    }
  // Masks: bool (true = masked out) or float (added to the scores).
  for (int i : {3, 5})
    if (!isa<NoneAttr>(bound[i]) && !isa<NodeAttr>(bound[i])) {
      why = "attention masks must be tensors or None";
      return failure();
    }
  for (int i : {4, 6})
    if (!isa<BoolAttr>(bound[i])) {
      why = ("'" + Twine(names[i]) + "' must be a constant bool").str();
      return failure();
    }
  bool needWeights = cast<BoolAttr>(bound[4]).getValue();
  bool average = cast<BoolAttr>(bound[6]).getValue();
  if (failed(checkPairReaders(node, !needWeights, why)))
    return failure();
  std::string path = module.getSymName().str();
  Value operands[3];
  RankedTensorType types[3];
  for (int i = 0; i < 3; ++i) {
    operands[i] = node.getOperand(cast<NodeAttr>(bound[i]).getIndex());
    types[i] = dyn_cast<RankedTensorType>(operands[i].getType());
  }
  // Key and value have the query's rank (eager checks it); their types
  // may be unknown yet (a scripted encoder's output).
  if (!types[0] || (types[0].getRank() != 3 && types[0].getRank() != 2) ||
      (types[1] && types[1].getRank() != types[0].getRank()) ||
      (types[2] && types[2].getRank() != types[0].getRank())) {
    why = "needs a query of known type, 3-D or 2-D, and key and value of "
          "its rank";
    return failure();
  }
  bool unbatched = types[0].getRank() == 2;
  int64_t E = *embed, H = *heads, D = E / H;
  bool batchFirst = boolHParam("batch_first");
  // A state tensor of the module, when it has it.
  auto hasState = [&](StringRef name) {
    return lookupModuleSymbol(node->getParentOfType<GraphModuleOp>(),
                              StringAttr::get(ctx, path + name.str())) !=
           nullptr;
  };
  auto optionalState = [&](StringRef name) -> Value {
    return hasState(name) ? gb.readState(path + name.str(), node) : Value();
  };
  // Checked before anything is read: F.multi_head_attention_forward takes
  // both biases or neither.
  bool hasBiasK = hasState(".bias_k"), hasBiasV = hasState(".bias_v");
  if (boolHParam("add_bias_kv") && (!hasBiasK || !hasBiasV)) {
    why = "add_bias_kv without bias_k and bias_v";
    return failure();
  }
  if (hasBiasK != hasBiasV) {
    why = hasBiasK ? "it has bias_k without bias_v"
                   : "it has bias_v without bias_k";
    return failure();
  }
  Value biasKV[2] = {optionalState(".bias_k"), optionalState(".bias_v")};
  bool zeroAttn = boolHParam("add_zero_attn");
  // Keys appended after the source's: never masked.
  int64_t extraKeys = (biasKV[0] && biasKV[1] ? 1 : 0) + (zeroAttn ? 1 : 0);
  // The masks, checked before anything is emitted.
  std::optional<Value> attnMask, paddingMask;
  if (auto ref = dyn_cast<NodeAttr>(bound[5])) {
    attnMask = node.getOperand(ref.getIndex());
    auto type = dyn_cast<RankedTensorType>(attnMask->getType());
    if (!type || (type.getRank() != 2 && type.getRank() != 3)) {
      why = "attn_mask must be a 2-D or 3-D tensor of known type";
      return failure();
    }
  }
  if (auto ref = dyn_cast<NodeAttr>(bound[3])) {
    paddingMask = node.getOperand(ref.getIndex());
    auto type = dyn_cast<RankedTensorType>(paddingMask->getType());
    if (!type || type.getRank() != (unbatched ? 1 : 2)) {
      why = "key_padding_mask must be (N, S), or (S) unbatched";
      return failure();
    }
  }

  Emitter e(gb, node, node.getNodeName(), types[0].getElementType());
  Value inputs[3];
  for (int i = 0; i < 3; ++i) {
    // Work batch first: (N, L, E); unbatched inputs are a batch of one.
    inputs[i] = operands[i];
    if (unbatched)
      inputs[i] = e.call("aten::unsqueeze", {inputs[i], e.I(0)});
    else if (!batchFirst)
      inputs[i] = e.call("aten::transpose.int", {inputs[i], e.I(0), e.I(1)});
  }
  Value weight =
      sameEmbed ? gb.readState(path + ".in_proj_weight", node) : Value();
  Value bias = optionalState(".in_proj_bias");
  Value heads4[3];
  for (int i = 0; i < 3; ++i) {
    static const char *separate[] = {".q_proj_weight", ".k_proj_weight",
                                     ".v_proj_weight"};
    Value w = sameEmbed ? e.third(weight, i, E)
                        : gb.readState(path + separate[i], node);
    Value proj = e.linear(inputs[i], w, bias ? e.third(bias, i, E) : Value());
    if (i > 0 && extraKeys && biasKV[0]) {
      // (1, 1, E) expanded to (N, 1, E), after the source's keys.
      Value first =
          e.call("aten::slice.Tensor", {proj, e.I(1), e.I(0), e.I(1), e.I(1)});
      proj =
          e.cat({proj, e.call("aten::expand_as", {biasKV[i - 1], first})}, 1);
    }
    heads4[i] = e.splitHeads(proj, H, D);
    if (i > 0 && zeroAttn) {
      Value first = e.call("aten::slice.Tensor",
                           {heads4[i], e.I(2), e.I(0), e.I(1), e.I(1)});
      Value zeros = e.callWith(
          "aten::zeros_like", {first},
          {"dtype", "layout", "device", "pin_memory", "memory_format"},
          {e.none(), e.none(), e.none(), e.none(), e.none()});
      heads4[i] = e.cat({heads4[i], zeros}, 2);
    }
  }
  // The masks with the appended keys' columns zero (not masked).
  SmallVector<std::pair<Value, bool>> masks;
  for (std::optional<Value> mask : {attnMask, paddingMask}) {
    if (!mask)
      continue;
    auto type = cast<RankedTensorType>(mask->getType());
    Type maskType = UnrankedTensorType::get(type.getElementType());
    Value m = *mask;
    if (extraKeys)
      m = e.call("aten::constant_pad_nd",
                 {m, e.list({e.I(0), e.I(extraKeys)}), e.I(0)}, maskType);
    if (mask == attnMask && type.getRank() == 3) {
      // (N * H, L, S) -> (N, H, L, S); (L, S) broadcasts.
      m = e.reshape("aten::reshape", m, {-1, H, e.size(m, 1), e.size(m, 2)},
                    maskType);
    } else if (mask == paddingMask && !unbatched) {
      // (N, S) -> (N, 1, 1, S); (S) broadcasts.
      m = e.call("aten::unsqueeze",
                 {e.call("aten::unsqueeze", {m, e.I(1)}, maskType), e.I(1)},
                 maskType);
    }
    masks.push_back({m, type.getElementType().isInteger(1)});
  }
  Value probs = e.probabilities(heads4[0], heads4[1], D, masks);
  Value ctxv = e.call("aten::matmul", {probs, heads4[2]});
  Value out = e.linear(e.mergeHeads(ctxv, E),
                       gb.readState(path + ".out_proj.weight", node),
                       optionalState(".out_proj.bias"));
  if (unbatched)
    out = e.call("aten::squeeze.dim", {out, e.I(0)});
  else if (!batchFirst)
    out = e.call("aten::transpose.int", {out, e.I(0), e.I(1)});
  out.setType(types[0]); // the query's shape
  Value weights;
  bool weightsRead = llvm::any_of(node->getUsers(), [](Operation *user) {
    auto getitem = dyn_cast<CallFunctionOp>(user);
    return !getitem || cast<IntegerAttr>(getitem.getArgs()[1]).getInt() == 1;
  });
  if (needWeights && weightsRead) {
    weights = e.weights(probs, average);
    if (unbatched)
      weights = e.call("aten::squeeze.dim", {weights, e.I(0)});
  }
  replacePair(gb, node, out, weights);
  return success();
}

/// Argument `i` (keyword `name`) of a canonical ATen call, or `otherwise`.
Attribute argOf(CallFunctionOp call, size_t i, StringRef name,
                Attribute otherwise) {
  if (i < call.getArgs().size())
    return call.getArgs()[i];
  if (Attribute a = call.getKwargs().lookup(name))
    return a;
  return otherwise;
}

/// The mask of ATen's fast paths (`_native_multi_head_attention`,
/// `_transformer_encoder_layer_fwd`: bool, true = masked out) broadcast to
/// the (N, H, L, S) scores: mask_type 0 an attention mask (L, S), 1 a key
/// padding mask (N, S). Fails with `why` for other forms; `mask` stays
/// null without one.
LogicalResult fastPathMask(CallFunctionOp call, Attribute maskArg,
                           Attribute typeArg, Value &mask, std::string &why) {
  if (isa_and_nonnull<NoneAttr>(maskArg) || !maskArg)
    return success();
  mask = tensorArg(call, maskArg);
  auto type =
      mask ? dyn_cast<RankedTensorType>(mask.getType()) : RankedTensorType();
  auto kind = dyn_cast_or_null<IntegerAttr>(typeArg);
  if (!type || type.getRank() != 2 || !type.getElementType().isInteger(1) ||
      !kind || (kind.getInt() != 0 && kind.getInt() != 1)) {
    why = "supports a bool mask of 2 dims with mask_type 0 (attention) or 1 "
          "(key padding)";
    return failure();
  }
  return success();
}

/// Self- or cross-attention on batch-first (N, L, E) inputs with packed
/// (3 * E, E) projections, as ATen's fast paths compute it: the projected
/// heads, the probabilities and the projected output; `mask` as
/// fastPathMask takes it (`keyPadding`: mask_type 1).
std::pair<Value, Value> packedAttention(Emitter &e, Value q, Value k, Value v,
                                        int64_t E, int64_t H, Value qkvWeight,
                                        Value qkvBias, Value projWeight,
                                        Value projBias, Value mask,
                                        bool keyPadding) {
  int64_t D = E / H;
  Value inputs[3] = {q, k, v}, heads[3];
  for (int i = 0; i < 3; ++i)
    heads[i] =
        e.splitHeads(e.linear(inputs[i], e.third(qkvWeight, i, E),
                              qkvBias ? e.third(qkvBias, i, E) : Value()),
                     H, D);
  SmallVector<std::pair<Value, bool>> masks;
  if (mask) {
    if (keyPadding) {
      Type maskType = UnrankedTensorType::get(
          cast<TensorType>(mask.getType()).getElementType());
      mask =
          e.call("aten::unsqueeze",
                 {e.call("aten::unsqueeze", {mask, e.I(1)}, maskType), e.I(1)},
                 maskType);
    }
    masks.push_back({mask, true});
  }
  Value probs = e.probabilities(heads[0], heads[1], D, masks);
  Value ctxv = e.call("aten::matmul", {probs, heads[2]});
  return {e.linear(e.mergeHeads(ctxv, E), projWeight, projBias), probs};
}

/// aten::_native_multi_head_attention(query, key, value, embed_dim,
/// num_head, qkv_weight, qkv_bias, proj_weight, proj_bias, mask=None,
/// need_weights=True, average_attn_weights=True, mask_type=None), which
/// nn.MultiheadAttention's fast path (eval, batch first, no grad) calls.
LogicalResult expandNativeAttention(GraphBuilder &gb, CallFunctionOp call,
                                    std::string &why) {
  MLIRContext *ctx = call.getContext();
  Attribute none = NoneAttr::get(ctx);
  Value q = tensorArg(call, argOf(call, 0, "query", none)),
        k = tensorArg(call, argOf(call, 1, "key", none)),
        v = tensorArg(call, argOf(call, 2, "value", none));
  auto embed = dyn_cast_or_null<IntegerAttr>(argOf(call, 3, "embed_dim", none));
  auto heads = dyn_cast_or_null<IntegerAttr>(argOf(call, 4, "num_head", none));
  Value qkvW = tensorArg(call, argOf(call, 5, "qkv_weight", none)),
        qkvB = tensorArg(call, argOf(call, 6, "qkv_bias", none)),
        projW = tensorArg(call, argOf(call, 7, "proj_weight", none)),
        projB = tensorArg(call, argOf(call, 8, "proj_bias", none));
  auto needWeights = dyn_cast_or_null<BoolAttr>(
      argOf(call, 10, "need_weights", BoolAttr::get(ctx, true)));
  auto average = dyn_cast_or_null<BoolAttr>(
      argOf(call, 11, "average_attn_weights", BoolAttr::get(ctx, true)));
  auto qType = q ? dyn_cast<RankedTensorType>(q.getType()) : nullptr;
  if (!qType || qType.getRank() != 3 || !k || !v || !embed || !heads ||
      heads.getInt() <= 0 || embed.getInt() % heads.getInt() || !qkvW ||
      !projW || !needWeights || !average) {
    why = "needs 3-D query, key and value, constant sizes and flags, and "
          "the projection weights";
    return failure();
  }
  Value mask;
  Attribute maskType = argOf(call, 12, "mask_type", none);
  if (failed(fastPathMask(call, argOf(call, 9, "mask", none), maskType, mask,
                          why)) ||
      failed(checkPairReaders(call, !needWeights.getValue(), why)))
    return failure();
  Emitter e(gb, call, call.getNodeName(), qType.getElementType());
  auto [out, probs] = packedAttention(
      e, q, k, v, embed.getInt(), heads.getInt(), qkvW, qkvB, projW, projB,
      mask, mask && cast<IntegerAttr>(maskType).getInt() == 1);
  out.setType(qType);
  replacePair(gb, call, out,
              needWeights.getValue() ? e.weights(probs, average.getValue())
                                     : Value());
  return success();
}

/// aten::_transformer_encoder_layer_fwd, which nn.TransformerEncoderLayer's
/// fast path (eval, batch first, no grad) calls: self-attention, residual,
/// layer norm and the feed-forward block (relu or exact gelu), the norms
/// first or after as `norm_first` says.
LogicalResult expandEncoderLayer(GraphBuilder &gb, CallFunctionOp call,
                                 std::string &why) {
  MLIRContext *ctx = call.getContext();
  Attribute none = NoneAttr::get(ctx);
  static const char *names[] = {
      "src",           "embed_dim",   "num_heads",     "qkv_weight",
      "qkv_bias",      "proj_weight", "proj_bias",     "use_gelu",
      "norm_first",    "eps",         "norm_weight_1", "norm_bias_1",
      "norm_weight_2", "norm_bias_2", "ffn_weight_1",  "ffn_bias_1",
      "ffn_weight_2",  "ffn_bias_2",  "mask",          "mask_type"};
  Attribute a[20];
  for (size_t i = 0; i < 20; ++i)
    a[i] = argOf(call, i, names[i], none);
  Value t[20];
  for (size_t i : {0, 3, 4, 5, 6, 10, 11, 12, 13, 14, 15, 16, 17})
    t[i] = tensorArg(call, a[i]);
  auto embed = dyn_cast_or_null<IntegerAttr>(a[1]);
  auto heads = dyn_cast_or_null<IntegerAttr>(a[2]);
  auto useGelu = dyn_cast_or_null<BoolAttr>(a[7]);
  auto normFirst = dyn_cast_or_null<BoolAttr>(a[8]);
  auto eps = dyn_cast_or_null<FloatAttr>(a[9]);
  auto srcType = t[0] ? dyn_cast<RankedTensorType>(t[0].getType()) : nullptr;
  bool weights = llvm::all_of(ArrayRef<size_t>{3, 5, 14, 16},
                              [&](size_t i) { return bool(t[i]); });
  if (!srcType || srcType.getRank() != 3 || !embed || !heads ||
      heads.getInt() <= 0 || embed.getInt() % heads.getInt() || !useGelu ||
      !normFirst || !eps || !weights) {
    why = "needs a 3-D source, constant sizes, flags and eps, and the "
          "weights";
    return failure();
  }
  Value mask;
  if (failed(fastPathMask(call, a[18], a[19], mask, why)))
    return failure();
  int64_t E = embed.getInt();
  Emitter e(gb, call, call.getNodeName(), srcType.getElementType());
  auto norm = [&](Value x, int which) {
    return e.call("aten::layer_norm",
                  {x, e.list({e.I(E)}),
                   t[10 + 2 * which] ? Arg(t[10 + 2 * which]) : Arg(none),
                   t[11 + 2 * which] ? Arg(t[11 + 2 * which]) : Arg(none), eps,
                   BoolAttr::get(ctx, true)});
  };
  bool first = normFirst.getValue();
  Value x = t[0];
  Value h = first ? norm(x, 0) : x;
  Value attended =
      packedAttention(e, h, h, h, E, heads.getInt(), t[3], t[4], t[5], t[6],
                      mask, mask && cast<IntegerAttr>(a[19]).getInt() == 1)
          .first;
  x = e.add(x, attended);
  if (!first)
    x = norm(x, 0);
  h = first ? norm(x, 1) : x;
  Value hidden = e.linear(h, t[14], t[15]);
  hidden = useGelu.getValue()
               ? e.callWith("aten::gelu", {hidden}, {"approximate"},
                            {StringAttr::get(ctx, "none")})
               : e.call("aten::relu", {hidden});
  x = e.add(x, e.linear(hidden, t[16], t[17]));
  if (!first)
    x = norm(x, 1);
  // The source's shape (known to the next layer's expansion).
  x.setType(srcType);
  call.getResult().replaceAllUsesWith(x);
  call.erase();
  return success();
}

} // namespace

LogicalResult mlir::fx::rewriteAttentionCall(GraphBuilder &gb, Operation *op,
                                             std::string &why) {
  if (auto fn = dyn_cast<CallFunctionOp>(op)) {
    if (fn.getTarget() == "aten::_native_multi_head_attention")
      return expandNativeAttention(gb, fn, why);
    if (fn.getTarget() == "aten::_transformer_encoder_layer_fwd")
      return expandEncoderLayer(gb, fn, why);
    return failure();
  }
  auto call = dyn_cast<CallModuleOp>(op);
  if (!call)
    return failure();
  auto submodule = dyn_cast_or_null<SubmoduleOp>(lookupModuleSymbol(
      op->getParentOfType<GraphModuleOp>(), call.getTargetAttr().getAttr()));
  if (!submodule || submodule.getModuleType() != "torch.nn.MultiheadAttention")
    return failure();
  if (submodule.getTraining()) {
    why = "training mode";
    return failure();
  }
  return expandMultiheadAttention(gb, call, submodule, why);
}
