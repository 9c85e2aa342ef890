"""What a dispatch executed, written out as it runs: an instruction trace (JSON lines), a timeline
(Chrome trace event format, for chrome://tracing or ui.perfetto.dev) and a fidelity report (each
instruction executed, how often, and where the emulator's semantics for it come from).

Each is an observer: `step(change)` after every issue, `close()` at the end. `observe` runs a
dispatch to its end with observers, for callers without a debugger (`gpubench run`):

    observe(ctx, [InstructionTrace(ctx, open("t.jsonl", "w")), timeline := Timeline(ctx, "k")])
"""
from __future__ import annotations

import json
from collections import Counter
from typing import TextIO

import numpy as np

from gpubench.debug.recorder import Change, Recorder
from gpubench.debug.view import sgpr_name
from gpubench.emu.context import Context
from gpubench.emu.executor import Runner, Watchdog
from gpubench.isa.disasm import disassemble


def observe(ctx: Context, observers: list, watchdog: Watchdog = Watchdog()) -> None:
    """Run the dispatch to its end (errors propagate), feeding every issue to ``observers``."""
    recorder = Recorder(Runner(ctx, watchdog), keep=False)
    try:
        while (change := recorder.step()) is not None:
            for observer in observers:
                observer.step(change)
    finally:
        for observer in observers:
            observer.close()


def _text(change: Change, cache: dict[int, str]) -> str:
    text = cache.get(change.pc)
    if text is None:
        text = cache[change.pc] = disassemble(change.inst) if change.inst is not None else "<undecodable>"
    return text


class InstructionTrace:
    """One JSON object per wave per executed instruction: issue, pc, instruction, wave (index, workgroup,
    id in the workgroup), EXEC before it, and the registers whose value it changed."""

    def __init__(self, ctx: Context, out: TextIO):
        self.ctx, self.out = ctx, out
        self._texts: dict[int, str] = {}

    def step(self, change: Change) -> None:
        w, target = self.ctx.waves, self.ctx.isa.target.name
        text = _text(change, self._texts)
        for row, wave in enumerate(change.waves.tolist()):
            exec_bits = int.from_bytes(change.exec_before[row].tobytes(), "little")
            written = [sgpr_name(r, target) if kind == "s" else f"v{r}" for kind, r in change.written(row)]
            self.out.write(json.dumps({"issue": change.index, "pc": f"0x{change.pc:x}", "inst": text, "wave": wave,
                                       "workgroup": int(w.workgroup[wave]), "wave_id": int(w.wave_id[wave]),
                                       "exec": f"0x{exec_bits:0{w.wave_size // 4}x}", "written": written}) + "\n")

    def close(self) -> None:
        self.out.flush()


class Timeline:
    """Chrome trace events: the dispatch, each workgroup (a process) and each wave (a thread) as
    complete ("X") events on a clock of one microsecond per issue, with instruction counts."""

    def __init__(self, ctx: Context, kernel: str, out: TextIO | None = None):
        self.ctx, self.kernel, self.out = ctx, kernel, out
        count = ctx.waves.count
        self.first = np.full(count, -1, np.int64)
        self.last = np.full(count, -1, np.int64)
        self.issues = 0

    def step(self, change: Change) -> None:
        waves = change.waves
        fresh = waves[self.first[waves] < 0]
        self.first[fresh] = change.index
        self.last[waves] = change.index
        self.issues = change.index + 1

    def events(self) -> dict:
        w = self.ctx.waves
        events = [{"name": "process_name", "ph": "M", "pid": 0, "tid": 0, "args": {"name": "dispatch"}},
                  {"name": self.kernel, "cat": "dispatch", "ph": "X", "pid": 0, "tid": 0, "ts": 0, "dur": self.issues,
                   "args": {"waves": int(w.count), "workgroups": int(self.ctx.lds.shape[0]),
                            "wave_instructions": int(w.executed.sum())}}]
        for group in range(self.ctx.lds.shape[0]):
            members = np.flatnonzero(w.workgroup == group)
            ran = members[self.first[members] >= 0]
            pid = group + 1
            events.append({"name": "process_name", "ph": "M", "pid": pid, "tid": 0,
                           "args": {"name": f"workgroup {group}"}})
            if ran.size:
                start, end = int(self.first[ran].min()), int(self.last[ran].max()) + 1
                events.append({"name": f"workgroup {group}", "cat": "workgroup", "ph": "X", "pid": pid, "tid": 0,
                               "ts": start, "dur": end - start, "args": {"waves": int(members.size),
                                                                        "instructions": int(w.executed[members].sum())}})
            for wave in ran.tolist():
                tid = int(w.wave_id[wave]) + 1
                events.append({"name": "thread_name", "ph": "M", "pid": pid, "tid": tid, "args": {"name": f"wave {tid - 1}"}})
                events.append({"name": f"wave {tid - 1}", "cat": "wave", "ph": "X", "pid": pid, "tid": tid,
                               "ts": int(self.first[wave]), "dur": int(self.last[wave] - self.first[wave]) + 1,
                               "args": {"wave": wave, "instructions": int(w.executed[wave])}})
        return {"traceEvents": events, "displayTimeUnit": "ms", "otherData": {"clock": "one microsecond per issue"}}

    def close(self) -> None:
        if self.out is not None:
            json.dump(self.events(), self.out)
            self.out.flush()


class Fidelity:
    """Per instruction executed: wave-instructions, issues and the semantics source of the encoding
    that ran ("pseudocode", "manual"; see gpubench.emu.coverage)."""

    def __init__(self) -> None:
        self.wave_instructions: Counter[str] = Counter()
        self.issues: Counter[str] = Counter()
        self.sources: dict[str, str] = {}

    def step(self, change: Change) -> None:
        if change.inst is None:
            return
        name = change.inst.name.lower()
        self.wave_instructions[name] += len(change.waves)
        self.issues[name] += 1
        if name not in self.sources:
            from gpubench.emu.ops import semantics_source
            self.sources[name] = semantics_source(change.inst)

    def close(self) -> None:
        pass

    def merge(self, rows: list[dict]) -> None:
        """Add another report's rows (an xdist worker's) to this one."""
        for row in rows:
            name = row["instruction"]
            self.wave_instructions[name] += row["wave_instructions"]
            self.issues[name] += row["issues"]
            self.sources[name] = row["source"]

    def report(self) -> list[dict]:
        return [{"instruction": name, "wave_instructions": count, "issues": self.issues[name],
                 "source": self.sources[name]} for name, count in self.wave_instructions.most_common()]

    def table(self) -> str:
        rows = self.report()
        by_source = Counter()
        for row in rows:
            by_source[row["source"]] += row["wave_instructions"]
        total = sum(by_source.values()) or 1
        lines = [f"{'instruction':32} {'wave-instr':>10} {'issues':>8}  source"]
        lines += [f"{r['instruction']:32} {r['wave_instructions']:10} {r['issues']:8}  {r['source']}" for r in rows]
        lines.append("executed: " + ", ".join(f"{100 * n / total:.1f}% {s}" for s, n in by_source.most_common()))
        return "\n".join(lines)
