"""The command processors as a client drives them: packets in a ring, a doorbell, results in
memory and events; a malformed stream or a faulting kernel stops the queue with an event the
client sees and a log line, never a hang."""
from __future__ import annotations

import ctypes
import time

import numpy as np
import pytest

from gpubench.drivers.kfd import abi
from gpubench.emu.cp import pm4, sdma
from gpubench.isa.arch import ISA
from gpubench.isa.asm import assemble
from tests.drivers.kfd_client import GPU, Client

RING = 4096


def packet3(opcode: int, *body: int) -> list[int]:
    return [(3 << 30) | (opcode << 8) | ((len(body) - 1) << 16), *body]


def split(address: int) -> tuple[int, int]:
    return address & 0xFFFFFFFF, address >> 32


class Queue:
    """A queue of one kind with its ring, pointers, doorbell and an event to wait on."""

    def __init__(self, client: Client, queue_type: int):
        self.client = client
        self.ring, self.ring_view = client.alloc(RING)
        self.pointers, _ = client.alloc(4096)
        self.queue_type = queue_type
        args = client.ioctl(0x02, abi.CreateQueue(
            ring_base_address=self.ring.va_addr, ring_size=RING, gpu_id=GPU, queue_type=queue_type,
            queue_percentage=100, queue_priority=7, read_pointer_address=self.pointers.va_addr,
            write_pointer_address=self.pointers.va_addr + 8))
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
