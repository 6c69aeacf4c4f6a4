#!/usr/bin/python3
"""Op-level differential suite: PyTorch's OpInfo samples, compiled and
compared with eager.

    /usr/bin/python3 test/opinfo/run_opinfo.py [-k SUBSTRING] [--samples N]
        [--jobs N] [--timeout S] [--list] [-v] [--table FILE]
        [--baseline FILE] [--write-baseline FILE]

PyTorch's OpInfo database (torch.testing._internal.common_methods_invocations
.op_db: 621 operator variants in 1.13, each with sample inputs) is what
PyTorch's own compilers are tested with. For every operator variant and
each of its float32 sample inputs (the first N with --samples), the
sample becomes a module whose forward calls the operator (`op.op`, the
function OpInfo calls: `torch.add`, a `Tensor` method, a
`torch.nn.functional` function, ...) on the sample's tensors as graph
inputs, its other arguments as constants. fx_mlir.compile compiles it;
the outputs (and the inputs, for in-place operators) are compared with
eager's at the end-to-end suite's tolerances (run_e2e.compare).

Each case runs in a worker process (run_e2e's workers: a crash or a hang
fails that case only). Case names are `<op>[.<variant>]#<sample>`.
Samples are regenerated in the worker from torch.manual_seed(0), so a
name always means the same inputs.

Operators whose results are random (dropout, bernoulli, rand*, normal,
...) or uninitialized (empty*) are skipped: eager cannot be an oracle.

Without --baseline the exit code is 0. With --baseline FILE (lines
`name` of cases that must pass) every listed case must still pass: that
is the regression check of the test command; --write-baseline writes the
passing cases. --table writes the per-operator table (docs/OpInfo.md).
"""

import argparse
import collections
import os
import re
import sys
import time
import warnings

_HERE = os.path.dirname(os.path.abspath(__file__))
_REPO = os.path.dirname(os.path.dirname(_HERE))
for _path in (_HERE, os.path.join(_REPO, "test", "e2e"),
              os.path.join(_REPO, "python")):
    if _path not in sys.path:
        sys.path.insert(0, _path)

try:  # OpInfo imports expecttest, which Debian does not package.
    import expecttest  # noqa: F401
except ImportError:
    sys.path.insert(0, os.path.join(_HERE, "stubs"))

import torch  # noqa: E402

import run_e2e  # noqa: E402

RUNNER = "run_opinfo:run_case"

# Operators eager cannot be an oracle for: random results, or memory
# left uninitialized.
_NONDETERMINISTIC = re.compile(
    r"(^|[._])(rand|randn|randint|rand_like|randn_like|randint_like|"
    r"bernoulli|multinomial|normal|uniform|dropout|dropout2d|dropout3d|"
    r"feature_alpha_dropout|alpha_dropout|rrelu|empty|empty_like|"
    r"new_empty|new_empty_strided|empty_strided|poisson|"
    r"exponential|geometric|cauchy|log_normal|fractional_max_pool2d|"
    r"fractional_max_pool3d)($|[._])")


# The dtypes --dtype takes; a case of another dtype than float32 is named
# `<op>#<index>@<dtype>`.
DTYPES = {"float32": torch.float32, "float64": torch.float64,
          "int64": torch.int64, "int32": torch.int32, "int16": torch.int16,
          "int8": torch.int8, "uint8": torch.uint8, "bool": torch.bool,
          "complex64": torch.complex64, "complex128": torch.complex128}


def _ops():
    """{case prefix: OpInfo} of the operators that are not skipped."""
    warnings.filterwarnings("ignore")
    from torch.testing._internal.common_methods_invocations import op_db
    ops = {}
    for op in op_db:
        name = op.name + (f".{op.variant_test_name}"
                          if op.variant_test_name else "")
        if _NONDETERMINISTIC.search(op.name):
            continue
        ops[name] = op
    return ops


_OPS = None


def ops(dtype=torch.float32):
    """The operators of `dtype` (float32 by default)."""
    global _OPS
    if _OPS is None:
        _OPS = _ops()
    return {name: op for name, op in _OPS.items()
            if dtype in op.supported_dtypes("cpu")}


def samples(op, dtype=torch.float32):
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return list(op.sample_inputs("cpu", dtype, requires_grad=False))


# --- A sample as a module. ---------------------------------------------------

class _Slot:
    """Where graph input `index` goes in the call's arguments."""

    def __init__(self, index):
        self.index = index


def _template(value, tensors):
    """`value` with every tensor replaced by a _Slot (appended to
    `tensors`)."""
    if isinstance(value, torch.Tensor):
        tensors.append(value)
        return _Slot(len(tensors) - 1)
    if isinstance(value, tuple):
        return tuple(_template(v, tensors) for v in value)
    if isinstance(value, list):
        return [_template(v, tensors) for v in value]
    if isinstance(value, dict):
        return {k: _template(v, tensors) for k, v in value.items()}
    return value


def _fill(template, inputs):
    if isinstance(template, _Slot):
        return inputs[template.index]
    if isinstance(template, tuple):
        return tuple(_fill(v, inputs) for v in template)
    if isinstance(template, list):
        return [_fill(v, inputs) for v in template]
    if isinstance(template, dict):
        return {k: _fill(v, inputs) for k, v in template.items()}
    return template


class SampleModule(torch.nn.Module):
    """forward(t0, ..., tN) calls `fn(*args, **kwargs)` with the sample's
    tensors taken from the inputs (torch.fx traces through the call: the
    argument structure is rebuilt from Python values, not traced)."""

    def __init__(self, fn, template):
        super().__init__()
        self.fn = fn
        self.template = template

    def call(self, *inputs):
        args, kwargs = _fill(self.template, inputs)
        return self.fn(*args, **kwargs)


def make_module(fn, template, count):
    """A SampleModule subclass whose forward takes `count` named inputs
    (torch.fx does not trace a `*args` forward on Python 3.11)."""
    names = ", ".join(f"t{i}" for i in range(count))
    namespace = {}
    exec(f"def forward(self, {names}):\n"
         f"    return self.call({names})\n", namespace)
    cls = type("Sample", (SampleModule,), {"forward": namespace["forward"]})
    return cls(fn, template)


def build(name):
    """(module, inputs) for the case `name`."""
    name, _, dtype_name = name.partition("@")
    dtype = DTYPES[dtype_name or "float32"]
    prefix, _, index = name.rpartition("#")
    op = ops(dtype)[prefix]
    sample = samples(op, dtype)[int(index)]
    tensors = []
    template = _template(((sample.input,) + tuple(sample.args),
                          dict(sample.kwargs)), tensors)
    return op, make_module(op.op, template, len(tensors)), tuple(tensors)


# --- Running one case. -------------------------------------------------------

def _clone(inputs):
    return tuple(t.clone() for t in inputs)


def _plain(value):
    """Python numbers and bools as 0-d tensors, for the comparison."""
    if isinstance(value, (bool, int, float)):
        return torch.tensor(value)
    if isinstance(value, (tuple, list)):
        return type(value)(_plain(v) for v in value)
    if isinstance(value, torch.Size):
        return torch.tensor(list(value))
    return value


def run_case(name, compiler_spec):
    """Runs one case; returns (name, passed, reason, seconds). Reasons
    start with the stage that failed: `eager` (the sample is not valid for
    eager here: not counted), `trace`, `compile`, `run`, `compare`."""
    start = time.monotonic()
    stage = "setup"
    try:
        compile_fn = run_e2e._load_compiler(compiler_spec)
        op, module, inputs = build(name)
        stage = "eager"
        eager_inputs = _clone(inputs)
        with torch.no_grad():
            expected = module(*eager_inputs)
        stage = "compile"
        compiled = compile_fn(module, _clone(inputs))
        stage = "run"
        given = _clone(inputs)
        actual = compiled(*given)
        stage = "compare"
        run_e2e.compare(_plain(expected), _plain(actual))
        # In-place operators: the inputs must change as eager changed them.
        run_e2e.compare(eager_inputs, given)
    except Exception as error:  # noqa: BLE001 - every failure is reported
        return name, False, f"{stage}: {run_e2e._describe(error)}", \
            time.monotonic() - start
    return name, True, "", time.monotonic() - start


# --- Main. -------------------------------------------------------------------

def case_names(keywords, limit, dtype_name="float32"):
    dtype = DTYPES[dtype_name]
    suffix = "" if dtype_name == "float32" else f"@{dtype_name}"
    names = []
    for prefix, op in ops(dtype).items():
        if keywords and not any(k in prefix for k in keywords):
            continue
        count = len(samples(op, dtype))
        if limit:
            count = min(count, limit)
        names += [f"{prefix}#{i}{suffix}" for i in range(count)]
    return names


def write_table(path, results, seconds):
    per_op = collections.OrderedDict()
    for name, ok, reason, _ in results:
        prefix = name.rpartition("#")[0]
        entry = per_op.setdefault(prefix, [0, 0, 0, ""])
        if not ok and reason.startswith("eager:"):
            entry[2] += 1
            continue
        entry[1] += 1
        if ok:
            entry[0] += 1
        elif not entry[3]:
            entry[3] = f"#{name.rpartition('#')[2]} {reason}"
    full = sum(1 for p, t, _, _ in per_op.values() if t and p == t)
    with open(path, "w", encoding="utf-8") as f:
        f.write("# OpInfo operators: compiled against eager\n\n")
        f.write("Generated by `test/opinfo/run_opinfo.py --table` "
                "(float32 samples of PyTorch 1.13's OpInfo database, each "
                "compiled with `fx_mlir.compile` as a one-operator module "
                "and compared with eager; see docs/TargetRegistry.md and the README). Random and "
                "uninitialized operators are skipped; samples eager itself "
                "rejects are not counted.\n\n")
        f.write(f"{full} of {len(per_op)} operator variants pass all their "
                f"samples; {sum(p for p, _, _, _ in per_op.values())} of "
                f"{sum(t for _, t, _, _ in per_op.values())} samples pass "
                f"({seconds:.0f} s).\n\n")
        f.write("| operator | passed | samples | first failure |\n")
        f.write("|---|---|---|---|\n")
        for prefix, (passed, total, _, failure) in per_op.items():
            failure = failure.replace("|", "\\|").replace("\n", " ")
            if len(failure) > 160:
                failure = failure[:157] + "..."
            f.write(f"| `{prefix}` | {passed} | {total} | {failure} |\n")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-k", dest="keywords", action="append", default=[])
    parser.add_argument("--samples", type=int, default=0,
                        help="at most N samples per operator (0: all)")
    parser.add_argument("--jobs", "-j", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--list", action="store_true")
    parser.add_argument("-v", "--verbose", action="store_true")
    parser.add_argument("--table", metavar="FILE")
    parser.add_argument("--baseline", metavar="FILE")
    parser.add_argument("--write-baseline", metavar="FILE")
    parser.add_argument("--compiler", default=run_e2e.DEFAULT_COMPILER)
    parser.add_argument("--dtype", choices=sorted(DTYPES), default="float32",
                        help="the samples' dtype (cases of other dtypes "
                        "than float32 are named <op>#<index>@<dtype>)")
    args = parser.parse_args(argv)

    names = case_names(args.keywords, args.samples, args.dtype)
    if args.list:
        print("\n".join(names))
        return 0
    baseline = set()
    if args.baseline:
        with open(args.baseline, encoding="utf-8") as f:
            baseline = {line.strip() for line in f
                        if line.strip() and not line.startswith("//")}
        names = [n for n in names if n in baseline] if not args.keywords \
            else names
    start = time.monotonic()
    if args.jobs == 0:
        torch.set_num_threads(1)
        results = (run_case(n, args.compiler) for n in names)
    else:
        results = run_e2e.run_in_workers(names, args.jobs, args.compiler,
                                         args.timeout, RUNNER)
    results = list(_report(results, baseline, args.verbose))
    seconds = time.monotonic() - start
    passed = sum(ok for _, ok, _, _ in results)
    skipped = sum(not ok and r.startswith("eager:")
                  for _, ok, r, _ in results)
    regressions = [n for n, ok, _, _ in results if n in baseline and not ok]
    print(f"{passed} passed, {len(results) - passed - skipped} failed, "
          f"{skipped} not valid in eager, {len(regressions)} regressions "
          f"({seconds:.0f} s)")
    if args.table:
        write_table(args.table, results, seconds)
    if args.write_baseline:
        with open(args.write_baseline, "w", encoding="utf-8") as f:
            f.write("// Cases of run_opinfo.py that pass (regenerate with "
                    "--write-baseline); the test command checks that each "
                    "still does.\n")
            for n, ok, _, _ in results:
                if ok:
                    f.write(n + "\n")
    return 1 if regressions else 0


def _report(results, baseline, verbose):
    for result in results:
        name, ok, reason, seconds = result
        if not ok and name in baseline:
            print(f"REGRESSION {name}: {reason}")
        elif verbose:
            print(f"{'PASS' if ok else 'FAIL'} {name} ({seconds:.2f} s)"
                  + (f": {reason}" if reason else ""))
        sys.stdout.flush()
        yield result


if __name__ == "__main__":
    sys.exit(main())
