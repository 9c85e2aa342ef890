"""GPUVM context 0 of the GC hub: the translations the CP and the shaders use, read from the page
tables the driver wrote in VRAM (GMC v9-v12 formats, amdgpu_vm.h) whenever the driver
invalidates the hub's TLB (invalidation engine 17, gmc.py).

The walk starts at VM_CONTEXT0_PAGE_TABLE_BASE_ADDR (a VRAM address, bit 0 valid), indexes each
level with 9 bits of (VA - PAGE_TABLE_START_ADDR) from bit 39 down to bit 12 (PAGE_TABLE_DEPTH 3:
PDB2, PDB1, PDB0, PTB), and stops at a PTB entry or at a PDE that is a page (`HUGE_PAGE`, by GMC
generation: PDE_PTE, bit 54, on gfx10/11 and bit 63 on gfx12, a 1 GiB or 2 MiB page; on gfx9 (GMC
v9, page tables in "translate further" mode) PDE_PTE above PDB0, and at PDB0 an entry without
PTE_TF (bit 56), a 2 MiB page; with it the entry names a PTB). A valid page is VRAM (an offset into
the chip's VRAM) or, with SYSTEM set, a system physical address that `system_address` resolves to
a host address. Runs of pages that are contiguous
on both sides become one mapping of the GPU's address space, the TLB the CP and waves use until the
next invalidation; an invalid or unresolvable entry leaves its range unmapped, so an access
there is a page fault, which the IH reports as a VM fault (ih.py).

Permission bits: a page is written only with WRITEABLE (bit 6), read only with READABLE (bit 5);
a valid page without READABLE is left unmapped and remembered (`denied`), so a fault there is
reported as a read-permission fault (a write to such a write-only page faults too, where hardware
would take it: the address space has no write-only mappings). Waves fetch instructions only from
pages with EXECUTABLE (bit 4): a fetch from a page without it is an execute-permission fault (the
CP's own reads of rings and packets are data reads). Fragments (bits 7-11)
need nothing: every PTE is read, and runs contiguous on both sides merge into one mapping anyway.
"""
from __future__ import annotations

import logging
from typing import Callable

import numpy as np

from gpubench.emu.hostmem import client_array
from gpubench.emu.memory import NOT_EXECUTABLE, AddressSpace
from gpubench.emu.soc.chips import GC

log = logging.getLogger("gpubench.soc")

VALID, SYSTEM, EXECUTABLE, READABLE, WRITEABLE = 1 << 0, 1 << 1, 1 << 4, 1 << 5, 1 << 6
PDE_PTE_GFX10, PDE_PTE_GFX12, PTE_TF = 1 << 54, 1 << 63, 1 << 56
PDB0 = 2  # the level (from the root, PDB2 = 0) whose entries map 2 MiB
# whether a PDE at a level is a page: by the GC generation whose GMC reads the tables
HUGE_PAGE = {
    9: lambda level, entry: not entry & PTE_TF if level == PDB0 else bool(entry & PDE_PTE_GFX10),
    10: lambda level, entry: bool(entry & PDE_PTE_GFX10),
    11: lambda level, entry: bool(entry & PDE_PTE_GFX10),
    12: lambda level, entry: bool(entry & PDE_PTE_GFX12),
}
ADDRESS_MASK = 0x0000FFFFFFFFF000
LEVEL_SHIFTS = (39, 30, 21, 12)
PAGE = 1 << 12
REFUSED_BY_MAPPING = {"read-only": "write", NOT_EXECUTABLE: "execute"}  # PageFault reason -> the PTE bit it lacked


class GPUVM:
    def __init__(self, soc, space: AddressSpace, lock, system_address: Callable[[int], int | None]):
        self.soc, self.space, self.lock, self.system_address = soc, space, lock, system_address
        self.mapped: list[int] = []  # bases of the mappings this VM made
        self.denied: list[tuple[int, int]] = []  # (VA, bytes) of valid pages without READABLE
        self.is_page = HUGE_PAGE[soc.chip.version(GC)[0]]

    def _register(self, name: str) -> int:
        return self.soc.registers.load(self.soc.address(GC, f"GCVM_CONTEXT0_{name}"))

    def _pair(self, name: str) -> int:
        return (self._register(f"{name}_HI32") << 32) | self._register(f"{name}_LO32")

    def pages(self) -> list[tuple[int, int, int, bool, bool, bool]]:
        """(VA, target address, bytes, system, writable, executable) of every valid page, in VA order."""
        root = self._pair("PAGE_TABLE_BASE_ADDR")
        start = self._pair("PAGE_TABLE_START_ADDR") << 12
        self.denied = []
        if not root & VALID or not self._register("CNTL") & 1:
            return []
        found: list = []
        self._walk(root & ADDRESS_MASK, 0, start, found)
        return found

    def permission(self, address: int, write: bool, reason: str) -> str | None:
        """The PTE permission an access that faulted lacked ("read", "write", "execute"), None for no valid entry."""
        if reason in REFUSED_BY_MAPPING:
            return REFUSED_BY_MAPPING[reason]
        return "read" if any(va <= address < va + size for va, size in self.denied) else None

    def _walk(self, table: int, level: int, base: int, found: list) -> None:
        entries = self.soc.vram[table:table + PAGE].view(np.uint64)
        shift = LEVEL_SHIFTS[level]
        for index in np.flatnonzero(entries & np.uint64(VALID)):
            entry = int(entries[index])
            va = base + (int(index) << shift)
            if (level == len(LEVEL_SHIFTS) - 1 or self.is_page(level, entry)) and not entry & READABLE:
                self.denied.append((va, 1 << shift))
            elif level == len(LEVEL_SHIFTS) - 1 or self.is_page(level, entry):
                found.append((va, entry & ADDRESS_MASK, 1 << shift,
                              *(bool(entry & bit) for bit in (SYSTEM, WRITEABLE, EXECUTABLE))))
            else:
                self._walk(entry & ADDRESS_MASK, level + 1, va, found)

    def invalidate(self) -> None:
        runs: list[list] = []  # [VA, target, bytes, system, writable, executable]
        for va, target, size, *flags in self.pages():
            last = runs[-1] if runs else None
            if last and last[0] + last[2] == va and last[1] + last[2] == target and last[3:] == flags:
                last[2] += size
            else:
                runs.append([va, target, size, *flags])
        with self.lock:
            for base in self.mapped:
                self.space.unmap(base)
            self.mapped = []
            for va, target, size, system, *access in runs:
                self._map(va, target, size, system, *access)

    def _map(self, va: int, target: int, size: int, system: bool, writable: bool, executable: bool) -> None:
        if not system:
            if target + size <= len(self.soc.vram):
                self._place(va, self.soc.vram[target:target + size], writable, executable, "vram")
            else:
                log.error("gpuvm: PTE at 0x%x names VRAM 0x%x past the end of VRAM", va, target)
            return
        run_va, run_host, run_bytes = va, None, 0  # host pages need not be contiguous: map each run that is
        for offset in range(0, size, PAGE):
            host = self.system_address(target + offset)
            if host is None:
                log.error("gpuvm: PTE at 0x%x names system address 0x%x, which no page has",
                          va + offset, target + offset)
            if run_host is not None and host == run_host + run_bytes:
                run_bytes += PAGE
                continue
            if run_host is not None:
                self._place(run_va, client_array(run_host, run_bytes), writable, executable, "system")
            run_va, run_host, run_bytes = va + offset, host, PAGE if host is not None else 0
        if run_host is not None:
            self._place(run_va, client_array(run_host, run_bytes), writable, executable, "system")

    def _place(self, va: int, data: np.ndarray, writable: bool, executable: bool, kind: str) -> None:
        self.space.map(va, data, writable, name=f"gpuvm {kind}", executable=executable)
        self.mapped.append(va)
