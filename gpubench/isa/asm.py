"""LLVM-syntax assembly text -> bytes: statements, labels, and errors in llvm-mc's style."""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from gpubench.isa import amdhsa, syntax
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
    """The line without its comments: `/* ... */` blocks (blanked, keeping columns) and `;`, `//` to the end."""
    line = re.sub(r"/\*.*?\*/", lambda m: " " * len(m.group()), line)
    return re.split(r";|//", line, maxsplit=1)[0]


@dataclass
class AssembledLine:
    line_number: int
    text: str  # the statement as written; a block's whole source
    offset: int  # in its section
    data: bytes
    kind: str = "instruction"  # or "label", "directive", "block"
    section: str = ".text"
    block: object = None  # a block as gpubench.isa.amdhsa parsed it: KernelBlock, MetadataBlock, ArgsBlock


@dataclass
class Program:
    lines: list[AssembledLine] = field(default_factory=list)
    labels: dict[str, int] = field(default_factory=dict)  # name -> offset in its section
    errors: list[AssemblyError] = field(default_factory=list)  # the lines left out, in source order

    @property
    def data(self) -> bytes:
        """The code: the bytes of .text."""
        return self.section_data(".text")

    def section_data(self, name: str) -> bytes:
        return b"".join(line.data for line in self.lines if line.section == name)

    @property
    def instructions(self) -> list[AssembledLine]:
        return [line for line in self.lines if line.kind == "instruction"]


def assemble(isa: ISA, text: str, filename: str = "<stdin>") -> Program:
    """Assemble a whole source (see assemble_reporting); raises its first error."""
    program = assemble_reporting(isa, text, filename)
    if program.errors:
        raise program.errors[0]
    return program


def assemble_reporting(isa: ISA, text: str, filename: str = "<stdin>") -> Program:
    """Assemble a whole source: a first pass for sizes and labels, a second with labels resolved.

    As with llvm-mc, a line with an error is left out and reported in Program.errors, and the
    others assemble; an error in a block ends the assembly there (its lines are not statements).
    Each section (.text, .rodata, `.section NAME`) has its own offsets. The blocks of
    `amdhsa.BLOCKS` (`.amdhsa_kernel` ... `.end_amdhsa_kernel` and the like) go whole to
    gpubench.isa.amdhsa: they are not statements."""
    sources = text.splitlines()
    labels: dict[str, int] = {}
    for final in (False, True):
        program, section, pcs = Program(labels=labels), ".text", {".text": 0}
        number = 0
        while number < len(sources):
            raw = sources[number]
            number += 1
            code = strip_comment(raw)
            while (m := _LABEL.match(code)):
                labels[m.group(1)] = pcs[section]
                program.lines.append(AssembledLine(number, m.group(1), pcs[section], b"", "label", section))
                code = " " * m.end() + code[m.end():]
            if not code.strip():
                continue
            try:
                if (name := _section_switch(code)) is not None:
                    section = name
                    pcs.setdefault(section, 0)
                    item = AssembledLine(number, code.strip(), pcs[section], b"", "directive", section)
                elif code.split()[0] in amdhsa.BLOCKS:
                    item, number = _assemble_block(isa, sources, number, pcs[section], section)
                else:
                    item = _assemble_line(isa, code, number, AsmContext(pcs[section], labels, final), section)
            except AsmError as e:
                program.errors.append(AssemblyError(filename, number, e.column, e.message, raw))
                continue
            except amdhsa.DirectiveError as e:
                program.errors.append(
                    AssemblyError(filename, e.line_number, e.column, e.message, sources[e.line_number - 1]))
                break
            program.lines.append(item)
            pcs[section] += len(item.data)
    return program


def _section_switch(code: str) -> str | None:
    """The section a `.text`, `.data`, `.rodata` or `.section NAME[,flags...]` line switches to."""
    words = code.replace(",", " ").split()
    if words[0] in (".text", ".data", ".rodata"):
        return words[0]
    return words[1].strip('"') if words[0] == ".section" and len(words) > 1 else None


def _assemble_block(isa: ISA, sources: list[str], start: int, pc: int, section: str) -> tuple[AssembledLine, int]:
    """The block whose first line is line ``start``, parsed by gpubench.isa.amdhsa, and the number
    of its last line. A kernel descriptor's 64 bytes go into the current section, as with llvm-mc."""
    header = strip_comment(sources[start - 1])
    end = amdhsa.BLOCKS[header.split()[0]]
    lines, number = [(start, header)], start
    while lines[-1][1].split()[:1] != [end]:
        if number == len(sources):
            raise amdhsa.DirectiveError(start, 1, f"no {end} for this block")
        number += 1
        lines.append((number, strip_comment(sources[number - 1])))
    block = amdhsa.parse_block(isa, lines)
    data = block.descriptor if isinstance(block, amdhsa.KernelBlock) else b""
    source = "\n".join(sources[start - 1:number])
    return AssembledLine(start, source, pc, data, "block", section, block), number


def _assemble_line(isa: ISA, code: str, number: int, ctx: AsmContext, section: str) -> AssembledLine:
    stmt = parse_statement(code)
    if stmt.name.startswith("."):
        args = [p.text for p in stmt.operands] + [p.text for p in stmt.modifiers]
        data = directive_bytes(stmt.name, args, ctx.pc, stmt.mnemonic.column)
        if not section.startswith(".text") and stmt.name in (".p2align", ".balign", ".align"):
            data = bytes(len(data))  # llvm-mc pads data with zeros, code with s_nop
        return AssembledLine(number, code.strip(), ctx.pc, data, "directive", section)
    return AssembledLine(number, code.strip(), ctx.pc, assemble_statement(isa, stmt, ctx), "instruction", section)
