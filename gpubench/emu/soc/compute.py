"""The SoC's command processor side: the queues the driver starts through the HQD registers
(gfx.py) and the SDMA ring registers (sdma.py) run on gpubench's command processors
(gpubench/emu/cp/), over the GPU address space
that GPUVM (mmu.py) fills from the driver's page tables, with doorbells in the doorbell BAR.
"""
from __future__ import annotations

import logging

import numpy as np

from gpubench.emu import executor
from gpubench.emu.cp.queue import Interrupt
from gpubench.emu.gpu import EmulatedGPU
from gpubench.emu.soc.gfx import HardwareQueueDescriptor
from gpubench.emu.soc.mmu import GPUVM

log = logging.getLogger("gpubench.soc")


class CommandProcessor(EmulatedGPU):
    """An EmulatedGPU whose queues are the HQDs the driver programmed, each on the doorbell the
    driver chose in the doorbell BAR."""

    def __init__(self, soc, doorbells: np.ndarray, lds_bytes: int, system_address,
                 watchdog: executor.Watchdog = executor.Watchdog()):
        self.soc = soc
        super().__init__(soc.chip.target, self._report, lds_bytes, watchdog)
        self.bar_doorbells = doorbells.view(np.uint64)
        self.by_engine: dict[tuple, int] = {}  # (ring address, hardware queue) -> queue id
        soc.gpuvm = GPUVM(soc, self.memory, self.lock, system_address)
        soc.command_processor = self

    def _report(self, interrupt: Interrupt) -> None:
        """What a queue reports reaches the driver as the hardware delivers it: a fault as a VM fault in
        the IH ring (with the fault registers), any other queue error as the CP's bad-opcode interrupt."""
        level = logging.DEBUG if interrupt.kind in ("end_of_pipe", "sdma_trap") else logging.ERROR
        log.log(level, "cp: %s %s", interrupt.kind, interrupt.message or interrupt.fault or "")
        fault = interrupt.fault
        if interrupt.kind == "memory_fault" and fault is not None:
            permission = self.soc.gpuvm.permission(fault.address, fault.write, fault.reason)
            self.soc.ih.vm_fault(fault.address, fault.write, permission)
        elif interrupt.kind == "queue_error":
            self.soc.ih.post("bad_opcode")

    def start(self, hqd: HardwareQueueDescriptor) -> None:
        shared = next((queue_id for (ring, _), queue_id in self.by_engine.items() if ring == hqd.ring_address), None)
        if shared is None:  # several XCCs' HQDs on one ring are one queue (gfx.py)
            # the doorbell slot keeps the last value rung before (a queue of an earlier start): the new
            # queue's write pointer is the HQD's, as the hardware takes it from the registers, not the slot
            self.bar_doorbells[hqd.doorbell] = hqd.write_pointer
            queue = self.create_queue(hqd.kind, hqd.ring_address, hqd.ring_bytes, hqd.read_pointer_address,
                                      hqd.write_pointer_address, doorbell_at=(self.bar_doorbells, hqd.doorbell))
            shared = queue.queue_id
        self.by_engine[(hqd.ring_address, hqd.engine)] = shared

    def stop(self, hqd: HardwareQueueDescriptor) -> None:
        queue_id = self.by_engine.pop((hqd.ring_address, hqd.engine), None)
        if queue_id is not None and queue_id not in self.by_engine.values():
            self.destroy_queue(queue_id)
