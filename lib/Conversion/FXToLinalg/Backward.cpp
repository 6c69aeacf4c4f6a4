//===- Backward.cpp - The backward operators of activations and losses ----===//
//
// The operators autograd calls for the gradient of an activation, a softmax
// or a loss (`threshold_backward`, `gelu_backward`, `_softmax_backward_data`,
// `mse_loss_backward`, ...), as the graph of a training step holds them
// (`make_fx` of a function that calls `torch.autograd.grad`). Each is the
// elementwise formula of ATen's CPU kernel for it, on the incoming gradient
// and the forward's input or result; the softmax ones add one reduction.
// The backward of batch norm is per-channel sums and one elementwise
// formula; the backward of average pooling is a gather: each input
// element sums the (divided) gradients of the windows it lies in.
//
//===----------------------------------------------------------------------===//

#include "Compose.h"
#include "Lowering.h"

#include "llvm/ADT/StringSwitch.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::fx;
using namespace mlir::fx::lowering;
using compose::rankOf;

namespace {

using FP = arith::CmpFPredicate;

Value cmp(OpBuilder &b, Location loc, FP predicate, Value x, Value y) {
  return arith::CmpFOp::create(b, loc, predicate, x, y);
}
Value select(OpBuilder &b, Location loc, Value c, Value x, Value y) {
  return arith::SelectOp::create(b, loc, c, x, y);
}

/// The float result type of the node, or null (reason recorded).
Type floatResult(Lowering &l) {
  Type r = l.resultElementType();
  if (!r || !isFloat(r)) {
    (void)l.fail("needs float tensors");
    return nullptr;
  }
  return r;
}

/// A Scalar argument as a constant of `r` inside a body; null (reason
/// recorded) when it is not a number.
Value scalarArg(Lowering &l, Param p, Type r) {
  Value v = l.scalar(l.arg(p), r);
  if (!v)
    (void)l.fail(Twine("'") + p.name + "' must be a number");
  return v;
}

/// `body(grad, x)` elementwise over the incoming gradient `grad` and the
/// forward's tensor `x` (broadcast as PyTorch does).
LogicalResult lowerGradOf(
    Lowering &l, Param grad, Param x,
    function_ref<Value(OpBuilder &, Location, FloatOps, Value, Value)> body) {
  Type r = floatResult(l);
  Value g = l.tensor(grad), v = l.tensor(x);
  if (!r || !g || !v)
    return failure();
  return l.replace(l.elementwise(
      {g, v}, r, r, [&](OpBuilder &b, Location loc, ValueRange in) -> Value {
        return body(b, loc, FloatOps{b, loc, r}, in[0], in[1]);
      }));
}

/// threshold_backward(grad, self, threshold): 0 where self <= threshold.
LogicalResult lowerThresholdBackward(Lowering &l) {
  using P = args::aten::threshold_backward;
  Type r = floatResult(l);
  Value threshold = r ? scalarArg(l, P::threshold, r) : Value();
  if (!threshold)
    return failure();
  return lowerGradOf(
      l, P::grad_output, P::self,
      [&](OpBuilder &b, Location loc, FloatOps f, Value g, Value x) {
        return select(b, loc, cmp(b, loc, FP::OLE, x, threshold), f.c(0), g);
      });
}

/// gelu_backward(grad, self, approximate): grad * d/dx gelu(x), erf or
/// tanh form.
LogicalResult lowerGeluBackward(Lowering &l) {
  using P = args::aten::gelu_backward;
  StringRef approximate = "none";
  if (auto s = dyn_cast_or_null<StringAttr>(l.arg(P::approximate)))
    approximate = s.getValue();
  if (approximate != "none" && approximate != "tanh")
    return l.fail("approximate must be 'none' or 'tanh'");
  bool useTanh = approximate == "tanh";
  return lowerGradOf(
      l, P::grad_output, P::self,
      [&](OpBuilder &b, Location loc, FloatOps f, Value g, Value x) -> Value {
        if (!useTanh) {
          // cdf + x * pdf of the standard normal.
          Value cdf = f.mul(
              f.c(0.5), f.add(f.c(1), math::ErfOp::create(
                                          b, loc, f.mul(x, f.c(M_SQRT1_2)))));
          Value pdf =
              f.mul(math::ExpOp::create(b, loc, f.mul(f.c(-0.5), f.mul(x, x))),
                    f.c(0.5 * M_2_SQRTPI * M_SQRT1_2));
          return f.mul(g, f.add(cdf, f.mul(x, pdf)));
        }
        const double kBeta = M_SQRT2 * M_2_SQRTPI * 0.5, kKappa = 0.044715;
        Value xSq = f.mul(x, x);
        Value inner =
            f.mul(f.c(kBeta), f.add(x, f.mul(f.c(kKappa), f.mul(xSq, x))));
        Value t = math::TanhOp::create(b, loc, inner);
        Value left = f.mul(f.c(0.5), x);
        Value right = f.add(f.c(1), t);
        Value leftDerivative = f.mul(f.c(0.5), right);
        Value innerDerivative =
            f.mul(f.c(kBeta), f.add(f.c(1), f.mul(f.c(3 * kKappa), xSq)));
        Value rightDerivative =
            f.mul(f.mul(left, f.sub(f.c(1), f.mul(t, t))), innerDerivative);
        return f.mul(g, f.add(leftDerivative, rightDerivative));
      });
}

/// elu_backward(grad, alpha, scale, input_scale, is_result, self_or_result).
LogicalResult lowerEluBackward(Lowering &l) {
  using P = args::aten::elu_backward;
  Type r = floatResult(l);
  if (!r)
    return failure();
  Value alpha = scalarArg(l, P::alpha, r), scale = scalarArg(l, P::scale, r),
        inputScale = scalarArg(l, P::input_scale, r);
  std::optional<bool> isResult = l.constBool(P::is_result);
  if (!alpha || !scale || !inputScale)
    return failure();
  if (!isResult)
    return l.fail("is_result must be a constant");
  return lowerGradOf(
      l, P::grad_output, P::self_or_result,
      [&](OpBuilder &b, Location loc, FloatOps f, Value g, Value y) -> Value {
        Value negcoef = f.mul(alpha, scale);
        Value negative =
            *isResult
                ? f.mul(f.mul(g, inputScale), f.add(y, negcoef))
                : f.mul(f.mul(f.mul(g, inputScale), negcoef),
                        math::ExpOp::create(b, loc, f.mul(y, inputScale)));
        return select(b, loc, cmp(b, loc, FP::OLE, y, f.c(0)), negative,
                      f.mul(g, scale));
      });
}

/// leaky_relu_backward(grad, self, negative_slope, self_is_result).
LogicalResult lowerLeakyReluBackward(Lowering &l) {
  using P = args::aten::leaky_relu_backward;
  Type r = floatResult(l);
  Value slope = r ? scalarArg(l, P::negative_slope, r) : Value();
  if (!slope)
    return failure();
  return lowerGradOf(
      l, P::grad_output, P::self,
      [&](OpBuilder &b, Location loc, FloatOps f, Value g, Value x) {
        return select(b, loc, cmp(b, loc, FP::OGT, x, f.c(0)), g,
                      f.mul(g, slope));
      });
}

/// softplus_backward(grad, self, beta, threshold): grad where x * beta
/// exceeds threshold (softplus is x there), else grad * sigmoid(x * beta).
LogicalResult lowerSoftplusBackward(Lowering &l) {
  using P = args::aten::softplus_backward;
  Type r = floatResult(l);
  if (!r)
    return failure();
  Value beta = scalarArg(l, P::beta, r),
        threshold = scalarArg(l, P::threshold, r);
  if (!beta || !threshold)
    return failure();
  return lowerGradOf(
      l, P::grad_output, P::self,
      [&](OpBuilder &b, Location loc, FloatOps f, Value g, Value x) -> Value {
        Value scaled = f.mul(x, beta);
        Value z = math::ExpOp::create(b, loc, scaled);
        return select(b, loc, cmp(b, loc, FP::OGT, scaled, threshold), g,
                      f.div(f.mul(g, z), f.add(z, f.c(1))));
      });
}

/// hardtanh_backward(grad, self, min_val, max_val): 0 outside (min, max).
LogicalResult lowerHardtanhBackward(Lowering &l) {
  using P = args::aten::hardtanh_backward;
  Type r = floatResult(l);
  if (!r)
    return failure();
  Value lo = scalarArg(l, P::min_val, r), hi = scalarArg(l, P::max_val, r);
  if (!lo || !hi)
    return failure();
  return lowerGradOf(
      l, P::grad_output, P::self,
      [&](OpBuilder &b, Location loc, FloatOps f, Value g, Value x) -> Value {
        Value outside = arith::OrIOp::create(
            b, loc, cmp(b, loc, FP::OLE, x, lo), cmp(b, loc, FP::OGE, x, hi));
        return select(b, loc, outside, f.c(0), g);
      });
}

/// hardshrink_backward / softshrink_backward(grad, self, lambd): 0 in
/// [-lambd, lambd].
LogicalResult lowerShrinkBackward(Lowering &l) {
  using P = args::aten::softshrink_backward;
  using H = args::aten::hardshrink_backward;
  constexpr Param grad = sameParam(P::grad_output, H::grad_out);
  constexpr Param self = sameParam(P::self, H::self);
  constexpr Param lambd = sameParam(P::lambd, H::lambd);
  Type r = floatResult(l);
  Value lambdValue = r ? scalarArg(l, lambd, r) : Value();
  if (!lambdValue)
    return failure();
  return lowerGradOf(
      l, grad, self,
      [&](OpBuilder &b, Location loc, FloatOps f, Value g, Value x) -> Value {
        Value inside = arith::AndIOp::create(
            b, loc, cmp(b, loc, FP::OGE, x, f.sub(f.c(0), lambdValue)),
            cmp(b, loc, FP::OLE, x, lambdValue));
        return select(b, loc, inside, f.c(0), g);
      });
}

/// logit_backward(grad, self, eps): grad / (x (1 - x)) inside the domain
/// ([eps, 1 - eps]); outside it 0 with eps, NaN without.
LogicalResult lowerLogitBackward(Lowering &l) {
  using P = args::aten::logit_backward;
  Type r = floatResult(l);
  if (!r)
    return failure();
  std::optional<double> eps;
  if (!l.isNone(P::eps)) {
    eps = l.constFloat(l.arg(P::eps));
    if (!eps)
      return l.fail("eps must be a constant");
  }
  return lowerGradOf(
      l, P::grad_output, P::self,
      [&](OpBuilder &b, Location loc, FloatOps f, Value g, Value x) -> Value {
        Value lo = f.c(eps ? *eps : 0), hi = f.c(eps ? 1 - *eps : 1);
        Value outside = arith::OrIOp::create(
            b, loc, cmp(b, loc, FP::OLT, x, lo), cmp(b, loc, FP::OGT, x, hi));
        Value inside = f.div(g, f.mul(x, f.sub(f.c(1), x)));
        return select(b, loc, outside,
                      f.c(eps ? 0 : std::numeric_limits<double>::quiet_NaN()),
                      inside);
      });
}

/// The backward operators of the activations with one formula each in
/// grad and the forward's input (or, for sigmoid and tanh, result).
LogicalResult lowerSimpleBackward(Lowering &l) {
  namespace A = args::aten;
  constexpr Param grad = sameParam(
      A::silu_backward::grad_output, A::sigmoid_backward::grad_output,
      A::tanh_backward::grad_output, A::hardswish_backward::grad_output,
      A::hardsigmoid_backward::grad_output, A::mish_backward::grad_output);
  // The forward's input (its result for sigmoid and tanh).
  constexpr Param forward =
      sameParam(A::silu_backward::self, A::sigmoid_backward::output,
                A::tanh_backward::output, A::hardswish_backward::self,
                A::hardsigmoid_backward::self, A::mish_backward::self);
  StringRef target = l.target();
  return lowerGradOf(
      l, grad, forward,
      [&](OpBuilder &b, Location loc, FloatOps f, Value g, Value x) -> Value {
        auto sigmoid = [&](Value v) {
          return f.div(f.c(1), f.add(f.c(1), math::ExpOp::create(
                                                 b, loc, f.sub(f.c(0), v))));
        };
        if (target == "aten::sigmoid_backward")
          return f.mul(f.mul(g, f.sub(f.c(1), x)), x);
        if (target == "aten::tanh_backward")
          return f.mul(g, f.sub(f.c(1), f.mul(x, x)));
        if (target == "aten::silu_backward") {
          Value s = sigmoid(x);
          return f.mul(f.mul(g, s), f.add(f.c(1), f.mul(x, f.sub(f.c(1), s))));
        }
        if (target == "aten::hardswish_backward") {
          Value middle = f.mul(g, f.add(f.div(x, f.c(3)), f.c(0.5)));
          return select(
              b, loc, cmp(b, loc, FP::OLT, x, f.c(-3)), f.c(0),
              select(b, loc, cmp(b, loc, FP::OLE, x, f.c(3)), middle, g));
        }
        if (target == "aten::hardsigmoid_backward") {
          Value inside =
              arith::AndIOp::create(b, loc, cmp(b, loc, FP::OGT, x, f.c(-3)),
                                    cmp(b, loc, FP::OLT, x, f.c(3)));
          return select(b, loc, inside, f.div(g, f.c(6)), f.c(0));
        }
        // mish_backward: tanh(softplus(x)) + x sigmoid(x) (1 - tanh^2).
        Value s = sigmoid(x);
        Value t = math::TanhOp::create(
            b, loc,
            math::Log1pOp::create(b, loc, math::ExpOp::create(b, loc, x)));
        return f.mul(g,
                     f.add(t, f.mul(f.mul(x, s), f.sub(f.c(1), f.mul(t, t)))));
      });
}

/// mse_loss_backward(grad, self, target, reduction): 2 (self - target) grad,
/// over the element count for the mean.
LogicalResult lowerMseLossBackward(Lowering &l) {
  using P = args::aten::mse_loss_backward;
  Type r = floatResult(l);
  Value g = l.tensor(P::grad_output), x = l.tensor(P::self),
        y = l.tensor(P::target_);
  std::optional<int64_t> reduction = l.constInt(P::reduction);
  if (!r || !g || !x || !y)
    return failure();
  if (!reduction || *reduction < 0 || *reduction > 2)
    return l.fail("reduction must be 0, 1 or 2");
  double norm = 2;
  if (*reduction == 1) {
    // The mean's count: the broadcast shape's, which is the result's.
    auto type = dyn_cast<RankedTensorType>(l.resultType());
    if (!type || !type.hasStaticShape())
      return l.fail("the mean's element count must be static");
    norm = 2.0 / double(std::max<int64_t>(type.getNumElements(), 1));
  }
  return l.replace(l.elementwise(
      {g, x, y}, r, r, [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
        FloatOps f{b, loc, r};
        return f.mul(f.mul(f.c(norm), f.sub(v[1], v[2])), v[0]);
      }));
}

/// _softmax_backward_data(grad, output, dim, input_dtype):
/// output (grad - sum(grad output, dim)); _log_softmax_backward_data:
/// grad - exp(output) sum(grad, dim).
LogicalResult lowerSoftmaxBackward(Lowering &l) {
  using P = args::aten::_softmax_backward_data;
  using LP = args::aten::_log_softmax_backward_data;
  constexpr Param grad = sameParam(P::grad_output, LP::grad_output);
  constexpr Param output = sameParam(P::output, LP::output);
  constexpr Param dimParam = sameParam(P::dim, LP::dim);
  bool logSoftmax = l.target() == "aten::_log_softmax_backward_data";
  Type r = floatResult(l);
  Value g = l.tensor(grad), y = l.tensor(output);
  if (!r || !g || !y)
    return failure();
  auto type = cast<RankedTensorType>(y.getType());
  std::optional<int64_t> dim = l.normDim(l.arg(dimParam), type.getRank());
  if (!dim)
    return l.fail("dim must be a constant in range");
  // What is summed over dim: grad * output, or grad.
  Value summand =
      logSoftmax ? l.castTensor(g, r)
                 : l.elementwise({g, y}, r, r,
                                 [&](OpBuilder &b, Location loc, ValueRange v) {
                                   return FloatOps{b, loc, r}.mul(v[0], v[1]);
                                 });
  Value sum = l.reduce(summand, {*dim}, /*keepdim=*/true, l.constant(r, 0),
                       [&](OpBuilder &b, Location loc, Value acc, Value e) {
                         return FloatOps{b, loc, r}.add(acc, e);
                       });
  return l.replace(l.elementwise(
      {g, y, sum}, r, r,
      [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
        FloatOps f{b, loc, r};
        if (logSoftmax)
          return f.sub(v[0], f.mul(math::ExpOp::create(b, loc, v[1]), v[2]));
        return f.mul(v[1], f.sub(v[0], v[2]));
      }));
}

/// native_batch_norm_backward(grad_out, input, weight, running_mean,
/// running_var, save_mean, save_invstd, train, eps, output_mask) ->
/// (grad_input, grad_weight, grad_bias), with per-channel (dim 1) sums
/// over the M elements of a channel, x̄ = x - mean, G = sum(g),
/// D = sum(g x̄) and w the weight (1 when None):
///   train: grad_input = (g - G / M - x̄ invstd² D / M) invstd w, with
///          the saved mean and invstd
///   eval:  grad_input = g invstd w, with the running mean and
///          invstd = 1 / sqrt(running_var + eps)
///   grad_weight = D invstd, grad_bias = G
/// (all three computed whatever the mask: a masked one is not read).
LogicalResult lowerNativeBatchNormBackward(Lowering &l) {
  using P = args::aten::native_batch_norm_backward;
  Value g = l.tensor(P::grad_out), x = l.tensor(P::input);
  auto train = l.constBool(P::train);
  auto eps = l.constFloat(l.arg(P::eps));
  Type elem = x ? cast<RankedTensorType>(x.getType()).getElementType() : Type();
  if (!g || !x || !train || !eps || !elem || !isFloat(elem) || rankOf(x) < 2)
    return l.fail("needs float tensors of at least 2 dims and constant "
                  "train and eps");
  Param meanParam = *train ? P::save_mean : P::running_mean;
  Param varParam = *train ? P::save_invstd : P::running_var;
  if (l.isNone(meanParam) || l.isNone(varParam))
    return l.fail(*train ? "training needs the saved mean and invstd"
                         : "evaluation needs the running mean and var");
  Value mean = l.tensor(meanParam), stat = l.tensor(varParam);
  Value weight = l.isNone(P::weight) ? Value() : l.tensor(P::weight);
  if (!mean || !stat || (!l.isNone(P::weight) && !weight))
    return failure();
  int64_t rank = rankOf(x);
  SmallVector<int64_t> dims;
  for (int64_t d = 0; d < rank; ++d)
    if (d != 1)
      dims.push_back(d);
  auto perChannel = [&](Value v) { return l.keepDims(v, dims, rank); };
  auto map = [&](ArrayRef<Value> in,
                 function_ref<Value(FloatOps, ValueRange)> body) {
    return l.elementwise(in, elem, elem,
                         [&](OpBuilder &b, Location loc, ValueRange v) {
                           return body(FloatOps{b, loc, elem}, v);
                         });
  };
  auto sum = [&](Value v) {
    return l.reduce(v, dims, /*keepdim=*/false, l.constant(elem, 0),
                    [](OpBuilder &b, Location loc, Value acc, Value e) {
                      return arith::AddFOp::create(b, loc, acc, e);
                    });
  };
  Value invstd =
      *train
          ? l.castTensor(stat, elem)
          : map({stat}, [&](FloatOps f, ValueRange v) -> Value {
              return math::RsqrtOp::create(f.b, f.loc, f.add(v[0], f.c(*eps)));
            });
  Value centered = map({x, perChannel(mean)}, [](FloatOps f, ValueRange v) {
    return f.sub(v[0], v[1]);
  });
  Value gradSum = sum(l.castTensor(g, elem));
  Value dot = sum(map({g, centered}, [](FloatOps f, ValueRange v) {
    return f.mul(v[0], v[1]);
  }));
  Value scale =
      weight ? map({invstd, weight},
                   [](FloatOps f, ValueRange v) { return f.mul(v[0], v[1]); })
             : invstd;
  Value gradInput;
  if (*train) {
    Value count = l.countOver(x, dims, elem);
    gradInput =
        map({g, perChannel(gradSum), centered, perChannel(invstd),
             perChannel(dot), perChannel(scale)},
            [&](FloatOps f, ValueRange v) {
              Value meanGrad = f.div(v[1], count);
              Value projection =
                  f.div(f.mul(f.mul(v[2], f.mul(v[3], v[3])), v[4]), count);
              return f.mul(f.sub(f.sub(v[0], meanGrad), projection), v[5]);
            });
  } else {
    gradInput = map({g, perChannel(scale)},
                    [](FloatOps f, ValueRange v) { return f.mul(v[0], v[1]); });
  }
  Value gradWeight = map({dot, invstd}, [](FloatOps f, ValueRange v) {
    return f.mul(v[0], v[1]);
  });
  return l.replaceTuple({gradInput, gradWeight, gradSum});
}

/// avg_pool2d/3d_backward(grad_output, self, kernel_size, stride,
/// padding, ceil_mode, count_include_pad, divisor_override): the gradient
/// divided by each window's divisor (as the forward's, ATen's formula),
/// then gathered: input position i of a dim takes output o where
/// i + padding - o stride lies in [0, kernel), summed over the kernel
/// offsets (a reduction of one linalg.generic reading the divided
/// gradient with tensor.extract).
LogicalResult lowerAvgPoolBackward(Lowering &l) {
  static constexpr Param kGrad =
      sameParam(args::aten::avg_pool2d_backward::grad_output,
                args::aten::avg_pool3d_backward::grad_output);
  static constexpr Param kSelf =
      sameParam(args::aten::avg_pool2d_backward::self,
                args::aten::avg_pool3d_backward::self);
  static constexpr Param kKernel =
      sameParam(args::aten::avg_pool2d_backward::kernel_size,
                args::aten::avg_pool3d_backward::kernel_size);
  static constexpr Param kStride =
      sameParam(args::aten::avg_pool2d_backward::stride,
                args::aten::avg_pool3d_backward::stride);
  static constexpr Param kPadding =
      sameParam(args::aten::avg_pool2d_backward::padding,
                args::aten::avg_pool3d_backward::padding);
  static constexpr Param kIncludePad =
      sameParam(args::aten::avg_pool2d_backward::count_include_pad,
                args::aten::avg_pool3d_backward::count_include_pad);
  static constexpr Param kDivisor =
      sameParam(args::aten::avg_pool2d_backward::divisor_override,
                args::aten::avg_pool3d_backward::divisor_override);
  int64_t spatial = l.target() == "aten::avg_pool2d_backward" ? 2 : 3;
  Value g = l.tensor(kGrad), x = l.tensor(kSelf);
  auto kernel = l.intList(kKernel), stride = l.intList(kStride),
       padding = l.intList(kPadding);
  auto includePad = l.constBool(kIncludePad);
  std::optional<int64_t> divisor;
  if (!l.isNone(kDivisor) && !(divisor = l.constInt(kDivisor)))
    return l.fail("divisor_override must be a constant");
  Type elem = x ? cast<RankedTensorType>(x.getType()).getElementType() : Type();
  if (!g || !x || !kernel || !stride || !padding || !includePad || !elem ||
      !isFloat(elem))
    return l.fail("needs float tensors and constant pooling parameters");
  auto expand = [&](SmallVector<int64_t> &v, int64_t fallback) {
    if (v.empty())
      v.assign(spatial, fallback);
    else if (v.size() == 1)
      v.assign(spatial, v[0]);
  };
  expand(*padding, 0);
  if (stride->empty())
    *stride = *kernel;
  expand(*stride, 1);
  expand(*kernel, 1);
  if (int64_t(kernel->size()) != spatial ||
      int64_t(stride->size()) != spatial ||
      int64_t(padding->size()) != spatial || (divisor && *divisor == 0))
    return l.fail("pooling parameters must be constants that PyTorch "
                  "accepts");
  bool unbatched = rankOf(x) == spatial + 1;
  if (unbatched) {
    x = l.unsqueeze(x, 0);
    g = l.unsqueeze(g, 0);
  }
  auto xType = cast<RankedTensorType>(x.getType());
  auto gType = cast<RankedTensorType>(g.getType());
  if (xType.getRank() != spatial + 2 || gType.getRank() != spatial + 2)
    return l.fail("operands of the wrong rank");
  SmallVector<int64_t> in, out;
  for (int64_t d = 0; d < spatial; ++d) {
    in.push_back(xType.getDimSize(d + 2));
    out.push_back(gType.getDimSize(d + 2));
    if (ShapedType::isDynamic(in.back()) || ShapedType::isDynamic(out.back()))
      return l.fail("needs static spatial sizes");
    if ((*kernel)[d] <= 0 || (*stride)[d] <= 0 || (*padding)[d] < 0)
      return l.fail("pooling parameters must be constants that PyTorch "
                    "accepts");
  }
  // The divisors of the output positions, row-major.
  auto extent = [&](int64_t d, int64_t o) {
    int64_t start = o * (*stride)[d] - (*padding)[d];
    int64_t end = std::min(start + (*kernel)[d], in[d] + (*padding)[d]);
    if (!*includePad) {
      start = std::max<int64_t>(start, 0);
      end = std::min(end, in[d]);
    }
    return end - start;
  };
  int64_t positions = 1;
  for (int64_t o : out)
    positions *= o;
  SmallVector<Attribute> divisors;
  for (int64_t p = 0; p < positions; ++p) {
    int64_t count = 1, rest = p;
    for (int64_t d = spatial - 1; d >= 0; --d) {
      count *= extent(d, rest % out[d]);
      rest /= out[d];
    }
    divisors.push_back(
        FloatAttr::get(elem, double(divisor ? *divisor : count)));
  }
  Value table = arith::ConstantOp::create(
      l.b, l.loc,
      DenseElementsAttr::get(RankedTensorType::get(out, elem), divisors));
  Value divided = l.elementwise(
      {g, table}, elem, elem, [](OpBuilder &b, Location loc, ValueRange v) {
        return arith::DivFOp::create(b, loc, v[0], v[1]).getResult();
      });
  // Loops: the input's dims, then the kernel offsets (reductions); a
  // tensor of the kernel's shape gives their bounds.
  int64_t rank = spatial + 2, loops = rank + spatial;
  MLIRContext *ctx = l.b.getContext();
  Value bounds = l.empty(llvm::map_to_vector(*kernel,
                                             [&](int64_t k) -> OpFoldResult {
                                               return l.b.getIndexAttr(k);
                                             }),
                         elem);
  SmallVector<AffineExpr> kernelExprs, outExprs;
  for (int64_t d = 0; d < spatial; ++d)
    kernelExprs.push_back(getAffineDimExpr(rank + d, ctx));
  for (int64_t d = 0; d < rank; ++d)
    outExprs.push_back(getAffineDimExpr(d, ctx));
  SmallVector<utils::IteratorType> iterators(loops,
                                             utils::IteratorType::parallel);
  for (int64_t d = rank; d < loops; ++d)
    iterators[d] = utils::IteratorType::reduction;
  Value init = l.filled(l.dims(x), l.constant(elem, 0));
  auto generic = linalg::GenericOp::create(
      l.b, l.loc, TypeRange{init.getType()}, ValueRange{bounds},
      ValueRange{init},
      ArrayRef<AffineMap>{AffineMap::get(loops, 0, kernelExprs, ctx),
                          AffineMap::get(loops, 0, outExprs, ctx)},
      iterators, "", "", [&](OpBuilder &b, Location loc, ValueRange args) {
        auto index = [&](int64_t v) {
          return arith::ConstantIndexOp::create(b, loc, v).getResult();
        };
        Value valid = arith::ConstantOp::create(b, loc, b.getBoolAttr(true));
        SmallVector<Value> at = {linalg::IndexOp::create(b, loc, 0),
                                 linalg::IndexOp::create(b, loc, 1)};
        for (int64_t d = 0; d < spatial; ++d) {
          Value i = linalg::IndexOp::create(b, loc, d + 2);
          Value k = linalg::IndexOp::create(b, loc, rank + d);
          // t = i + padding - k: o = t / stride when t >= 0, t divides
          // evenly and o < out.
          Value t = arith::SubIOp::create(
              b, loc, arith::AddIOp::create(b, loc, i, index((*padding)[d])),
              k);
          Value o = arith::DivSIOp::create(b, loc, t, index((*stride)[d]));
          Value r = arith::RemSIOp::create(b, loc, t, index((*stride)[d]));
          Value ok = arith::AndIOp::create(
              b, loc,
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, t,
                                    index(0)),
              arith::AndIOp::create(
                  b, loc,
                  arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, r,
                                        index(0)),
                  arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, o,
                                        index(out[d]))));
          valid = arith::AndIOp::create(b, loc, valid, ok);
          at.push_back(arith::SelectOp::create(b, loc, ok, o, index(0)));
        }
        Value read = tensor::ExtractOp::create(b, loc, divided, at);
        Value zero = constantOf(b, loc, elem, 0);
        Value term = arith::SelectOp::create(b, loc, valid, read, zero);
        linalg::YieldOp::create(
            b, loc, ValueRange{arith::AddFOp::create(b, loc, args[1], term)});
      });
  Value result = generic.getResult(0);
  if (unbatched)
    result = l.squeeze(result, 0);
  return l.replace(result);
}

/// _adaptive_avg_pool2d/3d_backward(grad_output, self): each output
/// element's gradient spread evenly over its adaptive window (start
/// floor(o in / out), end ceil((o + 1) in / out)): grad_input = the
/// gradient contracted with one averaging matrix A_d[o, i] per spatial
/// dim (1 / window size inside the window, else 0), in one linalg.generic
/// reducing over the output positions.
LogicalResult lowerAdaptiveAvgPoolBackward(Lowering &l) {
  static constexpr Param kGrad =
      sameParam(args::aten::_adaptive_avg_pool2d_backward::grad_output,
                args::aten::_adaptive_avg_pool3d_backward::grad_output);
  static constexpr Param kSelf =
      sameParam(args::aten::_adaptive_avg_pool2d_backward::self,
                args::aten::_adaptive_avg_pool3d_backward::self);
  int64_t spatial = l.target() == "aten::_adaptive_avg_pool2d_backward" ? 2 : 3;
  Value g = l.tensor(kGrad), x = l.tensor(kSelf);
  Type elem = x ? cast<RankedTensorType>(x.getType()).getElementType() : Type();
  if (!g || !x || !elem || !isFloat(elem))
    return l.fail("needs float tensors");
  bool unbatched = rankOf(x) == spatial + 1;
  if (unbatched) {
    x = l.unsqueeze(x, 0);
    g = l.unsqueeze(g, 0);
  }
  auto xType = cast<RankedTensorType>(x.getType());
  auto gType = cast<RankedTensorType>(g.getType());
  if (xType.getRank() != spatial + 2 || gType.getRank() != spatial + 2)
    return l.fail("operands of the wrong rank");
  int64_t rank = spatial + 2, loops = rank + spatial;
  MLIRContext *ctx = l.b.getContext();
  SmallVector<Value> inputs = {l.castTensor(g, elem)};
  SmallVector<AffineExpr> gExprs = {getAffineDimExpr(0, ctx),
                                    getAffineDimExpr(1, ctx)};
  SmallVector<AffineMap> maps;
  for (int64_t d = 0; d < spatial; ++d)
    gExprs.push_back(getAffineDimExpr(rank + d, ctx));
  maps.push_back(AffineMap::get(loops, 0, gExprs, ctx));
  for (int64_t d = 0; d < spatial; ++d) {
    int64_t in = xType.getDimSize(d + 2), out = gType.getDimSize(d + 2);
    if (ShapedType::isDynamic(in) || ShapedType::isDynamic(out) || out == 0)
      return l.fail("needs static spatial sizes");
    SmallVector<Attribute> weights;
    for (int64_t o = 0; o < out; ++o) {
      int64_t start = (o * in) / out, end = ((o + 1) * in + out - 1) / out;
      for (int64_t i = 0; i < in; ++i)
        weights.push_back(FloatAttr::get(
            elem, i >= start && i < end ? 1.0 / double(end - start) : 0.0));
    }
    inputs.push_back(arith::ConstantOp::create(
        l.b, l.loc,
        DenseElementsAttr::get(RankedTensorType::get({out, in}, elem),
                               weights)));
    maps.push_back(AffineMap::get(
        loops, 0,
        {getAffineDimExpr(rank + d, ctx), getAffineDimExpr(d + 2, ctx)}, ctx));
  }
  maps.push_back(AffineMap::get(
      loops, 0,
      llvm::map_to_vector(llvm::seq<int64_t>(0, rank),
                          [&](int64_t d) { return getAffineDimExpr(d, ctx); }),
      ctx));
  SmallVector<utils::IteratorType> iterators(loops,
                                             utils::IteratorType::parallel);
  for (int64_t d = rank; d < loops; ++d)
    iterators[d] = utils::IteratorType::reduction;
  Value init = l.filled(l.dims(x), l.constant(elem, 0));
  auto generic = linalg::GenericOp::create(
      l.b, l.loc, TypeRange{init.getType()}, inputs, ValueRange{init}, maps,
      iterators, "", "", [&](OpBuilder &b, Location loc, ValueRange args) {
        Value term = args[0];
        for (int64_t d = 0; d < spatial; ++d)
          term = arith::MulFOp::create(b, loc, term, args[1 + d]);
        linalg::YieldOp::create(
            b, loc,
            ValueRange{arith::AddFOp::create(b, loc, args.back(), term)});
      });
  Value result = generic.getResult(0);
  if (unbatched)
    result = l.squeeze(result, 0);
  return l.replace(result);
}

} // namespace

void mlir::fx::lowering::addBackwardLowerings(llvm::StringMap<LowerFn> &t) {
  addLowering(t, {"aten::threshold_backward"}, lowerThresholdBackward);
  addLowering(t, {"aten::gelu_backward"}, lowerGeluBackward);
  addLowering(t, {"aten::elu_backward"}, lowerEluBackward);
  addLowering(t, {"aten::leaky_relu_backward"}, lowerLeakyReluBackward);
  addLowering(t, {"aten::softplus_backward"}, lowerSoftplusBackward);
  addLowering(t, {"aten::hardtanh_backward"}, lowerHardtanhBackward);
  addLowering(t, {"aten::hardshrink_backward", "aten::softshrink_backward"},
              lowerShrinkBackward);
  addLowering(t, {"aten::logit_backward"}, lowerLogitBackward);
  addLowering(t,
              {"aten::sigmoid_backward", "aten::tanh_backward",
               "aten::silu_backward", "aten::hardswish_backward",
               "aten::hardsigmoid_backward", "aten::mish_backward"},
              lowerSimpleBackward);
  addLowering(t, {"aten::mse_loss_backward"}, lowerMseLossBackward);
  addLowering(
      t, {"aten::_softmax_backward_data", "aten::_log_softmax_backward_data"},
      lowerSoftmaxBackward);
  addLowering(t, {"aten::native_batch_norm_backward"},
              lowerNativeBatchNormBackward);
  addLowering(t, {"aten::avg_pool2d_backward", "aten::avg_pool3d_backward"},
              lowerAvgPoolBackward);
  addLowering(t,
              {"aten::_adaptive_avg_pool2d_backward",
               "aten::_adaptive_avg_pool3d_backward"},
              lowerAdaptiveAvgPoolBackward);
}
