"""A compute queue's common packets and its repeated dispatches run natively (emu/native/packets.py,
plans.py): what a client sees is what the Python command processor gives, packet for packet."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from gpubench.drivers.kfd import abi
from gpubench.emu import launch as launch_module
from gpubench.emu.cp import pm4, pm4_native
from gpubench.emu.cp.queue import Interrupt
from gpubench.emu.executor import Watchdog
from gpubench.emu.memory import AddressSpace
from gpubench.isa.arch import ISA
from gpubench.isa.asm import assemble
from tests.drivers.kfd_client import STORE_LANE_IDS, Client, Queue, packet3, split


def kernel(client: Client, source: str):
    """A program in GPU memory and the packets that dispatch it with user SGPRs ``user`` (wave32)."""
    program, view = client.alloc(4096, abi.ALLOC_VRAM | abi.ALLOC_WRITABLE | abi.ALLOC_EXECUTABLE)

    def load(text: str) -> None:
        code = assemble(ISA.get("gfx1100"), text).data
        view[:len(code)] = np.frombuffer(code, np.uint8)

    def packets(user: list[int], groups: int = 1, block: int = 32) -> list[int]:
        rsrc1, rsrc2 = 0x3F, (len(user) << 1) | (1 << 7)  # 64 VGPRs; user SGPRs; workgroup id x
        return (packet3(pm4.SET_SH_REG, pm4.COMPUTE_PGM_LO - pm4.SH_REG_BASE, *split(program.va_addr >> 8))
                + packet3(pm4.SET_SH_REG, pm4.COMPUTE_PGM_RSRC1 - pm4.SH_REG_BASE, rsrc1, rsrc2)
                + packet3(pm4.SET_SH_REG, pm4.COMPUTE_NUM_THREAD_X - pm4.SH_REG_BASE, block, 1, 1)
                + packet3(pm4.SET_SH_REG, pm4.COMPUTE_USER_DATA_0 - pm4.SH_REG_BASE, *user)
                + packet3(pm4.DISPATCH_DIRECT, groups, 1, 1, pm4.FORCE_START_AT_000 | pm4.CS_W32_EN))
    load(source)
    return packets, load


@pytest.fixture
def python_launches(monkeypatch):
    """Dispatches the Python command processor launched."""
    launched = []
    launch = pm4.launch

    def counted(*args, **kwargs):
        launched.append(args[3])  # the program's address
        return launch(*args, **kwargs)
    monkeypatch.setattr(pm4, "launch", counted)
    return launched


def lane_ids(view: np.ndarray, groups: int, plus: int = 0) -> bool:
    return (view.view(np.uint32)[:32 * groups].reshape(groups, 32) == np.arange(32) + np.arange(groups)[:, None]
            + plus).all()


def test_a_dispatch_run_again_runs_natively_with_its_new_arguments(client, python_launches):
    queue = Queue(client, abi.QUEUE_COMPUTE)
    packets, _ = kernel(client, STORE_LANE_IDS)
    outputs = [client.alloc(4096) for _ in range(4)]
    for out, view in outputs:
        queue.submit(packets([*split(out.va_addr)], groups=3) + queue.end_of_pipe())
        assert queue.wait()[0] == queue.event.event_id
        assert lane_ids(view, 3)
    assert len(python_launches) == 1  # the first one; the others from its plan
    stats = client.driver.nodes[next(iter(client.driver.nodes))].gpu.stats()
    assert stats.dispatches == 4 and stats.wave_instructions == 4 * 3 * 6
    assert {"GLOBAL_STORE_B32", "S_ENDPGM"} <= stats.executed


def test_code_written_again_at_the_same_address_is_what_runs(client, python_launches):
    queue = Queue(client, abi.QUEUE_COMPUTE)
    packets, load = kernel(client, STORE_LANE_IDS)
    out, view = client.alloc(4096)
    for _ in range(2):
        queue.submit(packets([*split(out.va_addr)]) + queue.end_of_pipe())
        queue.wait()
    load(STORE_LANE_IDS.replace("v_add_nc_u32 v2, s2, v0", "v_add_nc_u32 v2, 100, v0"))
    queue.submit(packets([*split(out.va_addr)]) + queue.end_of_pipe())
    queue.wait()
    assert lane_ids(view, 1, plus=100)
    assert len(python_launches) == 2


def test_a_planned_dispatch_that_faults_stops_the_queue_with_the_address(client, caplog):
    queue = Queue(client, abi.QUEUE_COMPUTE)
    packets, _ = kernel(client, STORE_LANE_IDS)
    out, view = client.alloc(4096)
    queue.submit(packets([*split(out.va_addr)]) + queue.end_of_pipe())
    queue.wait()
    bad = 0xDEAD_0000
    queue.submit(packets([*split(bad)]) + queue.end_of_pipe())
    fired, data = queue.wait()
    assert fired == queue.faults.event_id
    assert data.data.memory_exception_data.va == bad
    assert "0xdead0000" in caplog.text and "global_store_b32" in caplog.text


BARRIER_THEN_STORE = """
s_barrier
v_lshlrev_b32 v1, 2, v0
v_add_nc_u32 v2, 7, v0
global_store_b32 v1, v2, s[0:1]
s_endpgm
"""


def test_a_planned_dispatch_whose_waves_stop_at_a_barrier_is_run_on_to_its_end(client, python_launches):
    queue = Queue(client, abi.QUEUE_COMPUTE)
    packets, _ = kernel(client, BARRIER_THEN_STORE)
    for _ in range(3):
        out, view = client.alloc(4096)
        queue.submit(packets([*split(out.va_addr)], block=64) + queue.end_of_pipe())  # two waves a workgroup
        assert queue.wait()[0] == queue.event.event_id
        assert (view.view(np.uint32)[:64] == np.arange(64) + 7).all()
    assert len(python_launches) == 1


ENDS_UNLESS_S2 = """
s_cmp_eq_u32 s2, 0
s_cbranch_scc1 done
spin:
s_branch spin
done:
s_endpgm
"""


def test_a_planned_dispatch_that_hangs_is_stopped_by_the_watchdog_with_its_waves(caplog):
    client = Client(watchdog=Watchdog(max_wave_instructions=100_000))
    client.acquire()
    try:
        queue = Queue(client, abi.QUEUE_COMPUTE)
        packets, _ = kernel(client, ENDS_UNLESS_S2)
        queue.submit(packets([0, 0, 0]) + queue.end_of_pipe())
        assert queue.wait()[0] == queue.event.event_id
        queue.submit(packets([0, 0, 1]) + queue.end_of_pipe())  # the same registers but a user SGPR: its plan
        assert queue.wait()[0] == queue.errors.event_id
        assert "watchdog" in caplog.text and "s_branch" in caplog.text
    finally:
        client.close()


def the_same_dispatch_three_times(client: Client) -> np.ndarray:
    """STORE_LANE_IDS dispatched three times on a new queue -> the output's view."""
    queue = Queue(client, abi.QUEUE_COMPUTE)
    packets, _ = kernel(client, STORE_LANE_IDS)
    out, view = client.alloc(4096)
    for _ in range(3):
        queue.submit(packets([*split(out.va_addr)]) + queue.end_of_pipe())
        queue.wait()
    return view


def test_a_dispatch_hook_sees_every_dispatch(client, monkeypatch):
    seen = []

    def hook(dispatch, proceed):
        seen.append(dispatch.program)
        return proceed()
    monkeypatch.setattr(launch_module, "hooks", [hook])
    view = the_same_dispatch_three_times(client)
    assert len(seen) == 3 and lane_ids(view, 1)


def test_the_reference_engine_runs_every_dispatch_in_python(client, python_launches, monkeypatch):
    monkeypatch.setenv("GPUBENCH_ENGINE", "reference")
    view = the_same_dispatch_three_times(client)
    assert len(python_launches) == 3 and lane_ids(view, 1)


# ---- packet streams: the native pass against the Python command processor ----------------------

RING_BASE, DATA_BASE, POINTERS_BASE = 0x10_0000, 0x20_0000, 0x30_0000
RING_BYTES, DATA_BYTES = 4096, 256


def _set_registers(draw, opcode: int, base: int) -> list[int]:
    first = draw(st.integers(0, 0x40)) + (0x200 if base == pm4.SH_REG_BASE else 0)
    values = draw(st.lists(st.integers(0, 2**32 - 1), min_size=1, max_size=4))
    return packet3(opcode, first, *values)


@st.composite
def native_packets(draw) -> list[int]:
    """A packet the native pass runs (or, for a few, hands to Python: the tests hold either way)."""
    kind = draw(st.sampled_from(["sh", "uconfig", "nop", "filler", "acquire", "event", "release", "wait_memory",
                                 "wait_register", "write_then_wait", "write_data"]))
    offset = 8 * draw(st.integers(0, DATA_BYTES // 8 - 1))
    if kind == "sh":
        return _set_registers(draw, pm4.SET_SH_REG, pm4.SH_REG_BASE)
    if kind == "uconfig":
        return _set_registers(draw, pm4.SET_UCONFIG_REG, pm4.UCONFIG_REG_BASE)
    if kind == "nop":
        return packet3(pm4.NOP, *draw(st.lists(st.integers(0, 2**32 - 1), min_size=1, max_size=3)))
    if kind == "filler":
        return [2 << 30]
    if kind == "acquire":
        return packet3(pm4.ACQUIRE_MEM, 0, 0xFFFFFFFF, 0xFFFFFFFF, 0, 0, 0, 10)
    if kind == "event":
        return packet3(pm4.EVENT_WRITE, draw(st.integers(0, 0x7FF)))
    if kind == "release":
        data_sel, int_sel = draw(st.sampled_from([0, 1, 2])), draw(st.sampled_from([0, 2]))
        return packet3(pm4.RELEASE_MEM, 0x514, (data_sel << 29) | (int_sel << 24), *split(DATA_BASE + offset),
                       draw(st.integers(0, 2**32 - 1)), draw(st.integers(0, 2**32 - 1)), draw(st.integers(0, 99)))
    if kind == "write_data":  # Python's: the pass stops at it and goes on after it
        return packet3(pm4.WRITE_DATA, 5 << 8, *split(DATA_BASE + offset), draw(st.integers(0, 2**32 - 1)))
    # WAIT_REG_MEM with FUNCTION 0 (always) or 3 (equal) on a value it is known to hold
    function = draw(st.sampled_from([0, 3]))
    if kind == "wait_memory":
        return packet3(pm4.WAIT_REG_MEM, function | (1 << 4), *split(DATA_BASE + DATA_BYTES), 0, 0xFFFFFFFF, 4)
    if kind == "wait_register":
        return packet3(pm4.WAIT_REG_MEM, function, 0xE00, 0, 0, 0xFFFFFFFF, 4)
    return packet3(pm4.WAIT_REG_MEM, function | (1 << 6), 0xE26, 0xE27, draw(st.integers(0, 2**32 - 1)),
                   0xFFFFFFFF, 4)


def run_stream(words: list[int], native: bool, monkeypatch) -> tuple:
    """The stream on a queue of its own -> (registers, data, interrupts, read pointer, packets)."""
    memory = AddressSpace()
    ring, data, pointers = (memory.map(base, size).data for base, size in
                            ((RING_BASE, RING_BYTES), (DATA_BASE, DATA_BYTES + 8), (POINTERS_BASE, 16)))
    ring.view(np.uint32)[:len(words)] = words
    doorbell = np.zeros(1, np.uint64)
    raised: list[Interrupt] = []
    queue = pm4.PM4Queue(0, memory, RING_BASE, RING_BYTES, POINTERS_BASE, POINTERS_BASE + 8, doorbell, 0,
                         raised.append, target="gfx1100", arch="rdna3", lds_bytes=65536, watchdog=Watchdog())
    stops = []
    run = pm4_native.NativePackets.run

    def counted(self, q, write_pointer):
        stops.append(run(self, q, write_pointer))
        return stops[-1]
    monkeypatch.setattr(pm4_native.NativePackets, "run", counted)
    monkeypatch.setattr(pm4_native.NativePackets, "usable", lambda self, q: native)
    doorbell[0] = len(words)
    queue.process()
    assert queue.error is None, queue.error
    assert bool(stops) == native
    return (queue.registers.copy(), data.copy(), raised, queue.read_pointer, queue.stats.packets,
            int(pointers.view(np.uint64)[0]))


@settings(max_examples=60, deadline=None)
@given(st.lists(native_packets(), min_size=1, max_size=12))
def test_a_stream_of_common_packets_leaves_what_the_python_command_processor_leaves(stream):
    words = [w for packet in stream for w in packet]
    with pytest.MonkeyPatch.context() as monkeypatch:
        native = run_stream(words, True, monkeypatch)
    with pytest.MonkeyPatch.context() as monkeypatch:
        python = run_stream(words, False, monkeypatch)
    registers, data, raised, read_pointer, packets, reported = native
    assert (registers == python[0]).all()
    assert (data == python[1]).all()
    assert raised == python[2]
    assert (read_pointer, packets, reported) == python[3:] == (len(words), len(stream), len(words))


def test_a_wait_not_yet_satisfied_holds_the_native_pass_on_its_packet(monkeypatch):
    wait = packet3(pm4.WAIT_REG_MEM, 3 | (1 << 4), *split(DATA_BASE), 5, 0xFFFFFFFF, 4)
    then = packet3(pm4.RELEASE_MEM, 0, 1 << 29, *split(DATA_BASE + 8), 1, 0, 0)
    memory = AddressSpace()
    ring, data = memory.map(RING_BASE, RING_BYTES).data, memory.map(DATA_BASE, DATA_BYTES).data
    memory.map(POINTERS_BASE, 16)
    ring.view(np.uint32)[:len(wait + then)] = wait + then
    doorbell = np.array([len(wait + then)], np.uint64)
    queue = pm4.PM4Queue(0, memory, RING_BASE, RING_BYTES, POINTERS_BASE, POINTERS_BASE + 8, doorbell, 0,
                         lambda interrupt: None, target="gfx1100", arch="rdna3", lds_bytes=65536, watchdog=Watchdog())
    assert queue.native.usable(queue)
    queue.process()
    assert queue.waiting and queue.read_pointer == 0 and data.view(np.uint32)[2] == 0
    data.view(np.uint32)[0] = 5
    queue.process()
    assert not queue.waiting and queue.read_pointer == len(wait + then) and data.view(np.uint32)[2] == 1
