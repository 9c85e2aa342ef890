"""copy_from_user / copy_to_user for the mock driver: reads and writes of the client's memory
through /proc/self/mem, so that a bad pointer in an ioctl argument is EFAULT (as in the kernel)
and never a crash of the process."""
from __future__ import annotations

import errno
import os

_fd: int | None = None


def _mem() -> int:
    global _fd
    if _fd is None:
        _fd = os.open("/proc/self/mem", os.O_RDWR | os.O_CLOEXEC)
    return _fd


def read(address: int, size: int) -> bytes:
    try:
        data = os.pread(_mem(), size, address) if size else b""
    except (OSError, OverflowError):
        data = b""
    if len(data) != size:
        raise OSError(errno.EFAULT, f"bad address 0x{address:x} ({size} bytes)")
    return data


def write(address: int, data: bytes) -> None:
    try:
        written = os.pwrite(_mem(), data, address) if data else 0
    except (OSError, OverflowError):
        written = -1
    if written != len(data):
        raise OSError(errno.EFAULT, f"bad address 0x{address:x} ({len(data)} bytes)")
