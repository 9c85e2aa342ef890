"""The graphics core's start-up and queue registers.

- The RLC's bootload status reports the autoload complete once the PSP has started the RLC
  (psp.py's AUTOLOAD_RLC); RLC_SAFE_MODE's CMD bit is cleared when the RLC takes a request.
- GRBM_GFX_CNTL selects which copy of the banked registers an access reaches: the HQD registers
  (CP_MQD_BASE_ADDR .. CP_HQD_PQ_WPTR_HI) per ME/pipe/queue, SH_MEM_CONFIG/BASES per VMID.
- A compute queue (HQD) starts when CP_HQD_ACTIVE is set in its bank: the CP takes the ring, read
  and write pointer addresses and doorbell from the bank's registers (`HardwareQueueDescriptor`)
  and hands them to the SoC's command processor (soc.queue_started); a dequeue request
  (CP_HQD_DEQUEUE_REQUEST) stops it and clears ACTIVE.
- Every XCC (GC instance: eight on MI300/MI350) has its own copy of all of this: its own
  GRBM_GFX_CNTL, banks, HQDs and RLC. An AQL queue the driver starts on several XCCs (one HQD each,
  all on one ring) is one queue of the command processor, which runs each dispatch whole (every
  XCC's share of the grid).
"""
from __future__ import annotations

from dataclasses import dataclass
from gpubench.emu.soc.chips import GC
from gpubench.emu.soc.registers import Bank, Register

BOOTLOAD_COMPLETE = 1 << 31
SAFE_MODE_CMD = 1
HQD_ACTIVE = 1
DEQUEUE_REQUEST_MASK = 0xF


@dataclass(frozen=True)
class HardwareQueueDescriptor:
    """A queue the driver started through registers, as the command processor takes it."""

    engine: tuple  # which hardware queue: ("hqd", XCC, ME, pipe, queue), ("sdma", engine, queue)
    kind: str  # gpubench.emu.gpu.QUEUE_KINDS: compute, aql, sdma
    ring_address: int
    ring_bytes: int
    read_pointer_address: int
    write_pointer_address: int
    doorbell: int  # index of the 64-bit doorbell in the doorbell BAR
    write_pointer: int = 0  # where the queue starts (CP_HQD_PQ_WPTR, SDMA's RB_WPTR), until the doorbell rings


class GraphicsCore:
    def __init__(self, soc):
        self.soc = soc
        self.xccs = soc.chip.instances(GC)
        self.queues: dict[tuple, HardwareQueueDescriptor] = {}

    def _address(self, name: str, xcc: int = 0) -> int:
        return self.soc.address(GC, name, xcc)

    def rlc_started(self) -> None:
        for xcc in self.xccs:
            self.soc.registers.store(self._address("RLC_RLCS_BOOTLOAD_STATUS", xcc), BOOTLOAD_COMPLETE)

    def _safe_mode(self, xcc: int):
        return lambda value: self.soc.registers.store(self._address("RLC_SAFE_MODE", xcc), value & ~SAFE_MODE_CMD)

    def _selected(self, xcc: int) -> int:
        return self.soc.registers.load(self._address("GRBM_GFX_CNTL", xcc))

    def _selected_queue(self, xcc: int) -> tuple:
        value = self._selected(xcc)
        return ("hqd", xcc, value >> 2 & 0x3, value & 0x3, value >> 8 & 0x7)  # XCC, ME, pipe, queue

    def _selected_vmid(self, xcc: int) -> tuple:
        return ("vmid", xcc, self._selected(xcc) >> 4 & 0xF)

    def _hqd(self, name: str, xcc: int) -> int:
        return self.soc.registers.load(self._address(name, xcc))

    def _pair(self, low: str, high: str, xcc: int) -> int:
        return (self._hqd(high, xcc) << 32) | self._hqd(low, xcc)

    def _active(self, xcc: int):
        def write(value: int) -> None:
            key = self._selected_queue(xcc)
            if value & HQD_ACTIVE:
                queue = HardwareQueueDescriptor(
                    key, "aql" if self._hqd("CP_HQD_AQL_CONTROL", xcc) & 1 else "compute",
                    ring_address=self._pair("CP_HQD_PQ_BASE", "CP_HQD_PQ_BASE_HI", xcc) << 8,
                    ring_bytes=4 << ((self._hqd("CP_HQD_PQ_CONTROL", xcc) & 0x3F) + 1),
                    read_pointer_address=self._pair("CP_HQD_PQ_RPTR_REPORT_ADDR", "CP_HQD_PQ_RPTR_REPORT_ADDR_HI", xcc),
                    write_pointer_address=self._pair("CP_HQD_PQ_WPTR_POLL_ADDR", "CP_HQD_PQ_WPTR_POLL_ADDR_HI", xcc),
                    doorbell=(self._hqd("CP_HQD_PQ_DOORBELL_CONTROL", xcc) >> 2 & 0x3FFFFFF) // 2,
                    write_pointer=self._pair("CP_HQD_PQ_WPTR_LO", "CP_HQD_PQ_WPTR_HI", xcc))
                self.queues[key] = queue
                self.soc.queue_started(queue)
            elif key in self.queues:
                self.soc.queue_stopped(self.queues.pop(key))
        return write

    def _dequeue(self, xcc: int):
        def write(value: int) -> None:
            if value & DEQUEUE_REQUEST_MASK:
                self.soc.registers.write(self._address("CP_HQD_ACTIVE", xcc), 0)
        return write

    def banks(self) -> tuple[Bank, ...]:
        return tuple(bank for xcc in self.xccs for bank in (
            Bank(self._address("CP_MQD_BASE_ADDR", xcc), self._address("CP_HQD_PQ_WPTR_HI", xcc),
                 lambda xcc=xcc: self._selected_queue(xcc)),
            Bank(self._address("SH_MEM_BASES", xcc), self._address("SH_MEM_CONFIG", xcc),
                 lambda xcc=xcc: self._selected_vmid(xcc))))

    def registers(self):
        return [entry for xcc in self.xccs for entry in (
            (GC, "RLC_SAFE_MODE", Register(on_write=self._safe_mode(xcc)), xcc),
            (GC, "CP_HQD_ACTIVE", Register(on_write=self._active(xcc)), xcc),
            (GC, "CP_HQD_DEQUEUE_REQUEST", Register(on_write=self._dequeue(xcc)), xcc))]
