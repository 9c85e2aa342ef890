"""Runs one line of assembly on one wave of random registers, on either engine: the harness of the native
engine's instruction tests that compare it with the reference engine."""
from __future__ import annotations

import numpy as np
from asm_dispatch import CODE_BASE, Dispatch

from gpubench.emu import executor
from gpubench.emu.native import engine
from gpubench.isa.asm import assemble

LANE_BITS = 0xF0F0_FF7E_6DB6_DB6D  # EXEC: lanes on and off in runs of every length up to 8


def exec_bits(wave_size: int) -> np.ndarray:
    return np.array([LANE_BITS >> lane & 1 for lane in range(wave_size)], bool)


def run_line(target: str, text: str, seed: int, native: bool, wave_size: int = 64):
    """``text`` (s_endpgm appended) on random VGPRs v0-v7 and SGPRs s0-s15 (``seed``), EXEC from LANE_BITS:
    the wave's (VGPRs, SGPRs) before and after, and the wave-instructions left to the reference engine."""
    rng = np.random.default_rng(seed)
    run = Dispatch(target, wave_size, vgprs=8)
    run.vgpr[0] = rng.integers(0, 1 << 32, run.vgpr.shape[1:], dtype=np.uint64).astype(np.uint32)
    run.sgpr[0, :16] = rng.integers(0, 1 << 32, 16, dtype=np.uint64).astype(np.uint32)
    run.set_exec(exec_bits(wave_size))
    before = run.vgpr[0].copy(), run.sgpr[0].copy()
    run.device.alloc_at(CODE_BASE, assemble(run.isa, text + "\ns_endpgm\n").data)
    run.waves.pc[:] = CODE_BASE
    ctx = run.context()
    (engine.run if native else executor.run)(ctx, executor.Watchdog())
    return before, (run.vgpr[0].copy(), run.sgpr[0].copy()), sum(ctx.stats.get("by_reference", {}).values())
