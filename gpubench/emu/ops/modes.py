"""The MODE register: each wave's float controls, and the instructions that set them (manual).

MODE is per-wave state (``Waves.mode``, uint32), laid out as the hardware register HW_REG_MODE
(AMD ISA manuals, "MODE register"; LLVM's SIDefines.h agrees):

    FP_ROUND[3:0]    round mode: bits 1:0 for f32, bits 3:2 for f64/f16 (0 = nearest even)
    FP_DENORM[7:4]   denormal mode: bits 5:4 for f32, bits 7:6 for f64/f16
                     (bit 0 of a pair: keep input denormals, bit 1: keep output denormals; 3 = keep all)
    DX10_CLAMP[8]    a clamped NaN becomes 0 (rdna3, cdna)
    IEEE[9]          IEEE-754-2008 NaN handling in min/max (the pseudocode's WAVE_MODE.IEEE; rdna3, cdna)

A dispatch starts with the kernel descriptor's COMPUTE_PGM_RSRC1 fields (FLOAT_ROUND_MODE_32/_16_64,
FLOAT_DENORM_MODE_32/_16_64, ENABLE_DX10_CLAMP, ENABLE_IEEE_MODE; LLVM's AMDGPUUsage, "Kernel
Descriptor"; abi.initial_mode); waves made by hand start as compute kernels do (waves.DEFAULT_MODE).
S_ROUND_MODE and S_DENORM_MODE (gfx10+) write SIMM16[3:0] into FP_ROUND / FP_DENORM; S_SETREG and
S_GETREG (hwregs.py) read and write the whole register.

The compiled pseudocode rounds to nearest even and keeps denormals; other modes are applied around
it, per wave, only when some wave at the PC is not in that default (`float_modes()` is None otherwise,
so the default path costs one comparison). The rules applied (RDNA3 ISA manual, "MODE": FP_DENORM
0 flushes input and output denormals, 1 keeps inputs and flushes outputs, 2 flushes inputs and keeps
outputs, 3 keeps both; FP_ROUND 0 nearest even, 1 +inf, 2 -inf, 3 toward zero):
  - A float operand is read in its own type's mode (an f16 source of v_cvt_f32_f16 by the f16/f64
    bits), a result is written in its type's mode; bf16 has no MODE field and is left alone.
  - Flushing replaces a denormal by a zero of its sign. Inputs are flushed for every VALU operation
    with float operands (arithmetic, min/max, which LLVM treats as flushing on gfx9+, compares and
    float-to-integer conversions: the manual's denormal modes name no exceptions among them), plus
    the accumulator D0 of v_fmac and the literal K of v_fmamk/fmaak. Not flushed: v_cmp_class /
    v_cmpx_class, whose purpose is to classify the raw bits (LLVM relies on them to detect
    denormals under any mode), and v_pack_b32_f16, a move. Outputs are flushed after rounding and
    after omod/clamp, as the last step before the register is written (omod's scaling itself is
    exact but for overflow and underflow, where it stays rounded to nearest).
  - Rounding modes other than nearest even act on the results that round: rounding.DIRECTED
    (add/sub/mul/fma forms for f32 and f16, add/mul for f64, conversions into f16/f32) is
    recomputed exactly there; float_modes.EXACT operations never round (min/max/med3, compares, floor/ceil/
    trunc/rndne, frexp, float-to-integer truncation, widening conversions), so the mode does not
    matter. Every other float operation (transcendentals, division helpers, ldexp, dot products,
    f64 fma, packed f16 ...) is rounded in the wave's mode by the reference evaluator on the lanes that
    ask for a directed mode (evaluated.py: exact arithmetic rounded once; a transcendental is its
    float64 value rounded in the mode).
  - SALU float operations (gfx11.5, gfx12) follow the same rules (float_modes.ScalarFloatModes; the
    manuals give the SALU floats no MODE of their own: inferred). WMMA/MFMA (matrix.py) flush their
    f16/f32/f64 elements and round each result element once in a directed mode.
float_modes.py binds a VALU operation's ports to these rules; rounding.py does directed rounding.
"""
from __future__ import annotations

import numpy as np

from gpubench.emu.context import Context
from gpubench.emu.ops import factory
from gpubench.isa.decoder import Instruction

FP_ROUND_SHIFT, FP_DENORM_SHIFT = 0, 4
FLOAT_MODE_MASK = 0xFF  # FP_ROUND and FP_DENORM
DX10_CLAMP, IEEE = 1 << 8, 1 << 9
DEFAULT_FLOAT_MODE = 0xF << FP_DENORM_SHIFT  # round to nearest even, denormals kept


def flag(ctx: Context, waves: np.ndarray, bit: int) -> np.ndarray:
    """One MODE bit of each wave: bool [waves]."""
    return (ctx.waves.mode[waves] & np.uint32(bit)) != 0


def float_modes(ctx: Context, waves: np.ndarray) -> np.ndarray | None:
    """Each wave's FP_ROUND and FP_DENORM bits (uint32 [waves]), or None if all are the default."""
    mode = ctx.waves.mode[waves] & np.uint32(FLOAT_MODE_MASK)
    return mode if (mode != DEFAULT_FLOAT_MODE).any() else None


def round_mode(mode: np.ndarray, width: int) -> np.ndarray:
    """FP_ROUND for results of a float type (16, 32, 64 bits) of each MODE value: 0..3."""
    return (mode >> np.uint32(FP_ROUND_SHIFT + (0 if width == 32 else 2))) & np.uint32(3)


def flushes(mode: np.ndarray, width: int, output: bool) -> np.ndarray:
    """Whether denormal inputs (or outputs) of a float type are flushed, for each MODE value."""
    bit = FP_DENORM_SHIFT + (0 if width == 32 else 2) + int(output)
    return (mode & np.uint32(1 << bit)) == 0


def flush_denormals(bits: np.ndarray, width: int, flush: np.ndarray, shifts: tuple[int, ...] = (0,)) -> np.ndarray:
    """``bits`` with each denormal float of ``width`` bits (at each of ``shifts``: the halves of
    packed f16) replaced by a zero of its sign where ``flush`` (broadcast against bits) holds."""
    t = bits.dtype.type
    exponent, mantissa = {16: (0x7C00, 0x3FF), 32: (0x7F800000, 0x7FFFFF), 64: (0x7FF << 52, (1 << 52) - 1)}[width]
    for shift in shifts:
        field = bits >> t(shift)
        denormal = flush & ((field & t(exponent)) == 0) & ((field & t(mantissa)) != 0)
        bits = np.where(denormal, bits & ~t((exponent | mantissa) << shift), bits)
    return bits


@factory
def mode_setters(inst: Instruction):
    shift = {"S_ROUND_MODE": FP_ROUND_SHIFT, "S_DENORM_MODE": FP_DENORM_SHIFT}.get(inst.name)
    if shift is None:
        return None
    value, keep = np.uint32((inst["simm16"] & 0xF) << shift), np.uint32(~(0xF << shift) & 0xFFFFFFFF)

    def set_mode(ctx: Context, waves: np.ndarray) -> None:
        ctx.waves.mode[waves] = (ctx.waves.mode[waves] & keep) | value
        ctx.waves.pc[waves] += inst.size

    return set_mode
