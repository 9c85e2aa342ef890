"""gfx12's S_ALLOC_VGPR (manual, after the RDNA4 manual's pseudocode: n = ReallocVgprs(S0[8:0]); SCC
is set when n is not negative, and then the wave holds n VGPRs).

ReallocVgprs belongs to dynamic VGPR mode, where a wave grows and shrinks its VGPRs in blocks; the
emulator runs every wave with the fixed allocation its dispatch gave it (no dispatch asks for dynamic
mode). So the wave keeps its VGPRs: a request of at most that many succeeds (SCC = 1) and a larger one
fails (SCC = 0), as a request the hardware cannot grant does. Inferred, not measured: LLVM's
llvm.amdgcn.s.alloc.vgpr "returns true if the allocation succeeded" and leaves the wave's other
VGPRs to the caller.
"""
from __future__ import annotations

import numpy as np

from gpubench.emu.context import Context
from gpubench.emu.ops import factory
from gpubench.emu.ops import operands as opnd
from gpubench.isa.decoder import Instruction


@factory
def alloc_vgpr(inst: Instruction):
    if inst.name != "S_ALLOC_VGPR":
        return None
    literal = inst.get("literal")

    def run(ctx: Context, waves: np.ndarray) -> None:
        requested = opnd.read_scalar(ctx, waves, inst["ssrc0"], 32, literal=literal) & 0x1FF
        ctx.waves.scc[waves] = requested <= ctx.waves.vgpr.shape[1]
        ctx.waves.pc[waves] += inst.size

    return run
