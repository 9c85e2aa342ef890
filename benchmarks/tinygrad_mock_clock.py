"""The seconds tinygrad's own mock GPU spends in its packet processors and emulator: its mock runs in
the client's thread when a doorbell or ring write reaches it, in `AMDDriver._emulate_execute`, timed
here from outside (the outermost call only). Used by benchmarks/versus_tinygrad.py: imported for its
workloads, and as a pytest plugin (``-p tinygrad_mock_clock``) for tinygrad's test_ops, where each
process writes its total to ``$TINYGRAD_MOCK_CLOCK_FILE.<worker>`` as it finishes."""
from __future__ import annotations

import os
import time
from typing import Callable

FILE_VARIABLE = "TINYGRAD_MOCK_CLOCK_FILE"


def mock_gpu_clock() -> Callable[[], float]:
    """Install the timer (once per process, before the device opens); returns the seconds so far."""
    from test.mockgpu.amd.amddriver import AMDDriver
    emulate = AMDDriver._emulate_execute
    clock = getattr(emulate, "clock", None)
    if clock is not None:
        return clock
    spent, inside = [0.0], [False]

    def timed(driver):
        if inside[0]:
            return emulate(driver)
        inside[0], start = True, time.perf_counter()
        try:
            return emulate(driver)
        finally:
            inside[0] = False
            spent[0] += time.perf_counter() - start
    timed.clock = lambda: spent[0]
    AMDDriver._emulate_execute = timed
    return timed.clock


def pytest_configure(config):
    config._mock_gpu_clock = mock_gpu_clock()


def pytest_sessionfinish(session):
    path = os.environ.get(FILE_VARIABLE)
    if path:
        worker = getattr(session.config, "workerinput", {}).get("workerid", "main")
        with open(f"{path}.{worker}", "w") as file:
            file.write(repr(session.config._mock_gpu_clock()))
