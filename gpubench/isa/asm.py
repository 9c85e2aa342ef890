"""LLVM-syntax assembly text -> bytes: statements, labels, and errors in llvm-mc's style."""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from gpubench.isa import syntax
from gpubench.isa.arch import ISA
from gpubench.isa.directives import directive_bytes
from gpubench.isa.encoder import EncodeError, encode
from gpubench.isa.model import Format, InstrDef
from gpubench.isa.syntax.base import AsmContext, FormatSyntax
from gpubench.isa.syntax.statement import AsmError, Statement, parse_statement


class AssemblyError(ValueError):
    """An error with its place: `file:line:column: error: message`, the line, and a caret."""

    def __init__(self, filename: str, line_number: int, column: int, message: str, line: str):
        self.filename, self.line_number, self.column, self.message, self.line = (
            filename, line_number, column, message, line)
        super().__init__(f"{filename}:{line_number}:{column}: error: {message}\n{line}\n{' ' * (column - 1)}^")


@functools.cache
def mnemonic_table(isa: ISA) -> dict[str, list[tuple[FormatSyntax, Format, InstrDef]]]:
    """Every mnemonic of the target -> the encodings that may carry it, in preference order."""
    table: dict[str, list] = {}
    for fmt in isa.formats.values():
        if fmt.name not in syntax.REGISTRY:
            continue
        syn = syntax.REGISTRY[fmt.name]
        for mnemonic, variant, idef in syn.candidates(isa, fmt):
            table.setdefault(mnemonic, []).append((syn, variant, idef))
    return table


def assemble_statement(isa: ISA, stmt: Statement, ctx: AsmContext) -> bytes:
    options = mnemonic_table(isa).get(stmt.name)
    if not options:
        raise stmt.mnemonic.error("invalid instruction")
    errors = []
    for syn, fmt, idef in options:
        try:
            variant, fields = syn.assemble(isa, stmt, fmt, idef, ctx)
            return encode(variant, fields)
        except AsmError as e:
            errors.append(e)
        except EncodeError as e:
            errors.append(AsmError(str(e), stmt.mnemonic.column))
    raise max(errors, key=lambda e: e.column)


_LABEL = re.compile(r"^\s*([A-Za-z_.$][\w.$]*):")


def strip_comment(line: str) -> str:
    return re.split(r";|//", line, maxsplit=1)[0]


@dataclass
class AssembledLine:
    line_number: int
    text: str  # the statement as written
    offset: int
    data: bytes
    kind: str = "instruction"  # or "label", "directive"


@dataclass
class Program:
    lines: list[AssembledLine] = field(default_factory=list)
    labels: dict[str, int] = field(default_factory=dict)

    @property
    def data(self) -> bytes:
        return b"".join(line.data for line in self.lines)

    @property
    def instructions(self) -> list[AssembledLine]:
        return [line for line in self.lines if line.kind == "instruction"]


def assemble(isa: ISA, text: str, filename: str = "<stdin>") -> Program:
    """Assemble a whole source: a first pass for sizes and labels, a second with labels resolved."""
    sources = text.splitlines()
    labels: dict[str, int] = {}
    for final in (False, True):
        program, pc = Program(labels=labels), 0
        for number, raw in enumerate(sources, 1):
            code = strip_comment(raw)
            while (m := _LABEL.match(code)):
                labels[m.group(1)] = pc
                program.lines.append(AssembledLine(number, m.group(1), pc, b"", "label"))
                code = " " * m.end() + code[m.end():]
            if not code.strip():
                continue
            try:
                item = _assemble_line(isa, code, number, AsmContext(pc, labels, final))
            except AsmError as e:
                raise AssemblyError(filename, number, e.column, e.message, raw) from None
            program.lines.append(item)
            pc += len(item.data)
    return program


def _assemble_line(isa: ISA, code: str, number: int, ctx: AsmContext) -> AssembledLine:
    stmt = parse_statement(code)
    if stmt.name.startswith("."):
        args = [p.text for p in stmt.operands] + [p.text for p in stmt.modifiers]
        data = directive_bytes(stmt.name, args, ctx.pc, stmt.mnemonic.column)
        return AssembledLine(number, code.strip(), ctx.pc, data, "directive")
    return AssembledLine(number, code.strip(), ctx.pc, assemble_statement(isa, stmt, ctx))
