"""The graphics core's start-up registers: the RLC's bootload status, which reports the
autoload complete once the PSP has started the RLC (psp.py's AUTOLOAD_RLC), and RLC_SAFE_MODE,
whose CMD bit the RLC clears when it has taken a safe-mode request."""
from __future__ import annotations

from gpubench.emu.soc.chips import GC
from gpubench.emu.soc.registers import Register

BOOTLOAD_COMPLETE = 1 << 31
SAFE_MODE_CMD = 1


class GraphicsCore:
    def __init__(self, soc):
        self.soc = soc

    def rlc_started(self) -> None:
        self.soc.registers.store(self.soc.address(GC, "RLC_RLCS_BOOTLOAD_STATUS"), BOOTLOAD_COMPLETE)

    def _safe_mode(self, value: int) -> None:
        self.soc.registers.store(self.soc.address(GC, "RLC_SAFE_MODE"), value & ~SAFE_MODE_CMD)

    def registers(self):
        return [(GC, "RLC_SAFE_MODE", Register(on_write=self._safe_mode))]
