"""Where tinygrad plugs into gpubench.

tinygrad 0.14.0, given a device string whose interface starts with MOCK (DEV=MOCKKFD+AMD), imports
`test.mockgpu.mockgpu.MockFileIOInterface` as the file interface of its HCQ drivers, and
`test.mockgpu.usb.MockUSB3` as its USB transport. `install()` puts gpubench's modules under those
names, so tinygrad's own, unmodified KFD driver code talks to MOCKKFD. `gpubench run` and the
pytest plugin (gpubench.pytest_plugin) call it before tinygrad is imported.

With DEV=MOCKPCI+AMD tinygrad's AM driver programs the hardware itself, and two more places meet
gpubench (gpubench/drivers/pci/__init__.py says why):
- MMIO: tinygrad's MMIOInterface over a mapped register BAR reads and writes the register file
  (drivers/pci/mmio.py) instead of plain memory; over anything else it is tinygrad's own.
- Firmware: AM's `fetch_fw` (bound in tinygrad.runtime.support.am.amdev) is gpubench's lookup
  (drivers/pci/firmware.py), which never goes to the network.
"""
from __future__ import annotations

import os
import sys
import types

from gpubench.drivers.kfd.fileio import MockFileIOInterface


class MockUSB3:
    """The emulated machine has no USB-attached GPUs: the USB transport finds none."""

    def __init__(self, *args, **kwargs):
        raise RuntimeError("gpubench emulates no USB-attached GPUs; use DEV=MOCKKFD+AMD")

    @staticmethod
    def list_devices(vendor: int, device: int) -> list:
        return []


def install() -> None:
    for name, attributes in (("test.mockgpu.mockgpu", {"MockFileIOInterface": MockFileIOInterface}),
                             ("test.mockgpu.usb", {"MockUSB3": MockUSB3})):
        module = types.ModuleType(name, f"gpubench's stand-in for tinygrad's {name}")
        module.__dict__.update(attributes)
        sys.modules[name] = module
    if os.environ.get("DEV", "").upper().startswith("MOCKPCI"):
        _route_register_bars()
        _supply_firmware()


def _route_register_bars() -> None:
    from tinygrad.runtime.support import hcq

    from gpubench.drivers.pci.mmio import register_window
    tinygrads = hcq.MMIOInterface

    class RegisterRoutedMMIOInterface(tinygrads):
        def __init__(self, addr: int, nbytes: int, fmt="B"):
            window = register_window(addr, nbytes, fmt)
            if window is None:
                super().__init__(addr, nbytes, fmt)
            else:
                self.mv, self.addr, self.nbytes, self.fmt = window, addr, nbytes, fmt

    hcq.MMIOInterface = RegisterRoutedMMIOInterface


def _supply_firmware() -> None:
    from tinygrad.runtime.support.am import amdev

    from gpubench.drivers.pci.firmware import firmware
    amdev.fetch_fw = lambda path, name, sha256: firmware(name, sha256)
