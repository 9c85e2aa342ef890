"""The contract between the disassembler/assembler and the per-format syntax modules.

A `FormatSyntax` owns the text of the base formats it names, in both directions: `render` turns a
decoded instruction into LLVM's text, `assemble` turns a parsed statement into field values. The
two sit next to each other in one class so that they cannot drift apart.
"""
from __future__ import annotations

from collections.abc import Iterable

from gpubench.isa.arch import ISA
from gpubench.isa.decoder import Instruction
from gpubench.isa.model import Format, InstrDef
from gpubench.isa.syntax.statement import AsmError, Statement

REGISTRY: dict[str, "FormatSyntax"] = {}


class AsmContext:
    """What an operand may refer to beyond the statement: the PC and the program's labels.

    In the first pass labels are not known yet; `resolve` then answers the PC itself so that sizes
    come out right, and the second pass assembles again with every label in place.
    """

    def __init__(self, pc: int = 0, labels: dict[str, int] | None = None, final: bool = True):
        self.pc, self.labels, self.final = pc, labels if labels is not None else {}, final

    def resolve(self, name: str, column: int) -> int:
        if name in self.labels:
            return self.labels[name]
        if self.final:
            raise AsmError(f"undefined label '{name}'", column)
        return self.pc


def register(*formats: str):
    """Class decorator: the syntax handles these formats; a base format's entry covers its variants
    unless a variant (VOP1_SDWA, VOP3P_MFMA ...) is registered on its own."""

    def wrap(cls):
        instance = cls()
        for name in formats:
            REGISTRY[name] = instance
        return cls

    return wrap


class FormatSyntax:
    def mnemonic(self, inst: Instruction) -> str:
        raise NotImplementedError

    def render(self, inst: Instruction) -> str:
        """LLVM's text for a decoded instruction (as `llvm-mc --disassemble` prints it)."""
        raise NotImplementedError

    def candidates(self, isa: ISA, base: Format) -> Iterable[tuple[str, Format, InstrDef]]:
        """Every (mnemonic, format, instruction) this syntax assembles for ``base``, a format it is
        registered for (with its unregistered variants, e.g. VOP1 yields the _dpp mnemonics too)."""
        raise NotImplementedError

    def assemble(self, isa: ISA, stmt: Statement, fmt: Format, idef: InstrDef,
                 ctx: AsmContext) -> tuple[Format, dict[str, int]]:
        """Field values for ``stmt``; may pick another variant of ``fmt`` (e.g. the _LIT one).

        Raises AsmError (with the column of the offending piece) when the operands do not fit.
        """
        raise NotImplementedError
