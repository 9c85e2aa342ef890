"""Kernel launches seen from the client: tinygrad's, on any AMD device it drives (a real GPU through
/dev/kfd or AM, or the emulator through MOCKKFD / MOCKPCI), recorded into a bundle
(gpubench.debug.bundle, `gpubench run --record DIR --record-at client`) or run again on the
emulator at once and compared (shadow mode, `gpubench run --shadow`).

Where: tinygrad 0.14.0's `AMDProgram.__call__` (tinygrad/runtime/ops_amd.py), which starts SQTT if
asked and calls `HCQProgram.__call__` (runtime/support/hcq.py): that fills the kernel arguments
(`fill_kernargs`), builds the compute queue and submits it. Why there: it is the one place every AMD
launch of tinygrad's runtime passes (CompiledRunner calls the program with its buffers) that still
knows the launch whole: the code object and kernel name, the signature (each buffer's dtype), the
buffers (GPU address and size), grid, workgroup size and scalar values, while being the same code
for every interface (KFD, AM, USB and their MOCK stand-ins). Below it there are only PM4 packets;
above it, no device. `fill_kernargs` is wrapped too, to learn where the argument bytes are.
JIT graphs (HCQGraph) submit their kernels without calling the program: recording and shadow mode
run with JIT=2 (`gpubench run` sets it), which keeps TinyJit but launches each kernel by itself.

What a launch saves: the device is synchronised first (earlier work has landed), each argument
buffer, the loaded code and the kernel arguments are read through tinygrad's own allocator and
CPU views, the launch runs, the device is synchronised again and the buffers are read once more.
Nothing here uses the emulator: the same code runs against the real driver on a GPU machine.
Target, driver and firmware in the manifest are what the client knows: KFD's version and topology
properties, the IP versions from sysfs, or the firmware files AM loaded.
"""
from __future__ import annotations

import functools
import hashlib
import itertools
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from gpubench.debug.bundle import BundleWriter
from gpubench.debug.replay import Region

KFD_PROPERTIES = ("gfx_target_version", "fw_version", "sdma_fw_version", "simd_count", "lds_size_in_kb")
DTYPE_NAMES = {"__bf16": "bfloat16"}  # tinygrad's names numpy has no dtype for, where they differ


@dataclass
class Launch:
    """One launch as the client saw it: its manifest (no blob names yet), regions and code object."""

    manifest: dict
    regions: list[Region]
    code_object: bytes


def dtype_name(dtype) -> str:
    """A tinygrad dtype (a buffer's element type in the program's signature) by numpy's name."""
    base = getattr(dtype, "base", dtype)
    return np.dtype(base.fmt).name if base.fmt else DTYPE_NAMES.get(base.name, base.name)


_firmware: dict[str, str] = {}  # AM's firmware files as loaded: name -> sha256 (start)


def device_info(dev) -> dict:
    """What the client knows of the device it launched on: interface, driver and firmware versions."""
    iface = dev.iface
    info = {"interface": type(iface).__name__, "arch": dev.arch}
    if hasattr(iface, "kfd_ver"):
        info["driver"] = "amdkfd %d.%d" % iface.kfd_ver
        info["kfd_properties"] = {name: iface.props[name] for name in KFD_PROPERTIES if name in iface.props}
    if getattr(iface, "ip_versions", None):
        info["ip_versions"] = {ip_name(ip): ".".join(map(str, version)) for ip, version in iface.ip_versions.items()}
    if dev.is_am():
        info["driver"] = "tinygrad AM"
        info["firmware"] = dict(_firmware)
    return info


def ip_name(number: int) -> str:
    """An IP block's number by amdgpu's name for it (GC_HWIP is 1: "GC"), as tinygrad's AM headers give it."""
    from tinygrad.runtime.autogen.am import am
    return next((name.removesuffix("_HWIP") for name, value in vars(am).items()
                 if name.endswith("_HWIP") and value == number), str(number))


def read(dev, buffer) -> np.ndarray:
    """A GPU buffer's bytes through the client's allocator (SDMA or a CPU copy, as tinygrad does it)."""
    out = bytearray(buffer.size)
    if out:
        dev.allocator._copyout(memoryview(out), buffer)
    return np.frombuffer(out, np.uint8)


def capture(prg, call: Callable, bufs: tuple, kwargs: dict, index: int) -> tuple[Launch, object]:
    """Run ``call`` (the launch) with its memory read before and after; returns the Launch and what
    the launch returned."""
    dev = prg.dev
    dev.synchronize()
    before = [read(dev, b) for b in bufs]
    code = read(dev, prg.lib_gpu)
    result = call(prg, *bufs, **kwargs)
    dev.synchronize()
    kernargs = prg._gpubench_kernargs  # written when the queue was built (HCQArgsState.bind_data), kept until reused
    kernarg_bytes = np.frombuffer(bytes(kernargs.cpu_view().view(size=prg.kernargs_segment_size)[:]), np.uint8)
    signature = prg.signature
    regions = [Region({"address": b.va_addr, "size": b.size, "role": "argument", "argument": i, "writable": True,
                       "name": f"argument {i}", "dtype": dtype_name(signature[i][2]) if i < len(signature) else "uint8"},
                      old, read(dev, b)) for i, (b, old) in enumerate(zip(bufs, before))]
    regions.append(Region({"address": prg.lib_gpu.va_addr, "size": len(code), "role": "code", "writable": False,
                           "name": "code", "dtype": "uint8"}, code, code))
    regions.append(Region({"address": kernargs.va_addr, "size": len(kernarg_bytes), "role": "kernargs",
                           "writable": False, "name": "kernel arguments", "dtype": "uint8"}, kernarg_bytes, kernarg_bytes))
    grid, block = kwargs.get("global_size", (1, 1, 1)), kwargs.get("local_size", (1, 1, 1))
    manifest = {"source": "client", "index": index, "kernel": prg.name, "test": current_test(),
                "target": dev.arch, "device": device_info(dev),
                "grid": [int(g) for g in grid], "block": [int(b) for b in block],
                "values": [int(v) for v in kwargs.get("vals", ())],
                "start": {"kind": "code_object", "kernel": prg.name, "descriptor_address": prg.aql_prog_addr,
                          "kernarg_address": kernargs.va_addr, "kernarg_size": len(kernarg_bytes)}}
    return Launch(manifest, regions, bytes(prg.lib)), result


def current_test() -> str | None:
    """The pytest test running the launch (its node id), so that a user can find the launch's source."""
    running = os.environ.get("PYTEST_CURRENT_TEST")  # "path::name (call)"
    return running.rsplit(" ", 1)[0] if running else None


def hook(on_launch: Callable[[Launch], None]) -> Callable[[], None]:
    """Wrap tinygrad's AMDProgram launch so that each launch goes to ``on_launch``; returns the undo."""
    from tinygrad.runtime import ops_amd
    from tinygrad.runtime.support.am import amdev

    program = ops_amd.AMDProgram
    call, fill, load_fw = program.__call__, program.fill_kernargs, amdev.AMFirmware.load_fw
    indices = itertools.count()

    @functools.wraps(fill)
    def noted_fill(self, bufs, vals=(), kernargs=None):
        state = fill(self, bufs, vals, kernargs)
        self._gpubench_kernargs = state.buf
        return state

    @functools.wraps(call)
    def observed_call(self, *bufs, **kwargs):
        launch, result = capture(self, call, bufs, kwargs, next(indices))
        on_launch(launch)
        return result

    @functools.wraps(load_fw)
    def noted_load_fw(self, fname, *headers, **kwargs):
        loaded = load_fw(self, fname, *headers, **kwargs)
        _firmware[fname] = hashlib.sha256(loaded[0]).hexdigest()[:16]
        return loaded

    program.__call__, program.fill_kernargs, amdev.AMFirmware.load_fw = observed_call, noted_fill, noted_load_fw

    def undo() -> None:
        program.__call__, program.fill_kernargs, amdev.AMFirmware.load_fw = call, fill, load_fw
    return undo


class ClientRecorder:
    """Writes each launch into a bundle: the code object, kernel arguments and buffers as blobs."""

    def __init__(self, directory: str | Path, prefix: str = ""):
        self.bundle = BundleWriter(directory, prefix)
        self.saved: list[Path] = []

    def __call__(self, launch: Launch) -> None:
        regions = []
        for region in launch.regions:
            changed = not np.array_equal(region.before, region.after)
            regions.append({**region.entry, "before": self.bundle.blob(region.before),
                            "after": self.bundle.blob(region.after) if changed else None})
        start = {**launch.manifest["start"], "code_object": self.bundle.blob(launch.code_object),
                 "code_object_size": len(launch.code_object)}
        self.saved.append(self.bundle.add({**launch.manifest, "start": start, "regions": regions}))


@dataclass
class Shadow:
    """Runs each launch again on the emulator as soon as the device has run it, and writes a line to
    ``report`` for every launch whose results differ. Never raises: the suite's results stay its own."""

    report: object  # a text stream
    compared: int = 0
    differing: list[str] = field(default_factory=list)

    def __call__(self, launch: Launch) -> None:
        from gpubench.debug import compare, replay
        manifest = launch.manifest
        test = f", {manifest['test']}" if manifest.get("test") else ""
        label = f"{manifest['kernel']} (launch {manifest['index']}{test})"
        self.compared += 1
        try:
            recorded = replay.prepare(manifest, launch.regions, Path(label))
            result = compare.run_and_compare(recorded)
        except Exception as e:  # a shadow that breaks must not break the suite: it is reported instead
            result = compare.Comparison(label, launch.manifest["kernel"], error=f"{type(e).__name__}: {e}")
        if result.status != "equal":
            self.differing.append(label)
            for line in describe(label, result):
                print(f"gpubench shadow: {line}", file=self.report, flush=True)


def describe(label: str, result) -> list[str]:
    if result.error:
        return [f"{label}: the emulator did not run it: {result.error}"]
    return [f"{label}: {d.region} ({d.dtype} x {d.elements}): {d.differing} differ, first [{d.first}]: "
            f"device {d.recorded}, emulator {d.replayed}" + (f", max {d.max_ulp} ULP" if d.max_ulp is not None else "")
            for d in result.differences]


@dataclass
class Tally:
    """What the client tools did in a run, summed over xdist workers (each hands its own to the
    controller): launches recorded, launches shadowed and the labels of those that differed."""

    recorded: int = 0
    shadowed: int = 0
    differing: list[str] = field(default_factory=list)

    def add(self, part: dict) -> None:
        self.recorded += part["recorded"]
        self.shadowed += part["shadowed"]
        self.differing += part["differing"]

    def lines(self, environ) -> list[str]:
        """The run's closing lines for the tools ``environ`` asked for."""
        from gpubench.debug.tools import ENV
        lines = []
        if environ.get(ENV["shadow"]):
            shown = ", ".join(self.differing[:5]) + (", ..." if len(self.differing) > 5 else "")
            lines.append(f"gpubench shadow: {self.shadowed} launches run on the emulator too, "
                         f"{len(self.differing)} differ" + (f": {shown}" if self.differing else ""))
        if environ.get(ENV["record_at"]) == "client":
            lines.append(f"recorded {self.recorded} launches at the client in {environ.get(ENV['record'])}")
        return lines


@dataclass
class ClientTools:
    recorder: ClientRecorder | None
    shadow: Shadow | None
    undo: Callable[[], None]

    def finish(self) -> dict:
        """Unhook tinygrad; what this process did, as a Tally's parts (plain data: xdist carries it)."""
        self.undo()
        return {"recorded": len(self.recorder.saved) if self.recorder else 0,
                "shadowed": self.shadow.compared if self.shadow else 0,
                "differing": self.shadow.differing if self.shadow else []}


def install(environ, worker: str | None = None) -> ClientTools | None:
    """The client-side tools the environment asks for (GPUBENCH_RECORD with GPUBENCH_RECORD_AT=client,
    GPUBENCH_SHADOW), hooked into tinygrad; None when it asks for none. Call before tests run (while
    pytest does not capture fd 2): shadow mode writes to a copy of it, so its lines show as they happen."""
    from gpubench.debug.tools import ENV
    record = environ.get(ENV["record"]) if environ.get(ENV["record_at"]) == "client" else None
    shadowing = bool(environ.get(ENV["shadow"]))
    if not (record or shadowing):
        return None
    recorder = ClientRecorder(record, f"{worker}-" if worker else "") if record else None
    shadow = Shadow(os.fdopen(os.dup(sys.stderr.fileno()), "w", buffering=1)) if shadowing else None
    tools = [tool for tool in (recorder, shadow) if tool]

    def each(launch: Launch) -> None:
        for tool in tools:
            tool(launch)
    return ClientTools(recorder, shadow, hook(each))
