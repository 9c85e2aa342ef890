"""The IP discovery binary a chip's firmware leaves at the top of VRAM, in the layout of Linux's
amdgpu discovery.h: a binary header listing the tables, the IP discovery table (one die, each IP
block with its hardware id, instance, version and the dword base of each register segment) and
the GC table (the shader layout). Every table carries the 16-bit byte-sum checksum amdgpu checks.

A driver finds it at VRAM size - 64 KiB (DISCOVERY_TMR_OFFSET), 10 KiB long, after reading the
VRAM size from RCC_CONFIG_MEMSIZE.
"""
from __future__ import annotations

import struct

from gpubench.emu.soc.chips import Chip

TMR_OFFSET_FROM_TOP, TMR_SIZE = 64 << 10, 10 << 10
BINARY_SIGNATURE, IP_DISCOVERY_SIGNATURE, GC_TABLE_ID = 0x28211407, 0x53445049, 0x4347
IP_DISCOVERY, GC = 0, 1  # indices in the binary header's table list (6 entries)
TABLE_SLOTS = 6
BINARY_HEADER = struct.Struct("<IHHHH")  # signature, version major/minor, checksum, size; then the table list
TABLE_INFO = struct.Struct("<HHHH")  # offset, checksum, size, padding
IP_HEADER = struct.Struct("<IHHIH")  # signature, version, size, id, number of dies; then 16 die slots
DIE_INFO = struct.Struct("<HH")  # die id, die offset
DIE_HEADER = struct.Struct("<HH")  # die id, number of IPs
IP_ENTRY = struct.Struct("<HBBBBBB")  # hw id, instance, bases, major, minor, revision, variant/sub-revision
GC_INFO_V1_0 = struct.Struct("<IHHI19I")
GC_INFO_V2_0 = struct.Struct("<IHHI17I")
IP_DISCOVERY_VERSION = 4  # ip_v4 entries; bases are 32-bit (base_addr_64_bit clear)
MAX_DIES = 16


def checksum(data: bytes) -> int:
    return sum(data) & 0xFFFF


def _ip_table(chip: Chip, offset: int) -> bytes:
    die_offset = offset + IP_HEADER.size + MAX_DIES * DIE_INFO.size + 2
    entries = b"".join(IP_ENTRY.pack(b.hw_id, b.instance, len(b.bases), *b.version, 0)
                       + struct.pack(f"<{len(b.bases)}I", *b.bases) for b in chip.blocks)
    dies = DIE_HEADER.pack(0, len(chip.blocks)) + entries
    size = die_offset - offset + len(dies)
    header = IP_HEADER.pack(IP_DISCOVERY_SIGNATURE, IP_DISCOVERY_VERSION, size, 0, 1)
    die_slots = DIE_INFO.pack(0, die_offset) + bytes(DIE_INFO.size * (MAX_DIES - 1))
    return header + die_slots + struct.pack("<H", 0) + dies


def _gc_table(chip: Chip) -> bytes:
    s = chip.shaders
    if s.table_version == (2, 0):  # CDNA: CUs per shader array
        fields = (s.shader_engines, s.cus_per_array, s.arrays_per_engine, s.render_backends_per_engine, s.gl2_channels,
                  s.vgprs_per_simd, 0, 0, 0, 0, 0, s.wave_size, s.max_waves_per_simd, s.max_scratch_slots_per_cu,
                  s.lds_kib, 1, 4)
        return GC_INFO_V2_0.pack(GC_TABLE_ID, 2, 0, GC_INFO_V2_0.size, *fields)
    fields = (s.shader_engines, s.wgps_per_array, 0, s.render_backends_per_engine, s.gl2_channels, s.vgprs_per_simd,
              0, 0, 0, 0, 0, s.wave_size, s.max_waves_per_simd, s.max_scratch_slots_per_cu, s.lds_kib, 1,
              s.arrays_per_engine, 4, 0)
    return GC_INFO_V1_0.pack(GC_TABLE_ID, 1, 0, GC_INFO_V1_0.size, *fields)


def discovery_binary(chip: Chip) -> bytes:
    header_size = BINARY_HEADER.size + TABLE_SLOTS * TABLE_INFO.size
    ip_offset = _aligned(header_size)
    ip_table = _ip_table(chip, ip_offset)
    gc_offset = _aligned(ip_offset + len(ip_table))
    tables = {IP_DISCOVERY: (ip_offset, ip_table), GC: (gc_offset, _gc_table(chip))}
    total = gc_offset + len(tables[GC][1])
    if total > TMR_SIZE:
        raise ValueError(f"the discovery binary ({total} bytes) outgrew its {TMR_SIZE}-byte reservation")
    image = bytearray(total)
    for slot, (offset, data) in tables.items():
        TABLE_INFO.pack_into(image, BINARY_HEADER.size + slot * TABLE_INFO.size, offset, checksum(data), len(data), 0)
        image[offset:offset + len(data)] = data
    BINARY_HEADER.pack_into(image, 0, BINARY_SIGNATURE, 2, 0, 0, total)
    struct.pack_into("<H", image, 8, checksum(bytes(image[10:])))  # binary_checksum covers binary_size onwards
    return bytes(image)


def _aligned(offset: int) -> int:
    return offset + (-offset % 16)
