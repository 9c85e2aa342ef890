"""Manual: data movement across lanes and across registers, which the pseudocode writes as
``VGPR[lane][reg]`` or ``SGPR[M0 + reg]`` and the compiler leaves to the emulator.

Facts from AMD's RDNA3/RDNA4/CDNA3 ISA manuals (the instructions' pseudocode) and LLVM's AMDGPUUsage:
  - v_readlane / v_writelane select the lane with S1 modulo the wave size; v_writelane ignores EXEC.
    v_readfirstlane reads the lowest lane that EXEC enables, lane 0 when EXEC is zero.
  - v_permlane16 / v_permlanex16 take 16 nibble selectors {S2, S1}: lane row*16+i reads lane
    sel[i] of its own row (permlane16) or of the other row of its pair, 0<->1, 2<->3 (permlanex16).
    op_sel[0] is FI (fetch inactive lanes too), op_sel[1] is BOUND_CTRL: without FI, a lane whose
    source lane is inactive gets 0 with BOUND_CTRL, else keeps its old value.
    The _VAR forms (gfx12) take each lane's selector from bits 3:0 of its lane of VGPR S1.
  - v_permlane64 swaps the halves of a wave64; in wave32 it does nothing. gfx950's
    v_permlane16_swap / v_permlane32_swap exchange src0's lanes 0-15 (and 32-47) with vdst's lanes
    16-31 (48-63), or src0's lanes 0-31 with vdst's 32-63 (run with EXEC all ones only: the
    pseudocode does not say what FI and BOUND_CTRL do to inactive lanes).
  - v_movrels/v_movreld/v_movrelsd add M0 to the source / destination VGPR number, v_movrelsd_2 and
    v_swaprel add M0[9:0] to the source and M0[25:16] to the destination; s_movrels/s_movreld index
    SGPRs by M0, s_movrelsd_2 like v_movrelsd_2. An index past the register file stops the dispatch
    naming it. v_swap_b32 / v_swap_b16 exchange two VGPRs (16-bit halves: true16) in the active lanes.
"""
from __future__ import annotations

import numpy as np

from gpubench.emu.context import Context
from gpubench.emu.ops import Unsupported, factory
from gpubench.emu.ops import operands as opnd
from gpubench.isa.decoder import Instruction


def _m0(inst: Instruction) -> int:
    return 124 if inst.isa.arch == "cdna" else 125


def _vgpr(inst: Instruction, field: str) -> int:
    """The VGPR a 9-bit source field names (vdst fields are VGPR numbers already)."""
    value = inst[field]
    if value < opnd.VGPR_BASE:
        raise ValueError(f"{inst.name}: {field} must be a VGPR")
    return value - opnd.VGPR_BASE


def _advance(ctx: Context, waves: np.ndarray, inst: Instruction) -> None:
    ctx.waves.pc[waves] += inst.size


def _lane_select(ctx: Context, waves: np.ndarray, inst: Instruction) -> np.ndarray:
    return opnd.read_scalar(ctx, waves, inst["src1"], 32, literal=inst.get("literal")) % ctx.waves.wave_size


def readlane(inst: Instruction):
    src, sdst = _vgpr(inst, "src0"), inst["vdst"]

    def run(ctx: Context, waves: np.ndarray) -> None:
        value = ctx.waves.vgpr[waves, src, _lane_select(ctx, waves, inst)]
        opnd.write_scalar(ctx, waves, sdst, value, 32)
        _advance(ctx, waves, inst)
    return run


def readfirstlane(inst: Instruction):
    src, sdst = _vgpr(inst, "src0"), inst["vdst"]

    def run(ctx: Context, waves: np.ndarray) -> None:
        active = ctx.waves.exec_mask(waves)
        lane = np.where(active.any(axis=1), active.argmax(axis=1), 0)
        opnd.write_scalar(ctx, waves, sdst, ctx.waves.vgpr[waves, src, lane], 32)
        _advance(ctx, waves, inst)
    return run


def writelane(inst: Instruction):
    dst = inst["vdst"]

    def run(ctx: Context, waves: np.ndarray) -> None:
        value = opnd.read_scalar(ctx, waves, inst["src0"], 32, literal=inst.get("literal"))
        ctx.waves.vgpr[waves, dst, _lane_select(ctx, waves, inst)] = value
        _advance(ctx, waves, inst)
    return run


def _gather_lanes(values: np.ndarray, lanes: np.ndarray) -> np.ndarray:
    """values [waves, lanes] read at per-lane source lanes [waves, lanes]."""
    return np.take_along_axis(values, lanes, axis=1)


def _nibble_selectors(ctx: Context, waves: np.ndarray, inst: Instruction) -> np.ndarray:
    """Each lane's selector [waves, lanes]: nibble lane%16 of the 64 bits {S2, S1}."""
    literal = inst.get("literal")
    selectors = opnd.read_scalar(ctx, waves, inst["src1"], 32, literal=literal).astype(np.uint64) | \
        (opnd.read_scalar(ctx, waves, inst["src2"], 32, literal=literal).astype(np.uint64) << np.uint64(32))
    shift = np.uint64(4) * (np.arange(ctx.waves.wave_size) % 16).astype(np.uint64)
    return ((selectors[:, None] >> shift) & np.uint64(0xF)).astype(np.int64)


def _vgpr_selectors(ctx: Context, waves: np.ndarray, inst: Instruction) -> np.ndarray:
    """Each lane's selector [waves, lanes]: bits 3:0 of its own lane of VGPR S1 (the _VAR forms)."""
    return (ctx.waves.vgpr[waves, _vgpr(inst, "src1"), :] & np.uint32(0xF)).astype(np.int64)


def permlane16(inst: Instruction, across: bool, variable: bool):
    src, dst = _vgpr(inst, "src0"), inst["vdst"]
    opsel = inst.get("opsel", 0)
    fetch_inactive, bound_ctrl = bool(opsel & 1), bool(opsel & 2)
    selectors = _vgpr_selectors if variable else _nibble_selectors

    def run(ctx: Context, waves: np.ndarray) -> None:
        w = ctx.waves
        row = (np.arange(w.wave_size) // 16) ^ (1 if across else 0)
        source = row * 16 + selectors(ctx, waves, inst)
        active = w.exec_mask(waves)
        old = w.vgpr[waves, dst, :]
        value = _gather_lanes(w.vgpr[waves, src, :], source)
        if not fetch_inactive:
            value = np.where(_gather_lanes(active, source), value, np.uint32(0) if bound_ctrl else old)
        w.vgpr[waves, dst, :] = np.where(active, value, old)
        _advance(ctx, waves, inst)
    return run


def permlane64(inst: Instruction):
    src, dst = _vgpr(inst, "src0"), inst["vdst"]

    def run(ctx: Context, waves: np.ndarray) -> None:
        w = ctx.waves
        if w.wave_size == 64:  # a NOP in wave32
            swapped = w.vgpr[waves, src, :][:, np.arange(64) ^ 32]
            w.vgpr[waves, dst, :] = np.where(w.exec_mask(waves), swapped, w.vgpr[waves, dst, :])
        _advance(ctx, waves, inst)
    return run


def permlane_swap(inst: Instruction, distance: int):
    """gfx950: src0's lanes in the low ``distance`` of each 2*``distance`` group trade places with
    vdst's lanes ``distance`` higher. What inactive lanes do (FI, BOUND_CTRL) the pseudocode does not
    say: the emulator runs these with EXEC all ones only."""
    src, dst = _vgpr(inst, "src0"), inst["vdst"]

    def run(ctx: Context, waves: np.ndarray) -> None:
        if not ctx.waves.exec_mask(waves).all():
            raise Unsupported(f"{inst.name} with inactive lanes")
        vgpr = ctx.waves.vgpr
        low = np.flatnonzero(np.arange(ctx.waves.wave_size) % (2 * distance) < distance)
        theirs = vgpr[waves, dst, :][:, low + distance]
        vgpr[waves[:, None], dst, low + distance] = vgpr[waves, src, :][:, low]
        vgpr[waves[:, None], src, low] = theirs
        _advance(ctx, waves, inst)
    return run


def swap_halves(inst: Instruction):
    """v_swap_b16 (gfx12, true16): the 16-bit halves its operands name trade places."""
    src, src_high = opnd.true16_vgpr(inst["src0"])
    dst, dst_high = inst["vdst"] & 0x7F, bool(inst["vdst"] & 0x80)
    src -= opnd.VGPR_BASE
    if src < 0:
        raise ValueError(f"{inst.name}: src0 must be a VGPR")

    def run(ctx: Context, waves: np.ndarray) -> None:
        vgpr = ctx.waves.vgpr
        active = ctx.waves.exec_mask(waves)
        a = opnd.half(vgpr[waves, src, :], src_high)
        b = opnd.half(vgpr[waves, dst, :], dst_high)
        opnd.write_vector(ctx, waves, dst, a, 16, active, high=dst_high)
        opnd.write_vector(ctx, waves, src, b, 16, active, high=src_high)
        _advance(ctx, waves, inst)
    return run


def _checked(index: np.ndarray, limit: int, inst: Instruction, kind: str) -> np.ndarray:
    if (index >= limit).any():
        raise ValueError(f"{inst.name}: M0-relative {kind} index {int(index.max())} is past the "
                         f"{limit} registers of the wave")
    return index


def _no_m0(m0: np.ndarray) -> np.ndarray:
    return np.zeros_like(m0)


def _all_m0(m0: np.ndarray) -> np.ndarray:
    return m0


def _m0_low(m0: np.ndarray) -> np.ndarray:
    return m0 & 0x3FF  # M0[9:0]


def _m0_high(m0: np.ndarray) -> np.ndarray:
    return (m0 >> 16) & 0x3FF  # M0[25:16]


def vgpr_move(inst: Instruction, source_offset, dest_offset, swap: bool):
    """VGPR[vdst + dest_offset(M0)] = VGPR[src0 + source_offset(M0)] in the active lanes, and the
    other way too when swapping. ``source_offset`` None: S0 is an ordinary operand (v_movreld)."""
    dst = inst["vdst"]

    def run(ctx: Context, waves: np.ndarray) -> None:
        w = ctx.waves
        m0 = w.sgpr[waves, _m0(inst)].astype(np.int64)
        count = w.vgpr.shape[1]
        rows, lanes = waves[:, None], np.arange(w.wave_size)[None, :]
        active = w.exec_mask(waves)
        d = _checked(dst + dest_offset(m0), count, inst, "destination")[:, None]
        if source_offset is None:
            value = opnd.read_vector(ctx, waves, inst["src0"], 32, literal=inst.get("literal"))
        else:
            s = _checked(_vgpr(inst, "src0") + source_offset(m0), count, inst, "source")[:, None]
            value = w.vgpr[rows, s, lanes]
        old = w.vgpr[rows, d, lanes]
        w.vgpr[rows, d, lanes] = np.where(active, value, old)
        if swap:
            w.vgpr[rows, s, lanes] = np.where(active, old, value)
        _advance(ctx, waves, inst)
    return run


def sgpr_move(inst: Instruction, relative_source: bool):
    """s_movrels: SGPR[sdst] = SGPR[ssrc0 + M0]; s_movreld: SGPR[sdst + M0] = S0 (32 or 64 bits)."""
    dwords = 2 if inst.name.endswith("_B64") else 1
    words = np.arange(dwords)

    def run(ctx: Context, waves: np.ndarray) -> None:
        w = ctx.waves
        m0 = w.sgpr[waves, _m0(inst)].astype(np.int64)
        limit = w.sgpr.shape[1] - dwords + 1
        if relative_source:
            s = _checked(inst["ssrc0"] + m0, limit, inst, "source")
            opnd.write_scalar(ctx, waves, inst["sdst"], _pack(w.sgpr[waves[:, None], s[:, None] + words]), 32 * dwords)
        else:
            value = opnd.read_scalar(ctx, waves, inst["ssrc0"], 32 * dwords, literal=inst.get("literal"))
            d = _checked(inst["sdst"] + m0, limit, inst, "destination")
            w.sgpr[waves[:, None], d[:, None] + words] = _unpack(value, dwords)
        _advance(ctx, waves, inst)
    return run


def sgpr_move_both(inst: Instruction):
    """s_movrelsd_2 (gfx12): SGPR[sdst + M0[25:16]] = SGPR[ssrc0 + M0[9:0]]."""
    def run(ctx: Context, waves: np.ndarray) -> None:
        w = ctx.waves
        m0 = w.sgpr[waves, _m0(inst)].astype(np.int64)
        limit = w.sgpr.shape[1]
        s = _checked(inst["ssrc0"] + _m0_low(m0), limit, inst, "source")
        d = _checked(inst["sdst"] + _m0_high(m0), limit, inst, "destination")
        w.sgpr[waves, d] = w.sgpr[waves, s]
        _advance(ctx, waves, inst)
    return run


def _pack(dwords: np.ndarray) -> np.ndarray:
    """[waves, 1 or 2] uint32 -> uint64 [waves], low dword first."""
    value = dwords[:, 0].astype(np.uint64)
    if dwords.shape[1] == 2:
        value |= dwords[:, 1].astype(np.uint64) << np.uint64(32)
    return value


def _unpack(value: np.ndarray, dwords: int) -> np.ndarray:
    value = value.astype(np.uint64)
    return np.stack([(value >> np.uint64(32 * k)) & np.uint64(0xFFFFFFFF) for k in range(dwords)],
                    axis=1).astype(np.uint32)


HANDLERS = {
    "V_READLANE_B32": readlane,
    "V_READFIRSTLANE_B32": readfirstlane,
    "V_WRITELANE_B32": writelane,
    "V_PERMLANE16_B32": lambda inst: permlane16(inst, across=False, variable=False),
    "V_PERMLANEX16_B32": lambda inst: permlane16(inst, across=True, variable=False),
    "V_PERMLANE16_VAR_B32": lambda inst: permlane16(inst, across=False, variable=True),
    "V_PERMLANEX16_VAR_B32": lambda inst: permlane16(inst, across=True, variable=True),
    "V_PERMLANE64_B32": permlane64,
    "V_PERMLANE16_SWAP_B32": lambda inst: permlane_swap(inst, 16),
    "V_PERMLANE32_SWAP_B32": lambda inst: permlane_swap(inst, 32),
    "V_SWAP_B16": swap_halves,
    "V_SWAP_B32": lambda inst: vgpr_move(inst, _no_m0, _no_m0, swap=True),
    "V_MOVRELS_B32": lambda inst: vgpr_move(inst, _all_m0, _no_m0, swap=False),
    "V_MOVRELD_B32": lambda inst: vgpr_move(inst, None, _all_m0, swap=False),
    "V_MOVRELSD_B32": lambda inst: vgpr_move(inst, _all_m0, _all_m0, swap=False),
    "V_MOVRELSD_2_B32": lambda inst: vgpr_move(inst, _m0_low, _m0_high, swap=False),
    "V_SWAPREL_B32": lambda inst: vgpr_move(inst, _m0_low, _m0_high, swap=True),
    "S_MOVRELS_B32": lambda inst: sgpr_move(inst, relative_source=True),
    "S_MOVRELS_B64": lambda inst: sgpr_move(inst, relative_source=True),
    "S_MOVRELD_B32": lambda inst: sgpr_move(inst, relative_source=False),
    "S_MOVRELD_B64": lambda inst: sgpr_move(inst, relative_source=False),
    "S_MOVRELSD_2_B32": sgpr_move_both,
}


@factory
def crosslane(inst: Instruction):
    make = HANDLERS.get(inst.name.removesuffix("_E32").removesuffix("_E64"))
    if make is None:
        return None
    root = inst.isa.root_of(inst.fmt)
    if inst.fmt.name != root and not inst.fmt.name.endswith(("_LIT", "_SDST")):
        return None  # DPP and SDWA forms: not these instructions' business
    return make(inst)
