"""Dispatch plans: a small dispatch set up once so that native code (packets.py) runs it again from its
DISPATCH_DIRECT packet without Python.

Test suites launch the same kernels at the same sizes again and again. After Python has run a dispatch
(cp/pm4.py), a plan is made for its registers when nothing needs to see its next ones in Python
(`allowed`: no dispatch hook, the native engine, no wave schedule or race detector) and it fits one:
at most launch.REUSED_WAVES waves, a program bound natively at its entry point that does not use the
trap status. A plan holds:
- the dispatch's start state but its user SGPRs (launch.initial_waves, where prepare_context starts
  too) and working waves, LDS and scratch, which native code restores from it before each run (one
  memcpy or memset per array) before it writes the user SGPRs from COMPUTE_USER_DATA_*;
- the engine's dispatch block for the working waves (engine.dispatch_block), a status per wave, and
  a coverage array the runs add to (the queue's `executed` names are read from it);
- what must still hold for it to run: the program's binding generation (the records array it names)
  and a copy of the code window (NativeProgram.for_dispatch's check, made natively), else Python runs
  the dispatch and makes a new plan.
A run that leaves a wave short of s_endpgm is run on by Python from the working waves (`resume`).
"""
from __future__ import annotations

import numpy as np

from gpubench.emu import executor, launch, races, schedule
from gpubench.emu.context import Context
from gpubench.emu.memory import AddressSpace
from gpubench.emu.native import engine
from gpubench.emu.native.layout import Dispatch, Status
from gpubench.emu.native.packets import KEY_BODY_WORDS, KEY_REGISTERS, PlanRow, PlanSlot
from gpubench.emu.waves import WaveState
from gpubench.isa.codeobject import KernelDescriptor

MAX_PLANS = 64  # per queue: packets.State.PLANS_RUN has a bit per plan


def allowed() -> bool:
    """Whether a dispatch may run where no Python code sees it."""
    return not launch.hooks and launch.engine() == "native" and schedule.configured() is None and \
        not races.requested()


class DispatchPlan:
    def __init__(self, ctx: Context, program: engine.NativeProgram, entry: int, user_sgprs: int,
                 template, watchdog: executor.Watchdog):
        self.ctx, self.program, self.entry, self.watchdog = ctx, program, entry, watchdog
        w = ctx.waves
        self.reached = np.zeros(len(program.records), np.uint8)
        self.statuses = np.zeros(w.count, np.int32)
        self.wave_list = np.arange(w.count, dtype=np.int64)
        self.block = engine.dispatch_block(ctx, program, engine.maps_of(ctx.memory))
        self.block[Dispatch.RECORDS] = engine.address(program.records)
        self.block[Dispatch.REACHED] = engine.address(self.reached)
        self.block[Dispatch.WAVE_LIST], self.block[Dispatch.WAVE_COUNT] = engine.address(self.wave_list), w.count
        self.block[Dispatch.STATUS_LIST] = engine.address(self.statuses)
        self.code = np.frombuffer(program.code, np.uint8).copy()
        self.template = template
        copies = [(engine.address(mine), engine.address(start), mine.nbytes)
                  for mine, start in zip(w.arrays(), template.arrays()) if mine.nbytes]
        copies += [(engine.address(zeroed), 0, zeroed.nbytes) for zeroed in (ctx.lds, ctx.scratch) if zeroed.nbytes]
        self.copies = np.array(copies, np.int64).reshape(-1, 3)
        self.slots = np.zeros(PlanSlot.SLOTS, np.int64)
        self.slots[PlanSlot.DISPATCH] = engine.address(self.block)
        self.slots[PlanSlot.LOOP] = engine.loop_address(w.wave_size)
        self.slots[PlanSlot.GENERATION] = engine.address(program.generation)
        self.slots[PlanSlot.EXPECTED_GENERATION] = program.generation[0]
        self.slots[PlanSlot.CODE], self.slots[PlanSlot.CODE_BYTES] = program.base, len(self.code)
        self.slots[PlanSlot.CODE_COPY] = engine.address(self.code)
        self.slots[PlanSlot.COPIES], self.slots[PlanSlot.COPY_COUNT] = engine.address(self.copies), len(self.copies)
        self.slots[PlanSlot.WAVES], self.slots[PlanSlot.SGPR] = w.count, engine.address(w.sgpr)
        self.slots[PlanSlot.USER_SGPRS] = user_sgprs
        self.slots[PlanSlot.STATUSES] = engine.address(self.statuses)
        self.slots[PlanSlot.BUDGET] = min(engine.SLICE, watchdog.max_wave_instructions + 1)

    @classmethod
    def make(cls, memory: AddressSpace, target: str, desc: KernelDescriptor, entry: int, user_sgprs: int,
             grid: tuple[int, int, int], block: tuple[int, int, int],
             watchdog: executor.Watchdog) -> DispatchPlan | None:
        """The plan of a dispatch that has just run, or None if it cannot have one."""
        groups, per_group = grid[0] * grid[1] * grid[2], -(-(block[0] * block[1] * block[2]) // desc.wave_size)
        if groups * per_group > launch.REUSED_WAVES or user_sgprs > desc["USER_SGPR_COUNT"]:
            return None
        ctx = launch.prepare_context(memory, target, desc, entry, [], grid, block, watchdog)
        if not engine.usable(ctx):
            return None
        program = engine.NativeProgram.for_dispatch(ctx, entry)
        if program is None or not program.covers(entry) or program.uses_trap_status or \
                program.table[(entry - program.base) // 4] < 0:
            return None
        return cls(ctx, program, entry, user_sgprs, launch.initial_waves(desc, grid, block, entry), watchdog)

    def executed(self) -> frozenset[str]:
        return self.program.reached_names(self.reached)

    def resume(self) -> launch.LaunchStats:
        """Run on a dispatch whose native run stopped short (packets.Stop.UNFINISHED) from where its
        waves are, on a Context of its own, and return the whole dispatch's statistics."""
        mine = self.ctx
        ctx = Context(mine.isa, mine.waves, mine.memory, mine.lds, mine.scratch)
        counted = int(self.block[Dispatch.WAVE_INSTRUCTIONS])
        ctx.stats.update(wave_instructions=counted, steps=counted,
                         lane_operations=int(self.block[Dispatch.LANE_OPERATIONS]))
        state = ctx.waves.state
        state[self.statuses == Status.END] = WaveState.DONE
        state[self.statuses == Status.BARRIER] = WaveState.BARRIER
        engine.run(ctx, self.watchdog, entry=self.entry)
        stats = launch.stats(ctx)
        stats.executed |= self.executed()
        return stats


class Plans:
    """A queue's plans and the table native code matches dispatches against."""

    def __init__(self):
        self.table = np.zeros((MAX_PLANS, PlanRow.WORDS), np.int64)
        self.plans: list[DispatchPlan] = []  # by row
        self._rows: dict[tuple[int, ...], int] = {}

    def learn(self, key: tuple[int, ...], plan: DispatchPlan | None) -> None:
        """``plan`` (None: none can be made) is the one for dispatches with ``key``: the values of
        packets.KEY_REGISTERS, then DISPATCH_DIRECT's body words."""
        assert len(key) == len(KEY_REGISTERS) + KEY_BODY_WORDS
        row = self._rows.get(key)
        if plan is None:
            if row is not None:
                self.table[row, PlanRow.VALID] = 0
            return
        if row is None:
            if len(self.plans) == MAX_PLANS:  # test suites use a few dozen kernels at a time: start over
                self.table[:], self.plans, self._rows = 0, [], {}
            row = self._rows[key] = len(self.plans)
            self.plans.append(plan)
        self.plans[row] = plan
        self.table[row, PlanRow.KEY:] = key
        self.table[row, PlanRow.BLOCK] = engine.address(plan.slots)
        self.table[row, PlanRow.VALID] = 1
