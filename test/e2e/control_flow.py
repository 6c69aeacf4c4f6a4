"""Data-dependent control flow (issue 28, docs/ControlFlow.md): modules
torch.fx cannot trace, which fx_mlir.compile scripts and compiles with
their branches and loops. `cases()` yields `(name, make_model, inputs,
batch_sizes)`; `inputs(batch)` takes the batch for dynamic-batch cases."""

from typing import List

import torch
import torch.nn as nn
import torch.nn.functional as F


class SignBranch(nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return torch.relu(x) * 2
        return torch.sigmoid(x) - 1


class NormBranch(nn.Module):
    """Branches on a norm, carrying two results out."""

    def forward(self, x, y):
        if bool(x.norm() > y.norm()):
            a, b = x - y, x * y
        else:
            a, b = y - x, x + y
        return a, b.sum(0)


class SizeLoop(nn.Module):
    def forward(self, x):
        h = torch.zeros(x.size(1))
        for i in range(x.size(0)):
            h = torch.tanh(h + x[i])
        return h


class Newton(nn.Module):
    def forward(self, a):
        x = a
        while bool((x * x - a).abs().max() > 1e-4):
            x = 0.5 * (x + a / x)
        return x


class CountTo(nn.Module):
    """A while loop whose trip count the data decides, carrying an int."""

    def forward(self, x):
        steps = 0
        while bool(x.max() < 10.0):
            x = x * 1.5 + 0.5
            steps += 1
        return x, steps


class IfInLoop(nn.Module):
    def forward(self, x):
        total = torch.zeros_like(x[0])
        for i in range(x.size(0)):
            if bool(x[i].mean() > 0):
                total = total + x[i]
            else:
                total = total * 0.5
        return total


class LoopInIf(nn.Module):
    def forward(self, x):
        if bool(x.mean() > 0):
            for i in range(4):
                x = torch.sin(x) + x
        else:
            x = torch.cos(x)
        return x


class BreakEarly(nn.Module):
    def forward(self, x):
        for i in range(20):
            if bool(x.sum() > 50):
                break
            x = x * 2
        return x


class IterRows(nn.Module):
    """`for row in x`: TorchScript loops over len(x)."""

    def forward(self, x):
        s = torch.zeros(x.size(1))
        for row in x:
            s = s + row * row
        return s


class SkipEven(nn.Module):
    """`continue` in a for loop."""

    def forward(self, x):
        for i in range(x.size(0)):
            if i % 2 == 0:
                continue
            x = x + i
        return x


class EarlyReturn(nn.Module):
    def forward(self, x):
        if bool(x.abs().max() > 3):
            return x / x.abs().max()
        return F.softplus(x)


class GRULoop(nn.Module):
    """A GRU cell stepped over the sequence (dim 0, dynamic)."""

    def __init__(self):
        super().__init__()
        self.cell = nn.GRUCell(6, 8)

    def forward(self, xs):
        h = torch.zeros(xs.size(1), 8)
        for t in range(xs.size(0)):
            h = self.cell(xs[t], h)
        return h


class ElmanLoop(nn.Module):
    def __init__(self):
        super().__init__()
        self.ih = nn.Linear(6, 12)
        self.hh = nn.Linear(12, 12, bias=False)

    def forward(self, xs):
        h = torch.zeros(xs.size(1), 12)
        outs = []
        for t in range(xs.size(0)):
            h = torch.tanh(self.ih(xs[t]) + self.hh(h))
        return h


class StackedOutputs(nn.Module):
    """An RNN collecting every step's state in a list, stacked after the
    loop (the list is carried as one growing tensor)."""

    def __init__(self):
        super().__init__()
        self.ih = nn.Linear(6, 8)
        self.hh = nn.Linear(8, 8)

    def forward(self, xs):
        h = torch.zeros(xs.size(1), 8)
        outs: List[torch.Tensor] = []
        for t in range(xs.size(0)):
            h = torch.tanh(self.ih(xs[t]) + self.hh(h))
            outs.append(h)
        return torch.stack(outs), torch.cat(outs), h


class WhileCollect(nn.Module):
    """A while loop appending to a list, read with len() afterwards."""

    def forward(self, x):
        parts: List[torch.Tensor] = []
        while bool(x.sum() < 20):
            x = x + 1
            parts.append(x * 2)
        return torch.stack(parts).sum(0), len(parts)


class Greedy(nn.Module):
    """Greedy decoding: the sequence grows by torch.cat each step."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(16, 8)
        self.proj = nn.Linear(8, 16)

    def forward(self, tokens):
        seq = tokens
        for i in range(5):
            nxt = self.proj(self.emb(seq[:, -1])).argmax(-1, keepdim=True)
            seq = torch.cat([seq, nxt], 1)
        return seq


class Gate(nn.Module):
    def forward(self, x):
        if bool(x.abs().mean() > 0.5):
            return x * 0.5
        return x


class GatedMLP(nn.Module):
    """Control flow in a submodule of an otherwise traceable model."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 16)
        self.gate = Gate()
        self.fc2 = nn.Linear(16, 4)

    def forward(self, x):
        return self.fc2(torch.relu(self.gate(self.fc1(x))))


def _randn(*shape):
    return lambda: (torch.randn(*shape),)


def cases():
    yield "sign_branch_pos", SignBranch, lambda: (torch.rand(3, 4),), ()
    yield "sign_branch_neg", SignBranch, lambda: (-torch.rand(3, 4),), ()
    yield "norm_branch", NormBranch, lambda: (torch.randn(4, 3),
                                              torch.randn(4, 3)), ()
    yield "size_loop", SizeLoop, _randn(6, 5), ()
    yield "size_loop_dynamic", SizeLoop, (lambda b: (torch.randn(b, 5),)), \
        (4, 1, 9)
    yield "newton", Newton, lambda: (torch.rand(8) * 3 + 0.5,), ()
    yield "count_to", CountTo, lambda: (torch.rand(5) + 0.1,), ()
    yield "if_in_loop", IfInLoop, _randn(7, 4), ()
    yield "loop_in_if_pos", LoopInIf, lambda: (torch.rand(2, 3),), ()
    yield "loop_in_if_neg", LoopInIf, lambda: (-torch.rand(2, 3),), ()
    yield "break_early", BreakEarly, lambda: (torch.rand(4),), ()
    yield "iterate_rows", IterRows, _randn(5, 3), ()
    yield "continue", SkipEven, _randn(6), ()
    yield "early_return", EarlyReturn, lambda: (torch.randn(5) * 3,), ()
    yield "gru_loop", GRULoop, _randn(5, 2, 6), ()
    yield "elman_dynamic", ElmanLoop, (lambda b: (torch.randn(b, 3, 6),)), \
        (5, 2, 11)
    yield "stacked_outputs", StackedOutputs, _randn(5, 2, 6), ()
    yield "stacked_outputs_dynamic", StackedOutputs, \
        (lambda b: (torch.randn(b, 2, 6),)), (4, 1, 7)
    yield "while_collect", WhileCollect, lambda: (torch.rand(4),), ()
    yield "greedy_decode", Greedy, lambda: (torch.tensor([[1], [7], [3]]),), ()
    yield "gated_submodule", GatedMLP, _randn(3, 8), ()
