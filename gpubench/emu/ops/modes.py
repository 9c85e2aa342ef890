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

The compiled pseudocode rounds to nearest even and keeps denormals; `require_default_float_mode`
lets a float instruction refuse (Unsupported) to run under any other round or denormal mode rather
than give silently different results.
"""
from __future__ import annotations

import numpy as np

from gpubench.emu.context import Context
from gpubench.emu.ops import Unsupported, factory
from gpubench.isa.decoder import Instruction

FP_ROUND_SHIFT, FP_DENORM_SHIFT = 0, 4
FLOAT_MODE_MASK = 0xFF  # FP_ROUND and FP_DENORM
DX10_CLAMP, IEEE = 1 << 8, 1 << 9
DEFAULT_FLOAT_MODE = 0xF << FP_DENORM_SHIFT  # round to nearest even, denormals kept


def flag(ctx: Context, waves: np.ndarray, bit: int) -> np.ndarray:
    """One MODE bit of each wave: bool [waves]."""
    return (ctx.waves.mode[waves] & np.uint32(bit)) != 0


def require_default_float_mode(ctx: Context, waves: np.ndarray, name: str) -> None:
    """Stop (Unsupported, naming instruction ``name``) if any wave is not in the default float mode."""
    float_mode = ctx.waves.mode[waves] & np.uint32(FLOAT_MODE_MASK)
    if (float_mode != DEFAULT_FLOAT_MODE).any():
        found = int(float_mode[float_mode != DEFAULT_FLOAT_MODE][0])
        raise Unsupported(f"{name} under MODE FP_ROUND={found & 0xF:#x} FP_DENORM={found >> 4:#x}: the emulator "
                          "rounds to nearest even and keeps denormals only (FP_ROUND=0, FP_DENORM=0xf)")


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
