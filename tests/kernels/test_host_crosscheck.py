"""The numpy references against the kernels' own source, run on the CPU.

Each kernel whose meaning is plain C++ (no cross-lane or matrix builtins) is compiled for the host
with clang++-22 against host/common.h, which stands in for the GPU: one thread per work-item,
std::barrier for s_barrier, __atomic builtins for HIP's atomics, exact math for the hardware's
approximations. Its outputs must pass the case's own check against the reference. This catches a
reference that misreads the source (an index, a wrap, a rounding); it says nothing about the
hardware, which is what the emulator tests are for. Needs clang++-22 (tools/setup.sh installs it).
"""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

np = pytest.importorskip("numpy")  # noqa: E402  (cases.py needs it too)

sys.path.insert(0, str(Path(__file__).resolve().parent))
import cases  # noqa: E402

HOST = cases.HERE / "host"
CLANG = shutil.which("clang++-22")

# Wave-level kernels (DPP, permlane, bpermute, readlane, WMMA) mean nothing on one thread per
# work-item; the bad kernels have no result, the racy ones none that threads agree on.
NOT_ON_HOST = {"crosslane_dpp", "crosslane_lanes", "crosslane_permlane", "wmma_f32_f16", "fault_oob", "hang_loop",
               *(c.name for c in cases.RACY)}
HOST_CASES = [name for name in cases.CASES if name not in NOT_ON_HOST]

pytestmark = [pytest.mark.llvm, pytest.mark.skipif(CLANG is None, reason="needs clang++-22")]


def run_on_host(case: cases.Case, inputs: dict, work: Path) -> dict[str, np.ndarray]:
    shutil.copy(case.source, work / case.source.name)
    shutil.copy(HOST / "common.h", work / "common.h")  # found first: it sits beside the source
    exe = work / "kernel"
    subprocess.run([CLANG, "-std=c++20", "-O1", "-w", "-pthread", f"-DKERNEL_NAME={case.kernel}", "-DWAVE_SIZE=32",
                    "-include", str(work / case.source.name), str(HOST / "harness.cpp"), "-o", str(exe)],
                   check=True, capture_output=True, text=True)
    kinds = ""
    for k, arg in enumerate(case.args):
        value = inputs[arg.name]
        (work / f"{k}.bin").write_bytes(np.asarray(value, dtype=arg.dtype).tobytes())
        kinds += "b" if isinstance(arg, cases.Buffer) else "s"
    subprocess.run([str(exe), str(work), *map(str, case.grid), *map(str, case.block), kinds], check=True,
                   timeout=120)
    return {arg.name: np.frombuffer((work / f"{k}.out").read_bytes(), dtype=arg.dtype).reshape(inputs[arg.name].shape)
            for k, arg in enumerate(case.args) if isinstance(arg, cases.Buffer) and arg.intent != "in"}


@pytest.mark.parametrize("name", HOST_CASES)
def test_reference_matches_source(name, tmp_path):
    case = cases.CASES[name]
    inputs = case.inputs(seed=1)
    got = run_on_host(case, inputs, tmp_path)
    assert case.check(got, case.expected(inputs, case.variants[0])) == []
