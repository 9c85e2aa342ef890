"""The file interface a client of the emulated machine uses: its files (read, write, listdir, mmap:
the KFD sysfs topology as text; a PCI machine's sysfs, BARs and pagemap as gpubench.drivers.vfs
files), /dev/kfd and /dev/dri/renderD* (ioctl, mmap) on a KFD machine, anonymous mmaps and
munmap. Paths outside what the mock provides are the real files.

This is what gpubench installs as tinygrad's `test.mockgpu.mockgpu.MockFileIOInterface` (see
gpubench/drivers/tinygrad.py); its method set is the one tinygrad's HCQ FileIOInterface has.
"""
from __future__ import annotations

import errno
import os

from gpubench.drivers.kfd import machine
from gpubench.drivers.kfd.driver import RenderNode
from gpubench.drivers.kfd.topology import render_minor
from gpubench.emu import hostmem

KFD_PATH, RENDER_PREFIX = "/dev/kfd", "/dev/dri/renderD"
# locking and huge pages are for DMA from physical memory: the emulated GPU reaches host memory
# through the process's own mappings, so nothing needs them (and RLIMIT_MEMLOCK would refuse them)
MAP_LOCKED, MAP_HUGETLB = 0x2000, 0x40000


def _directory_entries(path: str) -> list[str] | None:
    prefix = path.rstrip("/") + "/"
    entries = {p[len(prefix):].split("/", 1)[0] for p in machine.current().files if p.startswith(prefix)}
    return sorted(entries) if entries else None


def _not_found(path: str):
    raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), path)


class MockFileIOInterface:
    def __init__(self, path: str = "", flags: int = os.O_RDONLY, fd: int | None = None):
        self.path, self.fd, self._offset = path, fd, 0
        self.kind, self.render = "real", None
        emulated = machine.current()
        driver = emulated.driver
        if fd is not None:
            return
        if path in emulated.files:
            self.kind = "file"
        elif driver is None and path.startswith((KFD_PATH, RENDER_PREFIX)):
            _not_found(path)  # no amdkfd on a machine whose GPUs a userspace driver owns
        elif path == KFD_PATH:
            self.kind = "kfd"
        elif path.startswith(RENDER_PREFIX):
            node = next((n for n in driver.nodes.values() if path == f"{RENDER_PREFIX}{render_minor(n.index)}"), None)
            if node is None:
                _not_found(path)
            self.kind = "render"
        elif _directory_entries(path) is not None:
            self.kind = "directory"
        elif path.startswith(("/sys/devices/virtual/kfd", "/sys/class/drm/renderD", "/sys/bus/pci")):
            _not_found(path)
        if self.kind == "real":
            self.fd = os.open(path, flags)
        else:
            self.fd = os.open("/dev/null", os.O_RDONLY | os.O_CLOEXEC)  # a unique descriptor number
            if self.kind == "render":
                self.render = RenderNode(node, self.fd)

    def __del__(self):
        fd = getattr(self, "fd", None)
        if fd is not None:
            RenderNode.by_fd.pop(fd, None)
            os.close(fd)
            self.fd = None

    def ioctl(self, request: int, arg) -> int:
        if self.kind == "kfd":
            return machine.current().driver.ioctl(request, arg)
        raise OSError(errno.ENOTTY, f"ENOTTY: ioctl 0x{request:x} on {self.path} is not emulated")

    def mmap(self, start: int, size: int, prot: int, flags: int, offset: int) -> int:
        driver = machine.current().driver
        if self.kind == "kfd":
            return driver.mmap_kfd(start, size, prot, flags, offset)
        if self.kind == "render":
            return driver.mmap_render(self.render.node, start, size, prot, flags, offset)
        if self.kind == "file":
            return self._entry().mmap(start, size, prot, flags, offset)
        raise OSError(errno.ENODEV, f"ENODEV: {self.path} cannot be mapped")

    def _entry(self):
        entry = machine.current().files.get(self.path)
        if entry is None:
            _not_found(self.path)  # removed since it was opened (an unbound driver's files)
        if isinstance(entry, str):
            raise OSError(errno.ENODEV, f"ENODEV: {self.path} cannot be mapped or written")
        return entry

    def read(self, size=None, binary=False, offset=None):
        if offset is not None:
            self.seek(offset)
        if self.kind == "real":
            with open(self.fd, "rb" if binary else "r", closefd=False) as file:
                return file.read(size)
        if self.kind != "file":
            raise OSError(errno.EISDIR if self.kind == "directory" else errno.EINVAL, f"cannot read {self.path}")
        entry = machine.current().files.get(self.path)
        if isinstance(entry, str):
            text = entry[self._offset:] if size is None else entry[self._offset:self._offset + size]
            self._offset += len(text)
            return text.encode() if binary else text
        data = self._entry().read(self._offset, size)
        self._offset += len(data)
        return data if binary else data.decode()

    def write(self, content, binary=False, offset=None):
        if offset is not None:
            self.seek(offset)
        if self.kind == "file" and not isinstance(machine.current().files.get(self.path), str):
            self._entry().write(self._offset, content if binary else content.encode())
            return
        if self.kind != "real":
            raise PermissionError(errno.EACCES, f"{self.path} is read-only on the emulated machine")
        with open(self.fd, "wb" if binary else "w", closefd=False) as file:
            file.write(content)

    def listdir(self) -> list[str]:
        entries = _directory_entries(self.path)
        return entries if entries is not None else os.listdir(self.path)

    def seek(self, offset: int) -> None:
        if self.kind == "real":
            os.lseek(self.fd, offset, os.SEEK_SET)
        self._offset = offset

    @staticmethod
    def _mmap(start, size, prot, flags, fd, offset):
        raise OSError(errno.ENODEV, "mmap of a raw descriptor: use the file object's mmap")

    @staticmethod
    def anon_mmap(start, size, prot, flags, offset):
        return hostmem.anonymous_map(start, size, prot, flags & ~(MAP_LOCKED | MAP_HUGETLB))

    @staticmethod
    def munmap(address, size):
        machine.current().client_unmapped(address, size)
        return hostmem.unmap(address, size)

    @staticmethod
    def exists(path):
        emulated = machine.current()
        return (path in emulated.files or (path == KFD_PATH and emulated.driver is not None)
                or _directory_entries(path) is not None or os.path.exists(path))

    @staticmethod
    def readlink(path):
        return os.readlink(path)

    @staticmethod
    def eventfd(initval, flags=None):
        return MockFileIOInterface(fd=os.eventfd(initval, flags or 0))
