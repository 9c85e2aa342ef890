"""Operand rendering and parsing shared by the format syntaxes, keyed by the spec's operand types."""
from __future__ import annotations

import re

from gpubench.isa.model import InstrDef, Operand
from gpubench.isa.syntax import operands as ops
from gpubench.isa.syntax.statement import AsmError, Piece


def dwords(operand: Operand | None) -> int:
    return max(1, (operand.bits if operand else 32) // 32)


def operand_bits(operand: Operand | None) -> int:
    return operand.bits if operand else 32


def is_float(operand: Operand | None) -> bool:
    return bool(operand) and ("_F" in operand.fmt or "BF" in operand.fmt)


_LIT = re.compile(r"^lit\((.*)\)$")


def parse_source(piece: Piece, operand: Operand | None, arch: str, allow_literal: bool = True,
                 text: str | None = None) -> tuple[int, int | None]:
    """(9-bit source value, literal or None) for an operand's text."""
    text = (piece.text if text is None else text).strip()
    bits = operand_bits(operand)
    forced = _LIT.match(text)
    if forced:
        text = forced.group(1).strip()
    reg = None if forced else ops.parse_register(text, arch)
    if reg is not None:
        if reg.file == "a":
            raise piece.error("invalid operand for instruction")
        if reg.count != dwords(operand) and reg.value < 240 and not (reg.count == 1 and reg.value >= 235) \
                and not ops.is_null(reg, arch):
            raise piece.error("invalid operand for instruction")
        return reg.value, None
    number = ops.parse_int(text)
    if number is not None:
        if not forced:
            code = ops.encode_inline_int(number)
            if code is not None:
                return code, None
        literal = number & 0xFFFFFFFF
    else:
        try:
            value = float(text)
        except ValueError:
            raise piece.error("invalid operand for instruction") from None
        if not forced:
            code = ops.encode_inline_float(value, bits)
            if code is not None:
                return code, None
        if not is_float(operand):
            raise piece.error("invalid operand for instruction")
        literal = ops.float_bits(value, bits)
    if not allow_literal:
        raise piece.error("literal operands are not supported")
    return ops.LITERAL, literal


def parse_vgpr(piece: Piece, operand: Operand | None, arch: str) -> int:
    """A VGPR (range) as the 8-bit VGPRField value."""
    reg = ops.parse_register(piece.text, arch)
    if reg is None or reg.file != "v" or reg.count != dwords(operand):
        raise piece.error("invalid operand for instruction")
    return reg.value - ops.VGPR_BASE


def expect_count(pieces: list[Piece], count: int, stmt_end: int) -> None:
    if len(pieces) < count:
        raise AsmError("too few operands for instruction", stmt_end)
    if len(pieces) > count:
        raise pieces[count].error("invalid operand for instruction")


def lower_name(idef: InstrDef) -> str:
    return idef.name.lower()


def bit_list(value: int, count: int) -> str:
    return "[" + ",".join(str(value >> i & 1) for i in range(count)) + "]"


def parse_bit_list(piece: Piece, name: str, count: int) -> int:
    """``name:[1,0,1]`` -> 0b101. LLVM accepts up to four entries and keeps the first ``count``;
    errors point at the bracket or the bad entry, in LLVM's words."""
    start = len(name) + 1
    text = piece.text[start:]
    if not text.startswith("["):
        raise AsmError("expected a left square bracket", piece.column + start)
    closing = text.find("]")
    if closing < 0:
        raise AsmError("expected a closing square bracket", piece.column + len(piece.text))
    entries, column = [], piece.column + start + 1
    for entry in text[1:closing].split(","):
        if len(entries) == 4:
            raise AsmError("expected a closing square bracket", column - 1)
        if entry.strip() not in ("0", "1"):
            raise AsmError(f"invalid {name} value.", column)
        entries.append(int(entry))
        column += len(entry) + 1
    return sum(b << i for i, b in enumerate(entries[:count]))
