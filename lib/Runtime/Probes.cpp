//===- Probes.cpp - What fx-instrument's probes record --------------------===//

#include "fx-mlir/Runtime/Probes.h"
#include "fx-mlir/Dialect/FX/IR/FXOps.h"
#include "fx-mlir/Dialect/FX/Transforms/Passes.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

using namespace mlir;
using namespace mlir::fx;

static int64_t nowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void ProbeTable::addSite(int64_t id, llvm::StringRef node,
                         llvm::StringRef target) {
  Record &r = records[id];
  r.node = node.str();
  r.target = target.str();
}

void ProbeTable::addSites(Operation *root) {
  root->walk([&](CallFunctionOp call) {
    if (!isProbeTarget(call.getTarget()) || call.getArgs().size() < 3)
      return;
    auto id = dyn_cast<IntegerAttr>(call.getArgs()[0]);
    auto node = dyn_cast<StringAttr>(call.getArgs()[1]);
    auto target = dyn_cast<StringAttr>(call.getArgs()[2]);
    if (id && node && target)
      addSite(id.getInt(), node.getValue(), target.getValue());
  });
}

void ProbeTable::start(int64_t id) { records[id].startNs = nowNs(); }

void ProbeTable::stop(int64_t id) {
  Record &r = records[id];
  r.timeNs += nowNs() - r.startNs;
  ++r.calls;
}

void ProbeTable::stats(int64_t id, double min, double max, double sum,
                       int64_t count, int64_t nan) {
  Record &r = records[id];
  r.min = r.statCalls ? std::min(r.min, min) : min;
  r.max = r.statCalls ? std::max(r.max, max) : max;
  r.sum += sum;
  r.count += count;
  r.nan += nan;
  ++r.statCalls;
}

bool ProbeTable::nanCheck(int64_t id, int64_t nonFinite) {
  Record &r = records[id];
  ++r.statCalls;
  r.nan += nonFinite;
  if (nonFinite == 0 || failure)
    return nonFinite == 0;
  failure = "node '" + r.node + "' (target '" + r.target + "') produced " +
            std::to_string(nonFinite) + " NaN/Inf values";
  return false;
}

std::optional<std::string> ProbeTable::getFailure() const { return failure; }

void ProbeTable::reset() {
  for (auto &[id, r] : records) {
    std::string node = r.node, target = r.target;
    r = Record();
    r.node = node;
    r.target = target;
  }
  failure.reset();
}

bool ProbeTable::empty() const {
  for (const auto &[id, r] : records)
    if (r.calls || r.statCalls)
      return false;
  return true;
}

/// Lays out `rows` as columns separated by two spaces, with a rule under
/// the header.
static void printTable(llvm::raw_ostream &os,
                       const std::vector<std::vector<std::string>> &rows) {
  std::vector<size_t> widths;
  for (const auto &row : rows)
    for (size_t i = 0; i < row.size(); ++i) {
      widths.resize(std::max(widths.size(), row.size()));
      widths[i] = std::max(widths[i], row[i].size());
    }
  for (size_t r = 0; r < rows.size(); ++r) {
    for (size_t i = 0; i < rows[r].size(); ++i) {
      if (i + 1 < rows[r].size())
        os << llvm::left_justify(rows[r][i], widths[i]) << "  ";
      else
        os << rows[r][i];
    }
    os << "\n";
    if (r == 0) {
      for (size_t i = 0; i < widths.size(); ++i)
        os << std::string(widths[i], '-')
           << (i + 1 < widths.size() ? "  " : "");
      os << "\n";
    }
  }
}

static std::string fmt(double v, const char *spec = "%.6g") {
  if (std::isnan(v))
    return "nan";
  std::string s;
  llvm::raw_string_ostream(s) << llvm::format(spec, v);
  return s;
}

std::string ProbeTable::format() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  std::vector<const Record *> timed, measured;
  int64_t total = 0;
  for (const auto &[id, r] : records) {
    if (r.calls) {
      timed.push_back(&r);
      total += r.timeNs;
    }
    if (r.statCalls)
      measured.push_back(&r);
  }
  if (!timed.empty()) {
    std::stable_sort(
        timed.begin(), timed.end(),
        [](const Record *a, const Record *b) { return a->timeNs > b->timeNs; });
    std::vector<std::vector<std::string>> rows = {
        {"node", "target", "calls", "total ms", "%"}};
    for (const Record *r : timed)
      rows.push_back({r->node, r->target, std::to_string(r->calls),
                      fmt(r->timeNs / 1e6, "%.3f"),
                      fmt(total ? 100.0 * r->timeNs / total : 0.0, "%.1f")});
    rows.push_back({"total", "", "", fmt(total / 1e6, "%.3f"), "100.0"});
    printTable(os, rows);
  }
  if (!measured.empty()) {
    if (!timed.empty())
      os << "\n";
    std::vector<std::vector<std::string>> rows = {
        {"node", "target", "calls", "min", "max", "mean", "nan"}};
    for (const Record *r : measured) {
      bool hasStats = r->count > 0;
      rows.push_back(
          {r->node, r->target, std::to_string(r->statCalls),
           hasStats ? fmt(r->min) : "-", hasStats ? fmt(r->max) : "-",
           hasStats ? fmt(r->sum / r->count) : "-", std::to_string(r->nan)});
    }
    printTable(os, rows);
  }
  return text;
}

ProbeTable *&mlir::fx::getActiveProbeTable() {
  static thread_local ProbeTable *table = nullptr;
  return table;
}

extern "C" {
static void fx_probe_start(int64_t id) {
  if (ProbeTable *t = getActiveProbeTable())
    t->start(id);
}
static void fx_probe_stop(int64_t id) {
  if (ProbeTable *t = getActiveProbeTable())
    t->stop(id);
}
static void fx_probe_stats(int64_t id, double min, double max, double sum,
                           int64_t count, int64_t nan) {
  if (ProbeTable *t = getActiveProbeTable())
    t->stats(id, min, max, sum, count, nan);
}
static void fx_probe_nan_check(int64_t id, int64_t nonFinite) {
  if (ProbeTable *t = getActiveProbeTable())
    t->nanCheck(id, nonFinite);
}
}

llvm::ArrayRef<ProbeSymbol> mlir::fx::getProbeSymbols() {
  static const ProbeSymbol symbols[] = {
      {"fx_probe_start", reinterpret_cast<void *>(&fx_probe_start)},
      {"fx_probe_stop", reinterpret_cast<void *>(&fx_probe_stop)},
      {"fx_probe_stats", reinterpret_cast<void *>(&fx_probe_stats)},
      {"fx_probe_nan_check", reinterpret_cast<void *>(&fx_probe_nan_check)}};
  return symbols;
}
