"""One emulated AMD GPU as a kernel driver sees it: a GPU virtual address space, a doorbell page,
and command processors that execute the queues the driver creates.

When are queues processed? From a command-processor thread that watches the doorbells, as the
hardware's CP does. A client writes its packets and rings a doorbell (a plain store into the
doorbell page it mapped); the thread sees the doorbell value move past the queue's read pointer
and executes packets until the ring is empty or a packet waits (WAIT_REG_MEM on memory another
queue will write). Nothing in the client has to call into gpubench: a client that polls a signal
in memory sees it change because the thread wrote it. Idle, the thread polls every 50 µs; how it
shares the interpreter with a client spinning on a signal is cp/interpreter.py's job.
"""
from __future__ import annotations

import threading
import time
from typing import Callable

import numpy as np

from gpubench.emu import executor
from gpubench.emu.cp import interpreter
from gpubench.emu.cp.aql import AQLQueue
from gpubench.emu.cp.pm4 import PM4Queue
from gpubench.emu.cp.queue import HardwareQueue, Interrupt, QueueStats
from gpubench.emu.cp.sdma import SDMAQueue
from gpubench.emu.hostmem import SharedMemory
from gpubench.emu.memory import AddressSpace
from gpubench.isa.arch import ISA

DOORBELLS = 1024  # 64-bit doorbells in the two doorbell pages of a process
IDLE_POLL_SECONDS = 50e-6
QUEUE_KINDS = {"compute": PM4Queue, "aql": AQLQueue, "sdma": SDMAQueue}


class EmulatedGPU:
    def __init__(self, target: str, interrupt: Callable[[Interrupt], None], lds_bytes: int,
                 watchdog: executor.Watchdog = executor.Watchdog()):
        self.target = target
        self.lds_bytes = lds_bytes  # per workgroup: the product's, which the ISA target does not say
        self.arch = ISA.get(target).target.arch
        self.memory = AddressSpace()
        self.lock = threading.RLock()  # held while packets run and while the driver changes mappings
        self.doorbell_page = SharedMemory(DOORBELLS * 8, "gpubench-doorbells")
        self.doorbells = self.doorbell_page.array.view(np.uint64)
        self.interrupt = interrupt
        self.watchdog = watchdog
        self.queues: dict[int, HardwareQueue] = {}
        self.retired = QueueStats()  # statistics of destroyed queues
        self._next_queue = 0
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()

    def create_queue(self, kind: str, ring_address: int, ring_size: int, read_pointer_address: int,
                     write_pointer_address: int, doorbell_at: tuple[np.ndarray, int] | None = None) -> HardwareQueue:
        """doorbell_at: the doorbells and index the queue watches when the driver chose them (a PCI
        GPU's doorbell BAR); by default the next free doorbell of this GPU's page."""
        with self.lock:
            if doorbell_at is None:
                used = {q.doorbell_index for q in self.queues.values()}
                doorbell_at = (self.doorbells, next(i for i in range(DOORBELLS) if i not in used))
                self.doorbells[doorbell_at[1]] = 0
            queue_id = self._next_queue
            self._next_queue += 1
            extra = {"target": self.target, "arch": self.arch, "lds_bytes": self.lds_bytes} if kind != "sdma" else {}
            queue = QUEUE_KINDS[kind](queue_id, self.memory, ring_address, ring_size, read_pointer_address,
                                      write_pointer_address, *doorbell_at, self.interrupt,
                                      watchdog=self.watchdog, **extra)
            self.queues[queue_id] = queue
        self._start()
        return queue

    def destroy_queue(self, queue_id: int) -> None:
        with self.lock:
            queue = self.queues.pop(queue_id)
            self.retired.add(queue.stats)

    def stats(self) -> QueueStats:
        total = QueueStats()
        with self.lock:
            for stats in [self.retired, *(q.stats for q in self.queues.values())]:
                total.add(stats)
        return total

    def process_queues(self) -> bool:
        """One pass over every queue; True if any packet ran."""
        with self.lock:
            return any([queue.process() for queue in list(self.queues.values())])

    def _start(self) -> None:
        if self._thread is None:
            interpreter.share_when_idle()
            self._thread = threading.Thread(target=self._run, name=f"gpubench-cp-{self.target}", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            busy = self.process_queues()  # a queue's failure stops that queue only (HardwareQueue.process)
            if not busy:
                time.sleep(IDLE_POLL_SECONDS)

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self.doorbell_page.close()
        # a stopped GPU raises no interrupts: letting go of the driver's callback breaks the cycle
        # driver -> GPU -> callback -> driver, so their memory (and its descriptors) is freed at once
        for raiser in (self, *self.queues.values()):
            raiser.interrupt = _no_interrupt


def _no_interrupt(interrupt: Interrupt) -> None:
    """The interrupt line of a closed GPU."""
