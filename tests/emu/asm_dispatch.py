"""Runs a few lines of hand-written assembly on the emulator: the test harness for instruction families.

    run = Dispatch("gfx1100", wave_size=32, groups=2, waves_per_group=2, lds_bytes=256)
    run.vgpr[:, 1, :] = ...                      # registers of every wave, before the run
    data = run.buffer(np.arange(64, dtype=np.uint32))
    run.sgpr_pair(0, data.address)
    run("ds_store_b32 v1, v2\\n global_load_b32 v3, v1, s[0:1]")   # s_endpgm is appended
    run.step(lds.data_share, "ds_swizzle_b32 v2, v1 offset:0x8000")  # one instruction, one factory's handler
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

import gpubench
from gpubench.emu import executor
from gpubench.emu.context import Context
from gpubench.emu.native import engine as native
from gpubench.emu.waves import EXEC_LO, Waves
from gpubench.isa.arch import ISA
from gpubench.isa.asm import assemble
from gpubench.isa.decoder import decode

CODE_BASE = 0x10_0000_0000


class Dispatch:
    def __init__(self, target: str = "gfx1100", wave_size: int = 32, groups: int = 1, waves_per_group: int = 1,
                 lds_bytes: int = 0, private_bytes: int = 0, vgprs: int = 32):
        self.isa = ISA.get(target, wave_size)
        self.device = gpubench.Device(target)
        count = groups * waves_per_group
        self.waves = Waves.create(count, wave_size, vgprs)
        self.waves.workgroup[:] = np.repeat(np.arange(groups), waves_per_group)
        self.waves.wave_id[:] = np.tile(np.arange(waves_per_group), groups)
        self.waves.write_mask(EXEC_LO, np.arange(count), np.ones((count, wave_size), bool))
        self.lds = np.zeros((groups, max(1, lds_bytes)), np.uint8)
        self.scratch = np.zeros((count, wave_size, private_bytes), np.uint8)

    @property
    def vgpr(self) -> np.ndarray:
        return self.waves.vgpr

    @property
    def sgpr(self) -> np.ndarray:
        return self.waves.sgpr

    def lane_ids(self) -> np.ndarray:
        """[waves, lanes] each lane's index in its wave."""
        return np.broadcast_to(np.arange(self.waves.wave_size, dtype=np.uint32), self.vgpr[:, 0, :].shape)

    def set_exec(self, mask: np.ndarray) -> None:
        self.waves.write_mask(EXEC_LO, np.arange(self.waves.count), np.broadcast_to(mask, self.vgpr[:, 0, :].shape))

    def buffer(self, array: np.ndarray):
        return self.device.to_device(array)

    def sgpr_pair(self, reg: int, value: int) -> None:
        self.sgpr[:, reg] = value & 0xFFFFFFFF
        self.sgpr[:, reg + 1] = value >> 32

    def context(self) -> Context:
        return Context(self.isa, self.waves, self.device.memory, self.lds, self.scratch)

    def __call__(self, text: str, engine_name: str = "reference") -> Context:
        """Run ``text`` on the reference engine, or on the native one (``engine_name="native"``)."""
        code = assemble(self.isa, text + "\ns_endpgm\n").data
        self.device.alloc_at(CODE_BASE, code)
        self.waves.pc[:] = CODE_BASE
        ctx = self.context()
        if engine_name == "native":
            native.run(ctx, executor.Watchdog())
        else:
            executor.run(ctx)
        return ctx

    def step(self, make_handler, text: str) -> Context:
        """Execute one instruction with the handler ``make_handler`` (a factory) builds for it, for
        every wave: tests a module's semantics whichever module the dispatch would pick."""
        inst = decode(self.isa, assemble(self.isa, text).data)
        ctx = self.context()
        make_handler(inst)(ctx, np.arange(self.waves.count))
        return ctx


def run_program(text: str, target: str = "gfx1100", wave_size: int = 32, waves: int = 1, vgprs: int = 64,
                setup: Callable[[Context], None] | None = None, workgroups: int = 1) -> Context:
    """Run ``text`` (s_endpgm appended) on ``waves`` waves with EXEC all ones, v0 the lane id and
    everything else 0 unless ``setup`` changes it; return the context afterwards."""
    run = Dispatch(target, wave_size, groups=workgroups, waves_per_group=waves // workgroups, lds_bytes=1024,
                   vgprs=vgprs)
    run.vgpr[:, 0, :] = run.lane_ids()
    if setup is not None:
        setup(run.context())
    return run(text)
