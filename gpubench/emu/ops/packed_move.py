"""CDNA's v_pk_mov_b32 (manual: its pseudocode picks source bits with OPSEL-dependent ranges and
writes the 64-bit result through a 32-bit view, which the compiler does not take literally).

The result's low dword is the dword op_sel[0] picks from src0, its high dword the one op_sel[1]
picks from src1 (0: the low dword, 1: the high one), in the lanes EXEC enables.
"""
from __future__ import annotations

import numpy as np

from gpubench.emu.context import Context
from gpubench.emu.ops import factory
from gpubench.emu.ops import operands as opnd
from gpubench.isa.decoder import Instruction

LOW = np.uint64(0xFFFFFFFF)


@factory
def packed_move(inst: Instruction):
    if inst.name != "V_PK_MOV_B32":
        return None
    sources = [(inst[f"src{i}"], inst.idef.operand(f"src{i}").fmt) for i in range(2)]
    picks_high = [bool(inst["opsel"] >> i & 1) for i in range(2)]
    literal, vdst = inst.get("literal"), inst["vdst"]

    def run(ctx: Context, waves: np.ndarray) -> None:
        low, high = (opnd.read_vector(ctx, waves, value, 64, fmt, literal) for value, fmt in sources)
        low = (low >> np.uint64(32)) if picks_high[0] else low & LOW
        high = (high >> np.uint64(32)) if picks_high[1] else high & LOW
        opnd.write_vector(ctx, waves, vdst, low | (high << np.uint64(32)), 64, ctx.waves.exec_mask(waves))
        ctx.waves.pc[waves] += inst.size

    return run
