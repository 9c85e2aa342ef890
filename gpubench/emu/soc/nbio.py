"""The host interface (NBIO/NBIF): the indirect register window for registers past the MMIO BAR
(RSMU_INDEX takes a byte address, RSMU_DATA reads or writes that register) and the remapped HDP
flush register, whose MMIO offset REMAP_HDP_MEM_FLUSH_CNTL reports.

The emulator keeps no HDP cache (the host's accesses to VRAM land in it directly), so a flush
request is accepted and does nothing more.
"""
from __future__ import annotations

from gpubench.emu.soc.chips import NBIF
from gpubench.emu.soc.registers import Register

# amdgpu remaps the HDP flush register to the page below 512 KiB of the MMIO BAR
# (MMIO_REG_HOLE_OFFSET) and programs REMAP_HDP_MEM_FLUSH_CNTL with its byte offset
HDP_FLUSH_REMAP_OFFSET = 0x80000 - 0x1000


class HostInterface:
    def __init__(self, soc):
        self.soc = soc

    def _window_address(self) -> int:
        return self.soc.registers.load(self.soc.address(NBIF, "BIF_BX_PF0_RSMU_INDEX")) // 4

    def registers(self):
        return [
            (NBIF, "BIF_BX0_REMAP_HDP_MEM_FLUSH_CNTL", Register(reset=HDP_FLUSH_REMAP_OFFSET)),
            (NBIF, "BIF_BX_PF0_RSMU_DATA", Register(
                on_read=lambda: self.soc.registers.read(self._window_address()),
                on_write=lambda value: self.soc.registers.write(self._window_address(), value))),
        ]
