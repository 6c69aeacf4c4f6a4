//===- Bounds.cpp - Tests an elementwise body's value ranges decide -------===//
//
// Part of fx-cpu-schedule; see CPUSchedule.h.
//
// A quantize guards against values from 2^63 up (ATen's conversion to
// int64 gives INT64_MIN there: Quantize.cpp), one compare and one select a
// vector. After an int8 conv, a depthwise conv or a dequantize, the value
// it quantizes is an integer (at most 32 bits) times constants plus
// constants: far below 2^63. Here each f32 value of a linalg.generic's
// body gets an interval from its operands' (the integers' types, the
// constants and constant tables read), and a compare the interval decides
// becomes a constant, which folds the select away. A byte clamped into
// [0, 255] and widened to i16 (the pairs form's activations) converts to
// i16 directly: one pack rather than a shuffle, a permute and a mask.
//
//===----------------------------------------------------------------------===//

#include "CPUSchedule.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <cstring>

using namespace mlir;

namespace mlir::fx::cpu {

namespace {

/// A closed interval of finite reals.
struct Interval {
  double lo, hi;
};

/// The interval of the f32 elements of a constant tensor, if they are all
/// finite.
std::optional<Interval> constantRange(Attribute attr) {
  auto extend = [](std::optional<Interval> r, double v) {
    if (!r)
      return Interval{v, v};
    return Interval{std::min(r->lo, v), std::max(r->hi, v)};
  };
  std::optional<Interval> r;
  if (auto dense = dyn_cast<DenseFPElementsAttr>(attr)) {
    if (!dense.getElementType().isF32())
      return std::nullopt;
    for (APFloat v : dense.getValues<APFloat>()) {
      double d = v.convertToDouble();
      if (!std::isfinite(d))
        return std::nullopt;
      r = extend(r, d);
    }
    return r;
  }
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr)) {
    auto type = dyn_cast<RankedTensorType>(resource.getType());
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!type || !type.getElementType().isF32() || !blob)
      return std::nullopt;
    ArrayRef<char> bytes = blob->getData();
    if (bytes.size() != size_t(type.getNumElements()) * sizeof(float))
      return std::nullopt;
    for (size_t i = 0; i < bytes.size(); i += sizeof(float)) {
      float f;
      std::memcpy(&f, bytes.data() + i, sizeof(float));
      if (!std::isfinite(f))
        return std::nullopt;
      r = extend(r, f);
    }
    return r;
  }
  return std::nullopt;
}

/// The f32 values of one generic's body with the intervals they are known
/// to lie in (finite values only: no NaN or infinity can arise from them).
class BodyRanges {
public:
  explicit BodyRanges(linalg::GenericOp op) : op(op) {}

  std::optional<Interval> of(Value v) {
    auto it = known.find(v);
    if (it != known.end())
      return it->second;
    std::optional<Interval> r = compute(v);
    known[v] = r;
    return r;
  }

private:
  std::optional<Interval> compute(Value v) {
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() != op.getBody() ||
          arg.getArgNumber() >= op.getNumDpsInputs())
        return std::nullopt;
      Value input = op.getDpsInputs()[arg.getArgNumber()];
      if (auto constant = input.getDefiningOp<arith::ConstantOp>())
        return constantRange(constant.getValue());
      return std::nullopt;
    }
    Operation *def = v.getDefiningOp();
    if (!def)
      return std::nullopt;
    // Scalar constants, in the body or above it.
    if (auto constant = dyn_cast<arith::ConstantOp>(def)) {
      if (auto f = dyn_cast<FloatAttr>(constant.getValue());
          f && std::isfinite(f.getValueAsDouble()))
        return Interval{f.getValueAsDouble(), f.getValueAsDouble()};
      return std::nullopt;
    }
    if (def->getBlock() != op.getBody())
      return std::nullopt;
    // Integers converted: their type's range.
    if (isa<arith::SIToFPOp, arith::UIToFPOp>(def)) {
      auto from = dyn_cast<IntegerType>(def->getOperand(0).getType());
      if (!from || from.getWidth() > 32)
        return std::nullopt;
      double half = std::ldexp(1.0, int(from.getWidth()) - 1);
      if (isa<arith::UIToFPOp>(def))
        return Interval{0.0, 2 * half - 1};
      return Interval{-half, half - 1};
    }
    auto operands = [&]() -> std::optional<SmallVector<Interval, 3>> {
      SmallVector<Interval, 3> r;
      for (Value operand : def->getOperands()) {
        std::optional<Interval> i = of(operand);
        if (!i)
          return std::nullopt;
        r.push_back(*i);
      }
      return r;
    };
    auto product = [](Interval a, Interval b) {
      double c[] = {a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi};
      return Interval{*std::min_element(c, c + 4), *std::max_element(c, c + 4)};
    };
    // f32 rounding moves a result by a relative 2^-24 at most: the bounds
    // are widened by a relative 2^-20, which keeps them bounds.
    auto widened = [](Interval i) -> std::optional<Interval> {
      double m = std::max(std::fabs(i.lo), std::fabs(i.hi)) * 0x1p-20;
      Interval r{i.lo - m, i.hi + m};
      if (!std::isfinite(r.lo) || !std::isfinite(r.hi) ||
          std::fabs(r.lo) > 0x1p100 || std::fabs(r.hi) > 0x1p100)
        return std::nullopt;
      return r;
    };
    if (!isa<arith::MulFOp, arith::AddFOp, arith::SubFOp, math::FmaOp,
             arith::MaxNumFOp, arith::MinNumFOp, arith::MaximumFOp,
             arith::MinimumFOp, math::RoundEvenOp, math::RoundOp, math::FloorOp,
             math::CeilOp, arith::SelectOp>(def) ||
        !def->getResult(0).getType().isF32())
      return std::nullopt;
    if (auto select = dyn_cast<arith::SelectOp>(def)) {
      std::optional<Interval> a = of(select.getTrueValue()),
                              b = of(select.getFalseValue());
      if (!a || !b)
        return std::nullopt;
      return Interval{std::min(a->lo, b->lo), std::max(a->hi, b->hi)};
    }
    std::optional<SmallVector<Interval, 3>> in = operands();
    if (!in)
      return std::nullopt;
    SmallVector<Interval, 3> &x = *in;
    return TypeSwitch<Operation *, std::optional<Interval>>(def)
        .Case([&](arith::MulFOp) { return widened(product(x[0], x[1])); })
        .Case([&](arith::AddFOp) {
          return widened({x[0].lo + x[1].lo, x[0].hi + x[1].hi});
        })
        .Case([&](arith::SubFOp) {
          return widened({x[0].lo - x[1].hi, x[0].hi - x[1].lo});
        })
        .Case([&](math::FmaOp) {
          Interval p = product(x[0], x[1]);
          return widened({p.lo + x[2].lo, p.hi + x[2].hi});
        })
        .Case<arith::MaxNumFOp, arith::MaximumFOp>([&](Operation *) {
          return Interval{std::max(x[0].lo, x[1].lo),
                          std::max(x[0].hi, x[1].hi)};
        })
        .Case<arith::MinNumFOp, arith::MinimumFOp>([&](Operation *) {
          return Interval{std::min(x[0].lo, x[1].lo),
                          std::min(x[0].hi, x[1].hi)};
        })
        .Default([&](Operation *) {
          // Rounding to an integer moves a value by less than 1.
          return Interval{std::floor(x[0].lo), std::ceil(x[0].hi)};
        });
  }

  linalg::GenericOp op;
  DenseMap<Value, std::optional<Interval>> known;
};

/// The constant an ordered compare of `lhs` with a constant has on every
/// value of `lhs`'s interval, if it has one.
std::optional<bool> decided(arith::CmpFOp cmp, BodyRanges &ranges) {
  auto rhs = cmp.getRhs().getDefiningOp<arith::ConstantOp>();
  auto c = rhs ? dyn_cast<FloatAttr>(rhs.getValue()) : FloatAttr();
  std::optional<Interval> x = ranges.of(cmp.getLhs());
  if (!c || !x || std::isnan(c.getValueAsDouble()))
    return std::nullopt;
  double k = c.getValueAsDouble();
  switch (cmp.getPredicate()) {
  case arith::CmpFPredicate::OGE:
    if (x->hi < k)
      return false;
    if (x->lo >= k)
      return true;
    return std::nullopt;
  case arith::CmpFPredicate::OGT:
    if (x->hi <= k)
      return false;
    if (x->lo > k)
      return true;
    return std::nullopt;
  case arith::CmpFPredicate::OLT:
    if (x->lo >= k)
      return false;
    if (x->hi < k)
      return true;
    return std::nullopt;
  case arith::CmpFPredicate::OLE:
    if (x->lo > k)
      return false;
    if (x->hi <= k)
      return true;
    return std::nullopt;
  default:
    return std::nullopt;
  }
}

/// The value of a scalar f32 constant if it is an integer in [-2^30, 2^30].
std::optional<int64_t> integerConstant(Value v) {
  auto constant = v.getDefiningOp<arith::ConstantOp>();
  auto f = constant ? dyn_cast<FloatAttr>(constant.getValue()) : FloatAttr();
  if (!f || !f.getType().isF32())
    return std::nullopt;
  double d = f.getValueAsDouble();
  if (!std::isfinite(d) || std::nearbyint(d) != d || std::fabs(d) > 0x1p30)
    return std::nullopt;
  return int64_t(d);
}

/// A quantize's last steps in integers:
///   fptosi(minnumf(maxnumf(roundeven(x) + zp, lo), hi))
///     = minsi(maxsi(fptosi(roundeven(x)) + zp, lo), hi)
/// where x's interval is within 2^30 (the conversion is defined and the
/// sums do not overflow; zp, lo and hi are integer constants, small
/// enough that float and integer sums agree wherever the clamp does not
/// decide the result). The same value, in fewer vector instructions: the
/// zero point's addition of 0 folds away (an f32 `x + 0.0` stays, for
/// -0.0), and a clamp into a byte's range before a truncation is what
/// the saturating packs do (LLVM drops the min, the max and the mask).
void integerRequantization(RewriterBase &rewriter, arith::FPToSIOp convert,
                           BodyRanges &ranges) {
  auto type = dyn_cast<IntegerType>(convert.getType());
  if (!type || type.getWidth() > 32 || type.getWidth() < 8)
    return;
  auto min = convert.getIn().getDefiningOp<arith::MinNumFOp>();
  auto max = min ? min.getLhs().getDefiningOp<arith::MaxNumFOp>() : nullptr;
  if (!max || !min->hasOneUse() || !max->hasOneUse())
    return;
  Value rounded = max.getLhs();
  std::optional<int64_t> zeroPoint = 0;
  auto add = rounded.getDefiningOp<arith::AddFOp>();
  if (add) {
    if (!add->hasOneUse())
      return;
    zeroPoint = integerConstant(add.getRhs());
    rounded = add.getLhs();
  }
  auto round = rounded.getDefiningOp<math::RoundEvenOp>();
  std::optional<int64_t> lo = integerConstant(max.getRhs());
  std::optional<int64_t> hi = integerConstant(min.getRhs());
  if (!round || !round->hasOneUse() || !zeroPoint || !lo || !hi || *lo > *hi)
    return;
  // The clamped values fit the result type (its conversion was defined).
  int64_t limit = int64_t(1) << (type.getWidth() - 1);
  if (type.getWidth() < 32 && (*lo < -limit || *hi > 2 * limit - 1))
    return;
  std::optional<Interval> x = ranges.of(round.getOperand());
  if (!x || std::fabs(x->lo) > 0x1p30 || std::fabs(x->hi) > 0x1p30)
    return;
  rewriter.setInsertionPoint(convert);
  Location loc = convert.getLoc();
  Type i32 = rewriter.getI32Type();
  auto constant = [&](int64_t v) -> Value {
    return arith::ConstantOp::create(rewriter, loc,
                                     rewriter.getI32IntegerAttr(int32_t(v)));
  };
  Value q = arith::FPToSIOp::create(rewriter, loc, i32, round.getResult());
  if (*zeroPoint != 0)
    q = arith::AddIOp::create(rewriter, loc, q, constant(*zeroPoint));
  q = arith::MaxSIOp::create(rewriter, loc, q, constant(*lo));
  q = arith::MinSIOp::create(rewriter, loc, q, constant(*hi));
  if (type.getWidth() < 32)
    q = arith::TruncIOp::create(rewriter, loc, type, q);
  rewriter.replaceOp(convert, q);
  // What the conversion read is dead now.
  rewriter.eraseOp(min);
  rewriter.eraseOp(max);
  if (add)
    rewriter.eraseOp(add);
}

} // namespace

void foldDecidedCompares(RewriterBase &rewriter, func::FuncOp func) {
  func.walk([&](linalg::GenericOp op) {
    BodyRanges ranges(op);
    SmallVector<arith::CmpFOp> compares;
    SmallVector<arith::ExtUIOp> widenings;
    op.getBody()->walk([&](Operation *inner) {
      if (auto cmp = dyn_cast<arith::CmpFOp>(inner))
        compares.push_back(cmp);
      else if (auto ext = dyn_cast<arith::ExtUIOp>(inner))
        widenings.push_back(ext);
    });
    for (arith::CmpFOp cmp : compares)
      if (std::optional<bool> value = decided(cmp, ranges)) {
        rewriter.setInsertionPoint(cmp);
        Value constant = arith::ConstantOp::create(
            rewriter, cmp.getLoc(), rewriter.getBoolAttr(*value));
        rewriter.replaceOp(cmp, constant);
      }
    // The selects of a decided compare fold.
    SmallVector<arith::SelectOp> selects;
    op.getBody()->walk([&](arith::SelectOp s) { selects.push_back(s); });
    for (arith::SelectOp s : selects) {
      auto condition = s.getCondition().getDefiningOp<arith::ConstantOp>();
      auto value =
          condition ? dyn_cast<BoolAttr>(condition.getValue()) : BoolAttr();
      if (!value)
        continue;
      rewriter.replaceOp(s, value.getValue() ? s.getTrueValue()
                                             : s.getFalseValue());
      if (condition->use_empty())
        rewriter.eraseOp(condition);
    }
    // extui(trunci(fptosi(x) to i32) to i8) to i16 with x an integer in
    // [0, 255] (a clamped quantize): fptosi(x) to i16, the same value.
    for (arith::ExtUIOp ext : widenings) {
      auto trunc = ext.getIn().getDefiningOp<arith::TruncIOp>();
      auto convert =
          trunc ? trunc.getIn().getDefiningOp<arith::FPToSIOp>() : nullptr;
      if (!convert || !trunc.getType().isInteger(8) ||
          !ext.getType().isInteger(16) || !convert.getType().isInteger(32))
        continue;
      std::optional<Interval> x = ranges.of(convert.getIn());
      if (!x || x->lo < 0.0 || x->hi > 255.0)
        continue;
      rewriter.setInsertionPoint(ext);
      rewriter.replaceOpWithNewOp<arith::FPToSIOp>(ext, ext.getType(),
                                                   convert.getIn());
      if (trunc->use_empty())
        rewriter.eraseOp(trunc);
      if (convert->use_empty())
        rewriter.eraseOp(convert);
    }
    SmallVector<arith::FPToSIOp> converts;
    op.getBody()->walk([&](arith::FPToSIOp c) { converts.push_back(c); });
    for (arith::FPToSIOp convert : converts)
      integerRequantization(rewriter, convert, ranges);
  });
}

} // namespace mlir::fx::cpu
