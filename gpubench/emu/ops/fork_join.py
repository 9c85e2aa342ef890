"""Manual, after the CDNA manuals' pseudocode: GFX9's conditional fork and join (S_CBRANCH_G_FORK,
S_CBRANCH_I_FORK, S_CBRANCH_JOIN), which LLVM still assembles for gfx942 and gfx950.

A fork splits EXEC by a lane mask S0: when both sides have lanes, the wave goes on with the side of fewer
lanes and pushes the other side's { PC, EXEC } as 128 bits onto the control stack, which lives in
SGPRs: entry n is s[4n:4n+3] (mask in the low 64 bits), n being MODE.CSP (MODE[31:29], the Vega and
CDNA manuals' MODE layout), which the push increments. S_CBRANCH_JOIN with the CSP saved before the fork
(S0) pops an entry and resumes it while CSP differs from S0, and falls through once it is back. The
pseudocode's SGPR[...] and WAVE_MODE.CSP are register-file and MODE state, which the compiler leaves to
the emulator: so this module runs the text by hand.
"""
from __future__ import annotations

import numpy as np

from gpubench.emu.context import Context
from gpubench.emu.ops import factory
from gpubench.emu.ops import operands as opnd
from gpubench.emu.waves import EXEC_LO
from gpubench.isa.decoder import Instruction

CSP_SHIFT, CSP_MASK = 29, np.uint32(7 << 29)
NAMES = ("S_CBRANCH_G_FORK", "S_CBRANCH_I_FORK", "S_CBRANCH_JOIN")


def _csp(ctx: Context, waves: np.ndarray) -> np.ndarray:
    return ((ctx.waves.mode[waves] & CSP_MASK) >> np.uint32(CSP_SHIFT)).astype(np.int64)


def _set_csp(ctx: Context, waves: np.ndarray, csp: np.ndarray) -> None:
    mode = ctx.waves.mode
    mode[waves] = (mode[waves] & ~CSP_MASK) | ((csp.astype(np.uint32) & np.uint32(7)) << np.uint32(CSP_SHIFT))


def _entry_registers(csp: np.ndarray) -> np.ndarray:
    return (4 * csp)[:, None] + np.arange(4)  # [waves, 4]: mask low, mask high, PC low, PC high


def fork(ctx: Context, waves: np.ndarray, mask: np.ndarray, target: np.ndarray, size: int) -> None:
    w = ctx.waves
    exec_ = opnd.read_scalar(ctx, waves, EXEC_LO, 64)
    passing, failing = mask & exec_, ~mask & exec_
    count_pass, count_fail = np.bitwise_count(passing), np.bitwise_count(failing)
    after = w.pc[waves].astype(np.uint64) + np.uint64(size)
    split = (passing != exec_) & (failing != exec_)
    go_failing = split & (count_fail < count_pass)  # continue with the smaller side
    new_exec = np.where(go_failing, failing, passing)
    saved_mask = np.where(go_failing, passing, failing)
    saved_pc = np.where(go_failing, target, after)
    new_pc = np.where(passing == exec_, target, np.where(failing == exec_, after, np.where(go_failing, after, target)))
    where = waves[split]
    if where.size:
        csp = _csp(ctx, where)
        words = np.stack([saved_mask[split] & np.uint64(0xFFFFFFFF), saved_mask[split] >> np.uint64(32),
                          saved_pc[split] & np.uint64(0xFFFFFFFF), saved_pc[split] >> np.uint64(32)], axis=1)
        w.sgpr[where[:, None], _entry_registers(csp)] = words.astype(np.uint32)
        _set_csp(ctx, where, csp + 1)
        opnd.write_scalar(ctx, where, EXEC_LO, new_exec[split], 64)
    w.pc[waves] = new_pc.astype(np.int64)


@factory
def fork_join(inst: Instruction):
    if inst.name not in NAMES or inst.isa.arch != "cdna":
        return None
    if inst.name == "S_CBRANCH_JOIN":
        def join(ctx: Context, waves: np.ndarray) -> None:
            w = ctx.waves
            saved = opnd.read_scalar(ctx, waves, inst["ssrc0"], 32).astype(np.int64)
            csp = _csp(ctx, waves)
            popping = csp != saved
            where, csp = waves[popping], csp[popping] - 1
            w.pc[waves[~popping]] += inst.size
            if where.size:
                _set_csp(ctx, where, csp)
                words = w.sgpr[where[:, None], _entry_registers(csp)].astype(np.uint64)
                opnd.write_scalar(ctx, where, EXEC_LO, words[:, 0] | words[:, 1] << np.uint64(32), 64)
                w.pc[where] = (words[:, 2] | words[:, 3] << np.uint64(32)).astype(np.int64)
        return join
    if inst.name == "S_CBRANCH_G_FORK":
        def g_fork(ctx: Context, waves: np.ndarray) -> None:
            mask = opnd.read_scalar(ctx, waves, inst["ssrc0"], 64, literal=inst.get("literal"))
            target = opnd.read_scalar(ctx, waves, inst["ssrc1"], 64, literal=inst.get("literal"))
            fork(ctx, waves, mask, target, inst.size)
        return g_fork
    offset = (inst["simm16"] ^ 0x8000) - 0x8000

    def i_fork(ctx: Context, waves: np.ndarray) -> None:
        mask = opnd.read_scalar(ctx, waves, inst["sdst"], 64)
        target = (ctx.waves.pc[waves] + 4 * offset + 4).astype(np.uint64)
        fork(ctx, waves, mask, target, inst.size)
    return i_fork
