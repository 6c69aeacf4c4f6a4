"""Writes a .npy file whose header declares `shape` (a Python tuple
literal, e.g. "(99999999999, 99999999999)") of float32 over 16 bytes of
data: what fx-run must refuse before it allocates anything."""
import ast
import sys

path, shape = sys.argv[1], ast.literal_eval(sys.argv[2])
header = "{'descr': '<f4', 'fortran_order': False, 'shape': %r, }" % (shape,)
header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
with open(path, "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little"))
    f.write(header.encode() + b"\x00" * 16)
