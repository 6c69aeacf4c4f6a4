// RUN: fx-opt %s --fx-replace-pattern="file=%S/Inputs/replace-pattern/add-relu-mul-sigmoid.mlir" | FileCheck %s

// Each match of a chain reads the output of the match before it, which
// was replaced: each copy reads the copy made for the match before it.
// (The matched nodes are erased after the last replacement: a copy made
// where an erased node was could be taken for the erased node's value,
// and wired a later match to the wrong copy.)

// CHECK-LABEL: fx.graph @chain
// CHECK:         %[[M0:.*]] = fx.call_function "torch.mul"(%x, %y)
// CHECK-NEXT:    %relu = fx.call_function "torch.sigmoid"(%[[M0]])
// CHECK-NEXT:    %[[M1:.*]] = fx.call_function "torch.mul"(%relu, %y)
// CHECK-NEXT:    %relu_1 = fx.call_function "torch.sigmoid"(%[[M1]])
// CHECK-NEXT:    %[[M2:.*]] = fx.call_function "torch.mul"(%relu_1, %x)
// CHECK-NEXT:    %relu_2 = fx.call_function "torch.sigmoid"(%[[M2]])
// CHECK-NEXT:    %[[M3:.*]] = fx.call_function "torch.mul"(%relu_2, %relu)
// CHECK-NEXT:    %relu_3 = fx.call_function "torch.sigmoid"(%[[M3]])
// CHECK-NEXT:    %[[S:.*]] = fx.call_function "operator.add"(%relu, %relu_1)
// CHECK-NEXT:    %[[T:.*]] = fx.call_function "operator.add"(%[[S]], %relu_2)
// CHECK-NEXT:    %[[U:.*]] = fx.call_function "operator.add"(%[[T]], %relu_3)
// CHECK-NEXT:    fx.output %[[U]]
fx.graph @chain {
  %x = fx.placeholder "x" : tensor<4xf32>
  %y = fx.placeholder "y" : tensor<4xf32>
  %add = fx.call_function "torch.add"(%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %relu = fx.call_function "torch.relu"(%add) : (tensor<4xf32>) -> tensor<4xf32>
  %add_1 = fx.call_function "torch.add"(%relu, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %relu_1 = fx.call_function "torch.relu"(%add_1) : (tensor<4xf32>) -> tensor<4xf32>
  %add_2 = fx.call_function "torch.add"(%relu_1, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %relu_2 = fx.call_function "torch.relu"(%add_2) : (tensor<4xf32>) -> tensor<4xf32>
  %add_3 = fx.call_function "torch.add"(%relu_2, %relu) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %relu_3 = fx.call_function "torch.relu"(%add_3) : (tensor<4xf32>) -> tensor<4xf32>
  %s = fx.call_function "operator.add"(%relu, %relu_1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %t = fx.call_function "operator.add"(%s, %relu_2) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %u = fx.call_function "operator.add"(%t, %relu_3) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  fx.output %u : tensor<4xf32>
}
