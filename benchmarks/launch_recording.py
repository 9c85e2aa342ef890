"""What recording costs: a tinygrad suite run by `gpubench run` plain, with the client-side recorder
(--record-at client: every launch synchronised, its buffers read before and after through tinygrad)
and with the emulator's (--record: the mappings each dispatch touched), and the bundles' sizes:
the bytes of every region of every launch, the distinct contents stored once, and on disk
compressed (zstandard, gpubench.debug.bundle.LEVEL).

    python benchmarks/launch_recording.py [--dev MOCKKFD+AMD] [--suite test_ops] [-- PYTEST ARGS, e.g. -n 2 -k matmul]
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def run(dev: str, suite: str, tools: list[str], pytest_args: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "gpubench.cli", "run", "--dev", dev, *tools, suite, "-q", *pytest_args],
                          cwd=cwd, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    summary = [line for line in done.stdout.splitlines() if " passed" in line or " failed" in line]
    print(f"  {' '.join(tools) or 'plain':42} {seconds:7.1f} s  {summary[-1] if summary else done.stderr[-300:]}")
    return seconds


def sizes(bundle: Path) -> tuple[int, int, int, int]:
    """Launches, bytes of all regions (before and after), distinct bytes stored, bytes on disk."""
    launches, every, distinct = 0, 0, {}
    for path in (bundle / "launches").glob("*.json"):
        launches += 1
        for region in json.loads(path.read_text())["regions"]:
            for blob in (region["before"], region["after"] or region["before"]):
                every += region["size"]
                distinct[blob] = region["size"]
    disk = sum(p.stat().st_size for p in (bundle / "blobs").iterdir()) + \
        sum(p.stat().st_size for p in (bundle / "launches").iterdir())
    return launches, every, sum(distinct.values()), disk


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dev", default="MOCKKFD+AMD")
    parser.add_argument("--suite", default="test_ops")
    parser.add_argument("pytest_args", nargs="*")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        where = Path(scratch)
        print(f"{args.suite} on {args.dev} {' '.join(args.pytest_args)}")
        plain = run(args.dev, args.suite, [], args.pytest_args, where)
        for side in ("client", "emulator"):
            seconds = run(args.dev, args.suite, ["--record", side, "--record-at", side], args.pytest_args, where)
            launches, every, distinct, disk = sizes(where / side)
            print(f"    {side}: x{seconds / plain:.2f} the plain run's time; {launches} launches, regions "
                  f"{every / 2**20:.1f} MiB, distinct {distinct / 2**20:.1f} MiB, on disk {disk / 2**20:.1f} MiB "
                  f"({distinct / max(1, disk):.1f}x compressed)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
