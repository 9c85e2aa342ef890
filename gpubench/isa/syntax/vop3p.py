"""Packed math and matrix operations: VOP3P (with its _LIT/_DPP16/_DPP8 forms on RDNA), CDNA's
VOP3P_MFMA and gfx950's 16-byte VOP3PX2 (the scaled MFMA).

Text, by kind of operation:

    v_pk_fma_f16 v0, v1, v2, v3 op_sel:[..] op_sel_hi:[..] neg_lo:[..] neg_hi:[..] clamp
    v_fma_mix_f32 v0, -v1, |v2|, v3 op_sel:[..] op_sel_hi:[..] clamp        (neg/abs as modifiers)
    v_wmma_f32_16x16x16_f16 v[0:7], v[8:15], v[16:23], v[0:7] ...           (RDNA matrix fragments)
    v_swmmac_f32_16x16x32_f16 v[0:7], v[8:11], v[12:19], v20 index_key:1     (gfx12 sparse)
    v_mfma_f32_32x32x8_f16 a[0:15], v[0:1], a[2:3], a[0:15] cbsz:1 abid:2 blgp:3
    v_accvgpr_read_b32 v0, a1 / v_accvgpr_write_b32 a0, v1
    v_mfma_scale_f32_16x16x128_f8f6f4 v[0:3], v[4:11], v[12:19], v[0:3], v20, v21 op_sel_hi:[0,0,0]

The op_sel/op_sel_hi/neg_lo/neg_hi arrays have one entry per source and are printed unless every
entry holds its default (0; op_sel_hi's is 1 for packed operations). Constants follow LLVM's
reading of packed operands: an f16 pair takes f16 inline floats, an i16 pair f32 ones.

LLVM checks bits that the spec leaves free (RDNA's bit 23, modifier bits of absent sources, gfx12's
matrix modifiers); bytes it rejects raise EncodingError. Bytes it accepts with a register it does
not allow (misaligned CDNA tuples, an SGPR in a VGPR-only operand) print with its "Invalid" remark.
"""
from __future__ import annotations

import functools
import math
import re
import struct
from dataclasses import dataclass, replace

from gpubench.isa.arch import ISA
from gpubench.isa.decoder import Instruction
from gpubench.isa.model import Format, InstrDef, Operand
from gpubench.isa.syntax import common
from gpubench.isa.syntax import operands as ops
from gpubench.isa.syntax import valu
from gpubench.isa.syntax.base import AsmContext, FormatSyntax, register
from gpubench.isa.syntax.statement import AsmError, Piece, Statement


class EncodingError(ValueError):
    """Bytes that decode to a packed, matrix, dual-issue or SDWA format but that LLVM rejects (a
    modifier bit of an absent source, a constant where only a register goes ...)."""


DPP16_SRC, DPP8_SRC, DPP8_FI_SRC = 250, 233, 234

# LLVM's mnemonics where the spec's instruction name differs: the AccVGPR moves carry their type,
# and gfx940+ renamed v_mad_mix* to v_fma_mix* (same opcodes, the spec keeps the old names).
MNEMONICS = {"V_ACCVGPR_READ": "v_accvgpr_read_b32", "V_ACCVGPR_WRITE": "v_accvgpr_write_b32",
             "V_MAD_MIX_F32": "v_fma_mix_f32", "V_MAD_MIXLO_F16": "v_fma_mixlo_f16",
             "V_MAD_MIXHI_F16": "v_fma_mixhi_f16"}

ACCVGPR_MOVES = ("V_ACCVGPR_READ", "V_ACCVGPR_WRITE")

# v_mfma_ld_scale_b32, the first half of gfx950's scaled MFMA: it reads two scale sources and
# writes nothing, so it is no matrix operation itself.
SCALE_PREFIX = "V_MFMA_LD_SCALE_B32"

# gfx950 f8f6f4 MFMAs: cbsz (for A) and blgp (for B) pick the element format, which sets how many
# VGPRs the operand spans: fp8/bf8 8, fp6/bf6 6, fp4 4.
F8F6F4_DWORDS = {0: 8, 1: 8, 2: 6, 3: 6, 4: 4}


# ---- what kind of operation ----------------------------------------------------------------

def source_operand(idef: InstrDef, index: int) -> Operand | None:
    """Source ``index``; gfx12 names a VGPR-only first source vsrc0."""
    for operand in idef.operands:
        if operand.field in (f"src{index}", f"vsrc{index}"):
            return operand
    return None


def source_count(idef: InstrDef) -> int:
    return sum(source_operand(idef, i) is not None for i in range(3))


def destination(idef: InstrDef) -> Operand | None:
    return next((o for o in idef.operands if o.field == "vdst"), None)


def is_matrix(idef: InstrDef) -> bool:
    """CDNA's matrix-core operations (MFMA, sparse SMFMAC): cbsz/abid/blgp, AccVGPR operands."""
    return idef.name.startswith(("V_MFMA_", "V_SMFMAC_")) and idef.name != SCALE_PREFIX


def is_wmma(idef: InstrDef) -> bool:
    return any(o.fmt.startswith("FMT_WMMA") for o in idef.operands)


def is_sparse(idef: InstrDef) -> bool:
    """gfx12 SWMMAC: src2 is the sparsity index VGPR; op_sel selects its key (index_key)."""
    return any(o.fmt == "FMT_WMMA_INDEX_SET" for o in idef.operands)


def has_fp8_sources(idef: InstrDef) -> bool:
    """gfx12's fp8/bf8 dot products and WMMA."""
    return any("FP8" in o.fmt or "BF8" in o.fmt for o in idef.operands if o.field != "vdst")


def is_mix(idef: InstrDef) -> bool:
    """v_fma_mix*: each source is an f32 or an f16 half (op_sel/op_sel_hi), with neg/abs modifiers."""
    return "_MIX" in idef.name


def is_packed(idef: InstrDef) -> bool:
    """LLVM's IsPacked: op_sel_hi defaults to all ones. Packed pairs, dot products, WMMA."""
    return idef.name == SCALE_PREFIX or any("_PK" in o.fmt or o.fmt.startswith("FMT_WMMA")
                                             for o in idef.operands if o.field != "vdst")


# VOP3P operations that LLVM gives a DPP form (the spec allows DPP for every VOP3P opcode), with
# the sources that DPP then reads from VGPRs only (LLVM prints an SGPR or constant there with an
# "Invalid" remark).
DPP_VGPR_SOURCES = {"V_DOT2_F32_F16": (), "V_DOT2_F32_BF16": (), "V_FMA_MIX_F32": (1,),
                    "V_FMA_MIXLO_F16": (1,), "V_FMA_MIXHI_F16": (1,), "V_DOT4_F32_FP8_BF8": (1, 2),
                    "V_DOT4_F32_BF8_FP8": (1, 2), "V_DOT4_F32_FP8_FP8": (1, 2), "V_DOT4_F32_BF8_BF8": (1, 2)}


def has_dpp(idef: InstrDef) -> bool:
    return idef.name in DPP_VGPR_SOURCES


def mnemonic_of(idef: InstrDef) -> str:
    return MNEMONICS.get(idef.name, idef.name.lower())


# ---- operand sizes -------------------------------------------------------------------------

def wmma_dwords(isa: ISA, operand: Operand) -> int:
    """A WMMA fragment's VGPRs. The spec sizes them for wave32; in wave64 each lane holds half of
    the accumulator, and on gfx12 half of the A/B fragments too (gfx11 repeats A/B in both halves)."""
    count = common.dwords(operand)
    halves = operand.fmt.startswith("FMT_WMMA_DC") or (isa.arch == "rdna4" and operand.fmt.startswith("FMT_WMMA_AB"))
    return max(1, count // 2) if isa.wave_size == 64 and halves else count


def operand_dwords(isa: ISA, operand: Operand) -> int:
    if operand.fmt.startswith("FMT_WMMA"):
        return wmma_dwords(isa, operand)
    return common.dwords(operand)


def inv_2pi_bits(isa: ISA, operand: Operand) -> int:
    """Which 1/(2*pi) text LLVM prints: the f64 one for f64 operands, and (a quirk of its decoder)
    for gfx11's wave32 WMMA accumulator; the f32 one otherwise."""
    if "F64" in operand.fmt or (isa.arch == "rdna3" and isa.wave_size == 32 and operand.fmt.startswith("FMT_WMMA_DC")):
        return 64
    return 32


# ---- constants: how LLVM reads them in packed and mixed operands ---------------------------------

@dataclass(frozen=True)
class ConstantKind:
    """How a source reads constants. ``floats`` maps the inline float codes 240..248 to the bit
    patterns that also encode them (as a hex literal in the text); ``width`` is the literal's
    width when the operand is 16-bit (v_fma_mix reads its literal as an f16)."""

    name: str
    floats: dict[int, int]
    width: int = 32
    marks_inline: bool = True  # whether a literal that reads as an inline constant is written lit()


INLINE_FLOATS = (0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 4.0, -4.0, 1 / (2 * math.pi))  # codes 240..248


def bit_patterns(pack_format: str, shift: int = 0) -> dict[int, int]:
    """Inline float code -> the value's bits in a float format ("<f" f32, "<e" f16; bf16 is the
    f32 pattern shifted right by 16)."""
    unpack = "<I" if pack_format == "<f" else "<H"
    return {240 + i: struct.unpack(unpack, struct.pack(pack_format, v))[0] >> shift
            for i, v in enumerate(INLINE_FLOATS)}


KIND_32 = ConstantKind("b32", bit_patterns("<f"))
KIND_V2F16 = ConstantKind("v2f16", bit_patterns("<e"))
KIND_V2BF16 = ConstantKind("v2bf16", bit_patterns("<f", 16))
KIND_F16 = ConstantKind("f16", bit_patterns("<e"), 16)
KIND_WIDE = ConstantKind("wide", bit_patterns("<f"), marks_inline=False)


def constant_kind(isa: ISA, idef: InstrDef, operand: Operand | None) -> ConstantKind:
    """How ``operand`` reads constants. gfx12's f16 WMMA accumulator reads an f16 literal; an
    operand that LLVM decodes as 64-bit (see inv_2pi_bits) gets no lit() marks."""
    if is_mix(idef):
        return KIND_F16
    fmt = operand.fmt if operand else ""
    if fmt.startswith("FMT_WMMA_DC"):
        if inv_2pi_bits(isa, operand) == 64:
            return KIND_WIDE
        return KIND_F16 if isa.arch == "rdna4" and fmt.endswith("_F16") else KIND_32
    if "PK2_F16" in fmt:
        return KIND_V2F16
    if "PK2_BF16" in fmt:
        return KIND_V2BF16
    return KIND_32


def inline_code(value: int, kind: ConstantKind) -> int | None:
    """The inline constant code that a literal ``value`` equals in this operand, if any."""
    if kind.width == 16:
        value &= 0xFFFF
        signed = value - 0x10000 if value & 0x8000 else value
    else:
        signed = value - (1 << 32) if value & 0x80000000 else value
    code = ops.encode_inline_int(signed)
    if code is not None:
        return code
    return next((c for c, bits in kind.floats.items() if bits == value), None)


def literal_text(literal: int, kind: ConstantKind) -> str:
    """A literal as LLVM prints it: ``lit()`` when its text would read back as an inline constant;
    a 16-bit operand shows only the half it reads."""
    if kind.marks_inline and inline_code(literal, kind) is not None:
        return f"lit({ops.literal_text(literal)})"
    return ops.literal_text(literal & ((1 << kind.width) - 1))


_LIT_CALL = re.compile(r"^lit\((.*)\)$", re.S)


def parse_constant(piece: Piece, text: str, kind: ConstantKind, allow_literal: bool) -> tuple[int, int | None]:
    """(source code, literal or None) for a number: inline when LLVM would inline it."""
    forced = _LIT_CALL.match(text)
    body = forced.group(1).strip() if forced else text
    number = ops.parse_int(body)
    if number is None:
        value = _float_value(piece, body)
        code = None if forced else ops.encode_inline_float(value, 32)
        if code is not None:
            return code, None
        literal = _float_bits(value, kind)
    else:
        if kind.width == 16 and not -0x8000 <= number <= 0xFFFF:
            raise piece.error("invalid operand for instruction")
        literal = number & ((1 << kind.width) - 1 if kind.width == 16 else 0xFFFFFFFF)
        code = None if forced else inline_code(literal, kind)
        if code is not None:
            return code, None
    if not allow_literal:
        raise piece.error("invalid operand for instruction")
    return ops.LITERAL, literal


def _float_value(piece: Piece, text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise piece.error("invalid operand for instruction") from None


def _float_bits(value: float, kind: ConstantKind) -> int:
    """A float literal's bits in the operand's format: f16, bf16 (the top of the f32) or f32."""
    if kind in (KIND_V2F16, KIND_F16):
        return struct.unpack("<H", struct.pack("<e", value))[0]
    bits = struct.unpack("<I", struct.pack("<f", value))[0]
    return bits >> 16 if kind is KIND_V2BF16 else bits


# ---- registers -----------------------------------------------------------------------------

# LLVM still prints an operand whose register file or alignment the instruction does not allow,
# followed by a comment naming the register class it wanted (CDNA aligns VGPR tuples to even
# registers: VReg_64_Align2); a constant where only registers go gets INVALID_IMMEDIATE.
INVALID_IMMEDIATE = "/*Invalid immediate*/"
FILE_CLASS = {"v": "VReg", "a": "AReg"}  # a destination's class by its register file


def invalid_register(register_class: str) -> str:
    return f"/*Invalid register, operand has '{register_class}' register class*/"


def class_name(isa: ISA, prefix: str, count: int) -> str:
    """LLVM's name of a register class: VGPR_32, AV_256_Align2 ... (``prefix`` VReg/AReg/AV/VS)."""
    if count == 1:
        return {"VReg": "VGPR_32", "AReg": "AGPR_32"}.get(prefix, f"{prefix}_32")
    return f"{prefix}_{count * 32}" + ("_Align2" if isa.arch == "cdna" else "")


def register_text(isa: ISA, file: str, value: int, count: int, prefix: str | None = None) -> str:
    """A VGPR/AccVGPR (range) by its 9-bit source value; ``prefix`` names its register class when
    the instruction needs the tuple aligned."""
    text = ops.register_range(file, value - ops.VGPR_BASE, count)
    if prefix and count > 1 and isa.arch == "cdna" and (value - ops.VGPR_BASE) % 2:
        text += invalid_register(class_name(isa, prefix, count))
    return text


def scalar_text(isa: ISA, value: int, count: int) -> str | None:
    """An SGPR-space operand; LLVM reads a tuple from an aligned register (s[66:67] for 67)."""
    count = min(count, 16)  # LLVM's widest SGPR tuple is 512 bits
    if count > 1 and (value < 106 or ops.TTMP_BASE <= value < ops.TTMP_BASE + 16):
        value -= (value - (ops.TTMP_BASE if value >= ops.TTMP_BASE else 0)) % min(count, 4)
    return ops.source_name(value, count, isa.arch)


def source_text(isa: ISA, idef: InstrDef, value: int, operand: Operand, literal: int | None,
                file: str = "v", count: int | None = None, prefix: str = "VS", vector_only: bool = False) -> str:
    """A source without modifiers: register (``file`` names VGPRs "v" or AccVGPRs "a"), inline
    constant or literal. ``prefix`` names the operand's register class; ``vector_only`` says it
    takes no SGPR (and no constant unless its type says so)."""
    count = operand_dwords(isa, operand) if count is None else count
    if value >= ops.VGPR_BASE:
        return register_text(isa, file, value, count, prefix)
    if value == ops.LITERAL:
        if literal is None:
            raise EncodingError(f"{idef.name}: a literal operand without a literal dword")
        return literal_text(literal, constant_kind(isa, idef, operand))
    if valu.is_inline_constant(value):
        bits = inv_2pi_bits(isa, operand) if value == ops.INV_2PI else 32
        text = ops.inline_constant(value, bits)
        return text + INVALID_IMMEDIATE if vector_only and not takes_constants(operand) else text
    if is_null(isa, value):
        return "null"  # reads as zero at any width
    name = scalar_text(isa, value, count)
    if name is None:
        raise EncodingError(f"{idef.name}: source value {value} names no {count * 32}-bit operand")
    # LLVM remarks on SGPRs only; the named sources (src_scc ...) it prints as they are
    return name + invalid_register(class_name(isa, prefix, count)) if vector_only and value < 128 else name


VECTOR_ONLY_TYPES = ("OPR_SRC_VGPR", "OPR_SRC_VGPR_OR_INLINE", "OPR_SRC_ACCVGPR", "OPR_SRC_VGPR_OR_ACCVGPR",
                     "OPR_SRC_VGPR_OR_ACCVGPR_OR_CONST")


def rejects_scalars(isa: ISA, operand: Operand) -> bool:
    """Register-only operands where LLVM refuses the encoding outright, rather than printing the
    SGPR or constant with an "Invalid" remark: AccVGPR reads, and gfx12's WMMA fragments."""
    return operand.type == "OPR_SRC_ACCVGPR" or (isa.arch == "rdna4" and operand.type == "OPR_SRC_VGPR")


def takes_constants(operand: Operand) -> bool:
    return "INLINE" in operand.type or "CONST" in operand.type


def is_null(isa: ISA, value: int) -> bool:
    return ops.special_registers(isa.arch).get(value, ("",))[0] == "null"


def check_unassigned_bits(inst: Instruction) -> None:
    """The first dword's bits that no field of the spec covers (RDNA VOP3P's bit 23, which LLVM
    counts as part of the encoding) must be zero."""
    covered = 0
    for fld in inst.fmt.fields:
        if fld.lo < 32:
            covered |= (fld.mask << fld.lo) & 0xFFFFFFFF
    if inst.word & 0xFFFFFFFF & ~covered:
        raise EncodingError(f"{inst.name}: bits {inst.word & 0xFFFFFFFF & ~covered:#x} of the first dword must be 0")


@dataclass(frozen=True)
class ParsedSource:
    value: int
    literal: int | None
    neg: bool = False
    abs: bool = False
    file: str = "v"


def parse_source(isa: ISA, idef: InstrDef, piece: Piece, operand: Operand, modifiers: bool = False,
                 count: int | None = None, files: str = "v", allow_literal: bool = True) -> ParsedSource:
    """A source operand; ``files`` lists the register files it may name ("v", "a" or both) and
    ``modifiers`` whether -x / |x| / neg(x) / abs(x) are allowed."""
    text, neg, absolute = piece.text.strip(), False, False
    if modifiers:
        text, mods = valu.split_modifiers(piece)
        neg, absolute = mods.neg, mods.abs
    count = operand_dwords(isa, operand) if count is None else count
    reg = ops.parse_register(text, isa.arch) if not _LIT_CALL.match(text) else None
    if reg is not None:
        if reg.file in "va":
            if reg.file not in files or reg.count != count:
                raise piece.error("invalid operand for instruction")
            return ParsedSource(reg.value, None, neg, absolute, reg.file)
        if is_null(isa, reg.value) and "VGPR_OR" in operand.type:
            return ParsedSource(reg.value, None, neg, absolute)
        if operand.type in VECTOR_ONLY_TYPES or reg.count != count and reg.value < 128:
            raise piece.error("invalid operand for instruction")
        return ParsedSource(reg.value, None, neg, absolute)
    if operand.type in VECTOR_ONLY_TYPES and not takes_constants(operand):
        raise piece.error("invalid operand for instruction")
    value, literal = parse_constant(piece, text, constant_kind(isa, idef, operand), allow_literal)
    return ParsedSource(value, literal, neg, absolute)


def parse_vgpr_destination(piece: Piece, count: int, arch: str, files: str = "v") -> tuple[int, str]:
    """(VGPRField value, register file) of a destination register range."""
    reg = ops.parse_register(piece.text, arch)
    if reg is None or reg.file not in files or reg.count != count:
        raise piece.error("invalid operand for instruction")
    return reg.value - ops.VGPR_BASE, reg.file


# ---- modifier arrays -------------------------------------------------------------------------

def expect_operands(stmt: Statement, count: int) -> None:
    """LLVM reports too few operands at the mnemonic, too many at the first extra one."""
    if len(stmt.operands) < count:
        raise stmt.mnemonic.error("too few operands for instruction")
    if len(stmt.operands) > count:
        raise stmt.operands[count].error("invalid operand for instruction")


@dataclass(frozen=True)
class PackedModifiers:
    """The per-source modifier bits of a VOP3P encoding, as 3-bit masks (bit i: source i)."""

    op_sel: int = 0
    op_sel_hi: int = 0
    neg_lo: int = 0
    neg_hi: int = 0
    clamp: int = 0

    @staticmethod
    def read(get) -> "PackedModifiers":
        """From an encoding; ``get(field)`` answers a field's value (0 when the format lacks it)."""
        return PackedModifiers(get("opsel"), get("opsel_hi") | get("opsel_hi2") << 2, get("neg"),
                               get("neg_hi"), get("clmp"))

    def fields(self) -> dict[str, int]:
        return {"opsel": self.op_sel, "opsel_hi": self.op_sel_hi & 3, "opsel_hi2": self.op_sel_hi >> 2,
                "neg": self.neg_lo, "neg_hi": self.neg_hi, "clmp": self.clamp}


ARRAY_MODIFIERS = ("op_sel", "op_sel_hi", "neg_lo", "neg_hi")


def modifier_words(mods: PackedModifiers, count: int, packed: bool, arrays: tuple[str, ...]) -> list[str]:
    """The arrays that differ from their defaults, then clamp."""
    words = []
    mask = (1 << count) - 1
    for name in arrays:
        value = getattr(mods, name) & mask
        default = mask if name == "op_sel_hi" and packed else 0
        if value != default:
            words.append(f"{name}:{common.bit_list(value, count)}")
    if mods.clamp:
        words.append("clamp")
    return words


def parse_modifier_words(pieces: list[Piece], count: int, packed: bool, arrays: tuple[str, ...],
                         clamp: bool = True) -> tuple[PackedModifiers, list[Piece]]:
    """The op_sel/op_sel_hi/neg_lo/neg_hi arrays and clamp among ``pieces``; the rest is returned."""
    values = {"op_sel_hi": (1 << count) - 1 if packed else 0}
    seen, rest = set(), []
    for piece in pieces:
        text = piece.text.lower().replace(" ", "")
        name, _, value = text.partition(":")
        if name in arrays and value:
            if name in seen:
                raise piece.error("invalid operand for instruction")
            values[name] = common.parse_bit_list(piece, name, count)
        elif text == "clamp" and clamp:
            if name in seen:
                raise piece.error("invalid operand for instruction")
            values["clamp"] = 1
        else:
            rest.append(piece)
            continue
        seen.add(name)
    if packed and count < 3:
        values["op_sel_hi"] = values["op_sel_hi"] | _unused_hi_bits(count)
    return PackedModifiers(**values), rest


def _unused_hi_bits(count: int) -> int:
    """op_sel_hi bits of sources an operation does not have: LLVM sets them (they read as default)."""
    return ((1 << 3) - 1) & ~((1 << count) - 1)


# ---- CDNA matrix cores -----------------------------------------------------------------------

@functools.cache
def mfma_fields(isa: ISA) -> Format:
    """Where cbsz/abid/blgp/acc_cd/acc sit: the VOP3P_MFMA layout, which also holds for the matrix
    operations the spec lists under plain VOP3P (gfx942's xf32 MFMAs)."""
    return isa.formats["VOP3P_MFMA"]


def is_f64_matrix(idef: InstrDef) -> bool:
    """The f64 MFMAs have no B broadcast: their blgp bits negate the sources (neg:[..])."""
    return "F64" in (destination(idef).fmt if destination(idef) else "")


def is_smfmac(idef: InstrDef) -> bool:
    return idef.name.startswith("V_SMFMAC_")


def is_f8f6f4(idef: InstrDef) -> bool:
    return idef.name.endswith("F8F6F4")


def matrix_source_dwords(idef: InstrDef, index: int, cbsz: int, blgp: int) -> int:
    """VGPRs of A (index 0) or B (1): fixed by the spec, except for the f8f6f4 MFMAs, whose
    cbsz/blgp choose the element format."""
    if is_f8f6f4(idef) and index < 2:
        return F8F6F4_DWORDS.get(cbsz if index == 0 else blgp, 8)
    return common.dwords(source_operand(idef, index))


@register("VOP3P_MFMA")
class MatrixMath(FormatSyntax):
    """MFMA/SMFMAC: `vdst, src0, src1, src2` in VGPRs or AccVGPRs, then cbsz/abid/blgp."""

    def mnemonic(self, inst: Instruction) -> str:
        return mnemonic_of(inst.idef)

    def layout(self, isa: ISA, fmt: Format) -> Format:
        return fmt if fmt.name == "VOP3PX2" else mfma_fields(isa)

    def render(self, inst: Instruction) -> str:
        return f"{self.mnemonic(inst)} {', '.join(self.operand_texts(inst))}{self.suffix(inst)}"

    def operand_texts(self, inst: Instruction) -> list[str]:
        isa, idef = inst.isa, inst.idef
        layout = self.layout(isa, inst.fmt)

        def get(name: str) -> int:
            return layout.field(name).get(inst.word)

        acc_cd, acc, cbsz, blgp = get("acc_cd"), get("acc"), get("cbsz"), get("blgp")
        result_file = "a" if acc_cd else "v"
        # SMFMAC's result is also its accumulator input, so LLVM types it either file (AV).
        result_class = "AV" if is_smfmac(idef) else FILE_CLASS[result_file]
        texts = [register_text(isa, result_file, ops.VGPR_BASE + get("vdst"), common.dwords(destination(idef)),
                               result_class)]
        for index in range(3):
            operand = source_operand(idef, index)
            if index < 2:
                file, prefix = ("a" if acc >> index & 1 else "v"), "AV"
                count = matrix_source_dwords(idef, index, cbsz, blgp)
            elif is_smfmac(idef):  # src2 is the sparsity index
                file, prefix, count = "v", "VReg", 1
            else:
                file, prefix, count = result_file, FILE_CLASS[result_file], common.dwords(operand)
            texts.append(source_text(isa, idef, get(f"src{index}"), operand, None, file, count, prefix, True))
        return texts

    def suffix(self, inst: Instruction) -> str:
        layout = self.layout(inst.isa, inst.fmt)
        if is_smfmac(inst.idef) and layout.field("blgp").get(inst.word):
            raise EncodingError(f"{mnemonic_of(inst.idef)} has no blgp")
        words = self.control_words(inst.idef, *(layout.field(n).get(inst.word) for n in ("cbsz", "abid", "blgp")))
        return "".join(" " + w for w in words)

    @staticmethod
    def control_words(idef: InstrDef, cbsz: int, abid: int, blgp: int) -> list[str]:
        words = [f"{name}:{value}" for name, value in (("cbsz", cbsz), ("abid", abid)) if value]
        if blgp:
            words.append(f"neg:{common.bit_list(blgp, 3)}" if is_f64_matrix(idef) else f"blgp:{blgp}")
        return words

    # -- text -> bytes --

    def candidates(self, isa: ISA, base: Format):
        for idef in isa.instructions:
            if idef.name in base.allowed:
                yield mnemonic_of(idef), base, idef

    def assemble(self, isa: ISA, stmt: Statement, fmt: Format, idef: InstrDef, ctx: AsmContext):
        controls, rest = self.parse_controls(idef, stmt.modifiers)
        if rest:
            raise rest[0].error("invalid operand for instruction")
        expect_operands(stmt, 4)
        fields = {"op": idef.opcode, **controls, **self.parse_operands(isa, idef, stmt.operands, controls)}
        return self.layout(isa, fmt), fields

    def parse_operands(self, isa: ISA, idef: InstrDef, pieces: list[Piece], controls: dict[str, int]) -> dict[str, int]:
        dst, src0, src1, src2 = pieces
        fields = {}
        fields["vdst"], file = parse_vgpr_destination(dst, common.dwords(destination(idef)), isa.arch, "va")
        fields["acc_cd"] = int(file == "a")
        acc = 0
        for index, piece in enumerate((src0, src1)):
            parsed = self.parse_matrix_source(isa, idef, piece, index, controls)
            fields[f"src{index}"] = parsed.value
            acc |= (parsed.file == "a") << index
        fields["acc"] = acc
        operand = source_operand(idef, 2)
        files = "v" if is_smfmac(idef) else file
        parsed = parse_source(isa, idef, src2, operand, count=common.dwords(operand), files=files, allow_literal=False)
        fields["src2"] = parsed.value
        return fields

    @staticmethod
    def parse_matrix_source(isa: ISA, idef: InstrDef, piece: Piece, index: int,
                            controls: dict[str, int]) -> ParsedSource:
        control = "cbsz" if index == 0 else "blgp"
        count = matrix_source_dwords(idef, index, controls.get("cbsz", 0), controls.get("blgp", 0))
        reg = ops.parse_register(piece.text, isa.arch)
        if reg is not None and reg.file in "va" and reg.count != count and is_f8f6f4(idef):
            raise piece.error(f"wrong register tuple size for {control} value {controls.get(control, 0)}")
        return parse_source(isa, idef, piece, source_operand(idef, index), count=count, files="va")

    @staticmethod
    def parse_controls(idef: InstrDef, pieces: list[Piece], names: tuple[str, ...] = ("cbsz", "abid", "blgp")
                       ) -> tuple[dict[str, int], list[Piece]]:
        """cbsz:N abid:N blgp:N (neg:[..] for the f64 MFMAs), those of ``names``, -> field values;
        the other pieces are returned."""
        limits = {name: limit for name, limit in (("cbsz", 7), ("abid", 15), ("blgp", 7)) if name in names}
        values, rest = {}, []
        for piece in pieces:
            text = piece.text.lower().replace(" ", "")
            name, _, value = text.partition(":")
            if name == "neg" and is_f64_matrix(idef):
                values["blgp"] = common.parse_bit_list(piece, name, 3)
            elif name in limits and not (name == "blgp" and is_f64_matrix(idef)):
                number = ops.parse_int(value)
                if number is None or not 0 <= number <= limits[name]:
                    # LLVM's words: cbsz and abid are checked by value, blgp as an operand
                    raise piece.error("invalid operand for instruction" if name == "blgp" else f"invalid {name} value.")
                values[name] = number
            else:
                rest.append(piece)
        return values, rest


# ---- the VOP3P syntax ------------------------------------------------------------------------

def destination_file(dst: Operand) -> str:
    """"a" for v_accvgpr_write's AccVGPR destination, else "v"."""
    return "a" if dst.type == "OPR_ACCVGPR" else "v"


def dpp_kind(fmt: Format) -> str | None:
    return next((p for p in ("DPP16", "DPP8") if p in fmt.name.split("_")), None)


@register("VOP3P")
class PackedMath(FormatSyntax):
    """VOP3P on every target; CDNA's matrix operations that the spec lists there go to MatrixMath."""

    matrix = MatrixMath()

    def mnemonic(self, inst: Instruction) -> str:
        name = mnemonic_of(inst.idef)
        return name + "_e64_dpp" if dpp_kind(inst.fmt) else name

    def render(self, inst: Instruction) -> str:
        if is_matrix(inst.idef):
            return self.matrix.render(inst)
        isa, idef = inst.isa, inst.idef
        dpp = dpp_kind(inst.fmt)
        if dpp and not has_dpp(idef):
            raise EncodingError(f"{mnemonic_of(idef)} has no DPP form")
        check_unassigned_bits(inst)
        mods = PackedModifiers.read(lambda name: inst.get(name, 0))
        self.check_modifier_bits(isa, idef, mods)
        texts = []
        dst = destination(idef)
        if dst is not None:
            texts.append(self.render_destination(inst, dst))
        for index in range(source_count(idef)):
            texts.append(self.render_source(inst, index, mods, dpp))
        words = [self.mnemonic(inst)]
        if texts:
            words.append(", ".join(texts))
        words += self.modifier_words(isa, idef, mods)
        if dpp == "DPP16":
            words.append(valu.dpp16_text(inst))
        elif dpp == "DPP8":
            words.append(valu.dpp8_text(inst))
        return " ".join(words)

    def render_destination(self, inst: Instruction, dst: Operand) -> str:
        count = operand_dwords(inst.isa, dst)
        return register_text(inst.isa, destination_file(dst), ops.VGPR_BASE + inst["vdst"], count, "VReg")

    def render_source(self, inst: Instruction, index: int, mods: PackedModifiers, dpp: str | None) -> str:
        isa, idef = inst.isa, inst.idef
        operand = source_operand(idef, index)
        value = inst[f"src{index}"]
        if dpp and index == 0:
            value = ops.VGPR_BASE + inst["vsrc0"]
        if value < ops.VGPR_BASE and rejects_scalars(isa, operand):
            raise EncodingError(f"{mnemonic_of(idef)}: src{index} takes no SGPR or constant")
        file = "a" if operand.type == "OPR_SRC_ACCVGPR" else "v"
        dpp_vgpr = dpp is not None and index in DPP_VGPR_SOURCES[idef.name]
        vector_only = operand.type in VECTOR_ONLY_TYPES or dpp_vgpr
        prefix = "AReg" if file == "a" else "VReg" if vector_only else "VS"
        text = source_text(isa, idef, value, operand, inst.get("literal"), file, prefix=prefix, vector_only=vector_only)
        if is_mix(idef):
            number = valu.is_inline_constant(value) or (value == ops.LITERAL and not text.startswith("lit("))
            return valu.with_modifiers(text, valu.SourceModifiers(bool(mods.neg_lo >> index & 1),
                                                                  bool(mods.neg_hi >> index & 1)), number)
        return text

    def check_modifier_bits(self, isa: ISA, idef: InstrDef, mods: PackedModifiers) -> None:
        """LLVM rejects op_sel/neg bits of a source the operation lacks, and op_sel where the
        operation has none (op_sel_hi bits it does not use it ignores)."""
        if idef.name in ACCVGPR_MOVES:
            if mods.op_sel or mods.neg_lo or mods.neg_hi:
                raise EncodingError(f"{mnemonic_of(idef)} takes no modifiers")
            return
        if is_wmma(idef) and isa.arch == "rdna4" or has_fp8_sources(idef):
            self.check_gfx12_matrix_bits(idef, mods)
            return
        count = 3 if is_wmma(idef) else source_count(idef)
        arrays = self.arrays(isa, idef)
        checked = ("op_sel",) if idef.name == SCALE_PREFIX else ("op_sel", "neg_lo", "neg_hi")
        for name in checked:
            unused = 0 if name in arrays or (is_mix(idef) and name != "op_sel") else (1 << count) - 1
            if getattr(mods, name) >> count or getattr(mods, name) & unused:
                raise EncodingError(f"{mnemonic_of(idef)}: {name} bits of sources it does not have")

    @staticmethod
    def check_gfx12_matrix_bits(idef: InstrDef, mods: PackedModifiers) -> None:
        """gfx12 negates no fp8/bf8 source (only their f32 accumulator), and clamps only integer
        results."""
        if has_fp8_sources(idef) and (mods.neg_lo | mods.neg_hi) & 3:
            raise EncodingError(f"{mnemonic_of(idef)} cannot negate fp8/bf8 sources")
        if mods.clamp and "_I32" not in destination(idef).fmt:
            raise EncodingError(f"{mnemonic_of(idef)} has no clamp")

    def modifier_words(self, isa: ISA, idef: InstrDef, mods: PackedModifiers) -> list[str]:
        if idef.name in ACCVGPR_MOVES:
            return []
        count = 3 if is_wmma(idef) else source_count(idef)
        words = []
        if is_sparse(idef) and mods.op_sel:
            words.append(f"index_key:{mods.op_sel}")
        words += modifier_words(mods, count, is_packed(idef), self.arrays(isa, idef))
        return words

    @staticmethod
    def arrays(isa: ISA, idef: InstrDef) -> tuple[str, ...]:
        """Which modifier arrays an operation has. Mix ops write neg/abs on the sources. op_sel picks
        16-bit halves, so only operations on packed pairs have it (and gfx11's WMMA with a 16-bit
        result, whose op_sel picks the result's half); the rest only negate (or mark signed) sources."""
        if is_mix(idef) or idef.name == SCALE_PREFIX:  # ld_scale's op_sel picks the scales' bytes
            return ("op_sel", "op_sel_hi")
        if is_wmma(idef):
            halves = isa.arch == "rdna3" and destination(idef).fmt.endswith(("_F16", "_BF16"))
            return ARRAY_MODIFIERS if halves else ("neg_lo", "neg_hi")
        if any("_PK2_" in o.fmt for o in idef.operands if o.field != "vdst"):
            return ARRAY_MODIFIERS
        return ("neg_lo", "neg_hi")

    # -- text -> bytes --

    def candidates(self, isa: ISA, base: Format):
        """VOP3P's operations (its _LIT/_DPP forms allow the same; VOP3P_MFMA has its own syntax)."""
        dpp = any(dpp_kind(v) for v in isa.variants[base.name])
        for idef in isa.instructions:
            if idef.name not in base.allowed:
                continue
            yield mnemonic_of(idef), base, idef
            if dpp and has_dpp(idef):
                yield mnemonic_of(idef) + "_e64_dpp", base, idef

    def assemble(self, isa: ISA, stmt: Statement, fmt: Format, idef: InstrDef, ctx: AsmContext):
        if is_matrix(idef):
            return self.matrix.assemble(isa, stmt, fmt, idef, ctx)
        dpp, modifiers = valu.parse_dpp(stmt.modifiers, isa.arch) if has_dpp(idef) else (None, stmt.modifiers)
        if stmt.name.endswith("_dpp") and dpp is None:
            dpp = valu.DppSettings("DPP16", {"dpp": 0xE4, "row_mask": 0xF, "bank_mask": 0xF, "bc": 0, "fi": 0})
        count = source_count(idef)
        dst = destination(idef)
        slots = ([dst] if dst is not None else []) + [source_operand(idef, i) for i in range(count)]
        expect_operands(stmt, len(slots))
        fields: dict[str, int] = {"op": idef.opcode}
        pieces = list(stmt.operands)
        if dst is not None:
            fields["vdst"], _ = parse_vgpr_destination(pieces.pop(0), operand_dwords(isa, dst), isa.arch,
                                                       destination_file(dst))
        mods, rest = self.parse_modifiers(isa, idef, modifiers)
        if rest:
            raise rest[0].error("invalid operand for instruction")
        neg = abs_ = 0
        literal = None
        for index, piece in enumerate(pieces):
            operand = source_operand(idef, index)
            files = "a" if operand.type == "OPR_SRC_ACCVGPR" else "v"
            parsed = parse_source(isa, idef, piece, operand, is_mix(idef), files=files,
                                  allow_literal="NOLIT" not in operand.type and dpp is None
                                  and f"{fmt.name}_LIT" in isa.formats)
            if dpp is not None and index == 0:
                if parsed.value < ops.VGPR_BASE:
                    raise piece.error("invalid operand for instruction")
                fields["vsrc0"] = parsed.value - ops.VGPR_BASE
            else:
                fields[f"src{index}"] = parsed.value
            if parsed.literal is not None:
                if literal is not None and literal != parsed.literal:
                    raise piece.error("only one unique literal operand is allowed")
                literal = parsed.literal
            neg |= parsed.neg << index
            abs_ |= parsed.abs << index
        if is_mix(idef):
            mods = replace(mods, neg_lo=neg, neg_hi=abs_)
        fields.update(mods.fields())
        return self.variant(isa, fmt, idef, dpp, literal, fields)

    def parse_modifiers(self, isa: ISA, idef: InstrDef, pieces: list[Piece]) -> tuple[PackedModifiers, list[Piece]]:
        if idef.name in ACCVGPR_MOVES:
            return PackedModifiers(op_sel_hi=_unused_hi_bits(0)), pieces
        count = 3 if is_wmma(idef) else source_count(idef)
        rest, key = [], 0
        for piece in pieces:
            m = re.fullmatch(r"index_key:(\d+)", piece.text.lower())
            if m and is_sparse(idef):
                key = int(m.group(1))
                if key > 3:
                    raise piece.error("out of range index_key")
            else:
                rest.append(piece)
        mods, rest = parse_modifier_words(rest, count, is_packed(idef), self.arrays(isa, idef))
        if is_wmma(idef) and isa.arch == "rdna4":
            mods = replace(mods, op_sel=key, op_sel_hi=7)
        return mods, rest

    @staticmethod
    def variant(isa: ISA, fmt: Format, idef: InstrDef, dpp, literal: int | None, fields: dict[str, int]):
        if dpp is not None:
            fields["src0"] = DPP16_SRC if dpp.kind == "DPP16" else (DPP8_FI_SRC if dpp.fi else DPP8_SRC)
            fields.update(dpp.fields)
            return isa.formats[f"{fmt.name}_{dpp.kind}"], fields
        if literal is None:
            return fmt, fields
        fields["literal"] = literal
        return isa.formats[f"{fmt.name}_LIT"], fields


SCALE_SOURCES = ("scale_src0", "scale_src1")


@register("VOP3PX2")
class ScaledMatrixMath(MatrixMath):
    """gfx950's scaled MFMA: a v_mfma_ld_scale_b32 word (the two scale VGPRs and their op_sel /
    op_sel_hi byte selects) joined to an f8f6f4 MFMA. LLVM prints op_sel_hi always: its third entry
    has no bit and reads 0, while the default it compares with is all ones."""

    def render(self, inst: Instruction) -> str:
        isa, idef = inst.isa, inst.idef
        texts = self.operand_texts(inst) + [
            source_text(isa, idef, inst[name], idef.operand(name), None, prefix="VReg", vector_only=True)
            for name in SCALE_SOURCES]
        words = [f"op_sel:{common.bit_list(inst['opsel'] & 3, 3)}"] if inst["opsel"] & 3 else []
        words.append(f"op_sel_hi:{common.bit_list(inst['opsel_hi'], 3)}")
        words += self.control_words(idef, inst["cbsz"], 0, inst["blgp"])
        return f"{self.mnemonic(inst)} {', '.join(texts)} {' '.join(words)}"

    def assemble(self, isa: ISA, stmt: Statement, fmt: Format, idef: InstrDef, ctx: AsmContext):
        controls, rest = self.parse_controls(idef, stmt.modifiers, ("cbsz", "blgp"))
        mods, rest = parse_modifier_words(rest, 3, False, ("op_sel", "op_sel_hi"), clamp=False)
        if rest:
            raise rest[0].error("invalid operand for instruction")
        expect_operands(stmt, 6)
        fields = {"op": idef.opcode, **controls, **self.parse_operands(isa, idef, stmt.operands[:4], controls)}
        for name, piece in zip(SCALE_SOURCES, stmt.operands[4:]):
            reg = ops.parse_register(piece.text, isa.arch)
            if reg is None or reg.file != "v" or reg.count != 1:
                raise piece.error("invalid operand for instruction")
            fields[name] = reg.value
        fields.update(x2encoding=ld_scale_prefix(isa), abid=1, opsel=mods.op_sel & 3, opsel_hi=mods.op_sel_hi & 3)
        return fmt, fields


def ld_scale_prefix(isa: ISA) -> int:
    """VOP3PX2's x2encoding: the bits of its first word that make it a VOP3P v_mfma_ld_scale_b32."""
    vop3p = isa.formats["VOP3P"]
    ld_scale = next(i for i in isa.instructions if i.name == "V_MFMA_LD_SCALE_B32")
    word = vop3p.field("encoding").put(vop3p.field("op").put(0, ld_scale.opcode), vop3p.field("encoding").value)
    return word >> isa.formats["VOP3PX2"].field("x2encoding").lo
