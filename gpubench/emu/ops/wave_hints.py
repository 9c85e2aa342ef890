"""Scalar instructions without an architectural effect on a compute wave, and S_SETKILL (manual: the
RDNA3 ISA manual's prose; none has pseudocode).

- S_ATC_PROBE / S_ATC_PROBE_BUFFER ask the address-translation cache to prefetch a translation: a
  performance hint with no result (the emulator has no translation cache).
- S_CODE_END pads the end of a shader's code for the instruction prefetcher; it is never meant to
  run, and executing one does nothing but move on.
- S_SETKILL sets the wave's KILL bit to SIMM16[0], "primarily for debugging kill wave host command
  behavior": the emulator ends the wave when the bit is set (as a host kill would: it stops without
  running further instructions) and does nothing when it is clear.
"""
from __future__ import annotations

import numpy as np

from gpubench.emu.context import Context
from gpubench.emu.ops import factory
from gpubench.emu.waves import WaveState
from gpubench.isa.decoder import Instruction

HINTS = ("S_ATC_PROBE", "S_ATC_PROBE_BUFFER", "S_CODE_END")


@factory
def wave_hint(inst: Instruction):
    if inst.name in HINTS or (inst.name == "S_SETKILL" and not inst["simm16"] & 1):
        def advance(ctx: Context, waves: np.ndarray) -> None:
            ctx.waves.pc[waves] += inst.size
        return advance
    if inst.name == "S_SETKILL":
        def kill(ctx: Context, waves: np.ndarray) -> None:
            ctx.waves.state[waves] = WaveState.DONE
        return kill
    return None
