"""Reading and writing instruction operands for many waves at once.

Sources are the 9-bit operand space (see the isa-spec README): SGPRs, VGPRs, inline constants,
a literal. Inline float constants take the bit pattern of the operand's float type; integer ones
are sign-extended to the operand width; a 32-bit literal in a 64-bit operand is the high dword of a
double, or zero-extended for integers (as LLVM's disassembler reads it).
"""
from __future__ import annotations

import struct

import numpy as np

from gpubench.emu.context import Context

VGPR_BASE, LITERAL = 256, 255
FLOAT_CONSTANTS = {240: 0.5, 241: -0.5, 242: 1.0, 243: -1.0, 244: 2.0, 245: -2.0, 246: 4.0, 247: -4.0}
INV_2PI_BITS = {16: 0x3118, 32: 0x3E22F983, 64: 0x3FC45F306DC9C882}
SCC_SOURCE, VCCZ_SOURCE, EXECZ_SOURCE = 253, 251, 252


def float_kind(fmt: str | None) -> int | None:
    """The float width an operand format names (FMT_NUM_F32 -> 32), or None for integer formats."""
    if not fmt:
        return None
    for width in (16, 32, 64):
        if f"_F{width}" in fmt or (width == 16 and "BF16" in fmt):
            return width
    return None


def constant_bits(value: int, bits: int, fmt: str | None) -> int | None:
    """The bits an inline constant (128..208, 240..248) stands for in an operand of ``bits``/``fmt``."""
    mask = (1 << bits) - 1
    if 128 <= value <= 208:
        number = value - 128 if value <= 192 else 192 - value
        return number & mask
    kind = float_kind(fmt) or bits
    if value in FLOAT_CONSTANTS:
        pack = {16: "<e", 32: "<f", 64: "<d"}[kind]
        raw = int.from_bytes(struct.pack(pack, FLOAT_CONSTANTS[value]), "little")
        return raw & mask
    if value == 248:
        return INV_2PI_BITS[kind] & mask
    return None


def literal_bits(literal: int, bits: int, fmt: str | None) -> int:
    if bits == 64 and float_kind(fmt) == 64:
        return literal << 32
    return literal


def dtype_for(bits: int):
    return np.uint64 if bits > 32 else np.uint32


def read_scalar(ctx: Context, waves: np.ndarray, value: int, bits: int, fmt: str | None = None,
                literal: int | None = None) -> np.ndarray:
    """A scalar source (SGPR space, constant, literal) for each wave: uint32 or uint64 [waves]."""
    dtype = dtype_for(bits)
    if value < 128:
        lo = ctx.waves.sgpr[waves, value].astype(dtype)
        if bits > 32:
            lo |= ctx.waves.sgpr[waves, value + 1].astype(np.uint64) << np.uint64(32)
        return lo
    if value == LITERAL:
        return np.full(len(waves), literal_bits(literal, bits, fmt), dtype)
    if value == SCC_SOURCE:
        return ctx.waves.scc[waves].astype(dtype)
    if value == EXECZ_SOURCE:
        return (~ctx.waves.exec_mask(waves).any(axis=1)).astype(dtype)
    if value == VCCZ_SOURCE:
        return (~ctx.waves.read_mask(106, waves).any(axis=1)).astype(dtype)
    const = constant_bits(value, bits, fmt)
    if const is None:
        raise ValueError(f"source operand {value} is not supported by the emulator")
    return np.full(len(waves), const, dtype)


def read_vector(ctx: Context, waves: np.ndarray, value: int, bits: int, fmt: str | None = None,
                literal: int | None = None) -> np.ndarray:
    """A VALU source for each lane: uint32/uint64 [waves, lanes] (scalars broadcast)."""
    if value >= VGPR_BASE:
        reg = value - VGPR_BASE
        data = ctx.waves.vgpr[waves, reg, :]
        if bits > 32:
            return data.astype(np.uint64) | (ctx.waves.vgpr[waves, reg + 1, :].astype(np.uint64) << np.uint64(32))
        return data
    scalar = read_scalar(ctx, waves, value, bits, fmt, literal)
    return np.broadcast_to(scalar[:, None], (len(waves), ctx.waves.wave_size))


def write_scalar(ctx: Context, waves: np.ndarray, reg: int, values: np.ndarray, bits: int) -> None:
    if reg >= 128 or reg == 124 and ctx.isa.arch != "cdna":  # NULL discards
        return
    values = np.asarray(values).astype(np.uint64)
    ctx.waves.sgpr[waves, reg] = (values & np.uint64(0xFFFFFFFF)).astype(np.uint32)
    if bits > 32:
        ctx.waves.sgpr[waves, reg + 1] = (values >> np.uint64(32)).astype(np.uint32)


def write_vector(ctx: Context, waves: np.ndarray, reg: int, values: np.ndarray, bits: int,
                 active: np.ndarray) -> None:
    """Write [waves, lanes] values to VGPR ``reg`` (and reg+1 for 64 bits) in the active lanes only."""
    vgpr = ctx.waves.vgpr
    values = np.asarray(values)
    lo = (values.astype(np.uint64) & np.uint64(0xFFFFFFFF)).astype(np.uint32)
    vgpr[waves, reg, :] = np.where(active, lo, vgpr[waves, reg, :])
    if bits > 32:
        hi = (values.astype(np.uint64) >> np.uint64(32)).astype(np.uint32)
        vgpr[waves, reg + 1, :] = np.where(active, hi, vgpr[waves, reg + 1, :])
