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
LEAF = len(LEVEL_SHIFTS) - 1  # the PTB level
PAGE = 1 << 12
REFUSED_BY_MAPPING = {"read-only": "write", NOT_EXECUTABLE: "execute"}  # PageFault reason -> the PTE bit it lacked


class GPUVM:
    def __init__(self, soc, space: AddressSpace, lock, system_address: Callable[[int], int | None]):
        self.soc, self.space, self.lock, self.system_address = soc, space, lock, system_address
        self.mapped: set[tuple] = set()  # the mappings this VM made (_pieces; each is mapped at its VA)
        self.denied: list[tuple[int, int]] = []  # (VA, bytes) of valid pages without READABLE
        self._leaves: dict[tuple[int, int], tuple] = {}  # (PTB, VA) -> (its entries, pages, denied) at the last walk
        self._system: dict[tuple, list] = {}  # a system run -> its pieces, until the client unmaps host memory in it
        self.is_page = HUGE_PAGE[soc.chip.version(GC)[0]]

    def _register(self, name: str) -> int:
        return self.soc.registers.load(self.soc.address(GC, f"GCVM_CONTEXT0_{name}"))

    def _pair(self, name: str) -> int:
        return (self._register(f"{name}_HI32") << 32) | self._register(f"{name}_LO32")

    def pages(self) -> list[tuple[int, int, int, bool, bool, bool]]:
        """(VA, target address, bytes, system, writable, executable) of every valid page, in VA order, each
        run of pages contiguous on both sides with the same bits as one."""
        root = self._pair("PAGE_TABLE_BASE_ADDR")
        start = self._pair("PAGE_TABLE_START_ADDR") << 12
        self.denied, walked = [], {}
        found: list = []
        if root & VALID and self._register("CNTL") & 1:
            self._walk(root & ADDRESS_MASK, 0, start, found, walked)
        self._leaves = walked  # the PTBs of this walk: a PTB no longer reached is forgotten
        return [tuple(run) for run in _merged(found)]

    def permission(self, address: int, write: bool, reason: str) -> str | None:
        """The PTE permission an access that faulted lacked ("read", "write", "execute"), None for no valid entry."""
        if reason in REFUSED_BY_MAPPING:
            return REFUSED_BY_MAPPING[reason]
        return "read" if any(va <= address < va + size for va, size in self.denied) else None

    def _walk(self, table: int, level: int, base: int, found: list, walked: dict) -> None:
        entries = self.soc.vram[table:table + PAGE].view(np.uint64)
        if level == LEAF:
            self._leaf(table, base, entries, found, walked)
            return
        for index in np.flatnonzero(entries & np.uint64(VALID)).tolist():
            entry = int(entries[index])
            va = base + (index << LEVEL_SHIFTS[level])
            if self.is_page(level, entry):
                _page(entry, va, 1 << LEVEL_SHIFTS[level], found, self.denied)
            else:
                self._walk(entry & ADDRESS_MASK, level + 1, va, found, walked)

    def _leaf(self, table: int, base: int, entries: np.ndarray, found: list, walked: dict) -> None:
        """A PTB's pages (as runs), read again only when its entries changed since the last walk: AM
        invalidates the whole TLB after every mapping, and the walk must not cost every PTB each time."""
        key = (table, base)
        known = self._leaves.get(key)
        if known is None or not np.array_equal(known[0], entries):
            pages: list = []
            denied: list = []
            for index in np.flatnonzero(entries & np.uint64(VALID)).tolist():
                _page(int(entries[index]), base + (index << LEVEL_SHIFTS[LEAF]), PAGE, pages, denied)
            known = (entries.copy(), _merged(pages), denied)
        walked[key] = known
        found.extend(known[1])
        self.denied.extend(known[2])

    def invalidate(self) -> None:
        """Make the address space what the page tables say now. A mapping whose pages and host memory are
        unchanged stays as it is (so do the tables built from the mappings, e.g. the native engine's)."""
        runs = self.pages()
        pieces = [piece for run in runs for piece in self._pieces(*run)]
        self._system = {run: self._system[run] for run in runs if run in self._system}
        wanted = set(pieces)
        with self.lock:
            for piece in self.mapped - wanted:
                self.space.unmap(piece[0])
            for piece in pieces:
                if piece not in self.mapped:
                    va, kind, host, size, writable, executable = piece
                    data = self.soc.vram[host:host + size] if kind == "vram" else client_array(host, size)
                    self.space.map(va, data, writable, name=f"gpuvm {kind}", executable=executable)
            self.mapped = wanted

    def _pieces(self, va: int, target: int, size: int, system: bool, writable: bool, executable: bool) -> list:
        """The mappings of one run: (VA, "vram" or "system", VRAM offset or host address, bytes, writable,
        executable); a system run maps each stretch of contiguous host pages apart."""
        if not system:
            if target + size <= len(self.soc.vram):
                return [(va, "vram", target, size, writable, executable)]
            log.error("gpuvm: PTE at 0x%x names VRAM 0x%x past the end of VRAM", va, target)
            return []
        run = (va, target, size, system, writable, executable)
        pieces = self._system.get(run)
        if pieces is None:
            pieces = self._system[run] = self._system_pieces(va, target, size, writable, executable)
        return pieces

    def _system_pieces(self, va: int, target: int, size: int, writable: bool, executable: bool) -> list:
        pieces: list = []
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
                pieces.append((run_va, "system", run_host, run_bytes, writable, executable))
            run_va, run_host, run_bytes = va + offset, host, PAGE if host is not None else 0
        if run_host is not None:
            pieces.append((run_va, "system", run_host, run_bytes, writable, executable))
        return pieces

    def system_unmapped(self, address: int, size: int) -> None:
        """The client gave back host memory: mappings of it go at once, as the kernel's MMU notifier
        takes them from the IOMMU, so the GPU never touches memory the process no longer has (an
        access there is a VM fault); the next invalidation resolves those pages again."""
        def inside(piece) -> bool:
            return piece[1] == "system" and piece[2] < address + size and address < piece[2] + piece[3]
        self._system = {run: pieces for run, pieces in self._system.items() if not any(map(inside, pieces))}
        with self.lock:
            for piece in [piece for piece in self.mapped if inside(piece)]:
                self.mapped.discard(piece)
                self.space.unmap(piece[0])


def _page(entry: int, va: int, size: int, found: list, denied: list) -> None:
    """A page entry: a page the walk found, or (without READABLE) one it refuses."""
    if not entry & READABLE:
        denied.append((va, size))
    else:
        found.append((va, entry & ADDRESS_MASK, size, *(bool(entry & bit) for bit in (SYSTEM, WRITEABLE, EXECUTABLE))))


def _merged(pages: list) -> list[list]:
    """Pages (or runs) in VA order, each run of them contiguous in VA and target with the same bits as one."""
    runs: list[list] = []  # [VA, target, bytes, system, writable, executable]
    for va, target, size, *flags in pages:
        last = runs[-1] if runs else None
        if last and last[0] + last[2] == va and last[1] + last[2] == target and last[3:] == flags:
            last[2] += size
        else:
            runs.append([va, target, size, *flags])
    return runs
