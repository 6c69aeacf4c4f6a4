// RUN: fx-opt %s | FileCheck %s
// RUN: fx-opt %s | fx-opt | FileCheck %s
//
// The custom form gives each node reference an operand of its own, in the
// order they are written. The generic form may refer to one operand
// several times or to the operands out of order (found by fuzz-parse:
// such an op printed a type list that did not parse back); its custom
// form lists one type per reference, in order, and parses back.

// CHECK-LABEL: fx.graph @repeated
// CHECK: fx.output (%x, %x) : tensor<2xf32>, tensor<2xf32>
"fx.graph"() <{sym_name = "repeated"}> ({
  %0 = "fx.placeholder"() <{node_name = "x", target = "x"}> : () -> tensor<2xf32>
  "fx.output"(%0) <{args = [#fx.tuple<[#fx.node<0>, #fx.node<0>]>], node_name = "output"}> : (tensor<2xf32>) -> ()
}) : () -> ()

// CHECK-LABEL: fx.graph @reordered
// CHECK: %c = fx.call_function "f"(%y, %x, %y, k=%x) : (tensor<3xf32>, tensor<2xf32>, tensor<3xf32>, tensor<2xf32>) -> !fx.any
"fx.graph"() <{sym_name = "reordered"}> ({
  %0 = "fx.placeholder"() <{node_name = "x", target = "x"}> : () -> tensor<2xf32>
  %1 = "fx.placeholder"() <{node_name = "y", target = "y"}> : () -> tensor<3xf32>
  %2 = "fx.call_function"(%0, %1) <{args = [#fx.node<1>, #fx.node<0>, #fx.node<1>], kwargs = #fx.dict<"k" = #fx.node<0>>, node_name = "c", target = "f"}> : (tensor<2xf32>, tensor<3xf32>) -> !fx.any
  "fx.output"(%2) <{args = [#fx.node<0>], node_name = "output"}> : (!fx.any) -> ()
}) : () -> ()
