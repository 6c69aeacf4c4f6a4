"""fx-mlir's compiled code against PyTorch eager on CPU.

    /usr/bin/python3 bench/run.py [--threads 1,2] [--repeat N] [--quick]
                                  [--only mlp_b1,lenet] [--out DIR]

Each workload runs in a subprocess of its own (`--run-workload`), so that a
crash in compiled code is recorded rather than fatal. There it runs both
ways on the same inputs, per thread count: PyTorch eager (its BLAS and
oneDNN kernels) and `fx_mlir.compile`'s code. The outputs are compared
first, so that no time is reported for wrong code; then each side is
warmed up and timed call by call with time.perf_counter, the sides in
interleaved rounds, and the median is reported. Trace + import time and compile times (cold and warm on-disk cache) are taken once per
workload, at the first thread count; peak memory in one more subprocess per
model and side (`--memory-probe`). bench/README.md says exactly what is
measured. Results go to <out>/bench.json, bench.md and bench.png.
"""

import argparse
import datetime
import gc
import json
import math
import os
import platform
import signal
import statistics
import subprocess
import sys
import tempfile
import time

# OpenBLAS picks its kernels when torch loads it: choose the core type (only
# where this CPU needs one, bench/cpu_env.py) and the fx-mlir CPU target
# first; the script starts again if the environment changed.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cpu_env  # noqa: E402

cpu_env.prepare(sys.argv)

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torchvision  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "python"))
import fx_mlir  # noqa: E402

# Relative error (max |ours - eager| / max(1, max |eager|)) above which a
# result counts as wrong and is not timed.
TOLERANCE = 1e-3


# --- Workloads ---------------------------------------------------------------

class MatMul(nn.Module):
    def forward(self, a, b):
        return a @ b


class Add(nn.Module):
    def forward(self, x, y):
        return x + y


class UnrolledEncoderLayer(nn.Module):
    """Runs `layer` (an nn.TransformerEncoderLayer, post-norm, no masks) by
    its own blocks, as test/python/test_transform_e2e.py does: torch.fx
    cannot trace forward's choice of the fast path. Eager runs `layer`."""

    def __init__(self, layer):
        super().__init__()
        self.layer = layer

    def forward(self, x):
        layer = self.layer
        x = layer.norm1(x + layer._sa_block(x, None, None))
        return layer.norm2(x + layer._ff_block(x))


class Sequence(nn.Module):
    """A 2-layer LSTM over a sequence (batch 1), its output sequence: the
    recurrence unrolled by fx-normalize, each step's h @ w_hh^T a
    vector-matrix product (PyTorch's word language model's shape)."""

    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(128, 256, 2, batch_first=True)

    def forward(self, x):
        return self.rnn(x)[0]


def _lstm(dynamic):
    def build():
        model = Sequence().eval()
        if dynamic:  # quantize_dynamic: int8 weights, per-step int8 inputs
            model = torch.ao.quantization.quantize_dynamic(
                model, {nn.LSTM}, dtype=torch.qint8)
        return model, model, (torch.randn(1, 50, 128),)
    return build


def _matmul(m, k, n):
    return lambda: (MatMul(), MatMul(), (torch.randn(m, k), torch.randn(k, n)))


def _model(factory, *shape):
    def build():
        model = factory().eval()
        return model, model, (torch.randn(*shape),)
    return build


def _mlp():
    return nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512),
                         nn.ReLU(), nn.Linear(512, 10))


def _lenet():
    """LeNet-5 for 28x28 inputs."""
    return nn.Sequential(
        nn.Conv2d(1, 6, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(6, 16, 5),
        nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(256, 120),
        nn.ReLU(), nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, 10))


def _encoder():
    layer = nn.TransformerEncoderLayer(
        d_model=256, nhead=4, dim_feedforward=1024, activation="gelu",
        batch_first=True, dropout=0.0).eval()
    x = torch.randn(1, 128, 256)
    return layer, UnrolledEncoderLayer(layer).eval(), (x,)


def _decoder_step():
    """One decoding step of a transformer decoder layer: one query row
    attending to itself and to 16 rows of memory, every product a
    vector-matrix one with a constant weight (the query, key and value
    weights sliced out of in_proj_weight)."""
    layer = nn.TransformerDecoderLayer(
        d_model=512, nhead=8, dim_feedforward=2048, batch_first=True,
        dropout=0.0).eval()
    inputs = (torch.randn(1, 1, 512), torch.randn(1, 16, 512))
    return layer, layer, inputs


class RNNLoop(nn.Module):
    """A recurrent cell stepped over its input sequence in a Python loop
    (data-dependent control flow: the trip count is the input's length)."""

    def __init__(self, hidden=64):
        super().__init__()
        self.ih = nn.Linear(hidden, hidden)
        self.hh = nn.Linear(hidden, hidden)
        self.hidden = hidden

    def forward(self, xs):
        h = torch.zeros(xs.size(1), self.hidden)
        for t in range(xs.size(0)):
            h = torch.tanh(self.ih(xs[t]) + self.hh(h))
        return h


def _rnn():
    # Compiled from torch.jit.script (its loop one scf loop), not traced
    # by torch.fx (which unrolls the 100 steps); compared with eager and
    # with the same module scripted (frozen TorchScript).
    model = RNNLoop().eval()
    return model, torch.jit.script(model), (torch.randn(100, 1, 64),)


def _int8(factory, *shape, engine=None):
    """A model from FX graph-mode quantization (prepare_fx with the default
    qconfig of the CPU's quantized engine (x86's where the engine saturates
    8-bit activations), calibrated on four random
    batches, convert_fx): eager is PyTorch's quantized engine running it.
    Its output step (the scale of the final dequantize's input) bounds the
    check: the compiled output is within a few steps of the engine's
    (docs/Quantization.md)."""
    def build():
        from torch.ao.quantization import get_default_qconfig_mapping
        from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx
        engines = torch.backends.quantized.supported_engines
        chosen = engine or ("onednn" if "onednn" in engines else "qnnpack")
        torch.backends.quantized.engine = chosen
        # Where the engine does not sum full-range activations exactly
        # (onednn without VNNI), x86's qconfig: 7-bit activations
        # (reduce_range), as PyTorch asks for on such CPUs.
        qconfig = chosen if fx_mlir.exact_quantized_engine() == chosen \
            else "x86"
        model = factory().eval()
        inputs = (torch.randn(*shape),)
        prepared = prepare_fx(model, get_default_qconfig_mapping(qconfig),
                              inputs)
        with torch.no_grad():
            for _ in range(4):
                prepared(torch.randn(*shape))
        converted = convert_fx(prepared).eval()
        final = [n for n in converted.graph.nodes if n.op == "output"][0]
        source = final.args[0].args[0]
        converted._bench_step = converted.get_submodule(source.target).scale
        return converted, converted, inputs
    return build


def _add16():
    # Eager is the bare `x + y`, without nn.Module.__call__.
    return (lambda x, y: x + y), Add(), (torch.randn(16), torch.randn(16))


# name -> (build, info). build() gives (eager callable, module to compile,
# inputs); info: flops (matmuls), model (in the geometric mean, memory and
# compile-time tables), torchscript (also time frozen TorchScript).
WORKLOADS = {
    "matmul_256": (_matmul(256, 256, 256), {"flops": 2 * 256 ** 3}),
    "matmul_1024": (_matmul(1024, 1024, 1024), {"flops": 2 * 1024 ** 3}),
    "matmul_1024x4096x1024": (_matmul(1024, 4096, 1024),
                              {"flops": 2 * 1024 * 4096 * 1024}),
    "mlp_b1": (_model(_mlp, 1, 784), {"model": True}),
    "mlp_b64": (_model(_mlp, 64, 784), {"model": True}),
    "lenet": (_model(_lenet, 1, 1, 28, 28), {"model": True}),
    "resnet18_b1": (_model(torchvision.models.resnet18, 1, 3, 224, 224),
                    {"model": True, "torchscript": True}),
    "resnet18_b8": (_model(torchvision.models.resnet18, 8, 3, 224, 224),
                    {"model": True}),
    "mobilenet_v2_b1": (_model(torchvision.models.mobilenet_v2, 1, 3, 224,
                               224), {"model": True}),
    "resnet18_int8_b1": (_int8(lambda: torchvision.models.quantization.
                               resnet18(weights=None, quantize=False),
                               1, 3, 224, 224), {"model": True}),
    "mobilenet_v2_int8_b1": (_int8(lambda: torchvision.models.quantization.
                                   mobilenet_v2(weights=None,
                                                quantize=False),
                                   1, 3, 224, 224),
                             {"model": True}),
    "encoder_s128": (_encoder, {"model": True}),
    "decoder_step_m16": (_decoder_step, {"model": True}),
    "rnn_cell_h64_s100": (_rnn, {"model": True, "torchscript": True}),
    "lstm_h256_s50": (_lstm(False), {"model": True}),
    "lstm_dynamic_h256_s50": (_lstm(True), {"model": True}),
    "add16": (_add16, {}),
}


def build(name):
    """The workload `name`, built with a fixed seed."""
    torch.manual_seed(0)
    return WORKLOADS[name][0]()


# --- Timing one workload (in its subprocess) ---------------------------------

def log(*args):
    print(*args, file=sys.stderr, flush=True)


def set_threads(n):
    """Sets PyTorch's and, when it can, fx-mlir's thread counts to n."""
    torch.set_num_threads(n)
    if hasattr(fx_mlir, "set_num_threads"):
        fx_mlir.set_num_threads(n)


def rel_error(got, expected):
    """(max abs error, max abs error / max(1, max |expected|))."""
    err = (got - expected).abs().max().item()
    return err, err / max(1.0, expected.abs().max().item())


def error_text(e):
    return f"{type(e).__name__}: {str(e).strip()}"[:2000]


ROUNDS = 5
SWITCH_S = 0.02


def median_times(fns, inputs, cfg):
    """[(median seconds per call, timed calls)] of each fn(*inputs). Warms
    each up for cfg.warmup_calls calls and cfg.warmup_s seconds (cut off
    after cfg.max_s), then times them in ROUNDS interleaved rounds, each
    side per round cfg.repeat / ROUNDS calls, or adaptively until
    cfg.min_runs / ROUNDS calls and cfg.min_s / ROUNDS seconds (stopping
    after cfg.max_s / ROUNDS once cfg.floor_runs / ROUNDS calls are in).
    Interleaved, a slow spell of the machine (other tenants of a shared
    host) falls on every side alike instead of on whichever was being
    timed, and the ratios between them hold. Each side's round starts
    with SWITCH_S seconds of untimed calls."""
    clock = time.perf_counter
    for fn in fns:
        start, calls = clock(), 0
        while calls < cfg.warmup_calls or clock() - start < cfg.warmup_s:
            fn(*inputs)
            calls += 1
            if clock() - start >= cfg.max_s:
                break
    times = [[] for _ in fns]
    per = lambda x: x / ROUNDS  # noqa: E731
    for _ in range(ROUNDS):
        for fn, out in zip(fns, times):
            # Untimed, while the other side's idle threads still spin
            # (OpenMP's and ours wait busily for a while after a call).
            start = clock()
            fn(*inputs)
            while len(fns) > 1 and clock() - start < SWITCH_S:
                fn(*inputs)
            start, runs = clock(), 0
            while True:
                t0 = clock()
                fn(*inputs)
                out.append(clock() - t0)
                runs += 1
                elapsed = clock() - start
                if cfg.repeat:
                    if runs >= max(1, -(-cfg.repeat // ROUNDS)):
                        break
                elif (runs >= per(cfg.min_runs) and
                      elapsed >= per(cfg.min_s)) or \
                        (runs >= per(cfg.floor_runs) and
                         elapsed >= per(cfg.max_s)):
                    break
    return [(statistics.median(t), len(t)) for t in times]


def median_time(fn, inputs, cfg):
    """median_times of one function."""
    return median_times([fn], inputs, cfg)[0]


def compile_timed(module, inputs, cache_dir):
    """(compiled, seconds, cached): fx_mlir.compile with its on-disk cache
    in cache_dir, or without when it has no such option (cached False)."""
    t0 = time.perf_counter()
    try:
        compiled = fx_mlir.compile(module, inputs, cache_dir=cache_dir)
        return compiled, time.perf_counter() - t0, True
    except TypeError as e:
        if "cache_dir" not in str(e):
            raise
    t0 = time.perf_counter()
    compiled = fx_mlir.compile(module, inputs)
    return compiled, time.perf_counter() - t0, False


def import_seconds(module, inputs):
    """Seconds fx_mlir takes to trace `module` and import it with the
    inputs' types (shape propagation included; weights handed over as
    memory, as compile does), or None if it cannot."""
    try:
        t0 = time.perf_counter()
        if isinstance(module, torch.jit.ScriptModule):
            with torch.no_grad():
                fx_mlir.import_torchscript(module, inputs)
            return time.perf_counter() - t0
        gm = fx_mlir.compiler.trace(module, inputs)
        with torch.no_grad():
            fx_mlir.import_graph_module(gm, inputs, blobs={})
        return time.perf_counter() - t0
    except Exception:  # noqa: BLE001 - an older fx_mlir, or no trace
        return None


def compile_workload(name, eager, module, inputs, rec):
    """Compiles twice into one fresh cache directory (cold, then warm; the
    warm result is checked against eager), recording both times in rec;
    returns the cold result, None when compiling failed."""
    with tempfile.TemporaryDirectory(prefix="fx-mlir-bench-") as cache:
        try:
            compiled, rec["compile_cold_s"], cached = compile_timed(
                module, inputs, cache)
        except Exception as e:
            rec["error"] = error_text(e)
            log(f"  {name}: compile failed: {rec['error'][:300]}")
            return None
        rec["compile_warm_s"] = None
        rec["import_s"] = import_seconds(module, inputs)
        if cached:
            try:
                warm, rec["compile_warm_s"], _ = compile_timed(
                    module, inputs, cache)
                with torch.no_grad():
                    rec["warm_rel_error"] = rel_error(warm(*inputs),
                                                      eager(*inputs))[1]
                if rec["warm_rel_error"] > TOLERANCE and not hasattr(
                        eager, "_bench_step"):
                    log(f"  {name}: WRONG RESULT from the warm cache")
            except Exception as e:
                rec["compile_warm_error"] = error_text(e)
    return compiled


def check_compiled(name, compiled, eager, inputs, row):
    """Whether compiled matches eager on inputs; records the error and why
    not in row."""
    try:
        row["max_abs_error"], row["rel_error"] = rel_error(compiled(*inputs),
                                                           eager(*inputs))
        log(f"  {name}: max abs error {row['max_abs_error']:.3g} "
            f"(relative {row['rel_error']:.3g})")
        step = getattr(eager, "_bench_step", None)
        if step is not None:
            # A quantized model: within 8 output steps of the engine's.
            row["error_steps"] = row["max_abs_error"] / step
            if row["error_steps"] > 8:
                row["error"] = (f"wrong result: {row['error_steps']:.3g} "
                                f"quantization steps from the engine's")
                log(f"  {name}: WRONG RESULT, not timed")
                return False
            return True
        if row["rel_error"] > TOLERANCE:
            row["error"] = (f"wrong result: relative error "
                            f"{row['rel_error']:.3g} > {TOLERANCE}")
            log(f"  {name}: WRONG RESULT, not timed")
            return False
        return True
    except Exception as e:
        row["error"] = error_text(e)
        log(f"  {name}: run failed: {row['error'][:300]}")
        return False


def torchscript(model, inputs):
    """Frozen, inference-optimized TorchScript of model (scripted, or traced
    if scripting fails)."""
    try:
        scripted = torch.jit.script(model)
    except Exception:
        scripted = torch.jit.trace(model, inputs)
    return torch.jit.optimize_for_inference(torch.jit.freeze(scripted))


def run_workload(name, cfg):
    """Builds, compiles (at the first thread count), checks and times one
    workload at each thread count. Prints its record as a JSON line after
    each step, the parent keeping the last if compiled code crashes;
    exceptions on our side are recorded, not raised."""
    eager, module, inputs = build(name)
    info = WORKLOADS[name][1]
    rec = {"threads": {}}
    set_threads(cfg.threads[0])
    compiled = compile_workload(name, eager, module, inputs, rec)
    print(json.dumps(rec), flush=True)
    ts = None
    if info.get("torchscript"):
        try:
            with torch.no_grad():
                ts = torchscript(eager, inputs)
        except Exception as e:
            rec["torchscript_error"] = error_text(e)
    for n in cfg.threads:
        set_threads(n)
        row = rec["threads"][str(n)] = {}
        with torch.no_grad():
            # Eager, TorchScript and ours timed in interleaved rounds, ours
            # only once it matches eager.
            sides = [("eager", eager)]
            if ts is not None:
                sides.append(("torchscript", ts))
            if compiled is not None and check_compiled(
                    f"{name}, {n} thread(s)", compiled, eager, inputs, row):
                sides.append(("fxmlir", compiled))
            print(json.dumps(rec), flush=True)
            try:
                timed = median_times([fn for _, fn in sides], inputs, cfg)
            except Exception as e:
                # Ours crashing mid-timing: eager alone, the error kept.
                row["error"] = error_text(e)
                try:
                    sides, timed = sides[:1], [median_time(eager, inputs,
                                                           cfg)]
                except Exception as e:
                    # Eager itself failing: PyTorch's onednn int8
                    # mobilenet_v2 run at 1 thread, then at 2 ("could not
                    # create a primitive descriptor for a reorder
                    # primitive"). The same model built anew at this
                    # thread count (same seed: the same quantized
                    # weights and scales) runs; ours is checked against
                    # it and both are timed again.
                    sides, timed = retry_fresh_eager(name, compiled, inputs,
                                                     cfg, n, row, e)
            for (side, _), (seconds, runs) in zip(sides, timed):
                row[f"{side}_s"] = seconds
                if side != "torchscript":
                    row[f"{side}_runs"] = runs
        if "fxmlir_s" in row:
            row["speedup"] = row["eager_s"] / row["fxmlir_s"]
            if "flops" in info:
                row["eager_gflops"] = info["flops"] / row["eager_s"] / 1e9
                row["fxmlir_gflops"] = info["flops"] / row["fxmlir_s"] / 1e9
            if ts is not None:
                row["speedup_vs_torchscript"] = (row["torchscript_s"] /
                                                 row["fxmlir_s"])
    print(json.dumps(rec))


def retry_fresh_eager(name, compiled, inputs, cfg, threads, row, error):
    """(sides, timed) of eager built anew (after `error` from the first
    eager at this thread count) and, if it matches, ours; ([], []) with
    row["error"] set when the new eager fails too."""
    try:
        eager, _, _ = build(name)
        sides = [("eager", eager)]
        row.pop("error", None)
        if compiled is not None and check_compiled(
                f"{name}, {threads} thread(s), eager built anew", compiled,
                eager, inputs, row):
            sides.append(("fxmlir", compiled))
        row["eager_rebuilt"] = error_text(error)
        return sides, median_times([fn for _, fn in sides], inputs, cfg)
    except Exception as e:
        row["error"] = "eager: " + error_text(e)
        return [], []


# --- Peak memory (in a subprocess per model and side) ------------------------

def _status_kib(field):
    """A field of /proc/self/status (VmRSS, VmHWM) in KiB."""
    return next(int(line.split()[1]) for line in open("/proc/self/status")
                if line.startswith(field + ":"))


def memory_probe(name, side, threads):
    """Prints (as one JSON line) the peak RSS growth in MiB while running
    `name` eagerly or compiled: VmRSS is read after the imports (torch,
    torchvision, fx_mlir and its runtime library, on both sides), before
    the model is built; after 2 warm-up calls the high-water mark is reset
    (clear_refs) and the workload runs 5 times; the result is VmHWM minus
    that VmRSS. The compiled side drops the eager model after compiling."""
    set_threads(threads)
    before = _status_kib("VmRSS")
    fx_mlir.compiler._load_runtime()  # its libraries count as imports
    base = _status_kib("VmRSS")
    eager, module, inputs = build(name)
    fn = eager
    if side == "fxmlir":
        fn = fx_mlir.compile(module, inputs)
        del eager, module  # the compiled code holds its own weights
        gc.collect()
    with torch.no_grad():
        for _ in range(2):
            fn(*inputs)
        try:
            with open("/proc/self/clear_refs", "w") as f:
                f.write("5")
            reset = True
        except OSError:
            reset = False
        for _ in range(5):
            fn(*inputs)
    hwm = _status_kib("VmHWM")
    print(json.dumps({"baseline_rss_mib": base / 1024,
                      "runtime_load_mib": (base - before) / 1024,
                      "peak_mib": (hwm - base) / 1024, "hwm_reset": reset}))


# --- Driving the subprocesses ------------------------------------------------

def child(*args, timeout=3600, env=None):
    """(the JSON record the subprocess `run.py *args` printed last or None,
    None or why it failed); its stderr (progress) passes through. `env`:
    variables to set for it."""
    try:
        p = subprocess.run([sys.executable, os.path.abspath(__file__), *args],
                           stdout=subprocess.PIPE, text=True, timeout=timeout,
                           env=dict(os.environ, **(env or {})))
    except subprocess.TimeoutExpired:
        return None, f"subprocess timed out after {timeout} s"
    lines = p.stdout.strip().splitlines()
    record = json.loads(lines[-1]) if lines else None
    if p.returncode == 0:
        return record, None
    status = (signal.Signals(-p.returncode).name if p.returncode < 0
              else f"exit status {p.returncode}")
    return record, f"subprocess died: {status}"


def measure_memory(name, threads):
    """{eager_mib, fxmlir_mib, ratio, and each side's probe}; a failing side
    is recorded as its error. The compiled side runs twice with one fresh
    code cache: cold (compiling in the process, `fxmlir_cold_mib`), then
    warm (the code loaded from the cache, as a deployed model would be:
    `fxmlir_mib`)."""
    rec = {}
    with tempfile.TemporaryDirectory(prefix="fx-mlir-bench-mem-") as cache:
        for side, key in (("eager", "eager"), ("fxmlir", "fxmlir_cold"),
                          ("fxmlir", "fxmlir")):
            probe, error = child("--memory-probe", name, side, "--threads",
                                 str(threads), timeout=900,
                                 env={"FX_MLIR_CACHE_DIR": cache})
            if error:
                rec[f"{key}_error"] = error
            else:
                rec[key], rec[f"{key}_mib"] = probe, probe["peak_mib"]
    if rec.get("eager_mib", 0) > 0 and "fxmlir_mib" in rec:
        rec["ratio"] = rec["fxmlir_mib"] / rec["eager_mib"]
    return rec


# --- Reporting ---------------------------------------------------------------

def machine():
    """CPU, cores, memory, BLAS, versions, date, git commit and load."""
    def run(*cmd):
        try:
            return subprocess.run(cmd, capture_output=True, text=True,
                                  cwd=REPO).stdout.strip()
        except OSError:
            return ""
    cpu = next((line.split(":", 1)[1].strip()
                for line in open("/proc/cpuinfo")
                if line.startswith("model name")), platform.processor())
    mem = next(int(line.split()[1]) for line in open("/proc/meminfo")
               if line.startswith("MemTotal"))
    blas = sorted({os.path.realpath(line.split()[-1])
                   for line in open("/proc/self/maps")
                   if "blas" in os.path.basename(line.split()[-1])})
    return {"cpu": cpu, "cores": os.cpu_count(),
            "memory_gib": round(mem / 2 ** 20, 1), "blas": blas,
            "lscpu": run("lscpu"), "python": platform.python_version(),
            "torch": torch.__version__, "torchvision": torchvision.__version__,
            **cpu_env.describe(),
            "date": datetime.datetime.now().astimezone().isoformat(
                timespec="seconds"),
            "git_commit": run("git", "rev-parse", "HEAD"),
            "git_dirty": bool(run("git", "status", "--porcelain")),
            "load_average_start": os.getloadavg()}


def _ms(s):
    return None if s is None else float(f"{s * 1e3:.4g}")


def tables(results):
    """(speed rows, per-model rows) for tabulate."""
    speed, models = [], []
    for name, rec in results.items():
        n0, first = next(iter(rec["threads"].items()), (None, {}))
        for n, row in rec["threads"].items():
            notes = []
            # More threads should not be much slower: if so, another
            # process probably holds a core.
            for side in ("eager", "fxmlir"):
                slower = row.get(f"{side}_s", 0) / first.get(f"{side}_s", 1)
                if slower > 1.5:
                    notes.append(f"{side} {slower:.1f}x slower than at {n0} "
                                 "thread(s): CPU contention?")
            if "fxmlir_gflops" in row:
                frac = row["fxmlir_gflops"] / row["eager_gflops"]
                notes.append(f"GFLOPS {row['eager_gflops']:.1f} vs "
                             f"{row['fxmlir_gflops']:.1f} ({frac:.0%} of "
                             "PyTorch's BLAS)")
            if name == "add16" and "fxmlir_s" in row:
                notes.append(f"per call: eager {row['eager_s'] * 1e6:.1f} us,"
                             f" fx-mlir {row['fxmlir_s'] * 1e6:.1f} us")
            if "speedup_vs_torchscript" in row:
                notes.append(f"TorchScript {_ms(row['torchscript_s'])} ms, "
                             f"{row['speedup_vs_torchscript']:.2f}x vs it")
            err = row.get("error") or rec.get("error")
            if err:
                notes.append("FAILED: " + err.splitlines()[0][:80])
            speedup = row.get("speedup")
            speed.append([name, n, _ms(row.get("eager_s")),
                          _ms(row.get("fxmlir_s")),
                          speedup and f"{speedup:.2f}x", "; ".join(notes)])
        if not rec["threads"]:
            speed.append([name, None, None, None, None,
                          "FAILED: " + rec["error"][:80]])
        if WORKLOADS[name][1].get("model"):
            mem = rec.get("memory", {})
            models.append([name, rec.get("import_s"),
                           rec.get("compile_cold_s"),
                           rec.get("compile_warm_s"), mem.get("eager_mib"),
                           mem.get("fxmlir_mib"), mem.get("ratio"),
                           mem.get("fxmlir_cold_mib")])
    return speed, models


SPEED_HEADERS = ["workload", "threads", "eager ms", "fx-mlir ms", "speedup",
                 "notes"]
MODEL_HEADERS = ["model", "trace + import s", "compile s (cold)",
                 "compile s (warm)",
                 "peak MiB eager", "peak MiB fx-mlir", "memory ratio",
                 "peak MiB fx-mlir, compiled in process"]


def geomeans(results, threads):
    """Per thread count: the geometric mean of the models' speedups, over
    the models that ran, and the models missing (failed or not selected)."""
    out = {}
    for n in map(str, threads):
        got, missing = [], []
        for name, (_, info) in WORKLOADS.items():
            if info.get("model"):
                row = results.get(name, {}).get("threads", {}).get(n, {})
                if "speedup" in row:
                    got.append(row["speedup"])
                else:
                    missing.append(name)
        mean = math.exp(statistics.fmean(map(math.log, got))) if got else None
        out[n] = {"geomean_speedup": mean, "models": len(got),
                  "missing": missing}
    return out


def summary(report, tablefmt):
    """The machine, the tables and the geometric means as text (tabulate's
    `tablefmt`: "github" for bench.md)."""
    from tabulate import tabulate
    m = report["machine"]
    speed, models = tables(report["workloads"])
    lines = [
        f"Machine: {m['cpu']}, {m['cores']} cores, {m['memory_gib']} GiB; "
        f"torch {m['torch']}, BLAS "
        f"{', '.join(os.path.join(*b.split('/')[-2:]) for b in m['blas'])}, "
        f"OPENBLAS_CORETYPE={m['openblas_coretype']} (OpenBLAS runs "
        f"{m.get('openblas_corename')}: {m.get('openblas_coretype_reason')}); "
        f"{'oneDNN held to ' + m['onednn_max_cpu_isa'] + '; ' if m.get('onednn_max_cpu_isa') else ''}"
        f"fx-mlir CPU target {m.get('fx_mlir_cpu', 'host')}; {m['date']}, "
        f"commit {m['git_commit'][:12]}"
        f"{' (dirty)' if m['git_dirty'] else ''}.",
        "", tabulate(speed, SPEED_HEADERS, tablefmt=tablefmt, missingval="-"),
        ""]
    for n, g in report["geomean"].items():
        mean = g["geomean_speedup"]
        lines.append(f"Geometric mean speedup, {n} thread(s): "
                     f"{'-' if mean is None else f'{mean:.2f}x'} over "
                     f"{g['models']} models"
                     + (f" (missing: {', '.join(g['missing'])})"
                        if g["missing"] else "") + ".")
    if models:
        lines += ["", tabulate(models, MODEL_HEADERS, tablefmt=tablefmt,
                               missingval="-", floatfmt=".2f")]
    return "\n".join(lines) + "\n"


def plot(results, threads, path):
    """Grouped bars: speedup over eager per workload, one bar per thread
    count (none where our side failed), log scale, lines at 1.0 and 1.5."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter
    names = list(results)
    width = 0.8 / len(threads)
    fig, ax = plt.subplots(figsize=(max(6, 0.9 * len(names) + 2), 4.5))
    for i, n in enumerate(threads):
        values = [results[k]["threads"].get(str(n), {}).get("speedup",
                                                            math.nan)
                  for k in names]
        ax.bar([j + (i - (len(threads) - 1) / 2) * width
                for j in range(len(names))], values, width,
               label=f"{n} thread{'s' if n > 1 else ''}")
    ax.axhline(1.0, color="black", linewidth=1)
    ax.axhline(1.5, color="green", linewidth=1, linestyle="--", label="1.5x")
    ax.set_yscale("log")
    ax.yaxis.set_major_locator(LogLocator(subs=(1, 2, 5)))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}x"))
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(names, rotation=30, ha="right")
    ax.set_ylabel("speedup over PyTorch eager")
    ax.set_title("fx-mlir vs PyTorch eager (no bar: failed)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


# --- Main --------------------------------------------------------------------

def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--threads", default="1,2",
                   help="comma-separated thread counts (default 1,2)")
    p.add_argument("--repeat", type=int, default=0,
                   help="timed calls per measurement (default: adaptive)")
    p.add_argument("--only", default="",
                   help="comma-separated workloads: " + ", ".join(WORKLOADS))
    p.add_argument("--out", default=os.path.join(REPO, "docs", "performance"),
                   help="output directory (default docs/performance)")
    p.add_argument("--quick", action="store_true",
                   help="smoke run: short warm-up, few timed calls")
    p.add_argument("--cpu", default=None,
                   help="fx-mlir's CPU target (x86-64-v3 for AVX2 code, "
                        "x86-64-v4, znver4, ...; default: host); with an "
                        "AVX2 target on an AVX-512 host, eager runs "
                        "OpenBLAS's Haswell kernels")
    p.add_argument("--run-workload", help=argparse.SUPPRESS)
    p.add_argument("--memory-probe", nargs=2, help=argparse.SUPPRESS)
    args = p.parse_args()
    args.threads = [int(t) for t in args.threads.split(",")]
    args.only = [w for w in args.only.split(",") if w] or list(WORKLOADS)
    unknown = [w for w in args.only if w not in WORKLOADS]
    if unknown:
        p.error(f"unknown workloads {', '.join(unknown)}; "
                f"choose from {', '.join(WORKLOADS)}")
    # Timing settings (see median_time).
    args.warmup_calls, args.warmup_s = (1, 0.05) if args.quick else (3, 0.2)
    args.min_runs, args.min_s = (3, 0.05) if args.quick else (10, 0.5)
    args.max_s, args.floor_runs = (0.5, 1) if args.quick else (10.0, 3)
    return args


def main():
    args = parse_args()
    if args.run_workload:
        return run_workload(args.run_workload, args)
    if args.memory_probe:
        return memory_probe(*args.memory_probe, args.threads[0])
    report = {"machine": machine()}
    load = report["machine"]["load_average_start"][0]
    if load > 0.5:
        log(f"warning: load average {load:.2f}: something else is running; "
            "timings will be noisy")
    if not hasattr(fx_mlir, "set_num_threads"):
        log("warning: fx_mlir.set_num_threads is missing; fx-mlir runs with "
            "its default thread count")
    options = ["--threads", ",".join(map(str, args.threads)),
               "--repeat", str(args.repeat)] + ["--quick"] * args.quick
    results = {}
    for name in args.only:
        log(f"{name}: compiling, checking, timing")
        rec, error = child("--run-workload", name, *options)
        results[name] = rec or {"threads": {}}
        if error:
            results[name]["error"] = error
            log(f"  {name}: {error}")
        if WORKLOADS[name][1].get("model"):
            log(f"{name}: peak memory")
            results[name]["memory"] = measure_memory(name, args.threads[0])
    report["machine"]["load_average_end"] = os.getloadavg()
    settings = {k: getattr(args, k) for k in (
        "threads", "repeat", "quick", "warmup_calls", "warmup_s", "min_runs",
        "min_s", "max_s", "floor_runs")}
    report.update(settings=dict(settings, tolerance=TOLERANCE),
                  workloads=results, geomean=geomeans(results, args.threads))
    print("\n" + summary(report, "simple"))
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "bench.json"), "w") as f:
        json.dump(report, f, indent=1)
    with open(os.path.join(args.out, "bench.md"), "w") as f:
        f.write(summary(report, "github"))
    plot(results, args.threads, os.path.join(args.out, "bench.png"))
    print(f"wrote bench.json, bench.md and bench.png to {args.out}")


if __name__ == "__main__":
    main()
