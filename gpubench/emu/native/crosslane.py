"""Native handlers for the moves between one lane of a VGPR and an SGPR: v_readlane_b32,
v_readfirstlane_b32 and v_writelane_b32 (VOP1/VOP3 forms), as ops/crosslane.py does them.

The lane select is an SGPR (M0 among them) or a constant, taken modulo the wave size; v_writelane
writes its lane whatever EXEC says; v_readfirstlane reads the lowest lane EXEC enables, lane 0 when
EXEC is zero. Operands the reference reads from wave state (SCC, VCCZ, EXECZ), a VGPR past the wave's
allocation and the DPP/SDWA forms are left to the reference engine.
"""
from __future__ import annotations

from llvmlite import ir

from gpubench.emu.context import Context
from gpubench.emu.native.alu import (Bound, Operands, Source, lane_mask, new_handler, read_register, scalar_source,
                                     vgpr_operand)
from gpubench.emu.native.build import I1, I32, I64, PTR, Code, const, element, word
from gpubench.emu.native.layout import Frame, Status
from gpubench.emu.ops import Unsupported
from gpubench.emu.ops import operands as opnd
from gpubench.emu.waves import EXEC_LO
from gpubench.isa.decoder import Instruction

MOVES = {"V_READLANE_B32": "read", "V_READFIRSTLANE_B32": "first", "V_WRITELANE_B32": "write"}


def bind_crosslane(inst: Instruction, ctx: Context) -> Bound | None:
    move = MOVES.get(inst.name.removesuffix("_E32").removesuffix("_E64"))
    if move is None:
        return None
    literal, words = inst.get("literal"), Operands()
    try:
        if move == "write":
            value = scalar_source(ctx, inst["src0"], 32, None, literal, words)
            vgpr = vgpr_operand(ctx, inst["vdst"], 32, words)
        else:
            if inst["src0"] < opnd.VGPR_BASE:
                return None  # the reference engine reports it
            value = Source("vgpr", operand=vgpr_operand(ctx, inst["src0"] - opnd.VGPR_BASE, 32, words))
            vgpr = value.operand
        select = scalar_source(ctx, inst["src1"], 32, None, literal, words) if move != "first" else None
    except Unsupported:
        return None
    sdst = None if move == "write" or opnd.is_null(ctx, inst["vdst"]) else words.add(inst["vdst"])
    wave_size = ctx.waves.wave_size
    key = (f"crosslane {move} wave{wave_size} value={value.kind} select={select.kind if select else None} "
           f"sgpr={sdst is not None}")

    def define(module: ir.Module, symbol: str) -> None:
        _define(module, symbol, move, value, vgpr, select, sdst, wave_size)

    return Bound(Code(key, define), tuple(words.words))


def _scalar(b, frame, record, source: Source) -> ir.Value:
    """An SGPR's value or a constant's bits (i32)."""
    if source.kind == "const":
        return Operands.read(b, record, source.operand, I32)
    return read_register(b, frame, record, source, None, 0)


def _define(module, symbol, move: str, value: Source, vgpr: int, select: Source | None, sdst: int | None,
            wave_size: int) -> None:
    fn, b = new_handler(module, symbol)
    frame, record = fn.args
    if select is None:  # the lowest lane EXEC enables, 0 when none is
        exec_mask = lane_mask(b, frame, const(EXEC_LO), wave_size)
        lowest = b.cttz(exec_mask, const(0, I1))
        lane = b.select(b.icmp_unsigned("==", exec_mask, const(0)), const(0), lowest)
    else:
        lane = b.zext(b.and_(_scalar(b, frame, record, select), const(wave_size - 1, I32)), I64)
    index = b.add(b.mul(Operands.read(b, record, vgpr), const(wave_size)), lane)
    pointer = element(b, word(b, frame, Frame.VGPR, PTR), index, I32)
    if move == "write":
        b.store(_scalar(b, frame, record, value), pointer)
    elif sdst is not None:
        sgpr = word(b, frame, Frame.SGPR, PTR)
        b.store(b.load(pointer, typ=I32), element(b, sgpr, Operands.read(b, record, sdst), I32))
    b.ret(const(int(Status.NEXT), I32))
