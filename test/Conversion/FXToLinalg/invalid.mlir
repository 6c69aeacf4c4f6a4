// RUN: fx-opt %s -split-input-file --convert-fx-to-linalg -verify-diagnostics

// Graphs convert-fx-to-linalg rejects: each error names the node, its
// target and the reason; for a canonical node the patterns cannot lower,
// it points to the reference interpreter.

// A call fx-normalize would rewrite.

fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x4xf32>
    // expected-error @+1 {{cannot compile call_function 'relu' with target 'torch.relu': not canonical; run fx-normalize first}}
    %relu = fx.call_function "torch.relu"(%x) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    fx.output %relu : tensor<2x4xf32>
  }
}

// -----

// Method and module calls are never canonical.

fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x4xf32>
    // expected-error @+1 {{cannot compile call_method 'relu' with target 'relu': not canonical; run fx-normalize first}}
    %relu = fx.call_method "relu"(%x) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    fx.output %relu : tensor<2x4xf32>
  }
}

// -----

// A target the registry does not know: the reason is the registry's.

fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x4xf32>
    // expected-error @+1 {{cannot compile call_function 'f' with target 'mylib.f': unsupported function 'mylib.f'}}
    %f = fx.call_function "mylib.f"(%x) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    fx.output %f : tensor<2x4xf32>
  }
}

// -----

// A move to another device: the compiled code runs on the CPU.

fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x1x2x4xf32>
    // expected-error @+1 {{cannot compile call_function 'to' with target 'aten::to.device': the compiled code runs on the CPU only; run it with the reference interpreter (fx-run --interpret) instead}}
    %to = fx.call_function "aten::to.device"(%x, "cuda", 6, False, False, None) : (tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32>
    fx.output %to : tensor<1x1x2x4xf32>
  }
}

// -----

// An aten operator without a lowering (its result's shape depends on the
// data).

fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x4xf32>
    // expected-error @+1 {{cannot compile call_function 'nonzero' with target 'aten::nonzero': the operator has no lowering; run it with the reference interpreter (fx-run --interpret) instead}}
    %nonzero = fx.call_function "aten::nonzero"(%x) : (tensor<2x4xf32>) -> tensor<?x2xi64>
    fx.output %nonzero : tensor<?x2xi64>
  }
}

// -----

// A lowering that does not cover these arguments.

fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x3xf32>
    %m = fx.placeholder "m" : tensor<3xf32>
    // expected-error @+1 {{cannot compile call_function 'bn' with target 'aten::batch_norm': batch_norm in training mode with running statistics updates them in place, which compiled code does not; compile the model in eval mode}}
    %bn = fx.call_function "aten::batch_norm"(%x, None, None, %m, %m, True, 0.1, 1.0e-05, True) : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    fx.output %bn : tensor<2x3xf32>
  }
}

// -----

// batch_norm in training mode without running statistics, its momentum
// and eps missing (found by fuzz-lower: a null argument was read).

fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x3x4xf32>
    %w = fx.placeholder "w" : tensor<3xf32>
    // expected-error @+1 {{cannot compile call_function 'bn' with target 'aten::batch_norm': batch_norm takes 9 arguments (input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled)}}
    %bn = fx.call_function "aten::batch_norm"(%x, %w, None, None, None, True) : (tensor<2x3x4xf32>, tensor<3xf32>) -> tensor<2x3x4xf32>
    fx.output %bn : tensor<2x3x4xf32>
  }
}

// -----

// Dropout that drops (p > 0 in training mode) draws random numbers: not
// compiled.

fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x3xf32>
    // expected-error @+1 {{cannot compile call_function 'dropout' with target 'aten::dropout': dropout in training mode is not supported}}
    %dropout = fx.call_function "aten::dropout"(%x, 0.5, True) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    fx.output %dropout : tensor<2x3xf32>
  }
}

// -----

// group_norm needs groups that divide the channels; prelu one slope per
// channel (a 1-D input has one channel); instance_norm cannot update
// running statistics.

fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x6x5xf32>
    // expected-error @+1 {{cannot compile call_function 'gn' with target 'aten::group_norm': num_groups must divide the channels}}
    %gn = fx.call_function "aten::group_norm"(%x, 4, None, None, 1.0e-05, True) : (tensor<2x6x5xf32>) -> tensor<2x6x5xf32>
    fx.output %gn : tensor<2x6x5xf32>
  }
}

// -----

fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<6xf32>
    %w = fx.placeholder "w" : tensor<6xf32>
    // expected-error @+1 {{cannot compile call_function 'p' with target 'aten::prelu': one slope per channel expected}}
    %p = fx.call_function "aten::prelu"(%x, %w) : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xf32>
    fx.output %p : tensor<6xf32>
  }
}

// -----

fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x3x5xf32>
    %m = fx.placeholder "m" : tensor<3xf32>
    %v = fx.placeholder "v" : tensor<3xf32>
    // expected-error @+1 {{cannot compile call_function 'i' with target 'aten::instance_norm': updating running statistics is not supported}}
    %i = fx.call_function "aten::instance_norm"(%x, None, None, %m, %v, True, 0.1, 1.0e-05, True) : (tensor<2x3x5xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x5xf32>
    fx.output %i : tensor<2x3x5xf32>
  }
}

// -----

// Placeholders need a ranked tensor type (the importer records it when
// given example inputs).

fx.graph_module @M {
  fx.graph @forward {
    // expected-error @+1 {{cannot compile placeholder 'x': its type must be a ranked tensor, got '!fx.any' (import with example inputs)}}
    %x = fx.placeholder "x" : !fx.any
    %relu = fx.call_function "aten::relu"(%x) : (!fx.any) -> !fx.any
    fx.output %relu : !fx.any
  }
}

// -----

// Declared state without a value can only be passed as an argument.

fx.graph_module @M {
  fx.state parameter @w : tensor<4x4xf32>
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x4xf32>
    // expected-error @+1 {{cannot compile get_attr 'w' with target 'w': the state has no value; compile with weights-as-arguments}}
    %w = fx.get_attr @w : tensor<4x4xf32>
    %mm = fx.call_function "aten::mm"(%x, %w) : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    fx.output %mm : tensor<2x4xf32>
  }
}

// -----

// A graph module without a forward graph is already rejected by the
// verifier, before the pass runs.

// expected-error @+1 {{graph module 'M' has no 'forward' graph}}
fx.graph_module @M {
  fx.graph @helper {
    %x = fx.placeholder "x" : tensor<2x4xf32>
    fx.output %x : tensor<2x4xf32>
  }
}

// -----

// One graph module per input.

fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x4xf32>
    fx.output %x : tensor<2x4xf32>
  }
}
// expected-error @+1 {{convert-fx-to-linalg: expected one graph module}}
fx.graph_module @N {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x4xf32>
    fx.output %x : tensor<2x4xf32>
  }
}

// -----

// A torch._assert that fails on the compiled shapes fails the compile with
// its message.

fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x3x8x8xf32>
    %h = fx.call_function "aten::size.int"(%x, 2) : (tensor<1x3x8x8xf32>) -> i64
    %eq = fx.call_function "aten::eq.int"(%h, 224) : (i64) -> i1
    // expected-error @+1 {{cannot compile call_function '_assert' with target 'torch._assert': assertion failed: Wrong image height! Expected 224 but got 8!}}
    %_assert = fx.call_function "torch._assert"(%eq, "Wrong image height! Expected 224 but got 8!") : (i1) -> !fx.any
    fx.output %x : tensor<1x3x8x8xf32>
  }
}

// -----

// one_hot without num_classes would read the data for its size; flip needs
// static flipped dims.

fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<4xi64>
    // expected-error @+1 {{cannot compile call_function 'h' with target 'aten::one_hot': num_classes must be given (-1 reads the data)}}
    %h = fx.call_function "aten::one_hot"(%x, -1) : (tensor<4xi64>) -> tensor<4x?xi64>
    fx.output %h : tensor<4x?xi64>
  }
}

// -----

// Arguments PyTorch rejects are errors naming the node, not crashes.

fx.graph_module @M {
  fx.graph @forward {
    %a = fx.placeholder "a" : tensor<3xf32>
    %b = fx.placeholder "b" : tensor<3xf32>
    %c = fx.placeholder "c" : tensor<3xf32>
    // expected-error @+1 {{cannot compile call_function 'r' with target 'aten::addmm': mat1 and mat2 must be 2-D, got 1-D and 1-D}}
    %r = fx.call_function "aten::addmm"(%a, %b, %c) : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    fx.output %r : tensor<3xf32>
  }
}

// -----

fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x4x8x8xf32>
    %w = fx.placeholder "w" : tensor<4x4x3x3xf32>
    // expected-error @+1 {{cannot compile call_function 'r' with target 'aten::conv2d': groups must be positive, got 0}}
    %r = fx.call_function "aten::conv2d"(%x, %w, None, [1, 1], [0, 0], [1, 1], 0) : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32>
    fx.output %r : tensor<1x4x6x6xf32>
  }
}

// -----

fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<4x8x8xf32>
    %w = fx.placeholder "w" : tensor<4x4x3x3x3xi1>
    // expected-error @+1 {{cannot compile call_function 'r' with target 'aten::conv3d': the input must be 5-D (batch, channels and 3 spatial dims) or 4-D (unbatched), got 3-D}}
    %r = fx.call_function "aten::conv3d"(%x, %w, None, [1, 1, 1], [1, 0, 1], [2, 1, 1], 1) : (tensor<4x8x8xf32>, tensor<4x4x3x3x3xi1>) -> tensor<1x4x6x6xf32>
    fx.output %r : tensor<1x4x6x6xf32>
  }
}

// -----

fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x4x8x8xf32>
    %w = fx.placeholder "w" : tensor<6x4x3x3xf32>
    // expected-error @+1 {{a weight of 6 filters of 4 channels in 4 groups does not fit an input of 4 channels}}
    %r = fx.call_function "aten::conv2d"(%x, %w, None, [1, 1], [0, 0], [1, 1], 4) : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x6x6xf32>
    fx.output %r : tensor<1x6x6x6xf32>
  }
}

// -----

fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<3xcomplex<f32>>
    // expected-error @+1 {{cannot compile call_function 'r' with target 'aten::atan': complex tensors are not supported by 'aten::atan' in the compiler}}
    %r = fx.call_function "aten::atan"(%x) : (tensor<3xcomplex<f32>>) -> tensor<3xcomplex<f32>>
    fx.output %r : tensor<3xcomplex<f32>>
  }
}


// -----

// A dilation wider than the padded input leaves no window (found by
// fuzz-lower: the lowering made a tensor type of negative size, and the
// adaptive pool after it asked for a buffer of -12 elements).
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x8x8x8xf32>
    %w = fx.placeholder "w" : tensor<8x8x3x3xf32>
    // expected-error @+1 {{cannot compile call_function 'r' with target 'aten::conv2d': the output would be too small: spatial dim 0 of size 8 (padding 1+1) gives -12 windows of kernel size 3, dilation 11, stride 1}}
    %r = fx.call_function "aten::conv2d"(%x, %w, None, [1, 1], [1, 1], [11, 1], 1) : (tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x8x8xf32>
    fx.output %r : tensor<1x8x8x8xf32>
  }
}

// -----

// A pooling window larger than the input.
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x2x3x3xf32>
    // expected-error @+1 {{cannot compile call_function 'r' with target 'aten::max_pool2d': pooling parameters must be constants that PyTorch accepts}}
    %r = fx.call_function "aten::max_pool2d"(%x, [5, 5], [1, 1], [0, 0], [1, 1], False) : (tensor<1x2x3x3xf32>) -> tensor<1x2x1x1xf32>
    fx.output %r : tensor<1x2x1x1xf32>
  }
}

// -----

// imag needs a complex tensor (PyTorch: "imag is not implemented for
// tensors with non-complex dtypes").

fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<3xf32>
    // expected-error @+1 {{cannot compile call_function 'r' with target 'aten::imag': needs a complex tensor}}
    %r = fx.call_function "aten::imag"(%x) : (tensor<3xf32>) -> tensor<3xf32>
    fx.output %r : tensor<3xf32>
  }
}

// -----

// Every node that cannot be lowered is reported, not only the first: a
// lowering that fails leaves the graph as it was (the conversion undoes
// what it built) and the conversion goes on with the next node; a node
// that reads a failed one says so.

fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x6x5xf32>
    %w = fx.placeholder "w" : tensor<6xf32>
    // expected-error @+1 {{cannot compile call_function 'gn' with target 'aten::group_norm': num_groups must divide the channels}}
    %gn = fx.call_function "aten::group_norm"(%x, 4, None, None, 1.0e-05, True) : (tensor<2x6x5xf32>) -> tensor<2x6x5xf32>
    // expected-error @+1 {{cannot compile call_function 'r' with target 'aten::relu': its inputs could not be lowered}}
    %r = fx.call_function "aten::relu"(%gn) : (tensor<2x6x5xf32>) -> tensor<2x6x5xf32>
    %ok = fx.call_function "aten::neg"(%x) : (tensor<2x6x5xf32>) -> tensor<2x6x5xf32>
    // expected-error @+1 {{cannot compile call_function 'p' with target 'aten::prelu': one slope per channel expected}}
    %p = fx.call_function "aten::prelu"(%w, %w) : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xf32>
    fx.output (%r, %ok, %p) : tensor<2x6x5xf32>, tensor<2x6x5xf32>, tensor<6xf32>
  }
}

// -----

// uint8 tensors are computed as i32 of 0..255, which is exact for
// arithmetic, comparisons, conversions, reductions and moving elements;
// an operator whose uint8 steps eager wraps around in between (a loss
// subtracting two uint8 tensors before it clamps) is refused instead.

fx.graph_module @M {
  fx.graph @forward {
    %a = fx.placeholder "a" : tensor<4xui8>
    %b = fx.placeholder "b" : tensor<4xui8>
    // expected-error @+1 {{cannot compile call_function 'loss' with target 'aten::margin_ranking_loss': uint8 tensors are compiled for arithmetic, comparisons, bitwise ops, conversions, reductions and moving elements, not for this operator (eager wraps its uint8 steps around)}}
    %loss = fx.call_function "aten::margin_ranking_loss"(%a, %b, %b, 0.0, 1) : (tensor<4xui8>, tensor<4xui8>, tensor<4xui8>) -> tensor<ui8>
    fx.output %loss : tensor<ui8>
  }
}

// -----

// item() of a tensor of more than one element.
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2xf32>
    // expected-error @+1 {{cannot compile call_function 'item' with target 'aten::item': item() needs a tensor of exactly one element (of a static shape)}}
    %item = fx.call_function "aten::item"(%x) : (tensor<2xf32>) -> f64
    fx.output %item : f64
  }
}

// -----

// A backward operator's arguments out of its domain.
fx.graph_module @M {
  fx.graph @forward {
    %g = fx.placeholder "g" : tensor<3xf32>
    %x = fx.placeholder "x" : tensor<3xf32>
    // expected-error @+1 {{cannot compile call_function 'b' with target 'aten::gelu_backward': approximate must be 'none' or 'tanh'}}
    %b = fx.call_function "aten::gelu_backward"(%g, %x, approximate="erf") : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    fx.output %b : tensor<3xf32>
  }
}

// -----

fx.graph_module @M {
  fx.graph @forward {
    %g = fx.placeholder "g" : tensor<3xf32>
    %x = fx.placeholder "x" : tensor<3xf32>
    // expected-error @+1 {{cannot compile call_function 'm' with target 'aten::mse_loss_backward': reduction must be 0, 1 or 2}}
    %m = fx.call_function "aten::mse_loss_backward"(%g, %x, %x, 3) : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    fx.output %m : tensor<3xf32>
  }
}

// -----

// native_batch_norm in training with running statistics would update them
// in place.
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x3xf32>
    %m = fx.placeholder "m" : tensor<3xf32>
    // expected-error @+1 {{training with running statistics updates them in place}}
    %b = fx.call_function "aten::native_batch_norm"(%x, None, None, %m, %m, True, 0.1, 1.0e-05) : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) -> tuple<tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>>
    // expected-error @+1 {{its inputs could not be lowered}}
    %o = fx.call_function "operator.getitem"(%b, 0) : (tuple<tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>>) -> tensor<2x3xf32>
    fx.output %o : tensor<2x3xf32>
  }
}

// -----

// index_put by a bool mask of several values: their count depends on the
// data.
fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<3x5xf32>
    %m = fx.placeholder "m" : tensor<3x5xi1>
    %v = fx.placeholder "v" : tensor<4xf32>
    // expected-error @+1 {{a tensor of values (whose count depends on the data) is not supported}}
    %p = fx.call_function "aten::index_put"(%x, [%m], %v, False) : (tensor<3x5xf32>, tensor<3x5xi1>, tensor<4xf32>) -> tensor<3x5xf32>
    fx.output %p : tensor<3x5xf32>
  }
}

// -----

// Tensor indexing fx-normalize did not expand: by a bool mask, whose
// result's size the data decides, and by a float tensor.

fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<4xf32>
    %m = fx.placeholder "m" : tensor<4xi1>
    // expected-error @+1 {{cannot compile call_function 'g' with target 'operator.getitem': indexing by a bool mask is not supported: the result's size depends on the data (masked_fill or torch.where keep the shape)}}
    %g = fx.call_function "operator.getitem"(%x, %m) : (tensor<4xf32>, tensor<4xi1>) -> tensor<?xf32>
    // expected-error @+1 {{cannot compile call_function 'h' with target 'operator.getitem': this tensor indexing is not supported}}
    %h = fx.call_function "operator.getitem"(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    fx.output (%g, %h) : tensor<?xf32>, tensor<4xf32>
  }
}

// -----

// A transposed conv's dilation must be positive (the fuzzer's division by
// zero), and its output padding smaller than the stride or the dilation.

fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x2x3x4x4xf32>
    %w = fx.placeholder "w" : tensor<2x3x2x3x3xf32>
    // expected-error @+1 {{cannot compile call_function 'c' with target 'aten::conv_transpose3d.input': stride and dilation must be positive}}
    %c = fx.call_function "aten::conv_transpose3d.input"(%x, %w, None, [2, 1, 1], [1, 1, 1], [1, 0, 0], 1, [1, 2, 0]) : (tensor<1x2x3x4x4xf32>, tensor<2x3x2x3x3xf32>) -> tensor<1x3x5x4x4xf32>
    fx.output %c : tensor<1x3x5x4x4xf32>
  }
}

// -----

fx.graph_module @M {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x2x5xf32>
    %w = fx.placeholder "w" : tensor<2x3x3xf32>
    // expected-error @+1 {{cannot compile call_function 'c' with target 'aten::conv_transpose1d': output_padding must be smaller than either stride or dilation}}
    %c = fx.call_function "aten::conv_transpose1d"(%x, %w, None, [2], [0], [2], 1, [1]) : (tensor<1x2x5xf32>, tensor<2x3x3xf32>) -> tensor<1x3x13xf32>
    fx.output %c : tensor<1x3x13xf32>
  }
}

// -----

// Upsampling a quantized tensor's integers other than bilinearly (fx-normalize
// writes such calls in reference form: dequantize, float upsampling,
// quantize).
fx.graph_module @QuantizedBicubic {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x4x3x3x!quant.uniform<u8:f32, 0.1:127>>
    // expected-error @+1 {{cannot compile call_function 'up' with target 'aten::upsample_bicubic2d.vec': interpolates 8-bit per-tensor quantized tensors bilinearly only}}
    %up = fx.call_function "aten::upsample_bicubic2d.vec"(%x, None, False, [2.0, 2.0]) : (tensor<1x4x3x3x!quant.uniform<u8:f32, 0.1:127>>) -> tensor<1x4x6x6x!quant.uniform<u8:f32, 0.1:127>>
    fx.output %up : tensor<1x4x6x6x!quant.uniform<u8:f32, 0.1:127>>
  }
}
