"""Choosing the engine: GPUBENCH_ENGINE names it; a name that is not an engine is a clear error."""
import numpy as np
import pytest

import gpubench
from gpubench.emu import launch

SAXPY = "tests/data/codeobjects/saxpy-gfx1100.hsaco"


@pytest.mark.parametrize("engine", ["native", "reference"])
def test_each_engine_runs_a_kernel(engine, monkeypatch):
    monkeypatch.setenv("GPUBENCH_ENGINE", engine)
    dev = gpubench.Device("gfx1100")
    x, y = dev.to_device(np.arange(100, dtype=np.float32)), dev.to_device(np.ones(100, dtype=np.float32))
    stats = dev.load(SAXPY)["saxpy"](grid=(2,), block=(64,), args=(2.0, x, y, 100))
    assert np.array_equal(dev.to_host(y, np.float32), 2 * np.arange(100, dtype=np.float32) + 1)
    if engine == "native":
        assert stats.by_reference == {}, "saxpy runs natively throughout"


def test_an_unknown_engine_is_named_in_the_error(monkeypatch):
    monkeypatch.setenv("GPUBENCH_ENGINE", "fast")
    with pytest.raises(ValueError, match="GPUBENCH_ENGINE='fast'.*native, reference"):
        launch.engine()
