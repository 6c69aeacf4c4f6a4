"""The environment a benchmark runs PyTorch and fx-mlir in, chosen per CPU.

OpenBLAS picks its kernels when it is loaded, from OPENBLAS_CORETYPE or
its own detection. OpenBLAS 0.3.21 (Debian 12) does not know some AVX-512
CPUs (an Intel Sapphire Rapids Xeon is taken for a Prescott, 5x slower);
forcing an AVX-512 core type on a CPU without AVX-512 kills the process
with SIGILL. So a core type is set only where it is right:

- the user's OPENBLAS_CORETYPE, when set (even empty), is kept;
- with `--cpu` an AVX2 target (x86-64-v3, haswell, znver2, znver3) on an
  AVX-512 host, eager runs OpenBLAS's Haswell (AVX2) kernels: the fair
  baseline for AVX2 code; likewise oneDNN (PyTorch's onednn quantized
  engine, the int8 baseline) is held to AVX2 (DNNL_MAX_CPU_ISA=AVX2,
  unless the user set it);
- on an AVX-512 CPU whose detected core OpenBLAS has no AVX-512 kernels
  for, SkylakeX;
- otherwise nothing: OpenBLAS's own choice.

`prepare(argv)` applies this before torch is imported (re-executing the
script when the environment must change) and records what it chose;
`describe()` tells, after torch is loaded, which kernels OpenBLAS runs.
"""

import ctypes
import os
import subprocess
import sys

AVX2_TARGETS = ("x86-64-v3", "haswell", "znver2", "znver3")
AVX512_CORES = ("skylakex", "cooperlake", "sapphirerapids")
_CHOSEN = "FX_MLIR_BENCH_CORETYPE_REASON"


def cpu_flags():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    return set()


def _openblas_path():
    """The OpenBLAS library this process has loaded, or None."""
    with open("/proc/self/maps") as f:
        for line in f:
            path = line.split()[-1]
            if "openblas" in os.path.basename(path):
                return path
    return None


def corename():
    """The kernels OpenBLAS runs in this process (torch loaded), or None."""
    path = _openblas_path()
    if path is None:
        return None
    try:
        lib = ctypes.CDLL(path)
        lib.openblas_get_corename.restype = ctypes.c_char_p
        return lib.openblas_get_corename().decode()
    except (OSError, AttributeError):
        return None


def detected_corename():
    """What OpenBLAS picks by itself on this CPU (a fresh process without
    OPENBLAS_CORETYPE), or None."""
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"}
    code = ("import sys; sys.path.insert(0, %r); import torch, cpu_env; "
            "print(cpu_env.corename())" % os.path.dirname(__file__))
    result = subprocess.run([sys.executable, "-c", code], env=env,
                            capture_output=True, text=True)
    name = result.stdout.strip()
    return name if result.returncode == 0 and name != "None" else None


def choose_coretype(cpu_target=None):
    """(OPENBLAS_CORETYPE to set or None, why)."""
    if "OPENBLAS_CORETYPE" in os.environ:
        return None, "set by the user"
    flags = cpu_flags()
    if cpu_target in AVX2_TARGETS and "avx512f" in flags:
        return "Haswell", (f"AVX2 baseline for --cpu {cpu_target} on an "
                           f"AVX-512 host")
    if "avx512f" in flags:
        detected = detected_corename()
        if detected and detected.lower() not in AVX512_CORES:
            return "SkylakeX", (f"OpenBLAS took this AVX-512 CPU for "
                                f"{detected}")
        return None, f"OpenBLAS detected {detected}"
    return None, "OpenBLAS's own detection (no AVX-512)"


def prepare(argv):
    """Sets FX_MLIR_CPU from `--cpu X` and OPENBLAS_CORETYPE as above, then
    re-executes the script if the environment changed: call before torch
    is imported."""
    cpu = None
    for i, arg in enumerate(argv):
        if arg == "--cpu" and i + 1 < len(argv):
            cpu = argv[i + 1]
        elif arg.startswith("--cpu="):
            cpu = arg.split("=", 1)[1]
    if cpu:
        os.environ["FX_MLIR_CPU"] = cpu
    if _CHOSEN in os.environ:  # already prepared (a child or re-exec)
        return
    coretype, why = choose_coretype(cpu)
    os.environ[_CHOSEN] = why
    isa = None
    if (cpu in AVX2_TARGETS and "avx512f" in cpu_flags()
            and "DNNL_MAX_CPU_ISA" not in os.environ
            and "ONEDNN_MAX_CPU_ISA" not in os.environ):
        isa = os.environ["DNNL_MAX_CPU_ISA"] = "AVX2"
    if coretype:
        os.environ["OPENBLAS_CORETYPE"] = coretype
    if coretype or isa:
        os.execv(sys.executable, [sys.executable] + argv)


def describe():
    """For the report: the core type set, why, and the kernels in use."""
    return {"openblas_coretype": os.environ.get("OPENBLAS_CORETYPE"),
            "onednn_max_cpu_isa": (os.environ.get("DNNL_MAX_CPU_ISA")
                                   or os.environ.get("ONEDNN_MAX_CPU_ISA")),
            "openblas_coretype_reason": os.environ.get(_CHOSEN),
            "openblas_corename": corename(),
            "fx_mlir_cpu": os.environ.get("FX_MLIR_CPU", "host")}
