"""`gpubench run` as a user runs it: the built-in suite on MOCKKFD with its summary and JSON report,
and the same suite on tinygrad's own CPU device (the check of the suite itself)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("tinygrad")
SUITE = Path(__file__).resolve().parents[2] / "gpubench" / "suites" / "test_ops.py"


def test_gpubench_run_reports_outcomes_and_emulator_statistics(tmp_path):
    report = tmp_path / "report.json"
    result = subprocess.run([sys.executable, "-m", "gpubench.cli", "run", "--dev", "MOCKKFD+AMD", "test_ops",
                             "-q", "-k", "binary and int32", "--json-report", str(report)],
                            capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert result.returncode == 0, result.stdout[-3000:]
    assert "using tinygrad's LLVM renderer" in result.stdout
    assert "kernels dispatched" in result.stdout
    summary = json.loads(report.read_text())
    assert summary["outcomes"]["passed"] > 0 and summary["outcomes"]["failed"] == 0
    assert summary["emulator"]["dispatches"] > 0 and summary["emulator"]["wave_instructions"] > 0
    assert "S_ENDPGM" in summary["instructions_executed"]


def test_an_unknown_suite_is_a_clear_error(tmp_path):
    result = subprocess.run([sys.executable, "-m", "gpubench.cli", "run", "no_such_suite"], capture_output=True,
                            text=True, timeout=60, cwd=tmp_path)
    assert result.returncode == 2 and "neither a built-in suite (test_ops)" in result.stderr


def test_the_suite_passes_on_tinygrads_cpu_device(tmp_path):
    environment = {**os.environ, "DEV": "CPU"}
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2", str(SUITE)],
                            capture_output=True, text=True, timeout=900, env=environment, cwd=tmp_path)
    assert result.returncode == 0, result.stdout[-3000:]
    assert " failed" not in result.stdout.splitlines()[-1]


@pytest.mark.parametrize("target", ["gfx1201", "gfx942", "gfx950"])
def test_a_representative_part_of_the_suite_passes_on_the_other_targets(target, tmp_path):
    """gfx1201 through PM4 like gfx1100; gfx942 and gfx950 (eight XCCs) through an AQL queue."""
    report = tmp_path / "report.json"
    result = subprocess.run([sys.executable, "-m", "gpubench.cli", "run", "--dev", f"MOCKKFD+AMD:LLVM:{target}",
                             "test_ops", "-q", "-k", "binary_float or matmul or reduce or softmax or cast",
                             "--json-report", str(report)], capture_output=True, text=True, timeout=900, cwd=tmp_path)
    assert result.returncode == 0, result.stdout[-3000:]
    outcomes = json.loads(report.read_text())["outcomes"]
    assert outcomes["passed"] >= 50 and outcomes["failed"] == 0
