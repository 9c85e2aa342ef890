"""PM4, SDMA and AQL streams through MOCKKFD queues: random packets, most of them of a kind the
command processor knows with fields drawn from the edges (addresses of the client's buffers, unmapped
pages, 2^64 - k, sizes of 0 or 2^30 ...), some of no kind at all, submitted as a client does (ring,
doorbell, event). The stream must end signalled, stopped with a memory fault or queue error, or
waiting (WAIT_REG_MEM, a barrier): each as the hardware does. Then a new queue on the same GPU must
run a dispatch, or the command processor counts as dead.
"""
from __future__ import annotations

import logging
import random
import struct
from dataclasses import dataclass

import numpy as np

from gpubench.drivers.kfd import abi
from gpubench.emu.cp import aql, pm4, sdma
from gpubench.emu.executor import Watchdog
from tests.drivers.kfd_client import (STORE_LANE_IDS, Client, Queue, a_new_queue_runs_a_dispatch, dispatch_packets,
                                      packet3, split)
from tools.fuzzing.campaign import Campaign
from tools.fuzzing.outcome import Kind, Outcome, documented, ran

KINDS = {"pm4": abi.QUEUE_COMPUTE, "sdma": abi.QUEUE_SDMA, "aql": abi.QUEUE_COMPUTE_AQL}
BUFFER_BYTES = 1 << 16
WAIT_MS = 1000  # a stream not done by then waits (WAIT_REG_MEM, a barrier) or runs on
WORDS = (0, 1, 2, 4, 0x10, 0xFF, 0x400, 0xFFFF, 0x10000, 0x3FFFFFFF, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFC, 0xFFFFFFFF)
PLACES = ("buffer", "buffer", "buffer_end", "ib", "program", "descriptor", "mailbox", "unmapped", "top", "zero")
AQL_SIZES = (0, 1, 32, 64, 1024, 0xFFFF)  # of a workgroup's dimension
TOP = 2**64
WATCHDOG = Watchdog(max_seconds=2.0)  # a huge dispatch stops well before the next queue's dispatch gives up


@dataclass(frozen=True)
class Address:
    """An address a field holds, named by what it points at; resolved in the worker's own client."""

    place: str
    offset: int

    def resolve(self, env: "Environment") -> int:
        return (env.bases[self.place] + self.offset) % TOP


Item = int | tuple[Address, str]  # a dword, or an address's "lo"/"hi" half


def draw_address(rng: random.Random) -> Address:
    return Address(rng.choice(PLACES), rng.choice((0, 0, 4, 8, 60, -4, -8, rng.randrange(4096) * 4)))


def draw_word(rng: random.Random) -> int:
    return rng.choice(WORDS) if rng.random() < 0.7 else rng.getrandbits(32)


def body(rng: random.Random, length: int) -> list[Item]:
    """``length`` dwords, address pairs (low dword first) at some of them."""
    items: list[Item] = []
    while len(items) < length:
        if length - len(items) >= 2 and rng.random() < 0.35:
            address = draw_address(rng)
            items += [(address, "lo"), (address, "hi")]
        else:
            items.append(draw_word(rng))
    return items


def pm4_packet(rng: random.Random) -> list[Item]:
    roll = rng.random()
    if roll < 0.05:
        return [rng.getrandbits(32)]  # any header at all
    if roll < 0.12:
        return ["dispatch", rng.choice((1, 2, 0xFFFF, 0xFFFFFFFF)), rng.choice((1, 32, 64, 1024, 1025, 0xFFFF))]
    if roll < 0.2:  # a compute register set to an edge value, a dispatch may follow
        register = rng.choice((pm4.COMPUTE_PGM_LO, pm4.COMPUTE_PGM_HI, pm4.COMPUTE_PGM_RSRC1, pm4.COMPUTE_PGM_RSRC2,
                               pm4.COMPUTE_PGM_RSRC3, pm4.COMPUTE_TMPRING_SIZE, pm4.COMPUTE_NUM_THREAD_X,
                               pm4.COMPUTE_START_X, rng.randrange(pm4.SH_REG_BASE, pm4.SH_REG_BASE + 0x400)))
        return packet3(pm4.SET_SH_REG, register - pm4.SH_REG_BASE, *[draw_word(rng) for _ in range(rng.randint(1, 3))])
    opcode, (_, minimum) = rng.choice(list(pm4.PACKETS.items())) if roll < 0.95 else (rng.randrange(256), (None, 0))
    length = max(1, minimum + rng.choice((0, 0, 0, 1, 2, -1)))
    items = body(rng, length)
    return [(3 << 30) | (opcode << 8) | ((len(items) - 1) << 16), *items]


def sdma_packet(rng: random.Random) -> list[Item]:
    (opcode, sub_op), length = rng.choice(list(sdma.LENGTHS.items()))
    if rng.random() < 0.05:
        opcode, sub_op, length = rng.randrange(256), rng.randrange(256), rng.randint(1, 8)
    header = opcode | ((sub_op or 0) << 8) | (rng.choice((0, 0, 1, 2, 3)) << 30)
    if opcode == sdma.WRITE:
        count = rng.choice((0, 1, 3))
        return [header, *body(rng, 2), count, *body(rng, count + 1)]
    return [header, *body(rng, length - 1)]


def aql_packet(rng: random.Random) -> list[Item]:
    """64 bytes as 16 dwords: a kernel dispatch, a barrier, a PM4 IB or garbage, fields from the edges."""
    kind = rng.choice((aql.KERNEL_DISPATCH, aql.KERNEL_DISPATCH, aql.BARRIER_AND, aql.BARRIER_OR,
                       aql.VENDOR_SPECIFIC, rng.randrange(256)))
    if kind == aql.KERNEL_DISPATCH:
        block = [rng.choice(AQL_SIZES) for _ in range(3)]
        grid = [b * rng.choice((1, 2)) if rng.random() < 0.8 else rng.choice((0, 1, 0xFFFFFFFF)) for b in block]
        descriptor = Address(rng.choice(("descriptor", "descriptor", "buffer", "unmapped", "top")), 0)
        return [kind | (rng.randrange(4) << 16), block[0] | (block[1] << 16), block[2], *grid,
                rng.choice((0, 16, 0xFFFFFFFF)), rng.choice((0, 1024, 0xFFFFFFFF)),
                (descriptor, "lo"), (descriptor, "hi"), *body(rng, 2), 0, 0, *body(rng, 2)]
    if kind == aql.VENDOR_SPECIFIC:
        ib = Address("ib", 0)
        return [kind | (aql.AMD_PM4_IB_FORMAT << 16), *packet3(pm4.INDIRECT_BUFFER, (ib, "lo"), (ib, "hi"),
                                                               rng.choice((1, 4, 64, 0xFFFFF))), *body(rng, 11)]
    return [kind | (rng.getrandbits(16) << 16), *body(rng, 15)]


PACKETS = {"pm4": pm4_packet, "sdma": sdma_packet, "aql": aql_packet}


@dataclass(frozen=True)
class Case:
    kind: str
    packets: tuple[tuple, ...]
    ib: tuple[tuple, ...]  # packets of the indirect buffer that the streams may point at
    descriptor: bytes  # the kernel descriptor AQL dispatches may name


def make(rng: random.Random) -> Case:
    kind = rng.choice(list(KINDS))
    draw = PACKETS[kind]
    packets = tuple(tuple(draw(rng)) for _ in range(rng.randint(1, 6)))
    ib = tuple(tuple((pm4_packet if kind != "sdma" else sdma_packet)(rng)) for _ in range(rng.randint(1, 3)))
    descriptor = bytes(64) if rng.random() < 0.5 else rng.randbytes(64)
    return Case(kind, packets, ib, descriptor)


def show(packet: tuple) -> str:
    if isinstance(packet[0], str):
        return f"PM4 dispatch of {packet[1]} groups of {packet[2]}"
    return " ".join(f"{i[0].place}{i[0].offset:+d}.{i[1]}" if isinstance(i, tuple) else f"{i:08x}" for i in packet)


def describe(case: Case) -> str:
    return (f"{case.kind} queue: {' | '.join(map(show, case.packets))}; ib: {' | '.join(map(show, case.ib))}; "
            f"descriptor {case.descriptor.hex()}")


class Environment:
    """The client's buffers a case's addresses point at."""

    def __init__(self, client: Client, queue: Queue, case: Case):
        self.client, self.queue = client, queue
        buffer, self.buffer = client.alloc(BUFFER_BYTES)
        ib, self.ib = client.alloc(4096)
        descriptor, self.descriptor = client.alloc(4096)
        self.descriptor[:64] = np.frombuffer(case.descriptor, np.uint8)
        program, view = client.alloc(4096, abi.ALLOC_VRAM | abi.ALLOC_WRITABLE | abi.ALLOC_EXECUTABLE)
        mailbox = client.driver.event_page.address + 8 * queue.event.event_slot_index
        self.bases = {"buffer": buffer.va_addr, "buffer_end": buffer.va_addr + BUFFER_BYTES, "ib": ib.va_addr,
                      "program": program.va_addr, "descriptor": descriptor.va_addr, "mailbox": mailbox,
                      "unmapped": buffer.va_addr + BUFFER_BYTES + (1 << 30), "top": TOP - 4, "zero": 0}
        words = self.words(case.ib)[:1024]
        self.ib.view(np.uint32)[:len(words)] = words

    def words(self, packets) -> list[int]:
        out: list[int] = []
        for packet in packets:
            if packet and isinstance(packet[0], str):  # ("dispatch", groups, block): a whole PM4 dispatch
                _, groups, block = packet
                out += dispatch_packets(self.client, STORE_LANE_IDS, [*split(self.bases["buffer"])], 1, 1)[:-5]
                out += packet3(pm4.SET_SH_REG, pm4.COMPUTE_NUM_THREAD_X - pm4.SH_REG_BASE, block, 1, 1)
                out += packet3(pm4.DISPATCH_DIRECT, groups, 1, 1, pm4.FORCE_START_AT_000 | pm4.CS_W32_EN)
                continue
            for item in packet:
                if isinstance(item, tuple):
                    value = item[0].resolve(self)
                    out.append(value & 0xFFFFFFFF if item[1] == "lo" else value >> 32)
                else:
                    out.append(item)
        return out


class InternalErrors(logging.Handler):
    """Log records of the command processor's internal emulator errors (a gap, not a documented stop)."""

    def __init__(self):
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        if "internal emulator error" in record.getMessage():
            self.records.append(record)


def submit(env: Environment, case: Case) -> None:
    queue = env.queue
    if case.kind != "aql":
        tail = queue.end_of_pipe() if case.kind == "pm4" else [
            sdma.FENCE, *split(env.bases["mailbox"]), queue.event.event_id, sdma.TRAP, queue.event.event_id]
        queue.submit(env.words(case.packets) + tail)
        return
    signal = env.bases["buffer"] + BUFFER_BYTES - 64  # amd_signal_t: value 1, the event's mailbox and id
    env.buffer[BUFFER_BYTES - 64:BUFFER_BYTES - 32] = np.frombuffer(
        struct.pack("<QQQI4x", 0, 1, env.bases["mailbox"], queue.event.event_id), np.uint8)
    for packet in case.packets:
        queue.submit_aql(struct.pack("<16I", *env.words([packet])))
    queue.submit_aql(struct.pack("<HHI5QQQ", aql.BARRIER_AND, 0, 0, 0, 0, 0, 0, 0, 0, signal))


def run(case: Case) -> Outcome:
    errors = InternalErrors()
    logger = logging.getLogger("gpubench.cp")
    logger.addHandler(errors)
    client = Client(watchdog=WATCHDOG)
    try:
        client.acquire()
        queue = Queue(client, KINDS[case.kind])
        submit(Environment(client, queue, case), case)
        try:
            fired, _ = queue.wait(WAIT_MS)
            outcome = ran("signalled") if fired == queue.event.event_id else \
                documented("memory fault" if fired == queue.faults.event_id else "queue error")
        except TimeoutError:
            outcome = documented("queue waits")
        if errors.records:
            record = errors.records[0]
            return Outcome(Kind.UNDOCUMENTED, "internal emulator error", logging.Formatter().format(record)[-1500:])
        try:
            a_new_queue_runs_a_dispatch(client)
        except (AssertionError, TimeoutError, OSError) as error:
            return Outcome(Kind.DEAD_CP, "a new queue does not run", f"{type(error).__name__}: {error}")
        return outcome
    finally:
        logger.removeHandler(errors)
        client.close()


CAMPAIGN = Campaign("streams", "PM4 / SDMA / AQL streams through MOCKKFD queues", make, run, describe, (),
                    timeout=60.0)
