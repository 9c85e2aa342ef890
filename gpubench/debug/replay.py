"""A recorded dispatch (gpubench.debug.record) run again alone: its mappings restored in a fresh
address space as they were before it ran, its waves set up from the recorded registers, and the
memory it wrote compared with what it wrote when recorded."""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gpubench.emu.context import Context
from gpubench.emu.launch import prepare_context
from gpubench.emu.memory import AddressSpace
from gpubench.isa.codeobject import KernelDescriptor


@dataclass
class RecordedLaunch:
    """A recorded dispatch prepared to run: what `Session` takes (as it takes a PreparedLaunch)."""

    ctx: Context
    manifest: dict
    directory: Path

    @property
    def name(self) -> str:
        return self.manifest["kernel"] or f"dispatch-{self.manifest['index']}"

    def labels(self) -> dict[str, int]:
        """The kernel's entry, by name: the only symbol known (the code has none in GPU memory)."""
        return {self.name: self.manifest["program"]}

    def close(self) -> None:
        pass  # the address space is the launch's own


def load(directory: str | Path) -> RecordedLaunch:
    directory = Path(directory)
    manifest = json.loads((directory / "manifest.json").read_text())
    memory = AddressSpace()
    for m in manifest["mappings"]:
        data = np.fromfile(directory / m["before"], np.uint8)
        memory.map(m["base"], data, writable=m["writable"], name=m["name"])
    desc = KernelDescriptor(**manifest["descriptor"])
    ctx = prepare_context(memory, manifest["target"], desc, manifest["program"], manifest["user_sgprs"],
                          tuple(manifest["grid"]), tuple(manifest["block"]))
    return RecordedLaunch(ctx, manifest, directory)


def compare(launch: RecordedLaunch) -> list[str]:
    """Differences between the memory the replayed dispatch left and the recording's, one line per mapping."""
    problems = []
    memory = launch.ctx.memory
    for m in launch.manifest["mappings"]:
        expected = np.fromfile(launch.directory / (m["after"] or m["before"]), np.uint8)
        got = memory.find(m["base"]).data
        differ = np.flatnonzero(expected != got)
        if differ.size:
            problems.append(f"mapping 0x{m['base']:x} {m['name'] or ''} ({m['size']} bytes): {differ.size} bytes "
                            f"differ, first at +0x{differ[0]:x} (recorded {expected[differ[0]]:#04x}, "
                            f"replayed {got[differ[0]]:#04x})".replace("  ", " "))
    return problems
