// RUN: fx-opt %s -split-input-file --convert-fx-to-linalg | FileCheck %s
//
// Quantized tensors are computed as their storage integers (i8 for quint8
// and qint8). quantize_per_tensor: clamp(zero_point + roundeven(x *
// (1/scale)), qmin, qmax) in f32, as ATen's quantize_val (bytes converted
// through i32, qint32 through i64 and clamped again there; the clamp by
// maxnumf/minnumf: a NaN becomes qmin, as in ATen's kernel, and so does a
// scaled value from 2^63 up, +inf, whose int64 conversion in ATen gives
// INT64_MIN); dequantize:
// (q - zero_point) * scale, quint8 read unsigned, per channel with each
// channel's scale and zero point (the product in f64, as ATen's per-channel
// dequantize multiplies by the double scale); int_repr of quint8 is the uint8 tensor
// (computed as i32, as uint8 tensors are). A quantized weight is its blob
// of storage integers.

// CHECK-LABEL: func.func @forward(%arg0: tensor<2x3xf32>)
// CHECK: arith.constant dense_resource<w> : tensor<2x3xi8>
// CHECK: linalg.generic
// CHECK:   %[[SCALED:.*]] = arith.mulf
// CHECK:   math.roundeven %[[SCALED]]
// CHECK:   arith.addf
// CHECK:   arith.maxnumf
// CHECK:   %[[CLAMPED:.*]] = arith.minnumf
// CHECK:   %[[OVER:.*]] = arith.cmpf oge, %[[SCALED]], %{{.*}} : f32
// CHECK:   %[[Q:.*]] = arith.select %[[OVER]], %{{.*}}, %[[CLAMPED]] : f32
// CHECK:   arith.fptosi %[[Q]] : f32 to i32
// CHECK-NOT: arith.maxsi
// CHECK:   arith.trunci {{.*}} : i32 to i8
// CHECK: -> tensor<2x3xi8>
// CHECK: linalg.generic
// CHECK:   arith.uitofp {{.*}} : i8 to f32
// CHECK:   arith.subf
// CHECK:   arith.mulf
// CHECK: linalg.generic
// CHECK:   arith.sitofp {{.*}} : i8 to f32
// CHECK:   arith.subf
// CHECK:   arith.extf {{.*}} : f32 to f64
// CHECK:   arith.mulf {{.*}} : f64
// CHECK:   arith.truncf {{.*}} : f64 to f32
// CHECK: linalg.generic
// CHECK:   arith.extui {{.*}} : i8 to i32
fx.graph_module @Quantize {
  fx.state parameter @w : tensor<2x3x!quant.uniform<i8:f32:0, {0.25:0, 0.125:3}>> = dense_resource<w>
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x3xf32>
    %w = fx.get_attr @w : tensor<2x3x!quant.uniform<i8:f32:0, {0.25:0, 0.125:3}>>
    %q = fx.call_function "aten::quantize_per_tensor"(%x, 0.1, 128, torch.quint8) : (tensor<2x3xf32>) -> tensor<2x3x!quant.uniform<u8:f32, 0.1:128>>
    %d = fx.call_function "aten::dequantize.self"(%q) : (tensor<2x3x!quant.uniform<u8:f32, 0.1:128>>) -> tensor<2x3xf32>
    %dw = fx.call_function "aten::dequantize.self"(%w) : (tensor<2x3x!quant.uniform<i8:f32:0, {0.25:0, 0.125:3}>>) -> tensor<2x3xf32>
    %r = fx.call_function "aten::int_repr"(%q) : (tensor<2x3x!quant.uniform<u8:f32, 0.1:128>>) -> tensor<2x3xui8>
    fx.output (%d, %dw, %r) : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xui8>
  }
}

{-#
  dialect_resources: {
    builtin: {
      w: "0x010000000102FF80007F"
    }
  }
#-}

// -----

// Dynamic quantization: the scale (f64) and zero point (i64) chosen from
// the input's range (amin, amax; widened to hold 0; reduce_range: 127
// steps), then the input quantized and dequantized with them at run time.

// CHECK-LABEL: func.func @forward(%arg0: tensor<4x16xf32>)
// CHECK-DAG: arith.constant 1.270000e+02 : f64
// CHECK-DAG: arith.constant 1.000000e-01 : f64
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]
// CHECK: arith.minimumf
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]
// CHECK: arith.maximumf
// CHECK: arith.extf {{.*}} : f32 to f64
// CHECK: arith.divf {{.*}} : f64
// CHECK: math.roundeven {{.*}} : f64
// CHECK: arith.fptosi {{.*}} : f64 to i64
// CHECK: arith.truncf {{.*}} : f64 to f32
// CHECK: arith.sitofp {{.*}} : i64 to f32
// CHECK: linalg.generic
// CHECK:   math.roundeven {{.*}} : f32
// CHECK:   arith.subf
// CHECK:   arith.mulf
fx.graph_module @Dynamic {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<4x16xf32>
    %qp = fx.call_function "aten::_choose_qparams_per_tensor"(%x, True) : (tensor<4x16xf32>) -> tuple<f64, i64>
    %s = fx.call_function "operator.getitem"(%qp, 0) : (tuple<f64, i64>) -> f64
    %z = fx.call_function "operator.getitem"(%qp, 1) : (tuple<f64, i64>) -> i64
    %fq = fx.call_function "aten::fake_quantize_per_tensor_affine"(%x, %s, %z, 0, 255) : (tensor<4x16xf32>, f64, i64) -> tensor<4x16xf32>
    fx.output %fq : tensor<4x16xf32>
  }
}

// -----

// quantize(relu(y)) with the zero point above the dtype's minimum: the
// ReLU stays. (As a clamp from the zero point it would make a NaN the
// zero point; PyTorch's relu keeps the NaN and the quantize makes it 0.)

// CHECK-LABEL: func.func @forward(%arg0: tensor<4xf32>)
// CHECK: linalg.generic {{.*}} ins(%arg0 : tensor<4xf32>) outs(%{{.*}} : tensor<4xf32>)
// CHECK:   arith.cmpf olt
// CHECK:   arith.select
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<4xi8>)
fx.graph_module @ReluQuantize {
  fx.graph @forward {
    %y = fx.placeholder "y" : tensor<4xf32>
    %r = fx.call_function "aten::relu"(%y) : (tensor<4xf32>) -> tensor<4xf32>
    %q = fx.call_function "aten::quantize_per_tensor"(%r, 0.5, 10, torch.quint8) : (tensor<4xf32>) -> tensor<4x!quant.uniform<u8:f32, 0.5:10>>
    fx.output %q : tensor<4x!quant.uniform<u8:f32, 0.5:10>>
  }
}

// -----

// The zero point at the dtype's minimum (a ReLU's output, observed from
// 0): the clamp's lower bound is the ReLU, which is gone (the quantize
// reads y; a NaN gives 0 either way). Likewise for a fake quantize (what
// fx-fold-quant makes of a quantize whose dequantize a float op reads).

// CHECK-LABEL: func.func @forward(%arg0: tensor<4xf32>)
// CHECK-DAG: %[[LO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NOT: arith.cmpf olt
// CHECK: linalg.generic {{.*}} ins(%arg0 : tensor<4xf32>) outs(%{{.*}} : tensor<4xi8>)
// CHECK:   arith.maxnumf %{{.*}}, %[[LO]] : f32
// CHECK-NOT: arith.cmpf olt
// CHECK: linalg.generic {{.*}} ins(%arg0 : tensor<4xf32>) outs(%{{.*}} : tensor<4xf32>)
// CHECK:   arith.maxnumf
// CHECK-NOT: arith.cmpf olt
fx.graph_module @ReluQuantizeZeroPointAtMinimum {
  fx.graph @forward {
    %y = fx.placeholder "y" : tensor<4xf32>
    %r = fx.call_function "aten::relu"(%y) : (tensor<4xf32>) -> tensor<4xf32>
    %q = fx.call_function "aten::quantize_per_tensor"(%r, 0.5, 0, torch.quint8) : (tensor<4xf32>) -> tensor<4x!quant.uniform<u8:f32, 0.5:0>>
    %f = fx.call_function "aten::fake_quantize_per_tensor_affine"(%r, 0.25, 0, 0, 255) : (tensor<4xf32>) -> tensor<4xf32>
    fx.output (%q, %f) : tensor<4x!quant.uniform<u8:f32, 0.5:0>>, tensor<4xf32>
  }
}

// -----

// A clamp between two quantizations with the same parameters (torch's
// quantized ReLU6, hardtanh and clamp, which clamp the integers; what
// fx-fold-quant leaves of them: quantize(hardtanh(fake_quantize(y)))) is
// one quantize of y whose clamp bounds are the bounds' quantizations:
// q(0) = 10 and q(6) = round(6 / 0.5) + 10 = 22; q(-0.3) = 9 with
// q(+inf), no bound, 255. Neither the fake quantization nor the clamp
// is computed, and there is no 2^63 guard (a dequantized value is
// small). A bound quantized from out of range keeps the unfolded form.

// CHECK-LABEL: func.func @forward(%arg0: tensor<4xf32>)
// CHECK-DAG: %[[Q0:.*]] = arith.constant 1.000000e+01 : f32
// CHECK-DAG: %[[Q6:.*]] = arith.constant 2.200000e+01 : f32
// CHECK-DAG: %[[Q3:.*]] = arith.constant 9.000000e+00 : f32
// CHECK-DAG: %[[QMAX:.*]] = arith.constant 2.550000e+02 : f32
// CHECK: linalg.generic {{.*}} ins(%arg0 : tensor<4xf32>) outs(%{{.*}} : tensor<4xi8>)
// CHECK:   %[[R:.*]] = math.roundeven
// CHECK:   %[[Z:.*]] = arith.addf %[[R]]
// CHECK:   %[[LO:.*]] = arith.maxnumf %[[Z]], %[[Q0]] : f32
// CHECK:   arith.minnumf %[[LO]], %[[Q6]] : f32
// CHECK-NOT: arith.cmpf
// CHECK: linalg.generic {{.*}} ins(%arg0 : tensor<4xf32>) outs(%{{.*}} : tensor<4xi8>)
// CHECK:   %[[R2:.*]] = math.roundeven
// CHECK:   %[[Z2:.*]] = arith.addf %[[R2]]
// CHECK:   %[[LO2:.*]] = arith.maxnumf %[[Z2]], %[[Q3]] : f32
// CHECK:   arith.minnumf %[[LO2]], %[[QMAX]] : f32
// CHECK: arith.cmpf olt
// CHECK: arith.cmpf oge
fx.graph_module @QuantizedClamps {
  fx.graph @forward {
    %y = fx.placeholder "y" : tensor<4xf32>
    %f = fx.call_function "aten::fake_quantize_per_tensor_affine"(%y, 0.5, 10, 0, 255) : (tensor<4xf32>) -> tensor<4xf32>
    %h = fx.call_function "aten::hardtanh"(%f, 0.0, 6.0) : (tensor<4xf32>) -> tensor<4xf32>
    %q = fx.call_function "aten::quantize_per_tensor"(%h, 0.5, 10, torch.quint8) : (tensor<4xf32>) -> tensor<4x!quant.uniform<u8:f32, 0.5:10>>
    %c = fx.call_function "aten::clamp"(%f, -0.3, None) : (tensor<4xf32>) -> tensor<4xf32>
    %q2 = fx.call_function "aten::quantize_per_tensor"(%c, 0.5, 10, torch.quint8) : (tensor<4xf32>) -> tensor<4x!quant.uniform<u8:f32, 0.5:10>>
    %b = fx.call_function "aten::clamp"(%f, 1.0e30, None) : (tensor<4xf32>) -> tensor<4xf32>
    %q3 = fx.call_function "aten::quantize_per_tensor"(%b, 0.5, 10, torch.quint8) : (tensor<4xf32>) -> tensor<4x!quant.uniform<u8:f32, 0.5:10>>
    fx.output (%q, %q2, %q3) : tensor<4x!quant.uniform<u8:f32, 0.5:10>>, tensor<4x!quant.uniform<u8:f32, 0.5:10>>, tensor<4x!quant.uniform<u8:f32, 0.5:10>>
  }
}

// -----

// The fake quantization fx-fold-quant makes of dequantize(quantize(x))
// keeps the quantize's int64 quirk (fx.quantize_overflow): a scaled value
// from 2^63 up (+inf) gives quant_min, then dequantized; a clamp of it
// folded into the next quantize (above) gives its lower bound's
// quantization there, q(0) = 10.

// CHECK-LABEL: func.func @forward(%arg0: tensor<4xf32>)
// CHECK-DAG: %[[BIG:.*]] = arith.constant 9.22337203E+18 : f32
// CHECK-DAG: %[[Q0:.*]] = arith.constant 1.000000e+01 : f32
// CHECK-DAG: %[[MIN:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<4xf32>)
// CHECK:   %[[S:.*]] = arith.mulf
// CHECK:   %[[OVER:.*]] = arith.cmpf oge, %[[S]], %[[BIG]] : f32
// CHECK:   arith.select %[[OVER]], %[[MIN]], %{{.*}} : f32
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<4xi8>)
// CHECK:   %[[S2:.*]] = arith.mulf
// CHECK:   %[[OVER2:.*]] = arith.cmpf oge, %[[S2]], %[[BIG]] : f32
// CHECK:   arith.select %[[OVER2]], %[[Q0]], %{{.*}} : f32
fx.graph_module @QuantizeOverflow {
  fx.graph @forward {
    %y = fx.placeholder "y" : tensor<4xf32>
    %f = fx.call_function "aten::fake_quantize_per_tensor_affine"(%y, 0.5, 10, 0, 255) {fx.quantize_overflow} : (tensor<4xf32>) -> tensor<4xf32>
    %h = fx.call_function "aten::hardtanh"(%f, 0.0, 6.0) : (tensor<4xf32>) -> tensor<4xf32>
    %q = fx.call_function "aten::quantize_per_tensor"(%h, 0.5, 10, torch.quint8) : (tensor<4xf32>) -> tensor<4x!quant.uniform<u8:f32, 0.5:10>>
    fx.output (%f, %q) : tensor<4xf32>, tensor<4x!quant.uniform<u8:f32, 0.5:10>>
  }
}

// -----

// Quantized inputs and outputs are their storage integers, marked
// fx.quantized with their type (the Python package passes a quantized
// tensor's int_repr() after checking its parameters, and gives the
// results back as quantized tensors); quint8's are uint8.

// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %arg0: tensor<4xi8> {fx.dtype = "uint8", fx.quantized = !quant.uniform<u8:f32, 5.000000e-01:10>},
// CHECK-SAME:    %arg1: tensor<4xi8> {fx.quantized = !quant.uniform<i8:f32, 2.500000e-01:-3>})
// CHECK-SAME:    -> (tensor<4xf32>, tensor<4xi8> {fx.quantized = !quant.uniform<i8:f32, 2.500000e-01:-3>}, tensor<4xi8> {fx.dtype = "uint8", fx.quantized = !quant.uniform<u8:f32, 1.000000e-01:7>})
fx.graph_module @QuantizedIO {
  fx.graph @forward {
    %a = fx.placeholder "a" : tensor<4x!quant.uniform<u8:f32, 0.5:10>>
    %b = fx.placeholder "b" : tensor<4x!quant.uniform<i8:f32, 0.25:-3>>
    %d = fx.call_function "aten::dequantize.self"(%a) : (tensor<4x!quant.uniform<u8:f32, 0.5:10>>) -> tensor<4xf32>
    %q = fx.call_function "aten::quantize_per_tensor"(%d, 0.1, 7, torch.quint8) : (tensor<4xf32>) -> tensor<4x!quant.uniform<u8:f32, 0.1:7>>
    fx.output (%d, %b, %q) : tensor<4xf32>, tensor<4x!quant.uniform<i8:f32, 0.25:-3>>, tensor<4x!quant.uniform<u8:f32, 0.1:7>>
  }
}

// -----

// quantize_per_channel: each element as quantize_per_tensor computes it,
// with its channel's inverse scale and zero point (tables read along the
// axis, from the result's per-axis type).

// CHECK-LABEL: func.func @forward(%arg0: tensor<2x3xf32>)
// CHECK-DAG: %[[INV:.*]] = arith.constant dense<[4.000000e+00, 8.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[ZP:.*]] = arith.constant dense<[0.000000e+00, 3.000000e+00]> : tensor<2xf32>
// CHECK: linalg.generic {{.*}} ins(%arg0, %[[INV]], %[[ZP]] : tensor<2x3xf32>, tensor<2xf32>, tensor<2xf32>) outs(%{{.*}} : tensor<2x3xi8>)
// CHECK:   arith.mulf
// CHECK:   math.roundeven
// CHECK:   arith.addf
// CHECK:   arith.maxnumf
// CHECK:   arith.minnumf
// CHECK:   arith.fptosi {{.*}} : f32 to i32
// CHECK:   arith.trunci {{.*}} : i32 to i8
fx.graph_module @QuantizePerChannel {
  fx.state constant @scales : tensor<2xf64> = dense<[0.25, 0.125]>
  fx.state constant @zero_points : tensor<2xi64> = dense<[0, 3]>
  fx.graph @forward {
    %w = fx.placeholder "w" : tensor<2x3xf32>
    %s = fx.get_attr @scales : tensor<2xf64>
    %z = fx.get_attr @zero_points : tensor<2xi64>
    %q = fx.call_function "aten::quantize_per_channel"(%w, %s, %z, 0, torch.qint8) : (tensor<2x3xf32>, tensor<2xf64>, tensor<2xi64>) -> tensor<2x3x!quant.uniform<i8:f32:0, {0.25:0, 0.125:3}>>
    %d = fx.call_function "aten::dequantize.self"(%q) : (tensor<2x3x!quant.uniform<i8:f32:0, {0.25:0, 0.125:3}>>) -> tensor<2x3xf32>
    fx.output %d : tensor<2x3xf32>
  }
}

// -----

// avg_pool2d of a quantized tensor (fx-fold-quant's form of PyTorch's
// quantized average pooling): the integers less the zero point (quint8
// read unsigned) summed in f32, divided by the window's count, rounded
// half to even with the zero point added, clamped, as bytes again.

// CHECK-LABEL: func.func @forward(%arg0: tensor<1x2x4x4xf32>)
// CHECK: linalg.generic
// CHECK:   arith.uitofp {{.*}} : i8 to f32
// CHECK:   arith.subf
// CHECK: linalg.pooling_nchw_sum
// CHECK: arith.divf
// CHECK: math.roundeven
// CHECK: arith.addf
// CHECK: arith.maxnumf
// CHECK: arith.minnumf
// CHECK: arith.trunci {{.*}} : i32 to i8
fx.graph_module @QuantizedAvgPool {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x2x4x4xf32>
    %q = fx.call_function "aten::quantize_per_tensor"(%x, 0.1, 128, torch.quint8) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4x!quant.uniform<u8:f32, 0.1:128>>
    %a = fx.call_function "aten::avg_pool2d"(%q, [2, 2], [2, 2], [0, 0], False, True, None) : (tensor<1x2x4x4x!quant.uniform<u8:f32, 0.1:128>>) -> tensor<1x2x2x2x!quant.uniform<u8:f32, 0.1:128>>
    %d = fx.call_function "aten::dequantize.self"(%a) : (tensor<1x2x2x2x!quant.uniform<u8:f32, 0.1:128>>) -> tensor<1x2x2x2xf32>
    fx.output %d : tensor<1x2x2x2xf32>
  }
}

// -----

// adaptive_avg_pool2d of a quantized tensor: the windows' sums of the
// centered integers (summing matrices of ones), divided by each window's
// count (a [3, 3] table: windows of 2, 3 and 2 of the 5 rows, 2 of the 6
// columns), rounded as avg_pool2d's.

// CHECK-LABEL: func.func @forward(%arg0: tensor<1x2x5x6xf32>)
// CHECK-DAG: arith.constant dense<{{\[\[}}4.000000e+00, 4.000000e+00, 4.000000e+00], [6.000000e+00, 6.000000e+00, 6.000000e+00], [4.000000e+00, 4.000000e+00, 4.000000e+00]]> : tensor<3x3xf32>
// CHECK: arith.uitofp {{.*}} : i8 to f32
// CHECK: arith.divf
// CHECK: math.roundeven
// CHECK: arith.trunci {{.*}} : i32 to i8
fx.graph_module @QuantizedAdaptiveAvgPool {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x2x5x6xf32>
    %q = fx.call_function "aten::quantize_per_tensor"(%x, 0.1, 128, torch.quint8) : (tensor<1x2x5x6xf32>) -> tensor<1x2x5x6x!quant.uniform<u8:f32, 0.1:128>>
    %a = fx.call_function "aten::adaptive_avg_pool2d"(%q, [3, 3]) : (tensor<1x2x5x6x!quant.uniform<u8:f32, 0.1:128>>) -> tensor<1x2x3x3x!quant.uniform<u8:f32, 0.1:128>>
    %d = fx.call_function "aten::dequantize.self"(%a) : (tensor<1x2x3x3x!quant.uniform<u8:f32, 0.1:128>>) -> tensor<1x2x3x3xf32>
    fx.output %d : tensor<1x2x3x3xf32>
  }
}
