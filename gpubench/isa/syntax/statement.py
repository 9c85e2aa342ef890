"""Splits one line of LLVM AMDGPU assembly into mnemonic, operands and trailing modifiers.

`v_add_f32_e64 v0, -v1, |v2| clamp mul:2` -> mnemonic `v_add_f32_e64`, operands
`["v0", "-v1", "|v2|"]`, modifiers `["clamp", "mul:2"]`. Commas inside (), [] separate nothing;
`hwreg(HW_REG_MODE, 0, 32)` stays one operand. Each piece keeps its column for error messages.
Operands written without commas (`s_waitcnt vmcnt(0) lgkmcnt(0)`) come out as one operand and
modifiers; the format's syntax reads them as it needs.
"""
from __future__ import annotations

from dataclasses import dataclass, field


class AsmError(ValueError):
    """An assembly error at a column of the current line; the assembler adds file and line."""

    def __init__(self, message: str, column: int = 1):
        super().__init__(message)
        self.message, self.column = message, column


@dataclass(frozen=True)
class Piece:
    text: str
    column: int  # 1-based, in the source line

    def error(self, message: str) -> AsmError:
        return AsmError(message, self.column)


@dataclass
class Statement:
    mnemonic: Piece
    operands: list[Piece] = field(default_factory=list)
    modifiers: list[Piece] = field(default_factory=list)
    line: str = ""

    @property
    def name(self) -> str:
        return self.mnemonic.text.lower()

    def end_column(self) -> int:
        return len(self.line.rstrip()) + 1


def _split_top_level(text: str, start: int, separators: str) -> list[Piece]:
    """Split at separators that are not inside brackets or parentheses, keeping columns."""
    pieces, depth, begin = [], 0, 0
    for i, ch in enumerate(text + separators[0]):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if (ch in separators and depth == 0) or i == len(text):
            chunk = text[begin:i]
            stripped = chunk.strip()
            if stripped:
                pieces.append(Piece(stripped, start + begin + (len(chunk) - len(chunk.lstrip())) + 1))
            begin = i + 1
    return pieces


def parse_statement(line: str, start: int = 0) -> Statement:
    """Parse the instruction in ``line[start:]`` (already free of comments and labels)."""
    body = line[start:]
    stripped = body.lstrip()
    offset = start + len(body) - len(stripped)
    name_end = len(stripped.split(None, 1)[0]) if stripped else 0
    stmt = Statement(Piece(stripped[:name_end], offset + 1), line=line)
    rest = stripped[name_end:]
    rest_start = offset + name_end
    operands = _split_top_level(rest, rest_start, ",")
    if operands:
        # Modifiers follow the last operand, separated by spaces: split it.
        last = operands.pop()
        words = _split_top_level(last.text, last.column - 1, " \t")
        operands.append(words[0])
        stmt.modifiers = words[1:]
    stmt.operands = operands
    return stmt
