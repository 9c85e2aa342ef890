"""copy_from_user / copy_to_user for the mock driver: reads and writes of the client's memory with
the client's page protections, so that a bad pointer in an ioctl argument is EFAULT (as in the
kernel) and never a crash of the process.

process_vm_readv/writev on our own process do it: they fault pages in as the client's accesses
would and stop at a page the client could not read (or write), where /proc/self/mem would write
through a read-only page."""
from __future__ import annotations

import ctypes
import errno
import os

_libc = ctypes.CDLL(None, use_errno=True)


class _IOVec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("length", ctypes.c_size_t)]


for _call in (_libc.process_vm_readv, _libc.process_vm_writev):
    _call.argtypes = [ctypes.c_int, ctypes.POINTER(_IOVec), ctypes.c_ulong, ctypes.POINTER(_IOVec), ctypes.c_ulong,
                      ctypes.c_ulong]
    _call.restype = ctypes.c_ssize_t


def _transfer(call, address: int, buffer, size: int) -> None:
    if size == 0:
        return
    if address + size > 2**64:
        raise OSError(errno.EFAULT, f"bad address 0x{address:x} ({size} bytes)")
    local, remote = _IOVec(ctypes.addressof(buffer), size), _IOVec(address, size)
    if call(os.getpid(), ctypes.byref(local), 1, ctypes.byref(remote), 1, 0) != size:
        raise OSError(errno.EFAULT, f"bad address 0x{address:x} ({size} bytes)")


def read(address: int, size: int) -> bytes:
    buffer = ctypes.create_string_buffer(size)
    _transfer(_libc.process_vm_readv, address, buffer, size)
    return buffer.raw


def write(address: int, data: bytes) -> None:
    buffer = ctypes.create_string_buffer(data, len(data))
    _transfer(_libc.process_vm_writev, address, buffer, len(data))


def check_user_pages(address: int, size: int) -> None:
    """What amdkfd's hmm_range_fault of a USERPTR range demands, which the GPU then writes in place:
    every page of [address, address + size) mapped readable (EFAULT) and writable (EPERM), from
    /proc/self/maps."""
    first, end = address, address + size
    with open("/proc/self/maps") as maps:
        for line in maps:
            span, permissions = line.split(maxsplit=2)[:2]
            start, stop = (int(x, 16) for x in span.split("-"))
            if stop <= address:
                continue
            if start > address or permissions[0] != "r":
                break  # a hole, or a page the client cannot read, at `address`
            if permissions[1] != "w":
                raise OSError(errno.EPERM, f"user memory at 0x{address:x} (of 0x{first:x}+0x{size:x}) is read-only")
            address = stop
            if address >= end:
                return
    raise OSError(errno.EFAULT, f"user memory at 0x{address:x} (of 0x{first:x}+0x{size:x}) is not mapped readable")
