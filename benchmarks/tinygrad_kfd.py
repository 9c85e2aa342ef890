"""tinygrad on MOCKKFD: wall time of the built-in test_ops suite, and of single kernels split into
compile, driver and emulation time.

    python benchmarks/tinygrad_kfd.py [--suite] [--workers 2]

Single kernels (matmul 512x512 f32, a sum over 2^22 floats, an elementwise op over 2^22 floats) run
twice: the first run compiles (LLVM) and runs, the second finds the kernel in tinygrad's cache.
emulation = the emulated GPU's dispatch time (its statistics) in the second run; driver = the second
run's other time (tinygrad's runtime, MOCKKFD, the command processor, copies); compile = what the
first run spent outside emulation beyond that.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np


def single_kernels() -> list[tuple[str, float, float, float]]:
    os.environ["DEV"] = "MOCKKFD+AMD"
    from gpubench.drivers import tinygrad_env, tinygrad_seam
    tinygrad_env.configure(os.environ)
    tinygrad_seam.install()
    from tinygrad import Tensor
    from gpubench.drivers.kfd import machine

    def emulated() -> float:
        return sum(n.gpu.stats().emulation_seconds for n in machine.current().driver.nodes.values())

    rng = np.random.default_rng(0)
    cases = {
        "matmul 512x512 f32": (lambda: [Tensor(rng.standard_normal((512, 512), np.float32)) for _ in range(2)],
                               lambda a, b: a @ b),
        "sum over 2^22 f32": (lambda: [Tensor(rng.standard_normal(1 << 22, np.float32))], lambda a: a.sum()),
        "elementwise over 2^22 f32": (lambda: [Tensor(rng.standard_normal(1 << 22, np.float32)) for _ in range(2)],
                                      lambda a, b: (a * b + 1).exp2()),
    }
    rows = []
    for name, (make, op) in cases.items():
        times = []
        for _ in range(2):
            inputs = [t.realize() for t in make()]
            start_emulated, start = emulated(), time.perf_counter()
            op(*inputs).realize().numpy()
            times.append((time.perf_counter() - start, emulated() - start_emulated))
        (first, first_emulation), (second, emulation) = times
        rows.append((name, (first - first_emulation) - (second - emulation), second - emulation, emulation))
    return rows


def suite(workers: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "report.json")
        start = time.perf_counter()
        subprocess.run(["gpubench", "run", "--dev", "MOCKKFD+AMD", "test_ops", "-q", "-n", str(workers),
                        "--json-report", report], check=False, capture_output=True)
        wall = time.perf_counter() - start
        with open(report) as file:
            summary = json.load(file)
    return {"wall_seconds": wall, **summary["outcomes"], **summary["emulator"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--suite", action="store_true", help="also time the test_ops suite")
    parser.add_argument("--workers", type=int, default=2)
    options = parser.parse_args()
    print(f"{'kernel':28} {'compile s':>10} {'driver s':>9} {'emulation s':>12}")
    for name, compile_s, driver_s, emulation_s in single_kernels():
        print(f"{name:28} {compile_s:10.2f} {driver_s:9.2f} {emulation_s:12.2f}")
    if options.suite:
        result = suite(options.workers)
        print(f"test_ops with -n {options.workers}: {result['wall_seconds']:.1f} s wall, {result['passed']} passed, "
              f"{result['failed']} failed, {result['skipped']} skipped; {result['dispatches']} dispatches, "
              f"{result['wave_instructions']:,} wave-instructions, {result['emulation_seconds']:.1f} s emulating "
              "(summed over workers)")


if __name__ == "__main__":
    sys.exit(main())
