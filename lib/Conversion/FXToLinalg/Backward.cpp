//===- Backward.cpp - The backward operators of activations and losses ----===//
//
// The operators autograd calls for the gradient of an activation, a softmax
// or a loss (`threshold_backward`, `gelu_backward`, `_softmax_backward_data`,
// `mse_loss_backward`, ...), as the graph of a training step holds them
// (`make_fx` of a function that calls `torch.autograd.grad`). Each is the
// elementwise formula of ATen's CPU kernel for it, on the incoming gradient
// and the forward's input or result; the softmax ones add one reduction.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "llvm/ADT/StringSwitch.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::fx;
using namespace mlir::fx::lowering;

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
}
