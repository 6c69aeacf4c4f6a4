#!/usr/bin/env bash
# The test suite against a build with AddressSanitizer and
# UndefinedBehaviorSanitizer (issue 26.5; docs/Reliability.md,
# "Sanitizers"):
#
#   scripts/sanitize.sh            # configures and builds build-asan/, runs lit
#
# Every target of ours is built with -fsanitize=address,undefined
# (-DFX_SANITIZE); MLIR, LLVM, LibTorch and Python are Debian's,
# uninstrumented, so the sanitizer runtimes are preloaded into every
# process the tests start (Python loading the instrumented extension
# included). Left out: test/fuzz (the fuzz targets carry clang's
# sanitizers already) and test/Install (they build programs against the
# installed, instrumented libraries without the sanitizer runtime).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${FX_MLIR_SANITIZE_DIR:-build-asan}
scripts/install-deps.sh
if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  cmake -G Ninja -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release \
    -DFX_SANITIZE=address,undefined > "$BUILD_DIR.configure.log" 2>&1 ||
    { cat "$BUILD_DIR.configure.log"; exit 1; }
fi
cmake --build "$BUILD_DIR" -j "${FX_MLIR_JOBS:-2}" -- --quiet
cmake --build "$BUILD_DIR" --target mlir-doc -- --quiet
# allow_user_poisoning=0: LLVM's headers poison a BumpPtrAllocator's free
# slab in our instrumented code, which the uninstrumented libMLIR.so then
# allocates from (a false use-after-poison). Leaks are not checked (the
# Python interpreter and LibTorch keep theirs until exit).
export LD_PRELOAD="$(gcc -print-file-name=libasan.so):$(gcc -print-file-name=libubsan.so)"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:allow_user_poisoning=0:verify_asan_link_order=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
exec /usr/lib/llvm-22/bin/lit -sv --order=lexical -j "${FX_MLIR_JOBS:-2}" \
  --filter-out 'fuzz/|Install/' "$BUILD_DIR/test"
