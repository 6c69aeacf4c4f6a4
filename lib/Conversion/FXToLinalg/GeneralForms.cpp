//===- GeneralForms.cpp - ATen's general forms of specific operators -----===//
//
// The operators ATen's decompositions and make_fx graphs call where a
// user's code calls a specific one: `convolution` and `_convolution` (one
// operator for every conv and transposed conv, by rank and a flag),
// `native_batch_norm` (batch_norm with its saved statistics),
// `nll_loss_forward` (the loss with its total weight), and the backward
// operators that need those: `nll_loss_backward`,
// `native_layer_norm_backward`. Each is computed through the lowerings of
// the specific operators (Lowering::lowerCall), as are the backward ops of
// convolution and max pooling.
//
//===----------------------------------------------------------------------===//

#include "Compose.h"

using namespace mlir;
using namespace mlir::fx;
using namespace mlir::fx::lowering;
using namespace mlir::fx::lowering::compose;

namespace {

/// An optional tensor argument: a reference to it in `operands` (appended),
/// or None.
LogicalResult optionalTensor(Lowering &l, Param p,
                             SmallVectorImpl<Attribute> &args,
                             SmallVectorImpl<Value> &operands) {
  if (l.isNone(p)) {
    args.push_back(none(l));
    return success();
  }
  Value t = l.tensor(p);
  if (!t)
    return failure();
  args.push_back(ref(l, operands.size()));
  operands.push_back(t);
  return success();
}

/// convolution(input, weight, bias, stride, padding, dilation, transposed,
/// output_padding, groups) and _convolution (the same and cuDNN flags): the
/// conv{1,2,3}d or conv_transpose{1,2,3}d of the input's rank.
LogicalResult lowerConvolution(Lowering &l) {
  namespace A = args::aten;
  using P = A::convolution;
  constexpr Param input = sameParam(P::input, A::_convolution::input,
                                    A::_convolution_deprecated::input);
  constexpr Param weight = sameParam(P::weight, A::_convolution::weight,
                                     A::_convolution_deprecated::weight);
  constexpr Param bias = sameParam(P::bias, A::_convolution::bias,
                                   A::_convolution_deprecated::bias);
  constexpr Param stride = sameParam(P::stride, A::_convolution::stride,
                                     A::_convolution_deprecated::stride);
  constexpr Param padding = sameParam(P::padding, A::_convolution::padding,
                                      A::_convolution_deprecated::padding);
  constexpr Param dilation = sameParam(P::dilation, A::_convolution::dilation,
                                       A::_convolution_deprecated::dilation);
  constexpr Param transposed =
      sameParam(P::transposed, A::_convolution::transposed,
                A::_convolution_deprecated::transposed);
  constexpr Param outputPadding =
      sameParam(P::output_padding, A::_convolution::output_padding,
                A::_convolution_deprecated::output_padding);
  constexpr Param groups = sameParam(P::groups, A::_convolution::groups,
                                     A::_convolution_deprecated::groups);
  Value x = l.tensor(input), w = l.tensor(weight);
  Type elem = l.resultElementType();
  std::optional<bool> isTransposed = l.constBool(transposed);
  if (!x || !w || !elem)
    return failure();
  if (!isTransposed)
    return l.fail("transposed must be a constant");
  int64_t spatial = rankOf(x) - 2;
  if (spatial < 1 || spatial > 3)
    return l.fail("needs an input of 3 to 5 dims (batched 1-3d)");
  SmallVector<Attribute> args = {ref(l, 0), ref(l, 1)};
  SmallVector<Value> operands = {x, w};
  if (failed(optionalTensor(l, bias, args, operands)))
    return failure();
  std::string target;
  if (*isTransposed) {
    target = "aten::conv_transpose" + std::to_string(spatial) + "d";
    if (spatial > 1)
      target += ".input";
    args.append({l.arg(stride), l.arg(padding), l.arg(outputPadding),
                 l.arg(groups), l.arg(dilation)});
  } else {
    target = "aten::conv" + std::to_string(spatial) + "d";
    args.append(
        {l.arg(stride), l.arg(padding), l.arg(dilation), l.arg(groups)});
  }
  Value out = l.lowerCall(target, args, operands, tensorOf(elem));
  return out ? l.replace(out) : failure();
}

/// _convolution_mode(input, weight, bias, stride, padding, dilation, groups),
/// what torch.jit.trace records for a conv padding "same" or "valid": the
/// conv{1,2,3}d.padding of the input's rank.
LogicalResult lowerConvolutionMode(Lowering &l) {
  using P = args::aten::_convolution_mode;
  Value x = l.tensor(P::input), w = l.tensor(P::weight);
  Type elem = l.resultElementType();
  if (!x || !w || !elem)
    return failure();
  // Unbatched inputs have one dim less.
  int64_t spatial = rankOf(w) - 2;
  if (spatial < 1 || spatial > 3)
    return l.fail("needs a weight of 3 to 5 dims (1-3d)");
  SmallVector<Attribute> args = {ref(l, 0), ref(l, 1)};
  SmallVector<Value> operands = {x, w};
  if (failed(optionalTensor(l, P::bias, args, operands)))
    return failure();
  args.append({l.arg(P::stride), l.arg(P::padding), l.arg(P::dilation),
               l.arg(P::groups)});
  Value out = l.lowerCall("aten::conv" + std::to_string(spatial) + "d.padding",
                          args, operands, tensorOf(elem));
  return out ? l.replace(out) : failure();
}

/// native_batch_norm(input, weight, bias, running_mean, running_var,
/// training, momentum, eps) -> (out, save_mean, save_invstd). Inference
/// (training=False) saves nothing (empty tensors, as ATen's CPU kernel);
/// training without running statistics saves the batch's mean and
/// 1/sqrt(biased var + eps). Training with running statistics updates them
/// in place, which a functional graph cannot: refused.
LogicalResult lowerNativeBatchNorm(Lowering &l) {
  using P = args::aten::native_batch_norm;
  Value x = l.tensor(P::input);
  Type elem = l.resultElementType(0);
  std::optional<bool> training = l.constBool(P::training);
  std::optional<double> eps = l.constFloat(l.arg(P::eps));
  if (!x || !elem || !isFloat(elem) || !training || !eps)
    return l.fail("needs a float input and constant training and eps");
  bool stats = !l.isNone(P::running_mean) || !l.isNone(P::running_var);
  if (*training && stats)
    return l.fail("training with running statistics updates them in place; "
                  "export the model in eval mode or without "
                  "track_running_stats");
  if (rankOf(x) < 2)
    return l.fail("needs a batched input");
  SmallVector<Attribute> args = {ref(l, 0)};
  SmallVector<Value> operands = {x};
  for (Param p : {P::weight, P::bias, P::running_mean, P::running_var})
    if (failed(optionalTensor(l, p, args, operands)))
      return failure();
  if (!*training) {
    args.append({l.b.getBoolAttr(false), l.arg(P::momentum), l.arg(P::eps),
                 l.b.getBoolAttr(false)});
    Value out = l.lowerCall("aten::batch_norm", args, operands, tensorOf(elem));
    if (!out)
      return failure();
    Value empty = l.empty({l.b.getIndexAttr(0)}, elem);
    return l.replaceTuple({out, empty, empty});
  }
  // The batch's statistics over every dim but the channels (dim 1), kept
  // as (1, C, 1, ...) for the normalization and saved as (C).
  SmallVector<int64_t> dims = {0};
  for (int64_t d = 2; d < rankOf(x); ++d)
    dims.push_back(d);
  Value xf = l.castTensor(x, elem);
  auto moments = momentsOver(l, xf, dims, *eps, elem);
  if (!moments)
    return failure();
  SmallVector<Value> parts = {xf, moments->mean, moments->rstd};
  for (Param p : {P::weight, P::bias}) {
    if (l.isNone(p))
      continue;
    Value column = l.tensor(p);
    if (!column)
      return failure();
    for (int64_t d = 2; d < rankOf(x); ++d)
      column = l.unsqueeze(column, d - 1);
    parts.push_back(l.unsqueeze(column, 0));
  }
  bool weighted = !l.isNone(P::weight), biased = !l.isNone(P::bias);
  Value out = l.elementwise(parts, elem, elem,
                            [&](OpBuilder &b, Location loc, ValueRange v) {
                              FloatOps f{b, loc, elem};
                              Value y = f.mul(f.sub(v[0], v[1]), v[2]);
                              unsigned next = 3;
                              if (weighted)
                                y = f.mul(y, v[next++]);
                              if (biased)
                                y = f.add(y, v[next]);
                              return y;
                            });
  SmallVector<OpFoldResult> channels = {l.dim(x, 1)};
  return l.replaceTuple({out, l.reshape(moments->mean, channels),
                         l.reshape(moments->rstd, channels)});
}

/// The class ids 0..C-1 as an int64 vector.
Value classIds(Lowering &l, int64_t classes) {
  return l.lowerCall("aten::arange", {int64(l, classes)}, {},
                     tensorOf(l.b.getI64Type()));
}

/// nll_loss_forward(self, target, weight, reduction, ignore_index) ->
/// (output, total_weight): the loss, and the weights of the counted
/// targets summed (0 without a reduction, as ATen).
LogicalResult lowerNllLossForward(Lowering &l) {
  using P = args::aten::nll_loss_forward;
  Value x = l.tensor(P::self), t = l.tensor(P::target_);
  Type elem = l.resultElementType(0);
  std::optional<int64_t> reduction = l.constInt(P::reduction);
  if (!x || !t || !elem || !isFloat(elem) || !reduction)
    return l.fail("needs a float input, a target and a constant reduction");
  SmallVector<Attribute> args = {ref(l, 0), ref(l, 1)};
  SmallVector<Value> operands = {x, t};
  if (failed(optionalTensor(l, P::weight, args, operands)))
    return failure();
  SmallVector<Attribute> lossArgs = args;
  lossArgs.append({l.arg(P::reduction), l.arg(P::ignore_index)});
  Value out = l.lowerCall("aten::nll_loss", lossArgs, operands, tensorOf(elem));
  if (!out)
    return failure();
  // The total weight is the summed loss of an input of -1 everywhere.
  Value total;
  if (*reduction == 0) {
    total = l.filled({}, l.constant(elem, 0));
  } else {
    operands[0] = l.filled(l.dims(x), l.constant(elem, -1));
    SmallVector<Attribute> totalArgs = args;
    totalArgs.append({int64(l, 2), l.arg(P::ignore_index)});
    total = l.lowerCall("aten::nll_loss", totalArgs, operands, tensorOf(elem));
    if (!total)
      return failure();
  }
  return l.replaceTuple({out, total});
}

/// nll_loss_backward and nll_loss2d_backward(grad, self, target, weight,
/// reduction, ignore_index, total_weight): -weight[c] * grad at the class
/// target[i] of each counted target (along dim 1 of (N, C, d1, ...)), over
/// total_weight for the mean; 0 elsewhere.
LogicalResult lowerNllLossBackward(Lowering &l) {
  using P = args::aten::nll_loss_backward;
  Value g = l.tensor(P::grad_output), x = l.tensor(P::self),
        t = l.tensor(P::target_), total = l.tensor(P::total_weight);
  Type elem = l.resultElementType();
  std::optional<int64_t> reduction = l.constInt(P::reduction);
  std::optional<int64_t> ignore = l.constInt(P::ignore_index);
  if (!g || !x || !t || !total || !elem || !isFloat(elem) || !reduction ||
      !ignore)
    return l.fail("needs float tensors and constant reduction and "
                  "ignore_index");
  // The classes are dim 1 of (N, C, d1, ...) and dim 0 of (C).
  int64_t rank = rankOf(x), classDim = rank == 1 ? 0 : 1;
  int64_t classes = staticDim(x, classDim);
  if (ShapedType::isDynamic(classes) ||
      rankOf(t) != std::max<int64_t>(rank - 1, 0))
    return l.fail("needs a static class count and a target of the input's "
                  "shape without the classes");
  // The gradient of the loss: the target's shape without a reduction, a
  // 0-d tensor with one.
  if (rankOf(g) != (*reduction == 0 ? rankOf(t) : 0))
    return l.fail("needs a grad_output of the target's shape (reduction "
                  "'none') or a 0-d grad_output (mean, sum)");
  // Class-indexed vectors (the ids, the weight) as (C, 1, ...) against
  // the trailing dims.
  auto alongClasses = [&](Value v) {
    SmallVector<OpFoldResult> sizes = {l.b.getIndexAttr(classes)};
    for (int64_t d = classDim + 1; d < rank; ++d)
      sizes.push_back(l.b.getIndexAttr(1));
    return sizes.size() == 1 ? v : l.reshape(v, sizes);
  };
  Value ids = classIds(l, classes);
  if (!ids)
    return failure();
  ids = alongClasses(ids);
  // The target with a unit class dim against the class ids: the one-hot
  // mask.
  Value column = rank >= 2 ? l.unsqueeze(t, 1) : t;
  if (*reduction == 0 && rank >= 2)
    g = l.unsqueeze(g, 1);
  SmallVector<Value> inputs = {column, ids, g, total};
  bool weighted = !l.isNone(P::weight);
  if (weighted) {
    Value w = l.tensor(P::weight);
    if (!w)
      return failure();
    inputs.push_back(alongClasses(w));
  }
  Type i64 = l.b.getI64Type();
  Value ignoreValue = l.constant(i64, double(*ignore));
  bool mean = *reduction == 1;
  Value grad = l.elementwise(
      {inputs[0], inputs[1]}, i64, l.b.getI1Type(),
      [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
        Value hit =
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, v[0], v[1]);
        Value counted = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                              v[0], ignoreValue);
        return arith::AndIOp::create(b, loc, hit, counted);
      });
  SmallVector<Value> parts = {grad, g, total};
  if (weighted)
    parts.push_back(inputs[4]);
  Value result = l.elementwise(
      parts, elem, elem, [&](OpBuilder &b, Location loc, ValueRange v) {
        FloatOps f{b, loc, elem};
        Value value = f.sub(f.c(0), v[1]);
        if (weighted)
          value = f.mul(value, v[3]);
        if (mean)
          value = f.div(value, v[2]);
        // v[0] is the mask as 0 or 1.
        Value on = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE,
                                         v[0], f.c(0));
        return arith::SelectOp::create(b, loc, on, value, f.c(0)).getResult();
      });
  if (rankOf(x) == 1 && rankOf(result) == 2)
    result = l.squeeze(result, 0);
  return l.replace(result);
}

/// native_layer_norm_backward(grad_out, input, normalized_shape, mean,
/// rstd, weight, bias, output_mask) -> (grad_input, grad_weight,
/// grad_bias), with N the normalized element count and x̂ = (x - mean) rstd:
///   grad_input  = rstd / N (N g - sum(g) - x̂ sum(g x̂)), g = grad_out weight
///   grad_weight = sum over the batch dims of grad_out x̂
///   grad_bias   = sum over the batch dims of grad_out
/// (all three computed whatever the mask: a masked one is not read).
LogicalResult lowerNativeLayerNormBackward(Lowering &l) {
  using P = args::aten::native_layer_norm_backward;
  Value gOut = l.tensor(P::grad_out), x = l.tensor(P::input),
        mean = l.tensor(P::mean), rstd = l.tensor(P::rstd);
  // The result is no typed tuple when the mask leaves parts out (None):
  // the input's type is the gradient's.
  Type elem = x ? cast<RankedTensorType>(x.getType()).getElementType() : Type();
  auto shape = l.intList(P::normalized_shape);
  if (!gOut || !x || !mean || !rstd || !elem || !isFloat(elem) || !shape ||
      int64_t(shape->size()) > rankOf(x))
    return l.fail("needs float tensors and a constant normalized_shape");
  int64_t rank = rankOf(x), axis = rank - int64_t(shape->size());
  SmallVector<int64_t> normDims, batchDims;
  for (int64_t d = 0; d < rank; ++d)
    (d >= axis ? normDims : batchDims).push_back(d);
  int64_t n = 1;
  for (int64_t s : *shape)
    n *= s;
  auto sumOver = [&](Value v, ArrayRef<int64_t> dims, bool keepdim) -> Value {
    if (dims.empty())
      return v;
    return l.lowerCall(
        "aten::sum.dim_IntList",
        {ref(l, 0), ints(l, dims), l.b.getBoolAttr(keepdim), none(l)}, {v},
        tensorOf(elem));
  };
  auto map = [&](ArrayRef<Value> in,
                 function_ref<Value(FloatOps, ValueRange)> body) {
    return l.elementwise(in, elem, elem,
                         [&](OpBuilder &b, Location loc, ValueRange v) {
                           return body(FloatOps{b, loc, elem}, v);
                         });
  };
  Value xHat = map({x, mean, rstd}, [](FloatOps f, ValueRange v) {
    return f.mul(f.sub(v[0], v[1]), v[2]);
  });
  Value g = gOut;
  if (!l.isNone(P::weight)) {
    Value w = l.tensor(P::weight);
    if (!w)
      return failure();
    g = map({gOut, w},
            [](FloatOps f, ValueRange v) { return f.mul(v[0], v[1]); });
  } else {
    g = l.castTensor(gOut, elem);
  }
  Value sumG = sumOver(g, normDims, true);
  Value gx = map({g, xHat},
                 [](FloatOps f, ValueRange v) { return f.mul(v[0], v[1]); });
  Value sumGx = sumOver(gx, normDims, true);
  if (!sumG || !sumGx)
    return failure();
  Value gradInput =
      map({g, sumG, xHat, sumGx, rstd}, [&](FloatOps f, ValueRange v) {
        Value inner =
            f.sub(f.sub(f.mul(f.c(double(n)), v[0]), v[1]), f.mul(v[2], v[3]));
        return f.mul(f.div(v[4], f.c(double(n))), inner);
      });
  Value gradWeight =
      sumOver(map({gOut, xHat},
                  [](FloatOps f, ValueRange v) { return f.mul(v[0], v[1]); }),
              batchDims, false);
  Value gradBias = sumOver(l.castTensor(gOut, elem), batchDims, false);
  if (!gradWeight || !gradBias)
    return failure();
  return l.replaceTuple({gradInput, gradWeight, gradBias});
}

/// convolution_backward(grad_output, input, weight, bias_sizes, stride,
/// padding, dilation, transposed, output_padding, groups, output_mask)
/// -> (grad_input, grad_weight, grad_bias) of a (not transposed) conv:
///   grad_input  = conv_transpose(grad_output, weight) with the output
///                 padding that gives back the input's size;
///   grad_weight = conv(input^T, grad_output^T) with stride and dilation
///                 swapped, cut to the kernel (one group only);
///   grad_bias   = grad_output summed over every dim but the channels.
/// All three are computed whatever the mask (a masked one is not read).
LogicalResult lowerConvolutionBackward(Lowering &l) {
  using P = args::aten::convolution_backward;
  Value g = l.tensor(P::grad_output), x = l.tensor(P::input),
        w = l.tensor(P::weight);
  std::optional<bool> transposed = l.constBool(P::transposed);
  std::optional<int64_t> groups = l.constInt(P::groups);
  auto stride = l.intList(P::stride), padding = l.intList(P::padding),
       dilation = l.intList(P::dilation);
  if (!g || !x || !w || !transposed || !groups || !stride || !padding ||
      !dilation)
    return l.fail("needs tensors and constant conv parameters");
  if (*transposed)
    return l.fail("the backward of a transposed convolution is not "
                  "supported");
  Type elem = cast<RankedTensorType>(x.getType()).getElementType();
  int64_t spatial = rankOf(x) - 2;
  if (!isFloat(elem) || spatial < 1 || spatial > 3 ||
      int64_t(stride->size()) != spatial ||
      int64_t(padding->size()) != spatial ||
      int64_t(dilation->size()) != spatial)
    return l.fail("needs a float batched 1-3d conv with a stride, padding "
                  "and dilation per spatial dim");
  auto xType = cast<RankedTensorType>(x.getType());
  auto gType = cast<RankedTensorType>(g.getType());
  auto wType = cast<RankedTensorType>(w.getType());
  if (!xType.hasStaticShape() || !gType.hasStaticShape() ||
      !wType.hasStaticShape())
    return l.fail("needs static shapes");
  std::string dims = std::to_string(spatial) + "d";
  // grad_input: the transposed conv, its output padding the rows the
  // forward's stride skipped at the end.
  SmallVector<int64_t> outputPadding;
  for (int64_t i = 0; i < spatial; ++i) {
    int64_t in = xType.getDimSize(2 + i), out = gType.getDimSize(2 + i),
            k = wType.getDimSize(2 + i);
    int64_t made = (out - 1) * (*stride)[i] - 2 * (*padding)[i] +
                   (*dilation)[i] * (k - 1) + 1;
    outputPadding.push_back(in - made);
  }
  Value gradInput = l.lowerCall(
      "aten::conv_transpose" + dims + (spatial > 1 ? ".input" : ""),
      {ref(l, 0), ref(l, 1), none(l), ints(l, *stride), ints(l, *padding),
       ints(l, outputPadding), int64(l, *groups), ints(l, *dilation)},
      {g, w}, tensorOf(elem));
  if (!gradInput)
    return failure();
  // grad_weight: channels as the batch, the batch as the channels; of a
  // grouped conv, each group's input and gradient channels apart, the
  // groups' weight gradients concatenated along dim 0.
  auto swap01 = [&](Value v) {
    return l.lowerCall("aten::transpose.int",
                       {ref(l, 0), int64(l, 0), int64(l, 1)}, {v},
                       tensorOf(elem));
  };
  auto weightGrad = [&](Value input, Value grad) -> Value {
    Value xT = swap01(input), gT = swap01(grad);
    if (!xT || !gT)
      return {};
    Value full = l.lowerCall("aten::conv" + dims,
                             {ref(l, 0), ref(l, 1), none(l), ints(l, *dilation),
                              ints(l, *padding), ints(l, *stride), int64(l, 1)},
                             {xT, gT}, tensorOf(elem));
    Value grad01 = full ? swap01(full) : Value();
    for (int64_t i = 0; grad01 && i < spatial; ++i)
      grad01 = sliceOf(l, grad01, 2 + i, 0, wType.getDimSize(2 + i));
    return grad01;
  };
  int64_t inPerGroup = xType.getDimSize(1) / *groups,
          outPerGroup = gType.getDimSize(1) / *groups;
  if (*groups < 1 || xType.getDimSize(1) % *groups ||
      gType.getDimSize(1) % *groups)
    return l.fail("the groups must divide the channels");
  SmallVector<Value> parts;
  for (int64_t group = 0; group < *groups; ++group) {
    Value input = x, grad = g;
    if (*groups > 1) {
      input = sliceOf(l, x, 1, group * inPerGroup, (group + 1) * inPerGroup);
      grad = sliceOf(l, g, 1, group * outPerGroup, (group + 1) * outPerGroup);
    }
    Value part = input && grad ? weightGrad(input, grad) : Value();
    if (!part)
      return failure();
    parts.push_back(part);
  }
  Value gradWeight = parts.front();
  if (parts.size() > 1) {
    SmallVector<Attribute> refs;
    for (unsigned i = 0; i < parts.size(); ++i)
      refs.push_back(ref(l, i));
    gradWeight = l.lowerCall("aten::cat",
                             {ListAttr::get(contextOf(l), refs), int64(l, 0)},
                             parts, tensorOf(elem));
  }
  if (!gradWeight)
    return failure();
  SmallVector<int64_t> sumDims = {0};
  for (int64_t d = 2; d < rankOf(g); ++d)
    sumDims.push_back(d);
  Value gradBias = l.lowerCall(
      "aten::sum.dim_IntList",
      {ref(l, 0), ints(l, sumDims), l.b.getBoolAttr(false), none(l)}, {g},
      tensorOf(elem));
  if (!gradBias)
    return failure();
  return l.replaceTuple({gradInput, gradWeight, gradBias});
}

/// max_pool{2,3}d_with_indices_backward(grad_output, self, ..., indices):
/// each window's gradient added at the position its maximum came from
/// (indices into the flattened spatial dims): a scatter_add per plane.
LogicalResult lowerMaxPoolBackward(Lowering &l) {
  using P = args::aten::max_pool2d_with_indices_backward;
  using P3 = args::aten::max_pool3d_with_indices_backward;
  constexpr Param grad = sameParam(P::grad_output, P3::grad_output);
  constexpr Param self = sameParam(P::self, P3::self);
  constexpr Param indices = sameParam(P::indices, P3::indices);
  Value g = l.tensor(grad), x = l.tensor(self), idx = l.tensor(indices);
  if (!g || !x || !idx)
    return failure();
  Type elem = cast<RankedTensorType>(x.getType()).getElementType();
  auto xType = cast<RankedTensorType>(x.getType());
  int64_t spatial = l.target() == P::target ? 2 : 3;
  int64_t lead = xType.getRank() - spatial;
  if (!xType.hasStaticShape() ||
      !cast<RankedTensorType>(g.getType()).hasStaticShape() || lead < 0)
    return l.fail("needs static shapes");
  // (lead dims..., flattened spatial dims) views of all three.
  auto planes = [&](Value v) {
    auto shape = cast<RankedTensorType>(v.getType()).getShape();
    SmallVector<int64_t> sizes(shape.begin(), shape.begin() + lead);
    sizes.push_back(-1);
    Type e = cast<RankedTensorType>(v.getType()).getElementType();
    return l.lowerCall("aten::reshape", {ref(l, 0), ints(l, sizes)}, {v},
                       tensorOf(e));
  };
  Value zeros = l.filled(l.dims(x), l.constant(elem, 0));
  Value flatZeros = planes(zeros), flatIdx = planes(idx), flatG = planes(g);
  if (!flatZeros || !flatIdx || !flatG)
    return failure();
  Value sum = l.lowerCall("aten::scatter_add",
                          {ref(l, 0), int64(l, lead), ref(l, 1), ref(l, 2)},
                          {flatZeros, flatIdx, flatG}, tensorOf(elem));
  if (!sum)
    return failure();
  Value out =
      l.lowerCall("aten::reshape", {ref(l, 0), ints(l, xType.getShape())},
                  {sum}, tensorOf(elem));
  return out ? l.replace(out) : failure();
}

/// index_put(self, indices, values, accumulate) with one index tensor, the
/// other indices None: an int vector of positions along its dim is
/// index_copy (index_add when accumulating) of the values broadcast to the
/// selected region, negative positions counted from the end; a bool mask
/// over the leading dims with one value is masked_fill. Other index
/// combinations, and a mask with several values (whose count depends on
/// the data), are refused.
/// index_put with index vectors for the consecutive dims `indexed`
/// (x[i, j] = v): the dims they index are collapsed into one, indexed by
/// the row-major position sum_k i_k stride_k (each i_k wrapped when
/// negative and checked against its own dim, as eager's IndexError), and
/// the one-index form below runs on the collapsed tensor.
LogicalResult lowerIndexPutSeveral(Lowering &l, Value x, Value values,
                                   bool accumulate, ArrayRef<Attribute> indices,
                                   ArrayRef<int64_t> indexed) {
  auto xType = cast<RankedTensorType>(x.getType());
  int64_t first = indexed.front(), count = indexed.size();
  if (indexed.back() - first + 1 != count)
    return l.fail("index tensors must index consecutive dims");
  if (!xType.hasStaticShape())
    return l.fail("needs a static shape");
  // The index vectors, of one length (a length of 1 broadcasts).
  SmallVector<Value> vectors;
  int64_t length = 1;
  for (int64_t d : indexed) {
    Value v = l.tensor(indices[d]);
    if (!v)
      return failure();
    auto t = cast<RankedTensorType>(v.getType());
    if (t.getRank() != 1 || !isa<IntegerType>(t.getElementType()) ||
        t.getElementType().isInteger(1) || t.isDynamicDim(0))
      return l.fail("several index tensors must be int vectors of static "
                    "length");
    if (t.getDimSize(0) != 1) {
      if (length != 1 && length != t.getDimSize(0))
        return l.fail("the index vectors must have one length");
      length = t.getDimSize(0);
    }
    vectors.push_back(v);
  }
  Type i64 = l.b.getI64Type();
  SmallVector<int64_t> strides(count, 1);
  for (int64_t k = count - 2; k >= 0; --k)
    strides[k] = strides[k + 1] * xType.getDimSize(first + k + 1);
  for (int64_t k = 0; k < count; ++k)
    checkIndexRange(l, x, first + k, vectors[k], /*negative=*/true);
  Value linear = l.elementwise(
      vectors, i64, i64, [&](OpBuilder &b, Location loc, ValueRange v) {
        Value sum = constantOf(b, loc, i64, 0);
        for (int64_t k = 0; k < count; ++k) {
          Value size = constantOf(b, loc, i64, xType.getDimSize(first + k));
          Value negative =
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, v[k],
                                    constantOf(b, loc, i64, 0));
          Value position = arith::SelectOp::create(
              b, loc, negative, arith::AddIOp::create(b, loc, v[k], size),
              v[k]);
          sum = arith::AddIOp::create(
              b, loc, sum,
              arith::MulIOp::create(b, loc, position,
                                    constantOf(b, loc, i64, strides[k])));
        }
        return sum;
      });
  // The tensor with the indexed dims collapsed, the values expanded to
  // the region they fill (the indexed dims replaced by the length).
  SmallVector<OpFoldResult> collapsed;
  SmallVector<int64_t> region;
  for (int64_t d = 0; d < xType.getRank(); ++d) {
    if (d > first && d < first + count)
      continue;
    int64_t size = xType.getDimSize(d);
    if (d == first) {
      size = 1;
      for (int64_t k = 0; k < count; ++k)
        size *= xType.getDimSize(first + k);
    }
    collapsed.push_back(l.b.getIndexAttr(size));
    region.push_back(d == first ? length : size);
  }
  Type elem = xType.getElementType();
  Value source = l.lowerCall("aten::expand", {ref(l, 0), ints(l, region)},
                             {values}, tensorOf(elem));
  if (!source)
    return failure();
  source = l.castTensor(source, elem);
  Value out =
      l.lowerCall(accumulate ? "aten::index_add" : "aten::index_copy",
                  {ref(l, 0), int64(l, first), ref(l, 1), ref(l, 2)},
                  {l.reshape(x, collapsed), linear, source}, tensorOf(elem));
  if (!out)
    return failure();
  return l.replace(l.reshape(out, l.dims(x)));
}

LogicalResult lowerIndexPut(Lowering &l) {
  using P = args::aten::index_put;
  static_assert(
      sameParam(P::self, args::aten::index_put_hacked_twin::self).index == 0 &&
      sameParam(P::indices, args::aten::index_put_hacked_twin::indices).index ==
          1 &&
      sameParam(P::values, args::aten::index_put_hacked_twin::values).index ==
          2 &&
      sameParam(P::accumulate, args::aten::index_put_hacked_twin::accumulate)
              .index == 3);
  Value x = l.tensor(P::self), values = l.tensor(P::values);
  std::optional<bool> accumulate = l.constBool(P::accumulate);
  if (!x || !values || !accumulate)
    return l.fail("needs tensors and a constant accumulate");
  ArrayRef<Attribute> indices;
  if (auto list = dyn_cast_or_null<ListAttr>(l.arg(P::indices)))
    indices = list.getElements();
  else if (auto tuple = dyn_cast_or_null<TupleAttr>(l.arg(P::indices)))
    indices = tuple.getElements();
  SmallVector<int64_t> indexed;
  for (auto [i, a] : llvm::enumerate(indices))
    if (!l.isNone(a))
      indexed.push_back(i);
  if (indexed.empty())
    return l.fail("needs an index tensor");
  if (indexed.size() > 1)
    return lowerIndexPutSeveral(l, x, values, *accumulate, indices, indexed);
  int64_t dim = indexed.front();
  Value index = l.tensor(indices[dim]);
  if (!index)
    return failure();
  auto xType = cast<RankedTensorType>(x.getType());
  auto indexType = cast<RankedTensorType>(index.getType());
  Type elem = xType.getElementType();
  if (indexType.getElementType().isInteger(1)) {
    if (dim != 0 || *accumulate)
      return l.fail("a bool mask is supported first and without "
                    "accumulate");
    if (indexType.getRank() > xType.getRank() ||
        indexType.getShape() !=
            xType.getShape().take_front(indexType.getRank()) ||
        !indexType.hasStaticShape())
      return l.fail("a bool mask must have the leading (static) shape of "
                    "the tensor");
    auto valuesType = cast<RankedTensorType>(values.getType());
    if (!valuesType.hasStaticShape() || valuesType.getNumElements() != 1)
      return l.fail("a bool mask assigns one value here; a tensor of values "
                    "(whose count depends on the data) is not supported");
    Value mask = index;
    for (int64_t d = indexType.getRank(); d < xType.getRank(); ++d)
      mask = l.unsqueeze(mask, d);
    Value scalar = l.reshape(values, {});
    Value out = l.lowerCall("aten::masked_fill.Tensor",
                            {ref(l, 0), ref(l, 1), ref(l, 2)},
                            {x, mask, scalar}, tensorOf(elem));
    return out ? l.replace(out) : failure();
  }
  if (indexType.getRank() != 1 || !xType.hasStaticShape())
    return l.fail("an int index must be a vector into a static shape");
  // Negative positions count from the end of the dim.
  Type i64 = l.b.getI64Type();
  int64_t size = xType.getDimSize(dim);
  Value positions = l.elementwise(
      {index}, i64, i64, [&](OpBuilder &b, Location loc, ValueRange v) {
        Value zero = constantOf(b, loc, i64, 0);
        Value negative = arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::slt, v[0], zero);
        Value wrapped =
            arith::AddIOp::create(b, loc, v[0], constantOf(b, loc, i64, size));
        return arith::SelectOp::create(b, loc, negative, wrapped, v[0])
            .getResult();
      });
  SmallVector<int64_t> region(xType.getShape());
  region[dim] = indexType.getDimSize(0);
  if (ShapedType::isDynamic(region[dim]))
    return l.fail("needs a static index count");
  Value source = l.lowerCall("aten::expand", {ref(l, 0), ints(l, region)},
                             {values}, tensorOf(elem));
  if (!source)
    return failure();
  source = l.castTensor(source, elem);
  Value out = l.lowerCall(*accumulate ? "aten::index_add" : "aten::index_copy",
                          {ref(l, 0), int64(l, dim), ref(l, 1), ref(l, 2)},
                          {x, positions, source}, tensorOf(elem));
  return out ? l.replace(out) : failure();
}

/// native_dropout(input, p, train) outside training: the input and a mask
/// of ones. Training (random) is refused.
LogicalResult lowerNativeDropout(Lowering &l) {
  using P = args::aten::native_dropout;
  Value x = l.tensor(P::input);
  if (!x)
    return failure();
  std::optional<bool> train = l.constBool(P::train);
  if (!train || *train)
    return l.fail("dropout in training is random; compile the model in "
                  "eval mode");
  Value ones = l.filled(l.dims(x), l.constant(l.b.getI1Type(), 1));
  return l.replaceTuple({x, ones});
}

/// copy(self, src): src broadcast to self's shape in self's dtype.
LogicalResult lowerCopy(Lowering &l) {
  using P = args::aten::copy;
  Value x = l.tensor(P::self), src = l.tensor(P::src);
  if (!x || !src)
    return failure();
  Type elem = cast<RankedTensorType>(x.getType()).getElementType();
  if (rankOf(src) > rankOf(x))
    return l.fail("the source has more dims than the tensor");
  return l.replace(
      l.elementwise({x, src}, elem, elem,
                    [](OpBuilder &, Location, ValueRange v) { return v[1]; }));
}

/// native_group_norm(input, weight, bias, N, C, HxW, group, eps) ->
/// (out, mean, rstd): group_norm, and each (sample, group)'s statistics
/// as (N, group).
LogicalResult lowerNativeGroupNorm(Lowering &l) {
  using P = args::aten::native_group_norm;
  Value x = l.tensor(P::input);
  std::optional<int64_t> groups = l.constInt(P::group);
  std::optional<double> eps = l.constFloat(l.arg(P::eps));
  if (!x || !groups || !eps || *groups < 1)
    return l.fail("needs a tensor and constant group and eps");
  auto type = cast<RankedTensorType>(x.getType());
  Type elem = type.getElementType();
  if (!isFloat(elem) || type.getRank() < 2 || !type.hasStaticShape() ||
      type.getDimSize(1) % *groups)
    return l.fail("needs a static float tensor whose channels the groups "
                  "divide");
  SmallVector<Attribute> args = {ref(l, 0), int64(l, *groups)};
  SmallVector<Value> operands = {x};
  for (Param p : {P::weight, P::bias})
    if (failed(optionalTensor(l, p, args, operands)))
      return failure();
  args.append({l.arg(P::eps), l.b.getBoolAttr(false)});
  Value out = l.lowerCall("aten::group_norm", args, operands, tensorOf(elem));
  if (!out)
    return failure();
  int64_t n = type.getDimSize(0);
  Value grouped =
      l.lowerCall("aten::reshape", {ref(l, 0), ints(l, {n, *groups, -1})}, {x},
                  tensorOf(elem));
  if (!grouped)
    return failure();
  auto moments = momentsOver(l, grouped, {2}, *eps, elem);
  if (!moments)
    return failure();
  SmallVector<OpFoldResult> saved = {l.b.getIndexAttr(n),
                                     l.b.getIndexAttr(*groups)};
  return l.replaceTuple(
      {out, l.reshape(moments->mean, saved), l.reshape(moments->rstd, saved)});
}

/// rrelu(self, lower, upper, training) outside training: leaky_relu with
/// the slope (lower + upper) / 2. Training draws random slopes: refused.
LogicalResult lowerRrelu(Lowering &l) {
  using P = args::aten::rrelu;
  std::optional<bool> training = l.constBool(P::training);
  std::optional<double> lower = l.constFloat(l.arg(P::lower)),
                        upper = l.constFloat(l.arg(P::upper));
  Value x = l.tensor(P::self);
  if (!x)
    return failure();
  if (!training || *training)
    return l.fail("rrelu in training draws random slopes; compile the model "
                  "in eval mode");
  if (!lower || !upper)
    return l.fail("lower and upper must be constants");
  Type elem = cast<RankedTensorType>(x.getType()).getElementType();
  Value out =
      l.lowerCall("aten::leaky_relu",
                  {ref(l, 0), l.b.getF64FloatAttr((*lower + *upper) / 2)}, {x},
                  tensorOf(elem));
  return out ? l.replace(out) : failure();
}

/// embedding_dense_backward(grad_output, indices, num_weights, padding_idx,
/// scale_grad_by_freq): each gradient row added to the weight row its
/// index names (index_add into zeros), rows of padding_idx left out.
/// Scaling by frequency is refused.
LogicalResult lowerEmbeddingDenseBackward(Lowering &l) {
  using P = args::aten::embedding_dense_backward;
  Value g = l.tensor(P::grad_output), idx = l.tensor(P::indices);
  std::optional<int64_t> rows = l.constInt(P::num_weights),
                         padding = l.constInt(P::padding_idx);
  std::optional<bool> scale = l.constBool(P::scale_grad_by_freq);
  if (!g || !idx || !rows || !padding || !scale)
    return l.fail("needs tensors and constant sizes and flags");
  if (*scale)
    return l.fail("scale_grad_by_freq is not supported");
  auto gType = cast<RankedTensorType>(g.getType());
  Type elem = gType.getElementType();
  int64_t width = gType.getDimSize(gType.getRank() - 1);
  if (!isFloat(elem) || ShapedType::isDynamic(width))
    return l.fail("needs a float gradient with a static last dim");
  Value flatIdx = flattened(l, idx);
  Value flatG = l.lowerCall("aten::reshape", {ref(l, 0), ints(l, {-1, width})},
                            {g}, tensorOf(elem));
  if (!flatIdx || !flatG)
    return failure();
  if (*padding >= 0) {
    // Rows of padding_idx contribute nothing.
    Type i64 = l.b.getI64Type();
    Value column = l.unsqueeze(flatIdx, 1);
    Value pad = l.constant(i64, double(*padding));
    flatG = l.elementwise(
        {flatG, column}, elem, elem,
        [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
          // v[1] is the index converted to the float compute type.
          Value isPad =
              arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, v[1],
                                    arith::SIToFPOp::create(b, loc, elem, pad));
          return arith::SelectOp::create(b, loc, isPad,
                                         constantOf(b, loc, elem, 0), v[0]);
        });
  }
  Value zeros = l.filled({l.b.getIndexAttr(*rows), l.b.getIndexAttr(width)},
                         l.constant(elem, 0));
  Value out = l.lowerCall("aten::index_add",
                          {ref(l, 0), int64(l, 0), ref(l, 1), ref(l, 2)},
                          {zeros, flatIdx, flatG}, tensorOf(elem));
  return out ? l.replace(out) : failure();
}

/// _reshape_alias(self, size, stride): the view make_fx records for a
/// reshape that needs no copy, whose strides are those of `self`'s
/// storage; its elements are reshape(self, size)'s, which tensors of
/// value semantics compute without strides.
LogicalResult lowerReshapeAlias(Lowering &l) {
  using P = args::aten::_reshape_alias;
  Value x = l.tensor(P::self);
  if (!x)
    return failure();
  Value v = l.lowerCall("aten::reshape", {ref(l, 0), l.arg(P::size)}, {x},
                        l.resultType());
  return v ? l.replace(v) : failure();
}

} // namespace

void mlir::fx::lowering::addGeneralFormLowerings(llvm::StringMap<LowerFn> &t) {
  addLowering(t,
              {"aten::convolution", "aten::_convolution",
               "aten::_convolution.deprecated"},
              lowerConvolution);
  addLowering(t, {"aten::_convolution_mode"}, lowerConvolutionMode);
  addLowering(t, {"aten::native_batch_norm"}, lowerNativeBatchNorm);
  addLowering(t, {"aten::nll_loss_forward", "aten::nll_loss2d_forward"},
              lowerNllLossForward);
  addLowering(t, {"aten::nll_loss_backward", "aten::nll_loss2d_backward"},
              lowerNllLossBackward);
  addLowering(t, {"aten::native_layer_norm_backward"},
              lowerNativeLayerNormBackward);
  addLowering(t, {"aten::convolution_backward"}, lowerConvolutionBackward);
  addLowering(t, {"aten::index_put", "aten::index_put.hacked_twin"},
              lowerIndexPut);
  addLowering(t, {"aten::native_dropout"}, lowerNativeDropout);
  addLowering(t, {"aten::copy"}, lowerCopy);
  addLowering(t, {"aten::native_group_norm"}, lowerNativeGroupNorm);
  addLowering(t, {"aten::rrelu"}, lowerRrelu);
  addLowering(t, {"aten::embedding_dense_backward"},
              lowerEmbeddingDenseBackward);
  addLowering(t,
              {"aten::max_pool2d_with_indices_backward",
               "aten::max_pool3d_with_indices_backward"},
              lowerMaxPoolBackward);
  addLowering(t, {"aten::_reshape_alias"}, lowerReshapeAlias);
}
