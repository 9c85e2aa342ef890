"""Manual: gfx12's transposing global loads (the RDNA4 manual gives them no pseudocode): each lane reads
eight elements at its address as GLOBAL_LOAD_B128 / GLOBAL_LOAD_B64 do (memory_ops.py), GLOBAL_LOAD_TR_B128
eight 16-bit ones, GLOBAL_LOAD_TR_B64 eight 8-bit ones, then the elements move across each group of 8 lanes
as transpose.py says: lane L's element j is element L % 8 of lane 8 * (L / 8) + j, an 8x8 transpose per
group. For TR_B128 that mapping was measured on gfx1201 (the Tessera project's RDNA WMMA fragment-layout
notes, 2026-09-19: memory holding distinct values, each lane's eight results dumped, "received(L, j) =
R(8 * (L / 8) + j)[L % 8]", and an address pattern derived from it reproducing the WMMA B fragment on 256/256
elements). The same notes quote the manual: TR_B128 is wave32-only and needs EXEC all ones; the emulator
stops the dispatch otherwise, on TR_B64 too. TR_B64 is not measured: it is the same 8x8 transpose with 8-bit
elements because AMD's compiler engineers describe both instructions as loading "8 contiguous N-direction
elements per lane" with "a hardware 8x8 wave-level cross-lane transpose" (IREE issue 24454, RDNA4
global_load_tr); composable_kernel's gfx12 amd_global_load_transpose_to_vgpr returns eight T through TR_B128
for 2-byte and TR_B64 for 1-byte T, and its one caller, the gfx12 wave-tile transfer, asks K1 = 8 elements
whatever the type; and gfx12's 8-bit WMMA B fragment has the 16-bit one's lane shape (column L % 16, eight K
values per lane), so one address pattern serves both."""
from __future__ import annotations

import numpy as np

from gpubench.emu.context import Context
from gpubench.emu.ops import factory
from gpubench.emu.ops.lane_data import write_dwords
from gpubench.emu.ops.memory_ops import check_data_registers, vector_segments
from gpubench.emu.ops.transpose import transposed
from gpubench.isa.decoder import Instruction

GROUP = 8
LAYOUTS = {"GLOBAL_LOAD_TR_B128": (16, 16), "GLOBAL_LOAD_TR_B64": (8, 8)}  # bytes a lane reads, element bits


@factory
def global_transpose(inst: Instruction):
    if inst.isa.arch != "rdna4" or inst.name not in LAYOUTS:
        return None
    width, element_bits = LAYOUTS[inst.name]
    check_data_registers(inst)

    def run(ctx: Context, waves: np.ndarray) -> None:
        if ctx.waves.wave_size != 32:
            raise ValueError(f"{inst.name} is wave32-only")
        if not ctx.waves.exec_mask(waves).all():
            raise ValueError(f"{inst.name} needs EXEC to be all ones (a wave has inactive lanes)")
        (segment, lanes), = vector_segments(ctx, inst, waves)
        raw = segment.read(ctx, lanes, width)
        write_dwords(ctx, lanes, inst["vdst"], transposed(ctx, waves, lanes, raw, GROUP, element_bits))
        ctx.waves.pc[waves] += inst.size

    return run
