"""Native handlers for the dense float matrix instructions: WMMA (gfx11, gfx12) and MFMA (gfx942,
gfx950) with f16, bf16, f32 or f64 A and B and an f32 or f64 C/D (the reference: ops/matrix.py).

One handler per layout: the element placements of A, B and C/D (VGPR offset, lane, bit offset, as
ops/matrix.py works them out) are constant tables in the module; the VGPR bases of A, B, C and D and an
inline C are the record's operand words. The handler reads every element of A, B and C into float64
arrays first (so a D overlapping them reads their old values, as the reference gathers before it
scatters), then per D element sums the products in K order and adds C, exactly the reference's
`summed_products` (separate multiplies and adds, none fused), and rounds once to D's type.

Left to the reference engine: a wave whose EXEC has lanes off (the reference reports it), a MODE other
than the default float mode (denormal flushing, directed rounding), 16-bit and integer results, fp8
inputs, the sparse forms, and registers past the allocation.
"""
from __future__ import annotations

import hashlib
import struct

import numpy as np
from llvmlite import ir

from gpubench.emu.context import Context
from gpubench.emu.native.alu import Bound, Operands, lane_mask, mode_check, new_handler
from gpubench.emu.native.build import I32, I64, PTR, Code, const, counted_loop, element, word
from gpubench.emu.native.layout import Frame, Status
from gpubench.emu.ops import Unsupported
from gpubench.emu.ops import matrix as reference
from gpubench.emu.waves import EXEC_LO
from gpubench.isa.decoder import Instruction

F64 = ir.DoubleType()
INPUTS = ("F16", "BF16", "F32", "F64")
RESULTS = ("F32", "F64")


def bind_matrix(inst: Instruction, ctx: Context) -> Bound | None:
    try:
        op = reference.matrix_op(inst)
        a_base, b_base, d_base, c_base, _ = reference.matrix_operands(inst, op.sparse is not None)
    except (Unsupported, ValueError):
        return None  # the reference engine reports it
    if op.sparse is not None or op.a_kind not in INPUTS or op.b_kind not in INPUTS or op.out not in RESULTS:
        return None
    c_inline = None if c_base is not None else reference.inline_accumulator(inst["src2"], op.out)
    if c_base is None and c_inline is None:
        return None
    vgprs = ctx.waves.vgpr.shape[1]
    for base, where, kind in ((a_base, op.a_where, op.a_kind), (b_base, op.b_where, op.b_kind),
                              (d_base, op.cd_where, op.out), (c_base, op.cd_where, op.out)):
        if base is not None and base + int(where.reg.max()) + (2 if kind == "F64" else 1) > vgprs:
            return None
    layout = _Layout(op, inst.isa.wave_size)
    words = Operands()
    for base in (a_base, b_base, d_base, -1 if c_base is None else c_base):
        words.add(base)
    c_value = 0.0 if c_inline is None else float(reference.decode(np.array([c_inline], np.uint64), op.out)[0])
    words.add(struct.unpack("<Q", struct.pack("<d", c_value))[0])
    return Bound(Code(layout.key, layout.define), tuple(words.words))


class _Layout:
    """One matrix instruction variant: its kinds, modifiers, shapes and element tables."""

    def __init__(self, op: reference.MatrixOp, wave_size: int):
        self.op, self.wave_size = op, wave_size
        self.blocks, self.m, self.k = op.a_where.reg.shape
        self.n = op.b_where.reg.shape[1]
        self.tables = {name: np.stack([where.reg.ravel(), where.lane.ravel(), where.shift.ravel()]).astype(np.int32)
                       for name, where in (("a", op.a_where), ("b", op.b_where), ("cd", op.cd_where))}
        # NEG / NEG_HI on A or B: each element times +-1.0, as the reference does
        self.signs = {name: reference.half_signs(where, negate).ravel() for name, where, negate in
                      (("a", op.a_where, op.negate_a), ("b", op.b_where, op.negate_b)) if any(negate)}
        digest = hashlib.sha256()
        for array in (*self.tables.values(), *self.signs.values()):
            digest.update(array.tobytes())
        self.key = (f"matrix v1 {op.a_kind}x{op.b_kind}->{op.out} wave{wave_size} {self.blocks}x{self.m}x{self.n}"
                    f"x{self.k} neg_c={op.negate_c} abs_c={op.abs_c} signs={sorted(self.signs)} "
                    f"{digest.hexdigest()[:24]}")

    def define(self, module: ir.Module, name: str) -> None:
        fn, b = new_handler(module, name)
        frame, record = fn.args
        op = self.op
        a = b.bitcast(b.alloca(F64, size=self.blocks * self.m * self.k), PTR)
        bt = b.bitcast(b.alloca(F64, size=self.blocks * self.n * self.k), PTR)
        c = b.bitcast(b.alloca(F64, size=self.blocks * self.m * self.n), PTR)
        mode_check(b, frame)
        every_lane = (1 << self.wave_size) - 1
        with b.if_then(b.icmp_unsigned("!=", lane_mask(b, frame, const(EXEC_LO), self.wave_size), const(every_lane))):
            b.ret(const(int(Status.REFERENCE), I32))
        vgpr = word(b, frame, Frame.VGPR, PTR)
        tables = {name: _constant(module, f"{name}_places", I32, values.ravel())
                  for name, values in self.tables.items()}
        signs = {name: _constant(module, f"{name}_signs", F64, values) for name, values in self.signs.items()}
        for name, kind, into, operand in (("a", op.a_kind, a, 0), ("b", op.b_kind, bt, 1)):
            self._gather(b, vgpr, Operands.read(b, record, operand), tables[name], signs.get(name), kind, into)
        c_base = Operands.read(b, record, 3)
        inline = b.bitcast(Operands.read(b, record, 4), F64)
        with b.if_else(b.icmp_signed("<", c_base, const(0))) as (constant, registers):
            with constant:
                def fill(b, e, _):
                    b.store(inline, element(b, c, e, F64))
                    return []
                counted_loop(b, self.blocks * self.m * self.n, [], fill)
            with registers:
                self._gather(b, vgpr, c_base, tables["cd"], None, op.out, c)
        if op.abs_c or op.negate_c:
            self._modify_c(module, b, c)
        self._products(b, vgpr, Operands.read(b, record, 2), tables["cd"], a, bt, c)
        b.ret(const(int(Status.NEXT), I32))

    def _placed(self, b: ir.IRBuilder, table: ir.GlobalVariable, count: int, base: ir.Value, e: ir.Value):
        """(VGPR element index of element e's low dword, its bit offset)."""
        def field(row: int) -> ir.Value:
            at = b.gep(table, [const(0), b.add(e, const(row * count))], inbounds=True)
            return b.sext(b.load(at, typ=I32), I64)
        reg, lane, shift = field(0), field(1), field(2)
        return b.add(b.mul(b.add(base, reg), const(self.wave_size)), lane), shift

    def _gather(self, b, vgpr, base, table, sign_table, kind: str, into: ir.Value) -> None:
        count = table.type.pointee.count // 3

        def body(b, e, _):
            index, shift = self._placed(b, table, count, base, e)
            low = b.load(element(b, vgpr, index, I32), typ=I32)
            if kind == "F64":
                high = b.load(element(b, vgpr, b.add(index, const(self.wave_size)), I32), typ=I32)
                value = b.bitcast(b.or_(b.zext(low, I64), b.shl(b.zext(high, I64), const(32))), F64)
            else:
                value = _decode32(b, b.lshr(low, b.trunc(shift, I32)), kind)
            if sign_table is not None:
                value = b.fmul(value, b.load(b.gep(sign_table, [const(0), e], inbounds=True), typ=F64))
            b.store(value, element(b, into, e, F64))
            return []
        counted_loop(b, count, [], body)

    def _modify_c(self, module, b, c) -> None:
        """NEG_HI[2] (absolute value first), then NEG[2], on every element of a float C."""
        def body(b, e, _):
            at = element(b, c, e, F64)
            value = b.load(at, typ=F64)
            if self.op.abs_c:
                value = b.call(module.declare_intrinsic("llvm.fabs", [F64]), [value])
            b.store(b.fneg(value) if self.op.negate_c else value, at)
            return []
        counted_loop(b, self.blocks * self.m * self.n, [], body)

    def _products(self, b, vgpr, d_base, table, a, bt, c) -> None:
        count = table.type.pointee.count // 3
        m, n, k = self.m, self.n, self.k

        def body(b, e, _):
            block, i, j = b.udiv(e, const(m * n)), b.urem(b.udiv(e, const(n)), const(m)), b.urem(e, const(n))
            row = b.mul(b.add(b.mul(block, const(m)), i), const(k))
            col = b.mul(b.add(b.mul(block, const(n)), j), const(k))

            def product(at: ir.Value) -> ir.Value:
                return b.fmul(b.load(element(b, a, b.add(row, at), F64), typ=F64),
                              b.load(element(b, bt, b.add(col, at), F64), typ=F64))
            total = product(const(0))
            if k > 1:
                total, = counted_loop(b, k - 1, [total], lambda b, q, s: [b.fadd(s[0], product(b.add(q, const(1))))])
            d = b.fadd(total, b.load(element(b, c, e, F64), typ=F64))
            index, _ = self._placed(b, table, count, d_base, e)
            if self.op.out == "F64":
                bits = b.bitcast(d, I64)
                b.store(b.trunc(bits, I32), element(b, vgpr, index, I32))
                b.store(b.trunc(b.lshr(bits, const(32)), I32), element(b, vgpr, b.add(index, const(self.wave_size)), I32))
            else:
                b.store(b.bitcast(b.fptrunc(d, ir.FloatType()), I32), element(b, vgpr, index, I32))
            return []
        counted_loop(b, count, [], body)


def _constant(module: ir.Module, name: str, typ: ir.Type, values: np.ndarray) -> ir.GlobalVariable:
    table = ir.GlobalVariable(module, ir.ArrayType(typ, len(values)), f"{module.name}_{name}")
    table.initializer = ir.Constant(table.type.pointee, [typ(v) for v in values.tolist()])
    table.global_constant, table.linkage = True, "private"
    return table


def _decode32(b: ir.IRBuilder, field: ir.Value, kind: str) -> ir.Value:
    """The low bits of ``field`` (an i32) as ``kind``, widened exactly to float64."""
    if kind == "F16":
        return b.fpext(b.bitcast(b.trunc(field, ir.IntType(16)), ir.HalfType()), F64)
    if kind == "BF16":
        return b.fpext(b.bitcast(b.shl(field, const(16, I32)), ir.FloatType()), F64)
    return b.fpext(b.bitcast(field, ir.FloatType()), F64)
