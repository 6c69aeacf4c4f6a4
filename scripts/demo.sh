#!/usr/bin/env bash
# The main demo: parse and verify the sample graph of a small CNN, then print
# its node table as torch.fx's Graph.print_tabular() does.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${FX_MLIR_BUILD_DIR:-build}
SAMPLE=examples/small_cnn.mlir
echo "== fx-opt: parse and verify $SAMPLE"
"$BUILD_DIR/bin/fx-opt" "$SAMPLE" --verify-roundtrip -o /dev/null
echo "verified; round trip (print -> parse -> print) is identical"
echo
echo "== fx-opt --fx-print-tabular $SAMPLE"
"$BUILD_DIR/bin/fx-opt" "$SAMPLE" --fx-print-tabular -o /dev/null
