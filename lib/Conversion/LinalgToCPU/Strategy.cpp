//===- Strategy.cpp - Which algorithm and tiles each linalg op gets -------===//
//
// fx-cpu-strategy: the policy of the CPU schedule. For every convolution
// and contraction it chooses, from the target (CPUTarget.h) and the
// shapes, how it is computed, and records the choice on the op as
// `fx.cpu_strategy`; fx-cpu-schedule then applies what is recorded. A
// record written by hand is checked and applied the same way.
//
//===----------------------------------------------------------------------===//

#include "CPUSchedule.h"

#include "fx-mlir/Conversion/Passes.h"

namespace mlir::fx {
#define GEN_PASS_DEF_FXCPUSTRATEGY
#include "fx-mlir/Conversion/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;
using mlir::fx::CPUTarget;

namespace mlir::fx::cpu {

SmallVector<std::pair<StringRef, bool>>
convAlgorithms(linalg::Conv2DNchwFchwOp conv) {
  ArrayRef<char> filterBytes = constantBytes(conv.getInputs()[1]);
  return {{"winograd", preferWinograd(conv, filterBytes)},
          {"filters-inner", preferFiltersInner(conv, filterBytes)},
          {"shifted-window", preferShiftedWindow(conv)},
          {"im2col", true}};
}

/// The largest register tile a record may ask for, in vector registers
/// (twice what any target has: more only spills), and the largest block.
constexpr int64_t kMaxTileRegisters = 64, kMaxBlock = 1 << 16;

/// The record of a contraction's strategy.
static DictionaryAttr contractionAttr(MLIRContext *context,
                                      const ContractionStrategy &s) {
  Builder b(context);
  return b.getDictionaryAttr({
      b.getNamedAttr("algorithm", b.getStringAttr("contraction")),
      b.getNamedAttr("pack", b.getBoolAttr(s.pack)),
      b.getNamedAttr("register_tile", b.getDenseI64ArrayAttr({s.rows, s.cols})),
      b.getNamedAttr(
          "cache_block",
          b.getDenseI64ArrayAttr({s.blockRows, s.blockCols, s.blockDepth})),
  });
}

std::string describe(const ContractionStrategy &s) {
  return llvm::formatv("tile {0}x{1}{2}, blocks {3}x{4}x{5}", s.rows, s.cols,
                       s.pack ? " packed" : "", s.blockRows, s.blockCols,
                       s.blockDepth)
      .str();
}

/// The keys of `record` other than `allowed`: an error on `op` naming the
/// first.
static LogicalResult onlyKeys(Operation *op, DictionaryAttr record,
                              ArrayRef<StringRef> allowed) {
  for (NamedAttribute entry : record)
    if (!llvm::is_contained(allowed, entry.getName().getValue()))
      return op->emitError()
             << "fx.cpu_strategy: unknown key '" << entry.getName().getValue()
             << "' (this op takes " << llvm::join(allowed, ", ") << ")";
  return success();
}

FailureOr<ContractionStrategy> readContraction(Operation *op,
                                               ContractionLoops loops) {
  auto linalgOp = cast<linalg::LinalgOp>(op);
  ContractionStrategy chosen = chooseContraction(linalgOp, loops);
  Attribute attr = op->getAttr(kStrategyAttr);
  if (!attr)
    return chosen;
  auto record = dyn_cast<DictionaryAttr>(attr);
  if (!record)
    return op->emitError()
           << "fx.cpu_strategy of a contraction is a dictionary {algorithm "
              "= \"contraction\", pack, register_tile, cache_block}";
  if (failed(onlyKeys(op, record,
                      {"algorithm", "pack", "register_tile", "cache_block"})))
    return failure();
  if (auto algorithm = record.get("algorithm");
      algorithm &&
      algorithm != StringAttr::get(op->getContext(), "contraction"))
    return op->emitError() << "fx.cpu_strategy: the algorithm of a "
                              "contraction is \"contraction\"";
  ContractionStrategy s = chosen;
  if (Attribute pack = record.get("pack")) {
    auto value = dyn_cast<BoolAttr>(pack);
    if (!value)
      return op->emitError() << "fx.cpu_strategy: pack is true or false";
    if (value.getValue() && !chosen.pack)
      return op->emitError()
             << "fx.cpu_strategy: pack does not apply to this contraction "
                "(its columns are not whole panels of "
             << tuning().panel
             << ", or the columns operand is small and computed)";
    s.pack = value.getValue();
    // Unpacked, the blocks are those of an unpacked contraction.
    if (!s.pack && chosen.pack && !loops.panel)
      s.blockRows = kBlockRows;
  }
  auto sizes = [&](StringRef key, size_t count,
                   SmallVectorImpl<int64_t> &out) -> LogicalResult {
    Attribute entry = record.get(key);
    if (!entry)
      return success();
    auto array = dyn_cast<DenseI64ArrayAttr>(entry);
    if (!array || array.size() != int64_t(count) ||
        llvm::any_of(array.asArrayRef(),
                     [](int64_t v) { return v < 1 || v > kMaxBlock; }))
      return op->emitError()
             << "fx.cpu_strategy: " << key << " is array<i64: " << count
             << " sizes from 1 to " << kMaxBlock << ">";
    out.assign(array.asArrayRef().begin(), array.asArrayRef().end());
    return success();
  };
  SmallVector<int64_t> tile, block;
  if (failed(sizes("register_tile", 2, tile)) ||
      failed(sizes("cache_block", 3, block)))
    return failure();
  if (!tile.empty()) {
    int64_t registers = tile[0] * llvm::divideCeil(tile[1], tuning().lanes);
    if (registers > kMaxTileRegisters)
      return op->emitError()
             << "fx.cpu_strategy: a register tile of " << tile[0] << "x"
             << tile[1] << " takes " << registers << " vector registers of "
             << tuning().lanes << " lanes (at most " << kMaxTileRegisters
             << ")";
    s.rows = tile[0];
    s.cols = tile[1];
  }
  if (!block.empty()) {
    s.blockRows = block[0];
    s.blockCols = block[1];
    s.blockDepth = block[2];
  }
  return s;
}

FailureOr<StringRef> readConvAlgorithm(linalg::Conv2DNchwFchwOp conv) {
  SmallVector<std::pair<StringRef, bool>> algorithms = convAlgorithms(conv);
  StringRef chosen =
      llvm::find_if(algorithms, [](auto a) { return a.second; })->first;
  Attribute attr = conv->getAttr(kStrategyAttr);
  if (!attr)
    return chosen;
  StringAttr algorithm = dyn_cast<StringAttr>(attr);
  if (auto record = dyn_cast<DictionaryAttr>(attr)) {
    if (failed(onlyKeys(
            conv, record,
            {"algorithm", "applicable", "register_tile", "cache_block"})))
      return failure();
    algorithm = record.getAs<StringAttr>("algorithm");
  }
  if (!algorithm)
    return conv.emitError()
           << "fx.cpu_strategy of a convolution is {algorithm = \"...\"}";
  auto it = llvm::find_if(
      algorithms, [&](auto a) { return a.first == algorithm.getValue(); });
  if (it == algorithms.end() || !it->second) {
    SmallVector<StringRef> usable;
    for (auto [name, applies] : algorithms)
      if (applies)
        usable.push_back(name);
    return conv.emitError()
           << "fx.cpu_strategy '" << algorithm.getValue()
           << "' does not apply to this convolution; these do: "
           << llvm::join(usable, ", ");
  }
  return it->first;
}

LogicalResult recordStrategies(func::FuncOp func) {
  MLIRContext *context = func.getContext();
  Builder b(context);
  WalkResult result = func.walk([&](linalg::LinalgOp op) {
    if (!isStaticF32(op))
      return WalkResult::advance();
    if (auto conv = dyn_cast<linalg::Conv2DNchwFchwOp>(op.getOperation())) {
      FailureOr<StringRef> algorithm = readConvAlgorithm(conv);
      if (failed(algorithm))
        return WalkResult::interrupt();
      SmallVector<Attribute> applicable;
      for (auto [name, applies] : convAlgorithms(conv))
        if (applies)
          applicable.push_back(b.getStringAttr(name));
      SmallVector<NamedAttribute> entries = {
          b.getNamedAttr("algorithm", b.getStringAttr(*algorithm)),
          b.getNamedAttr("applicable", b.getArrayAttr(applicable))};
      // The tiles written for the contractions it becomes stay.
      if (auto record = conv->getAttrOfType<DictionaryAttr>(kStrategyAttr))
        for (StringRef key : {"register_tile", "cache_block"})
          if (Attribute value = record.get(key))
            entries.push_back(b.getNamedAttr(key, value));
      conv->setAttr(kStrategyAttr, b.getDictionaryAttr(entries));
      return WalkResult::advance();
    }
    if (isa<linalg::Conv2DNgchwGfchwOp>(op.getOperation())) {
      DictionaryAttr grouped = b.getDictionaryAttr(
          {b.getNamedAttr("algorithm", b.getStringAttr("grouped"))});
      Attribute attr = op->getAttr(kStrategyAttr);
      if (attr && attr != grouped && attr != b.getStringAttr("grouped")) {
        op->emitError() << "fx.cpu_strategy of a grouped convolution is "
                           "{algorithm = \"grouped\"}";
        return WalkResult::interrupt();
      }
      op->setAttr(kStrategyAttr, grouped);
      return WalkResult::advance();
    }
    FailureOr<ContractionLoops> loops = getContractionLoops(op);
    if (failed(loops))
      return WalkResult::advance();
    FailureOr<ContractionStrategy> s = readContraction(op, *loops);
    if (failed(s))
      return WalkResult::interrupt();
    op->setAttr(kStrategyAttr, contractionAttr(context, *s));
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

} // namespace mlir::fx::cpu

namespace {

struct CPUStrategyPass
    : public mlir::fx::impl::FXCPUStrategyBase<CPUStrategyPass> {
  using FXCPUStrategyBase::FXCPUStrategyBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    fx::cpu::TargetTuning tuned(func, target);
    if (tuned.failed())
      return signalPassFailure();
    func->setAttr("fx.cpu_schedule",
                  StringAttr::get(&getContext(), tuned.describe()));
    if (failed(fx::cpu::recordStrategies(func)))
      signalPassFailure();
  }
};

} // namespace
