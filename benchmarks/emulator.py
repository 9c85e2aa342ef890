"""Emulator throughput on three kernels compiled by LLVM for gfx1100 (benchmarks/kernels):

  (a) expsin  VALU-bound: exp(a) * sin(b) over N elements
  (b) copy    memory-bound: float4 copy
  (c) matmul  LDS + barriers: 16x16-tiled f32 matrix product

For each: wave-instructions/s and lane-operations/s (active lanes summed over instructions), warm
(every instruction already compiled); plus the cost of the first run in a fresh process with an empty
compile cache (new instruction variants) and with the on-disk cache warm.

    python benchmarks/emulator.py [--elements 1048576] [--matrix 256]
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import gpubench  # noqa: E402

KERNELS = Path(__file__).resolve().parent / "kernels"


def setup(name: str, elements: int, matrix: int):
    """(kernel handle, launch kwargs, check) for one benchmark on a fresh device."""
    dev = gpubench.Device("gfx1100")
    kernel = dev.load(KERNELS / f"{name}-gfx1100.hsaco")[name]
    rng = np.random.default_rng(0)
    if name == "expsin":
        a, b = rng.uniform(-4, 4, elements).astype(np.float32), rng.uniform(-3, 3, elements).astype(np.float32)
        out = dev.alloc(4 * elements)
        args = (dev.to_device(a), dev.to_device(b), out, elements)
        check = lambda: np.allclose(dev.to_host(out, np.float32), np.exp(a) * np.sin(b), rtol=1e-4, atol=1e-5)  # noqa: E731
        return kernel, dict(grid=(-(-elements // 256),), block=(256,), args=args), check
    if name == "copy":
        src = rng.standard_normal(elements).astype(np.float32)
        dst = dev.alloc(4 * elements)
        args = (dev.to_device(src), dst, elements // 4)
        check = lambda: np.array_equal(dev.to_host(dst, np.float32), src)  # noqa: E731
        return kernel, dict(grid=(-(-elements // 4 // 256),), block=(256,), args=args), check
    a, b = rng.standard_normal((matrix, matrix)).astype(np.float32), rng.standard_normal((matrix, matrix)).astype(np.float32)
    c = dev.alloc(4 * matrix * matrix)
    args = (dev.to_device(a), dev.to_device(b), c, matrix)
    check = lambda: np.allclose(dev.to_host(c, np.float32).reshape(matrix, matrix), a @ b, rtol=1e-3, atol=1e-3)  # noqa: E731
    return kernel, dict(grid=(matrix // 16, matrix // 16), block=(16, 16), args=args), check


def warm(name: str, elements: int, matrix: int, repeat: int = 3) -> dict:
    kernel, launch, check = setup(name, elements, matrix)
    kernel(**launch)  # compiles every instruction variant once
    best = None
    for _ in range(repeat):
        start = time.perf_counter()
        stats = kernel(**launch)
        seconds = time.perf_counter() - start
        best = seconds if best is None else min(best, seconds)
    assert check(), f"{name}: wrong result"
    return dict(name=name, waves=stats.waves, wave_instructions=stats.wave_instructions,
                lane_ops=stats.lane_operations, seconds=best)


def first_run_seconds(name: str, cache_dir: str) -> float:
    """A new process, small problem, the given compile cache: time of its first launch."""
    code = ("import sys,time; sys.path.insert(0,'benchmarks'); from emulator import setup; "
            f"k,l,_=setup('{name}',4096,32); t=time.perf_counter(); k(**l); print(time.perf_counter()-t)")
    env = dict(os.environ, XDG_CACHE_HOME=cache_dir)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True,
                         cwd=Path(__file__).resolve().parent.parent)
    return float(out.stdout.strip())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--elements", type=int, default=1 << 20)
    parser.add_argument("--matrix", type=int, default=256)
    args = parser.parse_args()
    print(f"{'kernel':8} {'waves':>7} {'wave-instr':>11} {'seconds':>8} {'M wave-instr/s':>15} {'M lane-ops/s':>13} "
          f"{'cold first run':>15} {'disk-cached first run':>22}")
    for name in ("expsin", "copy", "matmul"):
        r = warm(name, args.elements, args.matrix)
        with tempfile.TemporaryDirectory() as cache:
            cold = first_run_seconds(name, cache)
            cached = first_run_seconds(name, cache)
        print(f"{name:8} {r['waves']:7} {r['wave_instructions']:11} {r['seconds']:8.3f} "
              f"{r['wave_instructions'] / r['seconds'] / 1e6:15.2f} {r['lane_ops'] / r['seconds'] / 1e6:13.1f} "
              f"{cold:14.3f}s {cached:21.3f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
