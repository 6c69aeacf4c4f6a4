"""Helpers of quantized.test: converted FX graph-mode quantized models
(prepare_fx + convert_fx, static and dynamic) written as fx dialect text
with an input and PyTorch's output for it, and fx-run's outputs compared
with that output.

  quantized_check.py write DIR
      DIR/{static,norms,dynamic}.{mlir,x.npy,eager.npy,step}
  quantized_check.py compare EAGER.npy GOT.npy STEP_FILE
      prints whether GOT equals EAGER and how many steps apart they are
"""
import os
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.ao.quantization import (default_dynamic_qconfig,
                                   get_default_qconfig_mapping, QConfigMapping)
from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx

# The weightless quantized modules' model of the end-to-end suite (which
# imports fx_mlir).
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(_HERE, "..", "..", "e2e"))
sys.path.insert(0, os.path.join(_HERE, "..", "..", "..", "python"))
from quantized import Norms  # noqa: E402



class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.conv2 = nn.Conv2d(8, 8, 1)
        self.fc = nn.Linear(16 * 4 * 4, 5)

    def forward(self, x):
        y = self.pool(F.relu(self.conv(x)))
        z = self.conv2(y)
        y = torch.cat([y + z, z], 1)
        return self.fc(torch.flatten(y, 1))


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.relu = nn.ReLU()
        self.fc2 = nn.Linear(32, 4)

    def forward(self, x):
        return self.fc2(self.relu(self.fc1(x)))


def write(directory):
    # fx-run runs LibTorch's default quantized engine; the models are
    # converted and run here under the same one. Where that engine does not
    # sum exactly (onednn without VNNI: fx_mlir.exact_quantized_engine),
    # the activations are 7-bit (the x86 qconfig's reduce_range), which it
    # sums exactly.
    import fx_mlir
    engine = torch.backends.quantized.engine
    qconfig = engine if fx_mlir.exact_quantized_engine() == engine else "x86"
    cases = {
        "static": (ConvNet, get_default_qconfig_mapping(qconfig),
                   (2, 3, 8, 8)),
        "norms": (Norms, get_default_qconfig_mapping(qconfig),
                  (2, 3, 8, 8)),
        "dynamic": (MLP, QConfigMapping().set_object_type(
            nn.Linear, default_dynamic_qconfig).set_object_type(
            nn.ReLU, default_dynamic_qconfig), (4, 16)),
    }
    for name, (model_type, mapping, shape) in cases.items():
        torch.manual_seed(0)
        model = model_type().eval()
        example = (torch.randn(shape),)
        prepared = prepare_fx(model, mapping, example)
        for _ in range(3):
            prepared(torch.randn(shape))
        converted = convert_fx(prepared)
        x = torch.randn(shape)
        with torch.no_grad():
            expected = converted(x)
        with open(os.path.join(directory, name + ".mlir"), "w") as f:
            f.write(fx_mlir.import_graph_module(converted, example))
        np.save(os.path.join(directory, name + ".x.npy"), x.numpy())
        np.save(os.path.join(directory, name + ".eager.npy"),
                expected.numpy())
        # One step of the output: the last layer's output scale; the
        # dynamic model's float output, a float rounding of its largest.
        step = {"static": lambda: converted.fc.scale,
                "norms": lambda: converted.softmax.scale,
                "dynamic": lambda: 1e-6 * float(expected.abs().max())}[name]()
        with open(os.path.join(directory, name + ".step"), "w") as f:
            f.write(repr(step))


def compare(eager, got, step_file):
    """Prints how many quantization steps of size `step` `got` is from
    PyTorch's `eager` at most (0: equal up to float rounding)."""
    a, b = np.load(eager), np.load(got)
    with open(step_file) as f:
        step = float(f.read())
    assert a.shape == b.shape, (a.shape, b.shape)
    print("equal:", bool(np.array_equal(a, b)))
    print("steps:", int(np.ceil(np.abs(a - b).max() / step - 1e-3)))


if __name__ == "__main__":
    if sys.argv[1] == "write":
        write(sys.argv[2])
    else:
        compare(sys.argv[2], sys.argv[3], sys.argv[4])
