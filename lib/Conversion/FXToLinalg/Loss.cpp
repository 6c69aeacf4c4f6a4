//===- Loss.cpp - Lowering of loss functions ------------------------------===//
//
// mse_loss, l1_loss, smooth_l1_loss, huber_loss, binary_cross_entropy(
// _with_logits), nll_loss(_nd), cross_entropy_loss (class indices),
// soft_margin_loss, hinge_embedding_loss, margin_ranking_loss, kl_div and
// poisson_nll_loss, as
// ATen computes them: a pointwise loss, then the reduction (0 none, 1 mean,
// 2 sum; a weighted nll mean divides by the weights of the targets taken).
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::fx;
using namespace mlir::fx::lowering;

namespace {

/// `loss` reduced as `reduction` says: none, mean or sum of all elements.
Value reduceLoss(Lowering &l, Value loss, int64_t reduction, Type elem) {
  if (reduction == 0)
    return loss;
  int64_t rank = cast<RankedTensorType>(loss.getType()).getRank();
  SmallVector<int64_t> all = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  Value sum =
      l.reduce(loss, all, false, l.constant(elem, 0),
               [](OpBuilder &b, Location loc, Value acc, Value v) {
                 return arith::AddFOp::create(b, loc, acc, v).getResult();
               });
  if (reduction == 2)
    return sum;
  Value count = l.countOver(loss, all, elem);
  return l.elementwise(
      {sum, count}, elem, elem, [](OpBuilder &b, Location loc, ValueRange v) {
        return arith::DivFOp::create(b, loc, v[0], v[1]).getResult();
      });
}

/// The reduction argument `p` (default mean), when 0, 1 or 2.
std::optional<int64_t> reductionArg(Lowering &l, Param p) {
  std::optional<int64_t> r =
      !l.isNone(p) ? l.constInt(p) : std::optional<int64_t>(1);
  if (!r || *r < 0 || *r > 2)
    return std::nullopt;
  return r;
}

/// A pointwise loss of the float tensors `inputs` (broadcast), then the
/// reduction `reductionAt`; `body` gets the elements.
LogicalResult
lowerLossOf(Lowering &l, ArrayRef<Param> inputs, Param reductionAt,
            function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  SmallVector<Value> tensors;
  for (Param p : inputs)
    tensors.push_back(l.tensor(p));
  Type elem = l.resultElementType();
  auto reduction = reductionArg(l, reductionAt);
  if (llvm::is_contained(tensors, Value()) || !elem || !isFloat(elem) ||
      !reduction)
    return l.fail("needs float tensors and a constant reduction");
  Value loss = l.elementwise(tensors, elem, elem, body);
  return l.replace(reduceLoss(l, loss, *reduction, elem));
}

/// The float argument `p`, or `otherwise` when it is absent.
std::optional<double> floatArg(Lowering &l, Param p, double otherwise) {
  if (l.isNone(p))
    return otherwise;
  return l.constFloat(l.arg(p));
}

/// A pointwise loss of P's (self, target), both float, then its
/// reduction; `fn` also gets the float argument `extra` (beta, delta) or
/// `extraDefault` without one.
template <typename P>
LogicalResult lowerPointwiseLoss(
    Lowering &l, std::optional<Param> extraParam, double extraDefault,
    function_ref<Value(OpBuilder &, Location, Value, Value, double)> fn) {
  std::optional<double> extra =
      extraParam ? floatArg(l, *extraParam, extraDefault) : extraDefault;
  if (!extra)
    return l.fail("needs float tensors and constant arguments");
  return lowerLossOf(l, {P::self, P::target_}, P::reduction,
                     [&](OpBuilder &b, Location loc, ValueRange v) {
                       return fn(b, loc, v[0], v[1], *extra);
                     });
}

Value subtract(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::SubFOp::create(b, loc, x, y);
}
Value multiply(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::MulFOp::create(b, loc, x, y);
}
Value constantLike(OpBuilder &b, Location loc, Value like, double v) {
  return constantOf(b, loc, like.getType(), v);
}

LogicalResult lowerMseLoss(Lowering &l) {
  return lowerPointwiseLoss<args::aten::mse_loss>(
      l, std::nullopt, 0,
      [](OpBuilder &b, Location loc, Value x, Value t, double) {
        Value d = subtract(b, loc, x, t);
        return multiply(b, loc, d, d);
      });
}

LogicalResult lowerL1Loss(Lowering &l) {
  return lowerPointwiseLoss<args::aten::l1_loss>(
      l, std::nullopt, 0,
      [](OpBuilder &b, Location loc, Value x, Value t, double) {
        return math::AbsFOp::create(b, loc, subtract(b, loc, x, t)).getResult();
      });
}

/// |d| < beta ? 0.5 d^2 / beta : |d| - 0.5 beta (beta 0: |d|).
LogicalResult lowerSmoothL1Loss(Lowering &l) {
  using P = args::aten::smooth_l1_loss;
  return lowerPointwiseLoss<P>(
      l, P::beta, 1.0,
      [](OpBuilder &b, Location loc, Value x, Value t, double beta) {
        Value z = math::AbsFOp::create(b, loc, subtract(b, loc, x, t));
        if (beta == 0)
          return z;
        Value small = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT,
                                            z, constantLike(b, loc, z, beta));
        Value quadratic =
            arith::DivFOp::create(b, loc,
                                  multiply(b, loc, constantLike(b, loc, z, 0.5),
                                           multiply(b, loc, z, z)),
                                  constantLike(b, loc, z, beta));
        Value linear = subtract(b, loc, z, constantLike(b, loc, z, 0.5 * beta));
        return arith::SelectOp::create(b, loc, small, quadratic, linear)
            .getResult();
      });
}

/// |d| < delta ? 0.5 d^2 : delta (|d| - 0.5 delta).
LogicalResult lowerHuberLoss(Lowering &l) {
  using P = args::aten::huber_loss;
  return lowerPointwiseLoss<P>(
      l, P::delta, 1.0,
      [](OpBuilder &b, Location loc, Value x, Value t, double delta) {
        Value z = math::AbsFOp::create(b, loc, subtract(b, loc, x, t));
        Value small = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT,
                                            z, constantLike(b, loc, z, delta));
        Value quadratic = multiply(b, loc, constantLike(b, loc, z, 0.5),
                                   multiply(b, loc, z, z));
        Value linear =
            multiply(b, loc, constantLike(b, loc, z, delta),
                     subtract(b, loc, z, constantLike(b, loc, z, 0.5 * delta)));
        return arith::SelectOp::create(b, loc, small, quadratic, linear)
            .getResult();
      });
}

/// binary_cross_entropy(self, target, weight, reduction):
/// (target - 1) * max(log1p(-self), -100) - target * max(log(self), -100),
/// times the weight.
LogicalResult lowerBinaryCrossEntropy(Lowering &l) {
  using P = args::aten::binary_cross_entropy;
  Value x = l.tensor(P::self), t = l.tensor(P::target_);
  Type elem = l.resultElementType();
  Value weight = l.isNone(P::weight) ? Value() : l.tensor(P::weight);
  auto reduction = reductionArg(l, P::reduction);
  if (!x || !t || !elem || !isFloat(elem) || !reduction ||
      (!l.isNone(P::weight) && !weight))
    return l.fail("needs float tensors and a constant reduction");
  SmallVector<Value> inputs = {x, t};
  if (weight)
    inputs.push_back(weight);
  Value loss = l.elementwise(
      inputs, elem, elem,
      [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
        Value floor = constantLike(b, loc, v[0], -100);
        Value logX = arith::MaximumFOp::create(
            b, loc, math::LogOp::create(b, loc, v[0]), floor);
        Value log1mX = arith::MaximumFOp::create(
            b, loc,
            math::Log1pOp::create(b, loc, arith::NegFOp::create(b, loc, v[0])),
            floor);
        Value r = subtract(
            b, loc,
            multiply(b, loc,
                     subtract(b, loc, v[1], constantLike(b, loc, v[1], 1)),
                     log1mX),
            multiply(b, loc, v[1], logX));
        return weight ? multiply(b, loc, r, v[2]) : r;
      });
  return l.replace(reduceLoss(l, loss, *reduction, elem));
}

/// binary_cross_entropy_with_logits(self, target, weight, pos_weight,
/// reduction), ATen's stable form with m = max(-self, 0):
/// (1 - t) x + lw (log(exp(-m) + exp(-x - m)) + m), lw = 1 + (pw - 1) t
/// (1 without pos_weight), times the weight.
LogicalResult lowerBinaryCrossEntropyWithLogits(Lowering &l) {
  using P = args::aten::binary_cross_entropy_with_logits;
  Value x = l.tensor(P::self), t = l.tensor(P::target_);
  Type elem = l.resultElementType();
  Value weight = l.isNone(P::weight) ? Value() : l.tensor(P::weight);
  Value posWeight = l.isNone(P::pos_weight) ? Value() : l.tensor(P::pos_weight);
  auto reduction = reductionArg(l, P::reduction);
  if (!x || !t || !elem || !isFloat(elem) || !reduction ||
      (!l.isNone(P::weight) && !weight) ||
      (!l.isNone(P::pos_weight) && !posWeight))
    return l.fail("needs float tensors and a constant reduction");
  SmallVector<Value> inputs = {x, t};
  int weightSlot = -1, posSlot = -1;
  if (weight) {
    weightSlot = inputs.size();
    inputs.push_back(weight);
  }
  if (posWeight) {
    posSlot = inputs.size();
    inputs.push_back(posWeight);
  }
  Value loss = l.elementwise(
      inputs, elem, elem,
      [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
        Value zero = constantLike(b, loc, v[0], 0);
        Value one = constantLike(b, loc, v[0], 1);
        Value negX = arith::NegFOp::create(b, loc, v[0]);
        Value m = arith::MaximumFOp::create(b, loc, negX, zero);
        Value softplus = arith::AddFOp::create(
            b, loc,
            math::LogOp::create(
                b, loc,
                arith::AddFOp::create(
                    b, loc,
                    math::ExpOp::create(b, loc,
                                        arith::NegFOp::create(b, loc, m)),
                    math::ExpOp::create(b, loc, subtract(b, loc, negX, m)))),
            m);
        Value logWeight =
            posSlot >= 0
                ? arith::AddFOp::create(
                      b, loc,
                      multiply(b, loc, subtract(b, loc, v[posSlot], one), v[1]),
                      one)
                      .getResult()
                : one;
        Value r = arith::AddFOp::create(
            b, loc, multiply(b, loc, subtract(b, loc, one, v[1]), v[0]),
            multiply(b, loc, logWeight, softplus));
        return weightSlot >= 0 ? multiply(b, loc, r, v[weightSlot]) : r;
      });
  return l.replace(reduceLoss(l, loss, *reduction, elem));
}

/// log_softmax of `x` along dim 1: x - (m + log(sum(exp(x - m)))).
Value logSoftmaxDim1(Lowering &l, Value x, Type elem) {
  Value m =
      l.reduce(x, {1}, /*keepdim=*/true,
               l.constant(elem, -std::numeric_limits<double>::infinity()),
               [](OpBuilder &b, Location loc, Value acc, Value v) {
                 return arith::MaximumFOp::create(b, loc, acc, v).getResult();
               });
  // A row of -inf keeps m finite for the subtraction, as ATen.
  m = l.elementwise(
      {m}, elem, elem, [](OpBuilder &b, Location loc, ValueRange v) -> Value {
        Value inf =
            constantLike(b, loc, v[0], std::numeric_limits<double>::infinity());
        Value finite =
            arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ONE,
                                  math::AbsFOp::create(b, loc, v[0]), inf);
        return arith::SelectOp::create(b, loc, finite, v[0],
                                       constantLike(b, loc, v[0], 0));
      });
  Value exps = l.elementwise(
      {x, m}, elem, elem, [](OpBuilder &b, Location loc, ValueRange v) {
        return math::ExpOp::create(b, loc, subtract(b, loc, v[0], v[1]))
            .getResult();
      });
  Value sums =
      l.reduce(exps, {1}, /*keepdim=*/true, l.constant(elem, 0),
               [](OpBuilder &b, Location loc, Value acc, Value v) {
                 return arith::AddFOp::create(b, loc, acc, v).getResult();
               });
  return l.elementwise({x, m, sums}, elem, elem,
                       [](OpBuilder &b, Location loc, ValueRange v) {
                         Value lse = arith::AddFOp::create(
                             b, loc, v[1], math::LogOp::create(b, loc, v[2]));
                         return subtract(b, loc, v[0], lse);
                       });
}

/// nll_loss(_nd)(self, target, weight, reduction, ignore_index) on log
/// probabilities `x` (N, C, d...) or (C) and int targets (N, d...) or ():
/// loss = -weight[t] * x[n, t, d...], 0 where t is ignore_index; mean
/// divides by the sum of weight[t] over the targets not ignored. A target
/// outside [0, C) other than ignore_index is an error at run time.
LogicalResult nllLoss(Lowering &l, Value x, Type elem) {
  // Parameters as aten::cross_entropy_loss names them, at the same positions in
  // aten::nll_loss, aten::nll_loss_nd.
  using P = args::aten::cross_entropy_loss;
  Value target = l.tensor(P::target_);
  Value weight = l.isNone(P::weight) ? Value() : l.tensor(P::weight);
  auto reduction = reductionArg(l, P::reduction);
  auto ignore = l.isNone(P::ignore_index) ? std::optional<int64_t>(-100)
                                          : l.constInt(P::ignore_index);
  if (!x || !target || !reduction || !ignore ||
      (!l.isNone(P::weight) && !weight))
    return l.fail("needs tensors and constant reduction and ignore_index");
  auto xType = cast<RankedTensorType>(x.getType());
  auto tType = cast<RankedTensorType>(target.getType());
  if (!xType.hasStaticShape() || !tType.hasStaticShape() ||
      !isa<IntegerType>(tType.getElementType()))
    return l.fail("needs static shapes and integer targets");
  bool unbatched = xType.getRank() == 1;
  if (unbatched) {
    if (tType.getRank() != 0)
      return l.fail("a 1-D input takes a 0-d target");
    x = l.unsqueeze(x, 0);
    target = l.unsqueeze(target, 0);
    xType = cast<RankedTensorType>(x.getType());
    tType = cast<RankedTensorType>(target.getType());
  }
  int64_t rank = xType.getRank(), classes = xType.getDimSize(1);
  if (tType.getRank() != rank - 1 || classes == 0)
    return l.fail("the target must have the input's shape without dim 1");
  for (int64_t d = 0; d < tType.getRank(); ++d)
    if (tType.getDimSize(d) != xType.getDimSize(d < 1 ? d : d + 1))
      return l.fail("the target must have the input's shape without dim 1");
  if (weight)
    weight = l.castTensor(weight, elem);
  x = l.castTensor(x, elem);
  OpBuilder &b = l.b;
  Type i64 = b.getI64Type();
  target = l.castTensor(target, i64);
  int64_t ignoreIndex = *ignore;
  // Targets outside [0, C) but ignore_index: a run-time error.
  Value bad = l.elementwise(
      {target}, i64, b.getI1Type(),
      [&](OpBuilder &nb, Location loc, ValueRange v) -> Value {
        Value outside =
            arith::CmpIOp::create(nb, loc, arith::CmpIPredicate::uge, v[0],
                                  constantOf(nb, loc, i64, double(classes)));
        Value ignored = arith::CmpIOp::create(
            nb, loc, arith::CmpIPredicate::eq, v[0],
            constantOf(nb, loc, i64, double(ignoreIndex)));
        return arith::AndIOp::create(
            nb, loc, outside,
            arith::XOrIOp::create(nb, loc, ignored,
                                  constantOf(nb, loc, nb.getI1Type(), 1)));
      });
  l.check(bad, "IndexError: Target out of bounds");
  // Per target: the picked log probability's negation, and its weight.
  int64_t tRank = tType.getRank();
  SmallVector<OpFoldResult> sizes = l.dims(target);
  Value lossInit = l.empty(sizes, elem), weightInit = l.empty(sizes, elem);
  auto generic = linalg::GenericOp::create(
      b, l.loc, TypeRange{lossInit.getType(), weightInit.getType()},
      ValueRange{target}, ValueRange{lossInit, weightInit},
      SmallVector<AffineMap>(3, b.getMultiDimIdentityMap(tRank)),
      SmallVector<utils::IteratorType>(tRank, utils::IteratorType::parallel),
      "", "", [&](OpBuilder &nb, Location loc, ValueRange v) {
        Value ignored = arith::CmpIOp::create(
            nb, loc, arith::CmpIPredicate::eq, v[0],
            constantOf(nb, loc, i64, double(ignoreIndex)));
        // Off-range targets read class 0 (and are reported by the check).
        Value cls = clampedIndex(
            nb, loc, v[0], arith::ConstantIndexOp::create(nb, loc, classes));
        SmallVector<Value> coords;
        for (int64_t d = 0; d < rank; ++d)
          coords.push_back(
              d == 1 ? cls
                     : linalg::IndexOp::create(nb, loc, d < 1 ? d : d - 1)
                           .getResult());
        Value logp = tensor::ExtractOp::create(nb, loc, x, coords);
        Value w =
            weight ? tensor::ExtractOp::create(nb, loc, weight, ValueRange{cls})
                         .getResult()
                   : constantOf(nb, loc, elem, 1);
        Value zero = constantOf(nb, loc, elem, 0);
        w = arith::SelectOp::create(nb, loc, ignored, zero, w);
        Value loss = arith::NegFOp::create(nb, loc, multiply(nb, loc, w, logp));
        // -0 * logp where ignored: exactly 0, as ATen.
        loss = arith::SelectOp::create(nb, loc, ignored, zero, loss);
        linalg::YieldOp::create(nb, loc, ValueRange{loss, w});
      });
  Value loss = generic.getResult(0), weights = generic.getResult(1);
  if (*reduction == 0)
    return l.replace(unbatched ? l.reshape(loss, {}) : loss);
  SmallVector<int64_t> all = llvm::to_vector(llvm::seq<int64_t>(0, tRank));
  auto sumAll = [&](Value t) {
    return l.reduce(t, all, false, l.constant(elem, 0),
                    [](OpBuilder &nb, Location loc, Value acc, Value v) {
                      return arith::AddFOp::create(nb, loc, acc, v).getResult();
                    });
  };
  Value total = sumAll(loss);
  if (*reduction == 2)
    return l.replace(total);
  return l.replace(l.elementwise(
      {total, sumAll(weights)}, elem, elem,
      [](OpBuilder &nb, Location loc, ValueRange v) {
        return arith::DivFOp::create(nb, loc, v[0], v[1]).getResult();
      }));
}

LogicalResult lowerNllLoss(Lowering &l) {
  // Parameters as aten::nll_loss names them, at the same positions in
  // aten::nll_loss_nd.
  using P = args::aten::nll_loss;
  Type elem = l.resultElementType();
  if (!elem || !isFloat(elem))
    return l.fail("needs a float result");
  return nllLoss(l, l.tensor(P::self), elem);
}

/// -(logp * target [* weight]) summed over the classes (dim 1): the loss
/// of each element for probability targets, and (target 1) the smoothing
/// term of class-index targets. `weight` (C, or null) broadcasts along
/// dim 1.
Value classSum(Lowering &l, Value logp, Value target, Value weight, Type elem) {
  int64_t rank = cast<RankedTensorType>(logp.getType()).getRank();
  SmallVector<Value> inputs = {logp};
  if (target)
    inputs.push_back(target);
  int weightSlot = -1;
  if (weight) {
    SmallVector<int64_t> others;
    for (int64_t d = 0; d < rank; ++d)
      if (d != 1)
        others.push_back(d);
    weightSlot = inputs.size();
    inputs.push_back(l.keepDims(weight, others, rank));
  }
  Value products = l.elementwise(
      inputs, elem, elem, [&](OpBuilder &b, Location loc, ValueRange v) {
        Value p = v[0];
        if (target)
          p = arith::MulFOp::create(b, loc, p, v[1]);
        if (weightSlot >= 0)
          p = arith::MulFOp::create(b, loc, p, v[weightSlot]);
        return arith::NegFOp::create(b, loc, p).getResult();
      });
  return l.reduce(products, {1}, false, l.constant(elem, 0),
                  [](OpBuilder &b, Location loc, Value acc, Value v) {
                    return arith::AddFOp::create(b, loc, acc, v).getResult();
                  });
}

/// The sum of all elements of `v`.
Value sumAll(Lowering &l, Value v, Type elem) {
  int64_t rank = cast<RankedTensorType>(v.getType()).getRank();
  return l.reduce(v, llvm::to_vector(llvm::seq<int64_t>(0, rank)), false,
                  l.constant(elem, 0),
                  [](OpBuilder &b, Location loc, Value acc, Value e) {
                    return arith::AddFOp::create(b, loc, acc, e).getResult();
                  });
}

/// cross_entropy_loss(self, target, weight, reduction, ignore_index,
/// label_smoothing) as ATen composes it, with logp = log_softmax(self, 1)
/// and C classes:
///  - class-index targets: nll_loss(logp, target, weight, reduction,
///    ignore_index); with smoothing ls, (1 - ls) times that plus ls / C
///    times the smoothing term -sum_c(logp w_c) (0 where the target is
///    ignored), reduced: summed, or for the mean divided by the number
///    of targets not ignored (by the sum of their classes' weights with a
///    weight);
///  - probability targets (the input's shape): t' = t (1 - ls) + ls / C,
///    -sum_c(logp t' w_c) per element, summed, or for the mean divided by
///    the number of elements per class (numel / C).
LogicalResult lowerCrossEntropyLoss(Lowering &l) {
  using P = args::aten::cross_entropy_loss;
  Value x = l.tensor(P::self), target = l.tensor(P::target_);
  Type elem = l.resultElementType();
  if (!x || !target || !elem || !isFloat(elem))
    return l.fail("needs a float input and a target");
  auto smoothing = l.numArgs() > 5 && !l.isNone(P::label_smoothing)
                       ? l.constFloat(l.arg(P::label_smoothing))
                       : std::optional<double>(0.0);
  auto reduction = reductionArg(l, P::reduction);
  auto ignore = l.isNone(P::ignore_index) ? std::optional<int64_t>(-100)
                                          : l.constInt(P::ignore_index);
  Value weight = l.isNone(P::weight) ? Value() : l.tensor(P::weight);
  if (!smoothing || !reduction || !ignore || (!l.isNone(P::weight) && !weight))
    return l.fail("needs a constant reduction, ignore_index and "
                  "label_smoothing");
  bool unbatched = cast<RankedTensorType>(x.getType()).getRank() == 1;
  x = l.castTensor(x, elem);
  if (unbatched)
    x = l.unsqueeze(x, 0);
  auto xType = cast<RankedTensorType>(x.getType());
  if (!xType.hasStaticShape() || xType.getRank() < 2)
    return l.fail("needs a static shape");
  int64_t classes = xType.getDimSize(1);
  if (weight)
    weight = l.castTensor(weight, elem);
  Value logp = logSoftmaxDim1(l, x, elem);
  bool indexTargets = isa<IntegerType>(
      cast<RankedTensorType>(target.getType()).getElementType());

  if (!indexTargets) {
    target = l.castTensor(target, elem);
    if (unbatched)
      target = l.unsqueeze(target, 0);
    if (cast<RankedTensorType>(target.getType()).getShape() != xType.getShape())
      return l.fail("probability targets must have the input's shape");
    if (*smoothing != 0) {
      double keep = 1 - *smoothing, spread = *smoothing / double(classes);
      target = l.elementwise(
          {target}, elem, elem, [&](OpBuilder &b, Location loc, ValueRange v) {
            FloatOps f{b, loc, elem};
            return f.add(f.mul(v[0], f.c(keep)), f.c(spread));
          });
    }
    Value loss = classSum(l, logp, target, weight, elem);
    if (*reduction == 0)
      return l.replace(unbatched ? l.squeeze(loss, 0) : loss);
    Value total = sumAll(l, loss, elem);
    if (*reduction == 2)
      return l.replace(total);
    double perClass =
        double(xType.getNumElements() / std::max<int64_t>(classes, 1));
    return l.replace(l.elementwise(
        {total}, elem, elem, [&](OpBuilder &b, Location loc, ValueRange v) {
          return arith::DivFOp::create(b, loc, v[0],
                                       constantOf(b, loc, elem, perClass))
              .getResult();
        }));
  }

  // Class indices: nll_loss of logp (nllLoss reads the node's target,
  // weight, reduction and ignore_index, at the same positions).
  Value nll;
  l.captured = &nll;
  LogicalResult done = nllLoss(l, unbatched ? l.squeeze(logp, 0) : logp, elem);
  l.captured = nullptr;
  if (failed(done) || !nll)
    return failure();
  if (*smoothing == 0)
    return l.replace(nll);
  if (unbatched)
    target = l.unsqueeze(target, 0);
  Value ignored = l.elementwise(
      {target}, cast<RankedTensorType>(target.getType()).getElementType(),
      l.b.getI1Type(), [&](OpBuilder &b, Location loc, ValueRange v) {
        Value i = constantOf(b, loc, v[0].getType(), double(*ignore));
        return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, v[0], i)
            .getResult();
      });
  Value term = classSum(l, logp, Value(), weight, elem);
  term = l.elementwise(
      {ignored, term}, elem, elem,
      [&](OpBuilder &b, Location loc, ValueRange v) {
        Value on = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE,
                                         v[0], constantOf(b, loc, elem, 0));
        return arith::SelectOp::create(b, loc, on, constantOf(b, loc, elem, 0),
                                       v[1])
            .getResult();
      });
  if (*reduction == 1) {
    // The denominator: the weights of the targets' classes (1 each
    // without a weight), 0 where ignored.
    Type index = cast<RankedTensorType>(target.getType()).getElementType();
    Value cSize = l.indexConst(classes);
    Value counted = l.elementwise(
        {target}, index, elem,
        [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
          Value skip =
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, v[0],
                                    constantOf(b, loc, index, double(*ignore)));
          Value w = constantOf(b, loc, elem, 1);
          if (weight)
            w = tensor::ExtractOp::create(b, loc, weight,
                                          clampedIndex(b, loc, v[0], cSize));
          return arith::SelectOp::create(b, loc, skip,
                                         constantOf(b, loc, elem, 0), w);
        });
    Value num = sumAll(l, term, elem), den = sumAll(l, counted, elem);
    term = l.elementwise(
        {num, den}, elem, elem, [](OpBuilder &b, Location loc, ValueRange v) {
          return arith::DivFOp::create(b, loc, v[0], v[1]).getResult();
        });
  } else if (*reduction == 2) {
    term = sumAll(l, term, elem);
  } else if (unbatched) {
    term = l.squeeze(term, 0);
  }
  double keep = 1 - *smoothing, spread = *smoothing / double(classes);
  return l.replace(l.elementwise(
      {nll, term}, elem, elem, [&](OpBuilder &b, Location loc, ValueRange v) {
        FloatOps f{b, loc, elem};
        return f.add(f.mul(v[0], f.c(keep)), f.mul(v[1], f.c(spread)));
      }));
}

/// soft_margin_loss: log1p(exp(-x t)).
LogicalResult lowerSoftMarginLoss(Lowering &l) {
  using P = args::aten::soft_margin_loss;
  return lowerLossOf(l, {P::self, P::target_}, P::reduction,
                     [](OpBuilder &b, Location loc, ValueRange v) -> Value {
                       Value xt = multiply(b, loc, v[0], v[1]);
                       Value e = math::ExpOp::create(
                           b, loc, arith::NegFOp::create(b, loc, xt));
                       return math::Log1pOp::create(b, loc, e);
                     });
}

/// multi_margin_loss(self, target, p, margin, weight, reduction), as
/// ATen's CPU kernel: for each row n with class y = target[n], the sum over
/// the other classes i of w[y] * max(0, margin - x[n, y] + x[n, i])^p
/// (p 1 or 2), divided by the number of classes; then the reduction. A
/// target outside the classes is an error as the code runs.
LogicalResult lowerMultiMarginLoss(Lowering &l) {
  using P = args::aten::multi_margin_loss;
  Value x = l.tensor(P::self), target = l.tensor(P::target_);
  Type elem = l.resultElementType();
  auto p = l.constInt(l.arg(P::p));
  std::optional<double> margin = floatArg(l, P::margin, 1.0);
  auto reduction = reductionArg(l, P::reduction);
  if (!x || !target || !elem || !isFloat(elem) || !p || (*p != 1 && *p != 2) ||
      !margin || !reduction)
    return l.fail("needs float input, p 1 or 2, constant margin and "
                  "reduction");
  Value weight = l.isNone(P::weight) ? Value() : l.tensor(P::weight);
  if (!l.isNone(P::weight) && !weight)
    return failure();
  int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
  if (rank > 2)
    return l.fail("needs a scalar, a vector or a matrix of scores");
  x = l.castTensor(x, elem);
  if (rank == 0)
    x = l.reshape(x, {l.b.getIndexAttr(1), l.b.getIndexAttr(1)});
  else if (rank == 1)
    x = l.unsqueeze(x, 0);
  target = l.reshape(target, {l.dim(x, 0)});
  int64_t classes = cast<RankedTensorType>(x.getType()).getDimSize(1);
  if (ShapedType::isDynamic(classes) || classes == 0)
    return l.fail("needs a static, nonzero number of classes");
  checkIndexRange(l, x, 1, target, /*negative=*/false);
  OpBuilder &b = l.b;
  Value init = l.filled({l.dim(x, 0)}, l.constant(elem, 0));
  auto ctx = b.getContext();
  SmallVector<Value> inputs = {x, target};
  SmallVector<AffineMap> maps = {
      AffineMap::getMultiDimIdentityMap(2, ctx),
      AffineMap::get(2, 0, {b.getAffineDimExpr(0)}, ctx),
      AffineMap::get(2, 0, {b.getAffineDimExpr(0)}, ctx)};
  Value classCount = arith::ConstantIndexOp::create(b, l.loc, classes);
  Value sum =
      linalg::GenericOp::create(
          b, l.loc, TypeRange{init.getType()}, inputs, ValueRange{init}, maps,
          {utils::IteratorType::parallel, utils::IteratorType::reduction}, "",
          "",
          [&](OpBuilder &nb, Location loc, ValueRange v) {
            Value n = linalg::IndexOp::create(nb, loc, 0);
            Value i = linalg::IndexOp::create(nb, loc, 1);
            Value y = clampedIndex(nb, loc, v[1], classCount);
            Value xy = tensor::ExtractOp::create(nb, loc, x, ValueRange{n, y});
            Value z = arith::AddFOp::create(
                nb, loc,
                arith::SubFOp::create(nb, loc,
                                      constantOf(nb, loc, elem, *margin), xy),
                v[0]);
            Value h = *p == 1 ? z : arith::MulFOp::create(nb, loc, z, z);
            if (weight)
              h = arith::MulFOp::create(
                  nb, loc, h,
                  tensor::ExtractOp::create(nb, loc, weight, ValueRange{y}));
            Value use = arith::AndIOp::create(
                nb, loc,
                arith::CmpIOp::create(nb, loc, arith::CmpIPredicate::ne, i, y),
                arith::CmpFOp::create(nb, loc, arith::CmpFPredicate::OGT, z,
                                      constantOf(nb, loc, elem, 0)));
            Value add = arith::AddFOp::create(nb, loc, v[2], h);
            linalg::YieldOp::create(
                nb, loc,
                arith::SelectOp::create(nb, loc, use, add, v[2]).getResult());
          })
          .getResult(0);
  Value loss = l.elementwise(
      {sum}, elem, elem, [&](OpBuilder &nb, Location loc, ValueRange v) {
        return arith::DivFOp::create(nb, loc, v[0],
                                     constantOf(nb, loc, elem, classes))
            .getResult();
      });
  if (rank <= 1 && *reduction == 0)
    loss = l.reshape(loss, {});
  return l.replace(reduceLoss(l, loss, *reduction, elem));
}

/// hinge_embedding_loss(self, target, margin, reduction), as ATen:
/// (t != 1 ? max(margin - x, 0) : 0) + (t != -1 ? x : 0).
LogicalResult lowerHingeEmbeddingLoss(Lowering &l) {
  using P = args::aten::hinge_embedding_loss;
  std::optional<double> margin = floatArg(l, P::margin, 1.0);
  if (!margin)
    return l.fail("needs a constant margin");
  return lowerLossOf(
      l, {P::self, P::target_}, P::reduction,
      [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
        Value x = v[0], t = v[1];
        Value zero = constantLike(b, loc, x, 0);
        Value below = subtract(b, loc, constantLike(b, loc, x, *margin), x);
        Value clamped = arith::MaximumFOp::create(b, loc, below, zero);
        Value notOne = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE,
                                             t, constantLike(b, loc, t, 1.0));
        Value notMinusOne =
            arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, t,
                                  constantLike(b, loc, t, -1.0));
        Value marginTerm =
            arith::SelectOp::create(b, loc, notOne, clamped, zero);
        Value selfTerm = arith::SelectOp::create(b, loc, notMinusOne, x, zero);
        return arith::AddFOp::create(b, loc, marginTerm, selfTerm);
      });
}

/// margin_ranking_loss(x1, x2, target, margin, reduction):
/// max(-t (x1 - x2) + margin, 0).
LogicalResult lowerMarginRankingLoss(Lowering &l) {
  using P = args::aten::margin_ranking_loss;
  std::optional<double> margin = floatArg(l, P::margin, 0.0);
  if (!margin)
    return l.fail("needs a constant margin");
  Value x1 = l.tensor(P::input1), x2 = l.tensor(P::input2),
        target = l.tensor(P::target_);
  Type elem = l.resultElementType();
  auto intType = [](Value v) {
    auto t = dyn_cast<IntegerType>(
        cast<RankedTensorType>(v.getType()).getElementType());
    return t && t.getWidth() > 1 ? t : IntegerType();
  };
  if (x1 && x2 && target && elem && isFloat(elem) && intType(x1) &&
      intType(x2) && intType(target)) {
    // Integer inputs: eager computes -target * (input1 - input2) in their
    // integer types (wrapping), and only adding the margin makes floats.
    auto wider = [](IntegerType a, IntegerType b) {
      return a.getWidth() >= b.getWidth() ? a : b;
    };
    IntegerType inner = wider(intType(x1), intType(x2));
    IntegerType outer = wider(inner, intType(target));
    auto reduction = reductionArg(l, P::reduction);
    if (!reduction)
      return l.fail("needs a constant reduction");
    Value difference = l.elementwise(
        {x1, x2}, inner, inner, [](OpBuilder &b, Location loc, ValueRange v) {
          return arith::SubIOp::create(b, loc, v[0], v[1]).getResult();
        });
    Value loss = l.elementwise(
        {target, difference}, outer, elem,
        [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
          Value zero =
              arith::ConstantOp::create(b, loc, b.getIntegerAttr(outer, 0));
          Value product = arith::MulIOp::create(
              b, loc, arith::SubIOp::create(b, loc, zero, v[0]), v[1]);
          Value d = arith::SIToFPOp::create(b, loc, elem, product);
          Value shifted = arith::AddFOp::create(
              b, loc, d, constantLike(b, loc, d, *margin));
          return arith::MaximumFOp::create(b, loc, shifted,
                                           constantLike(b, loc, d, 0));
        });
    return l.replace(reduceLoss(l, loss, *reduction, elem));
  }
  return lowerLossOf(l, {P::input1, P::input2, P::target_}, P::reduction,
                     [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
                       Value negated = arith::NegFOp::create(b, loc, v[2]);
                       Value difference = subtract(b, loc, v[0], v[1]);
                       Value d = multiply(b, loc, negated, difference);
                       Value shifted = arith::AddFOp::create(
                           b, loc, d, constantLike(b, loc, d, *margin));
                       return arith::MaximumFOp::create(
                           b, loc, shifted, constantLike(b, loc, d, 0));
                     });
}

/// kl_div(self, target, reduction, log_target), as ATen: exp(t) (t - x)
/// for log targets, else xlogy(t, t) - t x (0 where t is 0, NaN where t
/// is).
LogicalResult lowerKlDiv(Lowering &l) {
  using P = args::aten::kl_div;
  Attribute logTargetAttr = l.arg(P::log_target);
  std::optional<bool> logTarget =
      logTargetAttr ? l.constBool(logTargetAttr) : std::optional<bool>(false);
  if (!logTarget)
    return l.fail("needs a constant log_target");
  return lowerLossOf(
      l, {P::self, P::target_}, P::reduction,
      [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
        Value x = v[0], t = v[1];
        if (*logTarget)
          return multiply(b, loc, math::ExpOp::create(b, loc, t),
                          subtract(b, loc, t, x));
        Value tlogt = multiply(b, loc, t, math::LogOp::create(b, loc, t));
        Value isZero = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                             t, constantLike(b, loc, t, 0));
        Value xlogy = arith::SelectOp::create(
            b, loc, isZero, constantLike(b, loc, t, 0), tlogt);
        return subtract(b, loc, xlogy, multiply(b, loc, t, x));
      });
}

/// poisson_nll_loss(input, target, log_input, full, eps, reduction), as
/// ATen: exp(x) - t x for log inputs, else x - t log(x + eps); `full`
/// adds Stirling's t log t - t + log(2 pi t) / 2 where t > 1.
LogicalResult lowerPoissonNllLoss(Lowering &l) {
  using P = args::aten::poisson_nll_loss;
  std::optional<bool> logInput = l.constBool(P::log_input),
                      full = l.constBool(P::full);
  std::optional<double> eps = floatArg(l, P::eps, 1e-8);
  if (!logInput || !full || !eps)
    return l.fail("needs constant log_input, full and eps");
  return lowerLossOf(
      l, {P::input, P::target_}, P::reduction,
      [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
        Value x = v[0], t = v[1], loss;
        if (*logInput) {
          Value rate = math::ExpOp::create(b, loc, x);
          loss = subtract(b, loc, rate, multiply(b, loc, t, x));
        } else {
          Value shifted =
              arith::AddFOp::create(b, loc, x, constantLike(b, loc, x, *eps));
          Value logRate = math::LogOp::create(b, loc, shifted);
          loss = subtract(b, loc, x, multiply(b, loc, t, logRate));
        }
        if (!*full)
          return loss;
        Value tLogT = multiply(b, loc, t, math::LogOp::create(b, loc, t));
        Value twoPiT = multiply(b, loc, constantLike(b, loc, t, 2 * M_PI), t);
        Value halfLog = multiply(b, loc, constantLike(b, loc, t, 0.5),
                                 math::LogOp::create(b, loc, twoPiT));
        Value stirling =
            arith::AddFOp::create(b, loc, subtract(b, loc, tLogT, t), halfLog);
        Value above = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UGT,
                                            t, constantLike(b, loc, t, 1));
        Value term = arith::SelectOp::create(b, loc, above, stirling,
                                             constantLike(b, loc, t, 0));
        return arith::AddFOp::create(b, loc, loss, term);
      });
}

/// cosine_embedding_loss(input1, input2, target, margin, reduction): per
/// sample (the last dim), 1 - cos where target is 1, max(cos - margin, 0)
/// where it is -1, 0 elsewhere; cos from sums with ATen's 1e-12 added to
/// each squared magnitude.
LogicalResult lowerCosineEmbeddingLoss(Lowering &l) {
  using P = args::aten::cosine_embedding_loss;
  Value a = l.tensor(P::input1), b = l.tensor(P::input2),
        target = l.tensor(P::target_);
  Type elem = l.resultElementType();
  std::optional<double> margin = floatArg(l, P::margin, 0.0);
  auto reduction = reductionArg(l, P::reduction);
  if (!a || !b || !target || !elem || !isFloat(elem) || !margin || !reduction)
    return l.fail("needs float tensors and constant margin and reduction");
  int64_t last =
      std::max<int64_t>(cast<RankedTensorType>(a.getType()).getRank() - 1, 0);
  auto sumOfProduct = [&](Value x, Value y) {
    Value product = l.elementwise(
        {x, y}, elem, elem, [&](OpBuilder &nb, Location loc, ValueRange v) {
          return arith::MulFOp::create(nb, loc, v[0], v[1]).getResult();
        });
    return l.lowerCall(
        "aten::sum.dim_IntList",
        {NodeAttr::get(l.b.getContext(), 0),
         ListAttr::get(l.b.getContext(), {l.b.getI64IntegerAttr(last)}),
         l.b.getBoolAttr(false), NoneAttr::get(l.b.getContext())},
        {product}, UnrankedTensorType::get(elem));
  };
  Value dot = sumOfProduct(a, b), aa = sumOfProduct(a, a),
        bb = sumOfProduct(b, b);
  if (!dot || !aa || !bb)
    return failure();
  Value loss = l.elementwise(
      {dot, aa, bb, l.castTensor(target, elem)}, elem, elem,
      [&](OpBuilder &nb, Location loc, ValueRange v) -> Value {
        using FP = arith::CmpFPredicate;
        auto c = [&](double k) { return constantOf(nb, loc, elem, k); };
        Value denominator = math::SqrtOp::create(
            nb, loc,
            arith::MulFOp::create(
                nb, loc, arith::AddFOp::create(nb, loc, v[1], c(1e-12)),
                arith::AddFOp::create(nb, loc, v[2], c(1e-12))));
        Value cosine = arith::DivFOp::create(nb, loc, v[0], denominator);
        Value positive = arith::SubFOp::create(nb, loc, c(1), cosine);
        Value negative = arith::MaximumFOp::create(
            nb, loc, arith::SubFOp::create(nb, loc, cosine, c(*margin)), c(0));
        Value isPositive = arith::CmpFOp::create(nb, loc, FP::OEQ, v[3], c(1));
        Value isNegative = arith::CmpFOp::create(nb, loc, FP::OEQ, v[3], c(-1));
        return arith::SelectOp::create(
            nb, loc, isPositive, positive,
            arith::SelectOp::create(nb, loc, isNegative, negative, c(0)));
      });
  return l.replace(reduceLoss(l, loss, *reduction, elem));
}

/// triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
/// reduction): max(margin + d(a, p) - d(a, n), 0) with pairwise_distance,
/// d(a, n) the smaller of it and d(p, n) with swap.
LogicalResult lowerTripletMarginLoss(Lowering &l) {
  using P = args::aten::triplet_margin_loss;
  Value a = l.tensor(P::anchor), pos = l.tensor(P::positive),
        neg = l.tensor(P::negative);
  Type elem = l.resultElementType();
  std::optional<double> margin = floatArg(l, P::margin, 1.0);
  auto swap = l.constBool(P::swap);
  auto reduction = reductionArg(l, P::reduction);
  if (!a || !pos || !neg || !elem || !isFloat(elem) || !margin || !swap ||
      !reduction)
    return l.fail("needs float tensors and constant arguments");
  MLIRContext *ctx = l.b.getContext();
  auto distance = [&](Value x, Value y) {
    return l.lowerCall("aten::pairwise_distance",
                       {NodeAttr::get(ctx, 0), NodeAttr::get(ctx, 1),
                        l.arg(P::p), l.arg(P::eps), l.b.getBoolAttr(false)},
                       {x, y}, UnrankedTensorType::get(elem));
  };
  Value dPos = distance(a, pos), dNeg = distance(a, neg);
  if (!dPos || !dNeg)
    return failure();
  SmallVector<Value> inputs = {dPos, dNeg};
  if (*swap) {
    Value dSwap = distance(pos, neg);
    if (!dSwap)
      return failure();
    inputs.push_back(dSwap);
  }
  Value loss = l.elementwise(
      inputs, elem, elem, [&](OpBuilder &nb, Location loc, ValueRange v) {
        Value far = v[1];
        if (v.size() == 3)
          far = arith::MinimumFOp::create(nb, loc, far, v[2]);
        Value gap = arith::SubFOp::create(
            nb, loc,
            arith::AddFOp::create(nb, loc, constantOf(nb, loc, elem, *margin),
                                  v[0]),
            far);
        return arith::MaximumFOp::create(nb, loc, gap,
                                         constantOf(nb, loc, elem, 0))
            .getResult();
      });
  return l.replace(reduceLoss(l, loss, *reduction, elem));
}

} // namespace

void mlir::fx::lowering::addLossLowerings(llvm::StringMap<LowerFn> &t) {
  addLowering(t, {"aten::mse_loss"}, lowerMseLoss);
  addLowering(t, {"aten::l1_loss"}, lowerL1Loss);
  addLowering(t, {"aten::smooth_l1_loss"}, lowerSmoothL1Loss);
  addLowering(t, {"aten::huber_loss"}, lowerHuberLoss);
  addLowering(t, {"aten::binary_cross_entropy"}, lowerBinaryCrossEntropy);
  addLowering(t, {"aten::binary_cross_entropy_with_logits"},
              lowerBinaryCrossEntropyWithLogits);
  addLowering(t, {"aten::nll_loss", "aten::nll_loss_nd"}, lowerNllLoss);
  addLowering(t, {"aten::cross_entropy_loss"}, lowerCrossEntropyLoss);
  addLowering(t, {"aten::soft_margin_loss"}, lowerSoftMarginLoss);
  addLowering(t, {"aten::multi_margin_loss"}, lowerMultiMarginLoss);
  addLowering(t, {"aten::hinge_embedding_loss"}, lowerHingeEmbeddingLoss);
  addLowering(t, {"aten::margin_ranking_loss"}, lowerMarginRankingLoss);
  addLowering(t, {"aten::kl_div"}, lowerKlDiv);
  addLowering(t, {"aten::poisson_nll_loss"}, lowerPoissonNllLoss);
  addLowering(t, {"aten::cosine_embedding_loss"}, lowerCosineEmbeddingLoss);
  addLowering(t, {"aten::triplet_margin_loss"}, lowerTripletMarginLoss);
}
