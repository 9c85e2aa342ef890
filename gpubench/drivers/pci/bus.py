"""The emulated machine's PCI side: one PCIGPU per emulated GPU on the process's own PCI domain,
the files a PCI driver reads and writes (sysfs, /proc/self/pagemap, the vm sysctl AM checks) and
the machine's physical memory map: system pages (pagemap.py) and every GPU's memory BARs, so that
a GPU whose page tables name another GPU's VRAM BAR reaches that VRAM (peer-to-peer over PCIe,
as AM maps a peer's buffer: its VRAM offset plus the peer's BAR0 bus address, a system page).

The domain is derived from the process id: AM takes a lock file per device address in /tmp
(`am_<address>.lock`), so two processes emulating machines at once (pytest workers) must not
share addresses.
"""
from __future__ import annotations

import os

from gpubench.drivers.pci import mmio
from gpubench.drivers.pci.device import PCIGPU
from gpubench.drivers.pci.pagemap import PagemapFile, PhysicalMemory
from gpubench.drivers.vfs import Attribute
from gpubench.emu.executor import Watchdog
from gpubench.emu.soc.chips import CHIPS


class PCIBus:
    def __init__(self, targets: list[str], watchdog: Watchdog = Watchdog()):
        unknown = [t for t in targets if t not in CHIPS]
        if unknown:
            raise ValueError(f"MOCKPCI has no chip model for {unknown}; known: {sorted(CHIPS)}")
        self.memory = PhysicalMemory()
        self.files: dict = {
            "/proc/self/pagemap": PagemapFile(self.memory),
            # pages of the emulated machine never migrate: AM finds nothing to change
            "/proc/sys/vm/compact_unevictable_allowed": Attribute(lambda: "0\n"),
        }
        domain = os.getpid() & 0xFFFF
        self.gpus = [PCIGPU(i, target, domain, self.files, self.system_address, watchdog)
                     for i, target in enumerate(targets)]

    def system_address(self, physical: int) -> int | None:
        """The host address behind a system physical address a GPU page table names: a client page or a
        GPU's memory BAR; None for an address nothing answers."""
        try:
            return self.memory.host_address(physical)
        except KeyError:
            return next((host for gpu in self.gpus if (host := gpu.bar_host_address(physical)) is not None), None)

    def client_unmapped(self, address: int, size: int) -> None:
        mmio.unmapped(address, size)
        for gpu in self.gpus:
            gpu.soc.gpuvm.system_unmapped(address, size)
        self.memory.client_unmapped(address, size)

    def close(self) -> None:
        for gpu in self.gpus:
            gpu.close()
