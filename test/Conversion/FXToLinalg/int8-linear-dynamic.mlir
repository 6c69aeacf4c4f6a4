// A dynamically quantized linear (fx-normalize's form: the input's scale
// and zero point chosen at run time, then a fake quantization 0..255; lit
// Conversion/FXToLinalg/quantize.mlir) keeps its weight's dequantize under
// fx-fold-quant{int8-convs} (lit Dialect/FX/fx-fold-quant-linear.mlir)
// and lowers as int8Linear too: the input quantized to bytes with the
// run-time scale and zero point (ATen's quantize), the same products, and
// the correction and scale tables computed per call: zx * (-sum w) and
// sx * sw, [20] each (the weights' sums and scales constants).
//
// RUN: fx-opt %s --pass-pipeline='builtin.module(fx-fold-quant{int8-convs=true},convert-fx-to-linalg)' | FileCheck %s
// RUN: fx-opt %s --pass-pipeline='builtin.module(fx-fold-quant,convert-fx-to-linalg)' | FileCheck %s --check-prefix=FLOAT

// CHECK-LABEL: func.func @forward
// CHECK-DAG: %[[NEGSUM:.*]] = arith.constant dense<[{{.*}}]> : tensor<20xi32>
// CHECK-DAG: %[[SW:.*]] = arith.constant dense<[0.00999999977, {{.*}}]> : tensor<20xf32>
// CHECK: %[[BYTES:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<5x24xf32>) outs(%{{.*}} : tensor<5x24xi8>)
// CHECK:   math.roundeven
// CHECK:   arith.maxnumf
// CHECK:   arith.minnumf
// CHECK:   arith.trunci {{.*}} : i32 to i8
// CHECK: %[[ZX:.*]] = arith.fptosi %{{.*}} : f32 to i32
// CHECK: linalg.generic {{.*}} ins(%[[NEGSUM]] : tensor<20xi32>)
// CHECK:   arith.muli %{{.*}}, %[[ZX]] : i32
// CHECK: linalg.generic {{.*}} ins(%[[SW]] : tensor<20xf32>)
// CHECK:   arith.mulf
// CHECK: linalg.generic {{.*}} attrs =  {fx.int8_conv = array<i64: 1, 1, 1, 1, 5>}

// Without the option: the f32 contraction on the dequantized weight.
// FLOAT-LABEL: func.func @forward
// FLOAT-NOT: fx.int8_conv
// FLOAT: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<5x24xf32>, tensor<20x24xf32>)

fx.graph_module @DynamicLinear {
  fx.state parameter @w : tensor<20x24x!quant.uniform<i8:f32:0, {0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08, 0.09, 0.1, 0.11, 0.12, 0.13, 0.14, 0.15, 0.16, 0.17, 0.18, 0.19, 0.2}>> = dense_resource<w>
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<5x24xf32>
    %qp = fx.call_function "aten::_choose_qparams_per_tensor"(%x, True) : (tensor<5x24xf32>) -> tuple<f64, i64>
    %s = fx.call_function "operator.getitem"(%qp, 0) : (tuple<f64, i64>) -> f64
    %z = fx.call_function "operator.getitem"(%qp, 1) : (tuple<f64, i64>) -> i64
    %fq = fx.call_function "aten::fake_quantize_per_tensor_affine"(%x, %s, %z, 0, 255) : (tensor<5x24xf32>, f64, i64) -> tensor<5x24xf32>
    %w0 = fx.get_attr @w : tensor<20x24x!quant.uniform<i8:f32:0, {0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08, 0.09, 0.1, 0.11, 0.12, 0.13, 0.14, 0.15, 0.16, 0.17, 0.18, 0.19, 0.2}>>
    %wf = fx.call_function "aten::dequantize.self"(%w0) : (tensor<20x24x!quant.uniform<i8:f32:0, {0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08, 0.09, 0.1, 0.11, 0.12, 0.13, 0.14, 0.15, 0.16, 0.17, 0.18, 0.19, 0.2}>>) -> tensor<20x24xf32>
    %y = fx.call_function "aten::linear"(%fq, %wf, None) : (tensor<5x24xf32>, tensor<20x24xf32>) -> tensor<5x20xf32>
    fx.output (%y) : tensor<5x20xf32>
  }
}

{-#
  dialect_resources: {
    builtin: {
      w: "0x01000000EDBF88465F03ADED29AB14C256E7D85056791A384320C434956872D72C886BCB8FAE166602D21CC1FB470C79D939013E6567A9042A44082BFE65D723CB622F4A58151B8A4C89113ECE795216BB2CB138BBE76BCD6509C2A800DD396D71E38AA62D9D91341C0DC3DBFEB17F21D97631CDBEBD479457840F195886543D4B06181FE66AC79607B59148F68E462C973C21D7E748C4568CFDB232188D41582B537106675AF2E9C62A58F686220EDF9E21992072463433FBE81EFA1B0EBF7CEA76BEFD7C122B18D1D0232960115C2B210FB5F0F30D26AA2BA404EDE54CC5F44636B276E742627137381A3D262ABE350CEF66BD297802836507E0810B34D51D80F3A1701E8C4399135FB4CE039A300FA2E07ED5A4FBB1CCDC6A288D9AECEEE9E1C55FA8CD1EA62F57A20D606CBA462BACE4C56CAB2609D7F074A532ED019169247205A1152E4CA85331CECAC745B6B78A67A4C55D5B57049C0A8EF5DA2F8B9149E7F5765BA94BB11A8EB00D5F31E844AE6B44D86E67D80519B5FEBE1FBECCEDDF6132552BB5857EF05F06AB72580E1C66AD9142A998CA1227CF7DE8ED15A0584966C34DC210CB4792D5F65C30FF8581BFB107651EED9F34690765ED3F829E9773055BD48BBDB2A5520E446B2D186B0984E0B7B42630D1DA5A1E7C4FD7BA62B2D11152A0"
    }
  }
#-}
