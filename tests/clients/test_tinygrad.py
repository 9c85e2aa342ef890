"""tinygrad 0.14.0's unmodified AMD driver on MOCKKFD: a kernel page fault surfaces as tinygrad's
error naming the faulting address, and the process lives on."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("tinygrad")
HERE = Path(__file__).resolve().parent
FAULT_KERNEL = HERE.parent / "kernels" / "build" / "fault_oob-gfx1100.hsaco"


def test_a_kernel_page_fault_is_a_tinygrad_error_naming_the_address():
    result = subprocess.run([sys.executable, str(HERE / "tinygrad_fault.py"), str(FAULT_KERNEL)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    caught = next(line for line in result.stdout.splitlines() if line.startswith("caught:"))
    assert "MMU fault: 0x" in caught and "NotPresent=1" in caught
    assert "process alive" in result.stdout
    assert "GPU page fault: write at 0x" in result.stderr  # the driver's log line: address, PC, instruction
