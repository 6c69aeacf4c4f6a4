// A quantized depthwise conv (groups = channels = 32) in the form
// fx-fold-quant{int8-convs} keeps lowers exactly on the integers
// (lib/Conversion/FXToLinalg/QuantizedConv.cpp, depthwiseInt8): the
// activation bytes written in NHWC into a buffer filled with the zero point
// (120), the 9 windows as strided views of it (stride 2), and one
// elementwise op over (n, oh, ow, c) computing
//   (sum_ij x_ij w_ij - 120 sum_ij w_ij) * sx sw[c] + b[c]
// in f32 on the integers, one FMA a tap (exact: every partial sum below
// 2^24), each
// window's weights and the correction a table per channel; then a
// transpose to NCHW.
//
// RUN: fx-opt %s --convert-fx-to-linalg | FileCheck %s
//
// fx-cpu-schedule vectorizes the op along the channels (contiguous in
// every window), 4 neighbouring outputs of a row a tile (an input pixel
// that several taps read is loaded and converted once for them, after
// unrolling), and keeps it apart from the NCHW transpose, which reads
// it across: fused, the bytes would be gathered one by one
// (readsBytesAcross); the transpose is one of 32-bit words.
//
// RUN: fx-opt %s --convert-fx-to-linalg | fx-opt --pass-pipeline='builtin.module(func.func(fx-cpu-schedule{target=sapphirerapids}))' | FileCheck %s --check-prefix=SCHED

// CHECK-LABEL: func.func @forward
// CHECK-DAG: %[[ZX:.*]] = arith.constant 120 : i8
// CHECK: %[[PADDED:.*]] = linalg.fill ins(%[[ZX]] : i8) outs({{.*}} : tensor<1x10x10x32xi8>)
// CHECK: tensor.extract_slice %[[PADDED]][0, 1, 1, 0] [1, 8, 8, 32] [1, 1, 1, 1]
// CHECK: %[[INPUT:.*]] = tensor.insert_slice %{{.*}} into %[[PADDED]][0, 1, 1, 0] [1, 8, 8, 32] [1, 1, 1, 1]
// CHECK: tensor.extract_slice %[[INPUT]][0, 0, 0, 0] [1, 4, 4, 32] [1, 2, 2, 1]
// CHECK: tensor.extract_slice %[[INPUT]][0, 2, 2, 0] [1, 4, 4, 32] [1, 2, 2, 1]
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// CHECK-SAME: tensor<1x4x4x32xi8>, tensor<1x4x4x32xi8>, tensor<1x4x4x32xi8>, tensor<1x4x4x32xi8>, tensor<1x4x4x32xi8>, tensor<1x4x4x32xi8>, tensor<1x4x4x32xi8>, tensor<1x4x4x32xi8>, tensor<1x4x4x32xi8>, tensor<32xf32>
// One chain of FMAs a window row (the first from the correction, the
// others from a product), the rows' sums added: exact in any order.
// CHECK-COUNT-3: math.fma
// CHECK: arith.mulf
// CHECK-COUNT-2: math.fma
// CHECK: arith.addf
// CHECK: arith.mulf
// CHECK-COUNT-2: math.fma
// CHECK: arith.addf
// CHECK-NOT: math.fma
// CHECK: arith.mulf
// CHECK: -> tensor<1x4x4x32xf32>
// CHECK: -> tensor<1x32x4x4xf32>

// SCHED-COUNT-9: arith.uitofp %{{.*}} : vector<4x32xi8> to vector<4x32xf32>
// SCHED: math.fma {{.*}} : vector<4x32xf32>
// SCHED: vector.transpose {{.*}} : vector<1x16x16xf32> to vector<1x16x16xf32>

fx.graph_module @QuantizedDepthwise {
  fx.state parameter @w : tensor<32x1x3x3x!quant.uniform<i8:f32:0, {0.01, 0.011, 0.012, 0.013, 0.014, 0.015, 0.016, 0.017, 0.018, 0.019, 0.02, 0.021, 0.022, 0.023, 0.024, 0.025, 0.026, 0.027, 0.028, 0.029, 0.03, 0.031, 0.032, 0.033, 0.034, 0.035, 0.036, 0.037, 0.038, 0.039, 0.04, 0.041}>> = dense_resource<w>
  fx.state parameter @b : tensor<32xf32> = dense_resource<b>
  fx.graph @forward {
    %in = fx.placeholder "in" : tensor<1x32x8x8xf32>
    %x = fx.call_function "aten::quantize_per_tensor"(%in, 0.1, 120, torch.quint8) : (tensor<1x32x8x8xf32>) -> tensor<1x32x8x8x!quant.uniform<u8:f32, 0.1:120>>
    %xf = fx.call_function "aten::dequantize.self"(%x) : (tensor<1x32x8x8x!quant.uniform<u8:f32, 0.1:120>>) -> tensor<1x32x8x8xf32>
    %w0 = fx.get_attr @w : tensor<32x1x3x3x!quant.uniform<i8:f32:0, {0.01, 0.011, 0.012, 0.013, 0.014, 0.015, 0.016, 0.017, 0.018, 0.019, 0.02, 0.021, 0.022, 0.023, 0.024, 0.025, 0.026, 0.027, 0.028, 0.029, 0.03, 0.031, 0.032, 0.033, 0.034, 0.035, 0.036, 0.037, 0.038, 0.039, 0.04, 0.041}>>
    %wf = fx.call_function "aten::dequantize.self"(%w0) : (tensor<32x1x3x3x!quant.uniform<i8:f32:0, {0.01, 0.011, 0.012, 0.013, 0.014, 0.015, 0.016, 0.017, 0.018, 0.019, 0.02, 0.021, 0.022, 0.023, 0.024, 0.025, 0.026, 0.027, 0.028, 0.029, 0.03, 0.031, 0.032, 0.033, 0.034, 0.035, 0.036, 0.037, 0.038, 0.039, 0.04, 0.041}>>) -> tensor<32x1x3x3xf32>
    %b0 = fx.get_attr @b : tensor<32xf32>
    %y = fx.call_function "aten::conv2d"(%xf, %wf, %b0, [2, 2], [1, 1], [1, 1], 32) : (tensor<1x32x8x8xf32>, tensor<32x1x3x3xf32>, tensor<32xf32>) -> tensor<1x32x4x4xf32>
    fx.output (%y) : tensor<1x32x4x4xf32>
  }
}

{-#
  dialect_resources: {
    builtin: {
      w: "0x01000000A54DCA182530BB1D6D132CDED6237B2ED91E3F721FCB1971174494D6493C9D5C3460BE31201E69FEDAA0EEE8B9997F5C7C2999FDAFE593253CD654AF4DFAD71427A0AEB3FEE9232F8AF2211F9EE491C5B10BECB5563BFC1E6F93427ECBC8FE2955E5CD8E46DC8ED4B7C2764D2A5A4D767706F85D8690024AD6BDA3401BE9C8CBCCC935F6CD1F61226AE15338AE1A34004D33BA0D246AC04C81B1BAF23E3BF9EEF5F79F2B4934AF87F5520B69B94B0D982E85BB55B672A872637ACD7466FCB60E0E8FF18463B0E4B2BA29703474F064AC68F700F5B02B3DC666F45BDEAA2CCAEDCD2B5157410E4DEE4AF2B34F430A073447DE636C0E806C957BA684D6431FB5EAD7424D09E15D024C5848F23D1FA6F7361D7F618D1532E70E20E2A6668DE7F47E",
      b: "0x04000000C6FFCB3E42C9403F7E65623F702DF6BEC0C4F33DE6F3623F74142E3F84C939BFC4BA41BF9515EDBD3DDB5ABFFFCA04BFEA8F5ABF1B8AAD3E1060113F0C474B3F5FEC30BF884EDD3E491AA43E75CB36BFAA02443F08626F3F2F920FBF9FAE673FB35E50BE2FB8D0BC6ED07A3F30362A3F52542DBF4A3E0CBE5BACFF3CBDBEA4BE"
    }
  }
#-}
