"""One compute dispatch, from what the command processor holds when it starts one: the program's
address, the COMPUTE_PGM_RSRC1/2/3 registers and segment sizes (as a KernelDescriptor), the user
SGPR values, the grid (in workgroups) and the workgroup size.

Every path into the emulator ends here: the Python API (device.py, which derives the user SGPRs
from the kernel descriptor as the HSA runtime does), PM4 DISPATCH_DIRECT (COMPUTE_USER_DATA_*
registers) and AQL kernel dispatch packets (cp/aql.py).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from gpubench.emu import abi, executor
from gpubench.emu.context import Context
from gpubench.emu.memory import AddressSpace
from gpubench.emu.waves import Waves
from gpubench.isa.arch import ISA
from gpubench.isa.codeobject import KernelDescriptor


@dataclass
class LaunchStats:
    wave_instructions: int  # instructions executed, summed over waves
    steps: int  # instructions issued (one step runs one instruction for every wave at its PC)
    waves: int
    lane_operations: int  # active lanes summed over wave-instructions
    executed: set[str] = field(default_factory=set)  # names of the instructions the dispatch reached


def prepare_context(memory: AddressSpace, target: str, desc: KernelDescriptor, program: int,
                    user_sgprs: Sequence[int], grid: tuple[int, int, int], block: tuple[int, int, int]) -> Context:
    """The dispatch's waves (initial state by the HSA ABI), LDS and scratch, ready to run."""
    isa = ISA.get(target, desc.wave_size)
    groups = grid[0] * grid[1] * grid[2]
    threads = block[0] * block[1] * block[2]
    per_group = -(-threads // desc.wave_size)
    waves = Waves.create(groups * per_group, desc.wave_size, abi.vgpr_count(desc, desc.wave_size))
    waves.workgroup[:] = np.repeat(np.arange(groups), per_group)
    waves.wave_id[:] = np.tile(np.arange(per_group), groups)
    waves.pc[:] = program
    group_ids = np.stack(np.unravel_index(np.arange(groups), grid[::-1])[::-1], axis=1).astype(np.uint32)
    abi.initialize(waves, desc, user_sgprs, group_ids, block)
    lds = np.zeros((groups, max(1, desc.group_segment_fixed_size)), np.uint8)
    scratch = np.zeros((waves.count, desc.wave_size, desc.private_segment_fixed_size), np.uint8)
    return Context(isa, waves, memory, lds, scratch)


def run(ctx: Context, watchdog: executor.Watchdog = executor.Watchdog()) -> LaunchStats:
    """Run every wave to its end; raises GPUPageFault, WatchdogTimeout or ExecutionError."""
    executor.run(ctx, watchdog)
    return LaunchStats(ctx.stats["wave_instructions"], ctx.stats["steps"], ctx.waves.count,
                       ctx.stats["lane_operations"], ctx.stats.get("executed", set()))


def launch(memory: AddressSpace, target: str, desc: KernelDescriptor, program: int, user_sgprs: Sequence[int],
           grid: tuple[int, int, int], block: tuple[int, int, int],
           watchdog: executor.Watchdog = executor.Watchdog()) -> LaunchStats:
    return run(prepare_context(memory, target, desc, program, user_sgprs, grid, block), watchdog)
