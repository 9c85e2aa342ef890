"""The data types of AMD's pseudocode: typed views (``.u32``), sized literals (``16'0.5``) and casts (``64'U``).

A type is a kind and a width. Integer kinds: ``u`` (unsigned), ``i`` (signed, two's complement) and ``b``
(raw bits; behaves as unsigned in arithmetic). Float kinds: ``f`` (IEEE half/single/double), ``bf``
(bfloat16 and the 8/6-bit "bf" minifloats) and ``fp`` (the 8/6/4-bit "fp" minifloats).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

INT_KINDS = frozenset({"u", "i", "b"})
FLOAT_KINDS = frozenset({"f", "bf", "fp"})

# A view suffix such as ``u32``, ``bf16`` or ``fp8``. ``u`` alone (without bits) is prose, not a type.
_TYPE_NAME = re.compile(r"(bf|fp|u|i|b|f)([0-9]+)")

# The letter of a sized cast or declaration (``32'U``, ``16'BF``) and the kind it means.
CAST_LETTERS = {"U": "u", "I": "i", "B": "b", "F": "f", "BF": "bf"}


@dataclass(frozen=True)
class DataType:
    kind: str
    bits: int

    def __post_init__(self) -> None:
        if self.kind not in INT_KINDS | FLOAT_KINDS or self.bits <= 0:
            raise ValueError(f"not a pseudocode type: {self.kind}{self.bits}")

    @property
    def is_float(self) -> bool:
        return self.kind in FLOAT_KINDS

    @property
    def is_signed(self) -> bool:
        return self.kind == "i"

    @property
    def mask(self) -> int:
        return (1 << self.bits) - 1

    def __str__(self) -> str:
        return f"{self.kind}{self.bits}"

    @staticmethod
    def from_name(name: str) -> DataType | None:
        """``"u32"`` -> u32; None when ``name`` is not a type (a field name such as ``PRIV``)."""
        m = _TYPE_NAME.fullmatch(name)
        return DataType(m.group(1), int(m.group(2))) if m else None

    @staticmethod
    def from_cast(bits: int, letter: str) -> DataType:
        """``32'U`` -> u32, ``16'BF`` -> bf16. ``N'F`` picks the IEEE format of width N."""
        return DataType(CAST_LETTERS[letter], bits)


U1 = DataType("u", 1)
U32 = DataType("u", 32)
I32 = DataType("i", 32)
U64 = DataType("u", 64)
I64 = DataType("i", 64)
F16 = DataType("f", 16)
F32 = DataType("f", 32)
F64 = DataType("f", 64)
BF16 = DataType("bf", 16)
