"""`gpubench run --record DIR` on an emulated device: each dispatch saved, from inside the emulated
GPU, into a bundle (gpubench.debug.bundle) so that it can be replayed, compared and debugged alone.

The launch starts from registers (the program address, the kernel descriptor and RSRC values, the
user SGPRs, as the command processor held them) and its regions are the GPU mappings the dispatch
touched, as they were before it and, when it changed them, after. The mapping holding the program
is always saved: it is the code.

A mapping is copied the first time the dispatch reads or writes it (AddressSpace.watch), so the
copy is what the dispatch saw; mappings it never touches are not saved.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

import numpy as np

from gpubench.debug.bundle import BundleWriter
from gpubench.emu.launch import Dispatch, LaunchStats, engine
from gpubench.emu.memory import Mapping


class DispatchRecorder:
    """A launch hook saving each dispatch ``select`` accepts into the bundle ``directory``."""

    def __init__(self, directory: str | Path, prefix: str = "", select: Callable[[Dispatch], bool] | None = None):
        self.bundle, self.select = BundleWriter(directory, prefix), select
        self.saved: list[Path] = []

    def __call__(self, dispatch: Dispatch, proceed: Callable[[], LaunchStats]) -> LaunchStats:
        if self.select is not None and not self.select(dispatch):
            return proceed()
        before: dict[int, tuple[Mapping, np.ndarray]] = {}

        def first_access(mapping: Mapping, write: bool) -> None:
            if mapping.base not in before:
                before[mapping.base] = (mapping, mapping.data.copy())
        code = dispatch.memory.find(dispatch.program)
        if code is not None:
            first_access(code, False)
        outcome: dict = {}
        dispatch.memory.watch(first_access)
        try:
            stats = proceed()
            outcome["stats"] = {"wave_instructions": stats.wave_instructions, "steps": stats.steps, "waves": stats.waves}
            return stats
        except Exception as error:  # saved with the dispatch, then the queue reports it as usual
            outcome["error"] = f"{type(error).__name__}: {error}"
            raise
        finally:
            dispatch.memory.unwatch()
            self.saved.append(self.save(dispatch, before, code.base if code else None, outcome))

    def save(self, dispatch: Dispatch, before: dict, code: int | None, outcome: dict) -> Path:
        regions = []
        for base, (mapping, old) in sorted(before.items()):
            changed = not np.array_equal(old, mapping.data)
            regions.append({"address": base, "size": mapping.size, "role": "code" if base == code else "memory",
                            "writable": mapping.writable, "name": mapping.name, "dtype": "uint8",
                            "before": self.bundle.blob(old), "after": self.bundle.blob(mapping.data) if changed else None})
        return self.bundle.add({
            "source": "emulator", "index": dispatch.index, "kernel": dispatch.name, "target": dispatch.target,
            "device": {"driver": "gpubench emulator", "engine": engine()},
            "grid": list(dispatch.grid), "block": list(dispatch.block),
            "start": {"kind": "registers", "program": dispatch.program, "descriptor": dataclasses.asdict(dispatch.desc),
                      "user_sgprs": list(dispatch.user_sgprs)},
            **outcome, "regions": regions})
