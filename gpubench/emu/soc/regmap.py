"""Where the registers the SoC gives behaviour live: (segment, dword offset) of each, by IP block
and version, from AMD's register headers (the ones tinygrad ships as tinygrad.runtime.autogen.am
.regs, and Linux's asic_reg/*_offset.h). A register's address is its block's base for that
segment (from the IP discovery table) plus the offset. tests/drivers/test_pci_soc.py checks every
entry against the headers."""
from __future__ import annotations

from gpubench.emu.soc.chips import GC, MMHUB, MP0, MP1, NBIF, OSSSYS, SDMA0

# RCC_CONFIG_MEMSIZE sits at a fixed dword address on every part: a driver reads the VRAM size
# from it before it knows any base (the discovery table is found with it)
RCC_CONFIG_MEMSIZE = 0xDE3
PSP_MAILBOXES = (35, 36, 64, 67, 69, 70, 71, 81)
# graphics-core registers at the same place on gfx11 and gfx12: CP status, RLC safe mode, GRBM's
# bank select, the per-VMID shader memory apertures and the HQD registers
GC_SHARED = {"CP_STAT": (0, 0xF40), "RLC_SAFE_MODE": (1, 0x980), "GRBM_GFX_CNTL": (1, 0x900),
             "SH_MEM_BASES": (1, 0x9E3), "SH_MEM_CONFIG": (1, 0x9E4),
             "CP_MQD_BASE_ADDR": (0, 0x1FA9), "CP_HQD_ACTIVE": (0, 0x1FAB), "CP_HQD_VMID": (0, 0x1FAC),
             "CP_HQD_PQ_BASE": (0, 0x1FB1), "CP_HQD_PQ_BASE_HI": (0, 0x1FB2),
             "CP_HQD_PQ_RPTR_REPORT_ADDR": (0, 0x1FB4), "CP_HQD_PQ_RPTR_REPORT_ADDR_HI": (0, 0x1FB5),
             "CP_HQD_PQ_WPTR_POLL_ADDR": (0, 0x1FB6), "CP_HQD_PQ_WPTR_POLL_ADDR_HI": (0, 0x1FB7),
             "CP_HQD_PQ_DOORBELL_CONTROL": (0, 0x1FB8), "CP_HQD_PQ_CONTROL": (0, 0x1FBA),
             "CP_HQD_DEQUEUE_REQUEST": (0, 0x1FC1), "CP_HQD_AQL_CONTROL": (0, 0x1FDE), "CP_HQD_PQ_WPTR_LO": (0, 0x1FDF),
             "CP_HQD_PQ_WPTR_HI": (0, 0x1FE0)}
# registers that moved between generations: name -> (segment, offset on gfx11, offset on gfx12)
GC_MOVED = {
    "GCVM_INVALIDATE_ENG17_SEM": (0, 0x16AA, 0x1646), "GCVM_INVALIDATE_ENG17_REQ": (0, 0x16BC, 0x1658),
    "GCVM_INVALIDATE_ENG17_ACK": (0, 0x16CE, 0x166A), "GCMC_VM_FB_LOCATION_BASE": (0, 0x1678, 0x1614),
    "GCMC_VM_FB_LOCATION_TOP": (0, 0x1679, 0x1615), "RLC_RLCS_BOOTLOAD_STATUS": (1, 0x4E82, 0x4E7C),
    "GCVM_CONTEXT0_CNTL": (0, 0x1688, 0x1624),
    "GCVM_CONTEXT0_PAGE_TABLE_BASE_ADDR_LO32": (0, 0x16F3, 0x168F),
    "GCVM_CONTEXT0_PAGE_TABLE_BASE_ADDR_HI32": (0, 0x16F4, 0x1690),
    "GCVM_CONTEXT0_PAGE_TABLE_START_ADDR_LO32": (0, 0x1713, 0x16AF),
    "GCVM_CONTEXT0_PAGE_TABLE_START_ADDR_HI32": (0, 0x1714, 0x16B0),
    "SDMA0_QUEUE0_RB_CNTL": (0, 0x80, 0x80), "SDMA0_QUEUE0_RB_BASE": (0, 0x81, 0x81),
    "SDMA0_QUEUE0_RB_BASE_HI": (0, 0x82, 0x82), "SDMA0_QUEUE0_RB_RPTR_ADDR_HI": (0, 0x88, 0x88),
    "SDMA0_QUEUE0_RB_RPTR_ADDR_LO": (0, 0x89, 0x87), "SDMA0_QUEUE0_DOORBELL_OFFSET": (0, 0xAB, 0x91),
    "SDMA0_QUEUE0_RB_WPTR_POLL_ADDR_HI": (0, 0xB2, 0x99), "SDMA0_QUEUE0_RB_WPTR_POLL_ADDR_LO": (0, 0xB3, 0x98),
    "SDMA0_QUEUE0_RB_WPTR": (0, 0x85, 0x85), "SDMA0_QUEUE0_RB_WPTR_HI": (0, 0x86, 0x86),
    "GCVM_L2_PROTECTION_FAULT_CNTL": (0, 0x15C4, 0x15CC), "GCVM_L2_PROTECTION_FAULT_ADDR_LO32": (0, 0x15C9, 0x15D2),
    "GCVM_L2_PROTECTION_FAULT_ADDR_HI32": (0, 0x15CA, 0x15D3),
}
GC_FAULT_STATUS = ({"GCVM_L2_PROTECTION_FAULT_STATUS": (0, 0x15C8)},  # gfx12 splits it in two: the low half
                   {"GCVM_L2_PROTECTION_FAULT_STATUS_LO32": (0, 0x15D0)})
MMHUB_MOVED = {  # name -> (segment, offset in MMHUB 3.0.0, offset in MMHUB 4.1.0)
    "MMVM_INVALIDATE_ENG17_SEM": (0, 0x762, 0x586), "MMVM_INVALIDATE_ENG17_REQ": (0, 0x774, 0x598),
    "MMVM_INVALIDATE_ENG17_ACK": (0, 0x786, 0x5AA), "MMMC_VM_FB_LOCATION_BASE": (0, 0x8EC, 0x554),
    "MMMC_VM_FB_LOCATION_TOP": (0, 0x8ED, 0x555),
}


# gfx9 (GC 9.4.3: MI300; AM reads GC 9.5.0, MI350, with the same header): the same registers, CDNA's offsets
GC_9_4_3 = {
    "CP_STAT": (0, 0x1A0), "RLC_SAFE_MODE": (1, 0x4C05), "GRBM_GFX_CNTL": (0, 0x22), "SH_MEM_BASES": (0, 0x30A),
    "SH_MEM_CONFIG": (0, 0x30D), "CP_MQD_BASE_ADDR": (0, 0x1245), "CP_HQD_ACTIVE": (0, 0x1247),
    "CP_HQD_VMID": (0, 0x1248), "CP_HQD_PQ_BASE": (0, 0x124D), "CP_HQD_PQ_BASE_HI": (0, 0x124E),
    "CP_HQD_PQ_RPTR_REPORT_ADDR": (0, 0x1250), "CP_HQD_PQ_RPTR_REPORT_ADDR_HI": (0, 0x1251),
    "CP_HQD_PQ_WPTR_POLL_ADDR": (0, 0x1252), "CP_HQD_PQ_WPTR_POLL_ADDR_HI": (0, 0x1253),
    "CP_HQD_PQ_DOORBELL_CONTROL": (0, 0x1254), "CP_HQD_PQ_CONTROL": (0, 0x1256), "CP_HQD_DEQUEUE_REQUEST": (0, 0x125D),
    "CP_HQD_AQL_CONTROL": (0, 0x127A), "CP_HQD_PQ_WPTR_LO": (0, 0x127B), "CP_HQD_PQ_WPTR_HI": (0, 0x127C),
    "GCVM_INVALIDATE_ENG17_SEM": (0, 0x882), "GCVM_INVALIDATE_ENG17_REQ": (0, 0x894),
    "GCVM_INVALIDATE_ENG17_ACK": (0, 0x8A6),
    "GCMC_VM_FB_LOCATION_BASE": (0, 0x95C), "GCMC_VM_FB_LOCATION_TOP": (0, 0x95D), "GCVM_CONTEXT0_CNTL": (0, 0x860),
    "GCVM_CONTEXT0_PAGE_TABLE_BASE_ADDR_LO32": (0, 0x8CB), "GCVM_CONTEXT0_PAGE_TABLE_BASE_ADDR_HI32": (0, 0x8CC),
    "GCVM_CONTEXT0_PAGE_TABLE_START_ADDR_LO32": (0, 0x8EB), "GCVM_CONTEXT0_PAGE_TABLE_START_ADDR_HI32": (0, 0x8EC),
    "GCVM_L2_PROTECTION_FAULT_CNTL": (0, 0x827), "GCVM_L2_PROTECTION_FAULT_STATUS": (0, 0x82B),
    "GCVM_L2_PROTECTION_FAULT_ADDR_LO32": (0, 0x82C), "GCVM_L2_PROTECTION_FAULT_ADDR_HI32": (0, 0x82D),
}
# the interrupt ring's registers (OSSSYS 4.4.2 on MI300/MI350, 6.0.0 on gfx11 share offsets; 7.0.0 moved them)
IH_4_4_2 = {"IH_RB_CNTL": (0, 0x80), "IH_RB_BASE": (0, 0x81), "IH_RB_BASE_HI": (0, 0x82), "IH_RB_RPTR": (0, 0x83),
            "IH_RB_WPTR": (0, 0x84)}
IH_7_0_0 = {"IH_RB_CNTL": (0, 0x80), "IH_RB_RPTR": (0, 0x81), "IH_RB_WPTR": (0, 0x82), "IH_RB_BASE": (0, 0x83),
            "IH_RB_BASE_HI": (0, 0x84)}
MMHUB_1_8_0 = {"MMVM_INVALIDATE_ENG17_SEM": (0, 0xBC2), "MMVM_INVALIDATE_ENG17_REQ": (0, 0xBD4),
               "MMVM_INVALIDATE_ENG17_ACK": (0, 0xBE6), "MMMC_VM_FB_LOCATION_BASE": (0, 0xC9C),
               "MMMC_VM_FB_LOCATION_TOP": (0, 0xC9D)}
# SDMA 4.4 (its own block, one instance per engine): the gfx ring's registers, as SDMA0_QUEUE0_* on gfx11
SDMA_4_4 = {f"SDMA_GFX_{name}": (0, offset) for name, offset in (
    ("RB_CNTL", 0x80), ("RB_BASE", 0x81), ("RB_BASE_HI", 0x82), ("RB_RPTR_ADDR_HI", 0x88), ("RB_RPTR_ADDR_LO", 0x89),
    ("DOORBELL_OFFSET", 0xAB), ("RB_WPTR_POLL_ADDR_HI", 0xB2), ("RB_WPTR_POLL_ADDR_LO", 0xB3), ("RB_WPTR", 0x85),
    ("RB_WPTR_HI", 0x86))}
# NBIO 7.9 (MI300, MI350): the indirect windows, and PCIE_INDEX2/DATA2, which reach other AIDs' registers too
NBIO_7_9 = {"BIF_BX_PF0_RSMU_INDEX": (1, 0x0), "BIF_BX_PF0_RSMU_DATA": (1, 0x1),
            "BIF_BX0_REMAP_HDP_MEM_FLUSH_CNTL": (2, 0x12D), "BIF_BX0_PCIE_INDEX2": (0, 0xE),
            "BIF_BX0_PCIE_DATA2": (0, 0xF), "BIF_BX0_PCIE_INDEX2_HI": (0, 0x11)}


def _column(moved: dict, generation: int) -> dict[str, tuple[int, int]]:
    return {name: (segment, offsets[generation]) for name, (segment, *offsets) in moved.items()}


NBIF_REGISTERS = {"BIF_BX_PF0_RSMU_INDEX": (1, 0x0), "BIF_BX_PF0_RSMU_DATA": (1, 0x1),
                  "BIF_BX0_REMAP_HDP_MEM_FLUSH_CNTL": (2, 0x12D)}

OFFSETS = {
    (MP0, (13, 0, 0)): {f"MP0_SMN_C2PMSG_{n}": (0, 0x40 + n) for n in PSP_MAILBOXES},
    (MP0, (13, 0, 6)): {f"MP0_SMN_C2PMSG_{n}": (0, 0x40 + n) for n in PSP_MAILBOXES},
    (MP0, (13, 0, 12)): {f"MP0_SMN_C2PMSG_{n}": (0, 0x40 + n) for n in PSP_MAILBOXES},
    (MP0, (14, 0, 3)): {f"MPASP_SMN_C2PMSG_{n}": (0, 0x40 + n) for n in PSP_MAILBOXES},
    # the SMU mailbox is at the same place on every part AM drives (it reads it with mp_11_0_0's offsets)
    (MP1, None): {f"MP1_SMN_C2PMSG_{n}": (0, 0x240 + n) for n in (53, 54, 66, 75, 82, 90)},
    (NBIF, (4, 3, 0)): NBIF_REGISTERS,
    (NBIF, (6, 3, 1)): NBIF_REGISTERS,
    (NBIF, (7, 9, 0)): NBIO_7_9,
    (NBIF, (7, 9, 1)): NBIO_7_9,
    (MMHUB, (1, 8, 0)): MMHUB_1_8_0,
    (MMHUB, (1, 8, 1)): MMHUB_1_8_0,
    (GC, (9, 4, 3)): GC_9_4_3,
    (GC, (9, 5, 0)): GC_9_4_3,
    (SDMA0, (4, 4, 2)): SDMA_4_4,
    (SDMA0, (4, 4, 4)): SDMA_4_4,
    (MMHUB, (3, 0, 0)): _column(MMHUB_MOVED, 0),
    (MMHUB, (4, 1, 0)): _column(MMHUB_MOVED, 1),
    (GC, (11, 0, 0)): {**GC_SHARED, **_column(GC_MOVED, 0), **GC_FAULT_STATUS[0]},
    (GC, (12, 0, 1)): {**GC_SHARED, **_column(GC_MOVED, 1), **GC_FAULT_STATUS[1]},
    (OSSSYS, (4, 4, 2)): IH_4_4_2,
    (OSSSYS, (6, 0, 0)): IH_4_4_2,
    (OSSSYS, (7, 0, 0)): IH_7_0_0,
}


def offsets(hw_id: int, version: tuple[int, int, int]) -> dict[str, tuple[int, int]]:
    return OFFSETS.get((hw_id, version), OFFSETS.get((hw_id, None), {}))
