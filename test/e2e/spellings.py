"""The `spellings` family of the end-to-end suite: one operator called
through every name Python has for it, each compared with eager.

A user's graph reaches the same ATen operator through many targets: the
`torch.*` function, the `Tensor` method, `torch.nn.functional.*`, the
bindings under `torch._C._nn`, `torch._C._special` and `torch._C._linalg`
(what `torch.special.*` and `torch.linalg.*` are), the `torch.ops.aten.*`
packet (`OpOverloadPacket`: the overload the arguments fit) and one of its
overloads (`torch.ops.aten.add.Tensor`). For each operator of `OPERATORS`
every one of those that exists in this PyTorch becomes a case
`spellings.<op>.<form>`; the overload form uses the first overload (in the
order of `_OVERLOAD_ORDER`) that eager runs on the case's inputs with the
same result as the `torch.*` (or method) spelling.

`cases()` yields `(name, fn, inputs)`: `fn` is a function of the input
tensors (traced by cases.lam), `inputs` the input factory.
"""

import warnings

import torch
import torch.nn.functional as F


def _randn(*shapes, dtype=torch.float32):
    return lambda: tuple(torch.randn(s, dtype=dtype) for s in shapes)


def _uniform(low, high, *shapes):
    return lambda: tuple(torch.rand(s) * (high - low) + low for s in shapes)


def _ints(low, high, *shapes, dtype=torch.int64):
    return lambda: tuple(torch.randint(low, high, s).to(dtype)
                         for s in shapes)


def _nonzero(*shapes):
    """0.5 <= |x| < 2 with random signs: safe divisors."""
    def make():
        return tuple((torch.rand(s) * 1.5 + 0.5)
                     * (torch.randint(0, 2, s) * 2 - 1) for s in shapes)
    return make


def _pair(first, second):
    return lambda: first() + second()


def _bools(*shapes):
    return lambda: tuple(torch.rand(s) > 0.5 for s in shapes)


S = (3, 5)
R1 = _randn(S)
R2 = _randn(S, S)
POS = _uniform(0.5, 2.0, S)
UNIT = _uniform(-0.9, 0.9, S)
PROB = _uniform(0.1, 0.9, S)
INTS2 = _ints(-9, 10, S, S)
BOOLS2 = _bools(S, S)

# (operator, input factory, call): `call(f, *tensors)` calls the spelling
# `f`; None calls f(*tensors). Methods are called as tensors[0].op(rest).
OPERATORS = [
    # Elementwise, one operand.
    ("abs", R1, None), ("neg", R1, None), ("exp", R1, None),
    ("exp2", R1, None), ("expm1", R1, None), ("log", POS, None),
    ("log2", POS, None), ("log10", POS, None), ("log1p", POS, None),
    ("sqrt", POS, None), ("rsqrt", POS, None),
    ("reciprocal", _nonzero(S), None), ("sin", R1, None),
    ("cos", R1, None), ("tan", UNIT, None), ("asin", UNIT, None),
    ("acos", UNIT, None), ("atan", R1, None), ("sinh", R1, None),
    ("cosh", R1, None), ("tanh", R1, None), ("asinh", R1, None),
    ("acosh", _uniform(1.1, 3.0, S), None), ("atanh", UNIT, None),
    ("arcsin", UNIT, None), ("arctan", R1, None),
    ("sigmoid", R1, None), ("expit", R1, None), ("logit", PROB, None),
    ("erf", R1, None), ("erfc", R1, None), ("erfinv", UNIT, None),
    ("floor", R1, None), ("ceil", R1, None), ("trunc", R1, None),
    ("fix", R1, None), ("frac", R1, None), ("sign", R1, None),
    ("sgn", R1, None), ("square", R1, None), ("relu", R1, None),
    ("lgamma", POS, None), ("digamma", POS, None), ("psi", POS, None),
    ("gammaln", POS, None), ("i0", R1, None), ("i0e", R1, None),
    ("i1", R1, None), ("i1e", R1, None), ("ndtr", R1, None),
    ("ndtri", PROB, None), ("log_ndtr", R1, None), ("entr", POS, None),
    ("sinc", R1, None), ("deg2rad", R1, None), ("rad2deg", R1, None),
    ("nan_to_num", R1, None), ("signbit", R1, None), ("isnan", R1, None),
    ("isinf", R1, None), ("isfinite", R1, None), ("isreal", R1, None),
    ("logical_not", R1, None), ("positive", R1, None),
    ("round", _randn(S), lambda f, x: f(x * 10)),
    ("bitwise_not", _ints(-9, 10, S), None),
    ("silu", R1, None), ("gelu", R1, None), ("mish", R1, None),
    ("hardswish", R1, None), ("hardsigmoid", R1, None),
    ("relu6", R1, None), ("selu", R1, None), ("celu", R1, None),
    ("elu", R1, None), ("softsign", R1, None), ("tanhshrink", R1, None),
    ("logsigmoid", R1, None),
    ("leaky_relu", R1, lambda f, x: f(x, 0.2)),
    ("hardtanh", R1, lambda f, x: f(x, -0.5, 0.5)),
    ("softplus", R1, lambda f, x: f(x, 2.0, 10.0)),
    ("threshold", R1, lambda f, x: f(x, 0.1, -1.0)),
    ("hardshrink", R1, lambda f, x: f(x, 0.3)),
    ("softshrink", R1, lambda f, x: f(x, 0.3)),
    ("clamp", R1, lambda f, x: f(x, -0.5, 0.5)),
    ("clip", R1, lambda f, x: f(x, -0.5, 0.5)),
    ("clamp_min", R1, lambda f, x: f(x, -0.5)),
    ("clamp_max", R1, lambda f, x: f(x, 0.5)),
    ("polygamma", POS, lambda f, x: f(1, x)),
    ("multigammaln", _uniform(2.0, 4.0, S), lambda f, x: f(x, 2)),
    # Elementwise, two operands.
    ("add", R2, None), ("sub", R2, None), ("subtract", R2, None),
    ("mul", R2, None), ("multiply", R2, None),
    ("div", _pair(R1, _nonzero(S)), None),
    ("divide", _pair(R1, _nonzero(S)), None),
    ("true_divide", _pair(R1, _nonzero(S)), None),
    ("floor_divide", _pair(_ints(-20, 20, S), _ints(1, 6, S)), None),
    ("remainder", _pair(R1, _nonzero(S)), None),
    ("fmod", _pair(R1, _nonzero(S)), None),
    ("pow", _pair(POS, R1), None), ("float_power", _pair(POS, R1), None),
    ("atan2", R2, None), ("arctan2", R2, None), ("hypot", R2, None),
    ("maximum", R2, None), ("minimum", R2, None), ("fmax", R2, None),
    ("fmin", R2, None), ("copysign", R2, None),
    ("xlogy", _pair(R1, POS), None), ("xlog1py", _pair(R1, POS), None),
    ("logaddexp", R2, None), ("logaddexp2", R2, None),
    ("heaviside", R2, None), ("rsub", R2, None),
    ("eq", INTS2, None), ("ne", INTS2, None), ("lt", R2, None),
    ("le", R2, None), ("gt", R2, None), ("ge", R2, None),
    ("greater", R2, None), ("less_equal", R2, None),
    ("not_equal", INTS2, None),
    ("logical_and", BOOLS2, None), ("logical_or", BOOLS2, None),
    ("logical_xor", BOOLS2, None),
    ("bitwise_and", INTS2, None), ("bitwise_or", INTS2, None),
    ("bitwise_xor", INTS2, None),
    ("gcd", INTS2, None), ("lcm", INTS2, None),
    ("lerp", _randn(S, S, S), None),
    ("addcmul", _randn(S, S, S), None),
    ("addcdiv", _pair(R2, _nonzero(S)), None),
    ("where", _pair(_bools(S), R2), None),
    # Reductions and scans.
    ("sum", R1, lambda f, x: f(x, 1)), ("mean", R1, lambda f, x: f(x, 1)),
    ("prod", R1, lambda f, x: f(x, 1)),
    ("amax", R1, lambda f, x: f(x, 1)), ("amin", R1, lambda f, x: f(x, 1)),
    ("argmax", R1, lambda f, x: f(x, 1)),
    ("argmin", R1, lambda f, x: f(x, 1)),
    ("logsumexp", R1, lambda f, x: f(x, 1)),
    ("std", R1, lambda f, x: f(x, 1)), ("var", R1, lambda f, x: f(x, 1)),
    ("cumsum", R1, lambda f, x: f(x, 1)),
    ("cumprod", R1, lambda f, x: f(x, 1)),
    ("logcumsumexp", R1, lambda f, x: f(x, 1)),
    ("all", _bools(S), lambda f, x: f(x, 1)),
    ("any", _bools(S), lambda f, x: f(x, 1)),
    ("count_nonzero", _ints(-1, 2, S), lambda f, x: f(x, 1)),
    ("softmax", R1, lambda f, x: f(x, 1)),
    ("log_softmax", R1, lambda f, x: f(x, 1)),
    ("normalize", R1, None),
    ("vector_norm", R1, lambda f, x: f(x, 2.0, [1])),
    # Shapes.
    ("transpose", R1, lambda f, x: f(x, 0, 1)), ("t", R1, None),
    ("permute", _randn((2, 3, 4)), lambda f, x: f(x, [2, 0, 1])),
    ("reshape", R1, lambda f, x: f(x, [5, 3])),
    ("flatten", _randn((2, 3, 4)), None),
    ("unsqueeze", R1, lambda f, x: f(x, 1)),
    ("squeeze", _randn((3, 1, 5)), lambda f, x: f(x, 1)),
    ("flip", R1, lambda f, x: f(x, [1])),
    ("roll", R1, lambda f, x: f(x, 2, 1)),
    ("narrow", R1, lambda f, x: f(x, 1, 1, 3)),
    ("select", R1, lambda f, x: f(x, 1, 2)),
    ("movedim", _randn((2, 3, 4)), lambda f, x: f(x, 0, 2)),
    ("tril", R1, None), ("triu", R1, None),
    ("diagonal", _randn((4, 4)), None),
    ("diag", _randn((4, 4)), None),
    ("trace", _randn((4, 4)), None),
    ("tile", R1, lambda f, x: f(x, [2, 1])),
    ("repeat_interleave", R1, lambda f, x: f(x, 2, 1)),
    ("rot90", R1, None),
    ("cat", R2, lambda f, x, y: f([x, y], 1)),
    ("stack", R2, lambda f, x, y: f([x, y], 1)),
    ("hstack", R2, lambda f, x, y: f([x, y])),
    ("vstack", R2, lambda f, x, y: f([x, y])),
    ("pixel_shuffle", _randn((1, 8, 3, 3)), lambda f, x: f(x, 2)),
    ("pixel_unshuffle", _randn((1, 2, 4, 6)), lambda f, x: f(x, 2)),
    ("masked_fill", _pair(R1, _bools(S)), lambda f, x, m: f(x, m, 0.5)),
    # Matrices.
    ("mm", _randn((3, 4), (4, 5)), None),
    ("matmul", _randn((2, 3, 4), (4, 5)), None),
    ("bmm", _randn((2, 3, 4), (2, 4, 5)), None),
    ("mv", _randn((3, 4), (4,)), None),
    ("dot", _randn((4,), (4,)), None),
    ("outer", _randn((3,), (4,)), None),
    ("addmm", _randn((5,), (3, 4), (4, 5)), None),
    ("linear", _randn((3, 4), (5, 4), (5,)), None),
    ("det", _randn((3, 3)), None),
    ("inverse", _randn((3, 3)), lambda f, x: f(x + 3 * torch.eye(3))),
    ("cross", _randn((4, 3), (4, 3)), None),
    ("addmv", _randn((3,), (3, 4), (4,)), None),
    ("addr", _randn((3, 4), (3,), (4,)), None),
    ("baddbmm", _randn((2, 3, 5), (2, 3, 4), (2, 4, 5)), None),
    ("addbmm", _randn((3, 5), (2, 3, 4), (2, 4, 5)), None),
    ("kron", _randn((2, 3), (3, 2)), None),
    ("tensordot", _randn((3, 4, 5), (4, 5, 2)), lambda f, x, y: f(x, y, 2)),
    ("einsum", _randn((3, 4), (4, 5)),
     lambda f, x, y: f("ij,jk->ik", x, y)),
    ("chain_matmul", _randn((3, 4), (4, 5)), None),
    ("multi_dot", _randn((3, 4), (4, 5)), lambda f, x, y: f([x, y])),
    # Aliases under other names (OpInfo's `aliases`).
    ("absolute", R1, None), ("arccos", UNIT, None),
    ("arccosh", _uniform(1.1, 3.0, S), None), ("arcsinh", R1, None),
    ("arctanh", UNIT, None), ("greater_equal", R2, None),
    ("less", R2, None), ("negative", R1, None),
    ("ger", _randn((3,), (4,)), None),
    ("concat", R2, lambda f, x, y: f([x, y], 1)),
    ("concatenate", R2, lambda f, x, y: f([x, y], 1)),
    ("row_stack", R2, lambda f, x, y: f([x, y])),
    ("moveaxis", _randn((2, 3, 4)), lambda f, x: f(x, 0, 2)),
    ("swapdims", R1, lambda f, x: f(x, 0, 1)),
    ("swapaxes", R1, lambda f, x: f(x, 0, 1)),
    # Special functions only torch.special has.
    ("modified_bessel_i0", R1, None), ("modified_bessel_i1", R1, None),
    ("modified_bessel_k0", POS, None), ("modified_bessel_k1", POS, None),
    ("scaled_modified_bessel_k0", POS, None),
    ("scaled_modified_bessel_k1", POS, None),
    ("chebyshev_polynomial_t", UNIT, lambda f, x: f(x, 3)),
    ("chebyshev_polynomial_u", UNIT, lambda f, x: f(x, 3)),
    ("chebyshev_polynomial_v", UNIT, lambda f, x: f(x, 3)),
    ("chebyshev_polynomial_w", UNIT, lambda f, x: f(x, 3)),
    ("shifted_chebyshev_polynomial_t", PROB, lambda f, x: f(x, 3)),
    ("shifted_chebyshev_polynomial_u", PROB, lambda f, x: f(x, 3)),
    ("shifted_chebyshev_polynomial_v", PROB, lambda f, x: f(x, 3)),
    ("shifted_chebyshev_polynomial_w", PROB, lambda f, x: f(x, 3)),
    ("hermite_polynomial_h", UNIT, lambda f, x: f(x, 3)),
    ("hermite_polynomial_he", UNIT, lambda f, x: f(x, 3)),
    ("chebyshev_polynomial_t", _pair(UNIT, _ints(0, 5, S)), None,
     "n_tensor"),
    # Factories, sizes and views.
    ("ones", R1, lambda f, x: x + f([3, 5])),
    ("zeros", R1, lambda f, x: x + f([3, 5])),
    ("full", R1, lambda f, x: x * f([3, 5], 2.5)),
    ("arange", R1, lambda f, x: x + f(5)),
    ("new_full", R1, lambda f, x: f(x, [2, 3], 1.5)),
    ("new_zeros", R1, lambda f, x: f(x, [2, 3])),
    ("new_ones", R1, lambda f, x: f(x, [2, 3])),
    ("zeros_like", R1, None), ("ones_like", R1, None),
    ("full_like", R1, lambda f, x: f(x, 2.5)),
    ("atleast_1d", _randn(()), None), ("atleast_2d", _randn((4,)), None),
    ("atleast_3d", R1, None),
    ("broadcast_tensors", _randn((3, 1), (1, 5)), None),
    ("broadcast_to", _randn((3, 1)), lambda f, x: f(x, [3, 5])),
    ("expand", _randn((3, 1)), lambda f, x: f(x, [3, 5])),
    ("expand_as", _randn((3, 1), (3, 5)), None),
    ("detach", R1, None), ("alias", R1, None), ("clone", R1, None),
    ("contiguous", R1, None),
    ("dim", R1, lambda f, x: x * f(x)),
    ("numel", R1, lambda f, x: x * f(x)),
    ("split_with_sizes", R1, lambda f, x: f(x, [2, 3], 1)),
    ("split", R1, lambda f, x: f(x, 2, 1)),
    ("chunk", R1, lambda f, x: f(x, 2, 1)),
    ("unbind", R1, lambda f, x: f(x, 1)),
    ("unflatten", _randn((3, 6)), lambda f, x: f(x, 1, (2, 3))),
    ("type_as", _pair(R1, _ints(0, 5, S)), None),
    ("view_as", _randn((3, 5), (5, 3)), None),
    ("index_select", _pair(R1, lambda: (torch.tensor([0, 2, 2]),)),
     lambda f, x, i: f(x, 1, i)),
    ("gather", _pair(R1, _ints(0, 5, S)), lambda f, x, i: f(x, 1, i)),
    ("take_along_dim", _pair(R1, _ints(0, 5, S)),
     lambda f, x, i: f(x, i, 1)),
    ("scatter_add", _pair(_pair(R1, _ints(0, 5, S)), R1),
     lambda f, x, i, y: f(x, 1, i, y)),
    ("index_add", _pair(_pair(R1, lambda: (torch.tensor([0, 2, 2]),)),
                        _randn((3, 3))),
     lambda f, x, i, y: f(x, 1, i, y)),
    ("index_fill", _pair(R1, lambda: (torch.tensor([0, 3]),)),
     lambda f, x, i: f(x, 1, i, -1.0)),
    ("diff", R1, None), ("cumulative_trapezoid", R1, None),
    ("trapezoid", R1, None),
    ("sort", R1, lambda f, x: f(x, 1)), ("argsort", R1, None),
    ("topk", R1, lambda f, x: f(x, 2)),
    ("kthvalue", R1, lambda f, x: f(x, 2, 1)),
    ("max", R1, lambda f, x: f(x, 1)), ("min", R1, lambda f, x: f(x, 1)),
    ("median", R1, lambda f, x: f(x, 1)),
    ("std_mean", R1, lambda f, x: f(x, 1)),
    ("var_mean", R1, lambda f, x: f(x, 1)),
    ("norm", R1, lambda f, x: f(x, 2, 1)),
    ("norm", R1, lambda f, x: f(x, dim=1), "no_ord"),
    ("renorm", R1, lambda f, x: f(x, 2, 0, 1.0)),
    ("dist", R2, None),
    ("cdist", _randn((3, 4), (5, 4)), None),
    ("cosine_similarity", R2, None), ("pairwise_distance", R2, None),
    ("bucketize", _pair(R1, lambda: (torch.tensor([-1.0, 0.0, 1.0]),)),
     None),
    ("searchsorted", _pair(lambda: (torch.tensor([-1.0, 0.0, 1.0]),), R1),
     None),
    ("histc", R1, lambda f, x: f(x, 4, -2.0, 2.0)),
    ("unfold", _randn((3, 8)), lambda f, x: f(x, 1, 3, 2)),
    ("one_hot", _ints(0, 4, (5,)), lambda f, x: f(x, 4)),
    # Neural-network functions.
    ("conv1d", _randn((1, 2, 9), (3, 2, 3)), None),
    ("conv2d", _randn((1, 2, 6, 6), (3, 2, 3, 3)), None),
    ("conv3d", _randn((1, 2, 4, 4, 4), (3, 2, 3, 3, 3)), None),
    ("conv_transpose1d", _randn((1, 2, 5), (2, 3, 3)), None),
    ("conv_transpose2d", _randn((1, 2, 4, 4), (2, 3, 3, 3)), None),
    ("max_pool1d", _randn((1, 2, 9)), lambda f, x: f(x, 2)),
    ("max_pool2d", _randn((1, 2, 6, 6)), lambda f, x: f(x, 2)),
    ("max_pool3d", _randn((1, 2, 4, 4, 4)), lambda f, x: f(x, 2)),
    ("avg_pool1d", _randn((1, 2, 9)), lambda f, x: f(x, 2)),
    ("avg_pool2d", _randn((1, 2, 6, 6)), lambda f, x: f(x, 2)),
    ("avg_pool3d", _randn((1, 2, 4, 4, 4)), lambda f, x: f(x, 2)),
    ("adaptive_avg_pool1d", _randn((1, 2, 9)), lambda f, x: f(x, 3)),
    ("adaptive_avg_pool2d", _randn((1, 2, 6, 6)), lambda f, x: f(x, 3)),
    ("adaptive_max_pool2d", _randn((1, 2, 6, 6)), lambda f, x: f(x, 3)),
    ("lp_pool2d", _randn((1, 2, 6, 6)), lambda f, x: f(x, 2.0, 2)),
    ("layer_norm", R1, lambda f, x: f(x, [5])),
    ("group_norm", _randn((2, 4, 3)), lambda f, x: f(x, 2)),
    ("instance_norm", _randn((2, 3, 5)), None),
    ("batch_norm", _randn((2, 3, 5), (3,), (3,)),
     lambda f, x, m, v: f(x, m, v.abs() + 0.5)),
    ("local_response_norm", _randn((1, 4, 3, 3)), lambda f, x: f(x, 2)),
    ("embedding", _pair(_ints(0, 5, (4,)), _randn((5, 3))), None),
    ("pad", R1, lambda f, x: f(x, [1, 2])),
    ("interpolate", _randn((1, 2, 5)),
     lambda f, x: f(x, scale_factor=2.0, mode="nearest-exact"),
     "nearest_exact_1d"),
    ("interpolate", _randn((1, 1, 2, 3, 3)),
     lambda f, x: f(x, scale_factor=2.0, mode="nearest-exact"),
     "nearest_exact_3d"),
    ("interpolate", _randn((1, 2, 4, 4)),
     lambda f, x: f(x, size=[6, 7], mode="bilinear"), "bilinear"),
    ("glu", _randn((3, 6)), None), ("softmin", R1, lambda f, x: f(x, 1)),
    ("prelu", _randn((2, 3, 4), (3,)), None),
    ("mse_loss", R2, None), ("l1_loss", R2, None),
    ("smooth_l1_loss", R2, None), ("huber_loss", R2, None),
    ("soft_margin_loss", R2, None),
    ("binary_cross_entropy", _pair(PROB, PROB), None),
    ("binary_cross_entropy_with_logits", _pair(R1, PROB), None),
    ("nll_loss", _pair(_randn((4, 5)), _ints(0, 5, (4,))), None),
    ("cross_entropy", _pair(_randn((4, 5)), _ints(0, 5, (4,))), None),
    ("kl_div", _pair(R1, PROB), None),
    ("hinge_embedding_loss", _pair(R1, lambda: (torch.ones(3, 5),)), None),
    # Backward operators (grad, the forward's input or result, ...).
    ("threshold_backward", R2, lambda f, g, x: f(g, x, 0.1)),
    ("gelu_backward", R2, None),
    ("gelu_backward", R2, lambda f, g, x: f(g, x, approximate="tanh"),
     "tanh"),
    ("elu_backward", R2, lambda f, g, x: f(g, 1.2, 1.05, 0.9, False, x)),
    ("elu_backward", R2, lambda f, g, y: f(g, 1.2, 1.05, 0.9, True, y),
     "is_result"),
    ("leaky_relu_backward", R2, lambda f, g, x: f(g, x, 0.2, False)),
    ("softplus_backward", R2, lambda f, g, x: f(g, x, 2.0, 3.0)),
    ("hardtanh_backward", R2, lambda f, g, x: f(g, x, -0.5, 0.5)),
    ("hardshrink_backward", R2, lambda f, g, x: f(g, x, 0.3)),
    ("softshrink_backward", R2, lambda f, g, x: f(g, x, 0.3)),
    ("logit_backward", _pair(R1, _uniform(-0.2, 1.2, S)), None),
    ("logit_backward", _pair(R1, PROB), lambda f, g, x: f(g, x, 0.2), "eps"),
    ("sigmoid_backward", _pair(R1, PROB), None),
    ("tanh_backward", _pair(R1, UNIT), None),
    ("silu_backward", R2, None), ("mish_backward", R2, None),
    ("hardswish_backward", _pair(R1, _uniform(-5.0, 5.0, S)), None),
    ("hardsigmoid_backward", _pair(R1, _uniform(-5.0, 5.0, S)), None),
    ("mse_loss_backward", _randn((), S, S),
     lambda f, g, x, y: f(g, x, y, 1)),
    ("mse_loss_backward", _randn(S, S, S),
     lambda f, g, x, y: f(g, x, y, 0), "none"),
    ("_softmax_backward_data", R2,
     lambda f, g, x: f(g, x.softmax(1), 1, torch.float32)),
    ("index_put", _pair(R1, lambda: (torch.tensor([0, -1, 0]),
                                     torch.randn(3, 5))),
     lambda f, x, i, v: f(x, (i,), v)),
    ("index_put", _pair(R1, lambda: (torch.tensor([4, 1, 4]),
                                     torch.randn(3))),
     lambda f, x, i, v: f(x, (None, i), v, True), "accumulate_dim1"),
    ("index_put", _pair(R1, lambda: (torch.tensor(2.5),)),
     lambda f, x, v: f(x, (x > 0,), v), "mask"),
    ("copy", _randn(S, (5,)), None),
    ("native_dropout", R1, lambda f, x: f(x, 0.5, False)),
    ("native_group_norm", _randn((2, 4, 3, 2), (4,), (4,)),
     lambda f, x, w, b: f(x, w, b, 2, 4, 6, 2, 1e-5)),
    ("rrelu", R1, lambda f, x: f(x, 0.1, 0.3, False)),
    ("type", R1, lambda f, x: f(x, torch.float64)),
    ("embedding_dense_backward", _pair(_randn((2, 3, 4)), lambda: (
        torch.tensor([[0, 5, 2], [5, 5, 1]]),)),
     lambda f, g, i: f(g, i, 6, -1, False)),
    ("embedding_dense_backward", _pair(_randn((2, 3, 4)), lambda: (
        torch.tensor([[0, 5, 2], [5, 5, 1]]),)),
     lambda f, g, i: f(g, i, 7, 5, False), "padding_idx"),
    ("_softmax", R1, lambda f, x: f(x, 1, False)),
    ("_log_softmax", R1, lambda f, x: f(x, 0, False)),
    ("_to_copy", R1, lambda f, x: f(x, dtype=torch.float64)),
    ("_log_softmax_backward_data", R2,
     lambda f, g, x: f(g, x.log_softmax(1), 0, torch.float32)),
    # ATen's general forms (GeneralForms.cpp).
    ("convolution", _randn((1, 2, 7, 7), (3, 2, 3, 3), (3,)),
     lambda f, x, w, b: f(x, w, b, [2, 1], [1, 0], [1, 1], False, [0, 0], 1)),
    ("convolution", _randn((1, 4, 9), (4, 1, 3)),
     lambda f, x, w: f(x, w, None, [1], [2], [2], False, [0], 4), "grouped_1d"),
    ("convolution", _randn((1, 2, 4, 4), (2, 3, 3, 3)),
     lambda f, x, w: f(x, w, None, [2, 2], [1, 1], [1, 1], True, [1, 1], 1),
     "transposed"),
    ("_convolution", _randn((1, 2, 3, 4, 4), (3, 2, 2, 2, 2)),
     lambda f, x, w: f(x, w, None, [1, 1, 1], [0, 0, 0], [1, 1, 1], False,
                       [0, 0, 0], 1, False, False, True, True)),
    ("native_batch_norm", _randn((2, 3, 5), (3,), (3,)),
     lambda f, x, w, b: f(x, w, b, torch.zeros(3), torch.ones(3), False, 0.1,
                          1e-5)),
    ("native_batch_norm", _randn((4, 3, 2, 2), (3,), (3,)),
     lambda f, x, w, b: f(x, w, b, None, None, True, 0.1, 1e-5), "training"),
    ("nll_loss_forward", _pair(_randn((4, 5)), lambda: (
        torch.tensor([0, 4, -100, 2]),)),
     lambda f, x, t: f(x, t, None, 1, -100)),
    ("nll_loss_forward", _pair(_randn((4, 5), (5,)), lambda: (
        torch.tensor([0, 4, 1, 2]),)),
     lambda f, x, w, t: f(x, t, w, 2, 1), "weighted_sum"),
    ("nll_loss_backward", _pair(_randn((4, 5), (5,)), lambda: (
        torch.tensor([0, 4, -100, 2]),)),
     lambda f, x, w, t: f(torch.tensor(0.7), x, t, w, 1, -100,
                          torch.tensor(1.9))),
    ("nll_loss_backward", _pair(_randn((4, 5), (4,)), lambda: (
        torch.tensor([0, 4, 1, 2]),)),
     lambda f, x, g, t: f(g, x, t, None, 0, 1, torch.tensor(0.0)), "none"),
    ("native_layer_norm_backward", _randn((2, 3, 4), (2, 3, 4), (4,)),
     lambda f, g, x, w: f(g, x, [4], x.mean(-1, True),
                          (x.var(-1, False, True) + 1e-5).rsqrt(), w, w,
                          [True, True, True])),
]

# Which overload of a packet the `overload` form calls: the first of these
# (then the others, in PyTorch's order) that eager runs on the inputs with
# the expected result.
_OVERLOAD_ORDER = ("default", "Tensor", "self", "dim", "int", "Scalar",
                   "Tensor_Tensor", "Tensor_Scalar", "input")


def _spellings(name):
    """(form, callable) of each distinct spelling of `name`."""
    out, seen = [], set()

    def put(form, fn):
        if fn is not None and id(fn) not in seen:
            seen.add(id(fn))
            out.append((form, fn))

    put("torch", getattr(torch, name, None))
    put("functional", getattr(F, name, None))
    put("nn", getattr(torch._C._nn, name, None))
    put("special", getattr(torch._C._special, "special_" + name, None))
    put("linalg", getattr(torch._C._linalg, "linalg_" + name, None))
    if hasattr(torch.Tensor, name):
        put("method", _Method(name))
    packet = None
    for aten_name in (name, "special_" + name, "linalg_" + name):
        try:
            packet = getattr(torch.ops.aten, aten_name)
            break
        except (AttributeError, RuntimeError):
            pass
    put("packet", packet)
    return out, packet


class _Method:
    """`Tensor.<name>` called on the first operand: `x.<name>(*rest)`."""

    def __init__(self, name):
        self.name = name

    def __call__(self, x, *args, **kwargs):
        return getattr(x, self.name)(*args, **kwargs)


def _call(call, fn, tensors):
    return fn(*tensors) if call is None else call(fn, *tensors)


def _same(a, b):
    if isinstance(a, (tuple, list)):
        return (isinstance(b, (tuple, list)) and len(a) == len(b)
                and all(_same(x, y) for x, y in zip(a, b)))
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        return (a.dtype == b.dtype and a.shape == b.shape
                and torch.allclose(a.double(), b.double(), equal_nan=True))
    return a == b


def _overload(packet, call, inputs, expected):
    """The first overload of `packet` that eager runs on `inputs` (a
    factory) with the `expected` result."""
    names = [n for n in packet.overloads() if "out" not in n]
    names.sort(key=lambda n: (_OVERLOAD_ORDER.index(n)
                              if n in _OVERLOAD_ORDER else len(_OVERLOAD_ORDER)))
    for overload in names:
        fn = getattr(packet, overload)
        if _same(_eager(call, fn, inputs)[1], expected):
            return overload, fn
    return None, None


def _traced(call, fn, arity):
    """A function of `arity` tensors calling `fn` as `call` says."""
    if arity == 1:
        return lambda x: _call(call, fn, (x,))
    if arity == 2:
        return lambda x, y: _call(call, fn, (x, y))
    if arity == 3:
        return lambda x, y, z: _call(call, fn, (x, y, z))
    raise ValueError(f"spellings: {arity} inputs (at most 3)")


def _eager(call, fn, inputs):
    """`fn` called as `call` says on the tensors of `inputs` (seed 0), or
    None where eager rejects that call."""
    with torch.random.fork_rng(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # F.sigmoid's deprecation
        torch.manual_seed(0)
        tensors = inputs()
        try:
            return len(tensors), _call(call, fn, tensors)
        except Exception:
            return len(tensors), None


def cases():
    """(name, fn, inputs) of every spelling of every operator. A spelling
    whose eager result differs from the reference spelling's is a
    different operator under the same name (`Tensor.where`'s operand
    order, `F.unfold`): left out."""
    for name, inputs, call, *label in OPERATORS:
        forms, packet = _spellings(name)
        case = name + (f"_{label[0]}" if label else "")
        if not forms:
            raise ValueError(f"spellings: no spelling of {name!r}")
        # The reference: the first spelling eager accepts these inputs in
        # (`F.unfold` is im2col; `Tensor.unfold` takes these).
        for _, fn in forms:
            arity, expected = _eager(call, fn, inputs)
            if expected is not None:
                break
        if expected is None:
            raise ValueError(f"spellings: eager rejects {name!r}'s inputs")
        for form, fn in forms:
            if _same(_eager(call, fn, inputs)[1], expected):
                yield f"{case}.{form}", _traced(call, fn, arity), inputs
        if packet is not None:
            overload, fn = _overload(packet, call, inputs, expected)
            if fn is not None:
                yield (f"{case}.overload_{overload}",
                       _traced(call, fn, arity), inputs)
