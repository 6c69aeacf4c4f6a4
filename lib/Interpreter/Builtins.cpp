//===- Builtins.cpp - Interpreter targets that are not operators ----------===//
//
// The targets the interpreter runs itself, not through a LibTorch
// operator: `operator.getitem` (tuples and lists by index or slice, dicts
// by key, tensors by at::indexing as Python's x[...]), `builtins.getattr`
// (a tensor's shape, ndim, dtype and device), `torch._assert`, and
// nn.MultiheadAttention modules, run by
// torch::nn::functional::multi_head_attention_forward with the module's
// hyperparameters and weights.
//
//===----------------------------------------------------------------------===//

#include "Values.h"

#include "fx-mlir/Dialect/FX/IR/FXAttrs.h"
#include "fx-mlir/Interpreter/Interpreter.h"

#include "llvm/ADT/STLExtras.h"

#include <ATen/ATen.h>
#include <ATen/TensorIndexing.h>
#include <torch/nn/functional/activation.h>

#include <functional>
#include <limits>

using namespace mlir;
using namespace mlir::fx;
using namespace mlir::fx::interpreter;

namespace {

/// A Python index (`__index__`): an int, a bool or a one-element integer
/// tensor.
std::optional<int64_t> getIndex(const c10::IValue &value) {
  if (value.isInt())
    return value.toInt();
  if (value.isBool())
    return value.toBool() ? 1 : 0;
  if (value.isTensor()) {
    const at::Tensor &tensor = value.toTensor();
    if (tensor.defined() && tensor.numel() == 1 &&
        (at::isIntegralType(tensor.scalar_type(), /*includeBool=*/true)))
      return tensor.item<int64_t>();
  }
  return std::nullopt;
}

/// A slice bound: None or an index.
bool getSliceBound(const c10::IValue &value, c10::optional<int64_t> &bound) {
  if (value.isNone()) {
    bound = c10::nullopt;
    return true;
  }
  std::optional<int64_t> index = getIndex(value);
  if (!index)
    return false;
  bound = *index;
  return true;
}

/// The positions `slice` selects in a sequence of `length` elements, as
/// Python's `slice.indices` computes them. False when the slice is not
/// made of ints or its step is zero.
bool getSlicePositions(const SliceValue &slice, int64_t length,
                       std::vector<int64_t> &positions, std::string &why) {
  c10::optional<int64_t> start, stop, step;
  if (!getSliceBound(slice.start, start) || !getSliceBound(slice.stop, stop) ||
      !getSliceBound(slice.step, step)) {
    why = "slice indices must be integers or None";
    return false;
  }
  int64_t s = step.value_or(1);
  if (s == 0) {
    why = "slice step cannot be zero";
    return false;
  }
  auto clamp = [&](c10::optional<int64_t> bound, int64_t whenNone) {
    if (!bound)
      return whenNone;
    int64_t v = *bound;
    if (v < 0) {
      v += length;
      if (v < 0)
        v = s < 0 ? -1 : 0;
    } else if (v >= length) {
      v = s < 0 ? length - 1 : length;
    }
    return v;
  };
  int64_t begin = clamp(start, s < 0 ? length - 1 : 0);
  int64_t end = clamp(stop, s < 0 ? -1 : length);
  for (int64_t i = begin; s > 0 ? i < end : i > end; i += s)
    positions.push_back(i);
  return true;
}

/// The at::indexing form of one item of a tensor index (`x[item]` or one
/// element of `x[a, b]`), or nullopt for items tensors cannot be indexed
/// with.
std::optional<at::indexing::TensorIndex>
getTensorIndex(const c10::IValue &item) {
  using at::indexing::TensorIndex;
  if (item.isNone())
    return TensorIndex(c10::nullopt);
  if (isEllipsisValue(item))
    return TensorIndex(at::indexing::Ellipsis);
  if (const SliceValue *slice = getSliceValue(item)) {
    c10::optional<int64_t> start, stop, step;
    if (!getSliceBound(slice->start, start) ||
        !getSliceBound(slice->stop, stop) || !getSliceBound(slice->step, step))
      return std::nullopt;
    return TensorIndex(at::indexing::Slice(start, stop, step));
  }
  if (item.isBool())
    return TensorIndex(item.toBool());
  if (item.isInt())
    return TensorIndex(item.toInt());
  if (item.isTensor())
    return TensorIndex(item.toTensor());
  if (item.isList()) {
    // A list is an advanced index, as Python treats `x[[0, 2]]`.
    std::vector<int64_t> positions;
    bool bools = true;
    for (const c10::IValue &e : item.toListRef()) {
      if (!e.isInt() && !e.isBool())
        return std::nullopt;
      bools &= e.isBool();
      positions.push_back(e.isBool() ? e.toBool() : e.toInt());
    }
    at::Tensor index = at::tensor(c10::ArrayRef<int64_t>(positions), at::kLong);
    return TensorIndex(bools && !positions.empty() ? index.to(at::kBool)
                                                   : index);
  }
  return std::nullopt;
}

} // namespace

//===----------------------------------------------------------------------===//
// Interpreter: targets that are not operators
//===----------------------------------------------------------------------===//

FailureOr<c10::IValue> Interpreter::getItem(Operation *op,
                                            ArrayRef<c10::IValue> args,
                                            const Kwargs &kwargs) {
  if (args.size() != 2 || !kwargs.empty()) {
    emitNodeError(op) << "operator.getitem takes (container, index), got ("
                      << describeCall(args, kwargs) << ")";
    return failure();
  }
  const c10::IValue &container = args[0], &index = args[1];
  if (container.isTensor()) {
    std::vector<at::indexing::TensorIndex> indices;
    auto add = [&](const c10::IValue &item) {
      std::optional<at::indexing::TensorIndex> tensorIndex =
          getTensorIndex(item);
      if (tensorIndex)
        indices.push_back(std::move(*tensorIndex));
      return tensorIndex.has_value();
    };
    bool ok = true;
    if (index.isTuple()) {
      for (const c10::IValue &item : index.toTupleRef().elements().asArrayRef())
        ok &= add(item);
    } else {
      ok = add(index);
    }
    if (!ok) {
      emitNodeError(op) << "cannot index a tensor with " << describe(index);
      return failure();
    }
    return c10::IValue(container.toTensor().index(indices));
  }
  if (std::optional<ArrayRef<c10::IValue>> elements = getSequence(container)) {
    int64_t length = static_cast<int64_t>(elements->size());
    if (const SliceValue *slice = getSliceValue(index)) {
      std::vector<int64_t> positions;
      std::string why;
      if (!getSlicePositions(*slice, length, positions, why)) {
        emitNodeError(op) << why;
        return failure();
      }
      std::vector<c10::IValue> picked;
      for (int64_t position : positions)
        picked.push_back((*elements)[position]);
      if (container.isTuple())
        return c10::IValue(c10::ivalue::Tuple::create(std::move(picked)));
      c10::impl::GenericList list(container.toList().elementType());
      for (c10::IValue &element : picked)
        list.push_back(std::move(element));
      return c10::IValue(std::move(list));
    }
    std::optional<int64_t> position = getIndex(index);
    if (!position) {
      emitNodeError(op) << describe(container)
                        << " indices must be integers or slices, not "
                        << describe(index);
      return failure();
    }
    int64_t i = *position < 0 ? *position + length : *position;
    if (i < 0 || i >= length) {
      emitNodeError(op) << describe(container) << " index " << *position
                        << " is out of range for length " << length;
      return failure();
    }
    return (*elements)[i];
  }
  if (container.isGenericDict()) {
    c10::Dict<c10::IValue, c10::IValue> dict = container.toGenericDict();
    auto it = dict.find(index);
    if (it == dict.end()) {
      emitNodeError(op) << "the dict has no key of kind " << describe(index)
                        << (index.isString() ? " '" + index.toStringRef() + "'"
                                             : std::string());
      return failure();
    }
    return it->value();
  }
  emitNodeError(op) << "cannot index a value of kind " << describe(container);
  return failure();
}

FailureOr<c10::IValue> Interpreter::checkAssert(Operation *op,
                                                ArrayRef<c10::IValue> args,
                                                const Kwargs &kwargs) {
  // torch._assert(condition, message): both positional, as FX records them.
  if (args.size() != 2 || !kwargs.empty() || !args[1].isString()) {
    emitNodeError(op) << "torch._assert takes (condition, message), got ("
                      << describeCall(args, kwargs) << ")";
    return failure();
  }
  const c10::IValue &condition = args[0];
  std::optional<bool> holds;
  if (condition.isBool())
    holds = condition.toBool();
  else if (condition.isInt())
    holds = condition.toInt() != 0;
  else if (condition.isTensor() && condition.toTensor().defined() &&
           condition.toTensor().numel() == 1)
    holds = condition.toTensor().item<bool>();
  if (!holds) {
    emitNodeError(op) << "torch._assert needs a bool condition, got "
                      << describe(condition);
    return failure();
  }
  if (!*holds) {
    emitNodeError(op) << "assertion failed: " << args[1].toStringRef();
    return failure();
  }
  return c10::IValue();
}

FailureOr<c10::IValue> Interpreter::tensorOfList(Operation *op,
                                                 ArrayRef<c10::IValue> args,
                                                 const Kwargs &kwargs) {
  // The list's leaves, row-major, and its shape (each level's length, the
  // same at every position of a level).
  std::vector<c10::IValue> leaves;
  std::vector<int64_t> shape;
  bool ragged = false;
  std::function<void(const c10::IValue &, size_t)> walk =
      [&](const c10::IValue &v, size_t depth) {
        if (!v.isList()) {
          if (depth != shape.size())
            ragged = true;
          leaves.push_back(v);
          return;
        }
        c10::List<c10::IValue> items = v.toList();
        int64_t n = items.size();
        if (depth == shape.size() && leaves.empty())
          shape.push_back(n);
        else if (depth >= shape.size() || shape[depth] != n)
          ragged = true;
        for (const c10::IValue &item : items)
          walk(item, depth + 1);
      };
  walk(args[0], 0);
  bool numbers = llvm::all_of(leaves, [](const c10::IValue &v) {
    return v.isInt() || v.isDouble() || v.isBool();
  });
  if (ragged || !numbers) {
    emitNodeError(op) << "aten::tensor needs a list of numbers of a regular "
                         "shape, got "
                      << describe(args[0]);
    return failure();
  }
  bool anyDouble = llvm::any_of(leaves, [](auto &v) { return v.isDouble(); });
  bool allBool = !leaves.empty() &&
                 llvm::all_of(leaves, [](auto &v) { return v.isBool(); });
  at::Tensor t;
  if (anyDouble || leaves.empty()) {
    std::vector<double> values;
    for (const c10::IValue &v : leaves)
      values.push_back(v.isDouble() ? v.toDouble()
                       : v.isInt()  ? double(v.toInt())
                                    : double(v.toBool()));
    t = at::tensor(values, at::kDouble).to(c10::get_default_dtype());
  } else {
    std::vector<int64_t> values;
    for (const c10::IValue &v : leaves)
      values.push_back(v.isInt() ? v.toInt() : int64_t(v.toBool()));
    t = at::tensor(values, at::kLong);
    if (allBool)
      t = t.to(at::kBool);
  }
  t = t.reshape(shape);
  for (const auto &[key, value] : kwargs)
    if (key == "dtype" && value.isInt())
      t = t.to(static_cast<c10::ScalarType>(value.toInt()));
  return c10::IValue(t);
}

FailureOr<c10::IValue> Interpreter::getAttribute(Operation *op,
                                                 ArrayRef<c10::IValue> args,
                                                 const Kwargs &kwargs) {
  if (args.size() != 2 || !kwargs.empty() || !args[1].isString()) {
    emitNodeError(op) << "builtins.getattr takes (object, name), got ("
                      << describeCall(args, kwargs) << ")";
    return failure();
  }
  StringRef name = args[1].toStringRef();
  if (args[0].isTensor() && args[0].toTensor().defined()) {
    const at::Tensor &tensor = args[0].toTensor();
    if (name == "shape") {
      c10::List<int64_t> sizes;
      for (int64_t size : tensor.sizes())
        sizes.push_back(size);
      return c10::IValue(std::move(sizes));
    }
    if (name == "ndim")
      return c10::IValue(static_cast<int64_t>(tensor.dim()));
    if (name == "dtype")
      return c10::IValue(static_cast<int64_t>(tensor.scalar_type()));
    if (name == "device")
      return c10::IValue(tensor.device());
  }
  emitNodeError(op) << "getattr(" << describe(args[0]) << ", '" << name
                    << "') is not supported";
  return failure();
}

FailureOr<c10::IValue>
Interpreter::callMultiheadAttention(CallModuleOp op, SubmoduleOp submodule,
                                    ArrayRef<c10::IValue> args,
                                    const Kwargs &kwargs) {
  // forward(query, key, value, key_padding_mask=None, need_weights=True,
  //         attn_mask=None, average_attn_weights=True, is_causal=False)
  static const char *const names[] = {"query",
                                      "key",
                                      "value",
                                      "key_padding_mask",
                                      "need_weights",
                                      "attn_mask",
                                      "average_attn_weights",
                                      "is_causal"};
  constexpr size_t numParams = std::size(names);
  std::optional<c10::IValue> bound[numParams];
  if (args.size() > numParams) {
    emitNodeError(op) << "torch.nn.MultiheadAttention takes at most "
                      << numParams << " arguments, " << args.size()
                      << " were given";
    return failure();
  }
  for (size_t i = 0; i < args.size(); ++i)
    bound[i] = args[i];
  for (const auto &[key, value] : kwargs) {
    const char *const *it = llvm::find(names, key);
    if (it == std::end(names) || bound[it - std::begin(names)]) {
      emitNodeError(op) << (it == std::end(names) ? "unexpected keyword "
                                                    "argument '"
                                                  : "multiple values for '")
                        << key << "'";
      return failure();
    }
    bound[it - std::begin(names)] = value;
  }
  auto getTensor = [&](size_t i, at::Tensor &result) {
    if (!bound[i] || bound[i]->isNone()) {
      result = at::Tensor();
      return true;
    }
    if (!bound[i]->isTensor())
      return false;
    result = bound[i]->toTensor();
    return true;
  };
  auto getFlag = [&](size_t i, bool whenAbsent, bool &result) {
    if (!bound[i]) {
      result = whenAbsent;
      return true;
    }
    if (!bound[i]->isBool())
      return false;
    result = bound[i]->toBool();
    return true;
  };
  at::Tensor query, key, value, keyPaddingMask, attnMask;
  bool needWeights, average, isCausal;
  if (!getTensor(0, query) || !getTensor(1, key) || !getTensor(2, value) ||
      !query.defined() || !key.defined() || !value.defined()) {
    emitNodeError(op) << "query, key and value must be tensors";
    return failure();
  }
  if (!getTensor(3, keyPaddingMask) || !getTensor(5, attnMask) ||
      !getFlag(4, true, needWeights) || !getFlag(6, true, average) ||
      !getFlag(7, false, isCausal)) {
    emitNodeError(op) << "torch.nn.MultiheadAttention got ("
                      << describeCall(args, kwargs)
                      << "): masks must be tensors or None and flags bools";
    return failure();
  }
  if (isCausal) {
    emitNodeError(op) << "is_causal=True is not supported";
    return failure();
  }

  // Hyperparameters.
  DictAttr hparams = submodule.getHparams();
  auto intHParam = [&](StringRef name) -> std::optional<int64_t> {
    auto attr = dyn_cast_or_null<IntegerAttr>(hparams.lookup(name));
    if (!attr || isa<BoolAttr>(attr))
      return std::nullopt;
    return attr.getInt();
  };
  auto boolHParam = [&](StringRef name, bool whenAbsent) {
    auto attr = dyn_cast_or_null<BoolAttr>(hparams.lookup(name));
    return attr ? attr.getValue() : whenAbsent;
  };
  std::optional<int64_t> embedDim = intHParam("embed_dim");
  std::optional<int64_t> numHeads = intHParam("num_heads");
  if (!embedDim || !numHeads || *numHeads <= 0 || *embedDim % *numHeads) {
    emitNodeError(op) << "submodule '" << submodule.getSymName()
                      << "' needs int hyperparameters embed_dim and "
                         "num_heads, embed_dim divisible by num_heads";
    return failure();
  }
  for (StringRef dimName : {"kdim", "vdim"}) {
    Attribute dim = hparams.lookup(dimName);
    if (!dim || isa<NoneAttr>(dim))
      continue;
    std::optional<int64_t> size = intHParam(dimName);
    if (!size || *size != *embedDim) {
      emitNodeError(op) << dimName << " other than embed_dim (separate "
                        << "projection weights) is not supported";
      return failure();
    }
  }
  double dropout = 0.0;
  if (Attribute attr = hparams.lookup("dropout")) {
    if (auto real = dyn_cast<FloatAttr>(attr))
      dropout = real.getValueAsDouble();
    else if (auto integer = dyn_cast<IntegerAttr>(attr);
             integer && !isa<BoolAttr>(attr))
      dropout = static_cast<double>(integer.getInt());
  }
  bool training = submodule.getTraining();
  if (training && dropout > 0.0) {
    emitNodeError(op) << "submodule '" << submodule.getSymName()
                      << "' is in training mode with dropout " << dropout
                      << ", which is random";
    return failure();
  }

  // Weights.
  std::string path = submodule.getSymName().str();
  auto readOptional = [&](StringRef field, at::Tensor &result) {
    std::string name = path + "." + field.str();
    result = at::Tensor();
    if (!isa_and_nonnull<StateOp>(module.lookupTarget(name)))
      return success();
    FailureOr<at::Tensor> tensor = readState(op, name);
    if (failed(tensor))
      return failure();
    result = *tensor;
    return success();
  };
  FailureOr<at::Tensor> inProjWeight = readState(op, path + ".in_proj_weight");
  if (failed(inProjWeight))
    return failure();
  FailureOr<at::Tensor> outProjWeight =
      readState(op, path + ".out_proj.weight");
  if (failed(outProjWeight))
    return failure();
  at::Tensor inProjBias, outProjBias, biasK, biasV;
  if (failed(readOptional("in_proj_bias", inProjBias)) ||
      failed(readOptional("out_proj.bias", outProjBias)) ||
      failed(readOptional("bias_k", biasK)) ||
      failed(readOptional("bias_v", biasV)))
    return failure();

  // The functional form takes (L, N, E) inputs.
  bool batched = query.dim() == 3;
  if (!batched && query.dim() != 2) {
    emitNodeError(op) << "query must be 2-D or 3-D, not " << query.dim()
                      << "-D";
    return failure();
  }
  bool batchFirst = boolHParam("batch_first", false);
  if (batched && batchFirst) {
    query = query.transpose(0, 1);
    key = key.transpose(0, 1);
    value = value.transpose(0, 1);
  } else if (!batched) {
    query = query.unsqueeze(1);
    key = key.unsqueeze(1);
    value = value.unsqueeze(1);
    if (keyPaddingMask.defined())
      keyPaddingMask = keyPaddingMask.unsqueeze(0);
  }
  if (attnMask.defined()) {
    if (attnMask.dim() != 2) {
      emitNodeError(op) << "only 2-D attn_mask is supported, not "
                        << attnMask.dim() << "-D";
      return failure();
    }
    // A bool mask marks the positions that may not attend.
    if (attnMask.scalar_type() == at::kBool)
      attnMask =
          at::zeros(attnMask.sizes(), query.options())
              .masked_fill(attnMask, -std::numeric_limits<double>::infinity());
  }
  if (keyPaddingMask.defined() && keyPaddingMask.scalar_type() != at::kBool) {
    emitNodeError(op) << "only a bool key_padding_mask is supported";
    return failure();
  }

  namespace F = torch::nn::functional;
  auto options = F::MultiheadAttentionForwardFuncOptions(
                     *embedDim, *numHeads, *inProjWeight, inProjBias, biasK,
                     biasV, boolHParam("add_zero_attn", false), dropout,
                     *outProjWeight, outProjBias)
                     .training(training)
                     .key_padding_mask(keyPaddingMask)
                     .need_weights(needWeights)
                     .attn_mask(attnMask)
                     .average_attn_weights(average);
  auto [attnOutput, attnWeights] =
      F::multi_head_attention_forward(query, key, value, options);
  if (batched && batchFirst)
    attnOutput = attnOutput.transpose(0, 1);
  if (!batched) {
    attnOutput = attnOutput.squeeze(1);
    if (attnWeights.defined())
      attnWeights = attnWeights.squeeze(0);
  }
  return c10::IValue(c10::ivalue::Tuple::create(
      c10::IValue(attnOutput),
      attnWeights.defined() ? c10::IValue(attnWeights) : c10::IValue()));
}
