"""GLOBAL and FLAT atomics, with and without return, 32 and 64 bits, integer and float (manual: the
address is memory_ops.py's, the update rmw.py's, the memory a segment of segments.py).

DATA is the data VGPRs; compare-swap takes the new value in its first half and the compare value in
its second (DATA[31:0] / DATA[63:32], or the two 64-bit halves of CMPSWAP_X2/B64). The prior value
returns to vdst when the instruction asks for it: glc on gfx11, sc0 on gfx942/gfx950, th bit 0
(TH_ATOMIC_RETURN) on gfx12. A FLAT atomic in the shared or private aperture works on LDS or scratch.
"""
from __future__ import annotations

import numpy as np

from gpubench.emu.context import Context
from gpubench.emu.ops import Unsupported, factory
from gpubench.emu.ops.lane_data import dwords_to_words, read_dwords, words_to_dwords, write_dwords
from gpubench.emu.ops.memory_ops import VECTOR_FAMILIES, check_data_registers, field, vector_segments
from gpubench.emu.ops.rmw import atomic, atomic_op
from gpubench.isa.decoder import Instruction


def returns_prior_value(inst: Instruction) -> bool:
    """Whether an atomic writes the memory's prior value to vdst (glc / sc0 / th[0])."""
    if inst.fmt.field("th") is not None:
        return bool(inst["th"] & 1)
    return bool(inst.get("glc", inst.get("sc0", 0)))


@factory
def vector_atomic(inst: Instruction):
    if inst.isa.root_of(inst.fmt) not in VECTOR_FAMILIES or "_ATOMIC_" not in inst.name:
        return None
    op = atomic_op(inst.name)
    if op is None:
        raise Unsupported(f"{inst.name} is not emulated")
    check_data_registers(inst)
    dwords = op.bits // 32
    returns = returns_prior_value(inst)

    def run(ctx: Context, waves: np.ndarray) -> None:
        data_reg = field(inst, "data", "vsrc")
        for segment, lanes in vector_segments(ctx, inst, waves):
            a = dwords_to_words(read_dwords(ctx, lanes, data_reg, dwords))
            b = dwords_to_words(read_dwords(ctx, lanes, data_reg + dwords, dwords)) if op.operands == 2 else a
            before = atomic(ctx, segment, lanes, op, a, b)
            if returns:
                write_dwords(ctx, lanes, inst["vdst"], words_to_dwords(before, dwords))
        ctx.waves.pc[waves] += inst.size

    return run
