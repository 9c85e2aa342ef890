"""The graphics core's start-up and queue registers.

- The RLC's bootload status reports the autoload complete once the PSP has started the RLC
  (psp.py's AUTOLOAD_RLC); RLC_SAFE_MODE's CMD bit is cleared when the RLC takes a request.
- GRBM_GFX_CNTL selects which copy of the banked registers an access reaches: the HQD registers
  (CP_MQD_BASE_ADDR .. CP_HQD_PQ_WPTR_HI) per ME/pipe/queue, SH_MEM_CONFIG/BASES per VMID.
- A compute queue (HQD) starts when CP_HQD_ACTIVE is set in its bank: the CP takes the ring, read
  and write pointer addresses and doorbell from the bank's registers (`HardwareQueueDescriptor`)
  and hands them to the SoC's command processor (soc.queue_started); a dequeue request
  (CP_HQD_DEQUEUE_REQUEST) stops it and clears ACTIVE.
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

    engine: tuple  # which hardware queue: ("hqd", ME, pipe, queue), ("sdma", engine, queue)
    kind: str  # gpubench.emu.gpu.QUEUE_KINDS: compute, aql, sdma
    ring_address: int
    ring_bytes: int
    read_pointer_address: int
    write_pointer_address: int
    doorbell: int  # index of the 64-bit doorbell in the doorbell BAR


class GraphicsCore:
    def __init__(self, soc):
        self.soc = soc
        self.queues: dict[tuple, HardwareQueueDescriptor] = {}

    def _address(self, name: str) -> int:
        return self.soc.address(GC, name)

    def rlc_started(self) -> None:
        self.soc.registers.store(self._address("RLC_RLCS_BOOTLOAD_STATUS"), BOOTLOAD_COMPLETE)

    def _safe_mode(self, value: int) -> None:
        self.soc.registers.store(self._address("RLC_SAFE_MODE"), value & ~SAFE_MODE_CMD)

    def _selected(self) -> int:
        return self.soc.registers.load(self._address("GRBM_GFX_CNTL"))

    def _selected_queue(self) -> tuple:
        value = self._selected()
        return ("hqd", value >> 2 & 0x3, value & 0x3, value >> 8 & 0x7)  # ME, pipe, queue

    def _selected_vmid(self) -> tuple:
        return ("vmid", self._selected() >> 4 & 0xF)

    def _hqd(self, name: str) -> int:
        return self.soc.registers.load(self._address(name))

    def _pair(self, low: str, high: str) -> int:
        return (self._hqd(high) << 32) | self._hqd(low)

    def _active(self, value: int) -> None:
        key = self._selected_queue()
        if value & HQD_ACTIVE:
            queue = HardwareQueueDescriptor(
                key, "aql" if self._hqd("CP_HQD_AQL_CONTROL") & 1 else "compute",
                ring_address=self._pair("CP_HQD_PQ_BASE", "CP_HQD_PQ_BASE_HI") << 8,
                ring_bytes=4 << ((self._hqd("CP_HQD_PQ_CONTROL") & 0x3F) + 1),
                read_pointer_address=self._pair("CP_HQD_PQ_RPTR_REPORT_ADDR", "CP_HQD_PQ_RPTR_REPORT_ADDR_HI"),
                write_pointer_address=self._pair("CP_HQD_PQ_WPTR_POLL_ADDR", "CP_HQD_PQ_WPTR_POLL_ADDR_HI"),
                doorbell=(self._hqd("CP_HQD_PQ_DOORBELL_CONTROL") >> 2 & 0x3FFFFFF) // 2)
            self.queues[key] = queue
            self.soc.queue_started(queue)
        elif key in self.queues:
            self.soc.queue_stopped(self.queues.pop(key))

    def _dequeue(self, value: int) -> None:
        if value & DEQUEUE_REQUEST_MASK:
            self.soc.registers.write(self._address("CP_HQD_ACTIVE"), 0)

    def banks(self) -> tuple[Bank, ...]:
        return (Bank(self._address("CP_MQD_BASE_ADDR"), self._address("CP_HQD_PQ_WPTR_HI"), self._selected_queue),
                Bank(self._address("SH_MEM_BASES"), self._address("SH_MEM_CONFIG"), self._selected_vmid))

    def registers(self):
        return [(GC, "RLC_SAFE_MODE", Register(on_write=self._safe_mode)),
                (GC, "CP_HQD_ACTIVE", Register(on_write=self._active)),
                (GC, "CP_HQD_DEQUEUE_REQUEST", Register(on_write=self._dequeue))]
