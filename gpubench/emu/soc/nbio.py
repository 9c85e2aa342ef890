"""The host interface (NBIO/NBIF): the indirect register window for registers past the MMIO BAR
(RSMU_INDEX takes a byte address, RSMU_DATA reads or writes that register) and the remapped HDP
flush register, whose MMIO offset REMAP_HDP_MEM_FLUSH_CNTL reports.

On NBIO 7.9 (MI300, MI350) PCIE_INDEX2 (and PCIE_INDEX2_HI, the address's bits 32-39) with
PCIE_DATA2 is a second window: bit 34 of the byte address selects another AID (bits 32-33 its
number), whose own copy of the register space the access reaches (`remote`: plain registers, as
the ones a driver writes there are, doorbell routing and fences); without it, this chip's registers.

The emulator keeps no HDP cache (the host's accesses to VRAM land in it directly), so a flush
request is accepted and does nothing more.
"""
from __future__ import annotations

from gpubench.emu.soc.chips import NBIF
from gpubench.emu.soc.registers import Register

# amdgpu remaps the HDP flush register to the page below 512 KiB of the MMIO BAR
# (MMIO_REG_HOLE_OFFSET) and programs REMAP_HDP_MEM_FLUSH_CNTL with its byte offset
HDP_FLUSH_REMAP_OFFSET = 0x80000 - 0x1000
REMOTE_AID = 1 << 34


class HostInterface:
    def __init__(self, soc):
        self.soc = soc
        self.remote: dict[tuple[int, int], int] = {}  # (AID, dword address) -> value

    def _window_address(self) -> int:
        return self.soc.registers.load(self.soc.address(NBIF, "BIF_BX_PF0_RSMU_INDEX")) // 4

    def _pcie_address(self) -> tuple[int | None, int]:
        load = lambda name: self.soc.registers.load(self.soc.address(NBIF, name))  # noqa: E731
        address = (load("BIF_BX0_PCIE_INDEX2_HI") & 0xFF) << 32 | load("BIF_BX0_PCIE_INDEX2")
        return (address >> 32 & 0x3 if address & REMOTE_AID else None), (address & 0xFFFFFFFF) // 4

    def _pcie_read(self) -> int:
        aid, dword = self._pcie_address()
        return self.soc.registers.read(dword) if aid is None else self.remote.get((aid, dword), 0)

    def _pcie_write(self, value: int) -> None:
        aid, dword = self._pcie_address()
        if aid is None:
            self.soc.registers.write(dword, value)
        else:
            self.remote[(aid, dword)] = value

    def registers(self):
        pcie = [(NBIF, "BIF_BX0_PCIE_DATA2", Register(on_read=self._pcie_read, on_write=self._pcie_write))]
        return (pcie if self.soc.has(NBIF, "BIF_BX0_PCIE_DATA2") else []) + [
            (NBIF, "BIF_BX0_REMAP_HDP_MEM_FLUSH_CNTL", Register(reset=HDP_FLUSH_REMAP_OFFSET)),
            (NBIF, "BIF_BX_PF0_RSMU_DATA", Register(
                on_read=lambda: self.soc.registers.read(self._window_address()),
                on_write=lambda value: self.soc.registers.write(self._window_address(), value))),
        ]
