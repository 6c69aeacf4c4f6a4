// RUN: fx-opt %s -split-input-file --fx-normalize -verify-diagnostics | FileCheck %s
// With strict, each of the warnings expected below is an error instead:
// RUN: sed 's/expected-warning/expected-error/' %s | fx-opt -split-input-file --fx-normalize=strict=true -verify-diagnostics -o /dev/null

// fx-normalize: each call the target registry knows becomes one
// `fx.call_function "aten::<overload>"` with every schema argument
// explicit (positional parameters in args, keyword-only ones in kwargs,
// defaults filled in); node names are kept. Module calls read their
// weights through `fx.get_attr` nodes; tensor indexing, `x.shape`, `x.T`,
// nn.Identity and nn.MultiheadAttention are expanded by the pass itself.
// Calls it cannot normalize are left alone with a warning, an error with
// `strict`.

//===----------------------------------------------------------------------===//
// Functions and methods
//===----------------------------------------------------------------------===//

// A torch function is an alias of its aten operator.

// CHECK-LABEL: fx.graph @torch_function
// CHECK: %relu = fx.call_function "aten::relu"(%x) : (tensor<2x4xf32>) -> tensor<2x4xf32>
fx.graph @torch_function {
  %x = fx.placeholder "x" : tensor<2x4xf32>
  %relu = fx.call_function "torch.relu"(%x) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  fx.output %relu : tensor<2x4xf32>
}

// -----

// Parameters the aten schema has no place for (`inplace`) are dropped.

// CHECK-LABEL: fx.graph @functional_dropped_param
// CHECK: %relu = fx.call_function "aten::relu"(%x) : (tensor<2x4xf32>) -> tensor<2x4xf32>
fx.graph @functional_dropped_param {
  %x = fx.placeholder "x" : tensor<2x4xf32>
  %relu = fx.call_function "torch.nn.functional.relu"(%x, inplace=True) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  fx.output %relu : tensor<2x4xf32>
}

// -----

// An in-place call overwrites its input: later readers of the input read
// the result (`x += 1` too).

// CHECK-LABEL: fx.graph @inplace
// CHECK: %relu = fx.call_function "aten::relu"(%x) : (tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK: %iadd = fx.call_function "aten::add.Scalar"(%relu, 1, 1) : (tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK: %mul = fx.call_function "aten::mul.Scalar"(%iadd, 2) : (tensor<2x4xf32>) -> tensor<2x4xf32>
fx.graph @inplace {
  %x = fx.placeholder "x" : tensor<2x4xf32>
  %relu = fx.call_function "torch.nn.functional.relu"(%x, inplace=True) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %iadd = fx.call_function "operator.iadd"(%x, 1) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %mul = fx.call_function "operator.mul"(%x, 2) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  fx.output %mul : tensor<2x4xf32>
}

// -----

// A method's object is `self`; varargs sizes are collected into the int[]
// parameter, and a single tuple is taken as the whole list.

// CHECK-LABEL: fx.graph @method_varargs
// CHECK: %view = fx.call_function "aten::view"(%x, [2, -1]) : (tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK: %view_1 = fx.call_function "aten::view"(%x, [8]) : (tensor<2x4xf32>) -> tensor<8xf32>
fx.graph @method_varargs {
  %x = fx.placeholder "x" : tensor<2x4xf32>
  %view = fx.call_method "view"(%x, 2, -1) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %view_1 = fx.call_method "view"(%x, (8,)) : (tensor<2x4xf32>) -> tensor<8xf32>
  fx.output (%view, %view_1) : tensor<2x4xf32>, tensor<8xf32>
}

// -----

// `x + y` of two tensors: add.Tensor, its keyword-only alpha explicit.

// CHECK-LABEL: fx.graph @add_tensor
// CHECK: %add = fx.call_function "aten::add.Tensor"(%x, %y, alpha=1) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
fx.graph @add_tensor {
  %x = fx.placeholder "x" : tensor<2x4xf32>
  %y = fx.placeholder "y" : tensor<2x4xf32>
  %add = fx.call_function "operator.add"(%x, %y) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  fx.output %add : tensor<2x4xf32>
}

// -----

// `x + 1`: an int fits only add.Scalar, whose alpha is positional.

// CHECK-LABEL: fx.graph @add_scalar
// CHECK: %add = fx.call_function "aten::add.Scalar"(%x, 1, 1) : (tensor<2x4xf32>) -> tensor<2x4xf32>
fx.graph @add_scalar {
  %x = fx.placeholder "x" : tensor<2x4xf32>
  %add = fx.call_function "operator.add"(%x, 1) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  fx.output %add : tensor<2x4xf32>
}

// -----

// `2 + x` comes as operator.add(2, x): the operands are swapped.

// CHECK-LABEL: fx.graph @add_reversed
// CHECK: %add = fx.call_function "aten::add.Scalar"(%x, 2, 1) : (tensor<2x4xf32>) -> tensor<2x4xf32>
fx.graph @add_reversed {
  %x = fx.placeholder "x" : tensor<2x4xf32>
  %add = fx.call_function "operator.add"(2, %x) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  fx.output %add : tensor<2x4xf32>
}

// -----

// Defaults are filled in: softmax's dtype, sum's keepdim and its
// keyword-only dtype.

// CHECK-LABEL: fx.graph @defaults
// CHECK: %softmax = fx.call_function "aten::softmax.int"(%x, -1, None) : (tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK: %sum = fx.call_function "aten::sum.dim_IntList"(%softmax, [1], False, dtype=None) : (tensor<2x4xf32>) -> tensor<2xf32>
fx.graph @defaults {
  %x = fx.placeholder "x" : tensor<2x4xf32>
  %softmax = fx.call_function "torch.nn.functional.softmax"(%x, dim=-1) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %sum = fx.call_method "sum"(%softmax, 1) : (tensor<2x4xf32>) -> tensor<2xf32>
  fx.output %sum : tensor<2xf32>
}

// -----

// A node that is already canonical is left as it is.

// CHECK-LABEL: fx.graph @canonical
// CHECK-NEXT: %x = fx.placeholder "x" : tensor<2x4xf32>
// CHECK-NEXT: %add = fx.call_function "aten::add.Tensor"(%x, %x, alpha=2) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT: %mean = fx.call_function "aten::mean.dim"(%add, [0], True, dtype=None) : (tensor<2x4xf32>) -> tensor<1x4xf32>
// CHECK-NEXT: fx.output %mean : tensor<1x4xf32>
fx.graph @canonical {
  %x = fx.placeholder "x" : tensor<2x4xf32>
  %add = fx.call_function "aten::add.Tensor"(%x, %x, alpha=2) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %mean = fx.call_function "aten::mean.dim"(%add, [0], True, dtype=None) : (tensor<2x4xf32>) -> tensor<1x4xf32>
  fx.output %mean : tensor<1x4xf32>
}

// -----

// The overload is chosen by the kinds of the arguments: torch.max(x, 1) is
// max.dim, torch.max(x, y) of two tensors is maximum, torch.max(x) is max.

// CHECK-LABEL: fx.graph @overloads
// CHECK: %max = fx.call_function "aten::max.dim"(%x, 1, False) : (tensor<2x4xf32>) -> tuple<tensor<2xf32>, tensor<2xi64>>
// CHECK: %max_1 = fx.call_function "aten::maximum"(%x, %y) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK: %max_2 = fx.call_function "aten::max"(%x) : (tensor<2x4xf32>) -> tensor<f32>
fx.graph @overloads {
  %x = fx.placeholder "x" : tensor<2x4xf32>
  %y = fx.placeholder "y" : tensor<2x4xf32>
  %max = fx.call_function "torch.max"(%x, 1) : (tensor<2x4xf32>) -> tuple<tensor<2xf32>, tensor<2xi64>>
  %max_1 = fx.call_function "torch.max"(%x, %y) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %max_2 = fx.call_function "torch.max"(%x) : (tensor<2x4xf32>) -> tensor<f32>
  fx.output (%max, %max_1, %max_2) : tuple<tensor<2xf32>, tensor<2xi64>>, tensor<2x4xf32>, tensor<f32>
}

// -----

//===----------------------------------------------------------------------===//
// Tensor indexing and attributes
//===----------------------------------------------------------------------===//

// CHECK-LABEL: fx.graph @getitem_slice
// CHECK: %getitem = fx.call_function "aten::slice.Tensor"(%x, 1, 1, 3, 1) : (tensor<2x4xf32>) -> tensor<2x2xf32>
fx.graph @getitem_slice {
  %x = fx.placeholder "x" : tensor<2x4xf32>
  %getitem = fx.call_function "operator.getitem"(%x, (slice(None, None, None), slice(1, 3, None))) : (tensor<2x4xf32>) -> tensor<2x2xf32>
  fx.output %getitem : tensor<2x2xf32>
}

// -----

// CHECK-LABEL: fx.graph @getitem_int
// CHECK: %getitem = fx.call_function "aten::select.int"(%x, 0, 0) : (tensor<2x4xf32>) -> tensor<4xf32>
fx.graph @getitem_int {
  %x = fx.placeholder "x" : tensor<2x4xf32>
  %getitem = fx.call_function "operator.getitem"(%x, 0) : (tensor<2x4xf32>) -> tensor<4xf32>
  fx.output %getitem : tensor<4xf32>
}

// -----

// CHECK-LABEL: fx.graph @getitem_none
// CHECK: %getitem = fx.call_function "aten::unsqueeze"(%x, 1) : (tensor<2x4xf32>) -> tensor<2x1x4xf32>
fx.graph @getitem_none {
  %x = fx.placeholder "x" : tensor<2x4xf32>
  %getitem = fx.call_function "operator.getitem"(%x, (slice(None, None, None), None)) : (tensor<2x4xf32>) -> tensor<2x1x4xf32>
  fx.output %getitem : tensor<2x1x4xf32>
}

// -----

// Int tensor indices next to each other among slices (`table[idx]`,
// `x[:, idx]`, `x[i, j]`, `x[..., idx]`, `x[idx, 1:]`) are a gather:
// aten::index.Tensor with None for the dims before them, the slices that
// are not full cut first. A list of ints indexes as the int64 tensor of
// them. A bool index (a mask) and an index before an int are left alone.

// CHECK-LABEL: fx.graph @getitem_tensor
// CHECK: %rows = fx.call_function "aten::index.Tensor"(%x, [%i]) : (tensor<5x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
// CHECK: %cols = fx.call_function "aten::index.Tensor"(%x, [None, %i]) : (tensor<5x4xf32>, tensor<2x3xi64>) -> tensor<5x2x3xf32>
// CHECK: %pairs = fx.call_function "aten::index.Tensor"(%x, [%i, %i]) : (tensor<5x4xf32>, tensor<2x3xi64>, tensor<2x3xi64>) -> tensor<2x3xf32>
// CHECK: %[[L:.*]] = fx.call_function "aten::tensor"([3, 1, 3], dtype=torch.int64, device=None, requires_grad=False) : () -> tensor<3xi64>
// CHECK: %listed = fx.call_function "aten::index.Tensor"(%x, [None, %[[L]]]) : (tensor<5x4xf32>, tensor<3xi64>) -> tensor<5x3xf32>
// CHECK: %last = fx.call_function "aten::index.Tensor"(%x, [None, %i]) : (tensor<5x4xf32>, tensor<2x3xi64>) -> tensor<5x2x3xf32>
// CHECK: %[[S:.*]] = fx.call_function "aten::slice.Tensor"(%x, 1, 1, 4, 2) : (tensor<5x4xf32>) -> tensor<5x2xf32>
// CHECK: %cut = fx.call_function "aten::index.Tensor"(%[[S]], [%i]) : (tensor<5x2xf32>, tensor<2x3xi64>) -> tensor<2x3x2xf32>
fx.graph @getitem_tensor {
  %x = fx.placeholder "x" : tensor<5x4xf32>
  %i = fx.placeholder "i" : tensor<2x3xi64>
  %m = fx.placeholder "m" : tensor<5xi1>
  %rows = fx.call_function "operator.getitem"(%x, %i) : (tensor<5x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
  %cols = fx.call_function "operator.getitem"(%x, (slice(None, None, None), %i)) : (tensor<5x4xf32>, tensor<2x3xi64>) -> tensor<5x2x3xf32>
  %pairs = fx.call_function "operator.getitem"(%x, (%i, %i)) : (tensor<5x4xf32>, tensor<2x3xi64>, tensor<2x3xi64>) -> tensor<2x3xf32>
  %listed = fx.call_function "operator.getitem"(%x, (slice(None, None, None), [3, 1, 3])) : (tensor<5x4xf32>) -> tensor<5x3xf32>
  %last = fx.call_function "operator.getitem"(%x, (..., %i)) : (tensor<5x4xf32>, tensor<2x3xi64>) -> tensor<5x2x3xf32>
  %cut = fx.call_function "operator.getitem"(%x, (%i, slice(1, None, 2))) : (tensor<5x4xf32>, tensor<2x3xi64>) -> tensor<2x3x2xf32>
  // expected-warning @+1 {{(tensor indices are only supported next to each other, among slices (`x[idx]`, `x[:, idx]`, `x[i, j]`, `x[..., idx, 1:]`))}}
  %mask = fx.call_function "operator.getitem"(%x, %m) : (tensor<5x4xf32>, tensor<5xi1>) -> tensor<?x4xf32>
  // expected-warning @+1 {{(tensor indices are only supported next to each other, among slices (`x[idx]`, `x[:, idx]`, `x[i, j]`, `x[..., idx, 1:]`))}}
  %mixed = fx.call_function "operator.getitem"(%x, (%i, 0)) : (tensor<5x4xf32>, tensor<2x3xi64>) -> tensor<2x3xf32>
  fx.output (%rows, %cols, %pairs, %listed, %last, %cut, %mask, %mixed) : tensor<2x3x4xf32>, tensor<5x2x3xf32>, tensor<2x3xf32>, tensor<5x3xf32>, tensor<5x2x3xf32>, tensor<2x3x2xf32>, tensor<?x4xf32>, tensor<2x3xf32>
}

// -----

// NumPy's names of transpose, and einsum's operands as varargs or one list.

// CHECK-LABEL: fx.graph @swapaxes_einsum
// CHECK: %sw = fx.call_function "aten::transpose.int"(%x, 0, 1) : (tensor<5x4xf32>) -> tensor<4x5xf32>
// CHECK: %sd = fx.call_function "aten::transpose.int"(%x, 1, 0) : (tensor<5x4xf32>) -> tensor<4x5xf32>
// CHECK: %e = fx.call_function "aten::einsum"("ij,jk->ik", [%x, %sw], path=None) : (tensor<5x4xf32>, tensor<4x5xf32>) -> tensor<5x5xf32>
// CHECK: %f = fx.call_function "aten::einsum"("ij->ji", [%x], path=None) : (tensor<5x4xf32>) -> tensor<4x5xf32>
fx.graph @swapaxes_einsum {
  %x = fx.placeholder "x" : tensor<5x4xf32>
  %sw = fx.call_function "torch.swapaxes"(%x, 0, 1) : (tensor<5x4xf32>) -> tensor<4x5xf32>
  %sd = fx.call_method "swapdims"(%x, dim0=1, dim1=0) : (tensor<5x4xf32>) -> tensor<4x5xf32>
  %e = fx.call_function "torch.functional.einsum"("ij,jk->ik", %x, %sw) : (tensor<5x4xf32>, tensor<4x5xf32>) -> tensor<5x5xf32>
  %f = fx.call_function "torch.functional.einsum"("ij->ji", [%x]) : (tensor<5x4xf32>) -> tensor<4x5xf32>
  fx.output (%sw, %sd, %e, %f) : tensor<4x5xf32>, tensor<4x5xf32>, tensor<5x5xf32>, tensor<4x5xf32>
}

// -----

// `...` stands for the dims the other indices do not consume.

// CHECK-LABEL: fx.graph @getitem_ellipsis
// CHECK: %getitem = fx.call_function "aten::select.int"(%x, 1, -1) : (tensor<2x4xf32>) -> tensor<2xf32>
fx.graph @getitem_ellipsis {
  %x = fx.placeholder "x" : tensor<2x4xf32>
  %getitem = fx.call_function "operator.getitem"(%x, (..., -1)) : (tensor<2x4xf32>) -> tensor<2xf32>
  fx.output %getitem : tensor<2xf32>
}

// -----

// Several indices chain, each step on the result of the previous one; the
// last node keeps the name and type, the others get new names.

// CHECK-LABEL: fx.graph @getitem_chain
// CHECK: %getitem_1 = fx.call_function "aten::select.int"(%x, 0, 0) : (tensor<2x4xf32>) -> tensor<*xf32>
// CHECK: %getitem = fx.call_function "aten::slice.Tensor"(%getitem_1, 0, 1, None, 2) : (tensor<*xf32>) -> tensor<2xf32>
fx.graph @getitem_chain {
  %x = fx.placeholder "x" : tensor<2x4xf32>
  %getitem = fx.call_function "operator.getitem"(%x, (0, slice(1, None, 2))) : (tensor<2x4xf32>) -> tensor<2xf32>
  fx.output %getitem : tensor<2xf32>
}

// -----

// `x[:]` is x itself.

// CHECK-LABEL: fx.graph @getitem_full
// CHECK-NOT: fx.call_function
// CHECK: fx.output %x
fx.graph @getitem_full {
  %x = fx.placeholder "x" : tensor<2x4xf32>
  %getitem = fx.call_function "operator.getitem"(%x, slice(None, None, None)) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  fx.output %getitem : tensor<2x4xf32>
}

// -----

// `x.shape` is aten::size; `x.shape[0]` indexes the resulting list and
// stays operator.getitem.

// CHECK-LABEL: fx.graph @shape
// CHECK: %getattr = fx.call_function "aten::size"(%x) : (tensor<2x4xf32>) -> !fx.any
// CHECK: %getitem = fx.call_function "operator.getitem"(%getattr, 0) : (!fx.any) -> i64
fx.graph @shape {
  %x = fx.placeholder "x" : tensor<2x4xf32>
  %getattr = fx.call_function "builtins.getattr"(%x, "shape") : (tensor<2x4xf32>) -> !fx.any
  %getitem = fx.call_function "operator.getitem"(%getattr, 0) : (!fx.any) -> i64
  fx.output %getitem : i64
}

// -----

// `x.T` reverses all dims of a tensor of known rank.

// CHECK-LABEL: fx.graph @transpose_attr
// CHECK: %getattr = fx.call_function "aten::permute"(%x, [2, 1, 0]) : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
fx.graph @transpose_attr {
  %x = fx.placeholder "x" : tensor<2x3x4xf32>
  %getattr = fx.call_function "builtins.getattr"(%x, "T") : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
  fx.output %getattr : tensor<4x3x2xf32>
}

// -----

// `x.H` of a matrix and `x.mH` transpose (the last two dims for mH), and
// conjugate complex tensors; `z.real` and `z.imag` of complex tensors.

// CHECK-LABEL: fx.graph @adjoint_attrs
// CHECK: %h = fx.call_function "aten::transpose.int"(%x, 0, 1) : (tensor<3x4xf32>) -> tensor<4x3xf32>
// CHECK: %[[T:.*]] = fx.call_function "aten::transpose.int"(%z, -2, -1) : (tensor<2x3x4xcomplex<f32>>) -> tensor<2x4x3xcomplex<f32>>
// CHECK: %mh = fx.call_function "aten::conj"(%[[T]]) : (tensor<2x4x3xcomplex<f32>>) -> tensor<2x4x3xcomplex<f32>>
// CHECK: %re = fx.call_function "aten::real"(%z) : (tensor<2x3x4xcomplex<f32>>) -> tensor<2x3x4xf32>
// CHECK: %im = fx.call_function "aten::imag"(%z) : (tensor<2x3x4xcomplex<f32>>) -> tensor<2x3x4xf32>
fx.graph @adjoint_attrs {
  %x = fx.placeholder "x" : tensor<3x4xf32>
  %z = fx.placeholder "z" : tensor<2x3x4xcomplex<f32>>
  %h = fx.call_function "builtins.getattr"(%x, "H") : (tensor<3x4xf32>) -> tensor<4x3xf32>
  %mh = fx.call_function "builtins.getattr"(%z, "mH") : (tensor<2x3x4xcomplex<f32>>) -> tensor<2x4x3xcomplex<f32>>
  %re = fx.call_function "builtins.getattr"(%z, "real") : (tensor<2x3x4xcomplex<f32>>) -> tensor<2x3x4xf32>
  %im = fx.call_function "builtins.getattr"(%z, "imag") : (tensor<2x3x4xcomplex<f32>>) -> tensor<2x3x4xf32>
  fx.output (%h, %mh, %re, %im) : tensor<4x3xf32>, tensor<2x4x3xcomplex<f32>>, tensor<2x3x4xf32>, tensor<2x3x4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Modules
//===----------------------------------------------------------------------===//

// nn.Linear: its weight and bias are read by new get_attr nodes.

// CHECK-LABEL: fx.graph_module @Linear
// CHECK:      %x = fx.placeholder "x" : tensor<2x8xf32>
// CHECK-NEXT: %fc_weight = fx.get_attr @fc.weight : tensor<4x8xf32>
// CHECK-NEXT: %fc_bias = fx.get_attr @fc.bias : tensor<4xf32>
// CHECK-NEXT: %fc = fx.call_function "aten::linear"(%x, %fc_weight, %fc_bias) : (tensor<2x8xf32>, tensor<4x8xf32>, tensor<4xf32>) -> tensor<2x4xf32>
fx.graph_module @Linear {
  fx.state parameter @fc.weight : tensor<4x8xf32>
  fx.state parameter @fc.bias : tensor<4xf32>
  fx.submodule @fc "torch.nn.Linear"(in_features=8, out_features=4, bias=True)
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x8xf32>
    %fc = fx.call_module @fc(%x) : (tensor<2x8xf32>) -> tensor<2x4xf32>
    fx.output %fc : tensor<2x4xf32>
  }
}

// -----

// A get_attr of the weight before the call is reused; a module without a
// bias passes None.

// CHECK-LABEL: fx.graph_module @LinearReuse
// CHECK:      %w = fx.get_attr @fc.weight : tensor<4x8xf32>
// CHECK-NEXT: %fc = fx.call_function "aten::linear"(%x, %w, None)
// CHECK-NOT:  fx.get_attr
fx.graph_module @LinearReuse {
  fx.state parameter @fc.weight : tensor<4x8xf32>
  fx.submodule @fc "torch.nn.Linear"(in_features=8, out_features=4, bias=False)
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x8xf32>
    %w = fx.get_attr @fc.weight : tensor<4x8xf32>
    %fc = fx.call_module @fc(%x) : (tensor<2x8xf32>) -> tensor<2x4xf32>
    fx.output (%fc, %w) : tensor<2x4xf32>, tensor<4x8xf32>
  }
}

// -----

// nn.Conv2d: the hyperparameter tuples become int[2] lists.

// CHECK-LABEL: fx.graph_module @Conv
// CHECK: %conv_weight = fx.get_attr @conv.weight : tensor<8x3x3x3xf32>
// CHECK: %conv = fx.call_function "aten::conv2d"(%x, %conv_weight, None, [2, 2], [1, 1], [1, 1], 1) : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x4x4xf32>
fx.graph_module @Conv {
  fx.state parameter @conv.weight : tensor<8x3x3x3xf32>
  fx.submodule @conv "torch.nn.Conv2d"(in_channels=3, out_channels=8, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1), dilation=(1, 1), groups=1, bias=False, padding_mode="zeros")
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x3x8x8xf32>
    %conv = fx.call_module @conv(%x) : (tensor<1x3x8x8xf32>) -> tensor<1x8x4x4xf32>
    fx.output %conv : tensor<1x8x4x4xf32>
  }
}

// -----

// nn.BatchNorm2d in eval mode: running stats as get_attr nodes,
// training=False, momentum and eps from the hyperparameters.

// CHECK-LABEL: fx.graph_module @BatchNormEval
// CHECK: %bn = fx.call_function "aten::batch_norm"(%x, %bn_weight, %bn_bias, %bn_running_mean, %bn_running_var, False, 0.1, 0.001, True)
fx.graph_module @BatchNormEval {
  fx.state parameter @bn.weight : tensor<3xf32>
  fx.state parameter @bn.bias : tensor<3xf32>
  fx.state buffer @bn.running_mean : tensor<3xf32>
  fx.state buffer @bn.running_var : tensor<3xf32>
  fx.state buffer @bn.num_batches_tracked : tensor<i64>
  fx.submodule @bn "torch.nn.BatchNorm2d"(num_features=3, eps=1.0e-03, momentum=0.1, affine=True, track_running_stats=True)
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x3x4x4xf32>
    %bn = fx.call_module @bn(%x) : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
    fx.output %bn : tensor<1x3x4x4xf32>
  }
}

// -----

// The same module in training mode: training=True.

// CHECK-LABEL: fx.graph_module @BatchNormTrain
// CHECK: %bn = fx.call_function "aten::batch_norm"(%x, %bn_weight, %bn_bias, %bn_running_mean, %bn_running_var, True,
fx.graph_module @BatchNormTrain {
  fx.state parameter @bn.weight : tensor<3xf32>
  fx.state parameter @bn.bias : tensor<3xf32>
  fx.state buffer @bn.running_mean : tensor<3xf32>
  fx.state buffer @bn.running_var : tensor<3xf32>
  fx.submodule @bn "torch.nn.BatchNorm2d"(num_features=3, eps=1.0e-05, momentum=0.1, affine=True, track_running_stats=True) training
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x3x4x4xf32>
    %bn = fx.call_module @bn(%x) : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
    fx.output %bn : tensor<1x3x4x4xf32>
  }
}

// -----

// nn.Identity disappears: its users use its input.

// CHECK-LABEL: fx.graph_module @Identity
// CHECK-NOT: fx.call
// CHECK: fx.output %x : tensor<2x4xf32>
fx.graph_module @Identity {
  fx.submodule @id "torch.nn.Identity"()
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x4xf32>
    %id = fx.call_module @id(%x) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    fx.output %id : tensor<2x4xf32>
  }
}

// -----

// nn.MaxPool2d: stride=None is the schema's `[]` (the kernel size); an int
// kernel size becomes a list.

// CHECK-LABEL: fx.graph_module @MaxPool
// CHECK: %pool = fx.call_function "aten::max_pool2d"(%x, [2, 2], [], [0, 0], [1, 1], False) : (tensor<1x3x4x4xf32>) -> tensor<1x3x2x2xf32>
fx.graph_module @MaxPool {
  fx.submodule @pool "torch.nn.MaxPool2d"(kernel_size=2, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False)
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x3x4x4xf32>
    %pool = fx.call_module @pool(%x) : (tensor<1x3x4x4xf32>) -> tensor<1x3x2x2xf32>
    fx.output %pool : tensor<1x3x2x2xf32>
  }
}

// -----

// nn.MultiheadAttention (batch_first, self-attention, eval mode) expands
// into slices of in_proj_weight/in_proj_bias, per-input projections,
// per-head scaled scores, softmax and the output projection; getitem 0 of
// the module call is replaced by that projection.

// CHECK-LABEL: fx.graph_module @MultiheadAttention
// CHECK-DAG: %attn_in_proj_weight = fx.get_attr @attn.in_proj_weight
// CHECK-DAG: %attn_in_proj_bias = fx.get_attr @attn.in_proj_bias
// CHECK:     %attn_slice = fx.call_function "aten::slice.Tensor"(%attn_in_proj_weight, 0, 0, 8, 1)
// CHECK:     %attn_linear = fx.call_function "aten::linear"(%x, %attn_slice, %attn_slice_1)
// CHECK:     %attn_view = fx.call_function "aten::view"(%attn_linear, [%attn_size, -1, 2, 4])
// CHECK:     %attn_mul = fx.call_function "aten::mul.Scalar"(%attn_transpose, 0.5)
// CHECK:     %attn_matmul = fx.call_function "aten::matmul"(%attn_mul, %attn_transpose_3)
// CHECK:     %attn_softmax = fx.call_function "aten::softmax.int"(%attn_matmul, -1, None)
// CHECK:     %attn_matmul_1 = fx.call_function "aten::matmul"(%attn_softmax, %attn_transpose_2)
// CHECK:     %attn_reshape = fx.call_function "aten::reshape"(%attn_transpose_4, [%attn_size_3, -1, 8])
// CHECK:     %attn_linear_3 = fx.call_function "aten::linear"(%attn_reshape, %attn_out_proj_weight, %attn_out_proj_bias)
// CHECK-NOT: fx.call_module
// CHECK-NOT: operator.getitem
// CHECK:     fx.output %attn_linear_3
fx.graph_module @MultiheadAttention {
  fx.state parameter @attn.in_proj_weight : tensor<24x8xf32>
  fx.state parameter @attn.in_proj_bias : tensor<24xf32>
  fx.state parameter @attn.out_proj.weight : tensor<8x8xf32>
  fx.state parameter @attn.out_proj.bias : tensor<8xf32>
  fx.submodule @attn "torch.nn.MultiheadAttention"(embed_dim=8, num_heads=2, batch_first=True)
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x3x8xf32>
    %attn = fx.call_module @attn(%x, %x, %x, need_weights=False) : (tensor<1x3x8xf32>, tensor<1x3x8xf32>, tensor<1x3x8xf32>) -> tuple<tensor<1x3x8xf32>, none>
    %getitem = fx.call_function "operator.getitem"(%attn, 0) : (tuple<tensor<1x3x8xf32>, none>) -> tensor<1x3x8xf32>
    fx.output %getitem : tensor<1x3x8xf32>
  }
}

// -----

//===----------------------------------------------------------------------===//
// Calls that are not normalized
//===----------------------------------------------------------------------===//

// An unknown target is left alone, with a warning naming node and target.

// CHECK-LABEL: fx.graph @unknown_target
// CHECK: %f = fx.call_function "mylib.frobnicate"(%x)
fx.graph @unknown_target {
  %x = fx.placeholder "x" : tensor<2x4xf32>
  // expected-warning @+1 {{fx-normalize: call_function 'f' with target 'mylib.frobnicate' is not supported (unsupported function 'mylib.frobnicate')}}
  %f = fx.call_function "mylib.frobnicate"(%x) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  fx.output %f : tensor<2x4xf32>
}

// -----

// An observer of a prepared model (prepare_fx): the reason says to compile
// the converted model instead.

fx.graph_module @Prepared {
  fx.submodule @activation_post_process_0 "torch.ao.quantization.observer.HistogramObserver"(bins=2048, upsample_rate=128, dtype=torch.quint8)
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x4xf32>
    // expected-warning @+1 {{unsupported module 'torch.ao.quantization.observer.HistogramObserver': a module of a model prepared for quantization (prepare_fx, prepare_qat_fx), which records statistics as it runs; calibrate or train it in PyTorch, then compile the model convert_fx makes of it}}
    %o = fx.call_module @activation_post_process_0(%x) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    fx.output %o : tensor<2x4xf32>
  }
}

// -----

// A known target whose requirement does not hold: nn.Conv2d applies only
// with padding_mode='zeros'.

// CHECK-LABEL: fx.graph_module @ConvReflect
// CHECK: %conv = fx.call_module @conv(%x)
fx.graph_module @ConvReflect {
  fx.state parameter @conv.weight : tensor<8x3x3x3xf32>
  fx.submodule @conv "torch.nn.Conv2d"(in_channels=3, out_channels=8, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1), dilation=(1, 1), groups=1, bias=False, padding_mode="reflect")
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x3x8x8xf32>
    // expected-warning @+1 {{fx-normalize: call_module 'conv' with target 'conv' is not supported (module 'torch.nn.Conv2d': %padding_mode must be 'zeros')}}
    %conv = fx.call_module @conv(%x) : (tensor<1x3x8x8xf32>) -> tensor<1x8x8x8xf32>
    fx.output %conv : tensor<1x8x8x8xf32>
  }
}

// -----

// A function with one alias per value of an argument (the losses'
// reduction): the warning names every value those accept. kl_div's
// 'batchmean' is not one of them.

// CHECK-LABEL: fx.graph_module @KlDivBatchmean
// CHECK: %kl = fx.call_function "torch.nn.functional.kl_div"
fx.graph_module @KlDivBatchmean {
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<4x5xf32>
    %t = fx.placeholder "t" : tensor<4x5xf32>
    // expected-warning @+1 {{fx-normalize: call_function 'kl' with target 'torch.nn.functional.kl_div' is not supported (function 'torch.nn.functional.kl_div': reduction must be 'none', 'mean' or 'sum')}}
    %kl = fx.call_function "torch.nn.functional.kl_div"(%x, %t, reduction="batchmean") : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<f32>
    fx.output %kl : tensor<f32>
  }
}

// -----

// Arguments that fit no schema of the target.

// CHECK-LABEL: fx.graph @bad_arguments
// CHECK: %relu = fx.call_function "torch.relu"(%x, 3)
fx.graph @bad_arguments {
  %x = fx.placeholder "x" : tensor<2x4xf32>
  // expected-warning @+1 {{takes 1 positional args but 2 were given}}
  %relu = fx.call_function "torch.relu"(%x, 3) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  fx.output %relu : tensor<2x4xf32>
}

// -----

// Constant padding: F.pad in mode 'constant' (value None pads with 0),
// nn.ZeroPad2d (value 0) and nn.ConstantPad2d (its value) are all
// aten::constant_pad_nd; F.pad in another mode and nn.ReflectionPad2d are
// aten::pad with their mode.

// CHECK-LABEL: fx.graph_module @Pads
// CHECK: %pad = fx.call_function "aten::constant_pad_nd"(%x, [1, 2], 0)
// CHECK: %pad_value = fx.call_function "aten::constant_pad_nd"(%x, [1, 1, 0, 2], 0.5)
// CHECK: %zero = fx.call_function "aten::constant_pad_nd"(%x, [1, 0, 2, 1], 0.0)
// CHECK: %constant = fx.call_function "aten::constant_pad_nd"(%x, [2, 2, 2, 2], -1.5)
// CHECK: %reflect = fx.call_function "aten::pad"(%x, [1, 1], "reflect", None)
// CHECK: %mirror = fx.call_function "aten::pad"(%x, [1, 2, 0, 1], "reflect", None)
fx.graph_module @Pads {
  fx.submodule @zero "torch.nn.ZeroPad2d"(padding=(1, 0, 2, 1))
  fx.submodule @constant "torch.nn.ConstantPad2d"(padding=(2, 2, 2, 2), value=-1.5)
  fx.submodule @mirror "torch.nn.ReflectionPad2d"(padding=(1, 2, 0, 1))
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<1x2x4x4xf32>
    %pad = fx.call_function "torch.nn.functional.pad"(%x, [1, 2]) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x7xf32>
    %pad_value = fx.call_function "torch.nn.functional.pad"(%x, [1, 1, 0, 2], value = 0.5) : (tensor<1x2x4x4xf32>) -> tensor<1x2x6x6xf32>
    %zero = fx.call_module @zero(%x) : (tensor<1x2x4x4xf32>) -> tensor<1x2x7x5xf32>
    %constant = fx.call_module @constant(%x) : (tensor<1x2x4x4xf32>) -> tensor<1x2x8x8xf32>
    %reflect = fx.call_function "torch.nn.functional.pad"(%x, [1, 1], mode = "reflect") : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x6xf32>
    %mirror = fx.call_module @mirror(%x) : (tensor<1x2x4x4xf32>) -> tensor<1x2x5x7xf32>
    fx.output (%pad, %pad_value, %zero, %constant, %reflect, %mirror) : tensor<1x2x4x7xf32>, tensor<1x2x6x6xf32>, tensor<1x2x7x5xf32>, tensor<1x2x8x8xf32>, tensor<1x2x4x6xf32>, tensor<1x2x5x7xf32>
  }
}
