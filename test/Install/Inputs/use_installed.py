"""Uses the fx_mlir package as `cmake --install` put it under PREFIX
(argv[1]): the package, its extension and the tools all come from PREFIX,
none from the source or build tree. Compiles a small model and runs a pass
pipeline on it (fx-opt from PREFIX/bin), both checked against eager."""

import os
import sys

prefix = os.path.realpath(sys.argv[1])
assert "FX_MLIR_BUILD_DIR" not in os.environ
# Where the package went, relative to the prefix: under /usr/local, a
# directory Debian's python3 reads without PYTHONPATH.
packages = os.path.join("lib", f"python{sys.version_info.major}."
                        f"{sys.version_info.minor}", "dist-packages")
print("on the default path under /usr/local:",
      os.path.join("/usr/local", packages) in sys.path)
sys.path.insert(0, os.path.join(prefix, packages))

import torch
import fx_mlir
from fx_mlir import compiler


def under_prefix(path):
    return os.path.realpath(path).startswith(prefix + os.sep)


print("package from prefix:", under_prefix(fx_mlir.__file__))
print("extension from prefix:", under_prefix(compiler._load_runtime().__file__))
print("fx-opt from prefix:", under_prefix(fx_mlir.find_tool("fx-opt")))

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(),
                            torch.nn.Linear(16, 4)).eval()
x = torch.randn(3, 8)
compiled = fx_mlir.compile(model, (x,))
print("compiled matches eager:", torch.allclose(compiled(x), model(x),
                                                 atol=1e-5, rtol=1e-5))
gm = fx_mlir.transform(torch.fx.symbolic_trace(model), "fx-normalize", (x,))
print("transformed matches eager:", torch.allclose(gm(x), model(x)))
