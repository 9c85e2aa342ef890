"""Scalar memory encodings: SMEM (s_load_*, s_buffer_load_*, s_store_*, atomics, probes, prefetches).

Text: `mnemonic sdata, sbase, offset [offset:imm] [cache policy]`, with the operands the instruction
has. The offset operand is an SGPR (`soffset`), an immediate, or both (`soffset offset:imm`); which
one LLVM writes depends on the family:

- gfx9 (CDNA): the `imm` and `soffset_en` bits choose: immediate; SGPR (in the offset field's low
  bits, or in soffset with soffset_en); or both.
- gfx11: a zero offset writes soffset (even null), a null soffset writes the offset, else both.
- gfx12: a null soffset writes the offset, else both (`offset:0x0` included).

Cache policy: `glc` (gfx9), `glc dlc` (gfx11), `[scale_offset] th:... scope:... nv` (gfx12), for the
operations that move data (the others ignore those bits).
"""
from __future__ import annotations

from gpubench.isa.arch import ISA
from gpubench.isa.decoder import Instruction
from gpubench.isa.model import Format, InstrDef
from gpubench.isa.syntax import common, salu
from gpubench.isa.syntax import operands as ops
from gpubench.isa.syntax.base import AsmContext, FormatSyntax, register
from gpubench.isa.syntax.statement import Piece, Statement

# Immediate offset widths (signed); buffer offsets must not be negative (and, on gfx12, fit 23 bits).
OFFSET_FIELD = {"cdna": "offset", "rdna3": "offset", "rdna4": "ioffset"}
OFFSET_WIDTH = {"cdna": 21, "rdna3": 21, "rdna4": 24}
BUFFER_OFFSET_BITS = {"cdna": 20, "rdna3": 20, "rdna4": 23}
BUFFER_OFFSET_MESSAGE = {"cdna": "expected a 20-bit unsigned offset", "rdna3": "expected a 20-bit unsigned offset",
                         "rdna4": "expected a 23-bit unsigned offset for buffer ops"}

# LLVM's data register classes exclude m0 and exec: it flags them when it decodes one.
EXCLUDED_DATA = {1: ("SReg_32_XM0_XEXEC", {"m0", "exec_lo", "exec_hi"}), 2: ("SReg_64_XEXEC", {"exec"})}

# gfx12: LLVM reads bit 56, which the spec leaves out of the format, as `scale_offset` (a gfx1250
# feature: LLVM prints it on gfx12 and refuses to assemble it there).
SCALE_OFFSET_BIT = 56
TH_LOAD = {1: "TH_LOAD_NT", 2: "TH_LOAD_HT", 3: "TH_LOAD_LU"}
TH_LOAD_BYPASS = "TH_LOAD_BYPASS"  # th 3 at system scope
SCOPES = {1: "SCOPE_SE", 2: "SCOPE_DEV", 3: "SCOPE_SYS"}
SCOPE_SYS = 3


def offset_bits(arch: str, offset: int) -> int:
    """A signed immediate offset as the bits of its field."""
    return offset & ((1 << OFFSET_WIDTH[arch]) - 1)


def signed_hex(value: int) -> str:
    return f"-0x{-value:x}" if value < 0 else f"0x{value:x}"


def data_text(value: int, dwords: int, arch: str) -> str:
    if dwords == 3 and salu.is_tuple_register(value, arch) and value >= ops.TTMP_BASE:
        # LLVM has no 3-dword TTMP tuple: it decodes the 8-dword one there, if any, and flags it.
        text = salu.required_register_text(value, 8, arch, "sdata")
        return f"{text}/*Invalid register, operand has 'SReg_96' register class*/"
    text = salu.required_register_text(value, dwords, arch, "sdata")
    register_class, excluded = EXCLUDED_DATA.get(dwords, ("", set()))
    if text in excluded:
        return f"{text}/*Invalid register, operand has '{register_class}' register class*/"
    return text


def moves_data(idef: InstrDef) -> bool:
    """Loads, stores and atomics (an SGPR data operand and an address) take a cache policy."""
    sdata = idef.operand("sdata")
    return sdata is not None and sdata.type == "OPR_SREG" and idef.operand("sbase") is not None


def is_buffer(idef: InstrDef) -> bool:
    sbase = idef.operand("sbase")
    return sbase is not None and sbase.bits == 128


def check_encoding(inst: Instruction) -> None:
    """Reject what LLVM's decoder rejects although the fields hold values."""
    idef, arch = inst.idef, inst.isa.arch
    if arch == "cdna" and inst["imm"] and idef.operand("soffset") is None:
        raise ops.OperandError(f"{inst.name} takes no offset, but its imm bit is set")
    if arch == "rdna3" and not moves_data(idef) and (inst["glc"] or inst["dlc"]):
        raise ops.OperandError(f"{inst.name} takes no cache policy, but glc/dlc is set")
    if arch == "rdna4":
        if is_buffer(idef) and inst["ioffset"] >> 23:
            raise ops.OperandError(f"{inst.name}: a buffer offset cannot be negative")
        sdata = idef.operand("sdata")
        if sdata is not None and sdata.type != "OPR_SREG" and inst["sdata"] >= 32:
            raise ops.OperandError(f"{inst.name}: immediate {inst['sdata']} does not fit 5 bits")


def immediate_offset(inst: Instruction) -> int:
    arch = inst.isa.arch
    return salu.signed(inst[OFFSET_FIELD[arch]], OFFSET_WIDTH[arch])


def offset_operands(inst: Instruction) -> tuple[int | None, int | None]:
    """(SGPR, immediate) that LLVM writes for the offset; given both, it writes `sgpr offset:imm`."""
    arch, soffset, offset = inst.isa.arch, inst["soffset"], immediate_offset(inst)
    if arch == "cdna":
        if not inst["imm"]:  # the SGPR is in soffset (soffset_en) or in the offset field's low bits
            return (soffset if inst["soffset_en"] else inst["offset"] & 0x7F), None
        return (soffset, offset) if inst["soffset_en"] else (None, offset)
    if arch == "rdna3" and offset == 0:
        return soffset, None
    if soffset == salu.null_code(arch):
        return None, offset
    return soffset, offset


def is_prefetch(idef: InstrDef) -> bool:
    """gfx12's s_prefetch_*: sdata holds a count, written last."""
    sdata = idef.operand("sdata")
    return sdata is not None and sdata.type == "OPR_SIMM5"


@register("SMEM")
class ScalarMemory(FormatSyntax):
    def mnemonic(self, inst: Instruction) -> str:
        return common.lower_name(inst.idef)

    def render(self, inst: Instruction) -> str:
        idef, arch = inst.idef, inst.isa.arch
        check_encoding(inst)
        texts, modifiers = [], []
        sdata, prefetch = idef.operand("sdata"), is_prefetch(idef)
        if sdata is not None and not prefetch:
            texts.append(data_text(inst["sdata"], common.dwords(sdata), arch) if sdata.type == "OPR_SREG"
                         else salu.small_decimal_text(inst["sdata"]))
        if idef.operand("sbase"):
            texts.append(self.base_text(inst))
        if prefetch:  # s_prefetch_*: every part, in the encoding's order
            texts += [signed_hex(immediate_offset(inst)), self.register(inst["soffset"], arch), str(inst["sdata"])]
        elif idef.operand("soffset"):
            sgpr, offset = offset_operands(inst)
            texts.append(self.register(sgpr, arch) if sgpr is not None else signed_hex(offset))
            if sgpr is not None and offset is not None:
                modifiers.append(f"offset:{signed_hex(offset)}")
        if moves_data(idef):
            modifiers += self.cache_policy(inst)
        text = f"{self.mnemonic(inst)} {', '.join(texts)}" if texts else self.mnemonic(inst)
        return " ".join([text, *modifiers])

    @staticmethod
    def register(value: int, arch: str) -> str:
        return salu.required_register_text(value, 1, arch, "soffset")

    @staticmethod
    def base_text(inst: Instruction) -> str:
        """sbase holds an SGPR pair's number: the register is twice the field."""
        dwords = common.dwords(inst.idef.operand("sbase"))
        return salu.required_register_text(inst["sbase"] * 2, dwords, inst.isa.arch, "sbase")

    @staticmethod
    def cache_policy(inst: Instruction) -> list[str]:
        if inst.isa.arch == "rdna4":
            th, scope = inst["th"], inst["scope"]
            words = ["scale_offset"] if inst.word >> SCALE_OFFSET_BIT & 1 else []
            if th:
                words.append(f"th:{TH_LOAD_BYPASS if th == 3 and scope == SCOPE_SYS else TH_LOAD[th]}")
            if scope:
                words.append(f"scope:{SCOPES[scope]}")
            return words + (["nv"] if inst["nv"] else [])
        return [name for name in ("glc", "dlc") if inst.get(name)]

    def candidates(self, isa: ISA, base: Format):
        for idef in isa.instructions:
            if idef.name in base.allowed:
                yield common.lower_name(idef), base, idef

    def assemble(self, isa: ISA, stmt: Statement, fmt: Format, idef: InstrDef, ctx: AsmContext):
        arch, fields = isa.arch, {"op": idef.opcode}
        sdata, prefetch = idef.operand("sdata"), is_prefetch(idef)
        names = [n for n in ("sdata", "sbase") if idef.operand(n) and not (n == "sdata" and prefetch)]
        if prefetch:
            names += ["ioffset", "soffset", "sdata"]
        elif idef.operand("soffset"):
            names.append("soffset")
        common.expect_count(stmt.operands, len(names), stmt.mnemonic.column)
        offset_piece = None
        for name, piece in zip(names, stmt.operands):
            if name == "sdata" and sdata.type == "OPR_SREG":
                fields[name] = self.parse_data(piece, common.dwords(sdata), arch)
            elif name == "sdata":
                fields[name] = salu.parse_immediate(piece, fmt.field("sdata").width, signed_ok=False)
            elif name == "sbase":
                fields[name] = salu.parse_scalar_register(piece, common.dwords(idef.operand("sbase")), arch,
                                                          destination=True) // 2
            elif name == "ioffset":
                fields[name] = offset_bits(arch, self.parse_offset(piece, isa, idef))
            elif prefetch:
                fields[name] = salu.parse_scalar_register(piece, 1, arch, destination=True)
            else:
                offset_piece = piece
        if offset_piece is not None:
            self.assemble_offset(isa, idef, offset_piece, stmt, fields)
        elif stmt.modifiers:
            raise stmt.modifiers[0].error("invalid operand for instruction")
        return fmt, fields

    @staticmethod
    def parse_data(piece: Piece, dwords: int, arch: str) -> int:
        value = salu.parse_scalar_register(piece, dwords, arch, destination=True)
        if salu.scalar_register_text(value, dwords, arch) in EXCLUDED_DATA.get(dwords, ("", set()))[1]:
            raise piece.error("invalid operand for instruction")
        return value

    def assemble_offset(self, isa: ISA, idef: InstrDef, piece: Piece, stmt: Statement,
                        fields: dict[str, int]) -> None:
        """The offset operand and the modifiers after it: offset:imm and the cache policy."""
        arch = isa.arch
        reg = salu.parse_register_piece(piece, arch)
        sgpr = salu.parse_scalar_register(piece, 1, arch, destination=True) if reg is not None else None
        offset = self.parse_offset(piece, isa, idef) if reg is None else None
        policy = []
        for modifier in stmt.modifiers:
            if modifier.text.startswith("offset:") and sgpr is not None and offset is None:
                offset = self.parse_offset(Piece(modifier.text[7:], modifier.column + 7), isa, idef)
            elif moves_data(idef):
                policy.append(modifier)
            else:
                raise modifier.error("invalid operand for instruction")
        fields.update(parse_cache_policy(arch, policy))
        self.put_offset(arch, sgpr, offset, fields)

    @staticmethod
    def put_offset(arch: str, sgpr: int | None, offset: int | None, fields: dict[str, int]) -> None:
        null = salu.null_code(arch)
        offset_field = OFFSET_FIELD[arch]
        if arch == "cdna":
            if sgpr is not None and offset is None:  # LLVM's SGPR form keeps the SGPR in the offset field
                fields.update(imm=0, soffset_en=0, offset=sgpr)
                return
            fields.update(imm=1, soffset_en=int(sgpr is not None), soffset=sgpr or 0)
        else:
            fields["soffset"] = null if sgpr is None else sgpr
        fields[offset_field] = offset_bits(arch, offset or 0)

    @staticmethod
    def parse_offset(piece: Piece, isa: ISA, idef: InstrDef) -> int:
        arch = isa.arch
        number = ops.parse_int(piece.text)
        if number is None:
            raise piece.error("invalid operand for instruction")
        if is_buffer(idef) and not idef.operand("ioffset"):
            bits = BUFFER_OFFSET_BITS[arch]
            if not 0 <= number < (1 << bits):
                raise piece.error(BUFFER_OFFSET_MESSAGE[arch])
            return number
        width = OFFSET_WIDTH[arch]
        if not -(1 << (width - 1)) <= number < (1 << (width - 1)):
            raise piece.error(f"expected a {width}-bit signed offset")
        return number


def parse_cache_policy(arch: str, modifiers: list[Piece]) -> dict[str, int]:
    """The cache-policy fields that the modifiers set (glc, dlc; th, scope on gfx12)."""
    allowed = {"cdna": ("glc",), "rdna3": ("glc", "dlc"), "rdna4": ()}[arch]
    fields, th_piece = {}, None
    for modifier in modifiers:
        name, _, value = modifier.text.partition(":")
        if name in allowed and not value:
            fields[name] = 1
        elif arch == "rdna4" and name == "th" and value in (*TH_LOAD.values(), TH_LOAD_BYPASS):
            fields["th"] = 3 if value == TH_LOAD_BYPASS else next(k for k, v in TH_LOAD.items() if v == value)
            th_piece = modifier
        elif arch == "rdna4" and name == "scope" and value in SCOPES.values():
            fields["scope"] = next(k for k, v in SCOPES.items() if v == value)
        elif arch == "rdna4" and name in ("nv", "scale_offset") and not value:
            raise modifier.error(f"{name} is not supported on this GPU")
        else:
            raise modifier.error("invalid operand for instruction")
    if th_piece is not None and fields["th"] == 3:
        # th 3 is TH_LOAD_BYPASS at system scope and TH_LOAD_LU below it.
        if (th_piece.text.endswith(TH_LOAD_BYPASS)) != (fields.get("scope") == SCOPE_SYS):
            raise th_piece.error("scope and th combination is not valid")
    return fields
