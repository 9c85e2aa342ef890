"""Dual issue on RDNA (VOPD, VOPD_LIT): two VALU operations in one encoding.

    v_dual_mul_f32 v0, v1, v2 :: v_dual_add_f32 v3, s4, v5
    v_dual_fmaak_f32 v0, v1, v2, 0x3f800000 :: v_dual_mov_b32 v3, 0x3f800000

Each half is `vdst, src0[, vsrc1]` as the spec lists its operands, plus the constant K of
fmaak (after vsrc1) and fmamk (before it). The halves share one literal dword: a literal source
and a K in the same instruction must be the same value. The Y destination is stored without its
lowest bit, which is the opposite of X's (one destination even, the other odd).
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

from gpubench.isa.arch import ISA
from gpubench.isa.decoder import Instruction
from gpubench.isa.model import Format, InstrDef, Operand
from gpubench.isa.syntax import operands as ops
from gpubench.isa.syntax import valu
from gpubench.isa.syntax import vop3p
from gpubench.isa.syntax.base import AsmContext, FormatSyntax, register
from gpubench.isa.syntax.statement import Piece, Statement, parse_statement

SEPARATOR = "::"


@dataclass(frozen=True)
class Half:
    """The fields of one operation: X or Y."""

    opcode: str
    vdst: str
    src0: str
    vsrc1: str


HALF_X = Half("opx", "vdstx", "srcx0", "vsrcx1")
HALF_Y = Half("opy", "vdsty", "srcy0", "vsrcy1")


def spec_operand(idef: InstrDef, role: str) -> Operand | None:
    """The spec lists each VOPD operation's operands under Y's field names (srcy0, vdsty, vsrcy1)."""
    return idef.operand({"vdst": "vdsty", "src0": "srcy0", "vsrc1": "vsrcy1"}[role])


def layout(idef: InstrDef) -> tuple[str, ...]:
    """The operands in LLVM's order: vdst, src0, vsrc1, with fmamk's/fmaak's K (the spec does not
    list it) where the VOP2 forms have it."""
    roles = [r for r in ("vdst", "src0", "vsrc1") if spec_operand(idef, r) is not None]
    single = "v_" + idef.name.lower().removeprefix("v_dual_")
    if single in valu.K_BEFORE_SRC1:
        roles.insert(roles.index("vsrc1"), "k")
    elif single in valu.K_AFTER_SRC1:
        roles.append("k")
    return tuple(roles)


def unmarked_literal_source(inst: Instruction, half: Half) -> bool:
    """Whether LLVM writes this half's literal source without lit(), as the inline constant it
    equals: only Y's source when X is fmamk and Y has a K too (a quirk of LLVM's operand types for
    those pairs; everywhere else a literal that an inline constant could express is lit())."""
    x_layout, y_layout = layout(inst.idef), layout(inst.idef_y)
    x_k_first = "k" in x_layout and x_layout.index("k") < x_layout.index("vsrc1")
    return half is HALF_Y and x_k_first and "k" in y_layout


def vdsty_register(vdsty: int, vdstx: int) -> int:
    """Y's destination VGPR: the field holds its upper bits; the lowest is the opposite of X's."""
    return vdsty << 1 | (vdstx & 1) ^ 1


@functools.cache
def operations(isa: ISA, fmt_name: str) -> dict[str, InstrDef]:
    """The VOPD operations by mnemonic."""
    enum = isa.formats[fmt_name].field("opx").enum
    return {i.name.lower(): i for i in isa.instructions if i.enum == enum}


@register("VOPD")
class DualIssue(FormatSyntax):
    def mnemonic(self, inst: Instruction) -> str:
        return inst.idef.name.lower()

    def render(self, inst: Instruction) -> str:
        if inst.isa.wave_size != 32:
            raise vop3p.EncodingError("VOPD (dual issue) exists in wave32 only")
        return f" {SEPARATOR} ".join(self.render_half(inst, half, idef)
                                     for half, idef in ((HALF_X, inst.idef), (HALF_Y, inst.idef_y)))

    def render_half(self, inst: Instruction, half: Half, idef: InstrDef) -> str:
        if "vsrc1" not in layout(idef) and inst[half.vsrc1]:
            raise vop3p.EncodingError(f"{idef.name.lower()} has no vsrc1, but its field is not 0")
        texts = []
        for role in layout(idef):
            if role == "vdst":
                index = inst[half.vdst]
                if half is HALF_Y:
                    index = vdsty_register(index, inst["vdstx"])
                texts.append(f"v{index}")
            elif role == "vsrc1":
                texts.append(f"v{inst[half.vsrc1]}")
            elif role == "k":
                texts.append(ops.literal_text(inst["literal"]))
            else:
                texts.append(self.render_source(inst, half, idef))
        return f"{idef.name.lower()} {', '.join(texts)}"

    @staticmethod
    def render_source(inst: Instruction, half: Half, idef: InstrDef) -> str:
        value, operand = inst[half.src0], spec_operand(idef, "src0")
        if value == ops.LITERAL and unmarked_literal_source(inst, half):
            code = vop3p.inline_code(inst["literal"], vop3p.constant_kind(inst.isa, idef, operand))
            if code is not None:
                value = code
        return vop3p.source_text(inst.isa, idef, value, operand, inst.get("literal"))

    # -- text -> bytes --

    def candidates(self, isa: ISA, base: Format):
        opx = base.field("opx")
        for idef in operations(isa, base.name).values():
            if idef.opcode <= opx.mask:
                yield idef.name.lower(), base, idef

    def assemble(self, isa: ISA, stmt: Statement, fmt: Format, idef: InstrDef, ctx: AsmContext):
        if isa.wave_size != 32:
            raise stmt.mnemonic.error("instruction requires wavesize=32")
        split = stmt.line.find(SEPARATOR)
        if split < 0:
            raise stmt.mnemonic.error("too few operands for instruction")
        first = parse_statement(stmt.line[:split])
        second = parse_statement(stmt.line, split + len(SEPARATOR))
        idef_y = operations(isa, fmt.name).get(second.name)
        if idef_y is None:
            raise second.mnemonic.error("invalid VOPDY instruction")
        encoding = HalfEncoder(isa, stmt.mnemonic)
        encoding.put(first, HALF_X, idef)
        encoding.put(second, HALF_Y, idef_y)
        return encoding.finish(fmt)


class HalfEncoder:
    """Field values of both halves, with the literal they share."""

    def __init__(self, isa: ISA, mnemonic: Piece):
        self.isa, self.mnemonic = isa, mnemonic  # LLVM reports a missing operand at X's mnemonic
        self.fields: dict[str, int] = {}
        self.literal: int | None = None

    def put(self, stmt: Statement, half: Half, idef: InstrDef) -> None:
        roles = layout(idef)
        pieces = list(stmt.operands)
        if stmt.modifiers:
            pieces.append(stmt.modifiers[0])
        if len(pieces) < len(roles):
            raise self.mnemonic.error("too few operands for instruction")
        if len(pieces) > len(roles):
            raise pieces[len(roles)].error("invalid operand for instruction")
        self.fields[half.opcode] = idef.opcode
        for role, piece in zip(roles, pieces):
            if role == "vdst":
                self.put_destination(half, piece)
            elif role == "vsrc1":
                self.fields[half.vsrc1] = self.vgpr(piece)
            elif role == "k":
                _, literal = vop3p.parse_constant(piece, f"lit({piece.text})", vop3p.KIND_32, True)
                self.use_literal(piece, literal)
            else:
                parsed = vop3p.parse_source(self.isa, idef, piece, spec_operand(idef, "src0"))
                self.fields[half.src0] = parsed.value
                if parsed.literal is not None:
                    self.use_literal(piece, parsed.literal)

    def put_destination(self, half: Half, piece: Piece) -> None:
        index = self.vgpr(piece)
        if half is HALF_X:
            self.fields["vdstx"] = index
            return
        if (index & 1) == (self.fields["vdstx"] & 1):
            raise piece.error("one dst register must be even and the other odd")
        self.fields["vdsty"] = index >> 1

    def vgpr(self, piece: Piece) -> int:
        reg = ops.parse_register(piece.text, self.isa.arch)
        if reg is None or reg.file != "v" or reg.count != 1:
            raise piece.error("invalid operand for instruction")
        return reg.value - ops.VGPR_BASE

    def use_literal(self, piece: Piece, literal: int) -> None:
        if self.literal is not None and self.literal != literal:
            raise piece.error("only one unique literal operand is allowed")
        self.literal = literal

    def finish(self, fmt: Format) -> tuple[Format, dict[str, int]]:
        if self.literal is None:
            return fmt, self.fields
        return self.isa.formats[f"{fmt.name}_LIT"], {**self.fields, "literal": self.literal}
