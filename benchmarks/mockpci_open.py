"""MOCKPCI: from opening the device to the first kernel's result, in a fresh process per run, as a
tinygrad user meets it: AM finds the PCI function, boots every IP block and sets up its queues
(open), a first buffer goes to VRAM (upload), and a first kernel runs and its result comes back
(first kernel; tinygrad's compile cache is warmed by an earlier run, so this is not LLVM's time).

    python benchmarks/mockpci_open.py [--targets gfx1100,gfx1201,gfx942,gfx950] [--runs 3]

Prints, per target, the median seconds of each part and of open to first result.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

CHILD = r"""
import json, os, sys, time
os.environ["DEV"] = "MOCKPCI+AMD"
os.environ["GPUBENCH_TARGET"] = sys.argv[1]
from gpubench.drivers import tinygrad_env, tinygrad_seam
tinygrad_env.configure(os.environ)
tinygrad_seam.install()
from tinygrad import Device, Tensor
started = time.perf_counter()
Device["AMD"]
opened = time.perf_counter()
a = Tensor([1.0, 2.0, 3.0], device="AMD").realize()
uploaded = time.perf_counter()
assert (a * 2 + 1).tolist() == [3.0, 5.0, 7.0]
done = time.perf_counter()
print(json.dumps({"open": opened - started, "upload": uploaded - opened, "first kernel": done - uploaded,
                  "open to first result": done - started}))
"""


def run(target: str) -> dict:
    result = subprocess.run([sys.executable, "-c", CHILD, target], capture_output=True, text=True, check=True,
                            env={**os.environ, "PYTHONWARNINGS": "ignore"})
    return json.loads(result.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--targets", default="gfx1100,gfx1201,gfx942,gfx950")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print(f"{'target':8} {'open':>7} {'upload':>7} {'kernel':>7} {'total':>7}  (median of {args.runs}, seconds)")
    for target in args.targets.split(","):
        run(target)  # warms tinygrad's compile cache and gpubench's native cache
        runs = [run(target) for _ in range(args.runs)]
        medians = {part: statistics.median(r[part] for r in runs) for part in runs[0]}
        print(f"{target:8} " + " ".join(f"{value:7.2f}" for value in medians.values()))


if __name__ == "__main__":
    main()
