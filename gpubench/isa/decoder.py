"""Bytes -> instructions, driven by the generated format tables.

A format is found from its fixed first-dword bits and the opcode it allows; a variant of it
(DPP16, DPP8, SDWA, a literal, an SGPR destination, MFMA) from the source operand that selects it
or from the opcode. Anything that matches no format is a `DecodeError` naming offset and bytes.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from gpubench.isa.arch import ISA
from gpubench.isa.model import Format, InstrDef

LITERAL = 255
DPP16 = 250
DPP8 = (233, 234)
SDWA = 249
SOURCE_KINDS = ("SrcField", "SSrcField")


class DecodeError(ValueError):
    def __init__(self, offset: int, data: bytes, reason: str):
        self.offset, self.data, self.reason = offset, data, reason
        shown = ",".join(f"0x{b:02x}" for b in data)
        super().__init__(f"invalid instruction at offset 0x{offset:x}: [{shown}]: {reason}")


@dataclass(frozen=True)
class Instruction:
    """A decoded instruction: its (variant) format, definition and the raw encoding as an integer."""

    isa: ISA = field(repr=False)
    fmt: Format
    idef: InstrDef
    word: int
    size: int
    offset: int = 0
    idef_y: InstrDef | None = None  # VOPD: the second (Y) operation

    def __getitem__(self, name: str) -> int:
        fld = self.fmt.field(name)
        if fld is None:
            raise KeyError(f"{self.fmt.name} has no field '{name}'")
        return fld.get(self.word)

    def get(self, name: str, default: int | None = None) -> int | None:
        fld = self.fmt.field(name)
        return default if fld is None else fld.get(self.word)

    @property
    def name(self) -> str:
        return self.idef.name

    @property
    def bytes(self) -> bytes:
        return self.word.to_bytes(self.size, "little")

    def pseudocode(self) -> str | None:
        return self.isa.pseudocode_of(self.idef)


# Source fields that some instructions use for an immediate, where 255 is a value, not a literal.
IMMEDIATE_OPERANDS = ("OPR_SENDMSG_RTN", "OPR_SIMM4")


def _sources(fmt: Format, word: int, idef: InstrDef | None = None) -> list[int]:
    """The source fields' values; with ``idef``, only of the fields it reads as sources."""
    return [f.get(word) for f in fmt.fields if f.kind in SOURCE_KINDS
            and not (idef and idef.operand(f.name) and idef.operand(f.name).type in IMMEDIATE_OPERANDS)]


def _variant_holds(isa: ISA, base: Format, variant: Format, idef: InstrDef, word: int) -> bool:
    """Whether each suffix of the variant's name (DPP16, LIT, SDST ...) holds for this encoding."""
    if idef.name not in variant.allowed:
        return False
    src0 = base.field("src0")
    src0_value = src0.get(word) if src0 else None
    for part in variant.name[len(base.name) + 1:].split("_"):
        if part == "DPP16" and src0_value != DPP16:
            return False
        if part == "DPP8" and src0_value not in DPP8:
            return False
        if part == "SDWA" and src0_value != SDWA:
            return False
        if (part == "LIT" and LITERAL not in _sources(base, word, idef) and not _needs_literal_form(isa, base, idef)
                and not _has_k_operand(isa, base, word)):
            return False
        if part in ("SDST", "MFMA") and not (_only_variants_allow(isa, base, part, idef)
                                             or _sole_form(isa, variant, part)):
            return False
    return True


def _sole_form(isa: ISA, variant: Format, part: str) -> bool:
    """A variant with no sibling lacking ``part`` is the only form for its other parts: VOPC's SDWA
    form is VOPC_SDWA_SDST (there is no VOPC_SDWA), so it holds whatever the opcode."""
    return variant.name.replace(f"_{part}", "") not in isa.formats


def _needs_literal_form(isa: ISA, base: Format, idef: InstrDef) -> bool:
    """Ops whose literal is an operand of its own (v_fmamk_f32's K) exist only in a _LIT form."""
    return not any(idef.name in f.allowed for f in [base, *isa.variants[base.name]]
                   if not set(f.name.split("_")) & {"LIT", "DPP16", "DPP8", "SDWA"})


# Operations with a constant K (a literal dword) that the spec's tables do not show: VOPD's opcode
# fields carry no allowed lists, so its fmaak/fmamk, in either half, are allowed in plain VOPD too.
K_OPERAND_OPS = frozenset({"V_DUAL_FMAAK_F32", "V_DUAL_FMAMK_F32"})


def _has_k_operand(isa: ISA, base: Format, word: int) -> bool:
    for fld in base.opcode_fields:
        idef = isa.by_opcode.get((fld.enum, fld.get(word)))
        if idef is not None and idef.name in K_OPERAND_OPS:
            return True
    return False


def _only_variants_allow(isa: ISA, base: Format, part: str, idef: InstrDef) -> bool:
    """SDST/MFMA variants are chosen by opcode: the op is allowed there and not in the plain format."""
    plain = [v for v in isa.variants[base.name] if part not in v.name.split("_")]
    return not any(idef.name in f.allowed for f in [base, *plain]
                   if not (set(f.name.split("_")) & {"DPP16", "DPP8", "SDWA", "LIT"}))


def _sole_instruction(isa: ISA, base: Format) -> InstrDef | None:
    """A format without an opcode field (EXP, VEXPORT) encodes the one member of its enum `<format>Op`."""
    members = [i for i in isa.instructions if i.enum == f"{base.name}Op"]
    return members[0] if len(members) == 1 else None


def _base_instr(isa: ISA, base: Format, opcode_field: str, word: int) -> InstrDef | None:
    """The opcode's instruction if the base format or one of its variants allows it: some exist only
    in a variant (s_setreg_imm32_b32 and s_fmaak_f32 only with their literal)."""
    for fmt in (base, *isa.variants[base.name]):
        idef = isa.instr(fmt, opcode_field, word)
        if idef is not None:
            return idef
    return None


def _length(fmt: Format, word: int) -> int:
    """The encoding's length: gfx11 MIMG's `nsa` bit adds a dword of extra address VGPRs, which
    the spec's format does not model (the syntax reads them from bits 64-95 of the word)."""
    nsa = fmt.field("nsa")
    return fmt.size + (4 if nsa is not None and nsa.get(word) else 0)


SOURCE_SELECTED = {"DPP16", "DPP8", "SDWA"}


def _variant_rank(variant: Format) -> tuple[int, bool]:
    """More matching parts win; on a tie a variant that src0's value selects (DPP, SDWA) beats one
    the opcode selects (SDST): src0 = 250 means DPP whatever the opcode (v_cmp_*_e64_dpp)."""
    parts = variant.name.split("_")
    return len(parts), bool(SOURCE_SELECTED & set(parts))


def _pick_variant(isa: ISA, base: Format, idef: InstrDef, word: int) -> Format:
    best, best_rank = (base if idef.name in base.allowed or not base.opcode_fields else None), (0, False)
    for variant in isa.variants[base.name]:
        rank = _variant_rank(variant)
        if rank > best_rank and _variant_holds(isa, base, variant, idef, word):
            best, best_rank = variant, rank
    if best is None:
        raise LookupError(f"{idef.name} is not legal in {base.name}")
    return best


# Encodings that begin with a whole instruction of another format, their identifying bits left by
# the spec as plain fields: gfx950's VOP3PX2 (scaled MFMA) is a VOP3P V_MFMA_LD_SCALE_B32 word
# followed by the MFMA, whose bit 75 (the spec's abid) LLVM requires set. Name -> (first format,
# first instruction, field values the compound needs).
COMPOUND_FORMATS = {"VOP3PX2": ("VOP3P", "V_MFMA_LD_SCALE_B32", {"abid": 1})}


def decides_alone(inst: Instruction) -> bool:
    """Whether ``inst``'s own bytes decide its decoding wherever they stand: not for the first
    instruction of a compound encoding, which the bytes after it extend."""
    return not any((inst.fmt.name, inst.name) == (first_format, first_instr)
                   for first_format, first_instr, _ in COMPOUND_FORMATS.values())


def _compound(isa: ISA, base: Format, idef: InstrDef, data: bytes, offset: int) -> Instruction | None:
    """The compound encoding that starts with ``idef`` of ``base``, if the bytes hold one."""
    for name, (first_format, first_instr, required) in COMPOUND_FORMATS.items():
        fmt = isa.formats.get(name)
        if fmt is None or (base.name, idef.name) != (first_format, first_instr):
            continue
        raw = data[offset:offset + fmt.size]
        if len(raw) < fmt.size:
            continue
        word = int.from_bytes(raw, "little")
        fixed = {f.name: f.value for f in fmt.fixed_fields} | required
        if any(fmt.field(field).get(word) != value for field, value in fixed.items()):
            continue
        inner = isa.instr(fmt, fmt.opcode_fields[0].name, word)
        if inner is not None:
            return Instruction(isa, fmt, inner, word, fmt.size, offset)
    return None


# Field values the hardware reserves: SDWA selectors name BYTE_0..3, WORD_0..1 and DWORD (0-6); 7
# names nothing (LLVM's disassembler stops on an assertion over it).
RESERVED_VALUES = {"dst_sel": 7, "src0_sel": 7, "src1_sel": 7}


def _invalid(fmt: Format, idef: InstrDef, word: int) -> str | None:
    """Why an encoding whose format and opcode match names nothing the hardware executes, if it does:
    a reserved field value, or a literal source where the format has no literal dword."""
    for name, value in RESERVED_VALUES.items():
        fld = fmt.field(name)
        if fld is not None and fld.get(word) == value:
            return f"{fmt.name} {name} {value} is reserved"
    if fmt.field("literal") is None and LITERAL in _sources(fmt, word, idef):
        return f"{idef.name} ({fmt.name}): a literal source, and the format has no literal dword"
    return None


def decode(isa: ISA, data: bytes, offset: int = 0) -> Instruction:
    """Decode the instruction at ``data[offset:]``."""
    head = data[offset:offset + 4]
    if len(head) < 4:
        raise DecodeError(offset, head, "truncated: fewer than 4 bytes")
    word0 = int.from_bytes(head, "little")
    failures = []
    for matcher in isa.matchers:
        if word0 & matcher.mask != matcher.value:
            continue
        base = matcher.fmt
        raw = data[offset:offset + base.size]
        if len(raw) < base.size:
            failures.append(f"truncated {base.name} ({base.size} bytes)")
            continue
        word = int.from_bytes(raw, "little")
        opfields = base.opcode_fields
        idef = _base_instr(isa, base, opfields[0].name, word) if opfields else _sole_instruction(isa, base)
        if idef is None:
            failures.append(f"no {base.name} opcode {opfields[0].get(word) if opfields else '?'}")
            continue
        compound = _compound(isa, base, idef, data, offset)
        if compound is not None:
            return compound
        try:
            fmt = _pick_variant(isa, base, idef, word)
        except LookupError as e:
            failures.append(str(e))
            continue
        size = _length(fmt, int.from_bytes(data[offset:offset + fmt.size], "little"))
        raw = data[offset:offset + size]
        if len(raw) < size:
            raise DecodeError(offset, raw, f"truncated {fmt.name}: needs {size} bytes")
        word = int.from_bytes(raw, "little")
        idef_y = isa.instr(fmt, opfields[1].name, word) if len(opfields) > 1 else None
        if len(opfields) > 1 and idef_y is None:
            failures.append(f"no {base.name} opcode {opfields[1].get(word)} in {opfields[1].name}")
            continue
        invalid = _invalid(fmt, idef, word)
        if invalid is not None:
            raise DecodeError(offset, raw, invalid)
        return Instruction(isa, fmt, idef, word, size, offset, idef_y)
    raise DecodeError(offset, data[offset:offset + 8], "; ".join(failures) or "no encoding matches")


def decode_all(isa: ISA, data: bytes) -> list[Instruction]:
    """Decode a whole instruction stream; stops with a DecodeError at the first invalid word."""
    result, offset = [], 0
    while offset < len(data):
        inst = decode(isa, data, offset)
        result.append(inst)
        offset += inst.size
    return result
