"""Manual: GFX9's V_CLREXCP ("clear wave's exception state", the CDNA3/CDNA4 manuals' one line; no
pseudocode): the wave's exception flags, TRAPSTS.EXCP[8:0] (hwregs.py), are cleared.

Inferred, not measured: EXCP is the exception state a wave keeps (the math exceptions its VALU
operations raise, which s_getreg reads and s_setreg writes); the instruction has no operands and LLVM
gives it no other effect.
"""
from __future__ import annotations

import numpy as np

from gpubench.emu.context import Context
from gpubench.emu.ops import factory, hwregs

EXCEPTION_FLAGS = np.uint32(0x1FF)  # TRAPSTS.EXCP[8:0]


@factory
def clear_exceptions(inst):
    if inst.name not in ("V_CLREXCP_E32", "V_CLREXCP_E64") or inst.isa.arch != "cdna":
        return None

    def run(ctx: Context, waves: np.ndarray) -> None:
        hwregs.wave_registers(ctx)["HW_REG_TRAPSTS"][waves] &= ~EXCEPTION_FLAGS
        ctx.waves.pc[waves] += inst.size

    return run
