"""The `complex` family of the end-to-end suite: complex64 and complex128
tensors through arithmetic, functions, their parts, comparisons,
reductions and products, each compared with eager.

Operands mix as PyTorch promotes them: complex with float tensors, Python
complex and float numbers, complex64 with complex128. Inputs keep away from
the branch cuts and poles where eager and the compiled code may round to
different sides (log, sqrt and angle on the negative real axis, tan near
pi/2).

`cases()` yields `(name, fn, inputs)`: `fn` is a function of the input
tensors (traced by cases.lam), `inputs` the input factory.

torch.dot and torch.vdot of complex tensors are not here: PyTorch 1.13 on
Debian's OpenBLAS 0.3.21 returns 0 for them on this project's machines
(cdotc/cdotu), so eager is no reference; test_compile.py checks ours
against the sum of products.
"""

import torch

C64, C128 = torch.complex64, torch.complex128


def _complex(*shapes, dtype=C64):
    """Complex tensors with parts in [0.2, 1.2) + i[-1, 1): off the negative
    real axis and away from 0."""
    def make():
        out = []
        for s in shapes:
            part = torch.float64 if dtype == C128 else torch.float32
            re = torch.rand(s, dtype=part) + 0.2
            im = torch.rand(s, dtype=part) * 2 - 1
            out.append(torch.complex(re, im))
        return tuple(out)
    return make


def _mixed(complex_shape, real_shape):
    """A complex tensor and a float32 one."""
    def make():
        (z,) = _complex(complex_shape)()
        return z, torch.randn(real_shape)
    return make


def _reals(*shapes):
    return lambda: tuple(torch.randn(s) for s in shapes)


CASES = [
    # Arithmetic, broadcast, with alpha, with numbers.
    ("add", lambda x, y: x + y, _complex((3, 4), (3, 4))),
    ("sub_broadcast", lambda x, y: x - y, _complex((3, 4), (4,))),
    ("mul", lambda x, y: x * y, _complex((2, 3, 4), (3, 1))),
    ("div", lambda x, y: x / y, _complex((3, 4), (3, 4))),
    ("add_alpha", lambda x, y: torch.add(x, y, alpha=2), _complex((5,), (5,))),
    ("sub_alpha_complex", lambda x, y: torch.sub(x, y, alpha=1 - 2j),
     _complex((5,), (5,))),
    ("rsub_number", lambda x: 1j - x, _complex((4, 3))),
    ("mul_complex_number", lambda x: x * (2 - 0.5j), _complex((4, 3))),
    ("div_by_complex_number", lambda x: x / (1 + 2j), _complex((4, 3))),
    ("add_float_number", lambda x: x + 1.5, _complex((4, 3))),
    ("mul_float_tensor", lambda x, y: x * y + y, _mixed((3, 4), (3, 4))),
    ("float_tensor_times_imaginary", lambda x: x * 1j + 2, _reals((3, 4))),
    ("complex64_plus_complex128",
     lambda x, y: x + y.to(C128), _complex((3, 4), (3, 4))),
    ("neg", lambda x: -x, _complex((3, 4))),
    ("pow_number", lambda x: x ** 2, _complex((3, 4))),
    ("pow_tensor", lambda x, y: torch.pow(x, y), _complex((3, 4), (3, 4))),
    ("number_pow", lambda x: 2 ** x, _complex((3, 4))),
    ("square", lambda x: torch.square(x), _complex((3, 4))),
    ("reciprocal", lambda x: torch.reciprocal(x), _complex((3, 4))),
    # Functions.
    ("exp", lambda x: torch.exp(x), _complex((3, 4))),
    ("log", lambda x: torch.log(x), _complex((3, 4))),
    ("log2_log10", lambda x: torch.log2(x) + torch.log10(x), _complex((3, 4))),
    ("sqrt", lambda x: torch.sqrt(x), _complex((3, 4))),
    ("rsqrt", lambda x: torch.rsqrt(x), _complex((3, 4))),
    ("sin_cos", lambda x: torch.sin(x) * torch.cos(x), _complex((3, 4))),
    ("tan", lambda x: torch.tan(x), _complex((3, 4))),
    ("tanh", lambda x: torch.tanh(x), _complex((3, 4))),
    ("sigmoid", lambda x: torch.sigmoid(x), _complex((3, 4))),
    ("conj", lambda x: x.conj() * 1, _complex((3, 4))),
    ("conj_physical", lambda x: torch.conj_physical(x), _complex((3, 4))),
    ("resolve_conj", lambda x: torch.resolve_conj(x.conj()), _complex((3, 4))),
    ("sgn", lambda x: torch.sgn(x), _complex((3, 4))),
    # Parts.
    ("abs", lambda x: torch.abs(x), _complex((3, 4))),
    ("angle", lambda x: torch.angle(x), _complex((3, 4))),
    ("real_imag", lambda x: (torch.real(x), torch.imag(x)), _complex((3, 4))),
    ("real_imag_attributes", lambda x: x.real * 2 + x.imag, _complex((3, 4))),
    ("view_as_real", lambda x: torch.view_as_real(x), _complex((3, 4))),
    ("view_as_complex", lambda x: torch.view_as_complex(x * 2),
     _reals((3, 4, 2))),
    ("from_parts", lambda a, b: torch.complex(a, b), _reals((3, 4), (4,))),
    ("polar", lambda a, b: torch.polar(a.abs(), b), _reals((3, 4), (3, 4))),
    ("round_trip_parts",
     lambda x: torch.view_as_complex(torch.view_as_real(x * 1j) + 1),
     _complex((2, 3))),
    # Comparisons and selection.
    ("eq_ne", lambda x, y: (x == y, x != y, x == x), _complex((3, 4), (3, 4))),
    ("eq_number", lambda x: x == 1j, _complex((3, 4))),
    ("where", lambda x, y: torch.where(x.real > 0.6, x, y),
     _complex((3, 4), (3, 4))),
    ("where_number", lambda x: torch.where(x.imag > 0, x, 1j),
     _complex((3, 4))),
    ("to_complex", lambda x: x.to(C64) * 1j, _reals((3, 4))),
    ("zeros_like_plus", lambda x: torch.zeros_like(x) + x, _complex((3, 4))),
    ("full_like_complex", lambda x: torch.full_like(x, 2 - 1j) * x,
     _complex((3, 4))),
    # Element moves, fills and factories of complex dtype.
    ("flip_roll", lambda x: (x.flip(0), x.roll(1, 1)), _complex((3, 4))),
    ("tril_triu", lambda x: (x.tril(), x.triu(1)), _complex((4, 4))),
    ("pad_constant", lambda x: torch.nn.functional.pad(x, (1, 2)),
     _complex((3, 4))),
    ("gather_index_select",
     lambda x: (x.gather(1, torch.tensor([[0, 3], [1, 1], [2, 0]])),
                x.index_select(0, torch.tensor([2, 0]))), _complex((3, 4))),
    ("masked_fill", lambda x: x.masked_fill(x.real > 0.7, 1 - 1j),
     _complex((3, 4))),
    ("diagonal_diag_embed", lambda x: (x.diagonal(), torch.diag_embed(x)),
     _complex((3, 3))),
    ("factories", lambda x: (x + torch.zeros(3, 4, dtype=C64)
                             + torch.eye(3, 4, dtype=C64)
                             + torch.full((4,), 1 + 2j)), _complex((3, 4))),
    ("repeat_tile", lambda x: (x.repeat(2, 1), x.tile((1, 2))),
     _complex((2, 3))),
    # Reductions and products.
    ("sum", lambda x: (x.sum(), x.sum(1), x.sum((0, 1), keepdim=True)),
     _complex((3, 4))),
    ("mean", lambda x: (x.mean(), x.mean(0, keepdim=True)), _complex((3, 4))),
    ("mm", lambda a, b: torch.mm(a, b), _complex((4, 5), (5, 3))),
    ("matmul_vector", lambda a, b: (a @ b[:, 0], a[0] @ b),
     _complex((4, 5), (5, 3))),
    ("bmm", lambda a, b: torch.bmm(a, b), _complex((2, 3, 4), (2, 4, 5))),
    ("matmul_broadcast", lambda a, b: a @ b, _complex((2, 3, 4), (4, 5))),
    # complex128.
    ("c128_arith", lambda x, y: (x * y - x / y).exp().sum(0),
     _complex((3, 4), (3, 4), dtype=C128)),
    ("c128_parts", lambda x: (x.abs(), torch.view_as_real(x.conj_physical())),
     _complex((3, 4), dtype=C128)),
    ("c128_matmul", lambda a, b: a @ b,
     _complex((3, 4), (4, 2), dtype=C128)),
    # Through views and shape ops of a computed complex tensor.
    ("reshape_permute", lambda x: (x * x).reshape(4, 3).t() + 1j,
     _complex((3, 4))),
]


def cases():
    yield from CASES
