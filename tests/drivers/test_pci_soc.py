"""The SoC behind MOCKPCI's BARs (issue 10): the IP discovery binary read by AM's own parser, its
checksums as amdgpu verifies them, the register offsets the SoC gives behaviour checked against
AMD's headers (as tinygrad ships them), and the stand-in firmware read by AM's own parser."""
from __future__ import annotations

import struct
import types

import numpy as np
import pytest
from tinygrad.runtime.autogen.am import am
from tinygrad.runtime.support.am import amdev
from tinygrad.runtime.support.amd import import_module

from gpubench.drivers.kfd.topology import gpu_properties
from gpubench.emu.soc import chips, discovery, regmap
from gpubench.emu.soc.firmware import stand_in
from gpubench.emu.soc.registers import Register, RegisterFile

HEADER_MODULES = {chips.MP0: "mp", chips.NBIF: "nbio", chips.MMHUB: "mmhub", chips.GC: "gc", chips.OSSSYS: "osssys",
                  chips.SDMA0: "sdma"}


def header_module(hw_id: int, version) -> tuple[str, tuple]:
    """Which of AMD's register headers AM reads a block's registers from."""
    if hw_id == chips.MP1:
        return "mp", (11, 0, 0)
    if hw_id == chips.NBIF and version[0] == 6:
        return "nbif", version  # NBIO became NBIF with the RDNA4 parts
    return HEADER_MODULES[hw_id], version


class _VRAM:
    def __init__(self, data: bytearray):
        self.data, self.nbytes = data, len(data)

    def view(self, offset, size):
        return memoryview(self.data)[offset:offset + size]


def am_discovery(chip: chips.Chip):
    """AM's _run_discovery over a VRAM whose top holds our binary."""
    vram_bytes = 64 << 20
    vram = bytearray(vram_bytes)
    blob = discovery.discovery_binary(chip)
    top = vram_bytes - discovery.TMR_OFFSET_FROM_TOP
    vram[top:top + len(blob)] = blob
    adev = amdev.AMDev.__new__(amdev.AMDev)
    adev.rreg, adev.vram = (lambda register: vram_bytes >> 20), _VRAM(vram)
    amdev.AMDev._run_discovery(adev)
    return adev


@pytest.mark.parametrize("target", sorted(chips.CHIPS))
def test_am_finds_every_ip_block_with_its_version_and_bases(target):
    chip = chips.CHIPS[target]
    adev = am_discovery(chip)
    by_hwid = {hw_id: hwip for hwip, hw_id in am.hw_id_map.items()}
    for block in chip.blocks:
        hwip = by_hwid[block.hw_id]
        assert adev.ip_ver[hwip] == block.version
        assert adev.regs_offset[hwip][block.instance] == block.bases


def gc_table(chip: chips.Chip):
    """The GC table in AM's struct of the version its header names, as AM reads it."""
    blob = bytearray(discovery.discovery_binary(chip))
    offset = am.struct_binary_header.from_buffer(blob).table_list[am.GC].offset
    header = am.struct_gpu_info_header.from_buffer(blob[offset:])
    return getattr(am, f"struct_gc_info_v{header.version_major}_{header.version_minor}").from_buffer(blob[offset:])


@pytest.mark.parametrize("target", sorted(chips.CHIPS))
def test_shader_layout_am_computes_is_what_mockkfd_reports(target):
    chip = chips.CHIPS[target]
    gc, kfd = gc_table(chip), gpu_properties(target, 0)
    xccs = len(chip.instances(chips.GC))
    if gc.header.version_major == 2:  # CDNA: CUs per array, per XCC
        cu_per_array, arrays = gc.gc_num_cu_per_sh, gc.gc_num_sh_per_se * gc.gc_num_se * xccs
    else:
        cu_per_array = 2 * (gc.gc_num_wgp0_per_sa + gc.gc_num_wgp1_per_sa)
        arrays = gc.gc_num_sa_per_se * gc.gc_num_se
        assert 2 * cu_per_array * arrays == kfd["simd_count"]
    assert (cu_per_array, arrays, xccs) == (kfd["cu_per_simd_array"], kfd["array_count"], kfd["num_xcc"])
    assert (gc.gc_lds_size, gc.gc_max_waves_per_simd, gc.gc_max_scratch_slots_per_cu) == \
        (kfd["lds_size_in_kb"], kfd["max_waves_per_simd"], kfd["max_slots_scratch_cu"])


@pytest.mark.parametrize("target", ["gfx942", "gfx950"])
def test_cdna_parts_list_eight_xccs_four_aids_and_sixteen_sdma_engines_at_distinct_bases(target):
    adev = am_discovery(chips.CHIPS[target])
    assert sorted(adev.regs_offset[am.GC_HWIP]) == list(range(8))
    assert sorted(adev.regs_offset[am.MMHUB_HWIP]) == list(range(4))
    assert sorted(adev.regs_offset[am.SDMA0_HWIP]) == list(range(16))
    bases = [b[0] for hwip in (am.GC_HWIP, am.MMHUB_HWIP, am.SDMA0_HWIP) for b in adev.regs_offset[hwip].values()]
    assert len(set(bases)) == len(bases)


def test_tables_carry_the_checksums_amdgpu_verifies():
    blob = discovery.discovery_binary(chips.CHIPS["gfx1100"])
    signature, _, _, binary_checksum, binary_size = struct.unpack_from("<IHHHH", blob)
    assert signature == discovery.BINARY_SIGNATURE and binary_size == len(blob)
    assert binary_checksum == sum(blob[10:binary_size]) & 0xFFFF
    for slot in (discovery.IP_DISCOVERY, discovery.GC):
        offset, checksum, size, _ = struct.unpack_from("<HHHH", blob, discovery.BINARY_HEADER.size + 8 * slot)
        assert checksum == sum(blob[offset:offset + size]) & 0xFFFF and size > 0
    assert len(blob) <= discovery.TMR_SIZE


def test_register_offsets_are_the_headers():
    for (hw_id, version), registers in regmap.OFFSETS.items():
        module = import_module(*header_module(hw_id, version), submod="regs")
        for name, (segment, offset) in registers.items():
            header = module.get(f"reg{name}") or module[f"mm{name}"]
            assert header[:2] == (offset, segment), name


def test_rlc_bootload_complete_is_the_headers_bit():
    from gpubench.emu.soc.gfx import BOOTLOAD_COMPLETE
    fields = import_module("gc", (11, 0, 0), submod="regs")["regRLC_RLCS_BOOTLOAD_STATUS"][2]
    assert 1 << fields["bootload_complete"][0] == BOOTLOAD_COMPLETE


FIRMWARE = {
    "gfx1100": ["psp_13_0_0_sos.bin", "smu_13_0_0.bin", "sdma_6_0_0.bin", "gc_11_0_0_mec.bin", "gc_11_0_0_imu.bin",
                "gc_11_0_0_rlc.bin"],
    "gfx1201": ["psp_14_0_3_sos.bin", "smu_14_0_3.bin", "sdma_7_0_1.bin", "gc_12_0_1_pfp.bin", "gc_12_0_1_me.bin",
                "gc_12_0_1_mec.bin", "gc_12_0_1_imu.bin", "gc_12_0_1_rlc.bin"],
    "gfx942": ["psp_13_0_6_sos.bin", "smu_13_0_6.bin", "sdma_4_4_2.bin", "gc_9_4_3_mec.bin", "gc_9_4_3_rlc.bin"],
    "gfx950": ["psp_13_0_12_sos.bin", "sdma_4_4_4.bin", "gc_9_5_0_mec.bin", "gc_9_5_0_rlc.bin"],  # MP1 13.0.12: no SMU
}


@pytest.mark.parametrize("target", sorted(FIRMWARE))
def test_am_parses_the_stand_in_firmware(target):
    chip, requested = chips.CHIPS[target], []

    def fetch(path, name, sha256):
        requested.append(name)
        return stand_in(name)

    original, amdev.fetch_fw = amdev.fetch_fw, fetch
    try:
        blocks = ((am.MP0_HWIP, chips.MP0), (am.MP1_HWIP, chips.MP1), (am.GC_HWIP, chips.GC),
                  (am.SDMA0_HWIP, chips.SDMA0))
        versions = {hwip: chip.version(hw_id) for hwip, hw_id in blocks}
        firmware = amdev.AMFirmware(types.SimpleNamespace(ip_ver=versions, devfmt="test"))
    finally:
        amdev.fetch_fw = original
    assert requested == FIRMWARE[target]
    assert {am.PSP_FW_TYPE_PSP_SOS, am.PSP_FW_TYPE_PSP_SYS_DRV, am.PSP_FW_TYPE_PSP_TOC} <= set(firmware.sos_fw)
    loaded = {kind: bytes(data) for kinds, data in firmware.descs for kind in kinds}
    rlc, mec = FIRMWARE[target][-1], next(name for name in FIRMWARE[target] if name.endswith("_mec.bin"))
    assert loaded[am.GFX_FW_TYPE_RLC_G].startswith(f"gpubench stand-in firmware: {rlc} RLC_G".encode())
    if chip.version(chips.GC) < (10, 0, 0):  # gfx9: MEC code and its jump table (GFX v1.0), the RLC's lists (v2.1)
        assert loaded[am.GFX_FW_TYPE_CP_MEC].startswith(f"gpubench stand-in firmware: {mec} code".encode())
        assert loaded[am.GFX_FW_TYPE_CP_MEC_ME1].startswith(f"gpubench stand-in firmware: {mec} jump table".encode())
        assert loaded[am.GFX_FW_TYPE_RLC_RESTORE_LIST_SRM_CNTL].startswith(
            f"gpubench stand-in firmware: {rlc} SRM_CNTL".encode())
        assert firmware.sos_fw[am.PSP_FW_TYPE_PSP_RL]
        assert loaded[am.GFX_FW_TYPE_SDMA0] == loaded[am.GFX_FW_TYPE_SDMA3]
        assert (am.GFX_FW_TYPE_P2S_TABLE in loaded) == (target == "gfx942")
    else:
        assert loaded[am.GFX_FW_TYPE_RS64_MEC].startswith(f"gpubench stand-in firmware: {mec} code".encode())
    sos = bytes(firmware.sos_fw[am.PSP_FW_TYPE_PSP_SOS])
    assert sos.startswith(f"gpubench stand-in firmware: {FIRMWARE[target][0]} SOS".encode())


def test_a_register_with_behaviour_answers_and_the_rest_keep_their_value():
    answers = []
    registers = RegisterFile(np.zeros(64, np.uint8), {
        1: Register(reset=7), 2: Register(on_read=lambda: 42), 3: Register(on_write=answers.append)})
    registers.write(0, 0x1_0000_0005)
    registers.write(3, 9)
    assert (registers.read(0), registers.read(1), registers.read(2), registers.read(3), answers) == (5, 7, 42, 9, [9])
    registers.write(100, 3)  # past the BAR: reached through the indirect window
    assert registers.read(100) == 3


def test_gmc_v9_pdb0_entries_are_2mib_pages_unless_they_translate_further():
    """AM's own PTE flags (gmc_v9 'translate further' mode) for a 2 MiB page at PDB0, a PDB0 table entry and a 1 GiB
    page at PDB1, as the GPUVM walk reads them."""
    from gpubench.emu.soc import mmu
    gmc = amdev.AM_GMC.__new__(amdev.AM_GMC)
    gmc.adev = types.SimpleNamespace(ip_ver={am.GC_HWIP: (9, 4, 3)}, soc=types.SimpleNamespace(
        module=import_module("soc", (9, 0, 0))))
    flags = amdev.AM_GMC.get_pte_flags.__wrapped__
    huge_page = mmu.HUGE_PAGE[9]
    assert huge_page(mmu.PDB0, flags(gmc, am.AMDGPU_VM_PDB0, False, 0, False, False, False, True))
    assert not huge_page(mmu.PDB0, flags(gmc, am.AMDGPU_VM_PDB0, True, 0, False, False, False, True))
    assert huge_page(1, flags(gmc, am.AMDGPU_VM_PDB1, False, 0, False, False, False, True))
    assert not huge_page(1, flags(gmc, am.AMDGPU_VM_PDB1, True, 0, False, False, False, True))


def small_soc(target: str):
    import dataclasses

    from gpubench.emu.soc.soc import SoC
    chip = dataclasses.replace(chips.CHIPS[target], vram_bytes=64 << 20)
    return SoC(chip, np.zeros(chip.vram_bytes, np.uint8), np.zeros(1 << 20, np.uint8))


@pytest.mark.parametrize("target", ["gfx1100", "gfx1201", "gfx942"])
def test_the_ih_writes_entries_at_its_write_pointer_and_latches_the_first_fault_until_cleared(target):
    soc = small_soc(target)
    ring, osssys = 0x10000, chips.OSSSYS
    soc.registers.write(soc.address(osssys, "IH_RB_BASE"), (soc.chip.fb_base + ring) >> 8)
    soc.registers.write(soc.address(osssys, "IH_RB_BASE_HI"), (soc.chip.fb_base + ring) >> 40)
    soc.registers.write(soc.address(osssys, "IH_RB_CNTL"), 1 | 5 << 1)  # enabled, 32 dwords: four entries
    for n in range(5):
        soc.ih.vm_fault(0x7000_0000_0000 + n * 0x1000, write=n == 1, permission=None)
    words = soc.vram[ring:ring + 128].view(np.uint32).reshape(4, 8)
    assert soc.read(osssys, "IH_RB_WPTR") == 32  # five entries in a four-entry ring: wrapped once
    assert list(words[0][4:6]) == [0x7000_0000_4000 >> 12 & 0xFFFFFFFF, 0x7]  # the fifth overwrote the first
    assert list(words[1][4:6]) == [0x7000_0000_1000 >> 12 & 0xFFFFFFFF, 0x7 | 0x20]  # a write fault
    status = soc.ih.status
    assert soc.read(chips.GC, status) == 1 << 4 | 1 << 8 | 1  # the first fault (invalid, no mapping), more faults
    assert soc.read(chips.GC, "GCVM_L2_PROTECTION_FAULT_ADDR_LO32") == 0x7000_0000_0000 >> 12 & 0xFFFFFFFF
    soc.registers.write(soc.address(chips.GC, "GCVM_L2_PROTECTION_FAULT_CNTL"), 1)
    assert soc.read(chips.GC, status) == 0 and soc.read(chips.GC, "GCVM_L2_PROTECTION_FAULT_CNTL") == 0
