#!/usr/bin/python3
"""Runs the end-to-end cases of cases.py: compiled outputs against eager.

    /usr/bin/python3 test/e2e/run_e2e.py [-k SUBSTRING] [--list] [-v]
                                         [--jobs N] [--timeout SECONDS]

For each case: build the module and its inputs, run it eagerly under
torch.no_grad(), compile it with fx_mlir.compile(model, inputs,
dynamic_batch=case.dynamic_batch), call the compiled callable on the same
inputs (outside no_grad, as a user would) and compare every output: same
structure (tuples and lists alike), shapes and dtypes, floats within
rtol=1e-4, atol=1e-5 (float32; float64 uses rtol=atol=1e-7) unless the case
carries a justified Tolerance, integers and bools exactly. A dynamic-batch
case is then also run, with the same compiled callable, on new inputs at
each of its other batch sizes. Neither compiling nor running may modify the
inputs or the model's state.

Each case runs in a worker process (`--jobs N` of them, spawn context,
torch.set_num_threads(1)), so a crash or a hang (`--timeout`, per case)
fails that case only; `--jobs 0` runs in this process (for debugging).

xfail.txt (next to this script, or --xfail FILE) lists the cases expected
to fail, one `name  # reason` a line; a listed case that passes is reported
as unexpectedly passed and counts as a failure, and an unknown name is an
error. One line is printed per failure; the last line is
`N passed, M failed` (plus `, K expected failures` when K > 0). The exit
code is 0 iff M == 0 (2 for a bad command line or xfail file).

`--compiler MODULE:FUNCTION` replaces fx_mlir.compile by another function
with its signature (e.g. a stand-in that only traces, to check the cases).
"""

import argparse
import importlib
import multiprocessing
import multiprocessing.connection
import os
import signal
import sys
import time
import warnings

_HERE = os.path.dirname(os.path.abspath(__file__))
_REPO = os.path.dirname(os.path.dirname(_HERE))
for _path in (_HERE, os.path.join(_REPO, "python")):
    if _path not in sys.path:
        sys.path.insert(0, _path)

import torch  # noqa: E402

import cases as case_registry  # noqa: E402

# Default bounds per float dtype: (rtol, atol).
TOLERANCES = {
    torch.float32: (1e-4, 1e-5),
    torch.float64: (1e-7, 1e-7),
}
DEFAULT_COMPILER = "fx_mlir:compile"
MAX_REASON = 400


# --- Comparison. -------------------------------------------------------------

class Mismatch(Exception):
    """An output differs from eager's; the message says where and how."""


def _flatten(value, path="output"):
    """(path, tensor) pairs of a tensor or a (nested) tuple/list of them;
    a Python number or bool (a size the graph returns) as a 0-d tensor of
    its own type, so that it is compared exactly."""
    if isinstance(value, torch.Tensor):
        return [(path, value)]
    if isinstance(value, (bool, int, float)):
        return [(path, torch.tensor(value))]
    if isinstance(value, (tuple, list)):
        pairs = []
        for i, item in enumerate(value):
            pairs.extend(_flatten(item, f"{path}[{i}]"))
        return pairs
    if isinstance(value, dict):
        pairs = []
        for key, item in value.items():
            pairs.extend(_flatten(item, f"{path}[{key!r}]"))
        return pairs
    raise Mismatch(f"{path} is a {type(value).__name__}, not a tensor")


def _structure(value):
    """The nesting of `value`, e.g. `(tensor, (tensor, int))`; tuples and
    lists alike, dicts (OrderedDict alike) with their keys in order."""
    if isinstance(value, dict):
        inner = ", ".join(f"{k!r}: {_structure(v)}" for k, v in value.items())
        return f"{{{inner}}}"
    if isinstance(value, (tuple, list)):
        inner = ", ".join(_structure(item) for item in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    return "tensor" if isinstance(value, torch.Tensor) else \
        type(value).__name__


def _show(value):
    return f"{value.item():.6g}" if value.is_floating_point() else \
        str(value.item())


def compare(expected, actual, tolerance=None):
    """Raises Mismatch unless `actual` matches the eager output `expected`."""
    if _structure(expected) != _structure(actual):
        raise Mismatch(f"output is {_structure(actual)}, expected "
                       f"{_structure(expected)}")
    for (path, want), (_, got) in zip(_flatten(expected), _flatten(actual)):
        got = got.detach()
        if got.dtype != want.dtype:
            raise Mismatch(f"{path} has dtype {got.dtype}, expected "
                           f"{want.dtype}")
        if got.shape != want.shape:
            raise Mismatch(f"{path} has shape {tuple(got.shape)}, expected "
                           f"{tuple(want.shape)}")
        if got.device != want.device:
            raise Mismatch(f"{path} is on {got.device}, expected "
                           f"{want.device}")
        if want.is_floating_point() or want.is_complex():
            if tolerance is not None:
                rtol, atol = tolerance.rtol, tolerance.atol
            else:
                rtol, atol = TOLERANCES.get(want.dtype, (1e-4, 1e-5))
            close = torch.isclose(got, want, rtol=rtol, atol=atol,
                                  equal_nan=True)
        else:
            close = got == want
        if not bool(close.all()):
            bad = (~close).nonzero()
            index = tuple(bad[0].tolist())
            message = (f"{path}: {bad.shape[0]}/{want.numel()} elements "
                       f"differ; at {index} got {_show(got[index])}, expected "
                       f"{_show(want[index])}")
            if want.is_floating_point():
                diff = (got.double() - want.double()).abs()
                diff = torch.where(torch.isnan(diff), torch.full_like(
                    diff, float("inf")), diff)
                message += f"; max abs diff {diff.max().item():.3g}"
            raise Mismatch(message)


# --- Running one case. -------------------------------------------------------

def _one_line(text):
    """The first non-empty line of `text`, shortened."""
    lines = [line.strip() for line in str(text).splitlines() if line.strip()]
    line = lines[0] if lines else ""
    return line if len(line) <= MAX_REASON else line[:MAX_REASON - 3] + "..."


def _describe(error):
    if isinstance(error, Mismatch):
        return _one_line(error)
    message = _one_line(error)
    return f"{type(error).__name__}: {message}" if message else \
        type(error).__name__


def _clone(inputs):
    return tuple(t.clone() for t in inputs)


def _snapshot(value):
    """A copy of a state_dict value: tensors cloned; a quantized module's
    packed-params entries (tuples of tensors, dtypes) copied as they are."""
    if isinstance(value, torch.Tensor):
        return value.clone()
    if isinstance(value, (tuple, list)):
        return type(value)(_snapshot(v) for v in value)
    return value


def _same_state(a, b):
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        return _same_tensor(a, b)
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(map(_same_state, a, b))
    if isinstance(a, torch.ScriptObject):  # packed weights: the same ones
        return a is b
    return type(a) is type(b) and a == b


def _same_tensor(a, b):
    """Bitwise-equal values (NaNs equal), dtype and shape."""
    if a.is_quantized or b.is_quantized:
        return a.is_quantized == b.is_quantized and torch.equal(a, b)
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.is_floating_point():
        return torch.equal(torch.isnan(a), torch.isnan(b)) and \
            torch.equal(a.nan_to_num(), b.nan_to_num())
    return torch.equal(a, b)


def _load_compiler(spec):
    module_name, _, attr = spec.partition(":")
    module = importlib.import_module(module_name)
    return getattr(module, attr or "compile")


def run_case(name, compiler_spec):
    """Runs one case; returns (name, passed, reason, seconds)."""
    start = time.monotonic()
    case = case_registry.CASES_BY_NAME[name]
    stage = "loading the compiler"
    try:
        compile_fn = _load_compiler(compiler_spec)
        stage = "building the model"
        model = case.make_model()
        if any(m.training for m in model.modules()):
            raise RuntimeError("the model is in training mode")
        state = {k: _snapshot(v) for k, v in model.state_dict().items()}
        compiled = None
        for run, (seed, batch) in enumerate(case.runs()):
            where = "" if batch is None else f" (batch {batch})"
            stage = "building inputs" + where
            inputs = case.make_inputs(seed, batch)
            stage = "running eager" + where
            with torch.no_grad():
                expected = model(*_clone(inputs))
            if run == 0:
                stage = "compiling"
                compiled = compile_fn(model, _clone(inputs),
                                      dynamic_batch=case.dynamic_batch)
            stage = "running compiled" + where
            given = _clone(inputs)
            actual = compiled(*given)
            if not all(map(_same_tensor, inputs, given)):
                raise RuntimeError("the compiled callable modified its "
                                   "inputs")
            stage = "comparing" + where
            compare(expected, actual, case.tolerance)
        # Later eager runs use the model: compiling must leave it alone.
        stage = "checking the model"
        after = model.state_dict()
        if after.keys() != state.keys() or not all(
                _same_state(state[k], after[k]) for k in state) or any(
                m.training for m in model.modules()):
            raise RuntimeError("compiling or running modified the model")
    except Exception as error:  # noqa: BLE001 - every failure is reported
        return name, False, f"{stage}: {_describe(error)}", \
            time.monotonic() - start
    return name, True, "", time.monotonic() - start


# --- Workers. ----------------------------------------------------------------

def _quiet_eager_warnings():
    """Silences a warning eager PyTorch prints for some cases (not ours)."""
    warnings.filterwarnings("ignore", message="Using padding='same'")
    # The control_flow family is compiled through torch.jit.script, which
    # compile() says once per case.
    warnings.filterwarnings("ignore", message="fx_mlir.compile: cannot trace")


def _load_runner(spec):
    """The case runner `MODULE:FUNCTION` (a function of (name,
    compiler_spec) returning (name, passed, reason, seconds))."""
    if spec is None:
        return run_case
    module_name, _, attr = spec.partition(":")
    return getattr(importlib.import_module(module_name), attr)


def _worker_main(conn, compiler_spec, runner_spec=None):
    """A worker process: runs the case names it receives until None."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles ^C
    _quiet_eager_warnings()
    torch.set_num_threads(1)
    runner = _load_runner(runner_spec)
    while True:
        name = conn.recv()
        if name is None:
            return
        conn.send(runner(name, compiler_spec))


class _Worker:
    """One worker process and the case it is running (None when idle)."""

    def __init__(self, context, compiler_spec, runner_spec=None):
        self.conn, child = context.Pipe()
        self.process = context.Process(target=_worker_main,
                                       args=(child, compiler_spec,
                                             runner_spec),
                                       daemon=True)
        self.process.start()
        child.close()
        self.case = None
        self.started = None

    def submit(self, name):
        self.case, self.started = name, time.monotonic()
        self.conn.send(name)

    def elapsed(self):
        return time.monotonic() - self.started

    def stop(self):
        """Asks an idle worker to exit; kills it if it does not."""
        try:
            self.conn.send(None)
            self.process.join(10)
        except OSError:
            pass
        self.kill()

    def kill(self):
        if self.process.is_alive():
            self.process.kill()
        self.process.join()
        self.conn.close()


def _death(process):
    """Why a worker process ended."""
    code = process.exitcode
    if code is not None and code < 0:
        try:
            return f"worker crashed ({signal.Signals(-code).name})"
        except ValueError:
            return f"worker crashed (signal {-code})"
    return f"worker exited with code {code}"


def run_in_workers(names, jobs, compiler_spec, timeout, runner_spec=None):
    """Runs `names` in `jobs` worker processes; yields the results in the
    order of `names`. A case whose worker dies or that runs longer than
    `timeout` seconds (0: no limit) fails, and its worker is replaced.
    `runner_spec` (`MODULE:FUNCTION`, importable in the workers) runs a
    case by name; by default run_case, for the cases of cases.py."""
    context = multiprocessing.get_context("spawn")
    todo = list(reversed(names))
    done = {}
    workers = [_Worker(context, compiler_spec, runner_spec)
               for _ in range(min(jobs, len(names)))]
    try:
        for name in names:
            while name not in done:
                _step(workers, todo, done, context, compiler_spec, timeout,
                      runner_spec)
            yield done.pop(name)
    finally:
        for worker in workers:
            if worker.case is None:
                worker.stop()
            else:
                worker.kill()


def _step(workers, todo, done, context, compiler_spec, timeout,
          runner_spec=None):
    """Gives idle workers cases, waits for one event (a result, a death, a
    timeout) and records the results it brings."""
    for worker in workers:
        if worker.case is None and todo:
            worker.submit(todo.pop())
    busy = [w for w in workers if w.case is not None]
    wait_for = None
    if timeout:
        wait_for = max(0.0, min(timeout - w.elapsed() for w in busy))
    ready = multiprocessing.connection.wait(
        [w.conn for w in busy] + [w.process.sentinel for w in busy], wait_for)
    for i, worker in enumerate(workers):
        if worker.case is None:
            continue
        failure = None
        if worker.conn in ready or worker.process.sentinel in ready:
            try:
                done[worker.case] = worker.conn.recv()
                worker.case = None
                continue
            except (EOFError, OSError):
                worker.process.join()
                failure = _death(worker.process)
        elif timeout and worker.elapsed() > timeout:
            failure = f"timed out after {timeout:g} s"
        if failure is not None:
            done[worker.case] = (worker.case, False, failure,
                                 worker.elapsed())
            worker.kill()
            workers[i] = _Worker(context, compiler_spec, runner_spec)


def run_in_process(names, compiler_spec):
    for name in names:
        yield run_case(name, compiler_spec)


# --- xfail.txt. --------------------------------------------------------------

class UsageError(Exception):
    pass


def read_xfails(path):
    """{case name: reason} from an xfail file (missing file: none)."""
    xfails = {}
    if not os.path.exists(path):
        return xfails
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            text = line.strip()
            if not text or text.startswith("#"):
                continue
            name, sep, reason = text.partition("#")
            name, reason = name.strip(), reason.strip()
            where = f"{path}:{number}"
            if not sep or not reason:
                raise UsageError(f"{where}: expected 'name  # reason', got "
                                 f"{text!r}")
            if len(name.split()) != 1:
                raise UsageError(f"{where}: one case name per line, got "
                                 f"{name!r}")
            if name not in case_registry.CASES_BY_NAME:
                raise UsageError(f"{where}: no case named {name!r}")
            if name in xfails:
                raise UsageError(f"{where}: {name!r} is listed twice")
            xfails[name] = reason
    return xfails


# --- Main. -------------------------------------------------------------------

def parse_args(argv):
    parser = argparse.ArgumentParser(
        description="Compare fx_mlir.compile against PyTorch eager on the "
                    "cases of cases.py.")
    parser.add_argument("-k", dest="keywords", action="append", default=[],
                        metavar="SUBSTRING",
                        help="run only cases whose name contains SUBSTRING "
                             "(repeatable: any of them)")
    parser.add_argument("--list", action="store_true",
                        help="print the selected case names and exit")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="print every case with its time and result")
    parser.add_argument("--jobs", "-j", type=int, default=1, metavar="N",
                        help="worker processes (default 1; 0 runs the cases "
                             "in this process, without crash isolation)")
    parser.add_argument("--timeout", type=float, default=900.0,
                        metavar="SECONDS",
                        help="per-case time limit with workers (default "
                             "900; 0 for none)")
    parser.add_argument("--xfail", default=os.path.join(_HERE, "xfail.txt"),
                        metavar="FILE", help="the expected-failure list")
    parser.add_argument("--compiler", default=DEFAULT_COMPILER,
                        metavar="MODULE:FUNCTION",
                        help=f"the compile function (default "
                             f"{DEFAULT_COMPILER})")
    args = parser.parse_args(argv)
    if args.jobs < 0:
        parser.error("--jobs must be >= 0")
    if args.timeout < 0:
        parser.error("--timeout must be >= 0")
    return args


def main(argv=None):
    args = parse_args(argv)
    try:
        xfails = read_xfails(args.xfail)
    except UsageError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    names = [case.name for case in case_registry.CASES
             if not args.keywords or any(k in case.name
                                         for k in args.keywords)]
    if args.list:
        for name in names:
            print(name)
        return 0

    start = time.monotonic()
    if args.jobs == 0:
        _quiet_eager_warnings()
        torch.set_num_threads(1)
        results = run_in_process(names, args.compiler)
    else:
        results = run_in_workers(names, args.jobs, args.compiler,
                                 args.timeout)
    passed = failed = expected = 0
    for name, ok, reason, seconds in results:
        if name in xfails:
            if ok:
                failed += 1
                print(f"XPASS {name}: unexpectedly passed (xfail: "
                      f"{xfails[name]})")
            else:
                expected += 1
                if args.verbose:
                    print(f"XFAIL {name} ({seconds:.2f} s): {reason}")
        elif ok:
            passed += 1
            if args.verbose:
                print(f"PASS  {name} ({seconds:.2f} s)")
        else:
            failed += 1
            print(f"FAIL  {name}: {reason}")
        sys.stdout.flush()
    if args.verbose:
        print(f"{len(names)} cases in {time.monotonic() - start:.1f} s")
    summary = f"{passed} passed, {failed} failed"
    if expected:
        summary += f", {expected} expected failures"
    print(summary)
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
