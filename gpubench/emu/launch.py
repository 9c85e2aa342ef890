"""One compute dispatch, from what the command processor holds when it starts one: the program's
address, the COMPUTE_PGM_RSRC1/2/3 registers and segment sizes (as a KernelDescriptor), the user
SGPR values, the grid (in workgroups) and the workgroup size.

Every path into the emulator ends here: the Python API (device.py, which derives the user SGPRs
from the kernel descriptor as the HSA runtime does), PM4 DISPATCH_DIRECT (COMPUTE_USER_DATA_*
registers) and AQL kernel dispatch packets (cp/aql.py).

Dispatch hooks let tools (gpubench.debug: recording, traces, the debugger) see the dispatches of
the PM4 and AQL paths: each hook in `hooks` is called as ``hook(dispatch, proceed)`` with the
`Dispatch` (its Context prepared, not yet run) and ``proceed()``, which runs the rest of the chain
and then the dispatch, and returns its LaunchStats. A hook may act before and after ``proceed()``,
or drive ``dispatch.ctx`` itself and return `stats(dispatch.ctx)`. With no hook installed,
`launch` costs one list test more than running the Context.

    def log(dispatch, proceed):
        print(dispatch.index, dispatch.name)
        return proceed()
    launch_module.hooks.append(log)
"""
from __future__ import annotations

import functools
import itertools
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from gpubench.emu import abi, executor, races as race_detector, schedule as schedules, symbols
from gpubench.emu.context import Context, ExecutionError
from gpubench.emu.memory import AddressSpace
from gpubench.emu.native import engine as native_engine
from gpubench.emu.waves import SGPRS, Waves
from gpubench.isa.arch import ISA
from gpubench.isa.codeobject import KernelDescriptor


MAX_STATE_BYTES = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 2
SETUP_CHUNK_BYTES = 64 << 20  # register file set up between two looks at the watchdog


@dataclass
class LaunchStats:
    wave_instructions: int  # instructions executed, summed over waves
    steps: int  # instructions issued (one step runs one instruction for every wave at its PC)
    waves: int
    lane_operations: int  # active lanes summed over wave-instructions
    executed: set[str] = field(default_factory=set)  # names of the instructions the dispatch reached
    # wave-instructions the native engine left to the reference engine, by instruction name
    by_reference: dict[str, int] = field(default_factory=dict)
    schedule: str = ""  # the schedule the waves ran in, with its seed ("": the engine's own order)
    races: list = field(default_factory=list)  # the race detector's RaceReports, when it ran


def prepare_context(memory: AddressSpace, target: str, desc: KernelDescriptor, program: int,
                    user_sgprs: Sequence[int], grid: tuple[int, int, int], block: tuple[int, int, int],
                    watchdog: executor.Watchdog = executor.Watchdog()) -> Context:
    """The dispatch's waves (initial state by the HSA ABI), LDS and scratch, ready to run. The
    watchdog's clock starts here: setting up a huge dispatch is part of its time."""
    started = time.perf_counter()
    groups = grid[0] * grid[1] * grid[2]
    per_group = -(-(block[0] * block[1] * block[2]) // desc.wave_size)
    if groups * per_group <= REUSED_WAVES and len(user_sgprs) <= desc["USER_SGPR_COUNT"]:
        # the user SGPRs are the only part of the initial state that is not the same per dispatch
        waves = initial_waves(desc, grid, block, program).copy()
        waves.sgpr[:, :len(user_sgprs)] = np.array(user_sgprs, np.uint32)
    else:
        waves = _waves(desc, grid, block, program, user_sgprs, watchdog, started)
    lds = np.zeros((groups, max(1, desc.group_segment_fixed_size)), np.uint8)
    scratch = np.zeros((waves.count, desc.wave_size, desc.private_segment_fixed_size), np.uint8)
    return Context(ISA.get(target, desc.wave_size), waves, memory, lds, scratch, started=started)


REUSED_WAVES = 64  # dispatches of up to this many waves start from a kept copy of their initial state


@functools.lru_cache(maxsize=512)
def initial_waves(desc: KernelDescriptor, grid: tuple[int, int, int], block: tuple[int, int, int],
                   program: int) -> Waves:
    """The initial state of a small dispatch but its user SGPRs (zero here): test suites launch the
    same kernel at the same size again and again, and setting waves up is dozens of small numpy
    operations. Never handed out: `prepare_context` runs a copy."""
    user = [0] * desc["USER_SGPR_COUNT"]
    return _waves(desc, grid, block, program, user, executor.Watchdog(), time.perf_counter())


def _waves(desc: KernelDescriptor, grid: tuple[int, int, int], block: tuple[int, int, int], program: int,
           user_sgprs: Sequence[int], watchdog: executor.Watchdog, started: float) -> Waves:
    groups = grid[0] * grid[1] * grid[2]
    per_group = -(-(block[0] * block[1] * block[2]) // desc.wave_size)
    vgprs = abi.vgpr_count(desc, desc.wave_size)
    check_state_fits(groups, groups * per_group, desc, vgprs)
    waves = Waves.create(groups * per_group, desc.wave_size, vgprs)
    fault_in(waves, watchdog, started)
    waves.workgroup[:] = np.repeat(np.arange(groups), per_group)
    waves.wave_id[:] = np.tile(np.arange(per_group), groups)
    waves.pc[:] = program
    group_ids = np.stack(np.unravel_index(np.arange(groups), grid[::-1])[::-1], axis=1).astype(np.uint32)
    abi.initialize(waves, desc, user_sgprs, group_ids, block)
    return waves


def fault_in(waves: Waves, watchdog: executor.Watchdog, started: float) -> None:
    """Touch the register files a chunk of waves at a time, the watchdog checked between chunks: the
    first touch of gigabytes of fresh memory takes seconds (the host zeroes every page), and one
    numpy operation over all of it could not be stopped."""
    step = max(1, SETUP_CHUNK_BYTES // max(1, waves.vgpr[:1].nbytes))
    for start in range(0, waves.count, step):
        waves.vgpr[start:start + step, 0, :] = 0
        if time.perf_counter() - started > watchdog.max_seconds and start + step < waves.count:
            raise executor.WatchdogTimeout(f"watchdog: setting up the dispatch's {waves.count} waves took longer "
                                           f"than {watchdog.max_seconds:g} s ({start + step} set up)")


def check_state_fits(groups: int, waves: int, desc: KernelDescriptor, vgprs: int) -> None:
    """Every wave of a dispatch is resident at once here (the hardware streams workgroups through its
    wave slots): a dispatch whose registers, LDS and scratch exceed what the host can hold is an
    error naming the sizes, before anything is allocated."""
    per_wave = (vgprs + desc.private_segment_fixed_size // 4) * desc.wave_size * 4 + SGPRS * 4
    needed = waves * per_wave + groups * desc.group_segment_fixed_size
    if needed > MAX_STATE_BYTES:
        raise ExecutionError(f"the dispatch of {groups} workgroups ({waves} waves of {vgprs} VGPRs, "
                             f"{desc.group_segment_fixed_size} bytes of LDS per workgroup, "
                             f"{desc.private_segment_fixed_size} of scratch per work-item) needs "
                             f"{needed / 2**30:.1f} GiB of wave state: the emulator holds at most "
                             f"{MAX_STATE_BYTES / 2**30:.1f} GiB (half the host's memory)")


def stats(ctx: Context) -> LaunchStats:
    """The LaunchStats of a Context that has run."""
    return LaunchStats(ctx.stats["wave_instructions"], ctx.stats["steps"], ctx.waves.count,
                       ctx.stats["lane_operations"], ctx.stats.get("executed", set()), ctx.stats.get("by_reference", {}),
                       ctx.stats.get("schedule", ""), ctx.races.reports if ctx.races is not None else [])


def engine() -> str:
    """The engine dispatches run on: GPUBENCH_ENGINE, "native" (the default) or "reference"."""
    name = os.environ.get("GPUBENCH_ENGINE", "native")
    if name not in ENGINES:
        raise ValueError(f"GPUBENCH_ENGINE={name!r}: the engines are {', '.join(ENGINES)}")
    return name


def _native(ctx: Context, watchdog: executor.Watchdog) -> None:
    if native_engine.usable(ctx):
        native_engine.run(ctx, watchdog)
    else:
        executor.run(ctx, watchdog)


ENGINES = {"native": _native, "reference": executor.run}


def run(ctx: Context, watchdog: executor.Watchdog = executor.Watchdog(),
        schedule: schedules.Schedule | None = None, races: bool | None = None, kernel: str | None = None) -> LaunchStats:
    """Run every wave to its end; raises GPUPageFault, WatchdogTimeout or ExecutionError.

    A schedule (``schedule``, else GPUBENCH_SCHEDULE) and the race detector (``races``, else
    GPUBENCH_RACES; reports name ``kernel``, else the name registered at the entry point) run on the
    reference engine: the native loop runs each wave to its next barrier, the order of no schedule
    but per-wave, and its memory accesses are not seen by Python."""
    schedule = schedule or schedules.configured()
    if races if races is not None else race_detector.requested():
        entry = int(ctx.waves.pc[0]) if ctx.waves.count else 0
        ctx.races = race_detector.RaceDetector(ctx, kernel or symbols.name_at(entry) or f"at 0x{entry:x}", entry,
                                               executor.Program(ctx).describe)
    if schedule is None and ctx.races is None:
        ENGINES[engine()](ctx, watchdog)
    else:
        ctx.stats["schedule"] = str(schedule or schedules.LOCKSTEP)
        executor.run(ctx, watchdog, schedule)
    if ctx.races is not None:
        race_detector.collect(ctx.races.reports)
    return stats(ctx)


@dataclass
class Dispatch:
    """A dispatch as hooks see it: what the command processor started it with, and its Context."""

    index: int  # dispatches seen by hooks in this process, from 0
    memory: AddressSpace
    target: str
    desc: KernelDescriptor
    program: int
    user_sgprs: tuple[int, ...]
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    ctx: Context
    watchdog: executor.Watchdog

    @property
    def name(self) -> str | None:
        """The kernel's name, when the client's loader registered it (gpubench.emu.symbols)."""
        return symbols.name_at(self.program)


Hook = Callable[[Dispatch, Callable[[], LaunchStats]], LaunchStats]
hooks: list[Hook] = []
_indices = itertools.count()  # next() is atomic under the GIL: CP threads of several GPUs share it


def launch(memory: AddressSpace, target: str, desc: KernelDescriptor, program: int, user_sgprs: Sequence[int],
           grid: tuple[int, int, int], block: tuple[int, int, int],
           watchdog: executor.Watchdog = executor.Watchdog()) -> LaunchStats:
    ctx = prepare_context(memory, target, desc, program, user_sgprs, grid, block, watchdog)
    if not hooks:
        return run(ctx, watchdog)
    dispatch = Dispatch(next(_indices), memory, target, desc, program, tuple(int(v) for v in user_sgprs),
                        tuple(grid), tuple(block), ctx, watchdog)
    return _through(dispatch, tuple(hooks))


def _through(dispatch: Dispatch, chain: tuple[Hook, ...]) -> LaunchStats:
    if not chain:
        return run(dispatch.ctx, dispatch.watchdog)
    return chain[0](dispatch, lambda: _through(dispatch, chain[1:]))
