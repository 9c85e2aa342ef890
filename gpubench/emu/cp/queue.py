"""What every hardware queue shares: a ring in GPU memory, read and write pointers, a doorbell,
and the errors that stop it.

A queue is processed packet by packet. A packet that must wait (WAIT_REG_MEM, POLL_REGMEM, an AQL
barrier) leaves the read pointer on itself and the scheduler comes back to it later. A malformed
packet, a page fault or a kernel that cannot run stops the queue for good (`QueueError`): the
driver is told through an interrupt, as the hardware raises one, and the client sees its wait fail.
"""
from __future__ import annotations

import logging
import struct
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from gpubench.emu.context import ExecutionError
from gpubench.emu.executor import GPUPageFault
from gpubench.emu.memory import AddressSpace, PageFault

log = logging.getLogger("gpubench.cp")
ADDRESS_MASK = 2**64 - 1
GPU_CLOCK_HZ = 100_000_000  # the "GPU clock counter" timestamps count at 100 MHz, as gfx11 reports


def gpu_clock() -> int:
    return time.perf_counter_ns() // (1_000_000_000 // GPU_CLOCK_HZ)


class QueueError(Exception):
    """A packet stream the command processor cannot go on with."""


class WaitNotSatisfied(Exception):
    """The packet at the read pointer waits for memory to change: retry it later."""


@dataclass(frozen=True)
class Interrupt:
    """What a command processor reports to the kernel driver."""

    kind: str  # "end_of_pipe" | "sdma_trap" | "memory_fault" | "queue_error"
    context_id: int = 0  # RELEASE_MEM's INT_CTXID, the SDMA TRAP's INT_CONTEXT
    fault: PageFault | None = None
    message: str = ""


@dataclass
class QueueStats:
    packets: int = 0
    dispatches: int = 0
    wave_instructions: int = 0
    emulation_seconds: float = 0.0  # running dispatches' waves
    # processing packets, dispatches included: the wall time of the passes, and the CP thread's CPU time
    # in them (what the command processor costs its host; the wall also holds waits for the GIL, which a
    # client's thread has meanwhile, while native code runs packets and waves without it)
    command_processor_seconds: float = 0.0
    command_processor_cpu_seconds: float = 0.0
    executed: set[str] = field(default_factory=set)
    by_reference: Counter = field(default_factory=Counter)  # LaunchStats.by_reference, summed

    COUNTERS = ("packets", "dispatches", "wave_instructions", "emulation_seconds", "command_processor_seconds",
                "command_processor_cpu_seconds")

    def add(self, other: "QueueStats") -> None:
        for name in self.COUNTERS:
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.executed |= other.executed
        self.by_reference.update(other.by_reference)


class GPUMemoryAccess:
    """Reads and writes of GPU virtual memory for packet processing (checked: a bad address is a
    PageFault, like a shader's). Addresses are 64-bit, as the packet processors' adders are: a
    field plus an offset past 2^64 wraps around instead of leaving the address space."""

    def __init__(self, memory: AddressSpace):
        self.memory = memory

    def read(self, address: int, size: int) -> bytes:
        return self.memory.read_bytes(address & ADDRESS_MASK, size)

    def write(self, address: int, data: bytes) -> None:
        self.memory.write_bytes(address & ADDRESS_MASK, data)

    def read32(self, address: int) -> int:
        return struct.unpack("<I", self.read(address, 4))[0]

    def read64(self, address: int) -> int:
        return struct.unpack("<Q", self.read(address, 8))[0]

    def write32(self, address: int, value: int) -> None:
        self.write(address, struct.pack("<I", value & 0xFFFFFFFF))

    def write64(self, address: int, value: int) -> None:
        self.write(address, struct.pack("<Q", value & ADDRESS_MASK))

    def dwords(self, address: int, count: int) -> np.ndarray:
        return np.frombuffer(self.read(address, 4 * count), np.uint32)


def compare(function: int, value: int, reference: int) -> bool:
    """WAIT_REG_MEM / POLL_REGMEM compare functions (FUNCTION field, 0-6)."""
    if function > 6:
        raise QueueError(f"wait compare function {function} is not defined")
    return (True, value < reference, value <= reference, value == reference, value != reference,
            value >= reference, value > reference)[function]


_NO_DWORDS: list[int] = []


class HardwareQueue:
    """Base of the three queue kinds: ring geometry, pointers in memory and the doorbell."""

    kind = ""
    pointer_unit = 4  # bytes per unit of the read/write pointers and doorbell value

    def __init__(self, queue_id: int, memory: AddressSpace, ring_address: int, ring_size: int,
                 read_pointer_address: int, write_pointer_address: int, doorbell: np.ndarray,
                 doorbell_index: int, interrupt: Callable[[Interrupt], None]):
        self.queue_id = queue_id
        self.access = GPUMemoryAccess(memory)
        self.ring_address, self.ring_size = ring_address, ring_size
        self.read_pointer_address, self.write_pointer_address = read_pointer_address, write_pointer_address
        self.doorbell, self.doorbell_index = doorbell, doorbell_index
        self.interrupt = interrupt
        self.read_pointer = 0  # in pointer units, counting up without wrapping (as the 64-bit pointers do)
        self._pending_from, self._pending_until, self._pending = 0, 0, _NO_DWORDS  # see ring_dwords
        self.error: str | None = None
        self.active = True  # amdkfd's QUEUE_IS_ACTIVE: an inactive queue keeps its packets for later
        self.waiting = False  # its next packet waits on memory (WAIT_REG_MEM, an AQL barrier ...)
        self.stats = QueueStats()

    def write_pointer(self) -> int:
        """Where the client's packets end, from the doorbell (as the hardware reads it)."""
        return int(self.doorbell[self.doorbell_index])

    def ring_dwords(self, pointer: int, count: int) -> list[int]:
        """``count`` dwords of the ring from ``pointer`` (in pointer units), wrapping at its end.
        The packets pending at the read pointer are read in one go, as the CP's prefetcher does, and
        served from that copy for the rest of the pass (process)."""
        start = pointer * self.pointer_unit - self._pending_from
        if not (0 <= start and start % 4 == 0 and start + 4 * count <= 4 * len(self._pending)):
            pending = min((self._pending_until - pointer) * self.pointer_unit, self.ring_size) // 4
            if pending < count:
                return self._read_ring(pointer, count).tolist()
            self._pending_from, start = pointer * self.pointer_unit, 0
            self._pending = self._read_ring(pointer, pending).tolist()
        return self._pending[start // 4:start // 4 + count]

    def ring_dword(self, pointer: int) -> int:
        """The dword at ``pointer``: a packet header, from the pending copy when it holds it."""
        start = pointer * self.pointer_unit - self._pending_from
        if 0 <= start < 4 * len(self._pending) and start % 4 == 0:
            return self._pending[start >> 2]
        return self.ring_dwords(pointer, 1)[0]

    def _read_ring(self, pointer: int, count: int) -> np.ndarray:
        start = (pointer * self.pointer_unit) % self.ring_size
        first = min(count, (self.ring_size - start) // 4)
        head = self.access.dwords(self.ring_address + start, first)
        if first == count:
            return head
        return np.concatenate([head, self.access.dwords(self.ring_address, count - first)])

    def process(self) -> bool:
        """Run packets until the ring is empty or one must wait; True if any ran. Never raises:
        whatever stops this queue is this queue's error, and the command processor goes on with
        the others."""
        if self.error is not None or not self.active:
            return False
        self.waiting, started_at, start, start_cpu = False, self.read_pointer, time.perf_counter(), time.thread_time()
        self._pending = _NO_DWORDS  # packets are read afresh each pass
        try:
            try:
                while self.read_pointer < (write_pointer := self.write_pointer()):
                    self._pending_until = write_pointer
                    try:
                        self.execute_pending(write_pointer)
                    except WaitNotSatisfied:
                        self.waiting = True
                        break
            finally:  # the driver sees the pass's progress once, at its end
                if self.read_pointer != started_at:
                    self.access.write64(self.read_pointer_address, self.read_pointer)
                    self.stats.command_processor_seconds += time.perf_counter() - start
                    self.stats.command_processor_cpu_seconds += time.thread_time() - start_cpu
        except PageFault as fault:
            return self.fail(str(fault), fault)
        except GPUPageFault as error:
            return self.fail(str(error), error.fault)
        except (QueueError, ExecutionError) as error:  # ExecutionError: a kernel that cannot run, the watchdog
            return self.fail(str(error))
        except Exception as error:  # anything else is a gap in the emulator: this queue stops, not the CP
            log.exception("%s queue %d: internal emulator error", self.kind, self.queue_id)
            return self.fail(f"internal emulator error: {type(error).__name__}: {error}")
        return self.read_pointer != started_at

    def fail(self, message: str, fault: PageFault | None = None) -> bool:
        self.error = f"{self.kind} queue {self.queue_id}: {message}"
        log.error("%s (queue stopped)", self.error)
        self.interrupt(Interrupt("memory_fault" if fault else "queue_error", fault=fault, message=self.error))
        return True

    def execute_pending(self, write_pointer: int) -> None:
        """Execute the packets from the read pointer to ``write_pointer``, moving the read pointer past
        each (raises WaitNotSatisfied at one that must wait, the read pointer on it)."""
        while self.read_pointer < write_pointer:
            consumed = self.execute_packet()
            self.read_pointer += consumed
            self.stats.packets += 1

    def execute_packet(self) -> int:
        """Execute the packet at the read pointer; return how many pointer units it took."""
        raise NotImplementedError
