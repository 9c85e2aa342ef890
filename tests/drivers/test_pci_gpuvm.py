"""MOCKPCI's GPUVM (gpubench/emu/soc/mmu.py) on page tables written by hand in a small SoC's VRAM:
every invalidation makes the GPU's address space what the tables say now, also where a page table
the last walk read has changed since; mappings of unchanged pages stay; host memory the client
unmaps leaves the GPU's address space at once (the MMU notifier), so the GPU faults there instead
of touching memory the process gave back."""
from __future__ import annotations

import ctypes
import threading

import numpy as np
import pytest

from gpubench.emu.memory import AddressSpace, PageFault
from gpubench.emu.soc import mmu
from gpubench.emu.soc.chips import GC
from tests.drivers.test_pci_soc import small_soc

ROOT, PDB1, PDB0, PTB = 0x10_0000, 0x10_1000, 0x10_2000, 0x10_3000  # one table per level, in VRAM
VA = 0x40_0000_0000  # the GPU address the tables map (PAGE_TABLE_START_ADDR is 0)
READ_WRITE = mmu.VALID | mmu.READABLE | mmu.WRITEABLE


class Tables:
    def __init__(self, host_pages: dict[int, int] | None = None):
        self.soc = small_soc("gfx1100")
        self.space = AddressSpace()
        self.host_pages = host_pages or {}
        self.vm = mmu.GPUVM(self.soc, self.space, threading.Lock(), self.host_pages.get)
        self.entries = self.soc.vram.view(np.uint64)
        registers = {"PAGE_TABLE_BASE_ADDR_LO32": ROOT | 1, "PAGE_TABLE_BASE_ADDR_HI32": 0,
                     "PAGE_TABLE_START_ADDR_LO32": 0, "PAGE_TABLE_START_ADDR_HI32": 0, "CNTL": 1}
        for name, value in registers.items():
            self.soc.registers.store(self.soc.address(GC, f"GCVM_CONTEXT0_{name}"), value)
        index = [(VA >> shift) & 511 for shift in mmu.LEVEL_SHIFTS]
        for table, below, level in ((ROOT, PDB1, 0), (PDB1, PDB0, 1), (PDB0, PTB, 2)):
            self.entries[table // 8 + index[level]] = below | mmu.VALID
        self.first = index[3]

    def pte(self, page: int, value: int) -> None:
        self.entries[PTB // 8 + self.first + page] = value

    def translate(self, va: int):
        """(VRAM offset or host address, writable) of a GPU address, or None where it faults."""
        mapping = self.space.find(va)
        if mapping is None:
            return None
        data = mapping.data
        host = data.ctypes.data + (va - mapping.base)
        vram = self.soc.vram.ctypes.data
        return (host - vram if vram <= host < vram + len(self.soc.vram) else host), mapping.writable


def test_an_invalidation_reads_a_changed_page_table_again():
    t = Tables()
    for page in range(4):
        t.pte(page, (0x20_0000 + page * mmu.PAGE) | READ_WRITE)
    t.vm.invalidate()
    assert [t.translate(VA + page * mmu.PAGE + 8) for page in range(5)] == \
        [(0x20_0000 + page * mmu.PAGE + 8, True) for page in range(4)] + [None]
    t.pte(1, 0x30_0000 | mmu.VALID | mmu.READABLE)  # the same PTB, read by the last walk: now read-only elsewhere
    t.pte(3, 0)
    t.pte(4, 0x20_4000 | READ_WRITE)
    t.vm.invalidate()
    assert [t.translate(VA + page * mmu.PAGE) for page in range(5)] == \
        [(0x20_0000, True), (0x30_0000, False), (0x20_2000, True), None, (0x20_4000, True)]
    with pytest.raises(PageFault):
        t.space.write(np.array([VA + mmu.PAGE], np.uint64), np.zeros((1, 4), np.uint8))


def test_mappings_of_unchanged_pages_stay_as_they_are():
    t = Tables()
    t.pte(0, 0x20_0000 | READ_WRITE)
    t.pte(8, 0x28_0000 | READ_WRITE)
    t.vm.invalidate()
    before = t.space.find(VA)
    t.pte(8, 0x29_0000 | READ_WRITE)
    t.vm.invalidate()
    assert t.space.find(VA) is before
    assert t.translate(VA + 8 * mmu.PAGE) == (0x29_0000, True)


def test_host_memory_the_client_unmaps_leaves_the_gpus_address_space_at_once():
    buffer = (ctypes.c_uint8 * (4 * mmu.PAGE))()
    host = ctypes.addressof(buffer) + (-ctypes.addressof(buffer)) % mmu.PAGE  # page-aligned within it
    frames = {0x1_0000_0000 + i * mmu.PAGE: host + i * mmu.PAGE for i in range(2)}
    t = Tables(frames)
    for page, frame in enumerate(frames):
        t.pte(page, frame | READ_WRITE | mmu.SYSTEM)
    t.vm.invalidate()
    assert [t.translate(VA + page * mmu.PAGE) for page in range(2)] == [(host, True), (host + mmu.PAGE, True)]
    t.vm.system_unmapped(host + mmu.PAGE, mmu.PAGE)
    assert t.translate(VA + mmu.PAGE) is None and t.translate(VA) is None  # the mapping held both pages
    del frames[0x1_0000_0000 + mmu.PAGE]  # the frame is gone: the next walk maps only the page still there
    t.vm.invalidate()
    assert [t.translate(VA + page * mmu.PAGE) for page in range(2)] == [(host, True), None]
