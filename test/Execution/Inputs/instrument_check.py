"""Helpers of instrument.test: write .npy inputs, and compare the probe
tables fx-run prints for Inputs/instrument.mlir with the statistics
PyTorch computes for the same model and input."""
import re
import sys

import numpy as np
import torch

cmd = sys.argv[1]
if cmd == "write":
    # write <path> <values...>: a float32 tensor of shape [rows, cols] if
    # the first two values are given as "RxC", else 1-d.
    values = sys.argv[3:]
    shape = None
    if "x" in values[0]:
        shape = [int(s) for s in values[0].split("x")]
        values = values[1:]
    x = np.array([float(v) for v in values], dtype=np.float32)
    np.save(sys.argv[2], x.reshape(shape) if shape else x)
elif cmd == "compare-stats":
    # compare-stats <x.npy> <fx-run output>
    fc = torch.nn.Linear(3, 4)
    with torch.no_grad():
        # The state of Inputs/instrument.mlir.
        fc.weight.copy_(torch.tensor([[1.0, 0.0, -1.0], [0.5, 0.5, 0.5],
                                      [-2.0, 1.0, 0.0], [0.0, 0.0, 1.0]]))
        fc.bias.copy_(torch.tensor([0.0, 1.0, -1.0, 2.0]))
        x = torch.from_numpy(np.load(sys.argv[2]))
        y = fc(x)
        expected = {"fc": y, "relu": torch.relu(y)}
    text = open(sys.argv[3]).read()
    for table in ("compiled code", "interpreter"):
        section = text.split(f"probes of the {table}:\n", 1)
        if len(section) < 2:
            print(f"{table}: no probe table")
            continue
        rows = {}
        for line in section[1].splitlines()[2:]:
            cells = re.split(r"\s{2,}", line.strip())
            if len(cells) != 7:
                break
            rows[cells[0]] = cells
        for node, t in expected.items():
            if node not in rows:
                print(f"{table} {node}: missing")
                continue
            _, _, calls, lo, hi, mean, nan = rows[node]
            want = (t.min().item(), t.max().item(), t.mean().item())
            got = (float(lo), float(hi), float(mean))
            ok = (calls == "1" and nan == str(int(t.isnan().sum())) and
                  all(abs(a - b) <= 1e-5 * max(1.0, abs(b))
                      for a, b in zip(got, want)))
            print(f"{table} {node}: {'matches torch' if ok else 'MISMATCH'}"
                  f" (got {got}, torch {want})")
        extra = sorted(set(rows) - set(expected))
        if extra:
            print(f"{table}: unexpected probes {extra}")
