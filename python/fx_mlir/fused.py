"""The functions the fused nodes of `fx-opt --fx-fuse-activation` call.

`fx-fuse-activation` folds an activation into the op that produces its input:

    %conv = fx.call_function "aten::conv2d"(%x, %w, %b, [1, 1], [1, 1],
                                            [1, 1], 1)
    %relu = fx.call_function "aten::relu"(%conv)
      ->
    %relu = fx.call_function "fx_mlir.fused.conv2d"(%x, %w, %b, [1, 1],
                                [1, 1], [1, 1], 1, activation="relu")

Each function takes the positional arguments of its LibTorch schema
(aten::conv1d, aten::conv2d, aten::linear, aten::matmul, aten::add.Tensor)
and a keyword-only `activation`, one of ACTIVATIONS, and computes the op then
the activation with PyTorch, so an exported GraphModule runs as it did before
the fusion. They are registered with torch.fx.wrap: tracing a module that
calls them (an exported GraphModule included) keeps one call_function node
per call.
"""

import importlib

import torch
import torch.fx
import torch.nn.functional as F

from .compiler import _load_core

__all__ = ["ACTIVATIONS", "conv1d", "conv2d", "linear", "matmul", "add"]


def gelu_tanh(x):
    """GELU with the tanh approximation (the activation "gelu_tanh")."""
    return F.gelu(x, approximate="tanh")


def _resolve(qualified):
    """The function a qualified name (torch.nn.functional.relu6) names."""
    module, _, name = qualified.rpartition(".")
    if module == __name__:
        return globals()[name]
    return getattr(importlib.import_module(module), name)


# Activation name (as fx-fuse-activation writes it) -> the function applied;
# the list is FusedActivations.def's, read through the extension.
ACTIVATIONS = {name: _resolve(python)
               for name, python in _load_core().fused_activations()}


def _activation(activation):
    """The function `activation` names; ValueError naming it if unknown."""
    try:
        return ACTIVATIONS[activation]
    except (KeyError, TypeError):  # TypeError: an unhashable value
        raise ValueError(f"unknown fused activation {activation!r}; expected "
                         f"one of {', '.join(ACTIVATIONS)}") from None


@torch.fx.wrap
def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1,
           groups=1, *, activation):
    """aten::conv1d followed by `activation`."""
    act = _activation(activation)
    return act(torch.conv1d(input, weight, bias, stride, padding, dilation,
                            groups))


@torch.fx.wrap
def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1,
           groups=1, *, activation):
    """aten::conv2d followed by `activation`."""
    act = _activation(activation)
    return act(torch.conv2d(input, weight, bias, stride, padding, dilation,
                            groups))


@torch.fx.wrap
def linear(input, weight, bias=None, *, activation):
    """aten::linear followed by `activation`."""
    act = _activation(activation)
    return act(F.linear(input, weight, bias))


@torch.fx.wrap
def matmul(self, other, *, activation):
    """aten::matmul followed by `activation`."""
    act = _activation(activation)
    return act(torch.matmul(self, other))


@torch.fx.wrap
def add(self, other, *, alpha=1, activation):
    """aten::add.Tensor followed by `activation`."""
    act = _activation(activation)
    return act(torch.add(self, other, alpha=alpha))
