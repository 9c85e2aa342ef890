"""The cost of debugging: one dispatch run plain (executor.run), issue by issue through the
debugger's recorder without history (what --trace/--timeline use), and with the history that
reverse execution needs (a Session's `continue`).

    python benchmarks/debug_recording.py [--elements 65536] [--matrix 64]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from emulator import setup

from gpubench.debug.launch import prepare
from gpubench.debug.recorder import Recorder
from gpubench.debug.session import Session
from gpubench.emu import executor


def timed(name: str, elements: int, matrix: int, mode: str) -> tuple[float, int]:
    kernel, launch, check = setup(name, elements, matrix)
    kernel(**launch)  # compile every instruction variant first
    prepared = prepare(kernel, launch["grid"], launch["block"], launch["args"])
    start = time.perf_counter()
    if mode == "plain":
        executor.run(prepared.ctx)
    elif mode == "recorder":
        recorder = Recorder(executor.Runner(prepared.ctx), keep=False)
        while recorder.step() is not None:
            pass
    else:
        assert Session(prepared).cont().reason == "exited"
    seconds = time.perf_counter() - start
    prepared.close()
    assert check(), f"{name} {mode}: wrong result"
    return seconds, prepared.ctx.stats["steps"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--elements", type=int, default=1 << 16)
    parser.add_argument("--matrix", type=int, default=64)
    args = parser.parse_args()
    print(f"{'kernel':8} {'issues':>7} {'plain s':>8} {'no history':>11} {'history':>9}")
    for name in ("expsin", "copy", "matmul"):
        plain, issues = min(timed(name, args.elements, args.matrix, "plain") for _ in range(3))
        bare = min(timed(name, args.elements, args.matrix, "recorder")[0] for _ in range(3))
        full = min(timed(name, args.elements, args.matrix, "history")[0] for _ in range(3))
        print(f"{name:8} {issues:7} {plain:8.3f} {bare:7.3f} x{bare / plain:<3.1f} {full:5.3f} x{full / plain:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
