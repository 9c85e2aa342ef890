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
    """The GC table of the chip, per XCC: gc_info v1 (RDNA, counted in WGPs) or v2 (CDNA, counted in CUs)."""

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
    cus_per_array: int = 0  # gc_info v2 only
    table_version: tuple[int, int] = (1, 0)


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

    def instances(self, hw_id: int) -> list[int]:
        return sorted(b.instance for b in self.blocks if b.hw_id == hw_id)


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


# CDNA3/CDNA4 parts (MI300X, MI350X): eight XCCs (GC instances) on four AIDs, each AID with an MMHUB and
# four SDMA engines. Instance 0 of each block sits at Vega's register bases (vega10_ip_offset.h); instance
# k at k * INSTANCE_STRIDE above them, past the MMIO BAR, where a driver reaches it through the NBIO's
# indirect window. The spacing is the emulator's choice, named in the discovery table as hardware
# names its own: a driver that reads the bases (AM, amdgpu) finds every instance there.
INSTANCE_STRIDE = 0x100000
CDNA_GC, CDNA_SDMA, CDNA_MMHUB = (0x2000, 0xA000), (0x1260,), (0x1A000,)
CDNA_HDP, CDNA_OSSSYS, CDNA_MP = (0xF20,), (0x10A0,), (0x16000,)
CDNA_NBIO = (0x0, 0x14, 0xD20, 0x10400, 0x241B000, 0x4040000, 0x4080000, 0x40C0000, 0x4100000)
XCCS, AIDS, SDMAS_PER_AID = 8, 4, 4


def _instances(hw_id: int, count: int, version, bases) -> tuple[IPBlock, ...]:
    return tuple(IPBlock(hw_id, k, version, tuple(b + k * INSTANCE_STRIDE for b in bases)) for k in range(count))


def cdna_blocks(gc, sdma, mmhub, hdp, osssys, nbio, mp) -> tuple[IPBlock, ...]:
    return (_instances(GC, XCCS, gc, CDNA_GC) + _instances(SDMA0, AIDS * SDMAS_PER_AID, sdma, CDNA_SDMA)
            + _instances(MMHUB, AIDS, mmhub, CDNA_MMHUB)
            + (IPBlock(HDP, 0, hdp, CDNA_HDP), IPBlock(OSSSYS, 0, osssys, CDNA_OSSSYS),
               IPBlock(NBIF, 0, nbio, CDNA_NBIO), IPBlock(MP0, 0, mp, CDNA_MP), IPBlock(MP1, 0, mp, CDNA_MP)))


CHIPS = {
    # Radeon RX 7900 XTX (Navi31): 6 shader engines of 2 arrays of 4 WGPs (96 CUs), 24 GiB
    "gfx1100": Chip("gfx1100", 0x744C, 24 << 30, 0x8000000000,
                    rdna_blocks((11, 0, 0), (6, 0, 0), (3, 0, 0), (6, 0, 0), (6, 0, 0), (4, 3, 0), (13, 0, 0)),
                    ShaderLayout(6, 2, 4, 4, 24, 1536, 32, 16, 32, 64)),
    # Radeon RX 9070 XT (Navi48): 4 shader engines of 2 arrays of 4 WGPs (64 CUs), 16 GiB
    "gfx1201": Chip("gfx1201", 0x7550, 16 << 30, 0x8000000000,
                    rdna_blocks((12, 0, 1), (7, 0, 1), (4, 1, 0), (7, 0, 0), (7, 0, 0), (6, 3, 1), (14, 0, 3)),
                    ShaderLayout(4, 2, 4, 4, 16, 1536, 32, 16, 32, 64)),
    # Instinct MI300X (Aqua Vanjaram, GC 9.4.3): per XCC 4 shader engines of one array of 10 CUs, 192 GiB
    "gfx942": Chip("gfx942", 0x74A1, 192 << 30, 0x8000000000,
                   cdna_blocks((9, 4, 3), (4, 4, 2), (1, 8, 0), (4, 4, 2), (4, 4, 2), (7, 9, 0), (13, 0, 6)),
                   ShaderLayout(4, 1, 0, 4, 16, 512, 64, 8, 32, 64, cus_per_array=10, table_version=(2, 0))),
    # Instinct MI350X (GC 9.5.0): per XCC 4 shader engines of one array of 8 CUs, 160 KiB of LDS, 288 GiB.
    # IH and HDP as on MI300 (AM 0.14.0 programs IH 4.4.2's registers on it)
    "gfx950": Chip("gfx950", 0x75A0, 288 << 30, 0x8000000000,
                   cdna_blocks((9, 5, 0), (4, 4, 4), (1, 8, 1), (4, 4, 2), (4, 4, 2), (7, 9, 1), (13, 0, 12)),
                   ShaderLayout(4, 1, 0, 4, 16, 512, 64, 8, 32, 160, cus_per_array=8, table_version=(2, 0))),
}
