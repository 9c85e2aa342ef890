"""Kernel names by code address, for code loaded without its symbols.

tinygrad's loader copies only a code object's PROGBITS sections (.rodata with the kernel
descriptor, .text) into GPU memory: the ELF header, .dynsym and the metadata note stay on the
host, so a dispatch's name cannot be read from GPU memory. A client-side shim registers each code
allocation's range and kernel name as it is loaded (gpubench.debug.tinygrad_names); launch hooks
look the program address up here.
"""
from __future__ import annotations

import bisect
import threading

_lock = threading.Lock()  # the client registers from its thread, CP threads look up from theirs
_bases: list[int] = []
_ranges: list[tuple[int, int, str]] = []  # (base, end, name), sorted by base, not overlapping


def register(base: int, size: int, name: str) -> None:
    """Name the code at [base, base + size); replaces ranges it overlaps (freed and reused memory)."""
    with _lock:
        end = base + size
        keep = [r for r in _ranges if r[1] <= base or r[0] >= end]
        keep.insert(bisect.bisect_left([r[0] for r in keep], base), (base, end, name))
        _ranges[:] = keep
        _bases[:] = [r[0] for r in keep]


def name_at(address: int) -> str | None:
    with _lock:
        index = bisect.bisect_right(_bases, address) - 1
        if index >= 0 and address < _ranges[index][1]:
            return _ranges[index][2]
    return None
