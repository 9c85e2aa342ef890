"""Stand-in firmware images: what gpubench hands a driver that asks for a linux-firmware file it
does not have (PSP sOS, SMU, SDMA, CP MEC/PFP/ME, IMU, RLC).

The emulated PSP and SMU do not run AMD's microcode (their behaviour is modelled in psp.py and
smu.py), so an image only has to be what a driver parses: the headers of Linux's amdgpu_ucode.h
in the version each file has for the part (PSP v2.0 with its component descriptors, SMC v2.0,
SDMA v2.0 with its two threads (v3.0, one thread, from SDMA 7), GFX v2.0 RS64 with code, stack
and start address, IMU v1.0, RLC v2.3), each region holding a short text naming the file and the
region. Their hashes are not linux-firmware's; real files, where present, are used instead
(gpubench/drivers/pci/firmware.py).
"""
from __future__ import annotations

import re
import struct

COMMON_HEADER = struct.Struct("<IIHHHHIIII")  # sizes, header version, IP version, ucode version, size, offset, crc32
PSP_COMPONENTS = {"KDB": 3, "SPL": 5, "SYS_DRV": 2, "SOC_DRV": 7, "INTF_DRV": 8, "DBG_DRV": 9, "RAS_DRV": 10,
                  "SOS": 1, "TOC": 4}
PSP_RL = {"RL": 6}  # the RLC's register list, which the driver loads itself on gfx9 (no RLC autoload there)
GFX9_PSP = ("psp_13_0_6_sos.bin", "psp_13_0_12_sos.bin")  # the sOS of MI300 and MI350 parts
P2S_TABLE_ID = 0x50325358  # "XS2P": the SMU's PPTable the driver hands the PSP on gfx9 parts
RS64_UCODE_START = 0x0  # where the CP's RS64 microengine starts running its code
RLC_V2_3_HEADER_BYTES, RLC_V2_1_HEADER_BYTES = 204, 156
RLC_REGIONS = ("RLC_G", "SRM_CNTL", "SRM_GPM", "SRM_SRM", "IRAM", "DRAM", "RLCP", "RLCV")


def _payload(name: str, region: str) -> bytes:
    text = f"gpubench stand-in firmware: {name} {region}\n".encode()
    return text + bytes(-len(text) % 16)


class _Image:
    """Regions laid out after a header of `header_bytes`, each 16-byte aligned."""

    def __init__(self, name: str, header_bytes: int):
        self.name, self.header_bytes, self.body = name, header_bytes, bytearray()

    def region(self, label: str) -> tuple[int, int]:
        data = _payload(self.name, label)
        offset = self.header_bytes + len(self.body)
        self.body += data
        return offset, len(data)

    def build(self, version: tuple[int, int], ucode: tuple[int, int], extra: bytes) -> bytes:
        offset, size = ucode
        total = self.header_bytes + len(self.body)
        common = COMMON_HEADER.pack(total, self.header_bytes, *version, 0, 0, 1, size, offset, 0)
        header = (common + extra).ljust(self.header_bytes, b"\0")
        return header + bytes(self.body)


def _psp_sos(name: str) -> bytes:
    components = {**PSP_COMPONENTS, **(PSP_RL if name in GFX9_PSP else {})}
    image = _Image(name, COMMON_HEADER.size + 4 + 16 * len(components))
    regions = {label: image.region(label) for label in components}
    first = min(offset for offset, _ in regions.values())
    # component offsets count from the ucode array (the first component)
    descriptors = b"".join(struct.pack("<IIII", kind, 1, regions[label][0] - first, regions[label][1])
                           for label, kind in components.items())
    return image.build((2, 0), (first, sum(size for _, size in regions.values())),
                       struct.pack("<I", len(components)) + descriptors)


def _smu(name: str) -> bytes:
    if name.startswith("smu_13_0_6"):  # MI300 (SMC v2.1): the PPTable entries the driver passes on
        image = _Image(name, 44 + 12)
        ucode, table = image.region("SMU"), image.region("P2S table")
        extra = struct.pack("<IIIIII", 0, 1, 44, P2S_TABLE_ID, table[0], table[1])
        return image.build((2, 1), ucode, extra)
    image = _Image(name, 44)
    ucode = image.region("SMU")
    return image.build((2, 0), ucode, struct.pack("<III", 0, 0, 0))


def _sdma(name: str) -> bytes:
    if name.startswith("sdma_4_"):  # SDMA v4.4 (MI300, MI350): one image for every engine, header v1.0
        image = _Image(name, 48)
        ucode = image.region("ucode")
        return image.build((1, 0), ucode, struct.pack("<4I", 1, 0, 0, 0))
    if int(re.match(r"sdma_(\d+)", name).group(1)) >= 7:  # SDMA v7: one thread, header v3.0
        image = _Image(name, 44)
        ucode = image.region("TH0")
        return image.build((3, 0), ucode, struct.pack("<3I", 1, ucode[0], ucode[1]))
    image = _Image(name, 64)
    context, control = image.region("TH0"), image.region("TH1")
    return image.build((2, 0), context, struct.pack("<8I", 1, context[1], 0, 0, control[0], control[1], 0, 0))


def _rs64(name: str) -> bytes:
    image = _Image(name, 60)
    code, stack = image.region("code"), image.region("stack")
    return image.build((2, 0), code, struct.pack("<7I", 1, code[1], code[0], stack[1], stack[0], RS64_UCODE_START, 0))


def _gfx_v1(name: str) -> bytes:
    """gfx9's MEC (GFX v1.0): code followed by its jump table (counted in dwords from the ucode)."""
    image = _Image(name, 44)
    code, jump_table = image.region("code"), image.region("jump table")
    ucode = (code[0], code[1] + jump_table[1])
    return image.build((1, 0), ucode, struct.pack("<3I", 1, (jump_table[0] - code[0]) // 4, jump_table[1] // 4))


def _imu(name: str) -> bytes:
    image = _Image(name, 48)
    iram, dram = image.region("IRAM"), image.region("DRAM")
    return image.build((1, 0), iram, struct.pack("<4I", iram[1], iram[0], dram[1], dram[0]))


def _rlc(name: str) -> bytes:
    if name.startswith("gc_9_"):
        return _rlc_v2_1(name)
    image = _Image(name, RLC_V2_3_HEADER_BYTES)
    regions = {label: image.region(label) for label in RLC_REGIONS}
    v2_0 = bytes(104 - COMMON_HEADER.size)
    v2_1 = struct.pack("<I", 0) + b"".join(struct.pack("<4I", 1, 1, regions[label][1], regions[label][0])
                                          for label in ("SRM_CNTL", "SRM_GPM", "SRM_SRM"))
    v2_2 = struct.pack("<4I", regions["IRAM"][1], regions["IRAM"][0], regions["DRAM"][1], regions["DRAM"][0])
    v2_3 = b"".join(struct.pack("<4I", 1, 1, regions[label][1], regions[label][0]) for label in ("RLCP", "RLCV"))
    return image.build((2, 3), regions["RLC_G"], v2_0 + v2_1 + v2_2 + v2_3)


def _rlc_v2_1(name: str) -> bytes:
    """gfx9's RLC (v2.1): RLC_G and the three save/restore lists."""
    image = _Image(name, RLC_V2_1_HEADER_BYTES)
    regions = {label: image.region(label) for label in RLC_REGIONS[:4]}
    v2_0 = bytes(104 - COMMON_HEADER.size)
    v2_1 = struct.pack("<I", 0) + b"".join(struct.pack("<4I", 1, 1, regions[label][1], regions[label][0])
                                          for label in ("SRM_CNTL", "SRM_GPM", "SRM_SRM"))
    return image.build((2, 1), regions["RLC_G"], v2_0 + v2_1)


KINDS = ((r"psp_\d+_\d+_\d+_sos\.bin", _psp_sos), (r"smu_\d+_\d+_\d+\.bin", _smu), (r"sdma_\d+_\d+_\d+\.bin", _sdma),
         (r"gc_1[1-9]_\d+_\d+_(mec|pfp|me)\.bin", _rs64), (r"gc_9_\d+_\d+_mec\.bin", _gfx_v1),
         (r"gc_\d+_\d+_\d+_imu\.bin", _imu), (r"gc_(9|1[1-9])_\d+_\d+_rlc\.bin", _rlc))


def stand_in(name: str) -> bytes:
    """The stand-in image for linux-firmware's amdgpu/`name`; KeyError for a file it cannot stand in for."""
    for pattern, build in KINDS:
        if re.fullmatch(pattern, name):
            return build(name)
    raise KeyError(f"gpubench has no stand-in for amdgpu firmware {name}")
