"""One target's view of the generated tables, with the indexes the decoder and assembler need.

`ISA.get("gfx1100")` is built once per process and shared: the tables are immutable.
"""
from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass

from gpubench.isa.model import Format, InstrDef
from gpubench.isa.targets import TARGETS, Target


class UnknownTarget(ValueError):
    pass


@dataclass(frozen=True)
class FormatMatcher:
    """The fixed bits of a base format's first dword, as a mask and value."""

    fmt: Format
    mask: int
    value: int


class ISA:
    def __init__(self, target: Target, wave_size: int):
        tables = importlib.import_module(f"gpubench.isa.{target.arch}")
        self.target = target
        self.wave_size = wave_size  # decides the text of wave-sized operands: vcc or vcc_lo
        self.arch: str = target.arch
        self.formats: dict[str, Format] = tables.FORMATS
        self.enums = tables.ENUMS
        self.pseudocode: dict[tuple[str, str], str] = tables.PSEUDOCODE
        self.instructions: tuple[InstrDef, ...] = tuple(
            i for i in tables.INSTRUCTIONS if i.name not in target.missing)
        self.by_opcode: dict[tuple[str, int], InstrDef] = {(i.enum, i.opcode): i for i in self.instructions}
        self.variants: dict[str, tuple[Format, ...]] = {
            base: tuple(f for f in self.formats.values() if f.parent and self.root_of(f) == base)
            for base in self.formats if not self.formats[base].parent}
        self.matchers = self._matchers()

    @staticmethod
    @functools.cache
    def get(target: str, wave_size: int | None = None) -> "ISA":
        if target not in TARGETS:
            raise UnknownTarget(f"unknown target '{target}'; known: {', '.join(TARGETS)}")
        sizes = TARGETS[target].wave_sizes
        if wave_size is not None and wave_size not in sizes:
            raise UnknownTarget(f"{target} does not run wave{wave_size}; it runs {sizes}")
        return ISA(TARGETS[target], wave_size or sizes[0])

    def root_of(self, fmt: Format) -> str:
        while fmt.parent:
            fmt = self.formats[fmt.parent]
        return fmt.name

    def _matchers(self) -> tuple[FormatMatcher, ...]:
        """Base formats keyed by their fixed first-dword bits, most specific first.

        Order matters: SOP1's 9 fixed bits (0b101111101) begin with SOPK's 4 (0b1011).
        """
        result = []
        for fmt in self.formats.values():
            if fmt.parent:
                continue
            fixed = [f for f in fmt.fixed_fields if f.hi < 32]
            if not fixed:
                continue
            mask = value = 0
            for f in fixed:
                mask |= f.mask << f.lo
                value |= f.value << f.lo
            result.append(FormatMatcher(fmt, mask, value))
        return tuple(sorted(result, key=lambda m: -bin(m.mask).count("1")))

    def instr(self, fmt: Format, opcode_field: str, word: int) -> InstrDef | None:
        """The instruction that ``fmt``'s opcode field selects in ``word``, if the format allows it."""
        fld = fmt.field(opcode_field)
        idef = self.by_opcode.get((fld.enum, fld.get(word)))
        if idef is None or idef.name not in fmt.allowed:
            return None
        return idef

    def pseudocode_of(self, idef: InstrDef) -> str | None:
        return self.pseudocode.get((idef.enum, idef.name))
