"""The memory hubs' (MMHUB, GCHUB) registers with behaviour: where VRAM sits in the memory
controller's address space (FB_LOCATION, set by firmware before any driver runs), and invalidation
engine 17, which AM uses for every TLB flush: a semaphore a read acquires and a write of 0 releases,
and a request whose per-VMID bits come back in the ACK register once the invalidation is done.

An invalidation of GC VMID 0 rebuilds the GPU's translations from the page tables (mmu.py) and
completes at once. Every hub instance (an MMHUB per AID, a GC hub per XCC on MI300/MI350) has its
own engine; the command processor runs every XCC's work through XCC 0's translations, so XCC 0's
invalidation is the one that rebuilds them (AM, like amdgpu, invalidates every XCC after a change).
"""
from __future__ import annotations

from gpubench.emu.soc.chips import GC, MMHUB
from gpubench.emu.soc.registers import Register

PER_VMID_BITS = 0xFFFF


class InvalidationEngine:
    def __init__(self, soc, hw_id: int, prefix: str, instance: int = 0):
        self.soc, self.hw_id, self.prefix, self.instance = soc, hw_id, prefix, instance
        self.semaphore_held = False

    def _acquire(self) -> int:
        if self.semaphore_held:
            return 0
        self.semaphore_held = True
        return 1

    def _release(self, value: int) -> None:
        self.semaphore_held = bool(value & 1)

    def _request(self, value: int) -> None:
        if self.hw_id == GC and self.instance == 0 and value & 1 and self.soc.gpuvm is not None:
            self.soc.gpuvm.invalidate()  # VMID 0: the translations the CP and shaders use
        self.soc.registers.store(self.soc.address(self.hw_id, f"{self.prefix}VM_INVALIDATE_ENG17_ACK", self.instance),
                                 value & PER_VMID_BITS)

    def registers(self):
        semaphore = Register(on_read=self._acquire, on_write=self._release)
        return [(self.hw_id, f"{self.prefix}VM_INVALIDATE_ENG17_SEM", semaphore, self.instance),
                (self.hw_id, f"{self.prefix}VM_INVALIDATE_ENG17_REQ", Register(on_write=self._request), self.instance)]


class MemoryHubs:
    def __init__(self, soc):
        self.soc = soc
        chip = soc.chip
        self.engines = ([InvalidationEngine(soc, MMHUB, "MM", i) for i in chip.instances(MMHUB)]
                        + [InvalidationEngine(soc, GC, "GC", i) for i in chip.instances(GC)])

    def registers(self):
        chip = self.soc.chip
        base, top = chip.fb_base >> 24, (chip.fb_base + chip.vram_bytes - 1) >> 24
        location = [(hw_id, f"{prefix}MC_VM_FB_LOCATION_{which}", Register(reset=value), instance)
                    for hw_id, prefix in ((MMHUB, "MM"), (GC, "GC")) for instance in chip.instances(hw_id)
                    for which, value in (("BASE", base), ("TOP", top))]
        return location + [entry for engine in self.engines for entry in engine.registers()]
