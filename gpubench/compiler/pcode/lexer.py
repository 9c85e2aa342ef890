"""Tokens of AMD's pseudocode.

Newlines are tokens: outside brackets they end a statement (the manual often omits ``;`` before
``endif`` or a comment line). The parser decides when a newline is insignificant (inside brackets, after
an operator). Comments (``//`` to the end of the line) are dropped here.

Literal spellings and the type each one carries:
  ``5``, ``0xff``         untyped integer (takes the type of the operand it meets)
  ``5U``  ``5LL``  ``5ULL``  u32, i64, u64 (C suffixes; the manual writes ``0xffffffffLL`` for i64)
  ``2.0``                 untyped float;  ``2.0F`` f32
  ``16'4``  ``8'0xff``    sized bits literal: b16, b8;  ``1'1U`` u1;  ``16'0.5`` f16
  ``32'U``  ``16'BF``     a sized type: a cast when followed by ``(``, else a declaration's type
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from gpubench.compiler.pcode.dtypes import DataType


class PcodeSyntaxError(ValueError):
    """Text that is not AMD pseudocode; the message names the line and column."""

    def __init__(self, message: str, line: int, col: int):
        super().__init__(f"line {line}, col {col}: {message}")
        self.line, self.col = line, col


@dataclass(frozen=True)
class Token:
    kind: str  # int | float | type | ident | string | op | newline | eof
    text: str
    line: int
    col: int
    value: int | float | DataType | None = None
    dtype: DataType | None = None  # the literal's type; None for an untyped literal


# Longest first, so that "<<=" is one token and not "<<" then "=".
_OPERATORS = sorted(
    [
        "<<=", ">>=", "+:", "**", "<<", ">>", "<=", ">=", "==", "!=", "<>", "&&", "||",
        "+=", "-=", "*=", "/=", "%=", "|=", "&=", "^=", "..",
        "+", "-", "*", "/", "%", "&", "|", "^", "~", "!", "<", ">", "=", "?", ":", ",", ";", ".",
        "(", ")", "[", "]", "{", "}",
    ],
    key=len,
    reverse=True,
)

_TOKEN = re.compile(
    "|".join(
        [
            r"(?P<comment>//[^\n]*)",
            r"(?P<newline>\n)",
            r"(?P<space>[ \t\r]+)",
            # A sized type (32'U, 16'BF) or a sized literal (1'1U, 16'0.5, 8'0xff).
            (
                r"(?P<sized>(?P<sbits>\d+)'(?:(?P<stype>BF|[UIBF])(?![0-9A-Za-z_.])"
                r"|(?P<snum>0[xX][0-9a-fA-F]+|\d+\.\d+|\d+)(?P<ssuffix>[UI])?))"
            ),
            r"(?P<float>\d+\.\d+(?:[eE][-+]?\d+)?(?P<fsuffix>F)?)",
            r"(?P<int>(?P<digits>0[xX][0-9a-fA-F]+|\d+)(?P<isuffix>ULL|LL|U)?)",
            r"(?P<ident>[A-Za-z_][A-Za-z0-9_]*)",
            r'(?P<string>"[^"\n]*")',
            "(?P<op>" + "|".join(re.escape(op) for op in _OPERATORS) + ")",
        ]
    )
)

_INT_SUFFIX_TYPES = {"U": DataType("u", 32), "LL": DataType("i", 64), "ULL": DataType("u", 64)}


def tokenize(text: str) -> list[Token]:
    tokens: list[Token] = []
    line, line_start, pos = 1, 0, 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        col = pos - line_start + 1
        if m is None:
            raise PcodeSyntaxError(f"unexpected character {text[pos]!r}", line, col)
        kind, lexeme = m.lastgroup, m.group()
        pos = m.end()
        if kind == "newline":
            if tokens and tokens[-1].kind != "newline":
                tokens.append(Token("newline", lexeme, line, col))
            line, line_start = line + 1, pos
        elif kind in ("comment", "space"):
            continue
        elif kind == "sized":
            tokens.append(_sized(m, line, col))
        elif kind == "float":
            dtype = DataType("f", 32) if m.group("fsuffix") else None
            tokens.append(Token("float", lexeme, line, col, float(lexeme.rstrip("F")), dtype))
        elif kind == "int":
            value = int(m.group("digits"), 0)
            tokens.append(Token("int", lexeme, line, col, value, _INT_SUFFIX_TYPES.get(m.group("isuffix"))))
        elif kind == "string":
            tokens.append(Token("string", lexeme, line, col, lexeme[1:-1]))
        else:
            tokens.append(Token(kind, lexeme, line, col))
    tokens.append(Token("eof", "", line, pos - line_start + 1))
    return tokens


def _sized(m: re.Match, line: int, col: int) -> Token:
    bits = int(m.group("sbits"))
    if m.group("stype"):
        return Token("type", m.group(), line, col, DataType.from_cast(bits, m.group("stype")))
    number = m.group("snum")
    if "." in number:
        return Token("float", m.group(), line, col, float(number), DataType("f", bits))
    kind = {"U": "u", "I": "i"}.get(m.group("ssuffix"), "b")
    return Token("int", m.group(), line, col, int(number, 0), DataType(kind, bits))
