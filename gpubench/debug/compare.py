"""Recorded launches run again on the emulator and what they wrote compared with the recording
(`gpubench compare BUNDLE`, and shadow mode live): per region, equal, or how many elements differ,
the first differing index with both values and, for floating-point data, the largest distance in
units in the last place (ULP).

Elements are the region's dtype as the recorder knew it (tinygrad knows every buffer's; the
emulator's own recordings see only bytes, uint8). Every writable region is compared, not only the
ones the recording changed: a replay that writes where the hardware did not is a difference too.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from gpubench.debug import replay
from gpubench.debug.bundle import BundleError, launch_files
from gpubench.debug.replay import RecordedLaunch, Region
from gpubench.emu import executor, launch
from gpubench.emu.context import ExecutionError
from gpubench.emu.ops import Unsupported

BITS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
WIDTHS = {"bfloat16": 2, "float8_e4m3": 1, "float8_e5m2": 1, "float8_e4m3fnuz": 1, "float8_e5m2fnuz": 1}
VALUES = {"bfloat16": lambda bits: float((np.uint32(bits) << np.uint32(16)).view(np.float32))}  # what numpy lacks


@dataclass
class Difference:
    region: str  # "argument 0", or the emulator mapping's address and name
    dtype: str
    elements: int
    differing: int
    first: int  # element index
    recorded: str
    replayed: str
    max_ulp: int | None  # floating-point regions only


@dataclass
class Comparison:
    launch: str
    kernel: str
    compared: int = 0  # regions compared
    differences: list[Difference] = field(default_factory=list)
    error: str | None = None  # the replay stopped (a fault, an illegal instruction) or the launch could not be read

    @property
    def status(self) -> str:
        return "error" if self.error else "differs" if self.differences else "equal"

    def as_dict(self) -> dict:
        return {"launch": self.launch, "kernel": self.kernel, "status": self.status, "compared": self.compared,
                "error": self.error, "differences": [vars(d) for d in self.differences]}


def compare_bundle(directory: str | Path, target: str | None = None, engine: str | None = None) -> Iterator[Comparison]:
    """Each launch of the bundle run again and compared, in recording order; a launch that cannot
    be read is a Comparison with its error. Raises BundleError when ``directory`` is no bundle."""
    for path in launch_files(directory):
        try:
            recorded = replay.load(path, target)
        except BundleError as e:
            yield Comparison(path.stem, "?", error=str(e))
            continue
        yield run_and_compare(recorded, engine)


def run_and_compare(recorded: RecordedLaunch, engine: str | None = None) -> Comparison:
    """Run ``recorded`` on ``engine`` (default: GPUBENCH_ENGINE's) and compare every writable region."""
    result = Comparison(recorded.path.stem, recorded.name)
    try:
        launch.ENGINES[engine or launch.engine()](recorded.ctx, executor.Watchdog())
    except (ExecutionError, Unsupported) as e:
        result.error = f"{type(e).__name__}: {e}"
        return result
    memory = recorded.ctx.memory
    for region in recorded.regions:
        if region.entry["writable"]:
            replayed = np.frombuffer(memory.read_bytes(region.entry["address"], region.entry["size"]), np.uint8)
            result.compared += 1
            difference = compare_region(region, replayed)
            if difference is not None:
                result.differences.append(difference)
    return result


def label(entry: dict) -> str:
    if entry.get("argument") is not None:
        return f"argument {entry['argument']}"
    return f"0x{entry['address']:x}" + (f" {entry['name']}" if entry.get("name") else "")


def compare_region(region: Region, replayed: np.ndarray) -> Difference | None:
    dtype = region.entry["dtype"]
    width = itemsize(dtype)
    usable = len(replayed) // width * width  # a trailing partial element is compared as bytes
    if usable != len(replayed):
        width, dtype = 1, "uint8"
        usable = len(replayed)
    expected, got = region.after[:usable].view(BITS[width]), replayed[:usable].view(BITS[width])
    differ = np.flatnonzero(expected != got)
    if not differ.size:
        return None
    first = int(differ[0])
    ulp = max_ulp(expected[differ], got[differ], width) if is_float(dtype) else None
    return Difference(label(region.entry), dtype, len(expected), int(differ.size), first,
                      value(expected[first], dtype), value(got[first], dtype), ulp)


def itemsize(dtype: str) -> int:
    return WIDTHS.get(dtype) or np.dtype(dtype).itemsize


def is_float(dtype: str) -> bool:
    return dtype.startswith(("float", "bfloat"))


def value(bits: np.generic, dtype: str) -> str:
    if dtype in VALUES:
        return repr(VALUES[dtype](bits))
    if dtype in WIDTHS:  # minifloats numpy has no type for: their bits
        return f"0x{int(bits):0{2 * WIDTHS[dtype]}x}"
    return repr(np.asarray(bits).view(dtype).item())


def max_ulp(expected: np.ndarray, got: np.ndarray, width: int) -> int:
    """The largest distance between the two values of a pair, in representable steps: the bits of a
    sign-magnitude float ordered as integers (+0 is 0, -0 is -1, and so on outwards)."""
    kind = np.int64 if width < 8 else object  # 64-bit magnitudes and their differences need Python's integers

    def ordered(bits: np.ndarray) -> np.ndarray:
        magnitude = (bits & BITS[width]((1 << (8 * width - 1)) - 1)).astype(kind)
        return np.where(bits >> BITS[width](8 * width - 1) != 0, -magnitude - 1, magnitude)
    return int(np.abs(ordered(expected) - ordered(got)).max())


def summary(results: list[Comparison]):
    """A rich table, one row per launch: its kernel, what was compared and the first difference."""
    from rich.table import Table
    from rich.text import Text

    table = Table(title="gpubench compare")
    for column in ("launch", "kernel", "result", "regions", "first difference", "max ULP"):
        table.add_column(column, justify="right" if column in ("regions", "max ULP") else "left")
    for r in results:
        first = r.differences[0] if r.differences else None
        detail = (r.error or "") if first is None else (
            f"{first.region} ({first.dtype} x {first.elements}): {first.differing} differ, first [{first.first}] "
            f"recorded {first.recorded}, replayed {first.replayed}"
            + (f"; {len(r.differences) - 1} more regions" if len(r.differences) > 1 else ""))
        ulps = [d.max_ulp for d in r.differences if d.max_ulp is not None]
        style = {"equal": "green", "differs": "red", "error": "yellow"}[r.status]
        table.add_row(r.launch, Text(r.kernel), Text(r.status, style), str(r.compared), Text(detail),
                      str(max(ulps)) if ulps else "")
    return table
