#!/usr/bin/env bash
# Configures (once) and builds fx-mlir into build/ with two jobs.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${FX_MLIR_BUILD_DIR:-build}
if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  cmake -G Ninja -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release > "$BUILD_DIR.configure.log" 2>&1 ||
    { cat "$BUILD_DIR.configure.log"; exit 1; }
  mv "$BUILD_DIR.configure.log" "$BUILD_DIR/configure.log"
fi
cmake --build "$BUILD_DIR" -j "${FX_MLIR_JOBS:-2}" -- --quiet
