"""Sub-dword addressing on CDNA (VOP1_SDWA, VOP2_SDWA, VOP2_SDWA_SDST, VOPC_SDWA_SDST): a VOP1,
VOP2 or VOPC operation whose operands are bytes or words of their registers.

    v_add_f32_sdwa v0, -v1, |s2| clamp mul:2 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:BYTE_0 src1_sel:DWORD
    v_add_u32_sdwa v0, sext(v1), v2 dst_sel:DWORD dst_unused:UNUSED_PRESERVE src0_sel:BYTE_0 src1_sel:WORD_0
    v_cmp_eq_f32_sdwa s[2:3], v1, v2 src0_sel:WORD_1 src1_sel:DWORD

The operands are those of the e32 form (valu.layout), VCC included. A source is a VGPR, or with
its s0/s1 flag an SGPR or inline constant; floating-point sources take neg/abs, integer ones
sext(). LLVM prints every select; omitted ones assemble as DWORD and UNUSED_PRESERVE. A compare
writes VCC, or with the sd flag the SGPR pair in sdst.
"""
from __future__ import annotations

import re

from gpubench.isa.arch import ISA
from gpubench.isa.decoder import SDWA, Instruction
from gpubench.isa.model import Format, InstrDef, Operand
from gpubench.isa.syntax import common
from gpubench.isa.syntax import operands as ops
from gpubench.isa.syntax import valu, vop3p
from gpubench.isa.syntax.base import AsmContext, FormatSyntax, register
from gpubench.isa.syntax.statement import AsmError, Piece, Statement


SELECTS = ("BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3", "WORD_0", "WORD_1", "DWORD")
UNUSED = ("UNUSED_PAD", "UNUSED_SEXT", "UNUSED_PRESERVE")
UNUSED_TEXT = UNUSED + ("UNUSED_PAD",)  # LLVM prints the unnamed value 3 as UNUSED_PAD
DWORD, UNUSED_PRESERVE = SELECTS.index("DWORD"), UNUSED.index("UNUSED_PRESERVE")
SUFFIX = "_sdwa"
# Per source: the field holding the register, the flag that makes it a scalar, and the fields of
# its select and modifiers (prefix src0_/src1_).
SOURCE_FIELDS = (("vsrc0", "s0", "src0"), ("vsrc1", "s1", "src1"))

_SEXT = re.compile(r"^sext\((.*)\)$", re.S)


def is_compare(fmt: Format) -> bool:
    return "sdst" in (f.name for f in fmt.fields) and fmt.field("dst_sel") is None


def sdwa_layout(isa: ISA, idef: InstrDef) -> tuple[valu.Slot, ...]:
    return valu.layout(isa, idef, False, False)


def select_words(inst: Instruction) -> list[str]:
    words = []
    if inst.fmt.field("dst_sel") is not None:
        words.append(f"dst_sel:{name_of(SELECTS, inst['dst_sel'], 'dst_sel')}")
        words.append(f"dst_unused:{UNUSED_TEXT[inst['dst_unused']]}")
    for index in range(len(sources(inst.isa, inst.idef))):
        words.append(f"src{index}_sel:{name_of(SELECTS, inst[f'src{index}_sel'], f'src{index}_sel')}")
    return words


def name_of(names: tuple[str, ...], value: int, what: str) -> str:
    if value >= len(names):
        raise vop3p.EncodingError(f"{what} {value} has no name")
    return names[value]


def sources(isa: ISA, idef: InstrDef) -> list[valu.Slot]:
    return valu.sources_of(sdwa_layout(isa, idef))


# The spec types v_cmp_class_f16's class mask (src1) as F16; LLVM reads it as an integer.
INTEGER_SOURCES = {"v_cmp_class_f16": 1, "v_cmpx_class_f16": 1}


def source_modifiers(idef: InstrDef, slot: valu.Slot) -> str | None:
    """LLVM's SDWA input modifiers: "float" (neg/abs), "int" (sext), or None for packed operands."""
    if "_PK" in slot.operand.fmt:
        return None
    if INTEGER_SOURCES.get(valu.base_name(idef)) == slot.source:
        return "int"
    return "float" if valu.takes_float_modifiers(idef, slot) else "int"


def constant_text(value: int, operand: Operand) -> str:
    """An inline constant; a 16-bit integer operand reads a float constant as its f16 bits."""
    if value in vop3p.KIND_F16.floats and operand.bits == 16 and not common.is_float(operand):
        return ops.literal_text(vop3p.KIND_F16.floats[value])
    return ops.inline_constant(value, common.operand_bits(operand))


@register("VOP1_SDWA", "VOP2_SDWA", "VOP2_SDWA_SDST", "VOPC_SDWA_SDST")
class SubDword(FormatSyntax):
    def mnemonic(self, inst: Instruction) -> str:
        return valu.base_name(inst.idef) + SUFFIX if inst.idef.operands else valu.base_name(inst.idef)

    # -- bytes -> text --

    def render(self, inst: Instruction) -> str:
        isa, idef = inst.isa, inst.idef
        if not idef.operands:
            return self.mnemonic(inst)
        texts = [self.render_slot(inst, slot) for slot in sdwa_layout(isa, idef)]
        words = [self.mnemonic(inst), ", ".join(texts)]
        if inst.get("clmp"):
            words.append("clamp")
        if inst.get("omod") and valu.has_omod(idef):
            words.append(valu.OMOD_TEXT[inst["omod"]])
        return " ".join(words + select_words(inst))

    def render_slot(self, inst: Instruction, slot: valu.Slot) -> str:
        isa = inst.isa
        if slot.kind == "vcc":
            if is_compare(inst.fmt) and inst["sd"]:
                return self.scalar(isa, inst["sdst"], 2, "sdst")
            return valu.vcc_text(isa)
        if slot.kind == "vdst":
            return f"v{inst['vdst']}"
        if slot.kind != "src":
            raise vop3p.EncodingError(f"{inst.name}: no SDWA form")
        register_field, flag, prefix = SOURCE_FIELDS[slot.source]
        value = inst[register_field]
        operand = slot.operand
        if not inst[flag]:
            text = f"v{value}"
        elif valu.is_inline_constant(value):
            text = constant_text(value, operand)
        else:
            text = self.scalar(isa, value, common.dwords(operand), register_field)
        kind = source_modifiers(inst.idef, slot)
        if kind == "int":
            return f"sext({text})" if inst[f"{prefix}_sext"] else text
        if kind is None:
            return text
        mods = valu.SourceModifiers(bool(inst[f"{prefix}_neg"]), bool(inst[f"{prefix}_abs"]))
        return valu.with_modifiers(text, mods, inst[flag] and valu.is_inline_constant(value))

    @staticmethod
    def scalar(isa: ISA, value: int, count: int, field: str) -> str:
        """An SGPR or special register held in an SDWA field."""
        name = vop3p.scalar_text(isa, value, count)
        if name is None:
            raise vop3p.EncodingError(f"{field}={value} names no SDWA operand")
        return name

    # -- text -> bytes --

    def candidates(self, isa: ISA, base: Format):
        """The operations of ``base``, an SDWA variant; an _SDST variant only for the operations
        without a plain SDWA form (VOP2 carry-outs are written to VCC in VOP2_SDWA)."""
        plain = isa.formats.get(base.name.removesuffix("_SDST"))
        for idef in isa.instructions:
            if idef.name not in base.allowed or not idef.operands:
                continue
            if plain is not base and plain is not None and idef.name in plain.allowed:
                continue
            yield valu.base_name(idef) + SUFFIX, base, idef

    def assemble(self, isa: ISA, stmt: Statement, fmt: Format, idef: InstrDef, ctx: AsmContext):
        slots = sdwa_layout(isa, idef)
        vop3p.expect_operands(stmt, len(slots))
        fields = {"op": idef.opcode, "src0": SDWA}
        for slot, piece in zip(slots, stmt.operands):
            fields.update(self.parse_slot(isa, fmt, idef, slot, piece))
        fields.update(self.parse_modifiers(isa, fmt, idef, stmt.modifiers))
        return fmt, fields

    def parse_slot(self, isa: ISA, fmt: Format, idef: InstrDef, slot: valu.Slot, piece: Piece) -> dict[str, int]:
        text = piece.text.strip().lower()
        if slot.kind == "vcc":
            if text == valu.vcc_text(isa):
                return {}
            reg = ops.parse_register(text, isa.arch)
            if not is_compare(fmt) or reg is None or reg.file != "s" or reg.count != 2 or reg.value >= 128:
                raise piece.error("invalid operand for instruction")
            return {"sd": 1, "sdst": reg.value}
        if slot.kind == "vdst":
            return {"vdst": common.parse_vgpr(piece, slot.operand, isa.arch)}
        return self.parse_source(isa, idef, slot, piece)

    def parse_source(self, isa: ISA, idef: InstrDef, slot: valu.Slot, piece: Piece) -> dict[str, int]:
        register_field, flag, prefix = SOURCE_FIELDS[slot.source]
        operand = slot.operand
        fields = {}
        kind = source_modifiers(idef, slot)
        text = piece.text.strip()
        if kind == "int":
            sext = _SEXT.match(text)
            if sext:
                text, fields[f"{prefix}_sext"] = sext.group(1).strip(), 1
        elif kind == "float":
            text, mods = valu.split_modifiers(piece)
            fields[f"{prefix}_neg"], fields[f"{prefix}_abs"] = int(mods.neg), int(mods.abs)
        value, literal = common.parse_source(piece, operand, isa.arch, text=text)
        if literal is not None:
            raise piece.error("invalid operand for instruction")  # SDWA has no literal dword
        if value >= ops.VGPR_BASE:
            fields[register_field] = value - ops.VGPR_BASE
        else:
            fields[register_field], fields[flag] = value, 1
        return fields

    def parse_modifiers(self, isa: ISA, fmt: Format, idef: InstrDef, pieces: list[Piece]) -> dict[str, int]:
        count = len(sources(isa, idef))
        selects = ("dst_sel", "src0_sel", "src1_sel")[:count + 1]
        fields = {name: DWORD for name in selects if fmt.field(name)}
        if fmt.field("dst_unused"):
            fields["dst_unused"] = UNUSED_PRESERVE
        for piece in pieces:
            text = piece.text.strip().lower()
            name, _, value = text.partition(":")
            upper = value.upper()
            if text == "clamp" and fmt.field("clmp"):
                fields["clmp"] = 1
            elif text in valu.OMOD_VALUE and fmt.field("omod") and valu.has_omod(idef):
                fields["omod"] = valu.OMOD_VALUE[text]
            elif name in fields and (name.endswith("_sel") or name == "dst_unused"):
                names = UNUSED if name == "dst_unused" else SELECTS
                if upper not in names:
                    raise AsmError(f"invalid {name} value", piece.column + len(name) + 1)
                fields[name] = names.index(upper)
            else:
                raise piece.error("not a valid operand.")
        return fields
