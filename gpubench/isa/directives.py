"""Assembler directives a hand-written kernel needs: alignment, data, and the symbol directives
that only matter to a linker (accepted and echoed, with no bytes).

Alignment in code pads with `s_nop 0`, as LLVM does, so that padding decodes as instructions.
"""
from __future__ import annotations

from gpubench.isa.syntax.statement import AsmError

S_NOP_0 = (0xBF800000).to_bytes(4, "little")
DATA_SIZES = {".byte": 1, ".short": 2, ".hword": 2, ".2byte": 2, ".long": 4, ".int": 4, ".4byte": 4,
              ".quad": 8, ".8byte": 8}
SYMBOL_ONLY = {".text", ".globl", ".global", ".type", ".size", ".section", ".amdgcn_target",
               ".amdhsa_code_object_version", ".weak", ".local", ".protected", ".hidden", ".file",
               ".ident", ".end_amdgcn_target"}


def padding(pc: int, alignment: int) -> bytes:
    """s_nop 0 words (then zero bytes for a partial word) up to the next multiple of alignment."""
    count = -pc % alignment
    return S_NOP_0 * (count // 4) + b"\0" * (count % 4)


def directive_bytes(name: str, args: list[str], pc: int, column: int) -> bytes:
    """The bytes a directive emits at ``pc``; raises AsmError for an unknown one."""
    if name in SYMBOL_ONLY:
        return b""
    if name in (".p2align", ".balign", ".align"):
        value = _int(args[0] if args else "", column)
        return padding(pc, 1 << value if name == ".p2align" else value)
    if name in DATA_SIZES:
        size = DATA_SIZES[name]
        out = b""
        for arg in args:
            value = _int(arg, column)
            if not -(1 << (8 * size - 1)) <= value < (1 << (8 * size)):
                raise AsmError(f"out of range literal value in '{name}' directive", column)
            out += (value & ((1 << (8 * size)) - 1)).to_bytes(size, "little")
        return out
    raise AsmError(f"unknown directive '{name}'", column)


def _int(text: str, column: int) -> int:
    try:
        return int(text.strip(), 0)
    except ValueError:
        raise AsmError(f"expected an integer, got '{text.strip()}'", column) from None
