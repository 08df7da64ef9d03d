#!/usr/bin/env python3
"""Writes the input and the expected output of scaled_tanh.prototxt as .npy files (x.npy, y.npy):
y = 2 * tanh(0.5 * relu(x)), computed here in double precision from the formula, not by mo."""
import math
import struct
import sys


def write_npy(path, values, shape):
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % "".join(f"{d}," for d in shape)
    header += " " * (63 - (10 + len(header)) % 64) + "\n"  # pad so the data starts at a multiple of 64
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
        f.write(struct.pack(f"<{len(values)}f", *values))


x = [-1.5, -0.25, 0.0, 0.5, 2.0, 4.0]
y = [2.0 * math.tanh(0.5 * max(v, 0.0)) for v in x]
out = sys.argv[1] if len(sys.argv) > 1 else "."
write_npy(f"{out}/x.npy", x, (2, 3))
write_npy(f"{out}/y.npy", y, (2, 3))
