"""MOCKPCI's /proc/self/pagemap: a present page has bit 63 and a frame that stays its own; a page
that is not mapped reads as 0, also in the middle of a read over a whole buffer."""
from __future__ import annotations

import ctypes
import mmap
import struct

from gpubench.drivers.pci.pagemap import PRESENT, PagemapFile, PhysicalMemory

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
_libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]


def _entries(pagemap: PagemapFile, address: int, pages: int) -> list[int]:
    return list(struct.unpack(f"<{pages}Q", pagemap.read(address // mmap.PAGESIZE * 8, pages * 8)))


def test_a_hole_in_a_buffer_reads_as_not_present_and_the_other_pages_keep_their_frames():
    pages = 4
    address = _libc.mmap(None, pages * mmap.PAGESIZE, mmap.PROT_READ | mmap.PROT_WRITE,
                         mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS, -1, 0)
    try:
        pagemap = PagemapFile(PhysicalMemory())
        whole = _entries(pagemap, address, pages)
        assert all(entry & PRESENT for entry in whole) and len(set(whole)) == pages
        assert _libc.munmap(address + 2 * mmap.PAGESIZE, mmap.PAGESIZE) == 0
        assert _entries(pagemap, address, pages) == [whole[0], whole[1], 0, whole[3]]
        assert pagemap.memory.host_address((whole[3] & ~PRESENT) * mmap.PAGESIZE + 8) == address + 3 * mmap.PAGESIZE + 8
    finally:
        _libc.munmap(address, pages * mmap.PAGESIZE)
