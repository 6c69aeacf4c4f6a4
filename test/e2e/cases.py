"""The end-to-end cases: modules whose compiled outputs must equal eager's.

`CASES` is a list of `Case`s, in a fixed order; `CASES_BY_NAME` maps names
to them. A case names a module factory and an input factory:

  - `Case.make_model()` seeds torch (torch.manual_seed(0)), builds the
    module and puts it in eval mode, so every call gives the same weights;
  - `Case.make_inputs(seed, batch)` seeds torch with `seed` and builds the
    input tuple, so one seed always gives the same tensors;
  - a dynamic-batch case (`batch_sizes` non-empty) is compiled with
    `dynamic_batch=True` on the inputs of `runs()[0]` and then also run on
    the inputs of every other (seed, batch) pair of `runs()`; dim 0 of each
    of its inputs is the batch.

Every module traces with torch.fx.symbolic_trace. Functions of the inputs
are written as module-level functions and wrapped by `lam` into a `Lambda`
module whose forward calls them (FX traces through the call); module
spellings go through nn.Sequential so that they stay `call_module` nodes.

Shapes are small but odd (7, 13, ...) so that vectorised code runs its
tails. Outputs are compared at rtol=1e-4, atol=1e-5 for float32 (1e-7 for
float64, exactly for integer and bool outputs) unless a case carries a
`Tolerance`, which must say why the looser bound is mathematically
justified; model cases never do. Inputs keep results away from rounding
cliffs: rounding divisions divide integer-valued floats, equality tests
compare small integers, logs and roots get positive inputs, divisors stay
away from zero.

Names are `<family>.<name>`; families: elementwise, linalg, conv_pool,
norm_reduce, shape, attention, graph_module, dynamic, models, ops,
spellings (spellings.py) and the families of issue 27's sections.
"""

import inspect
import math
from dataclasses import dataclass
from typing import Callable, Optional, Tuple

import torch
import torch.fx
import torch.nn as nn
import torch.nn.functional as F
import torchvision

import complex_numbers
import control_flow
import quantized
import op_forms
import spellings

__all__ = ["Case", "Tolerance", "CASES", "CASES_BY_NAME", "FAMILIES"]


# --- The case record. --------------------------------------------------------

@dataclass(frozen=True)
class Tolerance:
    """A looser comparison bound for one case, with its justification."""
    rtol: float
    atol: float
    why: str


@dataclass(frozen=True)
class Case:
    """One module to compile and compare against eager.

    `model()` builds the module (called after torch.manual_seed(0));
    `inputs()` - or `inputs(batch)` for a dynamic-batch case - builds the
    input tuple (called after torch.manual_seed(seed)). `batch_sizes` is
    empty for a static case; otherwise its first size is the one compiled
    and every size is run."""
    name: str
    family: str
    model: Callable[[], nn.Module]
    inputs: Callable[..., Tuple[torch.Tensor, ...]]
    batch_sizes: Tuple[int, ...] = ()
    tolerance: Optional[Tolerance] = None

    @property
    def dynamic_batch(self):
        return bool(self.batch_sizes)

    def make_model(self):
        torch.manual_seed(0)
        model = self.model()
        return model.eval()

    def make_inputs(self, seed=0, batch=None):
        torch.manual_seed(seed)
        if self.dynamic_batch:
            inputs = self.inputs(self.batch_sizes[0] if batch is None
                                 else batch)
        else:
            inputs = self.inputs()
        return tuple(inputs)

    def runs(self):
        """(seed, batch) of every run: the compiled inputs first."""
        if not self.dynamic_batch:
            return [(0, None)]
        return list(enumerate(self.batch_sizes))


CASES = []
FAMILIES = []
_family = None


def family(name):
    """Sets the family of the cases registered next."""
    global _family
    _family = name
    FAMILIES.append(name)


def add(name, model, inputs, batch_sizes=(), tolerance=None):
    """Registers a case of the current family."""
    CASES.append(Case(f"{_family}.{name}", _family, model, inputs,
                      tuple(batch_sizes), tolerance))


# --- Modules around functions. -----------------------------------------------

class Lambda(nn.Module):
    """A module whose forward calls `fn`, a module-level function of its
    inputs. FX traces through the call: the graph holds fn's operations.
    The subclasses give forward the arity of fn (FX cannot trace *args)."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn


class Lambda1(Lambda):
    def forward(self, x):
        return self.fn(x)


class Lambda2(Lambda):
    def forward(self, x, y):
        return self.fn(x, y)


class Lambda3(Lambda):
    def forward(self, x, y, z):
        return self.fn(x, y, z)


class Lambda4(Lambda):
    def forward(self, x, y, z, w):
        return self.fn(x, y, z, w)


_LAMBDAS = {1: Lambda1, 2: Lambda2, 3: Lambda3, 4: Lambda4}


def lam(fn):
    """The Lambda module of `fn`, with forward taking fn's parameters."""
    return _LAMBDAS[len(inspect.signature(fn).parameters)](fn)


def fn_case(name, inputs, **kwargs):
    """Decorator: registers the decorated module-level function as a case."""
    def register(fn):
        add(name, lambda: lam(fn), inputs, **kwargs)
        return fn
    return register


def seq(*modules):
    """nn.Sequential: its children stay call_module nodes when traced."""
    return nn.Sequential(*modules)


# --- Input factories (called after torch.manual_seed). -----------------------

def randn(*shapes, dtype=torch.float32):
    """Standard normal tensors of the given shapes."""
    return lambda: tuple(torch.randn(s, dtype=dtype) for s in shapes)


def uniform(low, high, *shapes, dtype=torch.float32):
    """Uniform tensors in [low, high)."""
    return lambda: tuple(torch.rand(s, dtype=dtype) * (high - low) + low
                         for s in shapes)


def nonzero(*shapes):
    """Tensors with 0.5 <= |x| < 2 and random signs (safe divisors)."""
    def make():
        out = []
        for s in shapes:
            magnitude = torch.rand(s) * 1.5 + 0.5
            sign = torch.randint(0, 2, s) * 2 - 1
            out.append(magnitude * sign)
        return tuple(out)
    return make


def randint(low, high, *shapes, dtype=torch.int64):
    """Integer tensors in [low, high) of the given dtype (float dtypes give
    integer-valued floats)."""
    return lambda: tuple(torch.randint(low, high, s).to(dtype)
                         for s in shapes)


def int_divisors(*shapes, dtype=torch.int64):
    """Integer tensors in [-9, 9] without zero."""
    def make():
        out = []
        for s in shapes:
            magnitude = torch.randint(1, 10, s)
            sign = torch.randint(0, 2, s) * 2 - 1
            out.append((magnitude * sign).to(dtype))
        return tuple(out)
    return make


def concat(*factories):
    """The inputs of several factories, in order."""
    return lambda: tuple(t for f in factories for t in f())


def batched(*shapes, dtype=torch.float32):
    """Dynamic-batch inputs: normal tensors of shape (batch, *shape)."""
    return lambda n: tuple(torch.randn((n, *s), dtype=dtype) for s in shapes)


# --- Helpers for non-trivial state. ------------------------------------------

def random_norm_state(model):
    """Gives every BatchNorm and InstanceNorm random running statistics and
    every BatchNorm, InstanceNorm, GroupNorm and LayerNorm random affine
    parameters, so that folding or skipping them cannot go unnoticed.
    Returns the model."""
    norms = (nn.modules.batchnorm._NormBase, nn.LayerNorm, nn.GroupNorm)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.modules.batchnorm._NormBase):
                if m.track_running_stats:
                    m.running_mean.normal_(0.0, 0.5)
                    m.running_var.uniform_(0.5, 2.0)
            if isinstance(m, norms):
                if getattr(m, "weight", None) is not None:
                    m.weight.uniform_(0.5, 1.5)
                if getattr(m, "bias", None) is not None:
                    m.bias.normal_(0.0, 0.2)
    return model


# =============================================================================
# Elementwise: arithmetic, unary math, activations, comparisons, logic,
# broadcasting, scalar operands, dtypes and spellings.
# =============================================================================

family("elementwise")

X37 = randn((3, 7))
XY37 = randn((3, 7), (3, 7))


@fn_case("add_operator", XY37)
def _add_operator(x, y):
    return x + y


@fn_case("add_torch_alpha", XY37)
def _add_torch_alpha(x, y):
    return torch.add(x, y, alpha=2.5)


@fn_case("add_method_alpha", XY37)
def _add_method_alpha(x, y):
    return x.add(y, alpha=-1)


@fn_case("sub_operator", XY37)
def _sub_operator(x, y):
    return x - y


@fn_case("sub_torch_alpha", XY37)
def _sub_torch_alpha(x, y):
    return torch.sub(x, y, alpha=0.5)


@fn_case("sub_method_alpha", XY37)
def _sub_method_alpha(x, y):
    return x.sub(y, alpha=3)


@fn_case("mul_operator", XY37)
def _mul_operator(x, y):
    return x * y


@fn_case("mul_torch", XY37)
def _mul_torch(x, y):
    return torch.mul(x, y)


@fn_case("mul_method", XY37)
def _mul_method(x, y):
    return x.mul(y)


@fn_case("scalar_mul_left", X37)
def _scalar_mul_left(x):
    return 2 * x


@fn_case("scalar_mul_right_float", X37)
def _scalar_mul_right_float(x):
    return x * -0.75


@fn_case("scalar_add_right", X37)
def _scalar_add_right(x):
    return x + 1


@fn_case("scalar_add_left", X37)
def _scalar_add_left(x):
    return 0.5 + x


@fn_case("scalar_rsub", X37)
def _scalar_rsub(x):
    return 1 - x


@fn_case("scalar_sub_right", X37)
def _scalar_sub_right(x):
    return x - 2.25


@fn_case("scalar_div_right", X37)
def _scalar_div_right(x):
    return x / 3


@fn_case("scalar_div_left", nonzero((3, 7)))
def _scalar_div_left(x):
    return 2 / x


@fn_case("scalar_add_torch", X37)
def _scalar_add_torch(x):
    return torch.add(x, 3, alpha=2)


@fn_case("div_operator", concat(randn((3, 7)), nonzero((3, 7))))
def _div_operator(x, y):
    return x / y


@fn_case("div_torch", concat(randn((3, 7)), nonzero((3, 7))))
def _div_torch(x, y):
    return torch.div(x, y)


@fn_case("div_method_none", concat(randn((3, 7)), nonzero((3, 7))))
def _div_method_none(x, y):
    return x.div(y, rounding_mode=None)


# Rounding divisions on integer-valued floats: the quotients are exact or at
# least 1/9 away from an integer, so rounding cannot depend on the last ulp.
INT_FLOATS = concat(randint(-40, 40, (5, 13), dtype=torch.float32),
                    int_divisors((5, 13), dtype=torch.float32))


@fn_case("div_trunc_f32", INT_FLOATS)
def _div_trunc_f32(x, y):
    return torch.div(x, y, rounding_mode="trunc")


@fn_case("div_floor_f32", INT_FLOATS)
def _div_floor_f32(x, y):
    return torch.div(x, y, rounding_mode="floor")


@fn_case("div_floor_scalar", randint(-40, 40, (5, 13), dtype=torch.float32))
def _div_floor_scalar(x):
    return x.div(3, rounding_mode="floor")


@fn_case("floordiv_operator", randint(-40, 40, (5, 13), dtype=torch.float32))
def _floordiv_operator(x):
    return x // 4


INT_PAIR = concat(randint(-40, 40, (5, 13)), int_divisors((5, 13)))


@fn_case("div_true_int64", INT_PAIR)
def _div_true_int64(x, y):
    return torch.div(x, y)


@fn_case("div_trunc_int64", INT_PAIR)
def _div_trunc_int64(x, y):
    return torch.div(x, y, rounding_mode="trunc")


@fn_case("div_floor_int64", INT_PAIR)
def _div_floor_int64(x, y):
    return torch.div(x, y, rounding_mode="floor")


@fn_case("pow_scalar_int", X37)
def _pow_scalar_int(x):
    return x ** 2


@fn_case("pow_scalar_int_negative_base", X37)
def _pow_scalar_int_negative_base(x):
    return torch.pow(x, 3)


@fn_case("pow_scalar_float", uniform(0.1, 3.0, (3, 7)))
def _pow_scalar_float(x):
    return x.pow(1.7)


@fn_case("pow_scalar_half", uniform(0.1, 3.0, (3, 7)))
def _pow_scalar_half(x):
    return x ** 0.5


@fn_case("pow_scalar_negative", uniform(0.5, 2.0, (3, 7)))
def _pow_scalar_negative(x):
    return torch.pow(x, -2)


@fn_case("pow_tensor_tensor", concat(uniform(0.5, 2.0, (3, 7)),
                                     randn((3, 7))))
def _pow_tensor_tensor(x, y):
    return torch.pow(x, y)


@fn_case("pow_tensor_tensor_operator", concat(uniform(0.5, 2.0, (4, 1, 5)),
                                              randn((3, 1))))
def _pow_tensor_tensor_operator(x, y):
    return x ** y


@fn_case("pow_scalar_base", X37)
def _pow_scalar_base(x):
    return 2 ** x


@fn_case("neg_operator", X37)
def _neg_operator(x):
    return -x


@fn_case("neg_torch", X37)
def _neg_torch(x):
    return torch.neg(x)


@fn_case("abs_torch", X37)
def _abs_torch(x):
    return torch.abs(x)


@fn_case("abs_method", X37)
def _abs_method(x):
    return x.abs()


@fn_case("exp", randn((5, 13)))
def _exp(x):
    return torch.exp(x)


@fn_case("exp_method", randn((5, 13)))
def _exp_method(x):
    return (2 * x).exp()


@fn_case("log", uniform(0.05, 5.0, (5, 13)))
def _log(x):
    return torch.log(x)


@fn_case("log_method", uniform(0.05, 5.0, (5, 13)))
def _log_method(x):
    return x.log()


@fn_case("sqrt", uniform(0.0, 4.0, (5, 13)))
def _sqrt(x):
    return torch.sqrt(x)


@fn_case("rsqrt", uniform(0.1, 4.0, (5, 13)))
def _rsqrt(x):
    return torch.rsqrt(x)


@fn_case("rsqrt_method", uniform(0.1, 4.0, (5, 13)))
def _rsqrt_method(x):
    return x.rsqrt()


@fn_case("reciprocal", nonzero((5, 13)))
def _reciprocal(x):
    return torch.reciprocal(x)


@fn_case("reciprocal_method", nonzero((5, 13)))
def _reciprocal_method(x):
    return x.reciprocal()


@fn_case("erf", randn((5, 13)))
def _erf(x):
    return torch.erf(2 * x)


@fn_case("sin", randn((5, 13)))
def _sin(x):
    return torch.sin(3 * x)


@fn_case("cos", randn((5, 13)))
def _cos(x):
    return torch.cos(3 * x)


@fn_case("sin_cos_methods", randn((5, 13)))
def _sin_cos_methods(x):
    return x.sin() * x.cos()


@fn_case("maximum", XY37)
def _maximum(x, y):
    return torch.maximum(x, y)


@fn_case("minimum_broadcast", randn((4, 1, 5), (3, 1)))
def _minimum_broadcast(x, y):
    return torch.minimum(x, y)


@fn_case("max_binary", XY37)
def _max_binary(x, y):
    return torch.max(x, y)


@fn_case("clamp_min", X37)
def _clamp_min(x):
    return torch.clamp(x, min=-0.5)


@fn_case("clamp_max", X37)
def _clamp_max(x):
    return x.clamp(max=0.25)


@fn_case("clamp_both", X37)
def _clamp_both(x):
    return torch.clamp(x, -0.5, 0.5)


@fn_case("clamp_min_method", X37)
def _clamp_min_method(x):
    return x.clamp_min(0.1)


@fn_case("hardtanh_functional", randn((5, 13)))
def _hardtanh_functional(x):
    return F.hardtanh(2 * x)


add("hardtanh_module", lambda: seq(nn.Hardtanh(-0.5, 1.5)), randn((5, 13)))


@fn_case("relu_torch", X37)
def _relu_torch(x):
    return torch.relu(x)


@fn_case("relu_method", X37)
def _relu_method(x):
    return x.relu()


@fn_case("relu_functional", X37)
def _relu_functional(x):
    return F.relu(x)


add("relu_module", lambda: seq(nn.ReLU()), X37)


@fn_case("relu6_functional", randn((5, 13)))
def _relu6_functional(x):
    return F.relu6(4 * x)


add("relu6_module", lambda: seq(nn.ReLU6()), lambda: (4 * torch.randn(5, 13),))


@fn_case("leaky_relu_default", X37)
def _leaky_relu_default(x):
    return F.leaky_relu(x)


add("leaky_relu_module", lambda: seq(nn.LeakyReLU(0.2)), X37)


@fn_case("elu_functional", X37)
def _elu_functional(x):
    return F.elu(x)


add("elu_module_alpha", lambda: seq(nn.ELU(alpha=0.5)), X37)


@fn_case("gelu_none", randn((5, 13)))
def _gelu_none(x):
    return F.gelu(2 * x)


@fn_case("gelu_tanh", randn((5, 13)))
def _gelu_tanh(x):
    return F.gelu(2 * x, approximate="tanh")


add("gelu_module_tanh", lambda: seq(nn.GELU(approximate="tanh")),
    randn((5, 13)))


@fn_case("sigmoid_torch", randn((5, 13)))
def _sigmoid_torch(x):
    return torch.sigmoid(4 * x)


@fn_case("sigmoid_method", randn((5, 13)))
def _sigmoid_method(x):
    return x.sigmoid()


add("sigmoid_module", lambda: seq(nn.Sigmoid()), randn((5, 13)))


@fn_case("tanh_torch", randn((5, 13)))
def _tanh_torch(x):
    return torch.tanh(3 * x)


add("tanh_module", lambda: seq(nn.Tanh()), randn((5, 13)))


@fn_case("silu_functional", randn((5, 13)))
def _silu_functional(x):
    return F.silu(3 * x)


add("silu_module", lambda: seq(nn.SiLU()), randn((5, 13)))


@fn_case("hardswish_functional", randn((5, 13)))
def _hardswish_functional(x):
    return F.hardswish(4 * x)


add("hardswish_module", lambda: seq(nn.Hardswish()),
    lambda: (4 * torch.randn(5, 13),))


@fn_case("hardsigmoid_functional", randn((5, 13)))
def _hardsigmoid_functional(x):
    return F.hardsigmoid(4 * x)


add("hardsigmoid_module", lambda: seq(nn.Hardsigmoid()),
    lambda: (4 * torch.randn(5, 13),))


@fn_case("softplus_functional", randn((5, 13)))
def _softplus_functional(x):
    return F.softplus(12 * x) + F.softplus(4 * x, beta=2, threshold=3)


add("softplus_module", lambda: seq(nn.Softplus(beta=0.5, threshold=4)),
    lambda: (6 * torch.randn(5, 13),))


@fn_case("mish_functional", randn((5, 13)))
def _mish_functional(x):
    return F.mish(8 * x)


# Inside a Sequential the modules the registry binds stay call_module
# nodes (Mish, SELU, CELU, LogSigmoid, PReLU).
add("mish_module", lambda: seq(nn.Mish()), lambda: (8 * torch.randn(5, 13),))


@fn_case("logsigmoid_functional", randn((5, 13)))
def _logsigmoid_functional(x):
    return F.logsigmoid(30 * x)


add("logsigmoid_module", lambda: seq(nn.LogSigmoid()), randn((5, 13)))


@fn_case("selu_functional", randn((5, 13)))
def _selu_functional(x):
    return F.selu(3 * x) + torch.selu(x)


add("selu_module", lambda: seq(nn.SELU()), randn((5, 13)))
add("celu_module", lambda: seq(nn.CELU(alpha=0.6)),
    lambda: (3 * torch.randn(5, 13),))


@fn_case("celu_functional", randn((5, 13)))
def _celu_functional(x):
    return F.celu(3 * x, alpha=2.0)


add("prelu_channels", lambda: seq(nn.Conv2d(3, 6, 1), nn.PReLU(6)),
    randn((2, 3, 5, 5)))
add("prelu_one_slope", lambda: seq(nn.PReLU(init=0.1)), randn((4, 7)))


@fn_case("prelu_functional", randn((3, 7), (7,), (1,)))
def _prelu_functional(x, w, v):
    # A 1-D input has one channel.
    return F.prelu(x, w) + F.prelu(x[0], v)


@fn_case("unary_math", randn((4, 33)))
def _unary_math(x):
    return (torch.tan(0.4 * x) + x.atan() + torch.log1p(x.abs())
            + torch.expm1(x) + torch.log2(x.abs() + 1))


@fn_case("rounding", randn((4, 33)))
def _rounding(x):
    # round is half to even, as on 2.5 and -0.5.
    halves = torch.tensor([[2.5, -0.5, 0.5, -2.5]]).expand(4, 4)
    y = torch.cat([4 * x, halves], 1)
    return torch.stack([y.floor(), torch.ceil(y), torch.round(y),
                        torch.sign(y)])


@fn_case("rounding_int", randn((4, 9)))
def _rounding_int(x):
    i = (4 * x).to(torch.int64)
    return torch.floor(i) + i.ceil() + torch.round(i) + torch.sign(i)


@fn_case("square_exp2_logit", randn((4, 33)))
def _square_exp2_logit(x):
    return (torch.square(x) + x.exp2() + torch.logit(x.sigmoid())
            + torch.logit(x, eps=0.1))


@fn_case("float_classes", randn((4, 9)))
def _float_classes(x):
    y = torch.where(x > 1, torch.inf, x)
    y = torch.where(x < -1, -torch.inf, y)
    y = torch.where(x.abs() < 0.2, torch.nan, y)
    return (torch.isnan(y), y.isinf(), torch.isfinite(y),
            torch.isfinite(x.to(torch.int64)))


@fn_case("shrink_threshold_glu", randn((4, 10)))
def _shrink_threshold_glu(x):
    return (F.hardshrink(x, 0.7), F.softshrink(x, 0.3),
            F.threshold(x, 0.2, -5.0), F.glu(x), F.glu(x.t(), 0))


add("shrink_threshold_modules",
    lambda: seq(nn.Hardshrink(0.4), nn.Softshrink(0.1), nn.Threshold(0.05, 3.0),
                nn.Linear(13, 8), nn.GLU()), randn((5, 13)))


@fn_case("softsign_tanhshrink_softmin", randn((4, 10)))
def _softsign_tanhshrink_softmin(x):
    # Python functions of torch.nn.functional the tracer goes into.
    return F.softsign(x), F.tanhshrink(x), F.softmin(x, 1)


@fn_case("atan2_addcmul_lerp", randn((4, 10), (4, 10), (10,)))
def _atan2_addcmul_lerp(x, y, z):
    return (torch.atan2(x, y), torch.addcmul(x, y, z, value=0.5),
            x.addcdiv(y, z.abs() + 1), torch.lerp(x, y, 0.7),
            x.lerp(y, z.sigmoid()))


@fn_case("remainder_float", randn((4, 33), (4, 33)))
def _remainder_float(x, y):
    # The remainder takes the divisor's sign, as Python's %.
    return torch.stack([x % 0.7, torch.remainder(4 * x, -0.3),
                        3 % (y.abs() + 1), torch.remainder(3 * x, y + 2)])


@fn_case("remainder_int", randn((4, 9), (4, 9)))
def _remainder_int(x, y):
    i, j = (9 * x).to(torch.int64), (4 * y).to(torch.int64)
    j = torch.where(j == 0, torch.ones_like(j), j)
    return torch.stack([i % 4, torch.remainder(i, -3), i % j])


@fn_case("where_tensor", XY37)
def _where_tensor(x, y):
    return torch.where(x > y, x, y)


@fn_case("where_scalar_other", X37)
def _where_scalar_other(x):
    return torch.where(x > 0, x, 0.0)


@fn_case("where_broadcast", randn((4, 1, 5), (3, 1), (5,)))
def _where_broadcast(c, x, y):
    return torch.where(c < 0, x, y)


# Comparisons on integer-valued floats, so that equality happens.
SMALL_INT_FLOATS = randint(-3, 3, (5, 13), (5, 13), dtype=torch.float32)


@fn_case("cmp_eq_torch", SMALL_INT_FLOATS)
def _cmp_eq_torch(x, y):
    return torch.eq(x, y)


@fn_case("cmp_eq_operator", SMALL_INT_FLOATS)
def _cmp_eq_operator(x, y):
    return x == y


@fn_case("cmp_ne_operator", SMALL_INT_FLOATS)
def _cmp_ne_operator(x, y):
    return x != y


@fn_case("cmp_lt_operator", SMALL_INT_FLOATS)
def _cmp_lt_operator(x, y):
    return x < y


@fn_case("cmp_le_torch", SMALL_INT_FLOATS)
def _cmp_le_torch(x, y):
    return torch.le(x, y)


@fn_case("cmp_gt_method_scalar", SMALL_INT_FLOATS)
def _cmp_gt_method_scalar(x, y):
    return x.gt(0.5), y.gt(1)


@fn_case("cmp_ge_operator", SMALL_INT_FLOATS)
def _cmp_ge_operator(x, y):
    return x >= y


@fn_case("cmp_broadcast", randint(-2, 2, (4, 1, 5), (3, 1),
                                  dtype=torch.float32))
def _cmp_broadcast(x, y):
    return x <= y, x == y, x != 1


@fn_case("cmp_scalar_left", SMALL_INT_FLOATS)
def _cmp_scalar_left(x, y):
    return 0 < x, 1 == y


@fn_case("logical_and", XY37)
def _logical_and(x, y):
    return torch.logical_and(x > 0, y > 0)


@fn_case("logical_or", XY37)
def _logical_or(x, y):
    return torch.logical_or(x > 0, y < -0.5)


@fn_case("logical_not", X37)
def _logical_not(x):
    return torch.logical_not(x > 0)


@fn_case("logical_operators", XY37)
def _logical_operators(x, y):
    a, b = x > 0, y > 0
    return a & b, a | b, ~a


@fn_case("logical_bool_inputs", lambda: (torch.rand(5, 13) > 0.5,
                                         torch.rand(5, 13) > 0.5))
def _logical_bool_inputs(a, b):
    return torch.logical_and(a, b), torch.logical_or(a, b), a.logical_not()


@fn_case("where_bool_input", lambda: (torch.rand(5, 13) > 0.5,
                                      torch.randn(5, 13), torch.randn(13)))
def _where_bool_input(c, x, y):
    return torch.where(c, x, y)


@fn_case("broadcast_4x1x5_3x1", randn((4, 1, 5), (3, 1)))
def _broadcast_4x1x5_3x1(x, y):
    return x + y


@fn_case("broadcast_rank_mismatch", randn((3, 13), (13,)))
def _broadcast_rank_mismatch(x, y):
    return x * y - y


@fn_case("broadcast_both_sides", randn((5, 1), (1, 7)))
def _broadcast_both_sides(x, y):
    return x - y


@fn_case("broadcast_0d_tensor", randn((3, 7), ()))
def _broadcast_0d_tensor(x, s):
    return x * s + s


@fn_case("zero_dim_inputs", randn((), ()))
def _zero_dim_inputs(a, b):
    return a * b + 1


@fn_case("int64_add", randint(-100, 100, (5, 13), (5, 13)))
def _int64_add(x, y):
    return x + y


@fn_case("int64_arith_scalar", randint(-100, 100, (5, 13)))
def _int64_arith_scalar(x):
    return x * 3 - 7


@fn_case("int64_sub_alpha_broadcast", randint(-100, 100, (5, 13), (13,)))
def _int64_sub_alpha_broadcast(x, y):
    return torch.sub(x, y, alpha=2)


@fn_case("int64_compare", randint(-5, 5, (5, 13), (5, 13)))
def _int64_compare(x, y):
    return x > y, x == y, x <= 0


@fn_case("int64_abs_neg_max", randint(-100, 100, (5, 13), (5, 13)))
def _int64_abs_neg_max(x, y):
    return torch.maximum(x.abs(), -y)


@fn_case("int64_clamp", randint(-100, 100, (5, 13)))
def _int64_clamp(x):
    return torch.clamp(x, min=-10, max=20)


@fn_case("int_float_promotion", concat(randint(-10, 10, (5, 13)),
                                       randn((5, 13))))
def _int_float_promotion(i, x):
    return i + x, i * 0.5


F64_XY = randn((5, 13), (5, 13), dtype=torch.float64)


@fn_case("f64_add_mul", F64_XY)
def _f64_add_mul(x, y):
    return x * y + x


@fn_case("f64_exp_tanh", F64_XY)
def _f64_exp_tanh(x, y):
    return torch.exp(x) - torch.tanh(y)


@fn_case("f64_div_sqrt", concat(randn((5, 13), dtype=torch.float64),
                                uniform(0.1, 4.0, (5, 13),
                                        dtype=torch.float64)))
def _f64_div_sqrt(x, y):
    return x / torch.sqrt(y)


@fn_case("f64_f32_promotion", concat(randn((5, 13), dtype=torch.float64),
                                     randn((5, 13))))
def _f64_f32_promotion(x, y):
    return x + y


@fn_case("chain_mixed_spellings", XY37)
def _chain_mixed_spellings(x, y):
    z = torch.add(2 * x, y).relu()
    z = F.silu(z) * torch.sigmoid(y) - x.tanh()
    return torch.clamp(z / 3 + 1, 0.0, 2.0)


class ActivationZoo(nn.Module):
    """One input through every activation module, outputs summed."""

    def __init__(self):
        super().__init__()
        self.acts = nn.ModuleList([
            nn.ReLU(), nn.ReLU6(), nn.LeakyReLU(0.1), nn.ELU(), nn.GELU(),
            nn.Sigmoid(), nn.Tanh(), nn.SiLU(), nn.Hardswish(),
            nn.Hardsigmoid(), nn.Hardtanh()])

    def forward(self, x):
        out = x
        for act in self.acts:
            out = out + act(x)
        return out


add("activation_zoo", ActivationZoo, lambda: (3 * torch.randn(5, 13),))


# =============================================================================
# Linear algebra: nn.Linear, F.linear, matmul ranks, mm, bmm, addmm, t.
# =============================================================================

family("linalg")

add("linear_bias_2d", lambda: seq(nn.Linear(13, 7)), randn((5, 13)))
add("linear_nobias_2d", lambda: seq(nn.Linear(13, 7, bias=False)),
    randn((5, 13)))
add("linear_bias_3d", lambda: seq(nn.Linear(13, 7)), randn((2, 5, 13)))
add("linear_nobias_3d", lambda: seq(nn.Linear(13, 7, bias=False)),
    randn((2, 5, 13)))
add("linear_1d_input", lambda: seq(nn.Linear(13, 7)), randn((13,)))
add("linear_4d_input", lambda: seq(nn.Linear(9, 5)), randn((2, 3, 4, 9)))
add("linear_chain", lambda: seq(nn.Linear(13, 17), nn.ReLU(),
                                nn.Linear(17, 3)), randn((5, 13)))


@fn_case("f_linear_bias", randn((5, 13), (7, 13), (7,)))
def _f_linear_bias(x, w, b):
    return F.linear(x, w, b)


@fn_case("f_linear_nobias", randn((2, 5, 13), (7, 13)))
def _f_linear_nobias(x, w):
    return F.linear(x, w)


def _matmul(x, y):
    return torch.matmul(x, y)


for _name, _shapes in [
        ("matmul_1d_1d", ((13,), (13,))),
        ("matmul_1d_2d", ((13,), (13, 7))),
        ("matmul_2d_1d", ((5, 13), (13,))),
        ("matmul_2d_2d", ((5, 13), (13, 7))),
        ("matmul_3d_3d", ((3, 5, 13), (3, 13, 7))),
        ("matmul_3d_2d", ((3, 5, 13), (13, 7))),
        ("matmul_2d_3d", ((5, 13), (3, 13, 7))),
        ("matmul_3d_1d", ((3, 5, 13), (13,))),
        ("matmul_1d_3d", ((13,), (3, 13, 7))),
        ("matmul_4d_4d_broadcast", ((2, 1, 5, 13), (1, 3, 13, 7))),
        ("matmul_4d_3d_broadcast", ((2, 3, 5, 13), (3, 13, 7))),
        ("matmul_vector_dot_long", ((300,), (300,)))]:
    add(_name, lambda: lam(_matmul), randn(*_shapes))

# Dot products of 500 terms or more of randn inputs: sums near 22 in
# magnitude (ulp 1.9e-6), each order of summation off float64 by up to
# 40 ulps (measured over 3 seeds: eager 4.7e-5, ours 8.5e-5), so a result
# near 0 differs from eager's by up to ~1e-4 absolute.
_LONG_DOT = Tolerance(
    rtol=1e-4, atol=2e-4,
    why="dot products of 500+ float32 terms of magnitude ~22 differ from "
        "float64 by up to 40 ulps in any summation order")
for _name, _shapes in [
        # A depth of no divisor near the k block: split into whole blocks
        # and the rest (526 = 512 + 14).
        ("matmul_odd_depth", ((70, 526), (526, 96))),
        # A columns operand past L1 that is not a constant: packed.
        ("matmul_packed_columns", ((128, 100), (100, 256))),
        # One row block: B packed inside the cache blocks, two k blocks.
        ("matmul_packed_in_blocks", ((64, 512), (512, 256))),
        # Many row blocks: B packed once before, in blocks of panels; the
        # row tail (1028 = 1026 + 2 on AVX2, 1024 + 4 on AVX-512) reads
        # that copy too.
        ("matmul_packed_before_row_tail", ((1028, 128), (128, 1024))),
        # Few row blocks of 256 but many column blocks; k blocks of 384
        # on AVX2 (the largest divisor of 768 up to 512), 256 on AVX-512.
        ("matmul_wide_columns", ((384, 768), (768, 3072)))]:
    add(_name, lambda: lam(_matmul), randn(*_shapes), tolerance=_LONG_DOT)


@fn_case("matmul_operator", randn((3, 5, 13), (13, 7)))
def _matmul_operator(x, y):
    return x @ y


@fn_case("matmul_method_f64", randn((5, 13), (13, 7), dtype=torch.float64))
def _matmul_method_f64(x, y):
    return x.matmul(y)


@fn_case("mm", randn((5, 13), (13, 7)))
def _mm(x, y):
    return torch.mm(x, y)


@fn_case("mm_method_transposed", randn((5, 13), (7, 13)))
def _mm_method_transposed(x, y):
    return x.mm(y.t())


@fn_case("bmm", randn((3, 5, 13), (3, 13, 7)))
def _bmm(x, y):
    return torch.bmm(x, y)


@fn_case("addmm", randn((7,), (5, 13), (13, 7)))
def _addmm(b, x, y):
    return torch.addmm(b, x, y)


@fn_case("addmm_beta_alpha", randn((5, 7), (5, 13), (13, 7)))
def _addmm_beta_alpha(b, x, y):
    return torch.addmm(b, x, y, beta=0.5, alpha=2.0)


@fn_case("addmm_beta_zero", randn((1, 7), (5, 13), (13, 7)))
def _addmm_beta_zero(b, x, y):
    return torch.addmm(b, x, y, beta=0.0, alpha=-1.5)


@fn_case("t_torch", randn((13, 5), (13, 7)))
def _t_torch(x, y):
    return torch.t(x) @ y


@fn_case("t_method_1d_and_2d", randn((5, 13), (7,)))
def _t_method_1d_and_2d(x, v):
    return x.t() + 1, v.t()


@fn_case("transpose_attr", randn((5, 13)))
def _transpose_attr(x):
    return x.T * 2


add("pixel_shuffle_module",
    lambda: seq(nn.Conv2d(3, 12, 3, padding=1), nn.PixelShuffle(2)),
    batched((3, 5, 6)), batch_sizes=(1, 2))
add("pixel_unshuffle_module", lambda: seq(nn.PixelUnshuffle(3)),
    randn((2, 2, 6, 9)))
add("channel_shuffle_module", lambda: seq(nn.ChannelShuffle(3)),
    randn((2, 6, 4, 5)))


@fn_case("pixel_shuffle_functional", randn((2, 3, 8, 4, 5)))
def _pixel_shuffle_functional(x):
    # Extra leading dims stay; unshuffle undoes shuffle.
    y = F.pixel_shuffle(x, 2)
    return y, F.pixel_unshuffle(y, 2)


add("unflatten_module", lambda: seq(nn.Linear(6, 12), nn.Unflatten(1, (3, 4))),
    randn((5, 6)))


@fn_case("unflatten_method", randn((2, 12, 5)))
def _unflatten_method(x):
    return x.unflatten(1, (2, -1, 3)), torch.unflatten(x, -2, (4, 3))


@fn_case("flip_roll", randn((3, 4, 5)))
def _flip_roll(x):
    return (x.flip(0, 2), torch.flip(x, [1]), torch.roll(x, 2, 1),
            x.roll((-1, 7), (0, 2)), torch.roll(x, 5))


@fn_case("shifted_windows", randn((1, 8, 8, 4)))
def _shifted_windows(x):
    # Swin's cyclic shift of its windows and back.
    y = torch.roll(x, shifts=(-3, -3), dims=(1, 2)) * 2
    return torch.roll(y, shifts=(3, 3), dims=(1, 2))


@fn_case("diagonal_outer_one_hot", randn((3, 4, 5), (6,)))
def _diagonal_outer_one_hot(x, v):
    classes = (x[0, 0].abs() * 3).to(torch.int64)
    return (torch.diagonal(x), x.diagonal(1, 1, 2), x.diagonal(-1, 2, 0),
            torch.outer(v, x[0, 0]), v.ger(v), F.one_hot(classes, 7))


@fn_case("repeat", randn((2, 1, 3)))
def _repeat(x):
    return x.repeat(2, 3, 2), x.repeat(3, 1, 1, 1)


@fn_case("tril_triu", randn((2, 5, 6)))
def _tril_triu(x):
    return (torch.tril(x), x.triu(1), x.tril(-2), torch.triu(x, -1),
            torch.ones(4, 4).tril() * x[0, :4, :4])


add("reflection_pad2d", lambda: seq(nn.ReflectionPad2d((1, 2, 3, 0))),
    batched((3, 5, 6)), batch_sizes=(1, 2))
add("replication_pad1d", lambda: seq(nn.ReplicationPad1d((3, 1))),
    randn((2, 3, 7)))
add("conv_padding_modes", lambda: seq(
    nn.Conv2d(3, 4, 3, padding=1, padding_mode="reflect"),
    nn.Conv2d(4, 4, 3, padding=(2, 1), padding_mode="replicate"),
    nn.Conv2d(4, 2, 3, padding=1, padding_mode="circular")),
    randn((2, 3, 7, 9)))


@fn_case("pad_modes", randn((2, 3, 5, 6)))
def _pad_modes(x):
    return (F.pad(x, (2, 1, 1, 3), mode="reflect"),
            F.pad(x, (2, 1, 0, 2), mode="replicate"),
            F.pad(x, (2, 3, 1, 0), mode="circular"),
            F.pad(x, (1, 1), value=2.5))


@fn_case("swapaxes_swapdims", randn((2, 3, 5)))
def _swapaxes_swapdims(x):
    return torch.swapaxes(x, 0, 2), x.swapdims(1, -1) + 1


# einsum: attention's two products, written as einsum is in vision
# transformers (spaces, `...`), a three-operand contraction, a diagonal, a
# full sum, an outer product and the implicit output.
@fn_case("einsum_attention", randn((2, 3, 5, 8), (2, 3, 6, 8), (2, 3, 6, 8)))
def _einsum_attention(q, k, v):
    scores = torch.einsum("b h i d, b h j d -> b h i j", q, k).softmax(-1)
    return torch.einsum("...ij,...jd->...id", scores, v)


@fn_case("einsum_forms", randn((2, 3), (5, 3, 4), (2, 4)))
def _einsum_forms(a, b, c):
    square = b[0, :, :3]
    return (torch.einsum("bn,anm,bm->ba", a, b, c),
            torch.einsum("ii->i", square), torch.einsum("ij->", square),
            torch.einsum("i,j", a[0], c[1]),
            torch.einsum("ij,kj", [a, b[0].t()]))


@fn_case("einsum_batch_broadcast", randn((2, 1, 3, 4), (5, 4, 6)))
def _einsum_batch_broadcast(x, y):
    return torch.einsum("...ij,...jk->...ik", x, y)


# =============================================================================
# Convolution and pooling.
# =============================================================================

family("conv_pool")

IMG = randn((2, 4, 13, 11))

for _name, _conv in [
        ("conv2d_basic", lambda: nn.Conv2d(4, 6, 3)),
        ("conv2d_nobias", lambda: nn.Conv2d(4, 6, 3, bias=False)),
        ("conv2d_stride2", lambda: nn.Conv2d(4, 6, 3, stride=2)),
        ("conv2d_stride_tuple", lambda: nn.Conv2d(4, 6, 3, stride=(2, 3))),
        ("conv2d_padding_int", lambda: nn.Conv2d(4, 6, 3, padding=1)),
        ("conv2d_padding_tuple", lambda: nn.Conv2d(4, 6, 3, padding=(2, 1))),
        ("conv2d_padding_same", lambda: nn.Conv2d(4, 6, 5, padding="same")),
        ("conv2d_padding_same_even_kernel",
         lambda: nn.Conv2d(4, 6, 4, padding="same")),
        ("conv2d_padding_same_dilated",
         lambda: nn.Conv2d(4, 6, 3, padding="same", dilation=2)),
        ("conv2d_padding_valid", lambda: nn.Conv2d(4, 6, 3, padding="valid")),
        ("conv2d_dilation", lambda: nn.Conv2d(4, 6, 3, dilation=2)),
        ("conv2d_dilation_tuple_stride",
         lambda: nn.Conv2d(4, 6, 3, dilation=(2, 1), stride=2, padding=1)),
        ("conv2d_groups2", lambda: nn.Conv2d(4, 6, 3, groups=2, padding=1)),
        ("conv2d_depthwise", lambda: nn.Conv2d(4, 4, 3, groups=4, padding=1)),
        ("conv2d_depthwise_multiplier",
         lambda: nn.Conv2d(4, 8, 3, groups=4, stride=2, bias=False)),
        ("conv2d_nonsquare_kernel",
         lambda: nn.Conv2d(4, 6, (3, 5), stride=(2, 1), padding=(1, 2))),
        ("conv2d_1x1", lambda: nn.Conv2d(4, 9, 1)),
        ("conv2d_kernel_equals_input", lambda: nn.Conv2d(4, 3, (13, 11)))]:
    add(_name, lambda _conv=_conv: seq(_conv()), IMG)


# Shapes the CPU schedule treats specially (docs/performance.md): images of
# 7x7 with filters in whole register tiles (the filters-inner contraction,
# with and without a bias, batched, pointwise and strided), and columns
# with tails split inside the cache blocks.
for _name, _conv, _shape in [
        ("conv2d_filters_inner", lambda: nn.Conv2d(8, 64, 3, padding=1),
         (2, 8, 7, 7)),
        ("conv2d_filters_inner_nobias",
         lambda: nn.Conv2d(8, 32, 3, padding=1, bias=False), (1, 8, 7, 7)),
        ("conv2d_filters_inner_pointwise", lambda: nn.Conv2d(16, 32, 1),
         (1, 16, 7, 7)),
        ("conv2d_filters_inner_stride2",
         lambda: nn.Conv2d(8, 32, 1, stride=2, bias=False), (1, 8, 13, 13)),
        ("conv2d_narrow_columns", lambda: nn.Conv2d(8, 24, 3, padding=1),
         (1, 8, 7, 7)),
        # Stride 1 on narrow images: the window read in place, filters
        # along the register tiles (rows of 7 on 14 and 21, of 5 on 5).
        ("conv2d_window_filters_inner_14",
         lambda: nn.Conv2d(16, 64, 3, padding=1), (2, 16, 14, 14)),
        ("conv2d_window_filters_inner_nobias",
         lambda: nn.Conv2d(8, 32, 3, padding=1, bias=False), (1, 8, 14, 14)),
        ("conv2d_window_filters_inner_nonsquare",
         lambda: nn.Conv2d(8, 32, (3, 5), padding=(1, 2)), (1, 8, 9, 21)),
        ("conv2d_window_filters_inner_dilated",
         lambda: nn.Conv2d(8, 32, 3, padding=2, dilation=2), (1, 8, 28, 28)),
        ("conv2d_window_filters_inner_valid",
         lambda: nn.Conv2d(8, 32, 3), (1, 8, 7, 7)),
        ("conv2d_window_filters_inner_28",
         lambda: nn.Conv2d(8, 32, 3, padding=1), (1, 8, 28, 28)),
        # Strided, of depth 256 or more: the window read in place, by
        # phase of the width's stride (strided slices of the input).
        ("conv2d_window_filters_inner_stride2",
         lambda: nn.Conv2d(32, 64, 3, stride=2, padding=1), (2, 32, 14, 14)),
        ("conv2d_window_filters_inner_stride2_5x5",
         lambda: nn.Conv2d(16, 32, 5, stride=2, bias=False), (1, 16, 19, 19)),
        ("conv2d_window_filters_inner_stride_width",
         lambda: nn.Conv2d(32, 32, 3, stride=(1, 2), padding=1),
         (1, 32, 9, 14)),
        ("conv2d_window_filters_inner_stride3",
         lambda: nn.Conv2d(32, 32, 3, stride=3), (1, 32, 21, 21)),
        ("conv2d_window_filters_inner_stride2_dilated_rows",
         lambda: nn.Conv2d(32, 32, 3, stride=2, dilation=(2, 1), padding=2),
         (1, 32, 14, 14)),
        ("conv2d_stride2_dilated_columns",
         lambda: nn.Conv2d(32, 32, 3, stride=2, dilation=2, padding=2),
         (1, 32, 14, 14)),
        # Grouped: one contraction with the group as a batch dim, by
        # shifted windows at stride 1 (with a bias, a batch, tails of
        # filters and positions), gathered otherwise (a few output rows at
        # a time on the larger image; a dilation; one filter per group).
        ("conv2d_grouped_shifted",
         lambda: nn.Conv2d(32, 40, 3, padding=1, groups=4), (2, 32, 19, 19)),
        ("conv2d_grouped_shifted_dilated",
         lambda: nn.Conv2d(16, 16, 3, padding=2, dilation=2, groups=2,
                           bias=False), (1, 16, 24, 24)),
        ("conv2d_grouped_strided_rows",
         lambda: nn.Conv2d(32, 32, 3, stride=2, padding=1, groups=2),
         (1, 32, 64, 64)),
        ("conv2d_grouped_strided_batch",
         lambda: nn.Conv2d(24, 48, 3, stride=2, groups=8), (3, 24, 15, 15)),
        ("conv2d_grouped_narrow",
         lambda: nn.Conv2d(64, 64, 3, padding=1, groups=32), (1, 64, 7, 7)),
        ("conv2d_grouped_one_filter",
         lambda: nn.Conv2d(16, 8, 3, padding=1, groups=8, bias=False),
         (1, 16, 12, 12)),
        # 3x3, stride 1, outputs of 64 tiles of 2x2 or more: Winograd
        # F(2x2, 3x3), with a bias, without padding, and rows of tiles
        # longer than 64 (vectors of 16 and a tail of 2).
        ("conv2d_winograd", lambda: nn.Conv2d(64, 64, 3, padding=1),
         (2, 64, 16, 16)),
        ("conv2d_winograd_valid",
         lambda: nn.Conv2d(16, 32, 3, bias=False), (1, 16, 18, 18)),
        ("conv2d_winograd_wide_rows",
         lambda: nn.Conv2d(16, 32, 3, padding=1), (1, 16, 6, 260)),
        # In 2 blocks of 8 rows of tiles.
        ("conv2d_winograd_row_blocks",
         lambda: nn.Conv2d(32, 32, 3, padding=1), (2, 32, 32, 64)),
        # An odd output (15x17): padded to whole tiles, cut back after.
        ("conv2d_winograd_odd",
         lambda: nn.Conv2d(16, 32, 3, padding=1), (2, 16, 15, 17)),
        # 36 to 63 tiles (here 7x7 = 49, as resnet18's 14x14 images, and
        # 8x6 = 48 with an odd width): the weights transformed on every
        # call.
        ("conv2d_winograd_runtime_weights",
         lambda: nn.Conv2d(64, 64, 3, padding=1), (2, 64, 14, 14)),
        ("conv2d_winograd_runtime_weights_odd",
         lambda: nn.Conv2d(16, 32, 3, padding=1), (1, 16, 16, 11))]:
    add(_name, lambda _conv=_conv: seq(_conv(), nn.ReLU()), randn(_shape))

add("linear_narrow_columns", lambda: seq(nn.Linear(40, 49)), randn((16, 40)))
add("linear_few_columns", lambda: seq(nn.Linear(40, 28)), randn((16, 40)))
# Columns in panels of 32 (packed at compile time for a weight, by a copy
# for a large computed operand), with row tails.
add("linear_packed_columns", lambda: seq(nn.Linear(40, 96), nn.ReLU()),
    randn((21, 40)))
add("linear_packed_3d", lambda: seq(nn.Linear(24, 64)), randn((2, 9, 24)))


class _MatmulWeight(nn.Module):
    """x @ w with w a parameter read (k, n): a constant packed as is."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(40, 96))

    def forward(self, x):
        return x @ self.w


add("matmul_packed_weight", _MatmulWeight, randn((21, 40)))


@fn_case("baddbmm_mv_dot", randn((2, 5, 7), (2, 5, 3), (2, 3, 7)))
def _baddbmm_mv_dot(x, a, b):
    return (torch.baddbmm(x, a, b), x.baddbmm(a, b, beta=0.5, alpha=2.0),
            torch.mv(a[0], b[0, :, 0]), a[0, 0].dot(a[1, 0]))


@fn_case("matmul_packed_columns", randn((67, 64), (64, 2048)))
def _matmul_packed_columns(x, y):
    return x @ y


@fn_case("matmul_packed_transposed", randn((64, 64), (2048, 64)))
def _matmul_packed_transposed(x, y):
    return x @ y.t()


@fn_case("bmm_packed_columns", randn((2, 64, 64), (2, 64, 1024)))
def _bmm_packed_columns(x, y):
    return torch.bmm(x, y)


@fn_case("conv2d_functional_weight_inputs",
         randn((2, 4, 13, 11), (6, 2, 3, 3), (6,)))
def _conv2d_functional_weight_inputs(x, w, b):
    return F.conv2d(x, w, b, stride=1, padding=(1, 0), dilation=1, groups=2)


@fn_case("conv2d_functional_same", randn((1, 3, 9, 9), (5, 3, 3, 3)))
def _conv2d_functional_same(x, w):
    return F.conv2d(x, w, padding="same")


SIGNAL = randn((2, 4, 29))

for _name, _conv in [
        ("conv1d_basic", lambda: nn.Conv1d(4, 6, 3)),
        ("conv1d_nobias", lambda: nn.Conv1d(4, 6, 3, bias=False)),
        ("conv1d_stride_padding", lambda: nn.Conv1d(4, 6, 5, stride=2,
                                                    padding=2)),
        ("conv1d_dilation", lambda: nn.Conv1d(4, 6, 3, dilation=3)),
        ("conv1d_groups", lambda: nn.Conv1d(4, 6, 3, groups=2)),
        ("conv1d_depthwise", lambda: nn.Conv1d(4, 4, 7, groups=4,
                                               padding=3)),
        ("conv1d_padding_same", lambda: nn.Conv1d(4, 6, 4, padding="same")),
        ("conv1d_padding_valid", lambda: nn.Conv1d(4, 6, 4,
                                                   padding="valid"))]:
    add(_name, lambda _conv=_conv: seq(_conv()), SIGNAL)


@fn_case("conv1d_functional", randn((2, 4, 29), (6, 4, 3), (6,)))
def _conv1d_functional(x, w, b):
    return F.conv1d(x, w, b, stride=3, padding=1)


POOL_IMG = randn((2, 3, 13, 11))
POOL_IMG_EVEN = randn((2, 3, 12, 10))

for _name, _pool, _inputs in [
        ("max_pool2d_k2", lambda: nn.MaxPool2d(2), POOL_IMG),
        ("max_pool2d_k3_s2_p1", lambda: nn.MaxPool2d(3, 2, 1), POOL_IMG),
        ("max_pool2d_stride1", lambda: nn.MaxPool2d(3, stride=1), POOL_IMG),
        ("max_pool2d_nonsquare", lambda: nn.MaxPool2d((2, 3), (1, 2),
                                                      (1, 1)), POOL_IMG),
        ("max_pool2d_module_indices",
         lambda: nn.MaxPool2d(3, 2, 1, return_indices=True), POOL_IMG),
        ("max_pool2d_dilation", lambda: nn.MaxPool2d(3, 1, dilation=2),
         POOL_IMG),
        ("max_pool2d_ceil_mode", lambda: nn.MaxPool2d(3, 2, ceil_mode=True),
         POOL_IMG_EVEN),
        ("max_pool2d_ceil_mode_padding",
         lambda: nn.MaxPool2d(2, 2, padding=1, ceil_mode=True), POOL_IMG),
        ("avg_pool2d_k2", lambda: nn.AvgPool2d(2), POOL_IMG),
        ("avg_pool2d_pad_count_include",
         lambda: nn.AvgPool2d(3, 2, 1, count_include_pad=True), POOL_IMG),
        ("avg_pool2d_pad_count_exclude",
         lambda: nn.AvgPool2d(3, 2, 1, count_include_pad=False), POOL_IMG),
        ("avg_pool2d_ceil_mode", lambda: nn.AvgPool2d(3, 2, ceil_mode=True),
         POOL_IMG_EVEN),
        ("avg_pool2d_ceil_mode_pad_exclude",
         lambda: nn.AvgPool2d(3, 2, 1, ceil_mode=True,
                              count_include_pad=False), POOL_IMG_EVEN),
        ("avg_pool2d_ceil_mode_pad_include",
         lambda: nn.AvgPool2d(3, 2, 1, ceil_mode=True,
                              count_include_pad=True), POOL_IMG_EVEN),
        ("avg_pool2d_nonsquare", lambda: nn.AvgPool2d((3, 2), (2, 1)),
         POOL_IMG),
        ("adaptive_avg_pool2d_1", lambda: nn.AdaptiveAvgPool2d(1), POOL_IMG),
        ("adaptive_avg_pool2d_2x3", lambda: nn.AdaptiveAvgPool2d((2, 3)),
         POOL_IMG),
        ("adaptive_avg_pool2d_identity",
         lambda: nn.AdaptiveAvgPool2d((13, 11)), POOL_IMG),
        ("adaptive_avg_pool2d_uneven", lambda: nn.AdaptiveAvgPool2d((5, 4)),
         POOL_IMG)]:
    add(_name, lambda _pool=_pool: seq(_pool()), _inputs)


# 1-D adaptive average pooling: divisible, uneven, shrinking and growing
# (it once returned uninitialized memory for every shape).
for _name, _out, _length in [("adaptive_avg_pool1d_16_4", 4, 16),
                             ("adaptive_avg_pool1d_10_7", 7, 10),
                             ("adaptive_avg_pool1d_10_5", 5, 10),
                             ("adaptive_avg_pool1d_7_10", 10, 7),
                             ("adaptive_avg_pool1d_1", 1, 33)]:
    add(_name, lambda _out=_out: seq(nn.AdaptiveAvgPool1d(_out)),
        randn((2, 3, _length)))


@fn_case("adaptive_avg_pool1d_functional", randn((4, 40, 9)))
def _adaptive_avg_pool1d_functional(x):
    return F.adaptive_avg_pool1d(x, 3) + 1


@fn_case("max_pool2d_functional", POOL_IMG)
def _max_pool2d_functional(x):
    return F.max_pool2d(x, kernel_size=3, stride=2, padding=1, dilation=1,
                        ceil_mode=False)


@fn_case("max_pool2d_negative_inputs", POOL_IMG)
def _max_pool2d_negative_inputs(x):
    # All inputs negative: padding must not win the maximum.
    return F.max_pool2d(-x.abs() - 1, 3, 2, 1)


@fn_case("avg_pool2d_functional", POOL_IMG)
def _avg_pool2d_functional(x):
    return F.avg_pool2d(x, 2, stride=1, padding=1, count_include_pad=False)


@fn_case("adaptive_avg_pool2d_functional", POOL_IMG)
def _adaptive_avg_pool2d_functional(x):
    return torch.flatten(F.adaptive_avg_pool2d(x, (1, 1)), 1)


@fn_case("max_pool1d", randn((2, 3, 29)))
def _max_pool1d(x):
    return F.max_pool1d(x, 3, 2, 1)


@fn_case("max_pool2d_with_indices", POOL_IMG)
def _max_pool2d_with_indices(x):
    return F.max_pool2d(x, 3, 2, 1, return_indices=True)


@fn_case("max_pool2d_indices_ties", randint(0, 3, (2, 3, 13, 11),
                                            dtype=torch.float32))
def _max_pool2d_indices_ties(x):
    # Few distinct values: most windows hold their maximum twice or more,
    # and the index must be the first in ATen's scan order.
    return F.max_pool2d(x, 3, 2, 1, dilation=1, ceil_mode=True,
                        return_indices=True)


@fn_case("max_pool2d_indices_all_neg_inf", POOL_IMG)
def _max_pool2d_indices_all_neg_inf(x):
    # Every value -inf: the index is the window's first position inside
    # the input (not a padded one), as in ATen.
    y = torch.full_like(x, float("-inf"))
    return F.max_pool2d(y, 3, 2, 1, return_indices=True)


@fn_case("max_pool_with_indices_1d_3d", randn((2, 3, 17), (1, 2, 5, 6, 7)))
def _max_pool_with_indices_1d_3d(x, y):
    return (F.max_pool1d(x, 4, 3, 2, return_indices=True),
            F.max_pool3d(y, 2, (1, 2, 2), dilation=(1, 2, 1),
                         return_indices=True))


@fn_case("max_pool2d_unbatched", randn((3, 13, 11)))
def _max_pool2d_unbatched(x):
    return (F.max_pool2d(x, 3, 2), F.avg_pool2d(x, 2),
            F.max_pool2d(x, 2, return_indices=True))


@fn_case("avg_pool1d", randn((2, 3, 29)))
def _avg_pool1d(x):
    return F.avg_pool1d(x, 4, 3)


# Dilated convs: by output phases folded into the batch when the output is
# a multiple of the dilation, by window positions when the window reads
# mostly padding (DeepLab's ASPP), else directly.
add("conv2d_dilated_phases",
    lambda: random_norm_state(seq(nn.Conv2d(8, 16, 3, padding=2, dilation=2),
                                  nn.BatchNorm2d(16), nn.ReLU())),
    batched((8, 16, 16)), batch_sizes=(1, 2))
add("conv2d_dilated_phases_uneven",
    lambda: seq(nn.Conv2d(4, 6, (3, 3), padding=(1, 3), dilation=(2, 3))),
    randn((2, 4, 12, 15)))
add("conv2d_dilated_aspp",
    lambda: seq(nn.Conv2d(16, 8, 3, padding=12, dilation=12)),
    batched((16, 14, 14)), batch_sizes=(1, 3))
add("conv2d_dilated_odd",
    lambda: seq(nn.Conv2d(8, 8, 3, padding=3, dilation=3, bias=False)),
    randn((1, 8, 13, 11)))

# Transposed convolutions: the stride spreads the input, padding beyond
# dilation * (k - 1) crops, output_padding extends the bottom and right.
add("conv_transpose2d_stride2", lambda: seq(nn.ConvTranspose2d(4, 3, 3,
                                                               stride=2)),
    batched((4, 5, 5)), batch_sizes=(1, 3))
add("conv_transpose2d_output_padding_groups",
    lambda: seq(nn.ConvTranspose2d(4, 6, 4, stride=2, padding=1,
                                   output_padding=1, groups=2)),
    randn((2, 4, 5, 6)))
add("conv_transpose2d_crop_dilated",
    lambda: seq(nn.ConvTranspose2d(4, 6, 3, stride=(2, 3), padding=3,
                                   dilation=2, bias=False)),
    randn((1, 4, 7, 6)))
add("conv_transpose2d_depthwise_upsample",
    lambda: seq(nn.Conv2d(3, 8, 3, padding=1),
                nn.ConvTranspose2d(8, 8, 2, stride=2, groups=8), nn.ReLU()),
    randn((1, 3, 6, 6)))
add("conv_transpose1d", lambda: seq(nn.ConvTranspose1d(4, 3, 5, stride=2,
                                                       padding=1)),
    randn((2, 4, 9)))


@fn_case("conv_transpose2d_functional", randn((1, 4, 5, 5), (4, 3, 3, 3)))
def _conv_transpose2d_functional(x, w):
    # A weight computed at run time is transposed and flipped by a generic.
    return F.conv_transpose2d(x, 2 * w, stride=2, padding=1)

# 3-D (video) convolutions and pooling.
add("conv3d_module", lambda: seq(nn.Conv3d(3, 8, 3, padding=1)),
    batched((3, 4, 9, 10)), batch_sizes=(1, 2))
add("conv3d_strided_dilated",
    lambda: seq(nn.Conv3d(4, 6, (1, 3, 3), stride=(1, 2, 2), padding=(0, 2, 1),
                          dilation=(1, 2, 1), bias=False)),
    randn((2, 4, 3, 11, 12)))
add("conv3d_grouped", lambda: seq(nn.Conv3d(6, 9, (3, 1, 1), groups=3,
                                            padding=(1, 0, 0))),
    randn((1, 6, 5, 4, 4)))
add("conv3d_depthwise", lambda: seq(nn.Conv3d(4, 4, 3, groups=4, stride=2)),
    randn((1, 4, 7, 8, 9)))
add("conv3d_depth_stride_dilation",
    lambda: seq(nn.Conv3d(3, 5, 3, stride=(2, 1, 1), padding=1,
                          dilation=(2, 1, 1))),
    batched((3, 9, 6, 7)), batch_sizes=(2, 3))
add("r3d_block", lambda: random_norm_state(seq(
    nn.Conv3d(3, 8, (3, 7, 7), stride=(1, 2, 2), padding=(1, 3, 3),
              bias=False),
    nn.BatchNorm3d(8), nn.ReLU(), nn.MaxPool3d(3, stride=2, padding=1),
    nn.AvgPool3d((1, 2, 2)), nn.AdaptiveAvgPool3d(1), nn.Flatten())),
    randn((2, 3, 5, 16, 16)))


@fn_case("conv3d_functional_same", randn((1, 2, 5, 6, 7), (4, 2, 3, 2, 3)))
def _conv3d_functional_same(x, w):
    return F.conv3d(x, w, padding="same")


@fn_case("pool3d_functional", randn((2, 3, 7, 8, 9)))
def _pool3d_functional(x):
    return (F.max_pool3d(x, (2, 3, 3), stride=2, ceil_mode=True),
            F.avg_pool3d(x, 3, stride=2, padding=1, ceil_mode=True,
                         count_include_pad=False),
            F.avg_pool3d(x, (2, 3, 3), stride=2, padding=(1, 1, 0),
                         divisor_override=5))


@fn_case("adaptive_avg_pool3d", randn((2, 3, 7, 8, 9)))
def _adaptive_avg_pool3d(x):
    return F.adaptive_avg_pool3d(x, (3, 4, 5))


add("conv_bn_relu_pool", lambda: random_norm_state(seq(
    nn.Conv2d(3, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU(),
    nn.MaxPool2d(2), nn.Conv2d(8, 8, 3, groups=8), nn.ReLU6(),
    nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 5))), POOL_IMG)
# resnet's basic block on 16x16: two Winograd convs, the batch norms and
# ReLU fused into their transposes back, the residual add.
add("basic_block_winograd", lambda: random_norm_state(
    torchvision.models.resnet.BasicBlock(32, 32)), randn((2, 32, 16, 16)))


class ShuffleUnit(nn.Module):
    """ShuffleNet V2's unit, with its x.chunk() and x.size() unpacked:
    fx_mlir.compile's tracer counts them from the example input, where
    symbolic_trace fails."""

    def __init__(self):
        super().__init__()
        self.branch = nn.Sequential(nn.Conv2d(8, 8, 1), nn.ReLU(),
                                    nn.Conv2d(8, 8, 3, padding=1, groups=8))

    def forward(self, x):
        a, b = x.chunk(2, dim=1)
        x = torch.cat((a, self.branch(b)), dim=1)
        n, c, h, w = x.size()
        x = x.view(n, 2, c // 2, h, w).transpose(1, 2).contiguous()
        return x.view(n, -1, h, w)


add("shuffle_unit", ShuffleUnit, randn((2, 16, 10, 10)))
add("shuffle_unit_dynamic", ShuffleUnit, batched((16, 10, 10)),
    batch_sizes=(2, 3))
# EfficientNet's and ConvNeXt's stochastic depth: the identity when
# evaluated.
add("stochastic_depth_eval", lambda: seq(
    nn.Conv2d(8, 8, 3, padding=1), torchvision.ops.StochasticDepth(0.2, "row"),
    nn.ReLU()), randn((2, 8, 12, 12)))


# =============================================================================
# Resampling: F.interpolate and the Upsample modules.
# =============================================================================

family("resample")


@fn_case("nearest_x2", batched((3, 5, 7)), batch_sizes=(2, 3))
def _nearest_x2(x):
    return F.interpolate(x, scale_factor=2)


@fn_case("nearest_sizes", randn((2, 3, 5, 7)))
def _nearest_sizes(x):
    return F.interpolate(x, size=(9, 4)) + F.interpolate(x, size=(9, 4),
                                                         mode="nearest-exact")


@fn_case("bilinear_fraction", randn((2, 3, 5, 7)))
def _bilinear_fraction(x):
    return F.interpolate(x, scale_factor=1.7, mode="bilinear")


@fn_case("bilinear_align_corners", randn((2, 3, 5, 7)))
def _bilinear_align_corners(x):
    return F.interpolate(x, size=(9, 13), mode="bilinear", align_corners=True)


@fn_case("bilinear_down", randn((1, 4, 12, 10)))
def _bilinear_down(x):
    return F.interpolate(x, scale_factor=(0.5, 0.4), mode="bilinear")


@fn_case("area_and_recompute", randn((1, 3, 8, 12)))
def _area_and_recompute(x):
    return (F.interpolate(x, scale_factor=0.5, mode="area"),
            F.interpolate(x, scale_factor=1.3, recompute_scale_factor=True))


@fn_case("linear_1d", randn((2, 3, 11)))
def _linear_1d(x):
    return (F.interpolate(x, scale_factor=2, mode="linear"),
            F.interpolate(x, size=4, mode="linear", align_corners=True),
            F.interpolate(x, size=5))


@fn_case("trilinear_3d", randn((1, 2, 3, 4, 5)))
def _trilinear_3d(x):
    return (F.interpolate(x, scale_factor=2, mode="trilinear"),
            F.interpolate(x, size=(4, 6, 3)))


# A feature pyramid's top-down step: the coarse map brought to the fine
# one's size, read from its shape (`y.shape[-2:]`, a slice of the sizes).
@fn_case("size_of_other", randn((2, 4, 5, 6), (2, 4, 10, 11)))
def _size_of_other(x, y):
    return y + F.interpolate(x, size=y.shape[-2:], mode="nearest")


add("upsample_modules", lambda: seq(
    nn.Conv2d(3, 4, 3, padding=1), nn.Upsample(scale_factor=2, mode="bilinear"),
    nn.UpsamplingNearest2d(scale_factor=2), nn.ReLU(),
    nn.UpsamplingBilinear2d(size=(20, 22))), randn((2, 3, 4, 5)))


class TinyUNet(nn.Module):
    """An encoder-decoder in the U-Net shape: convs, a max pool down,
    bilinear upsampling back, the skip concatenated; the outputs in a dict,
    as torchvision's segmentation models return them."""

    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU())
        self.mid = nn.Sequential(nn.MaxPool2d(2), nn.Conv2d(8, 8, 3, padding=1),
                                 nn.ReLU())
        self.dec = nn.Conv2d(16, 4, 3, padding=1)

    def forward(self, x):
        e = self.enc(x)
        m = self.mid(e)
        up = F.interpolate(m, size=e.shape[-2:], mode="bilinear",
                           align_corners=False)
        out = self.dec(torch.cat([e, up], 1))
        return {"out": out, "aux": m}


add("unet_dict_output", TinyUNet, randn((1, 3, 16, 14)))
add("unet_dict_output_dynamic", TinyUNet, batched((3, 16, 14)),
    batch_sizes=(2, 1))


# =============================================================================
# Normalisation and reductions.
# =============================================================================

family("norm_reduce")

add("batch_norm2d", lambda: random_norm_state(seq(nn.BatchNorm2d(4))), IMG)
add("batch_norm2d_eps_noaffine",
    lambda: random_norm_state(seq(nn.BatchNorm2d(4, eps=1e-3,
                                                 affine=False))), IMG)
add("batch_norm1d_2d_input",
    lambda: random_norm_state(seq(nn.BatchNorm1d(13))), randn((5, 13)))
add("batch_norm1d_3d_input", lambda: random_norm_state(seq(nn.BatchNorm1d(4))),
    randn((2, 4, 29)))


class FunctionalBatchNorm(nn.Module):
    """F.batch_norm on buffers and parameters read by get_attr."""

    def __init__(self, channels=4):
        super().__init__()
        self.register_buffer("mean", torch.randn(channels))
        self.register_buffer("var", torch.rand(channels) + 0.5)
        self.weight = nn.Parameter(torch.rand(channels) + 0.5)
        self.bias = nn.Parameter(torch.randn(channels))

    def forward(self, x):
        return F.batch_norm(x, self.mean, self.var, self.weight, self.bias,
                            training=False, eps=1e-4)


add("batch_norm_functional", FunctionalBatchNorm, IMG)

@fn_case("prod_all_any", randn((3, 4, 5)))
def _prod_all_any(x):
    return (x.prod(), torch.prod(x, 1), x.prod(-1, keepdim=True),
            (x > -1).all(), torch.all(x > -1, 2), x.any(1, keepdim=True),
            torch.any(x > 2))


@fn_case("logsumexp", randn((3, 4, 5)))
def _logsumexp(x):
    masked = torch.where(x > 1.5, -torch.inf, 30 * x)
    return torch.logsumexp(masked, 1), x.logsumexp((0, 2), keepdim=True)


@fn_case("vector_norms", randn((3, 4, 5)))
def _vector_norms(x):
    return (x.norm(2, -1), x.norm(1, (0, 1), keepdim=True),
            torch.linalg.vector_norm(x), torch.linalg.vector_norm(x, 3, 1),
            torch.linalg.vector_norm(x, float("inf"), 2),
            torch.linalg.vector_norm(x, 0, 0))


@fn_case("normalize", randn((3, 4, 5)))
def _normalize(x):
    return F.normalize(x, dim=-1), F.normalize(x, p=1, dim=1)


@fn_case("var_std_mean", randn((3, 4, 5)))
def _var_std_mean(x):
    v, m = torch.var_mean(x, 1)
    s, n = torch.std_mean(x, (0, 2), keepdim=True, unbiased=False)
    w, k = torch.var_mean(x)
    return v, m, s, n, w, k


@fn_case("cosine_similarity", randn((3, 8, 5), (3, 8, 5), (1, 8, 1)))
def _cosine_similarity(x, y, z):
    return (F.cosine_similarity(x, y), torch.cosine_similarity(x, z, dim=1),
            F.cosine_similarity(x, y, dim=-1, eps=0.5))


add("cosine_similarity_module", lambda: Lambda2(nn.CosineSimilarity(dim=2)),
    randn((2, 3, 16), (2, 3, 16)))


@fn_case("sort_argsort_topk", randn((3, 7, 5)))
def _sort_argsort_topk(x):
    v, i = torch.sort(x)
    w, j = x.sort(dim=1, descending=True)
    u, k = torch.sort(x, stable=True, dim=0)
    t, m = torch.topk(x, 3, dim=1)
    s, n = x.topk(2, largest=False)
    return (v, i, w, j, u, k, torch.argsort(x, 1), x.argsort(descending=True),
            t, m, s, n)


@fn_case("topk_ties_ints", randn((4, 9)))
def _topk_ties_ints(x):
    # Ties keep their order (PyTorch's CPU sort is stable).
    q = (x * 2).round().to(torch.int64)
    return torch.sort(q, stable=True), torch.argsort(q, stable=True, dim=1)


@fn_case("cumsum", randn((3, 7)))
def _cumsum(x):
    return (torch.cumsum(x, 1), x.cumsum(0),
            (x > 0).to(torch.int64).cumsum(-1))


add("group_norm_module",
    lambda: random_norm_state(seq(nn.Conv2d(3, 8, 3), nn.GroupNorm(4, 8))),
    batched((3, 9, 9)), batch_sizes=(2, 3))
add("group_norm_1d_noaffine", lambda: seq(nn.GroupNorm(3, 6, affine=False)),
    randn((2, 6, 11)))


@fn_case("group_norm_functional", randn((2, 6, 4, 5), (6,), (6,)))
def _group_norm_functional(x, w, b):
    return F.group_norm(3 * x + 1, 2, w, b, eps=1e-3)


# The InstanceNorm modules stay whole calls (their forward branches on the
# input's rank); compiled alone, they are wrapped.
add("instance_norm2d_affine",
    lambda: random_norm_state(seq(nn.Conv2d(3, 4, 3),
                                  nn.InstanceNorm2d(4, affine=True))),
    batched((3, 8, 8)), batch_sizes=(2, 3))
add("instance_norm1d", lambda: nn.InstanceNorm1d(5), randn((2, 5, 17)))
add("instance_norm3d_running",
    lambda: random_norm_state(seq(nn.InstanceNorm3d(3,
                                                    track_running_stats=True))),
    randn((2, 3, 4, 5, 6)))
add("batch_norm3d", lambda: random_norm_state(seq(nn.BatchNorm3d(3))),
    randn((2, 3, 4, 5, 6)))


@fn_case("instance_norm_functional", randn((2, 3, 6, 7), (3,), (3,)))
def _instance_norm_functional(x, w, b):
    return F.instance_norm(2 * x - 1, weight=w, bias=b, eps=1e-4)

add("layer_norm_last_dim", lambda: random_norm_state(seq(nn.LayerNorm(13))),
    randn((2, 5, 13)))
add("layer_norm_last_two_dims",
    lambda: random_norm_state(seq(nn.LayerNorm((5, 13)))), randn((2, 5, 13)))
add("layer_norm_no_affine",
    lambda: seq(nn.LayerNorm(13, elementwise_affine=False)),
    randn((2, 5, 13)))
add("layer_norm_eps", lambda: random_norm_state(seq(nn.LayerNorm(13,
                                                                 eps=1e-2))),
    lambda: (torch.randn(2, 5, 13) * 0.1,))


@fn_case("layer_norm_functional", randn((2, 5, 13), (13,), (13,)))
def _layer_norm_functional(x, w, b):
    return F.layer_norm(x, (13,), w, b, eps=1e-6)


# Inputs at 100 with unit spread: the one-pass variance E[x^2] - E[x]^2
# cancels catastrophically (errors >= 2.8x the bound below) where a two-pass
# one does not. ulp(100) = 7.6e-6, so any correct float32 mean is off by
# ~1e-5, which shifts every normalised output by that much regardless of
# its size: an absolute error. Measured over 20 seeds, correct orders of
# summation (pairwise, sequential, float64 statistics) stay within 0.23x.
_OFFSET_TOLERANCE = Tolerance(
    rtol=1e-4, atol=1e-4,
    why="the mean of inputs near 100 carries their float32 rounding "
        "(ulp 7.6e-6) into every output as an absolute error")


@fn_case("layer_norm_functional_offset", randn((3, 7, 5)),
         tolerance=_OFFSET_TOLERANCE)
def _layer_norm_functional_offset(x):
    return F.layer_norm(x + 100.0, (7, 5))


SM = randn((3, 5, 7))

for _dim in (-1, 1, 0, -2):
    add(f"softmax_dim{_dim}".replace("-", "neg"),
        lambda _dim=_dim: seq(nn.Softmax(dim=_dim)), SM)
    add(f"log_softmax_dim{_dim}".replace("-", "neg"),
        lambda _dim=_dim: seq(nn.LogSoftmax(dim=_dim)), SM)


@fn_case("softmax_functional", SM)
def _softmax_functional(x):
    return F.softmax(x, dim=-1)


@fn_case("softmax_method", SM)
def _softmax_method(x):
    return x.softmax(1)


@fn_case("softmax_torch", SM)
def _softmax_torch(x):
    return torch.softmax(x, 2)


@fn_case("softmax_large_values", SM)
def _softmax_large_values(x):
    # exp(x) overflows float32 here: the max must be subtracted first.
    return F.softmax(100.0 * x, dim=-1), F.log_softmax(100.0 * x, dim=-1)


@fn_case("log_softmax_functional", SM)
def _log_softmax_functional(x):
    return F.log_softmax(x, dim=1)


@fn_case("log_softmax_method", SM)
def _log_softmax_method(x):
    return x.log_softmax(-1)


R = randn((3, 5, 7))


@fn_case("sum_full", R)
def _sum_full(x):
    return torch.sum(x)


@fn_case("sum_dim", R)
def _sum_dim(x):
    return x.sum(1)


@fn_case("sum_dim_keepdim", R)
def _sum_dim_keepdim(x):
    return torch.sum(x, dim=2, keepdim=True)


@fn_case("sum_negative_dim", R)
def _sum_negative_dim(x):
    return x.sum(dim=-3)


@fn_case("sum_multiple_dims", R)
def _sum_multiple_dims(x):
    return x.sum(dim=(0, 2)), x.sum(dim=[-1, 1], keepdim=True)


@fn_case("sum_int64", randint(-50, 50, (3, 5, 7)))
def _sum_int64(x):
    return x.sum(1), x.sum()


@fn_case("sum_bool", randn((3, 5, 7)))
def _sum_bool(x):
    return (x > 0).sum(dim=-1)


@fn_case("sum_long_row", randn((3, 1000)))
def _sum_long_row(x):
    return x.sum(-1)


@fn_case("mean_full", R)
def _mean_full(x):
    return x.mean()


@fn_case("mean_dim", R)
def _mean_dim(x):
    return torch.mean(x, 1)


@fn_case("mean_dim_keepdim_negative", R)
def _mean_dim_keepdim_negative(x):
    return x.mean(dim=-1, keepdim=True)


@fn_case("mean_multiple_dims", R)
def _mean_multiple_dims(x):
    return torch.mean(x, dim=(-1, -2)), x.mean([0, 1], keepdim=True)


@fn_case("amax_dim", R)
def _amax_dim(x):
    return torch.amax(x, dim=1)


@fn_case("amax_multiple_keepdim", R)
def _amax_multiple_keepdim(x):
    return x.amax(dim=(0, -1), keepdim=True)


@fn_case("amin_dim", R)
def _amin_dim(x):
    return torch.amin(x, -1)


@fn_case("max_full", R)
def _max_full(x):
    return torch.max(x), x.min()


@fn_case("max_dim", R)
def _max_dim(x):
    result = torch.max(x, dim=1)
    return result[0], result[1]


@fn_case("max_dim_keepdim_method", R)
def _max_dim_keepdim_method(x):
    result = x.max(dim=-1, keepdim=True)
    return result.values, result.indices


@fn_case("min_dim", R)
def _min_dim(x):
    return torch.min(x, 0)[0], torch.min(x, 0)[1]


@fn_case("max_dim_int64", randint(-1000, 1000, (3, 5, 7)))
def _max_dim_int64(x):
    return x.max(dim=2)[0], x.amax(0)


@fn_case("argmax_dim", R)
def _argmax_dim(x):
    return torch.argmax(x, dim=2)


@fn_case("argmax_keepdim_negative", R)
def _argmax_keepdim_negative(x):
    return x.argmax(dim=-2, keepdim=True)


@fn_case("argmax_full", R)
def _argmax_full(x):
    return torch.argmax(x)


@fn_case("argmin_dim", R)
def _argmin_dim(x):
    return x.argmin(1)


@fn_case("var_unbiased", R)
def _var_unbiased(x):
    return torch.var(x, dim=1)


@fn_case("var_biased_keepdim", R)
def _var_biased_keepdim(x):
    return x.var(dim=-1, unbiased=False, keepdim=True)


@fn_case("var_full", R)
def _var_full(x):
    return torch.var(x), x.var(unbiased=False)


@fn_case("var_multiple_dims", R)
def _var_multiple_dims(x):
    return torch.var(x, dim=(0, 2))


@fn_case("std_unbiased", R)
def _std_unbiased(x):
    return torch.std(x, dim=2)


@fn_case("std_biased_multiple", R)
def _std_biased_multiple(x):
    return x.std(dim=(1, 2), unbiased=False, keepdim=True)


@fn_case("std_full", R)
def _std_full(x):
    return torch.std(x)


@fn_case("var_offset", R)
def _var_offset(x):
    # A large common offset: the two-pass variance keeps the digits.
    return (x + 1000.0).var(dim=-1)


# =============================================================================
# Shapes, views, concatenation, slicing, embedding, dtype conversions and
# tensor factories.
# =============================================================================

family("shape")

V = randn((3, 5, 7))


@fn_case("view", V)
def _view(x):
    return x.view(15, 7)


@fn_case("view_minus_one", V)
def _view_minus_one(x):
    return x.view(-1, 35) * 2


@fn_case("reshape_minus_one", V)
def _reshape_minus_one(x):
    return torch.reshape(x, (7, -1)), x.reshape(-1)


@fn_case("reshape_split_dim", randn((3, 12)))
def _reshape_split_dim(x):
    return x.reshape(3, 2, 2, 3)


@fn_case("view_size0", V)
def _view_size0(x):
    return x.view(x.size(0), -1)


@fn_case("reshape_shape0", V)
def _reshape_shape0(x):
    return x.reshape(x.shape[0], -1)


@fn_case("view_sizes_arith", V)
def _view_sizes_arith(x):
    return x.view(x.size(0) * x.size(1), x.shape[2])


@fn_case("view_as", randn((3, 5, 7), (15, 7)))
def _view_as(x, y):
    return x.view_as(y) + y


@fn_case("flatten_default", V)
def _flatten_default(x):
    return torch.flatten(x)


@fn_case("flatten_start1", randn((2, 3, 4, 5)))
def _flatten_start1(x):
    return torch.flatten(x, 1)


@fn_case("flatten_start_end", randn((2, 3, 4, 5)))
def _flatten_start_end(x):
    return x.flatten(1, 2), x.flatten(0, -2)


add("flatten_module", lambda: seq(nn.Flatten()), randn((2, 3, 4, 5)))
add("flatten_module_dims", lambda: seq(nn.Flatten(0, 1)), randn((2, 3, 4, 5)))


@fn_case("permute", randn((2, 3, 4, 5)))
def _permute(x):
    return x.permute(0, 2, 3, 1) + 1


@fn_case("permute_torch_negative", randn((2, 3, 4, 5)))
def _permute_torch_negative(x):
    return torch.permute(x, (-1, 0, -2, 1))


# Transposes of the innermost dim large enough for 16 x 16 register
# tiles, with tails along both dims, fused with elementwise ops and an
# input read as is.
@fn_case("permute_tiles_tails", randn((2, 3, 37, 50), (2, 3, 50, 37)))
def _permute_tiles_tails(x, y):
    return torch.relu(x.permute(0, 1, 3, 2) * 2.0 + y)


@fn_case("transpose_tiles", randn((3, 64, 48)))
def _transpose_tiles(x):
    return x.transpose(1, 2).contiguous()


@fn_case("transpose_tiles_outer", randn((32, 5, 16)))
def _transpose_tiles_outer(x):
    return x.permute(2, 1, 0) + 1


@fn_case("transpose", V)
def _transpose(x):
    return x.transpose(0, 2)


@fn_case("transpose_negative", V)
def _transpose_negative(x):
    return torch.transpose(x, -1, -2) * 3


@fn_case("contiguous_after_transpose", V)
def _contiguous_after_transpose(x):
    return x.transpose(1, 2).contiguous().view(3, -1)


@fn_case("squeeze_all", randn((3, 1, 7, 1)))
def _squeeze_all(x):
    return x.squeeze()


@fn_case("squeeze_dim", randn((3, 1, 7, 1)))
def _squeeze_dim(x):
    return torch.squeeze(x, 1), x.squeeze(-1), x.squeeze(0)


@fn_case("unsqueeze", V)
def _unsqueeze(x):
    return x.unsqueeze(0), torch.unsqueeze(x, 2)


@fn_case("unsqueeze_negative", V)
def _unsqueeze_negative(x):
    return x.unsqueeze(-1), x.unsqueeze(-2), x.unsqueeze(-4)


@fn_case("expand", randn((3, 1, 7)))
def _expand(x):
    return x.expand(3, 5, 7)


@fn_case("expand_minus_one_new_dims", randn((3, 1, 7)))
def _expand_minus_one_new_dims(x):
    return x.expand(2, -1, 4, -1) * 1.5


@fn_case("expand_as", randn((1, 7), (5, 7)))
def _expand_as(x, y):
    return x.expand_as(y) - y


@fn_case("cat_dim0", randn((2, 7), (3, 7)))
def _cat_dim0(x, y):
    return torch.cat([x, y])


@fn_case("cat_dim1_three", randn((3, 2), (3, 5), (3, 1)))
def _cat_dim1_three(x, y, z):
    return torch.cat((x, y, z), dim=1)


@fn_case("cat_negative_dim_repeated", randn((2, 3, 4)))
def _cat_negative_dim_repeated(x):
    return torch.cat([x, x * 2, x], dim=-1)


@fn_case("cat_int64", randint(0, 9, (2, 3), (2, 4)))
def _cat_int64(x, y):
    return torch.cat([x, y], 1)


@fn_case("stack_dim0", randn((3, 7), (3, 7)))
def _stack_dim0(x, y):
    return torch.stack([x, y])


@fn_case("stack_negative_dim", randn((3, 7), (3, 7), (3, 7)))
def _stack_negative_dim(x, y, z):
    return torch.stack((x, y, z), dim=-1)


@fn_case("split_int", randn((3, 7, 5)))
def _split_int(x):
    return torch.split(x, 3, dim=1)


@fn_case("split_list", randn((3, 7, 5)))
def _split_list(x):
    parts = x.split([2, 4, 1], dim=1)
    return parts[0] + 1, parts[1], parts[2] * 2


@fn_case("split_negative_dim_getitem", randn((3, 7, 5)))
def _split_negative_dim_getitem(x):
    parts = torch.split(x, 2, -1)
    return parts[0] - parts[1], parts[-1]


@fn_case("chunk", randn((3, 7, 5)))
def _chunk(x):
    return torch.chunk(x, 3, dim=1)


@fn_case("chunk_even_method", randn((3, 8, 5)))
def _chunk_even_method(x):
    halves = x.chunk(2, 1)
    return halves[0] * halves[1]


@fn_case("unbind", randn((3, 7)))
def _unbind(x):
    rows = torch.unbind(x, 0)
    return rows[0] + rows[2]


@fn_case("getitem_slice_range", V)
def _getitem_slice_range(x):
    return x[:, 1:3]


@fn_case("getitem_ellipsis_step", V)
def _getitem_ellipsis_step(x):
    return x[..., ::2]


@fn_case("getitem_int", V)
def _getitem_int(x):
    return x[0], x[-1, 2]


@fn_case("getitem_none", V)
def _getitem_none(x):
    return x[:, None], x[None, ..., None]


@fn_case("getitem_negative_index", V)
def _getitem_negative_index(x):
    return x[:, -1]


@fn_case("getitem_mixed", randn((7, 13)))
def _getitem_mixed(x):
    return x[1:-1, ::3], x[-3:, 2:11:4], x[::2, -1]


@fn_case("getitem_size_bound", V)
def _getitem_size_bound(x):
    return x[:, : x.size(1) - 1]


@fn_case("narrow", V)
def _narrow(x):
    return torch.narrow(x, 1, 1, 3)


@fn_case("narrow_negative_dim", V)
def _narrow_negative_dim(x):
    return x.narrow(-1, 2, 4)


# Constant padding: F.pad (value None and a value, on the last 1 and 3
# dims) and the padding modules.
@fn_case("pad_last_dim", randn((2, 3, 5)))
def _pad_last_dim(x):
    return F.pad(torch.relu(x), (1, 2))


@fn_case("pad_three_dims_value", randn((2, 3, 4, 5)))
def _pad_three_dims_value(x):
    return F.pad(x, (0, 1, 2, 0, 1, 1), value=-0.5) * 2


add("zero_pad2d", lambda: seq(nn.ZeroPad2d((1, 0, 2, 1)), nn.Conv2d(3, 4, 3)),
    randn((2, 3, 6, 6)))
add("constant_pad1d", lambda: seq(nn.ConstantPad1d(2, 1.5)), randn((2, 3, 4)))
add("constant_pad3d",
    lambda: seq(nn.ConstantPad3d((1, 0, 0, 2, 1, 1), 0.25)),
    randn((1, 2, 2, 3, 4)))


add("embedding", lambda: seq(nn.Embedding(20, 8)),
    randint(0, 20, (3, 5)))
add("embedding_padding_idx", lambda: seq(nn.Embedding(20, 8, padding_idx=0)),
    randint(0, 4, (3, 5)))


@fn_case("embedding_functional", concat(randint(0, 11, (2, 3, 4)),
                                        randn((11, 6))))
def _embedding_functional(idx, w):
    return F.embedding(idx, w)


add("dropout_module", lambda: seq(nn.Dropout(0.5)), V)
add("dropout_identity_modules", lambda: seq(nn.Identity(), nn.Dropout(0.2),
                                            nn.Dropout2d(0.3), nn.Identity()),
    randn((2, 3, 5, 7)))


@fn_case("dropout_functional", V)
def _dropout_functional(x):
    return F.dropout(x, p=0.5, training=False) + 1


@fn_case("to_float_from_int", randint(-50, 50, (3, 7)))
def _to_float_from_int(x):
    return x.float() / 3


@fn_case("to_float64", V)
def _to_float64(x):
    return x.to(torch.float64) * 3


@fn_case("to_float32_from_f64", randn((3, 7), dtype=torch.float64))
def _to_float32_from_f64(x):
    return x.float(), x.to(dtype=torch.float32) + 1


@fn_case("to_int64_from_float", lambda: (10 * torch.randn(3, 7),))
def _to_int64_from_float(x):
    return x.to(torch.int64), x.long() + 1


@fn_case("int32_to_int64", randint(-50, 50, (3, 7), dtype=torch.int32))
def _int32_to_int64(x):
    return x.to(torch.int64) * 2


@fn_case("bool_to_float", XY37)
def _bool_to_float(x, y):
    return (x > y).float() * x, (x > 0).to(torch.float32)


@fn_case("bool_to_int64", V)
def _bool_to_int64(x):
    return (x > 0).long(), (x < 0).to(torch.int64).sum(-1)


@fn_case("type_as", concat(randint(-5, 5, (3, 7)), randn((3, 7))))
def _type_as(i, x):
    return i.type_as(x) + x


@fn_case("double_method", V)
def _double_method(x):
    return x.double().sum(1)


@fn_case("zeros_constant", X37)
def _zeros_constant(x):
    return x + torch.zeros(3, 7)


@fn_case("ones_constant", X37)
def _ones_constant(x):
    return x * torch.ones(7) + torch.ones((3, 1))


@fn_case("full_constant", X37)
def _full_constant(x):
    return x + torch.full((3, 7), 2.5)


@fn_case("arange_constant", X37)
def _arange_constant(x):
    return x + torch.arange(7)


@fn_case("arange_start_step_float", randn((3, 8)))
def _arange_start_step_float(x):
    return x * torch.arange(0, 1, 0.125) + torch.arange(1, 9, 1,
                                                        dtype=torch.float32)


@fn_case("arange_int64_output", randint(0, 10, (3, 7)))
def _arange_int64_output(i):
    return i * torch.arange(7)


@fn_case("zeros_like", X37)
def _zeros_like(x):
    return torch.zeros_like(x) + x * 2


@fn_case("ones_like", X37)
def _ones_like(x):
    return torch.ones_like(x) - x


@fn_case("full_like", X37)
def _full_like(x):
    return torch.full_like(x, -1.5) * x


@fn_case("like_dtype", X37)
def _like_dtype(x):
    return torch.zeros_like(x, dtype=torch.int64), torch.ones_like(
        x, dtype=torch.float64)


@fn_case("new_zeros_ones", X37)
def _new_zeros_ones(x):
    return x.new_zeros(x.shape) + x, x.new_ones((2, x.size(1)))


class RelativePositionBias(nn.Module):
    """Swin's and MaxViT's relative position bias: a learned table indexed
    by a buffer of int indices (advanced indexing), added to scores."""

    def __init__(self, window=3, heads=2):
        super().__init__()
        self.table = nn.Parameter(torch.randn((2 * window - 1) ** 2, heads))
        coords = torch.stack(torch.meshgrid(
            torch.arange(window), torch.arange(window), indexing="ij"))
        coords = coords.flatten(1)
        rel = (coords[:, :, None] - coords[:, None, :]).permute(1, 2, 0)
        rel = rel + (window - 1)
        self.register_buffer("index",
                             rel[..., 0] * (2 * window - 1) + rel[..., 1])

    def forward(self, scores, columns):
        bias = self.table[self.index].permute(2, 0, 1)
        # Negative indices count from the end, as in PyTorch.
        return (scores + bias, scores[:, :, columns - 9],
                torch.index_select(scores, 3, columns[0]))


add("gather_relative_position_bias", RelativePositionBias,
    concat(randn((4, 2, 9, 9)), randint(0, 9, (2, 5))))


# =============================================================================
# Attention: nn.MultiheadAttention and a transformer encoder block.
# =============================================================================

family("attention")


class SelfAttention(nn.Module):
    """nn.MultiheadAttention on one sequence; output [0] only."""

    def __init__(self, batch_first, need_weights, embed=32, heads=4):
        super().__init__()
        self.attn = nn.MultiheadAttention(embed, heads,
                                          batch_first=batch_first)
        self.need_weights = need_weights

    def forward(self, x):
        return self.attn(x, x, x, need_weights=self.need_weights)[0]


class CrossAttention(nn.Module):
    """Queries attend to a sequence of another length, kdim/vdim differing
    from the embedding size."""

    def __init__(self):
        super().__init__()
        self.attn = nn.MultiheadAttention(16, 2, kdim=12, vdim=10,
                                          batch_first=True)

    def forward(self, q, k, v):
        return self.attn(q, k, v, need_weights=False)[0]


class CausalAttention(nn.Module):
    """Self-attention with a constant causal mask and no bias."""

    def __init__(self, seq=7):
        super().__init__()
        self.attn = nn.MultiheadAttention(32, 4, bias=False, batch_first=True)
        self.register_buffer(
            "mask", torch.triu(torch.ones(seq, seq, dtype=torch.bool), 1))

    def forward(self, x):
        return self.attn(x, x, x, attn_mask=self.mask, need_weights=False)[0]


class EncoderBlock(nn.Module):
    """A post-norm transformer encoder block: multi-head self-attention and
    a GELU feed-forward network, each with dropout, a residual and a
    LayerNorm."""

    def __init__(self, d_model=32, nhead=4, ffn=64, p=0.1):
        super().__init__()
        self.attn = nn.MultiheadAttention(d_model, nhead, dropout=p,
                                          batch_first=True)
        self.norm1 = nn.LayerNorm(d_model)
        self.ffn = nn.Sequential(nn.Linear(d_model, ffn), nn.GELU(),
                                 nn.Dropout(p), nn.Linear(ffn, d_model))
        self.norm2 = nn.LayerNorm(d_model)
        self.dropout = nn.Dropout(p)

    def forward(self, x):
        x = self.norm1(x + self.dropout(self.attn(x, x, x,
                                                  need_weights=False)[0]))
        return self.norm2(x + self.dropout(self.ffn(x)))


class PreNormBlock(nn.Module):
    """A pre-norm block with the attention written out: q/k/v projections,
    head split by view/transpose, scaled matmul, softmax."""

    def __init__(self, d_model=32, nhead=4, ffn=64):
        super().__init__()
        self.d_model, self.nhead = d_model, nhead
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.fc1 = nn.Linear(d_model, ffn)
        self.fc2 = nn.Linear(ffn, d_model)

    def forward(self, x):
        b, s, d = x.size(0), x.size(1), self.d_model
        head = d // self.nhead
        qkv = self.qkv(self.norm1(x)).chunk(3, dim=-1)
        q = qkv[0].view(b, s, self.nhead, head).transpose(1, 2)
        k = qkv[1].view(b, s, self.nhead, head).transpose(1, 2)
        v = qkv[2].view(b, s, self.nhead, head).transpose(1, 2)
        scores = q @ k.transpose(-2, -1) / math.sqrt(head)
        attn = torch.softmax(scores, dim=-1) @ v
        x = x + self.proj(attn.transpose(1, 2).reshape(b, s, d))
        return x + self.fc2(F.gelu(self.fc1(self.norm2(x))))


add("mha_batch_first_no_weights", lambda: SelfAttention(True, False),
    randn((2, 7, 32)))
add("mha_batch_first_weights", lambda: SelfAttention(True, True),
    randn((2, 7, 32)))
add("mha_seq_first_no_weights", lambda: SelfAttention(False, False),
    randn((7, 2, 32)))
add("mha_seq_first_weights", lambda: SelfAttention(False, True),
    randn((7, 2, 32)))
add("mha_cross_kdim_vdim", CrossAttention,
    randn((2, 5, 16), (2, 9, 12), (2, 9, 10)))
add("mha_causal_mask", CausalAttention, randn((2, 7, 32)))
add("encoder_block", lambda: random_norm_state(EncoderBlock()),
    randn((2, 7, 32)))
add("prenorm_block_manual_attention",
    lambda: random_norm_state(PreNormBlock()), randn((2, 7, 32)))


# =============================================================================
# GraphModules given to compile directly.
# =============================================================================

family("graph_module")


def _traced_linear_relu():
    return torch.fx.symbolic_trace(seq(nn.Linear(13, 7), nn.ReLU()))


def _hand_built_graph():
    """A GraphModule built node by node: placeholder, call_function,
    call_method, get_attr and output."""
    root = nn.Module()
    root.register_buffer("scale", torch.randn(7))
    graph = torch.fx.Graph()
    x = graph.placeholder("x")
    y = graph.placeholder("y")
    scale = graph.get_attr("scale")
    added = graph.call_function(torch.add, (x, y), {"alpha": 2.0})
    relu = graph.call_method("relu", (added,))
    scaled = graph.call_function(torch.mul, (relu, scale))
    graph.output((scaled, graph.call_method("sum", (scaled,), {"dim": -1})))
    return torch.fx.GraphModule(root, graph)


add("traced_linear_relu", _traced_linear_relu, randn((5, 13)))
add("hand_built_graph", _hand_built_graph, randn((3, 7), (3, 7)))


# =============================================================================
# Dynamic batch: dim 0 of every input varies between runs.
# =============================================================================

family("dynamic")

BATCHES = (4, 7, 1)


def dyn(name, model, inputs):
    """Registers a dynamic-batch case compiled at batch 4, run at 4, 7, 1."""
    add(name, model, inputs, batch_sizes=BATCHES)


def _dyn_elementwise(x, y):
    return torch.relu(x * y + 1) - torch.sigmoid(x)


def _dyn_softmax(x):
    return F.softmax(x, -1), F.log_softmax(x, 1)


def _dyn_reduce_over_batch(x):
    return x.sum(0), x.mean(), x.amax(dim=(0, 2)), x.argmax(0)


def _dyn_reduce_inner(x):
    return x.sum(-1), x.mean(1, keepdim=True), x.var(dim=2), x.argmax(-1)


def _dyn_cat_split_transpose(x, y):
    z = torch.cat([x, y], dim=1)
    parts = z.split([4, 1], dim=1)
    return parts[0].transpose(0, 1), parts[1].squeeze(1) * 2


def _dyn_matmul_weight(x):
    return x @ torch.ones(13, 4) + x[:, :, :4]


def _dyn_strided_batch(x):
    # Rows that change with the batch only now and then: x[::3] has 2 rows
    # at the compiled batch of 4 and at 5, 3 at 7.
    return x[::3] * 2, x[1::2].sum(0), x[2::3].amax(-1)


dyn("strided_batch_slices", lambda: lam(_dyn_strided_batch), batched((5,)))


class _DynIndexFill(nn.Module):
    """index_fill and `y[index] = v` along the batch, whose positions are
    counted at run time (negative indices from the batch's end)."""

    def __init__(self):
        super().__init__()
        self.register_buffer("rows", torch.tensor([0, -1]))

    def forward(self, x):
        y = x * 1
        y[self.rows] = 0.0
        return y, x.index_fill(0, self.rows, 2.0)


dyn("index_fill_batch", _DynIndexFill, batched((5,)))
dyn("elementwise_broadcast", lambda: lam(_dyn_elementwise),
    batched((5, 7), (1, 7)))
dyn("linear_relu", lambda: seq(nn.Linear(13, 7), nn.ReLU()), batched((13,)))
dyn("linear_3d", lambda: seq(nn.Linear(13, 7)), batched((5, 13)))
dyn("conv_bn_relu", lambda: random_norm_state(seq(
    nn.Conv2d(3, 6, 3, stride=2, padding=1), nn.BatchNorm2d(6), nn.ReLU())),
    batched((3, 13, 11)))
dyn("max_pool_avg_pool", lambda: seq(nn.MaxPool2d(3, 2, 1),
                                     nn.AvgPool2d(2, ceil_mode=True)),
    batched((3, 13, 11)))
dyn("adaptive_pool_flatten", lambda: seq(nn.AdaptiveAvgPool2d((2, 3)),
                                         nn.Flatten()),
    batched((3, 13, 11)))
dyn("view_size0", lambda: lam(_view_size0), batched((5, 7)))
dyn("reshape_shape0", lambda: lam(_reshape_shape0), batched((5, 7)))
dyn("view_sizes_arith", lambda: lam(_view_sizes_arith), batched((5, 7)))
dyn("softmax_log_softmax", lambda: lam(_dyn_softmax), batched((5, 7)))
dyn("layer_norm", lambda: random_norm_state(seq(nn.LayerNorm(13))),
    batched((5, 13)))
dyn("batch_norm1d", lambda: random_norm_state(seq(nn.BatchNorm1d(13))),
    batched((13,)))
dyn("reduce_over_batch", lambda: lam(_dyn_reduce_over_batch),
    batched((5, 7)))
dyn("reduce_inner", lambda: lam(_dyn_reduce_inner), batched((5, 7)))
dyn("cat_split_transpose", lambda: lam(_dyn_cat_split_transpose),
    batched((3, 7), (2, 7)))
dyn("matmul_batched", lambda: lam(_matmul), batched((5, 13), (13, 7)))
dyn("matmul_weight", lambda: lam(_dyn_matmul_weight), batched((5, 13)))
dyn("embedding", lambda: seq(nn.Embedding(20, 8)),
    lambda n: (torch.randint(0, 20, (n, 5)),))
dyn("int64_and_compare", lambda: lam(_int64_compare),
    lambda n: (torch.randint(-5, 5, (n, 7)), torch.randint(-5, 5, (n, 7))))
dyn("mha_seq_first", lambda: SelfAttention(False, False), batched((2, 32)))


# =============================================================================
# Models, static and dynamic batch. Model cases never loosen the tolerance.
# =============================================================================

family("models")


def mlp():
    return nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.ReLU(),
                         nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 10))


class LeNet(nn.Module):
    """LeNet-5 on 1x28x28 images."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5, padding=2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


def resnet18():
    return random_norm_state(torchvision.models.resnet18())


def mobilenet_v2():
    return random_norm_state(torchvision.models.mobilenet_v2())


def encoder_block():
    return random_norm_state(EncoderBlock())


def vit_tiny():
    """torchvision's VisionTransformer, small: its torch._assert checks of
    the input's rank and size, the class token expanded to the batch, and
    nn.MultiheadAttention. The head and the class token start at zero in
    torchvision; random values make the output depend on every layer."""
    model = torchvision.models.VisionTransformer(
        image_size=32, patch_size=8, num_layers=2, num_heads=2,
        hidden_dim=32, mlp_dim=64, num_classes=10)
    with torch.no_grad():
        for p in model.heads.parameters():
            p.normal_(0, 0.2)
        model.class_token.normal_()
    return model


def swin_tiny():
    """torchvision's SwinTransformer, small: its attention and patch
    merging are functions torch.fx.wrap keeps as calls
    (shifted_window_attention reads its input's sizes to pad, roll and
    mask windows), which compile traces into with the example's sizes."""
    return random_norm_state(torchvision.models.SwinTransformer(
        patch_size=[4, 4], embed_dim=16, depths=[2, 2], num_heads=[2, 4],
        window_size=[4, 4], num_classes=10))


def r2plus1d_18():
    """torchvision's video ResNet with (2+1)-D convs: (1, 3, 3) and
    (3, 1, 1) Conv3d, BatchNorm3d, AdaptiveAvgPool3d."""
    return random_norm_state(torchvision.models.video.r2plus1d_18())


_MODELS = [
    ("mlp", mlp, (1, 28, 28)),
    ("lenet", LeNet, (1, 28, 28)),
    ("resnet18", resnet18, (3, 64, 64)),
    ("mobilenet_v2", mobilenet_v2, (3, 64, 64)),
    ("transformer_block", encoder_block, (7, 32)),
    ("vit_tiny", vit_tiny, (3, 32, 32)),
    ("r2plus1d_18", r2plus1d_18, (3, 4, 32, 32)),
]

for _name, _model, _shape in _MODELS:
    add(_name, _model, randn((1, *_shape)))
for _name, _model, _shape in _MODELS:
    add(f"{_name}_dynamic", _model, batched(_shape), batch_sizes=(2, 3))
# Static shapes only: with a dynamic batch the wrapped functions' control
# flow on sizes does not trace.
add("swin_tiny", swin_tiny, randn((1, 3, 32, 32)))


# --- Empty tensors, 0-d constants, complex data movement (issue 26). -------
# Each of these once took the process down.

@fn_case("relu_empty", randn((3, 0)))
def _relu_empty(x):
    return torch.relu(x)


@fn_case("matmul_k0", randn((3, 0), (0, 4)))
def _matmul_k0(a, b):
    return a @ b


@fn_case("matmul_m0", randn((0, 5), (5, 4)))
def _matmul_m0(a, b):
    return a @ b


@fn_case("add_empty_broadcast", randn((2, 0, 3), (3,)))
def _add_empty_broadcast(x, y):
    return x + y


@fn_case("scalar_tensor_constant", randn((3, 4)))
def _scalar_tensor_constant(x):
    return x * torch.scalar_tensor(2.0) + torch.tensor(1.5)


@fn_case("cat_complex", randn((3,), (2,), dtype=torch.complex64))
def _cat_complex(x, y):
    return torch.cat([x, y])


# --- Bool semantics (issue 31): False < True, True + True is True, ints
# compared in int64. Every comparison, min/max reduction, sort and clamp on
# bool tensors.

def bools(*shapes):
    return lambda: tuple(torch.rand(s) > 0.5 for s in shapes)


for _name, _fn, _inputs in [
        ("bool_gt_true", lambda x: x > True, bools((4, 5))),
        ("bool_eq_2", lambda x: x == 2, bools((4, 5))),
        ("bool_eq_1", lambda x: x == 1, bools((4, 5))),
        ("bool_ne_0", lambda x: x != 0, bools((4, 5))),
        ("bool_lt", lambda x, y: x < y, bools((4, 5), (4, 5))),
        ("bool_le", lambda x, y: x <= y, bools((4, 5), (4, 5))),
        ("bool_gt", lambda x, y: x > y, bools((4, 5), (4, 5))),
        ("bool_ge", lambda x, y: x >= y, bools((4, 5), (4, 5))),
        ("bool_add", lambda x, y: x + y, bools((4, 5), (4, 5))),
        ("bool_add_int", lambda x: x + 2, bools((4, 5))),
        ("bool_min", lambda x: x.min(), bools((4, 5))),
        ("bool_max", lambda x: x.max(), bools((4, 5))),
        ("bool_max_dim", lambda x: x.max(dim=1), bools((4, 5))),
        ("bool_min_dim", lambda x: x.min(dim=0), bools((4, 5))),
        ("bool_amax", lambda x: torch.amax(x, 1), bools((4, 5))),
        ("bool_amin", lambda x: torch.amin(x, 0), bools((4, 5))),
        ("bool_maximum", lambda x, y: torch.maximum(x, y),
         bools((4, 5), (4, 5))),
        ("bool_minimum", lambda x, y: torch.minimum(x, y),
         bools((4, 5), (4, 5))),
        ("bool_sort", lambda x: torch.sort(x, dim=1), bools((4, 5))),
        ("bool_sort_descending",
         lambda x: torch.sort(x, dim=1, descending=True).values,
         bools((4, 5))),
        ("bool_sum_as_bool", lambda x: torch.sum(x, 1, dtype=torch.bool),
         bools((4, 5))),
        ("bool_any_all", lambda x: (x.any(1), x.all(0)), bools((4, 5))),
        ("floor_divide_inf",
         lambda x: torch.floor_divide(x, float("inf")), randn((4, 5))),
        ("floor_divide_float", lambda x, y: torch.floor_divide(x, y),
         randn((4, 5), (4, 5))),
        ("div_floor_mode", lambda x, y: torch.div(x, y, rounding_mode="floor"),
         randn((4, 5), (4, 5)))]:
    add(_name, lambda _fn=_fn: lam(_fn), _inputs)


# Issue 31's smaller wrong results and internal errors.
for _name, _fn, _inputs in [
        ("var_empty_correction", lambda x: torch.var(x, dim=1, correction=1),
         randn((3, 0))),
        ("std_mean_empty", lambda x: torch.std_mean(x, dim=1), randn((3, 0))),
        ("pow_int_tensor_exponent", lambda x, y: torch.pow(x, y),
         lambda: (torch.randint(-3, 4, (4, 5)), torch.randint(-2, 6, (4, 5)))),
        ("pow_int_scalar_base", lambda y: torch.pow(3, y),
         lambda: (torch.randint(0, 8, (4, 5)),)),
        ("view_0d", lambda x: x.view(1) + x.reshape(1, 1), randn(())),
        ("cosine_similarity_eps_f64",
         lambda a, b: torch.nn.functional.cosine_similarity(a, b, eps=1.0),
         lambda: (torch.randn(4, 3, dtype=torch.float64) * 0.1,
                  torch.randn(4, 3, dtype=torch.float64) * 0.1))]:
    add(_name, lambda _fn=_fn: lam(_fn), _inputs)


family("ops")

# --- More elementwise math (issue 27.2), at the values where the
# definitions differ: zeros of both signs, infinities, NaN, negative
# dividends.

def special_values(*shapes):
    """randn tensors with -0.0, 0.0, +-inf and NaN among their elements."""
    def make():
        out = []
        for s in shapes:
            x = torch.randn(s) * 3
            flat = x.view(-1)
            flat[:6] = torch.tensor([0.0, -0.0, float("inf"), float("-inf"),
                                     float("nan"), 1.0])
            out.append(x)
        return tuple(out)
    return make


for _name, _fn, _inputs in [
        ("hyperbolic_and_inverse", lambda x, y: (
            torch.sinh(x), torch.cosh(x), torch.asinh(x), torch.acosh(y + 1),
            torch.atanh(torch.tanh(x)), torch.asin(torch.sin(x)),
            torch.arccos(torch.cos(x))),
         randn((4, 7), (4, 7))),
        ("erfc_log10_frac_sinc", lambda x, y: (
            torch.erfc(x), torch.log10(y.abs() + 0.5), torch.frac(x),
            torch.sinc(x), torch.deg2rad(x), torch.rad2deg(x)),
         randn((4, 7), (4, 7))),
        ("sinc_at_zero", lambda x: torch.sinc(x * 0), randn((3, 5))),
        ("signbit_special", lambda x: (torch.signbit(x), x.signbit()),
         special_values((4, 7))),
        ("signbit_int", lambda x: torch.signbit(x), randint(-5, 5, (4, 7))),
        ("trunc_fix", lambda x: (torch.trunc(x), torch.fix(x * 3), x.trunc()),
         special_values((4, 7))),
        ("nan_to_num_defaults", lambda x: torch.nan_to_num(x),
         special_values((4, 7))),
        ("nan_to_num_given", lambda x: x.nan_to_num(1.5, 100.0, -100.0),
         special_values((4, 7))),
        ("heaviside", lambda x, v: (torch.heaviside(x, v),
                                    torch.heaviside(torch.round(x), v)),
         special_values((4, 7), (4, 7))),
        ("fmod_float", lambda x, y: (torch.fmod(x, y), torch.fmod(x, 1.5),
                                      x.fmod(-2.0)),
         nonzero((4, 7), (4, 7))),
        ("fmod_int", lambda x, y: torch.fmod(x, y),
         concat(randint(-20, 20, (4, 7)), int_divisors((4, 7)))),
        ("logaddexp", lambda x, y: (torch.logaddexp(x, y),
                                    torch.logaddexp2(x, y)),
         special_values((4, 7), (4, 7))),
        ("logaddexp_same_infinity", lambda x: (
            torch.logaddexp(x, x), torch.logaddexp2(x, x)),
         special_values((4, 7))),
        ("xlogy", lambda x, y: (torch.xlogy(x, y.abs()),
                                torch.xlogy(x * 0, y.abs()),
                                torch.special.xlogy(2.0, y.abs())),
         special_values((4, 7), (4, 7))),
        ("copysign", lambda x, y: (torch.copysign(x, y),
                                   torch.copysign(x, -1.0)),
         special_values((4, 7), (4, 7))),
        ("float_power", lambda x, y: (torch.float_power(x.abs(), y),
                                      torch.float_power(x, 2)),
         randn((4, 7), (4, 7))),
        ("positive", lambda x: torch.positive(x) * 2, randn((4, 7))),
        ("nansum_count_nonzero", lambda x: (
            torch.nansum(x), x.nansum(1, keepdim=True), torch.nansum(x, (0, 1)),
            torch.count_nonzero(x), x.count_nonzero(0),
            torch.count_nonzero(x.round(), (0, 1))),
         special_values((4, 7))),
        ("broadcast_to", lambda x: (torch.broadcast_to(x, (3, 4, 7)) + 1,
                                    x.broadcast_to((2, 4, 7)) * 2),
         randn((4, 1)))]:
    add(_name, lambda _fn=_fn: lam(_fn), _inputs)


# --- gather and the scatters (issue 27.2): duplicate indices accumulate (or
# the last write wins) in ATen's CPU order; the inputs stay unchanged.

def gather_inputs(dim_size, *index_shape):
    def make():
        x = torch.randn(4, 5, 6)
        index = torch.randint(0, dim_size, index_shape)
        return x, index
    return make


def scatter_inputs():
    x = torch.randn(6, 5)
    index = torch.randint(0, 6, (4, 5))  # duplicates along dim 0
    src = torch.randn(4, 5)
    return x, index, src


for _name, _fn, _inputs in [
        ("gather_dim1", lambda x, i: torch.gather(x, 1, i),
         gather_inputs(5, 4, 3, 6)),
        ("gather_last_dim_method", lambda x, i: x.gather(-1, i),
         gather_inputs(6, 2, 5, 4)),
        ("take_along_dim_like_gather", lambda x, i: torch.gather(
            x, 0, i.clamp(max=3)), gather_inputs(4, 3, 5, 6)),
        ("scatter_src", lambda x, i, s: torch.scatter(x, 0, i, s),
         scatter_inputs),
        ("scatter_value_method", lambda x, i, s: x.scatter(0, i, 2.5) + s.sum(),
         scatter_inputs),
        ("scatter_add_duplicates", lambda x, i, s: torch.scatter_add(x, 0, i, s),
         scatter_inputs),
        ("scatter_add_dim1", lambda x, i, s: x.scatter_add(
            1, i % 5, s), scatter_inputs),
        ("index_add_alpha", lambda x, i, s: torch.index_add(
            x, 0, i[:, 0], s, alpha=-1.5), scatter_inputs),
        ("index_add_dim1", lambda x, i, s: x.index_add(
            1, i[0, :4] % 5, s.repeat(2, 1)[:6, :4]), scatter_inputs),
        ("scatter_add_int", lambda x, i: torch.scatter_add(
            x, 1, i % 4, x[:, :3] * 2), concat(randint(-9, 9, (5, 4)),
                                              randint(0, 4, (5, 3))))]:
    add(_name, lambda _fn=_fn: lam(_fn), _inputs)


# Edge shapes that reached internal verifier messages (issue 31.6, found by
# the OpInfo suite): results of no elements, a 0-d tensor reduced along
# dim 0, unbatched convolutions, negative padding.
for _name, _fn, _inputs in [
        ("pad_empty_batch", lambda x: F.pad(x, (1, 2), value=1.0),
         randn((0, 3, 3))),
        ("glu_empty_batch", lambda x: F.glu(x, 1) , randn((0, 2, 4))),
        ("avg_pool1d_empty_batch", lambda x: F.avg_pool1d(
            x, 6, stride=3, padding=2), randn((0, 3, 9))),
        ("unbind_empty", lambda x: torch.unbind(x, 0)[2] + 1,
         randn((5, 0, 5))),
        ("split_with_sizes_zero_piece", lambda x: [
            p * 2 for p in torch.split(x, [1, 4, 0])], randn((5, 5, 5))),
        ("argmax_0d_dim", lambda x: torch.argmax(x, dim=0, keepdim=True),
         randn(())),
        ("argmin_0d_dim", lambda x: torch.argmin(x, dim=-1), randn(())),
        ("max_dim_0d", lambda x: torch.max(x, 0), randn(())),
        ("pad_negative_crops", lambda x: F.pad(x, (-1, 2, 1, -2), value=0.5),
         randn((2, 3, 5, 6))),
        ("pad_reflect_negative", lambda x: F.pad(x, (3, -2, -1, 2),
                                                 mode="reflect"),
         randn((2, 3, 5, 6))),
        ("pad_replicate_negative", lambda x: F.pad(x, (-3, 2), mode="replicate"),
         randn((2, 3, 7))),
        ("conv1d_unbatched", lambda x, w, b: F.conv1d(x, w, b, padding=1),
         randn((3, 10), (4, 3, 3), (4,))),
        ("conv2d_unbatched", lambda x, w: F.conv2d(x, w, stride=2),
         randn((3, 9, 9), (5, 3, 3, 3))),
        ("conv_transpose1d_unbatched", lambda x, w, b: F.conv_transpose1d(
            x, w, b, stride=2, padding=1, output_padding=1),
         randn((3, 4), (3, 2, 3), (2,))),
        ("conv_transpose2d_unbatched", lambda x, w: F.conv_transpose2d(
            x, w, stride=(3, 2), padding=(1, 2), output_padding=(2, 1),
            groups=2, dilation=(2, 2)),
         randn((4, 4, 5), (4, 3, 4, 5)))]:
    add(_name, lambda _fn=_fn: lam(_fn), _inputs)

# Issue 27.2: tile, rot90, diff, trace, cumprod.
for _name, _fn, _inputs in [
        ("tile_fewer_dims", lambda x: torch.tile(x, (2,)), randn((2, 3))),
        ("tile_more_dims_method", lambda x: x.tile(2, 1, 3), randn((2, 3))),
        ("rot90_once", lambda x: torch.rot90(x), randn((2, 3, 4))),
        ("rot90_k_dims", lambda x: torch.rot90(x, 3, [1, 2]),
         randn((2, 3, 4))),
        ("rot90_twice_negative", lambda x: x.rot90(-2, (-1, 0)),
         randn((3, 5))),
        ("rot90_zero", lambda x: torch.rot90(x, 4) * 2, randn((3, 5))),
        ("diff_default", lambda x: torch.diff(x), randn((3, 6))),
        ("diff_n2_dim0_prepend_append", lambda x, p, a: torch.diff(
            x, n=2, dim=0, prepend=p, append=a),
         randn((4, 3), (1, 3), (2, 3))),
        ("diff_int", lambda x: x.diff(dim=1), randint(-50, 50, (3, 5))),
        ("diff_bool", lambda x: torch.diff(x > 0), randn((4, 7))),
        ("trace_float", lambda x: torch.trace(x), randn((4, 6))),
        ("trace_int_method", lambda x: x.trace(), randint(-9, 9, (5, 3))),
        ("cumprod_dim1", lambda x: torch.cumprod(x, 1),
         uniform(0.5, 1.5, (3, 7))),
        ("cumprod_method_dtype", lambda x: x.cumprod(0, dtype=torch.float64),
         uniform(-2, 2, (5, 2))),
        ("cumprod_int", lambda x: torch.cumprod(x, -1),
         randint(-3, 3, (2, 6))),
        ("logcumsumexp_dim1", lambda x: torch.logcumsumexp(x * 30, 1),
         randn((3, 9))),
        # -inf items (masked log-probabilities) and a leading +inf.
        ("logcumsumexp_method_infinities", lambda x: x.masked_fill(
            x < -0.5, float("-inf")).logcumsumexp(0), randn((7, 3))),
        # Ties (rounded values: the later index), NaNs (they stay).
        ("cummax_ties", lambda x: torch.cummax(x.round(), 1),
         randn((3, 8))),
        ("cummax_nan_method", lambda x: x.masked_fill(
            x > 1.2, float("nan")).cummax(0), randn((9, 3))),
        ("cummin_int", lambda x: torch.cummin(x, -1),
         randint(-3, 3, (2, 7))),
        ("cummin_values_only", lambda x: x.cummin(1).values * 2,
         randn((4, 5))),
        ("logcumsumexp_inf", lambda x: torch.logcumsumexp(torch.cat(
            [torch.full((2, 1), float("inf")), x], 1), 1), randn((2, 4)))]:
    add(_name, lambda _fn=_fn: lam(_fn), _inputs)

# Issue 27.2: nanmean, dist, linalg.vecdot, isclose, searchsorted, bucketize.
def _with_nans(*shapes):
    def make():
        tensors = randn(*shapes)()
        for t in tensors:
            t.view(-1)[::3] = float("nan")
        return tensors
    return make


def _sorted_and_values():
    seq = torch.sort(torch.randn(3, 9), dim=-1).values
    values = torch.cat([torch.randn(3, 5), seq[:, 2:4]], dim=1)
    return seq, values


for _name, _fn, _inputs in [
        ("nanmean_dim", lambda x: torch.nanmean(x, dim=1), _with_nans((4, 6))),
        ("nanmean_all_nan_row", lambda x: x.nanmean(dim=0, keepdim=True),
         lambda: (torch.tensor([[float("nan"), 1.0], [float("nan"), 3.0]]),)),
        ("dist_p2", lambda x, y: torch.dist(x, y), randn((3, 4), (4,))),
        ("dist_p1_inf", lambda x, y: torch.dist(x, y, 1) + x.dist(
            y, float("inf")), randn((5, 2), (5, 2))),
        ("vecdot_dim0", lambda x, y: torch.linalg.vecdot(x, y, dim=0),
         randn((4, 3), (4, 1))),
        ("isclose_special", lambda x, y: torch.isclose(x, y, rtol=1e-2),
         lambda: (torch.tensor([1.0, float("inf"), float("nan"), 2.0, 0.0]),
                  torch.tensor([1.005, float("inf"), float("nan"), 2.1,
                                1e-9]))),
        ("isclose_equal_nan_method", lambda x, y: x.isclose(
            y, atol=0.5, equal_nan=True), _with_nans((3, 4), (3, 4))),
        ("searchsorted_rows_right", lambda s, v: torch.searchsorted(
            s, v, right=True), _sorted_and_values),
        ("searchsorted_1d_side_int32", lambda s, v: torch.searchsorted(
            s[0], v, side="left", out_int32=True), _sorted_and_values),
        ("searchsorted_sorter", lambda s, v: torch.searchsorted(
            s[0].flip(0), v, sorter=torch.arange(8, -1, -1)),
         _sorted_and_values),
        # Each row in its own order (argsort of a shuffled sequence).
        ("searchsorted_rows_sorter", lambda s, v: torch.searchsorted(
            s.flip(1), v, sorter=s.flip(1).argsort(1), side="right"),
         _sorted_and_values),
        ("bucketize", lambda s, v: torch.bucketize(v, s[1]) * 10 +
         torch.bucketize(v, s[1], right=True), _sorted_and_values)]:
    add(_name, lambda _fn=_fn: lam(_fn), _inputs)

# max_unpool2d/3d as aten-level graphs call them (output size given).
def _unpool2d(h, w):
    def fn(x):
        y, i = F.max_pool2d(x, 2, return_indices=True)
        return torch._C._nn.max_unpool2d(y * 2, i, (h, w))
    return fn


def _unpool3d(x):
    y, i = F.max_pool3d(x, 2, stride=2, return_indices=True)
    return torch._C._nn.max_unpool3d(y, i, (5, 4, 4), (2, 2, 2), (0, 0, 0))


for _name, _fn, _inputs in [
        ("max_unpool2d", _unpool2d(5, 4), randn((2, 3, 5, 4))),
        ("max_unpool2d_unbatched", _unpool2d(6, 6), randn((3, 6, 6))),
        ("max_unpool3d", _unpool3d, randn((1, 2, 5, 4, 4)))]:
    add(_name, lambda _fn=_fn: lam(_fn), _inputs)

# Issue 27.2: diag, diag_embed, cross.
for _name, _fn, _inputs in [
        ("diag_vector_offsets", lambda x: torch.diag(x, 2) + torch.diag(
            x, -2), randn((4,))),
        ("diag_matrix_method", lambda x: x.diag(-1), randn((3, 5))),
        ("diag_embed_default", lambda x: torch.diag_embed(x), randn((2, 3))),
        ("diag_embed_dims", lambda x: torch.diag_embed(x, 1, 0, 2),
         randn((2, 3))),
        ("diag_embed_reversed_dims", lambda x: torch.diag_embed(x, -1, 2, 0),
         randn((2, 4))),
        ("linalg_cross_broadcast", lambda a, b: torch.linalg.cross(a, b),
         randn((4, 3), (1, 3))),
        ("cross_dim0_method", lambda a, b: a.cross(b, dim=0),
         randn((3, 5), (3, 5))),
        ("cross_int_first_dim_3", lambda a, b: torch.cross(a, b),
         randint(-9, 9, (2, 3), (2, 3)))]:
    add(_name, lambda _fn=_fn: lam(_fn), _inputs)

# Losses (issue 27): torch.nn.functional's loss functions and modules,
# traced into down to ATen's loss ops.
def _class_inputs(*shape, classes=5):
    def make():
        x = torch.randn(shape[0], classes, *shape[1:])
        return x, torch.randint(0, classes, shape)
    return make


for _name, _fn, _inputs in [
        ("mse_loss", lambda x, t: F.mse_loss(x, t), randn((4, 5), (4, 5))),
        ("mse_loss_broadcast_sum", lambda x, t: F.mse_loss(
            x, t.expand(4, 5), reduction="sum"), randn((4, 5), (5,))),
        ("l1_loss_none", lambda x, t: F.l1_loss(x, t, reduction="none"),
         randn((4, 5), (4, 5))),
        ("smooth_l1_loss_beta", lambda x, t: F.smooth_l1_loss(
            x, t, beta=0.5), randn((4, 5), (4, 5))),
        ("huber_loss_delta", lambda x, t: F.huber_loss(x, t, delta=0.7),
         randn((4, 5), (4, 5))),
        ("binary_cross_entropy_weight", lambda x, t, w: F.binary_cross_entropy(
            torch.sigmoid(x), t, w), concat(randn((4, 5)), uniform(
                0, 1, (4, 5), (4, 5)))),
        ("bce_with_logits_pos_weight", lambda x, t, p: F.
         binary_cross_entropy_with_logits(x * 30, t, pos_weight=p),
         concat(randn((4, 5)), uniform(0, 1, (4, 5), (5,)))),
        ("nll_loss", lambda x, t: F.nll_loss(F.log_softmax(x, 1), t),
         _class_inputs(6)),
        ("cross_entropy_weight_ignore", lambda x, t, w: F.cross_entropy(
            x, t, weight=w, ignore_index=2),
         concat(_class_inputs(6), uniform(0, 1, (5,)))),
        ("cross_entropy_spatial_none", lambda x, t: F.cross_entropy(
            x, t, reduction="none"), _class_inputs(2, 3, 4)),
        ("cross_entropy_sum", lambda x, t: F.cross_entropy(
            x * 50, t, reduction="sum"), _class_inputs(7)),
        ("mse_loss_module_inputs", lambda x, t: F.mse_loss(
            x, t, reduction="none") * 2, randn((4, 5), (4, 5)))]:
    add(_name, lambda _fn=_fn: lam(_fn), _inputs)

def _signs(*shapes):
    """Tensors of -1 and 1 (the targets of margin losses)."""
    return lambda: tuple(torch.randint(0, 2, s).float() * 2 - 1
                         for s in shapes)


def _distributions(*shape):
    """Log-probabilities and probabilities over the last dim, some of the
    probabilities exactly 0 (kl_div's 0 log 0 = 0)."""
    def make():
        p = torch.softmax(torch.randn(shape), -1)
        p[..., 0] = 0
        return torch.log_softmax(torch.randn(shape), -1), p
    return make


def _counts(*shape):
    """Log-rates and Poisson counts (0 to about 12)."""
    return lambda: (torch.randn(shape),
                    torch.poisson(torch.rand(shape) * 6))


for _name, _fn, _inputs in [
        ("soft_margin_loss", lambda x, t: F.soft_margin_loss(x * 3, t),
         concat(randn((4, 5)), _signs((4, 5)))),
        ("soft_margin_loss_none", lambda x, t: F.soft_margin_loss(
            x, t, reduction="none"), concat(randn((4, 5)), _signs((4, 5)))),
        ("hinge_embedding_loss", lambda x, t: F.hinge_embedding_loss(
            x, t, margin=0.5), concat(randn((4, 5)), _signs((4, 5)))),
        # Targets other than -1 and 1 count both terms, as in ATen.
        ("hinge_embedding_loss_other_targets_sum", lambda x, t: F.
         hinge_embedding_loss(x, t.round(), reduction="sum"),
         randn((4, 5), (4, 5))),
        ("margin_ranking_loss", lambda a, b, t: F.margin_ranking_loss(
            a, b, t, margin=0.2), concat(randn((6,), (6,)), _signs((6,)))),
        ("margin_ranking_loss_broadcast_none", lambda a, b, t: F.
         margin_ranking_loss(a, b, t, reduction="none"),
         concat(randn((3, 6), (1, 6)), _signs((3, 1)))),
        ("kl_div_sum", lambda x, t: F.kl_div(x, t, reduction="sum"),
         _distributions(4, 7)),
        ("kl_div_log_target_none", lambda x, t: F.kl_div(
            x, torch.log(t + 1e-3), reduction="none", log_target=True),
         _distributions(4, 7)),
        ("poisson_nll_loss", lambda x, t: F.poisson_nll_loss(x, t),
         _counts(4, 5)),
        ("poisson_nll_loss_full_rates_sum", lambda x, t: F.poisson_nll_loss(
            x.exp(), t, log_input=False, full=True, reduction="sum"),
         _counts(4, 5))]:
    add(_name, lambda _fn=_fn: lam(_fn), _inputs)

for _name, _module, _inputs in [
        ("soft_margin_loss_module_sum", lambda: nn.SoftMarginLoss(
            reduction="sum"), concat(randn((4, 5)), _signs((4, 5)))),
        ("hinge_embedding_loss_module", lambda: nn.HingeEmbeddingLoss(2.0),
         concat(randn((4, 5)), _signs((4, 5)))),
        ("margin_ranking_loss_module", lambda: nn.MarginRankingLoss(0.3),
         concat(randn((6,), (6,)), _signs((6,)))),
        ("kl_div_module_log_target", lambda: nn.KLDivLoss(
            reduction="sum", log_target=True), _distributions(3, 4)),
        ("poisson_nll_loss_module_full", lambda: nn.PoissonNLLLoss(
            full=True, reduction="none"), _counts(4, 5)),
        ("cross_entropy_module", lambda: nn.CrossEntropyLoss(
            weight=torch.rand(5), ignore_index=1), _class_inputs(6)),
        ("nll_loss_module_sum", lambda: nn.NLLLoss(reduction="sum"),
         _class_inputs(3, 4)),
        ("mse_loss_module", lambda: nn.MSELoss(reduction="sum"),
         randn((4, 5), (4, 5))),
        ("smooth_l1_loss_module", lambda: nn.SmoothL1Loss(beta=0.3),
         randn((4, 5), (4, 5))),
        ("huber_loss_module_none", lambda: nn.HuberLoss("none", 2.0),
         randn((4, 5), (4, 5))),
        ("cosine_embedding_loss_module", lambda: nn.CosineEmbeddingLoss(
            0.1, reduction="none"), concat(randn((6, 5), (6, 5)), _signs(
                (6,)))),
        ("triplet_margin_loss_module", lambda: nn.TripletMarginLoss(
            margin=0.5, p=1.0), randn((4, 6), (4, 6), (4, 6))),
        ("pairwise_distance_module", lambda: nn.PairwiseDistance(3.0),
         randn((4, 6), (4, 6))),
        ("bilinear_module", lambda: nn.Bilinear(4, 5, 3), randn(
            (2, 4), (2, 5))),
        ("bce_with_logits_module", lambda: nn.BCEWithLogitsLoss(
            pos_weight=torch.rand(5)), concat(randn((4, 5)), uniform(
                0, 1, (4, 5))))]:
    add(_name, _module, _inputs)

# Issue 27: operators computed as others are (Composite.cpp, the addmm
# family).


def _special_values(*shapes):
    """Normal tensors with a NaN, +inf and -inf in the first row."""
    def make():
        out = []
        for s in shapes:
            t = torch.randn(s)
            t.view(-1)[:3] = torch.tensor([float("nan"), float("inf"),
                                           -float("inf")])
            out.append(t)
        return tuple(out)
    return make


for _name, _fn, _inputs in [
        ("addmv_scaled", lambda i, m, v: torch.addmv(i, m, v, beta=0.5,
                                                      alpha=2.0),
         randn((3,), (3, 4), (4,))),
        # beta=0: input's NaNs are left out, as in eager.
        ("addmv_beta0_nan_method", lambda i, m, v: (i / 0 * 0).addmv(
            m, v, beta=0), randn((3,), (3, 4), (4,))),
        ("addr_broadcast", lambda i, a, b: torch.addr(i, a, b, alpha=3),
         randn((1, 4), (3,), (4,))),
        ("addr_int", lambda i, a, b: torch.addr(i, a, b, beta=2),
         randint(-5, 5, (3, 4), (3,), (4,))),
        ("addbmm", lambda i, a, b: torch.addbmm(i, a, b, alpha=0.5),
         randn((3, 5), (4, 3, 6), (4, 6, 5))),
        ("vdot", lambda a, b: torch.vdot(a, b), randn((7,), (7,))),
        ("sgn_special", lambda x: torch.sgn(x), _special_values((3, 4))),
        ("sgn_int_method", lambda x: x.sgn(), randint(-3, 3, (5,))),
        ("conj_resolve_real", lambda x: torch.resolve_neg(
            torch.resolve_conj(torch.conj(x))) + torch.real(x).conj_physical(),
         randn((3, 4))),
        ("isreal", lambda x: torch.isreal(x), randn((2, 3))),
        ("angle_special", lambda x: torch.angle(x), _special_values((3, 4))),
        ("angle_int", lambda x: x.angle(), randint(-3, 3, (6,))),
        ("isposinf_isneginf", lambda x: torch.isposinf(x) | x.isneginf(),
         _special_values((3, 4))),
        ("fmax_nan", lambda x, y: torch.fmax(x, y), concat(
            _special_values((3, 4)), randn((4,)))),
        ("fmin_nan_method", lambda x, y: y.fmin(x), concat(
            _special_values((3, 4)), randn((3, 1)))),
        ("atleast_3d_vector", lambda x: torch.atleast_3d(x), randn((5,))),
        ("atleast_2d_scalar", lambda x: torch.atleast_2d(x.sum()),
         randn((5,))),
        ("column_stack", lambda a, b: torch.column_stack((a, b, a)),
         randn((3,), (3, 2))),
        ("hstack_vectors", lambda a, b: torch.hstack((a, b)),
         randn((3,), (5,))),
        ("vstack_dstack", lambda a, b: torch.vstack((a, b)).sum() +
         torch.dstack((b, b)), randn((4,), (2, 4))),
        ("tensor_split_sections", lambda x: torch.tensor_split(x, 3, 1),
         randn((2, 7))),
        ("tensor_split_indices_method", lambda x: x.tensor_split(
            [1, 5, 3, 9], dim=0), randn((7, 2))),
        ("hsplit_vsplit_dsplit", lambda x: (torch.hsplit(x, 2)[1],
                                            torch.vsplit(x, [1])[0],
                                            torch.dsplit(x, 2)[0]),
         randn((2, 4, 6))),
        ("movedim", lambda x: torch.movedim(x, (0, 1), (2, 0)),
         randn((2, 3, 4))),
        ("moveaxis_method", lambda x: x.moveaxis(-1, 0), randn((2, 3, 4))),
        ("msort", lambda x: torch.msort(x), randn((5, 3))),
        ("kron", lambda a, b: torch.kron(a, b), randn((2, 3), (2, 2, 3))),
        ("inner", lambda a, b: torch.inner(a, b), randn((2, 3, 4), (5, 4))),
        ("hypot_special", lambda x, y: torch.hypot(x, y * 1e30),
         concat(_special_values((3, 4)), randn((3, 4)))),
        ("aminmax", lambda x: torch.aminmax(x, dim=1, keepdim=True),
         randn((3, 5))),
        ("diagflat_offset", lambda x: torch.diagflat(x, -1), randn((2, 3))),
        ("take_negative", lambda x, i: torch.take(x, i - 6), concat(
            randn((3, 4)), randint(0, 12, (2, 5)))),
        ("take_along_dim", lambda x, i: torch.take_along_dim(x, i, 1),
         concat(randn((3, 5)), randint(0, 5, (1, 4)))),
        ("trapz_dx", lambda y: torch.trapz(y, dx=0.5), randn((3, 6))),
        ("trapezoid_x", lambda y, x: torch.trapezoid(y, x), randn(
            (3, 6), (6,))),
        ("cumulative_trapezoid_dim0", lambda y, x: torch.
         cumulative_trapezoid(y, x, dim=0), randn((4, 3), (4, 3))),
        ("fftshift_ifftshift", lambda x: torch.fft.ifftshift(
            torch.fft.fftshift(x) * 2, dim=1), randn((3, 5))),
        ("multi_dot_vectors", lambda a, b, c: torch.linalg.multi_dot(
            [a, b, c]), randn((4,), (4, 3), (3,))),
        ("round_decimals", lambda x: torch.round(x * 1000, decimals=-2) +
         x.round(decimals=2), randn((4, 5))),
        ("fliplr_flipud_ravel", lambda x: torch.fliplr(x).flipud().ravel(),
         randn((3, 4))),
        ("reflected_operators", lambda x: (2 - x) * (3 / x) + 2 ** x +
         x.__rsub__(1.5) + x.__rpow__(1.5), nonzero((3, 4))),
        ("rmatmul_rmod", lambda a, b: a.__rmatmul__(b) + 5 % (a.sum() + 9),
         concat(randn((4, 3)), randn((2, 4)))),
        ("short_char_methods", lambda x: (x * 20).short() + (x * 20).char(),
         randn((3, 4))),
        ("ldexp", lambda x, e: torch.ldexp(x, e), concat(
            randn((3, 4)), randint(-4, 4, (3, 4)))),
        # Subnormals, zeros, infinities and NaN keep C's frexp results.
        ("frexp_special", lambda x: torch.frexp(torch.cat([
            x, torch.tensor([0.0, -0.0, 1e-40, -3e-39, float("inf")])])),
         _special_values((7,))),
        # float64: the f64 bit masks are 64-bit constants.
        ("frexp_f64", lambda x: torch.frexp(torch.cat([
            x, torch.tensor([0.0, -0.0, 1e-310, -3e-320, float("inf")],
                            dtype=torch.float64)])),
         lambda: (torch.randn(9, dtype=torch.float64) * 1e5,)),
        ("nextafter_special", lambda x, y: torch.nextafter(
            torch.cat([x, torch.zeros(2)]), torch.cat([y, torch.tensor(
                [1.0, -1.0])])), concat(_special_values((6,)), randn((6,))))
        ,
        ("isin_invert", lambda x, t: torch.isin(x.round(), t.round(),
                                                invert=True),
         randn((3, 4), (5,))),
        ("isin_int_scalar", lambda x: torch.isin(x, 2), randint(0, 4, (6,))),
        ("sum_to_size_method", lambda x: x.sum_to_size(3, 1), randn(
            (2, 3, 4))),
        ("block_diag", lambda a, b, c: torch.block_diag(a, b, c), randn(
            (2, 3), (4,), ())),
        ("cartesian_prod", lambda a, b: torch.cartesian_prod(a, b),
         randn((3,), (2,))),
        ("meshgrid_xy", lambda a, b, c: torch.meshgrid(a, b, c,
                                                       indexing="xy"),
         randn((3,), (2,), (4,))),
        # The input keeps its values: the scatter writes into a copy.
        ("slice_scatter_input_kept", lambda x, s: (torch.slice_scatter(
            x, s, 1, 1, None, 2), x * 1), randn((3, 5), (3, 2))),
        ("select_scatter_method", lambda x, s: x.select_scatter(s, 0, -1),
         randn((3, 5), (5,))),
        ("diagonal_scatter_offset", lambda x, s: torch.diagonal_scatter(
            x, s, -1, 2, 0), randn((4, 2, 3), (2, 2))),
        ("special_ndtr_entr", lambda x: torch.special.ndtr(x) +
         torch.special.entr(x), _special_values((3, 4))),
        ("special_xlog1py", lambda x, y: torch.special.xlog1py(
            x.round(), y), concat(randn((3, 4)), uniform(-0.9, 3, (3, 4)))),
        # NaN sorts as the largest (it was read as 0 where it landed).
        ("sort_topk_argsort_nan", lambda x: (torch.sort(x, -1),
                                             torch.sort(x, 0, True),
                                             torch.topk(x, 2),
                                             x.argsort(-1)),
         _special_values((3, 6))),
        # The gamma family: negatives (reflection), poles, large values.
        ("lgamma_digamma", lambda x: (torch.lgamma(x * 4), x.digamma(),
                                      torch.lgamma(torch.tensor(
                                          [0.0, -2.0, 1.0, 2.0, 1e10]))),
         randn((3, 5))),
        ("polygamma_n2_special_zeta", lambda x: (torch.polygamma(
            2, x.abs() + 0.3), torch.special.zeta(x.abs() + 1.5, 2.0)),
         randn((3, 5))),
        ("mvlgamma_p3_method", lambda x: (x.abs() + 1.2).mvlgamma(3),
         randn((3, 5))),
        # Both sides of the series/asymptotic switch at 15.
        ("bessel_i0_i1_scaled", lambda x: (torch.i0(x * 3), torch.special.
                                           i1(x * 3), torch.special.i0e(
                                               x * 20), torch.special.i1e(
                                                   x * 20)), randn((3, 5))),
        ("erfinv_ndtri", lambda x: (torch.erfinv(torch.tanh(x)),
                                    torch.special.ndtri(torch.sigmoid(x * 3))),
         randn((3, 5))),
        ("erfcx_log_ndtr", lambda x: (torch.special.erfcx(x * 10),
                                      torch.special.log_ndtr(x * 10)),
         randn((3, 5))),
        ("orthogonal_polynomials", lambda x, n: (
            torch.special.chebyshev_polynomial_t(x, n),
            torch.special.shifted_chebyshev_polynomial_v(x, n),
            torch.special.hermite_polynomial_h(x, n),
            torch.special.laguerre_polynomial_l(x, 3),
            torch.special.legendre_polynomial_p(x, n)),
         concat(uniform(-1.5, 1.5, (3, 5)), randint(-1, 12, (3, 5),
                                                    dtype=torch.float32))),
        ("bessel_k_spherical_j0", lambda x: (
            torch.special.modified_bessel_k0(x.abs() * 8),
            torch.special.modified_bessel_k1(x.abs() * 8),
            torch.special.scaled_modified_bessel_k0(x.abs() * 20),
            torch.special.scaled_modified_bessel_k1(x.abs() * 20),
            torch.special.spherical_bessel_j0(x * 5)), randn((3, 5))),
        ("renorm_vander_matrix_power", lambda x: (
            torch.renorm(x, 2, 0, 1.0), torch.linalg.vander(x[0], N=4),
            torch.linalg.matrix_power(x[:, :3], 5),
            torch.linalg.matrix_power(x[:, :3], 0)), randn((3, 5))),
        ("index_fill_copy", lambda x, s: (
            x.index_fill(1, torch.tensor([0, -1, 2]), -2.5),
            torch.index_copy(x, 0, torch.tensor([2, 0]), s)),
         randn((3, 5), (2, 5))),
        ("native_layer_norm", lambda x, w: torch.native_layer_norm(
            x, [5], w, w * 0.5, 1e-5), randn((2, 3, 5), (5,))),
        # A list reaches torch._VF's overloads, which return tuples.
        ("atleast_meshgrid_lists", lambda a, b: (torch.atleast_2d([a, b]),
                                                 torch.meshgrid([a, b])),
         randn((3,), (4,))),
        ("scatter_reduce_kw", lambda x, s: (
            torch.scatter(x, 1, torch.tensor([[0, 1, 0], [2, 2, 3]]), s,
                          reduce="multiply"),
            x.scatter(0, torch.tensor([[1, 0, 1, 1]]), 2.5, reduce="add")),
         randn((3, 4), (2, 3))),
        # Scalars are vectors of one item for the indexing ops.
        ("scalar_index_add_scatter_add", lambda x, s: (
            x.index_add(0, torch.tensor(0), s, alpha=2),
            torch.scatter_add(x, 0, torch.tensor(0), s)), randn((), ())),
        ("prelu_scalar_weight", lambda x, w: F.prelu(x, w), randn(
            (2, 3, 4), ())),
        ("kthvalue_keepdim", lambda x: torch.kthvalue(x, 2, 0, True),
         randn((5, 3))),
        ("median_all_and_dim", lambda x: (torch.median(x), x.median(1)),
         randn((4, 5))),
        # A NaN makes median's row NaN; nanmedian skips it.
        ("median_nanmedian_nan", lambda x: (x.median(-1).values,
                                            torch.nanmedian(x, 1).values,
                                            torch.nanmedian(x)),
         _special_values((3, 6))),
        ("cov_weighted", lambda x, f, a: torch.cov(
            x, correction=0, fweights=f, aweights=a), concat(
                randn((3, 6)), randint(1, 4, (6,)), uniform(0.1, 1, (6,)))),
        ("cov_vector_corrcoef", lambda x: (torch.cov(x[0]),
                                           torch.corrcoef(x)),
         randn((3, 7))),
        ("pairwise_distance_p1", lambda a, b: F.pairwise_distance(
            a, b, p=1.0, keepdim=True), randn((4, 6), (4, 6))),
        ("cdist_batched", lambda a, b: torch.cdist(a, b), randn(
            (2, 3, 5), (2, 4, 5))),
        ("pdist_inf", lambda x: F.pdist(x, p=float("inf")), randn((5, 3))),
        ("bilinear_bias", lambda a, b, w: F.bilinear(a, b, w, w[:, 0, 0]),
         randn((2, 3, 4), (2, 3, 5), (6, 4, 5))),
        ("cosine_embedding_loss", lambda a, b, t: F.cosine_embedding_loss(
            a, b, t, margin=0.2), concat(randn((6, 5), (6, 5)), _signs(
                (6,)))),
        ("triplet_margin_loss_swap", lambda a, p, n: F.triplet_margin_loss(
            a, p, n, swap=True, reduction="sum"), randn((4, 6), (4, 6),
                                                         (4, 6)))]:
    add(_name, lambda _fn=_fn: lam(_fn), _inputs)

# scatter_reduce (duplicate indices: every reduction combines several
# values into one element), with and without self; integer 'mean' floors.
_SCATTER_INDEX = [[0, 1, 2, 0], [1, 1, 4, 0], [0, 3, 2, 2]]


def _scatter_reduce_all(x, s):
    i = torch.tensor(_SCATTER_INDEX)
    return tuple(x.scatter_reduce(0, i, s, r, include_self=inc)
                 for r in ("sum", "prod", "mean", "amax", "amin")
                 for inc in (True, False))


class _PoolUnpool(nn.Module):
    """nn.MaxPool2d with indices, then nn.MaxUnpool2d back."""

    def __init__(self):
        super().__init__()
        self.pool = nn.MaxPool2d(2, stride=2, return_indices=True)
        self.unpool = nn.MaxUnpool2d(2, stride=2)

    def forward(self, x):
        y, i = self.pool(x)
        return self.unpool(y, i), self.unpool(y, i, output_size=[7, 5])


def _unpool_functional(a, b, c):
    y1, i1 = F.max_pool1d(a, 3, stride=2, padding=1, return_indices=True)
    y3, i3 = F.max_pool3d(c, 2, return_indices=True)
    return (F.max_unpool1d(y1, i1, 3, stride=2, padding=1, output_size=[10]),
            F.max_unpool2d(*F.max_pool2d(b, 2, return_indices=True), 2),
            F.max_unpool3d(y3, i3, 2))


for _name, _fn, _inputs in [
        ("scatter_reduce_float", _scatter_reduce_all, randn((5, 4), (3, 4))),
        ("scatter_reduce_int", _scatter_reduce_all, randint(
            -9, 9, (5, 4), (3, 4))),
        ("scatter_reduce_nan", lambda x, s: (
            torch.scatter_reduce(x, 1, torch.tensor([[0, 0, 1]] * 3), s,
                                 "amax"),
            torch.scatter_reduce(x, 1, torch.tensor([[2, 0, 0]] * 3), s,
                                 "amin", include_self=False)),
         _special_values((3, 3), (3, 3))),
        ("adaptive_max_pool2d_none", lambda x: F.adaptive_max_pool2d(
            x, (3, None)), randn((2, 3, 7, 5))),
        ("adaptive_max_pool1d_indices", lambda x: F.adaptive_max_pool1d(
            x, 4, return_indices=True), randn((3, 10))),
        ("adaptive_max_pool3d_unbatched", lambda x: F.adaptive_max_pool3d(
            x, (2, 3, 1), return_indices=True), randn((2, 5, 7, 3))),
        ("adaptive_avg_pool2d_none", lambda x: F.adaptive_avg_pool2d(
            x, (None, 2)), randn((2, 3, 5, 7))),
        ("max_unpool_functional", _unpool_functional, randn(
            (2, 3, 9), (1, 2, 6, 4), (1, 2, 4, 4, 6)))]:
    add(_name, lambda _fn=_fn: lam(_fn), _inputs)
def _nan_rows(shape):
    """Normal values; row 0 has one NaN, row 1 is all NaN."""
    def make():
        t = torch.randn(shape)
        t[0, 1] = float("nan")
        t[1] = float("nan")
        return (t,)
    return make


for _name, _fn, _inputs in [
        ("quantile_modes", lambda x, q: tuple(
            torch.quantile(x, q, dim=1, keepdim=True, interpolation=m)
            for m in ("linear", "lower", "higher", "midpoint", "nearest")),
         concat(randn((4, 7)), uniform(0, 1, (3,)))),
        ("quantile_all_scalar_q", lambda x: (
            x.quantile(0.25), torch.quantile(x, 0.5, keepdim=True),
            torch.nanquantile(x, 0.9, dim=0)), randn((5, 6))),
        ("quantile_nan", lambda x: (
            torch.quantile(x, torch.tensor([0.1, 0.5]), dim=1),
            torch.nanquantile(x, torch.tensor([0.1, 0.5]), dim=1),
            torch.nanquantile(x, torch.tensor(0.75), dim=-1,
                              interpolation="nearest")), _nan_rows((4, 5)))]:
    add(_name, lambda _fn=_fn: lam(_fn), _inputs)
for _name, _fn, _inputs in [
        ("tensor_unfold", lambda x: (x.unfold(1, 3, 2), x.unfold(-1, 2, 1),
                                     x[0, 0, 0].unfold(0, 1, 1)),
         randn((2, 7, 4))),
        ("functional_unfold", lambda x: (
            F.unfold(x, 3, padding=1), F.unfold(
                x[0], (2, 3), dilation=(2, 1), stride=(1, 2))),
         randn((2, 3, 6, 7)))]:
    add(_name, lambda _fn=_fn: lam(_fn), _inputs)
add("unfold_module", lambda: seq(nn.Unfold(2, stride=2), nn.ReLU()),
    randn((1, 2, 6, 4)))
def _well_conditioned(*shapes):
    """Random square matrices plus 3 * identity (far from singular)."""
    def make():
        out = []
        for s in shapes:
            t = torch.randn(s)
            out.append(t + 3 * torch.eye(s[-1]) if len(s) >= 2 and
                       s[-1] == s[-2] else t)
        return tuple(out)
    return make


def _positive_definite(shape):
    def make():
        a = torch.randn(shape)
        return (a @ a.transpose(-1, -2) + torch.eye(shape[-1]),)
    return make


for _name, _fn, _inputs in [
        ("det_slogdet_logdet", lambda a: (
            torch.det(a), torch.linalg.det(a), *torch.linalg.slogdet(a),
            a.logdet(), torch.slogdet(a)[0]), randn((2, 3, 4, 4))),
        ("det_singular", lambda a: torch.linalg.det(
            a * torch.tensor([1.0, 1.0, 0.0])), randn((3, 3))),
        ("inv_and_inverse", lambda a: (torch.linalg.inv(a), a.inverse(),
                                       torch.linalg.inv_ex(a)),
         _well_conditioned((2, 5, 5))),
        ("solve_forms", lambda a, b, v: (
            torch.linalg.solve(a, b), torch.linalg.solve(a, v),
            torch.linalg.solve(a, b.transpose(-1, -2), left=False),
            torch.linalg.solve_ex(a[0], b)),
         _well_conditioned((2, 4, 4), (4, 3), (2, 4))),
        ("cholesky_forms", lambda a: (
            torch.linalg.cholesky(a), torch.linalg.cholesky(a, upper=True),
            torch.cholesky(a), torch.linalg.cholesky_ex(a)),
         _positive_definite((3, 5, 5))),
        # Even powers (squaring only) and the inverse's powers.
        ("matrix_power_even_and_negative", lambda a: tuple(
            torch.linalg.matrix_power(a, n) for n in (2, 4, -1, -2, -3)),
         _well_conditioned((2, 3, 3))),
        ("lu_solve_forms", lambda a, b: (
            torch.linalg.lu_solve(*torch.linalg.lu_factor(a), b),
            torch.linalg.lu_solve(*torch.linalg.lu_factor(a), b,
                                  adjoint=True),
            torch.linalg.lu_solve(*torch.linalg.lu_factor(a),
                                  b.transpose(-1, -2), left=False),
            torch.lu_solve(b, *torch.linalg.lu_factor(a))),
         _well_conditioned((2, 4, 4), (2, 4, 3))),
        ("cholesky_solve_inverse", lambda a, b: (
            torch.cholesky_solve(b, torch.linalg.cholesky(a)),
            torch.cholesky_solve(b, torch.linalg.cholesky(a, upper=True),
                                 upper=True),
            torch.cholesky_inverse(torch.linalg.cholesky(a))),
         concat(_positive_definite((4, 4)), randn((4, 2)))),
        ("solve_triangular_forms", lambda a, b: (
            torch.linalg.solve_triangular(a.triu(), b, upper=True),
            torch.linalg.solve_triangular(a.tril(), b, upper=False,
                                          unitriangular=True),
            torch.linalg.solve_triangular(a.triu(), b.transpose(-1, -2),
                                          upper=True, left=False),
            torch.triangular_solve(b, a, upper=False, transpose=True)),
         _well_conditioned((2, 4, 4), (2, 4, 3))),
        ("lu_factor_rectangular", lambda a, w: (
            torch.linalg.lu_factor(a), torch.linalg.lu_factor_ex(w)),
         randn((2, 5, 3), (3, 6)))]:
    add(_name, lambda _fn=_fn: lam(_fn), _inputs)
for _name, _fn, _inputs in [
        ("combinations_forms", lambda x: (
            torch.combinations(x), torch.combinations(x, 3, True),
            torch.combinations(x, 0), torch.combinations(x[:2], 3)),
         randn((5,))),
        ("multi_margin_loss_forms", lambda x, t, w: (
            F.multi_margin_loss(x, t), F.multi_margin_loss(
                x, t, p=2, margin=0.5, weight=w, reduction="none"),
            F.multi_margin_loss(x[0], t[0], reduction="sum")),
         concat(randn((4, 6)), randint(0, 6, (4,)), uniform(0.5, 2, (6,))))]:
    add(_name, lambda _fn=_fn: lam(_fn), _inputs)
add("multi_margin_loss_module", lambda: nn.MultiMarginLoss(
    margin=0.7, weight=torch.rand(5), reduction="sum"), concat(
        randn((3, 5)), randint(0, 5, (3,))))
add("adaptive_max_pool2d_module", lambda: seq(nn.AdaptiveMaxPool2d(
    (2, 3)), nn.ReLU()), randn((1, 4, 9, 8)))
add("adaptive_max_pool1d_module_indices", lambda: seq(nn.AdaptiveMaxPool1d(
    3, return_indices=True)), randn((2, 4, 8)))
add("max_unpool2d_module", _PoolUnpool, randn((2, 3, 6, 4)))

# --- uint8 tensors (computed as i32 of 0..255, wrapped per node) and ------
# --- bitwise shifts (as ATen's x86 kernel: narrow ints as 32-bit, the
# --- count modulo the width shifted). ---------------------------------------
family("uint8")


def _bytes(*shapes):
    return randint(0, 256, *shapes, dtype=torch.uint8)


class _Uint8Buffer(nn.Module):
    """A uint8 buffer (state) read with an input."""

    def __init__(self):
        super().__init__()
        self.register_buffer(
            "table", torch.randint(0, 256, (4, 6), dtype=torch.uint8))

    def forward(self, x):
        return self.table + x, self.table * 3, self.table


for _name, _fn, _inputs in [
        ("arith", lambda x, y: (x + y, x - y, x * y, x // (y + 1),
                                x % (y + 1), -x, ~x, x * 200 + 77),
         _bytes((3, 7), (3, 7))),
        ("compare_minmax", lambda x, y: (
            x > y, x <= 128, x == y, torch.maximum(x, y), torch.minimum(x, y),
            x.clamp(10, 200), x.max(dim=1), x.min(), x.amax(0)),
         _bytes((3, 7), (3, 7))),
        ("sort_topk", lambda x: (torch.sort(x, dim=1), x.argsort(dim=0),
                                 x.topk(3, dim=1)),
         _bytes((4, 9))),
        ("conversions", lambda x, f: (
            x.float() / 3, x.to(torch.int64) - 300, (f * 97).to(torch.uint8),
            (f * 90 - 40).to(torch.uint8), x.bool(), x + x.to(torch.int8),
            x.double().sqrt()),
         concat(_bytes((3, 5)), uniform(0, 2.6, (3, 5)))),
        ("reductions", lambda x: (x.sum(), x.sum(1), x.sum(0, dtype=torch.uint8),
                                  x.prod(1), x.cumsum(1), x.float().mean(),
                                  x.any(1), x.all(), x.int()),
         _bytes((3, 5))),
        ("views", lambda x, y: (x.view(-1), x.t(), torch.cat([x, y]),
                                torch.stack([x, y], 2), x[1:, ::2], x.flip(0)),
         _bytes((3, 4), (3, 4))),
        ("shifts_uint8", lambda x, s: (x << s, x >> s, x << 3, x >> 1,
                                       torch.bitwise_left_shift(x, 9)),
         concat(_bytes((2, 8)), randint(0, 40, (2, 8), dtype=torch.uint8))),
        ("shifts_ints", lambda a, b, c: (
            a << (c % 70), a >> (c % 70), b << (c.to(torch.int32) % 40),
            b >> 3, a.to(torch.int8) << 5, a.to(torch.int8) >> 1),
         concat(randint(-1000, 1000, (2, 8)),
                randint(-1000, 1000, (2, 8), dtype=torch.int32),
                randint(0, 200, (2, 8))))]:
    add(_name, lambda _fn=_fn: lam(_fn), _inputs)
add("buffer", _Uint8Buffer, _bytes((4, 6)))
# Of a 0-d int tensor, sum_to_size(()) sums nothing and still promotes to
# int64, as eager does.
add("sum_to_size_0d", lambda: lam(lambda x: (
    x[0, 0].sum_to_size(()), x.int()[1, 2].sum_to_size(()),
    x.sum_to_size(1, 4))), _bytes((3, 4)))

# --- Bool tensors moved around: vectorized copies of bools read and write
# --- bytes (fx-cpu-byte-bools), not LLVM's packed bits. ----------------------
family("bool_memory")


def _bools(*shapes):
    return lambda: tuple(torch.rand(s) > 0.5 for s in shapes)


for _name, _fn, _inputs in [
        ("slices_cat", lambda x, y: (x[:, 1:30], x[1:, ::3], torch.cat([x, y]),
                                     torch.cat([x, y], 1), torch.stack([x, y])),
         _bools((4, 40), (4, 40))),
        ("flip_roll_pad", lambda x: (x.flip(1), x.roll(5, 1), F.pad(x, (3, 2)),
                                     F.pad(x, (1, 1, 2, 0), value=True)),
         _bools((3, 37))),
        ("transpose_expand", lambda x, y: (
            x.t().contiguous(), x.unsqueeze(0).expand(3, -1, -1).contiguous(),
            x.repeat(2, 3), y.permute(2, 0, 1).contiguous(), ~x, x & x.flip(0)),
         _bools((16, 24), (5, 6, 33))),
        ("split_select", lambda x: (*x.split(7, 1), x[2], x.select(1, 9),
                                    torch.where(x, x.flip(1), ~x)),
         _bools((6, 50)))]:
    add(_name, lambda _fn=_fn: lam(_fn), _inputs)

# --- atan2 where both arguments are zero (C's values: +-0 or +-pi). --------
family("atan2_zeros")
add("signed_zeros", lambda: lam(lambda y, x: (torch.atan2(y, x),
                                              torch.atan2(y.double(), x))),
    lambda: (torch.tensor([0.0, -0.0, 0.0, -0.0, 1.0, 0.0, -1.0] * 5),
             torch.tensor([0.0, 0.0, -0.0, -0.0, 0.0, 2.0, -3.0] * 5)))
add("int_zeros", lambda: lam(lambda y, x: torch.atan2(y, x)),
    randint(-2, 3, (6, 7), (6, 7)))


def _atan2_specials():
    values = [0.0, -0.0, 1.0, -1.0, math.inf, -math.inf, math.nan, 2.5,
              -1e-30]
    return (torch.tensor([a for a in values for _ in values]),
            torch.tensor([b for _ in values for b in values]))


# y = -0 with a negative x is -pi; x = -inf with a finite y is pi with y's
# sign; both infinite are +-pi/4 and +-3pi/4 (C's atan2, as eager).
add("zero_and_infinite_operands", lambda: lam(lambda y, x: (
    torch.atan2(y, x), torch.atan2(y.double(), x.double()))),
    _atan2_specials)

# --- sin and cos of large arguments (MLIR's approximations reduced them
# by one f32 multiple of pi/2: off from |x| ~ 1e4, unbounded past 1e9) and
# of tiny negative ones (a wrong sign); log and log2 of subnormal inputs
# (read as the smallest normal). ---------------------------------------------
family("math_ranges")


def _wide_arguments():
    magnitudes = [1e4, 12345.678, 1e5, 1e6, 3e7, 1e8, 1e9, 1e12, 1e20, 3e38,
                  1e-30, 1e-8, 1e-6, 1e-5, 1e-4, 0.0]
    values = [m * s for m in magnitudes for s in (1.0, -1.0)]
    return (torch.tensor(values * 2),)


add("sin_cos", lambda: lam(lambda x: (torch.sin(x), torch.cos(x),
                                      torch.sinc(x), torch.sin(x.double()))),
    _wide_arguments)
add("log_subnormal", lambda: lam(lambda x: (
    torch.log(x), torch.log2(x), torch.logit(x), torch.log10(x),
    torch.log1p(x))),
    lambda: (torch.tensor([1e-45, 3e-45, 1e-42, 1e-40, 1e-39, 5e-39, 1e-38,
                           1.1754942e-38, 1.1754944e-38, 2e-38, 1.0, 0.0,
                           -1e-40, 3.0] * 3),))


# --- float16 <-> bfloat16 (through f32, as PyTorch converts; arith has no
# direct truncation between two 16-bit types). -------------------------------
family("half_conversions")
add("f16_bf16", lambda: lam(lambda x: (
    x.half().bfloat16(), x.bfloat16().half(),
    x.half().to(torch.bfloat16).float() * 2)),
    lambda: (torch.cat([torch.randn(4, 33) * 100,
                        torch.tensor([[1e-6, 7e4, -0.0, 65504.0] * 8 +
                                      [3e-8]] * 2)]),))


# --- Rows holding several NaNs: the first NaN is the maximum and the
# minimum, its index the result (a later NaN does not replace it); the sign
# of NaN is 0, as ATen's (0 < x) - (x < 0). ---------------------------------
family("nan_extrema")


def _several_nans():
    x = torch.randn(4, 7)
    x[0, 1] = x[0, 5] = x[2, 0] = x[2, 6] = x[3, 3] = float("nan")
    return (x,)


add("argmax_argmin_all", lambda: lam(
    lambda x: (torch.argmax(x), torch.argmin(x), x.argmax(keepdim=True))),
    lambda: _several_nans())
add("argmax_argmin_dims", lambda: lam(
    lambda x: (torch.argmax(x, 1), torch.argmin(x, 1), x.argmax(0))),
    lambda: _several_nans())
add("max_min_dim", lambda: lam(
    lambda x: (torch.max(x, 1), torch.min(x, 1, keepdim=True))),
    lambda: _several_nans())
add("sign_of_nan", lambda: lam(
    lambda x: (torch.sign(x), torch.sgn(x), x.sign() * x.abs())),
    lambda: _several_nans())

def _sequences_with_nans():
    seq = torch.tensor([0.0, 1.0, float("nan"), 2.0, 3.0, float("nan"), 5.0])
    values = torch.tensor([[-1.0, 0.0, 0.5, 1.0, 2.0, float("nan"), 4.0, 5.0,
                            6.0, 2.5]])
    rows = torch.sort(torch.randint(0, 5, (3, 11)).float(), dim=1).values
    rows[1, 4] = float("nan")
    row_values = torch.randint(-1, 6, (3, 5)).float()
    row_values[0, 1] = float("nan")
    return seq, values, rows, row_values


# searchsorted/bucketize of sequences holding NaN: ATen's binary search
# (a NaN compares false, so the search moves past it), not a count.
add("searchsorted_nan_sequences", lambda: lam(
    lambda s, v, rows, rv: (
        torch.searchsorted(s, v), torch.searchsorted(s, v, right=True),
        torch.searchsorted(rows, rv), torch.bucketize(v, s, right=True),
        torch.searchsorted(rows, rv, side="right", out_int32=True))),
    _sequences_with_nans)

# --- Reductions along a last dim of a whole number of registers (32, 48,
# 64 floats) whose body reads its indices: cumsum's triangle, a tril or
# triu fused into the sum (fx-cpu-schedule once split them, and MLIR's
# split rebuilt the index of the split dim wrongly). -----------------------
family("indexed_row_reductions")
add("cumsum_cumprod", lambda: lam(lambda x, y: (
    torch.cumsum(x, -1), torch.cumsum(y, 1), torch.cumprod(1 + y / 64, -1))),
    randn((32,), (3, 64)))
add("tril_triu_reduced", lambda: lam(lambda x: (
    torch.tril(x).sum(-1), torch.triu(x, 1).mean(1), torch.tril(x).amax(-1),
    torch.triu(x).norm(dim=-1))), randn((4, 48)))

# --- One index picked along a dim after a dim of size 1 (a batch of one,
# x[None]): the slice keeps the dim and a collapse drops exactly it (MLIR
# 22's canonicalization re-inferred which unit dim a rank-reducing slice
# drops, and read x[0, 0, :3] for x[..., 0] of a 1x3x4 tensor). ----------
family("unit_dim_selects")
add("last_dim", lambda: lam(lambda x: (x[..., 0], x[..., 3], x[:, :, 1] * 2)),
    randn((1, 3, 4)))
# A strided slice of one element broadcast along its dim (a 0-d vector
# read of a strided view, lowered to a load), and a select of a strided
# slice of an all-unit tensor.
add("strided_single_element", lambda: lam(lambda x, y: (
    x[::2] + torch.ones(3), x[::2].expand(3), y[:, ::2].select(1, -1))),
    randn((2,), (1, 1, 1)))
add("batch_of_one_images", lambda: lam(lambda x: (
    x[:, :, 2], x[:, 0, :, 1], x[None, :, 1], x.unsqueeze(0).select(3, 2))),
    randn((1, 2, 3, 4)))

# --- torch.masked's reductions and normalizations: Python functions that
# branch on `input.layout` and `torch.is_floating_point(input)`, which the
# compiled types fix (the tracer answers them from the example values). ----
family("masked_ops")


def _masked_inputs():
    x = torch.randn(5, 7)
    mask = torch.rand(5, 7) > 0.4
    mask[1] = False  # a row with nothing kept
    return x, mask


add("reductions", lambda: lam(lambda x, m: (
    torch.masked.sum(x, 1, mask=m), torch.masked.mean(x, 0, mask=m),
    torch.masked.amax(x, 1, mask=m), torch.masked.amin(x, 1, mask=m),
    torch.masked.prod(x, 0, keepdim=True, mask=m),
    torch.masked.logsumexp(x, 1, mask=m))), _masked_inputs)
add("statistics", lambda: lam(lambda x, m: (
    torch.masked.norm(x, 2.0, 1, mask=m), torch.masked.var(x, 1, mask=m),
    torch.masked.std(x, 0, unbiased=False, mask=m),
    torch.masked.argmax(x, 1, mask=m), torch.masked.argmin(x, 0, mask=m))),
    _masked_inputs)
add("normalizations", lambda: lam(lambda x, m: (
    torch.masked.softmax(x, 1, mask=m), torch.masked.log_softmax(x, 0, mask=m),
    torch.masked.softmin(x, 1, mask=m),
    torch.masked.normalize(x, 2.0, 1, mask=m))), _masked_inputs)

# --- torch.linalg.norm and matrix_norm with an order: vector norms, and
# the matrix norms without singular values ('fro', +-1, +-inf), as ATen
# computes them (python/fx_mlir/reference.py). -----------------------------
family("norm_orders")
add("linalg_norm", lambda: lam(lambda x, v: (
    torch.linalg.norm(v, 3), torch.linalg.norm(x, float("inf")),
    torch.linalg.norm(x, -1, keepdim=True), torch.linalg.norm(x, "fro"),
    torch.linalg.norm(x, 0.5, dim=1), torch.linalg.norm(x, -math.inf, 0))),
    randn((4, 6), (9,)))
add("matrix_norm", lambda: lam(lambda x: (
    torch.linalg.matrix_norm(x), torch.linalg.matrix_norm(x, 1),
    torch.linalg.matrix_norm(x, -math.inf, dim=(2, 0), keepdim=True),
    torch.linalg.matrix_norm(x, math.inf, dim=(-1, 1)),
    torch.linalg.matrix_norm(x, -1, dtype=torch.float64))),
    randn((3, 4, 5)))

# --- torch.index_reduce, as scatter_reduce with the index spread over the
# source (python/fx_mlir/reference.py). --------------------------------------
family("index_reduce")
add("reductions", lambda: lam(lambda x, s: (
    torch.index_reduce(x, 0, torch.tensor([0, 2, 0, 3]), s, "prod"),
    torch.index_reduce(x, 0, torch.tensor([1, 1, 4, 0]), s, "mean",
                       include_self=False),
    torch.index_reduce(x.t(), 1, torch.tensor([3, 3, 2, 1]), s.t(), "amax"),
    torch.index_reduce(x, 0, torch.tensor([4, 0, 0, 2]), s, "amin",
                       include_self=False))),
    randn((5, 3), (4, 3)))
# torch.put: flat indices, negative ones from the end; accumulate adds.
add("put", lambda: lam(lambda x, s: (
    torch.put(x, torch.tensor([[0, -1], [7, 3]]), s[:2, :2]),
    torch.put(x, torch.tensor([2, 2, -15, 14]), s.reshape(-1)[:4],
              accumulate=True))),
    randn((5, 3), (4, 3)))

# --- Integer samples as eager computes them: in their integer types,
# wrapping, until the formula divides (issue 31's int8 sweep). ------------
family("integer_wrapping")
add("trapz_int8_spacings", lambda: lam(lambda y, x: torch.trapz(y, x)),
    lambda: (torch.tensor([[1, 3, 127, -128], [100, 100, -100, 7]],
                          dtype=torch.int8),
             torch.tensor([0, 100, 120, 127], dtype=torch.int8)))
add("trapz_int8_constant_dx", lambda: lam(
    lambda y: (torch.trapz(y, dx=2), torch.trapezoid(y, dim=0))),
    lambda: (torch.tensor([[127, 3, 127], [127, -128, -128]],
                          dtype=torch.int8),))
add("cumulative_trapezoid_int8", lambda: lam(
    lambda y, x: (torch.cumulative_trapezoid(y, x),
                  torch.cumulative_trapezoid(y, dx=3))),
    lambda: (torch.tensor([1, 3, 127, -128, 90], dtype=torch.int8),
             torch.tensor([0, 100, 120, 127, -100], dtype=torch.int8)))
add("trapz_int32_float_spacings", lambda: lam(
    lambda y, x: torch.trapz(y, x)),
    lambda: (torch.tensor([2**30, 2**30, 5], dtype=torch.int32),
             torch.tensor([0.0, 3.5, 7.0])))
add("margin_ranking_loss_int8", lambda: lam(
    lambda a, b, t: (F.margin_ranking_loss(a, b, t, margin=0.5,
                                           reduction="none"),
                     F.margin_ranking_loss(a, b, t))),
    lambda: (torch.tensor([100, -100, 50, -128], dtype=torch.int8),
             torch.tensor([-100, 100, 5, 1], dtype=torch.int8),
             torch.tensor([1, -1, 1, -1], dtype=torch.int8)))

# --- polygamma(1, x) (trigamma) as ATen computes it: at the poles of a
# negative integer x, pi^2 / sin(pi x)^2 of the rounded sin. ---------------
family("trigamma")
add("poles_and_values", lambda: lam(
    lambda x, y: (torch.polygamma(1, x), torch.special.polygamma(1, y),
                  torch.polygamma(1, y.double()))),
    lambda: (torch.tensor([0, -1, -2, -7, 3, 7, 100]),
             torch.tensor([0.5, -1.5, -2.0, 3.25, 1e-3, 40.0, -0.25])))

# --- Recurrent modules (nn.RNN/LSTM/GRU and their cells), unrolled over
# the example's sequence by the tracer's reference forwards. ---------------
family("recurrent")


class _Recurrent(nn.Module):
    """A recurrent module with its state passed in and every output
    returned."""

    def __init__(self, rnn):
        super().__init__()
        self.rnn = rnn

    def forward(self, x, h, c):
        if isinstance(self.rnn, nn.LSTM):
            out, (h, c) = self.rnn(x, (h, c))
            return out, h, c
        out, h = self.rnn(x, h)
        return out, h + c.sum()


class _Tagger(nn.Module):
    """Embedding, a bidirectional two-layer LSTM, a classifier per step."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(30, 8)
        self.lstm = nn.LSTM(8, 12, num_layers=2, bidirectional=True,
                            batch_first=True)
        self.out = nn.Linear(24, 5)

    def forward(self, tokens):
        states, _ = self.lstm(self.embed(tokens))
        return self.out(states)


class _Cells(nn.Module):
    """Each cell stepped twice, by hand."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTMCell(6, 7)
        self.gru = nn.GRUCell(7, 5)
        self.rnn = nn.RNNCell(5, 4, nonlinearity="relu")

    def forward(self, x0, x1):
        h, c = self.lstm(x0)
        h, c = self.lstm(x1, (h, c))
        g = self.gru(h)
        g = self.gru(c, g)
        return self.rnn(g), self.rnn(g[0])


add("lstm_with_state", lambda: _Recurrent(nn.LSTM(5, 6)),
    randn((9, 2, 5), (1, 2, 6), (1, 2, 6)))
add("lstm_projection_bidirectional", lambda: _Recurrent(
    nn.LSTM(5, 6, proj_size=3, num_layers=2, bidirectional=True)),
    randn((4, 3, 5), (4, 3, 3), (4, 3, 6)))
add("gru_batch_first_two_layers", lambda: _Recurrent(
    nn.GRU(5, 6, num_layers=2, batch_first=True)),
    lambda: (torch.randn(3, 8, 5), torch.randn(2, 3, 6), torch.randn(1)))
add("rnn_relu_unbatched", lambda: _Recurrent(
    nn.RNN(5, 6, nonlinearity="relu", bias=False)),
    lambda: (torch.randn(6, 5), torch.randn(1, 6), torch.randn(2)))
add("tagger", _Tagger, lambda: (torch.randint(0, 30, (2, 7)),))
add("cells", _Cells, randn((3, 6), (3, 6)))

# --- Sizes as numbers (static shapes) and item(). -------------------------
family("python_numbers")
add("arange_of_a_size", lambda: lam(
    lambda x: x * torch.arange(x.shape[1]) / float(x.size(-1))),
    randn((3, 5)))
add("size_returned", lambda: lam(lambda x: (x.relu(), x.size(0), x.dim())),
    randn((3, 5)))
add("item_scales", lambda: lam(
    lambda x: x * x.abs().max().item() - x.argmax().item()),
    randn((4, 3)))
add("tensor_of_a_size", lambda: lam(
    lambda x: x / torch.tensor(x.shape[0], dtype=torch.float32)),
    randn((6, 2)))

# --- nn.EmbeddingBag and F.embedding_bag (a reference in the tracer). ----
family("embedding_bag")


class _TextClassifier(nn.Module):
    """PyTorch's text classification tutorial model: EmbeddingBag (mean)
    over token bags given by offsets, then a linear layer."""

    def __init__(self):
        super().__init__()
        self.embedding = nn.EmbeddingBag(50, 8)
        self.fc = nn.Linear(8, 4)

    def forward(self, text, offsets):
        return self.fc(self.embedding(text, offsets))


_BAG_INDICES = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9])
_BAG_OFFSETS = torch.tensor([0, 4, 4, 6])
for _mode in ("sum", "mean", "max"):
    add(f"offsets_{_mode}", lambda _mode=_mode: nn.EmbeddingBag(
        10, 3, mode=_mode), lambda: (_BAG_INDICES, _BAG_OFFSETS))
    add(f"fixed_bags_{_mode}", lambda _mode=_mode: nn.EmbeddingBag(
        10, 3, mode=_mode, padding_idx=0),
        lambda: (torch.randint(0, 10, (4, 3)),))
    add(f"padding_last_offset_{_mode}", lambda _mode=_mode: nn.EmbeddingBag(
        10, 3, mode=_mode, padding_idx=4, include_last_offset=True),
        lambda: (_BAG_INDICES, torch.tensor([0, 4, 4, 6, 8])))
add("per_sample_weights", lambda: lam(
    lambda i, o, w: F.embedding_bag(i, torch.arange(30.0).reshape(10, 3) / 7,
                                    o, mode="sum", per_sample_weights=w)),
    lambda: (_BAG_INDICES, _BAG_OFFSETS, torch.rand(8)))
add("text_classifier", _TextClassifier,
    lambda: (torch.randint(0, 50, (20,)), torch.tensor([0, 5, 9, 15])))

# --- Bicubic interpolation (LibTorch's separable cubic kernel). ----------
family("bicubic")
add("scale_2", lambda: lam(lambda x: F.interpolate(
    x, scale_factor=2, mode="bicubic")), randn((2, 3, 5, 7)))
add("size_align_corners", lambda: lam(lambda x: F.interpolate(
    x, size=(9, 4), mode="bicubic", align_corners=True)), randn((1, 2, 5, 7)))
add("downscale", lambda: lam(lambda x: F.interpolate(
    x, scale_factor=0.6, mode="bicubic")), randn((1, 2, 8, 9)))
add("module_float64", lambda: nn.Upsample(scale_factor=1.5, mode="bicubic"),
    randn((1, 2, 4, 6), dtype=torch.float64))

# --- Spatial transformers: F.affine_grid and F.grid_sample. ---------------
family("grid_sample")


class _SpatialTransformer(nn.Module):
    """A localization net predicts theta; the input is resampled on it."""

    def __init__(self):
        super().__init__()
        self.loc = nn.Linear(3 * 6 * 7, 6)

    def forward(self, x):
        theta = self.loc(x.flatten(1)).view(-1, 2, 3)
        grid = F.affine_grid(theta, x.size(), align_corners=False)
        return F.grid_sample(x, grid, align_corners=False)


for _mode in ("bilinear", "nearest"):
    for _pad in ("zeros", "border", "reflection"):
        add(f"{_mode}_{_pad}", lambda _mode=_mode, _pad=_pad: lam(
            lambda x, g: (F.grid_sample(x, g, mode=_mode, padding_mode=_pad,
                                        align_corners=False),
                          F.grid_sample(x, g, mode=_mode, padding_mode=_pad,
                                        align_corners=True))),
            lambda: (torch.randn(2, 3, 6, 7),
                     torch.rand(2, 4, 5, 2) * 2.4 - 1.2))
add("affine_grid", lambda: lam(
    lambda t: (F.affine_grid(t, (2, 3, 5, 4), align_corners=False),
               F.affine_grid(t, (2, 3, 1, 4), align_corners=True))),
    lambda: (torch.randn(2, 2, 3),))
add("spatial_transformer", _SpatialTransformer, randn((2, 3, 6, 7)))

# --- histc (LibTorch's binning, NaN in the first bin as 1.13 counts it). --
family("histc")
add("fixed_range", lambda: lam(lambda x: torch.histc(x, bins=7, min=-2, max=2)),
    randn((1000,)))
add("data_range", lambda: lam(lambda x: x.histc(bins=10)), randn((4, 50)))
add("edges_outside_nan", lambda: lam(
    lambda x: torch.histc(x, bins=4, min=0, max=1)),
    lambda: (torch.tensor([0., 0.25, 0.5, 0.75, 1.0, 1.5, -0.1,
                           float("nan")]),))
add("constant_data", lambda: lam(lambda x: torch.histc(x, bins=3)),
    lambda: (torch.full((5,), 2.0),))

# --- gcd and lcm (Euclid's loop per element). -----------------------------
family("gcd_lcm")
add("int64", lambda: lam(lambda a, b: (torch.gcd(a, b), torch.lcm(a, b))),
    randint(-60, 60, (50,), (50,)))
add("int32_broadcast_method", lambda: lam(lambda a, b: (a.gcd(b), a.lcm(b))),
    randint(-1000, 1000, (5, 10), (10,), dtype=torch.int32))
add("zeros", lambda: lam(lambda a, b: (torch.gcd(a, b), torch.lcm(a, b))),
    lambda: (torch.tensor([0, 4, 0, -6]), torch.tensor([0, 0, 3, 4])))
add("uint8", lambda: lam(lambda a, b: (torch.gcd(a, b), torch.lcm(a, b))),
    randint(0, 255, (16,), (16,), dtype=torch.uint8))

# --- 3-D transposed convolutions (3-D U-Net decoders). ---------------------
family("conv_transpose3d")
add("stride_2", lambda: nn.ConvTranspose3d(3, 4, 2, stride=2),
    randn((2, 3, 3, 4, 5)))
add("padding_output_padding_groups", lambda: nn.ConvTranspose3d(
    4, 6, 3, stride=2, padding=1, output_padding=1, groups=2),
    randn((1, 4, 3, 3, 4)))
add("dilation_no_bias_unbatched", lambda: nn.ConvTranspose3d(
    2, 3, (2, 3, 2), dilation=(1, 2, 1), bias=False), randn((2, 3, 4, 3)))
add("functional", lambda: lam(lambda x, w: F.conv_transpose3d(
    x, w, stride=(1, 2, 1), padding=(0, 1, 1))),
    randn((1, 3, 4, 4, 4), (3, 2, 3, 3, 3)))

# --- More calling forms: repeat_interleave, len(), new_tensor, kl_div's
# batchmean. -----------------------------------------------------------------
family("calling_forms")
add("repeat_interleave", lambda: lam(
    lambda x: (x.repeat_interleave(2, dim=0), torch.repeat_interleave(x, 3, 1),
               x.repeat_interleave(2))), randn((3, 4)))
add("len_and_new_tensor", lambda: lam(
    lambda x: x * len(x) + x.new_tensor([1.0, 2.0, 3.0, 4.0])), randn((3, 4)))
add("tensordot", lambda: lam(lambda a, b: (
    torch.tensordot(a, b, dims=([1, 0], [0, 2])),
    torch.tensordot(a, a.transpose(0, 2), 1))),
    randn((3, 4, 5), (4, 2, 3)))
add("zero_", lambda: lam(lambda x: torch.zero_(x.clone()) + x),
    randn((3, 4)))
add("cross_entropy_label_smoothing", lambda: lam(
    lambda x, t, w: (F.cross_entropy(x, t, label_smoothing=0.2),
                     F.cross_entropy(x, t, weight=w, label_smoothing=0.1,
                                     reduction="none"),
                     F.cross_entropy(x, t, weight=w, label_smoothing=0.3,
                                     reduction="sum"))),
    lambda: (torch.randn(4, 5), torch.tensor([0, 2, -100, 1]),
             torch.rand(5)))
add("cross_entropy_loss_module_label_smoothing",
    lambda: nn.CrossEntropyLoss(label_smoothing=0.15),
    lambda: (torch.randn(2, 5, 3), torch.randint(0, 5, (2, 3))))
add("kl_div_batchmean", lambda: lam(lambda x, t: F.kl_div(
    x.log_softmax(-1), t.softmax(-1), reduction="batchmean")),
    randn((4, 5), (4, 5)))

# --- Several index tensors next to each other (`x[i, j]`). ----------------
family("multi_index")
add("pairs", lambda: lam(lambda x, i, j: x[i, j]),
    lambda: (torch.randn(4, 5, 6), torch.tensor([0, 2, -1]),
             torch.tensor([1, 1, 4])))
add("arange_rows", lambda: lam(
    lambda lp, t: -lp[torch.arange(lp.shape[0]), t].mean()),
    lambda: (torch.randn(6, 10).log_softmax(-1), torch.randint(0, 10, (6,))))
add("after_slice_broadcast", lambda: lam(lambda x, i, j: x[:, i, j]),
    lambda: (torch.randn(4, 5, 6), torch.tensor([[0], [2]]),
             torch.tensor([1, 5, 3])))
add("three_2d", lambda: lam(lambda x, i, j: x[i, j, j + 1]),
    lambda: (torch.randn(4, 5, 6), torch.tensor([[0, 1], [2, 3]]),
             torch.tensor([[1, 1], [4, 0]])))

# --- Every spelling of an operator (issue 27.1): torch.*, Tensor methods,
# --- F.*, torch._C._nn/_special/_linalg, torch.ops.aten packets and
# --- overloads (spellings.py).

family("spellings")
for _name, _fn, _inputs in spellings.cases():
    add(_name, lambda fn=_fn: lam(fn), _inputs)

# --- Complex numbers (issue 27.4): arithmetic, functions, parts,
# --- comparisons, reductions and products of complex64 and complex128
# --- tensors (complex_numbers.py).

family("complex")
for _name, _fn, _inputs in complex_numbers.cases():
    add(_name, lambda fn=_fn: lam(fn), _inputs)

# --- Calling forms beyond the common one (issue 27): cross-entropy with
# --- probability targets and label smoothing, index_put and assignment
# --- with several index tensors, masked_scatter (op_forms.py).

family("cross_entropy")
for _name, _fn, _inputs in op_forms.cross_entropy_cases():
    add(_name, lambda fn=_fn: lam(fn), _inputs)

family("indexing_forms")
for _name, _fn, _inputs in op_forms.indexing_cases():
    add(_name, lambda fn=_fn: lam(fn), _inputs)

# --- Data-dependent control flow (issue 28): modules torch.fx cannot
# --- trace, compiled through torch.jit.script with their branches and
# --- loops (control_flow.py).

family("control_flow")
for _name, _model, _inputs, _batches in control_flow.cases():
    add(_name, _model, _inputs, batch_sizes=_batches)

# --- Quantized models (issue 29): converted FX models against PyTorch's
# --- quantized engine, outputs in quantization steps (quantized.py).

family("quantized")
for _name, _model, _inputs, _atol, _why in quantized.cases():
    add(_name, _model, _inputs, tolerance=Tolerance(0.0, _atol, _why))

# --- Training steps (issue 27.3): make_fx of a function that calls
# --- torch.autograd.grad is a graph of backward operators (gelu_backward,
# --- _log_softmax_backward_data, mse_loss_backward, ...) and of in-place
# --- ATen calls on fresh tensors (fill_, sub_), which functionalize
# --- makes out-of-place.

family("training_steps")


def _training_step(activations, normalize):
    """A step of a one-layer model: the loss and the weight's gradient."""
    def step(x, w, t):
        w = w.detach().requires_grad_(True)
        h = x @ w
        for activation in activations:
            h = activation(h)
        loss = F.mse_loss(normalize(h, 1), t)
        grad, = torch.autograd.grad(loss, [w])
        return loss.detach(), grad
    return step


def _traced_step(step, shapes):
    from torch.fx.experimental.proxy_tensor import make_fx
    return lambda: make_fx(step)(*(torch.randn(s) for s in shapes))


for _name, _activations, _normalize in [
        ("gelu_silu_log_softmax", (F.gelu, F.silu), torch.log_softmax),
        ("tanh_sigmoid_softmax", (torch.tanh, torch.sigmoid), torch.softmax),
        ("leaky_elu_softplus", (lambda h: F.leaky_relu(h, 0.1), F.elu,
                                F.softplus), torch.log_softmax),
        ("hardswish_mish_relu6", (F.hardswish, F.mish, F.relu6,
                                  F.hardsigmoid), torch.softmax),
        ("gelu_tanh_selu_relu", (lambda h: F.gelu(h, approximate="tanh"),
                                 F.selu, F.relu), torch.log_softmax)]:
    add(_name, _traced_step(_training_step(_activations, _normalize),
                            ((4, 5), (5, 3), (4, 3))),
        randn((4, 5), (5, 3), (4, 3)))


def _classifier_step(x, w, g, t):
    """Cross-entropy through a layer norm with an affine weight: make_fx
    gives nll_loss_forward/backward, native_layer_norm(_backward)."""
    w = w.detach().requires_grad_(True)
    g = g.detach().requires_grad_(True)
    h = F.layer_norm(x @ w, (3,), g)
    loss = F.cross_entropy(h, t)
    gw, gg = torch.autograd.grad(loss, [w, g])
    return loss.detach(), gw, gg


def _classifier_traced():
    from torch.fx.experimental.proxy_tensor import make_fx
    inputs = (torch.randn(4, 5), torch.randn(5, 3), torch.rand(3) + 0.5,
              torch.randint(0, 3, (4,)))
    return _FixedTargets(make_fx(_classifier_step)(*inputs), inputs[3])


class _FixedTargets(nn.Module):
    """The traced step with its class targets as a buffer."""

    def __init__(self, step, targets):
        super().__init__()
        self.step = step
        self.register_buffer("targets", targets)

    def forward(self, x, w, g):
        return self.step(x, w, g, self.targets)


def _conv_step(conv, pool):
    """A conv layer's weight and bias gradients through relu and max
    pooling: make_fx gives convolution(_backward), max_pool*d_with_indices
    (_backward) and threshold_backward."""
    def step(x, w, b):
        w = w.detach().requires_grad_(True)
        b = b.detach().requires_grad_(True)
        y = pool(F.relu(conv(x, w, b)))
        return torch.autograd.grad(y.square().mean(), [w, b])
    return step


for _name, _conv, _pool, _shapes in [
        ("conv2d_stride_pad_maxpool",
         lambda x, w, b: F.conv2d(x, w, b, stride=2, padding=1),
         lambda y: F.max_pool2d(y, 2), ((2, 2, 9, 9), (3, 2, 3, 3), (3,))),
        ("conv2d_dilated_odd",
         lambda x, w, b: F.conv2d(x, w, b, stride=(2, 1), dilation=2),
         lambda y: F.max_pool2d(y, 3, 2, 1), ((1, 3, 10, 9), (4, 3, 3, 2),
                                              (4,))),
        ("conv1d_maxpool1d",
         lambda x, w, b: F.conv1d(x, w, b, stride=3, padding=2),
         lambda y: F.max_pool1d(y, 2), ((2, 2, 17), (3, 2, 4), (3,))),
        ("conv3d_maxpool3d",
         lambda x, w, b: F.conv3d(x, w, b, padding=1),
         lambda y: F.max_pool3d(y, 2), ((1, 2, 4, 5, 4), (2, 2, 3, 3, 3),
                                        (2,)))]:
    add(_name, _traced_step(_conv_step(_conv, _pool), _shapes),
        randn(*_shapes))

def _embedding_step(w, x, t):
    """An embedding's gradient (embedding_dense_backward, padding row 0)."""
    w = w.detach().requires_grad_(True)
    ids = (x.abs() * 3).long().clamp(max=5)
    y = F.embedding(ids, w, padding_idx=0).sum(1)
    grad, = torch.autograd.grad(F.mse_loss(y, t), [w])
    return grad


add("embedding_padding", _traced_step(_embedding_step,
                                      ((6, 4), (3, 5), (3, 4))),
    randn((6, 4), (3, 5), (3, 4)))
add("prims_convert_element_type", lambda: lam(
    lambda x: torch.ops.prims.convert_element_type(x * 3, torch.int32)),
    randn((3, 5)))
add("cross_entropy_layer_norm", _classifier_traced,
    lambda: (torch.randn(4, 5), torch.randn(5, 3), torch.rand(3) + 0.5))



def _bn_pool_step(x, w, gamma, fc):
    """Conv, training-mode batch norm, relu, average pooling (padded,
    ceil mode, pad excluded), adaptive pooling and a linear head: make_fx
    gives native_batch_norm_backward, avg_pool2d_backward, _reshape_alias
    and an uninitialized uint8 tensor (empty.memory_format)."""
    w, gamma, fc = (t.detach().requires_grad_(True) for t in (w, gamma, fc))
    h = F.conv2d(x, w, padding=1)
    h = F.relu(F.batch_norm(h, None, None, gamma.abs() + 0.5, None,
                            training=True))
    h = F.avg_pool2d(h, 3, 2, padding=1, ceil_mode=True,
                     count_include_pad=False)
    loss = (F.adaptive_avg_pool2d(h, 1).flatten(1) @ fc).pow(2).mean()
    return (loss.detach(),) + torch.autograd.grad(loss, [w, gamma, fc])


def _bn_eval_pool3d_step(x, mean, var, weight):
    """Evaluation-mode batch norm with running statistics and avg_pool3d
    with a divisor: the backward's eval formula and the 3-D gather."""
    x, weight = x.detach().requires_grad_(True), \
        weight.detach().requires_grad_(True)
    h = F.batch_norm(x, mean, var.abs() + 0.5, weight, None, training=False)
    h = F.avg_pool3d(torch.tanh(h), 2, 1, divisor_override=3)
    loss = (h * h).sum()
    return (loss.detach(),) + torch.autograd.grad(loss, [x, weight])


def _adaptive_pool_step(x, w):
    """Gradients through adaptive average pooling to (2, 3) and to (2, 1,
    3): make_fx gives _adaptive_avg_pool2d/3d and their backwards."""
    x = x.detach().requires_grad_(True)
    h = x * w
    two = F.adaptive_avg_pool2d(h, (2, 3))
    three = F.adaptive_avg_pool3d(h.unsqueeze(2).expand(2, 3, 4, 5, 7),
                                  (2, 1, 3))
    loss = (two * two).sum() + three.tanh().sum()
    return (loss.detach(),) + torch.autograd.grad(loss, [x])


def _grouped_conv_step(x, w, b, d):
    """The input, weight and bias gradients of a grouped 2-D conv (stride,
    padding) and a depthwise dilated 1-D conv: convolution_backward of
    groups 2 and 4."""
    x, w, b, d = (t.detach().requires_grad_(True) for t in (x, w, b, d))
    y = F.conv2d(x, w, b, stride=2, padding=1, groups=2)
    z = F.conv1d(y.flatten(2), d, padding=2, dilation=2, groups=6)
    loss = (y.tanh() * y).sum() + (z * z).mean()
    return (loss.detach(),) + torch.autograd.grad(loss, [x, w, b, d])


def _segmentation_step(x, w):
    """Per-pixel cross-entropy with class weights and an ignored pixel
    (targets a constant of the step): make_fx gives nll_loss2d_forward,
    nll_loss2d_backward and lift_fresh_copy."""
    w = w.detach().requires_grad_(True)
    targets = torch.tensor([[[0, 1, 2], [2, 1, -100]], [[1, 1, 0], [0, 2, 2]]])
    logits = F.conv2d(x, w, padding=1)
    loss = F.cross_entropy(logits, targets,
                           weight=torch.tensor([0.5, 1.0, 2.0]))
    return (loss.detach(),) + torch.autograd.grad(loss, [w])


add("segmentation_cross_entropy", _traced_step(
    _segmentation_step, ((2, 4, 2, 3), (3, 4, 3, 3))),
    randn((2, 4, 2, 3), (3, 4, 3, 3)))
add("grouped_conv_weight_grad", _traced_step(
    _grouped_conv_step, ((2, 4, 7, 7), (6, 2, 3, 3), (6,), (12, 1, 3))),
    randn((2, 4, 7, 7), (6, 2, 3, 3), (6,), (12, 1, 3)))
add("adaptive_avg_pool_2d_3d", _traced_step(
    _adaptive_pool_step, ((2, 3, 5, 7), (7,))),
    randn((2, 3, 5, 7), (7,)))
add("conv_batch_norm_avg_pool", _traced_step(
    _bn_pool_step, ((2, 3, 9, 9), (4, 3, 3, 3), (4,), (4, 5))),
    randn((2, 3, 9, 9), (4, 3, 3, 3), (4,), (4, 5)))
add("batch_norm_eval_avg_pool3d", _traced_step(
    _bn_eval_pool3d_step, ((2, 3, 4, 5, 4), (3,), (3,), (3,))),
    randn((2, 3, 4, 5, 4), (3,), (3,), (3,)))

# --- Registry checks. --------------------------------------------------------

CASES_BY_NAME = {case.name: case for case in CASES}
assert len(CASES_BY_NAME) == len(CASES), "duplicate case names"
