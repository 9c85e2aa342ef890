"""The dispatch tools of `gpubench run` (--record, --fidelity, --trace, --timeline with --dispatch or
--kernel), installed as launch hooks (gpubench.emu.launch). `gpubench run` hands them to pytest
and its xdist workers through the environment (GPUBENCH_*), so every worker sets up the same ones;
a worker's files get its id (DIR/gw0-dispatch-3, trace-gw0.jsonl).
"""
from __future__ import annotations

import fnmatch
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from gpubench.debug.record import DispatchRecorder
from gpubench.debug.trace import Fidelity, InstructionTrace, Timeline, observe
from gpubench.emu import launch
from gpubench.emu.executor import Runner
from gpubench.emu.launch import Dispatch, LaunchStats

ENV = {"record": "GPUBENCH_RECORD", "record_at": "GPUBENCH_RECORD_AT", "shadow": "GPUBENCH_SHADOW",
       "fidelity": "GPUBENCH_FIDELITY", "trace": "GPUBENCH_TRACE", "timeline": "GPUBENCH_TIMELINE",
       "dispatch": "GPUBENCH_DISPATCH", "kernel": "GPUBENCH_KERNEL"}


def selector(index: int | None, kernel: str | None) -> Callable[[Dispatch], bool] | None:
    """Dispatch number ``index`` (from 0, per process) and/or kernels whose name matches the glob ``kernel``."""
    if index is None and kernel is None:
        return None
    return lambda d: (index is None or d.index == index) and (kernel is None or fnmatch.fnmatchcase(d.name or "", kernel))


def label(dispatch: Dispatch) -> str:
    return dispatch.name or f"dispatch-{dispatch.index}"


class Observe:
    """Feeds the issues of every dispatch to a Fidelity report, and of the first selected one to a
    trace and a timeline. It runs the dispatch itself, so it must be the last hook."""

    def __init__(self, fidelity: Fidelity | None, trace: Path | None, timeline: Path | None,
                 select: Callable[[Dispatch], bool] | None):
        self.fidelity, self.trace, self.timeline = fidelity, trace, timeline
        self.select = select or (lambda d: True)
        self.pending = bool(trace or timeline)

    def __call__(self, dispatch: Dispatch, proceed: Callable[[], LaunchStats]) -> LaunchStats:
        ctx, observers = dispatch.ctx, []
        if self.pending and self.select(dispatch):
            self.pending = False
            if self.trace:
                observers.append(InstructionTrace(ctx, self.trace.open("w")))
            if self.timeline:
                observers.append(Timeline(ctx, label(dispatch), self.timeline.open("w")))
        if observers:
            observe(ctx, observers + ([self.fidelity] if self.fidelity else []), dispatch.watchdog)
        elif self.fidelity:  # counts need no register diffs: the runner's own steps are enough (and fast)
            runner = Runner(ctx, dispatch.watchdog)
            while (step := runner.step()) is not None:
                self.fidelity.step(step)
        else:
            return proceed()
        return launch.stats(ctx)


@dataclass
class Tools:
    recorder: DispatchRecorder | None = None
    fidelity: Fidelity | None = None
    hooks: list = field(default_factory=list)

    def uninstall(self) -> None:
        for hook in self.hooks:
            launch.hooks.remove(hook)


def install(environ, worker: str | None = None) -> Tools | None:
    """The tools the environment asks for, as launch hooks; None when it asks for none."""
    get = lambda name: environ.get(ENV[name]) or None
    if get("record_at") == "client":  # gpubench.debug.client_recorder records instead
        environ = {key: value for key, value in environ.items() if key != ENV["record"]}
    if not any(get(name) for name in ("record", "fidelity", "trace", "timeline")):
        return None
    if get("kernel") or get("record"):  # names select dispatches and label recordings
        from gpubench.debug import tinygrad_names
        tinygrad_names.install()
    select = selector(int(get("dispatch")) if get("dispatch") else None, get("kernel"))
    tools = Tools()
    if get("record"):
        tools.recorder = DispatchRecorder(get("record"), f"{worker}-" if worker else "", select)
        tools.hooks.append(tools.recorder)
    tools.fidelity = Fidelity() if get("fidelity") else None
    per_worker = lambda path: Path(path).with_stem(f"{Path(path).stem}-{worker}") if worker else Path(path)
    if tools.fidelity or get("trace") or get("timeline"):
        tools.hooks.append(Observe(tools.fidelity, get("trace") and per_worker(get("trace")),
                                   get("timeline") and per_worker(get("timeline")), select))
    launch.hooks.extend(tools.hooks)
    return tools
