// RUN: fx-opt %s -split-input-file --fx-replace-pattern="file=%S/Inputs/replace-pattern/add-relu.mlir" | FileCheck %s
// RUN: fx-opt %s -split-input-file --fx-replace-pattern="file=%S/Inputs/replace-pattern/transpose.mlir" | FileCheck %s --check-prefix=TRANSPOSE
// RUN: fx-opt %s -split-input-file --fx-replace-pattern="file=%S/Inputs/replace-pattern/square.mlir" | FileCheck %s --check-prefix=SQUARE
// RUN: fx-opt %s -split-input-file --fx-replace-pattern="file=%S/Inputs/replace-pattern/var-mean.mlir" | FileCheck %s --check-prefix=MULTI
// RUN: fx-opt %s -split-input-file --fx-replace-pattern="file=%S/Inputs/replace-pattern/scale.mlir" -verify-diagnostics | FileCheck %s --check-prefix=STATE

// The matches as JSON:
// RUN: rm -f %t.json
// RUN: fx-opt %S/Inputs/replace-pattern/report-graph.mlir --fx-replace-pattern="file=%S/Inputs/replace-pattern/add-relu.mlir report=%t.json" -o /dev/null
// RUN: FileCheck %s --check-prefix=REPORT < %t.json

// Bad pattern files: a clear error naming the file, non-zero exit.
// RUN: not fx-opt %s --fx-replace-pattern="file=%S/Inputs/replace-pattern/bad-syntax.mlir" 2>&1 | FileCheck %s --check-prefix=ERR-PARSE
// RUN: not fx-opt %s --fx-replace-pattern="file=%S/Inputs/replace-pattern/missing.mlir" 2>&1 | FileCheck %s --check-prefix=ERR-MISSING
// RUN: not fx-opt %s --fx-replace-pattern="file=%S/Inputs/replace-pattern/no-replacement.mlir" 2>&1 | FileCheck %s --check-prefix=ERR-NO-REPLACEMENT
// RUN: not fx-opt %s --fx-replace-pattern="file=%S/Inputs/replace-pattern/no-output.mlir" 2>&1 | FileCheck %s --check-prefix=ERR-NO-OUTPUT
// RUN: not fx-opt %s --fx-replace-pattern="file=%S/Inputs/replace-pattern/input-count.mlir" 2>&1 | FileCheck %s --check-prefix=ERR-INPUTS
// RUN: not fx-opt %s --fx-replace-pattern="file=%S/Inputs/replace-pattern/output-count.mlir" 2>&1 | FileCheck %s --check-prefix=ERR-OUTPUTS
// RUN: not fx-opt %s --fx-replace-pattern 2>&1 | FileCheck %s --check-prefix=ERR-NO-FILE

// fx-replace-pattern: torch.fx.subgraph_rewriter.replace_pattern. A match
// maps pattern nodes to graph nodes of the same kind and target with equal
// literal args, anchored at the pattern's outputs; matches are found in
// graph order, do not overlap, and are rejected when an interior node is
// used outside. Each match becomes a copy of the replacement; a copied
// node that produces an output takes the matched node's name (and its
// type: the graph's signature does not change).

// ERR-PARSE: bad-syntax.mlir:{{[0-9]+}}:{{[0-9]+}}: error: expected ')'
// ERR-PARSE: error: fx-replace-pattern: cannot parse '{{.*}}bad-syntax.mlir'
// ERR-MISSING: error: fx-replace-pattern: cannot parse '{{.*}}missing.mlir'
// ERR-NO-REPLACEMENT: error: fx-replace-pattern: '{{.*}}no-replacement.mlir' has no fx.graph or fx.graph_module named 'replacement'
// ERR-NO-OUTPUT: no-output.mlir:{{[0-9]+}}:{{[0-9]+}}: error: fx-replace-pattern: the pattern graph has no output node returning a value
// ERR-INPUTS: input-count.mlir:{{[0-9]+}}:{{[0-9]+}}: error: fx-replace-pattern: the replacement takes 2 inputs but the pattern takes 1
// ERR-OUTPUTS: output-count.mlir:{{[0-9]+}}:{{[0-9]+}}: error: fx-replace-pattern: the replacement returns 2 values but the pattern returns 1
// ERR-NO-FILE: error: fx-replace-pattern needs 'file', the MLIR file holding the 'pattern' and 'replacement' graphs

// REPORT:      [
// REPORT-NEXT:   {
// REPORT-NEXT:     "anchor": "relu",
// REPORT-NEXT:     "nodes_map": {
// REPORT-NEXT:       "add": "add",
// REPORT-NEXT:       "relu": "relu",
// REPORT-NEXT:       "x": "a",
// REPORT-NEXT:       "y": "b"
// REPORT-NEXT:     }
// REPORT-NEXT:   },
// REPORT-NEXT:   {
// REPORT-NEXT:     "anchor": "relu_1",
// REPORT-NEXT:     "nodes_map": {
// REPORT-NEXT:       "add": "add_1",
// REPORT-NEXT:       "relu": "relu_1",
// REPORT-NEXT:       "x": "b",
// REPORT-NEXT:       "y": "a"
// REPORT-NEXT:     }
// REPORT-NEXT:   }
// REPORT-NEXT: ]

//===----------------------------------------------------------------------===//
// add-relu.mlir: relu(add(x, y)) -> fused add
//===----------------------------------------------------------------------===//

// CHECK-LABEL: fx.graph @single
// CHECK-NEXT:    %a = fx.placeholder "a"
// CHECK-NEXT:    %b = fx.placeholder "b"
// CHECK-NEXT:    %relu = fx.call_function "fx_mlir.fused.add"(%a, %b, alpha=1, activation="relu") : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    fx.output %relu : tensor<4xf32>
fx.graph @single {
  %a = fx.placeholder "a" : tensor<4xf32>
  %b = fx.placeholder "b" : tensor<4xf32>
  %add = fx.call_function "aten::add.Tensor"(%a, %b, alpha=1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %relu = fx.call_function "aten::relu"(%add) : (tensor<4xf32>) -> tensor<4xf32>
  fx.output %relu : tensor<4xf32>
}

// -----

// Two independent matches; the users of both outputs follow.

// CHECK-LABEL: fx.graph @two_matches
// CHECK-NEXT:    %a = fx.placeholder "a"
// CHECK-NEXT:    %b = fx.placeholder "b"
// CHECK-NEXT:    %relu = fx.call_function "fx_mlir.fused.add"(%a, %b, alpha=1, activation="relu")
// CHECK-NEXT:    %relu_1 = fx.call_function "fx_mlir.fused.add"(%b, %a, alpha=1, activation="relu")
// CHECK-NEXT:    %mul = fx.call_function "aten::mul.Tensor"(%relu, %relu_1)
// CHECK-NEXT:    fx.output %mul
fx.graph @two_matches {
  %a = fx.placeholder "a" : tensor<4xf32>
  %b = fx.placeholder "b" : tensor<4xf32>
  %add = fx.call_function "aten::add.Tensor"(%a, %b, alpha=1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %relu = fx.call_function "aten::relu"(%add) : (tensor<4xf32>) -> tensor<4xf32>
  %add_1 = fx.call_function "aten::add.Tensor"(%b, %a, alpha=1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %relu_1 = fx.call_function "aten::relu"(%add_1) : (tensor<4xf32>) -> tensor<4xf32>
  %mul = fx.call_function "aten::mul.Tensor"(%relu, %relu_1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  fx.output %mul : tensor<4xf32>
}

// -----

// The second match's input is the first match's output: the matches do
// not overlap, both are replaced, the second reads the first's copy.

// CHECK-LABEL: fx.graph @chained
// CHECK-NEXT:    %a = fx.placeholder "a"
// CHECK-NEXT:    %b = fx.placeholder "b"
// CHECK-NEXT:    %relu = fx.call_function "fx_mlir.fused.add"(%a, %b, alpha=1, activation="relu")
// CHECK-NEXT:    %relu_1 = fx.call_function "fx_mlir.fused.add"(%relu, %b, alpha=1, activation="relu")
// CHECK-NEXT:    fx.output %relu_1
fx.graph @chained {
  %a = fx.placeholder "a" : tensor<4xf32>
  %b = fx.placeholder "b" : tensor<4xf32>
  %add = fx.call_function "aten::add.Tensor"(%a, %b, alpha=1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %relu = fx.call_function "aten::relu"(%add) : (tensor<4xf32>) -> tensor<4xf32>
  %add_1 = fx.call_function "aten::add.Tensor"(%relu, %b, alpha=1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %relu_1 = fx.call_function "aten::relu"(%add_1) : (tensor<4xf32>) -> tensor<4xf32>
  fx.output %relu_1 : tensor<4xf32>
}

// -----

// The add inside the match is also used by the mul: no match.

// CHECK-LABEL: fx.graph @interior_user
// CHECK-NEXT:    %a = fx.placeholder "a"
// CHECK-NEXT:    %b = fx.placeholder "b"
// CHECK-NEXT:    %add = fx.call_function "aten::add.Tensor"(%a, %b, alpha=1)
// CHECK-NEXT:    %relu = fx.call_function "aten::relu"(%add)
// CHECK-NEXT:    %mul = fx.call_function "aten::mul.Tensor"(%relu, %add)
fx.graph @interior_user {
  %a = fx.placeholder "a" : tensor<4xf32>
  %b = fx.placeholder "b" : tensor<4xf32>
  %add = fx.call_function "aten::add.Tensor"(%a, %b, alpha=1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %relu = fx.call_function "aten::relu"(%add) : (tensor<4xf32>) -> tensor<4xf32>
  %mul = fx.call_function "aten::mul.Tensor"(%relu, %add) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  fx.output %mul : tensor<4xf32>
}

// -----

// The output itself may have several users.

// CHECK-LABEL: fx.graph @output_users
// CHECK:         %relu = fx.call_function "fx_mlir.fused.add"(%a, %b, alpha=1, activation="relu")
// CHECK-NEXT:    %neg = fx.call_function "aten::neg"(%relu)
// CHECK-NEXT:    fx.output (%neg, %relu) : tensor<4xf32>, tensor<4xf32>
fx.graph @output_users {
  %a = fx.placeholder "a" : tensor<4xf32>
  %b = fx.placeholder "b" : tensor<4xf32>
  %add = fx.call_function "aten::add.Tensor"(%a, %b, alpha=1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %relu = fx.call_function "aten::relu"(%add) : (tensor<4xf32>) -> tensor<4xf32>
  %neg = fx.call_function "aten::neg"(%relu) : (tensor<4xf32>) -> tensor<4xf32>
  fx.output (%neg, %relu) : tensor<4xf32>, tensor<4xf32>
}

// -----

// Kwargs are literal args too: alpha=2 is not the pattern's alpha=1.

// CHECK-LABEL: fx.graph @kwarg_differs
// CHECK:         %add = fx.call_function "aten::add.Tensor"(%a, %b, alpha=2)
// CHECK-NEXT:    %relu = fx.call_function "aten::relu"(%add)
fx.graph @kwarg_differs {
  %a = fx.placeholder "a" : tensor<4xf32>
  %b = fx.placeholder "b" : tensor<4xf32>
  %add = fx.call_function "aten::add.Tensor"(%a, %b, alpha=2) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %relu = fx.call_function "aten::relu"(%add) : (tensor<4xf32>) -> tensor<4xf32>
  fx.output %relu : tensor<4xf32>
}

// -----

// Targets are compared exactly: torch.relu is not the pattern's aten::relu.

// CHECK-LABEL: fx.graph @other_spelling
// CHECK:         %add = fx.call_function "aten::add.Tensor"(%a, %b, alpha=1)
// CHECK-NEXT:    %relu = fx.call_function "torch.relu"(%add)
fx.graph @other_spelling {
  %a = fx.placeholder "a" : tensor<4xf32>
  %b = fx.placeholder "b" : tensor<4xf32>
  %add = fx.call_function "aten::add.Tensor"(%a, %b, alpha=1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %relu = fx.call_function "torch.relu"(%add) : (tensor<4xf32>) -> tensor<4xf32>
  fx.output %relu : tensor<4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// transpose.mlir: transpose(x, 0, 1) -> x.t()
//===----------------------------------------------------------------------===//

// transpose(x, 1, 2) has other literal args: only the second call matches.

// TRANSPOSE-LABEL: fx.graph @literal_args
// TRANSPOSE:         %a = fx.call_function "torch.transpose"(%x, 1, 2) : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
// TRANSPOSE-NEXT:    %b = fx.call_function "torch.t"(%y) : (tensor<2x3xf32>) -> tensor<3x2xf32>
// TRANSPOSE-NEXT:    fx.output (%a, %b) : tensor<2x4x3xf32>, tensor<3x2xf32>
fx.graph @literal_args {
  %x = fx.placeholder "x" : tensor<2x3x4xf32>
  %y = fx.placeholder "y" : tensor<2x3xf32>
  %a = fx.call_function "torch.transpose"(%x, 1, 2) : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
  %b = fx.call_function "torch.transpose"(%y, 0, 1) : (tensor<2x3xf32>) -> tensor<3x2xf32>
  fx.output (%a, %b) : tensor<2x4x3xf32>, tensor<3x2xf32>
}

// -----

//===----------------------------------------------------------------------===//
// square.mlir: x * x -> x ** 2
//===----------------------------------------------------------------------===//

// SQUARE-LABEL: fx.graph @same_input
// SQUARE:         %aa = fx.call_function "operator.pow"(%a, 2)
// SQUARE-NEXT:    %ab = fx.call_function "operator.mul"(%a, %b)
fx.graph @same_input {
  %a = fx.placeholder "a" : tensor<4xf32>
  %b = fx.placeholder "b" : tensor<4xf32>
  %aa = fx.call_function "operator.mul"(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %ab = fx.call_function "operator.mul"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  fx.output (%aa, %ab) : tensor<4xf32>, tensor<4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// var-mean.mlir: two outputs (var(x), mean(x)) -> var_mean(x)
//===----------------------------------------------------------------------===//

// The outputs are apart in the graph; the copy goes before the last of
// them and the block is sorted so that each use follows its definition.
// The relu between them is not part of the match and stays.

// MULTI-LABEL: fx.graph @two_outputs
// MULTI-NEXT:    %x = fx.placeholder "x"
// MULTI:         %var_mean = fx.call_function "torch.var_mean"(%x)
// MULTI-NEXT:    %var = fx.call_function "operator.getitem"(%var_mean, 0)
// MULTI-NEXT:    %mean = fx.call_function "operator.getitem"(%var_mean, 1)
// MULTI:         %sub = fx.call_function "operator.sub"(%var, %mean)
// MULTI-NEXT:    fx.output (%sub, %relu) : tensor<f32>, tensor<8xf32>
// MULTI-NOT:     torch.var"
// MULTI-NOT:     torch.mean"
fx.graph @two_outputs {
  %x = fx.placeholder "x" : tensor<8xf32>
  %mean = fx.call_function "torch.mean"(%x) : (tensor<8xf32>) -> tensor<f32>
  %relu = fx.call_function "torch.relu"(%x) : (tensor<8xf32>) -> tensor<8xf32>
  %var = fx.call_function "torch.var"(%x) : (tensor<8xf32>) -> tensor<f32>
  %sub = fx.call_function "operator.sub"(%var, %mean) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  fx.output (%sub, %relu) : tensor<f32>, tensor<8xf32>
}

// -----

//===----------------------------------------------------------------------===//
// scale.mlir: x * 2.0 -> x * self.scale
//===----------------------------------------------------------------------===//

// The graph module has the state the replacement reads.

// STATE-LABEL: fx.graph_module @HasScale
// STATE:         %x = fx.placeholder "x"
// STATE-NEXT:    %scale = fx.get_attr @scale : tensor<f32>
// STATE-NEXT:    %mul = fx.call_function "operator.mul"(%x, %scale) : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
// STATE-NEXT:    fx.output %mul : tensor<8xf32>
fx.graph_module @HasScale {
  fx.state buffer @scale : tensor<f32>
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<8xf32>
    %mul = fx.call_function "operator.mul"(%x, 2.0) : (tensor<8xf32>) -> tensor<8xf32>
    fx.output %mul : tensor<8xf32>
  }
}

// -----

// A match where the replacement's state does not exist: an error.

fx.graph_module @LacksScale {
  // expected-error @+1 {{fx-replace-pattern: the replacement node 'scale' uses 'scale', which the graph module does not have}}
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<8xf32>
    %mul = fx.call_function "operator.mul"(%x, 2.0) : (tensor<8xf32>) -> tensor<8xf32>
    fx.output %mul : tensor<8xf32>
  }
}

// -----

// No match: the replacement is not inserted, so the state it reads is not
// needed, and the graph is left as it is.

// STATE-LABEL: fx.graph_module @NoMatch
// STATE:         %mul = fx.call_function "operator.mul"(%x, 3.0)
fx.graph_module @NoMatch {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<8xf32>
    %mul = fx.call_function "operator.mul"(%x, 3.0) : (tensor<8xf32>) -> tensor<8xf32>
    fx.output %mul : tensor<8xf32>
  }
}
