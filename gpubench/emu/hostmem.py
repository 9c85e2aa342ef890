"""Host memory the emulated GPU and its client can both map: a memfd, so that a driver can place
the same bytes at an address the client chose (mmap with MAP_FIXED) while the GPU reads and writes
them through a numpy view. VRAM, GTT and the doorbell pages are made of these."""
from __future__ import annotations

import ctypes
import ctypes.util
import mmap
import os

import numpy as np

libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)  # also what native code calls (emu/native)
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.mmap.restype = ctypes.c_void_p
libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
libc.munmap.restype = ctypes.c_int
MAP_FAILED = ctypes.c_void_p(-1).value


def round_to_pages(size: int) -> int:
    return -(-max(size, 1) // mmap.PAGESIZE) * mmap.PAGESIZE


class SharedMemory:
    def __init__(self, size: int, name: str = "gpubench"):
        self.size = round_to_pages(size)
        self.fd = os.memfd_create(name, os.MFD_CLOEXEC)
        os.ftruncate(self.fd, self.size)
        self._view = mmap.mmap(self.fd, self.size)
        self.array = np.frombuffer(self._view, np.uint8)  # the GPU's view; pages are allocated lazily

    def map_into_client(self, address: int, size: int, prot: int, flags: int, offset: int = 0) -> int:
        """mmap these bytes at ``address`` (a client's hint or MAP_FIXED address) -> the address."""
        if offset + size > self.size:
            raise OSError(22, f"mapping {size} bytes at offset {offset} exceeds the {self.size}-byte object")
        result = libc.mmap(address, size, prot, (flags & ~mmap.MAP_ANONYMOUS) | mmap.MAP_SHARED, self.fd, offset)
        if result in (None, MAP_FAILED):
            errno = ctypes.get_errno()
            raise OSError(errno, os.strerror(errno))
        return result

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def client_array(address: int, size: int) -> np.ndarray:
    """A uint8 view of memory the client owns (a USERPTR allocation): the GPU reads and writes it in place."""
    return np.ctypeslib.as_array((ctypes.c_uint8 * size).from_address(address))


def anonymous_map(address: int, size: int, prot: int, flags: int) -> int:
    result = libc.mmap(address, size, prot, flags | mmap.MAP_ANONYMOUS, -1, 0)
    if result in (None, MAP_FAILED):
        errno = ctypes.get_errno()
        raise OSError(errno, os.strerror(errno))
    return result


def unmap(address: int, size: int) -> int:
    return libc.munmap(address, size)
