"""tinygrad's own AMD emulator against gpubench, one after the other in the same run, per workload.

    python benchmarks/versus_tinygrad.py [--only NAME[,NAME]] [--quick] [--json FILE]
                                         [--anchor PATH] [--test-ops]

Both sides run tinygrad 0.14.0's unmodified AMD driver on an emulated gfx1100 through MOCKKFD and
the LLVM renderer; they differ only in what answers /dev/kfd:
- tinygrad: its own mock and emulator, `test/mockgpu` in the anchor (default
  ../shared/anchors/tinygrad from the repository root, or --anchor PATH): cwd and PYTHONPATH are
  the anchor, DEV=MOCKKFD+AMD:LLVM, LLVM_PATH=libLLVM 22 and a `clang` (clang-22) on PATH.
  Without the anchor only gpubench's side runs.
- gpubench: DEV=MOCKKFD+AMD with gpubench's seam installed (tinygrad_env.configure,
  tinygrad_seam.install), cwd the repository root.

Each side runs in a subprocess of its own (this script with --side), returning JSON on stdout. The
workloads run in groups (elementwise, transcendental, sum, softmax, matmul, conv2d, dispatch); per
group tinygrad's side runs first, then gpubench's, each in a fresh process, so slow drift of the
machine hits both alike.

A workload is a tinygrad op on inputs made from a fixed seed (f32 unless named) and realized
beforehand. It runs once to compile (tinygrad's compile cache), then N more times, timed; each
timed run is `op(*inputs).realize()` followed by `Device[Device.DEFAULT].synchronize()` on both
sides. N adapts to the workload: as many as fit in about 2 s (0.5 s with --quick), at least 3 (2
when one run takes over half of that, and with --quick), at most 100.

Columns (medians over the N timed runs):
- tinygrad emulator ms: one cached realize + synchronize on tinygrad's emulator.
- gpubench ms: the same on gpubench.
- ratio: tinygrad ms / gpubench ms; above 1 gpubench is faster.
- GPU ms, each side: the part of the realize spent in the emulated GPU, its packet processors and
  dispatches; the rest is tinygrad's own runtime, the same code on both sides. tinygrad's: the time
  inside its mock's `AMDDriver._emulate_execute`, timed from outside (tinygrad_mock_clock.py; the
  mock runs in the client's thread); gpubench's: its own statistics, the wall time of its command
  processor's passes (`gpu.stats().command_processor_seconds`, summed over the machine's nodes).
- CP CPU ms: the CPU time of gpubench's command processor thread in those passes
  (`command_processor_cpu_seconds`): what it costs the host. The passes' wall also holds the thread's
  waits for the GIL, during which the client runs; and the thread runs packets and waves natively
  without the GIL, beside the client.
- of it emulating: the part of gpubench's GPU ms spent running dispatches' waves
  (`emulation_seconds`); the rest is the command processor's packets and dispatch set-up.
- GPU ratio: tinygrad's GPU ms / gpubench's.
"1000 tiny dispatches" realizes a+1 over 16 floats 1000 times, then synchronizes once: its row is
the total, the row below it the same divided by 1000.

--test-ops also runs tinygrad's test/backend/test_ops.py from the anchor (pytest -n 2,
SKIP_SLOW_TEST=1; needs torch) on tinygrad's emulator, then on gpubench (its pytest plugin, whose
--gpubench-json report gives the command processor's and the emulation seconds, summed over the
workers; tinygrad's mock is timed by tinygrad_mock_clock.py as a pytest plugin), and reports wall
seconds, passed / skipped / failed and GPU seconds for each.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

import tinygrad_mock_clock

REPO = Path(__file__).resolve().parent.parent
DEFAULT_ANCHOR = REPO.parent / "shared" / "anchors" / "tinygrad"
LLVM_PATH = "/usr/lib/llvm-22/lib/libLLVM.so.22.1"
BUDGET_SECONDS, QUICK_BUDGET_SECONDS = 2.0, 0.5
MAX_REPEATS = 100
SIDES = ("tinygrad", "gpubench")


@dataclass(frozen=True)
class Workload:
    name: str
    title: str
    group: str
    make: Callable[[np.random.Generator], list[np.ndarray]]
    op: Callable
    dispatches: int = 1  # realizes per timed run (one synchronize at its end)


def _arrays(*shapes: tuple[int, ...], dtype=np.float32) -> Callable[[np.random.Generator], list[np.ndarray]]:
    return lambda rng: [rng.standard_normal(shape, np.float32).astype(dtype) for shape in shapes]


def _elementwise(size: int, label: str) -> Workload:
    return Workload(f"elementwise-{label}", f"a*b+1, 2^{size.bit_length() - 1} f32", "elementwise",
                    _arrays((size,), (size,)), lambda a, b: a * b + 1)


def _transcendental(size: int, label: str) -> Workload:
    return Workload(f"transcendental-{label}", f"exp(a)*sin(b), 2^{size.bit_length() - 1} f32", "transcendental",
                    _arrays((size,), (size,)), lambda a, b: a.exp() * b.sin())


def _sum(size: int, label: str) -> Workload:
    return Workload(f"sum-{label}", f"sum, 2^{size.bit_length() - 1} f32", "sum", _arrays((size,)), lambda a: a.sum())


def _matmul(n: int, dtype=np.float32) -> Workload:
    kind = np.dtype(dtype).name.replace("float", "f")
    name = f"matmul-{n}" if kind == "f32" else f"matmul-{kind}-{n}"
    return Workload(name, f"matmul {n}x{n} {kind}", "matmul", _arrays((n, n), (n, n), dtype=dtype), lambda a, b: a @ b)


WORKLOADS = [
    *(_elementwise(1 << bits, label) for bits, label in ((8, "256"), (12, "4k"), (16, "64k"), (20, "1M"))),
    *(_transcendental(1 << bits, label) for bits, label in ((12, "4k"), (20, "1M"))),
    *(_sum(1 << bits, label) for bits, label in ((12, "4k"), (20, "1M"))),
    Workload("softmax-256x256", "softmax 256x256 f32", "softmax", _arrays((256, 256)), lambda a: a.softmax()),
    _matmul(64), _matmul(256), _matmul(128, np.float16),
    Workload("conv2d", "conv2d 1x3x32x32 -> 8 channels, 3x3 f32", "conv2d", _arrays((1, 3, 32, 32), (8, 3, 3, 3)),
             lambda x, w: x.conv2d(w)),
    Workload("tiny-dispatches", "1000 tiny dispatches (a+1, 16 f32), total", "dispatch", _arrays((16,)),
             lambda a: a + 1, dispatches=1000),
]
BY_NAME = {workload.name: workload for workload in WORKLOADS}


# ---- one side, in its own process -------------------------------------------------------------

def _gpubench_clocks() -> Callable[[], tuple[float, float, float]]:
    """Seconds so far (emulating dispatches, processing packets, the CP's CPU) over the machine's GPUs."""
    os.environ["DEV"] = "MOCKKFD+AMD"
    from gpubench.drivers import tinygrad_env, tinygrad_seam
    tinygrad_env.configure(os.environ)
    tinygrad_seam.install()
    from gpubench.drivers.kfd import machine

    def clocks() -> tuple[float, float, float]:
        stats = [node.gpu.stats() for node in machine.current().driver.nodes.values()]
        return (sum(s.emulation_seconds for s in stats), sum(s.command_processor_seconds for s in stats),
                sum(s.command_processor_cpu_seconds for s in stats))
    return clocks


def _tinygrad_clocks() -> Callable[[], tuple[None, float, None]]:
    """Seconds so far inside tinygrad's mock GPU (tinygrad_mock_clock.py)."""
    from tinygrad_mock_clock import mock_gpu_clock
    clock = mock_gpu_clock()
    return lambda: (None, clock(), None)


def _measure(workload: Workload, clocks: Callable[[], tuple[float | None, float, float | None]], budget: float,
             quick: bool) -> dict:
    from tinygrad import Device, Tensor
    inputs = [Tensor(array).realize() for array in workload.make(np.random.default_rng(0))]
    device = Device[Device.DEFAULT]

    def run() -> tuple[float, float | None, float]:
        (emulated, gpu_side, cpu), start = clocks(), time.perf_counter()
        for _ in range(workload.dispatches):
            workload.op(*inputs).realize()
        device.synchronize()
        wall = time.perf_counter() - start
        emulated_after, gpu_side_after, cpu_after = clocks()
        return (wall, None if emulated is None else emulated_after - emulated, gpu_side_after - gpu_side,
                None if cpu is None else cpu_after - cpu)

    run()  # compiles
    samples = [run()]
    first = samples[0][0]
    least = 2 if quick or first > budget / 2 else 3
    while len(samples) < max(least, min(MAX_REPEATS, int(budget / max(first, 1e-6)))):
        samples.append(run())
    walls, emulations, gpu_sides, cpus = zip(*samples)
    return {"ms": 1e3 * statistics.median(walls), "repeats": len(samples),
            "emulation_ms": None if emulations[0] is None else 1e3 * statistics.median(emulations),
            "gpu_ms": 1e3 * statistics.median(gpu_sides),
            "cp_cpu_ms": None if cpus[0] is None else 1e3 * statistics.median(cpus)}


def run_side(side: str, names: list[str], quick: bool) -> dict:
    clocks = _gpubench_clocks() if side == "gpubench" else _tinygrad_clocks()
    budget = QUICK_BUDGET_SECONDS if quick else BUDGET_SECONDS
    results = {}
    for name in names:
        try:
            results[name] = _measure(BY_NAME[name], clocks, budget, quick)
        except Exception as error:  # one failing workload must not hide the others
            results[name] = {"error": f"{type(error).__name__}: {error}"}
    return results


# ---- the driver: subprocesses, table, JSON ----------------------------------------------------

def _clang_dir(tmp: str) -> str:
    clangs = sorted(glob.glob("/usr/bin/clang-[0-9]*"), key=lambda path: int(path.rsplit("-", 1)[1]))
    if clangs:
        os.symlink(clangs[-1], os.path.join(tmp, "clang"))
    return tmp


def side_environment(side: str, anchor: Path, bin_dir: str) -> tuple[dict, Path]:
    """The environment and working directory of one side's processes."""
    env = {k: v for k, v in os.environ.items() if k not in ("DEV", "PYTHONPATH") and not k.startswith("GPUBENCH_")}
    if side == "tinygrad":
        env.update(DEV="MOCKKFD+AMD:LLVM", LLVM_PATH=LLVM_PATH, PYTHONPATH=str(anchor),
                   PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}")
        return env, anchor
    env.update(DEV="MOCKKFD+AMD", PYTHONPATH=str(REPO))
    return env, REPO


def _run_group(side: str, names: list[str], quick: bool, anchor: Path, bin_dir: str) -> dict:
    env, cwd = side_environment(side, anchor, bin_dir)
    command = [sys.executable, str(Path(__file__).resolve()), "--side", side, "--workloads", ",".join(names)]
    done = subprocess.run(command + (["--quick"] if quick else []), env=env, cwd=cwd, capture_output=True, text=True)
    lines = done.stdout.strip().splitlines()
    if done.returncode == 0 and lines:
        return json.loads(lines[-1])
    tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
    return {name: {"error": f"{side} process exited with {done.returncode}: {tail}"} for name in names}


def _groups(names: list[str]) -> list[list[str]]:
    groups: dict[str, list[str]] = {}
    for name in names:
        groups.setdefault(BY_NAME[name].group, []).append(name)
    return list(groups.values())


def run_workloads(names: list[str], quick: bool, anchor: Path | None, bin_dir: str) -> list[dict]:
    rows = []
    for group in _groups(names):
        measured = {side: _run_group(side, group, quick, anchor, bin_dir) if side == "gpubench" or anchor else {}
                    for side in SIDES}
        for name in group:
            rows.append({"workload": name, "title": BY_NAME[name].title,
                         **{side: measured[side].get(name) for side in SIDES}})
            print(f"  {_row_text(rows[-1])}", file=sys.stderr, flush=True)
    return rows


def _ms(result: dict | None, key: str = "ms", scale: float = 1.0) -> str:
    if result is None or result.get(key) is None:
        return "error" if result and "error" in result else "n/a"
    value = result[key] / scale
    return f"{value:,.0f}" if value >= 1000 else f"{value:.1f}" if value >= 10 else f"{value:.2f}"


def _ratio(row: dict, key: str = "ms") -> str:
    tinygrad, gpubench = row["tinygrad"], row["gpubench"]
    if not (tinygrad and gpubench and tinygrad.get(key) and gpubench.get(key)):
        return "n/a"
    return f"{tinygrad[key] / gpubench[key]:.2f}"


def _row_text(row: dict, title: str | None = None, scale: float = 1.0) -> str:
    cells = [title or row["title"], _ms(row["tinygrad"], scale=scale), _ms(row["gpubench"], scale=scale), _ratio(row),
             _ms(row["tinygrad"], "gpu_ms", scale), _ms(row["gpubench"], "gpu_ms", scale),
             _ms(row["gpubench"], "cp_cpu_ms", scale), _ms(row["gpubench"], "emulation_ms", scale),
             _ratio(row, "gpu_ms")]
    return "| " + " | ".join(cells) + " |"


def table(rows: list[dict]) -> str:
    lines = ["| workload | tinygrad emulator ms | gpubench ms | ratio | tinygrad's GPU ms | gpubench's GPU ms "
             "| CP CPU ms | of it emulating | GPU ratio |",
             "|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        lines.append(_row_text(row))
        dispatches = BY_NAME[row["workload"]].dispatches
        if dispatches > 1:
            lines.append(_row_text(row, "... per dispatch", dispatches))
    errors = [f"- {row['workload']} on {side}: {row[side]['error']}"
              for row in rows for side in SIDES if row[side] and "error" in row[side]]
    return "\n".join(lines + ([""] + errors if errors else []))


# ---- tinygrad's test_ops on both ----------------------------------------------------------------

def _pytest_counts(output: str) -> dict:
    summary = [line for line in output.splitlines() if re.search(r"\d+ (passed|failed|skipped).* in [\d.]+s", line)]
    counts = dict.fromkeys(("passed", "skipped", "failed", "error"), 0)
    for number, outcome in re.findall(r"(\d+) (passed|skipped|failed|errors?)", summary[-1] if summary else ""):
        counts[outcome.rstrip("s") if outcome.startswith("error") else outcome] = int(number)
    return counts


def run_test_ops(side: str, anchor: Path, bin_dir: str, workers: int) -> dict:
    env, _ = side_environment(side, anchor, bin_dir)
    env.update(SKIP_SLOW_TEST="1", PYTHONPATH=str(anchor))
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "gpubench.json")
        if side == "gpubench":
            plugin = ["--gpubench-json", report]
        else:  # tinygrad's mock, timed by this directory's plugin
            env.update(PYTHONPATH=f"{anchor}{os.pathsep}{Path(__file__).resolve().parent}",
                       **{tinygrad_mock_clock.FILE_VARIABLE: os.path.join(tmp, "mock")})
            plugin = ["-p", "no:gpubench", "-p", "tinygrad_mock_clock"]
        command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-n", str(workers),
                   *plugin, "test/backend/test_ops.py"]
        start = time.perf_counter()
        done = subprocess.run(command, env=env, cwd=anchor, capture_output=True, text=True)
        result = {"wall_seconds": time.perf_counter() - start, **_pytest_counts(done.stdout),
                  "emulation_seconds": None, "gpu_seconds": None, "cp_cpu_seconds": None}
        if side == "gpubench" and os.path.exists(report):
            with open(report) as file:
                emulator = json.load(file)["emulator"]
            result["emulation_seconds"] = emulator["emulation_seconds"]
            result["gpu_seconds"] = emulator["command_processor_seconds"]
            result["cp_cpu_seconds"] = emulator["command_processor_cpu_seconds"]
        elif side == "tinygrad":
            parts = glob.glob(os.path.join(tmp, "mock.*"))
            result["gpu_seconds"] = sum(float(Path(part).read_text()) for part in parts) if parts else None
    return result


def test_ops_table(results: dict) -> str:
    lines = ["| test_ops (-n 2, SKIP_SLOW_TEST=1) | wall s | passed | skipped | failed | errors | GPU s | CP CPU s "
             "| of it emulating |",
             "|---|---|---|---|---|---|---|---|---|"]
    for side, result in results.items():
        cells = ["n/a" if result.get(key) is None else f"{result[key]:.1f}"
                 for key in ("gpu_seconds", "cp_cpu_seconds", "emulation_seconds")]
        lines.append(f"| {side} | {result['wall_seconds']:.1f} | {result['passed']} | {result['skipped']} | "
                     f"{result['failed']} | {result['error']} | {' | '.join(cells)} |")
    return "\n".join(lines)


# ---- command line ------------------------------------------------------------------------------

def _select(only: str | None) -> list[str]:
    if not only:
        return list(BY_NAME)
    chosen = []
    for wanted in only.split(","):
        matches = [name for name in BY_NAME if name == wanted or name.startswith(wanted)]
        if not matches:
            raise SystemExit(f"unknown workload {wanted!r}; known: {', '.join(BY_NAME)}")
        chosen += [name for name in matches if name not in chosen]
    return chosen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="workloads: " + ", ".join(BY_NAME))
    parser.add_argument("--only", metavar="NAME[,NAME]", help="these workloads (a name or a prefix, e.g. matmul)")
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    parser.add_argument("--anchor", type=Path, default=DEFAULT_ANCHOR, help="tinygrad's test tree (the anchor)")
    parser.add_argument("--test-ops", action="store_true", help="also run tinygrad's test_ops on both sides")
    parser.add_argument("--workers", type=int, default=2, help="pytest-xdist workers for --test-ops")
    parser.add_argument("--side", choices=SIDES, help=argparse.SUPPRESS)
    parser.add_argument("--workloads", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.side:
        print(json.dumps(run_side(options.side, options.workloads.split(","), options.quick)))
        return
    anchor = options.anchor.resolve() if (options.anchor / "test" / "mockgpu").is_dir() else None
    if anchor is None:
        print(f"tinygrad's anchor not found at {options.anchor} (no test/mockgpu there): "
              "running gpubench's side only", file=sys.stderr)
    with tempfile.TemporaryDirectory() as tmp:
        bin_dir = _clang_dir(tmp)
        rows = run_workloads(_select(options.only), options.quick, anchor, bin_dir)
        print(table(rows))
        report = {"anchor": str(anchor) if anchor else None, "quick": options.quick, "workloads": rows}
        if options.test_ops and anchor:
            report["test_ops"] = {side: run_test_ops(side, anchor, bin_dir, options.workers) for side in SIDES}
            print("\n" + test_ops_table(report["test_ops"]))
        elif options.test_ops:
            print("--test-ops needs tinygrad's anchor: skipped", file=sys.stderr)
    if options.json:
        with open(options.json, "w") as file:
            json.dump(report, file, indent=2)


if __name__ == "__main__":
    main()
