"""Where the registers the SoC gives behaviour live: (segment, dword offset) of each, by IP block
and version, from AMD's register headers (the ones tinygrad ships as tinygrad.runtime.autogen.am
.regs, and Linux's asic_reg/*_offset.h). A register's address is its block's base for that
segment (from the IP discovery table) plus the offset. tests/drivers/test_pci_soc.py checks every
entry against the headers."""
from __future__ import annotations

from gpubench.emu.soc.chips import GC, MMHUB, MP0, MP1, NBIF, OSSSYS

# RCC_CONFIG_MEMSIZE sits at a fixed dword address on every part: a driver reads the VRAM size
# from it before it knows any base (the discovery table is found with it)
RCC_CONFIG_MEMSIZE = 0xDE3

OFFSETS = {
    (MP0, (13, 0, 0)): {f"MP0_SMN_C2PMSG_{n}": (0, 0x40 + n) for n in (35, 36, 64, 67, 69, 70, 71, 81)},
    # the SMU mailbox is at the same place on every part AM drives (it reads it with mp_11_0_0's offsets)
    (MP1, None): {f"MP1_SMN_C2PMSG_{n}": (0, 0x240 + n) for n in (53, 54, 66, 75, 82, 90)},
    (NBIF, (4, 3, 0)): {"BIF_BX_PF0_RSMU_INDEX": (1, 0x0), "BIF_BX_PF0_RSMU_DATA": (1, 0x1),
                        "BIF_BX0_REMAP_HDP_MEM_FLUSH_CNTL": (2, 0x12D)},
    (MMHUB, (3, 0, 0)): {"MMVM_INVALIDATE_ENG17_SEM": (0, 0x762), "MMVM_INVALIDATE_ENG17_REQ": (0, 0x774),
                         "MMVM_INVALIDATE_ENG17_ACK": (0, 0x786), "MMMC_VM_FB_LOCATION_BASE": (0, 0x8EC),
                         "MMMC_VM_FB_LOCATION_TOP": (0, 0x8ED)},
    (GC, (11, 0, 0)): {"GCVM_INVALIDATE_ENG17_SEM": (0, 0x16AA), "GCVM_INVALIDATE_ENG17_REQ": (0, 0x16BC),
                       "GCVM_INVALIDATE_ENG17_ACK": (0, 0x16CE), "GCMC_VM_FB_LOCATION_BASE": (0, 0x1678),
                       "GCMC_VM_FB_LOCATION_TOP": (0, 0x1679), "CP_STAT": (0, 0xF40),
                       "RLC_RLCS_BOOTLOAD_STATUS": (1, 0x4E82), "RLC_SAFE_MODE": (1, 0x980)},
    (OSSSYS, (6, 0, 0)): {},
}


def offsets(hw_id: int, version: tuple[int, int, int]) -> dict[str, tuple[int, int]]:
    return OFFSETS.get((hw_id, version), OFFSETS.get((hw_id, None), {}))
