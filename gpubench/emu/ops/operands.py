"""Reading and writing instruction operands for many waves at once.

Sources are the 9-bit operand space (see the isa-spec README): SGPRs, VGPRs, inline constants,
a literal. Inline float constants take the bit pattern of the operand's float type; integer ones
are sign-extended to the operand width; a 32-bit literal in a 64-bit operand is the high dword of a
double, or zero-extended for integers (as LLVM's disassembler reads it).

A 16-bit operand is one half of a 32-bit register (RDNA3 "true16"): which half, the encoding says
(`true16_vgpr`, VOP3's op_sel); it is read into bits 15:0, and written into its half, the other half
kept. Operand modifiers (manual, AMD's ISA manuals "Input/Output Modifiers") are here too: neg/abs
flip/clear a source's sign bit, VOP3P builds each source from two selected halves, clamp and omod
act on a float result.
"""
from __future__ import annotations

import struct

import numpy as np

from gpubench.emu.context import Context
from gpubench.emu.ops.segments import APERTURE_SOURCES

VGPR_BASE, LITERAL = 256, 255
FLOAT_CONSTANTS = {240: 0.5, 241: -0.5, 242: 1.0, 243: -1.0, 244: 2.0, 245: -2.0, 246: 4.0, 247: -4.0}
INV_2PI_BITS = {16: 0x3118, 32: 0x3E22F983, 64: 0x3FC45F306DC9C882}
SCC_SOURCE, VCCZ_SOURCE, EXECZ_SOURCE = 253, 251, 252
TRUE16_HIGH = 128  # a 16-bit VGPR operand of VOP1/VOP2/VOPC e32 (and their DPP): v(n-128).h when n >= 128
HALF = np.uint32(0xFFFF)


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
    # an operand of another width (24-bit, 8-bit) is part of a 32-bit register: the f32 pattern, as
    # LLVM encodes it (0xbf800000 for v_mad_i32_i24's src1 is the inline constant -1.0)
    kind = float_kind(fmt) or (bits if bits in (16, 64) else 32)
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
        rows = ctx.waves.rows(waves)
        lo = ctx.waves.sgpr[rows, value].astype(dtype)  # a copy: callers may change it
        if bits > 32:
            lo |= ctx.waves.sgpr[rows, value + 1].astype(np.uint64) << np.uint64(32)
        return lo
    if value == LITERAL:
        return np.full(len(waves), literal_bits(literal, bits, fmt), dtype)
    if value == SCC_SOURCE:
        return ctx.waves.scc[waves].astype(dtype)
    if value == EXECZ_SOURCE:
        return (~ctx.waves.exec_mask(waves).any(axis=1)).astype(dtype)
    if value == VCCZ_SOURCE:
        return (~ctx.waves.read_mask(106, waves).any(axis=1)).astype(dtype)
    if value in APERTURE_SOURCES:  # src_shared_base ... (segments.py); a 32-bit read gives the high dword
        return np.full(len(waves), APERTURE_SOURCES[value] >> (0 if bits > 32 else 32), dtype)
    const = constant_bits(value, bits, fmt)
    if const is None:
        raise ValueError(f"source operand {value} is not supported by the emulator")
    return np.full(len(waves), const, dtype)


def read_vector(ctx: Context, waves: np.ndarray, value: int, bits: int, fmt: str | None = None,
                literal: int | None = None) -> np.ndarray:
    """A VALU source for each lane: uint32/uint64 [waves, lanes] (scalars broadcast); an operand wider
    than 64 bits (VGPRs only) is uint32 [waves, lanes, words]."""
    if value >= VGPR_BASE:
        reg = value - VGPR_BASE
        rows = ctx.waves.rows(waves)
        if bits > 64:
            return np.moveaxis(ctx.waves.vgpr[waves, reg:reg + bits // 32, :], 1, 2)
        if bits > 32:
            return ctx.waves.vgpr[rows, reg, :].astype(np.uint64) | \
                (ctx.waves.vgpr[rows, reg + 1, :].astype(np.uint64) << np.uint64(32))
        # a copy, as a gather would give (callers may change it in place); from a slice's view it
        # is a plain strided copy, cheaper than the gather
        return ctx.waves.vgpr[rows, reg, :].copy() if isinstance(rows, slice) else ctx.waves.vgpr[waves, reg, :]
    scalar = read_scalar(ctx, waves, value, bits, fmt, literal)
    return np.broadcast_to(scalar[:, None], (len(waves), ctx.waves.wave_size))


def true16_vgpr(value: int) -> tuple[int, bool]:
    """A 16-bit VGPR operand of an e32 encoding (9-bit source space): (the register's value, high half)."""
    if value >= VGPR_BASE + TRUE16_HIGH:
        return value - TRUE16_HIGH, True
    return value, False


def half(values: np.ndarray, high: bool) -> np.ndarray:
    """The selected 16-bit half of 32-bit values, in bits 15:0."""
    return (values >> np.uint32(16)) if high else (values & HALF)


def is_null(ctx: Context, reg: int) -> bool:
    """Whether a scalar destination discards what is written to it (NULL, or not a register)."""
    return reg >= 128 or reg == 124 and ctx.isa.arch != "cdna"


def write_scalar(ctx: Context, waves: np.ndarray, reg: int, values: np.ndarray, bits: int) -> None:
    if is_null(ctx, reg):
        return
    values = np.asarray(values).astype(np.uint64)
    ctx.waves.sgpr[waves, reg] = (values & np.uint64(0xFFFFFFFF)).astype(np.uint32)
    if bits > 32:
        ctx.waves.sgpr[waves, reg + 1] = (values >> np.uint64(32)).astype(np.uint32)


def write_vector(ctx: Context, waves: np.ndarray, reg: int, values: np.ndarray, bits: int,
                 active: np.ndarray, high: bool = False) -> None:
    """Write [waves, lanes] values to VGPR ``reg`` (and reg+1 for 64 bits; [waves, lanes, words] for
    wider) in the active lanes only. A 16-bit value goes into one half (``high``), the other kept."""
    vgpr = ctx.waves.vgpr
    values = np.asarray(values)
    rows = ctx.waves.rows(waves)
    if bits == 32 and values.dtype == np.uint32:  # the common case: no narrowing copy needed
        _store(vgpr, rows, reg, values, active)
        return
    if bits == 16:
        old = vgpr[waves, reg, :]
        values = values.astype(np.uint32) & HALF
        merged = (old & ~(HALF << np.uint32(16))) | (values << np.uint32(16)) if high else (old & ~HALF) | values
        vgpr[waves, reg, :] = np.where(active, merged, old)
        return
    if bits > 64:
        words = np.moveaxis(values.astype(np.uint32), 2, 1)
        vgpr[waves, reg:reg + bits // 32, :] = np.where(active[:, None, :], words, vgpr[waves, reg:reg + bits // 32, :])
        return
    wide = values.astype(np.uint64, copy=False)
    _store(vgpr, rows, reg, (wide & np.uint64(0xFFFFFFFF)).astype(np.uint32), active)
    if bits > 32:
        _store(vgpr, rows, reg + 1, (wide >> np.uint64(32)).astype(np.uint32), active)


def _store(vgpr: np.ndarray, rows, reg: int, values: np.ndarray, active: np.ndarray) -> None:
    """uint32 [waves, lanes] into VGPR ``reg`` where ``active``. Without a gather of the old values
    and np.where when it can: with EXEC all ones it is a plain store (into a view when ``rows`` is a
    slice: all waves), else all waves write through a view with copyto(where=)."""
    if active.all():
        vgpr[rows, reg, :] = values
    elif isinstance(rows, slice):
        np.copyto(vgpr[rows, reg, :], values, where=active)
    else:
        vgpr[rows, reg, :] = np.where(active, values, vgpr[rows, reg, :])


# -- operand modifiers ---------------------------------------------------------------------------


def sign_modifiers(values: np.ndarray, sign_bit: int, neg: bool, absolute: bool) -> np.ndarray:
    """abs clears, then neg flips, the sign bit of each value (a float operand's modifiers)."""
    sign = values.dtype.type(1) << values.dtype.type(sign_bit)
    if absolute:
        values = values & ~sign
    if neg:
        values = values ^ sign
    return values


def packed_halves(values: np.ndarray, low_from_high: bool, high_from_high: bool, neg_low: bool,
                  neg_high: bool) -> np.ndarray:
    """A VOP3P source: the low half from the half op_sel picks, the high half from the half op_sel_hi
    picks, each negated (as a float) by its neg_lo / neg_hi bit. Halves are 16 bits of a 32-bit
    source, or 32 bits of a 64-bit one (CDNA's packed f32: v_pk_add_f32 ...)."""
    if values.dtype == np.uint64:
        width, sign, mask = np.uint64(32), np.uint64(1 << 31), np.uint64(0xFFFFFFFF)
    else:
        width, sign, mask = np.uint32(16), np.uint32(0x8000), HALF
    low = ((values >> width) if low_from_high else (values & mask)) ^ (sign if neg_low else values.dtype.type(0))
    high = ((values >> width) if high_from_high else (values & mask)) ^ (sign if neg_high else values.dtype.type(0))
    return low | (high << width)


FLOAT_TYPES = {16: (np.float16, np.uint16), 32: (np.float32, np.uint32), 64: (np.float64, np.uint64)}
OMOD_FACTORS = {1: 2.0, 2: 4.0, 3: 0.5}


def float_result_modifiers(values: np.ndarray, kind: int, omod: int, clamp: bool, nan_to_zero: np.ndarray,
                           packed: bool = False) -> np.ndarray:
    """omod (x2, x4, /2) then clamp to [0, 1] of a float result of ``kind`` bits (each half when
    ``packed``); a clamped NaN becomes 0 where ``nan_to_zero`` (MODE.DX10_CLAMP) holds."""
    if packed:
        low = float_result_modifiers(values & HALF, 16, omod, clamp, nan_to_zero)
        high = float_result_modifiers(values >> np.uint32(16), 16, omod, clamp, nan_to_zero)
        return low | (high << np.uint32(16))
    ftype, itype = FLOAT_TYPES[kind]
    result = values.astype(itype).view(ftype)
    if omod:
        result = result * ftype(OMOD_FACTORS[omod])
    if clamp:
        clipped = np.clip(result, ftype(0), ftype(1))
        result = np.where(np.isnan(result) & nan_to_zero, ftype(0), clipped)
    return result.astype(ftype).view(itype).astype(values.dtype)
