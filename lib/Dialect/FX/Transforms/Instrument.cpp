//===- Instrument.cpp - Per-node probes for timing, statistics, NaNs ------===//
//
// fx-instrument inserts `fx_mlir.instrument.*` call_function nodes. They are
// ordinary FX nodes, so normalization keeps them, the lowering turns them
// into calls of the runtime's probe functions, the interpreter runs them,
// and exported Python code calls `fx_mlir.instrument`.
//
//===----------------------------------------------------------------------===//

#include "fx-mlir/Dialect/FX/IR/FXAttrs.h"
#include "fx-mlir/Dialect/FX/IR/FXTypes.h"
#include "fx-mlir/Dialect/FX/Transforms/GraphBuilder.h"
#include "fx-mlir/Dialect/FX/Transforms/Passes.h"

#include "mlir/IR/BuiltinTypes.h"

namespace mlir::fx {
#define GEN_PASS_DEF_FXINSTRUMENT
#include "fx-mlir/Dialect/FX/Transforms/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;
using namespace mlir::fx;

bool mlir::fx::isProbeTarget(StringRef target) {
  return target.starts_with("fx_mlir.instrument.");
}

/// True if probes can read `type`'s values: a float tensor, or unknown.
static bool isFloatTensor(Type type) {
  if (isa<AnyType>(type))
    return true;
  auto tensor = dyn_cast<TensorType>(type);
  return tensor && isa<FloatType>(tensor.getElementType());
}

namespace {
struct InstrumentPass
    : public mlir::fx::impl::FXInstrumentBase<InstrumentPass> {
  using Base::Base;

  void runOnOperation() override {
    if (mode != "time" && mode != "stats" && mode != "nan-check") {
      getOperation()->emitError()
          << "fx-instrument: unknown mode '" << mode
          << "' (expected 'time', 'stats' or 'nan-check')";
      return signalPassFailure();
    }
    getOperation()->walk([&](GraphOp graph) { instrument(graph); });
  }

  void instrument(GraphOp graph) {
    MLIRContext *ctx = graph.getContext();
    GraphBuilder gb(graph);
    auto i64 = [&](int64_t v) {
      return IntegerAttr::get(IntegerType::get(ctx, 64), v);
    };
    Type none = NoneType::get(ctx);
    SmallVector<Operation *> nodes = getCallNodes(graph);
    llvm::erase_if(nodes, [](Operation *op) {
      auto call = dyn_cast<CallFunctionOp>(op);
      return call && isProbeTarget(call.getTarget());
    });
    // Ids continue after those of probes already in the graph.
    int64_t id = 0;
    graph.walk([&](CallFunctionOp call) {
      if (isProbeTarget(call.getTarget()) && !call.getArgs().empty())
        if (auto used = dyn_cast<IntegerAttr>(call.getArgs()[0]))
          id = std::max(id, used.getInt() + 1);
    });
    for (Operation *op : nodes) {
      auto node = cast<NodeOpInterface>(op);
      std::string name = node.getNodeName().str();
      SmallVector<Attribute> site = {
          i64(id), StringAttr::get(ctx, name),
          StringAttr::get(ctx, node.getTargetName())};
      Value result = op->getResult(0);
      // A value its users index (a tuple of unknown type) is not a tensor.
      bool indexed = llvm::any_of(result.getUsers(), [](Operation *user) {
        auto call = dyn_cast<CallFunctionOp>(user);
        return call && call.getTarget() == "operator.getitem";
      });
      bool readable = isFloatTensor(result.getType()) && !indexed;
      Operation *after = op->getNextNode();
      auto probe = [&](Operation *before, StringRef kind, bool withResult) {
        SmallVector<Attribute> args(site);
        SmallVector<Value> values;
        if (withResult) {
          args.push_back(NodeAttr::get(ctx, 0));
          values.push_back(result);
        }
        gb.call(before, gb.uniqueName(name + "_" + kind.str()),
                ("fx_mlir.instrument." + kind).str(), args, {}, {}, values,
                none);
      };
      if (mode == "time") {
        probe(op, "start", false);
        probe(after, "stop", readable);
      } else if (!readable) {
        continue;
      } else {
        probe(after, mode == "stats" ? "stats" : "nan_check", true);
      }
      ++id;
    }
  }
};
} // namespace
