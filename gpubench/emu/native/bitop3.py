"""Native handlers for gfx950's v_bitop3_b32/b16, as ops/bitop3.py does them: bit i of the 8-entry
truth table {OMOD, ABS, NEG} is the result bit where (S0, S1, S2) hold the bits of i; the b16 form
reads the halves op_sel bits 0-2 pick and writes the half bit 3 names, in the lanes EXEC enables. The
table is a record word, so one handler serves every table.
"""
from __future__ import annotations

from llvmlite import ir

from gpubench.emu.context import Context
from gpubench.emu.native.alu import (Bound, Operands, Output, Source, lane_mask, new_handler, read_register,
                                     scalar_source, vgpr_operand, write_vgpr)
from gpubench.emu.native.build import I1, I32, Code, const, counted_loop
from gpubench.emu.native.layout import Status
from gpubench.emu.ops import Unsupported
from gpubench.emu.ops import operands as opnd
from gpubench.emu.waves import EXEC_LO
from gpubench.isa.decoder import Instruction


def bind_bitop3(inst: Instruction, ctx: Context) -> Bound | None:
    if inst.name not in ("V_BITOP3_B32", "V_BITOP3_B16"):
        return None
    words = Operands()
    table = words.add(inst["omod"] << 6 | inst["abs"] << 3 | inst["neg"])
    try:
        sources = tuple(Source("vgpr", operand=vgpr_operand(ctx, value - opnd.VGPR_BASE, 32, words))
                        if value >= opnd.VGPR_BASE else scalar_source(ctx, value, 32, None, inst.get("literal"), words)
                        for value in (inst[f"src{i}"] for i in range(3)))
        half = inst.name.endswith("B16")
        opsel = inst.get("opsel", 0) if half else 0
        out = Output("vgpr", 16 if half else 32, bool(opsel >> 3 & 1), vgpr_operand(ctx, inst["vdst"], 32, words))
    except Unsupported:
        return None
    highs = tuple(bool(opsel >> i & 1) for i in range(3))
    wave_size = ctx.waves.wave_size
    key = f"bitop3 wave{wave_size} in={sources} highs={highs} out={out}"

    def define(module: ir.Module, symbol: str) -> None:
        _define(module, symbol, table, sources, highs, out, wave_size)

    return Bound(Code(key, define), tuple(words.words))


def _define(module, symbol, table: int, sources: tuple[Source, ...], highs: tuple[bool, ...], out: Output,
            wave_size: int) -> None:
    fn, b = new_handler(module, symbol)
    frame, record = fn.args
    exec_mask = lane_mask(b, frame, const(EXEC_LO), wave_size)
    bits = Operands.read(b, record, table, I32)
    # each row of the table as a mask: all ones where its bit is set, else 0
    rows = [b.sub(const(0, I32), b.and_(b.lshr(bits, const(row, I32)), const(1, I32))) for row in range(8)]

    def value(b, source: Source, lane, high: bool) -> ir.Value:
        word = Operands.read(b, record, source.operand, I32) if source.kind == "const" else \
            read_register(b, frame, record, source, lane, wave_size)
        return b.lshr(word, const(16, I32)) if high else word

    def lane_step(b, lane, carried):
        s0, s1, s2 = (value(b, source, lane, high) for source, high in zip(sources, highs, strict=True))
        result = const(0, I32)
        for row, selected in enumerate(rows):
            term = b.and_(b.and_(s0 if row & 4 else b.not_(s0), s1 if row & 2 else b.not_(s1)),
                          s2 if row & 1 else b.not_(s2))
            result = b.or_(result, b.and_(term, selected))
        active = b.trunc(b.lshr(exec_mask, lane), I1)
        write_vgpr(b, frame, record, out, lane, active, result, wave_size)
        return []

    counted_loop(b, wave_size, [], lane_step)
    b.ret(const(int(Status.NEXT), I32))
