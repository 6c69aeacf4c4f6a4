// A string left open on the last line of a file, in a dialect_resources
// entry (Inputs/open-resource-string.mlir ends there, without a newline):
// MLIR 22's lexer read on past the end of the text (a fault under
// AddressSanitizer, found by fuzz-lower). Every tool parses text with a
// final newline (fx-mlir/Support/ParseText.h): the open string is
// reported, and nothing after the end of the file.
//
// RUN: not fx-opt %S/Inputs/open-resource-string.mlir 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not="unexpected character"
// RUN: not fx-opt %S/Inputs/open-resource-string.mlir -split-input-file 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not="unexpected character"
// RUN: not fx-opt < %S/Inputs/open-resource-string.mlir 2>&1 \
// RUN:   | FileCheck %s --check-prefix=STDIN --implicit-check-not="unexpected character"
// RUN: not fx-translate --export-python %S/Inputs/open-resource-string.mlir 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not="unexpected character"
// RUN: not fx-translate --export-fx-json %S/Inputs/open-resource-string.mlir 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not="unexpected character"
// RUN: not fx-run %S/Inputs/open-resource-string.mlir 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not="unexpected character"

// CHECK: open-resource-string.mlir{{"?}}:6:48{{\)?}}: error: expected '"' in string literal
// STDIN: <stdin>:6:48: error: expected '"' in string literal
