"""Runs a few lines of assembly on hand-made waves: a test sets registers, runs, and reads them back."""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from gpubench.emu import executor
from gpubench.emu.context import Context
from gpubench.emu.memory import AddressSpace
from gpubench.emu.waves import EXEC_LO, Waves
from gpubench.isa.arch import ISA
from gpubench.isa.asm import assemble

CODE_BASE = 0x1000_0000


def run_program(text: str, target: str = "gfx1100", wave_size: int = 32, waves: int = 1, vgprs: int = 64,
                setup: Callable[[Context], None] | None = None, workgroups: int = 1) -> Context:
    """Assemble ``text`` (s_endpgm appended), run it on ``waves`` waves with EXEC all ones, v0 the
    lane id and everything else 0 unless ``setup`` changes it; return the context afterwards."""
    isa = ISA.get(target, wave_size)
    code = assemble(isa, text + "\ns_endpgm\n").data
    memory = AddressSpace()
    memory.map(CODE_BASE, np.frombuffer(code, np.uint8).copy(), writable=False, name="code")
    state = Waves.create(waves, wave_size, vgprs)
    state.pc[:] = CODE_BASE
    state.workgroup[:] = np.arange(waves) * workgroups // waves
    state.wave_id[:] = np.arange(waves) - state.workgroup * (waves // workgroups)
    state.write_mask(EXEC_LO, np.arange(waves), np.ones((waves, wave_size), bool))
    state.vgpr[:, 0, :] = np.arange(wave_size, dtype=np.uint32)
    ctx = Context(isa, state, memory, np.zeros((workgroups, 1024), np.uint8), np.zeros((waves, wave_size, 0), np.uint8))
    if setup is not None:
        setup(ctx)
    executor.run(ctx)
    return ctx
