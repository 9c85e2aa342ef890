"""Program control without pseudocode: end of program, barriers, waits and hints.

Memory operations complete at once in the emulator, so the wait instructions (s_waitcnt and
gfx12's s_wait_*) have nothing to wait for, and no wave sleeps (s_sleep, gfx12's s_sleep_var, s_wakeup)
or runs at a performance level (s_incperflevel); s_barrier parks the wave until its workgroup arrives.
The emulator has no caches: every store reaches memory at once, so the cache write-backs and
invalidations do nothing, gfx9's s_dcache_discard(_x2) too (discarding a dirty line leaves memory
undefined between the old and new data: memory holding the new data is one outcome the hardware
has), and gfx12's prefetches (S_PREFETCH_*, S_BUFFER_PREFETCH_DATA: the RDNA4 pseudocode only fills
a cache, and a prefetch never faults) as well.
"""
from __future__ import annotations

import numpy as np

from gpubench.emu.context import Context
from gpubench.emu.ops import factory
from gpubench.emu.waves import WaveState
from gpubench.isa.decoder import Instruction

NO_EFFECT = {"S_NOP", "S_WAITCNT", "S_WAITCNT_DEPCTR", "S_WAITCNT_VSCNT", "S_WAITCNT_VMCNT", "S_WAITCNT_EXPCNT",
             "S_WAITCNT_LGKMCNT", "S_DELAY_ALU", "S_CLAUSE", "S_SET_INST_PREFETCH_DISTANCE", "S_SLEEP",
             "S_SETPRIO", "S_WAKEUP", "S_INCPERFLEVEL", "S_DECPERFLEVEL", "S_TTRACEDATA", "S_TTRACEDATA_IMM",
             "S_ICACHE_INV", "S_SENDMSG", "S_SENDMSGHALT", "S_SLEEP_VAR",
             "S_WAIT_IDLE", "S_WAIT_LOADCNT", "S_WAIT_STORECNT", "S_WAIT_SAMPLECNT", "S_WAIT_BVHCNT",
             "S_WAIT_EXPCNT", "S_WAIT_DSCNT", "S_WAIT_KMCNT", "S_WAIT_ALU", "S_WAIT_EVENT",
             "S_WAIT_LOADCNT_DSCNT", "S_WAIT_STORECNT_DSCNT", "S_DCACHE_INV", "S_GL1_INV", "BUFFER_GL0_INV",
             "BUFFER_GL1_INV", "BUFFER_WBL2", "BUFFER_INV", "GLOBAL_INV", "GLOBAL_WB", "GLOBAL_WBINV",
             "S_BARRIER_WAIT", "S_DCACHE_WB", "S_DCACHE_WB_VOL", "S_DCACHE_INV_VOL", "S_DCACHE_DISCARD",
             "S_DCACHE_DISCARD_X2", "S_PREFETCH_INST", "S_PREFETCH_INST_PC_REL", "S_PREFETCH_DATA",
             "S_PREFETCH_DATA_PC_REL", "S_BUFFER_PREFETCH_DATA"}


@factory
def control(inst: Instruction):
    name = inst.name
    if name in NO_EFFECT:
        def advance(ctx: Context, waves: np.ndarray) -> None:
            ctx.waves.pc[waves] += inst.size
        return advance
    if name in ("S_ENDPGM", "S_ENDPGM_SAVED"):
        def end(ctx: Context, waves: np.ndarray) -> None:
            ctx.waves.state[waves] = WaveState.DONE
        return end
    if name in ("S_BARRIER", "S_BARRIER_SIGNAL"):
        def barrier(ctx: Context, waves: np.ndarray) -> None:
            ctx.waves.state[waves] = WaveState.BARRIER
            ctx.waves.pc[waves] += inst.size
        return barrier
    return None
