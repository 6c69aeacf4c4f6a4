//===- Probes.cpp - Lowering of the fx-instrument probes ------------------===//
//
// The probes become calls of the runtime's C functions (Runtime/Probes.h):
//
//   fx_probe_start(i64 id), fx_probe_stop(i64 id)
//   fx_probe_stats(i64 id, f64 min, f64 max, f64 sum, i64 count, i64 nan)
//   fx_probe_nan_check(i64 id, i64 nonfinite)
//
// Statistics are reduced in the generated code, so only scalars cross the
// call; the calls have unknown side effects and stay in program order.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include <limits>

using namespace mlir;
using namespace mlir::fx;
using namespace mlir::fx::lowering;

namespace {

/// Calls the runtime function `name` (declared on first use) with `args`.
void callRuntime(Lowering &l, StringRef name, ValueRange args) {
  auto module = l.op->getParentOfType<ModuleOp>();
  auto callee = module.lookupSymbol<func::FuncOp>(name);
  if (!callee) {
    OpBuilder::InsertionGuard guard(l.b);
    l.b.setInsertionPointToStart(module.getBody());
    callee =
        func::FuncOp::create(l.b, module.getLoc(), name,
                             l.b.getFunctionType(TypeRange(args), TypeRange()));
    callee.setPrivate();
  }
  func::CallOp::create(l.b, l.loc, callee, args);
}

/// Sums `predicate(x)` (an i1 per element) over all of `x` as an i64.
Value countWhere(Lowering &l, Value x,
                 function_ref<Value(OpBuilder &, Location, Value)> predicate) {
  Type i64 = l.b.getI64Type();
  Value flags = l.elementwise(
      {x}, cast<RankedTensorType>(x.getType()).getElementType(), i64,
      [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
        return arith::ExtUIOp::create(b, loc, i64, predicate(b, loc, v[0]));
      });
  return reduceAll(l, flags, l.constant(i64, 0),
                   [](OpBuilder &b, Location loc, Value acc, Value e) -> Value {
                     return arith::AddIOp::create(b, loc, acc, e);
                   });
}

} // namespace

Value mlir::fx::lowering::reduceAll(
    Lowering &l, Value x, Value init,
    function_ref<Value(OpBuilder &, Location, Value, Value)> fn) {
  int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
  SmallVector<int64_t> dims = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  Value reduced = l.reduce(x, dims, /*keepdim=*/false, init, fn);
  return tensor::ExtractOp::create(l.b, l.loc, reduced, ValueRange{});
}

/// The arguments fx-instrument gives a probe, as `fx_mlir.instrument`'s
/// functions take them: (id, name, target[, result]). Not LibTorch
/// operators, so spelled here rather than generated from Targets.def.
constexpr Param kProbeId{0, "id"}, kProbeResult{3, "result"};

static LogicalResult lowerProbe(Lowering &l) {
  StringRef kind =
      l.target().drop_front(StringRef("fx_mlir.instrument.").size());
  std::optional<int64_t> id = l.constInt(kProbeId);
  if (!id)
    return l.fail("a probe's first arg is its int id");
  Type i64 = l.b.getI64Type(), f64 = l.b.getF64Type();
  Value idValue = l.constant(i64, double(*id));
  if (kind == "start" || kind == "stop") {
    callRuntime(l, kind == "start" ? "fx_probe_start" : "fx_probe_stop",
                {idValue});
    l.b.eraseOp(l.op);
    return success();
  }
  Value x = l.tensor(kProbeResult);
  if (!x)
    return failure();
  if (!isFloat(cast<RankedTensorType>(x.getType()).getElementType()))
    return l.fail("probes read float tensors");
  auto isNan = [](OpBuilder &b, Location loc, Value e) -> Value {
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, e, e);
  };
  if (kind == "nan_check") {
    Value nonFinite =
        countWhere(l, x, [&](OpBuilder &b, Location loc, Value e) -> Value {
          Value inf = arith::ConstantOp::create(
              b, loc,
              b.getFloatAttr(e.getType(),
                             std::numeric_limits<double>::infinity()));
          Value isInf =
              arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                    math::AbsFOp::create(b, loc, e), inf);
          return arith::OrIOp::create(b, loc, isNan(b, loc, e), isInf);
        });
    callRuntime(l, "fx_probe_nan_check", {idValue, nonFinite});
    l.b.eraseOp(l.op);
    return success();
  }
  if (kind != "stats")
    return l.fail("unknown probe '" + kind + "'");
  double inf = std::numeric_limits<double>::infinity();
  Value min =
      reduceAll(l, x, l.constant(f64, inf),
                [](OpBuilder &b, Location loc, Value a, Value e) {
                  return arith::MinNumFOp::create(b, loc, a, e).getResult();
                });
  Value max =
      reduceAll(l, x, l.constant(f64, -inf),
                [](OpBuilder &b, Location loc, Value a, Value e) {
                  return arith::MaxNumFOp::create(b, loc, a, e).getResult();
                });
  Value sum =
      reduceAll(l, x, l.constant(f64, 0),
                [](OpBuilder &b, Location loc, Value a, Value e) {
                  return arith::AddFOp::create(b, loc, a, e).getResult();
                });
  int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
  SmallVector<int64_t> all = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  Value count = l.countOver(x, all, i64);
  Value nans = countWhere(l, x, isNan);
  callRuntime(l, "fx_probe_stats", {idValue, min, max, sum, count, nans});
  l.b.eraseOp(l.op);
  return success();
}

void mlir::fx::lowering::addProbeLowerings(llvm::StringMap<LowerFn> &t) {
  addLowering(t,
              {"fx_mlir.instrument.start", "fx_mlir.instrument.stop",
               "fx_mlir.instrument.stats", "fx_mlir.instrument.nan_check"},
              lowerProbe);
}
