"""Every MOCKKFD ioctl with bad arguments gets amdkfd's errno; good ones do what a client relies on."""
from __future__ import annotations

import ctypes
import errno
import mmap

import pytest

from gpubench.drivers.kfd import abi
from gpubench.drivers.kfd.fileio import MockFileIOInterface
from gpubench.emu import hostmem
from tests.drivers.kfd_client import GPU, Client, request

UNMAPPED = 0x10  # an address no process has mapped
MAP_FIXED = 0x10  # Linux's; Python's mmap module does not name it


@pytest.fixture
def client():
    c = Client()
    yield c
    c.close()


@pytest.fixture
def bound(client):
    client.acquire()
    return client


def fails(code, call, *args, **kwargs):
    with pytest.raises(OSError) as caught:
        call(*args, **kwargs)
    assert caught.value.errno == code, caught.value


def test_version_is_what_the_layouts_follow(client):
    assert (client.ioctl(0x01, abi.GetVersion()).major_version, client.ioctl(0x01, abi.GetVersion()).minor_version) \
        == abi.VERSION


def test_unknown_ioctls_are_enotty_with_a_log_line(client, caplog):
    fails(errno.ENOTTY, client.driver.ioctl, request(0x7F, abi.GetVersion), abi.GetVersion())
    fails(errno.ENOTTY, client.driver.ioctl, (3 << 30) | (8 << 16) | (ord("X") << 8) | 1, abi.GetVersion())
    assert "not emulated" in caplog.text


def test_a_short_argument_reads_as_zeros(bound):
    # only 8 bytes of CREATE_QUEUE: gpu_id reads as 0, as the kernel zero-fills the rest
    fails(errno.EINVAL, bound.ioctl, 0x02, abi.CreateQueue(gpu_id=GPU, ring_size=4096), size=8)


def test_acquire_vm(client):
    fails(errno.EINVAL, client.ioctl, 0x15, abi.AcquireVm(drm_fd=client.render_fd, gpu_id=GPU + 7))
    fails(errno.EINVAL, client.ioctl, 0x15, abi.AcquireVm(drm_fd=0, gpu_id=GPU))
    client.acquire()
    client.acquire()  # the same render node again is fine


def test_memory_needs_a_vm(client):
    fails(errno.EINVAL, client.ioctl, 0x16, abi.AllocMemoryOfGpu(va_addr=1 << 32, size=4096, gpu_id=GPU,
                                                                 flags=abi.ALLOC_VRAM))


@pytest.mark.parametrize("flags", [0, abi.ALLOC_VRAM | abi.ALLOC_GTT, abi.ALLOC_WRITABLE])
def test_alloc_needs_exactly_one_domain(bound, flags):
    fails(errno.EINVAL, bound.ioctl, 0x16, abi.AllocMemoryOfGpu(va_addr=1 << 32, size=4096, gpu_id=GPU, flags=flags))


def test_alloc_checks_size_address_and_overlap(bound):
    alloc = lambda **kw: bound.ioctl(0x16, abi.AllocMemoryOfGpu(gpu_id=GPU, flags=abi.ALLOC_VRAM, **kw))
    fails(errno.EINVAL, alloc, va_addr=1 << 32, size=0)
    fails(errno.EINVAL, alloc, va_addr=(1 << 32) + 12, size=4096)
    fails(errno.ENOMEM, alloc, va_addr=1 << 32, size=1 << 40)
    alloc(va_addr=1 << 32, size=8192)
    fails(errno.EINVAL, alloc, va_addr=(1 << 32) + 4096, size=4096)


def test_userptr_of_unmapped_memory_is_efault(bound):
    fails(errno.EFAULT, bound.ioctl, 0x16, abi.AllocMemoryOfGpu(va_addr=1 << 32, size=4096, gpu_id=GPU,
                                                                flags=abi.ALLOC_USERPTR, mmap_offset=UNMAPPED))


def test_free_and_map_check_handles(bound):
    fails(errno.EINVAL, bound.ioctl, 0x17, abi.FreeMemoryOfGpu(handle=12345))
    fails(errno.EINVAL, bound.map, 12345)
    args, _ = bound.alloc(4096)
    fails(errno.EBUSY, bound.ioctl, 0x17, abi.FreeMemoryOfGpu(handle=args.handle))
    ids = (ctypes.c_uint32 * 1)(GPU)
    unmap = abi.MapMemoryToGpu(handle=args.handle, device_ids_array_ptr=ctypes.addressof(ids), n_devices=1)
    assert bound.ioctl(0x19, unmap).n_success == 1
    fails(errno.EINVAL, bound.ioctl, 0x19, abi.MapMemoryToGpu(handle=args.handle, device_ids_array_ptr=ctypes.addressof(ids),
                                                              n_devices=1))
    bound.ioctl(0x17, abi.FreeMemoryOfGpu(handle=args.handle))


def test_map_checks_the_device_list(bound):
    args, _ = bound.alloc(4096)
    fails(errno.EFAULT, bound.ioctl, 0x18, abi.MapMemoryToGpu(handle=args.handle, device_ids_array_ptr=UNMAPPED, n_devices=1))
    fails(errno.EINVAL, bound.ioctl, 0x18, abi.MapMemoryToGpu(handle=args.handle, device_ids_array_ptr=UNMAPPED, n_devices=0))
    fails(errno.EINVAL, bound.map, args.handle, gpus=(GPU + 5,))


def test_create_queue_checks_its_arguments(bound):
    ring, _ = bound.alloc(4096)
    pointers, _ = bound.alloc(4096)
    good = dict(ring_base_address=ring.va_addr, ring_size=4096, gpu_id=GPU, queue_type=abi.QUEUE_COMPUTE,
                queue_percentage=100, queue_priority=7, read_pointer_address=pointers.va_addr,
                write_pointer_address=pointers.va_addr + 8)
    create = lambda **kw: bound.ioctl(0x02, abi.CreateQueue(**{**good, **kw}))
    fails(errno.EINVAL, create, queue_type=9)
    fails(errno.EINVAL, create, ring_size=3000)
    fails(errno.EINVAL, create, queue_percentage=101)
    fails(errno.EINVAL, create, queue_priority=16)
    fails(errno.EINVAL, create, ring_base_address=1 << 40)
    fails(errno.EINVAL, create, read_pointer_address=UNMAPPED)
    fails(errno.EINVAL, create, gpu_id=1)
    queue = create()
    assert queue.doorbell_offset >> abi.MMAP_TYPE_SHIFT == abi.MMAP_TYPE_DOORBELL
    fails(errno.EINVAL, bound.ioctl, 0x07, abi.UpdateQueue(queue_id=queue.queue_id, ring_size=3000))
    bound.ioctl(0x03, abi.DestroyQueue(queue_id=queue.queue_id))
    fails(errno.EINVAL, bound.ioctl, 0x03, abi.DestroyQueue(queue_id=queue.queue_id))
    fails(errno.EINVAL, bound.ioctl, 0x07, abi.UpdateQueue(queue_id=queue.queue_id))


def test_events(bound):
    fails(errno.EINVAL, bound.ioctl, 0x08, abi.CreateEvent(event_type=42))
    fails(errno.EINVAL, bound.ioctl, 0x08, abi.CreateEvent(event_type=abi.EVENT_SIGNAL))  # no event page yet
    fails(errno.EINVAL, bound.ioctl, 0x08, abi.CreateEvent(event_type=abi.EVENT_SIGNAL, event_page_offset=999))
    page, _ = bound.alloc(abi.SIGNAL_EVENT_LIMIT * 8)
    event = bound.ioctl(0x08, abi.CreateEvent(event_type=abi.EVENT_SIGNAL, event_page_offset=page.handle, auto_reset=1))
    for number in (0x09, 0x0A, 0x0B):
        fails(errno.EINVAL, bound.ioctl, number, abi.EventId(event_id=event.event_id + 100))
    wait = lambda ptr, n=1, timeout=10: bound.ioctl(0x0C, abi.WaitEvents(events_ptr=ptr, num_events=n, timeout=timeout))
    entries = (abi.EventData * 1)()
    entries[0].event_id = event.event_id
    fails(errno.EFAULT, wait, UNMAPPED)
    fails(errno.EINVAL, wait, ctypes.addressof(entries), n=0)
    assert wait(ctypes.addressof(entries)).wait_result == abi.WAIT_TIMEOUT
    bound.ioctl(0x0A, abi.EventId(event_id=event.event_id))
    assert wait(ctypes.addressof(entries)).wait_result == abi.WAIT_COMPLETE
    assert wait(ctypes.addressof(entries)).wait_result == abi.WAIT_TIMEOUT  # auto reset
    entries[0].event_id = 777
    fails(errno.EINVAL, wait, ctypes.addressof(entries))
    bound.ioctl(0x09, abi.EventId(event_id=event.event_id))


def test_apertures_clocks_and_settings(bound):
    new = bound.ioctl(0x14, abi.GetProcessAperturesNew())
    assert new.num_of_nodes == 1
    fails(errno.EFAULT, bound.ioctl, 0x14, abi.GetProcessAperturesNew(kfd_process_device_apertures_ptr=UNMAPPED,
                                                                      num_of_nodes=1))
    apertures = abi.ProcessDeviceApertures()
    bound.ioctl(0x14, abi.GetProcessAperturesNew(kfd_process_device_apertures_ptr=ctypes.addressof(apertures),
                                                 num_of_nodes=1))
    assert apertures.gpu_id == GPU and apertures.lds_base == 1 << 48 and apertures.scratch_base == 2 << 48
    assert bound.ioctl(0x06, abi.GetProcessApertures()).process_apertures[0].gpu_id == GPU
    fails(errno.EINVAL, bound.ioctl, 0x05, abi.GetClockCounters(gpu_id=3))
    first = bound.ioctl(0x05, abi.GetClockCounters(gpu_id=GPU)).gpu_clock_counter
    assert bound.ioctl(0x05, abi.GetClockCounters(gpu_id=GPU)).gpu_clock_counter > first
    fails(errno.EINVAL, bound.ioctl, 0x04, abi.SetMemoryPolicy(gpu_id=GPU, default_policy=5))
    fails(errno.EINVAL, bound.ioctl, 0x11, abi.SetScratchBackingVa(gpu_id=3))
    fails(errno.EINVAL, bound.ioctl, 0x13, abi.SetTrapHandler(gpu_id=3))
    fails(errno.EINVAL, bound.ioctl, 0x23, abi.GetAvailableMemory(gpu_id=3))
    assert bound.ioctl(0x23, abi.GetAvailableMemory(gpu_id=GPU)).available > 0
    bound.ioctl(0x25, abi.RuntimeEnable())


def test_bad_mmap_offsets_are_einval(bound):
    fails(errno.EINVAL, bound.driver.mmap_kfd, 0, 4096, 3, mmap.MAP_SHARED, 12345)
    fails(errno.EINVAL, bound.driver.mmap_render, bound.render.node, 0, 4096, 3, mmap.MAP_SHARED, 12345)


def test_the_file_interface_serves_the_topology():
    nodes = MockFileIOInterface("/sys/devices/virtual/kfd/kfd/topology/nodes").listdir()
    assert nodes == ["0", "1"]
    properties = MockFileIOInterface("/sys/devices/virtual/kfd/kfd/topology/nodes/1/properties").read()
    values = dict(line.split() for line in properties.splitlines())
    assert values["gfx_target_version"] == "110000" and values["wave_front_size"] == "32"
    assert MockFileIOInterface("/sys/devices/virtual/kfd/kfd/topology/nodes/0/gpu_id").read() == "0\n"
    with pytest.raises(FileNotFoundError):
        MockFileIOInterface("/sys/devices/virtual/kfd/kfd/topology/nodes/9/gpu_id")
    with pytest.raises(OSError) as caught:
        MockFileIOInterface("/dev/kfd").ioctl(request(0x7E, abi.GetVersion), abi.GetVersion())
    assert caught.value.errno == errno.ENOTTY


def test_freeing_memory_gives_its_descriptor_back(bound):
    import os
    before = len(os.listdir("/proc/self/fd"))
    ids = (ctypes.c_uint32 * 1)(GPU)
    for _ in range(50):
        args, _ = bound.alloc(8192)
        bound.ioctl(0x19, abi.MapMemoryToGpu(handle=args.handle, device_ids_array_ptr=ctypes.addressof(ids), n_devices=1))
        bound.ioctl(0x17, abi.FreeMemoryOfGpu(handle=args.handle))
    assert len(os.listdir("/proc/self/fd")) - before < 5


def queue_buffers(bound):
    ring, _ = bound.alloc(4096)
    pointers, _ = bound.alloc(4096)
    return ring, pointers, dict(ring_base_address=ring.va_addr, gpu_id=GPU, queue_type=abi.QUEUE_COMPUTE,
                                queue_percentage=100, queue_priority=7, read_pointer_address=pointers.va_addr,
                                write_pointer_address=pointers.va_addr + 8)


def test_a_ring_smaller_than_the_minimum_is_raised_to_it_as_amdkfd_does(bound):
    ring, _, good = queue_buffers(bound)
    queue = bound.ioctl(0x02, abi.CreateQueue(ring_size=0, **good))
    assert queue.ring_size == abi.MIN_QUEUE_RING_SIZE
    hardware = bound.driver.nodes[GPU].gpu.queues[bound.driver.queues[queue.queue_id].hardware_id]
    bound.ioctl(0x07, abi.UpdateQueue(queue_id=queue.queue_id, ring_base_address=ring.va_addr, ring_size=0,
                                      queue_percentage=100))
    assert hardware.ring_size == abi.MIN_QUEUE_RING_SIZE and hardware.active
    fails(errno.EFAULT, bound.ioctl, 0x07, abi.UpdateQueue(queue_id=queue.queue_id, ring_base_address=1 << 40,
                                                           ring_size=4096, queue_percentage=100))
    bound.ioctl(0x07, abi.UpdateQueue(queue_id=queue.queue_id, ring_base_address=0, queue_percentage=100))
    assert not hardware.active  # a ring address of 0 disables the queue


def test_memory_a_queue_uses_cannot_be_unmapped_while_it_lives(bound):
    ring, pointers, good = queue_buffers(bound)
    queue = bound.ioctl(0x02, abi.CreateQueue(ring_size=4096, **good))
    ids = (ctypes.c_uint32 * 1)(GPU)
    unmap = lambda handle: bound.ioctl(0x19, abi.MapMemoryToGpu(handle=handle, device_ids_array_ptr=ctypes.addressof(ids),
                                                                n_devices=1))
    fails(errno.EBUSY, unmap, ring.handle)
    fails(errno.EBUSY, unmap, pointers.handle)
    bound.ioctl(0x03, abi.DestroyQueue(queue_id=queue.queue_id))
    assert unmap(pointers.handle).n_success == 1


def test_userptr_needs_every_page_mapped_and_writable(bound):
    base = hostmem.anonymous_map(0, 3 * 4096, 3, mmap.MAP_PRIVATE)
    userptr = lambda: bound.ioctl(0x16, abi.AllocMemoryOfGpu(va_addr=base, size=3 * 4096, gpu_id=GPU,
                                                             flags=abi.ALLOC_USERPTR, mmap_offset=base))
    hostmem.anonymous_map(base + 4096, 4096, mmap.PROT_READ, mmap.MAP_PRIVATE | MAP_FIXED)
    fails(errno.EPERM, userptr)  # hmm_range_fault asks for write access
    hostmem.unmap(base + 4096, 4096)
    fails(errno.EFAULT, userptr)  # the first and the last byte are mapped, the middle page is not
    hostmem.unmap(base, 3 * 4096)


def test_arguments_are_copied_with_the_clients_protections(client):
    page = hostmem.anonymous_map(0, 2 * 4096, mmap.PROT_READ, mmap.MAP_PRIVATE)
    hostmem.anonymous_map(page + 4096, 4096, 0, mmap.MAP_PRIVATE | MAP_FIXED)  # PROT_NONE
    fails(errno.EFAULT, client.driver.ioctl, request(0x01, abi.GetVersion), page)  # copy_to_user a read-only page
    fails(errno.EFAULT, client.driver.ioctl, request(0x05, abi.GetClockCounters), page + 4096)
    hostmem.unmap(page, 2 * 4096)


def test_huge_counts_and_sizes_are_an_errno(bound):
    fails(errno.ENOMEM, bound.ioctl, 0x0C, abi.WaitEvents(events_ptr=UNMAPPED, num_events=0xFFFFFFFF, timeout=0))
    fails(errno.ENOMEM, bound.ioctl, 0x16, abi.AllocMemoryOfGpu(va_addr=1 << 32, size=1 << 63, gpu_id=GPU,
                                                                flags=abi.ALLOC_GTT))


@pytest.mark.parametrize("va", [1 << 63, 2**64 - 4096, (1 << 47) - 4096])
def test_memory_beyond_the_gpuvm_limit_cannot_be_mapped(bound, va):
    args = bound.ioctl(0x16, abi.AllocMemoryOfGpu(va_addr=va, size=8192, gpu_id=GPU, flags=abi.ALLOC_VRAM))
    fails(errno.EINVAL, bound.map, args.handle)
