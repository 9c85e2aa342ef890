"""Plain data types that the generated ISA tables are made of.

The generated modules under ``gpubench/isa/<arch>/`` build instances of these; everything else
(decoder, encoder, syntax) reads them. Keeping them free of behaviour keeps the tables pure data.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property


@dataclass(frozen=True)
class Field:
    """A bit field of an encoding. ``kind`` is the spec's field kind (SrcField, VGPRField, ...)."""

    name: str
    hi: int
    lo: int
    kind: str
    value: int | None = None  # FixedBitField: the constant bits
    enum: str | None = None  # EnumBitField: the opcode enum it selects from

    @property
    def width(self) -> int:
        return self.hi - self.lo + 1

    @cached_property
    def mask(self) -> int:
        return (1 << self.width) - 1

    def get(self, word: int) -> int:
        return (word >> self.lo) & self.mask

    def put(self, word: int, value: int) -> int:
        return (word & ~(self.mask << self.lo)) | ((value & self.mask) << self.lo)


@dataclass(frozen=True)
class Format:
    """One encoding. A variant (``parent`` set) adds words to its parent: DPP, literal, SDWA ..."""

    name: str
    parent: str | None
    size: int  # bytes, without a trailing literal
    fields: tuple[Field, ...]
    allowed: frozenset[str] = field(default_factory=frozenset)  # opcode names legal here

    def field(self, name: str) -> Field | None:
        return self._by_name.get(name)

    @cached_property
    def _by_name(self) -> dict[str, Field]:  # the first field of a name wins
        return {f.name: f for f in reversed(self.fields)}

    @cached_property
    def opcode_fields(self) -> tuple[Field, ...]:
        return tuple(f for f in self.fields if f.kind == "EnumBitField")

    @cached_property
    def fixed_fields(self) -> tuple[Field, ...]:
        return tuple(f for f in self.fields if f.kind == "FixedBitField")

    @property
    def root(self) -> str:
        """The base encoding's name: VOP3 for VOP3_DPP16, VOP1 for VOP1_SDST_LIT."""
        return self.name.split("_")[0] if self.parent else self.name


@dataclass(frozen=True)
class Operand:
    """An instruction operand as the spec types it: ``bits`` wide, read as ``fmt``, of kind ``type``."""

    field: str
    fmt: str
    bits: int
    type: str


@dataclass(frozen=True)
class InstrDef:
    """One opcode of one opcode enum, with its operands and (when the manual has one) pseudocode."""

    name: str
    enum: str
    opcode: int
    operands: tuple[Operand, ...]

    def operand(self, field_name: str) -> Operand | None:
        return self._by_field.get(field_name)

    @cached_property
    def _by_field(self) -> dict[str, Operand]:  # the first operand of a field wins
        return {o.field: o for o in reversed(self.operands)}
