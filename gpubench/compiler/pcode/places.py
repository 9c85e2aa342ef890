"""Places: where an expression such as ``D0.u64[laneId]`` or ``MEM[ADDR + 4U].b32`` reads and writes.

A place has a type (its width is the type's) and reads/writes raw bits. Views and slices nest: a bit
of a view of a register is a BitsPlace over a BitsPlace over a RegPlace, and a write goes down the
chain as a read-modify-write of the register.
"""
from __future__ import annotations

from dataclasses import dataclass

from gpubench.compiler.pcode.dtypes import DataType
from gpubench.compiler.pcode.state import Memory, Reg
from gpubench.compiler.pcode.values import PcodeTypeError, Value, is_untyped_real


class Place:
    dtype: DataType

    def read(self) -> int:
        raise NotImplementedError

    def write(self, bits: int, min_width: int = 0) -> None:
        """Store ``bits``; ``min_width`` lets a fresh local grow to hold a slice written past its end."""
        raise NotImplementedError

    def value(self) -> Value:
        return Value(self.dtype, self.read())


@dataclass
class RegPlace(Place):
    reg: Reg

    @property
    def dtype(self) -> DataType:  # type: ignore[override]
        return self.reg.dtype

    def read(self) -> int:
        return self.reg.bits

    def write(self, bits: int, min_width: int = 0) -> None:
        self.reg.grow(min_width)
        self.reg.bits = bits & self.reg.dtype.mask


@dataclass
class BitsPlace(Place):
    """Bits ``lo .. lo+width-1`` of ``parent``; ``reversed`` for ``x[0 : 31]`` (bit 0 comes out on top)."""

    parent: Place
    lo: int
    dtype: DataType
    reversed: bool = False

    @property
    def mask(self) -> int:
        return self.dtype.mask

    def read(self) -> int:
        bits = self.parent.read()
        parent_type = self.parent.dtype
        if parent_type is not None and parent_type.is_signed and bits >> (parent_type.bits - 1):
            bits -= 1 << parent_type.bits  # a wider view of a signed value sign-extends it
        bits = (bits >> self.lo) & self.mask
        return _reverse(bits, self.dtype.bits) if self.reversed else bits

    def write(self, bits: int, min_width: int = 0) -> None:
        bits &= self.mask
        if self.reversed:
            bits = _reverse(bits, self.dtype.bits)
        merged = (self.parent.read() & ~(self.mask << self.lo)) | (bits << self.lo)
        self.parent.write(merged, self.lo + self.dtype.bits)


@dataclass
class CellPlace(Place):
    """``MEM[addr]`` (one cell) or ``MEM[addr].b64`` (as many cells as the view needs)."""

    memory: Memory
    addr: int
    dtype: DataType
    sized: bool  # False until a view gives the width; a write then takes the value's width

    def read(self) -> int:
        return self.memory.read(self.addr, self.dtype.bits)

    def write(self, bits: int, min_width: int = 0) -> None:
        self.memory.write(self.addr, self.dtype.bits, bits)

    def resized(self, dtype: DataType) -> CellPlace:
        return CellPlace(self.memory, self.addr, dtype, sized=True)


@dataclass
class ValuePlace(Place):
    """A computed value standing where a place may be (``1201'B(...)[1200 : 0]``, ``PI``): read-only."""

    held: Value

    @property
    def dtype(self) -> DataType | None:  # type: ignore[override]
        return self.held.dtype

    def read(self) -> int:
        if is_untyped_real(self.held):
            raise PcodeTypeError(f"the real number {self.held.data} has no bits to select")
        return self.held.data  # an untyped integer is its own infinite two's-complement pattern

    def write(self, bits: int, min_width: int = 0) -> None:
        raise TypeError("cannot assign to a computed value")

    def value(self) -> Value:
        return self.held


def _reverse(bits: int, width: int) -> int:
    return int(format(bits, f"0{width}b")[::-1], 2)
