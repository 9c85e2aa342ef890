"""The SDMA engines' ring registers (SDMA v6/v7: SDMA0_QUEUE0_*, in the GC block; SDMA v4.4 on
MI300/MI350: SDMA_GFX_*, in each engine's own block, at the same offsets): the
driver writes the ring base (>> 8), the read pointer write-back and write pointer poll addresses
and the doorbell offset, then RB_CNTL with RB_ENABLE and the ring size (log2 of dwords); the
engine then runs the ring (gpubench/emu/cp/sdma.py) until RB_ENABLE is cleared."""
from __future__ import annotations

from gpubench.emu.soc.chips import GC, SDMA0
from gpubench.emu.soc.gfx import HardwareQueueDescriptor
from gpubench.emu.soc.registers import Register

RB_ENABLE = 1
RING_REGISTERS = {4: (SDMA0, "SDMA_GFX_"), 6: (GC, "SDMA0_QUEUE0_"), 7: (GC, "SDMA0_QUEUE0_")}  # by SDMA major version


class SystemDMA:
    def __init__(self, soc):
        self.soc = soc
        self.hw_id, self.prefix = RING_REGISTERS[soc.chip.version(SDMA0)[0]]
        self.running: HardwareQueueDescriptor | None = None

    def _load(self, name: str) -> int:
        return self.soc.registers.load(self.soc.address(self.hw_id, self.prefix + name))

    def _pair(self, low: str, high: str) -> int:
        return (self._load(high) << 32) | self._load(low)

    def _ring_control(self, value: int) -> None:
        if self.running is not None:
            self.soc.queue_stopped(self.running)
            self.running = None
        if value & RB_ENABLE:
            self.running = HardwareQueueDescriptor(
                ("sdma", 0, 0), "sdma", ring_address=self._pair("RB_BASE", "RB_BASE_HI") << 8,
                ring_bytes=4 << (value >> 1 & 0x1F),
                read_pointer_address=self._pair("RB_RPTR_ADDR_LO", "RB_RPTR_ADDR_HI"),
                write_pointer_address=self._pair("RB_WPTR_POLL_ADDR_LO", "RB_WPTR_POLL_ADDR_HI"),
                doorbell=(self._load("DOORBELL_OFFSET") >> 2 & 0x3FFFFFF) // 2,
                write_pointer=self._pair("RB_WPTR", "RB_WPTR_HI"))
            self.soc.queue_started(self.running)

    def registers(self):
        return [(self.hw_id, self.prefix + "RB_CNTL", Register(on_write=self._ring_control))]
