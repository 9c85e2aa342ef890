"""Compile-time names and places: what a pseudocode name is bound to while the generated code is built.

A ``Var`` is a register or local: a static type and its current value (a constant or the name of a
numpy array in the generated code). Places mirror the evaluator's ``places.py`` so that reads and
writes through views, slices and bits have the same meaning: a write through ``D0[31 : 16].f16`` is
a read-modify-write of D0's bits, done on whole arrays.
"""
from __future__ import annotations

from dataclasses import dataclass

from gpubench.compiler.backend.operands import Operand
from gpubench.compiler.pcode import ir
from gpubench.compiler.pcode.dtypes import DataType
from gpubench.compiler.pcode.evaluator import Scope  # name scoping is the evaluator's


@dataclass
class Var:
    name: str
    dtype: DataType | None  # None: an untyped value bound to a lambda parameter
    value: Operand
    port: object | None = None  # the wave-state port this register is (ports.PortUse), if any
    growable: bool = True  # locals grow when written past their end; ports have a fixed width
    birth: tuple = ()  # for a local first assigned inside if branches: which ones (its type's origin)
    unwritten: bool = False  # an output port that is not an input, before its first write: no value yet


@dataclass
class ArrayVar:
    """``declare tmp : 32'B[64]``: one Var per element."""

    dtype: DataType
    elements: list[Var]


@dataclass
class Closure:
    params: tuple[str, ...]
    body: ir.Expr | ir.Block
    scope: Scope


@dataclass
class SourceArray:
    """``S[i]`` in V_FMA_MIX: the sources S0..S2 indexed by a (constant) loop variable."""

    names: tuple[str, ...]




@dataclass
class VarPlace:
    var: Var

    @property
    def dtype(self) -> DataType:
        return self.var.dtype


@dataclass
class BitsPlace:
    """Bits ``lo .. lo+width-1`` of ``parent`` (lo: an int or a run-time Operand)."""

    parent: object
    lo: int | Operand
    dtype: DataType
    reversed: bool = False


@dataclass
class ElementPlace:
    """An element of a declared array chosen by a run-time index."""

    array: ArrayVar
    index: Operand

    @property
    def dtype(self) -> DataType:
        return self.array.dtype


@dataclass
class LaneBitPlace:
    """``VCC.u64[laneId]``: this lane's bit of a wave mask, which the emulator passes per element."""

    var: Var

    @property
    def dtype(self) -> DataType:
        return DataType("u", 1)


@dataclass
class ValuePlace:
    """A computed value where a place may stand (``(a + b)[3 : 0]``, ``PI``): read-only."""

    value: Operand

    @property
    def dtype(self) -> DataType | None:
        return self.value.dtype


Place = VarPlace | BitsPlace | ElementPlace | LaneBitPlace | ValuePlace
