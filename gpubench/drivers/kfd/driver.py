"""The amdkfd kernel driver, emulated: the ioctls of /dev/kfd and the mmaps of /dev/kfd and the
render nodes, for one client process and a machine of emulated GPUs.

Each ioctl checks its arguments as amdkfd does and fails with amdkfd's errno (an OSError, as
fcntl.ioctl raises it). Arguments are copied in and out like the kernel copies them: the
request's size field says how many bytes the client passed; fewer than the layout has read as
zero. Pointers inside arguments are read and written through usermem, with the client's page
protections (EFAULT where the client could not access them). An ioctl the mock does not know
fails with ENOTTY and a log line.
"""
from __future__ import annotations

import ctypes
import errno
import logging
import mmap
import os
import threading
import time
from dataclasses import dataclass, field

import numpy as np

from gpubench.drivers.kfd import abi, usermem
from gpubench.drivers.kfd.topology import MODELS, gpu_id, sysfs_files
from gpubench.emu.cp.queue import Interrupt, gpu_clock
from gpubench.emu.executor import Watchdog
from gpubench.emu.gpu import DOORBELLS, EmulatedGPU
from gpubench.emu.hostmem import SharedMemory, client_array, round_to_pages
from gpubench.emu.ops.segments import APERTURE_SIZE, PRIVATE_BASE, SHARED_BASE

log = logging.getLogger("gpubench.kfd")
GPUVM_BASE, GPUVM_LIMIT = 0x1000000, (1 << 47) - 1
RENDER_MMAP_BASE = 1 << 32  # render-node mmap offsets handed out for VRAM and GTT objects
RENDER_MMAP_STRIDE = 1 << 40
SYSTEM_MEMORY_BYTES = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
# WAIT_EVENTS allocates one 56-byte waiter per event with kcalloc, which fails past KMALLOC_MAX_SIZE
# (4 MiB on x86-64): more events than that are ENOMEM
MAX_WAIT_EVENTS = (4 << 20) // 56


def fail(code: int, why: str):
    log.debug("kfd: %s: %s", errno.errorcode[code], why)
    raise OSError(code, f"{errno.errorcode[code]}: {why}")


@dataclass
class MemoryObject:
    handle: int
    gpu_id: int
    address: int
    size: int
    flags: int
    data: np.ndarray  # the bytes the GPU maps (shared with the client's mappings)
    storage: SharedMemory | None  # None: client memory (USERPTR) or the GPU's doorbell page
    mmap_offset: int = 0
    mapped_on: set[int] = field(default_factory=set)


@dataclass
class Event:
    event_id: int
    event_type: int
    auto_reset: bool
    signaled: bool = False
    memory_exception: tuple | None = None  # (va, gpu_id, not_present, read_only)
    hw_exception_gpu: int = 0


@dataclass
class GPUNode:
    gpu_id: int
    index: int
    target: str
    gpu: EmulatedGPU
    drm_file: object | None = None  # the render node ACQUIRE_VM bound
    runtime: dict = field(default_factory=dict)  # scratch backing, trap handler, memory policy


@dataclass
class KFDQueue:
    node: GPUNode
    hardware_id: int
    # the memory objects holding the ring and the read and write pointers, by what they hold: while
    # the queue lives they cannot be unmapped (amdkfd's queue_refcount on their GPU mappings)
    buffers: dict[str, int]


class KFDDriver:
    def __init__(self, targets: list[str], watchdog: Watchdog = Watchdog()):
        unknown = [t for t in targets if t not in MODELS]
        if unknown:
            raise ValueError(f"MOCKKFD has no GPU model for {unknown}; known: {sorted(MODELS)}")
        self.files = sysfs_files(targets)
        self.nodes: dict[int, GPUNode] = {}
        for i, target in enumerate(targets):
            node_id = gpu_id(i + 1)
            gpu = EmulatedGPU(target, lambda interrupt, g=node_id: self._interrupt(g, interrupt),
                              MODELS[target].lds_size_in_kb * 1024, watchdog)
            self.nodes[node_id] = GPUNode(node_id, i, target, gpu)
        self.objects: dict[int, MemoryObject] = {}
        self.by_mmap_offset: dict[int, MemoryObject] = {}
        self.events: dict[int, Event] = {}
        self.event_page: MemoryObject | None = None
        self.queues: dict[int, KFDQueue] = {}  # by KFD queue id
        self.changed = threading.Condition()
        self._next_handle = 1
        self._next_queue = 0
        self._next_other_event = abi.SIGNAL_EVENT_LIMIT  # ids of non-signal events follow the signal slots

    # ---- ioctl entry -----------------------------------------------------------------------

    def ioctl(self, request: int, arg) -> int:
        kind, number, user_size = abi.ioctl_number(request)
        known = abi.IOCTLS.get(number) if kind == abi.IOCTL_BASE else None
        if known is None:
            log.warning("kfd: ioctl 0x%x (type %r, number 0x%x) is not emulated: ENOTTY", request, chr(kind), number)
            raise OSError(errno.ENOTTY, f"ENOTTY: /dev/kfd ioctl 0x{request:x} is not emulated")
        name, layout = known
        args = layout()
        size = min(user_size, ctypes.sizeof(layout))
        ctypes.memmove(ctypes.addressof(args), _read_arg(arg, size), size)
        getattr(self, "_" + name.lower())(args)
        _write_arg(arg, bytes(args)[:size])
        return 0

    def node(self, node_id: int) -> GPUNode:
        node = self.nodes.get(node_id)
        if node is None:
            fail(errno.EINVAL, f"no GPU with gpu_id {node_id}")
        return node

    def bound_node(self, node_id: int) -> GPUNode:
        node = self.node(node_id)
        if node.drm_file is None:
            fail(errno.EINVAL, f"gpu_id {node_id}: ACQUIRE_VM has not been called")
        return node

    # ---- process, apertures, clocks ----------------------------------------------------------

    def _get_version(self, args):
        args.major_version, args.minor_version = abi.VERSION

    def _acquire_vm(self, args):
        node = self.node(args.gpu_id)
        drm_file = RenderNode.by_fd.get(args.drm_fd)
        if drm_file is None or drm_file.node is not node:
            fail(errno.EINVAL, f"drm_fd {args.drm_fd} is not an open render node of gpu_id {args.gpu_id}")
        if node.drm_file is not None and node.drm_file is not drm_file:
            fail(errno.EBUSY, f"gpu_id {args.gpu_id} already has a VM from another render node file")
        node.drm_file = drm_file

    def _runtime_enable(self, args):
        pass  # the debugger runtime: nothing to enable on the emulator (capabilities stay 0)

    def apertures(self) -> list:
        return [abi.ProcessDeviceApertures(SHARED_BASE, SHARED_BASE + APERTURE_SIZE - 1, PRIVATE_BASE,
                                           PRIVATE_BASE + APERTURE_SIZE - 1, GPUVM_BASE, GPUVM_LIMIT, n.gpu_id)
                for n in self.nodes.values()]

    def _get_process_apertures(self, args):
        found = self.apertures()[:abi.MAX_APERTURE_NODES]
        for i, aperture in enumerate(found):
            args.process_apertures[i] = aperture
        args.num_of_nodes = len(found)

    def _get_process_apertures_new(self, args):
        found = self.apertures()
        if args.num_of_nodes == 0:
            args.num_of_nodes = len(found)
            return
        found = found[:args.num_of_nodes]
        usermem.write(args.kfd_process_device_apertures_ptr, b"".join(bytes(a) for a in found))
        args.num_of_nodes = len(found)

    def _get_clock_counters(self, args):
        self.node(args.gpu_id)
        args.gpu_clock_counter = gpu_clock()
        args.cpu_clock_counter = time.clock_gettime_ns(time.CLOCK_MONOTONIC_RAW)
        args.system_clock_counter = time.clock_gettime_ns(time.CLOCK_BOOTTIME)
        args.system_clock_freq = 1_000_000_000

    def _set_memory_policy(self, args):
        node = self.node(args.gpu_id)
        if args.default_policy > 1 or args.alternate_policy > 1:
            fail(errno.EINVAL, "cache policy must be coherent (0) or non-coherent (1)")
        node.runtime["memory_policy"] = (args.default_policy, args.alternate_policy)

    def _set_scratch_backing_va(self, args):
        self.bound_node(args.gpu_id).runtime["scratch_backing_va"] = args.va_addr

    def _set_trap_handler(self, args):
        self.bound_node(args.gpu_id).runtime["trap_handler"] = (args.tba_addr, args.tma_addr)

    def _available_memory(self, args):
        node = self.node(args.gpu_id)
        used = sum(o.size for o in self.objects.values() if o.gpu_id == node.gpu_id and o.flags & abi.ALLOC_VRAM)
        args.available = MODELS[node.target].vram_bytes - used

    # ---- memory ------------------------------------------------------------------------------

    def _alloc_memory_of_gpu(self, args):
        node = self.bound_node(args.gpu_id)
        domain = args.flags & abi.ALLOC_DOMAINS
        if bin(domain).count("1") != 1:
            fail(errno.EINVAL, f"flags 0x{args.flags:x} must name exactly one memory domain")
        if args.size == 0 or args.va_addr % mmap.PAGESIZE:
            fail(errno.EINVAL, f"size 0x{args.size:x} must be non-zero and va_addr 0x{args.va_addr:x} page aligned")
        size = round_to_pages(args.size)  # the GPU maps whole pages
        if domain == abi.ALLOC_VRAM and args.size > MODELS[node.target].vram_bytes:
            fail(errno.ENOMEM, f"0x{args.size:x} bytes exceed the GPU's VRAM")
        if any(o.gpu_id == node.gpu_id and o.address < args.va_addr + size and args.va_addr < o.address + o.size
               for o in self.objects.values()):
            fail(errno.EINVAL, f"va 0x{args.va_addr:x}+0x{size:x} overlaps another allocation of this GPU")
        storage = None
        if domain == abi.ALLOC_USERPTR:
            usermem.check_user_pages(args.mmap_offset, size)
            data = client_array(args.mmap_offset, size)
        elif domain == abi.ALLOC_DOORBELL:
            if size > DOORBELLS * 8:
                fail(errno.EINVAL, "a doorbell allocation is at most the doorbell pages")
            data = node.gpu.doorbell_page.array[:size]
        else:
            if domain != abi.ALLOC_VRAM and size > SYSTEM_MEMORY_BYTES:  # amdkfd's system memory limit
                fail(errno.ENOMEM, f"0x{size:x} bytes exceed the system memory")
            storage = SharedMemory(size, f"gpubench-bo-{self._next_handle}")
            data = storage.array
        handle = (node.gpu_id << 32) | self._next_handle
        obj = MemoryObject(handle, node.gpu_id, args.va_addr, size, args.flags, data, storage)
        if storage is not None:
            obj.mmap_offset = RENDER_MMAP_BASE + self._next_handle * RENDER_MMAP_STRIDE
            self.by_mmap_offset[obj.mmap_offset] = obj
            args.mmap_offset = obj.mmap_offset
        self._next_handle += 1
        self.objects[handle] = obj
        args.handle = handle

    def memory_object(self, handle: int) -> MemoryObject:
        obj = self.objects.get(handle)
        if obj is None:
            fail(errno.EINVAL, f"no memory object with handle 0x{handle:x}")
        return obj

    def _free_memory_of_gpu(self, args):
        obj = self.memory_object(args.handle)
        if obj.mapped_on:
            fail(errno.EBUSY, f"memory object 0x{args.handle:x} is still mapped on GPUs {sorted(obj.mapped_on)}")
        del self.objects[args.handle]
        self.by_mmap_offset.pop(obj.mmap_offset, None)
        if obj.storage is not None:
            obj.storage.close()  # the descriptor; mappings of it live on until unmapped
        if self.event_page is obj:
            self.event_page = None

    def _device_ids(self, args) -> list[int]:
        if args.n_devices == 0 or args.n_devices > len(self.nodes) or args.n_success > args.n_devices:
            fail(errno.EINVAL, f"n_devices {args.n_devices} (n_success {args.n_success}) for {len(self.nodes)} GPUs")
        raw = usermem.read(args.device_ids_array_ptr, 4 * args.n_devices)
        return list(np.frombuffer(raw, np.uint32))

    def _map_memory_to_gpu(self, args):
        obj = self.memory_object(args.handle)
        if obj.address + obj.size - 1 > GPUVM_LIMIT:  # amdgpu_vm_bo_map: the VA range must fit the VM
            fail(errno.EINVAL, f"va 0x{obj.address:x}+0x{obj.size:x} is beyond the GPUVM limit 0x{GPUVM_LIMIT:x}")
        for node_id in self._device_ids(args)[args.n_success:]:
            node = self.bound_node(int(node_id))
            if node.gpu_id not in obj.mapped_on:
                with node.gpu.lock:
                    node.gpu.memory.map(obj.address, obj.data, writable=True, name=f"bo 0x{obj.handle:x}")
                obj.mapped_on.add(node.gpu_id)
            args.n_success += 1

    def _unmap_memory_from_gpu(self, args):
        obj = self.memory_object(args.handle)
        for node_id in self._device_ids(args)[args.n_success:]:
            node = self.bound_node(int(node_id))
            if node.gpu_id not in obj.mapped_on:
                fail(errno.EINVAL, f"memory object 0x{obj.handle:x} is not mapped on gpu_id {node.gpu_id}")
            for queue_id, queue in self.queues.items():
                held = [what for what, handle in queue.buffers.items() if handle == obj.handle]
                if queue.node is node and held:
                    fail(errno.EBUSY, f"memory object 0x{obj.handle:x} holds the {held[0]} of queue {queue_id}")
            self._unmap(node, obj)
            args.n_success += 1

    def _unmap(self, node: GPUNode, obj: MemoryObject) -> None:
        with node.gpu.lock:
            node.gpu.memory.unmap(obj.address)
        obj.mapped_on.discard(node.gpu_id)

    def client_unmapped(self, address: int, size: int) -> None:
        """The client unmapped host memory: GPU mappings of USERPTR objects in it go first (the
        kernel's MMU notifier), so the GPU can never touch memory the process gave back."""
        for obj in list(self.objects.values()):
            if obj.flags & abi.ALLOC_USERPTR and obj.address < address + size and address < obj.address + obj.size:
                for node_id in list(obj.mapped_on):
                    self._unmap(self.nodes[node_id], obj)

    # ---- queues ------------------------------------------------------------------------------

    def _create_queue(self, args):
        node = self.bound_node(args.gpu_id)
        kinds = {abi.QUEUE_COMPUTE: "compute", abi.QUEUE_COMPUTE_AQL: "aql", abi.QUEUE_SDMA: "sdma",
                 abi.QUEUE_SDMA_XGMI: "sdma"}
        if args.queue_type not in kinds:
            fail(errno.EINVAL, f"queue type {args.queue_type}")
        if args.queue_percentage & 0xFF > abi.MAX_QUEUE_PERCENTAGE or args.queue_priority > abi.MAX_QUEUE_PRIORITY:
            fail(errno.EINVAL, f"queue percentage {args.queue_percentage & 0xFF} / priority {args.queue_priority}")
        args.ring_size = ring_size(args.ring_size)
        buffers = {what: self.mapped_object(node, what, address, size, errno.EINVAL).handle
                   for what, address, size in (("ring", args.ring_base_address, args.ring_size),
                                               ("read pointer", args.read_pointer_address, 8),
                                               ("write pointer", args.write_pointer_address, 8))}
        queue = node.gpu.create_queue(kinds[args.queue_type], args.ring_base_address, args.ring_size,
                                      args.read_pointer_address, args.write_pointer_address)
        queue.active = queue_is_active(args.ring_base_address, args.queue_percentage)
        args.queue_id = self._next_queue
        self.queues[self._next_queue] = KFDQueue(node, queue.queue_id, buffers)
        self._next_queue += 1
        args.doorbell_offset = (abi.MMAP_TYPE_DOORBELL << abi.MMAP_TYPE_SHIFT) | (node.gpu_id << abi.MMAP_GPU_ID_SHIFT) \
            | queue.doorbell_index * 8

    def mapped_object(self, node: GPUNode, what: str, address: int, size: int, code: int) -> MemoryObject:
        """The memory object mapped on ``node`` that holds ``size`` bytes at ``address``, or ``code``."""
        for obj in self.objects.values():
            if node.gpu_id in obj.mapped_on and obj.address <= address and address + size <= obj.address + obj.size:
                return obj
        fail(code, f"the queue's {what} at 0x{address:x} (0x{size:x} bytes) is not in memory mapped on the GPU")

    def kfd_queue(self, queue_id: int) -> KFDQueue:
        if queue_id not in self.queues:
            fail(errno.EINVAL, f"no queue {queue_id}")
        return self.queues[queue_id]

    def _destroy_queue(self, args):
        queue = self.kfd_queue(args.queue_id)
        queue.node.gpu.destroy_queue(queue.hardware_id)
        del self.queues[args.queue_id]

    def _update_queue(self, args):
        queue = self.kfd_queue(args.queue_id)
        if args.queue_percentage & 0xFF > abi.MAX_QUEUE_PERCENTAGE or args.queue_priority > abi.MAX_QUEUE_PRIORITY:
            fail(errno.EINVAL, "queue percentage / priority out of range")
        size = ring_size(args.ring_size)
        if args.ring_base_address:  # a ring address of 0 disables the queue and needs no memory
            ring = self.mapped_object(queue.node, "ring", args.ring_base_address, size, errno.EFAULT)
            queue.buffers["ring"] = ring.handle
        with queue.node.gpu.lock:
            hardware = queue.node.gpu.queues[queue.hardware_id]
            hardware.ring_address, hardware.ring_size = args.ring_base_address, size
            hardware.active = queue_is_active(args.ring_base_address, args.queue_percentage)
        queue.node.gpu.wake()

    # ---- events ------------------------------------------------------------------------------

    def _create_event(self, args):
        if args.event_type not in abi.EVENT_TYPES:
            fail(errno.EINVAL, f"event type {args.event_type}")
        if args.event_page_offset and self.event_page is None:
            page = self.memory_object(args.event_page_offset)
            if page.size < abi.SIGNAL_EVENT_LIMIT * 8:
                fail(errno.EINVAL, f"the event page needs {abi.SIGNAL_EVENT_LIMIT * 8} bytes, got {page.size}")
            page.data[:abi.SIGNAL_EVENT_LIMIT * 8] = 0xFF  # every slot unsignaled
            self.event_page = page
        with self.changed:
            if args.event_type == abi.EVENT_SIGNAL:
                if self.event_page is None:
                    fail(errno.EINVAL, "a signal event needs the event page (event_page_offset)")
                used = {e.event_id for e in self.events.values()}
                event_id = next((i for i in range(abi.SIGNAL_EVENT_LIMIT) if i not in used), None)
                if event_id is None:
                    fail(errno.ENOSPC, f"all {abi.SIGNAL_EVENT_LIMIT} signal event slots are in use")
                args.event_slot_index = event_id
            else:
                event_id = self._next_other_event
                self._next_other_event += 1
            self.events[event_id] = Event(event_id, args.event_type, bool(args.auto_reset))
        args.event_id = args.event_trigger_data = event_id
        args.event_page_offset = (abi.MMAP_TYPE_EVENTS << abi.MMAP_TYPE_SHIFT)

    def event(self, event_id: int) -> Event:
        event = self.events.get(event_id)
        if event is None:
            fail(errno.EINVAL, f"no event {event_id}")
        return event

    def _destroy_event(self, args):
        with self.changed:
            self.event(args.event_id)
            del self.events[args.event_id]

    def _set_event(self, args):
        with self.changed:
            self.event(args.event_id).signaled = True
            self.changed.notify_all()

    def _reset_event(self, args):
        with self.changed:
            self.event(args.event_id).signaled = False

    def _wait_events(self, args):
        if args.num_events == 0:
            fail(errno.EINVAL, "no events to wait for")
        if args.num_events > MAX_WAIT_EVENTS:
            fail(errno.ENOMEM, f"{args.num_events} events: amdkfd cannot allocate that many waiters")
        layout = abi.EventData * args.num_events
        entries = layout.from_buffer_copy(usermem.read(args.events_ptr, ctypes.sizeof(layout)))
        deadline = None if args.timeout == 0xFFFFFFFF else time.monotonic() + args.timeout / 1000
        with self.changed:
            events = [self.event(e.event_id) for e in entries]
            done = all if args.wait_for_all else any
            while not done(e.signaled for e in events):
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    break
                self.changed.wait(remaining)
            complete = done(e.signaled for e in events)
            for entry, event in zip(entries, events):
                self._report(entry, event)
                if event.signaled and event.auto_reset and complete:
                    event.signaled = False
        usermem.write(args.events_ptr, bytes(entries))
        args.wait_result = abi.WAIT_COMPLETE if complete else abi.WAIT_TIMEOUT

    @staticmethod
    def _report(entry, event: Event) -> None:
        if event.memory_exception is not None:
            va, gpu, not_present, read_only = event.memory_exception
            data = entry.data.memory_exception_data
            data.va, data.gpu_id = va, gpu
            data.failure.NotPresent, data.failure.ReadOnly, data.failure.imprecise = not_present, read_only, 0
        elif event.hw_exception_gpu:
            data = entry.data.hw_exception_data
            data.reset_type, data.reset_cause, data.memory_lost, data.gpu_id = 0, 0, 0, event.hw_exception_gpu

    # ---- interrupts from the GPUs ------------------------------------------------------------

    def _interrupt(self, node_id: int, interrupt: Interrupt) -> None:
        with self.changed:
            if interrupt.kind in ("end_of_pipe", "sdma_trap"):
                self._signal_from_interrupt(interrupt.context_id)
            elif interrupt.kind == "memory_fault":
                fault = interrupt.fault
                log.error("kfd: GPU %d memory fault at 0x%x: memory exception events signaled", node_id, fault.address)
                for event in self.events.values():
                    if event.event_type == abi.EVENT_MEMORY:
                        event.memory_exception = (fault.address, node_id, int(fault.reason != "read-only"),
                                                  int(fault.reason == "read-only"))
                        event.signaled = True
            else:
                log.error("kfd: GPU %d hardware exception: %s", node_id, interrupt.message)
                for event in self.events.values():
                    if event.event_type == abi.EVENT_HW_EXCEPTION:
                        event.hw_exception_gpu, event.signaled = node_id, True
            self.changed.notify_all()

    def _signal_from_interrupt(self, context_id: int) -> None:
        """As amdkfd's kfd_signal_event_interrupt: the signal event the interrupt's context id names,
        when its mailbox slot was written (the slot is acknowledged); else, the id naming no such
        event, every event whose slot was written."""
        event = self.events.get(context_id)
        if self.event_page is None:
            if event is not None and event.event_type == abi.EVENT_SIGNAL:
                event.signaled = True
            return
        slots = self.event_page.data[:abi.SIGNAL_EVENT_LIMIT * 8].view(np.uint64)
        if event is not None and event.event_type == abi.EVENT_SIGNAL and context_id < abi.SIGNAL_EVENT_LIMIT \
                and slots[context_id] != abi.UNSIGNALED_EVENT_SLOT:
            event.signaled, slots[context_id] = True, abi.UNSIGNALED_EVENT_SLOT
            return
        for slot in np.flatnonzero(slots != abi.UNSIGNALED_EVENT_SLOT).tolist():  # the mailboxes the queues wrote
            if slot in self.events:
                self.events[slot].signaled = True
            slots[slot] = abi.UNSIGNALED_EVENT_SLOT

    # ---- mmap ------------------------------------------------------------------------------

    def mmap_kfd(self, address: int, size: int, prot: int, flags: int, offset: int) -> int:
        kind, node_id = offset >> abi.MMAP_TYPE_SHIFT, (offset >> abi.MMAP_GPU_ID_SHIFT) & 0xFFFF
        if kind == abi.MMAP_TYPE_DOORBELL:
            page = self.node(node_id).gpu.doorbell_page
            if size > page.size:
                fail(errno.EINVAL, f"doorbell mapping of {size} bytes; there are {page.size}")
            return page.map_into_client(address, size, prot, flags)
        if kind == abi.MMAP_TYPE_EVENTS and self.event_page is not None and self.event_page.storage is not None:
            return self.event_page.storage.map_into_client(address, size, prot, flags)
        fail(errno.EINVAL, f"/dev/kfd mmap offset 0x{offset:x} names nothing")

    def mmap_render(self, node: GPUNode, address: int, size: int, prot: int, flags: int, offset: int) -> int:
        obj = self.by_mmap_offset.get(offset)
        if obj is None or obj.gpu_id != node.gpu_id:
            fail(errno.EINVAL, f"render node mmap offset 0x{offset:x} names no memory object of this GPU")
        return obj.storage.map_into_client(address, size, prot, flags)

    def close(self) -> None:
        """The process closed /dev/kfd: its GPUs stop and its memory objects' descriptors are closed
        (what the client still maps stays mapped, as after amdkfd's release)."""
        for node in self.nodes.values():
            node.gpu.close()
            node.drm_file = None  # the render node holds this node: no cycle keeps the GPU's memory
        for obj in self.objects.values():
            if obj.storage is not None:
                obj.storage.close()


def ring_size(requested: int) -> int:
    """CREATE_QUEUE's and UPDATE_QUEUE's ring size as amdkfd takes it: a power of two or 0 (EINVAL
    otherwise), and a smaller one than the minimum is raised to it."""
    if requested & (requested - 1):
        fail(errno.EINVAL, f"ring size {requested} is not a power of two or 0")
    return max(requested, abi.MIN_QUEUE_RING_SIZE)


def queue_is_active(ring_address: int, percentage: int) -> bool:
    """amdkfd's QUEUE_IS_ACTIVE: a queue without a ring or with a percentage of 0 runs nothing."""
    return ring_address != 0 and percentage & 0xFF > 0


class RenderNode:
    """An open /dev/dri/renderD* file: ACQUIRE_VM binds it, its mmaps place memory objects."""

    by_fd: dict[int, "RenderNode"] = {}

    def __init__(self, node: GPUNode, fd: int):
        self.node, self.fd = node, fd
        RenderNode.by_fd[fd] = self


def _read_arg(arg, size: int) -> bytes:
    if isinstance(arg, int):
        return usermem.read(arg, size)
    data = memoryview(arg).cast("B")
    return bytes(data[:size]).ljust(size, b"\0")


def _write_arg(arg, data: bytes) -> None:
    if isinstance(arg, int):
        usermem.write(arg, data)
        return
    view = memoryview(arg).cast("B")
    count = min(len(view), len(data))
    view[:count] = data[:count]
