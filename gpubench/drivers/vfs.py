"""Files of the emulated machine that have behaviour (a PCI device's config space, its enable
and unbind attributes, its BARs, /proc/self/pagemap), as the file interface
(drivers/kfd/fileio.py) serves them beside plain text files. One class per kind of file; a
machine's file table maps each path to a str (read-only text) or one of these."""
from __future__ import annotations

import errno
from typing import Callable


class VirtualFile:
    def read(self, offset: int, size: int | None) -> bytes:
        raise OSError(errno.EINVAL, "this file cannot be read")

    def write(self, offset: int, data: bytes) -> None:
        raise PermissionError(errno.EACCES, "this file is read-only on the emulated machine")

    def mmap(self, address: int, size: int, prot: int, flags: int, offset: int) -> int:
        raise OSError(errno.ENODEV, "this file cannot be mapped")


class Attribute(VirtualFile):
    """A sysfs attribute: reads the text `show()` returns, a write hands the text to `store`."""

    def __init__(self, show: Callable[[], str], store: Callable[[str], None] | None = None):
        self.show, self.store = show, store

    def read(self, offset: int, size: int | None) -> bytes:
        data = self.show().encode()[offset:]
        return data if size is None else data[:size]

    def write(self, offset: int, data: bytes) -> None:
        if self.store is None:
            super().write(offset, data)
        self.store(data.decode())
