"""The emulated machine of this process: which GPUs MOCKKFD shows, made once on first use.

GPUBENCH_TARGET (default gfx1100, or the arch in tinygrad's DEV string, e.g. MOCKKFD+AMD:LLVM:gfx1201)
names the GPU model and GPUBENCH_GPUS how many (default 1). With DEV=MOCKPCI... the GPUs are PCI
devices a userspace driver takes over (gpubench.drivers.pci) and there is no amdkfd; otherwise
amdkfd drives them. A dispatch that runs longer than
GPUBENCH_WATCHDOG_SECONDS (default 20: below tinygrad's 30 s wait timeout, so the client sees the
hang reported as a hardware exception, with the wave dump in the log) is stopped.
"""
from __future__ import annotations

import os
import re
import threading
import weakref
from dataclasses import dataclass

from gpubench.drivers.kfd.driver import KFDDriver
from gpubench.drivers.pci.bus import PCIBus
from gpubench.emu.executor import Watchdog

DEFAULT_TARGET = "gfx1100"
_lock = threading.Lock()
_current: "Machine | None" = None


@dataclass
class Machine:
    targets: list[str]
    driver: KFDDriver | None
    pci: PCIBus | None = None

    @property
    def files(self) -> dict:
        return self.pci.files if self.pci is not None else self.driver.files

    @property
    def gpus(self) -> list:
        """The emulated GPUs (gpubench.emu.gpu.EmulatedGPU): their queues, statistics and tools."""
        if self.pci is not None:
            return [gpu.cp for gpu in self.pci.gpus]
        return [node.gpu for node in self.driver.nodes.values()]

    def client_unmapped(self, address: int, size: int) -> None:
        (self.pci or self.driver).client_unmapped(address, size)

    def close(self) -> None:
        (self.pci or self.driver).close()


def configured_targets(environ=os.environ) -> list[str]:
    target = environ.get("GPUBENCH_TARGET")
    if not target:
        found = re.search(r"\b(gfx[0-9a-f]+)\b", environ.get("DEV", ""))
        target = found.group(1) if found else DEFAULT_TARGET
    return [target] * int(environ.get("GPUBENCH_GPUS", "1"))


def current() -> Machine:
    global _current
    with _lock:
        if _current is None:
            targets = configured_targets()
            watchdog = Watchdog(max_seconds=float(os.environ.get("GPUBENCH_WATCHDOG_SECONDS", "20")))
            if os.environ.get("DEV", "").upper().startswith("MOCKPCI"):
                _current = Machine(targets, None, PCIBus(targets, watchdog))
            else:
                _current = Machine(targets, KFDDriver(targets, watchdog))
            # closed at exit after every finalizer made later (tinygrad frees its buffers from
            # finalizers): as the kernel releases /dev/kfd only once the process's own code is done
            weakref.finalize(_current, _current.close)
        return _current
