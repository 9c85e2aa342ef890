"""tinygrad 0.14.0's unmodified AMD driver on MOCKKFD: a kernel page fault surfaces as tinygrad's
error naming the faulting address, a hung kernel as a hardware fault after the watchdog's wave
dump, and the process lives on."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("tinygrad")
HERE = Path(__file__).resolve().parent
KERNELS = HERE.parent / "kernels" / "build"


def run_bad_kernel(kernel: str) -> tuple[str, str]:
    """(what tinygrad raised, the driver's log)"""
    result = subprocess.run([sys.executable, str(HERE / "tinygrad_bad_kernel.py"), kernel, str(KERNELS)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "process alive" in result.stdout
    return next(line for line in result.stdout.splitlines() if line.startswith("caught:")), result.stderr


def test_a_kernel_page_fault_is_a_tinygrad_error_naming_the_address():
    caught, log = run_bad_kernel("fault_oob")
    assert "MMU fault: 0x" in caught and "NotPresent=1" in caught
    assert "GPU page fault: write at 0x" in log and "global_store_b32" in log  # address, PC, instruction


def test_a_hung_kernel_is_a_hardware_fault_with_the_wave_dump_in_the_log():
    caught, log = run_bad_kernel("hang_loop")
    assert "HW fault:" in caught
    assert "watchdog: the dispatch exceeded" in log and "live waves" in log


@pytest.mark.parametrize("device", ["MOCKKFD+AMD", "MOCKPCI+AMD"])
def test_buffers_freed_at_exit_reach_a_driver_that_is_still_open(device):
    result = subprocess.run([sys.executable, str(HERE / "tinygrad_kept_buffer.py"), device],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["[2.0, 4.0, 6.0]", "early finalizer ran"]
    assert "Traceback" not in result.stderr and "Exception ignored" not in result.stderr, result.stderr
