"""A recorded launch (gpubench.debug.bundle) set up to run again alone: its regions mapped in a
fresh address space as they were before it ran, its waves set up as its start says, on the target
it was recorded on or another one (`target`).

Regions that share pages (tinygrad's buffer views, several arguments in one allocation) are mapped
as one mapping over the pages they cover: the GPU maps whole pages, and a kernel may read past the
end of a buffer within its last page.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gpubench.debug.bundle import BundleError, read_blob, read_manifest
from gpubench.emu import abi
from gpubench.emu.context import Context
from gpubench.emu.launch import prepare_context
from gpubench.emu.memory import PAGE, AddressSpace, PageFault
from gpubench.isa.codeobject import DESCRIPTOR_SIZE, KernelDescriptor
from gpubench.isa.targets import TARGETS


@dataclass
class Region:
    """A recorded range of GPU memory: its manifest entry and its bytes before and after the launch."""

    entry: dict
    before: np.ndarray
    after: np.ndarray  # the same as before when the launch did not change it


@dataclass
class RecordedLaunch:
    """A recorded launch prepared to run: what `Session` takes (as it takes a PreparedLaunch)."""

    ctx: Context
    manifest: dict
    path: Path
    regions: list[Region]
    program: int  # the address the waves start at

    @property
    def name(self) -> str:
        return self.manifest["kernel"] or self.path.stem

    def labels(self) -> dict[str, int]:
        """The kernel's entry, by name: the only symbol known (the code has none in GPU memory)."""
        return {self.name: self.program}

    def close(self) -> None:
        pass  # the address space is the launch's own


def load(path: str | Path, target: str | None = None) -> RecordedLaunch:
    """The launch whose manifest is ``path`` (BUNDLE/launches/NAME.json), ready to run on ``target``
    (default: the target it was recorded on). Raises BundleError for a bundle that cannot be read."""
    path = Path(path)
    manifest = read_manifest(path)
    bundle = path.parent.parent
    try:
        regions = [Region(entry, before := read_blob(bundle, entry["before"], entry["size"]),
                          before if entry["after"] is None else read_blob(bundle, entry["after"], entry["size"]))
                   for entry in manifest["regions"]]
    except (KeyError, TypeError) as e:
        raise BundleError(f"{path}: not a launch manifest gpubench can read ({type(e).__name__}: {e})") from None
    return prepare(manifest, regions, path, target)


def prepare(manifest: dict, regions: list[Region], path: Path, target: str | None = None) -> RecordedLaunch:
    """A launch from its manifest and region contents (read from a bundle, or just captured: shadow mode)."""
    target = target or manifest.get("target")
    if target not in TARGETS:
        raise BundleError(f"{path}: unknown target {target!r}; known: {', '.join(sorted(TARGETS))}")
    try:
        memory = _map(regions)
        desc, program, user_sgprs = STARTS[manifest["start"]["kind"]](manifest, memory, TARGETS[target].arch)
        grid, block = tuple(manifest["grid"]), tuple(manifest["block"])
    except (KeyError, TypeError, ValueError, PageFault) as e:
        raise BundleError(f"{path}: not a launch manifest gpubench can read ({type(e).__name__}: {e})") from None
    return RecordedLaunch(prepare_context(memory, target, desc, program, user_sgprs, grid, block), manifest, path,
                          regions, program)


def _map(regions: list[Region]) -> AddressSpace:
    memory = AddressSpace()
    pages = lambda r: (r.entry["address"] // PAGE * PAGE, -(-(r.entry["address"] + r.entry["size"]) // PAGE) * PAGE)
    groups: list[list] = []  # [start, end, regions]
    for region in sorted(regions, key=lambda r: r.entry["address"]):
        start, end = pages(region)
        if groups and start < groups[-1][1]:
            groups[-1][1] = max(groups[-1][1], end)
            groups[-1][2].append(region)
        else:
            groups.append([start, end, [region]])
    for start, end, members in groups:
        data = np.zeros(end - start, np.uint8)
        for region in members:
            offset = region.entry["address"] - start
            data[offset:offset + region.entry["size"]] = region.before
        memory.map(start, data, writable=any(r.entry["writable"] for r in members),
                   name=" + ".join(r.entry["name"] for r in members if r.entry["name"]))
    return memory


def _from_registers(manifest: dict, memory: AddressSpace, arch: str):
    """As the command processor started it: the recorded descriptor (read for ``arch``) and user SGPRs."""
    start = manifest["start"]
    desc = dataclasses.replace(KernelDescriptor(**start["descriptor"]), arch=arch)
    return desc, start["program"], start["user_sgprs"]


def _from_code_object(manifest: dict, memory: AddressSpace, arch: str):
    """As the client launched it: the descriptor read from the loaded code where the client put it,
    the user SGPRs as the HSA ABI lays them out (kernel arguments, a dispatch packet of its own)."""
    start = manifest["start"]
    desc = KernelDescriptor.parse(memory.read_bytes(start["descriptor_address"], DESCRIPTOR_SIZE), arch)
    kernargs = memory.read_bytes(start["kernarg_address"], start["kernarg_size"])
    packet = max(m.end for m in memory.mappings) + PAGE  # a page of its own, past everything recorded
    grid, block = tuple(manifest["grid"]), tuple(manifest["block"])
    aql = abi.dispatch_packet(grid, block, desc, start["descriptor_address"], start["kernarg_address"])
    memory.map(packet, np.frombuffer(aql.ljust(PAGE, b"\0"), np.uint8).copy(), name="dispatch packet")
    user_sgprs = abi.user_sgpr_values(desc, abi.LaunchAddresses(kernarg_ptr=start["kernarg_address"],
                                                                dispatch_ptr=packet))
    return desc, abi.entry_point(desc, start["descriptor_address"]), user_sgprs + abi.preloaded_kernargs(desc, kernargs)


STARTS = {"registers": _from_registers, "code_object": _from_code_object}
