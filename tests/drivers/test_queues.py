"""The command processors as a client drives them: packets in a ring, a doorbell, results in
memory and events; a malformed stream or a faulting kernel stops the queue with an event the
client sees and a log line, never a hang."""
from __future__ import annotations

import mmap
import struct
import time

import numpy as np
import pytest

from gpubench.drivers.kfd import abi
from gpubench.emu import hostmem
from gpubench.emu.cp import aql, pm4, sdma
from tests.drivers.kfd_client import (GPU, RING, STORE_LANE_IDS, WRITE_DISPATCH_ID, Client, Queue,
                                      a_new_queue_runs_a_dispatch, aql_dispatch, dispatch_packets, packet3, split)


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


def test_an_interrupt_signals_the_event_it_names_only_once_its_mailbox_was_written(client):
    """amdkfd's kfd_signal_event_interrupt: a context id naming an event whose mailbox slot holds no
    value signals nothing (the scan of the slots finds none written); the next, after the write, does."""
    queue = Queue(client, abi.QUEUE_COMPUTE)
    scratch, _ = client.alloc(4096)
    event_id = queue.event.event_id
    queue.submit(packet3(pm4.RELEASE_MEM, 0, (1 << 29) | (2 << 24), *split(scratch.va_addr), event_id, 0, event_id))
    with pytest.raises(TimeoutError):
        queue.wait(timeout_ms=200)
    queue.submit(queue.end_of_pipe())
    assert queue.wait()[0] == event_id


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


def test_pm4_dispatch_runs_a_kernel(client):
    queue = Queue(client, abi.QUEUE_COMPUTE)
    out, view = client.alloc(4096)
    queue.submit(dispatch_packets(client, STORE_LANE_IDS, [*split(out.va_addr)], groups=3) + queue.end_of_pipe())
    queue.wait()
    got = view.view(np.uint32)[:96].reshape(3, 32)
    assert (got == np.arange(32) + np.arange(3)[:, None]).all()


def test_the_command_processor_counts_its_own_time_around_the_dispatches(client):
    queue = Queue(client, abi.QUEUE_COMPUTE)
    out, _ = client.alloc(4096)
    before = client.driver.nodes[GPU].gpu.stats()
    queue.submit(dispatch_packets(client, STORE_LANE_IDS, [*split(out.va_addr)]) + queue.end_of_pipe())
    queue.wait()
    after = client.driver.nodes[GPU].gpu.stats()
    emulating = after.emulation_seconds - before.emulation_seconds
    assert after.dispatches == before.dispatches + 1
    assert 0 < emulating <= after.command_processor_seconds - before.command_processor_seconds
    assert 0 < after.command_processor_cpu_seconds - before.command_processor_cpu_seconds


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
                                                  PM4_DISPATCH)), "GiB of wave state: the emulator holds at most"),
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
    monkeypatch.setitem(pm4.PACKETS, pm4.WRITE_DATA, (broken, 3))  # a packet Python runs (not the native pass)
    queue = Queue(client, abi.QUEUE_COMPUTE)
    queue.submit(packet3(pm4.WRITE_DATA, 0, 0, 0))
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


def test_an_idle_command_processor_leaves_the_interpreter_to_the_client(client):
    """Between doorbells the CP thread waits natively: it runs no Python pass over its queues (polling
    from Python made one every ~100 µs, each taking the GIL from the client), yet a doorbell rung
    after the idle stretch still runs the packets."""
    queue = Queue(client, abi.QUEUE_COMPUTE)
    queue.submit(queue.end_of_pipe())
    queue.wait()
    gpu = client.driver.nodes[GPU].gpu
    passes = []
    counted = gpu.process_queues

    def counting():
        passes.append(1)
        return counted()
    gpu.process_queues = counting
    time.sleep(0.5)
    assert len(passes) < 50  # a pass per IDLE_WAIT_SECONDS at most; polling made thousands
    target, view = client.alloc(4096)
    queue.submit(packet3(pm4.WRITE_DATA, 5 << 8, *split(target.va_addr), 5) + queue.end_of_pipe())
    queue.wait()
    assert view.view(np.uint32)[0] == 5


def test_a_queue_made_active_again_runs_the_packets_rung_while_it_was_inactive(client):
    queue = Queue(client, abi.QUEUE_COMPUTE)
    update = abi.UpdateQueue(queue_id=queue.queue_id, ring_base_address=queue.ring.va_addr, ring_size=RING,
                             queue_percentage=0, queue_priority=7)
    client.ioctl(0x07, update)
    target, view = client.alloc(4096)
    queue.submit(packet3(pm4.WRITE_DATA, 5 << 8, *split(target.va_addr), 9) + queue.end_of_pipe())
    time.sleep(0.05)
    assert view.view(np.uint32)[0] == 0, "an inactive queue ran its packets"
    update.queue_percentage = 100
    client.ioctl(0x07, update)
    queue.wait()
    assert view.view(np.uint32)[0] == 9
