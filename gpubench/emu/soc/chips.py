"""What each emulated chip's IP discovery table says: its IP blocks (hardware id, instance,
version, register base of each segment), its shader layout (the GC table) and its VRAM.

Facts from Linux's amdgpu (soc15_hw_ip.h for the hardware ids, amdgpu_discovery.c for which IP
versions each product carries, navi10_ip_offset.h for the register segment bases that RDNA parts
share). Only the blocks a driver programs are listed; display, video and the memory controllers
(DCN, VCN, UMC), which the emulator does not model, are left out of the table.
"""
from __future__ import annotations

from dataclasses import dataclass

# hardware ids (soc15_hw_ip.h)
MP1, GC, MMHUB, ATHUB, OSSSYS, HDP, SDMA0, SDMA1, NBIF, MP0 = 1, 11, 34, 35, 40, 41, 42, 43, 108, 255


@dataclass(frozen=True)
class IPBlock:
    hw_id: int
    instance: int
    version: tuple[int, int, int]
    bases: tuple[int, ...]  # dword address of each register segment


@dataclass(frozen=True)
class ShaderLayout:
    """The GC table (gc_info v1: RDNA, counted in WGPs) of the chip."""

    shader_engines: int
    arrays_per_engine: int
    wgps_per_array: int
    render_backends_per_engine: int
    gl2_channels: int
    vgprs_per_simd: int
    wave_size: int
    max_waves_per_simd: int
    max_scratch_slots_per_cu: int
    lds_kib: int


@dataclass(frozen=True)
class Chip:
    target: str
    device_id: int
    vram_bytes: int
    fb_base: int  # where the memory controller places VRAM in the GPU's address space
    blocks: tuple[IPBlock, ...]
    shaders: ShaderLayout

    def version(self, hw_id: int) -> tuple[int, int, int]:
        return next(b.version for b in self.blocks if b.hw_id == hw_id)

    def base(self, hw_id: int, segment: int, instance: int = 0) -> int:
        return next(b.bases[segment] for b in self.blocks if b.hw_id == hw_id and b.instance == instance)


# register segment bases of RDNA parts (navi10_ip_offset.h; Navi2x, Navi3x and Navi4x report the same)
RDNA_GC = (0x1260, 0xA000, 0x1C000, 0x2402C00)
RDNA_MMHUB = (0x1A000, 0x2408800)
RDNA_ATHUB = (0xC00, 0x2408C00)
RDNA_HDP = (0xF20, 0x240A400)
RDNA_OSSSYS = (0x10A0, 0x240A000)
RDNA_NBIO = (0x0, 0x14, 0xD20, 0x10400, 0x241B000, 0x4040000)
RDNA_MP = (0x16000, 0xDC0000, 0xE00000, 0xE40000, 0x243FC00)

def rdna_blocks(gc, sdma, mmhub, hdp, osssys, nbif, mp) -> tuple[IPBlock, ...]:
    """An RDNA part's blocks from their versions: one instance each, at the common RDNA bases (SDMA's
    registers live in the GC block), MP0 and MP1 at the same version."""
    return (IPBlock(GC, 0, gc, RDNA_GC), IPBlock(SDMA0, 0, sdma, RDNA_GC), IPBlock(SDMA1, 0, sdma, RDNA_GC),
            IPBlock(MMHUB, 0, mmhub, RDNA_MMHUB), IPBlock(ATHUB, 0, mmhub, RDNA_ATHUB), IPBlock(HDP, 0, hdp, RDNA_HDP),
            IPBlock(OSSSYS, 0, osssys, RDNA_OSSSYS), IPBlock(NBIF, 0, nbif, RDNA_NBIO), IPBlock(MP0, 0, mp, RDNA_MP),
            IPBlock(MP1, 0, mp, RDNA_MP))


CHIPS = {
    # Radeon RX 7900 XTX (Navi31): 6 shader engines of 2 arrays of 4 WGPs (96 CUs), 24 GiB
    "gfx1100": Chip("gfx1100", 0x744C, 24 << 30, 0x8000000000,
                    rdna_blocks((11, 0, 0), (6, 0, 0), (3, 0, 0), (6, 0, 0), (6, 0, 0), (4, 3, 0), (13, 0, 0)),
                    ShaderLayout(6, 2, 4, 4, 24, 1536, 32, 16, 32, 64)),
    # Radeon RX 9070 XT (Navi48): 4 shader engines of 2 arrays of 4 WGPs (64 CUs), 16 GiB
    "gfx1201": Chip("gfx1201", 0x7550, 16 << 30, 0x8000000000,
                    rdna_blocks((12, 0, 1), (7, 0, 1), (4, 1, 0), (7, 0, 0), (7, 0, 0), (6, 3, 1), (14, 0, 3)),
                    ShaderLayout(4, 2, 4, 4, 16, 1536, 32, 16, 32, 64)),
}
