"""Manual: gfx12's GLOBAL_LOAD_TR_B128 (the RDNA4 manual gives it no pseudocode): each lane reads 128 bits,
eight 16-bit elements, at its address as GLOBAL_LOAD_B128 does (memory_ops.py), then the elements move
across each group of 8 lanes as transpose.py says: lane L's element j is element L % 8 of lane
8 * (L / 8) + j, an 8x8 transpose per group. That mapping was measured on gfx1201 (the Tessera project's
RDNA WMMA fragment-layout notes, 2026-09-19: memory holding distinct values, each lane's eight results
dumped, "received(L, j) = R(8 * (L / 8) + j)[L % 8]", and an address pattern derived from it reproducing the
WMMA B fragment on 256/256 elements). The same notes quote the manual: the instruction is wave32-only and
needs EXEC all ones; the emulator stops the dispatch otherwise. GLOBAL_LOAD_TR_B64 (8-bit elements) is a
different permutation, not measured there, and is not emulated."""
from __future__ import annotations

import numpy as np

from gpubench.emu.context import Context
from gpubench.emu.ops import factory
from gpubench.emu.ops.lane_data import write_dwords
from gpubench.emu.ops.memory_ops import check_data_registers, vector_segments
from gpubench.emu.ops.transpose import transposed
from gpubench.isa.decoder import Instruction

GROUP, ELEMENT_BITS, BYTES = 8, 16, 16


@factory
def global_transpose(inst: Instruction):
    if inst.isa.arch != "rdna4" or inst.name != "GLOBAL_LOAD_TR_B128":
        return None
    check_data_registers(inst)

    def run(ctx: Context, waves: np.ndarray) -> None:
        if ctx.waves.wave_size != 32:
            raise ValueError(f"{inst.name} is wave32-only")
        if not ctx.waves.exec_mask(waves).all():
            raise ValueError(f"{inst.name} needs EXEC to be all ones (a wave has inactive lanes)")
        (segment, lanes), = vector_segments(ctx, inst, waves)
        raw = segment.read(ctx, lanes, BYTES)
        write_dwords(ctx, lanes, inst["vdst"], transposed(ctx, waves, lanes, raw, GROUP, ELEMENT_BITS))
        ctx.waves.pc[waves] += inst.size

    return run
