// RUN: fx-opt %s --fx-fold-quant=int8-convs=true | FileCheck %s
// RUN: fx-opt %s --fx-fold-quant | FileCheck %s --check-prefix=FLOAT
//
// With int8-convs, a conv2d (groups 1) of a dequantized per-tensor quint8
// activation and a dequantized qint8 weight with zero points 0, at least
// 16 deep (channels x window), or a depthwise one (groups = channels),
// keeps both dequantizes: the lowering computes it in int8 (lit
// Conversion/FXToLinalg/int8-conv.mlir, int8-depthwise.mlir), and so does
// a grouped conv whose groups line up with the kernel's blocks of output
// channels (2 groups of 4 in, 2 out: one block of 16, int8-grouped.mlir).
// A pointwise conv of 8 channels, a weight with a nonzero zero point and a
// qint8 activation fold as without the option.

// CHECK-LABEL: fx.graph_module @Convs
// CHECK: %x = fx.call_function "aten::quantize_per_tensor"(%in, 0.1, 128, torch.quint8)
// CHECK: %xf = fx.call_function "aten::dequantize.self"(%x)
// CHECK: %wf = fx.call_function "aten::dequantize.self"(%w0)
// CHECK: %y = fx.call_function "aten::conv2d"(%xf, %wf, None, [1, 1], [1, 1], [1, 1], 1)
// CHECK: %xf2 = fx.call_function "aten::fake_quantize_per_tensor_affine"(%in, 0.1, 128, 0, 255)
// CHECK: %pointwise = fx.call_function "aten::conv2d"(%xf2, %p_dequantized,
// CHECK: %xf3 = fx.call_function "aten::dequantize.self"(%x)
// CHECK: %gf = fx.call_function "aten::dequantize.self"(%g0)
// CHECK: %grouped = fx.call_function "aten::conv2d"(%xf3, %gf, None, [1, 1], [1, 1], [1, 1], 2)
// CHECK: %shifted = fx.call_function "aten::conv2d"(%xf2, %zp_dequantized,
// CHECK: %s8f = fx.call_function "aten::fake_quantize_per_tensor_affine"(%in, 0.1, 0, -128, 127)
// CHECK: %signed = fx.call_function "aten::conv2d"(%s8f, %w_dequantized,
// CHECK: %xf5 = fx.call_function "aten::dequantize.self"(%x)
// CHECK: %dwf = fx.call_function "aten::dequantize.self"(%dw0)
// CHECK: %depthwise = fx.call_function "aten::conv2d"(%xf5, %dwf, None, [2, 2], [1, 1], [1, 1], 8)

// FLOAT-LABEL: fx.graph_module @Convs
// FLOAT: %xf = fx.call_function "aten::fake_quantize_per_tensor_affine"(%in, 0.1, 128, 0, 255)
// FLOAT: %w_dequantized = fx.get_attr @w_dequantized
// FLOAT: %y = fx.call_function "aten::conv2d"(%xf, %w_dequantized,
fx.graph_module @Convs {
  fx.state parameter @w : tensor<4x8x3x3x!quant.uniform<i8:f32:0, {0.02, 0.03, 0.04, 0.05}>> = dense_resource<w>
  fx.state parameter @p : tensor<4x8x1x1x!quant.uniform<i8:f32, 0.02>> = dense_resource<p>
  fx.state parameter @g : tensor<4x4x3x3x!quant.uniform<i8:f32, 0.02>> = dense_resource<g>
  fx.state parameter @zp : tensor<4x8x3x3x!quant.uniform<i8:f32, 0.02:1>> = dense_resource<zp>
  fx.state parameter @dw : tensor<8x1x3x3x!quant.uniform<i8:f32:0, {0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08, 0.09}>> = dense_resource<dw>
  fx.graph @forward {
    %in = fx.placeholder "in" : tensor<1x8x5x5xf32>
    %x = fx.call_function "aten::quantize_per_tensor"(%in, 0.1, 128, torch.quint8) : (tensor<1x8x5x5xf32>) -> tensor<1x8x5x5x!quant.uniform<u8:f32, 0.1:128>>
    %xf = fx.call_function "aten::dequantize.self"(%x) : (tensor<1x8x5x5x!quant.uniform<u8:f32, 0.1:128>>) -> tensor<1x8x5x5xf32>
    %w0 = fx.get_attr @w : tensor<4x8x3x3x!quant.uniform<i8:f32:0, {0.02, 0.03, 0.04, 0.05}>>
    %wf = fx.call_function "aten::dequantize.self"(%w0) : (tensor<4x8x3x3x!quant.uniform<i8:f32:0, {0.02, 0.03, 0.04, 0.05}>>) -> tensor<4x8x3x3xf32>
    %y = fx.call_function "aten::conv2d"(%xf, %wf, None, [1, 1], [1, 1], [1, 1], 1) : (tensor<1x8x5x5xf32>, tensor<4x8x3x3xf32>) -> tensor<1x4x5x5xf32>
    %xf2 = fx.call_function "aten::dequantize.self"(%x) : (tensor<1x8x5x5x!quant.uniform<u8:f32, 0.1:128>>) -> tensor<1x8x5x5xf32>
    %p0 = fx.get_attr @p : tensor<4x8x1x1x!quant.uniform<i8:f32, 0.02>>
    %pf = fx.call_function "aten::dequantize.self"(%p0) : (tensor<4x8x1x1x!quant.uniform<i8:f32, 0.02>>) -> tensor<4x8x1x1xf32>
    %pointwise = fx.call_function "aten::conv2d"(%xf2, %pf, None, [1, 1], [0, 0], [1, 1], 1) : (tensor<1x8x5x5xf32>, tensor<4x8x1x1xf32>) -> tensor<1x4x5x5xf32>
    %xf3 = fx.call_function "aten::dequantize.self"(%x) : (tensor<1x8x5x5x!quant.uniform<u8:f32, 0.1:128>>) -> tensor<1x8x5x5xf32>
    %g0 = fx.get_attr @g : tensor<4x4x3x3x!quant.uniform<i8:f32, 0.02>>
    %gf = fx.call_function "aten::dequantize.self"(%g0) : (tensor<4x4x3x3x!quant.uniform<i8:f32, 0.02>>) -> tensor<4x4x3x3xf32>
    %grouped = fx.call_function "aten::conv2d"(%xf3, %gf, None, [1, 1], [1, 1], [1, 1], 2) : (tensor<1x8x5x5xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x5x5xf32>
    %xf4 = fx.call_function "aten::dequantize.self"(%x) : (tensor<1x8x5x5x!quant.uniform<u8:f32, 0.1:128>>) -> tensor<1x8x5x5xf32>
    %zp0 = fx.get_attr @zp : tensor<4x8x3x3x!quant.uniform<i8:f32, 0.02:1>>
    %zpf = fx.call_function "aten::dequantize.self"(%zp0) : (tensor<4x8x3x3x!quant.uniform<i8:f32, 0.02:1>>) -> tensor<4x8x3x3xf32>
    %shifted = fx.call_function "aten::conv2d"(%xf4, %zpf, None, [1, 1], [1, 1], [1, 1], 1) : (tensor<1x8x5x5xf32>, tensor<4x8x3x3xf32>) -> tensor<1x4x5x5xf32>
    %s8 = fx.call_function "aten::quantize_per_tensor"(%in, 0.1, 0, torch.qint8) : (tensor<1x8x5x5xf32>) -> tensor<1x8x5x5x!quant.uniform<i8:f32, 0.1>>
    %s8f = fx.call_function "aten::dequantize.self"(%s8) : (tensor<1x8x5x5x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x8x5x5xf32>
    %w4 = fx.get_attr @w : tensor<4x8x3x3x!quant.uniform<i8:f32:0, {0.02, 0.03, 0.04, 0.05}>>
    %wf4 = fx.call_function "aten::dequantize.self"(%w4) : (tensor<4x8x3x3x!quant.uniform<i8:f32:0, {0.02, 0.03, 0.04, 0.05}>>) -> tensor<4x8x3x3xf32>
    %signed = fx.call_function "aten::conv2d"(%s8f, %wf4, None, [1, 1], [1, 1], [1, 1], 1) : (tensor<1x8x5x5xf32>, tensor<4x8x3x3xf32>) -> tensor<1x4x5x5xf32>
    %xf5 = fx.call_function "aten::dequantize.self"(%x) : (tensor<1x8x5x5x!quant.uniform<u8:f32, 0.1:128>>) -> tensor<1x8x5x5xf32>
    %dw0 = fx.get_attr @dw : tensor<8x1x3x3x!quant.uniform<i8:f32:0, {0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08, 0.09}>>
    %dwf = fx.call_function "aten::dequantize.self"(%dw0) : (tensor<8x1x3x3x!quant.uniform<i8:f32:0, {0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08, 0.09}>>) -> tensor<8x1x3x3xf32>
    %depthwise = fx.call_function "aten::conv2d"(%xf5, %dwf, None, [2, 2], [1, 1], [1, 1], 8) : (tensor<1x8x5x5xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x3x3xf32>
    fx.output (%y, %pointwise, %grouped, %shifted, %signed, %depthwise) : tensor<1x4x5x5xf32>, tensor<1x4x5x5xf32>, tensor<1x4x5x5xf32>, tensor<1x4x5x5xf32>, tensor<1x4x5x5xf32>, tensor<1x8x3x3xf32>
  }
}

{-#
  dialect_resources: {
    builtin: {
      w: "0x01000000BE2D5FACDDBA1A5E0F1442FDD1B418A3FF0A375F609C4E0EE054D633B6EDA3A1A242269EFD4BD30855A323D45F0C1A29D7F4D749D45E11E6A1062A40B5CB3D55E7BA5AF154521C081D47CCE9E4321B1D0032A416DA5A030646C8F9284F624858FBB20C451EB763C52100FA1957A314A7EA503933300041C7C71CD69F61CF2628D7031FF42FF611E0442837569DFE591FBD20632BD009AA17F92D29CF1D0518F706F49C25263B38F01135A3D63EC92831CAB329DDA448AEB1A00F9F5D5DE3DBE0B83BCBF4E6ADC6C4DD23C744E14152E7104FEE1B15B9A2EBFEF307CCDEB7DC561ED1370AA1D5A001C1A554C50E501D490927D43D4D200FD52242A301482FEE443D09AB58E8BCD2A8EAAEAFEBE85AC4062CDCBD9E2BA533D32D11C763503B1EA5",
      p: "0x01000000FCCFF4B5D02E480A33CD1AB646FFE71D1BA0EF3802E4A0C4CFEF2CBEF209D2E0",
      g: "0x0100000048B4FD28F44B24186024D8AC55A6B1BEC7C625D2E05EF1351DDDFAF2F3B9E6D836635319BE302961B6EEA604AEFDC1BCF3B93932FCAF2E28D52CB0E0F9E72C24B911E2B7A7E79F39479FB305B9A6CCD93207C5B90FC64AD9C45AB60BFC26E728DC5216ECB5D142EDA6A29EE75534ED0F00EC02ACACED3510B8DCD33A63264C1445F7DECA26D1EACEDBF8B0E3B25C0EB3",
      dw: "0x010000007942BDF22106F0847762F0F3CB4D764DC7072051159A0F89F2C6DACAE344BB311245FD6F84DF9AD7C5B3D076AC0E8F53A7356C88913F20F6F72DB022D24D0A96DAD43C1617C1A98E",
      zp: "0x01000000422F40F2D6FFEAA6EFCBED30E9DAF1B527383034B3DAD4A1DA02AEE029AE56AFA13E9EE65CF71A14C3B51C63EFAF1E46C8C962C2C0EDEAB7511F36E7BCD0C02754A463EC3B48295B4CD0C9E80A25C4A85246DBDC63AC4A0E0A28DC260C25109E01F2C7DE18A241062EA0AB4DF630BF33BCBFDEE2012C02C838B2D7189DC923ED1C420C4B3F57D5D9EC1A4B16D55205F22B385643E241D4A8AE5F1E41FAC41E60D0EBE84DE829FBC64F4F581234B1BB371F2EFCC9C3DC09D32D545DA91A4A00533FF5FE1FC62756A622B3DD3CB5E058B1BF6239444B4FB00DD9FD0A01C6EF0CBC3B18D2BA0A352404BA45E7E3DBFC5B2B9DCC230C30A1A33C37DADED0C8E4C126CFE1EB315DDC4A0EC727F71907BB60D12EFED0E4B7A2BA2D5B9F27E7485E5542"
    }
  }
#-}
