"""`gpubench debug --run SUITE_OR_SCRIPT --kernel NAME`: run a tinygrad test suite or script on
the emulated machine (MOCKKFD or MOCKPCI, --dev), in this process, and open the debugger when the
first dispatch of NAME starts.

The hook runs on the command-processor thread that executes the dispatch, and so does the
session: the client waits on its completion signal meanwhile (its wait timeout is lifted), and
after the session the rest of the dispatch runs to its end (a fault the session stopped at is
raised again, so the queue reports it as without a debugger).
"""
from __future__ import annotations

import math
import os
import runpy
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from gpubench.debug.session import Session
from gpubench.emu import executor, launch
from gpubench.emu.context import Context
from gpubench.emu.launch import Dispatch, LaunchStats

NO_TIMEOUT_MS = str(10**9)  # tinygrad's HCQ signal wait, while a person looks at a stopped dispatch


@dataclass
class HookedLaunch:
    """A dispatch of a queue as `Session` takes it (as a PreparedLaunch); the queue owns its memory."""

    ctx: Context

    def close(self) -> None:
        pass


class BreakIn:
    """A launch hook: the first dispatch ``select`` accepts is handed to ``debug(session)``."""

    def __init__(self, select: Callable[[Dispatch], bool], debug: Callable[[Session], None]):
        self.select, self.debug = select, debug
        self.hit: Dispatch | None = None

    def __call__(self, dispatch: Dispatch, proceed: Callable[[], LaunchStats]) -> LaunchStats:
        if self.hit is not None or not self.select(dispatch):
            return proceed()
        self.hit = dispatch
        watchdog = executor.Watchdog(dispatch.watchdog.max_wave_instructions, math.inf)  # people are slow
        name = dispatch.name or f"dispatch-{dispatch.index}"
        session = Session(HookedLaunch(dispatch.ctx), {name: dispatch.program}, watchdog=watchdog)
        try:
            self.debug(session)
        finally:
            session.close()
        executor.run(dispatch.ctx, dispatch.watchdog)  # what the session left
        return launch.stats(dispatch.ctx)


def run(target: str, hook: BreakIn, dev: str = "MOCKKFD+AMD") -> int:
    """Run ``target`` with ``hook`` installed: a script, or a suite or test for pytest (a built-in
    suite, a directory, test_*.py, FILE::TEST); returns the exit status."""
    from gpubench.debug import tinygrad_names
    from gpubench.drivers import tinygrad_env, tinygrad_seam
    from gpubench.runner import suite_path

    os.environ["DEV"] = dev
    os.environ.setdefault("HCQDEV_WAIT_TIMEOUT_MS", NO_TIMEOUT_MS)
    tinygrad_env.configure(os.environ)
    tinygrad_seam.install()
    tinygrad_names.install()
    launch.hooks.append(hook)
    try:
        path = Path(target)
        if path.suffix == ".py" and not path.name.startswith("test_"):  # test_*.py, FILE::TEST, suites: pytest
            runpy.run_path(str(path), run_name="__main__")
            return 0
        import pytest
        # -s: the session reads and writes the terminal (and no -n: the tests run in this process)
        return int(pytest.main([suite_path(target), "-p", "no:cacheprovider", "-s", "-q"]))
    finally:
        launch.hooks.remove(hook)
