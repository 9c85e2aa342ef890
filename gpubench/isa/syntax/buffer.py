"""Buffer memory: MUBUF and MTBUF (gfx11, gfx9), VBUFFER (gfx12, both kinds in one encoding).

Text: `mnemonic vdata, vaddr, srsrc, soffset format:F idxen offen offset:N cache-policy tfe|lds`.
vaddr is `off` without idxen/offen, one VGPR with either, a pair with both. tfe adds a status
dword to vdata. A gfx9 load with the `lds` bit writes to LDS and has no vdata. The typed (tbuffer)
operations write their format unless it is the default one: a unified `BUF_FMT_*` name on gfx11
and gfx12, the data and number formats on gfx9.
"""
from __future__ import annotations

from gpubench.isa.arch import ISA
from gpubench.isa.decoder import Instruction
from gpubench.isa.model import Format, InstrDef
from gpubench.isa.syntax import common, salu
from gpubench.isa.syntax import operands as ops
from gpubench.isa.syntax.base import AsmContext, FormatSyntax, register
from gpubench.isa.syntax.ds import (InvalidEncoding, Modifier, base_opcodes, modifiers_of, operand_pieces,
                                    parse_vector, vector_text)
from gpubench.isa.syntax.flat import (ATOMIC, assemble_cache_policy, cache_policy_words, operation_kind,
                                      reject_repeats)
from gpubench.isa.syntax.statement import AsmError, Piece, Statement

# Field names per family: gfx12 renamed them, and its resource field holds the SGPR itself.
RSRC = {"rdna3": "srsrc", "cdna": "srsrc", "rdna4": "rsrc"}
RSRC_SCALE = {"rdna3": 4, "cdna": 4, "rdna4": 1}
OFFSET = {"rdna3": "offset", "cdna": "offset", "rdna4": "ioffset"}
OFFSET_BITS = {"rdna3": 12, "cdna": 12, "rdna4": 23}
OFFSET_MESSAGE = {"rdna3": "expected a 12-bit unsigned offset", "cdna": "expected a 12-bit unsigned offset",
                  "rdna4": "expected a 23-bit unsigned offset for buffer ops"}

# One past the last SGPR: a resource quad must not run into the named registers (vcc ...).
SGPR_END = {"rdna3": 106, "rdna4": 106, "cdna": 104}
# Bits that the cache controls (buffer_gl*_inv, buffer_wbl2 ...) must leave clear: LLVM rejects them.
CONTROL_CLEAR = ("idxen", "offen", "tfe", "acc")

# The cache-policy words of the cache controls: gfx9's buffer_wbl2/buffer_inv take sc0/sc1 (LLVM
# ignores nt both ways), gfx11's buffer_gl*_inv none; gfx12's take the whole policy.
CONTROL_POLICY = {"cdna": ("sc0", "sc1"), "rdna3": ()}
IGNORED_CONTROL_POLICY = {"cdna": ("nt",)}

# The gfx9 loads that may write to LDS instead of vdata (the `lds` bit); gfx950 adds two.
LDS_LOADS = {"BUFFER_LOAD_UBYTE", "BUFFER_LOAD_SBYTE", "BUFFER_LOAD_USHORT", "BUFFER_LOAD_SSHORT",
             "BUFFER_LOAD_DWORD", "BUFFER_LOAD_FORMAT_X"}
LDS_LOADS_BY_TARGET = {"gfx950": {"BUFFER_LOAD_DWORDX3", "BUFFER_LOAD_DWORDX4"}}


def loads_to_lds_ok(isa: ISA, idef: InstrDef) -> bool:
    return idef.name in LDS_LOADS or idef.name in LDS_LOADS_BY_TARGET.get(isa.target.name, ())


# Operations of the spec that LLVM 22 lacks on a family (both ways): gfx11's loads into LDS.
# (They belong in autogen's per-target `missing` lists; kept here until they are there.)
NOT_IN_LLVM = {"rdna3": {"BUFFER_LOAD_LDS_U8", "BUFFER_LOAD_LDS_I8", "BUFFER_LOAD_LDS_U16", "BUFFER_LOAD_LDS_I16",
                         "BUFFER_LOAD_LDS_B32", "BUFFER_LOAD_LDS_FORMAT_X"}}

# ---- formats of the typed operations ---------------------------------------------------------

DATA_FORMATS = ("INVALID", "8", "16", "8_8", "32", "16_16", "10_11_11", "11_11_10", "10_10_10_2",
                "2_10_10_10", "8_8_8_8", "32_32", "16_16_16_16", "32_32_32", "32_32_32_32", "RESERVED_15")
NUMBER_FORMATS = ("UNORM", "SNORM", "USCALED", "SSCALED", "UINT", "SINT", "RESERVED_6", "FLOAT")
DEFAULT_DFMT, DEFAULT_NFMT = 1, 0
# gfx11/gfx12 unified formats 0..63 (LLVM's names); higher values have none and print as numbers.
UNIFIED_FORMATS = (
    "INVALID 8_UNORM 8_SNORM 8_USCALED 8_SSCALED 8_UINT 8_SINT 16_UNORM 16_SNORM 16_USCALED "
    "16_SSCALED 16_UINT 16_SINT 16_FLOAT 8_8_UNORM 8_8_SNORM 8_8_USCALED 8_8_SSCALED 8_8_UINT "
    "8_8_SINT 32_UINT 32_SINT 32_FLOAT 16_16_UNORM 16_16_SNORM 16_16_USCALED 16_16_SSCALED "
    "16_16_UINT 16_16_SINT 16_16_FLOAT 10_11_11_FLOAT 11_11_10_FLOAT 10_10_10_2_UNORM "
    "10_10_10_2_SNORM 10_10_10_2_UINT 10_10_10_2_SINT 2_10_10_10_UNORM 2_10_10_10_SNORM "
    "2_10_10_10_USCALED 2_10_10_10_SSCALED 2_10_10_10_UINT 2_10_10_10_SINT 8_8_8_8_UNORM "
    "8_8_8_8_SNORM 8_8_8_8_USCALED 8_8_8_8_SSCALED 8_8_8_8_UINT 8_8_8_8_SINT 32_32_UINT "
    "32_32_SINT 32_32_FLOAT 16_16_16_16_UNORM 16_16_16_16_SNORM 16_16_16_16_USCALED "
    "16_16_16_16_SSCALED 16_16_16_16_UINT 16_16_16_16_SINT 16_16_16_16_FLOAT 32_32_32_UINT "
    "32_32_32_SINT 32_32_32_FLOAT 32_32_32_32_UINT 32_32_32_32_SINT 32_32_32_32_FLOAT").split()
DEFAULT_UNIFIED = 1
UNIFIED_MAX = 127


def is_typed(idef: InstrDef) -> bool:
    return idef.name.startswith("TBUFFER_")


def format_text(inst: Instruction) -> str | None:
    """The `format:` modifier, or None for the default format."""
    if inst.isa.arch == "cdna":
        dfmt, nfmt = inst["dfmt"], inst["nfmt"]
        parts = ([f"BUF_DATA_FORMAT_{DATA_FORMATS[dfmt]}"] if dfmt != DEFAULT_DFMT else []) + \
                ([f"BUF_NUM_FORMAT_{NUMBER_FORMATS[nfmt]}"] if nfmt != DEFAULT_NFMT else [])
        return f"format:[{','.join(parts)}]" if parts else None
    value = inst["format"]
    if value == DEFAULT_UNIFIED:
        return None
    return f"format:[BUF_FMT_{UNIFIED_FORMATS[value]}]" if value < len(UNIFIED_FORMATS) else f"format:{value}"


def parse_format(arch: str, modifier: Modifier) -> dict[str, int]:
    """The format fields of a `format:N` or `format:[NAME, ...]` modifier."""
    text = (modifier.value or "").strip()
    if not (text.startswith("[") and text.endswith("]")):
        value = ops.parse_int(text)
        if value is None:
            raise modifier.value_piece().error("expected absolute expression")
        if not 0 <= value <= UNIFIED_MAX:
            raise modifier.value_piece().error("out of range format")
        return {"dfmt": value & 0xF, "nfmt": value >> 4} if arch == "cdna" else {"format": value}
    dfmt, nfmt, unified = DEFAULT_DFMT, DEFAULT_NFMT, None
    for name in (n.strip().upper() for n in text[1:-1].split(",")):
        if name.startswith("BUF_DATA_FORMAT_") and name[16:] in DATA_FORMATS:
            dfmt = DATA_FORMATS.index(name[16:])
        elif name.startswith("BUF_NUM_FORMAT_") and name[15:] in NUMBER_FORMATS:
            nfmt = NUMBER_FORMATS.index(name[15:])
        elif name.startswith("BUF_FMT_") and name[8:] in UNIFIED_FORMATS:
            if arch == "cdna":
                raise AsmError("unified format is not supported on this GPU", modifier.value_piece().column + 1)
            unified = UNIFIED_FORMATS.index(name[8:])
        else:
            raise AsmError("unsupported format", modifier.value_piece().column + 1)
    if arch == "cdna":
        return {"dfmt": dfmt, "nfmt": nfmt}
    if unified is None:
        name = f"{DATA_FORMATS[dfmt]}_{NUMBER_FORMATS[nfmt]}"
        if name not in UNIFIED_FORMATS:
            raise AsmError("unsupported format", modifier.value_piece().column + 1)
        unified = UNIFIED_FORMATS.index(name)
    return {"format": unified}


# ---- operands --------------------------------------------------------------------------------

def vdata_dwords(inst_or_fields, idef: InstrDef) -> int:
    """vdata's width: the spec's, and one dword more for tfe's status."""
    tfe = inst_or_fields.get("tfe") or 0
    return common.dwords(idef.operand("vdata")) + tfe


def vaddr_dwords(idxen: int, offen: int) -> int:
    return idxen + offen


def soffset_text(inst: Instruction) -> str:
    value, arch = inst["soffset"], inst.isa.arch
    if value == ops.LITERAL:  # LLVM has no literal here (and crashes decoding one on gfx11)
        raise InvalidEncoding("soffset cannot be a literal")
    return salu.source_text(value, None, salu.B32, arch)


def rsrc_text(inst: Instruction) -> str:
    arch = inst.isa.arch
    first = inst[RSRC[arch]] * RSRC_SCALE[arch]
    text = salu.scalar_register_text(first, 4, arch)
    if text is None or first < SGPR_END[arch] < first + 4:
        raise InvalidEncoding(f"{RSRC[arch]}={inst[RSRC[arch]]} names no 4-dword register")
    return text


@register("MUBUF", "MTBUF", "VBUFFER")
class BufferMemory(FormatSyntax):
    def mnemonic(self, inst: Instruction) -> str:
        return common.lower_name(inst.idef)

    def render(self, inst: Instruction) -> str:
        isa, idef, arch = inst.isa, inst.idef, inst.isa.arch
        kind = operation_kind(idef)
        self.check_encoding(inst)
        if idef.operand("vaddr") is None:  # cache controls: buffer_gl0_inv, buffer_wbl2 ...
            policy = [w for w in cache_policy_words(inst, kind) if w in CONTROL_POLICY.get(arch, (w,))]
            return " ".join([self.mnemonic(inst), *policy])
        texts = []
        if not inst.get("lds"):
            texts.append(vector_text(isa, inst["vdata"], vdata_dwords(inst, idef), bool(inst.get("acc")), "AV"))
        idxen, offen = inst["idxen"], inst["offen"]
        vaddr_class = None if inst.fmt.name == "MTBUF" else "VReg"  # LLVM checks no MTBUF vaddr pair
        texts.append(vector_text(isa, inst["vaddr"], vaddr_dwords(idxen, offen), False, vaddr_class)
                     if idxen or offen else "off")
        texts += [rsrc_text(inst), soffset_text(inst)]
        words = [f"{self.mnemonic(inst)} {', '.join(texts)}"]
        typed_format = format_text(inst) if is_typed(idef) else None
        if typed_format:
            words.append(typed_format)
        words += [name for name in ("idxen", "offen") if inst[name]]
        if inst[OFFSET[arch]]:
            words.append(f"offset:{inst[OFFSET[arch]]}")
        words += cache_policy_words(inst, kind)
        words += [name for name in ("tfe", "lds") if inst.get(name)]
        return " ".join(words)

    @staticmethod
    def check_encoding(inst: Instruction) -> None:
        idef, arch = inst.idef, inst.isa.arch
        if idef.name in NOT_IN_LLVM.get(arch, ()):
            raise InvalidEncoding(f"LLVM has no {idef.name} on {inst.isa.target.name}")
        if inst.get("tfe") and (operation_kind(idef) == ATOMIC or is_typed(idef)):
            raise InvalidEncoding(f"LLVM decodes no {idef.name} with tfe")
        if inst.get("lds") and (inst["acc"] or not loads_to_lds_ok(inst.isa, idef)):
            raise InvalidEncoding(f"{idef.name} cannot load to LDS")
        if idef.operand("vaddr") is None and any(inst.get(name) for name in CONTROL_CLEAR):
            raise InvalidEncoding(f"{idef.name} with one of {', '.join(CONTROL_CLEAR)} set")
        if inst[OFFSET[arch]] >> OFFSET_BITS[arch]:
            raise InvalidEncoding(f"offset {inst[OFFSET[arch]]} exceeds {OFFSET_BITS[arch]} bits")
        if idef.operand("vaddr") is not None:
            rsrc_text(inst)

    def candidates(self, isa: ISA, base: Format):
        for idef in base_opcodes(isa, base):
            if idef.name not in NOT_IN_LLVM.get(isa.arch, ()):
                yield common.lower_name(idef), base, idef

    def assemble(self, isa: ISA, stmt: Statement, fmt: Format, idef: InstrDef, ctx: AsmContext):
        arch, kind = isa.arch, operation_kind(idef)
        fields = {"op": idef.opcode}
        if idef.operand("vaddr") is None:
            modifiers = [m for m in modifiers_of(stmt, 0) if m.name not in IGNORED_CONTROL_POLICY.get(arch, ())]
            for modifier in modifiers:
                if modifier.name not in CONTROL_POLICY.get(arch, (modifier.name,)):
                    raise modifier.piece.error("invalid operand for instruction")
            self.assemble_modifiers(isa, fmt, idef, kind, modifiers, fields)
            return fmt, fields
        lds = next((piece for piece in stmt.modifiers if piece.text.lower() == "lds"), None)
        if lds is not None and self.written_with_vdata(isa, stmt):  # LLVM blames the flag
            raise lds.error("invalid operand for instruction")
        names = (["vaddr"] if lds else ["vdata", "vaddr"]) + ["rsrc", "soffset"]
        pieces = dict(zip(names, operand_pieces(stmt, len(names))))
        modifiers = modifiers_of(stmt, len(names))
        self.assemble_modifiers(isa, fmt, idef, kind, modifiers, fields)
        if not lds:
            self.assemble_vdata(isa, fmt, idef, pieces["vdata"], modifiers, fields)
        self.assemble_vaddr(isa, fmt, stmt, pieces["vaddr"], modifiers, fields)
        fields[RSRC[arch]] = salu.parse_scalar_register(pieces["rsrc"], 4, arch) // RSRC_SCALE[arch]
        fields["soffset"] = self.parse_soffset(isa, stmt, pieces["soffset"])
        return fmt, fields

    @staticmethod
    def written_with_vdata(isa: ISA, stmt: Statement) -> bool:
        """Whether the second operand is an address (`off` or a VGPR), not the resource."""
        if len(stmt.operands) < 2:
            return False
        second = stmt.operands[1]
        reg = salu.parse_register_piece(second, isa.arch)
        return second.text.strip().lower() == "off" or reg is not None and reg.file == "v"

    @staticmethod
    def assemble_vdata(isa: ISA, fmt: Format, idef: InstrDef, piece: Piece, modifiers: list[Modifier],
                       fields: dict[str, int]) -> None:
        """vdata, one dword wider with tfe; like LLVM, blame a width that lacks tfe's dword on tfe."""
        dwords = vdata_dwords(fields, idef)
        reg = salu.parse_register_piece(piece, isa.arch)
        tfe = next((m.piece for m in modifiers if m.name == "tfe"), None)
        if tfe is not None and reg is not None and reg.file in "va" and reg.count == dwords - 1:
            raise tfe.error("invalid operand for instruction")
        fields["vdata"], agpr = parse_vector(isa, piece, dwords, fmt.field("acc") is not None)
        if agpr:
            fields["acc"] = 1

    @staticmethod
    def assemble_vaddr(isa: ISA, fmt: Format, stmt: Statement, piece: Piece, modifiers: list[Modifier],
                       fields: dict[str, int]) -> None:
        """vaddr must be as wide as idxen/offen say; like LLVM, blame a mismatch on the flag."""
        dwords = vaddr_dwords(fields.get("idxen", 0), fields.get("offen", 0))
        flag = next((m.piece for m in modifiers if m.name in ("idxen", "offen")), None)
        if piece.text.strip().lower() == "off":
            if dwords:
                raise flag.error("invalid operand for instruction")
            return
        if not dwords:  # LLVM reads a register here as the start of a longer operand list
            raise AsmError("too few operands for instruction", stmt.mnemonic.column)
        reg = salu.parse_register_piece(piece, isa.arch)
        if reg is not None and reg.file == "v" and reg.count != dwords:
            raise flag.error("invalid operand for instruction")
        fields["vaddr"], _ = parse_vector(isa, piece, dwords, aligned=fmt.name != "MTBUF")

    @staticmethod
    def parse_soffset(isa: ISA, stmt: Statement, piece: Piece) -> int:
        """An SGPR or (before gfx12) an inline constant; never a literal."""
        reg = salu.parse_register_piece(piece, isa.arch)
        if reg is not None:
            return salu.scalar_register_code(piece, reg, 1, isa.arch)
        if isa.arch == "rdna4":
            raise AsmError("operands are not valid for this GPU or mode", stmt.mnemonic.column)
        value, literal = common.parse_source(piece, None, isa.arch)
        if literal is not None:
            raise piece.error("invalid operand for instruction")
        return value

    @staticmethod
    def assemble_modifiers(isa: ISA, fmt: Format, idef: InstrDef, kind: str, modifiers: list[Modifier],
                           fields: dict[str, int]) -> None:
        arch = isa.arch
        for modifier in modifiers:
            name = modifier.name
            if name == "lds" and not loads_to_lds_ok(isa, idef):
                raise modifier.piece.error("invalid operand for instruction")
            if name in ("idxen", "offen", "tfe", "lds") and modifier.value is None and fmt.field(name):
                fields[name] = 1
            elif name == "offset" and modifier.value is not None:
                fields[OFFSET[arch]] = modifier.integer(0, (1 << OFFSET_BITS[arch]) - 1, OFFSET_MESSAGE[arch])
            elif name == "format" and modifier.value is not None and is_typed(idef):
                fields.update(parse_format(arch, modifier))
            elif not assemble_cache_policy(arch, kind, modifier, fields):
                raise modifier.piece.error("invalid operand for instruction")
        reject_repeats(modifiers)
        # The default format; gfx12 encodes it in the untyped operations too.
        if fmt.field("dfmt") is not None and "dfmt" not in fields:
            fields.update({"dfmt": DEFAULT_DFMT, "nfmt": DEFAULT_NFMT})
        if fmt.field("format") is not None and "format" not in fields:
            fields["format"] = DEFAULT_UNIFIED
