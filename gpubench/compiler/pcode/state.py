"""What the pseudocode reads and writes: registers, locals, memories, records and arrays.

A register or local is a ``Reg``: a bit pattern and the type a bare read uses (its width is the
register's width). Operands are raw bits: ``S0.f32`` views the low 32 bits of S0 as a float.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from gpubench.compiler.pcode.dtypes import DataType


@dataclass
class Reg:
    bits: int
    dtype: DataType

    @staticmethod
    def of(bits: int, width: int) -> Reg:
        """A register of ``width`` raw bits (typed ``b<width>``)."""
        return Reg(bits & ((1 << width) - 1), DataType("b", width))

    def grow(self, width: int) -> None:
        """Widen to ``width`` bits: writing ``tmp[63 : 32]`` into a fresh ``tmp`` makes it 64 bits."""
        if width > self.dtype.bits:
            kind = self.dtype.kind if not self.dtype.is_float else "b"
            self.dtype = DataType(kind, width)


@dataclass
class Memory:
    """Cells of ``unit_bits`` each, addressed by integers: MEM/LDS (bytes), SGPR/VGPR rows (dwords).

    A wider access spans consecutive cells, least significant first: ``MEM[a].b32`` reads four bytes,
    ``SGPR[n].b64`` two registers.
    """

    unit_bits: int
    cells: dict[int, int] = field(default_factory=dict)

    def read(self, addr: int, width: int) -> int:
        value = 0
        for k in range(-(-width // self.unit_bits)):
            value |= self.cells.get(addr + k, 0) << (k * self.unit_bits)
        return value & ((1 << width) - 1)

    def write(self, addr: int, width: int, bits: int) -> None:
        units = -(-width // self.unit_bits)
        mask = (1 << width) - 1
        merged = (self.read(addr, units * self.unit_bits) & ~mask) | (bits & mask)  # keep a partial cell's rest
        for k in range(units):
            self.cells[addr + k] = (merged >> (k * self.unit_bits)) & ((1 << self.unit_bits) - 1)


@dataclass
class Array:
    """A declared array (``declare tmp : 32'B[64]``) or one the caller provides (``S`` in V_FMA_MIX)."""

    elements: list[Reg]

    @staticmethod
    def of(dtype: DataType, length: int) -> Array:
        return Array([Reg(0, dtype) for _ in range(length)])


@dataclass
class Record:
    """Named fields: ``WAVE_MODE.IEEE``, ``WAVE_STATUS.PRIV``, ``TADDR.X``."""

    fields: dict[str, Reg]
