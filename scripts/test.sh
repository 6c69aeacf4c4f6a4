#!/usr/bin/env bash
# README command 2: the whole test suite (lit: dialect, passes, plugin,
# install/downstream, docs, format, Python tests). Exits non-zero on failure.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${FX_MLIR_BUILD_DIR:-build}
scripts/install-deps.sh
scripts/build.sh
# check-fx also regenerates the reference docs (build/docs/FX/*.md).
status=0
cmake --build "$BUILD_DIR" --target mlir-doc -- --quiet
/usr/lib/llvm-22/bin/lit -sv --order=lexical -j "${FX_MLIR_JOBS:-2}" \
  --output "$BUILD_DIR/test/results.json" "$BUILD_DIR/test" || status=$?
/usr/bin/python3 - "$BUILD_DIR/test/results.json" <<'PY'
import json, sys
tests = json.load(open(sys.argv[1]))["tests"]
count = lambda codes: sum(t["code"] in codes for t in tests)
print(f"{count({'PASS', 'XFAIL'})} passed, "
      f"{count({'FAIL', 'XPASS', 'UNRESOLVED', 'TIMEOUT'})} failed, "
      f"{count({'UNSUPPORTED', 'SKIPPED'})} skipped")
PY
exit $status
