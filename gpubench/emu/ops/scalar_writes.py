"""gfx9's scalar memory writes: S_STORE_*, S_BUFFER_STORE_*, S_SCRATCH_STORE_* and the scalar atomics
S_ATOMIC_* / S_BUFFER_ATOMIC_* (manual: the CDNA3/CDNA4 pseudocode's MEM[addr] updates; the address is
memory_ops.smem_address's, as for the scalar loads, and the update rmw.py's).

Each wave is one access at one address: the store writes SDATA's dwords; an atomic takes DATA from
SDATA (compare-swap: the new value in its first half, the compare value in its second) and, with GLC
set, returns the prior value to SDATA's first half (RETURN_DATA). Waves hitting one address update it
one after another, in wave order, as vector lanes do (rmw.serialize). A fault (unmapped or read-only
memory) stops the instruction before anything is written, as for every memory access.
"""
from __future__ import annotations

import numpy as np

from gpubench.emu.context import Context
from gpubench.emu.ops import Unsupported, factory
from gpubench.emu.ops.lane_data import dwords_to_words, words_to_dwords
from gpubench.emu.ops.memory_ops import smem_address
from gpubench.emu.ops.rmw import atomic, atomic_op
from gpubench.emu.ops.segments import GLOBAL, Lanes
from gpubench.isa.decoder import Instruction

NULL_SGPRS = 124  # SDATA at or past this names no SGPR the handler writes (as scalar_load)


def _wave_lanes(ctx: Context, inst: Instruction, waves: np.ndarray) -> Lanes:
    """One lane per wave (lane 0), at the wave's scalar address."""
    return Lanes(waves, np.zeros(len(waves), np.intp), smem_address(ctx, inst, waves))


@factory
def scalar_write(inst: Instruction):
    tokens = inst.name.split("_")
    if inst.isa.root_of(inst.fmt) != "SMEM" or not {"STORE", "ATOMIC"} & set(tokens):
        return None
    reg, dwords = inst["sdata"], inst.idef.operand("sdata").bits // 32
    if "STORE" in tokens:
        def store(ctx: Context, waves: np.ndarray) -> None:
            data = ctx.waves.sgpr[waves, reg:reg + dwords].astype("<u4")
            GLOBAL.write(ctx, _wave_lanes(ctx, inst, waves), np.ascontiguousarray(data).view(np.uint8))
            ctx.waves.pc[waves] += inst.size
        return store
    op = atomic_op(inst.name.replace("S_BUFFER_", "S_"))
    if op is None:
        raise Unsupported(f"{inst.name} is not emulated")
    words = op.bits // 32
    returns = bool(inst["glc"])

    def update(ctx: Context, waves: np.ndarray) -> None:
        data = ctx.waves.sgpr[waves, reg:reg + dwords]
        a = dwords_to_words(data[:, :words])
        b = dwords_to_words(data[:, words:]) if op.operands == 2 else a
        before = atomic(ctx, GLOBAL, _wave_lanes(ctx, inst, waves), op, a, b)
        if returns and reg < NULL_SGPRS:
            ctx.waves.sgpr[waves, reg:reg + words] = words_to_dwords(before, words)
        ctx.waves.pc[waves] += inst.size

    return update
