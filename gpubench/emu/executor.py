"""Runs a dispatch: all waves of all workgroups, one instruction at a time for every wave that
stands at the same PC, until every wave has ended.

By default (the lockstep schedule) the waves at the lowest PC go first, so waves that diverged on a
branch meet again and run together; another schedule (schedule.py) picks the waves of a workgroup
in another order. A wave at s_barrier waits until all waves of its workgroup are at the barrier or done.
Errors stop the dispatch with what a user needs to act on: the fault's address, the PC with its
disassembly, the workgroup, wave and lane; the watchdog's dump of every live wave.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from gpubench.emu.context import Context, ExecutionError
from gpubench.emu.memory import NOT_EXECUTABLE, PageFault
from gpubench.emu.ops import Handler, Unsupported
from gpubench.emu.ops import claimed as ops_claimed
from gpubench.emu.schedule import LOCKSTEP, Schedule, configured
from gpubench.emu.waves import EXEC_LO, SGPRS, WaveState
from gpubench.isa.decoder import DecodeError, Instruction, decode, decides_alone
from gpubench.isa.disasm import disassemble_at

MAX_INSTRUCTION_BYTES = 16


class GPUPageFault(ExecutionError):
    def __init__(self, fault: PageFault):
        super().__init__(str(fault))
        self.fault = fault


class WatchdogTimeout(ExecutionError):
    pass


@dataclass
class Watchdog:
    """Stops a dispatch that runs too long: by wave-instructions executed, or by seconds."""

    max_wave_instructions: int = 2_000_000_000
    max_seconds: float = 300.0


class Program:
    """The code a dispatch runs, decoded once per PC, with each instruction's handler.

    Decoding is shared by every dispatch in the process: an instruction is looked up by its bytes
    (the decoder reads an encoding from its first byte on and stops at its end, so the bytes at a PC
    that begin with a decoded instruction's bytes are that instruction; new code at a reused address
    is decoded afresh) and decoded and bound to its handler only the first time those bytes are seen.
    A dispatch then pays one fetch per PC it reaches, not a decode."""

    _handlers: dict[tuple, tuple[Handler, object]] = {}  # (handler, its factory) by (target, wave size, bytes)
    _decoded: dict[tuple, tuple[Instruction, Handler]] = {}  # by (target, wave size, instruction bytes)
    MAX_DECODED = 1 << 17  # instructions kept; past it the cache starts again (a long run of generated code)
    PREFIXES = range(4, MAX_INSTRUCTION_BYTES + 1, 4)  # the instruction sizes: a dword multiple

    def __init__(self, ctx: Context):
        self.ctx = ctx
        self.steps: dict[int, tuple[Instruction, Handler]] = {}

    def window(self, pc: int) -> bytes:
        """The bytes an instruction at ``pc`` can span (fewer at the end of its mapping)."""
        mapping = self.ctx.memory.find(pc)
        if mapping is None:
            raise PageFault(pc, False, "instruction fetch from unmapped memory")
        if not mapping.executable:
            raise PageFault(pc, False, NOT_EXECUTABLE)
        start = pc - mapping.base
        return mapping.data[start:start + MAX_INSTRUCTION_BYTES].tobytes()

    def lookup(self, pc: int) -> tuple[Instruction, Handler]:
        """The instruction at ``pc`` and its handler, from the process's decode cache."""
        target, wave_size = self.ctx.isa.target.name, self.ctx.waves.wave_size
        window = self.window(pc)
        decoded = self._decoded
        for size in self.PREFIXES:
            found = decoded.get((target, wave_size, window[:size]))
            if found is not None:
                return found
        return self._decode(target, wave_size, window)

    def factory(self, inst: Instruction):
        """The handler factory that claimed ``inst`` (one `lookup` returned)."""
        return self._handlers[self.ctx.isa.target.name, self.ctx.waves.wave_size, inst.bytes][1]

    def step(self, pc: int) -> tuple[Instruction, Handler]:
        found = self.steps.get(pc)
        if found is None:
            found = self.steps[pc] = self.lookup(pc)
            # once per PC: the names of the instructions this dispatch reached (tools/coverage_record.py)
            inst = found[0]
            self.ctx.stats.setdefault("executed", set()).update(i.name for i in (inst.idef, inst.idef_y) if i)
        return found

    def _decode(self, target: str, wave_size: int, window: bytes) -> tuple[Instruction, Handler]:
        inst = decode(self.ctx.isa, window)
        key = (target, wave_size, inst.bytes)
        claimed = self._handlers.get(key)
        if claimed is None:
            make, handler = ops_claimed(inst)
            claimed = self._handlers[key] = handler, make
        handler = claimed[0]
        if len(self._decoded) >= self.MAX_DECODED:
            self._decoded.clear()
        # an instruction that the bytes after it could extend is known by the whole window
        self._decoded[(target, wave_size, inst.bytes if decides_alone(inst) else window)] = inst, handler
        return inst, handler

    def describe(self, pc: int) -> str:
        mapping = self.ctx.memory.find(pc)
        if mapping is None:
            return f"0x{pc:x}: <no instruction: nothing is mapped at the PC>"
        try:
            data = mapping.data[pc - mapping.base:pc - mapping.base + MAX_INSTRUCTION_BYTES].tobytes()
            inst, text = disassemble_at(self.ctx.isa, data)
            return f"0x{pc:x}: {text}  [{inst.bytes.hex()}]"
        except DecodeError as e:
            return f"0x{pc:x}: <{e}>"


@dataclass(frozen=True)
class StepResult:
    """One issue: the instruction at ``pc``, executed for ``waves`` (indices into ctx.waves)."""

    pc: int
    waves: np.ndarray
    inst: Instruction


class Runner:
    """A dispatch that can be driven one issue at a time (the debugger) or run to the end.

    `select` picks the next issue by the schedule (None: GPUBENCH_SCHEDULE's, else lockstep), releasing
    barriers when no wave can run; `execute` runs it; `release_barriers` is a method so a recorder
    can see the waves it wakes."""

    def __init__(self, ctx: Context, watchdog: Watchdog = Watchdog(), schedule: Schedule | None = None):
        schedule = schedule or configured() or LOCKSTEP
        self.ctx, self.watchdog = ctx, watchdog
        self.program = Program(ctx)
        self.start = ctx.started
        self.every = ctx.waves.every_wave()
        self.lockstep = schedule == LOCKSTEP
        self.pick = schedule.picker(ctx.waves)

    def select(self) -> tuple[int, np.ndarray] | None:
        """(pc, waves) of the next issue; None once every wave is done."""
        w, every = self.ctx.waves, self.every
        while True:
            # Fast path: every wave running at one PC (straight-line code, no barrier, no divergence) is
            # the common case. Two cheap whole-array checks find it without the flatnonzero/gather/min
            # below, and passing `every` lets handlers index by slice (Waves.rows) instead of gathering.
            pc = int(w.pc[0]) if len(every) else 0
            if self.lockstep and len(every) and not w.state.any() and (w.pc == pc).all():  # RUNNING == 0
                return pc, every
            running = np.flatnonzero(w.state == WaveState.RUNNING)
            if running.size:
                return self.pick(running)
            if not (w.state == WaveState.BARRIER).any():
                return None
            self.release_barriers()

    def release_barriers(self) -> np.ndarray:
        """Workgroups whose waves are all at the barrier (or done) go on; returns the woken waves."""
        ctx, w = self.ctx, self.ctx.waves
        groups = w.workgroup
        waiting = np.bincount(groups, weights=w.state == WaveState.BARRIER, minlength=ctx.lds.shape[0])
        live = np.bincount(groups, weights=w.state != WaveState.DONE, minlength=ctx.lds.shape[0])
        release = (waiting == live) & (waiting > 0)
        woken = np.flatnonzero((w.state == WaveState.BARRIER) & release[groups])
        w.state[woken] = WaveState.RUNNING
        if ctx.races is not None:
            ctx.races.barrier(woken)
        return woken

    def execute(self, pc: int, waves: np.ndarray) -> Instruction:
        ctx, w, program = self.ctx, self.ctx.waves, self.program
        rows = w.rows(waves)
        active_lanes = np.bitwise_count(w.sgpr[rows, EXEC_LO]).sum(dtype=np.int64)
        if w.wave_size == 64:
            active_lanes += np.bitwise_count(w.sgpr[rows, EXEC_LO + 1]).sum(dtype=np.int64)
        try:
            inst, handler = program.step(pc)
            if ctx.races is not None:
                ctx.races.issuing(pc, inst, waves)
            handler(ctx, waves)
        except PageFault as fault:
            fault.context.setdefault("workgroup", int(w.workgroup[waves[0]]))
            fault.context.setdefault("wave", int(w.wave_id[waves[0]]))
            fault.context.update(pc=f"0x{pc:x}", instruction=program.describe(pc).split(": ", 1)[-1])
            raise GPUPageFault(fault) from None
        except DecodeError as e:  # the bytes at the PC are no instruction the hardware executes
            raise ExecutionError(f"illegal instruction at 0x{pc:x}: {e}") from None
        except (Unsupported, ValueError) as e:
            raise ExecutionError(f"cannot execute {program.describe(pc)}: {e}") from None
        except IndexError:  # the register files are the wave's allocation: this one names a register past it
            raise ExecutionError(f"illegal instruction {program.describe(pc)}: a register beyond the wave's "
                                 f"{w.vgpr.shape[1]} VGPRs (.amdhsa_next_free_vgpr) or {SGPRS} SGPRs") from None
        w.executed[rows] += 1
        stats = ctx.stats
        stats["wave_instructions"] += len(waves)
        stats["steps"] += 1
        stats["lane_operations"] += int(active_lanes)
        if stats["wave_instructions"] > self.watchdog.max_wave_instructions or \
                time.perf_counter() - self.start > self.watchdog.max_seconds:
            raise WatchdogTimeout(hang_report(ctx, program, self.watchdog))
        return inst

    def step(self) -> StepResult | None:
        """Execute the next issue; None once every wave is done."""
        found = self.select()
        if found is None:
            return None
        pc, waves = found
        return StepResult(pc, waves, self.execute(pc, waves))

    def run(self) -> None:
        select, execute = self.select, self.execute
        while (found := select()) is not None:
            execute(*found)


def run(ctx: Context, watchdog: Watchdog = Watchdog(), schedule: Schedule | None = None) -> None:
    Runner(ctx, watchdog, schedule).run()


def hang_report(ctx: Context, program: Program, watchdog: Watchdog) -> str:
    w = ctx.waves
    lines = [f"watchdog: the dispatch exceeded {watchdog.max_wave_instructions} wave-instructions or "
             f"{watchdog.max_seconds:.0f} s; live waves:"]
    for wave in np.flatnonzero(w.state != WaveState.DONE)[:8]:
        exec_bits = int(w.sgpr[wave, 126]) | (int(w.sgpr[wave, 127]) << 32 if w.wave_size == 64 else 0)
        lines.append(f"  workgroup {w.workgroup[wave]} wave {w.wave_id[wave]} "
                     f"{WaveState(w.state[wave]).name.lower()} exec=0x{exec_bits:x} "
                     f"executed={w.executed[wave]}")
        pc = int(w.pc[wave])
        lines.append(f"    -> {program.describe(pc)}")
    return "\n".join(lines)
