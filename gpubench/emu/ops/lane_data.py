"""Moving a memory instruction's data between VGPRs and bytes, for the lanes of one access (manual:
the manual's prose on data widths, sign extension and the D16 halves).

The width and type come from the mnemonic, in either naming: RDNA's U8/I8/U16/I16/B8/B16 and CDNA's
UBYTE/SBYTE/USHORT/SSHORT/BYTE/SHORT; whole dwords from the data operand's width. A D16 load fills one
16-bit half of the VGPR and keeps the other (D16: bits 15:0, D16_HI: bits 31:16; a byte is first
extended to 16 bits); a D16_HI store writes from bits 31:16.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gpubench.emu.context import Context
from gpubench.emu.ops.segments import Lanes

SUBDWORD = {"U8": (1, False), "I8": (1, True), "B8": (1, False), "U16": (2, False), "I16": (2, True),
            "B16": (2, False), "UBYTE": (1, False), "SBYTE": (1, True), "BYTE": (1, False),
            "USHORT": (2, False), "SSHORT": (2, True), "SHORT": (2, False)}


@dataclass(frozen=True)
class DataAccess:
    size: int  # bytes per lane
    signed: bool = False  # a sub-dword load sign-extends
    half: str | None = None  # "lo"/"hi": the 16-bit half a D16 load fills or a D16_HI store takes

    @property
    def dwords(self) -> int:
        return max(1, self.size // 4)


def data_access(name: str, data_bits: int) -> DataAccess:
    """How ``name`` (a load or store mnemonic) moves its data; ``data_bits``: the data operand's width."""
    tokens = name.split("_")
    types = [t for t in tokens if t in SUBDWORD]
    if not types:
        return DataAccess(data_bits // 8)
    size, signed = SUBDWORD[types[-1]]
    half = ("hi" if "HI" in tokens else "lo") if "D16" in tokens else None
    return DataAccess(size, signed, half)


def read_dwords(ctx: Context, lanes: Lanes, reg: int, count: int) -> np.ndarray:
    """VGPRs reg..reg+count-1 of each lane: uint32 [lanes, count]."""
    if lanes.rows is not None:  # every lane of whole waves: move rows, not single lanes
        block = ctx.waves.vgpr[lanes.rows, reg:reg + count, :]  # [waves, count, lanes]
        return np.ascontiguousarray(block.transpose(0, 2, 1)).reshape(-1, count)
    return np.ascontiguousarray(ctx.waves.vgpr[lanes.wave, reg:reg + count, lanes.lane])


def write_dwords(ctx: Context, lanes: Lanes, reg: int, values: np.ndarray) -> None:
    count = values.shape[1]
    if lanes.rows is not None:  # every lane of whole waves: store rows, not single lanes
        width = ctx.waves.wave_size
        ctx.waves.vgpr[lanes.rows, reg:reg + count, :] = values.reshape(-1, width, count).transpose(0, 2, 1)
        return
    ctx.waves.vgpr[lanes.wave, reg:reg + count, lanes.lane] = values


def to_vgprs(ctx: Context, lanes: Lanes, reg: int, raw: np.ndarray, access: DataAccess) -> None:
    """Put loaded bytes ([lanes, size] uint8) into VGPRs from ``reg`` as ``access`` says."""
    if access.size >= 4:
        write_dwords(ctx, lanes, reg, np.ascontiguousarray(raw).view(np.uint32))
        return
    value = np.ascontiguousarray(raw).view(np.uint8 if access.size == 1 else np.uint16)[:, 0].astype(np.uint32)
    if access.signed:
        shift = 32 - 8 * access.size
        value = ((value << shift).view(np.int32) >> shift).view(np.uint32)
    vgpr = ctx.waves.vgpr
    old = vgpr[lanes.wave, reg, lanes.lane]
    if access.half == "lo":
        value = (old & np.uint32(0xFFFF0000)) | (value & np.uint32(0xFFFF))
    elif access.half == "hi":
        value = (old & np.uint32(0xFFFF)) | (value << np.uint32(16))
    vgpr[lanes.wave, reg, lanes.lane] = value


def from_vgprs(ctx: Context, lanes: Lanes, reg: int, access: DataAccess) -> np.ndarray:
    """The bytes a store writes: [lanes, size] uint8 from VGPRs ``reg``.."""
    words = read_dwords(ctx, lanes, reg, access.dwords)
    if access.half == "hi":
        words = words >> np.uint32(16)
    return words.view(np.uint8)[:, :access.size]


def words_to_bytes(values: np.ndarray, size: int) -> np.ndarray:
    """uint64 values (one per lane) as their low ``size`` bytes: [lanes, size] uint8."""
    return np.ascontiguousarray(values.astype(np.uint64)).view(np.uint8).reshape(-1, 8)[:, :size]


def bytes_to_words(raw: np.ndarray) -> np.ndarray:
    """[lanes, 4 or 8] bytes as uint64 values."""
    raw = np.ascontiguousarray(raw)
    return raw.view(np.uint32 if raw.shape[1] == 4 else np.uint64)[:, 0].astype(np.uint64)


def dwords_to_words(dwords: np.ndarray) -> np.ndarray:
    """[lanes, 1 or 2] uint32 (low dword first) as uint64 values."""
    value = dwords[:, 0].astype(np.uint64)
    if dwords.shape[1] > 1:
        value |= dwords[:, 1].astype(np.uint64) << np.uint64(32)
    return value


def words_to_dwords(values: np.ndarray, dwords: int) -> np.ndarray:
    """uint64 values as [lanes, dwords] uint32, low dword first."""
    parts = [(values & np.uint64(0xFFFFFFFF)).astype(np.uint32)]
    if dwords > 1:
        parts.append((values >> np.uint64(32)).astype(np.uint32))
    return np.stack(parts, axis=1)
