"""The command processors as a client drives them: packets in a ring, a doorbell, results in
memory and events; a malformed stream or a faulting kernel stops the queue with an event the
client sees and a log line, never a hang."""
from __future__ import annotations

import ctypes
import mmap
import struct
import time

import numpy as np
import pytest

from gpubench.drivers.kfd import abi
from gpubench.emu import hostmem
from gpubench.emu.cp import aql, pm4, sdma
from gpubench.isa.arch import ISA
from gpubench.isa.asm import assemble
from tests.drivers.kfd_client import GPU, Client

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
        assert result.wait_result == abi.WAIT_COMPLETE, "no event within the timeout"
        fired = [e for e in entries if e.data.memory_exception_data.gpu_id or e.data.hw_exception_data.gpu_id]
        return (fired[0].event_id, fired[0]) if fired else (self.event.event_id, entries[0])

    def end_of_pipe(self) -> list[int]:
        """RELEASE_MEM raising the signal event (as HSA runtimes and tinygrad end a submission)."""
        mailbox = self.client.driver.event_page.address + 8 * self.event.event_slot_index
        return packet3(pm4.RELEASE_MEM, 0, (1 << 29) | (2 << 24), *split(mailbox), self.event.event_id, 0,
                       self.event.event_id)


@pytest.fixture
def client():
    c = Client()
    c.acquire()
    yield c
    c.close()


def test_pm4_writes_memory_and_signals(client):
    queue = Queue(client, abi.QUEUE_COMPUTE)
    target, view = client.alloc(4096)
    words = view.view(np.uint32)
    queue.submit(packet3(pm4.WRITE_DATA, 5 << 8, *split(target.va_addr), 11, 22, 33)
                 + packet3(pm4.RELEASE_MEM, 0, 2 << 29, *split(target.va_addr + 16), 0x1234, 0x5678, 0)
                 + packet3(pm4.COPY_DATA, (5 << 0) | (5 << 8), 99, 0, *split(target.va_addr + 32))
                 + queue.end_of_pipe())
    fired, _ = queue.wait()
    assert fired == queue.event.event_id
    assert list(words[:3]) == [11, 22, 33]
    assert int(words[4]) | (int(words[5]) << 32) == 0x5678_0000_1234 and words[8] == 99


def test_pm4_wait_reg_mem_holds_the_queue_until_memory_changes(client):
    queue = Queue(client, abi.QUEUE_COMPUTE)
    flag, view = client.alloc(4096)
    words = view.view(np.uint32)
    queue.submit(packet3(pm4.WAIT_REG_MEM, (5 << 0) | (1 << 4), *split(flag.va_addr), 7, 0xFFFFFFFF, 4)
                 + packet3(pm4.WRITE_DATA, 5 << 8, *split(flag.va_addr + 4), 1) + queue.end_of_pipe())
    time.sleep(0.05)
    assert words[1] == 0, "the write after the wait ran before the wait was satisfied"
    words[0] = 7
    queue.wait()
    assert words[1] == 1


@pytest.mark.parametrize("stream, message", [
    ([0x1234_5678], "only type 3"),
    (packet3(0xEE, 0), "0xee"),
    (packet3(pm4.RELEASE_MEM, 0, 1 << 29), "needs 7 body dwords"),
])
def test_a_malformed_pm4_stream_stops_the_queue_with_an_event(client, caplog, stream, message):
    queue = Queue(client, abi.QUEUE_COMPUTE)
    queue.submit(stream + queue.end_of_pipe())
    fired, data = queue.wait()
    assert fired == queue.errors.event_id and data.data.hw_exception_data.gpu_id == GPU
    assert message in caplog.text and "queue stopped" in caplog.text


def test_sdma_copies_fills_and_fences(client):
    queue = Queue(client, abi.QUEUE_SDMA)
    source, source_view = client.alloc(8192)
    target, target_view = client.alloc(8192)
    source_view[:] = np.arange(8192) % 251
    mailbox = client.driver.event_page.address + 8 * queue.event.event_slot_index
    queue.submit([sdma.COPY, 5000 - 1, 0, *split(source.va_addr), *split(target.va_addr)]
                 + [sdma.CONST_FILL | (2 << 30), *split(target.va_addr + 6000), 0xA5A5A5A5, 16 - 1]
                 + [sdma.FENCE, *split(target.va_addr + 7000), 42]
                 + [sdma.FENCE, *split(mailbox), queue.event.event_id, sdma.TRAP, queue.event.event_id])
    queue.wait()
    assert (target_view[:5000] == source_view[:5000]).all() and (target_view[5000:6000] == 0).all()
    assert (target_view[6000:6016] == 0xA5).all() and target_view.view(np.uint32)[1750] == 42


def test_a_malformed_sdma_packet_stops_the_queue(client, caplog):
    queue = Queue(client, abi.QUEUE_SDMA)
    queue.submit([0x77, 0, 0, 0])
    fired, _ = queue.wait()
    assert fired == queue.errors.event_id and "SDMA opcode 119" in caplog.text


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


def test_pm4_dispatch_runs_a_kernel(client):
    queue = Queue(client, abi.QUEUE_COMPUTE)
    out, view = client.alloc(4096)
    queue.submit(dispatch_packets(client, STORE_LANE_IDS, [*split(out.va_addr)], groups=3) + queue.end_of_pipe())
    queue.wait()
    got = view.view(np.uint32)[:96].reshape(3, 32)
    assert (got == np.arange(32) + np.arange(3)[:, None]).all()


def test_a_kernel_page_fault_reaches_the_client_as_a_memory_event(client, caplog):
    queue = Queue(client, abi.QUEUE_COMPUTE)
    bad = 0xDEAD_0000
    queue.submit(dispatch_packets(client, STORE_LANE_IDS, [*split(bad)]) + queue.end_of_pipe())
    fired, data = queue.wait()
    assert fired == queue.faults.event_id
    assert data.data.memory_exception_data.va == bad and data.data.memory_exception_data.failure.NotPresent == 1
    assert "0xdead0000" in caplog.text and "global_store_b32" in caplog.text


def test_pred_exec_runs_what_xcc_0_is_selected_for_and_skips_the_rest(client):
    queue = Queue(client, abi.QUEUE_COMPUTE)
    target, view = client.alloc(4096)
    ib, ib_view = client.alloc(4096)
    write = lambda offset, value: packet3(pm4.WRITE_DATA, 5 << 8, *split(target.va_addr + offset), value)
    stream = (packet3(pm4.PRED_EXEC, (1 << 25) | 5) + write(0, 11)  # XCC 1 only: skipped
              + packet3(pm4.PRED_EXEC, (1 << 24) | 5) + write(4, 22)  # XCC 0: runs
              + write(8, 33))
    ib_view.view(np.uint32)[:len(stream)] = stream
    queue.submit(packet3(pm4.INDIRECT_BUFFER, *split(ib.va_addr), len(stream) | (1 << 23)) + queue.end_of_pipe())
    queue.wait()
    assert list(view.view(np.uint32)[:3]) == [0, 22, 33]


# ---- bad streams: each stops its own queue with the hardware's error, and the GPU goes on --------

TOP = 2**64 - 4  # a dword whose end is the end of the 64-bit address space


def aql_dispatch(descriptor: int, grid=(1, 1, 1), block=(1, 1, 1), private=0, group=0) -> bytes:
    return struct.pack("<HHHHHHIIIIIQQQQ", aql.KERNEL_DISPATCH, 3, *block, 0, *grid, private, group, descriptor,
                       0, 0, 0)


def aql_barrier(completion_signal: int) -> bytes:
    return struct.pack("<HHI5QQQ", aql.BARRIER_AND, 0, 0, 0, 0, 0, 0, 0, 0, completion_signal)


def submitted(queue_type: int, words=None, packet=None):
    """A case: a new queue of ``queue_type`` given ``words`` (PM4/SDMA) or an AQL ``packet``."""
    def case(client: Client) -> Queue:
        queue = Queue(client, queue_type)
        if packet is not None:
            descriptor, _ = client.alloc(4096)  # a zeroed kernel descriptor: what the packet says must stop it
            queue.submit_aql(packet(descriptor.va_addr))
        else:
            queue.submit(words(client))
        return queue
    return case


def sdma_indirect_ending_mid_packet(client: Client) -> list[int]:
    ib, view = client.alloc(4096)
    view.view(np.uint32)[:2] = [sdma.FENCE, 0]  # a FENCE is 4 dwords; the buffer holds 2 of them
    return [sdma.INDIRECT, *split(ib.va_addr), 2, 0, 0]


PM4_DISPATCH = pm4.FORCE_START_AT_000 | pm4.CS_W32_EN
BAD_STREAMS = {  # name -> (the event it ends with, the case, what the log names)
    "WRITE_DATA at 2^64-4": ("memory", submitted(abi.QUEUE_COMPUTE, lambda c: packet3(
        pm4.WRITE_DATA, 5 << 8, *split(TOP), 1)), "write at 0xfffffffffffffffc"),
    "RELEASE_MEM at 2^64-4": ("memory", submitted(abi.QUEUE_COMPUTE, lambda c: packet3(
        pm4.RELEASE_MEM, 0, 1 << 29, *split(TOP), 1, 0, 0)), "write at 0xfffffffffffffffc"),
    "SDMA TIMESTAMP at 2^64-4": ("memory", submitted(abi.QUEUE_SDMA, lambda c: [
        sdma.TIMESTAMP | (sdma.SUBOP_TIMESTAMP_GET << 8), *split(TOP)]), "write at 0xfffffffffffffffc"),
    "SDMA INDIRECT ending mid-packet": ("error", submitted(abi.QUEUE_SDMA, sdma_indirect_ending_mid_packet),
                                        "runs past the end of the 2-dword indirect buffer"),
    # the program lands at 0xff00000000 (COMPUTE_PGM_HI holds 8 bits), where nothing is mapped
    "COMPUTE_PGM_HI=0xffffffff": ("either", submitted(abi.QUEUE_COMPUTE, lambda c: packet3(
        pm4.SET_SH_REG, pm4.COMPUTE_PGM_HI - pm4.SH_REG_BASE, 0xFFFFFFFF)
        + packet3(pm4.DISPATCH_DIRECT, 1, 1, 1, PM4_DISPATCH)), "queue stopped"),
    "PM4 workgroup of 0xffff work-items": ("error", submitted(abi.QUEUE_COMPUTE, lambda c: dispatch_packets(
        c, STORE_LANE_IDS, [0, 0], block=0xFFFF)), "at most 1024 fit in one"),
    "PM4 grid of 0xffffffff^3 workgroups": ("error", submitted(abi.QUEUE_COMPUTE, lambda c: dispatch_packets(
        c, STORE_LANE_IDS, [0, 0])[:-5] + packet3(pm4.DISPATCH_DIRECT, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF,
                                                  PM4_DISPATCH)), "internal emulator error"),
    "AQL workgroup_size_x=0": ("error", submitted(abi.QUEUE_COMPUTE_AQL, packet=lambda d: aql_dispatch(
        d, block=(0, 1, 1))), "sizes must be at least 1"),
    "AQL grid 0xffffffff, workgroup 0xffff": ("error", submitted(abi.QUEUE_COMPUTE_AQL, packet=lambda d: aql_dispatch(
        d, grid=(0xFFFFFFFF, 1, 1), block=(0xFFFF, 1, 1))), "at most 1024 fit in one"),
    "AQL group segment 0xffffffff": ("error", submitted(abi.QUEUE_COMPUTE_AQL, packet=lambda d: aql_dispatch(
        d, group=0xFFFFFFFF)), "4294967295 bytes of LDS per workgroup: the GPU has 65536"),
    "AQL private segment 0xffffffff": ("error", submitted(abi.QUEUE_COMPUTE_AQL, packet=lambda d: aql_dispatch(
        d, private=0xFFFFFFFF)), "4294967295 bytes of scratch per work-item"),
    # the signal's value is read at signal + 8, which wraps to 0 as the packet processor's adder does
    "AQL completion signal at 2^64-8": ("memory", submitted(abi.QUEUE_COMPUTE_AQL, packet=lambda d: aql_barrier(
        2**64 - 8)), "read at 0x0 "),
}


def a_new_queue_runs_a_dispatch(client: Client) -> None:
    queue = Queue(client, abi.QUEUE_COMPUTE)
    out, view = client.alloc(4096)
    queue.submit(dispatch_packets(client, STORE_LANE_IDS, [*split(out.va_addr)], groups=2) + queue.end_of_pipe())
    fired, _ = queue.wait()
    assert fired == queue.event.event_id
    assert (view.view(np.uint32)[:64].reshape(2, 32) == np.arange(32) + np.arange(2)[:, None]).all()


@pytest.mark.parametrize("name", BAD_STREAMS)
def test_a_bad_stream_stops_its_queue_and_a_new_queue_on_the_gpu_still_runs(client, caplog, name):
    expected, case, logged = BAD_STREAMS[name]
    queue = case(client)
    fired, _ = queue.wait()
    kinds = {"memory": {queue.faults.event_id}, "error": {queue.errors.event_id},
             "either": {queue.faults.event_id, queue.errors.event_id}}[expected]
    assert fired in kinds, caplog.text
    assert "queue stopped" in caplog.text and logged in caplog.text
    a_new_queue_runs_a_dispatch(client)


def test_any_emulator_failure_is_a_queue_error_not_a_dead_command_processor(client, caplog, monkeypatch):
    def broken(queue, body, depth):
        raise KeyError("a gap in the emulator")
    monkeypatch.setitem(pm4.PACKETS, pm4.NOP, (broken, 0))
    queue = Queue(client, abi.QUEUE_COMPUTE)
    queue.submit(packet3(pm4.NOP, 0))
    fired, _ = queue.wait()
    assert fired == queue.errors.event_id
    assert "internal emulator error: KeyError" in caplog.text and "Traceback" in caplog.text
    monkeypatch.undo()
    a_new_queue_runs_a_dispatch(client)


def test_an_aql_queue_whose_write_pointer_is_gone_stops_with_a_memory_fault(client):
    size = 4096
    address = hostmem.anonymous_map(0, size, 3, mmap.MAP_PRIVATE)
    pointers = client.ioctl(0x16, abi.AllocMemoryOfGpu(va_addr=address, size=size, gpu_id=GPU, mmap_offset=address,
                                                       flags=abi.ALLOC_USERPTR | abi.ALLOC_WRITABLE))
    client.map(pointers.handle)
    queue = Queue(client, abi.QUEUE_COMPUTE_AQL, pointers=(pointers, hostmem.client_array(address, size)))
    client.driver.client_unmapped(address, size)  # the client munmaps it: the GPU mapping goes first
    queue.doorbell[0] = 1
    fired, data = queue.wait()
    assert fired == queue.faults.event_id
    assert data.data.memory_exception_data.va == address + WRITE_DISPATCH_ID
    a_new_queue_runs_a_dispatch(client)
