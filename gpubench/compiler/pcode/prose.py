"""Telling the manual's prose apart from its pseudocode.

About 3% of the entries are not code: English sentences, assembly listings, tables, matrix formulas
(``D = A (16x16) * B (16x16) + C (16x16)``). Each rule below names one way prose shows itself, by a
mark that pseudocode never has. An entry is prose when any rule matches; then it is not parsed.
The rules look at the text only (never at whether parsing fails), and the tests check the converse:
every entry a rule marks is also rejected by the grammar, so a rule cannot hide code.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from gpubench.compiler.pcode import ir
from gpubench.compiler.pcode.parser import parse

# Words that may stand next to a name in code (``if x``, ``for i in``, ``x then``, ``return x``).
_KEYWORDS = frozenset(
    {"if", "then", "elsif", "else", "endif", "for", "in", "do", "endfor", "while", "endwhile", "declare", "break",
     "continue", "return", "lambda"}
)


@dataclass(frozen=True)
class ProseRule:
    name: str
    why: str
    matches: Callable[[str], bool]


def _code_part(text: str) -> str:
    """The text without comments and quoted notes, whose punctuation is free English."""
    return re.sub(r'//[^\n]*|"[^"\n]*"', "", text)


def _sentence_punctuation(text: str) -> bool:
    # In code a '.' always joins a value and a view/field (S0.u32) or sits inside a number (1.0).
    return re.search(r"\.(?![A-Za-z0-9_])", _code_part(text)) is not None


def _matrix_shape(text: str) -> bool:
    # A number glued to 'x' and a number is a matrix shape (16x16); a hex literal starts with 0x.
    return re.search(r"\b[1-9][0-9]*x[0-9]+\b", text) is not None


def _assembly_listing(text: str) -> bool:
    # An instruction mnemonic followed by its operands: `s_sleep 1`, `v_mov_b32 v3, v0`.
    return re.search(r"^\s*[sv]_[a-z0-9_]+[ \t]+[^\s=(]", _code_part(text), re.MULTILINE) is not None


def _wait_relation(text: str) -> bool:
    # `vmcnt <= WaitVMCNT`: the manual's "wait until the counter is at most N", a whole line.
    return re.search(r"^\s*[A-Za-z_]\w*\s*<=[^=\n]*$", _code_part(text), re.MULTILINE) is not None


def _adjacent_words(text: str) -> bool:
    # Two names side by side ("valid mask", "Increment stack_index"); code puts an operator between.
    for m in re.finditer(r"\b([A-Za-z_]\w*)[ \t]+(?=([A-Za-z_]\w*)\b)", _code_part(text)):
        if m.group(1) not in _KEYWORDS and m.group(2) not in _KEYWORDS:
            return True
    return False


def _c_block_braces(text: str) -> bool:
    # `if (x) {` ... `}`: C blocks. The pseudocode closes blocks with endif/endfor; its braces concatenate.
    return re.search(r"\{[ \t]*$", _code_part(text), re.MULTILINE) is not None


RULES: tuple[ProseRule, ...] = (
    ProseRule("sentence punctuation", "a '.' that ends a sentence, not one that starts a view", _sentence_punctuation),
    ProseRule("matrix shape", "WMMA/MFMA formulas written with shapes like (16x16)", _matrix_shape),
    ProseRule("assembly listing", "example instructions with operands, not pseudocode", _assembly_listing),
    ProseRule("wait relation", "'counter <= N' lines describing what S_WAITCNT waits for", _wait_relation),
    ProseRule("adjacent words", "two names with no operator between them: English", _adjacent_words),
    ProseRule("C block braces", "C-style '{' blocks instead of then/endif", _c_block_braces),
)


def prose_reasons(text: str) -> tuple[str, ...]:
    """The names of the rules that mark ``text`` as prose; empty for pseudocode."""
    return tuple(rule.name for rule in RULES if rule.matches(text))


@dataclass(frozen=True)
class Prose:
    """An entry whose text is prose: kept verbatim with the rules that marked it."""

    text: str
    reasons: tuple[str, ...]


def read_pseudocode(text: str) -> ir.Program | Prose:
    """An entry of the manual: prose when a rule marks it, else parsed (a syntax error is a bug)."""
    reasons = prose_reasons(text)
    return Prose(text, reasons) if reasons else parse(text)
