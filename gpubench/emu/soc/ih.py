"""The interrupt handler (IH, in OSSSYS): the ring in VRAM where the GPU posts what happened, and the
GC hub's protection-fault registers a driver reads when a VM fault arrives.

Ring 0 is what the driver programs in IH_RB_BASE/_HI (MC address >> 8) and IH_RB_CNTL (RB_ENABLE,
RB_SIZE: log2 of its dwords); the IH writes 32-byte entries (soc15_ih_clientid.h's layout: dword 0
client id, source id, ring id, VMID; dwords 1-2 a timestamp; dword 3 PASID and node; dwords 4-7
source data) and moves IH_RB_WPTR (a byte offset) past them; the driver reads entries up to it and
moves IH_RB_RPTR. The IH keeps no read pointer of its own: an entry is written whether or not the
driver has read the one it lands on (no overflow detection: a 256 KiB ring holds 8,192 entries).

A VM fault (an access the page tables do not allow, from a wave or a command processor) latches
GCVM_L2_PROTECTION_FAULT_STATUS and _ADDR_LO32/_HI32 (the page, bits 12-47) unless a fault is
latched already (then only MORE_FAULTS is set), until the driver clears them through
PROTECTION_FAULT_CNTL's CLEAR_PROTECTION_FAULT_STATUS_ADDR (a trigger: it reads back 0), and posts
an entry whose source data is the page (dword 4: bits 12-43, dword 5: bits 44-47, bit 5 for a
write), as gmc_v9/v10/v11/v12 decode it. STATUS's PERMISSION_FAULTS nibble is 1 for an invalid
entry, 2 a read, 4 a write, 8 an execute of a page whose PTE forbids it (the order of
VM_CONTEXT*_CNTL's fault enables); MAPPING_ERROR is set for an address with no valid entry at all.
A malformed packet stream posts CP_BAD_OPCODE_ERROR from the CP.

Which client and source a GPU event arrives as depends on the IH generation (`SOURCES`).
"""
from __future__ import annotations

import itertools
import logging

import numpy as np

from gpubench.emu.soc.chips import GC, OSSSYS
from gpubench.emu.soc.registers import Register

log = logging.getLogger("gpubench.soc")

ENTRY_DWORDS = 8
RB_ENABLE = 1
CLEAR_STATUS_ADDR = 1
MORE_FAULTS, MAPPING_ERROR, RW_WRITE = 1 << 0, 1 << 8, 1 << 18
PERMISSION_SHIFT = 4
PERMISSION = {"valid": 0x1, "read": 0x2, "write": 0x4, "execute": 0x8}
WRITE_FAULT = 1 << 5  # in source data dword 1
# (client id, source id) by GC generation: soc15_ih_clientid.h / soc21_ih_clientid.h, the gfx and vmc irqsrcs
SOC15_UTCL2, SOC21_GFX, GRBM_CP, UTCL2_FAULT, CP_BAD_OPCODE_ERROR = 27, 10, 20, 0, 183
SOURCES = {
    "vm_fault": {9: (SOC15_UTCL2, UTCL2_FAULT), 11: (SOC21_GFX, UTCL2_FAULT), 12: (SOC21_GFX, UTCL2_FAULT)},
    "bad_opcode": {9: (GRBM_CP, CP_BAD_OPCODE_ERROR), 11: (GRBM_CP, CP_BAD_OPCODE_ERROR),
                   12: (GRBM_CP, CP_BAD_OPCODE_ERROR)},
}


class InterruptHandler:
    def __init__(self, soc):
        self.soc = soc
        self.generation = soc.chip.version(GC)[0]
        self.status = "GCVM_L2_PROTECTION_FAULT_STATUS" + ("_LO32" if self.generation >= 12 else "")
        self.clock = itertools.count(1)
        self.posted: list[list[int]] = []  # every entry written, in order (what the ring received)

    def _load(self, hw_id: int, name: str) -> int:
        return self.soc.registers.load(self.soc.address(hw_id, name))

    def _store(self, hw_id: int, name: str, value: int) -> None:
        self.soc.registers.store(self.soc.address(hw_id, name), value & 0xFFFFFFFF)

    def post(self, event: str, data: tuple[int, ...] = ()) -> None:
        client, source = SOURCES[event][self.generation]
        stamp = next(self.clock)
        entry = [client | source << 8, stamp & 0xFFFFFFFF, stamp >> 32 & 0xFFFF, 0, *data, 0, 0, 0, 0][:ENTRY_DWORDS]
        self.posted.append(entry)
        control = self._load(OSSSYS, "IH_RB_CNTL")
        if not control & RB_ENABLE:
            log.info("ih: %s (%s) with the interrupt ring disabled", event, entry)
            return
        ring_bytes = 4 << (control >> 1 & 0x1F)
        base = ((self._load(OSSSYS, "IH_RB_BASE_HI") << 32) | self._load(OSSSYS, "IH_RB_BASE")) << 8
        write = self._load(OSSSYS, "IH_RB_WPTR") & (ring_bytes - 1) & ~3
        self.soc.mc_view(base + write, ENTRY_DWORDS * 4).view(np.uint32)[:] = entry
        self._store(OSSSYS, "IH_RB_WPTR", (write + ENTRY_DWORDS * 4) % ring_bytes)

    def vm_fault(self, address: int, write: bool, permission: str | None) -> None:
        """An access to `address` the page tables refused: `permission` names the PTE bit it lacked,
        None for an address no valid entry maps."""
        status = self._load(GC, self.status)
        if status:
            self._store(GC, self.status, status | MORE_FAULTS)
        else:
            kind = PERMISSION[permission] if permission else PERMISSION["valid"]
            self._store(GC, self.status, kind << PERMISSION_SHIFT | (0 if permission else MAPPING_ERROR)
                        | (RW_WRITE if write else 0))
            self._store(GC, "GCVM_L2_PROTECTION_FAULT_ADDR_LO32", address >> 12)
            self._store(GC, "GCVM_L2_PROTECTION_FAULT_ADDR_HI32", address >> 44 & 0xF)
        self.post("vm_fault", (address >> 12 & 0xFFFFFFFF, (address >> 44 & 0xF) | (WRITE_FAULT if write else 0)))

    def _fault_control(self, value: int) -> None:
        if value & CLEAR_STATUS_ADDR:
            for name in (self.status, "GCVM_L2_PROTECTION_FAULT_ADDR_LO32", "GCVM_L2_PROTECTION_FAULT_ADDR_HI32"):
                self._store(GC, name, 0)
            self._store(GC, "GCVM_L2_PROTECTION_FAULT_CNTL", value & ~CLEAR_STATUS_ADDR)

    def registers(self):
        return [(GC, "GCVM_L2_PROTECTION_FAULT_CNTL", Register(on_write=self._fault_control))]
