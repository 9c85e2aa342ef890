"""gfx12's block loads and stores: GLOBAL/SCRATCH_LOAD_BLOCK and _STORE_BLOCK (manual: the RDNA4
pseudocode, with the address the other GLOBAL/SCRATCH accesses have: memory_ops.vector_segments).

Each lane moves up to 32 dwords between VGPRs vdata..vdata+31 and its address + i * 4, for the bits i
set in M0 (the wave's M0: "holes" are skipped in memory and in the VGPR block alike). All of a lane's
dwords are one access: a fault on any of them stops the instruction before anything is written.
"""
from __future__ import annotations

import numpy as np

from gpubench.emu.context import Context
from gpubench.emu.ops import factory
from gpubench.emu.ops.lds import M0_RDNA
from gpubench.emu.ops.memory_ops import check_data_registers, field, vector_segments
from gpubench.emu.ops.segments import Lanes
from gpubench.isa.decoder import Instruction

BLOCK_DWORDS = 32


def _dwords(ctx: Context, lanes: Lanes) -> tuple[Lanes, np.ndarray]:
    """One 4-byte access per (lane, M0 bit set), lane by lane; and each one's dword index i."""
    m0 = ctx.waves.sgpr[lanes.wave, M0_RDNA].astype(np.uint64)
    bits = (m0[:, None] >> np.arange(BLOCK_DWORDS, dtype=np.uint64)) & np.uint64(1)
    lane, index = np.nonzero(bits)
    at = Lanes(lanes.wave[lane], lanes.lane[lane], lanes.address[lane] + index.astype(np.uint64) * np.uint64(4))
    return at, index


@factory
def block_memory(inst: Instruction):
    tokens = inst.name.split("_")
    if "BLOCK" not in tokens or tokens[0] not in ("GLOBAL", "SCRATCH"):
        return None
    check_data_registers(inst)
    load = tokens[1] == "LOAD"

    def run(ctx: Context, waves: np.ndarray) -> None:
        reg = inst["vdst"] if load else field(inst, "vsrc", "data")
        for segment, lanes in vector_segments(ctx, inst, waves):
            at, index = _dwords(ctx, lanes)
            if load:
                values = np.ascontiguousarray(segment.read(ctx, at, 4)).view("<u4")[:, 0]
                ctx.waves.vgpr[at.wave, reg + index, at.lane] = values
            else:
                values = ctx.waves.vgpr[at.wave, reg + index, at.lane].astype("<u4")
                segment.write(ctx, at, np.ascontiguousarray(values)[:, None].view(np.uint8))
        ctx.waves.pc[waves] += inst.size

    return run
