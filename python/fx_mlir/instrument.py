"""The probes `fx-opt --fx-instrument` inserts around the nodes of a graph.

    gm = fx_mlir.transform(model, "fx-instrument{mode=time}")
    gm(x)
    print(fx_mlir.instrument.report())

Every probe is called with the instrumented node's id (its position in the
graph), name and target string, and returns None:

  - mode=time: `start(id, name, target)` before the node and
    `stop(id, name, target, result)` after it add up calls and time
    (time.perf_counter_ns) per node;
  - mode=stats: `stats(id, name, target, result)` adds up calls and, for
    tensors, min, max, mean and the number of NaNs;
  - mode=nan-check: `nan_check(id, name, target, result)` raises FxMlirError
    naming the node at the first NaN or Inf it produces.

The counts live in this module until `reset()`; `report()` formats them.
The probes are registered with torch.fx.wrap, so tracing an instrumented
GraphModule again keeps them as calls.
"""

import cmath
import math
import time

import torch
import torch.fx

from . import FxMlirError

__all__ = ["start", "stop", "stats", "nan_check", "report", "reset"]


class _TimeRecord:
    __slots__ = ("calls", "total_ns")

    def __init__(self):
        self.calls = 0
        self.total_ns = 0


class _StatsRecord:
    """Calls, and over the elements of every tensor result: the count of
    NaNs, and min, max and mean of the others."""
    __slots__ = ("calls", "elements", "total", "min", "max", "nans")

    def __init__(self):
        self.calls = 0
        self.elements = 0
        self.total = 0.0
        self.min = None
        self.max = None
        self.nans = 0

    def add(self, value):
        self.calls += 1
        if (not isinstance(value, torch.Tensor) or value.is_complex()
                or value.numel() == 0):
            return
        value = value.detach()
        if value.dtype == torch.bool:
            value = value.to(torch.uint8)
        if value.is_floating_point():
            nan = torch.isnan(value)
            nans = int(nan.sum())
            if nans:
                self.nans += nans
                value = value[~nan]
                if value.numel() == 0:
                    return
        low, high = value.min().item(), value.max().item()
        self.min = low if self.min is None else min(self.min, low)
        self.max = high if self.max is None else max(self.max, high)
        self.total += value.double().sum().item()
        self.elements += value.numel()

    @property
    def mean(self):
        return self.total / self.elements if self.elements else None


class _Recorder:
    """What the probes have seen since the last reset(), per node; a node is
    keyed by (id, name, target), so graphs that reuse ids stay apart."""

    def __init__(self):
        self.reset()

    def reset(self):
        self.times = {}
        self.stats = {}
        self.started = {}


_RECORDER = _Recorder()


@torch.fx.wrap
def start(id, name, target):
    """Before the node `name`: notes the time."""
    _RECORDER.started[(id, name, target)] = time.perf_counter_ns()


@torch.fx.wrap
def stop(id, name, target, result=None):
    """After the node `name` (`result`, its value, orders the call after the
    node): adds the time since its start() to its total."""
    now = time.perf_counter_ns()
    key = (id, name, target)
    began = _RECORDER.started.pop(key, None)
    if began is None:
        raise FxMlirError(f"fx_mlir.instrument.stop: node '{name}' (target "
                          f"'{target}') was not started")
    record = _RECORDER.times.get(key)
    if record is None:
        record = _RECORDER.times[key] = _TimeRecord()
    record.calls += 1
    record.total_ns += now - began


@torch.fx.wrap
def stats(id, name, target, result):
    """After the node `name`: adds its value `result` to its statistics."""
    key = (id, name, target)
    record = _RECORDER.stats.get(key)
    if record is None:
        record = _RECORDER.stats[key] = _StatsRecord()
    record.add(result)


def _finite(value):
    """False when `value` (a tensor, a number, or a tuple, list or dict of
    them) holds a NaN or an Inf."""
    if isinstance(value, torch.Tensor):
        if value.is_floating_point() or value.is_complex():
            return bool(torch.isfinite(value).all())
        return True
    if isinstance(value, complex):
        return cmath.isfinite(value)
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, (tuple, list)):
        return all(_finite(v) for v in value)
    if isinstance(value, dict):
        return all(_finite(v) for v in value.values())
    return True


@torch.fx.wrap
def nan_check(id, name, target, result):
    """After the node `name`: raises FxMlirError if `result` holds a NaN or
    an Inf."""
    if not _finite(result):
        raise FxMlirError(f"node '{name}' (target '{target}') produced "
                          f"NaN/Inf")


def _table(header, rows):
    """Columns padded to their widest cell; text left, numbers right."""
    cells = [header] + rows
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]

    def line(row):  # node and target are text, the other columns numbers
        return "  ".join(cell.rjust(w) if i >= 2 else cell.ljust(w)
                         for i, (cell, w) in enumerate(zip(row, widths))
                         ).rstrip()
    return "\n".join([line(header), line(["-" * w for w in widths])]
                     + [line(row) for row in rows])


def _number(value):
    if value is None:
        return "-"
    if isinstance(value, int):
        return str(value)
    return f"{value:.6g}"


def _time_report():
    items = sorted(_RECORDER.times.items(),
                   key=lambda item: (-item[1].total_ns, item[0][0]))
    grand = sum(record.total_ns for _, record in items) or 1
    rows = [[name, str(target), str(record.calls),
             f"{record.total_ns / 1e6:.3f}",
             f"{100.0 * record.total_ns / grand:.1f}"]
            for (_, name, target), record in items]
    return _table(["node", "target", "calls", "total ms", "%"], rows)


def _stats_report():
    items = sorted(_RECORDER.stats.items(), key=lambda item: item[0][:2])
    rows = [[name, str(target), str(record.calls), _number(record.min),
             _number(record.max), _number(record.mean), str(record.nans)]
            for (_, name, target), record in items]
    return _table(["node", "target", "calls", "min", "max", "mean", "nan"],
                  rows)


def report(mode=None):
    """The table of what the probes saw since the last reset():
    mode="time": node, target, calls, total ms, % of the time of all timed
    nodes, slowest first; mode="stats": node, target, calls, min, max, mean
    and NaN count, in graph order (by id). By default, the tables of the
    modes that have run (time first)."""
    if mode not in (None, "time", "stats"):
        raise ValueError(f"unknown report mode {mode!r}; expected 'time' or "
                         f"'stats'")
    tables = []
    if mode == "time" or (mode is None and _RECORDER.times):
        tables.append(_time_report())
    if mode == "stats" or (mode is None and _RECORDER.stats):
        tables.append(_stats_report())
    if not tables:
        return "no instrumented node has run"
    return "\n\n".join(tables)


def reset():
    """Forgets every count, time and statistic."""
    _RECORDER.reset()
