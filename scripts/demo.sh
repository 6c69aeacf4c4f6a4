#!/usr/bin/env bash
# The main demo: trace a small CNN with torch.fx, import it into the fx
# dialect, normalize it and print its node table, compile it to CPU code,
# run it and compare with PyTorch eager (max error, both latencies).
set -euo pipefail
cd "$(dirname "$0")/.."
export FX_MLIR_BUILD_DIR=${FX_MLIR_BUILD_DIR:-$PWD/build}
/usr/bin/python3 examples/demo.py
