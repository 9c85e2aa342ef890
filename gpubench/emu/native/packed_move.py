"""Native handlers for CDNA's v_pk_mov_b32, as ops/packed_move.py does it: the result's low dword is
the dword op_sel[0] picks from src0 (a VGPR or SGPR pair, or a constant), its high dword the one op_sel[1]
picks from src1, in the lanes EXEC enables.
"""
from __future__ import annotations

from llvmlite import ir

from gpubench.emu.context import Context
from gpubench.emu.native.alu import (Bound, Operands, Output, Source, lane_mask, new_handler, read_register,
                                     scalar_source, vgpr_operand, write_vgpr)
from gpubench.emu.native.build import I1, I32, I64, Code, const, counted_loop
from gpubench.emu.native.layout import Status
from gpubench.emu.ops import Unsupported
from gpubench.emu.ops import operands as opnd
from gpubench.emu.waves import EXEC_LO
from gpubench.isa.decoder import Instruction


def bind_packed_move(inst: Instruction, ctx: Context) -> Bound | None:
    if inst.name != "V_PK_MOV_B32":
        return None
    words = Operands()
    try:
        sources = tuple(Source("vgpr", 64, operand=vgpr_operand(ctx, value - opnd.VGPR_BASE, 64, words))
                        if value >= opnd.VGPR_BASE else
                        scalar_source(ctx, value, 64, inst.idef.operand(f"src{i}").fmt, inst.get("literal"), words)
                        for i, value in enumerate(inst[f"src{i}"] for i in range(2)))
        out = Output("vgpr", 64, operand=vgpr_operand(ctx, inst["vdst"], 64, words))
    except Unsupported:
        return None
    highs = tuple(bool(inst["opsel"] >> i & 1) for i in range(2))
    wave_size = ctx.waves.wave_size
    key = f"pk_mov wave{wave_size} in={sources} highs={highs} out={out}"

    def define(module: ir.Module, symbol: str) -> None:
        _define(module, symbol, sources, highs, out, wave_size)

    return Bound(Code(key, define), tuple(words.words))


def _define(module, symbol, sources: tuple[Source, ...], highs: tuple[bool, ...], out: Output, wave_size: int) -> None:
    fn, b = new_handler(module, symbol)
    frame, record = fn.args
    exec_mask = lane_mask(b, frame, const(EXEC_LO), wave_size)

    def dword(b, source: Source, lane, high: bool) -> ir.Value:
        pair = Operands.read(b, record, source.operand) if source.kind == "const" else \
            read_register(b, frame, record, source, lane, wave_size)
        return b.trunc(b.lshr(pair, const(32)) if high else pair, I32)

    def lane_step(b, lane, carried):
        low, high = (dword(b, source, lane, picks) for source, picks in zip(sources, highs, strict=True))
        value = b.or_(b.zext(low, I64), b.shl(b.zext(high, I64), const(32)))
        write_vgpr(b, frame, record, out, lane, b.trunc(b.lshr(exec_mask, lane), I1), value, wave_size)
        return []

    counted_loop(b, wave_size, [], lane_step)
    b.ret(const(int(Status.NEXT), I32))
