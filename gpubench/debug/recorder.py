"""Executes a dispatch issue by issue and records, per issue, what it changed and the values it
overwrote, so the debugger can undo issues (reverse execution) and traces can name what was written.

An issue's `Change` holds the changed register rows of its waves (found by comparing copies taken
before and after: a register written with the value it already held does not count), their PC,
SCC, state, MODE and instruction counts, and the old bytes of the memory, LDS and scratch it wrote.
Global writes are seen by wrapping the AddressSpace (`_MemoryLog`); LDS and scratch are compared
before and after, only around instructions that can write them (ALU and scalar loads cannot).
Barrier releases happen between issues and are recorded too, so undoing past one puts the woken
waves back at their barrier.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from gpubench.emu.context import ExecutionError
from gpubench.emu.coverage import SALU_FAMILIES, VALU_FAMILIES, family_of
from gpubench.emu.executor import Runner
from gpubench.emu.memory import AddressSpace, PageFault
from gpubench.emu.waves import EXEC_LO, WaveState
from gpubench.isa.decoder import DecodeError, Instruction

SCALAR_ONLY = set(SALU_FAMILIES) | {"SMEM"}  # cannot write VGPRs
NO_LOCAL_WRITES = SCALAR_ONLY | set(VALU_FAMILIES)  # cannot write LDS or scratch
PER_WAVE = ("pc", "scc", "state", "mode", "executed")
COUNTERS = ("wave_instructions", "steps", "lane_operations")


class _MemoryLog:
    """The dispatch's AddressSpace, logging (addresses, old bytes) of every write while `log` is a list."""

    def __init__(self, inner: AddressSpace):
        self.inner = inner
        self.log: list | None = None

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def write(self, addresses: np.ndarray, values: np.ndarray) -> None:
        if self.log is not None and addresses.size:
            try:
                old = self.inner.read(addresses, values.shape[1])
            except PageFault:
                old = None  # the write below faults the same way (as a write), and writes nothing
            self.inner.write(addresses, values)
            self.log.append((addresses.copy(), old))
            return
        self.inner.write(addresses, values)


@dataclass
class Change:
    """One issue and what it overwrote."""

    index: int  # issues before this one in the dispatch
    pc: int
    waves: np.ndarray  # wave indices
    inst: Instruction | None  # None when the fetch itself failed
    exec_before: np.ndarray  # uint32 [waves, wave_size // 32]
    before: dict  # PER_WAVE name -> values of `waves` before
    counters: dict
    sgprs: tuple = ()  # (row in waves, register, old value) arrays
    vgprs: tuple = ()  # (row in waves, register, old lanes [n, wave_size]) arrays
    memory: list = field(default_factory=list)  # (addresses, old bytes)
    lds: tuple = ()  # (workgroup, byte, old) arrays
    scratch: tuple = ()  # (row in waves, lane, byte, old) arrays
    vgprs_after: np.ndarray | None = None  # the new values of the changed VGPR rows (NaN checks)

    def written(self, row: int) -> list[tuple[str, int]]:
        """Registers the issue changed in wave ``waves[row]``: ("s", n) and ("v", n), plus ("scc", 0)."""
        out = [("s", int(r)) for i, r in zip(*self.sgprs[:2]) if i == row] if self.sgprs else []
        out += [("v", int(r)) for i, r in zip(*self.vgprs[:2]) if i == row] if self.vgprs else []
        return out


@dataclass
class Release:
    """Waves a barrier let go between two issues."""

    waves: np.ndarray


class Recorder:
    """Drives `runner` issue by issue; keeps the history for undo when ``keep``."""

    def __init__(self, runner: Runner, keep: bool = True):
        self.runner, self.keep = runner, keep
        self.ctx = runner.ctx
        self.memory = self.ctx.memory = _MemoryLog(self.ctx.memory)
        self.history: list[Change | Release] = []
        self.issued = 0
        release = runner.release_barriers

        def recorded_release() -> np.ndarray:
            woken = release()
            if self.keep and woken.size:
                self.history.append(Release(woken))
            return woken
        runner.release_barriers = recorded_release

    def step(self) -> Change | None:
        found = self.runner.select()
        return None if found is None else self.execute(*found)

    def execute(self, pc: int, waves: np.ndarray) -> Change:
        """Run one issue; on an error, undo what it did so far and raise (state as before the issue)."""
        ctx, w = self.ctx, self.ctx.waves
        try:
            inst = self.runner.program.step(pc)[0]
            family = family_of(inst.idef)
        except (PageFault, DecodeError, ValueError):
            inst, family = None, ""
        waves = np.asarray(waves)
        change = Change(self.issued, pc, waves, inst, w.sgpr[waves, EXEC_LO:EXEC_LO + w.wave_size // 32].copy(),
                        {name: getattr(w, name)[waves].copy() for name in PER_WAVE},
                        {name: ctx.stats[name] for name in COUNTERS})
        sgpr0 = w.sgpr[waves]
        vgpr0 = None if family in SCALAR_ONLY else w.vgpr[waves]
        groups = lds0 = scratch0 = None
        if family not in NO_LOCAL_WRITES:
            groups = np.unique(w.workgroup[waves])
            lds0 = ctx.lds[groups]
            scratch0 = ctx.scratch[waves] if ctx.scratch.size else None
        self.memory.log = change.memory
        try:
            self.runner.execute(pc, waves)
        except ExecutionError:
            self._diff(change, sgpr0, vgpr0, groups, lds0, scratch0)
            self._undo(change)
            raise
        finally:
            self.memory.log = None
        self._diff(change, sgpr0, vgpr0, groups, lds0, scratch0)
        self.issued += 1
        if self.keep:
            self.history.append(change)
        return change

    def _diff(self, change: Change, sgpr0, vgpr0, groups, lds0, scratch0) -> None:
        ctx, w, waves = self.ctx, self.ctx.waves, change.waves
        rows, regs = np.nonzero(w.sgpr[waves] != sgpr0)
        change.sgprs = (rows, regs, sgpr0[rows, regs])
        if vgpr0 is not None:
            after = w.vgpr[waves]
            rows, regs = np.nonzero((after != vgpr0).any(axis=2))
            change.vgprs = (rows, regs, vgpr0[rows, regs])
            change.vgprs_after = after[rows, regs]
        if lds0 is not None:
            g, b = np.nonzero(ctx.lds[groups] != lds0)
            change.lds = (groups[g], b, lds0[g, b])
        if scratch0 is not None:
            r, lane, b = np.nonzero(ctx.scratch[waves] != scratch0)
            change.scratch = (r, lane, b, scratch0[r, lane, b])

    def undo(self) -> Change | None:
        """Undo the last issue (and any barrier release after it); None when there is nothing to undo."""
        w = self.ctx.waves
        while self.history and isinstance(self.history[-1], Release):
            w.state[self.history.pop().waves] = WaveState.BARRIER
        if not self.history:
            return None
        change = self.history.pop()
        self._undo(change)
        self.issued -= 1
        return change

    def _undo(self, change: Change) -> None:
        ctx, w, waves = self.ctx, self.ctx.waves, change.waves
        if len(change.sgprs):
            rows, regs, old = change.sgprs
            w.sgpr[waves[rows], regs] = old
        if len(change.vgprs):
            rows, regs, old = change.vgprs
            w.vgpr[waves[rows], regs] = old
        for name, values in change.before.items():
            getattr(w, name)[waves] = values
        for addresses, old in reversed(change.memory):
            if old is not None:
                self.memory.inner.write(addresses, old)
        if len(change.lds):
            g, b, old = change.lds
            ctx.lds[g, b] = old
        if len(change.scratch):
            r, lane, b, old = change.scratch
            ctx.scratch[waves[r], lane, b] = old
        ctx.stats.update(change.counters)
