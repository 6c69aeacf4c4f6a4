# -*- Python -*-
# lit configuration for the fx-mlir test suite.

import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "FX_MLIR"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.fx_obj_root, "test")
config.excludes = ["Inputs", "downstream", "CMakeLists.txt", "lit.cfg.py", "__pycache__",
                   "lit.site.cfg.py"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%fx_src_root", config.fx_src_root))
config.substitutions.append(("%fx_obj_root", config.fx_obj_root))
config.substitutions.append(("%fx_libs", config.fx_libs_dir))
config.substitutions.append(("%mlir_cmake_dir", config.mlir_cmake_dir))
config.substitutions.append(("%cmake_generator", config.cmake_generator))
config.substitutions.append(("%cmake", config.cmake_command))
config.substitutions.append(("%cxx", config.cxx_compiler))
config.substitutions.append(("%cc", config.c_compiler))
config.substitutions.append(("%python", config.python_executable))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
# Tests compile for real: no on-disk code cache (test_cache.py sets its own).
config.environment["FX_MLIR_CACHE_DIR"] = ""
llvm_config.use_default_substitutions()

# Tools: ours first, then LLVM's (FileCheck, not, mlir-opt for the plugin).
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
tool_dirs = [config.fx_tools_dir, config.llvm_tools_dir]
tools = ["fx-opt", "fx-translate", "fx-run", "fx-compile", ToolSubst("mlir-opt-22", command=os.path.join(
    config.llvm_tools_dir, "mlir-opt"))]
# The tools of the pass tutorial (examples/tutorial, docs/Tutorial.md).
tools += ["tutorial-opt", "tutorial-log-modules"]
# The generator of the lowering's typed argument accessors.
tools += ["fx-gen-target-args"]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# `avx512`: this CPU runs AVX-512 code, so AVX2 code (x86-64-v3) can be
# checked on it too (test/e2e/e2e-avx2.test).
try:
    with open("/proc/cpuinfo") as cpuinfo:
        flags = next((line.split(":", 1)[1].split() for line in cpuinfo
                      if line.startswith("flags")), [])
    if "avx512f" in flags:
        config.available_features.add("avx512")
except OSError:
    pass
