"""The watchdog bounds a dispatch's wall time wherever the time goes: in the waves' instructions, and
in setting up a dispatch so large that touching its register files takes seconds."""
from __future__ import annotations

import time

import numpy as np
import pytest

from gpubench.emu import executor, launch
from gpubench.emu.memory import AddressSpace
from gpubench.isa.arch import ISA
from gpubench.isa.asm import assemble
from gpubench.isa.codeobject import KernelDescriptor

CODE = 0x10000
RSRC1 = 48  # the kernel descriptor's COMPUTE_PGM_RSRC1: GRANULATED_WORKITEM_VGPR_COUNT in bits 5:0


def descriptor(vgpr_granules: int = 0) -> KernelDescriptor:
    raw = bytearray(64)  # wave64 (no WAVE32 bit), v0 the work-item id
    raw[RSRC1] = vgpr_granules
    return KernelDescriptor.parse(bytes(raw), "rdna3")


def spinning_memory() -> AddressSpace:
    memory = AddressSpace()
    code = assemble(ISA.get("gfx1100", 64), "spin:\ns_branch spin\ns_endpgm").data
    memory.map(CODE, np.frombuffer(code.ljust(4096, b"\0"), np.uint8).copy(), writable=False)
    return memory


@pytest.mark.parametrize("engine", ["native", "reference"])
def test_65536_spinning_one_wave_groups_stop_within_one_and_a_half_limits(monkeypatch, engine):
    monkeypatch.setenv("GPUBENCH_ENGINE", engine)
    limit = 1.0
    started = time.perf_counter()
    with pytest.raises(executor.WatchdogTimeout, match="1 s; live waves"):
        launch.launch(spinning_memory(), "gfx1100", descriptor(), CODE, [], (65536, 1, 1), (64, 1, 1),
                      executor.Watchdog(max_seconds=limit))
    assert time.perf_counter() - started < 1.5 * limit


def test_setting_up_a_huge_dispatch_is_stopped_by_the_watchdog():
    # 65,535 waves of 256 VGPRs: 4 GiB of register file, seconds of first-touch page faults
    with pytest.raises(executor.WatchdogTimeout, match="setting up the dispatch's 65535 waves took longer than 0 s"):
        launch.launch(spinning_memory(), "gfx1100", descriptor(63), CODE, [], (65535, 1, 1), (64, 1, 1),
                      executor.Watchdog(max_seconds=0.0))


def test_a_dispatch_larger_than_the_host_can_hold_is_a_clear_error():
    with pytest.raises(executor.ExecutionError, match=r"needs \d+\.\d GiB of wave state: the emulator holds at most"):
        launch.launch(spinning_memory(), "gfx1100", descriptor(63), CODE, [], (2**32 - 1, 2**32 - 1, 1), (64, 1, 1))
