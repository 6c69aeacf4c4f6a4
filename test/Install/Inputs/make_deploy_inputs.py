"""Writes what test/Install/deploy.test runs (argv[1] is the directory):
torchvision's resnet18 (random weights, eval mode) imported as
resnet18.mlir, an input image and eager PyTorch's output as .npy and as
raw float32 files (for the C program)."""
import os
import sys

import numpy as np
import torch
import torchvision

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..",
                                "python"))
from fx_mlir.compiler import trace  # noqa: E402
from fx_mlir.importer import import_graph_module  # noqa: E402

out = sys.argv[1]
torch.manual_seed(0)
model = torchvision.models.resnet18().eval()
x = torch.randn(1, 3, 224, 224)
with torch.no_grad():
    expected = model(x)
    ir = import_graph_module(trace(model, (x,)), (x,))
with open(os.path.join(out, "resnet18.mlir"), "w") as f:
    f.write(ir)
np.save(os.path.join(out, "input.npy"), x.numpy())
np.save(os.path.join(out, "expected.npy"), expected.numpy())
x.numpy().tofile(os.path.join(out, "input.bin"))
expected.numpy().tofile(os.path.join(out, "expected.bin"))
