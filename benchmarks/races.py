"""What the race detector and the schedules cost: HIP kernel cases of tests/kernels run through the
Python API on the native engine, the reference engine (lockstep), the reference engine under the
per-wave and random schedules, and the reference engine with the race detector (best of N runs per
configuration; the detector's slowdown is against the reference engine, which it runs on).

    python benchmarks/races.py [--variant gfx1100] [--repeat 3] [CASE ...]
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "emu"))
from kernel_runner import cases, run_case  # noqa: E402

DEFAULT_CASES = ("ew_f32", "reduce_sum", "scan_lds", "matmul_tiled", "atomic_hist", "divergence")
CONFIGS = {  # name -> (engine, run_case keywords)
    "native": ("native", {}),
    "reference": ("reference", {}),
    "per-wave": ("reference", {"schedule": "per-wave"}),
    "random:1": ("reference", {"schedule": "random:1"}),
    "races": ("reference", {"races": True}),
}


def best(name: str, variant: str, engine: str, keywords: dict, repeat: int) -> float:
    os.environ["GPUBENCH_ENGINE"] = engine
    run_case(cases.CASES[name], variant, **keywords)  # warm: decode and native binding caches
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run_case(cases.CASES[name], variant, **keywords)
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--variant", default="gfx1100")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("cases", nargs="*", default=DEFAULT_CASES)
    args = parser.parse_args()
    print(f"{'case':14}" + "".join(f"{c:>12}" for c in CONFIGS) + f"{'races/ref':>11}")
    for name in args.cases:
        seconds = {c: best(name, args.variant, engine, kw, args.repeat) for c, (engine, kw) in CONFIGS.items()}
        print(f"{name:14}" + "".join(f"{seconds[c] * 1e3:10.1f}ms" for c in CONFIGS) +
              f"{seconds['races'] / seconds['reference']:10.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
