"""pytest plugin: runs a tinygrad test suite on MOCKKFD or MOCKPCI and reports the emulator's work.

Loaded by every pytest (entry point `pytest11`); it does nothing unless DEV names a MOCKKFD or
MOCKPCI device (DEV=MOCKKFD+AMD, DEV=MOCKPCI+AMD ...). Then, before any test module imports
tinygrad, it installs the tinygrad seam and fills in the environment
(gpubench.drivers.tinygrad_env), and at the end it prints the emulator statistics (dispatches,
wave-instructions, emulation time, summed over xdist workers) and, with --gpubench-json FILE,
writes them with the test outcome counts as JSON. The dispatch tools `gpubench run` asks for
through GPUBENCH_* (gpubench.debug.tools: --record, --fidelity, --trace ...) are installed in
every process that runs tests; the fidelity report and the count of recorded dispatches are
summed over workers like the statistics. The client-side tools (--record-at client, --shadow:
gpubench.debug.client_recorder) work on any AMD device, emulated or not; their counts are summed
the same way and closed with one summary. With GPUBENCH_RACES (`gpubench run --races`) the summary
lists every race the detector found, once per kernel and pair of instructions over all workers.
"""
from __future__ import annotations

import json
import os
from collections import Counter

import pytest

from gpubench.drivers import tinygrad_env



def pytest_addoption(parser):
    parser.addoption("--gpubench-json", default=None, metavar="FILE",
                     help="write gpubench's run summary (outcomes and emulator statistics) as JSON")


def pytest_configure(config):
    worker = config.workerinput["workerid"] if hasattr(config, "workerinput") else None
    if tinygrad_env.is_emulated(os.environ):
        _configure_emulated(config, worker)
    if os.environ.get("GPUBENCH_SHADOW") or os.environ.get("GPUBENCH_RECORD_AT") == "client":  # any AMD device
        from gpubench.debug import client_recorder
        tools = client_recorder.install(os.environ, worker)
        if tools is not None:
            config._gpubench_client = {"tools": tools, "tally": client_recorder.Tally()}


def _configure_emulated(config, worker: str | None) -> None:
    notes = tinygrad_env.configure(os.environ)
    from gpubench.drivers import tinygrad_seam
    tinygrad_seam.install()
    from gpubench.emu.cp.queue import QueueStats  # the emulator loads only for emulated runs
    config._gpubench = {"stats": dict.fromkeys(QueueStats.COUNTERS, 0), "executed": set(), "notes": notes, "recorded": 0,
                        "by_reference": Counter(), "races": {}}
    from gpubench.debug import tools
    config._gpubench["tools"] = found = tools.install(os.environ, worker)
    config._gpubench["fidelity"] = found.fidelity if found else None
    if not hasattr(config, "workerinput"):  # the controller, or a run without xdist: say it once
        for note in notes:
            print(f"gpubench: {note}")


def _machine_stats() -> tuple[dict, set, dict]:
    from gpubench.drivers.kfd import machine
    from gpubench.emu.cp.queue import QueueStats
    total = QueueStats()
    if machine._current is not None:
        for gpu in machine._current.gpus:
            total.add(gpu.stats())
    return {name: getattr(total, name) for name in QueueStats.COUNTERS}, total.executed, dict(total.by_reference)


def pytest_sessionfinish(session):
    client = getattr(session.config, "_gpubench_client", None)
    if client is not None:
        done = client["tools"].finish()
        if hasattr(session.config, "workeroutput"):
            session.config.workeroutput["gpubench_client"] = done
        else:
            client["tally"].add(done)
    state = getattr(session.config, "_gpubench", None)
    if state is None:
        return
    stats, executed, by_reference = _machine_stats()
    tools = state["tools"]
    part = {"stats": stats, "executed": sorted(executed), "by_reference": by_reference,
            "recorded": len(tools.recorder.saved) if tools and tools.recorder else 0,
            "fidelity": tools.fidelity.report() if tools and tools.fidelity else [], "races": _races()}
    if tools:
        tools.uninstall()
    if hasattr(session.config, "workeroutput"):  # an xdist worker: hand the numbers to the controller
        session.config.workeroutput["gpubench"] = part
    else:  # this process's own fidelity report is state["fidelity"] already
        _add(state, {**part, "fidelity": []})


def _races() -> list[tuple[str, str]]:
    """This process's race reports as (key, text): a kernel and pair of PCs, and the report."""
    from gpubench.emu import races
    return [(repr(key), str(report)) for key, report in races.reported.items()]


def pytest_testnodedown(node, error):
    client = getattr(node.config, "_gpubench_client", None)
    if client is not None and "gpubench_client" in getattr(node, "workeroutput", {}):
        client["tally"].add(node.workeroutput["gpubench_client"])
    state = getattr(node.config, "_gpubench", None)
    if state is not None and "gpubench" in getattr(node, "workeroutput", {}):
        _add(state, node.workeroutput["gpubench"])


def _add(state: dict, part: dict) -> None:
    for name in state["stats"]:
        state["stats"][name] += part["stats"][name]
    state["executed"] |= set(part["executed"])
    state["by_reference"].update(part["by_reference"])
    state["recorded"] += part.get("recorded", 0)
    for key, text in part.get("races", []):
        state["races"].setdefault(key, text)
    if state["fidelity"] is not None:
        state["fidelity"].merge(part.get("fidelity", []))


@pytest.hookimpl(trylast=True)
def pytest_terminal_summary(terminalreporter, config):
    if hasattr(config, "workerinput"):
        return
    client = getattr(config, "_gpubench_client", None)
    state = getattr(config, "_gpubench", None)
    if state is None:  # a device gpubench does not emulate: only the client tools have something to say
        if client is not None:
            terminalreporter.section("gpubench")
            _client_lines(terminalreporter, client)
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
    left = state["by_reference"]
    if left:
        share = sum(left.values()) / max(1, stats["wave_instructions"])
        top = ", ".join(f"{name} {count:,}" for name, count in left.most_common(5))
        terminalreporter.write_line(f"native engine: {share:.2%} of the wave-instructions ran on the reference engine "
                                    f"({top})")
    from gpubench.emu import races
    if races.requested():
        terminalreporter.write_line(f"race detector: {len(state['races'])} races (kernel and pair of instructions)")
        for text in state["races"].values():
            terminalreporter.write_line(text)
    if state["recorded"]:
        terminalreporter.write_line(f"recorded {state['recorded']} dispatches in {os.environ.get('GPUBENCH_RECORD')}")
    if client is not None:
        _client_lines(terminalreporter, client)
    if state["fidelity"] is not None:
        terminalreporter.section("gpubench fidelity")
        terminalreporter.write_line(state["fidelity"].table())
    path = config.getoption("--gpubench-json")
    if path:
        report = {"device": os.environ.get("DEV"), "outcomes": outcomes, "emulator": stats,
                  "by_reference": dict(state["by_reference"].most_common()),
                  "instructions_executed": sorted(state["executed"]), "notes": state["notes"],
                  "races": list(state["races"].values())}
        with open(path, "w") as file:
            json.dump(report, file, indent=2)


def _client_lines(terminalreporter, client: dict) -> None:
    for line in client["tally"].lines(os.environ):
        terminalreporter.write_line(line)
