"""fx_mlir: the Python side of fx-mlir, a bridge between torch.fx and MLIR.

`import_graph_module(gm, example_inputs)` turns a torch.fx.GraphModule into
fx dialect text, `export_graph_module(ir)` turns fx dialect text back into a
runnable torch.fx.GraphModule; the functions below drive the C++ tools.

    >>> import fx_mlir
    >>> print(fx_mlir.print_tabular(open("examples/small_cnn.mlir").read()))

`transform(model, "fx-fold-batchnorm,fx-fuse-activation")` runs fx-opt's
graph passes on a module and `replace_pattern(gm, pattern, replacement)`
rewrites subgraphs as torch.fx.subgraph_rewriter does; the submodules
`fused` and `instrument` hold the functions the nodes those passes insert
call.
"""

import functools
import os
import shutil
import subprocess
import threading

__all__ = ["FxMlirError", "find_tool", "run_fx_opt", "print_tabular",
           "import_graph_module", "export_python", "export_graph_module",
           "compile", "load", "set_num_threads", "transform",
           "replace_pattern", "import_torchscript", "ScriptedRouteWarning",
           "exact_quantized_engine"]
__version__ = "0.1.0"

_REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
# Installed by `cmake --install` (PREFIX/lib/python3/dist-packages/fx_mlir),
# the package holds its extension and the tools are in PREFIX/bin.
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
_INSTALLED = os.path.exists(os.path.join(_PACKAGE_DIR, "_fx_runtime.so"))
_INSTALLED_BIN = os.path.normpath(os.path.join(_PACKAGE_DIR, *[os.pardir] * 4,
                                               "bin"))


class FxMlirError(RuntimeError):
    """A tool rejected its input; the message is the tool's diagnostic."""


# torch.fx's tracer patches global functions while it traces (torch.fx.wrap,
# autowrapped math functions, nn.Module.__call__) and ShapeProp runs the
# module: two traces at once in two threads see each other's patches
# ("module is not installed as a submodule"). Tracing, importing and
# rebuilding GraphModules take this lock; compiling to machine code (C++,
# without the GIL) does not, so two compiles still overlap there.
_TORCH_FX_LOCK = threading.RLock()


def _serialized(fn):
    """`fn`, run under _TORCH_FX_LOCK."""
    @functools.wraps(fn)
    def locked(*args, **kwargs):
        with _TORCH_FX_LOCK:
            return fn(*args, **kwargs)
    return locked


def _native_path(name):
    """The path of the package's native file `name` (`_fx_runtime.so`):
    in $FX_MLIR_BUILD_DIR/python/fx_mlir, the package's own directory when
    installed, else the repository's build tree; None if there is none."""
    dirs = []
    if os.environ.get("FX_MLIR_BUILD_DIR"):
        dirs.append(os.path.join(os.environ["FX_MLIR_BUILD_DIR"], "python",
                                 "fx_mlir"))
    dirs.append(_PACKAGE_DIR if _INSTALLED
                else os.path.join(_REPO_ROOT, "build", "python", "fx_mlir"))
    for d in dirs:
        path = os.path.join(d, name)
        if os.path.exists(path):
            return path
    return None


def exact_quantized_engine():
    """The PyTorch quantized engine whose int8 convolutions and linears sum
    exactly on this CPU, to check compiled int8 code against: "onednn"
    where the CPU has AVX-512 VNNI (byte dot products into int32), else
    "qnnpack" (16-bit products). Without VNNI, onednn (and the x86 and
    fbgemm engines) sum pairs of u8 x s8 products in 16 bits with
    saturation (`vpmaddubsw`): exact only for 7-bit activations (the x86
    and fbgemm qconfigs' `reduce_range`), off by tens of steps otherwise
    (docs/Quantization.md, "Accuracy contract")."""
    import torch
    engines = torch.backends.quantized.supported_engines
    flags = set()
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("flags"):
                    flags = set(line.split(":", 1)[1].split())
                    break
    except OSError:
        pass
    if "onednn" in engines and "avx512_vnni" in flags:
        return "onednn"
    if "qnnpack" in engines:
        return "qnnpack"
    return "onednn" if "onednn" in engines else engines[-1]


def find_tool(name):
    """Path of an fx-mlir tool: $FX_MLIR_BUILD_DIR/bin, PREFIX/bin of an
    installed package, the repository's build/bin, then PATH."""
    candidates = []
    if os.environ.get("FX_MLIR_BUILD_DIR"):
        candidates.append(os.path.join(os.environ["FX_MLIR_BUILD_DIR"], "bin"))
    if _INSTALLED:
        candidates.append(_INSTALLED_BIN)
    else:
        candidates.append(os.path.join(_REPO_ROOT, "build", "bin"))
    for directory in candidates:
        path = os.path.join(directory, name)
        if os.access(path, os.X_OK):
            return path
    path = shutil.which(name)
    if path is None:
        raise FxMlirError(f"cannot find the fx-mlir tool '{name}'; build the "
                          f"project (scripts/setup.sh) or set FX_MLIR_BUILD_DIR")
    return path


def run_fx_opt(ir, *args):
    """Runs fx-opt on the textual IR `ir` with `args`; returns its stdout.
    Raises FxMlirError with fx-opt's diagnostics when it fails."""
    result = subprocess.run([find_tool("fx-opt"), "-", *args], input=ir,
                            capture_output=True, text=True)
    if result.returncode != 0:
        raise FxMlirError(result.stderr.strip() or
                          f"fx-opt exited with {result.returncode}")
    return result.stdout


def print_tabular(ir):
    """The node tables of every graph in `ir`, as fx-opt --fx-print-tabular
    prints them (torch.fx's Graph.print_tabular layout)."""
    return run_fx_opt(ir, "--fx-print-tabular", "-o", os.devnull)


from .importer import import_graph_module  # noqa: E402
from .exporter import export_python, export_graph_module  # noqa: E402
from .compiler import compile, load, set_num_threads  # noqa: E402,F401
from .transform import transform, replace_pattern  # noqa: E402
from .scripting import import_torchscript, ScriptedRouteWarning  # noqa: E402,F401
from . import fused, instrument  # noqa: E402,F401
