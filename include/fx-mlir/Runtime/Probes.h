//===- Probes.h - What fx-instrument's probes record ------------*- C++ -*-===//
//
// The compiled code's probe calls (`fx_probe_*`, see the lowering in
// lib/Conversion/FXToLinalg/Probes.cpp) and the interpreter's probe nodes
// both write to a ProbeTable: per instrumented node, its calls and time, or
// its output statistics, or the first node whose output was not finite.
//
//===----------------------------------------------------------------------===//

#ifndef FX_MLIR_RUNTIME_PROBES_H
#define FX_MLIR_RUNTIME_PROBES_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace mlir {
class Operation;
namespace fx {

class ProbeTable {
public:
  /// Names probe `id`: the instrumented node and its target.
  void addSite(int64_t id, llvm::StringRef node, llvm::StringRef target);
  /// Names every probe site of the fx-instrument probes in `root`.
  void addSites(Operation *root);

  void start(int64_t id);
  void stop(int64_t id);
  void stats(int64_t id, double min, double max, double sum, int64_t count,
             int64_t nan);
  /// Records a NaN/Inf check; returns false (and remembers the node) if
  /// `nonFinite` elements were found and no earlier node failed.
  bool nanCheck(int64_t id, int64_t nonFinite);

  /// "node 'relu' (target 'aten::relu') produced 3 NaN/Inf values" for the
  /// first failed check of the last run, if any.
  std::optional<std::string> getFailure() const;
  /// Forgets the failure (at the start of a run); keeps the counts.
  void clearFailure() { failure.reset(); }
  /// Forgets everything recorded, keeps the sites.
  void reset();
  bool empty() const;
  /// Whether any probe site was named (the graph is instrumented).
  bool hasSites() const { return !records.empty(); }

  /// The report: a time table sorted by total time with percentages, a
  /// statistics table in node order, or both when both were recorded.
  std::string format() const;

private:
  struct Record {
    std::string node, target;
    int64_t calls = 0, timeNs = 0, startNs = 0;
    int64_t statCalls = 0, count = 0, nan = 0;
    double min = 0, max = 0, sum = 0;
  };
  std::map<int64_t, Record> records;
  std::optional<std::string> failure;
};

/// The table the probe functions of the running thread write to (null:
/// probes do nothing). CompiledGraph::run sets it around a run.
ProbeTable *&getActiveProbeTable();

/// The probe functions' addresses, for the JIT's symbol map.
struct ProbeSymbol {
  const char *name;
  void *address;
};
llvm::ArrayRef<ProbeSymbol> getProbeSymbols();

} // namespace fx
} // namespace mlir

#endif // FX_MLIR_RUNTIME_PROBES_H
