"""Scalar ALU encodings with plain register/constant operands: SOP1, SOP2, SOPC.

Text: `mnemonic dst, src0, src1` with the operands the instruction has, in that order.
"""
from __future__ import annotations

from gpubench.isa.arch import ISA
from gpubench.isa.decoder import Instruction
from gpubench.isa.model import Format, InstrDef
from gpubench.isa.syntax import common
from gpubench.isa.syntax.base import AsmContext, FormatSyntax, register
from gpubench.isa.syntax.statement import Statement

SCALAR_FIELDS = ("sdst", "ssrc0", "ssrc1")


@register("SOP1", "SOP2", "SOPC")
class ScalarALU(FormatSyntax):
    def fields(self, idef: InstrDef) -> list[str]:
        return [f for f in SCALAR_FIELDS if idef.operand(f)]

    def mnemonic(self, inst: Instruction) -> str:
        return common.lower_name(inst.idef)

    def render(self, inst: Instruction) -> str:
        texts = [common.render_source(inst, f, inst.idef.operand(f)) for f in self.fields(inst.idef)]
        return f"{self.mnemonic(inst)} {', '.join(texts)}" if texts else self.mnemonic(inst)

    def candidates(self, isa: ISA, base: Format):
        for idef in isa.instructions:
            if idef.name in base.allowed:
                yield common.lower_name(idef), base, idef

    def assemble(self, isa: ISA, stmt: Statement, fmt: Format, idef: InstrDef, ctx: AsmContext):
        names = self.fields(idef)
        if stmt.modifiers:
            raise stmt.modifiers[0].error("invalid operand for instruction")
        common.expect_count(stmt.operands, len(names), stmt.end_column())
        fields, literal = {"op": idef.opcode}, None
        for name, piece in zip(names, stmt.operands):
            operand = idef.operand(name)
            if name == "sdst":
                fields[name] = common.parse_scalar_dest(piece, operand, isa.arch)
                continue
            fields[name], lit = common.parse_source(piece, operand, isa.arch)
            if lit is not None:
                if literal is not None and lit != literal:
                    raise piece.error("only one unique literal operand is allowed")
                literal = lit
        if literal is None:
            return fmt, fields
        fields["literal"] = literal
        return isa.formats[f"{fmt.name}_LIT"], fields
