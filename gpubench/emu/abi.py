"""The initial state of a kernel's waves, by the HSA ABI (AMDGPUUsage, "Initial Kernel Execution State").

User SGPRs come first, in the order of their enable bits in kernel_code_properties; the system SGPRs
(workgroup ids, workgroup info, the private segment wave offset) follow at USER_SGPR_COUNT. Work-item
ids arrive in v0, packed (x | y << 10 | z << 20) on every target gpubench runs (gfx11, gfx12,
gfx942, gfx950). On gfx12 the workgroup ids are also in the architected TTMP9 (x) and TTMP7 (y, z).
"""
from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from gpubench.emu.waves import EXEC_LO, Waves
from gpubench.isa.codeobject import KernelDescriptor

TTMP7, TTMP9 = 108 + 7, 108 + 9

# kernel_code_properties enable bit -> the SGPR values it adds, in ABI order.
USER_SGPRS = (
    ("ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER", "private_segment_buffer", 4),
    ("ENABLE_SGPR_DISPATCH_PTR", "dispatch_ptr", 2),
    ("ENABLE_SGPR_QUEUE_PTR", "queue_ptr", 2),
    ("ENABLE_SGPR_KERNARG_SEGMENT_PTR", "kernarg_ptr", 2),
    ("ENABLE_SGPR_DISPATCH_ID", "dispatch_id", 2),
    ("ENABLE_SGPR_FLAT_SCRATCH_INIT", "flat_scratch_init", 2),
    ("ENABLE_SGPR_PRIVATE_SEGMENT_SIZE", "private_segment_size", 1),
)
# COMPUTE_PGM_RSRC1 float fields -> the MODE register bit they initialize (layout: ops/modes.py).
MODE_FROM_DESCRIPTOR = (("FLOAT_ROUND_MODE_32", 0), ("FLOAT_ROUND_MODE_16_64", 2), ("FLOAT_DENORM_MODE_32", 4),
                        ("FLOAT_DENORM_MODE_16_64", 6), ("ENABLE_DX10_CLAMP", 8), ("ENABLE_IEEE_MODE", 9))


@dataclass(frozen=True)
class LaunchAddresses:
    """Addresses the user SGPRs point at; what is not provided reads as 0."""

    kernarg_ptr: int = 0
    dispatch_ptr: int = 0
    queue_ptr: int = 0
    dispatch_id: int = 0
    private_segment_size: int = 0
    private_segment_buffer: tuple[int, int, int, int] = (0, 0, 0, 0)
    flat_scratch_init: int = 0


def user_sgpr_values(desc: KernelDescriptor, addresses: LaunchAddresses) -> list[int]:
    """The user SGPRs' dword values in ABI order."""
    values: list[int] = []
    for bit, name, count in USER_SGPRS:
        if not desc[bit]:
            continue
        value = getattr(addresses, name)
        if isinstance(value, tuple):
            values.extend(value)
        else:
            values.extend((value >> (32 * i)) & 0xFFFFFFFF for i in range(count))
    return values


PRELOAD_PROLOGUE_BYTES = 256  # code for firmware without kernarg preloading, which the CP skips


def preloaded_kernargs(desc: KernelDescriptor, kernarg_segment: bytes) -> list[int]:
    """The kernel argument dwords the CP preloads into the SGPRs after the user SGPRs
    (KERNARG_PRELOAD_SPEC_LENGTH dwords from dword KERNARG_PRELOAD_SPEC_OFFSET; gfx940+)."""
    length, offset = desc["KERNARG_PRELOAD_SPEC_LENGTH"], desc["KERNARG_PRELOAD_SPEC_OFFSET"]
    data = kernarg_segment[4 * offset:4 * (offset + length)].ljust(4 * length, b"\0")
    return list(struct.unpack(f"<{length}I", data))


def entry_point(desc: KernelDescriptor, descriptor_address: int) -> int:
    """Where the waves start: with kernel arguments preloaded, the CP skips the 256-byte prologue
    that loads them for firmware without preloading (AMDGPUUsage, "Preloaded Kernel Arguments")."""
    skip = PRELOAD_PROLOGUE_BYTES if desc["KERNARG_PRELOAD_SPEC_LENGTH"] else 0
    return descriptor_address + desc.kernel_code_entry_byte_offset + skip


def vgpr_count(desc: KernelDescriptor, wave_size: int) -> int:
    """VGPRs to allocate: the granulated count (granule 8 in wave32/gfx942+, 4 in gfx11 wave64),
    rounded up to 8 so that any granule fits."""
    granule = 4 if wave_size == 64 and desc.arch != "cdna" else 8
    return min(512, -(-(desc["GRANULATED_WORKITEM_VGPR_COUNT"] + 1) * granule // 8) * 8)


def dispatch_packet(grid: tuple[int, int, int], block: tuple[int, int, int], desc: KernelDescriptor,
                    kernel_object: int, kernarg_address: int) -> bytes:
    """The AQL kernel dispatch packet (hsa_kernel_dispatch_packet_t, 64 bytes) the dispatch_ptr
    SGPRs point at: grid_size in work-items, workgroup_size, segment sizes, kernel and kernarg addresses."""
    header = 2  # HSA_PACKET_TYPE_KERNEL_DISPATCH
    dimensions = 1 + (grid[1] * block[1] > 1 or grid[2] * block[2] > 1) + (grid[2] * block[2] > 1)
    return struct.pack("<HHHHHHIIIIIQQQQ", header, dimensions, *block, 0, *(g * b for g, b in zip(grid, block)),
                       desc.private_segment_fixed_size, desc.group_segment_fixed_size, kernel_object,
                       kernarg_address, 0, 0)


def initial_mode(desc: KernelDescriptor) -> int:
    """MODE at the start of a dispatch; fields a target's descriptor lacks (gfx12: DX10, IEEE) stay 0."""
    return sum(desc.get(name, 0) << bit for name, bit in MODE_FROM_DESCRIPTOR)


def initialize(waves: Waves, desc: KernelDescriptor, user_sgprs: Sequence[int], group_ids: np.ndarray,
               block: tuple[int, int, int]) -> None:
    """Set SGPRs, v0, EXEC and MODE of every wave; ``group_ids`` is [workgroups, 3] (x, y, z)."""
    size = waves.wave_size
    waves.sgpr[:, :len(user_sgprs)] = np.array(user_sgprs, np.uint32)
    ids = group_ids[waves.workgroup]
    reg = desc["USER_SGPR_COUNT"]
    for axis in range(3):
        if desc[f"ENABLE_SGPR_WORKGROUP_ID_{'XYZ'[axis]}"]:
            waves.sgpr[:, reg] = ids[:, axis]
            reg += 1
    if desc["ENABLE_SGPR_WORKGROUP_INFO"]:
        waves.sgpr[:, reg] = 0  # group segment base: each workgroup's LDS starts at 0 in the emulator
        reg += 1
    if desc["ENABLE_PRIVATE_SEGMENT"]:
        waves.sgpr[:, reg] = 0  # scratch is private per lane in the emulator: every wave starts at 0
    if desc.arch == "rdna4":
        waves.sgpr[:, TTMP9] = ids[:, 0]
        waves.sgpr[:, TTMP7] = ids[:, 1] | (ids[:, 2] << 16)
    threads = block[0] * block[1] * block[2]
    # v0 and EXEC depend only on the wave's index in its workgroup (0, 1, ... as launch.py numbers
    # them): work them out once per index ([wave ids, lanes], a few rows) and copy them to every wave.
    which = waves.wave_id
    flat = np.arange(int(which.max(initial=0)) + 1)[:, None] * size + np.arange(size)[None, :]  # [wave ids, lanes]
    x, y, z = flat % block[0], (flat // block[0]) % block[1], flat // (block[0] * block[1])
    enabled = desc["ENABLE_VGPR_WORKITEM_ID"]
    packed = x | ((y << 10) if enabled >= 1 else 0) | ((z << 20) if enabled >= 2 else 0)
    waves.vgpr[:, 0, :] = packed.astype(np.uint32)[which]
    exec_rows = np.packbits(flat < threads, axis=1, bitorder="little").view(np.uint32)  # [wave ids, 1 or 2]
    waves.sgpr[:, EXEC_LO:EXEC_LO + size // 32] = exec_rows[which]
    waves.mode[:] = initial_mode(desc)
    if desc.arch == "cdna":  # gfx90a+: the AGPRs start at (ACCUM_OFFSET + 1) * 4 of the unified VGPR file
        waves.accum_offset = accum_offset(desc)


def accum_offset(desc: KernelDescriptor) -> int:
    """The first AGPR's register in the unified VGPR file of gfx90a+ (AMDGPUUsage: COMPUTE_PGM_RSRC3
    ACCUM_OFFSET, granule 4: 0 means 4 ... 63 means 256)."""
    return (desc["ACCUM_OFFSET"] + 1) * 4
