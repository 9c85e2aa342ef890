"""What an idle emulated GPU costs the client's own Python: tinygrad compiles kernels and builds
command buffers in Python while the GPU's command-processor thread waits for a doorbell.

    python benchmarks/idle_command_processor.py [--seconds S] [--rounds N]

Each round times the same pure-Python work (about S seconds) with no GPU, then with one GPU whose
one compute queue is empty, so its command-processor thread is idle the whole time; it prints the
medians, the slowdown, and the process CPU time the idle thread used per second. The work is the
kind a client does between dispatches: dictionaries, strings, small objects.
"""
from __future__ import annotations

import argparse
import resource
import statistics
import time

from gpubench.emu.gpu import EmulatedGPU

RING = 0x1000_0000  # an address only: an empty queue never reads its ring


def client_work(iterations: int) -> int:
    names = {}
    for i in range(iterations):
        key = f"r_{i % 977}_{i % 13}"
        names[key] = names.get(key, 0) + len(key)
    return len(names)


def timed(iterations: int) -> tuple[float, float]:
    """Wall seconds of the work and the process CPU seconds besides this thread's, meanwhile."""
    cpu = resource.getrusage(resource.RUSAGE_SELF)
    own, started = time.thread_time(), time.perf_counter()
    client_work(iterations)
    wall, own = time.perf_counter() - started, time.thread_time() - own
    after = resource.getrusage(resource.RUSAGE_SELF)
    return wall, (after.ru_utime + after.ru_stime - cpu.ru_utime - cpu.ru_stime) - own


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="length of the work, about")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    started = time.perf_counter()
    client_work(200_000)
    iterations = int(200_000 * args.seconds / (time.perf_counter() - started))
    alone, beside, others = [], [], []
    for _ in range(args.rounds):
        alone.append(timed(iterations)[0])
        gpu = EmulatedGPU("gfx1100", interrupt=lambda interrupt: None, lds_bytes=65536)
        gpu.create_queue("compute", RING, 0x1000, RING + 0x1000, RING + 0x1008)
        time.sleep(0.05)  # the thread is up and idle
        wall, cpu = timed(iterations)
        beside.append(wall)
        others.append(cpu / wall)
        gpu.close()
    print(f"client work alone: {statistics.median(alone):.3f} s; beside an idle GPU: "
          f"{statistics.median(beside):.3f} s ({statistics.median(beside) / statistics.median(alone):.3f}x); "
          f"the idle command processor's CPU: {statistics.median(others) * 100:.1f} % of a core")


if __name__ == "__main__":
    main()
