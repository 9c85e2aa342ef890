"""The GPU virtual address space: mapped ranges, every access checked, faults that name the access.

Accesses come a whole instruction at a time: an array of per-lane addresses (already filtered by
EXEC), read or written with numpy gathers and scatters. A lane whose bytes are not all inside one
mapping stops the access with a `PageFault` before anything is written, so a bad pointer never
touches host memory outside what the client mapped and never half-applies a store.
"""
from __future__ import annotations

import bisect
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

PAGE = 4096
NOT_EXECUTABLE = "instruction fetch from memory that is not executable"  # a PageFault's reason


@dataclass
class Mapping:
    base: int
    size: int
    data: np.ndarray  # uint8, len == size; shared with the client when it owns the memory
    writable: bool = True
    name: str = ""
    executable: bool = True  # waves may fetch instructions from it (a GPU page table's EXECUTABLE bit)

    @property
    def end(self) -> int:
        return self.base + self.size


@dataclass
class PageFault(Exception):
    """An access outside every mapping (or a write to a read-only one)."""

    address: int
    write: bool
    reason: str = "unmapped"
    lane: int | None = None
    context: dict = field(default_factory=dict)  # filled in by the emulator: pc, wave, workgroup ...

    def __str__(self) -> str:
        where = " ".join(f"{k}={v}" for k, v in self.context.items())
        lane = f" lane {self.lane}" if self.lane is not None else ""
        kind = "write" if self.write else "read"
        return f"GPU page fault: {kind} at 0x{self.address:x} ({self.reason}){lane}{' ' + where if where else ''}"


class AddressSpace:
    def __init__(self) -> None:
        self._bases: list[int] = []
        self._maps: list[Mapping] = []
        self.generation = 0  # changes with every map and unmap (for tables built from the mappings)

    @property
    def mappings(self) -> tuple[Mapping, ...]:
        return tuple(self._maps)

    def map(self, base: int, data: np.ndarray | int, writable: bool = True, name: str = "",
            executable: bool = True) -> Mapping:
        """Map ``data`` (a uint8 array, shared, or a size to allocate zeroed) at ``base``."""
        buffer = np.zeros(data, np.uint8) if isinstance(data, int) else data.view(np.uint8).reshape(-1)
        mapping = Mapping(base, buffer.size, buffer, writable, name, executable)
        index = bisect.bisect_left(self._bases, base)
        neighbours = self._maps[max(0, index - 1):index + 1]
        if base < 0 or any(m.base < mapping.end and base < m.end for m in neighbours):
            raise ValueError(f"mapping 0x{base:x}+0x{mapping.size:x} overlaps an existing one")
        self._bases.insert(index, base)
        self._maps.insert(index, mapping)
        self.generation += 1
        return mapping

    def unmap(self, base: int) -> Mapping:
        index = bisect.bisect_left(self._bases, base)
        if index == len(self._bases) or self._bases[index] != base:
            raise ValueError(f"nothing is mapped at 0x{base:x}")
        del self._bases[index]
        self.generation += 1
        return self._maps.pop(index)

    def watch(self, first_access: Callable[[Mapping, bool], None]) -> None:
        """Call ``first_access(mapping, write)`` before the first read and before the first write of
        each mapping (instruction fetches count as reads) until `unwatch()`: what a dispatch recorder
        needs to copy a mapping before the dispatch changes it.

        The hook shadows `read`, `write` and `find` on this instance only, so an address space that
        is not watched runs the class's methods and pays nothing for the feature."""
        seen: set[tuple[int, bool]] = set()

        def note(mapping: Mapping, write: bool) -> None:
            if (id(mapping), write) not in seen:
                seen.add((id(mapping), write))
                first_access(mapping, write)

        def touched(addresses: np.ndarray, write: bool) -> None:
            if addresses.size:  # a lane outside every mapping faults in the access itself
                index = np.searchsorted(np.array(self._bases, np.uint64), addresses.astype(np.uint64, copy=False),
                                        side="right") - 1
                for i in np.unique(index[index >= 0]).tolist():
                    note(self._maps[i], write)

        def read(addresses: np.ndarray, size: int) -> np.ndarray:
            touched(addresses, False)
            return AddressSpace.read(self, addresses, size)

        def write(addresses: np.ndarray, values: np.ndarray) -> None:
            touched(addresses, True)
            AddressSpace.write(self, addresses, values)

        def find(address: int) -> Mapping | None:
            mapping = AddressSpace.find(self, address)
            if mapping is not None:
                note(mapping, False)
            return mapping
        self.read, self.write, self.find = read, write, find

    def unwatch(self) -> None:
        for name in ("read", "write", "find"):
            self.__dict__.pop(name, None)

    def find(self, address: int) -> Mapping | None:
        index = bisect.bisect_right(self._bases, address) - 1
        if index >= 0 and address < self._maps[index].end:
            return self._maps[index]
        return None

    # ---- whole-instruction accesses -------------------------------------------------------

    def _resolve(self, addresses: np.ndarray, size: int, write: bool) -> tuple[np.ndarray, np.ndarray]:
        """(mapping index, offset in it) per address; faults on the first lane that is not mapped."""
        addresses = addresses.astype(np.uint64, copy=False)
        bases = np.array(self._bases, dtype=np.uint64)
        index = np.searchsorted(bases, addresses, side="right").astype(np.int64) - 1
        ends = np.array([m.end for m in self._maps], dtype=np.uint64)
        ok = index >= 0
        safe = np.where(ok, index, 0)
        if len(ends):
            # the room left in the mapping, not address + size: that sum wraps at 2^64
            ok &= (addresses < ends[safe]) & (ends[safe] - addresses >= np.uint64(size))
        else:
            ok[:] = False
        if write and ok.any():
            writable = np.array([m.writable for m in self._maps])
            readonly = ok & ~writable[safe]
            if readonly.any():
                lane = int(np.argmax(readonly))
                raise PageFault(int(addresses[lane]), True, "read-only", lane)
        if not ok.all():
            lane = int(np.argmin(ok))
            raise PageFault(int(addresses[lane]), write, "unmapped", lane)
        return safe, (addresses - bases[safe]).astype(np.int64)

    def _single_mapping(self, addresses: np.ndarray, size: int, write: bool) -> tuple[Mapping, np.ndarray] | None:
        """The common case, checked cheaply: every address in one mapping -> (it, offsets)."""
        low, high = int(addresses.min()), int(addresses.max())
        mapping = self.find(low)
        if mapping is None or high + size > mapping.end or (write and not mapping.writable):
            return None
        return mapping, addresses.astype(np.int64) - mapping.base

    def read(self, addresses: np.ndarray, size: int) -> np.ndarray:
        """``size`` bytes from each address: a [lanes, size] uint8 array."""
        if addresses.size == 0:
            return np.zeros((0, size), np.uint8)
        single = self._single_mapping(addresses, size, write=False)
        if single is not None:
            mapping, offset = single
            if size % 4 == 0 and not (offset & 3).any() and mapping.base % 4 == 0 and mapping.size % 4 == 0:
                words = mapping.data.view(np.uint32)[(offset >> 2)[:, None] + np.arange(size // 4)]
                return words.view(np.uint8)
            return mapping.data[offset[:, None] + np.arange(size)]
        index, offset = self._resolve(addresses, size, write=False)
        out = np.empty((addresses.size, size), np.uint8)
        span = np.arange(size)
        for i in np.unique(index):
            lanes = index == i
            out[lanes] = self._maps[i].data[offset[lanes, None] + span]
        return out

    def write(self, addresses: np.ndarray, values: np.ndarray) -> None:
        """Write row i of ``values`` ([lanes, size] uint8) at addresses[i]; later lanes win overlaps."""
        if addresses.size == 0:
            return
        size = values.shape[1]
        single = self._single_mapping(addresses, size, write=True)
        if single is not None:
            mapping, offset = single
            if size % 4 == 0 and not (offset & 3).any() and mapping.base % 4 == 0 and mapping.size % 4 == 0:
                # aligned dwords (the common case): scatter words, a quarter of the indices of bytes;
                # whole lanes still land in lane order, so later lanes win overlaps as before
                words = np.ascontiguousarray(values, np.uint8).view(np.uint32)
                mapping.data.view(np.uint32)[(offset >> 2)[:, None] + np.arange(size // 4)] = words
                return
            mapping.data[offset[:, None] + np.arange(size)] = values
            return
        index, offset = self._resolve(addresses, size, write=True)
        span = np.arange(size)
        for i in np.unique(index):
            lanes = index == i
            self._maps[i].data[offset[lanes, None] + span] = values[lanes]

    # One access at one address (the command processors' packets and pointers): a slice of the
    # mapping when it holds every byte, else the whole-instruction path, which faults as it should.
    # A watched space (`watch`) always takes that path, so its hook sees the access.

    def read_bytes(self, address: int, size: int) -> bytes:
        mapping = self._holding(address, size, write=False)
        if mapping is not None:
            start = address - mapping.base
            return mapping.data[start:start + size].tobytes()
        return self.read(np.array([address], np.uint64), size)[0].tobytes()

    def write_bytes(self, address: int, data: bytes) -> None:
        mapping = self._holding(address, len(data), write=True)
        if mapping is not None:
            start = address - mapping.base
            mapping.data[start:start + len(data)] = np.frombuffer(data, np.uint8)
            return
        self.write(np.array([address], np.uint64), np.frombuffer(data, np.uint8)[None, :])

    def _holding(self, address: int, size: int, write: bool) -> Mapping | None:
        if "read" in self.__dict__:
            return None
        mapping = AddressSpace.find(self, address)
        if mapping is None or size > mapping.end - address or (write and not mapping.writable):
            return None
        return mapping
