"""Kernel arguments from the command line: buffers from .npy files or specs like `zeros:f32:1024`,
`ones:i32:64`, `arange:u32:256`; scalars as numbers (`1024`, `2.0`) or typed (`f32:2.0`, `u64:7`)."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from gpubench.emu.device import Buffer, Device

DTYPES = {"f16": np.float16, "f32": np.float32, "f64": np.float64, "i8": np.int8, "i16": np.int16,
          "i32": np.int32, "i64": np.int64, "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64}
FILLS = {"zeros": np.zeros, "ones": np.ones, "arange": np.arange}


def parse(device: Device, spec: str) -> Buffer | int | float | np.generic:
    parts = spec.split(":")
    if parts[0] in FILLS:
        if len(parts) != 3 or parts[1] not in DTYPES:
            raise ValueError(f"{spec!r}: expected {parts[0]}:TYPE:COUNT with TYPE one of {', '.join(DTYPES)}")
        return device.to_device(FILLS[parts[0]](int(parts[2], 0), dtype=DTYPES[parts[1]]))
    if spec.endswith(".npy"):
        return device.to_device(np.load(Path(spec)))
    if len(parts) == 2 and parts[0] in DTYPES:
        kind = DTYPES[parts[0]]
        return kind(float(parts[1]) if np.issubdtype(kind, np.floating) else int(parts[1], 0))
    try:
        return int(spec, 0)
    except ValueError:
        try:
            return float(spec)
        except ValueError:
            raise ValueError(f"{spec!r} is not a .npy file, a fill (zeros:f32:1024) or a number") from None


def dims(text: str) -> tuple[int, int, int]:
    """`X[,Y[,Z]]` -> (X, Y, Z), missing ones 1."""
    values = [int(v) for v in text.split(",")]
    if not 1 <= len(values) <= 3 or min(values) < 1:
        raise ValueError(f"{text!r}: expected X[,Y[,Z]] of positive integers")
    return tuple(values + [1] * (3 - len(values)))
