"""A GPU function's PCI configuration space (4 KiB, PCIe): identity, BARs and a capability list
(power management, PCI Express, MSI), with the fields software may change given as data
(`WRITABLE`: offset -> bit mask of a 16-bit field); every other byte keeps its value on a write,
as read-only fields do."""
from __future__ import annotations

import struct

from gpubench.drivers.vfs import VirtualFile

CONFIG_BYTES = 4096
COMMAND, STATUS, CAPABILITIES_POINTER = 0x04, 0x06, 0x34
STATUS_CAPABILITY_LIST = 1 << 4
PM_CAP, PCIE_CAP, MSI_CAP = 0x50, 0x64, 0xA0
CAP_PM, CAP_PCIE, CAP_MSI = 0x01, 0x10, 0x05
LINK_CONTROL = PCIE_CAP + 0x10
ASPM_L0S_L1 = 0x3
WRITABLE = {COMMAND: 0x0547, LINK_CONTROL: 0x0FFB}  # COMMAND: I/O, memory, master, parity, SERR, INTx off


def config_space(vendor: int, device: int, revision: int, class_code: int, subsystem: int,
                 bar_words: list[int]) -> bytearray:
    """bar_words: the six BAR registers (a 64-bit BAR's upper half in the slot after it)."""
    space = bytearray(CONFIG_BYTES)
    struct.pack_into("<HHHHI", space, 0, vendor, device, 0, STATUS_CAPABILITY_LIST, (class_code << 8) | revision)
    struct.pack_into("<6I", space, 0x10, *bar_words)
    struct.pack_into("<HH", space, 0x2C, vendor, subsystem)
    space[CAPABILITIES_POINTER] = PM_CAP
    space[PM_CAP:PM_CAP + 2] = bytes((CAP_PM, PCIE_CAP))
    space[PCIE_CAP:PCIE_CAP + 2] = bytes((CAP_PCIE, MSI_CAP))
    struct.pack_into("<H", space, LINK_CONTROL, ASPM_L0S_L1)  # firmware leaves L0s and L1 on
    space[MSI_CAP:MSI_CAP + 2] = bytes((CAP_MSI, 0))
    return space


class ConfigFile(VirtualFile):
    def __init__(self, space: bytearray):
        self.space = space

    def read(self, offset: int, size: int | None) -> bytes:
        return bytes(self.space[offset:CONFIG_BYTES if size is None else offset + size])

    def write(self, offset: int, data: bytes) -> None:
        for position, value in enumerate(data, offset):
            field = position & ~1
            mask = WRITABLE.get(field, 0) >> (8 * (position - field)) & 0xFF
            self.space[position] = (self.space[position] & ~mask) | (value & mask)
