"""One emulated AMD GPU as a kernel driver sees it: a GPU virtual address space, a doorbell page,
and command processors that execute the queues the driver creates.

When are queues processed? From a command-processor thread that watches the doorbells, as the
hardware's CP does. A client writes its packets and rings a doorbell (a plain store into the
doorbell page it mapped); the thread sees the doorbell value move past the queue's read pointer
and executes packets until the ring is empty or a packet waits (WAIT_REG_MEM on memory another
queue will write). Nothing in the client has to call into gpubench: a client that polls a signal
in memory sees it change because the thread wrote it. Idle, the thread waits in native code, without
the GIL, for a doorbell to move (emu/native/doorbells.py); while a queue waits on memory it looks again
every WAITING_POLL_SECONDS, and a change the driver makes in Python (a new, destroyed or re-activated
queue) wakes it through a doorbell of its own. How it shares the interpreter with a client spinning on
a signal is cp/interpreter.py's job.
"""
from __future__ import annotations

import threading
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
from gpubench.emu.native.doorbells import DoorbellWatch
from gpubench.isa.arch import ISA

DOORBELLS = 1024  # 64-bit doorbells in the two doorbell pages of a process
WAITING_POLL_SECONDS = 50e-6  # a queue waits on memory, which no doorbell announces
IDLE_WAIT_SECONDS = 0.05  # a bound on any wait: what rings no doorbell is seen this late at worst
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
        self._wake = np.zeros(1, np.uint64)  # the doorbell `wake` rings
        self._watch: DoorbellWatch | None = None  # of the queues' doorbells and `_wake`, until they change
        self._handoff = interpreter.Handoff()  # the main thread waits out our passes (cp/interpreter.py)

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
        self.wake()
        self._start()
        return queue

    def destroy_queue(self, queue_id: int) -> None:
        with self.lock:
            queue = self.queues.pop(queue_id)
            self.retired.add(queue.stats)
        self.wake()

    def wake(self) -> None:
        """The driver changed what the command processor runs (a queue came, went or was re-activated)."""
        with self.lock:
            self._watch = None
            self._wake[0] += 1

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
            watch = self._doorbells()
            watch.look()  # before the pass: a doorbell rung after the pass began ends the wait below at once
            with self._handoff.turn():
                busy = self.process_queues()  # a queue's failure stops that queue only (HardwareQueue.process)
            waiting = any(queue.waiting for queue in list(self.queues.values()))
            if not (busy and waiting):  # a waiting queue may be free after a busy pass: go round at once
                watch.wait(WAITING_POLL_SECONDS if waiting else IDLE_WAIT_SECONDS, interpreter.stand_aside_call(),
                           self._handoff.address)

    def _doorbells(self) -> DoorbellWatch:
        with self.lock:
            if self._watch is None:
                rung = [(queue.doorbell, queue.doorbell_index) for queue in self.queues.values()]
                self._watch = DoorbellWatch([*rung, (self._wake, 0)])
            return self._watch

    def close(self) -> None:
        self._stop.set()
        self.wake()
        if self._thread is not None:
            self._thread.join()
        self.doorbell_page.close()
        # a stopped GPU raises no interrupts: letting go of the driver's callback breaks the cycle
        # driver -> GPU -> callback -> driver, so their memory (and its descriptors) is freed at once
        for raiser in (self, *self.queues.values()):
            raiser.interrupt = _no_interrupt


def _no_interrupt(interrupt: Interrupt) -> None:
    """The interrupt line of a closed GPU."""
