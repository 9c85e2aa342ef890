"""Runs a tests/kernels case on the emulated GPU through the public Python API."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

import gpubench
from gpubench.emu.executor import Watchdog

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "kernels"))
import cases  # noqa: E402


def run_case(case: "cases.Case", variant: str, seed: int = 0, watchdog: Watchdog = Watchdog(),
             schedule: str | None = None, races: bool | None = None):
    """(inputs, device buffers by name, outputs read back, launch statistics); ``schedule`` and
    ``races``: the Python API's (gpubench/emu/schedule.py, races.py)."""
    target = cases.VARIANTS[variant].target
    inputs = case.inputs(seed)
    dev = gpubench.Device(target)
    buffers = {a.name: dev.to_device(inputs[a.name]) for a in case.args if isinstance(a, cases.Buffer)}
    kernel = dev.load(case.code_object(variant))[case.kernel]
    args = tuple(buffers[a.name] if isinstance(a, cases.Buffer) else inputs[a.name] for a in case.args)
    stats = kernel(grid=case.grid, block=case.block, args=args, watchdog=watchdog, schedule=schedule,
                   races=races)
    outputs = {name: dev.to_host(buffers[name], np.dtype(next(a.dtype for a in case.args if a.name == name)))
               for name in case.outputs}
    return inputs, buffers, outputs, stats
