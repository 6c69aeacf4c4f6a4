// RUN: fx-opt %s -split-input-file | fx-opt -split-input-file | FileCheck %s
// RUN: fx-opt %s -split-input-file --mlir-print-op-generic | fx-opt -split-input-file | FileCheck %s
// RUN: fx-opt %s -split-input-file --verify-roundtrip > /dev/null

// Round trip of every fx op and every FX value kind. Each case checks the
// printed form of the lines that matter, after print, parse and print again
// (first from the custom form, then from the generic form).

// The graph module of the dialect description: state, a submodule and a
// forward graph with all node kinds that produce values.

// CHECK-LABEL: fx.graph_module @Net {
// CHECK-NEXT:    fx.state parameter @fc.weight : tensor<4x8xf32> = dense_resource<fc_w>
// CHECK-NEXT:    fx.state parameter @fc.bias : tensor<4xf32> = dense<5.000000e-01>
// CHECK-NEXT:    fx.submodule @fc "torch.nn.Linear"(in_features=8, out_features=4, bias=True)
// CHECK-NEXT:    fx.graph @forward {
// CHECK-NEXT:      %x = fx.placeholder "x" : tensor<2x8xf32>
// CHECK-NEXT:      %w = fx.get_attr @fc.weight : tensor<4x8xf32>
// CHECK-NEXT:      %fc = fx.call_module @fc(%x) : (tensor<2x8xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:      %relu = fx.call_function "torch.relu"(%fc) : (tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:      %t = fx.call_method "t"(%w) : (tensor<4x8xf32>) -> tensor<8x4xf32>
// CHECK-NEXT:      fx.output (%relu, %t) : tensor<2x4xf32>, tensor<8x4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// CHECK:       fc_w: "0x04000000
fx.graph_module @Net {
  fx.state parameter @"fc.weight" : tensor<4x8xf32> = dense_resource<fc_w>
  fx.state parameter @"fc.bias" : tensor<4xf32> = dense<0.5>
  fx.submodule @fc "torch.nn.Linear"(in_features=8, out_features=4, bias=True)
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x8xf32>
    %w = fx.get_attr @"fc.weight" : tensor<4x8xf32>
    %fc = fx.call_module @fc(%x) : (tensor<2x8xf32>) -> tensor<2x4xf32>
    %relu = fx.call_function "torch.relu"(%fc) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %t = fx.call_method "t"(%w) : (tensor<4x8xf32>) -> tensor<8x4xf32>
    fx.output (%relu, %t) : tensor<2x4xf32>, tensor<8x4xf32>
  }
}
{-#
  dialect_resources: {
    builtin: {
      fc_w: "0x040000000000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F"
    }
  }
#-}

// -----

// Python ints are i64: zero, negatives and both int64 extremes.

// CHECK-LABEL: fx.graph @ints
// CHECK: %r = fx.call_function "f"(0, 1, -1, 9223372036854775807, -9223372036854775808) : () -> !fx.any
fx.graph @ints {
  %r = fx.call_function "f"(0, 1, -1, 9223372036854775807, -9223372036854775808) : () -> !fx.any
  fx.output %r : !fx.any
}

// -----

// Python floats are f64, printed with Python's repr digits; an exponent
// always follows a `.` so that the literal parses back as a float.

// CHECK-LABEL: fx.graph @floats
// CHECK: %r = fx.call_function "f"(1.0e-05, 1.0e+16, 0.1, -0.0, 0.0, 2.0, inf, -inf, nan, 0.0001, 123456789.0, 1.2345678901234568e+16, 1.5e+300, 5.0e-324, 1.7976931348623157e+308) : () -> !fx.any
fx.graph @floats {
  %r = fx.call_function "f"(1.0e-05, 1.0e16, 0.1, -0.0, 0.0, 2.0, inf, -inf, nan, 1.0e-4, 123456789.0, 12345678901234567.0, 1.5e300, 4.9e-324, 1.7976931348623157e308) : () -> !fx.any
  fx.output %r : !fx.any
}

// -----

// CHECK-LABEL: fx.graph @keywords
// CHECK: %r = fx.call_function "f"(True, False, None, ..., ...) : () -> !fx.any
fx.graph @keywords {
  %r = fx.call_function "f"(True, False, None, ..., Ellipsis) : () -> !fx.any
  fx.output %r : !fx.any
}

// -----

// Strings are printed with MLIR's escapes (`\22` for `"`, `\0A` for a
// newline); a kwarg value and a list element may be any string.

// CHECK-LABEL: fx.graph @strings
// CHECK: %r = fx.call_function "f"(["a\22b", "back\\slash", "nl\0Atab\09", "'", "", "\00\7F", "1x"], mode="bilinear", s="it's \22q\22") : () -> !fx.any
fx.graph @strings {
  %r = fx.call_function "f"(["a\"b", "back\\slash", "nl\ntab\t", "'", "", "\00\7F", "1x"], mode="bilinear", s="it's \"q\"") : () -> !fx.any
  fx.output %r : !fx.any
}

// -----

// Positional string args stay strings, even when their text reads like an
// identifier, a keyword or a torch value.

// CHECK-LABEL: fx.graph @string_args
// CHECK: %r = fx.call_function "builtins.getattr"(%x, "shape", "None", "True", "inf", "torch.float32", "ij->ji", "_x", "1abc", "", " x") : (!fx.any) -> !fx.any
fx.graph @string_args {
  %x = fx.placeholder "x" : !fx.any
  %r = fx.call_function "builtins.getattr"(%x, "shape", "None", "True", "inf", "torch.float32", "ij->ji", "_x", "1abc", "", " x") : (!fx.any) -> !fx.any
  fx.output %r : !fx.any
}

// -----

// Lists, tuples and dicts, empty and nested. `(x)` is just x, as in Python;
// `(x,)` is a one-element tuple.

// CHECK-LABEL: fx.graph @containers
// CHECK: %r = fx.call_function "f"(%x, [], (), {}, {{\[\[\[\]\]\]}}, (%x,), (1, 2), 1, [(1, [2, {}]), ()], {"a": [1, 2], "b": (None,)}) : (!fx.any, !fx.any) -> !fx.any
fx.graph @containers {
  %x = fx.placeholder "x" : !fx.any
  %r = fx.call_function "f"(%x, [], (), {}, [[[]]], (%x,), (1, 2), (1), [(1, [2, {}]), ()], {"a": [1, 2], "b": (None,)}) : (!fx.any, !fx.any) -> !fx.any
  fx.output %r : !fx.any
}

// -----

// Dicts keep their insertion order and may have int keys.

// CHECK-LABEL: fx.graph @dicts
// CHECK: %r = fx.call_function "f"({2: "b", -1: "a", 0: None, "k": 1}) : () -> !fx.any
fx.graph @dicts {
  %r = fx.call_function "f"({2: "b", -1: "a", 0: None, "k": 1}) : () -> !fx.any
  fx.output %r : !fx.any
}

// -----

// x[:, %i:%j, ..., None] with node references as slice bounds.

// CHECK-LABEL: fx.graph @slices
// CHECK: %r = fx.call_function "operator.getitem"(%x, (slice(None, None, None), slice(%i, %j, 2), ..., None)) : (tensor<4x8xf32>, i64, i64) -> tensor<4x1x2xf32>
fx.graph @slices {
  %x = fx.placeholder "x" : tensor<4x8xf32>
  %i = fx.placeholder "i" : i64
  %j = fx.placeholder "j" : i64
  %r = fx.call_function "operator.getitem"(%x, (slice(None, None, None), slice(%i, %j, 2), ..., None)) : (tensor<4x8xf32>, i64, i64) -> tensor<4x1x2xf32>
  fx.output %r : tensor<4x1x2xf32>
}

// -----

// The same node used twice is two operands.

// CHECK-LABEL: fx.graph @reuse
// CHECK: %r = fx.call_function "torch.cat"([%x, %x]) : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>
fx.graph @reuse {
  %x = fx.placeholder "x" : tensor<2xf32>
  %r = fx.call_function "torch.cat"([%x, %x]) : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>
  fx.output %r : tensor<4xf32>
}

// -----

// dtypes print under their canonical name: the aliases PyTorch defines
// (torch.float, torch.long, ...) are the same dtype.

// CHECK-LABEL: fx.graph @dtype_aliases
// CHECK: %r = fx.call_function "f"(torch.float32, torch.float64, torch.float16, torch.complex64, torch.complex128, torch.complex32, torch.int64, torch.int32, torch.int16) : () -> !fx.any
fx.graph @dtype_aliases {
  %r = fx.call_function "f"(torch.float, torch.double, torch.half, torch.cfloat, torch.cdouble, torch.chalf, torch.long, torch.int, torch.short) : () -> !fx.any
  fx.output %r : !fx.any
}

// -----

// CHECK-LABEL: fx.graph @dtypes
// CHECK: %r = fx.call_function "f"(torch.float32, torch.bfloat16, torch.bool, torch.uint8, torch.int8, torch.uint64, torch.qint8, torch.quint4x2, torch.float8_e4m3fn, torch.float8_e5m2fnuz, torch.bits1x8) : () -> !fx.any
fx.graph @dtypes {
  %r = fx.call_function "f"(torch.float32, torch.bfloat16, torch.bool, torch.uint8, torch.int8, torch.uint64, torch.qint8, torch.quint4x2, torch.float8_e4m3fn, torch.float8_e5m2fnuz, torch.bits1x8) : () -> !fx.any
  fx.output %r : !fx.any
}

// -----

// CHECK-LABEL: fx.graph @memory_formats_and_layouts
// CHECK: %r = fx.call_function "f"(torch.contiguous_format, torch.channels_last, torch.channels_last_3d, torch.preserve_format, torch.strided, torch.sparse_coo, torch.sparse_csr, torch._mkldnn, torch.jagged) : () -> !fx.any
fx.graph @memory_formats_and_layouts {
  %r = fx.call_function "f"(torch.contiguous_format, torch.channels_last, torch.channels_last_3d, torch.preserve_format, torch.strided, torch.sparse_coo, torch.sparse_csr, torch._mkldnn, torch.jagged) : () -> !fx.any
  fx.output %r : !fx.any
}

// -----

// CHECK-LABEL: fx.graph @devices_sizes
// CHECK: %r = fx.call_function "f"(device("cpu"), device("cuda:0"), torch.Size([]), torch.Size([2, 3]), torch.Size([-1])) : () -> !fx.any
fx.graph @devices_sizes {
  %r = fx.call_function "f"(device("cpu"), device("cuda:0"), torch.Size([]), torch.Size([2, 3]), torch.Size([-1])) : () -> !fx.any
  fx.output %r : !fx.any
}

// -----

// Complex parts are floats; ints, inf and nan are accepted and print as
// floats.

// CHECK-LABEL: fx.graph @complex
// CHECK: %r = fx.call_function "f"(complex(1.0, -2.0), complex(0.0, 1.0e-05), complex(-0.0, 0.0), complex(3.0, -4.0), complex(inf, nan), complex(-inf, -0.0), complex(nan, 1.0)) : () -> !fx.any
fx.graph @complex {
  %r = fx.call_function "f"(complex(1.0, -2.0), complex(0.0, 1.0e-5), complex(-0.0, 0.0), complex(3, -4), complex(inf, nan), complex(-inf, -0.0), complex(nan, 1)) : () -> !fx.any
  fx.output %r : !fx.any
}

// -----

// Keyword arguments follow the positional ones, in their order. A key that
// is not a bare identifier is quoted.

// CHECK-LABEL: fx.graph @kwargs
// CHECK: %r = fx.call_function "torch.sum"(%x, dim=(0, 1), keepdim=True, dtype=torch.float32, out=None) : (tensor<2x3xf32>) -> tensor<1x1xf32>
// CHECK: %q = fx.call_function "f"(%x, "my key"=1, "0"=2, "a-b"=3, ""=4, "\22"=5, None=6, torch.float=7, _a.b$=8) : (tensor<2x3xf32>) -> !fx.any
fx.graph @kwargs {
  %x = fx.placeholder "x" : tensor<2x3xf32>
  %r = fx.call_function "torch.sum"(%x, dim=(0, 1), keepdim=True, dtype=torch.float, out=None) : (tensor<2x3xf32>) -> tensor<1x1xf32>
  %q = fx.call_function "f"(%x, "my key"=1, "0"=2, "a-b"=3, ""=4, "\""=5, "None"=6, torch.float=7, _a.b$=8) : (tensor<2x3xf32>) -> !fx.any
  fx.output (%r, %q) : tensor<1x1xf32>, !fx.any
}

// -----

// Nodes may be referenced from kwargs alone, nested anywhere in them.

// CHECK-LABEL: fx.graph @kwarg_nodes
// CHECK: %r = fx.call_function "torch.add"(input=%x, other=[%y, {"k": %x}]) : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
fx.graph @kwarg_nodes {
  %x = fx.placeholder "x" : tensor<2xf32>
  %y = fx.placeholder "y" : tensor<2xf32>
  %r = fx.call_function "torch.add"(input=%x, other=[%y, {"k": %x}]) : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  fx.output %r : tensor<2xf32>
}

// -----

// A call with no args at all.

// CHECK-LABEL: fx.graph @no_args
// CHECK: %r = fx.call_function "torch.get_default_dtype"() : () -> !fx.any
fx.graph @no_args {
  %r = fx.call_function "torch.get_default_dtype"() : () -> !fx.any
  fx.output %r : !fx.any
}

// -----

// Targets are any string: ATen overloads, dunder methods.

// CHECK-LABEL: fx.graph @targets
// CHECK: %a = fx.call_function "aten::add.Tensor"(%x, %x) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
// CHECK: %b = fx.call_method "__getitem__"(%a, 0) : (tensor<2xf32>) -> f64
fx.graph @targets {
  %x = fx.placeholder "x" : tensor<2xf32>
  %a = fx.call_function "aten::add.Tensor"(%x, %x) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %b = fx.call_method "__getitem__"(%a, 0) : (tensor<2xf32>) -> f64
  fx.output %b : f64
}

// -----

// call_method: the object is the first arg; kwargs follow.

// CHECK-LABEL: fx.graph @call_method
// CHECK: %view = fx.call_method "view"(%x, -1, 16) : (tensor<2x4x4xf32>) -> tensor<2x16xf32>
// CHECK: %to = fx.call_method "to"(%view, device("cuda:0"), dtype=torch.float16, non_blocking=True, memory_format=torch.preserve_format) : (tensor<2x16xf32>) -> tensor<2x16xf16>
// CHECK: %size = fx.call_method "size"(%to, dim=0) : (tensor<2x16xf16>) -> i64
fx.graph @call_method {
  %x = fx.placeholder "x" : tensor<2x4x4xf32>
  %view = fx.call_method "view"(%x, -1, 16) : (tensor<2x4x4xf32>) -> tensor<2x16xf32>
  %to = fx.call_method "to"(%view, device("cuda:0"), dtype=torch.half, non_blocking=True, memory_format=torch.preserve_format) : (tensor<2x16xf32>) -> tensor<2x16xf16>
  %size = fx.call_method "size"(%to, dim=0) : (tensor<2x16xf16>) -> i64
  fx.output %size : i64
}

// -----

// call_module with args and kwargs; submodule paths with dots and digits
// print as bare symbols when MLIR allows it and quoted otherwise; a module
// in training mode carries the `training` keyword.

// CHECK-LABEL: fx.graph_module @CallModule
// CHECK: fx.submodule @"0" "torch.nn.Identity"()
// CHECK: fx.submodule @layer1.0.conv1 "torch.nn.Conv2d"(in_channels=3, out_channels=8, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1), bias=False)
// CHECK: fx.submodule @attn "torch.nn.MultiheadAttention"(embed_dim=8, num_heads=2)
// CHECK: fx.submodule @drop "torch.nn.Dropout"(p=0.5) training{{$}}
// CHECK: %_0 = fx.call_module @"0"(%x) : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
// CHECK: %conv1 = fx.call_module @layer1.0.conv1(%_0) : (tensor<1x3x4x4xf32>) -> tensor<1x8x4x4xf32>
// CHECK: %attn = fx.call_module @attn(%q, %q, %q, need_weights=False, attn_mask=None) : (tensor<2x1x8xf32>, tensor<2x1x8xf32>, tensor<2x1x8xf32>) -> tuple<tensor<2x1x8xf32>, none>
fx.graph_module @CallModule {
  fx.submodule @"0" "torch.nn.Identity"()
  fx.submodule @"layer1.0.conv1" "torch.nn.Conv2d"(in_channels=3, out_channels=8, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1), bias=False)
  fx.submodule @attn "torch.nn.MultiheadAttention"(embed_dim=8, num_heads=2)
  fx.submodule @drop "torch.nn.Dropout"(p=0.5) training
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x3x4x4xf32>
    %q = fx.placeholder "q" : tensor<2x1x8xf32>
    %_0 = fx.call_module @"0"(%x) : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
    %conv1 = fx.call_module @"layer1.0.conv1"(%_0) : (tensor<1x3x4x4xf32>) -> tensor<1x8x4x4xf32>
    %attn = fx.call_module @attn(%q, %q, %q, need_weights=False, attn_mask=None) : (tensor<2x1x8xf32>, tensor<2x1x8xf32>, tensor<2x1x8xf32>) -> tuple<tensor<2x1x8xf32>, none>
    fx.output (%conv1, %attn) : tensor<1x8x4x4xf32>, tuple<tensor<2x1x8xf32>, none>
  }
}

// -----

// Placeholders: plain, with defaults of each constant kind, and variadic.

// CHECK-LABEL: fx.graph @placeholders
// CHECK-NEXT: %x = fx.placeholder "x" : tensor<?x3xf32>
// CHECK-NEXT: %eps = fx.placeholder "eps" = 1.0e-05 : f64
// CHECK-NEXT: %n = fx.placeholder "n" = -3 : i64
// CHECK-NEXT: %flag = fx.placeholder "flag" = False : i1
// CHECK-NEXT: %mode = fx.placeholder "mode" = "nearest" : !fx.any
// CHECK-NEXT: %opt = fx.placeholder "opt" = None : !fx.any
// CHECK-NEXT: %shape = fx.placeholder "shape" = (1, [2, 3], {"k": torch.float32}) : !fx.any
// CHECK-NEXT: %z = fx.placeholder "z" = complex(inf, 1.0) : !fx.any
// CHECK-NEXT: %args = fx.placeholder "*args" : !fx.any
// CHECK-NEXT: %kwargs = fx.placeholder "**kwargs" : !fx.any
fx.graph @placeholders {
  %x = fx.placeholder "x" : tensor<?x3xf32>
  %eps = fx.placeholder "eps" = 1.0e-5 : f64
  %n = fx.placeholder "n" = -3 : i64
  %flag = fx.placeholder "flag" = False : i1
  %mode = fx.placeholder "mode" = "nearest" : !fx.any
  %opt = fx.placeholder "opt" = None : !fx.any
  %shape = fx.placeholder "shape" = (1, [2, 3], {"k": torch.float}) : !fx.any
  %z = fx.placeholder "z" = complex(inf, 1) : !fx.any
  %args = fx.placeholder "*args" : !fx.any
  %kwargs = fx.placeholder "**kwargs" : !fx.any
  fx.output %x : tensor<?x3xf32>
}

// -----

// get_attr of a parameter, a buffer, a constant, an alias and a submodule;
// `!fx.any` is accepted in place of the state's type.

// CHECK-LABEL: fx.graph_module @GetAttr
// CHECK: %w = fx.get_attr @"0.weight" : tensor<2xf32>
// CHECK: %mean = fx.get_attr @bn.running_mean : tensor<3xf32>
// CHECK: %c = fx.get_attr @_tensor_constant0 : !fx.any
// CHECK: %tied = fx.get_attr @tied : tensor<2xf32>
// CHECK: %bn = fx.get_attr @bn : !fx.any
fx.graph_module @GetAttr {
  fx.state parameter @"0.weight" : tensor<2xf32>
  fx.state buffer @"bn.running_mean" : tensor<3xf32>
  fx.state constant @_tensor_constant0 : tensor<i64>
  fx.state parameter @tied : tensor<2xf32> = @"0.weight"
  fx.submodule @bn "torch.nn.BatchNorm1d"(num_features=3)
  fx.graph @forward {
    %w = fx.get_attr @"0.weight" : tensor<2xf32>
    %mean = fx.get_attr @"bn.running_mean" : tensor<3xf32>
    %c = fx.get_attr @_tensor_constant0 : !fx.any
    %tied = fx.get_attr @tied : tensor<2xf32>
    %bn = fx.get_attr @bn : !fx.any
    fx.output [%w, %mean, %c, %tied, %bn] : tensor<2xf32>, tensor<3xf32>, !fx.any, tensor<2xf32>, !fx.any
  }
}

// -----

// State of each kind: with a dense_resource blob, a dense value (which may
// repeat the declared type), an alias (tied weights) or no value at all.

// CHECK-LABEL: fx.graph_module @State
// CHECK-NEXT: fx.state parameter @enc.weight : tensor<2x2xf32> = dense_resource<enc_w>
// CHECK-NEXT: fx.state parameter @dec.weight : tensor<2x2xf32> = @enc.weight
// CHECK-NEXT: fx.state parameter @enc.bias : tensor<2xf32> = dense<[1.000000e+00, -2.000000e+00]>
// CHECK-NEXT: fx.state buffer @bn.num_batches_tracked : tensor<i64> = dense<0>
// CHECK-NEXT: fx.state buffer @bn.running_var : tensor<2xf32> = dense<1.000000e+00>
// CHECK-NEXT: fx.state buffer @bn.running_mean : tensor<2xf32> = dense<0.000000e+00>
// CHECK-NEXT: fx.state constant @_tensor_constant0 : tensor<3xf32>
// CHECK-NEXT: fx.state constant @"1" : tensor<?xi64>
// CHECK: enc_w: "0x04000000
fx.graph_module @State {
  fx.state parameter @"enc.weight" : tensor<2x2xf32> = dense_resource<enc_w>
  fx.state parameter @"dec.weight" : tensor<2x2xf32> = @"enc.weight"
  fx.state parameter @"enc.bias" : tensor<2xf32> = dense<[1.0, -2.0]>
  fx.state buffer @"bn.num_batches_tracked" : tensor<i64> = dense<0>
  fx.state buffer @"bn.running_var" : tensor<2xf32> = dense<1.0>
  fx.state buffer @"bn.running_mean" : tensor<2xf32> = dense<0.0> : tensor<2xf32>
  fx.state constant @_tensor_constant0 : tensor<3xf32>
  fx.state constant @"1" : tensor<?xi64>
  fx.graph @forward {
    fx.output None
  }
}
{-#
  dialect_resources: {
    builtin: {
      enc_w: "0x040000000000803F000000400000404000008040"
    }
  }
#-}

// -----

// Submodule hyperparameters: any constant FX value, keys quoted when they
// are not identifiers, none at all for a module without any.

// CHECK-LABEL: fx.graph_module @Submodules
// CHECK-NEXT: fx.submodule @relu "torch.nn.ReLU"()
// CHECK-NEXT: fx.submodule @bn "torch.nn.BatchNorm2d"(num_features=8, eps=1.0e-05, momentum=0.1, affine=True, track_running_stats=True)
// CHECK-NEXT: fx.submodule @up "torch.nn.Upsample"(size=None, scale_factor=(2.0, 2.0), mode="bilinear", align_corners=False)
// CHECK-NEXT: fx.submodule @custom "my.Module"("odd key"=[], dtype=torch.bfloat16, device=device("cpu"), shape=torch.Size([2]), z=complex(1.0, 1.0), d={0: ...})
// CHECK-NEXT: fx.submodule @attrs "torch.nn.Identity"() attributes {extra = 1 : i32}
fx.graph_module @Submodules {
  fx.submodule @relu "torch.nn.ReLU"()
  fx.submodule @bn "torch.nn.BatchNorm2d"(num_features=8, eps=1.0e-05, momentum=0.1, affine=True, track_running_stats=True)
  fx.submodule @up "torch.nn.Upsample"(size=None, scale_factor=(2.0, 2.0), mode="bilinear", align_corners=False)
  fx.submodule @custom "my.Module"("odd key"=[], dtype=torch.bfloat16, device=device("cpu"), shape=torch.Size([2]), z=complex(1.0, 1.0), d={0: ...})
  fx.submodule @attrs "torch.nn.Identity"() attributes {extra = 1 : i32}
  fx.graph @forward {
    fx.output None
  }
}

// -----

// Outputs: a single node, nested structures, a constant.

// CHECK-LABEL: fx.graph @output_single
// CHECK: fx.output %x : tensor<2xf32>
fx.graph @output_single {
  %x = fx.placeholder "x" : tensor<2xf32>
  fx.output %x : tensor<2xf32>
}

// -----

// CHECK-LABEL: fx.graph @output_nested
// CHECK: fx.output (%x, {"aux": [%y, %x], "n": None}, (%y,)) : tensor<2xf32>, i64, tensor<2xf32>, i64
fx.graph @output_nested {
  %x = fx.placeholder "x" : tensor<2xf32>
  %y = fx.placeholder "y" : i64
  fx.output (%x, {"aux": [%y, %x], "n": None}, (%y,)) : tensor<2xf32>, i64, tensor<2xf32>, i64
}

// -----

// CHECK-LABEL: fx.graph @output_none
// CHECK-NEXT: fx.output None{{$}}
fx.graph @output_none {
  fx.output None
}

// -----

// CHECK-LABEL: fx.graph @output_empty_tuple
// CHECK-NEXT: fx.output (){{$}}
fx.graph @output_empty_tuple {
  fx.output ()
}

// -----

// A graph module with several graphs; forward comes first. Each graph has
// its own node names.

// CHECK-LABEL: fx.graph_module @TwoGraphs
// CHECK:      fx.graph @forward {
// CHECK-NEXT:   %x = fx.placeholder "x" : tensor<2xf32>
// CHECK-NEXT:   %relu = fx.call_function "torch.relu"(%x) : (tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:   fx.output %relu : tensor<2xf32>
// CHECK-NEXT: }
// CHECK-NEXT: fx.graph @backward {
// CHECK-NEXT:   %x = fx.placeholder "x" : tensor<2xf32>
// CHECK-NEXT:   %relu = fx.call_function "torch.sigmoid"(%x) : (tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:   fx.output %relu : tensor<2xf32>
// CHECK-NEXT: }
fx.graph_module @TwoGraphs {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2xf32>
    %relu = fx.call_function "torch.relu"(%x) : (tensor<2xf32>) -> tensor<2xf32>
    fx.output %relu : tensor<2xf32>
  }
  fx.graph @backward {
    %x = fx.placeholder "x" : tensor<2xf32>
    %relu = fx.call_function "torch.sigmoid"(%x) : (tensor<2xf32>) -> tensor<2xf32>
    fx.output %relu : tensor<2xf32>
  }
}

// -----

// State, submodules and graphs may come in any order, as long as forward is
// the first graph.

// CHECK-LABEL: fx.graph_module @AnyOrder
// CHECK-NEXT: fx.graph @forward
// CHECK:      fx.state parameter @w : tensor<2xf32>
// CHECK-NEXT: fx.graph @helper
// CHECK:      fx.submodule @m "torch.nn.ReLU"()
fx.graph_module @AnyOrder {
  fx.graph @forward {
    fx.output None
  }
  fx.state parameter @w : tensor<2xf32>
  fx.graph @helper {
    fx.output None
  }
  fx.submodule @m "torch.nn.ReLU"()
}

// -----

// A graph outside any graph module (a rewrite pattern): get_attr and
// call_module targets are not checked against a module.

// CHECK-LABEL: fx.graph @pattern {
// CHECK-NEXT: %x = fx.placeholder "x" : !fx.any
// CHECK-NEXT: %w = fx.get_attr @anything : tensor<3xf32>
// CHECK-NEXT: %m = fx.call_module @some.module(%x, %w) : (!fx.any, tensor<3xf32>) -> !fx.any
// CHECK-NEXT: fx.output %m : !fx.any
fx.graph @pattern {
  %x = fx.placeholder "x" : !fx.any
  %w = fx.get_attr @anything : tensor<3xf32>
  %m = fx.call_module @"some.module"(%x, %w) : (!fx.any, tensor<3xf32>) -> !fx.any
  fx.output %m : !fx.any
}

// -----

// Node types: dynamic tensors, Python scalars, tuples, and !fx.any.

// CHECK-LABEL: fx.graph @types
// CHECK-NEXT: %x = fx.placeholder "x" : tensor<?x3xf32>
// CHECK-NEXT: %u = fx.placeholder "u" : tensor<*xf32>
// CHECK-NEXT: %n = fx.call_method "size"(%x, 0) : (tensor<?x3xf32>) -> i64
// CHECK-NEXT: %f = fx.call_function "float"(%n) : (i64) -> f64
// CHECK-NEXT: %b = fx.call_function "operator.gt"(%f, 0.5) : (f64) -> i1
// CHECK-NEXT: %s = fx.call_function "torch.split"(%x, 1) : (tensor<?x3xf32>) -> tuple<tensor<?x1xf32>, tensor<?x1xf32>, tensor<?x1xf32>>
// CHECK-NEXT: %a = fx.call_function "f"(%s, %b, %u) : (tuple<tensor<?x1xf32>, tensor<?x1xf32>, tensor<?x1xf32>>, i1, tensor<*xf32>) -> !fx.any
// CHECK-NEXT: fx.output %a : !fx.any
fx.graph @types {
  %x = fx.placeholder "x" : tensor<?x3xf32>
  %u = fx.placeholder "u" : tensor<*xf32>
  %n = fx.call_method "size"(%x, 0) : (tensor<?x3xf32>) -> i64
  %f = fx.call_function "float"(%n) : (i64) -> f64
  %b = fx.call_function "operator.gt"(%f, 0.5) : (f64) -> i1
  %s = fx.call_function "torch.split"(%x, 1) : (tensor<?x3xf32>) -> tuple<tensor<?x1xf32>, tensor<?x1xf32>, tensor<?x1xf32>>
  %a = fx.call_function "f"(%s, %b, %u) : (tuple<tensor<?x1xf32>, tensor<?x1xf32>, tensor<?x1xf32>>, i1, tensor<*xf32>) -> !fx.any
  fx.output %a : !fx.any
}

// -----

// The printer names each result after its node; node_name stays explicit
// only when the SSA name cannot say it (not an identifier, or taken).

// CHECK-LABEL: fx.graph @node_names
// CHECK-NEXT: %x = fx.placeholder "x" : !fx.any
// CHECK-NEXT: %input_1 = fx.placeholder "input" : !fx.any
// CHECK-NEXT: %my_node = fx.call_function "f"(%x) {node_name = "my node"} : (!fx.any) -> !fx.any
// CHECK-NEXT: %my_node_0 = fx.call_function "f"(%my_node) {node_name = "my_node"} : (!fx.any) -> !fx.any
// CHECK-NEXT: %_1 = fx.call_function "f"(%my_node_0) {node_name = "1"} : (!fx.any) -> !fx.any
// CHECK-NEXT: %a-b = fx.call_function "f"(%_1) : (!fx.any) -> !fx.any
// CHECK-NEXT: %x_1 = fx.call_function "f"(%a-b) : (!fx.any) -> !fx.any
// CHECK-NEXT: fx.output %x_1 {node_name = "out"} : !fx.any
fx.graph @node_names {
  %x = fx.placeholder "x" : !fx.any
  %input = fx.placeholder "input" {node_name = "input_1"} : !fx.any
  %a = fx.call_function "f"(%x) {node_name = "my node"} : (!fx.any) -> !fx.any
  %b = fx.call_function "f"(%a) {node_name = "my_node"} : (!fx.any) -> !fx.any
  %c = fx.call_function "f"(%b) {node_name = "1"} : (!fx.any) -> !fx.any
  %d = fx.call_function "f"(%c) {node_name = "a-b"} : (!fx.any) -> !fx.any
  %e = fx.call_function "f"(%d) {node_name = "x_1"} : (!fx.any) -> !fx.any
  fx.output %e {node_name = "out"} : !fx.any
}

// -----

// Without an explicit node_name the node is named after its SSA name, even
// when that is a number.

// CHECK-LABEL: fx.graph @ssa_names
// CHECK-NEXT: %_0 = fx.placeholder "x" {node_name = "0"} : !fx.any
// CHECK-NEXT: %relu = fx.call_function "torch.relu"(%_0) : (!fx.any) -> !fx.any
fx.graph @ssa_names {
  %0 = fx.placeholder "x" : !fx.any
  %relu = fx.call_function "torch.relu"(%0) : (!fx.any) -> !fx.any
  fx.output %relu : !fx.any
}

// -----

// Other discardable attributes survive next to the elided ones.

// CHECK-LABEL: fx.graph @extra_attrs attributes {foo = "bar"}
// CHECK-NEXT: %x = fx.placeholder "x" = 1 {tag = 1 : i64} : i64
// CHECK-NEXT: %y = fx.call_function "f"(%x) {tag = 2 : i64} : (i64) -> i64
// CHECK-NEXT: fx.output %y {tag = 3 : i64} : i64
fx.graph @extra_attrs attributes {foo = "bar"} {
  %x = fx.placeholder "x" = 1 {tag = 1} : i64
  %y = fx.call_function "f"(%x) {tag = 2} : (i64) -> i64
  fx.output %y {tag = 3} : i64
}

// -----

// The generic form stores node references as #fx.node<index> into the
// operand list.

// CHECK-LABEL: fx.graph @generic
// CHECK: %cat = fx.call_function "torch.cat"([%b, %a], dim=-1) : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>
"fx.graph"() <{sym_name = "generic"}> ({
  %a = "fx.placeholder"() <{node_name = "a", target = "a"}> : () -> tensor<2xf32>
  %b = "fx.placeholder"() <{node_name = "b", target = "b"}> : () -> tensor<2xf32>
  %cat = "fx.call_function"(%a, %b) <{args = [#fx.list<[#fx.node<1>, #fx.node<0>]>], kwargs = #fx.dict<"dim" = -1>, node_name = "cat", target = "torch.cat"}> : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>
  "fx.output"(%cat) <{args = [#fx.node<0>], node_name = "output"}> : (tensor<4xf32>) -> ()
}) : () -> ()
