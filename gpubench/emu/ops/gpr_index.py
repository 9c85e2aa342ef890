"""Manual: GFX9's VGPR index mode (gfx942, gfx950). S_SET_GPR_IDX_ON sets MODE.GPR_IDX_EN, M0[7:0] to the
index (S0) and M0[15:12] to the operands it moves (the raw SRC1 field: bit 12 SRC0, 13 SRC1, 14 SRC2, 15
DST); S_SET_GPR_IDX_OFF clears GPR_IDX_EN (S_SET_GPR_IDX_IDX / _MODE rewrite M0's fields: their
pseudocode). While GPR_IDX_EN is set, each VALU instruction reads and writes the VGPRs its enabled
operands name plus M0[7:0]; SGPRs, constants and literals are not moved.

The pseudocode of S_SET_GPR_IDX_ON/OFF names WAVE_MODE.GPR_IDX_EN: MODE bit 27 (GFX9's MODE register, as
HW_REG_MODE reads it; LLVM's SIDefines.h VGPRIndexMode for the M0[15:12] bits). An indexed VALU
instruction runs as the same instruction with its register fields moved (`moved`): one handler per
index and enable set, cached. The native engine leaves waves in index mode to the reference engine
(native/engine.py), which runs every handler through `relative`.

Inferred, not in the manuals' pseudocode: which operands move (VGPR operands of VALU instructions
only, as LLVM uses the mode: s_set_gpr_idx_on around a v_mov_b32 for a dynamic extract or insert).
A moved register past v255 is not encodable: the instruction stops as illegal.
"""
from __future__ import annotations

import numpy as np

from gpubench.emu.context import Context
from gpubench.emu.ops import Handler, factory
from gpubench.emu.ops import operands as opnd
from gpubench.isa.decoder import Instruction

GPR_IDX_EN = np.uint32(1 << 27)
M0 = 124  # CDNA's M0 in the scalar operand space
VALU_ROOTS = ("VOP1", "VOP2", "VOP3", "VOP3P", "VOPC", "VOP3SD")
# M0[15:12]'s enable bits and the encoding fields each moves: a 9-bit source holds a VGPR from 256 on,
# a VGPR field (the DPP/SDWA register of src0, VOP2's vsrc1, vdst) always names one
OPERAND_FIELDS = ((0, ("src0", "vsrc0")), (1, ("src1", "vsrc1")), (2, ("src2",)), (3, ("vdst",)))


def _mode_setter(enable: bool, inst: Instruction) -> Handler:
    def run(ctx: Context, waves: np.ndarray) -> None:
        w = ctx.waves
        if enable:
            index = opnd.read_scalar(ctx, waves, inst["ssrc0"], 32, None, inst.get("literal")) & np.uint32(0xFF)
            operands = np.uint32((inst["ssrc1"] & 0xF) << 12)
            w.sgpr[waves, M0] = (w.sgpr[waves, M0] & np.uint32(~0xF0FF & 0xFFFFFFFF)) | index | operands
            w.mode[waves] |= GPR_IDX_EN
        else:
            w.mode[waves] &= ~GPR_IDX_EN
        w.pc[waves] += inst.size
    return run


@factory
def index_mode(inst: Instruction):
    if inst.isa.arch != "cdna" or inst.name not in ("S_SET_GPR_IDX_ON", "S_SET_GPR_IDX_OFF"):
        return None
    return _mode_setter(inst.name == "S_SET_GPR_IDX_ON", inst)


def moved(inst: Instruction, index: int, operands: int) -> Instruction:
    """``inst`` with the VGPRs of the operands ``operands`` enables (M0[15:12]) moved by ``index``."""
    word = inst.word
    for bit, names in OPERAND_FIELDS:
        if not operands >> bit & 1:
            continue
        for name in names:
            field, operand = inst.fmt.field(name), inst.idef.operand(name)
            if field is None or (field.kind == "SrcField" and field.get(word) < opnd.VGPR_BASE) or \
                    field.kind not in ("SrcField", "VGPRField") or (operand and "SREG" in operand.type):
                continue  # not a VGPR (v_readlane/v_readfirstlane write an SGPR through their vdst field)
            register = field.get(word) + index
            if register > field.mask:
                raise ValueError(f"VGPR index mode moves {name} of {inst.name} past v255 (index {index})")
            word = field.put(word, register)
    return Instruction(inst.isa, inst.fmt, inst.idef, word, inst.size, inst.offset, inst.idef_y)


def relative(inst: Instruction, handler: Handler, claim) -> Handler:
    """``handler`` for a CDNA VALU instruction, running the waves in index mode as `moved` instructions
    (their handlers from ``claim``); any other instruction's handler unchanged."""
    if inst.isa.arch != "cdna" or inst.isa.root_of(inst.fmt) not in VALU_ROOTS:
        return handler
    variants: dict[tuple[int, int], Handler] = {}

    def run(ctx: Context, waves: np.ndarray) -> None:
        w = ctx.waves
        indexed = (w.mode[w.rows(waves)] & GPR_IDX_EN) != 0
        if not indexed.any():
            handler(ctx, waves)
            return
        waves = np.asarray(waves)
        if not indexed.all():
            handler(ctx, waves[~indexed])
        at = waves[indexed]
        m0 = w.sgpr[at, M0]
        keys = (m0 & np.uint32(0xFF)) | ((m0 >> np.uint32(12) & np.uint32(0xF)) << np.uint32(8))
        for key in np.unique(keys).tolist():
            variant = variants.get(key)
            if variant is None:
                variant = variants[key] = claim(moved(inst, key & 0xFF, key >> 8))
            variant(ctx, at[keys == key])
    return run
