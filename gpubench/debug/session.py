"""A debugging session over one dispatch: breakpoints (PC, label, mnemonic), catching the first page
fault, the first NaN written to a VGPR and the first data race (emu/races.py), watchpoints, stepping the selected wave forwards and
backwards, and reading its registers, LDS and memory.

The dispatch runs issue by issue (`Recorder`): an issue executes one instruction for the waves the
schedule picks (GPUBENCH_SCHEDULE, `gpubench debug --schedule`; lockstep by default: every wave at
the lowest PC), so stepping "the selected wave" runs the issues up to and including its next one,
moving other waves as the scheduler does. Reverse execution undoes issues in exact reverse order,
so the state of every wave and of memory is what it was at that point of the forward run (the race
detector's record of accesses is not rewound: a race, once reported, is not reported again).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gpubench.debug import view
from gpubench.debug.labels import labels
from gpubench.emu.device import PreparedLaunch
from gpubench.debug.recorder import Change, Recorder
from gpubench.emu.context import ExecutionError
from gpubench.emu.device import Device, KernelHandle
from gpubench.emu.executor import GPUPageFault, Runner, Watchdog
from gpubench.emu.memory import PageFault
from gpubench.emu.races import RaceDetector
from gpubench.emu.waves import WaveState


@dataclass(frozen=True)
class Stop:
    """Why the dispatch stopped: step, breakpoint, watchpoint, nan, race, fault, error, exited, history-start."""

    reason: str
    message: str = ""


@dataclass
class Watch:
    text: str
    read: Callable[[], np.ndarray]
    value: np.ndarray


class Session:
    def __init__(self, launch: PreparedLaunch, label_addresses: dict[str, int] | None = None, record: bool = True,
                 watchdog: Watchdog = Watchdog()):
        self.launch, self.ctx = launch, launch.ctx
        self.waves = launch.ctx.waves
        self.entry = int(self.waves.pc[0]) if self.waves.count else 0  # the kernel's first instruction
        self.target = launch.ctx.isa.target.name
        self.labels = label_addresses or {}
        self.runner = Runner(self.ctx, watchdog)
        self.recorder = Recorder(self.runner, keep=record)
        self.observers: list = []  # objects with step(change); see trace.py
        self.selected, self.lanes = 0, None
        self.breakpoints: dict[int, tuple[str, int | str]] = {}  # number -> ("pc", address) | ("mnemonic", name)
        self.watches: dict[int, Watch] = {}
        self.catch_nan = False
        self.races_seen: int | None = None  # with `catch race`: the detector's reports already shown
        self._numbers = 0
        self._stopped = False  # once stopped, resuming runs the issue at hand before checking breakpoints (as gdb)

    @classmethod
    def load(cls, device: Device, code_object: str | Path, kernel: str, grid, block, args=(), **kw) -> Session:
        """Load a code object on ``device`` and prepare ``kernel`` for debugging (its labels known)."""
        handle = device.load(code_object)[kernel]
        return cls(handle.prepare(grid, block, args), labels(Path(code_object).read_bytes(), handle.base), **kw)

    @classmethod
    def launch_kernel(cls, handle: KernelHandle, grid, block, args=(), **kw) -> Session:
        return cls(handle.prepare(grid, block, args), **kw)

    def command(self, line: str) -> str:
        from gpubench.debug.commands import execute  # the command language is built on this class
        return execute(self, line)

    # ---- where things are ---------------------------------------------------------------------

    def sgpr_count(self) -> int:
        """SGPRs the kernel uses (its metadata), for `info registers`; all 106 when unknown (a recorded
        or intercepted dispatch has no metadata)."""
        handle = getattr(self.launch, "handle", None)
        return int(handle.kernel.metadata.get(".sgpr_count", 106)) if handle else 106

    def symbolize(self, pc: int) -> str:
        """`<label+0x10>` for the closest label at or before ``pc``."""
        best = max(((a, n) for n, a in self.labels.items() if a <= pc), default=None)
        if best is None:
            return ""
        return f"<{best[1]}+0x{pc - best[0]:x}>" if pc != best[0] else f"<{best[1]}>"

    def where(self, wave: int | None = None) -> str:
        wave = self.selected if wave is None else wave
        w, pc = self.waves, int(self.waves.pc[wave])
        state = WaveState(w.state[wave]).name.lower()
        head = f"wave {wave} (workgroup {w.workgroup[wave]}, wave {w.wave_id[wave]}, {state})"
        if state == "done":
            return head
        return f"{head}\n=> {self.runner.program.describe(pc)} {self.symbolize(pc)}".rstrip()

    def resolve(self, spec: str) -> int:
        """A code address: a label, `*0x1234`, or a number."""
        spec = spec.lstrip("*")
        if spec in self.labels:
            return self.labels[spec]
        label, plus, offset = spec.partition("+")
        if plus and label in self.labels:
            return self.labels[label] + int(offset, 0)
        return int(spec, 0)

    # ---- breakpoints and watchpoints ------------------------------------------------------------

    def add_breakpoint(self, spec: str) -> int:
        """``spec``: a label, an address (`*0x...` or a number) or a mnemonic (`ds_load_b32`)."""
        try:
            where = ("pc", self.resolve(spec))
        except ValueError:
            where = ("mnemonic", spec.lower())
        self._numbers += 1
        self.breakpoints[self._numbers] = where
        return self._numbers

    def add_watch(self, text: str) -> int:
        """Watch a register of the selected wave (`v3`, `s[4:5]`) or memory (`ADDRESS[,BYTES]`, `lds:OFF[,BYTES]`)."""
        wave = self.selected
        try:
            reg = view.parse_register(text, self.target)
            read = lambda: view.read(self.waves, wave, reg)
        except ValueError:
            where, _, size = text.partition(",")
            space, address = self.address(where)
            read = lambda: np.frombuffer(self.read_memory(space, address, int(size or 4, 0)), np.uint8)
        self._numbers += 1
        self.watches[self._numbers] = Watch(text, read, read())
        return self._numbers

    def delete(self, number: int) -> None:
        if self.breakpoints.pop(number, None) is None and self.watches.pop(number, None) is None:
            raise ValueError(f"no breakpoint or watchpoint {number}")

    def _breakpoint_at(self, pc: int) -> int | None:
        mnemonic = None
        for number, (kind, value) in self.breakpoints.items():
            if kind == "pc" and value == pc:
                return number
            if kind == "mnemonic":
                if mnemonic is None:
                    inst = self.runner.program.step(pc)[0]
                    text = self.runner.program.describe(pc).split(": ", 1)[-1].split()[0]
                    mnemonic = {inst.name.lower(), text, text.removesuffix("_e32").removesuffix("_e64")}
                if value in mnemonic:
                    return number
        return None

    def _changed_watch(self) -> Stop | None:
        for number, watch in self.watches.items():
            now = watch.read()
            if not np.array_equal(now, watch.value):
                old, watch.value = watch.value, now
                return Stop("watchpoint", f"watchpoint {number}: {watch.text}\n  old: {_words(old)}\n  new: {_words(now)}")
        return None

    def _new_nan(self, change: Change) -> Stop | None:
        if change.vgprs_after is None or not len(change.vgprs[0]):
            return None
        rows, regs, old = change.vgprs
        new = change.vgprs_after
        fresh = np.isnan(new.view(np.float32)) & ~np.isnan(old.view(np.float32))
        hit = np.flatnonzero(fresh.any(axis=1))
        if not hit.size:
            return None
        row = hit[0]
        self.selected = int(change.waves[rows[row]])
        lanes = np.flatnonzero(fresh[row]).tolist()
        return Stop("nan", f"NaN written to v{regs[row]} in lanes {lanes} of wave {self.selected} by "
                           f"{self.runner.program.describe(change.pc)}")

    # ---- running --------------------------------------------------------------------------------

    def _forward(self, done: Callable[[Change], bool], breakpoints: bool = True) -> Stop:
        first, resuming, self._stopped = True, self._stopped, True
        while True:
            found = self.runner.select()
            if found is None:
                return Stop("exited", "the dispatch has ended: every wave is done")
            pc, waves = found
            if breakpoints and not (first and resuming):
                number = self._breakpoint_at(pc)
                if number is not None:
                    if not np.any(waves == self.selected):
                        self.selected = int(waves[0])
                    return Stop("breakpoint", f"breakpoint {number}, {self.where()}")
            first = False
            try:
                change = self.recorder.execute(pc, waves)
            except GPUPageFault as e:
                self._select_faulting(e.fault, waves)
                return Stop("fault", str(e))
            except ExecutionError as e:
                return Stop("error", str(e))
            for observer in self.observers:
                observer.step(change)
            stop = (self._new_nan(change) if self.catch_nan else None) or self._new_race() or self._changed_watch()
            if stop is not None:
                return stop
            if done(change):
                return Stop("step")

    def catch_races(self) -> None:
        """Watch LDS and global memory for races from here on (accesses already made are not known)."""
        if self.ctx.races is None:
            name = self.symbolize(self.entry).strip("<>") or f"at 0x{self.entry:x}"
            self.ctx.races = RaceDetector(self.ctx, name, self.entry, self.runner.program.describe)
        self.races_seen = len(self.ctx.races.reports)

    def _new_race(self) -> Stop | None:
        if self.races_seen is None or len(self.ctx.races.reports) == self.races_seen:
            return None
        report = self.ctx.races.reports[self.races_seen]
        self.races_seen = len(self.ctx.races.reports)
        self.selected = report.second.wave
        return Stop("race", str(report))

    def _select_faulting(self, fault: PageFault, waves: np.ndarray) -> None:
        w = self.waves
        match = waves[(w.workgroup[waves] == fault.context.get("workgroup")) & (w.wave_id[waves] == fault.context.get("wave"))]
        self.selected = int(match[0] if match.size else waves[0])

    def _mine(self, change: Change) -> bool:
        return bool(np.any(change.waves == self.selected))

    def stepi(self, count: int = 1) -> Stop:
        """Run until the selected wave has executed ``count`` instructions (breakpoints are not checked)."""
        left = [count]

        def done(change: Change) -> bool:
            left[0] -= self._mine(change)
            return left[0] <= 0 or self.waves.state[self.selected] == WaveState.DONE
        if self.waves.state[self.selected] == WaveState.DONE:
            return Stop("exited", f"wave {self.selected} has ended")
        return self._forward(done, breakpoints=False)

    def cont(self) -> Stop:
        return self._forward(lambda change: False)

    def finish(self) -> Stop:
        """Run until the selected wave ends (a kernel has no calls to return from)."""
        return self._forward(lambda change: self.waves.state[self.selected] == WaveState.DONE)

    # ---- reverse --------------------------------------------------------------------------------

    def _backward(self, done: Callable[[Change], bool]) -> Stop:
        if not self.recorder.keep:
            raise ValueError("reverse execution needs recording (the session was made with record=False)")
        self._stopped = True
        while True:
            change = self.recorder.undo()
            if change is None:
                return Stop("history-start", "no more history: the dispatch is at its start")
            stop = self._changed_watch()
            if stop is not None:
                return stop
            if done(change):
                return Stop("step")

    def reverse_stepi(self, count: int = 1) -> Stop:
        left = [count]

        def done(change: Change) -> bool:
            left[0] -= self._mine(change)
            return left[0] <= 0
        return self._backward(done)

    def reverse_continue(self) -> Stop:
        """Back to the last breakpoint (or watched change)."""
        pcs = {v for kind, v in self.breakpoints.values() if kind == "pc"}
        return self._backward(lambda change: self._mine(change) and change.pc in pcs)

    def reverse_to_write(self, text: str) -> Stop:
        """Back to just before the last instruction that changed register ``text`` in the selected wave."""
        reg = view.parse_register(text, self.target)
        kind = "v" if reg.kind == "v" else "s"
        span = range(reg.reg, reg.reg + reg.count)

        def done(change: Change) -> bool:
            rows = np.flatnonzero(change.waves == self.selected)
            return bool(rows.size) and any(k == kind and r in span for k, r in change.written(int(rows[0])))
        return self._backward(done)

    # ---- state ----------------------------------------------------------------------------------

    def select(self, wave: int, lanes: tuple[int, int] | None = None) -> None:
        if not 0 <= wave < self.waves.count:
            raise ValueError(f"no wave {wave}: the dispatch has {self.waves.count}")
        self.selected = wave
        self.lanes = lanes

    def address(self, spec: str) -> tuple[str, int]:
        """("global"|"lds"|"scratch", address) from `0x1000`, `s[4:5]`, `s[4:5]+0x10`, `lds:0x40`, `scratch:8`."""
        space, colon, rest = spec.partition(":")
        if colon and space in ("lds", "scratch"):
            return space, int(rest or "0", 0)
        base, plus, offset = spec.partition("+")
        if base.startswith("s["):
            words = view.read(self.waves, self.selected, view.parse_register(base, self.target))
            value = int(words[0]) | (int(words[1]) << 32 if len(words) > 1 else 0)
        else:
            value = int(base, 0)
        return "global", value + (int(offset, 0) if plus else 0)

    def read_memory(self, space: str, address: int, size: int) -> bytes:
        if space == "lds":
            row = self.ctx.lds[self.waves.workgroup[self.selected]]
            if address + size > row.size:
                raise ValueError(f"LDS has {row.size} bytes")
            return row[address:address + size].tobytes()
        if space == "scratch":
            lane = self.lanes[0] if self.lanes else 0
            row = self.ctx.scratch[self.selected, lane]
            if address + size > row.size:
                raise ValueError(f"the lane's scratch has {row.size} bytes")
            return row[address:address + size].tobytes()
        return self.recorder.memory.inner.read_bytes(address, size)

    def close(self) -> None:
        self.launch.close()


def _words(value: np.ndarray) -> str:
    flat = np.asarray(value).ravel()
    if flat.dtype == np.uint8:
        return flat.tobytes().hex(" ")
    return " ".join(f"0x{int(v):08x}" for v in flat[:32]) + (" ..." if flat.size > 32 else "")
