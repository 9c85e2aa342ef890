"""The vector ALU core: VOP1, VOP2, VOPC (the 32-bit "e32" encodings) and VOP3, VOP3SD (the 64-bit
"e64" ones) with their _LIT, _SDST, _DPP16 and _DPP8 variants.

Most VALU operations have both encodings; LLVM then names them `v_add_f32_e32` / `v_add_f32_e64`
and the DPP forms `v_add_f32_dpp` / `v_add_f32_e64_dpp`; an operation with one encoding only has
no suffix (`v_fma_f32`, `v_swap_b32`), and a VOPC compare's DPP form has none either. Text:

    mnemonic [vdst,] [sdst,] src0[, src1[, src2]] [op_sel:[..]] [clamp] [mul:2|mul:4|div:2] [dpp ...]

Operands come from the spec's operand tables (width, number format, register kind). Sources take
LLVM's modifiers: `-v1`, `|v1|`, `-|v1|`, `neg(1.0)` for a negated constant. On RDNA3, 16-bit
VGPR operands are written as halves (`v1.l`, `v1.h`, LLVM's "true16" syntax); LLVM 22 writes
RDNA4 and CDNA 16-bit operands as whole registers.

The helpers for one source with its modifiers (`render_source_operand`, `parse_source_operand`)
and for DPP controls (`dpp16_text`, `dpp8_text`, `parse_dpp`) are meant for VOP3P/VOPD/SDWA too.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field, replace

from gpubench.isa.arch import ISA
from gpubench.isa.decoder import Instruction
from gpubench.isa.model import Format, InstrDef, Operand
from gpubench.isa.syntax import common
from gpubench.isa.syntax import operands as ops
from gpubench.isa.syntax.salu import FLAT_SCRATCH_BASE, imm32_text
from gpubench.isa.syntax.base import AsmContext, FormatSyntax, register
from gpubench.isa.syntax.statement import AsmError, Piece, Statement


class EncodingError(ValueError):
    """Bytes that decode to a VALU format but that LLVM rejects (e.g. an SGPR where only a VGPR goes)."""


E32_ROOTS = ("VOP1", "VOP2", "VOPC")
E64_ROOTS = ("VOP3", "VOP3SD")
SOURCES = ("src0", "src1", "src2")
DPP16_SRC = 250
DPP8_SRC, DPP8_FI_SRC = 233, 234
NULL, NULL_NAME = 124, "null"  # RDNA
LDS_DIRECT = 254
OP_SEL_DST_BIT = 3
EXEC_LO = 126

# LLVM writes 16-bit VGPR halves (v1.l / v1.h) on these instruction sets; on the others LLVM 22
# still uses whole registers for 16-bit operands ("fake16").
TRUE16_ARCHS = frozenset({"rdna3"})

# VOP2 operations whose e32 form carries VCC implicitly, as LLVM writes it: a carry out after vdst
# and/or a carry (or select mask) in after the sources. The spec tables do not list VCC.
CARRY_OUT = frozenset({"v_add_co_ci_u32", "v_sub_co_ci_u32", "v_subrev_co_ci_u32", "v_add_co_u32",
                       "v_sub_co_u32", "v_subrev_co_u32", "v_addc_co_u32", "v_subb_co_u32",
                       "v_subbrev_co_u32"})
CARRY_IN = frozenset({"v_cndmask_b32", "v_add_co_ci_u32", "v_sub_co_ci_u32", "v_subrev_co_ci_u32",
                      "v_addc_co_u32", "v_subb_co_u32", "v_subbrev_co_u32"})

# VOP2 operations with a 32-bit constant K taken from the literal dword: `v_fmamk_f32 v0, v1, K, v2`
# multiplies by K, `v_fmaak_f32 v0, v1, v2, K` adds it. The spec lists only the register operands.
K_BEFORE_SRC1 = frozenset({"v_fmamk_f32", "v_fmamk_f16", "v_madmk_f32", "v_madmk_f16"})
K_AFTER_SRC1 = frozenset({"v_fmaak_f32", "v_fmaak_f16", "v_madak_f32", "v_madak_f16"})

# e32 operations that LLVM knows in no VOP3 form although the spec lists one, so it writes no
# _e32 suffix for them.
NO_E64 = frozenset({"v_readfirstlane_b32", "v_swap_b32", "v_accvgpr_mov_b32"})

# Operations whose select-like sources LLVM gives float modifiers although the spec types them B32/B16.
FLOAT_MODIFIER_OPS = frozenset({"v_cndmask_b32", "v_cndmask_b16"})

# Sources that the spec types as float but that take no neg/abs in LLVM: v_ldexp_f16's exponent.
UNMODIFIED_SOURCES = {"v_ldexp_f16": frozenset({1})}

# e64 forms of the accumulating VOP2 operations keep the accumulator as a hidden src2, which
# op_sel still counts: `v_fmac_f16_e64 ... op_sel:[0,1,0,0]`.
HIDDEN_SRC2 = frozenset({"v_fmac_f16", "v_mac_f16"})

# The e64 DPP forms of v_fmac take src1 in a class without inline constants: LLVM prints such a
# source's raw 9-bit code in hex (`v_fmac_f32_e64_dpp v1, v3, 0x87`) and cannot assemble it.
RAW_CODE_DPP_SRC1 = frozenset({"v_fmac_f32", "v_fmac_f16"})

# permlane's op_sel holds its two flags (fetch inactive, bound control), not source halves.
OP_SEL_FLAGS = frozenset({"v_permlane16_b32", "v_permlanex16_b32", "v_permlane16_var_b32",
                          "v_permlanex16_var_b32"})

# gfx950's lane swaps keep two flags in the e64 op_sel bits, written like DPP's: bit 0 fi:1, bit 1
# bound_ctrl:1 (which LLVM also reads from the historic bound_ctrl:0).
LANE_SWAP_OPS = frozenset({"v_permlane16_swap_b32", "v_permlane32_swap_b32"})
LANE_SWAP_FLAGS = (("bound_ctrl", 1), ("fi", 0))  # (word, op_sel bit) in LLVM's order

# RDNA4's FP8 conversions select a byte with two op_sel bits, written byte_sel:N: the stochastic-
# rounding ones the destination byte, the unpacking ones the source byte. Per operation: the op_sel
# bit that holds byte_sel's low bit and the one that holds its high bit. LLVM rejects the others.
BYTE_SEL_OPS = {"rdna4": {"v_cvt_sr_fp8_f32": (2, 3), "v_cvt_sr_bf8_f32": (2, 3),
                          "v_cvt_f32_fp8": (1, 0), "v_cvt_f32_bf8": (1, 0)}}

# gfx950's three-input bitwise operations keep their 8-bit truth table in the neg, abs and omod
# bits: bitop3 = neg | abs << 3 | omod << 6.
BITOP3_OPS = frozenset({"v_bitop3_b16", "v_bitop3_b32"})

# 16-bit operations that LLVM writes without op_sel (ignoring its bits): on RDNA3 v_cndmask_b16,
# whose halves .l/.h alone show it; on RDNA4 the operations that LLVM 22 defines in "fake16" form
# only (no op_sel operand), which are the VOP3-only ones that came from VOP2 (and/or/xor, shifts,
# min/max, mul_lo, cndmask) and the scalar-float ones, as llvm-mc shows.
NO_OP_SEL = {
    "rdna3": frozenset({"v_cndmask_b16"}),
    "rdna4": frozenset({"v_cndmask_b16", "v_and_b16", "v_or_b16", "v_xor_b16", "v_lshlrev_b16",
                        "v_lshrrev_b16", "v_ashrrev_i16", "v_max_i16", "v_max_u16", "v_min_i16",
                        "v_min_u16", "v_mul_lo_u16", "v_s_exp_f16", "v_s_log_f16", "v_s_rcp_f16",
                        "v_s_rsq_f16", "v_s_sqrt_f16"}),
}

# LLVM 22 gives the e64 forms of VOP1/VOP2/VOPC operations no op_sel on RDNA4 and CDNA (whatever
# the bits say), except RDNA4's FP8 unpacking conversions, whose op_sel picks the source word.
E64_TWINS_WITHOUT_OP_SEL = {"rdna4": frozenset({"v_cvt_pk_f32_fp8", "v_cvt_pk_f32_bf8"}), "cdna": frozenset()}

# LLVM reads an op_sel on CDNA's v_pk_fmac_f16_e64 (and echoes it in its text) but encodes none of it.
UNENCODED_OP_SEL = {"cdna": frozenset({"v_pk_fmac_f16"})}

# CDNA's *_legacy_* 16-bit operations keep the GFX8 encoding, which has no op_sel.
LEGACY_MARK = "_legacy_"

# LLVM's op_sel:[...] holds at most four entries on every operation, however many bits it has.
OP_SEL_ENTRIES = 4

# RDNA's VOP3 dot products (LLVM's IsDOT) read both halves of their packed src0 and src1.
WHOLE_PACKED_SOURCES = {arch: frozenset({"v_dot2_f16_f16", "v_dot2_bf16_bf16"}) for arch in ("rdna3", "rdna4")}
WHOLE_PACKED_SOURCES_OP_SEL = 0b11

OMOD_TEXT = {1: "mul:2", 2: "mul:4", 3: "div:2"}
OMOD_VALUE = {text: value for value, text in OMOD_TEXT.items()}

# ---- LLVM's remarks ---------------------------------------------------------------------------
# LLVM decodes some operands that its register classes do not allow and prints them with a remark
# (`s3/*Invalid register, operand has 'VGPR_32' register class*/`, `7/*Invalid immediate*/`); we
# print the same text. The assembler drops the /* */ comments.

INVALID_IMMEDIATE = "Invalid immediate"
DP_ALU_DPP = " /* DP ALU dpp only supports row_newbcast */"  # LLVM prints it in place of dpp_ctrl


def remarked(text: str, remark: str) -> str:
    return f"{text}/*{remark}*/"


def invalid_register(register_class: str) -> str:
    return f"Invalid register, operand has '{register_class}' register class"


# LLVM's register class of the VGPR-only and scalar-only sources (the remark names it): the
# lane reads' src0 (VGPR-only whatever the spec's type) also takes src_lds_direct, and so does
# v_writelane_b32's data source.
VGPR_ONLY_CLASS = {"v_readfirstlane_b32": "VRegOrLds_32", "v_readlane_b32": "VRegOrLds_32"}
DEFAULT_VGPR_ONLY_CLASS = "VGPR_32"
# A 16-bit e32 VGPR-only source (v_swap_b16's): RDNA3 flags a scalar there with its true16
# class; RDNA4's fake16 form rejects a scalar, and a VGPR past v127, outright.
VGPR_ONLY_16BIT_CLASS = {"rdna3": "VGPR_16_Lo128"}
SCALAR_ONLY_CLASS = {"rdna3": {("v_writelane_b32", 0): "SRegOrLds_32"},
                     "rdna4": {("v_writelane_b32", 0): "SRegOrLds_32"}}
DEFAULT_SCALAR_ONLY_CLASS = "SReg_32"
SCALAR_ONLY_TYPES = ("OPR_SSRC", "OPR_SREG_LITERAL")  # spec types of scalar-only sources


# ---- what an instruction is called and which encodings it has ---------------------------------

def base_name(idef: InstrDef) -> str:
    """LLVM's name without encoding suffix: V_ADD_F32_E64 -> v_add_f32."""
    return re.sub(r"_E(32|64)$", "", idef.name).lower()


@functools.cache
def _by_base_name(isa: ISA, roots: tuple[str, ...]) -> dict[str, InstrDef]:
    """Instructions of the given encodings' opcode enums, by base name."""
    enums = {isa.formats[root].field("op").enum for root in roots if root in isa.formats}
    allowed = set().union(*(f.allowed for f in isa.formats.values() if isa.root_of(f) in roots))
    return {base_name(i): i for i in isa.instructions if i.enum in enums and i.name in allowed}


def e64_twin(isa: ISA, idef: InstrDef) -> InstrDef | None:
    """The VOP3/VOP3SD form of an e32 instruction, if LLVM has one."""
    name = base_name(idef)
    return None if name in NO_E64 else _by_base_name(isa, E64_ROOTS).get(name)


def e32_twin(isa: ISA, idef: InstrDef) -> InstrDef | None:
    name = base_name(idef)
    return None if name in NO_E64 else _by_base_name(isa, E32_ROOTS).get(name)


def is_e64(isa: ISA, fmt: Format) -> bool:
    return isa.root_of(fmt) in E64_ROOTS


def dpp_kind(fmt: Format) -> str | None:
    parts = fmt.name.split("_")
    return "DPP16" if "DPP16" in parts else "DPP8" if "DPP8" in parts else None


def mnemonic_for(isa: ISA, idef: InstrDef, e64: bool, dpp: bool) -> str:
    name = base_name(idef)
    if not idef.operands:
        return name  # v_nop, v_clrexcp, v_pipeflush: one spelling for both encodings
    if e64:
        twin = e32_twin(isa, idef)
        return name + ("_e64_dpp" if dpp else "_e64" if twin else "")
    if dpp:
        return name if idef.enum == isa.formats["VOPC"].field("op").enum else name + "_dpp"
    return name + "_e32" if e64_twin(isa, idef) else name


# ---- operand layout ------------------------------------------------------------------------

@dataclass(frozen=True)
class Slot:
    """One operand as written: ``kind`` is vdst (a VGPR), sdst (an SGPR-space destination), vcc
    (written but not encoded), src (a source with modifiers) or k (the fmamk/fmaak constant)."""

    kind: str
    field: str | None = None
    operand: Operand | None = None
    source: int = -1  # 0..2: the source's bit in neg/abs/op_sel


def spec_operand(idef: InstrDef, name: str) -> Operand | None:
    """The spec names some e64 sources vsrcN (V_MOV_B32_E64's vsrc0): either spelling."""
    return idef.operand(name) or idef.operand("v" + name)


def is_scalar_destination(operand: Operand) -> bool:
    return "SREG" in operand.type or "SDST" in operand.type


def is_lane_mask(operand: Operand | None) -> bool:
    """A wave-sized mask (VCC, a compare result): one SGPR in wave32, a pair in wave64."""
    return operand is not None and operand.fmt == "FMT_NUM_M64"


def is_compare(idef: InstrDef) -> bool:
    return idef.name.startswith(("V_CMP_", "V_CMPX_"))


def writes_exec_only(isa: ISA, idef: InstrDef) -> bool:
    """RDNA's v_cmpx writes EXEC alone and has no destination operand; CDNA's also writes VCC/SDST."""
    return idef.name.startswith("V_CMPX_") and isa.arch != "cdna"


@functools.cache
def layout(isa: ISA, idef: InstrDef, e64: bool, dpp: bool) -> tuple[Slot, ...]:
    """The operands of ``idef`` in LLVM's order, for the e32 or e64 encoding."""
    name = base_name(idef)
    slots: list[Slot] = []
    dst = idef.operand("vdst")
    if is_compare(idef):
        if not writes_exec_only(isa, idef):
            slots.append(Slot("sdst", "vdst", dst) if e64 else Slot("vcc"))
    elif dst is not None:
        slots.append(Slot("sdst" if is_scalar_destination(dst) else "vdst", "vdst", dst))
    if idef.operand("sdst"):
        slots.append(Slot("sdst", "sdst", idef.operand("sdst")))
    elif not e64 and name in CARRY_OUT:
        slots.append(Slot("vcc"))
    for index, src in enumerate(SOURCES):
        operand = spec_operand(idef, src)
        if operand is None:
            continue
        if not e64 and index == 1 and name in K_BEFORE_SRC1:
            slots.append(Slot("k"))
        slots.append(Slot("src", encoding_field(src, e64, dpp), operand, index))
    if not e64 and name in K_AFTER_SRC1:
        slots.append(Slot("k"))
    if not e64 and name in CARRY_IN:
        slots.append(Slot("vcc"))
    return tuple(slots)


def encoding_field(source: str, e64: bool, dpp: bool) -> str:
    if dpp and source == "src0":
        return "vsrc0"  # DPP moves src0 into the DPP dword; the src0 field marks the DPP form
    if not e64 and source == "src1":
        return "vsrc1"
    return source


def mask_operand(isa: ISA, operand: Operand) -> Operand:
    """A lane mask operand sized for the ISA's wave."""
    return replace(operand, bits=isa.wave_size) if is_lane_mask(operand) else operand


def vcc_text(isa: ISA) -> str:
    return "vcc" if isa.wave_size == 64 else "vcc_lo"


# ---- modifiers an instruction accepts ------------------------------------------------------

def takes_float_modifiers(idef: InstrDef, slot: Slot) -> bool:
    """neg/abs apply to floating-point sources (LLVM's FP input modifiers)."""
    name = base_name(idef)
    if name in FLOAT_MODIFIER_OPS:
        return slot.source < 2
    if slot.source in UNMODIFIED_SOURCES.get(name, ()) or is_minifloat(slot.operand):
        return False
    return common.is_float(slot.operand)


_MINIFLOATS = ("FP8", "BF8", "FP6", "BF6", "FP4")


def is_minifloat(operand: Operand | None) -> bool:
    """FP8/BF8/FP6/FP4 data is converted from raw bits: no neg/abs."""
    return operand is not None and any(kind in operand.fmt for kind in _MINIFLOATS)


def read_as(isa: ISA, operand: Operand | None) -> Operand | None:
    """The operand type LLVM reads a source as, where it differs from the spec: CDNA's packed
    FP8 sources are plain 32-bit values to LLVM (for literals and inline constants); its wider
    FP6/BF6 register tuples stay what they are."""
    if isa.arch == "cdna" and is_minifloat(operand) and operand.bits <= 32:
        return replace(operand, fmt="FMT_NUM_B32", bits=32)
    return operand


def is_agpr(operand: Operand | None) -> bool:
    """An accumulation VGPR operand (v_accvgpr_mov_b32): written a0..a255."""
    return operand is not None and "ACCVGPR" in operand.type and "VGPR_OR" not in operand.type


def sources_of(slots: tuple[Slot, ...]) -> list[Slot]:
    return [s for s in slots if s.kind == "src"]


def has_op_sel(isa: ISA, idef: InstrDef) -> bool:
    """LLVM gives op_sel to e64 operations with a 16-bit (or narrower) operand, and to permlane."""
    name = base_name(idef)
    if name in OP_SEL_FLAGS:
        return True
    if name in NO_OP_SEL.get(isa.arch, ()) or (isa.arch == "cdna" and LEGACY_MARK in name):
        return False
    if isa.arch in E64_TWINS_WITHOUT_OP_SEL and e32_twin(isa, idef) is not None:
        return name in E64_TWINS_WITHOUT_OP_SEL[isa.arch]
    return any(o.bits <= 16 for o in idef.operands if not is_lane_mask(o))


def has_omod(idef: InstrDef) -> bool:
    """Output modifiers come with a floating-point source or result."""
    return any(common.is_float(o) for o in idef.operands)


def has_hidden_src2(idef: InstrDef) -> bool:
    """The accumulator of v_fmac_f16_e64, or the old destination that an 8-bit result (CDNA's
    FP8/FP4 conversions) is merged into: a third source that the encoding has but the text lacks."""
    dst = idef.operand("vdst")
    return base_name(idef) in HIDDEN_SRC2 or (dst is not None and dst.bits == 8)


def op_sel_positions(isa: ISA, idef: InstrDef, slots: tuple[Slot, ...]) -> list[int]:
    """The op_sel bit of each op_sel:[...] entry: one per source and bit 3 for the destination
    (RDNA's v_cmpx has none), except permlane's two flags. A hidden third source counts too: the
    accumulator of v_fmac_f16_e64, and the old destination that an 8-bit result (CDNA's FP8/FP4
    conversions) is merged into."""
    name = base_name(idef)
    if name in OP_SEL_FLAGS:
        return [0, 1]
    sources = list(range(max(len(sources_of(slots)), 3 if has_hidden_src2(idef) else 0)))
    return sources if writes_exec_only(isa, idef) else sources + [OP_SEL_DST_BIT]


def op_sel_mask(isa: ISA, idef: InstrDef, slots: tuple[Slot, ...]) -> int:
    """The op_sel bits of 16-bit-capable operands (not of a lane mask, nor of an SGPR destination)."""
    sources = sources_of(slots)
    mask = 0
    for position in op_sel_positions(isa, idef, slots):
        if position == OP_SEL_DST_BIT:
            mask |= any(slot.kind == "vdst" for slot in slots) << position
        elif position >= len(sources) or not is_lane_mask(sources[position].operand):
            mask |= 1 << position
    return mask


def op_sel_in_range(isa: ISA, idef: InstrDef, slots: tuple[Slot, ...], opsel: int) -> bool:
    """Whether op_sel sets bits of 16-bit-capable operands only. LLVM ignores an op_sel with other
    bits set, and on RDNA3 then writes whole registers instead of halves."""
    return base_name(idef) in OP_SEL_FLAGS or not opsel & ~op_sel_mask(isa, idef, slots)


def unselectable_op_sel(isa: ISA, idef: InstrDef) -> int:
    """The op_sel bits that LLVM neither prints nor accepts: those of the packed sources of RDNA's
    VOP3 dot products, which read both halves (CDNA's conversions of packed sources keep theirs)."""
    return WHOLE_PACKED_SOURCES_OP_SEL if base_name(idef) in WHOLE_PACKED_SOURCES.get(isa.arch, ()) else 0


def op_sel_bits(isa: ISA, idef: InstrDef, slots: tuple[Slot, ...], opsel: int) -> list[int]:
    """op_sel:[...] as LLVM writes it."""
    shown = opsel & ~unselectable_op_sel(isa, idef)
    return [shown >> position & 1 for position in op_sel_positions(isa, idef, slots)]


def op_sel_value(isa: ISA, idef: InstrDef, slots: tuple[Slot, ...], entries: int) -> int:
    """The op_sel field for op_sel:[...]'s entries (entry i in bit i)."""
    return sum((entries >> i & 1) << position for i, position in enumerate(op_sel_positions(isa, idef, slots)))


def byte_sel_bits(isa: ISA, idef: InstrDef) -> tuple[int, int] | None:
    return BYTE_SEL_OPS.get(isa.arch, {}).get(base_name(idef))


def true16(isa: ISA, operand: Operand | None) -> bool:
    return isa.arch in TRUE16_ARCHS and operand is not None and operand.bits == 16


def lo128_only(isa: ISA) -> bool:
    """A 16-bit e32 VGPR operand has 8 bits, of which true16 (RDNA3) takes bit 7 for the half; LLVM's
    fake16 RDNA4 operands keep that limit (class VGPR_32_Lo128): it rejects a destination past v127
    and flags such a source."""
    return isa.arch == "rdna4"


def e32_half(isa: ISA, index: int) -> tuple[int, bool]:
    """A 16-bit e32 VGPR operand's register and half: on true16 targets bit 7 picks the half."""
    if isa.arch in TRUE16_ARCHS:
        return index & 0x7F, bool(index & 0x80)
    return index, False


# ---- modifier bits LLVM requires to be zero ---------------------------------------------------
# LLVM's e64 encodings fix to zero the neg/abs bits of sources without input modifiers and the
# clamp/omod bits of operations without them, and reject an encoding that sets one (llvm-mc over
# every e64 operation, one bit at a time). Its rules: input modifiers come with a floating-point
# source (then on every source), and on RDNA with op_sel; clamp with a floating-point operand or
# op_sel; omod with a floating-point operand, except on compares. The tables hold what the rules
# miss, by base name; the unused source fields and most op_sel bits it ignores.

# Integer operations with clamp (saturating add/sub, 24-bit and 64-bit multiply-adds, SADs, CDNA's
# integer dot products).
INT_CLAMP = frozenset({
    "v_add_co_ci_u32", "v_add_co_u32", "v_add_nc_i32", "v_add_nc_u32", "v_add_i32", "v_add_u32",
    "v_add_u16", "v_addc_co_u32", "v_sub_co_ci_u32", "v_sub_co_u32", "v_sub_nc_i32", "v_sub_nc_u32",
    "v_sub_i32", "v_sub_u32", "v_sub_u16", "v_subb_co_u32", "v_subbrev_co_u32", "v_subrev_co_ci_u32",
    "v_subrev_co_u32", "v_subrev_nc_u32", "v_subrev_u32", "v_subrev_u16", "v_mad_i32_i24",
    "v_mad_u32_u24", "v_mad_i64_i32", "v_mad_u64_u32", "v_mad_co_i64_i32", "v_mad_co_u64_u32",
    "v_mul_i32_i24", "v_mul_u32_u24", "v_sad_u8", "v_sad_hi_u8", "v_sad_u16", "v_sad_u32",
    "v_msad_u8", "v_qsad_pk_u16_u8", "v_mqsad_pk_u16_u8", "v_mqsad_u32_u8", "v_dot2c_i32_i16",
    "v_dot4c_i32_i8", "v_dot8c_i32_i4", "v_mad_legacy_i16", "v_mad_legacy_u16"})
# Floating-point operations without clamp: the class tests, RDNA's dot2 to 16 bits, the FP8/BF8
# conversions (on CDNA only those to FP8/BF8) and gfx950's scaled and stochastic-rounding ones.
_FP8_TO = frozenset({"v_cvt_pk_bf8_f32", "v_cvt_pk_fp8_f32", "v_cvt_sr_bf8_f32", "v_cvt_sr_fp8_f32"})
NO_CLAMP = {"rdna3": frozenset({"v_dot2_bf16_bf16", "v_dot2_f16_f16"}),
            "rdna4": frozenset({"v_dot2_bf16_bf16", "v_dot2_f16_f16", "v_cvt_f32_bf8", "v_cvt_f32_fp8",
                                "v_cvt_pk_f32_bf8", "v_cvt_pk_f32_fp8"}) | _FP8_TO,
            "cdna": _FP8_TO | {"v_cvt_sr_bf16_f32", "v_cvt_sr_f16_f32"}}
# RDNA3's true16-only integer operations (RDNA4's NO_OP_SEL, and the 16-bit compares and
# conversions) have op_sel but no clamp.
TRUE16_WITHOUT_CLAMP = {"rdna3": NO_OP_SEL["rdna4"] | {"v_cvt_i32_i16", "v_cvt_u32_u16", "v_mov_b16",
                                                       "v_not_b16", "v_sat_pk_u8_i16"}}
# Floating-point operations without omod: conversions to integers and packed results, dot2, and
# gfx950's scaled and stochastic-rounding conversions.
_NO_OMOD = frozenset({"v_cvt_floor_i32_f32", "v_cvt_nearest_i32_f32", "v_cvt_flr_i32_f32",
                      "v_cvt_rpi_i32_f32", "v_frexp_exp_i32_f32", "v_cvt_pk_i16_f32", "v_cvt_pk_u16_f32",
                      "v_cvt_pk_u8_f32", "v_cvt_pkaccum_u8_f32", "v_cvt_pk_norm_i16_f16",
                      "v_cvt_pk_norm_i16_f32", "v_cvt_pk_norm_u16_f16", "v_cvt_pk_norm_u16_f32",
                      "v_cvt_pknorm_i16_f16", "v_cvt_pknorm_i16_f32", "v_cvt_pknorm_u16_f16",
                      "v_cvt_pknorm_u16_f32", "v_pack_b32_f16", "v_dot2_bf16_bf16", "v_dot2_f16_f16",
                      "v_cvt_sr_bf16_f32", "v_cvt_sr_f16_f32"})
NO_OMOD = {"rdna3": _NO_OMOD, "rdna4": _NO_OMOD | _FP8_TO | NO_CLAMP["rdna4"], "cdna": _NO_OMOD | _FP8_TO}
# gfx950's scaled conversions (prefix) have neither clamp nor omod, and its FP6/BF6 ones (wide
# register tuples) no input modifiers either.
SCALED_PREFIX = "v_cvt_scalef32_"
# Sources that take input modifiers although no source is floating-point, or that take none on an
# operation whose others do: the class tests' mask (everywhere on CDNA), CDNA's integer dots and
# gfx950's pk-shifts, the stochastic conversions' seed.
EXTRA_MODIFIER_OPS = {"cdna": frozenset({"v_dot2c_i32_i16", "v_dot4c_i32_i8", "v_dot8c_i32_i4",
                                         "v_ashr_pk_i8_i32", "v_ashr_pk_u8_i32"})}
NO_SOURCE_MODIFIERS = {"rdna3": frozenset({("v_cmp_class_f32", 1), ("v_cmp_class_f64", 1)}),
                       "rdna4": frozenset({("v_cmp_class_f32", 1), ("v_cmp_class_f64", 1)})}
CLASS_MARK = "_class_"


def modifier_sources(isa: ISA, idef: InstrDef, slots: tuple[Slot, ...]) -> frozenset[int]:
    """The sources whose neg/abs bits LLVM's e64 encoding has."""
    name = base_name(idef)
    sources = [s for s in sources_of(slots) if not is_lane_mask(s.operand)]
    floating = any(common.is_float(s.operand) for s in sources)
    if name.startswith(SCALED_PREFIX) and any(s.operand.bits > 64 for s in sources):
        return frozenset()
    if not (floating or name in FLOAT_MODIFIER_OPS or name in EXTRA_MODIFIER_OPS.get(isa.arch, ())
            or (isa.arch != "cdna" and has_op_sel(isa, idef) and name not in OP_SEL_FLAGS)):
        return frozenset()
    excluded = NO_SOURCE_MODIFIERS.get(isa.arch, frozenset())
    merged = idef.operand("vdst") is not None and idef.operand("vdst").bits == 8  # old result: a source
    indices = {s.source for s in sources} | ({2} if merged else set())
    return frozenset(i for i in indices
                     if (name, i) not in excluded and not (isa.arch == "cdna" and CLASS_MARK in name and i == 1))


def has_clamp(isa: ISA, idef: InstrDef) -> bool:
    name = base_name(idef)
    if (CLASS_MARK in name or name.startswith(SCALED_PREFIX) or name in NO_CLAMP.get(isa.arch, ())
            or name in TRUE16_WITHOUT_CLAMP.get(isa.arch, ())):
        return False
    floating = any(common.is_float(o) for o in idef.operands if not is_lane_mask(o))
    return floating or name in INT_CLAMP or (has_op_sel(isa, idef) and name not in OP_SEL_FLAGS)


def has_output_modifier(isa: ISA, idef: InstrDef) -> bool:
    name = base_name(idef)
    if is_compare(idef) or name.startswith(SCALED_PREFIX) or name in NO_OMOD.get(isa.arch, ()):
        return False
    return any(common.is_float(o) and not is_minifloat(o) for o in idef.operands if not is_lane_mask(o))


# Bits that LLVM decodes as part of a field the spec draws narrower: RDNA4's VOP1 opcode is
# 8 bits [16:9] as on RDNA3 (the spec says [15:9]), and no VOP1 opcode reaches 128.
RESERVED_BITS = {("rdna4", "VOP1"): 1 << 16}


def check_unused_bits(inst: Instruction, e64: bool) -> None:
    """Reject what LLVM rejects outside the operands: reserved bits, and operand fields of an
    operation without operands (v_nop, v_clrexcp, v_pipeflush) that are not zero."""
    if inst.word & RESERVED_BITS.get((inst.isa.arch, inst.isa.root_of(inst.fmt)), 0):
        raise EncodingError(f"{inst.name}: reserved bits set")
    if not inst.idef.operands:
        fields = ("vdst", "vsrc0") if dpp_kind(inst.fmt) else ("vdst", "src0")
        if any(inst.get(name) for name in fields):
            raise EncodingError(f"{inst.name} has no operands, but its operand fields are not zero")


def check_dpp16_modifier_bits(inst: Instruction, slots: tuple[Slot, ...]) -> None:
    """The e32 DPP16 word's neg/abs bits of sources without input modifiers (as in e64; or without
    a src1) are zero for LLVM."""
    allowed = modifier_sources(inst.isa, inst.idef, slots) & {slot.source for slot in sources_of(slots)}
    for source in (0, 1):
        if source not in allowed and (inst.get(f"src{source}_neg") or inst.get(f"src{source}_abs")):
            raise EncodingError(f"{inst.name}: DPP neg/abs on src{source}, which takes no modifiers")


def check_modifier_bits(inst: Instruction, slots: tuple[Slot, ...]) -> None:
    """Reject what LLVM rejects: modifier bits its encoding of the operation fixes to zero."""
    isa, idef = inst.isa, inst.idef
    if base_name(idef) in BITOP3_OPS:
        return  # neg, abs and omod hold the truth table
    allowed = sum(1 << i for i in modifier_sources(isa, idef, slots))
    for name in ("neg", "abs"):
        if inst.get(name, 0) & ~allowed:
            raise EncodingError(f"{inst.name}: {name} bits on a source without input modifiers")
    if inst.get("clmp") and not has_clamp(isa, idef):
        raise EncodingError(f"{inst.name} has no clamp")
    if inst.get("omod") and not has_output_modifier(isa, idef):
        raise EncodingError(f"{inst.name} has no output modifier")
    if isa.arch == "cdna" and has_op_sel(isa, idef):
        # CDNA's op_sel is an operand of its own, whose bits past the operation's operands are zero
        if inst.get("opsel", 0) & ~sum(1 << p for p in op_sel_positions(isa, idef, slots)):
            raise EncodingError(f"{inst.name}: op_sel bits past its operands")


# ---- DPP controls --------------------------------------------------------------------------

# dpp_ctrl ranges with a count argument: (first value, last value, name, argument of the first).
_DPP_RANGES = ((0x101, 0x10F, "row_shl", 1), (0x111, 0x11F, "row_shr", 1), (0x121, 0x12F, "row_ror", 1),
               (0x150, 0x15F, "row_share", 0), (0x160, 0x16F, "row_xmask", 0))
_DPP_SINGLE = {0x130: "wave_shl:1", 0x134: "wave_rol:1", 0x138: "wave_shr:1", 0x13C: "wave_ror:1",
               0x140: "row_mirror", 0x141: "row_half_mirror", 0x142: "row_bcast:15", 0x143: "row_bcast:31"}
# CDNA (gfx90a and later) reuses row_share's values for row_newbcast.
_DPP_RENAMED = {"cdna": {"row_share": "row_newbcast"}}
# Controls an instruction set dropped, which LLVM decodes with a remark in their place: RDNA has
# no wave shifts or row broadcasts, CDNA no row_xmask. Other unnamed values: INVALID_DPP_CTRL.
_DPP_DROPPED = {"rdna3": (frozenset({0x130, 0x134, 0x138, 0x13C, 0x142, 0x143}), "{} is not supported starting from GFX10"),
                "cdna": (frozenset(range(0x160, 0x170)), "{} is not supported on ASICs earlier than GFX10")}
_DPP_DROPPED["rdna4"] = _DPP_DROPPED["rdna3"]
INVALID_DPP_CTRL = "/* Invalid dpp_ctrl value */"
_ROW_NEWBCAST = range(0x150, 0x160)


def dp_alu_limited(value: int, arch: str, wide: bool) -> bool:
    """CDNA's 64-bit operations ("DP ALU") take row_newbcast only: LLVM prints its remark in place
    of any other control."""
    return wide and arch == "cdna" and value not in _ROW_NEWBCAST


def dpp_control_name(value: int) -> str | None:
    if value <= 0xFF:
        return "quad_perm:[" + ",".join(str((value >> (2 * i)) & 3) for i in range(4)) + "]"
    if value in _DPP_SINGLE:
        return _DPP_SINGLE[value]
    for first, last, name, start in _DPP_RANGES:
        if first <= value <= last:
            return f"{name}:{value - first + start}"
    return None


def dpp_control_text(value: int, arch: str) -> str:
    name = dpp_control_name(value)
    dropped, remark = _DPP_DROPPED.get(arch, (frozenset(), ""))
    if name is None:
        return INVALID_DPP_CTRL
    if value in dropped:
        return f"/* {remark.format(name.split(':')[0])} */"
    word, colon, argument = name.partition(":")
    return _DPP_RENAMED.get(arch, {}).get(word, word) + colon + argument


def dpp16_text(inst: Instruction) -> str:
    arch = inst.isa.arch
    wide = any(o.bits == 64 for o in inst.idef.operands)
    words = [DP_ALU_DPP if dp_alu_limited(inst["dpp"], arch, wide) else dpp_control_text(inst["dpp"], arch),
             f"row_mask:0x{inst['row_mask']:x}", f"bank_mask:0x{inst['bank_mask']:x}"]
    if inst["bc"]:
        words.append("bound_ctrl:1")
    if inst.get("fi"):
        words.append("fi:1")
    return " ".join(words)


def dpp8_text(inst: Instruction) -> str:
    lanes = ",".join(str(inst[f"lane_sel_{i}"]) for i in range(8))
    fi = inst["src0"] == DPP8_FI_SRC
    return f"dpp8:[{lanes}]" + (" fi:1" if fi else "")


def parse_dpp_control(piece: Piece, arch: str) -> int:
    text = piece.text.lower()
    m = re.fullmatch(r"quad_perm:\[(\d),(\d),(\d),(\d)\]", text.replace(" ", ""))
    if m:
        lanes = [int(g) for g in m.groups()]
        if max(lanes) > 3:
            raise piece.error("invalid quad_perm lane")
        return sum(lane << (2 * i) for i, lane in enumerate(lanes))
    for value, name in _DPP_SINGLE.items():
        if text == name:
            return value
    m = re.fullmatch(r"([a-z_]+):(\d+)", text)
    if m:
        for first, last, name, start in _DPP_RANGES:
            if m.group(1) == _DPP_RENAMED.get(arch, {}).get(name, name):
                value = first + int(m.group(2)) - start
                if not first <= value <= last:
                    raise piece.error("invalid dpp control argument")
                return value
    raise piece.error("invalid operand for instruction")


@dataclass
class DppSettings:
    kind: str  # "DPP16" or "DPP8"
    fields: dict[str, int] = field(default_factory=dict)
    fi: bool = False


_DPP16_WORDS = re.compile(r"^(quad_perm|row_\w+|wave_\w+)(:|$)")


def parse_dpp(modifiers: list[Piece], arch: str) -> tuple[DppSettings | None, list[Piece]]:
    """The DPP controls among ``modifiers`` and the modifiers that are not DPP's.

    Omitted controls take LLVM's defaults: row_mask/bank_mask 0xf, no bound_ctrl, no fi.
    """
    rest, settings = [], None
    controls = {"row_mask": 0xF, "bank_mask": 0xF, "bc": 0}
    fi = False
    for piece in modifiers:
        text = piece.text.lower().replace(" ", "")
        key, _, value = text.partition(":")
        if key == "dpp8":
            m = re.fullmatch(r"\[([0-7]),([0-7]),([0-7]),([0-7]),([0-7]),([0-7]),([0-7]),([0-7])\]", value)
            if not m:
                raise piece.error("invalid dpp8 value")
            settings = DppSettings("DPP8", {f"lane_sel_{i}": int(g) for i, g in enumerate(m.groups())})
        elif key in ("row_mask", "bank_mask"):
            controls[key] = _parse_mask(piece, value)
        elif key == "bound_ctrl":
            controls["bc"] = 1  # LLVM accepts bound_ctrl:0 as a historic spelling of bound_ctrl:1
        elif key == "fi":
            fi = value not in ("0",)
        elif _DPP16_WORDS.match(text) and key not in ("row_mask", "bank_mask"):
            settings = DppSettings("DPP16", {"dpp": parse_dpp_control(piece, arch)})
        else:
            rest.append(piece)
    if settings is None:
        if fi or any(p.text.lower().startswith(("row_mask", "bank_mask", "bound_ctrl")) for p in modifiers):
            settings = DppSettings("DPP16", {"dpp": 0xE4})  # quad_perm:[0,1,2,3], the identity
        else:
            return None, rest
    settings.fi = fi
    if settings.kind == "DPP16":
        settings.fields.update(controls)
        if fi:
            settings.fields["fi"] = 1
    return settings, rest


def _parse_mask(piece: Piece, text: str) -> int:
    value = ops.parse_int(text)
    if value is None or not 0 <= value <= 0xF:
        raise piece.error("invalid row_mask or bank_mask value")
    return value


# ---- one source operand with its modifiers ----------------------------------------------------

@dataclass(frozen=True)
class SourceModifiers:
    neg: bool = False
    abs: bool = False
    hi: bool = False  # true16: the high half of the VGPR (op_sel bit, or bit 7 of an e32 VGPR index)
    suffixed: bool = False  # written with a .l/.h suffix (not a plain VGPR, whose half op_sel picks)


def register_text(isa: ISA, value: int, operand: Operand | None, hi: bool = False, halves: bool = True) -> str:
    """A 9-bit source value (VGPRs at 256+) as LLVM writes it, for an operand of this type;
    ``halves=False`` writes a true16 operand as a whole register, as LLVM does for some encodings."""
    bits = common.operand_bits(operand)
    if value >= ops.VGPR_BASE and true16(isa, operand) and halves:
        return f"v{value - ops.VGPR_BASE}.{'h' if hi else 'l'}"
    if value >= ops.VGPR_BASE and is_agpr(operand):
        return ops.register_range("a", value - ops.VGPR_BASE, common.dwords(operand))
    value = even_sgpr_tuple(isa, value, common.dwords(operand))
    if bits == 16 and not common.is_float(operand) and is_inline_float(value):
        # LLVM writes an inline float of a 16-bit integer operand as its f16 bits (0xbc00).
        return ops.literal_text(ops.float_bits(_INLINE_FLOATS[value - INLINE_FLOAT_FIRST], 16))
    name = scalar_source_name(isa, value, common.dwords(operand), bits=bits)
    if name is None:
        raise EncodingError(f"source value {value} names no {bits}-bit operand")
    return name


def even_sgpr_tuple(isa: ISA, value: int, dwords: int) -> int:
    """LLVM reads an SGPR or TTMP tuple from the even register below an odd start; an odd named
    register (vcc_hi, m0, exec_hi ...) starts no tuple and stays as it is (and names none)."""
    if value < 128 and dwords > 1 and value % 2 and value not in ops.special_registers(isa.arch):
        return value - 1
    return value


def scalar_source_name(isa: ISA, value: int, dwords: int, literal: int | None = None, bits: int = 32) -> str | None:
    """A source value's name: a register, constant or named source (with src_flat_scratch_base_lo/hi,
    whose hi half makes no 64-bit operand); a literal as a plain 32-bit immediate."""
    if value == ops.LITERAL:
        return None if literal is None else imm32_text(literal)
    if value in FLAT_SCRATCH_BASE:
        return FLAT_SCRATCH_BASE[value] if dwords == 1 or value == min(FLAT_SCRATCH_BASE) else None
    if value == LDS_DIRECT and dwords > 1:
        return None  # src_lds_direct reads 32 bits
    return ops.source_name(value, dwords, isa.arch, bits)


# Scalar destinations whose LLVM class leaves out some names, which LLVM then flags: the lane
# reads write no M0, RDNA4's scalar float operations (v_s_exp_f32 ...: prefix v_s_) no EXEC.
_XM0 = ("SReg_32_XM0", frozenset({"m0", "src_lds_direct"}))
SDST_EXCLUDED = {"v_readfirstlane_b32": _XM0, "v_readlane_b32": _XM0}
SCALAR_FLOAT_PREFIX, SCALAR_FLOAT_SDST = "v_s_", ("SReg_32_XEXEC", frozenset({"exec_lo", "exec_hi"}))


def sdst_exclusions(idef: InstrDef) -> tuple[str, frozenset[str]] | None:
    name = base_name(idef)
    return SCALAR_FLOAT_SDST if name.startswith(SCALAR_FLOAT_PREFIX) else SDST_EXCLUDED.get(name)


def source_remark(isa: ISA, idef: InstrDef, slot: Slot, value: int, field_kind: str, e64: bool) -> str | None:
    """LLVM's remark on a source its register class leaves out, if any.

    The spec restricts some sources to one register file: VGPRs (v_swap_b32, v_movrels_b32 ...;
    reliable on e32 sources only, where plain sources read OPR_SRC), where LLVM flags SGPRs and
    constants but takes null; or scalars (OPR_SSRC*), where it flags VGPRs. A lane mask takes no
    constant, and CDNA's VGPR tuples start at an even register."""
    operand = slot.operand
    if operand is None:
        return None
    name = base_name(idef)
    vgpr_only = (operand.type in ("OPR_SRC_VGPR", "OPR_VGPR_OR_LDS") or (not e64 and operand.type == "OPR_VGPR")
                 or (slot.source == 0 and name in VGPR_ONLY_CLASS))
    constant = is_inline_constant(value) or value == ops.LITERAL
    if constant and (is_lane_mask(operand) or vgpr_only):
        return INVALID_IMMEDIATE
    if vgpr_only and value < 128 and not (value == NULL and isa.arch != "cdna"):
        if common.operand_bits(operand) == 16 and not e64:
            if isa.arch not in VGPR_ONLY_16BIT_CLASS:
                raise EncodingError(f"{name}: a scalar in a 16-bit VGPR-only source")
            return invalid_register(VGPR_ONLY_16BIT_CLASS[isa.arch])
        return invalid_register(VGPR_ONLY_CLASS.get(name, DEFAULT_VGPR_ONLY_CLASS))
    if operand.type.startswith(SCALAR_ONLY_TYPES) and value >= ops.VGPR_BASE:
        register_class = SCALAR_ONLY_CLASS.get(isa.arch, {}).get((name, slot.source), DEFAULT_SCALAR_ONLY_CLASS)
        return invalid_register(register_class)
    return alignment_remark(isa, value, operand, field_kind)


def alignment_remark(isa: ISA, value: int, operand: Operand | None, field_kind: str) -> str | None:
    """CDNA (gfx90a and later) needs VGPR tuples to start at an even register: LLVM flags an odd one
    with its aligned class, VReg_N_Align2 for a VGPR field, VS_N_Align2 for a source field."""
    count = common.dwords(operand)
    if isa.arch != "cdna" or value < ops.VGPR_BASE or count < 2 or value % 2 == 0 or is_lane_mask(operand):
        return None
    kind = "VReg" if field_kind == "VGPRField" else "VS"
    return invalid_register(f"{kind}_{count * 32}_Align2")


def literal_text(literal: int, operand: Operand | None) -> str:
    """A literal dword; ``lit()`` marks one that would read back as an inline constant."""
    text = ops.literal_text(literal)
    return f"lit({text})" if reads_as_inline(literal, operand) else text


# The inline float constants in code order, from INLINE_FLOAT_FIRST: 0.5, -0.5, ... 1/(2*pi).
_INLINE_FLOATS = (0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 4.0, -4.0, 0.15915494309189535)
INLINE_FLOAT_FIRST = 240


def reads_as_inline(literal: int, operand: Operand | None) -> bool:
    """Whether LLVM marks the literal with lit(): when its text would read back as an inline constant."""
    return inline_code(literal, operand) is not None


def inline_code(literal: int, operand: Operand | None) -> int | None:
    """The inline constant LLVM's assembler encodes for a number written as this literal dword, if any.

    An integer in -16..64, or the bits of an inline float: an f16 operand reads the literal's low
    half and compares f16 bits; other 32- and 16-bit operands compare f32 bits (packed f16: f16
    bits; bf16: none). An f64 literal is the f64's high dword and LLVM 22 never takes it for an inline
    constant; a 64-bit integer's literal is zero-extended.
    """
    bits = common.operand_bits(operand)
    if bits == 64:
        return None if common.is_float(operand) else ops.encode_inline_int(literal)
    if "BF16" in operand.fmt:
        return _inline_int_code(literal - (1 << 32) if literal & 0x80000000 else literal)
    half_float = common.is_float(operand) and (bits == 16 or "F16" in operand.fmt)
    if half_float and bits == 16:
        low = literal & 0xFFFF
        return _inline_int_code(low - (1 << 16) if low & 0x8000 else low) or _inline_float_code(low, 16)
    signed = literal - (1 << 32) if literal & 0x80000000 else literal
    return _inline_int_code(signed) or _inline_float_code(literal, 16 if half_float else 32)


def _inline_int_code(value: int) -> int | None:
    return ops.encode_inline_int(value)


def _inline_float_code(bits: int, width: int) -> int | None:
    for code, value in enumerate(_INLINE_FLOATS, start=INLINE_FLOAT_FIRST):
        if ops.float_bits(value, width) == bits:
            return code
    return None


def with_modifiers(text: str, mods: SourceModifiers, number: bool) -> str:
    """neg/abs around an operand: `-|v1|`; a negated bare number is written neg(1.0), since `-1`
    would read back as the number -1."""
    if mods.abs:
        text = f"|{text}|"
    if mods.neg:
        text = f"neg({text})" if number and not mods.abs else f"-{text}"
    return text


def render_source_operand(isa: ISA, value: int, operand: Operand | None, mods: SourceModifiers,
                          literal: int | None = None, halves: bool = True, remark: str | None = None) -> str:
    """One source as LLVM writes it: register/constant/literal with neg/abs and true16 half, and
    LLVM's remark on an operand its class leaves out (a flagged literal is a plain immediate)."""
    if value == ops.LITERAL:
        if literal is None:
            raise EncodingError("a literal operand without a literal dword")
        if remark:
            return with_modifiers(remarked(imm32_text(literal), remark), mods, True)
        if bf16_whole_literal(isa, operand):
            text = ops.literal_text(literal)
            return with_modifiers(f"lit({text})" if bf16_inline(literal & 0xFFFF) else text, mods, True)
        text = literal_text(literal, operand)
        if common.operand_bits(operand) == 16 and not text.startswith("lit("):
            text = ops.literal_text(literal & 0xFFFF)  # a 16-bit operand reads the low half
        return with_modifiers(text, mods, not text.startswith("lit("))
    text = register_text(isa, value, operand, mods.hi, halves)
    return with_modifiers(remarked(text, remark) if remark else text, mods, is_inline_constant(value))


def no_inline_float(isa: ISA, idef: InstrDef, e64: bool) -> bool:
    """RDNA's e32 v_pk_fmac_f16 has no op_sel_hi to give an inline float both halves: LLVM's
    assembler writes such a float (or its bits) as an f16 literal (v_dot2acc_f32_f16 keeps the
    inline code). It still disassembles the inline codes."""
    return isa.arch != "cdna" and not e64 and base_name(idef) in NO_INLINE_FLOAT_E32


NO_INLINE_FLOAT_E32 = frozenset({"v_pk_fmac_f16"})


def bf16_whole_literal(isa: ISA, operand: Operand | None) -> bool:
    """CDNA (gfx950) reads a 16-bit BF16 source's literal as a whole dword: LLVM prints all of it,
    with lit() when its low half would read back as an inline constant."""
    return isa.arch == "cdna" and operand is not None and operand.bits == 16 and "BF16" in operand.fmt


_BF16_INLINE = frozenset(ops.float_bits(value, 32) >> 16 for value in _INLINE_FLOATS)


def bf16_inline(half: int) -> bool:
    return ops.encode_inline_int(half - 0x10000 if half & 0x8000 else half) is not None or half in _BF16_INLINE


def is_inline_constant(value: int) -> bool:
    return 128 <= value <= 208 or is_inline_float(value)


def is_inline_float(value: int) -> bool:
    return INLINE_FLOAT_FIRST <= value < INLINE_FLOAT_FIRST + len(_INLINE_FLOATS)


_NEG_CALL = re.compile(r"^neg\((.*)\)$", re.S)
_ABS_CALL = re.compile(r"^abs\((.*)\)$", re.S)
_HALF = re.compile(r"^(v\d+)\.([lh])$", re.I)


@dataclass(frozen=True)
class ParsedSource:
    value: int  # 9-bit source value
    literal: int | None
    mods: SourceModifiers


def split_modifiers(piece: Piece) -> tuple[str, SourceModifiers]:
    """``-|v1|`` -> ("v1", neg+abs); also neg(...) and abs(...)."""
    text, neg, absolute = piece.text.strip(), False, False
    m = _NEG_CALL.match(text)
    if m:
        text, neg = m.group(1).strip(), True
    elif text.startswith("-") and (text[1:2] == "|" or not _looks_numeric(text[1:])):
        text, neg = text[1:].strip(), True
    m = _ABS_CALL.match(text)
    if m:
        text, absolute = m.group(1).strip(), True
    elif len(text) > 2 and text.startswith("|") and text.endswith("|"):
        text, absolute = text[1:-1].strip(), True
    return text, SourceModifiers(neg, absolute)


def _looks_numeric(text: str) -> bool:
    return bool(re.match(r"^\s*(lit\()?\s*[\d.]", text))


def parse_source_operand(isa: ISA, piece: Piece, operand: Operand | None, allow_modifiers: bool,
                         allow_literal: bool = True) -> ParsedSource:
    """A source with optional modifiers and true16 half: the inverse of render_source_operand."""
    text, mods = split_modifiers(piece)
    if (mods.neg or mods.abs) and not allow_modifiers:
        raise piece.error("invalid operand for instruction")
    half = _HALF.match(text)
    if half:
        if not true16(isa, operand):
            raise piece.error("invalid operand for instruction")
        text = half.group(1)
        mods = replace(mods, hi=half.group(2).lower() == "h", suffixed=True)
    if text.lower() == NULL_NAME and isa.arch != "cdna":
        return ParsedSource(NULL, None, mods)  # null stands for an operand of any width
    if is_agpr(operand):
        return ParsedSource(ops.VGPR_BASE + parse_agpr(piece, operand, isa.arch, text), None, mods)
    forced = text.lower().startswith("lit(")
    if forced and mods.abs:
        text, forced = text[4:-1].strip(), False  # LLVM drops lit() under |...|
    value, literal = common.parse_source(piece, mask_operand(isa, operand) if operand else None, isa.arch,
                                         allow_literal, text)
    if literal is not None and not forced:
        code = inline_code(literal, operand)
        if code is not None:
            return ParsedSource(code, None, mods)
    if value >= ops.VGPR_BASE and not operand_takes_vgpr(operand):
        raise piece.error("invalid operand for instruction")
    return ParsedSource(value, literal, mods)


def parse_agpr(piece: Piece, operand: Operand | None, arch: str, text: str | None = None) -> int:
    """An AccVGPR (range) of the operand's width: its index."""
    reg = ops.parse_register(piece.text if text is None else text, arch)
    if reg is None or reg.file != "a" or reg.count != common.dwords(operand):
        raise piece.error("invalid operand for instruction")
    return reg.value - ops.VGPR_BASE


def operand_takes_vgpr(operand: Operand | None) -> bool:
    return operand is None or not is_lane_mask(operand)


# ---- the syntax ----------------------------------------------------------------------------

@register(*E32_ROOTS, *E64_ROOTS)
class VectorALU(FormatSyntax):
    def mnemonic(self, inst: Instruction) -> str:
        return mnemonic_for(inst.isa, inst.idef, is_e64(inst.isa, inst.fmt), dpp_kind(inst.fmt) is not None)

    # -- bytes -> text --

    def render(self, inst: Instruction) -> str:
        isa, idef = inst.isa, inst.idef
        e64, dpp = is_e64(isa, inst.fmt), dpp_kind(inst.fmt)
        slots = layout(isa, idef, e64, dpp is not None)
        check_unused_bits(inst, e64)
        if e64:
            check_modifier_bits(inst, slots)
        elif dpp == "DPP16":
            check_dpp16_modifier_bits(inst, slots)
        halves = not e64 or op_sel_in_range(isa, idef, slots, inst.get("opsel", 0))
        texts = [self.render_slot(inst, slot, e64, dpp, halves) for slot in slots]
        words = [self.mnemonic(inst)]
        if texts:
            words.append(", ".join(texts))
        if e64:
            words += self.e64_modifiers(inst, slots)
        if dpp == "DPP16":
            words.append(dpp16_text(inst))
        elif dpp == "DPP8":
            words.append(dpp8_text(inst))
        return " ".join(words)

    def render_slot(self, inst: Instruction, slot: Slot, e64: bool, dpp: str | None, halves: bool) -> str:
        isa = inst.isa
        if slot.kind == "vcc":
            return vcc_text(isa)
        if slot.kind == "k":
            return ops.literal_text(inst["literal"])
        if slot.kind == "sdst":
            return self.render_scalar_destination(inst, slot)
        if slot.kind == "vdst":
            return self.render_vector_destination(inst, slot, e64, halves)
        return self.render_source(inst, slot, e64, dpp, halves)

    def render_vector_destination(self, inst: Instruction, slot: Slot, e64: bool, halves: bool) -> str:
        isa, index, hi = inst.isa, inst[slot.field], False
        if true16(isa, slot.operand) and e64:
            hi = bool(inst["opsel"] & 8)
        elif common.operand_bits(slot.operand) == 16 and not e64:
            if lo128_only(isa) and index >= 128:
                raise EncodingError(f"{inst.name}: v{index} as a 16-bit e32 destination")
            index, hi = e32_half(isa, index)
        text = register_text(isa, ops.VGPR_BASE + index, slot.operand, hi, halves)
        remark = alignment_remark(isa, ops.VGPR_BASE + index, slot.operand, "VGPRField")
        return remarked(text, remark) if remark else text

    def render_scalar_destination(self, inst: Instruction, slot: Slot) -> str:
        """An SGPR-space destination. The 8-bit fields (e64 vdst, VOP1 vdst) also reach the
        constants and named sources; LLVM decodes those too and flags what its class excludes."""
        isa = inst.isa
        operand = mask_operand(isa, slot.operand)
        value = even_sgpr_tuple(isa, inst[slot.field], common.dwords(operand))
        name = scalar_source_name(isa, value, common.dwords(operand), inst.get("literal"))
        if name is None:
            raise EncodingError(f"{inst.name}: {slot.field}={value} is no scalar destination")
        if is_inline_constant(value) or value == ops.LITERAL:
            return remarked(name, INVALID_IMMEDIATE)
        excluded = sdst_exclusions(inst.idef)
        if excluded and name in excluded[1]:
            return remarked(name, invalid_register(excluded[0]))
        return name

    def render_source(self, inst: Instruction, slot: Slot, e64: bool, dpp: str | None, halves: bool) -> str:
        isa, operand = inst.isa, read_as(inst.isa, mask_operand(inst.isa, slot.operand))
        fld = inst.fmt.field(slot.field)
        value = inst[slot.field] + (ops.VGPR_BASE if fld.kind == "VGPRField" else 0)
        neg = abs_ = hi = False
        if e64:
            neg = bool(inst["neg"] >> slot.source & 1)
            abs_ = bool(inst.get("abs", 0) >> slot.source & 1)
            hi = bool(inst.get("opsel", 0) >> slot.source & 1)
        elif dpp == "DPP16" and slot.source < 2:
            neg = bool(inst[f"src{slot.source}_neg"])
            abs_ = bool(inst[f"src{slot.source}_abs"])
        remark = None
        if value >= ops.VGPR_BASE and not e64 and common.operand_bits(operand) == 16:
            index = value - ops.VGPR_BASE
            if lo128_only(isa) and index >= 128:
                if operand.type == "OPR_SRC_VGPR":
                    raise EncodingError(f"{inst.name}: v{index} in a 16-bit VGPR-only source")
                remark = invalid_register("VGPR_32_Lo128" if fld.kind == "VGPRField" else "VS_32_Lo128")
            index, hi = e32_half(isa, index)
            value = ops.VGPR_BASE + index
        remark = remark or source_remark(isa, inst.idef, slot, value, fld.kind, e64)
        if (e64 and dpp and slot.source == 1 and is_inline_constant(value)
                and base_name(inst.idef) in RAW_CODE_DPP_SRC1):
            return f"0x{value:x}"
        if not takes_float_modifiers(inst.idef, slot):
            neg = abs_ = False
        mods = SourceModifiers(neg, abs_, hi)
        return render_source_operand(isa, value, operand, mods, inst.get("literal"), halves, remark)

    def e64_modifiers(self, inst: Instruction, slots: tuple[Slot, ...]) -> list[str]:
        words = []
        if base_name(inst.idef) in BITOP3_OPS:
            table = inst["neg"] | inst["abs"] << 3 | inst["omod"] << 6
            if table:
                words.append(f"bitop3:{table if table < 10 else hex(table)}")
        opsel = inst.get("opsel", 0)
        byte_sel = byte_sel_bits(inst.isa, inst.idef)
        if base_name(inst.idef) in LANE_SWAP_OPS:
            words += [f"{word}:1" for word, bit in LANE_SWAP_FLAGS if opsel >> bit & 1]
        elif byte_sel:
            low, high = byte_sel
            value = (opsel >> low & 1) | (opsel >> high & 1) << 1
            if value:
                words.append(f"byte_sel:{value}")
        elif has_op_sel(inst.isa, inst.idef) and op_sel_in_range(inst.isa, inst.idef, slots, opsel):
            bits = op_sel_bits(inst.isa, inst.idef, slots, opsel)
            if any(bits):
                words.append("op_sel:[" + ",".join(map(str, bits)) + "]")
        if inst["clmp"]:
            words.append("clamp")
        if inst["omod"] and has_omod(inst.idef):
            words.append(OMOD_TEXT[inst["omod"]])
        return words

    # -- text -> bytes --

    def candidates(self, isa: ISA, base: Format):
        e64 = base.name in E64_ROOTS
        for idef in isa.instructions:
            if idef.enum != base.field("op").enum:
                continue
            fmt = home_format(isa, base, idef)
            if fmt is not None:
                for name in self.names(isa, idef, e64):
                    yield name, fmt, idef

    def names(self, isa: ISA, idef: InstrDef, e64: bool) -> list[str]:
        """Every mnemonic that selects ``idef`` in this encoding family; the unsuffixed one belongs
        to the e32 family when there is one (it picks e32 or e64 by the operands, like LLVM)."""
        plain = base_name(idef)
        if e64:
            names = {mnemonic_for(isa, idef, True, False), mnemonic_for(isa, idef, True, True)}
            if e32_twin(isa, idef) is None:
                names.add(plain)
            return sorted(names)
        return sorted({mnemonic_for(isa, idef, False, False), plain + "_dpp", plain, plain + "_e32"}
                      - ({plain + "_e32"} if e64_twin(isa, idef) is None and idef.operands else set()))

    def assemble(self, isa: ISA, stmt: Statement, fmt: Format, idef: InstrDef, ctx: AsmContext):
        name, plain = stmt.name, base_name(idef)
        e64 = is_e64(isa, fmt)
        if e64 or name.endswith(("_e32", "_dpp")) or not idef.operands:
            return self.assemble_in(isa, stmt, fmt, idef, e64)
        errors = []
        for attempt in self.encodings_to_try(isa, fmt, idef):
            try:
                return self.assemble_in(isa, stmt, *attempt)
            except AsmError as e:
                errors.append(e)
        raise max(errors, key=lambda e: e.column)

    def encodings_to_try(self, isa: ISA, fmt: Format, idef: InstrDef):
        """An unsuffixed mnemonic: the e32 encoding if the operands fit it, else the e64 one."""
        yield fmt, idef, False
        twin = e64_twin(isa, idef)
        if twin is not None:
            yield e64_format(isa, twin), twin, True

    def assemble_in(self, isa: ISA, stmt: Statement, fmt: Format, idef: InstrDef, e64: bool):
        if not idef.operands and stmt.operands:
            # `v_nop row_shl:1 ...`: the statement parser took the first modifier for an operand
            stmt = replace(stmt, operands=[], modifiers=stmt.operands + stmt.modifiers)
        if e64 and base_name(idef) in LANE_SWAP_OPS:
            dpp, modifiers = None, stmt.modifiers  # its bound_ctrl/fi are op_sel bits, not DPP
        else:
            dpp, modifiers = parse_dpp(stmt.modifiers, isa.arch)
        if stmt.name.endswith("_dpp") and dpp is None:
            dpp = DppSettings("DPP16", {"dpp": 0xE4, "row_mask": 0xF, "bank_mask": 0xF, "bc": 0})
        slots = layout(isa, idef, e64, dpp is not None)
        common.expect_count(stmt.operands, len(slots), stmt.end_column())
        state = Encoding(isa, idef, e64, dpp)
        for slot, piece in zip(slots, stmt.operands):
            state.put(slot, piece)
        if e64:
            state.put_e64_modifiers(modifiers, slots)
        elif modifiers:
            raise modifiers[0].error("invalid operand for instruction")
        return state.finish(fmt)


def home_format(isa: ISA, base: Format, idef: InstrDef) -> Format | None:
    """The format an instruction is assembled in before literal and DPP are decided: the base, or
    the variant that alone allows it (VOP3_SDST for compares, VOP2_LIT for v_fmamk_f32)."""
    forms = [f for f in [base, *isa.variants[base.name]]
             if idef.name in f.allowed and not set(f.name.split("_")) & {"DPP16", "DPP8", "SDWA", "MFMA"}]
    forms.sort(key=lambda f: "LIT" in f.name.split("_"))
    return forms[0] if forms else None


def e64_format(isa: ISA, idef: InstrDef) -> Format:
    for root in E64_ROOTS:
        fmt = home_format(isa, isa.formats[root], idef) if root in isa.formats else None
        if fmt is not None:
            return fmt
    raise LookupError(f"{idef.name} has no e64 format")


class Encoding:
    """Field values collected while reading one statement's operands."""

    def __init__(self, isa: ISA, idef: InstrDef, e64: bool, dpp: DppSettings | None):
        self.isa, self.idef, self.e64, self.dpp = isa, idef, e64, dpp
        self.fields: dict[str, int] = {"op": idef.opcode}
        if e64 and writes_exec_only(isa, idef):
            self.fields["vdst"] = EXEC_LO  # the e64 form names its implicit destination
        self.literal: int | None = None
        self.neg = self.abs = self.opsel = 0
        self.halves = 0  # the op_sel bits that true16 .l/.h suffixes set
        self.dpp_mods: dict[str, int] = {}

    def put(self, slot: Slot, piece: Piece) -> None:
        if slot.kind == "vcc":
            if piece.text.lower() != vcc_text(self.isa):
                raise piece.error("invalid operand for instruction")
        elif slot.kind == "k":
            _, literal = common.parse_source(piece, Operand("k", "FMT_NUM_F32", 32, "OPR_SIMM32"), self.isa.arch,
                                             text=f"lit({piece.text})")
            self.use_literal(piece, literal)
        elif slot.kind == "sdst":
            operand = mask_operand(self.isa, slot.operand)
            reg = ops.parse_register(piece.text, self.isa.arch)
            if reg is not None and reg.value == NULL and self.isa.arch != "cdna":
                reg = replace(reg, count=common.dwords(operand))  # null stands for a mask of any width
            if reg is None or reg.file != "s" or reg.value >= 128 or reg.count != common.dwords(operand):
                raise piece.error("invalid operand for instruction")
            self.fields[slot.field] = reg.value
        elif slot.kind == "vdst":
            self.put_vdst(slot, piece)
        else:
            self.put_source(slot, piece)

    def put_vdst(self, slot: Slot, piece: Piece) -> None:
        text, hi = piece.text, False
        half = _HALF.match(text)
        if half:
            if not true16(self.isa, slot.operand):
                raise piece.error("invalid operand for instruction")
            text, hi = half.group(1), half.group(2).lower() == "h"
        if is_agpr(slot.operand):
            index = parse_agpr(piece, slot.operand, self.isa.arch, text)
        else:
            index = common.parse_vgpr(Piece(text, piece.column), slot.operand, self.isa.arch)
        if true16(self.isa, slot.operand):
            index = self.place_half(piece, index, hi, 3, suffixed=bool(half))
        self.check_lo128(piece, slot.operand, ops.VGPR_BASE + index)
        self.fields["vdst"] = index

    def check_lo128(self, piece: Piece, operand: Operand | None, value: int) -> None:
        """On RDNA4 a 16-bit e32 VGPR operand reaches v0..v127 only (see lo128_only): past that,
        an unsuffixed mnemonic takes the e64 encoding, as with LLVM."""
        if (not self.e64 and lo128_only(self.isa) and value >= ops.VGPR_BASE + 128
                and common.operand_bits(operand) == 16):
            raise piece.error("invalid operand for instruction")

    def place_half(self, piece: Piece, index: int, hi: bool, opsel_bit: int, suffixed: bool) -> int:
        """Where a true16 operand's half goes: bit 7 of an e32 VGPR index (which then reaches only
        v0..v127), or the operand's op_sel bit in e64 (a suffix there must agree with op_sel)."""
        if self.e64:
            self.opsel |= hi << opsel_bit
            self.halves |= suffixed << opsel_bit
            return index
        if index >= 128:
            raise piece.error("invalid operand for instruction")
        return index | hi << 7

    def put_source(self, slot: Slot, piece: Piece) -> None:
        operand = slot.operand
        dpp16 = self.dpp is not None and self.dpp.kind == "DPP16"
        allow_mods = takes_float_modifiers(self.idef, slot) and (self.e64 or dpp16)
        operand = read_as(self.isa, operand)
        parsed = parse_source_operand(self.isa, piece, operand, allow_mods)
        value = parsed.value
        if is_inline_float(value) and no_inline_float(self.isa, self.idef, self.e64):
            parsed = replace(parsed, value=ops.LITERAL,
                             literal=ops.float_bits(_INLINE_FLOATS[value - INLINE_FLOAT_FIRST], 16))
            value = ops.LITERAL
        if parsed.literal is not None:
            if self.dpp is not None:
                raise piece.error("invalid operand for instruction")
            self.use_literal(piece, parsed.literal)
        vgpr_field = slot.field in ("vsrc0", "vsrc1")
        if vgpr_field and value < ops.VGPR_BASE:
            raise piece.error("invalid operand for instruction")
        if value >= ops.VGPR_BASE and true16(self.isa, operand):
            value = ops.VGPR_BASE + self.place_half(piece, value - ops.VGPR_BASE, parsed.mods.hi, slot.source,
                                                    parsed.mods.suffixed)
        self.check_lo128(piece, operand, value)
        self.fields[slot.field] = value - ops.VGPR_BASE if vgpr_field else value
        self.neg |= parsed.mods.neg << slot.source
        self.abs |= parsed.mods.abs << slot.source

    def use_literal(self, piece: Piece, literal: int) -> None:
        if self.literal is not None and self.literal != literal:
            raise piece.error("only one unique literal operand is allowed")
        self.literal = literal

    def put_e64_modifiers(self, modifiers: list[Piece], slots: tuple[Slot, ...]) -> None:
        for piece in modifiers:
            text = piece.text.lower().replace(" ", "")
            if text == "clamp":
                self.fields["clmp"] = 1
            elif text in OMOD_VALUE and has_omod(self.idef):
                self.fields["omod"] = OMOD_VALUE[text]
            elif text.startswith("bitop3:") and base_name(self.idef) in BITOP3_OPS:
                table = ops.parse_int(text[len("bitop3:"):])
                if table is None or not 0 <= table <= 0xFF:
                    raise piece.error("invalid bitop3 value")
                self.neg, self.abs, self.fields["omod"] = table & 7, table >> 3 & 7, table >> 6
            elif text.partition(":")[0] in dict(LANE_SWAP_FLAGS) and base_name(self.idef) in LANE_SWAP_OPS:
                key, _, value = text.partition(":")
                if key == "bound_ctrl" or value != "0":
                    self.opsel |= 1 << dict(LANE_SWAP_FLAGS)[key]
            elif text.startswith("byte_sel:") and byte_sel_bits(self.isa, self.idef):
                value = _parse_byte_sel(piece, text[len("byte_sel:"):])
                low, high = byte_sel_bits(self.isa, self.idef)
                self.opsel |= (value & 1) << low | (value >> 1) << high
            elif text.startswith("op_sel:") and has_op_sel(self.isa, self.idef) and not byte_sel_bits(self.isa, self.idef):
                self.put_op_sel(piece, common.parse_bit_list(piece, "op_sel", OP_SEL_ENTRIES), slots)
            elif text.startswith("op_sel:") and base_name(self.idef) in UNENCODED_OP_SEL.get(self.isa.arch, ()):
                common.parse_bit_list(piece, "op_sel", OP_SEL_ENTRIES)
            else:
                raise piece.error("invalid operand for instruction")

    def put_op_sel(self, piece: Piece, entries: int, slots: tuple[Slot, ...]) -> None:
        """op_sel:[...] as LLVM reads it: one to four entries whatever the operation, the missing
        ones 0; entries past its op_sel bits, or of an operand without halves (an SGPR destination),
        ignored, except that permlane's flags reject them; no bit of an RDNA dot product's packed
        source; and on RDNA3 a nonzero op_sel agrees with every .l/.h suffix (a zero one leaves the
        suffixes alone)."""
        if base_name(self.idef) in OP_SEL_FLAGS and entries >> len(op_sel_positions(self.isa, self.idef, slots)):
            raise piece.error("invalid op_sel operand")
        opsel = op_sel_value(self.isa, self.idef, slots, entries) & op_sel_mask(self.isa, self.idef, slots)
        if opsel & unselectable_op_sel(self.isa, self.idef):
            raise piece.error("invalid op_sel operand")
        if opsel and (opsel ^ self.opsel) & self.halves:
            raise piece.error("op_sel operand conflicts with 16-bit operand suffix")
        self.opsel |= opsel

    def finish(self, fmt: Format) -> tuple[Format, dict[str, int]]:
        fields = self.fields
        if self.e64:
            fields["neg"] = self.neg
            for name, value in (("abs", self.abs), ("opsel", self.opsel)):
                if value:
                    fields[name] = value
        elif self.dpp is not None and self.dpp.kind == "DPP16":
            for i in (0, 1):
                fields[f"src{i}_neg"] = self.neg >> i & 1
                fields[f"src{i}_abs"] = self.abs >> i & 1
        if self.dpp is not None:
            fields["vsrc0"] = fields.pop("vsrc0", 0)
            fields["src0"] = DPP16_SRC if self.dpp.kind == "DPP16" else (DPP8_FI_SRC if self.dpp.fi else DPP8_SRC)
            fields.update(self.dpp.fields)
            return self.variant(fmt, self.dpp.kind), fields
        if self.literal is None:
            return fmt, fields
        fields["literal"] = self.literal
        return self.variant(fmt, "LIT"), fields

    def variant(self, fmt: Format, part: str) -> Format:
        if part in fmt.name.split("_"):
            return fmt
        name = f"{fmt.name}_{part}" if part == "LIT" else f"{self.isa.root_of(fmt)}_{part}"
        variant = self.isa.formats.get(name)
        # The spec has no DPP form of VOP3_SDST: its compares (v_cmp_*_e64_dpp) take VOP3's.
        omitted = part != "LIT" and is_compare(self.idef) and self.isa.root_of(fmt) == "VOP3"
        if variant is None or (self.idef.name not in variant.allowed and not omitted):
            what = "literal operands are" if part == "LIT" else "DPP is"
            raise AsmError(f"{what} not supported", 1)
        return variant


def _parse_byte_sel(piece: Piece, text: str) -> int:
    value = ops.parse_int(text)
    if value is None or not 0 <= value <= 3:
        raise piece.error("invalid byte_sel value")
    return value


