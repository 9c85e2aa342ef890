"""SDMA packets on a copy queue (SDMA v4-v6 packet layouts from Linux's amdgpu sdma_v*_0 headers).

Implemented: NOP, COPY_LINEAR, WRITE_LINEAR, INDIRECT, FENCE, TRAP, POLL_REGMEM (memory),
ATOMIC (64-bit add), CONST_FILL, TIMESTAMP (get, get global), GCR (no caches: done at once).
The read and write pointers and the doorbell count bytes.
"""
from __future__ import annotations

import time
from typing import Callable

from gpubench.emu.cp.pm4 import ATOMIC_ADD_64
from gpubench.emu.cp.queue import HardwareQueue, Interrupt, QueueError, WaitNotSatisfied, compare, gpu_clock
from gpubench.emu.executor import Watchdog, WatchdogTimeout

NOP, COPY, WRITE, INDIRECT, FENCE, TRAP, POLL_REGMEM = 0, 1, 2, 4, 5, 6, 8
ATOMIC, CONST_FILL, TIMESTAMP, GCR_REQ = 10, 11, 13, 17
SUBOP_COPY_LINEAR, SUBOP_WRITE_LINEAR = 0, 0
SUBOP_TIMESTAMP_GET, SUBOP_TIMESTAMP_GET_GLOBAL = 1, 2
COPY_CHUNK = 1 << 24  # bytes moved per numpy copy: bounded temporary memory for huge copies


class SDMAQueue(HardwareQueue):
    kind = "sdma"
    pointer_unit = 1  # bytes

    def __init__(self, *args, watchdog: Watchdog, **kwargs):
        super().__init__(*args, **kwargs)
        self.watchdog = watchdog

    def execute_packet(self) -> int:
        header = self.ring_dword(self.read_pointer)
        opcode, sub_op = header & 0xFF, (header >> 8) & 0xFF
        if opcode == NOP:
            return 4 * (1 + ((header >> 16) & 0x3FFF))  # NOP's count field skips dwords after it
        length = packet_length(header, lambda: self.ring_dword(self.read_pointer + 12))
        if 4 * length > self.ring_size:
            raise QueueError(f"SDMA packet 0x{header:08x} claims {length} dwords, more than the ring holds")
        words = self.ring_dwords(self.read_pointer, length)
        self.execute(words, opcode, sub_op, depth=0)
        return 4 * length

    def execute(self, words: list[int], opcode: int, sub_op: int, depth: int) -> None:
        address = words[1] | (words[2] << 32) if len(words) > 2 else 0
        if opcode == COPY:
            self.copy(words[3] | (words[4] << 32), words[5] | (words[6] << 32), (words[1] & 0x3FFFFFFF) + 1)
        elif opcode == WRITE:
            for i, value in enumerate(words[4:]):
                self.access.write32(address + 4 * i, value)
        elif opcode == FENCE:
            self.access.write32(address, words[3])
        elif opcode == TRAP:
            self.interrupt(Interrupt("sdma_trap", context_id=words[1] & 0x0FFFFFFF))
        elif opcode == POLL_REGMEM:
            if not words[0] >> 31:
                raise QueueError("SDMA POLL_REGMEM on a register is not supported")
            if not compare((words[0] >> 28) & 7, self.access.read32(address) & words[4], words[3]):
                raise WaitNotSatisfied()
        elif opcode == ATOMIC:
            if words[0] >> 25 != ATOMIC_ADD_64:
                raise QueueError(f"SDMA ATOMIC operation {words[0] >> 25} is not supported")
            self.access.write64(address, self.access.read64(address) + (words[3] | (words[4] << 32)))
        elif opcode == CONST_FILL:
            self.fill(address, words[3], (words[4] & 0x3FFFFFFF) + 1, 1 << ((words[0] >> 30) & 3))
        elif opcode == TIMESTAMP:
            self.access.write64(address, gpu_clock())
        elif opcode == INDIRECT:
            self.indirect(words[1] | (words[2] << 32), words[3] & 0xFFFFF, depth)

    def copy(self, source: int, destination: int, size: int) -> None:
        started = time.perf_counter()
        for offset in range(0, size, COPY_CHUNK):
            chunk = min(COPY_CHUNK, size - offset)
            self.access.write(destination + offset, self.access.read(source + offset, chunk))
            self.check_watchdog(started, "COPY_LINEAR", offset + chunk, size)

    def fill(self, destination: int, value: int, size: int, element: int) -> None:
        started = time.perf_counter()
        pattern = value.to_bytes(4, "little")[:element]
        chunk = pattern * (min(COPY_CHUNK, size) // element + 1)  # a whole number of elements, then cut
        for offset in range(0, size, COPY_CHUNK):
            self.access.write(destination + offset, chunk[:min(COPY_CHUNK, size - offset)])
            self.check_watchdog(started, "CONST_FILL", min(offset + COPY_CHUNK, size), size)

    def check_watchdog(self, started: float, what: str, done: int, size: int) -> None:
        """A copy or fill of up to 1 GiB is stopped between chunks once it has run longer than the
        watchdog allows a dispatch."""
        if time.perf_counter() - started > self.watchdog.max_seconds and done < size:
            raise WatchdogTimeout(f"watchdog: SDMA {what} of {size} bytes stopped after {done} bytes: it ran "
                                  f"longer than {self.watchdog.max_seconds:g} s")

    def indirect(self, address: int, dwords: int, depth: int) -> None:
        if depth > 0:
            raise QueueError("SDMA indirect buffers cannot nest")
        words = [int(w) for w in self.access.dwords(address, dwords)]
        position = 0
        while position < len(words):
            header = words[position]
            opcode, sub_op = header & 0xFF, (header >> 8) & 0xFF
            if opcode == NOP:
                position += 1 + ((header >> 16) & 0x3FFF)
                continue
            # a WRITE whose count dword is past the end reads as count 0: still longer than what is left
            length = packet_length(header, lambda: words[position + 3] if position + 3 < len(words) else 0)
            if position + length > len(words):
                raise QueueError(f"SDMA packet 0x{header:08x} ({length} dwords) at dword {position} runs past the end "
                                 f"of the {dwords}-dword indirect buffer at 0x{address:x}")
            self.execute(words[position:position + length], opcode, sub_op, depth + 1)
            position += length


def packet_length(header: int, write_count: Callable[[], int]) -> int:
    """Dwords of the packet that ``header`` starts; ``write_count()`` reads a WRITE's count dword."""
    opcode, sub_op = header & 0xFF, (header >> 8) & 0xFF
    if opcode == WRITE:
        return 4 + (write_count() & 0xFFFFF) + 1
    length = LENGTHS.get((opcode, sub_op), LENGTHS.get((opcode, None)))
    if length is None:
        raise QueueError(f"SDMA opcode {opcode} sub-op {sub_op} (header 0x{header:08x}) is not supported")
    return length


LENGTHS = {  # (opcode, sub-op or None for any) -> packet dwords
    (COPY, SUBOP_COPY_LINEAR): 7, (FENCE, None): 4, (TRAP, None): 2, (POLL_REGMEM, None): 6,
    (ATOMIC, None): 8, (CONST_FILL, None): 5, (TIMESTAMP, SUBOP_TIMESTAMP_GET): 3,
    (TIMESTAMP, SUBOP_TIMESTAMP_GET_GLOBAL): 3, (INDIRECT, None): 6, (GCR_REQ, None): 5,
}
