// Max pooling of a quantized tensor's integers (fx-fold-quant{int8-convs}
// pools them rather than their dequantized values, lit
// Dialect/FX/fx-fold-quant-pool.mlir) lowers in NHWC
// (lib/Conversion/FXToLinalg/QuantizedConv.cpp, int8MaxPool2d): the bytes
// copied into the interior of an NHWC buffer filled with the type's least
// value (0 for quint8, -128 for qint8), the windows strided views of it,
// one elementwise op of unsigned (quint8) or signed (qint8) maxima, then
// back to NCHW. 3x3 at stride 2 with ceil_mode (9 columns padded to 11),
// and 2x2 at stride 1 unpadded.
//
// RUN: fx-opt %s --fx-fold-quant=int8-convs=true --convert-fx-to-linalg | FileCheck %s
//
// fx-cpu-schedule vectorizes the maxima along the channels (the op has no
// f32 operand: integer ops that cannot trap are vectorized too), the
// signed pooling's 4 neighbouring outputs a tile (integer windows).
//
// RUN: fx-opt %s --fx-fold-quant=int8-convs=true --convert-fx-to-linalg | fx-opt --pass-pipeline='builtin.module(func.func(fx-cpu-schedule{target=x86-64-v4}))' | FileCheck %s --check-prefix=VECTOR

// CHECK-LABEL: func.func @forward
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : i8
// CHECK-DAG: %[[LEAST:.*]] = arith.constant -128 : i8
// CHECK: %[[PADDED:.*]] = linalg.fill ins(%[[ZERO]] : i8) outs({{.*}} : tensor<1x9x11x32xi8>)
// CHECK: %[[INTERIOR:.*]] = tensor.extract_slice %[[PADDED]][0, 1, 1, 0] [1, 7, 9, 32] [1, 1, 1, 1]
// CHECK: %[[NHWC:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<1x32x7x9xi8>) outs(%[[INTERIOR]] : tensor<1x7x9x32xi8>)
// CHECK: %[[WINDOWS:.*]] = tensor.insert_slice %[[NHWC]] into %[[PADDED]]
// CHECK: tensor.extract_slice %[[WINDOWS]][0, 0, 0, 0] [1, 4, 5, 32] [1, 2, 2, 1]
// CHECK-COUNT-7: tensor.extract_slice %[[WINDOWS]]
// CHECK: tensor.extract_slice %[[WINDOWS]][0, 2, 2, 0] [1, 4, 5, 32] [1, 2, 2, 1]
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x4x5x32xi8>)
// CHECK-COUNT-8: arith.maxui
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<1x4x5x32xi8>) outs(%{{.*}} : tensor<1x32x4x5xi8>)
// CHECK: linalg.fill ins(%[[LEAST]] : i8) outs({{.*}} : tensor<1x7x9x32xi8>)
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x6x8x32xi8>)
// CHECK-COUNT-3: arith.maxsi
// CHECK-NOT: arith.maxsi
// CHECK: -> tensor<1x32x6x8xi8>

// VECTOR-COUNT-8: arith.maxui {{.*}} : vector<32xi8>
// VECTOR-COUNT-3: arith.maxsi {{.*}} : vector<4x32xi8>

fx.graph_module @QuantizedPools {
  fx.graph @forward {
    %in = fx.placeholder "in" : tensor<1x32x7x9xf32>
    %x = fx.call_function "aten::quantize_per_tensor"(%in, 0.1, 128, torch.quint8) : (tensor<1x32x7x9xf32>) -> tensor<1x32x7x9x!quant.uniform<u8:f32, 0.1:128>>
    %xf = fx.call_function "aten::dequantize.self"(%x) : (tensor<1x32x7x9x!quant.uniform<u8:f32, 0.1:128>>) -> tensor<1x32x7x9xf32>
    %p = fx.call_function "aten::max_pool2d"(%xf, [3, 3], [2, 2], [1, 1], [1, 1], True) : (tensor<1x32x7x9xf32>) -> tensor<1x32x4x5xf32>
    %s = fx.call_function "aten::quantize_per_tensor"(%in, 0.1, 0, torch.qint8) : (tensor<1x32x7x9xf32>) -> tensor<1x32x7x9x!quant.uniform<i8:f32, 0.1>>
    %sf = fx.call_function "aten::dequantize.self"(%s) : (tensor<1x32x7x9x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x32x7x9xf32>
    %sp = fx.call_function "aten::max_pool2d"(%sf, [2, 2], [1, 1], [0, 0], [1, 1], False) : (tensor<1x32x7x9xf32>) -> tensor<1x32x6x8xf32>
    fx.output (%p, %sp) : tensor<1x32x4x5xf32>, tensor<1x32x6x8xf32>
  }
}
