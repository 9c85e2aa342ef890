"""gfx12's barrier state instructions (manual: the RDNA4 ISA manual's pseudocode, over barrier state the
emulator keeps in its wave states).

RDNA4 has two barriers: the workgroup barrier (-1) and the trap barrier (-2, privileged: a compute
wave outside a trap handler may not signal it); barrier 0 is a no-op (S_BARRIER_WAIT's text knows only
those). A positive number would name a named barrier, which RDNA4 does not have: S_BARRIER_INIT,
S_BARRIER_JOIN and S_BARRIER_LEAVE, which size, join and leave one, have no text in the RDNA4 manual
and are not emulated. The workgroup barrier is the emulator's: a wave that signals it waits
(control.py parks it) until every live wave of its workgroup has signalled, so its signalCnt is the
number of the workgroup's parked waves and its memberCnt the number of its live waves.

- S_BARRIER_SIGNAL_ISFIRST signals as S_BARRIER_SIGNAL and sets SCC for the first signal of the
  barrier's round: no wave of the workgroup parked yet, and (of waves signalling at the same time) the
  lowest-numbered; on barrier 0 and -2 it signals nothing and clears SCC.
- S_GET_BARRIER_STATE writes { signalCnt[22:16], memberCnt[10:4], valid[0] }: the workgroup barrier's
  counts, valid; every other number reads as an invalid barrier with no members (0).
"""
from __future__ import annotations

import numpy as np

from gpubench.emu.context import Context, ExecutionError
from gpubench.emu.ops import factory
from gpubench.emu.ops import operands as opnd
from gpubench.emu.waves import WaveState
from gpubench.isa.decoder import Instruction

M0 = 125  # gfx12's M0 in the scalar operand space
WORKGROUP, TRAP = -1, -2


def barrier_numbers(ctx: Context, waves: np.ndarray, source: int) -> np.ndarray:
    """The barrier each wave names: M0[4:0] when the operand is M0, else the operand as a signed value."""
    value = opnd.read_scalar(ctx, waves, source, 32).astype(np.uint32)
    return (value & 0x1F).astype(np.int64) if source == M0 else value.view(np.int32).astype(np.int64)


def workgroup_counts(ctx: Context, waves: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(waves parked at the barrier, live waves) of each given wave's workgroup."""
    w, groups = ctx.waves, ctx.waves.workgroup
    size = ctx.lds.shape[0]  # one LDS per workgroup
    parked = np.bincount(groups, weights=w.state == WaveState.BARRIER, minlength=size).astype(np.int64)
    live = np.bincount(groups, weights=w.state != WaveState.DONE, minlength=size).astype(np.int64)
    return parked[groups[waves]], live[groups[waves]]


def _named(inst: Instruction, numbers: np.ndarray) -> None:
    if (numbers > 0).any():
        raise ExecutionError(f"{inst.name}: barrier {int(numbers[numbers > 0][0])} is a named barrier, "
                             "which RDNA4 does not have")


@factory
def barrier_state(inst: Instruction):
    if inst.isa.arch != "rdna4" or inst.name not in ("S_BARRIER_SIGNAL_ISFIRST", "S_GET_BARRIER_STATE"):
        return None
    source = inst["ssrc0"]

    def signal_isfirst(ctx: Context, waves: np.ndarray) -> None:
        w = ctx.waves
        numbers = barrier_numbers(ctx, waves, source)
        _named(inst, numbers)
        signals = waves[numbers == WORKGROUP]
        parked, _ = workgroup_counts(ctx, signals)
        order = np.argsort(signals)
        _, firsts = np.unique(w.workgroup[signals][order], return_index=True)
        first_of_group = np.zeros(len(signals), bool)
        first_of_group[order[firsts]] = True
        w.scc[waves] = False
        w.scc[signals] = (parked == 0) & first_of_group
        w.state[signals] = WaveState.BARRIER
        w.pc[waves] += inst.size

    def get_state(ctx: Context, waves: np.ndarray) -> None:
        numbers = barrier_numbers(ctx, waves, source)
        parked, live = workgroup_counts(ctx, waves)
        state = (parked & 0x7F) << 16 | (live & 0x7F) << 4 | 1
        opnd.write_scalar(ctx, waves, inst["sdst"], np.where(numbers == WORKGROUP, state, 0).astype(np.uint32), 32)
        ctx.waves.pc[waves] += inst.size

    return signal_isfirst if inst.name == "S_BARRIER_SIGNAL_ISFIRST" else get_state
