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

Attribute i64Attr(MLIRContext *ctx, int64_t v) {
  return IntegerAttr::get(IntegerType::get(ctx, 64), v);
}

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
  // Readers: `getitem(node, 0)`, `getitem(node, 1)` (not of None weights
  // but by the output) and the output itself.
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
    if (index.getInt() == 1 && !needWeights)
      for (Operation *reader : getitem->getUsers())
        if (!isa<OutputOp>(reader)) {
          why = "the weights of need_weights=False (None) are read";
          return failure();
        }
  }
  std::string path = module.getSymName().str();
  Value operands[3];
  RankedTensorType types[3];
  for (int i = 0; i < 3; ++i) {
    operands[i] = node.getOperand(cast<NodeAttr>(bound[i]).getIndex());
    types[i] = dyn_cast<RankedTensorType>(operands[i].getType());
  }
  if (!types[0] || (types[0].getRank() != 3 && types[0].getRank() != 2) ||
      !types[1] || !types[2] || types[1].getRank() != types[0].getRank() ||
      types[2].getRank() != types[0].getRank()) {
    why = "needs query, key and value of known types, all 3-D or all 2-D";
    return failure();
  }
  bool unbatched = types[0].getRank() == 2;
  Type elem = types[0].getElementType();
  Type anyTensor = UnrankedTensorType::get(elem);
  int64_t E = *embed, H = *heads, D = E / H;
  bool batchFirst = boolHParam("batch_first");
  std::string base = node.getNodeName().str();

  // Emits `target(a...)`; `a` are Values (as node refs) or attributes; the
  // keyword-only args of the schema (`alpha` of add.Tensor, `dtype` of
  // mean.dim) are given as `keys`/`kwargValues`.
  auto emitWith = [&](StringRef target,
                      ArrayRef<std::variant<Value, Attribute>> a,
                      ArrayRef<Attribute> keys, ArrayRef<Attribute> kwargValues,
                      Type type = {}) -> Value {
    SmallVector<Value> values;
    SmallVector<Attribute> attrs;
    for (auto &item : a) {
      if (auto *v = std::get_if<Value>(&item)) {
        values.push_back(*v);
        attrs.push_back(NodeAttr::get(ctx, values.size() - 1));
      } else {
        attrs.push_back(std::get<Attribute>(item));
      }
    }
    std::string name = gb.uniqueName(
        base + "_" + target.rsplit(':').second.split('.').first.str());
    return gb
        .call(node, name, target, attrs, keys, kwargValues, values,
              type ? type : anyTensor)
        .getResult();
  };
  auto emit = [&](StringRef target, ArrayRef<std::variant<Value, Attribute>> a,
                  Type type = {}) { return emitWith(target, a, {}, {}, type); };
  Attribute alphaKey = StringAttr::get(ctx, "alpha");
  Attribute one = i64Attr(ctx, 1);
  Attribute none = NoneAttr::get(ctx);
  auto I = [&](int64_t v) -> Attribute { return i64Attr(ctx, v); };
  auto list = [&](ArrayRef<Attribute> items) -> Attribute {
    return ListAttr::get(ctx, items);
  };
  Type i64 = IntegerType::get(ctx, 64);
  auto size = [&](Value v, int64_t dim) {
    return emit("aten::size.int", {v, I(dim)}, i64);
  };
  // `view`/`reshape` of `v` to `dims` (ints, or Values of sizes).
  auto reshape = [&](StringRef target, Value v,
                     ArrayRef<std::variant<Value, int64_t>> dims,
                     Type type = {}) {
    SmallVector<Value> refs = {v};
    SmallVector<Attribute> items;
    for (auto &d : dims) {
      if (auto *s = std::get_if<Value>(&d)) {
        items.push_back(NodeAttr::get(ctx, refs.size()));
        refs.push_back(*s);
      } else {
        items.push_back(I(std::get<int64_t>(d)));
      }
    }
    return gb
        .call(node, gb.uniqueName(base + "_" + target.drop_front(6).str()),
              target, {NodeAttr::get(ctx, 0), list(items)}, {}, {}, refs,
              type ? type : anyTensor)
        .getResult();
  };
  // A state tensor of the module, when it has it.
  auto optionalState = [&](StringRef name) -> Value {
    std::string full = path + name.str();
    if (!lookupModuleSymbol(node->getParentOfType<GraphModuleOp>(),
                            StringAttr::get(ctx, full)))
      return {};
    return gb.readState(full, node);
  };

  Value inputs[3];
  for (int i = 0; i < 3; ++i) {
    // Work batch first: (N, L, E); unbatched inputs are a batch of one.
    inputs[i] = operands[i];
    if (unbatched)
      inputs[i] = emit("aten::unsqueeze", {inputs[i], I(0)});
    else if (!batchFirst)
      inputs[i] = emit("aten::transpose.int", {inputs[i], I(0), I(1)});
  }
  Value weight =
      sameEmbed ? gb.readState(path + ".in_proj_weight", node) : Value();
  Value bias = optionalState(".in_proj_bias");
  Value biasKV[2] = {optionalState(".bias_k"), optionalState(".bias_v")};
  if (boolHParam("add_bias_kv") && (!biasKV[0] || !biasKV[1])) {
    why = "add_bias_kv without bias_k and bias_v";
    return failure();
  }
  bool zeroAttn = boolHParam("add_zero_attn");
  // Keys appended after the source's: never masked.
  int64_t extraKeys = (biasKV[0] && biasKV[1] ? 1 : 0) + (zeroAttn ? 1 : 0);
  auto cat = [&](ArrayRef<Value> items, int64_t dim) {
    SmallVector<Attribute> refs;
    for (size_t k = 0; k < items.size(); ++k)
      refs.push_back(NodeAttr::get(ctx, k));
    return gb
        .call(node, gb.uniqueName(base + "_cat"), "aten::cat",
              {list(refs), I(dim)}, {}, {}, items, anyTensor)
        .getResult();
  };
  Value heads4[3];
  for (int i = 0; i < 3; ++i) {
    static const char *separate[] = {".q_proj_weight", ".k_proj_weight",
                                     ".v_proj_weight"};
    Value w = sameEmbed ? emit("aten::slice.Tensor",
                               {weight, I(0), I(i * E), I((i + 1) * E), I(1)})
                        : gb.readState(path + separate[i], node);
    std::variant<Value, Attribute> b = none;
    if (bias)
      b = emit("aten::slice.Tensor",
               {bias, I(0), I(i * E), I((i + 1) * E), I(1)});
    Value proj = emit("aten::linear", {inputs[i], w, b});
    if (i > 0 && biasKV[0] && biasKV[1]) {
      // (1, 1, E) expanded to (N, 1, E), after the source's keys.
      Value first = emit("aten::slice.Tensor", {proj, I(1), I(0), I(1), I(1)});
      proj = cat({proj, emit("aten::expand_as", {biasKV[i - 1], first})}, 1);
    }
    // (N, L, E) -> (N, L, H, D) -> (N, H, L, D); N and L stay inferred.
    Value split = reshape("aten::view", proj, {size(proj, 0), -1, H, D});
    heads4[i] = emit("aten::transpose.int", {split, I(1), I(2)});
    if (i > 0 && zeroAttn) {
      Value first =
          emit("aten::slice.Tensor", {heads4[i], I(2), I(0), I(1), I(1)});
      Value zeros = emitWith(
          "aten::zeros_like", {first},
          {StringAttr::get(ctx, "dtype"), StringAttr::get(ctx, "layout"),
           StringAttr::get(ctx, "device"), StringAttr::get(ctx, "pin_memory"),
           StringAttr::get(ctx, "memory_format")},
          {none, none, none, none, none});
      heads4[i] = cat({heads4[i], zeros}, 2);
    }
  }
  Value q = emit("aten::mul.Scalar",
                 {heads4[0], FloatAttr::get(Float64Type::get(ctx),
                                            1.0 / std::sqrt(double(D)))});
  Value kT = emit("aten::transpose.int", {heads4[1], I(-2), I(-1)});
  Value scores = emit("aten::matmul", {q, kT});
  // A mask with the appended keys' columns zero (not masked).
  auto padded = [&](Value mask, Type type) -> Value {
    if (!extraKeys)
      return mask;
    return emit("aten::constant_pad_nd",
                {mask, list({I(0), I(extraKeys)}), I(0)}, type);
  };
  // A bool mask sets the scores where it is true to -inf; a float one is
  // added.
  auto addMask = [&](Value mask, bool isBool) {
    scores = isBool ? emit("aten::masked_fill.Scalar",
                           {scores, mask,
                            FloatAttr::get(Float64Type::get(ctx), -INFINITY)})
                    : emitWith("aten::add.Tensor", {scores, mask}, {alphaKey},
                               {one});
  };
  if (auto ref = dyn_cast<NodeAttr>(bound[5])) {
    Value mask = node.getOperand(ref.getIndex());
    auto type = dyn_cast<RankedTensorType>(mask.getType());
    if (!type || (type.getRank() != 2 && type.getRank() != 3)) {
      why = "attn_mask must be a 2-D or 3-D tensor of known type";
      return failure();
    }
    Type maskType = UnrankedTensorType::get(type.getElementType());
    mask = padded(mask, maskType);
    // (N * H, L, S) -> (N, H, L, S); (L, S) broadcasts.
    if (type.getRank() == 3)
      mask = reshape("aten::reshape", mask,
                     {-1, H, size(mask, 1), size(mask, 2)}, maskType);
    addMask(mask, type.getElementType().isInteger(1));
  }
  if (auto ref = dyn_cast<NodeAttr>(bound[3])) {
    Value mask = node.getOperand(ref.getIndex());
    auto type = dyn_cast<RankedTensorType>(mask.getType());
    if (!type || type.getRank() != (unbatched ? 1 : 2)) {
      why = "key_padding_mask must be (N, S), or (S) unbatched";
      return failure();
    }
    Type maskType = UnrankedTensorType::get(type.getElementType());
    mask = padded(mask, maskType);
    // (N, S) -> (N, 1, 1, S); (S) broadcasts.
    if (!unbatched)
      mask = emit("aten::unsqueeze",
                  {emit("aten::unsqueeze", {mask, I(1)}, maskType), I(1)},
                  maskType);
    addMask(mask, type.getElementType().isInteger(1));
  }
  Value attn = emit("aten::softmax.int", {scores, I(-1), none});
  Value ctxv = emit("aten::matmul", {attn, heads4[2]});
  Value merged = emit("aten::transpose.int", {ctxv, I(1), I(2)});
  Value flat = reshape("aten::reshape", merged, {size(merged, 0), -1, E});
  std::variant<Value, Attribute> outBias = none;
  if (Value b = optionalState(".out_proj.bias"))
    outBias = b;
  Value out =
      emit("aten::linear",
           {flat, gb.readState(path + ".out_proj.weight", node), outBias});
  if (unbatched)
    out = emit("aten::squeeze.dim", {out, I(0)});
  else if (!batchFirst)
    out = emit("aten::transpose.int", {out, I(0), I(1)});
  Value weights;
  auto getWeights = [&]() {
    if (!weights && needWeights) {
      weights = average
                    ? emitWith("aten::mean.dim",
                               {attn, list({I(1)}), BoolAttr::get(ctx, false)},
                               {StringAttr::get(ctx, "dtype")}, {none})
                    : attn;
      if (unbatched)
        weights = emit("aten::squeeze.dim", {weights, I(0)});
    }
    return weights;
  };
  for (Operation *user : llvm::make_early_inc_range(node->getUsers())) {
    if (auto output = dyn_cast<OutputOp>(user)) {
      replaceTupleInOutput(output, node.getResult(), {out, getWeights()});
      continue;
    }
    auto getitem = cast<CallFunctionOp>(user);
    if (cast<IntegerAttr>(getitem.getArgs()[1]).getInt() == 0) {
      getitem.getResult().replaceAllUsesWith(out);
    } else if (Value w = getWeights()) {
      getitem.getResult().replaceAllUsesWith(w);
    } else {
      // None, read only by the output.
      for (Operation *reader : llvm::make_early_inc_range(getitem->getUsers()))
        replaceTupleInOutput(cast<OutputOp>(reader), getitem.getResult(), {});
    }
    gb.erase(getitem);
  }
  node.erase();
  return success();
}

} // namespace

LogicalResult mlir::fx::rewriteAttentionCall(GraphBuilder &gb, Operation *op,
                                             std::string &why) {
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
