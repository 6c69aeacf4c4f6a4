// fx-opt on malformed input: it exits non-zero, prints nothing on stdout,
// and its diagnostic names the file, line and column of the problem.
// Each input is its own file so that each run must fail on its own.

// RUN: rm -rf %t && split-file --leading-lines %s %t
// RUN: not fx-opt %t/syntax.mlir 2>&1 | FileCheck %t/syntax.mlir
// RUN: not fx-opt %t/unclosed.mlir 2>&1 | FileCheck %t/unclosed.mlir
// RUN: not fx-opt %t/unknown-op.mlir 2>&1 | FileCheck %t/unknown-op.mlir
// RUN: not fx-opt %t/unknown-generic-op.mlir 2>&1 | FileCheck %t/unknown-generic-op.mlir
// RUN: not fx-opt %t/unknown-type.mlir 2>&1 | FileCheck %t/unknown-type.mlir
// RUN: not fx-opt %t/unknown-attr.mlir 2>&1 | FileCheck %t/unknown-attr.mlir
// RUN: not fx-opt %t/bad-node-attr.mlir 2>&1 | FileCheck %t/bad-node-attr.mlir
// RUN: not fx-opt %t/bad-dict-attr.mlir 2>&1 | FileCheck %t/bad-dict-attr.mlir
// RUN: not fx-opt %t/missing-attr.mlir 2>&1 | FileCheck %t/missing-attr.mlir
// RUN: not fx-opt %t/duplicate-symbol.mlir 2>&1 | FileCheck %t/duplicate-symbol.mlir
// RUN: not fx-opt %t/verifier.mlir 2>&1 | FileCheck %t/verifier.mlir

// Nothing reaches stdout when the input is rejected.
// RUN: not fx-opt %t/syntax.mlir 2>/dev/null | count 0
// RUN: not fx-opt %t/verifier.mlir 2>/dev/null | count 0

// A missing input file, and a table file that cannot be written.
// RUN: not fx-opt %t/does-not-exist.mlir 2>&1 | FileCheck %s --check-prefix=NO-INPUT
// RUN: not fx-opt %t/ok.mlir --fx-print-tabular=output=%t/no-such-dir/table.txt -o /dev/null 2>&1 | FileCheck %s --check-prefix=NO-OUTPUT

// NO-INPUT: cannot open input file '{{.*}}does-not-exist.mlir': No such file or directory
// NO-OUTPUT: ok.mlir:0:0: error: fx-print-tabular: cannot open output file '{{.*}}table.txt'

//--- syntax.mlir
fx.graph @g {
  %x = fx.placeholder "x" : !fx.any
  // CHECK: syntax.mlir:[[@LINE+1]]:31: error: expected ')'
  %y = fx.call_function "f"(%x : (!fx.any) -> !fx.any
  fx.output %y : !fx.any
}

//--- unclosed.mlir
// CHECK: unclosed.mlir:[[@LINE+2]]:17: error: expected operation name in quotes
fx.graph @g {
  fx.output None

//--- unknown-op.mlir
fx.graph @g {
  // CHECK: unknown-op.mlir:[[@LINE+1]]:8: error: custom op 'fx.bogus' is unknown
  %x = fx.bogus "x" : !fx.any
  fx.output None
}

//--- unknown-generic-op.mlir
fx.graph @g {
  // CHECK: unknown-generic-op.mlir:[[@LINE+1]]:8: error: unregistered operation 'fx.bogus' found in dialect ('fx') that does not allow unknown operations
  %x = "fx.bogus"() : () -> !fx.any
  fx.output None
}

//--- unknown-type.mlir
fx.graph @g {
  // CHECK: unknown-type.mlir:[[@LINE+1]]:33: error: unknown{{ +}}type `bogus` in dialect `fx`
  %x = fx.placeholder "x" : !fx.bogus
  fx.output None
}

//--- unknown-attr.mlir
fx.graph @g {
  // CHECK: unknown-attr.mlir:[[@LINE+1]]:43: error: unknown attribute `bogus` in dialect `fx`
  %f = "fx.call_function"() <{args = [#fx.bogus<1>], kwargs = #fx.dict<>, node_name = "f", target = "f"}> : () -> !fx.any
  fx.output %f : !fx.any
}

//--- bad-node-attr.mlir
fx.graph @g {
  // CHECK: bad-node-attr.mlir:[[@LINE+2]]:48: error: expected integer value
  // CHECK: bad-node-attr.mlir:[[@LINE+1]]:48: error: failed to parse FX_NodeAttr parameter 'index'
  %f = "fx.call_function"() <{args = [#fx.node<x>], kwargs = #fx.dict<>, node_name = "f", target = "f"}> : () -> !fx.any
  fx.output %f : !fx.any
}

//--- bad-dict-attr.mlir
fx.graph @g {
  // CHECK: bad-dict-attr.mlir:[[@LINE+1]]:51: error: expected '='
  %f = "fx.call_function"() <{args = [#fx.dict<"a" 1>], kwargs = #fx.dict<>, node_name = "f", target = "f"}> : () -> !fx.any
  fx.output %f : !fx.any
}

//--- missing-attr.mlir
fx.graph @g {
  // CHECK: missing-attr.mlir:[[@LINE+1]]:8: error: 'fx.call_function' op requires attribute 'kwargs'
  %f = "fx.call_function"() <{args = [], node_name = "f", target = "f"}> : () -> !fx.any
  fx.output %f : !fx.any
}

//--- duplicate-symbol.mlir
fx.graph_module @M {
  fx.state parameter @w : tensor<2xf32>
  // CHECK: duplicate-symbol.mlir:[[@LINE+1]]:3: error: redefinition of symbol named 'w'
  fx.submodule @w "torch.nn.ReLU"()
  fx.graph @forward {
    fx.output None
  }
}

//--- verifier.mlir
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : !fx.any
    // CHECK: verifier.mlir:[[@LINE+1]]:13: error: 'fx.call_module' op call_module 'conv' refers to 'conv', which is not a submodule of graph module 'M'
    %conv = fx.call_module @conv(%x) : (!fx.any) -> !fx.any
    fx.output %conv : !fx.any
  }
}

//--- ok.mlir
fx.graph @g {
  fx.output None
}
