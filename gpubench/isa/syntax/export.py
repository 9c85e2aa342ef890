"""Exports from a shader to the fixed-function pipeline: EXP (gfx11) and VEXPORT (gfx12).

Text: `exp mrt0 v1, v2, off, v4 done row_en` (`export` on gfx12). The target is a name; each of
the four sources is a VGPR, or `off` when its `en` bit is clear.
"""
from __future__ import annotations

from gpubench.isa.arch import ISA
from gpubench.isa.decoder import Instruction
from gpubench.isa.model import Format, InstrDef
from gpubench.isa.syntax import common
from gpubench.isa.syntax import operands as ops
from gpubench.isa.syntax.base import AsmContext, FormatSyntax, register
from gpubench.isa.syntax.image import Modifiers
from gpubench.isa.syntax.statement import Piece, Statement

SOURCES = ("vsrc0", "vsrc1", "vsrc2", "vsrc3")
DISABLED = "off"
FLAGS = {"done": "done", "row": "row_en"}  # field -> text, in LLVM's order


def _target_names() -> dict[int, str]:
    """LLVM's export target names on RDNA (the spec only has the numbers)."""
    names = {i: f"mrt{i}" for i in range(8)}
    names[8] = "mrtz"
    names.update({12 + i: f"pos{i}" for i in range(5)})
    names.update({20: "prim", 21: "dual_src_blend0", 22: "dual_src_blend1"})
    return names


TARGETS = _target_names()
TARGET_VALUES = {name: value for value, name in TARGETS.items()}
# Targets of other GPUs, which LLVM knows by name but refuses here.
OTHER_GPU_TARGETS = {"null", *(f"param{i}" for i in range(32))}


def target_text(value: int) -> str:
    return TARGETS.get(value, f"invalid_target_{value}")


@register("EXP", "VEXPORT")
class ExportSyntax(FormatSyntax):
    def mnemonic(self, inst: Instruction) -> str:
        return common.lower_name(inst.idef)

    def render(self, inst: Instruction) -> str:
        sources = [ops.register_range("v", inst[name], 1) if inst["en"] >> i & 1 else DISABLED
                   for i, name in enumerate(SOURCES)]
        flags = [text for field, text in FLAGS.items() if inst[field]]
        return " ".join([self.mnemonic(inst), target_text(inst["target"]), ", ".join(sources), *flags])

    def candidates(self, isa: ISA, base: Format):
        for idef in isa.instructions:
            if idef.enum == f"{base.name}Op":
                yield common.lower_name(idef), base, idef

    def assemble(self, isa: ISA, stmt: Statement, fmt: Format, idef: InstrDef, ctx: AsmContext):
        pieces = split_target(stmt.operands)
        common.expect_count(pieces, 1 + len(SOURCES), stmt.mnemonic.column)
        target, name = pieces[0], pieces[0].text.lower()
        if name in OTHER_GPU_TARGETS:
            raise target.error("exp target is not supported on this GPU")
        if name not in TARGET_VALUES:
            raise target.error("invalid exp target")
        fields = {"target": TARGET_VALUES[name], "en": 0}
        for i, (name, piece) in enumerate(zip(SOURCES, pieces[1:])):
            if piece.text.lower() == DISABLED:
                continue
            fields[name] = common.parse_vgpr(piece, None, isa.arch)
            fields["en"] |= 1 << i
        mods = Modifiers(stmt.modifiers, [(text,) for text in FLAGS.values()])
        fields.update({field: mods.flag(text) for field, text in FLAGS.items()})
        return fmt, fields


def split_target(pieces: list[Piece]) -> list[Piece]:
    """The target is separated from the first source by a space (`exp mrt0 v1, ...`), or by a comma."""
    if not pieces:
        return pieces
    first = pieces[0]
    words = first.text.split(None, 1)
    if len(words) == 1:
        return pieces
    rest = first.text[len(words[0]):]
    source = Piece(words[1], first.column + len(words[0]) + len(rest) - len(rest.lstrip()))
    return [Piece(words[0], first.column), source, *pieces[1:]]

