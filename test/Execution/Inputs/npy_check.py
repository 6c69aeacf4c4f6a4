"""Helpers of fx-run.test: write .npy inputs and compare fx-run's outputs
with PyTorch eager on the same input."""
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..",
                                "examples"))

cmd = sys.argv[1]
if cmd in ("write", "write-f64"):
    shape = [int(s) for s in sys.argv[3:]] or [1, 3, 16, 16]
    x = np.random.default_rng(0).standard_normal(shape)
    np.save(sys.argv[2], x.astype(np.float64 if cmd == "write-f64"
                                  else np.float32))
elif cmd == "compare":
    from make_small_cnn import SmallCNN
    # The weights of examples/small_cnn.mlir, as make_small_cnn.py makes
    # them: seed 0, three training-mode passes for the batch norm stats.
    torch.manual_seed(0)
    model = SmallCNN()
    with torch.no_grad():
        for _ in range(3):
            model(torch.randn(4, 3, 16, 16))
    model.eval()
    x = torch.from_numpy(np.load(sys.argv[2]))
    with torch.no_grad():
        expected = model(x)
    for label, path in (("compiled", sys.argv[3]),
                        ("interpreted", sys.argv[4])):
        got = torch.from_numpy(np.load(path))
        print(f"{label} matches eager:",
              torch.allclose(got, expected, rtol=1e-4, atol=1e-5))
