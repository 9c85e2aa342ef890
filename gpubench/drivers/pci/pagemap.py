"""/proc/self/pagemap for the emulated machine: the "physical" frame of each client page a driver
asks about (bit 63 present, bits 0-54 the frame number), and the machine's physical memory map
back from frames to the client's pages, through which the GPU reaches system memory.

A page gets a frame the first time it is asked about and keeps it until the client unmaps it;
frames are numbered from 4 GiB up, so they never collide with the BARs' bus addresses. A page
that is not mapped reads as not present (0), as the kernel reports it.
"""
from __future__ import annotations

import ctypes
import mmap
import struct

from gpubench.drivers.vfs import VirtualFile

PRESENT = 1 << 63
FIRST_FRAME = (4 << 30) // mmap.PAGESIZE
_libc = ctypes.CDLL(None, use_errno=True)
_libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]


def _mapped(first: int, count: int) -> list[bool]:
    """Whether each of ``count`` pages from page ``first`` is mapped: one mincore over them all when
    they are (a driver reads the pagemap of a whole buffer at once), else page by page."""
    vector = (ctypes.c_ubyte * count)()
    if _libc.mincore(ctypes.c_void_p(first * mmap.PAGESIZE), count * mmap.PAGESIZE, vector) == 0:
        return [True] * count
    return [_libc.mincore(ctypes.c_void_p(page * mmap.PAGESIZE), mmap.PAGESIZE, vector) == 0
            for page in range(first, first + count)]


class PhysicalMemory:
    def __init__(self):
        self.frame_of: dict[int, int] = {}  # client page number -> frame
        self.page_of: dict[int, int] = {}  # frame -> client page number
        self._next = FIRST_FRAME

    def frame(self, page: int) -> int:
        if page not in self.frame_of:
            self.frame_of[page], self.page_of[self._next] = self._next, page
            self._next += 1
        return self.frame_of[page]

    def host_address(self, physical: int) -> int:
        """The client address behind a physical address; KeyError for a frame no page has."""
        return self.page_of[physical // mmap.PAGESIZE] * mmap.PAGESIZE + physical % mmap.PAGESIZE

    def client_unmapped(self, address: int, size: int) -> None:
        for page in range(address // mmap.PAGESIZE, -(-(address + size) // mmap.PAGESIZE)):
            frame = self.frame_of.pop(page, None)
            if frame is not None:
                del self.page_of[frame]


class PagemapFile(VirtualFile):
    def __init__(self, memory: PhysicalMemory):
        self.memory = memory

    def read(self, offset: int, size: int | None) -> bytes:
        first, count = offset // 8, (size or 8) // 8
        return struct.pack(f"<{count}Q", *(PRESENT | self.memory.frame(page) if mapped else 0
                                            for page, mapped in zip(range(first, first + count),
                                                                    _mapped(first, count))))
