"""Instructions -> LLVM's text, and the `llvm-mc --disassemble` input format (hex bytes per line)."""
from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from gpubench.isa import syntax
from gpubench.isa.arch import ISA
from gpubench.isa.decoder import DecodeError, Instruction, decode


def disassemble(inst: Instruction) -> str:
    """LLVM's text for one instruction, e.g. ``v_add_f32_e32 v0, v1, v2``."""
    return syntax.syntax_for(inst.isa, inst.fmt).render(inst)


def disassemble_at(isa: ISA, data: bytes, offset: int = 0) -> tuple[Instruction, str]:
    """Decode and print the instruction at ``offset``.

    An encoding whose fields the format allows but whose operands name nothing LLVM would accept
    (an SGPR where only VGPRs may stand, a reserved register) is invalid too: a DecodeError.
    """
    inst = decode(isa, data, offset)
    try:
        return inst, disassemble(inst)
    except (ValueError, LookupError) as e:
        raise DecodeError(offset, inst.bytes, f"{inst.name} ({inst.fmt.name}): {e}") from None


_BYTE = re.compile(r"0x[0-9a-fA-F]{1,2}|[0-9]+")


@dataclass(frozen=True)
class HexLine:
    number: int  # 1-based
    columns: list[int]  # 1-based column of each byte
    data: bytes


def parse_hex_lines(text: str) -> Iterator[HexLine]:
    """Bytes as llvm-mc's disassembler reads them: `0x01,0x05 0x00` per line; `#` and `;` start comments."""
    for number, line in enumerate(text.splitlines(), 1):
        code = re.split(r"[#;]", line, maxsplit=1)[0]
        matches = list(_BYTE.finditer(code))
        if matches:
            yield HexLine(number, [m.start() + 1 for m in matches], bytes(int(m.group(), 0) for m in matches))


@dataclass(frozen=True)
class Disassembled:
    line: HexLine
    offset: int
    inst: Instruction | None
    text: str | None  # None: invalid encoding
    error: DecodeError | None = None


def disassemble_hex(isa: ISA, text: str) -> Iterator[Disassembled]:
    """Decode each line's bytes like llvm-mc: an invalid encoding is reported and 4 bytes skipped."""
    for line in parse_hex_lines(text):
        offset = 0
        while offset < len(line.data):
            try:
                inst, text = disassemble_at(isa, line.data, offset)
            except DecodeError as e:
                yield Disassembled(line, offset, None, None, e)
                offset += 4
                continue
            yield Disassembled(line, offset, inst, text)
            offset += inst.size
