"""A minimal KFD client for tests: what a user-space driver does, through the mock's file interface
(ioctls with kfd_ioctl.h layouts, mmaps of BOs and doorbells), on a driver of its own."""
from __future__ import annotations

import ctypes
import mmap
import os
import struct

import numpy as np

from gpubench.drivers.kfd import abi
from gpubench.drivers.kfd.driver import KFDDriver, RenderNode
from gpubench.drivers.kfd.topology import gpu_id
from gpubench.emu import hostmem
from gpubench.emu.cp import aql, pm4
from gpubench.emu.executor import Watchdog
from gpubench.isa.arch import ISA
from gpubench.isa.asm import assemble

GPU = gpu_id(1)
READ, WRITE = 2, 1


def request(number: int, layout, direction: int = 3, size: int | None = None) -> int:
    size = ctypes.sizeof(layout) if size is None else size
    return (direction << 30) | (size << 16) | (abi.IOCTL_BASE << 8) | number


class Client:
    def __init__(self, targets=("gfx1100",), watchdog: Watchdog = Watchdog()):
        self.driver = KFDDriver(list(targets), watchdog)
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


RING = 4096
WRITE_DISPATCH_ID = 56  # amd_queue_t


def packet3(opcode: int, *body: int) -> list[int]:
    return [(3 << 30) | (opcode << 8) | ((len(body) - 1) << 16), *body]


def split(address: int) -> tuple[int, int]:
    return address & 0xFFFFFFFF, address >> 32


class Queue:
    """A queue of one kind with its ring, pointers, doorbell and an event to wait on."""

    def __init__(self, client: Client, queue_type: int, pointers=None):
        self.client = client
        self.ring, self.ring_view = client.alloc(RING)
        self.pointers, self.pointers_view = pointers or client.alloc(4096)
        self.queue_type = queue_type
        # an AQL queue's pointers are amd_queue_t's write_dispatch_id and read_dispatch_id
        read, write = (aql.READ_DISPATCH_ID, WRITE_DISPATCH_ID) if queue_type == abi.QUEUE_COMPUTE_AQL else (0, 8)
        args = client.ioctl(0x02, abi.CreateQueue(
            ring_base_address=self.ring.va_addr, ring_size=RING, gpu_id=GPU, queue_type=queue_type,
            queue_percentage=100, queue_priority=7, read_pointer_address=self.pointers.va_addr + read,
            write_pointer_address=self.pointers.va_addr + write))
        self.queue_id = args.queue_id
        self.doorbell = client.doorbells(args.doorbell_offset)[(args.doorbell_offset & 0x1FFF) // 8:]
        self.put = 0  # dwords written
        page, self.events = client.alloc(abi.SIGNAL_EVENT_LIMIT * 8)
        self.event = client.ioctl(0x08, abi.CreateEvent(event_type=abi.EVENT_SIGNAL, event_page_offset=page.handle,
                                                         auto_reset=1))
        self.faults = client.ioctl(0x08, abi.CreateEvent(event_type=abi.EVENT_MEMORY))
        self.errors = client.ioctl(0x08, abi.CreateEvent(event_type=abi.EVENT_HW_EXCEPTION))

    def submit(self, words: list[int]) -> None:
        ring = self.ring_view.view(np.uint32)
        for word in words:
            ring[self.put % (RING // 4)] = word
            self.put += 1
        self.doorbell[0] = self.put * (4 if self.queue_type == abi.QUEUE_SDMA else 1)

    def submit_aql(self, packet: bytes) -> None:
        """One 64-byte AQL packet in the next slot; the write dispatch id moves past it."""
        self.ring_view[self.put * aql.PACKET_BYTES:(self.put + 1) * aql.PACKET_BYTES] = np.frombuffer(packet, np.uint8)
        self.put += 1
        self.pointers_view.view(np.uint64)[WRITE_DISPATCH_ID // 8] = self.put
        self.doorbell[0] = self.put

    def wait(self, timeout_ms: int = 5000) -> tuple[int, abi.EventData]:
        """Wait for the signal event or a fault/error event -> (the event id that fired, its data)."""
        entries = (abi.EventData * 3)()
        for entry, event in zip(entries, (self.event, self.faults, self.errors)):
            entry.event_id = event.event_id
        result = self.client.ioctl(0x0C, abi.WaitEvents(events_ptr=ctypes.addressof(entries), num_events=3,
                                                        timeout=timeout_ms))
        if result.wait_result != abi.WAIT_COMPLETE:
            raise TimeoutError(f"no event within {timeout_ms} ms")
        fired = [e for e in entries if e.data.memory_exception_data.gpu_id or e.data.hw_exception_data.gpu_id]
        return (fired[0].event_id, fired[0]) if fired else (self.event.event_id, entries[0])

    def end_of_pipe(self) -> list[int]:
        """RELEASE_MEM raising the signal event (as HSA runtimes and tinygrad end a submission)."""
        mailbox = self.client.driver.event_page.address + 8 * self.event.event_slot_index
        return packet3(pm4.RELEASE_MEM, 0, (1 << 29) | (2 << 24), *split(mailbox), self.event.event_id, 0,
                       self.event.event_id)


def dispatch_packets(client: Client, source: str, user: list[int], groups: int = 1, block: int = 32) -> list[int]:
    code = assemble(ISA.get("gfx1100"), source).data
    program, view = client.alloc(4096, abi.ALLOC_VRAM | abi.ALLOC_WRITABLE | abi.ALLOC_EXECUTABLE)
    view[:len(code)] = np.frombuffer(code, np.uint8)
    rsrc1, rsrc2 = 0x3F << 0, (len(user) << 1) | (1 << 7)  # 64 VGPRs; user SGPRs; workgroup id x
    return (packet3(pm4.SET_SH_REG, pm4.COMPUTE_PGM_LO - pm4.SH_REG_BASE, *split(program.va_addr >> 8))
            + packet3(pm4.SET_SH_REG, pm4.COMPUTE_PGM_RSRC1 - pm4.SH_REG_BASE, rsrc1, rsrc2)
            + packet3(pm4.SET_SH_REG, pm4.COMPUTE_NUM_THREAD_X - pm4.SH_REG_BASE, block, 1, 1)
            + packet3(pm4.SET_SH_REG, pm4.COMPUTE_USER_DATA_0 - pm4.SH_REG_BASE, *user)
            + packet3(pm4.DISPATCH_DIRECT, groups, 1, 1, pm4.FORCE_START_AT_000 | pm4.CS_W32_EN))


STORE_LANE_IDS = """
v_lshlrev_b32 v1, 2, v0
s_lshl_b32 s3, s2, 7
v_add_nc_u32 v1, s3, v1
v_add_nc_u32 v2, s2, v0
global_store_b32 v1, v2, s[0:1]
s_endpgm
"""


def aql_dispatch(descriptor: int, grid=(1, 1, 1), block=(1, 1, 1), private=0, group=0) -> bytes:
    return struct.pack("<HHHHHHIIIIIQQQQ", aql.KERNEL_DISPATCH, 3, *block, 0, *grid, private, group, descriptor,
                       0, 0, 0)


def a_new_queue_runs_a_dispatch(client: Client) -> None:
    queue = Queue(client, abi.QUEUE_COMPUTE)
    out, view = client.alloc(4096)
    queue.submit(dispatch_packets(client, STORE_LANE_IDS, [*split(out.va_addr)], groups=2) + queue.end_of_pipe())
    fired, _ = queue.wait()
    assert fired == queue.event.event_id
    assert (view.view(np.uint32)[:64].reshape(2, 32) == np.arange(32) + np.arange(2)[:, None]).all()
