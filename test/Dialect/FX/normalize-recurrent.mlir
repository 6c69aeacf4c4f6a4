// RUN: fx-opt %s -split-input-file --fx-normalize -verify-diagnostics | FileCheck %s

// Traced recurrent layers (aten::lstm.input, aten::gru.input, ...) unrolled
// over their static sequence: the input's product with w_ih for the whole
// sequence first, then one cell per step on that step's row, the outputs
// stacked in time order and the final states stacked as h_n (and c_n).

// A batch-first LSTM without biases, two steps: the results read by index
// are the unrolled values.
// CHECK-LABEL: fx.graph_module @M
//       CHECK: %[[XT:.*]] = fx.call_function "aten::transpose.int"(%x, 0, 1) {{.*}} -> tensor<2x1x3xf32>
//       CHECK: %[[XW:.*]] = fx.call_function "aten::linear"(%[[XT]], %w_ih, None) {{.*}} -> tensor<2x1x8xf32>
//       CHECK: %[[H0:.*]] = fx.call_function "aten::select.int"(%h0, 0, 0)
//       CHECK: %[[C0:.*]] = fx.call_function "aten::select.int"(%c0, 0, 0)
//       CHECK: %[[X0:.*]] = fx.call_function "aten::select.int"(%[[XW]], 0, 0)
//       CHECK: %[[HW:.*]] = fx.call_function "aten::linear"(%[[H0]], %w_hh, None)
//       CHECK: %[[G:.*]] = fx.call_function "aten::add.Tensor"(%[[HW]], %[[X0]], 1)
//       CHECK: %[[I:.*]] = fx.call_function "aten::slice.Tensor"(%[[G]], 1, 0, 2, 1)
//       CHECK: %[[IS:.*]] = fx.call_function "aten::sigmoid"(%[[I]])
//       CHECK: %[[F:.*]] = fx.call_function "aten::slice.Tensor"(%[[G]], 1, 2, 4, 1)
//       CHECK: %[[FS:.*]] = fx.call_function "aten::sigmoid"(%[[F]])
//       CHECK: "aten::slice.Tensor"(%[[G]], 1, 4, 6, 1)
//       CHECK: "aten::tanh"
//       CHECK: "aten::slice.Tensor"(%[[G]], 1, 6, 8, 1)
//       CHECK: "aten::sigmoid"
//       CHECK: %[[IG:.*]] = fx.call_function "aten::mul.Tensor"(%[[IS]],
//       CHECK: %[[FC:.*]] = fx.call_function "aten::mul.Tensor"(%[[FS]], %[[C0]])
//       CHECK: %[[C1:.*]] = fx.call_function "aten::add.Tensor"(%[[FC]], %[[IG]], 1)
//       CHECK: %[[H1:.*]] = fx.call_function "aten::mul.Tensor"
//       CHECK: "aten::select.int"(%[[XW]], 0, 1)
//       CHECK: "aten::linear"(%[[H1]], %w_hh, None)
//       CHECK: %[[C2:.*]] = fx.call_function "aten::add.Tensor"({{.*}}) : (tensor<1x2xf32>, tensor<1x2xf32>) -> tensor<1x2xf32>
//       CHECK: %[[H2:.*]] = fx.call_function "aten::mul.Tensor"
//       CHECK: %[[OUT:.*]] = fx.call_function "aten::stack"([%[[H1]], %[[H2]]], 0) {{.*}} -> tensor<2x1x2xf32>
//       CHECK: %[[OUTB:.*]] = fx.call_function "aten::transpose.int"(%[[OUT]], 0, 1) {{.*}} -> tensor<1x2x2xf32>
//       CHECK: %[[CN:.*]] = fx.call_function "aten::stack"([%[[C2]]], 0) {{.*}} -> tensor<1x1x2xf32>
//       CHECK: fx.output (%[[OUTB]], %[[CN]])
//   CHECK-NOT: aten::lstm
fx.graph_module @M {
  fx.state parameter @w_ih : tensor<8x3xf32> = dense<0.5> : tensor<8x3xf32>
  fx.state parameter @w_hh : tensor<8x2xf32> = dense<0.25> : tensor<8x2xf32>
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x2x3xf32>
    %h0 = fx.placeholder "h0" : tensor<1x1x2xf32>
    %c0 = fx.placeholder "c0" : tensor<1x1x2xf32>
    %w_ih = fx.get_attr @w_ih : tensor<8x3xf32>
    %w_hh = fx.get_attr @w_hh : tensor<8x2xf32>
    %lstm = fx.call_function "aten::lstm.input"(%x, [%h0, %c0], [%w_ih, %w_hh], False, 1, 0.0, False, False, True) : (tensor<1x2x3xf32>, tensor<1x1x2xf32>, tensor<1x1x2xf32>, tensor<8x3xf32>, tensor<8x2xf32>) -> tuple<tensor<1x2x2xf32>, tensor<1x1x2xf32>, tensor<1x1x2xf32>>
    %out = fx.call_function "operator.getitem"(%lstm, 0) : (tuple<tensor<1x2x2xf32>, tensor<1x1x2xf32>, tensor<1x1x2xf32>>) -> tensor<1x2x2xf32>
    %c = fx.call_function "operator.getitem"(%lstm, 2) : (tuple<tensor<1x2x2xf32>, tensor<1x1x2xf32>, tensor<1x1x2xf32>>) -> tensor<1x1x2xf32>
    fx.output (%out, %c) : tensor<1x2x2xf32>, tensor<1x1x2xf32>
  }
}

// -----

// A bidirectional GRU with biases: the reverse direction starts at the last
// step and its outputs are stacked back in time order; the directions are
// joined on the feature dim. GRU's cell: r and z from the sums of both
// products' gates, n = tanh(x_n + r * h_n), h = (h - n) * z + n.
// CHECK-LABEL: fx.graph_module @M
//       CHECK: %[[XW:.*]] = fx.call_function "aten::linear"(%x, %w_ih, %b_ih) {{.*}} -> tensor<2x1x6xf32>
//       CHECK: "aten::select.int"(%h0, 0, 0)
//       CHECK: "aten::select.int"(%[[XW]], 0, 0)
//       CHECK: %[[HW:.*]] = fx.call_function "aten::linear"({{.*}}, %w_hh, %b_hh)
//       CHECK: %[[R:.*]] = fx.call_function "aten::sigmoid"
//       CHECK: "aten::sigmoid"
//       CHECK: %[[HN:.*]] = fx.call_function "aten::slice.Tensor"(%[[HW]], 1, 4, 6, 1)
//       CHECK: "aten::mul.Tensor"(%[[HN]], %[[R]])
//       CHECK: "aten::tanh"
//       CHECK: "aten::sub.Tensor"
//       CHECK: %[[F1:.*]] = fx.call_function "aten::add.Tensor"
//       CHECK: "aten::select.int"(%[[XW]], 0, 1)
//       CHECK: "aten::sub.Tensor"
//       CHECK: "aten::mul.Tensor"
//       CHECK: %[[F2:.*]] = fx.call_function "aten::add.Tensor"
//       CHECK: %[[FWD:.*]] = fx.call_function "aten::stack"([%[[F1]], %[[F2]]], 0)
//       CHECK: %[[XWR:.*]] = fx.call_function "aten::linear"(%x, %w_ih_r, %b_ih_r)
//       CHECK: "aten::select.int"(%h0, 0, 1)
//       CHECK: "aten::select.int"(%[[XWR]], 0, 1)
//       CHECK: "aten::sub.Tensor"
//       CHECK: "aten::mul.Tensor"
//       CHECK: %[[B1:.*]] = fx.call_function "aten::add.Tensor"
//       CHECK: "aten::select.int"(%[[XWR]], 0, 0)
//       CHECK: "aten::sub.Tensor"
//       CHECK: "aten::mul.Tensor"
//       CHECK: %[[B0:.*]] = fx.call_function "aten::add.Tensor"
//       CHECK: %[[BWD:.*]] = fx.call_function "aten::stack"([%[[B0]], %[[B1]]], 0)
//       CHECK: %[[OUT:.*]] = fx.call_function "aten::cat"([%[[FWD]], %[[BWD]]], -1) {{.*}} -> tensor<2x1x4xf32>
//       CHECK: %[[HN2:.*]] = fx.call_function "aten::stack"([%[[F2]], %[[B0]]], 0) {{.*}} -> tensor<2x1x2xf32>
//       CHECK: fx.output (%[[OUT]], %[[HN2]])
fx.graph_module @M {
  fx.state parameter @w_ih : tensor<6x3xf32> = dense<0.5> : tensor<6x3xf32>
  fx.state parameter @w_hh : tensor<6x2xf32> = dense<0.25> : tensor<6x2xf32>
  fx.state parameter @b_ih : tensor<6xf32> = dense<0.1> : tensor<6xf32>
  fx.state parameter @b_hh : tensor<6xf32> = dense<0.2> : tensor<6xf32>
  fx.state parameter @w_ih_r : tensor<6x3xf32> = dense<0.5> : tensor<6x3xf32>
  fx.state parameter @w_hh_r : tensor<6x2xf32> = dense<0.25> : tensor<6x2xf32>
  fx.state parameter @b_ih_r : tensor<6xf32> = dense<0.1> : tensor<6xf32>
  fx.state parameter @b_hh_r : tensor<6xf32> = dense<0.2> : tensor<6xf32>
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x1x3xf32>
    %h0 = fx.placeholder "h0" : tensor<2x1x2xf32>
    %w_ih = fx.get_attr @w_ih : tensor<6x3xf32>
    %w_hh = fx.get_attr @w_hh : tensor<6x2xf32>
    %b_ih = fx.get_attr @b_ih : tensor<6xf32>
    %b_hh = fx.get_attr @b_hh : tensor<6xf32>
    %w_ih_r = fx.get_attr @w_ih_r : tensor<6x3xf32>
    %w_hh_r = fx.get_attr @w_hh_r : tensor<6x2xf32>
    %b_ih_r = fx.get_attr @b_ih_r : tensor<6xf32>
    %b_hh_r = fx.get_attr @b_hh_r : tensor<6xf32>
    %gru = fx.call_function "aten::gru.input"(%x, %h0, [%w_ih, %w_hh, %b_ih, %b_hh, %w_ih_r, %w_hh_r, %b_ih_r, %b_hh_r], True, 1, 0.0, False, True, False) : (tensor<2x1x3xf32>, tensor<2x1x2xf32>, tensor<6x3xf32>, tensor<6x2xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6x3xf32>, tensor<6x2xf32>, tensor<6xf32>, tensor<6xf32>) -> tuple<tensor<2x1x4xf32>, tensor<2x1x2xf32>>
    %out = fx.call_function "operator.getitem"(%gru, 0) : (tuple<tensor<2x1x4xf32>, tensor<2x1x2xf32>>) -> tensor<2x1x4xf32>
    %h = fx.call_function "operator.getitem"(%gru, 1) : (tuple<tensor<2x1x4xf32>, tensor<2x1x2xf32>>) -> tensor<2x1x2xf32>
    fx.output (%out, %h) : tensor<2x1x4xf32>, tensor<2x1x2xf32>
  }
}

// -----

// Dropout between layers in training mode is random: refused, and the
// call is left as it is.
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x1x3xf32>
    %h0 = fx.placeholder "h0" : tensor<2x1x2xf32>
    %w_ih = fx.placeholder "w_ih" : tensor<2x3xf32>
    %w_hh = fx.placeholder "w_hh" : tensor<2x2xf32>
    %w_ih2 = fx.placeholder "w_ih2" : tensor<2x2xf32>
    // expected-warning @+1 {{fx-normalize: call_function 'rnn' with target 'aten::rnn_tanh.input' is not supported (dropout between layers in training mode is not supported)}}
    %rnn = fx.call_function "aten::rnn_tanh.input"(%x, %h0, [%w_ih, %w_hh, %w_ih2, %w_hh], False, 2, 0.5, True, False, False) : (tensor<2x1x3xf32>, tensor<2x1x2xf32>, tensor<2x3xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) -> tuple<tensor<2x1x2xf32>, tensor<2x1x2xf32>>
    %out = fx.call_function "operator.getitem"(%rnn, 0) : (tuple<tensor<2x1x2xf32>, tensor<2x1x2xf32>>) -> tensor<2x1x2xf32>
    fx.output %out : tensor<2x1x2xf32>
  }
}

// -----

// The cell operators TorchScript records for nn.LSTMCell, nn.GRUCell and
// nn.RNNCell: one step on a batch of rows, as the layers' steps.

// CHECK-LABEL: fx.graph @lstm_cell
// CHECK:     %cell_linear = fx.call_function "aten::linear"(%x, %wi, %b)
// CHECK:     %cell_linear_1 = fx.call_function "aten::linear"(%h, %wh, %b)
// CHECK:     %cell_add = fx.call_function "aten::add.Tensor"(%cell_linear_1, %cell_linear, 1)
// CHECK:     %cell_mul_1 = fx.call_function "aten::mul.Tensor"(%cell_sigmoid_1, %c)
// CHECK:     %cell_add_1 = fx.call_function "aten::add.Tensor"(%cell_mul_1, %cell_mul, 1)
// CHECK:     %cell_mul_2 = fx.call_function "aten::mul.Tensor"(%cell_sigmoid_2, %cell_tanh_1)
// CHECK:     fx.output (%cell_mul_2, %cell_add_1)
fx.graph @lstm_cell {
  %x = fx.placeholder "x" : tensor<2x4xf32>
  %h = fx.placeholder "h" : tensor<2x3xf32>
  %c = fx.placeholder "c" : tensor<2x3xf32>
  %wi = fx.placeholder "wi" : tensor<12x4xf32>
  %wh = fx.placeholder "wh" : tensor<12x3xf32>
  %b = fx.placeholder "b" : tensor<12xf32>
  %cell = fx.call_function "aten::lstm_cell"(%x, [%h, %c], %wi, %wh, %b, %b) : (tensor<2x4xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<12x4xf32>, tensor<12x3xf32>, tensor<12xf32>, tensor<12xf32>) -> tuple<tensor<2x3xf32>, tensor<2x3xf32>>
  %h1 = fx.call_function "operator.getitem"(%cell, 0) : (tuple<tensor<2x3xf32>, tensor<2x3xf32>>) -> tensor<2x3xf32>
  %c1 = fx.call_function "operator.getitem"(%cell, 1) : (tuple<tensor<2x3xf32>, tensor<2x3xf32>>) -> tensor<2x3xf32>
  fx.output (%h1, %c1) : tensor<2x3xf32>, tensor<2x3xf32>
}


// -----

// CHECK-LABEL: fx.graph @gru_cell
// CHECK:     %cell_linear = fx.call_function "aten::linear"(%x, %wi, None)
// CHECK:     %cell_sub = fx.call_function "aten::sub.Tensor"(%h, %cell_tanh, 1)
// CHECK:     %cell_add_3 = fx.call_function "aten::add.Tensor"(%cell_mul_1, %cell_tanh, 1)
// CHECK:     fx.output %cell_add_3

fx.graph @gru_cell {
  %x = fx.placeholder "x" : tensor<2x4xf32>
  %h = fx.placeholder "h" : tensor<2x3xf32>
  %wi = fx.placeholder "wi" : tensor<9x4xf32>
  %wh = fx.placeholder "wh" : tensor<9x3xf32>
  %cell = fx.call_function "aten::gru_cell"(%x, %h, %wi, %wh, None, None) : (tensor<2x4xf32>, tensor<2x3xf32>, tensor<9x4xf32>, tensor<9x3xf32>) -> tensor<2x3xf32>
  fx.output %cell : tensor<2x3xf32>
}

// -----

// Refused: states that do not fit the weights.
fx.graph @cell_shapes {
  %x = fx.placeholder "x" : tensor<2x4xf32>
  %h = fx.placeholder "h" : tensor<2x5xf32>
  %wi = fx.placeholder "wi" : tensor<9x4xf32>
  %wh = fx.placeholder "wh" : tensor<9x3xf32>
  // expected-warning @+1 {{(the states' and weights' shapes do not fit the input)}}
  %cell = fx.call_function "aten::gru_cell"(%x, %h, %wi, %wh, None, None) : (tensor<2x4xf32>, tensor<2x5xf32>, tensor<9x4xf32>, tensor<9x3xf32>) -> tensor<2x5xf32>
  fx.output %cell : tensor<2x5xf32>
}
