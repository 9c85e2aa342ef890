"""gfx950's v_bitop3_b32/b16 (manual: the pseudocode reads its truth table from the encoding's
OMOD, ABS and NEG fields, which are not run-time state).

TTBL = {OMOD[1:0], ABS[2:0], NEG[2:0]} is an 8-entry truth table: bit i of the table is the result
bit where (S0, S1, S2) hold the bits of i (S0 the most significant). The b16 form works on 16-bit
halves: op_sel bits 0-2 pick the sources' halves, bit 3 the half of the destination it writes.
"""
from __future__ import annotations

import numpy as np

from gpubench.emu.context import Context
from gpubench.emu.ops import factory
from gpubench.emu.ops import operands as opnd
from gpubench.isa.decoder import Instruction


def truth_table(s0: np.ndarray, s1: np.ndarray, s2: np.ndarray, table: int) -> np.ndarray:
    result = np.zeros_like(s0)
    for row in range(8):
        if table >> row & 1:
            result |= (s0 if row & 4 else ~s0) & (s1 if row & 2 else ~s1) & (s2 if row & 1 else ~s2)
    return result


@factory
def bitop3(inst: Instruction):
    if inst.name not in ("V_BITOP3_B32", "V_BITOP3_B16"):
        return None
    table = inst["omod"] << 6 | inst["abs"] << 3 | inst["neg"]
    half = inst.name.endswith("B16")
    opsel, literal, vdst = inst.get("opsel", 0), inst.get("literal"), inst["vdst"]
    sources = [inst[f"src{i}"] for i in range(3)]

    def run(ctx: Context, waves: np.ndarray) -> None:
        values = [opnd.read_vector(ctx, waves, value, 32, None, literal) for value in sources]
        if half:
            values = [opnd.half(v, bool(opsel >> i & 1)) for i, v in enumerate(values)]
        result = truth_table(*values, table)
        active = ctx.waves.exec_mask(waves)
        if half:
            opnd.write_vector(ctx, waves, vdst, result & opnd.HALF, 16, active, high=bool(opsel >> 3 & 1))
        else:
            opnd.write_vector(ctx, waves, vdst, result, 32, active)
        ctx.waves.pc[waves] += inst.size

    return run
