"""A minimal KFD client for tests: what a user-space driver does, through the mock's file interface
(ioctls with kfd_ioctl.h layouts, mmaps of BOs and doorbells), on a driver of its own."""
from __future__ import annotations

import ctypes
import mmap
import os

import numpy as np

from gpubench.drivers.kfd import abi
from gpubench.drivers.kfd.driver import KFDDriver, RenderNode
from gpubench.drivers.kfd.topology import gpu_id
from gpubench.emu import hostmem

GPU = gpu_id(1)
READ, WRITE = 2, 1


def request(number: int, layout, direction: int = 3, size: int | None = None) -> int:
    size = ctypes.sizeof(layout) if size is None else size
    return (direction << 30) | (size << 16) | (abi.IOCTL_BASE << 8) | number


class Client:
    def __init__(self, targets=("gfx1100",)):
        self.driver = KFDDriver(list(targets))
        self.render_fd = os.open("/dev/null", os.O_RDONLY)
        self.render = RenderNode(self.driver.nodes[GPU], self.render_fd)

    def close(self):
        RenderNode.by_fd.pop(self.render_fd, None)
        os.close(self.render_fd)
        self.driver.close()

    def ioctl(self, number: int, args, size: int | None = None):
        self.driver.ioctl(request(number, type(args), size=size), args)
        return args

    def acquire(self):
        return self.ioctl(0x15, abi.AcquireVm(drm_fd=self.render_fd, gpu_id=GPU))

    def alloc(self, size: int, flags: int = abi.ALLOC_GTT | abi.ALLOC_WRITABLE) -> tuple[abi.AllocMemoryOfGpu, np.ndarray]:
        """A BO mapped on the GPU and in this process at the same address -> (args, CPU view)."""
        size = hostmem.round_to_pages(size)
        address = hostmem.anonymous_map(0, size, 0, mmap.MAP_PRIVATE | 0x4000)  # a reservation, as clients do
        args = self.ioctl(0x16, abi.AllocMemoryOfGpu(va_addr=address, size=size, gpu_id=GPU, flags=flags))
        self.driver.mmap_render(self.render.node, address, size, 3, mmap.MAP_SHARED | 0x10, args.mmap_offset)
        self.map(args.handle)
        return args, hostmem.client_array(address, size)

    def map(self, handle: int, gpus=(GPU,)):
        ids = (ctypes.c_uint32 * len(gpus))(*gpus)
        return self.ioctl(0x18, abi.MapMemoryToGpu(handle=handle, device_ids_array_ptr=ctypes.addressof(ids),
                                                    n_devices=len(gpus)))

    def doorbells(self, offset: int) -> np.ndarray:
        base = offset & ~0x1FFF
        address = self.driver.mmap_kfd(0, 0x2000, 3, mmap.MAP_SHARED, base)
        return hostmem.client_array(address, 0x2000).view(np.uint64)
