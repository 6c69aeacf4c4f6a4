#!/usr/bin/env bash
# Runs one libFuzzer target for a while on its corpus:
#
#   scripts/fuzz.sh parse|lower|npy|torchscript SECONDS [libFuzzer flags...]
#
# Builds fuzz/ with clang-22 (coverage, AddressSanitizer,
# UndefinedBehaviorSanitizer) against the build tree ($FX_MLIR_BUILD_DIR,
# default build/, built first), into $FX_MLIR_BUILD_DIR/fuzz. The corpus:
# the regression inputs of test/fuzz/<target>/ (findings that were fixed,
# read only) plus a working corpus under $FX_MLIR_BUILD_DIR/fuzz/corpus-<target>,
# seeded with the project's own files. A finding (crash, sanitizer report,
# leak, timeout) is written as $FX_MLIR_BUILD_DIR/fuzz/<kind>-<hash>
# and the script exits non-zero.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:?usage: scripts/fuzz.sh parse|lower|npy|torchscript SECONDS [flags...]}
seconds=${2:?usage: scripts/fuzz.sh parse|lower|npy|torchscript SECONDS [flags...]}
shift 2
BUILD_DIR=$(realpath "${FX_MLIR_BUILD_DIR:-build}")
FUZZ_DIR=$BUILD_DIR/fuzz
case "$target" in
  parse|lower|npy|torchscript) ;;
  *) echo "fuzz.sh: unknown target '$target' (parse, lower, npy, torchscript)" >&2; exit 2 ;;
esac

if [ ! -f "$FUZZ_DIR/build.ninja" ]; then
  cmake -G Ninja -S fuzz -B "$FUZZ_DIR" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_COMPILER=clang++-22 -DFX_MLIR_BUILD_DIR="$BUILD_DIR" \
    > "$FUZZ_DIR.configure.log" 2>&1 ||
    { cat "$FUZZ_DIR.configure.log" >&2; exit 1; }
fi
ninja -C "$FUZZ_DIR" -j "${FX_MLIR_JOBS:-2}" "fuzz-$target" > "$FUZZ_DIR.build.log" 2>&1 ||
  { tail -40 "$FUZZ_DIR.build.log" >&2; exit 1; }

corpus=$FUZZ_DIR/corpus-$target
mkdir -p "$corpus" test/fuzz/$target
if [ -z "$(ls -A "$corpus")" ]; then
  case "$target" in
    parse|lower)
      # The project's own IR: examples, and the test inputs of the dialect
      # and the conversions (split at `// -----` as fx-opt does).
      i=0
      # Comment lines (RUN and CHECK lines) are left out.
      for f in examples/*.mlir test/Dialect/FX/*.mlir test/Conversion/*/*.mlir; do
        awk -v dir="$corpus" -v base="seed$i" '
          /^\/\/ -----/ { n++; next }
          /^ *\/\// { next }
          { print > (dir "/" base "-" n+0) }' "$f"
        i=$((i + 1))
      done ;;
    npy)
      /usr/bin/python3 - "$corpus" <<'PY'
import sys, numpy as np
d = sys.argv[1]
for i, a in enumerate([np.zeros((2, 3), np.float32), np.arange(5),
                       np.ones((1, 2, 2), np.float64), np.array(True),
                       np.zeros((0, 4), np.int32), np.arange(6, dtype=np.uint8)]):
    np.save(f"{d}/seed{i}.npy", a)
PY
      ;;
    torchscript)
      # The small archives of the TorchScript tests, as record lists
      # (fuzz/fuzz_torchscript.cpp): name, size, bytes.
      /usr/bin/python3 test/Target/TorchScript/Inputs/make_pt.py \
        "$FUZZ_DIR/archives" block control_flow custom_class scripted encoder > /dev/null
      /usr/bin/python3 - "$FUZZ_DIR/archives" "$corpus" <<'PY'
import os, sys, zipfile
src, dst = sys.argv[1:]
for name in sorted(os.listdir(src)):
    path = os.path.join(src, name)
    if os.path.getsize(path) > 100_000 or not zipfile.is_zipfile(path):
        continue
    try:
        with zipfile.ZipFile(path) as z:
            out = b""
            for item in z.infolist():
                record = item.filename.split("/", 1)[1]
                payload = z.read(item.filename)
                out += record.encode() + b"\n%d\n" % len(payload) + payload
    except Exception:
        continue  # the corrupt archives of the error tests
    open(os.path.join(dst, name + ".records"), "wb").write(out)
PY
      ;;
  esac
fi
cd "$FUZZ_DIR"
extra=()
# LibTorch's unpickler reserves a string of the length a pickle declares
# (4 GiB for a mutated BINUNICODE) before it finds the data missing and
# throws: address space, never touched. The RSS limit still holds.
[ "$target" = torchscript ] && extra=(-malloc_limit_mb=65536)
# A size past what the allocator supports makes operator new fail as in
# a production build (std::bad_alloc, which the importer reports), not
# an AddressSanitizer abort.
asan_options=allow_user_poisoning=0:detect_leaks=0
[ "$target" = torchscript ] && asan_options=$asan_options:allocator_may_return_null=1
# allow_user_poisoning=0: LLVM's headers poison the free part of a
# BumpPtrAllocator's slab in our instrumented code, and the uninstrumented
# libMLIR.so allocating from the same slab would be reported as a
# use-after-poison. Leak checking needs ptrace, which some sandboxes deny.
# libFuzzer's output goes to stdout, whole (the lit test reads it there);
# if the run fails, its end (the report of the finding) also goes to
# stderr, which lit shows in full where FileCheck would only quote the
# first lines of a long log.
log=$FUZZ_DIR/fuzz-$target.log
stamp=$FUZZ_DIR/fuzz-$target.start
touch "$stamp"
status=0
ASAN_OPTIONS=${ASAN_OPTIONS:-$asan_options} \
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1} \
  "./fuzz-$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 \
  -print_final_stats=1 -artifact_prefix="$FUZZ_DIR/" "${extra[@]}" "$@" \
  "$corpus" "$OLDPWD/test/fuzz/$target" > "$log" 2>&1 || status=$?
cat "$log"
if [ "$status" -ne 0 ]; then
  {
    echo "fuzz.sh: fuzz-$target exited with status $status; the end of its output:"
    tail -n 80 "$log"
    find "$FUZZ_DIR" -maxdepth 1 -newer "$stamp" -regextype egrep \
      -regex '.*/(crash|leak|timeout|oom|slow-unit)-[^/]*' \
      -printf 'fuzz.sh: finding: %p\n'
  } >&2
fi
exit "$status"
