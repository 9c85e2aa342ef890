"""Moving one lane's memory data to and from its VGPRs, as ops/lane_data.py does for the reference
engine: whole dwords; a byte or half zero- or sign-extended; a D16 load filling one 16-bit half and
keeping the other; a D16_HI store taking bits 31:16. Shared by the LDS and GLOBAL handlers."""
from __future__ import annotations

from collections.abc import Callable

from llvmlite import ir

from gpubench.emu.native.build import I32, I64, const
from gpubench.emu.ops.lane_data import DataAccess

INT = {1: ir.IntType(8), 2: ir.IntType(16), 4: I32, 8: I64}
Registers = Callable[[int], ir.Value]  # k -> a pointer to this lane's k-th data VGPR


def dwords(b: ir.IRBuilder, pointer: ir.Value, count: int) -> list[ir.Value]:
    return [b.load(b.gep(pointer, [const(4 * k)], source_etype=INT[1]), typ=I32, align=1) for k in range(count)]


def to_vgprs(b: ir.IRBuilder, registers: Registers, pointer: ir.Value, access: DataAccess) -> None:
    """The bytes at ``pointer`` into the lane's data VGPRs."""
    if access.size >= 4:
        for k, value in enumerate(dwords(b, pointer, access.dwords)):
            b.store(value, registers(k))
        return
    raw = b.load(pointer, typ=INT[access.size], align=1)
    value = b.sext(raw, I32) if access.signed else b.zext(raw, I32)
    target = registers(0)
    if access.half is not None:
        old = b.load(target, typ=I32)
        if access.half == "lo":
            value = b.or_(b.and_(old, const(0xFFFF0000, I32)), b.and_(value, const(0xFFFF, I32)))
        else:
            value = b.or_(b.and_(old, const(0xFFFF, I32)), b.shl(value, const(16, I32)))
    b.store(value, target)


def from_vgprs(b: ir.IRBuilder, registers: Registers, access: DataAccess) -> list[ir.Value]:
    """The values a store writes (integers, low bytes first) from the lane's data VGPRs."""
    values = [b.load(registers(k), typ=I32) for k in range(access.dwords)]
    if access.size >= 4:
        return values
    value = values[0]
    if access.half == "hi":
        value = b.lshr(value, const(16, I32))
    return [b.trunc(value, INT[access.size])]
