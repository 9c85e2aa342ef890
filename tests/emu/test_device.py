"""Kernels compiled by LLVM run on the emulated GPU through the Python API and match numpy."""
from pathlib import Path

import numpy as np
import pytest

import gpubench
from gpubench.emu.executor import GPUPageFault

CODE = Path(__file__).resolve().parents[1] / "data" / "codeobjects"


@pytest.mark.parametrize("name", ["saxpy-gfx1100", "saxpy-gfx1100-w64"])
def test_saxpy_matches_numpy(name):
    rng = np.random.default_rng(1)
    n = 1000  # not a multiple of the group size: the bounds check must mask the tail
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    dev = gpubench.Device("gfx1100")
    bx, by = dev.to_device(x), dev.to_device(y)
    kernels = dev.load(CODE / f"{name}.hsaco")
    stats = kernels["saxpy"](grid=(16,), block=(64,), args=(2.5, bx, by, n))
    fma = (2.5 * x.astype(np.float64) + y).astype(np.float32)  # v_fmac_f32 rounds once
    np.testing.assert_array_equal(dev.to_host(by, np.float32), fma)
    assert stats.waves == 16 * 64 // kernels["saxpy"].kernel.wave_size
    assert stats.wave_instructions > 0


def test_bad_pointer_is_a_page_fault_naming_the_access():
    dev = gpubench.Device("gfx1100")
    x = dev.to_device(np.zeros(64, np.float32))
    kernels = dev.load(CODE / "saxpy-gfx1100.hsaco")
    with pytest.raises(GPUPageFault) as e:
        kernels["saxpy"](grid=(1,), block=(64,), args=(1.0, x, 0xDEAD0000, 64))
    message = str(e.value)
    assert "0xdead0000" in message and "read" in message and "global_load" in message
    assert e.value.fault.lane == 0


def test_repeated_small_launches_each_start_from_their_own_arguments():
    """Small dispatches start from a kept copy of their initial state: a launch must see its own
    kernel arguments and none of what an earlier launch of the same kernel at the same size left."""
    rng = np.random.default_rng(2)
    dev = gpubench.Device("gfx1100")
    saxpy = dev.load(CODE / "saxpy-gfx1100.hsaco")["saxpy"]
    for a in (2.5, -1.0, 0.5):
        x, y = rng.standard_normal(256).astype(np.float32), rng.standard_normal(256).astype(np.float32)
        bx, by = dev.to_device(x), dev.to_device(y)
        saxpy(grid=(4,), block=(64,), args=(a, bx, by, 256))
        np.testing.assert_array_equal(dev.to_host(by, np.float32), (a * x.astype(np.float64) + y).astype(np.float32))
