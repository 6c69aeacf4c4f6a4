"""Calling forms of operators beyond their common one (issue 27): each
case is `(name, fn, inputs)`, `fn` a function of the input tensors (traced
by cases.lam) compared with eager.

- `cross_entropy_cases()`: F.cross_entropy with probability targets (the
  input's shape, 2-D and 4-D), class weights, label smoothing on index and
  probability targets, ignore_index, each reduction, unbatched inputs.
- `indexing_cases()`: index_put / advanced-index assignment with several
  index tensors (negative and broadcast indices, accumulate),
  masked_scatter.
"""

import torch
import torch.nn.functional as F


def _logits_and_probs(*shape):
    def make():
        return (torch.randn(shape), torch.softmax(torch.randn(shape), 1))
    return make


def _logits_and_classes(*shape):
    def make():
        classes = shape[1]
        target_shape = (shape[0],) + shape[2:]
        return (torch.randn(shape), torch.randint(0, classes, target_shape))
    return make


_WEIGHT = torch.tensor([0.5, 1.0, 1.5, 2.0, 0.75])


def cross_entropy_cases():
    for reduction in ("mean", "sum", "none"):
        yield from _cross_entropy_reduced(reduction)
    yield ("unbatched_probs",
           lambda x, p: F.cross_entropy(x[0], p[0], label_smoothing=0.1),
           _logits_and_probs(1, 5))
    yield ("unbatched_index_smoothing",
           lambda x: F.cross_entropy(x, torch.tensor(2), label_smoothing=0.1,
                                     reduction="none"),
           lambda: (torch.randn(5),))


def _cross_entropy_reduced(reduction):
    """The cases of one reduction (a function of it, so that each lambda
    reads its own)."""
    yield (f"probs_{reduction}",
           lambda x, p: F.cross_entropy(x, p, reduction=reduction),
           _logits_and_probs(4, 5))
    yield (f"probs_weight_smoothing_{reduction}",
           lambda x, p: F.cross_entropy(x, p, weight=_WEIGHT,
                                        label_smoothing=0.2,
                                        reduction=reduction),
           _logits_and_probs(4, 5))
    yield (f"probs_4d_{reduction}",
           lambda x, p: F.cross_entropy(x, p, label_smoothing=0.1,
                                        reduction=reduction),
           _logits_and_probs(2, 5, 3, 3))
    yield (f"index_smoothing_{reduction}",
           lambda x, t: F.cross_entropy(x, t, label_smoothing=0.1,
                                        reduction=reduction),
           _logits_and_classes(4, 5))
    yield (f"index_smoothing_weight_ignore_{reduction}",
           lambda x: F.cross_entropy(x, torch.tensor([0, -100, 1, 4]),
                                     weight=_WEIGHT, label_smoothing=0.3,
                                     reduction=reduction),
           lambda: (torch.randn(4, 5),))
    yield (f"index_smoothing_4d_ignore_{reduction}",
           lambda x, t: F.cross_entropy(x, t, label_smoothing=0.1,
                                        reduction=reduction, ignore_index=2),
           _logits_and_classes(2, 5, 3, 3))


def _assign_pairs(x, v):
    y = x.clone()
    y[torch.tensor([0, 2, -1]), torch.tensor([1, -1, 0])] = v
    return y


def _assign_rows(x, v):
    y = x.clone()
    y[torch.tensor([2, 0])] = v
    return y


def _assign_number(x):
    y = x.clone()
    y[torch.tensor([0, 2]), torch.tensor([3, 3]), torch.tensor([1])] = 2.5
    return y


def indexing_cases():
    yield ("index_put_two_indices",
           lambda x, v: torch.index_put(
               x, (torch.tensor([0, 2]), torch.tensor([1, 3])), v),
           lambda: (torch.randn(3, 4, 5), torch.randn(2, 5)))
    yield ("index_put_accumulate_duplicates",
           lambda x, v: x.index_put(
               (torch.tensor([0, 0, 2]), torch.tensor([1, 1, 3])), v,
               accumulate=True),
           lambda: (torch.randn(3, 4, 5), torch.randn(5)))
    yield ("index_put_three_broadcast",
           lambda x: x.index_put(
               (torch.tensor([0, 2]), torch.tensor([1]), torch.tensor([4, 0])),
               torch.tensor(1.0)),
           lambda: (torch.randn(3, 4, 5),))
    yield ("setitem_index_pairs", _assign_pairs,
           lambda: (torch.randn(3, 4, 5), torch.randn(5)))
    yield ("setitem_rows_of_values", _assign_rows,
           lambda: (torch.randn(3, 4), torch.randn(2, 4)))
    yield ("setitem_three_indices_number", _assign_number,
           lambda: (torch.randn(3, 4, 5),))
    yield ("masked_scatter",
           lambda x, m, s: x.masked_scatter(m, s),
           lambda: (torch.randn(3, 4), torch.rand(3, 4) > 0.5,
                    torch.randn(12)))
    yield ("masked_scatter_broadcast_mask",
           lambda x, m, s: torch.masked_scatter(x, m, s),
           lambda: (torch.randn(3, 4), torch.rand(4) > 0.5,
                    torch.randn(2, 7)))
    yield ("masked_scatter_int",
           lambda x, m, s: x.masked_scatter(m, s),
           lambda: (torch.arange(12).reshape(3, 4), torch.rand(3, 4) > 0.5,
                    torch.arange(100, 112)))
