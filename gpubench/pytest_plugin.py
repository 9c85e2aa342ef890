"""pytest plugin: runs a tinygrad test suite on MOCKKFD and reports the emulator's work.

Loaded by every pytest (entry point `pytest11`); it does nothing unless DEV names a MOCKKFD device
(DEV=MOCKKFD+AMD ...). Then, before any test module imports tinygrad, it installs the tinygrad
seam and fills in the environment (gpubench.drivers.tinygrad_env), and at the end it prints the
emulator statistics (dispatches, wave-instructions, emulation time, summed over xdist workers)
and, with --gpubench-json FILE, writes them with the test outcome counts as JSON.
"""
from __future__ import annotations

import json
import os

import pytest

from gpubench.drivers import tinygrad_env

STAT_FIELDS = ("dispatches", "packets", "wave_instructions", "emulation_seconds")


def pytest_addoption(parser):
    parser.addoption("--gpubench-json", default=None, metavar="FILE",
                     help="write gpubench's run summary (outcomes and emulator statistics) as JSON")


def pytest_configure(config):
    if not tinygrad_env.is_mockkfd(os.environ):
        return
    notes = tinygrad_env.configure(os.environ)
    from gpubench.drivers import tinygrad_seam
    tinygrad_seam.install()
    config._gpubench = {"stats": dict.fromkeys(STAT_FIELDS, 0), "executed": set(), "notes": notes}
    if not hasattr(config, "workerinput"):  # the controller, or a run without xdist: say it once
        for note in notes:
            print(f"gpubench: {note}")


def _machine_stats() -> tuple[dict, set]:
    from gpubench.drivers.kfd import machine
    if machine._current is None:
        return dict.fromkeys(STAT_FIELDS, 0), set()
    totals, executed = dict.fromkeys(STAT_FIELDS, 0), set()
    for node in machine._current.driver.nodes.values():
        stats = node.gpu.stats()
        for name in STAT_FIELDS:
            totals[name] += getattr(stats, name)
        executed |= stats.executed
    return totals, executed


def pytest_sessionfinish(session):
    state = getattr(session.config, "_gpubench", None)
    if state is None:
        return
    stats, executed = _machine_stats()
    if hasattr(session.config, "workeroutput"):  # an xdist worker: hand the numbers to the controller
        session.config.workeroutput["gpubench"] = {"stats": stats, "executed": sorted(executed)}
    else:
        _add(state, {"stats": stats, "executed": executed})


def pytest_testnodedown(node, error):
    state = getattr(node.config, "_gpubench", None)
    if state is not None and "gpubench" in getattr(node, "workeroutput", {}):
        _add(state, node.workeroutput["gpubench"])


def _add(state: dict, part: dict) -> None:
    for name in STAT_FIELDS:
        state["stats"][name] += part["stats"][name]
    state["executed"] |= set(part["executed"])


@pytest.hookimpl(trylast=True)
def pytest_terminal_summary(terminalreporter, config):
    state = getattr(config, "_gpubench", None)
    if state is None or hasattr(config, "workerinput"):
        return
    outcomes = {k: len(terminalreporter.stats.get(k, [])) for k in ("passed", "failed", "skipped", "error", "xfailed")}
    stats = state["stats"]
    terminalreporter.section("gpubench")
    terminalreporter.write_line(
        f"{outcomes['passed']} passed, {outcomes['failed']} failed, {outcomes['skipped']} skipped, "
        f"{outcomes['error']} errors on {os.environ.get('DEV')}")
    terminalreporter.write_line(
        f"emulator: {stats['dispatches']} kernels dispatched, {stats['wave_instructions']:,} wave-instructions, "
        f"{stats['emulation_seconds']:.1f} s emulating, {len(state['executed'])} distinct instructions")
    path = config.getoption("--gpubench-json")
    if path:
        report = {"device": os.environ.get("DEV"), "outcomes": outcomes, "emulator": stats,
                  "instructions_executed": sorted(state["executed"]), "notes": state["notes"]}
        with open(path, "w") as file:
            json.dump(report, file, indent=2)
