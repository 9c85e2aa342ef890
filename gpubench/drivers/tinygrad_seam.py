"""Where tinygrad plugs into gpubench.

tinygrad 0.14.0, given a device string whose interface starts with MOCK (DEV=MOCKKFD+AMD), imports
`test.mockgpu.mockgpu.MockFileIOInterface` as the file interface of its HCQ drivers, and
`test.mockgpu.usb.MockUSB3` as its USB transport. `install()` puts gpubench's modules under those
names, so tinygrad's own, unmodified KFD driver code talks to MOCKKFD. `gpubench run` and the
pytest plugin (gpubench.pytest_plugin) call it before tinygrad is imported.
"""
from __future__ import annotations

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
